//! Tasks: a request answered later, polled by its task id.
//!
//! Two wire forms that are not compatible:
//! - **2025-11-25** (core, experimental): the client asks for a task with `params.task{ttl}` on
//!   `tools/call`, gets `CreateTaskResult{task}`, polls `tasks/get`, blocks on `tasks/result`, lists with
//!   `tasks/list`, cancels with `tasks/cancel`; [`Task`] has `ttl` and `pollInterval`.
//! - **2026-07-28**, the extension [`TASKS_EXTENSION`] (SEP-2663): the server decides, the call answers
//!   `resultType: "task"` with a flat task; `tasks/get` returns a [`DetailedTask`] (`ttlMs`,
//!   `pollIntervalMs`, and the `inputRequests`, `result` or `error` of its status); `tasks/update`
//!   carries input responses; `tasks/cancel` is an acknowledgement; no `tasks/list`, no `tasks/result`.

use super::{ErrorObject, InputRequests, InputResponses, JsonObject};
use serde::{Deserialize, Serialize};

/// The extension identifier of tasks in protocol 2026-07-28 (`capabilities.extensions`).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` key of the 2025-11-25 `CreateTaskResult` whose string a host may show the model at once.
pub const MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";

/// Where a task is in its life; the same five values in both eras.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is running.
    Working,
    /// The request waits for input from the requester (an elicitation or sampling it asked for).
    InputRequired,
    /// The request finished; its result is available. Final.
    Completed,
    /// The request failed (a JSON-RPC error, or a tool result with `isError` in 2025-11-25). Final.
    Failed,
    /// The task was cancelled before it finished. Final.
    Cancelled,
}

impl TaskStatus {
    /// `completed`, `failed` and `cancelled` are final: a task never leaves them.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The wire spelling (`"input_required"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// How a tool takes part in tasks (`execution.taskSupport` of a tool, 2025-11-25). `Forbidden` is the
/// default: the tool always answers its call directly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// The tool always answers its call directly; a request for a task is refused.
    #[default]
    Forbidden,
    /// The call may run as a task or directly.
    Optional,
    /// The call always runs as a task: a handshake-era client must ask for one (`-32601` otherwise), a
    /// 2026-07-28 client must declare the tasks extension (`-32021` otherwise).
    Required,
}

impl TaskSupport {
    /// The wire spelling of `execution.taskSupport`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }

    /// The value of `execution.taskSupport`; anything unknown counts as `forbidden`, as the spec's
    /// default does.
    pub fn parse(s: &str) -> Self {
        match s {
            "optional" => TaskSupport::Optional,
            "required" => TaskSupport::Required,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// A task as 2025-11-25 shows it (`tasks/get`, `tasks/list`, `tasks/cancel`, `notifications/tasks/status`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's id, chosen by the receiver; unique among the tasks it keeps.
    pub task_id: String,
    /// Where the task is in its life.
    pub status: TaskStatus,
    /// A human-readable description of the status (why it failed, what input it waits for); `None` when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601.
    pub created_at: String,
    /// ISO 8601.
    pub last_updated_at: String,
    /// Milliseconds from creation the task is kept; `null` for unlimited. Always present.
    pub ttl: Option<u64>,
    /// Suggested milliseconds between `tasks/get` polls; `None` leaves it to the requester.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

/// The answer to a task-augmented request (2025-11-25): the task, not yet the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The task just created, usually `working`.
    pub task: Task,
    /// Metadata reserved by MCP (`_meta`); `None` when absent. A host may show the model the string under
    /// [`MODEL_IMMEDIATE_RESPONSE`] at once.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `params.task` of a task-augmented request (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// The lifetime the requestor would like, in milliseconds from creation (the receiver may choose another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// Params of `tasks/get`, `tasks/result`, `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The id of the task.
    pub task_id: String,
}

/// The result of `tasks/list` (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// This page's tasks.
    pub tasks: Vec<Task>,
    /// The cursor of the next page; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `_meta["io.modelcontextprotocol/related-task"]` on every message that belongs to a task (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTask {
    /// The id of the task the message belongs to.
    pub task_id: String,
}

/// A task as the 2026-07-28 extension shows it: the handle a call answers with (`resultType: "task"`,
/// no `inputRequests`, `result` or `error`), and what `tasks/get` and `notifications/tasks` return, with
/// the field its status carries: `inputRequests` when `input_required`, `result` when `completed` (what
/// the call would have returned, `isError` tool results included), `error` when `failed` (the
/// JSON-RPC error of the call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task's id, chosen by the server.
    pub task_id: String,
    /// Where the task is in its life; says which of `inputRequests`, `result` and `error` is present.
    pub status: TaskStatus,
    /// A human-readable description of the status; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601.
    pub created_at: String,
    /// ISO 8601.
    pub last_updated_at: String,
    /// Milliseconds from creation the task is kept; `null` for unlimited. Always present.
    pub ttl_ms: Option<u64>,
    /// Suggested milliseconds between `tasks/get` polls; `None` leaves it to the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// What the task asks for, by key, when the status is `input_required`; answered with `tasks/update`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// What the call would have returned, when the status is `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// The JSON-RPC error the call ended with, when the status is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `tasks/update` (2026-07-28): answers to the task's outstanding `inputRequests`, by key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The id of the task waiting for input.
    pub task_id: String,
    /// The answers, under the keys of the `inputRequests` they answer.
    pub input_responses: InputResponses,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_task_shapes_name_their_fields_as_their_spec_does() {
        let t = Task {
            task_id: "t1".into(),
            status: TaskStatus::InputRequired,
            status_message: None,
            created_at: "2025-11-25T10:30:00Z".into(),
            last_updated_at: "2025-11-25T10:30:00Z".into(),
            ttl: None,
            poll_interval: Some(500),
        };
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            serde_json::json!({"taskId": "t1", "status": "input_required", "createdAt": "2025-11-25T10:30:00Z",
                "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null, "pollInterval": 500})
        );
        let d: DetailedTask = serde_json::from_value(serde_json::json!({
            "taskId": "t2", "status": "failed", "createdAt": "x", "lastUpdatedAt": "y", "ttlMs": 60000,
            "error": {"code": -32603, "message": "boom"}
        }))
        .unwrap();
        assert_eq!(d.ttl_ms, Some(60000));
        assert_eq!(d.error.unwrap().code, -32603);
        assert!(TaskStatus::Cancelled.is_terminal() && !TaskStatus::InputRequired.is_terminal());
        assert_eq!(TaskSupport::parse("required"), TaskSupport::Required);
        assert_eq!(TaskSupport::parse("bogus"), TaskSupport::Forbidden);
    }
}
