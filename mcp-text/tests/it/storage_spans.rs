//! Storage format's `<span>`s that say no mark (what Confluence's editor leaves around pasted text, a
//! `class`, a `font-size`): read as the inline HTML they are, written back as the same element.

use mcp_text::markdown;
use mcp_text::Format;

use crate::storage_markdown::{convert, from_markdown, to_markdown};

#[test]
fn a_span_that_says_no_mark_reads_as_its_html_and_comes_back_the_same() {
    // A Data Center page's table as the editor keeps pasted cells: `<span>` around each one's text, one
    // with a space inside a span inside it, one with a trailing space. Each was
    // `[text](adf:storage:element '{"name":"span"}')` (a dozen tokens more), and the last two carried
    // their whole content as JSON, the model reading `Port [uml:Port]` twice.
    let xml = concat!(
        "<table><tbody><tr><th>Enterprise Architect</th><th>MagicDraw</th></tr>",
        "<tr><td><span>Class [uml:Class]</span></td>",
        "<td><span>Class [uml:Class] </span></td></tr>",
        "<tr><td><span>Port<span> </span>[uml:Port]</span></td>",
        r#"<td><span style="font-size: 14.0px;">size</span></td></tr></tbody></table>"#,
        r#"<p><strong>Set <span>Type</span></strong> in <span class="c"><em>the</em> dialog</span>, "#,
        r#"see <a href="https://example.com/"><span>the guide</span></a>.</p>"#,
    );
    let md = to_markdown(xml);
    for seen in [
        "| <span>Class \\[uml:Class]</span> | <span>Class \\[uml:Class] </span> |",
        "| <span>Port<span> </span>\\[uml:Port]</span> | <span style=\"font-size: 14.0px;\">size</span> |",
        // The marks around a span are the element's, as the storage reader reads them.
        "**Set <span>Type</span>** in <span class=\"c\">*the* dialog</span>, see [<span>the guide</span>](https://example.com/).",
    ] {
        assert!(md.contains(seen), "{seen}\nnot in:\n{md}");
    }
    assert!(!md.contains("storage:element"), "{md}");
    assert_eq!(from_markdown(&md), xml);
    // A model's edit of a span's text is the span's.
    let edited = md.replace("<span>Port<span> </span>", "<span>Gate<span> </span>");
    assert!(from_markdown(&edited).contains("<td><span>Gate<span> </span>[uml:Port]</span></td>"));
}

#[test]
fn a_span_the_html_would_not_give_back_stays_whole() {
    // A colour by name is a text colour to a model that writes it as HTML; an attribute whose value holds
    // a quote or a pipe, a name in capitals, marks Markdown cannot nest, would not come back as they are:
    // each stays the element's marker, and comes back the same.
    for xml in [
        r#"<p><span style="color: black;">dark</span></p>"#,
        r#"<p><span title="a &quot;b&quot;">q</span></p>"#,
        r#"<table><tbody><tr><td><span title="a | b">p</span></td></tr></tbody></table>"#,
        r#"<p><span Class="x">c</span></p>"#,
        // A code span holds no HTML.
        r#"<p><code>a<span class="x">b</span></code></p>"#,
        // Strikethrough in a struck span: `~~a<span>b~~c~~</span>~~` would pair its delimiters otherwise.
        r#"<p><s>a<span class="x">b<s>c</s>d</span>e</s></p>"#,
    ] {
        let md = to_markdown(xml);
        assert!(md.contains("adf:storage:element"), "{xml}: {md}");
        assert_eq!(from_markdown(&md), xml);
    }
}

#[test]
fn a_span_a_model_writes_is_its_text_in_adf_and_its_element_in_storage() {
    let md = "A <span class=\"x\">b **c**</span> d and **<span>e</span>** f\n";
    let adf = convert(md, Format::Markdown, Format::Adf);
    assert!(!adf.contains("storage:element"), "{adf}");
    let adf: serde_json::Value = serde_json::from_str(&adf).unwrap();
    if let Some(schema) = crate::schema::schema() {
        schema.check(&adf).unwrap();
    }
    let texts: Vec<(&str, usize)> = adf["content"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let marks = t["marks"].as_array().map_or(0, Vec::len);
            (t["text"].as_str().unwrap(), marks)
        })
        .collect();
    assert_eq!(
        texts,
        [
            ("A ", 0),
            ("b ", 0),
            ("c", 1),
            (" d and ", 0),
            ("e", 1),
            (" f", 0)
        ]
    );
    assert_eq!(
        convert(md, Format::Markdown, Format::Storage),
        "<p>A <span class=\"x\">b <strong>c</strong></span> d and <strong><span>e</span></strong> f</p>"
    );
    // A storage page's span written as ADF gives its text, its marks on it.
    let adf = convert(
        r#"<p><strong><span class="x">bold</span></strong></p>"#,
        Format::Storage,
        Format::Adf,
    );
    assert_eq!(
        adf,
        r#"{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"bold","marks":[{"type":"strong"}]}]}]}"#
    );
}

#[test]
fn a_span_whose_close_tag_was_lost_ends_with_its_paragraph() {
    // As in HTML: the element holds the rest of the run, and nothing else is lost. A close tag with no
    // span open is the text the model wrote.
    let md = "<span class=\"x\">b **c**\n\nnext</span> para\n";
    let back = markdown::read(md);
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(
        mcp_text::storage::write(&back.doc),
        "<p><span class=\"x\">b <strong>c</strong></span></p><p>next&lt;/span&gt; para</p>"
    );
    // A span inside an inline node's label (whose text alone counts), closing there or not.
    for md in [
        "[<span>x</span>](adf:placeholder '{\"attrs\":{\"text\":\"x\"}}') y\n",
        "**[<span>x](adf:placeholder '{\"attrs\":{\"text\":\"x\"}}')</span>** y\n",
        "<span>[a</span> b](https://example.com/) c\n",
    ] {
        let back = markdown::read(md);
        let xml = mcp_text::storage::write(&back.doc);
        assert!(xml.contains('y') || xml.contains(" c"), "{md}: {xml}");
    }
}

#[test]
fn spans_nested_at_the_readers_cap_read_and_write_through_markdown() {
    // Each span's content is written by the inline writer inside the span's tags: a recursion as deep as
    // the spans, which the storage reader caps. On a test thread's stack (2 MiB), in a debug build too.
    let n = mcp_text::storage::MAX_DEPTH - 2;
    let xml = format!(
        "<p>{}x{}</p>",
        "<span class=\"x\">".repeat(n),
        "</span>".repeat(n)
    );
    let md = to_markdown(&xml);
    assert!(
        md.starts_with("<span class=\"x\"><span class=\"x\">"),
        "{md}"
    );
    assert_eq!(from_markdown(&md), xml);
}

#[test]
fn two_spans_of_one_style_side_by_side_stay_two() {
    // A public Data Center documentation page's first paragraph, as its editor left it.
    let xml = concat!(
        "<p><strong>Welcome!</strong><span style=\"color: rgb(62,63,64);\"> This guide walks you through ",
        "the basics</span><span style=\"color: rgb(62,63,64);\">, defining elements and more.</span></p>",
        "<p><span style=\"color: #010203;\"><em>a</em><em>b</em></span><strong>c</strong>d<strong>e</strong></p>"
    );
    assert_eq!(
        mcp_text::storage::write(&crate::storage_read::read(xml)),
        xml
    );
    let md = to_markdown(xml);
    assert!(md.contains("the basics<!---->, defining"), "{md}");
    assert_eq!(from_markdown(&md), xml, "{md}");
}

#[test]
fn an_unknown_elements_attributes_come_back_in_their_order() {
    // An element the model has no node for kept its attributes by name, and came back with them so
    // (`<span style="…" data-x="1">` as `<span data-x="1" style="…">`): the same XML, not the same bytes.
    let xml = concat!(
        "<p><span style=\"color: rgb(255,0,0);\" data-x=\"1\">red</span> and ",
        "<span class=\"a\" data-x=\"1\">sorted</span></p>",
        "<div class=\"wrap\" align=\"center\"><p>x</p></div>",
    );
    let md = to_markdown(xml);
    assert_eq!(md.matches("\"order\":[").count(), 2, "{md}");
    assert_eq!(from_markdown(&md), xml);
}
