//! Redis implementations of the shared stores (feature `redis`), on the `redis` crate's
//! `ConnectionManager` (one multiplexed connection per instance, reconnected in the background).
//!
//! Keys (under a prefix, `mcp:` by default):
//! - `session:<id>`: a session record (JSON), with a TTL refreshed on every read;
//! - `ev:<session>:<stream>`: a stream's events (a list, each `"<seq>\n<event>"`, `end` once finished),
//!   trimmed to the last `events_per_stream`, with a TTL (a deleted session's logs are left to it);
//! - `evw:<session>:<stream>`: a stream written whole at once, its events and its end in one write (a
//!   quick POST answer's): a string of `"<seq>\n<length>\n<event>"` items, with the same TTL;
//! - `task:<id>`: a task record (JSON); `towner:<owner>`: the owner's tasks, oldest first (a sorted set
//!   by member); `tactive:<owner>`: its unfinished tasks by expiry time (for
//!   `max_active_per_owner`); `texp`: every task by expiry time;
//! - `inst:<name>`: an instance's heartbeat (its process id), refreshed every second, living 5 s
//!   ([`Heartbeat`]): the lease on the tasks it runs;
//! - the channel `bus`: the [`super::Bus`], one JSON [`super::BusMessage`] per message.
//!
//! Every request-path operation is one round trip (a `GETEX`, a `SET` or a pipelined `RPUSH`/`PEXPIRE`,
//! a script), on one multiplexed connection: the pipelines of concurrent sessions go out together in
//! its writes, and Redis answers (and, with `appendfsync always`, syncs) what arrived together at once,
//! so the event writes of many sessions already share their round trips and syncs. A Redis error is a [`StoreError::Backend`], which the request that needed the store
//! answers as a JSON-RPC error.

mod bus;
mod events;
mod heartbeat;
mod session;
mod tasks;

pub use bus::RedisBus;
pub use events::RedisEventStore;
pub use heartbeat::Heartbeat;
pub use session::RedisSessionStore;
pub use tasks::RedisTaskStore;

use super::{SharedStores, StoreError};
use crate::server::TaskLimits;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::sync::Arc;
use std::time::Duration;

/// Where Redis is and how the stores use it.
#[derive(Debug, Clone)]
pub struct RedisConfig {
    /// `redis://host:port[/db]` (or `rediss://`, `redis+unix://`).
    pub url: String,
    /// Put before every key and channel name, so that deployments can share one Redis.
    pub prefix: String,
    /// The longest a command may take (connecting included) before its request fails.
    pub timeout: Duration,
    /// Events kept per SSE stream for resumption.
    pub events_per_stream: usize,
    /// How long session records and event logs live after their last use.
    pub ttl: Duration,
    /// Bounds of the task store.
    pub task_limits: TaskLimits,
    /// The lease on the tasks this instance runs (see [`Heartbeat`]); `None`: no lease, and a task
    /// whose instance stops stays unfinished until its lifetime passes.
    pub heartbeat: Option<Heartbeat>,
}

impl RedisConfig {
    /// The defaults for a URL: prefix `mcp:`, 2 s timeout, 256 events per stream, 30 minutes, a
    /// heartbeat every second that lives 5 s.
    pub fn new(url: impl Into<String>) -> Self {
        RedisConfig {
            url: url.into(),
            prefix: "mcp:".into(),
            timeout: Duration::from_secs(2),
            events_per_stream: 256,
            ttl: Duration::from_secs(30 * 60),
            task_limits: TaskLimits::default(),
            heartbeat: Some(Heartbeat::default()),
        }
    }
}

/// The four stores on one Redis: [`RedisStores::shared`] for the HTTP server
/// ([`crate::http::HttpConfig::shared`]), [`RedisStores::tasks`] for the server
/// ([`crate::ServerBuilder::task_store`]).
///
/// ```no_run
/// # async fn demo(builder: mcp_runtime::ServerBuilder) -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::scale::redis::{RedisConfig, RedisStores};
/// let stores = RedisStores::connect(RedisConfig::new("redis://127.0.0.1:6379")).await?;
/// let server = builder.task_store(stores.tasks.clone()).build()?;
/// let mut config = mcp_runtime::http::HttpConfig::default();
/// config.shared = Some(stores.shared.clone());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStores {
    /// Sessions, events and the bus.
    pub shared: SharedStores,
    /// Tasks.
    pub tasks: Arc<RedisTaskStore>,
}

impl RedisStores {
    /// Connects (failing if Redis does not answer within the timeout), stores this instance's first
    /// heartbeat and starts its refresh, and starts the bus subscriber.
    pub async fn connect(config: RedisConfig) -> Result<Self, StoreError> {
        let client = redis::Client::open(config.url.as_str()).map_err(backend)?;
        let mc = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.timeout))
            .set_response_timeout(Some(config.timeout))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let conn = tokio::time::timeout(
            config.timeout,
            ConnectionManager::new_with_config(client.clone(), mc),
        )
        .await
        .map_err(|_| StoreError::Backend(format!("redis at {}: no answer", config.url)))?
        .map_err(backend)?;
        let p = config.prefix.clone();
        let tasks = match config.heartbeat {
            Some(h) => RedisTaskStore::leased(conn.clone(), &p, config.task_limits, h).await?,
            None => Arc::new(RedisTaskStore::new(conn.clone(), &p, config.task_limits)),
        };
        let bus = RedisBus::start(client, conn.clone(), &p);
        Ok(RedisStores {
            shared: SharedStores {
                sessions: Arc::new(RedisSessionStore::new(conn.clone(), &p)),
                events: Arc::new(RedisEventStore::new(
                    conn.clone(),
                    &p,
                    config.events_per_stream,
                )),
                bus: Arc::new(bus),
                ttl: config.ttl,
            },
            tasks,
        })
    }
}

pub(crate) fn backend(e: redis::RedisError) -> StoreError {
    StoreError::Backend(format!("redis: {e}"))
}

pub(crate) fn millis(d: Duration) -> u64 {
    (d.as_millis() as u64).max(1)
}
