//! HTTP faults: a client that hangs up in the middle of an SSE answer (the call still finishes, nothing
//! piles up, and the answer can be fetched with `Last-Event-ID`), and a server that stops answering
//! (our client times out and says so).

use crate::http_support;

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http_support::*;
use mcp_runtime::http::{HttpClientConfig, HttpConfig};
use mcp_runtime::{Client, Error};
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test]
async fn clients_hanging_up_mid_stream_leave_nothing_behind_and_can_resume() {
    let (svc, addr) = start_service(test_server(), HttpConfig::default()).await;
    let url = format!("http://{addr}/mcp");
    let id = init_session(&url).await;
    let mut last = (0, String::new());
    for n in 0..100u64 {
        let mut r = post(
            &url,
            &call(n + 10, "slow", json!({"ms": 20, "steps": 2})),
            Some(&id),
            &[],
        )
        .await;
        let seen = read_events(&mut r, |e| e.iter().any(|e| !e.data.is_empty())).await;
        drop(r);
        last = (
            n + 10,
            seen.iter().rev().find_map(|e| e.id.clone()).unwrap(),
        );
    }
    // Every call runs to its end although nobody listens (a disconnect is not a cancellation).
    tokio::time::sleep(Duration::from_millis(400)).await;
    let held = svc.stream_count();
    assert!(
        held <= 33,
        "finished streams are capped per session, not accumulated: {held}"
    );

    let mut resumed = http()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .header("last-event-id", &last.1)
        .send()
        .await
        .unwrap();
    let rest = read_events(&mut resumed, |_| false).await;
    let response = rest.last().expect("events after the last one seen").json();
    assert_eq!(response["id"], last.0);
    assert_eq!(response["result"]["content"][0]["text"], "done");
    assert_eq!(svc.session_count(), 1);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_with_a_message() {
    // Accepts connections and reads, never writes.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    let started = Instant::now();
    let r = Client::builder()
        .timeout(Some(Duration::from_millis(500)))
        .connect_http(&format!("http://{addr}/mcp"), HttpClientConfig::default())
        .await;
    let Err(e) = r else {
        panic!("no answer, no client")
    };
    assert!(matches!(e, Error::Timeout { .. }), "{e:?}");
    assert!(e.to_string().contains("timed out"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_server_that_stops_answering_mid_session_times_out_calls() {
    // Answers the handshake, then leaves every request hanging.
    let handler = |req: Request| async move {
        let body = axum::body::to_bytes(req.into_body(), 1 << 20)
            .await
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        if v["method"] == "initialize" {
            let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "hang", "version": "1"}});
            let resp = json!({"jsonrpc": "2.0", "id": v["id"], "result": result});
            return Response::builder()
                .header("content-type", "application/json")
                .body(axum::body::Body::from(resp.to_string()))
                .unwrap();
        }
        if v.get("id").is_none() {
            return axum::http::StatusCode::ACCEPTED.into_response();
        }
        std::future::pending::<()>().await;
        unreachable!()
    };
    let app = axum::Router::new().route("/mcp", axum::routing::post(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let cfg = HttpClientConfig {
        open_get_stream: false,
        ..Default::default()
    };
    let c = Client::builder()
        .timeout(Some(Duration::from_millis(300)))
        .connect_http(&format!("http://{addr}/mcp"), cfg)
        .await
        .unwrap();
    let started = Instant::now();
    let e = c
        .call_tool("anything", json!({}))
        .await
        .expect_err("a timeout");
    assert!(matches!(e, Error::Timeout { .. }), "{e:?}");
    assert!(e.to_string().contains("tools/call timed out"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(2));
}
