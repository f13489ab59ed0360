use mcp_runtime::tool;

/// Echo anything.
#[tool]
fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
