//! Tasks: a tool call answered later, in both eras, by one mechanism.
//!
//! A tool opts in with `#[tool(task)]` (or `task = "required"`), or [`ToolRoute::task`] for a tool
//! registered by hand; its `execution.taskSupport` says so in `tools/list`. The handler is the same
//! code as for a direct call: it gets its arguments and a [`Context`], and may ask the client for input
//! with `ctx.elicit(..)`, `ctx.create_message(..)` or `ctx.list_roots()`.
//!
//! **When a call becomes a task.**
//! - Handshake era (2025-11-25): when the client asks for one (`params.task{ttl}`). The call answers
//!   `CreateTaskResult{task}` at once and the handler runs in the background. A `required` tool called
//!   without `task`, or a `forbidden` one called with it, is `-32601`.
//! - 2026-07-28 (extension `io.modelcontextprotocol/tasks`): when the client declared the extension in
//!   the request's capabilities and the server decides. The handler starts as for a direct call; if it
//!   finishes within the tool's *immediate window* ([`TaskConfig::immediate_window`], or
//!   [`ToolRoute::task_after`]) the call answers its result directly; if it asks for input first, the
//!   call answers `input_required` (multi round-trip, the handler runs again on the retry); otherwise the
//!   task is created and the call answers `resultType: "task"` while the handler goes on. A handler
//!   that knows it is long (or must ask inside the task) says so with [`Context::continue_as_task`]: the
//!   task is created at that point. A `required` tool called by a client without the extension is
//!   `-32021`.
//!
//! **Input inside a task.** The handler is never re-run: it waits. In the handshake era its input
//! requests are real requests carrying `_meta["io.modelcontextprotocol/related-task"]`, sent on the
//! client's `tasks/result` stream (the spec's way to reach a client whose call already returned); the
//! task is `input_required` until they are answered. In 2026-07-28 the requests are listed by
//! `tasks/get` (`input_required`, `inputRequests` by key) and answered with `tasks/update`. Keys follow
//! the multi round-trip rules ([`Context::input`]); answers given before the task existed stay valid.
//!
//! **Ownership.** A task belongs to the authenticated principal when the transport authenticated one,
//! else (handshake era) to its session, else (2026-07-28, no authentication) to whoever holds its id:
//! ids are 128 random bits. A task of another owner is "not found". When a handshake-era session ends,
//! its session-owned tasks are cancelled and deleted.
//!
//! **Lifetime and bounds.** Every task has a TTL (the client's `task.ttl` up to
//! [`TaskConfig::max_ttl`], or [`TaskConfig::default_ttl`]); once it has passed the task is deleted,
//! and cancelled if it still runs. The store is a [`TaskStore`] (serializable records, atomic updates,
//! so that a shared store can follow); the default [`MemoryTaskStore`] is bounded by [`TaskLimits`] and
//! refuses a new task with a clear error when full.
//!
//! **An instance that stops.** With a store shared by several instances that keeps leases
//! ([`TaskStore::instance`], such as the Redis store's heartbeat), a task's record names the instance
//! that runs its handler. A `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` or `tasks/update`
//! on another instance that finds the task unfinished after that instance's lease lapsed turns it into
//! `failed`, with a `-32603` error that says the instance stopped (see `lease.rs`); the store does it
//! atomically ([`TaskStore::update_orphan`]).

mod ids;
pub(crate) mod input;
mod lease;
mod memory;
mod methods;
mod relay;
mod render;
mod run;
mod running;
mod store;

pub use memory::{MemoryTaskStore, TaskLimits};
pub use store::{
    StoreError, TaskEra, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskUpdate, Updated,
};

pub(crate) use ids::{random_id, SessionTasks};
pub(crate) use methods::{extension_method, handshake_method};
pub(crate) use run::{call_extension, call_handshake};

use super::era::ModernRequest;
use super::registry::Registry;
use super::session_state::SessionState;
#[allow(unused_imports)] // for the docs' links
use super::Context;
use super::ToolRoute;
use crate::protocol::{
    methods as m, ErrorObject, JsonObject, ServerCapabilities, TaskMetadata, TaskSupport,
    TASKS_EXTENSION,
};
use running::TaskRun;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

/// How long a `tasks/update` that reached an instance not running the task waits for the one that runs
/// it to take the answers (a Redis round trip or two when all is well).
const HAND_OVER_WAIT: Duration = Duration::from_secs(2);

/// How a server runs tasks. The defaults suit interactive clients; every value is documented to
/// clients through the tasks themselves (`ttl`, `pollInterval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskConfig {
    /// The lifetime of a task whose client names none (every 2026-07-28 task). Default 30 minutes.
    pub default_ttl: Duration,
    /// The longest lifetime a client may ask for; longer requests are cut to it. Default 24 hours.
    pub max_ttl: Duration,
    /// The polling interval suggested to clients. Default 500 ms.
    pub poll_interval: Duration,
    /// How long a 2026-07-28 call of a task tool runs before it becomes a task (a tool may set its own
    /// with [`ToolRoute::task_after`]). Default 250 ms.
    pub immediate_window: Duration,
    /// How often expired tasks are deleted. Default 1 second.
    pub sweep_interval: Duration,
    /// Tasks per `tasks/list` page. Default 50.
    pub page_size: usize,
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            default_ttl: Duration::from_secs(30 * 60),
            max_ttl: Duration::from_secs(24 * 3600),
            poll_interval: Duration::from_millis(500),
            immediate_window: Duration::from_millis(250),
            sweep_interval: Duration::from_secs(1),
            page_size: 50,
        }
    }
}

/// The owner a request's tasks are filed under (see the module docs).
pub(crate) fn owner(session: &SessionState, modern: bool) -> String {
    match session.principal() {
        Some(p) => format!("principal:{p}"),
        None if modern => "anonymous".to_string(),
        None => session.tasks.key().to_string(),
    }
}

/// How one `tools/call` is served.
pub(crate) enum Plan {
    /// A direct call.
    Direct,
    /// Refused before the handler runs.
    Refuse(ErrorObject),
    /// Handshake era: a task now, with the client's `ttl`.
    Handshake(Option<u64>),
    /// 2026-07-28: direct if done within the window, else a task.
    Extension(Duration),
}

/// The tasks of one server: the store, the handlers running here, and the sweeper.
pub(crate) struct Tasks {
    shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) config: TaskConfig,
    running: Mutex<HashMap<String, Arc<TaskRun>>>,
    sweeper: OnceLock<()>,
    /// The bus to the other instances sharing the store, and this instance's name on it: a task
    /// cancelled here but running elsewhere is stopped there.
    bus: OnceLock<(Arc<dyn crate::scale::Bus>, String)>,
    /// `tasks/result` requests waiting here for tasks that run elsewhere, by task and request id, with
    /// the session whose stream gets the task's messages (`relay`).
    remote_waits: Mutex<HashMap<(String, crate::protocol::RequestId), crate::connection::Peer>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Tasks {
    pub(crate) fn new(store: Option<Arc<dyn TaskStore>>, config: TaskConfig) -> Self {
        Tasks {
            shared: Arc::new(Shared {
                store: store.unwrap_or_else(|| Arc::new(MemoryTaskStore::default())),
                config,
                running: Mutex::new(HashMap::new()),
                sweeper: OnceLock::new(),
                bus: OnceLock::new(),
                remote_waits: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Whether any tool takes part in tasks (then the server declares them).
    pub(crate) fn offered(tools: &Registry<ToolRoute>) -> bool {
        tools
            .snapshot()
            .items
            .iter()
            .any(|r| r.tool.task_support() != TaskSupport::Forbidden)
    }

    /// Declares tasks: the 2025-11-25 `tasks` capability, or the 2026-07-28 extension.
    pub(crate) fn advertise(
        caps: &mut ServerCapabilities,
        tools: &Registry<ToolRoute>,
        modern: bool,
    ) {
        if !Self::offered(tools) {
            return;
        }
        let empty = || serde_json::Value::Object(JsonObject::new());
        if modern {
            caps.extensions
                .get_or_insert_with(JsonObject::new)
                .insert(TASKS_EXTENSION.into(), empty());
        } else {
            let v =
                serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
            if let serde_json::Value::Object(o) = v {
                caps.tasks = Some(o);
            }
        }
    }

    /// How to serve a call of `route`: `modern` is the request's 2026-07-28 declarations, `task` its
    /// `params.task` (handshake era).
    pub(crate) fn plan(
        &self,
        tools: &Registry<ToolRoute>,
        route: &ToolRoute,
        modern: Option<&ModernRequest>,
        task: Option<&RawValue>,
    ) -> Plan {
        let support = route.tool.task_support();
        let name = &route.tool.name;
        let Some(m) = modern else {
            return match (support, task) {
                (TaskSupport::Forbidden, Some(_)) if Self::offered(tools) => {
                    Plan::Refuse(ErrorObject::method_not_found(&format!(
                        "{} with a task: tool {name:?} does not run as a task (its execution.taskSupport is \
                         \"forbidden\"); call it without params.task",
                        m::TOOLS_CALL
                    )))
                }
                (TaskSupport::Forbidden, _) | (TaskSupport::Optional, None) => Plan::Direct,
                (TaskSupport::Required, None) => Plan::Refuse(ErrorObject::method_not_found(&format!(
                    "{} without a task: tool {name:?} runs only as a task (its execution.taskSupport is \
                     \"required\"); call it with params.task",
                    m::TOOLS_CALL
                ))),
                (_, Some(raw)) => match serde_json::from_str::<TaskMetadata>(raw.get()) {
                    Ok(t) => Plan::Handshake(t.ttl),
                    Err(e) => Plan::Refuse(
                        ErrorObject::invalid_params(format!("Invalid params: task: {e}"))
                            .with_data(serde_json::json!({"field": "task"})),
                    ),
                },
            };
        };
        let declared = m
            .capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS_EXTENSION));
        match support {
            TaskSupport::Forbidden => Plan::Direct,
            TaskSupport::Optional if !declared => Plan::Direct,
            TaskSupport::Required if !declared => {
                let mut e = ErrorObject::missing_client_capability(
                    serde_json::json!({"extensions": {TASKS_EXTENSION: {}}}),
                );
                e.message = format!(
                    "Missing required client capability: tool {name:?} runs only as a task; declare the \
                     extension {TASKS_EXTENSION} in _meta.io.modelcontextprotocol/clientCapabilities.extensions"
                );
                Plan::Refuse(e)
            }
            _ => Plan::Extension(
                route
                    .task_after
                    .unwrap_or(self.shared.config.immediate_window),
            ),
        }
    }

    /// A handshake-era session ended: its session-owned tasks are cancelled and deleted.
    pub(crate) fn session_closed(&self, session: &SessionState) {
        let Some(key) = session.tasks.key.get().cloned() else {
            return;
        };
        let shared = self.shared.clone();
        let runs: Vec<Arc<TaskRun>> = lock(&shared.running)
            .values()
            .filter(|r| r.owner == key)
            .cloned()
            .collect();
        for r in &runs {
            r.token.cancel();
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        rt.spawn(async move {
            loop {
                let page = match shared.store.list(&key, None, 256).await {
                    Ok(p) => p,
                    Err(e) => {
                        tracing::warn!(error = %e, "tasks of a closed session not deleted");
                        return;
                    }
                };
                if page.tasks.is_empty() {
                    return;
                }
                for t in page.tasks {
                    if let Err(e) = shared.store.delete(&t.id).await {
                        tracing::warn!(error = %e, task = %t.id, "task of a closed session not deleted");
                        return;
                    }
                }
            }
        });
    }
}

impl Shared {
    /// Joins the instances on `bus` (once; later calls are ignored): a `TaskCancelled` for a task that
    /// runs here stops its handler. Needs a Tokio runtime.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn attach_bus(self: &Arc<Self>, bus: Arc<dyn crate::scale::Bus>, origin: String) {
        if self.bus.set((bus.clone(), origin)).is_err() {
            return;
        }
        let mut rx = bus.subscribe();
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                let msg = match rx.recv().await {
                    Ok(m) => m,
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "task bus: messages missed");
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                };
                let Some(s) = weak.upgrade() else { return };
                if s.bus.get().is_some_and(|(_, me)| *me == msg.origin) {
                    continue;
                }
                match msg.event {
                    crate::scale::BusEvent::TaskCancelled { task } => {
                        if let Some(run) = s.running(&task) {
                            tracing::debug!(task = %task, "task cancelled on another instance; stopping it");
                            run.token.cancel();
                        }
                    }
                    crate::scale::BusEvent::TaskInput { task, responses } => {
                        if let Some(run) = s.running(&task).filter(|r| r.era == TaskEra::Extension)
                        {
                            tracing::debug!(task = %task, "task input from another instance");
                            input::answer(&run, responses).await;
                        }
                    }
                    e @ (crate::scale::BusEvent::TaskWaiting { .. }
                    | crate::scale::BusEvent::TaskMessage { .. }) => s.heard(e).await,
                    _ => {}
                }
            }
        });
    }

    /// Tells the other instances that a task not running here was cancelled (best effort: the store
    /// already says `cancelled`, so the worst case is a handler that runs on and changes nothing).
    pub(crate) async fn announce_cancel(&self, id: &str) {
        let event = crate::scale::BusEvent::TaskCancelled {
            task: id.to_string(),
        };
        if let Err(e) = self.publish(event).await {
            tracing::warn!(error = %e, task = %id, "task cancellation not announced to other instances");
        }
    }

    /// Hands answers for a task that does not run here to the instance that runs it, and waits (up to
    /// [`HAND_OVER_WAIT`]) until the store no longer lists the keys it answered, so that the
    /// acknowledgement means what it means on the instance that runs the task: the next `tasks/get`,
    /// wherever it lands, no longer asks for them.
    pub(crate) async fn hand_over_input(
        &self,
        record: &TaskRecord,
        responses: std::collections::BTreeMap<String, serde_json::Value>,
    ) {
        let answered: Vec<String> = responses
            .keys()
            .filter(|k| record.input_requests.contains_key(*k))
            .cloned()
            .collect();
        if !self.announce_input(&record.id, responses).await || answered.is_empty() {
            return;
        }
        let deadline = tokio::time::Instant::now() + HAND_OVER_WAIT;
        let mut pause = Duration::from_millis(1);
        loop {
            tokio::time::sleep(pause).await;
            match self.store.get(&record.id).await {
                Ok(Some(r))
                    if !r.status.is_terminal()
                        && answered.iter().any(|k| r.input_requests.contains_key(k)) => {}
                Ok(_) => return,
                Err(e) => {
                    tracing::warn!(error = %e, task = %record.id, "task input handed over; not seen stored");
                    return;
                }
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!(task = %record.id, "task input handed over; the instance that runs it has not taken it yet");
                return;
            }
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// Publishes answers for a task that does not run here; whether they went out.
    async fn announce_input(
        &self,
        id: &str,
        responses: std::collections::BTreeMap<String, serde_json::Value>,
    ) -> bool {
        if self.bus.get().is_none() {
            return false;
        }
        let event = crate::scale::BusEvent::TaskInput {
            task: id.to_string(),
            responses,
        };
        match self.publish(event).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, task = %id, "task input not passed to other instances");
                false
            }
        }
    }

    pub(crate) fn running(&self, id: &str) -> Option<Arc<TaskRun>> {
        lock(&self.running).get(id).cloned()
    }

    pub(crate) fn add_running(self: &Arc<Self>, run: Arc<TaskRun>) {
        lock(&self.running).insert(run.id.clone(), run);
        self.start_sweeper();
    }

    pub(crate) fn remove_running(&self, id: &str) {
        lock(&self.running).remove(id);
    }

    /// The lifetime of a new task: the client's wish within the bounds, or the default.
    pub(crate) fn ttl_ms(&self, asked: Option<u64>) -> u64 {
        let max = self.config.max_ttl.as_millis() as u64;
        asked
            .unwrap_or(self.config.default_ttl.as_millis() as u64)
            .clamp(1, max.max(1))
    }

    /// Deletes expired tasks every `sweep_interval`, cancelling those still running, for as long as the
    /// server lives. Started with the first task.
    fn start_sweeper(self: &Arc<Self>) {
        self.sweeper.get_or_init(|| {
            let weak: Weak<Shared> = Arc::downgrade(self);
            let every = self.config.sweep_interval.max(Duration::from_millis(1));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(s) = weak.upgrade() else { return };
                    match s.store.purge_expired(store::now_ms()).await {
                        Ok(ids) => {
                            for id in ids {
                                tracing::debug!(task = %id, "task expired and deleted");
                                if let Some(run) = lock(&s.running).remove(&id) {
                                    run.token.cancel();
                                }
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "purging expired tasks failed"),
                    }
                }
            });
        });
    }
}
