//! A handshake-era task's messages to a `tasks/result` that waits on another instance.
//!
//! Behind a load balancer the client's `tasks/result` may land on any instance, while the task's
//! handler runs on the one that started it. The waiting instance keeps the request's stream, tells the
//! others that it waits (`TaskWaiting`, again at every poll while it waits, and once more when it stops),
//! and writes to that stream what the running instance sends it (`TaskMessage`): the task's input
//! requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) and its log and progress
//! messages, exactly as a local waiter's stream would carry them. The client's answer to an input
//! request is a POST that may land anywhere; on a shared session it reaches the instance that sent the
//! request as every answer does (`ClientMessage`), and the handler goes on.
//!
//! A waiter on the running instance itself is preferred; a message for a waiter that has gone is
//! dropped by the instance that held it (the bus is best effort, like the stream it stands in for).

use super::Shared;
use crate::connection::{Deliver, OutKind, Outgoing, Peer};
use crate::error::Error;
use crate::protocol::RequestId;
use crate::scale::{BusEvent, BusMessage};
use std::sync::Arc;

/// A `tasks/result` on this instance for a task that runs on another; its stream gets the task's
/// messages until this is dropped.
pub(super) struct WaitingHere {
    shared: Arc<Shared>,
    task: String,
    waiter: RequestId,
}

impl Shared {
    /// Registers `waiter` (a `tasks/result` of `peer`'s session) for the messages of `task`, which runs
    /// elsewhere, and tells the other instances. `None` without a bus (a single instance).
    pub(super) async fn wait_here(
        self: &Arc<Self>,
        task: &str,
        waiter: RequestId,
        peer: Peer,
    ) -> Option<WaitingHere> {
        self.bus.get()?;
        super::lock(&self.remote_waits).insert((task.to_string(), waiter.clone()), peer);
        let w = WaitingHere {
            shared: self.clone(),
            task: task.to_string(),
            waiter,
        };
        w.announce().await;
        Some(w)
    }

    /// Sends a task's message to the instance where `waiter` waits.
    pub(crate) async fn send_to_waiter(
        self: &Arc<Self>,
        task: &str,
        waiter: RequestId,
        frame: Vec<u8>,
    ) {
        if let Err(e) = self.deliver_to(task, waiter)(frame).await {
            tracing::warn!(error = %e, task = %task, "task message not passed to the waiting instance");
        }
    }

    /// Where [`crate::connection::Peer::request_via`] hands a task's request for `waiter`'s stream.
    pub(crate) fn deliver_to(self: &Arc<Self>, task: &str, waiter: RequestId) -> Deliver {
        let shared = self.clone();
        let task = task.to_string();
        Box::new(move |frame: Vec<u8>| {
            Box::pin(async move {
                let event = BusEvent::TaskMessage {
                    task,
                    waiter,
                    frame: String::from_utf8_lossy(&frame).into_owned(),
                };
                shared
                    .publish(event)
                    .await
                    .map_err(|e| Error::Io(format!("the waiting instance was not reached: {e}")))
            })
        })
    }

    /// What this instance hears of the others about tasks' waiters and messages.
    pub(super) async fn heard(&self, event: BusEvent) {
        match event {
            BusEvent::TaskWaiting {
                task,
                waiter,
                present,
            } => {
                if let Some(run) = self.running(&task) {
                    tracing::debug!(task = %task, %waiter, present, "tasks/result waiting on another instance");
                    run.remote_waiter(waiter, present);
                }
            }
            BusEvent::TaskMessage {
                task,
                waiter,
                frame,
            } => {
                let peer = super::lock(&self.remote_waits)
                    .get(&(task, waiter.clone()))
                    .cloned();
                if let Some(peer) = peer {
                    // Routed by the request it relates to, as the local handler's messages are.
                    let out =
                        Outgoing::new(frame.into_bytes(), OutKind::Notification, Some(waiter));
                    let _ = peer.send(out).await;
                }
            }
            _ => {}
        }
    }

    /// Publishes `event` as this instance, if it is on a bus.
    pub(super) async fn publish(&self, event: BusEvent) -> Result<(), crate::scale::StoreError> {
        let Some((bus, origin)) = self.bus.get() else {
            return Ok(());
        };
        let msg = BusMessage {
            origin: origin.clone(),
            event,
        };
        bus.publish(&msg).await
    }
}

impl WaitingHere {
    /// Tells the other instances that this request waits (again: a message may have been missed, or
    /// the task may have moved to a new instance's record).
    pub(super) async fn announce(&self) {
        let event = BusEvent::TaskWaiting {
            task: self.task.clone(),
            waiter: self.waiter.clone(),
            present: true,
        };
        if let Err(e) = self.shared.publish(event).await {
            tracing::warn!(error = %e, task = %self.task, "tasks/result not announced to other instances");
        }
    }
}

impl Drop for WaitingHere {
    fn drop(&mut self) {
        super::lock(&self.shared.remote_waits).remove(&(self.task.clone(), self.waiter.clone()));
        let shared = self.shared.clone();
        let event = BusEvent::TaskWaiting {
            task: std::mem::take(&mut self.task),
            waiter: self.waiter.clone(),
            present: false,
        };
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = shared.publish(event).await;
            });
        }
    }
}

impl crate::server::task_channel::WaiterRelay for Shared {
    fn relay(
        self: Arc<Self>,
        task: String,
        waiter: RequestId,
        frame: Vec<u8>,
    ) -> crate::future::BoxFuture<'static, ()> {
        Box::pin(async move { self.send_to_waiter(&task, waiter, frame).await })
    }
}
