//! Server features end to end, in process: a server and our client joined by a duplex pipe.

use mcp_runtime::protocol::*;
use mcp_runtime::server::{
    Arguments, PromptArgs, PromptRoute, ResourceRoute, ResourceTemplateRoute, ToolRoute, UriVars,
};
use mcp_runtime::{
    CallOptions, Client, ClientBuilder, ConnectionConfig, Context, Error, Server, ServerBuilder,
};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn obj(v: serde_json::Value) -> JsonObject {
    v.as_object().unwrap().clone()
}

fn tool(name: &str, h: impl mcp_runtime::server::ToolHandler) -> ToolRoute {
    ToolRoute::new(
        Tool::new(
            name,
            format!("The {name} tool."),
            obj(json!({"type":"object"})),
        ),
        h,
    )
}

/// These tests cover the handshake era (sessions, server-initiated notifications and requests);
/// `modern_server.rs` covers 2026-07-28. The client is told so rather than probing.
async fn pair(server: Server, client: ClientBuilder) -> Client {
    let client = client.era(mcp_runtime::Era::Legacy);
    let (a, b) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(a);
    let (cr, cw) = tokio::io::split(b);
    tokio::spawn(async move { server.serve(sr, sw).await });
    client.connect(cr, cw).await.expect("initialize")
}

static DROPPED: AtomicBool = AtomicBool::new(false);
struct SetOnDrop;
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        DROPPED.store(true, Ordering::SeqCst);
    }
}

fn features() -> ServerBuilder {
    Server::builder()
        .name("features")
        .page_size(2)
        .connection_config(ConnectionConfig {
            cancel_grace: Duration::from_millis(100),
            ..Default::default()
        })
        .tool(tool("panics", |_a: Arguments, _c: Context| async move {
            if true {
                panic!("boom");
            }
            Ok(CallToolResult::text("unreachable"))
        }))
        .tool(tool("stubborn", |_a: Arguments, _c: Context| async move {
            // Ignores its token; the runtime aborts it after the grace period.
            let _flag = SetOnDrop;
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(CallToolResult::text("late"))
        }))
        .tool(tool("progress", |_a: Arguments, c: Context| async move {
            for i in 1..=3 {
                c.progress(i as f64, Some(3.0), Some(format!("step {i}")))
                    .await;
            }
            c.progress(1.0, Some(3.0), None).await; // not increasing: dropped
            Ok(CallToolResult::text(format!(
                "token: {}",
                c.progress_token().is_some()
            )))
        }))
        .tool(tool("logs", |_a: Arguments, c: Context| async move {
            c.log(LoggingLevel::Debug, None, "debug line").await;
            c.log(
                LoggingLevel::Error,
                Some("db"),
                json!({"msg": "error line"}),
            )
            .await;
            Ok(CallToolResult::text("logged"))
        }))
        .tool(tool("asks", |_a: Arguments, c: Context| async move {
            let sampled = c
                .create_message(CreateMessageParams {
                    messages: vec![SamplingMessage::user_text("hi")],
                    max_tokens: 10,
                    system_prompt: None,
                    model_preferences: None,
                    include_context: None,
                    temperature: None,
                    stop_sequences: None,
                    metadata: None,
                    tools: None,
                    tool_choice: None,
                    meta: None,
                })
                .await;
            let roots = c.list_roots().await;
            let elicited = c
                .elicit(ElicitParams::form(
                    "name?",
                    obj(json!({"type":"object","properties":{"name":{"type":"string"}}})),
                ))
                .await;
            Ok(CallToolResult::text(format!(
                "sampling={} roots={} elicit={}",
                sampled.map(|r| r.model).unwrap_or_else(|e| e.to_string()),
                roots
                    .map(|r| r.roots.len().to_string())
                    .unwrap_or_else(|e| e.to_string()),
                elicited
                    .map(|r| format!("{:?}", r.action))
                    .unwrap_or_else(|e| e.to_string()),
            )))
        }))
        .resource(ResourceRoute::new(
            Resource {
                uri: "mem://a".into(),
                name: "a".into(),
                mime_type: Some("text/plain".into()),
                ..Default::default()
            },
            |uri: String, _v: UriVars, _c: Context| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, Some("text/plain"), "A")],
                    cache: None,
                    meta: None,
                })
            },
        ))
        .resource_template(ResourceTemplateRoute::new(
            ResourceTemplate {
                uri_template: "mem://items/{id}".into(),
                name: "item".into(),
                ..Default::default()
            },
            |uri: String, v: UriVars, _c: Context| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(
                        uri,
                        None,
                        format!("item {}", v["id"]),
                    )],
                    cache: None,
                    meta: None,
                })
            },
        ))
        .prompt(PromptRoute::new(
            Prompt {
                name: "greet".into(),
                arguments: Some(vec![PromptArgument {
                    name: "who".into(),
                    required: Some(true),
                    ..Default::default()
                }]),
                ..Default::default()
            },
            |a: PromptArgs, _c: Context| async move {
                Ok(GetPromptResult {
                    description: None,
                    messages: vec![PromptMessage::user(format!("Hello {}", a["who"]))],
                    meta: None,
                })
            },
        ))
        .completion(|p: CompleteParams, _c: Context| async move {
            let values: Vec<String> = (0..150)
                .map(|i| format!("{}{i}", p.argument.value))
                .collect();
            Ok(CompleteResult {
                completion: Completion {
                    values,
                    total: None,
                    has_more: None,
                },
                meta: None,
            })
        })
}

#[tokio::test]
async fn a_panicking_handler_fails_alone() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    match c.call_tool("panics", json!({})).await {
        Err(Error::Rpc(e)) => {
            assert_eq!(e.code, -32603);
            assert!(e.message.contains("boom"), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    c.ping().await.unwrap();
}

#[tokio::test]
async fn a_handler_that_ignores_cancellation_is_aborted_after_the_grace_period() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    let call = c.call_tool_with(
        "stubborn",
        json!({}),
        CallOptions {
            timeout: Some(Duration::from_millis(50)),
            ..Default::default()
        },
    );
    assert!(matches!(call.await, Err(Error::Timeout { .. })));
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        DROPPED.load(Ordering::SeqCst),
        "the handler future was dropped after the grace period"
    );
}

#[tokio::test]
async fn progress_is_delivered_only_with_a_token_and_only_increasing() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let opts = CallOptions {
        on_progress: Some(Arc::new(move |p: ProgressParams| {
            s2.lock().unwrap().push(p.progress)
        })),
        ..Default::default()
    };
    let r = c.call_tool_with("progress", json!({}), opts).await.unwrap();
    assert_eq!(r.text_content(), "token: true");
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);
    let mut n = c.notifications();
    let r = c.call_tool("progress", json!({})).await.unwrap();
    assert_eq!(r.text_content(), "token: false");
    assert!(n.try_recv().is_err(), "no progress without a token");
}

#[tokio::test]
async fn log_messages_follow_the_level_set_by_the_client() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    let mut n = c.notifications();
    c.set_logging_level(LoggingLevel::Warning).await.unwrap();
    c.call_tool("logs", json!({})).await.unwrap();
    let m = tokio::time::timeout(Duration::from_secs(1), n.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m.method, "notifications/message");
    let p = m.params.unwrap();
    assert_eq!(p["level"], "error");
    assert_eq!(p["logger"], "db");
    assert_eq!(p["data"]["msg"], "error line");
    assert!(n.try_recv().is_err(), "the debug line was filtered");
    match c
        .request::<_, EmptyResult>("logging/setLevel", &json!({"level": "loud"}))
        .await
    {
        Err(Error::Rpc(e)) => assert_eq!(e.code, -32602),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn requests_to_the_client_are_refused_without_its_capabilities() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    let r = c.call_tool("asks", json!({})).await.unwrap();
    let t = r.text_content();
    assert!(
        t.contains("sampling=the peer did not declare the `sampling` capability"),
        "{t}"
    );
    assert!(
        t.contains("roots=the peer did not declare the `roots` capability"),
        "{t}"
    );
    assert!(
        t.contains("elicit=the peer did not declare the `elicitation` capability"),
        "{t}"
    );
}

#[tokio::test]
async fn requests_to_the_client_are_answered_by_its_handlers() {
    let builder = Client::builder()
        .sampling(|_p: CreateMessageParams| async move {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: json!({"type":"text","text":"hello"}),
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
            })
        })
        .elicitation(|_p: ElicitParams| async move {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(obj(json!({"name":"Ada"}))),
                meta: None,
            })
        })
        .roots(vec![Root {
            uri: "file:///tmp".into(),
            name: Some("tmp".into()),
            meta: None,
        }]);
    let c = pair(features().build().unwrap(), builder).await;
    let t = c.call_tool("asks", json!({})).await.unwrap().text_content();
    assert_eq!(t, "sampling=test-model roots=1 elicit=Accept");
}

#[tokio::test]
async fn tools_are_paginated_and_a_bad_cursor_is_invalid_params() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    let first = c.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    assert!(first.next_cursor.is_some());
    assert_eq!(c.list_all_tools().await.unwrap().len(), 5);
    match c.list_tools(Some("bogus".into())).await {
        Err(Error::Rpc(e)) => assert_eq!(e.code, -32602),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn resources_templates_and_subscriptions() {
    let server = features().build().unwrap();
    let c = pair(server.clone(), Client::builder()).await;
    let caps = &c.server().capabilities;
    assert_eq!(
        caps.resources,
        Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true)
        })
    );
    assert_eq!(c.list_all_resources().await.unwrap()[0].uri, "mem://a");
    let t = c.list_resource_templates(None).await.unwrap();
    assert_eq!(t.resource_templates[0].uri_template, "mem://items/{id}");
    let r = c.read_resource("mem://items/42").await.unwrap();
    assert_eq!(
        r.contents[0],
        ResourceContents::text("mem://items/42", None, "item 42")
    );
    match c.read_resource("mem://missing").await {
        Err(Error::Rpc(e)) => assert_eq!(e.code, -32002),
        other => panic!("{other:?}"),
    }
    let mut n = c.notifications();
    server.notify_resource_updated("mem://a");
    assert!(
        tokio::time::timeout(Duration::from_millis(200), n.recv())
            .await
            .is_err(),
        "not subscribed yet"
    );
    c.subscribe("mem://a").await.unwrap();
    server.notify_resource_updated("mem://a");
    let m = tokio::time::timeout(Duration::from_secs(1), n.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m.method, "notifications/resources/updated");
    assert_eq!(m.params.unwrap()["uri"], "mem://a");
    c.unsubscribe("mem://a").await.unwrap();
    server.notify_resource_updated("mem://a");
    assert!(
        tokio::time::timeout(Duration::from_millis(200), n.recv())
            .await
            .is_err(),
        "unsubscribed"
    );
}

#[tokio::test]
async fn a_resource_hidden_from_the_caller_cannot_be_subscribed_to() {
    use mcp_runtime::server::Listed;
    let server = features()
        .visibility(|item: Listed<'_>, _: Option<&mcp_runtime::AuthInfo>| {
            item != Listed::Resource("mem://a")
        })
        .build()
        .unwrap();
    let c = pair(server.clone(), Client::builder()).await;
    assert!(c.list_all_resources().await.unwrap().is_empty());
    for res in [
        c.read_resource("mem://a").await.map(drop),
        c.subscribe("mem://a").await,
    ] {
        match res {
            Err(Error::Rpc(e)) => assert_eq!(
                (e.code, e.message.as_str()),
                (-32002, "Resource not found: mem://a")
            ),
            other => panic!("{other:?}"),
        }
    }
    let mut n = c.notifications();
    server.notify_resource_updated("mem://a");
    assert!(
        tokio::time::timeout(Duration::from_millis(200), n.recv())
            .await
            .is_err(),
        "no update of a resource the caller may not see"
    );
    // What it may see through a template still subscribes.
    c.subscribe("mem://items/7").await.unwrap();
}

#[tokio::test]
async fn prompts_require_their_arguments() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    let p = c.list_all_prompts().await.unwrap();
    assert_eq!(p[0].name, "greet");
    let r = c
        .get_prompt("greet", [("who".to_string(), "Ada".to_string())].into())
        .await
        .unwrap();
    assert_eq!(r.messages[0], PromptMessage::user("Hello Ada"));
    for (name, args) in [("greet", Default::default()), ("nope", Default::default())] {
        match c.get_prompt(name, args).await {
            Err(Error::Rpc(e)) => assert_eq!(e.code, -32602),
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn completion_caps_values_at_100() {
    let c = pair(features().build().unwrap(), Client::builder()).await;
    assert!(c.server().capabilities.completions.is_some());
    let r = c
        .complete(CompleteParams {
            reference: CompletionRef::Prompt {
                name: "greet".into(),
            },
            argument: CompletionArgument {
                name: "who".into(),
                value: "A".into(),
            },
            context: None,
            meta: None,
        })
        .await
        .unwrap();
    assert_eq!(r.completion.values.len(), 100);
    assert_eq!(r.completion.total, Some(150));
    assert_eq!(r.completion.has_more, Some(true));
}

#[tokio::test]
async fn tools_added_while_serving_are_announced() {
    let server = features().build().unwrap();
    let c = pair(server.clone(), Client::builder()).await;
    let mut n = c.notifications();
    let calls = Arc::new(AtomicUsize::new(0));
    let k = calls.clone();
    server
        .add_tool(tool("late", move |_a: Arguments, _c: Context| {
            k.fetch_add(1, Ordering::SeqCst);
            async move { Ok(CallToolResult::text("late tool")) }
        }))
        .unwrap();
    let m = tokio::time::timeout(Duration::from_secs(1), n.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m.method, "notifications/tools/list_changed");
    assert_eq!(
        c.call_tool("late", json!({})).await.unwrap().text_content(),
        "late tool"
    );
    assert!(server
        .add_tool(tool("late", |_a: Arguments, _c: Context| async move {
            Ok(CallToolResult::text(""))
        }))
        .is_err());
}

#[tokio::test]
async fn capabilities_follow_what_was_registered() {
    let only_tools = Server::builder()
        .tool(tool("t", |_a: Arguments, _c: Context| async move {
            Ok(CallToolResult::text(""))
        }))
        .build()
        .unwrap();
    let caps = only_tools.capabilities();
    assert!(caps.tools.is_some());
    assert!(caps.resources.is_none() && caps.prompts.is_none() && caps.completions.is_none());
    let c = pair(only_tools, Client::builder()).await;
    match c.list_prompts(None).await {
        Err(Error::Rpc(e)) => assert_eq!(
            e.code, -32601,
            "an unadvertised capability's method is -32601"
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn duplicate_and_invalid_tool_names_are_rejected_at_build() {
    let t = || {
        tool("same", |_a: Arguments, _c: Context| async move {
            Ok(CallToolResult::text(""))
        })
    };
    assert!(
        matches!(Server::builder().tool(t()).tool(t()).build(), Err(mcp_runtime::server::ServerError::DuplicateTool(n)) if n == "same")
    );
    let bad = tool("has space", |_a: Arguments, _c: Context| async move {
        Ok(CallToolResult::text(""))
    });
    assert!(Server::builder().tool(bad).build().is_err());
}

#[tokio::test]
async fn an_old_protocol_version_is_negotiated() {
    let c = pair(
        features().build().unwrap(),
        Client::builder().protocol_version(ProtocolVersion::V2024_11_05),
    )
    .await;
    assert_eq!(c.protocol_version(), ProtocolVersion::V2024_11_05);
}

#[tokio::test]
async fn cancellation_reaches_handlers_while_at_the_concurrency_limit() {
    let stopped = Arc::new(AtomicBool::new(false));
    let s2 = stopped.clone();
    let server = Server::builder()
        .connection_config(ConnectionConfig {
            max_concurrent_requests: 1,
            ..Default::default()
        })
        .tool(tool("waits", move |_a: Arguments, c: Context| {
            let s = s2.clone();
            async move {
                c.cancelled().await;
                s.store(true, Ordering::SeqCst);
                Ok(CallToolResult::text("stopped"))
            }
        }))
        .tool(tool("quick", |_a: Arguments, _c: Context| async move {
            Ok(CallToolResult::text("quick"))
        }))
        .build()
        .unwrap();
    let c = Arc::new(pair(server, Client::builder()).await);
    let c2 = c.clone();
    let blocked = tokio::spawn(async move {
        c2.call_tool_with(
            "waits",
            json!({}),
            CallOptions {
                timeout: Some(Duration::from_millis(300)),
                ..Default::default()
            },
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The only slot is taken: this call waits in the queue until the first one is cancelled.
    let quick = c.call_tool("quick", json!({})).await.unwrap();
    assert_eq!(quick.text_content(), "quick");
    assert!(matches!(blocked.await.unwrap(), Err(Error::Timeout { .. })));
    assert!(
        stopped.load(Ordering::SeqCst),
        "the running handler saw its cancellation"
    );
}

#[tokio::test]
async fn tracing_events_reach_clients_as_log_messages() {
    use tracing_subscriber::layer::SubscriberExt;
    let server = Server::builder()
        .tool(tool("traced", |_a: Arguments, _c: Context| async move {
            tracing::warn!(target: "app::db", rows = 3, "slow query");
            tracing::debug!(target: "app::db", "filtered out");
            Ok(CallToolResult::text("ok"))
        }))
        .build()
        .unwrap();
    let subscriber = tracing_subscriber::registry().with(server.logging_layer());
    let _guard = tracing::subscriber::set_default(subscriber);
    let c = pair(server, Client::builder()).await;
    c.set_logging_level(LoggingLevel::Info).await.unwrap();
    let mut n = c.notifications();
    c.call_tool("traced", json!({})).await.unwrap();
    let m = tokio::time::timeout(Duration::from_secs(1), n.recv())
        .await
        .unwrap()
        .unwrap();
    let p = m.params.unwrap();
    assert_eq!(m.method, "notifications/message");
    assert_eq!(p["level"], "warning");
    assert_eq!(p["logger"], "app::db");
    assert_eq!(p["data"]["message"], "slow query");
    assert_eq!(p["data"]["rows"], "3");
    assert!(
        tokio::time::timeout(Duration::from_millis(100), n.recv())
            .await
            .is_err(),
        "debug is below the level"
    );
}

/// An argument whose decoding panics (a user's `Deserialize`).
#[derive(mcp_runtime::JsonSchema)]
struct Touchy(String);
impl<'de> serde::Deserialize<'de> for Touchy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "panic" {
            panic!("touchy decoder");
        }
        Ok(Touchy(s))
    }
}

/// Return the text unchanged.
#[mcp_runtime::tool]
fn echo(
    /// Text to echo
    text: String,
) -> String {
    text
}

/// Return the text of a touchy argument.
#[mcp_runtime::tool]
fn touchy(
    /// A text whose decoder panics on `panic`
    value: Touchy,
) -> String {
    value.0
}

/// A `#[tool]` call in the handshake era decodes its arguments from the request's bytes and writes its
/// result straight into the response frame: large texts and escapes come back exactly, a bad argument
/// is a tool error naming it, a panicking decoder fails that call alone.
#[tokio::test]
async fn tool_calls_decode_from_the_request_and_frame_their_result_directly() {
    let server = Server::builder()
        .name("direct")
        .tool(echo_tool())
        .tool(touchy_tool())
        .build()
        .unwrap();
    let c = pair(server, Client::builder()).await;
    let mut big = String::new();
    for i in 0..40_000u32 {
        big.push_str(&format!("line {i}: \"quoted\" \\ tab\t é ✓\n"));
    }
    for text in ["", "short", "a \"b\" \\ \u{1}", big.as_str()] {
        let r = c.call_tool("echo", json!({ "text": text })).await.unwrap();
        assert!(!r.is_error());
        assert_eq!(r.text_content(), text);
    }
    let r = c.call_tool("echo", json!({ "text": 5 })).await.unwrap();
    assert!(r.is_error());
    assert!(r.text_content().contains("`text`"), "{r:?}");
    let r = c.call_tool("echo", json!({})).await.unwrap();
    assert!(r.is_error(), "`text` is missing");
    match c.call_tool("touchy", json!({ "value": "panic" })).await {
        Err(Error::Rpc(e)) => {
            assert_eq!(e.code, -32603);
            assert!(e.message.contains("touchy decoder"), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    let r = c
        .call_tool("touchy", json!({ "value": "calm" }))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "calm");
}
