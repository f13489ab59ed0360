//! The ADF JSON reader (`mcp-text`): any bytes either fail to read with an error or read into a document that
//! the Markdown writer writes and the Markdown reader reads back as the same document (the crate's central
//! contract: Markdown ↔ model is lossless for any model document), so that ADF → Markdown → ADF gives the
//! input document back. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_text::{read, write, Format, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(first) = read(data, Format::Adf) else { return };
    let markdown = write(&first.doc, Format::Markdown, &Options::default()).expect("the model always writes as Markdown");
    let back = read(markdown.as_bytes(), Format::Markdown).expect("Markdown always reads");
    assert!(back.doc == first.doc, "Markdown did not give the document back:\n{markdown}");
});
