//! `tools/list` and `tools/call`.

use super::{ContentBlock, Cursor, Icon, JsonObject};
use serde::{Deserialize, Serialize};

/// A tool as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The tool's name, unique on the server; the `name` of `tools/call`. 2025-11-25 recommends 1 to 128
    /// characters of `A-Za-z0-9_-.`.
    pub name: String,
    /// A display name for people (2025-06-18 and later); `None` means the UI shows the annotations' title or
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model (it is part of the prompt); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Always an object schema with `type: "object"`.
    pub input_schema: JsonObject,
    /// The JSON Schema of `structuredContent` (2025-06-18 and later); when present, a successful result must
    /// carry structured content that conforms to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Untrusted hints about the tool's behaviour; `None` when the server gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons a UI may show (2025-11-25); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// How the tool takes part in tasks (2025-11-25); `None` means it never runs as one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Tool {
    /// A tool with a name, description and input schema.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: JsonObject,
    ) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
        }
    }

    /// How this tool takes part in tasks (`execution.taskSupport`; absent means `forbidden`).
    pub fn task_support(&self) -> super::TaskSupport {
        self.execution
            .as_ref()
            .and_then(|e| e.task_support.as_deref())
            .map_or(super::TaskSupport::Forbidden, super::TaskSupport::parse)
    }
}

/// Untrusted hints about a tool's behaviour.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name for people (2025-03-26); [`Tool::title`] wins when both are set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment when `Some(true)`; `None` means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (meaningful only when not read-only); `None` means `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling again with the same arguments has no further effect (meaningful only when not read-only);
    /// `None` means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world of external entities (the web, for instance), not a closed domain;
    /// `None` means `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Task support of a tool (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// `"forbidden"`, `"optional"` or `"required"` (see [`TaskSupport`](super::TaskSupport)); `None` means
    /// forbidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<String>,
}

/// Result of `tools/list`: one page of tools.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// This page's tools.
    pub tools: Vec<Tool>,
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

/// Params of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallToolParams {
    /// The name of the tool to call; an unknown name is answered with `-32602`.
    pub name: String,
    /// The arguments, checked against the tool's `inputSchema`; `None` is the same as `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// `{ttl?}` when the client asks for the call to run as a task (2025-11-25); `None` for a direct call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<JsonObject>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent. `progressToken` and the 2026-07-28
    /// `io.modelcontextprotocol/*` keys go here.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `tools/call`. A tool's own failure is `is_error: true`, not a JSON-RPC error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured content for the model: text, images, audio, resource links, embedded resources.
    pub content: Vec<ContentBlock>,
    /// The result as JSON (2025-06-18 and later), conforming to the tool's `outputSchema` when it has one;
    /// `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<serde_json::Value>,
    /// `Some(true)` when the tool failed; the content then says why, for the model to see. `None` means
    /// `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(text)],
            ..Default::default()
        }
    }
    /// A successful result with these blocks.
    pub fn content(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }
    /// A failed result (`isError: true`) whose text says what went wrong.
    pub fn error(text: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(text)],
            is_error: Some(true),
            ..Default::default()
        }
    }
    /// A structured result, with its serialized copy as a text block (as the spec recommends).
    pub fn structured(value: serde_json::Value) -> Self {
        let text = value.to_string();
        CallToolResult {
            content: vec![ContentBlock::text(text)],
            structured_content: Some(value),
            ..Default::default()
        }
    }
    /// Whether the tool reported a failure (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
    /// The text blocks joined by newlines.
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect();
        texts.join("\n")
    }
}
