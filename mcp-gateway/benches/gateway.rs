//! Calls per second and latency through the gateway, side by side with the same server direct and with
//! other proxies, in one run: `cargo bench -p mcp-gateway --bench gateway`. Prints one row per path;
//! only the ratios mean anything (machines vary from run to run).
//!
//! Paths, all in front of `bench-server` over stdio: direct; our gateway over stdio (one thread, the
//! default, and `--threads 0`, one per core); FastMCP's proxy over stdio (PyPI `fastmcp`); our gateway
//! over Streamable HTTP; the npm `mcp-proxy` over Streamable HTTP. Each: sequential `echo` calls, then
//! 64 in flight. A proxy's peak resident memory (VmHWM) is read from /proc at the end of its row. The
//! peers come from `scripts/install-peers.sh bench`; a row whose peer is missing says so.
//!
//! Slow paths are measured for a bounded time (at most [`SEQ_TIME`] and [`CONC_TIME`]) rather than for a
//! fixed count, so the FastMCP row ends in seconds; its rates are computed from what completed.

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

#[tokio::main]
async fn main() {
    let server = bench_server();
    let mut cfg = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    cfg.write_all(
        json!({"mcpServers": {"bench": {"command": server}}})
            .to_string()
            .as_bytes(),
    )
    .unwrap();
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
