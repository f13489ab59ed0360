//! `initialize`, capabilities and implementation info.

use super::{Icon, JsonObject};
use serde::{Deserialize, Serialize};

/// Name and version of a client or server (`Implementation`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// The programmatic name (`"my-server"`); hosts use it in logs and to tell implementations apart.
    pub name: String,
    /// The implementation's version, free-form (usually semver).
    pub version: String,
    /// A display name for people (2025-06-18 and later); `None` means the UI shows `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the implementation does, for people (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons a UI may show for the implementation (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The implementation's website (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with this name and version and no optional fields.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            ..Default::default()
        }
    }
}

/// `initialize` params. The version stays a string: an unknown one gets a counter-offer, not an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The latest protocol version the client speaks (`"2025-11-25"`); the server answers with it or
    /// counter-offers the one it prefers.
    pub protocol_version: String,
    /// What the client supports: roots, sampling, elicitation, tasks, extensions.
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// Metadata reserved by MCP; `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The `initialize` result: the version the session speaks, the server's capabilities and identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the session speaks; a client that does not speak it must disconnect.
    pub protocol_version: String,
    /// What the server supports: tools, resources, prompts, logging, completions, tasks, extensions.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, for the client to put into the model's context; `None` when the server has
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Metadata reserved by MCP; `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A capability that only says "list_changed is supported".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The server sends `notifications/<kind>/list_changed` (or, for roots, the client sends
    /// `notifications/roots/list_changed`) when `Some(true)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The server's `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// `resources/subscribe` is supported when `Some(true)` (handshake era).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// `notifications/resources/list_changed` is sent when `Some(true)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The client's `sampling` capability; its presence means `sampling/createMessage` may be sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingCapability {
    /// `Some` when the client honours `includeContext` other than `"none"` (2025-11-25; soft-deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// `Some` when the client accepts `tools` and `toolChoice` in a sampling request (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// Elicitation support. An empty object means form mode only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCapability {
    /// `Some` when form-mode elicitation (a JSON schema of primitives) is supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// `Some` when URL-mode elicitation (an out-of-band page the user opens) is supported (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// Whether form mode is supported: declared, or implied by an empty capability (before 2025-11-25 there
    /// was no `form`).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }
    /// Whether URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// What a client declares it supports, in `initialize` or (2026-07-28) in each request's `_meta`. An absent
/// field is not supported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// The client answers `roots/list`; `list_changed` says whether it sends
    /// `notifications/roots/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<ListChangedCapability>,
    /// The client answers `sampling/createMessage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client answers `elicitation/create`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Which requests the client can run as tasks (2025-11-25), as the spec's `ClientTasksCapability` object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// Non-standard capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions the client supports (2025-11-25 extension mechanism), by identifier such as
    /// `io.modelcontextprotocol/skills`, each with its settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

/// What a server declares it supports. An absent field is not supported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// The server lists and calls tools; `list_changed` says whether it sends
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// The server lists and reads resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server lists and gets prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server sends `notifications/message` logs (and, in the handshake era, accepts `logging/setLevel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The server answers `completion/complete` (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Which requests the server can run as tasks (2025-11-25, or the 2026-07-28 tasks extension), as the
    /// spec's `ServerTasksCapability` object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// Non-standard capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions the server supports, by identifier (such as `io.modelcontextprotocol/skills`), each with
    /// its settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}
