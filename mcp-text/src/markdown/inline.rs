//! The inline writer: text with marks, and inline nodes, as one paragraph's (or heading's, or cell's)
//! Markdown.
//!
//! Marks become spans that open and close around runs of text. `**`, `*` and `~~` are used when the
//! delimiter runs they make flank the text as CommonMark requires; otherwise the same span is written as
//! `<strong>`, `<em>` or `<del>`, which the reader reads back the same (so `**Note: **` with its trailing
//! space is never broken). The decision is made after the pieces are rendered, on the actual characters
//! on either side of each delimiter run.

use super::element;
use super::escape::{self, flanking, Ctx};
use super::forms::{self, autolink_safe, format_date};
use super::label::{self, shows_content};
use super::marker::{self, Inf, Inferred};
use super::text_form::{marks_apart, plain_text, plain_writes_apart, shown_form};
use super::WriteOptions;
use crate::model::{Mark, MarkType, Node, NodeType};

/// Where inline content goes.
#[derive(Clone, Copy, Default)]
pub(super) struct Place {
    /// One line only (heading, table cell): a hard break is `<br>`.
    pub single_line: bool,
    pub in_cell: bool,
    pub in_heading: bool,
    /// A `mediaInline` alone in its paragraph: written whole (`[alt](adf:mediaInline '…')`), since an
    /// image alone on its line reads as a block image once the paragraph's marker is lost.
    pub lone_media: bool,
    /// Between an HTML element's tags (`<span>…</span>`): the content neither starts nor ends a line.
    pub enclosed: bool,
    /// Within a link's text (an element's content there): `]` would end it.
    pub in_link: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Text,
    Break,
    /// A storage element written as its HTML, marks and all (see `element`).
    Element,
    Other,
}

struct Piece {
    body: (usize, usize),
    first: Option<char>,
    last: Option<char>,
}

#[derive(Clone, Copy, PartialEq)]
enum Tok {
    Open(usize),
    Close(usize),
    Body(usize),
    Sep,
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    /// A Markdown delimiter (`**`, `*`, `~~`) that may still fall back to HTML.
    Md(&'static str, &'static str, &'static str),
    Html,
    Link,
}

struct Seg<'d> {
    mark: &'d Mark,
    form: Form,
}

/// Reused buffers, so that a document's paragraphs do not each allocate.
#[derive(Default)]
pub(super) struct Scratch {
    bodies: String,
    kinds: Vec<Kind>,
    toks: Vec<Tok>,
    stack: Vec<usize>,
    pieces: Vec<Piece>,
    body_tok: Vec<usize>,
    link_depth_at: Vec<usize>,
}

fn span_marks(node: &Node) -> impl Iterator<Item = &Mark> {
    node.mark_list().iter().filter(|m| m.kind != MarkType::Code)
}

fn has_mark(node: &Node, kinds: &[Kind], k: usize, mark: &Mark) -> bool {
    matches!(kinds[k], Kind::Text | Kind::Element) && span_marks(node).any(|m| m == mark)
}

/// Whether the span open at `stack[p]` may stay open around `node`: the node has its mark, and every mark
/// of the same rank the node lists before it is open outside it. The reader orders a text's marks by
/// rank and, within a rank (annotations, marks the schema does not define), by nesting, outermost first.
fn stays_open(node: &Node, segs: &[Seg], stack: &[usize], p: usize) -> bool {
    let mark = segs[stack[p]].mark;
    for m in span_marks(node) {
        if m == mark {
            return true;
        }
        if m.kind.rank() == mark.kind.rank() && !stack[..p].iter().any(|&s| segs[s].mark == m) {
            return false;
        }
    }
    false
}

/// Puts the marks of each rank among `new` (the spans about to open around `node`, outermost first) in
/// the order the node lists them, in the places that rank holds (see [`stays_open`]).
fn in_list_order_by_rank(node: &Node, new: &mut [(&Mark, usize)]) {
    if new.len() < 2 {
        return;
    }
    let at = |mark: &Mark| span_marks(node).position(|m| std::ptr::eq(m, mark));
    for i in 0..new.len() {
        for j in i + 1..new.len() {
            if new[i].0.kind.rank() == new[j].0.kind.rank() && at(new[j].0) < at(new[i].0) {
                new.swap(i, j);
            }
        }
    }
}

/// Writes `nodes` (inline content) to `out`. Lines are separated by `\n` (hard breaks); the caller adds
/// the container's prefixes.
pub(super) fn write(
    out: &mut String,
    nodes: &[Node],
    place: Place,
    opts: &WriteOptions,
    scratch: &mut Scratch,
) {
    if opts.plain && nodes.iter().any(plain_writes_apart) {
        // Without markers, a text Markdown cannot hold as it stands is written as near as it can.
        let plain: Vec<Node> = nodes
            .iter()
            .filter_map(|node| match plain_writes_apart(node) {
                true => shown_form(node),
                false => Some(node.clone()),
            })
            .collect();
        return write(out, &plain, place, opts, scratch);
    }
    if !opts.plain && nodes.iter().any(|node| marks_apart(node).is_some()) {
        // A text whose marks alone Markdown cannot hold is written as its plain form, each followed by a
        // modifier that gives it its marks back.
        let shown: Vec<Node> = nodes
            .iter()
            .map(|node| marks_apart(node).unwrap_or_else(|| node.clone()))
            .collect();
        return write_shown(out, &shown, Some(nodes), place, opts, scratch);
    }
    write_shown(out, nodes, None, place, opts, scratch);
}

/// [`write`] of `nodes` as they are, but that where `original` is given, a text that differs from its
/// original (only in its marks: see [`marks_apart`]) is followed by a modifier giving it the original's.
fn write_shown(
    out: &mut String,
    nodes: &[Node],
    original: Option<&[Node]>,
    place: Place,
    opts: &WriteOptions,
    scratch: &mut Scratch,
) {
    let n = nodes.len();
    let mut kinds = std::mem::take(&mut scratch.kinds);
    kinds.clear();
    kinds.extend(nodes.iter().map(|node| match node.kind {
        NodeType::Text if plain_text(node) => Kind::Text,
        // A break alone in its text has no form (`<br>` alone on a line would be an HTML block).
        NodeType::HardBreak
            if node.attrs.is_none()
                && node.content.is_none()
                && node.marks.is_none()
                && node.text.is_none()
                && node.extra.is_none()
                && (place.single_line || n > 1) =>
        {
            Kind::Break
        }
        NodeType::Other(_) if !opts.plain && element::element_form(node) => Kind::Element,
        _ => Kind::Other,
    }));

    // 1. Spans: a stack simulation gives the order of opens, closes and bodies.
    let mut segs: Vec<Seg> = Vec::new();
    let mut toks = std::mem::take(&mut scratch.toks);
    toks.clear();
    let mut stack = std::mem::take(&mut scratch.stack);
    stack.clear();
    for k in 0..n {
        let node = &nodes[k];
        let keep = (0..stack.len())
            .position(|p| {
                !matches!(kinds[k], Kind::Text | Kind::Element)
                    || !stays_open(node, &segs, &stack, p)
            })
            .unwrap_or(stack.len());
        while stack.len() > keep {
            toks.push(Tok::Close(stack.pop().unwrap_or_default()));
        }
        if matches!(kinds[k], Kind::Text | Kind::Element) {
            let mut new: Vec<(&Mark, usize)> = span_marks(node)
                .filter(|m| !stack.iter().any(|&s| segs[s].mark == *m))
                .map(|m| {
                    let len = (k..n)
                        .take_while(|&j| has_mark(&nodes[j], &kinds, j, m))
                        .count();
                    (m, len)
                })
                .collect();
            new.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.kind.rank().cmp(&b.0.kind.rank())));
            in_list_order_by_rank(node, &mut new);
            if new.is_empty()
                && kinds[k] == Kind::Text
                && k > 0
                && kinds[k - 1] == Kind::Text
                && matches!(toks.last(), Some(Tok::Body(_)))
                && node.mark_list().iter().any(|m| m.kind == MarkType::Code)
                    == nodes[k - 1]
                        .mark_list()
                        .iter()
                        .any(|m| m.kind == MarkType::Code)
            {
                // Two texts with the same marks would be read as one; adjacent code spans would merge.
                toks.push(Tok::Sep);
            }
            for (m, _) in new {
                let form = match m.kind {
                    MarkType::Link => Form::Link,
                    _ if m.attrs.is_some() || m.extra.is_some() => Form::Html,
                    MarkType::Strong => Form::Md("**", "<strong>", "</strong>"),
                    MarkType::Em => Form::Md("*", "<em>", "</em>"),
                    MarkType::Strike => Form::Md("~~", "<del>", "</del>"),
                    _ => Form::Html,
                };
                segs.push(Seg { mark: m, form });
                stack.push(segs.len() - 1);
                toks.push(Tok::Open(segs.len() - 1));
            }
        }
        toks.push(Tok::Body(k));
    }
    while let Some(s) = stack.pop() {
        toks.push(Tok::Close(s));
    }

    // 2. Bodies, each escaped for where it sits.
    scratch.bodies.clear();
    let mut pieces = std::mem::take(&mut scratch.pieces);
    pieces.clear();
    let mut body_tok = std::mem::take(&mut scratch.body_tok);
    body_tok.clear();
    body_tok.resize(n, 0);
    for (t, tok) in toks.iter().enumerate() {
        if let Tok::Body(k) = tok {
            body_tok[*k] = t;
        }
    }
    let mut in_link = 0usize;
    let mut link_depth_at = std::mem::take(&mut scratch.link_depth_at);
    link_depth_at.clear();
    link_depth_at.resize(n, 0);
    for tok in &toks {
        match tok {
            Tok::Open(s) if segs[*s].form == Form::Link => in_link += 1,
            Tok::Close(s) if segs[*s].form == Form::Link => in_link -= 1,
            Tok::Body(k) => link_depth_at[*k] = in_link,
            _ => {}
        }
    }
    for k in 0..n {
        let t = body_tok[k];
        let prev = if t == 0 { None } else { Some(toks[t - 1]) };
        let next = toks.get(t + 1).copied();
        let after_break = |p: Option<Tok>| matches!(p, Some(Tok::Body(j)) if kinds[j] == Kind::Break && !place.single_line);
        let prev_char = match prev {
            None if place.enclosed => Some('>'),
            None => None,
            Some(Tok::Body(j)) => pieces[j].last,
            Some(_) => Some('*'),
        };
        let next_char = match next {
            None if place.enclosed => Some('<'),
            None => None,
            Some(Tok::Body(j)) => first_char(&nodes[j], kinds[j], place),
            Some(_) => Some('*'),
        };
        let ctx = Ctx {
            line_start: (prev.is_none() && !place.enclosed) || after_break(prev),
            line_end: (next.is_none() && !place.enclosed) || after_break(next),
            keep_lead: matches!(prev, Some(Tok::Open(_))),
            keep_trail: matches!(next, Some(Tok::Close(_))),
            in_link: place.in_link || link_depth_at[k] > 0,
            in_cell: place.in_cell,
            in_heading: place.in_heading,
            prev: prev_char,
            next: next_char,
        };
        let start = scratch.bodies.len();
        // A break last in its text, which `\` at a line's end cannot say (a paragraph ends there), is the
        // HTML's, after what comes before it: `text<br>`, inline HTML the reader reads as a break.
        let trailing_break = kinds[k] == Kind::Break && next.is_none();
        if trailing_break {
            scratch.bodies.push_str("<br>");
        } else {
            body(&mut scratch.bodies, &nodes[k], kinds[k], &ctx, place, opts);
        }
        if let Some(original) = original
            .map(|o| &o[k])
            .filter(|o| o.marks != nodes[k].marks)
        {
            let diff = marker::text_marks(original);
            marker::push_inline(&mut scratch.bodies, "text", &diff);
        }
        let s = &scratch.bodies[start..];
        let (first, last) = match kinds[k] {
            Kind::Break if !place.single_line && !trailing_break => (Some('\\'), None),
            _ => (s.chars().next(), s.chars().next_back()),
        };
        pieces.push(Piece {
            body: (start, scratch.bodies.len()),
            first,
            last,
        });
    }

    // 3. Forms: a delimiter run that would not flank falls back to HTML tags, until none changes.
    let render_first = |tok: &Tok, segs: &[Seg]| -> Option<char> {
        match tok {
            Tok::Body(k) => pieces[*k].first,
            Tok::Sep => Some('<'),
            Tok::Open(s) => match segs[*s].form {
                Form::Md(d, _, _) => d.chars().next(),
                Form::Html => Some('<'),
                Form::Link => Some('['),
            },
            Tok::Close(s) => match segs[*s].form {
                Form::Md(d, _, _) => d.chars().next(),
                Form::Html => Some('<'),
                Form::Link => Some(']'),
            },
        }
    };
    let render_last = |tok: &Tok, segs: &[Seg]| -> Option<char> {
        match tok {
            Tok::Body(k) => pieces[*k].last,
            Tok::Sep => Some('>'),
            Tok::Open(s) => match segs[*s].form {
                Form::Md(d, _, _) => d.chars().next(),
                Form::Html => Some('>'),
                Form::Link => Some('['),
            },
            Tok::Close(s) => match segs[*s].form {
                Form::Md(d, _, _) => d.chars().next(),
                Form::Html => Some('>'),
                Form::Link => Some(')'),
            },
        }
    };
    let delim = |tok: &Tok, segs: &[Seg]| -> Option<char> {
        match tok {
            Tok::Open(s) | Tok::Close(s) => match segs[*s].form {
                Form::Md(d, _, _) => d.chars().next(),
                _ => None,
            },
            _ => None,
        }
    };
    // The Markdown emphasis open before a run (its segment, its delimiter, its run's length): a run meant
    // to open that can close too closes one of these if CommonMark's rule of 3 lets it.
    let mut open: Vec<(usize, char, usize)> = Vec::new();
    loop {
        let mut changed = false;
        let mut t = 0;
        open.clear();
        while t < toks.len() {
            let Some(c) = delim(&toks[t], &segs) else {
                t += 1;
                continue;
            };
            let mut e = t;
            while e + 1 < toks.len() && delim(&toks[e + 1], &segs) == Some(c) {
                e += 1;
            }
            let prev = if t == 0 {
                None
            } else {
                render_last(&toks[t - 1], &segs)
            };
            let next = toks.get(e + 1).and_then(|x| render_first(x, &segs));
            let (left, right) = flanking(prev, next);
            let opens = toks[t..=e].iter().any(|x| matches!(x, Tok::Open(_)));
            let closes = toks[t..=e].iter().any(|x| matches!(x, Tok::Close(_)));
            let run: usize = toks[t..=e]
                .iter()
                .map(|x| match x {
                    Tok::Open(s) | Tok::Close(s) => match segs[*s].form {
                        Form::Md(d, _, _) => d.len(),
                        _ => 0,
                    },
                    _ => 0,
                })
                .sum();
            for tok in &toks[t..=e] {
                if let Tok::Close(s) = *tok {
                    if let Some(i) = open.iter().rposition(|o| o.0 == s) {
                        open.remove(i);
                    }
                }
            }
            // A run meant to open that flanks both ways (`*a**b**\<t>**c**d*`, the run between `>` and
            // `<`) is tried as a closer first: it closes an emphasis still open before it unless CommonMark's
            // rule of 3 forbids (the runs' lengths add up to a multiple of 3, not both multiples of 3).
            // Then it is written as HTML. A run meant to close needs no such check: the spans nest, so the
            // nearest opener it can meet is its own, and the rule of 3 never keeps it from that one (an
            // emphasis opens in a run of 1 or 3 and closes in a run of 1 or 3, a strong span in 2 or 3,
            // so the two add up to 2, 4, 5 or 6, and 6 only as 3 and 3).
            let closes_earlier = c == '*'
                && opens
                && !closes
                && left
                && right
                && open.iter().any(|&(_, oc, len)| {
                    oc == c && ((len + run) % 3 != 0 || (len % 3 == 0 && run % 3 == 0))
                });
            let ok = if opens && closes {
                false
            } else if opens {
                left && !closes_earlier
            } else {
                right
            };
            if ok && opens {
                for tok in &toks[t..=e] {
                    if let Tok::Open(s) = *tok {
                        open.push((s, c, run));
                    }
                }
            }
            if !ok {
                for tok in &toks[t..=e] {
                    if let Tok::Open(s) | Tok::Close(s) = *tok {
                        if opens && closes && matches!(tok, Tok::Close(_)) {
                            continue;
                        }
                        segs[s].form = Form::Html;
                        changed = true;
                    }
                }
            }
            t = e + 1;
        }
        if !changed {
            break;
        }
    }

    // 4. Out.
    for tok in &toks {
        match *tok {
            Tok::Body(k) => out.push_str(&scratch.bodies[pieces[k].body.0..pieces[k].body.1]),
            Tok::Sep if opts.plain => {}
            Tok::Sep => out.push_str("<!---->"),
            Tok::Open(s) => open_tag(out, &segs[s]),
            Tok::Close(s) => close_tag(out, &segs[s], place, opts.plain),
        }
    }
    scratch.kinds = kinds;
    scratch.toks = toks;
    scratch.stack = stack;
    scratch.pieces = pieces;
    scratch.body_tok = body_tok;
    scratch.link_depth_at = link_depth_at;
}

/// The first character a piece will be written with (escaping aside: an escape is punctuation too).
fn first_char(node: &Node, kind: Kind, place: Place) -> Option<char> {
    match kind {
        Kind::Break if place.single_line => Some('<'),
        Kind::Break => Some('\\'),
        Kind::Text if node.mark_list().iter().any(|m| m.kind == MarkType::Code) => Some('`'),
        Kind::Text => node.text.as_deref().and_then(|t| t.chars().next()),
        Kind::Element => Some('<'),
        Kind::Other => Some('['),
    }
}

fn open_tag(out: &mut String, seg: &Seg) {
    match seg.form {
        Form::Md(d, _, _) => out.push_str(d),
        Form::Link => out.push('['),
        Form::Html => {
            let m = seg.mark;
            if m.attrs.is_none() && m.extra.is_none() {
                match m.kind {
                    MarkType::Strong => return out.push_str("<strong>"),
                    MarkType::Em => return out.push_str("<em>"),
                    MarkType::Strike => return out.push_str("<del>"),
                    MarkType::Underline => return out.push_str("<u>"),
                    _ => {}
                }
            }
            if m.extra.is_none() && m.attrs.as_ref().is_some_and(|a| a.len() == 1) {
                match (&m.kind, m.attr_str("type"), m.attr_str("color")) {
                    (MarkType::Subsup, Some("sub"), _) => return out.push_str("<sub>"),
                    (MarkType::Subsup, Some("sup"), _) => return out.push_str("<sup>"),
                    (MarkType::TextColor, _, Some(color)) if forms::adf_color(color) => {
                        out.push_str("<span style=\"color:");
                        out.push_str(color);
                        return out.push_str("\">");
                    }
                    _ => {}
                }
            }
            out.push_str("<span data-mark='");
            marker::push_mark_attr(out, m);
            out.push_str("'>");
        }
    }
}

fn close_tag(out: &mut String, seg: &Seg, place: Place, plain: bool) {
    match seg.form {
        Form::Md(d, _, _) => out.push_str(d),
        Form::Link => link_close(out, seg.mark, place.in_cell, plain),
        Form::Html => {
            let m = seg.mark;
            let tag = if m.attrs.is_none() && m.extra.is_none() {
                match m.kind {
                    MarkType::Strong => "</strong>",
                    MarkType::Em => "</em>",
                    MarkType::Strike => "</del>",
                    MarkType::Underline => "</u>",
                    _ => "</span>",
                }
            } else if m.extra.is_none()
                && m.attrs.as_ref().is_some_and(|a| a.len() == 1)
                && m.kind == MarkType::Subsup
            {
                match m.attr_str("type") {
                    Some("sub") => "</sub>",
                    Some("sup") => "</sup>",
                    _ => "</span>",
                }
            } else {
                "</span>"
            };
            out.push_str(tag);
        }
    }
}

/// The end of a link, `](href "title")`: the title slot holds the plain title, or a diff of the mark
/// (which then carries the title too). `plain`: no diff, only the title.
pub(super) fn link_close(out: &mut String, m: &Mark, in_cell: bool, plain: bool) {
    out.push_str("](");
    let href = m.attr_str("href").unwrap_or_default();
    push_dest(out, href, in_cell);
    let title = m.attr_str("title").filter(|t| !t.starts_with('{'));
    let with_title = title.map(|t| [("href", Inf::Str(href)), ("title", Inf::Str(t))]);
    let only_href = [("href", Inf::Str(href))];
    let diff = match &with_title {
        Some(inf) => marker::mark_diff(m, Some(inf)),
        None => marker::mark_diff(m, Some(&only_href)),
    };
    if diff.is_some() && !plain {
        if let Some(d) = marker::mark_diff(m, Some(&only_href)) {
            out.push(' ');
            push_title_diff(out, &d, in_cell);
        }
    } else if let Some(t) = title {
        out.push(' ');
        let start = out.len();
        marker::push_plain_title(out, t);
        if in_cell {
            escape_pipes_from(out, start);
        }
    }
    out.push(')');
}

fn push_title_diff(out: &mut String, d: &marker::Diff, in_cell: bool) {
    let start = out.len();
    marker::push_title_json(out, d);
    if in_cell {
        escape_pipes_from(out, start);
    }
}

fn escape_pipes_from(out: &mut String, start: usize) {
    if out[start..].contains('|') {
        let tail = out[start..].replace('|', "\\|");
        out.truncate(start);
        out.push_str(&tail);
    }
}

/// A link destination: bare when it reads back unchanged, else in `<…>` with escapes.
pub(super) fn push_dest(out: &mut String, dest: &str, in_cell: bool) {
    let mut depth = 0i32;
    let balanced = dest.chars().all(|c| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        depth >= 0
    }) && depth == 0;
    let bare = !dest.is_empty()
        && balanced
        && !dest.starts_with('<')
        && dest
            .chars()
            .all(|c| !c.is_ascii_control() && c != ' ' && c != '\\' && c != '&' && c != '|');
    if bare {
        out.push_str(dest);
        return;
    }
    out.push('<');
    for c in dest.chars() {
        match c {
            '<' | '>' | '\\' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '|' if in_cell => out.push_str("\\|"),
            _ => out.push(c),
        }
    }
    out.push('>');
}

fn body(out: &mut String, node: &Node, kind: Kind, ctx: &Ctx, place: Place, opts: &WriteOptions) {
    match kind {
        Kind::Break => out.push_str(if place.single_line { "<br>" } else { "\\\n" }),
        Kind::Text => {
            let text = node.text.as_deref().unwrap_or_default();
            if node.mark_list().iter().any(|m| m.kind == MarkType::Code) {
                code_span(out, text, ctx, place);
            } else {
                escape::text(out, text, ctx);
                if !ctx.line_end && text.ends_with('!') {
                    // `!` right before a link's `[` would make it an image.
                    out.pop();
                    out.push_str("\\!");
                }
            }
            if node.marks.as_ref().is_some_and(Vec::is_empty) && !opts.plain {
                // `marks: []` differs from no marks only in the JSON: a modifier of the text before it.
                out.push_str("<!--adf:text {\"marks\":[]}-->");
            }
        }
        Kind::Element => {
            let attributes = element::span_attributes(node).unwrap_or_default();
            element::open_tag(out, &attributes);
            let inner = Place {
                enclosed: true,
                in_link: ctx.in_link,
                lone_media: false,
                ..place
            };
            write(out, node.children(), inner, opts, &mut Scratch::default());
            out.push_str("</span>");
        }
        Kind::Other => {
            if !atom(out, node, place, opts) {
                let label = label::label(node, opts);
                if opts.plain {
                    // No markers: an inline node without a form shows its label, else its content.
                    if let Some(label) = &label {
                        escape::text(out, label, ctx);
                    } else if !node.children().is_empty() {
                        write(out, node.children(), place, opts, &mut Scratch::default());
                    }
                } else {
                    raw(out, node, place, label.as_deref());
                }
            }
        }
    }
}

fn code_span(out: &mut String, text: &str, ctx: &Ctx, place: Place) {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    if text.contains(['\n', '\r']) {
        out.push_str("<code>");
        escape::text(
            out,
            text,
            &Ctx {
                keep_lead: true,
                keep_trail: true,
                ..*ctx
            },
        );
        out.push_str("</code>");
        return;
    }
    let fence = longest + 1;
    let pad = text.starts_with('`')
        || text.ends_with('`')
        || (text.starts_with(' ') && text.ends_with(' ') && !text.bytes().all(|b| b == b' '));
    for _ in 0..fence {
        out.push('`');
    }
    if pad {
        out.push(' ');
    }
    if place.in_cell {
        for c in text.chars() {
            if c == '|' {
                out.push('\\');
            }
            out.push(c);
        }
    } else {
        out.push_str(text);
    }
    if pad {
        out.push(' ');
    }
    for _ in 0..fence {
        out.push('`');
    }
}

/// The whole node as `[label](adf:TYPE '{…}')` (see `label`; the label may be empty), but the content
/// where the label shows it (see [`shows_content`]).
pub(super) fn raw(out: &mut String, node: &Node, place: Place, label: Option<&str>) {
    out.push('[');
    if let Some(label) = label {
        let start = out.len();
        link_text(out, label);
        if place.in_cell {
            escape_pipes_from(out, start);
        }
    }
    out.push_str("](adf:");
    push_type(out, node.kind.name());
    let bare;
    let d = if node.kind == NodeType::InlineExtension {
        let node = match label.and_then(|l| label::macro_without_label(node, l)) {
            Some(n) => {
                bare = n;
                &bare
            }
            None => node,
        };
        // Its type is implied (`marker::implied`); its label gives its name and main parameter.
        marker::whole(node)
    } else if shows_content(node, label) {
        marker::whole_but_content(node)
    } else {
        marker::whole(node)
    };
    if !d.is_empty() {
        out.push(' ');
        push_title_diff(out, &d, place.in_cell);
    }
    out.push(')');
}

fn push_type(out: &mut String, name: &str) {
    marker::push_type_name(out, name);
}

fn link_text(out: &mut String, s: &str) {
    let ctx = Ctx {
        in_link: true,
        keep_lead: true,
        keep_trail: true,
        prev: Some('['),
        next: Some(']'),
        ..Ctx::default()
    };
    escape::text(out, s, &ctx);
}

/// An inline node with a link form. False when it has none (then it is written raw).
fn atom(out: &mut String, node: &Node, place: Place, opts: &WriteOptions) -> bool {
    if node.marks.is_some() || node.text.is_some() || node.content.is_some() || node.extra.is_some()
    {
        return false;
    }
    let bad = |s: &str| s.contains(['\n', '\r', '\0']);
    match node.kind {
        NodeType::Mention => {
            let Some(id) = node.attr_str("id").filter(|s| !bad(s)) else {
                return false;
            };
            let resolved;
            let name = match node.attr_str("text") {
                Some(t) if !bad(t) => t,
                _ => {
                    resolved = match opts.mentions.and_then(|r| r.display_name(id)) {
                        Some(n) => format!("@{n}"),
                        None => format!("@{id}"),
                    };
                    &resolved
                }
            };
            // `[@ID](mention:ID)` reads as a mention without `text` (nobody knew a name).
            let bare = name.strip_prefix('@') == Some(id);
            let inf = [
                ("id", Inf::Str(id)),
                ("text", Inf::Str(name)),
                forms::MENTION_ACCESS,
            ];
            let inf = if bare { &inf[..1] } else { &inf[..] };
            link_atom(out, name, ("mention:", id), node, inf, place, opts.plain);
            true
        }
        NodeType::Status => {
            let (Some(text), Some(color)) = (node.attr_str("text"), node.attr_str("color")) else {
                return false;
            };
            if bad(text) || bad(color) {
                return false;
            }
            let inf = [
                ("text", Inf::Str(text)),
                ("color", Inf::Str(color)),
                forms::STATUS_STYLE,
            ];
            link_atom(out, text, ("status:", color), node, &inf, place, opts.plain);
            true
        }
        NodeType::Date => {
            let Some(ts) = node.attr_str("timestamp").filter(|s| !bad(s)) else {
                return false;
            };
            let shown = match ts.parse::<i64>() {
                Ok(ms) if (-62_000_000_000_000..=253_000_000_000_000).contains(&ms) => {
                    format_date(ms)
                }
                _ => "date".to_string(),
            };
            let inf = [("timestamp", Inf::Str(ts))];
            link_atom(out, &shown, ("date:", ts), node, &inf, place, opts.plain);
            true
        }
        NodeType::Emoji => {
            let Some(short) = node
                .attr_str("shortName")
                .filter(|s| !bad(s) && !s.contains('#'))
            else {
                return false;
            };
            let id = node.attr_str("id").filter(|s| !bad(s));
            let shown = node
                .attr_str("text")
                .filter(|s| !bad(s) && !s.is_empty())
                .unwrap_or(short);
            let dest = match id {
                Some(id) => format!("{short}#{id}"),
                None => short.to_string(),
            };
            let mut inf = vec![("shortName", Inf::Str(short))];
            if let Some(id) = id {
                inf.push(("id", Inf::Str(id)));
            }
            if shown != short {
                inf.push(("text", Inf::Str(shown)));
            }
            link_atom(out, shown, ("emoji:", &dest), node, &inf, place, opts.plain);
            true
        }
        NodeType::InlineCard => {
            let Some(url) = node.attr_str("url").filter(|u| autolink_safe(u)) else {
                return false;
            };
            out.push('<');
            out.push_str(url);
            out.push('>');
            let inf = [("url", Inf::Str(url))];
            if let Some(d) =
                marker::diff(node, Inferred::new(Some(&inf), false)).filter(|_| !opts.plain)
            {
                out.push_str("<!--adf:inlineCard ");
                let start = out.len();
                marker::push_comment_json(out, &d);
                if place.in_cell {
                    let tail = out[start..].replace('|', "\\u007c");
                    out.truncate(start);
                    out.push_str(&tail);
                }
                out.push_str("-->");
            }
            true
        }
        NodeType::MediaInline => {
            if place.lone_media && !opts.plain {
                return false;
            }
            let Some(id) = node.attr_str("id").filter(|s| !bad(s)) else {
                return false;
            };
            let alt = node.attr_str("alt").filter(|s| !bad(s) && !s.is_empty());
            let mut inf = vec![("id", Inf::Str(id)), forms::MEDIA_INLINE_COLLECTION];
            if let Some(alt) = alt {
                inf.push(("alt", Inf::Str(alt)));
            }
            out.push('!');
            link_atom(
                out,
                alt.unwrap_or_default(),
                ("media:", id),
                node,
                &inf,
                place,
                opts.plain,
            );
            true
        }
        _ => false,
    }
}

/// `[shown](scheme:value 'diff')`: `dest` is `(scheme, value)`.
fn link_atom(
    out: &mut String,
    shown: &str,
    dest: (&str, &str),
    node: &Node,
    inf: &[(&str, Inf)],
    place: Place,
    plain: bool,
) {
    out.push('[');
    let start = out.len();
    link_text(out, shown);
    if place.in_cell {
        escape_pipes_from(out, start);
    }
    out.push_str("](");
    push_dest(out, &[dest.0, dest.1].concat(), place.in_cell);
    if let Some(d) = marker::diff(node, Inferred::new(Some(inf), false)).filter(|_| !plain) {
        out.push(' ');
        push_title_diff(out, &d, place.in_cell);
    }
    out.push(')');
}
