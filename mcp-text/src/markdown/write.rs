//! The block writer: the model as CommonMark + GFM, with a marker only where a node holds more than its
//! Markdown shows.
//!
//! Everything goes to one `String`. Containers (block quotes, list items, panels) are prefixes that each
//! line gets (`> `, two spaces), with a list item's marker on its first line, so nothing is indented by
//! copying. A node the Markdown cannot show at all is one marker holding its JSON.

use serde_json::Value;

use super::forms;
use super::inline::{self, Place};
use super::marker::{self, Inf, Inferred};
use super::media::{card_ok, media_group_ok, media_single_ok};
use super::writer::{is_empty_paragraph, plain_inline_container, Parent, W};
use crate::model::{Node, NodeType};

/// Deeper than this (no reader produces such trees: they cap nesting at 512) the writer stops
/// descending, so that no tree overflows the stack.
const MAX_DEPTH: usize = 1200;

/// Where a sequence of blocks stands between two of them: what the next one's separation and list
/// delimiters depend on.
#[derive(Default)]
pub(super) struct Sequence {
    started: bool,
    after_paragraph: bool,
    /// The bullet or ordered delimiter of the previous block, if it was a list (the next list at this
    /// level uses the other one and stays a list of its own).
    bullet: Option<char>,
    ordered: Option<char>,
    /// The previous block was a list item's first, one marker alone on the item's line.
    after_item_marker: bool,
    /// The blocks so far all took their delimiters, or passed them on, from the block before them: a
    /// writer that follows others wrote them for what it was told of those (see `BlockWriter::chained`).
    chained: bool,
}

impl Sequence {
    /// After blocks written elsewhere, the last of which used these list delimiters (none: no list).
    pub(super) fn following(bullet: Option<char>, ordered: Option<char>) -> Self {
        Sequence {
            started: true,
            // Read only where a list follows a paragraph in a list item, never at the root's level.
            after_paragraph: false,
            bullet,
            ordered,
            after_item_marker: false,
            chained: true,
        }
    }

    /// Inside a marker pair whose blocks go on the sequence around it: the pair's first block is the first
    /// after its open marker, and a list there avoids these delimiters, as it would with the marker deleted.
    fn within(bullet: Option<char>, ordered: Option<char>) -> Self {
        Sequence {
            started: false,
            ..Sequence::following(bullet, ordered)
        }
    }

    /// Whether a block came before (the next is set off by a blank line).
    pub(super) fn started(&self) -> bool {
        self.started
    }

    /// The list delimiters the next block at this level is to avoid (none: no list before it).
    pub(super) fn delimiters(&self) -> (Option<char>, Option<char>) {
        (self.bullet, self.ordered)
    }

    /// Whether every block so far took its delimiters from, or passed on, those before it.
    pub(super) fn chained(&self) -> bool {
        self.chained
    }
}

/// What one block leaves for the next at its level.
struct Left {
    /// The delimiters a list right after it is to avoid: its own if it was a list, those before it if it
    /// was markers only, whose deletion would leave the lists around it side by side.
    bullet: Option<char>,
    ordered: Option<char>,
    /// Whether its Markdown or these delimiters depend on the delimiters before it.
    chained: bool,
    /// Whether it was written as a list.
    list: bool,
}

impl<'a> W<'a> {
    pub fn leaf(&mut self, node: &Node) {
        if self.opts.plain {
            // No markers: the node's content is what a reader can use of it.
            let children = node.children();
            if children.is_empty() {
            } else if children.iter().all(|c| c.kind.is_inline()) {
                self.inline_line(children, Place::default());
            } else {
                self.blocks(children, Parent::Other);
            }
            return;
        }
        let d = marker::whole(node);
        self.marker(node.kind.name(), Some(&d), true);
    }

    /// Blocks, separated by blank lines (a list right after a paragraph in a list item stays tight).
    pub fn blocks(&mut self, nodes: &[Node], parent: Parent) {
        let mut seq = Sequence::default();
        for node in nodes {
            self.next_block(&mut seq, node, parent);
        }
    }

    /// The next of a sequence of blocks: [`W::blocks`] one at a time, for blocks that arrive one by one.
    pub fn next_block(&mut self, seq: &mut Sequence, node: &Node, parent: Parent) {
        let tight = seq.started
            && parent == Parent::Item
            && seq.after_paragraph
            && matches!(node.kind, NodeType::BulletList | NodeType::TaskList)
            && self.pending == 0;
        // After a marker alone on an item's line, the next block follows with no blank line: a model that
        // deletes the marker leaves the item's line empty, and a blank line after an empty item's line
        // would end the item, its other blocks falling out of the list.
        if seq.started && !tight && !seq.after_item_marker {
            self.blank();
        }
        let opens_item = !seq.started && parent == Parent::Item && self.pending > 0;
        let at = self.out.len();
        let left = self.block(node, parent, seq.bullet, seq.ordered);
        if tight && node.kind == NodeType::BulletList {
            self.loosen_if_first_item_bare(at);
        }
        *seq = Sequence {
            started: true,
            after_paragraph: node.kind == NodeType::Paragraph,
            bullet: left.bullet,
            ordered: left.ordered,
            // A list's line holds its own item's marker too (`- [ ] <!--adf:taskItem …-->`): that item
            // stays with the marker deleted, and its text would take the next line in. A quote's marker
            // (`- > <!--adf:…-->`) is the quote's line: a quote right under it would join it.
            after_item_marker: opens_item
                && !left.list
                && node.kind != NodeType::Blockquote
                && self.marker_alone(at),
            chained: seq.chained && left.chained,
        };
    }

    /// A bullet list written tight under a paragraph (from `at`) whose first item's line is empty (`-`)
    /// or a marker alone (`- <!--adf:…-->`): a blank line goes before it. An empty item cannot interrupt
    /// a paragraph: Markdown reads `-` under the paragraph's text as its setext underline (a heading, which
    /// no list item holds), `*` as more of its text. A marker deleted leaves such an item.
    fn loosen_if_first_item_bare(&mut self, at: usize) {
        let pre = self.pre.trim_end();
        // The first item's line under the containers' prefixes (those of quotes too), after the list's
        // own markers alone on their lines, which a model may delete as well.
        let item = self.out[at..]
            .split('\n')
            .map(|line| {
                line.strip_prefix(pre)
                    .unwrap_or(line)
                    .trim_start_matches(' ')
            })
            .find(|line| !(line.starts_with("<!--") && line.ends_with("-->")))
            .unwrap_or_default();
        let bare = item.strip_prefix(['-', '*', '+']).is_some_and(|rest| {
            let rest = rest.trim_start_matches(' ');
            rest.is_empty() || rest.starts_with("<!--")
        });
        if bare {
            let blank = [self.pre.trim_end(), "\n"].concat();
            self.out.insert_str(at, &blank);
        }
    }

    /// Whether what was written from `at` is one line whose own text (after its prefixes and item
    /// markers, `body_at`) is one marker comment and nothing else: a block Markdown ends at that line's
    /// end, so that the next block needs no blank line before it. Text before the comment (`12<!--…-->`)
    /// is a paragraph, which a next line would continue.
    fn marker_alone(&self, at: usize) -> bool {
        let one_line = self.out[at..]
            .strip_suffix('\n')
            .is_some_and(|l| !l.contains('\n'));
        if !one_line || self.body_at < at {
            return false;
        }
        // That line was started in this block: its text starts at `body_at`, up to its newline (none
        // left when the line was empty and its prefix's trailing spaces were trimmed).
        let body = self
            .out
            .get(self.body_at..self.out.len() - 1)
            .unwrap_or_default();
        body.starts_with("<!--") && body.find("-->").is_some_and(|end| end + 3 == body.len())
    }

    /// One block, after a block that left `prev_bullet` and `prev_ordered`. Returns the delimiters the
    /// next list at this level is to avoid, so that it stays a list of its own: with the blocks between
    /// them, and with any one marker between them deleted.
    fn block(
        &mut self,
        node: &Node,
        parent: Parent,
        prev_bullet: Option<char>,
        prev_ordered: Option<char>,
    ) -> Left {
        if self.depth >= MAX_DEPTH {
            self.line("<!--adf:truncated /-->");
            return Left {
                bullet: None,
                ordered: None,
                chained: false,
                list: false,
            };
        }
        self.depth += 1;
        let mut bullet = if prev_bullet == Some('-') { '*' } else { '-' };
        if self.line_opens_with_bullets(bullet) {
            // The third list opening on one line takes the other bullet: `- - -` is a rule.
            bullet = if bullet == '-' { '*' } else { '-' };
        }
        let ordered = if prev_ordered == Some('.') { ')' } else { '.' };
        // A list's delimiters are its own; markers alone pass on those before them.
        let mut used = (None, None);
        // Whether it depends on `prev_*`: lists by their delimiter, markers alone by passing them on.
        let mut chained = false;
        let mut list = false;
        // `text` on a node other than text is off the schema, and no Markdown form of a block shows it:
        // such a node is written as text at block level is, the whole node in one marker (the last arm).
        let kind = match node.text {
            Some(_) => &NodeType::Text,
            None => &node.kind,
        };
        match kind {
            NodeType::Paragraph if plain_inline_container(node) => self.paragraph(node, parent),
            // An empty heading is `##` alone (its `content: []`, if present, in a modifier).
            NodeType::Heading => self.heading(node, parent),
            NodeType::CodeBlock if let Some(code) = code_text(node) => self.code_block(node, code),
            NodeType::Extension if let Some(body) = plain_body(node) => {
                self.plain_body_extension(node, body)
            }
            NodeType::Blockquote => self.quote(node),
            NodeType::Rule if node.content.is_none() => {
                self.modifier(node, Inferred::new(None, false), false);
                // On a list item's first line, `- ---` would be one thematic break: `___` is not.
                self.line(if self.pending > 0 { "___" } else { "---" });
            }
            NodeType::BulletList | NodeType::OrderedList if node.children().iter().all(is_item) => {
                used = self.list(node, bullet, ordered);
                list = true;
            }
            NodeType::TaskList if task_list_ok(node) => {
                self.task_list(node, bullet);
                used = (Some(bullet), None);
                list = true;
            }
            NodeType::DecisionList if decision_list_ok(node) => {
                self.decision_list(node, bullet);
                used = (Some(bullet), None);
                list = true;
            }
            NodeType::Table if super::table::ok(node) => super::table::write(self, node, W::blocks),
            NodeType::Panel => self.panel(node),
            NodeType::Expand | NodeType::NestedExpand => self.expand(node, parent),
            NodeType::MediaSingle if media_single_ok(node) => self.media_single(node),
            NodeType::MediaGroup if media_group_ok(node) => self.media_group(node),
            NodeType::BlockCard | NodeType::EmbedCard if card_ok(node) => self.card(node),
            kind if (marker::pair_kind(kind) || matches!(kind, NodeType::Other(_)))
                && node.content.is_some()
                && pair_ok(node)
                && (self.pairs == 0 || !matches!(node.kind, NodeType::Other(_))) =>
            {
                // A column has the width the reader gives it from its section's count, or all of it.
                let width = self
                    .column_width
                    .take()
                    .unwrap_or(Some(marker::LONE_COLUMN_WIDTH))
                    .map(|w| [("width", w)]);
                let inferred_attrs = match node.kind {
                    NodeType::LayoutColumn => width.as_ref().map(|w| &w[..]),
                    _ => None,
                };
                let mut d = marker::diff(node, Inferred::new(inferred_attrs, true));
                if node.children().is_empty() && marker::filled_when_empty(&node.kind) {
                    // The reader gives an empty one an empty paragraph (ADF requires a block).
                    d.get_or_insert_with(marker::Diff::default)
                        .set_empty_content();
                }
                let inferred = marker::filled_when_empty(&node.kind) && only_empty_paragraph(node);
                // How many blocks it holds, on both markers: a reader that meets one without the other
                // (deleted or mangled) still knows where the container ends or began.
                let count = if inferred { 0 } else { node.children().len() };
                // Alone on a list item's line, its first block follows with no blank line: a model that
                // deletes the marker leaves the item's line empty, and a blank line after it would end
                // the item, the item's other blocks falling out of the list (as in `next_block`).
                let on_item_line = self.pending > 0;
                self.open_marker(node.kind.name(), d.as_ref(), count);
                if !on_item_line {
                    self.blank();
                }
                // Its blocks go on the sequence around it: with either of its markers deleted, its
                // first or last list would otherwise stand right by a list outside with the same
                // delimiter, and the two read back as one.
                used = (prev_bullet, prev_ordered);
                chained = true;
                if !node.children().is_empty() && !inferred {
                    let mut seq = Sequence::within(prev_bullet, prev_ordered);
                    self.pairs += 1;
                    let width = match node.kind {
                        NodeType::LayoutSection => Some(marker::column_width(count)),
                        _ => None,
                    };
                    for child in node.children() {
                        self.column_width = width;
                        self.next_block(&mut seq, child, Parent::Other);
                        self.column_width = None;
                    }
                    self.pairs -= 1;
                    used = seq.delimiters();
                    self.blank();
                }
                self.close_marker(node.kind.name(), count);
            }
            _ => {
                self.leaf(node);
                used = (prev_bullet, prev_ordered);
                chained = true;
            }
        }
        self.depth -= 1;
        Left {
            bullet: used.0,
            ordered: used.1,
            chained: chained || list,
            list,
        }
    }

    /// A modifier marker before a block, when the block holds more than its Markdown shows (`force`:
    /// even when it does not, because the reader would otherwise read the Markdown differently).
    pub(super) fn modifier(&mut self, node: &Node, inf: Inferred, force: bool) {
        let mut d = marker::diff(node, inf);
        if inf.content
            && node.content.as_ref().is_some_and(Vec::is_empty)
            && matches!(
                node.kind,
                NodeType::Blockquote | NodeType::Panel | NodeType::Expand | NodeType::NestedExpand
            )
        {
            // The reader gives an empty one an empty paragraph (ADF requires a block); this one has none.
            d.get_or_insert_with(marker::Diff::default)
                .set_empty_content();
        }
        // The id alone of a block whose type the reader sees in what follows: the short marker. Not on a
        // list item's first line (`self.pending`: its `- ` is still to come), where it is the item's own.
        let short = match node.kind {
            NodeType::Paragraph
            | NodeType::Heading
            | NodeType::BulletList
            | NodeType::OrderedList
            | NodeType::TaskList
            | NodeType::CodeBlock
            | NodeType::Blockquote
            | NodeType::Panel => self.pending == 0,
            _ => false,
        };
        if let Some(id) = d.as_ref().filter(|_| short).and_then(|d| d.lone_local_id()) {
            self.id_marker(id);
        } else if d.is_some() || force {
            self.marker(node.kind.name(), d.as_ref(), false);
        }
    }

    fn paragraph(&mut self, node: &Node, parent: Parent) {
        let lone_media = matches!(node.children(), [only] if only.kind == NodeType::MediaInline);
        let inf = Inferred::new(None, !node.children().is_empty());
        self.modifier(node, inf, false);
        let _ = parent;
        let place = Place {
            lone_media,
            ..Place::default()
        };
        self.inline_line(node.children(), place);
    }

    fn heading(&mut self, node: &Node, parent: Parent) {
        let level = node
            .attr("level")
            .and_then(Value::as_u64)
            .filter(|l| (1..=6).contains(l))
            .unwrap_or(1);
        let inf = [("level", Inf::Int(level))];
        let force = matches!(parent, Parent::Item | Parent::Quote);
        self.modifier(
            node,
            Inferred::new(Some(&inf), !node.children().is_empty()),
            force,
        );
        let mut s = "#".repeat(level as usize);
        if !node.children().is_empty() {
            s.push(' ');
            let place = Place {
                single_line: true,
                in_heading: true,
                ..Place::default()
            };
            inline::write(&mut s, node.children(), place, self.opts, &mut self.scratch);
        }
        self.line(&s);
    }

    /// A code block as a fence holding its text. One whose text is in several text nodes (or marked, off
    /// the schema) shows them joined, its modifier holding them as they are (see [`code_text`]).
    fn code_block(&mut self, node: &Node, code: Code) {
        // A language that would read as a language and a title is in the marker.
        let lang = node
            .attr_str("language")
            .filter(|l| info_ok(l) && super::title::split_info(l).is_none());
        // A storage macro's title is in the info string (after a language of one word), its marker
        // without it.
        let title = super::title::shown_in_info(node)
            .filter(|_| lang.is_none_or(|l| !l.contains(char::is_whitespace)));
        let untitled = title.map(|_| super::title::without(node));
        let node = untitled.as_ref().unwrap_or(node);
        let inf_pairs = [("language", Inf::Str(lang.unwrap_or_default()))];
        let text = match &code {
            Code::Plain(text) => text,
            Code::Joined(joined) => joined.as_str(),
        };
        let inf = Inferred::new(lang.map(|_| &inf_pairs[..]), !text.is_empty());
        match code {
            Code::Plain(_) => self.modifier(node, inf, false),
            Code::Joined(_) => {
                let mut d = marker::diff(node, inf).unwrap_or_default();
                d.set_content(node.children());
                self.marker(node.kind.name(), Some(&d), false);
            }
        }
        match title {
            Some(title) => {
                let info = match lang {
                    Some(lang) => format!("{lang} title=\"{title}\""),
                    None => format!("title=\"{title}\""),
                };
                self.fence(Some(&info), text);
            }
            None => self.fence(lang, text),
        }
    }

    /// A macro whose body is plain text (a storage `ac:plain-text-body`: PlantUML, HTML, SQL, Markdown,
    /// ...) as a fence holding its body, under the extension's marker (the extension without its body):
    /// the model reads and edits the body as the code it is, not as a string inside JSON. The fence's
    /// info string is the macro's name, for the model's eyes (the marker says which macro it is).
    fn plain_body_extension(&mut self, node: &Node, body: &str) {
        let mut rest = node.clone();
        if let Some(storage) = rest.attr_object_mut(crate::storage::STORAGE, &[]) {
            storage.remove("plain");
            if storage.is_empty() {
                rest.attrs
                    .as_mut()
                    .map(|a| a.remove(crate::storage::STORAGE));
            }
        }
        let d = marker::whole(&rest);
        self.marker(node.kind.name(), Some(&d), false);
        self.fence(node.attr_str("extensionKey").filter(|k| info_ok(k)), body);
    }

    /// A fenced code block: `text` between fences longer than any run of their character in it, `lang`
    /// after the first.
    fn fence(&mut self, lang: Option<&str>, text: &str) {
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
        // An info string holding a backtick needs a tilde fence (CommonMark forbids backticks after a
        // backtick fence), longer than any run of tildes in the text.
        let tilde = lang.is_some_and(|l| l.contains('`'));
        let fence = if tilde {
            let (mut longest, mut run) = (0, 0);
            for c in text.chars() {
                run = if c == '~' { run + 1 } else { 0 };
                longest = longest.max(run);
            }
            "~".repeat(longest.max(2) + 1)
        } else {
            "`".repeat(longest.max(2) + 1)
        };
        let mut open = fence.clone();
        open.push_str(lang.unwrap_or_default());
        self.line(&open);
        if !text.is_empty() {
            for l in text.split('\n') {
                self.line(l);
            }
        }
        self.line(&fence);
    }

    fn quote(&mut self, node: &Node) {
        self.modifier(node, Inferred::new(None, true), false);
        self.push_prefix("> ", None);
        // An empty quote is `>` alone, as one holding an empty paragraph is (its modifier tells them
        // apart): with no line of its own, its modifier would fall on the next block.
        if node.children().is_empty() || only_empty_paragraph(node) {
            self.line("");
        } else {
            self.blocks(node.children(), Parent::Quote);
        }
        self.pop_prefix();
    }

    fn panel(&mut self, node: &Node) {
        let t = node.attr_str("panelType").unwrap_or_default();
        let word = match t {
            "info" | "note" | "tip" | "warning" | "error" | "success" | "custom" => t,
            _ => "info",
        };
        let inf = [("panelType", Inf::Str(word))];
        let inf = Inferred::new(Some(&inf), true);
        // A storage macro's title is on the `[!TYPE]` line, its marker without it.
        let title = super::title::shown(node);
        match title {
            Some(_) => self.modifier(&super::title::without(node), inf, false),
            None => self.modifier(node, inf, false),
        }
        self.push_prefix("> ", None);
        let mut alert = format!("[!{}]", word.to_ascii_uppercase());
        if let Some(title) = title {
            alert.push(' ');
            alert.push_str(title);
        }
        self.line(&alert);
        match node.children().first() {
            None => {}
            Some(_) if only_empty_paragraph(node) => {}
            Some(first)
                if first.kind == NodeType::Paragraph
                    && plain_inline_container(first)
                    && first.attrs.is_none()
                    && first.marks.is_none()
                    && first.extra.is_none()
                    && !first.children().is_empty()
                    && !matches!(first.children(), [only] if only.kind == NodeType::MediaInline) =>
            {
                // The first paragraph follows the `[!TYPE]` line directly, as GitHub writes alerts.
                self.inline_line(first.children(), Place::default());
                if node.children().len() > 1 {
                    self.blank();
                    self.blocks(&node.children()[1..], Parent::Other);
                }
            }
            Some(_) => {
                self.blank();
                self.blocks(node.children(), Parent::Other);
            }
        }
        self.pop_prefix();
    }

    fn expand(&mut self, node: &Node, parent: Parent) {
        let title = node.attr_str("title");
        let inf_pairs = [("title", Inf::Str(title.unwrap_or_default()))];
        let inferred_kind = if matches!(parent, Parent::Cell | Parent::Expand) {
            NodeType::NestedExpand
        } else {
            NodeType::Expand
        };
        // The reader gives a nested expand attrs always (ADF requires them), an expand only a title.
        let attrs = match (title, node.kind == NodeType::NestedExpand) {
            (Some(_), _) => Some(&inf_pairs[..]),
            (None, true) => Some(&inf_pairs[..0]),
            (None, false) => None,
        };
        let inf = Inferred {
            attrs,
            content: true,
        };
        self.modifier(node, inf, node.kind != inferred_kind);
        // `<details><summary>Title</summary>` on one line, as the design and GitHub write it.
        let mut s = String::from("<details>");
        if let Some(title) = title {
            s.push_str("<summary>");
            html_text(&mut s, title);
            s.push_str("</summary>");
        }
        self.line(&s);
        self.blank();
        if !node.children().is_empty() && !only_empty_paragraph(node) {
            self.blocks(node.children(), Parent::Expand);
            self.blank();
        }
        self.line("</details>");
    }

    fn list(&mut self, node: &Node, bullet: char, ordered: char) -> (Option<char>, Option<char>) {
        let is_ordered = node.kind == NodeType::OrderedList;
        let start = if is_ordered {
            node.attr("order")
                .and_then(Value::as_u64)
                .filter(|n| *n <= 999_999_999)
                .unwrap_or(1)
        } else {
            0
        };
        let inf_pairs = [("order", Inf::Int(start))];
        let inf = Inferred::new(is_ordered.then_some(&inf_pairs[..]), true);
        if node.children().is_empty() {
            // A list with no items has no Markdown: the whole list is one marker, with no modifier.
            self.leaf(node);
            return (None, None);
        }
        self.modifier(node, inf, false);
        for (i, item) in node.children().iter().enumerate() {
            let mut marker = String::with_capacity(8);
            if is_ordered {
                super::json::push_u64(&mut marker, start + i as u64);
                marker.push(ordered);
            } else {
                marker.push(bullet);
            }
            marker.push(' ');
            let cont = " ".repeat(marker.len());
            self.push_prefix(&cont, Some(marker));
            self.list_item(item);
            self.pop_prefix();
        }
        if is_ordered {
            (None, Some(ordered))
        } else {
            (Some(bullet), None)
        }
    }

    fn list_item(&mut self, item: &Node) {
        let empty_para = matches!(item.children(), [p] if is_empty_paragraph(p));
        let mut d = marker::diff(item, Inferred::new(None, true));
        if item.content.as_ref().is_some_and(Vec::is_empty) {
            // The reader gives an empty item an empty paragraph; this one has none.
            d.get_or_insert_with(marker::Diff::default)
                .set_empty_content();
        }
        // Its id alone is the short marker, first on its line (the reader takes it as the item's).
        match d.as_ref().map(|d| (d, d.lone_local_id())) {
            Some((_, Some(id))) => self.id_marker(id),
            Some((d, None)) => self.marker("listItem", Some(d), false),
            None => {}
        }
        if empty_para || item.children().is_empty() {
            if self.pending > 0 {
                // An empty item that ends a quote makes pulldown-cmark 0.13 end the list item around the
                // quote too (the blocks after the quote in that item become items of its list, where
                // CommonMark nests them): `- <!---->`, which reads as the same empty item, is not empty.
                let in_quote = !self.opts.plain && self.pre.contains('>');
                self.line(if in_quote { "<!---->" } else { "" });
            }
            return;
        }
        self.blocks(item.children(), Parent::Item);
        if self.pending > 0 {
            self.line("");
        }
    }

    fn task_list(&mut self, node: &Node, bullet: char) {
        let inf = [("localId", Inf::Str(""))];
        self.modifier(node, Inferred::new(Some(&inf), true), false);
        let mut i = 0;
        let items = node.children();
        while i < items.len() {
            let item = &items[i];
            let done = item.attr_str("state") == Some("DONE");
            let marker =
                String::from_iter([bullet, ' ', '[', if done { 'x' } else { ' ' }, ']', ' ']);
            self.push_prefix("  ", Some(marker.clone()));
            let state = if done { "DONE" } else { "TODO" };
            let inf = [("localId", Inf::Str("")), ("state", Inf::Str(state))];
            match item.kind {
                // A task list that begins with a nested one: Markdown nests a list only under an item,
                // so the nested lists stand under an item that is no task, `- [ ] <!--adf:taskList-->`.
                NodeType::TaskList if !self.opts.plain => self.line("<!--adf:taskList-->"),
                NodeType::TaskList => self.line(""),
                NodeType::BlockTaskItem => self.block_task_item(item, &inf, &marker),
                _ => self.inline_item(item, &inf),
            }
            // Nested task lists follow their item in ADF; in Markdown they nest under it, each with the
            // other bullet than the one before (so that two stay two lists).
            let mut next = if item.kind == NodeType::TaskList {
                i
            } else {
                i + 1
            };
            let mut nested = '-';
            while next < items.len() && items[next].kind == NodeType::TaskList {
                self.task_list(&items[next], nested);
                nested = if nested == '-' { '*' } else { '-' };
                next += 1;
            }
            self.pop_prefix();
            i = next;
        }
    }

    fn decision_list(&mut self, node: &Node, bullet: char) {
        let inf = [("localId", Inf::Str(""))];
        self.modifier(node, Inferred::new(Some(&inf), true), true);
        for item in node.children() {
            self.push_prefix("  ", Some(String::from_iter([bullet, ' '])));
            let inf = [("localId", Inf::Str("")), ("state", Inf::Str("DECIDED"))];
            self.inline_item(item, &inf);
            self.pop_prefix();
        }
    }

    /// A task item holding blocks, as a list item holding them, its marker saying which it is (with its
    /// diff). Where the first block is a paragraph with nothing but text, the marker stands before that
    /// text on the task's line (`- [x] <!--adf:blockTaskItem-->Text`): a model that deletes the marker
    /// leaves a task whose first line is still its text. Otherwise the marker is the task's line, and the
    /// first block (a marker itself: an extension, a paragraph with attrs) follows on the next: with no
    /// blank line between, a model that deletes the marker leaves `- [x]` with the blocks still under it,
    /// which read back as the same task (a blank line there would end the item, and the blocks would
    /// stand outside the list).
    fn block_task_item(&mut self, item: &Node, inf: &[(&str, Inf)], bullet: &str) {
        if !self.opts.plain {
            let d = marker::diff(item, Inferred::new(Some(inf), true));
            let mut first = [bullet, "<!--adf:blockTaskItem"].concat();
            if let Some(d) = d.as_ref().filter(|d| !d.is_empty()) {
                first.push(' ');
                marker::push_comment_json(&mut first, d);
            }
            first.push_str("-->");
            let inline_first = item.children().first().is_some_and(|p| {
                p.kind == NodeType::Paragraph
                    && p.attrs.is_none()
                    && p.marks.is_none()
                    && p.extra.is_none()
                    && p.text.is_none()
                    && !p.children().is_empty()
                    && plain_inline_container(p)
            });
            if inline_first {
                self.pop_prefix();
                self.push_prefix("  ", Some(first));
            } else {
                let line = first.split_off(bullet.len());
                self.lines(&line);
            }
        }
        self.blocks(item.children(), Parent::Item);
        if self.pending > 0 {
            // Nothing written (plain Markdown of blocks without a plain form): the task's line alone.
            self.line("");
        }
    }

    /// A task or decision item: its inline content on the marker line, its diff at the line's end.
    fn inline_item(&mut self, item: &Node, inf: &[(&str, Inf)]) {
        let mut s = std::mem::take(&mut self.line);
        s.clear();
        // An inline image alone is written whole, as in a paragraph: alone on the line, `![…](…)` would
        // read back as a block image, which no task or decision holds.
        let place = Place {
            lone_media: matches!(item.children(), [only] if only.kind == NodeType::MediaInline),
            ..Place::default()
        };
        let d = marker::diff(item, Inferred::new(Some(inf), !item.children().is_empty()))
            .filter(|_| !self.opts.plain);
        // A task's id alone is the short marker before its text (`- [ ] <!--#ID-->Text`).
        let id = d
            .as_ref()
            .filter(|_| item.kind == NodeType::TaskItem)
            .and_then(|d| d.lone_local_id());
        if let Some(id) = id {
            marker::push_id(&mut s, id);
        }
        self.inline_into(&mut s, item.children(), place);
        if let (Some(d), None) = (&d, id) {
            marker::push_inline(&mut s, item.kind.name(), d);
        }
        self.lines(&s);
        self.line = s;
    }
}

/// A container holding one empty paragraph: what the reader gives an empty one, so nothing is written.
fn only_empty_paragraph(node: &Node) -> bool {
    matches!(node.children(), [p] if is_empty_paragraph(p))
}

fn is_item(n: &Node) -> bool {
    n.kind == NodeType::ListItem && n.text.is_none()
}

/// The text a fence shows of a code block.
enum Code<'a> {
    /// Its one text (or none), as it is.
    Plain(&'a str),
    /// Its texts joined: a code block that holds its text in several text nodes, or in a text with more
    /// than its text (Atlassian's own sample documents split a long listing into one text a line). A
    /// modifier holds the texts as they are, which the reader uses while the fence's text is still theirs.
    Joined(String),
}

/// The text a fence shows of a code block, or `None` for one a fence cannot show (it is one marker).
fn code_text(node: &Node) -> Option<Code<'_>> {
    if node.text.is_some() {
        return None;
    }
    let fenced = |s: &str| !s.is_empty() && !s.contains(['\r', '\0']);
    match node.children() {
        [] => return Some(Code::Plain("")),
        [t] if t.kind == NodeType::Text
            && t.attrs.is_none()
            && t.marks.is_none()
            && t.extra.is_none()
            && t.content.is_none()
            && t.text.as_deref().is_some_and(fenced) =>
        {
            return t.text.as_deref().map(Code::Plain);
        }
        _ => {}
    }
    let mut joined = String::new();
    for t in node.children() {
        if t.kind != NodeType::Text || t.content.is_some() {
            return None;
        }
        joined.push_str(t.text.as_deref()?);
    }
    fenced(&joined).then_some(Code::Joined(joined))
}

/// The body of a macro whose body is plain text (`storage.plain`, see [`W::plain_body_extension`]), where
/// a fence shows it as it is.
fn plain_body(node: &Node) -> Option<&str> {
    if node.text.is_some() || node.content.is_some() {
        return None;
    }
    let body = node.attr(crate::storage::STORAGE)?.get("plain")?.as_str()?;
    (!body.is_empty() && !body.contains(['\r', '\0'])).then_some(body)
}

fn info_ok(lang: &str) -> bool {
    !lang.is_empty() && lang.trim() == lang && !lang.contains(['\n', '\r', '\\', '&', '\0'])
}

fn task_list_ok(node: &Node) -> bool {
    let items = node.children();
    !items.is_empty()
        && node.text.is_none()
        && items.iter().all(|i| match i.kind {
            NodeType::TaskItem => inline_item_ok(i),
            NodeType::BlockTaskItem => block_task_item_ok(i),
            NodeType::TaskList => task_list_ok(i),
            _ => false,
        })
}

fn decision_list_ok(node: &Node) -> bool {
    !node.children().is_empty()
        && node.text.is_none()
        && node
            .children()
            .iter()
            .all(|i| i.kind == NodeType::DecisionItem && inline_item_ok(i))
}

/// A task item holding blocks reads back from its Markdown when it holds what the reader keeps in one
/// (paragraphs and extensions, as the schema allows), at least one.
fn block_task_item_ok(item: &Node) -> bool {
    item.text.is_none()
        && !item.children().is_empty()
        && item
            .children()
            .iter()
            .all(|b| forms::in_block_task(&b.kind))
}

fn inline_item_ok(item: &Node) -> bool {
    item.text.is_none()
}

/// Whether a container reads back from an open/close marker pair: a layout section holds only columns
/// (a block between columns is read as a column's whose open marker was lost), and a column holds no
/// column (one opening inside another closes it). Otherwise the node is one whole-node marker.
fn pair_ok(node: &Node) -> bool {
    match node.kind {
        NodeType::LayoutSection => node
            .children()
            .iter()
            .all(|c| c.kind == NodeType::LayoutColumn),
        NodeType::LayoutColumn => node
            .children()
            .iter()
            .all(|c| c.kind != NodeType::LayoutColumn),
        // A type the schema does not define (a storage `<div>`, a future container) is a pair around its
        // blocks where it holds blocks alone, no pair stands inside it and (see the caller) none around
        // it: a reader that lost one marker of pairs nested in each other could not always tell which
        // pair the other closes (`storage_edits`, seeds 521073, 536413, 549726 of 60,000). Any other is
        // one marker.
        NodeType::Other(_) => pair_of_blocks(node) && !holds_pair(node),
        _ => true,
    }
}

/// Whether `node` (of a type the schema does not define) holds blocks alone.
fn pair_of_blocks(node: &Node) -> bool {
    !node.children().is_empty()
        && node.children().iter().all(|c| {
            c.text.is_none() && (matches!(c.kind, NodeType::Other(_)) || !c.kind.is_inline())
        })
}

/// Whether a node below `node` would be written as a marker pair (a loop, not recursion: no depth is
/// too deep).
fn holds_pair(node: &Node) -> bool {
    let mut stack: Vec<&Node> = node.children().iter().collect();
    while let Some(n) = stack.pop() {
        let pair = match n.kind {
            NodeType::Other(_) => pair_of_blocks(n),
            ref kind => marker::pair_kind(kind) && n.content.is_some(),
        };
        if pair {
            return true;
        }
        stack.extend(n.children());
    }
    false
}

/// Text inside an HTML element (a summary).
pub(super) fn html_text(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '|' => out.push_str("&#124;"),
            _ => out.push(c),
        }
    }
}
