//! The CLI's ADF → Markdown on two threads (`src/cli_split.rs`, for documents of 256 KiB and more): the
//! same Markdown as the library's whole-document conversion, the same errors, nothing written on an error.
//! Where the threads cut the document depends on their timing: `split.rs` checks every cut of the
//! library's pieces; here the threads cut where they do, several times over.

use std::process::Output;

use mcp_text::{Format, Options};
use serde_json::{json, Value};

use crate::gen::Gen;
use crate::schema::schema;

fn cli(args: &[&str], stdin: &[u8]) -> Output {
    let mut all = vec!["convert", "--from", "adf", "--to", "markdown"];
    all.extend_from_slice(args);
    crate::html_cli::run(&all, stdin)
}

/// The top-level blocks of random schema documents, in one document of at least `bytes`.
pub fn large_doc(bytes: usize) -> Vec<Value> {
    let schema = schema().expect("the ADF schema: bash scripts/install-text-corpora.sh");
    let mut gen = Gen::new(schema, 7);
    let (mut blocks, mut size) = (Vec::new(), 0);
    let mut seed = 0;
    while size < bytes {
        gen.reseed(seed);
        seed += 1;
        if let Some(Value::Array(content)) = gen.doc().get("content") {
            for block in content {
                size += block.to_string().len();
                blocks.push(block.clone());
            }
        }
    }
    blocks
}

fn library(input: &[u8], plain: bool) -> String {
    let options = Options {
        plain,
        ..Options::default()
    };
    crate::streaming::whole(input, Format::Adf, Format::Markdown, &options).text
}

#[test]
fn a_large_document_written_while_it_is_read_is_the_librarys_markdown() {
    let blocks = large_doc(1 << 20);
    // Members before and after `content`: the root's marker is written once all are read.
    let docs = [
        json!({"type": "doc", "version": 1, "content": blocks}),
        json!({"version": 1, "content": blocks, "type": "doc", "x-later": {"a": [1, 2]}}),
        json!({"type": "blockquote", "content": blocks, "attrs": {"localId": "q"}}),
    ];
    for (i, doc) in docs.into_iter().enumerate() {
        let input = serde_json::to_vec(&doc).unwrap();
        assert!(input.len() > 1 << 20);
        for plain in [false, true] {
            let out = cli(if plain { &["--plain"] } else { &[] }, &input);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let ours = String::from_utf8(out.stdout).unwrap();
            let expected = library(&input, plain);
            // The root's marker, for a root that is not what a reader infers.
            assert_eq!(
                ours.starts_with("<!--adf:doc {"),
                i > 0 && !plain,
                "doc {i}"
            );
            assert!(
                ours == expected,
                "plain {plain}: the CLI's Markdown differs from the library's at byte {}",
                ours.bytes()
                    .zip(expected.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(ours.len().min(expected.len()))
            );
        }
    }
}

#[test]
fn a_large_document_of_lists_only_keeps_its_delimiters_wherever_the_threads_cut_it() {
    // Every block a list, so that wherever the threads cut, the block after the cut is a list whose
    // delimiter depends on the list before it, written by the other thread.
    let item = |i: usize| json!({"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": format!("item {i}")}]}]});
    let blocks: Vec<Value> = (0..12_000)
        .map(|i| match i % 3 {
            0 => json!({"type": "bulletList", "content": [item(i), item(i + 1)]}),
            1 => json!({"type": "orderedList", "attrs": {"order": i}, "content": [item(i)]}),
            _ => json!({"type": "taskList", "attrs": {"localId": "t"}, "content": [{"type": "taskItem", "attrs": {"localId": format!("i{i}"), "state": "TODO"}, "content": [{"type": "text", "text": "task"}]}]}),
        })
        .collect();
    let input =
        serde_json::to_vec(&json!({"type": "doc", "version": 1, "content": blocks})).unwrap();
    assert!(input.len() > 1 << 20);
    let expected = library(&input, false);
    for _ in 0..5 {
        let out = cli(&[], &input);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == expected.as_bytes(),
            "the CLI's Markdown differs from the library's"
        );
    }
}

#[test]
fn a_large_root_with_content_twice_is_read_as_the_library_reads_it() {
    let blocks = large_doc(300 * 1024);
    let second =
        json!([{"type": "paragraph", "content": [{"type": "text", "text": "the last wins"}]}]);
    let input = format!(
        r#"{{"type":"doc","version":1,"content":{},"content":{second}}}"#,
        Value::Array(blocks)
    );
    let out = cli(&[], input.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "the last wins\n");
    assert_eq!(library(input.as_bytes(), false), "the last wins\n");
}

#[test]
fn a_large_document_broken_near_its_end_is_the_librarys_error_and_writes_nothing() {
    let blocks = large_doc(300 * 1024);
    let good = serde_json::to_string(&json!({"type": "doc", "content": blocks})).unwrap();
    // A node without a type, and then JSON cut short, both after 300 KiB of good blocks.
    let untyped = format!(r#"{},{{"text":"x"}}]}}"#, &good[..good.len() - 2]);
    let cut = good[..good.len() - 40].to_string();
    for input in [untyped, cut] {
        let out = cli(&[], input.as_bytes());
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty(), "{} bytes written", out.stdout.len());
        let options = Options::default();
        let Err(err) = mcp_text::convert(input.as_bytes(), Format::Adf, Format::Markdown, &options)
        else {
            panic!("the library converts what the CLI refused");
        };
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("mcp-text: <stdin>: {err}\n")
        );
    }
}

#[test]
fn a_large_file_read_mapped_converts_as_from_stdin_and_its_errors_name_it() {
    // From 1 MiB on a file is mapped rather than read (`src/cli_input.rs`).
    let blocks = large_doc(1 << 20);
    let input =
        serde_json::to_vec(&json!({"type": "doc", "version": 1, "content": blocks})).unwrap();
    let dir = std::env::temp_dir().join(format!("mcp-text-cli-mapped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("issue.json");
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    for args in [&[path][..], &["--plain", path]] {
        let from_file = cli(args, b"");
        assert!(
            from_file.status.success(),
            "{}",
            String::from_utf8_lossy(&from_file.stderr)
        );
        let from_stdin = cli(&args[..args.len() - 1], &input);
        assert!(
            from_file.stdout == from_stdin.stdout,
            "{args:?}: the mapped file's Markdown differs"
        );
        assert_eq!(
            from_file.stdout.len(),
            library(&input, args.len() > 1).len()
        );
    }
    // Invalid UTF-8 near the end of a mapped file: the error names the file and the place.
    let mut bad = input.clone();
    let at = bad.len() - 100;
    bad[at] = 0xff;
    std::fs::write(&file, &bad).unwrap();
    let out = cli(&[path], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("mcp-text: {path}: line 1, column ")),
        "{stderr}"
    );
    assert!(stderr.contains("invalid UTF-8"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
