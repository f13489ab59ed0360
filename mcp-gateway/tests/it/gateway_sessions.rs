//! Downstream sessions and upstream connections: per-session children keep each session's state apart
//! and end with their session; a shared child keeps each session's answers, progress, log messages and
//! cancellations apart; nothing an upstream says carries its secrets downstream.

use crate::common;

use common::{alive, config, connect, eventually, get, http_gateway, workspace_bin};
use mcp_gateway::Gateway;
use mcp_runtime::client::{CallOptions, Client, Era};
use mcp_runtime::http::HttpClientConfig;
use mcp_runtime::protocol::{methods, ProgressParams};
use mcp_runtime::Error;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn bin(name: &str) -> String {
    workspace_bin(name).display().to_string()
}

/// A handshake-era client of the gateway at `port` (a 2026-07-28 client has no session).
async fn session(port: u16) -> Client {
    Client::builder()
        .era(Era::Legacy)
        .connect_http(
            &format!("http://127.0.0.1:{port}/mcp"),
            HttpClientConfig::default(),
        )
        .await
        .unwrap()
}

async fn health(port: u16) -> Value {
    let (status, body) = get(port, "/health").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn upstream<'a>(health: &'a Value, name: &str) -> &'a Value {
    health["upstreams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == name)
        .unwrap()
}

fn pids(health: &Value, name: &str) -> Vec<u32> {
    let mut p: Vec<u32> = upstream(health, name)["sessions"]["pids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap() as u32)
        .collect();
    p.sort();
    p
}

#[tokio::test]
async fn per_session_children_keep_state_apart_end_with_their_session_and_are_capped() {
    let jira = bin("jira-server");
    let (mut gw, port, _cfg) = http_gateway(
        &json!({"mcpServers": {
            "own": {"command": jira, "sessions": "per-session", "maxSessions": 2},
            "shared": {"command": jira},
        }}),
        &[],
    )
    .await;
    let (a, b) = (session(port).await, session(port).await);
    let create = json!({"project": "PROJ", "summary": "seen by a alone", "issue_type": "bug"});

    // Per session: what a creates, b does not see.
    let key = a
        .call_tool("own_create_issue", &create)
        .await
        .unwrap()
        .text_content();
    let get_issue = |key: &str| json!({"key": key.trim_matches('"')});
    let mine = a.call_tool("own_get_issue", get_issue(&key)).await.unwrap();
    assert_ne!(mine.is_error, Some(true), "{mine:?}");
    assert!(mine.text_content().contains("seen by a alone"), "{mine:?}");
    let theirs = b.call_tool("own_get_issue", get_issue(&key)).await.unwrap();
    assert_eq!(theirs.is_error, Some(true), "b saw a's issue: {theirs:?}");

    // Shared: what a creates, b sees.
    let shared_key = a
        .call_tool("shared_create_issue", &create)
        .await
        .unwrap()
        .text_content();
    let seen = b
        .call_tool("shared_get_issue", get_issue(&shared_key))
        .await
        .unwrap();
    assert!(seen.text_content().contains("seen by a alone"), "{seen:?}");

    // Two children of their own, beside the shared one.
    let h = health(port).await;
    let own = pids(&h, "own");
    assert_eq!(upstream(&h, "own")["sessions"]["live"], 2, "{h}");
    assert_eq!(own.len(), 2, "{h}");
    assert_ne!(own[0], own[1]);
    let shared_pid = upstream(&h, "shared")["pid"].as_u64().unwrap() as u32;
    assert!(!own.contains(&shared_pid));
    assert!(own.iter().all(|p| alive(*p)));
    assert!(upstream(&h, "shared").get("sessions").is_none(), "{h}");

    // A third session is past the cap: a clear error, and the others keep working.
    let c = session(port).await;
    match c.call_tool("own_get_issue", get_issue("PROJ-1")).await {
        Err(Error::Rpc(e)) => {
            assert_eq!(e.code, -32603, "{e:?}");
            assert!(e.message.contains("maxSessions"), "{e:?}");
            assert_eq!(e.data.as_ref().unwrap()["maxSessions"], 2, "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    // Its shared upstream is not capped.
    let r = c.call_tool("shared_get_issue", get_issue("PROJ-1")).await;
    assert_ne!(r.unwrap().is_error, Some(true));

    // a ends its session (DELETE): its child is stopped, and c may have one.
    a.close().await;
    eventually(Duration::from_secs(10), "a's child to stop", || {
        own.iter().filter(|p| alive(**p)).count() == 1
    })
    .await;
    let h = health(port).await;
    assert_eq!(upstream(&h, "own")["sessions"]["live"], 1, "{h}");
    let r = c
        .call_tool("own_get_issue", get_issue("PROJ-1"))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let now = pids(&health(port).await, "own");
    assert_eq!(now.len(), 2);

    // No child outlives the gateway.
    let _ = gw.kill().await;
    let _ = gw.wait().await;
    let all: Vec<u32> = now.into_iter().chain([shared_pid]).collect();
    eventually(Duration::from_secs(10), "every child to stop", || {
        all.iter().all(|p| !alive(*p))
    })
    .await;
}

#[tokio::test]
async fn the_one_stdio_session_gets_its_child_and_its_end_stops_it() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "jira": {"command": bin("jira-server"), "sessions": "per-session"},
    }})))
    .await;
    let client = connect(&gw, Client::builder().era(Era::Legacy)).await;
    let r = client
        .call_tool("get_issue", json!({"key": "PROJ-1"}))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let sessions = gw.status()[0].sessions.clone().unwrap();
    assert_eq!((sessions.live, sessions.max), (1, 32));
    let pid = sessions.pids[0];
    assert_ne!(Some(pid), gw.status()[0].pid);
    assert!(alive(pid));
    // The downstream client goes away (its input ends): the child is stopped.
    client.close().await;
    eventually(Duration::from_secs(10), "the child to stop", || !alive(pid)).await;
    assert_eq!(gw.status()[0].sessions.clone().unwrap().live, 0);
}

/// Calls `tool` on `client`, collecting its progress.
async fn call_with_progress(
    client: &Client,
    tool: &str,
    args: Value,
) -> (Result<String, Error>, Vec<ProgressParams>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let opts = CallOptions {
        on_progress: Some(Arc::new(move |p: ProgressParams| {
            sink.lock().unwrap().push(p)
        })),
        ..CallOptions::default()
    };
    let r = client
        .call_tool_with(tool, args, opts)
        .await
        .map(|r| r.text_content());
    let seen = seen.lock().unwrap().clone();
    (r, seen)
}

#[tokio::test]
async fn a_shared_child_keeps_two_sessions_calls_apart() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "every": {"command": bin("everything-server")},
    }})))
    .await;
    let a = connect(&gw, Client::builder().era(Era::Legacy)).await;
    let b = connect(&gw, Client::builder().era(Era::Legacy)).await;

    // Concurrent calls through the one child: each session gets its own answer and its own progress.
    let ((ra, pa), (rb, pb)) = tokio::join!(
        call_with_progress(&a, "progress_ticks", json!({"count": 6, "interval_ms": 20})),
        call_with_progress(&b, "progress_ticks", json!({"count": 4, "interval_ms": 30})),
    );
    assert_eq!(ra.unwrap(), "6 ticks");
    assert_eq!(rb.unwrap(), "4 ticks");
    assert_eq!(pa.len(), 6, "{pa:?}");
    assert!(pa.iter().all(|p| p.total == Some(6.0)), "{pa:?}");
    assert_eq!(pb.len(), 4, "{pb:?}");
    assert!(pb.iter().all(|p| p.total == Some(4.0)), "{pb:?}");

    // Log messages go to the session whose call is in flight, never to the other.
    let (mut na, mut nb) = (a.notifications(), b.notifications());
    let r = a
        .call_tool("test_tool_with_logging", json!({}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "Tool with logging executed successfully");
    let logs = |rx: &mut tokio::sync::broadcast::Receiver<_>| {
        let mut n = 0;
        while let Ok(m) = rx.try_recv() {
            let m: mcp_runtime::client::ServerNotification = m;
            n += usize::from(m.method == methods::MESSAGE);
        }
        n
    };
    assert_eq!(logs(&mut na), 3);
    // While both sessions have calls in flight, a message that names no call has no owner: b never
    // gets a's.
    let (r, _) = tokio::join!(
        a.call_tool("test_tool_with_logging", json!({})),
        call_with_progress(&b, "progress_ticks", json!({"count": 8, "interval_ms": 20})),
    );
    r.unwrap();
    assert_eq!(logs(&mut nb), 0);

    // A cancel stops the caller's own call only.
    let cancelled = tokio::time::timeout(
        Duration::from_millis(150),
        a.call_tool("progress_ticks", json!({"count": 100, "interval_ms": 20})),
    );
    let (cancelled, (rb, pb)) = tokio::join!(
        cancelled,
        call_with_progress(
            &b,
            "progress_ticks",
            json!({"count": 10, "interval_ms": 20})
        ),
    );
    assert!(cancelled.is_err(), "a's call was not cut short");
    assert_eq!(rb.unwrap(), "10 ticks");
    assert_eq!(pb.len(), 10);
    // And the child serves a again.
    let (r, _) =
        call_with_progress(&a, "progress_ticks", json!({"count": 1, "interval_ms": 0})).await;
    assert_eq!(r.unwrap(), "1 ticks");
}

#[tokio::test]
async fn upstream_log_and_progress_messages_are_redacted() {
    const SECRET: &str = "sk-live-5ecret-0123456789";
    let gw = Gateway::start(config(json!({"mcpServers": {"leaky": {
        "command": "python3",
        "args": [concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake_server.py"), "leak"],
        "env": {"API_TOKEN": SECRET},
    }}})))
    .await;
    let client = connect(&gw, Client::builder().era(Era::Legacy)).await;
    let mut notes = client.notifications();
    let (r, progress) = call_with_progress(&client, "work", json!({})).await;
    assert_eq!(r.unwrap(), "done after 1 calls");
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert_eq!(progress[0].message.as_deref(), Some("sent [redacted]"));
    let log = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = notes.recv().await.unwrap();
            if n.method == methods::MESSAGE {
                return n.params.unwrap();
            }
        }
    })
    .await
    .expect("the log message is relayed");
    assert_eq!(
        log,
        json!({"level": "warning", "logger": "auth [redacted]",
               "data": {"note": "using token [redacted]", "token": "[redacted]"}})
    );
    assert!(!format!("{progress:?}{log}").contains(SECRET));
}

#[tokio::test]
async fn a_composite_step_waits_for_a_task_required_tool() {
    let gw = Gateway::start(config(json!({
        "mcpServers": {"every": {"command": bin("everything-server")}},
        "composites": {"compute_then_job": {"steps": [
            {"id": "compute", "server": "every", "tool": "slow_compute",
             "arguments": {"seconds": 0.2, "label": "${input.label}"}},
            {"id": "job", "server": "every", "tool": "failing_job"},
        ], "result": "compute"}},
    })))
    .await;
    let client = connect(&gw, Client::builder().era(Era::Legacy)).await;
    // `failing_job` runs only as a task: the step calls it as one and waits for its outcome (a tool
    // error after a second), which names the step.
    let r = client
        .call_tool("compute_then_job", json!({"label": "x"}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let text = r.text_content();
    assert!(text.contains("step `job`"), "{text}");
    assert!(
        text.contains("Job failed: the input data was rejected"),
        "{text}"
    );
}
