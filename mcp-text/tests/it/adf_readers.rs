//! The two ADF readers agree: `adf::read` (a direct reader of the JSON bytes, leaving to serde_json what
//! it is not sure of) gives what `adf::read_serde` (serde_json's visitors, the reference) gives, the same
//! document or the same error at the same place, and `adf::read_streaming` the same blocks. On random
//! valid documents (`gen.rs`) written compact, pretty and with every non-ASCII character escaped, and on
//! the same documents damaged the ways a byte can damage them (cut short, a byte changed, a byte dropped).

use mcp_text::{adf, Node};
use serde_json::Value;

use crate::gen::{ascii_only, cases, Gen, Rng};
use crate::schema::schema;

const CASES: u64 = 300;
const DAMAGES: usize = 30;

fn agree(input: &[u8], what: &dyn Fn() -> String) {
    let serde = adf::read_serde(input);
    assert_eq!(adf::read(input), serde, "read: {}", what());
    let mut blocks: Vec<Node> = Vec::new();
    match (adf::read_streaming(input, &mut |n| blocks.push(n)), &serde) {
        (Ok(Some(mut root)), Ok(whole)) => {
            assert_eq!(
                root.content.as_deref(),
                whole.content.as_ref().map(|_| &[][..])
            );
            root.content = whole.content.as_ref().map(|_| blocks);
            assert_eq!(&root, whole, "read_streaming: {}", what());
        }
        // A document `read_streaming` leaves to `read`: one `read` reads.
        (Ok(None), Ok(_)) => {}
        (Err(e), Err(whole)) => assert_eq!(&e, whole, "read_streaming: {}", what()),
        (streamed, _) => panic!(
            "read_streaming {:?} where read_serde {:?}: {}",
            streamed.map(|_| ()),
            serde.as_ref().map(|_| ()),
            what()
        ),
    }
}

#[test]
fn the_direct_reader_agrees_with_serde_on_random_documents_and_their_damage() {
    let Some(schema) = schema() else { return };
    let mut gen = Gen::new(schema, 0);
    let mut rng = Rng::new(7);
    const BYTES: &[u8] = b"\"\\{}[],:0-.eE+ x\x01tfn\xff";
    for seed in 0..cases(CASES) {
        gen.reseed(seed);
        let doc: Value = gen.doc();
        let compact = serde_json::to_string(&doc).unwrap();
        let forms = [
            compact.clone(),
            serde_json::to_string_pretty(&doc).unwrap(),
            ascii_only(&compact),
        ];
        for (form, json) in forms.iter().enumerate() {
            agree(json.as_bytes(), &|| format!("seed {seed}, form {form}"));
        }
        let bytes = compact.as_bytes();
        for damage in 0..DAMAGES {
            let at = rng.below(bytes.len());
            let mut damaged = bytes.to_vec();
            match damage % 3 {
                0 => damaged.truncate(at),
                1 => damaged[at] = *rng.pick(BYTES),
                _ => {
                    damaged.remove(at);
                }
            }
            agree(&damaged, &|| {
                format!(
                    "seed {seed}, damage {damage}: {}",
                    String::from_utf8_lossy(&damaged)
                )
            });
        }
    }
}
