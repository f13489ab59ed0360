//! Storage format read as it comes (`storage::read_streaming`, what `convert` and the
//! CLI read it with): the root blocks handed on while the rest is read are the document's, judged against
//! pieces read on their own (too short to hand anything on) and against the round trip of consecutive
//! layouts, the one place where a block reads the block before it.

use mcp_text::{convert, markdown, storage, Format, Node, Options};

use crate::storage_read::{assert_roundtrip, PAGE};

#[test]
fn a_large_page_read_as_it_comes_is_its_pieces_read_alone() {
    let pieces: Vec<String> = (0..400)
        .map(|i| match i % 4 {
            0 => format!("<p>Section {i}: <strong>service {i}</strong> &amp; more</p>"),
            1 => format!("<ul><li><p>item {i}</p></li><li><p>next</p></li></ul>"),
            2 => {
                "<table><tbody><tr><th><p>a</p></th></tr><tr><td><p>1</p></td></tr></tbody></table>"
                    .to_string()
            }
            _ => format!("<h2>Heading {i}</h2>{PAGE}"),
        })
        .collect();
    let mut blocks: Vec<Node> = Vec::new();
    for piece in &pieces {
        blocks.extend(
            storage::read(piece)
                .unwrap()
                .doc
                .content
                .take()
                .unwrap_or_default(),
        );
    }
    let whole = pieces.concat();
    let mut handed = 0;
    let read = storage::read_streaming(&whole, &mut |b| handed += b.len()).unwrap();
    assert!(
        handed > blocks.len() / 2,
        "{handed} of {} blocks handed on",
        blocks.len()
    );
    assert_eq!(
        storage::read(&whole).unwrap().doc,
        Node::doc(blocks.clone())
    );
    for plain in [false, true] {
        let expected = markdown::write(
            &Node::doc(blocks.clone()),
            &markdown::WriteOptions {
                mentions: None,
                plain,
            },
        );
        let options = Options {
            plain,
            ..Options::default()
        };
        let converted = convert(
            whole.as_bytes(),
            Format::Storage,
            Format::Markdown,
            &options,
        )
        .unwrap();
        assert!(
            converted.text == expected,
            "streamed Markdown differs (plain: {plain})"
        );
    }
    drop(read);
}

#[test]
fn consecutive_layouts_across_a_hand_over_stay_apart() {
    let layout = r#"<ac:layout><ac:layout-section ac:type="single"><ac:layout-cell><p>in a layout</p></ac:layout-cell></ac:layout-section></ac:layout>"#;
    let mut xml = String::new();
    for i in 0..500 {
        xml.push_str(&format!("<p>block {i}</p>"));
        for _ in 0..i % 3 {
            xml.push_str(layout);
        }
    }
    assert_roundtrip(&xml);
    // Layouts only: every hand-over falls between two of them.
    assert_roundtrip(&layout.repeat(300));
}

#[test]
fn an_error_after_blocks_were_handed_on_is_the_documents_error() {
    let mut xml = "<p>fine</p>".repeat(1000);
    xml.push_str("<p>broken</div>");
    let whole = storage::read(&xml).unwrap_err();
    let converted = convert(
        xml.as_bytes(),
        Format::Storage,
        Format::Markdown,
        &Options::default(),
    );
    assert_eq!(converted.unwrap_err(), whole);
}
