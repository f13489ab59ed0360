//! The deprecated HTTP+SSE transport of 2024-11-05: `GET /sse` opens a stream whose first event
//! (`endpoint`) names the URL to POST messages to; every server message arrives as `event: message`.

use super::answers::{accepts, plain, rpc_error};
use super::legacy_sessions::LegacySession;
use super::service::StreamableHttpService;
use crate::connection::Peer;
use crate::framing::{self, Incoming};
use crate::protocol::ErrorObject;
use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Removes and closes the session when its stream ends (the client went away).
struct StreamGuard {
    svc: StreamableHttpService,
    id: String,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        if let Some(s) = self.svc.inner.legacy.lock().remove(&self.id) {
            s.peer.close("the SSE stream closed".into());
            s.handler.closed();
        }
    }
}

pub(crate) async fn get_sse(svc: StreamableHttpService, mut req: Request) -> Response {
    super::layers::host_from_authority(&mut req);
    if let Err(r) = svc.check_host(req.headers()) {
        return r;
    }
    if let Err(r) = svc.admit_request(&mut req).await {
        return r;
    }
    if !accepts(req.headers(), "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Client must accept text/event-stream",
        );
    }
    if svc.inner.shutdown.is_cancelled() {
        return plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down",
        );
    }
    let id = uuid::Uuid::new_v4().simple().to_string();
    let (peer, mut rx) = Peer::with_budget(
        svc.inner.server.connection_config().clone(),
        svc.inner.budget.clone(),
    );
    let handler = svc.inner.server.session_handler(peer.clone());
    svc.inner.legacy.lock().insert(
        id.clone(),
        Arc::new(LegacySession {
            peer: peer.clone(),
            handler,
        }),
    );

    // The endpoint is relative to where this router is mounted: the path as the client asked for it,
    // with the SSE path replaced by the messages path.
    let c = &svc.inner.config;
    let path = req.uri().path();
    let base = path.strip_suffix(c.legacy_sse_path.as_str()).unwrap_or("");
    let endpoint = format!("{base}{}?sessionId={id}", c.legacy_messages_path);

    let (tx, out) = mpsc::unbounded_channel::<Bytes>();
    let _ = tx.send(Bytes::from(format!(
        "event: endpoint\ndata: {endpoint}\n\n"
    )));
    tokio::spawn(async move {
        while let Some(o) = rx.recv().await {
            if o.is_cancelled() || o.frame.is_empty() {
                continue;
            }
            if tx.send(super::sse::message_event(None, &o.frame)).is_err() {
                return;
            }
        }
    });
    let guard = StreamGuard {
        svc: svc.clone(),
        id,
    };
    let mut r = svc.sse_response(Vec::new(), Some(out), None);
    // Keep the guard alive as long as the body: it ends the session when the client disconnects.
    let body = std::mem::take(r.body_mut());
    let stream = futures_util::StreamExt::map(body.into_data_stream(), move |chunk| {
        let _ = &guard;
        chunk
    });
    *r.body_mut() = axum::body::Body::from_stream(stream);
    r
}

pub(crate) async fn post_message(svc: StreamableHttpService, mut req: Request) -> Response {
    super::layers::host_from_authority(&mut req);
    if let Err(r) = svc.check_host(req.headers()) {
        return r;
    }
    let auth = match svc.admit_request(&mut req).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let caller = req.extensions().get::<super::gate::Caller>().cloned();
    let headers = req.headers().clone();
    let id = req
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("sessionId=")))
        .map(str::to_string);
    let Some(id) = id else {
        return plain(StatusCode::BAD_REQUEST, "Missing sessionId parameter");
    };
    let Some(session) = svc.inner.legacy.lock().get(&id).cloned() else {
        return plain(StatusCode::NOT_FOUND, "Session not found");
    };
    let ct = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !ct.to_ascii_lowercase().starts_with("application/json") {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let (body, _held) =
        match super::body::read_body(req, &svc.inner.config, &svc.inner.budget).await {
            Ok(b) => b,
            Err(super::body::BodyError::TooLarge) => {
                return plain(StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large")
            }
            Err(super::body::BodyError::Slow) => {
                return plain(StatusCode::REQUEST_TIMEOUT, "Request Timeout")
            }
        };
    let msg = framing::decode(&body);
    if let Incoming::Invalid { id, error } = &msg {
        return rpc_error(StatusCode::BAD_REQUEST, id.as_ref(), error.clone());
    }
    if let Err(r) = svc.admit_message(caller.as_ref(), &headers, &msg) {
        return r;
    }
    if session.peer.is_closed() {
        return rpc_error(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::new(-32001, "Session not found"),
        );
    }
    let trace = crate::TraceContext::from_headers(&headers);
    let dispatch = crate::identity::with_auth(auth, session.peer.dispatch(msg, &session.handler));
    crate::TraceContext::with_transport(trace, dispatch).await;
    (StatusCode::ACCEPTED, "Accepted").into_response()
}
