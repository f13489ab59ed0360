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
//!
//! The pool itself (one start per key, the bound, closing) is `pool.rs`'s, one mechanism for per-session
//! and per-user connections.

use crate::link::{Callers, Link};
use crate::metrics::PoolMetrics;
use crate::pool::{self, Pool, Slot, WhenFull};
use crate::secrets::Secrets;
use crate::upstream_errors::unavailable;
use mcp_runtime::client::Client;
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::server::SessionHandle;
use mcp_runtime::Error;
use std::future::Future;
use std::sync::{Arc, Weak};

/// The per-session connections of one upstream, by session (one keyed pool, `pool.rs`, by session id).
pub struct SessionPool {
    pool: Pool<u64>,
}

impl SessionPool {
    /// A pool of at most `max` connections.
    pub fn new(max: usize) -> SessionPool {
        SessionPool {
            pool: Pool::new(max, PoolMetrics::default()),
        }
    }

    /// Its connections: counts, children, calls in flight, and the end of them all.
    pub(crate) fn pool(&self) -> &Pool<u64> {
        &self.pool
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
        let max = self.pool.max();
        let full = || {
            ErrorObject::internal(format!(
                "upstream `{name}` already serves {max} sessions, each with its own connection (its \
                 maxSessions): try again when one ends"
            ))
            .with_data(serde_json::json!({
                "upstream": name, "maxSessions": max, "state": "sessions exhausted",
            }))
        };
        let (slot, fresh) =
            self.pool
                .slot(&session.id(), WhenFull::Refuse, || secrets.clone(), full)?;
        if fresh {
            tokio::spawn(reap(Arc::downgrade(self), session.clone(), slot.clone()));
        }
        pool::link(&slot, name, "per-session", Some(session.id()), connect).await
    }
}

/// Stops a session's connection when the session ends.
async fn reap(pool: Weak<SessionPool>, session: SessionHandle, slot: Arc<Slot>) {
    session.ended().await;
    if let Some(p) = pool.upgrade() {
        p.pool.remove_if(&session.id(), &slot);
    }
    // A request that still holds it (it was cancelled with the session) lets the child go when it
    // lets go, killed as its client drops.
    pool::close(slot).await;
}
