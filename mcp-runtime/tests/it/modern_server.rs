//! Protocol 2026-07-28 on the server, in process, at the wire: requests as JSON lines in, the lines out.
//! One connection serves both eras; a request's era comes from its own `_meta`.

use crate::wire;

use mcp_runtime::protocol::*;
use mcp_runtime::server::{
    Arguments, RequestStateKeys, ResourceRoute, ServerError, ToolRoute, UriVars,
};
use mcp_runtime::{Context, Server, ServerBuilder};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use wire::{code, meta, result, Wire};

fn obj(v: Value) -> JsonObject {
    v.as_object().unwrap().clone()
}

fn form(message: &str) -> ElicitParams {
    ElicitParams::form(
        message,
        obj(json!({"type": "object", "properties": {"name": {"type": "string"}}})),
    )
}

/// A server whose `greet` tool asks for a name; `runs` counts how often its handler started.
fn server(runs: Arc<AtomicUsize>) -> ServerBuilder {
    let greet = ToolRoute::new(
        Tool::new("greet", "Greets someone", obj(json!({"type": "object"}))),
        move |_: Arguments, ctx: Context| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                let r = match ctx.input("who").elicit(form("Your name?")).await {
                    Ok(r) => r,
                    Err(e) => return Ok(CallToolResult::error(e.to_string())),
                };
                let name = r.content.unwrap_or_default()["name"]
                    .as_str()
                    .unwrap_or("?")
                    .to_string();
                Ok(CallToolResult::text(format!("Hello, {name}")))
            }
        },
    );
    let plain = ToolRoute::new(
        Tool::new("plain", "Asks nothing", obj(json!({"type": "object"}))),
        |_: Arguments, _: Context| async { Ok(CallToolResult::text("plain")) },
    )
    .cache(CacheHints::new(60_000, CacheScope::Private));
    let logs = ToolRoute::new(
        Tool::new(
            "logs",
            "Logs at info and error",
            obj(json!({"type": "object"})),
        ),
        |_: Arguments, ctx: Context| async move {
            ctx.log(LoggingLevel::Info, None, "info line").await;
            ctx.log(LoggingLevel::Error, None, "error line").await;
            Ok(CallToolResult::text("logged"))
        },
    );
    let wait = ToolRoute::new(
        Tool::new(
            "wait",
            "Waits until cancelled",
            obj(json!({"type": "object"})),
        ),
        |_: Arguments, ctx: Context| async move {
            ctx.cancelled().await;
            Ok(CallToolResult::text("cancelled"))
        },
    );
    Server::builder()
        .name("modern-test")
        .version("9.9.9")
        .tool(greet)
        .tool(plain)
        .tool(logs)
        .tool(wait)
        .cache_hints(CacheHints::new(300_000, CacheScope::Public))
        .resource(
            ResourceRoute::new(
                Resource {
                    uri: "mem://doc".into(),
                    name: "doc".into(),
                    ..Default::default()
                },
                |uri: String, _: UriVars, _: Context| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, None, "text")],
                        cache: None,
                        meta: None,
                    })
                },
            )
            .cache(CacheHints::new(1_000, CacheScope::Public)),
        )
        .resource(ResourceRoute::new(
            Resource {
                uri: "mem://empty".into(),
                name: "empty".into(),
                ..Default::default()
            },
            |_: String, _: UriVars, _: Context| async move {
                Ok(ReadResourceResult {
                    contents: vec![],
                    cache: None,
                    meta: None,
                })
            },
        ))
}

fn keys(kid: &str, byte: u8) -> RequestStateKeys {
    RequestStateKeys::new(kid, vec![byte; 32]).unwrap()
}

#[tokio::test]
async fn discover_needs_no_session_and_names_both_eras() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    let r = w.modern("server/discover", json!({})).await;
    let d = result(&r);
    assert_eq!(d["resultType"], "complete");
    assert_eq!(d["supportedVersions"][0], "2026-07-28");
    assert!(d["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!("2024-11-05")));
    assert_eq!(d["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(
        d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "modern-test"
    );
    assert_eq!(
        (d["ttlMs"].as_u64(), d["cacheScope"].as_str()),
        (Some(300_000), Some("public"))
    );
}

#[tokio::test]
async fn one_connection_serves_both_eras() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    // A handshake-era request before initialize is refused, saying what either era needs.
    let r = w.call("tools/list", json!({})).await;
    assert_eq!(code(&r), -32602);
    // A 2026 request needs no initialize.
    let r = w.modern("tools/list", json!({})).await;
    assert_eq!(result(&r)["resultType"], "complete");
    let r = w
        .call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}),
        )
        .await;
    assert_eq!(
        result(&r)["protocolVersion"],
        "2025-11-25",
        "initialize never offers 2026"
    );
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let old = w.call("tools/list", json!({})).await;
    assert!(
        result(&old).get("resultType").is_none(),
        "handshake-era results stay as they were"
    );
    assert!(result(&old).get("ttlMs").is_none());
    let new = w.modern("tools/list", json!({})).await;
    assert_eq!(result(&new)["resultType"], "complete");
}

#[tokio::test]
async fn the_same_handler_asks_a_legacy_client_and_a_modern_one() {
    let runs = Arc::new(AtomicUsize::new(0));
    let s = server(runs.clone()).build().unwrap();

    // Handshake era: a real elicitation/create request, answered; the handler runs once.
    let mut w = Wire::connect(&s);
    w.call(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "old", "version": "1"}}),
    )
    .await;
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    w.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "greet"}}))
        .await;
    let ask = w.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    w.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Old"}}}))
        .await;
    let done = w.recv().await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Old");
    assert_eq!(runs.swap(0, Ordering::SeqCst), 1);

    // 2026-07-28: the call ends with input_required; the retry (a new id) re-runs the handler.
    let mut w = Wire::connect(&s);
    let caps = json!({"elicitation": {}});
    let r = w
        .modern_with("tools/call", json!({"name": "greet"}), caps.clone())
        .await;
    let ir = result(&r);
    assert_eq!(ir["resultType"], "input_required");
    assert_eq!(ir["inputRequests"]["who"]["method"], "elicitation/create");
    let state = ir["requestState"].as_str().unwrap().to_string();
    let r = w
        .modern_with(
            "tools/call",
            json!({"name": "greet", "requestState": state, "inputResponses": {"who": {"action": "accept", "content": {"name": "New"}}}}),
            caps,
        )
        .await;
    assert_eq!(result(&r)["content"][0]["text"], "Hello, New");
    assert_eq!(result(&r)["resultType"], "complete");
    assert_eq!(
        runs.load(Ordering::SeqCst),
        2,
        "the handler ran once per round"
    );
}

#[tokio::test]
async fn bad_request_states_are_refused_and_the_server_keeps_serving() {
    let s = server(Default::default())
        .request_state_keys(keys("k1", 1))
        .build()
        .unwrap();
    let caps = json!({"elicitation": {}});
    let mut w = Wire::connect(&s);
    let ir = w
        .modern_with("tools/call", json!({"name": "greet"}), caps.clone())
        .await;
    let state = ir["result"]["requestState"].as_str().unwrap().to_string();
    let answer = json!({"who": {"action": "accept", "content": {"name": "X"}}});

    // Tampered.
    let r = w
        .modern_with(
            "tools/call",
            json!({"name": "greet", "requestState": format!("{state}-TAMPERED"), "inputResponses": answer}),
            caps.clone(),
        )
        .await;
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("integrity"),
        "{r}"
    );
    w.still_serving().await;

    // For another request: same state, other arguments.
    let r = w
        .modern_with(
            "tools/call",
            json!({"name": "greet", "arguments": {"x": 1}, "requestState": state, "inputResponses": answer}),
            caps.clone(),
        )
        .await;
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another request"),
        "{r}"
    );

    // Foreign: sealed by a server with other keys.
    let other = server(Default::default())
        .request_state_keys(keys("k1", 2))
        .build()
        .unwrap();
    let mut w2 = Wire::connect(&other);
    let r = w2
        .modern_with(
            "tools/call",
            json!({"name": "greet", "requestState": state, "inputResponses": answer}),
            caps.clone(),
        )
        .await;
    assert_eq!(code(&r), -32602);
    w2.still_serving().await;

    // After a key rotation the old state still opens.
    let rotated = server(Default::default())
        .request_state_keys(keys("k2", 3).with_previous("k1", vec![1; 32]).unwrap())
        .build()
        .unwrap();
    let mut w3 = Wire::connect(&rotated);
    let r = w3
        .modern_with(
            "tools/call",
            json!({"name": "greet", "requestState": state, "inputResponses": answer}),
            caps.clone(),
        )
        .await;
    assert_eq!(result(&r)["content"][0]["text"], "Hello, X");

    // Malformed inputResponses.
    let r = w
        .modern_with(
            "tools/call",
            json!({"name": "greet", "inputResponses": null}),
            caps.clone(),
        )
        .await;
    assert_eq!(code(&r), -32602);
    let r = w
        .modern_with(
            "tools/call",
            json!({"name": "greet", "inputResponses": {"who": 5}}),
            caps.clone(),
        )
        .await;
    assert_eq!(code(&r), -32602);
    // An answer that is not what was asked.
    let r = w
        .modern_with(
            "tools/call",
            json!({"name": "greet", "inputResponses": {"who": {"action": "maybe"}}}),
            caps,
        )
        .await;
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("elicitation/create"),
        "{r}"
    );
    // An input response to nothing: a tool that asks nothing ignores it.
    let r = w
        .modern(
            "tools/call",
            json!({"name": "plain", "inputResponses": {"stray": {"action": "accept"}}}),
        )
        .await;
    assert_eq!(result(&r)["content"][0]["text"], "plain");
    w.still_serving().await;
}

#[tokio::test]
async fn a_request_state_expires_and_belongs_to_its_principal() {
    let s = server(Default::default())
        .request_state_ttl(Duration::from_millis(100))
        .build()
        .unwrap();
    let caps = json!({"elicitation": {}});
    let answer = json!({"who": {"action": "accept", "content": {"name": "A"}}});
    let mut alice = Wire::connect_as(&s, Some("alice"));
    let ir = alice
        .modern_with("tools/call", json!({"name": "greet"}), caps.clone())
        .await;
    let state = ir["result"]["requestState"].as_str().unwrap().to_string();
    let mut mallory = Wire::connect_as(&s, Some("mallory"));
    let r = mallory
        .modern_with(
            "tools/call",
            json!({"name": "greet", "requestState": state, "inputResponses": answer}),
            caps.clone(),
        )
        .await;
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("principal"),
        "{r}"
    );
    let r = alice
        .modern_with(
            "tools/call",
            json!({"name": "greet", "requestState": state, "inputResponses": answer}),
            caps.clone(),
        )
        .await;
    assert_eq!(result(&r)["content"][0]["text"], "Hello, A");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let r = alice
        .modern_with(
            "tools/call",
            json!({"name": "greet", "requestState": state, "inputResponses": answer}),
            caps,
        )
        .await;
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("expired"),
        "{r}"
    );
    alice.still_serving().await;
}

#[tokio::test]
async fn a_missing_capability_is_32021_naming_it() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    let r = w.modern("tools/call", json!({"name": "greet"})).await;
    assert_eq!(code(&r), -32021);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
    w.still_serving().await;
}

#[tokio::test]
async fn malformed_meta_and_versions_are_answered_as_the_spec_says() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    let r = w
        .call(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(code(&r), -32602, "no protocolVersion");
    let r = w
        .call(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        )
        .await;
    assert_eq!(code(&r), -32602, "no clientCapabilities");
    let r = w
        .call(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(code(&r), -32022);
    assert_eq!(r["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(r["error"]["data"]["supported"][0], "2026-07-28");
    let r = w
        .call(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(code(&r), -32022, "a handshake-era version needs initialize");
    let mut p = json!({});
    p["_meta"] = meta(json!({}));
    p["_meta"]["io.modelcontextprotocol/logLevel"] = json!("verbose");
    let r = w.call("tools/list", p).await;
    assert_eq!(code(&r), -32602, "an unknown log level");
    for removed in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "initialize",
        "tasks/list",
        "no/such",
    ] {
        let r = w
            .modern(removed, json!({"uri": "mem://doc", "level": "info"}))
            .await;
        assert_eq!(code(&r), -32601, "{removed}");
    }
    w.still_serving().await;
}

#[tokio::test]
async fn log_messages_only_at_the_level_the_request_asked_for() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    let seen = |level: Option<&str>| {
        let mut p = json!({"name": "logs"});
        p["_meta"] = meta(json!({}));
        if let Some(l) = level {
            p["_meta"]["io.modelcontextprotocol/logLevel"] = json!(l);
        }
        p
    };
    for (level, expected) in [
        (None, vec![]),
        (Some("info"), vec!["info", "error"]),
        (Some("error"), vec!["error"]),
    ] {
        w.next_id += 1;
        let id = w.next_id;
        w.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": seen(level)}))
            .await;
        let mut levels = Vec::new();
        loop {
            let m = w.recv().await;
            if m["method"] == "notifications/message" {
                levels.push(m["params"]["level"].as_str().unwrap().to_string());
            } else {
                assert_eq!(m["id"], json!(id));
                break;
            }
        }
        assert_eq!(levels, expected, "logLevel {level:?}");
    }
}

#[tokio::test]
async fn caching_hints_come_from_the_server_and_its_routes() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    let r = w.modern("tools/list", json!({})).await;
    // `plain` says 60 s private; the others take the server's 300 s public.
    assert_eq!(
        (
            result(&r)["ttlMs"].as_u64(),
            result(&r)["cacheScope"].as_str()
        ),
        (Some(60_000), Some("private"))
    );
    let r = w
        .modern("resources/read", json!({"uri": "mem://doc"}))
        .await;
    assert_eq!(
        (
            result(&r)["ttlMs"].as_u64(),
            result(&r)["cacheScope"].as_str()
        ),
        (Some(1_000), Some("public"))
    );
    let r = w.modern("resources/list", json!({})).await;
    assert!(result(&r)["ttlMs"].is_u64());
    // Not found is -32602 in 2026 (with the URI), and so is an empty read.
    let r = w
        .modern("resources/read", json!({"uri": "mem://nope"}))
        .await;
    assert_eq!(code(&r), -32602);
    assert_eq!(r["error"]["data"]["uri"], "mem://nope");
    let r = w
        .modern("resources/read", json!({"uri": "mem://empty"}))
        .await;
    assert_eq!(code(&r), -32602);
    // ...and stays -32002 in the handshake era.
    w.call(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}),
    )
    .await;
    let r = w.call("resources/read", json!({"uri": "mem://nope"})).await;
    assert_eq!(code(&r), -32002);
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_filtered_tagged_and_closed() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    let mut p = json!({"notifications": {"toolsListChanged": true}});
    p["_meta"] = meta(json!({}));
    w.send(json!({"jsonrpc": "2.0", "id": "L1", "method": "subscriptions/listen", "params": p}))
        .await;
    let ack = w.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "L1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    let mut p =
        json!({"notifications": {"promptsListChanged": true, "resourcesListChanged": true}});
    p["_meta"] = meta(json!({}));
    w.send(json!({"jsonrpc": "2.0", "id": "L2", "method": "subscriptions/listen", "params": p}))
        .await;
    let ack2 = w.recv().await;
    assert_eq!(
        ack2["params"]["notifications"],
        json!({"resourcesListChanged": true}),
        "the server offers no prompts, so it does not grant them"
    );
    while s.subscription_count() < 2 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    s.notify_tools_list_changed();
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "L1"
    );
    w.silent(100).await;
    // The client cancels L1: no response for it.
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "L1"}})).await;
    w.silent(100).await;
    // The server ends L2 gracefully: a complete result tagged with its id.
    s.close_subscriptions();
    let end = w.recv().await;
    assert_eq!(end["id"], "L2");
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(
        end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "L2"
    );
    assert_eq!(s.subscription_count(), 0);
}

#[tokio::test]
async fn a_cancelled_modern_request_is_never_answered() {
    let s = server(Default::default()).build().unwrap();
    let mut w = Wire::connect(&s);
    let mut p = json!({"name": "wait"});
    p["_meta"] = meta(json!({}));
    w.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": p}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    w.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    )
    .await;
    w.silent(200).await;
    w.still_serving().await;
}

#[test]
fn an_invalid_x_mcp_header_annotation_is_refused_when_the_server_is_built() {
    let bad = ToolRoute::new(
        Tool::new(
            "bad",
            "A number cannot be a header",
            obj(
                json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
            ),
        ),
        |_: Arguments, _: Context| async { Ok(CallToolResult::text("")) },
    );
    match Server::builder().tool(bad).build() {
        Err(ServerError::InvalidTool(e)) => assert!(e.contains("x-mcp-header"), "{e}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("accepted"),
    }
}
