use mcp_runtime::tool;

/// Lists regions.
#[tool(ttl_ms = 60000, cache_scope = "shared")]
fn regions() -> Vec<String> {
    Vec::new()
}

fn main() {}
