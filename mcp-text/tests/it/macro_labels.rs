//! An inline macro's label (`[anchor: top](adf:inlineExtension …)`, `[toc](…)`) is what a model reads of
//! it; the label's name and main parameter are read back from it, so the marker does not say them again.

use mcp_text::adf;
use mcp_text::model::Node;
use serde_json::json;

use crate::storage_markdown::{from_markdown, to_markdown};

fn markdown_to_adf(md: &str) -> serde_json::Value {
    let back = mcp_text::markdown::read(md);
    assert!(back.warnings.is_empty(), "{:?}\n{md}", back.warnings);
    serde_json::from_str(&adf::write(&back.doc)).unwrap()
}

/// The one inline node of the document's one paragraph.
fn inline(doc: &serde_json::Value) -> &serde_json::Value {
    &doc["content"][0]["content"][0]
}

#[test]
fn an_inline_macros_label_says_its_name_and_main_parameter_once() {
    let xml = concat!(
        "<p>Tracked in <ac:structured-macro ac:name=\"jira\" ac:schema-version=\"1\" ac:macro-id=\"j-1\">",
        "<ac:parameter ac:name=\"key\">PROJ-123</ac:parameter>",
        "<ac:parameter ac:name=\"serverId\">abc</ac:parameter></ac:structured-macro>, ",
        "<ac:structured-macro ac:name=\"toc\" ac:schema-version=\"1\">",
        "<ac:parameter ac:name=\"maxLevel\">3</ac:parameter></ac:structured-macro>, ",
        "<ac:structured-macro ac:name=\"anchor\" ac:schema-version=\"1\">",
        "<ac:parameter ac:name=\"\">top</ac:parameter></ac:structured-macro> and ",
        "<ac:structured-macro ac:name=\"children\" ac:schema-version=\"1\" /></p>",
    );
    let md = to_markdown(xml);
    assert_eq!(
        md,
        concat!(
            "Tracked in [jira: PROJ-123](adf:inlineExtension '{\"parameters\":{\"macroMetadata\":",
            "{\"macroId\":{\"value\":\"j-1\"}},\"macroParams\":{\"serverId\":{\"value\":\"abc\"}}}}'), ",
            "[toc](adf:inlineExtension '{\"parameters\":{\"macroParams\":{\"maxLevel\":{\"value\":\"3\"}}}}'), ",
            "[anchor: top](adf:inlineExtension) and [children](adf:inlineExtension)\n"
        )
    );
    assert_eq!(from_markdown(&md), xml);
}

#[test]
fn a_renamed_anchor_is_written_with_its_new_name() {
    let xml = concat!(
        "<p><ac:structured-macro ac:name=\"anchor\" ac:schema-version=\"1\" ac:macro-id=\"a-1\">",
        "<ac:parameter ac:name=\"\">top</ac:parameter></ac:structured-macro>Intro</p>",
    );
    let md = to_markdown(xml);
    assert!(
        md.starts_with("[anchor: top](adf:inlineExtension '"),
        "{md}"
    );
    let edited = md.replace("[anchor: top]", "[anchor: start]");
    assert_eq!(from_markdown(&edited), xml.replace(">top<", ">start<"));
}

#[test]
fn an_inline_macro_a_model_writes_is_made_from_its_label() {
    assert_eq!(
        from_markdown(
            "See [anchor: intro](adf:inlineExtension) and [jira: ENG-7](adf:inlineExtension)."
        ),
        concat!(
            "<p>See <ac:structured-macro ac:name=\"anchor\" ac:schema-version=\"1\">",
            "<ac:parameter ac:name=\"\">intro</ac:parameter></ac:structured-macro> and ",
            "<ac:structured-macro ac:name=\"jira\" ac:schema-version=\"1\">",
            "<ac:parameter ac:name=\"key\">ENG-7</ac:parameter></ac:structured-macro>.</p>"
        )
    );
    let doc = markdown_to_adf("[toc](adf:inlineExtension)");
    assert_eq!(
        inline(&doc),
        &json!({"type": "inlineExtension", "attrs": {
            "extensionKey": "toc", "extensionType": "com.atlassian.confluence.macro.core",
            "parameters": {"macroParams": {}}}})
    );
    // What earlier versions wrote, the whole node in the marker, reads as it did.
    let whole = concat!(
        "[anchor: top](adf:inlineExtension '{\"extensionKey\":\"anchor\",\"extensionType\":",
        "\"com.atlassian.confluence.macro.core\",\"parameters\":{\"macroParams\":{\"\":{\"value\":\"top\"}}}}')"
    );
    assert_eq!(
        inline(&markdown_to_adf(whole))["attrs"]["parameters"],
        json!({"macroParams": {"": {"value": "top"}}})
    );
}

#[test]
fn a_label_that_would_not_give_its_macro_back_leaves_it_in_the_marker() {
    let long = "a long anchor name ".repeat(4);
    let macros = [
        // Shortened in the label (60 characters at most).
        format!("<ac:structured-macro ac:name=\"anchor\"><ac:parameter ac:name=\"\">{}</ac:parameter></ac:structured-macro>", long.trim_end()),
        // Re-spaced in the label.
        "<ac:structured-macro ac:name=\"anchor\"><ac:parameter ac:name=\"\"> two  spaces</ac:parameter></ac:structured-macro>".into(),
        // A name holding `: `, which the label would split there.
        "<ac:structured-macro ac:name=\"a: b\"><ac:parameter ac:name=\"\">c</ac:parameter></ac:structured-macro>".into(),
        // A main parameter under a name the reader would not give it (it would be the unnamed one).
        "<ac:structured-macro ac:name=\"widget\"><ac:parameter ac:name=\"title\">Board</ac:parameter></ac:structured-macro>".into(),
    ];
    for m in macros {
        let xml = format!("<p>{m}</p>");
        let md = to_markdown(&xml);
        assert!(md.contains("\"extensionKey\":"), "{md}");
        assert!(!md.contains("\"extensionType\":"), "{md}");
        assert_eq!(from_markdown(&md), xml, "{md}");
    }
    // An extension of another type than Confluence's macros says its type; its name is its label's
    // when its parameters are a macro's. A Forge app's (no `macroParams`) keeps its name.
    for (parameters, md) in [
        (
            json!({"macroParams": {"x": {"value": "1"}}}),
            "[board](adf:inlineExtension '{\"extensionType\":\"com.atlassian.ecosystem\",\"parameters\":{\"macroParams\":{\"x\":{\"value\":\"1\"}}}}')\n",
        ),
        (
            json!({"localId": "x"}),
            "[board](adf:inlineExtension '{\"extensionKey\":\"board\",\"extensionType\":\"com.atlassian.ecosystem\",\"parameters\":{\"localId\":\"x\"}}')\n",
        ),
    ] {
        let node = json!({"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
            {"type": "inlineExtension", "attrs": {"extensionKey": "board",
             "extensionType": "com.atlassian.ecosystem", "parameters": parameters}}]}]});
        let doc: Node = adf::from_value(node.clone()).unwrap();
        let written = mcp_text::markdown::write(&doc, &Default::default());
        assert_eq!(written, md);
        assert_eq!(markdown_to_adf(&written), node);
    }
}
