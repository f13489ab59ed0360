//! What a server on the open internet needs besides tokens: compression that never holds an SSE event
//! back (gzip read raw and decoded as it arrives; zstd and brotli; curl and the Python SDK as clients),
//! HTTP/2 (h2c, and over TLS by ALPN; many SSE streams on one connection), CORS for browsers, and rate
//! limits.

use crate::http_support;

use http_support::*;
use mcp_runtime::http::{
    Compression, Cors, HttpClientConfig, HttpConfig, Quota, RateLimits, ResourceServer, TlsConfig,
    TokenError, TokenVerifier,
};
use mcp_runtime::protocol::ProgressParams;
use mcp_runtime::{tool, AuthInfo, CallOptions, Client, Context, Server};
use serde_json::{json, Value};
use std::io::Write;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When the handler sent each progress event, by progress value (one test at a time uses a label).
static SENT: Mutex<Vec<(String, u64, Instant)>> = Mutex::new(Vec::new());

/// Reports progress `steps` times, `ms` apart, then answers.
#[tool]
async fn progress(ctx: Context, label: String, steps: u64, ms: u64) -> String {
    for i in 1..=steps {
        SENT.lock()
            .unwrap()
            .push((label.clone(), i, Instant::now()));
        ctx.progress(i as f64, Some(steps as f64), None).await;
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    "done".into()
}

/// A large answer, worth compressing.
#[tool]
async fn big() -> String {
    "compressible ".repeat(2000)
}

fn server() -> Server {
    Server::builder()
        .name("edge-test")
        .tools(test_routes())
        .tool(progress_tool())
        .tool(big_tool())
        .build()
        .unwrap()
}

fn compressing() -> HttpConfig {
    HttpConfig {
        compression: Some(Compression::default()),
        ..HttpConfig::default()
    }
}

/// A client that shows the wire as it is: no automatic decompression.
fn raw_http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_gzip()
        .no_zstd()
        .no_brotli()
        .build()
        .unwrap()
}

fn progress_call(id: u64, label: &str, steps: u64, ms: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "progress", "arguments": {"label": label, "steps": steps, "ms": ms},
        "_meta": {"progressToken": label}}})
    .to_string()
}

#[tokio::test]
async fn sse_through_gzip_delivers_each_progress_event_at_once() {
    let s = start(server(), compressing()).await;
    let session = init_session(&s.url()).await;
    let mut resp = raw_http()
        .post(s.url())
        .header("accept", ACCEPT_BOTH)
        .header("accept-encoding", "gzip")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(progress_call(2, "gzip", 6, 150))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    assert_eq!(resp.headers()["content-encoding"], "gzip");
    // Decode the gzip stream as it arrives; note when each progress event becomes readable.
    let mut gz = flate2::write::GzDecoder::new(Vec::new());
    let mut text = String::new();
    let mut received: Vec<(u64, Instant)> = Vec::new();
    let mut answered = false;
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(10), resp.chunk())
        .await
        .expect("a chunk within 10 s")
        .unwrap()
    {
        let at = Instant::now();
        gz.write_all(&chunk).unwrap();
        gz.flush().unwrap();
        text.push_str(&String::from_utf8(std::mem::take(gz.get_mut())).unwrap());
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            // The priming event carries no data.
            let Some(data) = block
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .filter(|d| !d.is_empty())
            else {
                continue;
            };
            let v: Value = serde_json::from_str(data).unwrap();
            if v["method"] == "notifications/progress" {
                received.push((v["params"]["progress"].as_f64().unwrap() as u64, at));
            } else if v["id"] == 2 {
                assert_eq!(v["result"]["content"][0]["text"], "done");
                answered = true;
            }
        }
    }
    assert!(answered, "the response came through the compressor");
    assert_eq!(received.len(), 6, "every progress event arrived");
    let sent: Vec<(u64, Instant)> = SENT
        .lock()
        .unwrap()
        .iter()
        .filter(|(l, _, _)| l == "gzip")
        .map(|(_, i, t)| (*i, *t))
        .collect();
    for (i, got) in &received {
        let (_, at) = sent.iter().find(|(j, _)| j == i).unwrap();
        let delay = got.duration_since(*at);
        // Events are 150 ms apart: a compressor that held one back for the next would show ~150 ms.
        assert!(
            delay < Duration::from_millis(50),
            "progress {i} took {delay:?} to come through gzip"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn json_answers_and_streams_are_compressed_as_the_client_accepts() {
    let s = start(server(), compressing().json_responses()).await;
    let session = init_session(&s.url()).await;
    for (accept, expect) in [
        ("gzip", Some("gzip")),
        ("br", Some("br")),
        ("zstd", Some("zstd")),
        ("gzip, br, zstd", Some("zstd")),
        ("identity", None),
    ] {
        let r = raw_http()
            .post(s.url())
            .header("accept", ACCEPT_BOTH)
            .header("accept-encoding", accept)
            .header("content-type", "application/json")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(call(3, "big", json!({})))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "application/json");
        assert_eq!(
            r.headers()
                .get("content-encoding")
                .map(|v| v.to_str().unwrap()),
            expect,
            "{accept}"
        );
        let n = r.bytes().await.unwrap().len();
        if expect.is_some() {
            assert!(n < 2000, "{accept}: {n} bytes for a 26 kB answer");
        }
    }
    // Small answers go out as they are.
    let r = raw_http()
        .post(s.url())
        .header("accept", ACCEPT_BOTH)
        .header("accept-encoding", "gzip")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(call(4, "echo", json!({"text": "hi"})))
        .send()
        .await
        .unwrap();
    assert!(r.headers().get("content-encoding").is_none());

    // Our client asks for compression and reads every encoding, progress streams included.
    let client = Client::builder()
        .connect_http(&s.url(), HttpClientConfig::default())
        .await
        .unwrap();
    let big = client.call_tool("big", json!({})).await.unwrap();
    assert_eq!(big.text_content().len(), 26000);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let r = client
        .call_tool_with(
            "progress",
            json!({"label": "client", "steps": 3, "ms": 20}),
            CallOptions {
                on_progress: Some(Arc::new(move |p: ProgressParams| {
                    sink.lock().unwrap().push(p.progress)
                })),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(r.text_content(), "done");
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);
    client.close().await;
    s.stop().await;
}

#[tokio::test]
async fn curl_compressed_reads_a_compressing_server() {
    let s = start(server(), compressing()).await;
    let url = s.url();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("curl")
            .args([
                "--compressed",
                "-sS",
                "-N",
                "-D",
                "-",
                "-X",
                "POST",
                &url,
                "-H",
                &format!("accept: {ACCEPT_BOTH}"),
                "-H",
                "content-type: application/json",
                "--data",
                INIT,
            ])
            .output()
            .expect("curl is installed")
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        text.lines().any(|l| l.starts_with("content-encoding:")
            && ["gzip", "br", "zstd"].iter().any(|e| l.contains(e))),
        "curl asked for compression and got it: {text}"
    );
    assert!(
        text.contains("\"protocolversion\":\"2025-11-25\""),
        "{text}"
    );
    s.stop().await;
}

const PYTHON_COMPRESSED: &str = r#"
import asyncio, json, sys
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

encodings = []

async def note(response):
    encodings.append(response.headers.get("content-encoding"))

async def main():
    async with httpx2.AsyncClient(event_hooks={"response": [note]}, timeout=30) as h:
        async with Client(streamable_http_client(sys.argv[1], http_client=h)) as c:
            tools = await c.list_tools()
            big = await c.call_tool("big", {})
            echo = await c.call_tool("echo", {"text": "héllo"})
    print(json.dumps({"tools": len(tools.tools), "big": len(big.content[0].text),
                      "echo": echo.content[0].text, "encodings": [e for e in encodings if e]}))

asyncio.run(main())
"#;

#[tokio::test]
async fn the_python_sdk_client_reads_a_compressing_server() {
    let Some(py) = python() else { return };
    for config in [compressing(), compressing().json_responses()] {
        let s = start(server(), config).await;
        let url = s.url();
        let py = py.clone();
        let out = tokio::task::spawn_blocking(move || {
            Command::new(&py)
                .args(["-c", PYTHON_COMPRESSED, &url])
                .output()
                .unwrap()
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value =
            serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        assert_eq!(v["big"], 26000);
        assert_eq!(v["echo"], "héllo");
        assert!(
            !v["encodings"].as_array().unwrap().is_empty(),
            "the SDK got compressed answers: {v}"
        );
        s.stop().await;
    }
}

/// An HTTP/2 connection by prior knowledge (h2c) over one TCP stream.
async fn h2c(
    addr: std::net::SocketAddr,
) -> hyper::client::conn::http2::SendRequest<http_body_util::Full<bytes::Bytes>> {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (send, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(tcp),
    )
    .await
    .expect("the server speaks h2c");
    tokio::spawn(conn);
    send
}

fn h2_post(
    url: &str,
    body: String,
    session: Option<&str>,
) -> hyper::Request<http_body_util::Full<bytes::Bytes>> {
    let mut b = hyper::Request::post(url)
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json");
    if let Some(s) = session {
        b = b
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    b.body(http_body_util::Full::new(bytes::Bytes::from(body)))
        .unwrap()
}

#[tokio::test]
async fn many_sse_streams_share_one_h2c_connection() {
    use http_body_util::BodyExt;
    let s = start(server(), HttpConfig::default()).await;
    let url = s.url();
    let mut send = h2c(s.addr).await;
    let r = send
        .send_request(h2_post(&url, INIT.into(), None))
        .await
        .unwrap();
    assert_eq!(r.version(), hyper::Version::HTTP_2);
    let session = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let _ = r.into_body().collect().await;
    let r = send
        .send_request(h2_post(&url, INITIALIZED.into(), Some(&session)))
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    // 40 calls at once, each answered by its own SSE stream on this one connection, each taking 300 ms.
    let started = Instant::now();
    let calls = (0..40u64).map(|i| {
        let mut send = send.clone();
        let req = h2_post(
            &url,
            call(100 + i, "slow", json!({"ms": 300, "steps": 2})),
            Some(&session),
        );
        async move {
            let r = send.send_request(req).await.unwrap();
            assert_eq!(r.headers()["content-type"], "text/event-stream");
            let body = r.into_body().collect().await.unwrap().to_bytes();
            let events = parse_sse(&body);
            let last: Value = serde_json::from_str(&events.last().unwrap().data).unwrap();
            assert_eq!(last["id"], 100 + i);
            assert_eq!(last["result"]["content"][0]["text"], "done");
            events.len()
        }
    });
    let counts = futures_util::future::join_all(calls).await;
    assert!(
        counts.iter().all(|n| *n >= 3),
        "two logs and the answer each: {counts:?}"
    );
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(6),
        "the streams ran side by side ({took:?} for 40 × 600 ms)"
    );
    s.stop().await;
}

#[tokio::test]
async fn our_client_speaks_h2c_and_http2_over_tls() {
    // h2c by prior knowledge.
    let s = start(server(), HttpConfig::default()).await;
    let client = Client::builder()
        .connect_http(
            &s.url(),
            HttpClientConfig {
                http2_prior_knowledge: true,
                ..HttpClientConfig::default()
            },
        )
        .await
        .unwrap();
    let r = client
        .call_tool("echo", json!({"text": "h2c"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "h2c");
    client.close().await;
    s.stop().await;

    // HTTPS: HTTP/2 chosen by ALPN, HTTP/1.1 still served.
    let cert =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let tls = TlsConfig::from_pem(
        cert.cert.pem().as_bytes(),
        cert.signing_key.serialize_pem().as_bytes(),
    )
    .unwrap();
    let s = start(
        server(),
        HttpConfig {
            tls: Some(tls),
            ..HttpConfig::default()
        },
    )
    .await;
    let url = format!("https://{}/mcp", s.addr);
    let root = reqwest::Certificate::from_pem(cert.cert.pem().as_bytes()).unwrap();
    let https = reqwest::Client::builder()
        .add_root_certificate(root.clone())
        .build()
        .unwrap();
    let r = https
        .post(&url)
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.version(), reqwest::Version::HTTP_2, "ALPN chose h2");
    let h1 = reqwest::Client::builder()
        .add_root_certificate(root)
        .http1_only()
        .build()
        .unwrap();
    let r = h1
        .post(&url)
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(r.version(), reqwest::Version::HTTP_11);
    let client = Client::builder()
        .connect_http(
            &url,
            HttpClientConfig {
                http: Some(https),
                ..HttpClientConfig::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 4);
    let r = client
        .call_tool("echo", json!({"text": "tls"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "tls");
    client.close().await;
    // Plain HTTP to the TLS port is refused, not served.
    let plain = http()
        .post(format!("http://{}/mcp", s.addr))
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .body(INIT)
        .send()
        .await;
    assert!(plain.is_err() || !plain.unwrap().status().is_success());
    s.stop().await;
}

const APP: &str = "https://app.example.com";

#[tokio::test]
async fn cors_answers_preflights_for_listed_origins_only() {
    let s = start(
        server(),
        HttpConfig {
            cors: Some(Cors::new([APP])),
            ..HttpConfig::default().bearer_token("t0ken")
        },
    )
    .await;
    let preflight = |origin: &'static str| {
        http()
            .request(reqwest::Method::OPTIONS, s.url())
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type, authorization, mcp-session-id, mcp-protocol-version",
            )
            .send()
    };
    let r = preflight(APP).await.unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let h = r.headers();
    assert_eq!(h["access-control-allow-origin"], APP);
    assert!(h["access-control-allow-methods"]
        .to_str()
        .unwrap()
        .contains("POST"));
    assert!(h["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .contains("mcp-session-id"));
    assert_eq!(h["access-control-max-age"], "600");

    let r = preflight("https://evil.example.com").await.unwrap();
    assert!(
        r.headers().get("access-control-allow-origin").is_none(),
        "no CORS grant for an unlisted origin"
    );

    // The actual request: a listed origin is served and sees the MCP headers; a 401 is readable too.
    let r = post(
        &s.url(),
        INIT,
        None,
        &[("origin", APP), ("authorization", "Bearer t0ken")],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["access-control-allow-origin"], APP);
    let exposed = r.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    for h in ["mcp-session-id", "mcp-protocol-version", "www-authenticate"] {
        assert!(exposed.contains(h), "{h} exposed: {exposed}");
    }
    let r = post(&s.url(), INIT, None, &[("origin", APP)]).await;
    assert_eq!(r.status(), 401);
    assert_eq!(r.headers()["access-control-allow-origin"], APP);
    assert!(r.headers().contains_key("www-authenticate"));

    // An unlisted origin is refused by the DNS rebinding check, whatever its token.
    let r = post(
        &s.url(),
        INIT,
        None,
        &[
            ("origin", "https://evil.example.com"),
            ("authorization", "Bearer t0ken"),
        ],
    )
    .await;
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    s.stop().await;
}

/// Tokens `alice` and `bob`, each its own subject.
struct Users;

impl TokenVerifier for Users {
    fn verify<'a>(
        &'a self,
        token: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Result<AuthInfo, TokenError>> {
        Box::pin(async move {
            match token {
                "alice" | "bob" => Ok(AuthInfo {
                    subject: Some(token.into()),
                    ..Default::default()
                }),
                _ => Err(TokenError::Invalid("unknown user".into())),
            }
        })
    }
}

async fn stateless_call(url: &str, id: u64, tool: &str, token: Option<&str>) -> reqwest::Response {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut h = vec![("mcp-protocol-version", "2025-11-25")];
    if let Some(a) = &auth {
        h.push(("authorization", a));
    }
    post(
        url,
        &call(id, tool, json!({"text": "x", "ms": 1})),
        None,
        &h,
    )
    .await
}

fn retry_after(r: &reqwest::Response) -> u64 {
    r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn rate_limits_answer_429_with_retry_after() {
    // Per client (its address, without a token): 3 requests a minute.
    let s = start(
        server(),
        HttpConfig {
            rate_limits: Some(RateLimits::default().per_client(Quota::per_minute(3))),
            ..HttpConfig::default().stateless().json_responses()
        },
    )
    .await;
    for i in 0..3 {
        assert_eq!(
            stateless_call(&s.url(), i, "echo", None).await.status(),
            200
        );
    }
    let r = stateless_call(&s.url(), 9, "echo", None).await;
    assert_eq!(r.status(), 429);
    let wait = retry_after(&r);
    assert!(
        (1..=20).contains(&wait),
        "one request's budget returns in 20 s: {wait}"
    );
    let body: Value = r.json().await.unwrap();
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Too Many Requests"));
    s.stop().await;

    // Per tool, per subject: `slow` once a minute for each user; other tools and users unaffected.
    let s = start(
        server(),
        HttpConfig {
            auth: Some(ResourceServer::with_verifier(Arc::new(Users))),
            rate_limits: Some(RateLimits::default().tool("slow", Quota::per_minute(1))),
            ..HttpConfig::default().stateless().json_responses()
        },
    )
    .await;
    let url = s.url();
    assert_eq!(
        stateless_call(&url, 1, "slow", Some("alice"))
            .await
            .status(),
        200
    );
    let r = stateless_call(&url, 2, "slow", Some("alice")).await;
    assert_eq!(r.status(), 429);
    assert!(retry_after(&r) >= 1);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["id"], 2, "the refusal answers the call");
    assert_eq!(
        stateless_call(&url, 3, "echo", Some("alice"))
            .await
            .status(),
        200
    );
    assert_eq!(
        stateless_call(&url, 4, "slow", Some("bob")).await.status(),
        200
    );
    assert_eq!(
        stateless_call(&url, 5, "slow", Some("mallory"))
            .await
            .status(),
        401
    );
    s.stop().await;

    // Off by default.
    let s = start(server(), HttpConfig::default().stateless().json_responses()).await;
    for i in 0..50 {
        assert_eq!(
            stateless_call(&s.url(), i, "echo", None).await.status(),
            200
        );
    }
    s.stop().await;
}
