#!/usr/bin/env bash
# What the ADF → Markdown target asks, against what parsing the same JSON costs at best. On the issue's
# random valid ADF (scripts/text-random-adf-doc.sh), one thread, in one process, best of RUNS each: reading
# the file; serde_json validating it (no values built); sonic-rs and simd-json (the fastest JSON parsers in
# Rust, SIMD) into their DOMs; our ADF reader alone (the model, no Markdown) and our whole conversion, on
# the system allocator as a library user has them (the CLI has an allocator of its own and two threads). Then, in the same run, our CLI (two threads, a whole process) and npm adf-to-md's
# in-process loop (which parses with V8's JSON.parse), as scripts/text-random-adf.sh runs them. The program
# is built in target/json-floor (sonic-rs and simd-json come from crates.io there; nothing of it is part of
# the workspace), with `-C target-cpu=native` for all of it, so that the SIMD parsers use what the machine has.
# Usage: scripts/text-json-floor.sh [RUNS]   (needs scripts/install-text-corpora.sh and a release build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=${1:-15}
crate="$root/target/json-floor"
mkdir -p "$crate/src"
cat > "$crate/Cargo.toml" <<TOML
[package]
name = "json-floor"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
mcp-text = { path = "$root/mcp-text" }
serde = "1"
serde_json = "1"
simd-json = "0.17"
sonic-rs = "0.5"
[profile.release]
codegen-units = 1
lto = "thin"
[workspace]
TOML
cat > "$crate/src/main.rs" <<'RS'
use std::time::Instant;

fn best(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        f();
        best = best.min(start.elapsed().as_secs_f64());
    }
    best * 1e3
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let runs: usize = args.next().map_or(15, |r| r.parse().expect("RUNS"));
    let bytes = std::fs::read(&path).expect("readable");
    let text = std::str::from_utf8(&bytes).expect("UTF-8");
    let options = mcp_text::Options::default();
    let rows: Vec<(&str, f64)> = vec![
        ("read the file, check UTF-8", best(runs, || {
            let b = std::fs::read(&path).unwrap();
            std::hint::black_box(std::str::from_utf8(&b).is_ok());
        })),
        ("serde_json, validate only", best(runs, || {
            let v: serde::de::IgnoredAny = serde_json::from_str(text).unwrap();
            std::hint::black_box(v);
        })),
        ("sonic-rs -> Value", best(runs, || {
            let v: sonic_rs::Value = sonic_rs::from_str(text).unwrap();
            std::hint::black_box(&v);
        })),
        ("simd-json -> tape (a copy of the input included)", best(runs, || {
            let mut b = bytes.clone();
            let tape = simd_json::to_tape(&mut b).unwrap();
            std::hint::black_box(tape.0.len());
        })),
        ("simd-json -> BorrowedValue (a copy included)", best(runs, || {
            let mut b = bytes.clone();
            let v = simd_json::to_borrowed_value(&mut b).unwrap();
            std::hint::black_box(&v);
        })),
        ("mcp-text ADF reader -> model (system allocator)", best(runs, || {
            let doc = mcp_text::adf::read(&bytes).unwrap();
            std::hint::black_box(&doc);
        })),
        ("mcp-text ADF -> Markdown (system allocator)", best(runs, || {
            let md = mcp_text::convert(&bytes, mcp_text::Format::Adf, mcp_text::Format::Markdown, &options).unwrap();
            std::hint::black_box(&md);
        })),
    ];
    println!("{} bytes, one thread, best of {runs}:", bytes.len());
    for (name, ms) in rows {
        println!("  {name:<50} {ms:7.2} ms  {:7.1} MB/s", bytes.len() as f64 / ms / 1e3);
    }
}
RS
(cd "$crate" && CARGO_TARGET_DIR="$crate/target" RUSTFLAGS="-C target-cpu=native" cargo build --release -q)
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
bash "$root/scripts/text-random-adf-doc.sh" "$dir/random.json"
"$crate/target/release/json-floor" "$dir/random.json" "$runs"
python3 "$root/scripts/text-cpu.py" "$runs" "ours=$root/target/release/mcp-text" -- "adf:$dir/random.json" | tr '|' '\n'
node "$root/mcp-text/bench/adf_to_md.js" "$dir/random.json" "$dir/adf-to-md.md" "$runs" | sed 's/^/ npm adf-to-md: /'
node -e '
const fs = require("fs");
const text = fs.readFileSync(process.argv[1], "utf8");
let best = Infinity;
for (let i = 0; i < Number(process.argv[2]); i++) {
  const start = process.hrtime.bigint();
  JSON.parse(text);
  best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
}
console.log(` node JSON.parse alone (what adf-to-md parses with): ${best.toFixed(2)} ms`);
' "$dir/random.json" "$runs"
