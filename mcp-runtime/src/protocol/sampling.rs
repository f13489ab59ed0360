//! `sampling/createMessage`.

use super::{JsonObject, Role};
use serde::{Deserialize, Serialize};

/// Content of a sampling message: one block, or (2025-11-25) an array of blocks. Kept as JSON so that
/// `tool_use` and `tool_result` blocks pass through untouched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it: the user or the assistant.
    pub role: Role,
    /// One content block, or (2025-11-25) an array of them, as JSON: `text`, `image`, `audio`, `tool_use`,
    /// `tool_result`.
    pub content: serde_json::Value,
}

impl SamplingMessage {
    /// A user message with one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::User,
            content: serde_json::json!({"type": "text", "text": text.into()}),
        }
    }
}

/// The server's preferences for the model the client picks. Advisory: the client decides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model names or families to prefer, in order (`"claude-3-5-sonnet"`, `"sonnet"`); the client may map
    /// them to equivalents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much low cost matters, from 0 (not at all) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much low latency matters, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// A hint for model selection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A substring of a model name to prefer; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Params of `sampling/createMessage` (server to client): a conversation for the client's LLM to continue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the model may generate; the client may sample fewer.
    pub max_tokens: u32,
    /// A system prompt the server wants; the client may change or ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which model the server would like; `None` leaves it to the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// `none`, `thisServer` or `allServers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature; `None` leaves it to the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Sequences that stop generation; `None` when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata passed through to the LLM provider; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call while sampling (2025-11-25; the client must declare `sampling.tools`); `None`
    /// when none are offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<serde_json::Value>>,
    /// How the model may use `tools` (`{"mode": "auto" | "required" | "none"}`, 2025-11-25); `None` means
    /// auto.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<serde_json::Value>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `sampling/createMessage`: the model's message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who says it; usually the assistant.
    pub role: Role,
    /// One content block, or (2025-11-25) an array of them, as JSON (`tool_use` blocks when the model called
    /// a tool).
    pub content: serde_json::Value,
    /// The name of the model that generated the message.
    pub model: String,
    /// `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or another string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
