//! What a tool set costs in the model's prompt, and the noise it carries.

use mcp_runtime::protocol::Tool;
use mcp_runtime::schema::STANDARD_FORMATS;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The formats OpenAPI adds to JSON Schema's ([`STANDARD_FORMATS`]); the audit lets them pass.
const OPENAPI_FORMATS: &[&str] = &[
    "int32", "int64", "float", "double", "byte", "binary", "password",
];

/// Noise found in one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Noise {
    /// `title` keywords inside the schemas (the tool's own title is not counted).
    pub titles: usize,
    /// `$schema` keywords inside the schemas.
    pub schema_keywords: usize,
    /// `$ref`s that point nowhere in the tool.
    pub unresolved_refs: usize,
    /// `format` values that neither JSON Schema nor OpenAPI define, as found.
    pub nonstandard_formats: Vec<String>,
    /// Descriptions that are empty or only whitespace (the tool's own included).
    pub empty_descriptions: usize,
    /// Descriptions that repeat another tool's description, or a property's that repeats its tool's.
    pub duplicated_descriptions: usize,
    /// Bytes spent on the titles and `$schema` keywords, which the model gains nothing from.
    pub noise_bytes: usize,
}

impl Noise {
    /// Whether the tool has no noise at all.
    pub fn is_empty(&self) -> bool {
        *self == Noise::default()
    }
}

/// What one tool costs in the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCost {
    /// The tool's name.
    pub name: String,
    /// The tool as sent in `tools/list`, compact JSON.
    pub bytes: usize,
    /// Estimated tokens: `bytes` divided by four, rounded up.
    pub tokens: usize,
    /// Noise found in its schemas.
    pub noise: Noise,
}

/// What a server's tools cost in the prompt, tool by tool and in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Each tool, in the order listed.
    pub tools: Vec<ToolCost>,
    /// Bytes of all the tools, as listed (compact JSON).
    pub bytes: usize,
    /// Estimated tokens of all the tools.
    pub tokens: usize,
}

/// Tokens estimated the usual way for English and JSON: one per four bytes, rounded up.
pub fn estimate_tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// Audits tools as listed: each tool's bytes, estimated tokens and noise (titles, `$schema`, unresolved
/// `$ref`s, odd formats, empty or repeated descriptions).
pub fn audit(tools: &[Tool]) -> Audit {
    let mut descriptions: BTreeMap<&str, usize> = BTreeMap::new();
    for t in tools {
        if let Some(d) = t
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            *descriptions.entry(d).or_default() += 1;
        }
    }
    let mut costs = Vec::new();
    for t in tools {
        let bytes = serde_json::to_string(t).map(|s| s.len()).unwrap_or(0);
        let mut noise = Noise::default();
        let description = t.description.as_deref().map(str::trim);
        match description {
            Some("") => noise.empty_descriptions += 1,
            Some(d) if descriptions.get(d).copied().unwrap_or(0) > 1 => {
                noise.duplicated_descriptions += 1
            }
            _ => {}
        }
        for (root, schema) in std::iter::once(&t.input_schema)
            .chain(t.output_schema.as_ref())
            .enumerate()
        {
            let doc = Value::Object(schema.clone());
            walk(&doc, &doc, root == 0, description, &mut noise);
        }
        costs.push(ToolCost {
            name: t.name.clone(),
            bytes,
            tokens: estimate_tokens(bytes),
            noise,
        });
    }
    let bytes = costs.iter().map(|c| c.bytes).sum();
    Audit {
        tools: costs,
        bytes,
        tokens: estimate_tokens(bytes),
    }
}

fn entry_bytes(key: &str, value: &Value) -> usize {
    // `"key":value,`
    key.len() + 4 + serde_json::to_string(value).map(|s| s.len()).unwrap_or(0)
}

fn walk(
    schema: &Value,
    doc: &Value,
    is_input: bool,
    tool_description: Option<&str>,
    noise: &mut Noise,
) {
    let Value::Object(o) = schema else { return };
    if let Some(title) = o.get("title") {
        noise.titles += 1;
        noise.noise_bytes += entry_bytes("title", title);
    }
    if let Some(s) = o.get("$schema") {
        noise.schema_keywords += 1;
        noise.noise_bytes += entry_bytes("$schema", s);
    }
    if let Some(r) = o.get("$ref") {
        if !resolves(r, doc) {
            noise.unresolved_refs += 1;
        }
    }
    if let Some(f) = o.get("format").and_then(Value::as_str) {
        if !STANDARD_FORMATS.contains(&f) && !OPENAPI_FORMATS.contains(&f) {
            noise.nonstandard_formats.push(f.to_string());
        }
    }
    if let Some(d) = o.get("description").and_then(Value::as_str).map(str::trim) {
        if d.is_empty() {
            noise.empty_descriptions += 1;
        } else if is_input && Some(d) == tool_description {
            noise.duplicated_descriptions += 1;
        }
    }
    for (key, value) in o {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(m) = value {
                    m.values()
                        .for_each(|v| walk(v, doc, is_input, tool_description, noise));
                }
            }
            "items" | "prefixItems" | "anyOf" | "oneOf" | "allOf" => match value {
                Value::Array(a) => a
                    .iter()
                    .for_each(|v| walk(v, doc, is_input, tool_description, noise)),
                v => walk(v, doc, is_input, tool_description, noise),
            },
            "additionalProperties"
            | "additionalItems"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems" => walk(value, doc, is_input, tool_description, noise),
            _ => {}
        }
    }
}

fn resolves(reference: &Value, doc: &Value) -> bool {
    let Some(r) = reference.as_str() else {
        return false;
    };
    match r.strip_prefix('#') {
        Some("") => true,
        Some(pointer) => doc.pointer(pointer).is_some(),
        None => false,
    }
}

impl Audit {
    /// A table: one row per tool, most expensive first, then the total.
    pub fn report(&self) -> String {
        let mut rows: Vec<&ToolCost> = self.tools.iter().collect();
        rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:width$}  {:>8}  {:>7}  noise",
            "tool", "bytes", "~tokens"
        );
        for r in &rows {
            let _ = writeln!(
                out,
                "{:width$}  {:>8}  {:>7}  {}",
                r.name,
                r.bytes,
                r.tokens,
                describe(&r.noise)
            );
        }
        let noise_bytes: usize = rows.iter().map(|r| r.noise.noise_bytes).sum();
        let _ = writeln!(
            out,
            "{:width$}  {:>8}  {:>7}  {} tools; {} bytes of titles and $schema",
            "total",
            self.bytes,
            self.tokens,
            rows.len(),
            noise_bytes
        );
        out
    }
}

/// How `audited` compares with `baseline` (named `name`): the tools, bytes and estimated tokens of each,
/// and how many fewer bytes and tokens the audited set costs (negative: more), as one line after a blank
/// one.
pub fn comparison(baseline: &Audit, audited: &Audit, name: &str) -> String {
    let fewer = |base: usize, now: usize| {
        if base == 0 {
            0.0
        } else {
            (base as f64 - now as f64) * 100.0 / base as f64
        }
    };
    format!(
        "\nagainst {name}: {} tools, {} bytes, ~{} tokens; these {} tools, {} bytes, ~{} tokens: \
         {:.1}% fewer bytes, {:.1}% fewer tokens\n",
        baseline.tools.len(),
        baseline.bytes,
        baseline.tokens,
        audited.tools.len(),
        audited.bytes,
        audited.tokens,
        fewer(baseline.bytes, audited.bytes),
        fewer(baseline.tokens, audited.tokens),
    )
}

/// What the prompt budget cut from each tool of an OpenAPI conversion: a line per cut, tools with cuts only,
/// then a total.
pub fn cuts_report(cuts: &[(String, Vec<mcp_openapi::Cut>)]) -> String {
    let mut out = String::new();
    let cut: Vec<&(String, Vec<mcp_openapi::Cut>)> =
        cuts.iter().filter(|(_, c)| !c.is_empty()).collect();
    if cut.is_empty() {
        let _ = writeln!(out, "\nnothing cut: every tool fits its budget in full");
        return out;
    }
    let _ = writeln!(out, "\ncut to fit the budget:");
    for (tool, list) in &cut {
        let _ = writeln!(out, "{tool}:");
        for c in list {
            let _ = writeln!(out, "  {c}");
        }
    }
    let total: usize = cut.iter().map(|(_, c)| c.len()).sum();
    let _ = writeln!(
        out,
        "{} of {} tools cut; {total} cuts",
        cut.len(),
        cuts.len()
    );
    out
}

fn describe(n: &Noise) -> String {
    let mut parts = Vec::new();
    let mut count = |k: usize, what: &str| {
        if k > 0 {
            parts.push(format!("{k} {what}"));
        }
    };
    count(n.titles, "titles");
    count(n.schema_keywords, "$schema");
    count(n.unresolved_refs, "unresolved $ref");
    count(n.empty_descriptions, "empty descriptions");
    count(n.duplicated_descriptions, "duplicated descriptions");
    if !n.nonstandard_formats.is_empty() {
        parts.push(format!("formats {}", n.nonstandard_formats.join(",")));
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str, schema: Value) -> Tool {
        Tool::new(name, description, schema.as_object().unwrap().clone())
    }

    #[test]
    fn counts_bytes_tokens_and_noise() {
        let tools = vec![
            tool(
                "a",
                "Same words",
                json!({
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "title": "AParams",
                    "properties": {
                        "title": {"type": "string", "description": ""},
                        "when": {"type": "string", "format": "timestamp"},
                        "link": {"$ref": "#/$defs/missing"},
                        "again": {"type": "string", "description": "Same words"}
                    }
                }),
            ),
            tool("b", "Same words", json!({"type": "object"})),
        ];
        let audit = audit(&tools);
        let a = &audit.tools[0].noise;
        assert_eq!(a.titles, 1, "a property named `title` is not a title");
        assert_eq!(a.schema_keywords, 1);
        assert_eq!(a.unresolved_refs, 1);
        assert_eq!(a.nonstandard_formats, ["timestamp"]);
        assert_eq!(a.empty_descriptions, 1);
        assert_eq!(a.duplicated_descriptions, 2);
        assert_eq!(
            audit.tools[0].bytes,
            serde_json::to_string(&tools[0]).unwrap().len()
        );
        assert_eq!(audit.bytes, audit.tools[0].bytes + audit.tools[1].bytes);
        assert_eq!(audit.tokens, audit.bytes.div_ceil(4));
        let report = audit.report();
        let one = super::audit(&tools[1..]);
        let line = comparison(&audit, &one, "all.json");
        let fewer = 100.0 * (audit.bytes - one.bytes) as f64 / audit.bytes as f64;
        assert!(line.contains(&format!("{fewer:.1}% fewer bytes")), "{line}");
        assert!(line.contains("against all.json: 2 tools"), "{line}");
        assert!(
            report.lines().last().unwrap().starts_with("total"),
            "{report}"
        );
    }
}
