//! Conversion time for a real spec of more than 1,000 operations: GitHub's REST API from the npm package
//! `@octokit/openapi` (installed by `scripts/install-openapi-specs.sh`, not vendored). Measures loading
//! (JSON parse), conversion to tools, and typed bindings, each and together (target: under 5 s).
//!
//! `cargo bench -p mcp-codegen --bench openapi` prints the figures; `-- --spec PATH --runs R` changes them.

use mcp_codegen::openapi::{convert, ConvertOptions, Document};
use mcp_codegen::{generate, Options};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut spec = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../.peers/openapi/node_modules/@octokit/openapi/generated/api.github.com.json");
    let mut runs = 3usize;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--spec" => spec = args.next().map(PathBuf::from).unwrap_or(spec),
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).unwrap_or(runs),
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    if !spec.exists() {
        eprintln!(
            "{}: not found; run scripts/install-openapi-specs.sh first",
            spec.display()
        );
        std::process::exit(2);
    }
    let (mut load, mut conv, mut bind, mut total) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut ops, mut warnings, mut bytes, mut first) = (0, 0, 0, None::<String>);
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let doc = match Document::load(&spec) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let t1 = Instant::now();
        let conversion = convert(&doc, &ConvertOptions::default());
        let tools = conversion.tools();
        let t2 = Instant::now();
        let generated = generate(&tools, &Options::default());
        let t3 = Instant::now();
        load.push(t1 - t0);
        conv.push(t2 - t1);
        bind.push(t3 - t2);
        total.push(t3 - t0);
        ops = tools.len();
        warnings = conversion.warnings.len() + generated.warnings.len();
        bytes = generated.code.len();
        match &first {
            None => first = Some(generated.code),
            Some(f) => assert_eq!(f, &generated.code, "two runs gave different bytes"),
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1e3
    };
    println!(
        "mcp-codegen openapi: {} ({ops} tools), {runs} runs, medians",
        spec.display()
    );
    println!("  load (parse)       {:>8.1} ms", median(&mut load));
    println!("  convert to tools   {:>8.1} ms", median(&mut conv));
    println!("  typed bindings     {:>8.1} ms", median(&mut bind));
    let t = median(&mut total);
    println!("  total              {t:>8.1} ms");
    println!("  output {bytes} bytes; {warnings} warnings");
    println!(
        "  target < 5 s: {}",
        if t < 5000.0 { "met" } else { "MISSED" }
    );
}
