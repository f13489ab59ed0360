//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The CLI under test.
pub fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
}

/// The `bench-server` example binary (a `#[tool]` server), built or brought up to date by cargo.
pub fn bench_server() -> PathBuf {
    workspace_bin("bench-server")
}

pub use test_support::workspace_bin;

/// The command that starts `@modelcontextprotocol/server-everything` over stdio, when Node is installed.
pub fn server_everything_command() -> Option<String> {
    let node = Command::new("node").arg("--version").output().ok()?;
    if !node.status.success() {
        return None;
    }
    Some(format!(
        "npx -y @modelcontextprotocol/server-everything@{SERVER_EVERYTHING_VERSION} stdio"
    ))
}

/// The version the checked-in snapshots were recorded from.
pub const SERVER_EVERYTHING_VERSION: &str = "2026.8.31";

/// Writes a crate whose only dependency is `mcp-runtime` (no default features) with `lib` as its
/// `src/lib.rs`, and runs `cargo check --offline` on it; `Err` carries the compiler's messages. All such
/// crates share one target directory under `CARGO_TARGET_TMPDIR`, so the runtime is compiled once.
pub fn check_crate_with_only_the_runtime(name: &str, lib: &str) -> Result<(), String> {
    let workspace = crate_dir().parent().unwrap().to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nmcp-runtime = {{ path = {:?}, default-features = false }}\n\n[workspace]\n",
            workspace.join("mcp-runtime").display().to_string()
        ),
    )
    .unwrap();
    // The workspace's lock file pins the versions the runtime is tested with, and works offline.
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::create_dir(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bindings-fixture");
    let out = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--message-format=short"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}
