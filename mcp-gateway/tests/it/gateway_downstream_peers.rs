//! Downstream clients we did not write, in front of the `mcp-gateway` binary: the Python SDK client over
//! stdio (scripts/python_client.py) and the MCP Inspector CLI over Streamable HTTP. The peers come from
//! scripts/install-peers.sh; without them a test says so and passes, unless MCP_PEERS_REQUIRED=1.

use crate::common;

use common::workspace_bin;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;
use test_support::{json_after_banner, run};

const GATEWAY: &str = env!("CARGO_BIN_EXE_mcp-gateway");

fn peers() -> Option<PathBuf> {
    test_support::peers_with(&["py/bin/python", "node/node_modules/.bin/mcp-inspector-cli"])
}

/// bench-server and jira-server behind one gateway, without prefixes (their names do not collide), so
/// the Python script written for bench-server runs unchanged against the gateway.
fn config() -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    f.write_all(
        json!({"mcpServers": {
            "bench": {"command": workspace_bin("bench-server")},
            "jira": {"command": workspace_bin("jira-server")},
        }, "gateway": {"prefixes": false}})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    f
}

#[test]
fn python_sdk_client_lists_and_calls_through_the_gateway_over_stdio() {
    let Some(p) = peers() else { return };
    let cfg = config();
    let out = run(Command::new(p.join("py/bin/python"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/python_client.py"
        ))
        .arg(GATEWAY)
        .arg("--config")
        .arg(cfg.path()));
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    let tools: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for t in ["echo", "add", "sleep", "search_jira"] {
        assert!(tools.contains(&t), "{t} missing from {v}");
    }
    assert_eq!(v["add"], "5");
    assert_eq!(v["echo"], "héllo");
    assert_eq!(v["bad_is_error"], true);
}

#[test]
fn inspector_cli_lists_and_calls_through_the_gateway_over_http() {
    let Some(p) = peers() else { return };
    let cfg = config();
    let port = test_support::free_port();
    let _gw = test_support::Spawned(
        Command::new(GATEWAY)
            .arg("--config")
            .arg(cfg.path())
            .args(["--http", &format!("127.0.0.1:{port}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    test_support::wait_listening(port, "the gateway", Duration::from_secs(30));
    // inspector-cli 1.0.3 finds its package.json relative to the working directory.
    let cwd = p.join("node/node_modules");
    let bin = p.join("node/node_modules/.bin/mcp-inspector-cli");
    let url = format!("http://localhost:{port}/mcp");
    let inspect = |args: &[&str]| {
        json_after_banner(&run(Command::new(&bin)
            .current_dir(&cwd)
            .args(["--cli", &url, "--transport", "http"])
            .args(args)))
    };
    let list = inspect(&["--method", "tools/list"]);
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for t in ["echo", "add", "sleep", "search_jira", "create_issue"] {
        assert!(names.contains(&t), "{t} missing from {list}");
    }
    let call = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "text=through the gateway",
    ]);
    assert_eq!(call["content"][0]["text"], "through the gateway", "{call}");
    let call = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "search_jira",
        "--tool-arg",
        "project=PROJ",
        "--tool-arg",
        "jql=status = open",
    ]);
    assert_ne!(call["isError"], true, "{call}");
}
