//! Trace context (SEP-414) across the gateway's hop: a W3C `traceparent` in the downstream request's `_meta`
//! (or in its HTTP headers) reaches the upstream in `_meta` with the same trace id and the hop's span as
//! parent, `tracestate` as it came; the `hop` span records the trace. The upstreams show what they got: a
//! Python SDK server that echoes its request's `_meta`, and a runtime server over Streamable HTTP whose
//! tool answers with its `Context::trace_context()`.

use crate::common::{config, connect};
use mcp_gateway::Gateway;
use mcp_runtime::client::{Client, Era};
use mcp_runtime::connection::RequestOptions;
use mcp_runtime::http::HttpClientConfig;
use mcp_runtime::protocol::{CallToolResult, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Server, TraceContext};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";

/// A runtime server whose tool `trace` answers with the trace context its request carried.
pub(crate) async fn rust_upstream() -> String {
    let route = ToolRoute::new(
        Tool::new(
            "trace",
            "The trace context of this request.",
            json!({"type": "object"}).as_object().unwrap().clone(),
        ),
        |_: Arguments, ctx: Context| async move {
            let t = ctx.trace_context();
            Ok(CallToolResult::text(
                json!({
                    "traceparent": t.map(|t| t.traceparent()),
                    "tracestate": t.and_then(|t| t.tracestate()),
                })
                .to_string(),
            ))
        },
    );
    let server = Server::builder().tool(route).build().unwrap();
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

/// The gateway in front of the Python echo server (over stdio, when the Python SDK is installed) and the
/// runtime server (over HTTP).
async fn gateway() -> (Gateway, bool) {
    let mut servers = json!({"rs": {"url": rust_upstream().await}});
    let python = test_support::python().or_else(|| {
        test_support::missing::<()>("the Python SDK", "scripts/install-peers.sh");
        None
    });
    if let Some(py) = &python {
        let script = test_support::workspace().join("scripts/python_server_echo_meta.py");
        servers["py"] = json!({"command": py, "args": [script]});
    }
    let gw = Gateway::start(config(
        json!({"mcpServers": servers, "gateway": {"prefixes": "always"}}),
    ))
    .await;
    (gw, python.is_some())
}

/// What an upstream said it received: `traceparent` and `tracestate` (absent: null).
fn received(r: &CallToolResult) -> (Option<TraceContext>, Value) {
    let v: Value = serde_json::from_str(&r.text_content()).unwrap();
    let tp = v["traceparent"].as_str().map(|s| {
        TraceContext::parse(s, None)
            .unwrap_or_else(|| panic!("an invalid traceparent upstream: {s}"))
    });
    (tp, v["tracestate"].clone())
}

/// The upstream's trace continues the caller's: the same trace id and flags, a new parent (the hop's span).
fn continues(got: &Option<TraceContext>, r: &CallToolResult) -> String {
    let got = got
        .as_ref()
        .unwrap_or_else(|| panic!("no traceparent upstream: {r:?}"));
    assert_eq!(got.trace_id(), TRACE_ID);
    assert!(got.sampled());
    assert_ne!(got.parent_id(), CALLER_SPAN);
    got.parent_id()
}

fn tools(python: bool) -> Vec<&'static str> {
    if python {
        vec!["rs_trace", "py_echo_meta"]
    } else {
        vec!["rs_trace"]
    }
}

/// A log writer the test reads.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The `hop` spans' log lines of this test process (the process's subscriber: a callsite's interest is
/// global, and other tests' threads reach the same callsites).
fn hop_logs() -> Captured {
    static LOGS: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Captured::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_env_filter("mcp_gateway::hop=debug")
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("no other subscriber");
        logs
    })
    .clone()
}

#[tokio::test]
async fn a_traceparent_in_meta_continues_across_the_hop_in_both_eras() {
    let logs = hop_logs();
    let (gw, python) = gateway().await;
    let caller = TraceContext::parse(TP, Some("vendor=abc,other=1")).unwrap();
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(&gw, Client::builder().era(era)).await;
        for tool in tools(python) {
            // The client sends the trace current where it is called (here a scope; in a handler, its span).
            let r = TraceContext::scope(Some(caller.clone()), client.call_tool(tool, json!({})))
                .await
                .unwrap();
            let (got, state) = received(&r);
            let hop_span = continues(&got, &r);
            assert_eq!(state, "vendor=abc,other=1", "{era:?} {tool}");
            // The hop's span recorded the trace, its own span id (the upstream's parent) and the caller's.
            let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
            assert!(
                text.contains(&format!("trace_id={TRACE_ID}"))
                    && text.contains(&format!("span_id={hop_span}"))
                    && text.contains(&format!("parent_id={CALLER_SPAN}")),
                "{text}"
            );
            // Without a trace, none is invented.
            let r = client.call_tool(tool, json!({})).await.unwrap();
            assert_eq!(received(&r), (None, Value::Null), "{era:?} {tool}");
        }
    }
}

#[tokio::test]
async fn an_invalid_traceparent_is_ignored_not_refused() {
    let (gw, python) = gateway().await;
    let client = connect(&gw, Client::builder().era(Era::Legacy)).await;
    for tool in tools(python) {
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "not a traceparent",
        ] {
            let params = serde_json::value::to_raw_value(&json!({
                "name": tool, "arguments": {}, "_meta": {"traceparent": bad, "tracestate": "a=1"},
            }))
            .unwrap();
            let raw = client
                .peer()
                .request("tools/call", Some(&params), RequestOptions::default())
                .await
                .unwrap_or_else(|e| panic!("{bad}: {e}"));
            let r: CallToolResult = serde_json::from_str(raw.get()).unwrap();
            assert_eq!(received(&r), (None, Value::Null), "{tool} {bad}");
        }
    }
}

#[tokio::test]
async fn traceparent_headers_on_the_http_front_continue_across_the_hop() {
    let (gw, python) = gateway().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mcp_runtime::http::serve_http_on(
        gw.server().clone(),
        listener,
        mcp_runtime::http::HttpConfig::default(),
        std::future::pending(),
    ));
    let url = format!("http://{addr}/mcp");
    for era in [Era::Legacy, Era::Modern] {
        // Every POST carries the headers; no `_meta` trace (the client is in no trace scope).
        let headers = HttpClientConfig {
            headers: vec![
                ("traceparent".into(), TP.into()),
                ("tracestate".into(), "vendor=http".into()),
            ],
            ..HttpClientConfig::default()
        };
        let client = Client::builder()
            .era(era)
            .connect_http(&url, headers)
            .await
            .unwrap();
        for tool in tools(python) {
            let r = client.call_tool(tool, json!({})).await.unwrap();
            let (got, state) = received(&r);
            continues(&got, &r);
            assert_eq!(state, "vendor=http", "{era:?} {tool}");
        }
        // `_meta` wins over the headers.
        let own = TraceContext::parse(
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
            None,
        )
        .unwrap();
        let r = TraceContext::scope(Some(own), client.call_tool("rs_trace", json!({})))
            .await
            .unwrap();
        let got = received(&r).0.unwrap();
        assert_eq!(got.trace_id(), "0af7651916cd43dd8448eb211c80319c");
        assert!(!got.sampled());
    }
}

#[tokio::test]
async fn the_gateway_binary_over_stdio_continues_the_trace() {
    use std::io::Write;
    let mut servers = json!({"rs": {"url": rust_upstream().await}});
    let python = test_support::python();
    if let Some(py) = &python {
        let script = test_support::workspace().join("scripts/python_server_echo_meta.py");
        servers["py"] = json!({"command": py, "args": [script]});
    }
    let mut cfg = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    cfg.write_all(
        json!({"mcpServers": servers, "gateway": {"prefixes": "always"}})
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"));
    cmd.arg("--config").arg(cfg.path()).arg("--no-watch");
    let client = Client::builder().era(Era::Legacy).spawn(cmd).await.unwrap();
    let caller = TraceContext::parse(TP, Some("vendor=stdio")).unwrap();
    for tool in tools(python.is_some()) {
        let r = TraceContext::scope(Some(caller.clone()), client.call_tool(tool, json!({})))
            .await
            .unwrap();
        let (got, state) = received(&r);
        continues(&got, &r);
        assert_eq!(state, "vendor=stdio", "{tool}");
    }
    client.close().await;
}
