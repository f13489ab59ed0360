use mcp_runtime::tool;

/// Read-only tools have no destructive hint.
#[tool(read_only, destructive)]
fn list() -> String {
    String::new()
}

fn main() {}
