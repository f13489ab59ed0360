//! [`Markdown`]: converted text as a value of its own, so that a tool returns it as naturally as a
//! `String` (with the `mcp` feature, a `#[tool]` returning `Markdown` answers with one text block).
//!
//! A newtype rather than a `String` because it says what the text is: built from a document of any
//! format, it is the Markdown of `docs/text.md`, which reads back into the same document.

use std::fmt;

use serde_json::Value;

use crate::{adf, Error, Format, Node, Options, Warning};

/// Markdown converted from a rich-text document (see [`crate::convert`]).
///
#[cfg_attr(
    feature = "mcp",
    doc = r##"
A tool that reads an issue's ADF and returns it as Markdown (feature `mcp`):

```
use mcp_runtime::tool;
use mcp_text::Markdown;

/// Read an issue's description.
#[tool(read_only)]
fn get_description(
    /// Issue key, e.g. PROJ-1
    key: String,
) -> Result<Markdown, mcp_text::Error> {
    let adf = serde_json::json!({"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "content": [{"type": "text", "text": format!("The description of {key}")}]}]});
    Markdown::from_adf(&adf)
}

let server = mcp_runtime::Server::builder().tool(get_description_tool()).build().unwrap();
assert_eq!(server.tools()[0].name, "get_description");
// No output schema: the Markdown is the result's text, not structured content.
assert!(server.tools()[0].output_schema.is_none());
```
"##
)]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Markdown(pub String);

impl Markdown {
    /// The Markdown of an ADF document given as a JSON value.
    pub fn from_adf(adf: &Value) -> Result<Markdown, Error> {
        use serde::Deserialize;
        let doc = Node::deserialize(adf).map_err(|e| Error::new(0, 0, format!("not ADF: {e}")))?;
        Markdown::from_node(&doc, &Options::default())
    }

    /// The Markdown of a Confluence storage format document.
    pub fn from_storage(storage: &str) -> Result<Markdown, Error> {
        Markdown::convert(storage.as_bytes(), Format::Storage, &Options::default())
            .map(|(md, _)| md)
    }

    /// The Markdown of an HTML page or fragment.
    pub fn from_html(html: &str) -> Result<Markdown, Error> {
        Markdown::convert(html.as_bytes(), Format::Html, &Options::default()).map(|(md, _)| md)
    }

    /// The Markdown of a document of the model.
    pub fn from_node(doc: &Node, options: &Options) -> Result<Markdown, Error> {
        crate::write(doc, Format::Markdown, options).map(Markdown)
    }

    /// The Markdown of `input` in any format, with what the reader read leniently.
    pub fn convert(
        input: &[u8],
        from: Format,
        options: &Options,
    ) -> Result<(Markdown, Vec<Warning>), Error> {
        let converted = crate::convert(input, from, Format::Markdown, options)?;
        Ok((Markdown(converted.text), converted.warnings))
    }

    /// The document this Markdown reads back into, as ADF (a JSON value), with the reader's warnings.
    pub fn to_adf(&self) -> Result<(Value, Vec<Warning>), Error> {
        let read = adf::repair(crate::read(self.0.as_bytes(), Format::Markdown)?);
        Ok((adf::to_value(&read.doc), read.warnings))
    }

    /// The document this Markdown reads back into, in Confluence storage format, with the reader's warnings.
    pub fn to_storage(&self) -> Result<(String, Vec<Warning>), Error> {
        let read = crate::read(self.0.as_bytes(), Format::Markdown)?;
        Ok((
            crate::write(&read.doc, Format::Storage, &Options::default())?,
            read.warnings,
        ))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for Markdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::ops::Deref for Markdown {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for Markdown {
    fn from(text: String) -> Markdown {
        Markdown(text)
    }
}

impl From<Markdown> for String {
    fn from(md: Markdown) -> String {
        md.0
    }
}

/// A `#[tool]` that returns `Markdown` (or `Result<Markdown, E>`) answers with one text block, as for
/// `String`; the tool has no output schema.
#[cfg(feature = "mcp")]
impl mcp_runtime::server::IntoContent for Markdown {
    fn into_call_tool_result(self) -> mcp_runtime::protocol::CallToolResult {
        mcp_runtime::protocol::CallToolResult::text(self.0)
    }
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::*;
    use mcp_runtime::server::IntoContent;

    #[test]
    fn markdown_is_one_text_block() {
        let r = Markdown("# Title\n".into()).into_call_tool_result();
        assert_eq!(r.text_content(), "# Title\n");
        assert!(r.structured_content.is_none() && !r.is_error());
    }
}
