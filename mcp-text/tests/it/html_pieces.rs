//! HTML parsed a piece at a time and let go of as it is read (`html::read_streaming`, what `convert` and
//! the CLI do): the same blocks and warnings as the whole tree built first, then read, however the page is
//! cut, whether the part read is the document, its `main` or its `article`s. On the HTML of the CommonMark and GFM examples,
//! on their Markdown read as HTML, on the reader's test page, and on random pages made of what cutting
//! could break: marks and blocks left open across pieces, text a piece boundary splits (and that the
//! tree joins), entities, CR LF, `<pre>`'s first newline, comments, scripts, implied and stray end tags,
//! nesting past the cap, `main` and `article` elements and their names in comments.

use mcp_text::html::read_in_pieces;
use mcp_text::{Node, Warning};

use crate::commonmark_adf::all_examples;
use crate::gen::Rng;
use crate::html_reader::PAGE;

/// The root blocks handed on, then the rest, and the warnings.
fn read(html: &str, piece: usize) -> (Vec<Node>, Vec<Warning>) {
    let mut blocks = Vec::new();
    let read = read_in_pieces(html, piece, &mut |run| blocks.extend(run));
    let mut doc = read.doc;
    blocks.extend(doc.content.take().unwrap_or_default());
    (blocks, read.warnings)
}

/// Every piece size against the whole tree.
fn assert_pieces(html: &str, pieces: &[usize]) {
    let whole = read(html, 0);
    for &piece in pieces {
        assert!(
            read(html, piece) == whole,
            "read in pieces of {piece} bytes, this page differs from its whole tree's reading:\n{html}"
        );
    }
}

#[test]
fn the_commonmark_and_gfm_examples_read_in_pieces_are_their_whole_trees_reading() {
    let Some(examples) = all_examples() else {
        return;
    };
    assert!(examples.len() > 1000, "{} examples", examples.len());
    for example in &examples {
        for page in [&example.html, &example.markdown] {
            assert_pieces(page, &[1, 2, 3, 7, 64]);
        }
    }
}

#[test]
fn the_test_page_read_in_pieces_is_its_whole_trees_reading() {
    // Its `main` is read; without it, its `article`; without either, all of it.
    let no_main = PAGE.replace("<main>", "<div>").replace("</main>", "</div>");
    let neither = no_main.replace("article", "div");
    assert!(!neither.contains("<main") && !neither.contains("<article"));
    for page in [PAGE.to_string(), no_main, neither] {
        assert_pieces(&page, &(1..=40).chain([97, 512, 4096]).collect::<Vec<_>>());
    }
}

#[test]
fn random_pages_read_in_pieces_are_their_whole_trees_reading() {
    for seed in 0..600 {
        // Half of them with `main` and `article` elements (and names of them in comments).
        let page = random_page(&mut Rng::new(seed), seed >= 300);
        assert_pieces(&page, &[1, 2, 3, 5, 16, 100, 1000]);
    }
}

#[test]
fn a_page_nested_past_the_cap_read_in_pieces_warns_as_its_whole_tree() {
    let deep = 700;
    let page = format!(
        "<p>before</p>{}x{}<p>after</p>",
        "<div><b>a</b>".repeat(deep),
        "</div>".repeat(deep)
    );
    let (_, warnings) = read(&page, 7);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_pieces(&page, &[1, 7, 4096]);
}

#[test]
fn a_pages_main_or_articles_read_in_pieces_are_their_whole_trees_reading() {
    let chrome = "<header><p>banner</p></header><div><p>before</p></div>";
    for page in [
        // The first `main`, wherever it is, and nothing after it.
        format!("{chrome}<MAIN><p>one</p><div><b>two</b></div></MAIN><p>after</p><main><p>2nd</p></main>"),
        format!("{chrome}<div id=page><main class=language-rust><pre>x</pre><p>a<p>b</main></div><p>c"),
        // Each outermost `article`, the nested ones inside theirs.
        format!("{chrome}<article><p>a</p><article><p>in</p></article></article><p>x</p><article>b</article>"),
        // A `main` wins over articles before it.
        format!("{chrome}<article><p>a</p></article><main><p>m</p></main>"),
        // Names in a comment or a script: no such element, so all of the page.
        format!("{chrome}<!-- <main> --><p>content</p>"),
        format!("{chrome}<script>'<article>'</script><p>content</p>"),
        format!("{chrome}<!-- <main> --><article><p>a</p></article><p>x</p>"),
        // A `main` that never closes.
        format!("{chrome}<main><p>open to the end"),
    ] {
        assert_pieces(&page, &[1, 2, 3, 7, 64]);
    }
    let (blocks, _) = read("<p>chrome</p><MAIN><p>content</p></MAIN><p>more</p>", 1);
    assert_eq!(blocks.len(), 1);
}

/// A page of random elements, text and markup, opened and closed at random (not always matched), with
/// `main` and `article` elements when `with_parts` is set.
fn random_page(rng: &mut Rng, with_parts: bool) -> String {
    const PARTS: &[&str] = &[
        "<main>",
        "</main>",
        "<article>",
        "</article>",
        "<ARTICLE class=\"lang-go\">",
        "<!-- <main> -->",
    ];
    const OPEN: &[&str] = &[
        "<div>",
        "<div class=\"highlight-source-rust\">",
        "<section>",
        "<p>",
        "<span>",
        "<b>",
        "<strong>",
        "<em>",
        "<i>",
        "<code>",
        "<a href=\"/x?a=1&amp;b=2\" title=\"t\">",
        "<a>",
        "<ul>",
        "<ol start=\"3\">",
        "<li>",
        "<table>",
        "<tr>",
        "<td>",
        "<th colspan=2>",
        "<pre>",
        "<pre class=\"language-py\">",
        "<blockquote>",
        "<details>",
        "<summary>",
        "<h2>",
        "<dl>",
        "<dt>",
        "<dd>",
        "<sub>",
        "<sup>",
        "<u>",
        "<s>",
        "<font>",
        "<x-custom>",
        "<header>",
        "<footer>",
        "<nav>",
        "<div hidden>",
    ];
    const CLOSE: &[&str] = &[
        "</div>",
        "</section>",
        "</p>",
        "</span>",
        "</b>",
        "</strong>",
        "</em>",
        "</code>",
        "</a>",
        "</ul>",
        "</ol>",
        "</li>",
        "</table>",
        "</td>",
        "</tr>",
        "</pre>",
        "</blockquote>",
        "</details>",
        "</h2>",
        "</dl>",
        "</x-custom>",
        "</nav>",
        "</body>",
    ];
    const LEAF: &[&str] = &[
        "word",
        "two  words ",
        " ",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "&amp;",
        "&lt;tag&gt;",
        "&#x41;&#66;",
        "&nbsp;",
        "&notit;",
        "é",
        "日本語",
        "🦀",
        "a < b",
        "<br>",
        "</br>",
        "<hr>",
        "<img src=\"i.png\" alt=\"pic\">",
        "<input type=checkbox checked>",
        "<input type=text>",
        "<!-- a comment -->",
        "<script>if (a < b) { x('</p>') }</script>",
        "<style>p > a { }</style>",
        "<textarea><b>not bold</b></textarea>",
        "<!DOCTYPE html>",
        "<html>",
        "<body>",
        "</html>",
        "<svg><rect/></svg>",
        "<![CDATA[x]]>",
    ];
    let mut page = String::new();
    let parts = rng.range(20, 400);
    for _ in 0..parts {
        let list = match rng.below(if with_parts { 11 } else { 10 }) {
            0..=3 => OPEN,
            4..=5 => CLOSE,
            10 => PARTS,
            _ => LEAF,
        };
        page.push_str(rng.one(list));
    }
    page
}
