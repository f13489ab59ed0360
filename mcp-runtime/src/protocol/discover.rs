//! `server/discover` (2026-07-28): the server's versions, capabilities and identity in one request.

use super::{CacheHints, JsonObject, ServerCapabilities};
use serde::{Deserialize, Serialize};

/// Result of `server/discover` (2026-07-28): what the server speaks and offers, without a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Every protocol version the server speaks, newest first.
    pub supported_versions: Vec<String>,
    /// What the server supports, as `initialize` would say it.
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the client to put into the model's context; `None` when the server has
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How long the answer may be cached (`ttlMs`, `cacheScope`).
    #[serde(flatten)]
    pub cache: CacheHints,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
