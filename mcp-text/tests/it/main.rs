//! The integration tests of mcp-text: one binary, a module per subject.

mod markdown_corpus;
mod markdown_failures;
mod markdown_roundtrip;
