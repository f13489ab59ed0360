//! Reading a spec: JSON or YAML into one JSON tree, and which OpenAPI version it is.

use serde_json::{Map, Value};
use std::path::Path;

/// The OpenAPI versions whose schemas differ in ways the conversion cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// 3.0.x: schemas are an extended subset of draft-04 (`nullable`, boolean `exclusiveMinimum`).
    V3_0,
    /// 3.1.x: schemas are JSON Schema 2020-12.
    V3_1,
}

/// A parsed spec.
#[derive(Debug, Clone)]
pub struct Document {
    /// Which dialect its schemas are written in (3.0 or 3.1).
    pub version: Version,
    /// The `openapi` field as written (`3.0.3`).
    pub openapi: String,
    /// The whole document as JSON (YAML converted, merge keys applied).
    pub root: Value,
}

/// Specs larger than this are refused: the largest public spec we know (Microsoft Graph beta, 22,361
/// operations) is 47 MB of JSON; a file of hundreds of megabytes is not a spec a tool list can come from.
pub const MAX_SPEC_BYTES: u64 = 128 << 20;

/// A spec that could not be read at all. Anything smaller is a warning, not an error.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("could not read {path}: {source}")]
    Io {
        /// The file's path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file (its path and size in bytes) is larger than [`MAX_SPEC_BYTES`].
    #[error("{0} is {1} bytes; specs over {MAX_SPEC_BYTES} bytes are refused")]
    TooLarge(String, u64),
    /// The text (named first) parses neither as JSON nor as YAML; the parser's message.
    #[error("{0} is neither JSON nor YAML: {1}")]
    Syntax(String, String),
    /// The document (named first) is JSON or YAML but not OpenAPI 3.0 or 3.1 (a Swagger 2.0 file, no
    /// `openapi` field...); the reason.
    #[error("{0} is not an OpenAPI 3.0 or 3.1 document: {1}")]
    NotOpenApi(String, String),
}

impl Document {
    /// Reads a spec from a file, JSON or YAML. Fails on an unreadable file, a file over [`MAX_SPEC_BYTES`],
    /// bad syntax, or a document that is not OpenAPI 3.0/3.1.
    pub fn load(path: &Path) -> Result<Self, LoadError> {
        let io = |source| LoadError::Io {
            path: path.display().to_string(),
            source,
        };
        let size = std::fs::metadata(path).map_err(io)?.len();
        if size > MAX_SPEC_BYTES {
            return Err(LoadError::TooLarge(path.display().to_string(), size));
        }
        let text = std::fs::read_to_string(path).map_err(io)?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses JSON or YAML text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, LoadError> {
        let root = if text.trim_start().starts_with('{') {
            serde_json::from_str(text)
                .map_err(|e| LoadError::Syntax(origin.into(), e.to_string()))?
        } else {
            // yaml_serde bounds alias expansion (a "billion laughs" file is an error, not an allocation).
            let mut yaml: yaml_serde::Value = yaml_serde::from_str(text)
                .map_err(|e| LoadError::Syntax(origin.into(), e.to_string()))?;
            yaml.apply_merge()
                .map_err(|e| LoadError::Syntax(origin.into(), e.to_string()))?;
            yaml_to_json(yaml)
        };
        Self::from_value(root, origin)
    }

    /// A spec from an already parsed JSON tree; `origin` names it in errors. Fails unless it is an object
    /// with an `openapi` field of 3.0.x or 3.1.x.
    pub fn from_value(root: Value, origin: &str) -> Result<Self, LoadError> {
        let not = |why: &str| LoadError::NotOpenApi(origin.into(), why.into());
        let Some(o) = root.as_object() else {
            return Err(not("the document is not an object"));
        };
        let openapi = match o.get("openapi") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None if o.contains_key("swagger") => {
                return Err(not("Swagger 2.0 is not supported; convert it to 3.x"))
            }
            None => return Err(not("it has no `openapi` field")),
        };
        let version = if openapi.starts_with("3.0") {
            Version::V3_0
        } else if openapi.starts_with("3.1") || openapi.starts_with("3.2") {
            Version::V3_1
        } else {
            return Err(not(&format!("version {openapi} is not 3.0 or 3.1")));
        };
        if !o.get("paths").is_none_or(Value::is_object) {
            return Err(not("`paths` is not an object"));
        }
        Ok(Document {
            version,
            openapi,
            root,
        })
    }

    /// `info.title`, or `openapi` when there is none.
    pub fn title(&self) -> String {
        self.root
            .pointer("/info/title")
            .and_then(Value::as_str)
            .unwrap_or("openapi")
            .to_string()
    }

    /// `info.version`, or `0.0.0`.
    pub fn api_version(&self) -> String {
        match self.root.pointer("/info/version") {
            Some(Value::String(s)) => s.clone(),
            Some(v @ Value::Number(_)) => v.to_string(),
            _ => "0.0.0".into(),
        }
    }

    /// The first server's URL with its variables at their defaults, when it is absolute.
    pub fn server_url(&self) -> Option<String> {
        let server = self.root.pointer("/servers/0")?;
        let mut url = server.get("url")?.as_str()?.to_string();
        if let Some(Value::Object(vars)) = server.get("variables") {
            for (name, var) in vars {
                if let Some(default) = var.get("default").and_then(Value::as_str) {
                    url = url.replace(&format!("{{{name}}}"), default);
                }
            }
        }
        (url.starts_with("http://") || url.starts_with("https://")).then_some(url)
    }
}

/// YAML keys may be numbers (`200:` under `responses`) or booleans; JSON keys are their text.
fn yaml_to_json(value: yaml_serde::Value) -> Value {
    use yaml_serde::Value as Y;
    match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Value::Null, Value::Number)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let key = match k {
                    Y::String(s) => s,
                    Y::Number(n) => n.to_string(),
                    Y::Bool(b) => b.to_string(),
                    Y::Null => "null".into(),
                    other => yaml_serde::to_string(&other)
                        .unwrap_or_default()
                        .trim()
                        .to_string(),
                };
                out.insert(key, yaml_to_json(v));
            }
            Value::Object(out)
        }
        Y::Tagged(t) => yaml_to_json(t.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_status_codes_become_string_keys() {
        let doc = Document::parse(
            "openapi: 3.0.3\ninfo: {title: t, version: 1}\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n",
            "t.yaml",
        )
        .unwrap();
        assert_eq!(doc.version, Version::V3_0);
        assert!(doc.root.pointer("/paths/~1a/get/responses/200").is_some());
        assert_eq!(doc.api_version(), "1");
    }

    #[test]
    fn an_alias_bomb_is_an_error_not_an_allocation() {
        let mut text = String::from("openapi: 3.0.0\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        let mut previous = 'a';
        for c in 'b'..='j' {
            let refs = vec![format!("*{previous}"); 9].join(",");
            text.push_str(&format!("{c}: &{c} [{refs}]\n"));
            previous = c;
        }
        let err = Document::parse(&text, "bomb.yaml").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("bomb.yaml is neither JSON nor YAML"),
            "{err}"
        );
    }

    #[test]
    fn swagger_2_is_refused_with_a_reason() {
        let err = Document::parse(r#"{"swagger": "2.0", "paths": {}}"#, "s.json").unwrap_err();
        assert!(err.to_string().contains("Swagger 2.0"), "{err}");
    }
}
