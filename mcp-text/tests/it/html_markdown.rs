//! HTML → Markdown: what a model reads of a real-shaped web page (needs the Markdown writer).

use mcp_text::{convert, Format, Options};

use super::html_reader::PAGE;

fn markdown(html: &str) -> String {
    convert(
        html.as_bytes(),
        Format::Html,
        Format::Markdown,
        &Options::default(),
    )
    .unwrap()
    .text
}

#[test]
fn web_page_to_markdown_keeps_the_article() {
    let md = markdown(PAGE);
    for part in [
        "# Release notes\n",
        "Version **2.0** ships a *new* parser, see [the guide](../guide/parser.html \"Parser guide\") and `Parser::new`.",
        "~~slower~~ faster.",
        "## Install\n",
        "```shell\ncargo add acme\n```",
        "```rust\nfn main() {\n    let x = 1 < 2;\n}\n```",
        "| Area | Change |",
        "| Parser | 2x **faster** |",
        "| CLI | new `--pretty` flag |",
        "3. Third\n",
        "4. Fourth\n",
        "   - nested",
        "img/shot.png",
        "Screenshot",
        "<details><summary>Migration notes</summary>",
        "Rename `old` to `new`.",
        "> Fast enough.",
        "H<sub>2</sub>O, x<sup>2</sup>, <u>underlined</u>, ~~gone~~.",
        "Custom element text",
    ] {
        assert!(md.contains(part), "missing {part:?} in\n{md}");
    }
}

#[test]
fn web_page_to_markdown_drops_the_chrome() {
    let md = markdown(PAGE);
    for chrome in [
        "Docs",
        "Blog",
        "On this page",
        "Copyright",
        "tracking",
        "dataLayer",
        "Hidden text",
        "Search",
        "<!--",
    ] {
        assert!(!md.contains(chrome), "{chrome:?} leaked into\n{md}");
    }
}

#[test]
fn markdown_specials_in_page_text_stay_text() {
    let md = markdown("<p>Match *.py files, 2 * 3 * 4, a_b_c and a | b</p><table><tr><th>x</th></tr><tr><td>a | b</td></tr></table>");
    assert!(
        md.contains("Match \\*.py files, 2 * 3 * 4, a_b_c and a | b"),
        "{md}"
    );
    assert!(md.contains("a \\| b"), "{md}");
}

#[test]
fn deep_page_to_markdown_does_not_overflow() {
    let html = "<blockquote>".repeat(100_000) + "deep";
    assert!(markdown(&html).contains("deep"));
}
