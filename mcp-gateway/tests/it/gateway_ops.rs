//! The operations side of the gateway: discovery mode (three meta-tools instead of the catalogue, at a
//! fraction of its prompt cost), and, through the real binary in HTTP mode, `/health`, `/metrics`, the
//! tracing span of each hop and the upstream's secrets kept out of results, errors, health and logs.

use crate::common;

use common::{bin, catalogue, config, connect, get, names};
use mcp_gateway::Gateway;
use mcp_runtime::client::Client;
use mcp_runtime::http::HttpClientConfig;
use mcp_runtime::protocol::{CallToolResult, Tool};
use mcp_runtime::Error;
use serde_json::{json, Value};
use std::io::Write;
use std::time::Duration;

/// What a tool list costs in the prompt, measured as `mcp-codegen audit` does: compact JSON bytes.
fn bytes(tools: &[Tool]) -> usize {
    tools
        .iter()
        .map(|t| serde_json::to_string(t).unwrap().len())
        .sum()
}

fn structured(r: &CallToolResult) -> &Value {
    r.structured_content.as_ref().expect("structured content")
}

#[tokio::test]
async fn discovery_mode_lists_three_meta_tools_that_reach_the_whole_catalogue() {
    let full = Gateway::start(config(catalogue(false))).await;
    let client = connect(&full, Client::builder()).await;
    let all = client.list_all_tools().await.unwrap();
    assert!(all.len() > 20, "{}", all.len());

    let gw = Gateway::start(config(catalogue(true))).await;
    assert_eq!(gw.catalogue_len(), Some(all.len()));
    let client = connect(&gw, Client::builder()).await;
    let meta = client.list_all_tools().await.unwrap();
    assert_eq!(names(&meta), ["call_tool", "describe_tool", "search_tools"]);
    let (with, without) = (bytes(&meta), bytes(&all));
    eprintln!(
        "tools/list: {without} bytes for {} tools; {with} bytes in discovery mode",
        all.len()
    );
    assert!(
        with * 10 <= without,
        "discovery mode must cost at least 90% less: {with} vs {without} bytes"
    );

    // Search: the echo tool of bench-server comes first for "echo".
    let r = client
        .call_tool("search_tools", json!({"query": "echo text", "limit": 3}))
        .await
        .unwrap();
    let found = &structured(&r)["tools"];
    assert_eq!(found[0]["name"], "bench_echo", "{r:?}");
    assert_eq!(found[0]["description"], "Return the text unchanged.");
    assert!(found.as_array().unwrap().len() <= 3);
    assert!(structured(&r)["total"].as_u64().unwrap() >= 1);

    // Describe: the full definition, schema included.
    let r = client
        .call_tool("describe_tool", json!({"name": "bench_add"}))
        .await
        .unwrap();
    let def = structured(&r);
    assert_eq!(def["name"], "bench_add");
    assert_eq!(def["inputSchema"]["required"], json!(["a", "b"]));
    let listed = all.iter().find(|t| t.name == "bench_add").unwrap();
    assert_eq!(def, &serde_json::to_value(listed).unwrap());

    // Call: through the same route a listed tool takes.
    let r = client
        .call_tool(
            "call_tool",
            json!({"name": "bench_add", "arguments": {"a": 2, "b": 40}}),
        )
        .await
        .unwrap();
    assert_eq!(r.text_content(), "42");
    let r = client
        .call_tool("call_tool", json!({"name": "jira_search_jira", "arguments": {"project": "PROJ", "jql": "status = open"}}))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    // The upstream's own argument errors come back as they would for a listed tool.
    let direct = connect(&full, Client::builder()).await;
    let bad = json!({"a": "two"});
    let through = client
        .call_tool("call_tool", json!({"name": "bench_add", "arguments": bad}))
        .await;
    let listed = direct.call_tool("bench_add", bad).await;
    assert_eq!(format!("{through:?}"), format!("{listed:?}"));

    // Unknown names are tool errors that say what to do; bad meta arguments are -32602.
    for (tool, args) in [
        ("describe_tool", json!({"name": "nope"})),
        ("call_tool", json!({"name": "nope", "arguments": {}})),
    ] {
        let r = client.call_tool(tool, args).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(r.text_content().contains("search_tools"), "{r:?}");
    }
    match client
        .call_tool("call_tool", json!({"arguments": {}}))
        .await
    {
        Err(Error::Rpc(e)) => assert_eq!(e.code, -32602, "{e:?}"),
        other => panic!("{other:?}"),
    }
    // The catalogue's tools are not callable directly in discovery mode: only the meta-tools are listed.
    match client.call_tool("bench_echo", json!({"text": "x"})).await {
        Err(Error::Rpc(e)) => assert_eq!(e.code, -32602, "{e:?}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn health_metrics_spans_and_no_secret_anywhere_through_the_binary() {
    const SECRET: &str = "sk-test-0123456789abcdef";
    // `bench` is healthy and holds a secret in its env; `leaky` prints its secret to stderr and dies.
    let mut cfg = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    cfg.write_all(
        json!({"mcpServers": {
            "bench": {"command": bin("bench-server"), "env": {"API_TOKEN": SECRET}},
            "leaky": {
                "command": "sh",
                "args": ["-c", "echo \"starting with token $API_TOKEN\" >&2; exit 3"],
                "env": {"API_TOKEN": SECRET},
            },
        }})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    let log = tempfile::NamedTempFile::new().unwrap();
    let (mut child, port) = common::spawn_http_gateway(cfg.path(), &[], |cmd| {
        cmd.env("RUST_LOG", "mcp_gateway=debug")
            .stderr(log.reopen().unwrap());
    })
    .await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::builder()
        .connect_http(&url, HttpClientConfig::default())
        .await
        .unwrap();

    for i in 0..3 {
        let r = client
            .call_tool("bench_echo", json!({"text": format!("hi {i}")}))
            .await
            .unwrap();
        assert_eq!(r.text_content(), format!("hi {i}"));
    }
    // A result that carries the secret comes back without it.
    let r = client
        .call_tool("bench_echo", json!({"text": format!("token={SECRET}")}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "token=[redacted]");
    // A tool's own failure (bad arguments: `isError`) counts as a tool error.
    let r = client
        .call_tool("bench_add", json!({"a": "x"}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");

    let (status, body) = get(port, "/health").await;
    assert_eq!(status, 200, "{body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(health["status"], "degraded", "{health}");
    let ups = health["upstreams"].as_array().unwrap();
    let bench = ups.iter().find(|u| u["name"] == "bench").unwrap();
    assert_eq!(bench["state"], "up");
    assert_eq!(bench["tools"], 3);
    assert!(bench["pid"].as_u64().is_some());
    let leaky = ups.iter().find(|u| u["name"] == "leaky").unwrap();
    assert_eq!(leaky["state"], "down");
    let reason = leaky["reason"].as_str().unwrap();
    assert!(
        reason.contains("starting with token [redacted]"),
        "{reason}"
    );

    let (status, metrics) = get(port, "/metrics").await;
    assert_eq!(status, 200);
    for line in [
        r#"mcp_gateway_tool_calls_total{upstream="bench",tool="echo"} 4"#,
        r#"mcp_gateway_tool_calls_total{upstream="bench",tool="add"} 1"#,
        r#"mcp_gateway_tool_errors_total{upstream="bench",tool="add",kind="tool"} 1"#,
        r#"mcp_gateway_tool_errors_total{upstream="bench",tool="add",kind="rpc"} 0"#,
        r#"mcp_gateway_tool_errors_total{upstream="bench",tool="echo",kind="rpc"} 0"#,
        r#"mcp_gateway_tool_call_duration_seconds_count{upstream="bench",tool="echo"} 4"#,
    ] {
        assert!(metrics.contains(line), "{line} missing from\n{metrics}");
    }
    assert!(metrics.contains("mcp_gateway_tool_call_duration_seconds_bucket{"));

    drop(client);
    let _ = child.kill().await;
    let _ = child.wait().await;
    let logs = std::fs::read_to_string(log.path()).unwrap();
    // One span per hop, with the upstream, the tool, the latency and the outcome.
    let hops: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("hop{upstream=bench tool=echo"))
        .collect();
    assert!(hops.len() >= 4, "{logs}");
    assert!(hops.iter().all(|l| l.contains("latency_us=")), "{logs}");
    assert!(hops.iter().any(|l| l.contains("outcome=ok")), "{logs}");
    assert!(
        logs.lines()
            .any(|l| l.contains("hop{upstream=bench tool=add") && l.contains("outcome=tool_error")),
        "{logs}"
    );
    // The leaky upstream's failure is in the logs, without its secret.
    assert!(logs.contains("starting with token [redacted]"), "{logs}");
    assert!(
        !logs.contains(SECRET),
        "the secret leaked into the logs:\n{logs}"
    );
}

#[tokio::test]
async fn an_upstream_that_keeps_failing_is_cut_off_then_retried() {
    let dir = tempfile::tempdir().unwrap();
    let n = dir.path().join("attempts");
    // Attempt 0 serves for a second and dies; attempts 1 and 2 fail at once; from attempt 3 it serves.
    // With a budget of 2 restarts, the third failure opens the circuit for the cooldown.
    let script = format!(
        r#"n=$(cat '{n}' 2>/dev/null || echo 0); echo $((n+1)) > '{n}'
if [ "$n" -eq 0 ]; then exec timeout 1 '{bench}'; fi
if [ "$n" -ge 3 ]; then exec '{bench}'; fi
echo "attempt $n failed" >&2; exit 1"#,
        n = n.display(),
        bench = bin("bench-server"),
    );
    let gw = Gateway::start(config(json!({"mcpServers": {
        "flaky": {
            "command": "sh", "args": ["-c", script],
            "restart": {"budget": 2, "windowMs": 60000, "cooldownMs": 2500},
        },
        "bench": {"command": bin("bench-server")},
    }})))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let r = client
        .call_tool("flaky_echo", json!({"text": "first"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "first");

    let status = |gw: &Gateway| gw.status().into_iter().find(|s| s.name == "flaky").unwrap();
    common::eventually(Duration::from_secs(15), "the circuit to open", || {
        status(&gw)
            .reason
            .is_some_and(|r| r.starts_with("circuit open"))
    })
    .await;
    let s = status(&gw);
    assert_eq!(s.state, "down");
    let reason = s.reason.unwrap();
    assert!(
        reason.contains("more than 2 failures within 60s"),
        "{reason}"
    );
    assert!(reason.contains("attempt 2 failed"), "{reason}");
    // While it is open, calls fail at once and say why; the other upstream keeps serving.
    match client.call_tool("flaky_echo", json!({"text": "x"})).await {
        Err(Error::Rpc(e)) => assert!(e.message.contains("circuit open"), "{e:?}"),
        other => panic!("{other:?}"),
    }
    let r = client
        .call_tool("bench_echo", json!({"text": "still here"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "still here");
    // No restart is attempted during the cooldown.
    assert_eq!(std::fs::read_to_string(&n).unwrap().trim(), "3");

    // After the cooldown it is tried once more, and this time it stays up.
    common::eventually(Duration::from_secs(20), "the upstream to come back", || {
        status(&gw).state == "up"
    })
    .await;
    let r = client
        .call_tool("flaky_echo", json!({"text": "back"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "back");
}
