//! Property tests of the central contract on random valid documents (`gen.rs`):
//!
//! - ADF → Markdown → ADF gives the same document (`ROUNDTRIP_CASES` seeds). A failure names its seed, the
//!   smallest document still valid and still failing that deleting nodes and attributes reaches, its
//!   Markdown, and what was read back; failures are grouped in classes by where the first difference is.
//! - A model's edits of the Markdown (a paragraph's text changed, a list item added, a marker deleted or its
//!   JSON mangled) change only the top-level node they touch: every other top-level node comes back
//!   unchanged, the document is still valid against the official schema, a mangled marker gives a warning.
//! - Nothing panics: a panic is a failure like any other, with its seed.

use std::panic::{catch_unwind, AssertUnwindSafe};

use mcp_text::{adf, markdown, Read};
use pulldown_cmark::{Event, Options, Parser};
use serde_json::{json, Value};

use crate::difference::first_difference;
use crate::gen::{seeds, Gen, Rng};
use crate::schema::{schema, short, Schema};

pub const ROUNDTRIP_CASES: u64 = 500;
pub const EDIT_CASES: u64 = 1000;
/// A run stops collecting after this many failures (the report is long enough by then).
const MAX_FAILURES: usize = 40;

pub enum Outcome {
    Same,
    Changed {
        md: String,
        back: Value,
    },
    Panicked {
        stage: &'static str,
        message: String,
    },
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

pub fn to_markdown(doc: &Value) -> Result<String, String> {
    let node =
        adf::from_value(doc.clone()).map_err(|e| format!("the ADF reader refused it: {e:?}"))?;
    catch_unwind(AssertUnwindSafe(|| {
        markdown::write(&node, &markdown::WriteOptions::default())
    }))
    .map_err(|e| format!("the Markdown writer panicked: {}", panic_message(e)))
}

pub fn from_markdown(md: &str) -> Result<Read, String> {
    catch_unwind(AssertUnwindSafe(|| markdown::read(md)))
        .map_err(|e| format!("the Markdown reader panicked: {}", panic_message(e)))
}

pub fn roundtrip(doc: &Value) -> Outcome {
    let md = match to_markdown(doc) {
        Ok(md) => md,
        Err(message) => {
            return Outcome::Panicked {
                stage: "write",
                message,
            }
        }
    };
    let back = match from_markdown(&md) {
        Ok(read) => adf::to_value(&read.doc),
        Err(message) => {
            return Outcome::Panicked {
                stage: "read",
                message,
            }
        }
    };
    if &back == doc {
        Outcome::Same
    } else {
        Outcome::Changed { md, back }
    }
}

/// The first place where `a` and `b` differ: a path naming the node types on the way, and both sides.
pub fn first_diff(a: &Value, b: &Value, path: &str) -> Option<(String, Value, Value)> {
    if a == b {
        return None;
    }
    let here = match a.get("type").and_then(Value::as_str) {
        Some(t) if a.is_object() => format!("{path}>{t}"),
        _ => path.to_string(),
    };
    if let (Some(ca), Some(cb)) = (a["content"].as_array(), b["content"].as_array()) {
        for (i, (x, y)) in ca.iter().zip(cb).enumerate() {
            if x != y && x.get("type") == y.get("type") {
                return first_diff(x, y, &format!("{here}[{i}]"));
            }
            if x != y {
                return Some((format!("{here}[{i}] type"), x.clone(), y.clone()));
            }
        }
        if ca.len() != cb.len() {
            return Some((
                format!("{here} content length"),
                json!(ca.len()),
                json!(cb.len()),
            ));
        }
    }
    for key in ["type", "text", "attrs", "marks", "content", "version"] {
        if a.get(key) != b.get(key) {
            return Some((
                format!("{here} .{key}"),
                a.get(key).cloned().unwrap_or(Value::Null),
                b.get(key).cloned().unwrap_or(Value::Null),
            ));
        }
    }
    Some((format!("{here} (other members)"), a.clone(), b.clone()))
}

/// The class of a difference: its path without indices.
fn class_of(path: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for c in path.chars() {
        match c {
            '[' => skip = true,
            ']' => skip = false,
            _ if !skip => out.push(c),
            _ => {}
        }
    }
    out
}

/// Every JSON pointer to an element of a `content` array, shallowest first (whole subtrees go first).
fn content_elements(v: &Value, path: &str, out: &mut Vec<(String, usize)>) {
    if let Some(children) = v["content"].as_array() {
        let here = format!("{path}/content");
        for i in (0..children.len()).rev() {
            out.push((here.clone(), i));
        }
        for (i, child) in children.iter().enumerate() {
            content_elements(child, &format!("{here}/{i}"), out);
        }
    }
}

/// Every JSON pointer to an attribute of a node or a mark.
fn attributes(v: &Value, path: &str, out: &mut Vec<(String, String)>) {
    if let Some(attrs) = v["attrs"].as_object() {
        out.extend(attrs.keys().map(|k| (format!("{path}/attrs"), k.clone())));
    }
    for (i, mark) in v["marks"].as_array().into_iter().flatten().enumerate() {
        attributes(mark, &format!("{path}/marks/{i}"), out);
    }
    for (i, child) in v["content"].as_array().into_iter().flatten().enumerate() {
        attributes(child, &format!("{path}/content/{i}"), out);
    }
}

/// The smallest document reached by deleting nodes, marks and attributes one at a time while it stays
/// valid and `fails` still holds.
pub fn shrink(schema: &Schema, doc: &Value, fails: &dyn Fn(&Value) -> bool) -> Value {
    let mut best = doc.clone();
    let mut tries = 0;
    'progress: while tries < 400 {
        let mut elements = Vec::new();
        content_elements(&best, "", &mut elements);
        let mut candidates: Vec<Value> = Vec::new();
        for (array, i) in elements {
            let mut c = best.clone();
            c.pointer_mut(&array)
                .and_then(Value::as_array_mut)
                .unwrap()
                .remove(i);
            candidates.push(c);
        }
        let mut attrs = Vec::new();
        attributes(&best, "", &mut attrs);
        for (at, key) in attrs {
            let mut c = best.clone();
            c.pointer_mut(&at)
                .and_then(Value::as_object_mut)
                .unwrap()
                .remove(&key);
            candidates.push(c);
        }
        for c in candidates {
            tries += 1;
            if schema.is_valid(&c) && fails(&c) {
                best = c;
                continue 'progress;
            }
            if tries >= 400 {
                break;
            }
        }
        break;
    }
    best
}

pub struct Failure {
    pub seed: u64,
    pub class: String,
    pub report: String,
}

pub fn report_failures(what: &str, total: u64, failures: &[Failure]) -> String {
    let mut classes: Vec<(String, Vec<&Failure>)> = Vec::new();
    for f in failures {
        match classes.iter_mut().find(|(c, _)| *c == f.class) {
            Some((_, list)) => list.push(f),
            None => classes.push((f.class.clone(), vec![f])),
        }
    }
    let mut out = format!(
        "{what}: {} failures{} in {total} documents, {} classes\n",
        failures.len(),
        if failures.len() >= MAX_FAILURES {
            " (stopped collecting)"
        } else {
            ""
        },
        classes.len()
    );
    for (class, list) in &classes {
        let seeds: Vec<u64> = list.iter().map(|f| f.seed).collect();
        out.push_str(&format!(
            "\n== class `{class}`: {} (seeds {seeds:?})\n{}\n",
            list.len(),
            list[0].report
        ));
    }
    out
}

#[test]
fn random_documents_survive_adf_to_markdown_to_adf() {
    let Some(schema) = schema() else { return };
    let mut gen = Gen::new(schema, 0);
    let seeds = seeds(ROUNDTRIP_CASES);
    let total = seeds.end - seeds.start;
    let mut failures = Vec::new();
    for seed in seeds {
        gen.reseed(seed);
        let doc = gen.doc();
        let failing = |d: &Value| !matches!(roundtrip(d), Outcome::Same);
        match roundtrip(&doc) {
            Outcome::Same => continue,
            Outcome::Panicked { stage, message } => {
                let class = format!("panic in {stage}: {}", short(&message, 80));
                // Shrinking costs hundreds of round trips: only a class's first failure is shrunk.
                let known = failures.iter().any(|f: &Failure| f.class == class);
                let small = if known {
                    doc.clone()
                } else {
                    shrink(schema, &doc, &|d| {
                        matches!(roundtrip(d), Outcome::Panicked { .. })
                    })
                };
                let report = format!(
                    "seed {seed}: the {stage} panicked: {}\n  minimal document: {}",
                    short(&message, 400),
                    short(&small.to_string(), 2000)
                );
                failures.push(Failure {
                    seed,
                    class,
                    report,
                });
            }
            Outcome::Changed { md, back } => {
                let (path, _, _) = first_diff(&doc, &back, "").expect("they differ");
                let class = class_of(&path);
                let known = failures.iter().any(|f: &Failure| f.class == class);
                let (small, md, back) = if known {
                    (doc.clone(), md, back)
                } else {
                    let small = shrink(schema, &doc, &failing);
                    match roundtrip(&small) {
                        Outcome::Changed { md, back } => (small, md, back),
                        _ => (doc.clone(), md, back),
                    }
                };
                let (path, was, now) = first_diff(&small, &back, "").expect("they differ");
                let report = format!(
                    "seed {seed}: first difference at {path}\n  was:  {}\n  now:  {}\n  minimal document: {}\n  its Markdown:\n{}\n  read back: {}",
                    short(&was.to_string(), 600),
                    short(&now.to_string(), 600),
                    short(&small.to_string(), 2000),
                    indent(&short(&md, 2000)),
                    short(&back.to_string(), 2000)
                );
                failures.push(Failure {
                    seed,
                    class,
                    report,
                });
            }
        }
        if failures.len() >= MAX_FAILURES {
            break;
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        report_failures("ADF → Markdown → ADF", total, &failures)
    );
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    | {l}\n")).collect()
}

fn paragraph(text: &str) -> Value {
    json!({"type": "paragraph", "content": [{"type": "text", "text": text}]})
}

fn plain_text(v: &Value) -> String {
    match v["text"].as_str() {
        Some(t) => t.to_string(),
        None => v["content"]
            .as_array()
            .into_iter()
            .flatten()
            .map(plain_text)
            .collect(),
    }
}

/// How many top-level nodes of `before` are not kept, in order, at the start or the end of `after`.
fn changed_region(before: &[Value], after: &[Value]) -> (usize, usize, usize) {
    let prefix = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    let room = before.len().min(after.len()) - prefix;
    let suffix = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    (
        prefix,
        before.len() - prefix - suffix,
        after.len() - prefix - suffix,
    )
}

#[derive(Clone, Copy, Debug)]
pub enum Edit {
    /// A plain paragraph's text rewritten with emphasis.
    Paragraph,
    /// A list item added after the last one.
    ListItem,
    /// A whole `<!--adf:…-->` marker deleted.
    DeleteMarker,
    /// A marker's JSON broken.
    MangleMarker,
}

/// The extensions the Markdown reader parses with (`src/markdown/read/windows.rs`).
fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// One edit of the Markdown of `seed`'s document: `Ok(true)` when it held, `Ok(false)` when the document has
/// nothing to edit (no marker), `Err` with a report otherwise.
fn edit_case(schema: &Schema, gen: &mut Gen, seed: u64, edit: Edit) -> Result<bool, String> {
    gen.reseed(seed);
    edit_judge(
        gen.doc(),
        seed,
        edit,
        &|after| schema.check(after),
        &Value::clone,
    )
}

/// The judge of one edit, whatever made the document: `check` says whether the result is acceptable as
/// a whole (valid against the schema, say); `Ok(false)` when the document has nothing to edit.
pub fn edit_judge(
    mut doc: Value,
    seed: u64,
    edit: Edit,
    check: &dyn Fn(&Value) -> Result<(), String>,
    same_as: &dyn Fn(&Value) -> Value,
) -> Result<bool, String> {
    let mut rng = Rng::new(seed ^ 0xED17);
    let top = doc["content"].as_array_mut().expect("doc content");
    let k = rng.range(0, top.len());
    let sentinel = format!("EDITME sentinel {seed}");
    let (one, two, three) = (
        format!("EDITLIST one {seed}"),
        format!("EDITLIST two {seed}"),
        format!("EDITLIST three {seed}"),
    );
    match edit {
        Edit::Paragraph => top.insert(k, paragraph(&sentinel)),
        Edit::ListItem => top.insert(
            k,
            json!({"type": "bulletList", "content": [
                {"type": "listItem", "content": [paragraph(&one)]},
                {"type": "listItem", "content": [paragraph(&two)]}]}),
        ),
        Edit::DeleteMarker | Edit::MangleMarker => {}
    }
    let before = doc["content"].as_array().unwrap().clone();
    let md = to_markdown(&doc)?;
    let mut touched = String::new();
    let edited = match edit {
        Edit::Paragraph => {
            let lines: Vec<&str> = md.lines().filter(|l| l.trim() == sentinel).collect();
            if lines.len() != 1 {
                return Err(format!(
                    "the paragraph `{sentinel}` is not one line of its own in:\n{}",
                    indent(&md)
                ));
            }
            md.replacen(&sentinel, &format!("Edited *text* {seed}"), 1)
        }
        Edit::ListItem => {
            let Some(line) = md.lines().find(|l| l.contains(&two)) else {
                return Err(format!("no line holds `{two}` in:\n{}", indent(&md)));
            };
            md.replacen(line, &format!("{line}\n{}", line.replace(&two, &three)), 1)
        }
        Edit::DeleteMarker | Edit::MangleMarker => {
            // Markers are the comments the parser reads as HTML: `<!--adf:…-->` in a code span or
            // escaped (`\<!--`) is text, which the document's strings may hold.
            let html: Vec<std::ops::Range<usize>> = Parser::new_ext(&md, markdown_options())
                .into_offset_iter()
                .filter(|(e, _)| matches!(e, Event::Html(_) | Event::InlineHtml(_)))
                .map(|(_, r)| r)
                .collect();
            let markers: Vec<(usize, usize)> = md
                .match_indices("<!--")
                .filter(|(i, _)| html.iter().any(|r| r.contains(i)))
                .filter(|(i, _)| {
                    md[*i..].starts_with("<!--adf:") || md[*i..].starts_with("<!--/adf:")
                })
                .filter_map(|(i, _)| md[i..].find("-->").map(|end| (i, i + end + 3)))
                .collect();
            if markers.is_empty() {
                return Ok(false);
            }
            let (start, end) = *rng.pick(&markers);
            let marker = &md[start..end];
            touched = short(marker, 200);
            let mut from = start.saturating_sub(300);
            while !md.is_char_boundary(from) {
                from -= 1;
            }
            let mut to = (end + 300).min(md.len());
            while !md.is_char_boundary(to) {
                to += 1;
            }
            touched.push_str(&format!("\n  where it stood:\n{}", indent(&md[from..to])));
            match edit {
                Edit::DeleteMarker => format!("{}{}", &md[..start], &md[end..]),
                _ => {
                    let Some(brace) = marker.find('{') else {
                        return Ok(false);
                    };
                    format!(
                        "{}{}{{\"broken{}",
                        &md[..start],
                        &marker[..brace],
                        &md[start + brace + 1..]
                    )
                }
            }
        }
    };
    let read = from_markdown(&edited)?;
    let after = adf::to_value(&read.doc);
    let context = || {
        format!(
            "\n  the marker edited: {touched}\n  the edited Markdown:\n{}\n  read back: {}",
            indent(&short(&edited, 3000)),
            short(&after.to_string(), 3000)
        )
    };
    if let Err(report) = check(&after) {
        return Err(format!(
            "{edit:?}: the result is not valid:\n{report}{}",
            context()
        ));
    }
    let after_top = after["content"].as_array().cloned().unwrap_or_default();
    // Top-level nodes compare as `same_as` makes them (the node itself, or what it writes as).
    let (was, is) = (
        before.iter().map(same_as).collect::<Vec<_>>(),
        after_top.iter().map(same_as).collect::<Vec<_>>(),
    );
    let (prefix, gone, came) = changed_region(&was, &is);
    // The changed region as `same_as` makes it, the first difference of each pair of nodes first.
    let region = || {
        let side = |nodes: &[Value], count: usize, other: &[Value]| {
            nodes[prefix..prefix + count]
                .iter()
                .enumerate()
                .map(|(i, node)| {
                    let text = match node {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    let partner = other.get(prefix + i).map(|n| match n {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    });
                    if partner.as_ref() == Some(&text) {
                        // Between changed nodes: the region is one stretch.
                        return format!("\n    node {}: unchanged", prefix + i);
                    }
                    let at = partner
                        .map(|p| first_difference(&text, &p, 80).1)
                        .unwrap_or(0);
                    format!(
                        "\n    node {}, from byte {at}: {}",
                        prefix + i,
                        short(&text[at..], 600)
                    )
                })
                .collect::<String>()
        };
        format!(
            "\n  the region before:{}\n  the region after:{}",
            side(&was, gone, &is),
            side(&is, came, &was)
        )
    };
    match edit {
        Edit::Paragraph | Edit::ListItem => {
            if prefix != k || gone != 1 || came != 1 {
                return Err(format!(
                    "{edit:?} of top-level node {k}: nodes {prefix}..{} of the document changed into {came} nodes{}{}",
                    prefix + gone,
                    region(),
                    context()
                ));
            }
            let node = &after_top[k];
            let ok = match edit {
                Edit::Paragraph => {
                    node["type"] == "paragraph" && plain_text(node) == format!("Edited text {seed}")
                }
                _ => {
                    node["type"] == "bulletList"
                        && node["content"].as_array().map(Vec::len) == Some(3)
                        && plain_text(&node["content"][2]) == three
                }
            };
            if !ok {
                return Err(format!(
                    "{edit:?}: the edited node came back as {}{}",
                    short(&node.to_string(), 600),
                    context()
                ));
            }
        }
        Edit::DeleteMarker | Edit::MangleMarker => {
            if gone > 1 {
                return Err(format!(
                    "{edit:?}: one marker's edit changed {gone} top-level nodes ({prefix}..{}){}{}",
                    prefix + gone,
                    region(),
                    context()
                ));
            }
            if matches!(edit, Edit::MangleMarker) && read.warnings.is_empty() {
                return Err(format!(
                    "{edit:?}: a marker with broken JSON read without a warning{}",
                    context()
                ));
            }
        }
    }
    Ok(true)
}

#[test]
fn edits_of_the_markdown_change_only_the_node_they_touch() {
    let Some(schema) = schema() else { return };
    let mut gen = Gen::new(schema, 0);
    run_edits(
        "edits of the Markdown",
        seeds(EDIT_CASES),
        &mut |seed, edit| edit_case(schema, &mut gen, seed, edit),
    );
}

/// Runs every kind of edit on `total` seeds' documents; fails with a report of the failures by class.
pub fn run_edits(
    what: &str,
    seeds: std::ops::Range<u64>,
    case: &mut dyn FnMut(u64, Edit) -> Result<bool, String>,
) {
    let total = seeds.end - seeds.start;
    let mut failures = Vec::new();
    let mut held = [0usize; 4];
    for seed in seeds {
        for (i, edit) in [
            Edit::Paragraph,
            Edit::ListItem,
            Edit::DeleteMarker,
            Edit::MangleMarker,
        ]
        .into_iter()
        .enumerate()
        {
            match case(seed, edit) {
                Ok(true) => held[i] += 1,
                Ok(false) => {}
                Err(report) => {
                    // The report's first clause without its numbers (seeds, node indices).
                    let first = report.split([':', '\n']).next().unwrap_or("");
                    let class: String = format!("{edit:?}: {first}")
                        .chars()
                        .filter(|c| !c.is_ascii_digit())
                        .collect();
                    failures.push(Failure {
                        seed,
                        class,
                        report: format!("seed {seed}: {report}"),
                    })
                }
            }
        }
        if failures.len() >= MAX_FAILURES {
            break;
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        report_failures(what, total, &failures)
    );
    // Every kind of edit was really made (a generator change that left no markers would test nothing).
    assert!(
        held.iter().all(|&n| n as u64 >= total / 3),
        "{what}: edits made per kind: {held:?}"
    );
    eprintln!(
        "{what}: edits held: paragraph {}, list item {}, marker deleted {}, marker mangled {}",
        held[0], held[1], held[2], held[3]
    );
}

/// The shrinker and the difference finder themselves (they must work before anything fails).
#[test]
fn the_shrinker_finds_the_smallest_failing_document() {
    let Some(schema) = schema() else { return };
    let doc = json!({"type": "doc", "version": 1, "content": [
        paragraph("keep"), {"type": "rule"}, paragraph("needle"), {"type": "bulletList", "content": [
            {"type": "listItem", "content": [paragraph("needle too")]}]}]});
    let contains_needle = |d: &Value| d.to_string().contains("needle");
    let small = shrink(schema, &doc, &contains_needle);
    assert_eq!(
        small,
        json!({"type": "doc", "version": 1, "content": [paragraph("needle")]})
    );
    let other =
        json!({"type": "doc", "version": 1, "content": [paragraph("keep"), paragraph("neddle")]});
    let (path, _, _) = first_diff(&doc, &other, "").unwrap();
    assert_eq!(path, ">doc[1] type");
    assert_eq!(
        class_of(">doc[2]>paragraph[0]>text .text"),
        ">doc>paragraph>text .text"
    );
    assert_eq!(
        changed_region(
            &[json!(1), json!(2), json!(3)],
            &[json!(1), json!(9), json!(8), json!(3)]
        ),
        (1, 1, 2)
    );
}
