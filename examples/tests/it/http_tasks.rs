//! Tasks over Streamable HTTP, at the wire. Handshake era: a task's input request reaches the client on
//! the SSE stream of its `tasks/result` (its `tools/call` POST answered long ago), tagged with the task,
//! and the client's answer resumes it. 2026-07-28: a task outlives the POST that created it; `Mcp-Name`
//! mirrors `taskId` and a mismatch is `400` + `-32020`.

use crate::http_support;

use http_support::*;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::protocol::{CallToolResult, ElicitParams, TaskSupport};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::Context;
use serde_json::{json, Value};
use std::time::Duration;

const TASKS_EXT: &str = "io.modelcontextprotocol/tasks";

fn server() -> mcp_runtime::Server {
    let schema = json!({"type": "object"}).as_object().unwrap().clone();
    let confirm = ToolRoute::new(
        mcp_runtime::protocol::Tool::new("confirm", "Asks, then answers", schema.clone()),
        |_: Arguments, ctx: Context| async move {
            ctx.continue_as_task().await;
            let form = ElicitParams::form(
                "Proceed?",
                json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})
                    .as_object()
                    .unwrap()
                    .clone(),
            );
            Ok(match ctx.elicit(form).await {
                Ok(r) => CallToolResult::text(format!("confirmed: {:?}", r.action)),
                Err(e) => CallToolResult::error(e.to_string()),
            })
        },
    )
    .task(TaskSupport::Optional);
    let work = ToolRoute::new(
        mcp_runtime::protocol::Tool::new("work", "Works for half a second", schema),
        |_: Arguments, _: Context| async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            Ok(CallToolResult::text("worked"))
        },
    )
    .task(TaskSupport::Required);
    test_server_builder()
        .tool(confirm)
        .tool(work)
        .build()
        .unwrap()
}

fn rpc(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The response of a POST answered with JSON or SSE.
async fn answer(url: &str, session: &str, id: u64, method: &str, params: Value) -> Value {
    let (status, v) = json_of(post(url, &rpc(id, method, params), Some(session), &[]).await).await;
    assert_eq!(status, 200, "{v}");
    v
}

#[tokio::test]
async fn a_handshake_task_asks_on_the_tasks_result_stream_and_resumes_with_the_answer() {
    let running = start(server(), HttpConfig::default()).await;
    let url = running.url();
    let init = INIT.replace(
        r#""capabilities":{}"#,
        r#""capabilities":{"elicitation":{}}"#,
    );
    let sid = init_session_with(&url, &init).await;
    let created = answer(
        &url,
        &sid,
        2,
        "tools/call",
        json!({"name": "confirm", "task": {"ttl": 60000}}),
    )
    .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut status = Value::Null;
    for n in 0..200 {
        status = answer(&url, &sid, 10 + n, "tasks/get", json!({"taskId": id})).await;
        if status["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status["result"]["status"], "input_required", "{status}");

    // tasks/result: the elicitation comes on its stream, then (once answered) the result.
    let mut stream = post(
        &url,
        &rpc(500, "tasks/result", json!({"taskId": id})),
        Some(&sid),
        &[],
    )
    .await;
    assert_eq!(stream.status(), 200);
    let events = read_events(&mut stream, |evs| {
        evs.iter()
            .any(|e| e.json()["method"] == "elicitation/create")
    })
    .await;
    let ask = events
        .iter()
        .map(|e| e.json())
        .find(|v| v["method"] == "elicitation/create")
        .unwrap();
    assert_eq!(
        ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        json!(id)
    );
    let reply = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"ok": true}}});
    let r = post(&url, &reply.to_string(), Some(&sid), &[]).await;
    assert_eq!(r.status(), 202);
    let events = read_events(&mut stream, |evs| evs.iter().any(|e| e.json()["id"] == 500)).await;
    let result = events
        .iter()
        .map(|e| e.json())
        .find(|v| v["id"] == 500)
        .unwrap();
    assert_eq!(result["result"]["content"][0]["text"], "confirmed: Accept");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        json!(id)
    );
    let done = answer(&url, &sid, 600, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(done["result"]["status"], "completed");
    // Another session cannot see it.
    let other = init_session(&url).await;
    let e = answer(&url, &other, 601, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(e["error"]["code"], -32602);
    running.stop().await;
}

fn with_tasks(mut params: Value) -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {TASKS_EXT: {}}});
    params["_meta"] = m;
    params
}

#[tokio::test]
async fn a_2026_task_outlives_its_post_and_its_routing_header_is_checked() {
    let running = start(server(), HttpConfig::default()).await;
    let url = running.url();
    let (status, t) =
        json_of(post26(&url, "tools/call", with_tasks(json!({"name": "work"})), &[]).await).await;
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["result"]["resultType"], "task");
    let id = t["result"]["taskId"].as_str().unwrap().to_string();

    // Mcp-Name must name the task: missing or different is a header mismatch.
    for name in ["", "some-other-task"] {
        let (status, e) = json_of(
            post26(
                &url,
                "tasks/get",
                with_tasks(json!({"taskId": id})),
                &[("mcp-name", name)],
            )
            .await,
        )
        .await;
        assert_eq!(
            (status, e["error"]["code"].clone()),
            (400, json!(-32020)),
            "{e}"
        );
    }
    // A task this server never made is -32602 (with matching headers).
    let (status, e) = json_of(
        post26(
            &url,
            "tasks/get",
            with_tasks(json!({"taskId": "nope"})),
            &[],
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (200, json!(-32602)),
        "{e}"
    );
    // Without the extension: -32021, HTTP 400.
    let (status, e) = json_of(post26(&url, "tasks/get", json!({"taskId": id}), &[]).await).await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32021)),
        "{e}"
    );
    // tasks/result does not exist in 2026-07-28: 404 + -32601.
    let (status, e) =
        json_of(post26(&url, "tasks/result", with_tasks(json!({"taskId": id})), &[]).await).await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (404, json!(-32601)),
        "{e}"
    );

    let mut last = Value::Null;
    for _ in 0..300 {
        let (status, v) =
            json_of(post26(&url, "tasks/get", with_tasks(json!({"taskId": id})), &[]).await).await;
        assert_eq!(status, 200, "{v}");
        last = v;
        if last["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        last["result"]["result"]["content"][0]["text"], "worked",
        "{last}"
    );
    let (status, ack) =
        json_of(post26(&url, "tasks/cancel", with_tasks(json!({"taskId": id})), &[]).await).await;
    assert_eq!(
        (status, ack["result"]["resultType"].clone()),
        (200, json!("complete"))
    );
    running.stop().await;
}
