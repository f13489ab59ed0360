//! Real peers we did not write: the Python SDK client and the MCP Inspector CLI against bench-server, and
//! our client against `@modelcontextprotocol/server-everything`. They come from scripts/install-peers.sh;
//! without them a test says so and passes, unless MCP_PEERS_REQUIRED=1 (as in CI), where it fails.

use crate::ts_tasks;

use std::path::PathBuf;
use std::process::Command;
use test_support::run;

fn peers() -> Option<PathBuf> {
    test_support::peers_with(&[
        "py/bin/python",
        "node/node_modules/.bin/mcp-server-everything",
    ])
}

#[test]
fn python_sdk_client_lists_and_calls_bench_server() {
    let Some(p) = peers() else { return };
    let out = run(Command::new(p.join("py/bin/python"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/python_client.py"
        ))
        .arg(env!("CARGO_BIN_EXE_bench-server")));
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect(&out);
    assert_eq!(v["tools"], serde_json::json!(["echo", "add", "sleep"]));
    assert_eq!(v["add"], "5");
    assert_eq!(v["echo"], "héllo");
    assert_eq!(v["bad_is_error"], true);
}

#[test]
fn inspector_cli_lists_and_calls_bench_server() {
    let Some(p) = peers() else { return };
    // inspector-cli 1.0.3 finds its package.json relative to the working directory.
    let cwd = p.join("node/node_modules");
    let bin = p.join("node/node_modules/.bin/mcp-inspector-cli");
    let list = run(Command::new(&bin).current_dir(&cwd).args([
        "--cli",
        env!("CARGO_BIN_EXE_bench-server"),
        "--method",
        "tools/list",
    ]));
    let start = list.find('{').expect(&list);
    let v: serde_json::Value = serde_json::from_str(&list[start..]).expect(&list);
    let names: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "add", "sleep"]);
    let call = run(Command::new(&bin).current_dir(&cwd).args([
        "--cli",
        env!("CARGO_BIN_EXE_bench-server"),
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=2",
        "--tool-arg",
        "b=3",
    ]));
    let start = call.find('{').expect(&call);
    let v: serde_json::Value = serde_json::from_str(&call[start..]).expect(&call);
    assert_eq!(v["content"][0]["text"], "5");
}

#[test]
fn our_client_drives_server_everything() {
    let Some(_) = peers() else { return };
    let out = run(&mut Command::new(env!("CARGO_BIN_EXE_everything-client")));
    assert!(out.contains("connected: mcp-servers/everything"), "{out}");
    assert!(out.contains("echo: Echo: hello from Rust"), "{out}");
    assert!(out.contains("get-sum: The sum of 2 and 40 is 42."), "{out}");
    assert!(out.contains("progress: 4/4"), "{out}");
    assert!(out.contains("cancelled: after"), "{out}");
    assert!(
        out.contains("still serving after the cancel: ping ok"),
        "{out}"
    );
}

#[test]
fn typescript_sdk_task_client_against_everything_server_over_stdio() {
    let Some(p) = peers() else { return };
    let out = run(&mut ts_tasks::client(
        &p,
        "--stdio",
        env!("CARGO_BIN_EXE_everything-server"),
    ));
    ts_tasks::check(&out);
}
