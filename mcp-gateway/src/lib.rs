//! One MCP endpoint in front of many MCP servers of any transport.
//!
//! The gateway reads the `mcpServers` configuration hosts already use ([`config`]), starts every upstream
//! through the runtime's client (stdio children in parallel, each within its own init timeout; HTTP
//! servers over Streamable HTTP with the legacy HTTP+SSE fallback), merges their tools under names that
//! always match `^[A-Za-z0-9_-]{1,64}$` ([`names`]), and serves them from one runtime `Server` over
//! stdio or Streamable HTTP, in every protocol era the runtime speaks. A call goes to the one upstream
//! that owns the tool ([`relay`]): progress comes back, a cancel goes through, errors keep their code
//! and data, and the upstream's sampling, elicitation and roots requests reach the downstream client.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = mcp_gateway::Config::load("gateway.json".as_ref())?;
//! let gateway = mcp_gateway::Gateway::start(config).await;
//! gateway.server().serve_stdio().await?;
//! # Ok(()) }
//! ```

pub mod auth;
pub mod authz;
pub mod breaker;
pub mod cache;
pub mod composite;
pub mod config;
pub mod credentials;
pub mod discovery;
pub mod gateway;
pub mod health;
pub mod hop;
mod link;
mod listing;
pub mod metrics;
pub mod names;
pub mod ndjson;
pub mod ops;
#[cfg(feature = "otel")]
pub mod otel;
mod ownership;
mod pool;
pub mod relay;
pub mod reload;
mod restart;
pub mod rich_text;
pub mod secrets;
pub mod sessions;
pub mod template;
pub mod upstream;
mod upstream_errors;
pub mod users;

pub use config::{Config, ConfigError};
pub use gateway::Gateway;
pub use health::{SessionsStatus, UpstreamStatus, UsersStatus};
pub use reload::{ReloadReport, WatchOptions};
