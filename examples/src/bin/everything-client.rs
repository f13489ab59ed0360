//! Our client against `@modelcontextprotocol/server-everything` over stdio: lists every tool page, calls
//! `echo` and `get-sum`, runs a long-running tool with progress, and cancels a call.
//!
//! The server command comes from `MCP_SERVER_EVERYTHING` (a path to `mcp-server-everything`), else
//! `.peers/` (see scripts/install-peers.sh), else `npx -y @modelcontextprotocol/server-everything`.

use mcp_runtime::protocol::ProgressParams;
use mcp_runtime::{CallOptions, Client, Error, StderrMode};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::process::Command;

fn server_command() -> Command {
    let local = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../.peers/node/node_modules/.bin/mcp-server-everything"
    );
    let mut cmd = match std::env::var("MCP_SERVER_EVERYTHING") {
        Ok(path) => Command::new(path),
        Err(_) if std::path::Path::new(local).exists() => Command::new(local),
        Err(_) => {
            let mut c = Command::new("npx");
            c.args(["-y", "@modelcontextprotocol/server-everything"]);
            c
        }
    };
    cmd.arg("stdio");
    cmd
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let client = Client::builder()
        .name("everything-client")
        .stderr(StderrMode::Capture)
        .timeout(Some(Duration::from_secs(30)))
        .spawn(server_command())
        .await?;
    let info = &client.server().server_info;
    println!(
        "connected: {} {} (protocol {})",
        info.name,
        info.version,
        client.protocol_version()
    );

    let tools = client.list_all_tools().await?;
    println!(
        "tools: {}",
        tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );

    let echo = client
        .call_tool("echo", json!({"message": "hello from Rust"}))
        .await?;
    println!("echo: {}", echo.text_content());

    let sum = client
        .call_tool("get-sum", json!({"a": 2, "b": 40}))
        .await?;
    println!("get-sum: {}", sum.text_content());

    let steps = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = steps.clone();
    let opts = CallOptions {
        on_progress: Some(Arc::new(move |p: ProgressParams| {
            println!("progress: {}/{}", p.progress, p.total.unwrap_or(0.0));
            seen.lock().unwrap().push(p.progress);
        })),
        ..Default::default()
    };
    let long = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 2, "steps": 4}),
            opts,
        )
        .await?;
    println!(
        "long-running: {} ({} progress notifications)",
        long.text_content().lines().next().unwrap_or(""),
        steps.lock().unwrap().len()
    );

    let started = Instant::now();
    let cancelled = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 30, "steps": 3}),
            CallOptions {
                timeout: Some(Duration::from_millis(500)),
                ..Default::default()
            },
        )
        .await;
    match cancelled {
        Err(Error::Timeout { .. }) => println!(
            "cancelled: after {} ms (notifications/cancelled sent)",
            started.elapsed().as_millis()
        ),
        other => anyhow::bail!("expected the call to time out and be cancelled, got {other:?}"),
    }
    client.ping().await?;
    println!("still serving after the cancel: ping ok");
    client.close().await;
    Ok(())
}
