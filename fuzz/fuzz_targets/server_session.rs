//! A server fed an arbitrary sequence of messages: it never panics, never writes anything but complete
//! JSON lines, never sends more results for an id than requests carried it, and ends when its input
//! ends.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::protocol::*;
use mcp_runtime::server::{Arguments, PromptArgs, PromptRoute, ResourceRoute, ToolRoute, UriVars};
use mcp_runtime::{ConnectionConfig, Context, Server};
use mcp_runtime::framing::{decode, decode_str, Incoming};
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::AsyncReadExt;

fn server() -> &'static Server {
    static S: OnceLock<Server> = OnceLock::new();
    S.get_or_init(|| {
        let schema = serde_json::json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]});
        let obj = schema.as_object().cloned().unwrap();
        Server::builder()
            .page_size(1)
            .connection_config(ConnectionConfig {
                max_concurrent_requests: 4,
                cancel_grace: Duration::from_millis(1),
                drain_timeout: Duration::from_millis(50),
                ..Default::default()
            })
            .tool(ToolRoute::new(Tool::new("echo", "echo", obj.clone()), |a: Arguments, c: Context| async move {
                #[derive(serde::Deserialize)]
                struct E {
                    text: String,
                }
                c.progress(1.0, None, None).await;
                c.info("echo").await;
                Ok(match a.parse::<E>() {
                    Ok(e) => CallToolResult::text(e.text),
                    Err(e) => CallToolResult::error(e.message()),
                })
            }))
            .tool(ToolRoute::new(Tool::new("ask", "ask", obj), |_a: Arguments, c: Context| async move {
                let r = c.list_roots().await;
                Ok(CallToolResult::text(format!("{}", r.is_ok())))
            }))
            .resource(ResourceRoute::new(
                Resource { uri: "mem://a".into(), name: "a".into(), ..Default::default() },
                |u: String, _v: UriVars, _c: Context| async move {
                    Ok(ReadResourceResult { contents: vec![ResourceContents::text(u, None, "a")], cache: None, meta: None })
                },
            ))
            .prompt(PromptRoute::new(Prompt { name: "p".into(), ..Default::default() }, |_a: PromptArgs, _c: Context| async move {
                Ok(GetPromptResult { description: None, messages: vec![PromptMessage::user("hi")], meta: None })
            }))
            .build()
            .unwrap()
    })
}

const PRELUDE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{\"roots\":{}},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}\n";

fuzz_target!(|data: &[u8]| {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(async {
        let (client, srv) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(srv);
        let (mut cr, mut cw) = tokio::io::split(client);
        let serve = tokio::spawn(async move { server().serve(sr, sw).await });
        // Half the inputs start initialized, so that the methods behind the lifecycle get fuzzed too.
        let mut input = Vec::new();
        if data.first().is_some_and(|b| b & 1 == 1) {
            input.extend_from_slice(PRELUDE);
        }
        input.extend_from_slice(data);
        tokio::io::AsyncWriteExt::write_all(&mut cw, &input).await.unwrap();
        // EOF for the server (dropping a split half alone does not close a duplex pipe).
        tokio::io::AsyncWriteExt::shutdown(&mut cw).await.unwrap();
        let mut out = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), cr.read_to_end(&mut out)).await;
        let _ = tokio::time::timeout(Duration::from_secs(5), serve).await.expect("the server ends when its input ends");
        // Requests in the input, by id (batches included).
        let mut requests: HashMap<String, usize> = HashMap::new();
        for line in input.split(|&b| b == b'\n') {
            match decode(line) {
                Incoming::Request { id, .. } => *requests.entry(id.to_string()).or_default() += 1,
                Incoming::Batch(items) => {
                    for i in items {
                        if let Incoming::Request { id, .. } = decode_str(i.get()) {
                            *requests.entry(id.to_string()).or_default() += 1;
                        }
                    }
                }
                _ => {}
            }
        }
        let mut results: HashMap<String, usize> = HashMap::new();
        for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(line).expect("the server writes JSON lines only");
            let msgs = match v {
                serde_json::Value::Array(a) => a,
                other => vec![other],
            };
            for m in msgs {
                if let (Some(_), Some(id)) = (m.get("result"), m.get("id")) {
                    let id: mcp_runtime::protocol::RequestId = serde_json::from_value(id.clone()).expect("ids we write are valid");
                    let key = id.to_string();
                    let n = results.entry(key.clone()).or_default();
                    *n += 1;
                    assert!(*n <= requests.get(&key).copied().unwrap_or(0), "more results for {key} than requests with that id");
                }
            }
        }
    });
});
