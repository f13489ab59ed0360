//! Blocks: a finished block joins its frame (with the modifier before it), lists, items, quotes and
//! task and decision lists are built when their frame ends, code and HTML blocks are read.

use super::super::forms;
use super::super::html::{self, Tok};
use super::super::marker;
use super::super::title;
use super::state::*;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};
use serde_json::Value;

impl R<'_> {
    /// Adds a finished block to the current frame, applying a modifier that precedes it.
    pub(super) fn push_block(&mut self, node: Node, line: usize) {
        if let Some(node) = self.caption(node) {
            self.push_block_after_caption(node, line);
        }
    }

    /// A paragraph after a `caption` marker that follows an image (a `mediaSingle` with none yet) is that
    /// image's caption; `Some(node)` for any other block, or where there is no such image.
    fn caption(&mut self, mut node: Node) -> Option<Node> {
        let f = self.frame();
        let fits = node.kind == NodeType::Paragraph
            && node.attrs.is_none()
            && node.marks.is_none()
            && node.extra.is_none()
            // The image is in the container the paragraph would join (an open marker pair's blocks are
            // the frame's children from its start on).
            && f.opens.last().is_none_or(|o| f.children.len() > o.start)
            && f.pending.as_ref().is_some_and(|p| p.kind == NodeType::Caption)
            && f.children.last().is_some_and(|m| {
                m.kind == NodeType::MediaSingle
                    && matches!(m.children(), [only] if only.kind == NodeType::Media)
            });
        if !fits {
            return Some(node);
        }
        let Some(p) = self.frame().pending.take() else {
            return Some(node);
        };
        let mut caption = Node::new(NodeType::Caption);
        caption.content = node.content.take();
        self.apply(&mut caption, &p.diff, p.line);
        if let Some(media) = self.frame().children.last_mut() {
            media.content.get_or_insert_with(Vec::new).push(caption);
        }
        None
    }

    fn push_block_after_caption(&mut self, mut node: Node, line: usize) {
        // What a panel's `[!TYPE]` line or a fence's info string showed, once its marker applied. A fence
        // under an extension's marker is that extension's body, its info string no title.
        let under_extension = self
            .frame()
            .pending
            .as_ref()
            .is_some_and(|p| p.kind == NodeType::Extension);
        let title = match node.kind {
            NodeType::Panel => title::take(&mut node),
            NodeType::CodeBlock if !under_extension => title::take(&mut node),
            _ => None,
        };
        let kind = match &self.frame().pending {
            Some(p) => p.kind.clone(),
            None => node.kind.clone(),
        };
        self.end_section_before(&kind, line);
        // The frame is the parent only when no container (an HTML table cell, a marker pair) is open in it,
        // nor opens now (a pending marker of another type than this block's).
        let direct = self.frame().opens.is_empty()
            && self
                .frame()
                .pending
                .as_ref()
                .is_none_or(|p| modifies(&p.kind, &node.kind));
        let parent_quote = direct && matches!(self.frame().kind, Fk::Quote { panel: None, .. });
        let parent_item = direct && matches!(self.frame().kind, Fk::Item { .. });
        let f = self.frame();
        if let Some(p) = f.pending.take() {
            if modifies(&p.kind, &node.kind) {
                if p.kind == NodeType::Extension {
                    let node = self.plain_body_extension(node, &p.diff, p.line);
                    self.frame().children.push(node);
                    return;
                }
                if p.kind == NodeType::DecisionList {
                    node = self.decisions(node, p.line);
                }
                if code_edited(&node, &p.diff) {
                    self.warn(
                        p.line,
                        "a code block's text was edited after its marker was written; the marker's \
                         texts are not used, the block keeps the text its fence shows",
                    );
                    let mut diff = p.diff.clone();
                    diff.remove("content");
                    self.apply(&mut node, &diff, p.line);
                } else {
                    self.apply(&mut node, &p.diff, p.line);
                }
                if let Some(t) = title {
                    title::restore(&mut node, t);
                }
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
        if let Some(t) = title {
            title::restore(&mut node, t);
        }
        self.frame().children.push(node);
    }

    /// The extension whose plain-text body a fence shows (`code`, the code block read from it) under its
    /// marker (`diff`, the extension without its body): the fence's text, edited or not, is its body
    /// (`storage.plain`). A marker that cannot be used leaves the code block, with a warning.
    fn plain_body_extension(
        &mut self,
        mut code: Node,
        diff: &serde_json::Map<String, Value>,
        line: usize,
    ) -> Node {
        let mut ext = Node::new(NodeType::Extension);
        let applied =
            marker::apply(&mut ext, diff).and_then(|()| match ext.attr(crate::storage::STORAGE) {
                None | Some(Value::Object(_)) => Ok(()),
                Some(_) => Err("`storage` is not an object".to_string()),
            });
        if let Err(e) = applied {
            self.warn(
                line,
                format!(
                    "the `extension` marker could not be used ({e}); its body stays a code block"
                ),
            );
            if let Some(info) = title::take(&mut code) {
                title::restore(&mut code, info);
            }
            return code;
        }
        let mut body = String::new();
        for t in code.children() {
            body.push_str(t.text.as_deref().unwrap_or_default());
        }
        // `storage` is an object or absent (checked above).
        if let Some(storage) = ext.attr_object_or_insert(crate::storage::STORAGE, &[]) {
            storage.insert("plain".into(), body.into());
        }
        ext
    }

    pub(super) fn decisions(&mut self, list: Node, _line: usize) -> Node {
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

    pub(super) fn end_container(&mut self, line: usize) {
        if self.frames.len() > 1 {
            self.close_counted(line);
        }
        let Some(f) = self.frames.pop() else { return };
        let fline = f.line;
        match f.kind {
            Fk::Quote { panel, title } => {
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
                if let Some(t) = title.filter(|_| panel.is_some()) {
                    node.extra
                        .get_or_insert_with(Default::default)
                        .insert(title::STASH, t.into());
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
                        stash.insert("\u{0}d", Value::Object(d));
                        item.extra = Some(Box::new(stash));
                        None
                    }
                    other => other,
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
                    self.task_list(children, tasks, fline)
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

    pub(super) fn task_list(&mut self, items: Vec<Node>, tasks: Tasks, line: usize) -> Node {
        let mut out = Vec::new();
        for (mut item, (task, d)) in items.into_iter().zip(tasks) {
            if matches!(d, Some((NodeType::TaskList, _))) {
                // An item that is no task: the task lists nested under it, where the list begins.
                if item.children().iter().all(|b| b.kind == NodeType::TaskList)
                    && !item.children().is_empty()
                {
                    out.extend(item.content.take().unwrap_or_default());
                    continue;
                }
                self.warn(
                    line,
                    "a `taskList` marker on a task that holds more than task lists; read as a task",
                );
            }
            let children = item.children();
            let block = match &d {
                Some((NodeType::BlockTaskItem, _)) => true,
                // Otherwise (its marker lost, or blocks that came from elsewhere: those of a
                // `blockTaskItem` nested in it whose own marker was lost) a task item holding blocks
                // when it holds blocks only such an item holds (a paragraph with attributes or marks, an
                // extension): a task list could hold them nowhere else.
                _ => {
                    children.iter().any(|b| {
                        b.kind == NodeType::Extension
                            || b.kind == NodeType::Paragraph
                                && (b.attrs.is_some() || b.marks.is_some())
                    }) && children
                        .iter()
                        .all(|b| forms::in_block_task(&b.kind) || b.kind == NodeType::TaskList)
                }
            };
            let mut t = Node::new(if block {
                NodeType::BlockTaskItem
            } else {
                NodeType::TaskItem
            });
            t.set_attr("localId", "");
            t.set_attr("state", if task == Some(true) { "DONE" } else { "TODO" });
            let mut rest = item.content.take().unwrap_or_default();
            if block {
                // Its paragraphs and extensions (what the schema lets it hold), at least one; any other
                // block stands after it, as a task item's do.
                let (mut kept, hoisted): (Vec<Node>, Vec<Node>) = rest
                    .into_iter()
                    .partition(|b| forms::in_block_task(&b.kind));
                if kept.is_empty() {
                    kept.push(Node::new(NodeType::Paragraph));
                }
                t.content = Some(kept);
                if let Some((_, d)) = d {
                    self.apply(&mut t, &d, 0);
                }
                if t.children().is_empty() {
                    // A diff that empties it (a `taskItem`'s `content: []`, its blocks come from a
                    // nested item): an empty paragraph, since the schema wants a block.
                    t.content = Some(vec![Node::new(NodeType::Paragraph)]);
                }
                out.push(t);
                out.extend(hoisted);
                continue;
            }
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
            if let Some((_, d)) = d {
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
    pub(super) fn finish_children(&mut self, mut f: Frame) -> Vec<Node> {
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
    pub(super) fn end_code(&mut self) {
        let Some((lang, mut text, line)) = self.code.take() else {
            return;
        };
        if text.ends_with('\n') {
            text.pop();
        }
        let mut node = Node::new(NodeType::CodeBlock);
        if let Some(lang) = lang {
            // An info string that shows a title: the language before it, the whole string kept for when
            // the block's marker applies (see `title.rs`).
            match title::split_info(&lang) {
                Some((shown, _)) => {
                    if let Some(shown) = shown {
                        node.set_attr("language", shown);
                    }
                    node.extra
                        .get_or_insert_with(Default::default)
                        .insert(title::STASH, lang.into());
                }
                None => node.set_attr("language", lang),
            }
        }
        if !text.is_empty() {
            node.content = Some(vec![Node::text(text)]);
        }
        self.push_block(node, line);
    }

    pub(super) fn end_html(&mut self) {
        let Some((text, line)) = self.html.take() else {
            return;
        };
        let trimmed = text.trim_end_matches('\n');
        if let Some(toks) = html::tokens(trimmed) {
            if toks.iter().all(known_block_tok) {
                let mut summary: Option<String> = None;
                let mut lines = Lines::new(trimmed, line);
                for tok in toks {
                    // Each token's own line (a warning names it), where the block starts at `line`.
                    let line = lines.of(&tok);
                    // A short marker names the block after it: an element after it on its line is no block
                    // it can name.
                    let blank = matches!(tok, Tok::Text(t) if t.trim().is_empty());
                    if !matches!(tok, Tok::Comment(_)) && !blank {
                        if let Some((id, at)) = self.id.take() {
                            self.warn(
                                at,
                                format!("`<!--#{id}-->` stands before HTML; the id is not used"),
                            );
                        }
                    }
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
                                            .insert("title", Value::from(title));
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
                                // In what it opens: a marker still pending that is no expand's
                                // own opens first (`html_open`), as its container.
                                let f = self.frame();
                                let parent = match &f.pending {
                                    Some(p)
                                        if !matches!(
                                            p.kind,
                                            NodeType::Expand | NodeType::NestedExpand
                                        ) =>
                                    {
                                        Some(&p.kind)
                                    }
                                    _ => f.opens.last().map(|o| &o.kind),
                                };
                                let nested = parent.is_some_and(|kind| {
                                    matches!(
                                        kind,
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
                        // Text between the tags (`<td>Hello</td>`, a table as HTML is written line
                        // by line) is a paragraph of the element it is in, read as HTML reads it:
                        // entities decoded, whitespace collapsed, Markdown's signs as they stand
                        // (CommonMark gives such a line to HTML, not to Markdown).
                        Tok::Text(t) => {
                            let text = html::decode(t);
                            let words: Vec<&str> = text.split_ascii_whitespace().collect();
                            if !words.is_empty() {
                                let para = Node::with_content(
                                    NodeType::Paragraph,
                                    vec![Node::text(words.join(" "))],
                                );
                                self.push_block(para, line);
                            }
                        }
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
}

pub(super) fn heading_to_paragraph(mut h: Node) -> Node {
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
            marks.sort_by_key(|m| m.kind.rank());
        }
    }
    if !content.is_empty() {
        p.content = Some(shrunk(content));
    }
    p
}

/// The lines of an HTML block's tokens: a comment or text at the line it starts on, a tag at the line
/// the text or comment before it ended on (a tag's own text is not kept). Counted forward once.
struct Lines<'a> {
    text: &'a str,
    counted: usize,
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str, line: usize) -> Self {
        Lines {
            text,
            counted: 0,
            line,
        }
    }

    fn of(&mut self, tok: &Tok<'_>) -> usize {
        match tok {
            Tok::Comment(piece) | Tok::Text(piece) => {
                let at = self.line_at(piece.as_ptr());
                // What follows it starts where it ends.
                self.line_at(piece.as_ptr().wrapping_add(piece.len()));
                at
            }
            Tok::Open { .. } | Tok::Close { .. } => self.line,
        }
    }

    /// The line of the byte at `ptr`, a place in `text` at or after the last one asked.
    fn line_at(&mut self, ptr: *const u8) -> usize {
        let start = self.text.as_ptr() as usize;
        let at = (ptr as usize).saturating_sub(start).min(self.text.len());
        if at > self.counted {
            let between = &self.text.as_bytes()[self.counted..at];
            self.line += memchr::memchr_iter(b'\n', between).count();
            self.counted = at;
        }
        self.line
    }
}

pub(super) fn first_inline(item: &mut Node) -> Option<Vec<Node>> {
    let mut content = item.content.take().unwrap_or_default();
    if content.is_empty() {
        return None;
    }
    let mut p = content.remove(0);
    p.content.take()
}

pub(super) fn strip_stash(list: &mut Node) {
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

pub(super) fn prefix_text(item: &mut Node, prefix: &str) {
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

pub(super) fn known_block_tok(t: &Tok) -> bool {
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

/// Whether a code block's modifier holds texts (`content`) whose joined text is not the text its fence
/// shows (the writer puts them there for a block that holds its text in several texts): the code was
/// edited since, and the edit wins.
/// Whether a marker of type `marker` (not a whole node, nor a container's) is the modifier of the block of
/// type `block` that follows it: of a block of its type, of the bullet list a decision list is written as,
/// and of the fence that shows an extension's plain-text body (see `write.rs`'s `plain_body_extension`).
fn modifies(marker: &NodeType, block: &NodeType) -> bool {
    marker == block
        || (*marker == NodeType::DecisionList && *block == NodeType::BulletList)
        || (*marker == NodeType::Extension && *block == NodeType::CodeBlock)
}

fn code_edited(node: &Node, diff: &serde_json::Map<String, Value>) -> bool {
    if node.kind != NodeType::CodeBlock {
        return false;
    }
    let Some(Value::Array(texts)) = diff.get("content") else {
        return false;
    };
    let mut joined = String::new();
    for t in texts {
        match t.get("text").and_then(Value::as_str) {
            Some(text) => joined.push_str(text),
            // Not texts alone: no fence's text to compare with.
            None => return false,
        }
    }
    let shown = node.children().first().and_then(|t| t.text.as_deref());
    joined != shown.unwrap_or_default()
}
