use mcp_runtime::tool;

/// An optional argument with a default.
#[tool]
fn search(#[tool(default = Some(10))] limit: Option<u32>) -> String {
    format!("{limit:?}")
}

fn main() {}
