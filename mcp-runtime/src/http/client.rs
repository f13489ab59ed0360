//! The Streamable HTTP client transport, with the spec's fallback to the legacy HTTP+SSE transport.
//!
//! Every frame the pump emits is POSTed; a JSON answer is dispatched whole, an SSE answer event by event.
//! Each frame finds its era in its own `_meta` (see [`super::client_headers`]):
//!
//! - 2026-07-28: the POST stands alone, its headers mirror its body (`MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name`, `Mcp-Param-{Name}`); no session, no GET stream, no resumption. A JSON-RPC
//!   error in a `4xx` body reaches the caller as is (how a modern server is told from a legacy one).
//!   Cancelling the request (`notifications/cancelled` from the pump) closes its response stream instead
//!   of being sent.
//! - Handshake era: a POST stream that ends before its response is resumed with GET and `Last-Event-ID`
//!   after the server's `retry`. After `initialized`, a standalone GET stream carries server-initiated
//!   messages and reconnects the same way. A 404 on a known session re-initializes once and retries.

mod fallback;
mod get_stream;

use super::auth::{Challenge, OAuth, OAuthConfig};
use super::client_headers::{outbound, Outbound};
use super::headers::{SESSION_HEADER, VERSION_HEADER};
use super::sse::SseParser;
use crate::client::{Client, ClientBuilder, ToolHeaders, TransportInfo};
use crate::connection::{Handler, OutKind, Outgoing, Peer};
use crate::error::Error;
use crate::framing::{self, frame, Incoming};
use crate::protocol::{methods, ErrorObject, RequestId};
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{StatusCode, Url};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Which transport to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpTransportKind {
    /// Streamable HTTP; if the server answers the `initialize` POST with 400, 404 or 405, the legacy
    /// HTTP+SSE transport (GET the URL, expect an `endpoint` event).
    #[default]
    Auto,
    /// Streamable HTTP only.
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05) only.
    LegacySse,
}

/// Settings of the HTTP client transport.
#[derive(Debug, Clone)]
pub struct HttpClientConfig {
    /// Which transport to speak (default: Streamable HTTP, falling back to the legacy one).
    pub transport: HttpTransportKind,
    /// Sent with every request (for example `Authorization: Bearer ...`).
    pub headers: Vec<(String, String)>,
    /// Open the standalone GET stream for server-initiated messages after initialization.
    pub open_get_stream: bool,
    /// The reconnection delay when the server sent no `retry`.
    pub default_retry: Duration,
    /// Consecutive failed reconnections before a stream is given up.
    pub max_reconnects: u32,
    /// A reqwest client to reuse (TLS settings, proxies, pools); one is built otherwise.
    pub http: Option<reqwest::Client>,
    /// Authorize with OAuth when the server answers 401 (or 403 `insufficient_scope`).
    pub oauth: Option<OAuthConfig>,
    /// Speak HTTP/2 without negotiation (h2c) to an `http://` server known to take it. Over `https://`
    /// HTTP/2 is used whenever the server offers it (ALPN), without this.
    pub http2_prior_knowledge: bool,
}

impl Default for HttpClientConfig {
    fn default() -> Self {
        HttpClientConfig {
            transport: HttpTransportKind::Auto,
            headers: Vec::new(),
            open_get_stream: true,
            default_retry: Duration::from_secs(1),
            max_reconnects: 5,
            http: None,
            oauth: None,
            http2_prior_knowledge: false,
        }
    }
}

impl HttpClientConfig {
    /// Adds `Authorization: Bearer <token>` to every request.
    pub fn bearer(mut self, token: impl AsRef<str>) -> Self {
        self.headers
            .push(("authorization".into(), format!("Bearer {}", token.as_ref())));
        self
    }
    /// Adds a header sent with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

impl ClientBuilder {
    /// Connects to an MCP server over HTTP (Streamable HTTP, or the legacy transport per
    /// [`HttpClientConfig::transport`]) and initializes.
    pub async fn connect_http(self, url: &str, config: HttpClientConfig) -> Result<Client, Error> {
        let parts = self.parts();
        let legacy = config.transport == HttpTransportKind::LegacySse;
        // The legacy HTTP+SSE transport has no modern mode: skip the probe.
        let builder = if legacy {
            self.era(crate::client::Era::Legacy)
        } else {
            self
        };
        let tool_headers = ToolHeaders::default();
        let conn = builder.config_ref().clone();
        let (peer, io, key) = start(
            url,
            config,
            conn,
            parts.handler.clone(),
            tool_headers.clone(),
        )
        .await?;
        let info = TransportInfo {
            tool_headers: Some(tool_headers),
            server_key: Some(key),
        };
        builder.finish(peer, parts, info, Some(io)).await
    }
}

/// A connection to an MCP server over HTTP with nothing of [`Client`] on top: every frame sent through
/// the returned [`Peer`] is POSTed as it is (the transport follows the session, the negotiated version
/// and the era from the frames themselves, as it does under a `Client`), and `handler` answers the
/// server's requests and takes its notifications. For relays and recorders that pass a client's
/// messages on unchanged, `initialize` included. The task drives the transport until the peer closes.
pub async fn connect_peer(
    url: &str,
    config: HttpClientConfig,
    connection: crate::connection::ConnectionConfig,
    handler: Arc<dyn Handler>,
) -> Result<(Peer, tokio::task::JoinHandle<()>), Error> {
    let (peer, io, _) = start(url, config, connection, handler, ToolHeaders::default()).await?;
    Ok((peer, io))
}

/// Builds the transport for `url` and starts its task: the peer, the task, and the server's key.
async fn start(
    url: &str,
    config: HttpClientConfig,
    connection: crate::connection::ConnectionConfig,
    handler: Arc<dyn Handler>,
    tool_headers: ToolHeaders,
) -> Result<(Peer, tokio::task::JoinHandle<()>, String), Error> {
    let url = Url::parse(url).map_err(|e| Error::Io(format!("invalid URL {url}: {e}")))?;
    let mut headers = HeaderMap::new();
    for (k, v) in &config.headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| Error::Io(format!("bad header name {k}: {e}")))?;
        let value = HeaderValue::from_str(v)
            .map_err(|e| Error::Io(format!("bad header value for {k}: {e}")))?;
        headers.insert(name, value);
    }
    let http = match &config.http {
        Some(c) => c.clone(),
        // With the `compression` feature reqwest asks for gzip, zstd and brotli and decodes them.
        None => {
            let b = reqwest::Client::builder().pool_max_idle_per_host(64);
            if config.http2_prior_knowledge {
                b.http2_prior_knowledge()
            } else {
                b
            }
        }
        .build()
        .map_err(|e| Error::Io(format!("cannot build the HTTP client: {e}")))?,
    };
    let oauth = match &config.oauth {
        Some(o) => Some(OAuth::new(o.clone(), http.clone()).map_err(Error::Io)?),
        None => None,
    };
    let (peer, rx) = Peer::new(connection);
    let legacy = config.transport == HttpTransportKind::LegacySse;
    let t = Arc::new(Transport {
        http,
        headers,
        config,
        oauth,
        peer: peer.clone(),
        handler,
        tool_headers,
        in_flight: Mutex::new(HashMap::new()),
        state: Mutex::new(State {
            session: None,
            version: None,
            init_frame: None,
            legacy_endpoint: None,
        }),
        get_started: AtomicBool::new(false),
        url,
    });
    if legacy {
        t.open_legacy().await?;
    }
    let key = format!("http:{}", t.url);
    let io = tokio::spawn(t.run(rx));
    Ok((peer, io, key))
}

struct State {
    session: Option<String>,
    /// The negotiated version, sent as `MCP-Protocol-Version` after initialization.
    version: Option<String>,
    /// The `initialize` request, replayed when the server forgets the session (404).
    init_frame: Option<Vec<u8>>,
    /// Set in legacy mode: where messages are POSTed.
    legacy_endpoint: Option<Url>,
}

struct Transport {
    http: reqwest::Client,
    url: Url,
    headers: HeaderMap,
    config: HttpClientConfig,
    oauth: Option<OAuth>,
    peer: Peer,
    handler: Arc<dyn Handler>,
    /// The `x-mcp-header` arguments of the listed tools, filled in by the client.
    tool_headers: ToolHeaders,
    /// The 2026 requests being POSTed, cancelled by closing their response stream.
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    state: Mutex<State>,
    get_started: AtomicBool,
}

/// How a frame is POSTed.
#[derive(Clone, Copy)]
enum Post<'a> {
    /// 2026-07-28: these mirrored headers, nothing from a session.
    Modern(&'a HeaderMap),
    /// Handshake era: the session's headers, and the mirrored ones beside them.
    Legacy {
        is_init: bool,
        mirrored: &'a HeaderMap,
    },
}

/// What a POST came back with.
enum Posted {
    Done,
    /// The server does not know the session (404).
    SessionGone,
    /// Not Streamable HTTP (400/404/405 to `initialize`): try the legacy transport.
    NotStreamable,
    Failed(String),
}

impl Transport {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn run(self: Arc<Self>, mut rx: mpsc::Receiver<Outgoing>) {
        loop {
            let out = tokio::select! {
                o = rx.recv() => o,
                _ = self.peer.closed() => None,
            };
            let Some(out) = out else { break };
            if out.is_cancelled() || out.frame.is_empty() {
                continue;
            }
            let ob = match outbound(&out.frame, Some(&self.tool_headers)) {
                Ok(ob) => ob,
                Err(e) => {
                    // An argument that cannot go in its header: the caller gets the error, nothing is sent.
                    if let OutKind::Request(id) = &out.kind {
                        self.peer
                            .dispatch_line(&frame::error(Some(id), &e), &self.handler)
                            .await;
                    }
                    continue;
                }
            };
            if let Some(id) = &ob.cancels {
                let token = self
                    .in_flight
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(id);
                if let Some(token) = token {
                    // 2026-07-28 cancels by closing the request's response stream.
                    token.cancel();
                    continue;
                }
                if self.lock().init_frame.is_none() {
                    // No session: nothing to tell a stateless server.
                    continue;
                }
            }
            if ob.modern.is_some() {
                if let OutKind::Request(id) = &out.kind {
                    let token = CancellationToken::new();
                    self.in_flight
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(id.clone(), token.clone());
                    tokio::spawn(self.clone().send_modern(out, ob, token));
                    continue;
                }
            }
            let is_init =
                matches!(&out.kind, OutKind::Request(_)) && ob.method == methods::INITIALIZE;
            if is_init {
                self.lock().init_frame = Some(out.frame.clone());
                // Inline: the transport (and the legacy fallback) is decided by this answer.
                self.clone().send(out, ob, true).await;
            } else if matches!(out.kind, OutKind::Notification) && ob.method == methods::INITIALIZED
            {
                self.clone().send(out, ob, false).await;
                // Inline too: the GET stream is open before any later POST, so a server message sent
                // while answering the next request has somewhere to go.
                self.start_get_stream().await;
            } else if matches!(out.kind, OutKind::Request(_)) {
                tokio::spawn(self.clone().send(out, ob, false));
            } else {
                // Notifications and responses go in order.
                self.clone().send(out, ob, false).await;
            }
        }
        self.peer.close("the client closed the connection".into());
        self.handler.closed();
        let (session, legacy) = {
            let s = self.lock();
            (s.session.clone(), s.legacy_endpoint.is_some())
        };
        if let (Some(id), false) = (session, legacy) {
            let mut req = self
                .http
                .delete(self.url.clone())
                .headers(self.base_headers("DELETE", &self.url))
                .header(SESSION_HEADER, id);
            if let Some(v) = self.lock().version.clone() {
                req = req.header(VERSION_HEADER, v);
            }
            let _ = tokio::time::timeout(Duration::from_secs(2), req.send()).await;
        }
    }

    /// A 2026-07-28 request: one POST, cancelled by closing its stream.
    async fn send_modern(self: Arc<Self>, out: Outgoing, ob: Outbound, token: CancellationToken) {
        let Some(id) = (match &out.kind {
            OutKind::Request(id) => Some(id.clone()),
            _ => None,
        }) else {
            return;
        };
        let result = tokio::select! {
            r = self.post(&out.frame, Some(&id), Post::Modern(&ob.headers)) => Some(r),
            _ = token.cancelled() => None,
        };
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        let failure = match result {
            None => {
                tracing::debug!(%id, "request cancelled: its response stream is closed");
                return;
            }
            Some(Posted::Done) => return,
            Some(Posted::Failed(e)) => e,
            Some(_) => "the server refused the request".to_string(),
        };
        tracing::debug!(%failure, "HTTP request failed");
        let e = ErrorObject::new(-32000, format!("HTTP transport error: {failure}"));
        self.peer
            .dispatch_line(&frame::error(Some(&id), &e), &self.handler)
            .await;
    }

    async fn send(self: Arc<Self>, out: Outgoing, ob: Outbound, is_init: bool) {
        let request_id = match &out.kind {
            OutKind::Request(id) => Some(id.clone()),
            _ => None,
        };
        let how = Post::Legacy {
            is_init,
            mirrored: &ob.headers,
        };
        let mut result = self.post(&out.frame, request_id.as_ref(), how).await;
        if matches!(result, Posted::NotStreamable)
            && is_init
            && self.config.transport == HttpTransportKind::Auto
        {
            tracing::debug!(
                "the server does not speak Streamable HTTP; trying the legacy HTTP+SSE transport"
            );
            result = match self.open_legacy().await {
                Ok(()) => self.post(&out.frame, request_id.as_ref(), how).await,
                Err(e) => Posted::Failed(format!("neither Streamable HTTP nor HTTP+SSE: {e}")),
            };
        }
        if matches!(result, Posted::SessionGone) && !is_init {
            result = match self.reinitialize().await {
                Ok(()) => {
                    let how = Post::Legacy {
                        is_init: false,
                        mirrored: &ob.headers,
                    };
                    self.post(&out.frame, request_id.as_ref(), how).await
                }
                Err(e) => Posted::Failed(e),
            };
        }
        let failure = match result {
            Posted::Done => return,
            Posted::SessionGone => "the server ended the session (404)".to_string(),
            Posted::NotStreamable => "the server refused the request".to_string(),
            Posted::Failed(e) => e,
        };
        tracing::debug!(%failure, "HTTP request failed");
        if let Some(id) = request_id {
            // The caller is waiting: answer it with the transport error.
            let e = ErrorObject::new(-32000, format!("HTTP transport error: {failure}"));
            self.peer
                .dispatch_line(&frame::error(Some(&id), &e), &self.handler)
                .await;
        }
    }

    /// The configured headers, with the OAuth token once there is one (and its DPoP proof for this
    /// method and URL when it is sender-constrained).
    fn base_headers(&self, method: &str, url: &Url) -> HeaderMap {
        let mut h = self.headers.clone();
        if let Some(oauth) = &self.oauth {
            h.extend(oauth.request_headers(method, url));
        }
        h
    }

    fn post_headers(&self, how: Post<'_>) -> HeaderMap {
        let mut h = self.base_headers("POST", &self.url);
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let is_init = match how {
            Post::Modern(mirrored) => {
                h.extend(mirrored.iter().map(|(k, v)| (k.clone(), v.clone())));
                return h;
            }
            Post::Legacy { is_init, mirrored } => {
                h.extend(mirrored.iter().map(|(k, v)| (k.clone(), v.clone())));
                is_init
            }
        };
        let s = self.lock();
        if let Some(id) = s
            .session
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            h.insert(SESSION_HEADER, id);
        }
        if !is_init {
            if let Some(v) = s
                .version
                .as_deref()
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                h.insert(VERSION_HEADER, v);
            }
        }
        h
    }

    async fn post(
        self: &Arc<Self>,
        body: &[u8],
        request_id: Option<&RequestId>,
        how: Post<'_>,
    ) -> Posted {
        let (is_init, modern) = match how {
            Post::Modern(_) => (false, true),
            Post::Legacy { is_init, .. } => (is_init, false),
        };
        let legacy = self.lock().legacy_endpoint.clone();
        if let Some(endpoint) = legacy {
            let mut h = self.base_headers("POST", &endpoint);
            h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            return match self
                .http
                .post(endpoint)
                .headers(h)
                .body(body.to_vec())
                .send()
                .await
            {
                Ok(r) if r.status().is_success() => Posted::Done,
                Ok(r) => Posted::Failed(format!("HTTP {}", r.status())),
                Err(e) => Posted::Failed(e.to_string()),
            };
        }
        let had_session = self.lock().session.is_some();
        let mut attempts = 0;
        let resp = loop {
            let used = self.oauth.as_ref().and_then(OAuth::token);
            let resp = match self
                .http
                .post(self.url.clone())
                .headers(self.post_headers(how))
                .body(body.to_vec())
                .send()
                .await
            {
                Ok(r) => r,
                Err(e) => return Posted::Failed(e.to_string()),
            };
            let Some(oauth) = &self.oauth else { break resp };
            let challenge = Challenge::from_headers(resp.headers());
            let refused = resp.status() == StatusCode::UNAUTHORIZED
                || (resp.status() == StatusCode::FORBIDDEN && challenge.insufficient_scope());
            if !refused {
                oauth.observe(resp.headers());
                break resp;
            }
            if attempts >= oauth.max_attempts() {
                break resp;
            }
            attempts += 1;
            if let Err(e) = oauth
                .on_refusal(&self.url, resp.headers(), used.as_deref())
                .await
            {
                return Posted::Failed(format!("authorization failed: {e}"));
            }
        };
        let status = resp.status();
        if modern {
            return self.read_modern(resp, request_id).await;
        }
        if is_init {
            if let Some(id) = resp
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
            {
                self.lock().session = Some(id.to_string());
            }
        }
        if status == StatusCode::NOT_FOUND && had_session && !is_init {
            self.lock().session = None;
            return Posted::SessionGone;
        }
        if is_init
            && matches!(
                status,
                StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
            )
        {
            return Posted::NotStreamable;
        }
        if status == StatusCode::ACCEPTED {
            return Posted::Done;
        }
        if !status.is_success() {
            let text = resp.text().await.unwrap_or_default();
            return Posted::Failed(format!(
                "HTTP {status}: {}",
                text.chars().take(300).collect::<String>()
            ));
        }
        let ct = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if ct.starts_with("text/event-stream") {
            return self.read_post_stream(resp, request_id, is_init).await;
        }
        let bytes = match resp.bytes().await {
            Ok(b) => b,
            Err(e) => return Posted::Failed(e.to_string()),
        };
        if request_id.is_none() {
            // Some servers answer a notification with a body: nothing in it is for us.
            return Posted::Done;
        }
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            self.deliver(&bytes, is_init.then_some(request_id).flatten(), request_id)
                .await;
        }
        Posted::Done
    }

    /// The answer to a 2026 POST: a JSON body or an SSE stream that ends with the response (no resumption:
    /// a stream that breaks loses the request). A JSON-RPC error in a refusal's body is the answer too.
    async fn read_modern(
        self: &Arc<Self>,
        resp: reqwest::Response,
        request_id: Option<&RequestId>,
    ) -> Posted {
        let status = resp.status();
        let ct = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if status.is_success() && ct.starts_with("text/event-stream") {
            let mut parser = SseParser::new();
            let answered = self.pump_stream(resp, &mut parser, request_id, None).await;
            return if answered || request_id.is_none() || self.peer.is_closed() {
                Posted::Done
            } else {
                Posted::Failed(
                    "the server closed the response stream before answering (2026-07-28 streams cannot be resumed)"
                        .into(),
                )
            };
        }
        let bytes = match resp.bytes().await {
            Ok(b) => b,
            Err(e) => return Posted::Failed(e.to_string()),
        };
        if status == StatusCode::ACCEPTED || request_id.is_none() {
            return Posted::Done;
        }
        // A response to this request (a result, or an error of any status): the caller's answer.
        if let Incoming::Response { id, .. } = framing::decode(&bytes) {
            if Some(&id) == request_id {
                self.deliver(&bytes, None, None).await;
                return Posted::Done;
            }
        }
        Posted::Failed(format!(
            "HTTP {status}: {}",
            String::from_utf8_lossy(&bytes)
                .chars()
                .take(300)
                .collect::<String>()
        ))
    }

    /// Reads a POST's SSE answer; when it ends before the response, resumes it with GET + Last-Event-ID.
    async fn read_post_stream(
        self: &Arc<Self>,
        resp: reqwest::Response,
        request_id: Option<&RequestId>,
        is_init: bool,
    ) -> Posted {
        let init_id = if is_init { request_id } else { None };
        let mut parser = SseParser::new();
        let mut answered = self
            .pump_stream(resp, &mut parser, request_id, init_id)
            .await;
        let mut failures = 0;
        while !answered && request_id.is_some() && !self.peer.is_closed() {
            let Some(last) = parser.last_id.clone() else {
                return Posted::Failed(
                    "the SSE stream ended before the response (no event id to resume from)".into(),
                );
            };
            let wait = parser
                .last_retry
                .map(Duration::from_millis)
                .unwrap_or(self.config.default_retry);
            tokio::time::sleep(wait).await;
            match self.open_get(Some(&last)).await {
                Ok(Some(r)) => {
                    failures = 0;
                    answered = self.pump_stream(r, &mut parser, request_id, init_id).await;
                }
                Ok(None) => {
                    return Posted::Failed(
                        "the server does not allow resuming the stream (GET refused)".into(),
                    )
                }
                Err(e) => {
                    failures += 1;
                    if failures > self.config.max_reconnects {
                        return Posted::Failed(format!("resuming the SSE stream failed: {e}"));
                    }
                }
            }
        }
        Posted::Done
    }

    /// Dispatches a stream's events until it ends; `true` once the response to `request_id` was seen
    /// (the stream is then left as soon as the server closes it).
    async fn pump_stream(
        self: &Arc<Self>,
        resp: reqwest::Response,
        parser: &mut SseParser,
        request_id: Option<&RequestId>,
        init_id: Option<&RequestId>,
    ) -> bool {
        let mut answered = false;
        let mut body = resp.bytes_stream();
        loop {
            let chunk = tokio::select! {
                c = body.next() => c,
                _ = self.peer.closed() => None,
            };
            let Some(Ok(chunk)) = chunk else { break };
            for ev in parser.feed(&chunk) {
                if ev.event.as_deref().is_some_and(|e| e != "message") {
                    continue;
                }
                if let Some(id) = self.deliver(ev.data.as_bytes(), init_id, request_id).await {
                    if Some(&id) == request_id {
                        answered = true;
                    }
                }
            }
            if answered && request_id.is_some() {
                // The response came: the stream has nothing more for us.
                break;
            }
        }
        answered
    }

    /// Dispatches one JSON body (a message or an array of them). Returns the id of a response in it.
    /// `related`: the request whose POST answer carried it (the server's requests in it belong to that
    /// request; `None` on the GET and legacy streams).
    async fn deliver(
        &self,
        bytes: &[u8],
        init_id: Option<&RequestId>,
        related: Option<&RequestId>,
    ) -> Option<RequestId> {
        let msg = framing::decode(bytes);
        let mut seen = None;
        let items: Vec<Vec<u8>> = match &msg {
            Incoming::Batch(items) => items.iter().map(|i| i.get().as_bytes().to_vec()).collect(),
            _ => vec![bytes.to_vec()],
        };
        for item in items {
            let m = framing::decode(&item);
            match &m {
                Incoming::Response { id, result } => {
                    if Some(id) == init_id {
                        if let Ok(raw) = result {
                            self.note_version(raw.get());
                        }
                    }
                    seen = Some(id.clone());
                }
                Incoming::Invalid { error, .. } => {
                    tracing::debug!(%error, "invalid message from the server; ignored");
                    continue;
                }
                Incoming::Ignored => continue,
                _ => {}
            }
            self.peer.dispatch_related(m, related, &self.handler).await;
        }
        seen
    }

    fn note_version(&self, result: &str) {
        #[derive(serde::Deserialize)]
        struct R {
            #[serde(rename = "protocolVersion")]
            protocol_version: String,
        }
        if let Ok(r) = serde_json::from_str::<R>(result) {
            self.lock().version = Some(r.protocol_version);
        }
    }

    fn init_id(&self) -> Option<RequestId> {
        let s = self.lock();
        let f = s.init_frame.as_ref()?;
        match framing::decode(f) {
            Incoming::Request { id, .. } => Some(id),
            _ => None,
        }
    }
}
