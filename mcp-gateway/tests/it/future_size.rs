//! The state of one relayed call stays small. A future is moved by value at each layer of the hop
//! (the route's closure, the span around it, the box the pump keeps), so its size is paid in copies on
//! every call: at 14 KB, copying it was a third of the gateway's instructions per call
//! (`cargo bench -p mcp-gateway --bench gateway -- --instructions`). The rare paths (a session's first
//! connection, a task followed to its end, an input round, a header retry, relayed progress and logs)
//! are boxed, so their state rides only in the calls that take them. Sizes are layouts, the same in
//! debug and release builds.

use mcp_gateway::hop::Hop;
use mcp_runtime::client::Client;

/// The size of what `f` returns.
fn returned3<A, B, C, R>(_: impl Fn(A, B, C) -> R) -> usize {
    std::mem::size_of::<R>()
}

fn returned4<A, B, C, D, R>(_: impl Fn(A, B, C, D) -> R) -> usize {
    std::mem::size_of::<R>()
}

#[test]
fn a_relayed_call_carries_no_rare_path_state() {
    let hop = returned3(Hop::call);
    let client = returned4(Client::call_tool_raw);
    eprintln!("Hop::call: {hop} bytes; Client::call_tool_raw: {client} bytes");
    assert!(hop <= 6 * 1024, "Hop::call's future is {hop} bytes");
    assert!(
        client <= 4 * 1024,
        "Client::call_tool_raw's future is {client} bytes"
    );
}
