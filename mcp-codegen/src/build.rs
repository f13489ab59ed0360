//! The entry point for build scripts: bindings from a checked-in snapshot, written into `OUT_DIR`.
//!
//! ```no_run
//! // build.rs
//! mcp_codegen::build::Bindings::from_snapshot("tools.json").write().unwrap();
//! // src/lib.rs:
//! // mod tools { include!(concat!(env!("OUT_DIR"), "/tools.rs")); }
//! ```
//!
//! The build never touches the network: it reads the snapshot file and nothing else. Refreshing the snapshot
//! from a live server happens only when asked, with [`Bindings::refresh_from`] *and* the environment variable
//! `MCP_CODEGEN_REFRESH=1` set for that build.

use crate::live::{record, Recording, Source};
use crate::{generate, Options, Snapshot};
use std::path::{Path, PathBuf};

/// The environment variable that allows a build to contact the server.
pub const REFRESH_VAR: &str = "MCP_CODEGEN_REFRESH";

/// Bindings to generate in a build script.
#[derive(Debug, Clone)]
pub struct Bindings {
    snapshot: PathBuf,
    file_name: Option<String>,
    client_name: Option<String>,
    refresh: Option<(Source, Recording)>,
}

/// Why a build script's bindings could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A variable Cargo sets for build scripts (`OUT_DIR`, `CARGO_MANIFEST_DIR`) is missing.
    #[error("{0} is not set: call this from a build script")]
    Env(&'static str),
    /// The snapshot could not be read.
    #[error(transparent)]
    Snapshot(#[from] crate::snapshot::SnapshotError),
    /// The generated file could not be written.
    #[error("could not write {path}: {source}")]
    Write {
        /// The file's path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The snapshot was to be refreshed from the live server, and that failed; the text says why.
    #[error("refreshing the snapshot failed: {0}")]
    Refresh(String),
}

impl Bindings {
    /// A snapshot file, relative to the package's root (`CARGO_MANIFEST_DIR`).
    pub fn from_snapshot(path: impl Into<PathBuf>) -> Self {
        Bindings {
            snapshot: path.into(),
            file_name: None,
            client_name: None,
            refresh: None,
        }
    }

    /// The name of the file in `OUT_DIR` (default: the snapshot's stem with `.rs`).
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    /// The name of the client type (default `Client`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// Re-records the snapshot from this server before generating, in builds run with
    /// `MCP_CODEGEN_REFRESH=1`. Other builds ignore it.
    pub fn refresh_from(mut self, source: Source, recording: Recording) -> Self {
        self.refresh = Some((source, recording));
        self
    }

    /// Generates into `OUT_DIR`, prints `cargo:rerun-if-changed` for the snapshot and a `cargo:warning` for each
    /// schema that became `serde_json::Value`. Returns the path written.
    pub fn write(self) -> Result<PathBuf, BuildError> {
        let out_dir = std::env::var_os("OUT_DIR").ok_or(BuildError::Env("OUT_DIR"))?;
        let root = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_default();
        let snapshot_path = root.join(&self.snapshot);
        println!("cargo:rerun-if-changed={}", snapshot_path.display());
        println!("cargo:rerun-if-env-changed={REFRESH_VAR}");
        if let Some((source, recording)) = &self.refresh {
            if std::env::var(REFRESH_VAR).is_ok_and(|v| v == "1") {
                refresh(source, recording, &snapshot_path)?;
            }
        }
        let out = Path::new(&out_dir).join(
            self.file_name
                .clone()
                .unwrap_or_else(|| default_file_name(&self.snapshot)),
        );
        let warnings = self.write_to(&snapshot_path, &out)?;
        for w in warnings {
            println!("cargo:warning={}", w.to_string().replace('\n', " "));
        }
        Ok(out)
    }

    /// Generates from `snapshot` into `out` (no environment needed); returns the warnings.
    pub fn write_to(&self, snapshot: &Path, out: &Path) -> Result<Vec<crate::Warning>, BuildError> {
        let snapshot = Snapshot::load(snapshot)?;
        let mut options = Options::for_snapshot(&snapshot);
        if let Some(name) = &self.client_name {
            options.client_name = name.clone();
        }
        let generated = generate(&snapshot.tools, &options);
        // Unchanged bytes are not rewritten, so that nothing downstream rebuilds for nothing.
        if std::fs::read_to_string(out).ok().as_deref() != Some(generated.code.as_str()) {
            std::fs::write(out, &generated.code).map_err(|source| BuildError::Write {
                path: out.display().to_string(),
                source,
            })?;
        }
        Ok(generated.warnings)
    }
}

fn default_file_name(snapshot: &Path) -> String {
    let stem = snapshot
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tools".into());
    format!("{stem}.rs")
}

fn refresh(source: &Source, recording: &Recording, path: &Path) -> Result<(), BuildError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| BuildError::Refresh(e.to_string()))?;
    let snapshot = runtime
        .block_on(record(source, recording, |_| {}))
        .map_err(|e| BuildError::Refresh(e.to_string()))?;
    std::fs::write(path, snapshot.to_json()).map_err(|source| BuildError::Write {
        path: path.display().to_string(),
        source,
    })
}
