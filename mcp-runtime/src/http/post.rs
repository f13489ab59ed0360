//! A POST to the Streamable HTTP endpoint in the handshake era: one message or a batch, on its session
//! (or standing alone on a stateless server), answered with JSON or an SSE stream.

use super::answers::{
    accepts, check_version_header, json_response, plain, rpc_error, sse_body, store_unavailable,
};
use super::body::{read_body, BodyError};
use super::config::ResponseMode;
use super::headers::{SESSION_HEADER, VERSION_HEADER};
use super::service::{Busy, StreamableHttpService};
use super::session::HttpSession;
use super::sse;
use crate::connection::Handler;
use crate::framing::{self, frame, Incoming};
use crate::protocol::{methods, ErrorObject, ProtocolVersion, RequestId};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

impl StreamableHttpService {
    pub(super) async fn post(&self, req: Request) -> Response {
        let headers = req.headers().clone();
        if !accepts(&headers, "application/json") || !accepts(&headers, "text/event-stream") {
            return rpc_error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorObject::new(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream"),
            );
        }
        let ct = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !ct
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("application/json")
        {
            return rpc_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                ErrorObject::new(
                    -32000,
                    "Unsupported Media Type: Content-Type must be application/json",
                ),
            );
        }
        let caller = req.extensions().get::<super::gate::Caller>().cloned();
        // The body's bytes stay charged until its answer has been sent (see `held`).
        let (body, held) = match read_body(req, &self.inner.config, &self.inner.budget).await {
            Ok(b) => b,
            Err(BodyError::Slow) => {
                return rpc_error(
                    StatusCode::REQUEST_TIMEOUT,
                    None,
                    ErrorObject::new(-32000, "Request Timeout: the body took too long"),
                )
            }
            Err(BodyError::TooLarge) => {
                return rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    None,
                    ErrorObject::new(
                        -32000,
                        format!(
                            "Payload Too Large: the limit is {} bytes",
                            self.inner.config.max_body_bytes
                        ),
                    ),
                )
            }
        };
        let resp = self.post_message(headers, caller, &body).await;
        super::held::until_sent(resp, held, &self.inner.budget)
    }

    /// Answers one POSTed message (or batch).
    pub(super) async fn post_message(
        &self,
        headers: HeaderMap,
        caller: Option<super::gate::Caller>,
        body: &Bytes,
    ) -> Response {
        let msg = framing::decode(body);
        let is_init =
            matches!(&msg, Incoming::Request { method, .. } if method == methods::INITIALIZE);
        // What changes the session's record: the other instances read it again.
        let sets_level = matches!(&msg, Incoming::Request { method, .. }
            if method == methods::LOGGING_SET_LEVEL
                || method == methods::RESOURCES_SUBSCRIBE
                || method == methods::RESOURCES_UNSUBSCRIBE);
        // What may concern a request another instance runs or sent.
        let for_others = self.inner.config.shared.is_some()
            && match &msg {
                Incoming::Response { .. } => true,
                Incoming::Notification { method, .. } => method == methods::CANCELLED,
                _ => false,
            };
        match &msg {
            Incoming::Invalid { id, error } => {
                return rpc_error(StatusCode::BAD_REQUEST, id.as_ref(), error.clone())
            }
            Incoming::Ignored => return StatusCode::ACCEPTED.into_response(),
            _ => {}
        }
        if let Err(r) = self.admit_message(caller.as_ref(), &headers, &msg) {
            return r;
        }
        let eras = self.inner.server.eras();
        if eras != crate::server::Eras::LegacyOnly
            && (eras == crate::server::Eras::ModernOnly || super::modern::is_modern(&headers, &msg))
        {
            return super::modern::post(self, &headers, msg).await;
        }
        if !self.inner.config.stateful {
            // Boxed: a stateless endpoint is the rarer setup, and this state would otherwise ride in
            // every POST's future (moved whole where the router boxes it).
            return Box::pin(self.post_stateless(&headers, msg, is_init)).await;
        }
        let session = if is_init && headers.get(SESSION_HEADER).is_none() {
            if self.inner.shutdown.is_cancelled() {
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the server is shutting down",
                );
            }
            let s = self.new_session(self.principal(&headers), None);
            if let Incoming::Request { params, .. } = &msg {
                s.set_version(requested_version(*params));
            }
            self.inner
                .sessions
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(s.id.clone(), s.clone());
            s
        } else {
            let s = match self.session(&headers).await {
                Ok(s) => s,
                Err(r) => return r,
            };
            if let Err(r) = check_version_header(&headers) {
                return r;
            }
            s
        };
        session.touch();
        let mut resp = self.answer(&session, msg).await;
        if is_init && resp.status().is_success() {
            // The other instances must find the session before the client can name it.
            if let Err(e) = self.save_shared(&session).await {
                self.inner
                    .sessions
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&session.id);
                session.close("the session could not be shared");
                return store_unavailable(&e);
            }
            if let Ok(v) = HeaderValue::from_str(&session.id) {
                resp.headers_mut().insert(SESSION_HEADER, v);
            }
        }
        if for_others {
            self.announce(crate::scale::BusEvent::ClientMessage {
                session: session.id.clone(),
                message: String::from_utf8_lossy(body).into_owned(),
            })
            .await;
        }
        if sets_level && self.inner.config.shared.is_some() {
            if let Err(e) = self.save_shared(&session).await {
                return store_unavailable(&e);
            }
            self.announce(crate::scale::BusEvent::SessionChanged {
                session: session.id.clone(),
            })
            .await;
        }
        resp
    }

    pub(super) async fn post_stateless(
        &self,
        headers: &HeaderMap,
        msg: Incoming<'_>,
        is_init: bool,
    ) -> Response {
        if !is_init {
            if let Err(r) = check_version_header(headers) {
                return r;
            }
        }
        let session = self.new_session(self.principal(headers), None);
        if !is_init {
            // A stateless request stands alone: initialize a fresh session with the version the client sent.
            let version = headers
                .get(VERSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(ProtocolVersion::parse)
                .unwrap_or(ProtocolVersion::V2025_03_26);
            session.set_version(version);
            let init = format!(
                r#"{{"jsonrpc":"2.0","id":"mcp-runtime/stateless-init","method":"initialize","params":{{"protocolVersion":"{}","capabilities":{{}},"clientInfo":{{"name":"stateless","version":"0"}}}}}}"#,
                version.as_str()
            );
            session
                .peer
                .dispatch_line(init.as_bytes(), &session.handler)
                .await;
            session
                .peer
                .dispatch_line(
                    br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    &session.handler,
                )
                .await;
        }
        let resp = self.answer(&session, msg).await;
        if axum::body::HttpBody::size_hint(resp.body())
            .exact()
            .is_some()
        {
            // The answer is complete: nothing of this session can reach the client any more.
            session.close("stateless request done");
            return resp;
        }
        // The answer may still be streaming: close the session once its stream ends.
        let s = session.clone();
        let grace = self.inner.server.connection_config().drain_timeout;
        tokio::spawn(async move {
            s.peer.drain(grace).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            s.close("stateless request done");
        });
        resp
    }

    /// Dispatches a POSTed message (or batch) into the session and builds the HTTP answer.
    pub(super) async fn answer(&self, session: &Arc<HttpSession>, msg: Incoming<'_>) -> Response {
        let handler: &Arc<dyn Handler> = &session.handler;
        match msg {
            Incoming::Request { id, method, params } => {
                let one = Incoming::Request {
                    id: id.clone(),
                    method,
                    params,
                };
                self.answer_requests(session, vec![id], vec![one], Vec::new())
                    .await
            }
            Incoming::Batch(items) => {
                if !handler.allows_batch() {
                    let e = ErrorObject::invalid_request(
                        "Invalid Request: batches are only allowed in protocol 2025-03-26",
                    );
                    return rpc_error(StatusCode::BAD_REQUEST, None, e);
                }
                let mut ids = Vec::new();
                let mut requests = Vec::new();
                let mut immediate = Vec::new();
                for item in items {
                    match framing::decode_str(item.get()) {
                        Incoming::Request { id, method, .. } if method == methods::INITIALIZE => {
                            immediate.push(frame::error(
                                Some(&id),
                                &ErrorObject::invalid_request(
                                    "Invalid Request: initialize must not be part of a batch",
                                ),
                            ))
                        }
                        Incoming::Request { id, method, params } => {
                            ids.push(id.clone());
                            requests.push(Incoming::Request { id, method, params });
                        }
                        Incoming::Invalid { id, error } => {
                            immediate.push(frame::error(id.as_ref(), &error))
                        }
                        Incoming::Batch(_) => immediate.push(frame::error(
                            None,
                            &ErrorObject::invalid_request("Invalid Request: nested batch"),
                        )),
                        other => session.peer.dispatch(other, handler).await,
                    }
                }
                if ids.is_empty() && immediate.is_empty() {
                    return StatusCode::ACCEPTED.into_response();
                }
                // Boxed: batches are rare (2025-03-26 only); see `post_message`.
                Box::pin(self.answer_requests(session, ids, requests, immediate)).await
            }
            other => {
                session.peer.dispatch(other, handler).await;
                StatusCode::ACCEPTED.into_response()
            }
        }
    }

    pub(super) async fn answer_requests(
        &self,
        session: &Arc<HttpSession>,
        ids: Vec<RequestId>,
        requests: Vec<Incoming<'_>>,
        immediate: Vec<Vec<u8>>,
    ) -> Response {
        let batch = requests.len() != 1 || !immediate.is_empty();
        let duplicate = || {
            rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::invalid_request(
                    "Invalid Request: a request with this id is already in flight",
                ),
            )
        };
        let _busy = Busy::new(session);
        match self.inner.config.response_mode {
            ResponseMode::Json if ids.len() == 1 && immediate.is_empty() => {
                let Some((key, rx, json)) = session.open_json_or_stream(&ids[0]) else {
                    return duplicate();
                };
                for r in requests {
                    session.peer.dispatch(r, &session.handler).await;
                }
                match json.await {
                    Ok(frame) => json_response(frame),
                    Err(_) if session.peer.is_closed() => {
                        plain(StatusCode::NOT_FOUND, "the session ended")
                    }
                    Err(_) => {
                        // Progress, logs or a request to the client came first: answer with SSE.
                        let mut first = Vec::new();
                        if session.wants_priming() {
                            let retry = self.inner.config.sse_retry.map(|d| d.as_millis() as u64);
                            first.push(sse::priming_event(&HttpSession::priming_id(key), retry));
                        }
                        self.sse_response(first, Some(rx), Some(Busy::new(session)))
                    }
                }
            }
            ResponseMode::Json => {
                let mut rxs = Vec::with_capacity(ids.len());
                for id in &ids {
                    match session.wait_json(id.clone()) {
                        Some(rx) => rxs.push(rx),
                        None => {
                            for id in &ids[..rxs.len()] {
                                session.forget(id);
                            }
                            return duplicate();
                        }
                    }
                }
                for r in requests {
                    session.peer.dispatch(r, &session.handler).await;
                }
                let mut frames = immediate;
                for rx in rxs {
                    match rx.await {
                        Ok(f) => frames.push(f),
                        Err(_) => return plain(StatusCode::NOT_FOUND, "the session ended"),
                    }
                }
                let body = if batch {
                    join_batch(&frames)
                } else {
                    frames.pop().unwrap_or_default()
                };
                json_response(body)
            }
            ResponseMode::Sse => {
                let Some((key, rx)) = session.open_post_stream(&ids) else {
                    return duplicate();
                };
                let mut first = Vec::new();
                if session.wants_priming() {
                    let retry = self.inner.config.sse_retry.map(|d| d.as_millis() as u64);
                    first.push(sse::priming_event(&HttpSession::priming_id(key), retry));
                }
                for f in &immediate {
                    first.push(sse::message_event(None, f));
                }
                for r in requests {
                    session.peer.dispatch(r, &session.handler).await;
                }
                // A quick handler answers while the tasks ahead of us run: then the whole stream goes
                // out as one body (one write) instead of a head now and the events later. With a shared
                // event log no event comes that soon (each waits for its write), so the yields are
                // skipped for the wait below.
                let mut rx = rx;
                let yields = if session.logs_events() {
                    0
                } else {
                    QUICK_ANSWER_YIELDS
                };
                for _ in 0..yields {
                    tokio::task::yield_now().await;
                    loop {
                        match rx.try_recv() {
                            Ok(ev) if ev.is_empty() => return sse_body(first.concat()),
                            Ok(ev) => first.push(ev),
                            Err(mpsc::error::TryRecvError::Empty) => break,
                            Err(mpsc::error::TryRecvError::Disconnected) => {
                                return sse_body(first.concat())
                            }
                        }
                    }
                }
                // With a shared event log, even a quick answer waits for its write (a round trip to
                // the store): wait that long too, so that it still goes out as one body.
                if session.logs_events() {
                    let until = tokio::time::Instant::now() + LOGGED_ANSWER_WAIT;
                    loop {
                        match tokio::time::timeout_at(until, rx.recv()).await {
                            Ok(Some(ev)) if !ev.is_empty() => first.push(ev),
                            Ok(_) => return sse_body(first.concat()),
                            Err(_) => break,
                        }
                    }
                }
                self.sse_response(first, Some(rx), Some(Busy::new(session)))
            }
        }
    }
}

/// How often a POST answered with SSE yields to the runtime for its handler to finish before it sends
/// the response head (see `answer_requests`).
const QUICK_ANSWER_YIELDS: usize = 3;

/// How long a POST answered with SSE waits, past those yields, for its stream to finish when the
/// session's events are written to a shared log first: one body then, instead of a head now and each
/// event once written. A longer answer streams as usual after it.
const LOGGED_ANSWER_WAIT: Duration = Duration::from_millis(20);

fn requested_version(params: Option<&RawValue>) -> ProtocolVersion {
    #[derive(serde::Deserialize)]
    struct P<'a> {
        #[serde(rename = "protocolVersion", borrow)]
        protocol_version: std::borrow::Cow<'a, str>,
    }
    params
        .and_then(|p| serde_json::from_str::<P>(p.get()).ok())
        .map(|p| ProtocolVersion::negotiate(&p.protocol_version))
        .unwrap_or(ProtocolVersion::LATEST_LEGACY)
}

fn join_batch(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frames.iter().map(Vec::len).sum::<usize>() + 2);
    out.push(b'[');
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(f.strip_suffix(b"\n").unwrap_or(f));
    }
    out.push(b']');
    out
}
