//! A tool call's arguments: raw JSON until the handler asks for its type, and the error that names the
//! argument at fault. Below `tools.rs` and `raw_tool.rs`, which both hand them to handlers.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::sync::Arc;

/// The arguments of one `tools/call`, still raw JSON (cheap to clone).
#[derive(Debug, Clone, Default)]
pub struct Arguments {
    raw: Option<Arc<str>>,
}

/// Why arguments could not be decoded: the argument at fault (its JSON path) and what was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentError {
    /// The path of the argument at fault, e.g. `max_results` or `filter.labels[2]`; empty for the whole object.
    pub path: String,
    /// What was wrong with it (serde's message: a missing field, a wrong type...).
    pub reason: String,
}

impl std::fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for ArgumentError {}

impl ArgumentError {
    /// The message the model sees: `Invalid argument `path`: reason` (or `Invalid arguments: reason`).
    pub fn message(&self) -> String {
        if self.path.is_empty() {
            format!("Invalid arguments: {}", self.reason)
        } else {
            format!("Invalid argument `{}`: {}", self.path, self.reason)
        }
    }
}

impl Arguments {
    /// Arguments from the raw JSON of `params.arguments` (`None`: the call had none, read as `{}`).
    pub fn from_raw(raw: Option<Box<RawValue>>) -> Self {
        Arguments {
            raw: raw.map(|r| Arc::from(r.get())),
        }
    }

    /// Arguments borrowed from a request (their JSON text, `None` when absent), copied once.
    pub(crate) fn from_borrowed(raw: Option<&str>) -> Self {
        Arguments {
            raw: raw.map(Arc::from),
        }
    }

    /// Arguments from a JSON value (tests, in-process calls).
    pub fn from_value(v: serde_json::Value) -> Self {
        Arguments {
            raw: Some(Arc::from(v.to_string())),
        }
    }

    /// The raw JSON text (`{}` when the call had no arguments).
    pub fn as_str(&self) -> &str {
        self.raw.as_deref().unwrap_or("{}")
    }

    /// Decodes the arguments into `T`, naming the argument at fault on failure.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ArgumentError> {
        parse_arguments(self.as_str())
    }
}

/// Decodes a call's arguments (JSON text of an object) into `T`, naming the argument at fault on failure.
pub(crate) fn parse_arguments<T: DeserializeOwned>(text: &str) -> Result<T, ArgumentError> {
    if !text.trim_start().starts_with('{') {
        return Err(ArgumentError {
            path: String::new(),
            reason: "arguments must be a JSON object".into(),
        });
    }
    // One parse with serde_json (one instantiation of `T`'s `Deserialize` in the user's crate); the
    // argument at fault is found from where the error points.
    serde_json::from_str(text).map_err(|e| {
        let path = crate::framing::error_path(text, &e);
        let mut reason = e.to_string();
        // serde_json appends " at line 1 column N", which means nothing to a model.
        if let Some(i) = reason.find(" at line ") {
            reason.truncate(i);
        }
        ArgumentError { path, reason }
    })
}
