//! The codegen's schema normalizer and type generation: any JSON as a tool's input and output schema
//! gives bindings (with warnings for what could not be typed) and never a panic that escapes. typify
//! panics on some schemas by design; `generate` contains them, so the fuzzer's abort-on-panic hook is
//! replaced by a silent one and only a panic that unwinds out of `generate` counts as a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_codegen::{generate, Options};
use mcp_runtime::protocol::Tool;
use serde_json::{Map, Value};
use std::sync::Once;

fuzz_target!(|data: &[u8]| {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    // An object is one tool's input schema; an array holds input schemas (objects) or
    // `[input, output]` pairs for several tools.
    let mut tools = Vec::new();
    let mut push = |input: Map<String, Value>, output: Option<Map<String, Value>>| {
        let mut t = Tool::new(format!("tool-{}", tools.len()), "fuzzed", input);
        t.output_schema = output;
        tools.push(t);
    };
    match value {
        Value::Object(o) => push(o, None),
        Value::Array(items) => {
            for item in items.into_iter().take(16) {
                match item {
                    Value::Object(o) => push(o, None),
                    Value::Array(pair) => {
                        let mut it = pair.into_iter();
                        if let Some(Value::Object(i)) = it.next() {
                            push(i, it.next().and_then(|o| o.as_object().cloned()));
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => return,
    }
    let out = generate(&tools, &Options::default());
    assert!(out.code.contains("pub struct Client"), "the client type is always generated");
});
