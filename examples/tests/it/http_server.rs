//! The Streamable HTTP server on the wire: answers as JSON or SSE, 202s, sessions, headers, the GET
//! stream, resumption, keep-alive, stateless mode, limits, graceful shutdown, the legacy transport, and
//! mounting into a user's router.

use crate::http_support;

use http_support::*;
use mcp_runtime::http::{HttpClientConfig, HttpConfig, HttpTransportKind, StreamableHttpService};
use mcp_runtime::Client;
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test]
async fn requests_are_answered_as_sse_with_a_priming_event_or_as_json() {
    let sse = start(test_server(), HttpConfig::default()).await;
    let id = init_session(&sse.url()).await;
    let mut r = post(
        &sse.url(),
        &call(2, "echo", json!({"text": "hi"})),
        Some(&id),
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let events = read_events(&mut r, |_| false).await;
    assert_eq!(events[0].data, "", "the priming event has empty data");
    assert!(
        events[0].id.is_some() && events[0].retry == Some(1000),
        "{:?}",
        events[0]
    );
    let last = events.last().unwrap();
    assert_eq!(last.json()["result"]["content"][0]["text"], "hi");
    assert!(last.id.is_some(), "message events carry ids");

    let json_mode = start(test_server(), HttpConfig::default().json_responses()).await;
    let id = init_session(&json_mode.url()).await;
    let r = post(
        &json_mode.url(),
        &call(2, "echo", json!({"text": "hi"})),
        Some(&id),
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["id"], 2);
    assert_eq!(v["result"]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn notifications_and_responses_get_202_with_an_empty_body() {
    let s = start(test_server(), HttpConfig::default()).await;
    let id = init_session(&s.url()).await;
    let r = post(
        &s.url(),
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
        Some(&id),
        &[],
    )
    .await;
    assert_eq!(r.status(), 202);
    assert!(r.bytes().await.unwrap().is_empty());
    let r = post(
        &s.url(),
        r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#,
        Some(&id),
        &[],
    )
    .await;
    assert_eq!(r.status(), 202);
}

#[tokio::test]
async fn sessions_random_ids_400_404_and_delete() {
    let s = start(test_server(), HttpConfig::default()).await;
    let a = init_session(&s.url()).await;
    let b = init_session(&s.url()).await;
    assert_ne!(a, b);
    assert_eq!(a.len(), 32, "128 random bits as hex: {a}");
    assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));

    let r = post(
        &s.url(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        None,
        &[],
    )
    .await;
    assert_eq!(r.status(), 400, "a missing session id");
    let r = post(
        &s.url(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        Some("0123456789abcdef0123456789abcdef"),
        &[],
    )
    .await;
    assert_eq!(r.status(), 404, "an unknown session id");

    let r = http()
        .delete(s.url())
        .header("mcp-session-id", &a)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = post(
        &s.url(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        Some(&a),
        &[],
    )
    .await;
    assert_eq!(r.status(), 404, "a deleted session is gone");
    let r = post(
        &s.url(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        Some(&b),
        &[],
    )
    .await;
    assert_eq!(r.status(), 200, "the other session lives on");
}

#[tokio::test]
async fn idle_sessions_expire() {
    let config = HttpConfig {
        session_idle_timeout: Some(Duration::from_millis(150)),
        ..Default::default()
    };
    let s = start(test_server(), config).await;
    let id = init_session(&s.url()).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let r = post(
        &s.url(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        Some(&id),
        &[],
    )
    .await;
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn protocol_version_header_is_checked() {
    let s = start(test_server(), HttpConfig::default().json_responses()).await;
    let id = init_session(&s.url()).await;
    let body = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let r = http()
        .post(s.url())
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "1999-01-01")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    // Absent: assumed 2025-03-26, accepted.
    let r = http()
        .post(s.url())
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .header("mcp-session-id", &id)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn accept_and_content_type_are_checked() {
    let s = start(test_server(), HttpConfig::default()).await;
    let r = http()
        .post(s.url())
        .header("accept", "application/json")
        .header("content-type", "application/json")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 406);
    let r = http()
        .post(s.url())
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "text/plain")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 415);
    let r = http().put(s.url()).send().await.unwrap();
    assert_eq!(r.status(), 405);
}

#[tokio::test]
async fn the_get_stream_carries_server_initiated_messages() {
    let server = test_server();
    let s = start(server.clone(), HttpConfig::default()).await;
    let id = init_session(&s.url()).await;
    let mut get = http()
        .get(s.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    let second = http()
        .get(s.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 409, "one GET stream per session");
    let adder = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        server.remove_tool("echo");
    });
    let events = read_events(&mut get, |e| e.iter().any(|e| !e.data.is_empty())).await;
    adder.await.unwrap();
    let msg = events.iter().find(|e| !e.data.is_empty()).unwrap();
    assert_eq!(msg.json()["method"], "notifications/tools/list_changed");
    assert!(
        msg.json().get("id").is_none(),
        "no responses on the GET stream"
    );
}

#[tokio::test]
async fn a_dropped_post_stream_resumes_from_last_event_id() {
    let s = start(test_server(), HttpConfig::default()).await;
    let id = init_session(&s.url()).await;
    let mut r = post(
        &s.url(),
        &call(7, "slow", json!({"ms": 100, "steps": 3})),
        Some(&id),
        &[],
    )
    .await;
    // Read the priming event and the first log message, then hang up.
    let first = read_events(&mut r, |e| {
        e.iter().filter(|e| !e.data.is_empty()).count() >= 1
    })
    .await;
    drop(r);
    let last_id = first.iter().rev().find_map(|e| e.id.clone()).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut resumed = http()
        .get(s.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .header("last-event-id", &last_id)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let rest = read_events(&mut resumed, |_| false).await;
    let logs = rest
        .iter()
        .filter(|e| e.json()["method"] == "notifications/message")
        .count();
    assert_eq!(logs, 2, "the two log messages after the one seen: {rest:?}");
    assert_eq!(
        rest.last().unwrap().json()["result"]["content"][0]["text"],
        "done"
    );
    assert_eq!(rest.last().unwrap().json()["id"], 7);
}

#[tokio::test]
async fn replay_is_bounded_per_stream() {
    let config = HttpConfig {
        replay_buffer: 2,
        ..Default::default()
    };
    let s = start(test_server(), config).await;
    let id = init_session(&s.url()).await;
    let mut r = post(
        &s.url(),
        &call(7, "slow", json!({"ms": 1, "steps": 6})),
        Some(&id),
        &[],
    )
    .await;
    let all = read_events(&mut r, |_| false).await;
    assert_eq!(all.iter().filter(|e| !e.data.is_empty()).count(), 7);
    let priming = all[0].id.clone().unwrap();
    let mut resumed = http()
        .get(s.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .header("last-event-id", &priming)
        .send()
        .await
        .unwrap();
    let replayed = read_events(&mut resumed, |_| false).await;
    assert_eq!(
        replayed.len(),
        2,
        "only the newest two events are kept: {replayed:?}"
    );
    assert!(replayed.last().unwrap().is_response());
}

#[tokio::test]
async fn idle_sse_streams_get_keep_alive_comments() {
    let config = HttpConfig {
        keep_alive: Some(Duration::from_millis(50)),
        ..Default::default()
    };
    let s = start(test_server(), config).await;
    let id = init_session(&s.url()).await;
    let mut get = http()
        .get(s.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    let events = read_events(&mut get, |e| e.iter().filter(|e| e.comment).count() >= 2).await;
    assert!(events.iter().filter(|e| e.comment).count() >= 2);
}

#[tokio::test]
async fn stateless_mode_answers_without_sessions() {
    let s = start(
        test_server(),
        HttpConfig::default().stateless().json_responses(),
    )
    .await;
    let r = post(
        &s.url(),
        &call(1, "echo", json!({"text": "alone"})),
        None,
        &[("mcp-protocol-version", "2025-06-18")],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("mcp-session-id").is_none());
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "alone");
    let r = http()
        .get(s.url())
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    // Our client works against it too.
    let c = Client::builder()
        .connect_http(&s.url(), HttpClientConfig::default())
        .await
        .unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "x"}))
            .await
            .unwrap()
            .text_content(),
        "x"
    );
}

#[tokio::test]
async fn bodies_over_the_limit_get_413_and_heads_over_the_limit_431() {
    let config = HttpConfig {
        max_body_bytes: 1024,
        max_header_bytes: 8 * 1024,
        ..Default::default()
    };
    let s = start(test_server(), config).await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"_meta":{{"pad":"{}"}}}}}}"#,
        "x".repeat(4096)
    );
    let r = post(&s.url(), &big, None, &[]).await;
    assert_eq!(r.status(), 413);
    let r = post(&s.url(), INIT, None, &[("x-pad", &"y".repeat(32 * 1024))]).await;
    assert_eq!(r.status(), 431);
    // The server still serves.
    let r = post(&s.url(), INIT, None, &[]).await;
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn graceful_shutdown_finishes_in_flight_calls() {
    let s = start(test_server(), HttpConfig::default()).await;
    let c = Client::builder()
        .connect_http(&s.url(), HttpClientConfig::default())
        .await
        .unwrap();
    let url = s.url();
    let call = tokio::spawn(async move { c.call_tool("slow", json!({"ms": 400})).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    s.stop().await;
    let r = call.await.unwrap().expect("the in-flight call finished");
    assert_eq!(r.text_content(), "done");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(reqwest::get(url).await.is_err(), "no longer accepting");
}

#[tokio::test]
async fn legacy_sse_is_served_beside_mcp() {
    let s = start(test_server(), HttpConfig::default()).await;
    let base = format!("http://{}", s.addr);
    let config = HttpClientConfig {
        transport: HttpTransportKind::LegacySse,
        ..Default::default()
    };
    let c = Client::builder()
        .connect_http(&format!("{base}/sse"), config)
        .await
        .unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "old"}))
            .await
            .unwrap()
            .text_content(),
        "old"
    );
    // The endpoint event, on the wire.
    let mut r = http()
        .get(format!("{base}/sse"))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let chunk = String::from_utf8(r.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    assert!(
        chunk.starts_with("event: endpoint\ndata: /messages?sessionId="),
        "{chunk}"
    );
}

#[tokio::test]
async fn the_service_mounts_into_a_users_router() {
    let mcp = StreamableHttpService::new(test_server(), HttpConfig::default());
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(mcp.router());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    assert_eq!(
        reqwest::get(format!("http://{addr}/health"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "ok"
    );
    // A handshake-era client, so that the mounted service keeps a session.
    let c = Client::builder()
        .era(mcp_runtime::Era::Legacy)
        .connect_http(&format!("http://{addr}/mcp"), HttpClientConfig::default())
        .await
        .unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "mounted"}))
            .await
            .unwrap()
            .text_content(),
        "mounted"
    );
    assert_eq!(mcp.session_count(), 1);
}

#[tokio::test]
async fn json_mode_switches_to_sse_when_a_handler_sends_messages_first() {
    let s = start(test_server(), HttpConfig::default().json_responses()).await;
    let id = init_session(&s.url()).await;
    let mut r = post(
        &s.url(),
        &call(3, "slow", json!({"ms": 10, "steps": 2})),
        Some(&id),
        &[],
    )
    .await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let events = read_events(&mut r, |_| false).await;
    let methods: Vec<_> = events
        .iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| e.json())
        .collect();
    assert_eq!(
        methods.len(),
        3,
        "two log messages, then the answer: {methods:?}"
    );
    assert_eq!(methods[0]["method"], "notifications/message");
    assert_eq!(methods[2]["id"], 3);
    let r = post(
        &s.url(),
        &call(4, "echo", json!({"text": "plain"})),
        Some(&id),
        &[],
    )
    .await;
    assert_eq!(
        r.headers()["content-type"],
        "application/json",
        "nothing came first: plain JSON"
    );
}
