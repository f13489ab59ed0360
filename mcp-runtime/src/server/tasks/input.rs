//! A task's input channel: where `ctx.elicit(..)`, `ctx.create_message(..)` and `ctx.list_roots()` go
//! when the handler runs in (or may become) a task. The handler waits for the answer; it is not re-run.

use super::running::{TaskRun, WaiterAt};
use super::store::{TaskEra, TaskUpdate};
use crate::connection::RequestOptions;
use crate::error::Error;
use crate::framing::to_raw;
use crate::future::BoxFuture;
use crate::protocol::*;
use crate::server::mrtr::InputRound;
pub(crate) use crate::server::task_channel::with_related_task;
use crate::server::task_channel::{NotifyRoute, TaskAnswer, TaskChannel};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use tokio::sync::{oneshot, Notify};

enum Phase {
    /// 2026-07-28, before the task exists: input ends the call with `input_required`.
    Round(Arc<InputRound>),
    /// The task exists.
    Task(Arc<TaskRun>),
}

/// The input channel of a handler that runs in, or may become, a task.
pub(crate) struct TaskInput {
    phase: Mutex<Phase>,
    /// The handler asks to become a task now ([`crate::Context::continue_as_task`]).
    pub(crate) detach: Notify,
    /// The task exists.
    started: Notify,
}

impl TaskInput {
    pub(crate) fn from_round(round: Arc<InputRound>) -> Arc<Self> {
        Arc::new(TaskInput {
            phase: Mutex::new(Phase::Round(round)),
            detach: Notify::new(),
            started: Notify::new(),
        })
    }

    pub(crate) fn running(run: Arc<TaskRun>) -> Arc<Self> {
        Arc::new(TaskInput {
            phase: Mutex::new(Phase::Task(run)),
            detach: Notify::new(),
            started: Notify::new(),
        })
    }

    /// The task now exists: input requests go to it from here on.
    pub(crate) fn start(&self, run: Arc<TaskRun>) {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = Phase::Task(run);
        self.started.notify_waiters();
    }

    /// Returns once the call is a task: at once if it is one already, else when the runtime has made it
    /// one (a handler that never becomes one is dropped while it waits here).
    pub(crate) async fn continue_as_task(&self) {
        let started = self.started.notified();
        tokio::pin!(started);
        started.as_mut().enable();
        if self.run().is_ok() {
            return;
        }
        self.detach.notify_one();
        started.await;
    }

    fn run(&self) -> Result<Arc<TaskRun>, Arc<InputRound>> {
        match &*self.phase.lock().unwrap_or_else(|e| e.into_inner()) {
            Phase::Round(r) => Err(r.clone()),
            Phase::Task(t) => Ok(t.clone()),
        }
    }

    pub(crate) fn notify_route(&self) -> NotifyRoute {
        match self.run() {
            Err(_) => NotifyRoute::Request,
            Ok(run) if run.era == TaskEra::Handshake => match run.current_waiter() {
                Some(WaiterAt::Elsewhere(waiter)) => NotifyRoute::TaskElsewhere {
                    task_id: run.id.clone(),
                    waiter,
                    shared: run.shared.clone(),
                },
                Some(WaiterAt::Here(id)) => NotifyRoute::Task {
                    task_id: run.id.clone(),
                    related: Some(id),
                },
                None => NotifyRoute::Task {
                    task_id: run.id.clone(),
                    related: None,
                },
            },
            Ok(_) => NotifyRoute::Nowhere,
        }
    }

    /// The multi round-trip round of the call while the task does not exist yet.
    pub(crate) fn round(&self) -> Option<Arc<InputRound>> {
        self.run().err()
    }

    /// Asks the client from the task. `missing` names the capability the client lacks for it, if it
    /// does (an error for the handler: the call was answered long ago).
    pub(crate) async fn ask(
        &self,
        key: Option<&str>,
        request: InputRequest,
        missing: Option<(&'static str, serde_json::Value)>,
    ) -> Result<TaskAnswer, Error> {
        let Ok(run) = self.run() else {
            return Err(Error::Protocol("the task does not exist yet".into()));
        };
        if let Some((name, _)) = missing {
            return Err(Error::CapabilityMissing(name));
        }
        let method = request.method();
        Ok(match run.era {
            TaskEra::Handshake => {
                let params = match &request {
                    InputRequest::Elicit(p) => serde_json::to_value(p),
                    InputRequest::CreateMessage(p) => serde_json::to_value(p),
                    InputRequest::ListRoots => Ok(serde_json::json!({})),
                }
                .map_err(|e| Error::Protocol(e.to_string()))?;
                TaskAnswer::Raw(send(&run, method, params, Some(request)).await?)
            }
            TaskEra::Extension => TaskAnswer::Value(wait(&run, key, request).await?),
        })
    }

    /// Any request to the client from a handshake-era task (`None` when this is not one).
    pub(crate) async fn request(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Option<Result<Box<serde_json::value::RawValue>, Error>> {
        match self.run() {
            Ok(run) if run.era == TaskEra::Handshake => {
                Some(send(&run, method, params, None).await)
            }
            _ => None,
        }
    }
}

/// Handshake era: a real request to the client, tagged with the task, sent on the stream of a
/// `tasks/result` for this task (the spec's channel to a client whose call already returned: it calls
/// `tasks/result` when it sees `input_required`). The task is `input_required` until answered.
async fn send(
    run: &Arc<TaskRun>,
    method: &str,
    params: serde_json::Value,
    shown: Option<InputRequest>,
) -> Result<Box<serde_json::value::RawValue>, Error> {
    let params = with_related_task(params, &run.id);
    let raw = to_raw(&params).map_err(|e| Error::Protocol(e.message))?;
    let key = shown.as_ref().map(|_| {
        format!(
            "request-{}",
            run.keys_made.fetch_add(1, Ordering::Relaxed) + 1
        )
    });
    if let (Some(k), Some(r)) = (&key, shown) {
        let mut inputs = run.inputs.lock().await;
        inputs.pending.insert(k.clone(), (r, Vec::new()));
        run.update(TaskUpdate::Inputs(inputs.requests())).await;
    }
    let answer = async {
        let waiter = loop {
            let arrived = run.waiter_arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if let Some(w) = run.current_waiter() {
                break w;
            }
            arrived.await;
        };
        match waiter {
            WaiterAt::Here(related) => {
                let opts = RequestOptions {
                    related: Some(related),
                    ..Default::default()
                };
                run.session.peer.request(method, Some(&raw), opts).await
            }
            WaiterAt::Elsewhere(waiter) => {
                let deliver = run.shared.deliver_to(&run.id, waiter);
                let peer = &run.session.peer;
                peer.request_via(method, Some(&raw), RequestOptions::default(), deliver)
                    .await
            }
        }
    };
    let r = tokio::select! {
        r = answer => r,
        _ = run.token.cancelled() => Err(Error::Protocol("the task was cancelled".into())),
    };
    if let Some(k) = key {
        let mut inputs = run.inputs.lock().await;
        inputs.pending.remove(&k);
        run.update(TaskUpdate::Inputs(inputs.requests())).await;
    }
    r
}

/// 2026-07-28: the request is listed by `tasks/get` under its key until `tasks/update` answers it.
async fn wait(
    run: &Arc<TaskRun>,
    key: Option<&str>,
    request: InputRequest,
) -> Result<serde_json::Value, Error> {
    let key = key.map(str::to_string).unwrap_or_else(|| {
        let n = run.keys_made.fetch_add(1, Ordering::Relaxed) + 1;
        let kind = match request {
            InputRequest::Elicit(_) => "elicit",
            InputRequest::CreateMessage(_) => "sample",
            InputRequest::ListRoots => "roots",
        };
        format!("{kind}-{n}")
    });
    let rx = {
        let mut inputs = run.inputs.lock().await;
        if let Some(v) = inputs.answered.get(&key) {
            return Ok(v.clone());
        }
        let (tx, rx) = oneshot::channel();
        inputs
            .pending
            .entry(key)
            .or_insert_with(|| (request, Vec::new()))
            .1
            .push(tx);
        run.update(TaskUpdate::Inputs(inputs.requests())).await;
        rx
    };
    tokio::select! {
        v = rx => v.map_err(|_| Error::Protocol("the task ended before the input arrived".into())),
        _ = run.token.cancelled() => Err(Error::Protocol("the task was cancelled".into())),
    }
}

/// `tasks/update`: hands the answers to the requests the task waits for (others are ignored, as the
/// spec asks), and records what is still outstanding before the acknowledgement.
pub(crate) async fn answer(run: &Arc<TaskRun>, responses: BTreeMap<String, serde_json::Value>) {
    let mut inputs = run.inputs.lock().await;
    let mut taken = false;
    for (k, v) in responses {
        if let Some((_, waiters)) = inputs.pending.remove(&k) {
            for w in waiters {
                let _ = w.send(v.clone());
            }
            inputs.answered.insert(k, v);
            taken = true;
        }
    }
    if taken {
        run.update(TaskUpdate::Inputs(inputs.requests())).await;
    }
}

impl TaskChannel for TaskInput {
    fn notify_route(&self) -> NotifyRoute {
        TaskInput::notify_route(self)
    }

    fn continue_as_task(&self) -> BoxFuture<'_, ()> {
        Box::pin(TaskInput::continue_as_task(self))
    }

    fn round(&self) -> Option<Arc<InputRound>> {
        TaskInput::round(self)
    }

    fn ask<'a>(
        &'a self,
        key: Option<&'a str>,
        request: InputRequest,
        missing: Option<(&'static str, serde_json::Value)>,
    ) -> BoxFuture<'a, Result<TaskAnswer, Error>> {
        Box::pin(TaskInput::ask(self, key, request, missing))
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: serde_json::Value,
    ) -> BoxFuture<'a, Option<Result<Box<serde_json::value::RawValue>, Error>>> {
        Box::pin(TaskInput::request(self, method, params))
    }
}
