//! Tables and lists whose cells and items hold their text bare (`<td>Alpha</td>`, `<li>one</li>`), as
//! Atlassian's own storage examples and Confluence Server's and Data Center's editor write them. Read as
//! they are, each such text is an implicit paragraph, which Markdown's pipe cell and list item do not say:
//! every cell and item paid a marker, and the table became an HTML table. So the reader says it once for
//! the table or list, `storage.bare`, and gives its cells and items plain paragraphs; the writer puts a bare
//! container's plain paragraphs back bare.
//!
//! What goes bare: a cell's one paragraph (a cell holding more blocks is an HTML table's cell anyway), an
//! item's first block (`<li>three<ul>…</ul></li>`); an empty cell or item holds an empty paragraph, as an
//! empty pipe cell or `- ` reads. A container goes bare when at least as many children hold their text bare
//! (or nothing) as hold it in a plain `<p>` where the writer would write the text bare; a child held the
//! other way than its container says so itself (`storage.bare: false` in a bare one, `true` in another), as
//! a Data Center page's tables have it whose cells were edited some one way, some the other.

use serde_json::Value;

use super::attrs::{
    implicit_attrs, is_implicit, remove_storage_key, storage, storage_flag, storage_of,
};
use super::cells::{cells_mut, row_cells, rows};
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

    /// Where the paragraph of a child that would be bare is among its `len` blocks: a cell's one block, an
    /// item's first.
    fn slot(self, len: usize) -> Option<usize> {
        match (self, len) {
            (Shape::Table, 1) => Some(0),
            (Shape::List, 1..) => Some(0),
            _ => None,
        }
    }
}

/// What writing a child bare does to its blocks.
enum Given {
    /// Its plain paragraph, with text, is implicit again (`<li>text</li>`).
    Implicit(usize),
    /// Its one plain paragraph, empty, is nothing (`<li />`).
    Nothing,
}

impl Given {
    fn to(shape: Shape, content: &[Node]) -> Option<Given> {
        let at = shape.slot(content.len())?;
        let p = &content[at];
        if !is_plain(p) {
            None
        } else if !p.children().is_empty() {
            Some(Given::Implicit(at))
        } else {
            (content.len() == 1).then_some(Given::Nothing)
        }
    }
}

/// How a child of a table or list just read holds its text.
#[derive(Clone, Copy, PartialEq)]
enum Holds {
    /// Bare (an implicit paragraph where the writer would write it bare), or nothing at all.
    Bare,
    Empty,
    /// In a plain `<p>` where the writer of a bare container would write it bare.
    P,
    /// Any other way, which the writer writes as it is either way.
    Other,
}

fn holds(shape: Shape, child: &Node) -> Holds {
    let Some(content) = child.content.as_ref() else {
        return Holds::Other;
    };
    if content.is_empty() {
        return Holds::Empty;
    }
    match shape.slot(content.len()).map(|at| &content[at]) {
        Some(p) if is_implicit(p) => Holds::Bare,
        Some(p) if is_plain(p) && Given::to(shape, content).is_some() => Holds::P,
        _ => Holds::Other,
    }
}

/// Makes a table or list just read bare, when its children say so (see the module): when as many of its
/// children hold their text bare (or nothing) as hold it in a `<p>`. A child that holds it the other way
/// than its container says so itself (`storage.bare`), so that a table whose cells a Data Center editor
/// wrote some one way and some the other stays a pipe table.
pub(super) fn read(node: &mut Node) {
    let Some(shape) = Shape::of(node) else {
        return;
    };
    let (mut bare, mut p) = (0, 0);
    for child in children_mut(node, shape) {
        match holds(shape, child) {
            Holds::Bare | Holds::Empty => bare += 1,
            Holds::P => p += 1,
            Holds::Other => {}
        }
    }
    if bare == 0 {
        return;
    }
    let container_bare = bare >= p;
    for child in children_mut(node, shape) {
        let held = holds(shape, child);
        let own = match held {
            Holds::Bare => true,
            Holds::Empty if container_bare => true,
            Holds::P => false,
            Holds::Empty | Holds::Other => continue,
        };
        if own != container_bare {
            let attrs = child.attrs.get_or_insert_with(Default::default);
            storage_of(attrs).insert(BARE.into(), Value::Bool(own));
        }
        let Some(content) = child.content.as_mut() else {
            continue;
        };
        match held {
            Holds::Empty => content.push(Node::new(NodeType::Paragraph)),
            Holds::Bare => {
                if let Some(at) = shape.slot(content.len()) {
                    content[at].attrs = None;
                }
            }
            _ => {}
        }
    }
    if !container_bare {
        return;
    }
    if let Shape::List = shape {
        for item in children_mut(node, shape) {
            nested_lists_mut(item.content.as_deref_mut().unwrap_or_default()).for_each(inherit);
        }
    }
    let attrs = node.attrs.get_or_insert_with(Default::default);
    storage_of(attrs).insert(BARE.into(), Value::Bool(true));
}

/// A list in a bare list's item is bare as its list is (Server's editor writes every list bare), so
/// it says nothing; one that is not says so (`storage.bare: false`) when writing it bare would change
/// it. One that writing bare leaves as it is says nothing either, so the lists in its items inherit
/// too.
fn inherit(list: &mut Node) {
    if storage_flag(list.attrs.as_ref(), BARE) {
        // Read bare itself: the lists in its items have inherited from it already.
        remove_storage_key(list, BARE);
    } else if children_mut(list, Shape::List)
        .any(|item| Given::to(Shape::List, item.children()).is_some())
    {
        let attrs = list.attrs.get_or_insert_with(Default::default);
        storage_of(attrs).insert(BARE.into(), Value::Bool(false));
    } else {
        for item in children_mut(list, Shape::List) {
            nested_lists_mut(item.content.as_deref_mut().unwrap_or_default()).for_each(inherit);
        }
    }
}

/// The lists among an item's blocks.
fn nested_lists_mut(content: &mut [Node]) -> impl Iterator<Item = &mut Node> {
    content
        .iter_mut()
        .filter(|b| Shape::of(b).is_some_and(|s| matches!(s, Shape::List)))
}

/// The node the writer writes for a bare table or list, or one with bare children (`None`: neither,
/// written as it is): each bare child's plain paragraph in its place implicit again, or, alone and empty,
/// nothing. A child is bare as its container is unless it says otherwise (see [`read`]).
pub(super) fn write_form(node: &Node) -> Option<Node> {
    let shape = Shape::of(node)?;
    let container_bare = storage_flag(node.attrs.as_ref(), BARE);
    let own =
        |child: &Node| -> Option<bool> { storage(child.attrs.as_ref())?.get(BARE)?.as_bool() };
    if !container_bare && !children(node, shape).any(|c| own(c) == Some(true)) {
        return None;
    }
    let mut node = node.clone();
    for child in children_mut(&mut node, shape) {
        let child_bare = own(child).unwrap_or(container_bare);
        let Some(content) = child.content.as_mut() else {
            continue;
        };
        if child_bare {
            match Given::to(shape, content) {
                Some(Given::Implicit(at)) => content[at].attrs = Some(implicit_attrs()),
                Some(Given::Nothing) => content.clear(),
                None => {}
            }
        }
        // Bare as its list is, unless it says it is not (see `inherit`).
        if let (Shape::List, true) = (shape, container_bare) {
            for list in nested_lists_mut(content) {
                let says = storage(list.attrs.as_ref()).and_then(|s| s.get(BARE));
                if says.is_none() {
                    let attrs = list.attrs.get_or_insert_with(Default::default);
                    storage_of(attrs).insert(BARE.into(), Value::Bool(true));
                }
            }
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

/// [`children_mut`], read only.
fn children(node: &Node, shape: Shape) -> Box<dyn Iterator<Item = &Node> + '_> {
    match shape {
        Shape::Table => Box::new(
            rows(node)
                .flat_map(row_cells)
                .filter(|c| !wrapped::wrapped(c)),
        ),
        Shape::List => Box::new(
            node.children()
                .iter()
                .filter(|c| c.kind == NodeType::ListItem),
        ),
    }
}

fn children_mut(node: &mut Node, shape: Shape) -> Box<dyn Iterator<Item = &mut Node> + '_> {
    match shape {
        // A wrapped cell's blocks are in their `<div>`: none of them is the cell's text held bare.
        Shape::Table => Box::new(cells_mut(node).filter(|c| !wrapped::wrapped(c))),
        Shape::List => Box::new(
            node.content
                .iter_mut()
                .flatten()
                .filter(|c| c.kind == NodeType::ListItem),
        ),
    }
}
