//! An optional cache of list and read results that honours the caching hints of 2026-07-28 (`ttlMs`):
//! a result is served again until its freshness runs out, or a change notification (list changed,
//! resource updated) makes it stale. Results without hints (handshake-era servers) or with `ttlMs: 0`
//! are not kept, nor are the results of retried multi round-trip requests.
//!
//! The cache belongs to one client, so `cacheScope: "private"` results are kept as well as public ones
//! (they are never shared beyond the authorization context they were fetched in). Memory is bounded in
//! entries and in bytes per entry.

use crate::protocol::{methods, CacheHints};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const MAX_ENTRIES: usize = 512;
const MAX_ENTRY_BYTES: usize = 1 << 20;

struct Entry {
    raw: Box<RawValue>,
    expires: Instant,
}

#[derive(Default)]
pub(crate) struct ResultCache {
    entries: Mutex<HashMap<(&'static str, String), Entry>>,
}

/// The cacheable methods, as `'static` keys.
fn method_key(method: &str) -> Option<&'static str> {
    [
        methods::TOOLS_LIST,
        methods::PROMPTS_LIST,
        methods::RESOURCES_LIST,
        methods::RESOURCES_TEMPLATES_LIST,
        methods::RESOURCES_READ,
    ]
    .into_iter()
    .find(|m| *m == method)
}

impl ResultCache {
    /// A fresh result for `method` and `key` (the cursor, or the resource URI).
    pub(crate) fn get(&self, method: &str, key: &str) -> Option<Box<RawValue>> {
        let m = method_key(method)?;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let k = (m, key.to_string());
        match entries.get(&k) {
            Some(e) if e.expires > Instant::now() => Some(e.raw.clone()),
            Some(_) => {
                entries.remove(&k);
                None
            }
            None => None,
        }
    }

    /// Keeps a result if its hints allow it.
    pub(crate) fn put(&self, method: &str, key: &str, raw: &RawValue) {
        let Some(m) = method_key(method) else { return };
        let Ok(hints) = serde_json::from_str::<CacheHints>(raw.get()) else {
            return;
        };
        if hints.ttl_ms == 0 || raw.get().len() > MAX_ENTRY_BYTES {
            return;
        }
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, e| e.expires > now);
            if entries.len() >= MAX_ENTRIES {
                // Evict the entry that would go stale first.
                if let Some(k) = entries
                    .iter()
                    .min_by_key(|(_, e)| e.expires)
                    .map(|(k, _)| k.clone())
                {
                    entries.remove(&k);
                }
            }
        }
        entries.insert(
            (m, key.to_string()),
            Entry {
                raw: raw.to_owned(),
                expires: now + Duration::from_millis(hints.ttl_ms),
            },
        );
    }

    /// Forgets what a change notification made stale.
    pub(crate) fn invalidate(&self, notification: &str, params: Option<&serde_json::Value>) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match notification {
            methods::TOOLS_LIST_CHANGED => entries.retain(|(m, _), _| *m != methods::TOOLS_LIST),
            methods::PROMPTS_LIST_CHANGED => {
                entries.retain(|(m, _), _| *m != methods::PROMPTS_LIST)
            }
            methods::RESOURCES_LIST_CHANGED => entries.retain(|(m, _), _| {
                *m != methods::RESOURCES_LIST && *m != methods::RESOURCES_TEMPLATES_LIST
            }),
            methods::RESOURCES_UPDATED => {
                let uri = params.and_then(|p| p.get("uri")).and_then(|u| u.as_str());
                match uri {
                    // An update of a resource also concerns the resources below it.
                    Some(uri) => entries.retain(|(m, k), _| {
                        *m != methods::RESOURCES_READ
                            || !(k == uri
                                || (k.starts_with(uri) && k[uri.len()..].starts_with('/')))
                    }),
                    None => entries.retain(|(m, _), _| *m != methods::RESOURCES_READ),
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_string()).unwrap()
    }

    #[test]
    fn keeps_fresh_results_and_drops_stale_ones() {
        let c = ResultCache::default();
        c.put(
            methods::TOOLS_LIST,
            "",
            &raw(r#"{"tools":[],"ttlMs":60000,"cacheScope":"public"}"#),
        );
        c.put(
            methods::PROMPTS_LIST,
            "",
            &raw(r#"{"prompts":[],"ttlMs":0,"cacheScope":"public"}"#),
        );
        c.put(
            methods::RESOURCES_READ,
            "file:///a/b",
            &raw(r#"{"contents":[],"ttlMs":60000,"cacheScope":"private"}"#),
        );
        c.put(
            methods::TOOLS_CALL,
            "",
            &raw(r#"{"content":[],"ttlMs":60000,"cacheScope":"public"}"#),
        );
        assert!(c.get(methods::TOOLS_LIST, "").is_some());
        assert!(c.get(methods::PROMPTS_LIST, "").is_none());
        assert!(c.get(methods::TOOLS_CALL, "").is_none());
        assert!(c.get(methods::RESOURCES_READ, "file:///a/b").is_some());
        c.invalidate(
            methods::RESOURCES_UPDATED,
            Some(&serde_json::json!({"uri": "file:///a"})),
        );
        assert!(c.get(methods::RESOURCES_READ, "file:///a/b").is_none());
        c.invalidate(methods::TOOLS_LIST_CHANGED, None);
        assert!(c.get(methods::TOOLS_LIST, "").is_none());
    }

    #[test]
    fn results_without_hints_are_not_kept() {
        let c = ResultCache::default();
        c.put(methods::TOOLS_LIST, "", &raw(r#"{"tools":[]}"#));
        assert!(c.get(methods::TOOLS_LIST, "").is_none());
    }
}
