//! Our Streamable HTTP client: JSON and SSE answers, the session header, re-initializing after a 404,
//! the GET stream with reconnection (honouring `retry` and `Last-Event-ID`), custom headers, and the
//! fallback to the legacy transport.

use crate::http_support;

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use http_support::*;
use mcp_runtime::http::{HttpClientConfig, HttpConfig, HttpTransportKind};
use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::{Client, Era};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[tokio::test]
async fn calls_work_with_json_and_with_sse_answers() {
    for (config, era) in [
        (HttpConfig::default(), Era::Legacy),
        (HttpConfig::default().json_responses(), Era::Legacy),
        (HttpConfig::default(), Era::Auto),
        (HttpConfig::default().json_responses(), Era::Auto),
    ] {
        let s = start(test_server(), config).await;
        let c = Client::builder()
            .era(era)
            .connect_http(&s.url(), HttpClientConfig::default())
            .await
            .unwrap();
        assert_eq!(c.is_modern(), era == Era::Auto);
        // `logging/setLevel` in the handshake era; under 2026-07-28 the level each request carries.
        c.set_logging_level(LoggingLevel::Debug).await.unwrap();
        let mut logs = c.notifications();
        assert_eq!(
            c.call_tool("echo", json!({"text": "a"}))
                .await
                .unwrap()
                .text_content(),
            "a"
        );
        assert_eq!(
            c.call_tool("slow", json!({"ms": 10, "steps": 2}))
                .await
                .unwrap()
                .text_content(),
            "done"
        );
        // Log messages travel with the answer: JSON mode switches that answer to SSE.
        let first = tokio::time::timeout(Duration::from_secs(5), logs.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.method, "notifications/message");
        c.close().await;
    }
}

#[tokio::test]
async fn a_forgotten_session_is_initialized_again() {
    let config = HttpConfig {
        session_idle_timeout: Some(Duration::from_millis(100)),
        ..Default::default()
    };
    let (svc, addr) = start_service(test_server(), config).await;
    let cfg = HttpClientConfig {
        open_get_stream: false,
        ..Default::default()
    };
    // Sessions belong to the handshake era.
    let c = Client::builder()
        .era(Era::Legacy)
        .connect_http(&format!("http://{addr}/mcp"), cfg)
        .await
        .unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "1"}))
            .await
            .unwrap()
            .text_content(),
        "1"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(svc.session_count(), 0, "the session expired");
    assert_eq!(
        c.call_tool("echo", json!({"text": "2"}))
            .await
            .unwrap()
            .text_content(),
        "2"
    );
    assert_eq!(svc.session_count(), 1, "a new session");
}

/// A hand-written server whose GET stream ends after a priming event with `retry: 150`; the second GET
/// must carry the event id and come no sooner than 150 ms later, and gets a notification.
#[tokio::test]
async fn the_get_stream_reconnects_after_retry_with_last_event_id() {
    #[derive(Default)]
    struct Seen {
        gets: Vec<(Instant, Option<String>)>,
        auth: Vec<Option<String>>,
    }
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s2 = seen.clone();
    let handler = move |req: Request| {
        let seen = s2.clone();
        async move {
            let auth = req
                .headers()
                .get("authorization")
                .map(|v| v.to_str().unwrap().to_string());
            seen.lock().unwrap().auth.push(auth);
            if req.method() == "GET" {
                let last = req
                    .headers()
                    .get("last-event-id")
                    .map(|v| v.to_str().unwrap().to_string());
                let n = {
                    let mut s = seen.lock().unwrap();
                    s.gets.push((Instant::now(), last));
                    s.gets.len()
                };
                let body = if n == 1 {
                    "id: g-1\nretry: 150\ndata: \n\n".to_string()
                } else {
                    "id: g-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n".to_string()
                };
                return Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(axum::body::Body::from(body))
                    .unwrap();
            }
            let body = axum::body::to_bytes(req.into_body(), 1 << 20)
                .await
                .unwrap();
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
            match v.get("id") {
                None => StatusCode::ACCEPTED.into_response(),
                Some(id) => {
                    let result = if v["method"] == "initialize" {
                        json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "mock", "version": "1"}})
                    } else {
                        json!({})
                    };
                    let resp = json!({"jsonrpc": "2.0", "id": id, "result": result});
                    Response::builder()
                        .header("content-type", "application/json")
                        .header("mcp-session-id", "mock-session")
                        .body(axum::body::Body::from(resp.to_string()))
                        .unwrap()
                }
            }
        }
    };
    let app = axum::Router::new().route("/mcp", axum::routing::any(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let cfg = HttpClientConfig::default()
        .bearer("secret-token")
        .header("x-custom", "1");
    let c = Client::builder()
        .connect_http(&format!("http://{addr}/mcp"), cfg)
        .await
        .unwrap();
    let mut notes = c.notifications();
    let n = tokio::time::timeout(Duration::from_secs(5), notes.recv())
        .await
        .expect("a notification on the resumed GET")
        .unwrap();
    assert_eq!(n.method, "notifications/tools/list_changed");
    let s = seen.lock().unwrap();
    assert!(s.gets.len() >= 2);
    assert_eq!(s.gets[0].1, None);
    assert_eq!(
        s.gets[1].1.as_deref(),
        Some("g-1"),
        "Last-Event-ID on reconnection"
    );
    let waited = s.gets[1].0 - s.gets[0].0;
    assert!(
        waited >= Duration::from_millis(150),
        "honours retry: waited {waited:?}"
    );
    assert!(
        s.auth
            .iter()
            .all(|a| a.as_deref() == Some("Bearer secret-token")),
        "custom headers on every request: {:?}",
        s.auth
    );
}

#[tokio::test]
async fn bearer_tokens_reach_a_protected_server() {
    let s = start(test_server(), HttpConfig::default().bearer_token("s3cret")).await;
    let c = Client::builder()
        .connect_http(&s.url(), HttpClientConfig::default().bearer("s3cret"))
        .await
        .unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "in"}))
            .await
            .unwrap()
            .text_content(),
        "in"
    );
    let denied = Client::builder()
        .connect_http(&s.url(), HttpClientConfig::default().bearer("wrong"))
        .await;
    let Err(e) = denied else { panic!("refused") };
    let e = e.to_string();
    assert!(e.contains("401"), "{e}");
}

#[tokio::test]
async fn falls_back_to_the_legacy_transport() {
    let s = start(test_server(), HttpConfig::default()).await;
    // POST /sse is 405 there: the client opens the SSE stream instead.
    let c = Client::builder()
        .connect_http(
            &format!("http://{}/sse", s.addr),
            HttpClientConfig {
                transport: HttpTransportKind::Auto,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        c.call_tool("echo", json!({"text": "fallback"}))
            .await
            .unwrap()
            .text_content(),
        "fallback"
    );
}
