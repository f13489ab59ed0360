use mcp_runtime::tool;

/// A space is not allowed in a tool name.
#[tool(name = "search jira")]
fn search() -> String {
    String::new()
}

fn main() {}
