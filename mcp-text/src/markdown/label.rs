//! An inline node's label: what a model reads of an inline node that has no Markdown form of its own, the
//! text of its `[…](adf:TYPE '{…}')`, and whether that text is the node's content.

use super::WriteOptions;
use crate::model::{Node, NodeType};

/// What a model reads of an inline node with no Markdown form: the text of its `[…](adf:TYPE '{…}')`,
/// which the reader ignores (the node is the marker's). A macro's name and main parameter, the profile
/// macro's user (`@Name` through the resolver), a placeholder's text, a mention's name, a status's text.
pub(super) fn label(node: &Node, opts: &WriteOptions) -> Option<String> {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let label = match &node.kind {
        NodeType::InlineExtension | NodeType::Extension | NodeType::BodiedExtension => {
            crate::storage::macro_label(node, opts.mentions)?
        }
        NodeType::Mention => match node.attr_str("text") {
            Some(text) => one_line(text),
            None => {
                let id = node.attr_str("id")?;
                let name = opts.mentions.and_then(|r| r.display_name(id));
                one_line(&format!("@{}", name.as_deref().unwrap_or(id)))
            }
        },
        NodeType::Placeholder | NodeType::Status => one_line(node.attr_str("text")?),
        NodeType::Emoji => one_line(node.attr_str("text").or(node.attr_str("shortName"))?),
        NodeType::MediaInline => one_line(node.attr_str("alt").or(node.attr_str("id"))?),
        // An inline node of a type the schema does not define (a storage element ADF has no node for: a
        // `<small>`, a `<cite>`, a `<span>` its HTML would not give back) shows the text it holds.
        NodeType::Other(_) if !node.children().is_empty() => one_line(&texts_within(node)),
        _ => return None,
    };
    (!label.is_empty()).then_some(label)
}

/// The text of the texts within `node`, in reading order (a loop, not recursion: no depth is too deep).
fn texts_within(node: &Node) -> String {
    let mut text = String::new();
    let mut stack: Vec<&[Node]> = vec![node.children()];
    while let Some(nodes) = stack.pop() {
        let Some((first, rest)) = nodes.split_first() else {
            continue;
        };
        stack.push(rest);
        match &first.text {
            Some(t) => text.push_str(t),
            None => stack.push(first.children()),
        }
    }
    text
}

/// Whether an inline node is written with its content as its link's text, which the reader reads back as
/// the content: a node of a type the schema does not define (a storage element: a `<span style>`, a
/// `<small>`) holding one text of no marks that its label shows as it is. The model reads the text once and
/// its edit of it is the node's text; any other content is in the node's JSON.
pub(super) fn shows_content(node: &Node, label: Option<&str>) -> bool {
    let [text] = node.children() else {
        return false;
    };
    matches!(node.kind, NodeType::Other(_))
        && text.kind == NodeType::Text
        && text.attrs.is_none()
        && text.marks.is_none()
        && text.content.is_none()
        && text.extra.is_none()
        && text.text.is_some()
        && text.text.as_deref() == label
}
