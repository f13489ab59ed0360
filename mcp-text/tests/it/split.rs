//! ADF → Markdown in stretches (`mcp_text::split`, the CLI's way on two cores): cut at any block start
//! the scan finds, the stretches joined give the whole document's Markdown byte for byte. On random
//! schema documents in three JSON forms, on documents of lists only (a list's delimiter depends on the
//! list before it, across a cut too), and on damaged documents (no panic; what joins is right).

use mcp_text::adf::{self, AtBlock, BlocksEnd};
use mcp_text::markdown::{self, BlockWriter, WriteOptions};
use mcp_text::split::{self, Stretch};
use serde_json::{json, Value};

use crate::gen::{ascii_only, cases, Gen, Rng};
use crate::schema::schema;

/// The offsets where the root reader meets each block: what the scan must find.
fn read_starts(text: &str) -> Option<Vec<usize>> {
    let mut starts = Vec::new();
    adf::read_streaming_with(
        text,
        &mut |at| {
            starts.push(at);
            AtBlock::Read
        },
        &mut |_| {},
    )?;
    Some(starts)
}

/// The Markdown of `text` read and written in stretches cut at `cuts` (block starts, in order), the
/// stretches handed to `join` last first. `None` where the pieces do not read or join.
fn in_stretches(text: &str, cuts: &[usize], options: &WriteOptions) -> Option<String> {
    let mut stretches = Vec::new();
    for (i, &at) in cuts.iter().enumerate() {
        let next = cuts.get(i + 1).copied();
        stretches.push(Stretch::write(
            text,
            at,
            &mut |b| Some(b) == next,
            0,
            options,
        )?);
    }
    let BlocksEnd::Closed(end) = stretches.last()?.end() else {
        return None;
    };
    let first = cuts[0];
    let mut front = BlockWriter::new(options);
    let root = adf::read_streaming_with(
        text,
        &mut |at| match at == first {
            true => AtBlock::SkipTo(end),
            false => AtBlock::Read,
        },
        &mut |block| front.block(&block),
    )?;
    stretches.reverse();
    Some(split::join(text, &root, front, Some(first), stretches, options)?.concat())
}

/// Every cut and every pair of cuts of `text` gives its whole Markdown; the scan finds the reader's starts.
fn every_cut_is_whole(text: &str, what: &dyn Fn() -> String) {
    let Some(starts) = read_starts(text) else {
        return;
    };
    let found: Vec<usize> = adf::block_starts(text.as_bytes()).collect();
    assert_eq!(found, starts, "the scan's starts: {}", what());
    for (i, &at) in starts.iter().enumerate() {
        let after: Vec<usize> = adf::block_starts_after(text.as_bytes(), at).collect();
        assert_eq!(after, starts[i + 1..], "after {at}: {}", what());
    }
    let doc = adf::read(text.as_bytes()).expect("read whole");
    for plain in [false, true] {
        let options = WriteOptions {
            mentions: None,
            plain,
        };
        let whole = markdown::write(&doc, &options);
        let mut cuts: Vec<Vec<usize>> = starts.iter().map(|&at| vec![at]).collect();
        for (i, &a) in starts.iter().enumerate().take(12) {
            cuts.extend(starts[i + 1..].iter().take(12).map(|&b| vec![a, b]));
        }
        // All the starts at once (none when the document has no block: three empty documents drawn).
        if !starts.is_empty() {
            cuts.push(starts.clone());
        }
        for cut in cuts {
            let joined = in_stretches(text, &cut, &options)
                .unwrap_or_else(|| panic!("cut at {cut:?} does not join: {}", what()));
            assert!(
                joined == whole,
                "cut at {cut:?}, plain {plain}: differs at byte {}: {}",
                joined
                    .bytes()
                    .zip(whole.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(joined.len().min(whole.len())),
                what()
            );
        }
    }
}

#[test]
fn every_cut_of_random_documents_writes_the_whole_documents_markdown() {
    let Some(schema) = schema() else { return };
    let mut gen = Gen::new(schema, 0);
    for seed in 0..cases(200) {
        gen.reseed(seed);
        // A few documents' blocks in one, so that there is something to cut.
        let mut blocks = Vec::new();
        for _ in 0..3 {
            if let Some(Value::Array(content)) = gen.doc().get("content") {
                blocks.extend(content.iter().cloned());
            }
        }
        let doc = json!({"type": "doc", "version": 1, "content": blocks, "x-after": [seed]});
        let compact = serde_json::to_string(&doc).unwrap();
        for (form, text) in [
            serde_json::to_string_pretty(&doc).unwrap(),
            ascii_only(&compact),
            compact,
        ]
        .iter()
        .enumerate()
        {
            every_cut_is_whole(text, &|| format!("seed {seed}, form {form}"));
        }
    }
}

#[test]
fn lists_cut_anywhere_take_their_delimiters_as_in_the_whole() {
    // Runs of lists of every kind, which the writer keeps apart by alternating their delimiters, also
    // across markers alone (an extension's, a sync block's around a list or around a paragraph), which pass
    // the delimiter on; with a paragraph now and then that ends a run.
    let item = |text: &str| json!({"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}]});
    let bullets = json!({"type": "bulletList", "content": [item("a"), item("b")]});
    let paragraph = json!({"type": "paragraph", "content": [{"type": "text", "text": "f"}]});
    let sync = |inner: &Value| json!({"type": "bodiedSyncBlock", "attrs": {"localId": "s", "resourceId": "r"}, "content": [inner]});
    let lists = [
        bullets.clone(),
        json!({"type": "orderedList", "attrs": {"order": 3}, "content": [item("c")]}),
        json!({"type": "taskList", "attrs": {"localId": "t"}, "content": [{"type": "taskItem", "attrs": {"localId": "i", "state": "DONE"}, "content": [{"type": "text", "text": "d"}]}]}),
        json!({"type": "decisionList", "attrs": {"localId": "d"}, "content": [{"type": "decisionItem", "attrs": {"localId": "j", "state": "DECIDED"}, "content": [{"type": "text", "text": "e"}]}]}),
        json!({"type": "extension", "attrs": {"extensionKey": "k", "extensionType": "t"}}),
        sync(&bullets),
        sync(&paragraph),
        paragraph.clone(),
    ];
    let mut rng = Rng::new(3);
    for round in 0..40 {
        let blocks: Vec<Value> = (0..rng.range(2, 14))
            .map(|_| lists[rng.below(if round % 2 == 0 { 7 } else { 8 })].clone())
            .collect();
        let text = serde_json::to_string(&json!({"type": "doc", "version": 1, "content": blocks}))
            .unwrap();
        every_cut_is_whole(&text, &|| format!("round {round}: {text}"));
    }
}

#[test]
fn damaged_documents_cut_anywhere_never_panic_and_what_joins_is_whole() {
    let Some(schema) = schema() else { return };
    let mut gen = Gen::new(schema, 5);
    let mut rng = Rng::new(11);
    const BYTES: &[u8] = b"\"\\{}[],:0 x\x01";
    let options = WriteOptions::default();
    for seed in 0..cases(100) {
        gen.reseed(seed);
        let text = serde_json::to_string(&gen.doc()).unwrap();
        for _ in 0..20 {
            let mut damaged = text.clone().into_bytes();
            let at = rng.below(damaged.len());
            damaged[at] = *rng.pick(BYTES);
            let Ok(damaged) = String::from_utf8(damaged) else {
                continue;
            };
            let starts: Vec<usize> = adf::block_starts(damaged.as_bytes()).collect();
            let whole = adf::read(damaged.as_bytes()).map(|doc| markdown::write(&doc, &options));
            for &at in &starts {
                if let Some(joined) = in_stretches(&damaged, &[at], &options) {
                    assert_eq!(Ok(&joined), whole.as_ref(), "seed {seed}: {damaged}");
                }
            }
        }
    }
}
