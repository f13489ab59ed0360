//! Conversion a run of root blocks at a time: each reader that hands on the root blocks nothing later in
//! its input can change (Markdown, storage format, ADF, HTML) feeds each writer that takes them (Markdown, ADF,
//! storage format), so memory holds the output and what is still open rather than the document.
//! [`crate::convert`] and [`crate::convert_to`] convert this way wherever both ends can.

use std::io::{self, Write};

use crate::model::Node;
use crate::{adf, html, markdown, storage, utf8, Error, Failed, Format, Options, Read, Warning};

/// Root blocks the ADF reader gathers before it hands them on (it reads them one at a time).
const RUN: usize = 64;

/// A conversion's end: the writer and what the reader read leniently, or why it stopped.
pub(crate) type Ended<W> = Result<(W, Vec<Warning>), Failed>;

/// Converts `input` a run of root blocks at a time, writing to `out` as it reads. `Err(out)`, with
/// nothing written, when a reader or writer does not take this document a run at a time (ADF written as
/// ADF, an ADF root the streaming reader leaves to the whole reader, a root other than a `doc` written as
/// storage format).
pub(crate) fn convert<W: Write>(
    input: &[u8],
    from: Format,
    to: Format,
    options: &Options,
    out: W,
) -> Result<Ended<W>, W> {
    if (from, to) == (Format::Adf, Format::Adf) {
        return Err(out);
    }
    let write_options = markdown::WriteOptions {
        mentions: options.mentions,
        // HTML is read-only (lossy on purpose): its Markdown is for reading, so it carries no markers.
        plain: options.plain || from == Format::Html,
    };
    let mut sink = Sink::new(from, to, options.pretty, &write_options, out)?;
    let mut failed = None;
    let read = read_runs(input, from, &mut |doc, blocks| {
        if failed.is_none() {
            failed = sink.run(doc, blocks).err();
        }
    });
    let read = match read {
        Some(Ok(read)) => read,
        Some(Err(e)) => return Ok(Err(Failed::Input(e))),
        None => return Err(sink.abandon()),
    };
    if let Some(e) = failed {
        return Ok(Err(Failed::Output(e)));
    }
    if to == Format::Storage && read.doc.kind != crate::NodeType::Doc {
        // Storage format writes a root that is no `doc` as that node (an ADF fragment's): not its blocks.
        return Err(sink.abandon());
    }
    Ok(sink
        .finish(read.doc)
        .map(|out| (out, read.warnings))
        .map_err(Failed::Output))
}

/// Reads `input`, handing `each` runs of root blocks as they become final, with the document's node
/// (its members but `content`, as far as they are known). Returns the document with the blocks not
/// handed on; `None` for an ADF document the streaming reader leaves to the whole reader.
fn read_runs(
    input: &[u8],
    from: Format,
    each: &mut dyn FnMut(&Node, Vec<Node>),
) -> Option<Result<Read, Error>> {
    let shell = Node::doc(Vec::new());
    match from {
        Format::Markdown => {
            Some(utf8(input).map(|text| markdown::read_streaming(text, markdown::WINDOW, each)))
        }
        Format::Storage => Some(
            utf8(input)
                .and_then(|text| storage::read_streaming(text, &mut |blocks| each(&shell, blocks))),
        ),
        Format::Adf => {
            let mut run = Vec::new();
            let root = adf::read_streaming(input, &mut |block| {
                run.push(block);
                if run.len() == RUN {
                    each(&shell, std::mem::take(&mut run));
                }
            });
            match root {
                Ok(Some(doc)) => Some(Ok(Read {
                    doc,
                    warnings: Vec::new(),
                }
                .with_handed(run))),
                Ok(None) => None,
                Err(e) => Some(Err(e)),
            }
        }
        Format::Html => Some(
            utf8(input).map(|text| html::read_streaming(text, &mut |blocks| each(&shell, blocks))),
        ),
    }
}

/// A writer that takes a document's root blocks a run at a time (one per conversion: its size is no
/// matter).
#[allow(clippy::large_enum_variant)]
enum Sink<'a, W: Write> {
    /// The Markdown is kept to the end, where the root's marker goes in front of it, unless it goes out
    /// as it is written (the `bool`: see [`Sink::new`]).
    Markdown(markdown::BlockWriter<'a>, W, bool),
    /// ADF (from another format: ADF to ADF is read whole) is made valid a run at a time.
    Adf(adf::RootRepair, adf::DocWriter<W>),
    /// Storage format is kept to the end too, so that an ADF root found at the end to be no `doc` leaves
    /// nothing written, unless it goes out as it is written (the `bool`).
    Storage(storage::BlockWriter, W, bool),
}

impl<'a, W: Write> Sink<'a, W> {
    fn new(
        from: Format,
        to: Format,
        pretty: bool,
        options: &'a markdown::WriteOptions<'a>,
        out: W,
    ) -> Result<Self, W> {
        // Text goes out as it is written for an input that always reads (Markdown, HTML), and so is never
        // read whole after all, and, for Markdown, a root with no marker to put in front (plain).
        let always_reads = matches!(from, Format::Markdown | Format::Html);
        match to {
            Format::Markdown => Ok(Sink::Markdown(
                markdown::BlockWriter::new(options),
                out,
                always_reads && options.plain,
            )),
            Format::Adf => Ok(Sink::Adf(
                adf::RootRepair::default(),
                adf::DocWriter::new(out, pretty),
            )),
            Format::Storage => Ok(Sink::Storage(
                storage::BlockWriter::default(),
                out,
                always_reads,
            )),
            Format::Html => Err(out),
        }
    }

    /// The writer back, for a document read whole after all: only ADF is, and Markdown and storage format
    /// written from ADF are kept to the end, so nothing has been written to it.
    fn abandon(self) -> W {
        match self {
            Sink::Markdown(_, out, _) | Sink::Storage(_, out, _) => out,
            Sink::Adf(_, writer) => writer.into_inner(),
        }
    }

    fn run(&mut self, doc: &Node, blocks: Vec<Node>) -> io::Result<()> {
        match self {
            Sink::Markdown(writer, out, direct) => {
                blocks.iter().for_each(|block| writer.block(block));
                if *direct {
                    writer.drain_to(out)?;
                }
                Ok(())
            }
            Sink::Adf(repair, writer) => writer.blocks(doc, &repair.run(doc, blocks)),
            Sink::Storage(writer, out, direct) => {
                writer.run(blocks);
                if *direct {
                    writer.drain_to(out)?;
                }
                Ok(())
            }
        }
    }

    /// Writes the rest: `doc` is the document with the blocks not handed on.
    fn finish(self, doc: Node) -> io::Result<W> {
        match self {
            Sink::Markdown(mut writer, mut out, _) => {
                doc.children().iter().for_each(|block| writer.block(block));
                out.write_all(writer.finish(&doc).as_bytes())?;
                out.flush()?;
                Ok(out)
            }
            Sink::Adf(repair, writer) => writer.finish(&repair.finish(doc)),
            Sink::Storage(writer, mut out, _) => {
                out.write_all(writer.finish(doc).as_bytes())?;
                out.flush()?;
                Ok(out)
            }
        }
    }
}
