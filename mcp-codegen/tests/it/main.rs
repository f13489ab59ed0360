//! mcp-codegen's integration tests, one binary: the CLI, golden outputs that compile and call real servers,
//! live codegen over HTTP in both eras, the OpenAPI bridge. One binary links once (it was 8).

mod cli;
mod compile;
mod golden;
mod live_http;
mod live_modern;
mod only_runtime;
mod openapi_bridge;
mod openapi_specs;
mod sessions;
mod support;
