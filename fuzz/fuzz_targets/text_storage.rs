//! The Confluence storage format reader (`mcp-text`): any bytes either fail to read with an error or read into a document that
//! the Markdown writer writes and the Markdown reader reads back as the same document (the crate's central
//! contract: Markdown ↔ model is lossless for any model document), and `convert`, which writes a run of
//! root blocks at a time, writes what the whole document read then written gives. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_text::{convert, convert_read, read, write, Format, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(first) = read(data, Format::Storage) else {
        return;
    };
    // Converted a run of root blocks at a time (what `convert` does), each output is the whole document's.
    for to in [Format::Markdown, Format::Adf, Format::Storage] {
        let options = Options::default();
        let whole = convert_read(
            read(data, Format::Storage).unwrap(),
            Format::Storage,
            to,
            &options,
        );
        assert_eq!(
            convert(data, Format::Storage, to, &options),
            whole,
            "to {to:?}"
        );
    }
    let markdown = write(&first.doc, Format::Markdown, &Options::default())
        .expect("the model always writes as Markdown");
    let back = read(markdown.as_bytes(), Format::Markdown).expect("Markdown always reads");
    // What the fuzzer found that did not come back (a form feed at a line's edge, `99.h@.h`) and the page
    // that panicked (a byte order mark) are tests in `markdown_roundtrip.rs` and `storage_bad_input.rs`.
    assert!(
        back.doc == first.doc,
        "storage → Markdown → model changed the document\n{markdown}"
    );
});
