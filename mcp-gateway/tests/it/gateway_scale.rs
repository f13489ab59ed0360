//! Three gateway instances, each fronting its own stdio everything-server, behind nginx (round-robin,
//! no stickiness) with `--redis`: a downstream client keeps its session while its requests land on
//! every instance in turn. Real redis-server and nginx on loopback, in a temporary directory (the
//! examples' `scale_support`, shared).

use crate::common;
use crate::scale_support;

use scale_support::{Cluster, Launch};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::process::Command;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// `mcp-gateway --config <dir>/gateway-<port>.json --http 127.0.0.1:P --redis URL`, its one upstream a
/// stdio everything-server.
fn gateway() -> Launch {
    let everything = common::workspace_bin("everything-server");
    Box::new(move |port, redis, dir| {
        let config = dir.join(format!("gateway-{port}.json"));
        let body = json!({"mcpServers": {"everything": {"command": everything, "args": []}}});
        std::fs::write(&config, body.to_string()).expect("the gateway's config");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-gateway"));
        cmd.arg("--config")
            .arg(&config)
            .args(["--http", &format!("127.0.0.1:{port}")]);
        if let Some(url) = redis {
            cmd.args(["--redis", url]);
        }
        cmd.env("RUST_LOG", "warn");
        cmd
    })
}

/// POSTs one message; the status, the instance nginx picked, and the JSON-RPC answer (JSON, or the
/// last event of an SSE answer).
async fn post(
    url: &str,
    body: &str,
    session: Option<&str>,
) -> (u16, String, Option<String>, Value) {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(s) = session {
        req = req
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let r = req.send().await.expect("nginx answers");
    let status = r.status().as_u16();
    let header = |name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    // The instance that answered (nginx lists every one it tried).
    let upstream = header("x-upstream")
        .and_then(|u| u.rsplit(", ").next().map(str::to_string))
        .unwrap_or_default();
    let sid = header("mcp-session-id");
    let text = r.text().await.unwrap_or_default();
    let answer = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .rfind(|v| v.get("id").is_some())
            .unwrap_or(Value::Null)
    });
    (status, upstream, sid, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_downstream_session_follows_its_client_across_gateway_instances() {
    let Some(mut cluster) = Cluster::launching("gateway", 3, true, gateway()) else {
        return;
    };
    let url = cluster.url.clone();
    let (status, first, sid, v) = post(&url, INIT, None).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], "mcp-gateway", "{v}");
    let sid = sid.expect("a session id");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, ..) = post(&url, initialized, Some(&sid)).await;
    assert_eq!(status, 202);
    let mut seen = HashSet::from([first]);
    for i in 0..6 {
        let call = json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
            "params": {"name": "test_simple_text", "arguments": {}}});
        let (status, upstream, _, v) = post(&url, &call.to_string(), Some(&sid)).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(
            v["result"]["content"][0]["text"], "This is a simple text response for testing.",
            "{v}"
        );
        seen.insert(upstream);
    }
    assert_eq!(seen.len(), 3, "round-robin reached every gateway: {seen:?}");
    // The end of the session holds everywhere.
    let r = reqwest::Client::new()
        .delete(&url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    for i in 0..3 {
        let list = json!({"jsonrpc": "2.0", "id": 30 + i, "method": "tools/list"});
        let (status, upstream, _, v) = post(&url, &list.to_string(), Some(&sid)).await;
        assert_eq!(status, 404, "a deleted session on {upstream}: {v}");
    }
    assert!(cluster.all_alive());
}
