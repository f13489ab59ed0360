//! Storage macros (`ac:structured-macro`): what goes without saying is not kept, what differs comes back
//! (moved from the unit tests of `src/storage/macros.rs`).

use mcp_text::model::Node;
use mcp_text::storage::{self, STORAGE};

fn round_trip(xml: &str) -> Node {
    let doc = storage::read(xml).expect("reads").doc;
    assert_eq!(storage::write(&doc), xml);
    doc
}

#[test]
fn what_goes_without_saying_is_not_kept() {
    let doc = round_trip(concat!(
        r#"<p><ac:structured-macro ac:name="profile" ac:schema-version="1">"#,
        r#"<ac:parameter ac:name="user"><ri:user ri:account-id="557058:f5a3" /></ac:parameter>"#,
        r#"</ac:structured-macro></p>"#
    ));
    let ext = &doc.children()[0].children()[0];
    assert_eq!(
        ext.attr("parameters"),
        Some(&serde_json::json!({ "macroParams": { "user": { "value": "557058:f5a3" } } }))
    );
    assert!(ext.attr(STORAGE).is_none());
    let doc = round_trip(
        r#"<ac:structured-macro ac:name="info" ac:schema-version="1"><ac:rich-text-body><p>x</p></ac:rich-text-body></ac:structured-macro>"#,
    );
    assert!(doc.children()[0].attr(STORAGE).is_none());
}

#[test]
fn what_differs_from_the_defaults_comes_back() {
    for xml in [
        r#"<p><ac:structured-macro ac:name="profile"><ac:parameter ac:name="user">plain text</ac:parameter></ac:structured-macro></p>"#,
        r#"<p><ac:structured-macro ac:name="profile" ac:schema-version="2"><ac:parameter ac:name="user"><ri:user ri:userkey="k1" /></ac:parameter></ac:structured-macro></p>"#,
        r#"<p><ac:structured-macro ac:name="profile" ac:schema-version="1"><ac:parameter ac:name="user"><ri:user ri:account-id="a" ri:local-id="x" /></ac:parameter><ac:parameter ac:name="user" /></ac:structured-macro></p>"#,
        r#"<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[x]]></ac:plain-text-body></ac:structured-macro>"#,
        r#"<p><ac:structured-macro ac:name="jira"><ac:parameter ac:name="key">A-1</ac:parameter></ac:structured-macro></p>"#,
    ] {
        round_trip(xml);
    }
}

#[test]
fn an_edited_user_is_written_as_that_user() {
    let mut doc = round_trip(concat!(
        r#"<p><ac:structured-macro ac:name="profile" ac:schema-version="1">"#,
        r#"<ac:parameter ac:name="user"><ri:user ri:account-id="a" /></ac:parameter>"#,
        r#"</ac:structured-macro></p>"#
    ));
    let ext = &mut doc.content.as_mut().expect("doc")[0]
        .content
        .as_mut()
        .expect("p")[0];
    ext.set_attr(
        "parameters",
        serde_json::json!({ "macroParams": { "user": { "value": "b" } } }),
    );
    assert!(storage::write(&doc).contains(r#"<ri:user ri:account-id="b" />"#));
}

#[test]
fn a_macro_with_nothing_inside_is_one_empty_tag_as_confluence_writes_it() {
    let empty = r#"<p><ac:structured-macro ac:name="children" ac:schema-version="2" ac:macro-id="9a1" /></p>"#;
    let doc = round_trip(empty);
    assert!(doc.children()[0].children()[0].attr(STORAGE).is_none());
    // Through Markdown and through ADF, the same bytes.
    let md = mcp_text::markdown::write(&doc, &Default::default());
    assert_eq!(md, "[children](adf:inlineExtension '{\"parameters\":{\"macroMetadata\":{\"macroId\":{\"value\":\"9a1\"},\"schemaVersion\":{\"value\":\"2\"}}}}')\n");
    assert_eq!(storage::write(&mcp_text::markdown::read(&md).doc), empty);
    let adf = mcp_text::adf::write(&doc);
    assert_eq!(
        storage::write(&mcp_text::adf::read(adf.as_bytes()).unwrap()),
        empty
    );
    // An open and a close tag with nothing between say so, and come back as they were.
    let pair = r#"<ac:structured-macro ac:name="toc" ac:schema-version="1"></ac:structured-macro>"#;
    let doc = round_trip(pair);
    assert_eq!(
        doc.children()[0].attr(STORAGE),
        Some(&serde_json::json!({"pair": true}))
    );
    // A macro an ADF document or a model gives with no parameter is Confluence's empty tag.
    let md = mcp_text::markdown::read("[toc](adf:inlineExtension)").doc;
    assert_eq!(
        storage::write(&md),
        r#"<p><ac:structured-macro ac:name="toc" ac:schema-version="1" /></p>"#
    );
}

#[test]
fn a_macros_parameters_out_of_name_order_say_the_fewest_names_that_order_them() {
    // Confluence writes a status's title before its colour, a panel's icon parameters before its
    // colour: the whole order was kept on each (`"order":["title","colour"]`); the writer writes the
    // names the order holds, then the rest by name, so the first names that give the order suffice.
    let xml = concat!(
        "<p><ac:structured-macro ac:name=\"status\" ac:schema-version=\"1\">",
        "<ac:parameter ac:name=\"title\">Done</ac:parameter><ac:parameter ac:name=\"colour\">Green</ac:parameter>",
        "</ac:structured-macro></p>",
        "<ac:structured-macro ac:name=\"panel\" ac:schema-version=\"1\">",
        "<ac:parameter ac:name=\"panelIcon\">:x:</ac:parameter><ac:parameter ac:name=\"panelIconId\">1f922</ac:parameter>",
        "<ac:parameter ac:name=\"bgColor\">#E3FCEF</ac:parameter>",
        "<ac:rich-text-body><p>x</p></ac:rich-text-body></ac:structured-macro>",
        // A repeated name keeps the whole order.
        "<ac:structured-macro ac:name=\"x\" ac:schema-version=\"1\">",
        "<ac:parameter ac:name=\"b\">1</ac:parameter><ac:parameter ac:name=\"a\">2</ac:parameter>",
        "<ac:parameter ac:name=\"b\">3</ac:parameter></ac:structured-macro>",
    );
    let md = crate::storage_markdown::to_markdown(xml);
    assert!(md.contains(r#""order":["title"]"#), "{md}");
    assert!(
        md.contains(r#""order":["panelIcon","panelIconId"]"#),
        "{md}"
    );
    assert!(md.contains(r#""order":["b","a","b"]"#), "{md}");
    assert_eq!(crate::storage_markdown::from_markdown(&md), xml);
    round_trip(xml);
}
