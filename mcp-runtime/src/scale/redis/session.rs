//! Session records in Redis: one JSON value per session, its TTL refreshed by every read.

use super::{backend, millis};
use crate::future::BoxFuture;
use crate::scale::{SessionRecord, SessionStore, StoreError};
use redis::aio::ConnectionManager;
use std::time::Duration;

/// [`SessionStore`] on Redis.
pub struct RedisSessionStore {
    conn: ConnectionManager,
    prefix: String,
}

impl RedisSessionStore {
    /// Records under `<prefix>session:<id>`.
    pub fn new(conn: ConnectionManager, prefix: &str) -> Self {
        RedisSessionStore {
            conn,
            prefix: format!("{prefix}session:"),
        }
    }
}

impl SessionStore for RedisSessionStore {
    fn put<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(record)
                .map_err(|e| StoreError::Backend(format!("session record: {e}")))?;
            redis::cmd("SET")
                .arg(format!("{}{}", self.prefix, record.id))
                .arg(json)
                .arg("PX")
                .arg(millis(ttl))
                .exec_async(&mut self.conn.clone())
                .await
                .map_err(backend)
        })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async move {
            let raw: Option<String> = redis::cmd("GETEX")
                .arg(format!("{}{id}", self.prefix))
                .arg("PX")
                .arg(millis(ttl))
                .query_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            raw.map(|s| {
                serde_json::from_str(&s)
                    .map_err(|e| StoreError::Backend(format!("session record {id}: {e}")))
            })
            .transpose()
        })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let n: i64 = redis::cmd("PEXPIRE")
                .arg(format!("{}{id}", self.prefix))
                .arg(millis(ttl))
                .query_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            Ok(n == 1)
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let n: i64 = redis::cmd("DEL")
                .arg(format!("{}{id}", self.prefix))
                .query_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            Ok(n == 1)
        })
    }
}
