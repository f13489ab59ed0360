//! Compile tests live in tests/. The Rust examples of the README and of `docs/guide.md` are compiled here
//! as doctests, in a crate that depends on `mcp-runtime`, serde and serde_json only (no schemars), as a
//! user's would.

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;

#[cfg(doctest)]
#[doc = include_str!("../../docs/guide.md")]
pub struct GuideExamples;
