use mcp_runtime::prompt;

struct Language;

/// Review.
#[prompt]
fn review(language: Language) -> String {
    let _ = language;
    String::new()
}

fn main() {}
