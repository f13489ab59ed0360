//! pulldown-cmark's events for a text of any size, parsed a window of it at a time.
//!
//! The parser's first pass keeps a tree of all it parses (tens of bytes per byte of dense Markdown), so
//! a 100 MB document parsed whole held more than a GB before the model held anything. CommonMark decides
//! block structure line by line: once a line starts a new top-level block, nothing after it changes the
//! blocks before it. So a window of the text is parsed, the events of all its top-level blocks but the
//! last are handed over, and the next window starts at the line where that last block starts (parsed
//! again there, with what follows it). A block longer than a window gets a window twice as long, until it
//! fits. The events are the ones one parse of the whole text gives, at the same offsets
//! (`tests/it/markdown_windows.rs` compares them on the CommonMark and GFM corpora cut into windows of a
//! few bytes).
//!
//! A text with a line ended by a lone `\r` is parsed whole: pulldown-cmark does not always read it as a
//! line's end (see [`lone_cr`]).
//!
//! Link reference definitions are the one thing a block takes from elsewhere: a link may use a definition
//! made anywhere in the document, even after it. A text that may hold any (a `]:` after a `[` that may
//! start a paragraph) is walked twice: once to collect them, then with all of them written before each
//! window, in the text's order (so that the first definition of a label wins, as in one parse).
//! Definitions longer in all than a window are parsed with the whole text, as before.

use memchr::{memchr2, memmem, memrchr2};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The window the reader parses at a time: the parser then holds a few MB (7.6 MB for the dense Markdown
/// of `tests/memory.rs`, against 28 MB with a window of 1 MiB and no faster), whatever the document's
/// size.
pub const WINDOW: usize = 1 << 18;

/// The extensions the reader parses: GFM's tables, strikethrough and task lists.
pub(super) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Calls `each` with every event of `src` and the offset in `src` where it starts, in order.
pub(super) fn events(src: &str, window: usize, each: &mut dyn FnMut(Event<'_>, usize)) {
    let window = window.max(1);
    if src.len() <= window || lone_cr(src.as_bytes()) {
        return whole(src, each);
    }
    if !may_define(src.as_bytes()) {
        return walk(src, window, "", each, None);
    }
    let mut defs = String::new();
    walk(src, window, "", &mut |_, _| {}, Some(&mut defs));
    if defs.is_empty() {
        return walk(src, window, "", each, None);
    }
    if defs.len() > window {
        return whole(src, each);
    }
    // A blank line between the definitions and the window's first block.
    defs.push('\n');
    walk(src, window, &defs, each, None);
}

/// Whether `src` ends a line with a lone `\r`: pulldown-cmark reads such a line's end as CommonMark does
/// in most places but not all (a code fence's info string runs on past it, so whether a line opens a
/// fence depends on the lines after it), so such a text is parsed whole.
fn lone_cr(src: &[u8]) -> bool {
    memchr::memchr_iter(b'\r', src).any(|i| src.get(i + 1) != Some(&b'\n'))
}

/// Whether `src` may hold a link reference definition: a `]:` whose label's `[` may start a paragraph
/// (nothing before it on its line but white space and the marks of block quotes, list items and task
/// items). Never says no to a definition; may say yes to a text that has none.
fn may_define(src: &[u8]) -> bool {
    const BEFORE: &[u8] = b" \t>-*+.)[]xX0123456789";
    let escaped = |at: usize| src[..at].iter().rev().take_while(|b| **b == b'\\').count() % 2 == 1;
    memmem::find_iter(src, b"]:").any(|end| {
        // The label's `[` is the last bracket before it not escaped (a label holds no other), at most
        // 999 characters back. Each scan stops at the bracket before, so the whole is linear.
        let from = end.saturating_sub(4 * 1000);
        let mut upto = end;
        let open = loop {
            let Some(at) = memrchr2(b'[', b']', &src[from..upto]).map(|i| from + i) else {
                return false;
            };
            if escaped(at) {
                upto = at;
            } else if src[at] == b']' {
                return false;
            } else {
                break at;
            }
        };
        let mut i = open;
        while i > 0 && !matches!(src[i - 1], b'\n' | b'\r') {
            if !BEFORE.contains(&src[i - 1]) {
                return false;
            }
            i -= 1;
        }
        true
    })
}

fn whole(src: &str, each: &mut dyn FnMut(Event<'_>, usize)) {
    for (event, range) in Parser::new_ext(src, options()).into_offset_iter() {
        each(event, range.start);
    }
}

/// Walks `src` a window at a time, each parsed after `prefix` (definitions, which make no events); hands
/// `each` the events with their offsets in `src`, and appends to `defs` the definitions of the blocks
/// handed over.
fn walk(
    src: &str,
    window: usize,
    prefix: &str,
    each: &mut dyn FnMut(Event<'_>, usize),
    mut defs: Option<&mut String>,
) {
    let base = prefix.len();
    // Where the next window starts: 0, or the first line of a top-level block.
    let mut start: usize = 0;
    let mut size = window;
    let mut text = String::new();
    loop {
        let end = line_end(src, start.saturating_add(size));
        let last = end == src.len();
        let chunk: &str = if prefix.is_empty() {
            &src[start..end]
        } else {
            text.clear();
            text.push_str(prefix);
            text.push_str(&src[start..end]);
            &text
        };
        let parser = Parser::new_ext(chunk, options());
        let mut found: Vec<(usize, String)> = match defs {
            Some(_) => parser
                .reference_definitions()
                .iter()
                .map(|(label, def)| {
                    let title = def.title.as_deref();
                    (def.span.start, definition(label, &def.dest, title))
                })
                .collect(),
            None => Vec::new(),
        };
        // The events of the top-level block being read (with any that start on its first line), handed
        // over when a block starts on a later line, and `held_line`, where that first line starts.
        let mut held: Vec<(Event<'_>, usize)> = Vec::new();
        let mut held_line = base;
        // Where the text of the events held and of those handed over ends (a list's or a block quote's own
        // range may run on over what follows it).
        let (mut held_end, mut handed_end) = (base, base);
        let mut depth = 0usize;
        for (event, range) in parser.into_offset_iter() {
            if range.start < base {
                // Nothing of the definitions makes an event; were one to, it is not the text's.
                continue;
            }
            match event {
                Event::End(_) => depth = depth.saturating_sub(1),
                _ => {
                    if depth == 0 {
                        let line = line_start(chunk, range.start).max(base);
                        if line > held_line {
                            for (e, at) in held.drain(..) {
                                each(e, start + at - base);
                            }
                            handed_end = handed_end.max(held_end);
                            held_line = line;
                        }
                    }
                    if matches!(event, Event::Start(_)) {
                        depth += 1;
                    }
                }
            }
            let container = matches!(
                event,
                Event::Start(
                    Tag::List(_) | Tag::Item | Tag::BlockQuote(_) | Tag::FootnoteDefinition(_)
                ) | Event::End(
                    TagEnd::List(_)
                        | TagEnd::Item
                        | TagEnd::BlockQuote(_)
                        | TagEnd::FootnoteDefinition
                )
            );
            if !container {
                held_end = held_end.max(range.end);
            }
            held.push((event, range.start));
        }
        // A paragraph whose first lines are link reference definitions begins at them, though its first
        // event comes after them: the next window starts at the first of them, or it would read the rest
        // as another block (`0. x` after `[x]: y` continues that paragraph; alone it is a list). A line
        // after the blocks handed over that made no event and begins with `[` is such a definition
        // (parsed again from there, one that ended a list item's content defines the same, no event).
        let from = handed_end.max(base).min(held_line);
        if let Some(i) = chunk.as_bytes()[from..held_line]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
        {
            let line = line_start(chunk, from + i).max(base);
            if line >= from && chunk.as_bytes()[from + i] == b'[' {
                held_line = line;
            }
        }
        // What is final: all of the last window, else the blocks before the held one.
        let cut = if last { usize::MAX } else { held_line };
        if last {
            for (e, at) in held.drain(..) {
                each(e, start + at - base);
            }
        }
        if let Some(defs) = defs.as_deref_mut() {
            found.retain(|(at, _)| *at < cut);
            found.sort_unstable_by_key(|(at, _)| *at);
            found.iter().for_each(|(_, d)| defs.push_str(d));
        }
        if last {
            return;
        }
        drop(held);
        let next = start + (held_line - base);
        if next > start {
            start = next;
            size = window;
        } else {
            // One block fills the window: a longer one.
            size = size.saturating_mul(2);
        }
    }
}

/// The end of the line that holds byte `at` (its line ending included: `\n`, `\r\n` or a lone `\r`, as
/// CommonMark has them), or the end of `src`.
fn line_end(src: &str, at: usize) -> usize {
    let bytes = src.as_bytes();
    if at >= bytes.len() {
        return bytes.len();
    }
    match memchr2(b'\n', b'\r', &bytes[at..]).map(|i| at + i) {
        Some(cr) if bytes[cr] == b'\r' && bytes.get(cr + 1) == Some(&b'\n') => cr + 2,
        Some(end) => end + 1,
        None => bytes.len(),
    }
}

/// The start of the line that holds byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    memrchr2(b'\n', b'\r', &text.as_bytes()[..at]).map_or(0, |i| i + 1)
}

/// A definition as Markdown that defines the same: the label as written (pulldown-cmark keeps it with
/// its white space collapsed, which is how labels compare), the destination and title with every ASCII
/// punctuation character escaped and line breaks as character references.
fn definition(label: &str, dest: &str, title: Option<&str>) -> String {
    let mut out = String::with_capacity(label.len() + dest.len() + 8);
    out.push('[');
    out.push_str(label);
    out.push_str("]: <");
    escape(&mut out, dest);
    out.push('>');
    if let Some(title) = title {
        out.push_str(" \"");
        escape(&mut out, title);
        out.push('"');
    }
    out.push('\n');
    out
}

fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
}
