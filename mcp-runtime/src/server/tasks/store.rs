//! Where tasks are kept: the [`TaskStore`] trait and its records.
//!
//! A store holds plain, serializable [`TaskRecord`]s; the running handlers stay in the process that runs
//! them. Every change is one [`TaskUpdate`] that the store applies atomically under the task lifecycle's
//! one rule: a terminal status (`completed`, `failed`, `cancelled`) is final, so a handler that finishes
//! after its task was cancelled changes nothing. That keeps a shared store (Redis, say) correct when the
//! instance that cancels a task is not the one that runs it. [`super::MemoryTaskStore`] is the default.

use crate::future::BoxFuture;
use crate::protocol::{ErrorObject, InputRequest, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// Which wire form a task was created under: it decides how its outcome sets its status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskEra {
    /// 2025-11-25 (a task-augmented request): a tool result with `isError` makes the task `failed`.
    Handshake,
    /// 2026-07-28, the tasks extension: any tool result makes it `completed`; only a JSON-RPC error
    /// makes it `failed`.
    Extension,
}

/// How a task's request ended: what the request would have answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// The result, serialized once (a `CallToolResult`).
    Result(Box<RawValue>),
    /// The JSON-RPC error.
    Error(ErrorObject),
}

impl PartialEq for TaskOutcome {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (TaskOutcome::Result(a), TaskOutcome::Result(b)) => a.get() == b.get(),
            (TaskOutcome::Error(a), TaskOutcome::Error(b)) => a == b,
            _ => false,
        }
    }
}

/// One task as a store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// 128 random bits, hex: unguessable, as the spec requires of ids that may be bearer handles.
    pub id: String,
    /// Who may see it (`principal:<name>`, `session:<id>` or `anonymous`; see [`super`], "Ownership").
    pub owner: String,
    /// Which wire the task follows (2025-11-25 or the 2026-07-28 extension), and so how its outcome maps to a
    /// status.
    pub era: TaskEra,
    /// The tool it runs (for logs and listings).
    pub tool: String,
    /// Where the task is in its life.
    pub status: TaskStatus,
    /// Why it is in that status (the failure's message, what it waits for); `None` when there is nothing to
    /// say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Milliseconds since the Unix epoch of the last change of status, message or input requests.
    pub last_updated_at_ms: u64,
    /// Lifetime from creation; the task may be deleted once it has passed, whatever its status.
    pub ttl_ms: u64,
    /// Suggested milliseconds between polls, as `tasks/get` reports it.
    pub poll_interval_ms: u64,
    /// What the handler waits for, by key (shown by 2026-07-28 `tasks/get` while `input_required`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_requests: BTreeMap<String, InputRequest>,
    /// Set once the status is `completed` or `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<TaskOutcome>,
    /// The instance whose handler runs the task, when the store keeps leases ([`TaskStore::instance`]):
    /// another instance that finds the task unfinished after that one stopped fails it
    /// ([`TaskStore::update_orphan`]). `None` with a store that keeps none (the memory store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

impl TaskRecord {
    /// Milliseconds since the Unix epoch after which the task may be deleted (`created_at_ms + ttl_ms`,
    /// saturating).
    pub fn expires_at_ms(&self) -> u64 {
        self.created_at_ms.saturating_add(self.ttl_ms)
    }

    /// Whether the task's lifetime has passed at `now_ms` (milliseconds since the Unix epoch).
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms() <= now_ms
    }

    /// Roughly the memory the record holds, for a store's byte budget.
    pub fn approx_bytes(&self) -> usize {
        let outcome = match &self.outcome {
            Some(TaskOutcome::Result(r)) => r.get().len(),
            Some(TaskOutcome::Error(e)) => {
                e.message.len() + e.data.as_ref().map_or(0, |d| d.to_string().len())
            }
            None => 0,
        };
        let inputs: usize = self
            .input_requests
            .iter()
            .map(|(k, r)| k.len() + serde_json::to_string(r).map_or(0, |s| s.len()))
            .sum();
        256 + self.id.len()
            + self.owner.len()
            + self.tool.len()
            + self.status_message.as_ref().map_or(0, String::len)
            + self.instance.as_ref().map_or(0, String::len)
            + outcome
            + inputs
    }

    /// Applies one change at `now_ms`; whether anything changed. A terminal record never changes.
    pub fn apply(&mut self, update: TaskUpdate, now_ms: u64) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        match update {
            TaskUpdate::Inputs(requests) => {
                let status = if requests.is_empty() {
                    TaskStatus::Working
                } else {
                    TaskStatus::InputRequired
                };
                if status == self.status && requests == self.input_requests {
                    return false;
                }
                if status != self.status {
                    self.status_message = None;
                }
                self.status = status;
                self.input_requests = requests;
            }
            TaskUpdate::Message(message) => {
                if self.status_message == message {
                    return false;
                }
                self.status_message = message;
            }
            TaskUpdate::Finish {
                status,
                outcome,
                message,
            } => {
                self.status = status;
                self.outcome = Some(outcome);
                self.status_message = message;
                self.input_requests.clear();
            }
            TaskUpdate::Cancel { message } => {
                self.status = TaskStatus::Cancelled;
                self.status_message = Some(message);
                self.input_requests.clear();
            }
        }
        self.last_updated_at_ms = now_ms.max(self.last_updated_at_ms);
        true
    }
}

/// One change to a task, applied atomically by the store (and never to a terminal task).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskUpdate {
    /// The requests the handler now waits for: `input_required` if any, `working` if none.
    Inputs(BTreeMap<String, InputRequest>),
    /// A new status message (`None` clears it).
    Message(Option<String>),
    /// The handler ended: `completed` or `failed`, with what the request answered.
    Finish {
        /// `Completed` or `Failed`.
        status: TaskStatus,
        /// What the request answered.
        outcome: TaskOutcome,
        /// The status message to set; `None` clears it.
        message: Option<String>,
    },
    /// `tasks/cancel` (or the end of the session that owned it).
    Cancel {
        /// The status message the cancelled task keeps.
        message: String,
    },
}

/// What a store answers an update with.
#[derive(Debug, Clone, PartialEq)]
pub enum Updated {
    /// No such task (never created, deleted, or purged).
    Missing,
    /// The task as it is now, and whether this update changed it (a terminal task never changes).
    Task {
        /// The task after the update.
        record: Box<TaskRecord>,
        /// Whether the update changed it.
        changed: bool,
    },
}

/// One page of an owner's tasks, oldest first, and the cursor of the next.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskPage {
    /// This page's tasks, oldest first.
    pub tasks: Vec<TaskRecord>,
    /// The cursor of the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Why a store refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// A bound of the store is reached; `limit` names it.
    Full {
        /// What is full, such as the tasks of one owner.
        what: &'static str,
        /// The bound that was reached.
        limit: usize,
    },
    /// A cursor this store did not give out (or one whose task is gone); answered with `-32602`.
    BadCursor(String),
    /// The store could not be reached or answered nonsense.
    Backend(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Full { what, limit } => write!(f, "{what}: the limit is {limit}"),
            StoreError::BadCursor(cursor) => write!(f, "unknown cursor {cursor:?}"),
            StoreError::Backend(why) => write!(f, "task store: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// The JSON-RPC error a request gets for it.
    pub fn to_error(&self) -> ErrorObject {
        match self {
            StoreError::Full { what, limit } => ErrorObject::internal(format!(
                "Internal error: no room for another task ({what}: the limit is {limit}); wait for running \
                 tasks to finish or cancel some"
            ))
            .with_data(serde_json::json!({"reason": "task_limit", "limit": limit, "what": what})),
            StoreError::BadCursor(c) => {
                ErrorObject::invalid_params(format!("Invalid params: unknown cursor {c:?}"))
                    .with_data(serde_json::json!({"field": "cursor"}))
            }
            StoreError::Backend(e) => ErrorObject::internal(format!("Internal error: task store: {e}")),
        }
    }
}

/// Keeps task records. Implementations are shared by every session of a server (and, for a shared
/// backend, by every instance of it); each method is one atomic operation. They must bound what they
/// hold and refuse a [`TaskStore::create`] with [`StoreError::Full`] rather than grow without limit.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task. The task must be visible to [`TaskStore::get`] when this returns (the spec
    /// forbids answering with a task id that a `tasks/get` cannot find yet).
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The task, if the store still has it (expired ones may still be returned until purged).
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Applies one change (see [`TaskRecord::apply`]) at `now_ms`.
    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Updated, StoreError>>;

    /// The owner's tasks, oldest first, `limit` at a time, from a cursor this store issued.
    fn list<'a>(
        &'a self,
        owner: &'a str,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, StoreError>>;

    /// Deletes a task; whether it existed.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Deletes every task whose lifetime has passed at `now_ms`; their ids.
    fn purge_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<Vec<String>, StoreError>>;

    /// This instance's name in the records of the tasks it runs ([`TaskRecord::instance`]), when the
    /// store keeps a lease for it (a heartbeat the other instances can check); `None` (the default)
    /// when it keeps none: then no task is ever failed for its instance having stopped.
    fn instance(&self) -> Option<&str> {
        None
    }

    /// Applies `update` (the failure that says so) to the task `seen` shows, if the instance named in it
    /// ([`TaskRecord::instance`]) no longer holds its lease and the task has not ended: atomically, so
    /// that of several instances that try at once only one changes it, a task that has just ended
    /// keeps its end, and the task of an instance that is alive is left alone. `Ok(None)`: that
    /// instance is alive (or the store keeps no leases, the default), nothing changed.
    fn update_orphan<'a>(
        &'a self,
        seen: &'a TaskRecord,
        update: TaskUpdate,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<Updated>, StoreError>> {
        let _ = (seen, update, now_ms);
        Box::pin(async { Ok(None) })
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `ms` since the Unix epoch as an ISO 8601 / RFC 3339 UTC timestamp with milliseconds.
pub(crate) fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

/// A working task of `owner`, for tests.
#[cfg(test)]
pub(crate) fn test_record(id: &str, owner: &str, created: u64, ttl: u64) -> TaskRecord {
    TaskRecord {
        id: id.into(),
        owner: owner.into(),
        era: TaskEra::Extension,
        tool: "t".into(),
        status: TaskStatus::Working,
        status_message: None,
        created_at_ms: created,
        last_updated_at_ms: created,
        ttl_ms: ttl,
        poll_interval_ms: 500,
        input_requests: BTreeMap::new(),
        outcome: None,
        instance: None,
    }
}

#[cfg(test)]
mod tests {
    use super::test_record as record;
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_764_066_600_123), "2025-11-25T10:30:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn a_terminal_status_is_final() {
        let mut r = record("a", "o", 10, 1000);
        let mut asks = BTreeMap::new();
        asks.insert("k".to_string(), InputRequest::ListRoots);
        assert!(r.apply(TaskUpdate::Inputs(asks), 20));
        assert_eq!(r.status, TaskStatus::InputRequired);
        assert!(r.apply(
            TaskUpdate::Cancel {
                message: "by request".into()
            },
            30
        ));
        assert_eq!(
            (r.status, r.last_updated_at_ms),
            (TaskStatus::Cancelled, 30)
        );
        assert!(r.input_requests.is_empty());
        let finish = TaskUpdate::Finish {
            status: TaskStatus::Completed,
            outcome: TaskOutcome::Error(ErrorObject::internal("late")),
            message: None,
        };
        assert!(!r.apply(finish, 40), "a cancelled task stays cancelled");
        assert_eq!(
            (r.status, r.last_updated_at_ms),
            (TaskStatus::Cancelled, 30)
        );
        assert!(r.outcome.is_none());
    }

    #[test]
    fn records_survive_serialization() {
        let mut r = record("a", "o", 10, 1000);
        r.apply(
            TaskUpdate::Finish {
                status: TaskStatus::Completed,
                outcome: TaskOutcome::Result(
                    serde_json::value::to_raw_value(&serde_json::json!({"content": []})).unwrap(),
                ),
                message: Some("done".into()),
            },
            11,
        );
        let text = serde_json::to_string(&r).unwrap();
        let back: TaskRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
        assert!(r.is_expired(1010) && !r.is_expired(1009));
    }
}
