//! The admission state of one service (`admission.rs` admits requests through it): its resource server,
//! if it checks tokens, and its rate limiter, if it has one; and who a request came from, once admitted.

use super::config::HttpConfig;
use super::rate_limit::{ClientKey, Limiter};
use super::resource_server::ResourceServer;
use crate::identity::AuthInfo;
use std::sync::Arc;

/// The admission state of one service: its resource server (if any) and its rate limiter (if any).
pub(crate) struct Gate {
    pub(crate) auth: Option<ResourceServer>,
    pub(crate) limiter: Option<Limiter>,
    pub(crate) https: bool,
}

/// Who sent a request, as admitted: rides in the request's extensions to the message checks.
#[derive(Clone)]
pub(crate) struct Caller {
    pub(crate) auth: Option<Arc<AuthInfo>>,
    pub(super) key: ClientKey,
}

impl Gate {
    pub(crate) fn new(config: &HttpConfig) -> Gate {
        let auth = config.auth.clone().or_else(|| {
            config.bearer_token.as_ref().map(|t| {
                let mut rs = ResourceServer::with_verifier(Arc::new(
                    super::resource_server::StaticToken::new(t.clone()),
                ));
                rs.authorization_servers = config.authorization_servers.clone();
                rs
            })
        });
        Gate {
            auth,
            limiter: config.rate_limits.clone().map(Limiter::new),
            https: config.is_https(),
        }
    }
}
