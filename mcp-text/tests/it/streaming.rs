//! Conversion a run of root blocks at a time (`src/streaming.rs`: what `convert`, `convert_to` and the CLI
//! do for every pair but HTML input and ADF to ADF): byte for byte the whole document read, then written
//! (`convert_read`), for every pair, on documents long enough to be handed on in many runs; and the
//! storage writer's runs (`storage::BlockWriter`) against its whole-document writer where marks and
//! layouts span blocks.

use mcp_text::{
    convert, convert_read, convert_to, read, storage, Converted, Format, Node, Options,
};
use serde_json::{json, Value};

use crate::cli_split::large_doc;

/// The oracle: the whole document read, then written.
pub fn whole(input: &[u8], from: Format, to: Format, options: &Options) -> Converted {
    convert_read(read(input, from).unwrap(), from, to, options).unwrap()
}

/// `convert` and `convert_to` against the oracle, compact and pretty where the output is ADF.
fn assert_streams(input: &[u8], from: Format, to: Format) {
    for pretty in [false, true]
        .into_iter()
        .filter(|p| !p || to == Format::Adf)
    {
        let options = Options {
            pretty,
            ..Options::default()
        };
        let expected = whole(input, from, to, &options);
        let converted = convert(input, from, to, &options).unwrap();
        assert!(
            converted == expected,
            "{from:?} → {to:?} (pretty: {pretty}) differs from the whole document's"
        );
        let (bytes, warnings) = convert_to(input, from, to, &options, Vec::new()).unwrap();
        assert!(String::from_utf8(bytes).unwrap() == expected.text);
        assert_eq!(warnings, expected.warnings);
    }
}

#[test]
fn every_pair_converted_a_run_at_a_time_is_the_whole_documents_conversion() {
    let adf =
        serde_json::to_vec(&json!({"type": "doc", "version": 1, "content": large_doc(600 << 10)}))
            .unwrap();
    let markdown = whole(&adf, Format::Adf, Format::Markdown, &Options::default()).text;
    let xml = whole(&adf, Format::Adf, Format::Storage, &Options::default()).text;
    for to in [Format::Markdown, Format::Storage] {
        assert_streams(&adf, Format::Adf, to);
    }
    for to in [Format::Markdown, Format::Adf, Format::Storage] {
        assert_streams(markdown.as_bytes(), Format::Markdown, to);
        assert_streams(xml.as_bytes(), Format::Storage, to);
    }
}

#[test]
fn a_long_html_page_converted_a_run_at_a_time_is_the_whole_pages_conversion() {
    let piece = |i: usize| {
        format!(
            "<h2>Part {i} <img src=\"a{i}.png\" alt=\"x\"></h2><p>Some <b>bold <i>and</i></b> text<br>and a \
             <a href=\"/p/{i}\">link</a>.</p><div class=\"highlight-source-rust\"><pre>fn f() {{}}</pre></div>\
             <ul><li>one<ul><li>two</li></ul></li><li><input type=checkbox checked> done</li></ul>\
             <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td><p>x</p><p>y</p></td></tr></table>\
             <details><summary>More</summary><p>hidden {i}</p></details><blockquote>q</blockquote><hr>\
             loose text <em>at the root</em><script>skip()</script><nav>chrome</nav>"
        )
    };
    let body: String = (0..400).map(piece).collect();
    for page in [
        format!("<html><body>{body}</body></html>"),
        // Only the `main` is read, wherever it is.
        format!("<body><div>{body}</div><main>{}</main></body>", piece(1)),
    ] {
        for to in [Format::Markdown, Format::Adf, Format::Storage] {
            assert_streams(page.as_bytes(), Format::Html, to);
        }
    }
}

#[test]
fn an_adf_fragment_written_as_storage_is_the_fragment() {
    // A root that is no `doc`: storage format writes the node itself, so it is read whole.
    let p = json!({"type": "paragraph", "content": [{"type": "text", "text": "x"}]});
    let quote = json!({"type": "blockquote", "content": vec![p; 3 * 64]});
    assert_streams(quote.to_string().as_bytes(), Format::Adf, Format::Storage);
    assert!(convert(
        quote.to_string().as_bytes(),
        Format::Adf,
        Format::Storage,
        &Options::default()
    )
    .unwrap()
    .text
    .starts_with("<blockquote>"));
}

#[test]
fn an_error_late_in_the_input_is_the_whole_readers_error() {
    let mut xml = "<p>fine</p>".repeat(5000);
    xml.push_str("<p>broken</div>");
    let expected = read(xml.as_bytes(), Format::Storage).unwrap_err();
    for to in [Format::Adf, Format::Markdown, Format::Storage] {
        let options = Options::default();
        let Err(mcp_text::Failed::Input(err)) =
            convert_to(xml.as_bytes(), Format::Storage, to, &options, Vec::new())
        else {
            panic!("{to:?}: converted a broken page");
        };
        assert_eq!(err, expected);
        assert_eq!(
            convert(xml.as_bytes(), Format::Storage, to, &options),
            Err(expected.clone())
        );
    }
}

/// Root blocks of storage format whose marks and layouts join them: text at the root under marks it
/// shares (`<strong>a<em>b</em></strong>`), block marks, layout sections with and without marks, and a
/// section that starts a layout of its own.
fn joined_blocks() -> Vec<Node> {
    let p = |t: &str, marks: Value| json!({"type": "paragraph", "marks": marks, "content": [{"type": "text", "text": t}]});
    let center = json!([{"type": "alignment", "attrs": {"align": "center"}}]);
    let end = json!([{"type": "alignment", "attrs": {"align": "end"}}]);
    let section = |marks: Value, new_layout: bool| {
        let mut s = json!({"type": "layoutSection", "marks": marks, "content": [
            {"type": "layoutColumn", "attrs": {"width": 100}, "content": [p("in", json!([]))]}]});
        if new_layout {
            s["attrs"] = json!({"storage": {"newLayout": true}});
        }
        s
    };
    let wide = json!([{"type": "breakout", "attrs": {"mode": "wide"}}]);
    let text = |t: &str, marks: Value| json!({"type": "text", "text": t, "marks": marks});
    let strong = json!({"type": "strong"});
    let blocks = json!([
        text("x", json!([strong])),
        text("y", json!([strong, {"type": "em"}])),
        text("z", json!([{"type": "em"}])),
        p("a", json!([])),
        p("b", center.clone()),
        p("c", center.clone()),
        p("d", end),
        section(json!([]), false),
        section(json!([]), false),
        section(json!([]), true),
        section(wide.clone(), false),
        section(wide.clone(), false),
        p("e", center.clone()),
        section(json!([]), false),
        p("f", json!([])),
        section(wide, true),
        section(json!([]), false),
    ]);
    blocks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| mcp_text::adf::from_value(b.clone()).unwrap())
        .collect()
}

#[test]
fn storage_written_a_run_at_a_time_is_the_whole_documents() {
    let blocks = joined_blocks();
    let expected = storage::write(&Node::doc(blocks.clone()));
    assert!(expected.contains("</ac:layout><ac:layout>"), "{expected}");
    assert!(
        expected.starts_with("<strong>x<em>y</em></strong><em>z</em>"),
        "{expected}"
    );
    // Every split of the blocks into runs, by the bits of `cuts`; the last run left to `finish`.
    for cuts in 0u32..1 << (blocks.len() - 1) {
        let mut writer = storage::BlockWriter::default();
        let mut run = Vec::new();
        for (i, block) in blocks.iter().enumerate() {
            run.push(block.clone());
            if cuts & (1 << i) != 0 {
                writer.run(std::mem::take(&mut run));
            }
        }
        let text = writer.finish(Node::doc(run));
        assert!(
            text == expected,
            "runs cut at {cuts:b}:\n{text}\n{expected}"
        );
    }
}

#[test]
fn random_documents_stream_to_storage_as_they_write_whole() {
    let Some(schema) = crate::schema::schema() else {
        panic!("the ADF schema: bash scripts/install-text-corpora.sh")
    };
    let mut gen = crate::gen::Gen::new(schema, 11);
    for seed in 0..300 {
        gen.reseed(seed);
        let doc = mcp_text::adf::from_value(gen.doc()).unwrap();
        let expected = storage::write(&doc);
        let mut writer = storage::BlockWriter::default();
        for block in doc.children() {
            writer.run(vec![block.clone()]);
        }
        let mut rest = doc.clone();
        rest.content = Some(Vec::new());
        assert!(writer.finish(rest) == expected, "seed {seed}");
    }
}

#[test]
fn the_cli_writes_nothing_for_a_page_broken_late_and_streams_the_rest() {
    let mut xml = "<p>fine</p>\n".repeat(5000);
    xml.push_str("<p>broken</div>");
    let expected = read(xml.as_bytes(), Format::Storage).unwrap_err();
    for to in ["adf", "markdown", "storage"] {
        let out = crate::html_cli::run(
            &["convert", "--from", "storage", "--to", to],
            xml.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(1), "to {to}");
        assert!(
            out.stdout.is_empty(),
            "to {to}: wrote {} bytes",
            out.stdout.len()
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&expected.to_string()), "to {to}: {stderr}");
    }
    // Every other pair the CLI streams writes the library's text, ADF with a line break after it.
    let md = "# T\n\n- a\n- b\n\n> [!NOTE]\n> n\n\n".repeat(300);
    for (from, to, input) in [
        ("markdown", "storage", md.as_bytes()),
        ("markdown", "adf", md.as_bytes()),
        ("html", "adf", b"<h1>T</h1><p>x</p>".as_slice()),
        ("html", "storage", b"<h1>T</h1><p>x</p>".as_slice()),
    ] {
        let (f, t) = (
            from.parse::<Format>().unwrap(),
            to.parse::<Format>().unwrap(),
        );
        let mut expected = whole(input, f, t, &Options::default()).text;
        if t == Format::Adf {
            expected.push('\n');
        }
        let out = crate::html_cli::run(&["convert", "--from", from, "--to", to], input);
        assert!(out.status.success(), "{from} → {to}");
        assert!(out.stdout == expected.as_bytes(), "{from} → {to}");
    }
}
