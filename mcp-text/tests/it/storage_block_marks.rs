//! A paragraph's or heading's alignment and indentation: storage's `style`, ADF's block marks, both ways.

use mcp_text::{adf, storage, Format};
use serde_json::{json, Value};

use crate::schema::schema;
use crate::storage_markdown::{convert, from_markdown, to_markdown};

#[test]
fn a_centred_paragraph_is_adfs_alignment_mark_and_comes_back_the_same() {
    // As Confluence stores a centred paragraph, a right-aligned heading, an indented paragraph (two
    // levels) and a centred heading in a table cell: each was `storage.attrs.style` in the model, so
    // storage → ADF gave no `alignment` or `indentation` mark, and the ADF was not valid.
    let xml = concat!(
        r#"<p style="text-align: center;">Hello <strong>world</strong></p>"#,
        r#"<h2 local-id="a1" style="text-align: right;">Title</h2>"#,
        r#"<p style="margin-left: 60.0px;">Indented</p>"#,
        r#"<table data-layout="default"><tbody><tr><td><h3 style="text-align: center;">Cell</h3></td></tr></tbody></table>"#,
    );
    let json = convert(xml, Format::Storage, Format::Adf);
    let doc: Value = serde_json::from_str(&json).unwrap();
    let marks = |node: &Value| node["marks"].clone();
    assert_eq!(
        marks(&doc["content"][0]),
        json!([{"type": "alignment", "attrs": {"align": "center"}}])
    );
    assert_eq!(
        marks(&doc["content"][1]),
        json!([{"type": "alignment", "attrs": {"align": "end"}}])
    );
    assert_eq!(
        doc["content"][1]["attrs"],
        json!({"level": 2, "localId": "a1"})
    );
    assert_eq!(
        marks(&doc["content"][2]),
        json!([{"type": "indentation", "attrs": {"level": 2}}])
    );
    assert!(!json.contains("storage"), "{json}");
    if let Some(schema) = schema() {
        schema.check(&doc).unwrap();
    }
    assert_eq!(convert(&json, Format::Adf, Format::Storage), xml);
    let md = to_markdown(xml);
    assert!(
        md.contains(
            r#"<!--adf:paragraph {"marks":[{"attrs":{"align":"center"},"type":"alignment"}]}-->"#
        ),
        "{md}"
    );
    assert_eq!(from_markdown(&md), xml);
    // A model that edits the text keeps the alignment.
    let edited = md.replace("Hello **world**", "Hello **there**");
    assert!(from_markdown(&edited)
        .starts_with(r#"<p style="text-align: center;">Hello <strong>there</strong></p>"#));
}

#[test]
fn alignment_and_indentation_from_adf_are_written_to_storage() {
    // ADF → storage wrote neither (`<p>Hello</p>`): a centred or indented paragraph of a Cloud page
    // written to a Data Center page lost its place.
    let doc = json!({"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "marks": [{"type": "indentation", "attrs": {"level": 1}}],
         "content": [{"type": "text", "text": "One"}]},
        {"type": "heading", "attrs": {"level": 1}, "marks": [{"type": "alignment", "attrs": {"align": "end"}}],
         "content": [{"type": "text", "text": "Two"}]},
        {"type": "layoutSection", "content": [{"type": "layoutColumn", "attrs": {"width": 100}, "content": [
            {"type": "paragraph", "marks": [{"type": "alignment", "attrs": {"align": "center"}}],
             "content": [{"type": "text", "text": "Three"}]}]}]},
    ]});
    let node = adf::from_value(doc.clone()).unwrap();
    let xml = storage::write(&node);
    for written in [
        r#"<p style="margin-left: 30.0px;">One</p>"#,
        r#"<h1 style="text-align: right;">Two</h1>"#,
        r#"<p style="text-align: center;">Three</p>"#,
    ] {
        assert!(xml.contains(written), "{written}\nnot in:\n{xml}");
    }
    assert_eq!(storage::read(&xml).unwrap().doc, node);
}

#[test]
fn a_style_that_is_no_mark_there_stays_the_elements_attribute() {
    // ADF has no alignment in a list item, no indentation of a paragraph in a cell, no left or justified
    // alignment, no indentation of another step, and one mark per paragraph: each stays the style it is.
    for xml in [
        r#"<ul><li><p style="text-align: center;">item</p></li></ul>"#,
        r#"<table><tbody><tr><td><p style="margin-left: 30.0px;">cell</p></td></tr></tbody></table>"#,
        r#"<p style="text-align: left;">left</p>"#,
        r#"<p style="text-align: justify;">justified</p>"#,
        r#"<p style="margin-left: 45.0px;">half a step more</p>"#,
        r#"<p style="margin-left: 210.0px;">seven steps</p>"#,
        r#"<p style="text-align: center; margin-left: 30.0px;">both</p>"#,
    ] {
        let json = convert(xml, Format::Storage, Format::Adf);
        assert!(!json.contains("\"marks\":[{\"type\":\"a"), "{json}");
        assert!(!json.contains("indentation"), "{json}");
        assert!(json.contains(r#""storage":{"attrs":{"style":"#), "{json}");
        assert_eq!(convert(&json, Format::Adf, Format::Storage), xml);
        assert_eq!(from_markdown(&to_markdown(xml)), xml);
    }
}

#[test]
fn a_style_spelled_otherwise_comes_back_as_it_was_until_the_mark_changes() {
    // Another spelling of the same declaration is the mark, its text kept beside it.
    let xml = r#"<p class="x" style="text-align:center" title="t">a</p><p style="margin-left: 30px">b</p>"#;
    let md = to_markdown(xml);
    assert_eq!(from_markdown(&md), xml);
    let doc = storage::read(xml).unwrap().doc;
    assert_eq!(
        doc.children()[0]
            .marks
            .as_ref()
            .map(|m| m[0].attr_str("align")),
        Some(Some("center"))
    );
    // A model that right-aligns the paragraph gets Confluence's own spelling of that.
    let edited = md.replacen(r#""align":"center""#, r#""align":"end""#, 1);
    assert!(
        from_markdown(&edited)
            .starts_with(r#"<p class="x" style="text-align: right;" title="t">a</p>"#),
        "{}",
        from_markdown(&edited)
    );
}
