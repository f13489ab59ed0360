//! Load: 1,000 concurrent Streamable HTTP sessions, each initializing and calling a tool, against one
//! server. Prints its figures (run with `--nocapture` to see them).

mod http_support;

use http_support::*;
use mcp_runtime::http::{HttpClientConfig, HttpConfig};
use mcp_runtime::Client;
use serde_json::json;
use std::time::{Duration, Instant};

/// Each session holds a client and a server socket: lift the descriptor limit where it is low.
fn raise_fd_limit() {
    unsafe {
        let mut l = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 && l.rlim_cur < 8192 {
            l.rlim_cur = l.rlim_max.min(8192);
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_sessions() {
    raise_fd_limit();
    const SESSIONS: usize = 1000;
    let (svc, addr) = start_service(test_server(), HttpConfig::default().json_responses()).await;
    let url = format!("http://{addr}/mcp");
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(SESSIONS)
        .build()
        .unwrap();
    let started = Instant::now();
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(SESSIONS));
    let tasks: Vec<_> = (0..SESSIONS)
        .map(|i| {
            let url = url.clone();
            let http = http.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                let cfg = HttpClientConfig {
                    open_get_stream: false,
                    http: Some(http),
                    ..Default::default()
                };
                let c = Client::builder()
                    .timeout(Some(Duration::from_secs(60)))
                    .connect_http(&url, cfg)
                    .await
                    .expect("connect");
                // Every session is open at once before any call.
                barrier.wait().await;
                let t = Instant::now();
                let r = c
                    .call_tool("echo", json!({"text": i.to_string()}))
                    .await
                    .expect("call");
                assert_eq!(r.text_content(), i.to_string());
                (c, t.elapsed())
            })
        })
        .collect();
    let mut clients = Vec::with_capacity(SESSIONS);
    let mut latencies = Vec::with_capacity(SESSIONS);
    for t in tasks {
        let (c, l) = t.await.unwrap();
        clients.push(c);
        latencies.push(l);
    }
    let elapsed = started.elapsed();
    assert_eq!(svc.session_count(), SESSIONS);
    latencies.sort();
    let p50 = latencies[SESSIONS / 2];
    let p99 = latencies[SESSIONS * 99 / 100];
    println!(
        "{SESSIONS} concurrent Streamable HTTP sessions: all initialized and called in {:.2} s; call latency p50 {:.1} ms, p99 {:.1} ms",
        elapsed.as_secs_f64(),
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3
    );
    for c in clients {
        c.close().await;
    }
}
