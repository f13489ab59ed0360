//! HTML to the model, for web pages: what a reader of the page sees, as Markdown can say it.
//!
//! Read only, and lossy on purpose: scripts, styles, navigation, the page's banner and footer, asides,
//! forms, `noscript`, `template`, `svg`, hidden elements and comments are dropped; when the page has a
//! `main` (or else `article`s) only that is read. Everything else keeps its meaning: headings, paragraphs,
//! lists (nested, with `start`), block quotes, rules, code blocks with their language, GFM tables (`th` and
//! `thead` cells are headers), `details` as expands, links and images (URLs exactly as written), and
//! strong, em, code, strike, underline, sub and sup marks. An element this reader does not know is read as
//! its content, so no text is lost. Whitespace is collapsed as a browser would, except in `pre`.
//!
//! Parsing is html5ever's tokenizer with a tree construction of our own ([`tree`]), bounded at
//! [`tree::MAX_DEPTH`] levels (deeper elements are flattened into the one at the cap, with a warning), so
//! that time and memory are linear in the input whatever its nesting.

mod convert;
pub mod tree;

use crate::model::Node;
use crate::Read;

/// Reads an HTML page or fragment.
pub fn read(input: &str) -> Read {
    let mut handed = Vec::new();
    read_streaming(input, &mut |blocks| handed.extend(blocks)).with_handed(handed)
}

/// Reads as [`read`] does, handing `each` the document's root blocks in runs as they are made: those
/// handed over, then the returned document's content, are `read`'s content. Memory holds the page's tree
/// ([`tree::Dom`]: whether it has a `main` is known only at its end) and the blocks not yet handed on,
/// not the document: [`crate::convert`] converts HTML this way.
pub fn read_streaming(input: &str, each: &mut dyn FnMut(Vec<Node>)) -> Read {
    let dom = tree::parse(input);
    let doc = convert::document(&dom, each);
    Read {
        doc,
        warnings: dom.warnings,
    }
}
