//! The JSON-RPC 2.0 envelope: ids, errors and the spec's error codes.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A request id: a string or an integer, never null, echoed with its exact type (`"1"` is not `1`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    Number(i64),
    String(Arc<str>),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}
impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.into())
    }
}
impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s.into())
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("integer id out of range"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.into()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A progress token: like an id, a string or an integer.
pub type ProgressToken = RequestId;

/// The spec's error codes.
pub mod codes {
    pub const PARSE_ERROR: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    pub const INVALID_PARAMS: i32 = -32602;
    pub const INTERNAL_ERROR: i32 = -32603;
    /// Resource not found (2024-11-05 to 2025-11-25 only).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// `URLElicitationRequiredError` (2025-11-25 only).
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
    /// `HeaderMismatch` (2026-07-28): HTTP headers disagree with the body, or a required one is missing.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// `MissingRequiredClientCapability` (2026-07-28), with `data.requiredCapabilities`.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// `UnsupportedProtocolVersion` (2026-07-28), with `data: {supported, requested}`.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
}

/// A JSON-RPC error object: `{code, message, data?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
pub struct ErrorObject {
    pub code: i32,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorObject {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
    pub fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = Some(data);
        self
    }
    pub fn parse_error(msg: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("Parse error: {msg}"))
    }
    pub fn invalid_request(msg: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, msg)
    }
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }
    pub fn invalid_params(msg: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, msg)
    }
    pub fn internal(msg: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, msg)
    }
    /// `-32020`: an HTTP header disagrees with the body, or a required one is missing or malformed.
    pub fn header_mismatch(msg: impl fmt::Display) -> Self {
        Self::new(codes::HEADER_MISMATCH, format!("Header mismatch: {msg}"))
    }
    /// `-32021`: the request needs client capabilities it did not declare (`required` is a
    /// `ClientCapabilities` object naming them, e.g. `{"sampling": {}}`).
    pub fn missing_client_capability(required: serde_json::Value) -> Self {
        let names: Vec<String> = required
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        Self::new(
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!("Missing required client capability: {}", names.join(", ")),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }
    /// `-32022`: the requested protocol version is not one this side speaks.
    pub fn unsupported_version(requested: &str, supported: Vec<String>) -> Self {
        Self::new(
            codes::UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "Unsupported protocol version {requested:?} (supported: {})",
                supported.join(", ")
            ),
        )
        .with_data(serde_json::json!({ "supported": supported, "requested": requested }))
    }
    /// Whether this is one of the errors only a 2026-07-28 peer sends (`-32020`..`-32022`), which tells a
    /// dual-era client it talks to a modern server.
    pub fn is_modern_protocol_error(&self) -> bool {
        matches!(
            self.code,
            codes::HEADER_MISMATCH
                | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
                | codes::UNSUPPORTED_PROTOCOL_VERSION
        )
    }
}

/// A request as sent on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest<P = serde_json::Value> {
    pub jsonrpc: JsonRpcVersion,
    pub id: RequestId,
    pub method: String,
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A notification as sent on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification<P = serde_json::Value> {
    pub jsonrpc: JsonRpcVersion,
    pub method: String,
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A successful response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResponse<R = serde_json::Value> {
    pub jsonrpc: JsonRpcVersion,
    pub id: RequestId,
    pub result: R,
}

/// An error response. `id` is absent when the request's id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    pub jsonrpc: JsonRpcVersion,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    pub error: ErrorObject,
}

/// Any one JSON-RPC message, for tests, tools and logs. The pump itself decodes lazily (see `framing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonRpcMessage {
    Request(JsonRpcRequest),
    Notification(JsonRpcNotification),
    Response(JsonRpcResponse),
    Error(JsonRpcError),
}

/// The literal `"2.0"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}
impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if s == "2.0" {
            Ok(JsonRpcVersion)
        } else {
            Err(serde::de::Error::custom("jsonrpc must be \"2.0\""))
        }
    }
}
