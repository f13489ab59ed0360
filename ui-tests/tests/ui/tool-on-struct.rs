use mcp_runtime::tool;

#[tool]
struct Search {
    query: String,
}

fn main() {}
