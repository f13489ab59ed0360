//! What a client POST says about itself in headers, read from its body (2026-07-28, "Request Metadata"):
//! `MCP-Protocol-Version` (equal to `_meta`'s), `Mcp-Method`, `Mcp-Name` (the tool or prompt name, the
//! resource URI, or the task id), and `Mcp-Param-{Name}` for the tool arguments its `inputSchema`
//! annotates with `x-mcp-header`. Values that are not plain visible ASCII go in the base64 sentinel.
//!
//! A handshake-era POST gets `Mcp-Method` and `Mcp-Name` too (older servers ignore them); its version
//! header comes from the session instead.

use super::headers;
use crate::client::ToolHeaders;
use crate::framing::{self, Incoming};
use crate::protocol::{methods, ErrorObject, ProtocolVersion, RequestId};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

#[derive(Deserialize, Default)]
struct MetaView<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct ParamsView<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    #[serde(rename = "taskId", borrow, default)]
    task_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "requestId", default)]
    request_id: Option<RequestId>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaView<'a>>,
}

/// One outgoing frame, as the transport routes it.
pub(crate) struct Outbound {
    pub(crate) method: String,
    /// The frame's `_meta` names a 2026-07-28 version: it is sent without session, stands alone.
    pub(crate) modern: Option<ProtocolVersion>,
    /// `notifications/cancelled`: the request it cancels.
    pub(crate) cancels: Option<RequestId>,
    /// The headers mirrored from the body.
    pub(crate) headers: HeaderMap,
}

fn insert(h: &mut HeaderMap, name: &str, value: &str) -> Result<(), ErrorObject> {
    let n = HeaderName::from_bytes(name.as_bytes())
        .map_err(|e| ErrorObject::invalid_params(format!("bad header name {name:?}: {e}")))?;
    let v = HeaderValue::from_str(value)
        .map_err(|e| ErrorObject::invalid_params(format!("bad value for {name}: {e}")))?;
    h.insert(n, v);
    Ok(())
}

/// Reads a frame's routing facts and headers. `Err` is an error for the caller of the request (an
/// argument that cannot be mirrored into its declared header).
pub(crate) fn outbound(frame: &[u8], tools: Option<&ToolHeaders>) -> Result<Outbound, ErrorObject> {
    let (method, params) = match framing::decode(frame) {
        Incoming::Request { method, params, .. } => (method.into_owned(), params),
        Incoming::Notification { method, params } => (method.into_owned(), params),
        _ => {
            return Ok(Outbound {
                method: String::new(),
                modern: None,
                cancels: None,
                headers: HeaderMap::new(),
            })
        }
    };
    let view: ParamsView<'_> = params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_default();
    let modern = view
        .meta
        .as_ref()
        .and_then(|m| m.protocol_version.as_deref())
        .and_then(ProtocolVersion::parse)
        .filter(|v| v.is_modern());
    let mut h = HeaderMap::new();
    if let Some(v) = view
        .meta
        .as_ref()
        .and_then(|m| m.protocol_version.as_deref())
    {
        insert(&mut h, headers::PROTOCOL_VERSION, v)?;
    }
    insert(&mut h, headers::METHOD, &method)?;
    let name = match headers::name_param(&method) {
        Some("name") => view.name.as_deref(),
        Some("uri") => view.uri.as_deref(),
        Some("taskId") => view.task_id.as_deref(),
        _ => None,
    };
    if let Some(name) = name {
        insert(&mut h, headers::NAME, &headers::encode_value(name))?;
    }
    if method == methods::TOOLS_CALL && modern.is_some() {
        let declared = match (tools, view.name.as_deref()) {
            (Some(t), Some(tool)) => t.get(tool),
            _ => None,
        };
        if let Some(declared) = declared {
            let args: Option<serde_json::Value> = view
                .arguments
                .and_then(|a| serde_json::from_str(a.get()).ok());
            for p in declared.iter() {
                if let Some(text) = p
                    .text(args.as_ref())
                    .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?
                {
                    insert(&mut h, &p.header_name(), &headers::encode_value(&text))?;
                }
            }
        }
    }
    Ok(Outbound {
        cancels: (method == methods::CANCELLED)
            .then_some(view.request_id)
            .flatten(),
        method,
        modern,
        headers: h,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Tool;
    use serde_json::json;

    fn frame(v: serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(&v).unwrap()
    }

    fn get<'a>(o: &'a Outbound, name: &str) -> Option<&'a str> {
        o.headers.get(name).and_then(|v| v.to_str().ok())
    }

    #[test]
    fn mirrors_the_body_into_headers() {
        let tools = ToolHeaders::default();
        tools.admit(vec![Tool::new(
            "sql",
            "",
            json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "flag": {"type": "boolean", "x-mcp-header": "Flag"},
                "greet": {"type": "string", "x-mcp-header": "Greet"}
            }})
            .as_object()
            .unwrap()
            .clone(),
        )]);
        let o = outbound(
            &frame(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "sql",
                "arguments": {"region": "us-west1", "n": 42, "flag": false, "greet": "Hello, 世界"},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
            }})),
            Some(&tools),
        )
        .unwrap();
        assert_eq!(o.modern, Some(ProtocolVersion::V2026_07_28));
        assert_eq!(get(&o, "mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(get(&o, "mcp-method"), Some("tools/call"));
        assert_eq!(get(&o, "mcp-name"), Some("sql"));
        assert_eq!(get(&o, "mcp-param-region"), Some("us-west1"));
        assert_eq!(get(&o, "mcp-param-n"), Some("42"));
        assert_eq!(get(&o, "mcp-param-flag"), Some("false"));
        assert_eq!(
            get(&o, "mcp-param-greet"),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
        );

        // A null or absent argument has no header; a value of the wrong type is the caller's error.
        let o = outbound(
            &frame(
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                    "name": "sql", "arguments": {"region": null},
                    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
                }}),
            ),
            Some(&tools),
        )
        .unwrap();
        assert!(get(&o, "mcp-param-region").is_none());
        let e = outbound(
            &frame(
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                    "name": "sql", "arguments": {"n": "many"},
                    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
                }}),
            ),
            Some(&tools),
        )
        .err()
        .unwrap();
        assert!(e.message.contains("integer"), "{e}");
    }

    #[test]
    fn names_resources_tasks_and_cancellations() {
        let o = outbound(
            &frame(json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "file:///a b"}})),
            None,
        )
        .unwrap();
        assert_eq!(o.modern, None);
        assert_eq!(get(&o, "mcp-name"), Some("file:///a b"));
        assert!(get(&o, "mcp-protocol-version").is_none());
        let o = outbound(
            &frame(json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "t-1"}})),
            None,
        )
        .unwrap();
        assert_eq!(get(&o, "mcp-name"), Some("t-1"));
        let o = outbound(
            &frame(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})),
            None,
        )
        .unwrap();
        assert_eq!(o.cancels, Some(RequestId::Number(7)));
        assert_eq!(get(&o, "mcp-method"), Some("notifications/cancelled"));
    }
}
