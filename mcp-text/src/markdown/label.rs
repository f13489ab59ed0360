//! An inline node's label: what a model reads of an inline node that has no Markdown form of its own, the
//! text of its `[…](adf:TYPE '{…}')`, and whether that text is the node's content.

use serde_json::Value;

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

/// An inline macro as its marker needs to say it when its label gives back its name and main parameter
/// (`[anchor: top](adf:inlineExtension …)`, `[toc](…)`; see `storage::macro_from_label`): the node without
/// its `extensionKey` and the parameter the label shows. `None` when the label would not give them back
/// as they are (a shortened or re-spaced value, a number, a parameter of another name, a `profile`
/// macro's `@Name`): the marker says the whole node.
pub(super) fn macro_without_label(node: &Node, label: &str) -> Option<Node> {
    if node.kind != NodeType::InlineExtension {
        return None;
    }
    let mut bare = node.clone();
    let attrs = bare.attrs.as_mut()?;
    attrs.remove("extensionKey")?;
    if let Some(parameters) = attrs.get_mut("parameters").and_then(Value::as_object_mut) {
        if let Some(params) = parameters
            .get_mut("macroParams")
            .and_then(Value::as_object_mut)
        {
            if label.contains(": ") {
                params.remove(crate::storage::main_param(params)?);
            }
            if params.is_empty() {
                parameters.remove("macroParams");
            }
        }
        if parameters.is_empty() {
            attrs.remove("parameters");
        }
    }
    let mut back = bare.clone();
    crate::storage::macro_from_label(&mut back, label);
    (back == *node).then_some(bare)
}
