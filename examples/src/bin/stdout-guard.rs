//! stdout belongs to the protocol: a tool that `println!`s does not corrupt the stream, because the
//! runtime keeps the real stdout for itself and points file descriptor 1 at stderr.

use mcp_runtime::protocol::{CallToolResult, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Server};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let schema = serde_json::json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]});
    let shout = ToolRoute::new(
        Tool::new(
            "shout",
            "Upper-case the text (and print a debug line the careless way).",
            schema.as_object().cloned().unwrap_or_default(),
        ),
        |args: Arguments, _ctx: Context| async move {
            #[derive(serde::Deserialize)]
            struct A {
                text: String,
            }
            Ok(match args.parse::<A>() {
                Ok(a) => {
                    println!("debug output: {}", a.text);
                    CallToolResult::text(a.text.to_uppercase())
                }
                Err(e) => CallToolResult::error(e.message()),
            })
        },
    );
    Server::builder()
        .name("stdout-guard")
        .tool(shout)
        .build()?
        .serve_stdio()
        .await?;
    Ok(())
}
