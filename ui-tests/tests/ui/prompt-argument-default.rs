use mcp_runtime::prompt;

/// Review.
#[prompt]
fn review(#[prompt(default = "rust")] language: String) -> String {
    language
}

fn main() {}
