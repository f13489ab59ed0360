//! The Streamable HTTP server (2025-03-26 to 2025-11-25) on one endpoint, beside the legacy HTTP+SSE
//! endpoints of 2024-11-05, as an axum [`Router`] or a handler to mount anywhere.

use super::legacy;
use super::session::{Attached, HttpSession};
use super::sse;
use crate::budget::{ByteBudget, Charge};
use crate::connection::Handler;
use crate::framing::{self, frame, Incoming};
use crate::protocol::{methods, ErrorObject, ProtocolVersion, RequestId};
use crate::server::Server;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";

/// How requests are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseMode {
    /// An SSE stream per request: progress, logs and requests to the client travel with the answer.
    Sse,
    /// One `application/json` body per request, unless its handler sends related messages (progress,
    /// logs, requests to the client) before answering: that answer becomes an SSE stream, so that
    /// they travel with it. Unrelated server messages go to the GET stream.
    Json,
}

/// Settings of the Streamable HTTP server.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The endpoint path of [`StreamableHttpService::router`] (default `/mcp`).
    pub path: String,
    /// How POSTs are answered: an SSE stream per request (default) or JSON bodies.
    pub response_mode: ResponseMode,
    /// `false` for stateless mode: no sessions, every POST stands alone (GET and DELETE answer 405).
    pub stateful: bool,
    /// A session without requests for this long is ended (404 afterwards). `None` keeps sessions forever.
    pub session_idle_timeout: Option<Duration>,
    /// Host names (without port) accepted in `Host` and `Origin`. Empty accepts any host: only do that
    /// behind a proxy that checks them. Default: localhost names only (DNS rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// Extra accepted origins, exactly as sent (`https://app.example.com`).
    pub allowed_origins: Vec<String>,
    /// The longest accepted request body.
    pub max_body_bytes: usize,
    /// Comment lines sent on idle SSE streams.
    pub keep_alive: Option<Duration>,
    /// The `retry` of the priming event: how long a client waits before it reconnects.
    pub sse_retry: Option<Duration>,
    /// Events each SSE stream keeps for `Last-Event-ID` resumption.
    pub replay_buffer: usize,
    /// Serve the 2024-11-05 transport too (`GET /sse`, `POST /messages`) from [`StreamableHttpService::router`].
    pub legacy_sse: bool,
    /// The legacy endpoints' paths.
    pub legacy_sse_path: String,
    /// The path of the legacy transport's POST endpoint (default `/messages`).
    pub legacy_messages_path: String,
    /// The longest accepted request head (request line and headers; 431 beyond). At least 8 KiB.
    pub max_header_bytes: usize,
    /// How long a connection may take to send a request head, and how long a kept-alive connection may
    /// sit idle between requests ([`serve_http`] only; a mounted router inherits the host server's).
    pub header_read_timeout: Duration,
    /// How long a request body may take to arrive (408 beyond).
    pub body_read_timeout: Duration,
    /// Require `Authorization: Bearer <token>` (compared in constant time) on every MCP endpoint, and
    /// serve the RFC 9728 protected resource metadata at `/.well-known/oauth-protected-resource`.
    pub bearer_token: Option<String>,
    /// The authorization servers named in the protected resource metadata.
    pub authorization_servers: Vec<String>,
    /// An OAuth 2.1 resource server: tokens checked by a verifier (JWT, introspection, or your own),
    /// per-tool scopes, the identity handed to handlers (`Context::auth`). Takes precedence over
    /// `bearer_token`.
    pub auth: Option<super::ResourceServer>,
    /// CORS for browser clients (an explicit origin allow-list). `None`: no CORS headers.
    pub cors: Option<super::Cors>,
    /// Rate limits per client and per tool (429 with `Retry-After`). `None`: unlimited.
    pub rate_limits: Option<super::RateLimits>,
    /// Compress answers and SSE streams for clients that accept it. `None`: never.
    #[cfg(feature = "compression")]
    pub compression: Option<super::Compression>,
    /// Serve HTTP/2 beside HTTP/1.1 ([`serve_http`] only): h2c by prior knowledge, or by ALPN over TLS.
    pub http2: bool,
    /// Concurrent streams (requests, SSE streams included) one HTTP/2 connection may open.
    pub http2_max_streams: u32,
    /// Serve HTTPS with this certificate ([`serve_http`] only).
    #[cfg(feature = "tls")]
    pub tls: Option<super::TlsConfig>,
    /// What this instance shares with the other instances of its deployment (sessions, SSE event
    /// logs, a bus; see [`crate::scale`]), so that a load balancer may send any request anywhere.
    /// `None` (the default): everything stays in this process.
    pub shared: Option<crate::scale::SharedStores>,
    /// More routes [`serve_http`] serves beside the MCP endpoints (a health check, metrics), outside
    /// the MCP endpoints' admission, CORS and compression layers. A mounted router adds its own.
    pub extra_routes: Option<axum::Router>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            path: "/mcp".into(),
            response_mode: ResponseMode::Sse,
            stateful: true,
            session_idle_timeout: Some(Duration::from_secs(30 * 60)),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            keep_alive: Some(Duration::from_secs(15)),
            sse_retry: Some(Duration::from_secs(1)),
            replay_buffer: 256,
            legacy_sse: true,
            legacy_sse_path: "/sse".into(),
            legacy_messages_path: "/messages".into(),
            max_header_bytes: 64 * 1024,
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(30),
            bearer_token: None,
            authorization_servers: Vec::new(),
            auth: None,
            cors: None,
            rate_limits: None,
            #[cfg(feature = "compression")]
            compression: None,
            http2: true,
            http2_max_streams: 256,
            #[cfg(feature = "tls")]
            tls: None,
            shared: None,
            extra_routes: None,
        }
    }
}

impl HttpConfig {
    /// Answers POSTs with JSON bodies where possible ([`ResponseMode::Json`]).
    pub fn json_responses(mut self) -> Self {
        self.response_mode = ResponseMode::Json;
        self
    }
    /// Stateless mode: no sessions, every POST stands alone; GET and DELETE answer 405.
    pub fn stateless(mut self) -> Self {
        self.stateful = false;
        self
    }
    /// Requires `Authorization: Bearer <token>`.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }
    /// Whether [`serve_http`] serves HTTPS.
    pub(crate) fn is_https(&self) -> bool {
        #[cfg(feature = "tls")]
        return self.tls.is_some();
        #[cfg(not(feature = "tls"))]
        false
    }
}

pub(crate) struct Inner {
    pub(crate) server: Server,
    pub(crate) config: HttpConfig,
    sessions: RwLock<HashMap<String, Arc<HttpSession>>>,
    pub(crate) legacy: legacy::LegacySessions,
    /// Cancelled at shutdown: open SSE streams end, new sessions are refused.
    pub(crate) shutdown: CancellationToken,
    /// One byte budget for every session and every request body being read.
    pub(crate) budget: Arc<ByteBudget>,
    reaper: std::sync::Once,
    /// Tokens, scopes and rate limits (`admission.rs`).
    pub(crate) gate: super::admission::Gate,
    /// This instance's name on the shared bus.
    origin: String,
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
    /// [`StreamableHttpService::router`] or serve it with [`serve_http`].
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
                gate: super::admission::Gate::new(&config),
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
    fn listen_bus(&self, mut rx: tokio::sync::broadcast::Receiver<crate::scale::BusMessage>) {
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
    async fn announce(&self, event: crate::scale::BusEvent) {
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

    /// A router serving the endpoint at `config.path` and, unless disabled, the legacy endpoints.
    pub fn router(&self) -> Router {
        let c = &self.inner.config;
        let me = self.clone();
        let mut r = Router::new().route(
            &c.path,
            any(move |req: Request| async move { me.handle(req).await }),
        );
        if c.legacy_sse {
            let a = self.clone();
            let b = self.clone();
            r = r
                .route(
                    &c.legacy_sse_path,
                    get(move |req: Request| async move { legacy::get_sse(a, req).await }),
                )
                .route(
                    &c.legacy_messages_path,
                    post(move |req: Request| async move { legacy::post_message(b, req).await }),
                );
        }
        if self.inner.gate.auth.is_some() {
            let a = self.clone();
            let b = self.clone();
            let suffixed = format!("/.well-known/oauth-protected-resource{}", c.path);
            r = r
                .route(
                    "/.well-known/oauth-protected-resource",
                    get(move |req: Request| async move { a.resource_metadata(req) }),
                )
                .route(
                    &suffixed,
                    get(move |req: Request| async move { b.resource_metadata(req) }),
                );
        }
        super::layers::wrap(r, c)
    }

    /// RFC 9728: what this resource is and who issues tokens for it.
    fn resource_metadata(&self, mut req: Request) -> Response {
        super::layers::host_from_authority(&mut req);
        match self.resource_metadata_doc(req.headers()) {
            Some(doc) => json_response(doc.to_string().into_bytes()),
            None => plain(StatusCode::NOT_FOUND, "Not Found"),
        }
    }

    /// Who the request authenticated as, for handlers and request-state binding: the verified token's
    /// subject, else (a static bearer token, a verifier without subjects) a digest of the token (never
    /// the token itself). Called inside the dispatch of an admitted request.
    pub(crate) fn principal(&self, headers: &HeaderMap) -> Option<String> {
        use sha2::Digest;
        self.inner.gate.auth.as_ref()?;
        if let Some(sub) = crate::identity::current().and_then(|a| a.subject.clone()) {
            return Some(format!("sub:{sub}"));
        }
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())?;
        let d = sha2::Sha256::digest(token.as_bytes());
        Some(format!(
            "bearer:{}",
            d[..12]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ))
    }

    /// Handles one request to the Streamable HTTP endpoint, wherever it is mounted.
    pub async fn handle(&self, mut req: Request) -> Response {
        super::layers::host_from_authority(&mut req);
        if let Err(resp) = self.check_host(req.headers()) {
            return resp;
        }
        let auth = match self.admit_request(&mut req).await {
            Ok(auth) => auth,
            Err(resp) => return resp,
        };
        // Handlers dispatched below see the caller's identity and trace in their `Context`.
        let trace = crate::TraceContext::from_headers(req.headers());
        let dispatch = crate::identity::with_auth(auth, async move {
            match *req.method() {
                Method::POST => self.post(req).await,
                Method::GET => self.get(req).await,
                Method::DELETE => self.delete(req).await,
                _ => {
                    let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed");
                    r.headers_mut()
                        .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                    r
                }
            }
        });
        crate::TraceContext::with_transport(trace, dispatch).await
    }

    /// GET and DELETE have no meaning for 2026-07-28 (no GET stream, no sessions): 405 for a client that
    /// says it speaks it, or on an endpoint that speaks nothing else.
    fn modern_only_or_modern_client(&self, headers: &HeaderMap) -> bool {
        match self.inner.server.eras() {
            crate::server::Eras::ModernOnly => true,
            crate::server::Eras::LegacyOnly => false,
            crate::server::Eras::Both => super::modern::header_is_modern(headers),
        }
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

    async fn session(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Response> {
        let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
            return Err(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::new(-32000, "Bad Request: Mcp-Session-Id header is required"),
            ));
        };
        let not_found = || {
            rpc_error(
                StatusCode::NOT_FOUND,
                None,
                ErrorObject::new(-32001, "Session not found"),
            )
        };
        let local = self
            .inner
            .sessions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned();
        match local {
            Some(s) if !s.peer.is_closed() => {
                self.keep_shared_alive(&s);
                return Ok(s);
            }
            Some(_) => return Err(not_found()),
            None => {}
        }
        let Some(shared) = &self.inner.config.shared else {
            return Err(not_found());
        };
        if self.inner.shutdown.is_cancelled() {
            return Err(plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            ));
        }
        // Another instance began this session: take it over from the shared record.
        let record = match shared.sessions.get(id, shared.ttl).await {
            Ok(Some(r)) => r,
            Ok(None) => return Err(not_found()),
            Err(e) => return Err(store_unavailable(&e)),
        };
        if record.principal != self.principal(headers) {
            // Someone else's session looks like no session at all.
            return Err(not_found());
        }
        let fresh = self.new_session(record.principal.clone(), Some(&record));
        let s = self
            .inner
            .sessions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry(record.id.clone())
            .or_insert_with(|| fresh.clone())
            .clone();
        if !Arc::ptr_eq(&s, &fresh) {
            // A concurrent request restored it first.
            fresh.peer.close("restored twice".to_string());
        }
        tracing::debug!(session = %s.id, "session restored from the shared store");
        Ok(s)
    }

    /// Extends the shared record's life, off the request's path, at most every quarter of its TTL.
    fn keep_shared_alive(&self, s: &Arc<HttpSession>) {
        let Some(shared) = &self.inner.config.shared else {
            return;
        };
        let now = s.age_ms();
        let quarter = (shared.ttl.as_millis() as u64 / 4).max(1);
        let last = s.store_touched.load(std::sync::atomic::Ordering::Relaxed);
        if now.saturating_sub(last) < quarter
            || s.store_touched
                .compare_exchange(
                    last,
                    now,
                    std::sync::atomic::Ordering::Relaxed,
                    std::sync::atomic::Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let store = shared.sessions.clone();
        let (id, ttl) = (s.id.clone(), shared.ttl);
        tokio::spawn(async move {
            if let Err(e) = store.touch(&id, ttl).await {
                tracing::warn!(error = %e, session = %id, "shared session record not refreshed");
            }
        });
    }

    /// Writes the session's record to the shared store (after `initialize`, after a change).
    async fn save_shared(&self, s: &HttpSession) -> Result<(), crate::scale::StoreError> {
        let (Some(shared), Some(state)) = (&self.inner.config.shared, &s.state) else {
            return Ok(());
        };
        let Some(record) = state.record(&s.id) else {
            return Ok(());
        };
        shared.sessions.put(&record, shared.ttl).await
    }

    /// A new session (`restore`: one that began on another instance, as its record says).
    fn new_session(
        &self,
        principal: Option<String>,
        restore: Option<&crate::scale::SessionRecord>,
    ) -> Arc<HttpSession> {
        let id = match restore {
            Some(r) => r.id.clone(),
            None if self.inner.config.stateful => uuid::Uuid::new_v4().simple().to_string(),
            None => String::new(),
        };
        let (peer, rx) = crate::connection::Peer::with_budget(
            self.inner.server.connection_config().clone(),
            self.inner.budget.clone(),
        );
        let shared = self
            .inner
            .config
            .shared
            .as_ref()
            .filter(|_| self.inner.config.stateful);
        let s = match shared {
            Some(stores) => {
                // The session's requests to the client are counted per instance: the prefix keeps
                // their ids apart, since the answer may reach every instance that serves the session.
                peer.set_id_prefix(&format!("{}-", self.inner.origin));
                let (state, handler) = self
                    .inner
                    .server
                    .session_with_state(peer.clone(), principal);
                if let Some(r) = restore {
                    state.restore(r);
                }
                HttpSession::new(
                    id,
                    peer,
                    handler,
                    self.inner.config.replay_buffer,
                    Some((state, stores)),
                )
            }
            None => {
                let (state, handler) = self
                    .inner
                    .server
                    .session_with_state(peer.clone(), principal);
                if !self.inner.config.stateful {
                    // Each POST stands alone: no session a handler could keep state for.
                    state.set_one_request();
                }
                HttpSession::new(id, peer, handler, self.inner.config.replay_buffer, None)
            }
        };
        s.spawn_router(rx);
        s.touch();
        if self.inner.config.stateful {
            self.start_reaper();
        }
        s
    }

    fn start_reaper(&self) {
        let Some(limit) = self.inner.config.session_idle_timeout else {
            return;
        };
        self.inner.reaper.call_once(|| {
            let weak = Arc::downgrade(&self.inner);
            let every = (limit / 4).clamp(Duration::from_millis(10), Duration::from_secs(30));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(inner) = weak.upgrade() else { return };
                    if inner.shutdown.is_cancelled() {
                        return;
                    }
                    let expired: Vec<Arc<HttpSession>> = {
                        let mut map = inner.sessions.write().unwrap_or_else(|e| e.into_inner());
                        let ids: Vec<String> = map
                            .iter()
                            .filter(|(_, s)| {
                                s.peer.is_closed()
                                    || (s.busy.load(std::sync::atomic::Ordering::Relaxed) == 0
                                        && !s.has_live_get()
                                        && s.idle_for() > limit)
                            })
                            .map(|(k, _)| k.clone())
                            .collect();
                        ids.iter().filter_map(|k| map.remove(k)).collect()
                    };
                    for s in expired {
                        tracing::debug!(session = %s.id, "session expired");
                        if inner.config.shared.is_some() {
                            // Only this instance's copy: the session lives on in the shared store
                            // (until its own TTL), and so do its tasks.
                            s.peer.close("the session's local copy expired".to_string());
                            s.end_streams();
                        } else {
                            s.close("the session expired");
                        }
                    }
                }
            });
        });
    }

    async fn post(&self, req: Request) -> Response {
        let headers = req.headers().clone();
        if !accepts(&headers, "application/json") || !accepts(&headers, "text/event-stream") {
            return rpc_error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorObject::new(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream"),
            );
        }
        let ct = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !ct
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("application/json")
        {
            return rpc_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                ErrorObject::new(
                    -32000,
                    "Unsupported Media Type: Content-Type must be application/json",
                ),
            );
        }
        let caller = req.extensions().get::<super::admission::Caller>().cloned();
        // The body's bytes stay charged until its answer has been sent (see `held`).
        let (body, held) = match read_body(req, &self.inner.config, &self.inner.budget).await {
            Ok(b) => b,
            Err(BodyError::Slow) => {
                return rpc_error(
                    StatusCode::REQUEST_TIMEOUT,
                    None,
                    ErrorObject::new(-32000, "Request Timeout: the body took too long"),
                )
            }
            Err(BodyError::TooLarge) => {
                return rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    None,
                    ErrorObject::new(
                        -32000,
                        format!(
                            "Payload Too Large: the limit is {} bytes",
                            self.inner.config.max_body_bytes
                        ),
                    ),
                )
            }
        };
        let resp = self.post_message(headers, caller, &body).await;
        super::held::until_sent(resp, held, &self.inner.budget)
    }

    /// Answers one POSTed message (or batch).
    async fn post_message(
        &self,
        headers: HeaderMap,
        caller: Option<super::admission::Caller>,
        body: &Bytes,
    ) -> Response {
        let msg = framing::decode(body);
        let is_init =
            matches!(&msg, Incoming::Request { method, .. } if method == methods::INITIALIZE);
        // What changes the session's record: the other instances read it again.
        let sets_level = matches!(&msg, Incoming::Request { method, .. }
            if method == methods::LOGGING_SET_LEVEL
                || method == methods::RESOURCES_SUBSCRIBE
                || method == methods::RESOURCES_UNSUBSCRIBE);
        // What may concern a request another instance runs or sent.
        let for_others = self.inner.config.shared.is_some()
            && match &msg {
                Incoming::Response { .. } => true,
                Incoming::Notification { method, .. } => method == methods::CANCELLED,
                _ => false,
            };
        match &msg {
            Incoming::Invalid { id, error } => {
                return rpc_error(StatusCode::BAD_REQUEST, id.as_ref(), error.clone())
            }
            Incoming::Ignored => return StatusCode::ACCEPTED.into_response(),
            _ => {}
        }
        if let Err(r) = self.admit_message(caller.as_ref(), &headers, &msg) {
            return r;
        }
        let eras = self.inner.server.eras();
        if eras != crate::server::Eras::LegacyOnly
            && (eras == crate::server::Eras::ModernOnly || super::modern::is_modern(&headers, &msg))
        {
            return super::modern::post(self, &headers, msg).await;
        }
        if !self.inner.config.stateful {
            // Boxed: a stateless endpoint is the rarer setup, and this state would otherwise ride in
            // every POST's future (moved whole where the router boxes it).
            return Box::pin(self.post_stateless(&headers, msg, is_init)).await;
        }
        let session = if is_init && headers.get(SESSION_HEADER).is_none() {
            if self.inner.shutdown.is_cancelled() {
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the server is shutting down",
                );
            }
            let s = self.new_session(self.principal(&headers), None);
            if let Incoming::Request { params, .. } = &msg {
                s.set_version(requested_version(*params));
            }
            self.inner
                .sessions
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(s.id.clone(), s.clone());
            s
        } else {
            let s = match self.session(&headers).await {
                Ok(s) => s,
                Err(r) => return r,
            };
            if let Err(r) = check_version_header(&headers) {
                return r;
            }
            s
        };
        session.touch();
        let mut resp = self.answer(&session, msg).await;
        if is_init && resp.status().is_success() {
            // The other instances must find the session before the client can name it.
            if let Err(e) = self.save_shared(&session).await {
                self.inner
                    .sessions
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&session.id);
                session.close("the session could not be shared");
                return store_unavailable(&e);
            }
            if let Ok(v) = HeaderValue::from_str(&session.id) {
                resp.headers_mut().insert(SESSION_HEADER, v);
            }
        }
        if for_others {
            self.announce(crate::scale::BusEvent::ClientMessage {
                session: session.id.clone(),
                message: String::from_utf8_lossy(body).into_owned(),
            })
            .await;
        }
        if sets_level && self.inner.config.shared.is_some() {
            if let Err(e) = self.save_shared(&session).await {
                return store_unavailable(&e);
            }
            self.announce(crate::scale::BusEvent::SessionChanged {
                session: session.id.clone(),
            })
            .await;
        }
        resp
    }

    async fn post_stateless(
        &self,
        headers: &HeaderMap,
        msg: Incoming<'_>,
        is_init: bool,
    ) -> Response {
        if !is_init {
            if let Err(r) = check_version_header(headers) {
                return r;
            }
        }
        let session = self.new_session(self.principal(headers), None);
        if !is_init {
            // A stateless request stands alone: initialize a fresh session with the version the client sent.
            let version = headers
                .get(VERSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(ProtocolVersion::parse)
                .unwrap_or(ProtocolVersion::V2025_03_26);
            session.set_version(version);
            let init = format!(
                r#"{{"jsonrpc":"2.0","id":"mcp-runtime/stateless-init","method":"initialize","params":{{"protocolVersion":"{}","capabilities":{{}},"clientInfo":{{"name":"stateless","version":"0"}}}}}}"#,
                version.as_str()
            );
            session
                .peer
                .dispatch_line(init.as_bytes(), &session.handler)
                .await;
            session
                .peer
                .dispatch_line(
                    br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    &session.handler,
                )
                .await;
        }
        let resp = self.answer(&session, msg).await;
        if axum::body::HttpBody::size_hint(resp.body())
            .exact()
            .is_some()
        {
            // The answer is complete: nothing of this session can reach the client any more.
            session.close("stateless request done");
            return resp;
        }
        // The answer may still be streaming: close the session once its stream ends.
        let s = session.clone();
        let grace = self.inner.server.connection_config().drain_timeout;
        tokio::spawn(async move {
            s.peer.drain(grace).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            s.close("stateless request done");
        });
        resp
    }

    /// Dispatches a POSTed message (or batch) into the session and builds the HTTP answer.
    async fn answer(&self, session: &Arc<HttpSession>, msg: Incoming<'_>) -> Response {
        let handler: &Arc<dyn Handler> = &session.handler;
        match msg {
            Incoming::Request { id, method, params } => {
                let one = Incoming::Request {
                    id: id.clone(),
                    method,
                    params,
                };
                self.answer_requests(session, vec![id], vec![one], Vec::new())
                    .await
            }
            Incoming::Batch(items) => {
                if !handler.allows_batch() {
                    let e = ErrorObject::invalid_request(
                        "Invalid Request: batches are only allowed in protocol 2025-03-26",
                    );
                    return rpc_error(StatusCode::BAD_REQUEST, None, e);
                }
                let mut ids = Vec::new();
                let mut requests = Vec::new();
                let mut immediate = Vec::new();
                for item in items {
                    match framing::decode_str(item.get()) {
                        Incoming::Request { id, method, .. } if method == methods::INITIALIZE => {
                            immediate.push(frame::error(
                                Some(&id),
                                &ErrorObject::invalid_request(
                                    "Invalid Request: initialize must not be part of a batch",
                                ),
                            ))
                        }
                        Incoming::Request { id, method, params } => {
                            ids.push(id.clone());
                            requests.push(Incoming::Request { id, method, params });
                        }
                        Incoming::Invalid { id, error } => {
                            immediate.push(frame::error(id.as_ref(), &error))
                        }
                        Incoming::Batch(_) => immediate.push(frame::error(
                            None,
                            &ErrorObject::invalid_request("Invalid Request: nested batch"),
                        )),
                        other => session.peer.dispatch(other, handler).await,
                    }
                }
                if ids.is_empty() && immediate.is_empty() {
                    return StatusCode::ACCEPTED.into_response();
                }
                // Boxed: batches are rare (2025-03-26 only); see `post_message`.
                Box::pin(self.answer_requests(session, ids, requests, immediate)).await
            }
            other => {
                session.peer.dispatch(other, handler).await;
                StatusCode::ACCEPTED.into_response()
            }
        }
    }

    async fn answer_requests(
        &self,
        session: &Arc<HttpSession>,
        ids: Vec<RequestId>,
        requests: Vec<Incoming<'_>>,
        immediate: Vec<Vec<u8>>,
    ) -> Response {
        let batch = requests.len() != 1 || !immediate.is_empty();
        let duplicate = || {
            rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::invalid_request(
                    "Invalid Request: a request with this id is already in flight",
                ),
            )
        };
        let _busy = Busy::new(session);
        match self.inner.config.response_mode {
            ResponseMode::Json if ids.len() == 1 && immediate.is_empty() => {
                let Some((key, rx, json)) = session.open_json_or_stream(&ids[0]) else {
                    return duplicate();
                };
                for r in requests {
                    session.peer.dispatch(r, &session.handler).await;
                }
                match json.await {
                    Ok(frame) => json_response(frame),
                    Err(_) if session.peer.is_closed() => {
                        plain(StatusCode::NOT_FOUND, "the session ended")
                    }
                    Err(_) => {
                        // Progress, logs or a request to the client came first: answer with SSE.
                        let mut first = Vec::new();
                        if session.wants_priming() {
                            let retry = self.inner.config.sse_retry.map(|d| d.as_millis() as u64);
                            first.push(sse::priming_event(&HttpSession::priming_id(key), retry));
                        }
                        self.sse_response(first, Some(rx), Some(Busy::new(session)))
                    }
                }
            }
            ResponseMode::Json => {
                let mut rxs = Vec::with_capacity(ids.len());
                for id in &ids {
                    match session.wait_json(id.clone()) {
                        Some(rx) => rxs.push(rx),
                        None => {
                            for id in &ids[..rxs.len()] {
                                session.forget(id);
                            }
                            return duplicate();
                        }
                    }
                }
                for r in requests {
                    session.peer.dispatch(r, &session.handler).await;
                }
                let mut frames = immediate;
                for rx in rxs {
                    match rx.await {
                        Ok(f) => frames.push(f),
                        Err(_) => return plain(StatusCode::NOT_FOUND, "the session ended"),
                    }
                }
                let body = if batch {
                    join_batch(&frames)
                } else {
                    frames.pop().unwrap_or_default()
                };
                json_response(body)
            }
            ResponseMode::Sse => {
                let Some((key, rx)) = session.open_post_stream(&ids) else {
                    return duplicate();
                };
                let mut first = Vec::new();
                if session.wants_priming() {
                    let retry = self.inner.config.sse_retry.map(|d| d.as_millis() as u64);
                    first.push(sse::priming_event(&HttpSession::priming_id(key), retry));
                }
                for f in &immediate {
                    first.push(sse::message_event(None, f));
                }
                for r in requests {
                    session.peer.dispatch(r, &session.handler).await;
                }
                // A quick handler answers while the tasks ahead of us run: then the whole stream goes
                // out as one body (one write) instead of a head now and the events later.
                let mut rx = rx;
                for _ in 0..QUICK_ANSWER_YIELDS {
                    tokio::task::yield_now().await;
                    loop {
                        match rx.try_recv() {
                            Ok(ev) => first.push(ev),
                            Err(mpsc::error::TryRecvError::Empty) => break,
                            Err(mpsc::error::TryRecvError::Disconnected) => {
                                return sse_body(first.concat())
                            }
                        }
                    }
                }
                self.sse_response(first, Some(rx), Some(Busy::new(session)))
            }
        }
    }

    async fn get(&self, req: Request) -> Response {
        let headers = req.headers();
        if self.modern_only_or_modern_client(headers) {
            return super::modern::method_not_allowed();
        }
        if !self.inner.config.stateful {
            return plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method not allowed: this server is stateless",
            );
        }
        if !accepts(headers, "text/event-stream") {
            return rpc_error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorObject::new(
                    -32000,
                    "Not Acceptable: Client must accept text/event-stream",
                ),
            );
        }
        let session = match self.session(headers).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Err(r) = check_version_header(headers) {
            return r;
        }
        session.touch();
        let retry = self.inner.config.sse_retry.map(|d| d.as_millis() as u64);
        if let Some(last) = headers.get(LAST_EVENT_ID).and_then(|v| v.to_str().ok()) {
            if let Some(Attached { replay, live }) = session.resume(last) {
                return self.sse_response(replay, live, None);
            }
            if let (Some(shared), Some((key, seq))) = (
                &self.inner.config.shared,
                super::session::parse_event_id(last),
            ) {
                // A stream of another instance: its events after `last` from the shared log.
                let replay = match shared.events.after(&session.id, key, seq).await {
                    Ok(r) => r,
                    Err(e) => return store_unavailable(&e),
                };
                let mut last = seq;
                let first: Vec<Bytes> = replay
                    .events
                    .into_iter()
                    .map(|(n, b)| {
                        last = last.max(n);
                        Bytes::from(b)
                    })
                    .collect();
                if replay.finished {
                    return self.sse_response(first, None, None);
                }
                // Its instance goes on writing it (or died): follow the log.
                let tail = tail_log(shared.events.clone(), session.id.clone(), key, last);
                return self.sse_stream(first, tail, true);
            }
        }
        match session.open_get_stream() {
            Some((key, rx)) => {
                let mut first = Vec::new();
                if session.wants_priming() {
                    first.push(sse::priming_event(&HttpSession::priming_id(key), retry));
                }
                self.sse_response(first, Some(rx), None)
            }
            None => rpc_error(
                StatusCode::CONFLICT,
                None,
                ErrorObject::new(
                    -32000,
                    "Conflict: only one SSE stream is allowed per session",
                ),
            ),
        }
    }

    async fn delete(&self, req: Request) -> Response {
        if self.modern_only_or_modern_client(req.headers()) {
            return super::modern::method_not_allowed();
        }
        if !self.inner.config.stateful {
            return plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method not allowed: this server is stateless",
            );
        }
        let session = match self.session(req.headers()).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Err(r) = check_version_header(req.headers()) {
            return r;
        }
        if let Some(shared) = &self.inner.config.shared {
            if let Err(e) = shared.sessions.delete(&session.id).await {
                return store_unavailable(&e);
            }
            if let Err(e) = shared.events.delete_session(&session.id).await {
                tracing::warn!(error = %e, session = %session.id, "event logs of an ended session not deleted (they expire)");
            }
            self.announce(crate::scale::BusEvent::SessionEnded {
                session: session.id.clone(),
            })
            .await;
        }
        self.inner
            .sessions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&session.id);
        session.close("the client ended the session");
        StatusCode::OK.into_response()
    }

    /// An SSE answer: `first` events, then whatever arrives on `live`, with keep-alive comments, until the
    /// stream is finished, the client goes away, or the server shuts down.
    pub(crate) fn sse_response(
        &self,
        first: Vec<Bytes>,
        live: Option<mpsc::UnboundedReceiver<Bytes>>,
        busy: Option<Busy>,
    ) -> Response {
        // A POST stream runs until its answer, even during shutdown; other streams end at shutdown.
        let ends_at_shutdown = busy.is_none();
        let tail = futures_util::stream::unfold((live, busy), |(mut live, busy)| async move {
            let ev = live.as_mut()?.recv().await?;
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

/// How often a POST answered with SSE yields to the runtime for its handler to finish before it sends
/// the response head (see `answer_requests`).
const QUICK_ANSWER_YIELDS: usize = 3;

/// A complete SSE stream as one body.
fn sse_body(events: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(events));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// Counts a request as being answered, so that an idle reaper never ends a session mid-answer.
pub(crate) struct Busy(Arc<HttpSession>);

impl Busy {
    fn new(s: &Arc<HttpSession>) -> Self {
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

fn requested_version(params: Option<&RawValue>) -> ProtocolVersion {
    #[derive(serde::Deserialize)]
    struct P<'a> {
        #[serde(rename = "protocolVersion", borrow)]
        protocol_version: std::borrow::Cow<'a, str>,
    }
    params
        .and_then(|p| serde_json::from_str::<P>(p.get()).ok())
        .map(|p| ProtocolVersion::negotiate(&p.protocol_version))
        .unwrap_or(ProtocolVersion::LATEST_LEGACY)
}

/// `MCP-Protocol-Version`: absent means 2025-03-26; an unknown value is a 400.
fn check_version_header(headers: &HeaderMap) -> Result<(), Response> {
    match headers.get(VERSION_HEADER) {
        None => Ok(()),
        Some(v) => match v.to_str().ok().and_then(ProtocolVersion::parse) {
            Some(_) => Ok(()),
            None => Err(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::unsupported_version(
                    v.to_str().unwrap_or("?"),
                    ProtocolVersion::supported_strings(),
                ),
            )),
        },
    }
}

pub(crate) fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    // What clients send nearly always, settled without splitting.
    if let Some(v) = headers.get(header::ACCEPT) {
        if v.as_bytes() == b"application/json, text/event-stream"
            && (mime == "application/json" || mime == "text/event-stream")
        {
            return true;
        }
    }
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',').any(|part| {
                let t = part.split(';').next().unwrap_or("").trim();
                t.eq_ignore_ascii_case(mime)
                    || t == "*/*"
                    || (t.ends_with("/*") && mime.starts_with(&t[..t.len() - 1]))
            })
        })
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

fn join_batch(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frames.iter().map(Vec::len).sum::<usize>() + 2);
    out.push(b'[');
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(f.strip_suffix(b"\n").unwrap_or(f));
    }
    out.push(b']');
    out
}

pub(crate) fn json_response(body: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(crate) fn rpc_error(status: StatusCode, id: Option<&RequestId>, e: ErrorObject) -> Response {
    let mut r = json_response(frame::error(id, &e));
    *r.status_mut() = status;
    r
}

/// How often a stream resumed from another instance's log reads it again.
const TAIL_POLL: Duration = Duration::from_millis(100);
/// A resumed stream whose log stays still this long ends (the client resumes again if it wants).
const TAIL_IDLE: Duration = Duration::from_secs(120);

/// The events another instance writes to a stream's log after position `last`, as they come, until
/// the stream finishes, stays still for [`TAIL_IDLE`], or the store fails.
fn tail_log(
    store: Arc<dyn crate::scale::EventStore>,
    session: String,
    key: u64,
    last: u64,
) -> impl futures_util::Stream<Item = Bytes> + Send + 'static {
    struct Tail {
        store: Arc<dyn crate::scale::EventStore>,
        session: String,
        last: u64,
        queue: std::collections::VecDeque<Bytes>,
        since: std::time::Instant,
        done: bool,
    }
    let t = Tail {
        store,
        session,
        last,
        queue: Default::default(),
        since: std::time::Instant::now(),
        done: false,
    };
    futures_util::stream::unfold(t, move |mut t| async move {
        loop {
            if let Some(b) = t.queue.pop_front() {
                return Some((b, t));
            }
            if t.done || t.since.elapsed() > TAIL_IDLE {
                return None;
            }
            tokio::time::sleep(TAIL_POLL).await;
            match t.store.after(&t.session, key, t.last).await {
                Ok(r) => {
                    for (n, b) in r.events {
                        t.last = t.last.max(n);
                        t.queue.push_back(Bytes::from(b));
                    }
                    if !t.queue.is_empty() {
                        t.since = std::time::Instant::now();
                    }
                    t.done = r.finished;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "a resumed stream's log could not be read; ending it");
                    return None;
                }
            }
        }
    })
}

/// A shared store could not be reached: 503 with a JSON-RPC error (the client may retry).
fn store_unavailable(e: &crate::scale::StoreError) -> Response {
    tracing::warn!(error = %e, "shared store unavailable");
    rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        ErrorObject::internal(format!(
            "Internal error: shared session store unavailable: {e}"
        )),
    )
}

pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, text).into_response()
}

/// Serves `server` over Streamable HTTP (plus legacy HTTP+SSE) on `addr` until `shutdown` resolves; then
/// stops accepting, ends SSE streams, and gives in-flight calls the connection's drain timeout.
pub async fn serve_http(
    server: Server,
    addr: SocketAddr,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    serve_http_on(server, listener, config, shutdown).await
}

/// Like [`serve_http`] on a listener bound already (port 0 in tests).
///
/// Each connection is HTTP/1.1 or HTTP/2 (h2c by prior knowledge; by ALPN over TLS when
/// `config.tls` is set), with the configured head size limit and header-read (and keep-alive idle)
/// timeout. At shutdown the listener closes, kept-alive connections end after their current
/// response, SSE streams end, and in-flight calls get the connection's drain timeout to finish.
pub async fn serve_http_on(
    server: Server,
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    super::listen::serve(server, listener, config, shutdown).await
}

/// Bodies up to this size are read without waiting for the byte budget.
const SMALL_BODY: usize = 4 * 1024;

pub(crate) enum BodyError {
    TooLarge,
    Slow,
}

/// The whole body, within the size limit and the body timeout, with its bytes held on the server's budget
/// (taken before reading: when the budget is spent, bodies wait unread).
pub(crate) async fn read_body(
    req: Request,
    c: &HttpConfig,
    budget: &Arc<ByteBudget>,
) -> Result<(Bytes, Charge), BodyError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > c.max_body_bytes) {
        return Err(BodyError::TooLarge);
    }
    // A small body (a notification such as a cancellation, most requests) never waits: it must get
    // through to free the budget, and a connection costs more than its bytes anyway.
    let mut charge = match declared {
        Some(n) if n <= SMALL_BODY => budget.charge(n),
        n => budget.acquire(n.unwrap_or(c.max_body_bytes)).await,
    };
    match tokio::time::timeout(
        c.body_read_timeout,
        axum::body::to_bytes(req.into_body(), c.max_body_bytes),
    )
    .await
    {
        Ok(Ok(b)) => {
            charge.shrink_to(b.len());
            Ok((b, charge))
        }
        Ok(Err(_)) => Err(BodyError::TooLarge),
        Err(_) => Err(BodyError::Slow),
    }
}
