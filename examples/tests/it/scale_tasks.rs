//! Tasks across several everything-server instances behind nginx with Redis (see `scale_support` and
//! `scale_cluster`): a task started on one instance is polled and cancelled on others and asks the user
//! through a `tasks/result` held by another, the Redis store bounds a client's unfinished tasks, and a
//! task whose instance was killed turns `failed` on the others (through a Redis restart, once, by the
//! lease) while a live instance's task keeps running.

use crate::http_support;
use crate::scale_cluster::{answer, init, port_of, request, Events};
use crate::scale_support;
use http_support::post;
use scale_support::Cluster;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

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
/// read is a `-32603` naming the task store, and an SSE answer whose event could not be logged ends
/// its stream unsent (`null`).
fn store_down(status: u16, v: &Value) -> bool {
    // An SSE answer whose event could not be logged is not sent: the stream ends without it.
    if status == 200 && v.is_null() {
        return true;
    }
    let message = v["error"]["message"].as_str().unwrap_or("");
    v["error"]["code"] == -32603 && (status == 503 || message.contains("task store"))
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
