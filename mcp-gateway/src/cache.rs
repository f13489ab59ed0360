//! `resources/read` results kept by the upstreams' 2026-07-28 caching hints (`ttlMs`, `cacheScope`).
//!
//! - **Fresh.** An answer with `ttlMs > 0` is served from here for `ttlMs` from its arrival. `ttlMs: 0`, no
//!   hints (a handshake-era upstream) and a read that needed the caller's input (an MRTR round, or a
//!   sampling, elicitation or roots request of the upstream's during the read) are not kept.
//! - **Scope.** A `public` answer is shared by every caller; a `private` one is kept for the caller's
//!   identity only: the authenticated subject (HTTP with a token verifier), else the downstream session.
//!   A caller with neither (a 2026-07-28 request without authentication) gets no private entries.
//! - **Single flight.** Identical concurrent reads (same upstream, URI and caller identity) go upstream
//!   once; the others wait for that answer, or its error (errors are not kept).
//! - **Dropped** at the upstream's `notifications/resources/updated` for the URI, its
//!   `resources/list_changed`, and when the upstream is removed, restarted or reconnected.
//! - **Bounded** by `gateway.cacheBytes` (the answers' JSON size): the oldest and expired entries go
//!   first; an answer larger than the bound is not kept. `0` turns the cache off.
//!
//! The lists (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`) need no cache
//! here: the gateway lists each upstream itself, keeps what it listed, and lists again at the
//! upstream's `list_changed`.

use mcp_runtime::client::{CallHandlers, ElicitationHandler, RootsHandler, SamplingHandler};
use mcp_runtime::protocol::{
    CacheScope, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ErrorObject,
    ListRootsResult, ReadResourceResult,
};
use mcp_runtime::Context;
use prometheus_client::metrics::counter::Counter;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The default of `gateway.cacheBytes`: 64 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// What an entry is kept under: the upstream (by name), the URI, and the caller's identity for a
/// private entry (`None`: public).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    upstream: String,
    uri: String,
    caller: Option<String>,
}

struct Entry {
    value: Arc<ReadResourceResult>,
    expires: Instant,
    size: usize,
    /// Its place in `State::order` (insertion order: the oldest goes first).
    seq: u64,
}

/// What a read does: answer from an entry, wait for an identical read in flight, or read (leading a
/// flight others may join, when the caller has an identity).
enum Step {
    Hit(Arc<ReadResourceResult>),
    Wait(watch::Receiver<Flight>),
    Lead(Option<watch::Sender<Flight>>, u64),
}

/// What a read in flight ends with, for the reads waiting on it.
#[derive(Clone)]
enum Flight {
    Pending,
    Done(Result<Arc<ReadResourceResult>, ErrorObject>),
    /// The answer was the leader's own (it needed the leader's input, or the leader was cancelled):
    /// each waiter reads for itself.
    Own,
}

#[derive(Default)]
struct State {
    entries: HashMap<Key, Entry>,
    order: BTreeMap<u64, Key>,
    bytes: usize,
    seq: u64,
    /// Bumped by every drop: a read that began before one does not keep its answer.
    epoch: u64,
    flights: HashMap<Key, watch::Receiver<Flight>>,
}

/// The gateway's cache of `resources/read` answers.
pub struct ReadCache {
    cap: AtomicUsize,
    state: Mutex<State>,
    hits: Counter,
    misses: Counter,
}

/// A read's answer, and whether it needed the caller's input (then it is the caller's alone).
pub(crate) struct Fetched {
    pub(crate) result: Result<ReadResourceResult, ErrorObject>,
    pub(crate) input_used: bool,
}

impl ReadCache {
    /// A cache of at most `cap` bytes (`0`: off) that counts into `hits` and `misses`.
    pub(crate) fn new(cap: usize, hits: Counter, misses: Counter) -> ReadCache {
        ReadCache {
            cap: AtomicUsize::new(cap),
            state: Mutex::new(State::default()),
            hits,
            misses,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new bound (a reload): entries beyond it go now.
    pub(crate) fn set_cap(&self, cap: usize) {
        self.cap.store(cap, Ordering::Release);
        let mut s = self.lock();
        if cap == 0 {
            s.clear_where(|_| true);
        } else {
            s.evict(cap, 0, Instant::now());
        }
    }

    /// The bytes kept now.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Drops the entries of `uri` on `upstream` (its `notifications/resources/updated`).
    pub(crate) fn drop_uri(&self, upstream: &str, uri: &str) {
        self.lock()
            .clear_where(|k| k.upstream == upstream && k.uri == uri);
    }

    /// Drops every entry of `upstream` (its `resources/list_changed`, its restart, its removal).
    pub(crate) fn drop_upstream(&self, upstream: &str) {
        self.lock().clear_where(|k| k.upstream == upstream);
    }

    /// `resources/read` of `uri` on `upstream` for `ctx`: a fresh entry, the answer of an identical read
    /// in flight, or `fetch`'s.
    pub(crate) async fn read<F, Fut>(
        &self,
        upstream: &str,
        uri: &str,
        ctx: &Context,
        fetch: F,
    ) -> Result<ReadResourceResult, ErrorObject>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Fetched>,
    {
        let cap = self.cap.load(Ordering::Acquire);
        if cap == 0 {
            return fetch().await.result;
        }
        let caller = identity(ctx);
        let key = |caller: Option<String>| Key {
            upstream: upstream.to_string(),
            uri: uri.to_string(),
            caller,
        };
        let flight_key = key(caller.clone());
        // A waiter whose leader's answer was not for it reads again, at most once more as a waiter.
        for _ in 0..2 {
            let step = {
                let mut s = self.lock();
                let now = Instant::now();
                let found = s.fresh(&key(None), now).or_else(|| {
                    caller
                        .as_ref()
                        .and_then(|c| s.fresh(&key(Some(c.clone())), now))
                });
                match (found, &caller) {
                    (Some(v), _) => Step::Hit(v),
                    (None, Some(_)) => match s.flights.get(&flight_key) {
                        Some(rx) => Step::Wait(rx.clone()),
                        None => {
                            let (tx, rx) = watch::channel(Flight::Pending);
                            s.flights.insert(flight_key.clone(), rx);
                            Step::Lead(Some(tx), s.epoch)
                        }
                    },
                    // No identity: no flight to share (a private answer could not be handed on).
                    (None, None) => Step::Lead(None, s.epoch),
                }
            };
            let (tx, epoch) = match step {
                Step::Hit(v) => {
                    self.hits.inc();
                    return Ok((*v).clone());
                }
                Step::Wait(mut rx) => {
                    let outcome = rx
                        .wait_for(|f| !matches!(f, Flight::Pending))
                        .await
                        .map(|f| f.clone());
                    match outcome {
                        Ok(Flight::Done(r)) => {
                            self.hits.inc();
                            return r.map(|v| (*v).clone());
                        }
                        // The leader's own answer, or the leader went away: try again.
                        _ => continue,
                    }
                }
                Step::Lead(tx, epoch) => (tx, epoch),
            };
            self.misses.inc();
            let lead = Lead {
                cache: self,
                key: flight_key.clone(),
                tx,
            };
            let got = fetch().await;
            let kept = match (&got.result, got.input_used || ctx.is_cancelled()) {
                (Ok(r), false) => {
                    let v = Arc::new(r.clone());
                    self.keep(upstream, uri, caller.as_deref(), &v, epoch, cap);
                    Flight::Done(Ok(v))
                }
                (Err(e), false) => Flight::Done(Err(e.clone())),
                (_, true) => Flight::Own,
            };
            lead.finish(kept);
            return got.result;
        }
        self.misses.inc();
        fetch().await.result
    }

    /// Keeps `v` when its hints allow it and no drop happened since its read began.
    fn keep(
        &self,
        upstream: &str,
        uri: &str,
        caller: Option<&str>,
        v: &Arc<ReadResourceResult>,
        epoch: u64,
        cap: usize,
    ) {
        let Some(hints) = v.cache else { return };
        if hints.ttl_ms == 0 {
            return;
        }
        let caller = match hints.cache_scope {
            CacheScope::Public => None,
            CacheScope::Private => match caller {
                Some(c) => Some(c.to_string()),
                None => return,
            },
        };
        let size = serde_json::to_string(&**v).map_or(usize::MAX, |s| s.len() + uri.len());
        if size > cap {
            return;
        }
        let now = Instant::now();
        let Some(expires) = now.checked_add(Duration::from_millis(hints.ttl_ms)) else {
            return;
        };
        let mut s = self.lock();
        if s.epoch != epoch {
            return;
        }
        let key = Key {
            upstream: upstream.to_string(),
            uri: uri.to_string(),
            caller,
        };
        s.remove(&key);
        s.evict(cap, size, now);
        s.seq += 1;
        let seq = s.seq;
        s.order.insert(seq, key.clone());
        s.bytes += size;
        s.entries.insert(
            key,
            Entry {
                value: v.clone(),
                expires,
                size,
                seq,
            },
        );
    }
}

/// The read in flight a leader runs: on every path (a cancelled leader's future is dropped), its
/// waiters learn how it ended and the flight is gone.
struct Lead<'a> {
    cache: &'a ReadCache,
    key: Key,
    tx: Option<watch::Sender<Flight>>,
}

impl Lead<'_> {
    fn finish(mut self, outcome: Flight) {
        if let Some(tx) = self.tx.take() {
            self.cache.lock().flights.remove(&self.key);
            let _ = tx.send(outcome);
        }
    }
}

impl Drop for Lead<'_> {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            self.cache.lock().flights.remove(&self.key);
            let _ = tx.send(Flight::Own);
        }
    }
}

impl State {
    fn fresh(&mut self, key: &Key, now: Instant) -> Option<Arc<ReadResourceResult>> {
        let e = self.entries.get(key)?;
        if e.expires > now {
            return Some(e.value.clone());
        }
        self.remove(key);
        None
    }

    fn remove(&mut self, key: &Key) {
        if let Some(e) = self.entries.remove(key) {
            self.order.remove(&e.seq);
            self.bytes -= e.size;
        }
    }

    fn clear_where(&mut self, gone: impl Fn(&Key) -> bool) {
        self.epoch += 1;
        let keys: Vec<Key> = self.entries.keys().filter(|k| gone(k)).cloned().collect();
        for k in keys {
            self.remove(&k);
        }
    }

    /// Makes room for `more` bytes within `cap`: the expired entries first, then the oldest.
    fn evict(&mut self, cap: usize, more: usize, now: Instant) {
        if self.bytes + more <= cap {
            return;
        }
        let expired: Vec<Key> = self
            .entries
            .iter()
            .filter(|(_, e)| e.expires <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for k in expired {
            self.remove(&k);
        }
        while self.bytes + more > cap {
            let Some((_, k)) = self.order.pop_first() else {
                break;
            };
            if let Some(e) = self.entries.remove(&k) {
                self.bytes -= e.size;
            }
        }
    }
}

/// Who is reading, for private entries: the authenticated subject, else the downstream session.
fn identity(ctx: &Context) -> Option<String> {
    if let Some(sub) = ctx.auth().and_then(|a| a.subject.as_deref()) {
        return Some(format!("sub:{sub}"));
    }
    if let Some(p) = ctx.principal() {
        return Some(format!("principal:{p}"));
    }
    ctx.session().map(|s| format!("session:{}", s.id()))
}

/// `handlers`, noting in `used` whether the upstream asked for any input through them.
pub(crate) fn witnessed(handlers: CallHandlers, used: Arc<AtomicBool>) -> CallHandlers {
    let w = |inner| {
        Arc::new(Witness {
            inner,
            used: used.clone(),
        })
    };
    CallHandlers {
        sampling: handlers.sampling.map(|h| w(Inner::Sampling(h)) as _),
        elicitation: handlers.elicitation.map(|h| w(Inner::Elicitation(h)) as _),
        roots: handlers.roots.map(|h| w(Inner::Roots(h)) as _),
    }
}

enum Inner {
    Sampling(Arc<dyn SamplingHandler>),
    Elicitation(Arc<dyn ElicitationHandler>),
    Roots(Arc<dyn RootsHandler>),
}

struct Witness {
    inner: Inner,
    used: Arc<AtomicBool>,
}

type Boxed<T> = futures_util::future::BoxFuture<'static, Result<T, ErrorObject>>;

fn refused<T: Send + 'static>() -> Boxed<T> {
    Box::pin(async { Err(ErrorObject::internal("no handler for this request")) })
}

impl SamplingHandler for Witness {
    fn create_message(&self, params: CreateMessageParams) -> Boxed<CreateMessageResult> {
        self.used.store(true, Ordering::Release);
        match &self.inner {
            Inner::Sampling(h) => h.create_message(params),
            _ => refused(),
        }
    }
    fn create_message_keyed(
        &self,
        key: &str,
        params: CreateMessageParams,
    ) -> Boxed<CreateMessageResult> {
        self.used.store(true, Ordering::Release);
        match &self.inner {
            Inner::Sampling(h) => h.create_message_keyed(key, params),
            _ => refused(),
        }
    }
}

impl ElicitationHandler for Witness {
    fn elicit(&self, params: ElicitParams) -> Boxed<ElicitResult> {
        self.used.store(true, Ordering::Release);
        match &self.inner {
            Inner::Elicitation(h) => h.elicit(params),
            _ => refused(),
        }
    }
    fn elicit_keyed(&self, key: &str, params: ElicitParams) -> Boxed<ElicitResult> {
        self.used.store(true, Ordering::Release);
        match &self.inner {
            Inner::Elicitation(h) => h.elicit_keyed(key, params),
            _ => refused(),
        }
    }
}

impl RootsHandler for Witness {
    fn list_roots(&self) -> Boxed<ListRootsResult> {
        self.used.store(true, Ordering::Release);
        match &self.inner {
            Inner::Roots(h) => h.list_roots(),
            _ => refused(),
        }
    }
    fn list_roots_keyed(&self, key: &str) -> Boxed<ListRootsResult> {
        self.used.store(true, Ordering::Release);
        match &self.inner {
            Inner::Roots(h) => h.list_roots_keyed(key),
            _ => refused(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime::protocol::{CacheHints, ResourceContents};

    fn result(text: &str, ttl: u64) -> Arc<ReadResourceResult> {
        let mut r = ReadResourceResult::default();
        r.contents.push(
            serde_json::from_value::<ResourceContents>(
                serde_json::json!({"uri": "u:x", "text": text}),
            )
            .unwrap(),
        );
        r.cache = Some(CacheHints::new(ttl, CacheScope::Public));
        Arc::new(r)
    }

    #[test]
    fn the_bound_evicts_the_oldest_and_refuses_what_is_too_big() {
        let c = ReadCache::new(1000, Counter::default(), Counter::default());
        let small = result(&"a".repeat(300), 60_000);
        c.keep("up", "u:1", None, &small, 0, 1000);
        c.keep("up", "u:2", None, &small, 0, 1000);
        let two = c.bytes();
        assert!(two > 600 && two <= 1000, "{two}");
        c.keep("up", "u:3", None, &small, 0, 1000);
        let s = c.lock();
        assert!(s.bytes <= 1000);
        let uris: Vec<&str> = s.order.values().map(|k| k.uri.as_str()).collect();
        assert_eq!(uris, ["u:2", "u:3"], "the oldest went first");
        drop(s);
        c.keep(
            "up",
            "u:4",
            None,
            &result(&"b".repeat(2000), 60_000),
            0,
            1000,
        );
        assert!(!c.lock().entries.keys().any(|k| k.uri == "u:4"));
        c.keep("up", "u:5", None, &result("c", 0), 0, 1000);
        assert!(
            !c.lock().entries.keys().any(|k| k.uri == "u:5"),
            "ttl 0 is not kept"
        );
        c.drop_upstream("up");
        assert_eq!(c.bytes(), 0);
        // A read that began before a drop does not keep its answer.
        c.keep("up", "u:6", None, &small, 0, 1000);
        assert_eq!(c.bytes(), 0);
    }
}
