//! `x-mcp-header` (2026-07-28): tool arguments that a Streamable HTTP client mirrors into
//! `Mcp-Param-{Name}` headers, so that load balancers and gateways can route on them without reading
//! the body. The server declares them in a tool's `inputSchema`; both sides check the annotations
//! against the spec's constraints (a tool with an invalid one is refused by the server at registration
//! and left out of `tools/list` by the client), and read the values at the annotated property paths.

use crate::protocol::JsonObject;
use serde_json::Value;

/// The keyword that marks a property as mirrored into a header.
pub const KEYWORD: &str = "x-mcp-header";

/// Integers outside JavaScript's safe range cannot be mirrored.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The JSON type of a mirrored argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderParamType {
    /// A JSON string, sent as is (or base64-encoded when it is not a plain header value).
    String,
    /// A JSON integer within JavaScript's safe range, sent in decimal.
    Integer,
    /// A JSON boolean, sent as `true` or `false`.
    Boolean,
}

/// One argument mirrored into a header: `Mcp-Param-{name}` carries the value at `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The `{Name}` part of the header, as the schema spells it.
    pub name: String,
    /// The chain of `properties` keys from the schema root to the argument.
    pub path: Vec<String>,
    /// The argument's JSON type, from its schema.
    pub kind: HeaderParamType,
}

impl HeaderParam {
    /// The full header name, `Mcp-Param-{name}`.
    pub fn header_name(&self) -> String {
        format!("Mcp-Param-{}", self.name)
    }

    /// The header's text for these call arguments: `None` when the argument is absent or `null` (the
    /// header must then be omitted); an error when the value does not have the declared type.
    pub fn text(&self, arguments: Option<&Value>) -> Result<Option<String>, String> {
        let mut v = match arguments {
            Some(v) => v,
            None => return Ok(None),
        };
        for key in &self.path {
            match v.get(key) {
                Some(next) => v = next,
                None => return Ok(None),
            }
        }
        let at = || format!("argument `{}`", self.path.join("."));
        match (self.kind, v) {
            (_, Value::Null) => Ok(None),
            (HeaderParamType::String, Value::String(s)) => Ok(Some(s.clone())),
            (HeaderParamType::Boolean, Value::Bool(b)) => Ok(Some(b.to_string())),
            (HeaderParamType::Integer, Value::Number(n)) => match n.as_i64() {
                Some(i) if i.abs() <= MAX_SAFE_INTEGER => Ok(Some(i.to_string())),
                _ => match n.as_f64() {
                    Some(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => {
                        Ok(Some((f as i64).to_string()))
                    }
                    _ => Err(format!(
                        "{} must be an integer within ±(2^53-1) to be mirrored into {}",
                        at(),
                        self.header_name()
                    )),
                },
            },
            (kind, _) => Err(format!(
                "{} must be a {} (it is mirrored into {})",
                at(),
                match kind {
                    HeaderParamType::String => "string",
                    HeaderParamType::Integer => "integer",
                    HeaderParamType::Boolean => "boolean",
                },
                self.header_name()
            )),
        }
    }

    /// Whether a header's (decoded) text stands for the same value as `expected` (what [`Self::text`]
    /// gave for the body): integers compare numerically (`42.0` is `42`), the rest exactly.
    pub fn same_value(&self, header: &str, expected: &str) -> bool {
        match self.kind {
            HeaderParamType::Integer => {
                match (header.trim().parse::<f64>(), expected.parse::<f64>()) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => false,
                }
            }
            _ => header == expected,
        }
    }
}

/// Every `x-mcp-header` annotation of an input schema, checked against the
/// constraints of the spec: a non-empty HTTP token, case-insensitively unique, on a string, integer or
/// boolean property (never `number`), reachable from the root through `properties` keys alone (not
/// through `items`, composition, conditionals or `$ref`).
pub fn header_params(input_schema: &JsonObject) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk(input_schema, Some(&mut Vec::new()), &mut found)?;
    let mut seen: Vec<String> = Vec::with_capacity(found.len());
    for p in &found {
        let lower = p.name.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!(
                "`{KEYWORD}` value {:?} is used twice (header names are case-insensitive)",
                p.name
            ));
        }
        seen.push(lower);
    }
    Ok(found)
}

/// Keywords whose value is a map of names to subschemas.
const SCHEMA_MAPS: [&str; 4] = [
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one subschema (or, for `items` before 2020-12, an array of them).
const SCHEMA_ONE: [&str; 11] = [
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Visits a schema. `path` is `Some` while the schema is reachable from the root through `properties`.
fn walk(
    schema: &JsonObject,
    path: Option<&mut Vec<String>>,
    found: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    if let Some(v) = schema.get(KEYWORD) {
        let Some(p) = &path else {
            return Err(format!(
                "`{KEYWORD}` may only annotate a property reached from the root through `properties` \
                 (not inside items, anyOf/oneOf/allOf/not, if/then/else or $defs)"
            ));
        };
        if p.is_empty() {
            return Err(format!("`{KEYWORD}` cannot annotate the schema root"));
        }
        let name = v
            .as_str()
            .ok_or_else(|| format!("`{KEYWORD}` of `{}` must be a string", p.join(".")))?;
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return Err(format!(
                "`{KEYWORD}` value {name:?} of `{}` is not an HTTP field-name token",
                p.join(".")
            ));
        }
        let kind = primitive_type(schema).ok_or_else(|| {
            format!(
                "`{KEYWORD}` {name:?} annotates `{}`, which is not a string, integer or boolean \
                 (numbers and composite types cannot be mirrored)",
                p.join(".")
            )
        })?;
        found.push(HeaderParam {
            name: name.to_string(),
            path: p.to_vec(),
            kind,
        });
    }
    if let Some(Value::Object(props)) = schema.get("properties") {
        let mut path = path;
        for (key, sub) in props {
            if let Value::Object(sub) = sub {
                match path.as_deref_mut() {
                    Some(p) => {
                        p.push(key.clone());
                        let r = walk(sub, Some(p), found);
                        p.pop();
                        r?;
                    }
                    None => walk(sub, None, found)?,
                }
            }
        }
    }
    for k in SCHEMA_MAPS {
        if let Some(Value::Object(m)) = schema.get(k) {
            for sub in m.values().filter_map(Value::as_object) {
                walk(sub, None, found)?;
            }
        }
    }
    for k in SCHEMA_ONE {
        match schema.get(k) {
            Some(Value::Object(sub)) => walk(sub, None, found)?,
            Some(Value::Array(subs)) => {
                for sub in subs.iter().filter_map(Value::as_object) {
                    walk(sub, None, found)?;
                }
            }
            _ => {}
        }
    }
    for k in SCHEMA_LISTS {
        if let Some(Value::Array(subs)) = schema.get(k) {
            for sub in subs.iter().filter_map(Value::as_object) {
                walk(sub, None, found)?;
            }
        }
    }
    Ok(())
}

/// `string`, `integer` or `boolean`, possibly beside `"null"` in a type array.
fn primitive_type(schema: &JsonObject) -> Option<HeaderParamType> {
    let one = |t: &str| match t {
        "string" => Some(HeaderParamType::String),
        "integer" => Some(HeaderParamType::Integer),
        "boolean" => Some(HeaderParamType::Boolean),
        _ => None,
    };
    match schema.get("type")? {
        Value::String(t) => one(t),
        Value::Array(ts) => {
            let mut kinds = ts.iter().filter_map(Value::as_str).filter(|t| *t != "null");
            let k = one(kinds.next()?)?;
            kinds.next().is_none().then_some(k)
        }
        _ => None,
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Value) -> Result<Vec<HeaderParam>, String> {
        header_params(v.as_object().unwrap())
    }

    #[test]
    fn finds_annotations_on_nested_properties() {
        let p = params(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}}
        }}))
        .unwrap();
        assert_eq!(p.len(), 2);
        let region = p.iter().find(|h| h.name == "Region").unwrap();
        let dry = p.iter().find(|h| h.name == "Dry-Run").unwrap();
        assert_eq!(region.path, vec!["region"]);
        assert_eq!(dry.path, vec!["opts", "dry"]);
        assert_eq!(dry.header_name(), "Mcp-Param-Dry-Run");
        let args = json!({"region": "us-west1", "opts": {"dry": true}});
        assert_eq!(
            region.text(Some(&args)).unwrap().as_deref(),
            Some("us-west1")
        );
        assert_eq!(dry.text(Some(&args)).unwrap().as_deref(), Some("true"));
        assert_eq!(region.text(Some(&json!({"region": null}))).unwrap(), None);
        assert_eq!(region.text(None).unwrap(), None);
    }

    #[test]
    fn refuses_what_the_spec_forbids() {
        for (schema, why) in [
            (
                json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                "not a string, integer",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                "token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                "token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}),
                "twice",
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "only annotate",
            ),
            (
                json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                "only annotate",
            ),
            (
                json!({"$defs": {"A": {"type": "string", "x-mcp-header": "A"}}, "properties": {"a": {"$ref": "#/$defs/A"}}}),
                "only annotate",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": 5}}}),
                "must be a string",
            ),
        ] {
            let e = params(schema.clone()).unwrap_err();
            assert!(e.contains(why), "{schema}: {e}");
        }
    }

    #[test]
    fn a_property_named_like_the_keyword_is_not_an_annotation() {
        let p = params(json!({"properties": {"x-mcp-header": {"type": "object"}}})).unwrap();
        assert!(p.is_empty());
    }

    #[test]
    fn integers_compare_numerically_and_types_are_checked() {
        let p = &params(json!({"properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}))
            .unwrap()[0];
        assert_eq!(
            p.text(Some(&json!({"n": 42}))).unwrap().as_deref(),
            Some("42")
        );
        assert!(p.same_value("42.0", "42"));
        assert!(!p.same_value("43", "42"));
        assert!(p.text(Some(&json!({"n": "42"}))).is_err());
        assert!(p.text(Some(&json!({"n": 9007199254740993_i64}))).is_err());
    }
}
