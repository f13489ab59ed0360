//! Streamable HTTP for protocol 2026-07-28: every POST stands alone. No session, no GET stream, no
//! resumption; the request's headers mirror its body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-{Name}`) and must agree with it.
//!
//! A request is served on a connection of its own ([`Peer`]): the same pump as every other transport
//! (concurrency, cancellation, panics fail alone), whose frames are exactly this POST's answer. The answer
//! is one JSON body when the response comes first, or an SSE stream when notifications (progress, logs,
//! a listen stream's changes) precede it. The client closing that stream cancels the request.

use super::answers::{json_response, rpc_error};
use super::headers;
use super::service::StreamableHttpService;
use super::sse;
use crate::connection::{OutKind, Outgoing, Peer};
use crate::framing::Incoming;
use crate::protocol::{codes, methods, ErrorObject, ProtocolVersion, RequestId};
use crate::server::era::{MetaRaw, Resolved};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use tokio::sync::mpsc;

/// What the header checks read from the body, in one pass over it.
#[derive(Deserialize, Default)]
struct BodyView<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    #[serde(rename = "taskId", borrow, default)]
    task_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaRaw<'a>>,
}

/// Whether a POSTed message is served by the 2026-07-28 rules: it says so in `MCP-Protocol-Version` or in
/// `_meta`, or it is `server/discover`.
pub(crate) fn is_modern(headers: &HeaderMap, msg: &Incoming<'_>) -> bool {
    let header = headers
        .get(headers::PROTOCOL_VERSION)
        .and_then(|v| v.to_str().ok())
        .and_then(ProtocolVersion::parse);
    if header.is_some_and(ProtocolVersion::is_modern) {
        return true;
    }
    match msg {
        Incoming::Request { method, params, .. } => {
            method == methods::SERVER_DISCOVER || params.is_some_and(declares_modern)
        }
        _ => false,
    }
}

/// Whether params carry the per-request protocol fields in `_meta`. A handshake-era request rarely
/// mentions `io.modelcontextprotocol/` at all, which a scan for it settles without parsing.
fn declares_modern(params: &RawValue) -> bool {
    memchr::memmem::find(params.get().as_bytes(), b"io.modelcontextprotocol/").is_some()
        && serde_json::from_str::<BodyView<'_>>(params.get())
            .ok()
            .and_then(|b| b.meta)
            .is_some_and(|m| m.is_modern())
}

fn header_text<'h>(h: &'h HeaderMap, name: &str) -> Result<Option<&'h [u8]>, ErrorObject> {
    let mut all = h.get_all(name).iter();
    let first = all.next();
    if all.next().is_some() {
        return Err(ErrorObject::header_mismatch(format!(
            "{name} appears more than once"
        )));
    }
    Ok(first.map(HeaderValue::as_bytes))
}

fn required<'h>(h: &'h HeaderMap, name: &str) -> Result<&'h [u8], ErrorObject> {
    header_text(h, name)?.ok_or_else(|| {
        ErrorObject::header_mismatch(format!("the required header {name} is missing"))
    })
}

/// The checks of the spec's "Server Validation": the standard headers are present and equal to the
/// body, and every `Mcp-Param-{Name}` the tool declares matches its argument.
fn check_headers(
    svc: &StreamableHttpService,
    h: &HeaderMap,
    method: &str,
    view: &BodyView<'_>,
) -> Result<(), ErrorObject> {
    let version = required(h, headers::PROTOCOL_VERSION)?;
    if let Some(body_version) = view.meta.as_ref().and_then(MetaRaw::version_str) {
        if version != body_version.as_bytes() {
            return Err(ErrorObject::header_mismatch(format!(
                "MCP-Protocol-Version {:?} does not match _meta.io.modelcontextprotocol/protocolVersion {:?}",
                String::from_utf8_lossy(version),
                body_version
            )));
        }
    }
    let m = required(h, headers::METHOD)?;
    if m != method.as_bytes() {
        return Err(ErrorObject::header_mismatch(format!(
            "Mcp-Method {:?} does not match the body's method {method:?}",
            String::from_utf8_lossy(m)
        )));
    }
    if let Some(param) = headers::name_param(method) {
        let raw = required(h, headers::NAME)?;
        let name = headers::decode_value(raw)
            .map_err(|e| ErrorObject::header_mismatch(format!("Mcp-Name: {e}")))?;
        let body = match param {
            "uri" => &view.uri,
            "taskId" => &view.task_id,
            _ => &view.name,
        };
        if body.as_deref() != Some(name.as_str()) {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Name {name:?} does not match the body's params.{param} {:?}",
                body.as_deref().unwrap_or("")
            )));
        }
    }
    if method == methods::TOOLS_CALL {
        let Some(name) = &view.name else {
            return Ok(());
        };
        let params = svc.inner.server.tool_header_params(name);
        if params.is_empty() {
            return Ok(());
        }
        let arguments: Option<serde_json::Value> = view
            .arguments
            .and_then(|a| serde_json::from_str(a.get()).ok());
        for p in params.iter() {
            let header_name = p.header_name();
            let given = header_text(h, &header_name)?;
            let expected = p
                .text(arguments.as_ref())
                .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?;
            match (given, expected) {
                (None, None) => {}
                (Some(_), None) => {
                    return Err(ErrorObject::header_mismatch(format!(
                        "{header_name} is set but the argument `{}` is absent",
                        p.path.join(".")
                    )))
                }
                (None, Some(_)) => {
                    return Err(ErrorObject::header_mismatch(format!(
                        "the header {header_name} is missing for argument `{}`",
                        p.path.join(".")
                    )))
                }
                (Some(raw), Some(want)) => {
                    let got = headers::decode_value(raw)
                        .map_err(|e| ErrorObject::header_mismatch(format!("{header_name}: {e}")))?;
                    if !p.same_value(&got, &want) {
                        return Err(ErrorObject::header_mismatch(format!(
                            "{header_name} {got:?} does not match argument `{}` ({want:?})",
                            p.path.join(".")
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The HTTP status of a JSON-RPC error answered by a 2026-07-28 endpoint.
fn status_of(code: i32) -> StatusCode {
    match code {
        codes::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        codes::HEADER_MISMATCH
        | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
        | codes::UNSUPPORTED_PROTOCOL_VERSION
        | codes::INVALID_REQUEST
        | codes::PARSE_ERROR => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// The code of an error response frame (`frame::error` writes `"error":{"code":` right after the id).
fn error_code(frame: &[u8]) -> Option<i32> {
    const KEY: &[u8] = b"\"error\":{\"code\":";
    let head = &frame[..frame.len().min(512)];
    let at = memchr::memmem::find(head, KEY)? + KEY.len();
    let digits: Vec<u8> = frame[at..]
        .iter()
        .copied()
        .take_while(|b| *b == b'-' || b.is_ascii_digit())
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

/// Closes the request's connection (cancelling its handler) when the answer is dropped: the client
/// went away, or the answer is complete.
struct CloseOnDrop(Peer);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close("the HTTP answer ended".into());
    }
}

/// Serves one 2026-07-28 POST.
pub(crate) async fn post(
    svc: &StreamableHttpService,
    h: &HeaderMap,
    msg: Incoming<'_>,
) -> Response {
    let Incoming::Request { id, method, params } = msg else {
        // This revision defines no client notifications over HTTP (a closed stream is the cancellation).
        return StatusCode::ACCEPTED.into_response();
    };
    let view: BodyView<'_> = match params {
        None => BodyView::default(),
        Some(p) => match serde_json::from_str(p.get()) {
            Ok(v) => v,
            Err(e) => {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    Some(&id),
                    ErrorObject::invalid_params(format!("Invalid params: {e}")),
                )
            }
        },
    };
    if method == methods::INITIALIZE && !view.meta.as_ref().is_some_and(MetaRaw::is_modern) {
        // A handshake-era client at a 2026-only endpoint: tell it the version to use.
        #[derive(Deserialize)]
        struct Init {
            #[serde(rename = "protocolVersion", default)]
            version: String,
        }
        let requested = params
            .and_then(|p| serde_json::from_str::<Init>(p.get()).ok())
            .map(|i| i.version)
            .unwrap_or_default();
        return rpc_error(
            StatusCode::BAD_REQUEST,
            Some(&id),
            crate::server::era::initialize_refused(&requested),
        );
    }
    if let Err(e) = check_headers(svc, h, &method, &view) {
        return rpc_error(StatusCode::BAD_REQUEST, Some(&id), e);
    }
    // A malformed or unsupported `_meta` is answered here, with its HTTP status (400).
    let meta = view.meta.unwrap_or_default();
    let modern = match svc.inner.declared.resolve(&meta) {
        Err(e) => return rpc_error(StatusCode::BAD_REQUEST, Some(&id), e),
        Ok(Resolved::Legacy) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                Some(&id),
                ErrorObject::invalid_params(
                    "Invalid params: _meta is missing `io.modelcontextprotocol/protocolVersion` and \
                     `io.modelcontextprotocol/clientCapabilities`, which every request of protocol 2026-07-28 carries",
                ),
            )
        }
        Ok(Resolved::LegacyVersionInMeta(v)) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                Some(&id),
                crate::server::era::legacy_version_needs_initialize(v),
            )
        }
        Ok(Resolved::Modern(m)) => m,
    };
    let server = &svc.inner.server;
    let (peer, rx) =
        Peer::with_budget(server.connection_config().clone(), svc.inner.budget.clone());
    let handler = server.request_handler(peer.clone(), svc.principal(h), Some(modern));
    let guard = CloseOnDrop(peer.clone());
    peer.dispatch(
        Incoming::Request {
            id: id.clone(),
            method,
            params,
        },
        &handler,
    )
    .await;
    answer(svc, id, rx, guard).await
}

/// Reads the request's frames: the response alone becomes a JSON body; anything before it turns the
/// answer into an SSE stream that ends with the response.
async fn answer(
    svc: &StreamableHttpService,
    id: RequestId,
    mut rx: mpsc::Receiver<Outgoing>,
    guard: CloseOnDrop,
) -> Response {
    let Some(first) = next_frame(&mut rx).await else {
        return rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some(&id),
            ErrorObject::internal("Internal error: the request ended without an answer"),
        );
    };
    if matches!(first.kind, OutKind::Response(_)) {
        drop(guard);
        let status = error_code(&first.frame).map_or(StatusCode::OK, status_of);
        let mut frame = first.frame;
        if frame.last() == Some(&b'\n') {
            frame.pop();
        }
        let mut r = json_response(frame);
        *r.status_mut() = status;
        return r;
    }
    let head = sse::message_event(None, &first.frame);
    let tail = futures_util::stream::unfold(Some((rx, guard)), |state| async move {
        let (mut rx, guard) = state?;
        let out = next_frame(&mut rx).await?;
        let ev = sse::message_event(None, &out.frame);
        let done = matches!(out.kind, OutKind::Response(_));
        Some((ev, (!done).then_some((rx, guard))))
    });
    svc.sse_stream(vec![head], tail, false)
}

/// The next frame to send, skipping markers and frames of cancelled requests.
async fn next_frame(rx: &mut mpsc::Receiver<Outgoing>) -> Option<Outgoing> {
    loop {
        let out = rx.recv().await?;
        if !out.frame.is_empty() && !out.is_cancelled() {
            return Some(out);
        }
    }
}

/// `405` for GET and DELETE from a 2026-07-28 client (or on an endpoint that speaks only 2026-07-28).
pub(crate) fn method_not_allowed() -> Response {
    let mut r = (
        StatusCode::METHOD_NOT_ALLOWED,
        "Method not allowed: protocol 2026-07-28 has no GET stream and no sessions; POST every request",
    )
        .into_response();
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

/// Whether a GET or DELETE comes from a 2026-07-28 client.
pub(crate) fn header_is_modern(h: &HeaderMap) -> bool {
    h.get(headers::PROTOCOL_VERSION)
        .and_then(|v| v.to_str().ok())
        .and_then(ProtocolVersion::parse)
        .is_some_and(ProtocolVersion::is_modern)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_are_read_from_error_frames_only() {
        let e = crate::framing::frame::error(
            Some(&RequestId::Number(7)),
            &ErrorObject::method_not_found("x"),
        );
        assert_eq!(error_code(&e), Some(-32601));
        let ok = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#;
        assert_eq!(error_code(ok), None);
        assert_eq!(status_of(-32601), StatusCode::NOT_FOUND);
        assert_eq!(status_of(-32021), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(-32602), StatusCode::OK);
    }
}
