//! What several instances of one server share, so that any of them can take any request of a
//! handshake-era session: the session record ([`SessionStore`]), the SSE event log of each stream
//! ([`EventStore`], for `Last-Event-ID` resumption on another instance), the tasks (the server's
//! [`crate::server::TaskStore`]) and a notification [`Bus`] between instances.
//!
//! A single process needs none of this: without [`SharedStores`] the HTTP server keeps everything in
//! its own memory, as before. The memory implementations here ([`MemorySessionStore`],
//! [`MemoryEventStore`], [`MemoryBus`]) share state between services of one process (tests, several
//! listeners); the `redis` feature adds [`redis`] implementations of all four for several processes.
//!
//! Invariants:
//! - a session record is written when `initialize` is answered and when the session's state changes
//!   (`logging/setLevel`); an instance that does not know a session id reads the record once and keeps
//!   a local copy, so a request costs at most one store round trip, and only the first one an instance
//!   sees of that session;
//! - an SSE event is written to the event log before it is sent to the client, so a client that
//!   resumes on another instance gets every event after its `Last-Event-ID` exactly once, and an event
//!   whose write failed is not sent: its stream's connection ends, and the client resumes;
//! - a server change (a list changed, a resource updated) is told to this instance's sessions and
//!   listen streams at once and published on the bus through a bounded queue, off the request's path;
//!   another instance tells its own and never publishes it again, so nothing loops;
//! - a store that cannot be reached fails the request that needed it with a JSON-RPC error; nothing
//!   panics, and the next request tries again.

pub mod bus;
pub mod events;
pub(crate) mod forward;
#[cfg(feature = "redis")]
pub mod redis;
pub mod session;

pub use crate::server::tasks::StoreError;
pub use bus::{Bus, BusEvent, BusMessage, MemoryBus, ServerChange};
pub use events::{EventStore, MemoryEventStore, Replay, StreamEvent};
pub use session::{MemorySessionStore, SessionRecord, SessionStore};

use std::sync::Arc;
use std::time::Duration;

/// The stores an HTTP server shares with the other instances of its deployment (see the module docs).
/// Set it as [`crate::http::HttpConfig::shared`]; the task store goes to
/// [`crate::ServerBuilder::task_store`].
#[derive(Clone)]
pub struct SharedStores {
    /// Session records.
    pub sessions: Arc<dyn SessionStore>,
    /// SSE event logs, one per stream.
    pub events: Arc<dyn EventStore>,
    /// Notifications between instances.
    pub bus: Arc<dyn Bus>,
    /// How long a session record and its event logs live after their last use.
    pub ttl: Duration,
}

impl SharedStores {
    /// Memory stores shared by the services of this process that are given clones of it.
    pub fn memory() -> Self {
        SharedStores {
            sessions: Arc::new(MemorySessionStore::default()),
            events: Arc::new(MemoryEventStore::new(256, 4096)),
            bus: Arc::new(MemoryBus::default()),
            ttl: Duration::from_secs(30 * 60),
        }
    }
}

impl std::fmt::Debug for SharedStores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStores")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// 64 random bits as hex: an instance's name on the bus.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn random_name() -> String {
    let mut b = [0u8; 8];
    if getrandom::fill(&mut b).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        b = (t ^ u64::from(std::process::id())).to_be_bytes();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}
