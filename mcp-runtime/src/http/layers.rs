//! The tower layers around the MCP routes, outermost first: CORS (so that refusals, 401 challenges and
//! 429s included, carry the headers a browser needs to read them), then compression; and the one
//! normalization every entry point applies first.

use super::config::HttpConfig;
use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::Router;

/// HTTP/2 carries the host in the `:authority` pseudo-header, not `Host`: copy it into `Host`, so that
/// the DNS rebinding check and the resource URI see it whatever the protocol.
pub(crate) fn host_from_authority(req: &mut Request) {
    if req.headers().contains_key(header::HOST) {
        return;
    }
    let authority = req.uri().authority().map(|a| a.as_str().to_string());
    if let Some(v) = authority.and_then(|a| HeaderValue::from_str(&a).ok()) {
        req.headers_mut().insert(header::HOST, v);
    }
}

pub(crate) fn wrap(mut r: Router, c: &HttpConfig) -> Router {
    #[cfg(feature = "compression")]
    if let Some(z) = c.compression.clone() {
        r = r.layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                super::compression::compress(z.clone(), req, next)
            },
        ));
    }
    if let Some(cors) = &c.cors {
        r = r.layer(cors.layer());
    }
    r
}
