//! Tasks whose instance stopped. With a store that keeps leases ([`TaskStore::instance`]), a task's
//! record names the instance that runs its handler, and that instance keeps a heartbeat in the store.
//! Whoever reads an unfinished task of another instance (`tasks/get`, `tasks/result`, `tasks/list`,
//! `tasks/cancel`, `tasks/update`) asks the store to fail it if that heartbeat has lapsed
//! ([`TaskStore::update_orphan`], atomic): the task becomes `failed`, with a JSON-RPC error (`-32603`)
//! as its outcome and the same words as its status message, as the 2025-11-25 tasks utility and the
//! 2026-07-28 tasks extension want a failed request reported. A `tasks/result` that waits on another
//! instance reads the record every poll interval and so ends with that error.

use super::store::{now_ms, TaskOutcome, TaskRecord, TaskUpdate, Updated};
use super::Shared;
#[allow(unused_imports)] // for the docs' links
use super::TaskStore;
use crate::protocol::{ErrorObject, TaskStatus};

/// The failure of a task whose instance stopped.
fn orphaned(instance: &str) -> TaskUpdate {
    let error = ErrorObject::internal(format!(
        "Internal error: the server instance that ran this task ({instance}) stopped before the task \
         finished; its work is lost, start it again"
    ))
    .with_data(serde_json::json!({"reason": "instance_stopped", "instance": instance}));
    TaskUpdate::Finish {
        status: TaskStatus::Failed,
        message: Some(error.message.clone()),
        outcome: TaskOutcome::Error(error),
    }
}

/// The task as it stands: `r`, or `r` failed if the instance that runs it stopped; `None` if the task
/// is gone.
pub(crate) async fn settle(
    shared: &Shared,
    r: TaskRecord,
) -> Result<Option<TaskRecord>, crate::server::tasks::StoreError> {
    if r.status.is_terminal() {
        return Ok(Some(r));
    }
    let Some(runner) = r.instance.as_deref() else {
        return Ok(Some(r));
    };
    // Our own tasks: this instance is alive, and a handler that ended here recorded its end.
    if shared.store.instance() == Some(runner) {
        return Ok(Some(r));
    }
    let update = orphaned(runner);
    match shared.store.update_orphan(&r, update, now_ms()).await? {
        None => Ok(Some(r)),
        Some(Updated::Missing) => Ok(None),
        Some(Updated::Task { record, changed }) => {
            if changed {
                tracing::warn!(task = %record.id, tool = %record.tool, instance = %runner,
                    "task failed: the instance that ran it stopped");
            }
            Ok(Some(*record))
        }
    }
}
