use mcp_runtime::tool;

/// Misspelled annotation.
#[tool(readonly)]
fn ping() -> String {
    String::new()
}

fn main() {}
