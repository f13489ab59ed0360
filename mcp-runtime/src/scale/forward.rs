//! Server changes (list changes, resource updates) forwarded to the other instances, so that a
//! `subscriptions/listen` stream or a handshake-era GET stream held by one instance hears of a change
//! made on another.
//!
//! Publishing never waits on the caller's path: a change goes into a bounded queue (dropped with a
//! warning when the queue is full: the bus is best effort anyway, and a later change of the same kind
//! says the same), and one task per server drains it onto the bus in order. A change heard from another
//! instance is delivered here only, never published again; this instance's own messages are ignored when
//! they come back, so each change reaches each stream once.

use super::{Bus, BusEvent, BusMessage, ServerChange};
use std::sync::{Arc, OnceLock};
use tokio::sync::mpsc;

/// How many changes may wait for the bus.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
const QUEUE: usize = 256;

/// A server's link to the bus: unset (a single process) until [`Forwarder::attach`].
#[derive(Default)]
pub(crate) struct Forwarder {
    out: OnceLock<(mpsc::Sender<BusMessage>, String)>,
}

impl Forwarder {
    /// Tells the other instances (if attached) about a change this instance made.
    pub(crate) fn publish(&self, change: ServerChange) {
        let Some((tx, origin)) = self.out.get() else {
            return;
        };
        let msg = BusMessage {
            origin: origin.clone(),
            event: BusEvent::ServerChanged { change },
        };
        if let Err(mpsc::error::TrySendError::Full(m)) = tx.try_send(msg) {
            tracing::warn!(event = ?m.event, "bus: too many changes waiting; this one is not forwarded");
        }
    }

    /// Joins `bus` as `origin` (once; later calls are ignored): changes published here go out, changes
    /// of the other instances go to `deliver`, until it returns `false` (the server is gone). Needs a
    /// Tokio runtime.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn attach(
        &self,
        bus: Arc<dyn Bus>,
        origin: String,
        deliver: impl Fn(&ServerChange) -> bool + Send + 'static,
    ) {
        let (tx, mut rx) = mpsc::channel::<BusMessage>(QUEUE);
        if self.out.set((tx, origin.clone())).is_err() {
            return;
        }
        let mut heard = bus.subscribe();
        let publisher = bus.clone();
        // Ends when the forwarder (and with it the sender) is dropped.
        tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if let Err(e) = publisher.publish(&m).await {
                    tracing::warn!(error = %e, event = ?m.event, "bus: change not forwarded to other instances");
                }
            }
        });
        tokio::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                let msg = match heard.recv().await {
                    Ok(m) => m,
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "change bus: messages missed");
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                };
                if msg.origin == origin {
                    continue;
                }
                if let BusEvent::ServerChanged { change } = &msg.event {
                    if !deliver(change) {
                        return;
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scale::MemoryBus;
    use std::sync::Mutex;
    use std::time::Duration;

    #[tokio::test]
    async fn changes_cross_once_and_never_come_back() {
        let bus: Arc<dyn Bus> = Arc::new(MemoryBus::default());
        let seen_a = Arc::new(Mutex::new(Vec::new()));
        let seen_b = Arc::new(Mutex::new(Vec::new()));
        let (a, b) = (Forwarder::default(), Forwarder::default());
        let sa = seen_a.clone();
        a.attach(bus.clone(), "a".into(), move |c| {
            sa.lock().unwrap().push(c.clone());
            true
        });
        let sb = seen_b.clone();
        b.attach(bus.clone(), "b".into(), move |c| {
            sb.lock().unwrap().push(c.clone());
            true
        });
        let mut all = bus.subscribe();
        a.publish(ServerChange::ToolsListChanged);
        b.publish(ServerChange::ResourceUpdated {
            uri: "x://1".into(),
        });
        a.publish(ServerChange::PromptsListChanged);
        for _ in 0..3 {
            let m = tokio::time::timeout(Duration::from_secs(5), all.recv()).await;
            assert!(matches!(
                m,
                Ok(Ok(BusMessage {
                    event: BusEvent::ServerChanged { .. },
                    ..
                }))
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            *seen_b.lock().unwrap(),
            vec![
                ServerChange::ToolsListChanged,
                ServerChange::PromptsListChanged
            ]
        );
        assert_eq!(
            *seen_a.lock().unwrap(),
            vec![ServerChange::ResourceUpdated {
                uri: "x://1".into()
            }]
        );
        // Nothing was published again by the instance that heard it: only the three changes were sent.
        assert!(all.try_recv().is_err());
    }

    #[test]
    fn a_full_queue_drops_instead_of_waiting() {
        let f = Forwarder::default();
        let (tx, _rx) = mpsc::channel(QUEUE);
        let _ = f.out.set((tx, "me".into()));
        for _ in 0..QUEUE + 10 {
            f.publish(ServerChange::ToolsListChanged); // never blocks, never grows past QUEUE
        }
        let (tx, _) = f.out.get().unwrap();
        assert_eq!(tx.capacity(), 0);
    }
}
