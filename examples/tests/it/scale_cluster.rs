//! Several everything-server instances behind nginx (round-robin, no stickiness) with Redis for what
//! they share, all real processes on loopback (see `scale_support`): a handshake-era session follows
//! its client from instance to instance, an SSE stream resumes on another instance after its own was
//! killed with every event exactly once, a list change made on one instance reaches the listen and GET
//! streams another holds, and a Redis restart fails requests cleanly (JSON-RPC errors, no crash) until
//! it is back. Tasks across instances are `scale_tasks`'s.

use crate::http_support;
use crate::scale_support;

use http_support::{call, post, post26, read_events, RawEvent, INIT};
use scale_support::Cluster;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, Instant};

/// The instance that answered, as nginx says.
pub(super) fn upstream(r: &reqwest::Response) -> String {
    r.headers()
        .get("x-upstream")
        .and_then(|v| v.to_str().ok())
        .expect("nginx names the upstream")
        .to_string()
}

/// The JSON-RPC answer of a response (JSON, or the response event of an SSE stream) and the
/// notifications that came with it.
pub(super) async fn answer(r: reqwest::Response) -> (u16, Value, Vec<Value>) {
    let status = r.status().as_u16();
    let sse = r
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap_or("").starts_with("text/event-stream"));
    let text = r.text().await.expect("a body");
    if !sse {
        return (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            vec![],
        );
    }
    let mut messages: Vec<Value> = http_support::parse_sse(text.as_bytes())
        .into_iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| serde_json::from_str(&e.data).expect("JSON events"))
        .collect();
    let last = messages.pop().unwrap_or(Value::Null);
    (status, last, messages)
}

pub(super) fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// Initializes a session through `url`; its id and the instance that began it.
pub(super) async fn init(url: &str) -> (String, String) {
    let r = post(url, INIT, None, &[]).await;
    assert_eq!(r.status(), 200, "initialize");
    let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let up = upstream(&r);
    let _ = r.bytes().await;
    let r = post(url, http_support::INITIALIZED, Some(&id), &[]).await;
    assert_eq!(r.status(), 202);
    (id, up)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_session_follows_its_client_across_instances() {
    let Some(cluster) = Cluster::start("session", 3) else {
        return;
    };
    let url = cluster.url.clone();
    let (sid, first) = init(&url).await;
    let mut seen = HashSet::from([first]);
    for i in 0..6 {
        let r = post(
            &url,
            &call(10 + i, "test_simple_text", json!({})),
            Some(&sid),
            &[],
        )
        .await;
        seen.insert(upstream(&r));
        let (status, v, _) = answer(r).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(
            v["result"]["content"][0]["text"], "This is a simple text response for testing.",
            "{v}"
        );
    }
    assert_eq!(
        seen.len(),
        3,
        "round-robin reached every instance: {seen:?}"
    );

    // State changed on one instance holds on the others: with the level at `error`, the tool's three
    // `info` messages are not sent, whichever instance runs it.
    let r = post(
        &url,
        &request(20, "logging/setLevel", json!({"level": "error"})),
        Some(&sid),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!((status, &v["result"]), (200, &json!({})), "{v}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut where_ran = HashSet::new();
    for i in 0..3 {
        let r = post(
            &url,
            &call(30 + i, "test_tool_with_logging", json!({})),
            Some(&sid),
            &[],
        )
        .await;
        where_ran.insert(upstream(&r));
        let (status, v, notes) = answer(r).await;
        assert_eq!(status, 200, "{v}");
        assert!(v["result"].is_object(), "{v}");
        assert!(notes.is_empty(), "no info logs at level error: {notes:?}");
    }
    assert_eq!(where_ran.len(), 3, "{where_ran:?}");

    // An answer's event, to resume after once the session is deleted.
    let r = post(
        &url,
        &call(35, "test_simple_text", json!({})),
        Some(&sid),
        &[],
    )
    .await;
    let text = r.text().await.expect("a body");
    let last_id = http_support::parse_sse(text.as_bytes())
        .into_iter()
        .rev()
        .find_map(|e| e.id)
        .expect("the answer's event has an id");

    // The answer's stream is finished. Resumed from its start on every instance (from the memory of the
    // one that answered, from the log it wrote whole on the others), it gives the answer once and ends.
    let stream_key = last_id.split('-').next().unwrap();
    let mut replayed_on = HashSet::new();
    for _ in 0..3 {
        let r = http_support::resume(&url, &sid, &format!("{stream_key}-0")).await;
        assert_eq!(r.status(), 200);
        let up = upstream(&r);
        let body = tokio::time::timeout(Duration::from_secs(5), r.text())
            .await
            .unwrap_or_else(|_| panic!("the finished stream ends ({up})"))
            .expect("a body");
        let ids: Vec<_> = http_support::parse_sse(body.as_bytes())
            .into_iter()
            .filter(|e| !e.data.is_empty())
            .filter_map(|e| e.id)
            .collect();
        assert_eq!(
            ids,
            std::slice::from_ref(&last_id),
            "the answer once ({up}): {body}"
        );
        replayed_on.insert(up);
    }
    assert_eq!(replayed_on.len(), 3, "{replayed_on:?}");
    // The answer and its stream's end went to Redis together: one string, no list.
    let exists = |key: String| {
        let cli = scale_support::program("redis-cli").expect("redis-cli beside redis-server");
        let out = std::process::Command::new(cli)
            .args(["-p", &cluster.redis_port.to_string(), "EXISTS", &key])
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(exists(format!("mcp:evw:{sid}:{stream_key}")), "1");
    assert_eq!(exists(format!("mcp:ev:{sid}:{stream_key}")), "0");

    // A DELETE on one instance ends the session on all of them.
    let r = http_support::http()
        .delete(&url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    for i in 0..3 {
        let r = post(
            &url,
            &call(40 + i, "test_simple_text", json!({})),
            Some(&sid),
            &[],
        )
        .await;
        let up = upstream(&r);
        let (status, v, _) = answer(r).await;
        assert_eq!(status, 404, "the session ended everywhere ({up}): {v}");
        assert_eq!(v["error"]["code"], -32001, "{v}");
    }
    // Its event logs are left in Redis to their TTL, but no instance replays them.
    for _ in 0..3 {
        let r = http_support::resume(&url, &sid, &last_id).await;
        let up = upstream(&r);
        assert_eq!(
            r.status(),
            404,
            "no resumption of a deleted session's stream ({up})"
        );
    }
    // A session nobody began is not found either (and costs one store read).
    let r = post(
        &url,
        &call(50, "test_simple_text", json!({})),
        Some("0123456789abcdef"),
        &[],
    )
    .await;
    assert_eq!(r.status(), 404);
    drop(cluster);
}

/// Reads an SSE body event by event (a block may span chunks).
pub(super) struct Events {
    pub(super) resp: reqwest::Response,
    pub(super) text: String,
}

impl Events {
    /// The next event; `None` when the stream ends, breaks, or stays quiet for `quiet`.
    pub(super) async fn next(&mut self, quiet: Duration) -> Option<RawEvent> {
        loop {
            if let Some(end) = self.text.find("\n\n") {
                let block: String = self.text.drain(..end + 2).collect();
                let Some(e) = http_support::parse_sse(block.as_bytes()).pop() else {
                    continue; // a comment (keep-alive)
                };
                return Some(RawEvent {
                    id: e.id,
                    data: e.data,
                    ..Default::default()
                });
            }
            match tokio::time::timeout(quiet, self.resp.chunk()).await {
                Ok(Ok(Some(chunk))) => self.text.push_str(&String::from_utf8_lossy(&chunk)),
                _ => return None,
            }
        }
    }

    /// Every event until the stream ends, breaks or stays quiet for `quiet`.
    pub(super) async fn rest(&mut self, quiet: Duration) -> Vec<RawEvent> {
        let mut all = Vec::new();
        while let Some(e) = self.next(quiet).await {
            all.push(e);
        }
        all
    }
}

/// The progress values of events, in order.
pub(super) fn progress_of(events: &[RawEvent]) -> Vec<u64> {
    events
        .iter()
        .filter(|e| !e.data.is_empty())
        .filter_map(|e| e.json()["params"]["progress"].as_f64().map(|p| p as u64))
        .collect()
}

/// Resumes a stream of session `sid` through `url` after `last`; the instance that took it, and every
/// event until it is quiet for 1.5 s (it follows the log of a stream whose instance died).
pub(super) async fn resume(url: &str, sid: &str, last: &str) -> (String, Vec<RawEvent>) {
    let r = http_support::resume_after(url, sid, last).await;
    let up = upstream(&r);
    let mut ev = Events {
        resp: r,
        text: String::new(),
    };
    (up, ev.rest(Duration::from_millis(1500)).await)
}

pub(super) fn port_of(upstream: &str) -> &str {
    upstream.rsplit(':').next().unwrap_or(upstream)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn an_sse_stream_resumes_on_another_instance_after_its_instance_died() {
    let Some(mut cluster) = Cluster::start("resume", 3) else {
        return;
    };
    let url = cluster.url.clone();
    let (sid, _) = init(&url).await;
    let body = request(
        7,
        "tools/call",
        json!({"name": "progress_ticks", "arguments": {"count": 40, "interval_ms": 100},
               "_meta": {"progressToken": "p"}}),
    );
    let r = post(&url, &body, Some(&sid), &[]).await;
    assert_eq!(r.status(), 200);
    let serving = upstream(&r);
    let mut stream = Events {
        resp: r,
        text: String::new(),
    };
    let mut before = Vec::new();
    while progress_of(&before).len() < 3 {
        match stream.next(Duration::from_secs(10)).await {
            Some(e) => before.push(e),
            None => panic!("the stream ended before 3 progress events: {before:?}"),
        }
    }
    // The instance dies mid-stream (SIGKILL: nothing is flushed, nothing said).
    cluster.instance_at(&serving).proc.take();
    // Whatever was on its way still arrives, then the connection breaks.
    before.extend(stream.rest(Duration::from_secs(2)).await);
    let last_id = before
        .iter()
        .rev()
        .filter(|e| !e.data.is_empty())
        .find_map(|e| e.id.clone())
        .expect("events with ids");
    let stream_key = last_id.split('-').next().unwrap().to_string();

    // The client reconnects through nginx, which sends it to a live instance.
    let (up, after) = resume(&url, &sid, &last_id).await;
    assert_ne!(port_of(&up), port_of(&serving), "another instance took it");
    // The stream's whole log as the store holds it.
    let (_, log) = resume(&url, &sid, &format!("{stream_key}-0")).await;

    let got: Vec<u64> = progress_of(&before)
        .into_iter()
        .chain(progress_of(&after))
        .collect();
    let logged = progress_of(&log);
    assert!(logged.len() >= 3, "the log holds the stream: {logged:?}");
    assert_eq!(got, logged, "every event exactly once, in order");
    assert_eq!(logged, (1..=logged.len() as u64).collect::<Vec<_>>());
    let ids: Vec<_> = before
        .iter()
        .chain(&after)
        .filter(|e| !e.data.is_empty())
        .filter_map(|e| e.id.clone())
        .collect();
    assert_eq!(
        ids.len(),
        ids.iter().collect::<BTreeSet<_>>().len(),
        "no id twice: {ids:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_redis_restart_fails_requests_cleanly_and_they_recover() {
    let Some(mut cluster) = Cluster::start("restart", 3) else {
        return;
    };
    let url = cluster.url.clone();
    // Two instances hold the session now (`initialize` on one, `initialized` on the next); the third
    // has to read it from Redis.
    let (sid, _) = init(&url).await;

    cluster.stop_redis();
    // A new session cannot be shared: refused with a JSON-RPC error, not a crash.
    let r = post(&url, INIT, None, &[]).await;
    let (status, v, _) = answer(r).await;
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["error"]["code"], -32603, "{v}");
    // The session's requests: answered by instances that hold it, a clean error elsewhere.
    let mut errors = 0;
    for i in 0..6 {
        let r = post(
            &url,
            &call(10 + i, "test_simple_text", json!({})),
            Some(&sid),
            &[],
        )
        .await;
        let (status, v, _) = answer(r).await;
        match status {
            // Answered, but its event could not be logged: the stream ended without it (never sent
            // unlogged; the client would resume with Last-Event-ID on this instance).
            200 if v.is_null() => {}
            200 => assert!(v["result"].is_object(), "{v}"),
            503 => {
                assert_eq!(v["error"]["code"], -32603, "{v}");
                errors += 1;
            }
            other => panic!("status {other}: {v}"),
        }
    }
    assert!(errors > 0, "instances without the session had to ask Redis");
    assert!(cluster.all_alive(), "no instance died");

    cluster.start_redis();
    let until = Instant::now() + Duration::from_secs(15);
    // Each instance reconnects on its own: until then it answers the clean 503. Recovered means a full
    // round of the balancer (three requests in a row) answered.
    let mut streak = 0;
    let mut n = 0;
    while streak < 3 {
        n += 1;
        let r = post(
            &url,
            &call(100 + n, "test_simple_text", json!({})),
            Some(&sid),
            &[],
        )
        .await;
        let (status, v, _) = answer(r).await;
        match status {
            200 if v["result"].is_object() => streak += 1,
            // Its event not logged yet (the instance's connection to Redis is still down).
            200 if v.is_null() => {
                assert!(
                    Instant::now() < until,
                    "no recovery: the answers stay unlogged"
                );
                streak = 0;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            503 => {
                assert_eq!(v["error"]["code"], -32603, "{v}");
                assert!(Instant::now() < until, "no recovery: {v}");
                streak = 0;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => panic!("status {other}: {v}"),
        }
    }
    let sid2 = loop {
        let r = post(&url, INIT, None, &[]).await;
        if r.status() == 200 {
            let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
            let _ = r.bytes().await;
            break id;
        }
        assert!(Instant::now() < until, "no recovery: {}", r.status());
        let _ = r.bytes().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let r = post(&url, http_support::INITIALIZED, Some(&sid2), &[]).await;
    assert_eq!(r.status(), 202);
    // Both sessions (the old one was kept in Redis's append-only file) work on every instance.
    for s in [&sid, &sid2] {
        for i in 0..3 {
            let r = post(
                &url,
                &call(30 + i, "test_simple_text", json!({})),
                Some(s),
                &[],
            )
            .await;
            let (status, v, _) = answer(r).await;
            assert_eq!(status, 200, "{v}");
        }
    }
    assert!(cluster.all_alive());
}

/// Reads `resp` until an event's method is `until`; the methods seen, in order.
pub(super) async fn methods_until(resp: &mut reqwest::Response, until: &str) -> Vec<String> {
    read_events(resp, |e| {
        e.iter()
            .any(|e| !e.data.is_empty() && e.json()["method"] == until)
    })
    .await
    .iter()
    .filter(|e| !e.data.is_empty())
    .filter_map(|e| e.json()["method"].as_str().map(str::to_string))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_list_change_on_one_instance_reaches_listeners_on_another() {
    let Some(mut cluster) = Cluster::start("listen", 3) else {
        return;
    };
    let [a, b, c] = [0, 1, 2].map(|i| Cluster::direct_url(&cluster.instances[i]));

    // A 2026-07-28 listener on instance A.
    let mut listen = post26(
        &a,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}}),
        &[],
    )
    .await;
    assert_eq!(listen.status(), 200);
    let first = read_events(&mut listen, |e| e.iter().any(|e| !e.data.is_empty())).await;
    let ack = first.iter().find(|e| !e.data.is_empty()).unwrap().json();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    // A handshake-era session begun on A, its GET stream held by A.
    let r = post(&a, INIT, None, &[]).await;
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let _ = r.bytes().await;
    let r = post(&a, http_support::INITIALIZED, Some(&sid), &[]).await;
    assert_eq!(r.status(), 202);
    let mut get = http_support::http()
        .get(&a)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    // The listener is registered once its acknowledgement is out; give the GET stream a moment too.
    tokio::time::sleep(Duration::from_millis(300)).await;

    // The tool list changes on B (a 2026 call), then the prompt list on C (through the session, which
    // C restores from Redis).
    let r = post26(
        &b,
        "tools/call",
        json!({"name": "test_trigger_tool_change", "arguments": {}}),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["result"]["content"][0]["text"], "Mutation triggered",
        "{v}"
    );
    // B publishes off the call's path, so a change made on C right away could overtake it (the bus
    // keeps each sender's order, not an order across senders): wait until A has heard B's first.
    let want = [
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
    ];
    let heard = methods_until(&mut listen, want[0]).await;
    assert_eq!(heard, want[..1], "the listen stream on A");
    let r = post(
        &c,
        &call(7, "test_trigger_prompt_change", json!({})),
        Some(&sid),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!(status, 200, "{v}");

    // Each stream on A hears each change once, in order.
    let heard = methods_until(&mut listen, want[1]).await;
    assert_eq!(heard, want[1..], "the listen stream on A");
    let heard = methods_until(&mut get, want[1]).await;
    assert_eq!(heard, want, "the GET stream on A");
    assert!(cluster.all_alive());
}
