//! Generation time for a synthetic snapshot of 1,000 varied tools (target: under 2 s).
//!
//! `cargo bench -p mcp-codegen --bench generate` prints the figures; `-- --tools N --runs R` changes the load.

use mcp_codegen::{generate, Options};
use mcp_runtime::protocol::Tool;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// One of ten shapes MCP servers really use, varied by `i` so that no two tools are the same.
fn tool(i: usize) -> Tool {
    let n = format!("field{i}");
    let (name, input, output): (String, Value, Option<Value>) = match i % 10 {
        0 => (
            format!("get-item-{i}"),
            json!({"type": "object", "properties": {"id": {"type": "string", "description": "The id"}, n.clone(): {"type": "integer"}}, "required": ["id"]}),
            None,
        ),
        1 => (
            format!("list.things_{i}"),
            json!({"type": "object", "properties": {"limit": {"type": "integer", "minimum": 0, "maximum": 100, "default": 10}, "cursor": {"type": ["string", "null"]}, "state": {"enum": ["open", "closed", format!("s{i}")]}}}),
            Some(
                json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, n.clone(): {"type": "number"}}, "required": ["id"]}}, "next": {"type": "string"}}, "required": ["items"]}),
            ),
        ),
        2 => (
            format!("create_issue{i}"),
            json!({
                "type": "object",
                "properties": {"issue": {"$ref": "#/$defs/Issue"}, "labels": {"type": "array", "items": {"$ref": "#/$defs/Label"}}},
                "required": ["issue"],
                "$defs": {
                    "Issue": {"type": "object", "title": "Issue", "properties": {"title": {"type": "string"}, "body": {"type": "string"}, "assignee": {"$ref": "#/$defs/User"}, n.clone(): {"type": "boolean"}}, "required": ["title"]},
                    "Label": {"type": "object", "properties": {"name": {"type": "string"}, "color": {"type": "string", "pattern": "^#[0-9a-f]{6}$"}}, "required": ["name"]},
                    "User": {"type": "object", "properties": {"login": {"type": "string"}, "id": {"type": "integer", "format": "int64"}}}
                }
            }),
            Some(
                json!({"type": "object", "properties": {"url": {"type": "string", "format": "uri"}, "number": {"type": "integer"}}, "required": ["url", "number"]}),
            ),
        ),
        3 => (
            format!("noArgs{i}"),
            json!({"type": "object", "properties": {}}),
            None,
        ),
        4 => (
            format!("search-{i}"),
            json!({"type": "object", "properties": {"query": {"type": "string"}, "filter": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"field": {"type": "string"}, "value": {}}}]}, "sort": {"oneOf": [{"const": "asc"}, {"const": "desc"}]}}, "required": ["query"]}),
            None,
        ),
        5 => (
            format!("move_{i}"),
            json!({"type": "object", "properties": {"from": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}, "to": {"$ref": "#/properties/from"}, "when": {"type": "string", "format": "date-time"}}}),
            None,
        ),
        6 => (
            format!("tree{i}"),
            json!({"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}, n.clone(): {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["name"]}),
            None,
        ),
        7 => (
            format!("configure-{i}"),
            json!({"type": "object", "properties": {"settings": {"type": "object", "properties": {"retries": {"type": "integer", "minimum": 1}, "mode": {"type": "string", "enum": ["fast", "safe"]}, "nested": {"type": "object", "properties": {"deep": {"type": "object", "properties": {n.clone(): {"type": "string"}}}}}}}}}),
            Some(
                json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
            ),
        ),
        8 => (
            format!("type{i}"),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"self": {"type": "string"}, "r#async": {"type": "boolean"}, "kind": {"const": "k"}}, "additionalProperties": false}),
            None,
        ),
        _ => (
            format!("broken-{i}"),
            json!({"type": "object", "properties": {"fine": {"type": "string"}, "rule": {"if": {"type": "string"}, "then": {"minLength": 1}}, "mixed": {"enum": [1, "a", {"b": 2}]}}}),
            None,
        ),
    };
    let mut t = Tool::new(
        name,
        format!("Synthetic tool number {i}.\nSecond line of its description."),
        input.as_object().cloned().unwrap_or_default(),
    );
    t.output_schema = output.and_then(|o| o.as_object().cloned());
    t
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut count, mut runs) = (1000usize, 5usize);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--tools" => count = args.next().and_then(|v| v.parse().ok()).unwrap_or(count),
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).unwrap_or(runs),
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    let tools: Vec<Tool> = (0..count).map(tool).collect();
    let options = Options::default();
    let mut times: Vec<Duration> = Vec::new();
    let mut first: Option<String> = None;
    let mut warnings = 0;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let generated = generate(&tools, &options);
        times.push(start.elapsed());
        warnings = generated.warnings.len();
        match &first {
            None => first = Some(generated.code),
            Some(f) => assert_eq!(f, &generated.code, "two runs gave different bytes"),
        }
    }
    times.sort();
    let code = first.unwrap_or_default();
    let median = times[times.len() / 2];
    println!("mcp-codegen generate: {count} tools, {runs} runs");
    println!("  min    {:>8.1} ms", times[0].as_secs_f64() * 1e3);
    println!(
        "  median {:>8.1} ms  ({:.1} µs per tool)",
        median.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e6 / count as f64
    );
    println!(
        "  max    {:>8.1} ms",
        times[times.len() - 1].as_secs_f64() * 1e3
    );
    println!(
        "  output {} bytes, {} lines; {warnings} schemas became serde_json::Value",
        code.len(),
        code.lines().count()
    );
    let target = Duration::from_secs(2);
    println!(
        "  target < {:?}: {}",
        target,
        if median < target { "met" } else { "MISSED" }
    );
}
