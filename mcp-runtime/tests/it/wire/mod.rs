//! A client that speaks raw JSON lines to an in-process server, for the wire tests (`mod wire;`).
#![allow(dead_code)] // each test crate uses part of it

use mcp_runtime::connection::{self, Peer};
use mcp_runtime::Server;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A client that speaks raw lines to an in-process server.
pub struct Wire {
    tx: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    rx: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    pub next_id: i64,
}

impl Wire {
    pub fn connect(server: &Server) -> Wire {
        Self::connect_as(server, None)
    }

    /// A connection whose transport authenticated `principal`.
    pub fn connect_as(server: &Server, principal: Option<&str>) -> Wire {
        let (a, b) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(a);
        let (peer, out) = Peer::new(server.connection_config().clone());
        let handler = server.session_handler_for(peer.clone(), principal.map(str::to_string));
        tokio::spawn(connection::run(sr, sw, peer, out, handler));
        let (cr, cw) = tokio::io::split(b);
        Wire {
            tx: cw,
            rx: BufReader::new(cr).lines(),
            next_id: 100,
        }
    }

    pub async fn send(&mut self, v: Value) {
        let mut line = v.to_string();
        line.push('\n');
        self.tx.write_all(line.as_bytes()).await.unwrap();
    }

    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.rx.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }

    /// Nothing arrives for a while.
    pub async fn silent(&mut self, ms: u64) {
        if let Ok(Ok(Some(line))) =
            tokio::time::timeout(Duration::from_millis(ms), self.rx.next_line()).await
        {
            panic!("expected silence, got {line}");
        }
    }

    /// Sends a request and returns its response (notifications before it are skipped).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let m = self.recv().await;
            if m["id"] == json!(id) {
                return m;
            }
        }
    }

    /// A 2026-07-28 request: `params` plus the per-request `_meta`.
    pub async fn modern(&mut self, method: &str, params: Value) -> Value {
        self.modern_with(method, params, json!({})).await
    }

    pub async fn modern_with(&mut self, method: &str, mut params: Value, caps: Value) -> Value {
        params["_meta"] = meta(caps);
        self.call(method, params).await
    }

    /// A request that must still work after whatever came before.
    pub async fn still_serving(&mut self) {
        let r = self.modern("tools/list", json!({})).await;
        assert!(r["result"]["tools"].is_array(), "{r}");
    }
}

pub fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "wire", "version": "1"}
    })
}

pub fn code(r: &Value) -> i64 {
    r["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {r}"))
}

pub fn result(r: &Value) -> &Value {
    assert!(r.get("error").is_none(), "an error: {r}");
    &r["result"]
}
