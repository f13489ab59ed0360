//! The bridge: a spec's operations served as MCP tools. A `tools/call` is validated against the operation's
//! full request schema (whatever the budget cut from the tool the model sees), then becomes the HTTP request
//! the operation describes; a JSON answer comes back as `structuredContent` and text, an error status as
//! `isError: true` with the status and an excerpt of the body.
//!
//! Headers given to the bridge (credentials) are added to every request and never reach the model: their
//! parameters are left out of the tools' schemas, and their values are redacted from every result.
//!
//! [`Bridge`] is the library face a gateway uses (the tools, and [`Bridge::call`] to run one); [`Bridge::routes`]
//! and [`Bridge::server`] put it behind this runtime's MCP server (`mcp-codegen serve-openapi`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_openapi::{Bridge, BridgeConfig, ConvertOptions};
//! let config = BridgeConfig {
//!     headers: vec![("Authorization".into(), "Bearer secret".into())],
//!     ..BridgeConfig::new("https://api.example.com/v1")
//! };
//! let bridge = Bridge::from_spec("openapi.yaml".as_ref(), &ConvertOptions::default(), config)?;
//! let tools = bridge.tools(); // what an upstream lists
//! let args = serde_json::json!({"id": 7}).as_object().cloned().unwrap_or_default();
//! let result = bridge.call(&tools[0].name, args).await?; // a tools/call routed to it
//! # let _ = result; Ok(()) }
//! ```

use crate::{
    convert, rich_text, Body, BodyShape, Conversion, ConvertOptions, Definitions, Document,
};
use crate::{Encoding, Field, Location, Parameter, Request};
use base64::Engine as _;
use mcp_runtime::protocol::{CallToolResult, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Server};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Everything but RFC 3986's unreserved characters is encoded in a path parameter.
const PATH_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// How much of an error body an `isError` result quotes.
const EXCERPT_CHARS: usize = 1_000;

/// Secrets shorter than this are not searched for in results: redacting `1` everywhere would garble them.
const MIN_SECRET_LEN: usize = 4;

/// At most this many validation errors are reported for one call.
const MAX_VALIDATION_ERRORS: usize = 8;

/// Where the API is and how to reach it.
#[derive(Debug, Clone)]
pub struct BridgeConfig {
    /// Prefixed to every operation's path (`https://api.example.com/v1`).
    pub base_url: String,
    /// Added to every request; their values never appear in results.
    pub headers: Vec<(String, String)>,
    /// The longest a whole request (connect, send, receive) may take.
    pub timeout: Duration,
    /// The longest connecting to the API may take (default 10 s).
    pub connect_timeout: Duration,
    /// Response bodies are cut at this size.
    pub max_response_bytes: usize,
    /// Rich-text fields converted on the way: `results` (ADF, storage, HTML) to Markdown for the model,
    /// `arguments` from the model's Markdown to what the API wants (see [`crate::rich_text`]). Paths of
    /// `arguments` are over the tool's arguments (a JSON body's properties are arguments of their own
    /// names: `fields.description` for Jira's `PUT /rest/api/3/issue/{issueIdOrKey}`).
    pub rich_text: crate::rich_text::RichText,
}

impl BridgeConfig {
    /// A bridge to the API at `base_url`, with no extra headers, a 30 s timeout (10 s to connect) and
    /// response bodies cut at 4 MiB.
    pub fn new(base_url: impl Into<String>) -> Self {
        BridgeConfig {
            base_url: base_url.into(),
            headers: Vec::new(),
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_response_bytes: 4 * 1024 * 1024,
            rich_text: Default::default(),
        }
    }
}

/// A bridge that cannot start, or a call to a tool it does not have.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The spec could not be loaded.
    #[error(transparent)]
    Load(#[from] crate::LoadError),
    /// The spec (named) has no operation that could become a tool (or the filter left none).
    #[error("{0} has no operation that could be mapped to a tool")]
    NoOperations(String),
    /// The base URL is not an `http://` or `https://` URL.
    #[error("the base URL {0:?} is not an http:// or https:// URL")]
    BaseUrl(String),
    /// A configured header's name or value is not valid in HTTP.
    #[error("the header {0:?} is not a valid HTTP header")]
    Header(String),
    /// A rich-text rule for arguments names a format Markdown cannot be written back into.
    #[error("rich text for arguments: {0}")]
    RichText(mcp_text::fields::RuleError),
    /// The HTTP client could not be built (TLS setup); the reason.
    #[error("could not build the HTTP client: {0}")]
    Client(String),
    /// The MCP server could not be built from the tools; the reason.
    #[error("could not build the MCP server: {0}")]
    Server(String),
    /// A call named a tool the bridge does not have.
    #[error("no tool named `{0}`")]
    UnknownTool(String),
}

struct Shared {
    http: reqwest::Client,
    base: String,
    timeout: Duration,
    max_response_bytes: usize,
    secrets: Vec<String>,
    rich_text: crate::rich_text::RichText,
}

/// One operation as the bridge runs it.
struct Bridged {
    tool: Tool,
    input: Value,
    request: Request,
    /// Built on the first call: the full input schema with the definitions it reaches.
    validator: OnceLock<Option<jsonschema::Validator>>,
}

/// A REST API served as MCP tools.
#[derive(Clone)]
pub struct Bridge {
    shared: Arc<Shared>,
    operations: Arc<Vec<Bridged>>,
    definitions: Arc<Definitions>,
    by_name: Arc<HashMap<String, usize>>,
    title: String,
    version: String,
}

impl Bridge {
    /// A bridge for the operations of a conversion.
    pub fn new(conversion: Conversion, config: &BridgeConfig) -> Result<Bridge, BridgeError> {
        let shared = Arc::new(Shared::new(config)?);
        let by_name = conversion
            .operations
            .iter()
            .enumerate()
            .map(|(i, op)| (op.tool.name.clone(), i))
            .collect();
        let operations = conversion
            .operations
            .into_iter()
            .map(|mut op| {
                if !config.rich_text.is_empty() {
                    rich_text::describe(&mut op.tool, &config.rich_text);
                }
                op
            })
            .map(|op| Bridged {
                tool: op.tool,
                input: op.input,
                request: op.request,
                validator: OnceLock::new(),
            })
            .collect();
        Ok(Bridge {
            shared,
            operations: Arc::new(operations),
            definitions: Arc::new(conversion.definitions),
            by_name: Arc::new(by_name),
            title: conversion.title,
            version: conversion.version,
        })
    }

    /// Loads a spec and bridges the operations `options` keeps. The secret headers of `config` are left out
    /// of the tools' arguments. An empty `config.base_url` means the spec's first server.
    pub fn from_spec(
        spec: &Path,
        options: &ConvertOptions,
        mut config: BridgeConfig,
    ) -> Result<Bridge, BridgeError> {
        let doc = Document::load(spec)?;
        let mut options = options.clone();
        options
            .hidden_headers
            .extend(config.headers.iter().map(|(k, _)| k.clone()));
        let conversion = convert(&doc, &options);
        if conversion.operations.is_empty() {
            return Err(BridgeError::NoOperations(spec.display().to_string()));
        }
        if config.base_url.is_empty() {
            config.base_url = doc.server_url().unwrap_or_default();
        }
        Bridge::new(conversion, &config)
    }

    /// The tools, as `tools/list` lists them.
    pub fn tools(&self) -> Vec<Tool> {
        self.operations.iter().map(|o| o.tool.clone()).collect()
    }

    /// Runs one tool: validates the arguments, makes the HTTP request, and returns the result with every
    /// secret redacted. An API error is an `isError` result, not an `Err`.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, BridgeError> {
        let &i = self
            .by_name
            .get(tool)
            .ok_or_else(|| BridgeError::UnknownTool(tool.to_string()))?;
        Ok(self.call_operation(i, arguments).await)
    }

    async fn call_operation(&self, i: usize, mut arguments: Map<String, Value>) -> CallToolResult {
        let op = &self.operations[i];
        let rich_text = &self.shared.rich_text;
        // The model's Markdown becomes the API's format first: the full schema describes that.
        let sent = match rich_text::arguments_from_markdown(&mut arguments, &rich_text.arguments) {
            Ok(report) => report,
            Err(e) => return rich_text::argument_error(&e),
        };
        if let Err(why) = self.validate(op, &arguments) {
            return CallToolResult::error(why);
        }
        let mut result = self.shared.call(&op.request, &arguments).await;
        rich_text::result_to_markdown(&mut result, &rich_text.results);
        rich_text::note_warnings(&mut result, &sent);
        self.shared.redact_result(result)
    }

    /// The arguments against the operation's full input schema; the errors say where and what.
    fn validate(&self, op: &Bridged, arguments: &Map<String, Value>) -> Result<(), String> {
        let validator = op
            .validator
            .get_or_init(|| validator(&self.definitions.self_contained(&op.input)));
        let Some(validator) = validator else {
            return Ok(());
        };
        let instance = Value::Object(arguments.clone());
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .take(MAX_VALIDATION_ERRORS)
            .map(|e| {
                let at = e.instance_path().to_string();
                match at.strip_prefix('/') {
                    Some(rest) if !rest.is_empty() => {
                        let (arg, inner) = rest.split_once('/').unwrap_or((rest, ""));
                        let arg = arg.replace("~1", "/").replace("~0", "~");
                        if inner.is_empty() {
                            format!("argument `{arg}`: {e}")
                        } else {
                            format!("argument `{arg}` at /{inner}: {e}")
                        }
                    }
                    _ => e.to_string(),
                }
            })
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        Err(format!(
            "invalid arguments for `{}`:\n- {}",
            op.tool.name,
            errors.join("\n- ")
        ))
    }

    /// One route per operation, for a server of this runtime.
    pub fn routes(&self) -> Vec<ToolRoute> {
        (0..self.operations.len())
            .map(|i| {
                let bridge = self.clone();
                ToolRoute::new(
                    self.operations[i].tool.clone(),
                    move |args: Arguments, ctx: Context| {
                        let bridge = bridge.clone();
                        async move {
                            let arguments: Map<String, Value> = match args.parse() {
                                Ok(a) => a,
                                Err(e) => return Ok(CallToolResult::error(e.message())),
                            };
                            Ok(tokio::select! {
                                r = bridge.call_operation(i, arguments) => r,
                                _ = ctx.cancelled() => CallToolResult::error("cancelled"),
                            })
                        }
                    },
                )
            })
            .collect()
    }

    /// An MCP server whose tools call the API.
    pub fn server(&self) -> Result<Server, BridgeError> {
        Server::builder()
            .name(self.title.clone())
            .version(self.version.clone())
            .tools(self.routes())
            .offer_tools()
            .build()
            .map_err(|e| BridgeError::Server(e.to_string()))
    }
}

/// A validator for a full input schema. `oneOf` is read as `anyOf` (OpenAPI's unions often overlap, and a
/// call matching two branches is not wrong); a `pattern` this engine cannot compile is dropped. `None` when
/// the schema cannot be compiled at all: the required arguments are still checked when the request is built.
fn validator(schema: &Value) -> Option<jsonschema::Validator> {
    let mut schema = schema.clone();
    one_of_as_any_of(&mut schema);
    let build = |s: &Value| {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(false)
            .build(s)
    };
    match build(&schema) {
        Ok(v) => Some(v),
        Err(_) => {
            drop_patterns(&mut schema);
            build(&schema).ok()
        }
    }
}

fn one_of_as_any_of(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(branches) = o.remove("oneOf") {
                o.entry("anyOf").or_insert(branches);
            }
            for (k, child) in o.iter_mut() {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    one_of_as_any_of(child);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(one_of_as_any_of),
        _ => {}
    }
}

fn drop_patterns(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.get("pattern").is_some_and(Value::is_string) {
                o.remove("pattern");
            }
            o.values_mut().for_each(drop_patterns);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_patterns),
        _ => {}
    }
}

impl Shared {
    fn new(config: &BridgeConfig) -> Result<Shared, BridgeError> {
        let base = config.base_url.trim_end_matches('/').to_string();
        config
            .rich_text
            .arguments
            .check_writable()
            .map_err(BridgeError::RichText)?;
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(BridgeError::BaseUrl(config.base_url.clone()));
        }
        let mut headers = HeaderMap::new();
        let mut secrets = Vec::new();
        for (name, value) in &config.headers {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| BridgeError::Header(name.clone()))?;
            let mut v =
                HeaderValue::from_str(value).map_err(|_| BridgeError::Header(name.clone()))?;
            v.set_sensitive(true);
            headers.append(n, v);
            secrets.push(value.clone());
            // `Bearer abc`: the token alone is as secret as the whole value.
            if let Some((_, token)) = value.split_once(' ') {
                secrets.push(token.trim().to_string());
            }
        }
        secrets.retain(|s| s.len() >= MIN_SECRET_LEN);
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        // Userinfo in the base URL is a secret too.
        if let Some(rest) = base.split_once("://").map(|p| p.1) {
            if let Some((userinfo, _)) = rest.split('/').next().unwrap_or_default().rsplit_once('@')
            {
                secrets.push(userinfo.to_string());
            }
        }
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("mcp-openapi-bridge/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| BridgeError::Client(e.to_string()))?;
        Ok(Shared {
            http,
            base,
            timeout: config.timeout,
            max_response_bytes: config.max_response_bytes,
            secrets,
            rich_text: config.rich_text.clone(),
        })
    }

    async fn call(&self, request: &Request, args: &Map<String, Value>) -> CallToolResult {
        let what = format!("{} {}", request.method, request.path);
        let builder = match self.build(request, args) {
            Ok(b) => b,
            Err(why) => return CallToolResult::error(why),
        };
        let mut response = match builder.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return CallToolResult::error(format!(
                    "{what}: no answer within {:?} (the bridge's timeout)",
                    self.timeout
                ))
            }
            Err(e) if e.is_connect() => {
                return CallToolResult::error(format!(
                    "{what}: could not connect to {}: {}",
                    self.base,
                    chain(&e)
                ))
            }
            Err(e) => return CallToolResult::error(format!("{what}: {}", chain(&e))),
        };
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mut body = Vec::new();
        let mut truncated = false;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > self.max_response_bytes {
                        body.extend_from_slice(&chunk[..self.max_response_bytes - body.len()]);
                        truncated = true;
                        break;
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) if e.is_timeout() => {
                    return CallToolResult::error(format!(
                        "{what}: the answer did not arrive within {:?}",
                        self.timeout
                    ))
                }
                Err(e) => {
                    return CallToolResult::error(format!(
                        "{what}: reading the answer failed: {}",
                        chain(&e)
                    ))
                }
            }
        }
        let status_line = format!(
            "HTTP {} {}",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        );
        let status_line = status_line.trim_end().to_string();
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body);
            let excerpt = cut(text.trim(), EXCERPT_CHARS);
            return CallToolResult::error(if excerpt.is_empty() {
                format!("{what} failed: {status_line}")
            } else {
                format!("{what} failed: {status_line}\n{excerpt}")
            });
        }
        if truncated {
            return CallToolResult::error(format!(
                "{what}: the answer is larger than {} bytes; only that much was read",
                self.max_response_bytes
            ));
        }
        if body.is_empty() {
            return CallToolResult::text(status_line);
        }
        let looks_json = content_type.contains("json")
            || matches!(
                body.iter().find(|b| !b.is_ascii_whitespace()),
                Some(b'{' | b'[')
            );
        if looks_json {
            if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                return match value {
                    v if request.wrapped_output => {
                        CallToolResult::structured(serde_json::json!({ "result": v }))
                    }
                    v @ Value::Object(_) => CallToolResult::structured(v),
                    v => CallToolResult::text(v.to_string()),
                };
            }
        }
        match String::from_utf8(body) {
            Ok(text) => CallToolResult::text(text),
            Err(e) => CallToolResult::text(format!(
                "{status_line}: {} bytes of {}",
                e.as_bytes().len(),
                if content_type.is_empty() {
                    "binary data"
                } else {
                    &content_type
                }
            )),
        }
    }

    /// The HTTP request for one call, or why the arguments cannot make one.
    fn build(
        &self,
        request: &Request,
        args: &Map<String, Value>,
    ) -> Result<reqwest::RequestBuilder, String> {
        let present = |p: &Parameter| args.get(&p.argument).filter(|v| !v.is_null());
        for p in &request.parameters {
            if p.required && present(p).is_none() {
                return Err(format!(
                    "missing required argument `{}` ({} parameter `{}`)",
                    p.argument,
                    p.location.as_str(),
                    p.name
                ));
            }
        }
        // Required fields of the body, checked before any request is made.
        if let Some(Body {
            shape: BodyShape::Fields(fields),
            ..
        }) = &request.body
        {
            let absent = |f: &&Field| args.get(&f.argument).is_none_or(Value::is_null);
            if let Some(f) = fields.iter().filter(|f| f.required).find(absent) {
                return Err(format!(
                    "missing required argument `{}` (body property `{}`)",
                    f.argument, f.property
                ));
            }
        }
        let mut path = String::new();
        let mut rest = request.path.as_str();
        while let Some(open) = rest.find('{') {
            path.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let name = &rest[open + 1..open + close];
            let p = request
                .parameters
                .iter()
                .find(|p| p.location == Location::Path && p.name == name);
            match p.and_then(|p| present(p).map(|v| (p, v))) {
                Some((p, v)) => path.push_str(&path_value(p, v)),
                None => return Err(format!("missing the path parameter `{name}`")),
            }
            rest = &rest[open + close + 1..];
        }
        path.push_str(rest);
        let method = reqwest::Method::from_bytes(request.method.as_bytes())
            .map_err(|_| format!("`{}` is not an HTTP method", request.method))?;
        let mut builder = self.http.request(method, format!("{}{path}", self.base));
        let mut query = Vec::new();
        let mut cookies = Vec::new();
        for p in &request.parameters {
            let Some(v) = present(p) else { continue };
            match p.location {
                Location::Path => {}
                Location::Query => query.extend(query_pairs(p, v)),
                Location::Header => {
                    let text = if p.json {
                        v.to_string()
                    } else {
                        joined(v, p.explode, ",")
                    };
                    let value = HeaderValue::from_str(&text).map_err(|_| {
                        format!("argument `{}` is not a valid header value", p.argument)
                    })?;
                    let name = HeaderName::from_bytes(p.name.as_bytes())
                        .map_err(|_| format!("`{}` is not a header name", p.name))?;
                    builder = builder.header(name, value);
                }
                Location::Cookie => {
                    let text = if p.json {
                        v.to_string()
                    } else {
                        joined(v, p.explode, ",")
                    };
                    cookies.push(format!("{}={}", p.name, text));
                }
            }
        }
        if !query.is_empty() {
            builder = builder.query(&query);
        }
        if !cookies.is_empty() {
            let value = HeaderValue::from_str(&cookies.join("; "))
                .map_err(|_| "a cookie argument is not a valid header value".to_string())?;
            builder = builder.header(reqwest::header::COOKIE, value);
        }
        let accept = request
            .accept
            .clone()
            .unwrap_or_else(|| "application/json, */*;q=0.8".into());
        builder = builder.header(reqwest::header::ACCEPT, accept);
        if let Some(body) = &request.body {
            builder = attach_body(builder, body, args)?;
        }
        Ok(builder)
    }

    fn redact_result(&self, mut result: CallToolResult) -> CallToolResult {
        if self.secrets.is_empty() {
            return result;
        }
        for block in &mut result.content {
            if let Ok(mut v) = serde_json::to_value(&*block) {
                self.redact(&mut v);
                if let Ok(b) = serde_json::from_value(v) {
                    *block = b;
                }
            }
        }
        if let Some(v) = &mut result.structured_content {
            self.redact(v);
        }
        result
    }

    fn redact(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                for secret in &self.secrets {
                    if s.contains(secret.as_str()) {
                        *s = s.replace(secret.as_str(), "[redacted]");
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|v| self.redact(v)),
            Value::Object(o) => o.values_mut().for_each(|v| self.redact(v)),
            _ => {}
        }
    }
}

fn attach_body(
    mut builder: reqwest::RequestBuilder,
    body: &Body,
    args: &Map<String, Value>,
) -> Result<reqwest::RequestBuilder, String> {
    // The body as (property, value) pairs, or as one value.
    let (fields, whole): (Vec<(&str, &Value, bool)>, Option<&Value>) = match &body.shape {
        BodyShape::Fields(fields) => (
            fields
                .iter()
                .filter_map(|f| {
                    args.get(&f.argument)
                        .filter(|v| !v.is_null())
                        .map(|v| (f.property.as_str(), v, f.binary))
                })
                .collect(),
            None,
        ),
        BodyShape::Whole { argument } => (Vec::new(), args.get(argument).filter(|v| !v.is_null())),
    };
    if matches!(body.shape, BodyShape::Fields(_)) && fields.is_empty() && !body.required {
        return Ok(builder);
    }
    if matches!(body.shape, BodyShape::Whole { .. }) && whole.is_none() {
        return if body.required {
            Err("missing required argument `body`".into())
        } else {
            Ok(builder)
        };
    }
    let whole_fields = |v: Option<&Value>| -> Result<Vec<(String, Value)>, String> {
        match v {
            Some(Value::Object(o)) => Ok(o.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
            Some(_) => Err(format!(
                "the body must be an object for {}",
                body.content_type
            )),
            None => Ok(Vec::new()),
        }
    };
    match body.encoding {
        Encoding::Json => {
            let value = match whole {
                Some(v) => v.clone(),
                None => Value::Object(
                    fields
                        .iter()
                        .map(|(k, v, _)| (k.to_string(), (*v).clone()))
                        .collect(),
                ),
            };
            let bytes = serde_json::to_vec(&value).map_err(|e| e.to_string())?;
            builder = builder
                .header(reqwest::header::CONTENT_TYPE, body.content_type.as_str())
                .body(bytes);
        }
        Encoding::Form => {
            let all: Vec<(String, Value)> = match whole {
                Some(_) => whole_fields(whole)?,
                None => fields
                    .iter()
                    .map(|(k, v, _)| (k.to_string(), (*v).clone()))
                    .collect(),
            };
            let mut pairs = Vec::new();
            for (k, v) in &all {
                match v {
                    Value::Array(items) => {
                        pairs.extend(items.iter().map(|i| (k.clone(), scalar(i))))
                    }
                    v => pairs.push((k.clone(), scalar(v))),
                }
            }
            builder = builder.form(&pairs);
        }
        Encoding::Multipart => {
            let all: Vec<(String, Value, bool)> = match whole {
                Some(_) => whole_fields(whole)?
                    .into_iter()
                    .map(|(k, v)| (k, v, false))
                    .collect(),
                None => fields
                    .iter()
                    .map(|(k, v, b)| (k.to_string(), (*v).clone(), *b))
                    .collect(),
            };
            let mut form = reqwest::multipart::Form::new();
            for (k, v, binary) in all {
                let items = match v {
                    Value::Array(items) => items,
                    v => vec![v],
                };
                for item in items {
                    form = if binary {
                        let bytes = decode_base64(&item)
                            .ok_or_else(|| format!("`{k}` must be base64-encoded file content"))?;
                        form.part(
                            k.clone(),
                            reqwest::multipart::Part::bytes(bytes).file_name(k.clone()),
                        )
                    } else {
                        form.text(k.clone(), scalar(&item))
                    };
                }
            }
            builder = builder.multipart(form);
        }
        Encoding::Text => {
            let text = whole.map(scalar).unwrap_or_default();
            builder = builder
                .header(reqwest::header::CONTENT_TYPE, body.content_type.as_str())
                .body(text);
        }
        Encoding::Binary => {
            let bytes = whole
                .and_then(decode_base64)
                .ok_or("`body` must be base64-encoded bytes")?;
            builder = builder
                .header(reqwest::header::CONTENT_TYPE, body.content_type.as_str())
                .body(bytes);
        }
    }
    Ok(builder)
}

fn decode_base64(v: &Value) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let s = v.as_str()?.trim();
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|e| e.decode(s).ok())
}

/// A value as parameter text: strings as they are, other scalars as JSON, structures as JSON text.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Arrays joined with `sep`; objects as `k,v,k,v` (or `k=v,k=v` exploded), as OpenAPI's `simple` style says.
fn joined(v: &Value, explode: bool, sep: &str) -> String {
    match v {
        Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(sep),
        Value::Object(o) if explode => o
            .iter()
            .map(|(k, v)| format!("{k}={}", scalar(v)))
            .collect::<Vec<_>>()
            .join(sep),
        Value::Object(o) => o
            .iter()
            .flat_map(|(k, v)| [k.clone(), scalar(v)])
            .collect::<Vec<_>>()
            .join(sep),
        v => scalar(v),
    }
}

/// A path parameter, encoded in its style (`simple`, `label`, `matrix`).
fn path_value(p: &Parameter, v: &Value) -> String {
    let enc = |s: &str| utf8_percent_encode(s, PATH_VALUE).to_string();
    let parts = |v: &Value| -> Vec<String> {
        match v {
            Value::Array(items) => items.iter().map(|i| enc(&scalar(i))).collect(),
            Value::Object(o) if p.explode => o
                .iter()
                .map(|(k, v)| format!("{}={}", enc(k), enc(&scalar(v))))
                .collect(),
            Value::Object(o) => o
                .iter()
                .flat_map(|(k, v)| [enc(k), enc(&scalar(v))])
                .collect(),
            v => vec![enc(&scalar(v))],
        }
    };
    if p.json {
        return enc(&v.to_string());
    }
    match p.style.as_str() {
        "label" => format!(".{}", parts(v).join(if p.explode { "." } else { "," })),
        "matrix" => match v {
            Value::Array(_) if p.explode => parts(v)
                .iter()
                .map(|x| format!(";{}={x}", p.name))
                .collect(),
            Value::Object(_) if p.explode => parts(v).iter().map(|x| format!(";{x}")).collect(),
            _ => format!(";{}={}", p.name, parts(v).join(",")),
        },
        _ => parts(v).join(","),
    }
}

/// A query parameter as name/value pairs, in its style (`form`, `spaceDelimited`, `pipeDelimited`, `deepObject`).
fn query_pairs(p: &Parameter, v: &Value) -> Vec<(String, String)> {
    if p.json {
        return vec![(p.name.clone(), v.to_string())];
    }
    match (v, p.style.as_str()) {
        (Value::Object(o), "deepObject") => o
            .iter()
            .map(|(k, v)| (format!("{}[{k}]", p.name), scalar(v)))
            .collect(),
        (Value::Object(o), _) if p.explode => {
            o.iter().map(|(k, v)| (k.clone(), scalar(v))).collect()
        }
        (Value::Array(items), "form") if p.explode => {
            items.iter().map(|i| (p.name.clone(), scalar(i))).collect()
        }
        (Value::Array(_), "spaceDelimited") => vec![(p.name.clone(), joined(v, false, " "))],
        (Value::Array(_), "pipeDelimited") => vec![(p.name.clone(), joined(v, false, "|"))],
        (v, _) => vec![(p.name.clone(), joined(v, false, ","))],
    }
}

fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// An error and its causes on one line (reqwest's own message is often just "error sending request").
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let line = s.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn param(name: &str, location: Location, style: &str, explode: bool) -> Parameter {
        Parameter {
            argument: name.into(),
            name: name.into(),
            location,
            required: false,
            style: style.into(),
            explode,
            json: false,
        }
    }

    #[test]
    fn path_styles() {
        let v = json!(["a b", "c/d"]);
        assert_eq!(
            path_value(&param("id", Location::Path, "simple", false), &v),
            "a%20b,c%2Fd"
        );
        assert_eq!(
            path_value(&param("id", Location::Path, "label", true), &v),
            ".a%20b.c%2Fd"
        );
        assert_eq!(
            path_value(&param("id", Location::Path, "matrix", true), &v),
            ";id=a%20b;id=c%2Fd"
        );
        assert_eq!(
            path_value(&param("id", Location::Path, "matrix", false), &json!(5)),
            ";id=5"
        );
    }

    #[test]
    fn query_styles() {
        let tags = json!(["x", "y"]);
        assert_eq!(
            query_pairs(&param("t", Location::Query, "form", true), &tags),
            [("t".into(), "x".into()), ("t".into(), "y".into())]
        );
        assert_eq!(
            query_pairs(&param("t", Location::Query, "form", false), &tags),
            [("t".to_string(), "x,y".to_string())]
        );
        assert_eq!(
            query_pairs(&param("t", Location::Query, "pipeDelimited", false), &tags),
            [("t".to_string(), "x|y".to_string())]
        );
        let filter = json!({"color": "red"});
        assert_eq!(
            query_pairs(&param("f", Location::Query, "deepObject", true), &filter),
            [("f[color]".to_string(), "red".to_string())]
        );
    }
}
