use mcp_runtime::tool;

/// A scope token cannot hold a double quote (RFC 6749 section 3.3).
#[tool(scopes = ["files:read", "files\"write"])]
fn write() -> String {
    String::new()
}

fn main() {}
