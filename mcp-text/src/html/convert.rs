//! The light tree to the model: blocks, inlines with marks, whitespace collapsed as a browser would.
//!
//! The walk recurses once or twice per element, and the tree is at most [`MAX_DEPTH`](super::tree::MAX_DEPTH)
//! deep, so the stack it uses is bounded. What it builds is valid ADF where the HTML allows: inline content
//! sits in paragraphs, list items and table cells hold blocks (an empty one holds an empty paragraph), a
//! code mark goes only with a link.

use html5ever::{local_name, LocalName};
use serde_json::Value;

use super::tree::{is_heading, Data, Dom, Id};
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};

/// Root blocks gathered before they are handed on.
const RUN: usize = 64;

/// The document `dom` holds: its `main` when it has one, else its `article`s, else all of it. Its root
/// blocks are handed to `each` as they are made, in runs; the document returned holds those made after
/// the last run.
pub fn document(dom: &Dom, each: &mut dyn FnMut(Vec<Node>)) -> Node {
    let mut reader = Reader {
        dom,
        marks: Vec::new(),
        effective: Vec::new(),
        language: None,
        nested: 0,
        heading: false,
        each,
    };
    let mut out = Blocks {
        root: true,
        ..Blocks::default()
    };
    for root in roots(dom) {
        reader.content(root, &mut out);
    }
    Node::doc(out.finish())
}

/// The elements to read: nodes are stored in document order, so a scan finds the first `main` and every
/// outermost `article` in order.
pub(super) fn roots(dom: &Dom) -> Vec<Id> {
    let ids = 1..dom.nodes.len() as Id;
    if let Some(main) = ids.clone().find(|&id| is_main(dom, id)) {
        return vec![main];
    }
    let articles: Vec<Id> = ids.filter(|&id| is_outermost_article(dom, id)).collect();
    if articles.is_empty() {
        vec![0]
    } else {
        articles
    }
}

pub(super) fn is_main(dom: &Dom, id: Id) -> bool {
    dom.node(id).name() == Some(&local_name!("main"))
}

/// An `article` inside no other.
pub(super) fn is_outermost_article(dom: &Dom, id: Id) -> bool {
    let article = |id: Id| dom.node(id).name() == Some(&local_name!("article"));
    if !article(id) {
        return false;
    }
    let mut at = dom.node(id).parent;
    while at != 0 {
        if article(at) {
            return false;
        }
        at = dom.node(at).parent;
    }
    true
}

/// The document read while its page's tree grows ([`super::tree::Parser`]), as [`document`] reads the
/// whole tree: the content of a root (the document, its `main`, each outermost `article`), a piece of the
/// page at a time. After each piece every node of the root that is final is read, and the parser can let
/// go of it.
pub struct Growing<'e> {
    /// The reader's state between two rounds: the marks and code language of the elements entered.
    marks: Vec<Mark>,
    effective: Vec<Mark>,
    language: Option<String>,
    out: Blocks,
    walk: Walk,
    each: &'e mut dyn FnMut(Vec<Node>),
}

/// Where a round of [`Growing`] stopped.
#[derive(Default)]
struct Walk {
    /// The element whose content is read (0: the document).
    root: Id,
    /// The elements entered and not yet ended, outermost first, with what ends each: each is the last
    /// child of the one before, the first a child of `root`.
    spine: Vec<(Id, Exit)>,
    /// The last child of the innermost of them (of `root` when there is none), not read yet, or 0.
    pending: Id,
}

impl<'e> Growing<'e> {
    /// Reads the document's content first (see [`Growing::read_from`]).
    pub fn new(each: &'e mut dyn FnMut(Vec<Node>)) -> Self {
        Growing {
            marks: Vec::new(),
            effective: Vec::new(),
            language: None,
            out: Blocks {
                root: true,
                ..Blocks::default()
            },
            walk: Walk::default(),
            each,
        }
    }

    /// Reads the content of `root` from now on, into the same document; the root before is read to its
    /// end ([`Growing::grow`] with `open` false).
    pub fn read_from(&mut self, root: Id) {
        self.walk = Walk {
            root,
            ..Walk::default()
        };
    }

    /// The element whose content is read (0: the document).
    pub fn root(&self) -> Id {
        self.walk.root
    }

    /// Reads what of the root's content is final: all of it unless `open` (the root may still grow).
    pub fn grow(&mut self, dom: &Dom, open: bool) {
        let mut reader = Reader {
            dom,
            marks: std::mem::take(&mut self.marks),
            effective: std::mem::take(&mut self.effective),
            language: self.language.take(),
            nested: 0,
            heading: false,
            each: &mut *self.each,
        };
        reader.grow(&mut self.walk, 0, open, &mut self.out);
        self.marks = reader.marks;
        self.effective = reader.effective;
        self.language = reader.language;
    }

    /// What the parser must keep ([`super::tree::Parser::compact`]'s `spine` and `tail`: the root, the
    /// elements above it and those entered, and the pending subtree), when letting go of the rest is
    /// worth it: when it is at least as many nodes as those kept, so that all the moves cost time linear
    /// in the page.
    pub fn keep(&self, dom: &Dom) -> Option<(Vec<Id>, Id)> {
        let mut spine = Vec::new();
        let mut at = self.walk.root;
        while at != 0 {
            spine.push(at);
            at = dom.node(at).parent;
        }
        spine.reverse();
        spine.extend(self.walk.spine.iter().map(|&(id, _)| id));
        let tail = match self.walk.pending {
            0 => 0,
            pending => dom.nodes.len() - pending as usize,
        };
        let read = dom.nodes.len().saturating_sub(1 + spine.len() + tail);
        (read > 0 && read >= tail).then_some((spine, self.walk.pending))
    }

    /// The parser compacted its tree keeping `spine` and the pending subtree: the ids this walk holds are
    /// renumbered as the parser renumbered them.
    pub fn compacted(&mut self, spine: &[Id]) {
        let renumber = |id: Id| {
            spine
                .iter()
                .position(|&e| e == id)
                .map_or(0, |i| i as Id + 1)
        };
        self.walk.root = renumber(self.walk.root);
        for (id, _) in &mut self.walk.spine {
            *id = renumber(*id);
        }
        if self.walk.pending != 0 {
            self.walk.pending = spine.len() as Id + 1;
        }
    }

    /// The document: the blocks not handed on.
    pub fn finish(self) -> Node {
        Node::doc(self.out.finish())
    }
}

struct Reader<'a> {
    dom: &'a Dom,
    /// The marks of the enclosing inline elements, outermost first.
    marks: Vec<Mark>,
    /// `marks` as text carries them: with a code mark, only the code and link marks (ADF allows no other).
    effective: Vec<Mark>,
    /// A code block language named by an enclosing element (`<div class="highlight-source-rust"><pre>`).
    language: Option<String>,
    /// Enclosing expands and table cells: a `details` there is a `nestedExpand`.
    nested: usize,
    /// Inside a heading, where a link into the page is the heading's permalink.
    heading: bool,
    /// Where the document's finished root blocks go.
    each: &'a mut dyn FnMut(Vec<Node>),
}

/// Blocks being collected, with the paragraph being filled.
#[derive(Default)]
struct Blocks {
    blocks: Vec<Node>,
    para: Inlines,
    /// The document's own blocks: nothing changes them once they are made, so they are handed on.
    root: bool,
}

/// Inline content being collected.
#[derive(Default)]
struct Inlines {
    nodes: Vec<Node>,
    /// Collapsed whitespace not yet written: it becomes one space if more content follows on the line.
    space: bool,
}

impl Blocks {
    /// Ends the current paragraph (if it has content).
    fn flush(&mut self) {
        let mut nodes = std::mem::take(&mut self.para.nodes);
        self.para.space = false;
        while nodes.last().is_some_and(|n| n.kind == NodeType::HardBreak) {
            nodes.pop();
        }
        if !nodes.is_empty() {
            self.blocks
                .push(Node::with_content(NodeType::Paragraph, nodes));
        }
    }

    fn push(&mut self, block: Node) {
        self.flush();
        self.blocks.push(block);
    }

    fn finish(mut self) -> Vec<Node> {
        self.flush();
        std::mem::take(&mut self.blocks)
    }

    /// The blocks, never empty: ADF's list items and cells hold at least a paragraph.
    fn finish_nonempty(self) -> Vec<Node> {
        let mut blocks = self.finish();
        if blocks.is_empty() {
            blocks.push(Node::with_content(NodeType::Paragraph, Vec::new()));
        }
        blocks
    }
}

impl Inlines {
    /// Appends text, collapsing runs of HTML whitespace to one space and dropping it at line starts.
    fn text(&mut self, text: &str, marks: &[Mark]) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if is_space(bytes[i]) {
                while i < bytes.len() && is_space(bytes[i]) {
                    i += 1;
                }
                self.space = !self.nodes.is_empty()
                    && self
                        .nodes
                        .last()
                        .is_some_and(|n| n.kind != NodeType::HardBreak);
                continue;
            }
            let start = i;
            while i < bytes.len() && !is_space(bytes[i]) {
                i += 1;
            }
            self.word(&text[start..i], marks);
        }
    }

    /// Appends non-space text; a pending space goes before it, carrying only the marks on both of its sides
    /// (so that `a <b>b</b>` puts the space outside the bold, where Markdown wants it).
    fn word(&mut self, word: &str, marks: &[Mark]) {
        if std::mem::take(&mut self.space) {
            let last_marks = self.nodes.last().map_or(&[][..], |n| n.mark_list());
            let shared = last_marks
                .iter()
                .zip(marks)
                .take_while(|(a, b)| a == b)
                .count();
            self.push_text(" ", &marks[..shared]);
        }
        self.push_text(word, marks);
    }

    fn push_text(&mut self, text: &str, marks: &[Mark]) {
        if let Some(last) = self.nodes.last_mut() {
            if last.kind == NodeType::Text && last.mark_list() == marks {
                last.text.get_or_insert_with(String::new).push_str(text);
                return;
            }
        }
        let mut node = Node::text(text);
        if !marks.is_empty() {
            node.marks = Some(marks.to_vec());
        }
        self.nodes.push(node);
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0C')
}

impl Reader<'_> {
    /// Reads the children of `id` into `out`.
    fn content(&mut self, id: Id, out: &mut Blocks) {
        for child in self.dom.children(id) {
            self.node(child, out);
            self.hand_on(out);
        }
    }

    /// Hands the document's finished blocks on once there is a run of them.
    fn hand_on(&mut self, out: &mut Blocks) {
        if out.root && out.blocks.len() >= RUN {
            (self.each)(std::mem::take(&mut out.blocks));
        }
    }

    /// Reads the children of `level`'s element (`walk.root` for 0, else `walk.spine[level - 1]`) from
    /// where the last round stopped, in order, as [`Reader::content`] would. While `open` (the element
    /// may still grow), its last child is not read: one read as its content is entered (it joins the
    /// spine, and its own children are read the same way); any other waits as `walk.pending`.
    fn grow(&mut self, walk: &mut Walk, level: usize, open: bool, out: &mut Blocks) {
        let mut child = match walk.spine.get(level) {
            Some(&(entered, _)) => entered,
            None if walk.pending != 0 => std::mem::take(&mut walk.pending),
            None => {
                let element = level.checked_sub(1).map_or(walk.root, |l| walk.spine[l].0);
                self.dom.node(element).first_child
            }
        };
        while child != 0 {
            let next = self.dom.node(child).next_sibling;
            let last_open = open && next == 0;
            if walk
                .spine
                .get(level)
                .is_some_and(|&(entered, _)| entered == child)
            {
                self.grow(walk, level + 1, last_open, out);
                if last_open {
                    return;
                }
                if let Some((_, exit)) = walk.spine.pop() {
                    self.exit(exit, out);
                }
            } else if last_open {
                match self.enter(child, out) {
                    Some(exit) => {
                        walk.spine.push((child, exit));
                        self.grow(walk, level + 1, true, out);
                    }
                    None => walk.pending = child,
                }
                return;
            } else {
                self.node(child, out);
            }
            self.hand_on(out);
            child = next;
        }
    }

    fn node(&mut self, id: Id, out: &mut Blocks) {
        if self.heading && self.is_permalink_glyph(id) {
            return;
        }
        match self.enter(id, out) {
            Some(exit) => {
                self.content(id, out);
                self.exit(exit, out);
            }
            None => self.whole(id, out),
        }
    }

    /// Starts reading a node that is read as its content (the document, paragraphs, blocks, marks, and
    /// elements this reader does not know), and says how to end it once its content is read. `None`
    /// (nothing done) for text and elements read whole ([`reads_whole`]).
    fn enter(&mut self, id: Id, out: &mut Blocks) -> Option<Exit> {
        use local_name as n;
        let node = self.dom.node(id);
        let name = match &node.data {
            Data::Text(_) => return None,
            Data::Document => return Some(Exit::Content),
            Data::Element { name, .. } if reads_whole(name) => return None,
            Data::Element { name, .. } => name,
        };
        Some(match *name {
            n!("p") => {
                out.flush();
                Exit::Flush
            }
            n!("a") => match node.attr(&n!("href")) {
                // A heading's permalink (`<h2 id="x"><a href="#x">Text</a></h2>`): its text alone.
                Some(href) if self.heading && href.trim_start().starts_with('#') => Exit::Content,
                Some(href) => match Mark::link(href, node.attr(&n!("title"))) {
                    Some(mark) => self.mark(mark),
                    None => Exit::Content,
                },
                None => Exit::Content,
            },
            n!("strong") | n!("b") => self.mark(Mark::new(MarkType::Strong)),
            n!("em") | n!("i") | n!("cite") | n!("dfn") | n!("var") => {
                self.mark(Mark::new(MarkType::Em))
            }
            n!("code") | n!("kbd") | n!("samp") | n!("tt") => self.mark(Mark::new(MarkType::Code)),
            n!("s") | n!("del") | n!("strike") => self.mark(Mark::new(MarkType::Strike)),
            n!("u") | n!("ins") => self.mark(Mark::new(MarkType::Underline)),
            n!("sub") | n!("sup") => {
                let mut mark = Mark::new(MarkType::Subsup);
                let kind = if *name == n!("sub") { "sub" } else { "sup" };
                mark.attrs = Some(Attrs::from_iter([("type".to_string(), Value::from(kind))]));
                self.mark(mark)
            }
            _ if is_block(name) => {
                let hint = self.language_hint(id);
                let outer = self.language.clone();
                if hint.is_some() {
                    self.language = hint;
                }
                out.flush();
                Exit::Block(outer)
            }
            // Unknown and presentational inline elements: their content, as if they were not there.
            _ => Exit::Content,
        })
    }

    /// Ends a node [`Reader::enter`] started, its content read.
    fn exit(&mut self, exit: Exit, out: &mut Blocks) {
        match exit {
            Exit::Content => {}
            Exit::Flush => out.flush(),
            Exit::Block(outer) => {
                out.flush();
                self.language = outer;
            }
            Exit::Mark => {
                self.marks.pop();
                self.update_effective();
            }
        }
    }

    /// Text, and an element read whole.
    fn whole(&mut self, id: Id, out: &mut Blocks) {
        use local_name as n;
        let node = self.dom.node(id);
        let name = match &node.data {
            Data::Text(text) => return out.para.text(text, &self.effective),
            Data::Document => return,
            Data::Element { name, .. } => name,
        };
        match *name {
            n!("br") => {
                let para = &mut out.para;
                para.space = false;
                match para.nodes.last() {
                    None => {}
                    // Two breaks in a row are a blank line: a new paragraph.
                    Some(last) if last.kind == NodeType::HardBreak => out.flush(),
                    Some(_) => para.nodes.push(Node::new(NodeType::HardBreak)),
                }
            }
            n!("hr") => out.push(Node::new(NodeType::Rule)),
            n!("img") => self.image(id, out),
            n!("input") => {
                // A task list's checkbox (forms are dropped; only checkboxes reach here).
                let mark = if node.attr(&n!("checked")).is_some() {
                    "[x]"
                } else {
                    "[ ]"
                };
                out.para.word(mark, &self.effective);
                out.para.space = true;
            }
            n!("h1") | n!("h2") | n!("h3") | n!("h4") | n!("h5") | n!("h6") => {
                self.heading(id, name, out)
            }
            n!("ul") | n!("ol") | n!("menu") => self.list(id, name, out),
            n!("pre") | n!("listing") | n!("xmp") | n!("plaintext") => self.code_block(id, out),
            n!("blockquote") => {
                let mut inner = Blocks::default();
                self.content(id, &mut inner);
                let blocks = inner.finish();
                if !blocks.is_empty() {
                    out.push(Node::with_content(NodeType::Blockquote, blocks));
                }
            }
            n!("table") => self.table(id, out),
            n!("details") => self.details(id, out),
            n!("dt") => {
                out.flush();
                let exit = self.mark(Mark::new(MarkType::Strong));
                self.content(id, out);
                self.exit(exit, out);
                out.flush();
            }
            // `reads_whole` names no other element.
            _ => {}
        }
    }

    /// Adds `mark` to the enclosing marks, unless one of its kind is there.
    fn mark(&mut self, mark: Mark) -> Exit {
        if self.marks.iter().any(|m| m.kind == mark.kind) {
            return Exit::Content;
        }
        self.marks.push(mark);
        self.update_effective();
        Exit::Mark
    }

    fn update_effective(&mut self) {
        let code = self.marks.iter().any(|m| m.kind == MarkType::Code);
        self.effective.clear();
        self.effective.extend(
            self.marks
                .iter()
                .filter(|m| !code || matches!(m.kind, MarkType::Code | MarkType::Link))
                .cloned(),
        );
        // In the schema's order, as ADF's editor gives them, whatever the elements' nesting
        // (`<b><a href>` is a link that is strong).
        self.effective.sort_by_key(|m| m.kind.rank());
    }

    /// `h1`..`h6`: the heading's paragraphs become its text; other blocks inside it (an image, most often)
    /// stand beside it, in order.
    fn heading(&mut self, id: Id, name: &LocalName, out: &mut Blocks) {
        let level = name.as_bytes()[1] - b'0';
        let mut inner = Blocks::default();
        let outer = std::mem::replace(&mut self.heading, true);
        self.content(id, &mut inner);
        self.heading = outer;
        out.flush();
        let mut text: Vec<Node> = Vec::new();
        let mut at = None;
        for mut block in inner.finish() {
            if block.kind == NodeType::Paragraph {
                if !text.is_empty() {
                    text.push(Node::text(" "));
                }
                text.extend(block.content.take().unwrap_or_default());
                at.get_or_insert(out.blocks.len());
            } else {
                out.blocks.push(block);
            }
        }
        if let Some(at) = at {
            let mut heading = Node::with_content(NodeType::Heading, merge_text(text));
            heading.set_attr("level", level);
            out.blocks.insert(at, heading);
        }
    }

    /// Whether `id` is a link into the page whose text is a sign alone, no word (`§`, `¶`, `#`, `🔗`, or
    /// nothing but an icon): a heading's permalink, which says nothing once the page is text.
    fn is_permalink_glyph(&self, id: Id) -> bool {
        let node = self.dom.node(id);
        if node.name() != Some(&local_name!("a"))
            || !node
                .attr(&local_name!("href"))
                .is_some_and(|href| href.trim_start().starts_with('#'))
        {
            return false;
        }
        let mut signs = 0;
        self.only_signs(id, &mut signs)
    }

    /// Whether the text under `id` is no word and at most two signs besides spaces (`signs` counts them):
    /// stops at the first letter or digit, or the third sign.
    fn only_signs(&self, id: Id, signs: &mut usize) -> bool {
        self.dom
            .children(id)
            .all(|child| match &self.dom.node(child).data {
                Data::Text(t) => t.chars().filter(|c| !c.is_whitespace()).all(|c| {
                    *signs += 1;
                    *signs <= 2 && !c.is_alphanumeric()
                }),
                Data::Element { .. } => self.only_signs(child, signs),
                Data::Document => true,
            })
    }

    fn list(&mut self, id: Id, name: &LocalName, out: &mut Blocks) {
        let mut items: Vec<Node> = Vec::new();
        for child in self.dom.children(id) {
            let node = self.dom.node(child);
            if node.name() == Some(&local_name!("li")) {
                let mut inner = Blocks::default();
                self.content(child, &mut inner);
                items.push(Node::with_content(
                    NodeType::ListItem,
                    inner.finish_nonempty(),
                ));
                continue;
            }
            if matches!(&node.data, Data::Text(t) if t.bytes().all(is_space)) {
                continue;
            }
            // Content outside any `li` (often a nested list written as a sibling) joins the item before it.
            let mut inner = Blocks::default();
            self.node(child, &mut inner);
            let blocks = inner.finish();
            if blocks.is_empty() {
                continue;
            }
            match items.last_mut() {
                Some(item) => item.content.get_or_insert_with(Vec::new).extend(blocks),
                None => items.push(Node::with_content(NodeType::ListItem, blocks)),
            }
        }
        if items.is_empty() {
            return;
        }
        let ordered = *name == local_name!("ol");
        let mut list = Node::with_content(
            if ordered {
                NodeType::OrderedList
            } else {
                NodeType::BulletList
            },
            items,
        );
        if ordered {
            if let Some(start) = self
                .dom
                .node(id)
                .attr(&local_name!("start"))
                .and_then(|s| s.trim().parse::<u32>().ok())
            {
                list.set_attr("order", start);
            }
        }
        out.push(list);
    }

    fn code_block(&mut self, id: Id, out: &mut Blocks) {
        let mut text = String::new();
        let mut language = self.language_hint(id);
        self.code_text(id, &mut text, &mut language);
        if text.ends_with('\n') {
            text.pop();
        }
        let mut block = Node::with_content(NodeType::CodeBlock, Vec::new());
        if !text.is_empty() {
            block.content = Some(vec![Node::text(text)]);
        }
        if let Some(language) = language.or_else(|| self.language.clone()) {
            block.set_attr("language", language);
        }
        out.push(block);
    }

    /// The text under `id` as it stands (a `br` is a newline); the first language a `code` inside names.
    /// A `code` right after another (no text between) starts on a line of its own: pages give one
    /// example in two flavours that way (Node.js's docs: ES modules and CommonJS, one shown at a time).
    fn code_text(&self, id: Id, text: &mut String, language: &mut Option<String>) {
        let mut after_code = false;
        for child in self.dom.children(id) {
            let node = self.dom.node(child);
            match &node.data {
                Data::Text(t) => {
                    text.push_str(t);
                    after_code &= t.is_empty();
                }
                Data::Element { name, .. } if *name == local_name!("br") => {
                    text.push('\n');
                    after_code = false;
                }
                Data::Element { name, .. } => {
                    let code = *name == local_name!("code");
                    if code && after_code && !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    if language.is_none() {
                        *language = self.language_hint(child);
                    }
                    let before = text.len();
                    self.code_text(child, text, language);
                    // An element with no text (a flavour's toggle) keeps what came before it.
                    after_code = code || (after_code && text.len() == before);
                }
                Data::Document => {}
            }
        }
    }

    /// The language a `class` (`language-rust`, `lang-rust`, `highlight-source-rust`, pandoc's
    /// `sourceCode rust`) or a `lang`/`data-lang` attribute of a `pre` or `code` names.
    fn language_hint(&self, id: Id) -> Option<String> {
        let node = self.dom.node(id);
        let name = node.name()?;
        let code = matches!(*name, local_name!("pre") | local_name!("code"));
        if let Some(class) = node.attr(&local_name!("class")) {
            let mut words = class.split_ascii_whitespace();
            let source_code = class.split_ascii_whitespace().any(|w| w == "sourceCode");
            for word in words.by_ref() {
                for prefix in ["language-", "lang-", "highlight-source-"] {
                    if let Some(lang) = word.strip_prefix(prefix).filter(|l| !l.is_empty()) {
                        return Some(lang.to_string());
                    }
                }
            }
            if source_code && code {
                if let Some(lang) = class.split_ascii_whitespace().find(|w| *w != "sourceCode") {
                    return Some(lang.to_string());
                }
            }
        }
        if code {
            for attr in ["data-lang", "lang"] {
                if let Some(lang) = node
                    .attr(&LocalName::from(attr))
                    .filter(|l| !l.trim().is_empty())
                {
                    return Some(lang.trim().to_string());
                }
            }
        }
        None
    }

    /// An image: `mediaSingle` holding an external `media` (a link around it is the media's link mark).
    fn image(&mut self, id: Id, out: &mut Blocks) {
        let node = self.dom.node(id);
        let Some(src) = node
            .attr(&local_name!("src"))
            .or_else(|| node.attr(&LocalName::from("data-src")))
        else {
            return;
        };
        let mut media = Node::new(NodeType::Media);
        media.set_attr("type", "external");
        media.set_attr("url", src);
        if let Some(alt) = node.attr(&local_name!("alt")).filter(|a| !a.is_empty()) {
            media.set_attr("alt", alt);
        }
        if let Some(link) = self.marks.iter().find(|m| m.kind == MarkType::Link) {
            media.marks = Some(vec![link.clone()]);
        }
        let mut single = Node::with_content(NodeType::MediaSingle, vec![media]);
        // The layout the editor gives an image of its own (and the Markdown reader infers).
        single.set_attr("layout", "center");
        out.push(single);
    }

    /// A table: rows from `thead`/`tbody`/`tfoot` or directly under it; `th` (and any cell of `thead`) is a
    /// header. What stands outside the cells is read before the table, where a browser shows it.
    fn table(&mut self, id: Id, out: &mut Blocks) {
        let mut rows = Vec::new();
        let mut before = Blocks::default();
        self.rows(id, false, &mut rows, &mut before);
        for block in before.finish() {
            out.push(block);
        }
        if !rows.is_empty() {
            out.push(Node::with_content(NodeType::Table, rows));
        }
    }

    fn rows(&mut self, id: Id, head: bool, rows: &mut Vec<Node>, before: &mut Blocks) {
        use local_name as n;
        for child in self.dom.children(id) {
            match self.dom.node(child).name().cloned() {
                Some(n!("thead")) => self.rows(child, true, rows, before),
                Some(n!("tbody")) | Some(n!("tfoot")) => self.rows(child, head, rows, before),
                Some(n!("tr")) => {
                    let row = self.row(child, head, before);
                    if !row.is_empty() {
                        rows.push(Node::with_content(NodeType::TableRow, row));
                    }
                }
                Some(n!("td")) | Some(n!("th")) => {
                    // Cells outside a row: a row of their own.
                    let cell = self.cell(child, head);
                    rows.push(Node::with_content(NodeType::TableRow, vec![cell]));
                }
                Some(n!("colgroup")) | Some(n!("col")) => {}
                Some(n!("caption")) => {
                    self.content(child, before);
                    before.flush();
                }
                _ => self.node(child, before),
            }
        }
    }

    fn row(&mut self, id: Id, head: bool, before: &mut Blocks) -> Vec<Node> {
        let mut cells = Vec::new();
        for child in self.dom.children(id) {
            match self.dom.node(child).name() {
                Some(name) if matches!(*name, local_name!("td") | local_name!("th")) => {
                    cells.push(self.cell(child, head))
                }
                _ => self.node(child, before),
            }
        }
        cells
    }

    fn cell(&mut self, id: Id, head: bool) -> Node {
        let node = self.dom.node(id);
        let header = head || node.name() == Some(&local_name!("th"));
        self.nested += 1;
        let mut inner = Blocks::default();
        self.content(id, &mut inner);
        self.nested -= 1;
        let mut cell = Node::with_content(
            if header {
                NodeType::TableHeader
            } else {
                NodeType::TableCell
            },
            inner.finish_nonempty(),
        );
        for span in ["colspan", "rowspan"] {
            let value = node
                .attr(&LocalName::from(span))
                .and_then(|v| v.trim().parse::<u32>().ok());
            if let Some(value) = value.filter(|&v| v > 1) {
                cell.set_attr(span, value);
            }
        }
        cell
    }

    /// `details`: an expand titled by its `summary`.
    fn details(&mut self, id: Id, out: &mut Blocks) {
        let nested = self.nested > 0;
        let mut title = None;
        let mut inner = Blocks::default();
        self.nested += 1;
        for child in self.dom.children(id) {
            if title.is_none() && self.dom.node(child).name() == Some(&local_name!("summary")) {
                let mut summary = Blocks::default();
                self.content(child, &mut summary);
                title = Some(plain_text(&summary.finish()));
                continue;
            }
            self.node(child, &mut inner);
        }
        self.nested -= 1;
        let kind = if nested {
            NodeType::NestedExpand
        } else {
            NodeType::Expand
        };
        let mut expand = Node::with_content(kind, inner.finish_nonempty());
        expand.set_attr("title", title.unwrap_or_default());
        out.push(expand);
    }
}

/// Joins adjacent text nodes with the same marks (a heading's paragraphs joined by spaces leave them apart).
fn merge_text(nodes: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::with_capacity(nodes.len());
    for mut node in nodes {
        if let Some(last) = out.last_mut() {
            if node.kind == NodeType::Text
                && last.kind == NodeType::Text
                && last.marks == node.marks
            {
                let text = node.text.take().unwrap_or_default();
                last.text.get_or_insert_with(String::new).push_str(&text);
                continue;
            }
        }
        out.push(node);
    }
    out
}

/// The text of inline content, without its marks (a summary's title).
fn plain_text(blocks: &[Node]) -> String {
    let mut text = String::new();
    for (i, block) in blocks.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        for inline in block.children() {
            match inline.kind {
                NodeType::Text => text.push_str(inline.text.as_deref().unwrap_or("")),
                NodeType::HardBreak => text.push(' '),
                _ => {}
            }
        }
    }
    text
}

/// What ends a node read as its content ([`Reader::enter`]).
enum Exit {
    /// Nothing: the content is all there is.
    Content,
    /// A paragraph: it ends the paragraph being filled.
    Flush,
    /// A block: it ends the paragraph being filled, and the enclosing code language is back.
    Block(Option<String>),
    /// A mark: it comes off.
    Mark,
}

/// Elements read whole ([`Reader::whole`]): each makes a block of its own, or is void.
fn reads_whole(name: &LocalName) -> bool {
    use local_name as n;
    is_heading(name)
        || matches!(
            *name,
            n!("br")
                | n!("hr")
                | n!("img")
                | n!("input")
                | n!("ul")
                | n!("ol")
                | n!("menu")
                | n!("pre")
                | n!("listing")
                | n!("xmp")
                | n!("plaintext")
                | n!("blockquote")
                | n!("table")
                | n!("details")
                | n!("dt")
        )
}

/// Elements that start and end a block (their content is read in place, between two paragraphs).
fn is_block(name: &LocalName) -> bool {
    use local_name as n;
    is_heading(name)
        || matches!(
            *name,
            n!("address")
                | n!("article")
                | n!("main")
                | n!("section")
                | n!("div")
                | n!("header")
                | n!("footer")
                | n!("figure")
                | n!("figcaption")
                | n!("center")
                | n!("hgroup")
                | n!("fieldset")
                | n!("legend")
                | n!("dl")
                | n!("dd")
                | n!("li")
                | n!("summary")
                | n!("caption")
                | n!("tr")
                | n!("td")
                | n!("th")
                | n!("thead")
                | n!("tbody")
                | n!("tfoot")
                | n!("body")
                | n!("html")
        )
}
