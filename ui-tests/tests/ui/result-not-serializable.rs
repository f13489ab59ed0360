use mcp_runtime::tool;

struct Report {
    lines: usize,
}

/// The result is neither content nor `Serialize + JsonSchema`.
#[tool]
fn report() -> Report {
    Report { lines: 1 }
}

fn main() {}
