//! What the gateway tests share: the example servers as upstreams, the npm peers, and a downstream
//! client connected to a gateway in this process.
#![allow(dead_code)]

use mcp_gateway::{Config, Gateway};

use mcp_runtime::client::{Client, ClientBuilder};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use test_support::workspace_bin;

#[allow(unused_imports)] // not every test binary that includes this module uses it
pub use test_support::server_everything;

pub fn config(json: serde_json::Value) -> Config {
    json.to_string().parse().expect("valid config")
}

/// A client connected to the gateway's server over an in-process pipe.
pub async fn connect(gw: &Gateway, builder: ClientBuilder) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    let server = gw.server().clone();
    tokio::spawn(async move { server.serve(sr, sw).await });
    let (cr, cw) = tokio::io::split(client_end);
    builder
        .connect(cr, cw)
        .await
        .expect("connect to the gateway")
}

pub fn names(tools: &[mcp_runtime::protocol::Tool]) -> Vec<String> {
    let mut n: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    n.sort();
    n
}

/// Waits until `f` holds, or fails after `limit`.
pub async fn eventually(limit: Duration, what: &str, mut f: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An example binary that serves on a loopback port and prints `listening on ADDR` first: the child
/// (killed when dropped) and its address.
pub async fn serve_example(name: &str, env: &[(&str, &str)]) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(workspace_bin(name))
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the example");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    tokio::io::BufReader::new(stdout)
        .read_line(&mut line)
        .await
        .expect("read the address");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{name} printed {line:?}"))
        .to_string();
    (child, addr)
}

/// A file of the examples crate (`examples/<rel>`).
pub fn example_file(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples")).join(rel)
}

/// `GET path` on 127.0.0.1:port: the status code and the body.
pub async fn get(port: u16, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text[9..12].parse().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// The gateway binary serving `config` over HTTP on a free loopback port (killed when dropped): the
/// child, the port, and the config file (kept while the gateway runs).
pub async fn http_gateway(
    config: &serde_json::Value,
    args: &[&str],
) -> (tokio::process::Child, u16, tempfile::NamedTempFile) {
    use std::io::Write;
    let mut cfg = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    cfg.write_all(config.to_string().as_bytes()).unwrap();
    let (child, port) = spawn_http_gateway(cfg.path(), args, |_| {}).await;
    (child, port, cfg)
}

/// The gateway binary serving the config file `cfg` over HTTP on a free loopback port, once it
/// listens (killed when dropped; stdin and stdout closed, `configure` sets the rest): the child and
/// the port.
pub async fn spawn_http_gateway(
    cfg: &Path,
    args: &[&str],
    configure: impl FnOnce(&mut tokio::process::Command),
) -> (tokio::process::Child, u16) {
    let port = test_support::free_port();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-gateway"));
    cmd.arg("--config")
        .arg(cfg)
        .args(["--http", &format!("127.0.0.1:{port}")])
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true);
    configure(&mut cmd);
    let child = cmd.spawn().unwrap();
    let t0 = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the gateway did not listen"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (child, port)
}

/// Whether a process runs (a zombie does not).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// An example server's path, as a config's `command`.
pub fn bin(name: &str) -> String {
    workspace_bin(name).display().to_string()
}

/// The catalogue of several real servers: ours (everything-server, jira-server, bench-server) and,
/// when installed, the npm `server-everything`.
pub fn catalogue(discovery: bool) -> serde_json::Value {
    let mut servers = serde_json::json!({
        "every": {"command": bin("everything-server")},
        "jira": {"command": bin("jira-server")},
        "bench": {"command": bin("bench-server")},
    });
    if let Some(p) = server_everything() {
        servers["npm"] = serde_json::json!({"command": p});
    }
    serde_json::json!({"mcpServers": servers, "gateway": {"discovery": discovery}})
}
