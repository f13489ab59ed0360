//! A storage macro's title where the Markdown shows it: a panel's (`info`, `note`, `tip`, `warning`,
//! `panel` with a `title` parameter) on the line of its `[!TYPE]`, `> [!WARNING] Careful`; a `code`
//! macro's in its fence's info string, ```` ```bash title="deploy.sh" ```` (as MDX and Docusaurus write
//! it). ADF's panel and code block have no title; the storage reader keeps the parameter in
//! `storage.params.title`, which a marker alone would show as JSON. The writer shows a title the reader
//! takes back as it is: one line with no character Markdown reads as syntax (nor `"` in an info string);
//! any other stays in the marker.

use serde_json::{Map, Value};

use crate::model::{Mark, MarkType, Node, NodeType};
use crate::storage::STORAGE;

/// Where the reader keeps a panel's title, or a fence's info string that shows one (in `extra`), until
/// the block's marker applies.
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

/// The title a code block's info string shows (see [`shown`]).
pub(super) fn shown_in_info(node: &Node) -> Option<&str> {
    shown(node).filter(|t| !t.contains('"'))
}

/// A fence's info string that shows a title, `LANG title="TITLE"` or `title="TITLE"`: the language
/// (none in the second form) and the title.
pub(super) fn split_info(info: &str) -> Option<(Option<&str>, &str)> {
    let (lang, rest) = match info.rsplit_once(" title=\"") {
        Some((lang, rest)) => (Some(lang), rest),
        None => (None, info.strip_prefix("title=\"")?),
    };
    let title = rest.strip_suffix('"')?;
    let lang_ok = lang.is_none_or(|l| !l.is_empty() && !l.contains(char::is_whitespace));
    (lang_ok && ok(title) && !title.contains('"')).then_some((lang, title))
}

/// Whether `title` reads back as it is written, from the `[!TYPE]` line or a fence's info string (which
/// takes no `"` besides: [`shown_in_info`], [`split_info`]).
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
    if let Some(params) = rest.attr_object_mut(STORAGE, &["params"]) {
        params.remove("title");
    }
    rest
}

/// Gives a block what the reader stashed (see [`STASH`]), after its marker applied. A storage macro's
/// (the block has `storage`) gets the title as its parameter. Else (Markdown a model or a person wrote):
/// a panel gets its title as a first paragraph in bold, which ADF can hold; a code block its whole info
/// string as its language, as any fence's.
pub(super) fn restore(node: &mut Node, stashed: String) {
    match node.kind {
        NodeType::CodeBlock => {
            let title = split_info(&stashed).map(|(_, t)| t.to_string());
            if let Some(title) = title.filter(|_| has_storage(node)) {
                set_param(node, title);
            } else {
                node.set_attr("language", stashed);
            }
        }
        _ if has_storage(node) => set_param(node, stashed),
        _ => bold_first(node, stashed),
    }
}

fn has_storage(node: &Node) -> bool {
    node.attr(STORAGE).is_some_and(Value::is_object)
}

/// Called where the block has `storage`.
fn set_param(node: &mut Node, title: String) {
    if let Some(params) = node.attr_object_or_insert(STORAGE, &["params"]) {
        let mut value = Map::new();
        value.insert("value".into(), title.into());
        params.insert("title".into(), Value::Object(value));
        return;
    }
    // `params` is no object (a model's edit): the title is not lost.
    if node.kind == NodeType::Panel {
        bold_first(node, title);
    }
}

fn bold_first(node: &mut Node, title: String) {
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

/// Takes what the reader stashed on a block.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_info_string_shows_a_title_after_one_word_or_alone() {
        assert_eq!(
            split_info("bash title=\"deploy.sh\""),
            Some((Some("bash"), "deploy.sh"))
        );
        assert_eq!(
            split_info("title=\"Output (raw)\""),
            Some((None, "Output (raw)"))
        );
        // Anything else is a language, as any info string.
        for info in [
            "bash",
            "a b title=\"x\"",
            "bash title=\"x\" more",
            "bash title=\"\"",
            "bash title=\"a\"b\"",
            "bash title=\"*x*\"",
            "bash  title=\"x\"",
            "title=x",
        ] {
            assert_eq!(split_info(info), None, "{info}");
        }
    }

    #[test]
    fn a_title_is_shown_only_when_it_reads_back_as_it_is() {
        for title in [
            "Careful",
            "Careful: read first!",
            "Deploy (v2) #3",
            "Überblick",
        ] {
            assert!(ok(title), "{title}");
        }
        for title in [
            "", " x", "x ", "a\nb", "*x*", "a_b", "[x]", "<b>", "a & b", "`x`", "a|b", "a\\b",
            "$x$", "~x~",
        ] {
            assert!(!ok(title), "{title:?}");
        }
    }
}
