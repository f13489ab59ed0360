//! The fixtures of the tasks conformance scenarios (the 2026-07-28 extension `io.modelcontextprotocol/tasks`,
//! and the same tools as 2025-11-25 tasks for a handshake-era client that asks for one).
//!
//! They are ordinary handlers marked with [`ToolRoute::task`]: the runtime decides when a call is a task,
//! and `ctx.elicit(..)` inside one waits for the client's answer (`tasks/result` in 2025-11-25,
//! `tasks/update` in 2026-07-28).

use super::{obj, tool};
use mcp_runtime::protocol::{
    CallToolResult, ElicitAction, ElicitParams, ElicitResult, ErrorObject, TaskSupport,
};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::Context;
use serde_json::{json, Value};
use std::time::Duration;

/// The longest a `slow_compute` call may sleep.
const MAX_SECONDS: f64 = 600.0;

fn args(a: &Arguments) -> Value {
    a.parse::<Value>().unwrap_or(Value::Null)
}

fn text(v: &Value, field: &str) -> String {
    v.get(field)
        .map(|x| {
            x.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| x.to_string())
        })
        .unwrap_or_default()
}

fn confirm_form(message: String) -> ElicitParams {
    ElicitParams::form(
        message,
        obj(
            json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}),
        ),
    )
}

fn confirmed(r: &ElicitResult) -> bool {
    r.action == ElicitAction::Accept
        && r.content
            .as_ref()
            .and_then(|c| c.get("confirm"))
            .and_then(Value::as_bool)
            .unwrap_or(true)
}

pub(crate) fn tools() -> Vec<ToolRoute> {
    vec![
        tool(
            "greet",
            "Greets someone at once (never a task)",
            obj(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})),
            |a: Arguments, _: Context| async move {
                Ok(CallToolResult::text(format!("Hello, {}!", text(&args(&a), "name"))))
            },
        ),
        tool(
            "slow_compute",
            "Computes for `seconds` seconds (0: at once); may run as a task",
            obj(json!({
                "type": "object",
                "properties": {
                    "seconds": {"type": "number", "minimum": 0, "maximum": MAX_SECONDS},
                    "label": {"type": "string"}
                },
                "required": ["seconds"]
            })),
            |a: Arguments, _: Context| async move {
                let v = args(&a);
                let Some(seconds) = v.get("seconds").and_then(Value::as_f64).filter(|s| (0.0..=MAX_SECONDS).contains(s)) else {
                    return Ok(CallToolResult::error(format!("Invalid argument `seconds`: a number from 0 to {MAX_SECONDS} is required")));
                };
                tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
                Ok(CallToolResult::text(format!("Computed {} in {seconds}s", text(&v, "label"))))
            },
        )
        .task(TaskSupport::Optional),
        tool(
            "failing_job",
            "Works for a second, then reports a tool error; runs only as a task",
            obj(json!({"type": "object", "properties": {}})),
            |_: Arguments, _: Context| async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                Ok(CallToolResult::error("Job failed: the input data was rejected"))
            },
        )
        .task(TaskSupport::Required),
        tool(
            "protocol_error_job",
            "Works for half a second, then fails with a JSON-RPC error; may run as a task",
            obj(json!({"type": "object", "properties": {}})),
            |_: Arguments, _: Context| async move {
                tokio::time::sleep(Duration::from_millis(500)).await;
                Err(ErrorObject::internal("Internal error: the job's backend went away"))
            },
        )
        .task(TaskSupport::Optional),
        tool(
            "confirm_delete",
            "Deletes a file once the user confirms; runs as a task that waits for the answer",
            obj(json!({"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]})),
            |a: Arguments, ctx: Context| async move {
                let file = text(&args(&a), "filename");
                ctx.continue_as_task().await;
                let done = match ctx.input("confirm").elicit(confirm_form(format!("Delete {file}?"))).await {
                    Ok(r) if confirmed(&r) => format!("Deleted {file}"),
                    Ok(r) => format!("Kept {file} ({:?})", r.action),
                    Err(e) => return Ok(CallToolResult::error(format!("Input request failed: {e}"))),
                };
                // In the log too: a handshake-era task's log message travels on the stream of the
                // `tasks/result` that waits for it, on whichever instance.
                ctx.info(done.clone()).await;
                Ok(CallToolResult::text(done))
            },
        )
        .task(TaskSupport::Optional),
        tool(
            "multi_input",
            "Asks two questions at once; runs as a task that waits for both answers",
            obj(json!({"type": "object", "properties": {}})),
            |_: Arguments, ctx: Context| async move {
                ctx.continue_as_task().await;
                let name_form = ElicitParams::form(
                    "What is your name?",
                    obj(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})),
                );
                let (name, ok) = tokio::join!(
                    ctx.input("name").elicit(name_form),
                    ctx.input("confirm").elicit(confirm_form("Go ahead?".into())),
                );
                Ok(match (name, ok) {
                    (Ok(n), Ok(c)) => CallToolResult::text(format!(
                        "Name: {}; confirmed: {}",
                        n.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str).unwrap_or(""),
                        confirmed(&c)
                    )),
                    (Err(e), _) | (_, Err(e)) => CallToolResult::error(format!("Input request failed: {e}")),
                })
            },
        )
        .task(TaskSupport::Optional),
        tool(
            "test_tool_with_task",
            "Asks the user's name, then greets them from a task",
            obj(json!({"type": "object", "properties": {}})),
            |_: Arguments, ctx: Context| async move {
                // Before the task exists, this is a multi round-trip exchange of the call itself.
                let r = ctx
                    .input("user_name")
                    .elicit(ElicitParams::form(
                        "What is your name?",
                        obj(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})),
                    ))
                    .await;
                let name = match r {
                    Ok(r) => r.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str).unwrap_or("").to_string(),
                    Err(e) => return Ok(CallToolResult::error(format!("Input request failed: {e}"))),
                };
                ctx.continue_as_task().await;
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(CallToolResult::text(format!("Hello, {name}! (from a task)")))
            },
        )
        .task(TaskSupport::Required),
    ]
}
