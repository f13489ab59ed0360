//! Per-session upstreams (`"sessions": "per-session"`): each downstream session gets a connection of its
//! own to the upstream (for a stdio server, a child of its own), so that a server that keeps state (an
//! open browser, a shell, a scratch database) keeps it per session, the way it would if each client
//! had started it.
//!
//! - **Identity.** A session is what the runtime's
//!   [`Context::session`](mcp_runtime::Context::session) names: the stdio connection,
//!   the `Mcp-Session-Id` of a Streamable HTTP session, the stream of a legacy SSE session. A 2026-07-28
//!   request belongs to no session (it is stateless by design: it declares everything about itself, and
//!   the next one may reach another instance); nor does a POST to a stateless HTTP server. Such requests
//!   take the upstream's shared connection, the one the gateway lists the upstream's tools through: a
//!   connection per request would cost a spawn and a handshake per call and keep no state anyway, and a
//!   key such as the authenticated principal would give a child no end (nothing closes a principal).
//! - **Life.** A session's connection is started on its first request (within the upstream's
//!   `initTimeoutMs`; concurrent first requests share one start) and stopped when the session ends
//!   (the stdio client closes its input, an HTTP client sends `DELETE`, the session expires): its stdin
//!   is closed and it is given two seconds to exit before it is killed. One that dies is started again
//!   on the session's next request (the dying call fails with its exit status and stderr tail).
//! - **Bounds.** At most `maxSessions` connections live at once per upstream; a session beyond that
//!   gets a JSON-RPC error that says so (`-32603`, with `upstream` and `maxSessions` in `data`) until one
//!   ends. While the upstream's shared connection is down (or its circuit open), per-session requests
//!   fail the same way shared ones do.

use crate::link::{Callers, Link};
use crate::secrets::Secrets;
use crate::upstream_errors::unavailable;
use mcp_runtime::client::Client;
use mcp_runtime::protocol::{ErrorObject, LoggingLevel};
use mcp_runtime::server::SessionHandle;
use mcp_runtime::Error;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::OnceCell;

/// The per-session connections of one upstream, by session.
pub struct SessionPool {
    max: usize,
    slots: Mutex<HashMap<u64, Arc<Slot>>>,
}

/// One session's connection: started once, by the first request that needs it.
#[derive(Default)]
struct Slot {
    client: OnceCell<Arc<Client>>,
    callers: Callers,
}

impl SessionPool {
    /// A pool of at most `max` connections.
    pub fn new(max: usize) -> SessionPool {
        SessionPool {
            max,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// How many sessions may have a connection at once.
    pub fn max(&self) -> usize {
        self.max
    }

    /// How many sessions have a connection (or one starting) now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no session has a connection.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The process ids of the sessions' children (stdio upstreams), in no order.
    pub fn pids(&self) -> Vec<u32> {
        self.lock()
            .values()
            .filter_map(|s| s.client.get().and_then(|c| c.server_pid()))
            .collect()
    }

    /// How many calls are in flight on the sessions' connections.
    pub(crate) fn in_flight(&self) -> usize {
        self.lock().values().map(|s| s.callers.len()).sum()
    }

    /// Ends every session's connection now (a removed upstream): calls in flight fail with `reason`,
    /// and a session's next call finds the upstream gone.
    pub(crate) fn abort_all(&self, reason: &str) {
        let slots: Vec<Arc<Slot>> = self.lock().drain().map(|(_, s)| s).collect();
        for s in slots {
            if let Some(c) = s.client.get() {
                c.abort(reason);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connection of `session` to `up`, started now if it has none (or its last one died).
    pub(crate) async fn link<F: Future<Output = Result<Client, Error>>>(
        self: &Arc<Self>,
        name: &str,
        secrets: &Arc<Secrets>,
        session: &SessionHandle,
        connect: impl FnOnce(Callers) -> F,
    ) -> Result<Link, ErrorObject> {
        if session.is_ended() {
            return Err(unavailable(name, "the downstream session has ended"));
        }
        let slot = {
            let mut slots = self.lock();
            let dead = slots.get(&session.id()).is_some_and(|s| {
                s.client
                    .get()
                    .is_some_and(|c: &Arc<Client>| c.peer().is_closed())
            });
            if dead {
                slots.remove(&session.id());
            }
            match slots.get(&session.id()) {
                Some(s) => s.clone(),
                None if slots.len() >= self.max => {
                    return Err(ErrorObject::internal(format!(
                        "upstream `{name}` already serves {} sessions, each with its own connection (its \
                         maxSessions): try again when one ends",
                        self.max
                    ))
                    .with_data(serde_json::json!({
                        "upstream": name, "maxSessions": self.max, "state": "sessions exhausted",
                    })));
                }
                None => {
                    let slot = Arc::new(Slot::default());
                    slots.insert(session.id(), slot.clone());
                    tokio::spawn(reap(Arc::downgrade(self), session.clone(), slot.clone()));
                    slot
                }
            }
        };
        let client = slot
            .client
            .get_or_try_init(|| async {
                let client = connect(slot.callers.clone()).await.map_err(|e| {
                    let why = secrets.redact(&e.to_string()).into_owned();
                    tracing::warn!(upstream = %name, session = session.id(), "per-session start failed: {why}");
                    unavailable(name, &why)
                })?;
                // As for the shared connection: log messages reach the session's calls.
                if client.server().capabilities.logging.is_some() {
                    let _ = client.set_logging_level(LoggingLevel::Debug).await;
                }
                tracing::debug!(upstream = %name, session = session.id(), pid = ?client.server_pid(), "per-session connection up");
                Ok::<_, ErrorObject>(Arc::new(client))
            })
            .await?
            .clone();
        Ok(Link {
            client,
            callers: slot.callers.clone(),
            secrets: secrets.clone(),
        })
    }
}

/// Stops a session's connection when the session ends.
async fn reap(pool: Weak<SessionPool>, session: SessionHandle, slot: Arc<Slot>) {
    session.ended().await;
    if let Some(pool) = pool.upgrade() {
        let mut slots = pool.lock();
        if slots
            .get(&session.id())
            .is_some_and(|s| Arc::ptr_eq(s, &slot))
        {
            slots.remove(&session.id());
        }
    }
    let Ok(slot) = Arc::try_unwrap(slot) else {
        // A request still holds it (it was cancelled with the session): the child goes when it lets go,
        // killed as its client drops.
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
