//! `_meta` keys the protocol reserves, and the per-request protocol fields of 2026-07-28.
//!
//! In the stateless era a request carries what `initialize` used to establish: its protocol version, the
//! client's capabilities and (optionally) the client's identity and the log level it wants.

use super::{ClientCapabilities, Implementation, JsonObject, LoggingLevel};
use serde::{Deserialize, Serialize};

/// Reserved `_meta` keys.
pub mod keys {
    /// A request's progress token.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// 2026-07-28: the protocol version of this request (required).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// 2026-07-28: the client's capabilities for this request (required; `{}` declares none).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// 2026-07-28: the client's name and version (should be sent).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// 2026-07-28: the lowest log level the client wants for this request; without it, no log messages.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// 2026-07-28: on every message of a `subscriptions/listen` stream, the id of that request.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// 2026-07-28: the server's name and version, on every result.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// 2025-11-25 tasks: the task a message belongs to (`{"taskId": ...}`).
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
}

/// The protocol fields of a 2026-07-28 request's `_meta` (the "per-request protocol fields").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProtocolMeta {
    /// `io.modelcontextprotocol/protocolVersion`: the version the request is written in; required.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub protocol_version: String,
    /// `io.modelcontextprotocol/clientCapabilities`: what the client supports for this request; required.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    pub client_capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo`: who the client is; `None` when absent.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel`: the lowest level of `notifications/message` wanted while the
    /// request runs; `None`: no logs.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
}

impl ProtocolMeta {
    /// These fields as `_meta` entries, to merge into a request's `_meta`.
    pub fn to_object(&self) -> JsonObject {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(o)) => o,
            _ => JsonObject::new(),
        }
    }
}
