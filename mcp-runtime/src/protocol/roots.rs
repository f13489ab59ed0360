//! `roots/list`.

use super::JsonObject;
use serde::{Deserialize, Serialize};

/// A root: a directory or file the client lets the server work in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name for the root; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `roots/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The client's roots, in no particular order.
    pub roots: Vec<Root>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
