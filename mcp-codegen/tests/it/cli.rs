//! The CLI end to end: the full loop against the `bench-server` example, drift, audit, and every way a server
//! can fail (dead, hanging, answering garbage), each ending in a prompt non-zero exit that says what happened.

use crate::support;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

fn run(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = support::cli().args(args).output().expect("the CLI runs");
    (out, start.elapsed())
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn python() -> Option<String> {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 is not installed");
        return None;
    }
    Some(format!(
        "python3 {}",
        support::crate_dir()
            .join("tests/servers/scripted.py")
            .display()
    ))
}

/// The full loop, first half: the CLI's bindings for the example server are the checked-in ones that
/// `tests/compile.rs` compiles and calls.
#[test]
fn generate_from_the_example_server_gives_the_golden_bindings() {
    let server = support::bench_server();
    let (out, _) = run(&["generate", "--stdio", server.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let golden =
        std::fs::read_to_string(support::crate_dir().join("tests/outputs/bench-server.rs"))
            .unwrap();
    assert_eq!(stdout(&out), golden);
}

#[test]
fn snapshot_then_check_finds_no_drift_and_then_some() {
    let server = support::bench_server();
    let server = server.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("tools.json");
    let (out, _) = run(&["snapshot", "--stdio", server, "-o", snap.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let recorded = std::fs::read_to_string(&snap).unwrap();
    assert_eq!(
        recorded,
        std::fs::read_to_string(support::crate_dir().join("tests/snapshots/bench-server.json"))
            .unwrap()
    );

    let (out, _) = run(&[
        "check",
        "--snapshot",
        snap.to_str().unwrap(),
        "--stdio",
        server,
    ]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("up to date (3 tools)"),
        "{}",
        stdout(&out)
    );

    // Edit the snapshot as if the server had changed since.
    let edited = recorded
        .replace("\"Text to echo\"", "\"Words to echo\"")
        .replace("\"sleep\"", "\"nap\"");
    std::fs::write(&snap, edited).unwrap();
    let (out, _) = run(&[
        "check",
        "--snapshot",
        snap.to_str().unwrap(),
        "--stdio",
        server,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.contains("~ tool `echo` changed"), "{report}");
    assert!(
        report.contains("-        \"description\": \"Words to echo\","),
        "{report}"
    );
    assert!(
        report.contains("+        \"description\": \"Text to echo\","),
        "{report}"
    );
    assert!(
        report.contains("- tool `nap` is gone from the server"),
        "{report}"
    );
    assert!(
        report.contains("+ tool `sleep` is new on the server"),
        "{report}"
    );
}

#[test]
fn audit_reports_bytes_tokens_and_noise() {
    let snap = support::crate_dir().join("tests/snapshots/server-everything.json");
    let (out, _) = run(&["audit", "--snapshot", snap.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    let total = report.lines().last().unwrap();
    assert!(
        total.starts_with("total") && total.contains("13 tools"),
        "{report}"
    );
    // Every tool of server-everything carries a `$schema`.
    assert!(
        report.lines().filter(|l| l.contains(" $schema")).count() >= 13,
        "{report}"
    );
}

#[test]
fn a_dead_server_fails_within_a_second_and_says_why() {
    let (out, took) = run(&[
        "snapshot",
        "--stdio",
        "sh -c 'echo cannot-start >&2; exit 3'",
        "-o",
        "/dev/null",
    ]);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(1), "took {took:?}");
    let err = stderr(&out);
    assert!(
        err.contains("exited (exit status: 3)") && err.contains("cannot-start"),
        "{err}"
    );
}

#[test]
fn a_missing_program_is_named() {
    let (out, took) = run(&["generate", "--stdio", "/nonexistent/server --flag"]);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert!(
        stderr(&out).contains("could not start `/nonexistent/server`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_silent_server_fails_at_the_timeout() {
    let (out, took) = run(&[
        "snapshot",
        "--stdio",
        "sleep 30",
        "--timeout",
        "1",
        "-o",
        "/dev/null",
    ]);
    assert!(!out.status.success());
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "took {took:?}"
    );
    assert!(
        stderr(&out).contains("timed out after 1s"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_server_writing_noise_fails_at_the_timeout() {
    let (out, took) = run(&[
        "snapshot",
        "--stdio",
        "sh -c 'while :; do echo garbage; sleep 0.05; done'",
        "--timeout",
        "1",
        "-o",
        "/dev/null",
    ]);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(stderr(&out).contains("timed out"), "{}", stderr(&out));
}

#[test]
fn pages_are_followed_to_the_end() {
    let Some(server) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("t.json");
    let (out, _) = run(&[
        "snapshot",
        "--stdio",
        &format!("{server} pages"),
        "-o",
        snap.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = mcp_codegen::Snapshot::load(&snap).unwrap();
    let names: Vec<&str> = s.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["t0a", "t0b", "t1a", "t1b", "t2a", "t2b"]);
    assert_eq!(s.server.name, "scripted-pages");
}

#[test]
fn a_cursor_that_repeats_is_an_error() {
    let Some(server) = python() else { return };
    let (out, took) = run(&[
        "snapshot",
        "--stdio",
        &format!("{server} loop"),
        "-o",
        "/dev/null",
    ]);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(
        stderr(&out).contains("cursor it had already sent (\"same\")"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_tool_list_that_is_not_one_is_an_error() {
    let Some(server) = python() else { return };
    let (out, _) = run(&["generate", "--stdio", &format!("{server} garbage")]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("could not decode the result of tools/list"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_server_that_dies_after_initialize_is_reported() {
    let Some(server) = python() else { return };
    let (out, took) = run(&[
        "snapshot",
        "--stdio",
        &format!("{server} exit"),
        "-o",
        "/dev/null",
    ]);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(2), "took {took:?}");
    // The child exits as it answers `initialize`: whether `notifications/initialized` or `tools/list`
    // is the first message to find it gone depends on the scheduler, and either is reported as its exit.
    let err = stderr(&out);
    assert!(
        (err.contains("failed while listing its tools") || err.contains("could not connect"))
            && err.contains("the server process exited (exit status: 7)"),
        "{err}"
    );
}

#[test]
fn bad_snapshots_and_arguments_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"server": {"name": "x", "version": "1"}, "tools": []}"#,
    )
    .unwrap();
    for (args, expected) in [
        (
            vec!["generate", "--snapshot", "/nonexistent.json"],
            "could not read the snapshot /nonexistent.json",
        ),
        (
            vec!["generate", "--snapshot", bad.to_str().unwrap()],
            "missing field `protocolVersion`",
        ),
        (
            vec![
                "snapshot",
                "--stdio",
                "x",
                "--capabilities",
                "roots,telepathy",
                "-o",
                "-",
            ],
            "unknown capability `telepathy`",
        ),
        (
            vec!["snapshot", "--stdio", "'unterminated", "-o", "-"],
            "unterminated quote",
        ),
        (
            vec!["snapshot", "--stdio", "x", "--timeout", "0", "-o", "-"],
            "--timeout must be a positive",
        ),
    ] {
        let (out, _) = run(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr(&out).contains(expected),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn generate_writes_a_file_and_reports_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("b.rs");
    let snap = support::crate_dir().join("tests/snapshots/edge-cases.json");
    let (out, _) = run(&[
        "generate",
        "--snapshot",
        snap.to_str().unwrap(),
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        std::fs::read_to_string(support::crate_dir().join("tests/outputs/edge-cases.rs")).unwrap()
    );
    assert!(
        stderr(&out).contains(
            "warning: tool `broken` at /inputSchema/properties/not_only: typify panicked"
        ),
        "{}",
        stderr(&out)
    );
    assert!(Path::new(&out_file).exists());
}
