use mcp_runtime::{tool, tools};

struct Counter(u64);

#[tools]
impl Counter {
    /// Increments.
    #[tool]
    fn bump(&mut self) -> String {
        self.0 += 1;
        self.0.to_string()
    }
}

fn main() {}
