//! Confluence storage format (the XHTML Confluence keeps pages in): the reader and the writer.
//!
//! The reader maps storage elements onto the model's ADF node types the way Confluence Cloud does
//! (`ac:structured-macro` `code` → `codeBlock`, `info` → `panel`, `ac:link` + `ri:user` → `mention`, any
//! other macro → `extension` with its parameters, ...), so that storage → Markdown reads like the page.
//! Whatever the storage element says that the ADF node does not (a macro id, an element's other name such
//! as `<b>` for `<strong>`, unknown attributes, unknown children of a macro) is kept under the node's
//! `storage` attribute ([`STORAGE`]), and elements the reader does not know become `storage:element` nodes
//! ([`ELEMENT`]): the writer restores both, so `write(read(x))` is `x` up to the normalisation described in
//! `docs/text-storage.md` (attribute order and quoting, entity spelling, CDATA against escaped text,
//! `<x></x>` against `<x />`, whitespace-only text between block elements).
//!
//! One pass over quick-xml's events with an explicit stack (no recursion while reading, nesting capped at
//! [`MAX_DEPTH`] elements); the writer recurses only as deep as the model, which the readers bound.

mod adf_extension;
mod attrs;
mod bare;
mod block_marks;
mod cards;
mod cells;
mod columns;
mod cursor;
mod elements;
mod entities;
mod images;
mod layouts;
mod links;
mod macros;
mod position;
mod pre;
mod read;
mod spans;
mod wrapped;
mod write;
mod xml_out;

use crate::error::Error;
use crate::model::Node;
use crate::Read;

pub use macros::macro_label;
pub(crate) use macros::{macro_from_label, main_param, MACRO_EXTENSION_TYPE};
pub use write::BlockWriter;

/// The attribute under which a node keeps what the storage element said that ADF does not.
pub const STORAGE: &str = "storage";
/// The node (and mark) type of an element the reader does not map: `attrs.name` is the element's name,
/// `attrs.attributes` its attributes.
pub const ELEMENT: &str = "storage:element";
/// The node type of markup kept verbatim (`attrs.xml`): comments, processing instructions.
pub const RAW: &str = "storage:raw";
/// The deepest element nesting the reader accepts; deeper input is an error naming the element.
pub const MAX_DEPTH: usize = 512;

/// Reads a storage-format fragment (no root element needed; `ac:`/`ri:` prefixes need no declaration;
/// HTML's named entities are known) into a `doc` node.
pub fn read(input: &str) -> Result<Read, Error> {
    let mut handed = Vec::new();
    let read = read::read(input, &mut |blocks| handed.extend(blocks))?;
    Ok(read.with_handed(handed))
}

/// Reads as [`read`] does, handing `each` the root blocks as soon as they are read (all but the last,
/// which the next may read): those handed over, then the returned document's content, are `read`'s
/// content. An error may come after blocks were handed over; they are then of no use. Memory holds the
/// open blocks, not the document: [`crate::convert`] converts storage format this way.
pub fn read_streaming(input: &str, each: &mut dyn FnMut(Vec<Node>)) -> Result<Read, Error> {
    read::read(input, each)
}

/// Writes a node (a `doc`, or any node) as storage format.
pub fn write(doc: &Node) -> String {
    write::write(doc)
}
