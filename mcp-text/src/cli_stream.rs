//! The CLI's ADF → Markdown on two cores: a thread reads the JSON while the main thread writes the
//! Markdown of each top-level block as soon as it is read. Same bytes as the whole-document way
//! (`scripts/text-same.sh`); worth a thread only for a large document.

use std::sync::mpsc;

use mcp_text::markdown::{BlockWriter, WriteOptions};
use mcp_text::{adf, Error, Node};

/// Top-level blocks sent over at once (one wake-up of the writer each), and how many such batches the
/// reader may be ahead of the writer (what it holds beyond that waits). Written batches come back to the
/// reader to be freed, so the model in memory at once is this window's, not the whole document's.
const BATCH: usize = 128;
const AHEAD: usize = 16;

/// From this size on the CLI reads and writes on two threads.
pub const FROM_BYTES: usize = 256 * 1024;

/// The Markdown of the ADF in `input`, or `None` for a document [`adf::read_streaming`] leaves to
/// [`adf::read`] (a root with `content` twice), or when no thread could be started.
pub fn adf_to_markdown(input: &[u8], options: &WriteOptions) -> Result<Option<String>, Error> {
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Vec<Node>>(AHEAD);
        // Written batches go back to the reader, which frees them there: its allocator then reuses
        // their memory for the next nodes, rather than the kernel zeroing fresh pages for every one.
        let (back_tx, back_rx) = mpsc::channel::<Vec<Node>>();
        // The main thread's stack (8 MiB, mapped as it is used): the deepest document serde_json's
        // recursion limit lets through reads here as it would there.
        let reader = std::thread::Builder::new().stack_size(8 << 20);
        let reader = reader.spawn_scoped(s, move || {
            let mut batch = Vec::with_capacity(BATCH);
            let root = adf::read_streaming(input, &mut |node| {
                batch.push(node);
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    // The writer takes every batch until the channel closes: this cannot fail.
                    let _ = tx.send(full);
                    while let Ok(written) = back_rx.try_recv() {
                        drop(written);
                    }
                }
            });
            if !batch.is_empty() {
                let _ = tx.send(batch);
            }
            root
        });
        let reader = match reader {
            Ok(reader) => reader,
            // No second thread to be had: the caller reads the whole document on this one.
            Err(_) => return Ok(None),
        };
        let mut writer = BlockWriter::new(options);
        // The Markdown of real-shaped ADF is under half its size: one allocation, faulted in as huge
        // pages, rather than growing by steps through pages faulted in one at a time.
        writer.reserve(input.len() / 2);
        for batch in rx {
            for node in &batch {
                writer.block(node);
            }
            if let Err(mpsc::SendError(batch)) = back_tx.send(batch) {
                // The reader is done: never freed, like the whole document in main.rs (the process
                // ends right after writing).
                std::mem::forget(batch);
            }
        }
        match reader.join() {
            Ok(Ok(Some(root))) => Ok(Some(writer.finish(&root))),
            Ok(Ok(None)) => Ok(None),
            Ok(Err(e)) => Err(e),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}
