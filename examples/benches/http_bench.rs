//! Side-by-side Streamable HTTP benchmark: `tools/call` of the same `add` tool on our server and on
//! rmcp's Streamable HTTP server, each in its own process, driven by the same load generator (many
//! concurrent clients, each with its own session, each sending its next call when the last is answered).
//! Handshake-era modes first, then protocol 2026-07-28 (stateless: every POST carries its `_meta` and the
//! `Mcp-Method`/`Mcp-Name` headers; no session on either side).
//!
//! Run: `cargo bench -p examples --bench http_bench`. `BENCH_SECS` sets the seconds per run (default 5),
//! `BENCH_CLIENTS` the concurrent clients (default 64). The bench re-executes itself as the server
//! (`HTTP_BENCH_SERVER=<kind>`, `PORT=<port>`).

use rmcp::schemars;
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Add {
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
}

mod rmcp_server {
    use super::Add;
    use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
    use rmcp::model::{ServerCapabilities, ServerConfig};
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    use rmcp::{tool, tool_handler, tool_router, ServerHandler};

    #[derive(Clone)]
    pub struct Bench {
        #[allow(dead_code)] // the router #[tool_handler] builds is `Self::tool_router()`
        tool_router: ToolRouter<Self>,
    }

    #[tool_router]
    impl Bench {
        #[tool(description = "Add two numbers.")]
        async fn add(&self, Parameters(Add { a, b }): Parameters<Add>) -> String {
            (a + b).to_string()
        }
    }

    #[tool_handler]
    impl ServerHandler for Bench {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }

    pub async fn serve(listener: tokio::net::TcpListener, json: bool) {
        let mut config = StreamableHttpServerConfig::default();
        if json {
            // rmcp answers with JSON only when it runs without sessions.
            config.legacy_session_mode = false;
            config.json_response = true;
        }
        let service = StreamableHttpService::new(
            || {
                Ok(Bench {
                    tool_router: Bench::tool_router(),
                })
            },
            LocalSessionManager::default().into(),
            config,
        );
        let app = axum::Router::new().nest_service("/mcp", service);
        // Without TCP_NODELAY small SSE answers wait on delayed ACKs: give rmcp the setting ours uses.
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, app).await.unwrap();
    }
}

mod our_server {
    use super::Add;
    use mcp_runtime::http::{serve_http_on, HttpConfig};
    use mcp_runtime::protocol::{CallToolResult, Tool};
    use mcp_runtime::server::{Arguments, ToolRoute};
    use mcp_runtime::{Context, Server};

    pub async fn serve(listener: tokio::net::TcpListener, config: HttpConfig) {
        let schema = match serde_json::to_value(rmcp::schemars::schema_for!(Add)).unwrap() {
            serde_json::Value::Object(m) => m,
            _ => unreachable!(),
        };
        let add = ToolRoute::new(
            Tool::new("add", "Add two numbers.", schema),
            |args: Arguments, _: Context| async move {
                let Add { a, b } = args.parse().map_err(|e| {
                    mcp_runtime::protocol::ErrorObject::invalid_params(e.to_string())
                })?;
                Ok(CallToolResult::text((a + b).to_string()))
            },
        );
        let server = Server::builder()
            .name("bench")
            .version("1")
            .tool(add)
            .build()
            .unwrap();
        serve_http_on(server, listener, config, std::future::pending())
            .await
            .unwrap();
    }
}

/// Pins this process (and the threads it starts later) to one CPU, so that server and load generator
/// do not compete and the figures measure the server.
fn pin_to_cpu(cpu: usize) {
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Online CPUs (not the ones this process may use: that shrinks once pinned).
fn cpus() -> usize {
    (unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }).max(1) as usize
}

/// User plus system CPU time of a process, from /proc.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0)
        + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_millis(ticks * 1000 / hz.max(1))
}

fn run_server(kind: &str) {
    if cpus() > 1 {
        pin_to_cpu(1);
    }
    let port: u16 = std::env::var("PORT").unwrap().parse().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap();
        match kind {
            "ours-sse" => {
                our_server::serve(listener, mcp_runtime::http::HttpConfig::default()).await
            }
            "ours-json" => {
                our_server::serve(
                    listener,
                    mcp_runtime::http::HttpConfig::default().json_responses(),
                )
                .await
            }
            "ours-json-stateless" => {
                our_server::serve(
                    listener,
                    mcp_runtime::http::HttpConfig::default()
                        .json_responses()
                        .stateless(),
                )
                .await
            }
            "rmcp-sse" => rmcp_server::serve(listener, false).await,
            "rmcp-json-stateless" => rmcp_server::serve(listener, true).await,
            other => panic!("unknown server {other}"),
        }
    });
}

struct Spawned(Child);
impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(kind: &str) -> (Spawned, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(std::env::current_exe().unwrap())
        .env("HTTP_BENCH_SERVER", kind)
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{kind} never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    (Spawned(child), port)
}

/// The JSON-RPC message in an answer: the body itself, or the last `data:` line of an SSE stream.
fn message(content_type: &str, body: &[u8]) -> Value {
    let text = std::str::from_utf8(body).unwrap();
    if content_type.starts_with("text/event-stream") {
        let data = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .rfind(|d| !d.is_empty())
            .unwrap_or("null");
        serde_json::from_str(data).unwrap()
    } else {
        serde_json::from_str(text).unwrap()
    }
}

/// One kept-alive HTTP/1.1 connection speaking just enough of the protocol (Content-Length and chunked
/// bodies), so that the load generator costs far less per call than the servers it measures.
struct Conn {
    stream: tokio::io::BufReader<tokio::net::TcpStream>,
    port: u16,
    buf: Vec<u8>,
}

impl Conn {
    async fn open(port: u16) -> Conn {
        let s = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        s.set_nodelay(true).unwrap();
        Conn {
            stream: tokio::io::BufReader::new(s),
            port,
            buf: Vec::with_capacity(4096),
        }
    }

    /// POSTs `body`; returns the session id header and the JSON-RPC message of the answer. `modern`
    /// sends the 2026-07-28 headers of a `tools/call` of `add`.
    async fn post(
        &mut self,
        session: Option<&str>,
        body: &str,
        modern: bool,
    ) -> (Option<String>, Value) {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
        let version = if modern {
            "2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add"
        } else {
            "2025-06-18"
        };
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMCP-Protocol-Version: {version}\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        if let Some(s) = session {
            req.push_str("Mcp-Session-Id: ");
            req.push_str(s);
            req.push_str("\r\n");
        }
        req.push_str("\r\n");
        req.push_str(body);
        self.stream
            .get_mut()
            .write_all(req.as_bytes())
            .await
            .unwrap();
        let mut line = String::new();
        self.stream.read_line(&mut line).await.unwrap();
        assert!(line.starts_with("HTTP/1.1 2"), "{line}");
        let (mut sid, mut length, mut chunked, mut sse) = (None, 0usize, false, false);
        loop {
            line.clear();
            self.stream.read_line(&mut line).await.unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').unwrap();
            let v = v.trim();
            match k.to_ascii_lowercase().as_str() {
                "mcp-session-id" => sid = Some(v.to_string()),
                "content-length" => length = v.parse().unwrap(),
                "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
                "content-type" => sse = v.starts_with("text/event-stream"),
                _ => {}
            }
        }
        self.buf.clear();
        if chunked {
            loop {
                line.clear();
                self.stream.read_line(&mut line).await.unwrap();
                let n = usize::from_str_radix(line.trim_end(), 16).unwrap();
                let start = self.buf.len();
                self.buf.resize(start + n + 2, 0);
                self.stream
                    .read_exact(&mut self.buf[start..])
                    .await
                    .unwrap();
                self.buf.truncate(start + n);
                if n == 0 {
                    break;
                }
            }
        } else {
            self.buf.resize(length, 0);
            self.stream.read_exact(&mut self.buf).await.unwrap();
        }
        let msg = if self.buf.is_empty() {
            Value::Null
        } else {
            message(
                if sse {
                    "text/event-stream"
                } else {
                    "application/json"
                },
                &self.buf,
            )
        };
        (sid, msg)
    }
}

struct Figures {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// Server CPU time per request.
    cpu_us: f64,
}

/// The era a load speaks: the handshake era with or without sessions, or 2026-07-28.
#[derive(Clone, Copy, PartialEq)]
enum Era {
    Sessions,
    Stateless,
    Modern,
}

async fn load(pid: u32, port: u16, era: Era, clients: usize, secs: f64) -> Figures {
    let stateful = era == Era::Sessions;
    let modern = era == Era::Modern;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}});
    let mut sessions = Vec::new();
    for _ in 0..clients {
        let mut conn = Conn::open(port).await;
        if stateful {
            let (sid, msg) = conn.post(None, &init.to_string(), false).await;
            assert!(msg.get("result").is_some(), "{msg}");
            let sid = sid.expect("a session id");
            conn.post(
                Some(&sid),
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
                false,
            )
            .await;
            sessions.push((conn, Some(sid)));
        } else {
            sessions.push((conn, None));
        }
    }
    // Warm up, then measure.
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let started = Instant::now();
    let cpu_before = cpu_time(pid);
    let tasks: Vec<_> = sessions
        .into_iter()
        .map(|(mut conn, sid)| {
            tokio::spawn(async move {
                let mut lat = Vec::new();
                let mut id = 1u64;
                while Instant::now() < deadline {
                    let body = if modern {
                        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"bench","version":"1"}}}}}}}}"#)
                    } else {
                        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}}}}}}"#)
                    };
                    let t = Instant::now();
                    let (_, msg) = conn.post(sid.as_deref(), &body, modern).await;
                    lat.push(t.elapsed());
                    assert_eq!(msg["result"]["content"][0]["text"], (id + 1).to_string(), "{msg}");
                    id += 1;
                }
                lat
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = (cpu_time(pid) - cpu_before).as_secs_f64();
    all.sort();
    let pct =
        |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)].as_secs_f64() * 1e3;
    Figures {
        rps: all.len() as f64 / elapsed,
        p50_ms: pct(0.5),
        p99_ms: pct(0.99),
        cpu_us: cpu * 1e6 / all.len() as f64,
    }
}

fn main() {
    if let Ok(kind) = std::env::var("HTTP_BENCH_SERVER") {
        run_server(&kind);
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let secs: f64 = std::env::var("BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let clients: usize = std::env::var("BENCH_CLIENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    // The load generator gets one thread on CPU 0; each server process one worker thread on CPU 1.
    if cpus() > 1 {
        pin_to_cpu(0);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "tools/call over Streamable HTTP, {clients} concurrent clients, {secs} s per run; server: 1 worker thread{} (req/s; latency p50 / p99; server CPU per call)",
        if cpus() > 1 { " pinned to CPU 1, load generator on CPU 0" } else { "" }
    );
    // 2026-07-28 requests go to each server in its default configuration (ours answers JSON unless a
    // notification comes first; rmcp in its best stateless mode, JSON answers).
    let pairs: [(&str, &str, &str, Era); 3] = [
        (
            "SSE answers, sessions",
            "ours-sse",
            "rmcp-sse",
            Era::Sessions,
        ),
        (
            "JSON answers, stateless",
            "ours-json-stateless",
            "rmcp-json-stateless",
            Era::Stateless,
        ),
        (
            "2026-07-28, stateless",
            "ours-sse",
            "rmcp-json-stateless",
            Era::Modern,
        ),
    ];
    for (label, ours, theirs, era) in pairs {
        let mut row = Vec::new();
        for kind in [ours, theirs] {
            let (server, port) = spawn(kind);
            let pid = server.0.id();
            rt.block_on(load(pid, port, era, clients, 0.5));
            let f = rt.block_on(load(pid, port, era, clients, secs));
            row.push(f);
        }
        let (a, b) = (&row[0], &row[1]);
        println!(
            "{label:<24} mcp-runtime {:>7.0} req/s p50 {:>5.2} ms p99 {:>5.2} ms {:>5.1} us/call | rmcp {:>7.0} req/s p50 {:>5.2} ms p99 {:>5.2} ms {:>5.1} us/call | {:.2}x req/s",
            a.rps, a.p50_ms, a.p99_ms, a.cpu_us, b.rps, b.p50_ms, b.p99_ms, b.cpu_us, a.rps / b.rps
        );
    }
    let (server, port) = spawn("ours-json");
    let pid = server.0.id();
    rt.block_on(load(pid, port, Era::Sessions, clients, 0.5));
    let f = rt.block_on(load(pid, port, Era::Sessions, clients, secs));
    println!(
        "{:<24} mcp-runtime {:>7.0} req/s p50 {:>5.2} ms p99 {:>5.2} ms {:>5.1} us/call | rmcp: no JSON answers with sessions",
        "JSON answers, sessions", f.rps, f.p50_ms, f.p99_ms, f.cpu_us
    );
}
