//! The gateway in this process in front of our example servers (real child processes over stdio) and of
//! servers built here and served over Streamable HTTP; downstream, our client over an in-process pipe.

use crate::common;

use common::{config, connect, eventually, example_file, names, serve_example, workspace_bin};
use mcp_gateway::Gateway;
use mcp_runtime::client::{CallOptions, Client, Era};
use mcp_runtime::protocol::{
    CallToolResult, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams,
    ElicitResult, ErrorObject, ProgressParams, Role, Root, Tool,
};
use mcp_runtime::server::{Arguments, Eras, ToolRoute};
use mcp_runtime::{Context, Error, Server};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn bench() -> String {
    workspace_bin("bench-server").display().to_string()
}

fn everything() -> String {
    workspace_bin("everything-server").display().to_string()
}

fn text(r: &CallToolResult) -> String {
    r.text_content()
}

/// server-everything's `test_prompt_with_arguments` through the gateway, with `arg1=x`, `arg2=y`.
async fn test_prompt(client: &Client) -> mcp_runtime::protocol::GetPromptResult {
    let args = [("arg1", "x"), ("arg2", "y")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    client
        .get_prompt("every_test_prompt_with_arguments", args)
        .await
        .unwrap()
}

#[tokio::test]
async fn aggregates_and_routes_tools_of_two_stdio_servers() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "bench": {"command": bench()},
        "every": {"command": everything(), "allow": ["test_simple_text", "test_error_handling", "test_tool_with_progress"]},
    }})))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        names(&tools),
        [
            "bench_add",
            "bench_echo",
            "bench_sleep",
            "every_test_error_handling",
            "every_test_simple_text",
            "every_test_tool_with_progress"
        ]
    );
    // Definitions travel unchanged but for the name.
    let echo = tools.iter().find(|t| t.name == "bench_echo").unwrap();
    assert_eq!(
        echo.description.as_deref(),
        Some("Return the text unchanged.")
    );
    assert_eq!(echo.input_schema["required"], json!(["text"]));

    let r = client
        .call_tool("bench_add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(text(&r), "5");
    let r = client
        .call_tool("every_test_simple_text", json!({}))
        .await
        .unwrap();
    assert!(text(&r).contains("simple text"), "{r:?}");
    let r = client
        .call_tool("every_test_error_handling", json!({}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    // A denied tool and a made-up one are unknown tools (-32602).
    for name in ["every_test_sampling", "nope"] {
        match client.call_tool(name, json!({})).await {
            Err(Error::Rpc(e)) => assert_eq!(e.code, -32602, "{name}: {e:?}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    let status = gw.status();
    assert!(status.iter().all(|s| s.state == "up"), "{status:?}");
    assert_eq!(status[0].tools, 3);
}

#[tokio::test]
async fn upstream_errors_keep_code_message_and_data() {
    let direct = Client::builder()
        .spawn(tokio::process::Command::new(bench()))
        .await
        .unwrap();
    let gw = Gateway::start(config(
        json!({"mcpServers": {"bench": {"command": bench()}}}),
    ))
    .await;
    let client = connect(&gw, Client::builder()).await;
    // One upstream: no prefix.
    assert_eq!(
        names(&client.list_all_tools().await.unwrap()),
        ["add", "echo", "sleep"]
    );
    let bad = json!({"a": "two", "b": 3});
    let want = match direct.call_tool("add", &bad).await {
        Err(Error::Rpc(e)) => e,
        Ok(mut r) => {
            // A server may report bad arguments as a tool error instead: then it must pass unchanged too,
            // but for the server its `_meta` names (2026: the one that answered, the gateway downstream).
            let mut got = client.call_tool("add", &bad).await.unwrap();
            (got.meta, r.meta) = (None, None);
            assert_eq!(got, r);
            return;
        }
        Err(e) => panic!("{e:?}"),
    };
    match client.call_tool("add", &bad).await {
        Err(Error::Rpc(e)) => assert_eq!(e, want),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn progress_sampling_elicitation_and_roots_are_relayed_in_both_eras() {
    for era in [Era::Legacy, Era::Modern] {
        let gw = Gateway::start(config(
            json!({"mcpServers": {"every": {"command": everything()}}}),
        ))
        .await;
        let client = connect(
            &gw,
            Client::builder()
                .era(era)
                .sampling(|p: CreateMessageParams| async move {
                    let asked = p.messages[0].content["text"]
                        .as_str()
                        .unwrap_or("")
                        .to_string();
                    Ok::<_, ErrorObject>(CreateMessageResult {
                        role: Role::Assistant,
                        content: json!({"type": "text", "text": format!("echo of {asked}")}),
                        model: "test-model".into(),
                        stop_reason: None,
                        meta: None,
                    })
                })
                .roots(vec![Root {
                    uri: "file:///work/project".into(),
                    name: Some("project".into()),
                    meta: None,
                }])
                .elicitation(|_p: ElicitParams| async move {
                    Ok::<_, ErrorObject>(ElicitResult {
                        action: ElicitAction::Accept,
                        content: json!({"username": "ada", "email": "ada@example.org"})
                            .as_object()
                            .cloned(),
                        meta: None,
                    })
                }),
        )
        .await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let r = client
            .call_tool_with(
                "test_tool_with_progress",
                json!({}),
                CallOptions {
                    on_progress: Some(Arc::new(move |p: ProgressParams| {
                        s.lock().unwrap().push(p.progress)
                    })),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(r.is_error, None, "{era:?}: {r:?}");
        assert_eq!(*seen.lock().unwrap(), [0.0, 50.0, 100.0], "{era:?}");

        let r = client
            .call_tool("test_sampling", json!({"prompt": "hello"}))
            .await
            .unwrap();
        assert_eq!(text(&r), "LLM response: echo of hello", "{era:?}");
        let r = client
            .call_tool("test_elicitation", json!({"message": "who?"}))
            .await
            .unwrap();
        assert!(text(&r).contains("ada@example.org"), "{era:?}: {r:?}");
        let r = client
            .call_tool("test_input_required_result_list_roots", json!({}))
            .await
            .unwrap();
        assert_eq!(text(&r), "Found 1 root(s)", "{era:?}");
    }
}

#[tokio::test]
async fn a_killed_upstream_fails_its_calls_at_once_and_comes_back() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "a": {"command": bench()},
        "b": {"command": bench()},
    }})))
    .await;
    let client = Arc::new(connect(&gw, Client::builder()).await);
    let pid = gw.status()[0].pid.expect("a is up");
    // A call in flight on `a` when it dies fails at once, with the exit status.
    let c = client.clone();
    let in_flight = tokio::spawn(async move {
        let t0 = Instant::now();
        (
            c.call_tool("a_sleep", json!({"ms": 30000})).await,
            t0.elapsed(),
        )
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let (r, took) = in_flight.await.unwrap();
    match r {
        Err(Error::Rpc(e)) => {
            assert!(e.message.contains("upstream `a`"), "{e:?}");
            let reason = e.data.as_ref().unwrap()["reason"].as_str().unwrap();
            assert!(
                reason.contains("signal") || reason.contains("exited"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(took < Duration::from_secs(5), "{took:?}");
    // The next call on `a` fails at once too (it is restarting), and `b` keeps working.
    let t0 = Instant::now();
    let r = client.call_tool("a_echo", json!({"text": "x"})).await;
    if let Err(Error::Rpc(e)) = &r {
        assert!(e.message.contains("upstream `a`"), "{e:?}");
        assert!(t0.elapsed() < Duration::from_secs(2));
    }
    let r = client
        .call_tool("b_echo", json!({"text": "still here"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "still here");
    // `a` is restarted with backoff and serves again, under the same names.
    eventually(Duration::from_secs(10), "a to come back", || {
        let s = &gw.status()[0];
        s.state == "up" && s.pid.is_some_and(|p| p != pid)
    })
    .await;
    assert!(gw.status()[0].restarts >= 1);
    let r = client
        .call_tool("a_echo", json!({"text": "back"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "back");
}

#[tokio::test]
async fn broken_and_hanging_upstreams_do_not_hold_the_others() {
    let t0 = Instant::now();
    let gw = Gateway::start(config(json!({"mcpServers": {
        "missing": {"command": "/nonexistent/mcp-server"},
        "hangs": {"command": "sleep", "args": ["60"], "initTimeoutMs": 700},
        "bench": {"command": bench()},
    }})))
    .await;
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    let status = gw.status();
    let by = |n: &str| status.iter().find(|s| s.name == n).unwrap().clone();
    assert_eq!(by("bench").state, "up");
    assert_eq!(by("missing").state, "down");
    assert!(by("missing")
        .reason
        .unwrap()
        .contains("/nonexistent/mcp-server"));
    assert_eq!(by("hangs").state, "down");
    assert!(by("hangs").reason.unwrap().contains("700ms"), "{status:?}");
    let client = connect(&gw, Client::builder()).await;
    assert_eq!(
        names(&client.list_all_tools().await.unwrap()),
        ["bench_add", "bench_echo", "bench_sleep"]
    );
}

/// A server of our own over Streamable HTTP on a loopback port; returns its URL.
async fn http_upstream(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mcp_runtime::http::serve_http_on(
        server,
        listener,
        mcp_runtime::http::HttpConfig::default(),
        std::future::pending(),
    ));
    format!("http://{addr}/mcp")
}

fn tool(name: &str, reply: &'static str) -> ToolRoute {
    ToolRoute::new(
        Tool::new(
            name,
            "test tool",
            json!({"type": "object"}).as_object().unwrap().clone(),
        ),
        move |_: Arguments, _: Context| async move { Ok(CallToolResult::text(reply)) },
    )
}

#[tokio::test]
async fn long_names_are_hashed_and_collisions_keep_the_first_name() {
    let long = format!("a_tool_with_a_very_long_name_{}", "x".repeat(60));
    let one = Server::builder()
        .tool(tool("search", "from one"))
        .tool(tool(&long, "long one"))
        .build()
        .unwrap();
    let two = Server::builder()
        .tool(tool("search", "from two"))
        .build()
        .unwrap();
    let (u1, u2) = (http_upstream(one).await, http_upstream(two).await);
    let gw = Gateway::start(config(json!({
        "mcpServers": {"one": {"url": u1}, "two": {"url": u2}},
        "gateway": {"prefixes": "never"},
    })))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let tools = names(&client.list_all_tools().await.unwrap());
    assert_eq!(tools.len(), 3, "{tools:?}");
    assert!(tools.contains(&"search".to_string()));
    assert!(tools.contains(&"two_search".to_string()));
    let hashed = tools.iter().find(|n| n.starts_with("a_tool")).unwrap();
    assert_eq!(hashed.len(), 64, "{hashed}");
    assert!(hashed
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    for (name, want) in [
        ("search", "from one"),
        ("two_search", "from two"),
        (hashed.as_str(), "long one"),
    ] {
        let r = client.call_tool(name, json!({})).await.unwrap();
        assert_eq!(text(&r), want, "{name}");
    }
}

#[tokio::test]
async fn an_upstream_list_change_is_relayed_downstream() {
    let upstream = Server::builder()
        .tool(tool("first", "1"))
        .offer_tools()
        .build()
        .unwrap();
    let url = http_upstream(upstream.clone()).await;
    let gw = Gateway::start(config(json!({"mcpServers": {"up": {"url": url}}}))).await;
    let client = connect(&gw, Client::builder().era(Era::Legacy)).await;
    let mut notes = client.notifications();
    assert_eq!(names(&client.list_all_tools().await.unwrap()), ["first"]);
    // A burst of changes upstream.
    for name in ["second", "third"] {
        upstream.add_tool(tool(name, "n")).unwrap();
        upstream.notify_tools_list_changed();
    }
    upstream.remove_tool("first");
    upstream.notify_tools_list_changed();
    let n = tokio::time::timeout(Duration::from_secs(5), notes.recv())
        .await
        .expect("a list_changed downstream")
        .unwrap();
    assert_eq!(n.method, "notifications/tools/list_changed");
    eventually(Duration::from_secs(5), "the new list", || {
        gw.status()[0].tools == 2
    })
    .await;
    assert_eq!(
        names(&client.list_all_tools().await.unwrap()),
        ["second", "third"]
    );
    let r = client.call_tool("third", json!({})).await.unwrap();
    assert_eq!(text(&r), "n");
}

#[tokio::test]
async fn prompts_and_resources_are_aggregated_and_routed() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "bench": {"command": bench()},
        "every": {"command": everything()},
    }})))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let caps = &client.server().capabilities;
    assert!(
        caps.prompts.is_some() && caps.resources.is_some(),
        "{caps:?}"
    );

    let prompts: Vec<String> = client
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert!(
        prompts.contains(&"every_test_prompt_with_arguments".to_string()),
        "{prompts:?}"
    );
    let r = test_prompt(&client).await;
    assert_eq!(
        serde_json::to_value(&r.messages[0].content).unwrap()["text"],
        "Prompt with arguments: arg1='x', arg2='y'"
    );

    // URIs are served as the upstream wrote them, routed by the gateway's table and templates.
    let uris: Vec<String> = client
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert!(uris.contains(&"test://static-text".to_string()), "{uris:?}");
    let r = client.read_resource("test://static-text").await.unwrap();
    assert_eq!(r.contents.len(), 1);
    let templates = client.list_resource_templates(None).await.unwrap();
    assert_eq!(
        templates.resource_templates[0].uri_template,
        "test://template/{id}/data"
    );
    let r = client
        .read_resource("test://template/42/data")
        .await
        .unwrap();
    assert!(serde_json::to_string(&r).unwrap().contains("42"), "{r:?}");
    match client.read_resource("test://nowhere").await {
        Err(Error::Rpc(e)) => assert!(e.code == -32002 || e.code == -32602, "{e:?}"),
        other => panic!("{other:?}"),
    }
}

/// A tool that waits `delayMs`, then asks the client for its name and returns it.
fn ask_name() -> ToolRoute {
    ToolRoute::new(
        Tool::new(
            "ask",
            "asks the caller's name",
            json!({"type": "object", "properties": {"delayMs": {"type": "integer"}}})
                .as_object()
                .unwrap()
                .clone(),
        ),
        |args: Arguments, ctx: Context| async move {
            let v: serde_json::Value = args.parse().unwrap_or_default();
            tokio::time::sleep(Duration::from_millis(v["delayMs"].as_u64().unwrap_or(0))).await;
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
            let r = ctx
                .elicit(ElicitParams::form(
                    "who are you?",
                    schema.as_object().unwrap().clone(),
                ))
                .await
                .map_err(|e| ErrorObject::internal(e.to_string()))?;
            let name = r.content.unwrap_or_default()["name"].clone();
            Ok(CallToolResult::text(
                name.as_str().unwrap_or("?").to_string(),
            ))
        },
    )
}

/// A downstream client that answers every elicitation with `name`, after `delay`.
fn named(name: &'static str, delay: Duration, era: Era) -> mcp_runtime::client::ClientBuilder {
    Client::builder()
        .era(era)
        .elicitation(move |_p: ElicitParams| async move {
            tokio::time::sleep(delay).await;
            Ok::<_, ErrorObject>(ElicitResult {
                action: ElicitAction::Accept,
                content: json!({ "name": name }).as_object().cloned(),
                meta: None,
            })
        })
}

#[tokio::test]
async fn concurrent_calls_each_get_their_own_elicitation() {
    // `a` asks late, while `b`'s question (asked early, answered slowly) is still open: `b` is then
    // the newest call on the upstream, and `a`'s question must still reach `a`'s client. The upstream
    // is a Streamable HTTP server (handshake era: the question arrives on the answer stream of `a`'s
    // POST; 2026-07-28: it is an input request in `a`'s own `input_required` result).
    for upstream_era in [Eras::LegacyOnly, Eras::ModernOnly] {
        for downstream_era in [Era::Legacy, Era::Modern] {
            let upstream = Server::builder()
                .tool(ask_name())
                .eras(upstream_era)
                .build()
                .unwrap();
            let url = http_upstream(upstream).await;
            let gw = Gateway::start(config(json!({"mcpServers": {"up": {"url": url}}}))).await;
            let a = connect(&gw, named("ada", Duration::ZERO, downstream_era)).await;
            let b = connect(
                &gw,
                named("bob", Duration::from_millis(800), downstream_era),
            )
            .await;
            let first =
                tokio::spawn(async move { a.call_tool("ask", json!({"delayMs": 400})).await });
            tokio::time::sleep(Duration::from_millis(100)).await;
            let second = b.call_tool("ask", json!({"delayMs": 0})).await.unwrap();
            let first = first.await.unwrap().unwrap();
            let what = format!("{upstream_era:?} upstream, {downstream_era:?} downstream");
            assert_eq!(text(&first), "ada", "{what}");
            assert_eq!(text(&second), "bob", "{what}");
        }
    }
}

#[tokio::test]
async fn an_openapi_upstream_is_served_through_the_bridge() {
    let secret = "s3cret-weather-key";
    let (_api, addr) = serve_example("gateway_weather", &[("WEATHER_API_KEY", secret)]).await;
    let spec = example_file("gateway/weather.yaml");
    let gw = Gateway::start(config(json!({"mcpServers": {
        "weather": {"openapi": spec, "baseUrl": format!("http://{addr}"), "headers": {"X-Api-Key": secret}},
        "bench": {"command": bench()},
    }})))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let tools = client.list_all_tools().await.unwrap();
    let get = tools
        .iter()
        .find(|t| t.name == "weather_weather_get")
        .unwrap_or_else(|| panic!("{:?}", names(&tools)));
    // The secret header is no argument of the tool: the gateway adds it.
    assert_eq!(get.input_schema["required"], json!(["city"]), "{get:?}");
    assert!(!serde_json::to_string(get).unwrap().contains("X-Api-Key"));

    let mut seen = Vec::new();
    let r = client
        .call_tool("weather_weather_get", json!({"city": "Tokyo"}))
        .await
        .unwrap();
    seen.push(r.clone());
    assert_eq!(r.is_error, None, "{r:?}");
    assert_eq!(
        r.structured_content,
        Some(json!({"city": "Tokyo", "temp": 30.1, "unit": "C"}))
    );
    // An API error is a tool error that keeps the HTTP status; bad arguments never reach the API.
    let r = client
        .call_tool("weather_weather_get", json!({"city": "Atlantis"}))
        .await
        .unwrap();
    seen.push(r.clone());
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("404"), "{r:?}");
    let r = client
        .call_tool("weather_weather_get", json!({"town": "Tokyo"}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("city"), "{r:?}");
    seen.push(r);
    for r in &seen {
        assert!(!serde_json::to_string(r).unwrap().contains(secret), "{r:?}");
    }
    // The other upstream is unaffected.
    let r = client
        .call_tool("bench_echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "hi");
}

// 2026-07-28: a result's `_meta` names the server that answered it. Downstream that is the gateway, for
// a relayed tool result (JSON text), prompt and resource alike; the upstream's own entry stays upstream.
#[tokio::test]
async fn a_relayed_2026_result_names_the_gateway_as_its_server() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "bench": {"command": bench()},
        "every": {"command": everything()},
    }})))
    .await;
    let client = connect(&gw, Client::builder().era(Era::Modern)).await;
    let server_name = |meta: &Option<mcp_runtime::protocol::JsonObject>| {
        let meta = meta.as_ref().expect("a _meta");
        meta["io.modelcontextprotocol/serverInfo"]["name"].clone()
    };
    let r = client
        .call_tool("bench_echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "hi");
    assert_eq!(server_name(&r.meta), "mcp-gateway", "{r:?}");
    let r = test_prompt(&client).await;
    assert_eq!(server_name(&r.meta), "mcp-gateway", "{r:?}");
    let r = client.read_resource("test://static-text").await.unwrap();
    assert_eq!(server_name(&r.meta), "mcp-gateway", "{r:?}");
}
