//! The OAuth 2.1 resource server: bearer tokens checked by a [`TokenVerifier`], the protected resource
//! metadata (RFC 9728), and the `WWW-Authenticate` challenges that tell a client where to get a token
//! (401) or which scopes to step up to (403 `insufficient_scope`).
//!
//! ```no_run
//! # #[cfg(feature = "oauth")]
//! # fn demo() {
//! use mcp_runtime::http::{HttpConfig, JwtVerifier, ResourceServer};
//! let resource = "https://mcp.example.com/mcp";
//! let verifier = JwtVerifier::new("https://auth.example.com", resource);
//! let config = HttpConfig {
//!     auth: Some(
//!         ResourceServer::new(resource, verifier)
//!             .authorization_server("https://auth.example.com")
//!             .scopes_supported(["files:read", "files:write"]),
//!     ),
//!     ..HttpConfig::default()
//! };
//! # }
//! ```

use crate::future::BoxFuture;
use crate::identity::AuthInfo;
use axum::http::{header, HeaderMap};
use std::sync::Arc;

/// Checks an access token and says who it speaks for. Implementations: [`StaticToken`],
/// [`JwtVerifier`](super::JwtVerifier) and [`IntrospectionVerifier`](super::IntrospectionVerifier)
/// (feature `oauth`), or your own.
pub trait TokenVerifier: Send + Sync + 'static {
    /// The identity behind `token`, or why it is refused. Called once per HTTP request.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>>;
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Expired, not for this resource, badly signed, revoked, malformed: 401 `invalid_token`.
    Invalid(String),
    /// The token cannot be checked now (the authorization server is unreachable): 503.
    Unavailable(String),
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenError::Invalid(why) => f.write_str(why),
            TokenError::Unavailable(why) => write!(f, "the token cannot be verified now: {why}"),
        }
    }
}

impl std::error::Error for TokenError {}

/// One shared secret, compared in constant time: the simplest mode ([`HttpConfig::bearer_token`](
/// super::HttpConfig::bearer_token) uses it).
pub struct StaticToken {
    token: String,
    info: AuthInfo,
}

impl StaticToken {
    /// A verifier that accepts exactly this token (compared in constant time), as a caller with no subject
    /// and no scopes.
    pub fn new(token: impl Into<String>) -> Self {
        StaticToken {
            token: token.into(),
            info: AuthInfo::default(),
        }
    }

    /// The scopes the token grants (none by default).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.info.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
}

impl TokenVerifier for StaticToken {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>> {
        use subtle::ConstantTimeEq;
        let ok = bool::from(token.as_bytes().ct_eq(self.token.as_bytes()));
        Box::pin(async move {
            if ok {
                Ok(self.info.clone())
            } else {
                Err(TokenError::Invalid("the bearer token is not valid".into()))
            }
        })
    }
}

/// What this server is as an OAuth protected resource: the verifier of its tokens, its canonical URI
/// (the audience tokens must name, RFC 8707), and what its metadata document says.
#[derive(Clone)]
pub struct ResourceServer {
    pub(crate) verifier: Arc<dyn TokenVerifier>,
    /// The canonical URI of the MCP endpoint (`https://mcp.example.com/mcp`). `None` derives it from the
    /// request's `Host` (development only: behind a proxy the host may not be what clients use).
    pub resource: Option<String>,
    /// The issuers whose tokens are accepted, listed in the metadata.
    pub authorization_servers: Vec<String>,
    /// `scopes_supported` of the metadata, and the scopes a 401 challenge asks for.
    pub scopes_supported: Vec<String>,
    /// Scopes every request needs (each tool may need more: [`ToolRoute::scopes`](crate::server::ToolRoute)).
    pub required_scopes: Vec<String>,
    /// `resource_name` of the metadata.
    pub resource_name: Option<String>,
    /// `resource_documentation` of the metadata.
    pub resource_documentation: Option<String>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes_supported", &self.scopes_supported)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// A resource at `resource` (its canonical URI) whose tokens `verifier` checks.
    pub fn new(resource: impl Into<String>, verifier: impl TokenVerifier) -> Self {
        let mut r = ResourceServer::with_verifier(Arc::new(verifier));
        r.resource = Some(resource.into());
        r
    }

    /// A resource whose URI is derived from each request's `Host` (development, tests).
    pub fn with_verifier(verifier: Arc<dyn TokenVerifier>) -> Self {
        ResourceServer {
            verifier,
            resource: None,
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            resource_documentation: None,
        }
    }

    /// Adds an issuer whose tokens are accepted (listed in `authorization_servers` of the metadata).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Sets `scopes_supported` of the metadata, the scopes a 401 challenge asks for.
    pub fn scopes_supported<S: Into<String>>(mut self, s: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported = s.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the scopes every request needs; a token without them is refused with 403 `insufficient_scope`.
    pub fn required_scopes<S: Into<String>>(mut self, s: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = s.into_iter().map(Into::into).collect();
        self
    }

    /// Sets `resource_name` of the metadata (a name for people).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The resource URI for a request to `path` (the configured one, or one built from `Host`).
    pub(crate) fn resource_uri(&self, headers: &HeaderMap, path: &str, https: bool) -> String {
        match &self.resource {
            Some(r) => r.clone(),
            None => {
                let host = headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("localhost");
                let scheme = if https { "https" } else { "http" };
                format!("{scheme}://{host}{path}")
            }
        }
    }

    /// RFC 9728 section 3.1: the metadata URL is the well-known prefix inserted before the resource's path.
    pub(crate) fn metadata_url(&self, headers: &HeaderMap, path: &str, https: bool) -> String {
        metadata_url_of(&self.resource_uri(headers, path, https))
    }

    /// The protected resource metadata document.
    pub(crate) fn metadata(
        &self,
        headers: &HeaderMap,
        path: &str,
        https: bool,
    ) -> serde_json::Value {
        let mut doc = serde_json::json!({
            "resource": self.resource_uri(headers, path, https),
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            doc["scopes_supported"] = serde_json::json!(self.scopes_supported);
        }
        if let Some(n) = &self.resource_name {
            doc["resource_name"] = serde_json::json!(n);
        }
        if let Some(d) = &self.resource_documentation {
            doc["resource_documentation"] = serde_json::json!(d);
        }
        doc
    }

    /// The scopes a 401 challenge suggests: what every request needs, else what the server supports.
    fn challenge_scopes(&self) -> &[String] {
        if self.required_scopes.is_empty() {
            &self.scopes_supported
        } else {
            &self.required_scopes
        }
    }
}

/// `https://h/mcp` → `https://h/.well-known/oauth-protected-resource/mcp`.
pub(crate) fn metadata_url_of(resource: &str) -> String {
    const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
    let Some((scheme, rest)) = resource.split_once("://") else {
        return format!("{resource}{WELL_KNOWN}");
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = if path == "/" { "" } else { path };
    format!("{scheme}://{authority}{WELL_KNOWN}{path}")
}

/// A `WWW-Authenticate: Bearer ...` value (RFC 6750 section 3); quotes and backslashes escaped.
pub(crate) fn challenge(params: &[(&str, &str)]) -> String {
    let mut out = String::from("Bearer");
    for (i, (k, v)) in params.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        out.push_str(k);
        out.push_str("=\"");
        for c in v.chars() {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            // Header values are visible ASCII: anything else in a description is dropped.
            if c == ' ' || c.is_ascii_graphic() {
                out.push(c);
            }
        }
        out.push('"');
    }
    out
}

/// The challenge of a 401: no token (no error code, per RFC 6750 section 3.1) or an invalid one.
pub(crate) fn unauthorized_challenge(
    rs: &ResourceServer,
    metadata_url: &str,
    error: Option<&str>,
) -> String {
    let scope = rs.challenge_scopes().join(" ");
    let mut p: Vec<(&str, &str)> = Vec::new();
    if let Some(e) = error {
        p.push(("error", "invalid_token"));
        p.push(("error_description", e));
    }
    p.push(("resource_metadata", metadata_url));
    if !scope.is_empty() {
        p.push(("scope", &scope));
    }
    challenge(&p)
}

/// The challenge of a 403 `insufficient_scope`: every scope the operation needs, in one challenge.
pub(crate) fn insufficient_scope_challenge(needed: &[String], metadata_url: &str) -> String {
    let scope = needed.join(" ");
    let description = format!("this operation needs the scopes: {scope}");
    challenge(&[
        ("error", "insufficient_scope"),
        ("scope", &scope),
        ("resource_metadata", metadata_url),
        ("error_description", &description),
    ])
}

/// The bearer token of a request (`Authorization: Bearer <token>`, scheme case-insensitive).
pub(crate) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The scopes of `needed` that `auth` lacks.
pub(crate) fn missing_scopes<'a>(
    auth: Option<&AuthInfo>,
    needed: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    needed
        .into_iter()
        .filter(|s| !auth.is_some_and(|a| a.has_scope(s)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_url_inserts_the_well_known_prefix_before_the_path() {
        assert_eq!(
            metadata_url_of("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url_of("https://mcp.example.com"),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_url_of("http://127.0.0.1:9/a/b?x=1"),
            "http://127.0.0.1:9/.well-known/oauth-protected-resource/a/b"
        );
    }

    #[test]
    fn challenges_quote_and_escape() {
        assert_eq!(
            challenge(&[
                ("error", "insufficient_scope"),
                ("error_description", "a \"b\" \\ é")
            ]),
            r#"Bearer error="insufficient_scope", error_description="a \"b\" \\ ""#
        );
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, "bEaReR abc".parse().unwrap());
        assert_eq!(bearer_token(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer_token(&h), None);
        h.insert(header::AUTHORIZATION, "Bearer ".parse().unwrap());
        assert_eq!(bearer_token(&h), None);
    }
}
