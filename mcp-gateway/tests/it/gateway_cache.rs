//! The gateway's `resources/read` cache by the upstreams' 2026-07-28 hints (`ttlMs`, `cacheScope`): a
//! runtime server over Streamable HTTP that stamps hints on its reads and counts them, behind the
//! gateway; downstream clients over in-process pipes (each its own session, the identity of a private
//! entry).

use crate::common::{config, connect};
use mcp_gateway::Gateway;
use mcp_runtime::client::{Client, Era};
use mcp_runtime::protocol::{
    CacheHints, CacheScope, ElicitAction, ElicitParams, ElicitResult, ErrorObject,
    ReadResourceResult, Resource, ResourceContents,
};
use mcp_runtime::server::{ResourceRoute, UriVars};
use mcp_runtime::{Context, Server};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How many times the upstream read each URI.
#[derive(Clone, Default)]
struct Reads(Arc<Mutex<HashMap<String, usize>>>);

impl Reads {
    fn of(&self, uri: &str) -> usize {
        self.0.lock().unwrap().get(uri).copied().unwrap_or(0)
    }
    fn count(&self, uri: &str) {
        *self.0.lock().unwrap().entry(uri.to_string()).or_default() += 1;
    }
}

/// A resource that counts its reads and answers `text` with `hints`, after `delay`.
fn resource(
    uri: &str,
    hints: CacheHints,
    reads: &Reads,
    delay: Duration,
    version: Arc<AtomicUsize>,
) -> ResourceRoute {
    let reads = reads.clone();
    ResourceRoute::new(
        Resource {
            uri: uri.into(),
            name: uri.replace("mem://", ""),
            ..Default::default()
        },
        move |uri: String, _: UriVars, _: Context| {
            let reads = reads.clone();
            let version = version.clone();
            async move {
                reads.count(&uri);
                tokio::time::sleep(delay).await;
                let v = version.load(Ordering::SeqCst);
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, None, format!("v{v}"))],
                    cache: None,
                    meta: None,
                })
            }
        },
    )
    .cache(hints)
}

/// The upstream: its server (to notify), its read counts, and its URL.
struct Upstream {
    server: Server,
    reads: Reads,
    version: Arc<AtomicUsize>,
    url: String,
}

async fn upstream() -> Upstream {
    let reads = Reads::default();
    let version = Arc::new(AtomicUsize::new(1));
    let hint = |ms, scope| CacheHints::new(ms, scope);
    let r = |uri, h, delay| resource(uri, h, &reads, delay, version.clone());
    let ms = Duration::from_millis;
    let asks = {
        let reads = reads.clone();
        ResourceRoute::new(
            Resource {
                uri: "mem://asks".into(),
                name: "asks".into(),
                ..Default::default()
            },
            move |uri: String, _: UriVars, ctx: Context| {
                let reads = reads.clone();
                async move {
                    reads.count(&uri);
                    let form = ElicitParams::form(
                        "Who?",
                        json!({"type": "object", "properties": {"name": {"type": "string"}}})
                            .as_object()
                            .cloned()
                            .unwrap_or_default(),
                    );
                    let who = match ctx.input("who").elicit(form).await {
                        Ok(r) => r.content.unwrap_or_default()["name"]
                            .as_str()
                            .unwrap_or("?")
                            .to_string(),
                        Err(e) => return Err(ErrorObject::internal(e.to_string())),
                    };
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, None, format!("for {who}"))],
                        cache: None,
                        meta: None,
                    })
                }
            },
        )
        .cache(hint(60_000, CacheScope::Public))
    };
    let server = Server::builder()
        .offer_tools()
        .offer_resources()
        .resource(r("mem://public", hint(60_000, CacheScope::Public), ms(0)))
        .resource(r("mem://private", hint(60_000, CacheScope::Private), ms(0)))
        .resource(r("mem://short", hint(300, CacheScope::Public), ms(0)))
        .resource(r("mem://never", hint(0, CacheScope::Public), ms(0)))
        .resource(r("mem://slow", hint(60_000, CacheScope::Public), ms(300)))
        .resource(asks)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mcp_runtime::http::serve_http_on(
        server.clone(),
        listener,
        mcp_runtime::http::HttpConfig::default(),
        std::future::pending(),
    ));
    Upstream {
        server,
        reads,
        version,
        url: format!("http://{addr}/mcp"),
    }
}

async fn gateway(up: &Upstream, extra: serde_json::Value) -> Gateway {
    let gw = Gateway::start(config(json!({
        "mcpServers": {"up": {"url": up.url}},
        "gateway": extra,
    })))
    .await;
    assert_eq!(gw.status()[0].state, "up", "{:?}", gw.status());
    gw
}

async fn read(c: &Client, uri: &str) -> String {
    let r = c.read_resource(uri).await.expect("read");
    match &r.contents[0] {
        ResourceContents::Text { text, .. } => text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

/// A downstream client in the handshake era: a session of its own, its identity for private entries.
async fn caller(gw: &Gateway) -> Client {
    connect(gw, Client::builder().era(Era::Legacy)).await
}

#[tokio::test]
async fn a_fresh_read_is_served_by_the_gateway_until_its_ttl_ends() {
    let up = upstream().await;
    let gw = gateway(&up, json!({})).await;
    let c = caller(&gw).await;
    assert_eq!(read(&c, "mem://public").await, "v1");
    assert_eq!(read(&c, "mem://public").await, "v1");
    assert_eq!(up.reads.of("mem://public"), 1, "the second read was a hit");
    assert_eq!(gw.metrics().cache_counts(), (1, 1));

    read(&c, "mem://short").await;
    read(&c, "mem://short").await;
    assert_eq!(up.reads.of("mem://short"), 1);
    tokio::time::sleep(Duration::from_millis(400)).await;
    read(&c, "mem://short").await;
    assert_eq!(
        up.reads.of("mem://short"),
        2,
        "after its ttl the read goes upstream"
    );

    read(&c, "mem://never").await;
    read(&c, "mem://never").await;
    assert_eq!(up.reads.of("mem://never"), 2, "ttlMs 0 is not cached");

    // The metrics show the hits and misses where they are scraped.
    let (hits, misses) = gw.metrics().cache_counts();
    assert_eq!((hits, misses), (2, 5));
    let text = gw.metrics().encode();
    assert!(
        text.contains("mcp_gateway_resource_cache_hits_total 2"),
        "{text}"
    );
    assert!(
        text.contains("mcp_gateway_resource_cache_misses_total 5"),
        "{text}"
    );
}

#[tokio::test]
async fn private_entries_are_the_callers_own_and_public_ones_are_shared() {
    let up = upstream().await;
    let gw = gateway(&up, json!({})).await;
    let (a, b) = (caller(&gw).await, caller(&gw).await);
    read(&a, "mem://public").await;
    read(&b, "mem://public").await;
    assert_eq!(up.reads.of("mem://public"), 1, "public: shared");
    read(&a, "mem://private").await;
    read(&b, "mem://private").await;
    assert_eq!(up.reads.of("mem://private"), 2, "private: not shared");
    read(&a, "mem://private").await;
    read(&b, "mem://private").await;
    assert_eq!(
        up.reads.of("mem://private"),
        2,
        "private: each caller's own"
    );
}

#[tokio::test]
async fn an_update_notification_drops_the_entry() {
    let up = upstream().await;
    let gw = gateway(&up, json!({})).await;
    let c = caller(&gw).await;
    assert_eq!(read(&c, "mem://public").await, "v1");
    up.version.store(2, Ordering::SeqCst);
    assert_eq!(read(&c, "mem://public").await, "v1", "still fresh");
    up.server.notify_resource_updated("mem://public");
    let mut latest = String::new();
    for _ in 0..100 {
        latest = read(&c, "mem://public").await;
        if latest == "v2" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(latest, "v2", "the update dropped the entry");
    assert_eq!(up.reads.of("mem://public"), 2);
}

#[tokio::test]
async fn identical_concurrent_reads_go_upstream_once() {
    let up = upstream().await;
    let gw = gateway(&up, json!({})).await;
    let c = caller(&gw).await;
    let reads = (0..10).map(|_| read(&c, "mem://slow"));
    let got = futures_util::future::join_all(reads).await;
    assert!(got.iter().all(|t| t == "v1"), "{got:?}");
    assert_eq!(up.reads.of("mem://slow"), 1);
    assert_eq!(gw.metrics().cache_counts(), (9, 1));
}

#[tokio::test]
async fn a_read_that_needed_the_callers_input_is_not_cached() {
    let up = upstream().await;
    let gw = gateway(&up, json!({})).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let n = asked.clone();
    let c = connect(
        &gw,
        Client::builder()
            .era(Era::Legacy)
            .elicitation(move |_p: ElicitParams| {
                let n = n.clone();
                async move {
                    n.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, ErrorObject>(ElicitResult {
                        action: ElicitAction::Accept,
                        content: json!({"name": "ada"}).as_object().cloned(),
                        meta: None,
                    })
                }
            }),
    )
    .await;
    assert_eq!(read(&c, "mem://asks").await, "for ada");
    let first = up.reads.of("mem://asks");
    assert!(first >= 1);
    assert_eq!(read(&c, "mem://asks").await, "for ada");
    assert!(
        up.reads.of("mem://asks") > first,
        "the second read went upstream"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 2, "and asked again");
}

#[tokio::test]
async fn cache_bytes_zero_turns_the_cache_off() {
    let up = upstream().await;
    let gw = gateway(&up, json!({"cacheBytes": 0})).await;
    let c = caller(&gw).await;
    read(&c, "mem://public").await;
    read(&c, "mem://public").await;
    assert_eq!(up.reads.of("mem://public"), 2);
    assert_eq!(gw.metrics().cache_counts(), (0, 0));
}
