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
