//! The per-request protocol fields of 2026-07-28: every request a modern client sends carries its
//! protocol version, its capabilities, its identity and (when the user set one) its log level in `_meta`.

use crate::protocol::meta::keys;
use crate::protocol::*;
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Stamps `_meta` on modern requests. The capabilities are the handshake-era ones the handlers imply,
/// in their 2026 form (`roots` without `listChanged`, which 2026 removed).
pub(crate) struct ModernMeta {
    capabilities: Value,
    info: Value,
    /// `capabilities` and `info` as JSON text, written once: [`ModernMeta::stamped`] copies them.
    capabilities_text: String,
    info_text: Option<String>,
    log_level: Mutex<Option<LoggingLevel>>,
    /// The capabilities last declared for a call instead of the client's (`CallOptions::capabilities`),
    /// and their text: a relay declares its caller's, the same on every call.
    caller: Mutex<Option<(ClientCapabilities, Arc<str>)>>,
    /// Whether the tasks extension is declared.
    tasks: bool,
}

impl ModernMeta {
    pub(crate) fn new(info: &Implementation, declared: &ClientCapabilities, tasks: bool) -> Self {
        let capabilities = serde_json::to_value(modern_capabilities(declared, tasks))
            .unwrap_or_else(|_| Value::Object(JsonObject::new()));
        let info = serde_json::to_value(info).unwrap_or(Value::Null);
        ModernMeta {
            capabilities_text: capabilities.to_string(),
            info_text: (!info.is_null()).then(|| info.to_string()),
            capabilities,
            info,
            log_level: Mutex::new(None),
            caller: Mutex::new(None),
            tasks,
        }
    }

    /// [`ModernMeta::stamp`], declaring `capabilities` instead of the client's when given (one call's
    /// own, see `CallOptions::capabilities`).
    pub(crate) fn stamp_as(
        &self,
        params: &mut JsonObject,
        version: ProtocolVersion,
        capabilities: Option<&ClientCapabilities>,
    ) {
        self.stamp(params, version);
        if let (Some(c), Some(Value::Object(meta))) = (capabilities, params.get_mut("_meta")) {
            if let Ok(v) = serde_json::to_value(modern_capabilities(c, self.tasks)) {
                meta.insert(keys::CLIENT_CAPABILITIES.into(), v);
            }
        }
    }

    pub(crate) fn set_log_level(&self, level: Option<LoggingLevel>) {
        *self.log_level.lock().unwrap_or_else(|e| e.into_inner()) = level;
    }

    /// Adds the protocol fields to `params._meta` (created if absent), keeping the caller's own keys
    /// (`progressToken`, trace context...).
    pub(crate) fn stamp(&self, params: &mut JsonObject, version: ProtocolVersion) {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        if !meta.is_object() {
            tracing::warn!("request `_meta` is not an object; replaced by the protocol fields");
            *meta = Value::Object(JsonObject::new());
        }
        let Value::Object(meta) = meta else {
            return;
        };
        meta.insert(keys::PROTOCOL_VERSION.into(), version.as_str().into());
        meta.insert(keys::CLIENT_CAPABILITIES.into(), self.capabilities.clone());
        if !self.info.is_null() {
            meta.insert(keys::CLIENT_INFO.into(), self.info.clone());
        }
        let level = *self.log_level.lock().unwrap_or_else(|e| e.into_inner());
        match level.and_then(|l| serde_json::to_value(l).ok()) {
            Some(l) => meta.insert(keys::LOG_LEVEL.into(), l),
            None => meta.remove(keys::LOG_LEVEL),
        };
    }

    /// The params of one attempt as JSON text with the protocol fields (and `progress` as the progress
    /// token) in `_meta`, without a JSON tree: `params` serialized once, the protocol fields written
    /// from text kept since the client was built, in front of the params' own members. The same request
    /// as [`ModernMeta::stamp_as`] gives; `Ok(None)` when `params` has a `_meta` of its own (whose keys
    /// that path keeps) or is not an object.
    pub(crate) fn stamped<P: serde::Serialize + ?Sized>(
        &self,
        params: &P,
        version: ProtocolVersion,
        capabilities: Option<&ClientCapabilities>,
        progress: Option<&RequestId>,
    ) -> Result<Option<String>, serde_json::Error> {
        let mut text = serde_json::to_string(params)?;
        if text == "null" {
            // Absent params are `{}`, as in [`super::call::object`].
            text = "{}".into();
        }
        // One walk over the members, nothing collected: whether there is one, and none is `_meta`.
        let (mut empty, mut own_meta) = (true, false);
        let walked = crate::framing::each_member(&text, |key, _| {
            empty = false;
            own_meta = key == "\"_meta\"";
            !own_meta
        });
        if walked.is_none() || own_meta {
            return Ok(None);
        }
        let caller;
        let caps = match capabilities {
            Some(c) => {
                caller = self.caller_capabilities(c)?;
                &*caller
            }
            None => self.capabilities_text.as_str(),
        };
        let level = *self.log_level.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::with_capacity(text.len() + caps.len() + 256);
        let member = |out: &mut String, key: &str, value: &str| {
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            out.push_str(value);
            out.push(',');
        };
        out.push_str("{\"_meta\":{");
        if let Some(id) = progress {
            member(&mut out, keys::PROGRESS_TOKEN, &serde_json::to_string(id)?);
        }
        // A version is a string that needs no escaping.
        for piece in [
            "\"",
            keys::PROTOCOL_VERSION,
            "\":\"",
            version.as_str(),
            "\",",
        ] {
            out.push_str(piece);
        }
        member(&mut out, keys::CLIENT_CAPABILITIES, caps);
        if let Some(info) = &self.info_text {
            member(&mut out, keys::CLIENT_INFO, info);
        }
        if let Some(l) = level {
            member(&mut out, keys::LOG_LEVEL, &serde_json::to_string(&l)?);
        }
        out.pop(); // the last member's comma
        out.push('}');
        if empty {
            out.push('}');
        } else {
            // Past the opening brace: the params' own members, and their closing brace.
            out.push(',');
            out.push_str(&text.trim_start()[1..]);
        }
        Ok(Some(out))
    }

    /// `declared` as a call's `clientCapabilities` text, written once while it stays the same.
    fn caller_capabilities(
        &self,
        declared: &ClientCapabilities,
    ) -> Result<Arc<str>, serde_json::Error> {
        let mut last = self.caller.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((caps, text)) = &*last {
            if caps == declared {
                return Ok(text.clone());
            }
        }
        let text: Arc<str> =
            serde_json::to_string(&modern_capabilities(declared, self.tasks))?.into();
        *last = Some((declared.clone(), text.clone()));
        Ok(text)
    }
}

/// The 2026 form of the declared capabilities.
pub(crate) fn modern_capabilities(
    declared: &ClientCapabilities,
    tasks: bool,
) -> ClientCapabilities {
    let mut c = declared.clone();
    if let Some(r) = &mut c.roots {
        r.list_changed = None;
    }
    // The 2025-11-25 tasks capability describes task-augmented server requests, which 2026 has not.
    c.tasks = None;
    if tasks {
        c.extensions
            .get_or_insert_with(JsonObject::new)
            .entry(TASKS_EXTENSION)
            .or_insert_with(|| Value::Object(JsonObject::new()));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stamps_the_protocol_fields_beside_the_callers_own() {
        let caps = ClientCapabilities {
            roots: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            elicitation: Some(ElicitationCapability::default()),
            ..Default::default()
        };
        let m = ModernMeta::new(&Implementation::new("c", "1"), &caps, true);
        let mut p = json!({"name": "t", "_meta": {"progressToken": 3}})
            .as_object()
            .unwrap()
            .clone();
        m.set_log_level(Some(LoggingLevel::Warning));
        m.stamp(&mut p, ProtocolVersion::MODERN);
        assert_eq!(
            Value::Object(p.clone()),
            json!({"name": "t", "_meta": {
                "progressToken": 3,
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {
                    "roots": {}, "elicitation": {},
                    "extensions": {"io.modelcontextprotocol/tasks": {}}
                },
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/logLevel": "warning"
            }})
        );
        m.set_log_level(None);
        m.stamp(&mut p, ProtocolVersion::MODERN);
        assert!(p["_meta"].get(keys::LOG_LEVEL).is_none());
    }

    /// The text path gives the request the tree path gives, and leaves params with a `_meta` to it.
    #[test]
    fn stamped_text_is_the_stamped_tree() {
        let caps = ClientCapabilities {
            sampling: Some(Default::default()),
            ..Default::default()
        };
        let m = ModernMeta::new(&Implementation::new("c", "1"), &caps, true);
        let own = ClientCapabilities {
            elicitation: Some(ElicitationCapability::default()),
            ..Default::default()
        };
        // A second caller's capabilities after the first: the text kept for the first is not reused.
        let other = ClientCapabilities {
            roots: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            ..Default::default()
        };
        let id = RequestId::Number(7);
        let cases = [
            json!({"name": "t", "arguments": {"a": [1, "x\\\"y"], "b": {}}}),
            json!({}),
            json!(null),
        ];
        for level in [None, Some(LoggingLevel::Debug)] {
            m.set_log_level(level);
            for params in &cases {
                for (capabilities, progress) in [
                    (None, None),
                    (Some(&own), Some(&id)),
                    (Some(&other), None),
                    (Some(&own), None),
                ] {
                    let text = m
                        .stamped(params, ProtocolVersion::MODERN, capabilities, progress)
                        .unwrap()
                        .unwrap();
                    let mut tree = match params {
                        Value::Object(o) => o.clone(),
                        _ => JsonObject::new(),
                    };
                    m.stamp_as(&mut tree, ProtocolVersion::MODERN, capabilities);
                    if progress.is_some() {
                        let meta = tree["_meta"].as_object_mut().unwrap();
                        meta.insert(keys::PROGRESS_TOKEN.into(), json!(7));
                    }
                    let parsed: Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(parsed, Value::Object(tree), "{text}");
                }
            }
        }
        let with_meta = json!({"name": "t", "_meta": {"progressToken": 1}});
        assert!(m
            .stamped(&with_meta, ProtocolVersion::MODERN, None, None)
            .unwrap()
            .is_none());
        assert!(m
            .stamped(&json!([1]), ProtocolVersion::MODERN, None, None)
            .unwrap()
            .is_none());
    }
}
