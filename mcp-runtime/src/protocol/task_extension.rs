//! The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` may be
//! answered with `resultType: "task"` and a task handle; the client polls `tasks/get` (whose answer
//! inlines the result, the error or the pending input requests), answers input with `tasks/update`, and
//! may `tasks/cancel`. `tasks/result` and `tasks/list` of 2025-11-25 are gone; durations are in `…Ms`.

use super::{ErrorObject, InputRequests, InputResponses, JsonObject, Task, TaskStatus};
use serde::{Deserialize, Serialize};

/// The extension's identifier, declared in `capabilities.extensions`.
pub const TASKS_EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

/// `notifications/tasks`: a task's new state, as `tasks/get` would give it.
pub const TASKS_NOTIFICATION: &str = "notifications/tasks";

/// A task with its status's payload inlined (`DetailedTask`): the answer of `tasks/get`, the body of a
/// `resultType: "task"` result (its seed state), and the params of `notifications/tasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    pub task_id: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    pub created_at: String,
    pub last_updated_at: String,
    /// Milliseconds from creation the task is kept; `null`: unlimited.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// How often to poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// `input_required`: what the server needs, keyed by ids unique over the task's life.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// `completed`: the original request's result (for `tools/call`, a `CallToolResult`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// `failed`: the JSON-RPC error the request failed with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl DetailedTask {
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.status,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

impl From<Task> for DetailedTask {
    /// A 2025-11-25 task in the extension's shape (its `ttl` and `pollInterval` were milliseconds too).
    fn from(t: Task) -> Self {
        DetailedTask {
            task_id: t.task_id,
            status: t.status,
            status_message: t.status_message,
            created_at: t.created_at,
            last_updated_at: t.last_updated_at,
            ttl_ms: t.ttl,
            poll_interval_ms: t.poll_interval,
            input_requests: None,
            result: None,
            error: None,
            meta: None,
        }
    }
}

/// Params of `tasks/update`: answers to some or all of a task's pending input requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    pub task_id: String,
    pub input_responses: InputResponses,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_wire_shape() {
        let t: DetailedTask = serde_json::from_value(json!({
            "resultType": "complete", "taskId": "t1", "status": "input_required",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:01Z",
            "ttlMs": null, "pollIntervalMs": 250,
            "inputRequests": {"k": {"method": "roots/list"}}
        }))
        .unwrap();
        assert_eq!(t.status, TaskStatus::InputRequired);
        assert_eq!(t.ttl_ms, None);
        assert_eq!(t.poll_interval_ms, Some(250));
        assert!(t.input_requests.unwrap().contains_key("k"));
        assert!(!serde_json::from_value::<DetailedTask>(json!({
            "taskId": "t", "status": "completed", "createdAt": "a", "lastUpdatedAt": "b",
            "ttlMs": 5, "result": {"content": []}
        }))
        .unwrap()
        .result
        .unwrap()
        .is_empty());
    }
}
