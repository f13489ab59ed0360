use mcp_runtime::{tool, Context};

/// The context has no name in the protocol.
#[tool]
async fn ping(#[tool(rename = "context")] ctx: Context) -> String {
    let _ = ctx;
    String::new()
}

fn main() {}
