//! Shared by the HTTP tests: an in-process server with a few tools, and a raw HTTP driver that speaks
//! the wire (headers, status codes, SSE events) so that the tests check it exactly.

#![allow(dead_code)]

pub mod auth_server;

use mcp_runtime::http::sse::{SseEvent, SseParser};
use mcp_runtime::http::{serve_http_on, HttpConfig, StreamableHttpService};
use mcp_runtime::protocol::{CallToolResult, LoggingLevel, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Server};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::oneshot;

pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
pub const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn schema(v: Value) -> mcp_runtime::protocol::JsonObject {
    match v {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

/// `echo{text}`; `slow{ms, steps}` sends `steps` log messages `ms` apart, then answers "done".
pub fn test_server() -> Server {
    test_server_builder().build().expect("valid server")
}

/// [`test_server`], to extend before building.
pub fn test_server_builder() -> mcp_runtime::ServerBuilder {
    Server::builder()
        .name("http-test")
        .version("1")
        .tools(test_routes())
        .offer_tools()
}

/// The tools of [`test_server`], for servers that add their own.
pub fn test_routes() -> Vec<ToolRoute> {
    let echo = ToolRoute::new(
        Tool::new(
            "echo",
            "Echoes its text",
            schema(json!({"type": "object", "properties": {"text": {"type": "string"}}})),
        ),
        |args: Arguments, _: Context| async move {
            let v: Value = args.parse().unwrap_or(Value::Null);
            Ok(CallToolResult::text(
                v.get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ))
        },
    );
    let slow = ToolRoute::new(
        Tool::new(
            "slow",
            "Logs `steps` times, `ms` apart, then answers",
            schema(
                json!({"type": "object", "properties": {"ms": {"type": "integer"}, "steps": {"type": "integer"}}}),
            ),
        ),
        |args: Arguments, ctx: Context| async move {
            let v: Value = args.parse().unwrap_or(Value::Null);
            let ms = v.get("ms").and_then(Value::as_u64).unwrap_or(100);
            let steps = v.get("steps").and_then(Value::as_u64).unwrap_or(0);
            for i in 0..steps {
                ctx.log(LoggingLevel::Info, None, format!("step {i}")).await;
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            if steps == 0 {
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            Ok(CallToolResult::text("done"))
        },
    );
    vec![echo, slow]
}

/// A server on a free port; dropping the handle (or `stop`) shuts it down gracefully.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    pub done: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(d) = self.done.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), d).await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

pub async fn start(server: Server, config: HttpConfig) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    start_on(listener, server, config)
}

/// Like [`start`] on a listener bound already (when the config needs the address: a resource URI).
pub fn start_on(listener: tokio::net::TcpListener, server: Server, config: HttpConfig) -> Running {
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(serve_http_on(server, listener, config, async move {
        let _ = rx.await;
    }));
    Running {
        addr,
        stop: Some(tx),
        done: Some(done),
    }
}

/// The service itself behind axum (for tests that inspect sessions), on a free port.
pub async fn start_service(
    server: Server,
    config: HttpConfig,
) -> (StreamableHttpService, SocketAddr) {
    let svc = StreamableHttpService::new(server, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().unwrap();
    let app = svc.router();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (svc, addr)
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

/// A POST to the endpoint with the usual headers plus `extra`.
pub async fn post(
    url: &str,
    body: &str,
    session: Option<&str>,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let mut r = http()
        .post(url)
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(s) = session {
        r = r
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    for (k, v) in extra {
        r = r.header(*k, *v);
    }
    r.send().await.expect("the server answers")
}

/// A GET resuming session `sid`'s stream after event `last` (`Last-Event-ID`), whatever the answer.
pub async fn resume(url: &str, sid: &str, last: &str) -> reqwest::Response {
    http()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last)
        .send()
        .await
        .expect("the server answers")
}

/// [`resume`], answered 200.
pub async fn resume_after(url: &str, sid: &str, last: &str) -> reqwest::Response {
    let r = resume(url, sid, last).await;
    assert_eq!(r.status(), 200);
    r
}

/// Initializes a session; returns its id.
pub async fn init_session(url: &str) -> String {
    init_session_with(url, INIT).await
}

/// Initializes a session with this `initialize` request; returns its id.
pub async fn init_session_with(url: &str, init: &str) -> String {
    let r = post(url, init, None, &[]).await;
    assert_eq!(r.status(), 200);
    let id = r
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .unwrap()
        .to_string();
    let _ = r.bytes().await;
    let r = post(url, INITIALIZED, Some(&id), &[]).await;
    assert_eq!(r.status(), 202);
    id
}

pub fn call(id: u64, tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}}).to_string()
}

/// Reads SSE events (priming ones included, as `data == ""`) until `stop` says so or the stream ends.
pub async fn read_events(
    resp: &mut reqwest::Response,
    mut stop: impl FnMut(&[RawEvent]) -> bool,
) -> Vec<RawEvent> {
    let mut text = String::new();
    let mut events = Vec::new();
    while let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_secs(10), resp.chunk())
        .await
        .expect("an event within 10 s")
    {
        text.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            events.push(RawEvent::parse(&block));
        }
        if stop(&events) {
            break;
        }
    }
    events
}

/// One SSE block as sent (comments kept), for checks the parser would hide.
#[derive(Debug, Clone, Default)]
pub struct RawEvent {
    pub id: Option<String>,
    pub retry: Option<u64>,
    pub data: String,
    pub comment: bool,
}

impl RawEvent {
    fn parse(block: &str) -> RawEvent {
        let mut e = RawEvent::default();
        for line in block.lines() {
            if line.starts_with(':') {
                e.comment = true;
            } else if let Some(v) = line.strip_prefix("id: ") {
                e.id = Some(v.into());
            } else if let Some(v) = line.strip_prefix("retry: ") {
                e.retry = v.parse().ok();
            } else if let Some(v) = line.strip_prefix("data: ") {
                e.data.push_str(v);
            }
        }
        e
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
    pub fn is_response(&self) -> bool {
        self.json().get("result").is_some() || self.json().get("error").is_some()
    }
}

/// The parser the client uses, for tests that need it.
pub fn parse_sse(bytes: &[u8]) -> Vec<SseEvent> {
    SseParser::new().feed(bytes)
}

// ---- protocol 2026-07-28 ----

pub const V: &str = "2026-07-28";

/// The `_meta` of a 2026-07-28 request that declares no capabilities.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}
    })
}

/// A 2026 POST: the standard headers taken from the body, then `extra` (which may override them).
pub async fn post26(
    url: &str,
    method: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let mut params = params;
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    // Mcp-Name mirrors the field the method names (name, uri, or a task's taskId).
    let name = mcp_runtime::http::headers::name_param(method)
        .and_then(|field| params.get(field))
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut headers: Vec<(String, String)> = vec![
        ("mcp-protocol-version".into(), V.into()),
        ("mcp-method".into(), method.into()),
    ];
    if let Some(n) = name {
        headers.push(("mcp-name".into(), n));
    }
    for (k, v) in extra {
        headers.retain(|(hk, _)| !hk.eq_ignore_ascii_case(k));
        if !v.is_empty() {
            headers.push((k.to_string(), v.to_string()));
        }
    }
    let mut r = http()
        .post(url)
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .body(body);
    for (k, v) in &headers {
        r = r.header(k.as_str(), v.as_str());
    }
    r.send().await.expect("the server answers")
}

/// The JSON-RPC message of an answer, JSON or the last SSE event.
pub async fn json_of(r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let text = r.text().await.unwrap();
    if ct.starts_with("text/event-stream") {
        let last = parse_sse(text.as_bytes()).pop().expect("an event");
        return (status, serde_json::from_str(&last.data).unwrap());
    }
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[allow(unused_imports)] // not every test binary that includes this module uses it
pub use test_support::python;
