//! Prompts: list and get.

use super::{ContentBlock, Cursor, Icon, JsonObject, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A prompt template the server offers (`prompts/list`), usually picked by the user (a slash command, for
/// instance).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// The prompt's name, unique on the server; the `name` of `prompts/get`.
    pub name: String,
    /// A display name for people (2025-06-18 and later); `None` means the UI shows `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments the prompt takes; `None` when it takes none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons a UI may show (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One argument of a prompt. Its value is always a string.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// The argument's name, the key in `prompts/get`'s `arguments`.
    pub name: String,
    /// A display name for people (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument means; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `Some(true)` when `prompts/get` must be given this argument; `None` means optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// Result of `prompts/list`: one page of prompts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// This page's prompts.
    pub prompts: Vec<Prompt>,
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

/// Params of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptParams {
    /// The prompt's name; an unknown one is answered with `-32602`.
    pub name: String,
    /// Argument values are strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One message of a prompt. `content` is exactly one block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it: the user or the assistant.
    pub role: Role,
    /// What is said: text, an image, audio, a resource link or an embedded resource.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage {
            role: Role::User,
            content: ContentBlock::text(text),
        }
    }
    /// An assistant message with one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: ContentBlock::text(text),
        }
    }
}

/// Result of `prompts/get`: the prompt rendered as messages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// A description of the rendered prompt; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in order, for the host to put into the conversation.
    pub messages: Vec<PromptMessage>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
