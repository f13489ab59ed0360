//! The shared-store hooks without any external component: two HTTP services in one process share
//! `SharedStores::memory()` (and one task store), and a session begun on one is served by the other,
//! its SSE stream resumed there, its log level and its end seen by both.

mod http_support;

use http_support::*;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::scale::SharedStores;
use mcp_runtime::server::{MemoryTaskStore, TaskStore};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

async fn pair() -> (Running, Running) {
    let shared = SharedStores::memory();
    let tasks: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::default());
    let config = HttpConfig {
        shared: Some(shared),
        ..Default::default()
    };
    let a = start(
        test_server_builder()
            .task_store(tasks.clone())
            .build()
            .unwrap(),
        config.clone(),
    )
    .await;
    let b = start(
        test_server_builder().task_store(tasks).build().unwrap(),
        config,
    )
    .await;
    (a, b)
}

#[tokio::test]
async fn a_session_begun_on_one_service_is_served_by_another() {
    let (a, b) = pair().await;
    let sid = init_session(&a.url()).await;
    for (i, url) in [b.url(), a.url(), b.url()].iter().enumerate() {
        let r = post(
            url,
            &call(10 + i as u64, "echo", json!({"text": "hi"})),
            Some(&sid),
            &[],
        )
        .await;
        let (status, v) = json_of(r).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["result"]["content"][0]["text"], "hi", "{v}");
    }
    // An unknown session stays unknown on both.
    let r = post(
        &b.url(),
        &call(20, "echo", json!({"text": "x"})),
        Some("nope"),
        &[],
    )
    .await;
    assert_eq!(r.status(), 404);

    // The level set on B holds on A: `slow` logs at info, which `error` silences.
    let set = json!({"jsonrpc": "2.0", "id": 30, "method": "logging/setLevel", "params": {"level": "error"}});
    let (status, v) = json_of(post(&b.url(), &set.to_string(), Some(&sid), &[]).await).await;
    assert_eq!((status, &v["result"]), (200, &json!({})), "{v}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut r = post(
        &a.url(),
        &call(31, "slow", json!({"ms": 10, "steps": 3})),
        Some(&sid),
        &[],
    )
    .await;
    let events = read_events(&mut r, |e| e.iter().any(RawEvent::is_response)).await;
    let logs = events
        .iter()
        .filter(|e| e.json()["method"] == "notifications/message")
        .count();
    assert_eq!(logs, 0, "{events:?}");

    // A stream begun on A, resumed on B from its first event: the rest, then the end.
    let debug = json!({"jsonrpc": "2.0", "id": 39, "method": "logging/setLevel", "params": {"level": "debug"}});
    let (status, _) = json_of(post(&a.url(), &debug.to_string(), Some(&sid), &[]).await).await;
    assert_eq!(status, 200);
    let mut r = post(
        &a.url(),
        &call(40, "slow", json!({"ms": 50, "steps": 4})),
        Some(&sid),
        &[],
    )
    .await;
    let first = read_events(&mut r, |e| e.iter().any(|x| !x.data.is_empty())).await;
    let id = first
        .iter()
        .find(|e| !e.data.is_empty())
        .and_then(|e| e.id.clone())
        .expect("an event id");
    drop(r);
    let mut g = http()
        .get(b.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(g.status(), 200);
    let rest = read_events(&mut g, |e| e.iter().any(RawEvent::is_response)).await;
    let resp = rest
        .iter()
        .find(|e| e.is_response())
        .expect("the response, from A, through B");
    assert_eq!(resp.json()["id"], 40);
    let mut ids: Vec<String> = first
        .iter()
        .chain(&rest)
        .filter(|e| !e.data.is_empty())
        .filter_map(|e| e.id.clone())
        .collect();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "no event twice");

    // DELETE on A ends it on B too.
    let r = http()
        .delete(a.url())
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = post(
        &b.url(),
        &call(50, "echo", json!({"text": "x"})),
        Some(&sid),
        &[],
    )
    .await;
    assert_eq!(r.status(), 404);
}
