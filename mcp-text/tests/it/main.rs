//! The integration tests of mcp-text: one binary, a module per subject.

mod adf_properties;
mod adf_readers;
mod cli_inputs;
mod cli_split;
mod commonmark_adf;
mod gen;
mod html_cli;
mod html_markdown;
mod html_pieces;
mod html_reader;
mod markdown_corpus;
mod markdown_failures;
mod markdown_roundtrip;
mod markdown_windows;
mod md_to_adf_fixtures;
mod schema;
mod split;
mod storage_bad_input;
mod storage_edits;
mod storage_links;
mod storage_macros;
mod storage_markdown;
mod storage_props;
mod storage_read;
mod storage_stream;
mod streaming;
