use mcp_runtime::{tool, Context};

/// The context cannot have a default.
#[tool]
async fn search(query: String, #[tool(default)] ctx: Context) -> String {
    let _ = ctx;
    query
}

fn main() {}
