use mcp_runtime::{tool, tools};

struct Jira;

#[tools]
impl Jira {
    /// Search.
    #[tool]
    fn search(&self) -> String {
        String::new()
    }

    /// Also called search.
    #[tool(name = "search")]
    fn search_again(&self) -> String {
        String::new()
    }
}

fn main() {}
