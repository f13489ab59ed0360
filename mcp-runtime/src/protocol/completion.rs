//! `completion/complete`.

use super::JsonObject;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What is being completed: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionRef {
    /// An argument of the prompt with this name.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
    },
    /// A variable of the resource template with this URI template.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The resource template's URI template (or a resource's URI).
        uri: String,
    },
}

/// The argument being completed and what the user typed so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's name (for a resource template, the variable's).
    pub name: String,
    /// The partial value to complete.
    pub value: String,
}

/// What else the user has already filled in (2025-06-18 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// The values of the other arguments already resolved, by name; `None` when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Params of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// The prompt or resource template the argument belongs to.
    #[serde(rename = "ref")]
    pub reference: CompletionRef,
    /// The argument and its partial value.
    pub argument: CompletionArgument,
    /// The other arguments already filled in (2025-06-18 and later); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Completion values for an argument.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// The total number of matches, which may exceed the values returned; `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// `Some(true)` when there are more matches than returned, even if `total` is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// Result of `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The values found.
    pub completion: Completion,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
