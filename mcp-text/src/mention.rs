//! Mentions name people by account id; a model reads names. The caller supplies the look-up.

use std::collections::HashMap;
use std::sync::Mutex;

/// Turns an account id into the name a model should read (`@Display Name`). Implement it over your user
/// directory (Jira's `/rest/api/3/user?accountId=`, Confluence's `/wiki/rest/api/user`), and wrap it in
/// [`CachedResolver`] so that each id is looked up once.
pub trait MentionResolver: Send + Sync {
    /// The display name of `account_id` (without the `@`), or `None` when it is unknown.
    fn display_name(&self, account_id: &str) -> Option<String>;
}

impl<F: Fn(&str) -> Option<String> + Send + Sync> MentionResolver for F {
    fn display_name(&self, account_id: &str) -> Option<String> {
        self(account_id)
    }
}

/// A resolver that asks the one it wraps once per account id and remembers the answer (unknown ids too),
/// up to `capacity` ids (then it forgets them all and starts again, so its memory stays bounded).
pub struct CachedResolver<R> {
    inner: R,
    capacity: usize,
    cache: Mutex<HashMap<String, Option<String>>>,
}

impl<R: MentionResolver> CachedResolver<R> {
    pub fn new(inner: R) -> Self {
        Self::with_capacity(inner, 10_000)
    }

    pub fn with_capacity(inner: R, capacity: usize) -> Self {
        CachedResolver { inner, capacity: capacity.max(1), cache: Mutex::new(HashMap::new()) }
    }
}

impl<R: MentionResolver> MentionResolver for CachedResolver<R> {
    fn display_name(&self, account_id: &str) -> Option<String> {
        if let Some(hit) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(account_id) {
            return hit.clone();
        }
        let name = self.inner.display_name(account_id);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= self.capacity {
            cache.clear();
        }
        cache.insert(account_id.to_string(), name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn each_id_is_looked_up_once() {
        let calls = AtomicUsize::new(0);
        let resolver = CachedResolver::new(|id: &str| {
            calls.fetch_add(1, Ordering::Relaxed);
            (id == "557058:1").then(|| "Ada Lovelace".to_string())
        });
        for _ in 0..3 {
            assert_eq!(resolver.display_name("557058:1").as_deref(), Some("Ada Lovelace"));
            assert_eq!(resolver.display_name("unknown"), None);
        }
        assert_eq!(calls.load(Ordering::Relaxed), 2);
    }
}
