//! Opt-in restarts of a crashed stdio server, with exponential backoff.
//!
//! A call that was in flight when the server died fails with [`Error::Closed`] (tool calls need not be
//! idempotent, so they are never replayed); the next call gets a fresh, initialized server.

use super::{Client, ClientBuilder};
use crate::error::Error;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::process::Command;
use tokio::sync::Mutex;

/// How restarts are paced.
#[derive(Debug, Clone)]
pub struct RestartPolicy {
    /// Wait before the first restart; doubled after each failed or short-lived attempt.
    pub initial_backoff: Duration,
    /// The longest wait between restarts, however often the child failed.
    pub max_backoff: Duration,
    /// Consecutive failed starts before giving up.
    pub max_attempts: u32,
    /// A server that ran at least this long resets the backoff.
    pub healthy_after: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(10),
            max_attempts: 8,
            healthy_after: Duration::from_secs(30),
        }
    }
}

type Factory = Arc<dyn Fn() -> (ClientBuilder, Command) + Send + Sync>;

struct State {
    client: Option<Arc<Client>>,
    started: Instant,
    backoff: Duration,
}

/// Keeps a stdio server running: restarts it with backoff when it dies.
pub struct Supervisor {
    factory: Factory,
    policy: RestartPolicy,
    state: Mutex<State>,
    restarts: AtomicU32,
}

impl Supervisor {
    /// Starts the server (retrying with backoff) and supervises it. `factory` makes the builder and the
    /// command for each start.
    pub async fn start(
        policy: RestartPolicy,
        factory: impl Fn() -> (ClientBuilder, Command) + Send + Sync + 'static,
    ) -> Result<Supervisor, Error> {
        let s = Supervisor {
            factory: Arc::new(factory),
            state: Mutex::new(State {
                client: None,
                started: Instant::now(),
                backoff: policy.initial_backoff,
            }),
            policy,
            restarts: AtomicU32::new(0),
        };
        s.client().await?;
        s.restarts.store(0, Ordering::Relaxed);
        Ok(s)
    }

    /// How many times the server was restarted.
    pub fn restarts(&self) -> u32 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// The live client, restarting the server first if it died.
    pub async fn client(&self) -> Result<Arc<Client>, Error> {
        let mut st = self.state.lock().await;
        if let Some(c) = &st.client {
            if !c.peer().is_closed() {
                return Ok(c.clone());
            }
            if st.started.elapsed() >= self.policy.healthy_after {
                st.backoff = self.policy.initial_backoff;
            }
            tracing::warn!(backoff = ?st.backoff, "the server died; restarting");
            tokio::time::sleep(st.backoff).await;
            st.backoff = (st.backoff * 2).min(self.policy.max_backoff);
        }
        let mut last = None;
        for attempt in 0..self.policy.max_attempts.max(1) {
            if attempt > 0 {
                tokio::time::sleep(st.backoff).await;
                st.backoff = (st.backoff * 2).min(self.policy.max_backoff);
            }
            let (builder, cmd) = (self.factory)();
            match builder.spawn(cmd).await {
                Ok(c) => {
                    if st.client.is_some() {
                        self.restarts.fetch_add(1, Ordering::Relaxed);
                    }
                    let c = Arc::new(c);
                    st.client = Some(c.clone());
                    st.started = Instant::now();
                    return Ok(c);
                }
                Err(e) => {
                    tracing::warn!(attempt, error = %e, "server start failed");
                    last = Some(e);
                }
            }
        }
        Err(Error::Closed(format!(
            "the server could not be (re)started after {} attempts; last error: {}",
            self.policy.max_attempts.max(1),
            last.map(|e| e.to_string()).unwrap_or_default()
        )))
    }

    /// Calls a tool on the live server (restarting it first if it died).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl serde::Serialize,
    ) -> Result<crate::protocol::CallToolResult, Error> {
        self.client().await?.call_tool(name, arguments).await
    }
}
