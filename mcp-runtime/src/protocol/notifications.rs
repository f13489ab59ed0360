//! Params of the utility notifications: cancellation and progress.

use super::{JsonObject, ProgressToken, RequestId};
use serde::{Deserialize, Serialize};

/// `notifications/cancelled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The id of the request to cancel, as the sender of that request gave it (a request the receiver never
    /// saw, or has already answered, is ignored).
    pub request_id: RequestId,
    /// Why the request was cancelled, for logs; may be shown to a user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The `progressToken` the request's `_meta` carried: which request this progress is about.
    pub progress_token: ProgressToken,
    /// Progress so far; it must grow with every notification for the same token, and may be fractional.
    pub progress: f64,
    /// The total the progress counts up to, when known; `None` when the sender cannot tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable description of the current step (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The `_meta` every request may carry; only `progressToken` matters to the runtime.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestMeta {
    /// Asks the receiver to send `notifications/progress` for this request, under this token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// Every other `_meta` key, kept as sent (2026-07-28's `io.modelcontextprotocol/*` keys among them).
    #[serde(flatten)]
    pub other: JsonObject,
}

/// Method names, in one place.
pub mod methods {
    /// Opens a handshake-era session: version, capabilities and implementation info of both sides.
    pub const INITIALIZE: &str = "initialize";
    /// Either side checks that the other is alive; answered with an empty result.
    pub const PING: &str = "ping";
    /// Lists the server's tools, paginated.
    pub const TOOLS_LIST: &str = "tools/list";
    /// Calls one tool with its arguments.
    pub const TOOLS_CALL: &str = "tools/call";
    /// Lists the server's resources, paginated.
    pub const RESOURCES_LIST: &str = "resources/list";
    /// Lists the server's resource templates (RFC 6570 URI templates), paginated.
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// Reads the contents of one resource by URI.
    pub const RESOURCES_READ: &str = "resources/read";
    /// Asks for `notifications/resources/updated` whenever one resource changes (handshake era).
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    /// Ends a `resources/subscribe`.
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    /// Lists the server's prompts, paginated.
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// Renders one prompt with its arguments into messages.
    pub const PROMPTS_GET: &str = "prompts/get";
    /// Asks the server for completions of a prompt or resource-template argument.
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// Sets the minimum level of the `notifications/message` logs the server sends (handshake era).
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// Server to client: asks the client's LLM for a completion.
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// Server to client: asks the user for input, through a form or a URL (2025-06-18 and later).
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// Server to client: lists the client's filesystem roots.
    pub const ROOTS_LIST: &str = "roots/list";
    /// The skills extension (SEP-2640).
    pub const SKILLS_LIST: &str = "skills/list";
    /// The skills extension (SEP-2640): the entry of one skill, by its `skill://` URI.
    pub const SKILLS_GET: &str = "skills/get";
    /// The skills extension (SEP-2640): the entries of a directory of a skill, paginated.
    pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";
    /// 2026-07-28: what the server is and speaks (versions, capabilities, info), asked without a session.
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// 2026-07-28: a long-lived request whose stream carries the change notifications the client subscribed
    /// to.
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// Tasks (2025-11-25, and the 2026-07-28 extension): the state of one task.
    pub const TASKS_GET: &str = "tasks/get";
    /// Tasks, 2025-11-25: waits for a task to end and returns the result of the request it ran.
    pub const TASKS_RESULT: &str = "tasks/result";
    /// Tasks, 2025-11-25: lists the requester's tasks, paginated.
    pub const TASKS_LIST: &str = "tasks/list";
    /// Tasks: asks the receiver to cancel a task.
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// Tasks, 2026-07-28 extension: answers the `inputRequests` of a task that waits for input.
    pub const TASKS_UPDATE: &str = "tasks/update";

    /// Client to server, handshake era: sent once after the `initialize` result; normal operation begins.
    pub const INITIALIZED: &str = "notifications/initialized";
    /// Either side: the sender no longer wants the answer to one of its requests.
    pub const CANCELLED: &str = "notifications/cancelled";
    /// Either side: progress of a request that asked for it with a `progressToken`.
    pub const PROGRESS: &str = "notifications/progress";
    /// Server to client: one log message, at or above the level the client set.
    pub const MESSAGE: &str = "notifications/message";
    /// Server to client: the list of tools changed; list again.
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// Server to client: the list of resources changed; list again.
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// Server to client: one subscribed resource changed; read it again.
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// Server to client: the list of prompts changed; list again.
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// Client to server: the client's roots changed; the server may ask `roots/list` again.
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    /// Server to client: the out-of-band interaction of a URL-mode elicitation finished (2025-11-25).
    pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
    /// 2026-07-28: the first message of a `subscriptions/listen` stream, naming the subscriptions it serves.
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    /// Tasks: the status of a task changed (sent only to a requester that may receive it).
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
}
