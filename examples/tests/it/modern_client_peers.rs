//! Our client against servers we did not write, in protocol 2026-07-28 and beside it in the handshake era:
//!
//! - the Python SDK (`mcp` 2.3, scripts/python_server_modern.py) over stdio and Streamable HTTP: the
//!   client finds it modern by probing, answers its input requests (elicitation, sampling, roots, two
//!   rounds) through the handlers registered once, listens for list changes, reads, gets prompts, and
//!   gets log messages only at the level it asked for;
//! - rmcp 3.11 (a dev-dependency) over an in-process pipe, once with [`Era::Legacy`] (its tools ask the
//!   client with real requests) and once with [`Era::Auto`] (they answer `input_required`), with the same
//!   client code.
//!
//! - `@modelcontextprotocol/server-everything` (TypeScript SDK, 2025-11-25) for task-augmented calls of the
//!   handshake era: a task polled with `tasks/get`, its result awaited with `tasks/result` while the
//!   server asks for a clarification through the same elicitation handler, and a task cancelled.
//!
//! The Python and npm peers come from scripts/install-peers.sh; without them those tests say so and
//! pass, unless MCP_PEERS_REQUIRED=1 (as in CI), where they fail.

use mcp_runtime::http::HttpClientConfig;
use mcp_runtime::protocol::TaskStatus;
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    ErrorObject, LoggingLevel, ProtocolVersion, Role, Root, SubscriptionFilter,
};
use mcp_runtime::{Client, ClientBuilder, Era, EraCache, StderrMode, TaskStart};
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use test_support::{free_port, python, server_everything, wait_listening, Spawned};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../scripts/python_server_modern.py"
);

/// The handlers every test registers once, whatever the era.
fn builder() -> ClientBuilder {
    Client::builder()
        .name("modern-client-peers")
        .timeout(Some(Duration::from_secs(30)))
        // Each test probes afresh.
        .era_cache(EraCache::default())
        .elicitation(|p: ElicitParams| async move {
            let confirm = p.message.contains('?');
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(json!({"confirm": confirm}).as_object().unwrap().clone()),
                meta: None,
            })
        })
        .sampling(|_p: CreateMessageParams| async move {
            Ok::<_, ErrorObject>(CreateMessageResult {
                role: Role::Assistant,
                content: json!({"type": "text", "text": "Paris"}),
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
            })
        })
        .roots(vec![Root {
            uri: "file:///workspace".into(),
            name: Some("workspace".into()),
            meta: None,
        }])
}

async fn text(c: &Client, tool: &str, args: Value) -> String {
    let r = c
        .call_tool(tool, args)
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(!r.is_error(), "{tool}: {r:?}");
    r.text_content()
}

async fn drive_python(c: &Client) {
    assert!(c.is_modern(), "the Python server should be found modern");
    assert_eq!(c.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(c.server().server_info.name, "python-modern-peer");
    assert!(c.discover_result().is_some());

    let tools = c.list_all_tools().await.unwrap();
    for t in [
        "echo",
        "confirm_delete",
        "ask_model",
        "my_roots",
        "two_rounds",
        "touch",
        "chatty",
    ] {
        assert!(
            tools.iter().any(|x| x.name == t),
            "{t} missing from {tools:?}"
        );
    }
    assert_eq!(text(c, "echo", json!({"message": "hi"})).await, "echo: hi");
    // Multi round-trip requests, answered through the handlers.
    assert_eq!(
        text(c, "confirm_delete", json!({"filename": "a.txt"})).await,
        "deleted a.txt"
    );
    assert_eq!(
        text(c, "ask_model", json!({"question": "Capital of France?"})).await,
        "model said: Paris"
    );
    assert_eq!(text(c, "my_roots", json!({})).await, "file:///workspace");
    assert_eq!(text(c, "two_rounds", json!({})).await, "two rounds done");

    let read = c.read_resource("test://static").await.unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "static content"
    );
    assert!(read.cache.is_some(), "caching hints are surfaced: {read:?}");
    let prompt = c
        .get_prompt("greet", [("name".to_string(), "Ada".to_string())].into())
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&prompt.messages)
            .unwrap()
            .contains("Hello, Ada!"),
        "{prompt:?}"
    );

    // subscriptions/listen: acknowledged, then the change the server announces.
    let mut sub = c
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(sub.granted().tools(), "{:?}", sub.granted());
    assert_eq!(text(c, "touch", json!({})).await, "touched");
    let n = tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("a tools/list_changed within 10 s")
        .expect("the stream is open");
    assert_eq!(n.method, "notifications/tools/list_changed");
    drop(sub);

    // Log messages only at the level asked for, carried on the call's own stream.
    let mut notes = c.notifications();
    c.set_logging_level(LoggingLevel::Info).await.unwrap();
    assert_eq!(text(c, "chatty", json!({})).await, "said things");
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut levels = Vec::new();
    while Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_millis(300), notes.recv()).await {
            Ok(Ok(n)) if n.method == "notifications/message" => {
                levels.push(n.params.unwrap()["level"].as_str().unwrap().to_string())
            }
            Ok(Ok(_)) => {}
            _ => break,
        }
    }
    assert_eq!(levels, ["info"], "log levels received");
    // And the client still works after all of that.
    assert_eq!(
        text(c, "echo", json!({"message": "still"})).await,
        "echo: still"
    );
}

#[tokio::test]
async fn python_sdk_server_over_stdio_in_2026() {
    let Some(py) = python() else { return };
    let mut cmd = tokio::process::Command::new(py);
    cmd.arg(SCRIPT).arg("stdio");
    let c = builder()
        .stderr(StderrMode::Capture)
        .spawn(cmd)
        .await
        .expect("connect");
    drive_python(&c).await;
    c.close().await;
}

#[tokio::test]
async fn python_sdk_server_over_streamable_http_in_2026() {
    let Some(py) = python() else { return };
    let port = free_port();
    let _server = Spawned(
        Command::new(py)
            .args([SCRIPT, "http", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn"),
    );
    wait_listening(port, "the Python server", Duration::from_secs(30));
    let c = builder()
        .connect_http(
            &format!("http://127.0.0.1:{port}/mcp"),
            HttpClientConfig::default(),
        )
        .await
        .expect("connect");
    drive_python(&c).await;
    c.close().await;
}

// Roots are deprecated in 2026-07-28 (SEP-2577), and rmcp says so; they still work, in both eras.
#[allow(deprecated)]
mod rmcp_peer {
    use rmcp::handler::server::tool::InputResponses;
    use rmcp::handler::server::wrapper::Parameters;
    use rmcp::model::{
        CallToolResponse, CallToolResult, ContentBlock, InputRequiredResult, ProtocolVersion,
        ServerCapabilities, ServerConfig,
    };
    use rmcp::service::RequestContext;
    use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Echo {
        pub message: String,
    }

    #[derive(Clone)]
    pub struct Peer;

    #[tool_router]
    impl Peer {
        #[tool(description = "Echo the message back")]
        async fn echo(&self, Parameters(e): Parameters<Echo>) -> String {
            format!("rmcp echo: {}", e.message)
        }

        /// Asks the client for its roots: a `roots/list` request in the handshake era, an input request
        /// in 2026-07-28.
        #[tool(description = "The client's roots")]
        async fn roots(
            &self,
            ctx: RequestContext<RoleServer>,
            InputResponses(responses): InputResponses,
        ) -> Result<CallToolResponse, ErrorData> {
            let modern = ctx
                .protocol_version()
                .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
            let uris: Vec<String> = if modern {
                let Some(answer) = responses.and_then(|mut r| r.remove("roots")) else {
                    let requests = serde_json::from_value(serde_json::json!({
                        "roots": {"method": "roots/list"}
                    }))
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    return Ok(InputRequiredResult::from_input_requests(requests).into());
                };
                answer["roots"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r["uri"].as_str().map(str::to_string))
                    .collect()
            } else {
                let r = ctx
                    .peer
                    .list_roots()
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                r.roots.into_iter().map(|r| r.uri).collect()
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(uris.join(","))]).into())
        }
    }

    #[tool_handler]
    impl ServerHandler for Peer {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }
}

async fn drive_rmcp(era: Era) {
    use rmcp::ServiceExt;
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (their_read, their_write) = tokio::io::split(theirs);
    let server = tokio::spawn(async move {
        let running = rmcp_peer::Peer
            .serve((their_read, their_write))
            .await
            .expect("rmcp serves");
        let _ = running.waiting().await;
    });
    let (read, write) = tokio::io::split(ours);
    let c = builder()
        .era(era)
        .connect(read, write)
        .await
        .expect("connect to rmcp");
    assert_eq!(c.is_modern(), era != Era::Legacy, "{era:?}");
    assert_eq!(
        text(&c, "echo", json!({"message": "hi"})).await,
        "rmcp echo: hi"
    );
    // The same handler answers rmcp's roots/list request (handshake era) or its input request (2026).
    assert_eq!(text(&c, "roots", json!({})).await, "file:///workspace");
    let e = c.call_tool("nope", json!({})).await;
    assert!(e.is_err() || e.unwrap().is_error(), "unknown tool");
    assert_eq!(
        text(&c, "echo", json!({"message": "after"})).await,
        "rmcp echo: after"
    );
    c.close().await;
    server.abort();
}

#[tokio::test]
async fn rmcp_server_in_the_handshake_era() {
    drive_rmcp(Era::Legacy).await;
}

#[tokio::test]
async fn rmcp_server_in_2026_found_by_probing() {
    drive_rmcp(Era::Auto).await;
}

#[tokio::test]
async fn server_everything_tasks_in_the_handshake_era() {
    let Some(bin) = server_everything() else {
        return;
    };
    let mut cmd = tokio::process::Command::new(bin);
    cmd.arg("stdio");
    let c = builder()
        .stderr(StderrMode::Null)
        .spawn(cmd)
        .await
        .expect("connect");
    assert!(!c.is_modern(), "server-everything speaks the handshake era");
    // An ambiguous query pauses for a clarification, asked (2025-11-25) through tasks/result.
    let start = c
        .call_tool_as_task(
            "simulate-research-query",
            json!({"topic": "rust", "ambiguous": true}),
            Some(60_000),
        )
        .await
        .unwrap();
    let TaskStart::Task(task) = start else {
        panic!("a task was asked for: {start:?}")
    };
    assert_eq!(task.status, TaskStatus::Working);
    let polled = c.get_task(&task.task_id).await.unwrap();
    assert_eq!(polled.task_id, task.task_id);
    let result = c.task_result(&task.task_id).await.unwrap();
    assert!(!result.is_error(), "{result:?}");
    assert!(
        result.text_content().to_lowercase().contains("rust"),
        "{result:?}"
    );
    assert_eq!(
        c.get_task(&task.task_id).await.unwrap().status,
        TaskStatus::Completed
    );

    // A task cancelled while it works ends cancelled; cancelling it again is an error from the server.
    let TaskStart::Task(t) = c
        .call_tool_as_task("simulate-research-query", json!({"topic": "go"}), None)
        .await
        .unwrap()
    else {
        panic!("a task was asked for")
    };
    c.cancel_task(&t.task_id).await.unwrap();
    assert_eq!(
        c.get_task(&t.task_id).await.unwrap().status,
        TaskStatus::Cancelled
    );
    assert!(
        c.cancel_task(&t.task_id).await.is_err(),
        "a finished task cannot be cancelled"
    );
    // And a plain call still works.
    assert!(c.call_tool("echo", json!({"message": "x"})).await.is_ok());
    c.close().await;
}
