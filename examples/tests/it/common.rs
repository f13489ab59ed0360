//! A raw line-level driver for a stdio server process: the tests speak bytes, not our client, so that
//! they check the wire exactly.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub struct Raw {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// The server's stderr, line by line.
    pub stderr: mpsc::Receiver<String>,
}

impl Raw {
    pub fn spawn(bin: &str) -> Raw {
        let mut child = Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn server");
        let stderr = child.stderr.take().unwrap();
        let (etx, erx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if etx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Raw {
            child,
            stdin,
            lines: rx,
            stderr: erx,
        }
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        let mut s = serde_json::to_vec(v).unwrap();
        s.push(b'\n');
        self.send_bytes(&s);
    }

    pub fn recv(&self) -> Value {
        self.recv_within(Duration::from_secs(10))
            .expect("a message from the server")
    }

    pub fn recv_within(&self, t: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(t).ok()?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("server wrote a non-JSON line ({e}): {line}")),
        )
    }

    /// Nothing arrives within `t`.
    pub fn silent_for(&self, t: Duration) -> bool {
        self.lines.recv_timeout(t).is_err()
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        self.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":version,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}));
        let r = self.recv();
        self.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        r
    }

    /// Waits for a stderr line containing `needle`.
    pub fn stderr_has(&self, needle: &str, t: Duration) -> bool {
        let deadline = std::time::Instant::now() + t;
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.stderr.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return true,
                Ok(_) => continue,
                Err(_) => return false,
            }
        }
        false
    }

    /// A request that must still succeed after each bad input.
    pub fn still_serving(&mut self, id: i64) {
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}));
        let r = self.recv();
        assert_eq!(r["id"], json!(id), "{r}");
        assert_eq!(r["result"]["content"][0]["text"], json!("5"), "{r}");
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn bench_server() -> &'static str {
    env!("CARGO_BIN_EXE_bench-server")
}
