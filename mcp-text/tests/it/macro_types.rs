//! Every macro of a Confluence page has Confluence's own macros' type (`extensionType`
//! `com.atlassian.confluence.macro.core`): the reader gives it to every extension it builds from a marker,
//! so a block macro's marker says its name and parameters only. Whichever form carries the marker (a leaf,
//! a pair around a body, a marker over a fence, a link), an extension of another type, or of none, keeps
//! what it has.

use serde_json::json;

use crate::markdown_roundtrip::{node, round_trip};
use crate::storage_markdown::{from_markdown, to_markdown};

const CORE: &str = "com.atlassian.confluence.macro.core";

#[test]
fn a_block_macros_marker_does_not_say_confluences_macro_type() {
    let xml = concat!(
        "<ac:structured-macro ac:name=\"toc\" ac:schema-version=\"1\" ac:macro-id=\"t-1\">",
        "<ac:parameter ac:name=\"maxLevel\">3</ac:parameter></ac:structured-macro>",
        "<ac:structured-macro ac:name=\"excerpt\" ac:schema-version=\"1\">",
        "<ac:rich-text-body><p>Body <strong>x</strong></p></ac:rich-text-body></ac:structured-macro>",
        "<ac:structured-macro ac:name=\"widget\" ac:schema-version=\"1\">",
        "<ac:plain-text-body><![CDATA[a < b]]></ac:plain-text-body></ac:structured-macro>",
    );
    let md = to_markdown(xml);
    assert_eq!(
        md,
        concat!(
            "<!--adf:extension {\"extensionKey\":\"toc\",\"parameters\":{\"macroMetadata\":{\"macroId\":",
            "{\"value\":\"t-1\"}},\"macroParams\":{\"maxLevel\":{\"value\":\"3\"}}}} /-->\n\n",
            "<!--adf:bodiedExtension {\"extensionKey\":\"excerpt\",\"parameters\":{\"macroParams\":{}}} 1-->\n\n",
            "Body **x**\n\n<!--/adf:bodiedExtension 1-->\n\n",
            "<!--adf:extension {\"extensionKey\":\"widget\",\"parameters\":{\"macroParams\":{}}}-->\n",
            "```widget\na < b\n```\n"
        )
    );
    assert_eq!(from_markdown(&md), xml);
}

#[test]
fn extensions_of_another_type_or_of_none_keep_it_in_every_form() {
    let other = "com.atlassian.ecosystem";
    let para = |t: &str| json!([{"type": "paragraph", "content": [{"type": "text", "text": t}]}]);
    let mut blocks = Vec::new();
    for ty in [Some(CORE), Some(other), Some(""), None] {
        let mut attrs = json!({"extensionKey": "k", "parameters": {"macroParams": {}}});
        if let Some(ty) = ty {
            attrs["extensionType"] = ty.into();
        }
        blocks.push(json!({"type": "extension", "attrs": attrs}));
        blocks.push(json!({"type": "bodiedExtension", "attrs": attrs, "content": para("body")}));
        let mut plain = attrs.clone();
        plain["storage"] = json!({"plain": "a < b"});
        blocks.push(json!({"type": "extension", "attrs": plain}));
        blocks.push(json!({"type": "paragraph", "content": [
            {"type": "text", "text": "see "},
            {"type": "inlineExtension", "attrs": attrs},
        ]}));
        // Off the schema: a block extension inside text.
        blocks.push(json!({"type": "paragraph", "content": [
            {"type": "text", "text": "in "},
            {"type": "extension", "attrs": attrs},
        ]}));
    }
    // Off the schema: an extension with no attrs at all, or only its type.
    blocks.push(json!({"type": "extension"}));
    blocks.push(json!({"type": "bodiedExtension", "content": para("x")}));
    blocks.push(json!({"type": "extension", "attrs": {"extensionType": CORE}}));
    blocks.push(
        json!({"type": "bodiedExtension", "attrs": {"extensionType": CORE}, "content": para("y")}),
    );
    let md = round_trip(&node(
        json!({"type": "doc", "version": 1, "content": blocks}),
    ));
    // Said where it is not Confluence's type, and only there.
    assert_eq!(md.matches(other).count(), 5, "{md}");
    assert_eq!(md.matches(CORE).count(), 0, "{md}");
    assert_eq!(
        md.matches("\"-attrs\":[\"extensionType\"]").count(),
        5,
        "{md}"
    );
    assert_eq!(md.matches("\"attrs\":null").count(), 2, "{md}");
}

#[test]
fn a_block_macro_a_model_writes_is_confluences_macro() {
    let md = concat!(
        "<!--adf:extension {\"extensionKey\":\"toc\"} /-->\n\n",
        "<!--adf:bodiedExtension {\"extensionKey\":\"excerpt\"}-->\n\nIntro.\n\n<!--/adf:bodiedExtension-->\n",
    );
    let back = mcp_text::markdown::read(md);
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    let doc: serde_json::Value = serde_json::from_str(&mcp_text::adf::write(&back.doc)).unwrap();
    assert_eq!(
        doc["content"][0],
        json!({"type": "extension", "attrs": {"extensionKey": "toc", "extensionType": CORE}})
    );
    assert_eq!(doc["content"][1]["attrs"]["extensionType"], CORE);
    assert_eq!(
        from_markdown(md),
        concat!(
            "<ac:structured-macro ac:name=\"toc\" ac:schema-version=\"1\" />",
            "<ac:structured-macro ac:name=\"excerpt\" ac:schema-version=\"1\">",
            "<ac:rich-text-body><p>Intro.</p></ac:rich-text-body></ac:structured-macro>"
        )
    );
}
