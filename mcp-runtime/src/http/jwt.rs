//! JWT access tokens (feature `oauth`): signatures checked against the issuer's JWKS, fetched from the
//! `jwks_uri` of its metadata (RFC 8414, else OpenID discovery) and cached; `iss`, `aud` (this resource,
//! RFC 8707), `exp` and `nbf` checked with a small leeway; only asymmetric, allow-listed algorithms.
//!
//! Key rotation: a token whose `kid` is unknown makes the verifier fetch the JWKS again (at most once per
//! [`JwtVerifier::refetch_interval`]), and the whole set is fetched again after
//! [`JwtVerifier::max_key_age`], so retired keys stop being accepted. A failed fetch keeps the keys the
//! verifier has.

use super::resource_server::{TokenError, TokenVerifier};
use crate::future::BoxFuture;
use crate::identity::AuthInfo;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The most bytes read from a metadata or JWKS document.
pub(crate) const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// Verifies JWT access tokens issued by one authorization server for one resource.
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    jwks_uri: Option<String>,
    refetch_interval: Duration,
    max_key_age: Duration,
    http: reqwest::Client,
    keys: RwLock<Keys>,
    /// One fetch at a time: concurrent requests with a new `kid` wait for the same fetch.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Keys {
    jwks_uri: Option<String>,
    keys: Vec<(Option<String>, Jwk, DecodingKey)>,
    fetched: Option<Instant>,
}

impl JwtVerifier {
    /// Tokens of `issuer` (its exact `iss`) for `audience` (this resource's canonical URI). The JWKS
    /// location comes from the issuer's metadata unless [`Self::jwks_uri`] gives it.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        JwtVerifier {
            issuer: issuer.into(),
            audience: audience.into(),
            algorithms: vec![
                Algorithm::RS256,
                Algorithm::RS384,
                Algorithm::RS512,
                Algorithm::PS256,
                Algorithm::PS384,
                Algorithm::PS512,
                Algorithm::ES256,
                Algorithm::ES384,
                Algorithm::EdDSA,
            ],
            leeway: Duration::from_secs(30),
            jwks_uri: None,
            refetch_interval: Duration::from_secs(30),
            max_key_age: Duration::from_secs(600),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap_or_default(),
            keys: RwLock::new(Keys::default()),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The JWKS URL, instead of discovering it from the issuer's metadata.
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(uri.into());
        self
    }

    /// The accepted signature algorithms (default: the RSA, RSA-PSS, ECDSA and EdDSA families; HMAC is
    /// never a default, since a resource server should not hold the issuer's signing secret).
    pub fn algorithms(mut self, algs: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algs.into_iter().collect();
        self
    }

    /// Clock skew tolerated on `exp` and `nbf` (default 30 s).
    pub fn leeway(mut self, d: Duration) -> Self {
        self.leeway = d;
        self
    }

    /// The shortest time between two fetches caused by unknown `kid`s (default 30 s): a stream of
    /// forged `kid`s cannot make us hammer the authorization server.
    pub fn refetch_interval(mut self, d: Duration) -> Self {
        self.refetch_interval = d;
        self
    }

    /// How long fetched keys are trusted before the set is fetched again (default 10 min).
    pub fn max_key_age(mut self, d: Duration) -> Self {
        self.max_key_age = d;
        self
    }

    /// The HTTP client for metadata and JWKS (proxies, custom roots).
    pub fn http_client(mut self, c: reqwest::Client) -> Self {
        self.http = c;
        self
    }

    fn read_keys(&self) -> std::sync::RwLockReadGuard<'_, Keys> {
        self.keys.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The key for `kid` (and `alg`), fetching the JWKS when it is unknown or stale.
    async fn key_for(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
        let (found, stale, recent) = {
            let k = self.read_keys();
            let age = k.fetched.map(|t| t.elapsed());
            (
                find(&k.keys, kid, alg),
                age.is_none_or(|a| a > self.max_key_age),
                age.is_some_and(|a| a < self.refetch_interval),
            )
        };
        match found {
            Some(key) if !stale => return Ok(key),
            None if recent => {
                return Err(TokenError::Invalid(format!(
                    "no key of the issuer matches kid {}",
                    kid.unwrap_or("(none)")
                )))
            }
            _ => {}
        }
        let _one = self.fetching.lock().await;
        // Another request may have fetched while we waited.
        let fresh = self
            .read_keys()
            .fetched
            .is_some_and(|t| t.elapsed() < self.refetch_interval);
        if !fresh {
            if let Err(e) = self.fetch().await {
                let k = self.read_keys();
                if k.keys.is_empty() {
                    return Err(TokenError::Unavailable(e));
                }
                tracing::warn!(error = %e, "JWKS refresh failed; keeping the keys we have");
            }
        }
        find(&self.read_keys().keys, kid, alg).ok_or_else(|| {
            TokenError::Invalid(format!(
                "no key of the issuer matches kid {}",
                kid.unwrap_or("(none)")
            ))
        })
    }

    async fn fetch(&self) -> Result<(), String> {
        let uri = match self
            .jwks_uri
            .clone()
            .or_else(|| self.read_keys().jwks_uri.clone())
        {
            Some(u) => u,
            None => discover_jwks_uri(&self.http, &self.issuer).await?,
        };
        let set: JwkSet = get_json(&self.http, &uri).await?;
        let mut keys = Vec::with_capacity(set.keys.len());
        for jwk in set.keys {
            // Keys for encryption, or of a kind we cannot use, are skipped, not fatal.
            if matches!(
                jwk.common.public_key_use,
                Some(jsonwebtoken::jwk::PublicKeyUse::Encryption)
            ) {
                continue;
            }
            match DecodingKey::from_jwk(&jwk) {
                Ok(k) => keys.push((jwk.common.key_id.clone(), jwk, k)),
                Err(e) => tracing::debug!(error = %e, kid = ?jwk.common.key_id, "JWK skipped"),
            }
        }
        tracing::debug!(count = keys.len(), %uri, "JWKS fetched");
        let mut k = self.keys.write().unwrap_or_else(|e| e.into_inner());
        k.keys = keys;
        k.jwks_uri = Some(uri);
        k.fetched = Some(Instant::now());
        Ok(())
    }

    async fn check(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| TokenError::Invalid(format!("not a JWT: {e}")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenError::Invalid(format!(
                "the algorithm {:?} is not accepted",
                header.alg
            )));
        }
        let key = self.key_for(header.kid.as_deref(), header.alg).await?;
        let mut v = Validation::new(header.alg);
        v.leeway = self.leeway.as_secs();
        v.validate_exp = true;
        v.validate_nbf = true;
        v.set_issuer(&[&self.issuer]);
        v.set_audience(&[&self.audience]);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &v)
            .map_err(|e| TokenError::Invalid(describe(&e)))?;
        Ok(auth_info(data.claims))
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>> {
        Box::pin(self.check(token))
    }
}

/// The key with this `kid` usable with `alg` (or, without a `kid`, the only key usable with it).
fn find(
    keys: &[(Option<String>, Jwk, DecodingKey)],
    kid: Option<&str>,
    alg: Algorithm,
) -> Option<DecodingKey> {
    let fits = |jwk: &Jwk| {
        // A key that names its algorithm is used with that one only (no algorithm confusion).
        jwk.common
            .key_algorithm
            .is_none_or(|a| format!("{a:?}") == format!("{alg:?}"))
            && jwk.is_supported()
    };
    match kid {
        Some(kid) => keys
            .iter()
            .find(|(k, jwk, _)| k.as_deref() == Some(kid) && fits(jwk))
            .map(|(_, _, d)| d.clone()),
        None => {
            let mut usable = keys.iter().filter(|(_, jwk, _)| fits(jwk));
            match (usable.next(), usable.next()) {
                (Some((_, _, d)), None) => Some(d.clone()),
                _ => None,
            }
        }
    }
}

fn describe(e: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind as K;
    match e.kind() {
        K::ExpiredSignature => "the token has expired".into(),
        K::ImmatureSignature => "the token is not valid yet (nbf)".into(),
        K::InvalidAudience => "the token was issued for another resource (aud)".into(),
        K::InvalidIssuer => "the token was issued by another issuer (iss)".into(),
        K::InvalidSignature => "the token's signature does not verify".into(),
        K::MissingRequiredClaim(c) => format!("the token lacks the {c} claim"),
        other => format!("the token is not valid: {other:?}"),
    }
}

/// The identity in a token's claims (RFC 9068: `sub`, `client_id`, `scope`; also `scp` and `azp`).
pub(crate) fn auth_info(claims: Map<String, Value>) -> AuthInfo {
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_string);
    let scopes = match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    AuthInfo {
        subject: text("sub"),
        client_id: text("client_id").or_else(|| text("azp")),
        scopes,
        expires_at: claims.get("exp").and_then(Value::as_u64),
        claims,
        token: None,
    }
}

pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A JSON document, at most [`MAX_DOCUMENT_BYTES`].
pub(crate) async fn get_json<T: serde::de::DeserializeOwned>(
    http: &reqwest::Client,
    url: &str,
) -> Result<T, String> {
    let resp = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    read_json(resp, url).await
}

/// A response's JSON body, at most [`MAX_DOCUMENT_BYTES`]; a non-2xx status is an error.
pub(crate) async fn read_json<T: serde::de::DeserializeOwned>(
    mut resp: reqwest::Response,
    url: &str,
) -> Result<T, String> {
    if !resp.status().is_success() {
        return Err(format!("{url} answered {}", resp.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| format!("{url}: {e}"))? {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(format!(
                "{url}: the document exceeds {MAX_DOCUMENT_BYTES} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| format!("{url}: {e}"))
}

/// RFC 8414 section 3 (the well-known suffix inserted before the issuer's path), then OpenID discovery;
/// the document's `issuer` must be the one asked for (section 3.3).
async fn discover_jwks_uri(http: &reqwest::Client, issuer: &str) -> Result<String, String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed.split_once("://") {
        Some((scheme, rest)) => match rest.find('/') {
            Some(i) => (format!("{scheme}://{}", &rest[..i]), &rest[i..]),
            None => (trimmed.to_string(), ""),
        },
        None => return Err(format!("the issuer {issuer} is not a URL")),
    };
    let candidates = [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
    ];
    let mut last = String::new();
    for url in candidates {
        match get_json::<HashMap<String, Value>>(http, &url).await {
            Ok(doc) => {
                let iss = doc.get("issuer").and_then(Value::as_str).unwrap_or("");
                if iss.trim_end_matches('/') != trimmed {
                    return Err(format!("{url} names the issuer {iss:?}, not {issuer}"));
                }
                return doc
                    .get("jwks_uri")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| format!("{url} has no jwks_uri"));
            }
            Err(e) => last = e,
        }
    }
    Err(format!("no metadata found for the issuer {issuer}: {last}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let a = auth_info(
            serde_json::json!({"sub": "u", "scope": "a b", "client_id": "c", "exp": 5})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(a.scopes, ["a", "b"]);
        assert_eq!(a.subject.as_deref(), Some("u"));
        assert_eq!(a.client_id.as_deref(), Some("c"));
        assert_eq!(a.expires_at, Some(5));
        let b = auth_info(
            serde_json::json!({"scp": ["x"], "azp": "d"})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(b.scopes, ["x"]);
        assert_eq!(b.client_id.as_deref(), Some("d"));
    }
}
