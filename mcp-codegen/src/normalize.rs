//! The normalization pass: rewrites a tool's schemas into the subset typify takes without panicking.
//!
//! Every `$ref` ends up as `#/definitions/<Name>` pointing into one flat list of definitions, which also holds
//! the tool's `Params` (its input schema) and `Output` (its output schema). JSON pointer references such as
//! `#/properties/x` are hoisted into that list; `$defs` are merged into it; `prefixItems` becomes the draft-07
//! tuple form; `const` becomes a one-value `enum`, and an `enum` keeps only its values' type beside it;
//! titles, which typify would turn into type names, become descriptions; keywords that would need crates the
//! generated code cannot depend on (string `format`s, `pattern`) are dropped, since the server validates its
//! own input anyway.

pub use crate::definition::{Definition, Definitions};
use crate::names::{camel_ident, Namer};
use crate::Warning;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Numeric formats typify maps to sized Rust integers and floats; every other format is dropped.
const NUMERIC_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "uint", "int",
    "float", "double",
];

/// Keywords dropped outright: annotations typify has no use for and keywords that would need other crates.
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "$vocabulary",
    "$dynamicAnchor",
    "pattern",
    "minLength",
    "maxLength",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "x-rust-type",
    "x-rust-type-extension",
    "deprecated",
    "readOnly",
    "writeOnly",
    "discriminator",
    "xml",
    "externalDocs",
    "example",
];

/// What a schema with an `enum` keeps. The values are every value it admits: nothing else it says (a
/// composition, properties, items, a `$ref`) can add one, and typify would make of the rest an inner type
/// with a newtype around it whose constructor compares values, which that type may not be able to do (an
/// untagged enum derives no `PartialEq`). The values and their `type` are the whole type.
const BESIDE_ENUM: &[&str] = &[
    "enum",
    "type",
    "format",
    "nullable",
    "description",
    "default",
];

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is an array of subschemas.
const MANY: &[&str] = &["anyOf", "oneOf", "allOf"];
/// Keywords whose value is a map of subschemas.
const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Whether an input schema takes no arguments at all (`{"type": "object"}`, `{"properties": {}}`...).
pub fn takes_no_arguments(schema: &Map<String, Value>) -> bool {
    let no_properties = schema
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    let closed = schema
        .get("additionalProperties")
        .is_none_or(|a| a == &Value::Bool(false));
    let composed = ["anyOf", "oneOf", "allOf", "patternProperties", "$ref", "if"]
        .iter()
        .any(|k| schema.contains_key(*k));
    no_properties && closed && !composed
}

/// Collects the definitions of one tool, root by root.
pub struct Normalizer<'a> {
    tool: &'a str,
    namer: Namer,
    /// The pointer of the root being added (`/inputSchema`).
    prefix: String,
    defs: Definitions,
    warnings: Vec<Warning>,
    /// References to types defined elsewhere (the shared module of an OpenAPI spec's components):
    /// `#/$defs/Pet` → the Rust path of the type.
    external: BTreeMap<String, String>,
    /// The stand-in definitions that took the place of external types, and the paths they stand for.
    used_external: BTreeMap<String, String>,
    /// Property names renamed so that their Rust fields differ: the marked name → the name on the wire.
    renamed: Vec<(String, String)>,
}

/// What typify needs besides the definitions: the types it must not generate but name by path, and the
/// property names to restore in the generated `#[serde(rename)]`s.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// (stand-in definition name, Rust path).
    pub replacements: Vec<(String, String)>,
    /// (marked property name, the real one).
    pub renamed: Vec<(String, String)>,
}

/// Renamed properties end with a character of Unicode's private use area (one per rename, from this one on),
/// which typify's field names drop and no real property name holds.
pub const RENAME_MARK: u32 = 0xE000;

impl<'a> Normalizer<'a> {
    /// A normalizer for the tool `tool`, with `reserved` names no definition may take (`Params`,
    /// `Output`...).
    pub fn new(tool: &'a str, reserved: &[&str]) -> Self {
        let mut namer = Namer::default();
        for r in reserved {
            namer.unique(r.to_string());
        }
        Normalizer {
            tool,
            namer,
            prefix: String::new(),
            defs: Vec::new(),
            warnings: Vec::new(),
            external: BTreeMap::new(),
            used_external: BTreeMap::new(),
            renamed: Vec::new(),
        }
    }

    /// References to resolve to types defined elsewhere instead of generating them: `#/$defs/Pet` →
    /// `super::components::Pet`.
    pub fn with_external(mut self, external: BTreeMap<String, String>) -> Self {
        self.external = external;
        self
    }

    /// Adds named definitions without a root (the shared component types of a spec): `defs` maps a
    /// `$defs` key to its schema, and references between them are `#/$defs/<key>`. Returns the type name
    /// given to each key.
    pub fn add_definitions(
        &mut self,
        prefix: &str,
        defs: &Map<String, Value>,
    ) -> BTreeMap<String, String> {
        let mut root = Map::new();
        root.insert("$defs".into(), Value::Object(defs.clone()));
        self.add(None, prefix, &root)
    }

    /// Adds a root schema (the input or the output schema) under `name`; `prefix` is its pointer in the tool
    /// (`/inputSchema`), used in warnings.
    pub fn add_root(&mut self, name: &str, prefix: &str, schema: &Map<String, Value>) {
        self.add(Some(name), prefix, schema);
    }

    fn add(
        &mut self,
        name: Option<&str>,
        prefix: &str,
        schema: &Map<String, Value>,
    ) -> BTreeMap<String, String> {
        let doc = Value::Object(schema.clone());
        self.prefix = prefix.to_string();
        let mut refs: BTreeMap<String, String> = BTreeMap::new();
        if let Some(name) = name {
            refs.insert("#".into(), name.into());
        }
        let mut named = BTreeMap::new();
        // `$defs` and `definitions` of the root get their own types, named after their keys.
        let mut queue: Vec<(String, String, Value)> = Vec::new();
        for keyword in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = schema.get(keyword) {
                for (key, def) in defs {
                    let type_name = self.namer.unique_type(camel_ident(key));
                    named.insert(key.clone(), type_name.clone());
                    refs.insert(
                        format!("#/{keyword}/{}", escape_pointer_token(key)),
                        type_name.clone(),
                    );
                    queue.push((
                        type_name,
                        format!("{prefix}/{keyword}/{}", escape_pointer_token(key)),
                        def.clone(),
                    ));
                }
            }
        }
        let mut pending = Vec::new();
        if let Some(name) = name {
            let root_index = self.defs.len();
            self.defs.push(Definition {
                name: name.into(),
                pointer: prefix.into(),
                schema: Value::Null,
            });
            let mut root = doc.clone();
            if let Value::Object(o) = &mut root {
                o.remove("$defs");
                o.remove("definitions");
            }
            pending.push((root_index, prefix.to_string(), root));
        }
        for (name, pointer, def) in queue {
            self.defs.push(Definition {
                name,
                pointer: pointer.clone(),
                schema: Value::Null,
            });
            pending.push((self.defs.len() - 1, pointer, def));
        }
        // Cleaning a schema may find references to new places (`#/properties/x`), which become new definitions.
        while let Some((index, pointer, mut schema)) = pending.pop() {
            let mut found = Vec::new();
            self.clean(&mut schema, &pointer, &doc, &mut refs, &mut found);
            self.defs[index].schema = schema;
            for (name, pointer, target) in found {
                self.defs.push(Definition {
                    name,
                    pointer: pointer.clone(),
                    schema: Value::Null,
                });
                pending.push((self.defs.len() - 1, pointer, target));
            }
        }
        named
    }

    /// The definitions collected, roots first, and what had to be given up on.
    pub fn finish(mut self) -> (Definitions, Vec<Warning>) {
        crate::inline_names::separate(&mut self.defs);
        (self.defs, self.warnings)
    }

    /// The definitions, the warnings, and what typify needs besides.
    pub fn finish_with_extras(mut self) -> (Definitions, Vec<Warning>, Extras) {
        crate::inline_names::separate(&mut self.defs);
        let extras = Extras {
            replacements: self.used_external.into_iter().collect(),
            renamed: self.renamed,
        };
        (self.defs, self.warnings, extras)
    }

    fn warn(&mut self, pointer: &str, message: String) {
        self.warnings.push(Warning {
            tool: self.tool.to_string(),
            pointer: pointer.to_string(),
            message,
        });
    }

    /// Rewrites one schema in place, recursing into its subschemas.
    fn clean(
        &mut self,
        schema: &mut Value,
        pointer: &str,
        doc: &Value,
        refs: &mut BTreeMap<String, String>,
        found: &mut Vec<(String, String, Value)>,
    ) {
        let Value::Object(o) = schema else {
            if !schema.is_boolean() {
                self.warn(
                    pointer,
                    format!("`{schema}` is not a schema; any JSON value is accepted here"),
                );
                *schema = Value::Object(Map::new());
            }
            return;
        };
        for k in DROPPED {
            o.remove(*k);
        }
        // Nested definitions are reached through pointers and hoisted; typify would not see them anyway.
        o.remove("$defs");
        o.remove("definitions");
        if let Some(title) = o.remove("title") {
            if !o.contains_key("description") && title.is_string() {
                o.insert("description".into(), title);
            }
        }
        if o.get("description").is_some_and(|d| !d.is_string()) {
            o.remove("description");
        }
        if let Some(format) = o.get("format") {
            if !format
                .as_str()
                .is_some_and(|f| NUMERIC_FORMATS.contains(&f))
            {
                o.remove("format");
            }
        }
        if let Some(c) = o.remove("const") {
            o.entry("enum").or_insert_with(|| Value::Array(vec![c]));
        }
        if o.get("enum").is_some_and(Value::is_array) {
            o.retain(|k, _| BESIDE_ENUM.contains(&k.as_str()));
        }
        if o.get("nullable") == Some(&Value::Bool(true)) {
            o.remove("nullable");
            match o.get_mut("type") {
                Some(Value::String(t)) => {
                    let t = Value::String(t.clone());
                    o.insert("type".into(), Value::Array(vec![t, "null".into()]));
                }
                Some(Value::Array(ts)) if !ts.contains(&"null".into()) => ts.push("null".into()),
                _ => {}
            }
        }
        if let Some(prefix_items) = o.remove("prefixItems") {
            if let Some(items) = o.remove("items") {
                o.insert("additionalItems".into(), items);
            }
            o.insert("items".into(), prefix_items);
        }
        if let Some(dynamic) = o.remove("$dynamicRef") {
            self.warn(
                pointer,
                format!(
                    "`$dynamicRef: {dynamic}` is not supported; any JSON value is accepted here"
                ),
            );
            o.clear();
            return;
        }
        if let Some(reference) = o.get("$ref").cloned() {
            let target = reference
                .as_str()
                .and_then(|r| self.resolve(r, doc, refs, found));
            match target {
                Some(name) => {
                    o.insert(
                        "$ref".into(),
                        Value::String(format!("#/definitions/{name}")),
                    );
                    // typify reads a `$ref` with sibling keywords as the reference alone; keep the constraints
                    // by moving the reference into an `allOf`.
                    let siblings = o.keys().any(|k| {
                        !matches!(k.as_str(), "$ref" | "description" | "default" | "examples")
                    });
                    if siblings {
                        let r = o.remove("$ref").unwrap_or(Value::Null);
                        let mut all_of = vec![serde_json::json!({ "$ref": r })];
                        if let Some(Value::Array(existing)) = o.remove("allOf") {
                            all_of.extend(existing);
                        }
                        o.insert("allOf".into(), Value::Array(all_of));
                    }
                }
                None => {
                    self.warn(
                        pointer,
                        format!(
                            "`$ref: {reference}` does not resolve; any JSON value is accepted here"
                        ),
                    );
                    o.remove("$ref");
                }
            }
        }
        for k in ONE {
            if let Some(sub) = o.get_mut(*k) {
                self.clean(sub, &format!("{pointer}/{k}"), doc, refs, found);
            }
        }
        match o.get_mut("items") {
            Some(Value::Array(items)) => {
                for (i, sub) in items.iter_mut().enumerate() {
                    self.clean(sub, &format!("{pointer}/items/{i}"), doc, refs, found);
                }
            }
            Some(sub) => self.clean(sub, &format!("{pointer}/items"), doc, refs, found),
            None => {}
        }
        for k in MANY {
            match o.get_mut(*k) {
                Some(Value::Array(subs)) => {
                    for (i, sub) in subs.iter_mut().enumerate() {
                        self.clean(sub, &format!("{pointer}/{k}/{i}"), doc, refs, found);
                    }
                }
                Some(_) => {
                    self.warn(
                        &format!("{pointer}/{k}"),
                        format!("`{k}` is not an array; ignored"),
                    );
                    o.remove(*k);
                }
                None => {}
            }
        }
        for k in MAP {
            match o.get_mut(*k) {
                Some(Value::Object(subs)) => {
                    for (name, sub) in subs.iter_mut() {
                        self.clean(
                            sub,
                            &format!("{pointer}/{k}/{}", escape_pointer_token(name)),
                            doc,
                            refs,
                            found,
                        );
                    }
                }
                Some(_) => {
                    self.warn(
                        &format!("{pointer}/{k}"),
                        format!("`{k}` is not an object; ignored"),
                    );
                    o.remove(*k);
                }
                None => {}
            }
        }
        self.distinct_fields(o);
        if o.get("required")
            .is_some_and(|r| !r.as_array().is_some_and(|a| a.iter().all(Value::is_string)))
        {
            self.warn(
                &format!("{pointer}/required"),
                "`required` is not a list of names; ignored".into(),
            );
            o.remove("required");
        }
    }

    /// Properties whose names typify would turn into the same Rust field (`DateCreated`, `DateCreated<`,
    /// `DateCreated>` are all `date_created`) are renamed with a mark, so that each gets a field of its own
    /// (`date_created_lt`); the mark is taken out of the generated `#[serde(rename)]` afterwards, so the wire
    /// names are the spec's.
    fn distinct_fields(&mut self, o: &mut Map<String, Value>) {
        let Some(Value::Object(props)) = o.get("properties") else {
            return;
        };
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let mut clashes = Vec::new();
        for name in props.keys() {
            let field = typify_field(name);
            if seen.insert(field, 0).is_some() {
                clashes.push(name.clone());
            }
        }
        if clashes.is_empty() {
            return;
        }
        let mut fields: std::collections::BTreeSet<String> =
            props.keys().map(|n| typify_field(n)).collect();
        let mut map = Vec::new();
        for name in clashes {
            let readable = mcp_openapi::names::argument(&name);
            let mut base = readable.clone();
            let mut n = 2;
            while !fields.insert(typify_field(&base)) {
                base = format!("{readable}_{n}");
                n += 1;
            }
            let mark =
                char::from_u32(RENAME_MARK + self.renamed.len() as u32).unwrap_or('\u{E000}');
            let marked = format!("{base}{mark}");
            self.renamed.push((marked.clone(), name.clone()));
            map.push((name, marked));
        }
        if let Some(Value::Object(props)) = o.get_mut("properties") {
            let old = std::mem::take(props);
            for (k, v) in old {
                let key = map
                    .iter()
                    .find(|(from, _)| *from == k)
                    .map_or(k, |(_, to)| to.clone());
                props.insert(key, v);
            }
        }
        if let Some(Value::Array(required)) = o.get_mut("required") {
            for r in required.iter_mut() {
                if let Some((_, to)) = map.iter().find(|(from, _)| r == from) {
                    *r = Value::String(to.clone());
                }
            }
        }
    }

    /// The definition name a reference points to, hoisting the target when it is a plain JSON pointer.
    fn resolve(
        &mut self,
        reference: &str,
        doc: &Value,
        refs: &mut BTreeMap<String, String>,
        found: &mut Vec<(String, String, Value)>,
    ) -> Option<String> {
        let fragment = reference.strip_prefix('#')?;
        let key = format!("#{}", percent_decode(fragment));
        if let Some(name) = refs.get(&key) {
            return Some(name.clone());
        }
        if let Some(path) = self.external.get(&key) {
            // A stand-in typify replaces with the external type; named so no local type can take its name.
            let last = path.rsplit("::").next().unwrap_or(path);
            let name = self.namer.unique_type(format!("External{last}"));
            refs.insert(key, name.clone());
            self.used_external.insert(name.clone(), path.clone());
            return Some(name);
        }
        let target = doc.pointer(&key[1..])?;
        if !target.is_object() && !target.is_boolean() {
            return None;
        }
        let last = key
            .rsplit('/')
            .next()
            .map(unescape_pointer_token)
            .unwrap_or_default();
        let name = self.namer.unique_type(camel_ident(&last));
        refs.insert(key.clone(), name.clone());
        found.push((
            name.clone(),
            format!("{}{}", self.prefix, &key[1..]),
            target.clone(),
        ));
        Some(name)
    }
}

/// The field name typify gives a property (its `sanitize` for snake case, which it does not make unique).
fn typify_field(name: &str) -> String {
    use heck::ToSnakeCase;
    let cleaned: String = name
        .replace('\'', "")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    cleaned.to_snake_case()
}

fn escape_pointer_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn unescape_pointer_token(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

/// URI fragments may percent-encode characters of the pointer.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn normalize(schema: Value) -> (Vec<(String, Value)>, Vec<Warning>) {
        let mut n = Normalizer::new("t", &["Params", "Output"]);
        n.add_root("Params", "/inputSchema", schema.as_object().unwrap());
        let (d, w) = n.finish();
        (d.into_iter().map(|d| (d.name, d.schema)).collect(), w)
    }

    #[test]
    fn pointer_refs_are_hoisted_into_definitions() {
        let (defs, warnings) = normalize(json!({
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"x": {"type": "string"}}},
                "b": {"$ref": "#/properties/a"}
            }
        }));
        assert!(warnings.is_empty());
        assert_eq!(
            defs[0].1["properties"]["b"],
            json!({"$ref": "#/definitions/A"})
        );
        assert_eq!(
            defs[1],
            (
                "A".into(),
                json!({"type": "object", "properties": {"x": {"type": "string"}}})
            )
        );
    }

    #[test]
    fn defs_merge_and_root_recursion_points_at_params() {
        let (defs, _) = normalize(json!({
            "type": "object",
            "properties": {"label": {"$ref": "#/$defs/label"}, "child": {"$ref": "#"}},
            "$defs": {"label": {"type": "string", "title": "Label name"}, "Params": {"type": "integer"}}
        }));
        let names: Vec<&str> = defs.iter().map(|d| d.0.as_str()).collect();
        // The root first, then the `$defs` in their order; `Params` in `$defs` yields to the root.
        assert_eq!(names, ["Params", "Params2", "Label"]);
        assert_eq!(
            defs[0].1["properties"]["label"]["$ref"],
            "#/definitions/Label"
        );
        assert_eq!(
            defs[0].1["properties"]["child"]["$ref"],
            "#/definitions/Params"
        );
        assert_eq!(defs[1].1, json!({"type": "integer"}));
        assert_eq!(
            defs[2].1,
            json!({"type": "string", "description": "Label name"})
        );
    }

    #[test]
    fn unresolvable_refs_become_any_value_with_a_warning() {
        let (defs, warnings) = normalize(json!({
            "type": "object",
            "properties": {"x": {"$ref": "https://example.com/schema.json"}, "y": {"$ref": "#/nowhere"}}
        }));
        assert_eq!(defs[0].1["properties"]["x"], json!({}));
        assert_eq!(warnings.len(), 2);
        assert_eq!(warnings[0].pointer, "/inputSchema/properties/x");
    }

    #[test]
    fn prefix_items_const_enums_and_formats() {
        let (defs, _) = normalize(json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false},
                "kind": {"const": "fixed"},
                // Only these two strings, whatever the `anyOf` beside them allows.
                "source": {"type": "string", "enum": ["gh-pages", "master"], "minLength": 1, "anyOf": [
                    {"type": "string", "enum": ["gh-pages", "master"]},
                    {"type": "object", "properties": {"branch": {"type": "string"}}}
                ]},
                "when": {"type": "string", "format": "date-time", "pattern": "^\\d"},
                "n": {"type": "integer", "format": "int32"}
            }
        }));
        let p = &defs[0].1["properties"];
        assert_eq!(
            p["pair"],
            json!({"type": "array", "items": [{"type": "string"}, {"type": "number"}], "additionalItems": false})
        );
        assert_eq!(p["kind"], json!({"enum": ["fixed"]}));
        assert_eq!(
            p["source"],
            json!({"type": "string", "enum": ["gh-pages", "master"]})
        );
        assert_eq!(p["when"], json!({"type": "string"}));
        assert_eq!(p["n"], json!({"type": "integer", "format": "int32"}));
    }

    #[test]
    fn empty_argument_tools() {
        for s in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
            json!({}),
        ] {
            assert!(takes_no_arguments(s.as_object().unwrap()), "{s}");
        }
        for s in [
            json!({"type": "object", "properties": {"a": {}}}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
        ] {
            assert!(!takes_no_arguments(s.as_object().unwrap()), "{s}");
        }
    }
}
