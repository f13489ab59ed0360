//! NDJSON upstreams: HTTP servers that take each JSON-RPC message as a POST and stream the answer back
//! as newline-delimited JSON (`application/x-ndjson`): pieces of the answer as `event/delta`
//! notifications (`{"id": <request id>, "delta": ...}`), then the response. A plain `application/json`
//! body is one message.
//!
//! The transport drives the runtime's client like any other (its [`Peer`], fed line by line), so the
//! rest of the gateway does not know the difference: the runtime reads `event/delta` as progress of the
//! request it names, with the delta as the message, which the relay passes on as
//! `notifications/progress`. A cancel (`notifications/cancelled` from the client) closes that request's
//! response stream. Failures keep the transport's facts: a non-2xx answer, a refused connection or a
//! stream that ends without a response fails the request with a JSON-RPC error whose `data` names the
//! transport, the HTTP status and an excerpt of the body.

use futures_util::StreamExt;
use mcp_runtime::client::{Client, ClientBuilder, TransportInfo};
use mcp_runtime::connection::{ConnectionConfig, Handler, OutKind, Outgoing, Peer};
use mcp_runtime::framing::{self, frame, Incoming};
use mcp_runtime::protocol::{methods, CancelledParams, ErrorObject, RequestId};
use mcp_runtime::Error;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How much of an error body the error's `data` quotes.
const EXCERPT: usize = 300;

/// Connects to an NDJSON server at `url` (with `headers` on every POST) and initializes.
pub async fn connect(
    builder: ClientBuilder,
    url: &str,
    headers: &BTreeMap<String, String>,
    config: ConnectionConfig,
) -> Result<Client, Error> {
    let http = reqwest::Client::builder()
        .build()
        .map_err(|e| Error::Io(format!("cannot build the HTTP client: {e}")))?;
    let mut hm = reqwest::header::HeaderMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| Error::Io(format!("bad header name {k}: {e}")))?;
        let value = reqwest::header::HeaderValue::from_str(v)
            .map_err(|e| Error::Io(format!("bad header value for {k}: {e}")))?;
        hm.insert(name, value);
    }
    let max_line = config.max_message_bytes;
    let (peer, rx) = Peer::new(config);
    let parts = builder.parts();
    let transport = Arc::new(Transport {
        http,
        url: url.to_string(),
        headers: hm,
        peer: peer.clone(),
        handler: parts.handler.clone(),
        in_flight: Mutex::new(HashMap::new()),
        max_line,
    });
    let io = tokio::spawn(transport.run(rx));
    let info = TransportInfo {
        server_key: Some(format!("ndjson:{url}")),
        ..TransportInfo::default()
    };
    builder.finish(peer, parts, info, Some(io)).await
}

struct Transport {
    http: reqwest::Client,
    url: String,
    headers: reqwest::header::HeaderMap,
    peer: Peer,
    handler: Arc<dyn Handler>,
    /// The requests being answered, cancelled by closing their response stream.
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// The longest line accepted.
    max_line: usize,
}

impl Transport {
    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn run(self: Arc<Self>, mut rx: mpsc::Receiver<Outgoing>) {
        loop {
            let out = tokio::select! {
                o = rx.recv() => o,
                _ = self.peer.closed() => None,
            };
            let Some(out) = out else { break };
            if out.is_cancelled() || out.frame.is_empty() {
                continue;
            }
            let (body, kind) = (out.frame.clone(), out.kind.clone());
            drop(out);
            if let Some(id) = cancels(&body) {
                // Closing the stream is the cancel: nothing is sent.
                if let Some(t) = self.in_flight().remove(&id) {
                    t.cancel();
                }
                continue;
            }
            let me = self.clone();
            tokio::spawn(async move {
                match kind {
                    OutKind::Request(id) => {
                        let token = CancellationToken::new();
                        me.in_flight().insert(id.clone(), token.clone());
                        tokio::select! {
                            _ = me.exchange(&body, &id) => {}
                            _ = token.cancelled() => {}
                        }
                        me.in_flight().remove(&id);
                    }
                    // Notifications and our answers: sent, whatever comes back is not for us.
                    _ => {
                        let _ = me.post(&body).await;
                    }
                }
            });
        }
        self.handler.closed();
    }

    async fn post(&self, body: &[u8]) -> Result<reqwest::Response, reqwest::Error> {
        self.http
            .post(&self.url)
            .headers(self.headers.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(
                reqwest::header::ACCEPT,
                "application/x-ndjson, application/json",
            )
            .body(body.to_vec())
            .send()
            .await
    }

    /// POSTs one request and dispatches every line of the answer; fails the request with the
    /// transport's facts when no response comes.
    async fn exchange(&self, body: &[u8], id: &RequestId) {
        let fail = |message: String, data: serde_json::Value| {
            let e = ErrorObject::internal(message).with_data(data);
            frame::error(Some(id), &e)
        };
        let resp = match self.post(body).await {
            Ok(r) => r,
            Err(e) => {
                let line = fail(
                    format!("NDJSON upstream {}: {e}", self.url),
                    serde_json::json!({"transport": "http-ndjson", "url": self.url, "reason": e.to_string()}),
                );
                return self.peer.dispatch_line(&line, &self.handler).await;
            }
        };
        let status = resp.status();
        if !status.is_success() {
            let text = resp.text().await.unwrap_or_default();
            // A JSON-RPC error answering this request is the answer; its data gains the status.
            if let Incoming::Response {
                id: rid,
                result: Err(mut e),
            } = framing::decode(text.trim().as_bytes())
            {
                if &rid == id {
                    let mut data = match e.data.take() {
                        Some(serde_json::Value::Object(o)) => o,
                        Some(other) => [("upstream".to_string(), other)].into_iter().collect(),
                        None => serde_json::Map::new(),
                    };
                    data.insert("transport".into(), "http-ndjson".into());
                    data.insert("status".into(), status.as_u16().into());
                    e.data = Some(serde_json::Value::Object(data));
                    let line = frame::error(Some(id), &e);
                    return self.peer.dispatch_line(&line, &self.handler).await;
                }
            }
            let excerpt: String = text.chars().take(EXCERPT).collect();
            let line = fail(
                format!("NDJSON upstream answered HTTP {status}"),
                serde_json::json!({"transport": "http-ndjson", "status": status.as_u16(), "body": excerpt}),
            );
            return self.peer.dispatch_line(&line, &self.handler).await;
        }
        let json_body = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("application/json"));
        let mut answered = false;
        let mut buf: Vec<u8> = Vec::new();
        let mut stream = resp.bytes_stream();
        let mut too_long = false;
        while let Some(chunk) = stream.next().await {
            let Ok(chunk) = chunk else { break };
            buf.extend_from_slice(&chunk);
            if json_body {
                too_long = buf.len() > self.max_line;
                if too_long {
                    break;
                }
                continue;
            }
            while let Some(i) = buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buf.drain(..=i).collect();
                answered |= self.line(&line, id).await;
            }
            if buf.len() > self.max_line {
                too_long = true;
                break;
            }
        }
        if !too_long && !buf.iter().all(u8::is_ascii_whitespace) {
            answered |= self.line(&buf, id).await;
        }
        if !answered {
            let why = if too_long {
                format!("a line of the answer exceeds {} bytes", self.max_line)
            } else {
                "the answer ended without a response".to_string()
            };
            let line = fail(
                format!("NDJSON upstream {}: {why}", self.url),
                serde_json::json!({"transport": "http-ndjson", "status": status.as_u16(), "reason": why}),
            );
            self.peer.dispatch_line(&line, &self.handler).await;
        }
    }

    /// Dispatches one line of an answer; `true` when it is the response to `id`.
    async fn line(&self, line: &[u8], id: &RequestId) -> bool {
        let line = line.trim_ascii();
        if line.is_empty() {
            return false;
        }
        let is_answer =
            matches!(framing::decode(line), Incoming::Response { id: ref rid, .. } if rid == id);
        self.peer.dispatch_line(line, &self.handler).await;
        is_answer
    }
}

/// The request a `notifications/cancelled` frame cancels.
fn cancels(frame: &[u8]) -> Option<RequestId> {
    match framing::decode(frame) {
        Incoming::Notification { method, params } if method == methods::CANCELLED => {
            framing::parse_params::<CancelledParams>(params)
                .ok()
                .map(|p| p.request_id)
        }
        _ => None,
    }
}
