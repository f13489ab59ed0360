//! Page layouts: a section's `ac:type` is its columns' widths, Confluence Cloud's breakout its `breakout`
//! mark, as Confluence's ADF has them; in Markdown, columns of equal width say none.

use mcp_text::{adf, storage};
use serde_json::{json, Value};

use crate::schema::schema;
use crate::storage_markdown::{from_markdown, storage_to_adf, to_markdown};

fn widths(section: &Value) -> Vec<Value> {
    section["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["attrs"]["width"].clone())
        .collect()
}

#[test]
fn a_cloud_pages_layout_gives_adfs_column_widths_and_breakout_and_comes_back_the_same() {
    // As Confluence Cloud stores a page's layout. Each section was `storage.attrs` in the model, its
    // columns had no `width` (which ADF requires: the ADF was not valid) and its marker was
    // `{"storage":{"attrs":{"ac:breakout-mode":"default","ac:type":"two_equal"}}}`.
    let xml = concat!(
        r#"<ac:layout><ac:layout-section ac:type="two_equal" ac:breakout-mode="default">"#,
        "<ac:layout-cell><p>left</p></ac:layout-cell><ac:layout-cell><p>right</p></ac:layout-cell>",
        "</ac:layout-section>",
        r#"<ac:layout-section ac:type="two_left_sidebar" ac:breakout-mode="wide" ac:breakout-width="1800">"#,
        "<ac:layout-cell><p>side</p></ac:layout-cell><ac:layout-cell><p>main</p></ac:layout-cell>",
        "</ac:layout-section>",
        r#"<ac:layout-section ac:type="three_with_sidebars" ac:breakout-mode="full-width">"#,
        "<ac:layout-cell><p>a</p></ac:layout-cell><ac:layout-cell><p>b</p></ac:layout-cell>",
        "<ac:layout-cell><p>c</p></ac:layout-cell></ac:layout-section></ac:layout>",
    );
    let doc = storage_to_adf(xml);
    let sections = doc["content"].as_array().unwrap();
    assert_eq!(widths(&sections[0]), [json!(50), json!(50)]);
    assert_eq!(sections[0].get("marks"), None);
    assert_eq!(widths(&sections[1]), [json!(33.33), json!(66.66)]);
    assert_eq!(
        sections[1]["marks"],
        json!([{"type": "breakout", "attrs": {"mode": "wide", "width": 1800}}])
    );
    assert_eq!(widths(&sections[2]), [json!(25), json!(50), json!(25)]);
    assert_eq!(
        sections[2]["marks"],
        json!([{"type": "breakout", "attrs": {"mode": "full-width"}}])
    );
    assert!(!doc.to_string().contains("storage"), "{doc}");
    if let Some(schema) = schema() {
        schema.check(&doc).unwrap();
    }
    let node = adf::from_value(doc).unwrap();
    assert_eq!(storage::write(&node), xml);
    let md = to_markdown(xml);
    // Equal columns say no width; a sidebar's columns say theirs.
    assert!(
        md.starts_with("<!--adf:layoutSection 2-->\n\n<!--adf:layoutColumn 1-->\n\nleft"),
        "{md}"
    );
    assert!(
        md.contains(r#"<!--adf:layoutColumn {"width":66.66} 1-->"#),
        "{md}"
    );
    assert!(!md.contains("ac:type"), "{md}");
    assert_eq!(from_markdown(&md), xml);
    // A model that edits a column's text keeps the layout.
    let edited = md.replace("\nside\n", "\nthe side\n");
    assert!(from_markdown(&edited).contains(
        r#"<ac:layout-section ac:type="two_left_sidebar" ac:breakout-mode="wide" ac:breakout-width="1800"><ac:layout-cell><p>the side</p>"#
    ));
}

#[test]
fn a_data_center_layout_without_breakout_comes_back_without_it() {
    // Data Center writes the type alone, and two layouts one after the other; so do other tools.
    let xml = concat!(
        r#"<ac:layout><ac:layout-section ac:type="single"><ac:layout-cell><p>one</p></ac:layout-cell>"#,
        "</ac:layout-section></ac:layout>",
        r#"<ac:layout><ac:layout-section ac:type="two_right_sidebar"><ac:layout-cell><p>a</p></ac:layout-cell>"#,
        "<ac:layout-cell><p>b</p></ac:layout-cell></ac:layout-section></ac:layout>",
    );
    let doc = storage_to_adf(xml);
    assert_eq!(widths(&doc["content"][1]), [json!(66.66), json!(33.33)]);
    assert_eq!(from_markdown(&to_markdown(xml)), xml);
    let node = adf::from_value(doc).unwrap();
    assert_eq!(storage::write(&node), xml);
}

#[test]
fn a_layout_from_adf_is_written_with_confluences_type_and_breakout() {
    // ADF → storage wrote `<ac:layout-section>` with no type (which Confluence needs) and no breakout.
    let doc = json!({"type": "doc", "version": 1, "content": [
        {"type": "layoutSection", "marks": [{"type": "breakout", "attrs": {"mode": "wide"}}], "content": [
            {"type": "layoutColumn", "attrs": {"width": 66.66}, "content": [
                {"type": "paragraph", "content": [{"type": "text", "text": "main"}]}]},
            {"type": "layoutColumn", "attrs": {"width": 33.33}, "content": [
                {"type": "paragraph", "content": [{"type": "text", "text": "side"}]}]}]},
    ]});
    let node = adf::from_value(doc.clone()).unwrap();
    let xml = storage::write(&node);
    assert!(
        xml.starts_with(
            r#"<ac:layout><ac:layout-section ac:type="two_right_sidebar" ac:breakout-mode="wide">"#
        ),
        "{xml}"
    );
    assert_eq!(storage::read(&xml).unwrap().doc, node);
    // Widths of no preset: storage says the type of their number, and reads back its widths.
    let mut custom = doc;
    custom["content"][0]["content"][0]["attrs"]["width"] = json!(60);
    custom["content"][0]["content"][1]["attrs"]["width"] = json!(40);
    let xml = storage::write(&adf::from_value(custom).unwrap());
    assert!(xml.contains(r#"ac:type="two_equal""#), "{xml}");
}

#[test]
fn a_section_of_another_type_or_count_keeps_what_it_says() {
    // An older type, a preset with cells of another number, a breakout of another mode, attributes in
    // another order: each stays as it was, and comes back the same.
    for xml in [
        r#"<ac:layout><ac:layout-section ac:type="fixed-width"><ac:layout-cell><p>x</p></ac:layout-cell></ac:layout-section></ac:layout>"#,
        r#"<ac:layout><ac:layout-section ac:type="two_equal" ac:breakout-mode="default"><ac:layout-cell><p>x</p></ac:layout-cell></ac:layout-section></ac:layout>"#,
        r#"<ac:layout><ac:layout-section ac:type="single" ac:breakout-mode="center"><ac:layout-cell><p>x</p></ac:layout-cell></ac:layout-section></ac:layout>"#,
        r#"<ac:layout><ac:layout-section ac:breakout-mode="default" ac:type="single"><ac:layout-cell><p>x</p></ac:layout-cell></ac:layout-section></ac:layout>"#,
    ] {
        assert_eq!(from_markdown(&to_markdown(xml)), xml);
        let node = adf::from_value(storage_to_adf(xml)).unwrap();
        assert_eq!(storage::write(&node), xml);
    }
}

#[test]
fn columns_of_equal_width_say_no_width_in_markdown() {
    // Each column of a layout said `{"width":50}` (5 o200k tokens), the share every one of Confluence's
    // equal columns has. The reader gives a column whose marker names no width its section's equal share;
    // any other width, or none, is said.
    let column = |attrs: Value, text: &str| {
        json!({"type": "layoutColumn", "attrs": attrs,
               "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}]})
    };
    let section = |columns: Vec<Value>| json!({"type": "layoutSection", "content": columns});
    let doc = json!({"type": "doc", "version": 1, "content": [
        section(vec![column(json!({"width": 50}), "a"), column(json!({"width": 50}), "b")]),
        section(vec![column(json!({"width": 33.33}), "c"), column(json!({"width": 33.33, "localId": "x"}), "d"),
                     column(json!({}), "e")]),
        section(vec![column(json!({"width": 100}), "f")]),
        section(vec![column(json!({"width": 25}), "g"), column(json!({"width": 25}), "h"),
                     column(json!({"width": 25}), "i"), column(json!({"width": 25}), "j")]),
        section(vec![column(json!({"width": 40}), "k"), column(json!({"width": 60}), "l")]),
    ]});
    let md = crate::adf_properties::to_markdown(&doc).unwrap();
    assert_eq!(md.matches("<!--adf:layoutColumn 1-->").count(), 4, "{md}");
    for said in [
        r#"<!--adf:layoutColumn {"localId":"x"} 1-->"#,
        r#"<!--adf:layoutColumn {"-attrs":["width"]} 1-->"#,
        r#"<!--adf:layoutColumn {"width":25} 1-->"#,
        r#"<!--adf:layoutColumn {"width":40} 1-->"#,
        r#"<!--adf:layoutColumn {"width":60} 1-->"#,
    ] {
        assert!(md.contains(said), "{said}\nnot in:\n{md}");
    }
    let back = mcp_text::markdown::read(&md);
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(back.doc, adf::from_value(doc).unwrap());
    // A model that deletes a section's open marker loses the section's count: its columns, which say no
    // width, have all of it, and the ADF stays valid.
    let lost = md.replacen("<!--adf:layoutSection 2-->\n\n", "", 1);
    let back = mcp_text::markdown::read(&lost);
    assert!(!back.warnings.is_empty());
    let json: Value = serde_json::from_str(&adf::write(&back.doc)).unwrap();
    assert_eq!(widths(&json["content"][0]), [json!(100), json!(100)]);
    if let Some(schema) = schema() {
        let first = json!({"type": "doc", "version": 1, "content": [json["content"][0].clone()]});
        schema.check(&first).unwrap();
    }
}
