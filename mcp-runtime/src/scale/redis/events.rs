//! SSE event logs in Redis: a list per stream, trimmed and expiring, written in one pipelined round trip.
//!
//! There is no index of a session's streams: keeping one cost two more commands per answer (an `SADD`
//! and its `PEXPIRE`, half of what Redis did for each), and all it served was deleting the logs at a
//! session's `DELETE`. A deleted session's logs now expire with their TTL instead, like those of a session
//! that was never deleted; nothing reads them meanwhile, since resuming a stream needs its session.

use super::{backend, millis};
use crate::future::BoxFuture;
use crate::scale::{EventStore, Replay, StoreError, StreamEvent};
use redis::aio::ConnectionManager;
use std::collections::BTreeMap;
use std::time::Duration;

/// The list item that marks a stream finished.
const END: &[u8] = b"end";

/// [`EventStore`] on Redis.
pub struct RedisEventStore {
    conn: ConnectionManager,
    prefix: String,
    per_stream: usize,
}

impl RedisEventStore {
    /// Logs under `<prefix>ev:<session>:<stream>`, each trimmed to its last `per_stream` events.
    pub fn new(conn: ConnectionManager, prefix: &str, per_stream: usize) -> Self {
        RedisEventStore {
            conn,
            prefix: prefix.to_string(),
            per_stream: per_stream.max(1),
        }
    }

    fn log_key(&self, session: &str, stream: u64) -> String {
        format!("{}ev:{session}:{stream}", self.prefix)
    }
}

/// One stream's items in a write, and its highest position.
#[derive(Default)]
struct Items {
    items: Vec<Vec<u8>>,
    top: u64,
}

fn item(e: &StreamEvent) -> Vec<u8> {
    if e.data.is_empty() {
        return END.to_vec();
    }
    let mut v = format!("{}\n", e.seq).into_bytes();
    v.extend_from_slice(&e.data);
    v
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        events: &'a [StreamEvent],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if events.is_empty() {
                return Ok(());
            }
            let ms = millis(ttl);
            // Each stream's events in order: one `RPUSH` and one `PEXPIRE` per log.
            let mut logs: BTreeMap<(&str, u64), Items> = BTreeMap::new();
            for e in events {
                let log = logs.entry((e.session.as_str(), e.stream)).or_default();
                log.items.push(item(e));
                log.top = log.top.max(e.seq);
            }
            let mut pipe = redis::pipe();
            // One more slot than the bound, for the end marker.
            let keep = self.per_stream as u64 + 1;
            for ((session, stream), Items { items, top }) in &logs {
                let key = self.log_key(session, *stream);
                pipe.cmd("RPUSH").arg(&key).arg(items).ignore();
                // A log holds one item per position from 1 (and the end marker): it can only outgrow
                // the bound once a position does.
                if *top >= keep {
                    pipe.cmd("LTRIM")
                        .arg(&key)
                        .arg(-(keep as i64))
                        .arg(-1)
                        .ignore();
                }
                pipe.cmd("PEXPIRE").arg(&key).arg(ms).ignore();
            }
            pipe.exec_async(&mut self.conn.clone())
                .await
                .map_err(backend)
        })
    }

    fn after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'a, Result<Replay, StoreError>> {
        Box::pin(async move {
            let items: Vec<Vec<u8>> = redis::cmd("LRANGE")
                .arg(self.log_key(session, stream))
                .arg(0)
                .arg(-1)
                .query_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            let mut replay = Replay::default();
            for it in items {
                if it == END {
                    replay.finished = true;
                    continue;
                }
                let Some(nl) = it.iter().position(|b| *b == b'\n') else {
                    return Err(StoreError::Backend(
                        "redis: malformed event log item".into(),
                    ));
                };
                let seq = std::str::from_utf8(&it[..nl])
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(|| StoreError::Backend("redis: malformed event position".into()))?;
                if seq > after {
                    replay.events.push((seq, it[nl + 1..].to_vec()));
                }
            }
            Ok(replay)
        })
    }

    /// Nothing to do: the session's logs expire with their TTL (see the module's doc).
    fn delete_session<'a>(&'a self, _session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}
