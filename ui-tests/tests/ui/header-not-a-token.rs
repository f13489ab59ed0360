use mcp_runtime::tool;

/// Runs a query in a region.
#[tool]
fn run_query(
    /// Where
    #[tool(header = "Region Name")]
    region: String,
) -> String {
    region
}

fn main() {}
