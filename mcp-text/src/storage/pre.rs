//! `<pre>`, both ways: a `codeBlock` with `storage.tag: "pre"`. `<pre><code class="language-x">…</code></pre>`,
//! as Markdown converters and editors write a code block, is the block's text in the `language` the class
//! names, with the `code` element's other attributes in `storage.code` (`{}` when it has none): a fenced
//! block with its language in the Markdown, where the `code` element as a mark had no Markdown form. The
//! writer writes the `code` element back while `storage.code` is there or the block has a language.

use serde_json::{Map, Value};

use super::attrs::storage_of;
use super::links::push_attr;
use super::STORAGE;
use crate::model::{Attrs, MarkType, Node, NodeType};

const LANGUAGE_CLASS: &str = "language-";

/// The content of a `<pre>` read as a code block: one `<code>` around all of its text (a text, no other
/// mark) becomes the text alone, its attributes in `attrs`.
pub(super) fn read(attrs: &mut Option<Attrs>, content: Vec<Node>) -> Vec<Node> {
    let Some(mut code) = code_attributes(&content) else {
        return content;
    };
    let language = match code.get("class").and_then(Value::as_str) {
        Some(class) => class
            .strip_prefix(LANGUAGE_CLASS)
            .filter(|l| !l.is_empty() && !l.contains(char::is_whitespace))
            .map(str::to_string),
        None => None,
    };
    let attrs = attrs.get_or_insert_with(Attrs::new);
    if let Some(language) = language {
        code.remove("class");
        attrs.insert("language", language.into());
    }
    storage_of(attrs).insert("code".into(), Value::Object(code));
    let text: String = content.iter().filter_map(|n| n.text.as_deref()).collect();
    vec![Node::text(text)]
}

/// The attributes of the one `code` mark on every node of `content`, when every node is a text with that
/// mark alone and there is some text.
fn code_attributes(content: &[Node]) -> Option<Map<String, Value>> {
    let first = content.first()?.mark_list().first()?;
    let all_code = content.iter().all(|n| {
        n.kind == NodeType::Text && n.extra.is_none() && matches!(n.mark_list(), [m] if m == first)
    });
    let some_text = content.iter().any(|n| n.text.as_deref() != Some(""));
    if first.kind != MarkType::Code || first.extra.is_some() || !all_code || !some_text {
        return None;
    }
    // The mark's attributes are the element's, kept as `storage.attrs`, and nothing else.
    let Some(attrs) = first.attrs.as_ref() else {
        return Some(Map::new());
    };
    let storage = attrs.get(STORAGE)?.as_object()?;
    if attrs.len() != 1 || storage.len() != 1 {
        return None;
    }
    storage.get("attrs")?.as_object().cloned()
}

/// The start tag of the `code` element a `codeBlock` that was a `<pre>` is written in (`None`: none, its text
/// straight in the `<pre>`).
pub(super) fn code_tag(node: &Node) -> Option<String> {
    let kept = node
        .attrs
        .as_ref()
        .and_then(|a| a.get(STORAGE))
        .and_then(|s| s.get("code"))
        .and_then(Value::as_object);
    let language = node.attr_str("language").filter(|l| !l.is_empty());
    let empty = node
        .children()
        .iter()
        .all(|n| n.text.as_deref() == Some(""));
    if (kept.is_none() && language.is_none()) || empty {
        return None;
    }
    let mut tag = String::from("<code");
    if let Some(language) = language {
        push_attr(&mut tag, "class", &format!("{LANGUAGE_CLASS}{language}"));
    }
    for (k, v) in kept.into_iter().flatten() {
        if !(language.is_some() && k == "class") {
            push_attr(&mut tag, k, v.as_str().unwrap_or_default());
        }
    }
    tag.push('>');
    Some(tag)
}
