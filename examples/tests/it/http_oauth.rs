//! The OAuth 2.1 resource server against a real authorization server: the Python SDK's
//! `mcp.server.auth` (http_support/oauth_as.py), minting JWTs signed with a key it serves as a JWKS over
//! HTTP, rotating that key mid-test, and introspecting opaque tokens. Our OAuth client and the Python
//! SDK's complete the authorization flow against our server. Without the peers (scripts/install-peers.sh)
//! a test says so and passes, unless MCP_PEERS_REQUIRED=1.

use crate::http_support;

use http_support::auth_server::AuthServer;
use http_support::*;
use mcp_runtime::http::{
    HttpClientConfig, HttpConfig, IntrospectionVerifier, JwtVerifier, OAuthConfig, ResourceServer,
};
use mcp_runtime::{tool, Client, Context, Server};
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Markers of the calls the tools served: a refused request's marker must never appear here.
static SERVED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn served(marker: &str) -> bool {
    SERVED.lock().unwrap().iter().any(|m| m == marker)
}

/// Who is calling, as the handler sees it.
#[tool(scopes = "files:read")]
async fn whoami(ctx: Context, marker: Option<String>) -> String {
    SERVED.lock().unwrap().extend(marker);
    let a = ctx.auth().expect("an authenticated caller");
    json!({"sub": a.subject, "scopes": a.scopes, "client_id": a.client_id, "iss": a.claim::<String>("iss")})
        .to_string()
}

/// Writes nothing, but needs the write scope.
#[tool(scopes = ["files:write"])]
async fn write_file(marker: Option<String>) -> String {
    SERVED.lock().unwrap().extend(marker);
    "written".into()
}

fn server() -> Server {
    Server::builder()
        .name("oauth-test")
        .tool(whoami_tool())
        .tool(write_file_tool())
        .build()
        .unwrap()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A resource server on a free port whose tokens `verifier` checks.
async fn resource_server(
    issuer: &str,
    verifier: impl FnOnce(&str) -> ResourceServer,
) -> (Running, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let rs = verifier(&resource)
        .authorization_server(issuer)
        .scopes_supported(["files:read"]);
    let config = HttpConfig {
        auth: Some(rs),
        ..HttpConfig::default().stateless().json_responses()
    };
    (start_on(listener, server(), config), resource)
}

/// One stateless `tools/call` with `token`.
async fn call_with(url: &str, token: Option<&str>, tool: &str, marker: &str) -> reqwest::Response {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut h = vec![("mcp-protocol-version", "2025-11-25")];
    if let Some(a) = &auth {
        h.push(("authorization", a));
    }
    post(url, &call(7, tool, json!({"marker": marker})), None, &h).await
}

/// The status, the `WWW-Authenticate` challenge and the body of a refusal; nothing was served.
async fn refused(r: reqwest::Response, marker: &str) -> (u16, String, Value) {
    let status = r.status().as_u16();
    let challenge = r
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    assert!(
        body.get("result").is_none(),
        "a refusal serves nothing: {body}"
    );
    assert!(!served(marker), "the handler ran for a refused request");
    (status, challenge, body)
}

async fn text_of(r: reqwest::Response) -> Value {
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    let text = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"));
    serde_json::from_str(text).unwrap_or(Value::String(text.into()))
}

#[tokio::test]
async fn jwt_access_tokens_are_checked_against_the_issuers_jwks() {
    let Some(py) = python() else { return };
    let auth = AuthServer::start(&py);
    let (s, resource) = resource_server(&auth.issuer, |resource| {
        let v = JwtVerifier::new(&auth.issuer, resource).refetch_interval(Duration::ZERO);
        ResourceServer::new(resource, v)
    })
    .await;
    let url = s.url();
    let good = auth.mint(json!({"claims": {"aud": resource}})).await;

    // The metadata names the issuer and the scopes.
    let meta: Value = http()
        .get(format!(
            "http://{}/.well-known/oauth-protected-resource/mcp",
            s.addr
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(meta["resource"], resource);
    assert_eq!(meta["authorization_servers"][0], auth.issuer);
    assert_eq!(meta["scopes_supported"], json!(["files:read"]));

    // A good token: served, and the handler sees who called.
    let who = text_of(call_with(&url, Some(&good), "whoami", "ok-1").await).await;
    assert_eq!(who["sub"], "user-1");
    assert_eq!(who["client_id"], "test-client");
    assert_eq!(who["scopes"], json!(["files:read", "files:write"]));
    assert_eq!(who["iss"], auth.issuer);
    assert!(served("ok-1"));

    // No token: 401, the challenge names the metadata and asks for the supported scopes, no error code.
    let (status, challenge, _) =
        refused(call_with(&url, None, "whoami", "none").await, "none").await;
    assert_eq!(status, 401);
    let meta_url = format!("http://{}/.well-known/oauth-protected-resource/mcp", s.addr);
    assert!(
        challenge.contains(&format!("resource_metadata=\"{meta_url}\"")),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"files:read\""), "{challenge}");
    assert!(!challenge.contains("error="), "{challenge}");

    // Refused with 401 invalid_token: another resource's token, an expired one, one not valid yet,
    // a wrong signature, another issuer.
    let t = now();
    let cases = [
        (
            "other-resource",
            json!({"claims": {"aud": "http://127.0.0.1:1/mcp"}}),
            "another resource",
        ),
        (
            "expired",
            json!({"claims": {"aud": resource, "iat": t - 900, "exp": t - 300}}),
            "expired",
        ),
        (
            "not-yet",
            json!({"claims": {"aud": resource, "nbf": t + 600}}),
            "not valid yet",
        ),
        (
            "stray-key",
            json!({"claims": {"aud": resource}, "stray": true}),
            "signature",
        ),
        (
            "other-issuer",
            json!({"claims": {"aud": resource, "iss": "http://127.0.0.1:2"}}),
            "issuer",
        ),
    ];
    for (marker, mint, why) in cases {
        let token = auth.mint(mint).await;
        let (status, challenge, body) = refused(
            call_with(&url, Some(&token), "whoami", marker).await,
            marker,
        )
        .await;
        assert_eq!(status, 401, "{marker}");
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{marker}: {challenge}"
        );
        assert!(challenge.contains(&meta_url), "{marker}: {challenge}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(why),
            "{marker}: {body}"
        );
    }

    // A token without the tool's scope: 403 insufficient_scope naming the scope needed.
    let read_only = auth
        .mint(json!({"claims": {"aud": resource, "scope": "files:read"}}))
        .await;
    let (status, challenge, body) = refused(
        call_with(&url, Some(&read_only), "write_file", "no-scope").await,
        "no-scope",
    )
    .await;
    assert_eq!(status, 403);
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"files:write\""), "{challenge}");
    assert!(challenge.contains(&meta_url), "{challenge}");
    assert_eq!(body["id"], 7, "the refusal answers the call: {body}");
    assert_eq!(
        text_of(call_with(&url, Some(&read_only), "whoami", "ok-2").await).await["scopes"],
        json!(["files:read"])
    );

    // Key rotation: a token signed with the new key is accepted (the JWKS is fetched again), and the
    // old key, retired from the JWKS, no longer verifies.
    auth.rotate().await;
    let rotated = auth.mint(json!({"claims": {"aud": resource}})).await;
    assert_eq!(
        text_of(call_with(&url, Some(&rotated), "whoami", "ok-3").await).await["sub"],
        "user-1"
    );
    let (status, _, _) = refused(
        call_with(&url, Some(&good), "whoami", "old-key").await,
        "old-key",
    )
    .await;
    assert_eq!(status, 401, "a token of the retired key");
    s.stop().await;
}

#[tokio::test]
async fn opaque_tokens_are_introspected() {
    let Some(py) = python() else { return };
    let auth = AuthServer::start(&py);
    let endpoint = format!("{}introspect", auth.issuer);
    let (s, resource) = resource_server(&auth.issuer, |resource| {
        ResourceServer::new(resource, IntrospectionVerifier::new(&endpoint, resource))
    })
    .await;
    let url = s.url();
    let good = auth
        .mint(json!({"opaque": true, "claims": {"aud": resource, "sub": "user-2"}}))
        .await;
    assert_eq!(
        text_of(call_with(&url, Some(&good), "whoami", "i-ok").await).await["sub"],
        "user-2"
    );
    let other = auth
        .mint(json!({"opaque": true, "claims": {"aud": "http://127.0.0.1:1/mcp"}}))
        .await;
    let (status, challenge, _) = refused(
        call_with(&url, Some(&other), "whoami", "i-other").await,
        "i-other",
    )
    .await;
    assert_eq!(status, 401);
    assert!(challenge.contains("invalid_token"), "{challenge}");
    let (status, _, _) = refused(
        call_with(&url, Some("made-up"), "whoami", "i-unknown").await,
        "i-unknown",
    )
    .await;
    assert_eq!(status, 401, "an unknown token is not active");
    let read_only = auth
        .mint(json!({"opaque": true, "claims": {"aud": resource, "scope": "files:read"}}))
        .await;
    let (status, challenge, _) = refused(
        call_with(&url, Some(&read_only), "write_file", "i-scope").await,
        "i-scope",
    )
    .await;
    assert_eq!(status, 403);
    assert!(challenge.contains("scope=\"files:write\""), "{challenge}");
    s.stop().await;
}

#[tokio::test]
async fn our_oauth_client_completes_the_flow_and_steps_up() {
    let Some(py) = python() else { return };
    let auth = AuthServer::start(&py);
    let (s, _) = resource_server(&auth.issuer, |resource| {
        ResourceServer::new(resource, JwtVerifier::new(&auth.issuer, resource))
    })
    .await;
    let client = Client::builder()
        .connect_http(
            &s.url(),
            HttpClientConfig {
                oauth: Some(OAuthConfig::default()),
                ..HttpClientConfig::default()
            },
        )
        .await
        .expect("authorized and initialized");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 2);
    let r = client
        .call_tool("whoami", json!({"marker": "c-1"}))
        .await
        .unwrap();
    let who: Value = serde_json::from_str(r.content[0].as_text().unwrap()).unwrap();
    assert_eq!(who["sub"], "user-1");
    assert_eq!(
        who["scopes"],
        json!(["files:read"]),
        "the scopes the 401 asked for"
    );
    // write_file needs files:write: 403 insufficient_scope, the client steps up and retries.
    let r = client
        .call_tool("write_file", json!({"marker": "c-2"}))
        .await
        .expect("stepped up");
    assert_eq!(r.content[0].as_text(), Some("written"));
    assert!(served("c-2"));
    client.close().await;
    s.stop().await;
}

const PYTHON_OAUTH_CLIENT: &str = r#"
import asyncio, json, sys
from urllib.parse import parse_qs, urlparse
import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

class Memory:
    def __init__(self): self.tokens = None; self.client = None
    async def get_tokens(self): return self.tokens
    async def set_tokens(self, t): self.tokens = t
    async def get_client_info(self): return self.client
    async def set_client_info(self, c): self.client = c

redirect = {}

async def on_redirect(url):
    # The authorization server approves at once: take the code from its redirect.
    async with httpx2.AsyncClient(follow_redirects=False) as h:
        r = await h.get(url)
    q = parse_qs(urlparse(r.headers["location"]).query)
    redirect["code"], redirect["state"] = q["code"][0], q.get("state", [None])[0]

async def on_callback():
    return AuthorizationCodeResult(code=redirect["code"], state=redirect["state"])

async def main():
    url = sys.argv[1]
    provider = OAuthClientProvider(
        url,
        OAuthClientMetadata(client_name="python-sdk", redirect_uris=["http://localhost:3030/callback"],
                            grant_types=["authorization_code", "refresh_token"], response_types=["code"]),
        Memory(), on_redirect, on_callback)
    async with httpx2.AsyncClient(auth=provider, timeout=30) as h:
        async with Client(streamable_http_client(url, http_client=h)) as c:
            tools = await c.list_tools()
            who = await c.call_tool("whoami", {"marker": "py-1"})
    print(json.dumps({"tools": sorted(t.name for t in tools.tools), "who": json.loads(who.content[0].text)}))

asyncio.run(main())
"#;

#[tokio::test]
async fn the_python_sdk_client_completes_its_oauth_flow() {
    let Some(py) = python() else { return };
    let auth = AuthServer::start(&py);
    let (s, _) = resource_server(&auth.issuer, |resource| {
        ResourceServer::new(resource, JwtVerifier::new(&auth.issuer, resource))
    })
    .await;
    let url = s.url();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(&py)
            .args(["-c", PYTHON_OAUTH_CLIENT, &url])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(v["tools"], json!(["whoami", "write_file"]));
    assert_eq!(v["who"]["sub"], "user-1");
    assert_eq!(
        v["who"]["client_id"].as_str().map(|c| !c.is_empty()),
        Some(true)
    );
    assert!(served("py-1"));
    s.stop().await;
}

/// The deployment example of docs/deploy.md, as a process, with tokens from the authorization server.
#[tokio::test]
async fn the_deploy_example_serves_an_authorized_client() {
    let Some(py) = python() else { return };
    let auth = AuthServer::start(&py);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut child = Command::new(env!("CARGO_BIN_EXE_files-server"))
        .env("MCP_ADDR", format!("127.0.0.1:{port}"))
        .env("MCP_RESOURCE", &url)
        .env("MCP_ISSUER", &auth.issuer)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let client = Client::builder()
        .connect_http(
            &url,
            HttpClientConfig {
                oauth: Some(OAuthConfig::default()),
                ..HttpClientConfig::default()
            },
        )
        .await
        .expect("authorized and initialized");
    let r = client.call_tool("list_files", json!({})).await.unwrap();
    assert!(
        r.text_content().contains("/home/user-1/"),
        "{}",
        r.text_content()
    );
    let r = client
        .call_tool("delete_file", json!({"path": "/home/user-1/notes.txt"}))
        .await
        .expect("stepped up to files:write");
    assert!(
        r.text_content().contains("deleted for user-1"),
        "{}",
        r.text_content()
    );
    client.close().await;
    let _ = child.kill();
    let _ = child.wait();
}
