//! A storage format `<span>` that says no mark (`<span>`, `<span class="…">`, `<span style="font-size:
//! …">`: what Confluence's editor leaves around pasted text) written as the inline HTML it is:
//! `<span class="x">text</span>`, the text between the tags Markdown like any other and the marks around
//! the tags the element's (`**<span>x</span>**`, as the storage reader reads `<strong><span>`), where its
//! `[text](adf:storage:element '{…}')` cost a dozen tokens more (and its whole content as JSON where that
//! was more than one plain text). The reader reads such a tag back as the `storage:element` it was, and
//! the ADF repair pass gives its content in its place (ADF has no such node), so a `<span>` a model writes
//! keeps its text in ADF and its element in storage format.
//!
//! Both sides ask [`span_tag`] what a tag says, so that the writer writes a span as HTML only where the
//! reader reads it back as the same element.

use serde_json::Value;

use super::text_form::{marks_apart, plain_text};
use crate::model::{MarkType, Node, NodeType};
use crate::storage::ELEMENT;

/// What a `<span>` tag in Markdown stands for.
pub(super) enum SpanTag<'a> {
    /// `data-mark='{…}'`: the mark its JSON is.
    Mark(&'a str),
    /// `style="color: …"`: a text colour.
    Color(&'a str),
    /// Anything else: a storage element of its own.
    Element,
}

/// What a `<span>` with the attributes `get` gives stands for.
pub(super) fn span_tag<'a>(get: impl Fn(&str) -> Option<&'a str>) -> SpanTag<'a> {
    if let Some(json) = get("data-mark") {
        return SpanTag::Mark(json);
    }
    match get("style").and_then(|s| s.trim().strip_prefix("color:")) {
        Some(color) => SpanTag::Color(color.trim().trim_end_matches(';').trim()),
        None => SpanTag::Element,
    }
}

/// The element's attributes, in name order, when `node` is a span written as HTML (its marks aside,
/// which the inline writer judges): a `storage:element` named `span` of attributes the tag carries as they are (lowercase names, values with
/// nothing HTML or a table cell would read otherwise) and that read back as an element, holding inline
/// content.
pub(super) fn span_attributes(node: &Node) -> Option<Vec<(&str, &str)>> {
    let NodeType::Other(kind) = &node.kind else {
        return None;
    };
    if &**kind != ELEMENT
        || node.text.is_some()
        || node.extra.is_some()
        || node.children().is_empty()
        || !node.children().iter().all(|c| writes_inline(&c.kind))
    {
        return None;
    }
    let attrs = node.attrs.as_ref()?;
    if attrs.get("name")?.as_str()? != "span" {
        return None;
    }
    let mut list = Vec::new();
    for (key, value) in attrs.iter() {
        match (key.as_str(), value) {
            ("name", _) => {}
            // Written only when there are some: `{}` would come back as none.
            ("attributes", Value::Object(map)) if !map.is_empty() => {
                for (name, value) in map {
                    let value = value.as_str()?;
                    if !attribute_name(name) || !attribute_value(value) {
                        return None;
                    }
                    list.push((name.as_str(), value));
                }
            }
            _ => return None,
        }
    }
    let get = |name: &str| list.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    matches!(span_tag(get), SpanTag::Element).then_some(list)
}

/// Whether `node` is a storage element (of any name).
pub(super) fn is_element(node: &Node) -> bool {
    matches!(&node.kind, NodeType::Other(kind) if &**kind == ELEMENT)
}

/// Whether the inline writer writes `node` as its HTML: a span [`span_attributes`] accepts, whose marks (if
/// any) the spans around it say as they would a text's, code aside (a code span holds no HTML).
pub(super) fn element_form(node: &Node) -> bool {
    if span_attributes(node).is_none() {
        return false;
    }
    let Some(marks) = &node.marks else {
        return true;
    };
    let mut probe = Node::text("x");
    probe.marks = Some(marks.clone());
    if marks.is_empty() || marks.iter().any(|m| m.kind == MarkType::Code) || !plain_text(&probe) {
        return false;
    }
    // No mark of the same kind within (`~~a<span>~~b~~</span>~~` pairs its delimiters otherwise), and
    // within a link's text no inline node of a form of its own (a link too: Markdown's links do not
    // nest): texts written as text and spans written as HTML alone.
    let kinds = |n: &Node| {
        n.mark_list()
            .iter()
            .any(|m| marks.iter().any(|e| e.kind == m.kind))
    };
    if any_within(node, kinds) {
        return false;
    }
    let linked = marks.iter().any(|m| m.kind == MarkType::Link);
    !linked
        || !any_within(node, |n| {
            let text = n.kind == NodeType::Text && (plain_text(n) || marks_apart(n).is_some());
            !(text || element_form(n))
        })
}

/// Whether any node within `node` (not itself) is one `test` accepts: a loop, not recursion.
fn any_within(node: &Node, test: impl Fn(&Node) -> bool) -> bool {
    let mut stack: Vec<&Node> = node.children().iter().collect();
    while let Some(n) = stack.pop() {
        if test(n) {
            return true;
        }
        stack.extend(n.children());
    }
    false
}

/// Writes the span's open tag.
pub(super) fn open_tag(out: &mut String, attributes: &[(&str, &str)]) {
    out.push_str("<span");
    for (name, value) in attributes {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        out.push_str(value);
        out.push('"');
    }
    out.push('>');
}

/// The element a span tag opens: its attributes as the storage reader keeps an element's.
pub(super) fn element(attributes: &[(String, String)]) -> Node {
    let mut node = Node::with_content(NodeType::Other(ELEMENT.into()), Vec::new());
    let mut attrs = crate::model::Attrs::new();
    if !attributes.is_empty() {
        let map = attributes
            .iter()
            .map(|(n, v)| (n.clone(), Value::from(v.as_str())))
            .collect();
        attrs.insert("attributes", Value::Object(map));
    }
    attrs.insert("name", "span".into());
    node.attrs = Some(attrs);
    node
}

/// Whether the inline writer writes a child of the span inline: text, a break, an inline node of the
/// schema or one of no known type (written whole); never a block.
fn writes_inline(kind: &NodeType) -> bool {
    kind.is_inline() || matches!(kind, NodeType::Other(_))
}

/// A name HTML's tokenizers (pulldown-cmark's, ours) read as written: lowercase ASCII letters first, then
/// letters, digits, `-`, `_`, `.`, `:`.
fn attribute_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.' | b':')
        })
}

/// A value that reads back as written in double quotes: no quote, no entity, no tag, no line break, no
/// `|` (a table cell would end there), no backtick (a code span could start there).
fn attribute_value(value: &str) -> bool {
    !value
        .bytes()
        .any(|b| b < 0x20 || b == 0x7f || matches!(b, b'"' | b'&' | b'<' | b'>' | b'|' | b'`'))
}
