//! Clients we did not write, speaking protocol 2026-07-28 to our everything-server: the Python SDK
//! (`mcp` 2.3, mode "auto") and the TypeScript SDK v2 (`@modelcontextprotocol/client` 2.4,
//! versionNegotiation "auto"), over stdio and Streamable HTTP. Each negotiates the modern era through
//! `server/discover`, answers multi round-trip input requests through its own handlers, and reads our
//! results. Peers come from scripts/install-peers.sh; without them a test says so and passes, unless
//! MCP_PEERS_REQUIRED=1 (as in CI), where it fails.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn peers() -> Option<PathBuf> {
    test_support::peers_with(&[
        "py/bin/python",
        "node/node_modules/@modelcontextprotocol/client/package.json",
    ])
}

fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.output().expect("run peer");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .expect(&stdout);
    serde_json::from_str(line).expect(line)
}

/// The everything-server over HTTP on a free port, killed on drop.
struct HttpServer(Child, u16);

impl HttpServer {
    fn start() -> HttpServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = HttpServer(
            Command::new(env!("CARGO_BIN_EXE_everything-server"))
                .args(["--http", "--port", &port.to_string()])
                .stderr(Stdio::null())
                .spawn()
                .expect("start everything-server"),
            port,
        );
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("everything-server did not listen on {port}");
    }
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.1)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn python(p: &std::path::Path, args: &[&str]) -> Value {
    json_of(
        Command::new(p.join("py/bin/python"))
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../scripts/python_client_modern.py"
            ))
            .args(args),
    )
}

fn check_python(v: &Value, http: bool) {
    assert_eq!(v["protocol_version"], "2026-07-28", "{v}");
    assert_eq!(v["server_name"], "mcp-runtime-everything-server");
    assert_eq!(
        v["multi_round"],
        "Multi-round complete for Ada who likes teal"
    );
    assert_eq!(v["multiple_inputs"], "Name: Ada; Greeting: Paris; Roots: 1");
    assert_eq!(v["request_state"], "state-ok: requestState validated");
    assert_eq!(v["prompt"], "Context: tests");
    assert_eq!(
        v["logs"],
        serde_json::json!(["info"]),
        "one log at the requested level"
    );
    assert_eq!(v["missing_resource"], -32602);
    assert_eq!(v["listen_honored"], true);
    assert_eq!(v["listen_event"], "ToolsListChanged");
    assert_eq!(v["missing_capability"], -32021);
    assert_eq!(
        v["required_capabilities"],
        serde_json::json!({"sampling": {}})
    );
    if http {
        let text = v["custom_headers"].as_str().unwrap();
        assert!(text.contains("Zürich"), "{text}");
    }
}

#[test]
fn python_sdk_client_speaks_2026_to_our_stdio_server() {
    let Some(p) = peers() else { return };
    let v = python(&p, &["stdio", env!("CARGO_BIN_EXE_everything-server")]);
    check_python(&v, false);
}

#[test]
fn python_sdk_client_speaks_2026_to_our_http_server() {
    let Some(p) = peers() else { return };
    let server = HttpServer::start();
    let v = python(&p, &["http", &server.url()]);
    check_python(&v, true);
}

/// Node resolves an ES module's imports from the module's own folder, so the script runs from the
/// folder the SDK is installed in.
fn typescript(p: &std::path::Path, args: &[&str]) -> Value {
    let dir = p.join("node");
    // One copy per test: tests run in parallel.
    let script = dir.join(format!("ts_client_modern-{}.mjs", args[0]));
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/ts_client_modern.mjs"
        ),
        &script,
    )
    .expect("copy the script next to the SDK");
    json_of(
        Command::new("node")
            .arg(&script)
            .args(args)
            .current_dir(&dir),
    )
}

fn check_typescript(v: &Value, http: bool) {
    assert_eq!(v["protocolVersion"], "2026-07-28", "{v}");
    assert_eq!(v["serverName"], "mcp-runtime-everything-server");
    assert_eq!(
        v["multiRound"],
        "Multi-round complete for Grace who likes amber"
    );
    assert_eq!(
        v["multipleInputs"],
        "Name: Grace; Greeting: Lisbon; Roots: 2"
    );
    assert_eq!(v["prompt"], "Context: typescript");
    assert_eq!(v["missingResource"], -32602);
    if http {
        let text = v["customHeaders"].as_str().unwrap();
        assert!(text.contains("São Paulo"), "{text}");
    }
}

#[test]
fn typescript_sdk_v2_client_speaks_2026_to_our_stdio_server() {
    let Some(p) = peers() else { return };
    let v = typescript(&p, &["stdio", env!("CARGO_BIN_EXE_everything-server")]);
    check_typescript(&v, false);
}

#[test]
fn typescript_sdk_v2_client_speaks_2026_to_our_http_server() {
    let Some(p) = peers() else { return };
    let server = HttpServer::start();
    let v = typescript(&p, &["http", &server.url()]);
    check_typescript(&v, true);
}
