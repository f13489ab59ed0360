//! Markdown read a window at a time (`markdown::read_streaming`) is Markdown read in one parse: the
//! CommonMark and GFM examples, one by one (with each of the three line endings) and all in one document,
//! cut into windows of a few bytes
//! (every window boundary the reader can meet), link reference definitions made in another window than
//! the links that use them, and ADF written while the text is read (`convert_to`), byte for byte
//! what `convert` writes.

use mcp_text::{convert, convert_to, markdown, Format, Node, Options, Warning};

use crate::streaming::whole;
use serde_json::json;

use crate::commonmark_adf::all_examples;

/// The document and warnings of `md` read in windows of `window` bytes, the blocks handed over put back.
fn read_in(md: &str, window: usize) -> (Node, Vec<Warning>, usize) {
    let mut handed = Vec::new();
    let mut runs = 0;
    let mut read = markdown::read_streaming(md, window, &mut |doc, blocks| {
        assert!(doc.content.as_ref().is_none_or(Vec::is_empty));
        runs += 1;
        handed.extend(blocks);
    });
    handed.extend(read.doc.content.take().unwrap_or_default());
    read.doc.content = Some(handed);
    (read.doc, read.warnings, runs)
}

fn assert_same_in_windows(md: &str, windows: &[usize], what: &str) {
    let (doc, warnings, _) = read_in(md, usize::MAX);
    assert_eq!(
        doc,
        markdown::read(md).doc,
        "{what}: read is one parse here"
    );
    for &window in windows {
        let (d, w, _) = read_in(md, window);
        assert_eq!(d, doc, "{what} in windows of {window} bytes:\n{md}");
        assert_eq!(w, warnings, "{what} in windows of {window} bytes: warnings");
    }
}

fn corpora() -> Option<Vec<String>> {
    Some(all_examples()?.into_iter().map(|e| e.markdown).collect())
}

#[test]
fn every_corpus_example_reads_the_same_in_windows_of_any_size() {
    let Some(examples) = corpora() else { return };
    for (i, md) in examples.iter().enumerate() {
        // CommonMark's three line endings: `\n`, `\r\n` and a lone `\r`.
        for (ending, md) in [
            ("LF", md.clone()),
            ("CRLF", md.replace('\n', "\r\n")),
            ("CR", md.replace('\n', "\r")),
        ] {
            assert_same_in_windows(
                &md,
                &[1, 2, 3, 5, 8, 13, 32],
                &format!("example {} ({ending})", i + 1),
            );
        }
    }
}

#[test]
fn all_corpus_examples_in_one_document_read_the_same_in_windows() {
    let Some(examples) = corpora() else { return };
    // Each example after a blank line, so that most of them stand as top-level blocks of their own
    // (an open fence or HTML block of one runs on into the next, as it would in any document).
    let md = examples.join("\n\n");
    assert_same_in_windows(
        &md,
        &[16, 100, 1000, 10_000],
        "the examples in one document",
    );
}

#[test]
fn a_definition_in_another_window_serves_the_links_before_and_after_it() {
    let filler = "A paragraph of filler text that fills a window.\n\n".repeat(20);
    let cases = [
        (
            format!(
                "[early] and [Late Label] and [dup] and [esc] and [multi line]\n\n{filler}\
                 [late label]: /late \"A \\\"quoted\\\" title\n   on two lines\"\n\n{filler}\
                 [dup]: /first\n\n{filler}[DUP]: /second\n\n> [esc\\]]: </with space> 'x & y'\n\n\
                 [early]: /early\n[multi\n line]: https://x.org/m?a=1&b=<2>\n\n{filler}[late label] [esc\\]]\n"
            ),
            &["/early", "/late", "/first", "https://x.org/m?a=1&b=<2>"][..],
        ),
        // Definitions whose lines start with the marks of their containers, and none other.
        (
            format!("[li] [ol] [q]\n\n{filler}- [li]: /in-list\n\n{filler}3) [ol]: /ordered\n\n{filler}> * [q]: /quoted\n"),
            &["/in-list", "/ordered", "/quoted"][..],
        ),
    ];
    for (md, hrefs) in cases {
        assert_same_in_windows(&md, &[1, 64, 400, 1000], "definitions");
        let adf = convert(
            md.as_bytes(),
            Format::Markdown,
            Format::Adf,
            &Options::default(),
        )
        .unwrap();
        for href in hrefs {
            assert!(
                adf.text.contains(&format!("\"href\":{}", json!(href))),
                "{href} in {}",
                adf.text
            );
        }
        assert!(
            !adf.text.contains("/second"),
            "the first definition of a label wins"
        );
    }
}

#[test]
fn a_large_document_written_while_it_is_read_is_what_convert_writes() {
    let block = "## Heading *em* and **strong** [ref]\n\nSome text with `code`, [a link](https://x.org) and 2 * 3.\n\n- item one\n- [ ] task\n  - nested\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n> [!NOTE]\n> A panel.\n\n```rust\nfn x() {}\n```\n\n---\n\n";
    let body = block.repeat(2 * markdown::KEPT);
    for md in [
        body.clone(),
        // The document's own marker, and a definition after every link that uses it.
        format!("<!--adf:doc {{\"extra\":{{\"version\":2}}}}-->\n\n{body}[ref]: https://x.org/ref\n"),
        // A marker pair open across many blocks: nothing is handed over before it closes.
        format!(
            "<!--adf:layoutSection-->\n\n<!--adf:layoutColumn {{\"width\":100}}-->\n\n{body}<!--/adf:layoutColumn-->\n\n<!--/adf:layoutSection-->\n\n{body}"
        ),
    ] {
        let (_, _, runs) = read_in(&md, markdown::WINDOW);
        assert!(runs > 0, "blocks were handed over before the end");
        for pretty in [false, true] {
            let options = Options { pretty, ..Options::default() };
            let whole = whole(md.as_bytes(), Format::Markdown, Format::Adf, &options);
            let (bytes, warnings) =
                convert_to(md.as_bytes(), Format::Markdown, Format::Adf, &options, Vec::new()).unwrap();
            assert!(
                String::from_utf8(bytes).unwrap() == whole.text,
                "streamed ADF differs from convert's (pretty: {pretty})"
            );
            assert_eq!(warnings, whole.warnings);
        }
    }
}

#[test]
fn a_large_document_with_a_layout_comes_back_whole_through_the_stream() {
    let p = |t: String| json!({"type": "paragraph", "content": [{"type": "text", "text": t}]});
    let many: Vec<_> = (0..3 * markdown::KEPT)
        .map(|i| p(format!("block {i}")))
        .collect();
    let column =
        |content| json!({"type": "layoutColumn", "attrs": {"width": 50}, "content": content});
    let mut content = vec![json!({"type": "layoutSection", "content": [
        column(json!(many)), column(json!([p("b".into())]))]})];
    content.extend(many.iter().cloned());
    let doc = json!({"type": "doc", "version": 2, "content": content});
    let md = convert(
        doc.to_string().as_bytes(),
        Format::Adf,
        Format::Markdown,
        &Options::default(),
    )
    .unwrap()
    .text;
    let (_, _, runs) = read_in(&md, markdown::WINDOW);
    assert!(runs > 0, "blocks were handed over before the end");
    let (bytes, warnings) = convert_to(
        md.as_bytes(),
        Format::Markdown,
        Format::Adf,
        &Options::default(),
        Vec::new(),
    )
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(serde_json::from_slice::<serde_json::Value>(&bytes).unwrap() == doc);
}

#[test]
fn a_small_document_written_while_it_is_read_is_what_convert_writes() {
    for md in [
        "",
        "x",
        "<!--adf:doc {\"extra\":{\"version\":2}}-->\n\n# T\n",
        "- a\n- b\n",
    ] {
        for pretty in [false, true] {
            let options = Options {
                pretty,
                ..Options::default()
            };
            let whole = whole(md.as_bytes(), Format::Markdown, Format::Adf, &options);
            let (bytes, _) = convert_to(
                md.as_bytes(),
                Format::Markdown,
                Format::Adf,
                &options,
                Vec::new(),
            )
            .unwrap();
            assert_eq!(String::from_utf8(bytes).unwrap(), whole.text, "{md:?}");
        }
    }
}

#[test]
fn a_paragraph_that_begins_with_a_definition_reads_the_same_in_windows() {
    // Its first event is on the line after the definition: a window started there read `0. b` as a list,
    // where the paragraph the definition begins continues (found by the `text_markdown` fuzz target).
    for md in [
        "a\n\n[x]: y\n0. b\n2. c\n\nd\n",
        "a\n\n [x]:done\n  0. nested\n  2.item\n- [ ] task\n",
        "a\n\n[x]: y\n[z]: w\n0. b\n\n[x] [z]\n",
        // A list's range runs on over the definition after it.
        "# Title\n\n- task\n\n[x]:done\n0. nested\n2.eliem\n",
        "# Title\n\n- [ ] task\n\n [x]:done\n  0. nested\n  2.eliem {\"localId\":\"5\"}-->\n- [ ] Tell\n",
        // A definition that ends a list item's content, and one in a block quote.
        "- task\n\n  [x]: y\n\npara [x]\n\n> [z]: w\n> [v]: u\n0. b [z] [v]\n",
    ] {
        assert_same_in_windows(md, &(1..=24).collect::<Vec<_>>(), md);
    }
}
