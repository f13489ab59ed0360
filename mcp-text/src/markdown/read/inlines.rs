//! Inline content: text with its marks (delimiters and HTML tags), links, inline markers, and the
//! paragraph, heading or cell it makes.

use super::super::autolink;
use super::super::element::{self, SpanTag};
use super::super::forms;
use super::super::html::{self, Tok};
use super::super::marker::{self, Marker};
use super::super::text_form::plain_form;
use super::state::*;
use crate::model::{Mark, MarkType, Node, NodeType};
use serde_json::{Map, Value};

impl R<'_> {
    /// Whether a container may open (false past the nesting cap: its content flattens into this level).
    pub(super) fn cap(&mut self, line: usize) -> bool {
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

    pub(super) fn push_mark(&mut self, mark: Mark, closer: Closer, line: usize) {
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

    pub(super) fn pop_mark(&mut self, closer: Closer, line: usize) -> bool {
        let inl = self.inl_mut(line);
        let Some(i) = inl.active.iter().rposition(|(_, c)| *c == closer) else {
            return false;
        };
        let (mark, _) = inl.active.remove(i);
        inl.marks = None;
        inl.split = true;
        if is_element_open(&mark) {
            // The innermost element's: an inner one would have been found first.
            if let Some(mut inl) = self.inl.take() {
                self.close_element(&mut inl);
                self.inl = Some(inl);
            }
        }
        true
    }

    /// A storage element's open tag (`<span class="…">`, see `element`): the marks open around it are
    /// the element's, and what follows is its content until its close tag (or the run's end). In an
    /// atom's label (whose text alone counts) it is nothing.
    pub(super) fn open_element(&mut self, attributes: &[(String, String)], line: usize) {
        let inl = self.inl_mut(line);
        if inl.capture.is_some() {
            return;
        }
        let mut node = element::element(attributes);
        let marks = marks_of(&inl.active);
        if !marks.is_empty() {
            node.marks = Some(marks);
        }
        let start = inl.nodes.len();
        inl.elements.push(OpenElement { node, start });
        inl.active.push((
            Mark::new(MarkType::Other(ELEMENT_OPEN.into())),
            Closer::Html("span"),
        ));
        inl.marks = None;
        inl.split = true;
    }

    /// Whether inline content is a pipe table cell's (outside an atom's label).
    fn in_cell_text(&self) -> bool {
        self.inl
            .as_ref()
            .is_some_and(|i| i.kind == Ik::Cell && i.capture.is_none())
    }

    /// `<p>` in a pipe table cell: the next of the cell's paragraphs starts here (elements still open end
    /// with the paragraph before, as they would at the cell's end).
    fn cell_paragraph(&mut self) {
        if let Some(mut inl) = self.inl.take() {
            self.close_elements(&mut inl);
            inl.active.retain(|(m, _)| !is_element_open(m));
            inl.marks = None;
            inl.split = true;
            inl.paragraph_starts.push(inl.nodes.len());
            self.inl = Some(inl);
        }
    }

    /// The innermost open element of `inl` takes the nodes read since its open tag as its content.
    pub(super) fn close_element(&mut self, inl: &mut Inl) {
        let Some(open) = inl.elements.pop() else {
            return;
        };
        let mut content = inl.nodes.split_off(open.start.min(inl.nodes.len()));
        self.finish_images(&mut content, inl.line);
        let mut node = open.node;
        node.content = Some(content);
        inl.nodes.push(node);
        inl.marks = None;
        inl.split = true;
    }

    /// Every element still open in `inl` ends here, innermost first.
    fn close_elements(&mut self, inl: &mut Inl) {
        while !inl.elements.is_empty() {
            self.close_element(inl);
        }
    }

    pub(super) fn end_mark(&mut self, closer: Closer, line: usize) {
        if self.inl.as_ref().is_some_and(|i| i.capture.is_some()) {
            return;
        }
        self.pop_mark(closer, line);
    }

    pub(super) fn end_link(&mut self, line: usize) {
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
        // An element closed inside the link may have taken nodes from where it started.
        let start = inl
            .link_starts
            .pop()
            .map_or(inl.nodes.len(), |s| s.min(inl.nodes.len()));
        let has_text = inl.nodes[start..]
            .iter()
            .any(|n| n.kind == NodeType::Text || is_image(n) || element::is_element(n));
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

    pub(super) fn text(&mut self, t: &str, offset: usize, line: usize) {
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

    pub(super) fn push_text(&mut self, t: &str) {
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

    pub(super) fn inline_html(&mut self, h: &str, line: usize) {
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
                // Before a pipe table cell's text, the ids of its paragraph, the cell and (in the first
                // cell) the row: up to three there, two in the others. Before a task's text, the task's.
                Ok(Some(Marker::Id(id))) => {
                    let most = match self.frames.last() {
                        Some(Frame {
                            kind: Fk::Row { .. },
                            children,
                            ..
                        }) if children.is_empty() => 3,
                        _ => 2,
                    };
                    let inl = self.inl_mut(line);
                    let first = inl.nodes.is_empty() && inl.capture.is_none();
                    if inl.kind == Ik::Cell && first && inl.cell_ids.len() < most {
                        inl.cell_ids.push(id);
                        return;
                    }
                    // First in a task's text: the task's own.
                    let para = matches!(inl.kind, Ik::Paragraph | Ik::Implicit);
                    if let Some(Frame {
                        kind:
                            Fk::Item {
                                task: Some(_),
                                inline_d: inline_d @ None,
                            },
                        children,
                        ..
                    }) = self.frames.last_mut()
                    {
                        if para && first && children.is_empty() {
                            *inline_d = Some((NodeType::TaskItem, marker::id_diff(id)));
                            return;
                        }
                    }
                }
                // Anywhere else in a line, `<!--#ID-->` is the text the model wrote.
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

    pub(super) fn inline_marker(
        &mut self,
        kind: NodeType,
        diff: Map<String, Value>,
        leaf: bool,
        line: usize,
    ) {
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
                        kind: Fk::Row { d, .. },
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
            NodeType::TaskItem
            | NodeType::DecisionItem
            | NodeType::BlockTaskItem
            | NodeType::TaskList => {
                // A `taskList` marker opens the line of an item that is no task: the lists nested
                // under it begin the task list (see `task_list`).
                let first = self
                    .inl
                    .as_ref()
                    .is_none_or(|i| i.nodes.is_empty() && i.capture.is_none());
                if let Some(Frame {
                    kind: Fk::Item { inline_d, .. },
                    ..
                }) = self
                    .frames
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f.kind, Fk::Item { .. }))
                    .filter(|_| kind != NodeType::TaskList || first)
                {
                    let block = matches!(kind, NodeType::BlockTaskItem | NodeType::TaskList);
                    *inline_d = Some((kind, diff));
                    if let Some(inl) = self.inl.as_mut().filter(|_| block) {
                        // The item's line holds its marker; its blocks follow.
                        inl.item_marker = inl.nodes.is_empty() && inl.capture.is_none();
                    }
                    return;
                }
            }
            NodeType::Text => {
                // A modifier of the text right before it (its marks: `[]`, or marks the Markdown shows
                // in another order or form); what follows is a new text.
                let inl = self.inl_mut(line);
                if let Some(last) = inl.nodes.last_mut().filter(|n| n.kind == NodeType::Text) {
                    let mut node = std::mem::replace(last, Node::new(NodeType::Text));
                    if marks_edited(&node, &diff) {
                        self.warn(
                            line,
                            "a text's marks were edited after its `text` marker was written; the marker is \
                             not used, the text keeps the marks its Markdown shows",
                        );
                    } else {
                        self.apply(&mut node, &diff, line);
                    }
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

    pub(super) fn inline_tag(&mut self, tok: &Tok, line: usize) -> bool {
        match tok {
            Tok::Open {
                name,
                attrs,
                self_closing,
            } => {
                let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
                let mark = match name.as_str() {
                    "br" => {
                        let inl = self.inl_mut(line);
                        inl.nodes.push(Node::new(NodeType::HardBreak));
                        inl.split = true;
                        return true;
                    }
                    _ if *self_closing => return false,
                    "p" if self.in_cell_text() => {
                        self.cell_paragraph();
                        return true;
                    }
                    "strong" | "b" => (Mark::new(MarkType::Strong), "strong"),
                    "em" | "i" => (Mark::new(MarkType::Em), "em"),
                    "del" | "s" | "strike" => (Mark::new(MarkType::Strike), "del"),
                    "u" | "ins" => (Mark::new(MarkType::Underline), "u"),
                    "code" => (Mark::new(MarkType::Code), "code"),
                    "kbd" => (Mark::new(MarkType::Code), "kbd"),
                    // `<a href>`, as READMEs and models write links too (a `javascript:` one is text,
                    // as the HTML reader reads it).
                    "a" => match get("href").and_then(|href| Mark::link(href, get("title"))) {
                        Some(link) => (link, "a"),
                        None => return false,
                    },
                    "sub" | "sup" => {
                        let mut m = Mark::new(MarkType::Subsup);
                        m.attrs = Some(
                            [("type".to_string(), Value::from(name.as_str()))]
                                .into_iter()
                                .collect(),
                        );
                        (m, if name == "sub" { "sub" } else { "sup" })
                    }
                    "span" => match element::span_tag(get) {
                        SpanTag::Mark(json) => {
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
                        }
                        SpanTag::Color(color) => match forms::css_color(color) {
                            Some(hex) => {
                                let mut m = Mark::new(MarkType::TextColor);
                                m.attrs = Some(
                                    [("color".to_string(), Value::from(hex))]
                                        .into_iter()
                                        .collect(),
                                );
                                (m, "span")
                            }
                            None => {
                                self.warn(line, format!("`{color}` is no colour ADF can hold (it takes `#rrggbb`; a CSS 2.1 name, `#rgb` and `rgb()` are converted); its text is kept without it"));
                                (Mark::new(MarkType::Other("\u{0}none".into())), "span")
                            }
                        },
                        SpanTag::Element => {
                            self.open_element(attrs, line);
                            return true;
                        }
                    },
                    _ => return false,
                };
                self.push_mark(mark.0, Closer::Html(mark.1), line);
                true
            }
            Tok::Close { name } => {
                if self.inl.as_ref().is_some_and(|i| i.capture.is_some()) {
                    // In an atom's label, whose text alone counts: no mark outside it closes here.
                    return true;
                }
                if name == "p" && self.in_cell_text() {
                    // A paragraph of a cell ends where the next starts, or with the cell.
                    return true;
                }
                let key = match name.as_str() {
                    "strong" | "b" => "strong",
                    "em" | "i" => "em",
                    "del" | "s" | "strike" => "del",
                    "u" | "ins" => "u",
                    "code" => "code",
                    "kbd" => "kbd",
                    "a" => "a",
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

    pub(super) fn end_cell(&mut self, mut inl: Inl) {
        let cell_d = inl.cell_d.clone();
        let mut ids = std::mem::take(&mut inl.cell_ids);
        let (para_id, cell_id, row_id) = (ids.pop(), ids.pop(), ids.pop());
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
        let starts = std::mem::take(&mut inl.paragraph_starts);
        let mut para = self
            .finish_paragraph(inl)
            .unwrap_or_else(|| Node::new(NodeType::Paragraph));
        if let Some(id) = para_id {
            para.set_attr("localId", id);
        }
        let mut cell = Node::with_content(
            if header {
                NodeType::TableHeader
            } else {
                NodeType::TableCell
            },
            split_paragraphs(para, &starts),
        );
        cell.attrs = Some(marker::inferred_attrs(&forms::CELL));
        if let Some((kind, d)) = cell_d {
            cell.kind = kind;
            self.apply(&mut cell, &d, line);
        }
        if let Some(id) = cell_id {
            cell.set_attr("localId", id);
        }
        if let Some(Frame {
            kind: Fk::Row { id: row, .. },
            ..
        }) = self.frames.last_mut()
        {
            if row_id.is_some() {
                *row = row_id;
            }
        }
        self.frame().children.push(cell);
    }

    pub(super) fn in_head(&self) -> bool {
        // The head row is the table's first row (pulldown's TableHead).
        matches!(self.frames.iter().rev().nth(1), Some(Frame { kind: Fk::Table, children, .. }) if children.is_empty())
    }

    /// The paragraph (or heading, cell content) an inline run makes, or `None` for nothing.
    pub(super) fn finish_paragraph(&mut self, mut inl: Inl) -> Option<Node> {
        if let Some(c) = inl.capture.take() {
            let node = self.atom(c);
            inl.nodes.push(node);
        }
        // An element whose close tag never came ends with the run, as in HTML.
        self.close_elements(&mut inl);
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
        if inl.kind == Ik::Paragraph && nodes.is_empty() && (inl.skip_line || inl.item_marker) {
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
}

/// A pipe table cell's paragraph split where `<p>` tags started the next ones (`starts`, among its
/// nodes): nothing before the first `<p>` is no paragraph (`<p>a</p><p>b</p>` is two), and the first
/// keeps what the cell's paragraph has besides its content (its id).
fn split_paragraphs(mut para: Node, starts: &[usize]) -> Vec<Node> {
    if starts.is_empty() {
        return vec![para];
    }
    let mut nodes = para.content.take().unwrap_or_default();
    let mut parts = Vec::with_capacity(starts.len() + 1);
    for &start in starts.iter().rev() {
        parts.push(nodes.split_off(start.min(nodes.len())));
    }
    if !nodes.is_empty() {
        parts.push(nodes);
    }
    let mut first = Some(para);
    parts
        .into_iter()
        .rev()
        .map(|part| {
            let mut p = first
                .take()
                .unwrap_or_else(|| Node::new(NodeType::Paragraph));
            if !part.is_empty() {
                p.content = Some(part);
            }
            p
        })
        .collect()
}

/// A node that stands only among blocks, never in text or in a container of its own kind (items, rows,
/// cells, media and columns do not count: they are not read from inside text either way).
pub(super) fn is_block(kind: &NodeType) -> bool {
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

/// Whether the marks of `text`, as read, are not what a text modifier holding only `marks` was written
/// after (the plain form of the text with those marks): the text's marks were edited since, and the edit
/// wins.
fn marks_edited(text: &Node, diff: &Map<String, Value>) -> bool {
    if diff.len() != 1 || !diff.contains_key("marks") {
        return false;
    }
    let mut marked = text.clone();
    if marker::apply(&mut marked, diff).is_err() {
        // Left to `apply`, which says why.
        return false;
    }
    plain_form(&marked).is_some_and(|shown| shown.marks != text.marks)
}
