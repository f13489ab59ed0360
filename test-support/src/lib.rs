//! What the tests of every crate in this workspace share: the real peers that
//! `scripts/install-peers.sh` and `scripts/install-openapi-specs.sh` put under `.peers` (required in CI,
//! skipped with a message elsewhere), the workspace's binaries that a test starts (built as
//! `cargo test --workspace` builds them), loopback ports, and child processes that never outlive their
//! test.

pub mod cli_help;

use serde_json::Value;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A binary of this workspace that the running test does not own (an example server, the codegen or
/// gateway CLI: cargo builds only the test's own package's binaries), built or found fresh by cargo once
/// per test process, into the running test's target directory and profile.
///
/// Cargo is asked for every binary of the workspace with `--examples`, which resolves the features that
/// `cargo test --workspace` resolves (the whole workspace's, dev-dependencies' included): under that run,
/// CI's, this finds everything fresh. A narrower set of packages (`-p examples`) resolves other features
/// and rebuilds about 200 crates: that cost CI three and a half minutes in each of two test binaries.
pub fn workspace_bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        // target/<profile>/deps/<test> -> target/<profile>
        let exe = std::env::current_exe().expect("the test's executable");
        let dir = exe
            .parent()
            .and_then(std::path::Path::parent)
            .expect("the test's target directory")
            .to_path_buf();
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .current_dir(workspace())
            .args(["build", "--quiet", "--workspace", "--bins", "--examples"])
            .arg("--target-dir")
            .arg(dir.parent().expect("the target root"));
        if dir.file_name().is_some_and(|n| n == "release") {
            cargo.arg("--release");
        }
        // Cargo runs a test with its package's variables set (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, ...).
        // Passed on, they would be the environment of the build scripts this cargo runs, and one that
        // watches such a variable (ring's watches `CARGO_MANIFEST_DIR`) would see it changed and rebuild,
        // with every crate above it: this cargo gets the environment `cargo test` itself had.
        for (key, _) in std::env::vars_os() {
            let var = key.to_string_lossy();
            if var.starts_with("CARGO_PKG_")
                || var.starts_with("CARGO_MANIFEST_")
                || matches!(
                    &*var,
                    "CARGO_CRATE_NAME"
                        | "CARGO_BIN_NAME"
                        | "CARGO_PRIMARY_PACKAGE"
                        | "CARGO_TARGET_TMPDIR"
                        | "OUT_DIR"
                )
            {
                cargo.env_remove(&key);
            }
        }
        let status = cargo.status().expect("cargo runs");
        assert!(status.success(), "building the workspace's binaries failed");
        dir
    });
    dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Where the install scripts put the peers: `<workspace>/.peers`.
pub fn peers_dir() -> PathBuf {
    workspace().join(".peers")
}

/// Whether a missing peer fails the test (`MCP_PEERS_REQUIRED=1`, as in `.ci/run`) instead of skipping it.
pub fn peers_required() -> bool {
    std::env::var("MCP_PEERS_REQUIRED").as_deref() == Ok("1")
}

/// A test cannot run without `what`: fails when peers are required, otherwise says it skipped. Always
/// `None`, so that a caller can `let Some(..) = .. else { return }`.
pub fn missing<T>(what: &str, script: &str) -> Option<T> {
    let hint = format!("{what} is not installed (run {script})");
    assert!(!peers_required(), "{hint}; MCP_PEERS_REQUIRED=1");
    eprintln!("SKIPPED: {hint}");
    None
}

/// The peers directory when every one of `paths` (relative to it) exists; otherwise [`missing`].
pub fn peers_with(paths: &[&str]) -> Option<PathBuf> {
    let dir = peers_dir();
    match paths.iter().find(|p| !dir.join(p).exists()) {
        None => Some(dir),
        Some(p) => missing(&format!(".peers/{p}"), "scripts/install-peers.sh"),
    }
}

/// One peer, by its path relative to `.peers`, or [`missing`].
pub fn peer(path: &str) -> Option<PathBuf> {
    peers_with(&[path]).map(|d| d.join(path))
}

/// The Python SDK's interpreter (PyPI `mcp`).
pub fn python() -> Option<PathBuf> {
    peer("py/bin/python")
}

/// The npm `@modelcontextprotocol/server-everything`.
pub fn server_everything() -> Option<PathBuf> {
    peer("node/node_modules/.bin/mcp-server-everything")
}

/// A loopback port free right now (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Waits until something accepts connections on the loopback `port`; fails the test after `limit`.
pub fn wait_listening(port: u16, what: &str, limit: Duration) {
    let deadline = Instant::now() + limit;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} never listened on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child process killed and reaped when dropped, so that a failing test leaves nothing running.
pub struct Spawned(pub Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cmd` with `PORT` set (its stdout and stderr discarded) and waits up to 30 s until it listens.
pub fn spawn_listening(cmd: &mut Command, port: u16) -> Spawned {
    let child = Spawned(
        cmd.env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}")),
    );
    wait_listening(port, &format!("{cmd:?}"), Duration::from_secs(30));
    child
}

/// Runs `cmd` to its end and returns its stdout; fails the test, with both outputs, unless it succeeded.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The JSON document that a peer prints after whatever banner it writes first.
pub fn json_after_banner(out: &str) -> Value {
    let start = out.find('{').unwrap_or_else(|| panic!("no JSON in {out}"));
    serde_json::from_str(&out[start..]).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_after_banner_skips_the_banner() {
        let v = json_after_banner("Starting...\n{\"a\": [1, {\"b\": 2}]}\n");
        assert_eq!(v["a"][1]["b"], 2);
    }

    #[test]
    fn a_free_port_is_free_and_listening_is_seen() {
        // A port is free when `free_port` returns it; another process (CI runs other jobs beside the
        // tests) may take it before it is bound again, which is that function's nature: of 20, one is free.
        let l = (0..20)
            .find_map(|_| TcpListener::bind(("127.0.0.1", free_port())).ok())
            .expect("one of 20 free ports still free when bound");
        let port = l.local_addr().expect("the listener's address").port();
        wait_listening(port, "the listener", Duration::from_secs(1));
        drop(l);
    }

    #[test]
    fn run_returns_stdout_and_fails_on_failure() {
        assert_eq!(run(Command::new("echo").arg("hi")), "hi\n");
        let failed = std::panic::catch_unwind(|| run(&mut Command::new("false")));
        assert!(failed.is_err());
    }
}
