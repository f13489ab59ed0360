//! Who is calling: the identity an HTTP transport verified from the request's access token, handed to
//! the handlers of that request through [`Context::auth`](crate::Context::auth).
//!
//! A transport runs the dispatch of an authenticated request inside [`with_auth`]; the context built for
//! each request dispatched there captures it. Transports without authentication (stdio) never set it.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;

/// The verified identity behind a request: the token's subject, client, scopes and claims.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthInfo {
    /// The resource owner (`sub`); unique per issuer. `None` for a static bearer token.
    pub subject: Option<String>,
    /// The OAuth client the token was issued to (`client_id`, or `azp`).
    pub client_id: Option<String>,
    /// The granted scopes.
    pub scopes: Vec<String>,
    /// When the token expires, in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// Every claim of the token (a JWT's payload, or the introspection answer).
    pub claims: Map<String, Value>,
    /// The access token itself, as the caller presented it (set by the HTTP transport once verified),
    /// for a server that forwards or exchanges it upstream (a gateway). Its `Debug` hides it.
    pub token: Option<BearerToken>,
}

/// A bearer token: its `Debug` shows its length, never its text.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// Wraps a token.
    pub fn new(token: impl Into<String>) -> Self {
        BearerToken(token.into())
    }

    /// The token's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BearerToken({} bytes)", self.0.len())
    }
}

impl AuthInfo {
    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// One claim, decoded into `T`; `None` when absent or of another shape.
    pub fn claim<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        self.claims.get(name).and_then(|v| T::deserialize(v).ok())
    }
}

tokio::task_local! {
    static CURRENT: Option<Arc<AuthInfo>>;
}

/// Runs `fut` (the dispatch of one request) with `auth` as the caller's identity. One future around
/// `fut`, whatever `auth` is: a branch per case would hold room for `fut` twice.
pub fn with_auth<F: Future>(
    auth: Option<Arc<AuthInfo>>,
    fut: F,
) -> impl Future<Output = F::Output> {
    CURRENT.scope(auth, fut)
}

/// The identity of the request being dispatched, if its transport verified one.
pub(crate) fn current() -> Option<Arc<AuthInfo>> {
    CURRENT.try_with(Clone::clone).ok().flatten()
}
