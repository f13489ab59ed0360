//! Rich text across a tool call, by configuration: the ADF, storage or HTML fields of a result become
//! Markdown for the model, and the Markdown a model sends in an argument becomes what the API wants.
//! The fields are named by [`mcp_text::fields::Rules`]; this module applies them to MCP's shapes (a
//! result's `structuredContent` and the JSON in its text blocks, a call's arguments). The bridge uses it
//! for its API's answers, and the gateway for the tools of every other kind of upstream.

use mcp_runtime::protocol::{CallToolResult, ContentBlock};
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
