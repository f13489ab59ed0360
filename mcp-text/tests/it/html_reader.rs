//! HTML → model: a real-shaped web page, its chrome dropped, and the limits (deep nesting, a large page,
//! invalid UTF-8).

use mcp_text::{Format, Node, NodeType};

/// A documentation page as sites serve it: a banner with navigation, scripts and styles, an article with
/// a table, code in two languages, an image in a link, a `details`, and a footer.
pub const PAGE: &str = r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Release notes</title>
<link rel="stylesheet" href="/site.css"><style>body { color: red }</style>
<script>window.dataLayer = []; document.write("<p>tracking</p>");</script></head>
<body>
<header class="site-header"><a href="/">Acme</a><nav><ul><li><a href="/docs">Docs</a></li><li><a href="/blog">Blog</a></li></ul></nav></header>
<div class="layout">
<aside class="sidebar"><h3>On this page</h3><ul><li><a href="#install">Install</a></li></ul></aside>
<main>
<article>
  <h1 id="title">Release   notes <a class="anchor" aria-hidden="true" href="#title"><svg><path d="M0"/></svg></a></h1>
  <p>Version <strong>2.0</strong> ships   a <em>new</em> parser, see <a href="../guide/parser.html" title="Parser guide">the guide</a>
     and <code>Parser::new</code>.<br>It is <s>slower</s> faster.</p>
  <h2 id="install">Install</h2>
  <div class="highlight highlight-source-shell"><pre>cargo add acme
</pre></div>
  <pre><code class="language-rust">fn main() {
    let x = 1 &lt; 2;
}
</code></pre>
  <h2>Changes</h2>
  <table>
    <thead><tr><th>Area</th><th>Change</th></tr></thead>
    <tbody>
      <tr><td>Parser</td><td>2x <b>faster</b></td></tr>
      <tr><td>CLI</td><td>new <code>--pretty</code> flag</td></tr>
    </tbody>
  </table>
  <ol start="3"><li>Third<li>Fourth<ul><li>nested</li></ul></ol>
  <p><a href="https://example.com/shot"><img src="img/shot.png" alt="Screenshot"></a></p>
  <details><summary>Migration <em>notes</em></summary><p>Rename <code>old</code> to <code>new</code>.</p></details>
  <blockquote><p>Fast enough.</p></blockquote>
  <hr>
  <p>H<sub>2</sub>O, x<sup>2</sup>, <u>underlined</u>, <del>gone</del>.</p>
  <my-widget>Custom element text</my-widget>
  <div hidden>Hidden text</div><p style="display:none">Invisible</p>
  <form><input name="q"><button>Search</button></form>
  <noscript>Enable JavaScript</noscript><template><p>Template</p></template>
  <!-- a comment -->
</article>
</main>
</div>
<footer><p>Copyright Acme</p></footer>
<script src="/app.js"></script>
</body></html>"##;

/// The model as an outline: one line per node, its attrs and marks, indented by depth.
pub fn outline(node: &Node) -> String {
    let mut out = String::new();
    let mut stack = vec![(node, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        out.push_str(&"  ".repeat(depth));
        out.push_str(node.kind.name());
        if let Some(attrs) = &node.attrs {
            out.push(' ');
            out.push_str(&serde_json::Value::from(attrs.clone()).to_string());
        }
        if let Some(text) = &node.text {
            out.push_str(&format!(" {text:?}"));
        }
        for mark in node.mark_list() {
            out.push_str(&format!(" +{}", mark.kind.name()));
            if let Some(attrs) = &mark.attrs {
                out.push_str(&serde_json::Value::from(attrs.clone()).to_string());
            }
        }
        out.push('\n');
        for child in node.children().iter().rev() {
            stack.push((child, depth + 1));
        }
    }
    out
}

fn read(html: &str) -> Node {
    mcp_text::read(html.as_bytes(), Format::Html)
        .expect("HTML always reads")
        .doc
}

#[test]
fn web_page_reads_the_article_with_its_structure() {
    let outline = outline(&read(PAGE));
    let expected = r#"doc
  heading {"level":1}
    text "Release notes"
  paragraph
    text "Version "
    text "2.0" +strong
    text " ships a "
    text "new" +em
    text " parser, see "
    text "the guide" +link{"href":"../guide/parser.html","title":"Parser guide"}
    text " and "
    text "Parser::new" +code
    text "."
    hardBreak
    text "It is "
    text "slower" +strike
    text " faster."
  heading {"level":2}
    text "Install"
  codeBlock {"language":"shell"}
    text "cargo add acme"
  codeBlock {"language":"rust"}
    text "fn main() {\n    let x = 1 < 2;\n}"
  heading {"level":2}
    text "Changes"
  table
    tableRow
      tableHeader
        paragraph
          text "Area"
      tableHeader
        paragraph
          text "Change"
    tableRow
      tableCell
        paragraph
          text "Parser"
      tableCell
        paragraph
          text "2x "
          text "faster" +strong
    tableRow
      tableCell
        paragraph
          text "CLI"
      tableCell
        paragraph
          text "new "
          text "--pretty" +code
          text " flag"
  orderedList {"order":3}
    listItem
      paragraph
        text "Third"
    listItem
      paragraph
        text "Fourth"
      bulletList
        listItem
          paragraph
            text "nested"
  mediaSingle {"layout":"center"}
    media {"alt":"Screenshot","type":"external","url":"img/shot.png"} +link{"href":"https://example.com/shot"}
  expand {"title":"Migration notes"}
    paragraph
      text "Rename "
      text "old" +code
      text " to "
      text "new" +code
      text "."
  blockquote
    paragraph
      text "Fast enough."
  rule
  paragraph
    text "H"
    text "2" +subsup{"type":"sub"}
    text "O, x"
    text "2" +subsup{"type":"sup"}
    text ", "
    text "underlined" +underline
    text ", "
    text "gone" +strike
    text "."
  paragraph
    text "Custom element text"
"#;
    assert_eq!(outline, expected, "\n{outline}");
}

#[test]
fn page_chrome_scripts_and_hidden_content_are_dropped() {
    let outline = outline(&read(PAGE));
    for chrome in [
        "Acme\"",
        "Docs",
        "Blog",
        "On this page",
        "Copyright",
        "tracking",
        "dataLayer",
        "color: red",
        "Hidden text",
        "Invisible",
        "Search",
        "Enable JavaScript",
        "Template",
        "comment",
        "Release notes\"\n  paragraph\n    text \"Acme",
    ] {
        assert!(
            !outline.contains(chrome),
            "{chrome:?} leaked into\n{outline}"
        );
    }
}

#[test]
fn without_main_or_article_the_whole_body_is_read_but_chrome_is_not() {
    let doc =
        read("<header>Site</header><nav>Menu</nav><div><p>One</p>Two</div><footer>Foot</footer>");
    assert_eq!(
        outline(&doc),
        "doc\n  paragraph\n    text \"One\"\n  paragraph\n    text \"Two\"\n"
    );
}

#[test]
fn chrome_by_its_aria_role_is_dropped_as_chrome_by_name_is() {
    // Wikipedia's navboxes, sites' menus, search boxes, sidebars, banners and footers written as divs.
    let doc = read(
        r#"<main><div role="banner">Site</div><p>Body</p>
        <div role="navigation" class="navbox"><table><tr><td><a href="/a">A</a></td></tr></table></div>
        <div role="Navigation main">Menu</div><div role="search">Find</div><div role="complementary">Aside</div>
        <div role="dialog">Cookies?</div><div role="contentinfo">Foot</div>
        <div role="note">Kept</div><div role="region">Kept too</div></main>"#,
    );
    assert_eq!(
        outline(&doc),
        "doc\n  paragraph\n    text \"Body\"\n  paragraph\n    text \"Kept\"\n  paragraph\n    text \"Kept too\"\n"
    );
}

#[test]
fn a_checkbox_with_another_role_is_a_control_not_a_task() {
    // Wikipedia's language menu opens with `<input type="checkbox" role="button">`: no `[ ]` in the text.
    let doc = read(
        r#"<p><input type="checkbox" role="button" aria-label="Languages">Languages</p>
        <ul><li><input type="checkbox" role="checkbox" checked> done</li><li><input type="checkbox"> open</li></ul>"#,
    );
    assert_eq!(
        outline(&doc),
        "doc\n  paragraph\n    text \"Languages\"\n  bulletList\n    listItem\n      paragraph\n        text \"[x] done\"\n    listItem\n      paragraph\n        text \"[ ] open\"\n"
    );
}

#[test]
fn a_headings_permalink_leaves_its_text_and_a_sign_alone_goes() {
    // mdBook links the whole heading to itself, rustdoc puts `§` before it, Sphinx `¶` after it, GitHub
    // an icon: the text stays, without a link that points nowhere once the page is text.
    let doc = read(
        r##"<h1 id="intro"><a class="header" href="#intro">Intro</a></h1>
        <h2 id="examples"><a class="doc-anchor" href="#examples">§</a>Examples</h2>
        <h2>Usage<a class="headerlink" href="#usage" title="Link to this heading">¶</a></h2>
        <h3 id="x"><a href="#x"><svg><path d="M0"/></svg></a>Icon</h3>
        <h3><a href="#top">#1</a> <a href="/other">Other page</a></h3>
        <p><a href="#examples">§</a> in a paragraph is a link</p>"##,
    );
    assert_eq!(
        outline(&doc),
        r##"doc
  heading {"level":1}
    text "Intro"
  heading {"level":2}
    text "Examples"
  heading {"level":2}
    text "Usage"
  heading {"level":3}
    text "Icon"
  heading {"level":3}
    text "#1 "
    text "Other page" +link{"href":"/other"}
  paragraph
    text "§" +link{"href":"#examples"}
    text " in a paragraph is a link"
"##
    );
}

#[test]
fn two_codes_side_by_side_in_a_pre_are_two_lines_not_one() {
    // Node.js's docs give each example as ES modules and as CommonJS, a checkbox showing one at a time.
    let doc = read(
        r#"<pre><input type="checkbox" checked><code class="language-js mjs">import fs from 'node:fs';</code><code class="language-js cjs">const fs = require('node:fs');</code><button>copy</button></pre>
        <pre><code>a</code> + <code>b</code></pre><pre><code>x
</code><code>y</code></pre>"#,
    );
    assert_eq!(
        outline(&doc),
        r#"doc
  codeBlock {"language":"js"}
    text "import fs from 'node:fs';\nconst fs = require('node:fs');"
  codeBlock
    text "a + b"
  codeBlock
    text "x\ny"
"#
    );
}

#[test]
fn every_outermost_article_is_read_in_order() {
    let doc = read("<p>Teaser</p><article><p>A</p><article><p>B</p></article></article><article><p>C</p></article>");
    let texts: Vec<_> = outline(&doc)
        .lines()
        .filter(|l| l.contains("text"))
        .map(str::trim)
        .map(String::from)
        .collect();
    assert_eq!(texts, ["text \"A\"", "text \"B\"", "text \"C\""]);
}

#[test]
fn an_article_header_is_content_not_chrome() {
    let doc = read(
        "<article><header><h1>Title</h1></header><p>Body</p><footer>Tags: x</footer></article>",
    );
    assert_eq!(
        outline(&doc),
        "doc\n  heading {\"level\":1}\n    text \"Title\"\n  paragraph\n    text \"Body\"\n  paragraph\n    text \"Tags: x\"\n"
    );
}

#[test]
fn whitespace_collapses_as_a_browser_shows_it_except_in_pre() {
    let doc = read("<p>  a \n\t b<b> c </b> d  </p><pre>  x\n   y  </pre>");
    assert_eq!(
        outline(&doc),
        "doc\n  paragraph\n    text \"a b \"\n    text \"c\" +strong\n    text \" d\"\n  codeBlock\n    text \"  x\\n   y  \"\n"
    );
}

#[test]
fn code_block_languages_from_the_usual_classes() {
    for (html, language) in [
        (r#"<pre><code class="language-rust">x</code></pre>"#, "rust"),
        (r#"<pre><code class="hljs lang-js">x</code></pre>"#, "js"),
        (
            r#"<div class="highlight highlight-source-python"><pre>x</pre></div>"#,
            "python",
        ),
        (
            r#"<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>x</code></pre></div></div>"#,
            "ruby",
        ),
        (
            r#"<pre class="sourceCode haskell"><code class="sourceCode haskell">x</code></pre>"#,
            "haskell",
        ),
        (r#"<pre lang="go"><code>x</code></pre>"#, "go"),
    ] {
        let doc = read(html);
        let block = &doc.children()[0];
        assert_eq!(block.kind, NodeType::CodeBlock, "{html}");
        assert_eq!(block.attr_str("language"), Some(language), "{html}");
    }
}

#[test]
fn implied_end_tags_as_html_allows_them() {
    let doc = read(
        "<p>one<p>two<ul><li>a<li>b</ul><table><tr><td>1<td>2<tr><td>3</table><dl><dt>T<dd>D</dl>",
    );
    let outline = outline(&doc);
    assert!(
        outline.starts_with(
            "doc\n  paragraph\n    text \"one\"\n  paragraph\n    text \"two\"\n  bulletList\n"
        ),
        "{outline}"
    );
    assert_eq!(outline.matches("listItem").count(), 2, "{outline}");
    assert_eq!(outline.matches("tableRow").count(), 2, "{outline}");
    assert_eq!(outline.matches("tableCell").count(), 3, "{outline}");
    assert!(outline.contains("text \"T\" +strong"), "{outline}");
}

#[test]
fn unknown_elements_keep_their_text() {
    let doc = read("<x-card><x-title>Hello</x-title> <blink>world</blink></x-card>");
    assert_eq!(
        outline(&doc),
        "doc\n  paragraph\n    text \"Hello world\"\n"
    );
}

#[test]
fn nested_details_in_a_table_cell_is_a_nested_expand() {
    let doc = read("<table><tr><td><details><summary>S</summary>x</details></td></tr></table>");
    assert!(
        outline(&doc).contains("nestedExpand {\"title\":\"S\"}"),
        "{}",
        outline(&doc)
    );
}

#[test]
fn code_marks_keep_only_links_as_adf_requires() {
    let doc = read(r#"<p><a href="u"><b><code>x</code></b></a></p>"#);
    assert_eq!(
        outline(&doc),
        "doc\n  paragraph\n    text \"x\" +link{\"href\":\"u\"} +code\n"
    );
}

#[test]
fn two_line_breaks_are_a_paragraph_break() {
    let doc = read("<div>one<br><br>two<br></div>");
    assert_eq!(
        outline(&doc),
        "doc\n  paragraph\n    text \"one\"\n  paragraph\n    text \"two\"\n"
    );
}

#[test]
fn nesting_100000_deep_does_not_overflow() {
    for (open, close) in [
        ("<div>", "</div>"),
        ("<ul><li>", "</li></ul>"),
        ("<blockquote>", ""),
        ("<b><i>", ""),
        ("<table><tr><td>", ""),
    ] {
        let html = format!("{}deep{}", open.repeat(100_000), close.repeat(100_000));
        let read = mcp_text::read(html.as_bytes(), Format::Html).unwrap();
        assert!(outline(&read.doc).contains("\"deep\""), "{open}");
        assert_eq!(read.warnings.len(), 1, "{open}: {:?}", read.warnings);
        assert!(
            read.warnings[0].message.contains("512"),
            "{:?}",
            read.warnings
        );
    }
}

#[test]
fn a_20_mb_page_reads() {
    let para =
        "<p>Some <b>bold</b> text with <a href=\"/x\">a link</a> and <code>code</code>.</p>\n";
    let mut html = String::from("<html><body><nav>menu</nav><main>");
    while html.len() < 20 << 20 {
        html.push_str(para);
        html.push_str("<ul><li>one<li>two</ul><table><tr><th>a<th>b<tr><td>1<td>2</table>\n");
    }
    html.push_str("</main></body></html>");
    let doc = mcp_text::read(html.as_bytes(), Format::Html).unwrap().doc;
    assert!(doc.children().len() > 100_000);
}

#[test]
fn invalid_utf8_is_an_error_with_its_place() {
    let err = mcp_text::read(b"<p>ok</p>\n<p>bad \xff here</p>", Format::Html).unwrap_err();
    assert_eq!((err.line, err.column), (2, 8), "{err}");
    assert!(err.message.contains("UTF-8"), "{err}");
}

#[test]
fn a_bold_link_is_a_link_that_is_bold_whatever_the_nesting() {
    // `<b><a href>` gave a text whose marks were strong then link, out of the schema's order, which plain
    // Markdown could not write: the link's text was lost. Marks are in the schema's order now.
    let doc = read(
        r##"<p><b><a href="/x">bold link</a></b> <em><b>both</b></em></p><dl><dt><a href="#t">Term</a></dt><dd>Def</dd></dl>"##,
    );
    assert_eq!(
        outline(&doc),
        r##"doc
  paragraph
    text "bold link" +link{"href":"/x"} +strong
    text " "
    text "both" +em +strong
  paragraph
    text "Term" +link{"href":"#t"} +strong
  paragraph
    text "Def"
"##
    );
    let md = mcp_text::convert(
        r##"<p><b><a href="/x">bold link</a></b></p>"##.as_bytes(),
        Format::Html,
        Format::Markdown,
        &Default::default(),
    )
    .expect("converts");
    assert_eq!(md.text, "[**bold link**](/x)\n");
}
