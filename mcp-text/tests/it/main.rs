//! The integration tests of mcp-text: one binary, one module per subject.

mod html_cli;
mod html_reader;
// The HTML → Markdown snapshots need the Markdown writer: enable once `src/markdown/` is merged.
// mod html_markdown;
