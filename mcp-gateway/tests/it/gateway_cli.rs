//! The `mcp-gateway` binary: config errors, stdio downstream (with a cancel reaching the upstream), and
//! Streamable HTTP and legacy SSE downstream.

use crate::common;

use common::{names, workspace_bin};
use mcp_runtime::client::CallOptions;
use mcp_runtime::client::Client;
use mcp_runtime::http::{HttpClientConfig, HttpTransportKind};
use mcp_runtime::Error;
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};

const GATEWAY: &str = env!("CARGO_BIN_EXE_mcp-gateway");

fn write_config(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

fn refused(text: &str) -> (String, tempfile::NamedTempFile) {
    let f = write_config(text);
    let out = Command::new(GATEWAY)
        .arg("--config")
        .arg(f.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "stdout is the protocol's: {out:?}");
    (String::from_utf8_lossy(&out.stderr).into_owned(), f)
}

#[test]
fn a_bad_config_is_refused_with_file_place_and_problem() {
    let (err, f) = refused("{\"mcpServers\": {\n  \"files\": {\"comand\": \"files-server\"}\n}}");
    let path = f.path().display().to_string();
    assert!(err.contains(&path), "{err}");
    assert!(err.contains("mcpServers.files.comand (line 2"), "{err}");
    assert!(err.contains("unknown field `comand`"), "{err}");

    let (err, _f) = refused("{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}");
    assert!(err.contains("line 1, column"), "{err}");

    let (err, _f) =
        refused(r#"{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp", "env": {"K": "v"}}}}"#);
    assert!(err.contains("mcpServers.a:"), "{err}");
    assert!(err.contains("`env`"), "{err}");

    let out = Command::new(GATEWAY)
        .args(["--config", "/nonexistent/gateway.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/nonexistent/gateway.json: (file): cannot read"),
        "{err}"
    );

    // Request-state keys are checked as everything-server checks them, before anything starts.
    let f = write_config(r#"{"mcpServers": {"a": {"command": "x"}}}"#);
    let out = Command::new(GATEWAY)
        .arg("--config")
        .arg(f.path())
        .args(["--state-keys", "k1:abcd"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--state-keys: a request-state key must be at least 32 bytes"),
        "{err}"
    );
}

#[test]
fn the_example_config_is_valid() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/gateway.json");
    let c = mcp_gateway::Config::load(path.as_ref()).unwrap();
    let prefixes: Vec<&str> = c.upstreams.iter().map(|u| u.prefix.as_str()).collect();
    assert_eq!(prefixes, ["bench", "ours", "ts"]);
}

fn two_servers() -> tempfile::NamedTempFile {
    write_config(
        &json!({"mcpServers": {
            "bench": {"command": workspace_bin("bench-server")},
            "every": {"command": workspace_bin("everything-server"), "allow": ["test_simple_text"]},
        }})
        .to_string(),
    )
}

#[tokio::test]
async fn serves_stdio_and_a_cancel_reaches_the_upstream() {
    let cfg = two_servers();
    let mut child = tokio::process::Command::new(GATEWAY)
        .arg("--config")
        .arg(cfg.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let client = Client::builder().connect(stdout, stdin).await.unwrap();
    assert_eq!(
        names(&client.list_all_tools().await.unwrap()),
        [
            "bench_add",
            "bench_echo",
            "bench_sleep",
            "every_test_simple_text"
        ]
    );
    let r = client
        .call_tool("bench_echo", json!({"text": "héllo"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "héllo");

    // The client gives up after 300 ms and sends notifications/cancelled; the gateway cancels the
    // upstream call, and bench-server says so on its stderr (which the gateway passes through).
    let r = client
        .call_tool_with(
            "bench_sleep",
            json!({"ms": 30000}),
            CallOptions {
                timeout: Some(Duration::from_millis(300)),
                ..Default::default()
            },
        )
        .await;
    assert!(matches!(r, Err(Error::Timeout { .. })), "{r:?}");
    let t0 = Instant::now();
    let seen = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(line)) = stderr.next_line().await {
            if line.contains("sleep cancelled after a request to wait 30000 ms") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(seen, Ok(true), "the upstream never saw the cancel");
    assert!(t0.elapsed() < Duration::from_secs(2));
    // Still serving.
    let r = client
        .call_tool("bench_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "3");
}

#[tokio::test]
async fn serves_streamable_http_and_legacy_sse() {
    let cfg = two_servers();
    let (_child, port) = common::spawn_http_gateway(cfg.path(), &[], |_| {}).await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::builder()
        .connect_http(&url, HttpClientConfig::default())
        .await
        .unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 4);
    let r = client
        .call_tool("bench_add", json!({"a": 20, "b": 22}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "42");

    let sse = Client::builder()
        .connect_http(
            &format!("http://127.0.0.1:{port}/sse"),
            HttpClientConfig {
                transport: HttpTransportKind::LegacySse,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let r = sse
        .call_tool("every_test_simple_text", json!({}))
        .await
        .unwrap();
    assert!(r.text_content().contains("simple text"), "{r:?}");
}
