//! Which texts Markdown writes plainly (`**[a](u)**`), and a text's plain form where it cannot. The plain
//! writer (no markers) writes that form, as near as Markdown can. The lossless writer writes it too when
//! only the text's marks are in the way (marks out of the schema's order, as npm `md-to-adf` writes
//! `[strong, em]`; a mark twice; a link whose href reads as a node), followed by a modifier that gives the
//! text its marks back (`***a***<!--adf:text {"marks":[…]}-->`), so that the text stays text a model reads
//! and edits; any other such text it puts whole in a marker.

use super::forms::{reserved, singleton};
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

/// The text of `node` as plain Markdown can hold it, for writing without markers: marks in the schema's
/// order, each once, a link only where its form reads back as one, a code mark with only a link beside
/// it, no NUL, no attrs; `None` when no text is left.
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
