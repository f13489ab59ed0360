//! Cancellation on the wire: `notifications/cancelled` stops the handler at once and no response is
//! ever sent for the cancelled request; `initialize` can't be cancelled; ids in flight are unique.

use crate::common;
use common::{bench_server, Raw};
use serde_json::json;
use std::time::Duration;

#[test]
fn a_cancelled_request_is_stopped_and_never_answered() {
    let mut s = Raw::spawn(bench_server());
    s.initialize("2025-11-25");
    s.send(&json!({"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"sleep","arguments":{"ms":300}}}));
    std::thread::sleep(Duration::from_millis(50));
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user pressed stop"}}));
    assert!(
        s.stderr_has("sleep cancelled", Duration::from_secs(2)),
        "the handler saw its cancellation"
    );
    // The handler returns a result anyway; it must not be written. Wait past its original 300 ms.
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    let r = s.recv();
    assert_eq!(r["id"], json!(1), "only the ping is answered: {r}");
    assert!(
        s.recv_within(Duration::from_millis(600)).is_none(),
        "no response for the cancelled request"
    );
    s.still_serving(2);
}

#[test]
fn initialize_cannot_be_cancelled() {
    let mut s = Raw::spawn(bench_server());
    s.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}));
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}));
    let r = s.recv();
    assert_eq!(r["id"], json!(0));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn a_second_request_with_an_id_in_flight_is_rejected() {
    let mut s = Raw::spawn(bench_server());
    s.initialize("2025-11-25");
    s.send(&json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":200}}}));
    s.send(&json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1}}}));
    let first = s.recv();
    assert_eq!(first["error"]["code"], json!(-32600), "{first}");
    let second = s.recv();
    assert_eq!(second["result"]["content"][0]["text"], "slept 200 ms");
}

#[test]
fn println_in_a_tool_goes_to_stderr_not_the_protocol_stream() {
    let mut s = Raw::spawn(env!("CARGO_BIN_EXE_stdout-guard"));
    s.initialize("2025-11-25");
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shout","arguments":{"text":"hello"}}}));
    // Raw::recv panics on any non-JSON line, so this also proves stdout stayed clean.
    let r = s.recv();
    assert_eq!(r["result"]["content"][0]["text"], "HELLO");
    assert!(
        s.stderr_has("debug output: hello", Duration::from_secs(2)),
        "println! landed on stderr"
    );
}
