//! Storage links (`ac:link`, `<a>`): what a link keeps under `storage` and what its href already says
//! (moved from the unit tests of `src/storage/links.rs`).

use mcp_text::model::{Attrs, MarkType};
use mcp_text::storage::{self, STORAGE};
use serde_json::Value;

fn round_trip(xml: &str) -> mcp_text::model::Node {
    let doc = storage::read(xml).expect("reads").doc;
    assert_eq!(storage::write(&doc), xml);
    doc
}

fn link_storage(doc: &mcp_text::model::Node) -> Vec<Option<Value>> {
    let mut found = Vec::new();
    for p in doc.children() {
        for n in p.children() {
            for m in n.mark_list() {
                if m.kind == MarkType::Link {
                    found.push(m.attrs.as_ref().and_then(|a| a.get(STORAGE)).cloned());
                }
            }
        }
    }
    found
}

#[test]
fn links_keep_only_what_the_href_does_not_say() {
    for xml in [
        r#"<p><ac:link><ri:page ri:content-title="Checkout architecture" ri:space-key="ENG" /></ac:link></p>"#,
        r#"<p><ac:link><ri:page ri:content-title="Runbook" /><ac:plain-text-link-body><![CDATA[the runbook]]></ac:plain-text-link-body></ac:link></p>"#,
        r#"<p><ac:link ac:anchor="sec 1"><ri:page ri:content-title="A" ri:space-key="ENG" /></ac:link></p>"#,
        r#"<p><ac:link><ri:attachment ri:filename="report.pdf" /></ac:link></p>"#,
        r#"<p><ac:link><ri:blog-post ri:content-title="News" /><ac:link-body><strong>news</strong></ac:link-body></ac:link></p>"#,
        r#"<p><ac:link><ri:user ri:account-id="u1" /><ac:plain-text-link-body><![CDATA[Ada]]></ac:plain-text-link-body></ac:link></p>"#,
    ] {
        let doc = round_trip(xml);
        assert_eq!(
            link_storage(&doc),
            vec![None; link_storage(&doc).len()],
            "{xml}"
        );
    }
}

#[test]
fn links_the_href_cannot_say_keep_their_storage() {
    for xml in [
        // A title with `:` and no space key, a title with `#`: the href is ambiguous.
        r#"<p><ac:link><ri:page ri:content-title="Q3: plans" /></ac:link></p>"#,
        r#"<p><ac:link><ri:page ri:content-title="C# guide" ri:space-key="ENG" /></ac:link></p>"#,
        // A rich body that reads as plain text, a plain body equal to the title.
        r#"<p><ac:link><ri:page ri:content-title="A" /><ac:link-body>b</ac:link-body></ac:link></p>"#,
        r#"<p><ac:link><ri:page ri:content-title="A" /><ac:plain-text-link-body><![CDATA[A]]></ac:plain-text-link-body></ac:link></p>"#,
        // Other attributes, an attachment on another page, an anchor alone, a URL.
        r#"<p><ac:link ac:card-appearance="inline"><ri:page ri:content-title="A" ri:space-key="ENG" /></ac:link></p>"#,
        r#"<p><ac:link><ri:attachment ri:filename="a.png"><ri:page ri:content-title="B" /></ri:attachment></ac:link></p>"#,
        r#"<p><ac:link ac:anchor="top"><ac:plain-text-link-body><![CDATA[up]]></ac:plain-text-link-body></ac:link></p>"#,
        r#"<p><ac:link><ri:url ri:value="https://example.com" /></ac:link></p>"#,
        r#"<p><ac:link><ri:user ri:userkey="k1" /><ac:plain-text-link-body><![CDATA[Ada]]></ac:plain-text-link-body></ac:link></p>"#,
        // An `<a>` whose href alone would make an `ac:link`.
        r#"<p><a href="page:ENG:A">A</a></p>"#,
        // Two links side by side to one page: they stay two.
        r#"<p><ac:link><ri:page ri:content-title="A" /></ac:link><ac:link><ri:page ri:content-title="A" /><ac:plain-text-link-body><![CDATA[b]]></ac:plain-text-link-body></ac:link></p>"#,
    ] {
        round_trip(xml);
    }
}

#[test]
fn an_href_names_its_link() {
    use mcp_text::model::{Mark, Node, NodeType};
    let link = |href: &str, text: &str| {
        let mut mark = Mark::new(MarkType::Link);
        let mut attrs = Attrs::new();
        attrs.insert("href", href.into());
        mark.attrs = Some(attrs);
        let mut t = Node::text(text);
        t.marks = Some(vec![mark]);
        Node::doc(vec![Node::with_content(NodeType::Paragraph, vec![t])])
    };
    assert_eq!(
        storage::write(&link("page:ENG:Runbook", "Runbook")),
        r#"<p><ac:link><ri:page ri:content-title="Runbook" ri:space-key="ENG" /></ac:link></p>"#
    );
    assert_eq!(
        storage::write(&link("attachment:a.pdf#p2", "the file")),
        r#"<p><ac:link ac:anchor="p2"><ri:attachment ri:filename="a.pdf" /><ac:plain-text-link-body><![CDATA[the file]]></ac:plain-text-link-body></ac:link></p>"#
    );
    assert_eq!(
        storage::write(&link("https://example.com", "x")),
        r#"<p><a href="https://example.com">x</a></p>"#
    );
}

#[test]
fn a_page_links_space_key_before_its_title_comes_back_in_that_order() {
    // Confluence Cloud writes a page's space key before its title, Data Center after it; both come back
    // as they were, the order the writer would not give said by the fewest names that give it.
    let xml = concat!(
        r#"<p><ac:link><ri:page ri:space-key="ENG" ri:content-title="Runbook" ri:version-at-save="3" /></ac:link>"#,
        r#"<ac:link><ri:page ri:content-title="Runbook" ri:space-key="ENG" /></ac:link>"#,
        r#"<ac:link><ri:page ri:version-at-save="1" ri:space-key="ENG" ri:content-title="Runbook" /></ac:link></p>"#,
    );
    let doc = round_trip(xml);
    let order = |v: &Option<Value>| v.as_ref().and_then(|s| s.get("order")).cloned();
    let found = link_storage(&doc);
    assert_eq!(order(&found[0]), Some(serde_json::json!(["ri:space-key"])));
    assert_eq!(order(&found[1]), None);
    assert_eq!(
        order(&found[2]),
        Some(serde_json::json!(["ri:version-at-save", "ri:space-key"]))
    );
    // Retargeted by a model, the link keeps the order its target's attributes had.
    let md = crate::storage_markdown::to_markdown(xml).replacen("Runbook", "Rota", 2);
    assert!(
        crate::storage_markdown::from_markdown(&md).starts_with(
            r#"<p><ac:link><ri:page ri:space-key="ENG" ri:content-title="Rota" ri:version-at-save="3" /></ac:link>"#
        ),
        "{md}"
    );
}

#[test]
fn a_link_whose_page_follows_its_body_reads_as_the_page_and_comes_back_the_same() {
    // The link's target was kept as raw XML, `[the page](<> '{"storage":{"extra":["<ri:page …"]…}}')`: a
    // model read a link to nothing.
    let xml = concat!(
        r#"<p>See <ac:link><ac:plain-text-link-body><![CDATA[the page]]></ac:plain-text-link-body>"#,
        r#"<ri:page ri:content-title="Other" ri:space-key="ENG" /></ac:link> and "#,
        r#"<ac:link><ac:link-body>bold <strong>b</strong></ac:link-body><ri:attachment ri:filename="a.pdf" /></ac:link>.</p>"#,
    );
    round_trip(xml);
    let md = crate::storage_markdown::to_markdown(xml);
    assert_eq!(
        md,
        concat!(
            "See [the page](page:ENG:Other '{\"storage\":{\"riLast\":true}}') and ",
            "[bold **b**](attachment:a.pdf '{\"storage\":{\"body\":\"rich\",\"riLast\":true}}').\n"
        )
    );
    assert_eq!(crate::storage_markdown::from_markdown(&md), xml);
    // A model's new target for it is written where the old one stood.
    let edited = md.replace("page:ENG:Other", "page:ENG:Third");
    assert_eq!(
        crate::storage_markdown::from_markdown(&edited),
        xml.replace("\"Other\"", "\"Third\"")
    );
}
