//! Rich text as a model reads it: Atlassian ADF, Confluence storage format and HTML to Markdown, and
//! Markdown back to ADF and storage format, with nothing lost on the way.
//!
//! One document model ([`model::Node`], ADF's own shape) stands between a reader per input format and a
//! writer per output format. Markdown carries what it can say as plain Markdown and what it cannot as
//! compact markers, so that ADF → Markdown → ADF gives the same document through the text alone, and a
//! model's edit of one paragraph leaves every other node as it was. `docs/text.md` maps every node.
//!
//! [`fields`] converts the rich-text fields of a JSON value by path rules (the OpenAPI bridge's and the
//! gateway's `richText`), and [`Markdown`] is converted text as a value, a tool's result with the `mcp`
//! feature (`docs/text-mcp.md`).
//!
//! ```
//! use mcp_text::{convert, Format, Options};
//!
//! let adf = br#"{"type":"doc","version":1,"content":[{"type":"paragraph","content":[
//!     {"type":"text","text":"Ship it","marks":[{"type":"strong"}]}]}]}"#;
//! let md = convert(adf, Format::Adf, Format::Markdown, &Options::default()).unwrap();
//! assert_eq!(md.text, "**Ship it**\n");
//! let back = convert(md.text.as_bytes(), Format::Markdown, Format::Adf, &Options::default()).unwrap();
//! assert_eq!(
//!     serde_json::from_str::<serde_json::Value>(&back.text).unwrap(),
//!     serde_json::from_slice::<serde_json::Value>(adf).unwrap(),
//! );
//! ```

pub mod adf;
pub mod date;
pub mod error;
pub mod fields;
pub mod html;
pub mod markdown;
pub mod mention;
pub mod model;
mod result;
mod scan;
pub mod split;
pub mod storage;
mod streaming;

pub use error::{Error, Failed, Warning};
pub use mention::{CachedResolver, MentionResolver};
pub use model::{Mark, MarkType, Node, NodeType};
pub use result::Markdown;

use std::str::FromStr;

/// A format `convert` reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Atlassian Document Format (Jira Cloud, Confluence Cloud): JSON.
    Adf,
    /// Confluence storage format: XHTML with `ac:` and `ri:` elements.
    Storage,
    /// HTML (read only): a web page or fragment.
    Html,
    /// CommonMark with GitHub's extensions, plus the markers of `docs/text.md`.
    Markdown,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "adf" => Ok(Format::Adf),
            "storage" => Ok(Format::Storage),
            "html" => Ok(Format::Html),
            "markdown" | "md" => Ok(Format::Markdown),
            other => Err(format!(
                "unknown format `{other}` (expected adf, storage, html or markdown)"
            )),
        }
    }
}

/// What a conversion may be told.
#[derive(Default)]
pub struct Options<'a> {
    /// Names for mentions that carry only an account id.
    pub mentions: Option<&'a dyn MentionResolver>,
    /// Markdown without markers, to read only (not lossless; [`markdown::WriteOptions::plain`]).
    /// [`convert`] sets it for HTML input.
    pub plain: bool,
    /// Indented ADF (for a person to read; the default is compact).
    pub pretty: bool,
}

/// A conversion's result: the text, and what the reader read leniently.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    pub text: String,
    pub warnings: Vec<Warning>,
}

/// A document read from some format, with what the reader read leniently.
#[derive(Debug)]
pub struct Read {
    pub doc: Node,
    pub warnings: Vec<Warning>,
}

impl Read {
    /// The document of a reader that handed over its first root blocks (`handed`) as it read: those
    /// blocks put back before the rest of its content.
    pub(crate) fn with_handed(mut self, mut handed: Vec<Node>) -> Read {
        if !handed.is_empty() {
            handed.extend(self.doc.content.take().unwrap_or_default());
            self.doc.content = Some(handed);
        }
        self
    }
}

/// Reads `input` in format `from`.
pub fn read(input: &[u8], from: Format) -> Result<Read, Error> {
    match from {
        Format::Adf => Ok(Read {
            doc: adf::read(input)?,
            warnings: Vec::new(),
        }),
        Format::Storage => storage::read(utf8(input)?),
        Format::Html => Ok(html::read(utf8(input)?)),
        Format::Markdown => Ok(markdown::read(utf8(input)?)),
    }
}

/// Writes `doc` in format `to`.
pub fn write(doc: &Node, to: Format, options: &Options) -> Result<String, Error> {
    match to {
        Format::Adf if options.pretty => Ok(adf::write_pretty(doc)),
        Format::Adf => Ok(adf::write(doc)),
        Format::Storage => Ok(storage::write(doc)),
        Format::Markdown => Ok(markdown::write(
            doc,
            &markdown::WriteOptions {
                mentions: options.mentions,
                plain: options.plain,
            },
        )),
        Format::Html => Err(Error::new(
            0,
            0,
            "HTML is an input format only: convert to markdown, adf or storage",
        )),
    }
}

/// Converts `input` from one format to another. The document is read a run of root blocks at a time and
/// each run written at once (every pair but ADF to ADF), so memory holds the text and what is still open,
/// not the document; [`convert_read`] is the whole document read, then written, and gives the same text.
pub fn convert(
    input: &[u8],
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted, Error> {
    let text = |bytes| {
        String::from_utf8(bytes).map_err(|_| Error::new(0, 0, "internal error: output not UTF-8"))
    };
    match streaming::convert(input, from, to, options, Vec::new()) {
        Ok(Ok((bytes, warnings))) => Ok(Converted {
            text: text(bytes)?,
            warnings,
        }),
        Ok(Err(Failed::Input(e))) => Err(e),
        Ok(Err(Failed::Output(e))) => Err(Error::new(0, 0, e.to_string())),
        Err(_) => convert_read(read(input, from)?, from, to, options),
    }
}

/// Converts as [`convert`] does, writing the text to `out` as the input is read: memory holds what is
/// still to be written and what is still open, not the document (every pair but ADF to ADF, which is read
/// whole; HTML holds the page's light tree). ADF goes out block by block; Markdown and storage format go
/// out at the end, or as they are written when the input is Markdown or HTML (which always read once they
/// are UTF-8). So an error late in storage-format input may leave ADF in `out`, never Markdown or
/// storage format. Returns `out` and what the reader read leniently.
pub fn convert_to<W: std::io::Write>(
    input: &[u8],
    from: Format,
    to: Format,
    options: &Options,
    out: W,
) -> Result<(W, Vec<Warning>), Failed> {
    let mut out = match streaming::convert(input, from, to, options, out) {
        Ok(ended) => return ended,
        Err(out) => out,
    };
    let read = read(input, from).map_err(Failed::Input)?;
    let Read { doc, warnings } = prepare(read, from, to);
    let written = if to == Format::Adf {
        // Straight to `out`: no second copy of the output in memory.
        if options.pretty {
            serde_json::to_writer_pretty(&mut out, &doc)
        } else {
            serde_json::to_writer(&mut out, &doc)
        }
        .map_err(std::io::Error::from)
    } else {
        let text = write_prepared(&doc, from, to, options).map_err(Failed::Input)?;
        out.write_all(text.as_bytes())
    };
    written.and_then(|()| out.flush()).map_err(Failed::Output)?;
    Ok((out, warnings))
}

/// The second half of [`convert`], for a caller that has read the document already (and may have
/// dropped its input, as the CLI does).
pub fn convert_read(
    read: Read,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted, Error> {
    let Read { doc, warnings } = prepare(read, from, to);
    Ok(Converted {
        text: write_prepared(&doc, from, to, options)?,
        warnings,
    })
}

/// Writes a document read from `from` and [`prepare`]d for `to`: [`write()`], with the Markdown of HTML
/// input plain. For a caller that keeps the document (the CLI, which ends without freeing it).
pub fn write_prepared(
    doc: &Node,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<String, Error> {
    // HTML is read-only (lossy on purpose): its Markdown is for reading, so it carries no markers.
    let options = Options {
        plain: options.plain || from == Format::Html,
        ..*options
    };
    write(doc, to, &options)
}

/// What a document read from `from` needs before it is written as `to`: ADF written from another format is
/// made valid against ADF's schema ([`adf::repair`]: Markdown, storage and HTML nest blocks where ADF does
/// not); ADF given as ADF is written as it came.
pub fn prepare(read: Read, from: Format, to: Format) -> Read {
    if to == Format::Adf && from != Format::Adf {
        adf::repair(read)
    } else {
        read
    }
}

/// `input` as text, or an error that names where it is not UTF-8.
pub fn utf8(input: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(input).map_err(|e| Error::at(input, e.valid_up_to(), "invalid UTF-8"))
}
