//! A deployment's throughput and tail latency through nginx: 1, 2 and 4 everything-server instances
//! sharing Redis, and one instance with its in-memory stores against the same with Redis (the shared
//! stores' cost per request), all in one run, beside the floor (nginx answering by itself).
//!
//! `cargo bench -p examples --bench scale_bench` (needs redis-server and nginx; SCALE_BENCH_SECS per
//! configuration, default 5; SCALE_BENCH_CLIENTS concurrent sessions, default 16). Each client holds one
//! handshake-era session and calls `test_simple_text` back to back (SSE answers: with Redis, each answer's
//! event is written to the shared log before it is sent). On a 2-core machine the load generator, nginx,
//! Redis and the instances share the cores: more instances cannot add CPU, so the curve shows the cost of
//! sharing and of the extra hop, not how far the design scales.

#[path = "../tests/it/scale_support/mod.rs"]
mod scale_support;

use scale_support::Cluster;
use std::time::{Duration, Instant};

const ACCEPT: &str = "application/json, text/event-stream";
const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}"#;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    body: &'static str,
    sid: Option<&str>,
) -> reqwest::Response {
    let mut r = http
        .post(url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .body(body);
    if let Some(s) = sid {
        r = r
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    r.send().await.expect("an answer")
}

/// Requests per second and the 50th and 99th percentile latencies (ms) of `clients` sessions calling
/// back to back for `secs`.
async fn load(url: &str, clients: usize, secs: u64) -> (f64, f64, f64, usize) {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(clients * 2)
        .build()
        .unwrap();
    let mut sids = Vec::new();
    for _ in 0..clients {
        let r = post(&http, url, INIT, None).await;
        assert_eq!(r.status(), 200, "initialize");
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let _ = r.bytes().await;
        let r = post(
            &http,
            url,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Some(&sid),
        )
        .await;
        assert_eq!(r.status(), 202);
        sids.push(sid);
    }
    // Warm up every session on every instance (each instance reads a session once).
    for sid in &sids {
        for _ in 0..4 {
            let _ = post(&http, url, CALL, Some(sid)).await.bytes().await;
        }
    }
    let start = Instant::now();
    let until = start + Duration::from_secs(secs);
    let tasks: Vec<_> = sids
        .into_iter()
        .map(|sid| {
            let (http, url) = (http.clone(), url.to_string());
            tokio::spawn(async move {
                let mut lat = Vec::new();
                let mut errors = 0usize;
                while Instant::now() < until {
                    let t = Instant::now();
                    let r = post(&http, &url, CALL, Some(&sid)).await;
                    let ok = r.status() == 200;
                    let body = r.bytes().await.unwrap_or_default();
                    if ok && body.windows(6).any(|w| w == b"result") {
                        lat.push(t.elapsed());
                    } else {
                        errors += 1;
                    }
                }
                (lat, errors)
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (l, e) = t.await.unwrap();
        all.extend(l);
        errors += e;
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    (all.len() as f64 / elapsed, pct(0.50), pct(0.99), errors)
}

/// nginx answering by itself: the floor of the hop.
async fn floor(port: u16, clients: usize, secs: u64) -> f64 {
    let http = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/floor");
    let until = Instant::now() + Duration::from_secs(secs);
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (http, url) = (http.clone(), url.clone());
            tokio::spawn(async move {
                let mut n = 0u64;
                while Instant::now() < until {
                    if let Ok(r) = http.get(&url).send().await {
                        let _ = r.bytes().await;
                        n += 1;
                    }
                }
                n
            })
        })
        .collect();
    let mut n = 0;
    for t in tasks {
        n += t.await.unwrap();
    }
    n as f64 / start.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    let secs = env_or("SCALE_BENCH_SECS", 5);
    let clients = env_or("SCALE_BENCH_CLIENTS", 16) as usize;
    println!(
        "scale_bench: {clients} sessions through nginx, tools/call back to back, {secs} s each"
    );
    println!(
        "{:<28} {:>10} {:>10} {:>10} {:>7}",
        "configuration", "req/s", "p50 ms", "p99 ms", "errors"
    );
    let configs = [
        ("1 instance, memory stores", 1, false),
        ("1 instance, Redis", 1, true),
        ("2 instances, Redis", 2, true),
        ("4 instances, Redis", 4, true),
    ];
    let mut floor_done = false;
    for (name, n, redis) in configs {
        let Some(cluster) = Cluster::start_with("bench", n, redis) else {
            return;
        };
        if !floor_done {
            let f = floor(cluster.port, clients, secs).await;
            println!("{:<28} {:>10.0}", "floor: nginx alone", f);
            floor_done = true;
        }
        let (rps, p50, p99, errors) = load(&cluster.url, clients, secs).await;
        println!("{name:<28} {rps:>10.0} {p50:>10.2} {p99:>10.2} {errors:>7}");
    }
}
