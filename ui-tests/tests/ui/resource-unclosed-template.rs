use mcp_runtime::resource;

/// An issue.
#[resource(uri = "jira://issue/{key")]
fn issue(key: String) -> String {
    key
}

fn main() {}
