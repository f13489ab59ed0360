//! An upstream's `richText` across the hop: the Markdown a model sends in the arguments it names becomes
//! ADF or storage format before the call goes upstream, and the ADF, storage or HTML fields of the
//! result (`structuredContent`, and the JSON of text blocks) become Markdown before the caller sees it.
//!
//! An OpenAPI upstream's bridge converts its own calls (its `BridgeConfig` has the rules), so only the
//! other kinds convert here; both go through `mcp_openapi::rich_text`, which applies
//! `mcp_text::fields`.

use crate::config::Transport;
use crate::upstream::Upstream;
use mcp_openapi::rich_text::{self as convert, RichText};
use mcp_runtime::protocol::{CallToolResult, RawCallToolResult};
use mcp_runtime::server::Arguments;
use mcp_text::fields::Report;

/// The rules the gateway applies for `upstream`: `None` when it has none or its bridge applies them.
pub fn rules(upstream: &Upstream) -> Option<&RichText> {
    let rt = &upstream.config.rich_text;
    (!rt.is_empty() && !matches!(upstream.config.transport, Transport::OpenApi { .. }))
        .then_some(rt)
}

/// A call's arguments with their Markdown converted, and what was read leniently; or the `isError`
/// result the call ends with (a field that is not text).
pub fn arguments(rt: &RichText, args: Arguments) -> Result<(Arguments, Report), CallToolResult> {
    if rt.arguments.is_empty() {
        return Ok((args, Report::default()));
    }
    // Arguments that are not an object go upstream as they came: the upstream says what is wrong.
    let Ok(mut map) = args.parse::<serde_json::Map<String, serde_json::Value>>() else {
        return Ok((args, Report::default()));
    };
    let report = convert::arguments_from_markdown(&mut map, &rt.arguments)
        .map_err(|e| convert::argument_error(&e))?;
    if report.converted.is_empty() {
        return Ok((args, report));
    }
    Ok((
        Arguments::from_value(serde_json::Value::Object(map)),
        report,
    ))
}

/// A typed result with its rich-text fields as Markdown (and a note of what the arguments' Markdown
/// lost, if anything).
pub fn result(rt: &RichText, mut r: CallToolResult, sent: &Report) -> CallToolResult {
    let report = convert::result_to_markdown(&mut r, &rt.results);
    for f in &report.failed {
        tracing::debug!("rich text left as it was: {f}");
    }
    convert::note_warnings(&mut r, sent);
    r
}

/// A result kept as JSON text, converted the same way. Decoded only when there are result rules (or
/// warnings to add); a result that cannot be decoded passes as it came.
pub fn raw_result(rt: &RichText, r: RawCallToolResult, sent: &Report) -> RawCallToolResult {
    if (rt.results.is_empty() && sent.warnings.is_empty()) || r.is_error() {
        return r;
    }
    let Ok(typed) = r.to_result() else { return r };
    RawCallToolResult::from_result(&result(rt, typed, sent)).unwrap_or(r)
}
