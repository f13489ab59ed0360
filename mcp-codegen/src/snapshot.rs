//! A snapshot: what one server offered one client, recorded so that generation needs no network.

use mcp_runtime::protocol::{Implementation, Tool};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The client capabilities a snapshot was recorded with. Servers list different tools for different clients.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredCapabilities {
    /// Recorded as a client that answers `roots/list`.
    #[serde(default)]
    pub roots: bool,
    /// Recorded as a client that answers `sampling/createMessage`.
    #[serde(default)]
    pub sampling: bool,
    /// Recorded as a client that answers `elicitation/create`.
    #[serde(default)]
    pub elicitation: bool,
}

impl DeclaredCapabilities {
    /// Parses `roots,sampling,elicitation` (any subset, any order; empty for none).
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut caps = DeclaredCapabilities::default();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "roots" => caps.roots = true,
                "sampling" => caps.sampling = true,
                "elicitation" => caps.elicitation = true,
                other => {
                    return Err(format!(
                        "unknown capability `{other}` (expected roots, sampling, elicitation)"
                    ))
                }
            }
        }
        Ok(caps)
    }
}

/// The server's tools as one client saw them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// `serverInfo` from `initialize`.
    pub server: Implementation,
    /// The protocol version the server agreed to.
    pub protocol_version: String,
    /// What the recording client declared.
    #[serde(default)]
    pub client_capabilities: DeclaredCapabilities,
    /// Every tool, in the order the server listed them.
    pub tools: Vec<Tool>,
}

/// A snapshot file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The file could not be read.
    #[error("could not read the snapshot {path}: {source}")]
    Io {
        /// The file's path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a snapshot's JSON; `reason` is serde's message.
    #[error("{path} is not a snapshot: {reason}")]
    Invalid {
        /// The file's path.
        path: String,
        /// serde's message, with the line and column.
        reason: String,
    },
}

impl Snapshot {
    /// Reads a snapshot written by [`Snapshot::to_json`] (or by hand: only `server`, `protocolVersion` and `tools`
    /// are required).
    pub fn load(path: &Path) -> Result<Self, SnapshotError> {
        let text = std::fs::read_to_string(path).map_err(|source| SnapshotError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_json(&text).map_err(|reason| SnapshotError::Invalid {
            path: path.display().to_string(),
            reason,
        })
    }

    /// A snapshot from its JSON text; `Err` is serde's message.
    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// Pretty JSON with a final newline; object keys sorted, so the same tools always give the same bytes.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a snapshot is always serializable");
        s.push('\n');
        s
    }
}
