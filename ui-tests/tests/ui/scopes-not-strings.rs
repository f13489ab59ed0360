use mcp_runtime::tool;

/// Scopes are strings.
#[tool(scopes = [read, write])]
fn write() -> String {
    String::new()
}

/// And at least one.
#[tool(scopes = "")]
fn none() -> String {
    String::new()
}

fn main() {}
