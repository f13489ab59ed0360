//! Opaque access tokens (feature `oauth`): asked about at the authorization server's introspection
//! endpoint (RFC 7662). An active token must name this resource in `aud` (RFC 8707) and, when the
//! answer says, be unexpired and from the expected issuer. Answers are cached briefly (never past the
//! token's `exp`), in a bounded map keyed by the token's SHA-256.

use super::jwt::{auth_info, now_secs, read_json};
use super::resource_server::{TokenError, TokenVerifier};
use crate::future::BoxFuture;
use crate::identity::AuthInfo;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Verifies opaque tokens with an RFC 7662 introspection endpoint.
pub struct IntrospectionVerifier {
    endpoint: String,
    audience: String,
    issuer: Option<String>,
    credentials: Option<(String, String)>,
    cache_ttl: Duration,
    cache_max: usize,
    http: reqwest::Client,
    cache: Mutex<HashMap<[u8; 32], (AuthInfo, Instant)>>,
}

impl IntrospectionVerifier {
    /// Tokens introspected at `endpoint`, accepted only when issued for `audience` (this resource).
    pub fn new(endpoint: impl Into<String>, audience: impl Into<String>) -> Self {
        IntrospectionVerifier {
            endpoint: endpoint.into(),
            audience: audience.into(),
            issuer: None,
            credentials: None,
            cache_ttl: Duration::from_secs(30),
            cache_max: 10_000,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap_or_default(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// This resource server's own client credentials at the endpoint (HTTP Basic).
    pub fn client_credentials(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.credentials = Some((id.into(), secret.into()));
        self
    }

    /// The `iss` an answer must carry when it carries one.
    pub fn issuer(mut self, iss: impl Into<String>) -> Self {
        self.issuer = Some(iss.into());
        self
    }

    /// How long an active answer is reused (default 30 s; zero disables the cache). A revoked token
    /// stays accepted for at most this long.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// The HTTP client that calls the introspection endpoint (default: one with a 10 s timeout).
    pub fn http_client(mut self, c: reqwest::Client) -> Self {
        self.http = c;
        self
    }

    fn cached(&self, key: &[u8; 32]) -> Option<AuthInfo> {
        let mut c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        match c.get(key) {
            Some((info, until)) if *until > Instant::now() => Some(info.clone()),
            Some(_) => {
                c.remove(key);
                None
            }
            None => None,
        }
    }

    fn remember(&self, key: [u8; 32], info: &AuthInfo) {
        let mut ttl = self.cache_ttl;
        if let Some(exp) = info.expires_at {
            ttl = ttl.min(Duration::from_secs(exp.saturating_sub(now_secs())));
        }
        if ttl.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if c.len() >= self.cache_max {
            c.retain(|_, (_, until)| *until > now);
            if c.len() >= self.cache_max {
                return;
            }
        }
        c.insert(key, (info.clone(), now + ttl));
    }

    async fn introspect(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let key: [u8; 32] = crate::sha256::Sha256::digest(token.as_bytes());
        if let Some(info) = self.cached(&key) {
            return Ok(info);
        }
        let mut req = self
            .http
            .post(&self.endpoint)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&[("token", token), ("token_type_hint", "access_token")]);
        if let Some((id, secret)) = &self.credentials {
            req = req.basic_auth(id, Some(secret));
        }
        let resp = req
            .send()
            .await
            .map_err(|e| TokenError::Unavailable(format!("introspection: {e}")))?;
        let answer: Map<String, Value> = read_json(resp, &self.endpoint)
            .await
            .map_err(TokenError::Unavailable)?;
        let info = self.judge(answer)?;
        self.remember(key, &info);
        Ok(info)
    }

    /// What an introspection answer means for this resource.
    fn judge(&self, answer: Map<String, Value>) -> Result<AuthInfo, TokenError> {
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(TokenError::Invalid("the token is not active".into()));
        }
        let for_us = match answer.get("aud") {
            Some(Value::String(a)) => *a == self.audience,
            Some(Value::Array(a)) => a.iter().any(|v| v.as_str() == Some(&self.audience)),
            _ => false,
        };
        if !for_us {
            return Err(TokenError::Invalid(
                "the token was issued for another resource (aud)".into(),
            ));
        }
        if let (Some(want), Some(iss)) = (&self.issuer, answer.get("iss").and_then(Value::as_str)) {
            if iss != want {
                return Err(TokenError::Invalid(
                    "the token was issued by another issuer (iss)".into(),
                ));
            }
        }
        let info = auth_info(answer);
        if info.expires_at.is_some_and(|exp| exp < now_secs()) {
            return Err(TokenError::Invalid("the token has expired".into()));
        }
        Ok(info)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>> {
        Box::pin(self.introspect(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn answers_are_judged_for_this_resource() {
        let v = IntrospectionVerifier::new("http://127.0.0.1:1/introspect", "https://r/mcp")
            .issuer("https://as");
        let exp = now_secs() + 60;
        let ok = v
            .judge(answer(serde_json::json!({"active": true, "aud": "https://r/mcp", "sub": "u", "scope": "a", "exp": exp})))
            .unwrap();
        assert_eq!(ok.subject.as_deref(), Some("u"));
        assert!(v
            .judge(answer(serde_json::json!({"active": false})))
            .is_err());
        assert!(v
            .judge(answer(
                serde_json::json!({"active": true, "aud": "https://other/mcp"})
            ))
            .is_err());
        assert!(
            v.judge(answer(serde_json::json!({"active": true})))
                .is_err(),
            "no audience: not shown to be for us"
        );
        assert!(v
            .judge(answer(serde_json::json!({"active": true, "aud": ["x", "https://r/mcp"], "iss": "https://evil"})))
            .is_err());
        assert!(v
            .judge(answer(
                serde_json::json!({"active": true, "aud": "https://r/mcp", "exp": 1})
            ))
            .is_err());
    }
}
