//! Random valid ADF documents, generated from the official schema's definitions rather than from a list
//! written here: the generator walks `doc_node` and follows every `$ref`, `anyOf`, `allOf`, `enum`,
//! `pattern`, `minimum`/`maximum`, `minItems`/`maxItems` and `required` it meets, so a definition the
//! schema gains is generated the day the schema is updated (and a keyword it does not know fails loudly).
//!
//! What the JSON schema cannot say and the Atlassian editor (ProseMirror) always does, the generator does
//! too, so that the documents are ones a real page can hold: a node's marks are of distinct types, in the
//! editor's order (`marks-in-order.js` of `@atlaskit/adf-schema`), and adjacent text nodes with the same
//! marks are one text node. Everything else is as random as the schema allows: empty `attrs`/`marks`/
//! `content`, attributes anywhere in their ranges, free-form `parameters`, nesting 3 to 14 nodes deep,
//! and text full of Markdown's special characters.
//!
//! Seeds are deterministic (`Gen::new(schema, seed)`): a failure names its seed and reproduces.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use crate::schema::{schema, Schema};

/// splitmix64: tiny, deterministic, good enough to pick branches.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    pub fn one(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }
}

/// The editor's mark order (ProseMirror ranks marks by their place in the schema).
const MARK_ORDER: &[&str] = &[
    "link",
    "em",
    "strong",
    "textColor",
    "backgroundColor",
    "strike",
    "subsup",
    "underline",
    "code",
    "alignment",
    "annotation",
    "fontSize",
    "breakout",
    "dataConsumer",
    "fragment",
    "indentation",
    "border",
];

/// Pieces of text that mean something to Markdown (or to an HTML or marker reader) at some place.
const HAZARDS: &[&str] = &[
    "#",
    "# ",
    "## x",
    "1. ",
    "1) ",
    "> ",
    ">",
    "|",
    "a|b",
    "`",
    "``",
    "```",
    "~~~",
    "<b>",
    "</div>",
    "<br>",
    "<!--",
    "-->",
    "<!--adf:panel {}-->",
    "*",
    "**",
    "*.py",
    "2 * 3 * 4",
    "_",
    "__",
    "a_b_c",
    "_x_",
    "[x](y)",
    "[a]",
    "[a]: /b",
    "![i](u)",
    "\\",
    "\\*",
    "~~",
    "~",
    "- ",
    "+ ",
    "-",
    "---",
    "===",
    "&amp;",
    "&#32;",
    "&nbsp;",
    "&",
    "https://example.com/a_b",
    "www.x.org",
    "a@b.co",
    ":smile:",
    "@name",
    "[@x](mention:1)",
    "{\"a\":1}",
    "'",
    "\"",
    "$",
    "[ ] ",
    "[x] ",
    "[!NOTE]",
    "!",
    "^",
    "=",
    "{",
    "}",
    "(",
    ")",
    "]",
    "[",
    "\u{a0}",
    "é",
    "日本語",
    "😀",
    "\u{200b}",
    "mañana",
    "a\tb",
];
const WORDS: &[&str] = &[
    "lorem",
    "ipsum",
    "Ship it",
    "x",
    "foo",
    "bar baz",
    "hello world",
    "A",
    "1",
    "2024",
    "ok",
];

/// Generates documents from one schema.
pub struct Gen<'s> {
    schema: &'s Schema,
    /// Each definition with its `allOf` merged into one object schema.
    flat: HashMap<String, Value>,
    /// The definitions each definition's `allOf` builds on (`paragraph_node` under `paragraph_with_no_marks_node`).
    bases: HashMap<String, Vec<String>>,
    /// The fewest node levels a definition needs below it (so that deep documents can always close).
    cost: HashMap<String, u32>,
    pub rng: Rng,
    max_depth: u32,
    budget: i64,
    /// Every definition a `$ref` led to, over the generator's life.
    pub seen: BTreeSet<String>,
}

impl<'s> Gen<'s> {
    pub fn new(schema: &'s Schema, seed: u64) -> Self {
        let defs = schema.json["definitions"].as_object().expect("definitions");
        let mut flat = HashMap::new();
        let mut bases = HashMap::new();
        for name in defs.keys() {
            flat.insert(name.clone(), flatten(defs, &defs[name]));
            let parts = defs[name]["allOf"].as_array().into_iter().flatten();
            bases.insert(
                name.clone(),
                parts.filter_map(ref_name).map(str::to_string).collect(),
            );
        }
        let mut gen = Gen {
            schema,
            flat,
            bases,
            cost: HashMap::new(),
            rng: Rng::new(seed),
            max_depth: 0,
            budget: 0,
            seen: BTreeSet::new(),
        };
        gen.compute_costs();
        gen
    }

    /// Reseeds: the next document is the one `Gen::new(schema, seed)` would make first.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// A random valid document.
    pub fn doc(&mut self) -> Value {
        self.max_depth = self.rng.range(3, 14) as u32;
        self.budget = self.rng.range(10, 120) as i64;
        let root = self.schema.json.clone();
        let mut doc = self.value(&root, &Ctx::default(), 0);
        normalize(&mut doc);
        doc
    }

    /// Random text with Markdown's special characters, never empty.
    pub fn text(&mut self) -> String {
        let mut out = String::new();
        if self.rng.chance(0.15) {
            out.push_str(self.rng.one(&[" ", "  ", "\t", "   "]));
        }
        for i in 0..self.rng.range(1, 6) {
            if i > 0 {
                out.push_str(self.rng.one(&[" ", " ", "", "  ", "\n"]));
            }
            if self.rng.chance(0.55) {
                out.push_str(self.rng.one(HAZARDS));
            } else {
                out.push_str(self.rng.one(WORDS));
            }
        }
        if self.rng.chance(0.15) {
            out.push_str(self.rng.one(&[" ", "  ", "\n", " \t"]));
        }
        out
    }

    fn code_text(&mut self) -> String {
        let lines = [
            "fn main() {",
            "    let x = `a`;",
            "```",
            "````rust",
            "~~~",
            "",
            "  ",
            "\t<b>*x*</b>",
            "# not a heading",
            "}",
        ];
        let mut out = String::new();
        for i in 0..self.rng.range(1, 5) {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(self.rng.one(&lines));
        }
        if self.rng.chance(0.3) {
            out.push('\n');
        }
        if out.is_empty() {
            out.push(' ');
        }
        out
    }

    fn compute_costs(&mut self) {
        let names: Vec<String> = self.flat.keys().cloned().collect();
        for name in &names {
            self.cost.insert(name.clone(), u32::MAX / 4);
        }
        loop {
            let mut changed = false;
            for name in &names {
                let c = self.cost_of(&self.flat[name].clone());
                if c < self.cost[name] {
                    self.cost.insert(name.clone(), c);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Node levels a schema needs below it at the least.
    fn cost_of(&self, s: &Value) -> u32 {
        if let Some(name) = ref_name(s) {
            return self.cost[name];
        }
        if let Some(branches) = s.get("anyOf").and_then(Value::as_array) {
            return branches.iter().map(|b| self.cost_of(b)).min().unwrap_or(0);
        }
        if s.get("items").is_some() || s.get("type").and_then(Value::as_str) == Some("array") {
            if min_items(s) == 0 {
                return 0;
            }
            return match s.get("items") {
                Some(Value::Array(tuple)) => tuple.first().map_or(0, |i| self.cost_of(i)),
                Some(item) => self.cost_of(item),
                None => 0,
            };
        }
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            return 0;
        };
        let Some(content) = props.get("content") else {
            return 0;
        };
        if !required(s).contains(&"content") {
            return 0;
        }
        let content = match ref_name(content) {
            Some(name) => &self.flat[name],
            None => content,
        };
        1 + self.cost_of(content).min(u32::MAX / 8)
    }

    fn value(&mut self, s: &Value, ctx: &Ctx, depth: u32) -> Value {
        if let Some(name) = ref_name(s) {
            self.seen.insert(name.to_string());
            self.seen.extend(self.bases[name].iter().cloned());
            let def = self.flat[name].clone();
            let ctx = Ctx {
                def: name.to_string(),
                ..ctx.clone()
            };
            return self.value(&def, &ctx, depth);
        }
        if let Some(branches) = s.get("anyOf").and_then(Value::as_array) {
            let branch = self.choose(branches, depth);
            return self.value(&branch, ctx, depth);
        }
        if s.get("allOf").is_some() {
            let defs = self.schema.json["definitions"]
                .as_object()
                .expect("definitions");
            let merged = flatten(defs, s);
            return self.value(&merged, ctx, depth);
        }
        if let Some(options) = s.get("enum").and_then(Value::as_array) {
            return self.rng.pick(options).clone();
        }
        let ty = s.get("type").and_then(Value::as_str);
        match ty {
            Some("object") => self.object(s, ctx, depth),
            Some("array") => self.array(s, ctx, depth),
            Some("string") => Value::String(self.string(s, ctx)),
            Some("number") | Some("integer") => self.number(s, ctx),
            Some("boolean") => Value::Bool(self.rng.chance(0.5)),
            None if s.get("properties").is_some() => self.object(s, ctx, depth),
            None if s.get("pattern").is_some() || s.get("minLength").is_some() => {
                Value::String(self.string(s, ctx))
            }
            None if s.as_object().is_some_and(|o| o.is_empty()) => self.any(2),
            other => panic!("the generator does not know this schema (type {other:?}): {s}"),
        }
    }

    /// A branch of an `anyOf`: any while the document may grow, the cheapest ones once it may not.
    fn choose(&mut self, branches: &[Value], depth: u32) -> Value {
        let closing = depth >= self.max_depth || self.budget <= 0;
        if !closing {
            // A branch that cannot close within the depth left is not taken.
            let room = self.max_depth - depth;
            let fitting: Vec<&Value> = branches.iter().filter(|b| self.cost_of(b) < room).collect();
            if !fitting.is_empty() {
                return (*self.rng.pick(&fitting)).clone();
            }
        }
        let least = branches.iter().map(|b| self.cost_of(b)).min().unwrap_or(0);
        let cheapest: Vec<&Value> = branches
            .iter()
            .filter(|b| self.cost_of(b) == least)
            .collect();
        (*self.rng.pick(&cheapest)).clone()
    }

    fn object(&mut self, s: &Value, ctx: &Ctx, depth: u32) -> Value {
        let required = required(s);
        let mut out = Map::new();
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            return Value::Object(out);
        };
        let is_node =
            props.get("type").and_then(|t| t.get("enum")).is_some() && ctx.prop.is_empty();
        let node_type = props
            .get("type")
            .and_then(|t| t["enum"][0].as_str())
            .unwrap_or("")
            .to_string();
        if is_node {
            self.budget -= 1;
        }
        for (key, sub) in props {
            let needed = required.contains(&key.as_str());
            let p = match key.as_str() {
                "type" | "version" => 1.0,
                "content" => 0.9,
                "text" if node_type == "text" => 1.0,
                "marks" if node_type == "text" => 0.5,
                "marks" => 0.25,
                _ => 0.45,
            };
            if !needed && !self.rng.chance(p) {
                continue;
            }
            let child_ctx = Ctx {
                def: ctx.def.clone(),
                prop: if key == "attrs" || ctx.prop == "attrs" {
                    format!("attrs.{key}")
                } else {
                    key.clone()
                },
                code: ctx.code || node_type == "codeBlock",
            };
            let child_ctx = if key == "attrs" {
                Ctx {
                    prop: "attrs".into(),
                    ..child_ctx
                }
            } else {
                child_ctx
            };
            let v = match (key.as_str(), node_type.as_str()) {
                ("text", "text") if ctx.code => Value::String(self.code_text()),
                ("text", "text") => Value::String(self.text()),
                ("content", _) => self.value(
                    sub,
                    &Ctx {
                        prop: String::new(),
                        ..child_ctx
                    },
                    depth + 1,
                ),
                ("marks", _) => self.marks(sub, &child_ctx, depth),
                _ => self.value(sub, &child_ctx, depth),
            };
            out.insert(key.clone(), v);
        }
        Value::Object(out)
    }

    /// Marks: distinct types, in the editor's order.
    fn marks(&mut self, s: &Value, ctx: &Ctx, depth: u32) -> Value {
        let s = match ref_name(s) {
            Some(name) => self.flat[name].clone(),
            None => s.clone(),
        };
        let max = s
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX) as usize;
        let Some(item) = s.get("items") else {
            return Value::Array(Vec::new());
        };
        let n = self.rng.range(0, 3).min(max);
        let mut marks: BTreeMap<usize, Value> = BTreeMap::new();
        for _ in 0..n {
            let mark = self.value(item, ctx, depth);
            let name = mark["type"].as_str().unwrap_or("").to_string();
            let rank = MARK_ORDER
                .iter()
                .position(|m| *m == name)
                .unwrap_or_else(|| panic!("mark `{name}` has no rank"));
            marks.entry(rank).or_insert(mark);
        }
        Value::Array(marks.into_values().collect())
    }

    fn array(&mut self, s: &Value, ctx: &Ctx, depth: u32) -> Value {
        let min = min_items(s);
        let max = s
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(usize::MAX, |m| m as usize);
        let closing = depth > self.max_depth || self.budget <= 0;
        match s.get("items") {
            None => Value::Array(Vec::new()),
            Some(Value::Array(tuple)) => {
                let hi = tuple.len().min(max);
                let n = if closing {
                    min
                } else {
                    self.rng.range(min, hi)
                };
                Value::Array(
                    tuple[..n]
                        .iter()
                        .map(|item| self.value(item, ctx, depth))
                        .collect(),
                )
            }
            Some(item) => {
                let soft = if ctx.def == "doc_node" {
                    8
                } else if ctx.prop.starts_with("attrs") {
                    3
                } else {
                    4
                };
                let hi = soft.max(min).min(max);
                let n = if closing {
                    min
                } else {
                    self.rng.range(min, hi)
                };
                let item = item.clone();
                Value::Array((0..n).map(|_| self.value(&item, ctx, depth)).collect())
            }
        }
    }

    fn string(&mut self, s: &Value, ctx: &Ctx) -> String {
        if let Some(pattern) = s.get("pattern").and_then(Value::as_str) {
            return self.pattern(pattern);
        }
        let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let name = ctx.prop.rsplit('.').next().unwrap_or("");
        let mut out = match name {
            "href" | "url" => self
                .rng
                .one(&[
                    "https://example.com/",
                    "https://example.com/a_(b)?q=1&r=*x*#top",
                    "https://x.org/<a> b",
                    "mailto:a@b.co",
                    "/wiki/spaces/A B/pages/1",
                    "",
                    "javascript:alert(1)",
                    "https://example.com/\"quoted\"",
                ])
                .to_string(),
            "language" => self
                .rng
                .one(&[
                    "rust",
                    "c++",
                    "",
                    "objective-c",
                    "x y",
                    "`weird`",
                    "js{1,3}",
                ])
                .to_string(),
            "id" | "localId" | "resourceId" | "uniqueId" | "collection" | "occurrenceKey"
            | "extensionKey" => self
                .rng
                .one(&[
                    "abc-123",
                    "5b10a2844c20165700ede21g",
                    "",
                    "id with spaces",
                    "id\"q'-->",
                    "00000000-0000-4000-8000-000000000000",
                ])
                .to_string(),
            // Confluence's own macros' type most often, as real pages hold (the Markdown writer leaves it
            // out of their markers), else another app's or none the reader would infer.
            "extensionType" => self
                .rng
                .one(&[
                    "com.atlassian.confluence.macro.core",
                    "com.atlassian.confluence.macro.core",
                    "com.atlassian.ecosystem",
                    "",
                    "com.atlassian.confluence.macro.core ",
                ])
                .to_string(),
            "timestamp" => self
                .rng
                .one(&["1705276800000", "0", "-1", "not a number", "1e3"])
                .to_string(),
            _ => {
                if self.rng.chance(0.5) {
                    self.rng.one(WORDS).to_string()
                } else {
                    self.text()
                }
            }
        };
        while out.chars().count() < min {
            out.push('x');
        }
        out
    }

    /// The schema's patterns: alternatives of literal words and `#[0-9a-fA-F]{n}` colours. Any other pattern
    /// is a schema change this generator must learn.
    fn pattern(&mut self, pattern: &str) -> String {
        let body = pattern
            .strip_prefix("^(")
            .and_then(|p| p.strip_suffix(")$"))
            .unwrap_or(pattern);
        let alternatives: Vec<&str> = body
            .split('|')
            .map(|a| a.trim_start_matches('^').trim_end_matches('$'))
            .collect();
        let alt = *self.rng.pick(&alternatives);
        if let Some(rest) = alt
            .strip_prefix("#[0-9a-fA-F]{")
            .and_then(|r| r.strip_suffix('}'))
        {
            let n: usize = rest
                .parse()
                .unwrap_or_else(|_| panic!("unknown pattern {pattern}"));
            let hex = b"0123456789abcdefABCDEF";
            return std::iter::once('#')
                .chain((0..n).map(|_| *self.rng.pick(hex) as char))
                .collect();
        }
        assert!(
            alt.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "unknown pattern {pattern}"
        );
        alt.to_string()
    }

    fn number(&mut self, s: &Value, ctx: &Ctx) -> Value {
        let lo = s.get("minimum").and_then(Value::as_f64);
        let hi = s.get("maximum").and_then(Value::as_f64);
        let name = ctx.prop.rsplit('.').next().unwrap_or("");
        let (lo, hi) = match (lo, hi, name) {
            (None, None, "colspan" | "rowspan") => (1.0, 3.0),
            (lo, hi, _) => (lo.unwrap_or(0.0), hi.unwrap_or(lo.unwrap_or(0.0) + 1000.0)),
        };
        if name == "width" && ctx.def.starts_with("layoutColumn") && self.rng.chance(0.5) {
            // The widths of Atlassian's presets, which a section's columns in Markdown say only when
            // they are not its equal share.
            return [json!(100), json!(50), json!(33.33), json!(66.66), json!(25)]
                [self.rng.below(5)]
            .clone();
        }
        if self.rng.chance(0.15) && hi - lo >= 1.0 {
            // A fraction: widths are often 33.33.
            let v = lo + (self.rng.below(((hi - lo) * 4.0) as usize) as f64) / 4.0 + 0.25;
            if v <= hi {
                return json!(v);
            }
        }
        let v = self.rng.range(lo.ceil() as usize, hi.floor() as usize);
        json!(v)
    }

    /// Any JSON (the schema's `{}`, as in `parameters`).
    fn any(&mut self, depth: u32) -> Value {
        match self.rng.below(if depth == 0 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.chance(0.5)),
            2 => json!(self.rng.range(0, 1_000_000)),
            3 | 4 => Value::String(self.text()),
            5 => Value::Array(
                (0..self.rng.range(0, 3))
                    .map(|_| self.any(depth - 1))
                    .collect(),
            ),
            _ => {
                let mut m = Map::new();
                for _ in 0..self.rng.range(0, 3) {
                    let key = self
                        .rng
                        .one(&["macroParams", "key", "-->", "a b", "x\"y", "content"])
                        .to_string();
                    m.insert(key, self.any(depth - 1));
                }
                Value::Object(m)
            }
        }
    }
}

#[derive(Clone, Default)]
struct Ctx {
    /// The definition being generated.
    def: String,
    /// The property being generated (`attrs.href`), empty for a node.
    prop: String,
    /// Inside a code block (text is code).
    code: bool,
}

fn ref_name(s: &Value) -> Option<&str> {
    s.get("$ref")?.as_str()?.strip_prefix("#/definitions/")
}

fn required(s: &Value) -> Vec<&str> {
    s.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn min_items(s: &Value) -> usize {
    s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize
}

/// A schema with its `allOf` merged into one: properties of every part, an array property's `items` from
/// the part that says most (the later part narrows the earlier: `marks` of `paragraph_with_alignment_node`),
/// `minItems` the largest, `maxItems` the smallest, `required` the union, `additionalProperties` false if
/// any part says so.
fn flatten(defs: &Map<String, Value>, s: &Value) -> Value {
    let Some(parts) = s.get("allOf").and_then(Value::as_array) else {
        return s.clone();
    };
    let mut merged = Map::new();
    let mut props = Map::new();
    let mut required = BTreeSet::new();
    let mut closed = false;
    // A part closed by `additionalProperties: false` forbids what it does not declare, whatever the other
    // parts declare (`marks` on `nestedExpand_with_no_marks_node`).
    let mut allowed: Option<BTreeSet<String>> = None;
    for part in parts {
        let part = match ref_name(part) {
            Some(name) => flatten(defs, &defs[name]),
            None => flatten(defs, part),
        };
        if part.get("additionalProperties") == Some(&Value::Bool(false)) {
            let declared: BTreeSet<String> = part["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k.clone())
                .collect();
            allowed = Some(match allowed {
                Some(a) => a.intersection(&declared).cloned().collect(),
                None => declared,
            });
        }
        for (k, v) in part.as_object().expect("an allOf part is an object") {
            match k.as_str() {
                "properties" => {
                    for (name, sub) in v.as_object().expect("properties") {
                        let joined = match props.remove(name) {
                            Some(old) => merge_property(&old, sub),
                            None => sub.clone(),
                        };
                        props.insert(name.clone(), joined);
                    }
                }
                "required" => required.extend(
                    v.as_array()
                        .expect("required")
                        .iter()
                        .map(|r| r.as_str().unwrap().to_string()),
                ),
                "additionalProperties" => closed |= v == &Value::Bool(false),
                _ => drop(merged.insert(k.clone(), v.clone())),
            }
        }
    }
    if let Some(allowed) = allowed {
        props.retain(|k, _| allowed.contains(k));
    }
    merged.insert("properties".into(), Value::Object(props));
    merged.insert(
        "required".into(),
        required.into_iter().map(Value::String).collect(),
    );
    merged.insert("additionalProperties".into(), Value::Bool(!closed));
    Value::Object(merged)
}

fn merge_property(old: &Value, new: &Value) -> Value {
    let mut out = old.as_object().cloned().unwrap_or_default();
    for (k, v) in new.as_object().into_iter().flatten() {
        let joined = match (k.as_str(), out.get(k)) {
            ("minItems", Some(o)) => json!(o.as_u64().max(v.as_u64())),
            ("maxItems", Some(o)) => json!(o.as_u64().min(v.as_u64())),
            _ => v.clone(),
        };
        out.insert(k.clone(), joined);
    }
    Value::Object(out)
}

/// Adjacent text nodes with the same marks become one (ProseMirror does so; such a pair has no distinct
/// Markdown, and no real document holds one). Empty `marks` count as no marks only when both have none.
fn normalize(v: &mut Value) {
    let Some(content) = v.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    let mut out: Vec<Value> = Vec::with_capacity(content.len());
    for mut node in content.drain(..) {
        normalize(&mut node);
        if let Some(prev) = out.last_mut() {
            if prev["type"] == "text"
                && node["type"] == "text"
                && prev.get("marks") == node.get("marks")
            {
                let joined = format!(
                    "{}{}",
                    prev["text"].as_str().unwrap(),
                    node["text"].as_str().unwrap()
                );
                prev["text"] = Value::String(joined);
                continue;
            }
        }
        out.push(node);
    }
    *content = out;
}

/// How many documents the property tests generate (`MCP_TEXT_CASES` overrides).
pub fn cases(default: u64) -> u64 {
    std::env::var("MCP_TEXT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The seeds of the ADF property tests: `cases(default)` of them from `MCP_TEXT_FIRST` (0), so that one
/// failing seed of a long run can be run alone (`MCP_TEXT_FIRST=12597 MCP_TEXT_CASES=1`).
pub fn seeds(default: u64) -> std::ops::Range<u64> {
    let first = std::env::var("MCP_TEXT_FIRST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    first..first + cases(default)
}

/// Every node and mark type occurring in `v`, and its greatest node depth.
pub fn census(v: &Value, depth: usize, types: &mut BTreeSet<String>, max_depth: &mut usize) {
    *max_depth = (*max_depth).max(depth);
    if let Some(t) = v["type"].as_str() {
        types.insert(t.to_string());
    }
    for mark in v["marks"].as_array().into_iter().flatten() {
        types.insert(format!("mark:{}", mark["type"].as_str().unwrap_or("?")));
    }
    for child in v["content"].as_array().into_iter().flatten() {
        census(child, depth + 1, types, max_depth);
    }
}

/// Definitions reachable from `doc_node` by `$ref`.
fn reachable(schema: &Schema) -> BTreeSet<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>, defs: &Value) {
        match v {
            Value::Object(m) => {
                if let Some(name) = ref_name(v) {
                    if out.insert(name.to_string()) {
                        walk(&defs[name], out, defs);
                    }
                }
                m.values().for_each(|c| walk(c, out, defs));
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, out, defs)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(&schema.json, &mut out, &schema.json["definitions"]);
    out
}

pub const GEN_CASES: u64 = 300;

/// The generator's own test: every document it makes is valid, and together they use every definition the
/// schema reaches from `doc_node`, every node and mark type, and nest deep.
#[test]
fn generated_documents_are_valid_and_cover_the_schema() {
    let Some(schema) = schema() else { return };
    let mut gen = Gen::new(schema, 0);
    let mut types = BTreeSet::new();
    let mut deepest = 0;
    let mut nodes = 0usize;
    for seed in 0..cases(GEN_CASES) {
        gen.reseed(seed);
        let doc = gen.doc();
        if let Err(report) = schema.check(&doc) {
            panic!(
                "seed {seed}: the generator made an invalid document:\n{report}{}",
                crate::schema::short(&doc.to_string(), 4000)
            );
        }
        let mut depth = 0;
        census(&doc, 0, &mut types, &mut depth);
        deepest = deepest.max(depth);
        nodes += doc.to_string().matches("\"type\"").count();
    }
    let unreached: Vec<_> = reachable(schema).difference(&gen.seen).cloned().collect();
    assert!(
        unreached.is_empty(),
        "definitions the generator never produced: {unreached:?}"
    );
    let all_types: BTreeSet<String> = schema.json["definitions"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(name, def)| {
            let t = def["properties"]["type"]["enum"][0].as_str()?;
            Some(if name.ends_with("_mark") {
                format!("mark:{t}")
            } else {
                t.to_string()
            })
        })
        .collect();
    let missing: Vec<_> = all_types.difference(&types).collect();
    assert!(
        missing.is_empty(),
        "node and mark types no generated document holds: {missing:?}"
    );
    assert!(
        deepest >= 10,
        "the deepest generated document nests only {deepest} nodes"
    );
    eprintln!(
        "{} documents, {nodes} nodes and marks, {} types, deepest {deepest}",
        cases(GEN_CASES),
        types.len()
    );
}

#[test]
fn a_seed_makes_the_same_document() {
    let Some(schema) = schema() else { return };
    let a = Gen::new(schema, 7).doc();
    let b = Gen::new(schema, 7).doc();
    let c = Gen::new(schema, 8).doc();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

/// JSON with every non-ASCII character as `\u` escapes (surrogate pairs beyond the BMP).
pub fn ascii_only(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}
