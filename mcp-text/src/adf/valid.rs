//! The repair pass before a document is written as ADF: whatever a document holds that ADF's content rules
//! cannot hold where it stands (Markdown, storage format and HTML all nest more freely) is moved to the
//! nearest form the official schema accepts, keeping the reading order and every character of text.
//!
//! It runs when ADF is the target (`convert`, `fields`), not when Markdown is read: a storage page read as
//! Markdown and written back as storage keeps a rule inside a block quote, which storage allows.
//!
//! Markdown nests anything in anything (a rule or a table in a list item, a block quote in a block quote,
//! an empty block quote); ADF does not. The pass only touches what the schema rejects, so a document that
//! is already valid (everything the writer produces from valid ADF) comes back unchanged. The rules, one
//! line each, are the table "Markdown ADF cannot hold as written" in `docs/text-markdown.md`:
//!
//! - a node renamed to its twin the place accepts: `expand` ↔ `nestedExpand`; a heading where ADF allows
//!   none becomes a paragraph whose text is strong;
//! - a node wrapped in the container it needs: inline nodes at block level in a paragraph, a stray list
//!   item in a bullet list, a row in a table, a cell in a row, media in a `mediaSingle`, a block in a list
//!   in a list item, a block in a row in a cell;
//! - a block quote where ADF allows none (in a block quote, in a list item) gives its content to its
//!   parent (the quoting level is lost, nothing else);
//! - anything else the place cannot hold (a rule, a table, a panel, an expand, a task list in a block
//!   quote…) is hoisted: its container is split around it, up to the first ancestor that holds it, so it
//!   reads where it was written (an ordered list split in two keeps its numbering);
//! - an empty container that must hold a block holds an empty paragraph (list item, cell, block quote,
//!   panel, expand); an empty list, table or row-less table, and empty text, are dropped (no text in them);
//! - `code` keeps only the marks ADF combines with it (link, annotation);
//! - a storage format `<span>` (`storage:element`, from a page or a `<span class>` a model wrote) gives its
//!   content in its place, its texts taking its marks.
//!
//! Unknown node types (markers) are left alone, content and all.

use crate::model::{Attrs, MarkType, Node, NodeType};
use crate::Read;
use std::collections::VecDeque;

use NodeType as T;

/// Repairs what the schema rejects in a document about to be written as ADF; the warnings are kept.
pub fn repair(mut read: Read) -> Read {
    fix_root(&mut read.doc);
    read
}

/// [`repair`] for a document whose root blocks come a run at a time (`markdown::read_streaming`): the
/// blocks [`RootRepair::run`] and [`RootRepair::finish`] give, in order, are those `repair` gives for
/// the whole. Inline nodes side by side at the root become one paragraph, so a run's last inline nodes
/// wait for the next run.
#[derive(Default)]
pub struct RootRepair {
    waiting: Vec<Node>,
}

impl RootRepair {
    /// The repaired blocks of `blocks`, children of `doc` (its content is not read).
    pub fn run(&mut self, doc: &Node, blocks: Vec<Node>) -> Vec<Node> {
        self.waiting.extend(blocks);
        let ready = self
            .waiting
            .iter()
            .rposition(|n| !n.kind.is_inline())
            .map_or(0, |i| i + 1);
        let rest = self.waiting.split_off(ready);
        let blocks = std::mem::replace(&mut self.waiting, rest);
        let mut root = shell(doc);
        root.content = Some(blocks);
        fix_root(&mut root);
        root.content.take().unwrap_or_default()
    }

    /// The document, its content (the blocks after the last run) repaired after what still waits.
    pub fn finish(mut self, mut doc: Node) -> Node {
        if let Some(content) = doc.content.take() {
            self.waiting.extend(content);
            doc.content = Some(self.waiting);
        } else if !self.waiting.is_empty() {
            doc.content = Some(self.waiting);
        }
        fix_root(&mut doc);
        doc
    }
}

/// Deeper than this (the reader caps nesting at 512), content is left as it is.
const MAX_DEPTH: usize = 2048;

const INLINE: &[NodeType] = NodeType::INLINE;

const DOC: &[NodeType] = &[
    T::BlockCard,
    T::CodeBlock,
    T::MediaSingle,
    T::Paragraph,
    T::TaskList,
    T::OrderedList,
    T::BulletList,
    T::Blockquote,
    T::DecisionList,
    T::EmbedCard,
    T::Extension,
    T::Heading,
    T::MediaGroup,
    T::Rule,
    T::Panel,
    T::Table,
    T::BodiedExtension,
    T::Expand,
    T::LayoutSection,
    T::SyncBlock,
    T::BodiedSyncBlock,
];

const LIST_ITEM: &[NodeType] = &[
    T::Paragraph,
    T::BulletList,
    T::OrderedList,
    T::TaskList,
    T::MediaSingle,
    T::CodeBlock,
    T::Extension,
];

const BLOCKQUOTE: &[NodeType] = &[
    T::Paragraph,
    T::OrderedList,
    T::BulletList,
    T::CodeBlock,
    T::MediaSingle,
    T::MediaGroup,
    T::Extension,
];

const PANEL: &[NodeType] = &[
    T::Paragraph,
    T::Heading,
    T::BulletList,
    T::OrderedList,
    T::BlockCard,
    T::MediaGroup,
    T::MediaSingle,
    T::CodeBlock,
    T::TaskList,
    T::Rule,
    T::DecisionList,
    T::Extension,
];

/// `non_nestable_block_content` (a bodied extension's content; an expand's with `nestedExpand`).
const NON_NESTABLE: &[NodeType] = &[
    T::Paragraph,
    T::Panel,
    T::Blockquote,
    T::OrderedList,
    T::BulletList,
    T::Rule,
    T::Heading,
    T::CodeBlock,
    T::MediaGroup,
    T::MediaSingle,
    T::DecisionList,
    T::TaskList,
    T::Table,
    T::BlockCard,
    T::EmbedCard,
    T::Extension,
];

const NESTED_EXPAND: &[NodeType] = &[
    T::Paragraph,
    T::Heading,
    T::MediaSingle,
    T::MediaGroup,
    T::CodeBlock,
    T::BulletList,
    T::OrderedList,
    T::TaskList,
    T::DecisionList,
    T::Rule,
    T::Panel,
    T::Blockquote,
    T::Extension,
];

const CELL: &[NodeType] = &[
    T::Paragraph,
    T::Panel,
    T::Blockquote,
    T::OrderedList,
    T::BulletList,
    T::Rule,
    T::Heading,
    T::CodeBlock,
    T::MediaSingle,
    T::MediaGroup,
    T::DecisionList,
    T::TaskList,
    T::BlockCard,
    T::EmbedCard,
    T::Extension,
    T::NestedExpand,
];

const LAYOUT_COLUMN: &[NodeType] = &[
    T::BlockCard,
    T::Paragraph,
    T::MediaSingle,
    T::CodeBlock,
    T::TaskList,
    T::BulletList,
    T::OrderedList,
    T::Heading,
    T::MediaGroup,
    T::DecisionList,
    T::Rule,
    T::Panel,
    T::Blockquote,
    T::Extension,
    T::EmbedCard,
    T::Table,
    T::Expand,
    T::BodiedExtension,
];

/// Whether the schema lets `parent` hold `child`; `None` when this pass does not know (an unknown type, a
/// node whose content the schema leaves free): then nothing is changed.
fn allows(parent: &NodeType, child: &NodeType) -> Option<bool> {
    if matches!(child, T::Other(_)) {
        return None;
    }
    let list: &[NodeType] = match parent {
        T::Doc => DOC,
        T::ListItem => LIST_ITEM,
        T::Blockquote => BLOCKQUOTE,
        T::Panel => PANEL,
        T::BodiedExtension => NON_NESTABLE,
        T::Expand => {
            if *child == T::NestedExpand {
                return Some(true);
            }
            NON_NESTABLE
        }
        T::NestedExpand => NESTED_EXPAND,
        T::TableCell | T::TableHeader => CELL,
        T::LayoutColumn => LAYOUT_COLUMN,
        T::BulletList | T::OrderedList => &[T::ListItem],
        T::TaskList => &[T::TaskItem, T::TaskList, T::BlockTaskItem],
        T::DecisionList => &[T::DecisionItem],
        T::Table => &[T::TableRow],
        T::TableRow => &[T::TableCell, T::TableHeader],
        T::MediaSingle => &[T::Media, T::Caption],
        T::MediaGroup => &[T::Media],
        T::LayoutSection => &[T::LayoutColumn],
        T::CodeBlock => &[T::Text],
        T::Paragraph | T::Heading | T::TaskItem | T::DecisionItem | T::Caption => INLINE,
        _ => return None,
    };
    Some(list.contains(child))
}

/// Containers the schema requires to hold at least one block: given an empty paragraph when empty.
fn needs_a_block(kind: &NodeType) -> bool {
    matches!(
        kind,
        T::ListItem
            | T::Blockquote
            | T::Panel
            | T::Expand
            | T::NestedExpand
            | T::TableCell
            | T::TableHeader
            | T::LayoutColumn
            | T::BodiedExtension
    )
}

/// Containers that mean nothing empty (no text in them): dropped when empty.
fn dropped_when_empty(kind: &NodeType) -> bool {
    matches!(
        kind,
        T::BulletList | T::OrderedList | T::TaskList | T::DecisionList | T::Table | T::MediaGroup
    )
}

/// A node the place would hold once renamed or wrapped (`Ok`), or the node as it was (`Err`, boxed: a
/// node is large and this path is rare).
fn adapt(mut node: Node, parent: &NodeType) -> Result<Node, Box<Node>> {
    let kind = node.kind.clone();
    let ok = |k: &NodeType| allows(parent, k) == Some(true);
    match kind {
        T::Expand if ok(&T::NestedExpand) => {
            node.kind = T::NestedExpand;
            if node.attrs.is_none() {
                node.attrs = Some(Attrs::new());
            }
            Ok(node)
        }
        T::NestedExpand if ok(&T::Expand) => {
            node.kind = T::Expand;
            Ok(node)
        }
        T::Heading if ok(&T::Paragraph) => {
            node.kind = T::Paragraph;
            if let Some(attrs) = node.attrs.as_mut() {
                attrs.remove("level");
                if attrs.is_empty() {
                    node.attrs = None;
                }
            }
            if let Some(content) = node.content.as_mut() {
                for child in content.iter_mut().filter(|c| c.kind == T::Text) {
                    let marks = child.marks.get_or_insert_with(Vec::new);
                    let coded = marks.iter().any(|m| m.kind == MarkType::Code);
                    if !coded && !marks.iter().any(|m| m.kind == MarkType::Strong) {
                        marks.push(crate::model::Mark::new(MarkType::Strong));
                    }
                }
            }
            Ok(node)
        }
        _ => {
            if *parent == T::Table && allows(&T::TableCell, &kind) == Some(true) {
                let cell = Node::with_content(T::TableCell, vec![node]);
                return Ok(Node::with_content(T::TableRow, vec![cell]));
            }
            let wrapper = match (parent, &kind) {
                (T::BulletList | T::OrderedList, _) => T::ListItem,
                (T::Table, _) => T::TableRow,
                (T::TableRow, _) => T::TableCell,
                (_, T::ListItem) => T::BulletList,
                (_, T::TableRow) => T::Table,
                (_, T::TableCell | T::TableHeader) => T::TableRow,
                (_, T::Media) => T::MediaSingle,
                (_, k) if k.is_inline() => T::Paragraph,
                _ => return Err(Box::new(node)),
            };
            // Only a wrapper that holds the node: else it would be hoisted straight back out.
            if !ok(&wrapper) || allows(&wrapper, &kind) != Some(true) {
                return Err(Box::new(node));
            }
            let mut outer = Node::with_content(wrapper.clone(), vec![node]);
            if wrapper == T::MediaSingle {
                let mut attrs = Attrs::new();
                attrs.insert("layout", "center".into());
                outer.attrs = Some(attrs);
            }
            Ok(outer)
        }
    }
}

enum Piece {
    Held(Vec<Node>),
    Hoisted(Node),
}

/// A node being rebuilt (a loop with a stack of these rather than recursion: no depth overflows).
struct Frame {
    /// The node without its content.
    node: Node,
    kind: NodeType,
    /// Its original children, not yet looked at.
    queue: std::vec::IntoIter<Node>,
    /// Nodes to deal with before the queue: `true` to repair (enter), `false` to place as they are.
    incoming: VecDeque<(Node, bool)>,
    /// Consecutive inline nodes where blocks belong, for one paragraph.
    run: Vec<Node>,
    wraps_inline: bool,
    /// The content kept so far, and (once something had to leave) the runs and hoisted nodes.
    held: Vec<Node>,
    pieces: Vec<Piece>,
}

impl Frame {
    fn new(mut node: Node, children: Vec<Node>) -> Frame {
        let kind = node.kind.clone();
        node.content = None;
        Frame {
            wraps_inline: allows(&kind, &T::Paragraph) == Some(true)
                && allows(&kind, &T::Text) == Some(false),
            held: Vec::with_capacity(children.len()),
            node,
            kind,
            queue: children.into_iter(),
            incoming: VecDeque::new(),
            run: Vec::new(),
            pieces: Vec::new(),
        }
    }

    /// The next node to deal with, or `None` when the node is done.
    fn next(&mut self) -> Option<(Node, bool)> {
        if let Some(item) = self.incoming.pop_front() {
            return Some(item);
        }
        loop {
            match self.queue.next() {
                Some(child) if self.wraps_inline && child.kind.is_inline() => self.run.push(child),
                Some(child) => {
                    if self.run.is_empty() {
                        return Some((child, true));
                    }
                    self.incoming.push_back((child, true));
                    return Some((self.paragraph(), true));
                }
                None if self.run.is_empty() => return None,
                None => return Some((self.paragraph(), true)),
            }
        }
    }

    fn paragraph(&mut self) -> Node {
        Node::with_content(T::Paragraph, std::mem::take(&mut self.run))
    }

    /// Puts a repaired node here: held; or (a block quote where none may be) its content in its place;
    /// or renamed / wrapped and repaired again; or hoisted out.
    fn place(&mut self, piece: Node, root: bool) {
        if root || allows(&self.kind, &piece.kind) != Some(false) {
            self.held.push(piece);
            return;
        }
        if piece.kind == T::Blockquote && matches!(self.kind, T::Blockquote | T::ListItem) {
            let mut piece = piece;
            for inner in piece.content.take().unwrap_or_default().into_iter().rev() {
                self.incoming.push_front((inner, false));
            }
            return;
        }
        match adapt(piece, &self.kind) {
            Ok(adapted) => self.incoming.push_front((adapted, true)),
            Err(piece) => {
                if !self.held.is_empty() {
                    self.pieces
                        .push(Piece::Held(std::mem::take(&mut self.held)));
                }
                self.pieces.push(Piece::Hoisted(*piece));
            }
        }
    }

    /// The nodes that take this node's place in its parent, in reading order: the node itself, or its
    /// copies around what it could not hold, or nothing when it was empty and meant nothing.
    fn finish(mut self) -> Vec<Node> {
        let kind = self.kind.clone();
        if self.pieces.is_empty() {
            let mut node = self.node;
            if self.held.is_empty() {
                if needs_a_block(&kind) {
                    node.content = Some(vec![Node::new(T::Paragraph)]);
                    return vec![node];
                }
                if dropped_when_empty(&kind) {
                    return Vec::new();
                }
            }
            node.content = Some(self.held);
            return vec![node];
        }
        if !self.held.is_empty() {
            self.pieces
                .push(Piece::Held(std::mem::take(&mut self.held)));
        }
        let mut out = Vec::new();
        let mut emitted_items = 0u64;
        for piece in self.pieces {
            match piece {
                Piece::Held(run) => {
                    let mut copy = shell(&self.node);
                    if kind == T::OrderedList && emitted_items > 0 {
                        let start = self
                            .node
                            .attr("order")
                            .and_then(|o| o.as_u64())
                            .unwrap_or(1);
                        copy.set_attr("order", start + emitted_items);
                    }
                    emitted_items += run.len() as u64;
                    copy.content = Some(run);
                    out.push(copy);
                }
                Piece::Hoisted(n) => out.push(n),
            }
        }
        out
    }
}

/// Repairs the content of `doc` (the root holds whatever reaches it).
fn fix_root(doc: &mut Node) {
    let Some(children) = doc.content.take() else {
        return;
    };
    let shell = shell(doc);
    let mut stack = vec![Frame::new(shell, children)];
    loop {
        let depth = stack.len();
        let frame = stack.last_mut().expect("the root frame is popped last");
        match frame.next() {
            None => {
                let frame = stack.pop().expect("a frame");
                if stack.is_empty() {
                    doc.content = Some(frame.held);
                    return;
                }
                let parent = stack.last_mut().expect("a parent");
                for node in frame.finish().into_iter().rev() {
                    parent.incoming.push_front((node, false));
                }
            }
            Some((node, false)) => frame.place(node, depth == 1),
            Some((mut node, true)) => {
                if let Some(content) = span_content(&mut node) {
                    for n in content.into_iter().rev() {
                        frame.incoming.push_front((n, true));
                    }
                    continue;
                }
                if allows(&frame.kind, &node.kind) == Some(false) {
                    node = adapt(node, &frame.kind).unwrap_or_else(|n| *n);
                }
                if node.kind == T::Text {
                    for n in fix_text(node).into_iter().rev() {
                        frame.incoming.push_front((n, false));
                    }
                    continue;
                }
                let children = if matches!(node.kind, T::Other(_)) || depth > MAX_DEPTH {
                    None
                } else {
                    node.content.take()
                };
                match children {
                    Some(children) => stack.push(Frame::new(node, children)),
                    None => frame.incoming.push_front((node, false)),
                }
            }
        }
    }
}

/// The content that takes the place of a storage format `<span>` (a `storage:element` named `span`, read
/// from a storage page or from a `<span class="…">` a model wrote in Markdown), which ADF has no node for:
/// its children, each text with the span's marks besides its own. `None` for any other node.
fn span_content(node: &mut Node) -> Option<Vec<Node>> {
    let T::Other(kind) = &node.kind else {
        return None;
    };
    if &**kind != crate::storage::ELEMENT || node.attr_str("name") != Some("span") {
        return None;
    }
    let marks = node.marks.take().filter(|m| !m.is_empty());
    let mut content = node.content.take().unwrap_or_default();
    for text in content.iter_mut().filter(|c| c.kind == T::Text) {
        let Some(marks) = &marks else { break };
        let own = text.marks.get_or_insert_with(Vec::new);
        for mark in marks {
            if !own.contains(mark) {
                own.push(mark.clone());
            }
        }
        own.sort_by_key(|m| m.kind.rank());
    }
    Some(content)
}

/// A copy of `node`'s own members without its content.
fn shell(node: &Node) -> Node {
    let mut copy = Node::new(node.kind.clone());
    copy.attrs = node.attrs.clone();
    copy.marks = node.marks.clone();
    copy.text = node.text.clone();
    copy.extra = node.extra.clone();
    copy
}

/// Text: empty text is no node; `code` keeps only the marks ADF combines with it.
fn fix_text(mut node: Node) -> Vec<Node> {
    if node.text.as_deref().is_none_or(str::is_empty) {
        return Vec::new();
    }
    if let Some(marks) = node.marks.as_mut() {
        if marks.iter().any(|m| m.kind == MarkType::Code) {
            marks.retain(|m| {
                !matches!(
                    m.kind,
                    MarkType::Strong
                        | MarkType::Em
                        | MarkType::Strike
                        | MarkType::Underline
                        | MarkType::Subsup
                        | MarkType::TextColor
                        | MarkType::BackgroundColor
                )
            });
        }
    }
    vec![node]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adf;

    fn fixed(json: &str) -> String {
        let doc = adf::read(json.as_bytes()).expect("ADF");
        let read = repair(Read {
            doc,
            warnings: Vec::new(),
        });
        adf::write(&read.doc)
    }

    fn same(json: &str) {
        let doc = adf::read(json.as_bytes()).expect("ADF");
        assert_eq!(fixed(json), adf::write(&doc));
    }

    #[test]
    fn valid_documents_are_unchanged() {
        same(
            r#"{"type":"doc","version":1,"content":[{"type":"bulletList","content":[{"type":"listItem","content":[{"type":"codeBlock","content":[{"type":"text","text":"x"}]},{"type":"paragraph"}]}]},{"type":"blockquote","content":[{"type":"paragraph","content":[{"type":"text","text":"a","marks":[{"type":"code"},{"type":"link","attrs":{"href":"u"}}]}]}]}]}"#,
        );
    }

    #[test]
    fn a_rule_in_a_list_item_splits_the_list_and_keeps_the_numbering() {
        let out = fixed(
            r#"{"type":"doc","version":1,"content":[{"type":"orderedList","attrs":{"order":3},"content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"a"}]}]},{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"b"}]},{"type":"rule"},{"type":"paragraph","content":[{"type":"text","text":"c"}]}]},{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"d"}]}]}]}]}"#,
        );
        assert_eq!(
            out,
            r#"{"type":"doc","version":1,"content":[{"type":"orderedList","attrs":{"order":3},"content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"a"}]}]},{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"b"}]}]}]},{"type":"rule"},{"type":"orderedList","attrs":{"order":5},"content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"c"}]}]},{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"d"}]}]}]}]}"#
        );
    }

    #[test]
    fn nested_block_quotes_flatten_and_empty_ones_hold_a_paragraph() {
        let out = fixed(
            r#"{"type":"doc","version":1,"content":[{"type":"blockquote","content":[{"type":"blockquote","content":[{"type":"paragraph","content":[{"type":"text","text":"a"}]}]}]},{"type":"blockquote","content":[]}]}"#,
        );
        assert_eq!(
            out,
            r#"{"type":"doc","version":1,"content":[{"type":"blockquote","content":[{"type":"paragraph","content":[{"type":"text","text":"a"}]}]},{"type":"blockquote","content":[{"type":"paragraph"}]}]}"#
        );
    }

    #[test]
    fn code_keeps_only_link_and_empty_text_goes() {
        let out = fixed(
            r#"{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":""},{"type":"text","text":"x","marks":[{"type":"strong"},{"type":"code"}]}]}]}"#,
        );
        assert_eq!(
            out,
            r#"{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"x","marks":[{"type":"code"}]}]}]}"#
        );
    }

    #[test]
    fn deep_lists_do_not_overflow() {
        let mut node = Node::with_content(T::Paragraph, vec![Node::text("x")]);
        for _ in 0..600 {
            let item = Node::with_content(T::ListItem, vec![node]);
            node = Node::with_content(T::BulletList, vec![item]);
        }
        let doc = Node::doc(vec![node]);
        let read = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                repair(Read {
                    doc,
                    warnings: Vec::new(),
                })
            })
            .expect("thread")
            .join()
            .expect("no overflow");
        assert_eq!(read.doc.children().len(), 1);
    }
}
