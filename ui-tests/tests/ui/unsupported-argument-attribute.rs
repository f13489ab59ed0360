use mcp_runtime::tool;

/// `#[arg]` is not an attribute `#[tool]` knows.
#[tool]
fn search(#[arg(default = 10)] limit: u32) -> String {
    limit.to_string()
}

fn main() {}
