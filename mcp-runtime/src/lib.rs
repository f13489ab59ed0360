//! # mcp-runtime
//!
//! A fast runtime for the Model Context Protocol: the typed protocol model, one message pump shared by
//! servers and clients, the lifecycle, every server and client feature, and the transports: stdio always,
//! Streamable HTTP and legacy HTTP+SSE with the `http` feature. One [`Server`] speaks the handshake era
//! (2024-11-05 to 2025-11-25) and the stateless 2026-07-28 at once, chosen per request; one [`Client`]
//! finds which era the server it talks to speaks.
//!
//! A tool is a function ([`tool`], from `mcp-macros`): its doc comments become the descriptions, its
//! signature the input and output schemas. This example serves one over an in-memory pipe and calls it:
//!
//! ```
//! use mcp_runtime::{tool, Client, JsonSchema, Server};
//! use serde::Serialize;
//!
//! /// A sum and how it was made.
//! #[derive(Serialize, JsonSchema)]
//! struct Sum {
//!     total: f64,
//!     /// The terms, in order
//!     terms: Vec<f64>,
//! }
//!
//! /// Adds numbers.
//! #[tool(read_only)]
//! fn add(
//!     /// The numbers to add
//!     terms: Vec<f64>,
//! ) -> Sum {
//!     Sum { total: terms.iter().sum(), terms }
//! }
//!
//! # #[mcp_runtime::tokio::main(crate = "mcp_runtime::tokio", flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder().name("calc").tool(add_tool()).build()?;
//! let (ours, theirs) = mcp_runtime::tokio::io::duplex(64 * 1024);
//! let (read, write) = mcp_runtime::tokio::io::split(theirs);
//! mcp_runtime::tokio::spawn(async move { server.serve(read, write).await });
//!
//! let (read, write) = mcp_runtime::tokio::io::split(ours);
//! let client = Client::builder().connect(read, write).await?;
//! let tools = client.list_all_tools().await?;
//! assert_eq!(tools[0].description.as_deref(), Some("Adds numbers."));
//! let result = client.call_tool("add", serde_json::json!({"terms": [1.5, 2.5]})).await?;
//! assert_eq!(result.structured_content, Some(serde_json::json!({"total": 4.0, "terms": [1.5, 2.5]})));
//! # Ok(())
//! # }
//! ```
//!
//! A real server serves stdio (`server.serve_stdio().await`) or HTTP (`http::serve_http`); a real client
//! spawns a server (`Client::builder().spawn(command)`) or connects to a URL (`connect_http`). Tools can
//! also be built by hand, with a schema and a closure:
//!
//! ```no_run
//! use mcp_runtime::{protocol::{CallToolResult, Tool}, server::{Arguments, ToolRoute}, Context, Server};
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> std::io::Result<()> {
//!     let schema = serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
//!     let echo = ToolRoute::new(
//!         Tool::new("echo", "Echo the text back", schema.as_object().unwrap().clone()),
//!         |args: Arguments, _ctx: Context| async move {
//!             #[derive(serde::Deserialize)]
//!             struct Echo { text: String }
//!             Ok(match args.parse::<Echo>() {
//!                 Ok(a) => CallToolResult::text(a.text),
//!                 Err(e) => CallToolResult::error(e.to_string()),
//!             })
//!         },
//!     );
//!     let server = Server::builder().name("echo").tool(echo).build().expect("valid server");
//!     server.serve_stdio().await
//! }
//! ```
//!
//! The layers, from bytes to services, are mapped in the repository's `ARCHITECTURE.md`: [`stdio`] and
//! [`framing`] (bytes and messages), [`connection`], [`cancel`] and [`budget`] (correlation, one pump),
//! [`server`] and [`client`] (the services), [`protocol`] (every message, typed) and [`schema`] (tool
//! schemas as the model sees them).
//!
//! ## Features
//!
//! The default is what a stdio server needs; the rest is opt-in, so a one-tool server compiles none of it.
//!
//! | feature | brings |
//! |---|---|
//! | `macros` (default) | `#[tool]`, `#[prompt]`, `#[resource]`, `#[tools]`, the `JsonSchema` derive |
//! | `skills` | serving skills (SEP-2640: `Skill`, `ServerBuilder::skills_dir`) and `Client::load_skill`, which read YAML front matter |
//! | `http` | Streamable HTTP and legacy HTTP+SSE, server and client |
//! | `oauth`, `compression`, `tls`, `redis` | OAuth resource server, compressed answers, HTTPS, shared stores (each implies `http`) |
//! | `testing` | `mcp_runtime::testing`, helpers for dev-dependencies |
//!
//! An item that needs a feature you did not enable fails to compile with a message naming the feature
//! (e.g. `Skill::new` without `skills`: "serving skills needs the `skills` feature of mcp-runtime"). Logging
//! to stderr with `RUST_LOG` filters is `tracing-subscriber`'s (`fmt`, `env-filter`) in your own crate; the
//! runtime needs only its `Layer` trait ([`Server::logging_layer`]).

#![warn(missing_docs)]

pub mod budget;
mod bufpool;
pub mod cancel;
pub mod client;
pub mod codegen_support;
pub mod connection;
pub mod error;
pub mod framing;
mod future;
#[cfg(feature = "http")]
pub mod http;
pub mod identity;
pub mod protocol;
pub mod scale;
pub mod schema;
pub mod server;
mod sha256;
pub mod stdio;
#[cfg(feature = "testing")]
pub mod testing;
pub mod trace_context;

pub use client::{
    CallOptions, Client, ClientBuilder, Era, EraCache, RestartPolicy, ServerNotification,
    StderrMode, Subscription, Supervisor, TaskStart,
};
pub use connection::{ConnectionConfig, Peer};
pub use error::Error;
pub use future::BoxFuture;
pub use identity::{AuthInfo, BearerToken};
pub use server::{Context, Server, ServerBuilder};
pub use trace_context::TraceContext;

/// `#[tool]`, `#[tools]`, `#[prompt]` and `#[resource]`: see [`mcp_macros`].
#[cfg(feature = "macros")]
pub use mcp_macros::{prompt, resource, tool, tools};

/// schemars, re-exported so that user code and generated code use the runtime's version. Its
/// `JsonSchema` derive is [`mcp_macros::JsonSchema`], which points schemars at this copy: a crate that
/// writes `#[derive(JsonSchema)]` needs no `schemars` dependency of its own.
pub mod schemars {
    pub use ::schemars::*;
    #[cfg(feature = "macros")]
    pub use mcp_macros::JsonSchema;
}
/// The `JsonSchema` trait and its derive (see [`schemars`](mod@schemars)).
pub use crate::schemars::JsonSchema;

/// Re-exported so that user code and generated code use the same versions as the runtime.
pub use serde;
pub use serde_json;
pub use tokio;
