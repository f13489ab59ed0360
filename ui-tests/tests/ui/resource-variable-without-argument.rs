use mcp_runtime::resource;

/// An issue.
#[resource(uri = "jira://issue/{key}")]
fn issue() -> String {
    String::new()
}

fn main() {}
