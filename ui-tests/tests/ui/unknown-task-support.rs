use mcp_runtime::tool;

/// A typo in the task option.
#[tool(task = "always")]
async fn build() -> String {
    String::new()
}

fn main() {}
