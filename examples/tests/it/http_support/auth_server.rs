//! The local OAuth 2.1 authorization server of the tests (oauth_as.py, on the Python SDK's
//! `mcp.server.auth`), started on a free loopback port and stopped on drop: it mints JWTs signed with a
//! key it serves as a JWKS, rotates that key, introspects opaque tokens and exchanges tokens (RFC 8693).
//! Shared by the examples' resource-server tests and the gateway's authorization tests.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The authorization server, stopped on drop.
pub struct AuthServer {
    child: Child,
    /// The issuer identifier, as its metadata and tokens spell it (with a trailing slash).
    pub issuer: String,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl AuthServer {
    /// Starts oauth_as.py with `python` (the peers' interpreter) and waits until it listens.
    pub fn start(python: &Path) -> AuthServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/tests/it/http_support/oauth_as.py"
        );
        let mut child = Command::new(python)
            .args([script, &port.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the authorization server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(
            line.trim(),
            "ready",
            "the authorization server did not start"
        );
        // uvicorn binds right after the lifespan starts.
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        AuthServer {
            child,
            issuer: format!("http://127.0.0.1:{port}/"),
        }
    }

    /// A token: `body` is `{"claims": {...}, "ttl": s, "stray": bool, "opaque": bool}`.
    pub async fn mint(&self, body: Value) -> String {
        let r: Value = reqwest::Client::new()
            .post(format!("{}test/mint", self.issuer))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        r["token"].as_str().unwrap().to_string()
    }

    /// A new signing key; the JWKS then holds only the new one.
    pub async fn rotate(&self) {
        let r = reqwest::Client::new()
            .post(format!("{}test/rotate", self.issuer))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }

    /// The token endpoint of RFC 8693 exchanges (client `gw`, secret `gw-secret`).
    pub fn exchange_endpoint(&self) -> String {
        format!("{}test/exchange", self.issuer)
    }

    /// How many exchanges each subject had.
    pub async fn exchanges(&self) -> Value {
        reqwest::Client::new()
            .get(format!("{}test/exchanges", self.issuer))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}
