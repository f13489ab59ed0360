//! What `#[tool]` writes instead of deriving `Deserialize` and `JsonSchema` on its argument struct, when
//! every argument has a type serde and schemars already know (text, numbers, booleans, and `Option`s and
//! `Vec`s of them): the same schema and the same errors, from code compiled once here rather than a derive
//! expanded, type-checked and compiled per tool. Only the `fn` pointers to `subschema_for::<T>` and
//! `from_str::<T>` are per type, and those a crate's tools share.
//!
//! Both halves follow the derives step by step, so nothing a user or a model sees differs:
//! [`object_schema`] is what `#[derive(JsonSchema)]` writes for a struct (a property per field with its
//! description, then its default, then its `x-mcp-header`; required unless it has a default or is an
//! `Option`), and [`decode_arguments`] reads the object as `#[derive(Deserialize)]` does (members in
//! order, the first bad value or repeated argument failing the call, unknown members ignored, then the
//! missing ones in declaration order).

use crate::framing::error_path;
use crate::server::ArgumentError;
use schemars::{Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::Deserializer as _;
use serde_json::Value;
use std::fmt;

/// One argument of a `#[tool]` function, for its schema.
pub struct ArgumentSchemaSpec {
    /// The argument's name in the protocol.
    pub key: &'static str,
    /// `SchemaGenerator::subschema_for` the argument's type ([`subschema`]).
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Whether the type is an `Option` (schemars' own test, [`is_option`]).
    pub is_option: fn() -> bool,
    /// The argument's description (its doc comment).
    pub description: Option<&'static str>,
    /// The default value, serialized when its type can be (`None` when it has no default).
    pub default: Option<fn() -> Option<Value>>,
    /// The `x-mcp-header` name.
    pub header: Option<&'static str>,
}

/// The schema of `T` as a property: what the derive calls for each field.
pub fn subschema<T: schemars::JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// Whether `T` is an `Option`, as the derive asks it.
pub fn is_option<T: schemars::JsonSchema>() -> bool {
    T::_schemars_private_is_option()
}

/// The object schema of a tool's arguments, as `#[derive(JsonSchema)]` builds it for their struct.
pub fn object_schema(generator: &mut SchemaGenerator, args: &[ArgumentSchemaSpec]) -> Schema {
    let mut schema = Schema::default();
    schema.insert("type".into(), "object".into());
    for a in args {
        let mut sub = (a.schema)(generator);
        if let Some(d) = a.description {
            schemars::_private::insert_metadata_property_if_nonempty(&mut sub, "description", d);
        }
        if let Some(default) = a.default.and_then(|d| d()) {
            sub.insert("default".into(), default);
        }
        if let Some(h) = a.header {
            sub.insert("x-mcp-header".into(), h.into());
        }
        let deserialize = generator.contract().is_deserialize();
        let optional = deserialize && (a.default.is_some() || (a.is_option)());
        schemars::_private::insert_object_property(&mut schema, a.key, optional, sub);
    }
    schema
}

/// Reads a call's arguments (an object's JSON text) member by member: `found(i, value)` is called with
/// the index in `keys` of each member that is an argument, in the order of the text, and the first error
/// (its, or a repeated argument) ends the reading. Unknown members are skipped.
pub fn decode_arguments(
    text: &str,
    keys: &'static [&'static str],
    found: &mut dyn FnMut(usize, &str) -> Result<(), ArgumentError>,
) -> Result<(), ArgumentError> {
    if !text.trim_start().starts_with('{') {
        return Err(ArgumentError {
            path: String::new(),
            reason: "arguments must be a JSON object".into(),
        });
    }
    let mut failed = None;
    let members = Members {
        keys,
        found,
        failed: &mut failed,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de.deserialize_map(members).and_then(|()| de.end());
    match (failed, read) {
        (Some(e), _) => Err(e),
        (None, Ok(())) => Ok(()),
        (None, Err(e)) => Err(argument_error(text, &e, None)),
    }
}

/// One argument's value, from its JSON text: the error names the argument (and the place inside it).
pub fn decode_argument<T: DeserializeOwned>(
    text: &str,
    key: &'static str,
) -> Result<T, ArgumentError> {
    serde_json::from_str(text).map_err(|e| argument_error(text, &e, Some(key)))
}

/// An argument the call did not send: `None` for an `Option`, otherwise "missing field".
pub fn missing_argument<T: DeserializeOwned>(key: &'static str) -> Result<T, ArgumentError> {
    T::deserialize(Missing(key)).map_err(|e| ArgumentError {
        path: String::new(),
        reason: e.to_string(),
    })
}

/// The error as `parse_arguments` reports it: the path of the value at fault, and serde's reason
/// without its position.
fn argument_error(text: &str, e: &serde_json::Error, key: Option<&str>) -> ArgumentError {
    let inner = error_path(text, e);
    let path = match key {
        None => inner,
        Some(k) if inner.is_empty() => k.to_string(),
        Some(k) if inner.starts_with('[') => format!("{k}{inner}"),
        Some(k) => format!("{k}.{inner}"),
    };
    let mut reason = e.to_string();
    // serde_json appends " at line 1 column N", which means nothing to a model.
    if let Some(i) = reason.find(" at line ") {
        reason.truncate(i);
    }
    ArgumentError { path, reason }
}

struct Members<'f, 'g> {
    keys: &'static [&'static str],
    found: &'f mut dyn FnMut(usize, &str) -> Result<(), ArgumentError>,
    failed: &'g mut Option<ArgumentError>,
}

impl<'de> Visitor<'de> for Members<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of arguments")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = vec![false; self.keys.len()];
        while let Some(i) = map.next_key_seed(Key(self.keys))? {
            let Some(i) = i else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[i], true) {
                return Err(de::Error::duplicate_field(self.keys[i]));
            }
            let value: &serde_json::value::RawValue = map.next_value()?;
            if let Err(e) = (self.found)(i, value.get()) {
                *self.failed = Some(e);
                return Err(de::Error::custom("argument at fault"));
            }
        }
        Ok(())
    }
}

/// A member's name: the index of the argument it names, `None` for any other member.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Option<usize>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == v))
    }
}

/// What serde's derive hands an absent field: `None` for an `Option`, "missing field" for the rest.
struct Missing(&'static str);

impl<'de> serde::Deserializer<'de> for Missing {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::tools::parse_arguments;
    use serde::Deserialize;

    /// What the derive reads, the oracle.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Derived {
        query: String,
        #[serde(default = "ten", rename = "max results")]
        limit: u32,
        archived: Option<bool>,
        tags: Vec<Option<u8>>,
    }
    fn ten() -> u32 {
        10
    }

    const KEYS: &[&str] = &["query", "max results", "archived", "tags"];

    fn ours(text: &str) -> Result<Derived, ArgumentError> {
        let (mut query, mut limit, mut archived, mut tags) = (None, None, None, None);
        decode_arguments(text, KEYS, &mut |i, v| {
            match i {
                0 => query = Some(decode_argument(v, "query")?),
                1 => limit = Some(decode_argument(v, "max results")?),
                2 => archived = Some(decode_argument(v, "archived")?),
                _ => tags = Some(decode_argument(v, "tags")?),
            }
            Ok(())
        })?;
        Ok(Derived {
            query: match query {
                Some(v) => v,
                None => missing_argument("query")?,
            },
            limit: limit.unwrap_or_else(ten),
            archived: match archived {
                Some(v) => v,
                None => missing_argument("archived")?,
            },
            tags: match tags {
                Some(v) => v,
                None => missing_argument("tags")?,
            },
        })
    }

    #[test]
    fn arguments_read_as_the_derive_reads_them() {
        let cases = [
            r#"{"query": "x", "tags": []}"#,
            r#"{"query": "x", "max results": 3, "archived": null, "tags": [1, null], "other": {"a": [1]}}"#,
            r#"{"tags": [], "query": 5}"#,
            r#"{"query": "x", "max results": -1, "tags": []}"#,
            r#"{"query": "x", "max results": 4294967296, "tags": []}"#,
            r#"{"tags": []}"#,
            r#"{"query": "x"}"#,
            r#"{}"#,
            r#"{"query": "x", "tags": [1, 2, "three"]}"#,
            r#"{"query": "x", "tags": [1, 256]}"#,
            r#"{"query": "x", "tags": [], "query": "y"}"#,
            r#"{"query": "x", "archived": true, "tags": [], "archived": false}"#,
            r#"{"query": 1, "query": "y", "tags": []}"#,
            r#"{"query": "x", "archived": "yes", "max results": "ten", "tags": []}"#,
            r#"{"qu\u0065ry": "escaped key", "tags": []}"#,
            "{\n  \"query\": \"x\",\n  \"tags\": [\n    1,\n    \"no\"\n  ]\n}",
            r#"{"query": "a\"b:c", "archived": 1, "tags": []}"#,
            r#"[1, 2]"#,
            r#""text""#,
            r#"{"query": "x", "tags": []} trailing"#,
        ];
        for text in cases {
            assert_eq!(ours(text), parse_arguments::<Derived>(text), "for {text}");
        }
    }

    #[test]
    fn the_object_schema_is_the_derives() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Args {
            /// What to look for
            query: String,
            /// Maximum number of results
            #[serde(default = "ten")]
            limit: u32,
            #[schemars(extend("x-mcp-header" = "Archived"))]
            archived: Option<bool>,
            tags: Vec<Option<u8>>,
        }
        struct Ours;
        impl schemars::JsonSchema for Ours {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Args".into()
            }
            fn json_schema(g: &mut SchemaGenerator) -> Schema {
                object_schema(
                    g,
                    &[
                        ArgumentSchemaSpec {
                            key: "query",
                            schema: subschema::<String>,
                            is_option: is_option::<String>,
                            description: Some("What to look for"),
                            default: None,
                            header: None,
                        },
                        ArgumentSchemaSpec {
                            key: "limit",
                            schema: subschema::<u32>,
                            is_option: is_option::<u32>,
                            description: Some("Maximum number of results"),
                            default: Some(|| serde_json::to_value(ten()).ok()),
                            header: None,
                        },
                        ArgumentSchemaSpec {
                            key: "archived",
                            schema: subschema::<Option<bool>>,
                            is_option: is_option::<Option<bool>>,
                            description: None,
                            default: None,
                            header: Some("Archived"),
                        },
                        ArgumentSchemaSpec {
                            key: "tags",
                            schema: subschema::<Vec<Option<u8>>>,
                            is_option: is_option::<Vec<Option<u8>>>,
                            description: Some(""),
                            default: None,
                            header: None,
                        },
                    ],
                )
            }
        }
        for profile in [
            super::super::SchemaProfile::Portable,
            super::super::SchemaProfile::Full,
        ] {
            let theirs = serde_json::to_string(&profile.input_schema::<Args>()).unwrap();
            let ours = serde_json::to_string(&profile.input_schema::<Ours>()).unwrap();
            assert_eq!(ours, theirs);
        }
    }
}
