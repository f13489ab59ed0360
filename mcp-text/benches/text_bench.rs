//! mcp-text against its peers, side by side in one run on the same generated documents:
//! `cargo bench -p mcp-text --bench text_bench`.
//!
//! Four conversions (ADF → Markdown, Markdown → ADF, storage → Markdown, HTML → Markdown) on ~4 MB
//! real-shaped documents generated here, deterministically: our CLI as a whole process (spawned, wall time,
//! best of N, its peak RSS), our library in-process, npm `adf-to-md` in a node loop, PyPI `marklas` and
//! `markdownify` in a python loop, and the `htmd` crate in-process; `cat` through a pipe is the machine's
//! floor. For ADF → Markdown it also counts the mentions, statuses, dates, panels, expands, layouts, media
//! and extensions of the input whose text or marker each converter's output still has.
//!
//! A conversion whose code is not there yet (a reader that panics) is reported as skipped, as is a peer that
//! is not installed (`bash scripts/install-text-corpora.sh`). `TEXT_BENCH_RUNS` (default 5) and
//! `TEXT_BENCH_MB` (default 4) change the runs and the size; `TEXT_BENCH_BASELINE=PATH` adds a row for another
//! build of the CLI (main's, to compare before and after in one run). `TEXT_BENCH_ONLY=FORMAT` measures the conversions from one
//! format only. `TEXT_BENCH_GENERATE_ONLY=1` writes the documents and stops (`bench/marker_cost.mjs` measures the markers' cost on them).
//! `TEXT_BENCH_ROUNDS=R` (default 1) measures every converter of a conversion R times in turn, each row
//! the best of its rounds: a few seconds of a busy host then slow one round of every converter rather
//! than all the runs of one (each round's figures go to stderr).

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_text::{Format, Options};
use serde_json::{json, Value};

const INSTALL: &str = "bash scripts/install-text-corpora.sh";

fn main() {
    // `text_bench --rss-of CMD ARGS...`: run CMD with its stdout drained and print its peak RSS in bytes.
    // The CLI's peak is measured through this small process of the bench's own, never straight from the
    // bench: a child spawned by a large process (vfork, then exec) inherits that process's high-water mark
    // of resident memory, so `wait4` would report the bench's size, not the CLI's.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--rss-of") {
        let mut command = Command::new(&args[2]);
        command.args(&args[3..]);
        match spawn_drained(&mut command) {
            Ok(rss) => println!("{rss}"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let runs: usize = env_or("TEXT_BENCH_RUNS", 5);
    let mb: usize = env_or("TEXT_BENCH_MB", 4);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let peers =
        std::env::var_os("TEXT_PEERS").map_or_else(|| root.join(".peers/text"), PathBuf::from);
    let dir = root.join("target/text-bench");
    std::fs::create_dir_all(&dir).unwrap();

    let size = mb << 20;
    let (adf, counted) = jira_description(size);
    let inputs = [
        ("adf", write(&dir, "jira.json", &adf)),
        ("markdown", write(&dir, "readme.md", &markdown_page(size))),
        (
            "storage",
            write(&dir, "confluence.xml", &confluence_page(size)),
        ),
        ("html", write(&dir, "page.html", &web_page(size))),
    ];
    let file = |format: &str| inputs.iter().find(|(f, _)| *f == format).unwrap().1.clone();
    println!(
        "mcp-text bench: best of {runs} runs; documents in {}",
        dir.display()
    );
    for (format, path) in &inputs {
        println!("  {format:<8} {:>6.2} MB  {}", mb_of(path), path.display());
    }
    println!();
    if std::env::var_os("TEXT_BENCH_GENERATE_ONLY").is_some() {
        return;
    }

    // `TEXT_BENCH_BASELINE=PATH`: another build of the CLI (main's, say) measured in the same run.
    let baseline = std::env::var_os("TEXT_BENCH_BASELINE").map(PathBuf::from);
    let mut report = Report::default();
    let cases = [
        ("ADF → MD", "adf", Format::Adf, Format::Markdown),
        ("MD → ADF", "markdown", Format::Markdown, Format::Adf),
        ("storage → MD", "storage", Format::Storage, Format::Markdown),
        ("HTML → MD", "html", Format::Html, Format::Markdown),
    ];
    // `TEXT_BENCH_ONLY=adf` (or markdown, storage, html): the conversions from that format alone.
    let only = std::env::var("TEXT_BENCH_ONLY").ok();
    let rounds: usize = env_or("TEXT_BENCH_ROUNDS", 1);
    for (case, input_name, from, to) in cases {
        if only.as_deref().is_some_and(|only| only != input_name) {
            continue;
        }
        for round in 0..rounds.max(1) {
            report.first_round = round == 0;
            let input = file(input_name);
            let bytes = std::fs::read(&input).unwrap();
            let mb = bytes.len() as f64 / (1 << 20) as f64;
            report.row(
                case,
                "cat, piped (floor)",
                floor(&input, runs).map(|t| (t, None)),
                mb,
            );
            let ours = Path::new(env!("CARGO_BIN_EXE_mcp-text"));
            report.row(
                case,
                "mcp-text CLI",
                cli(ours, &input, input_name, to, runs),
                mb,
            );
            if let Some(baseline) = &baseline {
                report.row(
                    case,
                    "mcp-text CLI, baseline",
                    cli(baseline, &input, input_name, to, runs),
                    mb,
                );
            }
            let (result, output) = in_process(&bytes, from, to, runs);
            report.row(case, "mcp-text in-process", result.map(|t| (t, None)), mb);
            if case == "ADF → MD" {
                if let Some(output) = &output {
                    report.kept("mcp-text", kept(&counted, output));
                }
            }
            match case {
                "ADF → MD" => {
                    let out = dir.join("adf-to-md.md");
                    let _ = std::fs::remove_file(&out);
                    let node = peers.join("node_modules/adf-to-md");
                    let script = root.join("mcp-text/bench/adf_to_md.js");
                    let result = peer(&node, "npm adf-to-md", || {
                        let mut c = Command::new("node");
                        c.arg(&script)
                            .arg(&input)
                            .arg(&out)
                            .arg(runs.to_string())
                            .env("TEXT_PEERS", &peers);
                        c
                    });
                    report.row(case, "npm adf-to-md 1.2.1", result.map(|t| (t, None)), mb);
                    if let Ok(md) = std::fs::read_to_string(&out) {
                        report.kept("npm adf-to-md", kept(&counted, &md));
                    }
                    let out = dir.join("marklas.md");
                    let _ = std::fs::remove_file(&out);
                    report.row(
                        case,
                        "PyPI marklas 0.8.6",
                        python(&peers, "marklas-adf-md", &input, &out, runs),
                        mb,
                    );
                    if let Ok(md) = std::fs::read_to_string(&out) {
                        report.kept("PyPI marklas", kept(&counted, &md));
                    }
                }
                "MD → ADF" => {
                    let out = dir.join("marklas.json");
                    report.row(
                        case,
                        "PyPI marklas 0.8.6",
                        python(&peers, "marklas-md-adf", &input, &out, runs),
                        mb,
                    );
                }
                "HTML → MD" => {
                    let html = String::from_utf8(bytes.clone()).unwrap();
                    // The reader alone (HTML → model), measurable before the Markdown writer is there.
                    let result = best_of(runs, || {
                        std::hint::black_box(mcp_text::html::read(&html));
                        Ok(())
                    });
                    report.row(
                        case,
                        "mcp-text HTML reader only",
                        result.map(|t| (t, None)),
                        mb,
                    );
                    let result = best_of(runs, || {
                        htmd::convert(&html).map(drop).map_err(|e| e.to_string())
                    });
                    report.row(case, "crate htmd 0.5", result.map(|t| (t, None)), mb);
                    let out = dir.join("markdownify.md");
                    report.row(
                        case,
                        "PyPI markdownify 1.2.3",
                        python(&peers, "markdownify", &input, &out, runs),
                        mb,
                    );
                }
                _ => {}
            }
        }
    }
    report.print();
}

// ---------------------------------------------------------------------------------------------------------
// Measuring

/// A measurement: the best wall time and, for our CLI, its peak RSS in bytes; or why there is none.
type Measured = Result<(Duration, Option<u64>), String>;

fn best_of(runs: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<Duration, String> {
    let mut best = Duration::MAX;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        f()?;
        best = best.min(start.elapsed());
    }
    Ok(best)
}

/// `cat FILE` through a pipe, drained: what any process that reads the file and writes it costs here.
fn floor(input: &Path, runs: usize) -> Result<Duration, String> {
    best_of(runs, || {
        spawn_drained(Command::new("cat").arg(input)).map(drop)
    })
}

/// Our CLI (`exe convert`, `target/release/mcp-text` or a baseline build) as a whole process, best wall
/// time and its peak RSS.
fn cli(exe: &Path, input: &Path, from: &str, to: Format, runs: usize) -> Measured {
    let to = match to {
        Format::Markdown => "markdown",
        Format::Adf => "adf",
        _ => "storage",
    };
    let time = best_of(runs, || {
        let mut command = Command::new(exe);
        command
            .args(["convert", "--from", from, "--to", to])
            .arg(input);
        spawn_drained(&mut command).map(drop)
    })?;
    // The peak RSS, from one more run under a small process of our own (see `main`).
    let rss = Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
        .args([
            "--rss-of".as_ref(),
            exe.as_os_str(),
            "convert".as_ref(),
            "--from".as_ref(),
            from.as_ref(),
            "--to".as_ref(),
            to.as_ref(),
        ])
        .arg(input)
        .output()
        .map_err(|e| e.to_string())?;
    let rss = String::from_utf8_lossy(&rss.stdout)
        .trim()
        .parse::<u64>()
        .ok();
    Ok((time, rss))
}

/// Runs `command` with its stdout drained through a pipe; its peak RSS (bytes), or its stderr on failure.
fn spawn_drained(command: &mut Command) -> Result<u64, String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let drain = std::thread::spawn(move || {
        let mut buf = vec![0; 1 << 16];
        while stdout.read(&mut buf).is_ok_and(|n| n > 0) {}
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let (status, rss) = wait_with_rusage(&child);
    drain.join().unwrap();
    let errors = errors.join().unwrap();
    if status != 0 {
        // A panic's message is the line after "panicked at"; our own errors start with "mcp-text:".
        let mut lines = errors.lines();
        let why = match lines.position(|l| l.contains("panicked at")) {
            Some(_) => format!("panicked: {}", lines.next().unwrap_or("")),
            None => errors.lines().next().unwrap_or("").to_string(),
        };
        return Err(format!(
            "failed (status {status}): {}",
            why.chars().take(90).collect::<String>()
        ));
    }
    Ok(rss)
}

/// Waits for the child and reads its peak RSS from the kernel (`wait4`), which `std` does not expose.
fn wait_with_rusage(child: &std::process::Child) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: rusage is plain data the call fills in; the pid is our own unreaped child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: as above.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    (code, usage.ru_maxrss as u64 * 1024)
}

/// Our library in-process: best time, and the output of the last run (for the counts). A conversion that
/// panics (its code not merged yet) is skipped.
fn in_process(
    input: &[u8],
    from: Format,
    to: Format,
    runs: usize,
) -> (Result<Duration, String>, Option<String>) {
    let mut output = None;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        best_of(runs, || {
            let converted = mcp_text::convert(input, from, to, &Options::default())
                .map_err(|e| e.to_string())?;
            output = Some(converted.text);
            Ok(())
        })
    }));
    std::panic::set_hook(hook);
    match result {
        Ok(result) => (result, output),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            (Err(format!("panicked: {message}")), None)
        }
    }
}

/// A peer that prints `{"best_s": seconds}`; skipped with the install command when `needs` is missing.
fn peer(needs: &Path, what: &str, command: impl FnOnce() -> Command) -> Result<Duration, String> {
    if !needs.exists() {
        return Err(format!("skipped: {what} is not installed (run {INSTALL})"));
    }
    let out = command()
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("skipped: {what}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .last()
            .unwrap_or("")
            .chars()
            .take(90)
            .collect::<String>();
        return Err(format!("failed: {last}"));
    }
    let value: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("failed: {e}"))?;
    Ok(Duration::from_secs_f64(
        value["best_s"].as_f64().unwrap_or(f64::NAN),
    ))
}

fn python(peers: &Path, tool: &str, input: &Path, output: &Path, runs: usize) -> Measured {
    let python = peers.join("py/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/py_peers.py");
    peer(&python, &format!("PyPI {tool}"), || {
        let mut c = Command::new(&python);
        c.arg(&script)
            .arg(tool)
            .arg(input)
            .arg(output)
            .arg(runs.to_string());
        c
    })
    .map(|t| (t, None))
}

// ---------------------------------------------------------------------------------------------------------
// Counting what survives

/// The nodes of the generated ADF that a converter can drop, by kind: each holds a unique token
/// (`XMEN00042`), dates their timestamp.
#[derive(Default)]
struct Counted {
    tokens: BTreeMap<&'static str, Vec<String>>,
    /// (timestamp in ms, the same day as `YYYY-MM-DD`)
    dates: Vec<(String, String)>,
}

const KINDS: [(&str, &str); 8] = [
    ("mention", "XMEN"),
    ("status", "XSTA"),
    ("date", ""),
    ("panel", "XPAN"),
    ("expand", "XEXP"),
    ("layout", "XLAY"),
    ("media", "XMED"),
    ("extension", "XEXT"),
];

/// A kind of node, how many of it the output has, of how many.
type Kept = (&'static str, usize, usize);

/// How many of each kind the output still has (its text or its marker), of how many.
fn kept(counted: &Counted, output: &str) -> Vec<Kept> {
    let mut found = HashSet::new();
    let bytes = output.as_bytes();
    let mut i = 0;
    while let Some(at) = memchr_x(&bytes[i..]) {
        let start = i + at;
        let end = start + 9;
        if end <= bytes.len()
            && bytes[start + 1..start + 4]
                .iter()
                .all(u8::is_ascii_uppercase)
            && bytes[start + 4..end].iter().all(u8::is_ascii_digit)
        {
            found.insert(&output[start..end]);
        }
        i = start + 1;
    }
    KINDS
        .iter()
        .map(|&(kind, _)| {
            if kind == "date" {
                let kept = counted
                    .dates
                    .iter()
                    .filter(|(ms, day)| {
                        output.contains(ms.as_str()) || output.contains(day.as_str())
                    })
                    .count();
                return (kind, kept, counted.dates.len());
            }
            let tokens = &counted.tokens[kind];
            (
                kind,
                tokens.iter().filter(|t| found.contains(t.as_str())).count(),
                tokens.len(),
            )
        })
        .collect()
}

fn memchr_x(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'X')
}

// ---------------------------------------------------------------------------------------------------------
// The report

#[derive(Default)]
struct Report {
    rows: Vec<(String, String, Measured, f64)>,
    kept: Vec<(String, Vec<Kept>)>,
    /// Whether the rows being measured are a conversion's first round.
    first_round: bool,
}

impl Report {
    /// A converter's figure; measured again in a later round, its best time and highest peak stay.
    fn row(&mut self, case: &str, who: &str, measured: Measured, mb: f64) {
        let shown = match &measured {
            Ok((t, _)) => format!("{:.1} MB/s", mb / t.as_secs_f64()),
            Err(e) => e.clone(),
        };
        eprintln!("  {case:<13} {who:<24} {shown}");
        let earlier = self
            .rows
            .iter_mut()
            .find(|(c, w, ..)| c == case && w == who);
        match (earlier, measured) {
            (Some((.., Ok((best, peak)), _)), Ok((t, rss))) => {
                *best = (*best).min(t);
                *peak = (*peak).max(rss);
            }
            (Some((.., kept @ Err(_), _)), now) => *kept = now,
            (Some(_), Err(_)) => {}
            (None, measured) => self.rows.push((case.into(), who.into(), measured, mb)),
        }
    }

    /// What a converter's output kept (counted in the first round only: the output is the same).
    fn kept(&mut self, who: &str, counts: Vec<Kept>) {
        if self.first_round {
            self.kept.push((who.into(), counts));
        }
    }

    fn print(&self) {
        let mut out = String::new();
        writeln!(out, "\n| conversion | converter | MB/s | ms | ours (CLI) ÷ this, in speed | peak RSS / input |").unwrap();
        writeln!(out, "|---|---|---:|---:|---:|---:|").unwrap();
        for (case, who, measured, mb) in &self.rows {
            let ours = self
                .rows
                .iter()
                .find(|(c, w, ..)| c == case && w == "mcp-text CLI")
                .and_then(|(.., m, _)| m.as_ref().ok());
            match measured {
                Ok((t, rss)) => {
                    let ratio = match ours {
                        Some((o, _)) if who != "mcp-text CLI" => {
                            format!("{:.2}x", t.as_secs_f64() / o.as_secs_f64())
                        }
                        _ => String::new(),
                    };
                    let rss = rss.map_or(String::new(), |r| {
                        format!(
                            "{:.1} MB ({:.1}x)",
                            r as f64 / (1 << 20) as f64,
                            r as f64 / (mb * (1 << 20) as f64)
                        )
                    });
                    writeln!(
                        out,
                        "| {case} | {who} | {:.1} | {:.1} | {ratio} | {rss} |",
                        mb / t.as_secs_f64(),
                        t.as_secs_f64() * 1e3
                    )
                    .unwrap();
                }
                Err(e) => writeln!(out, "| {case} | {who} | {e} | | | |").unwrap(),
            }
        }
        if !self.kept.is_empty() {
            write!(out, "\nADF → MD: nodes of the input whose text or marker is in the output\n\n| converter |").unwrap();
            for (kind, _) in KINDS {
                write!(out, " {kind} |").unwrap();
            }
            writeln!(out, "\n|---|{}", "---:|".repeat(KINDS.len())).unwrap();
            for (who, counts) in &self.kept {
                write!(out, "| {who} |").unwrap();
                for (_, kept, of) in counts {
                    write!(out, " {kept}/{of} |").unwrap();
                }
                out.push('\n');
            }
        }
        print!("{out}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// The documents: deterministic, real-shaped, about `size` bytes each

/// A small deterministic generator (xorshift64*), so that every run converts the same documents.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
    fn words(&mut self, n: usize) -> String {
        const WORDS: [&str; 24] = [
            "the", "deploy", "service", "latency", "*.py", "rollback", "2 * 3", "config", "a_b_c",
            "cluster", "owner", "pipeline", "retry", "budget", "[draft]", "cache", "review",
            "release", "metrics", "alert", "team", "quota", "schema", "index",
        ];
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(self.pick(&WORDS));
        }
        s
    }
}

fn text(t: impl Into<String>) -> Value {
    json!({"type": "text", "text": t.into()})
}

fn marked(t: impl Into<String>, marks: Value) -> Value {
    json!({"type": "text", "text": t.into(), "marks": marks})
}

fn para(content: Vec<Value>) -> Value {
    json!({"type": "paragraph", "content": content})
}

/// A Jira issue description as Jira Cloud stores it, repeated in sections to `size` bytes.
fn jira_description(size: usize) -> (String, Counted) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut counted = Counted::default();
    for (kind, _) in KINDS {
        counted.tokens.insert(kind, Vec::new());
    }
    let token = |counted: &mut Counted, kind: &'static str| {
        let list = counted.tokens.get_mut(kind).unwrap();
        let prefix = KINDS.iter().find(|(k, _)| *k == kind).unwrap().1;
        let t = format!("{prefix}{:05}", list.len());
        list.push(t.clone());
        t
    };
    let mut blocks = Vec::new();
    let mut bytes = 0;
    let mut i = 0u64;
    while bytes < size {
        let mut section = Vec::new();
        section.push(json!({"type": "heading", "attrs": {"level": 2}, "content": [text(format!("Section {i}: {}", rng.words(3)))]}));
        let mention = token(&mut counted, "mention");
        let status = token(&mut counted, "status");
        let day = i * 86_400_000 + 1_600_000_000_000;
        counted.dates.push((day.to_string(), iso_day(day)));
        section.push(para(vec![
            text(format!("{} ", rng.words(12))),
            marked(rng.words(2), json!([{"type": "strong"}])),
            text(" and "),
            marked(rng.words(2), json!([{"type": "em"}])),
            text(", run "),
            marked("cargo test --workspace", json!([{"type": "code"}])),
            text(" see "),
            marked("the runbook", json!([{"type": "link", "attrs": {"href": format!("https://wiki.example.com/x/{i}")}}])),
            text(". Assigned to "),
            json!({"type": "mention", "attrs": {"id": format!("acct-{mention}"), "text": format!("@Dana {mention}"), "accessLevel": ""}}),
            text(" status "),
            json!({"type": "status", "attrs": {"text": status, "color": "blue", "localId": format!("s-{i}")}}),
            text(" due "),
            json!({"type": "date", "attrs": {"timestamp": day.to_string()}}),
            text(" "),
            json!({"type": "emoji", "attrs": {"shortName": ":white_check_mark:", "id": "2705", "text": "✅"}}),
            text(" "),
            marked(rng.words(2), json!([{"type": "strike"}])),
            text(" "),
            marked(rng.words(2), json!([{"type": "underline"}, {"type": "textColor", "attrs": {"color": "#ff5630"}}])),
            json!({"type": "hardBreak"}),
            json!({"type": "inlineCard", "attrs": {"url": format!("https://jira.example.com/browse/OPS-{i}")}}),
        ]));
        let panel = token(&mut counted, "panel");
        let kind = rng.pick(&["info", "note", "warning", "success", "error"]);
        section.push(json!({"type": "panel", "attrs": {"panelType": kind}, "content": [para(vec![text(format!("Panel {panel}: {}", rng.words(10)))])]}));
        section.push(json!({"type": "bulletList", "content": [
            {"type": "listItem", "content": [para(vec![text(rng.words(6))]), {"type": "bulletList", "content": [
                {"type": "listItem", "content": [para(vec![text(rng.words(5))])]}]}]},
            {"type": "listItem", "content": [para(vec![text(rng.words(6))])]}]}));
        section.push(
            json!({"type": "orderedList", "attrs": {"order": 3}, "content": [
            {"type": "listItem", "content": [para(vec![text(rng.words(5))])]},
            {"type": "listItem", "content": [para(vec![text(rng.words(5))])]}]}),
        );
        section.push(json!({"type": "codeBlock", "attrs": {"language": "rust"}, "content": [text(format!(
            "fn handler_{i}(req: Request) -> Result<Response> {{\n    let x = req.body()?;\n    Ok(Response::new(x))\n}}"))]}));
        let expand = token(&mut counted, "expand");
        section.push(json!({"type": "expand", "attrs": {"title": format!("Details {expand}")}, "content": [para(vec![text(rng.words(15))])]}));
        let row = |rng: &mut Rng, cell: &str| json!({"type": "tableRow", "content": (0..3).map(|_| json!({"type": cell, "attrs": {}, "content": [para(vec![text(rng.words(2))])]})).collect::<Vec<_>>()});
        section.push(json!({"type": "table", "attrs": {"isNumberColumnEnabled": false, "layout": "default"}, "content": [
            row(&mut rng, "tableHeader"), row(&mut rng, "tableCell"), row(&mut rng, "tableCell")]}));
        let media = token(&mut counted, "media");
        section.push(json!({"type": "mediaSingle", "attrs": {"layout": "center"}, "content": [
            {"type": "media", "attrs": {"id": media, "type": "file", "collection": "jira-10001", "alt": format!("{media}.png"), "width": 640, "height": 480}}]}));
        let (left, right) = (token(&mut counted, "layout"), token(&mut counted, "layout"));
        section.push(json!({"type": "layoutSection", "content": [
            {"type": "layoutColumn", "attrs": {"width": 50}, "content": [para(vec![text(format!("Left {left} {}", rng.words(6)))])]},
            {"type": "layoutColumn", "attrs": {"width": 50}, "content": [para(vec![text(format!("Right {right} {}", rng.words(6)))])]}]}));
        let ext = token(&mut counted, "extension");
        section.push(json!({"type": "extension", "attrs": {"extensionType": "com.atlassian.confluence.macro.core",
            "extensionKey": "toc", "localId": ext, "parameters": {"macroParams": {"maxLevel": {"value": "3"}}}}}));
        section.push(json!({"type": "taskList", "attrs": {"localId": format!("t-{i}")}, "content": [
            {"type": "taskItem", "attrs": {"localId": format!("ti-{i}"), "state": "TODO"}, "content": [text(rng.words(4))]}]}));
        section.push(json!({"type": "blockquote", "content": [para(vec![text(rng.words(8))])]}));
        section.push(json!({"type": "rule"}));
        bytes += serde_json::to_string(&section).unwrap().len();
        blocks.extend(section);
        i += 1;
    }
    (
        serde_json::to_string(&json!({"type": "doc", "version": 1, "content": blocks})).unwrap(),
        counted,
    )
}

/// `YYYY-MM-DD` (UTC) of a Unix time in milliseconds.
fn iso_day(ms: u64) -> String {
    mcp_text::date::format_day(ms as i64)
}

/// A README-like Markdown document (CommonMark + GFM), to `size` bytes.
fn markdown_page(size: usize) -> String {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut s = String::with_capacity(size + 4096);
    let mut i = 0;
    while s.len() < size {
        let _ = write!(
            s,
            "## Section {i}: {}\n\n{} **{}** and *{}*, run `cargo test` see [the guide](https://example.com/{i}) or <https://docs.example.com/{i}>.\nSecond line ~~{}~~.\n\n\
             - {}\n  - {}\n- [ ] {}\n- [x] {}\n\n3. {}\n4. {}\n\n> {}\n\n```rust\nfn f_{i}() -> u32 {{\n    {i}\n}}\n```\n\n\
             | Name | Value | Note |\n|---|---:|:---:|\n| {} | {i} | {} |\n| {} | {} | {} |\n\n![diagram {i}](img/d{i}.png)\n\n---\n\n",
            rng.words(3), rng.words(12), rng.words(2), rng.words(2), rng.words(2), rng.words(6), rng.words(5), rng.words(4),
            rng.words(4), rng.words(5), rng.words(5), rng.words(8), rng.words(2), rng.words(2), rng.words(2), rng.words(1), rng.words(2),
        );
        i += 1;
    }
    s
}

/// A Confluence page in storage format, to `size` bytes.
fn confluence_page(size: usize) -> String {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut s = String::with_capacity(size + 4096);
    let mut i = 0;
    while s.len() < size {
        let _ = write!(
            s,
            "<h2>Section {i}: {}</h2>\
             <p>{} <strong>{}</strong> and <em>{}</em>, run <code>cargo test</code>, see <a href=\"https://wiki.example.com/{i}\">the runbook</a>. \
             Owner <ac:link><ri:user ri:account-id=\"acct-{i}\" /></ac:link>, status \
             <ac:structured-macro ac:name=\"status\" ac:schema-version=\"1\"><ac:parameter ac:name=\"title\">STEP {i}</ac:parameter><ac:parameter ac:name=\"colour\">Blue</ac:parameter></ac:structured-macro>, \
             due <time datetime=\"2024-01-15\" /> <ac:emoticon ac:name=\"tick\" /> &amp; &nbsp; <ac:link><ri:page ri:content-title=\"Page {i}\" ri:space-key=\"OPS\" /><ac:plain-text-link-body><![CDATA[Page {i}]]></ac:plain-text-link-body></ac:link></p>\
             <ac:structured-macro ac:name=\"info\" ac:schema-version=\"1\"><ac:rich-text-body><p>{}</p></ac:rich-text-body></ac:structured-macro>\
             <ac:structured-macro ac:name=\"code\" ac:schema-version=\"1\"><ac:parameter ac:name=\"language\">java</ac:parameter><ac:plain-text-body><![CDATA[class C{i} {{\n  int x = 1 < 2 ? 3 : 4;\n}}]]></ac:plain-text-body></ac:structured-macro>\
             <ul><li>{}<ul><li>{}</li></ul></li><li>{}</li></ul><ol start=\"3\"><li>{}</li><li>{}</li></ol>\
             <ac:task-list><ac:task><ac:task-id>{i}</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>{}</ac:task-body></ac:task></ac:task-list>\
             <table><tbody><tr><th><p>Name</p></th><th><p>Value</p></th></tr><tr><td><p>{}</p></td><td><p>{}</p></td></tr></tbody></table>\
             <ac:structured-macro ac:name=\"expand\" ac:schema-version=\"1\"><ac:parameter ac:name=\"title\">More {i}</ac:parameter><ac:rich-text-body><p>{}</p></ac:rich-text-body></ac:structured-macro>\
             <ac:image ac:alt=\"diagram {i}\"><ri:attachment ri:filename=\"diagram-{i}.png\" /></ac:image>\
             <ac:layout><ac:layout-section ac:type=\"two_equal\"><ac:layout-cell><p>{}</p></ac:layout-cell><ac:layout-cell><p>{}</p></ac:layout-cell></ac:layout-section></ac:layout>\
             <ac:structured-macro ac:name=\"toc\" ac:schema-version=\"1\"><ac:parameter ac:name=\"maxLevel\">3</ac:parameter></ac:structured-macro>\
             <blockquote><p>{}</p></blockquote><hr />\n",
            rng.words(3), rng.words(12), rng.words(2), rng.words(2), rng.words(10), rng.words(6), rng.words(5), rng.words(5),
            rng.words(4), rng.words(4), rng.words(4), rng.words(2), rng.words(3), rng.words(15), rng.words(6), rng.words(6), rng.words(8),
        );
        i += 1;
    }
    s
}

/// A documentation web page with its chrome (head scripts and styles, banner, navigation, sidebar, inline
/// scripts, footer), to `size` bytes.
fn web_page(size: usize) -> String {
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    let mut s = String::with_capacity(size + 8192);
    s.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Docs</title><link rel=\"stylesheet\" href=\"/a.css\">");
    s.push_str("<style>body{font:14px sans-serif}.nav a{color:#333}</style><script>window.dataLayer=window.dataLayer||[];function g(){dataLayer.push(arguments)}</script></head><body>");
    s.push_str("<header class=\"site\"><a href=\"/\"><img src=\"/logo.svg\" alt=\"Acme\"></a><nav class=\"nav\"><ul>");
    for n in 0..30 {
        let _ = write!(s, "<li><a href=\"/docs/{n}\">Topic {n}</a></li>");
    }
    s.push_str("</ul></nav></header><div class=\"layout\"><aside><ul><li><a href=\"#a\">On this page</a></li></ul></aside><main><article>");
    let mut i = 0;
    while s.len() < size {
        let _ = write!(
            s,
            "<section id=\"s{i}\"><h2>Section {i}: {} <a class=\"anchor\" aria-hidden=\"true\" href=\"#s{i}\">#</a></h2>\n\
             <p>{} <strong>{}</strong> and <em>{}</em>, run <code>cargo test</code>, see <a href=\"../guide/{i}.html\">the guide</a>\n   or <a href=\"https://example.com/{i}\" title=\"Example\">this</a>.<br>Second &amp; last line <s>{}</s>.</p>\n\
             <div class=\"highlight highlight-source-rust\"><pre><span class=\"k\">fn</span> <span class=\"nf\">f_{i}</span>() -&gt; u32 {{\n    {i}\n}}\n</pre></div>\n\
             <ul><li>{}<ul><li>{}</li></ul></li><li>{}</li></ul><ol start=\"3\"><li>{}</li><li>{}</li></ol>\n\
             <table><thead><tr><th>Name</th><th>Value</th><th>Note</th></tr></thead><tbody><tr><td>{}</td><td>{i}</td><td>{}</td></tr><tr><td>{}</td><td>{}</td><td>a | b</td></tr></tbody></table>\n\
             <figure><img src=\"img/d{i}.png\" alt=\"diagram {i}\"><figcaption>{}</figcaption></figure>\n\
             <details><summary>More {i}</summary><p>{}</p></details><blockquote><p>{}</p></blockquote>\n\
             <script>g('event', 'view', {{section: {i}}});</script><div class=\"ad\" style=\"display:none\">Advertisement</div></section>\n",
            rng.words(3), rng.words(12), rng.words(2), rng.words(2), rng.words(2), rng.words(6), rng.words(5), rng.words(4),
            rng.words(4), rng.words(5), rng.words(2), rng.words(2), rng.words(2), rng.words(1), rng.words(4), rng.words(15), rng.words(8),
        );
        i += 1;
    }
    s.push_str("</article></main></div><footer><p>Copyright Acme</p><nav><a href=\"/privacy\">Privacy</a></nav></footer><script src=\"/app.js\"></script></body></html>");
    s
}

// ---------------------------------------------------------------------------------------------------------

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn mb_of(path: &Path) -> f64 {
    std::fs::metadata(path).map_or(0.0, |m| m.len() as f64 / (1 << 20) as f64)
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
