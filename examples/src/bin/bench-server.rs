//! A server with three tools, used by the benchmarks and the peer tests:
//! `echo {text}` returns the text; `add {a, b}` returns the sum; `sleep {ms}` waits, honouring cancellation.
//!
//! Serves stdio; `--http` serves Streamable HTTP (JSON answers) on 127.0.0.1 at a free port instead, and
//! prints `listening on ADDR` on stdout first.

use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::{tool, Context, Server};
use std::time::Duration;

/// Return the text unchanged.
#[tool]
fn echo(
    /// Text to echo
    text: String,
) -> String {
    text
}

/// Add two numbers.
#[tool]
fn add(
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
) -> String {
    (a + b).to_string()
}

/// Wait for the given number of milliseconds; stops early when cancelled.
#[tool]
async fn sleep(
    /// Milliseconds to wait
    ms: u64,
    ctx: Context,
) -> CallToolResult {
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(ms)) => CallToolResult::text(format!("slept {ms} ms")),
        _ = ctx.cancelled() => {
            eprintln!("sleep cancelled after a request to wait {ms} ms");
            CallToolResult::error("sleep cancelled")
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    // Logs go to stderr; stdout belongs to the protocol.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let server = Server::builder()
        .name("bench-server")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(echo_tool())
        .tool(add_tool())
        .tool(sleep_tool())
        .build()?;
    if std::env::args().any(|a| a == "--http") {
        use mcp_runtime::http::{serve_http_on, HttpConfig};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening on {}", listener.local_addr()?);
        let stdin_closed = async {
            // The parent closes our stdin to stop us.
            let mut sink = Vec::new();
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut sink).await;
        };
        serve_http_on(
            server,
            listener,
            HttpConfig::default().json_responses(),
            stdin_closed,
        )
        .await?;
        return Ok(());
    }
    server.serve_stdio().await?;
    Ok(())
}
