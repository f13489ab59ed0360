//! Faults on the server side of stdio: a client that vanishes, and a flood of notifications.

use crate::common;
use common::{bench_server, Raw};
use serde_json::json;
use std::io::Write;
use std::time::{Duration, Instant};

/// The client disappears (both pipes closed) with calls in flight: the server cancels those handlers at
/// once (each `sleep` reports its cancellation) and exits, instead of waiting them out.
#[test]
fn a_vanished_client_gets_its_handlers_cancelled_and_the_server_exits() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(bench_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    writeln!(stdin, "{}", json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})).unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    for i in 0..20 {
        writeln!(stdin, "{}", json!({"jsonrpc":"2.0","id":100 + i,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60_000}}})).unwrap();
    }
    std::thread::sleep(Duration::from_millis(100));
    let gone_at = Instant::now();
    drop(stdin);
    drop(stdout);
    let mut cancelled = 0;
    while cancelled < 20 {
        match rx.recv_timeout(Duration::from_secs(3)) {
            Ok(l) if l.contains("sleep cancelled") => cancelled += 1,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert_eq!(cancelled, 20, "every in-flight handler was cancelled");
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(
            gone_at.elapsed() < Duration::from_secs(3),
            "the server did not exit after its client vanished"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!(
        "vanished client: 20 handlers cancelled and server exited in {:?}",
        gone_at.elapsed()
    );
}

/// 100,000 notifications in a burst are handled inline and never answered; the request behind them is.
#[test]
fn a_flood_of_notifications_is_absorbed() {
    let mut s = Raw::spawn(bench_server());
    s.initialize("2025-11-25");
    let mut burst = Vec::with_capacity(100_000 * 80);
    for i in 0..100_000 {
        let n = match i % 3 {
            0 => {
                json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":i,"progress":1}})
            }
            1 => {
                json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":i}})
            }
            _ => json!({"jsonrpc":"2.0","method":"notifications/roots/list_changed"}),
        };
        serde_json::to_writer(&mut burst, &n).unwrap();
        burst.push(b'\n');
    }
    let t0 = Instant::now();
    s.stdin.as_mut().unwrap().write_all(&burst).unwrap();
    s.still_serving(1);
    eprintln!("100,000 notifications absorbed in {:?}", t0.elapsed());
    assert!(
        s.silent_for(Duration::from_millis(200)),
        "no notification was answered"
    );
}
