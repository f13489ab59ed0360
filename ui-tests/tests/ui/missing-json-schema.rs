use mcp_runtime::tool;
use serde::Deserialize;

#[derive(Deserialize)]
struct Filter {
    status: String,
}

/// The argument type lacks `JsonSchema`.
#[tool]
fn search(filter: Filter) -> String {
    filter.status
}

fn main() {}
