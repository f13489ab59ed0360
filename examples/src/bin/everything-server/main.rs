//! Every fixture of the MCP conformance server scenarios (tools, resources, prompts, completion, logging,
//! sampling, elicitation, SSE polling; and for protocol 2026-07-28 multi round-trip requests, listen
//! streams, caching hints, `x-mcp-header` and tasks; the skills extension), written with the hand-registration API. It speaks both
//! eras at once, chosen per request.
//!
//! ```text
//! everything-server                      # stdio
//! everything-server --http [--port N]    # Streamable HTTP on 127.0.0.1:N/mcp (N from PORT, default 3000),
//!                                        # plus the legacy HTTP+SSE transport on /sse and /messages
//!     [--json] answers as application/json instead of SSE   [--stateless] no sessions
//!     [--host ADDR] bind address (default 127.0.0.1)
//!     [--bearer-token T] require `Authorization: Bearer T` (also MCP_BEARER_TOKEN)
//!     [--modern-only | --legacy-only] speak one era only (default: both)
//!     [--state-keys kid:hex,...] keys that seal MRTR request states, shared by instances
//!                                (also MCP_REQUEST_STATE_KEYS; default: a random key)
//!     [--compress] gzip/zstd/brotli answers and SSE streams for clients that accept them
//!     [--redis URL] share sessions, SSE event logs, tasks and a bus with the other instances
//!                   through Redis (also MCP_REDIS_URL), for several instances behind a load balancer
//! ```

mod modern;
mod skills;
mod tasks;

use mcp_runtime::http::{serve_http, ContextHttpExt, HttpConfig};
use mcp_runtime::protocol::{
    CallToolResult, CompleteResult, Completion, CompletionRef, ContentBlock, CreateMessageParams,
    ElicitParams, ErrorObject, GetPromptResult, JsonObject, LoggingLevel, Prompt, PromptArgument,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, SamplingMessage, Tool,
};
use mcp_runtime::server::{
    Arguments, Eras, PromptArgs, PromptRoute, RequestStateKeys, ResourceRoute,
    ResourceTemplateRoute, ToolRoute, UriVars,
};
use mcp_runtime::{Context, Server};
use serde_json::{json, Value};
use std::time::Duration;

/// A 1x1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV header with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

pub(crate) fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("schemas are objects"),
    }
}

pub(crate) fn no_args() -> JsonObject {
    obj(json!({"type": "object", "properties": {}}))
}

pub(crate) fn tool(
    name: &str,
    desc: &str,
    schema: JsonObject,
    h: impl mcp_runtime::server::ToolHandler,
) -> ToolRoute {
    ToolRoute::new(Tool::new(name, desc, schema), h)
}

fn string_arg(args: &Arguments, name: &str) -> Result<String, CallToolResult> {
    let v: Value = args
        .parse()
        .map_err(|e| CallToolResult::error(e.to_string()))?;
    v.get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| {
            CallToolResult::error(format!("Invalid argument `{name}`: a string is required"))
        })
}

fn tools() -> Vec<ToolRoute> {
    vec![
        tool("test_simple_text", "Returns a simple text response", no_args(), |_: Arguments, _: Context| async {
            Ok(CallToolResult::text("This is a simple text response for testing."))
        }),
        tool("test_image_content", "Returns an image", no_args(), |_: Arguments, _: Context| async {
            Ok(CallToolResult::content(vec![ContentBlock::image(PNG, "image/png")]))
        }),
        tool("test_audio_content", "Returns audio", no_args(), |_: Arguments, _: Context| async {
            Ok(CallToolResult::content(vec![ContentBlock::audio(WAV, "audio/wav")]))
        }),
        tool("test_embedded_resource", "Returns an embedded resource", no_args(), |_: Arguments, _: Context| async {
            Ok(CallToolResult::content(vec![ContentBlock::resource(ResourceContents::text(
                "test://embedded-resource",
                Some("text/plain"),
                "This is an embedded resource content.",
            ))]))
        }),
        tool("test_multiple_content_types", "Returns text, image and resource", no_args(), |_: Arguments, _: Context| async {
            Ok(CallToolResult::content(vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(PNG, "image/png"),
                ContentBlock::resource(ResourceContents::text(
                    "test://mixed-content-resource",
                    Some("application/json"),
                    r#"{"test":"data","value":123}"#,
                )),
            ]))
        }),
        tool("test_tool_with_logging", "Sends three log messages while running", no_args(), |_: Arguments, ctx: Context| async move {
            ctx.log(LoggingLevel::Info, None, "Tool execution started").await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.log(LoggingLevel::Info, None, "Tool processing data").await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.log(LoggingLevel::Info, None, "Tool execution completed").await;
            Ok(CallToolResult::text("Tool with logging executed successfully"))
        }),
        tool("test_error_handling", "Always fails", no_args(), |_: Arguments, _: Context| async {
            Ok(CallToolResult::error("This tool intentionally returns an error for testing"))
        }),
        tool("test_tool_with_progress", "Reports progress 0, 50, 100 of 100", no_args(), |_: Arguments, ctx: Context| async move {
            ctx.progress(0.0, Some(100.0), None).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.progress(50.0, Some(100.0), None).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.progress(100.0, Some(100.0), None).await;
            Ok(CallToolResult::text("Tool with progress executed successfully"))
        }),
        tool(
            "progress_ticks",
            "Reports progress `count` times, `interval_ms` apart, then answers (for stream resumption)",
            obj(json!({"type": "object", "properties": {
                "count": {"type": "integer", "minimum": 1, "maximum": 1000},
                "interval_ms": {"type": "integer", "minimum": 0, "maximum": 10000}
            }, "required": ["count"]})),
            |args: Arguments, ctx: Context| async move {
                let v: Value = args.parse().unwrap_or(Value::Null);
                let Some(count) = v.get("count").and_then(Value::as_u64).filter(|n| (1..=1000).contains(n)) else {
                    return Ok(CallToolResult::error("Invalid argument `count`: an integer from 1 to 1000 is required"));
                };
                let interval = v.get("interval_ms").and_then(Value::as_u64).unwrap_or(100).min(10_000);
                for i in 1..=count {
                    ctx.progress(i as f64, Some(count as f64), None).await;
                    tokio::time::sleep(Duration::from_millis(interval)).await;
                }
                Ok(CallToolResult::text(format!("{count} ticks")))
            },
        ),
        tool(
            "test_sampling",
            "Asks the client's model",
            obj(json!({"type": "object", "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}}, "required": ["prompt"]})),
            |args: Arguments, ctx: Context| async move {
                let prompt = match string_arg(&args, "prompt") {
                    Ok(p) => p,
                    Err(e) => return Ok(e),
                };
                let params: CreateMessageParams = serde_json::from_value(json!({
                    "messages": [SamplingMessage::user_text(prompt)],
                    "maxTokens": 100
                }))
                .map_err(|e| ErrorObject::internal(e.to_string()))?;
                Ok(match ctx.create_message(params).await {
                    Ok(r) => {
                        let text = r.content.get("text").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| r.content.to_string());
                        CallToolResult::text(format!("LLM response: {text}"))
                    }
                    Err(e) => CallToolResult::error(format!("Sampling failed: {e}")),
                })
            },
        ),
        tool(
            "test_elicitation",
            "Asks the user for a username and email",
            obj(json!({"type": "object", "properties": {"message": {"type": "string", "description": "The message to show the user"}}, "required": ["message"]})),
            |args: Arguments, ctx: Context| async move {
                let message = match string_arg(&args, "message") {
                    Ok(p) => p,
                    Err(e) => return Ok(e),
                };
                let schema = obj(json!({
                    "type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "User's response"},
                        "email": {"type": "string", "description": "User's email address"}
                    },
                    "required": ["username", "email"]
                }));
                elicit(&ctx, ElicitParams::form(message, schema), "User response").await
            },
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Elicitation with a default for every primitive type",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                let schema = obj(json!({
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "User name", "default": "John Doe"},
                        "age": {"type": "integer", "description": "User age", "default": 30},
                        "score": {"type": "number", "description": "User score", "default": 95.5},
                        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                        "verified": {"type": "boolean", "description": "Verification status", "default": true}
                    }
                }));
                elicit(&ctx, ElicitParams::form("Please review and update the form fields with defaults", schema), "Elicitation completed").await
            },
        ),
        tool(
            "test_elicitation_sep1330_enums",
            "Elicitation with every enum variant",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                let schema = obj(json!({
                    "type": "object",
                    "properties": {
                        "untitledSingle": {"type": "string", "description": "Untitled single-select", "enum": ["option1", "option2", "option3"]},
                        "titledSingle": {"type": "string", "description": "Titled single-select", "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                            {"const": "value3", "title": "Third Option"}
                        ]},
                        "legacyEnum": {"type": "string", "description": "Legacy titled enum", "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"]},
                        "untitledMulti": {"type": "array", "description": "Untitled multi-select",
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                        "titledMulti": {"type": "array", "description": "Titled multi-select", "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]}}
                    }
                }));
                elicit(&ctx, ElicitParams::form("Please select options from the enum fields", schema), "Elicitation completed").await
            },
        ),
        tool(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            // Given by hand, so it is passed through as written: $schema, $defs with $anchor,
            // composition and conditionals included.
            obj(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            })),
            |args: Arguments, _: Context| async move { Ok(CallToolResult::text(format!("Received: {}", args.as_str()))) },
        ),
        tool(
            "test_reconnection",
            "Closes its SSE stream mid-call; the client resumes with Last-Event-ID and gets the result",
            no_args(),
            |_: Arguments, ctx: Context| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                ctx.close_sse_stream().await;
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(CallToolResult::text("Reconnection test completed successfully"))
            },
        ),
    ]
}

async fn elicit(
    ctx: &Context,
    params: ElicitParams,
    label: &str,
) -> Result<CallToolResult, ErrorObject> {
    Ok(match ctx.elicit(params).await {
        Ok(r) => {
            let action = serde_json::to_value(r.action).unwrap_or(Value::Null);
            let action = action.as_str().unwrap_or("unknown");
            let content = serde_json::to_string(&r.content.unwrap_or_default()).unwrap_or_default();
            if label == "User response" {
                CallToolResult::text(format!("User response: action={action}, content={content}"))
            } else {
                CallToolResult::text(format!("{label}: action={action}, content={content}"))
            }
        }
        Err(e) => CallToolResult::error(format!("Elicitation failed: {e}")),
    })
}

fn resource(uri: &str, name: &str, desc: &str, mime: &str) -> Resource {
    Resource {
        uri: uri.into(),
        name: name.into(),
        description: Some(desc.into()),
        mime_type: Some(mime.into()),
        ..Default::default()
    }
}

fn read(contents: ResourceContents) -> Result<ReadResourceResult, ErrorObject> {
    serde_json::from_value(json!({ "contents": [contents] }))
        .map_err(|e| ErrorObject::internal(e.to_string()))
}

fn prompt(name: &str, desc: &str, args: &[(&str, &str)]) -> Prompt {
    Prompt {
        name: name.into(),
        description: Some(desc.into()),
        arguments: (!args.is_empty()).then(|| {
            args.iter()
                .map(|(n, d)| PromptArgument {
                    name: (*n).into(),
                    description: Some((*d).into()),
                    required: Some(true),
                    title: None,
                })
                .collect()
        }),
        ..Default::default()
    }
}

fn messages(v: Value) -> Result<GetPromptResult, ErrorObject> {
    serde_json::from_value(v).map_err(|e| ErrorObject::internal(e.to_string()))
}

pub(crate) fn build(
    eras: Eras,
    keys: Option<RequestStateKeys>,
    task_store: Option<std::sync::Arc<dyn mcp_runtime::server::TaskStore>>,
) -> Server {
    let template = ResourceTemplate {
        uri_template: "test://template/{id}/data".into(),
        name: "template-data".into(),
        description: Some("Data for any id".into()),
        mime_type: Some("application/json".into()),
        ..Default::default()
    };
    let mut b = Server::builder()
        .name("mcp-runtime-everything-server")
        .version(env!("CARGO_PKG_VERSION"))
        .eras(eras)
        .tools(tools())
        .tools(modern::tools())
        .tools(tasks::tools())
        .skills(skills::skills());
    for p in modern::prompts() {
        b = b.prompt(p);
    }
    if let Some(k) = keys {
        b = b.request_state_keys(k);
    }
    if let Some(store) = task_store {
        b = b.task_store(store);
    }
    b
        .resource(ResourceRoute::new(
            resource("test://static-text", "static-text", "A static text resource", "text/plain"),
            |uri: String, _: UriVars, _: Context| async move {
                read(ResourceContents::text(uri, Some("text/plain"), "This is the content of the static text resource."))
            },
        ))
        .resource(ResourceRoute::new(
            resource("test://static-binary", "static-binary", "A static binary resource (a PNG)", "image/png"),
            |uri: String, _: UriVars, _: Context| async move { read(ResourceContents::blob(uri, Some("image/png"), PNG)) },
        ))
        .resource(ResourceRoute::new(
            resource("test://watched-resource", "watched-resource", "A resource to subscribe to", "text/plain"),
            |uri: String, _: UriVars, _: Context| async move { read(ResourceContents::text(uri, Some("text/plain"), "Watched resource content")) },
        ))
        .resource_template(ResourceTemplateRoute::new(template, |uri: String, vars: UriVars, _: Context| async move {
            let id = vars.get("id").cloned().unwrap_or_default();
            let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string();
            read(ResourceContents::text(uri, Some("application/json"), text))
        }))
        .prompt(PromptRoute::new(prompt("test_simple_prompt", "A simple prompt without arguments", &[]), |_: PromptArgs, _: Context| async {
            messages(json!({"messages": [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}]}))
        }))
        .prompt(PromptRoute::new(
            prompt("test_prompt_with_arguments", "A prompt with two arguments", &[("arg1", "First test argument"), ("arg2", "Second test argument")]),
            |args: PromptArgs, _: Context| async move {
                let a1 = args.get("arg1").cloned().unwrap_or_default();
                let a2 = args.get("arg2").cloned().unwrap_or_default();
                messages(json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Prompt with arguments: arg1='{a1}', arg2='{a2}'")}}]}))
            },
        ))
        .prompt(PromptRoute::new(
            prompt("test_prompt_with_embedded_resource", "A prompt embedding a resource", &[("resourceUri", "URI of the resource to embed")]),
            |args: PromptArgs, _: Context| async move {
                let uri = args.get("resourceUri").cloned().unwrap_or_default();
                messages(json!({"messages": [
                    {"role": "user", "content": {"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
                    {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
                ]}))
            },
        ))
        .prompt(PromptRoute::new(prompt("test_prompt_with_image", "A prompt with an image", &[]), |_: PromptArgs, _: Context| async {
            messages(json!({"messages": [
                {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
            ]}))
        }))
        .completion(|p: mcp_runtime::protocol::CompleteParams, _: Context| async move {
            let candidates: &[&str] = match (&p.reference, p.argument.name.as_str()) {
                (CompletionRef::Prompt { .. }, _) => &["paris", "park", "party", "hello", "world"],
                (_, "id") => &["1", "2", "3", "123"],
                _ => &[],
            };
            let values: Vec<String> = candidates.iter().filter(|c| c.starts_with(&p.argument.value)).map(|c| c.to_string()).collect();
            Ok(CompleteResult {
                completion: Completion { total: Some(values.len() as u64), has_more: Some(false), values },
                meta: None,
            })
        })
        .build()
        .expect("the fixtures are valid")
}

struct Args {
    eras: Eras,
    state_keys: Option<RequestStateKeys>,
    http: bool,
    port: u16,
    host: String,
    json: bool,
    stateless: bool,
    token: Option<String>,
    compress: bool,
    redis: Option<String>,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        eras: Eras::Both,
        state_keys: RequestStateKeys::from_flag_or_env(None).map_err(anyhow::Error::msg)?,
        http: false,
        port: std::env::var("PORT")
            .ok()
            .and_then(|p| p.parse().ok())
            .unwrap_or(3000),
        host: "127.0.0.1".into(),
        json: false,
        stateless: false,
        token: std::env::var("MCP_BEARER_TOKEN")
            .ok()
            .filter(|t| !t.is_empty()),
        compress: false,
        redis: std::env::var("MCP_REDIS_URL")
            .ok()
            .filter(|u| !u.is_empty()),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--http" => a.http = true,
            "--json" => a.json = true,
            "--stateless" => a.stateless = true,
            "--modern-only" => a.eras = Eras::ModernOnly,
            "--legacy-only" => a.eras = Eras::LegacyOnly,
            "--state-keys" => {
                let spec = it
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--state-keys needs a value"))?;
                a.state_keys =
                    RequestStateKeys::from_flag_or_env(Some(&spec)).map_err(anyhow::Error::msg)?;
            }
            "--compress" => a.compress = true,
            "--redis" => {
                a.redis = Some(
                    it.next()
                        .ok_or_else(|| anyhow::anyhow!("--redis needs a URL"))?,
                )
            }
            "--port" => {
                a.port = it
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--port needs a value"))?
                    .parse()?
            }
            "--host" => {
                a.host = it
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--host needs a value"))?
            }
            "--bearer-token" => {
                a.token = Some(
                    it.next()
                        .ok_or_else(|| anyhow::anyhow!("--bearer-token needs a value"))?,
                )
            }
            "-h" | "--help" => {
                eprintln!("usage: everything-server [--http [--port N] [--host ADDR] [--json] [--stateless] [--bearer-token T] [--compress] [--redis URL]] [--modern-only | --legacy-only] [--state-keys kid:hex,...]");
                std::process::exit(0);
            }
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    Ok(a)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let a = args()?;
    let stores = match &a.redis {
        Some(url) if a.http => Some(
            mcp_runtime::scale::redis::RedisStores::connect(
                mcp_runtime::scale::redis::RedisConfig::new(url.clone()),
            )
            .await
            .map_err(|e| anyhow::anyhow!("--redis {url}: {e}"))?,
        ),
        Some(_) => anyhow::bail!("--redis needs --http (a stdio server has one client)"),
        None => None,
    };
    let task_store = stores
        .as_ref()
        .map(|s| s.tasks.clone() as std::sync::Arc<dyn mcp_runtime::server::TaskStore>);
    let server = build(a.eras, a.state_keys.clone(), task_store);
    if !a.http {
        server.serve_stdio().await?;
        return Ok(());
    }
    let mut config = HttpConfig::default();
    if a.json {
        config = config.json_responses();
    }
    if a.stateless {
        config = config.stateless();
    }
    if let Some(t) = a.token {
        config = config.bearer_token(t);
    }
    if a.compress {
        config.compression = Some(mcp_runtime::http::Compression::default());
    }
    if let Some(s) = &stores {
        config.shared = Some(s.shared.clone());
    }
    let addr: std::net::SocketAddr = format!("{}:{}", a.host, a.port).parse()?;
    eprintln!(
        "everything-server: Streamable HTTP on http://{addr}/mcp, legacy SSE on http://{addr}/sse"
    );
    serve_http(server, addr, config, async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("signal handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    })
    .await?;
    Ok(())
}
