//! ADF → Markdown in stretches of top-level blocks, each read and written on its own (by threads at once:
//! the CLI's way for large documents, `src/cli_split.rs`), then joined into byte for byte the Markdown of
//! [`crate::markdown::write`].
//!
//! The first blocks are read with the root ([`adf::read_streaming_with`], written by a
//! [`BlockWriter::new`]); each later stretch starts where [`adf::block_starts`] found a block
//! ([`Stretch::write`]). A block's Markdown depends on the blocks before it in one way only: a list right
//! after a list takes the other delimiter, also with markers alone between them (a marker deleted would
//! leave the two side by side). A stretch is written as if the block before it was no list, and
//! remembers how many of its first blocks took or passed on the delimiters before them; [`join`] rewrites
//! those few where the stretch before left a delimiter.

use crate::adf::{self, BlocksEnd};
use crate::markdown::{root_marker, After, BlockWriter, WriteOptions};
use crate::model::Node;

/// The Markdown of a stretch of top-level blocks (see the module's doc).
pub struct Stretch {
    /// The offset in the input of its first block, and where it ended.
    start: usize,
    end: BlocksEnd,
    blocks: usize,
    text: String,
    /// How many of its first blocks took or passed on the delimiters before them ([`BlockWriter::chained`]),
    /// and the text's length after them: the part of the text that depends on the block before the stretch.
    lead: usize,
    lead_len: usize,
    after: After,
}

impl Stretch {
    /// Reads and writes the blocks of `input` from `start` (a block's offset, as [`adf::block_starts`]
    /// finds them) until `stop` says so at a block's start (given its offset) or the root's `content`
    /// ends. `reserve`: about how many bytes of Markdown to expect. `None` where [`adf::read_blocks`] does
    /// not read the blocks.
    pub fn write(
        input: &str,
        start: usize,
        stop: &mut dyn FnMut(usize) -> bool,
        reserve: usize,
        options: &WriteOptions,
    ) -> Option<Stretch> {
        let mut writer = BlockWriter::following(options, After::BLOCK);
        writer.reserve(reserve);
        let (mut blocks, mut lead, mut lead_len) = (0, 0, 0);
        let end = adf::read_blocks(input, start, stop, &mut |block: Node| {
            writer.block(&block);
            if lead == blocks && writer.chained() {
                lead += 1;
                lead_len = writer.len();
            }
            blocks += 1;
        })?;
        let after = writer.after();
        Some(Stretch {
            start,
            end,
            blocks,
            text: writer.into_text(),
            lead,
            lead_len,
            after,
        })
    }

    /// Where it ended: at the start of the next stretch, or where the root's `content` closes.
    pub fn end(&self) -> BlocksEnd {
        self.end
    }

    /// Its text written as if the block before it ended as `before` says: its first lists rewritten if
    /// that was a list.
    fn follow(&mut self, input: &str, before: After, options: &WriteOptions) -> Option<()> {
        if self.lead == 0 || !before.is_list() {
            return Some(());
        }
        let mut writer = BlockWriter::following(options, before);
        let read = std::cell::Cell::new(0);
        adf::read_blocks(
            input,
            self.start,
            &mut |_| read.get() == self.lead,
            &mut |block: Node| {
                writer.block(&block);
                read.set(read.get() + 1);
            },
        )?;
        if self.lead == self.blocks {
            self.after = writer.after();
        }
        let mut text = writer.into_text();
        text.push_str(&self.text[self.lead_len..]);
        self.text = text;
        Some(())
    }
}

/// The document's Markdown, in parts to be written in order: the root's marker, the text of the first
/// blocks (`front`, written as the root was read with them, up to the block at `front_end`; `None`: all
/// of them), then each stretch's, the stretches being those that follow the first blocks, in any order.
/// `None` where the stretches do not follow each other from `front_end` to the content's end, or where a
/// stretch's first blocks, read again, do not read (they did before: only a changed input could do that).
pub fn join(
    input: &str,
    root: &Node,
    front: BlockWriter,
    front_end: Option<usize>,
    mut stretches: Vec<Stretch>,
    options: &WriteOptions,
) -> Option<Vec<String>> {
    stretches.sort_unstable_by_key(|s| s.start);
    let mut end = front_end.map_or(BlocksEnd::Closed(0), BlocksEnd::At);
    for stretch in &stretches {
        if end != BlocksEnd::At(stretch.start) {
            return None;
        }
        end = stretch.end;
    }
    if !matches!(end, BlocksEnd::Closed(_)) {
        return None;
    }
    let mut before = front.after();
    let mut started = front.started();
    let mut parts = Vec::with_capacity(stretches.len() + 2);
    parts.push(root_marker(root, options));
    parts.push(front.into_text());
    for stretch in &mut stretches {
        stretch.follow(input, before, options)?;
        before = stretch.after;
        if !started && stretch.blocks > 0 {
            // The document's first block: nothing before it to be set off from.
            if !stretch.text.starts_with('\n') {
                return None;
            }
            stretch.text.remove(0);
            started = true;
        }
    }
    parts.extend(stretches.into_iter().map(|s| s.text));
    Some(parts)
}
