//! # mcp-openapi
//!
//! OpenAPI 3.0/3.1 as MCP tools. Each operation becomes a tool whose input schema flattens the operation's
//! parameters and body, with the HTTP call it stands for kept beside it, so that the same conversion feeds
//! the bridge that serves the API as an MCP server ([`bridge`]) and the typed bindings of `mcp-codegen`.
//!
//! One file per stage: [`document`] reads JSON or YAML; [`schema`] turns the spec's schemas into JSON
//! Schema 2020-12, each shared definition once (the *full* schemas, which the bridge validates against and
//! the bindings are generated from); [`operation`] maps one operation; [`prompt`] renders what the model sees
//! within a [`Budget`]; [`names`] and [`filter`] decide what the tools are called and which are kept. A spec
//! never makes the conversion panic, and no spec makes it use memory beyond its own size: what cannot be
//! mapped is skipped with a [`Warning`] naming the operation and the reason.
//!
//! This crate needs the runtime and an HTTP client, never the code generator.
//!
//! ```
//! use mcp_openapi::{convert, Document, ConvertOptions};
//! let spec = r#"{"openapi": "3.0.3", "info": {"title": "Pets", "version": "1"}, "paths": {"/pets/{id}": {"get": {
//!     "operationId": "getPet", "summary": "Find a pet",
//!     "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
//!     "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}"#;
//! let doc = Document::parse(spec, "pets.json").unwrap();
//! let conversion = convert(&doc, &ConvertOptions::default());
//! assert_eq!(conversion.operations[0].tool.name, "getPet");
//! assert_eq!(conversion.operations[0].tool.input_schema["required"], serde_json::json!(["id"]));
//! assert!(conversion.warnings.is_empty());
//! ```

#![warn(missing_docs)]

pub mod bridge;
pub mod document;
pub mod filter;
pub mod names;
pub mod operation;
pub mod prompt;
pub mod rich_text;
pub mod schema;

pub use bridge::{Bridge, BridgeConfig, BridgeError};
pub use document::{Document, LoadError, Version};
pub use filter::Filter;
pub use prompt::{Budget, Cut, CutReason};
pub use schema::{Definition, Definitions};

use mcp_runtime::protocol::Tool;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// Something the conversion had to give up on: an operation skipped, a `$ref` that does not resolve, a schema
/// that became "any value". `tool` names the operation (empty for a schema shared by several); `pointer` is a
/// JSON pointer into the spec or the tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The tool (operation) it concerns; empty for a schema shared by several.
    pub tool: String,
    /// A JSON pointer into the spec or the tool (`/paths/~1pets/get`, `/inputSchema/properties/x`).
    pub pointer: String,
    /// What was given up on, and why.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tool.is_empty() {
            write!(f, "at {}: {}", self.pointer, self.message)
        } else {
            write!(
                f,
                "tool `{}` at {}: {}",
                self.tool, self.pointer, self.message
            )
        }
    }
}

/// The HTTP methods an OpenAPI path item may hold, in the order their tools are listed.
pub const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// How to convert.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Which operations are kept (default: all).
    pub filter: Filter,
    /// Header parameters the caller supplies itself (credentials given to the bridge): left out of the tools.
    pub hidden_headers: Vec<String>,
    /// What the model's view of each tool may cost.
    pub budget: Budget,
}

/// A spec's operations as tools.
#[derive(Debug, Clone)]
pub struct Conversion {
    /// `info.title` of the spec.
    pub title: String,
    /// `info.version` of the spec.
    pub version: String,
    /// The operations kept, each mapped to a tool, in the spec's order.
    pub operations: Vec<Operation>,
    /// The spec's schemas the operations reach, each once (`#/$defs/<name>` in the full schemas).
    pub definitions: Definitions,
    /// Everything the conversion had to give up on.
    pub warnings: Vec<Warning>,
    /// Operations the filter left out.
    pub filtered_out: usize,
}

/// One operation: the tool a model sees, its full schemas, and the HTTP request a call becomes.
#[derive(Debug, Clone)]
pub struct Operation {
    /// The tool as listed: self-contained, portable, within the budget.
    pub tool: Tool,
    /// The full input schema: what the bridge validates arguments against, what the bindings are made from.
    pub input: Value,
    /// The full output schema (an object; a non-object answer is wrapped as `{"result": ...}`).
    pub output: Option<Value>,
    /// The full description (summary and description), before the budget.
    pub description: String,
    /// What the budget cut from the tool.
    pub cuts: Vec<Cut>,
    /// The operation's tags, as the spec lists them.
    pub tags: Vec<String>,
    /// The HTTP request a call becomes.
    pub request: Request,
}

/// The HTTP side of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Upper case (`GET`).
    pub method: String,
    /// The path template (`/pets/{petId}`).
    pub path: String,
    /// The parameters, by the arguments that carry them.
    pub parameters: Vec<Parameter>,
    /// The body, when the operation takes one.
    pub body: Option<Body>,
    /// The media type asked for in `Accept`, from the response the output schema came from.
    pub accept: Option<String>,
    /// Whether the output schema wraps the response as `{"result": ...}` (it is not an object).
    pub wrapped_output: bool,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A segment of the path (`/pets/{petId}`).
    Path,
    /// A query parameter, encoded by its `style` and `explode`.
    Query,
    /// A header.
    Header,
    /// A cookie.
    Cookie,
}

impl Location {
    /// The spec's spelling (`"path"`, `"query"`, `"header"`, `"cookie"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
            Location::Cookie => "cookie",
        }
    }
}

/// A parameter: the argument it is read from and how it is serialized.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// The property of the tool's input.
    pub argument: String,
    /// The parameter's name in the request.
    pub name: String,
    /// Where it goes in the request.
    pub location: Location,
    /// Whether the spec marks it required (path parameters always are).
    pub required: bool,
    /// `simple`, `form`, `label`, `matrix`, `spaceDelimited`, `pipeDelimited`, `deepObject`.
    pub style: String,
    /// Whether arrays and objects are exploded into separate values (`explode`, whose default depends on
    /// `style`).
    pub explode: bool,
    /// Declared with `content` (a media type) instead of `schema`: sent as JSON text.
    pub json: bool,
}

/// How the body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// JSON (`application/json` and `+json` types).
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `multipart/form-data`.
    Multipart,
    /// Text sent as is (`text/plain`, XML...).
    Text,
    /// Bytes, given base64-encoded.
    Binary,
}

/// A request body.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// The media type sent as `Content-Type`.
    pub content_type: String,
    /// How the arguments become the body.
    pub encoding: Encoding,
    /// Whether the spec marks the body required.
    pub required: bool,
    /// Whether its properties are separate arguments or the body is one.
    pub shape: BodyShape,
}

/// Whether the body's properties were flattened into the input, or the body is one argument.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyShape {
    /// An object body whose properties are arguments of their own.
    Fields(Vec<Field>),
    /// The whole body is this argument (a non-object body, a map, a union).
    Whole {
        /// The argument in the tool's input that holds the whole body.
        argument: String,
    },
}

/// A property of an object body, flattened into the tool's input.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The argument in the tool's input.
    pub argument: String,
    /// The property's name in the body.
    pub property: String,
    /// A file in a multipart body: given base64-encoded, sent as bytes.
    pub binary: bool,
    /// Listed in the body schema's `required` (and the body itself is required).
    pub required: bool,
}

impl Conversion {
    /// The tools, in the order of the operations.
    pub fn tools(&self) -> Vec<Tool> {
        self.operations.iter().map(|o| o.tool.clone()).collect()
    }
}

/// Converts every operation of a spec the filter keeps. Never panics.
pub fn convert(doc: &Document, options: &ConvertOptions) -> Conversion {
    let mut schemas = schema::Schemas::new(doc);
    let mut namer = names::ToolNamer::default();
    let mut warnings = Vec::new();
    let mut filtered_out = 0;
    let mut mapped: Vec<(String, Vec<String>, operation::Mapped)> = Vec::new();
    if let Some(paths) = doc.root.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            let item_pointer = format!("/paths/{}", schema::escape(path));
            let item = match schema::deref(doc, item, &item_pointer) {
                Ok((item, _)) if item.is_object() => item,
                Ok(_) => {
                    warnings.push(warning(
                        path,
                        &item_pointer,
                        "the path item is not an object; skipped".into(),
                    ));
                    continue;
                }
                Err(why) => {
                    warnings.push(warning(path, &item_pointer, format!("{why}; skipped")));
                    continue;
                }
            };
            for method in METHODS {
                let Some(op) = item.get(*method) else {
                    continue;
                };
                let pointer = format!("{item_pointer}/{method}");
                let label = format!("{} {path}", method.to_uppercase());
                let Some(op) = op.as_object() else {
                    warnings.push(warning(
                        &label,
                        &pointer,
                        "the operation is not an object; skipped".into(),
                    ));
                    continue;
                };
                let operation_id = op.get("operationId").and_then(Value::as_str);
                // Names are handed out over the whole spec, so a filter never changes a tool's name.
                let name = namer.name(&names::wanted(operation_id, method, path));
                let tags: Vec<String> = op
                    .get("tags")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
                let tag_refs: Vec<&str> = tags.iter().map(String::as_str).collect();
                if !options
                    .filter
                    .keeps(&tag_refs, operation_id, &name, method, path)
                {
                    filtered_out += 1;
                    continue;
                }
                let label = match operation_id {
                    Some(id) => format!("{label} ({id})"),
                    None => label,
                };
                let site = operation::Site {
                    path,
                    method,
                    item,
                    op,
                    pointer: &pointer,
                    label: &label,
                    name: &name,
                };
                match operation::map(&mut schemas, &site, options) {
                    Ok((m, found)) => {
                        warnings.extend(found);
                        mapped.push((name, tags, m));
                    }
                    Err(reason) => {
                        schemas.take_warnings();
                        warnings.push(warning(
                            &label,
                            &pointer,
                            format!("{reason}; the operation is skipped"),
                        ))
                    }
                }
            }
        }
    }
    schemas.settle();
    warnings.extend(
        schemas
            .take_warnings()
            .into_iter()
            .map(|(p, m)| warning("", &p, m)),
    );
    let definitions = schemas.into_definitions();
    let getters = getters(&mapped);
    let operations = render_all(&mapped, &definitions, &getters, options.budget.clamped());
    Conversion {
        title: doc.title(),
        version: doc.api_version(),
        operations,
        definitions,
        warnings,
        filtered_out,
    }
}

/// For each definition an operation returns whole, one such operation: stubs name it (`see GetCustomer`).
/// Operations that fetch one thing by its path (`GET /customers/{id}`) come first.
fn getters(mapped: &[(String, Vec<String>, operation::Mapped)]) -> HashMap<String, String> {
    let mut getters = HashMap::new();
    for by_path in [true, false] {
        for (name, _, m) in mapped {
            if m.request.method != "GET"
                || m.request.path.contains('{') != by_path
                || m.request.wrapped_output
            {
                continue;
            }
            let Some(def) = m
                .output
                .as_ref()
                .and_then(|o| o.as_object())
                .filter(|o| o.len() == 1)
                .and_then(|o| o.get("$ref"))
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            else {
                continue;
            };
            getters
                .entry(def.to_string())
                .or_insert_with(|| name.clone());
        }
    }
    getters
}

/// The model's view of every operation; operations are independent, so they are split across the cores.
fn render_all(
    mapped: &[(String, Vec<String>, operation::Mapped)],
    defs: &Definitions,
    getters: &HashMap<String, String>,
    budget: Budget,
) -> Vec<Operation> {
    let one = |(name, tags, m): &(String, Vec<String>, operation::Mapped)| {
        let renderer = |direction| prompt::Renderer {
            defs,
            getters,
            direction,
            tool: name,
        };
        let (input_schema, mut cuts) =
            renderer(prompt::Direction::Request).render(&m.input, budget.input, "/inputSchema");
        let output_schema = m.output.as_ref().map(|o| {
            let (schema, more) =
                renderer(prompt::Direction::Response).render(o, budget.output, "/outputSchema");
            cuts.extend(more);
            schema
        });
        let description = prompt::cut_text(&m.description, budget.description);
        if description.len() < m.description.trim().len() {
            cuts.push(Cut {
                pointer: "/description".into(),
                what: "description".into(),
                reason: CutReason::Shortened,
            });
        }
        let mut tool = Tool::new(name.clone(), description, input_schema);
        if tool.description.as_deref() == Some("") {
            tool.description = None;
        }
        tool.output_schema = output_schema;
        tool.annotations = Some(m.annotations.clone());
        Operation {
            tool,
            input: m.input.clone(),
            output: m.output.clone(),
            description: m.description.clone(),
            cuts,
            tags: tags.clone(),
            request: m.request.clone(),
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(mapped.len().div_ceil(64))
        .max(1);
    if threads == 1 {
        return mapped.iter().map(one).collect();
    }
    let chunk = mapped.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = mapped
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

pub(crate) fn warning(operation: &str, pointer: &str, message: String) -> Warning {
    Warning {
        tool: operation.to_string(),
        pointer: pointer.to_string(),
        message,
    }
}
