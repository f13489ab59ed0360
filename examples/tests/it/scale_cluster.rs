//! Several everything-server instances behind nginx (round-robin, no stickiness) with Redis for what
//! they share, all real processes on loopback (see `scale_support`): a handshake-era session follows
//! its client from instance to instance, an SSE stream resumes on another instance after its own was
//! killed with every event exactly once, a task started on one instance is polled and cancelled on
//! others and asks the user through a `tasks/result` held by another, a task whose instance was killed turns `failed` on the others (through a Redis restart) while
//! a live instance's task keeps running, a list change made on one instance reaches the listen and GET
//! streams another holds, and a Redis restart fails requests cleanly (JSON-RPC errors, no crash) until
//! it is back.

use crate::http_support;
use crate::scale_support;

use http_support::{call, post, post26, read_events, RawEvent, INIT};
use scale_support::Cluster;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, Instant};

/// The instance that answered, as nginx says.
fn upstream(r: &reqwest::Response) -> String {
    r.headers()
        .get("x-upstream")
        .and_then(|v| v.to_str().ok())
        .expect("nginx names the upstream")
        .to_string()
}

/// The JSON-RPC answer of a response (JSON, or the response event of an SSE stream) and the
/// notifications that came with it.
async fn answer(r: reqwest::Response) -> (u16, Value, Vec<Value>) {
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

fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// Initializes a session through `url`; its id and the instance that began it.
async fn init(url: &str) -> (String, String) {
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
async fn a_session_follows_its_client_across_instances() {
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
struct Events {
    resp: reqwest::Response,
    text: String,
}

impl Events {
    /// The next event; `None` when the stream ends, breaks, or stays quiet for `quiet`.
    async fn next(&mut self, quiet: Duration) -> Option<RawEvent> {
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
    async fn rest(&mut self, quiet: Duration) -> Vec<RawEvent> {
        let mut all = Vec::new();
        while let Some(e) = self.next(quiet).await {
            all.push(e);
        }
        all
    }
}

/// The progress values of events, in order.
fn progress_of(events: &[RawEvent]) -> Vec<u64> {
    events
        .iter()
        .filter(|e| !e.data.is_empty())
        .filter_map(|e| e.json()["params"]["progress"].as_f64().map(|p| p as u64))
        .collect()
}

/// Resumes a stream of session `sid` through `url` after `last`; the instance that took it, and every
/// event until it is quiet for 1.5 s (it follows the log of a stream whose instance died).
async fn resume(url: &str, sid: &str, last: &str) -> (String, Vec<RawEvent>) {
    let r = http_support::http()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let up = upstream(&r);
    let mut ev = Events {
        resp: r,
        text: String::new(),
    };
    (up, ev.rest(Duration::from_millis(1500)).await)
}

fn port_of(upstream: &str) -> &str {
    upstream.rsplit(':').next().unwrap_or(upstream)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sse_stream_resumes_on_another_instance_after_its_instance_died() {
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
async fn a_task_started_on_one_instance_is_polled_and_cancelled_on_others() {
    let Some(mut cluster) = Cluster::start("tasks", 3) else {
        return;
    };
    let url = cluster.url.clone();
    let (sid, _) = init(&url).await;
    let arguments = json!({"seconds": 60, "label": "x"});
    let (task, started_on) = call_as_task(&url, &sid, 3, "slow_compute", arguments).await;
    let others: Vec<String> = cluster
        .instances
        .iter()
        .filter(|i| i.port.to_string() != port_of(&started_on))
        .map(Cluster::direct_url)
        .collect();
    assert_eq!(others.len(), 2);

    // Polled on another instance: the task runs (there).
    let r = post(
        &others[0],
        &request(4, "tasks/get", json!({"taskId": task})),
        Some(&sid),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["status"], "working", "{v}");
    // Cancelled on the third.
    let r = post(
        &others[1],
        &request(5, "tasks/cancel", json!({"taskId": task})),
        Some(&sid),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["status"], "cancelled", "{v}");
    // Every instance, the one that runs it included, says so.
    for i in 0..3 {
        let r = post(
            &url,
            &request(6 + i, "tasks/get", json!({"taskId": task})),
            Some(&sid),
            &[],
        )
        .await;
        let (status, v, _) = answer(r).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["result"]["status"], "cancelled", "{v}");
    }
    // And the handler was stopped where it ran (told on the bus).
    let log = cluster.instance_at(&started_on).log.clone();
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("task cancelled on another instance; stopping it") && text.contains(&task)
        {
            break;
        }
        assert!(
            Instant::now() < until,
            "the running instance never stopped the task:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A listing on any instance finds it (the session's tasks are filed under the same owner).
    let r = post(&url, &request(20, "tasks/list", json!({})), Some(&sid), &[]).await;
    let (_, v, _) = answer(r).await;
    let ids: Vec<&str> = v["result"]["tasks"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["taskId"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids, vec![task.as_str()], "{v}");
}

/// A handshake-era task that asks the user while the client's `tasks/result` waits on another instance:
/// the elicitation and the task's log message travel over the bus to that request's stream, the answer
/// (posted to a third instance) reaches the handler, and the result ends the stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_input_request_and_log_reach_its_tasks_result_on_another_instance() {
    let Some(cluster) = Cluster::start("task-relay", 3) else {
        return;
    };
    let urls: Vec<String> = cluster.instances.iter().map(Cluster::direct_url).collect();
    let (a, b, c) = (&urls[0], &urls[1], &urls[2]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let r = post(a, &init.to_string(), None, &[]).await;
    assert_eq!(r.status(), 200, "initialize");
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let _ = r.bytes().await;
    let r = post(a, http_support::INITIALIZED, Some(&sid), &[]).await;
    assert_eq!(r.status(), 202);
    let r = post(
        a,
        &request(2, "logging/setLevel", json!({"level": "info"})),
        Some(&sid),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!(status, 200, "{v}");

    // The task starts on A and asks at once; the client waits for it on B.
    let (task, _) = call_as_task(a, &sid, 3, "confirm_delete", json!({"filename": "a.txt"})).await;
    let r = tokio::time::timeout(
        Duration::from_secs(15),
        post(
            b,
            &request(4, "tasks/result", json!({"taskId": task})),
            Some(&sid),
            &[],
        ),
    )
    .await
    .expect("the elicitation reaches the tasks/result stream on B");
    assert_eq!(r.status(), 200);
    let mut events = Events {
        resp: r,
        text: String::new(),
    };
    let ask = loop {
        let e = events
            .next(Duration::from_secs(10))
            .await
            .expect("an elicitation on B's stream");
        if !e.data.is_empty() {
            break e.json();
        }
    };
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(
        ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task,
        "{ask}"
    );
    assert!(
        ask["id"].is_string(),
        "a shared session's request id names its instance: {ask}"
    );

    // Answered through C: the answer reaches A, which runs the handler.
    let reply = json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"confirm": true}}});
    let r = post(c, &reply.to_string(), Some(&sid), &[]).await;
    assert_eq!(r.status(), 202);

    let rest: Vec<Value> = events
        .rest(Duration::from_secs(10))
        .await
        .into_iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| e.json())
        .collect();
    let log = rest
        .iter()
        .find(|m| m["method"] == "notifications/message")
        .unwrap_or_else(|| panic!("the task's log message on B's stream: {rest:?}"));
    assert_eq!(log["params"]["data"], "Deleted a.txt", "{log}");
    assert_eq!(
        log["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task,
        "{log}"
    );
    let last = rest.last().expect("the result");
    assert_eq!(last["id"], 4, "{last}");
    assert_eq!(
        last["result"]["content"][0]["text"], "Deleted a.txt",
        "{last}"
    );
    drop(cluster);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restart_fails_requests_cleanly_and_they_recover() {
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
            200 => streak += 1,
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
async fn methods_until(resp: &mut reqwest::Response, until: &str) -> Vec<String> {
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
async fn a_list_change_on_one_instance_reaches_listeners_on_another() {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_task_store_bounds_unfinished_tasks_per_owner() {
    use mcp_runtime::protocol::TaskStatus;
    use mcp_runtime::scale::redis::{RedisConfig, RedisStores};
    use mcp_runtime::server::tasks::{
        StoreError, TaskEra, TaskOutcome, TaskRecord, TaskStore, TaskUpdate,
    };
    use mcp_runtime::server::TaskLimits;

    let Some(cluster) = Cluster::start("task-limits", 1) else {
        return;
    };
    let mut config = RedisConfig::new(format!("redis://127.0.0.1:{}", cluster.redis_port));
    config.prefix = "limits:".into();
    config.task_limits = TaskLimits {
        max_active_per_owner: 2,
        ..TaskLimits::default()
    };
    let store = RedisStores::connect(config).await.unwrap().tasks;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let record = |id: &str, owner: &str, created: u64, ttl: u64| TaskRecord {
        id: id.into(),
        owner: owner.into(),
        era: TaskEra::Extension,
        tool: "t".into(),
        status: TaskStatus::Working,
        status_message: None,
        created_at_ms: created,
        last_updated_at_ms: created,
        ttl_ms: ttl,
        poll_interval_ms: 500,
        input_requests: Default::default(),
        outcome: None,
        instance: None,
    };
    let full = |r: Result<(), StoreError>| match r {
        Err(StoreError::Full { what, limit }) => {
            assert_eq!((what, limit), ("unfinished tasks of one client", 2));
        }
        other => panic!("not refused: {other:?}"),
    };
    store
        .create(record("a1", "alice", now, 60_000))
        .await
        .unwrap();
    store
        .create(record("a2", "alice", now, 60_000))
        .await
        .unwrap();
    full(store.create(record("a3", "alice", now, 60_000)).await);
    // Another owner has its own allowance.
    store
        .create(record("b1", "bob", now, 60_000))
        .await
        .unwrap();
    // A finished task frees its slot, and so does a deleted one.
    let finish = TaskUpdate::Finish {
        status: TaskStatus::Completed,
        outcome: TaskOutcome::Result(serde_json::value::to_raw_value(&json!({})).unwrap()),
        message: None,
    };
    store.update("a1", finish, now + 1).await.unwrap();
    store
        .create(record("a3", "alice", now, 60_000))
        .await
        .unwrap();
    full(store.create(record("a4", "alice", now, 60_000)).await);
    assert!(store.delete("a2").await.unwrap());
    store
        .create(record("a4", "alice", now, 60_000))
        .await
        .unwrap();
    full(store.create(record("a5", "alice", now, 60_000)).await);
    // An unfinished task past its lifetime never finishes: it stops counting.
    store
        .create(record("c1", "carol", now - 10_000, 1_000))
        .await
        .unwrap();
    store
        .create(record("c2", "carol", now, 60_000))
        .await
        .unwrap();
    store
        .create(record("c3", "carol", now, 60_000))
        .await
        .unwrap();
    full(store.create(record("c4", "carol", now, 60_000)).await);
}

/// Starts a 60 s `slow_compute` task through `url`; its id and the instance that runs it.
async fn start_task(url: &str, sid: &str, id: u64) -> (String, String) {
    let arguments = json!({"seconds": 60, "label": "lease"});
    call_as_task(url, sid, id, "slow_compute", arguments).await
}

/// Calls `tool` as a task through `url` in session `sid`: the task's id, and the instance that began it
/// as nginx names it (empty when `url` is an instance's own).
async fn call_as_task(
    url: &str,
    sid: &str,
    id: u64,
    tool: &str,
    arguments: Value,
) -> (String, String) {
    let params = json!({"name": tool, "arguments": arguments, "task": {"ttl": 120000}});
    let r = post(url, &request(id, "tools/call", params), Some(sid), &[]).await;
    let on = r
        .headers()
        .get("x-upstream")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let (status, v, _) = answer(r).await;
    assert_eq!(status, 200, "{v}");
    let task = v["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {v}"))
        .to_string();
    (task, on)
}

/// A JSON-RPC answer that is the clean refusal of a store that cannot be reached (Redis down, or an
/// instance not reconnected yet): a session that must be read from Redis is a 503, a task that must be
/// read is a `-32603` naming the task store.
fn store_down(status: u16, v: &Value) -> bool {
    let message = v["error"]["message"].as_str().unwrap_or("");
    v["error"]["code"] == -32603 && (status == 503 || message.contains("task store"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_instance_died_fails_on_the_others_and_live_ones_run_on() {
    let Some(mut cluster) = Cluster::start("lease", 3) else {
        return;
    };
    let url = cluster.url.clone();
    let (sid, _) = init(&url).await;
    let (doomed, ran_on) = start_task(&url, &sid, 3).await;
    // A second task on another instance (round-robin: the next call lands elsewhere).
    let mut n = 4;
    let (kept, kept_on) = loop {
        let (t, on) = start_task(&url, &sid, n).await;
        n += 1;
        if on != ran_on {
            break (t, on);
        }
    };
    let third = cluster
        .instances
        .iter()
        .find(|i| {
            let p = i.port.to_string();
            p != port_of(&ran_on) && p != port_of(&kept_on)
        })
        .map(Cluster::direct_url)
        .expect("a third instance");
    let kept_url = Cluster::direct_url(cluster.instance_at(&kept_on));

    // The instance that runs the first task dies, and Redis restarts while nobody can tell yet.
    cluster.instance_at(&ran_on).proc.take();
    let killed = Instant::now();
    cluster.stop_redis();
    for i in 0..3 {
        let r = post(
            &url,
            &request(10 + i, "tasks/get", json!({"taskId": doomed})),
            Some(&sid),
            &[],
        )
        .await;
        let (status, v, _) = answer(r).await;
        assert!(store_down(status, &v), "status {status}: {v}");
    }
    cluster.start_redis();

    // A tasks/result waiting on a live instance is woken by the failure.
    let waiter = {
        let (third, sid, doomed) = (third.clone(), sid.clone(), doomed.clone());
        tokio::spawn(async move {
            loop {
                let r = post(
                    &third,
                    &request(20, "tasks/result", json!({"taskId": doomed})),
                    Some(&sid),
                    &[],
                )
                .await;
                let (status, v, _) = answer(r).await;
                if !store_down(status, &v) {
                    return v;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    // Polled through nginx (the dead instance is skipped) until it has failed.
    let until = Instant::now() + Duration::from_secs(30);
    let failed = loop {
        n += 1;
        let r = post(
            &url,
            &request(n, "tasks/get", json!({"taskId": doomed})),
            Some(&sid),
            &[],
        )
        .await;
        let (status, v, _) = answer(r).await;
        assert!(Instant::now() < until, "never failed: {v}");
        if store_down(status, &v) {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        assert_eq!(status, 200, "{v}");
        match v["result"]["status"].as_str() {
            Some("working") => tokio::time::sleep(Duration::from_millis(200)).await,
            Some("failed") => break v,
            _ => panic!("neither working nor failed: {v}"),
        }
    };
    let message = failed["result"]["statusMessage"].as_str().unwrap_or("");
    assert!(
        message.contains("server instance that ran this task") && message.contains("stopped"),
        "{failed}"
    );
    eprintln!(
        "a dead instance's task failed {:.1} s after the kill (Redis restarted in between)",
        killed.elapsed().as_secs_f64()
    );
    let v = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("tasks/result was woken")
        .unwrap();
    assert_eq!(v["error"]["code"], -32603, "{v}");
    assert_eq!(v["error"]["data"]["reason"], "instance_stopped", "{v}");
    assert_eq!(v["error"]["message"].as_str(), Some(message), "{v}");

    // The live instance's task was never failed: still working, cancelled from another instance.
    let r = post(
        &third,
        &request(90, "tasks/get", json!({"taskId": kept})),
        Some(&sid),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!(
        (status, v["result"]["status"].as_str()),
        (200, Some("working")),
        "{v}"
    );
    let r = post(
        &third,
        &request(91, "tasks/cancel", json!({"taskId": kept})),
        Some(&sid),
        &[],
    )
    .await;
    let (status, v, _) = answer(r).await;
    assert_eq!(
        (status, v["result"]["status"].as_str()),
        (200, Some("cancelled")),
        "{v}"
    );
    let r = post(
        &kept_url,
        &request(92, "tasks/get", json!({"taskId": kept})),
        Some(&sid),
        &[],
    )
    .await;
    let (_, v, _) = answer(r).await;
    assert_eq!(v["result"]["status"], "cancelled", "{v}");
    // A cancel of the failed task is refused as for any ended task.
    let r = post(
        &url,
        &request(93, "tasks/cancel", json!({"taskId": doomed})),
        Some(&sid),
        &[],
    )
    .await;
    let (_, v, _) = answer(r).await;
    assert_eq!(v["error"]["code"], -32602, "{v}");

    // Exactly one instance failed it, though several polled; the survivors never crashed.
    let mut times = 0;
    for inst in &mut cluster.instances {
        let Some(p) = inst.proc.as_mut() else {
            continue;
        };
        assert!(
            p.alive(),
            "an instance died; logs in {}",
            inst.log.display()
        );
        let text = std::fs::read_to_string(&inst.log).unwrap_or_default();
        assert!(!text.contains("panicked"), "{text}");
        times += text
            .lines()
            .filter(|l| {
                l.contains("task failed: the instance that ran it stopped") && l.contains(&doomed)
            })
            .count();
    }
    assert_eq!(times, 1, "the task was failed {times} times");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_lease_fails_a_dead_instances_task_once_and_nothing_else() {
    use mcp_runtime::protocol::TaskStatus;
    use mcp_runtime::scale::redis::{Heartbeat, RedisConfig, RedisStores};
    use mcp_runtime::server::tasks::{
        TaskEra, TaskOutcome, TaskRecord, TaskStore, TaskUpdate, Updated,
    };

    let Some(cluster) = Cluster::start("lease-store", 1) else {
        return;
    };
    let mut config = RedisConfig::new(format!("redis://127.0.0.1:{}", cluster.redis_port));
    config.prefix = "lease:".into();
    config.heartbeat = Some(Heartbeat {
        every: Duration::from_millis(100),
        ttl: Duration::from_millis(500),
    });
    let store = RedisStores::connect(config).await.unwrap().tasks;
    let me = store
        .instance()
        .expect("a leased store names its instance")
        .to_string();
    // A verdict waits for Redis to have been up for a TTL.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let record = |id: &str, instance: Option<&str>| TaskRecord {
        id: id.into(),
        owner: "o".into(),
        era: TaskEra::Extension,
        tool: "t".into(),
        status: TaskStatus::Working,
        status_message: None,
        created_at_ms: now,
        last_updated_at_ms: now,
        ttl_ms: 60_000,
        poll_interval_ms: 500,
        input_requests: Default::default(),
        outcome: None,
        instance: instance.map(str::to_string),
    };
    let fail = || TaskUpdate::Finish {
        status: TaskStatus::Failed,
        outcome: TaskOutcome::Error(mcp_runtime::protocol::ErrorObject::internal("stopped")),
        message: Some("stopped".into()),
    };
    let (ghost, live, plain, done) = (
        record("ghost", Some("gone")),
        record("live", Some(&me)),
        record("plain", None),
        record("done", Some("gone")),
    );
    for r in [&ghost, &live, &plain, &done] {
        store.create(r.clone()).await.unwrap();
    }
    // A live instance's task, and one that names no instance, are left alone.
    assert_eq!(store.update_orphan(&live, fail(), now).await.unwrap(), None);
    assert_eq!(
        store.update_orphan(&plain, fail(), now).await.unwrap(),
        None
    );
    // A task that ended meanwhile keeps its end, though the caller saw it working.
    let completed = TaskUpdate::Finish {
        status: TaskStatus::Completed,
        outcome: TaskOutcome::Result(serde_json::value::to_raw_value(&json!({})).unwrap()),
        message: None,
    };
    store.update("done", completed, now + 1).await.unwrap();
    match store.update_orphan(&done, fail(), now + 2).await.unwrap() {
        Some(Updated::Task { record, changed }) => {
            assert!(!changed);
            assert_eq!(record.status, TaskStatus::Completed);
        }
        other => panic!("{other:?}"),
    }
    // Eight pollers at once: one fails it, the others see it failed.
    let tries = (0..8).map(|_| store.update_orphan(&ghost, fail(), now + 3));
    let results = futures_util::future::join_all(tries).await;
    let mut changed = 0;
    for r in results {
        match r.unwrap() {
            Some(Updated::Task { record, changed: c }) => {
                assert_eq!(record.status, TaskStatus::Failed);
                changed += usize::from(c);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(changed, 1);
    let r = store.get("ghost").await.unwrap().unwrap();
    assert_eq!(
        (r.status, r.status_message.as_deref()),
        (TaskStatus::Failed, Some("stopped"))
    );
    assert_eq!(
        store.get("live").await.unwrap().unwrap().status,
        TaskStatus::Working
    );
    // The heartbeat is kept alive past its TTL.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        store.update_orphan(&live, fail(), now + 4).await.unwrap(),
        None
    );
}
