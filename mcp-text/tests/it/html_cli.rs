//! The `mcp-text` binary: stdin to stdout, a file, errors naming the file and the place, usage.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the binary with `args`, `stdin` fed from a thread of its own (so that a large input and a large
/// output cannot wait on each other).
pub(crate) fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-text"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let feeder = std::thread::spawn(move || input.write_all(&stdin));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn converts_stdin_to_stdout() {
    let out = run(
        &["convert", "--from", "html", "--to", "adf"],
        b"<nav>x</nav><p>Hi <b>there</b></p>",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        json(&out),
        serde_json::json!({"type":"doc","version":1,"content":[{"type":"paragraph","content":[
            {"type":"text","text":"Hi "},{"type":"text","text":"there","marks":[{"type":"strong"}]}]}]})
    );
}

#[test]
fn converts_a_file_and_pretty_prints_adf() {
    let dir = std::env::temp_dir().join(format!("mcp-text-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("issue.json");
    std::fs::write(
        &file,
        r#"{"type":"doc","version":1,"content":[{"type":"rule"}]}"#,
    )
    .unwrap();
    let out = run(
        &[
            "convert",
            "--from=adf",
            "--to=adf",
            "--pretty",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(text.contains("\n  \"type\": \"doc\""), "{text}");
    assert_eq!(json(&out)["content"][0]["type"], "rule");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_file_is_named() {
    let out = run(
        &[
            "convert",
            "--from",
            "adf",
            "--to",
            "adf",
            "no-such-page.json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("mcp-text: no-such-page.json: "), "{err}");
}

#[test]
fn bad_json_names_the_file_and_the_place() {
    let dir = std::env::temp_dir().join(format!("mcp-text-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("page.json");
    std::fs::write(
        &file,
        "{\"type\": \"doc\",\n \"content\": [\n    {\"type\" \"paragraph\"}]}",
    )
    .unwrap();
    let out = run(
        &[
            "convert",
            "--from",
            "adf",
            "--to",
            "adf",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "mcp-text: {}: line 3, column 13: ",
            file.display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let out = run(&["convert", "--from", "adf", "--to", "adf"], b"{\"type\":");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("mcp-text: <stdin>: line 1, column 8: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn invalid_utf8_names_the_place() {
    let out = run(
        &["convert", "--from", "html", "--to", "adf"],
        b"<p>a</p>\n<p>\xc3\x28</p>",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "mcp-text: <stdin>: line 2, column 4: invalid UTF-8\n"
    );
}

#[test]
fn warnings_go_to_stderr_and_the_output_is_still_written() {
    let html = "<div>".repeat(600) + "deep";
    let out = run(
        &["convert", "--from", "html", "--to", "adf"],
        html.as_bytes(),
    );
    assert!(out.status.success());
    assert!(
        stderr(&out).starts_with("mcp-text: <stdin>: warning: line 1: HTML nested deeper than 512"),
        "{}",
        stderr(&out)
    );
    assert_eq!(json(&out)["content"][0]["content"][0]["text"], "deep");
}

#[test]
fn help_shows_usage_and_examples() {
    for flag in ["--help", "-h"] {
        let out = run(&[flag], b"");
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("mcp-text convert --from FORMAT --to FORMAT"),
            "{text}"
        );
        assert!(text.contains("Examples:"), "{text}");
    }
}

#[test]
fn bad_usage_exits_2() {
    for args in [
        &[][..],
        &["transmogrify"],
        &["convert", "--to", "markdown"],
        &["convert", "--from", "adf"],
        &["convert", "--from", "docx", "--to", "markdown"],
        &["convert", "--from", "adf", "--to", "html"],
        &["convert", "--from", "adf", "--to", "markdown", "--pretty"],
        &[
            "convert", "--from", "adf", "--to", "adf", "a.json", "b.json",
        ],
        &["convert", "--from", "adf", "--to", "adf", "--frobnicate"],
    ] {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("mcp-text: "),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}
