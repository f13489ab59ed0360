//! The reader: pulldown-cmark's event stream, walked once, into the model; markers applied back.
//!
//! Blocks are frames on a stack (never recursion), so any nesting depth is safe; nesting deeper than
//! [`MAX_NESTING`] is flattened into the level at the cap, with a warning. Markers that cannot be used
//! (bad JSON, a close without an open, a modifier whose node was deleted) cost that node's extra members
//! or its wrapper only, with a warning that names the line.

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value};

use super::autolink;
use super::forms::{self, format_date, parse_date, rank, reserved, singleton};
use super::html::{self, Tok};
use super::marker::{self, Marker};
use crate::error::Warning;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};
use crate::Read;

/// Block nesting (block quotes, lists, items) deeper than this is flattened.
pub const MAX_NESTING: usize = 512;

/// Each item's task marker and the diff its line carries.
type Tasks = Vec<(Option<bool>, Option<Map<String, Value>>)>;

const IMAGE: &str = "\u{0}md:image";

#[derive(PartialEq)]
enum Fk {
    Doc,
    Quote {
        panel: Option<&'static str>,
    },
    List {
        start: Option<u64>,
        tasks: Tasks,
    },
    Item {
        task: Option<bool>,
        inline_d: Option<(NodeType, Map<String, Value>)>,
    },
    Table,
    Row {
        d: Option<Map<String, Value>>,
    },
}

struct Pending {
    kind: NodeType,
    diff: Map<String, Value>,
    line: usize,
    count: Option<usize>,
}

struct Open {
    kind: NodeType,
    attrs: Option<Attrs>,
    diff: Option<Map<String, Value>>,
    start: usize,
    line: usize,
    /// An HTML element (`<details>`, `<table>`, …) rather than a marker pair.
    html: bool,
    /// How many blocks its open marker says it holds (where it ends if its close marker is lost).
    count: Option<usize>,
    /// A section's columns that lost their open marker (indices into the frame's children): their
    /// widths are shares of what the others leave, known when the section closes.
    recovered: Vec<usize>,
}

struct Frame {
    kind: Fk,
    children: Vec<Node>,
    pending: Option<Pending>,
    opens: Vec<Open>,
    self_d: Option<Map<String, Value>>,
    line: usize,
}

impl Frame {
    fn new(kind: Fk, line: usize) -> Self {
        Frame {
            kind,
            children: Vec::new(),
            pending: None,
            opens: Vec::new(),
            self_d: None,
            line,
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Ik {
    Paragraph,
    Heading(u8),
    Cell,
    Implicit,
}

#[derive(Clone, PartialEq)]
enum Closer {
    Em,
    Strong,
    Strike,
    Link,
    Html(&'static str),
}

enum CapKind {
    Atom,
    Autolink,
    Image,
}

struct Capture {
    kind: CapKind,
    dest: String,
    title: String,
    text: String,
    depth: usize,
    line: usize,
}

struct Inl {
    kind: Ik,
    nodes: Vec<Node>,
    active: Vec<(Mark, Closer)>,
    marks: Option<Vec<Mark>>,
    split: bool,
    capture: Option<Capture>,
    /// Skipping a panel's `[!TYPE]` line.
    skip_line: bool,
    link_starts: Vec<usize>,
    cell_d: Option<(NodeType, Map<String, Value>)>,
    line: usize,
}

struct R<'s> {
    src: &'s str,
    line_starts: Vec<usize>,
    frames: Vec<Frame>,
    inl: Option<Inl>,
    code: Option<(Option<String>, String, usize)>,
    html: Option<(String, usize)>,
    skipped: usize,
    warned_depth: bool,
    warnings: Vec<Warning>,
}

pub(super) fn read(src: &str) -> Read {
    let mut line_starts = vec![0];
    line_starts.extend(
        src.bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i + 1),
    );
    let mut r = R {
        src,
        line_starts,
        frames: vec![Frame::new(Fk::Doc, 1)],
        inl: None,
        code: None,
        html: None,
        skipped: 0,
        warned_depth: false,
        warnings: Vec::new(),
    };
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for (event, range) in Parser::new_ext(src, opts).into_offset_iter() {
        let line = r.line_of(range.start);
        r.event(event, range.start, line);
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
    let last_line = r.line_starts.len();
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

trait TakeIt<T> {
    fn take_it(&self) -> Option<T>;
}

impl TakeIt<Map<String, Value>> for Option<Map<String, Value>> {
    fn take_it(&self) -> Option<Map<String, Value>> {
        self.clone()
    }
}

impl<'s> R<'s> {
    fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    fn warn(&mut self, line: usize, msg: impl Into<String>) {
        if self.warnings.len() < 10_000 {
            self.warnings.push(Warning::new(line, msg));
        }
    }

    fn apply(&mut self, node: &mut Node, d: &Map<String, Value>, line: usize) {
        if let Err(e) = marker::apply(node, d) {
            let name = node.kind.name().to_string();
            self.warn(line, format!("the `{name}` marker could not be used ({e}); the node keeps what its Markdown says"));
        }
    }

    fn frame(&mut self) -> &mut Frame {
        let n = self.frames.len();
        &mut self.frames[n - 1]
    }

    fn event(&mut self, event: Event, offset: usize, line: usize) {
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
                if let Some(c) = &mut inl.capture {
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

    fn inl_mut(&mut self, line: usize) -> &mut Inl {
        if self.inl.is_none() {
            self.inl = Some(new_inl(Ik::Implicit, line));
        }
        self.inl.as_mut().unwrap_or_else(|| unreachable!())
    }

    fn close_implicit(&mut self) {
        if self.inl.as_ref().is_some_and(|i| i.kind == Ik::Implicit) {
            let inl = self.inl.take().unwrap_or_else(|| unreachable!());
            let line = inl.line;
            let node = self.finish_paragraph(inl);
            if let Some(node) = node {
                self.push_block(node, line);
            }
        }
    }

    fn start(&mut self, tag: Tag, offset: usize, line: usize) {
        match tag {
            Tag::Paragraph => {
                self.close_implicit();
                let mut inl = new_inl(Ik::Paragraph, line);
                // A panel: a block quote whose first line is `[!TYPE]`.
                let f = self.frames.last_mut();
                if let Some(f) = f {
                    if let Fk::Quote { panel } = &mut f.kind {
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
                            if let Some(t) = panel_type(first) {
                                *panel = Some(t);
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
                    self.frames
                        .push(Frame::new(Fk::Quote { panel: None }, line));
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
            Tag::TableHead | Tag::TableRow => {
                self.frames.push(Frame::new(Fk::Row { d: None }, line))
            }
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
                    attrs.insert("href".into(), Value::from(href));
                    let title = title.to_string();
                    let d = marker::title_diff(&title);
                    if d.is_none() && title.starts_with('{') {
                        // The writer never writes a plain title like this: a diff that was broken.
                        self.warn(line, "a link's title looks like a marker but is not one (bad JSON?); kept as the title");
                    }
                    if d.is_none() && !title.is_empty() {
                        attrs.insert("title".into(), Value::from(title));
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

    /// Whether a container may open (false past the nesting cap: its content flattens into this level).
    fn cap(&mut self, line: usize) -> bool {
        if self.frames.len() >= MAX_NESTING || self.skipped > 0 {
            self.skipped += 1;
            if !self.warned_depth {
                self.warned_depth = true;
                self.warn(line, format!("nesting deeper than {MAX_NESTING} levels is flattened into level {MAX_NESTING}"));
            }
            return false;
        }
        true
    }

    fn push_mark(&mut self, mark: Mark, closer: Closer, line: usize) {
        let inl = self.inl_mut(line);
        if let Some(c) = &mut inl.capture {
            if matches!(closer, Closer::Link) {
                c.depth += 1;
            }
            return;
        }
        inl.active.push((mark, closer));
        inl.marks = None;
        inl.split = true;
    }

    fn pop_mark(&mut self, closer: Closer, line: usize) -> bool {
        let inl = self.inl_mut(line);
        if let Some(i) = inl.active.iter().rposition(|(_, c)| *c == closer) {
            inl.active.remove(i);
            inl.marks = None;
            inl.split = true;
            true
        } else {
            false
        }
    }

    fn end(&mut self, end: TagEnd, line: usize) {
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
                    let Fk::Row { d } = f.kind else { return };
                    let mut row = Node::with_content(NodeType::TableRow, f.children);
                    if let Some(d) = d {
                        self.apply(&mut row, &d, f.line);
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

    fn end_mark(&mut self, closer: Closer, line: usize) {
        if self.inl.as_ref().is_some_and(|i| i.capture.is_some()) {
            return;
        }
        self.pop_mark(closer, line);
    }

    fn end_link(&mut self, line: usize) {
        let inl = self.inl_mut(line);
        if let Some(c) = &mut inl.capture {
            if c.depth > 0 {
                c.depth -= 1;
                return;
            }
            let c = inl.capture.take().unwrap_or_else(|| unreachable!());
            let mut node = self.atom(c);
            let inl = self.inl_mut(line);
            if is_image(&node) {
                // `[![alt](src)](href)`: the image is linked (a block image keeps the link).
                let links: Vec<Mark> = inl
                    .active
                    .iter()
                    .filter(|(_, c)| *c == Closer::Link)
                    .map(|(m, _)| m.clone())
                    .collect();
                if !links.is_empty() {
                    node.marks = Some(links);
                }
            }
            inl.nodes.push(node);
            inl.split = true;
            return;
        }
        let start = inl.link_starts.pop().unwrap_or(inl.nodes.len());
        let has_text = inl.nodes[start..]
            .iter()
            .any(|n| n.kind == NodeType::Text || is_image(n));
        if !has_text {
            // A link with no text would vanish: its destination becomes its text.
            let href = inl
                .active
                .iter()
                .rev()
                .find(|(_, c)| *c == Closer::Link)
                .and_then(|(m, _)| m.attr_str("href"))
                .unwrap_or_default()
                .to_string();
            if !href.is_empty() {
                self.push_text(&href);
            }
        }
        self.pop_mark(Closer::Link, line);
    }

    /// An inline node from a link or image form.
    fn atom(&mut self, c: Capture) -> Node {
        let line = c.line;
        let d = if c.title.is_empty() {
            None
        } else {
            marker::title_diff(&c.title)
        };
        if !c.title.is_empty() && d.is_none() && matches!(c.kind, CapKind::Atom) {
            self.warn(line, "an inline node's marker (its link title) is not JSON; the node keeps what its Markdown says");
        }
        let mut node = match c.kind {
            CapKind::Autolink => {
                let mut n = Node::new(NodeType::InlineCard);
                n.set_attr("url", c.dest.clone());
                n
            }
            CapKind::Image => {
                let mut n = Node::new(NodeType::Other(IMAGE.into()));
                n.set_attr("dest", c.dest.clone());
                n.set_attr("alt", c.text.clone());
                if let Some(d) = d {
                    n.extra = Some(Box::new(d.into()));
                }
                return n;
            }
            CapKind::Atom => {
                let (scheme, value) = c.dest.split_once(':').unwrap_or_default();
                let scheme = scheme.to_ascii_lowercase();
                match scheme.as_str() {
                    "mention" => {
                        let mut n = Node::new(NodeType::Mention);
                        n.set_attr("id", value);
                        if c.text.strip_prefix('@') != Some(value) {
                            n.set_attr("text", c.text.clone());
                            let (k, v) = forms::MENTION_ACCESS;
                            n.set_attr(k, v.value());
                        }
                        n
                    }
                    "status" => {
                        let mut n = Node::new(NodeType::Status);
                        n.set_attr("text", c.text.clone());
                        n.set_attr("color", value);
                        let (k, v) = forms::STATUS_STYLE;
                        n.set_attr(k, v.value());
                        n
                    }
                    "date" => {
                        let mut n = Node::new(NodeType::Date);
                        let mut ts = value.to_string();
                        if let (Some(shown), Ok(ms)) =
                            (parse_date(c.text.trim()), value.parse::<i64>())
                        {
                            // The model edited the date it read: its text wins.
                            if format_date(ms) != c.text.trim() {
                                ts = shown.to_string();
                            }
                        }
                        n.set_attr("timestamp", ts);
                        n
                    }
                    "emoji" => {
                        let mut n = Node::new(NodeType::Emoji);
                        let (short, id) = match value.rsplit_once('#') {
                            Some((s, i)) => (s, Some(i)),
                            None => (value, None),
                        };
                        n.set_attr("shortName", short);
                        if let Some(id) = id {
                            n.set_attr("id", id);
                        }
                        if !c.text.is_empty() && c.text != short {
                            n.set_attr("text", c.text.clone());
                        }
                        n
                    }
                    "media" => {
                        let mut n = Node::new(NodeType::MediaInline);
                        n.set_attr("id", value);
                        n
                    }
                    _ => Node::new(NodeType::from_name(&marker::decode_type_name(value))),
                }
            }
        };
        if let Some(d) = d {
            self.apply(&mut node, &d, line);
        }
        node
    }

    fn text(&mut self, t: &str, offset: usize, line: usize) {
        let inl = self.inl_mut(line);
        if inl.skip_line {
            return;
        }
        if let Some(c) = &mut inl.capture {
            c.text.push_str(t);
            return;
        }
        let in_link = inl.active.iter().any(|(_, c)| *c == Closer::Link);
        // Extended autolinks only where the source shows the text as it is (an escape turns them off).
        let verbatim = offset != usize::MAX && self.src.get(offset..offset + t.len()) == Some(t);
        if in_link
            || !verbatim
            || !(t.contains('.') && (t.contains("www") || t.contains("://") || t.contains('@')))
        {
            self.push_text(t);
            return;
        }
        let links = autolink::find(t);
        let mut at = 0;
        for (s, e, href) in links {
            if s > at {
                self.push_text(&t[at..s]);
            }
            let mut mark = Mark::new(MarkType::Link);
            mark.attrs = Some(
                [("href".to_string(), Value::from(href))]
                    .into_iter()
                    .collect(),
            );
            self.push_mark(mark, Closer::Link, line);
            self.push_text(&t[s..e]);
            self.pop_mark(Closer::Link, line);
            at = e;
        }
        if at < t.len() {
            self.push_text(&t[at..]);
        }
    }

    fn push_text(&mut self, t: &str) {
        if t.is_empty() {
            return;
        }
        let Some(inl) = self.inl.as_mut() else { return };
        if inl.marks.is_none() {
            inl.marks = Some(marks_of(&inl.active));
        }
        let marks = inl.marks.as_ref().unwrap_or_else(|| unreachable!());
        if !inl.split {
            if let Some(last) = inl.nodes.last_mut() {
                if last.kind == NodeType::Text && last.mark_list() == marks.as_slice() {
                    if let Some(text) = &mut last.text {
                        text.push_str(t);
                        return;
                    }
                }
            }
        }
        if let Some(last) = inl.nodes.last_mut() {
            if inl.split
                && last.kind == NodeType::Text
                && last.mark_list() == marks.as_slice()
                && !inl.active.is_empty()
            {
                // Same marks across a mark boundary that changed nothing (e.g. `**a****b**`): one text.
            }
        }
        let mut node = Node::text(t);
        if !marks.is_empty() {
            node.marks = Some(marks.clone());
        }
        inl.nodes.push(node);
        inl.split = false;
    }

    fn inline_html(&mut self, h: &str, line: usize) {
        let inl = self.inl_mut(line);
        if let Some(c) = &mut inl.capture {
            c.text.push_str(h);
            return;
        }
        let h_trim = h.trim();
        if let Some(inner) = h_trim
            .strip_prefix("<!--")
            .and_then(|s| s.strip_suffix("-->"))
        {
            match marker::parse_comment(inner) {
                Ok(Some(Marker::Empty)) => {
                    self.inl_mut(line).split = true;
                    return;
                }
                Ok(Some(Marker::Open { kind, diff, .. }))
                | Ok(Some(Marker::Leaf { kind, diff })) => {
                    self.inline_marker(kind, diff, h.ends_with("/-->"), line);
                    return;
                }
                Ok(Some(Marker::Close { .. })) | Ok(None) => {}
                Err(e) => {
                    self.warn(line, format!("{e}; the marker is ignored"));
                    return;
                }
            }
        }
        if let Some(toks) = html::tokens(h_trim) {
            if let [tok] = toks.as_slice() {
                if self.inline_tag(tok, line) {
                    return;
                }
            }
        }
        // HTML we do not know is kept as the text the model wrote.
        self.push_text(h);
        if let Some(i) = self.inl.as_mut() {
            i.split = false;
        }
    }

    fn inline_marker(&mut self, kind: NodeType, diff: Map<String, Value>, leaf: bool, line: usize) {
        if leaf {
            let mut node = Node::new(kind);
            self.apply(&mut node, &diff, line);
            if is_block(&node.kind) {
                // A block's marker inside text (its line joined a paragraph once a marker or a blank
                // line above it was lost): the paragraph ends before it and the block stands after it.
                let in_paragraph = self
                    .inl
                    .as_ref()
                    .is_none_or(|i| matches!(i.kind, Ik::Paragraph | Ik::Implicit));
                if !in_paragraph {
                    let name = node.kind.name().to_string();
                    self.warn(
                        line,
                        format!("a `{name}` block marker inside a heading or table cell; ignored"),
                    );
                    return;
                }
                if let Some(inl) = self.inl.take() {
                    let l = inl.line;
                    if !inl.nodes.is_empty() || inl.capture.is_some() {
                        if let Some(p) = self.finish_paragraph(inl) {
                            self.push_block(p, l);
                        }
                    }
                }
                self.push_block(node, line);
                self.inl = Some(new_inl(Ik::Implicit, line));
                return;
            }
            let inl = self.inl_mut(line);
            inl.nodes.push(node);
            inl.split = true;
            return;
        }
        match kind {
            NodeType::TableCell | NodeType::TableHeader | NodeType::TableRow => {
                if kind == NodeType::TableRow {
                    if let Some(Frame {
                        kind: Fk::Row { d },
                        ..
                    }) = self.frames.last_mut()
                    {
                        *d = Some(diff);
                        return;
                    }
                } else if let Some(inl) = self.inl.as_mut() {
                    if inl.kind == Ik::Cell {
                        inl.cell_d = Some((kind, diff));
                        return;
                    }
                }
            }
            NodeType::TaskItem | NodeType::DecisionItem => {
                if let Some(Frame {
                    kind: Fk::Item { inline_d, .. },
                    ..
                }) = self
                    .frames
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f.kind, Fk::Item { .. }))
                {
                    *inline_d = Some((kind, diff));
                    return;
                }
            }
            NodeType::Text => {
                // A modifier of the text right before it (`marks: []`); what follows is a new text.
                let inl = self.inl_mut(line);
                if let Some(last) = inl.nodes.last_mut().filter(|n| n.kind == NodeType::Text) {
                    let mut node = std::mem::replace(last, Node::new(NodeType::Text));
                    self.apply(&mut node, &diff, line);
                    if let Some(inl) = self.inl.as_mut() {
                        if let Some(last) = inl.nodes.last_mut() {
                            *last = node;
                        }
                        inl.split = true;
                        inl.marks = None;
                    }
                    return;
                }
            }
            NodeType::InlineCard => {
                let inl = self.inl_mut(line);
                if let Some(last) = inl.nodes.last_mut() {
                    if last.kind == NodeType::InlineCard {
                        let mut node = std::mem::replace(last, Node::new(NodeType::InlineCard));
                        self.apply(&mut node, &diff, line);
                        if let Some(inl) = self.inl.as_mut() {
                            if let Some(last) = inl.nodes.last_mut() {
                                *last = node;
                            }
                        }
                        return;
                    }
                }
            }
            _ => {}
        }
        let name = kind.name().to_string();
        self.warn(
            line,
            format!("a `{name}` marker where no such node is; ignored"),
        );
    }

    fn inline_tag(&mut self, tok: &Tok, line: usize) -> bool {
        match tok {
            Tok::Open {
                name,
                attrs,
                self_closing,
            } => {
                let mark = match name.as_str() {
                    "br" => {
                        let inl = self.inl_mut(line);
                        inl.nodes.push(Node::new(NodeType::HardBreak));
                        inl.split = true;
                        return true;
                    }
                    _ if *self_closing => return false,
                    "strong" | "b" => (Mark::new(MarkType::Strong), "strong"),
                    "em" | "i" => (Mark::new(MarkType::Em), "em"),
                    "del" | "s" | "strike" => (Mark::new(MarkType::Strike), "del"),
                    "u" => (Mark::new(MarkType::Underline), "u"),
                    "code" => (Mark::new(MarkType::Code), "code"),
                    "sub" | "sup" => {
                        let mut m = Mark::new(MarkType::Subsup);
                        m.attrs = Some(
                            [("type".to_string(), Value::from(name.as_str()))]
                                .into_iter()
                                .collect(),
                        );
                        (m, if name == "sub" { "sub" } else { "sup" })
                    }
                    "span" => {
                        let get =
                            |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
                        if let Some(json) = get("data-mark") {
                            let probe = serde_json::json!({"type": "text", "text": "x", "marks": [serde_json::from_str::<Value>(json).unwrap_or(Value::Null)]});
                            match crate::adf::from_value(probe) {
                                Ok(n) if n.mark_list().len() == 1 => {
                                    (n.mark_list()[0].clone(), "span")
                                }
                                _ => {
                                    self.warn(line, "a `<span data-mark>` whose JSON is not a mark; its text is kept without it");
                                    (Mark::new(MarkType::Other("\u{0}none".into())), "span")
                                }
                            }
                        } else if let Some(color) = get("style")
                            .and_then(|s| s.trim().strip_prefix("color:"))
                            .map(|c| c.trim().trim_end_matches(';'))
                        {
                            let mut m = Mark::new(MarkType::TextColor);
                            m.attrs = Some(
                                [("color".to_string(), Value::from(color))]
                                    .into_iter()
                                    .collect(),
                            );
                            (m, "span")
                        } else {
                            (Mark::new(MarkType::Other("\u{0}none".into())), "span")
                        }
                    }
                    _ => return false,
                };
                self.push_mark(mark.0, Closer::Html(mark.1), line);
                true
            }
            Tok::Close { name } => {
                let key = match name.as_str() {
                    "strong" | "b" => "strong",
                    "em" | "i" => "em",
                    "del" | "s" | "strike" => "del",
                    "u" => "u",
                    "code" => "code",
                    "sub" => "sub",
                    "sup" => "sup",
                    "span" => "span",
                    _ => return false,
                };
                self.pop_mark(Closer::Html(key), line)
            }
            _ => false,
        }
    }

    fn end_cell(&mut self, inl: Inl) {
        let cell_d = inl.cell_d.clone();
        let line = inl.line;
        let header = matches!(
            self.frames.last(),
            Some(Frame {
                kind: Fk::Row { .. },
                ..
            })
        ) && self.frames.len() >= 2
            && self.frames[self.frames.len() - 2].children.is_empty()
            && self.frames.last().is_some_and(|_| self.in_head());
        let para = self
            .finish_paragraph(inl)
            .unwrap_or_else(|| Node::new(NodeType::Paragraph));
        let mut cell = Node::with_content(
            if header {
                NodeType::TableHeader
            } else {
                NodeType::TableCell
            },
            vec![para],
        );
        cell.attrs = Some(marker::inferred_attrs(&forms::CELL));
        if let Some((kind, d)) = cell_d {
            cell.kind = kind;
            self.apply(&mut cell, &d, line);
        }
        self.frame().children.push(cell);
    }

    fn in_head(&self) -> bool {
        // The head row is the table's first row (pulldown's TableHead).
        matches!(self.frames.iter().rev().nth(1), Some(Frame { kind: Fk::Table, children, .. }) if children.is_empty())
    }

    /// The paragraph (or heading, cell content) an inline run makes, or `None` for nothing.
    fn finish_paragraph(&mut self, mut inl: Inl) -> Option<Node> {
        if let Some(c) = inl.capture.take() {
            let node = self.atom(c);
            inl.nodes.push(node);
        }
        let pending = self
            .frames
            .last()
            .and_then(|f| f.pending.as_ref())
            .map(|p| p.kind.clone());
        let mut nodes = std::mem::take(&mut inl.nodes);
        // Text grown piece by piece (pulldown-cmark splits it at escapes and entities) gives back its slack.
        for text in nodes.iter_mut().filter_map(|n| n.text.as_mut()) {
            text.shrink_to_fit();
        }
        let line = inl.line;
        if let Ik::Heading(level) = inl.kind {
            self.finish_images(&mut nodes, line);
            let mut h = Node::new(NodeType::Heading);
            h.set_attr("level", level as u64);
            if !nodes.is_empty() {
                h.content = Some(shrunk(nodes));
            }
            return Some(h);
        }
        if inl.kind == Ik::Paragraph && nodes.is_empty() && inl.skip_line {
            return None;
        }
        if inl.kind == Ik::Implicit && nodes.is_empty() {
            return None;
        }
        let images = nodes.iter().any(is_image);
        if images && inl.kind != Ik::Cell {
            if pending == Some(NodeType::MediaGroup)
                && nodes.iter().all(|n| {
                    is_image(n)
                        || n.kind == NodeType::Text
                            && n.marks.is_none()
                            && n.text.as_deref().is_some_and(|t| t.trim().is_empty())
                })
            {
                let media: Vec<Node> = nodes
                    .iter()
                    .filter(|n| is_image(n))
                    .map(|n| self.media(n, false))
                    .collect();
                return Some(Node::with_content(NodeType::MediaGroup, media));
            }
            if pending != Some(NodeType::Paragraph) && nodes.len() == 1 {
                let media = self.media(&nodes[0], false);
                let mut ms = Node::with_content(NodeType::MediaSingle, vec![media]);
                ms.set_attr("layout", "center");
                return Some(ms);
            }
        }
        if images {
            self.finish_images(&mut nodes, line);
        }
        if matches!(
            pending,
            Some(NodeType::BlockCard) | Some(NodeType::EmbedCard)
        ) {
            if let [card] = nodes.as_slice() {
                if card.kind == NodeType::InlineCard
                    && card.attrs.as_ref().is_some_and(|a| a.len() == 1)
                {
                    let mut n = Node::new(pending.clone().unwrap_or(NodeType::BlockCard));
                    n.attrs = card.attrs.clone();
                    return Some(n);
                }
            }
        }
        let mut p = Node::new(NodeType::Paragraph);
        if !nodes.is_empty() {
            p.content = Some(shrunk(nodes));
        }
        Some(p)
    }

    fn finish_images(&mut self, nodes: &mut [Node], _line: usize) {
        for n in nodes.iter_mut() {
            if is_image(n) {
                *n = self.media(n, true);
            }
        }
    }

    /// The media node an image makes: `media` (in mediaSingle/mediaGroup) or `mediaInline`; an
    /// external image inside text becomes its alt text linked to its URL.
    fn media(&mut self, img: &Node, inline: bool) -> Node {
        let dest = img.attr_str("dest").unwrap_or_default().to_string();
        let alt = img.attr_str("alt").unwrap_or_default().to_string();
        let d = img.extra.as_deref().map(Attrs::to_map);
        let id = match dest.get(..6) {
            Some(s) if s.eq_ignore_ascii_case("media:") => Some(dest[6..].to_string()),
            _ => None,
        };
        let mut n = match (&id, inline) {
            (Some(id), true) => {
                let mut n = Node::new(NodeType::MediaInline);
                n.set_attr("id", id.as_str());
                n
            }
            (Some(id), false) => {
                let mut n = Node::new(NodeType::Media);
                n.set_attr("type", "file");
                n.set_attr("id", id.as_str());
                n.set_attr("collection", "");
                n
            }
            (None, false) => {
                let mut n = Node::new(NodeType::Media);
                n.set_attr("type", "external");
                n.set_attr("url", dest.as_str());
                n
            }
            (None, true) => {
                let mut t = Node::text(if alt.is_empty() {
                    dest.clone()
                } else {
                    alt.clone()
                });
                let mut m = Mark::new(MarkType::Link);
                m.attrs = Some(
                    [("href".to_string(), Value::from(dest))]
                        .into_iter()
                        .collect(),
                );
                t.marks = Some(vec![m]);
                if t.text.as_deref() == Some("") {
                    t.text = Some("image".into());
                }
                return t;
            }
        };
        if !alt.is_empty() {
            n.set_attr("alt", alt);
        }
        if !inline {
            n.marks = img.marks.clone();
        }
        if let Some(d) = d {
            self.apply(&mut n, &d, 0);
        }
        n
    }

    fn end_code(&mut self) {
        let Some((lang, mut text, line)) = self.code.take() else {
            return;
        };
        if text.ends_with('\n') {
            text.pop();
        }
        let mut node = Node::new(NodeType::CodeBlock);
        if let Some(lang) = lang {
            node.set_attr("language", lang);
        }
        if !text.is_empty() {
            node.content = Some(vec![Node::text(text)]);
        }
        self.push_block(node, line);
    }

    fn end_html(&mut self) {
        let Some((text, line)) = self.html.take() else {
            return;
        };
        let trimmed = text.trim_end_matches('\n');
        if let Some(toks) = html::tokens(trimmed) {
            if toks.iter().all(known_block_tok) {
                let mut summary: Option<String> = None;
                for tok in toks {
                    if let Some(s) = &mut summary {
                        match tok {
                            Tok::Close { name } if name == "summary" => {
                                let title = html::decode(s);
                                summary = None;
                                if let Some(open) = self.frame().opens.last_mut() {
                                    if matches!(
                                        open.kind,
                                        NodeType::Expand | NodeType::NestedExpand
                                    ) && open.html
                                    {
                                        open.attrs
                                            .get_or_insert_with(Attrs::new)
                                            .insert("title".into(), Value::from(title));
                                    }
                                }
                            }
                            Tok::Text(t) => s.push_str(t),
                            _ => {}
                        }
                        continue;
                    }
                    match tok {
                        Tok::Comment(inner) => match marker::parse_comment(inner) {
                            Ok(Some(m)) => self.block_marker(m, line),
                            Ok(None) => {}
                            Err(e) => self.warn(line, format!("{e}; the marker is ignored")),
                        },
                        Tok::Open { name, attrs, .. } => match name.as_str() {
                            "summary" => summary = Some(String::new()),
                            "details" => {
                                let nested = self.frame().opens.last().is_some_and(|o| {
                                    matches!(
                                        o.kind,
                                        NodeType::TableCell
                                            | NodeType::TableHeader
                                            | NodeType::Expand
                                            | NodeType::NestedExpand
                                    )
                                });
                                let kind = if nested {
                                    NodeType::NestedExpand
                                } else {
                                    NodeType::Expand
                                };
                                self.html_open(
                                    kind,
                                    None,
                                    line,
                                    &[NodeType::Expand, NodeType::NestedExpand],
                                );
                            }
                            "table" => {
                                let a = marker::inferred_attrs(&forms::TABLE);
                                self.html_open(NodeType::Table, Some(a), line, &[NodeType::Table])
                            }
                            "tr" => self.html_open(NodeType::TableRow, None, line, &[]),
                            "th" | "td" => {
                                let mut a = Attrs::new();
                                for (k, v) in attrs {
                                    if k == "colspan" || k == "rowspan" {
                                        if let Ok(n) = v.trim().parse::<u64>() {
                                            a.insert(k, Value::from(n));
                                        }
                                    }
                                }
                                let kind = if name == "th" {
                                    NodeType::TableHeader
                                } else {
                                    NodeType::TableCell
                                };
                                // Every cell has attrs (`{}` at least, see forms::CELL).
                                self.html_open(kind, Some(a), line, &[]);
                            }
                            _ => {}
                        },
                        Tok::Close { name } => {
                            let kind = match name.as_str() {
                                "details" => None,
                                "table" => Some(NodeType::Table),
                                "tr" => Some(NodeType::TableRow),
                                "th" => Some(NodeType::TableHeader),
                                "td" => Some(NodeType::TableCell),
                                _ => continue,
                            };
                            self.html_close(kind, line);
                        }
                        Tok::Text(_) => {}
                    }
                }
                return;
            }
        }
        // HTML we do not recognise is kept as text, line by line.
        let mut nodes = Vec::new();
        for (i, l) in trimmed.split('\n').enumerate() {
            if i > 0 {
                nodes.push(Node::new(NodeType::HardBreak));
            }
            if !l.is_empty() {
                nodes.push(Node::text(l));
            }
        }
        while nodes.last().is_some_and(|n| n.kind == NodeType::HardBreak) {
            nodes.pop();
        }
        if !nodes.is_empty() {
            self.push_block(Node::with_content(NodeType::Paragraph, nodes), line);
        }
    }

    fn html_open(
        &mut self,
        kind: NodeType,
        attrs: Option<Attrs>,
        line: usize,
        takes_pending: &[NodeType],
    ) {
        self.end_section_before(&kind, line);
        let f = self.frame();
        let mut diff = None;
        let mut kind = kind;
        if let Some(p) = f.pending.take() {
            if takes_pending.contains(&p.kind) {
                kind = p.kind;
                diff = Some(p.diff);
            } else {
                let start = f.children.len();
                f.opens.push(Open {
                    kind: p.kind,
                    attrs: None,
                    diff: Some(p.diff),
                    start,
                    line: p.line,
                    html: false,
                    count: p.count,
                    recovered: Vec::new(),
                });
            }
        }
        let start = f.children.len();
        f.opens.push(Open {
            kind,
            attrs,
            diff,
            start,
            line,
            html: true,
            count: None,
            recovered: Vec::new(),
        });
    }

    fn html_close(&mut self, kind: Option<NodeType>, line: usize) {
        self.settle_pending();
        let f = self.frame();
        let found = f.opens.iter().rposition(|o| {
            o.html
                && match &kind {
                    Some(k) => o.kind == *k,
                    None => matches!(o.kind, NodeType::Expand | NodeType::NestedExpand),
                }
        });
        let Some(i) = found else {
            self.warn(line, "a closing HTML tag with no opening one; ignored");
            return;
        };
        self.close_open(i, line);
    }

    /// Closes `opens[i]` of the current frame: its children become its content.
    fn close_open(&mut self, i: usize, line: usize) {
        // Containers opened inside and never closed end here too (as HTML closes implied end tags):
        // each keeps its wrapper and attrs, so a lost close marker costs only where its content ends.
        while self.frame().opens.len() > i + 1 {
            let inner = self.frame().opens.len() - 1;
            let (name, opened) = {
                let o = &self.frame().opens[inner];
                (o.kind.name().to_string(), o.line)
            };
            self.warn(
                opened,
                format!("`{name}` is never closed; it ends where its container ends (line {line})"),
            );
            self.close_unclosed(inner, line);
        }
        let f = self.frame();
        let Some(open) = f.opens.pop() else { return };
        let mut content: Vec<Node> = f
            .children
            .drain(open.start.min(f.children.len())..)
            .collect();
        if open.kind == NodeType::LayoutSection && !open.html {
            let recovered: Vec<usize> = open
                .recovered
                .iter()
                .filter_map(|i| i.checked_sub(open.start))
                .collect();
            content = self.section_columns(content, recovered, open.line);
        }
        let mut node = Node::new(open.kind.clone());
        node.attrs = open.attrs;
        if node.kind == NodeType::NestedExpand && node.attrs.is_none() {
            // ADF requires a nested expand's attrs (an expand's are optional).
            node.attrs = Some(Attrs::new());
        }
        // Containers ADF requires to hold a block: empty, they hold an empty paragraph (the writer
        // says `content: []` for one that really is empty).
        let empty_default = matches!(
            open.kind,
            NodeType::TableCell
                | NodeType::TableHeader
                | NodeType::Expand
                | NodeType::NestedExpand
                | NodeType::LayoutColumn
                | NodeType::BodiedExtension
                | NodeType::BodiedSyncBlock
        ) && content.is_empty();
        node.content = Some(shrunk(if empty_default {
            vec![Node::new(NodeType::Paragraph)]
        } else {
            content
        }));
        if let Some(d) = open.diff {
            self.apply(&mut node, &d, open.line);
        }
        let _ = line;
        self.frame().children.push(node);
    }

    /// A layoutSection opening directly in another one means the other's close marker was lost: it ends
    /// after its last column. (A block of another kind standing in a section is kept there until the
    /// section ends: it is a column's whose open marker was lost, or, when the section's close is lost,
    /// it leaves the section then.)
    fn end_section_before(&mut self, kind: &NodeType, line: usize) {
        if *kind != NodeType::LayoutSection {
            return;
        }
        let f = self.frame();
        if f.pending
            .as_ref()
            .is_some_and(|p| p.kind == NodeType::LayoutColumn)
        {
            return;
        }
        if f.opens
            .last()
            .is_some_and(|o| !o.html && o.kind == NodeType::LayoutSection)
        {
            let i = f.opens.len() - 1;
            self.warn(line, "a `layoutSection` opens directly in a `layoutSection`: the first one ends after its last column (its `<!--/adf:layoutSection-->` is missing)");
            self.close_unclosed(i, line);
        }
    }

    /// Ends `opens[i]`, whose close marker was lost, where it ended: after as many blocks as its open
    /// marker counts, or (a section without a count) after its last column. The blocks after that stand
    /// after it, where they were before it swallowed them; without either it ends here.
    fn close_unclosed(&mut self, i: usize, line: usize) {
        let f = self.frame();
        let open = &f.opens[i];
        let start = open.start.min(f.children.len());
        let end = match open.count {
            Some(n) if !open.html => start.saturating_add(n).min(f.children.len()),
            _ if !open.html && open.kind == NodeType::LayoutSection => f.children[start..]
                .iter()
                .rposition(|c| c.kind == NodeType::LayoutColumn)
                .map_or(start, |j| start + j + 1),
            _ => f.children.len(),
        };
        let spilled = f.children.split_off(end);
        self.close_open(i, line);
        self.frame().children.extend(spilled);
    }

    /// At the end of a frame: its containers that lost their close marker but know where they end.
    fn close_counted(&mut self, line: usize) {
        while let Some(i) = self
            .frame()
            .opens
            .iter()
            .rposition(|o| !o.html && (o.count.is_some() || o.kind == NodeType::LayoutSection))
        {
            let (name, opened) = {
                let o = &self.frame().opens[i];
                (o.kind.name().to_string(), o.line)
            };
            self.warn(
                opened,
                format!("`{name}` is never closed; it ends after the blocks its marker counts"),
            );
            self.close_unclosed(i, line);
        }
    }

    /// A section's content as columns: a run of other blocks in it is a column whose open marker was
    /// lost (wrapped in one again), and a column without a width (its attrs lost) gets an equal share of
    /// what the others leave.
    fn section_columns(
        &mut self,
        content: Vec<Node>,
        recovered: Vec<usize>,
        line: usize,
    ) -> Vec<Node> {
        if recovered.is_empty() && content.iter().all(|c| c.kind == NodeType::LayoutColumn) {
            return content;
        }
        let mut out: Vec<Node> = Vec::with_capacity(content.len());
        let mut wrapped = Vec::new();
        let mut run: Vec<Node> = Vec::new();
        for (i, c) in content.into_iter().enumerate() {
            if c.kind == NodeType::LayoutColumn {
                if recovered.contains(&i) && c.attrs.is_none() {
                    if !run.is_empty() {
                        wrapped.push(out.len());
                        out.push(Node::with_content(
                            NodeType::LayoutColumn,
                            std::mem::take(&mut run),
                        ));
                    }
                    wrapped.push(out.len());
                    out.push(c);
                    continue;
                }
                if !run.is_empty() {
                    wrapped.push(out.len());
                    out.push(Node::with_content(
                        NodeType::LayoutColumn,
                        std::mem::take(&mut run),
                    ));
                }
                out.push(c);
            } else {
                run.push(c);
            }
        }
        if !run.is_empty() {
            wrapped.push(out.len());
            out.push(Node::with_content(NodeType::LayoutColumn, run));
        }
        if wrapped.len() > recovered.len() {
            self.warn(line, "blocks stand in this `layoutSection` outside any column (a column's open marker lost): they are wrapped in a column again, its attrs lost");
        }
        let width = column_share(&out, wrapped.len(), out.len());
        for i in wrapped {
            out[i].set_attr("width", width.clone());
        }
        out
    }

    /// A close marker whose open marker was lost (deleted, or its JSON broken): the blocks it counts are
    /// wrapped again in a node of its type, which loses only its attrs. Types whose attrs cannot be left
    /// empty (a bodied extension's key) lose their wrapper instead.
    fn orphan_close(&mut self, kind: NodeType, count: Option<usize>, line: usize) {
        let name = kind.name().to_string();
        let recoverable = matches!(
            kind,
            NodeType::LayoutSection
                | NodeType::LayoutColumn
                | NodeType::BodiedSyncBlock
                | NodeType::SyncBlock
                | NodeType::Other(_)
        );
        let f = self.frame();
        let floor = f.opens.last().map_or(0, |o| o.start).min(f.children.len());
        let n = count.unwrap_or(0).min(f.children.len() - floor);
        if !recoverable || n == 0 {
            self.warn(
                line,
                format!("`<!--/adf:{name}-->` closes nothing; ignored"),
            );
            return;
        }
        let at = f.children.len() - n;
        let content: Vec<Node> = f.children.drain(at..).collect();
        let content = if kind == NodeType::LayoutSection {
            self.section_columns(content, Vec::new(), line)
        } else {
            content
        };
        let mut node = Node::with_content(kind.clone(), content);
        if kind == NodeType::LayoutColumn {
            // Its width is its share of what the other columns of its section leave, known when the
            // section closes (alone, all of it).
            let f = self.frame();
            match f
                .opens
                .last_mut()
                .filter(|o| !o.html && o.kind == NodeType::LayoutSection)
            {
                Some(section) => section.recovered.push(at),
                None => node.set_attr("width", 100),
            }
        }
        if matches!(kind, NodeType::BodiedSyncBlock | NodeType::SyncBlock) {
            node.set_attr("resourceId", "");
            node.set_attr("localId", "");
        }
        self.warn(line, format!("`<!--/adf:{name}-->` has no open marker: its {n} block(s) are wrapped again, its attrs lost"));
        self.frame().children.push(node);
    }

    /// A pending modifier with no block after it yet becomes an open container (its close may follow).
    fn settle_pending(&mut self) {
        let f = self.frame();
        if let Some(p) = f.pending.take() {
            let start = f.children.len();
            f.opens.push(Open {
                kind: p.kind,
                attrs: None,
                diff: Some(p.diff),
                start,
                line: p.line,
                html: false,
                count: p.count,
                recovered: Vec::new(),
            });
        }
    }

    fn block_marker(&mut self, m: Marker, line: usize) {
        match m {
            Marker::Empty => {}
            Marker::Leaf { kind, diff } => {
                self.settle_pending();
                self.end_section_before(&kind, line);
                let mut node = Node::new(kind);
                self.apply(&mut node, &diff, line);
                self.frame().children.push(node);
            }
            Marker::Close { kind, count } => {
                self.settle_pending();
                loop {
                    let f = self.frame();
                    let mut matching = f
                        .opens
                        .iter()
                        .enumerate()
                        .rev()
                        .filter(|(_, o)| !o.html && o.kind == kind)
                        .map(|(i, _)| i);
                    let Some(i) = matching.next() else {
                        self.orphan_close(kind, count, line);
                        break;
                    };
                    // A container of the same kind inside another that holds more blocks than its
                    // marker counts lost its own close: it ends at its count, and this close is the outer's.
                    let o = &f.opens[i];
                    let overfull = o.count.is_some_and(|n| f.children.len() > o.start + n);
                    let opened = o.line;
                    if overfull && matching.next().is_some() {
                        let name = kind.name().to_string();
                        self.warn(opened, format!("`{name}` is never closed; it ends after the blocks its marker counts"));
                        self.close_unclosed(i, line);
                        continue;
                    }
                    self.close_open(i, line);
                    break;
                }
            }
            Marker::Open { kind, diff, count } => {
                let f = self.frame();
                // A container's own marker: first in a list item, a table cell or row, or the document.
                let own = match &f.kind {
                    Fk::Doc => kind == NodeType::Doc,
                    Fk::Item { .. } => kind == NodeType::ListItem,
                    _ => false,
                };
                if own && f.children.is_empty() && f.self_d.is_none() && f.pending.is_none() {
                    f.self_d = Some(diff);
                    return;
                }
                // An item with no inline content: its line is only the diff, which Markdown reads as
                // an HTML block (`- <!--adf:decisionItem {...}-->`).
                if let Fk::Item { inline_d, .. } = &mut f.kind {
                    if matches!(kind, NodeType::TaskItem | NodeType::DecisionItem)
                        && inline_d.is_none()
                        && f.children.is_empty()
                        && f.pending.is_none()
                        && f.opens.is_empty()
                    {
                        *inline_d = Some((kind, diff));
                        return;
                    }
                }
                if let Some(o) = f.opens.last_mut() {
                    if o.html
                        && o.kind == kind
                        && o.diff.is_none()
                        && f.children.len() == o.start
                        && matches!(
                            kind,
                            NodeType::TableCell | NodeType::TableHeader | NodeType::TableRow
                        )
                    {
                        o.diff = Some(diff);
                        return;
                    }
                }
                self.settle_pending();
                self.end_section_before(&kind, line);
                if kind == NodeType::LayoutColumn {
                    // A column never holds a column: the one still open lost its close marker.
                    let f = self.frame();
                    if f.opens
                        .last()
                        .is_some_and(|o| !o.html && o.kind == NodeType::LayoutColumn)
                    {
                        let i = f.opens.len() - 1;
                        self.warn(line, "a `layoutColumn` opens inside a `layoutColumn`: the first one is closed here (its `<!--/adf:layoutColumn-->` is missing)");
                        self.close_open(i, line);
                    }
                }
                self.frame().pending = Some(Pending {
                    kind,
                    diff,
                    line,
                    count,
                });
            }
        }
    }

    /// Adds a finished block to the current frame, applying a modifier that precedes it.
    fn push_block(&mut self, mut node: Node, line: usize) {
        let kind = match &self.frame().pending {
            Some(p) => p.kind.clone(),
            None => node.kind.clone(),
        };
        self.end_section_before(&kind, line);
        // The frame is the parent only when no container (an HTML table cell, a marker pair) is open in it,
        // nor opens now (a pending marker of another type than this block's).
        let direct = self.frame().opens.is_empty()
            && self.frame().pending.as_ref().is_none_or(|p| {
                p.kind == node.kind
                    || (p.kind == NodeType::DecisionList && node.kind == NodeType::BulletList)
            });
        let parent_quote = direct && matches!(self.frame().kind, Fk::Quote { panel: None });
        let parent_item = direct && matches!(self.frame().kind, Fk::Item { .. });
        let f = self.frame();
        if let Some(p) = f.pending.take() {
            let same = p.kind == node.kind
                || (p.kind == NodeType::DecisionList && node.kind == NodeType::BulletList)
                || (p.kind == NodeType::Paragraph && node.kind == NodeType::Paragraph);
            if same {
                if p.kind == NodeType::DecisionList {
                    node = self.decisions(node, p.line);
                }
                self.apply(&mut node, &p.diff, p.line);
                self.frame().children.push(node);
                return;
            }
            let start = f.children.len();
            f.opens.push(Open {
                kind: p.kind,
                attrs: None,
                diff: Some(p.diff),
                start,
                line: p.line,
                html: false,
                count: p.count,
                recovered: Vec::new(),
            });
        }
        let _ = line;
        if node.kind == NodeType::BulletList {
            strip_stash(&mut node);
        }
        if node.kind == NodeType::Heading && (parent_quote || parent_item) {
            // ADF allows no headings in list items or block quotes: a bold paragraph says the same.
            node = heading_to_paragraph(node);
        }
        self.frame().children.push(node);
    }

    fn decisions(&mut self, list: Node, _line: usize) -> Node {
        let mut out = Node::new(NodeType::DecisionList);
        out.set_attr("localId", "");
        let mut items = Vec::new();
        let mut l = list;
        for mut item in l.content.take().unwrap_or_default() {
            let stash = item.extra.take();
            let mut d = Node::new(NodeType::DecisionItem);
            d.set_attr("localId", "");
            d.set_attr("state", "DECIDED");
            d.content = first_inline(&mut item);
            if let Some(stash) = stash {
                if let Some(Value::Object(diff)) = stash.get("\u{0}d") {
                    let diff = diff.clone();
                    self.apply(&mut d, &diff, 0);
                }
            }
            items.push(d);
        }
        out.content = Some(shrunk(items));
        out
    }

    fn end_container(&mut self, line: usize) {
        if self.frames.len() > 1 {
            self.close_counted(line);
        }
        let Some(f) = self.frames.pop() else { return };
        let fline = f.line;
        match f.kind {
            Fk::Quote { panel } => {
                let mut children = self.finish_children(Frame { kind: Fk::Doc, ..f });
                if children.is_empty() {
                    // ADF requires a block in a quote or panel (the writer marks a really empty one).
                    children.push(Node::new(NodeType::Paragraph));
                }
                let mut node = Node::with_content(
                    if panel.is_some() {
                        NodeType::Panel
                    } else {
                        NodeType::Blockquote
                    },
                    children,
                );
                if let Some(t) = panel {
                    node.set_attr("panelType", t);
                }
                self.push_block(node, fline);
            }
            Fk::Item { task, inline_d } => {
                let self_d = f.self_d.clone();
                let mut children = self.finish_children(Frame {
                    kind: Fk::Doc,
                    self_d: None,
                    ..f
                });
                if children.is_empty() {
                    children.push(Node::new(NodeType::Paragraph));
                }
                let mut item = Node::with_content(NodeType::ListItem, children);
                if let Some(d) = self_d {
                    self.apply(&mut item, &d, fline);
                }
                let inline_diff = match inline_d {
                    Some((NodeType::DecisionItem, d)) if task.is_none() => {
                        // Kept until the list is known to be a decision list.
                        let mut stash = Attrs::new();
                        stash.insert("\u{0}d".into(), Value::Object(d));
                        item.extra = Some(Box::new(stash));
                        None
                    }
                    Some((_, d)) => Some(d),
                    None => None,
                };
                if let Some(Frame {
                    kind: Fk::List { tasks, .. },
                    children,
                    ..
                }) = self.frames.last_mut()
                {
                    tasks.push((task, inline_diff));
                    children.push(item);
                } else {
                    let c = item.content.take().unwrap_or_default();
                    self.frame().children.extend(c);
                }
            }
            Fk::List { start, tasks } => {
                let children = self.finish_children(Frame { kind: Fk::Doc, ..f });
                let all_tasks = !tasks.is_empty()
                    && tasks.iter().all(|(t, _)| t.is_some())
                    && tasks.len() == children.len();
                let node = if all_tasks {
                    self.task_list(children, tasks)
                } else {
                    let mut items = children;
                    for (item, (task, _)) in items.iter_mut().zip(tasks.iter()) {
                        if let Some(done) = task {
                            prefix_text(item, if *done { "[x] " } else { "[ ] " });
                        }
                    }
                    match start {
                        Some(n) => {
                            let mut l = Node::with_content(NodeType::OrderedList, items);
                            l.set_attr("order", n);
                            l
                        }
                        None => Node::with_content(NodeType::BulletList, items),
                    }
                };
                self.push_block(node, fline);
            }
            _ => {
                let _ = line;
            }
        }
    }

    fn task_list(&mut self, items: Vec<Node>, tasks: Tasks) -> Node {
        let mut out = Vec::new();
        for (mut item, (task, d)) in items.into_iter().zip(tasks) {
            let mut t = Node::new(NodeType::TaskItem);
            t.set_attr("localId", "");
            t.set_attr("state", if task == Some(true) { "DONE" } else { "TODO" });
            let mut rest = item.content.take().unwrap_or_default();
            let mut inline: Vec<Node> = Vec::new();
            let mut hoisted = Vec::new();
            let mut first = true;
            for b in rest.drain(..) {
                if b.kind == NodeType::Paragraph && b.attrs.is_none() && b.marks.is_none() {
                    if !first {
                        inline.push(Node::new(NodeType::HardBreak));
                    }
                    first = false;
                    let mut b = b;
                    inline.extend(b.content.take().unwrap_or_default());
                } else {
                    hoisted.push(b);
                }
            }
            if !inline.is_empty() {
                t.content = Some(shrunk(inline));
            }
            if let Some(d) = d {
                self.apply(&mut t, &d, 0);
            }
            out.push(t);
            out.extend(hoisted);
        }
        let mut list = Node::with_content(NodeType::TaskList, out);
        list.set_attr("localId", "");
        list
    }

    /// A frame's children, with warnings for markers left hanging.
    fn finish_children(&mut self, mut f: Frame) -> Vec<Node> {
        if let Some(p) = f.pending.take() {
            let name = p.kind.name().to_string();
            self.warn(
                p.line,
                format!("the `{name}` marker has no node after it; ignored"),
            );
        }
        for o in f.opens.drain(..) {
            let name = o.kind.name().to_string();
            self.warn(
                o.line,
                format!("`{name}` is never closed; its content is kept, its wrapper lost"),
            );
        }
        std::mem::take(&mut f.children)
    }
}

/// The width each of `missing` new columns gets beside `columns`: an equal share of what their widths
/// leave of 100, or a `total`th of 100 when they leave nothing.
fn column_share(columns: &[Node], missing: usize, total: usize) -> Value {
    let known: f64 = columns
        .iter()
        .filter_map(|c| c.attr("width").and_then(Value::as_f64))
        .sum();
    let missing = missing.max(1) as f64;
    let left = (100.0 - known) / missing;
    let share = if left >= 1.0 {
        left
    } else {
        100.0 / total.max(1) as f64
    };
    let share = (share * 100.0).floor() / 100.0;
    if share.fract() == 0.0 {
        Value::from(share as u64)
    } else {
        Value::from(share)
    }
}

/// A node that stands only among blocks, never in text or in a container of its own kind (items, rows,
/// cells, media and columns do not count: they are not read from inside text either way).
fn is_block(kind: &NodeType) -> bool {
    matches!(
        kind,
        NodeType::Paragraph
            | NodeType::Heading
            | NodeType::BulletList
            | NodeType::OrderedList
            | NodeType::TaskList
            | NodeType::DecisionList
            | NodeType::CodeBlock
            | NodeType::Blockquote
            | NodeType::Rule
            | NodeType::Table
            | NodeType::Panel
            | NodeType::Expand
            | NodeType::BlockCard
            | NodeType::EmbedCard
            | NodeType::MediaSingle
            | NodeType::MediaGroup
            | NodeType::LayoutSection
            | NodeType::Extension
            | NodeType::BodiedExtension
            | NodeType::SyncBlock
            | NodeType::BodiedSyncBlock
    )
}

fn new_inl(kind: Ik, line: usize) -> Inl {
    Inl {
        kind,
        nodes: Vec::new(),
        active: Vec::new(),
        marks: Some(Vec::new()),
        split: false,
        capture: None,
        skip_line: false,
        link_starts: Vec::new(),
        cell_d: None,
        line,
    }
}

fn is_image(n: &Node) -> bool {
    matches!(&n.kind, NodeType::Other(name) if &**name == IMAGE)
}

fn known_block_tok(t: &Tok) -> bool {
    match t {
        Tok::Comment(inner) => !matches!(marker::parse_comment(inner), Ok(None)),
        Tok::Open { name, .. } | Tok::Close { name } => {
            matches!(
                name.as_str(),
                "details" | "summary" | "table" | "tr" | "th" | "td" | "thead" | "tbody"
            )
        }
        Tok::Text(_) => true,
    }
}

/// The marks a text gets from the open spans: one of each kind (annotations may repeat), in the
/// schema's order; code keeps only links (ADF allows no other mark with code).
fn marks_of(active: &[(Mark, Closer)]) -> Vec<Mark> {
    let mut marks: Vec<Mark> = Vec::with_capacity(active.len());
    for (m, _) in active {
        if matches!(&m.kind, MarkType::Other(n) if &**n == "\u{0}none") {
            continue;
        }
        if singleton(&m.kind) && marks.iter().any(|x| x.kind == m.kind) {
            continue;
        }
        if marks.iter().any(|x| x == m) {
            continue;
        }
        marks.push(m.clone());
    }
    marks.sort_by_key(|m| rank(&m.kind));
    if marks.iter().any(|m| m.kind == MarkType::Code) {
        marks.retain(|m| matches!(m.kind, MarkType::Code | MarkType::Link));
    }
    marks
}

fn panel_type(line: &str) -> Option<&'static str> {
    let word = line.strip_prefix("[!")?.strip_suffix(']')?;
    Some(match word.to_ascii_uppercase().as_str() {
        "INFO" | "IMPORTANT" => "info",
        "NOTE" => "note",
        "TIP" => "tip",
        "WARNING" => "warning",
        "ERROR" | "CAUTION" => "error",
        "SUCCESS" => "success",
        "CUSTOM" => "custom",
        _ => return None,
    })
}

fn heading_to_paragraph(mut h: Node) -> Node {
    let mut p = Node::new(NodeType::Paragraph);
    let mut content = h.content.take().unwrap_or_default();
    for n in &mut content {
        if n.kind == NodeType::Text
            && !n
                .mark_list()
                .iter()
                .any(|m| matches!(m.kind, MarkType::Code | MarkType::Strong))
        {
            let marks = n.marks.get_or_insert_with(Vec::new);
            marks.push(Mark::new(MarkType::Strong));
            marks.sort_by_key(|m| rank(&m.kind));
        }
    }
    if !content.is_empty() {
        p.content = Some(shrunk(content));
    }
    p
}

fn first_inline(item: &mut Node) -> Option<Vec<Node>> {
    let mut content = item.content.take().unwrap_or_default();
    if content.is_empty() {
        return None;
    }
    let mut p = content.remove(0);
    p.content.take()
}

fn strip_stash(list: &mut Node) {
    if let Some(items) = list.content.as_mut() {
        for item in items {
            if item
                .extra
                .as_ref()
                .is_some_and(|e| e.contains_key("\u{0}d"))
            {
                item.extra = None;
            }
        }
    }
}

fn prefix_text(item: &mut Node, prefix: &str) {
    let Some(first) = item.content.as_mut().and_then(|c| c.first_mut()) else {
        return;
    };
    if first.kind != NodeType::Paragraph {
        return;
    }
    let content = first.content.get_or_insert_with(Vec::new);
    match content.first_mut() {
        Some(t) if t.kind == NodeType::Text && t.marks.is_none() => {
            if let Some(text) = &mut t.text {
                text.insert_str(0, prefix);
            }
        }
        _ => content.insert(0, Node::text(prefix.trim_end().to_string() + " ")),
    }
}

/// `v` without its spare capacity: a finished node's children do not grow.
fn shrunk<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}
