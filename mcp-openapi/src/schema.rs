//! Schemas out of a spec, in JSON Schema 2020-12: OpenAPI 3.0's dialect (`nullable`, boolean `exclusive*`,
//! `example`, `format: binary`, `type: file`) rewritten, OpenAPI-only keywords dropped, and every local `$ref`
//! kept as a reference to a named definition (`#/$defs/Pet`) that is converted once for the whole spec.
//!
//! These *full* schemas are linear in the size of the spec whatever its references do. The bridge validates
//! arguments against them and the bindings are generated from them; [`crate::prompt`] renders them for the
//! model within a byte budget.

use crate::document::{Document, Version};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Subschemas nested deeper than this (without a reference in between) are not converted; no real schema
/// comes near it, and it keeps every later recursive walk within the stack.
pub const MAX_DEPTH: usize = 64;

/// Keywords whose value is one subschema.
pub const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is an array of subschemas.
pub const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is a map of subschemas.
pub const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];
/// Keywords where `true`/`false` is the usual spelling (`additionalProperties: false`).
const BOOLEAN_VALUED: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
/// OpenAPI-only or noise keywords, dropped everywhere.
const DROPPED: &[&str] = &[
    "discriminator",
    "xml",
    "externalDocs",
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$defs",
    "definitions",
    "$dynamicAnchor",
];
/// Keywords that may sit beside a `$ref` and only annotate it.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "example",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "nullable",
];
/// The JSON Schema types; anything else in `type` is dropped with a warning.
const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// A named schema every operation refers to by `#/$defs/<name>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// Unique in the spec, `[A-Za-z0-9_.-]`: the key of `components/schemas` when it was one.
    pub name: String,
    /// Where it is in the document (`/components/schemas/Pet`).
    pub pointer: String,
    /// The definition as JSON Schema 2020-12, its references as `#/$defs/<name>`.
    pub schema: Value,
}

/// Every definition the converted operations reach, by name.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    list: Vec<Definition>,
    by_name: HashMap<String, usize>,
}

impl Definitions {
    /// The definition with this name.
    pub fn get(&self, name: &str) -> Option<&Definition> {
        self.by_name.get(name).map(|&i| &self.list[i])
    }

    /// The definition a `#/$defs/<name>` reference names.
    pub fn target(&self, reference: &str) -> Option<&Definition> {
        self.get(reference.strip_prefix("#/$defs/")?)
    }

    /// Every definition, in the order they were first reached.
    pub fn iter(&self) -> impl Iterator<Item = &Definition> {
        self.list.iter()
    }

    /// How many definitions there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The names of the definitions `roots` reach, directly or through other definitions, in a stable order.
    pub fn reachable<'v>(&self, roots: impl IntoIterator<Item = &'v Value>) -> Vec<&Definition> {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut stack: Vec<usize> = Vec::new();
        let push = |v: &Value, seen: &mut HashSet<usize>, stack: &mut Vec<usize>| {
            for r in references(v) {
                if let Some(&i) = r.strip_prefix("#/$defs/").and_then(|n| self.by_name.get(n)) {
                    if seen.insert(i) {
                        stack.push(i);
                    }
                }
            }
        };
        for root in roots {
            push(root, &mut seen, &mut stack);
        }
        while let Some(i) = stack.pop() {
            push(&self.list[i].schema, &mut seen, &mut stack);
        }
        let mut out: Vec<usize> = seen.into_iter().collect();
        out.sort_unstable();
        out.into_iter().map(|i| &self.list[i]).collect()
    }

    /// A root schema made self-contained: `schema` with the definitions it reaches as its `$defs`.
    pub fn self_contained(&self, schema: &Value) -> Value {
        let mut root = schema.clone();
        let defs: Map<String, Value> = self
            .reachable([schema])
            .into_iter()
            .map(|d| (d.name.clone(), d.schema.clone()))
            .collect();
        if let (Value::Object(o), false) = (&mut root, defs.is_empty()) {
            o.insert("$defs".into(), Value::Object(defs));
        }
        root
    }

    /// Follows a chain of references that are nothing but references (`A: {$ref: B}`), with a loop guard.
    pub fn resolve<'s>(&'s self, mut schema: &'s Value) -> (&'s Value, Option<&'s str>) {
        let mut name = None;
        for _ in 0..16 {
            let Some(def) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| self.target(r))
            else {
                return (schema, name);
            };
            name = Some(def.name.as_str());
            schema = &def.schema;
        }
        (schema, name)
    }
}

/// Every `$ref` string inside a schema (not looking into `enum`, `const`, `default` or `examples`).
pub fn references(value: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(r) = o.get("$ref").and_then(Value::as_str) {
                    out.push(r);
                }
                for (k, child) in o {
                    if !matches!(
                        k.as_str(),
                        "enum" | "const" | "default" | "examples" | "example"
                    ) {
                        stack.push(child);
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

/// Converts a spec's schemas: each node once, each referenced definition once.
pub struct Schemas<'a> {
    doc: &'a Document,
    by_pointer: HashMap<String, usize>,
    by_name: HashMap<String, usize>,
    defs: Vec<Definition>,
    names: HashSet<String>,
    pending: Vec<usize>,
    /// (pointer into the document, reason).
    warnings: Vec<(String, String)>,
}

impl<'a> Schemas<'a> {
    /// A converter for the schemas of `doc`, with nothing converted yet.
    pub fn new(doc: &'a Document) -> Self {
        Schemas {
            doc,
            by_pointer: HashMap::new(),
            by_name: HashMap::new(),
            defs: Vec::new(),
            names: HashSet::new(),
            pending: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The schema at `pointer` (in the document) as JSON Schema 2020-12; the references it holds are
    /// registered and converted by [`Schemas::settle`].
    pub fn convert(&mut self, schema: &Value, pointer: &str) -> Value {
        self.node(schema, pointer, 0)
    }

    /// A schema that lives in the spec's shared components (`/components/parameters/sort/schema`) as a
    /// reference to a definition of its own, so that the operations sharing it share one type. Schemas that
    /// are not worth a type of their own (a plain string) are converted in place.
    pub fn convert_shared(&mut self, schema: &Value, pointer: &str) -> Value {
        let worth_a_type = |s: &Value| {
            s.get("enum")
                .is_some_and(|e| e.as_array().is_some_and(|e| e.len() > 1))
                || s.get("properties").is_some()
        };
        let shared = pointer.starts_with("/components/")
            && schema.get("$ref").is_none()
            && (worth_a_type(schema) || schema.get("items").is_some_and(worth_a_type));
        if !shared {
            return self.convert(schema, pointer);
        }
        let name = self.define(pointer);
        json!({ "$ref": format!("#/$defs/{name}") })
    }

    /// Takes the warnings found since the last call.
    pub fn take_warnings(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.warnings)
    }

    /// Converts every definition referenced so far, and those they reference.
    pub fn settle(&mut self) {
        let mut settled = Vec::new();
        while let Some(i) = self.pending.pop() {
            settled.push(i);
            let pointer = self.defs[i].pointer.clone();
            let doc = self.doc;
            let schema = match doc.root.pointer(&pointer) {
                Some(target) => self.node(target, &pointer, 0),
                None => json!({}),
            };
            self.defs[i].schema = schema;
        }
        // A definition that is only a reference to itself, through any chain, accepts anything.
        for i in settled {
            if self.alias_loops(i) {
                self.warnings.push((
                    self.defs[i].pointer.clone(),
                    "the reference only refers to itself; any JSON value is accepted here".into(),
                ));
                self.defs[i].schema = json!({});
            }
        }
    }

    /// The definitions converted so far, by name.
    pub fn into_definitions(self) -> Definitions {
        let by_name = self
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.clone(), i))
            .collect();
        Definitions {
            list: self.defs,
            by_name,
        }
    }

    /// The document the schemas come from.
    pub fn doc(&self) -> &'a Document {
        self.doc
    }

    /// The converted schema a `#/$defs/<name>` reference names (after [`Schemas::settle`]).
    pub fn lookup(&self, reference: &str) -> Option<&Value> {
        let i = *self.by_name.get(reference.strip_prefix("#/$defs/")?)?;
        Some(&self.defs[i].schema)
    }

    fn alias_loops(&self, start: usize) -> bool {
        let mut seen = HashSet::new();
        let mut i = start;
        loop {
            if !seen.insert(i) {
                return true;
            }
            let next = self.defs[i]
                .schema
                .as_object()
                .filter(|o| o.len() == 1)
                .and_then(|o| o.get("$ref"))
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|n| self.by_name.get(n).copied());
            match next {
                Some(n) => i = n,
                None => return false,
            }
        }
    }

    fn warn(&mut self, pointer: &str, message: String) {
        self.warnings.push((pointer.to_string(), message));
    }

    /// The name of the definition at `pointer`, registering it on first sight.
    fn define(&mut self, pointer: &str) -> String {
        if let Some(&i) = self.by_pointer.get(pointer) {
            return self.defs[i].name.clone();
        }
        let tokens: Vec<String> = pointer.split('/').skip(1).map(unescape).collect();
        // `components/schemas/Pet` → `Pet`; a schema deep in a path → its last two tokens.
        let base = match tokens.as_slice() {
            [c, s, name] if c == "components" && s == "schemas" => name.clone(),
            // A shared parameter's schema is named after the parameter.
            [c, p, name, s] if c == "components" && p == "parameters" && s == "schema" => {
                name.clone()
            }
            [.., a, b] if matches!(b.as_str(), "schema" | "items") || b.parse::<u32>().is_ok() => {
                format!("{a}_{b}")
            }
            [.., last] => last.clone(),
            [] => "Schema".into(),
        };
        let mut base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() {
            base = "Schema".into();
        }
        let mut name = base.clone();
        let mut n = 2;
        while !self.names.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.by_pointer.insert(pointer.to_string(), self.defs.len());
        self.by_name.insert(name.clone(), self.defs.len());
        self.pending.push(self.defs.len());
        self.defs.push(Definition {
            name: name.clone(),
            pointer: pointer.to_string(),
            schema: Value::Null,
        });
        name
    }

    fn node(&mut self, schema: &Value, pointer: &str, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            self.warn(
                pointer,
                format!("the schema nests more than {MAX_DEPTH} levels deep; any JSON value is accepted here"),
            );
            return json!({});
        }
        let o = match schema {
            Value::Object(o) => o,
            // `true` and `false` are schemas in JSON Schema (and `additionalProperties: false` in 3.0 too).
            Value::Bool(true) => return json!({}),
            Value::Bool(false) => return json!({"not": {}}),
            other => {
                self.warn(
                    pointer,
                    format!(
                        "`{}` is not a schema; any JSON value is accepted here",
                        excerpt(other)
                    ),
                );
                return json!({});
            }
        };
        if let Some(reference) = o.get("$ref") {
            return self.reference(o, reference, pointer, depth);
        }
        let mut out = Map::new();
        for (key, value) in o {
            let key = key.as_str();
            if DROPPED.contains(&key) || key.starts_with("x-") {
                continue;
            }
            let at = format!("{pointer}/{}", escape(key));
            let converted = if BOOLEAN_VALUED.contains(&key) && value.is_boolean() {
                value.clone()
            } else if key == "items" && value.is_array() {
                // Draft-04 tuples, which 3.0 does not allow but some specs use.
                let items = self.many(value, &at, depth);
                out.insert("prefixItems".into(), Value::Array(items));
                continue;
            } else if ONE.contains(&key) {
                self.node(value, &at, depth + 1)
            } else if MANY.contains(&key) {
                if !value.is_array() {
                    self.warn(&at, format!("`{key}` is not an array; ignored"));
                    continue;
                }
                Value::Array(self.many(value, &at, depth))
            } else if MAP.contains(&key) {
                let Value::Object(m) = value else {
                    self.warn(&at, format!("`{key}` is not an object; ignored"));
                    continue;
                };
                let mut props = Map::new();
                for (name, sub) in m {
                    props.insert(
                        name.clone(),
                        self.node(sub, &format!("{at}/{}", escape(name)), depth + 1),
                    );
                }
                Value::Object(props)
            } else {
                match self.plain(key, value, &at) {
                    Some(v) => v,
                    None => continue,
                }
            };
            out.insert(key.to_string(), converted);
        }
        self.dialect(&mut out);
        optional_markers(&mut out);
        Value::Object(out)
    }

    fn many(&mut self, value: &Value, at: &str, depth: usize) -> Vec<Value> {
        value
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, s)| self.node(s, &format!("{at}/{i}"), depth + 1))
            .collect()
    }

    /// A keyword that holds no subschema, checked where a bad value would make the schema unusable.
    fn plain(&mut self, key: &str, value: &Value, at: &str) -> Option<Value> {
        match key {
            "required" => match value {
                Value::Array(a) if a.iter().all(Value::is_string) => {
                    let mut seen = HashSet::new();
                    Some(Value::Array(
                        a.iter()
                            .filter(|v| seen.insert(v.as_str().unwrap_or_default().to_string()))
                            .cloned()
                            .collect(),
                    ))
                }
                // 3.0 has no boolean `required` on schemas; some specs write it anyway.
                _ => {
                    self.warn(at, "`required` is not a list of names; ignored".into());
                    None
                }
            },
            "enum" => match value {
                Value::Array(values) => {
                    let mut unique: Vec<Value> = Vec::with_capacity(values.len());
                    for v in values {
                        if !unique.contains(v) {
                            unique.push(v.clone());
                        }
                    }
                    Some(Value::Array(unique))
                }
                _ => {
                    self.warn(at, "`enum` is not a list; ignored".into());
                    None
                }
            },
            "type" => {
                let valid = |t: &Value| {
                    t.as_str()
                        .is_some_and(|t| TYPES.contains(&t) || t == "file")
                };
                match value {
                    Value::String(_) if valid(value) => Some(value.clone()),
                    Value::Array(ts) if !ts.is_empty() && ts.iter().all(valid) => {
                        let mut unique: Vec<Value> = Vec::new();
                        for t in ts {
                            if !unique.contains(t) {
                                unique.push(t.clone());
                            }
                        }
                        Some(if unique.len() == 1 {
                            unique.remove(0)
                        } else {
                            Value::Array(unique)
                        })
                    }
                    _ => {
                        self.warn(
                            at,
                            format!(
                                "`type: {}` is not a JSON Schema type; ignored",
                                excerpt(value)
                            ),
                        );
                        None
                    }
                }
            }
            "description" | "title" | "pattern" | "format" if !value.is_string() => None,
            "minimum" | "maximum" | "multipleOf" | "minLength" | "maxLength" | "minItems"
            | "maxItems" | "minProperties" | "maxProperties"
                if !value.is_number() =>
            {
                self.warn(at, format!("`{key}` is not a number; ignored"));
                None
            }
            _ => Some(value.clone()),
        }
    }

    /// A `$ref` node: a reference to a definition, with the annotations written beside it.
    fn reference(
        &mut self,
        o: &Map<String, Value>,
        reference: &Value,
        pointer: &str,
        depth: usize,
    ) -> Value {
        let target = match local_pointer(reference) {
            Ok(p) => p,
            Err(why) => {
                self.warn(pointer, format!("{why}; any JSON value is accepted here"));
                return annotations_only(o);
            }
        };
        if self.doc.root.pointer(&target).is_none() {
            self.warn(
                pointer,
                format!(
                    "`$ref: {}` does not resolve; any JSON value is accepted here",
                    excerpt(reference)
                ),
            );
            return annotations_only(o);
        }
        let name = self.define(&target);
        let mut resolved = Map::new();
        resolved.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
        let siblings: Map<String, Value> = o
            .iter()
            .filter(|(k, _)| *k != "$ref" && !k.starts_with("x-"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if siblings.is_empty() {
            return Value::Object(resolved);
        }
        if siblings.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) {
            // Annotations beside a reference refine it (3.1 allows them; 3.0 specs write them anyway).
            let mut s = siblings;
            let nullable = s.remove("nullable") == Some(Value::Bool(true));
            self.dialect(&mut s);
            s.retain(|k, v| k != "description" || v.is_string());
            let mut out = resolved;
            out.extend(s);
            if nullable {
                let mut anno = Map::new();
                for k in [
                    "description",
                    "default",
                    "readOnly",
                    "writeOnly",
                    "deprecated",
                ] {
                    if let Some(v) = out.remove(k) {
                        anno.insert(k.into(), v);
                    }
                }
                anno.insert(
                    "anyOf".into(),
                    json!([Value::Object(out), {"type": "null"}]),
                );
                return Value::Object(anno);
            }
            return Value::Object(out);
        }
        let rest = self.node(&Value::Object(siblings), pointer, depth + 1);
        json!({ "allOf": [Value::Object(resolved), rest] })
    }

    /// OpenAPI 3.0's schema dialect as JSON Schema 2020-12, and the file convention of both versions.
    fn dialect(&self, o: &mut Map<String, Value>) {
        let v30 = self.doc.version == Version::V3_0;
        if let Some(nullable) = o.remove("nullable") {
            if nullable == Value::Bool(true) {
                make_nullable(o);
            }
        }
        for (exclusive, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            match o.get(exclusive) {
                Some(Value::Bool(true)) => match o.remove(bound) {
                    Some(b) if b.is_number() => {
                        o.insert(exclusive.into(), b);
                    }
                    _ => {
                        o.remove(exclusive);
                    }
                },
                Some(Value::Bool(false)) => {
                    o.remove(exclusive);
                }
                Some(v) if !v.is_number() => {
                    o.remove(exclusive);
                }
                _ => {}
            }
        }
        if o.get("type") == Some(&json!("file")) {
            o.insert("type".into(), json!("string"));
            o.insert("format".into(), json!("binary"));
        }
        if let Some(example) = o.remove("example") {
            o.entry("examples")
                .or_insert_with(|| Value::Array(vec![example]));
        }
        if o.get("examples").is_some_and(|e| !e.is_array()) {
            // 3.0's `examples` is a map of Example objects; JSON Schema's is a list of values.
            o.remove("examples");
        }
        // A file travels through MCP as base64 text; the bridge decodes it before sending.
        let binary = o.get("format") == Some(&json!("binary"))
            || (!v30
                && o.contains_key("contentMediaType")
                && !o.contains_key("contentEncoding")
                && o.get("type") == Some(&json!("string")));
        if binary {
            o.remove("format");
            o.insert("contentEncoding".into(), json!("base64"));
            let note = "The file's content, base64-encoded.";
            let description = match o.get("description").and_then(Value::as_str) {
                Some(d) if !d.is_empty() => format!("{d}\n\n{note}"),
                _ => note.to_string(),
            };
            o.insert("description".into(), Value::String(description));
        }
    }
}

/// A property marked `readOnly` (never sent) or `writeOnly` (never received) is required on one side only; the
/// shared schema, used in both directions, lists it as optional.
fn optional_markers(o: &mut Map<String, Value>) {
    let Some(Value::Object(props)) = o.get("properties") else {
        return;
    };
    let marked: HashSet<String> = props
        .iter()
        .filter(|(_, s)| {
            s.get("readOnly") == Some(&Value::Bool(true))
                || s.get("writeOnly") == Some(&Value::Bool(true))
        })
        .map(|(k, _)| k.clone())
        .collect();
    if marked.is_empty() {
        return;
    }
    if let Some(Value::Array(required)) = o.get_mut("required") {
        required.retain(|r| r.as_str().is_none_or(|r| !marked.contains(r)));
        if required.is_empty() {
            o.remove("required");
        }
    }
}

/// What a `$ref` that cannot be followed still says: its description.
fn annotations_only(o: &Map<String, Value>) -> Value {
    match o.get("description") {
        Some(d) if d.is_string() => json!({ "description": d }),
        _ => json!({}),
    }
}

/// Adds `null` to what a schema accepts (3.0's `nullable: true`).
pub fn make_nullable(o: &mut Map<String, Value>) {
    match o.get_mut("type") {
        Some(Value::String(t)) => {
            let t = Value::String(t.clone());
            o.insert("type".into(), json!([t, "null"]));
            if let Some(Value::Array(e)) = o.get_mut("enum") {
                if !e.contains(&Value::Null) {
                    e.push(Value::Null);
                }
            }
        }
        Some(Value::Array(ts)) => {
            if !ts.contains(&json!("null")) {
                ts.push(json!("null"));
            }
        }
        _ => {
            if o.is_empty() || (o.len() == 1 && o.contains_key("description")) {
                return;
            }
            if let Some(Value::Array(e)) = o.get_mut("enum") {
                if !e.contains(&Value::Null) {
                    e.push(Value::Null);
                }
                return;
            }
            // No type to widen (a composition): the schema or null.
            let mut inner = std::mem::take(o);
            for k in [
                "description",
                "default",
                "readOnly",
                "writeOnly",
                "deprecated",
            ] {
                if let Some(v) = inner.remove(k) {
                    o.insert(k.into(), v);
                }
            }
            o.insert(
                "anyOf".into(),
                json!([Value::Object(inner), {"type": "null"}]),
            );
        }
    }
}

/// The JSON pointer of a local reference (`#/components/schemas/Pet` → `/components/schemas/Pet`).
pub fn local_pointer(reference: &Value) -> Result<String, String> {
    let Some(r) = reference.as_str() else {
        return Err(format!("`$ref: {reference}` is not a string"));
    };
    match r.split_once('#') {
        Some(("", fragment)) => Ok(percent_decode(fragment)),
        Some(_) | None => Err(format!(
            "`$ref: {r}` points outside the document; only local references are resolved"
        )),
    }
}

/// Follows references (of parameters, request bodies, responses) until something that is not one.
/// Returns the object and the pointer it was found at, or why not.
pub fn deref<'v>(
    doc: &'v Document,
    value: &'v Value,
    at: &str,
) -> Result<(&'v Value, String), String> {
    let mut current = value;
    let mut pointer = at.to_string();
    for _ in 0..32 {
        match current.get("$ref") {
            Some(r) => {
                let p = local_pointer(r)?;
                current = doc
                    .root
                    .pointer(&p)
                    .ok_or_else(|| format!("`$ref: {r}` does not resolve"))?;
                pointer = p;
            }
            None => return Ok((current, pointer)),
        }
    }
    Err(format!("the reference at {at} goes round in a loop"))
}

/// A short rendering of a JSON value for a warning.
pub fn excerpt(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// Escapes a JSON pointer token (`~` as `~0`, `/` as `~1`, RFC 6901).
pub fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Unescapes a JSON pointer token (`~1` as `/`, then `~0` as `~`).
pub fn unescape(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// The object shape of a full schema: its properties in order (merging `allOf` branches and looking through
/// references) and its required names; `None` when it is not a plain object with properties (a union, a map,
/// a scalar).
pub fn object_shape<'v>(
    schema: &Value,
    lookup: &dyn Fn(&str) -> Option<&'v Value>,
) -> Option<Shape> {
    shape(schema, lookup, 0)
}

/// An object's properties in order, and its required names.
pub type Shape = (Vec<(String, Value)>, Vec<String>);

fn shape<'v>(
    schema: &Value,
    lookup: &dyn Fn(&str) -> Option<&'v Value>,
    depth: usize,
) -> Option<Shape> {
    if depth > 16 {
        return None;
    }
    let o = schema.as_object()?;
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        return shape(lookup(r)?, lookup, depth + 1);
    }
    if ["anyOf", "oneOf", "not", "if", "patternProperties"]
        .iter()
        .any(|k| o.contains_key(*k))
    {
        return None;
    }
    if o.get("additionalProperties")
        .is_some_and(|a| !a.is_boolean())
    {
        return None;
    }
    if !o.get("type").is_none_or(|t| t == "object") {
        return None;
    }
    let mut properties: Vec<(String, Value)> = Vec::new();
    let mut required: Vec<String> = Vec::new();
    let merge = |name: String, s: Value, properties: &mut Vec<(String, Value)>| match properties
        .iter_mut()
        .find(|(n, _)| *n == name)
    {
        Some(existing) => existing.1 = json!({"allOf": [existing.1.clone(), s]}),
        None => properties.push((name, s)),
    };
    if let Some(Value::Array(branches)) = o.get("allOf") {
        for b in branches {
            let (p, r) = shape(b, lookup, depth + 1)?;
            for (name, s) in p {
                merge(name, s, &mut properties);
            }
            required.extend(r);
        }
    }
    if let Some(Value::Object(p)) = o.get("properties") {
        for (name, s) in p {
            merge(name.clone(), s.clone(), &mut properties);
        }
    }
    if let Some(Value::Array(r)) = o.get("required") {
        required.extend(r.iter().filter_map(Value::as_str).map(str::to_string));
    }
    if properties.is_empty() {
        return None;
    }
    Some((properties, required))
}

/// Reads a definition list back from `(name, schema)` pairs (tests and tools that hold converted schemas).
impl FromIterator<(String, Value)> for Definitions {
    fn from_iter<T: IntoIterator<Item = (String, Value)>>(iter: T) -> Self {
        let list: Vec<Definition> = iter
            .into_iter()
            .map(|(name, schema)| Definition {
                pointer: format!("/$defs/{}", escape(&name)),
                name,
                schema,
            })
            .collect();
        let by_name = list
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.clone(), i))
            .collect::<HashMap<_, _>>();
        Definitions { list, by_name }
    }
}

/// Used by tests: the definitions as a sorted map.
pub fn as_map(defs: &Definitions) -> BTreeMap<String, Value> {
    defs.iter()
        .map(|d| (d.name.clone(), d.schema.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(version: &str, schemas: Value) -> Document {
        Document::from_value(
            json!({"openapi": version, "paths": {}, "components": {"schemas": schemas}}),
            "t",
        )
        .unwrap()
    }

    fn convert(d: &Document, name: &str) -> (Value, Definitions, Vec<(String, String)>) {
        let mut s = Schemas::new(d);
        let p = format!("/components/schemas/{name}");
        let v = s.convert(d.root.pointer(&p).unwrap(), &p);
        s.settle();
        let w = s.take_warnings();
        (v, s.into_definitions(), w)
    }

    #[test]
    fn nullable_and_boolean_exclusive_bounds_of_3_0() {
        let d = doc(
            "3.0.3",
            json!({"A": {"type": "object", "properties": {
                "n": {"type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false, "nullable": true},
                "e": {"type": "string", "enum": ["a", "a", "b"], "nullable": true}
            }, "additionalProperties": false}}),
        );
        let (s, _, w) = convert(&d, "A");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            s["properties"]["n"],
            json!({"type": ["integer", "null"], "exclusiveMinimum": 1, "maximum": 9})
        );
        assert_eq!(
            s["properties"]["e"],
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
        assert_eq!(s["additionalProperties"], json!(false));
    }

    #[test]
    fn references_stay_references_to_definitions_converted_once() {
        let d = doc(
            "3.1.0",
            json!({
                "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}, "tag": {"$ref": "#/components/schemas/Tag"}}},
                "Tag": {"type": "string", "description": "A tag"},
                "Holder": {"type": "object", "properties": {"node": {"$ref": "#/components/schemas/Node", "nullable": true, "description": "The node"}, "copy": {"$ref": "#/components/schemas/Holder/properties/name"}, "name": {"type": "string"}}}
            }),
        );
        let (s, defs, w) = convert(&d, "Holder");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            s["properties"]["node"],
            json!({"description": "The node", "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]})
        );
        assert_eq!(s["properties"]["copy"], json!({"$ref": "#/$defs/name"}));
        let defs = as_map(&defs);
        assert_eq!(
            defs["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            defs["Tag"],
            json!({"type": "string", "description": "A tag"})
        );
        assert_eq!(defs["name"], json!({"type": "string"}));
    }

    #[test]
    fn read_only_properties_are_optional_in_the_shared_schema() {
        let d = doc(
            "3.0.0",
            json!({"A": {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer", "readOnly": true}, "name": {"type": "string"}}}}),
        );
        let (s, _, _) = convert(&d, "A");
        assert_eq!(s["required"], json!(["name"]));
        assert_eq!(s["properties"]["id"]["readOnly"], json!(true));
    }

    #[test]
    fn unresolvable_and_external_refs_warn() {
        let d = doc(
            "3.0.0",
            json!({"A": {"type": "object", "properties": {
            "x": {"$ref": "#/components/schemas/Nope"}, "y": {"$ref": "other.yaml#/Y", "description": "why"}}}}),
        );
        let (s, _, w) = convert(&d, "A");
        assert_eq!(s["properties"]["x"], json!({}));
        assert_eq!(s["properties"]["y"], json!({"description": "why"}));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w.iter().any(|w| w.1.contains("does not resolve")), "{w:?}");
        assert!(
            w.iter().any(|w| w.1.contains("outside the document")),
            "{w:?}"
        );
    }

    #[test]
    fn self_referring_aliases_accept_anything() {
        let d = doc(
            "3.0.0",
            json!({"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}),
        );
        let (_, defs, w) = convert(&d, "A");
        assert!(
            w.iter().all(|w| w.1.contains("only refers to itself")),
            "{w:?}"
        );
        assert!(defs.iter().any(|d| d.schema == json!({})));
    }
}
