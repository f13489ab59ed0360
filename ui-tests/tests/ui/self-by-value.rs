use mcp_runtime::{tool, tools};

struct Jira;

#[tools]
impl Jira {
    /// Consumes the value.
    #[tool]
    fn close(self) -> String {
        String::new()
    }
}

fn main() {}
