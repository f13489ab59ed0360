//! Tokens to a light tree: html5ever's tokenizer, and a tree construction of our own.
//!
//! html5ever's tree builder follows the spec's algorithms, several of which scan the whole stack of open
//! elements for each tag ("has a `p` in button scope"): 100,000 nested `div`s cost 10^10 steps there. Ours
//! keeps at most [`MAX_DEPTH`] elements open, as Chromium's parser does, so every step is bounded and the
//! whole build is linear in the input. It implies the end tags a page usually omits (`p`, `li`, `dt`/`dd`,
//! table rows and cells, an `a` inside an `a`), and leaves the rest of HTML's error recovery (adoption
//! agency, foster parenting) to the converter, which reads a misnested tree in document order anyway.
//!
//! Page chrome and invisible content are dropped here, before they are stored: the content of a dropped
//! element is tokenized (to find where it ends) but never kept.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{local_name, LocalName};

use crate::error::Warning;

/// The deepest element nesting kept; deeper elements are flattened into the element at this depth.
pub const MAX_DEPTH: usize = 512;

/// A node's index in [`Dom::nodes`]; 0 is the document and never anyone's child, so 0 also means "none".
pub type Id = u32;

/// The tree, in document order: a node's index is larger than its parent's and its earlier siblings'.
pub struct Dom {
    pub nodes: Vec<DomNode>,
    pub warnings: Vec<Warning>,
}

pub struct DomNode {
    pub data: Data,
    pub parent: Id,
    pub first_child: Id,
    pub last_child: Id,
    pub next_sibling: Id,
}

pub enum Data {
    Document,
    Element {
        name: LocalName,
        attrs: Vec<(LocalName, StrTendril)>,
    },
    /// Text as the tokenizer gave it: a view of the input (or a small inline copy), not a new string.
    Text(StrTendril),
}

impl Dom {
    /// The children of `id`, in order.
    pub fn children(&self, id: Id) -> Children<'_> {
        Children {
            dom: self,
            next: self.nodes[id as usize].first_child,
        }
    }

    pub fn node(&self, id: Id) -> &DomNode {
        &self.nodes[id as usize]
    }
}

pub struct Children<'a> {
    dom: &'a Dom,
    next: Id,
}

impl Iterator for Children<'_> {
    type Item = Id;
    fn next(&mut self) -> Option<Id> {
        let id = self.next;
        if id == 0 {
            return None;
        }
        self.next = self.dom.nodes[id as usize].next_sibling;
        Some(id)
    }
}

impl DomNode {
    /// The element's name (`None` for text and the document).
    pub fn name(&self) -> Option<&LocalName> {
        match &self.data {
            Data::Element { name, .. } => Some(name),
            _ => None,
        }
    }

    /// Attribute `name` of an element.
    pub fn attr(&self, name: &LocalName) -> Option<&str> {
        match &self.data {
            Data::Element { attrs, .. } => attrs.iter().find(|(n, _)| n == name).map(|(_, v)| &**v),
            _ => None,
        }
    }
}

/// Parses `input` into a [`Dom`].
pub fn parse(input: &str) -> Dom {
    let parser = Parser::new();
    parser.feed(input);
    parser.end()
}

/// A page parsed as its text comes, in pieces: the tree grows with each, and [`Parser::compact`] lets
/// go of what the caller has read.
pub struct Parser {
    tokenizer: Tokenizer<Builder>,
    queue: BufferQueue,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    pub fn new() -> Self {
        let builder = Builder {
            state: RefCell::new(State {
                dom: Dom {
                    nodes: vec![DomNode {
                        data: Data::Document,
                        parent: 0,
                        first_child: 0,
                        last_child: 0,
                        next_sibling: 0,
                    }],
                    warnings: Vec::new(),
                },
                stack: Vec::new(),
                overflow: Vec::new(),
                skip_newline: false,
                flattened: false,
            }),
        };
        Parser {
            tokenizer: Tokenizer::new(builder, TokenizerOpts::default()),
            queue: BufferQueue::default(),
        }
    }

    /// Reads the next piece of the page. A token the piece ends inside is finished by the next one.
    pub fn feed(&self, piece: &str) {
        self.queue.push_back(StrTendril::from_slice(piece));
        // `feed` only stops early to let a script run, which our sink never asks for.
        while !matches!(
            self.tokenizer.feed(&self.queue),
            html5ever::TokenizerResult::Done
        ) {}
    }

    /// The tree as it stands. The builder changes only the last child of an element (it appends after
    /// it, or extends it when both are text), so every other child is final.
    pub fn dom(&self) -> std::cell::Ref<'_, Dom> {
        std::cell::Ref::map(self.tokenizer.sink.state.borrow(), |s| &s.dom)
    }

    /// Lets go of the nodes the caller has read: keeps the document, `spine` (a chain of elements, each
    /// the last child of the one before, the first a child of the document) and the subtree of `tail`
    /// (the last child of the deepest of them, or 0 for none); every other child of a `spine` element
    /// and of the document goes. The kept nodes are renumbered in order, in the tree and in the stack of
    /// open elements alike: `spine[i]` becomes `i + 1` and `tail` `spine.len() + 1`.
    pub fn compact(&self, spine: &[Id], tail: Id) {
        self.tokenizer.sink.state.borrow_mut().compact(spine, tail);
    }

    /// Whether element `id` is open: the builder may still add to it.
    pub fn is_open(&self, id: Id) -> bool {
        let state = self.tokenizer.sink.state.borrow();
        id != 0 && state.stack.iter().any(|open| open.id == id)
    }

    /// The open elements that are stored, outermost first: each the last child of the one before, the
    /// first a child of the document (a `spine` for [`Parser::compact`]).
    pub fn open_elements(&self) -> Vec<Id> {
        let state = self.tokenizer.sink.state.borrow();
        state
            .stack
            .iter()
            .map(|open| open.id)
            .filter(|&id| id != 0)
            .collect()
    }

    /// Reads the end of the page (closing what is still open) and hands over the tree.
    pub fn end(self) -> Dom {
        self.tokenizer.end();
        self.tokenizer.sink.state.into_inner().dom
    }
}

struct Builder {
    state: RefCell<State>,
}

struct State {
    dom: Dom,
    stack: Vec<Open>,
    /// Start tags past [`MAX_DEPTH`], run-length encoded, so that their end tags close nothing kept.
    overflow: Vec<(LocalName, usize)>,
    /// A newline right after `<pre>` is not content (HTML says so).
    skip_newline: bool,
    /// Whether the warning for flattened nesting was given (once per document).
    flattened: bool,
}

/// An open element.
struct Open {
    /// 0 when the element is dropped (nothing under it is stored).
    id: Id,
    name: LocalName,
    dropped: bool,
    /// Inside `svg` or `math`, where `<x/>` closes itself.
    foreign: bool,
    /// Inside `article`, `main` or `section`, where `header` and `footer` are content, not page chrome.
    sectioned: bool,
}

impl TokenSink for Builder {
    type Handle = ();

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return state.start(tag, line),
                TagKind::EndTag => state.end(tag),
            },
            Token::CharacterTokens(text) => state.text(text),
            // Comments, doctypes, NULs and parse errors carry nothing a reader sees.
            _ => state.skip_newline = false,
        }
        TokenSinkResult::Continue
    }
}

impl State {
    fn start(&mut self, tag: Tag, line: u64) -> TokenSinkResult<()> {
        self.skip_newline = false;
        let name = tag.name;
        if matches!(
            name,
            local_name!("html") | local_name!("head") | local_name!("body")
        ) {
            // Their content is read where it stands: a missing `</head>` must not swallow the page.
            return TokenSinkResult::Continue;
        }
        self.close_implied(&name);
        let (dropped, foreign, sectioned) = match self.stack.last() {
            Some(top) => (top.dropped, top.foreign, top.sectioned),
            None => (false, false, false),
        };
        let foreign = foreign || matches!(name, local_name!("svg") | local_name!("math"));
        let dropped = dropped || drops(&name, &tag.attrs, sectioned);
        let sectioned = sectioned
            || matches!(
                name,
                local_name!("article") | local_name!("main") | local_name!("section")
            );
        let raw = raw_kind(&name);

        if is_void(&name) || (tag.self_closing && foreign) {
            if !dropped {
                self.element(name, tag.attrs);
            }
            return TokenSinkResult::Continue;
        }
        // Raw text elements hold no elements, so opening one past the cap nests one level more, no deeper.
        if self.stack.len() >= MAX_DEPTH && raw.is_none() {
            if !std::mem::replace(&mut self.flattened, true) {
                self.dom.warnings.push(Warning::new(
                    line as usize,
                    format!("HTML nested deeper than {MAX_DEPTH} elements: the deeper elements are read as their content"),
                ));
            }
            match self.overflow.last_mut() {
                Some((top, count)) if *top == name => *count += 1,
                _ => self.overflow.push((name, 1)),
            }
            return TokenSinkResult::Continue;
        }
        let id = if dropped {
            0
        } else {
            self.element(name.clone(), tag.attrs)
        };
        self.skip_newline = matches!(
            name,
            local_name!("pre") | local_name!("listing") | local_name!("textarea")
        );
        self.stack.push(Open {
            id,
            name,
            dropped,
            foreign,
            sectioned,
        });
        match raw {
            Some(Raw::Kind(kind)) => TokenSinkResult::RawData(kind),
            Some(Raw::Plaintext) => TokenSinkResult::Plaintext,
            None => TokenSinkResult::Continue,
        }
    }

    fn end(&mut self, tag: Tag) {
        self.skip_newline = false;
        let name = tag.name;
        match name {
            local_name!("html") | local_name!("head") | local_name!("body") => return,
            // Browsers read `</br>` as `<br>`.
            local_name!("br") => {
                if !self.stack.last().is_some_and(|top| top.dropped) {
                    self.element(name, Vec::new());
                }
                return;
            }
            _ => {}
        }
        if let Some((top, count)) = self.overflow.last_mut() {
            if *top == name {
                *count -= 1;
                if *count == 0 {
                    self.overflow.pop();
                }
                return;
            }
        }
        let table_part = is_table_part(&name);
        let found = self
            .stack
            .iter()
            .rposition(|open| open.name == name || (!table_part && is_boundary(&open.name)));
        if let Some(at) = found.filter(|&at| self.stack[at].name == name) {
            // Closing an element below the cap closes whatever overflowed inside it.
            self.overflow.clear();
            self.stack.truncate(at);
        }
    }

    fn text(&mut self, mut text: StrTendril) {
        if std::mem::take(&mut self.skip_newline) && text.starts_with('\n') {
            text.pop_front(1);
        }
        if text.is_empty() || self.stack.last().is_some_and(|top| top.dropped) {
            return;
        }
        let parent = self.parent();
        let last = self.dom.nodes[parent as usize].last_child;
        if last != 0 {
            if let Data::Text(existing) = &mut self.dom.nodes[last as usize].data {
                existing.push_tendril(&text);
                return;
            }
        }
        self.append(parent, Data::Text(text));
    }

    /// Closes the elements that `name`'s start tag ends implicitly.
    fn close_implied(&mut self, name: &LocalName) {
        use local_name as n;
        if closes_p(name) {
            self.close_nearest(|n| *n == n!("p"), is_boundary);
        }
        match *name {
            n!("h1") | n!("h2") | n!("h3") | n!("h4") | n!("h5") | n!("h6")
                if self.stack.last().is_some_and(|top| is_heading(&top.name)) =>
            {
                self.stack.pop();
            }
            n!("li") => self.close_nearest(
                |n| *n == n!("li"),
                |n| matches!(*n, n!("ul") | n!("ol") | n!("menu")) || is_boundary(n),
            ),
            n!("dt") | n!("dd") => self.close_nearest(
                |n| matches!(*n, n!("dt") | n!("dd")),
                |n| *n == n!("dl") || is_boundary(n),
            ),
            n!("tr") => self.close_nearest(
                |n| *n == n!("tr"),
                |n| matches!(*n, n!("table") | n!("thead") | n!("tbody") | n!("tfoot")),
            ),
            n!("td") | n!("th") => self.close_nearest(
                |n| matches!(*n, n!("td") | n!("th")),
                |n| matches!(*n, n!("tr") | n!("table")),
            ),
            n!("thead") | n!("tbody") | n!("tfoot") => self.close_nearest(
                |n| matches!(*n, n!("thead") | n!("tbody") | n!("tfoot")),
                |n| *n == n!("table"),
            ),
            n!("a") => self.close_nearest(|n| *n == n!("a"), is_boundary),
            _ => {}
        }
    }

    /// Pops up to and including the nearest open element that `target` accepts, unless `stop` meets one first.
    /// Elements past the cap are open too: they are searched first.
    fn close_nearest(
        &mut self,
        target: impl Fn(&LocalName) -> bool,
        stop: impl Fn(&LocalName) -> bool,
    ) {
        if !self.overflow.is_empty() {
            // As far back as the stack itself is searched, so that each tag costs a bounded number of steps.
            let window = self.overflow.len().saturating_sub(MAX_DEPTH);
            let found = self.overflow[window..]
                .iter()
                .rposition(|(name, _)| target(name) || stop(name));
            if let Some(at) = found
                .map(|at| at + window)
                .filter(|&at| target(&self.overflow[at].0))
            {
                self.overflow[at].1 -= 1;
                self.overflow
                    .truncate(if self.overflow[at].1 == 0 { at } else { at + 1 });
            }
            return;
        }
        let found = self
            .stack
            .iter()
            .rposition(|open| target(&open.name) || stop(&open.name));
        if let Some(at) = found.filter(|&at| target(&self.stack[at].name)) {
            self.overflow.clear();
            self.stack.truncate(at);
        }
    }

    /// The element new content goes into: the innermost open element that is stored.
    fn parent(&self) -> Id {
        self.stack.last().map_or(0, |top| top.id)
    }

    fn element(&mut self, name: LocalName, attrs: Vec<html5ever::Attribute>) -> Id {
        let attrs = attrs
            .into_iter()
            .filter(|a| a.name.ns.is_empty() && kept_attr(&a.name.local))
            .map(|a| (a.name.local, a.value))
            .collect();
        let parent = self.parent();
        self.append(parent, Data::Element { name, attrs })
    }

    /// [`Parser::compact`]: the kept nodes move to the front of the arena, in order, and every id the
    /// tree and the stack of open elements hold is renumbered (an id of a node let go, which no open
    /// element has, becomes 0).
    fn compact(&mut self, spine: &[Id], tail: Id) {
        let nodes = &mut self.dom.nodes;
        let kept = spine.len() as Id + 1;
        let renumber = |id: Id| -> Id {
            if id == 0 {
                0
            } else if tail != 0 && id >= tail {
                id - tail + kept
            } else {
                spine
                    .iter()
                    .position(|&e| e == id)
                    .map_or(0, |i| i as Id + 1)
            }
        };
        for (i, &e) in spine.iter().enumerate() {
            let node = &mut nodes[e as usize];
            let child = if i + 1 < spine.len() {
                i as Id + 2
            } else {
                renumber(tail)
            };
            node.parent = i as Id;
            node.first_child = child;
            node.last_child = child;
            node.next_sibling = 0;
        }
        let root_child = if spine.is_empty() { renumber(tail) } else { 1 };
        nodes[0].first_child = root_child;
        nodes[0].last_child = root_child;
        if tail != 0 {
            for node in &mut nodes[tail as usize..] {
                node.parent = renumber(node.parent);
                node.first_child = renumber(node.first_child);
                node.last_child = renumber(node.last_child);
                node.next_sibling = renumber(node.next_sibling);
            }
        }
        // The spine in order, then the tail, each moved down over what is let go.
        for (i, &e) in spine.iter().enumerate() {
            nodes.swap(i + 1, e as usize);
        }
        if tail != 0 {
            nodes.drain(kept as usize..tail as usize);
        } else {
            nodes.truncate(kept as usize);
        }
        for open in &mut self.stack {
            open.id = renumber(open.id);
        }
    }

    fn append(&mut self, parent: Id, data: Data) -> Id {
        let id = Id::try_from(self.dom.nodes.len())
            .expect("fewer than 2^32 nodes (the input is at most 4 GiB)");
        self.dom.nodes.push(DomNode {
            data,
            parent,
            first_child: 0,
            last_child: 0,
            next_sibling: 0,
        });
        let p = &mut self.dom.nodes[parent as usize];
        let previous = std::mem::replace(&mut p.last_child, id);
        if previous == 0 {
            p.first_child = id;
        } else {
            self.dom.nodes[previous as usize].next_sibling = id;
        }
        id
    }
}

enum Raw {
    Kind(RawKind),
    Plaintext,
}

/// Elements whose content the tokenizer must read as text, not tags.
fn raw_kind(name: &LocalName) -> Option<Raw> {
    use local_name as n;
    Some(match *name {
        n!("script") => Raw::Kind(RawKind::ScriptData),
        n!("style")
        | n!("xmp")
        | n!("iframe")
        | n!("noembed")
        | n!("noframes")
        | n!("noscript") => Raw::Kind(RawKind::Rawtext),
        n!("title") | n!("textarea") => Raw::Kind(RawKind::Rcdata),
        n!("plaintext") => Raw::Plaintext,
        _ => return None,
    })
}

/// Whether an element, and all it holds, is left out: scripts, styles, page chrome, forms, invisible content.
fn drops(name: &LocalName, attrs: &[html5ever::Attribute], sectioned: bool) -> bool {
    use local_name as n;
    let by_name = match *name {
        n!("script")
        | n!("style")
        | n!("nav")
        | n!("aside")
        | n!("form")
        | n!("noscript")
        | n!("template")
        | n!("svg")
        | n!("title")
        | n!("meta")
        | n!("link")
        | n!("base")
        | n!("button")
        | n!("select")
        | n!("textarea")
        | n!("iframe")
        | n!("object")
        | n!("embed")
        | n!("canvas")
        | n!("video")
        | n!("audio")
        | n!("noembed")
        | n!("noframes")
        | n!("dialog") => true,
        // A page's banner and footer are chrome; an article's are its own.
        n!("header") | n!("footer") => !sectioned,
        // A checkbox is kept: it marks a task list item. One given another role (a menu's toggle,
        // `role="button"`) is a control.
        n!("input") => {
            !attrs
                .iter()
                .any(|a| a.name.local == n!("type") && a.value.eq_ignore_ascii_case("checkbox"))
                || role(attrs).is_some_and(|role| role != "checkbox")
        }
        _ => false,
    };
    by_name || attrs.iter().any(hides) || role(attrs).is_some_and(chrome_role)
}

/// The role an element's `role` attribute gives it: the first of its words (ARIA takes the first it
/// knows; every role this reader acts on is one), in lower case.
fn role(attrs: &[html5ever::Attribute]) -> Option<String> {
    let attr = attrs.iter().find(|a| a.name.local == local_name!("role"))?;
    let first = attr.value.split_ascii_whitespace().next()?;
    Some(first.to_ascii_lowercase())
}

/// The roles of the elements dropped by name, given to any element: the landmarks of page chrome
/// (`navigation` is `nav`, `complementary` is `aside`, `banner` and `contentinfo` are a page's own
/// `header` and `footer`, `search` a search form) and `dialog`.
fn chrome_role(role: String) -> bool {
    matches!(
        &*role,
        "navigation"
            | "complementary"
            | "banner"
            | "contentinfo"
            | "search"
            | "dialog"
            | "alertdialog"
    )
}

/// `hidden`, `aria-hidden="true"`, `style="display: none"`, `style="visibility: hidden"`.
fn hides(attr: &html5ever::Attribute) -> bool {
    use local_name as n;
    match attr.name.local {
        n!("hidden") => true,
        n!("aria-hidden") => attr.value.eq_ignore_ascii_case("true"),
        n!("style") => {
            let style: String = attr
                .value
                .chars()
                .filter(|c| !c.is_ascii_whitespace())
                .map(|c| c.to_ascii_lowercase())
                .collect();
            style.contains("display:none") || style.contains("visibility:hidden")
        }
        _ => false,
    }
}

/// The attributes the converter reads; the rest are not stored.
fn kept_attr(name: &LocalName) -> bool {
    use local_name as n;
    matches!(&**name, "data-src" | "data-lang")
        || matches!(
            *name,
            n!("href")
                | n!("src")
                | n!("alt")
                | n!("title")
                | n!("class")
                | n!("lang")
                | n!("start")
                | n!("colspan")
                | n!("rowspan")
                | n!("type")
                | n!("checked")
        )
}

fn is_void(name: &LocalName) -> bool {
    use local_name as n;
    matches!(
        *name,
        n!("area")
            | n!("base")
            | n!("br")
            | n!("col")
            | n!("embed")
            | n!("hr")
            | n!("img")
            | n!("input")
            | n!("link")
            | n!("meta")
            | n!("param")
            | n!("source")
            | n!("track")
            | n!("wbr")
            | n!("keygen")
            | n!("frame")
    )
}

/// Elements whose start tag closes an open `p` (HTML's list, trimmed to what pages use).
fn closes_p(name: &LocalName) -> bool {
    use local_name as n;
    matches!(
        *name,
        n!("address")
            | n!("article")
            | n!("aside")
            | n!("blockquote")
            | n!("details")
            | n!("div")
            | n!("dl")
            | n!("fieldset")
            | n!("figcaption")
            | n!("figure")
            | n!("footer")
            | n!("form")
            | n!("h1")
            | n!("h2")
            | n!("h3")
            | n!("h4")
            | n!("h5")
            | n!("h6")
            | n!("header")
            | n!("hgroup")
            | n!("hr")
            | n!("main")
            | n!("menu")
            | n!("nav")
            | n!("ol")
            | n!("p")
            | n!("pre")
            | n!("listing")
            | n!("section")
            | n!("summary")
            | n!("table")
            | n!("ul")
            | n!("li")
            | n!("dd")
            | n!("dt")
            | n!("plaintext")
            | n!("xmp")
    )
}

/// Elements an implied or stray end tag never closes past (HTML's "scope" boundaries).
fn is_boundary(name: &LocalName) -> bool {
    use local_name as n;
    matches!(
        *name,
        n!("table")
            | n!("td")
            | n!("th")
            | n!("caption")
            | n!("template")
            | n!("button")
            | n!("object")
            | n!("marquee")
    )
}

fn is_table_part(name: &LocalName) -> bool {
    use local_name as n;
    matches!(
        *name,
        n!("table")
            | n!("td")
            | n!("th")
            | n!("tr")
            | n!("thead")
            | n!("tbody")
            | n!("tfoot")
            | n!("caption")
    )
}

pub fn is_heading(name: &LocalName) -> bool {
    use local_name as n;
    matches!(
        *name,
        n!("h1") | n!("h2") | n!("h3") | n!("h4") | n!("h5") | n!("h6")
    )
}
