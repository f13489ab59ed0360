use mcp_runtime::tool;

/// A tuple pattern has no name.
#[tool]
fn add((a, b): (i64, i64)) -> String {
    (a + b).to_string()
}

fn main() {}
