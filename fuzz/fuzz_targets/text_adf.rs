//! The ADF JSON reader (`mcp-text`): any bytes either fail to read with an error or read into a document that
//! the Markdown writer writes and the Markdown reader reads back. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_text::{read, write, Format, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(first) = read(data, Format::Adf) else { return };
    let markdown = write(&first.doc, Format::Markdown, &Options::default()).expect("the model always writes as Markdown");
    let back = read(markdown.as_bytes(), Format::Markdown).expect("Markdown always reads");
    // Reading back must never fail or panic. That the document comes back unchanged is judged on documents
    // valid against ADF's schema by the property tests (`mcp-text/tests/it/adf_properties.rs`); arbitrary
    // trees are not yet shown to all come back (the two the fuzzers found, a type name holding `/` and a
    // layout section holding foreign children, come back now and are tests in `markdown_failures.rs`).
    let _ = back;
});
