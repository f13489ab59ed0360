use mcp_runtime::tool;

/// `é` is not allowed in a tool name.
#[tool]
fn café() -> String {
    String::new()
}

fn main() {}
