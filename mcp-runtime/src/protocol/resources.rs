//! Resources: list, templates, read, subscribe.

use super::{Annotations, Cursor, Icon, JsonObject, ResourceContents};
use serde::{Deserialize, Serialize};

/// A resource the server offers (`resources/list`): data the host may read and give the model as context.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource's URI, unique on the server; the argument of `resources/read`.
    pub uri: String,
    /// The programmatic name.
    pub name: String,
    /// A display name for people (2025-06-18 and later); `None` means the UI shows `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource holds, for people and the model; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size of the raw contents in bytes (before any base64 encoding), when known; hosts use it to
    /// estimate context usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the host: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons a UI may show (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A family of resources under an RFC 6570 URI template (`resources/templates/list`); the client fills the
/// template and reads the URI.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// An RFC 6570 URI template.
    pub uri_template: String,
    /// The programmatic name.
    pub name: String,
    /// A display name for people (2025-06-18 and later); `None` means the UI shows `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources of this template hold; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every resource the template matches, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the host: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons a UI may show (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `resources/list`: one page of resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// This page's resources.
    pub resources: Vec<Resource>,
    /// The cursor of the next page; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// 2026-07-28 caching hints (`ttlMs`, `cacheScope`).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<super::CacheHints>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `resources/templates/list`: one page of resource templates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// This page's templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// The cursor of the next page; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// 2026-07-28 caching hints (`ttlMs`, `cacheScope`).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<super::CacheHints>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `resources/read`, `resources/subscribe`, `resources/unsubscribe` and
/// `notifications/resources/updated`: a URI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceUriParams {
    /// The resource's URI.
    pub uri: String,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `resources/read`.
pub type ReadResourceParams = ResourceUriParams;
/// Params of `resources/subscribe` and `resources/unsubscribe` (handshake era).
pub type SubscribeParams = ResourceUriParams;
/// Params of `notifications/resources/updated`: the URI that changed (possibly a sub-resource of the one
/// subscribed).
pub type ResourceUpdatedParams = ResourceUriParams;

/// Result of `resources/read`: the resource's contents; several items when the URI names a collection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// The contents, text or base64 blob, each with its own URI and MIME type.
    pub contents: Vec<ResourceContents>,
    /// 2026-07-28 caching hints (`ttlMs`, `cacheScope`).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<super::CacheHints>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
