//! A `tools/call` result kept as the JSON text it arrived in: what a relay (a gateway) passes from the
//! server that ran the tool to its own caller, without building a [`CallToolResult`] and serializing it
//! again.

use super::meta::keys;
use super::CallToolResult;
use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

/// A `tools/call` result whose parts stay JSON text. Only the fields of a [`CallToolResult`] are kept
/// (what a 2026-07-28 server adds beside them, `resultType` and caching hints, belongs to its own hop and
/// is left out, and so does the answering server's identity in `_meta`, `io.modelcontextprotocol/serverInfo`:
/// a relay's own server writes its own); `content` must be an array and `_meta` an object, as in
/// [`CallToolResult`], but the content blocks inside are passed on unchecked. `null` reads as absent, as
/// it does there, and so does a `_meta` left empty.
///
/// A server serves it like a [`CallToolResult`] (see `ToolRoute::raw`); the client returns one from
/// `Client::call_tool_raw`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawCallToolResult {
    #[serde(deserialize_with = "array")]
    content: Box<RawValue>,
    #[serde(
        default,
        deserialize_with = "non_null",
        skip_serializing_if = "Option::is_none"
    )]
    structured_content: Option<Box<RawValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "object",
        skip_serializing_if = "Option::is_none"
    )]
    meta: Option<Box<RawValue>>,
}

fn array<'de, D: Deserializer<'de>>(d: D) -> Result<Box<RawValue>, D::Error> {
    let raw = Box::<RawValue>::deserialize(d)?;
    if raw.get().starts_with('[') {
        Ok(raw)
    } else {
        Err(D::Error::custom(format!(
            "invalid type: {}, expected a sequence",
            kind(&raw)
        )))
    }
}

fn non_null<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    let raw = Box::<RawValue>::deserialize(d)?;
    Ok((raw.get() != "null").then_some(raw))
}

/// A result's `_meta`: an object, read without the keys of the hop that carried it (the answering
/// server's identity, skipped unread); `None` when nothing else is left. The usual `_meta` of a 2026
/// result, only that identity, costs no copy.
fn object<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    struct Own(Option<Box<RawValue>>);
    impl<'de> Deserialize<'de> for Own {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(OwnVisitor)
        }
    }
    struct OwnVisitor;
    impl<'de> Visitor<'de> for OwnVisitor {
        type Value = Own;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Own, A::Error> {
            let mut kept = Kept(Vec::new());
            while let Some(key) = m.next_key::<Key>()? {
                match key {
                    Key::Hop => drop(m.next_value::<IgnoredAny>()?),
                    Key::Own(k) => kept.0.push((k, m.next_value()?)),
                }
            }
            if kept.0.is_empty() {
                return Ok(Own(None));
            }
            serde_json::value::to_raw_value(&kept)
                .map(|raw| Own(Some(raw)))
                .map_err(A::Error::custom)
        }
    }
    /// A key of `_meta`: the hop's, or one of the result's own (copied).
    enum Key {
        Hop,
        Own(String),
    }
    impl<'de> Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Key;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a string")
                }
                fn visit_str<E>(self, k: &str) -> Result<Key, E> {
                    Ok(match k {
                        keys::SERVER_INFO => Key::Hop,
                        k => Key::Own(k.to_string()),
                    })
                }
            }
            d.deserialize_str(V)
        }
    }
    struct Kept(Vec<(String, Box<RawValue>)>);
    impl Serialize for Kept {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }
    Ok(Option::<Own>::deserialize(d)?.and_then(|own| own.0))
}

/// What a JSON value is, for an error message (its first byte tells).
fn kind(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'{') => "map",
        Some(b'[') => "sequence",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

impl RawCallToolResult {
    /// Reads a result from its JSON text (the fields are copied; nothing else is built).
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Reads a result from JSON that is known to be valid (a response's result as the connection
    /// decoded it): the members are found a string at a time, without parsing the text again, and only
    /// `content` and `structuredContent` are checked once more as they are copied. Anything unusual (a
    /// key written with an escape, a duplicate key, a `_meta` with members of its own, a member of the
    /// wrong type) is read by [`RawCallToolResult::from_json`], which says what is wrong.
    pub fn from_raw(raw: &RawValue) -> Result<Self, serde_json::Error> {
        Self::scan(raw.get()).unwrap_or_else(|| Self::from_json(raw.get()))
    }

    /// [`RawCallToolResult::from_raw`]'s quick reading; `None` where serde must read it.
    fn scan(text: &str) -> Option<Result<Self, serde_json::Error>> {
        let (mut content, mut structured, mut is_error, mut meta) = (None, None, None, None);
        let mut usual = true;
        crate::framing::each_member(text, |key, value| {
            let slot = match key {
                "\"content\"" => &mut content,
                "\"structuredContent\"" => &mut structured,
                "\"isError\"" => &mut is_error,
                "\"_meta\"" => &mut meta,
                k => {
                    usual = !k.contains('\\');
                    return usual;
                }
            };
            usual = slot.replace(value).is_none();
            usual
        })?;
        if !usual {
            return None;
        }
        let content = content.filter(|c| c.starts_with('['))?;
        let is_error = match is_error {
            None | Some("null") => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(_) => return None,
        };
        // Only the answering server's identity (or nothing): it belongs to the hop, and is left out.
        if let Some(m) = meta.filter(|m| *m != "null") {
            let mut only_hop = true;
            crate::framing::each_member(m, |key, _| {
                only_hop = key.strip_prefix('"').and_then(|k| k.strip_suffix('"'))
                    == Some(keys::SERVER_INFO);
                only_hop
            })?;
            if !only_hop {
                return None;
            }
        }
        // A slice of a value that was validated as it was decoded: copied without a second parse.
        let copy = crate::framing::raw_verbatim;
        Some((|| {
            Ok(RawCallToolResult {
                content: copy(content)?,
                structured_content: match structured {
                    None | Some("null") => None,
                    Some(s) => Some(copy(s)?),
                },
                is_error,
                meta: None,
            })
        })())
    }

    /// The result of a typed [`CallToolResult`].
    pub fn from_result(r: &CallToolResult) -> Result<Self, serde_json::Error> {
        let text = serde_json::to_string(r)?;
        Self::from_json(&text)
    }

    /// The typed result (every content block decoded and checked).
    pub fn to_result(&self) -> Result<CallToolResult, serde_json::Error> {
        serde_json::from_str(&serde_json::to_string(self)?)
    }

    /// Whether the tool failed (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// `content`, as JSON text (an array).
    pub fn content(&self) -> &RawValue {
        &self.content
    }

    /// `structuredContent`, as JSON text; `None` when absent.
    pub fn structured_content(&self) -> Option<&RawValue> {
        self.structured_content.as_deref()
    }

    /// `_meta`, as JSON text (an object); `None` when absent.
    pub fn meta(&self) -> Option<&RawValue> {
        self.meta.as_deref()
    }

    /// Takes `_meta` out (a server stamps its own fields beside it).
    pub fn take_meta(&mut self) -> Option<Box<RawValue>> {
        self.meta.take()
    }

    /// Whether `needle` occurs in the JSON text of any part (as it is written there: escaped).
    pub fn text_contains(&self, needle: &str) -> bool {
        self.content.get().contains(needle)
            || self
                .structured_content
                .as_ref()
                .is_some_and(|s| s.get().contains(needle))
            || self.meta.as_ref().is_some_and(|m| m.get().contains(needle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_the_result_fields_as_text_and_drops_the_hops_own() {
        let text = r#"{"resultType":"complete","ttlMs":5,"content":[{"type":"text","text":"hi"}],
            "structuredContent":{"a":1},"isError":false,"_meta":{"x":1}}"#;
        let r = RawCallToolResult::from_json(text).unwrap();
        assert_eq!(r.content().get(), r#"[{"type":"text","text":"hi"}]"#);
        assert!(!r.is_error());
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"a": 1},
                "isError": false, "_meta": {"x": 1}})
        );
        let typed = r.to_result().unwrap();
        assert_eq!(typed.text_content(), "hi");
        let back = RawCallToolResult::from_result(&typed).unwrap();
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(&r).unwrap()
        );
    }

    #[test]
    fn null_is_absent_and_wrong_shapes_are_refused() {
        let r = RawCallToolResult::from_json(
            r#"{"content":[],"structuredContent":null,"_meta":null,"isError":true}"#,
        )
        .unwrap();
        assert!(r.is_error());
        assert!(r.structured_content().is_none() && r.meta().is_none());
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"content":[],"isError":true}"#
        );
        // The answering server's identity belongs to its hop; the rest of `_meta` stays as it was.
        let upstream = |meta: &str| {
            let text = format!(r#"{{"content":[],"_meta":{meta}}}"#);
            let r = RawCallToolResult::from_json(&text).unwrap();
            r.meta().map(|m| m.get().to_string())
        };
        let info = r#""io.modelcontextprotocol/serverInfo":{"name":"up","version":"1"}"#;
        assert_eq!(upstream(&format!("{{{info}}}")), None);
        assert_eq!(
            upstream(&format!(r#"{{"a": [1, 2],{info}, "b":{{"c":null}}}}"#)).as_deref(),
            Some(r#"{"a":[1, 2],"b":{"c":null}}"#)
        );
        assert_eq!(upstream("{}"), None);
        let escaped = r#"{"io.modelcontextprotocol/server\u0049nfo":{"name":"up"},"x":1}"#;
        assert_eq!(upstream(escaped).as_deref(), Some(r#"{"x":1}"#));
        assert_eq!(
            upstream(r#"{"com.example/serverInfo":1}"#).as_deref(),
            Some(r#"{"com.example/serverInfo":1}"#)
        );
        for bad in [
            r#"{}"#,
            r#"{"content":{}}"#,
            r#"{"content":[],"_meta":[1]}"#,
            r#"{"content":[],"isError":"yes"}"#,
            r#"[]"#,
        ] {
            assert!(RawCallToolResult::from_json(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_validated_result_reads_as_serde_reads_it() {
        let info = r#""io.modelcontextprotocol/serverInfo":{"name":"up","version":"1"}"#;
        let cases = [
            r#"{"content":[{"type":"text","text":"a\"}, ]"}]}"#.to_string(),
            format!(
                r#"{{"resultType":"complete","_meta":{{{info}}},"content":[],"isError":false}}"#
            ),
            r#"{"content":[],"structuredContent":{"k":[1,{"x":"}"}]},"isError":null}"#.into(),
            r#"{"content":[],"structuredContent":null,"_meta":null,"isError":true}"#.into(),
            r#"{"content":[],"_meta":{}}"#.into(),
            // Read by serde: `_meta` has members of its own, a key has an escape, ...
            format!(r#"{{ "content" : [ ] , "_meta" : {{ "a" : 1 , {info} }} }}"#),
            r#"{"\u0063ontent":[1],"content":[]}"#.into(),
            // Refused, by both.
            r#"{"content":[],"content":[]}"#.into(),
            r#"{"content":[],"isError":1}"#.into(),
            r#"{"content":{}}"#.into(),
            r#"{"content":[],"_meta":"x"}"#.into(),
            r#"{}"#.into(),
            r#"[]"#.into(),
            r#""content""#.into(),
        ];
        for (i, text) in cases.iter().enumerate() {
            // The first five are read by the quick path; the rest fall back to serde.
            assert_eq!(RawCallToolResult::scan(text).is_some(), i < 5, "{text}");
            let raw: &RawValue = serde_json::from_str(text).unwrap();
            let quick =
                RawCallToolResult::from_raw(raw).map(|r| serde_json::to_string(&r).unwrap());
            let serde =
                RawCallToolResult::from_json(text).map(|r| serde_json::to_string(&r).unwrap());
            assert_eq!(
                quick.map_err(|e| e.to_string()),
                serde.map_err(|e| e.to_string()),
                "{text}"
            );
        }
    }
}
