//! Tables and lists whose cells and items hold their text bare (`<td>Alpha</td>`, `<li>one</li>`), as
//! Atlassian's own storage examples and Confluence Server's and Data Center's editor write them. Read as
//! they are, each such text is an implicit paragraph, which Markdown's pipe cell and list item do not say:
//! every cell and item paid a marker, and the table became an HTML table. So the reader says it once for
//! the table or list, `storage.bare`, and gives its cells and items plain paragraphs; the writer puts a bare
//! container's plain paragraphs back bare.
//!
//! What goes bare: a cell's one paragraph (a cell holding more blocks is an HTML table's cell anyway), an
//! item's first block (`<li>three<ul>…</ul></li>`); an empty cell or item holds an empty paragraph, as an
//! empty pipe cell or `- ` reads. A container goes bare when some child holds its text bare (or nothing) and
//! none holds a plain `<p>` where the writer would write the text bare.

use serde_json::Value;

use super::attrs::{implicit_attrs, is_implicit, storage_flag, storage_of};
use super::wrapped;
use crate::model::{Node, NodeType};

const BARE: &str = "bare";

/// Where a container's children hold their text: a table's cells, a list's items.
#[derive(Clone, Copy)]
enum Shape {
    Table,
    List,
}

impl Shape {
    fn of(node: &Node) -> Option<Shape> {
        match node.kind {
            NodeType::Table => Some(Shape::Table),
            NodeType::BulletList | NodeType::OrderedList => Some(Shape::List),
            _ => None,
        }
    }

    /// The paragraph of a child that would be bare: a cell's one block, an item's first.
    fn slot(self, content: &mut [Node]) -> Option<&mut Node> {
        match (self, content) {
            (Shape::Table, [only]) => Some(only),
            (Shape::List, [first, ..]) => Some(first),
            _ => None,
        }
    }
}

/// Makes a table or list just read bare, when its children say so (see the module).
pub(super) fn read(node: &mut Node) {
    let Some(shape) = Shape::of(node) else {
        return;
    };
    let mut bare = false;
    for child in children_mut(node, shape) {
        let Some(content) = child.content.as_mut() else {
            continue;
        };
        if content.is_empty() {
            bare = true;
            continue;
        }
        match shape.slot(content) {
            Some(p) if is_implicit(p) => bare = true,
            Some(p) if is_plain(p) => return,
            _ => {}
        }
    }
    if !bare {
        return;
    }
    for child in children_mut(node, shape) {
        let Some(content) = child.content.as_mut() else {
            continue;
        };
        if content.is_empty() {
            content.push(Node::new(NodeType::Paragraph));
        } else if let Some(p) = shape.slot(content).filter(|p| is_implicit(p)) {
            p.attrs = None;
        }
    }
    let attrs = node.attrs.get_or_insert_with(Default::default);
    storage_of(attrs).insert(BARE.into(), Value::Bool(true));
}

/// The node the writer writes for a bare table or list (`None`: not bare, written as it is): each
/// child's plain paragraph in its place implicit again, or, alone and empty, nothing.
pub(super) fn write_form(node: &Node) -> Option<Node> {
    let shape = Shape::of(node)?;
    if !storage_flag(node.attrs.as_ref(), BARE) {
        return None;
    }
    let mut node = node.clone();
    for child in children_mut(&mut node, shape) {
        let Some(content) = child.content.as_mut() else {
            continue;
        };
        let alone = content.len() == 1;
        let Some(p) = shape.slot(content).filter(|p| is_plain(p)) else {
            continue;
        };
        if p.children().is_empty() && alone {
            content.clear();
        } else if !p.children().is_empty() {
            p.attrs = Some(implicit_attrs());
        }
    }
    Some(node)
}

/// A paragraph that is nothing but its text: no attributes, marks or anything else to write on a `<p>`.
fn is_plain(p: &Node) -> bool {
    p.kind == NodeType::Paragraph
        && p.attrs.as_ref().is_none_or(|a| a.is_empty())
        && p.marks.as_ref().is_none_or(|m| m.is_empty())
        && p.extra.is_none()
        && p.text.is_none()
}

fn children_mut(node: &mut Node, shape: Shape) -> impl Iterator<Item = &mut Node> {
    let children = node.content.iter_mut().flatten();
    let cells = children.flat_map(move |c| match (shape, c.kind.clone()) {
        (Shape::Table, NodeType::TableRow) => c.content.iter_mut().flatten().collect::<Vec<_>>(),
        (Shape::List, NodeType::ListItem) => vec![c],
        _ => Vec::new(),
    });
    // A wrapped cell's blocks are in their `<div>`: none of them is the cell's text held bare.
    cells.filter(move |c| match shape {
        Shape::Table => {
            matches!(c.kind, NodeType::TableCell | NodeType::TableHeader) && !wrapped::wrapped(c)
        }
        Shape::List => true,
    })
}
