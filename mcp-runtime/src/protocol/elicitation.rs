//! `elicitation/create`: form mode (2025-06-18) and URL mode (2025-11-25).

use super::JsonObject;
use serde::{Deserialize, Serialize};

/// Params of `elicitation/create` (server to client): ask the user for input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// `form` (the default when absent) or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What to ask the user, shown to them.
    pub message: String,
    /// Form mode: a flat object schema of primitives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The id of a URL-mode elicitation (2025-11-25), echoed in `notifications/elicitation/complete`; `None`
    /// in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ElicitParams {
    /// A form-mode request: a message and the flat object schema of the answer.
    pub fn form(message: impl Into<String>, requested_schema: JsonObject) -> Self {
        ElicitParams {
            mode: None,
            message: message.into(),
            requested_schema: Some(requested_schema),
            url: None,
            elicitation_id: None,
            meta: None,
        }
    }
    /// Whether this is a URL-mode elicitation.
    pub fn is_url(&self) -> bool {
        self.mode.as_deref() == Some("url")
    }
}

/// How the user answered an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form (or, in URL mode, agreed to open the URL).
    Accept,
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// Result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// How the user answered.
    pub action: ElicitAction,
    /// Only on a form-mode accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
