//! Calls per second and latency through the gateway, side by side with the same server direct, in one
//! run: `cargo bench -p mcp-gateway --bench gateway`. Prints one row per path; only the ratios mean
//! anything (machines vary from run to run).
//!
//! Paths: bench-server over stdio (direct); the gateway over stdio in front of bench-server over stdio;
//! the gateway over Streamable HTTP in front of the same. Each: sequential `echo` calls, then 64 in
//! flight. The gateway's peak resident memory (VmHWM) is read from /proc at the end.

use mcp_runtime::client::Client;
use mcp_runtime::http::HttpClientConfig;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SEQUENTIAL: usize = 3000;
const IN_FLIGHT: usize = 64;
const CONCURRENT_TOTAL: usize = 20_000;

fn bench_server() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
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
    for _ in 0..200 {
        client
            .call_tool("echo", json!({"text": "warm"}))
            .await
            .unwrap();
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
    }
    let seq = t0.elapsed();
    lat.sort();
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..IN_FLIGHT {
        let c = client.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..CONCURRENT_TOTAL / IN_FLIGHT {
                c.call_tool("echo", json!({"text": "hello"})).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let conc = t0.elapsed();
    Row {
        seq_per_s: SEQUENTIAL as f64 / seq.as_secs_f64(),
        p50: lat[lat.len() / 2],
        p99: lat[lat.len() * 99 / 100],
        conc_per_s: (CONCURRENT_TOTAL / IN_FLIGHT * IN_FLIGHT) as f64 / conc.as_secs_f64(),
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
        "{name:<26} {:>9.0} calls/s ({:.2}x)  p50 {:>6.0} µs  p99 {:>6.0} µs  {IN_FLIGHT} in flight {:>9.0} calls/s ({:.2}x){}",
        r.seq_per_s,
        r.seq_per_s / direct.seq_per_s,
        r.p50.as_secs_f64() * 1e6,
        r.p99.as_secs_f64() * 1e6,
        r.conc_per_s,
        r.conc_per_s / direct.conc_per_s,
        rss.map(|m| format!("  peak RSS {m:.1} MiB")).unwrap_or_default(),
    );
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

    let direct = Arc::new(
        Client::builder()
            .spawn(tokio::process::Command::new(&server))
            .await
            .unwrap(),
    );
    let d = measure(direct).await;
    print("direct (stdio)", &d, &d, None);

    let mut gw = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"));
    gw.arg("--config").arg(cfg.path()).env("RUST_LOG", "warn");
    let stdio = Arc::new(Client::builder().spawn(gw).await.unwrap());
    let pid = stdio.server_pid();
    let r = measure(stdio.clone()).await;
    print("gateway stdio→stdio", &r, &d, pid.and_then(peak_rss_mib));

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut http = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"))
        .arg("--config")
        .arg(cfg.path())
        .args(["--http", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let t0 = Instant::now();
    let client = loop {
        match Client::builder()
            .connect_http(&url, HttpClientConfig::default())
            .await
        {
            Ok(c) => break c,
            Err(e) if t0.elapsed() > Duration::from_secs(20) => panic!("{e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    };
    let r = measure(Arc::new(client)).await;
    print(
        "gateway HTTP→stdio",
        &r,
        &d,
        http.id().and_then(peak_rss_mib),
    );
    let _ = http.kill().await;
}
