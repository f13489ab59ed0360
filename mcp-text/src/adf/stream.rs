//! A document's ADF JSON written a run of root blocks at a time: the bytes [`super::write`] (or
//! [`super::write_pretty`]) gives for the whole, without the whole in memory.
//!
//! The root's members are written in the model's serde order (`type`, the other members, `attrs`,
//! `content`, `text`, `marks`), so the root's own members come before its first block, and `text` and
//! `marks` (which a document does not have, but a marker may give it) after its last.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::Node;

/// Writes one document: [`DocWriter::blocks`] for each run of root blocks, then [`DocWriter::finish`].
pub struct DocWriter<W: Write> {
    out: W,
    pretty: bool,
    /// The root's members up to `"content": [` are written.
    open: bool,
    /// Blocks written so far.
    blocks: usize,
    buf: Vec<u8>,
}

impl<W: Write> DocWriter<W> {
    pub fn new(out: W, pretty: bool) -> Self {
        DocWriter {
            out,
            pretty,
            open: false,
            blocks: 0,
            buf: Vec::new(),
        }
    }

    /// Writes `blocks`, root blocks of `doc` (whose own members are written first, before the first
    /// block; its content is not read).
    pub fn blocks(&mut self, doc: &Node, blocks: &[Node]) -> io::Result<()> {
        if !self.open {
            self.head(doc)?;
        }
        for block in blocks {
            if self.blocks > 0 {
                self.out.write_all(b",")?;
            }
            if self.pretty {
                self.out.write_all(b"\n    ")?;
            }
            self.value(block, 4)?;
            self.blocks += 1;
        }
        Ok(())
    }

    /// Writes the rest: `doc`'s content (the blocks after those written), then its members after its
    /// content. Returns the writer, flushed.
    pub fn finish(mut self, doc: &Node) -> io::Result<W> {
        if !self.open {
            if self.pretty {
                serde_json::to_writer_pretty(&mut self.out, doc)?;
            } else {
                serde_json::to_writer(&mut self.out, doc)?;
            }
        } else {
            self.blocks(doc, doc.content.as_deref().unwrap_or_default())?;
            if self.pretty && self.blocks > 0 {
                self.out.write_all(b"\n  ")?;
            }
            self.out.write_all(b"]")?;
            if let Some(text) = &doc.text {
                self.entry("text", text)?;
            }
            if let Some(marks) = &doc.marks {
                self.entry("marks", marks)?;
            }
            self.out
                .write_all(if self.pretty { b"\n}" } else { b"}" })?;
        }
        self.out.flush()?;
        Ok(self.out)
    }

    /// The output as far as written, for a caller that gives up on the document.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn head(&mut self, doc: &Node) -> io::Result<()> {
        self.out.write_all(b"{")?;
        if self.pretty {
            self.out.write_all(b"\n  ")?;
        }
        self.member("type", &doc.kind.name())?;
        if let Some(extra) = &doc.extra {
            for (k, v) in extra.iter() {
                self.entry(k, v)?;
            }
        }
        if let Some(attrs) = &doc.attrs {
            self.entry("attrs", attrs)?;
        }
        self.out.write_all(b",")?;
        if self.pretty {
            self.out.write_all(b"\n  ")?;
        }
        serde_json::to_writer(&mut self.out, "content")?;
        self.out
            .write_all(if self.pretty { b": [" } else { b":[" })?;
        self.open = true;
        Ok(())
    }

    /// `,"key":value` after an earlier member.
    fn entry(&mut self, key: &str, value: &impl Serialize) -> io::Result<()> {
        self.out.write_all(b",")?;
        if self.pretty {
            self.out.write_all(b"\n  ")?;
        }
        self.member(key, value)
    }

    fn member(&mut self, key: &str, value: &impl Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, key)?;
        self.out.write_all(if self.pretty { b": " } else { b":" })?;
        self.value(value, 2)
    }

    /// A value; indented, its lines after the first `indent` spaces further in (a JSON string holds no
    /// line break, so every one is the layout's).
    fn value(&mut self, value: &impl Serialize, indent: usize) -> io::Result<()> {
        if !self.pretty {
            return serde_json::to_writer(&mut self.out, value).map_err(io::Error::from);
        }
        self.buf.clear();
        serde_json::to_writer_pretty(&mut self.buf, value)?;
        let pad = &b"        "[..indent.min(8)];
        for (i, line) in self.buf.split(|b| *b == b'\n').enumerate() {
            if i > 0 {
                self.out.write_all(b"\n")?;
                self.out.write_all(pad)?;
            }
            self.out.write_all(line)?;
        }
        Ok(())
    }
}
