//! The reader: pulldown-cmark's event stream, walked once, into the model; markers applied back.
//!
//! Blocks are frames on a stack (never recursion), so any nesting depth is safe; nesting deeper than
//! [`MAX_NESTING`] is flattened into the level at the cap, with a warning. Markers that cannot be used
//! (bad JSON, a close without an open, a modifier whose node was deleted) cost that node's extra members
//! or its wrapper only, with a warning that names the line.

mod atoms;
mod blocks;
mod containers;
mod inlines;
mod state;
mod windows;

use super::forms::{self, reserved};
use super::marker::{self, Marker};
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};
use crate::Read;
use pulldown_cmark::{CodeBlockKind, Event, LinkType, Tag, TagEnd};
use serde_json::Value;
use state::*;
pub use windows::WINDOW;

/// Root blocks kept back from [`crate::markdown::read_streaming`]'s `each` at the end of the text read
/// so far: a close marker whose open marker was lost wraps again at most this many blocks before it at
/// the top level.
pub const KEPT: usize = 256;

/// Reads Markdown into a document (see [`read_streaming`]).
pub(super) fn read(src: &str) -> Read {
    let mut handed = Vec::new();
    let read = read_streaming(src, WINDOW, &mut |_, blocks| handed.extend(blocks));
    read.with_handed(handed)
}

/// Reads Markdown, parsed `window` bytes at a time (windows.rs), handing `each` the root blocks that
/// nothing later in the text can change, in order, together with the document's own node as its marker
/// says (without content). Returns the document with the root blocks not handed over. Memory then holds
/// a window of the parser and a few hundred root blocks of the model, whatever the document's size.
///
/// Blocks are handed over [`KEPT`] behind the text read, and only where nothing is open at the top level
/// (a marker pair, an HTML element), and not at all when the document's own marker changes its type or
/// content (which [`read`] applies to the whole).
pub(super) fn read_streaming(
    src: &str,
    window: usize,
    each: &mut dyn FnMut(&Node, Vec<Node>),
) -> Read {
    let mut r = R {
        src,
        line_at: 0,
        line_no: 1,
        frames: vec![Frame::new(Fk::Doc, 1)],
        inl: None,
        code: None,
        html: None,
        skipped: 0,
        warned_depth: false,
        warnings: Vec::new(),
        id: None,
    };
    let mut shell: Option<Node> = None;
    // The line of each open element's start: an element's end event is at its start's offset.
    let mut started: Vec<usize> = Vec::new();
    windows::events(src, window, &mut |event, offset| {
        let line = match event {
            Event::End(_) => started.pop().unwrap_or_else(|| r.line_of(offset)),
            Event::Start(_) => {
                let line = r.line_of(offset);
                started.push(line);
                line
            }
            _ => r.line_of(offset),
        };
        r.event(event, offset, line);
        if let Some(blocks) = r.final_blocks() {
            let shell = shell.get_or_insert_with(|| doc_shell(&r.frames[0].self_d));
            each(shell, blocks);
        }
    });
    if let Some((id, line)) = r.id.take() {
        r.warn(
            line,
            format!("`<!--#{id}-->` has no block after it; the id is not used"),
        );
    }
    r.close_implicit();
    while r.frames.len() > 1 {
        let f = r.frames.pop().unwrap_or_else(|| Frame::new(Fk::Doc, 0));
        let children = r.finish_children(f);
        if let Some(p) = r.frames.last_mut() {
            p.children.extend(children);
        }
    }
    // A container whose close marker was lost ends after the blocks its open marker counts (a section
    // without a count after its last column); other unclosed containers lose only their wrappers.
    let last_line = r.line_of(src.len());
    r.close_counted(last_line);
    let f = r.frames.pop().unwrap_or_else(|| Frame::new(Fk::Doc, 0));
    let self_d = f.self_d.take_it();
    let line = f.line;
    let children = r.finish_children(Frame { self_d: None, ..f });
    let mut doc = Node::doc(children);
    if let Some(mut d) = self_d {
        if let Some(Value::String(t)) = d.remove("type") {
            doc.kind = NodeType::from_name(&t);
        }
        r.apply(&mut doc, &d, line);
    }
    Read {
        doc,
        warnings: r.warnings,
    }
}

/// The document's own node as its marker says, without content.
fn doc_shell(d: &Option<serde_json::Map<String, Value>>) -> Node {
    let mut doc = Node::doc(Vec::new());
    if let Some(d) = d {
        // What cannot be used here cannot be at the end either, where the warning is given.
        let _ = marker::apply(&mut doc, d);
    }
    doc
}

impl R<'_> {
    /// The root blocks nothing later can change, once there are enough of them to be worth handing over
    /// (see [`read_streaming`]).
    fn final_blocks(&mut self) -> Option<Vec<Node>> {
        let doc = self.frames.first()?;
        if doc.children.len() < 2 * KEPT
            || self.frames.len() > 1
            || self.inl.is_some()
            || self.code.is_some()
            || self.html.is_some()
            || self.id.is_some()
            || !doc.opens.is_empty()
            || doc.pending.is_some()
            || doc
                .self_d
                .as_ref()
                .is_some_and(|d| d.contains_key("type") || d.contains_key("content"))
        {
            return None;
        }
        let n = doc.children.len() - KEPT;
        Some(self.frames[0].children.drain(..n).collect())
    }

    pub(super) fn event(&mut self, event: Event, offset: usize, line: usize) {
        if self.id.is_some() {
            self.next_block_id(&event, offset);
        }
        if let Some((_, text, _)) = &mut self.code {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => self.end_code(),
                _ => {}
            }
            return;
        }
        if let Some((text, _)) = &mut self.html {
            match event {
                Event::Html(t) | Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::HtmlBlock) => self.end_html(),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag, offset, line),
            Event::End(end) => self.end(end, line),
            Event::Text(t) => self.text(&t, offset, line),
            Event::Code(t) => {
                if self.inl_mut(line).capture.is_some() {
                    self.text(&t, offset, line);
                } else {
                    let inl = self.inl_mut(line);
                    inl.active
                        .push((Mark::new(MarkType::Code), Closer::Html("code")));
                    inl.marks = None;
                    inl.split = true;
                    self.push_text(&t);
                    let inl = self.inl_mut(line);
                    inl.active.pop();
                    inl.marks = None;
                    inl.split = true;
                }
            }
            Event::InlineHtml(h) | Event::Html(h) => self.inline_html(&h, line),
            Event::SoftBreak => {
                let inl = self.inl_mut(line);
                if inl.skip_line {
                    inl.skip_line = false;
                } else {
                    self.text(" ", usize::MAX, line);
                }
            }
            Event::HardBreak => {
                let inl = self.inl_mut(line);
                if inl.skip_line {
                    // A `[!TYPE]` line that ends in two spaces ends as a soft one does.
                    inl.skip_line = false;
                } else if let Some(c) = &mut inl.capture {
                    c.text.push(' ');
                } else {
                    inl.nodes.push(Node::new(NodeType::HardBreak));
                    inl.split = true;
                }
            }
            Event::Rule => {
                self.close_implicit();
                self.push_block(Node::new(NodeType::Rule), line);
            }
            Event::TaskListMarker(done) => {
                if let Some(Frame {
                    kind: Fk::Item { task, .. },
                    ..
                }) = self
                    .frames
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f.kind, Fk::Item { .. }))
                {
                    *task = Some(done);
                }
            }
            _ => {}
        }
    }

    /// A short marker `<!--#ID-->` (but the first in a list item, the item's own) is the modifier
    /// `{"localId": ID}` of the block whose event follows it, of that block's type: a paragraph (its
    /// start, or the text of a tight list item), a heading, a list, a fenced code block, a pipe table, a
    /// block quote or a panel (a quote whose first line is `[!TYPE]`), the blocks the writer gives it. Before anything
    /// else (an edit moved it) it is not used, with a warning.
    fn next_block_id(&mut self, event: &Event, offset: usize) {
        let kind = match event {
            Event::Start(Tag::BlockQuote(_)) => {
                // Where the reader finds a panel's `[!TYPE]`: after `>`, a space and up to three more.
                let line = self
                    .src
                    .get(offset..)
                    .unwrap_or_default()
                    .lines()
                    .next()
                    .unwrap_or_default();
                let rest = line.trim_start().strip_prefix('>').unwrap_or(line);
                let rest = rest.strip_prefix(' ').unwrap_or(rest);
                let rest = rest
                    .strip_prefix("   ")
                    .or_else(|| rest.strip_prefix("  "))
                    .or_else(|| rest.strip_prefix(' '))
                    .unwrap_or(rest);
                Some(if panel_type(rest.trim_end()).is_some() {
                    NodeType::Panel
                } else {
                    NodeType::Blockquote
                })
            }
            Event::Start(Tag::Paragraph) => Some(NodeType::Paragraph),
            Event::Start(Tag::Heading { .. }) => Some(NodeType::Heading),
            // A list whose first item is a task: a task list (its id a `taskList`'s, as its marker's).
            Event::Start(Tag::List(None)) => Some(if is_task_line(self.src.get(offset..)) {
                NodeType::TaskList
            } else {
                NodeType::BulletList
            }),
            Event::Start(Tag::List(Some(_))) => Some(NodeType::OrderedList),
            Event::Start(Tag::CodeBlock(_)) => Some(NodeType::CodeBlock),
            Event::Start(Tag::Table(_)) => Some(NodeType::Table),
            // A tight list item's paragraph has no start of its own: its first inline is.
            Event::Start(
                Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript
                | Tag::Link { .. }
                | Tag::Image { .. },
            )
            | Event::Text(_)
            | Event::Code(_)
            | Event::InlineHtml(_)
            | Event::InlineMath(_)
            | Event::HardBreak
            | Event::FootnoteReference(_)
                if self.inl.is_none() =>
            {
                Some(NodeType::Paragraph)
            }
            _ => None,
        };
        let Some((id, line)) = self.id.take() else {
            return;
        };
        match kind {
            Some(kind) => self.block_marker(
                Marker::Open {
                    kind,
                    diff: marker::id_diff(id),
                    count: None,
                },
                line,
            ),
            None => self.warn(
                line,
                format!("`<!--#{id}-->` stands before no paragraph, heading, list or code block; the id is not used"),
            ),
        }
    }

    pub(super) fn close_implicit(&mut self) {
        if self.inl.as_ref().is_some_and(|i| i.kind == Ik::Implicit) {
            let inl = self.inl.take().unwrap_or_else(|| unreachable!());
            let line = inl.line;
            let node = self.finish_paragraph(inl);
            if let Some(node) = node {
                self.push_block(node, line);
            }
        }
    }

    pub(super) fn start(&mut self, tag: Tag, offset: usize, line: usize) {
        match tag {
            Tag::Paragraph => {
                self.close_implicit();
                let mut inl = new_inl(Ik::Paragraph, line);
                // A panel: a block quote whose first line is `[!TYPE]`.
                let f = self.frames.last_mut();
                if let Some(f) = f {
                    if let Fk::Quote { panel, title } = &mut f.kind {
                        if panel.is_none()
                            && f.children.is_empty()
                            && f.pending.is_none()
                            && f.opens.is_empty()
                        {
                            let first = self.src[offset..]
                                .lines()
                                .next()
                                .unwrap_or_default()
                                .trim_end();
                            if let Some((t, shown)) = panel_type(first) {
                                *panel = Some(t);
                                *title = shown.map(str::to_string);
                                inl.skip_line = true;
                            }
                        }
                    }
                }
                self.inl = Some(inl);
            }
            Tag::Heading { level, .. } => {
                self.close_implicit();
                self.inl = Some(new_inl(Ik::Heading(level as u8), line));
            }
            Tag::BlockQuote(_) => {
                self.close_implicit();
                if self.cap(line) {
                    self.frames.push(Frame::new(
                        Fk::Quote {
                            panel: None,
                            title: None,
                        },
                        line,
                    ));
                }
            }
            Tag::CodeBlock(kind) => {
                self.close_implicit();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) if !info.trim().is_empty() => {
                        Some(info.trim().to_string())
                    }
                    _ => None,
                };
                self.code = Some((lang, String::new(), line));
            }
            Tag::HtmlBlock => {
                self.close_implicit();
                self.html = Some((String::new(), line));
            }
            Tag::List(start) => {
                self.close_implicit();
                if self.cap(line) {
                    self.frames.push(Frame::new(
                        Fk::List {
                            start,
                            tasks: Vec::new(),
                        },
                        line,
                    ));
                }
            }
            Tag::Item => {
                self.close_implicit();
                if self.cap(line) {
                    self.frames.push(Frame::new(
                        Fk::Item {
                            task: None,
                            inline_d: None,
                        },
                        line,
                    ));
                }
            }
            Tag::Table(_) => {
                self.close_implicit();
                self.frames.push(Frame::new(Fk::Table, line));
            }
            Tag::TableHead | Tag::TableRow => self
                .frames
                .push(Frame::new(Fk::Row { d: None, id: None }, line)),
            Tag::TableCell => self.inl = Some(new_inl(Ik::Cell, line)),
            Tag::Emphasis => self.push_mark(Mark::new(MarkType::Em), Closer::Em, line),
            Tag::Strong => self.push_mark(Mark::new(MarkType::Strong), Closer::Strong, line),
            Tag::Strikethrough => self.push_mark(Mark::new(MarkType::Strike), Closer::Strike, line),
            Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            } => {
                let inl = self.inl_mut(line);
                if let Some(c) = &mut inl.capture {
                    c.depth += 1;
                    return;
                }
                let dest = dest_url.to_string();
                if link_type == LinkType::Autolink && !reserved(&dest) {
                    inl.capture = Some(Capture {
                        kind: CapKind::Autolink,
                        dest,
                        title: String::new(),
                        text: String::new(),
                        depth: 0,
                        line,
                    });
                } else if reserved(&dest) {
                    inl.capture = Some(Capture {
                        kind: CapKind::Atom,
                        dest,
                        title: title.to_string(),
                        text: String::new(),
                        depth: 0,
                        line,
                    });
                } else {
                    let href = if link_type == LinkType::Email && !dest.starts_with("mailto:") {
                        format!("mailto:{dest}")
                    } else {
                        dest
                    };
                    let mut mark = Mark::new(MarkType::Link);
                    let mut attrs = Attrs::new();
                    attrs.insert("href", Value::from(href));
                    let title = title.to_string();
                    let d = marker::title_diff(&title);
                    if d.is_none() && title.starts_with('{') {
                        // The writer never writes a plain title like this: a diff that was broken.
                        self.warn(line, "a link's title looks like a marker but is not one (bad JSON?); kept as the title");
                    }
                    if d.is_none() && !title.is_empty() {
                        attrs.insert("title", Value::from(title));
                    }
                    mark.attrs = Some(attrs);
                    if let Some(d) = d {
                        if let Err(e) = marker::apply_mark(&mut mark, &d) {
                            self.warn(line, format!("a link's marker could not be used ({e})"));
                        }
                    }
                    let inl = self.inl_mut(line);
                    inl.link_starts.push(inl.nodes.len());
                    self.push_mark(mark, Closer::Link, line);
                }
            }
            Tag::Image {
                dest_url, title, ..
            } => {
                let inl = self.inl_mut(line);
                if let Some(c) = &mut inl.capture {
                    c.depth += 1;
                    return;
                }
                inl.capture = Some(Capture {
                    kind: CapKind::Image,
                    dest: dest_url.to_string(),
                    title: title.to_string(),
                    text: String::new(),
                    depth: 0,
                    line,
                });
            }
            _ => {}
        }
    }

    pub(super) fn end(&mut self, end: TagEnd, line: usize) {
        match end {
            TagEnd::Paragraph | TagEnd::Heading(_) => {
                if let Some(inl) = self.inl.take() {
                    let l = inl.line;
                    if let Some(node) = self.finish_paragraph(inl) {
                        self.push_block(node, l);
                    }
                }
            }
            TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item => {
                self.close_implicit();
                if self.skipped > 0 {
                    self.skipped -= 1;
                    return;
                }
                self.end_container(line);
            }
            TagEnd::TableCell => {
                if let Some(inl) = self.inl.take() {
                    self.end_cell(inl);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(f) = self.frames.pop() {
                    let Fk::Row { d, id } = f.kind else { return };
                    let mut row = Node::with_content(NodeType::TableRow, f.children);
                    if let Some(d) = d {
                        self.apply(&mut row, &d, f.line);
                    }
                    if let Some(id) = id {
                        row.set_attr("localId", id);
                    }
                    self.frame().children.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(f) = self.frames.pop() {
                    let mut node = Node::with_content(NodeType::Table, f.children);
                    node.attrs = Some(marker::inferred_attrs(&forms::TABLE));
                    self.push_block(node, f.line);
                }
            }
            TagEnd::Emphasis => self.end_mark(Closer::Em, line),
            TagEnd::Strong => self.end_mark(Closer::Strong, line),
            TagEnd::Strikethrough => self.end_mark(Closer::Strike, line),
            TagEnd::Link | TagEnd::Image => self.end_link(line),
            _ => {}
        }
    }
}

/// A panel's `[!TYPE]` line: its type, and the title after it (see `title.rs`).
pub(super) fn panel_type(line: &str) -> Option<(&'static str, Option<&str>)> {
    let (word, title) = line.strip_prefix("[!")?.split_once(']')?;
    let title = match title.strip_prefix(' ') {
        None if title.is_empty() => None,
        Some(t) if super::title::ok(t) => Some(t),
        _ => return None,
    };
    let kind = match word.to_ascii_uppercase().as_str() {
        "INFO" | "IMPORTANT" => "info",
        "NOTE" => "note",
        "TIP" => "tip",
        "WARNING" => "warning",
        "ERROR" | "CAUTION" => "error",
        "SUCCESS" => "success",
        "CUSTOM" => "custom",
        _ => return None,
    };
    Some((kind, title))
}

/// Whether a bullet list's first line (from its bullet on) is a task's: `- [ ]`, `- [x]`, `- [X]`.
fn is_task_line(rest: Option<&str>) -> bool {
    let line = rest
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start();
    let Some(after) = line.strip_prefix(['-', '*', '+']) else {
        return false;
    };
    let box_ = after.trim_start_matches([' ', '\t']);
    after.len() > box_.len()
        && ["[ ]", "[x]", "[X]"].iter().any(|b| {
            box_.strip_prefix(b)
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
        })
}
