//! # mcp-runtime
//!
//! A fast runtime for the Model Context Protocol: the typed protocol model, one message pump shared by
//! servers and clients, the lifecycle, every server and client feature, and the stdio transport.
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

pub mod budget;
pub mod cancel;
pub mod client;
pub mod codegen_support;
pub mod connection;
pub mod error;
pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod identity;
pub mod protocol;
pub mod schema;
pub mod server;
pub mod stdio;

pub use client::{
    CallOptions, Client, ClientBuilder, Era, EraCache, RestartPolicy, ServerNotification,
    StderrMode, Subscription, Supervisor, TaskStart,
};
pub use connection::{ConnectionConfig, Peer};
pub use error::Error;
pub use identity::AuthInfo;
pub use server::{Context, Server, ServerBuilder};

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
