//! What a request must pass before it reaches a session: its access token (401, or 503 when it cannot
//! be checked), the scopes every request needs and those of the tools it calls (403
//! `insufficient_scope`), and the rate limits of its client and of those tools (429). Nothing is
//! dispatched, so no handler runs, for a request refused here.

use super::answers::rpc_error;
use super::gate::{Caller, Gate};
use super::rate_limit::{retry_after_secs, ClientKey, Limiter};
use super::resource_server::{
    bearer_token, insufficient_scope_challenge, missing_scopes, unauthorized_challenge,
    ResourceServer, TokenError,
};
use super::service::StreamableHttpService;
use crate::framing::{self, Incoming};
use crate::identity::AuthInfo;
use crate::protocol::{methods, ErrorObject, RequestId};
use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

impl StreamableHttpService {
    fn gate(&self) -> &Gate {
        &self.inner.gate
    }

    /// The metadata URL of this resource as seen by a request.
    fn metadata_url(&self, rs: &ResourceServer, headers: &HeaderMap) -> String {
        rs.metadata_url(headers, &self.inner.config.path, self.gate().https)
    }

    /// The RFC 9728 document, or `None` when no resource server is configured.
    pub(crate) fn resource_metadata_doc(&self, headers: &HeaderMap) -> Option<serde_json::Value> {
        let rs = self.gate().auth.as_ref()?;
        Some(rs.metadata(headers, &self.inner.config.path, self.gate().https))
    }

    /// The token and the per-client rate limit. On success the caller is recorded in the request's
    /// extensions (for [`Self::admit_message`]) and its identity returned, for the dispatch to carry.
    pub(crate) async fn admit_request(
        &self,
        req: &mut Request,
    ) -> Result<Option<Arc<AuthInfo>>, Response> {
        let gate = self.gate();
        let auth = match &gate.auth {
            None => None,
            Some(rs) => Some(Arc::new(self.authenticate(rs, req.headers()).await?)),
        };
        if let Some(rs) = &gate.auth {
            let missing = missing_scopes(auth.as_deref(), &rs.required_scopes);
            if !missing.is_empty() {
                let mut needed = rs.required_scopes.clone();
                needed.dedup();
                return Err(self.insufficient_scope(rs, req.headers(), &needed, None));
            }
        }
        let key = client_key(req, auth.as_deref(), gate.limiter.as_ref());
        if let Some(l) = &gate.limiter {
            if let Err(wait) = l.request(&key) {
                return Err(too_many(wait, None, "this client sends too many requests"));
            }
        }
        req.extensions_mut().insert(Caller {
            auth: auth.clone(),
            key,
        });
        Ok(auth)
    }

    async fn authenticate(
        &self,
        rs: &ResourceServer,
        headers: &HeaderMap,
    ) -> Result<AuthInfo, Response> {
        let refuse = |error: Option<&str>| {
            let url = self.metadata_url(rs, headers);
            let mut r = rpc_error(
                StatusCode::UNAUTHORIZED,
                None,
                ErrorObject::new(
                    -32000,
                    format!(
                        "Unauthorized: {}",
                        error.unwrap_or("a valid bearer token is required")
                    ),
                ),
            );
            if let Ok(v) = HeaderValue::from_str(&unauthorized_challenge(rs, &url, error)) {
                r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            r
        };
        let Some(token) = bearer_token(headers) else {
            return Err(refuse(None));
        };
        match rs.verifier.verify(token).await {
            Ok(info) => Ok(AuthInfo {
                token: Some(crate::identity::BearerToken::new(token)),
                ..info
            }),
            Err(TokenError::Invalid(why)) => {
                tracing::debug!(%why, "access token refused");
                Err(refuse(Some(&why)))
            }
            Err(TokenError::Unavailable(why)) => {
                tracing::warn!(%why, "access token cannot be verified");
                let mut r = rpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    None,
                    ErrorObject::new(
                        -32000,
                        "Service Unavailable: the access token cannot be verified now",
                    ),
                );
                r.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
                Err(r)
            }
        }
    }

    /// The scopes and rate limits of the tools a POSTed message calls (every call of a batch).
    pub(crate) fn admit_message(
        &self,
        caller: Option<&Caller>,
        headers: &HeaderMap,
        msg: &Incoming<'_>,
    ) -> Result<(), Response> {
        let gate = self.gate();
        if gate.auth.is_none() && gate.limiter.is_none() {
            return Ok(());
        }
        let mut calls: Vec<(RequestId, String)> = Vec::new();
        match msg {
            Incoming::Request { id, method, params } if method == methods::TOOLS_CALL => {
                if let Some(name) = tool_name(*params) {
                    calls.push((id.clone(), name));
                }
            }
            Incoming::Batch(items) => {
                for item in items {
                    if let Incoming::Request { id, method, params } =
                        framing::decode_str(item.get())
                    {
                        if method == methods::TOOLS_CALL {
                            if let Some(name) = tool_name(params) {
                                calls.push((id, name));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        if calls.is_empty() {
            return Ok(());
        }
        if let Some(rs) = &gate.auth {
            let mut needed: Vec<String> = Vec::new();
            for (_, name) in &calls {
                let Some(scopes) = self.inner.server.tool_scopes(name) else {
                    continue; // an unknown tool: the session answers -32602
                };
                for s in rs.required_scopes.iter().chain(&scopes) {
                    if !needed.contains(s) {
                        needed.push(s.clone());
                    }
                }
            }
            let auth = caller.and_then(|c| c.auth.as_deref());
            if !missing_scopes(auth, &needed).is_empty() {
                let id = (calls.len() == 1).then(|| &calls[0].0);
                return Err(self.insufficient_scope(rs, headers, &needed, id));
            }
        }
        if let (Some(l), Some(c)) = (&gate.limiter, caller) {
            for (id, name) in &calls {
                if let Err(wait) = l.tool_call(&c.key, name) {
                    return Err(too_many(
                        wait,
                        Some(id),
                        &format!("too many calls of the tool {name}"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn insufficient_scope(
        &self,
        rs: &ResourceServer,
        headers: &HeaderMap,
        needed: &[String],
        id: Option<&RequestId>,
    ) -> Response {
        let url = self.metadata_url(rs, headers);
        let mut r = rpc_error(
            StatusCode::FORBIDDEN,
            id,
            ErrorObject::new(
                -32000,
                format!(
                    "Forbidden: insufficient scope; this needs {}",
                    needed.join(" ")
                ),
            ),
        );
        if let Ok(v) = HeaderValue::from_str(&insufficient_scope_challenge(needed, &url)) {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        r
    }
}

/// `params.name` of a `tools/call`.
fn tool_name(params: Option<&serde_json::value::RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
    }
    let p: P<'_> = serde_json::from_str(params?.get()).ok()?;
    Some(p.name.into_owned())
}

/// The token's subject, else the client's address (from the proxy header when configured).
fn client_key(req: &Request, auth: Option<&AuthInfo>, limiter: Option<&Limiter>) -> ClientKey {
    if let Some(sub) = auth.and_then(|a| a.subject.as_ref()) {
        return ClientKey::Subject(sub.clone());
    }
    let forwarded = limiter
        .and_then(|l| l.config.client_address_header.as_deref())
        .and_then(|h| req.headers().get_all(h).iter().next_back())
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|v| v.trim().parse().ok());
    if let Some(ip) = forwarded {
        return ClientKey::Address(ip);
    }
    match req.extensions().get::<ConnectInfo<SocketAddr>>() {
        Some(ConnectInfo(a)) => ClientKey::Address(a.ip()),
        None => ClientKey::Unknown,
    }
}

fn too_many(wait: Duration, id: Option<&RequestId>, why: &str) -> Response {
    let secs = retry_after_secs(wait);
    let mut r = rpc_error(
        StatusCode::TOO_MANY_REQUESTS,
        id,
        ErrorObject::new(
            -32000,
            format!("Too Many Requests: {why}; retry after {secs} s"),
        ),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    r
}
