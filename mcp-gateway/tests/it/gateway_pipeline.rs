//! The worked example of `../shared/seeds/004_*.txt` (section 4) as a composite tool of the gateway:
//! extract over stdio, summarize over legacy SSE, the weather over OpenAPI, the report over Streamable
//! HTTP, each step's result feeding the next; and the NDJSON dialect of the same seed (section 2.3),
//! whose `event/delta` frames reach the caller as `notifications/progress`.

use crate::common;

use common::{config, connect, example_file, serve_example, workspace_bin};
use mcp_gateway::Gateway;
use mcp_runtime::client::{CallOptions, Client};
use mcp_runtime::protocol::{CallToolResult, ProgressParams, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Error, Server};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const KEY: &str = "weather-secret-key";

fn progress_sink() -> (Arc<Mutex<Vec<ProgressParams>>>, CallOptions) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let opts = CallOptions {
        on_progress: Some(Arc::new(move |p: ProgressParams| s.lock().unwrap().push(p))),
        ..Default::default()
    };
    (seen, opts)
}

#[tokio::test]
async fn the_seed_pipeline_runs_across_four_transports() {
    let (_llm, llm) = serve_example("gateway_summarize", &[]).await;
    let (_api, api) = serve_example("gateway_weather", &[("WEATHER_API_KEY", KEY)]).await;
    let (_report, report) = serve_example("gateway_report", &[]).await;
    let gw = Gateway::start(config(json!({
        "mcpServers": {
            "extract": {"command": workspace_bin("gateway_extract")},
            "llm": {"url": format!("http://{llm}/sse"), "type": "sse"},
            "weather": {"openapi": example_file("gateway/weather.yaml"), "baseUrl": format!("http://{api}"),
                        "headers": {"X-Api-Key": KEY}},
            "compose": {"url": format!("http://{report}/mcp"), "type": "streamable-http"},
        },
        "composites": {"pipeline": {
            "description": "Extract a page, summarize it, add the weather, write a report.",
            "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}, "city": {"type": "string"}},
                            "required": ["url", "city"]},
            "steps": [
                {"server": "extract", "tool": "extract", "arguments": {"url": "${input.url}"}},
                {"id": "summary", "server": "llm", "tool": "summarize", "arguments": {"text": "${extract.text}"}},
                {"id": "weather", "server": "weather", "tool": "weather_get", "arguments": {"city": "${input.city}"}},
                {"id": "report", "server": "compose", "tool": "compose_report",
                 "arguments": {"summary": "${summary.summary}", "weather": "${weather}"}},
            ],
        }},
    })))
    .await;
    let status = gw.status();
    assert!(status.iter().all(|s| s.state == "up"), "{status:?}");
    let client = connect(&gw, Client::builder()).await;
    let tools = client.list_all_tools().await.unwrap();
    let pipeline = tools.iter().find(|t| t.name == "pipeline").unwrap();
    assert_eq!(pipeline.input_schema["required"], json!(["url", "city"]));

    let (seen, opts) = progress_sink();
    let r = client
        .call_tool_with(
            "pipeline",
            json!({"url": "https://example.com/post", "city": "Tokyo"}),
            opts,
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, None, "{r:?}");
    let url = r.structured_content.as_ref().unwrap()["doc_url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(url.starts_with("https://files.local/report-"), "{url}");
    // The same inputs through the steps one by one give the same report: the data passed is right.
    let direct = client
        .call_tool(
            "compose_compose_report",
            json!({
                "summary": "Summary sentence 1: Intro paragraph of https://example.com/post. Summary sentence 2: 2 lines read.",
                "weather": {"city": "Tokyo", "temp": 30.1, "unit": "C"},
            }),
        )
        .await
        .unwrap();
    assert_eq!(direct.structured_content.unwrap()["doc_url"], json!(url));
    // Progress: every step announced in order, the steps' own messages between, numbers increasing.
    let seen = seen.lock().unwrap().clone();
    let messages: Vec<String> = seen.iter().filter_map(|p| p.message.clone()).collect();
    let starts: Vec<&String> = messages.iter().filter(|m| m.contains("started")).collect();
    assert_eq!(starts.len(), 4, "{messages:#?}");
    for (i, id) in ["extract", "summary", "weather", "report"]
        .iter()
        .enumerate()
    {
        assert!(
            starts[i].starts_with(&format!("step {id}: started")),
            "{messages:#?}"
        );
    }
    assert!(
        messages
            .iter()
            .any(|m| m == "step extract: Intro paragraph of https://example.com/post."),
        "{messages:#?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("step summary: Summary sentence 1")),
        "{messages:#?}"
    );
    assert!(
        messages.iter().any(|m| m == "step report: Report title"),
        "{messages:#?}"
    );
    assert!(
        seen.windows(2).all(|w| w[0].progress < w[1].progress),
        "{seen:?}"
    );

    // A failing step ends the composite with an error naming it (404 of the weather API: a tool error).
    let r = client
        .call_tool(
            "pipeline",
            json!({"url": "https://example.com", "city": "Atlantis"}),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let text = r.text_content();
    assert!(
        text.contains("step `weather`") && text.contains("404"),
        "{text}"
    );
    assert!(!text.contains(KEY), "{text}");
    // A reference that finds nothing is an invalid-params error naming the step.
    match client
        .call_tool("pipeline", json!({"url": "https://example.com"}))
        .await
    {
        Err(Error::Rpc(e)) => {
            assert_eq!(e.code, -32602, "{e:?}");
            assert!(e.message.contains("step `weather`"), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_cancelled_composite_stops_its_running_step() {
    // An upstream whose `wait` tool counts how it ended.
    let ended = Arc::new(Mutex::new(Vec::<&'static str>::new()));
    let e = ended.clone();
    let wait = ToolRoute::new(
        Tool::new(
            "wait",
            "waits a minute",
            json!({"type": "object"}).as_object().unwrap().clone(),
        ),
        move |_: Arguments, ctx: Context| {
            let e = e.clone();
            async move {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(60)) => e.lock().unwrap().push("finished"),
                    _ = ctx.cancelled() => e.lock().unwrap().push("cancelled"),
                }
                Ok(CallToolResult::text("waited"))
            }
        },
    );
    let upstream = Server::builder().tool(wait).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(mcp_runtime::http::serve_http_on(
        upstream,
        listener,
        mcp_runtime::http::HttpConfig::default(),
        std::future::pending(),
    ));
    let gw = Gateway::start(config(json!({
        "mcpServers": {"bench": {"command": workspace_bin("bench-server")}, "up": {"url": url}},
        "composites": {"slow": {"steps": [
            {"server": "bench", "tool": "echo", "arguments": {"text": "first"}},
            {"server": "up", "tool": "wait"},
            {"id": "never", "server": "bench", "tool": "echo", "arguments": {"text": "${echo.text}"}},
        ]}},
    })))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let t0 = Instant::now();
    // The call times out on our side, which sends notifications/cancelled to the gateway.
    let r = client
        .call_tool_with(
            "slow",
            json!({}),
            CallOptions {
                timeout: Some(Duration::from_millis(700)),
                ..Default::default()
            },
        )
        .await;
    assert!(matches!(r, Err(Error::Timeout { .. })), "{r:?}");
    // The running step's upstream call is cancelled at once, and no later step runs.
    let deadline = Instant::now() + Duration::from_secs(5);
    while ended.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(*ended.lock().unwrap(), ["cancelled"]);
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
}

#[tokio::test]
async fn ndjson_upstream_deltas_become_progress_and_http_errors_keep_their_status() {
    let (_report, report) = serve_example("gateway_report", &[]).await;
    let gw = Gateway::start(config(json!({"mcpServers": {
        "compose": {"url": format!("http://{report}/ndjson"), "type": "ndjson"},
        "broken": {"url": format!("http://{report}/no-such-path"), "type": "ndjson", "initTimeoutMs": 2000},
    }})))
    .await;
    let status = gw.status();
    assert_eq!(status[1].name, "compose");
    assert_eq!(status[1].state, "up", "{status:?}");
    // An upstream whose every POST is a 404 never comes up; the reason keeps the HTTP status.
    assert_eq!(status[0].state, "down", "{status:?}");
    assert!(
        status[0].reason.as_deref().unwrap_or("").contains("404"),
        "{status:?}"
    );

    let client = connect(&gw, Client::builder()).await;
    let (seen, opts) = progress_sink();
    let r = client
        .call_tool_with(
            "compose_compose_report",
            json!({"summary": "S.", "weather": {"temp": 30.1, "unit": "C"}}),
            opts,
        )
        .await
        .unwrap();
    assert!(r.structured_content.unwrap()["doc_url"]
        .as_str()
        .unwrap()
        .starts_with("https://files.local/report-"));
    let seen = seen.lock().unwrap().clone();
    let messages: Vec<_> = seen.iter().filter_map(|p| p.message.clone()).collect();
    assert_eq!(
        messages,
        [
            "Report title",
            " Report body: S. Weather: {\"temp\":30.1,\"unit\":\"C\"}"
        ]
    );
    assert_eq!(
        seen.iter().map(|p| p.progress).collect::<Vec<_>>(),
        [1.0, 2.0]
    );
}
