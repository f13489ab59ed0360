//! Confluence Cloud's smart links: `<a href="URL" data-card-appearance="inline">URL</a>` (and `block`,
//! `embed`) is ADF's `inlineCard` (`blockCard`, `embedCard`) `{url}`, as Confluence's own ADF has it, so
//! that the Markdown shows `<URL>` rather than a link whose title is storage JSON. The writer writes a card
//! back in this form (`write.rs`).

use super::attrs::{put_attrs, storage_attrs, AttrList};
use super::entities::text_content;
use crate::model::{Node, NodeType};

/// The card an `<a>` stands for: `href` first, `data-card-appearance` second, then (a block or embed
/// card's) `data-layout`, ADF's `layout`, which an embed card must have; any other attributes after
/// them are kept under `storage.attrs`. Its text, alone up to `</a>` in `after` (the input after the
/// start tag), is the URL itself. A block or embed card only where a block may stand (`in_block`), and
/// no card under a mark, which ADF's cards do not take: anything else is no card (`None`) and reads as
/// a link.
pub(super) fn read(attrs: &AttrList, after: &str, in_block: bool, marked: bool) -> Option<Node> {
    let [(href, url), (appearance, value), rest @ ..] = attrs.as_slice() else {
        return None;
    };
    if href != "href" || appearance != "data-card-appearance" || url.is_empty() || marked {
        return None;
    }
    let (layout, rest) = match rest {
        [(name, layout), rest @ ..] if name == "data-layout" && value != "inline" => {
            (Some(layout), rest)
        }
        _ => (None, rest),
    };
    let kind = match value.as_str() {
        "inline" => NodeType::InlineCard,
        "block" if in_block => NodeType::BlockCard,
        "embed" if in_block && layout.is_some() => NodeType::EmbedCard,
        _ => return None,
    };
    let end = after.find('<')?;
    if !after[end..].starts_with("</a>") || text_content(&after[..end]).ok()?? != *url {
        return None;
    }
    let mut node = Node::new(kind);
    node.set_attr("url", url.as_str());
    if let Some(layout) = layout {
        node.set_attr("layout", layout.as_str());
    }
    put_attrs(&mut node, storage_attrs(rest.to_vec()));
    Some(node)
}

/// The `data-card-appearance` of a card node.
pub(super) fn appearance(kind: &NodeType) -> &'static str {
    match kind {
        NodeType::InlineCard => "inline",
        NodeType::BlockCard => "block",
        _ => "embed",
    }
}
