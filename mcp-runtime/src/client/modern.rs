//! The per-request protocol fields of 2026-07-28: every request a modern client sends carries its
//! protocol version, its capabilities, its identity and (when the user set one) its log level in `_meta`.

use crate::protocol::meta::keys;
use crate::protocol::*;
use serde_json::Value;
use std::sync::Mutex;

/// Stamps `_meta` on modern requests. The capabilities are the handshake-era ones the handlers imply,
/// in their 2026 form (`roots` without `listChanged`, which 2026 removed).
pub(crate) struct ModernMeta {
    capabilities: Value,
    info: Value,
    log_level: Mutex<Option<LoggingLevel>>,
    /// Whether the tasks extension is declared.
    tasks: bool,
}

impl ModernMeta {
    pub(crate) fn new(info: &Implementation, declared: &ClientCapabilities, tasks: bool) -> Self {
        ModernMeta {
            capabilities: serde_json::to_value(modern_capabilities(declared, tasks))
                .unwrap_or_else(|_| Value::Object(JsonObject::new())),
            info: serde_json::to_value(info).unwrap_or(Value::Null),
            log_level: Mutex::new(None),
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
}
