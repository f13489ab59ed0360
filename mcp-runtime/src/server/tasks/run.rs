//! Running a tool call as a task: creating it (at once in the handshake era; after the immediate window
//! in 2026-07-28), running its handler in the background, and recording how it ended.

use super::input::TaskInput;
use super::running::TaskRun;
use super::store::{now_ms, TaskEra, TaskOutcome, TaskRecord, TaskUpdate};
use super::{random_id, Shared};
use crate::connection::{Reply, RequestIn};
use crate::framing::to_raw;
use crate::future::BoxFuture;
use crate::future::CatchUnwind;
use crate::protocol::*;
use crate::server::context::Input;
use crate::server::era::ModernRequest;
use crate::server::mrtr::{Driven, InputRound};
use crate::server::session_state::SessionState;
use crate::server::stamp::Stamp;
use crate::server::tools::{Arguments, ToolHandler};
use crate::server::Context;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

type Answer = Result<Box<RawValue>, ErrorObject>;

fn new_record(
    shared: &Shared,
    owner: String,
    era: TaskEra,
    tool: String,
    ttl: Option<u64>,
) -> TaskRecord {
    let now = now_ms();
    TaskRecord {
        id: random_id(),
        owner,
        era,
        tool,
        status: TaskStatus::Working,
        status_message: None,
        created_at_ms: now,
        last_updated_at_ms: now,
        ttl_ms: shared.ttl_ms(ttl),
        poll_interval_ms: shared.config.poll_interval.as_millis().max(1) as u64,
        input_requests: BTreeMap::new(),
        outcome: None,
        instance: shared.store.instance().map(str::to_string),
    }
}

/// Handshake era: a task-augmented `tools/call`. The task is stored before the answer names it; the
/// handler then runs in the background.
pub(crate) fn call_handshake(
    session: &Arc<SessionState>,
    (id, trace): (&RequestId, Option<crate::TraceContext>),
    progress: Option<ProgressToken>,
    tool: String,
    handler: Arc<dyn ToolHandler>,
    args: Arguments,
    ttl: Option<u64>,
) -> Reply {
    let session = session.clone();
    let id = id.clone();
    Reply::Spawn {
        fut: Box::pin(async move {
            let shared = session.server.tasks.shared().clone();
            let owner = super::owner(&session, false);
            let record = new_record(&shared, owner, TaskEra::Handshake, tool, ttl);
            shared
                .store
                .create(record.clone())
                .await
                .map_err(|e| e.to_error())?;
            let token = CancellationToken::new();
            let run = TaskRun::new(
                &record,
                shared.clone(),
                session.clone(),
                token.clone(),
                None,
            );
            // The progress token stays valid until the task ends.
            let ctx = Context::new(session, id, token, progress)
                .with_input(Input::Task(TaskInput::running(run.clone())))
                .with_trace(trace.clone());
            let handler = crate::trace_context::instrument(trace.as_ref(), handler.call(args, ctx));
            shared.add_running(run.clone());
            tokio::spawn(finish_in_background(run, handler));
            tracing::debug!(task = %record.id, tool = %record.tool, "task created (2025-11-25)");
            to_raw(&CreateTaskResult {
                task: super::render::handshake_task(&record),
                meta: None,
            })
        }),
        cancellable: true,
    }
}

/// 2026-07-28, a call the server may turn into a task: the handler runs for up to `window`; its result
/// within it is the answer (`complete`), its input requests within it end the call (`input_required`,
/// answered by `conclude`); past it the task is created, the call answers `resultType: "task"`, and the
/// handler goes on in the background, where its input requests wait for `tasks/update`.
pub(crate) fn call_extension(
    session: &Arc<SessionState>,
    (req, trace): (&RequestIn<'_>, Option<crate::TraceContext>),
    (tool, handler, args): (String, Arc<dyn ToolHandler>, Arguments),
    (modern, round): (Arc<ModernRequest>, Arc<InputRound>),
    window: Duration,
    conclude: impl FnOnce(&InputRound) -> Answer + Send + 'static,
    complete: impl FnOnce(CallToolResult) -> Answer + Send + 'static,
) -> Reply {
    let session = session.clone();
    let id = req.id.clone();
    let request_token = req.token.clone();
    Reply::Spawn {
        fut: Box::pin(async move {
            let shared = session.server.tasks.shared().clone();
            // The handler's own token: the request's until the task exists, then only the task's.
            let token = CancellationToken::new();
            let input = TaskInput::from_round(round.clone());
            // No progress token: a task's progress is not delivered in 2026-07-28, and before the task
            // exists the call is short.
            let ctx = Context::new(session.clone(), id, token.clone(), None)
                .modern(modern, None)
                .with_input(Input::Task(input.clone()))
                .with_trace(trace.clone());
            let mut handler =
                crate::trace_context::instrument(trace.as_ref(), handler.call(args, ctx));
            let deadline = tokio::time::sleep(window);
            tokio::pin!(deadline);
            let driven = tokio::select! {
                biased;
                d = round.drive(handler.as_mut()) => Some(d),
                _ = request_token.cancelled() => {
                    token.cancel();
                    return Err(ErrorObject::internal("Internal error: the request was cancelled"));
                }
                _ = &mut deadline => None,
                _ = input.detach.notified() => None,
            };
            match driven {
                Some(Driven::Done(r)) => return complete(r?),
                Some(Driven::TakenOver) => return conclude(&round),
                None => {}
            }
            let owner = super::owner(&session, true);
            let record = new_record(&shared, owner, TaskEra::Extension, tool, None);
            if let Err(e) = shared.store.create(record.clone()).await {
                token.cancel();
                return Err(e.to_error());
            }
            let run = TaskRun::new(
                &record,
                shared.clone(),
                session.clone(),
                token,
                Some(&round),
            );
            input.start(run.clone());
            shared.add_running(run.clone());
            tokio::spawn(finish_in_background(run, handler));
            tracing::debug!(task = %record.id, tool = %record.tool, "task created (2026-07-28)");
            let srv = &session.server;
            Stamp {
                result_type: ResultType::Task,
                cache: None,
                server_info: srv.info_in_results.then_some(&*srv.info_raw),
            }
            .apply(&super::render::extension_task(&record, false), None)
        }),
        cancellable: true,
    }
}

/// Runs a task's handler to its end (or its cancellation) and records how it ended.
async fn finish_in_background(
    run: Arc<TaskRun>,
    handler: BoxFuture<'static, Result<CallToolResult, ErrorObject>>,
) {
    let ended = tokio::select! {
        biased;
        _ = run.token.cancelled() => None,
        r = CatchUnwind::new(AssertUnwindSafe(handler)) => Some(r.unwrap_or_else(|panic| {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(task = %run.id, %msg, "task handler panicked");
            Err(ErrorObject::internal(format!("Internal error: the handler panicked: {msg}")))
        })),
    };
    match ended {
        Some(r) => run.record_end(outcome(run.era, r)).await,
        None => {
            // Cancelled: by tasks/cancel (already recorded), expiry (already deleted), or the end of
            // the owning session. Record it in case it is the last.
            run.record_end(TaskUpdate::Cancel {
                message: "The task was cancelled.".into(),
            })
            .await;
        }
    }
    run.shared.remove_running(&run.id);
    run.changed.notify_waiters();
}

/// How the handler's answer sets the task: 2025-11-25 counts an `isError` tool result as `failed`; the
/// 2026-07-28 extension keeps `failed` for JSON-RPC errors.
fn outcome(era: TaskEra, r: Result<CallToolResult, ErrorObject>) -> TaskUpdate {
    match r {
        Ok(result) => {
            let failed = era == TaskEra::Handshake && result.is_error();
            let message = failed.then(|| {
                let text = result.text_content();
                if text.is_empty() {
                    "The tool reported an error".to_string()
                } else {
                    text
                }
            });
            match to_raw(&result) {
                Ok(raw) => TaskUpdate::Finish {
                    status: if failed {
                        TaskStatus::Failed
                    } else {
                        TaskStatus::Completed
                    },
                    outcome: TaskOutcome::Result(raw),
                    message,
                },
                Err(e) => TaskUpdate::Finish {
                    status: TaskStatus::Failed,
                    message: Some(e.message.clone()),
                    outcome: TaskOutcome::Error(e),
                },
            }
        }
        Err(e) => TaskUpdate::Finish {
            status: TaskStatus::Failed,
            message: Some(e.message.clone()),
            outcome: TaskOutcome::Error(e),
        },
    }
}
