//! Tasks on the wire, in process: a server on a byte pipe (as on stdio) driven line by line, in both
//! eras. Each bad input gets the spec's answer and is followed by a request that still works.

use mcp_runtime::connection::{self, Peer};
use mcp_runtime::protocol::*;
use mcp_runtime::server::{Arguments, MemoryTaskStore, TaskConfig, TaskLimits, ToolRoute};
use mcp_runtime::{Context, Server, ServerBuilder};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines, ReadHalf, WriteHalf};

const TASKS_EXT: &str = "io.modelcontextprotocol/tasks";

/// One end of a server connection, spoken in JSON lines; what is not asked for yet waits in `backlog`.
struct Wire {
    w: WriteHalf<tokio::io::DuplexStream>,
    r: Lines<BufReader<ReadHalf<tokio::io::DuplexStream>>>,
    backlog: VecDeque<Value>,
    next_id: i64,
}

impl Wire {
    fn connect(server: &Server, principal: Option<&str>) -> Wire {
        let (a, b) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(a);
        let (peer, rx) = Peer::new(server.connection_config().clone());
        let handler = server.session_handler_for(peer.clone(), principal.map(str::to_string));
        tokio::spawn(connection::run(sr, sw, peer, rx, handler));
        let (r, w) = tokio::io::split(b);
        Wire {
            w,
            r: BufReader::new(r).lines(),
            backlog: VecDeque::new(),
            next_id: 100,
        }
    }

    async fn send(&mut self, v: Value) {
        let mut line = serde_json::to_vec(&v).unwrap();
        line.push(b'\n');
        self.w.write_all(&line).await.unwrap();
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.r.next_line())
            .await
            .expect("a message within 10 s")
            .unwrap()
            .expect("the connection is open");
        serde_json::from_str(&line).unwrap()
    }

    /// The first message (waiting or new) that `want` accepts.
    async fn until(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&want) {
            return self.backlog.remove(i).unwrap();
        }
        loop {
            let v = self.read().await;
            if want(&v) {
                return v;
            }
            self.backlog.push_back(v);
        }
    }

    /// Sends a request; its response.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.until(|v| v["id"] == json!(id) && v.get("method").is_none())
            .await
    }

    async fn result(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params).await;
        assert!(r.get("result").is_some(), "{method}: {r}");
        r["result"].clone()
    }

    async fn error(&mut self, method: &str, params: Value, code: i64) -> Value {
        let r = self.request(method, params).await;
        assert_eq!(r["error"]["code"], json!(code), "{method}: {r}");
        r["error"].clone()
    }

    async fn initialize(&mut self) -> Value {
        self.initialize_as("2025-11-25").await
    }

    async fn initialize_as(&mut self, version: &str) -> Value {
        let r = self
            .request(
                "initialize",
                json!({"protocolVersion": version, "clientInfo": {"name": "t", "version": "1"},
                    "capabilities": {"elicitation": {}}}),
            )
            .await;
        assert_eq!(r["result"]["protocolVersion"], version);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        r["result"].clone()
    }

    /// A task-augmented call (2025-11-25); the task's id.
    async fn start_task(&mut self, tool: &str, args: Value, task: Value) -> String {
        let created = self
            .result(
                "tools/call",
                json!({"name": tool, "arguments": args, "task": task}),
            )
            .await;
        created["task"]["taskId"].as_str().unwrap().to_string()
    }

    /// `work{ms}` as a task (2025-11-25); the task's id.
    async fn start_work(&mut self, ms: u64) -> String {
        self.start_task("work", json!({"ms": ms}), json!({})).await
    }

    /// A request that must still work after each bad input.
    async fn still_serving(&mut self) {
        let r = self
            .result("tools/call", json!({"name": "quick", "arguments": {}}))
            .await;
        assert_eq!(r["content"][0]["text"], "ok");
    }

    /// The same, in 2026-07-28.
    async fn still_serving_modern(&mut self) {
        let r = self
            .result("tools/call", modern(json!({"name": "quick"}), true))
            .await;
        assert_eq!(r["content"][0]["text"], "ok");
        assert_eq!(r["resultType"], "complete");
    }
}

/// `params` as a 2026-07-28 request, declaring the tasks extension or not.
fn modern(mut params: Value, tasks: bool) -> Value {
    let caps = if tasks {
        json!({"elicitation": {}, "extensions": {TASKS_EXT: {}}})
    } else {
        json!({"elicitation": {}})
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    });
    params
}

#[derive(Default)]
struct Counters {
    /// Handler runs of `ask` and `compose`.
    runs: AtomicUsize,
    /// `work` handlers dropped before they finished.
    dropped: AtomicUsize,
}

struct CountDrop(Arc<Counters>, bool);
impl Drop for CountDrop {
    fn drop(&mut self) {
        if !self.1 {
            self.0.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn schema() -> JsonObject {
    json!({"type": "object"}).as_object().unwrap().clone()
}

fn route(name: &str, h: impl mcp_runtime::server::ToolHandler) -> ToolRoute {
    ToolRoute::new(Tool::new(name, format!("The {name} tool"), schema()), h)
}

fn form(message: &str) -> ElicitParams {
    ElicitParams::form(
        message,
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})
            .as_object()
            .unwrap()
            .clone(),
    )
}

fn server(counters: &Arc<Counters>, store: Option<Arc<MemoryTaskStore>>) -> ServerBuilder {
    let (c1, c2, c3) = (counters.clone(), counters.clone(), counters.clone());
    let mut b = Server::builder()
        .task_config(TaskConfig {
            immediate_window: Duration::from_millis(100),
            poll_interval: Duration::from_millis(20),
            sweep_interval: Duration::from_millis(20),
            ..TaskConfig::default()
        })
        .tool(route("quick", |_: Arguments, _: Context| async {
            Ok(CallToolResult::text("ok"))
        }))
        .tool(
            route("work", move |a: Arguments, _: Context| {
                let c = c1.clone();
                async move {
                    let ms = a
                        .parse::<Value>()
                        .ok()
                        .and_then(|v| v["ms"].as_u64())
                        .unwrap_or(0);
                    let mut guard = CountDrop(c, false);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    guard.1 = true;
                    Ok(CallToolResult::text(format!("worked {ms} ms")))
                }
            })
            .task(TaskSupport::Optional),
        )
        .tool(
            route("must", |_: Arguments, _: Context| async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(CallToolResult::text("done"))
            })
            .task(TaskSupport::Required),
        )
        .tool(
            route("fails", |_: Arguments, _: Context| async {
                Ok(CallToolResult::error("bad input"))
            })
            .task(TaskSupport::Optional),
        )
        .tool(
            route("ask", move |_: Arguments, ctx: Context| {
                let c = c2.clone();
                async move {
                    c.runs.fetch_add(1, Ordering::SeqCst);
                    ctx.continue_as_task().await;
                    ctx.progress(1.0, None, Some("asking".into())).await;
                    let r = ctx.input("confirm").elicit(form("Go?")).await;
                    Ok(CallToolResult::text(match r {
                        Ok(r) => format!(
                            "answer: {:?} {}",
                            r.action,
                            r.content.map(|c| c["ok"].clone()).unwrap_or_default()
                        ),
                        Err(e) => format!("no answer: {e}"),
                    }))
                }
            })
            .task(TaskSupport::Optional),
        )
        .tool(
            route("compose", move |_: Arguments, ctx: Context| {
                let c = c3.clone();
                async move {
                    c.runs.fetch_add(1, Ordering::SeqCst);
                    let first = ctx.input("first").elicit(form("First?")).await;
                    ctx.continue_as_task().await;
                    let second = ctx.input("second").elicit(form("Second?")).await;
                    let again = ctx.input("first").elicit(form("First again?")).await;
                    Ok(CallToolResult::text(format!(
                        "{:?} {:?} {:?}",
                        first.map(|r| r.action),
                        second.map(|r| r.action),
                        again.map(|r| r.action)
                    )))
                }
            })
            .task(TaskSupport::Required),
        );
    if let Some(s) = store {
        b = b.task_store(s);
    }
    b
}

/// The test server, and an initialized handshake-era connection to it.
async fn handshake(store: Option<Arc<MemoryTaskStore>>) -> (Arc<Counters>, Server, Wire) {
    let counters = Arc::new(Counters::default());
    let s = server(&counters, store).build().unwrap();
    let mut w = Wire::connect(&s, None);
    w.initialize().await;
    (counters, s, w)
}

/// Waits (up to 5 s) until `done` holds.
async fn eventually(done: impl Fn() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn wait_status(w: &mut Wire, id: &str, status: &str, extension: bool) -> Value {
    for _ in 0..400 {
        let params = json!({"taskId": id});
        let t = if extension {
            w.result("tasks/get", modern(params, true)).await
        } else {
            w.result("tasks/get", params).await
        };
        if t["status"] == status {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never reached {status}");
}

// ---- 2025-11-25 ----

#[tokio::test]
async fn a_task_augmented_call_answers_a_task_then_its_result_with_the_related_task() {
    let (_counters, s, mut w) = handshake(None).await;
    let caps = s.capabilities();
    assert_eq!(
        serde_json::to_value(&caps.tasks).unwrap(),
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    assert!(caps.extensions.is_none(), "the extension is for 2026-07-28");
    let tools = w.result("tools/list", json!({})).await;
    let work = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "work")
        .unwrap();
    assert_eq!(work["execution"], json!({"taskSupport": "optional"}));

    let created = w
        .result(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 200}, "task": {"ttl": 60000}, "_meta": {"progressToken": "p1"}}),
        )
        .await;
    let task = &created["task"];
    let id = task["taskId"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 32, "128 random bits");
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60000);
    assert!(task["pollInterval"].is_u64());
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));

    let got = w.result("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["taskId"], json!(id));
    assert!(
        got.get("_meta").is_none(),
        "tasks/get carries no related-task meta"
    );
    let listed = w.result("tasks/list", json!({})).await;
    assert_eq!(listed["tasks"][0]["taskId"], json!(id));

    // tasks/result blocks until the task ends.
    let result = w.result("tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["content"][0]["text"], "worked 200 ms");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"],
        json!({"taskId": id})
    );
    let done = w.result("tasks/get", json!({"taskId": id})).await;
    assert_eq!(done["status"], "completed");
    let note = w
        .until(|v| {
            v["method"] == "notifications/tasks/status" && v["params"]["status"] == "completed"
        })
        .await;
    assert_eq!(note["params"]["taskId"], json!(id));
    // A direct call of the same tool is still a direct call.
    let direct = w
        .result(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 1}}),
        )
        .await;
    assert_eq!(direct["content"][0]["text"], "worked 1 ms");
}

#[tokio::test]
async fn handshake_bad_inputs_get_the_spec_errors_and_the_session_goes_on() {
    let (_counters, _s, mut w) = handshake(None).await;

    let e = w
        .error("tasks/get", json!({"taskId": "nope"}), -32602)
        .await;
    assert!(e["message"].as_str().unwrap().contains("not found"), "{e}");
    w.still_serving().await;
    w.error("tasks/result", json!({"taskId": "nope"}), -32602)
        .await;
    w.still_serving().await;
    w.error("tasks/cancel", json!({"taskId": "nope"}), -32602)
        .await;
    w.still_serving().await;
    w.error("tasks/get", json!({}), -32602).await;
    w.still_serving().await;
    w.error("tasks/list", json!({"cursor": "bogus"}), -32602)
        .await;
    w.still_serving().await;

    // taskSupport: forbidden with a task, required without one: -32601.
    let e = w
        .error("tools/call", json!({"name": "quick", "task": {}}), -32601)
        .await;
    assert!(e["message"].as_str().unwrap().contains("forbidden"), "{e}");
    w.still_serving().await;
    let e = w.error("tools/call", json!({"name": "must"}), -32601).await;
    assert!(e["message"].as_str().unwrap().contains("required"), "{e}");
    w.still_serving().await;
    w.error(
        "tools/call",
        json!({"name": "work", "task": {"ttl": "soon"}}),
        -32602,
    )
    .await;
    w.still_serving().await;

    // Cancelling a finished task: -32602, and it stays completed.
    let id = w.start_work(0).await;
    w.result("tasks/result", json!({"taskId": id})).await;
    let e = w.error("tasks/cancel", json!({"taskId": id}), -32602).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("terminal status 'completed'"),
        "{e}"
    );
    assert_eq!(
        w.result("tasks/get", json!({"taskId": id})).await["status"],
        "completed"
    );
    w.still_serving().await;

    // 2026-07-28 methods that 2025-11-25 does not have.
    w.error(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {}}),
        -32601,
    )
    .await;
    w.still_serving().await;
}

#[tokio::test]
async fn a_session_of_an_older_version_knows_no_tasks() {
    let counters = Arc::new(Counters::default());
    let s = server(&counters, None).build().unwrap();
    let mut w = Wire::connect(&s, None);
    let init = w.initialize_as("2025-06-18").await;
    assert!(init["capabilities"].get("tasks").is_none(), "{init}");
    // `task` is an unknown field there: the call is a direct one.
    let r = w
        .result(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 1}, "task": {}}),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "worked 1 ms");
    // A tool that needs a task elsewhere is a direct call for a client that knows none.
    let r = w.result("tools/call", json!({"name": "must"})).await;
    assert_eq!(r["content"][0]["text"], "done");
    w.error("tasks/get", json!({"taskId": "x"}), -32601).await;
    w.still_serving().await;
}

#[tokio::test]
async fn a_task_of_another_session_or_principal_is_not_found() {
    let counters = Arc::new(Counters::default());
    let s = server(&counters, None).build().unwrap();
    let mut alice = Wire::connect(&s, None);
    alice.initialize().await;
    let mut bob = Wire::connect(&s, None);
    bob.initialize().await;
    let id = alice.start_work(5000).await;
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let e = bob.error(method, json!({"taskId": id}), -32602).await;
        assert!(e["message"].as_str().unwrap().contains("not found"), "{e}");
        bob.still_serving().await;
    }
    assert!(bob.result("tasks/list", json!({})).await["tasks"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(
        alice.result("tasks/get", json!({"taskId": id})).await["status"],
        "working"
    );

    // Authenticated connections: the principal owns the task, whatever the connection.
    let mut p1 = Wire::connect(&s, Some("carol"));
    p1.initialize().await;
    let id = p1.start_work(5000).await;
    let mut p2 = Wire::connect(&s, Some("carol"));
    p2.initialize().await;
    assert_eq!(
        p2.result("tasks/get", json!({"taskId": id})).await["status"],
        "working"
    );
    let mut dave = Wire::connect(&s, Some("dave"));
    dave.initialize().await;
    dave.error("tasks/get", json!({"taskId": id}), -32602).await;
    dave.still_serving().await;
    // The principal's task is also reachable in 2026-07-28, and another principal's is not.
    let got = p2
        .result("tasks/get", modern(json!({"taskId": id}), true))
        .await;
    assert_eq!(got["status"], "working");
    dave.error("tasks/get", modern(json!({"taskId": id}), true), -32602)
        .await;
    dave.still_serving_modern().await;
}

#[tokio::test]
async fn input_inside_a_task_travels_on_the_tasks_result_stream_tagged_with_the_task() {
    let (counters, _s, mut w) = handshake(None).await;
    let created = w
        .result(
            "tools/call",
            json!({"name": "ask", "task": {}, "_meta": {"progressToken": 7}}),
        )
        .await;
    let id = created["task"]["taskId"].as_str().unwrap().to_string();
    wait_status(&mut w, &id, "input_required", false).await;
    // Progress from a task keeps the request's token and names the task.
    let progress = w.until(|v| v["method"] == "notifications/progress").await;
    assert_eq!(progress["params"]["progressToken"], 7);
    assert_eq!(
        progress["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        json!(id)
    );

    // The client sees input_required and calls tasks/result: the elicitation arrives then.
    w.next_id += 1;
    let result_id = w.next_id;
    w.send(json!({"jsonrpc": "2.0", "id": result_id, "method": "tasks/result", "params": {"taskId": id}}))
        .await;
    let ask = w.until(|v| v["method"] == "elicitation/create").await;
    assert_eq!(ask["params"]["message"], "Go?");
    assert_eq!(
        ask["params"]["_meta"]["io.modelcontextprotocol/related-task"],
        json!({"taskId": id})
    );
    w.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"ok": true}}}))
        .await;
    let result = w.until(|v| v["id"] == json!(result_id)).await;
    assert_eq!(
        result["result"]["content"][0]["text"],
        "answer: Accept true"
    );
    assert_eq!(
        counters.runs.load(Ordering::SeqCst),
        1,
        "the handler waited; it was not re-run"
    );
    assert_eq!(
        w.result("tasks/get", json!({"taskId": id})).await["status"],
        "completed"
    );
}

#[tokio::test]
async fn cancelling_a_running_task_stops_its_handler_and_leaves_no_result() {
    let (counters, _s, mut w) = handshake(None).await;
    let id = w.start_work(60000).await;
    let cancelled = w.result("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["taskId"], json!(id));
    let e = w.error("tasks/result", json!({"taskId": id}), -32602).await;
    assert!(e["message"].as_str().unwrap().contains("cancelled"), "{e}");
    eventually(|| counters.dropped.load(Ordering::SeqCst) == 1).await;
    assert_eq!(
        counters.dropped.load(Ordering::SeqCst),
        1,
        "the handler was stopped"
    );
    w.error("tasks/cancel", json!({"taskId": id}), -32602).await;
    w.still_serving().await;

    // A tool error fails a 2025-11-25 task; tasks/result still returns the tool's result.
    let id = w.start_task("fails", json!({}), json!({})).await;
    let r = w.result("tasks/result", json!({"taskId": id})).await;
    assert_eq!(r["isError"], true);
    let t = w.result("tasks/get", json!({"taskId": id})).await;
    assert_eq!(t["status"], "failed");
    assert_eq!(t["statusMessage"], "bad input");
}

#[tokio::test]
async fn expired_tasks_are_deleted_and_running_ones_stopped() {
    let store = Arc::new(MemoryTaskStore::default());
    let (counters, _s, mut w) = handshake(Some(store.clone())).await;
    let finished = w
        .start_task("work", json!({"ms": 0}), json!({"ttl": 150}))
        .await;
    let running = w
        .start_task("work", json!({"ms": 60000}), json!({"ttl": 150}))
        .await;
    let ttl = w.result("tasks/get", json!({"taskId": running})).await["ttl"].clone();
    assert_eq!(ttl, 150, "the client's ttl is kept within the bounds");
    let kept = w
        .start_task("work", json!({"ms": 0}), json!({"ttl": 600000}))
        .await;
    assert_eq!(store.len(), 3);
    eventually(|| store.len() == 1).await;
    assert_eq!(store.len(), 1, "the two expired tasks were deleted");
    for id in [&finished, &running] {
        let e = w.error("tasks/get", json!({"taskId": id}), -32602).await;
        assert!(e["message"].as_str().unwrap().contains("not found"), "{e}");
        w.still_serving().await;
    }
    let status = w.result("tasks/get", json!({"taskId": kept})).await["status"].clone();
    assert_eq!(status, "completed");
    eventually(|| counters.dropped.load(Ordering::SeqCst) == 1).await;
    assert_eq!(
        counters.dropped.load(Ordering::SeqCst),
        1,
        "the expired running task was stopped"
    );
}

#[tokio::test]
async fn a_full_store_refuses_new_tasks_with_a_clear_error_until_room_is_made() {
    let store = Arc::new(MemoryTaskStore::new(TaskLimits {
        max_active_per_owner: 2,
        ..TaskLimits::default()
    }));
    let (_counters, s, mut w) = handshake(Some(store)).await;
    let first = w.start_work(60000).await;
    w.start_work(60000).await;
    let e = w
        .error(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 1}, "task": {}}),
            -32603,
        )
        .await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("no room for another task"),
        "{e}"
    );
    assert_eq!(e["data"]["limit"], 2);
    w.still_serving().await;
    // Another client is not held back by this one's tasks.
    let mut other = Wire::connect(&s, None);
    other.initialize().await;
    other.start_work(1).await;
    // The same in 2026-07-28, for the anonymous owner: two unfinished, then full.
    for _ in 0..2 {
        let t = w
            .result(
                "tools/call",
                modern(json!({"name": "work", "arguments": {"ms": 60000}}), true),
            )
            .await;
        assert_eq!(t["resultType"], "task");
    }
    w.error(
        "tools/call",
        modern(json!({"name": "work", "arguments": {"ms": 60000}}), true),
        -32603,
    )
    .await;
    w.still_serving_modern().await;
    // Cancelling one makes room.
    w.result("tasks/cancel", json!({"taskId": first})).await;
    w.start_work(1).await;
}

#[tokio::test]
async fn the_end_of_a_session_cancels_and_deletes_its_tasks() {
    let store = Arc::new(MemoryTaskStore::default());
    let (counters, _s, mut w) = handshake(Some(store.clone())).await;
    w.start_work(60000).await;
    let done = w.start_work(0).await;
    w.result("tasks/result", json!({"taskId": done})).await;
    assert_eq!(store.len(), 2);
    drop(w);
    eventually(|| store.is_empty() && counters.dropped.load(Ordering::SeqCst) == 1).await;
    assert!(store.is_empty(), "{} tasks left", store.len());
    assert_eq!(counters.dropped.load(Ordering::SeqCst), 1);
}

// ---- 2026-07-28, the tasks extension ----

#[tokio::test]
async fn the_extension_makes_slow_calls_tasks_and_answers_fast_ones_directly() {
    let counters = Arc::new(Counters::default());
    let s = server(&counters, None).build().unwrap();
    let mut w = Wire::connect(&s, None);
    let d = w.result("server/discover", modern(json!({}), true)).await;
    assert_eq!(d["capabilities"]["extensions"][TASKS_EXT], json!({}));
    assert!(d["capabilities"].get("tasks").is_none());

    let fast = w
        .result(
            "tools/call",
            modern(json!({"name": "work", "arguments": {"ms": 0}}), true),
        )
        .await;
    assert_eq!(fast["resultType"], "complete");
    assert_eq!(fast["content"][0]["text"], "worked 0 ms");

    let t = w
        .result(
            "tools/call",
            modern(
                json!({"name": "work", "arguments": {"ms": 400}, "task": {"ttl": 5}}),
                true,
            ),
        )
        .await;
    assert_eq!(t["resultType"], "task");
    assert_eq!(t["status"], "working");
    assert!(
        t["ttlMs"].as_u64().unwrap() > 5,
        "the legacy task param is ignored"
    );
    for absent in [
        "ttl",
        "pollInterval",
        "task",
        "result",
        "inputRequests",
        "requestState",
    ] {
        assert!(t.get(absent).is_none(), "{absent} in {t}");
    }
    let id = t["taskId"].as_str().unwrap().to_string();
    let done = wait_status(&mut w, &id, "completed", true).await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "worked 400 ms");
    assert!(
        done["result"].get("_meta").is_none(),
        "no related-task meta inside"
    );

    // A tool error is a completed task; only a JSON-RPC error fails it.
    let r = w
        .result("tools/call", modern(json!({"name": "fails"}), true))
        .await;
    assert_eq!(
        r["isError"], true,
        "fast enough to be answered directly: {r}"
    );
    // Without the extension, an optional tool is a direct call and a required one is refused.
    let direct = w
        .result(
            "tools/call",
            modern(json!({"name": "work", "arguments": {"ms": 300}}), false),
        )
        .await;
    assert_eq!(direct["content"][0]["text"], "worked 300 ms");
    let e = w
        .error("tools/call", modern(json!({"name": "must"}), false), -32021)
        .await;
    assert_eq!(
        e["data"]["requiredCapabilities"]["extensions"][TASKS_EXT],
        json!({})
    );
    w.still_serving_modern().await;
    let must = w
        .result("tools/call", modern(json!({"name": "must"}), true))
        .await;
    assert_eq!(must["resultType"], "task");
}

#[tokio::test]
async fn extension_bad_inputs_get_the_spec_errors_and_requests_go_on() {
    let counters = Arc::new(Counters::default());
    let s = server(&counters, None).build().unwrap();
    let mut w = Wire::connect(&s, None);

    let e = w
        .error("tasks/get", modern(json!({"taskId": "nope"}), true), -32602)
        .await;
    assert!(e["message"].as_str().unwrap().contains("not found"), "{e}");
    w.still_serving_modern().await;
    w.error(
        "tasks/cancel",
        modern(json!({"taskId": "nope"}), true),
        -32602,
    )
    .await;
    w.still_serving_modern().await;
    w.error(
        "tasks/update",
        modern(json!({"taskId": "nope", "inputResponses": {}}), true),
        -32602,
    )
    .await;
    w.still_serving_modern().await;
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        w.error(
            method,
            modern(json!({"taskId": "nope", "inputResponses": {}}), false),
            -32021,
        )
        .await;
        w.still_serving_modern().await;
    }
    for method in ["tasks/result", "tasks/list"] {
        w.error(method, modern(json!({"taskId": "nope"}), true), -32601)
            .await;
        w.still_serving_modern().await;
    }

    let t = w
        .result(
            "tools/call",
            modern(json!({"name": "work", "arguments": {"ms": 200}}), true),
        )
        .await;
    let id = t["taskId"].as_str().unwrap().to_string();
    // An update for a task that waits for no input is acknowledged and changes nothing.
    let ack = w
        .result(
            "tasks/update",
            modern(
                json!({"taskId": id, "inputResponses": {"x": {"action": "accept"}}}),
                true,
            ),
        )
        .await;
    assert_eq!(
        ack,
        json!({"resultType": "complete", "_meta": ack["_meta"]})
    );
    w.error(
        "tasks/update",
        modern(json!({"taskId": id, "inputResponses": {"x": 5}}), true),
        -32602,
    )
    .await;
    w.error("tasks/update", modern(json!({"taskId": id}), true), -32602)
        .await;
    w.still_serving_modern().await;
    let done = wait_status(&mut w, &id, "completed", true).await;
    assert_eq!(done["result"]["content"][0]["text"], "worked 200 ms");
    // Cancelling a finished task is acknowledged; it stays completed.
    let ack = w
        .result("tasks/cancel", modern(json!({"taskId": id}), true))
        .await;
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("status").is_none());
    let again = w
        .result("tasks/get", modern(json!({"taskId": id}), true))
        .await;
    assert_eq!(again["status"], "completed");
    w.still_serving_modern().await;
}

#[tokio::test]
async fn a_task_waits_for_tasks_update_and_a_composed_call_is_rerun_only_before_its_task() {
    let counters = Arc::new(Counters::default());
    let s = server(&counters, None).build().unwrap();
    let mut w = Wire::connect(&s, None);
    let t = w
        .result("tools/call", modern(json!({"name": "ask"}), true))
        .await;
    assert_eq!(
        t["resultType"], "task",
        "continue_as_task makes it one at once"
    );
    let id = t["taskId"].as_str().unwrap().to_string();
    let waiting = wait_status(&mut w, &id, "input_required", true).await;
    let ask = &waiting["inputRequests"]["confirm"];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "Go?");
    let ack = w
        .result(
            "tasks/update",
            modern(json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"ok": false}}, "stray": {}}}), true),
        )
        .await;
    assert_eq!(ack["resultType"], "complete");
    let done = wait_status(&mut w, &id, "completed", true).await;
    assert_eq!(done["result"]["content"][0]["text"], "answer: Accept false");
    assert_eq!(counters.runs.load(Ordering::SeqCst), 1);

    // MRTR first (the handler re-runs with the answer), then a task whose new question waits.
    counters.runs.store(0, Ordering::SeqCst);
    let r1 = w
        .result("tools/call", modern(json!({"name": "compose"}), true))
        .await;
    assert_eq!(r1["resultType"], "input_required");
    assert!(r1["inputRequests"]["first"].is_object());
    let r2 = w
        .result(
            "tools/call",
            modern(json!({"name": "compose", "inputResponses": {"first": {"action": "accept"}}, "requestState": r1["requestState"]}), true),
        )
        .await;
    assert_eq!(r2["resultType"], "task", "{r2}");
    assert!(r2.get("requestState").is_none());
    let id = r2["taskId"].as_str().unwrap().to_string();
    let waiting = wait_status(&mut w, &id, "input_required", true).await;
    let keys: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["second"], "the answered key is not asked again");
    w.result(
        "tasks/update",
        modern(
            json!({"taskId": id, "inputResponses": {"second": {"action": "decline"}}}),
            true,
        ),
    )
    .await;
    let done = wait_status(&mut w, &id, "completed", true).await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Ok(Accept) Ok(Decline) Ok(Accept)"
    );
    assert_eq!(
        counters.runs.load(Ordering::SeqCst),
        2,
        "one MRTR re-run, none in the task"
    );
}
