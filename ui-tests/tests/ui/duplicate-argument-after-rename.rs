use mcp_runtime::tool;

/// Two arguments end up with one name.
#[tool]
fn search(query: String, #[tool(rename = "query")] text: String) -> String {
    query + &text
}

fn main() {}
