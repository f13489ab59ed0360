//! The requests this side sent and waits for: each one's answer channel, progress callback and deadline,
//! and the one task per connection that fails the expired ones.

use super::*;

/// How a request of ours ended, as its waiter learns it.
pub(super) enum Settled {
    /// The peer's answer, or the connection's close.
    Answer(Result<Box<RawValue>, Error>),
    /// Its deadline passed (the deadline task has sent `notifications/cancelled` where due).
    TimedOut,
}

pub(super) type PendingSender = oneshot::Sender<Settled>;

pub(super) type ProgressCallback = Arc<dyn Fn(ProgressParams) + Send + Sync>;

/// A request of ours waiting for its answer.
pub(super) struct Call {
    pub(super) tx: PendingSender,
    /// When it times out; `None` until it is written (the time limit runs from then), or never.
    pub(super) deadline: Option<Instant>,
    /// Whether its timeout tells the peer with `notifications/cancelled` (not for `initialize`).
    pub(super) cancel: bool,
}

/// The requests of ours waiting for answers, and what the connection's one deadline task needs: the
/// pending requests carry their deadlines, and the task sleeps until the earliest (no timer per
/// request: registering one woke Tokio's parked driver, a syscall per request). Deadlines mostly come
/// in increasing order (one timeout per connection), so a new request rarely moves the task's alarm.
pub(super) struct Pending {
    pub(super) calls: HashMap<RequestId, Call, Fold>,
    /// At or before every pending deadline (`None`: no deadline pending, the task has no alarm).
    pub(super) armed: Option<Instant>,
    /// Whether the deadline task runs (started by the first request with a time limit).
    pub(super) deadline_task: bool,
    pub(super) progress: HashMap<ProgressToken, ProgressCallback, Fold>,
    /// `event/delta` frames seen per request with a progress callback (their progress number).
    pub(super) deltas: HashMap<ProgressToken, u64, Fold>,
    pub(super) closed: Option<String>,
}

impl Pending {
    /// Takes out every call whose deadline is at or before `now` (when the alarm has passed) and sets
    /// the alarm to the earliest deadline left.
    pub(super) fn expire(&mut self, now: Instant) -> Vec<(RequestId, Call)> {
        if self.armed.is_none_or(|a| a > now) {
            return Vec::new();
        }
        let due: Vec<RequestId> = self
            .calls
            .iter()
            .filter(|(_, c)| c.deadline.is_some_and(|d| d <= now))
            .map(|(id, _)| id.clone())
            .collect();
        let expired = due
            .into_iter()
            .filter_map(|id| {
                self.progress.remove(&id);
                self.deltas.remove(&id);
                self.calls.remove_entry(&id)
            })
            .collect();
        self.armed = self.calls.values().filter_map(|c| c.deadline).min();
        expired
    }
}

/// The connection's deadline task: sleeps until the earliest deadline of our pending requests, fails
/// those past theirs, and sleeps again; ends when the connection closes or is gone.
pub(super) async fn expire_calls(
    shared: std::sync::Weak<Shared>,
    moved: Arc<Notify>,
    closed: CancellationToken,
) {
    let alarm = tokio::time::sleep_until(Instant::now());
    tokio::pin!(alarm);
    loop {
        let next = match shared.upgrade() {
            Some(shared) => Peer { shared }.expire_due(),
            None => return,
        };
        if let Some(at) = next {
            if alarm.deadline() != at || alarm.is_elapsed() {
                alarm.as_mut().reset(at);
            }
        }
        tokio::select! {
            _ = &mut alarm, if next.is_some() => {}
            _ = moved.notified() => {}
            _ = closed.cancelled() => return,
        }
    }
}
