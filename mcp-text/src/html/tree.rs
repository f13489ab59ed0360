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
    let builder = Builder {
        state: RefCell::new(State {
            nodes: vec![DomNode {
                data: Data::Document,
                parent: 0,
                first_child: 0,
                last_child: 0,
                next_sibling: 0,
            }],
            stack: Vec::new(),
            overflow: Vec::new(),
            warnings: Vec::new(),
            skip_newline: false,
            flattened: false,
        }),
    };
    let tokenizer = Tokenizer::new(builder, TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(input));
    // `feed` only stops early to let a script run, which our sink never asks for.
    while !matches!(tokenizer.feed(&queue), html5ever::TokenizerResult::Done) {}
    tokenizer.end();
    let state = tokenizer.sink.state.into_inner();
    Dom {
        nodes: state.nodes,
        warnings: state.warnings,
    }
}

struct Builder {
    state: RefCell<State>,
}

struct State {
    nodes: Vec<DomNode>,
    stack: Vec<Open>,
    /// Start tags past [`MAX_DEPTH`], run-length encoded, so that their end tags close nothing kept.
    overflow: Vec<(LocalName, usize)>,
    warnings: Vec<Warning>,
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
                self.warnings.push(Warning::new(
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
        let last = self.nodes[parent as usize].last_child;
        if last != 0 {
            if let Data::Text(existing) = &mut self.nodes[last as usize].data {
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

    fn append(&mut self, parent: Id, data: Data) -> Id {
        let id = Id::try_from(self.nodes.len())
            .expect("fewer than 2^32 nodes (the input is at most 4 GiB)");
        self.nodes.push(DomNode {
            data,
            parent,
            first_child: 0,
            last_child: 0,
            next_sibling: 0,
        });
        let p = &mut self.nodes[parent as usize];
        let previous = std::mem::replace(&mut p.last_child, id);
        if previous == 0 {
            p.first_child = id;
        } else {
            self.nodes[previous as usize].next_sibling = id;
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
        // A checkbox is kept: it marks a task list item.
        n!("input") => !attrs
            .iter()
            .any(|a| a.name.local == n!("type") && a.value.eq_ignore_ascii_case("checkbox")),
        _ => false,
    };
    by_name || attrs.iter().any(hides)
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
