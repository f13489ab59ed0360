use mcp_runtime::tool;

/// Unsafe.
#[tool]
unsafe fn poke(addr: u64) -> String {
    addr.to_string()
}

fn main() {}
