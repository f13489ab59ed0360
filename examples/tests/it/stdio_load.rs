//! Load over stdio: many calls in flight from one client, and a client that stops reading.

use crate::common;
use common::bench_server;
use mcp_runtime::{Client, StderrMode};
use serde_json::json;
use std::collections::HashSet;
use std::io::Write;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_calls_in_flight_are_each_answered_once() {
    let client = Client::builder()
        .stderr(StderrMode::Null)
        .spawn(tokio::process::Command::new(bench_server()))
        .await
        .expect("connect");
    let client = std::sync::Arc::new(client);
    let mut tasks = Vec::with_capacity(10_000);
    for i in 0..10_000u32 {
        let c = client.clone();
        tasks.push(tokio::spawn(async move {
            let r = c
                .call_tool("echo", json!({"text": format!("msg-{i}")}))
                .await
                .expect("call");
            (i, r.text_content())
        }));
    }
    let mut seen = HashSet::new();
    for t in tasks {
        let (i, text) = t.await.unwrap();
        assert_eq!(text, format!("msg-{i}"), "each answer matches its request");
        assert!(seen.insert(i));
    }
    assert_eq!(seen.len(), 10_000);
}

fn rss_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// What [`stall`] saw.
struct Stalled {
    /// Calls the server had taken from its input when the client had not read for 4 s.
    accepted: usize,
    /// The server's peak RSS then, and over the whole run (KiB).
    stalled_peak: u64,
    peak: u64,
}

/// Sends `calls` `echo` calls of `size` bytes to a fresh `bench-server` from a thread, reads none of the
/// answers for 4 s (its output pipe is not read at all), then reads every answer, each checked to carry
/// its text.
fn stall(calls: usize, size: usize) -> Stalled {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut child = Command::new(bench_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn server");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("\"result\""), "{line}");
    let sent = std::sync::Arc::new(AtomicUsize::new(0));
    let writer = std::thread::spawn({
        let sent = sent.clone();
        move || {
            let text = "x".repeat(size);
            for i in 1..=calls {
                let call = format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{text}\"}}}}}}\n");
                stdin.write_all(call.as_bytes()).unwrap();
                sent.store(i, Ordering::Relaxed);
            }
            stdin
        }
    });
    std::thread::sleep(Duration::from_secs(4));
    let accepted = sent.load(Ordering::Relaxed);
    let stalled_peak = rss_kib(pid, "VmHWM:");
    assert!(
        accepted < calls,
        "the server read all {calls} calls while nobody read its answers"
    );
    // Now read: every call is answered with its text.
    for answered in 0..calls {
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(
            line.len() > size,
            "answer {answered} came back short: {} bytes",
            line.len()
        );
    }
    let peak = rss_kib(pid, "VmHWM:");
    drop(writer.join().unwrap());
    let _ = child.wait();
    Stalled {
        accepted,
        stalled_peak,
        peak,
    }
}

/// The client keeps sending 16 KiB calls but does not read for seconds: the server stops reading once
/// what it holds (requests read, answers unwritten) fills its budget, so its memory stays bounded; when
/// the client reads again, every request is answered.
#[test]
fn a_slow_reader_keeps_server_memory_bounded() {
    const CALLS: usize = 20_000;
    let s = stall(CALLS, 16 * 1024);
    eprintln!(
        "slow reader: {} of {CALLS} calls of 16 KiB accepted while stalled, server peak RSS {} KiB",
        s.accepted, s.stalled_peak
    );
    assert!(
        s.stalled_peak < 64 * 1024,
        "server peak RSS {} KiB while the client did not read",
        s.stalled_peak
    );
}

/// A client sends a few thousand 64 KiB `echo` calls and reads nothing for seconds: the server stops
/// reading at its byte budget, so its peak memory stays under 48 MiB whatever the size of the messages;
/// once the client reads, every call is answered.
#[test]
fn large_messages_from_a_client_that_does_not_read_keep_the_server_under_48_mib() {
    const CALLS: usize = 3000;
    let s = stall(CALLS, 64 * 1024);
    eprintln!("large messages: {} calls of 64 KiB accepted while the client did not read; server peak RSS {} KiB while stalled, {} KiB over all {CALLS} calls", s.accepted, s.stalled_peak, s.peak);
    assert!(
        s.peak < 48 * 1024,
        "server peak RSS {} KiB with {CALLS} calls of 64 KiB",
        s.peak
    );
}
