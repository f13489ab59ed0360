//! An instance's heartbeat: the key that says it is alive, so that another instance may fail the tasks
//! of one that stopped (see [`super::RedisTaskStore::leased`]; the store keeps its own heartbeat fresh).

use std::time::Duration;

/// How often an instance refreshes its heartbeat and how long one lives.
///
/// The defaults, every second for 5 seconds: a dead instance's tasks fail within 5 s (plus a client's
/// poll interval), while a live one survives four missed refreshes in a row, or one stuck for the whole
/// 2 s command timeout with room to spare (a loaded machine, a Redis that answers slowly). A refresh is
/// one `SET` a second per instance. Every instance of a deployment should use the same values: the one
/// that judges another's heartbeat also waits, after a Redis restart, for Redis to have been up for its
/// own TTL (so that instances that were cut off have refreshed theirs) before failing anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heartbeat {
    /// Time between refreshes.
    pub every: Duration,
    /// How long a heartbeat lives: past it without a refresh, the instance counts as stopped.
    pub ttl: Duration,
}

impl Default for Heartbeat {
    fn default() -> Self {
        Heartbeat {
            every: Duration::from_secs(1),
            ttl: Duration::from_secs(5),
        }
    }
}
