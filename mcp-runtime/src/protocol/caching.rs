//! Caching hints (2026-07-28): how long a list or read result stays fresh, and who may share it.

use serde::{Deserialize, Serialize};

/// Who may keep a cached result: anyone (`public`), or only the same authorization context (`private`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// The result holds nothing user-specific; shared caches may serve it to anyone.
    #[default]
    Public,
    /// The result may depend on the caller; caches must not share it across authorization contexts.
    Private,
}

impl CacheScope {
    /// The wire spelling (`"public"` or `"private"`).
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// `ttlMs` and `cacheScope`, carried by `server/discover`, the list results and `resources/read` results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheHints {
    /// Milliseconds the result may be considered fresh (`0`: stale at once).
    pub ttl_ms: u64,
    /// Who may share a cached copy.
    pub cache_scope: CacheScope,
}

impl CacheHints {
    /// Hints with this freshness, in milliseconds, and scope.
    pub const fn new(ttl_ms: u64, cache_scope: CacheScope) -> Self {
        CacheHints {
            ttl_ms,
            cache_scope,
        }
    }

    /// The hints of a result made of several items: the shortest freshness, and private if any is.
    pub fn combine(self, other: CacheHints) -> CacheHints {
        CacheHints {
            ttl_ms: self.ttl_ms.min(other.ttl_ms),
            cache_scope: self.cache_scope.max(other.cache_scope),
        }
    }
}
