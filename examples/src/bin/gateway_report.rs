//! Step 4 of the gateway's worked example (`../shared/seeds/004_*.txt`, section 4): an MCP server whose
//! `compose_report {summary, weather}` tool writes a report, streaming its parts, and answers the
//! report's URL. It serves Streamable HTTP on `/mcp` (legacy SSE on `/sse`) and, on `/ndjson`, the NDJSON
//! streaming dialect of the seed (section 2.3): each POST is one JSON-RPC message, answered with
//! `application/x-ndjson` lines, the pieces as `event/delta` notifications (`{"id", "delta"}`) and then
//! the response. That side is stateless, so clients speak 2026-07-28 to it (`server/discover`, no
//! `initialize`). Listens on 127.0.0.1 at a free port and prints `listening on ADDR` first; stops when
//! its stdin closes.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use axum::routing::post;
use mcp_runtime::connection::OutKind;
use mcp_runtime::framing::{self, Incoming};
use mcp_runtime::http::{HttpConfig, StreamableHttpService};
use mcp_runtime::protocol::{methods, CallToolResult, ProgressParams, RequestId};
use mcp_runtime::{tool, ConnectionConfig, Context, Peer, Server};

/// Compose a report from a summary and the weather, streaming its parts; returns the report's URL.
#[tool]
async fn compose_report(
    /// The summary to report on
    summary: String,
    /// The weather, as the weather service gave it
    weather: serde_json::Value,
    ctx: Context,
) -> CallToolResult {
    let parts = [
        "Report title".to_string(),
        format!(" Report body: {summary} Weather: {weather}"),
    ];
    for (i, p) in parts.iter().enumerate() {
        ctx.progress((i + 1) as f64, None, Some(p.clone())).await;
    }
    let digest: u32 = parts.concat().bytes().fold(2166136261u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16777619)
    });
    CallToolResult::structured(serde_json::json!({
        "doc_url": format!("https://files.local/report-{digest:08x}"),
    }))
}

/// One POST of the NDJSON dialect: the message is served on a connection of its own; the frames it
/// produces are streamed back as lines, progress as `event/delta`, until the response.
async fn ndjson(State(server): State<Server>, body: Bytes) -> Response {
    let id = match framing::decode(&body) {
        Incoming::Request { id, .. } => Some(id),
        _ => None,
    };
    let (peer, rx) = Peer::new(ConnectionConfig::default());
    let handler = server.session_handler(peer.clone());
    tokio::spawn(async move { peer.dispatch_line(&body, &handler).await });
    let Some(id) = id else {
        // A notification: nothing to answer.
        return Response::builder()
            .status(202)
            .body(Body::empty())
            .unwrap_or_default();
    };
    let stream = futures_util::stream::unfold((rx, false), move |(mut rx, done)| {
        let id = id.clone();
        async move {
            if done {
                return None;
            }
            let out = rx.recv().await?;
            let last = matches!(out.kind, OutKind::Response(_));
            let line = as_delta(&out.frame, &id).unwrap_or_else(|| out.frame.clone());
            Some((Ok::<_, std::io::Error>(Bytes::from(line)), (rx, last)))
        }
    });
    Response::builder()
        .header(CONTENT_TYPE, "application/x-ndjson")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

/// A `notifications/progress` frame as the dialect's `event/delta` for request `id`.
fn as_delta(frame: &[u8], id: &RequestId) -> Option<Vec<u8>> {
    let Incoming::Notification { method, params } = framing::decode(frame) else {
        return None;
    };
    if method != methods::PROGRESS {
        return None;
    }
    let p: ProgressParams = framing::parse_params(params).ok()?;
    let mut line = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "method": "event/delta",
        "params": {"id": id, "delta": p.message.unwrap_or_default()},
    }))
    .ok()?;
    line.push(b'\n');
    Some(line)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let server = Server::builder()
        .name("gateway-report")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(compose_report_tool())
        .build()?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on {}", listener.local_addr()?);
    let app = StreamableHttpService::new(server.clone(), HttpConfig::default())
        .router()
        .merge(
            axum::Router::new()
                .route("/ndjson", post(ndjson))
                .with_state(server),
        );
    let stdin_closed = async {
        let mut sink = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut sink).await;
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(stdin_closed)
        .await?;
    Ok(())
}
