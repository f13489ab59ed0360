//! OpenAPI specs to typed bindings and to a served MCP bridge. The mapping itself (spec → tools, the bridge)
//! is the `mcp-openapi` crate, re-exported here; this module adds what needs the code generator: bindings
//! with one module of shared component types ([`bindings`]), and the CLI's two subcommands ([`cli`]).

pub mod bindings;
pub mod cli;

pub use mcp_openapi::*;

use mcp_runtime::protocol::{Implementation, ProtocolVersion};

/// A snapshot of a conversion's tools, as `mcp-codegen snapshot` would record them from the bridge.
pub fn snapshot(conversion: &Conversion) -> crate::Snapshot {
    crate::Snapshot {
        server: Implementation::new(conversion.title.clone(), conversion.version.clone()),
        protocol_version: ProtocolVersion::LATEST_LEGACY.as_str().to_string(),
        client_capabilities: Default::default(),
        tools: conversion.tools(),
    }
}
