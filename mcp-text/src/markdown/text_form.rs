//! Which texts Markdown writes plainly (`**[a](u)**`), and a text's plain form where it cannot. The plain
//! writer (no markers) writes that form, as near as Markdown can. The lossless writer writes it too when
//! only the text's marks are in the way (marks out of the schema's order, as npm `md-to-adf` writes
//! `[strong, em]`; a mark twice; a link whose href reads as a node), followed by a modifier that gives the
//! text its marks back (`***a***<!--adf:text {"marks":[…]}-->`), so that the text stays text a model reads
//! and edits; any other such text it puts whole in a marker.

use super::forms::{adf_color, reserved, singleton};
use crate::model::{Mark, MarkType, Node, NodeType};

/// Whether a text node can be written plainly (else it is written whole, as a marker).
pub(super) fn plain_text(node: &Node) -> bool {
    let Some(text) = &node.text else { return false };
    if text.is_empty()
        || text.contains('\0')
        || node.attrs.is_some()
        || node.content.is_some()
        || node.extra.is_some()
    {
        return false;
    }
    let marks = node.mark_list();
    let mut has_code = false;
    for (i, m) in marks.iter().enumerate() {
        if i > 0 && marks[i - 1].kind.rank() > m.kind.rank() {
            return false;
        }
        if marks[..i]
            .iter()
            .any(|p| p == m || (singleton(&m.kind) && p.kind == m.kind))
        {
            return false;
        }
        match &m.kind {
            MarkType::Link if !link_form_ok(m) => return false,
            MarkType::Code => {
                if m.attrs.is_some() || m.extra.is_some() {
                    return false;
                }
                has_code = true;
            }
            _ => {}
        }
    }
    !has_code
        || marks
            .iter()
            .all(|m| matches!(m.kind, MarkType::Code | MarkType::Link))
}

/// Whether the plain writer writes `node` as its [`shown_form`]: a text Markdown cannot hold as it
/// stands, or one with a mark that plain Markdown shows otherwise or not at all.
pub(super) fn plain_writes_apart(node: &Node) -> bool {
    node.kind == NodeType::Text
        && (!plain_text(node)
            || node
                .mark_list()
                .iter()
                .any(|m| shown_mark(m).as_ref() != Some(m)))
}

/// A mark as plain Markdown shows it: with only what its Markdown or HTML form says (a link whole; a
/// colour's `#rrggbb`; `sub` or `sup`), `None` for a mark it does not show (a comment, a highlight, a
/// border: what a marker carries). `shown_mark` of a shown mark is that mark.
fn shown_mark(m: &Mark) -> Option<Mark> {
    let only = |name: &str, keep: bool| {
        let value = m.attr(name).filter(|_| keep)?;
        let mut shown = Mark::new(m.kind.clone());
        shown.attrs = Some(std::iter::once((name, value.clone())).collect());
        Some(shown)
    };
    match m.kind {
        MarkType::Link => Some(m.clone()),
        MarkType::Code
        | MarkType::Strong
        | MarkType::Em
        | MarkType::Strike
        | MarkType::Underline => Some(Mark::new(m.kind.clone())),
        MarkType::TextColor => only("color", m.attr_str("color").is_some_and(adf_color)),
        MarkType::Subsup => only("type", matches!(m.attr_str("type"), Some("sub" | "sup"))),
        _ => None,
    }
}

/// The text of `node` as the plain writer writes it: its [`plain_form`], each mark as plain Markdown shows
/// it (none it does not show).
pub(super) fn shown_form(node: &Node) -> Option<Node> {
    let mut shown = node.clone();
    shown.marks = node
        .marks
        .as_ref()
        .map(|marks| marks.iter().filter_map(shown_mark).collect());
    plain_form(&shown)
}

/// The text of `node` as plain Markdown can hold it, the form the lossless writer shows beside a modifier
/// that gives the text its marks back (and its reader compares with): marks in the schema's order, each
/// once, a link only where its form reads back as one, a code mark with only a link beside it, no NUL,
/// no attrs; `None` when no text is left.
pub(super) fn plain_form(node: &Node) -> Option<Node> {
    let text: String = node
        .text
        .as_deref()?
        .chars()
        .filter(|&c| c != '\0')
        .collect();
    if text.is_empty() {
        return None;
    }
    let mut marks: Vec<Mark> = Vec::new();
    for m in node.mark_list() {
        let twice = marks
            .iter()
            .any(|p| p == m || (singleton(&m.kind) && p.kind == m.kind));
        if twice || (m.kind == MarkType::Link && !link_form_ok(m)) {
            continue;
        }
        marks.push(match m.kind {
            MarkType::Code => Mark::new(MarkType::Code),
            _ => m.clone(),
        });
    }
    if marks.iter().any(|m| m.kind == MarkType::Code) {
        marks.retain(|m| matches!(m.kind, MarkType::Code | MarkType::Link));
    }
    marks.sort_by_key(|m| m.kind.rank());
    let mut plain = Node::text(text);
    if !marks.is_empty() {
        plain.marks = Some(marks);
    }
    if !plain_text(&plain) {
        plain.marks = None;
    }
    Some(plain)
}

/// The plain form of a text node that Markdown cannot hold as it stands only for its marks: the same text
/// with nothing else beside them, which the plain form keeps whole. `None` for any other node.
pub(super) fn marks_apart(node: &Node) -> Option<Node> {
    if node.kind != NodeType::Text
        || node.mark_list().is_empty()
        || node.attrs.is_some()
        || node.content.is_some()
        || node.extra.is_some()
        || plain_text(node)
    {
        return None;
    }
    let plain = plain_form(node)?;
    (plain.text == node.text && plain_text(&plain)).then_some(plain)
}

/// Whether a link mark can be written `[…](href)` (its href reads back as a link, not an inline node).
pub(super) fn link_form_ok(m: &Mark) -> bool {
    m.attr_str("href")
        .is_some_and(|href| !reserved(href) && !href.contains(['\n', '\r', '\0']))
}
