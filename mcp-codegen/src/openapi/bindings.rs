//! Bindings for a converted spec, generated from its full schemas (never from the budgeted tools): the types
//! the operations share are generated once, in a module named after `components/schemas` (as progenitor and
//! openapi-generator do), and each operation's module keeps only what is local to it (its `Params`, its
//! `Output` and their inline types), referring to the shared ones by path.

use crate::derives::{SerdeDerives, Uses};
use crate::emit::{self, Files, Job, SharedTypes};
use crate::names::{snake_ident, Namer};
use crate::normalize::Normalizer;
use crate::typegen::generate_types;
use crate::{Options, Warning};
use mcp_openapi::Conversion;
use mcp_runtime::protocol::Tool;
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap};

/// The module holding the shared types.
pub const SHARED_MODULE: &str = "components";

/// How the operations' modules are laid out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// One module per operation, beside each other.
    #[default]
    Flat,
    /// One module per tag (an operation's first tag; `other` without one), each with its operations' modules
    /// and an `impl` of the client with their methods, so that a tag can be left out by its `mod` line.
    ByTag,
}

/// The bindings of a conversion, and what had to be given up on the way.
pub fn bindings(
    conversion: &Conversion,
    options: &Options,
    layout: Layout,
) -> (Files, Vec<Warning>) {
    let mut warnings = Vec::new();
    // The tools as the bindings see them: the full schemas, not the model's view; the descriptions are the
    // model's, so that the docs say what the model reads.
    let tools: Vec<Tool> = conversion
        .operations
        .iter()
        .map(|op| {
            let mut tool = op.tool.clone();
            let mut input = op.input.clone();
            defaults_to_docs(&mut input);
            tool.input_schema = input.as_object().cloned().unwrap_or_default();
            tool.output_schema = op.output.as_ref().and_then(Value::as_object).cloned();
            tool
        })
        .collect();
    let roots = conversion
        .operations
        .iter()
        .flat_map(|op| std::iter::once(&op.input).chain(op.output.as_ref()));
    let reachable: Map<String, Value> = conversion
        .definitions
        .reachable(roots)
        .into_iter()
        .map(|d| (d.name.clone(), d.schema.clone()))
        .collect();
    // The client serializes the components its requests reach and deserializes those its responses reach.
    let reached = |roots: Vec<&Value>| -> BTreeSet<String> {
        conversion
            .definitions
            .reachable(roots)
            .into_iter()
            .map(|d| d.name.clone())
            .collect()
    };
    let sent = reached(conversion.operations.iter().map(|op| &op.input).collect());
    // What requests carry: a left-out property stays left out (see `defaults_to_docs`).
    let reachable: Map<String, Value> = reachable
        .into_iter()
        .map(|(name, mut schema)| {
            if sent.contains(&name) {
                defaults_to_docs(&mut schema);
            }
            (name, schema)
        })
        .collect();
    let received = reached(
        conversion
            .operations
            .iter()
            .filter_map(|op| op.output.as_ref())
            .collect(),
    );
    let shared = (!reachable.is_empty()).then(|| {
        let mut normalizer = Normalizer::new(SHARED_MODULE, &[]);
        let names = normalizer.add_definitions("/components/schemas", &reachable);
        let uses = Uses {
            sent: names
                .iter()
                .filter(|(key, _)| sent.contains(*key))
                .map(|(_, name)| name.clone())
                .collect(),
            received: names
                .iter()
                .filter(|(key, _)| received.contains(*key))
                .map(|(_, name)| name.clone())
                .collect(),
        };
        let (defs, mut found, extras) = normalizer.finish_with_extras();
        warnings.append(&mut found);
        let (tokens, mut found) = generate_types(SHARED_MODULE, defs, &[]);
        warnings.append(&mut found);
        let types = SharedTypes {
            names: names
                .into_iter()
                .map(|(key, name)| (format!("#/$defs/{key}"), name))
                .collect(),
            module: SHARED_MODULE.into(),
        };
        (types, emit::shared_module(tokens, &extras, Some(&uses)))
    });
    let groups = match layout {
        Layout::Flat => None,
        Layout::ByTag => Some(tag_modules(conversion)),
    };
    let jobs: Vec<Job> = emit::idents(&tools)
        .into_iter()
        .map(|(tool, ident)| Job {
            group: groups.as_ref().and_then(|g| g.get(&tool.name).cloned()),
            tool,
            ident,
        })
        .collect();
    let files = emit::files(
        &jobs,
        options,
        shared.as_ref().map(|(t, body)| (t, body.clone())),
        SerdeDerives::AsUsed,
        &mut warnings,
    );
    (files, warnings)
}

/// A request property the caller may leave out becomes an `Option` that is left out when `None`, even
/// when the spec gives it a `default`: typify would make it a plain field with `#[serde(default)]`,
/// which the client then always sends, so a PATCH that meant to change one setting would reset every
/// defaulted one (`private: false`). The default moves into the property's description, where the
/// bindings' docs show it; the server applies it when the property is absent, as the spec says.
fn defaults_to_docs(schema: &mut Value) {
    let Value::Object(o) = schema else {
        return;
    };
    let required: BTreeSet<String> = o
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(props)) = o.get_mut("properties") {
        for (name, p) in props.iter_mut() {
            if let (false, Value::Object(po)) = (required.contains(name), &mut *p) {
                if let Some(d) = po.remove("default") {
                    let note = format!("Default: `{d}`.");
                    let doc = match po.get("description").and_then(Value::as_str) {
                        Some(t) if !t.trim().is_empty() => format!("{}\n\n{note}", t.trim_end()),
                        _ => note,
                    };
                    po.insert("description".into(), Value::String(doc));
                }
            }
            defaults_to_docs(p);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(v) = o.get_mut(key) {
            defaults_to_docs(v);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(a)) = o.get_mut(key) {
            a.iter_mut().for_each(defaults_to_docs);
        }
    }
    if let Some(Value::Object(defs)) = o.get_mut("$defs") {
        defs.values_mut().for_each(defaults_to_docs);
    }
}

/// Tool name → the module of its first tag.
fn tag_modules(conversion: &Conversion) -> HashMap<String, String> {
    let mut namer = Namer::default();
    for reserved in [SHARED_MODULE, "error", "ToolCallError"] {
        namer.unique(reserved.to_string());
    }
    let mut modules: Vec<(String, String)> = Vec::new();
    let mut out = HashMap::new();
    for op in &conversion.operations {
        let tag = op.tags.first().map_or("other", String::as_str);
        let module = match modules.iter().find(|(t, _)| t == tag) {
            Some((_, m)) => m.clone(),
            None => {
                let m = namer.unique(snake_ident(tag));
                modules.push((tag.to_string(), m.clone()));
                m
            }
        };
        out.insert(op.tool.name.clone(), module);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::defaults_to_docs;
    use serde_json::json;

    #[test]
    fn optional_request_properties_lose_their_default_to_the_docs_required_ones_keep_it() {
        let mut s = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "default": "x"},
                "private": {"type": "boolean", "default": false, "description": "Hide it."},
                "settings": {
                    "type": "object",
                    "properties": {"depth": {"type": "integer", "default": 3}}
                },
                "tags": {"type": "array", "items": {"anyOf": [
                    {"type": "object", "properties": {"weight": {"type": "number", "default": 1.5}}}
                ]}}
            }
        });
        defaults_to_docs(&mut s);
        let p = &s["properties"];
        assert_eq!(
            p["name"]["default"],
            json!("x"),
            "a required property keeps its default"
        );
        assert!(p["private"].get("default").is_none());
        assert_eq!(
            p["private"]["description"],
            json!("Hide it.\n\nDefault: `false`.")
        );
        let depth = &p["settings"]["properties"]["depth"];
        assert!(depth.get("default").is_none());
        assert_eq!(depth["description"], json!("Default: `3`."));
        let weight = &p["tags"]["items"]["anyOf"][0]["properties"]["weight"];
        assert_eq!(weight["description"], json!("Default: `1.5`."));
    }
}
