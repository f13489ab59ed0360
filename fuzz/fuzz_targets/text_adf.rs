//! The ADF JSON reader (`mcp-text`): any bytes either fail to read with an error or read into a document that
//! the Markdown writer writes and the Markdown reader reads back unchanged, whatever tree it is. Never a
//! panic. Read a block at a time (`adf::read_streaming`, written by `markdown::BlockWriter`), the same
//! bytes give the same Markdown or the same error; cut into stretches where `adf::block_starts` finds
//! blocks (the CLI's way on two cores, `mcp_text::split`), what joins is the same Markdown. The direct
//! reader `read` goes through first agrees with the serde reader, the reference: the same document or the
//! same error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_text::adf::{self, AtBlock, BlocksEnd};
use mcp_text::markdown::{BlockWriter, WriteOptions};
use mcp_text::split::{self, Stretch};
use mcp_text::{read, write, Format, Options};

fuzz_target!(|data: &[u8]| {
    let whole = read(data, Format::Adf);
    assert_eq!(
        adf::read(data),
        adf::read_serde(data),
        "the direct and the serde reader"
    );
    let options = WriteOptions::default();
    let mut blocks = BlockWriter::new(&options);
    match (
        adf::read_streaming(data, &mut |block| blocks.block(&block)),
        &whole,
    ) {
        (Ok(Some(root)), Ok(whole)) => {
            let whole = write(&whole.doc, Format::Markdown, &Options::default()).unwrap();
            assert_eq!(blocks.finish(&root), whole, "read a block at a time");
        }
        (Ok(None), _) => {} // `content` twice: left to `read`.
        (Err(e), Err(whole)) => assert_eq!(&e, whole),
        (streamed, whole) => panic!(
            "streamed {:?}, whole {:?}",
            streamed.map(|_| ()),
            whole.as_ref().map(|_| ())
        ),
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let starts: Vec<usize> = adf::block_starts(data).take(64).collect();
        for &cut in starts.iter().step_by(8) {
            if let Some(joined) = cut_at(text, cut, &options) {
                let whole = whole.as_ref().expect("what joins reads whole");
                assert_eq!(
                    joined,
                    write(&whole.doc, Format::Markdown, &Options::default()).unwrap(),
                    "cut at {cut}"
                );
            }
        }
    }
    let Ok(first) = whole else { return };
    let markdown = write(&first.doc, Format::Markdown, &Options::default())
        .expect("the model always writes as Markdown");
    let back = read(markdown.as_bytes(), Format::Markdown).expect("Markdown always reads");
    // Any tree, on the schema or off it, comes back: what the fuzzers found that did not (a type name
    // holding `/`, a layout section holding foreign children, a root of another type) are tests in
    // `markdown_failures.rs` and `adf_off_schema.rs`.
    assert!(
        back.doc == first.doc,
        "ADF → Markdown → ADF changed the document\n{markdown}"
    );
});

/// The Markdown of `text` read and written as two stretches, the second from the block at `cut`.
fn cut_at(text: &str, cut: usize, options: &WriteOptions) -> Option<String> {
    let stretch = Stretch::write(text, cut, &mut |_| false, 0, options)?;
    let BlocksEnd::Closed(end) = stretch.end() else {
        return None;
    };
    let mut front = BlockWriter::new(options);
    let root = adf::read_streaming_with(
        text,
        &mut |at| {
            if at == cut {
                AtBlock::SkipTo(end)
            } else {
                AtBlock::Read
            }
        },
        &mut |block| front.block(&block),
    )?;
    Some(split::join(text, &root, front, Some(cut), vec![stretch], options)?.concat())
}
