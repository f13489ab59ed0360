//! A keyed pool of upstream connections, the one mechanism behind a session's own connections
//! ([`crate::sessions`], keyed by session) and a caller's ([`crate::users`], keyed by credential):
//!
//! - **Start once.** A key's connection is started by the first request that needs it; concurrent
//!   first requests share that start, and a connection that died is replaced on the next request.
//! - **Bounded.** At most `max` connections at once; a new key beyond that either takes the place of
//!   the connection idle longest (one with no call in flight) or is refused, as its owner says.
//! - **Closed.** A connection that leaves the pool is closed once nobody holds it (a child: stdin
//!   closed, two seconds, killed); [`Pool::abort_all`] ends every one at once.

use crate::link::{Callers, Link};
use crate::metrics::PoolMetrics;
use crate::secrets::Secrets;
use crate::upstream_errors::unavailable;
use mcp_runtime::client::Client;
use mcp_runtime::protocol::{ErrorObject, LoggingLevel};
use mcp_runtime::Error;
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

/// The connections of one upstream, by key.
pub(crate) struct Pool<K> {
    max: usize,
    slots: Mutex<HashMap<K, Arc<Slot>>>,
    metrics: PoolMetrics,
}

/// One key's connection: started once, by the first request that needs it.
pub(crate) struct Slot {
    client: OnceCell<Arc<Client>>,
    callers: Callers,
    last_used: Mutex<Instant>,
    /// What is taken out of everything relayed from it.
    secrets: Arc<Secrets>,
}

/// What a full pool does with a new key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum WhenFull {
    /// Refuses it.
    Refuse,
    /// Closes the connection idle longest to make room; refuses it when every one is busy.
    EvictIdlest,
}

impl Slot {
    /// Since when it has had no call in flight (`None`: it has one now).
    fn idle_since(&self) -> Option<Instant> {
        self.callers
            .is_empty()
            .then(|| *self.last_used.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn is_dead(&self) -> bool {
        self.client.get().is_some_and(|c| c.peer().is_closed())
    }
}

impl<K: Eq + Hash + Clone> Pool<K> {
    /// A pool of at most `max` connections, counted in `metrics`.
    pub(crate) fn new(max: usize, metrics: PoolMetrics) -> Pool<K> {
        Pool {
            max,
            slots: Mutex::new(HashMap::new()),
            metrics,
        }
    }

    /// How many connections it may hold.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// How many keys have a connection (or one starting) now.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Its live connections, evictions and refusals.
    pub(crate) fn metrics(&self) -> &PoolMetrics {
        &self.metrics
    }

    /// The process ids of its children (stdio upstreams), in no order.
    pub(crate) fn pids(&self) -> Vec<u32> {
        self.lock()
            .values()
            .filter_map(|s| s.client.get().and_then(|c| c.server_pid()))
            .collect()
    }

    /// How many calls are in flight on its connections.
    pub(crate) fn in_flight(&self) -> usize {
        self.lock().values().map(|s| s.callers.len()).sum()
    }

    /// Ends every connection now: calls in flight fail with `reason`.
    pub(crate) fn abort_all(&self, reason: &str) {
        let gone: Vec<Arc<Slot>> = {
            let mut slots = self.lock();
            let gone = slots.drain().map(|(_, s)| s).collect();
            self.counted(&slots);
            gone
        };
        for s in gone {
            if let Some(c) = s.client.get() {
                c.abort(reason);
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<K, Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the number of connections after a change of `slots`.
    fn counted(&self, slots: &HashMap<K, Arc<Slot>>) {
        self.metrics
            .live
            .set(i64::try_from(slots.len()).unwrap_or(i64::MAX));
    }

    /// The slot of `key`, marked used now: its live one, or a new one with `secrets` (replacing one
    /// whose connection died) and `true`. A full pool does as `when_full` says; a refusal is `full()`.
    pub(crate) fn slot(
        &self,
        key: &K,
        when_full: WhenFull,
        secrets: impl FnOnce() -> Arc<Secrets>,
        full: impl FnOnce() -> ErrorObject,
    ) -> Result<(Arc<Slot>, bool), ErrorObject> {
        let mut slots = self.lock();
        if slots.get(key).is_some_and(|s| s.is_dead()) {
            slots.remove(key);
            self.counted(&slots);
        }
        if let Some(s) = slots.get(key) {
            *s.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            return Ok((s.clone(), false));
        }
        if slots.len() >= self.max {
            let idlest = match when_full {
                WhenFull::Refuse => None,
                WhenFull::EvictIdlest => slots
                    .iter()
                    .filter_map(|(k, s)| s.idle_since().map(|t| (t, k)))
                    .min_by_key(|(t, _)| *t)
                    .map(|(_, k)| k.clone()),
            };
            match idlest.and_then(|k| slots.remove(&k)) {
                Some(gone) => {
                    self.metrics.evictions.inc();
                    tokio::spawn(close(gone));
                }
                None => {
                    self.metrics.refusals.inc();
                    return Err(full());
                }
            }
        }
        let slot = Arc::new(Slot {
            client: OnceCell::new(),
            callers: Callers::default(),
            last_used: Mutex::new(Instant::now()),
            secrets: secrets(),
        });
        slots.insert(key.clone(), slot.clone());
        self.counted(&slots);
        Ok((slot, true))
    }

    /// Takes `key` out if it still holds `slot`.
    pub(crate) fn remove_if(&self, key: &K, slot: &Arc<Slot>) {
        let mut slots = self.lock();
        if slots.get(key).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            slots.remove(key);
            self.counted(&slots);
        }
    }

    /// Takes out the connections without a call in flight for `idle` or longer.
    pub(crate) fn take_idle(&self, idle: Duration) -> Vec<Arc<Slot>> {
        let mut slots = self.lock();
        let stale: Vec<K> = slots
            .iter()
            .filter(|(_, s)| s.idle_since().is_some_and(|t| t.elapsed() >= idle))
            .map(|(k, _)| k.clone())
            .collect();
        let gone = stale.iter().filter_map(|k| slots.remove(k)).collect();
        self.counted(&slots);
        gone
    }
}

/// The connection of `slot`, started now with `connect` if it has none (`kind`, `per-session` or
/// `per-user`, and `session` name it in logs). A start that fails is the upstream's `unavailable`
/// error, its reason free of the slot's secrets.
pub(crate) async fn link<F: Future<Output = Result<Client, Error>>>(
    slot: &Slot,
    name: &str,
    kind: &str,
    session: Option<u64>,
    connect: impl FnOnce(Callers) -> F,
) -> Result<Link, ErrorObject> {
    let client = slot
        .client
        .get_or_try_init(|| async {
            let client = connect(slot.callers.clone()).await.map_err(|e| {
                let why = slot.secrets.redact(&e.to_string()).into_owned();
                tracing::warn!(upstream = %name, session, "{kind} start failed: {why}");
                unavailable(name, &why)
            })?;
            // As for the shared connection: log messages reach the calls.
            if client.server().capabilities.logging.is_some() {
                let _ = client.set_logging_level(LoggingLevel::Debug).await;
            }
            tracing::debug!(upstream = %name, session, pid = ?client.server_pid(), "{kind} connection up");
            Ok::<_, ErrorObject>(Arc::new(client))
        })
        .await?
        .clone();
    Ok(Link {
        client,
        callers: slot.callers.clone(),
        secrets: slot.secrets.clone(),
    })
}

/// Closes a connection that left its pool, once nobody holds it (a child: stdin closed, two seconds,
/// killed). One a request still holds goes when it lets go, killed as its client drops.
pub(crate) async fn close(slot: Arc<Slot>) {
    let Ok(slot) = Arc::try_unwrap(slot) else {
        return;
    };
    if let Some(client) = slot.client.into_inner() {
        match Arc::try_unwrap(client) {
            // Its input closed; two seconds to exit; then killed (and reaped).
            Ok(client) => client.close().await,
            Err(client) => drop(client),
        }
    }
}
