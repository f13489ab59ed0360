//! The shared-store hooks without any external component: two HTTP services in one process share
//! `SharedStores::memory()` (and one task store), and a session begun on one is served by the other,
//! its SSE stream resumed there, its log level and its end seen by both; a 2026-07-28 task's input
//! answered on the service that does not run it; a quick answer whose event is logged first still sent
//! as one body, and an event whose write failed never sent.

use crate::http_support;

use http_support::*;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::protocol::{CallToolResult, ElicitParams, TaskSupport, Tool};
use mcp_runtime::scale::{
    Bus, BusMessage, EventStore, MemoryBus, MemoryEventStore, Replay, SharedStores, StoreError,
    StreamEvent,
};
use mcp_runtime::server::{Arguments, MemoryTaskStore, TaskStore, ToolRoute};
use mcp_runtime::Context;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A bus that delivers each message 100 ms after it is published, as a busy Redis may: what an
/// instance acknowledges must not depend on how fast the others hear of it.
#[derive(Default)]
struct LateBus(Arc<MemoryBus>);

impl Bus for LateBus {
    fn publish<'a>(
        &'a self,
        message: &'a BusMessage,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), StoreError>> + Send + 'a>>
    {
        let (bus, message) = (self.0.clone(), message.clone());
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            bus.publish(&message).await
        });
        Box::pin(async { Ok(()) })
    }
    fn subscribe(&self) -> tokio::sync::broadcast::Receiver<BusMessage> {
        self.0.subscribe()
    }
}

async fn pair() -> (Running, Running) {
    let shared = SharedStores {
        bus: Arc::new(LateBus::default()),
        ..SharedStores::memory()
    };
    let tasks: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::default());
    let config = HttpConfig {
        shared: Some(shared),
        ..Default::default()
    };
    let a = start(
        test_server_builder()
            .tool(two_questions())
            .task_store(tasks.clone())
            .build()
            .unwrap(),
        config.clone(),
    )
    .await;
    let b = start(
        test_server_builder()
            .tool(two_questions())
            .task_store(tasks)
            .build()
            .unwrap(),
        config,
    )
    .await;
    (a, b)
}

/// A task tool that becomes a task, asks `first` and `second` at once and answers with both actions.
fn two_questions() -> ToolRoute {
    let form = || {
        ElicitParams::form(
            "Go?",
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})
                .as_object()
                .unwrap()
                .clone(),
        )
    };
    let schema = json!({"type": "object"}).as_object().unwrap().clone();
    ToolRoute::new(
        Tool::new("two_questions", "Asks two questions at once", schema),
        move |_: Arguments, ctx: Context| async move {
            ctx.continue_as_task().await;
            let (a, b) = tokio::join!(
                ctx.input("first").elicit(form()),
                ctx.input("second").elicit(form())
            );
            Ok(CallToolResult::text(format!(
                "{:?} {:?}",
                a.map(|r| r.action),
                b.map(|r| r.action)
            )))
        },
    )
    .task(TaskSupport::Required)
}

/// A 2026-07-28 request's params that declare elicitation and the tasks extension.
fn with_tasks(mut params: Value) -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    params["_meta"] = m;
    params
}

/// The result of a 2026-07-28 request that declares the tasks extension; any error fails the test.
async fn result26(url: &str, method: &str, params: Value) -> Value {
    let (status, v) = json_of(post26(url, method, with_tasks(params), &[]).await).await;
    assert_eq!(status, 200, "{method}: {v}");
    assert!(v["error"].is_null(), "{method}: {v}");
    v["result"].clone()
}

/// The task as `tasks/get` on `url` shows it once `done` accepts it (or after 2.5 s, as it is then).
async fn task_when(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut t = Value::Null;
    for _ in 0..500 {
        t = result26(url, "tasks/get", json!({"taskId": id})).await;
        if done(&t) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    t
}

/// The acknowledgement of a `tasks/update` that reached the service not running the task means what
/// it means on the one that runs it: the next `tasks/get`, on either service, no longer lists the
/// answered key (the conformance suite's partial fulfillment, through a load balancer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_input_answered_on_another_service_is_taken_before_the_acknowledgement() {
    let (a, b) = pair().await;
    let accept = json!({"action": "accept", "content": {"ok": true}});
    for round in 0..5 {
        let t = result26(&a.url(), "tools/call", json!({"name": "two_questions"})).await;
        assert_eq!(t["resultType"], "task", "{t}");
        let id = t["taskId"].as_str().unwrap().to_string();
        let asked = task_when(&b.url(), &id, |t| {
            t["inputRequests"].as_object().is_some_and(|m| m.len() == 2)
        })
        .await;
        assert_eq!(asked["status"], "input_required", "{asked}");

        let answer = json!({"taskId": id, "inputResponses": {"first": accept}});
        result26(&b.url(), "tasks/update", answer).await;
        let url = if round % 2 == 0 { b.url() } else { a.url() };
        let now = result26(&url, "tasks/get", json!({"taskId": id})).await;
        assert_eq!(now["status"], "input_required", "round {round}: {now}");
        let keys: Vec<&String> = now["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["second"], "round {round}: {now}");

        let answer = json!({"taskId": id, "inputResponses": {"second": accept}});
        result26(&b.url(), "tasks/update", answer).await;
        let done = task_when(&a.url(), &id, |t| t["status"] == "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "Ok(Accept) Ok(Accept)",
            "{done}"
        );
    }
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
    let mut g = resume_after(&b.url(), &sid, &id).await;
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

/// An event log that takes 2 ms a write, as a round trip to a store on another machine may, and fails
/// every write while `fail` is set.
struct Faulty {
    inner: MemoryEventStore,
    fail: AtomicBool,
}

impl Default for Faulty {
    fn default() -> Self {
        Faulty {
            inner: MemoryEventStore::new(256, 4096),
            fail: AtomicBool::new(false),
        }
    }
}

type StoreFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, StoreError>> + Send + 'a>>;

impl EventStore for Faulty {
    fn append<'a>(&'a self, events: &'a [StreamEvent], ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(2)).await;
            if self.fail.load(Ordering::SeqCst) {
                return Err(StoreError::Backend("injected write failure".into()));
            }
            self.inner.append(events, ttl).await
        })
    }
    fn after<'a>(&'a self, session: &'a str, stream: u64, after: u64) -> StoreFuture<'a, Replay> {
        self.inner.after(session, stream, after)
    }
    fn delete_session<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        self.inner.delete_session(session)
    }
}

/// One service whose event log is `events`.
async fn serving_with(events: Arc<dyn EventStore>) -> Running {
    let config = HttpConfig {
        shared: Some(SharedStores {
            events,
            ..SharedStores::memory()
        }),
        ..Default::default()
    };
    start(test_server_builder().build().unwrap(), config).await
}

/// An event's stream and its position in it, from its id (`<stream>-<position>`).
fn stream_and_position(e: &RawEvent) -> (u64, u64) {
    let id = e.id.as_deref().expect("an event id");
    let (stream, position) = id.split_once('-').expect("<stream>-<position>");
    (stream.parse().unwrap(), position.parse().unwrap())
}

#[tokio::test]
async fn a_quick_answer_waits_for_its_logged_event_and_goes_out_as_one_body() {
    // Every write to the log takes 2 ms, as a round trip to a store on another machine may.
    let below = Arc::new(Faulty::default());
    let a = serving_with(below.clone()).await;
    let sid = init_session(&a.url()).await;
    let debug = json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "debug"}});
    let (status, _) = json_of(post(&a.url(), &debug.to_string(), Some(&sid), &[]).await).await;
    assert_eq!(status, 200);

    // Quick: the priming event and the answer in one body (its length known), the answer logged.
    let mut r = post(
        &a.url(),
        &call(10, "echo", json!({"text": "hi"})),
        Some(&sid),
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers().get("content-length").is_some(),
        "a quick answer was streamed: {:?}",
        r.headers()
    );
    let events = read_events(&mut r, |_| false).await;
    let answer = events.iter().find(|e| e.is_response()).expect("the answer");
    assert_eq!(answer.json()["result"]["content"][0]["text"], "hi");
    let (stream, _) = stream_and_position(answer);
    let logged = below.inner.after(&sid, stream, 0).await.unwrap();
    assert!(logged.finished, "{logged:?}");
    assert_eq!(logged.events.len(), 1, "{logged:?}");

    // Slow (three log messages 40 ms apart): streamed as it goes, each event after the one before.
    let mut r = post(
        &a.url(),
        &call(11, "slow", json!({"ms": 40, "steps": 3})),
        Some(&sid),
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers().get("content-length").is_none(),
        "{:?}",
        r.headers()
    );
    let events = read_events(&mut r, |e| e.iter().any(RawEvent::is_response)).await;
    let sent: Vec<&RawEvent> = events.iter().filter(|e| !e.data.is_empty()).collect();
    assert_eq!(sent.len(), 4, "{events:?}");
    assert!(sent[3].is_response(), "{events:?}");
    let positions: Vec<u64> = sent.iter().map(|e| stream_and_position(e).1).collect();
    assert_eq!(positions, vec![1, 2, 3, 4], "{events:?}");
}

#[tokio::test]
async fn an_event_whose_write_failed_is_not_sent_and_the_client_resumes() {
    let below = Arc::new(Faulty::default());
    let a = serving_with(below.clone()).await;
    let sid = init_session(&a.url()).await;

    below.fail.store(true, Ordering::SeqCst);
    let mut r = post(
        &a.url(),
        &call(10, "echo", json!({"text": "hi"})),
        Some(&sid),
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    // Read to the end: the stream ends without the answer its write failed to store.
    let events = read_events(&mut r, |_| false).await;
    assert!(
        !events.iter().any(|e| !e.data.is_empty()),
        "an event was sent before it was stored: {events:?}"
    );
    let priming = events
        .iter()
        .find(|e| e.id.is_some())
        .expect("the priming event");
    let primed = priming.id.clone().unwrap();
    let (stream, _) = stream_and_position(priming);
    assert!(below
        .inner
        .after(&sid, stream, 0)
        .await
        .unwrap()
        .events
        .is_empty());

    // The client resumes from what it has; the instance still holds the answer.
    below.fail.store(false, Ordering::SeqCst);
    let mut g = resume_after(&a.url(), &sid, &primed).await;
    let rest = read_events(&mut g, |e| e.iter().any(RawEvent::is_response)).await;
    let answer = rest.iter().find(|e| e.is_response()).expect("the answer");
    assert_eq!(answer.json()["id"], 10);
    assert_eq!(answer.json()["result"]["content"][0]["text"], "hi");

    // Later events are written, then sent, again.
    let (status, v) = json_of(
        post(
            &a.url(),
            &call(11, "echo", json!({"text": "again"})),
            Some(&sid),
            &[],
        )
        .await,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(v["result"]["content"][0]["text"], "again", "{v}");
}
