//! HTTP security: Origin and Host checks, body and head size limits, header-read, keep-alive idle and
//! body timeouts, session ids, and the optional bearer token with its protected resource metadata.

use crate::http_support;

use http_support::*;
use mcp_runtime::http::HttpConfig;
use std::collections::HashSet;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn foreign_origins_and_hosts_get_403() {
    let s = start(test_server(), HttpConfig::default()).await;
    let r = post(
        &s.url(),
        INIT,
        None,
        &[("origin", "https://evil.example.com")],
    )
    .await;
    assert_eq!(r.status(), 403);
    let r = post(&s.url(), INIT, None, &[("origin", "http://localhost:5173")]).await;
    assert_eq!(r.status(), 200);
    let r = post(&s.url(), INIT, None, &[("host", "evil.example.com")]).await;
    assert_eq!(r.status(), 403, "DNS rebinding: a foreign Host");
    let r = http()
        .get(format!("http://{}/sse", s.addr))
        .header("accept", "text/event-stream")
        .header("origin", "http://evil.test")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403, "the legacy endpoint checks too");
    let open = start(
        test_server(),
        HttpConfig {
            allowed_origins: vec!["https://app.example.com".into()],
            ..Default::default()
        },
    )
    .await;
    let r = post(
        &open.url(),
        INIT,
        None,
        &[("origin", "https://app.example.com")],
    )
    .await;
    assert_eq!(r.status(), 200, "an explicitly allowed origin");
}

/// Reads until the server closes the connection; how long that took.
async fn closed_within(stream: &mut tokio::net::TcpStream, limit: Duration) -> Duration {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(limit, stream.read(&mut buf)).await {
            Err(_) => panic!("the connection stayed open for {limit:?}"),
            Ok(Ok(0)) | Ok(Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test]
async fn slow_heads_idle_connections_and_slow_bodies_are_cut_off() {
    let config = HttpConfig {
        header_read_timeout: Duration::from_millis(300),
        body_read_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let s = start(test_server(), config).await;

    // A head that never ends.
    let mut slow_head = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    slow_head
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let took = closed_within(&mut slow_head, Duration::from_secs(5)).await;
    assert!(took < Duration::from_secs(2), "{took:?}");

    // A kept-alive connection that sends nothing after its first request.
    let mut idle = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    idle.write_all(b"GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let took = closed_within(&mut idle, Duration::from_secs(5)).await;
    assert!(took < Duration::from_secs(2), "{took:?}");

    // A body that stops arriving: 408.
    let mut slow_body = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    slow_body
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), slow_body.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn session_ids_are_random_and_unique() {
    let s = start(test_server(), HttpConfig::default()).await;
    let mut ids = HashSet::new();
    for _ in 0..100 {
        let r = post(&s.url(), INIT, None, &[]).await;
        let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        assert!(
            id.len() == 32 && id.bytes().all(|c| c.is_ascii_hexdigit()),
            "{id}"
        );
        // A version-4 UUID: the version nibble is 4, the rest comes from the OS's secure generator.
        assert_eq!(&id[12..13], "4");
        assert!(ids.insert(id));
    }
    let distinct_prefixes: HashSet<_> = ids.iter().map(|i| &i[..8]).collect();
    assert_eq!(
        distinct_prefixes.len(),
        100,
        "no shared structure: not a counter"
    );
}

#[tokio::test]
async fn a_configured_bearer_token_is_required_and_described() {
    let s = start(
        test_server(),
        HttpConfig {
            authorization_servers: vec!["https://auth.example.com".into()],
            ..HttpConfig::default().bearer_token("t0ken")
        },
    )
    .await;
    let r = post(&s.url(), INIT, None, &[]).await;
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    let metadata_url = challenge
        .split("resource_metadata=\"")
        .nth(1)
        .unwrap()
        .trim_end_matches('"')
        .to_string();
    assert_eq!(
        metadata_url,
        format!("http://{}/.well-known/oauth-protected-resource/mcp", s.addr)
    );

    let r = post(&s.url(), INIT, None, &[("authorization", "Bearer t0kem")]).await;
    assert_eq!(r.status(), 401, "a wrong token of the same length");
    let r = post(&s.url(), INIT, None, &[("authorization", "Bearer t0ken")]).await;
    assert_eq!(r.status(), 200);
    let r = http()
        .get(format!("http://{}/sse", s.addr))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401, "the legacy endpoint too");

    let doc: serde_json::Value = http()
        .get(&metadata_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["resource"], s.url());
    assert_eq!(doc["authorization_servers"][0], "https://auth.example.com");
    let root: serde_json::Value = http()
        .get(format!(
            "http://{}/.well-known/oauth-protected-resource",
            s.addr
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(root, doc);

    let open = start(test_server(), HttpConfig::default()).await;
    let r = http()
        .get(format!(
            "http://{}/.well-known/oauth-protected-resource",
            open.addr
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "no metadata without a token check");
}
