//! The client the official MCP conformance suite drives (`conformance client --command ...`): it appends
//! the mock server's URL as the last argument and names the scenario in `MCP_CONFORMANCE_SCENARIO`.
//!
//! ```text
//! conformance-client [--transport auto|streamable|sse] <url>
//! ```
//!
//! Every scenario connects over Streamable HTTP, initializes, lists the tools and calls the ones the
//! scenario is about. Elicitation requests are accepted with the schema's defaults (SEP-1034); sampling
//! requests get a canned answer.

use mcp_runtime::http::{Authorizer, HttpClientConfig, HttpTransportKind, OAuthConfig};
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    ErrorObject, JsonObject, Role,
};
use mcp_runtime::Client;
use serde_json::{json, Value};
use std::time::Duration;

/// Accepts a form with every field the schema gives a default for.
async fn accept_with_defaults(p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
    let mut content = JsonObject::new();
    let properties = p
        .requested_schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    for (name, schema) in properties.into_iter().flatten() {
        if let Some(default) = schema.get("default") {
            content.insert(name.clone(), default.clone());
        }
    }
    Ok(ElicitResult {
        action: ElicitAction::Accept,
        content: Some(content),
        meta: None,
    })
}

async fn canned_sample(_: CreateMessageParams) -> Result<CreateMessageResult, ErrorObject> {
    Ok(CreateMessageResult {
        role: Role::Assistant,
        content: json!({"type": "text", "text": "This is a response from the conformance client."}),
        model: "conformance-model".into(),
        stop_reason: Some("endTurn".into()),
        meta: None,
    })
}

/// Arguments for a tool: numbers for `number` properties, strings otherwise.
fn arguments_for(schema: &JsonObject) -> Value {
    let mut args = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (i, (name, p)) in props.iter().enumerate() {
            let v = match p.get("type").and_then(Value::as_str) {
                Some("number") | Some("integer") => json!(i as i64 + 2),
                Some("boolean") => json!(true),
                _ => json!("test"),
            };
            args.insert(name.clone(), v);
        }
    }
    Value::Object(args)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-client: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let mut transport = HttpTransportKind::Auto;
    let mut url = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--transport" => {
                transport = match it.next().as_deref() {
                    Some("auto") => HttpTransportKind::Auto,
                    Some("streamable") => HttpTransportKind::StreamableHttp,
                    Some("sse") => HttpTransportKind::LegacySse,
                    other => {
                        anyhow::bail!("--transport takes auto, streamable or sse, not {other:?}")
                    }
                }
            }
            _ => url = Some(a),
        }
    }
    let url = url.ok_or_else(|| {
        anyhow::anyhow!("usage: conformance-client [--transport auto|streamable|sse] <url>")
    })?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    eprintln!("conformance-client: scenario {scenario:?} against {url}");

    // Authorization scenarios: the automated authorization server redirects at once; pre-registered
    // credentials come in MCP_CONFORMANCE_CONTEXT.
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let oauth = OAuthConfig {
        client_name: "mcp-runtime-conformance-client".into(),
        client_id: context
            .get("client_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        client_secret: context
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_string),
        client_metadata_url: Some("https://conformance-test.local/client-metadata.json".into()),
        authorizer: Authorizer::Redirect,
        ..Default::default()
    };
    let config = HttpClientConfig {
        transport,
        oauth: Some(oauth),
        ..Default::default()
    };
    let client = Client::builder()
        .name("mcp-runtime-conformance-client")
        .version(env!("CARGO_PKG_VERSION"))
        .timeout(Some(Duration::from_secs(20)))
        .elicitation(accept_with_defaults)
        .sampling(canned_sample)
        .connect_http(&url, config)
        .await?;
    let info = &client.server().server_info;
    eprintln!(
        "connected to {} {} (protocol {})",
        info.name,
        info.version,
        client.protocol_version()
    );

    if scenario == "initialize" {
        client.close().await;
        return Ok(());
    }
    let tools = client.list_all_tools().await?;
    eprintln!(
        "tools: {}",
        tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for tool in &tools {
        let args = arguments_for(&tool.input_schema);
        match client.call_tool(&tool.name, &args).await {
            Ok(r) => eprintln!("{} -> {}", tool.name, r.text_content()),
            Err(e) => eprintln!("{} failed: {e}", tool.name),
        }
    }
    client.close().await;
    Ok(())
}
