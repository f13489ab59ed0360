//! `snapshot` and `generate` against a server that speaks only protocol 2026-07-28 (no `initialize`): the
//! Python SDK server of scripts/python_server_modern.py, from scripts/install-peers.sh. Without it the test
//! says so and passes, unless MCP_PEERS_REQUIRED=1 (as in CI).

use crate::support;

use serde_json::Value;

#[test]
fn snapshot_and_generate_from_a_2026_only_server() {
    let root = support::crate_dir().join("..");
    let python = root.join(".peers/py/bin/python");
    if !python.exists() {
        if std::env::var("MCP_PEERS_REQUIRED").as_deref() == Ok("1") {
            panic!("the Python SDK peer is missing: run scripts/install-peers.sh");
        }
        eprintln!("SKIPPED: the Python SDK peer is not installed");
        return;
    }
    let command = format!(
        "{} {} stdio",
        python.display(),
        root.join("scripts/python_server_modern.py").display()
    );
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("tools.json");
    let out = support::cli()
        .args(["snapshot", "--stdio", &command, "--timeout", "20", "-o"])
        .arg(&snapshot)
        .output()
        .expect("the CLI runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(&snapshot).unwrap()).unwrap();
    assert_eq!(recorded["protocolVersion"], "2026-07-28", "{recorded}");
    assert_eq!(
        recorded["server"]["name"], "python-modern-peer",
        "{recorded}"
    );
    let names: Vec<&str> = recorded["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"confirm_delete"), "{names:?}");

    let out = support::cli()
        .args(["generate", "--snapshot"])
        .arg(&snapshot)
        .output()
        .expect("the CLI runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let code = String::from_utf8_lossy(&out.stdout);
    assert!(
        code.contains("pub async fn confirm_delete") && code.contains("protocol 2026-07-28"),
        "{code}"
    );
}
