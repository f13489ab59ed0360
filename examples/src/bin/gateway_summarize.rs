//! Step 2 of the gateway's worked example (`../shared/seeds/004_*.txt`, section 4): an MCP server over
//! HTTP whose `summarize {text}` tool streams its summary sentence by sentence as progress messages.
//! The worked example reaches it over the legacy HTTP+SSE transport (`/sse`); `/mcp` serves Streamable
//! HTTP beside it. Listens on 127.0.0.1 at a free port and prints `listening on ADDR` first; stops when
//! its stdin closes.

use mcp_runtime::http::{serve_http_on, HttpConfig};
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::{tool, Context, Server};

/// Summarize a text in two sentences, streamed as they are written.
#[tool]
async fn summarize(
    /// The text to summarize
    text: String,
    ctx: Context,
) -> CallToolResult {
    let first_line = text.lines().next().unwrap_or("").trim();
    let sentences = [
        format!("Summary sentence 1: {first_line}"),
        format!(" Summary sentence 2: {} lines read.", text.lines().count()),
    ];
    for (i, s) in sentences.iter().enumerate() {
        ctx.progress((i + 1) as f64, None, Some(s.clone())).await;
    }
    CallToolResult::structured(serde_json::json!({ "summary": sentences.concat() }))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let server = Server::builder()
        .name("gateway-summarize")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(summarize_tool())
        .build()?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on {}", listener.local_addr()?);
    let stdin_closed = async {
        let mut sink = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut sink).await;
    };
    serve_http_on(server, listener, HttpConfig::default(), stdin_closed).await?;
    Ok(())
}
