use mcp_runtime::tool;

struct Jira;

impl Jira {
    /// Needs `#[tools]` on the impl block.
    #[tool]
    fn ping(&self) -> String {
        String::new()
    }
}

fn main() {}
