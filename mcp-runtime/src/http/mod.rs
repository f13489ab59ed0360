//! HTTP transports (feature `http`): the Streamable HTTP server and client of 2025-03-26 to 2025-11-25,
//! and the deprecated HTTP+SSE transport of 2024-11-05 on both sides.
//!
//! Serving:
//!
//! ```no_run
//! # async fn demo(server: mcp_runtime::Server) -> std::io::Result<()> {
//! use mcp_runtime::http::{serve_http, HttpConfig};
//! let addr = "127.0.0.1:3000".parse().unwrap();
//! serve_http(server, addr, HttpConfig::default(), async { let _ = tokio::signal::ctrl_c().await; }).await
//! # }
//! ```
//!
//! Connecting:
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_runtime::Error> {
//! use mcp_runtime::{http::HttpClientConfig, Client};
//! let client = Client::builder().connect_http("http://127.0.0.1:3000/mcp", HttpClientConfig::default()).await?;
//! let tools = client.list_all_tools().await?;
//! # Ok(()) }
//! ```
//!
//! The transport drives the same message pump as stdio ([`crate::connection`]): frames the pump emits are
//! routed onto HTTP answers and SSE streams (server), or POSTed (client).

// A check's `Err` is the HTTP rejection itself, handed to axum as is; boxing it buys nothing.
#![allow(clippy::result_large_err)]

mod admission;
mod answers;
mod auth;
mod body;
mod client;
mod client_headers;
#[cfg(feature = "compression")]
mod compression;
mod config;
mod cors;
mod gate;
pub mod headers;
mod held;
#[cfg(feature = "oauth")]
mod introspection;
#[cfg(feature = "oauth")]
mod jwt;
mod layers;
mod legacy;
mod legacy_sessions;
mod listen;
mod modern;
mod post;
mod rate_limit;
mod resource_server;
mod server;
mod service;
mod session;
mod sessions;
pub mod sse;
#[cfg(feature = "tls")]
mod tls;

pub use auth::{Authorizer, Grant, OAuthConfig};
pub use client::{connect_peer, HttpClientConfig, HttpTransportKind};
#[cfg(feature = "compression")]
pub use compression::Compression;
pub use config::{HttpConfig, ResponseMode};
pub use cors::Cors;
#[cfg(feature = "oauth")]
pub use introspection::IntrospectionVerifier;
#[cfg(feature = "oauth")]
pub use jwt::JwtVerifier;
pub use listen::{serve_http, serve_http_on};
pub use rate_limit::{Quota, RateLimits};
pub use resource_server::{ResourceServer, StaticToken, TokenError, TokenVerifier};
pub use service::StreamableHttpService;
#[cfg(feature = "tls")]
pub use tls::TlsConfig;

use crate::connection::{OutKind, Outgoing};
use crate::server::Context;

/// HTTP-only abilities of a handler's [`Context`].
pub trait ContextHttpExt {
    /// Ends the HTTP connection of the SSE stream answering this request, without cancelling it: the
    /// client reconnects (after the priming event's `retry`) with `Last-Event-ID` and gets the rest,
    /// including the response (SSE polling, 2025-11-25). Does nothing on other transports.
    fn close_sse_stream(&self) -> impl std::future::Future<Output = ()> + Send;
}

impl ContextHttpExt for Context {
    async fn close_sse_stream(&self) {
        // An empty frame is a marker the HTTP router understands and byte-stream writers skip.
        let marker = Outgoing::new(
            Vec::new(),
            OutKind::Notification,
            Some(self.request_id().clone()),
        );
        let _ = self.session.peer.send(marker).await;
    }
}
