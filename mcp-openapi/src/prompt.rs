//! The schemas a model sees. A full schema (references to shared definitions, see [`crate::schema`]) is
//! rendered self-contained and portable, within a byte budget: objects are expanded breadth first, so the
//! top of an answer or of an argument is always there, and whatever does not fit, or would repeat an object
//! inside itself, becomes a short described stub (`{"type": "object", "description": "A customer; see
//! GetCustomer"}`), never a silent `{}`. In an input, a cut object beside a scalar alternative (an
//! "expandable" field: the id or the whole object) leaves the id alone. Every cut is reported.
//!
//! Portable means what strict clients accept: no `$ref`, no type arrays (`nullable` becomes `anyOf` with
//! `null`, or nothing in an input, where absent and `null` mean the same), no schema that constrains nothing,
//! no `title`, no formats beyond JSON Schema's, `additionalProperties: false` kept.

mod budget;

use crate::schema::{Definitions, MAX_DEPTH};
pub use budget::{json_len, Budget, Cut, CutReason, Direction, HARD_LIMIT, MIN_SCHEMA_BUDGET};
use mcp_runtime::schema::STANDARD_FORMATS;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap, VecDeque};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// An object not yet expanded: its stub is in the output at `path`.
struct Pending<'a> {
    path: Vec<Seg>,
    source: &'a Value,
    ancestors: Vec<&'a str>,
    depth: usize,
    stub_len: usize,
    what: String,
}

#[derive(Default)]
struct Ctx<'a> {
    queue: VecDeque<Pending<'a>>,
    cuts: Vec<(Vec<Seg>, String, CutReason)>,
}

/// Renders full schemas for the model.
pub struct Renderer<'a> {
    /// The full schemas' shared definitions, which references point at.
    pub defs: &'a Definitions,
    /// Definition name → a tool that returns it, named in stubs (`see GetCustomer`).
    pub getters: &'a HashMap<String, String>,
    /// Which side of the API the schemas describe.
    pub direction: Direction,
    /// The tool being rendered: a stub never points at the tool it is in.
    pub tool: &'a str,
}

const ANY_TYPES: &[&str] = &["string", "number", "boolean", "object", "array", "null"];
/// Keywords after which a schema constrains something (the Inspector's list, less the references we inline).
const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "dependentSchemas",
];
/// Single-subschema keywords whose `{}` says nothing and can go.
const DEFAULT_WHEN_ANY: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Examples and defaults longer than this are not worth their bytes.
const SHORT_VALUE: usize = 80;

impl<'a> Renderer<'a> {
    /// Renders `root` within `budget` bytes. `prefix` is its pointer in the tool (`/inputSchema`), for cuts.
    pub fn render(
        &self,
        root: &'a Value,
        budget: usize,
        prefix: &str,
    ) -> (Map<String, Value>, Vec<Cut>) {
        let budget = budget.clamp(MIN_SCHEMA_BUDGET, HARD_LIMIT);
        let mut ctx = Ctx::default();
        let mut out = self.node(root, &mut ctx, &mut Vec::new(), &[], 0);
        let mut cuts = std::mem::take(&mut ctx.cuts);
        let mut size = json_len(&out);
        let mut unexpanded: Vec<Vec<Seg>> = Vec::new();
        while let Some(p) = ctx.queue.pop_front() {
            let mut sub = Ctx::default();
            let mut path = p.path.clone();
            let rendered = self.node(p.source, &mut sub, &mut path, &p.ancestors, p.depth);
            let grown = json_len(&rendered);
            if size + grown <= budget + p.stub_len {
                size = size + grown - p.stub_len;
                set_at(&mut out, &p.path, rendered);
                ctx.queue.extend(sub.queue);
                cuts.extend(sub.cuts);
            } else {
                cuts.push((p.path.clone(), p.what, CutReason::Budget));
                unexpanded.push(p.path);
            }
        }
        if self.direction == Direction::Request {
            keep_scalar_alternatives(&mut out, &mut unexpanded);
        }
        let mut cuts: Vec<Cut> = cuts
            .into_iter()
            .map(|(path, what, reason)| Cut {
                pointer: format!("{prefix}{}", pointer(&path)),
                what,
                reason,
            })
            .collect();
        if json_len(&out) > budget {
            shrink(&mut out, budget, self.direction, prefix, &mut cuts);
        }
        let map = match out {
            Value::Object(o) => o,
            _ => Map::new(),
        };
        (map, cuts)
    }

    /// One node at `path`: its own keywords rendered, its object-like children left as stubs to expand later.
    fn node(
        &self,
        node: &'a Value,
        ctx: &mut Ctx<'a>,
        path: &mut Vec<Seg>,
        ancestors: &[&'a str],
        depth: usize,
    ) -> Value {
        let resolved = self.resolve(node);
        if let Some(name) = resolved.names.iter().find(|n| ancestors.contains(n)) {
            ctx.cuts
                .push((path.clone(), (*name).to_string(), CutReason::Recursion));
            return self.stub(node, " (recursive)");
        }
        if depth > MAX_DEPTH / 2 {
            ctx.cuts
                .push((path.clone(), self.what(node), CutReason::Depth));
            return self.stub(node, "");
        }
        let mut chain: Vec<&'a str> = ancestors.to_vec();
        chain.extend(resolved.names.iter().copied());
        let Some(schema) = resolved.schema.as_object() else {
            return any_value(None, self.direction);
        };
        let mut out = Map::new();
        let mut hidden: BTreeSet<&str> = BTreeSet::new();
        for (key, value) in schema {
            let k = key.as_str();
            match k {
                "properties" | "patternProperties" | "dependentSchemas" => {
                    let Value::Object(m) = value else { continue };
                    let mut props = Map::new();
                    for (name, sub) in m {
                        if k == "properties" && self.hidden(sub) {
                            hidden.insert(name);
                            continue;
                        }
                        path.push(Seg::Key(k.into()));
                        path.push(Seg::Key(name.clone()));
                        let v = self.child(sub, ctx, path, &chain, depth);
                        path.truncate(path.len() - 2);
                        props.insert(name.clone(), v);
                    }
                    out.insert(k.into(), Value::Object(props));
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                    let Value::Array(items) = value else { continue };
                    let mut branches = Vec::with_capacity(items.len());
                    for (i, sub) in items.iter().enumerate() {
                        path.push(Seg::Key(k.into()));
                        path.push(Seg::Index(i));
                        branches.push(self.child(sub, ctx, path, &chain, depth));
                        path.truncate(path.len() - 2);
                    }
                    out.insert(k.into(), Value::Array(branches));
                }
                "items"
                | "additionalProperties"
                | "additionalItems"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "not"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else" => {
                    if let Value::Bool(b) = value {
                        // `additionalProperties: true` is the default; `false` says something.
                        if !*b || !DEFAULT_WHEN_ANY.contains(&k) {
                            out.insert(k.into(), Value::Bool(*b));
                        }
                        continue;
                    }
                    if DEFAULT_WHEN_ANY.contains(&k) && self.says_nothing(value) {
                        continue;
                    }
                    path.push(Seg::Key(k.into()));
                    let v = self.child(value, ctx, path, &chain, depth);
                    path.pop();
                    out.insert(k.into(), v);
                }
                _ => {
                    if let Some(v) = self.keyword(k, value) {
                        out.insert(k.into(), v);
                    }
                }
            }
        }
        // Annotations written beside the references win over the definition's own.
        for (k, v) in &resolved.overrides {
            if let Some(v) = self.keyword(k, v) {
                out.insert(k.clone(), v);
            }
        }
        if !hidden.is_empty() {
            if let Some(Value::Array(required)) = out.get_mut("required") {
                required.retain(|r| r.as_str().is_none_or(|r| !hidden.contains(r)));
            }
        }
        if out
            .get("required")
            .is_some_and(|r| r.as_array().is_some_and(Vec::is_empty))
        {
            out.remove("required");
        }
        portable(&mut out, self.direction);
        Value::Object(out)
    }

    /// A subschema: rendered inline when it holds no object, a stub to expand later when it does.
    fn child(
        &self,
        sub: &'a Value,
        ctx: &mut Ctx<'a>,
        path: &mut Vec<Seg>,
        ancestors: &[&'a str],
        depth: usize,
    ) -> Value {
        if self.structural(sub, 0) {
            let stub = self.stub(sub, "");
            ctx.queue.push_back(Pending {
                path: path.clone(),
                source: sub,
                ancestors: ancestors.to_vec(),
                depth: depth + 1,
                stub_len: json_len(&stub),
                what: self.what(sub),
            });
            stub
        } else {
            self.node(sub, ctx, path, ancestors, depth + 1)
        }
    }

    /// A keyword that holds no subschema, as the model should see it (or not at all).
    fn keyword(&self, k: &str, v: &Value) -> Option<Value> {
        match k {
            "title" | "readOnly" | "writeOnly" | "deprecated" | "$comment" | "$ref" | "$defs"
            | "contentMediaType" => None,
            "format" => v
                .as_str()
                .filter(|f| STANDARD_FORMATS.contains(f))
                .map(|_| v.clone()),
            "examples" => match (self.direction, v) {
                (Direction::Request, Value::Array(e)) => e
                    .first()
                    .filter(|x| json_len(x) <= SHORT_VALUE)
                    .map(|x| json!([x])),
                _ => None,
            },
            "default" => (json_len(v) <= SHORT_VALUE).then(|| v.clone()),
            "description" => v
                .as_str()
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(|d| Value::String(d.to_string())),
            _ => Some(v.clone()),
        }
    }

    /// Whether a property is invisible from this side.
    fn hidden(&self, schema: &Value) -> bool {
        let key = match self.direction {
            Direction::Request => "readOnly",
            Direction::Response => "writeOnly",
        };
        let r = self.resolve(schema);
        r.overrides.get(key) == Some(&Value::Bool(true))
            || r.schema.get(key) == Some(&Value::Bool(true))
    }

    /// Whether a schema accepts any value (`{}`, or annotations only).
    fn says_nothing(&self, v: &Value) -> bool {
        let r = self.resolve(v);
        r.schema
            .as_object()
            .is_some_and(|o| !o.keys().any(|k| CONSTRAINING.contains(&k.as_str())))
    }

    /// Whether a schema describes an object (or a choice that includes one): those are the units of the budget.
    fn structural(&self, v: &Value, depth: usize) -> bool {
        if depth > 8 {
            return true;
        }
        let r = self.resolve(v);
        let Some(o) = r.schema.as_object() else {
            return false;
        };
        if o.contains_key("properties")
            || o.contains_key("patternProperties")
            || o.get("additionalProperties").is_some_and(Value::is_object)
        {
            return true;
        }
        let object_type = match o.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            _ => false,
        };
        if object_type {
            // A free-form object is only `{"type": "object"}`: nothing to cut.
            return o
                .keys()
                .any(|k| matches!(k.as_str(), "allOf" | "anyOf" | "oneOf"));
        }
        ["allOf", "anyOf", "oneOf"].iter().any(|k| {
            o.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|bs| bs.iter().any(|b| self.structural(b, depth + 1)))
        })
    }

    /// The name of what a stub stands for, for reports.
    fn what(&self, v: &Value) -> String {
        let r = self.resolve(v);
        r.names
            .first()
            .map(|n| (*n).to_string())
            .unwrap_or_else(|| "object".into())
    }

    /// A short described stand-in that accepts at least what `v` accepts.
    fn stub(&self, v: &Value, note: &str) -> Value {
        let r = self.resolve(v);
        let name = r.names.first().copied();
        let own = r
            .overrides
            .get("description")
            .or_else(|| r.schema.get("description"))
            .and_then(Value::as_str)
            .map(first_sentence)
            .filter(|d| !d.is_empty());
        let mut description = match (own, name) {
            (Some(d), _) => d,
            (None, Some(n)) => format!("A {n}"),
            (None, None) => "An object".into(),
        };
        let trimmed = description.trim_end_matches('.').len();
        description.truncate(trimmed);
        description.push_str(note);
        if let Some(getter) = name
            .and_then(|n| self.getters.get(n))
            .filter(|g| g.as_str() != self.tool)
        {
            description.push_str("; see ");
            description.push_str(getter);
        } else if self.direction == Direction::Request && note.is_empty() {
            description.push_str(" (fields not listed)");
        }
        let types = self.types(r.schema, 0);
        let mut types: Vec<&str> = match types {
            Some(t) if !t.is_empty() => t.into_iter().collect(),
            _ => ANY_TYPES.to_vec(),
        };
        if self.direction == Direction::Request && types.len() > 1 {
            types.retain(|t| *t != "null");
        }
        let mut out = Map::new();
        if types.len() == 1 {
            out.insert("type".into(), json!(types[0]));
        } else {
            out.insert(
                "anyOf".into(),
                Value::Array(types.iter().map(|t| json!({ "type": t })).collect()),
            );
        }
        out.insert("description".into(), Value::String(description));
        Value::Object(out)
    }

    /// The JSON types a schema may accept, when they can be told; `None` when it may be anything.
    fn types(&self, v: &Value, depth: usize) -> Option<BTreeSet<&'static str>> {
        if depth > 8 {
            return None;
        }
        let r = self.resolve(v);
        let o = r.schema.as_object()?;
        let name = |t: &str| {
            ANY_TYPES
                .iter()
                .copied()
                .find(|x| *x == t || (t == "integer" && *x == "number"))
        };
        match o.get("type") {
            Some(Value::String(t)) => return name(t).map(|t| BTreeSet::from([t])),
            Some(Value::Array(ts)) => {
                return Some(
                    ts.iter()
                        .filter_map(Value::as_str)
                        .filter_map(name)
                        .collect(),
                )
            }
            _ => {}
        }
        if [
            "properties",
            "additionalProperties",
            "patternProperties",
            "required",
        ]
        .iter()
        .any(|k| o.contains_key(*k))
        {
            return Some(BTreeSet::from(["object"]));
        }
        if o.contains_key("items") || o.contains_key("prefixItems") {
            return Some(BTreeSet::from(["array"]));
        }
        for k in ["anyOf", "oneOf"] {
            if let Some(Value::Array(bs)) = o.get(k) {
                let mut all = BTreeSet::new();
                for b in bs {
                    all.extend(self.types(b, depth + 1)?);
                }
                return Some(all);
            }
        }
        if let Some(Value::Array(bs)) = o.get("allOf") {
            return bs.iter().find_map(|b| self.types(b, depth + 1));
        }
        None
    }

    /// Follows references, collecting the names of the definitions passed and the annotations beside them.
    fn resolve(&self, mut v: &'a Value) -> Resolved<'a> {
        let mut names = Vec::new();
        let mut overrides = Map::new();
        for _ in 0..16 {
            let Some(o) = v.as_object() else { break };
            let Some(def) = o
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| self.defs.target(r))
            else {
                break;
            };
            for (k, x) in o {
                if k != "$ref" && !overrides.contains_key(k) {
                    overrides.insert(k.clone(), x.clone());
                }
            }
            names.push(def.name.as_str());
            v = &def.schema;
        }
        if v.get("$ref").is_some() {
            // A reference that does not resolve, or a chain too long: it accepts anything.
            return Resolved {
                schema: &EMPTY,
                names,
                overrides,
            };
        }
        Resolved {
            schema: v,
            names,
            overrides,
        }
    }
}

static EMPTY: Value = Value::Null;

struct Resolved<'a> {
    schema: &'a Value,
    names: Vec<&'a str>,
    overrides: Map<String, Value>,
}

/// What a schema that constrains nothing becomes: each JSON type, spelled so that strict clients accept it.
fn any_value(description: Option<&Value>, direction: Direction) -> Value {
    let mut out = Map::new();
    let types = ANY_TYPES
        .iter()
        .filter(|t| direction == Direction::Response || **t != "null")
        .map(|t| json!({ "type": t }))
        .collect();
    out.insert("anyOf".into(), Value::Array(types));
    if let Some(d) = description {
        out.insert("description".into(), d.clone());
    }
    Value::Object(out)
}

/// Type arrays as `anyOf` (or without `null` in an input), `null` out of input enums, schemas that say
/// nothing spelled out.
fn portable(o: &mut Map<String, Value>, direction: Direction) {
    if let Some(Value::Array(types)) = o.get("type") {
        let mut types: Vec<Value> = types.clone();
        if direction == Direction::Request && types.len() > 1 {
            types.retain(|t| t != "null");
        }
        if types.len() == 1 {
            o.insert("type".into(), types.remove(0));
        } else if !o.contains_key("anyOf") {
            o.remove("type");
            o.insert(
                "anyOf".into(),
                Value::Array(types.into_iter().map(|t| json!({ "type": t })).collect()),
            );
        }
    }
    if direction == Direction::Request {
        if let Some(Value::Array(values)) = o.get_mut("enum") {
            if values.len() > 1 {
                values.retain(|v| !v.is_null());
            }
        }
        // `anyOf: [X, {type: null}]` in an input is X.
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = o.get(key) else {
                continue;
            };
            let is_null = |b: &Value| b.get("type").is_some_and(|t| t == "null");
            if branches.len() == 2 && branches.iter().any(is_null) {
                let kept = branches.iter().find(|b| !is_null(b)).cloned();
                o.remove(key);
                if let Some(Value::Object(inner)) = kept {
                    for (k, v) in inner {
                        o.entry(k).or_insert(v);
                    }
                }
            }
        }
    }
    if !o.keys().any(|k| CONSTRAINING.contains(&k.as_str())) {
        let d = o.get("description").cloned();
        let other: Map<String, Value> = std::mem::take(o);
        if let Value::Object(any) = any_value(d.as_ref(), direction) {
            *o = any;
        }
        for (k, v) in other {
            o.entry(k).or_insert(v);
        }
    }
}

/// The first sentence of a description, at most 120 characters.
pub fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let line = text.lines().next().unwrap_or_default();
    let end = line.find(". ").map_or(line.len(), |i| i + 1);
    let s = &line[..end];
    match s.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", s[..i].trim_end()),
        None => s.to_string(),
    }
}

/// Cuts text to at most `max` bytes, at a paragraph, sentence or word boundary, ending with `…`.
pub fn cut_text(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.len() <= max {
        return text.to_string();
    }
    let room = max.saturating_sub('…'.len_utf8());
    let mut end = room;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let at = head
        .rfind("\n\n")
        .filter(|&i| i > room / 2)
        .or_else(|| head.rfind(". ").map(|i| i + 1).filter(|&i| i > room / 2))
        .or_else(|| head.rfind(char::is_whitespace).filter(|&i| i > room / 2))
        .unwrap_or(end);
    format!("{}…", head[..at].trim_end())
}

fn pointer(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        s.push('/');
        match seg {
            Seg::Key(k) => s.push_str(&crate::schema::escape(k)),
            Seg::Index(i) => s.push_str(&i.to_string()),
        }
    }
    s
}

fn get_mut<'v>(root: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    let mut v = root;
    for seg in path {
        v = match seg {
            Seg::Key(k) => v.as_object_mut()?.get_mut(k)?,
            Seg::Index(i) => v.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(v)
}

fn set_at(root: &mut Value, path: &[Seg], value: Value) {
    if let Some(slot) = get_mut(root, path) {
        *slot = value;
    }
}

/// In an input, an object branch that was cut beside a scalar branch (the id of an expandable field) goes,
/// and the id stays alone.
fn keep_scalar_alternatives(out: &mut Value, unexpanded: &mut [Vec<Seg>]) {
    unexpanded.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let mut by_parent: Vec<(Vec<Seg>, Vec<usize>)> = Vec::new();
    for p in unexpanded.iter() {
        let n = p.len();
        if n < 2 {
            continue;
        }
        let (Seg::Key(k), Seg::Index(i)) = (&p[n - 2], &p[n - 1]) else {
            continue;
        };
        if k != "anyOf" && k != "oneOf" {
            continue;
        }
        let parent = p[..n - 1].to_vec();
        match by_parent.iter_mut().find(|(q, _)| *q == parent) {
            Some((_, is)) => is.push(*i),
            None => by_parent.push((parent, vec![*i])),
        }
    }
    for (array_path, mut cut) in by_parent {
        let Some(Value::Array(branches)) = get_mut(out, &array_path) else {
            continue;
        };
        let scalar = |b: &Value| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| !matches!(t, "object" | "array"))
        };
        let kept_scalar = branches
            .iter()
            .enumerate()
            .any(|(i, b)| !cut.contains(&i) && scalar(b));
        if !kept_scalar {
            continue;
        }
        cut.sort_unstable_by(|a, b| b.cmp(a));
        for i in cut {
            if i < branches.len() {
                branches.remove(i);
            }
        }
        if branches.len() == 1 {
            let only = branches.remove(0);
            let parent_path = &array_path[..array_path.len() - 1];
            if let Some(Value::Object(parent)) = get_mut(out, parent_path) {
                if let Some(Seg::Key(k)) = array_path.last() {
                    parent.remove(k);
                }
                if let Value::Object(inner) = only {
                    for (k, v) in inner {
                        parent.entry(k).or_insert(v);
                    }
                }
            }
        }
    }
}

/// Visits every schema node of a rendered schema, parents first.
fn each_node(v: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>, usize), depth: usize) {
    let Value::Object(o) = v else { return };
    f(o, depth);
    for (k, child) in o.iter_mut() {
        match k.as_str() {
            "properties" | "patternProperties" | "dependentSchemas" => {
                if let Value::Object(m) = child {
                    m.values_mut().for_each(|c| each_node(c, f, depth + 1));
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(a) = child {
                    a.iter_mut().for_each(|c| each_node(c, f, depth + 1));
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else"
            | "additionalItems"
            | "unevaluatedItems"
            | "unevaluatedProperties" => each_node(child, f, depth + 1),
            _ => {}
        }
    }
}

/// Makes a schema whose top level alone is over the budget fit, losing as little as it can: shorter
/// descriptions, no examples, long enums summarized, no descriptions, optional properties, and at the very
/// end the whole schema as a stub.
fn shrink(out: &mut Value, budget: usize, direction: Direction, prefix: &str, cuts: &mut Vec<Cut>) {
    let shortened = |out: &mut Value, what: &str, cuts: &mut Vec<Cut>| {
        cuts.push(Cut {
            pointer: prefix.to_string(),
            what: what.into(),
            reason: CutReason::Shortened,
        });
        json_len(out) <= budget
    };
    each_node(
        out,
        &mut |o, depth| {
            if depth > 0 {
                if let Some(Value::String(d)) = o.get_mut("description") {
                    *d = first_sentence(d);
                }
            }
        },
        0,
    );
    if shortened(out, "descriptions", cuts) {
        return;
    }
    each_node(
        out,
        &mut |o, _| {
            o.remove("examples");
            o.remove("default");
        },
        0,
    );
    if shortened(out, "examples and defaults", cuts) {
        return;
    }
    each_node(
        out,
        &mut |o, _| {
            let Some(Value::Array(values)) = o.get("enum") else {
                return;
            };
            if values.len() <= 8 {
                return;
            }
            let sample: Vec<String> = values.iter().take(3).map(|v| v.to_string()).collect();
            let note = format!(
                "One of {} values, such as {}.",
                values.len(),
                sample.join(", ")
            );
            o.remove("enum");
            let d = match o.get("description").and_then(Value::as_str) {
                Some(d) => format!("{d} {note}"),
                None => note,
            };
            o.insert("description".into(), Value::String(d));
        },
        0,
    );
    if shortened(out, "long enums", cuts) {
        return;
    }
    each_node(
        out,
        &mut |o, depth| {
            if depth > 0 {
                o.remove("description");
            }
        },
        0,
    );
    if shortened(out, "descriptions", cuts) {
        return;
    }
    // Optional properties of the top level, last first.
    if let Value::Object(root) = out {
        let required: Vec<String> = root
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let optional: Vec<String> = root
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| {
                p.keys()
                    .filter(|k| !required.contains(k))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let mut dropped = 0;
        for name in optional.iter().rev() {
            if json_len(&Value::Object(root.clone())) <= budget {
                break;
            }
            if let Some(Value::Object(p)) = root.get_mut("properties") {
                p.remove(name);
                dropped += 1;
                cuts.push(Cut {
                    pointer: format!("{prefix}/properties/{}", crate::schema::escape(name)),
                    what: name.clone(),
                    reason: CutReason::Budget,
                });
            }
        }
        if dropped > 0 {
            // An output that no longer lists a property must still accept it.
            if direction == Direction::Response {
                root.remove("additionalProperties");
            }
            let note = format!("{dropped} optional properties are not listed.");
            let d = match root.get("description").and_then(Value::as_str) {
                Some(d) => format!("{d} {note}"),
                None => note,
            };
            root.insert("description".into(), Value::String(d));
        }
    }
    if json_len(out) <= budget {
        return;
    }
    let count = out
        .get("properties")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    *out = json!({
        "type": "object",
        "description": format!("{count} properties, too many to list within the budget."),
    });
    cuts.push(Cut {
        pointer: prefix.to_string(),
        what: "everything".into(),
        reason: CutReason::Budget,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(pairs: Value) -> Definitions {
        pairs
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn render(
        defs: &Definitions,
        root: &Value,
        direction: Direction,
        budget: usize,
    ) -> (Value, Vec<Cut>) {
        let getters = HashMap::from([("customer".to_string(), "GetCustomer".to_string())]);
        let r = Renderer {
            defs,
            getters: &getters,
            direction,
            tool: "t",
        };
        let (m, cuts) = r.render(root, budget, "/outputSchema");
        (Value::Object(m), cuts)
    }

    fn expandable() -> Definitions {
        defs(json!({
            "customer": {"type": "object", "description": "A customer of yours.", "properties": {
                "id": {"type": "string"}, "email": {"type": ["string", "null"]},
                "default_source": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/source"}]}}},
            "source": {"type": "object", "properties": {"id": {"type": "string"}, "owner": {"$ref": "#/$defs/customer"}}},
            "charge": {"type": "object", "required": ["id"], "properties": {
                "id": {"type": "string"},
                "customer": {"description": "The customer.", "anyOf": [{"type": "string"}, {"$ref": "#/$defs/customer"}]}}}
        }))
    }

    #[test]
    fn everything_fits_in_a_large_budget_and_recursion_becomes_a_stub() {
        let d = expandable();
        let (s, cuts) = render(
            &d,
            &json!({"$ref": "#/$defs/charge"}),
            Direction::Response,
            100_000,
        );
        let customer = &s["properties"]["customer"]["anyOf"][1];
        assert_eq!(
            customer["properties"]["email"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        let owner = &customer["properties"]["default_source"]["anyOf"][1]["properties"]["owner"];
        assert_eq!(
            owner,
            &json!({"type": "object", "description": "A customer of yours (recursive); see GetCustomer"})
        );
        assert_eq!(cuts.len(), 1, "{cuts:?}");
        assert_eq!(cuts[0].reason, CutReason::Recursion);
        assert_eq!(cuts[0].pointer, "/outputSchema/properties/customer/anyOf/1/properties/default_source/anyOf/1/properties/owner");
        assert!(!s.to_string().contains("$ref"));
    }

    #[test]
    fn past_the_budget_objects_become_described_stubs_and_inputs_keep_the_id() {
        let d = expandable();
        let root = json!({"$ref": "#/$defs/charge"});
        let (out, cuts) = render(&d, &root, Direction::Response, 256);
        assert!(json_len(&out) <= 256, "{out}");
        assert_eq!(
            out["properties"]["customer"],
            json!({"description": "The customer.", "anyOf": [{"type": "string"}, {"type": "object", "description": "A customer of yours; see GetCustomer"}]})
        );
        assert!(
            cuts.iter()
                .any(|c| c.reason == CutReason::Budget && c.what == "customer"),
            "{cuts:?}"
        );
        let (input, _) = render(&d, &root, Direction::Request, 256);
        assert_eq!(
            input["properties"]["customer"],
            json!({"description": "The customer.", "type": "string"})
        );
    }

    #[test]
    fn a_top_level_over_the_budget_is_shrunk_until_it_fits() {
        let mut props = Map::new();
        for i in 0..40 {
            props.insert(format!("field_{i}"), json!({"type": "string", "description": "A long description. It goes on and on about the field and what it means.", "examples": ["x"]}));
        }
        let root = json!({"type": "object", "required": ["field_0"], "properties": props});
        let d = Definitions::default();
        for budget in [256, 1000, 2000, 3000] {
            let (out, cuts) = render(&d, &root, Direction::Request, budget);
            assert!(json_len(&out) <= budget, "{budget}: {}", json_len(&out));
            assert!(!cuts.is_empty());
            assert_eq!(out["type"], "object");
        }
    }

    #[test]
    fn portable_spellings() {
        let d = Definitions::default();
        let root = json!({"type": "object", "properties": {
            "any": {"description": "Anything"},
            "free": {"type": "object", "additionalProperties": true},
            "closed": {"type": "object", "properties": {"a": {"type": "integer", "format": "int32"}}, "additionalProperties": false},
            "n": {"type": ["integer", "null"], "enum": [1, 2, null]},
            "list": {"type": "array", "items": {}}
        }});
        let (input, _) = render(&d, &root, Direction::Request, 10_000);
        let p = &input["properties"];
        assert_eq!(p["any"]["anyOf"].as_array().unwrap().len(), 5);
        assert_eq!(p["free"], json!({"type": "object"}));
        assert_eq!(
            p["closed"],
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false})
        );
        assert_eq!(p["n"], json!({"type": "integer", "enum": [1, 2]}));
        assert_eq!(p["list"], json!({"type": "array"}));
        let (output, _) = render(&d, &root, Direction::Response, 10_000);
        assert_eq!(
            output["properties"]["n"],
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "enum": [1, 2, null]})
        );
    }

    #[test]
    fn text_is_cut_at_a_boundary() {
        assert_eq!(cut_text("One. Two three four.", 12), "One. Two…");
        assert_eq!(
            cut_text("First sentence here. Then more words follow", 30),
            "First sentence here.…"
        );
        assert_eq!(cut_text("short", 12), "short");
        assert_eq!(first_sentence("First one. Second."), "First one.");
    }
}
