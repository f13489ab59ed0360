//! Real peers over HTTP: the Python SDK client and the MCP Inspector CLI against `everything-server
//! --http` (Streamable HTTP and the legacy SSE transport), and our client against
//! `@modelcontextprotocol/server-everything` in its `streamableHttp` and `sse` modes. The peers come from
//! scripts/install-peers.sh; without them a test says so and passes, unless MCP_PEERS_REQUIRED=1.

use crate::ts_tasks;

use mcp_runtime::http::{HttpClientConfig, HttpTransportKind};
use mcp_runtime::protocol::ProgressParams;
use mcp_runtime::{CallOptions, Client};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use test_support::{free_port, json_after_banner, run, spawn_listening, Spawned};

fn peers() -> Option<PathBuf> {
    test_support::peers_with(&[
        "py/bin/python",
        "node/node_modules/.bin/mcp-server-everything",
    ])
}

fn everything_server() -> (Spawned, u16) {
    let port = free_port();
    (
        spawn_listening(
            Command::new(env!("CARGO_BIN_EXE_everything-server")).arg("--http"),
            port,
        ),
        port,
    )
}

const PYTHON_CLIENT: &str = r#"
import asyncio, json, sys
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client

async def main():
    url, sse_url = sys.argv[1], sys.argv[2]
    async with Client(url) as c:
        tools = await c.list_tools()
        text = await c.call_tool("test_simple_text", {})
        res = await c.read_resource("test://static-text")
        prompt = await c.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    async with sse_client(sse_url) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            legacy = await s.call_tool("test_simple_text", {})
    print(json.dumps({
        "tools": sorted(t.name for t in tools.tools),
        "text": text.content[0].text,
        "resource": res.contents[0].text,
        "prompt": prompt.messages[0].content.text,
        "legacy": legacy.content[0].text,
    }))

asyncio.run(main())
"#;

#[test]
fn python_sdk_client_against_everything_server_over_http() {
    let Some(p) = peers() else { return };
    let (_server, port) = everything_server();
    let out = run(Command::new(p.join("py/bin/python")).args([
        "-c",
        PYTHON_CLIENT,
        &format!("http://localhost:{port}/mcp"),
        &format!("http://localhost:{port}/sse"),
    ]));
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "test_sampling"),
        "{v}"
    );
    assert_eq!(v["text"], "This is a simple text response for testing.");
    assert_eq!(
        v["resource"],
        "This is the content of the static text resource."
    );
    assert_eq!(v["prompt"], "Prompt with arguments: arg1='a', arg2='b'");
    assert_eq!(v["legacy"], "This is a simple text response for testing.");
}

#[test]
fn inspector_cli_against_everything_server_over_http_and_sse() {
    let Some(p) = peers() else { return };
    let (_server, port) = everything_server();
    // inspector-cli 1.0.3 finds its package.json relative to the working directory.
    let cwd = p.join("node/node_modules");
    let bin = p.join("node/node_modules/.bin/mcp-inspector-cli");
    let url = format!("http://localhost:{port}/mcp");
    let list = json_after_banner(&run(Command::new(&bin).current_dir(&cwd).args([
        "--cli",
        &url,
        "--transport",
        "http",
        "--method",
        "tools/list",
    ])));
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for fixture in [
        "test_simple_text",
        "json_schema_2020_12_tool",
        "test_input_required_result_elicitation",
        "test_custom_headers",
    ] {
        assert!(names.contains(&fixture), "{fixture} missing from {list}");
    }
    let unique: std::collections::HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "a tool is listed twice: {list}");
    let call = json_after_banner(&run(Command::new(&bin).current_dir(&cwd).args([
        "--cli",
        &url,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "test_simple_text",
    ])));
    assert_eq!(
        call["content"][0]["text"],
        "This is a simple text response for testing."
    );
    let sse = format!("http://localhost:{port}/sse");
    let read = json_after_banner(&run(Command::new(&bin).current_dir(&cwd).args([
        "--cli",
        &sse,
        "--transport",
        "sse",
        "--method",
        "resources/read",
        "--uri",
        "test://static-text",
    ])));
    assert_eq!(
        read["contents"][0]["text"],
        "This is the content of the static text resource."
    );
}

async fn drive_server_everything(url: &str, transport: HttpTransportKind) {
    let config = HttpClientConfig {
        transport,
        ..Default::default()
    };
    let c = Client::builder()
        .name("http-peers")
        .timeout(Some(Duration::from_secs(30)))
        .connect_http(url, config)
        .await
        .expect(url);
    assert_eq!(c.server().server_info.name, "mcp-servers/everything");
    let tools = c.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"));
    assert_eq!(
        c.call_tool("echo", json!({"message": "over HTTP"}))
            .await
            .unwrap()
            .text_content(),
        "Echo: over HTTP"
    );
    assert_eq!(
        c.call_tool("get-sum", json!({"a": 2, "b": 40}))
            .await
            .unwrap()
            .text_content(),
        "The sum of 2 and 40 is 42."
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let opts = CallOptions {
        on_progress: Some(Arc::new(move |p: ProgressParams| {
            s.lock().unwrap().push(p.progress)
        })),
        ..Default::default()
    };
    c.call_tool_with(
        "trigger-long-running-operation",
        json!({"duration": 1, "steps": 3}),
        opts,
    )
    .await
    .unwrap();
    assert_eq!(seen.lock().unwrap().len(), 3, "progress notifications");
    c.close().await;
}

#[tokio::test]
async fn our_client_against_server_everything_streamable_http() {
    let Some(p) = peers() else { return };
    let port = free_port();
    let _server = spawn_listening(
        Command::new(p.join("node/node_modules/.bin/mcp-server-everything")).arg("streamableHttp"),
        port,
    );
    drive_server_everything(
        &format!("http://localhost:{port}/mcp"),
        HttpTransportKind::StreamableHttp,
    )
    .await;
}

#[tokio::test]
async fn our_client_against_server_everything_sse() {
    let Some(p) = peers() else { return };
    let port = free_port();
    let _server = spawn_listening(
        Command::new(p.join("node/node_modules/.bin/mcp-server-everything")).arg("sse"),
        port,
    );
    // Auto: the POST is refused, so the client falls back to the legacy transport.
    drive_server_everything(
        &format!("http://localhost:{port}/sse"),
        HttpTransportKind::Auto,
    )
    .await;
}

#[test]
fn typescript_sdk_task_client_against_everything_server_over_http() {
    let Some(p) = peers() else { return };
    let (_server, port) = everything_server();
    let out = run(&mut ts_tasks::client(
        &p,
        "--url",
        &format!("http://localhost:{port}/mcp"),
    ));
    ts_tasks::check(&out);
}
