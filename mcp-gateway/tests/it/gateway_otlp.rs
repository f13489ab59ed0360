//! OTLP export (the `otel` feature): the gateway, run as its binary with `--otlp-endpoint`, exports each
//! relayed call's `hop` span to an OTLP/HTTP receiver this test starts on loopback, which decodes the
//! protobuf with the protocol's own types (`opentelemetry-proto`). The span joins the caller's trace
//! (same trace id, the caller's span as parent) and is the parent the upstream request carried; a
//! collector that never answers costs the calls nothing.

use crate::gateway_trace::rust_upstream;
use mcp_runtime::client::Client;
use mcp_runtime::TraceContext;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";

/// The spans an OTLP receiver got, with the `service.name` of their resource.
type Received = Arc<Mutex<Vec<(String, Span)>>>;

/// An OTLP/HTTP receiver on 127.0.0.1: `POST /v1/traces` with an `ExportTraceServiceRequest` in
/// protobuf. Its base URL and what it received.
async fn receiver() -> (String, Received) {
    let received = Received::default();
    let sink = received.clone();
    let export = move |body: axum::body::Bytes| {
        let sink = sink.clone();
        async move {
            let Ok(req) = ExportTraceServiceRequest::decode(body) else {
                return (axum::http::StatusCode::BAD_REQUEST, Vec::new());
            };
            for rs in req.resource_spans {
                let service = rs
                    .resource
                    .iter()
                    .flat_map(|r| &r.attributes)
                    .find(|a| a.key == "service.name")
                    .map(|a| string(a.value.as_ref().and_then(|v| v.value.as_ref())))
                    .unwrap_or_default();
                for ss in rs.scope_spans {
                    let mut sink = sink.lock().unwrap();
                    sink.extend(ss.spans.into_iter().map(|s| (service.clone(), s)));
                }
            }
            (
                axum::http::StatusCode::OK,
                ExportTraceServiceResponse::default().encode_to_vec(),
            )
        }
    };
    let app = axum::Router::new().route("/v1/traces", axum::routing::post(export));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), received)
}

fn string(v: Option<&AnyValue>) -> String {
    match v {
        Some(AnyValue::StringValue(s)) => s.clone(),
        other => format!("{other:?}"),
    }
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|a| a.key == key)
        .map(|a| string(a.value.as_ref().and_then(|v| v.value.as_ref())))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The gateway's binary over stdio in front of `upstream_url` (as upstream `rs`), exporting to `otlp`.
async fn gateway(
    upstream_url: &str,
    otlp: &str,
    env: &[(&str, &str)],
) -> (Client, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("gateway.json");
    let config = json!({
        "mcpServers": {"rs": {"url": upstream_url}},
        "gateway": {"prefixes": "always"}
    });
    std::fs::write(&cfg, config.to_string()).unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"));
    cmd.arg("--config")
        .arg(&cfg)
        .args(["--otlp-endpoint", otlp])
        .env("RUST_LOG", "warn")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    (Client::builder().spawn(cmd).await.unwrap(), dir)
}

/// What the upstream's `trace` tool said it received.
fn upstream_trace(r: &mcp_runtime::protocol::CallToolResult) -> Option<TraceContext> {
    let v: serde_json::Value = serde_json::from_str(&r.text_content()).unwrap();
    v["traceparent"]
        .as_str()
        .map(|s| TraceContext::parse(s, None).unwrap())
}

#[tokio::test]
async fn hop_spans_are_exported_joined_to_the_callers_trace() {
    let (otlp, received) = receiver().await;
    let upstream = rust_upstream().await;
    let (client, _dir) = gateway(&upstream, &otlp, &[("OTEL_BSP_SCHEDULE_DELAY", "100")]).await;
    let caller = TraceContext::parse(TP, Some("vendor=abc")).unwrap();
    let r = TraceContext::scope(Some(caller), client.call_tool("rs_trace", json!({})))
        .await
        .unwrap();
    let sent_upstream = upstream_trace(&r).expect("the upstream request carried a traceparent");
    // A call without a trace: the gateway starts one.
    let r = client.call_tool("rs_trace", json!({})).await.unwrap();
    let root_upstream = upstream_trace(&r).expect("the gateway starts a trace");
    assert_ne!(root_upstream.trace_id(), TRACE_ID);

    let t0 = Instant::now();
    let spans = loop {
        let spans = received.lock().unwrap().clone();
        if spans.len() >= 2 || t0.elapsed() > Duration::from_secs(30) {
            break spans;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(spans.len(), 2, "{spans:#?}");
    let (service, joined) = spans
        .iter()
        .find(|(_, s)| hex(&s.trace_id) == TRACE_ID)
        .unwrap_or_else(|| panic!("no span of the caller's trace: {spans:#?}"));
    assert_eq!(service, "mcp-gateway");
    assert_eq!(joined.name, "hop");
    assert_eq!(hex(&joined.parent_span_id), CALLER_SPAN);
    assert_eq!(joined.trace_state, "vendor=abc");
    // The exported span is the parent the upstream request carried.
    assert_eq!(sent_upstream.trace_id(), TRACE_ID);
    assert_eq!(hex(&joined.span_id), sent_upstream.parent_id());
    assert_eq!(
        attribute(joined, "mcp.gateway.upstream").as_deref(),
        Some("rs")
    );
    assert_eq!(
        attribute(joined, "gen_ai.tool.name").as_deref(),
        Some("trace")
    );
    assert_eq!(
        attribute(joined, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(
        attribute(joined, "mcp.gateway.outcome").as_deref(),
        Some("ok")
    );
    assert!(joined.end_time_unix_nano >= joined.start_time_unix_nano);

    let (_, root) = spans
        .iter()
        .find(|(_, s)| hex(&s.trace_id) == root_upstream.trace_id())
        .unwrap_or_else(|| panic!("no span of the gateway's own trace: {spans:#?}"));
    assert!(root.parent_span_id.is_empty(), "{root:?}");
    assert_eq!(hex(&root.span_id), root_upstream.parent_id());
}

#[tokio::test]
async fn a_collector_that_never_answers_costs_the_calls_nothing() {
    // It accepts connections (the kernel does) and never reads: every export waits for its timeout.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let otlp = format!("http://{}", silent.local_addr().unwrap());
    let upstream = rust_upstream().await;
    // A small queue, flushed often: most spans are dropped, none waits.
    let env = [
        ("OTEL_BSP_SCHEDULE_DELAY", "10"),
        ("OTEL_BSP_MAX_QUEUE_SIZE", "16"),
        ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "8"),
    ];
    let (client, _dir) = gateway(&upstream, &otlp, &env).await;
    let caller = TraceContext::parse(TP, None).unwrap();
    let t0 = Instant::now();
    for _ in 0..300 {
        let r = TraceContext::scope(
            Some(caller.clone()),
            client.call_tool("rs_trace", json!({})),
        )
        .await
        .unwrap();
        assert_eq!(upstream_trace(&r).unwrap().trace_id(), TRACE_ID);
    }
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "300 calls took {:?} with the collector silent",
        t0.elapsed()
    );
    client.close().await;
    drop(silent);
}
