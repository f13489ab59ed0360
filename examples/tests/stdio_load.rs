//! Load over stdio: many calls in flight from one client, and a client that stops reading.

mod common;
use common::{bench_server, Raw};
use mcp_runtime::{Client, StderrMode};
use serde_json::json;
use std::collections::HashSet;
use std::io::Write;
use std::time::{Duration, Instant};

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

/// The client keeps sending but does not read for seconds: the server stops reading once its
/// concurrency limit is full of answers nobody reads, so its memory stays bounded; when the client reads
/// again, every request is answered.
#[test]
fn a_slow_reader_keeps_server_memory_bounded() {
    let mut s = Raw::spawn(bench_server());
    s.initialize("2025-11-25");
    let pid = s.child.id();
    let mut stdin = s.stdin.take().unwrap();
    let text = "y".repeat(16 * 1024);
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let sent2 = sent.clone();
    let text_len = text.len();
    let writer = std::thread::spawn(move || {
        let start = Instant::now();
        let mut i = 0usize;
        // Keep sending for 3 s (each write blocks once the server stops reading).
        while start.elapsed() < Duration::from_secs(3) && i < 200_000 {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}}}\n",
                i + 1,
                text
            );
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
            i += 1;
            sent2.store(i, std::sync::atomic::Ordering::Relaxed);
        }
        stdin
    });
    std::thread::sleep(Duration::from_secs(4));
    let peak_while_stalled = rss_kib(pid, "VmHWM:");
    let sent_n = sent.load(std::sync::atomic::Ordering::Relaxed);
    // 16 KiB requests for 3 s would be gigabytes if the server kept reading.
    assert!(
        sent_n < 20_000,
        "the server kept reading while nobody read its output: {sent_n} requests accepted"
    );
    assert!(
        peak_while_stalled < 64 * 1024,
        "server peak RSS {peak_while_stalled} KiB while the client did not read"
    );
    // Now read everything: every request accepted is answered.
    let stdin = writer.join().unwrap();
    drop(stdin);
    let total = sent.load(std::sync::atomic::Ordering::Relaxed);
    let mut answered = 0;
    while let Some(r) = s.recv_within(Duration::from_secs(10)) {
        assert_eq!(
            r["result"]["content"][0]["text"].as_str().map(str::len),
            Some(text_len)
        );
        answered += 1;
        if answered == total {
            break;
        }
    }
    assert_eq!(answered, total, "every accepted request is answered");
    eprintln!("slow reader: {total} requests accepted while stalled, server peak RSS {peak_while_stalled} KiB");
}

/// A client sends a few thousand 64 KiB `echo` calls and reads nothing for seconds (its output pipe is
/// not read at all): the server stops reading at its byte budget, so its peak memory stays under 48 MiB
/// whatever the size of the messages; once the client reads, every call is answered.
#[test]
fn large_messages_from_a_client_that_does_not_read_keep_the_server_under_48_mib() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicUsize, Ordering};
    const CALLS: usize = 3000;
    const SIZE: usize = 64 * 1024;
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
            let text = "x".repeat(SIZE);
            for i in 1..=CALLS {
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
        accepted < CALLS,
        "the server read all {CALLS} calls while nobody read its answers"
    );
    // Now read: every call is answered with its text.
    let mut answered = 0;
    while answered < CALLS {
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(
            line.len() > SIZE,
            "an echo came back short: {} bytes",
            line.len()
        );
        answered += 1;
    }
    let peak = rss_kib(pid, "VmHWM:");
    let stdin = writer.join().unwrap();
    drop(stdin);
    let _ = child.wait();
    eprintln!("large messages: {accepted} calls of 64 KiB accepted while the client did not read; server peak RSS {stalled_peak} KiB while stalled, {peak} KiB over all {CALLS} calls");
    assert!(
        peak < 48 * 1024,
        "server peak RSS {peak} KiB with {CALLS} calls of 64 KiB"
    );
}
