//! Per-user connections of an upstream whose connections carry the caller's credentials
//! ([`crate::credentials`]): one connection (an HTTP client with the caller's token, or a child with the
//! caller's environment) per distinct credential, so that no request ever travels on a connection that
//! carries another caller's.
//!
//! - **Key.** A digest of the caller's subject and of the credentials its connection is given (its
//!   token, the exchanged token, the rendered env): a caller whose token is refreshed gets a new
//!   connection, and the old one idles out.
//! - **Life.** Started on the caller's first request (concurrent first requests share one start),
//!   closed after `userIdleMs` without a call in flight (the idle sweep runs every quarter of it), and
//!   started again on the next request after it died.
//! - **Bounds.** At most `maxUsers` connections at once; a new caller beyond that takes the place of the
//!   connection idle longest (one with no call in flight), or, when every one is busy, is refused with a
//!   JSON-RPC error that says so.
//! - **Observed.** `/health` reports the live connections, `maxUsers`, the evictions and the refusals
//!   per upstream, and `/metrics` exports them ([`crate::metrics::PoolMetrics`]).

use crate::credentials::{self, Exchanged, PerUser};
use crate::link::{Callers, Link};
use crate::metrics::PoolMetrics;
use crate::secrets::Secrets;
use crate::upstream_errors::unavailable;
use mcp_runtime::client::Client;
use mcp_runtime::protocol::{ErrorObject, LoggingLevel};
use mcp_runtime::{Context, Error};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;
use tokio::sync::OnceCell;

pub(crate) use crate::credentials::UserCredentials;

/// The per-user connections of one upstream.
pub struct UserPool {
    per_user: PerUser,
    slots: Mutex<HashMap<[u8; 32], Arc<Slot>>>,
    /// Tokens obtained by exchange, per caller token.
    pub(crate) exchanged: Exchanged,
    sweeping: AtomicBool,
    metrics: PoolMetrics,
}

struct Slot {
    client: OnceCell<Arc<Client>>,
    callers: Callers,
    last_used: Mutex<Instant>,
    /// The upstream's secrets and this connection's credentials.
    secrets: Arc<Secrets>,
}

impl Slot {
    fn idle_since(&self) -> Option<Instant> {
        self.callers
            .is_empty()
            .then(|| *self.last_used.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl UserPool {
    /// A pool that counts in `metrics`.
    pub fn new(per_user: PerUser, metrics: PoolMetrics) -> UserPool {
        UserPool {
            per_user,
            slots: Mutex::new(HashMap::new()),
            exchanged: Exchanged::new(),
            sweeping: AtomicBool::new(false),
            metrics,
        }
    }

    /// Its live connections, evictions and refusals.
    pub fn metrics(&self) -> &PoolMetrics {
        &self.metrics
    }

    /// Records the number of connections after a change of `slots`.
    fn counted(&self, slots: &HashMap<[u8; 32], Arc<Slot>>) {
        self.metrics
            .live
            .set(i64::try_from(slots.len()).unwrap_or(i64::MAX));
    }

    /// How many callers have a connection (or one starting) now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no caller has a connection.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// How many connections it may hold.
    pub fn max(&self) -> usize {
        self.per_user.max_users
    }

    /// The process ids of the callers' children (stdio upstreams).
    pub fn pids(&self) -> Vec<u32> {
        self.lock()
            .values()
            .filter_map(|s| s.client.get().and_then(|c| c.server_pid()))
            .collect()
    }

    /// How many calls are in flight on the callers' connections.
    pub(crate) fn in_flight(&self) -> usize {
        self.lock().values().map(|s| s.callers.len()).sum()
    }

    /// Ends every connection now (a removed upstream).
    pub(crate) fn abort_all(&self, reason: &str) {
        let slots: Vec<Arc<Slot>> = {
            let mut slots = self.lock();
            let gone = slots.drain().map(|(_, s)| s).collect();
            self.counted(&slots);
            gone
        };
        for s in slots {
            if let Some(c) = s.client.get() {
                c.abort(reason);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connection of the caller of `ctx`, started now with its credentials if it has none.
    pub(crate) async fn link<F: Future<Output = Result<Client, Error>>>(
        self: &Arc<Self>,
        name: &str,
        env_template: Option<&std::collections::BTreeMap<String, String>>,
        secrets: &Secrets,
        ctx: &Context,
        connect: impl FnOnce(Callers, UserCredentials) -> F,
    ) -> Result<Link, ErrorObject> {
        let creds =
            credentials::for_caller(&self.per_user, env_template, ctx.auth(), &self.exchanged)
                .await
                .map_err(|why| credentials::refused(name, &why))?;
        self.start_sweep();
        let key = creds.key;
        let slot = {
            let mut slots = self.lock();
            let dead = slots
                .get(&key)
                .is_some_and(|s| s.client.get().is_some_and(|c| c.peer().is_closed()));
            if dead {
                slots.remove(&key);
                self.counted(&slots);
            }
            match slots.get(&key) {
                Some(s) => s.clone(),
                None => {
                    if slots.len() >= self.per_user.max_users {
                        // The connection idle longest makes room, if one is idle.
                        let oldest = slots
                            .iter()
                            .filter_map(|(k, s)| s.idle_since().map(|t| (t, *k)))
                            .min();
                        match oldest {
                            Some((_, k)) => {
                                if let Some(s) = slots.remove(&k) {
                                    self.metrics.evictions.inc();
                                    tokio::spawn(close(s));
                                }
                            }
                            None => {
                                self.metrics.refusals.inc();
                                return Err(ErrorObject::internal(format!(
                                    "upstream `{name}` already serves {} callers, each with its own \
                                     connection (its maxUsers), all busy: try again when one is done",
                                    self.per_user.max_users
                                ))
                                .with_data(serde_json::json!({
                                    "upstream": name, "maxUsers": self.per_user.max_users,
                                    "state": "users exhausted",
                                })));
                            }
                        }
                    }
                    let own = creds.headers.iter().map(|(_, v)| v.as_str());
                    let slot = Arc::new(Slot {
                        client: OnceCell::new(),
                        callers: Callers::default(),
                        last_used: Mutex::new(Instant::now()),
                        secrets: Arc::new(
                            secrets.with(own, creds.secrets.iter().map(String::as_str)),
                        ),
                    });
                    slots.insert(key, slot.clone());
                    self.counted(&slots);
                    slot
                }
            }
        };
        *slot.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        let client = slot
            .client
            .get_or_try_init(|| async {
                let client = connect(slot.callers.clone(), creds).await.map_err(|e| {
                    let why = slot.secrets.redact(&e.to_string()).into_owned();
                    tracing::warn!(upstream = %name, "per-user start failed: {why}");
                    unavailable(name, &why)
                })?;
                if client.server().capabilities.logging.is_some() {
                    let _ = client.set_logging_level(LoggingLevel::Debug).await;
                }
                tracing::debug!(upstream = %name, pid = ?client.server_pid(), "per-user connection up");
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

    /// Starts the idle sweep once (on the first request: a pool is made before any runtime runs it).
    fn start_sweep(self: &Arc<Self>) {
        if self.sweeping.swap(true, Ordering::AcqRel) {
            return;
        }
        tokio::spawn(sweep(Arc::downgrade(self), self.per_user.idle));
    }
}

/// Closes the connections unused for `idle`, every quarter of it, while the pool lives.
async fn sweep(pool: Weak<UserPool>, idle: std::time::Duration) {
    let every = (idle / 4).max(std::time::Duration::from_millis(10));
    loop {
        tokio::time::sleep(every).await;
        let Some(pool) = pool.upgrade() else { return };
        let gone: Vec<Arc<Slot>> = {
            let mut slots = pool.lock();
            let stale: Vec<[u8; 32]> = slots
                .iter()
                .filter(|(_, s)| s.idle_since().is_some_and(|t| t.elapsed() >= idle))
                .map(|(k, _)| *k)
                .collect();
            let gone = stale.iter().filter_map(|k| slots.remove(k)).collect();
            pool.counted(&slots);
            gone
        };
        drop(pool);
        for s in gone {
            close(s).await;
        }
    }
}

/// Closes a connection nobody holds any more (a child: stdin closed, two seconds, killed).
async fn close(slot: Arc<Slot>) {
    let Ok(slot) = Arc::try_unwrap(slot) else {
        return;
    };
    if let Some(client) = slot.client.into_inner() {
        match Arc::try_unwrap(client) {
            Ok(client) => client.close().await,
            Err(client) => drop(client),
        }
    }
}
