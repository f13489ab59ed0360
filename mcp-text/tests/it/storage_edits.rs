//! The edit judge of `adf_properties.rs` on storage format: random storage documents (`storage_props.rs`'s
//! generator) read into the model and written as Markdown; the Markdown edited as a model would (a paragraph
//! rewritten, a list item added, a marker deleted or its JSON broken) and read back. Every top-level node the
//! edit did not touch comes back as the same storage format (its `storage` attributes, which its page is
//! written back from, included), and the result writes as storage format that reads.

use mcp_text::{adf, storage};
use serde_json::Value;

use crate::adf_properties::{edit_judge, run_edits};
use crate::gen::seeds;
use crate::storage_props::document;

pub const STORAGE_EDIT_CASES: u64 = 1000;

/// The storage document of `seed` as the model's JSON.
fn doc_of(seed: u64) -> Result<Value, String> {
    let xml = document(seed, false);
    let read = storage::read(&xml).map_err(|e| format!("the storage reader refused it: {e}"))?;
    Ok(adf::to_value(&read.doc))
}

/// The result must write as storage format that reads. (The nodes the edit did not touch are the same
/// model nodes, so they write as the same storage; an edited or degraded node may read back in another
/// spelling, as any model-made node does: a media's default layout, say.)
fn writes_back(after: &Value) -> Result<(), String> {
    let doc = adf::from_value(after.clone()).map_err(|e| format!("not a model: {e:?}"))?;
    let xml = storage::write(&doc);
    storage::read(&xml).map_err(|e| {
        format!(
            "the written storage does not read: {e}\n    {}",
            crate::schema::short(&xml, 2000)
        )
    })?;
    Ok(())
}

/// A top-level node as the storage format it writes (what the page gets back): an `expand` the storage
/// reader left in a table cell reads back from Markdown as the `nestedExpand` ADF requires there, and
/// both write the same `expand` macro.
fn as_storage(node: &Value) -> Value {
    let doc = serde_json::json!({"type": "doc", "version": 1, "content": [node]});
    match adf::from_value(doc) {
        Ok(doc) => Value::String(storage::write(&doc)),
        Err(e) => Value::String(format!("not a model: {e:?}")),
    }
}

#[test]
fn edits_of_a_pages_markdown_change_only_the_node_they_touch() {
    run_edits(
        "edits of a storage page's Markdown",
        seeds(STORAGE_EDIT_CASES),
        &mut |seed, edit| edit_judge(doc_of(seed)?, seed, edit, &writes_back, &as_storage),
    );
}
