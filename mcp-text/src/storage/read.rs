//! The reader: quick-xml's events, one pass, onto the model with an explicit stack of open elements.
//!
//! Three ways an element's children are read ([`Mode`]): as blocks (`li`, `td`, a macro's rich-text body,
//! the document), where a run of inline content is wrapped in a paragraph marked `implicit` (Confluence's
//! older editor writes `<li>text</li>`) and whitespace-only text between blocks is insignificant; as
//! inline content (`p`, `h1`, a task's body), where every character counts and mark elements (`strong`,
//! `a`, ...) become marks on the text beneath them; and as elements (`ul`, `table`, `tr`), like inline but
//! without whitespace-only text. Macros, links, images and tasks gather their parts in a state of their
//! own and become nodes when they close (see `macros.rs`, `links.rs`). What an element's attributes become is
//! `attrs.rs`; which HTML elements are nodes, marks or inline is `elements.rs`.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use serde_json::Value;

use super::attrs::{
    element_attrs, implicit_attrs, put_attrs, storage_attrs, storage_of, with_default, AttrList,
};
use super::cards;
use super::elements::{is_inline, mapped_attrs, mark_for, ordered_list_attrs, table_attrs};
use super::entities::{self, text_content};
use super::images::{self, Image};
use super::links::{self, Link, LinkBody, Ri, Task};
use super::macros::{self, Macro, Param};
use super::position::{element_name_at, offset_in};
use super::{ELEMENT, MAX_DEPTH, RAW};
use crate::error::Error;
use crate::model::{Attrs, Mark, Node, NodeType};
use crate::Read;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Mode {
    Block,
    Inline,
    Elements,
}

/// What an open element turns into when it closes.
enum Role {
    Doc,
    Node,
    Implicit,
    Macro(Box<Macro>),
    MacroBody,
    Link(Box<Link>),
    LinkBody,
    Image(Box<Image>),
    Caption,
    Task(Box<Task>),
    TaskBody,
    Layout,
}

struct Frame {
    kind: NodeType,
    attrs: Option<Attrs>,
    content: Vec<Node>,
    /// The marks of the mark elements open inside this element, outermost first.
    marks: Vec<Mark>,
    mode: Mode,
    role: Role,
    /// Byte offset of the start tag (for errors).
    start: usize,
}

enum Open {
    Frame(Frame),
    /// A mark element; `at` is how many nodes its frame held when it opened (none more: it was empty).
    Mark {
        at: usize,
    },
    /// `tbody`/`thead`/`tfoot`: its rows go into the table, each knowing its section.
    Section {
        name: &'static str,
        rows_at: usize,
    },
}

struct Parser<'a> {
    input: &'a str,
    xml: Reader<&'a [u8]>,
    stack: Vec<Open>,
    text: String,
    /// Content buffers of closed frames, kept for the next frames to fill: a frame's nodes then move
    /// into one vector of their exact number when it closes, instead of growing one of their own.
    spare: Vec<Vec<Node>>,
    /// An image read as the first thing in a `<p>` (the depth of the paragraph's frame, the image as
    /// read): if it stays the paragraph's only content, the paragraph is a block image (see
    /// [`images::in_paragraph`]).
    lone_image: Option<(usize, Box<Image>)>,
}

/// Root blocks kept back when the others are handed on: a layout reads the block before it.
const KEPT: usize = 1;
/// Root blocks gathered before they are handed on.
const RUN: usize = 64;

pub(super) fn read(input: &str, each: &mut dyn FnMut(Vec<Node>)) -> Result<Read, Error> {
    // A byte order mark is no text. quick-xml steps over one at the start in its positions but not in
    // the spans `read_to_end` gives, and slices of the input taken from both would cut a character. All
    // go: after the first, quick-xml would step over the next one as well.
    let input = input.trim_start_matches('\u{feff}');
    let mut xml = Reader::from_str(input);
    let config = xml.config_mut();
    config.check_end_names = true;
    config.allow_dangling_amp = true;
    let doc = Frame {
        kind: NodeType::Doc,
        attrs: None,
        content: Vec::new(),
        marks: Vec::new(),
        mode: Mode::Block,
        role: Role::Doc,
        start: 0,
    };
    let mut parser = Parser {
        input,
        xml,
        stack: vec![Open::Frame(doc)],
        text: String::new(),
        spare: Vec::new(),
        lone_image: None,
    };
    parser.run(each)?;
    let Some(Open::Frame(doc)) = parser.stack.pop() else {
        unreachable!("the document frame stays at the bottom")
    };
    Ok(Read {
        doc: Node::doc(doc.content),
        warnings: Vec::new(),
    })
}

impl<'a> Parser<'a> {
    fn run(&mut self, each: &mut dyn FnMut(Vec<Node>)) -> Result<(), Error> {
        loop {
            if self.stack.len() == 1 && self.text.is_empty() {
                let doc = self.frame();
                if doc.content.len() >= RUN + KEPT {
                    let n = doc.content.len() - KEPT;
                    each(doc.content.drain(..n).collect());
                }
            }
            let pos = self.xml.buffer_position() as usize;
            let event = match self.xml.read_event() {
                Ok(event) => event,
                Err(e) => return Err(self.xml_error(e)),
            };
            match event {
                Event::Start(e) => self.start(&e, false, pos)?,
                Event::Empty(e) => self.start(&e, true, pos)?,
                Event::End(_) => self.end()?,
                Event::Text(t) => self.text.push_str(&t),
                Event::CData(t) => self.text.push_str(&t),
                Event::GeneralRef(r) => {
                    let text = entities::reference(&r).map_err(|m| self.error(pos, m))?;
                    self.text.push_str(&text);
                }
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) | Event::DocType(_) => {
                    let raw = &self.input[pos..self.xml.buffer_position() as usize];
                    self.neutral(raw_node(raw));
                }
                Event::Eof => break,
            }
        }
        self.flush_text(None);
        self.close_implicit();
        if self.stack.len() > 1 {
            let start = self.innermost_start();
            let name = element_name_at(self.input, start);
            return Err(self.error(start, format!("<{name}> is not closed")));
        }
        Ok(())
    }

    // ---- places and errors ----

    fn error(&self, offset: usize, message: impl Into<String>) -> Error {
        Error::at(self.input.as_bytes(), offset, message)
    }

    fn xml_error(&self, e: quick_xml::Error) -> Error {
        self.error(
            self.xml.error_position() as usize,
            format!("invalid XML: {e}"),
        )
    }

    fn innermost_start(&self) -> usize {
        self.stack
            .iter()
            .rev()
            .find_map(|o| match o {
                Open::Frame(f) if !matches!(f.role, Role::Implicit) => Some(f.start),
                _ => None,
            })
            .unwrap_or(0)
    }

    // ---- the stack ----

    fn frame(&mut self) -> &mut Frame {
        for open in self.stack.iter_mut().rev() {
            if let Open::Frame(f) = open {
                return f;
            }
        }
        unreachable!("the document frame stays at the bottom")
    }

    fn frame_ref(&self) -> &Frame {
        for open in self.stack.iter().rev() {
            if let Open::Frame(f) = open {
                return f;
            }
        }
        unreachable!("the document frame stays at the bottom")
    }

    /// The frame's role when that frame is the top of the stack (no mark or section above it).
    fn top_role(&self) -> Option<&Role> {
        match self.stack.last() {
            Some(Open::Frame(f)) => Some(&f.role),
            _ => None,
        }
    }

    fn push(&mut self, open: Open, pos: usize) -> Result<(), Error> {
        if self.stack.len() > MAX_DEPTH {
            let name = element_name_at(self.input, pos);
            return Err(self.error(
                pos,
                format!("<{name}> is nested deeper than {MAX_DEPTH} elements"),
            ));
        }
        self.stack.push(open);
        Ok(())
    }

    fn push_frame(
        &mut self,
        kind: NodeType,
        attrs: Option<Attrs>,
        mode: Mode,
        role: Role,
        pos: usize,
    ) -> Result<(), Error> {
        let frame = Frame {
            kind,
            attrs,
            content: self.buffer(),
            marks: Vec::new(),
            mode,
            role,
            start: pos,
        };
        self.push(Open::Frame(frame), pos)
    }

    /// A content buffer for a new frame (a spare one, if a closed frame left one).
    fn buffer(&mut self) -> Vec<Node> {
        self.spare.pop().unwrap_or_default()
    }

    /// A closed frame's nodes in a vector of their exact number; the buffer goes back to the spares
    /// (unless it grew large: a big table's room is not kept for good).
    fn exact(&mut self, mut buffer: Vec<Node>) -> Vec<Node> {
        let mut nodes = Vec::with_capacity(buffer.len());
        nodes.append(&mut buffer);
        if buffer.capacity() <= 1024 {
            self.spare.push(buffer);
        }
        nodes
    }

    /// Adds a finished node to the open frame, under the marks open there.
    fn push_node(&mut self, mut node: Node) {
        let frame = self.frame();
        if !frame.marks.is_empty() {
            let mut marks = frame.marks.clone();
            marks.extend(node.marks.take().unwrap_or_default());
            node.marks = Some(marks);
        }
        frame.content.push(node);
    }

    /// A node that neither opens nor closes an implicit paragraph (a comment, a processing instruction).
    fn neutral(&mut self, node: Node) {
        self.flush_text(Some(false));
        self.push_node(node);
    }

    // ---- text and implicit paragraphs ----

    /// Turns the pending text into a text node. `next_inline` says what comes next: inline content
    /// (`Some(true)`), a block (`Some(false)`) or the end of the element (`None`); whitespace-only text
    /// before a block or an end, in block or element context, is formatting and goes.
    fn flush_text(&mut self, next_inline: Option<bool>) {
        if self.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.text);
        let blank = text.bytes().all(|b| b.is_ascii_whitespace());
        let mode = self.frame_ref().mode;
        match mode {
            Mode::Inline => {}
            Mode::Elements if blank => return,
            Mode::Elements => {}
            Mode::Block if blank && next_inline != Some(true) => return,
            Mode::Block => self.open_implicit(),
        }
        self.push_node(Node::text(text));
    }

    fn open_implicit(&mut self) {
        let attrs = implicit_attrs();
        let start = self.xml.buffer_position() as usize;
        let frame = Frame {
            kind: NodeType::Paragraph,
            attrs: Some(attrs),
            content: self.buffer(),
            marks: Vec::new(),
            mode: Mode::Inline,
            role: Role::Implicit,
            start,
        };
        // An implicit paragraph is no element: it does not count toward the nesting cap.
        self.stack.push(Open::Frame(frame));
    }

    fn close_implicit(&mut self) {
        if matches!(self.top_role(), Some(Role::Implicit)) {
            let Some(Open::Frame(f)) = self.stack.pop() else {
                unreachable!()
            };
            let content = self.exact(f.content);
            let mut node = Node::with_content(f.kind, content);
            node.attrs = f.attrs;
            self.push_node(node);
        }
    }

    /// Prepares the stack for an element: in block context an inline element opens (or continues) an
    /// implicit paragraph and a block element closes it.
    fn before_element(&mut self, inline: bool) {
        self.flush_text(Some(inline));
        let in_block = matches!(self.stack.last(), Some(Open::Frame(f)) if f.mode == Mode::Block);
        if inline && in_block {
            self.open_implicit();
        } else if !inline && matches!(self.top_role(), Some(Role::Implicit)) {
            self.close_implicit();
        }
    }

    // ---- elements ----

    fn attributes(&self, e: &BytesStart, pos: usize) -> Result<AttrList, Error> {
        let mut list = AttrList::new();
        for attr in e.attributes() {
            let attr = attr.map_err(|err| self.error(pos, format!("invalid attribute: {err}")))?;
            let value = entities::unescape(&attr.value).map_err(|m| self.error(pos, m))?;
            list.push((attr.key.as_ref().to_string(), value.into_owned()));
        }
        Ok(list)
    }

    /// Reads the rest of an element opened by `e` verbatim (its end tag included) and returns the slice
    /// from its start tag to its end, and the slice of what is between the tags.
    fn capture(
        &mut self,
        e: &BytesStart,
        empty: bool,
        pos: usize,
    ) -> Result<(&'a str, &'a str), Error> {
        let input = self.input;
        if empty {
            let end = self.xml.buffer_position() as usize;
            return Ok((&input[pos..end], &input[end..end]));
        }
        let inner_start = self.xml.buffer_position() as usize;
        let span = match self.xml.read_to_end(e.name()) {
            Ok(span) => span,
            Err(err) => return Err(self.xml_error(err)),
        };
        let end = self.xml.buffer_position() as usize;
        let inner_end = (span.end as usize).clamp(inner_start, end);
        Ok((&input[pos..end], &input[inner_start..inner_end]))
    }

    /// The text of a captured element's inside, or `None` when it holds elements.
    fn capture_text(
        &mut self,
        e: &BytesStart,
        empty: bool,
        pos: usize,
    ) -> Result<(&'a str, Option<String>), Error> {
        let (raw, inner) = self.capture(e, empty, pos)?;
        let base = offset_in(self.input, inner);
        let text = text_content(inner).map_err(|(off, m)| self.error(base + off, m))?;
        Ok((raw, text))
    }

    fn start(&mut self, e: &BytesStart, empty: bool, pos: usize) -> Result<(), Error> {
        let qname = e.name();
        let name: &str = qname.as_ref();
        if self.special_child(name, e, empty, pos)? {
            return Ok(());
        }
        let attrs = self.attributes(e, pos)?;

        // Confluence Cloud's smart link (see `cards`).
        if name == "a" && !empty {
            let in_block =
                matches!(self.stack.last(), Some(Open::Frame(f)) if f.mode == Mode::Block);
            let after = &self.input[(self.xml.buffer_position() as usize).min(self.input.len())..];
            let marked = !self.frame_ref().marks.is_empty();
            if let Some(card) = cards::read(&attrs, after, in_block, marked) {
                self.capture(e, false, pos)?;
                self.before_element(card.kind == NodeType::InlineCard);
                self.push_node(card);
                return Ok(());
            }
        }
        if let Some(mark) = mark_for(name, &attrs) {
            self.before_element(true);
            let at = self.frame_ref().content.len();
            self.frame().marks.push(mark);
            self.push(Open::Mark { at }, pos)?;
            if empty {
                self.end()?;
            }
            return Ok(());
        }

        let inline = is_inline(name, &attrs);
        // Leaves that are whole in one empty tag.
        if empty {
            let leaf = match name {
                "ac:emoticon" => Some(links::emoji(attrs.clone())),
                "time" => links::date(&attrs),
                "br" if attrs.is_empty() => Some(Node::new(NodeType::HardBreak)),
                "hr" if attrs.is_empty() => Some(Node::new(NodeType::Rule)),
                _ => None,
            };
            if let Some(node) = leaf {
                self.before_element(inline);
                self.push_node(node);
                return Ok(());
            }
        }
        if name == "ac:placeholder" {
            self.before_element(true);
            let (raw, text) = self.capture_text(e, empty, pos)?;
            let node = match text {
                Some(text) => {
                    let mut node = Node::new(NodeType::Placeholder);
                    node.set_attr("text", text);
                    put_attrs(&mut node, storage_attrs(attrs));
                    node
                }
                None => raw_node(raw),
            };
            self.push_node(node);
            return Ok(());
        }

        self.before_element(inline);
        let block_context = self.frame_ref().mode == Mode::Block;
        let (kind, node_attrs, mode, role) = match name {
            "p" => (
                NodeType::Paragraph,
                mapped_attrs("p", attrs),
                Mode::Inline,
                Role::Node,
            ),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let mut a = mapped_attrs(name, attrs).unwrap_or_default();
                a.insert("level", Value::from(name.as_bytes()[1] - b'0'));
                (NodeType::Heading, Some(a), Mode::Inline, Role::Node)
            }
            "ul" => (
                NodeType::BulletList,
                mapped_attrs("ul", attrs),
                Mode::Elements,
                Role::Node,
            ),
            "ol" => (
                NodeType::OrderedList,
                Some(ordered_list_attrs(attrs)),
                Mode::Elements,
                Role::Node,
            ),
            "li" => (
                NodeType::ListItem,
                mapped_attrs("li", attrs),
                Mode::Block,
                Role::Node,
            ),
            "blockquote" => (
                NodeType::Blockquote,
                mapped_attrs("blockquote", attrs),
                Mode::Block,
                Role::Node,
            ),
            "hr" => (
                NodeType::Rule,
                mapped_attrs("hr", attrs),
                Mode::Elements,
                Role::Node,
            ),
            "br" => (
                NodeType::HardBreak,
                storage_attrs(attrs),
                Mode::Inline,
                Role::Node,
            ),
            "pre" => {
                let mut a = storage_attrs(attrs).unwrap_or_default();
                storage_of(&mut a).insert("tag".into(), "pre".into());
                (NodeType::CodeBlock, Some(a), Mode::Inline, Role::Node)
            }
            "table" => (
                NodeType::Table,
                Some(table_attrs(attrs)),
                Mode::Elements,
                Role::Node,
            ),
            "tr" => {
                let section = match self.stack.last() {
                    Some(Open::Section { name, .. }) => Some(*name),
                    Some(Open::Frame(f)) if f.kind == NodeType::Table => Some("none"),
                    _ => None,
                };
                let mut a = mapped_attrs("tr", attrs);
                if let Some(section) = section.filter(|s| *s != "tbody") {
                    storage_of(a.get_or_insert_with(Attrs::new))
                        .insert("section".into(), section.into());
                }
                (NodeType::TableRow, a, Mode::Elements, Role::Node)
            }
            // Cells and tables get the attributes Atlassian's own documents carry (cells `{}`, tables
            // `isNumberColumnEnabled: false`), which the Markdown reader infers: their Markdown then needs no
            // marker. Storage has no form for them, so the writer leaves them out.
            "th" => (
                NodeType::TableHeader,
                Some(mapped_attrs("th", attrs).unwrap_or_default()),
                Mode::Block,
                Role::Node,
            ),
            "td" => (
                NodeType::TableCell,
                Some(mapped_attrs("td", attrs).unwrap_or_default()),
                Mode::Block,
                Role::Node,
            ),
            "ac:structured-macro" => {
                let m = Macro::open(attrs, !block_context, empty);
                (
                    NodeType::Extension,
                    None,
                    Mode::Elements,
                    Role::Macro(Box::new(m)),
                )
            }
            "ac:link" => {
                let l = Link {
                    attrs,
                    ..Default::default()
                };
                (
                    NodeType::Mention,
                    None,
                    Mode::Elements,
                    Role::Link(Box::new(l)),
                )
            }
            "ac:image" => {
                let i = Image {
                    attrs,
                    inline: !block_context,
                    ..Default::default()
                };
                (
                    NodeType::MediaSingle,
                    None,
                    Mode::Elements,
                    Role::Image(Box::new(i)),
                )
            }
            "ac:task-list" => (
                NodeType::TaskList,
                Some(with_default(storage_attrs(attrs), "localId", "")),
                Mode::Elements,
                Role::Node,
            ),
            "ac:task" if attrs.is_empty() => (
                NodeType::TaskItem,
                None,
                Mode::Elements,
                Role::Task(Box::default()),
            ),
            "ac:layout" if attrs.is_empty() => {
                (NodeType::LayoutSection, None, Mode::Elements, Role::Layout)
            }
            "ac:layout-section" => (
                NodeType::LayoutSection,
                super::layouts::open_attrs(attrs),
                Mode::Elements,
                Role::Node,
            ),
            "ac:layout-cell" => (
                NodeType::LayoutColumn,
                storage_attrs(attrs),
                Mode::Block,
                Role::Node,
            ),
            _ => {
                let mode = if block_context && !inline {
                    Mode::Block
                } else {
                    Mode::Inline
                };
                let a = element_attrs(name, attrs);
                (NodeType::Other(ELEMENT.into()), Some(a), mode, Role::Node)
            }
        };
        self.push_frame(kind, node_attrs, mode, role, pos)?;
        if empty {
            self.end()?;
        }
        Ok(())
    }

    /// Children that only mean something inside a macro, a link, an image, a task or a table.
    fn special_child(
        &mut self,
        name: &str,
        e: &BytesStart,
        empty: bool,
        pos: usize,
    ) -> Result<bool, Error> {
        enum Parent {
            Macro,
            Link,
            Image,
            Task,
            Table,
        }
        let parent = match self.stack.last() {
            Some(Open::Frame(f)) => match &f.role {
                Role::Macro(_) => Parent::Macro,
                Role::Link(_) => Parent::Link,
                Role::Image(_) => Parent::Image,
                Role::Task(_) => Parent::Task,
                Role::Node if f.kind == NodeType::Table => Parent::Table,
                _ => return Ok(false),
            },
            _ => return Ok(false),
        };
        // These parents hold elements only: text between their children is formatting (or, when it is not
        // blank, a child of its own that the writer puts back).
        self.flush_text(Some(false));
        match (parent, name) {
            (Parent::Macro, "ac:parameter") => {
                let attrs = self.attributes(e, pos)?;
                if !attrs.iter().any(|(k, _)| k == "ac:name") {
                    return Ok(false);
                }
                let (_, inner) = self.capture(e, empty, pos)?;
                let base = offset_in(self.input, inner);
                let text = text_content(inner).map_err(|(off, m)| self.error(base + off, m))?;
                let param = Param::new(attrs, inner, text);
                self.with_macro(|m| m.params.push(param));
            }
            (Parent::Macro, "ac:plain-text-body") if e.attributes().next().is_none() => {
                let (raw, text) = self.capture_text(e, empty, pos)?;
                match text {
                    Some(text) if self.with_macro(|m| m.plain.is_none()) => {
                        self.with_macro(|m| m.plain = Some(text))
                    }
                    _ => self.with_macro(|m| m.extra.push(raw.to_string())),
                }
            }
            (Parent::Macro, "ac:rich-text-body")
                if e.attributes().next().is_none() && self.with_macro(|m| m.rich.is_none()) =>
            {
                self.push_frame(NodeType::Doc, None, Mode::Block, Role::MacroBody, pos)?;
                if empty {
                    self.end()?;
                }
            }
            (Parent::Link | Parent::Image, n) if n.starts_with("ri:") && self.ri_free() => {
                let attrs = self.attributes(e, pos)?;
                let (_, inner) = self.capture(e, empty, pos)?;
                let ri = Ri {
                    name: n.to_string(),
                    attrs,
                    inner: (!empty).then(|| inner.to_string()),
                };
                match self.frame().role {
                    Role::Link(ref mut l) => {
                        l.ri_last = !matches!(l.body, LinkBody::None);
                        l.ri = Some(ri);
                    }
                    Role::Image(ref mut i) => i.ri = Some(ri),
                    _ => unreachable!(),
                }
            }
            (Parent::Link, "ac:plain-text-link-body")
                if e.attributes().next().is_none() && self.link_body_free() =>
            {
                let (raw, text) = self.capture_text(e, empty, pos)?;
                let Role::Link(ref mut l) = self.frame().role else {
                    unreachable!()
                };
                match text {
                    Some(text) => l.body = LinkBody::Plain(text),
                    None => l.extra.push(raw.to_string()),
                }
            }
            (Parent::Link, "ac:link-body")
                if e.attributes().next().is_none() && self.link_body_free() =>
            {
                self.push_frame(NodeType::Doc, None, Mode::Inline, Role::LinkBody, pos)?;
                if empty {
                    self.end()?;
                }
            }
            (Parent::Image, "ac:caption") if e.attributes().next().is_none() => {
                self.push_frame(NodeType::Caption, None, Mode::Inline, Role::Caption, pos)?;
                if empty {
                    self.end()?;
                }
            }
            (Parent::Task, "ac:task-id" | "ac:task-uuid" | "ac:task-status")
                if e.attributes().next().is_none() =>
            {
                let (raw, text) = self.capture_text(e, empty, pos)?;
                let Role::Task(ref mut t) = self.frame().role else {
                    unreachable!()
                };
                let slot = match name {
                    "ac:task-id" => &mut t.id,
                    "ac:task-uuid" => &mut t.uuid,
                    _ => &mut t.status,
                };
                match text {
                    Some(text) if slot.is_none() => *slot = Some(text),
                    _ => t.extra.push(raw.to_string()),
                }
            }
            (Parent::Task, "ac:task-body") if e.attributes().next().is_none() => {
                self.push_frame(NodeType::Doc, None, Mode::Inline, Role::TaskBody, pos)?;
                if empty {
                    self.end()?;
                }
            }
            (Parent::Table, "tbody" | "thead" | "tfoot")
                if e.attributes().next().is_none() && !empty =>
            {
                let name = match name {
                    "tbody" => "tbody",
                    "thead" => "thead",
                    _ => "tfoot",
                };
                let rows_at = self.frame_ref().content.len();
                self.push(Open::Section { name, rows_at }, pos)?;
            }
            (Parent::Table, "colgroup") if self.frame_ref().content.is_empty() => {
                let (raw, _) = self.capture(e, empty, pos)?;
                let frame = self.frame();
                let storage = storage_of(frame.attrs.get_or_insert_with(Attrs::new));
                // A table may have several: kept one after the other, as they were.
                match storage.get_mut("colgroup") {
                    Some(Value::String(kept)) => kept.push_str(raw),
                    _ => {
                        storage.insert("colgroup".into(), raw.into());
                    }
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn with_macro<T>(&mut self, f: impl FnOnce(&mut Macro) -> T) -> T {
        match self.frame().role {
            Role::Macro(ref mut m) => f(m),
            _ => unreachable!("called inside a macro"),
        }
    }

    fn ri_free(&self) -> bool {
        match &self.frame_ref().role {
            // Before the body or after it (some pages' links hold them the other way round).
            Role::Link(l) => l.ri.is_none() && l.extra.is_empty(),
            Role::Image(i) => i.ri.is_none(),
            _ => false,
        }
    }

    fn link_body_free(&self) -> bool {
        matches!(&self.frame_ref().role, Role::Link(l) if matches!(l.body, LinkBody::None) && l.extra.is_empty())
    }

    fn end(&mut self) -> Result<(), Error> {
        self.flush_text(None);
        self.close_implicit();
        let Some(open) = self.stack.pop() else {
            unreachable!("quick-xml matches end tags")
        };
        match open {
            Open::Mark { at } => {
                if self.frame_ref().content.len() == at {
                    // An empty mark element: an empty text node carries it.
                    self.push_node(Node::text(""));
                }
                self.frame().marks.pop();
            }
            Open::Section { name, rows_at } => {
                if self.frame_ref().content.len() == rows_at {
                    // An empty section has no row to remember it: it stays an element of its own.
                    let mut node = Node::with_content(NodeType::Other(ELEMENT.into()), Vec::new());
                    node.set_attr("name", name);
                    self.push_node(node);
                }
            }
            Open::Frame(frame) => self.finish(frame)?,
        }
        Ok(())
    }

    fn finish(&mut self, f: Frame) -> Result<(), Error> {
        let Frame {
            kind,
            attrs,
            content,
            role,
            ..
        } = f;
        let content = self.exact(content);
        match role {
            Role::Doc | Role::Implicit => unreachable!("closed elsewhere"),
            Role::Node => {
                let mut attrs = attrs;
                let mut content = match kind {
                    NodeType::CodeBlock => super::pre::read(&mut attrs, content),
                    _ => content,
                };
                // A paragraph of nothing but an image (how Data Center stores a block image) is that
                // image as a block.
                let lone = match self.lone_image.take() {
                    Some((depth, i)) if depth == self.stack.len() + 1 => Some(i),
                    _ => None,
                };
                if let Some(i) = lone.filter(|_| {
                    kind == NodeType::Paragraph && attrs.is_none() && content.len() == 1
                }) {
                    self.push_node(images::in_paragraph(*i));
                    return Ok(());
                }
                let mut node = Node::new(kind);
                node.attrs = attrs;
                // An empty paragraph or heading (`<p />`, in every empty cell of a Confluence table) has
                // no content, as Markdown's empty cell or `##` reads: `content: []` would be a marker.
                let none_when_empty = matches!(
                    node.kind,
                    NodeType::Rule | NodeType::HardBreak | NodeType::Paragraph | NodeType::Heading
                );
                if !(none_when_empty && content.is_empty()) {
                    content.shrink_to_fit();
                    node.content = Some(content);
                }
                super::cursor::read(&mut node);
                super::block_marks::read(&mut node, &self.frame_ref().kind);
                if node.kind == NodeType::Table {
                    super::wrapped::read(&mut node);
                    super::columns::read(&mut node);
                }
                super::bare::read(&mut node);
                if node.kind == NodeType::LayoutSection {
                    super::layouts::read(&mut node);
                }
                if self.frame_ref().mode == Mode::Block {
                    let write = |n: &[Node]| super::write::nodes(n);
                    node = super::adf_extension::read(&node, &write).unwrap_or(node);
                }
                self.push_node(node);
            }
            Role::MacroBody => self.with_macro(|m| m.rich = Some(content)),
            Role::LinkBody => {
                let Role::Link(ref mut l) = self.frame().role else {
                    unreachable!()
                };
                l.body = LinkBody::Rich(content);
            }
            Role::Caption => {
                let Role::Image(ref mut i) = self.frame().role else {
                    unreachable!()
                };
                if i.caption.is_none() {
                    i.caption = Some(content);
                } else {
                    i.extra.push(super::write::caption(&content));
                }
            }
            Role::TaskBody => {
                let Role::Task(ref mut t) = self.frame().role else {
                    unreachable!()
                };
                if t.body.is_none() {
                    t.body = Some(content);
                } else {
                    let mut raw = String::from("<ac:task-body>");
                    raw.push_str(&super::write::nodes(&content));
                    raw.push_str("</ac:task-body>");
                    t.extra.push(raw);
                }
            }
            Role::Macro(mut m) => {
                m.extra.extend(
                    content
                        .iter()
                        .map(|n| super::write::nodes(std::slice::from_ref(n))),
                );
                let node = macros::finish(*m);
                self.push_node(node);
            }
            Role::Link(mut l) => {
                l.extra.extend(
                    content
                        .iter()
                        .map(|n| super::write::nodes(std::slice::from_ref(n))),
                );
                let nodes = links::finish_link(*l, self.frame_ref().content.last());
                for node in nodes {
                    self.push_node(node);
                }
            }
            Role::Image(mut i) => {
                i.extra.extend(
                    content
                        .iter()
                        .map(|n| super::write::nodes(std::slice::from_ref(n))),
                );
                let parent = self.frame_ref();
                let first_in_p = i.inline
                    && parent.kind == NodeType::Paragraph
                    && parent.content.is_empty()
                    && parent.marks.is_empty()
                    && parent.attrs.is_none();
                if first_in_p {
                    self.lone_image = Some((self.stack.len(), i.clone()));
                }
                self.push_node(images::finish_image(*i));
            }
            Role::Task(mut t) => {
                t.extra.extend(
                    content
                        .iter()
                        .map(|n| super::write::nodes(std::slice::from_ref(n))),
                );
                self.push_node(links::finish_task(*t));
            }
            Role::Layout => {
                let after = self.frame_ref().content.last();
                let follows_section = after.is_some_and(super::layouts::section_without_elements);
                for node in super::layouts::layout(content, follows_section) {
                    self.push_node(node);
                }
            }
        }
        Ok(())
    }
}

pub(super) fn raw_node(raw: &str) -> Node {
    let mut node = Node::new(NodeType::Other(RAW.into()));
    node.set_attr("xml", raw);
    node
}
