//! `gateway.auth`: the HTTP front as an OAuth 2.1 resource server, the runtime's own
//! ([`mcp_runtime::http::ResourceServer`]): every request carries a bearer token that a JWKS (a JWT from
//! `issuer`) or an introspection endpoint (an opaque token) vouches for, issued for this gateway
//! (`audience`, default `resource`). The verified caller reaches the gateway's handlers
//! ([`mcp_runtime::Context::auth`]): [`crate::authz`]'s rules decide what it sees, and per-user
//! upstreams ([`crate::credentials`]) get its token or one obtained for it.
//!
//! ```json
//! "gateway": {"auth": {
//!   "resource": "https://mcp.example.com/mcp",
//!   "issuer": "https://auth.example.com",
//!   "jwksUri": "https://auth.example.com/jwks",
//!   "requiredScopes": ["mcp"]
//! }}
//! ```

use mcp_runtime::http::{IntrospectionVerifier, JwtVerifier, ResourceServer};
use serde::Deserialize;

/// `gateway.auth`, checked.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FrontAuth {
    /// This gateway's resource identifier (its `/mcp` URL as clients reach it): the RFC 9728 metadata
    /// names it, and tokens must be issued for it unless `audience` says otherwise.
    pub resource: String,
    /// The authorization server that issues the tokens (`iss`); its JWKS is discovered from its
    /// metadata unless `jwksUri` is given.
    #[serde(default)]
    pub issuer: Option<String>,
    #[serde(default)]
    pub jwks_uri: Option<String>,
    /// The audience tokens must carry (default: `resource`).
    #[serde(default)]
    pub audience: Option<String>,
    /// Opaque tokens: checked at this RFC 7662 endpoint instead of as JWTs.
    #[serde(default)]
    pub introspection: Option<Introspection>,
    /// Scopes every request needs (403 `insufficient_scope` otherwise).
    #[serde(default)]
    pub required_scopes: Vec<String>,
    /// Scopes the metadata advertises.
    #[serde(default)]
    pub scopes_supported: Vec<String>,
}

/// `gateway.auth.introspection`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Introspection {
    pub endpoint: String,
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub client_secret: Option<String>,
}

impl FrontAuth {
    /// Checks the section: a problem is the key under `gateway.auth` and what is wrong.
    pub(crate) fn check(&self) -> Result<(), (String, String)> {
        let url = |k: &str, v: &str| {
            if v.starts_with("http://") || v.starts_with("https://") {
                Ok(())
            } else {
                Err((
                    format!("gateway.auth.{k}"),
                    format!("`{v}` is not an http:// or https:// URL"),
                ))
            }
        };
        url("resource", &self.resource)?;
        match (&self.issuer, &self.introspection) {
            (None, None) => {
                return Err((
                    "gateway.auth".into(),
                    "needs `issuer` (JWT access tokens) or `introspection` (opaque ones)".into(),
                ))
            }
            (Some(_), Some(_)) if self.jwks_uri.is_some() => {
                return Err((
                    "gateway.auth.jwksUri".into(),
                    "goes with JWTs, not with `introspection`".into(),
                ))
            }
            _ => {}
        }
        if let Some(i) = &self.issuer {
            url("issuer", i)?;
        }
        if let Some(j) = &self.jwks_uri {
            url("jwksUri", j)?;
        }
        if let Some(i) = &self.introspection {
            url("introspection.endpoint", &i.endpoint)?;
            if i.client_id.is_some() != i.client_secret.is_some() {
                return Err((
                    "gateway.auth.introspection".into(),
                    "`clientId` and `clientSecret` go together".into(),
                ));
            }
        }
        Ok(())
    }

    /// The runtime's resource server for this section.
    pub fn resource_server(&self) -> ResourceServer {
        let audience = self
            .audience
            .clone()
            .unwrap_or_else(|| self.resource.clone());
        let rs = match &self.introspection {
            Some(i) => {
                let mut v = IntrospectionVerifier::new(&i.endpoint, audience);
                if let (Some(id), Some(secret)) = (&i.client_id, &i.client_secret) {
                    v = v.client_credentials(id, secret);
                }
                if let Some(iss) = &self.issuer {
                    v = v.issuer(iss);
                }
                ResourceServer::new(&self.resource, v)
            }
            None => {
                let issuer = self.issuer.clone().unwrap_or_default();
                let mut v = JwtVerifier::new(&issuer, audience);
                if let Some(j) = &self.jwks_uri {
                    v = v.jwks_uri(j);
                }
                ResourceServer::new(&self.resource, v)
            }
        };
        let rs = match &self.issuer {
            Some(iss) => rs.authorization_server(iss),
            None => rs,
        };
        rs.required_scopes(self.required_scopes.clone())
            .scopes_supported(self.scopes_supported.clone())
    }
}
