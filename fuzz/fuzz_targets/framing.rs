//! Message framing and JSON-RPC decoding: arbitrary bytes, delivered in arbitrary chunks, never panic;
//! every complete line is classified; frames we write for what we read are single valid JSON lines.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::framing::{decode, frame, Incoming, Line, LineBuffer};

fuzz_target!(|data: &[u8]| {
    // The first byte picks a chunk size, so line splits land everywhere.
    let (chunk, rest) = match data.split_first() {
        Some((c, r)) => ((*c as usize % 64) + 1, r),
        None => return,
    };
    let mut lb = LineBuffer::new(4096);
    for piece in rest.chunks(chunk) {
        let spare = lb.spare();
        spare[..piece.len()].copy_from_slice(piece);
        lb.filled(piece.len());
        while let Some(line) = lb.next_line() {
            check(line);
        }
    }
    if let Some(line) = lb.take_rest() {
        check(line);
    }
});

fn check(line: Line<'_>) {
    let Line::Complete(bytes) = line else { return };
    assert!(!bytes.contains(&b'\n'));
    match decode(bytes) {
        Incoming::Invalid { id, error } => {
            let f = frame::error(id.as_ref(), &error);
            assert_eq!(f.iter().filter(|&&b| b == b'\n').count(), 1);
            serde_json::from_slice::<serde_json::Value>(&f).expect("error frames are JSON");
        }
        Incoming::Request { id, method, params } => {
            let f = frame::request(&id, &method, params);
            let v: serde_json::Value = serde_json::from_slice(&f).expect("request frames are JSON");
            assert_eq!(v["method"].as_str(), Some(&*method));
        }
        Incoming::Batch(items) => {
            for i in items {
                let _ = mcp_runtime::framing::decode_str(i.get());
            }
        }
        _ => {}
    }
}
