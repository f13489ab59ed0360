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
//!
//! The pool itself (one start per key, the bound, closing) is `pool.rs`'s, one mechanism for per-session
//! and per-user connections.

use crate::credentials::{self, Exchanged, PerUser};
use crate::link::{Callers, Link};
use crate::metrics::PoolMetrics;
use crate::pool::{self, Pool, WhenFull};
use crate::secrets::Secrets;
use mcp_runtime::client::Client;
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::{Context, Error};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

pub(crate) use crate::credentials::UserCredentials;

/// The per-user connections of one upstream (one keyed pool, `pool.rs`, by credential).
pub struct UserPool {
    per_user: PerUser,
    pool: Pool<[u8; 32]>,
    /// Tokens obtained by exchange, per caller token.
    pub(crate) exchanged: Exchanged,
    sweeping: AtomicBool,
}

impl UserPool {
    /// A pool that counts in `metrics`.
    pub fn new(per_user: PerUser, metrics: PoolMetrics) -> UserPool {
        UserPool {
            pool: Pool::new(per_user.max_users, metrics),
            per_user,
            exchanged: Exchanged::new(),
            sweeping: AtomicBool::new(false),
        }
    }

    /// Its connections: counts, children, calls in flight, the end of them all, and its metrics.
    pub(crate) fn pool(&self) -> &Pool<[u8; 32]> {
        &self.pool
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
        // The connection's own credentials are secrets too, beside its upstream's.
        let own = || {
            let headers = creds.headers.iter().map(|(_, v)| v.as_str());
            Arc::new(secrets.with(headers, creds.secrets.iter().map(String::as_str)))
        };
        let max = self.per_user.max_users;
        // The pool makes room by closing the connection idle longest, if one is idle.
        let full = || {
            ErrorObject::internal(format!(
                "upstream `{name}` already serves {max} callers, each with its own connection \
                 (its maxUsers), all busy: try again when one is done"
            ))
            .with_data(serde_json::json!({
                "upstream": name, "maxUsers": max, "state": "users exhausted",
            }))
        };
        let (slot, _) = self
            .pool
            .slot(&creds.key, WhenFull::EvictIdlest, own, full)?;
        pool::link(&slot, name, "per-user", None, |callers| {
            connect(callers, creds)
        })
        .await
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
async fn sweep(users: Weak<UserPool>, idle: std::time::Duration) {
    let every = (idle / 4).max(std::time::Duration::from_millis(10));
    loop {
        tokio::time::sleep(every).await;
        let Some(users) = users.upgrade() else { return };
        let gone = users.pool.take_idle(idle);
        drop(users);
        for s in gone {
            pool::close(s).await;
        }
    }
}
