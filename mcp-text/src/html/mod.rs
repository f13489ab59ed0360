//! HTML to the model, for web pages: what a reader of the page sees, as Markdown can say it.
//!
//! Read only, and lossy on purpose: scripts, styles, navigation, the page's banner and footer, asides
//! (as elements or by their ARIA `role`), forms, `noscript`, `template`, `svg`, hidden elements, comments and
//! headings' permalinks are dropped; when the page has a
//! `main` (or else `article`s) only that is read. Everything else keeps its meaning: headings, paragraphs,
//! lists (nested, with `start`), block quotes, rules, code blocks with their language, GFM tables (`th` and
//! `thead` cells are headers), `details` as expands, links and images (URLs exactly as written), and
//! strong, em, code, strike, underline, sub and sup marks. An element this reader does not know is read as
//! its content, so no text is lost. Whitespace is collapsed as a browser would, except in `pre`.
//!
//! Parsing is html5ever's tokenizer with a tree construction of our own ([`tree`]), bounded at
//! [`tree::MAX_DEPTH`] levels (deeper elements are flattened into the one at the cap, with a warning), so
//! that time and memory are linear in the input whatever its nesting. The page is parsed a piece at a time,
//! and what is read, or never will be, is let go of ([`read_streaming`], `pieces.rs`).

mod convert;
mod pieces;
pub mod tree;

use crate::model::Node;
use crate::Read;

/// Reads an HTML page or fragment.
pub fn read(input: &str) -> Read {
    let mut handed = Vec::new();
    read_streaming(input, &mut |blocks| handed.extend(blocks)).with_handed(handed)
}

/// Reads as [`read`] does, handing `each` the document's root blocks in runs as they are made: those
/// handed over, then the returned document's content, are `read`'s content. [`crate::convert`] converts
/// HTML this way. Memory holds the blocks not yet handed on and, of the page's tree ([`tree::Dom`]), what
/// is not read yet: the page is parsed [`PIECE`] bytes at a time, and what is read, or never will be, is
/// let go. A page whose text names a `main` or an `article` keeps its tree until the first such element
/// appears (it may have none, and then all of it is read).
pub fn read_streaming(input: &str, each: &mut dyn FnMut(Vec<Node>)) -> Read {
    read_in_pieces(input, PIECE, each)
}

/// The bytes of the page parsed at a time.
pub const PIECE: usize = 64 << 10;

/// [`read_streaming`] with pieces of `piece` bytes (at least one character each), or the whole tree first
/// when `piece` is 0: the tests compare the two on every way of cutting a page.
#[doc(hidden)]
pub fn read_in_pieces(input: &str, piece: usize, each: &mut dyn FnMut(Vec<Node>)) -> Read {
    if piece > 0 {
        return pieces::read(input, piece, each);
    }
    let dom = tree::parse(input);
    let doc = convert::document(&dom, each);
    Read {
        doc,
        warnings: dom.warnings,
    }
}
