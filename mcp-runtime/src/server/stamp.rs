//! What every 2026-07-28 result carries besides its own fields: `resultType`, the server's identity in
//! `_meta` (`io.modelcontextprotocol/serverInfo`), and on cacheable results `ttlMs` and `cacheScope`.
//! Written in the same pass that serializes the result, so a large result is not copied again.

use crate::framing::to_raw;
use crate::protocol::meta::keys;
use crate::protocol::{CacheHints, ErrorObject, JsonObject, ResultType};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The fields a 2026-07-28 result gets.
pub(crate) struct Stamp<'a> {
    pub result_type: ResultType,
    pub cache: Option<CacheHints>,
    /// The serialized `Implementation` of the server, or `None` when the server is configured not to say.
    pub server_info: Option<&'a RawValue>,
}

struct Meta<'a> {
    server_info: Option<&'a RawValue>,
    own: Own<'a>,
}

/// The result's own `_meta`: typed, or the entries of its JSON text (a raw result's).
enum Own<'a> {
    Typed(Option<JsonObject>),
    Raw(Vec<(Cow<'a, str>, &'a RawValue)>),
}

/// The answering server's identity is this server's to say (a relayed result's names its upstream).
fn is_own(key: &str) -> bool {
    key != keys::SERVER_INFO
}

impl Own<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Own::Typed(o) => o.iter().flatten().all(|(k, _)| !is_own(k)),
            Own::Raw(entries) => entries.iter().all(|(k, _)| !is_own(k)),
        }
    }
}

/// The entries of a JSON object's text, borrowed (a key is copied only when it has escapes).
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Key<'a>(Cow<'a, str>);
        impl<'de> serde::Deserialize<'de> for Key<'de> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = Key<'de>;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a string")
                    }
                    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                        Ok(Key(Cow::Borrowed(v)))
                    }
                    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                        Ok(Key(Cow::Owned(v.to_string())))
                    }
                }
                d.deserialize_str(V)
            }
        }
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Entries<'de>, A::Error> {
                let mut entries = Vec::new();
                while let Some((Key(k), v)) = m.next_entry::<Key<'de>, &'de RawValue>()? {
                    entries.push((k, v));
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(info) = self.server_info {
            m.serialize_entry(keys::SERVER_INFO, info)?;
        }
        match &self.own {
            Own::Typed(own) => {
                for (k, v) in own.iter().flatten().filter(|(k, _)| is_own(k)) {
                    m.serialize_entry(k, v)?;
                }
            }
            Own::Raw(entries) => {
                for (k, v) in entries.iter().filter(|(k, _)| is_own(k)) {
                    m.serialize_entry(k, v)?;
                }
            }
        }
        m.end()
    }
}

#[derive(Serialize)]
struct Out<'a, T: Serialize> {
    #[serde(rename = "resultType")]
    result_type: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    cache: Option<CacheHints>,
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_empty")]
    meta: Meta<'a>,
    #[serde(flatten)]
    inner: &'a T,
}

impl Meta<'_> {
    fn is_empty(&self) -> bool {
        self.server_info.is_none() && self.own.is_empty()
    }
}

impl Stamp<'_> {
    /// Serializes `inner` (whose own `_meta`, taken out beforehand, is `own_meta`) with the stamp.
    pub(crate) fn apply<T: Serialize>(
        &self,
        inner: &T,
        own_meta: Option<JsonObject>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        to_raw(&Out {
            result_type: self.result_type.as_str(),
            cache: self.cache,
            meta: Meta {
                server_info: self.server_info,
                own: Own::Typed(own_meta),
            },
            inner,
        })
    }

    /// [`Stamp::apply`] for a result whose own `_meta` is JSON text (an object): its entries are
    /// written as they are.
    pub(crate) fn apply_raw<T: Serialize>(
        &self,
        inner: &T,
        own_meta: Option<&RawValue>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let own = match own_meta {
            Some(raw) => {
                serde_json::from_str::<Entries<'_>>(raw.get())
                    .map_err(|e| ErrorObject::internal(format!("the result's _meta: {e}")))?
                    .0
            }
            None => Vec::new(),
        };
        to_raw(&Out {
            result_type: self.result_type.as_str(),
            cache: self.cache,
            meta: Meta {
                server_info: self.server_info,
                own: Own::Raw(own),
            },
            inner,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CacheScope, CallToolResult};

    #[test]
    fn a_result_gets_its_type_identity_and_hints_and_keeps_its_own_meta() {
        let info =
            serde_json::value::to_raw_value(&serde_json::json!({"name": "s", "version": "1"}))
                .unwrap();
        let mut r = CallToolResult::text("hi");
        let mut own = JsonObject::new();
        own.insert("com.example/x".into(), 1.into());
        r.meta = Some(own);
        let own = r.meta.take();
        let stamp = Stamp {
            result_type: ResultType::Complete,
            cache: Some(CacheHints::new(5, CacheScope::Private)),
            server_info: Some(&info),
        };
        let out: serde_json::Value =
            serde_json::from_str(stamp.apply(&r, own).unwrap().get()).unwrap();
        assert_eq!(
            out,
            serde_json::json!({
                "resultType": "complete", "ttlMs": 5, "cacheScope": "private",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}, "com.example/x": 1},
                "content": [{"type": "text", "text": "hi"}]
            })
        );
        let bare = Stamp {
            result_type: ResultType::InputRequired,
            cache: None,
            server_info: None,
        };
        let out: serde_json::Value =
            serde_json::from_str(bare.apply(&serde_json::json!({}), None).unwrap().get()).unwrap();
        assert_eq!(out, serde_json::json!({"resultType": "input_required"}));
    }

    #[test]
    fn a_raw_results_own_meta_is_written_as_it_is_and_its_server_info_is_this_servers() {
        let info =
            serde_json::value::to_raw_value(&serde_json::json!({"name": "s", "version": "1"}))
                .unwrap();
        let stamp = Stamp {
            result_type: ResultType::Complete,
            cache: None,
            server_info: Some(&info),
        };
        let body = serde_json::json!({"content": []});
        let own: Box<RawValue> =
            serde_json::from_str(r#"{"com.example/\u0078":[1, 2],"b":{"c":null}}"#).unwrap();
        let out = stamp.apply_raw(&body, Some(&own)).unwrap();
        assert_eq!(
            out.get(),
            r#"{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"com.example/x":[1, 2],"b":{"c":null}},"content":[]}"#
        );
        let upstream: Box<RawValue> =
            serde_json::from_str(r#"{"io.modelcontextprotocol/serverInfo":{"name":"u"}}"#).unwrap();
        let out: serde_json::Value =
            serde_json::from_str(stamp.apply_raw(&body, Some(&upstream)).unwrap().get()).unwrap();
        assert_eq!(
            out["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "s"
        );
        // A server that does not say who it is does not pass on who another is.
        let silent = Stamp {
            result_type: ResultType::Complete,
            cache: None,
            server_info: None,
        };
        let out = silent.apply_raw(&body, Some(&upstream)).unwrap();
        assert_eq!(out.get(), r#"{"resultType":"complete","content":[]}"#);
        let bare: serde_json::Value =
            serde_json::from_str(stamp.apply_raw(&body, None).unwrap().get()).unwrap();
        assert_eq!(
            bare["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "s"
        );
    }
}
