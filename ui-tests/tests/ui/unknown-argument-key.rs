use mcp_runtime::tool;

/// Misspelled argument option.
#[tool]
fn search(#[tool(defualt = 10)] limit: u32) -> String {
    limit.to_string()
}

fn main() {}
