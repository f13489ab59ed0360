//! Calls per second and latency through the gateway, side by side with the same server direct and with
//! other proxies, in one run: `cargo bench -p mcp-gateway --bench gateway`. Prints one row per path;
//! only the ratios mean anything (machines vary from run to run).
//!
//! Paths, all in front of `bench-server` over stdio: direct; the floor of any proxy over stdio (a
//! process that passes the bytes both ways and parses nothing: what a second hop through the kernel
//! costs on this machine); the least relay built on the runtime (a server whose one tool calls the
//! server through a client: what the gateway's features add is the difference); our gateway over stdio
//! (one thread, the default, and `--threads 0`, one per core); FastMCP's proxy over stdio (PyPI
//! `fastmcp`); our gateway over Streamable HTTP; the npm `mcp-proxy` over Streamable HTTP. Each:
//! sequential `echo` calls, then 64 in flight. A proxy's peak resident memory (VmHWM) is read from
//! /proc at the end of its row. The peers come from `scripts/install-peers.sh bench`; a row whose peer
//! is missing says so. Then Streamable HTTP as many users reach it: 64 sessions, each calling in turn,
//! against `bench-server` reached directly over HTTP, our gateway (one thread and one per core) and the
//! Rust `mcp-proxy` 0.6.0 (the tower-mcp gateway, `cargo install`ed by `install-peers.sh bench`).
//!
//! Slow paths are measured for a bounded time (at most [`SEQ_TIME`] and [`CONC_TIME`]) rather than for a
//! fixed count, so the FastMCP row ends in seconds; its rates are computed from what completed.
//!
//! `-- --instructions` counts instead of timing: the gateway (and, as yardsticks, `bench-server` alone
//! and the least relay) runs under `valgrind --tool=callgrind`, and the instructions it executes per
//! call (sequential and 64 in flight, stdio and HTTP downstream) are the difference between a long and
//! a short run divided by the calls between them. The count is independent of the machine's load,
//! unlike every rate above; callgrind slows the gateway down, so more requests arrive in each read than
//! they would at full speed (64 in flight batches more). `--keep` keeps callgrind's files, for
//! `callgrind_annotate --inclusive=yes`; `--only TEXT` counts only the rows whose name contains TEXT;
//! `--baseline PATH` counts another build of `bench-server` (another commit's) first, for a before and
//! after in one run.

use mcp_runtime::client::Client;
use mcp_runtime::http::HttpClientConfig;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WARMUP: usize = 200;
const SEQUENTIAL: usize = 3000;
const IN_FLIGHT: usize = 64;
const CONCURRENT_TOTAL: usize = 20_000;
const SEQ_TIME: Duration = Duration::from_secs(6);
const CONC_TIME: Duration = Duration::from_secs(8);

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn bench_server() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root())
        .args([
            "build",
            "--quiet",
            "-p",
            "examples",
            "--bin",
            "bench-server",
        ])
        .arg("--target-dir")
        .arg(dir.parent().unwrap());
    if dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    assert!(cmd.status().unwrap().success());
    dir.join("bench-server")
}

struct Row {
    seq_per_s: f64,
    p50: Duration,
    p99: Duration,
    conc_per_s: f64,
}

async fn measure(client: Arc<Client>) -> Row {
    let t0 = Instant::now();
    for _ in 0..WARMUP {
        client
            .call_tool("echo", json!({"text": "warm"}))
            .await
            .unwrap();
        if t0.elapsed() > SEQ_TIME / 2 {
            break;
        }
    }
    let mut lat = Vec::with_capacity(SEQUENTIAL);
    let t0 = Instant::now();
    for _ in 0..SEQUENTIAL {
        let t = Instant::now();
        client
            .call_tool("echo", json!({"text": "hello"}))
            .await
            .unwrap();
        lat.push(t.elapsed());
        if t0.elapsed() > SEQ_TIME {
            break;
        }
    }
    let seq = t0.elapsed();
    let seq_calls = lat.len();
    lat.sort();
    let done = Arc::new(AtomicUsize::new(0));
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..IN_FLIGHT {
        let c = client.clone();
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..CONCURRENT_TOTAL / IN_FLIGHT {
                c.call_tool("echo", json!({"text": "hello"})).await.unwrap();
                done.fetch_add(1, Ordering::Relaxed);
                if t0.elapsed() > CONC_TIME {
                    break;
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let conc = t0.elapsed();
    Row {
        seq_per_s: seq_calls as f64 / seq.as_secs_f64(),
        p50: lat[lat.len() / 2],
        p99: lat[lat.len() * 99 / 100],
        conc_per_s: done.load(Ordering::Relaxed) as f64 / conc.as_secs_f64(),
    }
}

fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn print(name: &str, r: &Row, direct: &Row, rss: Option<f64>) {
    println!(
        "{name:<30} {:>9.0} calls/s ({:.3}x)  p50 {:>7.0} µs  p99 {:>7.0} µs  {IN_FLIGHT} in flight {:>9.0} calls/s ({:.3}x){}",
        r.seq_per_s,
        r.seq_per_s / direct.seq_per_s,
        r.p50.as_secs_f64() * 1e6,
        r.p99.as_secs_f64() * 1e6,
        r.conc_per_s,
        r.conc_per_s / direct.conc_per_s,
        rss.map(|m| format!("  peak RSS {m:.1} MiB")).unwrap_or_default(),
    );
}

fn skipped(name: &str, why: &str) {
    println!("{name:<30} skipped: {why}");
}

/// A proxy over stdio: measured, then its peak RSS read before it is closed.
async fn stdio_row(name: &str, cmd: tokio::process::Command, direct: &Row) {
    let client = Arc::new(Client::builder().spawn(cmd).await.unwrap());
    let pid = client.server_pid();
    let r = measure(client.clone()).await;
    print(name, &r, direct, pid.and_then(peak_rss_mib));
}

/// A proxy over HTTP at `url` (started already as `child`).
async fn http_row(name: &str, url: &str, mut child: tokio::process::Child, direct: &Row) {
    let t0 = Instant::now();
    let client = loop {
        match Client::builder()
            .connect_http(url, HttpClientConfig::default())
            .await
        {
            Ok(c) => break c,
            Err(e) if t0.elapsed() > Duration::from_secs(30) => {
                return skipped(name, &format!("did not come up: {e}"));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    };
    let r = measure(Arc::new(client)).await;
    print(name, &r, direct, child.id().and_then(peak_rss_mib));
    let _ = child.kill().await;
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The floor of any stdio proxy: a process between the client and the server that passes the bytes
/// both ways and does nothing else (no parsing, no ids), one blocking thread per direction. Run as
/// `gateway --relay-floor SERVER` (the bench starts itself this way).
fn relay_floor(server: &str) -> ! {
    use std::io::Read;
    fn pump(mut from: impl Read, mut to: impl Write) {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = from.read(&mut buf) {
            if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
                break;
            }
        }
    }
    let mut child = Command::new(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (to_server, from_server) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    std::thread::spawn(move || pump(from_server, std::io::stdout().lock()));
    pump(std::io::stdin().lock(), to_server);
    let _ = child.kill();
    std::process::exit(0)
}

/// The least a relay built on the runtime can do: a server (one thread, as the gateway's default) whose
/// one raw tool `echo` calls the server's `echo` through a client and hands back its result as it came
/// (no names, no progress, no tracing, no metrics: the gateway's features are what separates the two).
/// Run as `gateway --pump-relay SERVER`.
async fn pump_relay(server: &str) {
    use mcp_runtime::client::CallOptions;
    use mcp_runtime::protocol::{ErrorObject, Tool};
    use mcp_runtime::server::{Arguments, ToolRoute};
    use mcp_runtime::{Context, Server};
    let client = Arc::new(
        Client::builder()
            .spawn(tokio::process::Command::new(server))
            .await
            .unwrap(),
    );
    let schema = json!({"type": "object"}).as_object().unwrap().clone();
    let route = ToolRoute::raw(
        Tool::new("echo", "Relays echo.", schema),
        move |args: Arguments, _: Context| {
            let client = client.clone();
            async move {
                let arguments: &serde_json::value::RawValue =
                    serde_json::from_str(args.as_str())
                        .map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
                client
                    .call_tool_raw("echo", arguments, &CallOptions::default())
                    .await
                    .map_err(|e| ErrorObject::internal(e.to_string()))
            }
        },
    );
    let relay = Server::builder()
        .name("pump-relay")
        .tool(route)
        .build()
        .unwrap();
    relay.serve_stdio().await.unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--relay-floor") {
        relay_floor(&args[i + 1]);
    }
    if let Some(i) = args.iter().position(|a| a == "--pump-relay") {
        return tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(pump_relay(&args[i + 1]));
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}

async fn run() {
    let server = bench_server();
    let mut cfg = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    cfg.write_all(
        json!({"mcpServers": {"bench": {"command": server}}})
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    if std::env::args().any(|a| a == "--instructions") {
        return instructions(cfg.path()).await;
    }
    let peers = root().join(".peers");
    println!(
        "(machine load: {})",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );

    let direct = Arc::new(
        Client::builder()
            .spawn(tokio::process::Command::new(&server))
            .await
            .unwrap(),
    );
    let d = measure(direct).await;
    print("direct (stdio)", &d, &d, None);
    let mut floor = tokio::process::Command::new(std::env::current_exe().unwrap());
    floor.arg("--relay-floor").arg(&server);
    stdio_row("floor: bare byte relay", floor, &d).await;
    let mut pump = tokio::process::Command::new(std::env::current_exe().unwrap());
    pump.arg("--pump-relay").arg(&server);
    stdio_row("least relay on the runtime", pump, &d).await;

    let gateway = |threads: &str| {
        let mut gw = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"));
        gw.arg("--config")
            .arg(cfg.path())
            .args(["--threads", threads])
            .env("RUST_LOG", "warn");
        gw
    };
    stdio_row("gateway stdio→stdio", gateway("1"), &d).await;
    stdio_row("gateway stdio→stdio, 2 threads", gateway("2"), &d).await;

    let python = peers.join("fastmcp/bin/python");
    if python.exists() {
        let mut cmd = tokio::process::Command::new(&python);
        cmd.arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/fastmcp_proxy.py"
        ))
        .arg(&server)
        .env("FASTMCP_LOG_LEVEL", "WARNING");
        stdio_row("FastMCP proxy stdio→stdio", cmd, &d).await;
    } else {
        skipped(
            "FastMCP proxy stdio→stdio",
            "run scripts/install-peers.sh bench",
        );
    }

    let port = free_port();
    let http = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"))
        .arg("--config")
        .arg(cfg.path())
        .args(["--http", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    http_row(
        "gateway HTTP→stdio",
        &format!("http://127.0.0.1:{port}/mcp"),
        http,
        &d,
    )
    .await;

    sessions(&server, cfg.path(), &peers).await;

    let mcp_proxy = peers.join("bench/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs");
    if mcp_proxy.exists() {
        let port = free_port();
        let child = tokio::process::Command::new("node")
            .arg(&mcp_proxy)
            .args(["--port", &port.to_string(), "--host", "127.0.0.1"])
            .arg(&server)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        http_row(
            "npm mcp-proxy HTTP→stdio",
            &format!("http://127.0.0.1:{port}/mcp"),
            child,
            &d,
        )
        .await;
    } else {
        skipped(
            "npm mcp-proxy HTTP→stdio",
            "run scripts/install-peers.sh bench",
        );
    }
}

/// Downstream sessions of the HTTP comparison: each its own client (its own `initialize`, its own
/// connection pool), calling sequentially, as many users of one gateway would.
const SESSIONS: usize = 64;

/// A child started for an HTTP row: waits until `url` answers `initialize`, then measures [`SESSIONS`]
/// sessions calling `tool` for [`CONC_TIME`], and prints calls/s against `direct` (when given) and the
/// child's peak RSS. Returns the rate.
async fn sessions_row(
    name: &str,
    url: &str,
    tool: &str,
    mut child: tokio::process::Child,
    direct: Option<f64>,
) -> Option<f64> {
    let t0 = Instant::now();
    let mut clients = Vec::with_capacity(SESSIONS);
    while clients.len() < SESSIONS {
        match Client::builder()
            .connect_http(url, HttpClientConfig::default())
            .await
        {
            Ok(c) => clients.push(Arc::new(c)),
            Err(e) if t0.elapsed() > Duration::from_secs(60) => {
                skipped(name, &format!("did not come up: {e}"));
                return None;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    for c in &clients {
        c.call_tool(tool, json!({"text": "warm"})).await.unwrap();
    }
    let done = Arc::new(AtomicUsize::new(0));
    let t0 = Instant::now();
    let tasks: Vec<_> = clients
        .iter()
        .map(|c| {
            let (c, done, tool) = (c.clone(), done.clone(), tool.to_string());
            tokio::spawn(async move {
                while t0.elapsed() < CONC_TIME {
                    c.call_tool(&tool, json!({"text": "hello"})).await.unwrap();
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let rate = done.load(Ordering::Relaxed) as f64 / t0.elapsed().as_secs_f64();
    let rss = child.id().and_then(peak_rss_mib);
    println!(
        "{name:<34} {rate:>9.0} calls/s{}{}",
        direct
            .map(|d| format!(" ({:.3}x)", rate / d))
            .unwrap_or_default(),
        rss.map(|m| format!("  peak RSS {m:.1} MiB"))
            .unwrap_or_default(),
    );
    drop(clients);
    let _ = child.kill().await;
    Some(rate)
}

/// The address `bench-server --http` prints on its first line (`listening on ADDR`).
async fn listening_on(child: &mut tokio::process::Child) -> String {
    let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line)
        .await
        .unwrap();
    line.trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string()
}

/// Streamable HTTP with [`SESSIONS`] sessions: `bench-server` reached directly over HTTP, our gateway
/// (one thread, its default, and one per core) and the Rust `mcp-proxy` 0.6.0 (tower-mcp), each
/// fronting `bench-server` over stdio. Ratios are against the direct row.
async fn sessions(server: &Path, cfg: &Path, peers: &Path) {
    println!("Streamable HTTP, {SESSIONS} sessions calling sequentially, {CONC_TIME:?} each:");
    let mut direct = tokio::process::Command::new(server);
    direct
        .arg("--http")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    let mut child = direct.spawn().unwrap();
    let addr = listening_on(&mut child).await;
    let Some(d) = sessions_row(
        "direct (bench-server HTTP)",
        &format!("http://{addr}/mcp"),
        "echo",
        child,
        None,
    )
    .await
    else {
        return;
    };
    for threads in ["1", "0"] {
        let port = free_port();
        let gw = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"))
            .arg("--config")
            .arg(cfg)
            .args(["--http", &format!("127.0.0.1:{port}"), "--threads", threads])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let name = if threads == "1" {
            "gateway HTTP→stdio"
        } else {
            "gateway HTTP→stdio, thread/core"
        };
        sessions_row(
            name,
            &format!("http://127.0.0.1:{port}/mcp"),
            "echo",
            gw,
            Some(d),
        )
        .await;
    }
    let proxy = peers.join("bench/cargo/bin/mcp-proxy");
    if !proxy.exists() {
        return skipped(
            "mcp-proxy 0.6.0 HTTP→stdio",
            "run scripts/install-peers.sh bench",
        );
    }
    let port = free_port();
    let mut toml = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    write!(
        toml,
        "[proxy]\nname = \"bench-proxy\"\n[proxy.listen]\nhost = \"127.0.0.1\"\nport = {port}\n\
         [[backends]]\nname = \"bench\"\ntransport = \"stdio\"\ncommand = {:?}\n",
        server.display().to_string()
    )
    .unwrap();
    let child = tokio::process::Command::new(&proxy)
        .arg("--config")
        .arg(toml.path())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // It serves MCP at the root of its address.
    sessions_row(
        "mcp-proxy 0.6.0 HTTP→stdio",
        &format!("http://127.0.0.1:{port}/"),
        "bench/echo",
        child,
        Some(d),
    )
    .await;
}

/// Calls in the short and the long run of [`instructions`]; the figure is per call of the difference.
const COUNT_SHORT: usize = 1_000;
const COUNT_LONG: usize = 6_000;

/// The gateway's instructions per call, counted by callgrind (see the module docs).
async fn instructions(cfg: &Path) {
    if Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .map_or(true, |s| !s.success())
    {
        return skipped("instructions", "valgrind is not installed");
    }
    println!("instructions per call (callgrind; load-independent)");
    let server = bench_server();
    // `--only TEXT`: the rows whose name contains TEXT (`--only stdio→stdio`).
    let args: Vec<String> = std::env::args().collect();
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    // `--baseline PATH`: another build of `bench-server` (another commit's) counted first, in the same run.
    let baseline = args
        .iter()
        .position(|a| a == "--baseline")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let paths = [
        baseline.as_deref().map(Counted::Baseline),
        Some(Counted::Direct(&server)),
        Some(Counted::DirectHttp(&server)),
        Some(Counted::PumpRelay(&server)),
        Some(Counted::Gateway(cfg)),
        Some(Counted::GatewayHttp(cfg)),
    ];
    for path in paths
        .into_iter()
        .flatten()
        .filter(|p| only.is_none_or(|o| p.name().contains(o.as_str())))
    {
        for in_flight in [1, IN_FLIGHT] {
            let short = count_instructions(path, in_flight, COUNT_SHORT).await;
            let long = count_instructions(path, in_flight, COUNT_LONG).await;
            let per_call = (long as f64 - short as f64) / (COUNT_LONG - COUNT_SHORT) as f64;
            println!(
                "{:<28} {in_flight:>3} in flight {per_call:>9.0} instructions/call",
                path.name()
            );
        }
    }
}

/// What runs under callgrind: `bench-server` itself (the yardstick: a relayed call costs the gateway a
/// server's side and a client's side of a call), the least relay on the runtime ([`pump_relay`]) in
/// front of it, or the gateway in front of it.
#[derive(Clone, Copy)]
enum Counted<'a> {
    Baseline(&'a Path),
    Direct(&'a Path),
    DirectHttp(&'a Path),
    PumpRelay(&'a Path),
    Gateway(&'a Path),
    GatewayHttp(&'a Path),
}

impl Counted<'_> {
    fn name(self) -> &'static str {
        match self {
            Counted::Baseline(_) => "bench-server (baseline)",
            Counted::Direct(_) => "bench-server (direct)",
            Counted::DirectHttp(_) => "bench-server HTTP (direct)",
            Counted::PumpRelay(_) => "least relay on the runtime",
            Counted::Gateway(_) => "gateway stdio→stdio",
            Counted::GatewayHttp(_) => "gateway HTTP→stdio",
        }
    }
}

/// Runs `counted` under callgrind for `calls` `echo` calls, `in_flight` at a time, and returns the
/// instructions it executed in all (start-up included).
async fn count_instructions(counted: Counted<'_>, in_flight: usize, calls: usize) -> u64 {
    let out = tempfile::Builder::new()
        .suffix(".callgrind")
        .tempfile()
        .unwrap()
        .into_temp_path();
    let mut gw = tokio::process::Command::new("valgrind");
    gw.arg("--tool=callgrind")
        .arg("--dump-instr=no")
        .arg("--compress-strings=no")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null());
    match counted {
        Counted::Direct(server) | Counted::Baseline(server) => gw.arg(server),
        Counted::DirectHttp(server) => gw.arg(server).arg("--http"),
        Counted::PumpRelay(server) => gw
            .arg(std::env::current_exe().unwrap())
            .arg("--pump-relay")
            .arg(server),
        Counted::Gateway(cfg) | Counted::GatewayHttp(cfg) => gw
            .arg(env!("CARGO_BIN_EXE_mcp-gateway"))
            .arg("--config")
            .arg(cfg),
    };
    let http = matches!(counted, Counted::GatewayHttp(_) | Counted::DirectHttp(_));
    let (client, pid, child) = if http {
        gw.kill_on_drop(true);
        let (child, url) = if let Counted::DirectHttp(_) = counted {
            // bench-server prints its address first, and stops when its stdin closes.
            gw.stdin(Stdio::piped()).stdout(Stdio::piped());
            let mut child = gw.spawn().unwrap();
            let addr = listening_on(&mut child).await;
            (child, format!("http://{addr}/mcp"))
        } else {
            let port = free_port();
            gw.args(["--http", &format!("127.0.0.1:{port}")])
                .stdin(Stdio::null());
            (gw.spawn().unwrap(), format!("http://127.0.0.1:{port}/mcp"))
        };
        let t0 = Instant::now();
        let client = loop {
            match Client::builder()
                .connect_http(&url, HttpClientConfig::default())
                .await
            {
                Ok(c) => break c,
                Err(e) if t0.elapsed() > Duration::from_secs(120) => {
                    panic!("{} under callgrind did not come up: {e}", counted.name())
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        };
        let pid = child.id().unwrap();
        (Arc::new(client), pid, Some(child))
    } else {
        let client = Client::builder().spawn(gw).await.unwrap();
        let pid = client.server_pid().unwrap();
        (Arc::new(client), pid, None)
    };
    let mut tasks = Vec::new();
    for _ in 0..in_flight {
        let c = client.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..calls / in_flight {
                c.call_tool("echo", json!({"text": "hello"})).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    // SIGTERM: callgrind writes its counts as the process ends (a kill on drop would lose them).
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    let t0 = Instant::now();
    let total = loop {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if let Some(n) = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("totals:")
                    .or_else(|| l.strip_prefix("summary:"))
            })
            .and_then(|n| n.trim().parse().ok())
        {
            break n;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "callgrind wrote no totals to {}",
            out.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    drop(client);
    drop(child);
    if std::env::args().any(|a| a == "--keep") {
        let kept = out.keep().unwrap();
        println!(
            "  (kept {}: callgrind_annotate --inclusive=yes it)",
            kept.display()
        );
    }
    total
}
