//! A task's record as each wire shows it: 2025-11-25's `Task`, the 2026-07-28 extension's `DetailedTask`.

use super::store::{TaskOutcome, TaskRecord};
use crate::protocol::*;

/// A task as 2025-11-25 shows it.
pub(crate) fn handshake_task(r: &TaskRecord) -> Task {
    Task {
        task_id: r.id.clone(),
        status: r.status,
        status_message: r.status_message.clone(),
        created_at: super::store::iso8601(r.created_at_ms),
        last_updated_at: super::store::iso8601(r.last_updated_at_ms),
        ttl: Some(r.ttl_ms),
        poll_interval: Some(r.poll_interval_ms),
    }
}

/// A task as the 2026-07-28 extension shows it; `detailed` adds what its status carries (`tasks/get`).
pub(crate) fn extension_task(r: &TaskRecord, detailed: bool) -> DetailedTask {
    // A 2025-11-25 task that ended with an `isError` result is `failed` there and `completed` here.
    let status = match (&r.outcome, r.status) {
        (Some(TaskOutcome::Result(_)), TaskStatus::Failed) => TaskStatus::Completed,
        (_, s) => s,
    };
    let mut t = DetailedTask {
        task_id: r.id.clone(),
        status,
        status_message: r.status_message.clone(),
        created_at: super::store::iso8601(r.created_at_ms),
        last_updated_at: super::store::iso8601(r.last_updated_at_ms),
        ttl_ms: Some(r.ttl_ms),
        poll_interval_ms: Some(r.poll_interval_ms),
        input_requests: None,
        result: None,
        error: None,
        meta: None,
    };
    if !detailed {
        return t;
    }
    match (status, &r.outcome) {
        (TaskStatus::InputRequired, _) => t.input_requests = Some(r.input_requests.clone()),
        (TaskStatus::Completed, Some(TaskOutcome::Result(raw))) => {
            t.result = serde_json::from_str(raw.get()).ok()
        }
        (TaskStatus::Failed, Some(TaskOutcome::Error(e))) => t.error = Some(e.clone()),
        _ => {}
    }
    t
}
