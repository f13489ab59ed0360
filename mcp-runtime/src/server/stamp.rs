//! What every 2026-07-28 result carries besides its own fields: `resultType`, the server's identity in
//! `_meta` (`io.modelcontextprotocol/serverInfo`), and on cacheable results `ttlMs` and `cacheScope`.
//! Written in the same pass that serializes the result, so a large result is not copied again.

use crate::framing::to_raw;
use crate::protocol::meta::keys;
use crate::protocol::{CacheHints, ErrorObject, JsonObject, ResultType};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;

/// The fields a 2026-07-28 result gets.
pub(crate) struct Stamp<'a> {
    pub result_type: ResultType,
    pub cache: Option<CacheHints>,
    /// The serialized `Implementation` of the server, or `None` when the server is configured not to say.
    pub server_info: Option<&'a RawValue>,
}

struct Meta<'a> {
    server_info: Option<&'a RawValue>,
    own: Option<JsonObject>,
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        let own_has_info = self
            .own
            .as_ref()
            .is_some_and(|o| o.contains_key(keys::SERVER_INFO));
        if let (Some(info), false) = (self.server_info, own_has_info) {
            m.serialize_entry(keys::SERVER_INFO, info)?;
        }
        for (k, v) in self.own.iter().flatten() {
            m.serialize_entry(k, v)?;
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
        self.server_info.is_none() && self.own.as_ref().is_none_or(|o| o.is_empty())
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
                own: own_meta,
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
}
