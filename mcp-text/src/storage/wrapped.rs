//! A table cell's `<div class="content-wrapper">`: Confluence Server's and Data Center's editor wraps
//! the content of a cell that holds a macro or an image in one. Read as any unknown element, it was a
//! `storage:element` holding the cell's blocks, two marker lines around them in the Markdown; now the
//! cell says `storage.wrapper` and holds the blocks itself, which the writer wraps again.

use serde_json::Value;

use super::attrs::{storage_flag, storage_of};
use super::cells::{cells_mut, row_cells, rows};
use super::ELEMENT;
use crate::model::{Node, NodeType};

const WRAPPER: &str = "wrapper";
const CLASS: &str = "content-wrapper";

/// Unwraps the content of each cell of a table just read that is one `<div class="content-wrapper">`
/// holding blocks, and nothing else.
pub(super) fn read(table: &mut Node) {
    for cell in cells_mut(table) {
        let Some([div]) = cell.content.as_deref() else {
            continue;
        };
        if !is_wrapper(div) {
            continue;
        }
        let Some([div]) = cell.content.as_deref_mut() else {
            unreachable!("matched above")
        };
        let blocks = div.content.take().unwrap_or_default();
        cell.content = Some(blocks);
        let attrs = cell.attrs.get_or_insert_with(Default::default);
        storage_of(attrs).insert(WRAPPER.into(), Value::Bool(true));
    }
}

/// The table the writer writes (`None`: no cell of it is wrapped): each wrapped cell's blocks in their
/// `<div class="content-wrapper">` again.
pub(super) fn write_form(table: &Node) -> Option<Node> {
    if !rows(table).flat_map(row_cells).any(wrapped) {
        return None;
    }
    let mut table = table.clone();
    for cell in cells_mut(&mut table) {
        if wrapped(cell) {
            let blocks = cell.content.take().unwrap_or_default();
            let mut div = Node::with_content(NodeType::Other(ELEMENT.into()), blocks);
            div.set_attr("name", "div");
            div.set_attr("attributes", serde_json::json!({ "class": CLASS }));
            cell.content = Some(vec![div]);
        }
    }
    Some(table)
}

/// Whether a cell's blocks are in a `<div class="content-wrapper">` (which is no cell's text held bare).
pub(super) fn wrapped(cell: &Node) -> bool {
    storage_flag(cell.attrs.as_ref(), WRAPPER)
}

/// `<div class="content-wrapper">` holding blocks: the element's name and that one attribute, nothing
/// else.
fn is_wrapper(node: &Node) -> bool {
    let Some(attrs) = node.attrs.as_ref() else {
        return false;
    };
    let class = attrs
        .get("attributes")
        .and_then(Value::as_object)
        .filter(|a| a.len() == 1)
        .and_then(|a| a.get("class"))
        .and_then(Value::as_str);
    matches!(&node.kind, NodeType::Other(n) if &**n == ELEMENT)
        && attrs.len() == 2
        && attrs.get("name").and_then(Value::as_str) == Some("div")
        && class == Some(CLASS)
        && node.marks.is_none()
        && node.extra.is_none()
        && node.text.is_none()
        && node.content.as_ref().is_some_and(|c| !c.is_empty())
}
