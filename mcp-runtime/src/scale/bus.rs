//! Notifications between the instances of one deployment.

use super::StoreError;
use crate::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

/// What one instance tells the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BusEvent {
    /// The client ended the session (`DELETE`): every instance drops its copy and ends its streams.
    SessionEnded {
        /// The session's id.
        session: String,
    },
    /// The session's record changed (`logging/setLevel`): instances with a copy read it again.
    SessionChanged {
        /// The session's id.
        session: String,
    },
    /// A message of the client that concerns whichever instance waits for it: a response to a request
    /// the server sent, or a `notifications/cancelled`. The instance that has the request dispatches
    /// it; the others find nothing to match.
    ClientMessage {
        /// The session's id.
        session: String,
        /// The JSON-RPC message as the client sent it.
        message: String,
    },
    /// Answers to a task's input requests (2026-07-28 `tasks/update`) that reached an instance that
    /// does not run the task: the one that runs it hands them to its handler.
    TaskInput {
        /// The task's id.
        task: String,
        /// The answers, by input key.
        responses: std::collections::BTreeMap<String, serde_json::Value>,
    },
    /// A task was cancelled: the instance that runs its handler stops it.
    TaskCancelled {
        /// The task's id.
        task: String,
    },
    /// A handshake-era `tasks/result` began (`present`) or stopped waiting on an instance that does
    /// not run the task: the instance that runs it sends the task's messages (its input requests, log
    /// and progress messages) to that request's stream, as [`BusEvent::TaskMessage`].
    TaskWaiting {
        /// The task's id.
        task: String,
        /// The id of the client's `tasks/result` request.
        waiter: crate::protocol::RequestId,
        /// Whether it waits now (`false`: it ended).
        present: bool,
    },
    /// A message of a task for the stream of a `tasks/result` that another instance holds: that
    /// instance writes it there, as if its own handler had sent it.
    TaskMessage {
        /// The task's id.
        task: String,
        /// The `tasks/result` request whose stream carries it.
        waiter: crate::protocol::RequestId,
        /// The JSON-RPC message (a request to the client or a notification), one line.
        frame: String,
    },
    /// Something changed that every session and `subscriptions/listen` stream may need to hear of:
    /// each other instance tells its own (never passing it on again).
    ServerChanged {
        /// What changed.
        change: ServerChange,
    },
}

/// A change of the server that its clients are notified of, wherever their stream is held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum ServerChange {
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated`, to the sessions and listen streams watching the URI.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
}

/// One message on the bus: the event, and the instance that sent it (so that it can ignore its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BusMessage {
    /// The sender's name (random per instance).
    pub origin: String,
    /// What happened.
    pub event: BusEvent,
}

/// Delivers messages to every instance (the sender included), at most once, in order per sender.
/// Delivery is best effort: an instance that is disconnected when a message is sent misses it.
pub trait Bus: Send + Sync + 'static {
    /// Sends a message to every subscriber.
    fn publish<'a>(&'a self, message: &'a BusMessage) -> BoxFuture<'a, Result<(), StoreError>>;
    /// A receiver of every message published from now on (a slow receiver misses the oldest ones).
    fn subscribe(&self) -> broadcast::Receiver<BusMessage>;
}

/// A bus within one process.
pub struct MemoryBus {
    tx: broadcast::Sender<BusMessage>,
}

impl Default for MemoryBus {
    fn default() -> Self {
        MemoryBus {
            tx: broadcast::channel(1024).0,
        }
    }
}

impl Bus for MemoryBus {
    fn publish<'a>(&'a self, message: &'a BusMessage) -> BoxFuture<'a, Result<(), StoreError>> {
        // No subscriber is not an error: nobody needs to hear it.
        let _ = self.tx.send(message.clone());
        Box::pin(async { Ok(()) })
    }

    fn subscribe(&self) -> broadcast::Receiver<BusMessage> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_subscriber_hears_every_message_in_order() {
        let bus = MemoryBus::default();
        let mut a = bus.subscribe();
        let mut b = bus.subscribe();
        let m1 = BusMessage {
            origin: "x".into(),
            event: BusEvent::TaskCancelled { task: "t".into() },
        };
        let m2 = BusMessage {
            origin: "x".into(),
            event: BusEvent::SessionEnded {
                session: "s".into(),
            },
        };
        bus.publish(&m1).await.unwrap();
        bus.publish(&m2).await.unwrap();
        for r in [&mut a, &mut b] {
            assert_eq!(r.recv().await.unwrap(), m1);
            assert_eq!(r.recv().await.unwrap(), m2);
        }
        let json = serde_json::to_string(&m1).unwrap();
        assert_eq!(
            json,
            r#"{"origin":"x","event":{"kind":"task_cancelled","task":"t"}}"#
        );
        let changed = BusMessage {
            origin: "y".into(),
            event: BusEvent::ServerChanged {
                change: ServerChange::ResourceUpdated {
                    uri: "a://b".into(),
                },
            },
        };
        let json = serde_json::to_string(&changed).unwrap();
        assert_eq!(
            json,
            r#"{"origin":"y","event":{"kind":"server_changed","change":{"what":"resource_updated","uri":"a://b"}}}"#
        );
        assert_eq!(serde_json::from_str::<BusMessage>(&json).unwrap(), changed);
    }
}
