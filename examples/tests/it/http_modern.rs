//! Streamable HTTP for protocol 2026-07-28, at the wire: every POST stands alone, its headers mirror
//! its body and must agree with it, errors carry the spec's HTTP statuses, GET and DELETE are 405 for a
//! 2026 client, and the same endpoint keeps serving handshake-era sessions beside it.

use crate::http_support;

use http_support::*;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::protocol::{CallToolResult, JsonObject, Tool};
use mcp_runtime::server::{Arguments, Eras, ToolRoute};
use mcp_runtime::{Context, Server};
use serde_json::{json, Value};
use std::time::Duration;

fn obj(v: Value) -> JsonObject {
    v.as_object().unwrap().clone()
}

/// The test server plus `route{region, priority?}` whose arguments are mirrored into headers.
fn server(eras: Eras) -> Server {
    let route = ToolRoute::new(
        Tool::new(
            "route",
            "Routes by region",
            obj(json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"}
            }, "required": ["region"]})),
        ),
        |args: Arguments, _: Context| async move { Ok(CallToolResult::text(args.as_str().to_string())) },
    );
    test_server_builder()
        .eras(eras)
        .tool(route)
        .build()
        .unwrap()
}

async fn still_serving(url: &str) {
    let (status, v) = json_of(post26(url, "tools/list", json!({}), &[]).await).await;
    assert_eq!(status, 200, "{v}");
    assert!(v["result"]["tools"].is_array(), "{v}");
}

#[tokio::test]
async fn a_2026_request_needs_no_session_and_gets_json() {
    let s = start(server(Eras::Both), HttpConfig::default()).await;
    let r = post26(
        &s.url(),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
        &[
            ("mcp-session-id", "no-such-session"),
            ("last-event-id", "3-1"),
        ],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers().get("mcp-session-id").is_none(),
        "no session is minted"
    );
    assert_eq!(r.headers()["content-type"], "application/json");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "hi");
    assert_eq!(v["result"]["resultType"], "complete");
}

#[tokio::test]
async fn headers_that_disagree_with_the_body_are_400_header_mismatch() {
    let s = start(server(Eras::Both), HttpConfig::default()).await;
    let url = s.url();
    let echo = json!({"name": "echo", "arguments": {"text": "x"}});
    for (why, extra) in [
        (
            "version differs",
            vec![("mcp-protocol-version", "2025-11-25")],
        ),
        ("no version header", vec![("mcp-protocol-version", "")]),
        ("no Mcp-Method", vec![("mcp-method", "")]),
        ("Mcp-Method differs", vec![("mcp-method", "tools/list")]),
        ("method case differs", vec![("mcp-method", "TOOLS/CALL")]),
        ("no Mcp-Name", vec![("mcp-name", "")]),
        ("Mcp-Name differs", vec![("mcp-name", "slow")]),
        ("bad base64", vec![("mcp-name", "=?base64?!!!?=")]),
    ] {
        let (status, v) = json_of(post26(&url, "tools/call", echo.clone(), &extra).await).await;
        assert_eq!(
            (status, v["error"]["code"].as_i64()),
            (400, Some(-32020)),
            "{why}: {v}"
        );
        assert_eq!(v["id"], 1, "{why}: the error names the request");
        still_serving(&url).await;
    }
    // Header names are case-insensitive, values may be base64-encoded, whitespace around is trimmed.
    let (status, v) = json_of(
        post26(
            &url,
            "tools/call",
            echo.clone(),
            &[
                ("MCP-NAME", "=?base64?ZWNobw==?="),
                ("Mcp-Method", " tools/call "),
            ],
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{v}");
}

#[tokio::test]
async fn x_mcp_header_arguments_are_checked_against_their_headers() {
    let s = start(server(Eras::Both), HttpConfig::default()).await;
    let url = s.url();
    let call = |args: Value| json!({"name": "route", "arguments": args});
    let ok = |status: u16, v: &Value| {
        assert_eq!(
            (status, v["result"]["resultType"].as_str()),
            (200, Some("complete")),
            "{v}"
        )
    };
    let (st, v) = json_of(
        post26(
            &url,
            "tools/call",
            call(json!({"region": "eu"})),
            &[("mcp-param-region", "eu")],
        )
        .await,
    )
    .await;
    ok(st, &v);
    let (st, v) = json_of(
        post26(
            &url,
            "tools/call",
            call(json!({"region": "Zürich", "priority": 42})),
            &[
                ("mcp-param-region", "=?base64?WsO8cmljaA==?="),
                ("mcp-param-priority", "42.0"),
            ],
        )
        .await,
    )
    .await;
    ok(st, &v);
    for (why, args, extra) in [
        ("header missing", json!({"region": "eu"}), vec![]),
        (
            "header differs",
            json!({"region": "eu"}),
            vec![("mcp-param-region", "us")],
        ),
        (
            "header without argument",
            json!({"region": "eu"}),
            vec![("mcp-param-region", "eu"), ("mcp-param-priority", "1")],
        ),
        (
            "integer differs",
            json!({"region": "eu", "priority": 2}),
            vec![("mcp-param-region", "eu"), ("mcp-param-priority", "3")],
        ),
    ] {
        let (st, v) = json_of(post26(&url, "tools/call", call(args), &extra).await).await;
        assert_eq!(
            (st, v["error"]["code"].as_i64()),
            (400, Some(-32020)),
            "{why}: {v}"
        );
    }
    still_serving(&url).await;
}

#[tokio::test]
async fn errors_carry_the_statuses_of_the_spec() {
    let s = start(server(Eras::Both), HttpConfig::default()).await;
    let url = s.url();
    let (st, v) = json_of(post26(&url, "no/such", json!({}), &[]).await).await;
    assert_eq!(
        (st, v["error"]["code"].as_i64()),
        (404, Some(-32601)),
        "{v}"
    );
    let (st, v) = json_of(post26(&url, "ping", json!({}), &[]).await).await;
    assert_eq!(
        (st, v["error"]["code"].as_i64()),
        (404, Some(-32601)),
        "ping is gone in 2026: {v}"
    );
    let mut bad = meta();
    bad["io.modelcontextprotocol/protocolVersion"] = json!("v999");
    let (st, v) = json_of(
        post26(
            &url,
            "tools/list",
            json!({"_meta": bad}),
            &[("mcp-protocol-version", "v999")],
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, v["error"]["code"].as_i64()),
        (400, Some(-32022)),
        "{v}"
    );
    assert!(v["error"]["data"]["supported"]
        .as_array()
        .unwrap()
        .contains(&json!(V)));
    let (st, v) = json_of(
        post26(
            &url,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            &[],
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, v["error"]["code"].as_i64()),
        (400, Some(-32602)),
        "{v}"
    );
    let (st, v) = json_of(post26(&url, "tools/call", json!({"name": "nope"}), &[]).await).await;
    assert_eq!(
        (st, v["error"]["code"].as_i64()),
        (200, Some(-32602)),
        "an unknown tool is a plain error: {v}"
    );
    still_serving(&url).await;
}

/// The endpoint reads a client's declarations once while they stay the same; a request that declares
/// otherwise is served by its own, and so is the next one that declares as the first did.
#[tokio::test]
async fn each_request_is_served_by_its_own_declarations() {
    let caps = ToolRoute::new(
        Tool::new(
            "caps",
            "Says what the caller declared",
            obj(json!({"type": "object"})),
        ),
        |_: Arguments, ctx: Context| async move {
            let sampling = ctx.client_capabilities().sampling.is_some();
            let name = ctx.client_info().map(|i| i.name).unwrap_or_default();
            Ok(CallToolResult::text(format!("{name} sampling={sampling}")))
        },
    );
    let server = test_server_builder().tool(caps).build().unwrap();
    let s = start(server, HttpConfig::default()).await;
    let declared = |name: &str, caps: Value| {
        let mut m = meta();
        m["io.modelcontextprotocol/clientInfo"] = json!({"name": name, "version": "1"});
        m["io.modelcontextprotocol/clientCapabilities"] = caps;
        json!({"name": "caps", "_meta": m})
    };
    for (name, caps, want) in [
        ("a", json!({}), "a sampling=false"),
        ("a", json!({}), "a sampling=false"),
        ("b", json!({"sampling": {}}), "b sampling=true"),
        ("a", json!({}), "a sampling=false"),
        ("a", json!({"sampling": {}}), "a sampling=true"),
    ] {
        let (st, v) =
            json_of(post26(&s.url(), "tools/call", declared(name, caps), &[]).await).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["result"]["content"][0]["text"], want, "{v}");
    }
    // A malformed declaration after good ones is still refused.
    let mut bad = meta();
    bad["io.modelcontextprotocol/clientCapabilities"] = json!("all of them");
    let (st, v) = json_of(post26(&s.url(), "tools/list", json!({"_meta": bad}), &[]).await).await;
    assert_eq!(
        (st, v["error"]["code"].as_i64()),
        (400, Some(-32602)),
        "{v}"
    );
}

#[tokio::test]
async fn get_and_delete_are_405_for_a_2026_client_and_sessions_still_work() {
    let s = start(server(Eras::Both), HttpConfig::default()).await;
    let url = s.url();
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let r = http()
            .request(method.clone(), &url)
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", V)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 405, "{method}");
        assert_eq!(r.headers()["allow"], "POST");
    }
    // A handshake-era session on the same endpoint, beside 2026 requests.
    let session = init_session(&url).await;
    let r = post(
        &url,
        &call(2, "echo", json!({"text": "old"})),
        Some(&session),
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    let events = parse_sse(&r.bytes().await.unwrap());
    assert!(
        events.iter().any(|e| e.data.contains("\"old\"")),
        "{events:?}"
    );
    still_serving(&url).await;
    let r = http()
        .delete(&url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "DELETE ends a handshake-era session");
}

#[tokio::test]
async fn a_2026_only_endpoint_refuses_initialize_naming_its_version() {
    let s = start(server(Eras::ModernOnly), HttpConfig::default()).await;
    let url = s.url();
    let (st, v) = json_of(post(&url, INIT, None, &[]).await).await;
    assert_eq!(v["error"]["code"], -32022, "{st} {v}");
    assert!(v["error"]["message"].as_str().unwrap().contains(V));
    let r = http()
        .get(&url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    still_serving(&url).await;
}

#[tokio::test]
async fn notifications_before_the_response_make_it_an_sse_stream() {
    let s = start(server(Eras::Both), HttpConfig::default()).await;
    let mut params = json!({"name": "slow", "arguments": {"ms": 10, "steps": 2}});
    params["_meta"] = meta();
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let mut r = post26(&s.url(), "tools/call", params, &[]).await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    assert_eq!(r.headers()["x-accel-buffering"], "no");
    let events = read_events(&mut r, |e| e.iter().any(RawEvent::is_response)).await;
    let logs = events
        .iter()
        .filter(|e| e.json()["method"] == "notifications/message")
        .count();
    assert_eq!(logs, 2, "{events:?}");
    assert!(
        events.iter().all(|e| e.id.is_none()),
        "no event ids: 2026 streams do not resume"
    );
    assert_eq!(
        events.last().unwrap().json()["result"]["content"][0]["text"],
        "done"
    );
}

#[tokio::test]
async fn closing_a_listen_stream_ends_the_subscription() {
    let server = server(Eras::Both);
    let s = start(server.clone(), HttpConfig::default()).await;
    let mut r = post26(
        &s.url(),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
        &[],
    )
    .await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let first = read_events(&mut r, |e| !e.is_empty()).await;
    assert_eq!(
        first[0].json()["method"],
        "notifications/subscriptions/acknowledged"
    );
    while server.subscription_count() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.notify_tools_list_changed();
    let next = read_events(&mut r, |e| !e.is_empty()).await;
    let n = next[0].json();
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    drop(r);
    for _ in 0..200 {
        if server.subscription_count() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the listener outlived its stream");
}
