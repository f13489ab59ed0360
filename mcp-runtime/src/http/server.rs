//! The Streamable HTTP server (2025-03-26 to 2025-11-25) on one endpoint, beside the legacy HTTP+SSE
//! endpoints of 2024-11-05, as an axum [`Router`] or a handler to mount anywhere.

use super::answers::{
    accepts, check_version_header, json_response, plain, rpc_error, store_unavailable,
};
use super::headers::LAST_EVENT_ID;
use super::legacy;
pub use super::service::StreamableHttpService;
use super::session::{Attached, HttpSession};
use super::sessions::tail_log;
use super::sse;
use crate::protocol::ErrorObject;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use bytes::Bytes;

impl StreamableHttpService {
    /// A router serving the endpoint at `config.path` and, unless disabled, the legacy endpoints.
    pub fn router(&self) -> Router {
        let c = &self.inner.config;
        let me = self.clone();
        let mut r = Router::new().route(
            &c.path,
            any(move |req: Request| async move { me.handle(req).await }),
        );
        if c.legacy_sse {
            let a = self.clone();
            let b = self.clone();
            r = r
                .route(
                    &c.legacy_sse_path,
                    get(move |req: Request| async move { legacy::get_sse(a, req).await }),
                )
                .route(
                    &c.legacy_messages_path,
                    post(move |req: Request| async move { legacy::post_message(b, req).await }),
                );
        }
        if self.inner.gate.auth.is_some() {
            let a = self.clone();
            let b = self.clone();
            let suffixed = format!("/.well-known/oauth-protected-resource{}", c.path);
            r = r
                .route(
                    "/.well-known/oauth-protected-resource",
                    get(move |req: Request| async move { a.resource_metadata(req) }),
                )
                .route(
                    &suffixed,
                    get(move |req: Request| async move { b.resource_metadata(req) }),
                );
        }
        super::layers::wrap(r, c)
    }

    /// RFC 9728: what this resource is and who issues tokens for it.
    fn resource_metadata(&self, mut req: Request) -> Response {
        super::layers::host_from_authority(&mut req);
        match self.resource_metadata_doc(req.headers()) {
            Some(doc) => json_response(doc.to_string().into_bytes()),
            None => plain(StatusCode::NOT_FOUND, "Not Found"),
        }
    }

    /// Handles one request to the Streamable HTTP endpoint, wherever it is mounted.
    pub async fn handle(&self, mut req: Request) -> Response {
        super::layers::host_from_authority(&mut req);
        if let Err(resp) = self.check_host(req.headers()) {
            return resp;
        }
        let auth = match self.admit_request(&mut req).await {
            Ok(auth) => auth,
            Err(resp) => return resp,
        };
        // Handlers dispatched below see the caller's identity and trace in their `Context`.
        let trace = crate::TraceContext::from_headers(req.headers());
        let dispatch = crate::identity::with_auth(auth, async move {
            match *req.method() {
                Method::POST => self.post(req).await,
                Method::GET => self.get(req).await,
                Method::DELETE => self.delete(req).await,
                _ => {
                    let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed");
                    r.headers_mut()
                        .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                    r
                }
            }
        });
        crate::TraceContext::with_transport(trace, dispatch).await
    }

    /// GET and DELETE have no meaning for 2026-07-28 (no GET stream, no sessions): 405 for a client that
    /// says it speaks it, or on an endpoint that speaks nothing else.
    fn modern_only_or_modern_client(&self, headers: &HeaderMap) -> bool {
        match self.inner.server.eras() {
            crate::server::Eras::ModernOnly => true,
            crate::server::Eras::LegacyOnly => false,
            crate::server::Eras::Both => super::modern::header_is_modern(headers),
        }
    }

    async fn get(&self, req: Request) -> Response {
        let headers = req.headers();
        if self.modern_only_or_modern_client(headers) {
            return super::modern::method_not_allowed();
        }
        if !self.inner.config.stateful {
            return plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method not allowed: this server is stateless",
            );
        }
        if !accepts(headers, "text/event-stream") {
            return rpc_error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorObject::new(
                    -32000,
                    "Not Acceptable: Client must accept text/event-stream",
                ),
            );
        }
        let session = match self.session(headers).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Err(r) = check_version_header(headers) {
            return r;
        }
        session.touch();
        let retry = self.inner.config.sse_retry.map(|d| d.as_millis() as u64);
        if let Some(last) = headers.get(LAST_EVENT_ID).and_then(|v| v.to_str().ok()) {
            if let Some(Attached { replay, live }) = session.resume(last) {
                return self.sse_response(replay, live, None);
            }
            if let (Some(shared), Some((key, seq))) = (
                &self.inner.config.shared,
                super::session::parse_event_id(last),
            ) {
                // A stream of another instance: its events after `last` from the shared log.
                let replay = match shared.events.after(&session.id, key, seq).await {
                    Ok(r) => r,
                    Err(e) => return store_unavailable(&e),
                };
                let mut last = seq;
                let first: Vec<Bytes> = replay
                    .events
                    .into_iter()
                    .map(|(n, b)| {
                        last = last.max(n);
                        Bytes::from(b)
                    })
                    .collect();
                if replay.finished {
                    return self.sse_response(first, None, None);
                }
                // Its instance goes on writing it (or died): follow the log.
                let tail = tail_log(shared.events.clone(), session.id.clone(), key, last);
                return self.sse_stream(first, tail, true);
            }
        }
        match session.open_get_stream() {
            Some((key, rx)) => {
                let mut first = Vec::new();
                if session.wants_priming() {
                    first.push(sse::priming_event(&HttpSession::priming_id(key), retry));
                }
                self.sse_response(first, Some(rx), None)
            }
            None => rpc_error(
                StatusCode::CONFLICT,
                None,
                ErrorObject::new(
                    -32000,
                    "Conflict: only one SSE stream is allowed per session",
                ),
            ),
        }
    }

    async fn delete(&self, req: Request) -> Response {
        if self.modern_only_or_modern_client(req.headers()) {
            return super::modern::method_not_allowed();
        }
        if !self.inner.config.stateful {
            return plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method not allowed: this server is stateless",
            );
        }
        let session = match self.session(req.headers()).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Err(r) = check_version_header(req.headers()) {
            return r;
        }
        if let Some(shared) = &self.inner.config.shared {
            if let Err(e) = shared.sessions.delete(&session.id).await {
                return store_unavailable(&e);
            }
            if let Err(e) = shared.events.delete_session(&session.id).await {
                tracing::warn!(error = %e, session = %session.id, "event logs of an ended session not deleted (they expire)");
            }
            self.announce(crate::scale::BusEvent::SessionEnded {
                session: session.id.clone(),
            })
            .await;
        }
        self.inner
            .sessions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&session.id);
        session.close("the client ended the session");
        StatusCode::OK.into_response()
    }
}
