//! Schemas out of a spec: every local `$ref` resolved, finite ones inlined, recursive ones kept as a minimal
//! `$defs`; OpenAPI 3.0's dialect (`nullable`, boolean `exclusive*`, `example`, `format: binary`) rewritten as
//! JSON Schema 2020-12; OpenAPI-only keywords dropped.

use super::document::{Document, Version};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Which side of the API a schema describes: `readOnly` properties are not sent, `writeOnly` ones not received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Request,
    Response,
}

/// Past this many schema nodes in one tool, further finite references stay references (in `$defs`) instead of
/// being inlined, so that a spec built to explode cannot exhaust memory.
const INLINE_BUDGET: usize = 100_000;

/// Subschemas nested deeper than this are replaced by `{}`; no real schema comes near it.
const MAX_DEPTH: usize = 256;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
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
const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is a map of subschemas.
const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];
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

/// The local references of a document, and which of them are recursive.
pub struct Resolver<'a> {
    pub doc: &'a Document,
    recursive: HashSet<String>,
}

/// One schema root being built (an input or an output schema): its `$defs` and what went wrong.
pub struct Inliner<'r, 'a> {
    resolver: &'r Resolver<'a>,
    direction: Direction,
    /// Reference (a JSON pointer into the document) → its name in `$defs` and, once built, its schema.
    defs: BTreeMap<String, (String, Option<Value>)>,
    names: BTreeSet<String>,
    emitted: usize,
    /// (pointer into the document, reason).
    pub warnings: Vec<(String, String)>,
}

impl<'a> Resolver<'a> {
    pub fn new(doc: &'a Document) -> Self {
        let recursive = recursive_refs(&doc.root);
        Resolver { doc, recursive }
    }

    /// The target of a local reference, by its pointer.
    pub fn target(&self, pointer: &str) -> Option<&'a Value> {
        self.doc.root.pointer(pointer)
    }

    /// Follows references (of parameters, request bodies, responses) until something that is not one.
    /// Returns the object and the pointer it was found at, or why not.
    pub fn deref<'v>(&self, value: &'v Value, at: &str) -> Result<(&'v Value, String), String>
    where
        'a: 'v,
    {
        let mut current = value;
        let mut pointer = at.to_string();
        for _ in 0..32 {
            match current.get("$ref") {
                Some(r) => {
                    let p = local_pointer(r)?;
                    current = self
                        .target(&p)
                        .ok_or_else(|| format!("`$ref: {r}` does not resolve"))?;
                    pointer = p;
                }
                None => return Ok((current, pointer)),
            }
        }
        Err(format!("the reference at {at} goes round in a loop"))
    }

    pub fn inliner(&self, direction: Direction) -> Inliner<'_, 'a> {
        Inliner {
            resolver: self,
            direction,
            defs: BTreeMap::new(),
            names: BTreeSet::new(),
            emitted: 0,
            warnings: Vec::new(),
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

impl Inliner<'_, '_> {
    /// The schema at `pointer` (in the document) with its references resolved.
    pub fn schema(&mut self, schema: &Value, pointer: &str) -> Value {
        self.inline(schema, pointer, 0)
    }

    /// Attaches the recursive definitions this inliner collected to a root schema, as `$defs`.
    pub fn finish(self, root: &mut Map<String, Value>) -> Vec<(String, String)> {
        let defs: Map<String, Value> = self
            .defs
            .into_values()
            .map(|(name, schema)| (name, schema.unwrap_or_else(|| json!({}))))
            .collect();
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        self.warnings
    }

    /// The body of a `$defs` entry this inliner made (for `#/$defs/Name`), to look through a recursive root.
    pub fn definition(&self, reference: &str) -> Option<&Value> {
        let name = reference.strip_prefix("#/$defs/")?;
        self.defs
            .values()
            .find(|(n, _)| n == name)
            .and_then(|(_, s)| s.as_ref())
    }

    fn warn(&mut self, pointer: &str, message: String) {
        self.warnings.push((pointer.to_string(), message));
    }

    fn inline(&mut self, schema: &Value, pointer: &str, depth: usize) -> Value {
        self.emitted += 1;
        if depth > MAX_DEPTH {
            self.warn(
                pointer,
                "the schema nests too deeply; any JSON value is accepted here".into(),
            );
            return json!({});
        }
        let Value::Object(o) = schema else {
            if schema.is_boolean() && self.resolver.doc.version == Version::V3_1 {
                return schema.clone();
            }
            self.warn(
                pointer,
                format!(
                    "`{}` is not a schema; any JSON value is accepted here",
                    excerpt(schema)
                ),
            );
            return json!({});
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
            let v = if ONE.contains(&key) {
                if key == "items" && value.is_array() {
                    // Draft-04 tuple form, which 3.0 does not allow but some specs use.
                    Value::Array(subschemas(value, &at, |s, p| self.inline(s, p, depth + 1)))
                } else {
                    self.inline(value, &at, depth + 1)
                }
            } else if MANY.contains(&key) {
                if !value.is_array() {
                    self.warn(&at, format!("`{key}` is not an array; ignored"));
                    continue;
                }
                Value::Array(subschemas(value, &at, |s, p| self.inline(s, p, depth + 1)))
            } else if MAP.contains(&key) {
                let Value::Object(m) = value else {
                    self.warn(&at, format!("`{key}` is not an object; ignored"));
                    continue;
                };
                let mut props = Map::new();
                for (name, sub) in m {
                    let mut sub = self.inline(sub, &format!("{at}/{}", escape(name)), depth + 1);
                    if key == "properties" {
                        if self.hidden(&sub) {
                            continue;
                        }
                        // The markers have done their work: the property is visible from this side.
                        if let Value::Object(p) = &mut sub {
                            p.remove("readOnly");
                            p.remove("writeOnly");
                        }
                    }
                    props.insert(name.clone(), sub);
                }
                Value::Object(props)
            } else {
                value.clone()
            };
            out.insert(key.to_string(), v);
        }
        self.dialect(&mut out);
        drop_hidden_required(&mut out);
        Value::Object(out)
    }

    /// A `$ref` node: inlined when finite, a `#/$defs/Name` reference when recursive.
    fn reference(
        &mut self,
        o: &Map<String, Value>,
        reference: &Value,
        pointer: &str,
        depth: usize,
    ) -> Value {
        let target_pointer = match local_pointer(reference) {
            Ok(p) => p,
            Err(why) => {
                self.warn(pointer, format!("{why}; any JSON value is accepted here"));
                return annotations_only(o);
            }
        };
        let Some(target) = self.resolver.target(&target_pointer) else {
            self.warn(
                pointer,
                format!(
                    "`$ref: {}` does not resolve; any JSON value is accepted here",
                    excerpt(reference)
                ),
            );
            return annotations_only(o);
        };
        let keep_as_reference =
            self.resolver.recursive.contains(&target_pointer) || self.emitted > INLINE_BUDGET;
        let mut resolved = if keep_as_reference {
            let name = match self.defs.get(&target_pointer) {
                Some((name, _)) => name.clone(),
                None => {
                    let name = self.def_name(&target_pointer);
                    self.defs
                        .insert(target_pointer.clone(), (name.clone(), None));
                    let body = self.inline(target, &target_pointer, depth + 1);
                    if let Some(entry) = self.defs.get_mut(&target_pointer) {
                        entry.1 = Some(body);
                    }
                    name
                }
            };
            json!({ "$ref": format!("#/$defs/{name}") })
        } else {
            self.inline(target, &target_pointer, depth + 1)
        };
        let siblings: Map<String, Value> = o
            .iter()
            .filter(|(k, _)| *k != "$ref" && !k.starts_with("x-"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if siblings.is_empty() {
            return resolved;
        }
        if siblings.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) {
            // Annotations beside a reference refine it (3.1 allows them; 3.0 specs write them anyway).
            let mut s = siblings;
            let nullable = s.remove("nullable") == Some(Value::Bool(true));
            self.dialect(&mut s);
            if let Value::Object(r) = &mut resolved {
                for (k, v) in s {
                    r.insert(k, v);
                }
                if nullable {
                    if r.contains_key("type") {
                        make_nullable(r);
                    } else {
                        resolved = nullable_of(resolved);
                    }
                }
            }
            return resolved;
        }
        let rest = self.inline(&Value::Object(siblings), pointer, depth + 1);
        json!({ "allOf": [resolved, rest] })
    }

    /// A `$defs` name for a reference: its last pointer token, made unique in this root.
    fn def_name(&mut self, pointer: &str) -> String {
        let last = pointer.rsplit('/').next().map(unescape).unwrap_or_default();
        let mut base: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
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
        name
    }

    /// Whether a property is invisible from this side: `readOnly` in a request, `writeOnly` in a response.
    fn hidden(&self, schema: &Value) -> bool {
        let key = match self.direction {
            Direction::Request => "readOnly",
            Direction::Response => "writeOnly",
        };
        schema.get(key) == Some(&Value::Bool(true))
    }

    /// OpenAPI 3.0's schema dialect as JSON Schema 2020-12, and the file convention of both versions.
    fn dialect(&self, o: &mut Map<String, Value>) {
        let v30 = self.resolver.doc.version == Version::V3_0;
        if let Some(nullable) = o.remove("nullable") {
            if nullable == Value::Bool(true) {
                make_nullable(o);
            }
        }
        if v30 {
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
                    _ => {}
                }
            }
            if o.get("type") == Some(&json!("file")) {
                o.insert("type".into(), json!("string"));
                o.insert("format".into(), json!("binary"));
            }
        }
        if let Some(example) = o.remove("example") {
            o.entry("examples")
                .or_insert_with(|| Value::Array(vec![example]));
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

/// `required` may still name a property dropped as readOnly/writeOnly.
fn drop_hidden_required(o: &mut Map<String, Value>) {
    let Some(Value::Object(props)) = o.get("properties") else {
        return;
    };
    if o.contains_key("allOf") || o.contains_key("anyOf") || o.contains_key("oneOf") {
        return;
    }
    let props: HashSet<String> = props.keys().cloned().collect();
    if let Some(Value::Array(required)) = o.get_mut("required") {
        required.retain(|r| r.as_str().is_some_and(|r| props.contains(r)));
        if required.is_empty() {
            o.remove("required");
        }
    }
}

fn subschemas(value: &Value, at: &str, mut f: impl FnMut(&Value, &str) -> Value) -> Vec<Value> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, s)| f(s, &format!("{at}/{i}")))
        .collect()
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
            if o.is_empty() {
                return;
            }
            if let Some(Value::Array(e)) = o.get_mut("enum") {
                if !e.contains(&Value::Null) {
                    e.push(Value::Null);
                }
                return;
            }
            // No type to widen (a composition, a bare reference): the schema or null.
            let inner = std::mem::take(o);
            let description = inner.get("description").cloned();
            let mut inner = inner;
            inner.remove("description");
            o.insert(
                "anyOf".into(),
                json!([Value::Object(inner), {"type": "null"}]),
            );
            if let Some(d) = description {
                o.insert("description".into(), d);
            }
        }
    }
}

fn nullable_of(schema: Value) -> Value {
    match schema {
        Value::Object(mut o) => {
            let d = o.remove("description");
            let mut out = Map::new();
            out.insert("anyOf".into(), json!([Value::Object(o), {"type": "null"}]));
            if let Some(d) = d {
                out.insert("description".into(), d);
            }
            Value::Object(out)
        }
        other => other,
    }
}

/// A short rendering of a JSON value for a warning.
pub fn excerpt(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

pub fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn unescape(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// The references that take part in a cycle: a reference is recursive when its target reaches it again.
fn recursive_refs(root: &Value) -> HashSet<String> {
    // Every distinct local reference, and the references found inside its target.
    let mut edges: HashMap<String, Vec<String>> = HashMap::new();
    let mut queue = Vec::new();
    collect_refs(root, &mut queue);
    while let Some(r) = queue.pop() {
        if edges.contains_key(&r) {
            continue;
        }
        let mut inner = Vec::new();
        if let Some(target) = root.pointer(&r) {
            collect_refs(target, &mut inner);
        }
        inner.sort();
        inner.dedup();
        queue.extend(inner.iter().filter(|i| !edges.contains_key(*i)).cloned());
        edges.insert(r, inner);
    }
    strongly_connected(&edges)
}

/// The local references inside a value, not looking into values that are data rather than schemas.
fn collect_refs(value: &Value, out: &mut Vec<String>) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(p) = o.get("$ref").and_then(|r| local_pointer(r).ok()) {
                    out.push(p);
                }
                for (k, child) in o {
                    if !matches!(
                        k.as_str(),
                        "example" | "examples" | "enum" | "const" | "default"
                    ) && !k.starts_with("x-")
                    {
                        stack.push(child);
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

/// Tarjan's algorithm, iterative so that a deep reference chain cannot overflow the stack. Returns the nodes of
/// every cycle (components of more than one node, and nodes with an edge to themselves).
fn strongly_connected(edges: &HashMap<String, Vec<String>>) -> HashSet<String> {
    let mut nodes: Vec<&String> = edges.keys().collect();
    nodes.sort();
    let id: HashMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges[*n]
                .iter()
                .filter_map(|m| id.get(m).copied())
                .collect()
        })
        .collect();
    let n = nodes.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = HashSet::new();
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(start, 0)];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i < succ[v].len() {
                let w = succ[v][*i];
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 || succ[v].contains(&v) {
                    out.extend(component.into_iter().map(|w| nodes[w].clone()));
                }
            }
        }
    }
    out
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

    fn inline(d: &Document, name: &str, direction: Direction) -> (Value, Vec<(String, String)>) {
        let r = Resolver::new(d);
        let mut i = r.inliner(direction);
        let p = format!("/components/schemas/{name}");
        let s = i.schema(d.root.pointer(&p).unwrap(), &p);
        let mut root = s.as_object().unwrap().clone();
        let w = i.finish(&mut root);
        (Value::Object(root), w)
    }

    #[test]
    fn nullable_and_boolean_exclusive_bounds_of_3_0() {
        let d = doc(
            "3.0.3",
            json!({"A": {"type": "object", "properties": {
                "n": {"type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false, "nullable": true},
                "e": {"type": "string", "enum": ["a"], "nullable": true}
            }}}),
        );
        let (s, w) = inline(&d, "A", Direction::Request);
        assert!(w.is_empty());
        assert_eq!(
            s["properties"]["n"],
            json!({"type": ["integer", "null"], "exclusiveMinimum": 1, "maximum": 9})
        );
        assert_eq!(
            s["properties"]["e"],
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
    }

    #[test]
    fn finite_refs_are_inlined_and_cycles_kept_in_defs() {
        let d = doc(
            "3.1.0",
            json!({
                "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}, "tag": {"$ref": "#/components/schemas/Tag"}}},
                "Tag": {"type": "string", "description": "A tag"},
                "Holder": {"type": "object", "properties": {"node": {"$ref": "#/components/schemas/Node"}, "copy": {"$ref": "#/components/schemas/Holder/properties/name"}, "name": {"type": "string"}}}
            }),
        );
        let (s, w) = inline(&d, "Holder", Direction::Request);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s["properties"]["node"], json!({"$ref": "#/$defs/Node"}));
        assert_eq!(s["properties"]["copy"], json!({"type": "string"}));
        assert_eq!(
            s["$defs"]["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            s["$defs"]["Node"]["properties"]["tag"],
            json!({"type": "string", "description": "A tag"})
        );
    }

    #[test]
    fn read_only_properties_are_not_sent() {
        let d = doc(
            "3.0.0",
            json!({"A": {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer", "readOnly": true}, "name": {"type": "string"}}}}),
        );
        let (request, _) = inline(&d, "A", Direction::Request);
        assert_eq!(
            request,
            json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}})
        );
        let (response, _) = inline(&d, "A", Direction::Response);
        assert_eq!(response["required"], json!(["id", "name"]));
    }

    #[test]
    fn unresolvable_and_external_refs_warn() {
        let d = doc(
            "3.0.0",
            json!({"A": {"type": "object", "properties": {
            "x": {"$ref": "#/components/schemas/Nope"}, "y": {"$ref": "other.yaml#/Y", "description": "why"}}}}),
        );
        let (s, w) = inline(&d, "A", Direction::Request);
        assert_eq!(s["properties"]["x"], json!({}));
        assert_eq!(s["properties"]["y"], json!({"description": "why"}));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].1.contains("does not resolve"), "{w:?}");
        assert!(w[1].1.contains("outside the document"), "{w:?}");
    }
}
