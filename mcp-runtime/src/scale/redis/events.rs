//! SSE event logs in Redis, written in one pipelined round trip: a stream written whole at once (its
//! events from the first and its end, what a quick POST answer is) as one string, one `SET ... PX`;
//! any other as a list, trimmed and expiring (an `RPUSH` and a `PEXPIRE`).
//!
//! The string halves what Redis does for most answers: a POST's answer and its stream's end are queued
//! together and written together. Reading a log asks for both forms in one round trip.
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

    /// The key of a stream written whole at once.
    fn whole_key(&self, session: &str, stream: u64) -> String {
        format!("{}evw:{session}:{stream}", self.prefix)
    }
}

/// A stream written whole: each event as `<seq>\n<length>\n<event>`, the end implied.
fn whole(events: &[&StreamEvent]) -> Vec<u8> {
    use std::io::Write as _;
    let mut v = Vec::with_capacity(events.iter().map(|e| e.data.len() + 24).sum());
    for e in events {
        let _ = write!(v, "{}\n{}\n", e.seq, e.data.len());
        v.extend_from_slice(&e.data);
    }
    v
}

/// Reads what [`whole`] wrote: the events after `after`, and the end.
fn read_whole(mut b: &[u8], after: u64) -> Result<Replay, StoreError> {
    let bad = || StoreError::Backend("redis: malformed event log".into());
    let mut replay = Replay {
        events: Vec::new(),
        finished: true,
    };
    while !b.is_empty() {
        let mut number = || -> Result<u64, StoreError> {
            let nl = b.iter().position(|c| *c == b'\n').ok_or_else(bad)?;
            let n = std::str::from_utf8(&b[..nl])
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(bad)?;
            b = &b[nl + 1..];
            Ok(n)
        };
        let seq = number()?;
        let len = usize::try_from(number()?).map_err(|_| bad())?;
        if len > b.len() {
            return Err(bad());
        }
        if seq > after {
            replay.events.push((seq, b[..len].to_vec()));
        }
        b = &b[len..];
    }
    Ok(replay)
}

/// Whether one stream's events in a write are the whole stream: its events from the first, then its
/// end, within the bound.
fn is_whole(events: &[&StreamEvent], per_stream: usize) -> bool {
    let n = events.len();
    n >= 2
        && n <= per_stream + 1
        && events[0].seq == 1
        && events[n - 1].data.is_empty()
        && events[..n - 1].iter().all(|e| !e.data.is_empty())
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
            // Each stream's events in order: a whole stream in one `SET`, any other in one `RPUSH`
            // and one `PEXPIRE` per log.
            let mut logs: BTreeMap<(&str, u64), Vec<&StreamEvent>> = BTreeMap::new();
            for e in events {
                logs.entry((e.session.as_str(), e.stream))
                    .or_default()
                    .push(e);
            }
            let mut pipe = redis::pipe();
            // One more slot than the bound, for the end marker.
            let keep = self.per_stream as u64 + 1;
            for ((session, stream), log) in &logs {
                if is_whole(log, self.per_stream) {
                    pipe.cmd("SET")
                        .arg(self.whole_key(session, *stream))
                        .arg(whole(&log[..log.len() - 1]))
                        .arg("PX")
                        .arg(ms)
                        .ignore();
                    continue;
                }
                let items: Vec<Vec<u8>> = log.iter().map(|e| item(e)).collect();
                let top = log.iter().map(|e| e.seq).max().unwrap_or(0);
                let key = self.log_key(session, *stream);
                pipe.cmd("RPUSH").arg(&key).arg(items).ignore();
                // A log holds one item per position from 1 (and the end marker): it can only outgrow
                // the bound once a position does.
                if top >= keep {
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
            let (written_whole, items): (Option<Vec<u8>>, Vec<Vec<u8>>) = redis::pipe()
                .cmd("GET")
                .arg(self.whole_key(session, stream))
                .cmd("LRANGE")
                .arg(self.log_key(session, stream))
                .arg(0)
                .arg(-1)
                .query_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            if let Some(w) = written_whole {
                return read_whole(&w, after);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, data: &[u8]) -> StreamEvent {
        StreamEvent {
            session: "s".into(),
            stream: 7,
            seq,
            data: data.to_vec(),
        }
    }

    #[test]
    fn a_whole_stream_reads_back_after_any_position() {
        let (a, b) = (
            event(1, b"id: 7-1\ndata: {}\n\n"),
            event(2, b"data: 2\n\n\n"),
        );
        let w = whole(&[&a, &b]);
        let all = read_whole(&w, 0).unwrap();
        assert!(all.finished);
        assert_eq!(all.events, [(1, a.data.clone()), (2, b.data.clone())]);
        assert_eq!(read_whole(&w, 1).unwrap().events, [(2, b.data)]);
        let none = read_whole(&w, 2).unwrap();
        assert!(none.finished && none.events.is_empty());
    }

    #[test]
    fn only_a_stream_from_its_first_event_to_its_end_is_whole() {
        let (first, second, end) = (event(1, b"x"), event(2, b"y"), event(0, b""));
        assert!(is_whole(&[&first, &end], 256));
        assert!(is_whole(&[&first, &second, &end], 256));
        assert!(!is_whole(&[&first, &second, &end], 1), "over the bound");
        assert!(!is_whole(&[&first], 256), "not ended");
        assert!(!is_whole(&[&second, &end], 256), "not from the first");
        assert!(!is_whole(&[&end], 256));
    }

    #[test]
    fn a_damaged_whole_log_is_an_error_not_a_panic() {
        for bad in [&b"1\n"[..], b"1\n99\nshort", b"x\n1\na", b"1\nx\na", b"1"] {
            assert!(
                read_whole(bad, 0).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
