//! The HTTP service's shared state, cheap to clone: its server and configuration, the sessions of both
//! transports, the byte budget, the admission gate, the bus to other instances; and the SSE answers every
//! transport streams. The Streamable HTTP methods are `server.rs`'s (routes, GET, DELETE), `post.rs`'s
//! and `sessions.rs`'s; the legacy transport is `legacy.rs`'s; a 2026 POST is `modern.rs`'s.

use super::answers::rpc_error;
use super::config::HttpConfig;
use super::gate::Gate;
use super::legacy_sessions::LegacySessions;
use super::session::HttpSession;
use super::sse;
use crate::budget::ByteBudget;
use crate::protocol::ErrorObject;
use crate::server::Server;
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub(crate) struct Inner {
    pub(crate) server: Server,
    pub(crate) config: HttpConfig,
    pub(super) sessions: RwLock<HashMap<String, Arc<HttpSession>>>,
    pub(crate) legacy: LegacySessions,
    /// Cancelled at shutdown: open SSE streams end, new sessions are refused.
    pub(crate) shutdown: CancellationToken,
    /// One byte budget for every session and every request body being read.
    pub(crate) budget: Arc<ByteBudget>,
    pub(super) reaper: std::sync::Once,
    /// Tokens, scopes and rate limits (`admission.rs`).
    pub(crate) gate: Gate,
    /// This instance's name on the shared bus.
    pub(super) origin: String,
    /// The 2026-07-28 declarations of the latest request, read once while they stay the same.
    pub(crate) declared: crate::server::era::Declared,
}

/// Serves one [`Server`] over Streamable HTTP (and the legacy HTTP+SSE transport). Cheap to clone.
///
/// ```no_run
/// # async fn demo(server: mcp_runtime::Server) -> std::io::Result<()> {
/// use mcp_runtime::http::{HttpConfig, StreamableHttpService};
/// let mcp = StreamableHttpService::new(server, HttpConfig::default());
/// // Mount beside the application's own routes; `router()` serves `/mcp`, `/sse` and `/messages`.
/// let app = axum::Router::new().route("/health", axum::routing::get(|| async { "ok" })).merge(mcp.router());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// axum::serve(listener, app).await
/// # }
/// ```
#[derive(Clone)]
pub struct StreamableHttpService {
    pub(crate) inner: Arc<Inner>,
}

impl StreamableHttpService {
    /// The service for `server`: sessions share one byte budget, the server's `max_buffered_bytes`. Mount
    /// [`StreamableHttpService::router`](crate::http::StreamableHttpService::router) or serve it with [`serve_http`](crate::http::serve_http).
    pub fn new(server: Server, config: HttpConfig) -> Self {
        let budget = ByteBudget::new(server.connection_config().max_buffered_bytes);
        let me = StreamableHttpService {
            inner: Arc::new(Inner {
                server,
                sessions: RwLock::new(HashMap::new()),
                legacy: Default::default(),
                shutdown: CancellationToken::new(),
                budget,
                reaper: std::sync::Once::new(),
                gate: Gate::new(&config),
                origin: crate::scale::random_name(),
                config,
                declared: Default::default(),
            }),
        };
        let shared = me.inner.config.shared.as_ref();
        if shared.is_some() && tokio::runtime::Handle::try_current().is_err() {
            tracing::warn!("shared stores need a Tokio runtime when the service is made; not following the bus");
        } else if let Some(shared) = shared {
            me.inner
                .server
                .attach_bus(shared.bus.clone(), me.inner.origin.clone());
            me.listen_bus(shared.bus.subscribe());
        }
        me
    }

    /// Follows the other instances' session events: a session ended elsewhere ends here; one whose
    /// record changed is read again.
    pub(super) fn listen_bus(
        &self,
        mut rx: tokio::sync::broadcast::Receiver<crate::scale::BusMessage>,
    ) {
        use crate::scale::BusEvent;
        use tokio::sync::broadcast::error::RecvError;
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            loop {
                let msg = match rx.recv().await {
                    Ok(m) => m,
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "session bus: messages missed");
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                };
                let Some(inner) = weak.upgrade() else { return };
                if msg.origin == inner.origin {
                    continue;
                }
                match msg.event {
                    BusEvent::SessionEnded { session } => {
                        let local = inner
                            .sessions
                            .write()
                            .unwrap_or_else(|e| e.into_inner())
                            .remove(&session);
                        if let Some(s) = local {
                            s.close("the client ended the session");
                        }
                    }
                    BusEvent::ClientMessage { session, message } => {
                        let local = inner
                            .sessions
                            .read()
                            .unwrap_or_else(|e| e.into_inner())
                            .get(&session)
                            .cloned();
                        if let Some(s) = local {
                            s.peer.dispatch_line(message.as_bytes(), &s.handler).await;
                        }
                    }
                    BusEvent::SessionChanged { session } => {
                        let local = inner
                            .sessions
                            .read()
                            .unwrap_or_else(|e| e.into_inner())
                            .get(&session)
                            .cloned();
                        let (Some(s), Some(shared)) = (local, &inner.config.shared) else {
                            continue;
                        };
                        match shared.sessions.get(&session, shared.ttl).await {
                            Ok(Some(r)) => {
                                if let Some(state) = &s.state {
                                    state.follow_record(&r);
                                }
                            }
                            Ok(None) => {}
                            Err(e) => tracing::warn!(error = %e, "session record not re-read"),
                        }
                    }
                    _ => {}
                }
            }
        });
    }

    /// Tells the other instances about a session.
    pub(super) async fn announce(&self, event: crate::scale::BusEvent) {
        if let Some(shared) = &self.inner.config.shared {
            let msg = crate::scale::BusMessage {
                origin: self.inner.origin.clone(),
                event,
            };
            if let Err(e) = shared.bus.publish(&msg).await {
                tracing::warn!(error = %e, "session event not announced to other instances");
            }
        }
    }

    /// Who the request authenticated as, for handlers and request-state binding: the verified token's
    /// subject, else (a static bearer token, a verifier without subjects) a digest of the token (never
    /// the token itself). Called inside the dispatch of an admitted request.
    pub(crate) fn principal(&self, headers: &HeaderMap) -> Option<String> {
        self.inner.gate.auth.as_ref()?;
        if let Some(sub) = crate::identity::current().and_then(|a| a.subject.clone()) {
            return Some(format!("sub:{sub}"));
        }
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())?;
        let d = crate::sha256::Sha256::digest(token.as_bytes());
        Some(format!(
            "bearer:{}",
            d[..12]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ))
    }

    /// Stops: open SSE streams end, listen streams end gracefully, every session closes after in-flight
    /// calls had `grace` to finish.
    pub async fn shutdown(&self, grace: Duration) {
        self.inner.shutdown.cancel();
        self.inner.server.close_subscriptions();
        let sessions: Vec<_> = self
            .inner
            .sessions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .map(|(_, s)| s)
            .collect();
        let drains = sessions.iter().map(|s| s.peer.drain(grace));
        futures_util::future::join_all(drains).await;
        for s in sessions {
            s.close("the server is shutting down");
        }
        self.inner.legacy.close_all();
    }

    /// How many SSE streams the sessions hold (connected, or finished and kept for `Last-Event-ID`
    /// resumption; each session keeps at most a few dozen finished ones).
    pub fn stream_count(&self) -> usize {
        self.inner
            .sessions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(|s| s.stream_count())
            .sum()
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        self.inner
            .sessions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    /// DNS rebinding protection: `Host` and `Origin` must name an allowed host (403 otherwise).
    pub(crate) fn check_host(&self, headers: &HeaderMap) -> Result<(), Response> {
        let c = &self.inner.config;
        if c.allowed_hosts.is_empty() {
            return Ok(());
        }
        if let Some(host) = headers.get(header::HOST) {
            let ok = host
                .to_str()
                .ok()
                .map(host_name)
                .is_some_and(|h| c.allowed_hosts.iter().any(|a| a.eq_ignore_ascii_case(h)));
            if !ok {
                return Err(rpc_error(
                    StatusCode::FORBIDDEN,
                    None,
                    ErrorObject::new(-32000, "Forbidden: invalid Host header"),
                ));
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let o = origin.to_str().unwrap_or("");
            let ok = c.allowed_origins.iter().any(|a| a == o)
                || c.cors.as_ref().is_some_and(|cors| cors.allows(o))
                || origin_host(o)
                    .is_some_and(|h| c.allowed_hosts.iter().any(|a| a.eq_ignore_ascii_case(h)));
            if !ok {
                return Err(rpc_error(
                    StatusCode::FORBIDDEN,
                    None,
                    ErrorObject::new(-32000, "Forbidden: invalid Origin header"),
                ));
            }
        }
        Ok(())
    }

    /// An SSE answer: `first` events, then whatever arrives on `live`, with keep-alive comments, until the
    /// stream is finished (or `live` sends an empty event), the client goes away, or the server shuts
    /// down.
    pub(crate) fn sse_response(
        &self,
        first: Vec<Bytes>,
        live: Option<mpsc::UnboundedReceiver<Bytes>>,
        busy: Option<Busy>,
    ) -> Response {
        // A POST stream runs until its answer, even during shutdown; other streams end at shutdown.
        let ends_at_shutdown = busy.is_none();
        let tail = futures_util::stream::unfold((live, busy), |(mut live, busy)| async move {
            // An empty event: the stream's connection ends here (an event that could not be logged).
            let ev = live.as_mut()?.recv().await.filter(|ev| !ev.is_empty())?;
            Some((ev, (live, busy)))
        });
        self.sse_stream(first, tail, ends_at_shutdown)
    }

    /// An SSE answer from any stream of events: `first`, then `tail` with a keep-alive comment after every
    /// quiet `keep_alive`, until `tail` ends, the client goes away, or (if `ends_at_shutdown`) the server
    /// shuts down.
    pub(crate) fn sse_stream(
        &self,
        first: Vec<Bytes>,
        tail: impl futures_util::Stream<Item = Bytes> + Send + 'static,
        ends_at_shutdown: bool,
    ) -> Response {
        let keep_alive = self.inner.config.keep_alive;
        let shutdown = if ends_at_shutdown {
            self.inner.shutdown.clone()
        } else {
            CancellationToken::new()
        };
        let head = futures_util::stream::iter(
            first.into_iter().map(Ok::<Bytes, std::convert::Infallible>),
        );
        // One timer per stream, pushed back after every event (not a new timer per event).
        let idle = keep_alive.map(|d| Box::pin(tokio::time::sleep(d)));
        let tail = Box::pin(tail);
        let tail = futures_util::stream::unfold(
            (Some(tail), shutdown, idle),
            move |(mut tail, shutdown, mut idle)| async move {
                let t = tail.as_mut()?;
                let next = tokio::select! {
                    biased;
                    m = t.next() => m,
                    _ = shutdown.cancelled() => None,
                    _ = async { match idle.as_mut() { Some(t) => t.as_mut().await, None => std::future::pending().await } } => Some(sse::keep_alive()),
                };
                if let (Some(t), Some(d)) = (idle.as_mut(), keep_alive) {
                    t.as_mut().reset(tokio::time::Instant::now() + d);
                }
                next.map(|b| (Ok(b), (tail, shutdown, idle)))
            },
        );
        let body = Body::from_stream(head.chain(tail));
        let mut r = Response::new(body);
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        h.insert("x-accel-buffering", HeaderValue::from_static("no"));
        r
    }
}

/// Counts a request as being answered, so that an idle reaper never ends a session mid-answer.
pub(crate) struct Busy(Arc<HttpSession>);

impl Busy {
    pub(super) fn new(s: &Arc<HttpSession>) -> Self {
        s.busy.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Busy(s.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0
            .busy
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `localhost:3000` → `localhost`; `[::1]:3000` → `[::1]`.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(i) => &host[..=i],
            None => host,
        };
    }
    host.rsplit_once(':').map_or(host, |(h, _)| h)
}

fn origin_host(origin: &str) -> Option<&str> {
    let rest = origin.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    Some(host_name(authority))
}
