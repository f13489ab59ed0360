//! A task whose handler runs in this process: its record's changes, who waits for its messages (a
//! `tasks/result` here or on another instance), and its input requests. Below `run.rs`, which starts
//! tasks, `input.rs`, the handler's channel into one, and `methods.rs`, which serves `tasks/*`.

use super::store::{now_ms, StoreError, TaskEra, TaskRecord, TaskUpdate, Updated};
use super::Shared;
use crate::framing::to_raw;
use crate::protocol::*;
use crate::server::mrtr::InputRound;
use crate::server::session_state::SessionState;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, Notify};
use tokio_util::sync::CancellationToken;

/// What a running task waits for, and what it was told.
pub(crate) struct Inputs {
    /// By key: the request, and the waiters for its answer.
    pub(crate) pending: BTreeMap<String, (InputRequest, Vec<oneshot::Sender<serde_json::Value>>)>,
    /// Every answer taken so far (a key names one question: asking it again gets the same answer).
    pub(crate) answered: BTreeMap<String, serde_json::Value>,
}

impl Inputs {
    pub(super) fn requests(&self) -> BTreeMap<String, InputRequest> {
        self.pending
            .iter()
            .map(|(k, (r, _))| (k.clone(), r.clone()))
            .collect()
    }
}

/// How long (at least; four poll intervals if that is longer) a `tasks/result` waiting on another
/// instance counts without being announced again: its instance announces it at every poll.
const REMOTE_WAITER_SILENCE: Duration = Duration::from_secs(5);

/// Seconds a task's end is tried again while the store cannot be reached.
const END_RETRIES: u32 = 30;

/// A task whose handler runs in this process.
pub(crate) struct TaskRun {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) era: TaskEra,
    /// Cancelled by `tasks/cancel`, expiry, or the end of the owning session: the handler is dropped.
    pub(crate) token: CancellationToken,
    pub(crate) shared: Arc<Shared>,
    /// The session the call came on (handshake era: where input requests and status notifications go).
    pub(crate) session: Arc<SessionState>,
    /// Woken at every change of the record (`tasks/result` waits on it).
    pub(crate) changed: Notify,
    /// Handshake era: the `tasks/result` requests now waiting for this task; input requests travel on
    /// the newest one's stream.
    pub(crate) result_waiters: Mutex<Vec<RequestId>>,
    /// Handshake era, several instances: the `tasks/result` requests waiting on other instances, with
    /// when they were last announced (their streams get the task's messages over the bus when none
    /// waits here; see `relay`).
    pub(crate) remote_waiters: Mutex<Vec<(RequestId, Instant)>>,
    pub(crate) waiter_arrived: Notify,
    pub(crate) inputs: tokio::sync::Mutex<Inputs>,
    pub(crate) keys_made: AtomicU32,
}

impl TaskRun {
    pub(super) fn new(
        record: &TaskRecord,
        shared: Arc<Shared>,
        session: Arc<SessionState>,
        token: CancellationToken,
        inherited: Option<&InputRound>,
    ) -> Arc<Self> {
        Arc::new(TaskRun {
            id: record.id.clone(),
            owner: record.owner.clone(),
            era: record.era,
            token,
            shared,
            session,
            changed: Notify::new(),
            result_waiters: Mutex::new(Vec::new()),
            remote_waiters: Mutex::new(Vec::new()),
            waiter_arrived: Notify::new(),
            inputs: tokio::sync::Mutex::new(Inputs {
                pending: BTreeMap::new(),
                answered: inherited.map(|r| r.answers().clone()).unwrap_or_default(),
            }),
            keys_made: AtomicU32::new(inherited.map_or(0, InputRound::keys_made)),
        })
    }

    /// Applies a change to the record, then tells whoever waits (and, in the handshake era, the client).
    pub(crate) async fn update(&self, update: TaskUpdate) -> Option<TaskRecord> {
        self.try_update(update).await.unwrap_or_else(|e| {
            tracing::warn!(task = %self.id, error = %e, "task update not stored");
            None
        })
    }

    /// [`TaskRun::update`], with the store's error: `Ok(None)` if the task is gone.
    async fn try_update(&self, update: TaskUpdate) -> Result<Option<TaskRecord>, StoreError> {
        let r = self.shared.store.update(&self.id, update, now_ms()).await;
        let out = match r {
            Ok(Updated::Task { record, changed }) => {
                if changed {
                    self.status_changed(&record);
                }
                Ok(Some(*record))
            }
            Ok(Updated::Missing) => Ok(None),
            Err(e) => Err(e),
        };
        self.changed.notify_waiters();
        out
    }

    /// Records how the task ended. A store that cannot be reached (a Redis restart) is tried again
    /// every second for [`END_RETRIES`] seconds, the task still running here meanwhile; then the end is
    /// lost and the task stays unfinished (failed by another instance once this one is gone).
    pub(super) async fn record_end(&self, update: TaskUpdate) {
        for attempt in 0..=END_RETRIES {
            match self.try_update(update.clone()).await {
                Ok(_) => {
                    if attempt > 0 {
                        tracing::info!(task = %self.id, "task end stored");
                    }
                    return;
                }
                Err(e) if attempt < END_RETRIES => {
                    if attempt == 0 {
                        tracing::warn!(task = %self.id, error = %e, "task end not stored; trying again every second");
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(e) => {
                    tracing::error!(task = %self.id, error = %e, "task end not stored; given up");
                }
            }
        }
    }

    /// `notifications/tasks/status` to a handshake-era client (optional in the spec; sent on every change).
    pub(crate) fn status_changed(&self, record: &TaskRecord) {
        if self.era != TaskEra::Handshake || !self.session.is_live() {
            return;
        }
        if let Ok(raw) = to_raw(&super::render::handshake_task(record)) {
            self.session
                .peer
                .try_notify(methods::TASKS_STATUS, Some(&raw), None);
        }
    }

    /// Where the task's messages go now: the newest `tasks/result` waiting here, else the newest
    /// waiting on another instance.
    pub(crate) fn current_waiter(&self) -> Option<WaiterAt> {
        let here = self
            .result_waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last()
            .cloned();
        here.map(WaiterAt::Here).or_else(|| {
            // One whose instance stopped announcing it (gone without a word) is passed over.
            let mut remote = self
                .remote_waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let silence = REMOTE_WAITER_SILENCE.max(self.shared.config.poll_interval * 4);
            remote.retain(|(_, seen)| seen.elapsed() < silence);
            remote.last().map(|(id, _)| WaiterAt::Elsewhere(id.clone()))
        })
    }

    /// Another instance says a `tasks/result` for this task waits there (`present`), or no longer does.
    pub(crate) fn remote_waiter(&self, waiter: RequestId, present: bool) {
        let new = {
            let mut w = self
                .remote_waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let before = w.len();
            w.retain(|(x, _)| *x != waiter);
            let new = w.len() == before;
            if present {
                w.push((waiter, Instant::now()));
            }
            new
        };
        // Announced again at every poll: only a new one wakes an input request waiting for a stream.
        if present && new {
            self.waiter_arrived.notify_waiters();
        }
    }
}

/// A `tasks/result` request that carries a task's messages on its stream.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum WaiterAt {
    /// Waiting on this instance.
    Here(RequestId),
    /// Waiting on another instance (the messages go over the bus).
    Elsewhere(RequestId),
}
