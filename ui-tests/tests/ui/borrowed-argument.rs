use mcp_runtime::tool;

/// Arguments are owned.
#[tool]
fn echo(text: &str) -> String {
    text.to_string()
}

fn main() {}
