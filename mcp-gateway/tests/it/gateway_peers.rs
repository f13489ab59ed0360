//! The gateway in front of a real server we did not write: the npm `@modelcontextprotocol/server-everything`
//! (TypeScript SDK) over stdio, beside our bench-server. Skipped when the peer is missing, unless
//! MCP_PEERS_REQUIRED=1 (CI).

use crate::common;

use common::{config, connect, server_everything, workspace_bin};
use mcp_gateway::Gateway;
use mcp_runtime::client::{CallOptions, Client, Era};
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ErrorObject, ProgressParams, Role,
};
use serde_json::json;
use std::sync::{Arc, Mutex};

#[tokio::test]
async fn fronts_npm_server_everything_with_progress_and_sampling() {
    let Some(everything) = server_everything() else {
        return;
    };
    let sampling = || {
        |p: CreateMessageParams| async move {
            let asked = p.messages[0].content["text"]
                .as_str()
                .unwrap_or("")
                .to_string();
            Ok::<_, ErrorObject>(CreateMessageResult {
                role: Role::Assistant,
                content: json!({"type": "text", "text": format!("sampled: {asked}")}),
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
            })
        }
    };
    // What the server lists to a client like the gateway (one that declares sampling, elicitation and roots).
    let direct = Client::builder()
        .sampling(sampling())
        .elicitation(|_p: mcp_runtime::protocol::ElicitParams| async move {
            Err::<mcp_runtime::protocol::ElicitResult, _>(ErrorObject::internal("unused"))
        })
        .url_elicitation()
        .roots(Vec::new())
        .spawn(tokio::process::Command::new(&everything))
        .await
        .unwrap();
    let mut want: Vec<String> = direct
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| format!("ev_{}", t.name))
        .collect();
    direct.close().await;

    let gw = Gateway::start(config(json!({"mcpServers": {
        "everything": {"command": everything, "prefix": "ev"},
        "bench": {"command": workspace_bin("bench-server")},
    }})))
    .await;
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(&gw, Client::builder().era(era).sampling(sampling())).await;
        let mut got: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .filter(|n| n.starts_with("ev_"))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{era:?}");

        let r = client
            .call_tool("ev_echo", json!({"message": "through the gateway"}))
            .await
            .unwrap();
        assert_eq!(r.text_content(), "Echo: through the gateway", "{era:?}");
        let r = client
            .call_tool("ev_get-sum", json!({"a": 2, "b": 40}))
            .await
            .unwrap();
        assert!(r.text_content().contains("42"), "{era:?}: {r:?}");

        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let r = client
            .call_tool_with(
                "ev_trigger-long-running-operation",
                json!({"duration": 0.4, "steps": 4}),
                CallOptions {
                    on_progress: Some(Arc::new(move |p: ProgressParams| {
                        s.lock().unwrap().push((p.progress, p.total))
                    })),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert!(r.text_content().contains("Steps: 4"), "{era:?}: {r:?}");
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (1.0, Some(4.0)),
                (2.0, Some(4.0)),
                (3.0, Some(4.0)),
                (4.0, Some(4.0))
            ],
            "{era:?}"
        );

        let r = client
            .call_tool(
                "ev_trigger-sampling-request",
                json!({"prompt": "hi", "maxTokens": 10}),
            )
            .await
            .unwrap();
        assert!(r.text_content().contains("sampled: "), "{era:?}: {r:?}");
    }
}
