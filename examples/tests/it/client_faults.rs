//! The client against a real server process: death, timeouts and dropped calls.

use crate::common;
use common::bench_server;
use mcp_runtime::{CallOptions, Client, Error, StderrMode};
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::process::Command;

async fn connect(stderr: StderrMode) -> Client {
    Client::builder()
        .stderr(stderr)
        .spawn(Command::new(bench_server()))
        .await
        .expect("connect")
}

#[tokio::test]
async fn a_killed_server_fails_every_pending_call_at_once_saying_why() {
    let client = std::sync::Arc::new(connect(StderrMode::Capture).await);
    let mut calls = Vec::new();
    for _ in 0..20 {
        let c = client.clone();
        calls.push(tokio::spawn(async move {
            c.call_tool("sleep", json!({"ms": 60_000})).await
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Kill the server process from outside.
    let pid = client.server_pid().unwrap() as i32;
    let killed_at = Instant::now();
    unsafe { libc::kill(pid, libc::SIGKILL) };
    for c in calls {
        let r = c.await.unwrap();
        match r {
            Err(Error::Closed(reason)) => assert!(reason.contains("exited"), "{reason}"),
            other => panic!("expected Closed, got {other:?}"),
        }
    }
    let elapsed = killed_at.elapsed();
    eprintln!("killed server: 20 pending calls failed {elapsed:?} after the kill");
    assert!(
        elapsed < Duration::from_millis(100),
        "pending calls failed after {elapsed:?}"
    );
    // New calls fail at once too.
    assert!(matches!(
        client.call_tool("echo", json!({"text": "x"})).await,
        Err(Error::Closed(_))
    ));
}

#[tokio::test]
async fn a_timeout_cancels_the_call_on_the_server() {
    let client = connect(StderrMode::Capture).await;
    let opts = CallOptions {
        timeout: Some(Duration::from_millis(200)),
        ..Default::default()
    };
    let r = client
        .call_tool_with("sleep", json!({"ms": 30_000}), opts)
        .await;
    assert!(matches!(r, Err(Error::Timeout { .. })), "{r:?}");
    // The server saw notifications/cancelled: its handler stops and it keeps serving.
    let r = client
        .call_tool("add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "2");
}

#[tokio::test]
async fn dropping_a_call_future_cancels_it() {
    let client = connect(StderrMode::Capture).await;
    let call = client.call_tool("sleep", json!({"ms": 30_000}));
    let r = tokio::time::timeout(Duration::from_millis(200), call).await;
    assert!(r.is_err(), "the call was still running");
    let r = client
        .call_tool("echo", json!({"text": "after"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "after");
}

#[tokio::test]
async fn progress_and_paging_through_the_client() {
    let client = connect(StderrMode::Null).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "add", "sleep"]);
    assert_eq!(client.server().server_info.name, "bench-server");
    client.ping().await.unwrap();
}

#[tokio::test]
async fn a_supervised_server_is_restarted_after_a_crash() {
    use mcp_runtime::{RestartPolicy, Supervisor};
    let policy = RestartPolicy {
        initial_backoff: Duration::from_millis(20),
        ..Default::default()
    };
    let sup = Supervisor::start(policy, || {
        (
            Client::builder().stderr(StderrMode::Null),
            Command::new(bench_server()),
        )
    })
    .await
    .unwrap();
    assert_eq!(
        sup.call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap()
            .text_content(),
        "3"
    );
    let c = sup.client().await.unwrap();
    unsafe { libc::kill(c.server_pid().unwrap() as i32, libc::SIGKILL) };
    // The call in flight when it died fails, saying so.
    assert!(matches!(
        c.call_tool("sleep", json!({"ms": 10_000})).await,
        Err(Error::Closed(_))
    ));
    drop(c);
    let r = sup.call_tool("add", json!({"a": 2, "b": 2})).await.unwrap();
    assert_eq!(r.text_content(), "4");
    assert_eq!(sup.restarts(), 1);
}

#[tokio::test]
async fn restarts_back_off_exponentially_and_give_up() {
    use mcp_runtime::{RestartPolicy, Supervisor};
    let policy = RestartPolicy {
        initial_backoff: Duration::from_millis(40),
        max_attempts: 4,
        ..Default::default()
    };
    let t0 = Instant::now();
    let r = Supervisor::start(policy, || {
        let mut c = Command::new("sh");
        c.args(["-c", "echo broken >&2; exit 3"]);
        (Client::builder().stderr(StderrMode::Capture), c)
    })
    .await;
    let elapsed = t0.elapsed();
    let Err(Error::Closed(msg)) = r else {
        panic!("expected a failure")
    };
    assert!(msg.contains("after 4 attempts"), "{msg}");
    assert!(
        msg.contains("exited") && msg.contains("broken"),
        "the last error explains the crash: {msg}"
    );
    // Waits of 40 + 80 + 160 ms between the four attempts.
    assert!(elapsed >= Duration::from_millis(280), "{elapsed:?}");
}
