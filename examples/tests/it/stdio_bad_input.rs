//! The catalogue of bad input over stdio: each case is answered as the spec says (or not at all, for
//! notifications) and followed by a request that still succeeds.

use crate::common;
use common::{bench_server, Raw};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const QUIET: Duration = Duration::from_millis(300);

fn ready() -> Raw {
    let mut s = Raw::spawn(bench_server());
    let init = s.initialize("2025-11-25");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    s
}

fn error_of(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error, got {v}"))
}

#[test]
fn non_json_line_is_a_parse_error() {
    let mut s = ready();
    s.send_bytes(b"this is not json\n");
    let r = s.recv();
    assert_eq!(error_of(&r), -32700);
    assert!(r.get("id").is_none(), "an unreadable id is omitted: {r}");
    s.still_serving(1);
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let mut s = ready();
    s.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"x\":\"\xff\xfe\"}\n");
    assert_eq!(error_of(&s.recv()), -32700);
    s.still_serving(1);
}

#[test]
fn json_scalar_is_an_invalid_request() {
    let mut s = ready();
    s.send_bytes(b"42\n");
    assert_eq!(error_of(&s.recv()), -32600);
    s.send_bytes(b"\"hello\"\n");
    assert_eq!(error_of(&s.recv()), -32600);
    s.still_serving(1);
}

#[test]
fn batch_outside_2025_03_26_is_rejected() {
    let mut s = ready();
    s.send(&json!([{"jsonrpc":"2.0","id":5,"method":"ping"}]));
    let r = s.recv();
    assert_eq!(error_of(&r), -32600, "{r}");
    s.still_serving(1);
}

#[test]
fn batch_in_2025_03_26_gets_an_array() {
    let mut s = Raw::spawn(bench_server());
    assert_eq!(
        s.initialize("2025-03-26")["result"]["protocolVersion"],
        "2025-03-26"
    );
    s.send(&json!([
        {"jsonrpc":"2.0","id":5,"method":"ping"},
        {"jsonrpc":"2.0","method":"notifications/whatever"},
        {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
    ]));
    let r = s.recv();
    let arr = r
        .as_array()
        .unwrap_or_else(|| panic!("expected an array, got {r}"));
    assert_eq!(arr.len(), 2);
    let mut ids: Vec<i64> = arr.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, vec![5, 6]);
    s.still_serving(1);
}

#[test]
fn missing_or_wrong_jsonrpc_is_an_invalid_request() {
    let mut s = ready();
    s.send(&json!({"id":7,"method":"ping"}));
    let r = s.recv();
    assert_eq!(error_of(&r), -32600);
    assert_eq!(r["id"], json!(7), "a readable id is echoed: {r}");
    s.send(&json!({"jsonrpc":"1.0","id":8,"method":"ping"}));
    assert_eq!(error_of(&s.recv()), -32600);
    s.still_serving(1);
}

#[test]
fn null_and_fractional_ids_are_invalid() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":null,"method":"ping"}));
    let r = s.recv();
    assert_eq!(error_of(&r), -32600);
    assert!(r.get("id").is_none(), "{r}");
    s.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n");
    assert_eq!(error_of(&s.recv()), -32600);
    s.still_serving(1);
}

#[test]
fn ids_are_echoed_with_their_exact_type() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":"1","method":"ping"}));
    assert_eq!(s.recv()["id"], json!("1"));
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    assert_eq!(s.recv()["id"], json!(1));
}

#[test]
fn non_string_method_is_invalid() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":42}));
    assert_eq!(error_of(&s.recv()), -32600);
    s.still_serving(1);
}

#[test]
fn unknown_method_is_method_not_found() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/frobnicate"}));
    let r = s.recv();
    assert_eq!(error_of(&r), -32601);
    assert_eq!(r["id"], json!(3));
    s.send(&json!({"jsonrpc":"2.0","id":4,"method":"server/discover","params":{}}));
    assert_eq!(
        error_of(&s.recv()),
        -32602,
        "server/discover without its _meta is invalid params"
    );
    s.still_serving(1);
}

#[test]
fn params_of_the_wrong_type_are_invalid_params_naming_the_field() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":5}}));
    let r = s.recv();
    assert_eq!(error_of(&r), -32602, "{r}");
    assert_eq!(r["error"]["data"]["field"], json!("cursor"), "{r}");
    s.send(&json!({"jsonrpc":"2.0","id":4,"method":"tools/list","params":"nope"}));
    assert_eq!(error_of(&s.recv()), -32600);
    s.still_serving(1);
}

#[test]
fn params_by_position_are_invalid_params() {
    // JSON-RPC allows params as an array; MCP's are always an object, so a struct is never read from one
    // field by field.
    let mut s = Raw::spawn(bench_server());
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize",
        "params":["2025-11-25",{},{"name":"by-position","version":"1"}]}));
    let r = s.recv();
    assert_eq!(error_of(&r), -32602, "{r}");
    assert_eq!(
        r["error"]["message"], "Invalid params: params must be an object",
        "{r}"
    );
    // The refused initialize left the session as it was: a proper one still succeeds.
    assert_eq!(
        s.initialize("2025-11-25")["result"]["protocolVersion"],
        "2025-11-25"
    );
    for (id, method, params) in [
        (3, "tools/call", json!(["echo", {"text": "hi"}])),
        (4, "tools/list", json!([])),
    ] {
        s.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let r = s.recv();
        assert_eq!(r["id"], id, "{r}");
        assert_eq!(error_of(&r), -32602, "{method}: {r}");
    }
    s.still_serving(1);
}

#[test]
fn tools_call_without_a_name_is_invalid_params() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}));
    let r = s.recv();
    assert_eq!(error_of(&r), -32602);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("name"),
        "{r}"
    );
    s.still_serving(1);
}

#[test]
fn unknown_tool_is_invalid_params() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}));
    let r = s.recv();
    assert_eq!(error_of(&r), -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("nope"));
    s.still_serving(1);
}

#[test]
fn arguments_of_the_wrong_type_are_a_tool_error_naming_the_argument() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":1}}}));
    let r = s.recv();
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`a`"), "{text}");
    s.send(&json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}));
    let r = s.recv();
    assert_eq!(r["result"]["isError"], json!(true));
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("`b`"),
        "{r}"
    );
    s.still_serving(1);
}

#[test]
fn requests_before_initialize_are_rejected_but_ping_is_answered() {
    let mut s = Raw::spawn(bench_server());
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    let r = s.recv();
    // Either a 2026-07-28 request without its _meta or a handshake-era request sent too early: the
    // error says both.
    assert_eq!(error_of(&r), -32602);
    let msg = r["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("initialize") && msg.contains("protocolVersion"),
        "{msg}"
    );
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"ping"}));
    assert_eq!(s.recv()["result"], json!({}));
    s.initialize("2025-06-18");
    s.still_serving(3);
}

#[test]
fn a_second_initialize_is_rejected() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":9,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}));
    assert_eq!(error_of(&s.recv()), -32600);
    s.still_serving(1);
}

#[test]
fn unknown_version_gets_a_counter_offer() {
    let mut s = Raw::spawn(bench_server());
    assert_eq!(
        s.initialize("2099-01-01")["result"]["protocolVersion"],
        "2025-11-25"
    );
    let mut s = Raw::spawn(bench_server());
    assert_eq!(
        s.initialize("2024-11-05")["result"]["protocolVersion"],
        "2024-11-05"
    );
}

#[test]
fn notifications_get_no_answer() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/unheard_of","params":{"x":1}}));
    s.send(
        &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}),
    );
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"nonsense":true}}));
    assert!(s.silent_for(QUIET), "notifications must not be answered");
    s.still_serving(1);
}

#[test]
fn a_response_to_nothing_is_ignored() {
    let mut s = ready();
    s.send(&json!({"jsonrpc":"2.0","id":777,"result":{}}));
    s.send(&json!({"jsonrpc":"2.0","id":778,"error":{"code":-1,"message":"x"}}));
    s.send(&json!({"jsonrpc":"2.0","error":{"code":-1,"message":"x"}}));
    assert!(s.silent_for(QUIET));
    s.still_serving(1);
}

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

#[test]
fn deeply_nested_json_is_answered_without_a_crash() {
    let mut s = ready();
    let deep = nested(100_000);
    // As a whole message.
    s.send_bytes(format!("{deep}\n").as_bytes());
    assert!(matches!(error_of(&s.recv()), -32700 | -32600));
    // In params a method ignores: skipped without recursion, so served.
    s.send_bytes(
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{{\"x\":{deep}}}}}\n"
        )
        .as_bytes(),
    );
    let r = s.recv();
    assert_eq!(r["id"], json!(3), "{r}");
    // In tool arguments that are decoded: a tool error, not a crash.
    s.send_bytes(format!("{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":{deep}}}}}}}\n").as_bytes());
    let r = s.recv();
    assert_eq!(r["id"], json!(4), "{r}");
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    s.still_serving(1);
}

#[test]
fn a_20_mib_line_is_served() {
    let mut s = ready();
    let text = "x".repeat(20 * 1024 * 1024);
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":text}}}));
    let r = s.recv_within(Duration::from_secs(60)).expect("answer");
    assert_eq!(r["id"], json!(3));
    assert_eq!(
        r["result"]["content"][0]["text"].as_str().map(str::len),
        Some(text.len())
    );
    s.still_serving(1);
}

#[test]
fn a_half_written_line_at_eof_is_still_read() {
    let mut s = ready();
    s.send_bytes(br#"{"jsonrpc":"2.0","id":41,"method":"ping"}"#);
    drop(s.stdin.take());
    let r = s.recv();
    assert_eq!(r["id"], json!(41));
}

#[test]
fn eof_on_stdin_makes_the_server_exit() {
    let mut s = ready();
    s.still_serving(1);
    drop(s.stdin.take());
    let start = Instant::now();
    loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "server did not exit after EOF"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
