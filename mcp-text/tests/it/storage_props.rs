//! Property tests: random storage documents (every construct the reader maps, nested, with text full of
//! XML's special characters) survive storage → model → storage, and storage → model → ADF JSON → model →
//! storage. A small xorshift generator, seeded per case, so a failure names its seed.

use mcp_text::{adf, storage};

use crate::gen::seeds;
use crate::storage_read::normalise;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Writes random storage documents. `fancy` spells characters the way other writers do (`&mdash;`,
/// `&#38;`, `<br/>`, newlines between blocks): those compare after normalisation; plain documents are
/// in the writer's own spelling and must come back byte for byte.
pub struct Gen {
    pub rng: Rng,
    pub fancy: bool,
    pub out: String,
}

const WORDS: &[&str] = &[
    "alpha",
    "*.py",
    "2 * 3",
    "a_b_c",
    "<tag>",
    "a & b",
    "\"quoted\"",
    "it's",
    "]]>",
    "x > y",
    "#1",
    "- item",
    "|pipe|",
    "\u{a0}",
    "\u{2014}",
    "\u{2026}",
    "émoji 😀",
    "[link]",
    "`tick`",
    "back\\slash",
    "  ",
    "\t",
    "&amp;",
];

impl Gen {
    pub fn new(seed: u64, fancy: bool) -> Gen {
        Gen {
            rng: Rng::new(seed),
            fancy,
            out: String::new(),
        }
    }

    fn text_value(&mut self, nonblank_start: bool) -> String {
        let mut s = String::new();
        if nonblank_start {
            s.push_str(self.rng.pick(&["Go", "x", "1", "&", "<", "é"]));
        }
        for _ in 0..1 + self.rng.below(3) {
            if !s.is_empty() && self.rng.chance(60) {
                s.push(' ');
            }
            s.push_str(self.rng.pick(WORDS));
        }
        s
    }

    /// Text as the writer escapes it (or, fancy, another spelling of the same characters).
    fn push_text(&mut self, text: &str) {
        for c in text.chars() {
            let plain = match c {
                '&' => "&amp;",
                '<' => "&lt;",
                '>' => "&gt;",
                '\u{a0}' => "&nbsp;",
                '\r' => "&#13;",
                _ => "",
            };
            if self.fancy && self.rng.chance(40) {
                match c {
                    '&' => self.out.push_str("&#38;"),
                    '<' => self.out.push_str("&#x3C;"),
                    '\u{a0}' => self.out.push_str("&#160;"),
                    '\u{2014}' => self.out.push_str("&mdash;"),
                    '\u{2026}' => self.out.push_str("&hellip;"),
                    '"' => self.out.push_str("&quot;"),
                    '\'' => self.out.push_str("&apos;"),
                    _ if plain.is_empty() => self.out.push(c),
                    _ => self.out.push_str(plain),
                }
            } else if plain.is_empty() {
                self.out.push(c);
            } else {
                self.out.push_str(plain);
            }
        }
    }

    fn attr(&mut self, name: &str, value: &str) {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        for c in value.chars() {
            match c {
                '&' => self.out.push_str("&amp;"),
                '<' => self.out.push_str("&lt;"),
                '>' => self.out.push_str("&gt;"),
                '"' => self.out.push_str("&quot;"),
                '\u{a0}' => self.out.push_str("&nbsp;"),
                '\n' => self.out.push_str("&#10;"),
                '\t' => self.out.push_str("&#9;"),
                '\r' => self.out.push_str("&#13;"),
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn cdata(&mut self, text: &str) {
        self.out.push_str("<![CDATA[");
        self.out.push_str(&text.replace("]]>", "]]]]><![CDATA[>"));
        self.out.push_str("]]>");
    }

    fn param(&mut self, name: &str, value: &str) {
        self.out.push_str("<ac:parameter");
        self.attr("ac:name", name);
        if value.is_empty() {
            self.out.push_str(" />");
        } else {
            self.out.push('>');
            self.push_text(value);
            self.out.push_str("</ac:parameter>");
        }
    }

    fn open_macro(&mut self, name: &str, inline_id: bool) {
        self.out.push_str("<ac:structured-macro");
        self.attr("ac:name", name);
        if self.rng.chance(50) {
            self.attr("ac:schema-version", "1");
        }
        // Confluence Cloud's id of the macro's node (ADF's `localId`), before its macro id.
        if self.rng.chance(30) {
            let id = format!(
                "{:08x}-2c47-4f9e-9a61-7b3d2e8c4f10",
                self.rng.below(1 << 30)
            );
            self.attr("ac:local-id", &id);
        }
        if inline_id && self.rng.chance(50) {
            let id = format!("m-{}", self.rng.below(1000));
            self.attr("ac:macro-id", &id);
        }
        self.out.push('>');
    }

    fn br(&mut self) {
        self.out.push_str(if self.fancy && self.rng.chance(50) {
            "<br/>"
        } else {
            "<br />"
        });
    }

    /// An inline sequence that is never empty; `nonblank` when it must not start with whitespace.
    pub fn inline(&mut self, depth: usize, nonblank: bool) {
        let n = 1 + self.rng.below(4);
        for i in 0..n {
            let first = i == 0;
            if (first && nonblank) || self.rng.chance(40) || depth == 0 {
                let t = self.text_value(first && nonblank);
                self.push_text(&t);
            } else {
                self.inline_item(depth - 1);
                // Two mark elements side by side would merge into one: text between them.
                let t = self.text_value(false);
                self.push_text(&t);
            }
        }
    }

    fn inline_item(&mut self, depth: usize) {
        match self.rng.below(19) {
            0..=4 => {
                let tag = self.rng.pick(&[
                    "strong", "em", "u", "s", "code", "sub", "sup", "b", "i", "del",
                ]);
                if self.rng.chance(15) {
                    // The same element twice side by side, each holding a text (as editors leave
                    // `<span style>`s): two elements again, not one.
                    for _ in 0..2 {
                        let t = self.text_value(true);
                        self.out.push('<');
                        self.out.push_str(tag);
                        self.out.push('>');
                        self.push_text(&t);
                        self.out.push_str("</");
                        self.out.push_str(tag);
                        self.out.push('>');
                    }
                    return;
                }
                self.out.push('<');
                self.out.push_str(tag);
                self.out.push('>');
                self.inline(depth, false);
                self.out.push_str("</");
                self.out.push_str(tag);
                self.out.push('>');
            }
            // Confluence Cloud's smart link (an `inlineCard`), or a link whose text is its URL.
            5 if self.rng.chance(30) => {
                self.out.push_str("<a");
                let href = format!(
                    "https://x.atlassian.net/browse/P-{}?a=1&b",
                    self.rng.below(9)
                );
                self.attr("href", &href);
                if self.rng.chance(80) {
                    self.attr("data-card-appearance", "inline");
                }
                self.out.push('>');
                self.push_text(&href);
                self.out.push_str("</a>");
            }
            5 => {
                self.out.push_str("<a");
                let href = format!(
                    "https://example.com/?q={}&r=<{}>",
                    self.rng.below(100),
                    self.rng.below(9)
                );
                self.attr("href", &href);
                if self.rng.chance(30) {
                    self.attr("title", "T \"q\"");
                }
                self.out.push('>');
                self.inline(depth, false);
                self.out.push_str("</a>");
            }
            6 => {
                self.out.push_str("<span");
                // Confluence's spans that are marks: colour, highlight, strikethrough, underline.
                let n = self.rng.next();
                let c = match n >> 24 & 7 {
                    0 => "text-decoration: line-through;".to_string(),
                    1 => "text-decoration: underline;".to_string(),
                    2 => format!("background-color: #{:06x};", n & 0xff_ffff),
                    3 => format!("background-color: rgb({}, 0, 0);", n & 0xff),
                    // Atlassian's form (Server, Data Center, the storage format's documentation).
                    4 | 5 => format!(
                        "color: rgb({},{},{});",
                        n & 0xff,
                        n >> 8 & 0xff,
                        n >> 16 & 0xff
                    ),
                    _ => format!("color: #{:06x};", n & 0xff_ffff),
                };
                self.attr("style", &c);
                self.out.push('>');
                self.inline(depth, false);
                self.out.push_str("</span>");
            }
            7 => {
                self.out.push_str("<ac:inline-comment-marker");
                let r = format!("ref-{}", self.rng.below(99));
                self.attr("ac:ref", &r);
                self.out.push('>');
                self.inline(depth, false);
                self.out.push_str("</ac:inline-comment-marker>");
            }
            8 => self.br(),
            9 => {
                self.out.push_str("<ac:link><ri:user");
                // Cloud's account id, Server's and Data Center's user key, older pages' user name.
                match self.rng.below(6) {
                    0 => {
                        let key = format!("{:032x}", self.rng.next());
                        self.attr("ri:userkey", &key);
                    }
                    1 => self.attr("ri:username", "j.doe"),
                    _ => {
                        let id = format!("557058:{:x}", self.rng.next());
                        self.attr("ri:account-id", &id);
                    }
                }
                self.out.push_str(" /></ac:link>");
            }
            10 => {
                self.out.push_str("<ac:link");
                if self.rng.chance(20) {
                    self.attr("ac:anchor", "sec 1");
                }
                self.out.push('>');
                let start = self.out.len();
                self.out.push_str("<ri:page");
                let title = self.text_value(true);
                // Cloud writes the space key before the title, Data Center after it.
                let space = self.rng.below(4);
                if space == 0 {
                    self.attr("ri:space-key", "ENG");
                }
                self.attr("ri:content-title", &title);
                if space == 1 {
                    self.attr("ri:space-key", "ENG");
                }
                // Server and Data Center write it on every page link.
                if self.rng.chance(30) {
                    let version = self.rng.below(40).to_string();
                    self.attr("ri:version-at-save", &version);
                }
                self.out.push_str(" />");
                // Some pages' links hold the target after the body.
                let ri = self.out.split_off(start);
                let ri_last = self.rng.chance(15);
                if !ri_last {
                    self.out.push_str(&ri);
                }
                match self.rng.below(3) {
                    0 => {
                        self.out.push_str("<ac:plain-text-link-body>");
                        let t = self.text_value(true);
                        self.cdata(&t);
                        self.out.push_str("</ac:plain-text-link-body>");
                    }
                    1 => {
                        self.out.push_str("<ac:link-body>");
                        self.inline(depth, false);
                        self.out.push_str("</ac:link-body>");
                    }
                    _ => {}
                }
                if ri_last {
                    self.out.push_str(&ri);
                }
                self.out.push_str("</ac:link>");
            }
            11 => {
                self.out.push_str("<ac:link><ri:attachment");
                self.attr("ri:filename", "report <final>.pdf");
                self.out.push_str(" /></ac:link>");
            }
            12 => {
                self.open_macro("status", true);
                let colour = self
                    .rng
                    .pick(&["Green", "Yellow", "Red", "Blue", "Grey", "purple"]);
                self.param("colour", colour);
                let title = self.text_value(true);
                self.param("title", &title);
                self.out.push_str("</ac:structured-macro>");
            }
            13 => {
                // Macros whose label (`jira: ENG-42`, `anchor: top`, `anchor`) gives back their name and
                // main parameter, and ones whose label would not: a value shortened, re-spaced or empty,
                // the main parameter under another name than the reader would give it, a value holding
                // `: `. (Macros the reader reads inline in any context: others in a bare table cell are
                // blocks, and blank text after a block is formatting.)
                let long = "a long anchor name ".repeat(4);
                let (name, params): (&str, &[(&str, &str)]) = match self.rng.below(9) {
                    0 => ("jira", &[("key", "ENG-42"), ("serverId", "abc & def")]),
                    1 => ("jira", &[("key", "ENG-42")]),
                    2 => ("anchor", &[("", "install-steps")]),
                    3 => ("anchor", &[("", long.trim_end())]),
                    4 => ("anchor", &[("", " two  spaces ")]),
                    5 => ("anchor", &[]),
                    6 => ("jira", &[("", "ENG-1")]),
                    7 => ("anchor", &[("title", "Board"), ("url", "x")]),
                    _ => ("anchor", &[("", ""), ("name", "Plan: Q3")]),
                };
                self.open_macro(name, true);
                if params.is_empty() && self.rng.chance(50) {
                    // Nothing inside: one empty tag, as Confluence writes it.
                    self.out.pop();
                    self.out.push_str(" />");
                    return;
                }
                for (k, v) in params {
                    self.param(k, v);
                }
                self.out.push_str("</ac:structured-macro>");
            }
            14 => {
                if self.rng.chance(50) {
                    self.out.push_str("<ac:emoticon");
                    let name = self.rng.pick(&["smile", "tick", "warning", "blue-star"]);
                    self.attr("ac:name", name);
                    self.out.push_str(" />");
                } else {
                    self.out.push_str("<ac:emoticon");
                    self.attr("ac:name", "blue-star");
                    self.attr("ac:emoji-shortname", ":rocket:");
                    self.attr("ac:emoji-id", "1f680");
                    self.attr("ac:emoji-fallback", "\u{1f680}");
                    self.out.push_str(" />");
                }
            }
            15 => {
                self.out.push_str("<time");
                let d = format!(
                    "20{:02}-{:02}-{:02}",
                    self.rng.below(40),
                    1 + self.rng.below(12),
                    1 + self.rng.below(28)
                );
                self.attr("datetime", &d);
                self.local_id();
                self.out.push_str(" />");
            }
            16 => {
                self.out.push_str("<ac:placeholder>");
                let t = self.text_value(true);
                self.push_text(&t);
                self.out.push_str("</ac:placeholder>");
            }
            17 => {
                // Spans that say no mark, as the editor leaves them around pasted text (written as their
                // HTML), and spans the HTML would not give back as they are (kept whole).
                self.out.push_str("<span");
                match self.rng.below(8) {
                    0 | 1 => self.attr("class", "odd one"),
                    2 | 3 => {}
                    4 => self.attr("style", "font-size: 14.0px;"),
                    5 => {
                        self.attr("class", "a");
                        self.attr("data-x", "1 > 0");
                    }
                    // Attributes out of name order come back in theirs.
                    6 if self.rng.chance(50) => {
                        self.attr("style", "color: black;");
                        self.attr("class", "a");
                        self.attr("aria-label", "x");
                    }
                    6 => self.attr("style", "color: black;"),
                    _ => self.attr("title", "a \"b\" | c"),
                }
                self.out.push('>');
                self.inline(depth, false);
                self.out.push_str("</span>");
            }
            _ => {
                self.open_macro("profile", true);
                self.out.push_str("<ac:parameter ac:name=\"user\"><ri:user ri:account-id=\"5b10ac8d82e05b22cc7d4ef5\" /></ac:parameter>");
                self.out.push_str("</ac:structured-macro>");
            }
        }
    }

    fn block_gap(&mut self) {
        if self.fancy && self.rng.chance(30) {
            self.out.push_str(self.rng.pick(&["\n", "\n  ", " "]));
        }
    }

    /// Blocks (never empty); `top` allows layouts.
    pub fn blocks(&mut self, depth: usize, top: bool) {
        let n = 1 + self.rng.below(3);
        for i in 0..n {
            if i > 0 {
                self.block_gap();
            }
            self.block(depth, top, i == n - 1);
        }
    }

    /// The id Confluence Cloud gives nearly every block, on some.
    fn local_id(&mut self) {
        if self.rng.chance(30) {
            let id = format!("{:012x}", self.rng.below(1 << 40));
            self.attr("local-id", &id);
        }
    }

    /// A paragraph's or heading's style, on some: the styles of the block marks as Confluence writes them
    /// and as others do, and styles that say no mark; at times between other attributes.
    fn block_style(&mut self) {
        if !self.rng.chance(12) {
            return;
        }
        if self.rng.chance(20) {
            self.attr("class", "x");
        }
        let style = self.rng.pick(&[
            "text-align: center;",
            "text-align: right;",
            "margin-left: 30.0px;",
            "margin-left: 90.0px;",
            "margin-left: 180.0px;",
            "text-align:center",
            "TEXT-ALIGN: Right",
            "margin-left: 60px;",
            "text-align: left;",
            "text-align: justify;",
            "margin-left: 45.0px;",
            "margin-left: 210.0px;",
            "text-align: center; margin-left: 30.0px;",
            "margin-left: 30.5px;",
        ]);
        self.attr("style", style);
        if self.rng.chance(20) {
            self.attr("title", "t");
        }
    }

    /// The id Confluence Cloud gives a table, its rows and cells (`ac:local-id`), on some.
    fn ac_local_id(&mut self) {
        if self.rng.chance(30) {
            let id = format!("{:012x}", self.rng.below(1 << 40));
            self.attr("ac:local-id", &id);
        }
    }

    /// A panel or decision list as Confluence Cloud keeps it: its fallback none, in the form Confluence
    /// writes (the writer writes it again from the content), or another (kept as it came).
    fn adf_extension(&mut self, depth: usize) {
        let panel = self.rng.chance(60);
        let mut fallback = String::new();
        self.out.push_str("<ac:adf-extension>");
        if panel {
            self.out.push_str("<ac:adf-node type=\"panel\">");
            let ty = format!(
                "<ac:adf-attribute key=\"panel-type\">{}</ac:adf-attribute>",
                self.rng.pick(&["note", "custom"])
            );
            // A custom panel's icon and colour, before or after its type (the writer's order is type,
            // icon, colour).
            let extra = "<ac:adf-attribute key=\"panel-icon-id\">1f922</ac:adf-attribute><ac:adf-attribute key=\"panel-color\">#E3FCEF</ac:adf-attribute>";
            match self.rng.below(4) {
                0 => self.out.push_str(&format!("{extra}{ty}")),
                1 => self.out.push_str(&format!("{ty}{extra}")),
                _ => self.out.push_str(&ty),
            }
            self.out.push_str("<ac:adf-content>");
            let start = self.out.len();
            if self.rng.chance(50) {
                // Confluence's fallback has no `local-id`s.
                self.out.push_str("<p local-id=\"9638bc40c192\">");
                let text = self.out.len();
                self.inline(depth - 1, false);
                fallback = format!("<p>{}</p>", &self.out[text..]);
                self.out.push_str("</p>");
            }
            let rest = self.out.len();
            self.blocks(depth - 1, false);
            fallback.push_str(&self.out[rest..]);
            debug_assert!(start <= rest);
            fallback = format!("<div class=\"panel\">{fallback}</div>");
            self.out.push_str("</ac:adf-content>");
        } else {
            self.out.push_str("<ac:adf-node type=\"decision-list\">");
            fallback.push_str("<ul class=\"decision-list\">");
            for i in 0..1 + self.rng.below(3) {
                let id = format!("<ac:adf-attribute key=\"local-id\">i{i}</ac:adf-attribute>");
                let state = "<ac:adf-attribute key=\"state\">DECIDED</ac:adf-attribute>";
                self.out.push_str("<ac:adf-node type=\"decision-item\">");
                if self.rng.chance(25) {
                    self.out.push_str(&format!("{state}{id}"));
                } else {
                    self.out.push_str(&format!("{id}{state}"));
                }
                self.out.push_str("<ac:adf-content>");
                let text = self.out.len();
                // Not whitespace alone, which block context reads as none.
                self.out.push_str("We ");
                self.inline(depth - 1, false);
                fallback.push_str(&format!("<li>{}</li>", &self.out[text..]));
                self.out.push_str("</ac:adf-content></ac:adf-node>");
            }
            fallback.push_str("</ul>");
        }
        self.out.push_str("</ac:adf-node>");
        match self.rng.below(3) {
            0 => {}
            1 => {
                self.out.push_str("<ac:adf-fallback>");
                self.out.push_str(&fallback);
                self.out.push_str("</ac:adf-fallback>");
            }
            _ => self.out.push_str(
                "<ac:adf-fallback><div class=\"panel\"><p>older</p></div></ac:adf-fallback>",
            ),
        }
        self.out.push_str("</ac:adf-extension>");
    }

    fn block(&mut self, depth: usize, top: bool, last: bool) {
        let choice = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(19)
        };
        match choice {
            0 => {
                if self.rng.chance(10) {
                    self.out
                        .push_str(if self.fancy { "<p></p>" } else { "<p />" });
                } else if self.rng.chance(8) {
                    // The Data Center editor's cursor target, or a paragraph of that class holding more.
                    self.out.push_str(self.rng.pick(&[
                        r#"<p class="auto-cursor-target"><br /></p>"#,
                        r#"<p class="auto-cursor-target"><br /><br /></p>"#,
                        r#"<p class="auto-cursor-target">x<br /></p>"#,
                    ]));
                } else {
                    self.out.push_str("<p");
                    self.local_id();
                    self.block_style();
                    self.out.push('>');
                    self.inline(depth, false);
                    self.out.push_str("</p>");
                }
            }
            1 => {
                let level = 1 + self.rng.below(6);
                self.out.push_str(&format!("<h{level}"));
                self.local_id();
                self.block_style();
                self.out.push('>');
                self.inline(depth, false);
                self.out.push_str(&format!("</h{level}>"));
            }
            // Smart links at block level: a block card, an embed card (always with a layout: without one
            // it is a link, and two links side by side would be one).
            2 if self.rng.chance(15) => {
                self.out.push_str("<a");
                self.attr("href", "https://x.atlassian.net/wiki/spaces/A/pages/1");
                let appearance = self.rng.pick(&["block", "embed"]);
                self.attr("data-card-appearance", appearance);
                if appearance == "embed" || self.rng.chance(50) {
                    self.attr("data-layout", "center");
                }
                if appearance == "embed" && self.rng.chance(50) {
                    self.attr("data-width", "100.00");
                }
                self.out
                    .push_str(">https://x.atlassian.net/wiki/spaces/A/pages/1</a>");
            }
            2 => self.out.push_str(if self.fancy && self.rng.chance(50) {
                "<hr/>"
            } else {
                "<hr />"
            }),
            3 | 4 => {
                let ordered = self.rng.chance(50);
                self.out.push_str(if ordered { "<ol" } else { "<ul" });
                // Data Center's `<ol>`, Cloud's `<ol start="1" local-id>`, and the other shapes.
                if ordered && self.rng.chance(50) {
                    let most = if self.rng.chance(50) { 1 } else { 20 };
                    let start = (1 + self.rng.below(most)).to_string();
                    self.attr("start", &start);
                }
                self.local_id();
                self.out.push('>');
                for _ in 0..1 + self.rng.below(3) {
                    self.out.push_str("<li");
                    self.local_id();
                    if self.rng.chance(5) {
                        self.out.push_str(" />");
                        continue;
                    }
                    self.out.push('>');
                    match self.rng.below(3) {
                        0 => self.blocks(depth - 1, false),
                        1 => self.inline(depth - 1, true),
                        _ => {
                            self.inline(depth - 1, true);
                            // A nested list holding paragraphs, its text bare (as Server's editor
                            // writes every list), or blocks.
                            match self.rng.below(3) {
                                0 => {
                                    self.out.push_str("<ul><li><p>");
                                    self.inline(depth - 1, false);
                                    self.out.push_str("</p></li></ul>");
                                }
                                1 => {
                                    self.out.push_str("<ul><li>");
                                    self.inline(depth - 1, true);
                                    self.out.push_str("</li><li>");
                                    self.inline(depth - 1, true);
                                    self.out.push_str("</li></ul>");
                                }
                                _ => {
                                    self.out.push_str("<ol><li>");
                                    self.blocks(depth - 1, false);
                                    self.out.push_str("</li></ol>");
                                }
                            }
                        }
                    }
                    self.out.push_str("</li>");
                }
                self.out.push_str(if ordered { "</ol>" } else { "</ul>" });
            }
            5 => {
                self.out.push_str("<blockquote>");
                self.blocks(depth - 1, false);
                self.out.push_str("</blockquote>");
            }
            6 => {
                self.out.push_str("<table");
                if self.rng.chance(30) {
                    let width = self.rng.pick(&["760", "1800"]);
                    self.attr("data-table-width", width);
                }
                if self.rng.chance(50) {
                    let layout = self.rng.pick(&["default", "default", "wide"]);
                    self.attr("data-layout", layout);
                }
                self.ac_local_id();
                // Data Center's class, after the attributes the writer maps (as it writes them).
                if self.rng.chance(30) {
                    self.attr("class", "wrapped");
                }
                self.out.push('>');
                // Server's and Data Center's colgroup: an empty `<col />` a column, or widths.
                match self.rng.below(6) {
                    0 | 1 => {
                        self.out.push_str("<colgroup>");
                        for _ in 0..1 + self.rng.below(3) {
                            self.out.push_str("<col />");
                        }
                        self.out.push_str("</colgroup>");
                    }
                    2 => self
                        .out
                        .push_str(r#"<colgroup><col style="width: 80.0px;" /></colgroup>"#),
                    _ => {}
                }
                self.out.push_str("<tbody>");
                // Cells holding their text bare (`<td>text</td>`, Atlassian's own examples) or nothing.
                let bare = self.rng.chance(40);
                // The column whose cells say `colspan="1"` (or `rowspan="1"`), as a column the editor
                // added does.
                let one = self.rng.below(4);
                let one_span = if self.rng.chance(70) {
                    "colspan"
                } else {
                    "rowspan"
                };
                // Numbered rows: the first cell of each row (mostly) says `class="numberingColumn"`.
                let numbered = self.rng.chance(20);
                // A table pasted from a rendered page: each cell (mostly) says its kind's class.
                let classed = self.rng.chance(20);
                for r in 0..1 + self.rng.below(3) {
                    self.out.push_str("<tr");
                    self.ac_local_id();
                    self.out.push('>');
                    for at in 0..1 + self.rng.below(3) {
                        let tag = if r == 0 { "th" } else { "td" };
                        self.out.push('<');
                        self.out.push_str(tag);
                        let colspan = if self.rng.chance(20) {
                            Some("2")
                        } else {
                            (at == one && one_span == "colspan" && self.rng.chance(90))
                                .then_some("1")
                        };
                        if let Some(n) = colspan {
                            self.attr("colspan", n);
                        }
                        if self.rng.chance(10) {
                            self.attr("rowspan", "3");
                        } else if at == one && one_span == "rowspan" && self.rng.chance(90) {
                            self.attr("rowspan", "1");
                        }
                        // After the spans: the writer's order (XML's attributes have none; see
                        // docs/text-storage.md).
                        self.ac_local_id();
                        if at == 0 && numbered && self.rng.chance(90) {
                            self.attr("class", "numberingColumn");
                        } else if classed && self.rng.chance(95) {
                            self.attr(
                                "class",
                                if r == 0 {
                                    "confluenceTh"
                                } else {
                                    "confluenceTd"
                                },
                            );
                        }
                        match self.rng.below(10) {
                            6 if bare => {
                                self.out.push_str(" />");
                                continue;
                            }
                            0..=5 if bare => {
                                self.out.push('>');
                                self.inline(depth - 1, true);
                            }
                            // Paragraphs of text alone, as documentation tables hold them.
                            8 => {
                                self.out.push('>');
                                for _ in 0..2 + self.rng.below(2) {
                                    self.out.push_str("<p>");
                                    self.inline(depth - 1, true);
                                    self.out.push_str("</p>");
                                }
                            }
                            // Server's and Data Center's editor wraps a cell holding a macro or an image.
                            7 => {
                                self.out.push_str("><div class=\"content-wrapper\">");
                                self.blocks(depth - 1, false);
                                self.out.push_str("</div>");
                            }
                            _ => {
                                self.out.push('>');
                                self.blocks(depth - 1, false);
                            }
                        }
                        self.out.push_str(&format!("</{tag}>"));
                    }
                    self.out.push_str("</tr>");
                }
                self.out.push_str("</tbody></table>");
            }
            7 => {
                // A code block, or a macro whose body is plain text too (an extension in ADF, a fence
                // under its marker in Markdown).
                let name = if self.rng.chance(30) {
                    self.rng.pick(&["plantuml", "html", "noformat"])
                } else {
                    "code"
                };
                self.open_macro(name, true);
                if name == "code" && self.rng.chance(70) {
                    let lang = self.rng.pick(&["rust", "bash", "c++", "python"]);
                    self.param("language", lang);
                }
                if self.rng.chance(30) {
                    // One a fence's info string shows, one it cannot.
                    let title = self.rng.pick(&["deploy.sh", "file <1>.rs"]);
                    self.param("title", title);
                }
                let body = self.text_value(true) + "\n  " + &self.text_value(false) + "]]>";
                self.out.push_str("<ac:plain-text-body>");
                self.cdata(&body);
                self.out
                    .push_str("</ac:plain-text-body></ac:structured-macro>");
            }
            8 | 9 => {
                let name = self
                    .rng
                    .pick(&["info", "note", "tip", "warning", "panel", "expand"]);
                self.open_macro(name, true);
                if name == "panel" && self.rng.chance(50) {
                    self.param("bgColor", "#deebff");
                }
                if self.rng.chance(50) {
                    let title = self.text_value(true);
                    self.param("title", &title);
                }
                self.out.push_str("<ac:rich-text-body>");
                self.blocks(depth - 1, false);
                self.out
                    .push_str("</ac:rich-text-body></ac:structured-macro>");
            }
            10 => {
                self.out.push_str("<ac:structured-macro");
                self.attr("ac:name", "toc");
                self.attr("ac:schema-version", "1");
                self.attr("data-layout", "default");
                self.attr("ac:local-id", "loc-1");
                self.attr("ac:macro-id", "mac-1");
                self.out.push('>');
                self.param("maxLevel", "3");
                self.param("style", "none");
                self.out.push_str("</ac:structured-macro>");
            }
            11 => {
                self.open_macro("details", true);
                self.param("id", "x");
                self.out.push_str("<ac:rich-text-body>");
                self.blocks(depth - 1, false);
                self.out
                    .push_str("</ac:rich-text-body></ac:structured-macro>");
            }
            12 => {
                self.out.push_str("<ac:task-list>");
                for i in 0..1 + self.rng.below(3) {
                    self.out
                        .push_str(&format!("<ac:task><ac:task-id>{}</ac:task-id>", i + 1));
                    let status = self.rng.pick(&["complete", "incomplete"]);
                    self.out.push_str(&format!(
                        "<ac:task-status>{status}</ac:task-status><ac:task-body>"
                    ));
                    self.inline(depth - 1, false);
                    self.out.push_str("</ac:task-body></ac:task>");
                }
                self.out.push_str("</ac:task-list>");
            }
            13 if top => {
                self.out.push_str("<ac:layout>");
                for _ in 0..1 + self.rng.below(2) {
                    // Atlassian's presets (their cells most often their number), Cloud's breakout (none,
                    // as Data Center; `default`; `wide` or `full-width` with a width or not; another),
                    // in Cloud's order or another, at times with an attribute of no meaning here.
                    let (kind, count) = [
                        ("single", 1),
                        ("two_equal", 2),
                        ("two_left_sidebar", 2),
                        ("two_right_sidebar", 2),
                        ("three_equal", 3),
                        ("three_with_sidebars", 3),
                        ("fixed-width", 1),
                    ][self.rng.below(7)];
                    let count = if self.rng.chance(80) {
                        count
                    } else {
                        1 + self.rng.below(3)
                    };
                    let mut attrs = vec![("ac:type", kind)];
                    match self.rng.below(10) {
                        0..3 => {}
                        3..7 => attrs.push(("ac:breakout-mode", "default")),
                        7 | 8 => {
                            let mode = self.rng.pick(&["wide", "full-width"]);
                            attrs.push(("ac:breakout-mode", mode));
                            if self.rng.chance(50) {
                                attrs.push(("ac:breakout-width", "1800"));
                            }
                        }
                        _ => attrs.push(("ac:breakout-mode", "center")),
                    }
                    if self.rng.chance(10) {
                        attrs.push(("data-x", "1"));
                    }
                    if self.rng.chance(15) {
                        attrs.reverse();
                    }
                    self.out.push_str("<ac:layout-section");
                    for (k, v) in attrs {
                        self.attr(k, v);
                    }
                    self.out.push('>');
                    for _ in 0..count {
                        self.out.push_str("<ac:layout-cell>");
                        self.blocks(depth - 1, false);
                        self.out.push_str("</ac:layout-cell>");
                    }
                    self.out.push_str("</ac:layout-section>");
                }
                self.out.push_str("</ac:layout>");
            }
            14 => {
                // In the order Confluence Cloud writes them: an alignment and a layout as Cloud pairs
                // them, or either alone (Data Center's `ac:align`), or a pair Cloud would not write. Data
                // Center writes a block image as a paragraph's only content.
                let in_p = self.rng.chance(25);
                if in_p {
                    self.out.push_str("<p>");
                }
                self.out.push_str("<ac:image");
                let mut attrs: Vec<(&str, &str)> = Vec::new();
                let (align, layout) = match self.rng.below(6) {
                    0 => (Some("center"), Some("center")),
                    1 => (Some("left"), Some("align-start")),
                    2 => (
                        Some(self.rng.pick(&["center", "left", "right", "middle"])),
                        None,
                    ),
                    3 => (
                        None,
                        Some(self.rng.pick(&["wide", "wrap-right", "sideways"])),
                    ),
                    4 => (Some("right"), Some("center")),
                    _ => (None, None),
                };
                if let Some(align) = align {
                    attrs.push(("ac:align", align));
                }
                if let Some(layout) = layout {
                    attrs.push(("ac:layout", layout));
                }
                if self.rng.chance(40) {
                    // The file's size: with a width of its own (Cloud's resized image) or alone (Cloud's
                    // image at its file's size).
                    attrs.push(("ac:original-height", "668"));
                    attrs.push(("ac:original-width", "1024"));
                    if self.rng.chance(60) {
                        attrs.push(("ac:custom-width", "true"));
                    }
                }
                if self.rng.chance(50) {
                    attrs.push(("ac:alt", "a \"diagram\""));
                }
                if self.rng.chance(50) {
                    attrs.push(("ac:width", "640"));
                }
                if self.rng.chance(20) {
                    attrs.push(("ac:height", "480"));
                }
                if self.rng.chance(20) {
                    attrs.push(("ac:thumbnail", "true"));
                }
                if self.rng.chance(30) {
                    // Cloud's image with an id writes its attributes by name; others write them in
                    // another order still.
                    attrs.push(("ac:local-id", "8bfbff4b9417"));
                    if self.rng.chance(70) {
                        attrs.sort();
                    }
                }
                if self.rng.chance(10) {
                    attrs.reverse();
                }
                for (k, v) in attrs {
                    self.attr(k, v);
                }
                self.out.push('>');
                if self.rng.chance(50) {
                    self.out.push_str("<ri:attachment");
                    self.attr("ri:filename", "diagram & co.png");
                    if self.rng.chance(50) {
                        self.attr("ri:version-at-save", "3");
                    }
                    // Attached to another page: its title and space, or a form kept as it is.
                    match self.rng.below(6) {
                        0 => self.out.push_str(
                            r#"><ri:page ri:content-title="Other page" ri:space-key="DOC" /></ri:attachment>"#,
                        ),
                        1 => self.out.push_str(
                            r#"><ri:page ri:space-key="DOC" ri:content-title="A &amp; B" /></ri:attachment>"#,
                        ),
                        2 => self.out.push_str(
                            r#"><ri:page ri:space-key="DOC" ri:content-title="Other page" /></ri:attachment>"#,
                        ),
                        _ => self.out.push_str(" />"),
                    }
                } else {
                    self.out.push_str("<ri:url");
                    self.attr("ri:value", "https://example.com/a.png?x=1&y=2");
                    self.out.push_str(" />");
                }
                if self.rng.chance(30) {
                    // Its text in a `<p>` as Confluence writes it, or bare.
                    let p = self.rng.chance(50);
                    self.out
                        .push_str(if p { "<ac:caption><p>" } else { "<ac:caption>" });
                    self.inline(depth - 1, false);
                    self.out.push_str(if p {
                        "</p></ac:caption>"
                    } else {
                        "</ac:caption>"
                    });
                }
                self.out.push_str("</ac:image>");
                if in_p {
                    self.out.push_str("</p>");
                }
            }
            15 => {
                self.out.push_str("<div");
                self.attr("class", "wrap");
                if self.rng.chance(30) {
                    self.attr("align", "center");
                }
                self.out.push('>');
                self.blocks(depth - 1, false);
                self.out.push_str("</div>");
            }
            16 if last => {
                // A run of inline content straight in block context (an implicit paragraph), last so that
                // no whitespace-only gap follows it.
                self.inline(depth - 1, true);
            }
            17 => {
                self.out.push_str("<pre>");
                self.inline(depth - 1, false);
                self.out.push_str("</pre>");
            }
            18 => self.adf_extension(depth),
            _ => {
                self.out.push_str("<p>");
                self.inline(depth - 1, false);
                self.out.push_str("</p>");
            }
        }
    }
}

pub fn document(seed: u64, fancy: bool) -> String {
    let mut g = Gen::new(seed, fancy);
    let depth = 1 + g.rng.below(5);
    g.blocks(depth, true);
    g.out
}

/// Seeds per property (`MCP_TEXT_CASES` and `MCP_TEXT_FIRST` override: `gen::seeds`).
const CASES: u64 = 1500;

/// Where two strings first differ, with some context (the whole documents are long).
pub fn diff(a: &str, b: &str) -> String {
    let (at, start) = crate::difference::first_difference(a, b, 150);
    let end = |s: &str| {
        let mut e = (at + 150).min(s.len());
        while !s.is_char_boundary(e) {
            e -= 1;
        }
        e
    };
    format!(
        "at byte {at}:\n  got:  {}\n  want: {}",
        &a[start..end(a)],
        &b[start..end(b)]
    )
}

#[test]
fn random_documents_come_back_byte_for_byte() {
    for seed in seeds(CASES) {
        let xml = document(seed, false);
        let read = storage::read(&xml).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{xml}"));
        let written = storage::write(&read.doc);
        assert!(
            written == xml,
            "seed {seed}: storage → model → storage {}",
            diff(&written, &xml)
        );
    }
}

#[test]
fn random_documents_in_other_spellings_come_back_normalised() {
    for seed in seeds(CASES) {
        let xml = document(seed, true);
        let read = storage::read(&xml).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{xml}"));
        let written = storage::write(&read.doc);
        let (got, want) = (normalise(&written), normalise(&xml));
        assert!(got == want, "seed {seed}: {}", diff(&got, &want));
        let again = storage::read(&written)
            .expect("the writer writes well-formed XML")
            .doc;
        assert_eq!(
            again, read.doc,
            "seed {seed}: the written storage reads as another model"
        );
    }
}

#[test]
fn random_documents_survive_adf_json() {
    for seed in seeds(CASES) {
        let xml = document(seed, false);
        let doc = storage::read(&xml).unwrap().doc;
        let json = adf::write(&doc);
        let back = adf::read(json.as_bytes()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(back, doc, "seed {seed}");
        let written = storage::write(&back);
        assert!(
            written == xml,
            "seed {seed}: storage → model → ADF → model → storage {}",
            diff(&written, &xml)
        );
    }
}

#[test]
fn the_generator_makes_fallbacks_the_writer_writes_again_and_fallbacks_it_keeps() {
    let (mut again, mut kept) = (0, 0);
    for seed in 0..300 {
        let json = adf::write(&storage::read(&document(seed, false)).unwrap().doc);
        again += json.matches("\"fallback\":true").count();
        kept += json.matches("\"fallback\":\"<ac:adf-fallback").count();
    }
    assert!(
        again > 10 && kept > 10,
        "{again} written again, {kept} kept"
    );
}
