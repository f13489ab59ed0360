use mcp_runtime::tool;

/// Search issues.
///
/// # Arguments
/// * `query` - What to look for
/// * `limit` - No such argument
#[tool]
fn search(query: String) -> String {
    query
}

fn main() {}
