//! `mcp_runtime::testing` on our everything-server, in-process: no child, no port, both eras.

// The server's binary, compiled into this test for its `build`; its `main` and flags go unused here.
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/everything-server/main.rs"]
mod everything_server;

use mcp_runtime::protocol::{codes, LoggingLevel};
use mcp_runtime::server::Eras;
use mcp_runtime::testing::{self, ExpectError, InProcess};
use mcp_runtime::{Era, Error, Server};
use serde_json::json;

fn server() -> Server {
    everything_server::build(Eras::Both, None, None)
}

async fn connect(era: Era) -> InProcess {
    match testing::connect(server(), era).await {
        Ok(mcp) => mcp,
        Err(e) => panic!("the in-process {era:?} connection failed: {e}"),
    }
}

#[tokio::test]
async fn both_eras_list_the_same_tools() -> Result<(), Error> {
    let legacy = connect(Era::Legacy).await;
    let modern = connect(Era::Modern).await;
    assert!(!legacy.is_modern() && modern.is_modern());
    let names = legacy.tool_names().await?;
    assert!(
        names.iter().any(|n| n == "test_tool_with_progress"),
        "{names:?}"
    );
    assert_eq!(names, modern.tool_names().await?);
    Ok(())
}

#[tokio::test]
async fn progress_is_observed_in_both_eras() {
    for era in [Era::Legacy, Era::Modern] {
        let mcp = connect(era).await;
        let call = mcp.observe_call("test_tool_with_progress", json!({})).await;
        let result = call.result.as_ref().map(|r| r.text_content());
        assert_eq!(
            result.ok().as_deref(),
            Some("Tool with progress executed successfully"),
            "{era:?}: {:?}",
            call.result
        );
        let seen: Vec<(f64, Option<f64>)> = call
            .progress
            .iter()
            .map(|p| (p.progress, p.total))
            .collect();
        assert_eq!(
            seen,
            [
                (0.0, Some(100.0)),
                (50.0, Some(100.0)),
                (100.0, Some(100.0))
            ],
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn log_messages_are_observed_in_both_eras() -> Result<(), Error> {
    for era in [Era::Legacy, Era::Modern] {
        let mcp = connect(era).await;
        mcp.set_logging_level(LoggingLevel::Info).await?;
        let call = mcp.observe_call("test_tool_with_logging", json!({})).await;
        assert!(call.result.is_ok(), "{era:?}: {:?}", call.result);
        assert_eq!(
            call.log_texts(),
            [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed"
            ],
            "{era:?}"
        );
        assert!(call.progress.is_empty());
    }
    Ok(())
}

#[tokio::test]
async fn errors_are_checked_by_code_and_message() {
    for era in [Era::Legacy, Era::Modern] {
        let mcp = connect(era).await;
        let e = mcp
            .call_tool("no_such_tool", json!({}))
            .await
            .expect_error(codes::INVALID_PARAMS, "no_such_tool");
        assert!(e.message.len() > "no_such_tool".len(), "{e:?}");
        // A tool's own failure is not a JSON-RPC error: call_tool_as says what the tool said.
        match mcp
            .call_tool_as::<serde_json::Value>("test_error_handling", json!({}))
            .await
        {
            Err(Error::Tool(text)) => assert!(text.contains("intentionally"), "{text}"),
            other => panic!("{era:?}: expected the tool's error, got {other:?}"),
        }
        // A result without structured content cannot be read as a type, and the error names the tool.
        match mcp
            .call_tool_as::<serde_json::Value>("test_simple_text", json!({}))
            .await
        {
            Err(Error::Decode { method, reason }) => {
                assert_eq!(method, "tools/call test_simple_text");
                assert!(reason.contains("no structuredContent"), "{reason}");
            }
            other => panic!("{era:?}: expected a decode error, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn snapshots_redact_what_changes_between_runs() {
    let mcp = connect(Era::Legacy).await;
    mcp_runtime::assert_tools_snapshot!("everything_server_tools", mcp);
    let result = match mcp
        .call_tool("test_multiple_content_types", json!({}))
        .await
    {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    mcp_runtime::assert_result_snapshot!("everything_server_multiple_content_types", result);

    // A 2026-07-28 answer names the server in `_meta`: redacted, the rest as in the handshake era.
    let modern = connect(Era::Modern).await;
    let answer: serde_json::Value = match modern
        .request(
            "tools/call",
            &json!({"name": "test_simple_text", "arguments": {}}),
        )
        .await
    {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    assert!(answer["_meta"].is_object(), "{answer}");
    mcp_runtime::assert_result_snapshot!(answer, @r#"
    {
      "_meta": "[redacted]",
      "content": [
        {
          "text": "This is a simple text response for testing.",
          "type": "text"
        }
      ],
      "resultType": "complete"
    }
    "#);
}
