//! OpenAPI 3.0/3.1 to MCP tools: each operation becomes a tool whose input schema flattens the operation's
//! parameters and body, with the HTTP call it stands for kept beside it, so that the same conversion feeds the
//! typed bindings ([`crate::generate`]) and the bridge that serves the API as an MCP server ([`bridge`]).
//!
//! One file per stage: [`document`] reads JSON or YAML; [`schema`] resolves references and rewrites 3.0's
//! dialect; [`operation`] maps one operation; [`names`] and [`filter`] decide what the tools are called and
//! which are kept. A spec never makes the conversion panic: what cannot be mapped is skipped with a
//! [`Warning`] naming the operation and the reason.
//!
//! ```
//! use mcp_codegen::openapi::{convert, Document, ConvertOptions};
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

pub mod bridge;
pub mod cli;
pub mod document;
pub mod filter;
pub mod names;
pub mod operation;
pub mod schema;

pub use document::{Document, LoadError, Version};
pub use filter::Filter;

use crate::Warning;
use mcp_runtime::protocol::{Implementation, ProtocolVersion, Tool};
use serde_json::Value;

/// The HTTP methods an OpenAPI path item may hold, in the order their tools are listed.
pub const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// How to convert.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    pub filter: Filter,
    /// Header parameters the caller supplies itself (credentials given to the bridge): left out of the tools.
    pub hidden_headers: Vec<String>,
}

/// A spec's operations as tools.
#[derive(Debug, Clone)]
pub struct Conversion {
    pub title: String,
    pub version: String,
    pub operations: Vec<Operation>,
    pub warnings: Vec<Warning>,
    /// Operations the filter left out.
    pub filtered_out: usize,
}

/// One operation: the tool a model sees, and the HTTP request a call becomes.
#[derive(Debug, Clone)]
pub struct Operation {
    pub tool: Tool,
    pub request: Request,
}

/// The HTTP side of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Upper case (`GET`).
    pub method: String,
    /// The path template (`/pets/{petId}`).
    pub path: String,
    pub parameters: Vec<Parameter>,
    pub body: Option<Body>,
    /// The media type asked for in `Accept`, from the response the output schema came from.
    pub accept: Option<String>,
    /// Whether the output schema wraps the response as `{"result": ...}` (it is not an object).
    pub wrapped_output: bool,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Path,
    Query,
    Header,
    Cookie,
}

impl Location {
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
    pub location: Location,
    pub required: bool,
    /// `simple`, `form`, `label`, `matrix`, `spaceDelimited`, `pipeDelimited`, `deepObject`.
    pub style: String,
    pub explode: bool,
    /// Declared with `content` (a media type) instead of `schema`: sent as JSON text.
    pub json: bool,
}

/// How the body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Json,
    Form,
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
    pub encoding: Encoding,
    pub required: bool,
    pub shape: BodyShape,
}

/// Whether the body's properties were flattened into the input, or the body is one argument.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyShape {
    Fields(Vec<Field>),
    /// The whole body is this argument (a non-object body, a map, a union).
    Whole {
        argument: String,
    },
}

/// A property of an object body, flattened into the tool's input.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub argument: String,
    pub property: String,
    /// A file in a multipart body: given base64-encoded, sent as bytes.
    pub binary: bool,
    /// Listed in the body schema's `required` (and the body itself is required).
    pub required: bool,
}

impl Conversion {
    pub fn tools(&self) -> Vec<Tool> {
        self.operations.iter().map(|o| o.tool.clone()).collect()
    }

    /// A snapshot of the tools, as `mcp-codegen snapshot` would record them from the bridge.
    pub fn snapshot(&self) -> crate::Snapshot {
        crate::Snapshot {
            server: Implementation::new(self.title.clone(), self.version.clone()),
            protocol_version: ProtocolVersion::LATEST_LEGACY.as_str().to_string(),
            client_capabilities: Default::default(),
            tools: self.tools(),
        }
    }
}

/// Converts every operation of a spec the filter keeps. Never panics.
pub fn convert(doc: &Document, options: &ConvertOptions) -> Conversion {
    let resolver = schema::Resolver::new(doc);
    let mut namer = names::ToolNamer::default();
    let mut conversion = Conversion {
        title: doc.title(),
        version: doc.api_version(),
        operations: Vec::new(),
        warnings: Vec::new(),
        filtered_out: 0,
    };
    let Some(paths) = doc.root.get("paths").and_then(Value::as_object) else {
        return conversion;
    };
    for (path, item) in paths {
        let item_pointer = format!("/paths/{}", schema::escape(path));
        let item = match resolver.deref(item, &item_pointer) {
            Ok((item, _)) if item.is_object() => item,
            Ok(_) => {
                conversion.warnings.push(warning(
                    &path.to_string(),
                    &item_pointer,
                    "the path item is not an object; skipped".into(),
                ));
                continue;
            }
            Err(why) => {
                conversion
                    .warnings
                    .push(warning(path, &item_pointer, format!("{why}; skipped")));
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
                conversion.warnings.push(warning(
                    &label,
                    &pointer,
                    "the operation is not an object; skipped".into(),
                ));
                continue;
            };
            let operation_id = op.get("operationId").and_then(Value::as_str);
            // Names are handed out over the whole spec, so a filter never changes a tool's name.
            let name = namer.name(&names::wanted(operation_id, method, path));
            let tags: Vec<&str> = op
                .get("tags")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if !options
                .filter
                .keeps(&tags, operation_id, &name, method, path)
            {
                conversion.filtered_out += 1;
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
            match operation::map(&resolver, &site, options) {
                Ok((op, warnings)) => {
                    conversion.warnings.extend(warnings);
                    conversion.operations.push(op);
                }
                Err(reason) => conversion.warnings.push(warning(
                    &label,
                    &pointer,
                    format!("{reason}; the operation is skipped"),
                )),
            }
        }
    }
    conversion
}

pub(crate) fn warning(operation: &str, pointer: &str, message: String) -> Warning {
    Warning {
        tool: operation.to_string(),
        pointer: pointer.to_string(),
        message,
    }
}
