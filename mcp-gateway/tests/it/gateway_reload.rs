//! Hot reload with real upstreams (the example servers, child processes over stdio) and a real downstream
//! client: the config file rewritten while a client is connected, watched by the gateway in this process
//! or reloaded by `SIGHUP` in the gateway binary.

use crate::common::{self, alive, bin, connect, eventually, names};
use mcp_gateway::{Config, Gateway, WatchOptions};
use mcp_runtime::client::{Client, Era, ServerNotification};
use mcp_runtime::Error;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use tokio::sync::broadcast;

fn write(path: &Path, config: &Value) {
    // Written beside and renamed, as editors save: the watcher never sees half a file.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, config.to_string()).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn bench() -> Value {
    json!({"command": bin("bench-server")})
}

fn every() -> Value {
    json!({"command": bin("everything-server"), "allow": ["test_simple_text"]})
}

fn servers(servers: Value) -> Value {
    json!({"mcpServers": servers, "gateway": {"prefixes": "always"}})
}

/// The `list_changed` notifications received so far, by kind.
fn list_changed(rx: &mut broadcast::Receiver<ServerNotification>) -> [usize; 3] {
    let mut n = [0; 3];
    while let Ok(m) = rx.try_recv() {
        match m.method.as_str() {
            "notifications/tools/list_changed" => n[0] += 1,
            "notifications/prompts/list_changed" => n[1] += 1,
            "notifications/resources/list_changed" => n[2] += 1,
            _ => {}
        }
    }
    n
}

async fn tool_names(client: &Client) -> Vec<String> {
    names(&client.list_all_tools().await.unwrap())
}

fn pid(gw: &Gateway, upstream: &str) -> Option<u32> {
    gw.status()
        .into_iter()
        .find(|s| s.name == upstream)
        .and_then(|s| s.pid)
}

#[tokio::test]
async fn an_upstream_added_to_the_watched_file_serves_with_one_list_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    write(&path, &servers(json!({"bench": bench()})));
    let gw = Gateway::start(Config::load(&path).unwrap()).await;
    let watch = WatchOptions {
        poll: Some(Duration::from_millis(100)),
        sighup: false,
    };
    let _watcher = mcp_gateway::reload::watch(&gw, path.clone(), watch);
    // A handshake-era session: list changes reach it as notifications.
    let client = connect(&gw, Client::builder().era(Era::Legacy)).await;
    assert_eq!(
        tool_names(&client).await,
        ["bench_add", "bench_echo", "bench_sleep"]
    );
    let bench_pid = pid(&gw, "bench").expect("bench runs");
    let mut notes = client.notifications();

    write(&path, &servers(json!({"bench": bench(), "every": every()})));
    eventually(Duration::from_secs(20), "the new upstream's tool", || {
        gw.status()
            .iter()
            .any(|s| s.name == "every" && s.tools == 1)
    })
    .await;
    assert_eq!(
        tool_names(&client).await,
        [
            "bench_add",
            "bench_echo",
            "bench_sleep",
            "every_test_simple_text"
        ]
    );
    let r = client
        .call_tool("every_test_simple_text", json!({}))
        .await
        .unwrap();
    assert!(r.text_content().contains("simple text"), "{r:?}");
    // Whatever else the reload changed, each kind is told once at most, and the tools once exactly.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let n = list_changed(&mut notes);
    assert_eq!(n[0], 1, "tools/list_changed: {n:?}");
    assert!(n[1] <= 1 && n[2] <= 1, "{n:?}");
    // The unchanged upstream was not touched: the same child serves.
    assert_eq!(pid(&gw, "bench"), Some(bench_pid));
    let r = client
        .call_tool("bench_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "3");

    // Saving the same text again changes nothing and tells nothing.
    write(&path, &servers(json!({"bench": bench(), "every": every()})));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(list_changed(&mut notes), [0, 0, 0]);
}

#[tokio::test]
async fn a_removed_upstream_leaves_and_its_call_in_flight_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    write(&path, &servers(json!({"bench": bench(), "every": every()})));
    let gw = Gateway::start(Config::load(&path).unwrap()).await;
    let client = std::sync::Arc::new(connect(&gw, Client::builder().era(Era::Legacy)).await);
    let bench_pid = pid(&gw, "bench").expect("bench runs");
    let every_pid = pid(&gw, "every").expect("every runs");
    let mut notes = client.notifications();
    let slow = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("bench_sleep", json!({"ms": 1500})).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;

    write(&path, &servers(json!({"every": every()})));
    let report = gw.reload_file(&path).await.unwrap();
    assert_eq!(report.removed, ["bench"]);
    assert_eq!(report.unchanged, ["every"]);
    assert_eq!(report.notified, ["tools"]);
    assert_eq!(tool_names(&client).await, ["every_test_simple_text"]);
    let e = client
        .call_tool("bench_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    assert!(matches!(&e, Error::Rpc(e) if e.code == -32602), "{e}");

    // The call that was running when its upstream left ends with its result.
    let r = slow.await.unwrap().unwrap();
    assert_eq!(r.text_content(), "slept 1500 ms");
    // Then the child goes; the other one was not touched.
    eventually(Duration::from_secs(10), "the removed child to exit", || {
        !alive(bench_pid)
    })
    .await;
    assert_eq!(pid(&gw, "every"), Some(every_pid));
    assert_eq!(list_changed(&mut notes), [1, 0, 0]);
}

#[tokio::test]
async fn a_call_still_running_after_the_grace_period_fails_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    let config = |servers: Value| json!({"mcpServers": servers, "gateway": {"prefixes": "always", "reloadGraceMs": 300}});
    write(&path, &config(json!({"bench": bench(), "every": every()})));
    let gw = Gateway::start(Config::load(&path).unwrap()).await;
    let client = std::sync::Arc::new(connect(&gw, Client::builder()).await);
    let slow = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("bench_sleep", json!({"ms": 30000})).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    write(&path, &config(json!({"every": every()})));
    let t0 = std::time::Instant::now();
    gw.reload_file(&path).await.unwrap();
    let e = slow.await.unwrap().unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    let Error::Rpc(e) = e else {
        panic!("not a JSON-RPC error: {e}")
    };
    assert_eq!(e.code, -32603);
    assert!(
        e.message.contains("upstream `bench`")
            && e.message.contains("removed from the configuration")
            && e.message.contains("300 ms"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_changed_upstream_restarts_and_an_unchanged_list_tells_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    write(&path, &servers(json!({"bench": bench(), "every": every()})));
    let gw = Gateway::start(Config::load(&path).unwrap()).await;
    let client = connect(&gw, Client::builder().era(Era::Legacy)).await;
    let (bench_pid, every_pid) = (pid(&gw, "bench").unwrap(), pid(&gw, "every").unwrap());
    let mut notes = client.notifications();
    let mut changed = bench();
    changed["timeoutMs"] = json!(20000);
    write(&path, &servers(json!({"bench": changed, "every": every()})));
    let report = gw.reload_file(&path).await.unwrap();
    assert_eq!(report.restarted, ["bench"]);
    assert_eq!(report.notified, Vec::<&str>::new());
    let new_pid = pid(&gw, "bench").expect("bench restarted");
    assert_ne!(new_pid, bench_pid);
    assert_eq!(pid(&gw, "every"), Some(every_pid));
    let r = client
        .call_tool("bench_add", json!({"a": 2, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "4");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(list_changed(&mut notes), [0, 0, 0]);
}

#[tokio::test]
async fn a_broken_file_is_refused_with_its_place_and_the_old_config_serves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    write(&path, &servers(json!({"bench": bench()})));
    let gw = Gateway::start(Config::load(&path).unwrap()).await;
    let client = connect(&gw, Client::builder()).await;
    std::fs::write(
        &path,
        "{\"mcpServers\": {\n  \"bench\": {\"command\": 7}\n}}",
    )
    .unwrap();
    let e = gw.reload_file(&path).await.unwrap_err();
    assert_eq!(e.file, path.display().to_string());
    assert_eq!(e.place, "mcpServers.bench.command (line 2, column 24)");
    assert!(e.problem.contains("expected a string"), "{e}");
    std::fs::write(&path, "{\"mcpServers\": {\"bench\": ").unwrap();
    let e = gw.reload_file(&path).await.unwrap_err();
    assert!(e.place.contains("line 1"), "{e}");
    assert_eq!(
        tool_names(&client).await,
        ["bench_add", "bench_echo", "bench_sleep"]
    );
    let r = client
        .call_tool("bench_echo", json!({"text": "still here"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "still here");
}

/// Reads the gateway's stderr until a line contains `what` (within 20 s).
async fn stderr_until(
    lines: &mut tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
    what: &str,
) -> String {
    let found = tokio::time::timeout(Duration::from_secs(20), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(what) {
                return line;
            }
        }
        panic!("the gateway's stderr ended before {what:?}");
    })
    .await;
    found.unwrap_or_else(|_| panic!("no {what:?} on the gateway's stderr"))
}

#[tokio::test]
async fn sighup_reloads_the_gateway_binary_and_a_broken_file_is_logged() {
    use tokio::io::AsyncBufReadExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    write(&path, &servers(json!({"bench": bench()})));
    let (mut child, port) = common::spawn_http_gateway(&path, &["--no-watch"], |cmd| {
        cmd.stderr(std::process::Stdio::piped());
    })
    .await;
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::builder()
        .connect_http(&url, Default::default())
        .await
        .unwrap();
    assert_eq!(
        tool_names(&client).await,
        ["bench_add", "bench_echo", "bench_sleep"]
    );
    let hup = |child: &tokio::process::Child| {
        let pid = child.id().unwrap() as i32;
        // SAFETY: a signal to our own child process.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGHUP) }, 0);
    };

    // --no-watch: a rewrite alone changes nothing; SIGHUP applies it.
    write(&path, &servers(json!({"bench": bench(), "every": every()})));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(tool_names(&client).await.len(), 3);
    hup(&child);
    stderr_until(&mut lines, "configuration reloaded").await;
    assert_eq!(
        tool_names(&client).await,
        [
            "bench_add",
            "bench_echo",
            "bench_sleep",
            "every_test_simple_text"
        ]
    );

    // A broken file: logged with the file, the place and the problem; the running config stays.
    std::fs::write(&path, "{\"mcpServers\": {\"bench\": {\"comand\": \"x\"}}}").unwrap();
    hup(&child);
    let line = stderr_until(&mut lines, "configuration not reloaded").await;
    assert!(
        line.contains(&path.display().to_string())
            && line.contains("mcpServers.bench.comand (line 1, column")
            && line.contains("unknown field `comand`"),
        "{line}"
    );
    assert_eq!(tool_names(&client).await.len(), 4);
    let r = client
        .call_tool("every_test_simple_text", json!({}))
        .await
        .unwrap();
    assert!(r.text_content().contains("simple text"), "{r:?}");
    child.kill().await.ok();
}
