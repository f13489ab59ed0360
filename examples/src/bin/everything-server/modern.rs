//! The fixtures of the 2026-07-28 conformance scenarios: multi round-trip requests, capability checks,
//! per-request logging, list changes for `subscriptions/listen`, and `x-mcp-header` arguments.
//!
//! They are ordinary handlers: `ctx.elicit`, `ctx.create_message` and `ctx.list_roots` ask a
//! handshake-era client with a real request and a 2026-07-28 client with `input_required`, and the
//! handler runs again with the answers.

use super::{obj, tool};
use mcp_runtime::protocol::{
    CallToolResult, CreateMessageParams, ElicitAction, ElicitParams, ElicitResult, ErrorObject,
    GetPromptResult, LoggingLevel, Prompt, SamplingMessage,
};
use mcp_runtime::server::{Arguments, PromptArgs, PromptRoute, ToolRoute};
use mcp_runtime::{Context, Error};
use serde_json::{json, Value};

fn text_schema(field: &str) -> mcp_runtime::protocol::JsonObject {
    obj(json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}))
}

fn content_text(r: &ElicitResult, field: &str) -> String {
    r.content
        .as_ref()
        .and_then(|c| c.get(field))
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string())
        })
        .unwrap_or_default()
}

fn ask_model(text: &str, max_tokens: u32) -> CreateMessageParams {
    serde_json::from_value(
        json!({"messages": [SamplingMessage::user_text(text)], "maxTokens": max_tokens}),
    )
    .expect("a valid sampling request")
}

fn sampled_text(content: &Value) -> String {
    content
        .get("text")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| content.to_string())
}

/// A handler's failure to get input, as a tool error (a handshake-era client that refused, say).
fn failed(e: Error) -> CallToolResult {
    CallToolResult::error(format!("Input request failed: {e}"))
}

fn no_args() -> mcp_runtime::protocol::JsonObject {
    super::no_args()
}

pub(crate) fn tools() -> Vec<ToolRoute> {
    vec![
        tool(
            "test_missing_capability",
            "Asks the client's model, which needs the sampling capability",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                Ok(match ctx.create_message(ask_model("Say hello", 20)).await {
                    Ok(r) => CallToolResult::text(format!("Success: {}", sampled_text(&r.content))),
                    Err(e) => failed(e),
                })
            },
        ),
        tool(
            "test_input_required_result_elicitation",
            "Asks the user's name",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                Ok(
                    match ctx
                        .input("user_name")
                        .elicit(ElicitParams::form(
                            "What is your name?",
                            text_schema("name"),
                        ))
                        .await
                    {
                        Ok(r) => {
                            CallToolResult::text(format!("Hello, {}!", content_text(&r, "name")))
                        }
                        Err(e) => failed(e),
                    },
                )
            },
        ),
        tool(
            "test_input_required_result_sampling",
            "Asks the client's model a question",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                Ok(
                    match ctx
                        .input("sample_request")
                        .create_message(ask_model("What is the capital of France?", 100))
                        .await
                    {
                        Ok(r) => CallToolResult::text(format!(
                            "Sampling result: {}",
                            sampled_text(&r.content)
                        )),
                        Err(e) => failed(e),
                    },
                )
            },
        ),
        tool(
            "test_input_required_result_list_roots",
            "Lists the client's roots",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                Ok(match ctx.input("roots_request").list_roots().await {
                    Ok(r) => CallToolResult::text(format!("Found {} root(s)", r.roots.len())),
                    Err(e) => failed(e),
                })
            },
        ),
        tool(
            "test_input_required_result_request_state",
            "Asks for a confirmation (the server's state travels with the retry)",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                confirm(&ctx, "state-ok: requestState validated").await
            },
        ),
        tool(
            "test_input_required_result_tampered_state",
            "Asks for a confirmation; a changed requestState is refused",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                confirm(&ctx, "integrity-ok: state verified").await
            },
        ),
        tool(
            "test_input_required_result_multiple_inputs",
            "Asks for a name, a greeting from the model and the roots at once",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                let (name, greeting, roots) = tokio::join!(
                    ctx.input("user_name").elicit(ElicitParams::form(
                        "What is your name?",
                        text_schema("name")
                    )),
                    ctx.input("greeting")
                        .create_message(ask_model("Generate a greeting", 50)),
                    ctx.input("client_roots").list_roots(),
                );
                Ok(match (name, greeting, roots) {
                    (Ok(n), Ok(g), Ok(r)) => CallToolResult::text(format!(
                        "Name: {}; Greeting: {}; Roots: {}",
                        content_text(&n, "name"),
                        sampled_text(&g.content),
                        r.roots.len()
                    )),
                    (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => failed(e),
                })
            },
        ),
        tool(
            "test_input_required_result_multi_round",
            "Asks two questions, one after the other",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                let name = match ctx
                    .input("step1")
                    .elicit(ElicitParams::form(
                        "Step 1: What is your name?",
                        text_schema("name"),
                    ))
                    .await
                {
                    Ok(r) => content_text(&r, "name"),
                    Err(e) => return Ok(failed(e)),
                };
                let color = match ctx
                    .input("step2")
                    .elicit(ElicitParams::form(
                        "Step 2: What is your favorite color?",
                        text_schema("color"),
                    ))
                    .await
                {
                    Ok(r) => content_text(&r, "color"),
                    Err(e) => return Ok(failed(e)),
                };
                Ok(CallToolResult::text(format!(
                    "Multi-round complete for {name} who likes {color}"
                )))
            },
        ),
        tool(
            "test_input_required_result_capabilities",
            "Asks only for what the client declared it can answer",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                let caps = ctx.client_capabilities();
                let elicit = async {
                    match caps.elicitation {
                        Some(_) => ctx
                            .input("elicit_input")
                            .elicit(ElicitParams::form(
                                "Elicitation input",
                                text_schema("value"),
                            ))
                            .await
                            .map(|_| Some("elicitation")),
                        None => Ok(None),
                    }
                };
                let sample = async {
                    match caps.sampling {
                        Some(_) => ctx
                            .input("sample_input")
                            .create_message(ask_model("Sample request", 50))
                            .await
                            .map(|_| Some("sampling")),
                        None => Ok(None),
                    }
                };
                Ok(match tokio::join!(elicit, sample) {
                    (Ok(None), Ok(None)) => {
                        CallToolResult::text("No supported capabilities declared")
                    }
                    (Ok(a), Ok(b)) => {
                        let got: Vec<&str> = [a, b].into_iter().flatten().collect();
                        CallToolResult::text(format!("capabilities-ok: received {}", got.join(",")))
                    }
                    (Err(e), _) | (_, Err(e)) => failed(e),
                })
            },
        ),
        tool(
            "test_streaming_elicitation",
            "Reports progress, then asks the user",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                ctx.progress(50.0, Some(100.0), Some("asking the user".into()))
                    .await;
                Ok(match ctx.elicit(ElicitParams::form("Continue?", obj(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})))).await {
                Ok(r) => CallToolResult::text(format!("Streaming complete: {:?}", r.action)),
                Err(e) => failed(e),
            })
            },
        ),
        tool(
            "test_logging_tool",
            "Logs at info; only a request that set a log level receives it",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                ctx.log(
                    LoggingLevel::Info,
                    Some("diagnostics"),
                    "Diagnostic trace logging activated",
                )
                .await;
                Ok(CallToolResult::text("Logging evaluated"))
            },
        ),
        tool(
            "test_trigger_tool_change",
            "Tells every listener that the tool list changed",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                ctx.server().notify_tools_list_changed();
                Ok(CallToolResult::text("Mutation triggered"))
            },
        ),
        tool(
            "test_trigger_prompt_change",
            "Tells every listener that the prompt list changed",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                ctx.server().notify_prompts_list_changed();
                Ok(CallToolResult::text("Mutation triggered"))
            },
        ),
        tool(
            "test_custom_headers",
            "Mirrors region and priority into Mcp-Param headers",
            obj(json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "description": "Where to run", "x-mcp-header": "Region"},
                    "priority": {"type": "integer", "description": "How urgent", "x-mcp-header": "Priority"},
                    "verbose": {"type": "boolean", "description": "Say more", "x-mcp-header": "Verbose"},
                    "query": {"type": "string", "description": "What to run"}
                },
                "required": ["region", "query"]
            })),
            |args: Arguments, _: Context| async move {
                Ok(CallToolResult::text(format!(
                    "Headers matched the arguments: {}",
                    args.as_str()
                )))
            },
        ),
    ]
}

async fn confirm(ctx: &Context, done: &str) -> Result<CallToolResult, ErrorObject> {
    let schema = obj(
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
    );
    Ok(
        match ctx
            .input("confirm")
            .elicit(ElicitParams::form("Please confirm", schema))
            .await
        {
            Ok(r) if r.action == ElicitAction::Accept => CallToolResult::text(done),
            Ok(r) => CallToolResult::error(format!("Not confirmed: {:?}", r.action)),
            Err(e) => failed(e),
        },
    )
}

pub(crate) fn prompts() -> Vec<PromptRoute> {
    vec![PromptRoute::new(
        Prompt {
            name: "test_input_required_result_prompt".into(),
            description: Some("A prompt that asks the user for its context".into()),
            ..Default::default()
        },
        |_: PromptArgs, ctx: Context| async move {
            let r = ctx
                .input("user_context")
                .elicit(ElicitParams::form(
                    "What context should the prompt use?",
                    text_schema("context"),
                ))
                .await
                .map_err(|e| ErrorObject::internal(format!("Internal error: {e}")))?;
            let context = content_text(&r, "context");
            serde_json::from_value::<GetPromptResult>(json!({
                "description": "A prompt built from the user's context",
                "messages": [{"role": "user", "content": {"type": "text", "text": format!("Context: {context}")}}]
            }))
            .map_err(|e| ErrorObject::internal(e.to_string()))
        },
    )]
}
