//! The JSON-RPC 2.0 envelope: ids, errors and the spec's error codes.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A request id: a string or an integer, never null, echoed with its exact type (`"1"` is not `1`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id (the runtime's own requests use these, counting up from 0, except on a session
    /// shared by several instances, whose ids are strings with the instance's prefix).
    Number(i64),
    /// A string id, echoed exactly.
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
    /// `-32700`: the line is not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// `-32600`: JSON, but not a valid JSON-RPC request (missing `jsonrpc`, `method`, a null id...).
    pub const INVALID_REQUEST: i32 = -32600;
    /// `-32601`: the method does not exist or is not served in this state (a capability not declared).
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// `-32602`: the params are wrong for the method; also an unknown tool, prompt or (2026-07-28) resource.
    pub const INVALID_PARAMS: i32 = -32602;
    /// `-32603`: the server failed while handling a valid request (a handler that panicked, among others).
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code: one of [`codes`], or the implementation's own.
    pub code: i32,
    /// A short description of the error, for people.
    pub message: String,
    /// More about the error, as the code defines it (for instance `requiredCapabilities`, or `supported` and
    /// `requested`); `None` when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl std::fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

impl ErrorObject {
    /// An error with this code and message and no `data`.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
    /// The same error with `data` set.
    pub fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = Some(data);
        self
    }
    /// `-32700`, the message prefixed with `Parse error: `.
    pub fn parse_error(msg: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("Parse error: {msg}"))
    }
    /// `-32600` with this message.
    pub fn invalid_request(msg: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, msg)
    }
    /// `-32601` naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }
    /// `-32602` with this message.
    pub fn invalid_params(msg: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, msg)
    }
    /// `-32603` with this message.
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
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id the response will carry; unique among the sender's requests in flight.
    pub id: RequestId,
    /// The method, such as `tools/call`.
    pub method: String,
    /// The method's params; `None` serializes without a `params` member.
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A notification as sent on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification<P = serde_json::Value> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method, such as `notifications/progress`.
    pub method: String,
    /// The notification's params; `None` serializes without a `params` member.
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A successful response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResponse<R = serde_json::Value> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The method's result.
    pub result: R,
}

/// An error response. `id` is absent when the request's id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers; `None` (serialized as absent) when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
}

/// Any one JSON-RPC message, for tests, tools and logs. The pump itself decodes lazily (see `framing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonRpcMessage {
    /// A request: has an `id` and a `method`.
    Request(JsonRpcRequest),
    /// A notification: a `method` without an `id`; never answered.
    Notification(JsonRpcNotification),
    /// A successful response: an `id` and a `result`.
    Response(JsonRpcResponse),
    /// An error response: an `error` and, usually, an `id`.
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
