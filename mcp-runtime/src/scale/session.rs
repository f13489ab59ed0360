//! The session record: what `initialize` established for a handshake-era session, and where it is kept.

use super::StoreError;
use crate::future::BoxFuture;
use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a handshake-era session carries from one request to the next: enough for any instance to serve
/// the session's next request as the one that answered `initialize` would.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    /// The `Mcp-Session-Id`.
    pub id: String,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// What the client declared in `initialize`.
    pub client_capabilities: ClientCapabilities,
    /// Who the client said it is.
    pub client_info: Implementation,
    /// The level of `logging/setLevel`, if the client set one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// Who the transport authenticated when the session began (requests of another principal are
    /// refused the session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// What the session's own tasks are filed under in the task store.
    pub task_owner: String,
    /// The resource URIs the client subscribed to (`resources/subscribe`), so that the instance
    /// holding the session's GET stream sends it the updates, whichever instance took the subscription.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
}

/// Keeps session records. Each method is one atomic operation (one round trip for a remote store).
pub trait SessionStore: Send + Sync + 'static {
    /// Stores (or replaces) a record, to live `ttl` after this write.
    fn put<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// The record, its life extended to `ttl` from now; `None` if it never existed, was deleted or
    /// expired.
    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>>;
    /// Extends a record's life to `ttl` from now; whether it exists.
    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Deletes a record; whether it existed.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
}

/// Session records in this process's memory, bounded by count (the oldest to expire goes first).
pub struct MemorySessionStore {
    map: Mutex<HashMap<String, (SessionRecord, Instant)>>,
    max: usize,
}

impl Default for MemorySessionStore {
    fn default() -> Self {
        MemorySessionStore::new(100_000)
    }
}

impl MemorySessionStore {
    /// A store that keeps at most `max` sessions.
    pub fn new(max: usize) -> Self {
        MemorySessionStore {
            map: Mutex::new(HashMap::new()),
            max: max.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (SessionRecord, Instant)>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SessionStore for MemorySessionStore {
    fn put<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let now = Instant::now();
        let mut m = self.lock();
        m.retain(|_, (_, until)| *until > now);
        if m.len() >= self.max && !m.contains_key(&record.id) {
            if let Some(oldest) = m
                .iter()
                .min_by_key(|(_, (_, u))| *u)
                .map(|(k, _)| k.clone())
            {
                m.remove(&oldest);
            }
        }
        m.insert(record.id.clone(), (record.clone(), now + ttl));
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        let now = Instant::now();
        let mut m = self.lock();
        let found = match m.get_mut(id) {
            Some((r, until)) if *until > now => {
                *until = now + ttl;
                Some(r.clone())
            }
            _ => None,
        };
        Box::pin(async { Ok(found) })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StoreError>> {
        let now = Instant::now();
        let found = match self.lock().get_mut(id) {
            Some((_, until)) if *until > now => {
                *until = now + ttl;
                true
            }
            _ => false,
        };
        Box::pin(async move { Ok(found) })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let found = self.lock().remove(id).is_some();
        Box::pin(async move { Ok(found) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> SessionRecord {
        SessionRecord {
            id: id.into(),
            protocol_version: "2025-06-18".into(),
            client_capabilities: Default::default(),
            client_info: Implementation::new("c", "1"),
            log_level: Some(LoggingLevel::Warning),
            principal: None,
            task_owner: format!("session:{id}"),
            subscriptions: vec!["file:///a".into()],
        }
    }

    #[tokio::test]
    async fn records_round_trip_expire_and_stay_bounded() {
        let s = MemorySessionStore::new(2);
        let long = Duration::from_secs(60);
        s.put(&record("a"), long).await.unwrap();
        assert_eq!(s.get("a", long).await.unwrap(), Some(record("a")));
        s.put(&record("b"), Duration::from_millis(1)).await.unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(s.get("b", long).await.unwrap(), None, "expired");
        assert!(!s.touch("b", long).await.unwrap());
        s.put(&record("c"), long).await.unwrap();
        s.put(&record("d"), Duration::from_secs(120)).await.unwrap();
        assert_eq!(s.lock().len(), 2, "bounded");
        assert!(s.delete("d").await.unwrap());
        assert!(!s.delete("d").await.unwrap());
        let json = serde_json::to_string(&record("x")).unwrap();
        assert!(
            json.contains("\"protocolVersion\":\"2025-06-18\""),
            "{json}"
        );
        assert!(json.contains("\"logLevel\":\"warning\""), "{json}");
    }
}
