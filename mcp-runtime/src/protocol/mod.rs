//! The typed protocol model: every message of MCP 2025-11-25, with the fields of 2024-11-05, 2025-03-26 and
//! 2025-06-18, and the additions of 2026-07-28 (`meta`, `discover`, `mrtr`, `subscriptions`, `caching`) and of the
//! skills extension (`skills`).
//! Field names follow the spec's `schema.ts`; optional fields are omitted when absent so that a value
//! round-trips to the same JSON.

pub mod caching;
pub mod completion;
pub mod content;
pub mod discover;
pub mod elicitation;
pub mod jsonrpc;
pub mod lifecycle;
pub mod logging;
pub mod meta;
pub mod mrtr;
pub mod notifications;
pub mod prompts;
pub mod raw_tool_result;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod skills;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
pub mod version;

pub use caching::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use logging::*;
pub use meta::ProtocolMeta;
pub use mrtr::*;
pub use notifications::*;
pub use prompts::*;
pub use raw_tool_result::RawCallToolResult;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use skills::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
pub use version::*;

/// A JSON object, as used for `_meta`, `arguments`, `structuredContent` and schemas.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// An opaque pagination cursor.
pub type Cursor = String;

/// Params of the list requests: `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PaginatedParams {
    /// Where to resume: the `nextCursor` of the previous page; `None` for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A result with nothing in it but an optional `_meta` (`ping`, `logging/setLevel`, subscribe...).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EmptyResult {
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// An icon for a tool, prompt, resource or implementation (2025-11-25).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// The icon's URI: an `https:` URL or a `data:` URI.
    pub src: String,
    /// The icon's MIME type, when the URI does not say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The sizes the icon fits, such as `"48x48"` or `"any"` (for SVG); `None` when unspecified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`: the background the icon is drawn for; `None` for either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// Who a piece of content is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (for content: the person using the host).
    User,
    /// The assistant: the model.
    Assistant,
}
