//! The writer's state and its primitives: one `String` with the prefixes of the containers it is in (`> `,
//! two spaces, a list item's marker waiting for its first line), lines and blank lines under them, marker
//! lines, inline content. The block walk (write.rs) and the tables (table.rs) both write through it.

use super::inline::{self, Place, Scratch};
use super::json;
use super::marker::{self, Diff, Inf};
use super::WriteOptions;
use crate::model::{Node, NodeType};

/// What holds a block: decides what the reader would infer (and so which markers are needed).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Parent {
    Doc,
    Item,
    Quote,
    Cell,
    Expand,
    Other,
}

struct Prefix {
    /// Where this segment's continuation text starts in `W::pre`.
    at: usize,
    first: Option<String>,
}

pub(super) struct W<'a> {
    pub out: String,
    pub(super) pre: String,
    segs: Vec<Prefix>,
    pub(super) pending: usize,
    pub(super) opts: &'a WriteOptions<'a>,
    pub(super) scratch: Scratch,
    pub(super) line: String,
    pub(super) depth: usize,
    /// Where the last line's own text starts in `out`, after its containers' prefixes and item markers.
    pub(super) body_at: usize,
    /// How many marker pairs (`<!--adf:TYPE N-->` … `<!--/adf:TYPE N-->`) are open around what is written.
    pub(super) pairs: usize,
    /// The width a layout section gives the column written next, its child (`marker::column_width`;
    /// `Some(None)`: none, the section has more columns than shares). A column no section writes has
    /// `marker::LONE_COLUMN_WIDTH`.
    pub(super) column_width: Option<Option<Inf<'static>>>,
}

impl<'a> W<'a> {
    pub fn new(opts: &'a WriteOptions<'a>, capacity: usize) -> Self {
        W {
            out: String::with_capacity(capacity),
            pre: String::new(),
            segs: Vec::new(),
            pending: 0,
            opts,
            scratch: Scratch::default(),
            line: String::new(),
            depth: 0,
            body_at: 0,
            pairs: 0,
            column_width: None,
        }
    }

    pub(super) fn start_line(&mut self) {
        if self.pending == 0 {
            self.out.push_str(&self.pre);
            self.body_at = self.out.len();
            return;
        }
        for i in 0..self.segs.len() {
            let end = self.segs.get(i + 1).map_or(self.pre.len(), |s| s.at);
            match self.segs[i].first.take() {
                Some(m) => self.out.push_str(&m),
                None => self.out.push_str(&self.pre[self.segs[i].at..end]),
            }
        }
        self.pending = 0;
        self.body_at = self.out.len();
    }

    /// One line of text (no newline inside) under the current prefixes.
    pub fn line(&mut self, s: &str) {
        self.start_line();
        self.out.push_str(s);
        self.trim_line_end_if(s.is_empty());
        self.out.push('\n');
    }

    /// Several lines (separated by `\n`).
    pub fn lines(&mut self, s: &str) {
        for l in s.split('\n') {
            self.line(l);
        }
    }

    pub(super) fn trim_line_end_if(&mut self, empty: bool) {
        if empty {
            let keep = self.out.trim_end_matches(' ').len();
            self.out.truncate(keep);
        }
    }

    pub fn blank(&mut self) {
        if self.pending > 0 {
            // An item whose first line has not been written yet: the marker line itself.
            self.line("");
            return;
        }
        let t = self.pre.trim_end();
        self.out.push_str(t);
        self.out.push('\n');
    }

    pub(super) fn push_prefix(&mut self, cont: &str, first: Option<String>) {
        if first.is_some() {
            self.pending += 1;
        }
        self.segs.push(Prefix {
            at: self.pre.len(),
            first,
        });
        self.pre.push_str(cont);
    }

    /// Whether the line not yet started opens with two or more list items of `bullet` and nothing else
    /// (`- - `): a third would make `- - -`, which Markdown reads as a thematic break when the line ends
    /// there.
    pub(super) fn line_opens_with_bullets(&self, bullet: char) -> bool {
        self.pending >= 2
            && self
                .segs
                .iter()
                .filter_map(|s| s.first.as_deref())
                .all(|m| m.len() == 2 && m.starts_with(bullet) && m.ends_with(' '))
    }

    pub(super) fn pop_prefix(&mut self) {
        if let Some(seg) = self.segs.pop() {
            if seg.first.is_some() {
                self.pending -= 1;
            }
            self.pre.truncate(seg.at);
        }
    }

    /// A marker line: `<!--adf:TYPE {diff}-->` (or `… /-->` for a whole node).
    pub fn marker(&mut self, kind: &str, d: Option<&Diff>, leaf: bool) {
        let end = if leaf { " /-->\n" } else { "-->\n" };
        self.marker_line("<!--adf:", kind, d, 0, end);
    }

    /// `<!--#ID-->`: the next block's `localId`, all its marker would say (`marker::Marker::Id`).
    pub(super) fn id_marker(&mut self, id: &str) {
        if self.opts.plain {
            return;
        }
        self.start_line();
        super::marker::push_id(&mut self.out, id);
        self.out.push('\n');
    }

    /// `<!--adf:TYPE {diff} N-->`: the open marker of a container holding `count` blocks.
    pub(super) fn open_marker(&mut self, kind: &str, d: Option<&Diff>, count: usize) {
        self.marker_line("<!--adf:", kind, d, count, "-->\n");
    }

    /// `<!--/adf:TYPE N-->`: the close marker of a container holding `count` blocks.
    pub(super) fn close_marker(&mut self, kind: &str, count: usize) {
        self.marker_line("<!--/adf:", kind, None, count, "-->\n");
    }

    /// A marker's line (none in plain Markdown), its JSON written once, straight into the output.
    fn marker_line(&mut self, open: &str, kind: &str, d: Option<&Diff>, count: usize, end: &str) {
        if self.opts.plain {
            return;
        }
        self.start_line();
        let out = &mut self.out;
        out.push_str(open);
        marker::push_type_name(out, kind);
        if let Some(d) = d.filter(|d| !d.is_empty()) {
            out.push(' ');
            marker::push_comment_json(out, d);
        }
        if count > 0 {
            out.push(' ');
            json::push_u64(out, count as u64);
        }
        out.push_str(end);
    }

    pub fn plain(&self) -> bool {
        self.opts.plain
    }

    pub fn inline_line(&mut self, nodes: &[Node], place: Place) {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        inline::write(&mut line, nodes, place, self.opts, &mut self.scratch);
        self.lines(&line);
        self.line = line;
    }

    /// Inline content appended to `out`.
    pub(super) fn inline_into(&mut self, out: &mut String, nodes: &[Node], place: Place) {
        inline::write(out, nodes, place, self.opts, &mut self.scratch);
    }
}

pub(super) fn is_empty_paragraph(p: &Node) -> bool {
    p.kind == NodeType::Paragraph
        && p.attrs.is_none()
        && p.content.is_none()
        && p.marks.is_none()
        && p.text.is_none()
        && p.extra.is_none()
}

/// A paragraph or heading whose content the inline writer can show (else the node is written whole).
pub(super) fn plain_inline_container(node: &Node) -> bool {
    node.text.is_none() && !node.children().is_empty()
}
