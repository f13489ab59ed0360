//! mcp-runtime's integration tests, one binary: protocol round trips, server features, tasks, skills, the
//! 2026-07-28 server. One binary links once (it was 5).

mod modern_server;
mod protocol_roundtrip;
mod server_features;
mod skills;
mod tasks;
mod wire;
