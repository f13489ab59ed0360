//! The client side of MCP authorization (2025-06-18 and 2025-11-25): on a `401` (or a `403` with
//! `insufficient_scope`) the transport discovers the protected resource metadata (RFC 9728), the
//! authorization server metadata (RFC 8414 / OpenID discovery), gets a client id (pre-registered, a Client
//! ID Metadata Document URL, or dynamic registration, RFC 7591), runs the authorization code flow with
//! PKCE (S256) and the `resource` indicator (RFC 8707), and retries with the bearer token.
//!
//! How the user approves is up to an [`Authorizer`]: it gets the authorization URL and returns the
//! redirect URL carrying the code. [`Authorizer::Redirect`] follows the authorization endpoint's own
//! redirect without a browser, for automated authorization servers (tests, the conformance suite).

use base64::Engine;
use futures_util::future::BoxFuture;
use reqwest::header::{HeaderMap, LOCATION, WWW_AUTHENTICATE};
use reqwest::{StatusCode, Url};
use serde::Deserialize;
use serde_json::Value;
use sha2::Digest;
use std::sync::{Arc, Mutex};

/// Gets the user's approval: given the authorization URL, returns the redirect URL (with `code` and `state`).
#[derive(Clone)]
pub enum Authorizer {
    /// Requests the authorization URL without a browser and takes the redirect it answers with.
    Redirect,
    /// A custom step (open a browser, listen on the redirect URI, ...).
    Custom(Arc<dyn Fn(Url) -> BoxFuture<'static, Result<Url, String>> + Send + Sync>),
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Authorizer::Redirect => "Authorizer::Redirect",
            Authorizer::Custom(_) => "Authorizer::Custom",
        })
    }
}

/// OAuth settings of the HTTP client.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    pub client_name: String,
    pub redirect_uri: String,
    /// A pre-registered client (no dynamic registration).
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// A Client ID Metadata Document URL, used as the client id where the server supports it.
    pub client_metadata_url: Option<String>,
    /// Authorization attempts for one request (a server that keeps refusing must not loop us).
    pub max_attempts: u32,
    pub authorizer: Authorizer,
}

impl Default for OAuthConfig {
    fn default() -> Self {
        OAuthConfig {
            client_name: "mcp-runtime".into(),
            redirect_uri: "http://localhost:3000/callback".into(),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            max_attempts: 3,
            authorizer: Authorizer::Redirect,
        }
    }
}

/// The parameters of a `WWW-Authenticate: Bearer ...` challenge.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) resource_metadata: Option<String>,
    pub(crate) scope: Option<String>,
    pub(crate) error: Option<String>,
}

impl Challenge {
    pub(crate) fn from_headers(h: &HeaderMap) -> Challenge {
        h.get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(Challenge::parse)
            .next()
            .unwrap_or_default()
    }

    /// `Bearer k="v", k2=v2` (quoted values may hold commas and escaped quotes).
    pub(crate) fn parse(s: &str) -> Challenge {
        let rest = s.trim_start();
        let rest = rest
            .strip_prefix("Bearer")
            .or_else(|| rest.strip_prefix("bearer"))
            .unwrap_or(rest);
        let mut c = Challenge::default();
        let mut chars = rest.chars().peekable();
        loop {
            while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
                chars.next();
            }
            let key: String =
                std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ',')).collect();
            if chars.next() != Some('=') {
                if key.is_empty() {
                    break;
                }
                continue;
            }
            let mut value = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                while let Some(ch) = chars.next() {
                    match ch {
                        '\\' => value.extend(chars.next()),
                        '"' => break,
                        other => value.push(other),
                    }
                }
            } else {
                value = std::iter::from_fn(|| chars.next_if(|c| *c != ','))
                    .collect::<String>()
                    .trim()
                    .to_string();
            }
            match key.trim() {
                "resource_metadata" => c.resource_metadata = Some(value),
                "scope" => c.scope = Some(value),
                "error" => c.error = Some(value),
                _ => {}
            }
        }
        c
    }
}

#[derive(Debug, Deserialize)]
struct ResourceMetadata {
    resource: Option<String>,
    #[serde(default)]
    authorization_servers: Vec<String>,
    scopes_supported: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct ServerMetadata {
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    #[serde(default)]
    token_endpoint_auth_methods_supported: Vec<String>,
    #[serde(default)]
    client_id_metadata_document_supported: bool,
}

#[derive(Debug, Clone)]
struct Registered {
    client_id: String,
    client_secret: Option<String>,
    auth_method: String,
}

/// The OAuth state of one client transport.
pub(crate) struct OAuth {
    config: OAuthConfig,
    http: reqwest::Client,
    no_redirect: reqwest::Client,
    token: Mutex<Option<String>>,
    /// Serializes authorization: concurrent 401s authorize once.
    flow: tokio::sync::Mutex<()>,
}

fn random_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// `application/x-www-form-urlencoded` encoding of one value (RFC 6749 appendix B, for Basic credentials).
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

impl OAuth {
    pub(crate) fn new(config: OAuthConfig, http: reqwest::Client) -> Result<OAuth, String> {
        let no_redirect = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(OAuth {
            config,
            http,
            no_redirect,
            token: Mutex::new(None),
            flow: tokio::sync::Mutex::new(()),
        })
    }

    pub(crate) fn max_attempts(&self) -> u32 {
        self.config.max_attempts.max(1)
    }

    pub(crate) fn token(&self) -> Option<String> {
        self.token.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Runs the authorization flow for `server` after a refusal with `challenge`, unless another request
    /// got a newer token meanwhile (`used` is the token the refused request carried).
    pub(crate) async fn authorize(
        &self,
        server: &Url,
        challenge: &Challenge,
        used: Option<&str>,
    ) -> Result<(), String> {
        let _one = self.flow.lock().await;
        if self.token().as_deref() != used
            && challenge.error.as_deref() != Some("insufficient_scope")
        {
            return Ok(());
        }
        let token = self.flow_once(server, challenge).await?;
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) = Some(token);
        Ok(())
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &Url) -> Option<T> {
        let r = self
            .http
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
    async fn resource_metadata(
        &self,
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
            if let Some(m) = self.get_json::<ResourceMetadata>(&url).await {
                return Some(m);
            }
        }
        None
    }

    /// RFC 8414 and OpenID discovery, with the issuer's path inserted after the well-known prefix first.
    async fn server_metadata(&self, issuer: &Url) -> Option<ServerMetadata> {
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
        for c in candidates {
            if let Some(m) = issuer.join(&c).ok().as_ref() {
                if let Some(meta) = self.get_json::<ServerMetadata>(m).await {
                    return Some(meta);
                }
            }
        }
        None
    }

    async fn register(&self, meta: &ServerMetadata) -> Result<Registered, String> {
        let c = &self.config;
        let pick = |secret: bool| {
            let supported = &meta.token_endpoint_auth_methods_supported;
            let ok = |m: &str| supported.is_empty() || supported.iter().any(|s| s == m);
            if secret && ok("client_secret_basic") {
                "client_secret_basic"
            } else if secret && ok("client_secret_post") {
                "client_secret_post"
            } else {
                "none"
            }
            .to_string()
        };
        if let Some(id) = &c.client_id {
            return Ok(Registered {
                client_id: id.clone(),
                client_secret: c.client_secret.clone(),
                auth_method: pick(c.client_secret.is_some()),
            });
        }
        if let (Some(url), true) = (
            &c.client_metadata_url,
            meta.client_id_metadata_document_supported,
        ) {
            return Ok(Registered {
                client_id: url.clone(),
                client_secret: None,
                auth_method: "none".into(),
            });
        }
        let Some(endpoint) = &meta.registration_endpoint else {
            return Err("the authorization server offers no dynamic registration and no client id is configured".into());
        };
        let method = meta
            .token_endpoint_auth_methods_supported
            .iter()
            .find(|m| ["client_secret_basic", "client_secret_post", "none"].contains(&m.as_str()))
            .cloned()
            .unwrap_or_else(|| "client_secret_basic".into());
        let body = serde_json::json!({
            "client_name": c.client_name,
            "redirect_uris": [c.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
        });
        let r = self
            .http
            .post(endpoint)
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("client registration: {e}"))?;
        if !r.status().is_success() {
            return Err(format!("client registration: HTTP {}", r.status()));
        }
        let v: Value = r
            .json()
            .await
            .map_err(|e| format!("client registration: {e}"))?;
        let client_id = v
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or("client registration: no client_id")?
            .to_string();
        let client_secret = v
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_string);
        let auth_method = match v.get("token_endpoint_auth_method").and_then(Value::as_str) {
            Some(m) => m.to_string(),
            None => pick(client_secret.is_some()),
        };
        Ok(Registered {
            client_id,
            client_secret,
            auth_method,
        })
    }

    async fn flow_once(&self, server: &Url, challenge: &Challenge) -> Result<String, String> {
        let mut resource = server.clone();
        resource.set_fragment(None);
        let prm = self.resource_metadata(server, challenge).await;
        if let Some(r) = prm.as_ref().and_then(|p| p.resource.as_deref()) {
            // The metadata must describe this server (RFC 9728 section 3.3), or a token for it leaks elsewhere.
            let ok = Url::parse(r).is_ok_and(|u| {
                u.origin() == resource.origin()
                    && resource.path().starts_with(u.path().trim_end_matches('/'))
            });
            if !ok {
                return Err(format!(
                    "the protected resource metadata names {r}, not {resource}"
                ));
            }
        }
        // Without resource metadata (2025-03-26 servers) the server's origin is the authorization server.
        let issuer = match prm.as_ref().and_then(|p| p.authorization_servers.first()) {
            Some(a) => Url::parse(a).map_err(|e| format!("bad authorization server {a}: {e}"))?,
            None => server.join("/").map_err(|e| e.to_string())?,
        };
        let meta = match self.server_metadata(&issuer).await {
            Some(m) => m,
            None if prm.is_none() => ServerMetadata {
                authorization_endpoint: issuer
                    .join("/authorize")
                    .map_err(|e| e.to_string())?
                    .to_string(),
                token_endpoint: issuer
                    .join("/token")
                    .map_err(|e| e.to_string())?
                    .to_string(),
                registration_endpoint: Some(
                    issuer
                        .join("/register")
                        .map_err(|e| e.to_string())?
                        .to_string(),
                ),
                token_endpoint_auth_methods_supported: Vec::new(),
                client_id_metadata_document_supported: false,
            },
            None => return Err(format!("no authorization server metadata for {issuer}")),
        };
        let client = self.register(&meta).await?;
        let scope = challenge.scope.clone().or_else(|| {
            prm.as_ref()
                .and_then(|p| p.scopes_supported.as_ref())
                .filter(|s| !s.is_empty())
                .map(|s| s.join(" "))
        });

        let verifier = random_token();
        let challenge_s256 = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(verifier.as_bytes()));
        let state = uuid::Uuid::new_v4().simple().to_string();
        let mut auth_url = Url::parse(&meta.authorization_endpoint)
            .map_err(|e| format!("bad authorization endpoint: {e}"))?;
        {
            let mut q = auth_url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &self.config.redirect_uri)
                .append_pair("state", &state)
                .append_pair("code_challenge", &challenge_s256)
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", resource.as_str());
            if let Some(s) = &scope {
                q.append_pair("scope", s);
            }
        }
        let redirect = match &self.config.authorizer {
            Authorizer::Custom(f) => f(auth_url).await?,
            Authorizer::Redirect => {
                let r = self
                    .no_redirect
                    .get(auth_url)
                    .send()
                    .await
                    .map_err(|e| format!("authorization request: {e}"))?;
                let loc = r
                    .headers()
                    .get(LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| {
                        format!(
                            "the authorization endpoint answered HTTP {} without a redirect",
                            r.status()
                        )
                    })?;
                Url::parse(loc).map_err(|e| format!("bad redirect {loc}: {e}"))?
            }
        };
        let pairs: Vec<(String, String)> = redirect.query_pairs().into_owned().collect();
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if let Some(e) = get("error") {
            return Err(format!("authorization refused: {e}"));
        }
        if get("state").as_deref() != Some(state.as_str()) {
            return Err("the authorization redirect carries the wrong state".into());
        }
        let code = get("code").ok_or("the authorization redirect carries no code")?;

        let mut form = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code),
            ("redirect_uri", self.config.redirect_uri.clone()),
            ("code_verifier", verifier),
            ("resource", resource.to_string()),
        ];
        let mut req = self.http.post(&meta.token_endpoint);
        match (client.auth_method.as_str(), &client.client_secret) {
            ("client_secret_basic", Some(secret)) => {
                let cred = format!("{}:{}", form_encode(&client.client_id), form_encode(secret));
                req = req.header(
                    "authorization",
                    format!(
                        "Basic {}",
                        base64::engine::general_purpose::STANDARD.encode(cred)
                    ),
                );
            }
            ("client_secret_post", Some(secret)) => {
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            _ => form.push(("client_id", client.client_id.clone())),
        }
        let r = req
            .form(&form)
            .send()
            .await
            .map_err(|e| format!("token request: {e}"))?;
        let status = r.status();
        let v: Value = r
            .json()
            .await
            .map_err(|e| format!("token request: HTTP {status}: {e}"))?;
        if status != StatusCode::OK {
            return Err(format!("token request: HTTP {status}: {v}"));
        }
        v.get("access_token")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| "the token response has no access_token".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bearer_challenges() {
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        let c = Challenge::parse(r#"Bearer realm=x, error_description="a, \"b\"""#);
        assert_eq!(c, Challenge::default());
        assert_eq!(Challenge::parse("Basic"), Challenge::default());
    }

    #[test]
    fn form_encoding_of_basic_credentials() {
        assert_eq!(form_encode("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    }
}
