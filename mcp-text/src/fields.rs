//! The rich-text fields of a JSON value, converted in place: an API's answer with its ADF, storage or
//! HTML fields as Markdown for a model to read, and the Markdown a model sends in an argument back into
//! the format the API wants. The OpenAPI bridge and the gateway both convert through this one mechanism.
//!
//! [`Rules`] say which fields hold which format. A rule's path is dot-separated member names (an array
//! item by its index), where `*` is any one member or item and `**` any number of them (none included):
//! `fields.description`, `fields.comment.comments.*.body`, `body.storage.value`, `renderedFields.*`.
//! The format `auto` converts every ADF document (`{"type": "doc", "version": 1, ...}`) at or anywhere
//! beneath its path, so `{"**": "auto"}` finds them wherever they are.
//!
//! ```
//! use mcp_text::fields::{self, FieldFormat, Rules};
//! let rules = Rules::new()
//!     .with("fields.description", FieldFormat::Adf).unwrap()
//!     .with("renderedFields.*", FieldFormat::Html).unwrap();
//! let mut issue = serde_json::json!({"fields": {"description":
//!     {"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Hi"}]}]}}});
//! let report = fields::to_markdown(&mut issue, &rules, &mcp_text::Options::default());
//! assert_eq!(issue["fields"]["description"], "Hi\n");
//! assert_eq!(report.converted, ["fields.description"]);
//! // And back: the Markdown a model sends becomes ADF again.
//! fields::from_markdown(&mut issue, &rules).unwrap();
//! assert_eq!(issue["fields"]["description"]["type"], "doc");
//! ```
//!
//! The work is bounded: the walk descends only where a rule's path can still match (or beneath an
//! `auto` rule), visits each value once whatever the number of rules, stops at [`MAX_DEPTH`], and each
//! conversion is linear in its field.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;
use serde_json::Value;

use crate::{adf, Format, Node, Options};

/// Values nested deeper than this are not searched (serde_json's parser stops at 128 anyway).
pub const MAX_DEPTH: usize = 256;

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldFormat {
    /// An ADF document: a JSON object (or a string holding one, as Confluence's `atlas_doc_format`).
    Adf,
    /// Confluence storage format: a string of XHTML.
    Storage,
    /// HTML: a string (read only: a result's field, never an argument's).
    Html,
    /// Every ADF document at or beneath the path (read only).
    Auto,
}

impl FieldFormat {
    /// Its name in a configuration.
    pub fn name(self) -> &'static str {
        match self {
            FieldFormat::Adf => "adf",
            FieldFormat::Storage => "storage",
            FieldFormat::Html => "html",
            FieldFormat::Auto => "auto",
        }
    }

    /// Whether Markdown can be written back into this format (an argument's rule needs it).
    pub fn is_writable(self) -> bool {
        matches!(self, FieldFormat::Adf | FieldFormat::Storage)
    }
}

impl FromStr for FieldFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "adf" => Ok(FieldFormat::Adf),
            "storage" => Ok(FieldFormat::Storage),
            "html" => Ok(FieldFormat::Html),
            "auto" => Ok(FieldFormat::Auto),
            other => Err(format!(
                "`{other}` is not a rich-text format (\"adf\", \"storage\", \"html\", \"auto\")"
            )),
        }
    }
}

impl fmt::Display for FieldFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One step of a rule's path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// A member of that name (or the array item of that index).
    Name(Box<str>),
    /// `*`: any one member or item.
    Any,
    /// `**`: any number of members or items, none included.
    AnyDepth,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    path: Box<str>,
    segments: Vec<Segment>,
    format: FieldFormat,
}

impl Rule {
    /// Fewer wildcards is more specific: it wins where two rules of different formats match one field.
    fn wildcards(&self) -> usize {
        self.segments
            .iter()
            .filter(|s| !matches!(s, Segment::Name(_)))
            .count()
    }
}

/// Which fields hold which format (see the [module docs](self)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    rules: Vec<Rule>,
}

/// A rule that could not be read: its path, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.path, self.message)
    }
}

impl std::error::Error for RuleError {}

impl Rules {
    /// No rules: nothing is converted.
    pub fn new() -> Rules {
        Rules::default()
    }

    /// These rules and one more (see [`Rules::add`]).
    pub fn with(mut self, path: &str, format: FieldFormat) -> Result<Rules, RuleError> {
        self.add(path, format)?;
        Ok(self)
    }

    /// Adds a rule: the fields at `path` hold `format`. A path is dot-separated names, `*` and `**`;
    /// an empty path, an empty name (`a..b`) or a wildcard inside a name (`a*`) is refused.
    pub fn add(&mut self, path: &str, format: FieldFormat) -> Result<(), RuleError> {
        let fail = |message: &str| {
            Err(RuleError {
                path: path.to_string(),
                message: message.to_string(),
            })
        };
        if path.is_empty() {
            return fail("is empty (`**` is every field, `*` every top-level member)");
        }
        let mut segments = Vec::new();
        for name in path.split('.') {
            segments.push(match name {
                "" => return fail("has an empty name (two dots, or a dot at an end)"),
                "*" => Segment::Any,
                "**" => Segment::AnyDepth,
                n if n.contains('*') => return fail("`*` and `**` stand alone between dots"),
                n => Segment::Name(n.into()),
            });
        }
        if self.rules.iter().any(|r| &*r.path == path) {
            return fail("is given twice");
        }
        self.rules.push(Rule {
            path: path.into(),
            segments,
            format,
        });
        Ok(())
    }

    /// Reads rules from `(path, format name)` pairs, as a configuration gives them.
    pub fn parse<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Rules, RuleError> {
        let mut rules = Rules::new();
        for (path, format) in pairs {
            let format = format.parse().map_err(|message| RuleError {
                path: path.to_string(),
                message,
            })?;
            rules.add(path, format)?;
        }
        Ok(rules)
    }

    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules, as `(path, format)`, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&str, FieldFormat)> {
        self.rules.iter().map(|r| (&*r.path, r.format))
    }

    /// Refuses a rule whose format Markdown cannot be written back into (`html`, `auto`): rules for
    /// arguments must say what the API wants.
    pub fn check_writable(&self) -> Result<(), RuleError> {
        match self.rules.iter().find(|r| !r.format.is_writable()) {
            Some(r) => Err(RuleError {
                path: r.path.to_string(),
                message: format!(
                    "`{}` is read only: an argument's Markdown can become \"adf\" or \"storage\"",
                    r.format
                ),
            }),
            None => Ok(()),
        }
    }
}

/// The rules of both directions: for an API's results, and for the arguments a model sends it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RichText {
    /// Fields of results converted to Markdown.
    pub results: Rules,
    /// Fields of arguments converted from Markdown (every rule writable).
    pub arguments: Rules,
}

impl RichText {
    /// Whether nothing is converted either way.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty() && self.arguments.is_empty()
    }
}

/// A field at a place: a warning, a field left as it was, or the reason a conversion failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldIssue {
    /// Where, as a rule would name it (`fields.comment.comments.2.body`).
    pub path: String,
    pub message: String,
}

impl fmt::Display for FieldIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: {}", self.path, self.message)
    }
}

impl std::error::Error for FieldIssue {}

/// What a conversion did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The fields converted, by path, in document order.
    pub converted: Vec<String>,
    /// What the readers read leniently (a marker the model mangled), by field.
    pub warnings: Vec<FieldIssue>,
    /// Fields a rule named that could not be read, left as they were (results only).
    pub failed: Vec<FieldIssue>,
}

/// Replaces each field the rules name with its Markdown. A field that cannot be read (an object that is
/// not ADF, broken XHTML) stays as it was and is reported in [`Report::failed`]: a result is never lost
/// because one of its fields is odd. A field that is already a string where ADF was expected, or `null`,
/// is left alone.
pub fn to_markdown(value: &mut Value, rules: &Rules, options: &Options) -> Report {
    let mut report = Report::default();
    if rules.is_empty() {
        return report;
    }
    walk(value, rules, &mut |path, field, format| {
        match field_to_markdown(field, format, options) {
            Ok(None) => {}
            Ok(Some((markdown, warnings))) => {
                *field = Value::String(markdown);
                report
                    .warnings
                    .extend(warnings.into_iter().map(|w| issue(path, w.to_string())));
                report.converted.push(path.to_string());
            }
            Err(message) => report.failed.push(issue(path, message)),
        }
        Ok(())
    })
    .unwrap_or_else(|_: FieldIssue| unreachable!("the result visitor never stops"));
    report
}

/// Replaces each Markdown string at a field the rules name with the format the rule says (an ADF object,
/// a storage string). A field that is not a string (ADF the caller already built, `null`) is left alone.
/// A rule of a read-only format (`html`, `auto`) that matches, or a field of another type, is an error
/// naming the field; `value` is then partly converted, and the caller drops it.
pub fn from_markdown(value: &mut Value, rules: &Rules) -> Result<Report, FieldIssue> {
    let mut report = Report::default();
    if rules.is_empty() {
        return Ok(report);
    }
    walk(value, rules, &mut |path, field, format| {
        let Value::String(markdown) = field else {
            return match field {
                Value::Object(_) | Value::Null => Ok(()),
                other => Err(issue(
                    path,
                    format!("expected Markdown text, found {}", kind(other)),
                )),
            };
        };
        let read = crate::read(markdown.as_bytes(), Format::Markdown)
            .map_err(|e| issue(path, e.to_string()))?;
        // ADF must be valid against its schema; storage holds whatever the Markdown nests.
        let read = if format == FieldFormat::Adf {
            adf::repair(read)
        } else {
            read
        };
        report
            .warnings
            .extend(read.warnings.iter().map(|w| issue(path, w.to_string())));
        *field = match format {
            FieldFormat::Adf => adf::to_value(&read.doc),
            FieldFormat::Storage => Value::String(
                crate::write(&read.doc, Format::Storage, &Options::default())
                    .map_err(|e| issue(path, e.to_string()))?,
            ),
            FieldFormat::Html | FieldFormat::Auto => {
                return Err(issue(
                    path,
                    format!("`{format}` is read only: Markdown cannot be written back into it"),
                ))
            }
        };
        report.converted.push(path.to_string());
        Ok(())
    })?;
    Ok(report)
}

/// Whether `v` is an ADF document: `{"type": "doc", "version": <number>, ...}`.
pub fn is_adf_doc(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("doc")
        && v.get("version").is_some_and(Value::is_number)
}

/// One field's Markdown and warnings; `None` when there is nothing to convert.
type Converted = Option<(String, Vec<crate::Warning>)>;

fn field_to_markdown(
    field: &Value,
    format: FieldFormat,
    options: &Options,
) -> Result<Converted, String> {
    let doc_markdown = |doc: &Node, warnings| {
        crate::write(doc, Format::Markdown, options)
            .map(|md| Some((md, warnings)))
            .map_err(|e| e.to_string())
    };
    let from_text = |text: &str, from: Format| {
        let read = crate::read(text.as_bytes(), from).map_err(|e| e.to_string())?;
        doc_markdown(&read.doc, read.warnings)
    };
    match (format, field) {
        (_, Value::Null) => Ok(None),
        (FieldFormat::Adf | FieldFormat::Auto, Value::Object(_)) => {
            let doc = Node::deserialize(field).map_err(|e| format!("not ADF: {e}"))?;
            doc_markdown(&doc, Vec::new())
        }
        // ADF inside a string (Confluence's `atlas_doc_format` value); other text is Markdown already.
        (FieldFormat::Adf, Value::String(s)) if s.trim_start().starts_with('{') => {
            match serde_json::from_str::<Value>(s) {
                Ok(v) if is_adf_doc(&v) => from_text(s, Format::Adf),
                _ => Ok(None),
            }
        }
        (FieldFormat::Adf, Value::String(_)) => Ok(None),
        (FieldFormat::Storage, Value::String(s)) => from_text(s, Format::Storage),
        (FieldFormat::Html, Value::String(s)) => from_text(s, Format::Html),
        (format, other) => {
            Err(format!("expected {} , found {}", expected(format), kind(other)).replace(" ,", ","))
        }
    }
}

fn expected(format: FieldFormat) -> &'static str {
    match format {
        FieldFormat::Adf | FieldFormat::Auto => "ADF (an object)",
        FieldFormat::Storage => "storage format (a string)",
        FieldFormat::Html => "HTML (a string)",
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn issue(path: &str, message: impl Into<String>) -> FieldIssue {
    FieldIssue {
        path: path.to_string(),
        message: message.into(),
    }
}

/// Where a rule's path stands: the rule, and how many of its segments are matched.
type State = (usize, usize);

/// Calls `visit` on each field a rule names (the most specific rule's format; a field an `auto` rule
/// reaches only if it is an ADF document), in document order, without descending into a visited field.
/// `visit` may replace the field; an `Err` stops the walk.
fn walk<E>(
    value: &mut Value,
    rules: &Rules,
    visit: &mut dyn FnMut(&str, &mut Value, FieldFormat) -> Result<(), E>,
) -> Result<(), E> {
    let start: Vec<State> = closure(rules, (0..rules.rules.len()).map(|r| (r, 0)));
    let mut path = String::new();
    walk_at(value, rules, &start, false, &mut path, 0, visit)
}

/// `**` matches nothing too: a state before one also stands after it.
fn closure(rules: &Rules, states: impl Iterator<Item = State>) -> Vec<State> {
    let mut out: Vec<State> = Vec::new();
    for (r, mut p) in states {
        loop {
            if !out.contains(&(r, p)) {
                out.push((r, p));
            }
            match rules.rules[r].segments.get(p) {
                Some(Segment::AnyDepth) => p += 1,
                _ => break,
            }
        }
    }
    out
}

fn walk_at<E>(
    value: &mut Value,
    rules: &Rules,
    states: &[State],
    auto: bool,
    path: &mut String,
    depth: usize,
    visit: &mut dyn FnMut(&str, &mut Value, FieldFormat) -> Result<(), E>,
) -> Result<(), E> {
    let matched = states
        .iter()
        .filter(|&&(r, p)| p == rules.rules[r].segments.len())
        .map(|&(r, _)| &rules.rules[r]);
    let explicit = matched
        .clone()
        .filter(|r| r.format != FieldFormat::Auto)
        .min_by_key(|r| r.wildcards());
    if let Some(rule) = explicit {
        return visit(path, value, rule.format);
    }
    let auto = auto || matched.clone().any(|r| r.format == FieldFormat::Auto);
    if auto && is_adf_doc(value) {
        return visit(path, value, FieldFormat::Auto);
    }
    if depth >= MAX_DEPTH {
        return Ok(());
    }
    let step = |name: &str, index: Option<usize>| {
        let next = states
            .iter()
            .filter_map(|&(r, p)| match rules.rules[r].segments.get(p)? {
                Segment::Name(n) if **n == *name => Some((r, p + 1)),
                Segment::Name(n) if index.is_some_and(|i| n.parse() == Ok(i)) => Some((r, p + 1)),
                Segment::Name(_) => None,
                Segment::Any => Some((r, p + 1)),
                Segment::AnyDepth => Some((r, p)),
            });
        closure(rules, next)
    };
    let len = path.len();
    let mut enter = |path: &mut String, child: &mut Value, name: &str, next: Vec<State>| {
        if next.is_empty() && !auto {
            return Ok(());
        }
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
        let r = walk_at(child, rules, &next, auto, path, depth + 1, visit);
        path.truncate(len);
        r
    };
    match value {
        Value::Object(members) => {
            for (name, child) in members.iter_mut() {
                let next = step(name, None);
                enter(path, child, name, next)?;
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                let name = i.to_string();
                let next = step(&name, Some(i));
                enter(path, child, &name, next)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The fields the rules reach, with the format each gets (no conversion: the walk alone).
    fn reached(value: &Value, rules: &Rules) -> Vec<(String, FieldFormat)> {
        let mut out = Vec::new();
        let mut v = value.clone();
        walk(&mut v, rules, &mut |path, _, format| {
            out.push((path.to_string(), format));
            Ok::<(), ()>(())
        })
        .unwrap();
        out
    }

    fn rules(pairs: &[(&str, &str)]) -> Rules {
        Rules::parse(pairs.iter().copied()).unwrap()
    }

    fn doc() -> Value {
        json!({"type": "doc", "version": 1, "content": []})
    }

    #[test]
    fn names_wildcards_and_indexes_reach_their_fields() {
        let issue = json!({
            "fields": {"description": doc(), "summary": "s",
                       "comment": {"comments": [{"body": doc()}, {"body": doc(), "id": "2"}]}},
            "renderedFields": {"description": "<p>x</p>", "summary": "s"},
        });
        let r = rules(&[
            ("fields.description", "adf"),
            ("fields.comment.comments.*.body", "adf"),
            ("renderedFields.*", "html"),
        ]);
        let got = reached(&issue, &r);
        assert_eq!(
            got,
            [
                (
                    "fields.comment.comments.0.body".to_string(),
                    FieldFormat::Adf
                ),
                (
                    "fields.comment.comments.1.body".to_string(),
                    FieldFormat::Adf
                ),
                ("fields.description".to_string(), FieldFormat::Adf),
                ("renderedFields.description".to_string(), FieldFormat::Html),
                ("renderedFields.summary".to_string(), FieldFormat::Html),
            ]
        );
        let one = reached(&issue, &rules(&[("fields.comment.comments.1.body", "adf")]));
        assert_eq!(
            one,
            [(
                "fields.comment.comments.1.body".to_string(),
                FieldFormat::Adf
            )]
        );
    }

    #[test]
    fn auto_finds_adf_documents_anywhere_beneath_and_nothing_else() {
        let v =
            json!({"a": doc(), "b": {"c": [1, {"d": doc()}], "e": {"type": "doc"}}, "f": "text"});
        let got: Vec<String> = reached(&v, &rules(&[("**", "auto")]))
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(got, ["a", "b.c.1.d"]);
        // The root itself is reached by `**` (it matches no segment too).
        assert_eq!(
            reached(&doc(), &rules(&[("**", "auto")])),
            [(String::new(), FieldFormat::Auto)]
        );
        let got: Vec<String> = reached(&v, &rules(&[("b", "auto")]))
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(got, ["b.c.1.d"]);
    }

    #[test]
    fn the_most_specific_explicit_rule_wins_and_beats_auto() {
        let v = json!({"body": {"storage": {"value": "<p/>"}, "view": {"value": "<p/>"}}});
        let r = rules(&[
            ("**", "auto"),
            ("body.*.value", "html"),
            ("body.storage.value", "storage"),
        ]);
        assert_eq!(
            reached(&v, &r),
            [
                ("body.storage.value".to_string(), FieldFormat::Storage),
                ("body.view.value".to_string(), FieldFormat::Html)
            ]
        );
    }

    #[test]
    fn double_star_matches_at_any_depth() {
        let v = json!({"x": {"body": "a", "y": {"z": {"body": "b"}}}, "body": "c"});
        let got: Vec<String> = reached(&v, &rules(&[("**.body", "storage")]))
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(got, ["body", "x.body", "x.y.z.body"]);
    }

    #[test]
    fn the_walk_does_not_descend_where_no_rule_can_match() {
        // A deep value off every rule's path is not visited (the walk would stop at MAX_DEPTH anyway).
        let mut deep = json!("leaf");
        for _ in 0..100 {
            deep = json!({"n": deep});
        }
        let v = json!({"other": deep, "fields": {"description": doc()}});
        assert_eq!(
            reached(&v, &rules(&[("fields.description", "adf")])).len(),
            1
        );
    }

    #[test]
    fn bad_rules_are_refused_naming_the_path() {
        let bad = |path: &str, format: &str| Rules::parse([(path, format)]).unwrap_err();
        assert_eq!(bad("", "adf").path, "");
        assert!(bad("a..b", "adf").message.contains("empty name"));
        assert!(bad("a*", "adf").message.contains("stand alone"));
        let e = bad("fields.description", "markdown");
        assert_eq!(e.path, "fields.description");
        assert!(
            e.message.contains("`markdown` is not a rich-text format"),
            "{e}"
        );
        let e = Rules::parse([("a", "adf"), ("a", "storage")]).unwrap_err();
        assert!(e.message.contains("twice"), "{e}");
        let e = rules(&[("a", "adf"), ("b", "html")])
            .check_writable()
            .unwrap_err();
        assert_eq!(e.path, "b");
        assert!(rules(&[("a", "adf"), ("b", "storage")])
            .check_writable()
            .is_ok());
    }

    #[test]
    fn fields_that_are_not_what_the_rule_says_are_reported_and_kept() {
        let mut v = json!({"d": 7, "e": {"type": "paragraph", "content": 3}, "f": null, "g": "already text"});
        let r = rules(&[("d", "adf"), ("e", "adf"), ("f", "adf"), ("g", "adf")]);
        let before = v.clone();
        let report = to_markdown(&mut v, &r, &Options::default());
        assert_eq!(v, before);
        assert!(report.converted.is_empty());
        let failed: Vec<&str> = report.failed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(failed, ["d", "e"]);
        assert!(
            report.failed[0]
                .message
                .contains("expected ADF (an object), found a number"),
            "{:?}",
            report.failed
        );
        assert!(
            report.failed[1].message.starts_with("not ADF"),
            "{:?}",
            report.failed
        );
    }

    #[test]
    fn arguments_that_are_not_text_are_errors_naming_the_field() {
        let mut v = json!({"fields": {"description": 5}});
        let e = from_markdown(&mut v, &rules(&[("fields.description", "adf")])).unwrap_err();
        assert_eq!(e.path, "fields.description");
        assert!(e.message.contains("found a number"), "{e}");
        // ADF the caller built already, or null, passes as it is.
        let mut v = json!({"fields": {"description": doc()}, "x": null});
        let report = from_markdown(
            &mut v,
            &rules(&[("fields.description", "adf"), ("x", "adf")]),
        )
        .unwrap();
        assert!(report.converted.is_empty());
        assert_eq!(v["fields"]["description"], doc());
    }
}
