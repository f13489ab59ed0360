//! An instance's heartbeat: the key that says it is alive, so that another instance may fail the tasks
//! of one that stopped (see [`super::RedisTaskStore::leased`]).

use super::RedisTaskStore;
use std::sync::Weak;
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

impl Heartbeat {
    /// Refreshes `store`'s heartbeat every `self.every` until the store is dropped. A failed refresh
    /// is logged once, and its recovery too.
    pub(super) fn keep(self, store: Weak<RedisTaskStore>) {
        let every = self.every.max(Duration::from_millis(10));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // The first tick is now, and the first heartbeat is stored already.
            tick.tick().await;
            let mut failing = false;
            loop {
                tick.tick().await;
                let Some(store) = store.upgrade() else { return };
                match store.beat().await {
                    Ok(()) if failing => {
                        tracing::info!("task lease: heartbeat stored again");
                        failing = false;
                    }
                    Ok(()) => {}
                    Err(e) if !failing => {
                        tracing::warn!(error = %e, ttl_ms = self.ttl.as_millis() as u64,
                            "task lease: heartbeat not stored; past its TTL other instances fail this \
                             instance's tasks");
                        failing = true;
                    }
                    Err(_) => {}
                }
            }
        });
    }
}
