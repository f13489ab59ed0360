//! The gateway's integration tests, one binary: real upstreams and downstreams, faults, sessions, operations,
//! the composite pipeline, scale-out behind nginx. One binary links once (it was 11).

/// The examples' local OAuth authorization server (oauth_as.py), shared.
#[path = "../../../examples/tests/it/http_support/auth_server.rs"]
#[allow(dead_code)] // not every binary that includes it rotates keys
mod auth_server;
mod common;
mod future_size;
mod gateway_audit;
mod gateway_authz;
mod gateway_cache;
mod gateway_cli;
mod gateway_downstream_peers;
mod gateway_examples;
mod gateway_faults;
mod gateway_ops;
#[cfg(feature = "otel")]
mod gateway_otlp;
mod gateway_peers;
mod gateway_pipeline;
mod gateway_reload;
mod gateway_scale;
mod gateway_sessions;
mod gateway_trace;
mod rich_text;
/// The examples' nginx and Redis cluster harness, shared.
#[path = "../../../examples/tests/it/scale_support/mod.rs"]
mod scale_support;
