//! The same `#[tool]` handler in both eras, over stdio: `delete_project` asks for a confirmation. A
//! handshake-era client gets a real `elicitation/create` request; a 2026-07-28 client gets
//! `input_required`, retries with the answer, and the handler runs again; the deletion happens once.

use crate::common;

use common::Raw;
use serde_json::json;

fn server() -> Raw {
    Raw::spawn(env!("CARGO_BIN_EXE_confirm-server"))
}

fn meta() -> serde_json::Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    })
}

#[test]
fn a_handshake_era_client_gets_a_real_request() {
    let mut s = server();
    s.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}));
    assert_eq!(s.recv()["result"]["protocolVersion"], "2025-11-25");
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_project","arguments":{"project":"PROJ"}}}));
    let ask = s.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["message"], "Delete project PROJ?");
    s.send(&json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"confirm":true}}}));
    let done = s.recv();
    assert_eq!(
        done["result"]["content"][0]["text"],
        "PROJ deleted (deletions so far: 1)"
    );
}

#[test]
fn a_2026_client_answers_on_a_retry_and_the_side_effect_runs_once() {
    let mut s = server();
    let call = |id: i64, extra: serde_json::Value| {
        let mut p = json!({"name":"delete_project","arguments":{"project":"PROJ"},"_meta":meta()});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":p})
    };
    s.send(&call(1, json!({})));
    let first = s.recv();
    let ir = &first["result"];
    assert_eq!(ir["resultType"], "input_required", "{first}");
    assert_eq!(
        ir["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let state = ir["requestState"].clone();
    // A declined confirmation keeps the project; nothing is deleted.
    s.send(&call(
        2,
        json!({"requestState": state, "inputResponses": {"confirm": {"action": "decline"}}}),
    ));
    assert_eq!(s.recv()["result"]["content"][0]["text"], "PROJ kept");
    s.send(&call(3, json!({"requestState": state, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}})));
    let done = s.recv();
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "PROJ deleted (deletions so far: 1)"
    );
}
