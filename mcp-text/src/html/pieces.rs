//! A page a piece at a time: the parser ([`Parser`]) grows the tree with each piece, the reader
//! ([`Growing`]) reads what of the part [`convert::document`] reads is final, and the parser lets go of what
//! is read, and of what will never be.
//!
//! Which part is read is the document's when the page's text names neither `main` nor `article` (`<main`,
//! `<article`, in any case). Otherwise it is found as the tree grows:
//! - **`main`.** The first `main` element, read as it grows; once it ends, nothing more is read.
//! - **`article`** (the text names no `main`): each outermost `article` element in turn, read as it grows.
//!
//! Until the first such element appears, the whole tree is kept: a page whose text names one may have
//! none (the name in a comment or a script), and then the whole tree is read at the end, as
//! [`convert::document`] reads it.

use super::convert::{self, is_main, is_outermost_article, Growing};
use super::tree::{Id, Parser};
use crate::model::Node;
use crate::Read;

/// Reads `input` in pieces of `piece` bytes (at least a character each), handing `each` the document's
/// root blocks in runs.
pub fn read(input: &str, piece: usize, each: &mut dyn FnMut(Vec<Node>)) -> Read {
    let piece = piece.max(1);
    let parser = Parser::new();
    let mut page = Page {
        part: Part::of(input),
        growing: Growing::new(each),
        state: State::Seeking,
        found: false,
        scanned: 1,
    };
    if page.part == Part::Document {
        page.state = State::Reading;
    }
    let mut rest = input;
    while !rest.is_empty() {
        let mut at = piece.min(rest.len());
        while !rest.is_char_boundary(at) {
            at += 1;
        }
        let (now, later) = rest.split_at(at);
        rest = later;
        parser.feed(now);
        page.advance(&parser.dom(), |id| id == 0 || parser.is_open(id));
        page.let_go(&parser);
    }
    let dom = parser.end();
    page.advance(&dom, |_| false);
    let mut growing = page.growing;
    if !page.found && page.part != Part::Document {
        // No element the text named: the part read is what the whole tree says (nothing is read yet,
        // and nothing was let go of).
        for root in convert::roots(&dom) {
            growing.read_from(root);
            growing.grow(&dom, false);
        }
    }
    Read {
        doc: growing.finish(),
        warnings: dom.warnings,
    }
}

/// Which part of the page is read, as far as its text tells.
#[derive(PartialEq, Clone, Copy)]
enum Part {
    /// All of it: the text names no `main` and no `article`.
    Document,
    /// The first `main`, if there is one.
    Main,
    /// The outermost `article`s, if there are any.
    Articles,
}

impl Part {
    fn of(input: &str) -> Part {
        let bytes = input.as_bytes();
        let names = |name: &[u8]| {
            memchr::memchr_iter(b'<', bytes).any(|at| {
                bytes
                    .get(at + 1..at + 1 + name.len())
                    .is_some_and(|b| b.eq_ignore_ascii_case(name))
            })
        };
        if names(b"main") {
            Part::Main
        } else if names(b"article") {
            Part::Articles
        } else {
            Part::Document
        }
    }
}

#[derive(PartialEq, Clone, Copy)]
enum State {
    /// Looking for the next element to read.
    Seeking,
    /// Reading the growing reader's root.
    Reading,
    /// The part read was read to its end (the document, or the `main`): nothing more is.
    Done,
}

/// The page being read: which part, and how far.
struct Page<'e> {
    part: Part,
    growing: Growing<'e>,
    state: State,
    /// Whether an element to read was found: until then nothing is let go of.
    found: bool,
    /// Nodes before this one were looked at for an element to read.
    scanned: Id,
}

impl Page<'_> {
    /// Reads what is final of `dom`, `open` telling which elements may still grow (0: the document).
    fn advance(&mut self, dom: &super::tree::Dom, open: impl Fn(Id) -> bool) {
        loop {
            match self.state {
                State::Seeking => {
                    let len = dom.nodes.len() as Id;
                    let found = (self.scanned..len).find(|&id| match self.part {
                        Part::Main => is_main(dom, id),
                        _ => is_outermost_article(dom, id),
                    });
                    let Some(root) = found else {
                        self.scanned = len;
                        return;
                    };
                    self.growing.read_from(root);
                    self.found = true;
                    self.scanned = root + 1;
                    self.state = State::Reading;
                }
                State::Reading => {
                    let growing = open(self.growing.root());
                    self.growing.grow(dom, growing);
                    if growing {
                        return;
                    }
                    self.state = match self.part {
                        Part::Document | Part::Main => State::Done,
                        Part::Articles => State::Seeking,
                    };
                }
                State::Done => return,
            }
        }
    }

    /// Lets the parser go of what is read, and of what will not be, when that is worth it.
    fn let_go(&mut self, parser: &Parser) {
        let kept = match self.state {
            State::Reading => self.growing.keep(&parser.dom()),
            // Before the first element to read, the whole tree may be read at the end.
            State::Seeking if !self.found => None,
            // Nothing here is read: the builder needs its open elements alone.
            State::Seeking | State::Done => {
                let open = parser.open_elements();
                let len = parser.dom().nodes.len();
                (len.saturating_sub(1 + open.len()) >= open.len().max(1)).then_some((open, 0))
            }
        };
        if let Some((spine, tail)) = kept {
            parser.compact(&spine, tail);
            self.growing.compacted(&spine);
            self.scanned = parser.dom().nodes.len() as Id;
        }
    }
}
