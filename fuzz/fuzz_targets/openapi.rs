//! The OpenAPI mapper: any text as a spec (JSON or YAML) either fails to load with an error or converts
//! into tools whose names are valid MCP tool names, unique, and at most 64 characters. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_codegen::openapi::{convert, ConvertOptions, Document};
use std::collections::HashSet;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(doc) = Document::parse(text, "fuzz") else { return };
    let conversion = convert(&doc, &ConvertOptions::default());
    let mut names = HashSet::new();
    for tool in conversion.tools() {
        let name = &tool.name;
        assert!(!name.is_empty() && name.len() <= 64, "tool name {name:?}");
        assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)), "tool name {name:?}");
        assert!(names.insert(name.clone()), "duplicate tool name {name:?}");
        assert_eq!(tool.input_schema.get("type").and_then(|t| t.as_str()), Some("object"));
    }
});
