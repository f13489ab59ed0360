use mcp_runtime::tool;

/// Over 128 characters.
#[tool(name = "a_very_long_tool_name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on")]
fn long() -> String {
    String::new()
}

fn main() {}
