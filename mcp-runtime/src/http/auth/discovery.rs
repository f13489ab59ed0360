//! Finding the authorization server: protected resource metadata (RFC 9728), then the authorization
//! server's metadata (RFC 8414 and OpenID Connect discovery), whose `issuer` must be exactly the issuer the
//! well-known URL was built from (RFC 8414 section 3.3): a document that names another issuer is not used.

use super::challenge::Challenge;
use reqwest::Url;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub(crate) struct ResourceMetadata {
    pub(crate) resource: Option<String>,
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: Option<String>,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Vec<String>,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub(crate) dpop_signing_alg_values_supported: Vec<String>,
}

impl ServerMetadata {
    /// The endpoints a 2025-03-26 server without metadata has at its origin.
    pub(crate) fn fallback(origin: &Url) -> Result<ServerMetadata, String> {
        let at = |p: &str| {
            origin
                .join(p)
                .map(|u| u.to_string())
                .map_err(|e| e.to_string())
        };
        Ok(ServerMetadata {
            issuer: None,
            authorization_endpoint: Some(at("/authorize")?),
            token_endpoint: at("/token")?,
            registration_endpoint: Some(at("/register")?),
            token_endpoint_auth_methods_supported: Vec::new(),
            client_id_metadata_document_supported: false,
            scopes_supported: None,
            // Servers of that era predate the rule; PKCE S256 is still what the client sends.
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            authorization_response_iss_parameter_supported: false,
            dpop_signing_alg_values_supported: Vec::new(),
        })
    }

    pub(crate) fn supports_dpop_es256(&self) -> bool {
        self.dpop_signing_alg_values_supported
            .iter()
            .any(|a| a == "ES256")
    }
}

async fn get_json<T: serde::de::DeserializeOwned>(http: &reqwest::Client, url: &Url) -> Option<T> {
    let r = http
        .get(url.clone())
        .header("accept", "application/json")
        .send()
        .await
        .ok()?;
    if !r.status().is_success() {
        return None;
    }
    r.json().await.ok()
}

/// RFC 9728: the URL from the challenge, then the path-based well-known URL, then the root one.
pub(crate) async fn resource_metadata(
    http: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Option<ResourceMetadata> {
    let mut candidates = Vec::new();
    if let Some(u) = challenge
        .resource_metadata
        .as_deref()
        .and_then(|u| server.join(u).ok())
    {
        candidates.push(u);
    }
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        candidates.extend(
            server
                .join(&format!("/.well-known/oauth-protected-resource{path}"))
                .ok(),
        );
    }
    candidates.extend(server.join("/.well-known/oauth-protected-resource").ok());
    for url in candidates {
        if let Some(m) = get_json::<ResourceMetadata>(http, &url).await {
            return Some(m);
        }
    }
    None
}

/// The well-known URLs of an issuer, in the order the spec gives.
fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let candidates: Vec<String> = if path.is_empty() {
        vec![
            "/.well-known/oauth-authorization-server".into(),
            "/.well-known/openid-configuration".into(),
        ]
    } else {
        vec![
            format!("/.well-known/oauth-authorization-server{path}"),
            format!("/.well-known/openid-configuration{path}"),
            format!("{path}/.well-known/openid-configuration"),
        ]
    };
    candidates
        .iter()
        .filter_map(|c| issuer.join(c).ok())
        .collect()
}

/// The metadata of `issuer` (the identifier exactly as the resource metadata names it). `strict`: the
/// document's `issuer` must equal it byte for byte; otherwise (an issuer guessed from a 2025-03-26
/// server's origin) a trailing slash is forgiven.
pub(crate) async fn server_metadata(
    http: &reqwest::Client,
    issuer: &str,
    strict: bool,
) -> Result<Option<ServerMetadata>, String> {
    let url = Url::parse(issuer).map_err(|e| format!("bad authorization server {issuer}: {e}"))?;
    let mut refused = None;
    for candidate in metadata_urls(&url) {
        let Some(meta) = get_json::<ServerMetadata>(http, &candidate).await else {
            continue;
        };
        let same = match meta.issuer.as_deref() {
            Some(i) if strict => i == issuer,
            Some(i) => i.trim_end_matches('/') == issuer.trim_end_matches('/'),
            None => !strict,
        };
        if same {
            return Ok(Some(meta));
        }
        tracing::warn!(
            url = %candidate,
            expected = issuer,
            found = ?meta.issuer,
            "authorization server metadata names another issuer; not used"
        );
        refused = Some(meta.issuer.unwrap_or_default());
    }
    match refused {
        Some(other) => Err(format!(
            "the authorization server metadata for {issuer} names the issuer {other:?}: refused (RFC 8414 section 3.3)"
        )),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_urls_follow_the_spec_order() {
        let u = |s: &str| Url::parse(s).unwrap();
        let got: Vec<String> = metadata_urls(&u("https://a.example/tenant1"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            got,
            [
                "https://a.example/.well-known/oauth-authorization-server/tenant1",
                "https://a.example/.well-known/openid-configuration/tenant1",
                "https://a.example/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(metadata_urls(&u("https://a.example")).len(), 2);
    }
}
