//! The reader's state: the frames of open blocks, the inline content being gathered, the containers open
//! in a frame, and what every stage shares (warnings, markers applied, lines).

use super::super::forms::singleton;
use super::super::marker;
use crate::error::Warning;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};
use serde_json::{Map, Value};

/// Block nesting (block quotes, lists, items) deeper than this is flattened.
pub const MAX_NESTING: usize = 512;

/// Each item's task marker, and the diff its line carries with the type its marker names (a `taskItem`,
/// or a `blockTaskItem` that holds the item's blocks).
pub(super) type Tasks = Vec<(Option<bool>, Option<(NodeType, Map<String, Value>)>)>;

pub(super) const IMAGE: &str = "\u{0}md:image";

#[derive(PartialEq)]
pub(super) enum Fk {
    Doc,
    Quote {
        panel: Option<&'static str>,
        /// The title on a panel's `[!TYPE]` line.
        title: Option<String>,
    },
    List {
        start: Option<u64>,
        tasks: Tasks,
    },
    Item {
        task: Option<bool>,
        inline_d: Option<(NodeType, Map<String, Value>)>,
    },
    Table,
    Row {
        d: Option<Map<String, Value>>,
        /// Its `localId` from a short marker in its first cell (see `R::end_cell`).
        id: Option<String>,
    },
}

pub(super) struct Pending {
    pub(super) kind: NodeType,
    pub(super) diff: Map<String, Value>,
    pub(super) line: usize,
    pub(super) count: Option<usize>,
}

pub(super) struct Open {
    pub(super) kind: NodeType,
    pub(super) attrs: Option<Attrs>,
    pub(super) diff: Option<Map<String, Value>>,
    pub(super) start: usize,
    pub(super) line: usize,
    /// An HTML element (`<details>`, `<table>`, …) rather than a marker pair.
    pub(super) html: bool,
    /// How many blocks its open marker says it holds (where it ends if its close marker is lost).
    pub(super) count: Option<usize>,
    /// A section's columns that lost their open marker (indices into the frame's children): their
    /// widths are shares of what the others leave, known when the section closes.
    pub(super) recovered: Vec<usize>,
}

pub(super) struct Frame {
    pub(super) kind: Fk,
    pub(super) children: Vec<Node>,
    pub(super) pending: Option<Pending>,
    pub(super) opens: Vec<Open>,
    pub(super) self_d: Option<Map<String, Value>>,
    pub(super) line: usize,
}

impl Frame {
    pub(super) fn new(kind: Fk, line: usize) -> Self {
        Frame {
            kind,
            children: Vec::new(),
            pending: None,
            opens: Vec::new(),
            self_d: None,
            line,
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Ik {
    Paragraph,
    Heading(u8),
    Cell,
    Implicit,
}

#[derive(Clone, PartialEq)]
pub(super) enum Closer {
    Em,
    Strong,
    Strike,
    Link,
    Html(&'static str),
}

pub(super) enum CapKind {
    Atom,
    Autolink,
    Image,
}

pub(super) struct Capture {
    pub(super) kind: CapKind,
    pub(super) dest: String,
    pub(super) title: String,
    pub(super) text: String,
    pub(super) depth: usize,
    pub(super) line: usize,
}

/// An element whose open tag was read: the node but its content, and where its content starts among the
/// run's nodes. Its place among the open marks is an [`ELEMENT_OPEN`] entry.
pub(super) struct OpenElement {
    pub(super) node: Node,
    pub(super) start: usize,
}

/// The entry of an open element among the open marks: the marks before it are the element's, those after
/// it its content's.
pub(super) const ELEMENT_OPEN: &str = "\u{0}element";

/// Whether an open mark is an element's entry.
pub(super) fn is_element_open(mark: &Mark) -> bool {
    matches!(&mark.kind, MarkType::Other(n) if &**n == ELEMENT_OPEN)
}

pub(super) struct Inl {
    pub(super) kind: Ik,
    pub(super) nodes: Vec<Node>,
    pub(super) active: Vec<(Mark, Closer)>,
    pub(super) marks: Option<Vec<Mark>>,
    pub(super) split: bool,
    pub(super) capture: Option<Capture>,
    /// Skipping a panel's `[!TYPE]` line.
    pub(super) skip_line: bool,
    /// The paragraph so far is only a task item's `blockTaskItem` marker: no paragraph if nothing follows.
    pub(super) item_marker: bool,
    pub(super) link_starts: Vec<usize>,
    /// The storage elements open (`<span class="…">`, see `element`), innermost last.
    pub(super) elements: Vec<OpenElement>,
    /// In a pipe table cell, where each paragraph after the first starts among `nodes` (a `<p>`).
    pub(super) paragraph_starts: Vec<usize>,
    pub(super) cell_d: Option<(NodeType, Map<String, Value>)>,
    /// The short markers `<!--#ID-->` before a pipe table cell's text: from the last, the `localId` of
    /// the cell's paragraph, of the cell, of the row (in its first cell).
    pub(super) cell_ids: Vec<String>,
    pub(super) line: usize,
}

pub(super) struct R<'s> {
    pub(super) src: &'s str,
    /// A place in `src` and its line (1 + the line breaks before it): [`R::line_of`] counts from there.
    pub(super) line_at: usize,
    pub(super) line_no: usize,
    pub(super) frames: Vec<Frame>,
    pub(super) inl: Option<Inl>,
    pub(super) code: Option<(Option<String>, String, usize)>,
    pub(super) html: Option<(String, usize)>,
    pub(super) skipped: usize,
    pub(super) warned_depth: bool,
    pub(super) warnings: Vec<Warning>,
    /// A short marker `<!--#ID-->` and its line, waiting for the block it names (see [`R::next_block_id`]).
    pub(super) id: Option<(String, usize)>,
}

pub(super) trait TakeIt<T> {
    fn take_it(&self) -> Option<T>;
}

impl TakeIt<Map<String, Value>> for Option<Map<String, Value>> {
    fn take_it(&self) -> Option<Map<String, Value>> {
        self.clone()
    }
}

impl R<'_> {
    /// The line of byte `offset`, counted from the last one asked for (the parser's events go forward,
    /// so this is one count of the text's line breaks in all).
    pub(super) fn line_of(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.src.len());
        let bytes = self.src.as_bytes();
        if offset >= self.line_at {
            self.line_no += memchr::memchr_iter(b'\n', &bytes[self.line_at..offset]).count();
        } else {
            self.line_no -= memchr::memchr_iter(b'\n', &bytes[offset..self.line_at]).count();
        }
        self.line_at = offset;
        self.line_no
    }

    pub(super) fn warn(&mut self, line: usize, msg: impl Into<String>) {
        if self.warnings.len() < 10_000 {
            self.warnings.push(Warning::new(line, msg));
        }
    }

    pub(super) fn apply(&mut self, node: &mut Node, d: &Map<String, Value>, line: usize) {
        if let Err(e) = marker::apply(node, d) {
            let name = node.kind.name().to_string();
            self.warn(line, format!("the `{name}` marker could not be used ({e}); the node keeps what its Markdown says"));
        }
    }

    pub(super) fn frame(&mut self) -> &mut Frame {
        let n = self.frames.len();
        &mut self.frames[n - 1]
    }

    pub(super) fn inl_mut(&mut self, line: usize) -> &mut Inl {
        if self.inl.is_none() {
            self.inl = Some(new_inl(Ik::Implicit, line));
        }
        self.inl.as_mut().unwrap_or_else(|| unreachable!())
    }
}

pub(super) fn new_inl(kind: Ik, line: usize) -> Inl {
    Inl {
        kind,
        nodes: Vec::new(),
        active: Vec::new(),
        marks: Some(Vec::new()),
        split: false,
        capture: None,
        skip_line: false,
        item_marker: false,
        link_starts: Vec::new(),
        elements: Vec::new(),
        paragraph_starts: Vec::new(),
        cell_d: None,
        cell_ids: Vec::new(),
        line,
    }
}

pub(super) fn is_image(n: &Node) -> bool {
    matches!(&n.kind, NodeType::Other(name) if &**name == IMAGE)
}

/// The marks a text gets from the open spans: one of each kind (annotations may repeat), in the
/// schema's order; code keeps only links (ADF allows no other mark with code).
pub(super) fn marks_of(active: &[(Mark, Closer)]) -> Vec<Mark> {
    // Inside an element, the marks opened within it (those outside are the element's own).
    let within = active
        .iter()
        .rposition(|(m, _)| is_element_open(m))
        .map_or(0, |i| i + 1);
    let active = &active[within..];
    let mut marks: Vec<Mark> = Vec::with_capacity(active.len());
    for (m, _) in active {
        if matches!(&m.kind, MarkType::Other(n) if &**n == "\u{0}none") {
            continue;
        }
        if singleton(&m.kind) && marks.iter().any(|x| x.kind == m.kind) {
            continue;
        }
        if marks.iter().any(|x| x == m) {
            continue;
        }
        marks.push(m.clone());
    }
    marks.sort_by_key(|m| m.kind.rank());
    if marks.iter().any(|m| m.kind == MarkType::Code) {
        marks.retain(|m| matches!(m.kind, MarkType::Code | MarkType::Link));
    }
    marks
}

/// `v` without its spare capacity: a finished node's children do not grow.
pub(super) fn shrunk<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}
