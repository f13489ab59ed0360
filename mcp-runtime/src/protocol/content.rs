//! Content blocks, their annotations, and resource contents.

use super::{Icon, JsonObject, Role};
use serde::{Deserialize, Serialize};

/// Hints about how a client should use a piece of content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is for: the user, the assistant (the model), or both; `None` means both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How important the content is, from 0 (optional) to 1 (required); `None` when unspecified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When the content last changed, as an ISO 8601 timestamp (2025-06-18 and later); `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// One block of content in a tool result, prompt message or sampling message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        #[serde(serialize_with = "crate::framing::serialize_long_str")]
        text: String,
        /// Hints for the client: audience, priority, last modification; `None` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata reserved by MCP (`_meta`); `None` when absent.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64-encoded bytes.
        #[serde(serialize_with = "crate::framing::serialize_long_str")]
        data: String,
        /// The image's MIME type, such as `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints for the client: audience, priority, last modification; `None` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata reserved by MCP (`_meta`); `None` when absent.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// Audio, base64-encoded (2025-03-26 and later).
    Audio {
        /// Base64-encoded bytes.
        #[serde(serialize_with = "crate::framing::serialize_long_str")]
        data: String,
        /// The audio's MIME type, such as `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints for the client: audience, priority, last modification; `None` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata reserved by MCP (`_meta`); `None` when absent.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// A link to a resource the client may read (2025-06-18 and later); not necessarily listed by
    /// `resources/list`.
    ResourceLink(ResourceLink),
    /// A resource's contents, embedded.
    Resource {
        /// The contents, text or blob.
        resource: ResourceContents,
        /// Hints for the client: audience, priority, last modification; `None` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata reserved by MCP (`_meta`); `None` when absent.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }
    /// An image block from base64 data and its MIME type.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image {
            data: base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
    /// An audio block from base64 data and its MIME type.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio {
            data: base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
    /// An embedded resource block.
    pub fn resource(resource: ResourceContents) -> Self {
        ContentBlock::Resource {
            resource,
            annotations: None,
            meta: None,
        }
    }
    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text, .. } => Some(text),
            _ => None,
        }
    }
}

/// A link to a resource, in a tool result (2025-06-18).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI, for `resources/read`.
    pub uri: String,
    /// The programmatic name.
    pub name: String,
    /// A display name for people; `None` means the UI shows `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource holds; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size of the raw contents in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client: audience, priority, last modification; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons a UI may show (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The contents of a resource: text or base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The URI of this content (the resource read, or a part of it).
        uri: String,
        /// The MIME type, when known.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        #[serde(serialize_with = "crate::framing::serialize_long_str")]
        text: String,
        /// Metadata reserved by MCP (`_meta`); `None` when absent.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// Binary contents, base64-encoded.
    Blob {
        /// The URI of this content (the resource read, or a part of it).
        uri: String,
        /// The MIME type, when known.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64-encoded bytes.
        #[serde(serialize_with = "crate::framing::serialize_long_str")]
        blob: String,
        /// Metadata reserved by MCP (`_meta`); `None` when absent.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(uri: impl Into<String>, mime_type: Option<&str>, text: impl Into<String>) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: mime_type.map(Into::into),
            text: text.into(),
            meta: None,
        }
    }
    /// Binary contents of `uri`, already base64-encoded.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        base64: impl Into<String>,
    ) -> Self {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: mime_type.map(Into::into),
            blob: base64.into(),
            meta: None,
        }
    }
    /// The URI the contents belong to.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }
}
