//! Soak: `bench-server` under steady mixed load for `SOAK_SECS` (default 600), its memory sampled as it
//! goes. The load mixes small and 64 KiB echoes, adds, sleeps that finish and sleeps cancelled by a
//! client timeout (so the cancellation registry and the grace-period path are exercised), and
//! `tools/list`, with 32 calls in flight at all times.
//!
//! Prints one line per sample (calls so far, the server's resident set) and a verdict. Memory is flat
//! when the resident set at the end is within 25% (and 4 MiB) of the resident set one tenth of the way
//! in, after warm-up; otherwise the bench exits with status 1.
//!
//! Run: `SOAK_SECS=600 cargo bench -p examples --bench soak`.

use mcp_runtime::client::{CallOptions, Client, StderrMode};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

async fn worker(
    client: Arc<Client>,
    n: u64,
    calls: Arc<AtomicU64>,
    errors: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) {
    let big = "x".repeat(64 * 1024);
    let mut i = n;
    while !stop.load(Ordering::Relaxed) {
        i = i.wrapping_add(7919);
        let ok = match i % 8 {
            0 => client
                .call_tool("echo", json!({ "text": big }))
                .await
                .is_ok(),
            1 | 2 => client
                .call_tool("add", json!({ "a": i as f64, "b": 1.5 }))
                .await
                .is_ok(),
            3 => client.call_tool("sleep", json!({ "ms": 2 })).await.is_ok(),
            4 => {
                // Cancelled by the client's timeout: the call fails, the server must forget it.
                let opts = CallOptions {
                    timeout: Some(Duration::from_millis(3)),
                    ..Default::default()
                };
                client
                    .call_tool_with("sleep", json!({ "ms": 10_000 }), opts)
                    .await
                    .is_err()
            }
            5 => client.list_all_tools().await.is_ok(),
            _ => client
                .call_tool("echo", json!({ "text": format!("soak {i}") }))
                .await
                .is_ok(),
        };
        calls.fetch_add(1, Ordering::Relaxed);
        if !ok {
            errors.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn main() {
    let secs: u64 = std::env::var("SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_bench-server"));
        cmd.env("RUST_LOG", "off");
        let client = Client::builder()
            .name("soak")
            .stderr(StderrMode::Null)
            .spawn(cmd)
            .await
            .expect("start bench-server");
        let pid = client.server_pid().expect("server pid");
        let client = Arc::new(client);
        let (calls, errors, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
        let workers: Vec<_> = (0..32)
            .map(|n| tokio::spawn(worker(client.clone(), n, calls.clone(), errors.clone(), stop.clone())))
            .collect();

        let start = Instant::now();
        let total = Duration::from_secs(secs);
        let every = Duration::from_secs((secs / 20).max(1));
        let mut samples: Vec<(f64, u64)> = Vec::new();
        println!("{:>8} {:>12} {:>10}", "seconds", "calls", "RSS KiB");
        while start.elapsed() < total {
            tokio::time::sleep(every.min(total.saturating_sub(start.elapsed())).max(Duration::from_millis(10))).await;
            let Some(rss) = rss_kib(pid) else {
                eprintln!("soak: bench-server is gone");
                std::process::exit(1);
            };
            let t = start.elapsed().as_secs_f64();
            samples.push((t, rss));
            println!("{t:>8.0} {:>12} {rss:>10}", calls.load(Ordering::Relaxed));
        }
        stop.store(true, Ordering::Relaxed);
        for w in workers {
            let _ = w.await;
        }
        let (calls, errors) = (calls.load(Ordering::Relaxed), errors.load(Ordering::Relaxed));
        let baseline = samples[samples.len() / 10].1;
        let last = samples.last().unwrap().1;
        let peak = samples.iter().map(|s| s.1).max().unwrap();
        let growth = last as f64 / baseline as f64 - 1.0;
        println!(
            "soak: {secs} s, {calls} calls ({:.0}/s), {errors} unexpected outcomes; RSS after warm-up {baseline} KiB, \
             at the end {last} KiB ({:+.1}%), peak {peak} KiB",
            calls as f64 / secs as f64,
            growth * 100.0
        );
        let flat = last <= baseline + (baseline / 4).max(4096);
        println!("soak: memory {}", if flat { "flat" } else { "GROWING" });
        if !flat || errors > 0 {
            std::process::exit(1);
        }
    });
}
