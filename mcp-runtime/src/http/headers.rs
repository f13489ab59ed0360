//! The request headers of Streamable HTTP 2026-07-28: names, and the value encoding that carries any
//! text in a header (`=?base64?…?=` for what is not plain visible ASCII).

use base64::Engine;

/// The headers of the Streamable HTTP transport (2025-03-26 on).
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";
pub(crate) const LAST_EVENT_ID: &str = "last-event-id";

/// `MCP-Protocol-Version`.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method`: the JSON-RPC method of the body.
pub const METHOD: &str = "mcp-method";
/// `Mcp-Name`: `params.name` (tools/call, prompts/get), `params.uri` (resources/read) or `params.taskId`
/// (tasks/get, tasks/update, tasks/cancel of the tasks extension).
pub const NAME: &str = "mcp-name";
/// The prefix of `Mcp-Param-{Name}` headers (`x-mcp-header` arguments).
pub const PARAM_PREFIX: &str = "mcp-param-";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// The methods whose `Mcp-Name` header is required, and the param it mirrors.
pub fn name_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// A header value for `text`: as is when it is plain (visible ASCII and inner spaces), base64 in the
/// sentinel otherwise (non-ASCII, control characters (a tab too: intermediaries may fold it),
/// surrounding spaces, or text that looks like the sentinel itself).
pub fn encode_value(text: &str) -> String {
    let looks_encoded = text.starts_with(SENTINEL_START) && text.ends_with(SENTINEL_END);
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b == b' ' || (0x21..=0x7e).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !looks_encoded;
    if plain {
        text.to_string()
    } else {
        format!(
            "{SENTINEL_START}{}{SENTINEL_END}",
            base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
        )
    }
}

/// The text a header value stands for: the sentinel decoded, or the value itself. An error names what
/// is wrong (characters a header may not hold, bad base64, or bytes that are not UTF-8).
pub fn decode_value(raw: &[u8]) -> Result<String, String> {
    if !raw
        .iter()
        .all(|&b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b))
    {
        return Err("the value holds characters a header may not carry".into());
    }
    let s = std::str::from_utf8(raw).map_err(|_| "the value is not ASCII".to_string())?;
    let s = s.trim_matches([' ', '\t']);
    match s
        .strip_prefix(SENTINEL_START)
        .and_then(|r| r.strip_suffix(SENTINEL_END))
    {
        Some(b64) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| format!("invalid base64 in the value: {e}"))?;
            String::from_utf8(bytes).map_err(|_| "the base64 value is not UTF-8".to_string())
        }
        None => Ok(s.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_examples_round_trip() {
        for (text, header) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ] {
            assert_eq!(encode_value(text), header);
            assert_eq!(decode_value(header.as_bytes()).unwrap(), text);
        }
    }

    #[test]
    fn bad_values_are_errors() {
        assert!(decode_value(b"a\x01b").is_err());
        assert!(decode_value("é".as_bytes()).is_err());
        assert!(decode_value(b"=?base64?!!!?=").is_err());
    }
}
