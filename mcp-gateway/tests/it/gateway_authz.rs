//! Two users with different rights and tokens through one gateway whose HTTP front is an OAuth resource
//! server (gateway.auth), with nothing of one reaching the other: the tokens come from a real
//! authorization server (oauth_as.py, the Python SDK's `mcp.server.auth`, with a JWKS and an RFC 8693
//! token endpoint); the upstreams are our runtime's HTTP server checking its own audience (one fed the
//! callers' own tokens, one tokens exchanged for it) and a Python SDK server over stdio started per user
//! with the user's token in its environment. The downstreams are our client and the Python SDK's over
//! Streamable HTTP. Without the peers (scripts/install-peers.sh) a test says so and passes, unless
//! MCP_PEERS_REQUIRED=1.

use crate::auth_server::AuthServer;
use mcp_gateway::Gateway;
use mcp_runtime::http::{HttpClientConfig, HttpConfig, JwtVerifier, ResourceServer};
use mcp_runtime::protocol::{CallToolResult, ErrorObject, LoggingLevel, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Client, Context, Error, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// An MCP server over HTTP on loopback whose tokens must be `audience`'s (from `issuer`); its tool
/// `whoami` answers with the caller's `sub`, `act`, the token's `jti` and the token itself (which a
/// gateway must redact); `whoami {"leak": true}` logs the token and fails with it in a JSON-RPC error.
async fn upstream(issuer: &str, audience: &str) -> String {
    let whoami = ToolRoute::new(
        Tool::new(
            "whoami",
            "who called",
            json!({"type": "object"}).as_object().unwrap().clone(),
        ),
        |args: Arguments, ctx: Context| async move {
            let a = ctx.auth().expect("the upstream checks tokens");
            let token = a.token.as_ref().map(|t| t.as_str().to_string());
            let args: Value = args.parse().unwrap_or(Value::Null);
            if args["leak"] == true {
                let note = json!({"note": format!("rejected {token:?}"), "token": token});
                ctx.log(LoggingLevel::Warning, Some("auth"), note).await;
                return Err(ErrorObject::internal(format!("rejected token {token:?}"))
                    .with_data(json!({"token": token})));
            }
            let who = json!({"sub": a.subject, "act": a.claims.get("act"), "jti": a.claims.get("jti"),
                             "token": token});
            Ok(CallToolResult::text(who.to_string()))
        },
    );
    let server = Server::builder().tool(whoami).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let verifier = JwtVerifier::new(issuer, audience);
    let config = HttpConfig {
        auth: Some(ResourceServer::new(audience, verifier)),
        ..HttpConfig::default()
    };
    tokio::spawn(mcp_runtime::http::serve_http_on(
        server,
        listener,
        config,
        std::future::pending(),
    ));
    url
}

const PT_AUD: &str = "urn:test:passthrough-upstream";
const TX_AUD: &str = "urn:test:exchange-upstream";

struct Setup {
    auth: AuthServer,
    gateway: Gateway,
    url: String,
    python: std::path::PathBuf,
    /// The config the gateway runs, as JSON (a reload test changes its rules).
    config: Value,
}

/// The authorization server, the two HTTP upstreams, and the gateway serving HTTP with `gateway.auth`
/// and rules: `files:write` sees everything; `files:read` sees the three upstreams; an intern sees
/// nothing secret.
async fn setup() -> Option<Setup> {
    setup_with(4, |_| {}).await
}

/// [`setup`], with the per-user stdio upstream's `maxUsers`, and the config as `tweak` changes it.
async fn setup_with(max_users: u32, tweak: impl FnOnce(&mut Value)) -> Option<Setup> {
    let python = test_support::python()?;
    let auth = AuthServer::start(&python);
    let (pt, tx) = (
        upstream(&auth.issuer, PT_AUD).await,
        upstream(&auth.issuer, TX_AUD).await,
    );
    // The gateway lists the HTTP upstreams with a service token of its own.
    let service = |aud: &str| json!({"claims": {"sub": "gateway-service", "aud": aud}});
    let (pt_service, tx_service) = (
        auth.mint(service(PT_AUD)).await,
        auth.mint(service(TX_AUD)).await,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let script = test_support::workspace().join("scripts/python_server_whoami.py");
    let config_json = json!({
        "mcpServers": {
            "pt": {"url": pt, "headers": {"Authorization": format!("Bearer {pt_service}")},
                   "credentials": {"mode": "passthrough", "audience": PT_AUD}},
            "tx": {"url": tx, "headers": {"Authorization": format!("Bearer {tx_service}")},
                   "credentials": {"mode": "token-exchange", "tokenEndpoint": auth.exchange_endpoint(),
                                   "audience": TX_AUD, "clientId": "gw", "clientSecret": "gw-secret"}},
            "me": {"command": python, "args": [script], "perUser": true, "maxUsers": max_users,
                   "env": {"CALLER": "${user.sub}", "CALLER_TOKEN": "${user.token}"}},
        },
        "gateway": {
            "auth": {"resource": url, "issuer": auth.issuer},
            "rules": [
                {"when": {"scope": "files:write"}, "allow": {"tools": ["*"], "prompts": ["*"], "resources": ["*"]}},
                {"when": {"scope": "files:read"}, "allow": {"upstreams": ["pt", "tx", "me"]}},
                {"when": {"claim": "role", "equals": "intern"},
                 "deny": {"tools": ["*secret*"], "prompts": ["*secret*"], "resources": ["memo://secret*"]}},
            ],
        },
    });
    let mut config_json = config_json;
    tweak(&mut config_json);
    let config: mcp_gateway::Config = config_json.to_string().parse().expect("a valid config");
    let front = config.auth.as_ref().unwrap().resource_server();
    let gateway = Gateway::start(config).await;
    let http = HttpConfig {
        auth: Some(front),
        ..HttpConfig::default()
    };
    tokio::spawn(mcp_runtime::http::serve_http_on(
        gateway.server().clone(),
        listener,
        http,
        std::future::pending(),
    ));
    Some(Setup {
        auth,
        gateway,
        url,
        python,
        config: config_json,
    })
}

/// A token for `sub` from the test's authorization server.
async fn token(s: &Setup, sub: &str, scope: &str, role: &str, aud: Value) -> String {
    s.auth
        .mint(json!({"claims": {"sub": sub, "scope": scope, "role": role, "aud": aud}}))
        .await
}

async fn client(s: &Setup, token: &str) -> Client {
    Client::builder()
        .connect_http(&s.url, HttpClientConfig::default().bearer(token))
        .await
        .expect("connect to the gateway")
}

async fn tools(c: &Client) -> Vec<String> {
    let mut n: Vec<String> = c
        .list_tools(None)
        .await
        .unwrap()
        .tools
        .into_iter()
        .map(|t| t.name)
        .collect();
    n.sort();
    n
}

async fn prompts(c: &Client) -> Vec<String> {
    let p = c.list_prompts(None).await.unwrap().prompts;
    p.into_iter().map(|p| p.name).collect()
}

async fn uris(c: &Client) -> Vec<String> {
    let r = c.list_resources(None).await.unwrap().resources;
    let mut u: Vec<String> = r.into_iter().map(|r| r.uri).collect();
    u.sort();
    u
}

const REDACTED: &str = mcp_gateway::secrets::REDACTED;

fn sha256(s: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn text(r: &CallToolResult) -> Value {
    let t = r.content[0].as_text().expect("a text result");
    serde_json::from_str(t).unwrap_or(Value::String(t.to_string()))
}

#[tokio::test]
async fn two_users_see_and_call_what_their_rules_allow_with_their_own_credentials() {
    let Some(s) = setup().await else { return };
    let both = json!([s.url, PT_AUD]);
    let alice_t = token(&s, "alice", "files:read files:write", "admin", both.clone()).await;
    let bob_t = token(&s, "bob", "files:read", "intern", both.clone()).await;
    let (alice, bob) = (client(&s, &alice_t).await, client(&s, &bob_t).await);

    // Alice sees the secret tool, Bob does not: not in his list, and calling it is answered exactly as
    // calling a tool nobody has.
    let all = ["me_secret_plan", "me_whoami", "pt_whoami", "tx_whoami"];
    assert_eq!(tools(&alice).await, all);
    assert_eq!(tools(&bob).await, ["me_whoami", "pt_whoami", "tx_whoami"]);
    assert_eq!(
        text(&alice.call_tool("me_secret_plan", json!({})).await.unwrap()),
        "the plan"
    );
    let hidden = bob
        .call_tool("me_secret_plan", json!({}))
        .await
        .unwrap_err();
    let unknown = bob.call_tool("no_such_tool", json!({})).await.unwrap_err();
    let (Error::Rpc(hidden), Error::Rpc(unknown)) = (hidden, unknown) else {
        panic!("JSON-RPC errors expected")
    };
    assert_eq!(hidden.code, -32602);
    assert_eq!(hidden.code, unknown.code);
    assert_eq!(hidden.message, "Unknown tool: me_secret_plan");
    assert_eq!(unknown.message, "Unknown tool: no_such_tool");
    assert_eq!(hidden.data, unknown.data);

    // Prompts and resources likewise.
    assert_eq!(prompts(&alice).await, ["me_secret_prompt"]);
    assert!(prompts(&bob).await.is_empty());
    let e = bob
        .get_prompt("me_secret_prompt", BTreeMap::new())
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("Unknown prompt: me_secret_prompt"),
        "{e}"
    );
    assert_eq!(uris(&alice).await, ["memo://public", "memo://secret"]);
    assert_eq!(uris(&bob).await, ["memo://public"]);
    let read = alice.read_resource("memo://secret").await.unwrap();
    let memo = match &read.contents[0] {
        mcp_runtime::protocol::ResourceContents::Text { text, .. } => text.as_str(),
        other => panic!("{other:?}"),
    };
    assert_eq!(memo, "the memo");
    let e = bob.read_resource("memo://secret").await.unwrap_err();
    assert!(
        e.to_string().contains("Resource not found: memo://secret"),
        "{e}"
    );

    // Passthrough: the upstream sees each caller's own token, under concurrent calls, never crossed.
    let calls = (0..16).map(|i| {
        let (c, who) = if i % 2 == 0 {
            (&alice, "alice")
        } else {
            (&bob, "bob")
        };
        async move {
            let r = c.call_tool("pt_whoami", json!({})).await.unwrap();
            (who, text(&r))
        }
    });
    for (who, seen) in futures_util::future::join_all(calls).await {
        assert_eq!(seen["sub"], who, "{seen}");
        assert_eq!(
            seen["act"],
            Value::Null,
            "passthrough sends the caller's token itself"
        );
    }

    // Token exchange: the upstream sees a token issued for it, for the caller, by the exchange; each
    // caller's exchange is done once and kept.
    for _ in 0..3 {
        for (c, who) in [(&alice, "alice"), (&bob, "bob")] {
            let seen = text(&c.call_tool("tx_whoami", json!({})).await.unwrap());
            assert_eq!(seen["sub"], who, "{seen}");
            assert_eq!(seen["act"], json!({"sub": "gw"}), "{seen}");
        }
    }
    assert_eq!(s.auth.exchanges().await, json!({"alice": 1, "bob": 1}));

    // Per-user stdio children: each caller's child has its own token in its environment.
    let a = text(&alice.call_tool("me_whoami", json!({})).await.unwrap());
    let b = text(&bob.call_tool("me_whoami", json!({})).await.unwrap());
    // The child has its caller's token (its digest says so), and the gateway keeps it out of what the
    // child says.
    assert_eq!(
        (a["caller"].as_str(), a["token_sha256"].as_str()),
        (Some("alice"), Some(sha256(&alice_t).as_str()))
    );
    assert_eq!(
        (b["caller"].as_str(), b["token_sha256"].as_str()),
        (Some("bob"), Some(sha256(&bob_t).as_str()))
    );
    assert_eq!(
        (a["token"].as_str(), b["token"].as_str()),
        (Some(REDACTED), Some(REDACTED))
    );
    assert_ne!(a["pid"], b["pid"], "one child per user");
    let again = text(&alice.call_tool("me_whoami", json!({})).await.unwrap());
    assert_eq!(
        again["pid"], a["pid"],
        "a user's child serves its next call"
    );
    let status = s.gateway.status();
    assert!(status.iter().all(|u| u.state == "up"), "{status:?}");
}

/// Every token is a JWT here: nothing the caller receives may hold one.
fn assert_no_token(what: &str) {
    assert!(!what.contains("eyJ"), "a token reached the caller: {what}");
}

#[tokio::test]
async fn the_credentials_of_a_per_user_connection_never_come_back_from_its_upstream() {
    let Some(s) = setup().await else { return };
    let alice_t = token(&s, "alice", "files:read", "staff", json!([s.url, PT_AUD])).await;
    // A handshake-era session, so that the upstreams' log messages come back without asking.
    let alice = Client::builder()
        .era(mcp_runtime::client::Era::Legacy)
        .connect_http(&s.url, HttpClientConfig::default().bearer(&alice_t))
        .await
        .expect("connect to the gateway");
    let mut notes = alice.notifications();
    // Results: the passthrough token, the exchanged one (which alice never saw), the child's env.
    for tool in ["pt_whoami", "tx_whoami", "me_whoami"] {
        let r = alice.call_tool(tool, json!({})).await.unwrap();
        let seen = text(&r);
        assert_eq!(seen["token"], REDACTED, "{tool}: {seen}");
        assert_no_token(&seen.to_string());
    }
    // Errors (message and data) and log messages of the HTTP upstreams.
    for tool in ["pt_whoami", "tx_whoami"] {
        let e = alice
            .call_tool(tool, json!({"leak": true}))
            .await
            .unwrap_err();
        let Error::Rpc(e) = e else {
            panic!("{tool}: {e}")
        };
        assert!(e.message.contains(REDACTED), "{tool}: {}", e.message);
        assert_eq!(e.data.as_ref().unwrap()["token"], REDACTED, "{tool}: {e:?}");
        assert_no_token(&format!("{e:?}"));
    }
    let mut logs = Vec::new();
    while logs.len() < 2 {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), notes.recv())
            .await
            .expect("both upstreams' log messages are relayed")
            .unwrap();
        if n.method == "notifications/message" {
            logs.push(n.params.unwrap());
        }
    }
    for log in &logs {
        assert_eq!(log["data"]["token"], REDACTED, "{log}");
        assert_no_token(&log.to_string());
    }
    // The stdio child's tool error and JSON-RPC error.
    let r = alice
        .call_tool("me_whoami", json!({"leak": "result"}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    assert!(
        r.text_content()
            .contains(&format!("rejected token {REDACTED}")),
        "{r:?}"
    );
    assert_no_token(&format!("{r:?}"));
    let e = alice
        .call_tool("me_whoami", json!({"leak": "error"}))
        .await
        .unwrap_err();
    let Error::Rpc(e) = e else { panic!("{e}") };
    assert_eq!(e.message, format!("rejected token {REDACTED}"), "{e:?}");
    assert_no_token(&format!("{e:?}"));
}

/// The `users` report of upstream `name` in `/health`'s JSON.
fn users_health(s: &Setup, name: &str) -> Value {
    let (_, report) = mcp_gateway::health::report(&s.gateway.status());
    let ups = report["upstreams"].as_array().unwrap();
    let up = ups.iter().find(|u| u["name"] == name).unwrap();
    let mut users = up["users"].clone();
    users["pids"] = json!(users["pids"].as_array().map_or(0, Vec::len));
    users
}

/// The value of one series of `/metrics`.
fn metric(s: &Setup, series: &str) -> Option<u64> {
    let text = s.gateway.metrics().encode();
    let line = text.lines().find(|l| l.starts_with(series))?;
    line[series.len()..].trim().parse().ok()
}

#[tokio::test]
async fn discovery_and_composites_redact_a_per_user_connection_too() {
    // Discovery mode (no rules with it) and a composite whose steps call the per-user upstreams.
    let Some(s) = setup_with(4, |c| {
        c["gateway"].as_object_mut().unwrap().remove("rules");
        c["gateway"]["discovery"] = json!(true);
        c["composites"] = json!({"both": {"steps": [
            {"id": "child", "server": "me", "tool": "whoami"},
            {"id": "http", "server": "tx", "tool": "whoami",
             "arguments": {"seen": "${child.result}"}},
        ]}});
    })
    .await
    else {
        return;
    };
    let alice_t = token(&s, "alice", "files:read", "staff", json!([s.url, PT_AUD])).await;
    let alice = client(&s, &alice_t).await;
    let call = |name: &'static str, arguments: Value| {
        let alice = &alice;
        async move {
            alice
                .call_tool("call_tool", json!({"name": name, "arguments": arguments}))
                .await
        }
    };
    for name in ["me_whoami", "pt_whoami", "tx_whoami"] {
        let seen = text(&call(name, json!({})).await.unwrap());
        assert_eq!(seen["token"], REDACTED, "{name}: {seen}");
        assert_no_token(&seen.to_string());
    }
    let r = call("me_whoami", json!({"leak": "result"})).await.unwrap();
    assert!(r.text_content().contains(REDACTED), "{r:?}");
    assert_no_token(&format!("{r:?}"));
    let e = call("pt_whoami", json!({"leak": true})).await.unwrap_err();
    assert!(e.to_string().contains(REDACTED), "{e}");
    assert_no_token(&format!("{e:?}"));
    // The composite's steps: the last one's result, and nothing of the first reaches the second.
    let seen = text(&call("both", json!({})).await.unwrap());
    assert_eq!(seen["sub"], "alice", "{seen}");
    assert_eq!(seen["token"], REDACTED, "{seen}");
    assert_no_token(&seen.to_string());
}

#[tokio::test]
async fn health_and_metrics_report_per_user_connections_evictions_and_refusals() {
    let Some(s) = setup_with(1, |_| {}).await else {
        return;
    };
    let aud = json!([s.url, PT_AUD]);
    let alice_t = token(&s, "alice", "files:read", "staff", aud.clone()).await;
    let bob_t = token(&s, "bob", "files:read", "staff", aud).await;
    let (alice, bob) = (client(&s, &alice_t).await, client(&s, &bob_t).await);
    let series = |name: &str| format!("mcp_gateway_{name}{{upstream=\"me\"}}");
    assert_eq!(
        users_health(&s, "me"),
        json!({"live": 0, "max": 1, "evictions": 0, "refusals": 0, "pids": 0})
    );
    assert_eq!(metric(&s, &series("user_connections_max")), Some(1));
    assert_eq!(metric(&s, &series("user_connections")), Some(0));
    // The HTTP upstreams' per-user connections are reported too (the default maxUsers).
    assert_eq!(
        users_health(&s, "pt"),
        json!({"live": 0, "max": 64, "evictions": 0, "refusals": 0, "pids": 0})
    );

    alice.call_tool("me_whoami", json!({})).await.unwrap();
    assert_eq!(
        users_health(&s, "me"),
        json!({"live": 1, "max": 1, "evictions": 0, "refusals": 0, "pids": 1})
    );
    assert_eq!(metric(&s, &series("user_connections")), Some(1));
    // Bob takes the place of alice's idle connection.
    bob.call_tool("me_whoami", json!({})).await.unwrap();
    assert_eq!(
        users_health(&s, "me"),
        json!({"live": 1, "max": 1, "evictions": 1, "refusals": 0, "pids": 1})
    );
    assert_eq!(
        metric(&s, &series("user_connection_evictions_total")),
        Some(1)
    );
    // While bob's call runs, alice finds no room.
    let busy = bob.call_tool("me_whoami", json!({"wait": 2.0}));
    let refused = async {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        alice.call_tool("me_whoami", json!({})).await
    };
    let (busy, refused) = tokio::join!(busy, refused);
    busy.unwrap();
    let e = refused.unwrap_err();
    assert!(e.to_string().contains("maxUsers"), "{e}");
    assert_eq!(
        users_health(&s, "me"),
        json!({"live": 1, "max": 1, "evictions": 1, "refusals": 1, "pids": 1})
    );
    assert_eq!(
        metric(&s, &series("user_connection_refusals_total")),
        Some(1)
    );
}

#[tokio::test]
async fn a_token_not_issued_for_a_passthrough_upstream_is_not_sent_to_it() {
    let Some(s) = setup().await else { return };
    // Issued for the gateway alone: the gateway accepts it, the passthrough upstream never sees it.
    let carol_t = token(&s, "carol", "files:read", "staff", json!(s.url)).await;
    let carol = client(&s, &carol_t).await;
    assert!(tools(&carol).await.contains(&"pt_whoami".to_string()));
    let e = carol.call_tool("pt_whoami", json!({})).await.unwrap_err();
    let Error::Rpc(e) = e else { panic!("{e}") };
    assert!(
        e.message
            .contains("upstream `pt` needs the caller's credentials")
            && e.message.contains(PT_AUD),
        "{}",
        e.message
    );
    // Without a token the front refuses before any handler runs.
    let anonymous = Client::builder()
        .connect_http(&s.url, HttpClientConfig::default())
        .await;
    assert!(anonymous.is_err(), "a request without a token is refused");
}

#[test]
fn the_python_sdk_client_sees_only_what_its_token_allows() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let Some(s) = rt.block_on(setup()) else {
        return;
    };
    let both = json!([s.url, PT_AUD]);
    let bob_t = rt.block_on(token(&s, "bob", "files:read", "intern", both));
    let script = test_support::workspace().join("scripts/python_client_bearer.py");
    let out = std::process::Command::new(&s.python)
        .arg(script)
        .args([&s.url, &bob_t, "me_secret_plan", "pt_whoami"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["tools"],
        json!(["me_whoami", "pt_whoami", "tx_whoami"]),
        "{v}"
    );
    assert_eq!(v["calls"]["me_secret_plan"]["error"]["code"], -32602, "{v}");
    assert_eq!(
        v["calls"]["me_secret_plan"]["error"]["message"],
        "Unknown tool: me_secret_plan"
    );
    let seen: Value =
        serde_json::from_str(v["calls"]["pt_whoami"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(seen["sub"], "bob", "{v}");
    drop(s);
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
}

#[test]
fn a_bad_rule_is_refused_with_the_file_the_place_and_the_problem() {
    use std::io::Write;
    let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    f.write_all(
        json!({"mcpServers": {"a": {"command": "x"}},
               "gateway": {"rules": [{"allow": {"tools": ["*"]}},
                                     {"when": {"claim": "groups", "includes": "admin"}, "allow": {"tools": ["*"]}}]}})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    let e = mcp_gateway::Config::load(f.path()).unwrap_err();
    assert_eq!(e.file, f.path().display().to_string());
    assert_eq!(e.place, "gateway.rules[1].when");
    assert!(
        e.problem.contains("`equals` or `contains`"),
        "{}",
        e.problem
    );
    // A template that names the caller needs a per-user child.
    let e: mcp_gateway::ConfigError =
        json!({"mcpServers": {"a": {"command": "x", "env": {"T": "${user.token}"}}}})
            .to_string()
            .parse::<mcp_gateway::Config>()
            .unwrap_err();
    assert_eq!(e.place, "mcpServers.a.env.T");
    assert!(e.problem.contains("perUser"), "{}", e.problem);
}

#[tokio::test]
async fn new_rules_apply_at_a_reload_and_clients_are_told() {
    let Some(s) = setup().await else { return };
    let bob_t = token(&s, "bob", "files:read", "intern", json!([s.url, PT_AUD])).await;
    let bob = client(&s, &bob_t).await;
    // Change notifications in whichever era the client speaks (a `subscriptions/listen` stream in
    // 2026-07-28).
    let filter = mcp_runtime::protocol::SubscriptionFilter {
        tools_list_changed: Some(true),
        ..Default::default()
    };
    let mut changes = bob.listen(filter).await.unwrap();
    assert_eq!(tools(&bob).await, ["me_whoami", "pt_whoami", "tx_whoami"]);
    // Interns lose the passthrough upstream.
    let mut config = s.config.clone();
    config["gateway"]["rules"][2]["deny"]["tools"] = json!(["*secret*", "pt_*"]);
    let report = s.gateway.reload(config.to_string().parse().unwrap()).await;
    assert!(report.notified.contains(&"tools"), "{:?}", report.notified);
    assert!(report.restarted.is_empty(), "rules restart no upstream");
    let told = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while let Some(n) = changes.next().await {
            if n.method == "notifications/tools/list_changed" {
                return;
            }
        }
    })
    .await;
    assert!(told.is_ok(), "bob was told his tools changed");
    assert_eq!(tools(&bob).await, ["me_whoami", "tx_whoami"]);
    let e = bob.call_tool("pt_whoami", json!({})).await.unwrap_err();
    assert!(e.to_string().contains("Unknown tool: pt_whoami"), "{e}");
}
