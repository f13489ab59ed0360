//! Rich text across a tool call, by configuration: the ADF, storage or HTML fields of a result become
//! Markdown for the model, and the Markdown a model sends in an argument becomes what the API wants.
//! The fields are named by [`mcp_text::fields::Rules`]; this module applies them to MCP's shapes (a
//! result's `structuredContent` and the JSON in its text blocks, a call's arguments). The bridge uses it
//! for its API's answers, and the gateway for the tools of every other kind of upstream.

use mcp_runtime::protocol::{CallToolResult, ContentBlock, Tool};
use mcp_text::fields::{self, FieldIssue, Report};
use serde_json::{Map, Value};

pub use mcp_text::fields::{FieldFormat, RichText, Rules};

/// Converts the fields `rules` name in a result's `structuredContent` and in each text block that holds
/// a JSON object or array (a structured result's text copy among them) to Markdown. Fields that cannot be
/// read stay as they were ([`Report::failed`]). An error result is left alone.
pub fn result_to_markdown(result: &mut CallToolResult, rules: &Rules) -> Report {
    let mut report = Report::default();
    if rules.is_empty() || result.is_error() {
        return report;
    }
    let options = mcp_text::Options::default();
    if let Some(v) = &mut result.structured_content {
        merge(&mut report, fields::to_markdown(v, rules, &options));
    }
    for block in &mut result.content {
        let ContentBlock::Text { text, .. } = block else {
            continue;
        };
        if !matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'[')) {
            continue;
        }
        let Ok(mut v) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        let r = fields::to_markdown(&mut v, rules, &options);
        match v {
            // The whole text was a document (`**` reached the root): the text is its Markdown.
            Value::String(markdown) => *text = markdown,
            v if !r.converted.is_empty() => *text = v.to_string(),
            _ => {}
        }
        // The text copy of `structuredContent` reports the same fields again: count them once.
        if result.structured_content.is_none() {
            merge(&mut report, r);
        }
    }
    report
}

/// Converts the Markdown at the argument fields `rules` name into the format each rule says, before
/// the call goes out. A field that cannot be converted is an error naming it (the call must not reach
/// the API with Markdown where it wants ADF).
pub fn arguments_from_markdown(
    arguments: &mut Map<String, Value>,
    rules: &Rules,
) -> Result<Report, FieldIssue> {
    if rules.is_empty() {
        return Ok(Report::default());
    }
    let mut v = Value::Object(std::mem::take(arguments));
    let r = fields::from_markdown(&mut v, rules);
    if let Value::Object(o) = v {
        *arguments = o;
    }
    r
}

/// The message of an argument that could not be converted, as the model sees it.
pub fn argument_error(e: &FieldIssue) -> CallToolResult {
    CallToolResult::error(format!(
        "argument `{}` holds Markdown the API's format could not take: {}",
        e.path, e.message
    ))
}

/// Adds a text block saying what the Markdown readers read leniently in the call's arguments (a marker
/// the model mangled loses that node's extra attributes, and the model should know).
pub fn note_warnings(result: &mut CallToolResult, arguments: &Report) {
    if arguments.warnings.is_empty() || result.is_error() {
        return;
    }
    let lines: Vec<String> = arguments
        .warnings
        .iter()
        .map(|w| format!("- {w}"))
        .collect();
    result.content.push(ContentBlock::text(format!(
        "The Markdown sent was read leniently:\n{}",
        lines.join("\n")
    )));
}

/// A tool as the model sees it under `rt`: its description says which arguments take Markdown (those
/// whose first name is one of its arguments, or a wildcard), and its output schema is dropped unless
/// every result rule is a plain path through parts of the schema that admit a string (an open object,
/// `additionalProperties: {}`). A client that checks `structuredContent` against the schema would
/// otherwise refuse Markdown where the schema says ADF; no schema is a valid answer for any result.
pub fn describe(tool: &mut Tool, rt: &RichText) {
    let arguments: Vec<String> = rt
        .arguments
        .iter()
        .filter(|(path, _)| {
            let (first, rest) = path.split_once('.').unwrap_or((path, ""));
            let argument = tool
                .input_schema
                .get("properties")
                .and_then(|p| p.get(first));
            // `fields.description` is not about a `fields` argument that is a list of names.
            let holds_members = |s: &Value| match s.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => true,
            };
            matches!(first, "*" | "**")
                || argument.is_some_and(|a| rest.is_empty() || holds_members(a))
        })
        .map(|(path, format)| format!("`{path}` ({format})"))
        .collect();
    if !arguments.is_empty() {
        let note = format!(
            "Rich text: send {} as Markdown; it is converted for the API.",
            arguments.join(", ")
        );
        tool.description = Some(match tool.description.take() {
            Some(d) if !d.is_empty() => format!("{d}\n\n{note}"),
            _ => note,
        });
    }
    if let Some(schema) = &tool.output_schema {
        let root = Value::Object(schema.clone());
        let fits = rt.results.iter().all(|(path, format)| {
            format != FieldFormat::Auto && admits_a_string(&root, &root, &mut path.split('.'))
        });
        if !fits {
            tool.output_schema = None;
        }
    }
}

/// Whether whatever stands at `path` under `schema` may be a string (read only; `$ref`s into the root's
/// `$defs` followed). `false` where it cannot tell (a wildcard, a union, a ref elsewhere).
fn admits_a_string<'a>(
    root: &Value,
    schema: &Value,
    path: &mut impl Iterator<Item = &'a str>,
) -> bool {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => match r
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs")?.get(name))
        {
            Some(target) => target,
            None => return false,
        },
        None => schema,
    };
    let open = |s: &Value| {
        s.as_bool() == Some(true)
            || s.as_object().is_some_and(|o| {
                o.keys()
                    .all(|k| matches!(k.as_str(), "description" | "title" | "readOnly" | "default"))
            })
    };
    if open(schema) {
        return true;
    }
    let Some(name) = path.next() else {
        // The field itself: it must already admit a string.
        return match schema.get("type") {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
            _ => false,
        };
    };
    if matches!(name, "*" | "**") {
        return false;
    }
    match schema.get("properties").and_then(|p| p.get(name)) {
        Some(child) => admits_a_string(root, child, path),
        None => match schema.get("additionalProperties") {
            // Not a member this schema knows, and no others allowed: the rule never matches here.
            Some(Value::Bool(false)) => true,
            Some(child) => admits_a_string(root, child, path),
            None => true,
        },
    }
}

fn merge(into: &mut Report, r: Report) {
    into.converted.extend(r.converted);
    into.warnings.extend(r.warnings);
    into.failed.extend(r.failed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_results_and_plain_text_are_left_alone() {
        let rules = Rules::new().with("**", FieldFormat::Auto).unwrap();
        let mut r = CallToolResult::error(r#"{"type":"doc","version":1,"content":[]}"#);
        let before = r.clone();
        assert!(result_to_markdown(&mut r, &rules).converted.is_empty());
        assert_eq!(r, before);
        let mut r = CallToolResult::text("no JSON here");
        result_to_markdown(&mut r, &rules);
        assert_eq!(r.text_content(), "no JSON here");
    }

    #[test]
    fn tools_say_which_arguments_take_markdown_and_keep_output_schemas_that_admit_it() {
        let tool = |output: Value| {
            let mut t = Tool::new(
                "editIssue",
                "Edits an issue.",
                json!({"type": "object", "properties": {"fields": {"type": "object"}, "key": {"type": "string"}}})
                    .as_object()
                    .cloned()
                    .unwrap(),
            );
            t.output_schema = output.as_object().cloned();
            t
        };
        let rt = |results: &[(&str, FieldFormat)]| RichText {
            results: results
                .iter()
                .fold(Rules::new(), |r, (p, f)| r.with(p, *f).unwrap()),
            arguments: Rules::new()
                .with("fields.description", FieldFormat::Adf)
                .unwrap()
                .with("body", FieldFormat::Storage)
                .unwrap(),
        };
        let issue = json!({"type": "object", "additionalProperties": false, "properties": {
            "fields": {"$ref": "#/$defs/Fields"}, "id": {"type": "string"}},
            "$defs": {"Fields": {"type": "object", "additionalProperties": {}}}});
        let mut t = tool(issue.clone());
        describe(&mut t, &rt(&[("fields.description", FieldFormat::Adf)]));
        assert_eq!(
            t.description.as_deref(),
            Some("Edits an issue.\n\nRich text: send `fields.description` (adf) as Markdown; it is converted for the API.")
        );
        assert!(
            t.output_schema.is_some(),
            "an open object admits the Markdown"
        );
        // `auto`, a wildcard, or a field the schema types as an object: the schema would refuse Markdown.
        for results in [
            vec![("**", FieldFormat::Auto)],
            vec![("fields.*", FieldFormat::Adf)],
        ] {
            let mut t = tool(issue.clone());
            describe(&mut t, &rt(&results));
            assert!(t.output_schema.is_none(), "{results:?}");
        }
        // A `fields` argument that is a list of names takes no `fields.description`.
        let mut t = tool(json!({}));
        t.input_schema = json!({"type": "object", "properties": {"fields": {"type": "array"}}})
            .as_object()
            .cloned()
            .unwrap();
        describe(&mut t, &rt(&[]));
        assert_eq!(t.description.as_deref(), Some("Edits an issue."));
        let mut t = tool(json!({"type": "object", "properties": {"doc": {"type": "object"}}}));
        describe(&mut t, &rt(&[("doc", FieldFormat::Adf)]));
        assert!(t.output_schema.is_none());
    }

    #[test]
    fn an_argument_that_is_not_text_is_an_error_naming_it() {
        let rules = Rules::new()
            .with("fields.description", FieldFormat::Adf)
            .unwrap();
        let mut args = json!({"fields": {"description": 3}, "key": "K-1"})
            .as_object()
            .cloned()
            .unwrap();
        let e = arguments_from_markdown(&mut args, &rules).unwrap_err();
        assert_eq!(e.path, "fields.description");
        assert!(argument_error(&e)
            .text_content()
            .contains("`fields.description`"));
        // The other arguments are still there.
        assert_eq!(args["key"], "K-1");
    }
}
