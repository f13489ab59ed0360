//! The writer: the model back to storage format. Each node is written from its ADF attributes, with what
//! its `storage` attribute kept (another element name, unknown attributes, a macro's ids) put back; marks
//! on a run of siblings become nested mark elements, opened and closed as the marks change.

use std::borrow::Cow;

use serde_json::Value;

use super::adf_extension;
use super::attrs::{in_order, storage, storage_flag, ORDER};
use super::bare;
use super::block_marks;
use super::columns;
use super::cursor;
use super::elements::{self, mapped};
use super::entities;
use super::images;
use super::layouts;
use super::links::{self, push_attr, LinkText, OpenLink};
use super::macros;
use super::pre;
use super::spans;
use super::wrapped;
use super::xml_out::Out;
use super::{ELEMENT, RAW};
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};

pub(super) fn write(node: &Node) -> String {
    let mut w = Writer { out: String::new() };
    if node.kind == NodeType::Doc {
        w.children(node.children());
    } else {
        w.children(std::slice::from_ref(node));
    }
    w.out
}

/// Nodes as storage format (the reader keeps odd children of macros and links this way).
pub(super) fn nodes(nodes: &[Node]) -> String {
    let mut w = Writer { out: String::new() };
    w.children(nodes);
    w.out
}

/// [`write`] of a document a run of root blocks at a time: the same text, each block written as soon as
/// nothing open at it (a mark it shares with the next block, an `ac:layout` of sections) can span into
/// the blocks after it. Those it cannot write yet it holds.
pub struct BlockWriter {
    w: Writer,
    held: Vec<Node>,
}

impl Default for BlockWriter {
    fn default() -> Self {
        BlockWriter {
            w: Writer { out: String::new() },
            held: Vec::new(),
        }
    }
}

impl BlockWriter {
    /// Writes `blocks` (root blocks after those given before) and the blocks held back, up to the last
    /// that nothing joins to the next.
    pub fn run(&mut self, blocks: Vec<Node>) {
        let checked = self.held.len().max(1);
        self.held.extend(blocks);
        let cut = (checked..self.held.len())
            .rev()
            .find(|&i| separable(&self.held[i - 1], &self.held[i]));
        if let Some(cut) = cut {
            let rest = self.held.split_off(cut);
            self.w.children(&std::mem::replace(&mut self.held, rest));
        }
    }

    /// Writes the text written so far to `out` and forgets it: [`BlockWriter::finish`] then gives what
    /// follows it.
    pub fn drain_to(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(self.w.out.as_bytes())?;
        self.w.out.clear();
        Ok(())
    }

    /// The text: the blocks written, those held back, then `doc`'s content (a `doc`'s, whose other
    /// members storage format does not write).
    pub fn finish(mut self, mut doc: Node) -> String {
        self.held.extend(doc.content.take().unwrap_or_default());
        self.w.children(&self.held);
        self.w.out
    }
}

/// Whether [`Writer::children`] writes root blocks `a` then `b` as it writes `[.., a]` and `[b, ..]` one
/// after the other: no mark stays open from one into the next, no `ac:layout` holds both, and an
/// `ac:layout` around `a` is not closed before marks that close after it.
fn separable(a: &Node, b: &Node) -> bool {
    let (a_marks, b_marks) = (element_marks(a), element_marks(b));
    if a_marks
        .first()
        .is_some_and(|(_, m)| b_marks.first().is_some_and(|(_, n)| n == m))
    {
        return false;
    }
    let section = |n: &Node| n.kind == NodeType::LayoutSection;
    !(section(a) && (!a_marks.is_empty() || section(b) && b_marks.is_empty() && !new_layout(b)))
}

/// The marks of a node written as elements around it, with their places in its marks: not those written
/// as nothing or in the node's own element (alignment, indentation, breakout), so that they neither
/// close and open the elements of the marks around them nor part an `ac:layout`.
fn element_marks(node: &Node) -> Vec<(usize, &Mark)> {
    let element = |m: &Mark| {
        m.kind == MarkType::Link || spans::style(m).is_some() || mark_tag(&m.kind, m).is_some()
    };
    node.mark_list()
        .iter()
        .enumerate()
        .filter(|(_, m)| element(m))
        .collect()
}

/// Whether a layout section starts an `ac:layout` of its own, even right after another section.
fn new_layout(node: &Node) -> bool {
    storage_flag(node.attrs.as_ref(), "newLayout")
}

pub(super) fn caption(content: &[Node]) -> String {
    let mut w = Writer {
        out: String::from("<ac:caption>"),
    };
    w.children(content);
    w.out.push_str("</ac:caption>");
    w.out
}

pub(super) struct Writer {
    pub out: String,
}

impl Out for Writer {
    fn out(&mut self) -> &mut String {
        &mut self.out
    }

    fn children(&mut self, nodes: &[Node]) {
        Writer::children(self, nodes)
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Writer {
    /// Siblings: marks opened and closed as they change from one node to the next, consecutive layout
    /// sections inside one `ac:layout`.
    pub fn children(&mut self, nodes: &[Node]) {
        let mut open: Vec<(&Mark, Option<OpenLink>)> = Vec::new();
        let mut in_layout = false;
        let mut prev: Option<&Node> = None;
        for node in nodes {
            let marks = element_marks(node);
            let mut common = open
                .iter()
                .zip(&marks)
                .take_while(|((a, _), (_, b))| *a == *b)
                .count();
            // Two texts of the same marks are two elements of the innermost one (`<span style="…">a</span>
            // <span style="…">b</span>`, as editors leave them): the reader gives one text per element
            // and joins what one element holds, so only a page that closed and reopened it gives two.
            if common > 0
                && common == marks.len()
                && node.kind == NodeType::Text
                && prev
                    .is_some_and(|p| p.kind == NodeType::Text && p.mark_list() == node.mark_list())
            {
                common -= 1;
            }
            prev = Some(node);
            while open.len() > common {
                let (mark, how) = open.pop().expect("longer than common");
                self.close_mark(mark, how.as_ref());
            }
            let is_section = node.kind == NodeType::LayoutSection;
            let new_layout = is_section && new_layout(node);
            if in_layout && (!is_section || new_layout || common < marks.len()) {
                self.out.push_str("</ac:layout>");
                in_layout = false;
            }
            for &(at, mark) in marks.iter().skip(common) {
                let how = self.open_mark(mark, node, at);
                open.push((mark, how));
            }
            if is_section && !in_layout {
                self.out.push_str("<ac:layout>");
                in_layout = true;
            }
            let how = open
                .last()
                .and_then(|(_, how)| how.as_ref().map(|h| h.text.clone()));
            self.node(node, how.as_ref());
        }
        if in_layout {
            self.out.push_str("</ac:layout>");
        }
        while let Some((mark, how)) = open.pop() {
            self.close_mark(mark, how.as_ref());
        }
    }

    fn node(&mut self, node: &Node, link: Option<&LinkText>) {
        let st = storage(node.attrs.as_ref());
        let tag_override = st.and_then(|s| s.get("tag")).and_then(Value::as_str);
        match &node.kind {
            NodeType::Text => {
                let text = node.text.as_deref().unwrap_or("");
                match link {
                    Some(LinkText::Cdata) if !text.is_empty() => {
                        entities::push_cdata(&mut self.out, text)
                    }
                    Some(LinkText::Hidden(title)) if title == text => {}
                    _ => entities::push_text(&mut self.out, text),
                }
            }
            NodeType::Paragraph => {
                if storage_flag(node.attrs.as_ref(), "implicit") {
                    self.children(node.children());
                } else {
                    match cursor::write_form(node) {
                        Some(p) => self.element("p", &p),
                        None => self.element("p", node),
                    }
                }
            }
            NodeType::Heading => {
                let level = node
                    .attr("level")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .clamp(1, 6);
                self.element(&format!("h{level}"), node);
            }
            NodeType::BulletList | NodeType::OrderedList => {
                let tag = if node.kind == NodeType::BulletList {
                    "ul"
                } else {
                    "ol"
                };
                match bare::write_form(node) {
                    Some(bare) => self.element(tag, &bare),
                    None => self.element(tag, node),
                }
            }
            NodeType::ListItem => self.element("li", node),
            NodeType::Blockquote => self.element("blockquote", node),
            NodeType::Rule => self.element("hr", node),
            NodeType::HardBreak => self.element("br", node),
            NodeType::CodeBlock if tag_override == Some("pre") => self.pre(node),
            NodeType::Table => {
                // What the table says of its cells, given back to them (each its own, see each).
                let mut form = Cow::Borrowed(node);
                for given in [bare::write_form, columns::write_form, wrapped::write_form] {
                    if let Some(table) = given(&form) {
                        form = Cow::Owned(table);
                    }
                }
                self.table(&form)
            }
            NodeType::TableRow => self.element("tr", node),
            NodeType::TableHeader => self.element("th", node),
            NodeType::TableCell => self.element("td", node),
            NodeType::Panel | NodeType::DecisionList | NodeType::DecisionItem
                if adf_extension::is_adf(node) =>
            {
                adf_extension::write(self, node)
            }
            NodeType::CodeBlock
            | NodeType::Panel
            | NodeType::Expand
            | NodeType::NestedExpand
            | NodeType::Status
            | NodeType::Extension
            | NodeType::BodiedExtension
            | NodeType::InlineExtension => macros::write(self, node),
            NodeType::Mention => links::write_mention(&mut self.out, node),
            NodeType::Emoji => links::write_emoji(&mut self.out, node),
            NodeType::Date => links::write_date(&mut self.out, node),
            NodeType::MediaSingle | NodeType::MediaInline | NodeType::Media => {
                images::write_image(self, node)
            }
            NodeType::TaskList | NodeType::DecisionList => self.element("ac:task-list", node),
            NodeType::TaskItem | NodeType::BlockTaskItem | NodeType::DecisionItem => {
                links::write_task(self, node)
            }
            NodeType::LayoutSection => {
                self.out.push_str("<ac:layout-section");
                for (k, v) in layouts::section_attrs(node) {
                    push_attr(&mut self.out, &k, &v);
                }
                self.close_start("ac:layout-section", node.content.as_deref());
            }
            NodeType::LayoutColumn => self.element("ac:layout-cell", node),
            NodeType::Placeholder => {
                self.out.push_str("<ac:placeholder");
                self.attrs_of("ac:placeholder", node);
                let text = node.attr("text").map(text_of).unwrap_or_default();
                self.close_start_text("ac:placeholder", &text);
            }
            NodeType::InlineCard | NodeType::BlockCard | NodeType::EmbedCard => {
                let url = node.attr("url").map(text_of).unwrap_or_default();
                self.out.push_str("<a");
                push_attr(&mut self.out, "href", &url);
                push_attr(
                    &mut self.out,
                    "data-card-appearance",
                    super::cards::appearance(&node.kind),
                );
                if node.kind != NodeType::InlineCard {
                    if let Some(layout) = node.attr_str("layout") {
                        push_attr(&mut self.out, "data-layout", layout);
                    }
                }
                // The attributes kept under `storage.attrs`.
                self.attrs_of("", node);
                self.close_start_text("a", &url);
            }
            NodeType::Other(name) if &**name == ELEMENT => {
                let tag = node
                    .attr("name")
                    .map(text_of)
                    .unwrap_or_else(|| "span".into());
                self.out.push('<');
                self.out.push_str(&tag);
                if let Some(attributes) = node.attr("attributes").and_then(Value::as_object) {
                    let list = in_order(attributes.iter().collect(), node.attr(ORDER), |(k, _)| k);
                    for (k, v) in list {
                        push_attr(&mut self.out, k, &text_of(v));
                    }
                }
                self.close_start(&tag, node.content.as_deref());
            }
            NodeType::Other(name) if &**name == RAW => {
                if let Some(xml) = node.attr_str("xml") {
                    self.out.push_str(xml);
                }
            }
            // Types storage format has no element for (a document read from ADF or Markdown): their
            // content is written, so no text is lost.
            _ => self.children(node.children()),
        }
    }

    /// `<tag attrs>children</tag>`, or `<tag attrs />` when there are no children.
    fn element(&mut self, tag: &str, node: &Node) {
        let tag = storage(node.attrs.as_ref())
            .and_then(|s| s.get("tag"))
            .and_then(Value::as_str)
            .unwrap_or(tag);
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs_of(tag, node);
        self.close_start(tag, node.content.as_deref());
    }

    /// A `codeBlock` that was a `<pre>`: its text straight in it, or in the `code` element it was in.
    fn pre(&mut self, node: &Node) {
        let Some(code) = pre::code_tag(node) else {
            return self.element("pre", node);
        };
        self.out.push_str("<pre");
        self.attrs_of("pre", node);
        self.out.push('>');
        self.out.push_str(&code);
        self.children(node.children());
        self.out.push_str("</code></pre>");
    }

    fn close_start(&mut self, tag: &str, content: Option<&[Node]>) {
        match content {
            Some(children) if !children.is_empty() => {
                self.out.push('>');
                self.children(children);
                self.out.push_str("</");
                self.out.push_str(tag);
                self.out.push('>');
            }
            _ => self.out.push_str(" />"),
        }
    }

    fn close_start_text(&mut self, tag: &str, text: &str) {
        if text.is_empty() {
            self.out.push_str(" />");
        } else {
            self.out.push('>');
            entities::push_text(&mut self.out, text);
            self.out.push_str("</");
            self.out.push_str(tag);
            self.out.push('>');
        }
    }

    /// The element's attributes: those its ADF attrs stand for, then those kept under `storage.attrs`.
    fn attrs_of(&mut self, tag: &str, node: &Node) {
        let style = block_marks::style(node);
        write_attrs(&mut self.out, tag, node.attrs.as_ref(), style.as_deref());
    }

    fn table(&mut self, node: &Node) {
        self.out.push_str("<table");
        self.attrs_of("table", node);
        let colgroup = columns::colgroup(node);
        if node.children().is_empty() && colgroup.is_none() {
            self.out.push_str(" />");
            return;
        }
        self.out.push('>');
        if let Some(colgroup) = colgroup {
            self.out.push_str(&colgroup);
        }
        let mut section: Option<&str> = None;
        for child in node.children() {
            let wanted = if child.kind == NodeType::TableRow {
                storage(child.attrs.as_ref())
                    .and_then(|s| s.get("section"))
                    .and_then(Value::as_str)
                    .unwrap_or("tbody")
            } else {
                "none"
            };
            if section != Some(wanted) {
                if let Some(open) = section.filter(|s| *s != "none") {
                    self.out.push_str("</");
                    self.out.push_str(open);
                    self.out.push('>');
                }
                if wanted != "none" {
                    self.out.push('<');
                    self.out.push_str(wanted);
                    self.out.push('>');
                }
                section = Some(wanted);
            }
            self.children(std::slice::from_ref(child));
        }
        if let Some(open) = section.filter(|s| *s != "none") {
            self.out.push_str("</");
            self.out.push_str(open);
            self.out.push('>');
        }
        self.out.push_str("</table>");
    }

    fn open_mark(&mut self, mark: &Mark, first: &Node, at: usize) -> Option<OpenLink> {
        let st = storage(mark.attrs.as_ref());
        let tag_override = st.and_then(|s| s.get("tag")).and_then(Value::as_str);
        if let Some(style) = spans::style(mark) {
            self.out.push_str("<span");
            push_attr(&mut self.out, "style", &style);
            self.out.push('>');
            return None;
        }
        let tag = match &mark.kind {
            MarkType::Link => {
                if let Some(how) = links::open_ac_link(&mut self.out, mark, first, at) {
                    return Some(how);
                }
                "a"
            }
            other => mark_tag(other, mark)?,
        };
        let tag = tag_override.unwrap_or(tag);
        self.out.push('<');
        self.out.push_str(tag);
        write_attrs(&mut self.out, tag, mark.attrs.as_ref(), None);
        self.out.push('>');
        None
    }

    fn close_mark(&mut self, mark: &Mark, how: Option<&OpenLink>) {
        if let Some(how) = how {
            links::close_ac_link(&mut self.out, mark, how);
            return;
        }
        if spans::style(mark).is_some() {
            self.out.push_str("</span>");
            return;
        }
        let st = storage(mark.attrs.as_ref());
        let tag = match &mark.kind {
            MarkType::Link => "a",
            other => match mark_tag(other, mark) {
                Some(tag) => tag,
                None => return,
            },
        };
        let tag = st
            .and_then(|s| s.get("tag"))
            .and_then(Value::as_str)
            .unwrap_or(tag);
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
    }
}

/// The element of a mark (`None`: a mark that is no element: alignment and indentation are the style of the
/// paragraph or heading they mark (`block_marks`), a section's breakout its attributes (`layouts`), and
/// storage format cannot say the others, such as a code block's breakout).
fn mark_tag<'a>(kind: &MarkType, mark: &'a Mark) -> Option<&'a str> {
    Some(match kind {
        MarkType::Strong => "strong",
        MarkType::Em => "em",
        MarkType::Underline => "u",
        MarkType::Strike => "s",
        MarkType::Code => "code",
        MarkType::Subsup => {
            if mark.attr_str("type") == Some("sub") {
                "sub"
            } else {
                "sup"
            }
        }
        MarkType::Annotation => "ac:inline-comment-marker",
        _ => return None,
    })
}

/// An element's attributes: those its ADF attrs stand for, then those kept under `storage.attrs`, among
/// which the `style` its block marks say (`style`: see `block_marks`), before a kept style if there is one.
fn write_attrs(out: &mut String, tag: &str, attrs: Option<&Attrs>, style: Option<&str>) {
    if let Some(attrs) = attrs {
        for (xml, adf, _) in mapped(tag) {
            if let Some(v) = attrs
                .get(adf)
                .filter(|v| !v.is_null() && !elements::implied(tag, adf, v, attrs))
            {
                push_attr(out, xml, &text_of(v));
            }
        }
    }
    let rest = storage(attrs)
        .and_then(|s| s.get("attrs"))
        .and_then(Value::as_object);
    let mut style = style;
    for (k, v) in rest.into_iter().flatten() {
        let v = text_of(v);
        match style.take() {
            Some(marks) if k == "style" => {
                push_attr(out, k, &format!("{marks} {v}"));
                continue;
            }
            Some(marks) if k.as_str() > "style" => push_attr(out, "style", marks),
            other => style = other,
        }
        push_attr(out, k, &v);
    }
    if let Some(marks) = style {
        push_attr(out, "style", marks);
    }
}
