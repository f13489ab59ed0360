use mcp_runtime::{tool, tools};

struct Jira;

#[tools]
impl Clone for Jira {
    #[tool]
    fn clone(&self) -> Self {
        Jira
    }
}

fn main() {}
