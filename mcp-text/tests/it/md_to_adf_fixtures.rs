//! The fixtures of npm `md-to-adf` (0.6.4, `test/feature/*.feature` with `test/markdown-capture/*`), run as
//! its own cucumber steps run them (`test/step/test-common.js`), against our Markdown reader:
//!
//! - `the markdown in GITHUB is '…'`, `… is :` with a table of lines (a cell `'…` is the line, `'   '` the
//!   blanks), `… the same than in the markdown file named '…'`, the carriage-return scenario;
//! - `the ADF chunk at content path [i, j, …] has type '…'` / `has attribute '{…}'` (attrs contain it) /
//!   `contains '{…}'` (some child of that node has those members, each equal), and `the ADF document
//!   content has all the object defined in json file named '…'` (each is equal to some top-level node).
//!
//! One reading differs from jest's: a node's marks are compared as a set, not a list (ADF marks are a set;
//! the editor orders them by its own rank, md-to-adf by the order it met them).
//!
//! Where we differ from what md-to-adf expects, `KNOWN_DIFFERENCES` names the step and why ours is right by
//! the official schema or CommonMark; the list may only shrink.

use serde_json::Value;

use mcp_text::{adf, markdown};

use crate::schema::{schema, short};

pub const FIXTURES: &str = ".peers/text/node_modules/md-to-adf/test";

/// (scenario, the step's text or a part of it, why ours is right).
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "Complex blockquote - blockquote with list inside (UNSUPPORTED BY JIRA FOR NOW -- non breaking test)",
        "content path [ 0, 0 ]",
        "CommonMark: `> * item` is a bullet list inside the block quote (spec 5.1); md-to-adf's parser reads it as a paragraph. A bullet list is a valid blockquote child in the schema",
    ),
    (
        "Base formatting - Code block inside an unordered list starting with a header",
        "content path [ 1, 0,",
        "CommonMark: `* ```Javascript` opens a fenced code block as the item's first block; the schema allows a codeBlock as a listItem's first child, so no filler paragraph with a lone space is added (md-to-adf adds one)",
    ),
    (
        "Formatting - Simple ordered list",
        "simple-ordered-list",
        "ours writes `attrs: {order: 1}` on each orderedList, as the Atlassian editor does; md-to-adf omits it (both valid: `order` is optional and defaults to 1)",
    ),
    (
        "Formatting - Complex ordered list",
        "complex-ordered-list",
        "ours writes `attrs: {order: 1}` on each orderedList, as the Atlassian editor does; md-to-adf omits it (both valid: `order` is optional and defaults to 1)",
    ),
    (
        "Formatting - Mix unordered/ordered list multilevel",
        "mix-lists",
        "CommonMark: an ordered list may interrupt a paragraph only when it starts at 1 (spec 5.3), so `1234. This…` under a list item's paragraph is a lazy continuation line of that paragraph, not a nested list; md-to-adf nests it",
    ),
    (
        "Base formatting - Emoji in a paragraph",
        "",
        "`:smile:` is text in CommonMark and the GFM spec (shortcodes are a renderer feature of github.com, in no spec); reading every `:word:` as an emoji would change prose like `a:b:c`. Our emoji form is `[😄](emoji::smile:#1f604)`",
    ),
    (
        "Header 1 followed by paragraph with divider",
        "content path [ 0 ]",
        "CommonMark: in `**bold *header* **tag` the last `**` follows a space, so it is not right-flanking and closes nothing: `**bold ` and ` **tag` stay literal text (pulldown-cmark and the spec's reference renderer agree); md-to-adf's own parser closes it",
    ),
    (
        "Header 1 followed by paragraph with divider",
        "content path [ 2 ]",
        "CommonMark: `And a paragraph` followed by a line of `-` is a setext heading of level 2 (spec 4.3), not a paragraph and a rule",
    ),
    (
        "Header 1 followed by paragraph with divider",
        "content path [ 3 ]",
        "CommonMark: the `---` line is the setext underline of the heading before it (spec 4.3), so no rule follows",
    ),
    (
        "Header 1 followed by paragraph with divider and spacing",
        "content path [ 0 ]",
        "CommonMark: in `**bold *header* **tag` the last `**` follows a space, so it is not right-flanking and closes nothing: `**bold ` and ` **tag` stay literal text (pulldown-cmark and the spec's reference renderer agree); md-to-adf's own parser closes it",
    ),
    (
        "Header 1 followed by paragraph with divider and breaking lines",
        "content path [ 0 ]",
        "CommonMark: in `**bold *header* **tag` the last `**` follows a space, so it is not right-flanking and closes nothing: `**bold ` and ` **tag` stay literal text (pulldown-cmark and the spec's reference renderer agree); md-to-adf's own parser closes it",
    ),
    (
        "Header 1 followed by paragraph with divider and breaking lines",
        "content path [ ",
        "md-to-adf turns each extra blank line into a paragraph holding a lone space, so its later nodes sit at other paths; CommonMark: blank lines separate blocks and make no node (and a text node must not be empty in ADF). Ours: heading, rule, paragraph, rule, as the Markdown says",
    ),
    (
        "Base formatting - multiple interwoven bold and italic work with star even when non-terminated correctly",
        "content path [ 0 ]",
        "CommonMark's delimiter rules (spec 6.2, rules 1-17): in `**bold and also *italic with** *Markdown.` the `**` after `with` closes the `**` before `bold`, and the lone `*` before `italic` and the `*` before `Markdown` (left-flanking only) stay literal; md-to-adf pairs them differently",
    ),
    (
        "Base formatting - multimix of emphasis",
        "content path [ 0 ]",
        "CommonMark: in `**bold *header* **tag` the last `**` follows a space, so it is not right-flanking and closes nothing: `**bold ` and ` **tag` stay literal text (pulldown-cmark and the spec's reference renderer agree); md-to-adf's own parser closes it",
    ),
    (
        "Base formatting - multimix of emphasis with strikethrough (GH extension)",
        "content path [ 0 ]",
        "CommonMark: in `**bold *header* **tag` the last `**` follows a space, so it is not right-flanking and closes nothing: `**bold ` and ` **tag` stay literal text (pulldown-cmark and the spec's reference renderer agree); md-to-adf's own parser closes it",
    ),
    (
        "Base formatting - Header 1 with multimix emphasis",
        "content path [ 0 ]",
        "CommonMark: in `**bold *header* **tag` the last `**` follows a space, so it is not right-flanking and closes nothing: `**bold ` and ` **tag` stay literal text (pulldown-cmark and the spec's reference renderer agree); md-to-adf's own parser closes it",
    ),
    (
        "Base formatting - Header 1 followed by paragraph",
        "content path [ 0 ]",
        "CommonMark: in `**bold *header* **tag` the last `**` follows a space, so it is not right-flanking and closes nothing: `**bold ` and ` **tag` stay literal text (pulldown-cmark and the spec's reference renderer agree); md-to-adf's own parser closes it",
    ),
    (
        "Headers, List, emphasis, smiley, inline code, empty lines and code block",
        "",
        "the scenario chains three CommonMark disagreements: the heading's emphasis (the last `**` follows a space and closes nothing), `:+1:` (text in CommonMark/GFM, see the emoji scenarios), and the lazy continuation lines of the second list item (`:+1:` and the indented lines after it belong to that item's paragraph per spec 5.2/4.8, so the later nodes sit at other paths)",
    ),
    (
        "Multiple block with empty lines and code block with weird indent",
        "",
        "md-to-adf turns blank lines into paragraphs holding a lone space and reads the two-space-indented ``` fence as text; CommonMark: blank lines separate blocks and make no node (an empty text node is invalid in ADF anyway), and a fence may be indented up to 3 spaces (spec 4.5), so ours has the code blocks and no filler paragraphs: every later node sits at another path",
    ),
];

struct Scenario {
    feature: String,
    name: String,
    markdown: String,
    steps: Vec<String>,
}

/// A cell of a Gherkin table, as its parser reads it: trimmed, `\|`, `\\` and `\n` unescaped.
fn cell(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some('|')) | ('\\', Some('\\')) => out.push(chars.next().unwrap()),
            ('\\', Some('n')) => {
                chars.next();
                out.push('\n')
            }
            _ => out.push(c),
        }
    }
    out
}

/// A table line as `test-common.js` reads it: `'   '` is blanks, `'text` is text, anything else itself.
fn table_line(cell: &str) -> String {
    if let Some(inner) = cell.strip_prefix('\'') {
        if let Some(blanks) = inner.strip_suffix('\'') {
            if blanks.chars().all(char::is_whitespace) {
                return blanks.to_string();
            }
        }
        return inner.to_string();
    }
    cell.to_string()
}

fn scenarios(dir: &std::path::Path) -> Vec<Scenario> {
    let mut features: Vec<_> = std::fs::read_dir(dir.join("feature"))
        .expect("feature dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    features.sort();
    let mut out: Vec<Scenario> = Vec::new();
    for path in features {
        let feature = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("a feature file");
        let mut lines = text.lines().map(str::trim).peekable();
        while let Some(line) = lines.next() {
            if let Some(name) = line.strip_prefix("Scenario:") {
                out.push(Scenario {
                    feature: feature.clone(),
                    name: name.trim().to_string(),
                    markdown: String::new(),
                    steps: Vec::new(),
                });
                continue;
            }
            let Some(current) = out.last_mut() else {
                continue;
            };
            let step = ["Given ", "When ", "Then ", "And "]
                .iter()
                .find_map(|k| line.strip_prefix(k));
            let Some(step) = step else { continue };
            if let Some(md) = step
                .strip_prefix("the markdown in GITHUB is '")
                .and_then(|s| s.strip_suffix('\''))
            {
                current.markdown = md.to_string();
            } else if step == "the markdown in GITHUB is :" {
                let mut rows = Vec::new();
                while let Some(row) = lines.peek().filter(|l| l.starts_with('|')) {
                    let inner = row.trim_start_matches('|');
                    let inner = inner.strip_suffix('|').unwrap_or(inner);
                    rows.push(table_line(&cell(inner)));
                    lines.next();
                }
                current.markdown = rows.join("\n");
            } else if let Some(name) = step
                .strip_prefix("the markdown in GITHUB the same than in the markdown file named '")
                .and_then(|s| s.strip_suffix('\''))
            {
                current.markdown = std::fs::read_to_string(
                    dir.join("markdown-capture").join(format!("{name}.md")),
                )
                .expect("a capture");
            } else if step == "the markdown has a mix of carriage return and breakline" {
                current.markdown =
                    "This is a paragraph, with a breakline\nand a carriage return\r".to_string();
            } else if step.starts_with("the ADF ") {
                current.steps.push(step.to_string());
            }
        }
    }
    out
}

/// `[ 2, 0, 1 ]` → doc.content[2].content[0].content[1].
fn at_path<'v>(doc: &'v Value, path: &str) -> Result<&'v Value, String> {
    let mut node = doc;
    for index in path.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let i: usize = index.parse().map_err(|_| format!("bad path {path}"))?;
        node = node["content"]
            .get(i)
            .ok_or_else(|| format!("no node at content path [{path}]"))?;
    }
    Ok(node)
}

/// `expected`'s members are in `actual`, each equal (marks as a set).
fn contains(actual: &Value, expected: &Value) -> bool {
    let (Some(a), Some(e)) = (actual.as_object(), expected.as_object()) else {
        return actual == expected;
    };
    e.iter().all(|(k, v)| match (k.as_str(), a.get(k)) {
        ("marks", Some(Value::Array(am))) => {
            let em = v.as_array().cloned().unwrap_or_default();
            am.len() == em.len() && em.iter().all(|m| am.contains(m))
        }
        (_, Some(av)) => equal(av, v),
        (_, None) => false,
    })
}

/// Deep equality with marks compared as sets.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && contains(a, b),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        _ => a == b,
    }
}

fn run_step(dir: &std::path::Path, doc: &Value, step: &str) -> Result<(), String> {
    let quoted =
        |s: &str| -> Option<String> { Some(s[s.find('\'')? + 1..s.rfind('\'')?].to_string()) };
    if let Some(rest) = step.strip_prefix("the ADF chunk at content path [") {
        let (path, rest) = rest.split_once(']').ok_or("no ]")?;
        let node = at_path(doc, path)?;
        let arg = quoted(rest).ok_or("no argument")?;
        if rest.trim_start().starts_with("has type") {
            return (node["type"] == arg.as_str())
                .then_some(())
                .ok_or_else(|| format!("type is {}", node["type"]));
        }
        let expected: Value =
            serde_json::from_str(&arg).map_err(|e| format!("fixture JSON: {e}"))?;
        if rest.trim_start().starts_with("has attribute") {
            return contains(&node["attrs"], &expected)
                .then_some(())
                .ok_or_else(|| format!("attrs are {}", node["attrs"]));
        }
        let children = node["content"].as_array().cloned().unwrap_or_default();
        return children
            .iter()
            .any(|c| contains(c, &expected))
            .then_some(())
            .ok_or_else(|| {
                format!(
                    "children are {}",
                    short(&Value::Array(children).to_string(), 800)
                )
            });
    }
    if let Some(name) = step
        .strip_prefix("the ADF document content has all the object defined in json file named '")
    {
        let name = name.trim_end_matches('\'');
        let text =
            std::fs::read_to_string(dir.join("markdown-capture").join(format!("{name}.json")))
                .map_err(|e| e.to_string())?;
        let expected: Vec<Value> = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let top = doc["content"].as_array().cloned().unwrap_or_default();
        let missing: Vec<&Value> = expected
            .iter()
            .filter(|e| !top.iter().any(|t| equal(t, e)))
            .collect();
        return missing.is_empty().then_some(()).ok_or_else(|| {
            format!(
                "{} expected nodes missing, first {}; the document: {}",
                missing.len(),
                short(&missing[0].to_string(), 600),
                short(&doc.to_string(), 800)
            )
        });
    }
    Err(format!("a step this runner does not know: {step}"))
}

#[test]
fn md_to_adf_fixtures_convert_to_the_adf_they_expect() {
    let Some(schema) = schema() else { return };
    let dir = test_support::workspace().join(FIXTURES);
    if !dir.join("feature").is_dir() {
        return test_support::missing(
            "npm md-to-adf's test fixtures",
            "scripts/install-text-corpora.sh",
        )
        .unwrap_or(());
    }
    let scenarios = scenarios(&dir);
    assert_eq!(scenarios.len(), 81, "md-to-adf 0.6.4 has 81 scenarios");
    let mut steps = 0;
    let mut differences = Vec::new();
    let mut invalid = Vec::new();
    for s in &scenarios {
        assert!(
            !s.markdown.is_empty() && !s.steps.is_empty(),
            "scenario {} read no Markdown or no steps",
            s.name
        );
        let doc = adf::to_value(&adf::repair(markdown::read(&s.markdown)).doc);
        if let Err(report) = schema.check(&doc) {
            invalid.push(format!("{} / {}: {report}", s.feature, s.name));
        }
        for step in &s.steps {
            steps += 1;
            if let Err(why) = run_step(&dir, &doc, step) {
                let known = KNOWN_DIFFERENCES
                    .iter()
                    .any(|(name, part, _)| *name == s.name && step.contains(part));
                if !known {
                    differences.push(format!(
                        "{} / {}\n    {}\n    {}\n    Markdown: {:?}",
                        s.feature,
                        s.name,
                        short(step, 300),
                        why,
                        short(&s.markdown, 300)
                    ));
                }
            }
        }
    }
    eprintln!(
        "md-to-adf: {} scenarios, {steps} steps, {} known differences",
        scenarios.len(),
        KNOWN_DIFFERENCES.len()
    );
    assert!(
        invalid.is_empty(),
        "md-to-adf fixtures whose ADF the official schema rejects:\n{}",
        invalid.join("\n")
    );
    assert!(
        differences.is_empty(),
        "{} steps differ from md-to-adf and are not known:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn the_gherkin_reader_reads_tables_as_test_common_does() {
    assert_eq!(
        table_line(&cell(r"'     \|   variable   \|          ")),
        "     |   variable   |"
    );
    assert_eq!(table_line(&cell("'   '")), "   ");
    assert_eq!(table_line(&cell("''")), "");
    assert_eq!(
        table_line(&cell(r"'  excludeTags(name) = (node \\ x)  ")),
        r"  excludeTags(name) = (node \ x)"
    );
    let doc: Value = serde_json::json!({"content": [{"type": "paragraph", "content": [
        {"type": "text", "text": "b", "marks": [{"type": "em"}, {"type": "strong"}]}]}]});
    let step = r#"the ADF chunk at content path [ 0 ] contains '{"type": "text", "text": "b", "marks": [{"type": "strong"}, {"type": "em"}]}'"#;
    assert_eq!(run_step(std::path::Path::new("."), &doc, step), Ok(()));
    let step = r#"the ADF chunk at content path [ 0 ] contains '{"type": "text", "text": "c"}'"#;
    assert!(run_step(std::path::Path::new("."), &doc, step).is_err());
}
