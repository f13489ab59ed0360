//! # mcp-codegen
//!
//! Typed Rust client bindings for an MCP server's tools, generated from what the server really lists.
//!
//! The pipeline, one file per stage: a [`Snapshot`] of a server's `tools/list` (recorded by [`live`]), a
//! [`normalize`] pass that rewrites each tool's schemas into what typify takes, [`typegen`] which calls typify
//! so that no panic escapes, and [`emit`] which writes one module per tool and a client. [`check`] and [`audit`]
//! read snapshots too; [`build`] is the entry point for build scripts. The CLI (`mcp-codegen`) is a thin face
//! over these.
//!
//! ```
//! use mcp_runtime::protocol::Tool;
//! let schema = serde_json::json!({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]});
//! let tools = vec![Tool::new("get-square", "Squares a number", schema.as_object().unwrap().clone())];
//! let generated = mcp_codegen::generate(&tools, &mcp_codegen::Options::default());
//! assert!(generated.code.contains("pub async fn get_square("));
//! assert!(generated.warnings.is_empty());
//! ```

#![warn(missing_docs)]

pub mod audit;
pub mod build;
pub mod check;
mod definition;
pub mod derives;
pub mod deserialize;
pub mod emit;
mod inline_names;
pub mod live;
pub mod names;
pub mod normalize;
pub mod openapi;
pub mod record;
pub mod recording;
pub mod replay;
mod serde_attrs;
pub mod snapshot;
pub mod string_enums;
pub mod typegen;
pub mod verify;

pub use snapshot::{DeclaredCapabilities, Snapshot};

use mcp_runtime::protocol::Tool;

/// Something the generator had to give up on: a schema that became `serde_json::Value`, a `$ref` that does
/// not resolve. `pointer` is a JSON pointer into the tool (`/inputSchema/properties/x`). The same type as the
/// OpenAPI mapping's, so that both kinds of warning print alike.
pub use mcp_openapi::Warning;

/// What to generate.
#[derive(Debug, Clone)]
pub struct Options {
    /// The name of the client type (default `Client`).
    pub client_name: String,
    /// Who the tools came from, for the header and the client's doc comment.
    pub server_label: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            client_name: "Client".into(),
            server_label: "a tool list".into(),
        }
    }
}

impl Options {
    /// Options naming the snapshot's server.
    pub fn for_snapshot(snapshot: &Snapshot) -> Self {
        Options {
            server_label: format!(
                "{} {} (protocol {})",
                snapshot.server.name, snapshot.server.version, snapshot.protocol_version
            ),
            ..Options::default()
        }
    }
}

/// Generated bindings and what had to be given up on the way.
#[derive(Debug, Clone)]
pub struct Generated {
    /// A formatted Rust file; the same tools always give the same bytes.
    pub code: String,
    /// Everything that had to be given up on (a schema typed as `serde_json::Value`, a `$ref` that does not
    /// resolve), by tool and JSON pointer.
    pub warnings: Vec<Warning>,
}

/// Generates bindings for a list of tools. Never panics, whatever the schemas.
pub fn generate(tools: &[Tool], options: &Options) -> Generated {
    let mut warnings = Vec::new();
    let code = emit::bindings(tools, options, &mut warnings);
    Generated { code, warnings }
}
