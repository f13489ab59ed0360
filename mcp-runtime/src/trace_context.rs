//! W3C Trace Context across MCP (SEP-414): a request's `params._meta.traceparent` and `tracestate` (and
//! `baggage`), or on HTTP the `traceparent` and `tracestate` headers, carry the caller's trace.
//!
//! - **Server.** The trace a request carries is read when its [`Context`](crate::Context) is made
//!   (`_meta` first, then the HTTP headers of the POST it came in): [`Context::trace_context`](crate::Context::trace_context)
//!   (crate::Context::trace_context) is that incoming context, as the caller sent it. A handler runs in
//!   a span of its own, a child of it (same trace id, a new span id): [`TraceContext::current`].
//! - **Client.** Every request a [`Client`](crate::Client) sends while a trace is current (inside a
//!   handler, or inside [`TraceContext::scope`]) carries `_meta.traceparent` with the current span as its
//!   parent, and `tracestate` and `baggage` as they came; params that carry their own `traceparent`
//!   keep it. So a handler that calls another server puts that server's work into the same trace.
//! - **Invalid input is ignored**, as the W3C specification says: a `traceparent` that is not version
//!   `00`-shaped (2 hex digits of version, not `ff`; 32 lowercase hex digits of trace id, not all zero;
//!   16 of parent id, not all zero; 2 of flags) is as if absent, and a `tracestate` or `baggage` beyond
//!   the specification's sizes is dropped or cut at a member, never an error.

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::cell::Cell;
use std::future::Future;
use std::sync::Arc;

/// The `_meta` key (and HTTP header) of the W3C `traceparent`.
pub const TRACEPARENT: &str = "traceparent";
/// The `_meta` key (and HTTP header) of the W3C `tracestate`.
pub const TRACESTATE: &str = "tracestate";
/// The `_meta` key of the W3C `baggage`.
pub const BAGGAGE: &str = "baggage";

/// The longest `tracestate` kept (the W3C minimum to propagate), cut at a list member.
const MAX_TRACESTATE: usize = 512;
/// The most list members of a `tracestate`.
const MAX_TRACESTATE_MEMBERS: usize = 32;
/// The longest `baggage` kept (the W3C limit).
const MAX_BAGGAGE: usize = 8192;

/// One position in a distributed trace: the trace, the span that is the parent of what comes next, the
/// trace flags, and the vendor state and baggage that travel with them.
#[derive(Clone, PartialEq, Eq)]
pub struct TraceContext {
    trace_id: [u8; 16],
    parent_id: [u8; 8],
    flags: u8,
    state: Option<Arc<str>>,
    baggage: Option<Arc<str>>,
}

impl std::fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceContext")
            .field("traceparent", &self.traceparent())
            .field("tracestate", &self.state)
            .finish()
    }
}

tokio::task_local! {
    static CURRENT: Option<TraceContext>;
    static TRANSPORT: Option<TraceContext>;
}

fn hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let b = s.as_bytes();
    if b.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = digit(b[2 * i])? << 4 | digit(b[2 * i + 1])?;
    }
    Some(out)
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// A `tracestate` worth passing on: printable ASCII list members, each `key=value`, within the sizes
/// (members beyond them are cut); `None` when nothing valid is left.
fn tracestate(s: &str) -> Option<Arc<str>> {
    let mut kept = String::new();
    let mut members = 0;
    for m in s.split(',').map(|m| m.trim_matches([' ', '\t'])) {
        if m.is_empty() {
            continue;
        }
        let valid = m.bytes().all(|c| (0x20..=0x7e).contains(&c))
            && m.split_once('=').is_some_and(|(k, v)| {
                !k.is_empty() && !v.is_empty() && !v.contains('=') && !k.contains(' ')
            });
        if !valid {
            // One malformed member makes the whole header invalid (W3C): drop it.
            return None;
        }
        if members == MAX_TRACESTATE_MEMBERS
            || kept.len() + m.len() + usize::from(members > 0) > MAX_TRACESTATE
        {
            break;
        }
        if members > 0 {
            kept.push(',');
        }
        kept.push_str(m);
        members += 1;
    }
    (!kept.is_empty()).then(|| kept.into())
}

fn baggage(s: &str) -> Option<Arc<str>> {
    (!s.is_empty() && s.len() <= MAX_BAGGAGE && s.bytes().all(|c| (0x20..=0x7e).contains(&c)))
        .then(|| s.into())
}

thread_local! {
    static RNG: Cell<u64> = Cell::new({
        let mut seed = [0u8; 8];
        let _ = getrandom::fill(&mut seed);
        u64::from_le_bytes(seed) | 1
    });
}

/// A new span id: random (SplitMix64 over a per-thread random seed), never all zero.
fn span_id() -> [u8; 8] {
    RNG.with(|r| loop {
        let s = r.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
        r.set(s);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        if z != 0 {
            return z.to_be_bytes();
        }
    })
}

impl TraceContext {
    /// Reads a `traceparent` (and the `tracestate` beside it); `None` when the `traceparent` is not
    /// valid (the W3C rule: the trace is then as if absent). A version above `00` is read by the
    /// `00` layout, as the specification asks, and written back as `00`.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<TraceContext> {
        let t = traceparent.trim_matches([' ', '\t']);
        let version: [u8; 1] = hex(t.get(0..2)?)?;
        if version[0] == 0xff || (version[0] == 0 && t.len() != 55) {
            return None;
        }
        if t.len() > 55 && t.as_bytes()[55] != b'-' {
            return None;
        }
        let b = t.as_bytes();
        if b.get(2) != Some(&b'-') || b.get(35) != Some(&b'-') || b.get(52) != Some(&b'-') {
            return None;
        }
        let trace_id: [u8; 16] = hex(t.get(3..35)?)?;
        let parent_id: [u8; 8] = hex(t.get(36..52)?)?;
        let [flags] = hex::<1>(t.get(53..55)?)?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(TraceContext {
            trace_id,
            parent_id,
            flags,
            state: tracestate.and_then(self::tracestate),
            baggage: None,
        })
    }

    /// The same, with `baggage` passed along (kept when within the W3C limit).
    pub fn with_baggage(mut self, value: Option<&str>) -> TraceContext {
        self.baggage = value.and_then(baggage);
        self
    }

    /// The trace id, 32 lowercase hex digits.
    pub fn trace_id(&self) -> String {
        to_hex(&self.trace_id)
    }

    /// The parent id (the span this context continues from), 16 lowercase hex digits.
    pub fn parent_id(&self) -> String {
        to_hex(&self.parent_id)
    }

    /// The trace flags (bit 0: sampled).
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// Whether the caller sampled the trace.
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The vendor state, as it travels.
    pub fn tracestate(&self) -> Option<&str> {
        self.state.as_deref()
    }

    /// The W3C baggage, as it travels.
    pub fn baggage(&self) -> Option<&str> {
        self.baggage.as_deref()
    }

    /// The `traceparent` value: `00-<trace id>-<parent id>-<flags>`.
    pub fn traceparent(&self) -> String {
        format!(
            "00-{}-{}-{:02x}",
            to_hex(&self.trace_id),
            to_hex(&self.parent_id),
            self.flags
        )
    }

    /// A new span in the same trace, whose id becomes the parent id of what it calls: the same trace id,
    /// flags, state and baggage, a new random parent id.
    pub fn child(&self) -> TraceContext {
        TraceContext {
            parent_id: span_id(),
            ..self.clone()
        }
    }

    /// The trace of the code running now: inside a handler, the handler's span (a child of the
    /// request's trace); inside [`TraceContext::scope`], its context.
    pub fn current() -> Option<TraceContext> {
        CURRENT.try_with(Clone::clone).ok().flatten()
    }

    /// Runs `fut` with `trace` as the current trace: the requests a client sends from it carry it.
    pub fn scope<F: Future>(
        trace: Option<TraceContext>,
        fut: F,
    ) -> impl Future<Output = F::Output> {
        CURRENT.scope(trace, fut)
    }

    /// The trace in a request's params (`_meta.traceparent`, `_meta.tracestate`, `_meta.baggage`).
    /// The params are only searched for the key unless it is there, so a request without a trace
    /// costs one scan of its text. (A server reads it in the one pass over `_meta` its dispatcher
    /// makes anyway, and costs a request without a trace nothing more.)
    pub fn from_params(params: Option<&RawValue>) -> Option<TraceContext> {
        let text = params?.get();
        memchr::memmem::find(text.as_bytes(), b"\"traceparent\"")?;
        #[derive(serde::Deserialize)]
        struct Meta<'a> {
            #[serde(borrow, default)]
            traceparent: Option<std::borrow::Cow<'a, str>>,
            #[serde(borrow, default)]
            tracestate: Option<std::borrow::Cow<'a, str>>,
            #[serde(borrow, default)]
            baggage: Option<std::borrow::Cow<'a, str>>,
        }
        #[derive(serde::Deserialize)]
        struct Params<'a> {
            #[serde(rename = "_meta", borrow, default)]
            meta: Option<Meta<'a>>,
        }
        let p: Params<'_> = serde_json::from_str(text).ok()?;
        let m = p.meta?;
        TraceContext::parse(m.traceparent.as_deref()?, m.tracestate.as_deref())
            .map(|t| t.with_baggage(m.baggage.as_deref()))
    }

    /// The trace of `_meta` members read as JSON text by the dispatcher's one pass over `_meta`; a
    /// member that is not a string is as if absent.
    pub(crate) fn from_meta_values(
        traceparent: &RawValue,
        tracestate: Option<&RawValue>,
        baggage: Option<&RawValue>,
    ) -> Option<TraceContext> {
        let text = |v: &RawValue| serde_json::from_str::<std::borrow::Cow<'_, str>>(v.get()).ok();
        let state = tracestate.and_then(text);
        let baggage = baggage.and_then(text);
        TraceContext::parse(&text(traceparent)?, state.as_deref())
            .map(|t| t.with_baggage(baggage.as_deref()))
    }

    /// Writes this context into a request's `_meta` (created if absent), unless the params carry a
    /// `traceparent` of their own.
    pub fn write_meta(&self, params: &mut Map<String, Value>) {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(m) = meta else { return };
        if m.contains_key(TRACEPARENT) {
            return;
        }
        m.insert(TRACEPARENT.into(), Value::String(self.traceparent()));
        if let Some(s) = &self.state {
            m.insert(TRACESTATE.into(), Value::String(s.to_string()));
        }
        if let Some(b) = &self.baggage {
            m.entry(BAGGAGE).or_insert(Value::String(b.to_string()));
        }
    }

    /// The trace a transport read from its own framing (the HTTP headers of the request being
    /// dispatched), if any.
    pub(crate) fn from_transport() -> Option<TraceContext> {
        TRANSPORT.try_with(Clone::clone).ok().flatten()
    }

    /// Runs `fut` (a transport's dispatch of one request) with the trace its framing carried.
    pub fn with_transport<F: Future>(
        trace: Option<TraceContext>,
        fut: F,
    ) -> impl Future<Output = F::Output> {
        TRANSPORT.scope(trace, fut)
    }

    /// The trace in HTTP headers (`traceparent`, `tracestate`).
    #[cfg(feature = "http")]
    pub fn from_headers(headers: &axum::http::HeaderMap) -> Option<TraceContext> {
        let tp = headers.get(TRACEPARENT)?.to_str().ok()?;
        let ts = headers.get(TRACESTATE).and_then(|v| v.to_str().ok());
        TraceContext::parse(tp, ts)
    }
}

/// The future of a handler with its span current: a child of `incoming`, when the request carried a
/// trace (boxed only then: the common case keeps its future as it is).
pub(crate) fn instrument<T: Send + 'static>(
    incoming: Option<&TraceContext>,
    fut: crate::future::BoxFuture<'static, T>,
) -> crate::future::BoxFuture<'static, T> {
    match incoming {
        None => fut,
        Some(t) => Box::pin(CURRENT.scope(Some(t.child()), fut)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn reads_a_valid_traceparent() {
        let t = TraceContext::parse(TP, Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")).unwrap();
        assert_eq!(t.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(t.parent_id(), "00f067aa0ba902b7");
        assert!(t.sampled());
        assert_eq!(t.traceparent(), TP);
        assert_eq!(
            t.tracestate(),
            Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
        );
        // Not sampled; surrounding blanks tolerated.
        let t = TraceContext::parse(
            " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 ",
            None,
        )
        .unwrap();
        assert!(!t.sampled());
        assert_eq!(t.tracestate(), None);
    }

    #[test]
    fn an_invalid_traceparent_is_ignored() {
        for bad in [
            "",
            "00",
            // all-zero trace id, all-zero parent id
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            // upper case, short, long, separators, non-hex, version ff
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
            "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01é",
        ] {
            assert_eq!(TraceContext::parse(bad, Some("a=b")), None, "{bad:?}");
        }
    }

    #[test]
    fn a_later_version_is_read_by_the_00_layout() {
        let t = TraceContext::parse(
            "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds",
            None,
        )
        .unwrap();
        assert_eq!(t.traceparent(), TP);
        assert_eq!(
            TraceContext::parse(
                "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
                None
            ),
            None
        );
    }

    #[test]
    fn tracestate_is_checked_and_bounded() {
        let t = |s: &str| {
            TraceContext::parse(TP, Some(s))
                .unwrap()
                .tracestate()
                .map(str::to_string)
        };
        assert_eq!(t("a=1, ,b=2").as_deref(), Some("a=1,b=2"));
        assert_eq!(t("novalue"), None);
        assert_eq!(t("a=1,b=2=3"), None);
        let long: Vec<String> = (0..40).map(|i| format!("k{i}=v")).collect();
        let kept = t(&long.join(",")).unwrap();
        assert_eq!(kept.split(',').count(), MAX_TRACESTATE_MEMBERS);
        let wide: Vec<String> = (0..8)
            .map(|i| format!("k{i}={}", "x".repeat(100)))
            .collect();
        assert!(t(&wide.join(",")).unwrap().len() <= MAX_TRACESTATE);
    }

    #[test]
    fn a_child_keeps_the_trace_and_takes_a_new_parent() {
        let t = TraceContext::parse(TP, Some("a=1"))
            .unwrap()
            .with_baggage(Some("k=v"));
        let c = t.child();
        assert_eq!(c.trace_id(), t.trace_id());
        assert_ne!(c.parent_id(), t.parent_id());
        assert_ne!(c.parent_id(), "0000000000000000");
        assert_eq!(
            (c.flags(), c.tracestate(), c.baggage()),
            (1, Some("a=1"), Some("k=v"))
        );
        assert_ne!(t.child().parent_id(), c.parent_id());
    }

    #[test]
    fn reads_and_writes_meta() {
        let raw = |s: &str| RawValue::from_string(s.to_string()).unwrap();
        let p = raw(&format!(
            r#"{{"name":"x","arguments":{{"traceparent":"no"}},"_meta":{{"progressToken":1,"traceparent":"{TP}","tracestate":"a=1","baggage":"k=v"}}}}"#
        ));
        let t = TraceContext::from_params(Some(&p)).unwrap();
        assert_eq!((t.tracestate(), t.baggage()), (Some("a=1"), Some("k=v")));
        // The key only in the arguments, or an invalid value: no trace.
        let p = raw(r#"{"arguments":{"traceparent":"00-x"},"_meta":{}}"#);
        assert_eq!(TraceContext::from_params(Some(&p)), None);
        let p = raw(
            r#"{"_meta":{"traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}}"#,
        );
        assert_eq!(TraceContext::from_params(Some(&p)), None);
        assert_eq!(TraceContext::from_params(None), None);

        let mut params = Map::new();
        t.write_meta(&mut params);
        assert_eq!(params["_meta"]["traceparent"], TP);
        assert_eq!(params["_meta"]["tracestate"], "a=1");
        assert_eq!(params["_meta"]["baggage"], "k=v");
        // Params with a traceparent of their own keep it.
        let mut own: Map<String, Value> =
            serde_json::from_str(r#"{"_meta":{"traceparent":"mine"}}"#).unwrap();
        t.write_meta(&mut own);
        assert_eq!(own["_meta"]["traceparent"], "mine");
        assert_eq!(own["_meta"].get("tracestate"), None);
    }

    #[tokio::test]
    async fn the_current_trace_follows_its_scope() {
        assert_eq!(TraceContext::current(), None);
        let t = TraceContext::parse(TP, None).unwrap();
        let inner = TraceContext::scope(Some(t.clone()), async {
            tokio::task::yield_now().await;
            TraceContext::current()
        })
        .await;
        assert_eq!(inner, Some(t.clone()));
        let handler = instrument(Some(&t), Box::pin(async { TraceContext::current() })).await;
        let handler = handler.unwrap();
        assert_eq!(handler.trace_id(), t.trace_id());
        assert_ne!(handler.parent_id(), t.parent_id());
    }
}
