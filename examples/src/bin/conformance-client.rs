//! The client the official MCP conformance suite drives (`conformance client --command ...`): it appends
//! the mock server's URL as the last argument and names the scenario in `MCP_CONFORMANCE_SCENARIO`.
//!
//! ```text
//! conformance-client [--transport auto|streamable|sse] <url>
//! ```
//!
//! Every scenario connects over Streamable HTTP (probing for 2026-07-28 when the suite runs that revision,
//! `MCP_CONFORMANCE_PROTOCOL_VERSION`, initializing otherwise), lists the tools and calls each (with the
//! arguments the scenario's context names, `toolCalls`, or made up from the schema), then reads a resource
//! and gets a prompt when the server has them. Elicitation requests (server requests or 2026 input
//! requests alike) are accepted with the schema's defaults (SEP-1034); sampling requests get a canned
//! answer.

use mcp_runtime::http::{Authorizer, Grant, HttpClientConfig, HttpTransportKind, OAuthConfig};
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    ErrorObject, JsonObject, ProtocolVersion, Role, SkillResources, SkillsCapability, Tool,
};
use mcp_runtime::{Client, Era};
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

/// Which era to speak for the revision the suite runs (`MCP_CONFORMANCE_PROTOCOL_VERSION`): a
/// 2026-07-28 run probes (and finds the mock server modern), an older one initializes with that version.
fn era_for(revision: &str) -> Era {
    match ProtocolVersion::parse(revision) {
        Some(v) if !v.is_modern() => Era::Legacy,
        _ => Era::Auto,
    }
}

/// Arguments for a tool: numbers for `number` properties, strings otherwise. A tool that takes a
/// `schema` object (the JSON Schema preservation scenario's echo) gets the input schema of the other
/// tool listed, passed back verbatim.
fn arguments_for(tools: &[Tool], tool: &Tool) -> Value {
    let schema = &tool.input_schema;
    let mut args = serde_json::Map::new();
    let echo = schema
        .get("properties")
        .and_then(|p| p.get("schema"))
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        == Some("object");
    if echo {
        if let Some(other) = tools.iter().find(|t| t.name != tool.name) {
            args.insert("schema".into(), Value::Object(other.input_schema.clone()));
            return Value::Object(args);
        }
    }
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
    // credentials, keys and tokens come in MCP_CONFORMANCE_CONTEXT.
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let text = |k: &str| context.get(k).and_then(Value::as_str).map(str::to_string);
    // Which grant: the extension scenarios hand over what their flow needs.
    let grant = if let (Some(endpoint), Some(id_token)) =
        (text("idp_token_endpoint"), text("idp_id_token"))
    {
        Grant::EnterpriseManaged {
            idp_token_endpoint: endpoint,
            id_token,
            idp_client_id: text("idp_client_id"),
            idp_client_secret: None,
        }
    } else if let Some(assertion) = text("valid_jwt") {
        Grant::JwtBearer { assertion }
    } else if scenario.starts_with("auth/client-credentials") {
        Grant::ClientCredentials
    } else {
        Grant::AuthorizationCode
    };
    let oauth = OAuthConfig {
        client_name: "mcp-runtime-conformance-client".into(),
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        private_key_pem: text("private_key_pem"),
        signing_algorithm: text("signing_algorithm").unwrap_or_else(|| "ES256".into()),
        client_metadata_url: Some("https://conformance-test.local/client-metadata.json".into()),
        authorizer: Authorizer::Redirect,
        grant,
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
        .era(era_for(
            &std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default(),
        ))
        .elicitation(accept_with_defaults)
        .sampling(canned_sample)
        .connect_http(&url, config)
        .await?;
    let info = &client.server().server_info;
    eprintln!(
        "connected to {} {} (protocol {}, {})",
        info.name,
        info.version,
        client.protocol_version(),
        if client.is_modern() {
            "stateless"
        } else {
            "initialized"
        }
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
    // Arguments the scenario asks for, by tool.
    let planned: Vec<(String, Value)> = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            Some((
                c.get("name")?.as_str()?.to_string(),
                c.get("arguments")?.clone(),
            ))
        })
        .collect();
    for tool in &tools {
        let mut calls: Vec<Value> = planned
            .iter()
            .filter(|(n, _)| *n == tool.name)
            .map(|(_, a)| a.clone())
            .collect();
        if calls.is_empty() {
            calls.push(arguments_for(&tools, tool));
        }
        for args in calls {
            match client.call_tool(&tool.name, &args).await {
                Ok(r) => eprintln!("{} -> {}", tool.name, r.text_content()),
                Err(e) => eprintln!("{} failed: {e}", tool.name),
            }
        }
    }
    let caps = client.server().capabilities.clone();
    if SkillsCapability::of(&caps).is_some() {
        // The skills extension: listing reads no file. The verify scenarios then load the first skill
        // (the user picked it), and its supporting files only if SKILL.md passed verification.
        let skills = client.list_all_skills().await?;
        eprintln!(
            "skills: {}",
            skills
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if scenario.contains("verify") {
            if let Some(entry) = skills.first() {
                match client.load_skill(entry).await {
                    Ok(skill) => {
                        if let SkillResources::Files(files) = &entry.resources {
                            for f in files.iter().filter(|f| f.uri != entry.uri) {
                                match client.read_skill_file(&skill, &f.uri).await {
                                    Ok(b) => eprintln!("read {} ({} bytes)", f.uri, b.len()),
                                    Err(e) => eprintln!("{} refused: {e}", f.uri),
                                }
                            }
                        }
                    }
                    Err(e) => eprintln!("skill {} refused: {e}", entry.uri),
                }
            }
        }
        client.close().await;
        return Ok(());
    }
    if caps.resources.is_some() {
        let resources = client.list_all_resources().await?;
        if let Some(r) = resources.first() {
            match client.read_resource(&r.uri).await {
                Ok(c) => eprintln!("read {}: {} item(s)", r.uri, c.contents.len()),
                Err(e) => eprintln!("read {} failed: {e}", r.uri),
            }
        }
    }
    if caps.prompts.is_some() {
        let prompts = client.list_all_prompts().await?;
        if let Some(p) = prompts.first() {
            let args = p
                .arguments
                .iter()
                .flatten()
                .map(|a| (a.name.clone(), "test".to_string()))
                .collect();
            match client.get_prompt(&p.name, args).await {
                Ok(r) => eprintln!("prompt {}: {} message(s)", p.name, r.messages.len()),
                Err(e) => eprintln!("prompt {} failed: {e}", p.name),
            }
        }
    }
    client.close().await;
    Ok(())
}
