//! How the HTTP server is configured: its paths, sessions, limits, security and the shared stores of a
//! deployment of several instances.

use std::time::Duration;

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
    /// The endpoint path of [`StreamableHttpService::router`](crate::http::StreamableHttpService::router) (default `/mcp`).
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
    /// Serve the 2024-11-05 transport too (`GET /sse`, `POST /messages`) from [`StreamableHttpService::router`](crate::http::StreamableHttpService::router).
    pub legacy_sse: bool,
    /// The legacy endpoints' paths.
    pub legacy_sse_path: String,
    /// The path of the legacy transport's POST endpoint (default `/messages`).
    pub legacy_messages_path: String,
    /// The longest accepted request head (request line and headers; 431 beyond). At least 8 KiB.
    pub max_header_bytes: usize,
    /// How long a connection may take to send a request head, and how long a kept-alive connection may
    /// sit idle between requests ([`serve_http`](crate::http::serve_http) only; a mounted router inherits the host server's).
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
    /// Serve HTTP/2 beside HTTP/1.1 ([`serve_http`](crate::http::serve_http) only): h2c by prior knowledge, or by ALPN over TLS.
    pub http2: bool,
    /// Concurrent streams (requests, SSE streams included) one HTTP/2 connection may open.
    pub http2_max_streams: u32,
    /// Serve HTTPS with this certificate ([`serve_http`](crate::http::serve_http) only).
    #[cfg(feature = "tls")]
    pub tls: Option<super::TlsConfig>,
    /// What this instance shares with the other instances of its deployment (sessions, SSE event
    /// logs, a bus; see [`crate::scale`]), so that a load balancer may send any request anywhere.
    /// `None` (the default): everything stays in this process.
    pub shared: Option<crate::scale::SharedStores>,
    /// More routes [`serve_http`](crate::http::serve_http) serves beside the MCP endpoints (a health check, metrics), outside
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
    /// Whether [`serve_http`](crate::http::serve_http) serves HTTPS.
    pub(crate) fn is_https(&self) -> bool {
        #[cfg(feature = "tls")]
        return self.tls.is_some();
        #[cfg(not(feature = "tls"))]
        false
    }
}
