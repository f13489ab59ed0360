//! Faults on either side of the gateway: an upstream that dies mid-call, hangs at start, answers garbage
//! or floods notifications, and a downstream client that vanishes with calls in flight. In each case
//! the failing party gets a clear error at once and everyone else keeps working.

use crate::common;

use common::{config, connect, eventually, names, workspace_bin};
use mcp_gateway::Gateway;
use mcp_runtime::client::{CallOptions, Client, Era};
use mcp_runtime::protocol::{CallToolResult, ProgressParams, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Error, Server};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

fn bench() -> String {
    workspace_bin("bench-server").display().to_string()
}

/// `python3 fake_server.py MODE` as an upstream's config entry.
fn fake(mode: &str) -> serde_json::Value {
    fake_with(mode, 1500)
}

fn fake_with(mode: &str, timeout_ms: u64) -> serde_json::Value {
    json!({
        "command": "python3",
        "args": [concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake_server.py"), mode],
        "timeoutMs": timeout_ms,
        "initTimeoutMs": 5000,
    })
}

#[tokio::test]
async fn an_upstream_that_dies_mid_call_fails_it_with_its_exit_status_and_stderr() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "dies": fake("stderr-then-die"),
        "bench": {"command": bench()},
    }})))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let t0 = Instant::now();
    let e = match client.call_tool("dies_work", json!({})).await {
        Err(Error::Rpc(e)) => e,
        other => panic!("{other:?}"),
    };
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    let reason = e.data.as_ref().unwrap()["reason"].as_str().unwrap();
    assert!(
        reason.contains("exit status: 3"),
        "the exit status: {reason}"
    );
    assert!(
        reason.contains("the disk is on fire"),
        "the stderr tail: {reason}"
    );
    let r = client
        .call_tool("bench_echo", json!({"text": "fine"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "fine");
    // It is restarted and serves its tools again.
    eventually(Duration::from_secs(10), "a restart", || {
        let s = &gw.status()[1];
        s.restarts >= 1 && s.state == "up"
    })
    .await;
    assert!(matches!(
        client.call_tool("dies_work", json!({})).await,
        Err(Error::Rpc(_))
    ));
}

#[tokio::test]
async fn garbage_from_an_upstream_fails_only_what_it_touches() {
    let mut badinit = fake("garbage-init");
    badinit["initTimeoutMs"] = json!(1500);
    let t0 = Instant::now();
    let gw = Gateway::start(config(json!({"mcpServers": {
        "badinit": badinit,
        "badcall": fake("garbage-call"),
        "bench": {"command": bench()},
    }})))
    .await;
    // A server whose initialize answer is garbage never comes up: reported as down, within its init
    // timeout, and the others start.
    let status = gw.status();
    let by = |n: &str| status.iter().find(|s| s.name == n).unwrap().clone();
    assert_eq!(by("badinit").state, "down", "{status:?}");
    assert_eq!(by("badcall").state, "up", "{status:?}");
    assert_eq!(by("bench").state, "up", "{status:?}");
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    let client = connect(&gw, Client::builder()).await;
    assert_eq!(
        names(&client.list_all_tools().await.unwrap()),
        ["badcall_work", "bench_add", "bench_echo", "bench_sleep"]
    );
    // A truncated answer names no request: the call ends at its timeout, not later.
    let t0 = Instant::now();
    match client.call_tool("badcall_work", json!({})).await {
        Err(Error::Rpc(e)) => assert!(e.message.contains("did not answer"), "{e:?}"),
        other => panic!("{other:?}"),
    }
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    // A result of the wrong shape fails at once, naming the upstream.
    match client.call_tool("badcall_work", json!({})).await {
        Err(Error::Rpc(e)) => assert!(e.message.contains("upstream `badcall`"), "{e:?}"),
        other => panic!("{other:?}"),
    }
    // Nothing else is disturbed.
    let r = client
        .call_tool("bench_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "3");
}

#[tokio::test]
async fn a_flooding_upstream_does_not_hold_the_others() {
    let gw = Gateway::start(config(json!({"mcpServers": {
        "flood": fake_with("flood", 30000),
        "bench": {"command": bench()},
    }})))
    .await;
    let client = Arc::new(connect(&gw, Client::builder().era(Era::Legacy)).await);
    let progress = Arc::new(AtomicUsize::new(0));
    let p = progress.clone();
    let c = client.clone();
    let flood = tokio::spawn(async move {
        c.call_tool_with(
            "flood_work",
            json!({}),
            CallOptions {
                on_progress: Some(Arc::new(move |_: ProgressParams| {
                    p.fetch_add(1, Ordering::Relaxed);
                })),
                ..Default::default()
            },
        )
        .await
    });
    // While 40000 notifications pour in, calls to another upstream go on.
    let mut slowest = Duration::ZERO;
    for i in 0..20 {
        let t0 = Instant::now();
        let r = client
            .call_tool("bench_echo", json!({"text": i.to_string()}))
            .await
            .unwrap();
        assert_eq!(r.text_content(), i.to_string());
        slowest = slowest.max(t0.elapsed());
    }
    assert!(slowest < Duration::from_secs(2), "{slowest:?}");
    let r = flood.await.unwrap().unwrap();
    assert_eq!(r.text_content(), "done after 1 calls");
    // Progress is relayed, but a slow downstream is not queued without bound (it is a hint).
    let n = progress.load(Ordering::Relaxed);
    assert!(n > 0 && n <= 20000, "{n}");
}

#[tokio::test]
async fn a_vanished_downstream_client_has_its_upstream_calls_cancelled() {
    let cancelled = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let (c, st) = (cancelled.clone(), started.clone());
    let slow = ToolRoute::new(
        Tool::new(
            "slow",
            "waits until cancelled",
            json!({"type": "object"}).as_object().unwrap().clone(),
        ),
        move |_: Arguments, ctx: Context| {
            let c = c.clone();
            st.fetch_add(1, Ordering::SeqCst);
            async move {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(60)) => {}
                    _ = ctx.cancelled() => { c.fetch_add(1, Ordering::SeqCst); }
                }
                Ok(CallToolResult::text("done"))
            }
        },
    );
    let upstream = Server::builder().tool(slow).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(mcp_runtime::http::serve_http_on(
        upstream,
        listener,
        mcp_runtime::http::HttpConfig::default(),
        std::future::pending(),
    ));
    let modern_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let call = |id: u32, meta: Option<&serde_json::Value>| {
        let mut params = json!({"name": "slow", "arguments": {}});
        if let Some(m) = meta {
            params["_meta"] = m.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    };
    let legacy = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "vanishing", "version": "0"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        call(2, None),
        call(3, None),
        call(4, None),
    ];
    let modern = [
        call(2, Some(&modern_meta)),
        call(3, Some(&modern_meta)),
        call(4, Some(&modern_meta)),
    ];
    // The gateway binary over stdio: a host that dies closes both pipes at once.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gateway.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"up": {"url": url}}}).to_string(),
    )
    .unwrap();
    for lines in [&legacy[..], &modern[..]] {
        let before = cancelled.load(Ordering::SeqCst);
        let before_started = started.load(Ordering::SeqCst);
        let mut gateway = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"))
            .arg("--config")
            .arg(&config)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = gateway.stdin.take().unwrap();
        let stdout = gateway.stdout.take().unwrap();
        for l in lines {
            stdin.write_all(format!("{l}\n").as_bytes()).await.unwrap();
        }
        eventually(
            Duration::from_secs(10),
            "the calls to reach the upstream",
            || started.load(Ordering::SeqCst) == before_started + 3,
        )
        .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            cancelled.load(Ordering::SeqCst),
            before,
            "nothing cancelled yet"
        );
        // The client goes away without a word: no cancellation, both pipes closed.
        drop(stdin);
        drop(stdout);
        eventually(
            Duration::from_secs(5),
            "the upstream calls to be cancelled",
            || cancelled.load(Ordering::SeqCst) == before + 3,
        )
        .await;
        tokio::time::timeout(Duration::from_secs(5), gateway.wait())
            .await
            .expect("the gateway exits once its client is gone")
            .unwrap();
    }
}
