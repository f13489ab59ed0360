//! Params of the utility notifications: cancellation and progress.

use super::{JsonObject, ProgressToken, RequestId};
use serde::{Deserialize, Serialize};

/// `notifications/cancelled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    pub request_id: RequestId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    pub progress_token: ProgressToken,
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The `_meta` every request may carry; only `progressToken` matters to the runtime.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    #[serde(flatten)]
    pub other: JsonObject,
}

/// Method names, in one place.
pub mod methods {
    pub const INITIALIZE: &str = "initialize";
    pub const PING: &str = "ping";
    pub const TOOLS_LIST: &str = "tools/list";
    pub const TOOLS_CALL: &str = "tools/call";
    pub const RESOURCES_LIST: &str = "resources/list";
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    pub const RESOURCES_READ: &str = "resources/read";
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    pub const PROMPTS_LIST: &str = "prompts/list";
    pub const PROMPTS_GET: &str = "prompts/get";
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    pub const ROOTS_LIST: &str = "roots/list";
    /// The skills extension (SEP-2640).
    pub const SKILLS_LIST: &str = "skills/list";
    pub const SKILLS_GET: &str = "skills/get";
    pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";
    pub const SERVER_DISCOVER: &str = "server/discover";
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    pub const TASKS_GET: &str = "tasks/get";
    pub const TASKS_RESULT: &str = "tasks/result";
    pub const TASKS_LIST: &str = "tasks/list";
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    pub const TASKS_UPDATE: &str = "tasks/update";

    pub const INITIALIZED: &str = "notifications/initialized";
    pub const CANCELLED: &str = "notifications/cancelled";
    pub const PROGRESS: &str = "notifications/progress";
    pub const MESSAGE: &str = "notifications/message";
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
}
