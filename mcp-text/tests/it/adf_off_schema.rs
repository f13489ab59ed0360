//! ADF trees off the schema come back through Markdown unchanged, as schema documents do
//! (`adf_properties.rs`): the issue asks that ADF → Markdown → ADF lose nothing "whatever the document
//! holds". Random schema documents are mutated where the schema does not allow: a node grafted into any
//! content (a block in a paragraph, text at the root), another node's marks, attrs or type, an unknown
//! type, `text` or `content` where neither belongs, a member ADF does not define, marks reversed and
//! repeated, odd attribute values, members on the root, a root of another type. Each then goes ADF →
//! Markdown → ADF through the library (`markdown::write`, `markdown::read`), not through `convert`,
//! whose repair pass makes the ADF it writes valid on purpose (`adf::repair`).
//!
//! The reader refuses one kind of mutant, a text node without `text` (an error, as it should be); every
//! other one must come back member for member.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::adf_properties::{first_diff, roundtrip, Outcome};
use crate::gen::{seeds, Gen, Rng};
use crate::schema::{schema, short};

/// JSON pointers to every node below the root.
fn nodes(v: &Value, path: &str, out: &mut Vec<String>) {
    if let Some(items) = v["content"].as_array() {
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}/content/{i}");
            out.push(p.clone());
            nodes(item, &p, out);
        }
    }
}

/// JSON pointers to every `content` array, the root's included.
fn arrays(v: &Value, path: &str, out: &mut Vec<String>) {
    if let Some(items) = v["content"].as_array() {
        out.push(format!("{path}/content"));
        for (i, item) in items.iter().enumerate() {
            arrays(item, &format!("{path}/content/{i}"), out);
        }
    }
}

/// One mutation of `doc` at a random place.
fn mutate(doc: &mut Value, rng: &mut Rng) {
    let mut ns = Vec::new();
    nodes(doc, "", &mut ns);
    let mut arrs = Vec::new();
    arrays(doc, "", &mut arrs);
    if ns.is_empty() {
        return;
    }
    let from = doc
        .pointer(rng.pick(&ns).as_str())
        .cloned()
        .unwrap_or_default();
    let to_path = rng.pick(&ns).clone();
    let to = doc.pointer_mut(&to_path).expect("a node");
    match rng.below(16) {
        // A copy of a node in any content, at any place.
        0 | 1 => {
            let arr = doc
                .pointer_mut(rng.pick(&arrs).as_str())
                .and_then(Value::as_array_mut);
            let arr = arr.expect("a content array");
            arr.insert(rng.below(arr.len() + 1), from);
        }
        2 => {
            if let Some(marks) = from.get("marks") {
                to["marks"] = marks.clone();
            }
        }
        3 => {
            if let Some(attrs) = from.get("attrs") {
                to["attrs"] = attrs.clone();
            }
        }
        4 => to["type"] = from["type"].clone(),
        5 => {
            let names = ["x-custom", "paragraph2", "Para graph", "a/b", "-->", "\"q'"];
            to["type"] = json!(*rng.pick(&names));
        }
        6 => to["text"] = json!(*rng.pick(&["x", "", " a *b* ", "-->", "\n"])),
        7 => match to.get_mut("content").and_then(Value::as_array_mut) {
            Some(content) => content.push(from),
            None => to["content"] = json!([from]),
        },
        8 => {
            let kinds = ["x-mark", "strong", "em", "code", "link", "textColor"];
            let mut mark = json!({"type": *rng.pick(&kinds)});
            if let Some(attrs) = from.get("attrs") {
                mark["attrs"] = attrs.clone();
            }
            match to.get_mut("marks").and_then(Value::as_array_mut) {
                Some(marks) => marks.push(mark),
                None => to["marks"] = json!([mark]),
            }
        }
        9 => {
            if let Some(node) = to.as_object_mut() {
                node.remove("content");
            }
        }
        10 => to["x-extra"] = from,
        11 => {
            if let Some(marks) = to.get_mut("marks").and_then(Value::as_array_mut) {
                marks.reverse();
                if let Some(first) = marks.first().cloned() {
                    marks.push(first);
                }
            }
        }
        12 => {
            if to.get("text").is_some() {
                let texts = ["", " ", "\n", "  \n  ", "\t", "\u{a0}", "a\r\nb"];
                to["text"] = json!(*rng.pick(&texts));
            }
        }
        13 => {
            let odd = [
                Value::Null,
                json!([1, "a", null]),
                json!({"a": {"b": 1.5}}),
                json!(-0.25),
                json!(1e300),
                json!(true),
                json!(""),
            ];
            let value = rng.pick(&odd).clone();
            match to.get_mut("attrs").and_then(Value::as_object_mut) {
                Some(attrs) if !attrs.is_empty() && rng.chance(0.5) => {
                    let key = attrs.keys().nth(rng.below(attrs.len())).cloned();
                    attrs.insert(key.expect("a key"), value);
                }
                _ => to["attrs"] = json!({"x-attr": value}),
            }
        }
        // An id, as Confluence gives nearly every node one (rows and cells too, which the schema does not
        // say): short-marker-shaped or not.
        14 => {
            let id = json!(*rng.pick(&["d5283f563595", "a-b_c", "x y", "", "e-", "id\"-->"]));
            match to.get_mut("attrs").and_then(Value::as_object_mut) {
                Some(attrs) => {
                    attrs.insert("localId".into(), id);
                }
                None => to["attrs"] = json!({ "localId": id }),
            }
        }
        _ => {
            let key = *rng.pick(&["attrs", "marks", "x-extra", "text", "type"]);
            doc[key] = match key {
                "marks" => json!([{"type": "strong"}]),
                "text" => json!("x"),
                "type" => json!(*rng.pick(&["Doc", "paragraph", "x-custom"])),
                _ => json!(*rng.pick(&[json!({"a": 1}), json!({"type": "x"})])),
            };
        }
    }
}

/// Whether the library reads `doc` and it does not come back unchanged.
fn fails(doc: &Value) -> bool {
    mcp_text::adf::from_value(doc.clone()).is_ok() && !matches!(roundtrip(doc), Outcome::Same)
}

/// A smaller document that still fails: nodes removed, then members and attributes, while it does.
fn shrink(doc: &Value) -> Value {
    let mut best = doc.clone();
    'progress: loop {
        let mut ns = Vec::new();
        nodes(&best, "", &mut ns);
        for p in ns.iter().rev() {
            let (parent, i) = p.rsplit_once('/').expect("a pointer");
            let mut c = best.clone();
            let content = c.pointer_mut(parent).and_then(Value::as_array_mut);
            content
                .expect("content")
                .remove(i.parse().expect("an index"));
            if fails(&c) {
                best = c;
                continue 'progress;
            }
        }
        for p in std::iter::once(String::new()).chain(ns) {
            let mut candidates = Vec::new();
            for key in ["attrs", "marks", "x-extra", "text"] {
                let mut c = best.clone();
                if let Some(node) = c.pointer_mut(&p).and_then(Value::as_object_mut) {
                    if node.remove(key).is_some() {
                        candidates.push(c);
                    }
                }
            }
            let names: Vec<String> = best
                .pointer(&p)
                .and_then(|n| n["attrs"].as_object())
                .map(|a| a.keys().cloned().collect())
                .unwrap_or_default();
            for name in names {
                let mut c = best.clone();
                let attrs = c
                    .pointer_mut(&format!("{p}/attrs"))
                    .and_then(Value::as_object_mut);
                attrs.expect("attrs").remove(&name);
                candidates.push(c);
            }
            if let Some(c) = candidates.into_iter().find(fails) {
                best = c;
                continue 'progress;
            }
        }
        return best;
    }
}

#[test]
fn random_off_schema_documents_survive_adf_to_markdown_to_adf() {
    let Some(schema) = schema() else { return };
    let mut gen = Gen::new(schema, 0);
    let seeds = seeds(2000);
    let total = seeds.end - seeds.start;
    let (mut off_schema, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for seed in seeds {
        gen.reseed(seed);
        let mut doc = gen.doc();
        let mut rng = Rng::new(seed ^ 0x9e37_79b9);
        for _ in 0..1 + rng.below(6) {
            mutate(&mut doc, &mut rng);
        }
        off_schema += usize::from(!schema.is_valid(&doc));
        if let Err(e) = mcp_text::adf::from_value(doc.clone()) {
            assert_eq!(
                e.message, "a text node without \"text\"",
                "seed {seed}: refused"
            );
            refused += 1;
            continue;
        }
        let report = match roundtrip(&doc) {
            Outcome::Same => continue,
            Outcome::Panicked { stage, message } => {
                format!("seed {seed}: the {stage} panicked: {message}")
            }
            Outcome::Changed { .. } => {
                let small = shrink(&doc);
                let Outcome::Changed { md, back } = roundtrip(&small) else {
                    unreachable!("the shrunk document fails")
                };
                let (path, was, now) = first_diff(&small, &back, "").expect("they differ");
                format!(
                    "seed {seed}: first difference at {path}\n  was: {}\n  now: {}\n  minimal document: {}\n  its Markdown:\n{md}",
                    short(&was.to_string(), 400),
                    short(&now.to_string(), 400),
                    short(&small.to_string(), 2000),
                )
            }
        };
        failures.push(report);
        if failures.len() >= 10 {
            break;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The mutants are what the test is about: most must break the schema, few be refused.
    let total = total as usize;
    assert!(
        off_schema * 10 >= total * 7,
        "only {off_schema} of {total} off the schema"
    );
    assert!(refused * 10 <= total, "{refused} of {total} refused");
}

/// Every node type of the schema, and one it does not define, with members where the schema puts none
/// (nothing, an empty `content`, `text` beside content, marks on a block), before nothing, a rule, a
/// paragraph or a card, at the root and in an expand: what the random mutants found first, every
/// combination at once.
#[test]
fn every_node_type_with_odd_members_survives() {
    let Some(schema) = schema() else { return };
    let defs = schema.json["definitions"].as_object().expect("definitions");
    let mut types: BTreeSet<&str> = defs
        .values()
        .filter_map(|d| d["properties"]["type"]["enum"][0].as_str())
        .collect();
    types.insert("x-custom");
    types.remove("doc");
    let p = |t: &str| json!({"type": "paragraph", "content": [{"type": "text", "text": t}]});
    let shapes = [
        json!({}),
        json!({"content": []}),
        json!({"content": [p("a")]}),
        json!({"content": [{"type": "paragraph"}]}),
        json!({"content": [{"type": "text", "text": "a"}]}),
        json!({"content": [], "text": "x"}),
        json!({"text": "x"}),
        json!({"content": [{"type": "rule"}], "text": "x"}),
        json!({"content": [{"type": "listItem", "content": [p("a")]}], "text": "x"}),
        json!({"marks": [{"type": "strong"}]}),
    ];
    let mut failures = Vec::new();
    for t in &types {
        for shape in &shapes {
            let afters = [
                vec![],
                vec![json!({"type": "rule"})],
                vec![p("b")],
                vec![json!({"type": "embedCard"})],
            ];
            for (after, in_expand) in afters
                .into_iter()
                .flat_map(|a| [(a.clone(), false), (a, true)])
            {
                let mut node = shape.clone();
                node["type"] = json!(t);
                if *t == "text" && node.get("text").is_none() {
                    continue; // Refused: a text node without `text`.
                }
                let mut content = vec![node];
                content.extend(after);
                if in_expand {
                    content = vec![json!({"type": "expand", "content": content})];
                }
                let doc = json!({"type": "doc", "version": 1, "content": content});
                if !matches!(roundtrip(&doc), Outcome::Same) {
                    failures.push(doc.to_string());
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn markdown_and_back(doc: &Value) -> (String, Value) {
    let md = crate::adf_properties::to_markdown(doc).expect("writes");
    let back = crate::adf_properties::from_markdown(&md).expect("reads");
    let back = mcp_text::adf::to_value(&back.doc);
    (md, back)
}

#[test]
fn text_on_a_container_is_kept_in_one_marker() {
    for kind in [
        "blockquote",
        "panel",
        "expand",
        "nestedExpand",
        "orderedList",
    ] {
        let doc = json!({"type": "doc", "version": 1, "content": [
            {"type": kind, "text": "x", "content": [{"type": "rule"}]}]});
        let (md, back) = markdown_and_back(&doc);
        assert_eq!(back, doc, "{md}");
        assert!(
            md.starts_with(&format!("<!--adf:{kind} {{")) && md.trim_end().ends_with("/-->"),
            "{md}"
        );
    }
}

#[test]
fn a_node_whose_type_is_empty_comes_back() {
    // Found by the `text_adf` fuzz target: a node of type `""` was written `<!--adf: {…} /-->`, which the
    // reader took for a marker without a type and dropped. The empty name is written `%`, which no other
    // name is (a `%` in a name is `%25`).
    let p = json!({"type": "paragraph", "content": [{"type": "text", "text": "a"}, {"type": "", "attrs": {"x": 1}}]});
    for doc in [
        json!({"type": "doc", "version": 1, "content": [{"type": "", "atsrt": []}]}),
        json!({"type": "doc", "version": 1, "content": [p, {"type": "", "content": [{"type": "rule"}, {"type": "rule"}]}]}),
        json!({"type": "doc", "version": 1, "content": [{"type": "%", "content": [{"type": "rule"}]}]}),
    ] {
        let (md, back) = markdown_and_back(&doc);
        assert_eq!(back, doc, "{md}");
    }
}

#[test]
fn an_empty_block_quote_is_a_quote_line_of_its_own() {
    for quote in [
        json!({"type": "blockquote", "content": []}),
        json!({"type": "blockquote"}),
    ] {
        let doc = json!({"type": "doc", "version": 1, "content": [quote, {"type": "rule"}]});
        let (md, back) = markdown_and_back(&doc);
        assert_eq!(back, doc, "{md}");
        // Its modifier stands on the quote's `>`, not on the rule after it.
        assert!(md.contains("-->\n>\n"), "{md}");
    }
}

#[test]
fn a_list_without_items_is_one_marker_and_keeps_the_block_after_it() {
    for list in [
        json!({"type": "bulletList"}),
        json!({"type": "orderedList", "attrs": {}}),
    ] {
        let doc = json!({"type": "doc", "version": 1, "content": [
            {"type": "expand", "content": [list, {"type": "embedCard"}]}]});
        let (md, back) = markdown_and_back(&doc);
        assert_eq!(back, doc, "{md}");
        assert_eq!(
            md.matches("List").count(),
            1,
            "one marker for the list: {md}"
        );
    }
}

#[test]
fn a_sync_block_holding_an_empty_paragraph_keeps_it() {
    let doc = json!({"type": "doc", "version": 1, "content": [
        {"type": "syncBlock", "content": [{"type": "paragraph"}]}]});
    let (md, back) = markdown_and_back(&doc);
    assert_eq!(back, doc, "{md}");
}

#[test]
fn an_expand_in_a_container_in_an_expand_stays_an_expand() {
    // The reader took `<details>` for a nested expand by the container open before the marker that
    // opens the sync block (still pending as the `<details>` line came).
    let expand = |content: Value| json!({"type": "expand", "content": [content]});
    let sync = |content: Value| json!({"type": "bodiedSyncBlock", "content": [content]});
    for inner in [
        json!({"type": "rule"}),
        json!({"type": "decisionList", "content": []}),
    ] {
        let doc = json!({"type": "doc", "version": 1, "content": [expand(sync(expand(inner)))]});
        let (md, back) = markdown_and_back(&doc);
        assert_eq!(back, doc, "{md}");
    }
}

#[test]
fn a_root_of_another_type_keeps_its_type() {
    // `"type"` in the root's marker was read as an attribute named `type`.
    for doc in [
        json!({"type": "Doc", "version": 1, "content": []}),
        json!({"type": "paragraph", "content": [{"type": "text", "text": "a"}]}),
        json!({"type": "doc", "version": 1, "attrs": {"type": "x"}, "content": []}),
        json!({"type": "doc", "version": 1, "attrs": {"type": "x", "a": 1}, "content": []}),
        json!({"type": "doc", "version": 1, "content": [{"type": "doc", "attrs": {"type": "q"}}]}),
    ] {
        let (md, back) = markdown_and_back(&doc);
        assert_eq!(back, doc, "{md}");
    }
}
