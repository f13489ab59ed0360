//! Recorded sessions with real peers we did not write: the Python SDK and TypeScript SDK clients against
//! npm `server-everything` through `record` (stdio and Streamable HTTP), then against `replay` of the
//! recording (same results, progress included; the Python client over HTTP against `replay --http` too),
//! `verify` of it against the same server (exit 0) and another (exit 1, with a diff); a 2026-07-28
//! session with input rounds; and the bad input: a truncated or edited recording, a request never
//! recorded, a server that dies under `verify`.

use crate::support::{bench_server, cli, workspace_bin};
use mcp_codegen::recording::{Direction, Message, Session};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use test_support as peers;

fn codegen() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-codegen")
}

/// Runs a peer driver to its end and reads the JSON line it prints.
fn observations(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON line in {stdout}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// The Python SDK client of `scripts/NAME` against the server started by `server` (program and args).
fn python(script: &str, server: &[&str]) -> Option<Value> {
    let py = peers::python()?;
    let script = peers::workspace().join("scripts").join(script);
    Some(observations(Command::new(py).arg(script).args(server)))
}

/// The TypeScript SDK client of `scripts/ts_client_recorded.mjs`, run from beside the SDK (Node resolves
/// a module's imports from its own folder).
fn typescript(tag: &str, server: &[&str]) -> Option<Value> {
    let dir = peers::peers_with(&["node/node_modules/@modelcontextprotocol/client"])?.join("node");
    let script = dir.join(format!("ts_client_recorded-{tag}.mjs"));
    std::fs::copy(
        peers::workspace().join("scripts/ts_client_recorded.mjs"),
        &script,
    )
    .expect("copy the script next to the SDK");
    Some(observations(
        Command::new("node")
            .arg(&script)
            .args(server)
            .current_dir(&dir),
    ))
}

fn everything_stdio() -> Option<String> {
    let bin = peers::server_everything()?;
    Some(format!("{} stdio", bin.display()))
}

/// `record`'s command line, for a peer to start as its server.
fn recorder(file: &Path, target: &[&str]) -> Vec<String> {
    let mut args = vec![
        codegen().to_string(),
        "record".into(),
        "-o".into(),
        file.display().to_string(),
    ];
    args.extend(target.iter().map(|s| s.to_string()));
    args
}

/// `replay FILE --http` on a free port, and its endpoint's URL.
fn replay_http(file: &Path) -> (peers::Spawned, String) {
    let port = peers::free_port();
    let replay = peers::spawn_listening(
        Command::new(codegen())
            .arg("replay")
            .arg(file)
            .arg("--http")
            .arg(format!("127.0.0.1:{port}")),
        port,
    );
    (replay, format!("http://127.0.0.1:{port}/mcp"))
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn verify(file: &Path, target: &[&str]) -> std::process::Output {
    cli()
        .arg("verify")
        .arg(file)
        .args(target)
        .args(["--timeout", "20"])
        .output()
        .expect("the CLI runs")
}

fn methods(session: &Session, dir: Direction) -> Vec<String> {
    session
        .entries
        .iter()
        .filter(|e| e.dir == dir)
        .filter_map(|e| match &e.message {
            Message::Request { method, .. } | Message::Notification { method, .. } => {
                Some(method.clone())
            }
            _ => None,
        })
        .collect()
}

fn check_everything_session(v: &Value) {
    assert_eq!(v["echo"], "Echo: héllo", "{v}");
    assert_eq!(v["sum"], "The sum of 2 and 3 is 5.", "{v}");
    // Progress as (done, total); the Python SDK reads numbers as floats, and a client may stop listening
    // for a request's progress once its answer came.
    let progress = v["progress"].as_array().expect("progress");
    assert!(!progress.is_empty(), "{v}");
    for (i, p) in progress.iter().enumerate() {
        assert_eq!(
            (p[0].as_f64(), p[1].as_f64()),
            (Some(i as f64 + 1.0), Some(3.0)),
            "{v}"
        );
    }
    assert!(
        v["sampling"]
            .as_str()
            .is_some_and(|s| s.contains("Paris") || s.contains("Lisbon")),
        "{v}"
    );
    assert!(
        v["elicitation"]
            .as_str()
            .is_some_and(|s| s.contains("Ada") || s.contains("Grace")),
        "{v}"
    );
    assert!(v["tools"].as_array().is_some_and(|t| t.len() > 5), "{v}");
}

/// The (progress, total) pairs a driver observed.
fn progress_of(v: &Value) -> Vec<(f64, f64)> {
    v["progress"]
        .as_array()
        .unwrap_or_else(|| panic!("no progress in {v}"))
        .iter()
        .map(|p| {
            (
                p[0].as_f64().unwrap_or(f64::NAN),
                p[1].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect()
}

/// The (progress, total) pairs of the progress notifications in a recording.
fn recorded_progress(session: &Session) -> Vec<(f64, f64)> {
    session
        .entries
        .iter()
        .filter(|e| e.dir == Direction::ServerToClient)
        .filter_map(|e| match &e.message {
            Message::Notification { method, params } if method == "notifications/progress" => {
                let p = params.as_ref()?;
                Some((p["progress"].as_f64()?, p["total"].as_f64()?))
            }
            _ => None,
        })
        .collect()
}

fn check_verify_passes(out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "verify: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("answers as recorded"), "{stdout}");
}

fn check_verify_drifts(out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "verify: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A diff per request, under its line: the server's name differs in `initialize`.
    assert!(stdout.contains(":2: initialize"), "{stdout}");
    assert!(
        stdout.contains("--- recorded") && stdout.contains("+++ live"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-      \"name\": \"mcp-servers/everything\""),
        "{stdout}"
    );
}

#[test]
fn python_sdk_session_records_replays_and_verifies() {
    let Some(server) = everything_stdio() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("python.jsonl");
    let rec = recorder(&file, &["--stdio", &server]);
    let Some(live) = python("python_client_recorded.py", &strs(&rec)) else {
        return;
    };
    check_everything_session(&live);
    assert_eq!(live["cancelled"], true, "{live}");
    assert_eq!(live["after_cancel"], "Echo: still here", "{live}");

    // The recording holds the server's requests, its progress, and the client's cancellation.
    let session = Session::load(&file).unwrap();
    let from_server = methods(&session, Direction::ServerToClient);
    for m in [
        "sampling/createMessage",
        "elicitation/create",
        "notifications/progress",
    ] {
        assert!(
            from_server.iter().any(|x| x == m),
            "{m} not recorded: {from_server:?}"
        );
    }
    let from_client = methods(&session, Direction::ClientToServer);
    assert!(
        from_client.iter().any(|m| m == "notifications/cancelled"),
        "{from_client:?}"
    );

    // The same client against the replay: the same results.
    let replayed = python(
        "python_client_recorded.py",
        &[codegen(), "replay", &file.display().to_string()],
    )
    .unwrap();
    assert_eq!(replayed, live);

    check_verify_passes(&verify(&file, &["--stdio", &server]));
    check_verify_drifts(&verify(
        &file,
        &["--stdio", &bench_server().display().to_string()],
    ));
}

#[test]
fn typescript_sdk_session_records_replays_and_verifies() {
    let Some(server) = everything_stdio() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ts.jsonl");
    let rec = recorder(&file, &["--stdio", &server]);
    let Some(live) = typescript("stdio", &strs(&rec)) else {
        return;
    };
    check_everything_session(&live);
    let mut replayed = typescript(
        "replay",
        &[codegen(), "replay", &file.display().to_string()],
    )
    .unwrap();
    // The TypeScript client runs notification handlers a microtask after it reads them but settles a
    // response at once: live, a progress notification the server sends a millisecond before its answer
    // may arrive in the same chunk and be dropped. The replay sends the answer apart from them, so the
    // client sees every recorded progress notification, and live it saw the first of them.
    let recorded = recorded_progress(&Session::load(&file).unwrap());
    assert_eq!(recorded.len(), 3, "{recorded:?}");
    assert_eq!(progress_of(&replayed), recorded, "{replayed}");
    let seen = progress_of(&live);
    assert_eq!(seen[..], recorded[..seen.len()], "{live}");
    let mut live = live;
    live.as_object_mut().unwrap().remove("progress");
    replayed.as_object_mut().unwrap().remove("progress");
    assert_eq!(replayed, live);
    check_verify_passes(&verify(&file, &["--stdio", &server]));
    check_verify_drifts(&verify(
        &file,
        &["--stdio", &bench_server().display().to_string()],
    ));
}

#[test]
fn a_streamable_http_server_records_replays_and_verifies_with_its_token_redacted() {
    let Some(bin) = peers::server_everything() else {
        return;
    };
    let port = peers::free_port();
    let _server = peers::spawn_listening(Command::new(&bin).arg("streamableHttp"), port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("http.jsonl");
    // server-everything ignores the header; what matters is that its value is never written.
    let token = "Bearer s3cret-t0ken-for-recording";
    let header = format!("Authorization: {token}");
    let rec = recorder(&file, &["--url", &url, "--header", &header]);
    let Some(live) = python("python_client_recorded.py", &strs(&rec)) else {
        return;
    };
    check_everything_session(&live);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("s3cret-t0ken"), "the token was recorded");
    assert!(
        text.contains("header Authorization"),
        "{}",
        &text[..200.min(text.len())]
    );

    let replayed = python(
        "python_client_recorded.py",
        &[codegen(), "replay", &file.display().to_string()],
    )
    .unwrap();
    assert_eq!(replayed, live);

    // The same recording served over Streamable HTTP, to the same client over HTTP.
    let (_replay, replay_url) = replay_http(&file);
    let over_http = python("python_client_recorded.py", &[&replay_url]).unwrap();
    assert_eq!(over_http, live);
    check_verify_passes(&verify(&file, &["--url", &url]));
    check_verify_drifts(&verify(
        &file,
        &["--stdio", &bench_server().display().to_string()],
    ));
}

#[test]
fn a_2026_session_with_input_rounds_replays() {
    let server = workspace_bin("everything-server");
    let dir = tempfile::tempdir().unwrap();
    // The script opens two sessions (the second declares no sampling): one file each.
    let pattern = dir.path().join("modern-{n}.jsonl");
    let rec = recorder(&pattern, &["--stdio", &server.display().to_string()]);
    let mut args = vec!["stdio"];
    args.extend(strs(&rec));
    let Some(mut live) = python("python_client_modern.py", &args) else {
        return;
    };
    assert_eq!(live["protocol_version"], "2026-07-28", "{live}");
    assert!(
        live["multi_round"]
            .as_str()
            .is_some_and(|s| s.contains("Ada")),
        "{live}"
    );
    let file = dir.path().join("modern-1.jsonl");
    let session = Session::load(&file).unwrap();
    let rounds = session
        .entries
        .iter()
        .filter(|e| matches!(&e.message, Message::Response { outcome: Ok(r), .. } if r["resultType"] == "input_required"))
        .count();
    assert!(rounds >= 3, "{rounds} input rounds recorded");
    assert!(dir.path().join("modern-2.jsonl").exists());

    // The replay serves the first session; the second one (not in that file) is answered with errors
    // naming its requests.
    let mut replayed = python(
        "python_client_modern.py",
        &["stdio", codegen(), "replay", &file.display().to_string()],
    )
    .unwrap();
    assert_eq!(replayed["missing_capability"], -32602, "{replayed}");
    // The same recording over Streamable HTTP: each 2026-07-28 POST stands alone, on a connection of
    // its own, answered from the one recording.
    let (_replay, replay_url) = replay_http(&file);
    let over_http = python("python_client_modern.py", &["http-recorded", &replay_url]).unwrap();
    assert_eq!(over_http, replayed);
    for v in [&mut live, &mut replayed] {
        let m = v.as_object_mut().unwrap();
        m.remove("missing_capability");
        m.remove("required_capabilities");
    }
    assert_eq!(replayed, live);
    check_verify_passes(&verify(&file, &["--stdio", &server.display().to_string()]));
}

const HEADER: &str = r#"{"mcpRecording":1,"server":{"stdio":"hand-written"},"redacted":[]}"#;

fn hand_written(dir: &Path) -> PathBuf {
    let file = dir.join("hand.jsonl");
    let lines = [
        HEADER,
        r#"{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}"#,
        r#"{"dir":"s2c","ms":1,"msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"recorded","version":"1"}}}}"#,
        r#"{"dir":"c2s","ms":2,"msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
        r#"{"dir":"c2s","ms":3,"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}}"#,
        r#"{"dir":"s2c","ms":4,"msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Echo: hi"}]}}}"#,
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file
}

#[test]
fn a_replay_answers_an_unrecorded_request_with_an_error_naming_it_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let file = hand_written(dir.path());
    let mut child = peers::Spawned(
        cli()
            .arg("replay")
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut ask = |line: &str| -> Value {
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
    };
    let init = ask(
        r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"other","version":"9"}}}"#,
    );
    assert_eq!(init["id"], "a");
    assert_eq!(init["result"]["serverInfo"]["name"], "recorded");
    let missing = ask(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"never"}}}"#,
    );
    assert_eq!(missing["id"], 7);
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    let message = missing["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("tools/call") && message.contains("never") && message.contains("line"),
        "{message}"
    );
    let unknown = ask(r#"{"jsonrpc":"2.0","id":8,"method":"prompts/list"}"#);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // Still serving, under the live id.
    let echo = ask(
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
    );
    assert_eq!(echo["id"], 9);
    assert_eq!(echo["result"]["content"][0]["text"], "Echo: hi");
}

#[test]
fn a_truncated_or_edited_recording_is_refused_with_its_line_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    let file = hand_written(dir.path());
    let text = std::fs::read_to_string(&file).unwrap();
    let cases = [
        // Cut in the middle of the last message.
        (text[..text.len() - 30].to_string(), ":6:", "truncated"),
        // A response edited to answer a request nobody sent.
        (
            text.replace(r#""id":1,"result""#, r#""id":5,"result""#),
            ":6:",
            "no request of the client with that id",
        ),
        // A line that is not a recorded message.
        (
            text.replace(r#"{"dir":"c2s","ms":2,"#, r#"{"direction":"c2s","ms":2,"#),
            ":4:",
            "not a recorded message",
        ),
    ];
    for (content, line, problem) in cases {
        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, &content).unwrap();
        for command in ["replay", "verify"] {
            let mut cmd = cli();
            cmd.arg(command).arg(&bad);
            if command == "verify" {
                cmd.args(["--stdio", "true"]);
            }
            let out = cmd.stdin(Stdio::null()).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command}: {err}");
            assert!(
                err.contains(&format!("bad.jsonl{line}"))
                    && err.contains(problem)
                    && !err.contains("panicked"),
                "{command}: {err}"
            );
        }
    }
}

#[test]
fn verify_against_a_server_that_dies_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = hand_written(dir.path());
    let out = verify(&file, &["--stdio", "sh -c 'echo going away >&2; exit 7'"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("line 2: initialize")
            && err.contains("exit status: 7")
            && err.contains("going away"),
        "{err}"
    );
}
