//! What a handler's [`Context`](super::Context) needs of a task (see `server::tasks`): where its
//! notifications go, and where its input requests go while the call is, or may become, a task. Below both
//! `context.rs` and `tasks/`, which implements it (`tasks::input::TaskInput`), so that the context never
//! names the task machinery that runs handlers with it.

use super::mrtr::InputRound;
use crate::error::Error;
use crate::future::BoxFuture;
use crate::protocol::meta::keys;
use crate::protocol::{InputRequest, JsonObject, RequestId};
use serde_json::value::RawValue;
use std::sync::Arc;

/// A handler's input channel inside a task (`Input::Task` of its context).
pub(crate) trait TaskChannel: Send + Sync {
    /// Where the handler's notifications go now.
    fn notify_route(&self) -> NotifyRoute;
    /// Returns once the call is a task (see [`Context::continue_as_task`](super::Context::continue_as_task)).
    fn continue_as_task(&self) -> BoxFuture<'_, ()>;
    /// The multi round-trip round of the call while the task does not exist yet.
    fn round(&self) -> Option<Arc<InputRound>>;
    /// Asks the client from the task; the answer is decoded by the caller.
    fn ask<'a>(
        &'a self,
        key: Option<&'a str>,
        request: InputRequest,
        missing: Option<(&'static str, serde_json::Value)>,
    ) -> BoxFuture<'a, Result<TaskAnswer, Error>>;
    /// Any request to the client from a handshake-era task (`None` when this is not one).
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: serde_json::Value,
    ) -> BoxFuture<'a, Option<Result<Box<RawValue>, Error>>>;
}

/// A client's answer to a task's input request, before it is decoded into the type the handler asked for.
pub(crate) enum TaskAnswer {
    /// Handshake era: the result of a real request, as JSON text.
    Raw(Box<RawValue>),
    /// 2026-07-28: the answer `tasks/update` carried.
    Value(serde_json::Value),
}

/// Carries a handshake-era task's message to a `tasks/result` waiting on another instance (over the bus).
pub(crate) trait WaiterRelay: Send + Sync {
    /// Sends `frame` to the stream of `waiter`, a `tasks/result` for `task` held elsewhere.
    fn relay(
        self: Arc<Self>,
        task: String,
        waiter: RequestId,
        frame: Vec<u8>,
    ) -> BoxFuture<'static, ()>;
}

/// Where a handler's notifications (progress, log messages) go.
pub(crate) enum NotifyRoute {
    /// As for any request: beside its answer.
    Request,
    /// Handshake-era task: with the related-task `_meta`, beside the answer of `related` if a
    /// `tasks/result` waits, else on the session's own stream.
    Task {
        task_id: String,
        related: Option<RequestId>,
    },
    /// Handshake-era task whose `tasks/result` waits on another instance: over the bus to that stream.
    TaskElsewhere {
        task_id: String,
        waiter: RequestId,
        shared: Arc<dyn WaiterRelay>,
    },
    /// 2026-07-28 task: nowhere (the extension delivers no progress or log messages for tasks).
    Nowhere,
}

/// `params` with `_meta["io.modelcontextprotocol/related-task"] = {taskId}` added.
pub(crate) fn with_related_task(params: serde_json::Value, task_id: &str) -> serde_json::Value {
    let mut obj = match params {
        serde_json::Value::Object(o) => o,
        _ => JsonObject::new(),
    };
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| serde_json::Value::Object(JsonObject::new()));
    if !meta.is_object() {
        *meta = serde_json::Value::Object(JsonObject::new());
    }
    if let Some(m) = meta.as_object_mut() {
        m.insert(
            keys::RELATED_TASK.into(),
            serde_json::json!({ "taskId": task_id }),
        );
    }
    serde_json::Value::Object(obj)
}
