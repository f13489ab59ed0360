//! The paragraph Confluence Server's and Data Center's editor puts before and after tables and macros so
//! that a cursor can stand there: `<p class="auto-cursor-target"><br /></p>`. Read as it is, each was a
//! paragraph marker with the class and a break with a marker of its own (26 o200k tokens, several on a
//! page, for nothing a reader sees). It is an empty paragraph saying `storage.cursor: true` now, which the
//! writer writes as the editor does.

use serde_json::Value;

use super::attrs::{storage, storage_attrs, storage_flag, storage_of};
use crate::model::{Attrs, Node, NodeType};

const CLASS: &str = "auto-cursor-target";
const CURSOR: &str = "cursor";

/// The attrs of such a paragraph as read: its class kept, nothing else.
fn kept_class() -> Option<Attrs> {
    storage_attrs(vec![("class".into(), CLASS.into())])
}

/// Makes a paragraph just read that is the editor's cursor target (its class and one break, nothing
/// else) an empty paragraph that says so.
pub(super) fn read(node: &mut Node) {
    let one_break = match node.content.as_deref() {
        Some([b]) => *b == Node::new(NodeType::HardBreak),
        _ => false,
    };
    if node.kind != NodeType::Paragraph
        || !one_break
        || node.marks.is_some()
        || node.extra.is_some()
        || node.attrs != kept_class()
    {
        return;
    }
    let mut attrs = Attrs::new();
    storage_of(&mut attrs).insert(CURSOR.into(), Value::Bool(true));
    node.attrs = Some(attrs);
    node.content = None;
}

/// The paragraph the writer writes for one that says it is a cursor target and holds nothing (`None`:
/// any other, written as it is): its class and one break again.
pub(super) fn write_form(node: &Node) -> Option<Node> {
    let empty = node.content.as_ref().is_none_or(Vec::is_empty);
    let attrs = node.attrs.as_ref();
    let only = attrs.is_some_and(|a| a.len() == 1) && storage(attrs).is_some_and(|s| s.len() == 1);
    if !(storage_flag(attrs, CURSOR) && only && empty) {
        return None;
    }
    let mut p = node.clone();
    p.attrs = kept_class();
    p.content = Some(vec![Node::new(NodeType::HardBreak)]);
    Some(p)
}
