//! A stdio server with three tools, used by the benchmarks and the peer tests:
//! `echo {text}` returns the text; `add {a, b}` returns the sum; `sleep {ms}` waits, honouring cancellation.

use mcp_runtime::protocol::{CallToolResult, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Server};
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

fn schema(v: serde_json::Value) -> mcp_runtime::protocol::JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

#[derive(Deserialize)]
struct Echo {
    text: String,
}
#[derive(Deserialize)]
struct Add {
    a: f64,
    b: f64,
}
#[derive(Deserialize)]
struct Sleep {
    ms: u64,
}

fn tools() -> Vec<ToolRoute> {
    vec![
        ToolRoute::new(
            Tool::new(
                "echo",
                "Return the text unchanged.",
                schema(json!({"type":"object","properties":{"text":{"type":"string","description":"Text to echo"}},"required":["text"]})),
            ),
            |args: Arguments, _ctx: Context| async move {
                Ok(match args.parse::<Echo>() {
                    Ok(a) => CallToolResult::text(a.text),
                    Err(e) => CallToolResult::error(e.message()),
                })
            },
        ),
        ToolRoute::new(
            Tool::new(
                "add",
                "Add two numbers.",
                schema(json!({"type":"object","properties":{"a":{"type":"number","description":"First addend"},"b":{"type":"number","description":"Second addend"}},"required":["a","b"]})),
            ),
            |args: Arguments, _ctx: Context| async move {
                Ok(match args.parse::<Add>() {
                    Ok(a) => CallToolResult::text((a.a + a.b).to_string()),
                    Err(e) => CallToolResult::error(e.message()),
                })
            },
        ),
        ToolRoute::new(
            Tool::new(
                "sleep",
                "Wait for the given number of milliseconds; stops early when cancelled.",
                schema(json!({"type":"object","properties":{"ms":{"type":"integer","minimum":0,"description":"Milliseconds to wait"}},"required":["ms"]})),
            ),
            |args: Arguments, ctx: Context| async move {
                let a = match args.parse::<Sleep>() {
                    Ok(a) => a,
                    Err(e) => return Ok(CallToolResult::error(e.message())),
                };
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(a.ms)) => Ok(CallToolResult::text(format!("slept {} ms", a.ms))),
                    _ = ctx.cancelled() => {
                        eprintln!("sleep cancelled after a request to wait {} ms", a.ms);
                        Ok(CallToolResult::error("sleep cancelled"))
                    }
                }
            },
        ),
    ]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber_init();
    let server = Server::builder().name("bench-server").version(env!("CARGO_PKG_VERSION")).tools(tools()).build()?;
    server.serve_stdio().await?;
    Ok(())
}

fn tracing_subscriber_init() {
    // Logs go to stderr; stdout belongs to the protocol.
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).try_init();
}
