//! The client side of MCP authorization (2025-03-26 to 2026-07-28, and the extensions the official suite
//! tests). On a `401` (or a `403` with `insufficient_scope`) the transport asks [`OAuth`] for a token:
//!
//! 1. **Discovery** ([`discovery`]): protected resource metadata (RFC 9728), whose `resource` must name
//!    this server and is sent verbatim as the RFC 8707 `resource`; the authorization server's metadata,
//!    whose `issuer` must equal the identifier it was discovered from.
//! 2. **A client identity**, bound to that issuer (SEP-2352): a pre-registered client, a Client ID
//!    Metadata Document URL, or dynamic registration (RFC 7591, with `application_type`, SEP-837),
//!    remembered per issuer and never reused with another one.
//! 3. **A grant** ([`Grant`]): the authorization code with PKCE S256, where the redirect's `iss` is
//!    checked against the issuer (RFC 9207) before the code is redeemed; client credentials
//!    (`client_secret_basic`/`_post` or `private_key_jwt`); a workload JWT (RFC 7523); or
//!    enterprise-managed authorization (an ID token exchanged for an ID-JAG at the IdP, RFC 8693, then
//!    the JWT-bearer grant). `offline_access` is asked for when the server offers it, and a refresh
//!    token is used before a new flow.
//! 4. **Sender-constrained tokens** (DPoP, RFC 9449) when the resource challenges with `DPoP` and the
//!    authorization server signs ES256: a fresh proof on every request, server nonces honoured.
//!
//! A step-up (`insufficient_scope`) asks for the union of the scopes asked so far and the challenge's;
//! the transport bounds how often one request may authorize ([`OAuthConfig::max_attempts`]).
//!
//! How a user approves an authorization code is up to an [`Authorizer`]: it gets the authorization URL
//! and returns the redirect URL carrying the code. [`Authorizer::Redirect`] follows the authorization
//! endpoint's own redirect without a browser, for automated authorization servers (tests, the suite).

mod challenge;
mod discovery;
mod jose;

pub(crate) use challenge::Challenge;

use crate::future::BoxFuture;
use base64::Engine;
use discovery::ServerMetadata;
use jose::SigningKey;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION, LOCATION};
use reqwest::{StatusCode, Url};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

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

/// How the client gets its tokens.
#[derive(Debug, Clone, Default)]
pub enum Grant {
    /// A user approves (authorization code with PKCE, through the [`Authorizer`]).
    #[default]
    AuthorizationCode,
    /// The client acts on its own behalf (`client_credentials`), authenticated with its secret or, when
    /// [`OAuthConfig::private_key_pem`] is set, a signed assertion (`private_key_jwt`).
    ClientCredentials,
    /// A workload identity token traded for an access token (RFC 7523 JWT bearer, SEP-1933). A refusal is
    /// final: the grant is not retried, nor another one tried.
    JwtBearer {
        /// The signed JWT (the workload's identity token) sent as `assertion`.
        assertion: String,
    },
    /// Enterprise-managed authorization (SEP-990): the user's ID token from the enterprise IdP is
    /// exchanged at the IdP for an identity assertion grant (ID-JAG, RFC 8693), which the authorization
    /// server trades for an access token (JWT bearer grant, with the client's credentials).
    EnterpriseManaged {
        /// The enterprise IdP's token endpoint, where the ID token is exchanged for an ID-JAG.
        idp_token_endpoint: String,
        /// The user's ID token from the enterprise IdP.
        id_token: String,
        /// The client's id at the IdP; `None` when the IdP needs none.
        idp_client_id: Option<String>,
        /// The client's secret at the IdP; `None` for a public client.
        idp_client_secret: Option<String>,
    },
}

/// OAuth settings of the HTTP client.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    /// `client_name` sent in dynamic client registration (default `mcp-runtime`).
    pub client_name: String,
    /// Where the authorization server sends the user back with the code (default
    /// `http://localhost:3000/callback`); registered with the client.
    pub redirect_uri: String,
    /// A pre-registered client (no dynamic registration).
    pub client_id: Option<String>,
    /// The pre-registered client's secret (sent with `client_secret_basic`, or `client_secret_post` when the
    /// server offers only that); `None` for a public client.
    pub client_secret: Option<String>,
    /// A Client ID Metadata Document URL, used as the client id where the server supports it.
    pub client_metadata_url: Option<String>,
    /// Authorization attempts for one request (a server that keeps refusing must not loop us).
    pub max_attempts: u32,
    /// How the user's approval is obtained, for the authorization code grant.
    pub authorizer: Authorizer,
    /// Which grant gets the tokens (default: authorization code with PKCE).
    pub grant: Grant,
    /// A PKCS#8 PEM key: the client authenticates with `private_key_jwt` assertions signed with it.
    pub private_key_pem: Option<String>,
    /// `ES256` (default) or `RS256`, for [`OAuthConfig::private_key_pem`].
    pub signing_algorithm: String,
    /// The `application_type` registered (SEP-837). `None`: `native` for a loopback or custom-scheme
    /// redirect URI, `web` otherwise.
    pub application_type: Option<String>,
    /// Use DPoP-bound tokens when the resource asks for them and the authorization server can.
    pub dpop: bool,
    /// Ask for `offline_access` (a refresh token) when the authorization server lists it.
    pub offline_access: bool,
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
            grant: Grant::AuthorizationCode,
            private_key_pem: None,
            signing_algorithm: "ES256".into(),
            application_type: None,
            dpop: true,
            offline_access: true,
        }
    }
}

#[derive(Debug, Clone)]
struct Registered {
    client_id: String,
    client_secret: Option<String>,
    auth_method: String,
}

#[derive(Debug, Clone)]
struct Token {
    access: String,
    /// Bound to the DPoP key: presented as `DPoP <token>` with a proof.
    dpop: bool,
    refresh: Option<String>,
    /// Where it came from, with what it takes to refresh it.
    issuer: String,
    token_endpoint: String,
    resource: String,
}

#[derive(Default)]
struct State {
    token: Option<Token>,
    /// Every scope asked for so far (a step-up asks for their union with the challenge's).
    scopes: BTreeSet<String>,
    /// Client identities by issuer.
    registrations: HashMap<String, Registered>,
    /// The last `DPoP-Nonce` of the resource server, and of each authorization server.
    rs_nonce: Option<String>,
    as_nonces: HashMap<String, String>,
}

/// The OAuth state of one client transport.
pub(crate) struct OAuth {
    config: OAuthConfig,
    http: reqwest::Client,
    no_redirect: reqwest::Client,
    state: Mutex<State>,
    /// Serializes authorization: concurrent 401s authorize once.
    flow: tokio::sync::Mutex<()>,
    dpop_key: OnceLock<Result<SigningKey, String>>,
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

fn basic(client_id: &str, secret: &str) -> String {
    let cred = format!("{}:{}", form_encode(client_id), form_encode(secret));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(cred)
    )
}

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// What the flow found out about the server, for the grant to use.
struct Discovered {
    /// The RFC 8707 resource indicator, exactly as the resource metadata publishes it.
    resource: String,
    issuer: String,
    meta: ServerMetadata,
    scope: Option<String>,
    dpop: bool,
}

impl OAuth {
    pub(crate) fn new(config: OAuthConfig, http: reqwest::Client) -> Result<OAuth, String> {
        let no_redirect = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        if let Some(pem) = &config.private_key_pem {
            SigningKey::from_pem(pem, &config.signing_algorithm)?;
        }
        Ok(OAuth {
            config,
            http,
            no_redirect,
            state: Mutex::new(State::default()),
            flow: tokio::sync::Mutex::new(()),
            dpop_key: OnceLock::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn max_attempts(&self) -> u32 {
        self.config.max_attempts.max(1)
    }

    /// The access token in use.
    pub(crate) fn token(&self) -> Option<String> {
        self.lock().token.as_ref().map(|t| t.access.clone())
    }

    fn dpop_key(&self) -> Result<&SigningKey, String> {
        self.dpop_key
            .get_or_init(SigningKey::generate_es256)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The headers that authorize a request to the MCP server: `Authorization` (`Bearer` or `DPoP`) and,
    /// for a DPoP-bound token, a fresh proof for this method and URL.
    pub(crate) fn request_headers(&self, method: &str, url: &Url) -> HeaderMap {
        let mut h = HeaderMap::new();
        let (token, nonce) = {
            let s = self.lock();
            (s.token.clone(), s.rs_nonce.clone())
        };
        let Some(t) = token else { return h };
        if t.dpop {
            let proof = self
                .dpop_key()
                .and_then(|k| jose::dpop_proof(k, method, url, Some(&t.access), nonce.as_deref()));
            match proof.map(|p| HeaderValue::from_str(&p).map_err(|e| e.to_string())) {
                Ok(Ok(p)) => {
                    h.insert(HeaderName::from_static("dpop"), p);
                }
                Ok(Err(e)) | Err(e) => tracing::warn!(%e, "cannot make a DPoP proof"),
            }
            if let Ok(v) = HeaderValue::from_str(&format!("DPoP {}", t.access)) {
                h.insert(AUTHORIZATION, v);
            }
        } else if let Ok(v) = HeaderValue::from_str(&format!("Bearer {}", t.access)) {
            h.insert(AUTHORIZATION, v);
        }
        h
    }

    /// Takes note of a resource server's response (a new `DPoP-Nonce`).
    pub(crate) fn observe(&self, headers: &HeaderMap) {
        if let Some(n) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) {
            self.lock().rs_nonce = Some(n.to_string());
        }
    }

    /// After a refusal (`401`, or `403` with `insufficient_scope`): a DPoP nonce to retry with, a refresh
    /// token to use, or a new authorization flow. `used` is the token the refused request carried (another
    /// request may have got a newer one meanwhile).
    pub(crate) async fn on_refusal(
        &self,
        server: &Url,
        headers: &HeaderMap,
        used: Option<&str>,
    ) -> Result<(), String> {
        self.observe(headers);
        let challenge = Challenge::from_headers(headers);
        if challenge.wants_nonce() {
            return if self.lock().rs_nonce.is_some() {
                Ok(())
            } else {
                Err("the server asked for a DPoP nonce without giving one".into())
            };
        }
        let _one = self.flow.lock().await;
        if self.token().as_deref() != used && !challenge.insufficient_scope() {
            return Ok(());
        }
        if !challenge.insufficient_scope() {
            let refresh = self.lock().token.clone().filter(|t| t.refresh.is_some());
            if let Some(t) = refresh {
                match self.refresh(&t).await {
                    Ok(new) => {
                        self.lock().token = Some(new);
                        return Ok(());
                    }
                    Err(e) => tracing::debug!(%e, "refreshing the token failed; authorizing anew"),
                }
            }
        }
        let token = self.flow_once(server, &challenge).await?;
        self.lock().token = Some(token);
        Ok(())
    }

    async fn discover(&self, server: &Url, challenge: &Challenge) -> Result<Discovered, String> {
        let mut fallback = server.clone();
        fallback.set_fragment(None);
        let prm = discovery::resource_metadata(&self.http, server, challenge).await;
        let resource = match prm.as_ref().and_then(|p| p.resource.clone()) {
            Some(r) => {
                // The metadata must describe this server (RFC 9728 section 3.3), or a token for it leaks.
                let ok = Url::parse(&r).is_ok_and(|u| {
                    u.origin() == fallback.origin()
                        && fallback.path().starts_with(u.path().trim_end_matches('/'))
                });
                if !ok {
                    return Err(format!(
                        "the protected resource metadata names {r}, not {fallback}"
                    ));
                }
                r
            }
            None => fallback.to_string(),
        };
        // Without resource metadata (2025-03-26 servers) the server's origin is the authorization server.
        let (issuer, strict) = match prm.as_ref().and_then(|p| p.authorization_servers.first()) {
            Some(a) => (a.clone(), true),
            None => (
                server.join("/").map_err(|e| e.to_string())?.to_string(),
                false,
            ),
        };
        let meta = match discovery::server_metadata(&self.http, &issuer, strict).await? {
            Some(m) => m,
            None if prm.is_none() => {
                ServerMetadata::fallback(&Url::parse(&issuer).map_err(|e| e.to_string())?)?
            }
            None => return Err(format!("no authorization server metadata for {issuer}")),
        };
        let dpop = self.config.dpop && challenge.dpop && meta.supports_dpop_es256();
        if challenge.dpop && !dpop {
            tracing::debug!("the resource asks for DPoP, but it is off or the authorization server cannot sign ES256");
        }
        let mut scope = {
            let mut s = self.lock();
            let wanted: Vec<String> = match &challenge.scope {
                Some(c) => c.split_whitespace().map(str::to_string).collect(),
                None => prm
                    .as_ref()
                    .and_then(|p| p.scopes_supported.clone())
                    .unwrap_or_default(),
            };
            s.scopes.extend(wanted);
            s.scopes.clone()
        };
        let user_facing = matches!(self.config.grant, Grant::AuthorizationCode);
        if user_facing
            && self.config.offline_access
            && !scope.is_empty()
            && meta
                .scopes_supported
                .as_ref()
                .is_some_and(|s| s.iter().any(|x| x == "offline_access"))
        {
            scope.insert("offline_access".into());
        }
        let scope = (!scope.is_empty()).then(|| scope.into_iter().collect::<Vec<_>>().join(" "));
        Ok(Discovered {
            resource,
            issuer,
            meta,
            scope,
            dpop,
        })
    }

    async fn flow_once(&self, server: &Url, challenge: &Challenge) -> Result<Token, String> {
        let d = self.discover(server, challenge).await?;
        match self.config.grant.clone() {
            Grant::AuthorizationCode => self.authorization_code(&d).await,
            Grant::ClientCredentials => {
                let client = self.preregistered(&d.issuer, &d.meta)?;
                let mut form = vec![("grant_type", "client_credentials".to_string())];
                form.push(("resource", d.resource.clone()));
                if let Some(s) = &d.scope {
                    form.push(("scope", s.clone()));
                }
                self.token_request(&d, &client, form).await
            }
            Grant::JwtBearer { assertion } => {
                let client = self.preregistered_or_public(&d.issuer, &d.meta);
                let mut form = vec![
                    ("grant_type", JWT_BEARER.to_string()),
                    ("assertion", assertion),
                    ("resource", d.resource.clone()),
                ];
                if let Some(s) = &d.scope {
                    form.push(("scope", s.clone()));
                }
                self.token_request(&d, &client, form).await
            }
            Grant::EnterpriseManaged {
                idp_token_endpoint,
                id_token,
                idp_client_id,
                idp_client_secret,
            } => {
                let jag = self
                    .exchange_id_token(
                        &d,
                        &idp_token_endpoint,
                        id_token,
                        idp_client_id,
                        idp_client_secret,
                    )
                    .await?;
                let client = self.preregistered(&d.issuer, &d.meta)?;
                let mut form = vec![
                    ("grant_type", JWT_BEARER.to_string()),
                    ("assertion", jag),
                    ("resource", d.resource.clone()),
                ];
                if let Some(s) = &d.scope {
                    form.push(("scope", s.clone()));
                }
                self.token_request(&d, &client, form).await
            }
        }
    }

    /// RFC 8693 at the enterprise IdP: the user's ID token for an identity assertion grant (ID-JAG) naming
    /// the authorization server and the resource.
    async fn exchange_id_token(
        &self,
        d: &Discovered,
        endpoint: &str,
        id_token: String,
        client_id: Option<String>,
        client_secret: Option<String>,
    ) -> Result<String, String> {
        let mut form = vec![
            ("grant_type", TOKEN_EXCHANGE.to_string()),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:id-jag".to_string(),
            ),
            ("subject_token", id_token),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token".to_string(),
            ),
            ("audience", d.issuer.clone()),
            ("resource", d.resource.clone()),
        ];
        if let Some(s) = &d.scope {
            form.push(("scope", s.clone()));
        }
        let mut req = self.http.post(endpoint);
        match (&client_id, &client_secret) {
            (Some(id), Some(secret)) => req = req.header(AUTHORIZATION, basic(id, secret)),
            (Some(id), None) => form.push(("client_id", id.clone())),
            _ => {}
        }
        let r = req
            .form(&form)
            .send()
            .await
            .map_err(|e| format!("token exchange at the IdP: {e}"))?;
        let status = r.status();
        let v: Value = r
            .json()
            .await
            .map_err(|e| format!("token exchange at the IdP: HTTP {status}: {e}"))?;
        if !status.is_success() {
            return Err(format!(
                "token exchange at the IdP refused: HTTP {status}: {v}"
            ));
        }
        v.get("access_token")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| "the IdP's token exchange answer has no access_token (ID-JAG)".into())
    }

    /// A configured client, which a grant without a user needs, authenticating as the server allows:
    /// a signed assertion when a key is configured, its secret (Basic unless only `_post` is offered),
    /// or nothing.
    fn preregistered(&self, issuer: &str, meta: &ServerMetadata) -> Result<Registered, String> {
        let c = &self.config;
        let id = c.client_id.clone().ok_or_else(|| {
            format!("the grant needs a client registered with {issuer} (OAuthConfig::client_id)")
        })?;
        let supported = &meta.token_endpoint_auth_methods_supported;
        let offered = |m: &str| supported.is_empty() || supported.iter().any(|s| s == m);
        let auth_method = if c.private_key_pem.is_some() {
            "private_key_jwt"
        } else if c.client_secret.is_some()
            && !offered("client_secret_basic")
            && offered("client_secret_post")
        {
            "client_secret_post"
        } else if c.client_secret.is_some() {
            "client_secret_basic"
        } else {
            "none"
        };
        Ok(Registered {
            client_id: id,
            client_secret: c.client_secret.clone(),
            auth_method: auth_method.into(),
        })
    }

    fn preregistered_or_public(&self, issuer: &str, meta: &ServerMetadata) -> Registered {
        self.preregistered(issuer, meta).unwrap_or(Registered {
            client_id: String::new(),
            client_secret: None,
            auth_method: "none".into(),
        })
    }

    fn application_type(&self) -> String {
        if let Some(t) = &self.config.application_type {
            return t.clone();
        }
        let native = Url::parse(&self.config.redirect_uri).is_ok_and(|u| {
            !matches!(u.scheme(), "http" | "https")
                || matches!(
                    u.host_str(),
                    Some("localhost") | Some("127.0.0.1") | Some("[::1]")
                )
        });
        if native { "native" } else { "web" }.into()
    }

    /// The client identity for `issuer`: remembered, pre-registered, a metadata document URL, or
    /// registered now. An identity is never carried to another issuer.
    async fn client_for(&self, issuer: &str, meta: &ServerMetadata) -> Result<Registered, String> {
        if let Some(r) = self.lock().registrations.get(issuer).cloned() {
            return Ok(r);
        }
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
        let registered = if c.client_id.is_some() {
            self.preregistered(issuer, meta)?
        } else if let (Some(url), true) = (
            &c.client_metadata_url,
            meta.client_id_metadata_document_supported,
        ) {
            Registered {
                client_id: url.clone(),
                client_secret: None,
                auth_method: "none".into(),
            }
        } else {
            let Some(endpoint) = &meta.registration_endpoint else {
                return Err(format!(
                    "{issuer} offers no dynamic registration and no client id is configured"
                ));
            };
            let method = meta
                .token_endpoint_auth_methods_supported
                .iter()
                .find(|m| {
                    ["client_secret_basic", "client_secret_post", "none"].contains(&m.as_str())
                })
                .cloned()
                .unwrap_or_else(|| "client_secret_basic".into());
            let body = serde_json::json!({
                "client_name": c.client_name,
                "redirect_uris": [c.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": method,
                "application_type": self.application_type(),
            });
            let r = self
                .http
                .post(endpoint)
                .json(&body)
                .send()
                .await
                .map_err(|e| format!("client registration: {e}"))?;
            let status = r.status();
            if !status.is_success() {
                let text = r.text().await.unwrap_or_default();
                return Err(format!(
                    "client registration with {issuer} refused: HTTP {status}: {}",
                    text.chars().take(300).collect::<String>()
                ));
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
            Registered {
                client_id,
                client_secret,
                auth_method,
            }
        };
        let mut s = self.lock();
        if s.registrations.len() >= 64 {
            s.registrations.clear();
        }
        s.registrations
            .insert(issuer.to_string(), registered.clone());
        Ok(registered)
    }

    async fn authorization_code(&self, d: &Discovered) -> Result<Token, String> {
        let meta = &d.meta;
        match &meta.code_challenge_methods_supported {
            Some(m) if m.iter().any(|x| x == "S256") => {}
            _ => {
                return Err(format!(
                    "{} does not advertise PKCE S256 (code_challenge_methods_supported): refusing to authorize",
                    d.issuer
                ))
            }
        }
        let endpoint = meta
            .authorization_endpoint
            .as_deref()
            .ok_or_else(|| format!("{} has no authorization endpoint", d.issuer))?;
        let client = self.client_for(&d.issuer, meta).await?;
        let verifier = random_token();
        let challenge_s256 = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(crate::sha256::Sha256::digest(verifier.as_bytes()));
        let state = uuid::Uuid::new_v4().simple().to_string();
        let mut auth_url =
            Url::parse(endpoint).map_err(|e| format!("bad authorization endpoint: {e}"))?;
        {
            let mut q = auth_url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &self.config.redirect_uri)
                .append_pair("state", &state)
                .append_pair("code_challenge", &challenge_s256)
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", &d.resource);
            if let Some(s) = &d.scope {
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
        check_iss(
            get("iss").as_deref(),
            &d.issuer,
            meta.authorization_response_iss_parameter_supported,
        )?;
        if let Some(e) = get("error") {
            return Err(format!("authorization refused: {e}"));
        }
        if get("state").as_deref() != Some(state.as_str()) {
            return Err("the authorization redirect carries the wrong state".into());
        }
        let code = get("code").ok_or("the authorization redirect carries no code")?;
        let form = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code),
            ("redirect_uri", self.config.redirect_uri.clone()),
            ("code_verifier", verifier),
            ("resource", d.resource.clone()),
        ];
        self.token_request(d, &client, form).await
    }

    async fn refresh(&self, t: &Token) -> Result<Token, String> {
        let refresh = t.refresh.clone().ok_or("no refresh token")?;
        let meta = ServerMetadata {
            token_endpoint: t.token_endpoint.clone(),
            ..ServerMetadata::fallback(&Url::parse(&t.token_endpoint).map_err(|e| e.to_string())?)?
        };
        let client = self
            .lock()
            .registrations
            .get(&t.issuer)
            .cloned()
            .unwrap_or_else(|| self.preregistered_or_public(&t.issuer, &meta));
        let form = vec![
            ("grant_type", "refresh_token".to_string()),
            ("refresh_token", refresh),
            ("resource", t.resource.clone()),
        ];
        let d = Discovered {
            resource: t.resource.clone(),
            issuer: t.issuer.clone(),
            meta,
            scope: None,
            dpop: t.dpop,
        };
        let mut new = self.token_request(&d, &client, form).await?;
        if new.refresh.is_none() {
            new.refresh = t.refresh.clone();
        }
        Ok(new)
    }

    /// POSTs to the token endpoint with the client's authentication (and a DPoP proof, retried once with
    /// the server's nonce), and reads the token.
    async fn token_request(
        &self,
        d: &Discovered,
        client: &Registered,
        mut form: Vec<(&'static str, String)>,
    ) -> Result<Token, String> {
        let endpoint = Url::parse(&d.meta.token_endpoint)
            .map_err(|e| format!("bad token endpoint {}: {e}", d.meta.token_endpoint))?;
        let mut auth_header = None;
        match (client.auth_method.as_str(), &client.client_secret) {
            ("private_key_jwt", _) => {
                let pem = self
                    .config
                    .private_key_pem
                    .as_deref()
                    .ok_or("private_key_jwt needs OAuthConfig::private_key_pem")?;
                let key = SigningKey::from_pem(pem, &self.config.signing_algorithm)?;
                let assertion = jose::client_assertion(&key, &client.client_id, &d.issuer)?;
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_assertion_type", CLIENT_ASSERTION_TYPE.into()));
                form.push(("client_assertion", assertion));
            }
            ("client_secret_post", Some(secret)) => {
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            ("client_secret_basic", Some(secret)) => {
                auth_header = Some(basic(&client.client_id, secret));
            }
            _ if !client.client_id.is_empty() => form.push(("client_id", client.client_id.clone())),
            _ => {}
        }
        for attempt in 0..2 {
            let mut req = self.http.post(endpoint.clone());
            if let Some(h) = &auth_header {
                req = req.header(AUTHORIZATION, h);
            }
            if d.dpop {
                let nonce = self.lock().as_nonces.get(&d.issuer).cloned();
                let proof =
                    jose::dpop_proof(self.dpop_key()?, "POST", &endpoint, None, nonce.as_deref())?;
                req = req.header("DPoP", proof);
            }
            let r = req
                .form(&form)
                .send()
                .await
                .map_err(|e| format!("token request: {e}"))?;
            let status = r.status();
            let nonce = r
                .headers()
                .get("dpop-nonce")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let v: Value = r
                .json()
                .await
                .map_err(|e| format!("token request: HTTP {status}: {e}"))?;
            if status != StatusCode::OK {
                let err = v.get("error").and_then(Value::as_str);
                if let (true, Some("use_dpop_nonce"), Some(n), 0) = (d.dpop, err, &nonce, attempt) {
                    self.lock().as_nonces.insert(d.issuer.clone(), n.clone());
                    continue;
                }
                return Err(format!("token request refused: HTTP {status}: {v}"));
            }
            if let (true, Some(n)) = (d.dpop, nonce) {
                self.lock().as_nonces.insert(d.issuer.clone(), n);
            }
            let access = v
                .get("access_token")
                .and_then(Value::as_str)
                .ok_or("the token response has no access_token")?
                .to_string();
            let bound = v
                .get("token_type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case("dpop"));
            if bound && !d.dpop {
                return Err(
                    "the authorization server issued a DPoP-bound token that was not asked for"
                        .into(),
                );
            }
            return Ok(Token {
                access,
                dpop: bound,
                refresh: v
                    .get("refresh_token")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                issuer: d.issuer.clone(),
                token_endpoint: d.meta.token_endpoint.clone(),
                resource: d.resource.clone(),
            });
        }
        Err("the token endpoint kept asking for a new DPoP nonce".into())
    }
}

/// RFC 9207 section 2.4 as the 2026 spec applies it: a present `iss` must equal the issuer, compared as
/// plain strings (no normalization); an absent one is refused when the server said it sends it.
fn check_iss(iss: Option<&str>, issuer: &str, advertised: bool) -> Result<(), String> {
    match iss {
        Some(i) if i == issuer => Ok(()),
        Some(i) => Err(format!(
            "the authorization response comes from issuer {i:?}, not {issuer:?} (RFC 9207): refused"
        )),
        None if advertised => Err(format!(
            "{issuer} said it names itself in authorization responses (iss), but this one has no iss: refused"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_of_basic_credentials() {
        assert_eq!(form_encode("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    }

    #[test]
    fn iss_is_compared_without_normalization() {
        let issuer = "http://localhost:3000";
        assert!(check_iss(Some(issuer), issuer, true).is_ok());
        assert!(check_iss(Some("http://localhost:3000/"), issuer, true).is_err());
        assert!(check_iss(Some("https://evil.example"), issuer, false).is_err());
        assert!(check_iss(None, issuer, true).is_err());
        assert!(check_iss(None, issuer, false).is_ok());
    }

    #[test]
    fn application_type_follows_the_redirect_uri() {
        let oauth = |uri: &str| {
            OAuth::new(
                OAuthConfig {
                    redirect_uri: uri.into(),
                    ..Default::default()
                },
                reqwest::Client::new(),
            )
            .unwrap()
        };
        assert_eq!(
            oauth("http://localhost:3000/cb").application_type(),
            "native"
        );
        assert_eq!(oauth("com.example.app:/cb").application_type(), "native");
        assert_eq!(
            oauth("https://app.example.com/cb").application_type(),
            "web"
        );
    }
}
