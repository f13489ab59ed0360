use mcp_runtime::tool;

/// `impl Trait` has no schema.
#[tool]
fn echo(text: impl ToString) -> String {
    text.to_string()
}

fn main() {}
