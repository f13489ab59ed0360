//! The `tasks/*` methods of both eras, and how a task record looks on each wire.

use super::input::answer;
pub(crate) use super::render::{extension_task, handshake_task};
use super::store::{now_ms, TaskEra, TaskOutcome, TaskRecord, TaskUpdate, Updated};
use super::{Shared, Tasks};
use crate::connection::{Reply, RequestIn};
use crate::framing::{parse_params, to_raw};
use crate::protocol::meta::keys;
use crate::protocol::*;
use crate::server::era::ModernRequest;
use crate::server::mrtr::Binding;
use crate::server::session_state::SessionState;
use crate::server::stamp::Stamp;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::sync::Arc;

fn not_found(id: &str, why: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Failed to retrieve task: {why}"))
        .with_data(serde_json::json!({ "taskId": id }))
}

/// The task `id` of `owner`: `-32602` if it does not exist, belongs to someone else, or has expired.
async fn find(shared: &Shared, id: &str, owner: &str) -> Result<TaskRecord, ErrorObject> {
    match shared.store.get(id).await {
        Err(e) => Err(e.to_error()),
        Ok(Some(r)) if r.owner == owner => {
            if r.is_expired(now_ms()) {
                return Err(not_found(id, "Task has expired"));
            }
            // Failed here if the instance that runs it stopped.
            match super::lease::settle(shared, r).await {
                Ok(Some(r)) => Ok(r),
                Ok(None) => Err(not_found(id, "Task not found")),
                Err(e) => Err(e.to_error()),
            }
        }
        // Another owner's task is reported exactly like a missing one.
        Ok(_) => Err(not_found(id, "Task not found")),
    }
}

/// Cancels a task that has not ended: recorded before the answer (so the next `tasks/get` says
/// `cancelled`), then the handler is stopped. The record as it is now.
async fn cancel(shared: &Shared, id: &str) -> Result<TaskRecord, ErrorObject> {
    let update = TaskUpdate::Cancel {
        message: "The task was cancelled by request.".into(),
    };
    let run = shared.running(id);
    let record = match &run {
        Some(run) => run.update(update).await,
        None => match shared.store.update(id, update, now_ms()).await {
            Ok(Updated::Task { record, .. }) => Some(*record),
            Ok(Updated::Missing) => None,
            Err(e) => return Err(e.to_error()),
        },
    };
    match run {
        Some(run) => run.token.cancel(),
        None if record.is_some() => shared.announce_cancel(id).await,
        None => {}
    }
    record.ok_or_else(|| not_found(id, "Task not found"))
}

fn spawn(
    fut: impl std::future::Future<Output = Result<Box<RawValue>, ErrorObject>> + Send + 'static,
) -> Reply {
    Reply::Spawn {
        fut: Box::pin(fut),
        cancellable: true,
    }
}

/// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` (2025-11-25).
pub(crate) fn handshake_method(session: &Arc<SessionState>, req: &RequestIn<'_>) -> Reply {
    if !Tasks::offered(&session.server.tools) || session.version() < ProtocolVersion::V2025_11_25 {
        return Reply::Now(Err(ErrorObject::method_not_found(req.method)));
    }
    let shared = session.server.tasks.shared().clone();
    let owner = super::owner(session, false);
    if req.method == methods::TASKS_LIST {
        let p: PaginatedParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        return spawn(async move {
            let page = shared
                .store
                .list(&owner, p.cursor.as_deref(), shared.config.page_size)
                .await
                .map_err(|e| e.to_error())?;
            let now = now_ms();
            let mut tasks = Vec::with_capacity(page.tasks.len());
            for r in page.tasks.into_iter().filter(|r| !r.is_expired(now)) {
                // Failed here if the instance that runs it stopped; skipped if it is gone meanwhile.
                if let Some(r) = super::lease::settle(&shared, r)
                    .await
                    .map_err(|e| e.to_error())?
                {
                    tasks.push(handshake_task(&r));
                }
            }
            to_raw(&ListTasksResult {
                tasks,
                next_cursor: page.next_cursor,
                meta: None,
            })
        });
    }
    let p: TaskIdParams = match parse_params(req.params) {
        Ok(p) => p,
        Err(e) => return Reply::Now(Err(e)),
    };
    let id = p.task_id;
    match req.method {
        methods::TASKS_GET => {
            spawn(async move { to_raw(&handshake_task(&find(&shared, &id, &owner).await?)) })
        }
        methods::TASKS_CANCEL => spawn(async move {
            let r = find(&shared, &id, &owner).await?;
            let terminal = |s: TaskStatus| {
                ErrorObject::invalid_params(format!(
                    "Cannot cancel task: already in terminal status '{}'",
                    s.as_str()
                ))
                .with_data(serde_json::json!({"taskId": id, "status": s.as_str()}))
            };
            if r.status.is_terminal() {
                return Err(terminal(r.status));
            }
            let r = cancel(&shared, &id).await?;
            if r.status != TaskStatus::Cancelled {
                // It ended on its own just before.
                return Err(terminal(r.status));
            }
            to_raw(&handshake_task(&r))
        }),
        _ => {
            let waiter = req.id.clone();
            let peer = session.peer.clone();
            spawn(async move { task_result(&shared, &id, &owner, waiter, peer).await })
        }
    }
}

/// `tasks/result`: waits for the end of the task, then answers what its request would have answered,
/// tagged with the task. While it waits, the task's input requests travel on its stream, from this
/// instance or (several instances) from the one that runs the task (`relay`).
async fn task_result(
    shared: &Arc<Shared>,
    id: &str,
    owner: &str,
    waiter: RequestId,
    peer: crate::connection::Peer,
) -> Result<Box<RawValue>, ErrorObject> {
    struct Waiting(Option<Arc<super::running::TaskRun>>, RequestId);
    impl Drop for Waiting {
        fn drop(&mut self) {
            if let Some(run) = &self.0 {
                let mut w = run.result_waiters.lock().unwrap_or_else(|e| e.into_inner());
                w.retain(|x| *x != self.1);
            }
        }
    }
    let mut waiting = Waiting(None, waiter.clone());
    let mut elsewhere = None;
    let record = loop {
        let run = shared.running(id);
        let changed = run.as_ref().map(|r| r.changed.notified());
        let r = find(shared, id, owner).await?;
        if r.status.is_terminal() {
            break r;
        }
        if run.is_none() {
            match &elsewhere {
                None => elsewhere = shared.wait_here(id, waiter.clone(), peer.clone()).await,
                Some(w) => w.announce().await,
            }
        }
        if waiting.0.is_none() {
            if let Some(run) = &run {
                run.result_waiters
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(waiter.clone());
                run.waiter_arrived.notify_waiters();
                waiting.0 = Some(run.clone());
            }
        }
        let poll = tokio::time::sleep(shared.config.poll_interval);
        match changed {
            Some(c) => {
                tokio::select! {
                    _ = c => {}
                    _ = poll => {}
                }
            }
            None => poll.await,
        }
    };
    drop(waiting);
    drop(elsewhere);
    match record.outcome {
        Some(TaskOutcome::Result(raw)) => {
            let mut v: JsonObject = serde_json::from_str(raw.get()).map_err(|e| {
                ErrorObject::internal(format!("Internal error: stored result: {e}"))
            })?;
            let meta = v
                .entry("_meta")
                .or_insert_with(|| serde_json::Value::Object(JsonObject::new()));
            if let Some(m) = meta.as_object_mut() {
                m.insert(keys::RELATED_TASK.into(), serde_json::json!({"taskId": id}));
            }
            to_raw(&v)
        }
        Some(TaskOutcome::Error(e)) => Err(e),
        None => Err(ErrorObject::invalid_params(format!(
            "Task {id} was {}: it has no result",
            record.status.as_str()
        ))
        .with_data(serde_json::json!({"taskId": id, "status": record.status.as_str()}))),
    }
}

/// `tasks/get`, `tasks/update`, `tasks/cancel` of the 2026-07-28 extension (`tasks/result` and
/// `tasks/list` do not exist there and are unknown methods).
pub(crate) fn extension_method(
    session: &Arc<SessionState>,
    req: &RequestIn<'_>,
    modern: &ModernRequest,
) -> Reply {
    let srv = &session.server;
    if !Tasks::offered(&srv.tools) {
        return Reply::Now(Err(ErrorObject::method_not_found(req.method)));
    }
    let declared = modern
        .capabilities
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION));
    if !declared {
        let mut e = ErrorObject::missing_client_capability(
            serde_json::json!({"extensions": {TASKS_EXTENSION: {}}}),
        );
        e.message = format!(
            "Missing required client capability: {} belongs to the extension {TASKS_EXTENSION}; declare it \
             in _meta.io.modelcontextprotocol/clientCapabilities.extensions",
            req.method
        );
        return Reply::Now(Err(e));
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct P<'a> {
        task_id: String,
        #[serde(borrow, default)]
        input_responses: Option<&'a RawValue>,
    }
    let p: P<'_> = match parse_params(req.params) {
        Ok(p) => p,
        Err(e) => return Reply::Now(Err(e)),
    };
    let responses = if req.method == methods::TASKS_UPDATE {
        let Some(raw) = p.input_responses else {
            return Reply::Now(Err(ErrorObject::invalid_params(
                "Invalid params: tasks/update needs inputResponses (the answers by key)",
            )
            .with_data(serde_json::json!({"field": "inputResponses"}))));
        };
        // The same checks as a retry's inputResponses (an object of result objects).
        let unbound = Binding::new(methods::TASKS_UPDATE, &p.task_id, None, None);
        match srv.sealer.answers(&unbound, None, Some(raw)) {
            Ok(r) => r,
            Err(e) => return Reply::Now(Err(e)),
        }
    } else {
        Default::default()
    };
    let shared = srv.tasks.shared().clone();
    let owner = super::owner(session, true);
    let id = p.task_id;
    let method = req.method.to_string();
    let server_info = srv.info_in_results.then(|| srv.info_raw.clone());
    spawn(async move {
        let stamp = Stamp {
            result_type: ResultType::Complete,
            cache: None,
            server_info: server_info.as_deref(),
        };
        let ack = || stamp.apply(&serde_json::json!({}), None);
        let r = find(&shared, &id, &owner).await?;
        match method.as_str() {
            methods::TASKS_GET => stamp.apply(&extension_task(&r, true), None),
            methods::TASKS_UPDATE => {
                // Answers for a task that waits for nothing, or for keys it does not wait for, are
                // ignored (the spec's rule): the acknowledgement is the same.
                match shared.running(&id) {
                    Some(run) if run.era == TaskEra::Extension => answer(&run, responses).await,
                    Some(_) => {}
                    // It runs on another instance (or nowhere any more).
                    None => shared.hand_over_input(&r, responses).await,
                }
                ack()
            }
            _ => {
                // Cancelling an ended task is acknowledged like any other (idempotent).
                if !r.status.is_terminal() {
                    cancel(&shared, &id).await?;
                }
                ack()
            }
        }
    })
}
