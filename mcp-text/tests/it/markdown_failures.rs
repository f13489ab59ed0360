//! One test per failure users of Atlassian MCP servers report, named after it.

use mcp_text::markdown::{read, write, WriteOptions};
use mcp_text::{adf, Node, NodeType};
use serde_json::{json, Value};

use super::markdown_roundtrip::{every_node_page, node, round_trip};

fn para(text: &str) -> Value {
    json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":text}]}]})
}

fn md_of(v: Value) -> String {
    round_trip(&node(v))
}

fn read_json(md: &str) -> Value {
    adf::to_value(&read(md).doc)
}

#[test]
fn literal_star_py_is_not_italic() {
    assert_eq!(md_of(para("delete *.py files")), "delete \\*.py files\n");
    assert_eq!(
        read_json("*.py")["content"][0]["content"][0],
        json!({"type":"text","text":"*.py"})
    );
}

#[test]
fn multiplication_2_times_3_times_4_is_not_italic() {
    assert_eq!(md_of(para("2 * 3 * 4 = 24")), "2 * 3 * 4 = 24\n");
    assert_eq!(
        md_of(para("snake_case_name and a_b_c")),
        "snake_case_name and a_b_c\n"
    );
    assert_eq!(
        read_json("2 * 3 * 4")["content"][0]["content"][0]["marks"],
        Value::Null
    );
}

#[test]
fn pipes_inside_table_cells_keep_the_table() {
    // As Jira Cloud writes a table (its attrs, `attrs: {}` on cells): no marker at all.
    let doc = json!({"type":"doc","version":1,"content":[{"type":"table","attrs":{"isNumberColumnEnabled":false,"layout":"default"},"content":[
        {"type":"tableRow","content":[
            {"type":"tableHeader","attrs":{},"content":[{"type":"paragraph","content":[{"type":"text","text":"cmd"}]}]},
            {"type":"tableHeader","attrs":{},"content":[{"type":"paragraph","content":[{"type":"text","text":"meaning"}]}]}]},
        {"type":"tableRow","content":[
            {"type":"tableCell","attrs":{},"content":[{"type":"paragraph","content":[{"type":"text","text":"a | b","marks":[{"type":"code"}]}]}]},
            {"type":"tableCell","attrs":{},"content":[{"type":"paragraph","content":[{"type":"text","text":"pipe | into"}]}]}]}]}]});
    let md = md_of(doc);
    assert!(md.contains("| `a \\| b` | pipe \\| into |"), "{md}");
    let back = read(&md).doc;
    assert_eq!(back.children()[0].children()[1].children().len(), 2);
}

#[test]
fn nested_lists_stay_nested() {
    let md = "- a\n  - b\n    - c\n- d\n";
    let doc = read(md).doc;
    let list = &doc.children()[0];
    assert_eq!(list.children().len(), 2);
    let inner = &list.children()[0].children()[1];
    assert_eq!(inner.kind, NodeType::BulletList);
    assert_eq!(inner.children()[0].children()[1].kind, NodeType::BulletList);
    assert_eq!(write(&doc, &WriteOptions::default()), md);
}

#[test]
fn details_is_not_escaped() {
    // The design's form: `<details><summary>Title</summary>` on one line (the two-line form reads the same).
    let md = "<details><summary>More</summary>\n\nHidden **text**.\n\n</details>\n";
    let doc = read(md).doc;
    assert_eq!(doc.children()[0].kind, NodeType::Expand);
    assert_eq!(doc.children()[0].attr_str("title"), Some("More"));
    assert_eq!(write(&doc, &WriteOptions::default()), md);
    let two_lines = "<details>\n<summary>More</summary>\n\nHidden **text**.\n\n</details>\n";
    assert_eq!(read(two_lines).doc, doc);
}

#[test]
fn panels_survive_read_edit_write() {
    let doc = json!({"type":"doc","version":1,"content":[
        {"type":"panel","attrs":{"panelType":"warning"},"content":[{"type":"paragraph","content":[{"type":"text","text":"Careful."}]}]},
        {"type":"paragraph","content":[{"type":"text","text":"Edit me."}]}]});
    let md = md_of(doc.clone());
    assert!(md.starts_with("> [!WARNING]\n> Careful.\n"), "{md}");
    let edited = md.replace("Edit me.", "Edited.");
    let back = adf::to_value(&read(&edited).doc);
    assert_eq!(back["content"][0], doc["content"][0]);
    assert_eq!(back["content"][1]["content"][0]["text"], "Edited.");
    // A model's own alert is a panel too.
    assert_eq!(
        read_json("> [!TIP]\n> Use it.")["content"][0]["attrs"]["panelType"],
        "tip"
    );
}

#[test]
fn smart_links_survive() {
    let doc = json!({"type":"doc","version":1,"content":[
        {"type":"paragraph","content":[{"type":"inlineCard","attrs":{"url":"https://jira.example.com/browse/X-1"}}]},
        {"type":"blockCard","attrs":{"url":"https://x.atlassian.net/wiki/pages/2"}},
        {"type":"embedCard","attrs":{"url":"https://youtube.com/watch?v=1","layout":"wide","width":80}}]});
    let md = md_of(doc);
    assert!(md.contains("<https://jira.example.com/browse/X-1>"), "{md}");
}

#[test]
fn mentions_read_as_names_and_survive() {
    let doc = json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
        {"type":"text","text":"ping "},
        {"type":"mention","attrs":{"id":"557058:1","text":"@Ada Lovelace","accessLevel":""}},
        {"type":"text","text":" and "},
        {"type":"mention","attrs":{"id":"557058:2"}}]}]});
    let d = node(doc);
    let resolver = |id: &str| (id == "557058:2").then(|| "Grace Hopper".to_string());
    let md = write(
        &d,
        &WriteOptions {
            mentions: Some(&resolver),
            ..WriteOptions::default()
        },
    );
    assert!(md.contains("[@Ada Lovelace](mention:557058:1)"), "{md}");
    assert!(md.contains("[@Grace Hopper](mention:557058:2"), "{md}");
    assert_eq!(read(&md).doc, d);
}

#[test]
fn macros_survive() {
    let doc = json!({"type":"doc","version":1,"content":[
        {"type":"extension","attrs":{"extensionType":"com.atlassian.confluence.macro.core","extensionKey":"jira","parameters":{"macroParams":{"key":{"value":"X-1"}}}}},
        {"type":"bodiedExtension","attrs":{"extensionType":"com.atlassian.confluence.macro.core","extensionKey":"expand","parameters":{}},
         "content":[{"type":"paragraph","content":[{"type":"text","text":"body"}]}]},
        {"type":"paragraph","content":[{"type":"inlineExtension","attrs":{"extensionType":"x","extensionKey":"status"}}]}]});
    let md = md_of(doc);
    assert!(md.contains("body"), "{md}");
}

#[test]
fn images_survive() {
    let doc = json!({"type":"doc","version":1,"content":[
        {"type":"mediaSingle","attrs":{"layout":"wide","width":66.5},"content":[{"type":"media","attrs":{"id":"f-1","type":"file","collection":"contentId-9","width":640,"height":480,"alt":"diagram"}}]},
        {"type":"mediaSingle","attrs":{"layout":"center"},"content":[{"type":"media","attrs":{"type":"external","url":"https://x.org/a.png"}}]}]});
    let md = md_of(doc);
    assert!(md.contains("![diagram](media:f-1"), "{md}");
    assert!(md.contains("![](https://x.org/a.png)"), "{md}");
    // A model's image is external media.
    let v = read_json("![cat](https://x.org/cat.png)");
    assert_eq!(v["content"][0]["type"], "mediaSingle");
    assert_eq!(v["content"][0]["content"][0]["attrs"]["type"], "external");
}

#[test]
fn table_of_contents_survives() {
    let doc = json!({"type":"doc","version":1,"content":[
        {"type":"extension","attrs":{"extensionType":"com.atlassian.confluence.macro.core","extensionKey":"toc","parameters":{"macroParams":{"maxLevel":{"value":"3"}}},"localId":"toc-1"}},
        {"type":"heading","attrs":{"level":1},"content":[{"type":"text","text":"Intro"}]}]});
    let md = md_of(doc);
    assert!(md.contains("\"extensionKey\":\"toc\""), "{md}");
}

#[test]
fn links_to_other_pages_are_not_empty() {
    let doc = json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
        {"type":"text","text":"Other page","marks":[{"type":"link","attrs":{"href":"https://x.atlassian.net/wiki/spaces/S/pages/42"}}]},
        {"type":"text","text":" "},
        {"type":"inlineCard","attrs":{"url":"https://x.atlassian.net/wiki/spaces/S/pages/43"}}]}]});
    let md = md_of(doc);
    assert!(
        md.contains("[Other page](https://x.atlassian.net/wiki/spaces/S/pages/42)"),
        "{md}"
    );
    assert!(
        md.contains("<https://x.atlassian.net/wiki/spaces/S/pages/43>"),
        "{md}"
    );
    // A link the model wrote with no text keeps its address as text.
    assert_eq!(
        read_json("[](https://x.org/p)")["content"][0]["content"][0]["text"],
        "https://x.org/p"
    );
}

#[test]
fn read_edit_write_keeps_every_untouched_node() {
    let original = node(every_node_page());
    let md = write(&original, &WriteOptions::default());
    let edited = md.replace("Hidden.", "Hidden, and edited.");
    assert_ne!(edited, md);
    let back = read(&edited).doc;
    assert!(read(&edited).warnings.is_empty());
    let (a, b) = (original.children(), back.children());
    assert_eq!(a.len(), b.len());
    let mut changed = 0;
    for (x, y) in a.iter().zip(b) {
        if x != y {
            changed += 1;
            assert_eq!(x.kind, NodeType::Expand);
        }
    }
    assert_eq!(changed, 1);
}

#[test]
fn a_mangled_marker_costs_only_its_node() {
    let original = node(every_node_page());
    let md = write(&original, &WriteOptions::default());
    let mangled = md.replace(
        "<!--adf:panel {\"panelColor\"",
        "<!--adf:panel {panelColor\"",
    );
    assert_ne!(mangled, md);
    let r = read(&mangled);
    assert!(!r.warnings.is_empty());
    assert!(r.warnings[0].line > 0);
    assert_eq!(r.doc.children().len(), original.children().len());
    let closing = md
        .lines()
        .find(|l| l.starts_with("<!--/adf:layoutColumn"))
        .expect("the page has a layout column");
    let closing_deleted = md.replacen(closing, "", 1);
    assert_ne!(closing_deleted, md);
    let r = read(&closing_deleted);
    assert!(!r.warnings.is_empty());
    assert_eq!(
        r.doc, original,
        "a lost close marker whose open marker counts costs nothing"
    );
    let _ = Node::doc(vec![]);
}

fn layout_page() -> Value {
    let p = |t: &str| json!({"type": "paragraph", "content": [{"type": "text", "text": t}]});
    json!({"type": "doc", "version": 1, "content": [
        p("before"),
        {"type": "layoutSection", "attrs": {"localId": "s1"}, "content": [
            {"type": "layoutColumn", "attrs": {"width": 33.33, "valign": "top"}, "content": [p("one"), p("one more")]},
            {"type": "layoutColumn", "attrs": {"width": 66.66}, "content": [p("two")]}]},
        p("between"),
        {"type": "bodiedSyncBlock", "attrs": {"resourceId": "r-1", "localId": "l-1"}, "content": [p("synced"), p("synced too")]},
        p("after")]})
}

/// The Markdown of `doc` with the first line starting with `prefix` deleted, read back.
fn without_line(doc: &Value, prefix: &str) -> mcp_text::Read {
    let md = md_of(doc.clone());
    let line = md
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starts with {prefix} in\n{md}"));
    read(&md.replacen(line, "", 1))
}

/// A model deletes (or mangles) the open marker of a marker pair: the container comes back around the
/// same blocks, without its attrs (a column gets a width: ADF requires one), with a warning. Found by the
/// edit judge at 1,000 seeds (`adf_properties.rs`).
#[test]
fn a_deleted_open_marker_costs_only_its_attrs() {
    let doc = layout_page();
    let p = |t: &str| json!({"type": "paragraph", "content": [{"type": "text", "text": t}]});
    let cases = [
        (
            "<!--adf:layoutColumn {\"valign\"",
            json!({"type": "layoutSection", "attrs": {"localId": "s1"}, "content": [
                {"type": "layoutColumn", "attrs": {"width": 33.34}, "content": [p("one"), p("one more")]},
                {"type": "layoutColumn", "attrs": {"width": 66.66}, "content": [p("two")]}]}),
        ),
        (
            "<!--adf:layoutColumn {\"width\":66.66}",
            json!({"type": "layoutSection", "attrs": {"localId": "s1"}, "content": [
                {"type": "layoutColumn", "attrs": {"width": 33.33, "valign": "top"}, "content": [p("one"), p("one more")]},
                {"type": "layoutColumn", "attrs": {"width": 66.67}, "content": [p("two")]}]}),
        ),
        (
            "<!--adf:layoutSection",
            json!({"type": "layoutSection", "content": doc["content"][1]["content"].clone()}),
        ),
        (
            "<!--adf:bodiedSyncBlock",
            json!({"type": "bodiedSyncBlock", "attrs": {"resourceId": "", "localId": ""},
                "content": [p("synced"), p("synced too")]}),
        ),
    ];
    for (prefix, expected) in cases {
        let r = without_line(&doc, prefix);
        assert!(!r.warnings.is_empty(), "{prefix}: no warning");
        let back = adf::to_value(&r.doc);
        let index = if prefix.contains("Sync") { 3 } else { 1 };
        let mut want = doc.clone();
        want["content"][index] = expected;
        assert_eq!(back, want, "{prefix}");
    }
    // Its JSON broken rather than deleted: the same.
    let md = md_of(doc.clone());
    let r = read(&md.replacen(
        "<!--adf:bodiedSyncBlock {",
        "<!--adf:bodiedSyncBlock {broken",
        1,
    ));
    assert!(!r.warnings.is_empty());
    assert_eq!(
        adf::to_value(&r.doc)["content"][3]["content"],
        doc["content"][3]["content"]
    );
    assert_eq!(adf::to_value(&r.doc)["content"][4], doc["content"][4]);
}

/// A model deletes the close marker of a pair: the container ends after the blocks its open marker counts,
/// and nothing is lost.
#[test]
fn a_deleted_close_marker_costs_nothing() {
    let doc = layout_page();
    for prefix in [
        "<!--/adf:layoutColumn",
        "<!--/adf:layoutSection",
        "<!--/adf:bodiedSyncBlock",
    ] {
        let r = without_line(&doc, prefix);
        assert!(!r.warnings.is_empty(), "{prefix}: no warning");
        assert_eq!(adf::to_value(&r.doc), doc, "{prefix}");
    }
}

/// A paragraph holding only an inline image lost its marker: the image stays inline (it is written whole,
/// not as `![alt](media:…)`, which alone on its line is a block image).
#[test]
fn a_lone_inline_image_stays_inline_without_its_paragraph_marker() {
    let doc = json!({"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "attrs": {"localId": "p1"}, "content": [
            {"type": "mediaInline", "attrs": {"id": "m-1", "collection": "c", "type": "image", "alt": "chart"}}]}]});
    let md = md_of(doc.clone());
    assert_eq!(read_json(&md), doc, "{md}");
    let r = without_line(&doc, "<!--#p1-->");
    let mut want = doc.clone();
    want["content"][0].as_object_mut().unwrap().remove("attrs");
    assert_eq!(adf::to_value(&r.doc), want);
}

/// Found by the `text_adf` fuzz target: a layout section holding children that are not columns (here a
/// type whose name is a mangled `layoutColumn`) was closed at the first of them. Such a section is written
/// as one whole-node marker, and so is a column holding a column.
#[test]
fn a_layout_section_with_foreign_children_survives() {
    let found: Value = serde_json::from_str(include_str!(
        "../../../fuzz/seeds/text_adf/type-name-with-slash.json"
    ))
    .unwrap();
    let md = md_of(found.clone());
    assert_eq!(read_json(&md), found, "{md}");
    let p = |t: &str| json!({"type": "paragraph", "content": [{"type": "text", "text": t}]});
    for content in [
        vec![
            p("a paragraph"),
            json!({"type": "layoutColumn", "attrs": {"width": 50}, "content": [p("x")]}),
        ],
        vec![
            json!({"type": "layoutColumn", "attrs": {"width": 50}, "content": [p("x")]}),
            p("after a column"),
        ],
        vec![
            json!({"type": "layoutColumn", "attrs": {"width": 50}, "content": [
            {"type": "layoutColumn", "attrs": {"width": 20}, "content": [p("inner")]}]}),
        ],
    ] {
        let doc = json!({"type": "doc", "version": 1, "content": [
            {"type": "layoutSection", "content": content}, p("next")]});
        let md = md_of(doc.clone());
        assert_eq!(read_json(&md), doc, "{md}");
    }
}

#[test]
fn deep_nesting_never_overflows() {
    for unit in [">", "- ", "1. "] {
        let md = format!("{}x\n", unit.repeat(100_000));
        let r = read(&md);
        assert!(!r.warnings.is_empty());
        let out = write(&r.doc, &WriteOptions::default());
        assert!(out.contains('x'));
    }
}

#[test]
fn twenty_megabytes_of_markdown() {
    let block = "## Heading *em* and **strong**\n\nSome text with `code`, [a link](https://x.org) and 2 * 3.\n\n- item one\n- item two\n  - nested\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n> [!NOTE]\n> A panel.\n\n";
    let md = block.repeat(20_000_000 / block.len());
    let r = read(&md);
    assert!(r.warnings.is_empty());
    let out = write(&r.doc, &WriteOptions::default());
    assert!(
        out.trim_end() == md.trim_end(),
        "the 20 MB document did not come back as it was"
    );
}

// Found by the random-document judges (`adf_properties`, `storage_markdown`); each a class once.

#[test]
fn a_link_with_a_title_and_other_attrs_keeps_both() {
    let md = md_of(
        json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
        {"type":"text","text":"guide","marks":[{"type":"link","attrs":{"href":"https://x.org","title":"T","occurrenceKey":"k"}}]}]}]}),
    );
    assert!(md.contains("[guide](https://x.org '"), "{md}");
    // A plain title is written in double quotes, as people write them.
    let md = md_of(
        json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
        {"type":"text","text":"guide","marks":[{"type":"link","attrs":{"href":"https://x.org","title":"T \"q\""}}]}]}]}),
    );
    assert!(md.contains(r#"[guide](https://x.org "T \"q\"")"#), "{md}");
}

#[test]
fn emphasis_next_to_a_written_newline_is_escaped() {
    // `\n` is written `&#10;`, which is punctuation for flanking: `__&#10;__` would be strong.
    md_of(para("_x_ __\n__  foo* ("));
}

#[test]
fn empty_texts_marks_and_decision_items_survive() {
    md_of(json!({"type":"doc","version":1,"content":[
        {"type":"paragraph","content":[{"type":"text","text":"a","marks":[]},{"type":"text","text":"b"}]},
        {"type":"decisionList","attrs":{"localId":"l"},"content":[
            {"type":"decisionItem","attrs":{"localId":"i","state":"A"},"content":[]}]}]}));
}

#[test]
fn a_mention_without_a_name_costs_no_marker() {
    let md = md_of(
        json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
        {"type":"mention","attrs":{"id":"557058:1"}}]}]}),
    );
    assert_eq!(md, "[@557058:1](mention:557058:1)\n");
}

#[test]
fn a_linked_image_is_an_image_in_a_link() {
    let md = md_of(
        json!({"type":"doc","version":1,"content":[{"type":"mediaSingle","attrs":{"layout":"center"},"content":[
        {"type":"media","attrs":{"type":"external","url":"img/a.png","alt":"A"},
         "marks":[{"type":"link","attrs":{"href":"https://x.org"}}]}]}]}),
    );
    assert_eq!(md, "[![A](img/a.png)](https://x.org)\n");
}

#[test]
fn plain_markdown_has_no_markers() {
    let doc = node(every_node_page());
    let md = write(
        &doc,
        &WriteOptions {
            plain: true,
            ..WriteOptions::default()
        },
    );
    assert!(!md.contains("<!--") && !md.contains("](adf:"), "{md}");
}

/// Found by the `text_adf` fuzz target: a node type holding `/` (or a space, or `>`) ended its marker early,
/// and the node was lost. Type names are percent-encoded in markers as in link destinations.
#[test]
fn unknown_type_names_with_marker_syntax_survive() {
    for kind in ["mediaSingl/", "odd type", "a>b", "x-->y", "ünïcode"] {
        let doc = serde_json::json!({"type": "doc", "version": 1, "content": [
            {"type": kind, "attrs": {"x": "-->"}},
            {"type": "paragraph", "content": [{"type": "text", "text": "after"}]},
            {"type": "layoutSection", "content": [{"type": "layoutColumn", "attrs": {"width": 50}, "content": [
                {"type": kind, "content": [{"type": "paragraph", "content": [{"type": "text", "text": "in"}]}]}]}]}
        ]});
        let md = md_of(doc.clone());
        assert_eq!(read_json(&md), doc, "{kind}: {md}");
    }
}

#[test]
fn an_html_table_written_on_few_lines_keeps_its_text() {
    // `<tr><td>Hello</td></tr>`, as a model (or a README) writes an HTML table: the text between the tags
    // was dropped, leaving empty cells. It is each cell's paragraph, read as HTML reads text.
    let md = "<table>\n<tr><th>Name</th><th>Note</th></tr>\n<tr><td>Ada &amp; co</td><td>  *as   is*  </td></tr>\n</table>\n\n<details><summary>More</summary>Body text</details>\n";
    let doc = read(md);
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let cell = |row: usize, col: usize| {
        let v = adf::to_value(&doc.doc);
        v["content"][0]["content"][row]["content"][col]["content"].clone()
    };
    let para =
        |text: &str| json!([{"type": "paragraph", "content": [{"type": "text", "text": text}]}]);
    assert_eq!(cell(0, 0), para("Name"));
    assert_eq!(cell(0, 1), para("Note"));
    assert_eq!(cell(1, 0), para("Ada & co"));
    assert_eq!(cell(1, 1), para("*as is*"));
    let expand = &adf::to_value(&doc.doc)["content"][1];
    assert_eq!(expand["type"], "expand");
    assert_eq!(expand["attrs"]["title"], "More");
    assert_eq!(expand["content"], para("Body text"));
    // Read and written back, the table is the writer's own form, and stays.
    let again = write(&doc.doc, &WriteOptions::default());
    assert_eq!(read(&again).doc, doc.doc, "{again}");
}

#[test]
fn plain_markdown_keeps_text_whose_marks_are_out_of_order() {
    // ADF from tools other than Atlassian's editor lists marks in any order (`strong` before `link`), or
    // twice, or holds a NUL: the lossless writer puts such a text whole in a marker; plain Markdown, which
    // has none, wrote nothing at all. It writes the text as near as Markdown can.
    let doc = node(
        json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
        {"type":"text","text":"bold link","marks":[{"type":"strong"},{"type":"link","attrs":{"href":"https://x.y"}}]},
        {"type":"text","text":" and "},
        {"type":"text","text":"em strong","marks":[{"type":"strong"},{"type":"em"},{"type":"strong"}]},
        {"type":"text","text":" then a\u{0}b","marks":[{"type":"code","attrs":{"x":1}},{"type":"strong"}]},
        {"type":"text","text":"","marks":[{"type":"em"}]},
        {"type":"text","text":" end","attrs":{"localId":"1"}}]}]}),
    );
    let plain = WriteOptions {
        plain: true,
        ..WriteOptions::default()
    };
    assert_eq!(
        write(&doc, &plain),
        "[**bold link**](https://x.y) and ***em strong***` then ab` end\n"
    );
    // The lossless writer keeps each such text whole, as before.
    round_trip(&doc);
}

#[test]
fn links_and_keys_written_as_html_are_links_and_code() {
    // READMEs and models write `<a href>`, `<kbd>` and `<ins>` too: they stayed literal tags in the ADF.
    let doc = read_json(
        r#"Press <kbd>Ctrl</kbd>, see <a href="https://x.y" title="T">the **docs**</a>, <ins>new</ins>; <a name="x">anchor</a> <a href="javascript:go()">js</a>"#,
    );
    assert_eq!(
        doc["content"][0]["content"],
        json!([
            {"type":"text","text":"Press "},
            {"type":"text","text":"Ctrl","marks":[{"type":"code"}]},
            {"type":"text","text":", see "},
            {"type":"text","text":"the ","marks":[{"type":"link","attrs":{"href":"https://x.y","title":"T"}}]},
            {"type":"text","text":"docs","marks":[{"type":"link","attrs":{"href":"https://x.y","title":"T"}},{"type":"strong"}]},
            {"type":"text","text":", "},
            {"type":"text","text":"new","marks":[{"type":"underline"}]},
            {"type":"text","text":"; <a name=\"x\">anchor</a> <a href=\"javascript:go()\">js</a>"}
        ])
    );
}

#[test]
fn a_colour_by_name_gives_valid_adf() {
    // `<span style="color:red">` (a README's, a model's) gave `textColor {color: "red"}`, which the
    // schema rejects (`#rrggbb` only). Names, `#rgb` and `rgb()` are converted; any other colour is left
    // out, with a warning, and its text kept.
    let md = r#"<span style="color:red;">a</span> <span style="color:#F0a">b</span> <span style="color: rgb(1, 2, 255)">c</span> <span style="color:#00FF00">d</span> <span style="color:tomato">e</span>"#;
    let read_back = read(md);
    let colours: Vec<Value> = adf::to_value(&read_back.doc)["content"][0]["content"]
        .as_array()
        .expect("inlines")
        .iter()
        .filter_map(|t| t["marks"][0]["attrs"].get("color").cloned())
        .collect();
    assert_eq!(
        colours,
        [
            json!("#ff0000"),
            json!("#ff00aa"),
            json!("#0102ff"),
            json!("#00FF00")
        ]
    );
    assert_eq!(read_back.warnings.len(), 1, "{:?}", read_back.warnings);
    assert!(read_back.warnings[0].message.contains("tomato"));
    // A colour ADF does not hold, read from ADF, goes back in its marker, not as a style.
    let doc = node(
        json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
        {"type":"text","text":"x","marks":[{"type":"textColor","attrs":{"color":"red"}}]}]}]}),
    );
    let md = round_trip(&doc);
    assert!(md.contains("data-mark"), "{md}");
}

#[test]
fn an_alert_line_ending_in_two_spaces_keeps_the_text_after_it() {
    // `> [!NOTE]  ` (a hard break, as a model may write it) dropped the panel's first paragraph.
    let doc = read_json("> [!NOTE]  \n> the text\n");
    assert_eq!(
        doc["content"][0],
        json!({"type":"panel","attrs":{"panelType":"note"},"content":[
            {"type":"paragraph","content":[{"type":"text","text":"the text"}]}]})
    );
}

#[test]
fn an_alert_with_a_title_keeps_the_title_as_a_bold_first_line() {
    // `> [!NOTE] Heads up` (Obsidian's callout title) in Markdown a model writes for a Jira issue: ADF's
    // panel has no title, so it is the panel's first paragraph, in bold.
    let doc = read_json("> [!NOTE] Heads up\n> the text\n");
    assert_eq!(
        doc["content"][0],
        json!({"type":"panel","attrs":{"panelType":"note"},"content":[
            {"type":"paragraph","content":[{"type":"text","text":"Heads up","marks":[{"type":"strong"}]}]},
            {"type":"paragraph","content":[{"type":"text","text":"the text"}]}]})
    );
    let doc = read_json("> [!TIP] Alone\n");
    assert_eq!(
        doc["content"][0]["content"],
        json!([{"type":"paragraph","content":[{"type":"text","text":"Alone","marks":[{"type":"strong"}]}]}])
    );
}
