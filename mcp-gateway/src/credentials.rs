//! Upstream credentials per user: what an upstream receives on behalf of the caller of the HTTP front
//! (whose token [`crate::auth`] verified), never on behalf of another.
//!
//! - **`"credentials": {"mode": "passthrough", "audience": A}`** (an HTTP upstream): the caller's own
//!   bearer token is sent, and only if its `aud` includes `A` (a token the caller's authorization server
//!   issued for both the gateway and that upstream); otherwise the call is refused and says why.
//! - **`"credentials": {"mode": "token-exchange", "tokenEndpoint": U, "audience": A, ...}`** (an HTTP
//!   upstream): the caller's token is exchanged at `U` (RFC 8693, `grant_type`
//!   `urn:ietf:params:oauth:grant-type:token-exchange`, with `clientId`/`clientSecret` as HTTP Basic
//!   when given, and `scope`/`resource` when given) for one issued for `A`, kept per caller token until
//!   it expires (at most [`MAX_EXCHANGED`] kept).
//! - **`"perUser": true`** (a stdio upstream): each caller gets a child of its own whose `env` values
//!   are rendered from its identity: `${user.token}` (its bearer token), `${user.sub}`, and
//!   `${user.claims.<path>}` (a claim, a dotted path into it). A value that names no claim the caller has
//!   refuses the call. The child the gateway lists tools through has no user: those variables are unset.
//!
//! A per-user upstream's connections are one per distinct credential (see [`crate::users`]): two
//! callers never share one. Its `resources/read` answers are never cached across callers.

use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::AuthInfo;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Per-user connections one upstream may have at once, unless `maxUsers` says.
pub const DEFAULT_MAX_USERS: usize = 64;
/// How long a user's connection may stay unused before it is closed, unless `userIdleMs` says.
pub const DEFAULT_USER_IDLE: Duration = Duration::from_secs(300);
/// Exchanged tokens kept per upstream.
pub const MAX_EXCHANGED: usize = 1024;
/// The most an answer of a token endpoint may hold.
const MAX_TOKEN_RESPONSE: usize = 64 * 1024;

/// How an upstream's connections carry the caller's credentials.
#[derive(Debug, Clone, PartialEq)]
pub struct PerUser {
    pub credentials: Credentials,
    /// How many callers may have a connection of their own at once (`maxUsers`).
    pub max_users: usize,
    /// A caller's connection unused this long is closed (`userIdleMs`).
    pub idle: Duration,
}

/// What a per-user connection is given.
#[derive(Debug, Clone, PartialEq)]
pub enum Credentials {
    /// A stdio child with `env` rendered from the caller (`perUser: true`).
    Env,
    /// The caller's own token, if issued for `audience` too.
    Passthrough { audience: String },
    /// A token obtained for the upstream (RFC 8693).
    TokenExchange(TokenExchange),
}

/// `credentials` with `"mode": "token-exchange"`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TokenExchange {
    pub token_endpoint: String,
    pub audience: String,
    #[serde(default)]
    pub resource: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub client_secret: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[serde(tag = "mode")]
enum RawCredentials {
    Passthrough { audience: String },
    TokenExchange(TokenExchange),
}

/// The per-user keys of one upstream, as read from the file.
pub(crate) struct RawPerUser {
    pub credentials: Option<Value>,
    pub per_user: bool,
    pub max_users: Option<u32>,
    pub user_idle_ms: Option<u64>,
}

/// The kind of upstream per-user keys are checked against.
pub(crate) enum Kind<'a> {
    /// A stdio server, with its `env`.
    Stdio(&'a BTreeMap<String, String>),
    Http,
    OpenApi,
}

/// Checks an upstream's per-user keys against its kind; a problem is a place and what is wrong.
pub(crate) fn per_user(
    place: &str,
    kind: Kind<'_>,
    raw: RawPerUser,
) -> Result<Option<PerUser>, (String, String)> {
    let at = |k: &str, why: String| Err((format!("{place}.{k}"), why));
    let credentials =
        match (kind, raw.credentials, raw.per_user) {
            (Kind::Stdio(env), None, per_user) => {
                for (k, v) in env {
                    let refs = user_refs(v).map_err(|why| (format!("{place}.env.{k}"), why))?;
                    if !refs.is_empty() && !per_user {
                        return at(
                            &format!("env.{k}"),
                            "refers to the caller (`${user...}`): set \"perUser\": true".into(),
                        );
                    }
                }
                per_user.then_some(Credentials::Env)
            }
            (Kind::Stdio(_), Some(_), _) => return at(
                "credentials",
                "is for HTTP upstreams (`url`): a stdio server gets the caller's credentials with \
                 \"perUser\": true and `env` values such as \"${user.token}\""
                    .into(),
            ),
            (Kind::Http, c, per_user) => {
                if per_user {
                    return at(
                        "perUser",
                        "is for stdio servers: an HTTP upstream takes `credentials`".into(),
                    );
                }
                match c {
                    None => None,
                    Some(v) => Some(credentials(&format!("{place}.credentials"), v)?),
                }
            }
            (Kind::OpenApi, c, per_user) => {
                if c.is_some() || per_user {
                    return at(
                        if per_user { "perUser" } else { "credentials" },
                        "is not available for OpenAPI upstreams".into(),
                    );
                }
                None
            }
        };
    let Some(credentials) = credentials else {
        if raw.max_users.is_some() {
            return at("maxUsers", "applies only to per-user upstreams".into());
        }
        if raw.user_idle_ms.is_some() {
            return at("userIdleMs", "applies only to per-user upstreams".into());
        }
        return Ok(None);
    };
    let max_users = match raw.max_users {
        None => DEFAULT_MAX_USERS,
        Some(n) if (1..=4096).contains(&n) => n as usize,
        Some(_) => return at("maxUsers", "must be from 1 to 4096".into()),
    };
    let idle = match raw.user_idle_ms {
        None => DEFAULT_USER_IDLE,
        Some(ms) if (1..=86_400_000).contains(&ms) => Duration::from_millis(ms),
        Some(_) => return at("userIdleMs", "must be from 1 to 86400000 (a day)".into()),
    };
    Ok(Some(PerUser {
        credentials,
        max_users,
        idle,
    }))
}

fn credentials(place: &str, v: Value) -> Result<Credentials, (String, String)> {
    let raw: RawCredentials = serde_json::from_value(v).map_err(|e| {
        (
            place.to_string(),
            format!("{e} (\"mode\": \"passthrough\" with `audience`, or \"token-exchange\" with `tokenEndpoint` and `audience`)"),
        )
    })?;
    let url = |k: &str, u: &str| {
        if u.starts_with("http://") || u.starts_with("https://") {
            Ok(())
        } else {
            Err((
                format!("{place}.{k}"),
                format!("`{u}` is not an http:// or https:// URL"),
            ))
        }
    };
    Ok(match raw {
        RawCredentials::Passthrough { audience } if audience.is_empty() => {
            return Err((format!("{place}.audience"), "is empty".into()))
        }
        RawCredentials::Passthrough { audience } => Credentials::Passthrough { audience },
        RawCredentials::TokenExchange(t) => {
            url("tokenEndpoint", &t.token_endpoint)?;
            if t.audience.is_empty() {
                return Err((format!("{place}.audience"), "is empty".into()));
            }
            if t.client_secret.is_some() && t.client_id.is_none() {
                return Err((format!("{place}.clientSecret"), "needs `clientId`".into()));
            }
            Credentials::TokenExchange(t)
        }
    })
}

/// The `${user...}` references of a value: `token`, `sub`, `claims.<path>`.
fn user_refs(v: &str) -> Result<Vec<&str>, String> {
    let mut refs = Vec::new();
    let mut rest = v;
    while let Some(i) = rest.find("${user.") {
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "`{v}`: a `${{user...` reference is not closed with `}}`"
            ));
        };
        let r = &after[..end];
        let ok = r == "user.token"
            || r == "user.sub"
            || r.strip_prefix("user.claims.")
                .is_some_and(|p| !p.is_empty() && !p.split('.').any(str::is_empty));
        if !ok {
            return Err(format!(
                "`${{{r}}}` is not `${{user.token}}`, `${{user.sub}}` or `${{user.claims.<name>}}`"
            ));
        }
        refs.push(r);
        rest = &after[end + 1..];
    }
    Ok(refs)
}

/// A value with its `${user...}` references replaced from `caller`.
fn render(v: &str, caller: &AuthInfo) -> Result<String, String> {
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(i) = rest.find("${user.") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}').unwrap_or(after.len());
        let r = &after[..end];
        let value = match r {
            "user.token" => caller.token.as_ref().map(|t| t.as_str().to_string()),
            "user.sub" => caller.subject.clone(),
            _ => r.strip_prefix("user.claims.").and_then(|path| {
                let mut keys = path.split('.');
                let first = caller.claims.get(keys.next()?)?;
                let v = keys.try_fold(first, |v, k| v.as_object()?.get(k))?;
                Some(match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
            }),
        };
        out.push_str(
            &value.ok_or_else(|| format!("the caller's token has no value for `${{{r}}}`"))?,
        );
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    Ok(out)
}

/// The env of the child the gateway lists a per-user stdio upstream through: no user, so the variables
/// that name one are left out.
pub(crate) fn without_user(env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    env.iter()
        .filter(|(_, v)| !v.contains("${user."))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// What one caller's connection to an upstream is given, and the key that tells connections apart.
pub(crate) struct UserCredentials {
    /// Headers of an HTTP connection (`Authorization`).
    pub headers: Vec<(String, String)>,
    /// The environment of a stdio child.
    pub env: BTreeMap<String, String>,
    /// What the connection must never relay besides its upstream's secrets: the values of `env`
    /// rendered from `${user.token}`, and the token itself (the header values are secrets too).
    pub secrets: Vec<String>,
    /// A digest of the subject and of everything above: equal keys, equal credentials.
    pub key: [u8; 32],
}

/// The refusal of a call whose caller cannot be given the upstream's credentials.
pub(crate) fn refused(upstream: &str, why: &str) -> ErrorObject {
    ErrorObject::new(
        -32001,
        format!("upstream `{upstream}` needs the caller's credentials: {why}"),
    )
    .with_data(serde_json::json!({"upstream": upstream, "reason": why}))
}

/// Exchanged tokens by the digest of the caller's token, until they expire.
pub(crate) struct Exchanged {
    http: reqwest::Client,
    cache: Mutex<HashMap<[u8; 32], (String, Instant)>>,
}

impl Exchanged {
    pub(crate) fn new() -> Exchanged {
        Exchanged {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap_or_default(),
            cache: Mutex::default(),
        }
    }

    async fn token(
        &self,
        t: &TokenExchange,
        subject: &str,
        caller: &AuthInfo,
    ) -> Result<String, String> {
        let key: [u8; 32] = Sha256::digest(subject.as_bytes()).into();
        let now = Instant::now();
        if let Some((tok, until)) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            if *until > now {
                return Ok(tok.clone());
            }
        }
        let mut form: Vec<(&str, &str)> = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("subject_token", subject),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:access_token",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:access_token",
            ),
            ("audience", &t.audience),
        ];
        if let Some(s) = &t.scope {
            form.push(("scope", s));
        }
        if let Some(r) = &t.resource {
            form.push(("resource", r));
        }
        let mut req = self.http.post(&t.token_endpoint);
        match (&t.client_id, &t.client_secret) {
            (Some(id), Some(secret)) => req = req.basic_auth(id, Some(secret)),
            (Some(id), None) => form.push(("client_id", id)),
            _ => {}
        }
        let resp = req
            .form(&form)
            .send()
            .await
            .map_err(|e| format!("the token endpoint cannot be reached: {e}"))?;
        let status = resp.status();
        let body = read_limited(resp).await?;
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !status.is_success() {
            let err = v["error"].as_str().unwrap_or("no error code");
            let desc = v["error_description"].as_str().unwrap_or("");
            return Err(format!(
                "the token endpoint refused the exchange ({status}: {err} {desc})"
            ));
        }
        let Some(token) = v["access_token"].as_str().filter(|t| !t.is_empty()) else {
            return Err("the token endpoint's answer has no access_token".into());
        };
        // Kept until it expires (a little before), and never past the caller's own token.
        let ttl = v["expires_in"].as_u64().unwrap_or(60);
        let caller_left = caller
            .expires_at
            .map(|exp| exp.saturating_sub(now_secs()))
            .unwrap_or(u64::MAX);
        let keep = Duration::from_secs(ttl.min(caller_left).saturating_sub(10));
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|_, (_, until)| *until > now);
        if cache.len() >= MAX_EXCHANGED {
            if let Some(k) = cache.iter().min_by_key(|(_, (_, u))| *u).map(|(k, _)| *k) {
                cache.remove(&k);
            }
        }
        if !keep.is_zero() {
            cache.insert(key, (token.to_string(), now + keep));
        }
        Ok(token.to_string())
    }
}

async fn read_limited(mut resp: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| format!("reading the token endpoint's answer: {e}"))?
    {
        if body.len() + chunk.len() > MAX_TOKEN_RESPONSE {
            return Err("the token endpoint's answer is too large".into());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The credentials `caller` gets for an upstream, or why it gets none.
pub(crate) async fn for_caller(
    per_user: &PerUser,
    env_template: Option<&BTreeMap<String, String>>,
    caller: Option<&AuthInfo>,
    exchanged: &Exchanged,
) -> Result<UserCredentials, String> {
    let caller =
        caller.ok_or("the request is not authenticated (gateway.auth on the HTTP front)")?;
    let token = || {
        caller
            .token
            .as_ref()
            .map(|t| t.as_str())
            .ok_or("the caller's request carried no bearer token")
    };
    let mut headers = Vec::new();
    let mut env = BTreeMap::new();
    let mut secrets = Vec::new();
    match (&per_user.credentials, env_template) {
        (Credentials::Passthrough { audience }, _) => {
            let aud_ok = match caller.claims.get("aud") {
                Some(Value::String(a)) => a == audience,
                Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(audience)),
                _ => false,
            };
            if !aud_ok {
                return Err(format!(
                    "the caller's token was not issued for `{audience}` (its aud does not include it), \
                     and passthrough sends a token only to an audience it names"
                ));
            }
            headers.push(("authorization".into(), format!("Bearer {}", token()?)));
        }
        (Credentials::TokenExchange(t), _) => {
            let got = exchanged.token(t, token()?, caller).await?;
            headers.push(("authorization".into(), format!("Bearer {got}")));
        }
        (Credentials::Env, Some(template)) => {
            for (k, v) in template {
                let value = render(v, caller)?;
                if v.contains("${user.token}") {
                    secrets.push(token()?.to_string());
                    secrets.push(value.clone());
                }
                env.insert(k.clone(), value);
            }
        }
        (Credentials::Env, _) => return Err("perUser applies to stdio upstreams".into()),
    }
    Ok(UserCredentials {
        key: digest(caller, &headers, &env),
        headers,
        env,
        secrets,
    })
}

/// The key of a connection: the subject and every credential it carries, each length-prefixed.
fn digest(
    caller: &AuthInfo,
    headers: &[(String, String)],
    env: &BTreeMap<String, String>,
) -> [u8; 32] {
    let mut h = Sha256::new();
    let mut put = |s: &str| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    put(caller.subject.as_deref().unwrap_or(""));
    for (k, v) in headers.iter().map(|(k, v)| (k, v)).chain(env.iter()) {
        put(k);
        put(v);
    }
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn env_templates_render_from_the_caller() {
        let caller = AuthInfo {
            subject: Some("alice".into()),
            token: Some(mcp_runtime::BearerToken::new("tok-a")),
            claims: json!({"org": {"id": 7}, "sub": "alice"})
                .as_object()
                .cloned()
                .unwrap(),
            ..Default::default()
        };
        assert_eq!(
            render("x-${user.token}-${user.sub}", &caller).unwrap(),
            "x-tok-a-alice"
        );
        assert_eq!(render("${user.claims.org.id}", &caller).unwrap(), "7");
        assert!(render("${user.claims.nope}", &caller)
            .unwrap_err()
            .contains("user.claims.nope"));
        assert!(user_refs("${user.password}").is_err());
        assert!(user_refs("${user.token").is_err());
        assert_eq!(
            user_refs("a ${user.sub} ${user.claims.x.y}").unwrap(),
            ["user.sub", "user.claims.x.y"]
        );
    }

    #[test]
    fn per_user_keys_are_checked_against_the_transport() {
        let env: BTreeMap<String, String> = [("T".to_string(), "${user.token}".to_string())].into();
        let raw = |c: Option<Value>, per_user: bool| RawPerUser {
            credentials: c,
            per_user,
            max_users: None,
            user_idle_ms: None,
        };
        let e = per_user("mcpServers.s", Kind::Stdio(&env), raw(None, false)).unwrap_err();
        assert_eq!(e.0, "mcpServers.s.env.T");
        assert!(per_user("mcpServers.s", Kind::Stdio(&env), raw(None, true))
            .unwrap()
            .is_some());
        let e = per_user(
            "mcpServers.h",
            Kind::Http,
            raw(Some(json!({"mode": "pass"})), false),
        )
        .unwrap_err();
        assert_eq!(e.0, "mcpServers.h.credentials");
        assert!(e.1.contains("passthrough"), "{}", e.1);
        let e = per_user(
            "mcpServers.h",
            Kind::Http,
            raw(
                Some(
                    json!({"mode": "token-exchange", "tokenEndpoint": "ftp://x", "audience": "a"}),
                ),
                false,
            ),
        )
        .unwrap_err();
        assert_eq!(e.0, "mcpServers.h.credentials.tokenEndpoint");
        let ok = per_user(
            "mcpServers.h",
            Kind::Http,
            raw(Some(json!({"mode": "passthrough", "audience": "a"})), false),
        );
        assert_eq!(
            ok.unwrap().unwrap().credentials,
            Credentials::Passthrough {
                audience: "a".into()
            }
        );
    }
}
