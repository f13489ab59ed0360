use mcp_runtime::resource;

/// The projects.
#[resource(name = "projects")]
fn projects() -> String {
    String::new()
}

fn main() {}
