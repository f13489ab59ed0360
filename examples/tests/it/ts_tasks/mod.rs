//! The TypeScript SDK's task client (scripts/ts_tasks_client.mjs) against everything-server: how to
//! run it, and what it must report, whatever the transport.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// `node scripts/ts_tasks_client.mjs <sdk> <mode> <target>` with the SDK from the installed peers.
pub fn client(peers: &Path, mode: &str, target: &str) -> Command {
    let mut c = Command::new("node");
    c.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/ts_tasks_client.mjs"
    ))
    .arg(peers.join("node/node_modules/@modelcontextprotocol/sdk"))
    .args([mode, target]);
    c
}

/// What `scripts/ts_tasks_client.mjs` must report against everything-server, over any transport.
pub fn check(out: &str) {
    let lines: Vec<Value> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(
        lines[0]["capabilities"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let confirm = lines[1]["confirm"].as_array().unwrap();
    let task = confirm[0]["created"].as_str().expect("a task was created");
    assert_eq!(
        confirm.last().unwrap(),
        &json!({"result": "Deleted notes.txt", "relatedTask": task}),
        "{out}"
    );
    assert!(
        confirm.iter().any(|m| m["status"] == "input_required"),
        "{out}"
    );
    assert_eq!(
        lines[1]["asked"],
        json!([{"message": "Delete notes.txt?", "relatedTask": task}])
    );
    let compute = lines[2]["compute"].as_array().unwrap();
    assert_eq!(
        compute.last().unwrap()["result"],
        "Computed ts in 0.3s",
        "{out}"
    );
    assert_eq!(
        lines[3],
        json!({"cancelled": "cancelled", "after": "cancelled", "listed": 3})
    );
}
