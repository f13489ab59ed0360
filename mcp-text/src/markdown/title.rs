//! A storage macro's title where the Markdown shows it: a panel's (`info`, `note`, `tip`, `warning`,
//! `panel` with a `title` parameter) on the line of its `[!TYPE]`, `> [!WARNING] Careful`. ADF's panel
//! has no title; the storage reader keeps the parameter in `storage.params.title`, which a marker alone
//! would show as JSON. The writer shows a title the reader takes back as it is: one line with no
//! character Markdown reads as syntax; any other stays in the marker.

use serde_json::{Map, Value};

use crate::model::{Mark, MarkType, Node, NodeType};
use crate::storage::STORAGE;

/// Where the reader keeps a panel's title (in `extra`) until the panel's marker applies.
pub(super) const STASH: &str = "\u{0}md:title";

/// The title the `[!TYPE]` line shows: `storage.params.title` when it is a plain `{"value": "…"}` that
/// reads back as it is.
pub(super) fn shown(node: &Node) -> Option<&str> {
    let title = node
        .attr(STORAGE)?
        .get("params")?
        .get("title")?
        .as_object()?;
    let value = title.get("value")?.as_str()?;
    (title.len() == 1 && ok(value)).then_some(value)
}

/// Whether `title` reads back from the `[!TYPE]` line as it is written.
pub(super) fn ok(title: &str) -> bool {
    !title.is_empty()
        && title.trim() == title
        && !title
            .chars()
            .any(|c| c.is_control() || "\\`*_~[]<>&|$".contains(c))
}

/// `node` without its shown title, for its marker: its `params` stay (empty when the title was all), so
/// that the reader has the place to put the title back.
pub(super) fn without(node: &Node) -> Node {
    let mut rest = node.clone();
    if let Some(Value::Object(params)) = rest
        .attrs
        .as_mut()
        .and_then(|a| a.get_mut(STORAGE))
        .and_then(|s| s.get_mut("params"))
    {
        params.remove("title");
    }
    rest
}

/// Gives a panel the title its `[!TYPE]` line shows, after its marker applied: the storage parameter
/// where the panel is a storage macro's (it has `storage`), else (a panel a model or a person wrote) a
/// first paragraph in bold, which ADF can hold.
pub(super) fn set(node: &mut Node, title: String) {
    if let Some(Value::Object(storage)) = node.attrs.as_mut().and_then(|a| a.get_mut(STORAGE)) {
        let params = storage
            .entry("params")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(params) = params {
            let mut value = Map::new();
            value.insert("value".into(), title.into());
            params.insert("title".into(), Value::Object(value));
            return;
        }
    }
    let mut text = Node::text(title);
    text.marks = Some(vec![Mark::new(MarkType::Strong)]);
    let paragraph = Node::with_content(NodeType::Paragraph, vec![text]);
    let content = node.content.get_or_insert_with(Vec::new);
    match content.as_slice() {
        [only]
            if only.kind == NodeType::Paragraph
                && only.children().is_empty()
                && only.attrs.is_none()
                && only.marks.is_none() =>
        {
            content[0] = paragraph
        }
        _ => content.insert(0, paragraph),
    }
}

/// Takes the title the reader stashed on a panel.
pub(super) fn take(node: &mut Node) -> Option<String> {
    let extra = node.extra.as_mut()?;
    let title = extra.remove(STASH)?;
    if extra.is_empty() {
        node.extra = None;
    }
    match title {
        Value::String(t) => Some(t),
        _ => None,
    }
}
