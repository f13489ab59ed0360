//! One Streamable HTTP session: the pump's frames routed onto HTTP answers and SSE streams.
//!
//! Invariants:
//! - a frame goes to exactly one place: the POST that is waiting for it, the SSE stream of the request it
//!   relates to, or the standalone GET stream (and is dropped when there is none);
//! - every event of a stream is kept in a bounded replay buffer, so a client that lost the connection can
//!   resume with `Last-Event-ID` (a disconnect is not a cancellation);
//! - a POST stream ends once every request it carried has its response;
//! - with a shared event store (several instances), every event is written to the store before it is
//!   sent, by one writer task per session (in order, batched: one round trip per batch), so that the
//!   client can resume on another instance with nothing lost or repeated. An event whose write failed
//!   is not sent: its stream's connection ends, and the client resumes from what it has (here, from
//!   the replay buffer). Until written, an event holds its bytes on the server's budget.

use super::sse;
use crate::budget::Charge;
use crate::connection::{Handler, OutKind, Outgoing, Peer};
use crate::protocol::{ProtocolVersion, RequestId};
use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// How many finished POST streams a session keeps for late resumption.
const FINISHED_STREAMS_KEPT: usize = 32;

pub(crate) type StreamKey = u64;

/// Where the response to one request goes.
pub(crate) enum Waiter {
    /// A POST answering with JSON: the response frame.
    Json(oneshot::Sender<Vec<u8>>),
    /// A POST answering with an SSE stream.
    Stream(StreamKey),
    /// A POST answering with JSON unless a related message comes first; then the sender is dropped
    /// (the POST switches to the stream) and everything, the response included, goes to the stream.
    JsonOrStream(Option<oneshot::Sender<Vec<u8>>>, StreamKey),
}

pub(crate) struct SseStream {
    next_seq: u64,
    buffer: VecDeque<(u64, Bytes)>,
    live: Option<mpsc::UnboundedSender<Bytes>>,
    /// Responses this (POST) stream still waits for; the GET stream never finishes.
    pending: usize,
    finished: bool,
    is_get: bool,
}

#[derive(Default)]
struct Routes {
    waiters: HashMap<RequestId, Waiter>,
    streams: HashMap<StreamKey, SseStream>,
    finished: VecDeque<StreamKey>,
    get_stream: Option<StreamKey>,
    next_key: StreamKey,
}

/// An event on its way to the shared event store, then to its stream's connection.
struct Persist {
    stream: StreamKey,
    seq: u64,
    event: Bytes,
    /// The stream finishes after `event`: both are stored in one write (a quick answer's usual case).
    ends: bool,
    live: Option<mpsc::UnboundedSender<Bytes>>,
    /// The event's bytes on the server's budget, given back once it is written and sent.
    _charge: Charge,
}

pub(crate) struct HttpSession {
    pub(crate) id: String,
    pub(crate) peer: Peer,
    pub(crate) handler: Arc<dyn Handler>,
    /// The handshake-era state behind `handler`, when a shared session store records it.
    pub(crate) state: Option<Arc<crate::server::SessionState>>,
    /// The shared event store's writer (see the module docs); `None`: events stay in this process.
    persist: Option<mpsc::UnboundedSender<Persist>>,
    /// Milliseconds since `created` when the shared record's life was last extended.
    pub(crate) store_touched: AtomicU64,
    routes: Mutex<Routes>,
    replay_limit: usize,
    /// The negotiated version (0 = not yet), for the priming event and the header check.
    version: AtomicU8,
    created: Instant,
    /// Milliseconds since `created` of the last request, for idle expiry.
    last_seen: AtomicU64,
    /// Requests being answered right now; a busy session is never idle.
    pub(crate) busy: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a stream hands to the HTTP response: the replayed events, then the live ones.
pub(crate) struct Attached {
    pub(crate) replay: Vec<Bytes>,
    /// `None` when the stream already finished: send the replay and end.
    pub(crate) live: Option<mpsc::UnboundedReceiver<Bytes>>,
}

impl HttpSession {
    pub(crate) fn new(
        id: String,
        peer: Peer,
        handler: Arc<dyn Handler>,
        replay_limit: usize,
        shared: Option<(
            Arc<crate::server::SessionState>,
            &crate::scale::SharedStores,
        )>,
    ) -> Arc<Self> {
        let mut routes = Routes::default();
        let (state, persist) = match shared {
            Some((state, stores)) => {
                // Stream keys unique across instances: an event id names its stream everywhere.
                routes.next_key = random_key();
                let (tx, rx) = mpsc::unbounded_channel();
                spawn_persister(id.clone(), stores.events.clone(), stores.ttl, rx);
                (Some(state), Some(tx))
            }
            None => (None, None),
        };
        Arc::new(HttpSession {
            id,
            peer,
            handler,
            state,
            persist,
            store_touched: AtomicU64::new(0),
            routes: Mutex::new(routes),
            replay_limit: replay_limit.max(1),
            version: AtomicU8::new(0),
            created: Instant::now(),
            last_seen: AtomicU64::new(0),
            busy: AtomicU64::new(0),
        })
    }

    /// Spawns the task that routes the pump's frames until the connection closes.
    pub(crate) fn spawn_router(self: &Arc<Self>, mut rx: mpsc::Receiver<Outgoing>) {
        let session = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(out) = rx.recv().await {
                let Some(s) = session.upgrade() else { return };
                if !out.is_cancelled() {
                    s.route(out);
                }
            }
        });
    }

    pub(crate) fn set_version(&self, v: ProtocolVersion) {
        let idx = ProtocolVersion::ALL
            .iter()
            .position(|x| *x == v)
            .unwrap_or(0) as u8
            + 1;
        self.version.store(idx, Ordering::Relaxed);
    }

    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        match self.version.load(Ordering::Relaxed) {
            0 => None,
            i => ProtocolVersion::ALL.get(i as usize - 1).copied(),
        }
    }

    /// Priming events only for clients of 2025-11-25 and later: older clients may choke on empty data.
    pub(crate) fn wants_priming(&self) -> bool {
        self.version()
            .is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
    }

    /// Whether this session's events are written to a shared event store before they are sent.
    pub(crate) fn logs_events(&self) -> bool {
        self.persist.is_some()
    }

    pub(crate) fn touch(&self) {
        self.last_seen
            .store(self.created.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    /// Milliseconds since the session was created (here).
    pub(crate) fn age_ms(&self) -> u64 {
        self.created.elapsed().as_millis() as u64
    }

    pub(crate) fn idle_for(&self) -> std::time::Duration {
        let last = self.last_seen.load(Ordering::Relaxed);
        self.created
            .elapsed()
            .saturating_sub(std::time::Duration::from_millis(last))
    }

    /// SSE streams held: connected, or finished and kept for resumption.
    pub(crate) fn stream_count(&self) -> usize {
        lock(&self.routes).streams.len()
    }

    pub(crate) fn has_live_get(&self) -> bool {
        let r = lock(&self.routes);
        r.get_stream
            .and_then(|k| r.streams.get(&k))
            .is_some_and(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    /// Registers a JSON waiter; `false` if that id is already waiting (a reused id).
    pub(crate) fn wait_json(&self, id: RequestId) -> Option<oneshot::Receiver<Vec<u8>>> {
        let (tx, rx) = oneshot::channel();
        let mut r = lock(&self.routes);
        if r.waiters.contains_key(&id) {
            return None;
        }
        r.waiters.insert(id, Waiter::Json(tx));
        Some(rx)
    }

    pub(crate) fn forget(&self, id: &RequestId) {
        lock(&self.routes).waiters.remove(id);
    }

    /// Opens a POST stream for these requests; `None` if one of the ids is already waiting.
    pub(crate) fn open_post_stream(
        &self,
        ids: &[RequestId],
    ) -> Option<(StreamKey, mpsc::UnboundedReceiver<Bytes>)> {
        let mut r = lock(&self.routes);
        if ids.iter().any(|id| r.waiters.contains_key(id)) {
            return None;
        }
        let key = r.next_key;
        r.next_key += 1;
        let (tx, rx) = mpsc::unbounded_channel();
        r.streams.insert(
            key,
            SseStream {
                next_seq: 1,
                buffer: VecDeque::new(),
                live: Some(tx),
                pending: ids.len(),
                finished: false,
                is_get: false,
            },
        );
        for id in ids {
            r.waiters.insert(id.clone(), Waiter::Stream(key));
        }
        Some((key, rx))
    }

    /// Waits for one request's response as JSON, with a stream ready in case a related message comes
    /// first; `None` if that id is already waiting.
    pub(crate) fn open_json_or_stream(
        &self,
        id: &RequestId,
    ) -> Option<(
        StreamKey,
        mpsc::UnboundedReceiver<Bytes>,
        oneshot::Receiver<Vec<u8>>,
    )> {
        let (key, rx) = self.open_post_stream(std::slice::from_ref(id))?;
        let (tx, json) = oneshot::channel();
        lock(&self.routes)
            .waiters
            .insert(id.clone(), Waiter::JsonOrStream(Some(tx), key));
        Some((key, rx, json))
    }

    /// Opens the standalone GET stream; `None` if one is connected already.
    pub(crate) fn open_get_stream(&self) -> Option<(StreamKey, mpsc::UnboundedReceiver<Bytes>)> {
        let mut r = lock(&self.routes);
        if let Some(k) = r.get_stream {
            if r.streams
                .get(&k)
                .is_some_and(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()))
            {
                return None;
            }
            r.streams.remove(&k);
        }
        let key = r.next_key;
        r.next_key += 1;
        let (tx, rx) = mpsc::unbounded_channel();
        r.streams.insert(
            key,
            SseStream {
                next_seq: 1,
                buffer: VecDeque::new(),
                live: Some(tx),
                pending: 0,
                finished: false,
                is_get: true,
            },
        );
        r.get_stream = Some(key);
        Some((key, rx))
    }

    /// Resumes a stream after `Last-Event-ID`: the events after it, then the live ones.
    pub(crate) fn resume(&self, last_event_id: &str) -> Option<Attached> {
        let (key, seq) = parse_event_id(last_event_id)?;
        let mut r = lock(&self.routes);
        let s = r.streams.get_mut(&key)?;
        let replay: Vec<Bytes> = s
            .buffer
            .iter()
            .filter(|(n, _)| *n > seq)
            .map(|(_, b)| b.clone())
            .collect();
        if s.finished {
            return Some(Attached { replay, live: None });
        }
        if s.live.as_ref().is_some_and(|l| !l.is_closed()) {
            // Someone is still connected to it: take it over (the old connection ends).
        }
        let (tx, rx) = mpsc::unbounded_channel();
        s.live = Some(tx);
        Some(Attached {
            replay,
            live: Some(rx),
        })
    }

    /// The id a priming event carries: a position before every event of the stream.
    pub(crate) fn priming_id(key: StreamKey) -> String {
        format!("{key}-0")
    }

    fn route(&self, mut out: Outgoing) {
        let frame = std::mem::take(&mut out.frame);
        let charge = out.take_charge();
        let mut r = lock(&self.routes);
        if frame.is_empty() {
            // A marker: end the connection of the stream that carries `related`, keeping its buffer
            // so that the client resumes with Last-Event-ID (SSE polling).
            if let Some(Waiter::Stream(k) | Waiter::JsonOrStream(None, k)) =
                out.related.as_ref().and_then(|id| r.waiters.get(id))
            {
                let k = *k;
                if let Some(s) = r.streams.get_mut(&k) {
                    s.live = None;
                }
            }
            return;
        }
        match &out.kind {
            OutKind::Response(id) => match r.waiters.remove(id) {
                Some(Waiter::Json(tx)) => {
                    let _ = tx.send(frame);
                }
                Some(Waiter::JsonOrStream(Some(tx), k)) => {
                    // Nothing went to the stream: it is not needed.
                    r.streams.remove(&k);
                    let _ = tx.send(frame);
                }
                Some(Waiter::Stream(k) | Waiter::JsonOrStream(None, k)) => {
                    let ends = r.streams.get(&k).is_some_and(|s| s.pending <= 1);
                    self.push(&mut r, k, &frame, charge, ends);
                    if let Some(s) = r.streams.get_mut(&k) {
                        s.pending = s.pending.saturating_sub(1);
                        if s.pending == 0 {
                            s.finished = true;
                            s.live = None;
                            r.finished.push_back(k);
                            while r.finished.len() > FINISHED_STREAMS_KEPT {
                                if let Some(old) = r.finished.pop_front() {
                                    r.streams.remove(&old);
                                }
                            }
                        }
                    }
                }
                None => tracing::debug!(%id, "response with no waiting HTTP request; dropped"),
            },
            _ => {
                let target = match out.related.as_ref().and_then(|id| r.waiters.get_mut(id)) {
                    Some(Waiter::Stream(k)) => Some(*k),
                    Some(Waiter::JsonOrStream(json, k)) => {
                        // Switch this answer to SSE, so that the message travels with it.
                        json.take();
                        Some(*k)
                    }
                    _ => r.get_stream,
                };
                match target {
                    Some(k) => self.push(&mut r, k, &frame, charge, false),
                    None => tracing::debug!(
                        "no stream for a server message (no GET stream open); dropped"
                    ),
                }
            }
        }
    }

    /// Sends `frame` on stream `key` (stored first when the stores are shared); `ends`: the stream
    /// finishes after it.
    fn push(&self, r: &mut Routes, key: StreamKey, frame: &[u8], charge: Charge, ends: bool) {
        let Some(s) = r.streams.get_mut(&key) else {
            return;
        };
        let seq = s.next_seq;
        s.next_seq += 1;
        let ev = sse::message_event(Some(&format!("{key}-{seq}")), frame);
        if s.buffer.len() >= self.replay_limit {
            s.buffer.pop_front();
        }
        s.buffer.push_back((seq, ev.clone()));
        if let Some(p) = &self.persist {
            // Stored first, then sent (by the writer, in order).
            let _ = p.send(Persist {
                stream: key,
                seq,
                event: ev,
                ends,
                live: s.live.clone(),
                _charge: charge,
            });
        } else if let Some(live) = &s.live {
            if live.send(ev).is_err() {
                s.live = None;
            }
        }
        let _ = s.is_get;
    }

    /// Ends every stream's connection (shutdown, DELETE, expiry).
    pub(crate) fn end_streams(&self) {
        let mut r = lock(&self.routes);
        for s in r.streams.values_mut() {
            s.live = None;
        }
        r.waiters.clear();
    }

    /// Closes the session: in-flight handlers are cancelled, streams end.
    pub(crate) fn close(&self, reason: &str) {
        self.peer.close(reason.to_string());
        self.handler.closed();
        self.end_streams();
    }
}

/// A random stream key, with room to count up from it.
fn random_key() -> StreamKey {
    let mut b = [0u8; 8];
    let _ = getrandom::fill(&mut b);
    u64::from_be_bytes(b) >> 12
}

/// The session's writer to the shared event store: takes what is queued, stores it in one call, then
/// sends each event to its stream's connection. After a store error the events are not sent: each of
/// their streams' connections ends (an empty event tells the answer to end), and the client resumes
/// with `Last-Event-ID`.
fn spawn_persister(
    session: String,
    store: Arc<dyn crate::scale::EventStore>,
    ttl: std::time::Duration,
    mut rx: mpsc::UnboundedReceiver<Persist>,
) {
    tokio::spawn(async move {
        let mut batch = Vec::new();
        while let Some(first) = rx.recv().await {
            batch.push(first);
            while batch.len() < 256 {
                match rx.try_recv() {
                    Ok(p) => batch.push(p),
                    Err(_) => break,
                }
            }
            let mut events = Vec::with_capacity(batch.len() + 1);
            for p in &batch {
                let event = |seq, data: &[u8]| crate::scale::StreamEvent {
                    session: session.clone(),
                    stream: p.stream,
                    seq,
                    data: data.to_vec(),
                };
                events.push(event(p.seq, &p.event));
                if p.ends {
                    events.push(event(0, b""));
                }
            }
            let stored = store.append(&events, ttl).await;
            if let Err(e) = &stored {
                tracing::warn!(error = %e, session = %session, "SSE events not stored; their streams end unsent, for the client to resume");
            }
            let mut ended: Vec<StreamKey> = Vec::new();
            for p in batch.drain(..) {
                let Some(live) = p.live else { continue };
                if stored.is_ok() {
                    let _ = live.send(p.event);
                } else if !ended.contains(&p.stream) {
                    ended.push(p.stream);
                    let _ = live.send(Bytes::new());
                }
            }
        }
    });
}

pub(crate) fn parse_event_id(id: &str) -> Option<(StreamKey, u64)> {
    let (k, s) = id.split_once('-')?;
    Some((k.parse().ok()?, s.parse().ok()?))
}
