use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::tool;

#[derive(JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct Filter {
    status: String,
}

/// The argument type lacks `Deserialize`.
#[tool]
fn search(filter: Filter) -> String {
    filter.status
}

fn main() {}
