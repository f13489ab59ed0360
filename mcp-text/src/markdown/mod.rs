//! Markdown: the writer (model → CommonMark + GFM, with markers for what Markdown cannot hold) and the
//! reader (CommonMark + GFM → model, markers applied back).
//!
//! `read(&write(doc)).doc == *doc` for every document: plain Markdown for what Markdown says, and a
//! compact marker (`<!--adf:TYPE {...}-->` before a block, a JSON link title on an inline node) for
//! only the difference between a node and what the reader would infer from its Markdown. A model reads
//! `@Name` for mentions, `> [!NOTE]` for panels, `<details>` for expands, GFM tables and nested lists.
//! `docs/text-markdown.md` maps every node.

mod autolink;
mod diff;
mod element;
mod escape;
mod forms;
mod html;
mod inline;
mod json;
mod label;
mod marker;
mod media;
mod read;
mod table;
mod text_form;
mod title;
mod write;
mod writer;

use crate::mention::MentionResolver;
use crate::model::{Node, NodeType};
use crate::Read;

/// What the writer may be told.
#[derive(Default)]
pub struct WriteOptions<'a> {
    /// Names for mentions that carry only an account id.
    pub mentions: Option<&'a dyn MentionResolver>,
    /// Markdown to read only, with no markers: what Markdown cannot say is left out (a node without a
    /// plain form shows its content, or nothing). Not read back losslessly; for HTML pages (`convert`
    /// from HTML sets it), where the Markdown is for a model to read.
    pub plain: bool,
}

/// Writes a document as Markdown.
pub fn write(doc: &Node, options: &WriteOptions) -> String {
    let mut blocks = BlockWriter::new(options);
    for block in doc.children() {
        blocks.block(block);
    }
    blocks.finish(doc)
}

/// [`write()`] block by block, for a document whose root's children arrive one at a time (from
/// [`crate::adf::read_streaming`]): the same Markdown, started before the rest is read.
pub struct BlockWriter<'a> {
    w: writer::W<'a>,
    seq: write::Sequence,
}

impl<'a> BlockWriter<'a> {
    /// A writer with nothing written yet.
    pub fn new(options: &'a WriteOptions<'a>) -> Self {
        BlockWriter {
            w: writer::W::new(options, 64),
            seq: write::Sequence::default(),
        }
    }

    /// Makes room for `additional` more bytes of Markdown at once (a caller that knows about how much
    /// is coming saves the output's growing by steps).
    pub fn reserve(&mut self, additional: usize) {
        self.w.out.reserve(additional);
    }

    /// A writer of the blocks that follow those another writer wrote (on another thread, say): its first
    /// block is set off from them by a blank line, and if it is a list, takes its delimiter from `after`
    /// (what the other writer's [`BlockWriter::after`] gave, or [`After::BLOCK`] where that is not known
    /// yet). Its text then follows theirs.
    pub fn following(options: &'a WriteOptions<'a>, after: After) -> Self {
        let mut writer = BlockWriter::new(options);
        writer.seq = write::Sequence::following(after.bullet, after.ordered);
        writer
    }

    /// Writes the root's next child.
    pub fn block(&mut self, node: &Node) {
        self.w.next_block(&mut self.seq, node, writer::Parent::Doc);
    }

    /// What the blocks written so far leave for the next one.
    pub fn after(&self) -> After {
        let (bullet, ordered) = self.seq.delimiters();
        After { bullet, ordered }
    }

    /// For a writer that follows others ([`BlockWriter::following`]): whether each block it wrote took its
    /// list delimiter from, or passed on, the delimiters before it (a list, markers alone). Those blocks'
    /// Markdown, and what they leave for the next, may differ with what the other writer left; a block that
    /// is neither ends that.
    pub fn chained(&self) -> bool {
        self.seq.chained()
    }

    /// Whether a block has been written (or this writer follows others): the next is then set off by a
    /// blank line.
    pub fn started(&self) -> bool {
        self.seq.started()
    }

    /// The bytes of Markdown written so far.
    pub fn len(&self) -> usize {
        self.w.out.len()
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.w.out.is_empty()
    }

    /// Writes the Markdown written so far to `out` and forgets it, for a document whose root has no
    /// marker (plain Markdown, say): [`BlockWriter::finish`] then gives what follows it.
    pub fn drain_to(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(self.w.out.as_bytes())?;
        self.w.out.clear();
        Ok(())
    }

    /// The Markdown of the blocks given, without the root's marker ([`root_marker`]).
    pub fn into_text(self) -> String {
        self.w.out
    }

    /// The Markdown of the document whose children were given: `root` is its root, with everything but
    /// its children (whether it has `content` counts, what it holds does not).
    pub fn finish(self, root: &Node) -> String {
        let header = root_marker(root, self.w.opts);
        let mut out = self.w.out;
        if !header.is_empty() {
            out.insert_str(0, &header);
        }
        out
    }
}

/// What the blocks a [`BlockWriter`] wrote leave for the next one at the root's level: the delimiter of
/// the last list, if only markers came after it (a list right after a list takes the other one, or the two
/// would read as one list; so does a list after markers alone, which a model may delete).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct After {
    bullet: Option<char>,
    ordered: Option<char>,
}

impl After {
    /// After a block that is no list (or no block at all).
    pub const BLOCK: After = After {
        bullet: None,
        ordered: None,
    };

    /// Whether a list's delimiter was left: the delimiter of a list right after it depends on it.
    pub fn is_list(&self) -> bool {
        *self != After::BLOCK
    }
}

/// The root's own members, as a marker and a blank line before its blocks, when they differ from what the
/// reader infers (a doc with `version: 1` and content); empty otherwise. `root` is the root with
/// everything but its children (whether it has `content` counts, what it holds does not).
pub fn root_marker(doc: &Node, options: &WriteOptions) -> String {
    if options.plain {
        return String::new();
    }
    let mut probe = Node::new(doc.kind.clone());
    probe.attrs = doc.attrs.clone();
    probe.marks = doc.marks.clone();
    probe.content = doc.content.as_ref().map(|_| Vec::new());
    let inferred_extra = Node::doc(Vec::new()).extra.clone();
    let mut d = marker::diff(&probe, marker::Inferred::new(None, true));
    if doc.extra != inferred_extra {
        d.get_or_insert_with(marker::Diff::default)
            .set_extra(doc.extra.as_deref());
    }
    if doc.kind != NodeType::Doc {
        d.get_or_insert_with(marker::Diff::default)
            .set_kind(doc.kind.name());
    }
    if let Some(text) = &doc.text {
        d.get_or_insert_with(marker::Diff::default).set_text(text);
    }
    let Some(mut d) = d else {
        return String::new();
    };
    d.set_root();
    let mut w = writer::W::new(options, 64);
    w.marker("doc", Some(&d), false);
    w.blank();
    w.out
}

/// Reads Markdown into a document. Never fails: what cannot be used is kept as text or dropped with a
/// warning naming the line.
pub fn read(input: &str) -> Read {
    read::read(input)
}

/// Reads Markdown as [`read`] does, parsed `window` bytes at a time ([`WINDOW`] is `read`'s), handing
/// `each` the root blocks that nothing later in the text can change as soon as they are known, with the
/// document's own node (its members but `content`). Returns the document with the root blocks not
/// handed over: those handed over, then its content, are [`read`]'s document's content. Memory holds a
/// window of the parser and a few hundred root blocks ([`KEPT`]), whatever the document's size:
/// [`crate::convert_to`] writes ADF this way.
pub fn read_streaming(input: &str, window: usize, each: &mut dyn FnMut(&Node, Vec<Node>)) -> Read {
    read::read_streaming(input, window, each)
}

pub use read::{KEPT, WINDOW};
