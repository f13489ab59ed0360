//! Load: 1,000 concurrent Streamable HTTP sessions, each initializing and calling a tool, against one
//! server. Prints its figures (run with `--nocapture` to see them).

use crate::http_support;

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
                // Sessions belong to the handshake era: these clients do not probe for 2026-07-28.
                let c = Client::builder()
                    .era(mcp_runtime::Era::Legacy)
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

/// One HTTP/1.1 exchange on a raw socket: the status, the session id if any, the body.
fn read_response(r: &mut impl std::io::BufRead) -> (u16, Option<String>, Vec<u8>) {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (mut len, mut session) = (0usize, None);
    loop {
        line.clear();
        r.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').unwrap_or((l, ""));
        match k.to_ascii_lowercase().as_str() {
            "content-length" => len = v.trim().parse().unwrap(),
            "mcp-session-id" => session = Some(v.trim().to_string()),
            _ => {}
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    (status, session, body)
}

fn post(session: Option<&str>, body: &str) -> Vec<u8> {
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(s) = session {
        req.push_str(&format!("Mcp-Session-Id: {s}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    req.into_bytes()
}

/// 64 connections each send 24 pipelined POSTs of a 64 KiB `echo` (1,536 calls, 96 MiB) and read nothing
/// for seconds: the server reads bodies only within its byte budget and keeps each answer charged until
/// it is written, so its peak memory stays under 48 MiB; once the clients read, every call is answered.
/// (Each connection also costs hyper's buffers, up to `max_header_bytes`, outside the budget.)
#[test]
fn large_posts_from_clients_that_do_not_read_keep_the_server_under_48_mib() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream;
    const CONNS: usize = 64;
    const PER_CONN: usize = 24;
    const SIZE: usize = 64 * 1024;
    raise_fd_limit();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bench-server"))
        .arg("--http")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn server");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .expect("address")
        .to_string();
    let mut c = TcpStream::connect(&addr).unwrap();
    c.write_all(&post(None, r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)).unwrap();
    let mut r = BufReader::new(c.try_clone().unwrap());
    let (status, session, _) = read_response(&mut r);
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    c.write_all(&post(
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ))
    .unwrap();
    assert_eq!(read_response(&mut r).0, 202);

    let text = "x".repeat(SIZE);
    let conns: Vec<TcpStream> = (0..CONNS)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let writers: Vec<_> = conns
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mut c = c.try_clone().unwrap();
            let (session, text) = (session.clone(), text.clone());
            std::thread::spawn(move || {
                for i in 0..PER_CONN {
                    let id = k * PER_CONN + i + 1;
                    let call = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#);
                    c.write_all(&post(Some(&session), &call)).unwrap();
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(4));
    let stalled = rss_kib(child.id());
    let readers: Vec<_> = conns
        .into_iter()
        .map(|c| {
            std::thread::spawn(move || {
                let mut r = BufReader::new(c);
                for _ in 0..PER_CONN {
                    let (status, _, body) = read_response(&mut r);
                    assert_eq!(status, 200);
                    assert!(body.len() > SIZE, "an echo came back short");
                }
            })
        })
        .collect();
    for t in writers.into_iter().chain(readers) {
        t.join().unwrap();
    }
    let peak = rss_kib(child.id());
    drop(child.stdin.take());
    let _ = child.wait();
    let _ = out.read_to_end(&mut Vec::new());
    println!("HTTP: {} calls of 64 KiB on {CONNS} connections that did not read for 4 s: server peak RSS {stalled} KiB while stalled, {peak} KiB over the run", CONNS * PER_CONN);
    assert!(peak < 48 * 1024, "server peak RSS {peak} KiB");
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}
