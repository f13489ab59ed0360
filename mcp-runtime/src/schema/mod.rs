//! JSON Schemas for tools: generated once from Rust types with schemars, then shaped by a [`SchemaProfile`].
//!
//! The schema of a tool is part of the model's prompt on every turn, and several widely used clients
//! reject or strip parts of JSON Schema they do not understand. So the default profile,
//! [`SchemaProfile::Portable`], keeps only what a model and a strict client need:
//!
//! - no `title` keyword anywhere (a *property* named `title` stays) and no `$schema`;
//! - subschemas inlined instead of `$defs`/`$ref`. A recursive type cannot be inlined: it keeps a minimal
//!   `$defs` holding only the recursive definitions, referenced with `#/$defs/Name`;
//! - no non-standard `format` (`int32`, `uint32`, `double`...); standard ones (`date-time`, `uuid`, `email`...)
//!   stay, and so do meaningful bounds (`minimum: 0` for unsigned integers, `maximum: 255` for `u8`);
//! - an enum of strings is a plain `enum`, even when variants have doc comments: their docs are appended to the
//!   enum's description as `- variant: text` lines;
//! - in *input* schemas, a `default` of `null`, `[]`, `{}` or `""` is left out (leaving the optional property
//!   out means that already); defaults that make a choice (`50`, `false`) stay;
//! - in *input* schemas, `Option<T>` is an optional property with the schema of `T` (no `"null"`). Output
//!   schemas keep `null` where a value may serialize as `null`, since the client validates
//!   `structuredContent` against them.
//!
//! [`SchemaProfile::Full`] keeps schemars' JSON Schema 2020-12 output (with `$schema`, `$defs`, `format`
//! and nullable types) for clients that want it; a server chooses per tool with
//! [`ToolDef::profile`] or per impl block with `tool_routes_with`.

mod def;
pub mod header_params;
mod portable;

pub use def::ToolDef;

mod arguments;
pub use header_params::{header_params, HeaderParam, HeaderParamType};
pub use portable::{make_portable, STANDARD_FORMATS};

use crate::protocol::JsonObject;
use schemars::generate::{Contract, SchemaSettings};
use schemars::JsonSchema;
use schemars::{Schema, SchemaGenerator};
use serde_json::{json, Value};

/// How the schemas of a tool are shaped; see the [module docs](self).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SchemaProfile {
    /// Small and accepted by every client: the default.
    #[default]
    Portable,
    /// JSON Schema 2020-12 as schemars generates it.
    Full,
}

/// An output schema and whether values of the type are wrapped as `{"result": value}` (the MCP
/// `outputSchema` must describe an object).
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    /// The schema, an object schema (`type: "object"`).
    pub schema: JsonObject,
    /// Whether the type's schema was not an object and is wrapped as `{"result": <value>}` (and its values
    /// with it).
    pub wrapped: bool,
}

impl SchemaProfile {
    fn settings(self, contract: Contract) -> SchemaSettings {
        let mut s = SchemaSettings::draft2020_12();
        s.contract = contract;
        s.inline_subschemas = self == SchemaProfile::Portable;
        s
    }

    /// The `inputSchema` of a tool whose arguments deserialize into `T` (an object type).
    pub fn input_schema<T: JsonSchema + ?Sized>(self) -> JsonObject {
        // Only this line is instantiated per tool; the rest is compiled once.
        self.input_schema_from(|g| g.root_schema_for::<T>())
    }

    fn input_schema_from(self, root: fn(&mut SchemaGenerator) -> Schema) -> JsonObject {
        let mut v = root(&mut self.settings(Contract::Deserialize).into_generator()).to_value();
        match self {
            SchemaProfile::Portable => make_portable(&mut v, true),
            // The root title is the name of a generated arguments struct: noise in either profile.
            SchemaProfile::Full => drop(v.as_object_mut().and_then(|o| o.remove("title"))),
        }
        let mut obj = into_object(v);
        if obj
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.is_empty())
        {
            obj.remove("properties");
        }
        if !obj.contains_key("properties") && obj.get("type") == Some(&json!("object")) {
            obj.insert("additionalProperties".into(), Value::Bool(false));
        }
        obj
    }

    /// The `outputSchema` of a tool returning `T`: an object type as is, anything else wrapped in
    /// `{"type":"object","properties":{"result":...},"required":["result"]}`.
    pub fn output_schema<T: JsonSchema + ?Sized>(self) -> OutputSchema {
        self.output_schema_from(|g| g.root_schema_for::<T>())
    }

    fn output_schema_from(self, root: fn(&mut SchemaGenerator) -> Schema) -> OutputSchema {
        let mut v = root(&mut self.settings(Contract::Serialize).into_generator()).to_value();
        match self {
            SchemaProfile::Portable => make_portable(&mut v, false),
            SchemaProfile::Full => drop(v.as_object_mut().and_then(|o| o.remove("title"))),
        }
        let mut obj = into_object(v);
        if obj.get("type") == Some(&json!("object")) {
            return OutputSchema {
                schema: obj,
                wrapped: false,
            };
        }
        let meta = obj.remove("$schema");
        let defs = obj.remove("$defs");
        let mut wrapper = JsonObject::new();
        if let Some(m) = meta {
            wrapper.insert("$schema".into(), m);
        }
        wrapper.insert("type".into(), json!("object"));
        wrapper.insert("properties".into(), json!({ "result": Value::Object(obj) }));
        wrapper.insert("required".into(), json!(["result"]));
        if let Some(d) = defs {
            wrapper.insert("$defs".into(), d);
        }
        OutputSchema {
            schema: wrapper,
            wrapped: true,
        }
    }
}

/// The input schema of a tool without arguments.
pub fn no_arguments() -> JsonObject {
    into_object(json!({"type": "object", "additionalProperties": false}))
}

fn into_object(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        // `true` / `false` root schemas (for example `serde_json::Value`): any object.
        _ => into_object(json!({"type": "object"})),
    }
}

/// Used by the code `#[tool]`, `#[prompt]` and `#[resource]` generate; not a public API.
#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __private;
