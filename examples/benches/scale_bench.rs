//! A deployment's throughput and tail latency through nginx: 1, 2 and 4 everything-server instances
//! sharing Redis, and one instance with its in-memory stores against the same with Redis (the shared
//! stores' cost per request), all in one run, beside the floor (nginx answering by itself).
//!
//! `cargo bench -p examples --bench scale_bench` (needs redis-server and nginx; SCALE_BENCH_SECS per
//! configuration, default 5; SCALE_BENCH_CLIENTS concurrent sessions, default 16; SCALE_BENCH_ROUNDS
//! rounds, default 1; SCALE_BENCH_MAX_INSTANCES, default 4; SCALE_BENCH_BASELINE the path of another
//! build of everything-server, measured beside this one in every round). Each client holds one
//! handshake-era session and calls `test_simple_text` back to back (SSE answers: with Redis, each answer's
//! event is written to the shared log before it is sent). Redis runs with its append-only file, fsynced
//! once a second (Redis's default for it) and, for one instance, before every acknowledgement (what the
//! tests that restart Redis use). Beside req/s, each row counts the CPU per request of every process
//! (instances, Redis, nginx, the load generator): what bounds throughput once the cores are busy, and
//! steadier than req/s while other work shares the machine. On a 2-core machine the load generator, nginx,
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

/// CPU seconds (user and system) the processes `pids` have spent so far, from `/proc/<pid>/stat`.
fn cpu_seconds(pids: &[u32]) -> f64 {
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    pids.iter()
        .filter_map(|pid| {
            let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After the command's closing parenthesis, utime and stime are the 12th and 13th fields.
            let mut f = s[s.rfind(')')? + 2..].split(' ').skip(11);
            let user: f64 = f.next()?.parse().ok()?;
            let system: f64 = f.next()?.parse().ok()?;
            Some((user + system) / tick)
        })
        .sum()
}

/// One configuration's figures.
struct Figures {
    rps: f64,
    p50: f64,
    p99: f64,
    errors: usize,
    /// CPU per request, in microseconds, of the instances, Redis, nginx and this load generator: their
    /// sum bounds throughput on a machine whose cores are all busy, and is steadier than throughput
    /// while other work shares the machine.
    cpu_us: [f64; 4],
}

/// Requests per second, the 50th and 99th percentile latencies (ms), and the CPU per request of
/// `clients` sessions calling back to back for `secs` (CPU counted for each group of `processes`, and
/// this process).
async fn load(url: &str, clients: usize, secs: u64, processes: [Vec<u32>; 3]) -> Figures {
    let [instances, redis, nginx] = processes;
    let groups = [instances, redis, nginx, vec![std::process::id()]];
    let cpu = || groups.each_ref().map(|pids| cpu_seconds(pids));
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
    let cpu_before = cpu();
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
    let cpu_after = cpu();
    all.sort();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    Figures {
        rps: all.len() as f64 / elapsed,
        p50: pct(0.50),
        p99: pct(0.99),
        errors,
        cpu_us: std::array::from_fn(|i| {
            (cpu_after[i] - cpu_before[i]) * 1e6 / all.len().max(1) as f64
        }),
    }
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

/// One configuration's figures, printed as a row.
async fn run(name: &str, cluster: &Cluster, clients: usize, secs: u64) -> Figures {
    let f = load(&cluster.url, clients, secs, cluster.processes()).await;
    let [i, r, n, l] = f.cpu_us;
    println!(
        "{name:<40} {:>9.0} {:>8.2} {:>8.2} {:>7} {:>6.0} = {i:.0} + {r:.0} + {n:.0} + {l:.0}",
        f.rps,
        f.p50,
        f.p99,
        f.errors,
        f.cpu_us.iter().sum::<f64>()
    );
    f
}

/// How Redis with `fsync` compares with the memory stores, printed under its row.
fn versus(memory: &Figures, redis: &Figures) {
    println!(
        "{:<40} {:>9.2}x {:>32.2}x",
        "  Redis / memory (req/s; CPU per request)",
        redis.rps / memory.rps,
        memory.cpu_us.iter().sum::<f64>() / redis.cpu_us.iter().sum::<f64>()
    );
}

#[tokio::main]
async fn main() {
    let secs = env_or("SCALE_BENCH_SECS", 5);
    let clients = env_or("SCALE_BENCH_CLIENTS", 16) as usize;
    let rounds = env_or("SCALE_BENCH_ROUNDS", 1).max(1);
    let most = env_or("SCALE_BENCH_MAX_INSTANCES", 4);
    // Another build of everything-server (an earlier commit), measured beside this one in each round.
    let baseline = std::env::var_os("SCALE_BENCH_BASELINE").map(std::path::PathBuf::from);
    println!(
        "scale_bench: {clients} sessions through nginx, tools/call back to back, {secs} s each; \
         CPU µs/req counts every process (instances, Redis, nginx, this load generator)"
    );
    println!(
        "{:<40} {:>9} {:>8} {:>8} {:>7} CPU µs/req = instances + Redis + nginx + load generator",
        "configuration", "req/s", "p50 ms", "p99 ms", "errors",
    );
    let mut floor_done = false;
    for round in 1..=rounds {
        if rounds > 1 {
            println!("round {round}");
        }
        let mut builds = vec![("", None)];
        if let Some(b) = &baseline {
            builds.push((" (baseline)", Some(b.clone())));
        }
        for (tag, bin) in builds {
            let launch = || match &bin {
                Some(b) => scale_support::everything_server_at(b.clone()),
                None => scale_support::everything_server(),
            };
            let Some(cluster) = Cluster::launching("bench", 1, false, launch()) else {
                return;
            };
            if !floor_done {
                let f = floor(cluster.port, clients, secs).await;
                println!("{:<40} {:>9.0}", "floor: nginx alone", f);
                floor_done = true;
            }
            let memory = run(&format!("1 instance, memory{tag}"), &cluster, clients, secs).await;
            drop(cluster);
            // Redis's append-only file written as its default has it (fsync once a second), then as
            // the tests that restart Redis need (fsync before each acknowledgement).
            for fsync in ["everysec", "always"] {
                let Some(cluster) = Cluster::launching_fsync("bench", 1, Some(fsync), launch())
                else {
                    return;
                };
                let name = format!("1 instance, Redis (fsync {fsync}){tag}");
                let redis = run(&name, &cluster, clients, secs).await;
                versus(&memory, &redis);
            }
            for n in [2, 4].into_iter().filter(|n| *n <= most) {
                let Some(cluster) =
                    Cluster::launching_fsync("bench", n as usize, Some("everysec"), launch())
                else {
                    return;
                };
                run(
                    &format!("{n} instances, Redis (fsync everysec){tag}"),
                    &cluster,
                    clients,
                    secs,
                )
                .await;
            }
        }
    }
}
