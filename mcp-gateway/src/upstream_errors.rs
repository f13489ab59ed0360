//! What a downstream client is told when an upstream fails: its JSON-RPC errors as they were, the rest
//! (closed, timed out, unavailable) as `-32603` naming the upstream in `data`.

use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::Error;

/// A runtime client error as the JSON-RPC error the downstream caller gets. An upstream's own JSON-RPC
/// error passes unchanged; transport failures say which upstream and why in `data`.
pub fn rpc_error(e: Error, upstream: &str) -> ErrorObject {
    match e {
        Error::Rpc(e) => e,
        Error::Closed(reason) => ErrorObject::internal(format!(
            "upstream `{upstream}` closed the connection: {reason}"
        ))
        .with_data(serde_json::json!({"upstream": upstream, "reason": reason})),
        Error::Timeout { method, after } => ErrorObject::internal(format!(
            "upstream `{upstream}` did not answer {method} within {after:?}"
        ))
        .with_data(serde_json::json!({
            "upstream": upstream, "timeoutMs": after.as_millis() as u64,
        })),
        other => ErrorObject::internal(format!("upstream `{upstream}`: {other}"))
            .with_data(serde_json::json!({"upstream": upstream, "reason": other.to_string()})),
    }
}

pub(crate) fn unavailable(name: &str, why: &str) -> ErrorObject {
    ErrorObject::internal(format!("upstream `{name}` is unavailable: {why}"))
        .with_data(serde_json::json!({"upstream": name, "state": "unavailable", "reason": why}))
}
