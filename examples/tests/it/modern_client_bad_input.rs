//! Our client against a 2026-07-28 server that misbehaves, scripted line by line: each case ends in a
//! clear error for that call, and the next call still works. Also what the client must get right on the
//! wire: `_meta` on every request, a new id and the echoed `requestState` on each retry, a version a
//! `-32022` lists, and the era found by probing (a handshake-era server is initialized instead).

use mcp_runtime::protocol::{ElicitAction, ElicitParams, ElicitResult, ProtocolVersion};
use mcp_runtime::{Client, ClientBuilder, Era, EraCache, Error};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

type Script = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

/// A server on an in-process pipe: every request it reads is recorded and answered by `script` (a result
/// or an `{"error": ...}`), `None` for silence.
fn serve(script: Script) -> (tokio::io::DuplexStream, Arc<Mutex<Vec<Value>>>) {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        let (r, mut w) = tokio::io::split(theirs);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: Value = serde_json::from_str(&line).unwrap();
            log.lock().unwrap().push(msg.clone());
            let Some(id) = msg.get("id").cloned() else {
                continue;
            };
            let Some(answer) = script(&msg) else { continue };
            let reply = match answer.get("error") {
                Some(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
                None => json!({"jsonrpc": "2.0", "id": id, "result": answer}),
            };
            let mut out = serde_json::to_vec(&reply).unwrap();
            out.push(b'\n');
            if w.write_all(&out).await.is_err() {
                break;
            }
        }
    });
    (ours, seen)
}

fn discover() -> Value {
    json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
           "ttlMs": 0, "cacheScope": "public",
           "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}}})
}

fn ok(text: &str) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})
}

fn elicit_request() -> Value {
    json!({"method": "elicitation/create", "params": {"message": "Sure?",
           "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}})
}

fn builder() -> ClientBuilder {
    Client::builder()
        .era_cache(EraCache::default())
        .timeout(Some(Duration::from_secs(10)))
        .max_input_rounds(3)
        .elicitation(|_p: ElicitParams| async {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(json!({"ok": true}).as_object().unwrap().clone()),
                meta: None,
            })
        })
}

async fn connect(script: Script) -> (Client, Arc<Mutex<Vec<Value>>>) {
    let (pipe, seen) = serve(script);
    let (r, w) = tokio::io::split(pipe);
    (builder().connect(r, w).await.expect("connect"), seen)
}

async fn echo(c: &Client) -> String {
    c.call_tool("echo", json!({})).await.unwrap().text_content()
}

fn tool(msg: &Value) -> &str {
    msg["params"]["name"].as_str().unwrap_or("")
}

/// The misbehaving server: each tool is one kind of bad input; `echo` always works.
fn misbehaving() -> Script {
    Arc::new(|msg: &Value| {
        let p = &msg["params"];
        Some(match msg["method"].as_str()? {
            "server/discover" => discover(),
            "tools/call" => match tool(msg) {
                "echo" => ok("echo"),
                "unknown_result_type" => json!({"resultType": "eventually", "content": []}),
                "not_a_string_result_type" => json!({"resultType": 7, "content": []}),
                "bad_input_request" => json!({"resultType": "input_required",
                    "inputRequests": {"x": {"method": "tools/call", "params": {}}}}),
                "empty_input_required" => json!({"resultType": "input_required"}),
                "keeps_asking" => json!({"resultType": "input_required",
                    "inputRequests": {"again": elicit_request()}, "requestState": "s"}),
                "needs_sampling" => json!({"resultType": "input_required",
                    "inputRequests": {"llm": {"method": "sampling/createMessage",
                        "params": {"messages": [], "maxTokens": 5}}}}),
                "twice" => match p["requestState"].as_str() {
                    None => json!({"resultType": "input_required",
                        "inputRequests": {"a": elicit_request()}, "requestState": "r1\u{1F600} {\"x\":1}"}),
                    Some("r1\u{1F600} {\"x\":1}") => json!({"resultType": "input_required",
                        "inputRequests": {"b": elicit_request()}, "requestState": "r2"}),
                    Some("r2") => ok(&format!(
                        "answers {:?}",
                        p["inputResponses"]
                            .as_object()
                            .map(|o| o.keys().collect::<Vec<_>>())
                    )),
                    Some(other) => ok(&format!("bad state {other}")),
                },
                "state_only" => match p["requestState"].as_str() {
                    None => json!({"resultType": "input_required", "requestState": "later"}),
                    Some(_) if p.get("inputResponses").is_some() => ok("unexpected inputResponses"),
                    Some(s) => ok(&format!("state {s}")),
                },
                _ => json!({"error": {"code": -32602, "message": "Unknown tool"}}),
            },
            "tools/list" => json!({"resultType": "input_required", "requestState": "x"}),
            other => {
                json!({"error": {"code": -32601, "message": format!("Method not found: {other}")}})
            }
        })
    })
}

#[tokio::test]
async fn bad_results_are_clear_errors_and_the_client_keeps_working() {
    let (c, seen) = connect(misbehaving()).await;
    assert!(c.is_modern());
    assert_eq!(c.server().server_info.name, "scripted");
    for (tool, wanted) in [
        ("unknown_result_type", "resultType \"eventually\""),
        ("not_a_string_result_type", "invalid resultType"),
        ("bad_input_request", "malformed"),
        (
            "empty_input_required",
            "neither inputRequests nor requestState",
        ),
        ("keeps_asking", "giving up after 3 rounds"),
    ] {
        let e = c.call_tool(tool, json!({})).await.unwrap_err();
        assert!(
            matches!(e, Error::Protocol(_)) && e.to_string().contains(wanted),
            "{tool}: {e}"
        );
        assert_eq!(echo(&c).await, "echo", "after {tool}");
    }
    // An input request for a capability this client did not declare fails the call, naming it.
    let e = c.call_tool("needs_sampling", json!({})).await.unwrap_err();
    assert!(
        matches!(&e, Error::InputRequest { key, method, .. } if key == "llm" && method == "sampling/createMessage"),
        "{e}"
    );
    // `input_required` where the spec does not allow it.
    let e = c.list_tools(None).await.unwrap_err();
    assert!(e.to_string().contains("tools/list"), "{e}");
    assert_eq!(echo(&c).await, "echo");

    // Two rounds: the state echoed byte for byte, only this round's answers, a new id each time.
    let before = seen.lock().unwrap().len();
    let r = c.call_tool("twice", json!({"k": 1})).await.unwrap();
    assert_eq!(r.text_content(), "answers Some([\"b\"])");
    let calls: Vec<Value> = seen.lock().unwrap()[before..].to_vec();
    assert_eq!(calls.len(), 3);
    let ids: Vec<&Value> = calls.iter().map(|m| &m["id"]).collect();
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2],
        "{ids:?}"
    );
    for m in &calls {
        assert_eq!(m["params"]["arguments"], json!({"k": 1}));
        assert_eq!(
            m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
    }
    assert!(calls[0]["params"].get("requestState").is_none());
    assert_eq!(calls[1]["params"]["requestState"], "r1\u{1F600} {\"x\":1}");
    assert_eq!(
        calls[1]["params"]["inputResponses"]["a"]["action"],
        "accept"
    );
    assert!(calls[2]["params"]["inputResponses"].get("a").is_none());
    // Without inputRequests the client retries at once, with the state and no inputResponses.
    assert_eq!(
        c.call_tool("state_only", json!({}))
            .await
            .unwrap()
            .text_content(),
        "state later"
    );
    // Another call carries nothing of those rounds.
    let before = seen.lock().unwrap().len();
    echo(&c).await;
    let last = seen.lock().unwrap()[before].clone();
    assert!(
        last["params"].get("requestState").is_none()
            && last["params"].get("inputResponses").is_none()
    );
    c.close().await;
}

#[tokio::test]
async fn an_unsupported_version_moves_to_one_the_server_lists() {
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let a = asked.clone();
    let script: Script = Arc::new(move |msg: &Value| {
        let v = msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
            .as_str()
            .unwrap_or("")
            .to_string();
        a.lock().unwrap().push(v.clone());
        Some(match msg["method"].as_str()? {
            // Modern, but refuses whatever the first request names (a server that moved on).
            _ if a.lock().unwrap().len() == 1 => json!({"error": {"code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2099-01-01", "2026-07-28", "2025-11-25"], "requested": v}}}),
            "server/discover" => discover(),
            "tools/call" if tool(msg) == "legacy_only" => json!({"error": {"code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2025-06-18"], "requested": v}}}),
            "tools/call" if tool(msg) == "no_list" => json!({"error": {"code": -32022,
                "message": "Unsupported protocol version"}}),
            "tools/call" => ok("fine"),
            _ => json!({"error": {"code": -32601, "message": "no"}}),
        })
    });
    let (c, _) = connect(script).await;
    assert!(c.is_modern());
    assert_eq!(c.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(
        asked.lock().unwrap().as_slice(),
        ["2026-07-28", "2026-07-28"]
    );
    let e = c.call_tool("legacy_only", json!({})).await.unwrap_err();
    assert!(e.to_string().contains("only handshake-era versions"), "{e}");
    let e = c.call_tool("no_list", json!({})).await.unwrap_err();
    assert!(
        e.to_string().contains("without a valid `supported` list"),
        "{e}"
    );
    assert_eq!(
        c.call_tool("x", json!({})).await.unwrap().text_content(),
        "fine"
    );
    c.close().await;
}

#[tokio::test]
async fn a_handshake_era_server_is_initialized_after_the_probe() {
    // Answers server/discover the way legacy servers do before `initialize` (an error that is not a
    // modern one), then speaks 2025-11-25.
    let script: Script = Arc::new(|msg: &Value| {
        Some(match msg["method"].as_str()? {
            "server/discover" => {
                json!({"error": {"code": -32600, "message": "Server not initialized"}})
            }
            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "old", "version": "1"}}),
            "tools/call" => {
                assert!(
                    msg["params"].get("_meta").is_none(),
                    "no 2026 _meta in the handshake era: {msg}"
                );
                ok("legacy")
            }
            _ => json!({"error": {"code": -32601, "message": "no"}}),
        })
    });
    let (c, seen) = connect(script).await;
    assert!(!c.is_modern());
    assert_eq!(c.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(
        c.call_tool("x", json!({})).await.unwrap().text_content(),
        "legacy"
    );
    let methods: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|m| m["method"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ]
    );
    c.close().await;

    // A silent server is taken for a legacy one after the probe timeout.
    let script: Script = Arc::new(|msg: &Value| match msg["method"].as_str()? {
        "server/discover" => None,
        "initialize" => Some(json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "serverInfo": {"name": "quiet", "version": "1"}})),
        _ => Some(json!({"error": {"code": -32601, "message": "no"}})),
    });
    let (pipe, _) = serve(script);
    let (r, w) = tokio::io::split(pipe);
    let started = std::time::Instant::now();
    let c = builder()
        .probe_timeout(Duration::from_millis(300))
        .connect(r, w)
        .await
        .unwrap();
    assert!(!c.is_modern());
    assert_eq!(c.protocol_version(), ProtocolVersion::V2025_06_18);
    assert!(started.elapsed() < Duration::from_secs(5));
    c.close().await;

    // Era::Modern does not fall back: a legacy server is an error.
    let script: Script = Arc::new(|_msg: &Value| {
        Some(json!({"error": {"code": -32601, "message": "Method not found"}}))
    });
    let (pipe, _) = serve(script);
    let (r, w) = tokio::io::split(pipe);
    let e = builder()
        .era(Era::Modern)
        .connect(r, w)
        .await
        .err()
        .unwrap();
    assert!(e.to_string().contains("Method not found"), "{e}");
}
