//! The HTTP answers every transport gives (JSON, a whole SSE stream, a JSON-RPC error, plain text, a shared
//! store that failed) and the header checks that refuse a request with one.

use super::headers::VERSION_HEADER;
use crate::framing::frame;
use crate::protocol::{ErrorObject, ProtocolVersion, RequestId};
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// A complete SSE stream as one body.
pub(super) fn sse_body(events: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(events));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

pub(crate) fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    // What clients send nearly always, settled without splitting.
    if let Some(v) = headers.get(header::ACCEPT) {
        if v.as_bytes() == b"application/json, text/event-stream"
            && (mime == "application/json" || mime == "text/event-stream")
        {
            return true;
        }
    }
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',').any(|part| {
                let t = part.split(';').next().unwrap_or("").trim();
                t.eq_ignore_ascii_case(mime)
                    || t == "*/*"
                    || (t.ends_with("/*") && mime.starts_with(&t[..t.len() - 1]))
            })
        })
}

/// `MCP-Protocol-Version`: absent means 2025-03-26; an unknown value is a 400.
pub(super) fn check_version_header(headers: &HeaderMap) -> Result<(), Response> {
    match headers.get(VERSION_HEADER) {
        None => Ok(()),
        Some(v) => match v.to_str().ok().and_then(ProtocolVersion::parse) {
            Some(_) => Ok(()),
            None => Err(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::unsupported_version(
                    v.to_str().unwrap_or("?"),
                    ProtocolVersion::supported_strings(),
                ),
            )),
        },
    }
}

pub(crate) fn json_response(body: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(crate) fn rpc_error(status: StatusCode, id: Option<&RequestId>, e: ErrorObject) -> Response {
    let mut r = json_response(frame::error(id, &e));
    *r.status_mut() = status;
    r
}

/// A shared store could not be reached: 503 with a JSON-RPC error (the client may retry).
pub(super) fn store_unavailable(e: &crate::scale::StoreError) -> Response {
    tracing::warn!(error = %e, "shared store unavailable");
    rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        ErrorObject::internal(format!(
            "Internal error: shared session store unavailable: {e}"
        )),
    )
}

pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, text).into_response()
}
