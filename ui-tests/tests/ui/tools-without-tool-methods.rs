use mcp_runtime::tools;

struct Jira;

#[tools]
impl Jira {
    fn helper(&self) {}
}

fn main() {}
