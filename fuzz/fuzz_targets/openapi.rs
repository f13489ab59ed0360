//! The OpenAPI mapper (`mcp-openapi`): any text as a spec (JSON or YAML) either fails to load with an error or
//! converts into tools whose names are valid MCP tool names, unique, and at most 64 characters, with schemas
//! within the budget. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_openapi::prompt::json_len;
use mcp_openapi::{convert, Budget, ConvertOptions, Document};
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
        let input = serde_json::Value::Object(tool.input_schema.clone());
        assert!(json_len(&input) <= Budget::DEFAULT.input, "input schema over the budget: {input}");
        if let Some(output) = &tool.output_schema {
            let output = serde_json::Value::Object(output.clone());
            assert!(json_len(&output) <= Budget::DEFAULT.output, "output schema over the budget: {output}");
        }
    }
});
