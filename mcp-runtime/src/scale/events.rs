//! The SSE event log of each stream, for `Last-Event-ID` resumption on any instance.

use super::StoreError;
use crate::future::BoxFuture;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One event to log: the stream it belongs to (`session` and the stream's key), its position in the
/// stream, and the complete SSE event bytes (`id:`, `event:`, `data:` lines), exactly as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEvent {
    /// The session's id.
    pub session: String,
    /// The stream's key within the session (unique across instances).
    pub stream: u64,
    /// The event's position in the stream, from 1.
    pub seq: u64,
    /// The event as sent. Empty: the stream is finished (its last response was sent).
    pub data: Vec<u8>,
}

/// What a stream's log holds after a position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// The events after the position, in order, with their positions.
    pub events: Vec<(u64, Vec<u8>)>,
    /// Whether the stream is finished: nothing will follow these events.
    pub finished: bool,
}

/// Keeps the last events of every stream, bounded in count per stream, for a time after the last write.
pub trait EventStore: Send + Sync + 'static {
    /// Appends events (of any streams, each stream's in order) in one operation; an event with empty
    /// `data` marks its stream finished. Each stream's log lives `ttl` after this write.
    fn append<'a>(
        &'a self,
        events: &'a [StreamEvent],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// The events of a stream after position `after` (empty if the stream is unknown).
    fn after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'a, Result<Replay, StoreError>>;
    /// Called when a session is deleted: forgets its streams, or leaves them to expire with their TTL
    /// (a store that cannot find them without an index it would pay for on every write, as Redis's).
    /// Either way nothing replays them: resuming a stream needs its session.
    fn delete_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
}

struct Log {
    events: VecDeque<(u64, Vec<u8>)>,
    finished: bool,
    until: Instant,
}

/// Event logs in this process's memory: at most `per_stream` events per stream and `max_streams`
/// streams (the one that expires first goes when full).
pub struct MemoryEventStore {
    logs: Mutex<HashMap<(String, u64), Log>>,
    per_stream: usize,
    max_streams: usize,
}

impl MemoryEventStore {
    /// A store that keeps `per_stream` events of each of at most `max_streams` streams.
    pub fn new(per_stream: usize, max_streams: usize) -> Self {
        MemoryEventStore {
            logs: Mutex::new(HashMap::new()),
            per_stream: per_stream.max(1),
            max_streams: max_streams.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, u64), Log>> {
        self.logs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(
        &'a self,
        events: &'a [StreamEvent],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let now = Instant::now();
        let mut logs = self.lock();
        for e in events {
            let key = (e.session.clone(), e.stream);
            if !logs.contains_key(&key) {
                logs.retain(|_, l| l.until > now);
                if logs.len() >= self.max_streams {
                    if let Some(k) = logs
                        .iter()
                        .min_by_key(|(_, l)| l.until)
                        .map(|(k, _)| k.clone())
                    {
                        logs.remove(&k);
                    }
                }
            }
            let log = logs.entry(key).or_insert_with(|| Log {
                events: VecDeque::new(),
                finished: false,
                until: now,
            });
            log.until = now + ttl;
            if e.data.is_empty() {
                log.finished = true;
                continue;
            }
            if log.events.len() >= self.per_stream {
                log.events.pop_front();
            }
            log.events.push_back((e.seq, e.data.clone()));
        }
        Box::pin(async { Ok(()) })
    }

    fn after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'a, Result<Replay, StoreError>> {
        let now = Instant::now();
        let replay = match self.lock().get(&(session.to_string(), stream)) {
            Some(log) if log.until > now => Replay {
                events: log
                    .events
                    .iter()
                    .filter(|(n, _)| *n > after)
                    .cloned()
                    .collect(),
                finished: log.finished,
            },
            _ => Replay::default(),
        };
        Box::pin(async move { Ok(replay) })
    }

    fn delete_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.lock().retain(|(s, _), _| s != session);
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(stream: u64, seq: u64, data: &str) -> StreamEvent {
        StreamEvent {
            session: "s".into(),
            stream,
            seq,
            data: data.as_bytes().to_vec(),
        }
    }

    #[tokio::test]
    async fn replays_after_a_position_bounded_and_finished() {
        let store = MemoryEventStore::new(3, 8);
        let ttl = Duration::from_secs(60);
        let batch: Vec<_> = (1..=5).map(|n| ev(7, n, &format!("e{n}"))).collect();
        store.append(&batch, ttl).await.unwrap();
        let r = store.after("s", 7, 3).await.unwrap();
        assert_eq!(r.events, vec![(4, b"e4".to_vec()), (5, b"e5".to_vec())]);
        assert!(!r.finished);
        // Only the last three are kept.
        assert_eq!(store.after("s", 7, 0).await.unwrap().events.len(), 3);
        store.append(&[ev(7, 6, "")], ttl).await.unwrap();
        let r = store.after("s", 7, 5).await.unwrap();
        assert!(r.events.is_empty() && r.finished);
        assert_eq!(store.after("s", 8, 0).await.unwrap(), Replay::default());
        store.delete_session("s").await.unwrap();
        assert_eq!(store.after("s", 7, 0).await.unwrap(), Replay::default());
    }
}
