use mcp_runtime::tool;

struct Oops;

/// The error type has no `Display`.
#[tool]
fn fail() -> Result<String, Oops> {
    Err(Oops)
}

fn main() {}
