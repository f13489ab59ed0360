//! Tasks in Redis: a JSON record per task, updated by compare-and-set, indexed per owner and by expiry,
//! and the lease of the instance that runs each (a heartbeat key per instance).

use super::{backend, millis, Heartbeat};
use crate::future::BoxFuture;
use crate::server::tasks::{StoreError, TaskPage, TaskRecord, TaskStore, TaskUpdate, Updated};
use crate::server::TaskLimits;
use redis::aio::ConnectionManager;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How long a record outlives its TTL in Redis, so that the sweeper (which also cleans the indexes)
/// deletes it first.
const GRACE: Duration = Duration::from_secs(300);

/// How often an update retries when another instance changed the record in between.
const CAS_ATTEMPTS: usize = 16;

// KEYS: task, owner index, expiry index, owner's unfinished tasks. ARGV: record, owner member,
// expiry (ms), PX, max per owner, max in all, id, now (ms), "1" if unfinished, max unfinished per owner.
// Unfinished tasks past their expiry never finish: they stop counting.
const CREATE: &str = r#"
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return -2 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -3 end
if ARGV[9] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[8])
  if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[10]) then return -4 end
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[7])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], 0, ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[7])
return 1
"#;

// KEYS: task, owner's unfinished tasks. ARGV: old record, new record, id, "1" if the new one finished.
const COMPARE_AND_SET: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  if ARGV[4] == '1' then redis.call('ZREM', KEYS[2], ARGV[3]) end
  return 1
end
return 0
"#;

// KEYS: task, owner's unfinished tasks, the runner's heartbeat. ARGV: the record as the caller saw it,
// the failed record, id, the Redis uptime (ms) a verdict needs. 2: the runner is alive (or Redis has
// not been up long enough to tell: after a restart, heartbeats that expired while it was down come back
// within one refresh); 0: the record changed since; 1: failed.
const FAIL_ORPHAN: &str = r#"
if redis.call('EXISTS', KEYS[3]) == 1 then return 2 end
local info = redis.call('INFO', 'server')
local up = tonumber(string.match(info, 'uptime_in_seconds:(%d+)')) or 0
if up * 1000 < tonumber(ARGV[4]) then return 2 end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
redis.call('ZREM', KEYS[2], ARGV[3])
return 1
"#;

/// [`TaskStore`] on Redis, bounded by [`TaskLimits::max_tasks`], [`TaskLimits::max_tasks_per_owner`]
/// and [`TaskLimits::max_active_per_owner`] (checked atomically with the insert; a task stops counting
/// as unfinished when it reaches a terminal status, is deleted, or passes its expiry).
/// [`TaskLimits::max_bytes`] is left to Redis's own `maxmemory`.
///
/// With a lease ([`RedisTaskStore::leased`]) the store names this instance in the records of the tasks
/// it runs and keeps its heartbeat (`<prefix>inst:<name>`); another instance that finds such a task
/// unfinished after the heartbeat lapsed fails it ([`TaskStore::update_orphan`]).
pub struct RedisTaskStore {
    conn: ConnectionManager,
    prefix: String,
    limits: TaskLimits,
    create: redis::Script,
    cas: redis::Script,
    fail_orphan: redis::Script,
    lease: Option<Lease>,
}

/// This instance's lease: its name and how long its heartbeat lives.
struct Lease {
    instance: String,
    ttl: Duration,
}

impl RedisTaskStore {
    /// Tasks under `<prefix>task:<id>`, without a lease: a task whose instance stops stays unfinished
    /// until its lifetime passes.
    pub fn new(conn: ConnectionManager, prefix: &str, limits: TaskLimits) -> Self {
        RedisTaskStore {
            conn,
            prefix: prefix.to_string(),
            limits,
            create: redis::Script::new(CREATE),
            cas: redis::Script::new(COMPARE_AND_SET),
            fail_orphan: redis::Script::new(FAIL_ORPHAN),
            lease: None,
        }
    }

    /// Tasks under `<prefix>task:<id>`, with a lease for this instance under a new random name: its
    /// first heartbeat is stored before this returns (so no other instance ever takes it for dead),
    /// then refreshed in the background every [`Heartbeat::every`] for as long as the store lives.
    /// Needs a Tokio runtime.
    pub async fn leased(
        conn: ConnectionManager,
        prefix: &str,
        limits: TaskLimits,
        heartbeat: Heartbeat,
    ) -> Result<Arc<Self>, StoreError> {
        let mut store = RedisTaskStore::new(conn, prefix, limits);
        store.lease = Some(Lease {
            instance: crate::scale::random_name(),
            ttl: heartbeat.ttl,
        });
        store.beat().await?;
        let store = Arc::new(store);
        heartbeat.keep(Arc::downgrade(&store));
        Ok(store)
    }

    /// Stores this instance's heartbeat for the lease's TTL (nothing without a lease).
    pub(super) async fn beat(&self) -> Result<(), StoreError> {
        let Some(lease) = &self.lease else {
            return Ok(());
        };
        redis::cmd("SET")
            .arg(self.heartbeat_key(&lease.instance))
            .arg(std::process::id())
            .arg("PX")
            .arg(millis(lease.ttl))
            .exec_async(&mut self.conn.clone())
            .await
            .map_err(backend)
    }

    fn heartbeat_key(&self, instance: &str) -> String {
        format!("{}inst:{instance}", self.prefix)
    }

    fn task_key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn owner_key(&self, owner: &str) -> String {
        format!("{}towner:{owner}", self.prefix)
    }

    fn active_key(&self, owner: &str) -> String {
        format!("{}tactive:{owner}", self.prefix)
    }

    fn expiry_key(&self) -> String {
        format!("{}texp", self.prefix)
    }

    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, StoreError> {
        let raw: Option<String> = redis::cmd("GET")
            .arg(self.task_key(id))
            .query_async(&mut self.conn.clone())
            .await
            .map_err(backend)?;
        raw.map(|s| {
            let r = serde_json::from_str(&s)
                .map_err(|e| StoreError::Backend(format!("task record {id}: {e}")))?;
            Ok((s, r))
        })
        .transpose()
    }
}

/// The owner index's member of a task: ordered by creation time, then id.
fn member(r: &TaskRecord) -> String {
    format!("{:020}:{}", r.created_at_ms, r.id)
}

fn to_json(r: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(r).map_err(|e| StoreError::Backend(format!("task record: {e}")))
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let json = to_json(&record)?;
            let px = millis(Duration::from_millis(record.ttl_ms) + GRACE);
            let n: i64 = self
                .create
                .key(self.task_key(&record.id))
                .key(self.owner_key(&record.owner))
                .key(self.expiry_key())
                .key(self.active_key(&record.owner))
                .arg(json)
                .arg(member(&record))
                .arg(record.expires_at_ms())
                .arg(px)
                .arg(self.limits.max_tasks_per_owner)
                .arg(self.limits.max_tasks)
                .arg(&record.id)
                .arg(record.created_at_ms)
                .arg(if record.status.is_terminal() {
                    "0"
                } else {
                    "1"
                })
                .arg(self.limits.max_active_per_owner)
                .invoke_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            match n {
                1 => Ok(()),
                -1 => Err(StoreError::Backend(format!(
                    "task {} exists already",
                    record.id
                ))),
                -2 => Err(StoreError::Full {
                    what: "tasks",
                    limit: self.limits.max_tasks,
                }),
                -4 => Err(StoreError::Full {
                    what: "unfinished tasks of one client",
                    limit: self.limits.max_active_per_owner,
                }),
                _ => Err(StoreError::Full {
                    what: "tasks per owner",
                    limit: self.limits.max_tasks_per_owner,
                }),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move { Ok(self.read(id).await?.map(|(_, r)| r)) })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Updated, StoreError>> {
        Box::pin(async move {
            for _ in 0..CAS_ATTEMPTS {
                let Some((old, mut record)) = self.read(id).await? else {
                    return Ok(Updated::Missing);
                };
                if !record.apply(update.clone(), now_ms) {
                    return Ok(Updated::Task {
                        record: Box::new(record),
                        changed: false,
                    });
                }
                let set: i64 = self
                    .cas
                    .key(self.task_key(id))
                    .key(self.active_key(&record.owner))
                    .arg(old)
                    .arg(to_json(&record)?)
                    .arg(id)
                    .arg(if record.status.is_terminal() {
                        "1"
                    } else {
                        "0"
                    })
                    .invoke_async(&mut self.conn.clone())
                    .await
                    .map_err(backend)?;
                if set == 1 {
                    return Ok(Updated::Task {
                        record: Box::new(record),
                        changed: true,
                    });
                }
            }
            Err(StoreError::Backend(format!(
                "task {id}: changed concurrently {CAS_ATTEMPTS} times in a row"
            )))
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, StoreError>> {
        Box::pin(async move {
            let start = match cursor {
                None => "-".to_string(),
                Some(c) => {
                    let ok = c.len() > 21
                        && c.as_bytes()[20] == b':'
                        && c[..20].bytes().all(|b| b.is_ascii_digit())
                        && c[21..].bytes().all(|b| b.is_ascii_hexdigit());
                    if !ok {
                        return Err(StoreError::BadCursor(c.to_string()));
                    }
                    format!("({c}")
                }
            };
            let limit = limit.max(1);
            let mut conn = self.conn.clone();
            let members: Vec<String> = redis::cmd("ZRANGEBYLEX")
                .arg(self.owner_key(owner))
                .arg(start)
                .arg("+")
                .arg("LIMIT")
                .arg(0)
                .arg(limit + 1)
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            let more = members.len() > limit;
            let members = &members[..members.len().min(limit)];
            let mut page = TaskPage::default();
            if members.is_empty() {
                return Ok(page);
            }
            let keys: Vec<String> = members
                .iter()
                .filter_map(|m| m.split_once(':').map(|(_, id)| self.task_key(id)))
                .collect();
            let raws: Vec<Option<String>> = redis::cmd("MGET")
                .arg(&keys)
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            for raw in raws.into_iter().flatten() {
                match serde_json::from_str::<TaskRecord>(&raw) {
                    Ok(r) if r.owner == owner => page.tasks.push(r),
                    Ok(_) => {}
                    Err(e) => return Err(StoreError::Backend(format!("task record: {e}"))),
                }
            }
            if more {
                page.next_cursor = members.last().cloned();
            }
            Ok(page)
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let record = self.read(id).await?;
            let mut pipe = redis::pipe();
            pipe.cmd("ZREM").arg(self.expiry_key()).arg(id).ignore();
            if let Some((_, r)) = &record {
                pipe.cmd("DEL").arg(self.task_key(id)).ignore();
                pipe.cmd("ZREM")
                    .arg(self.owner_key(&r.owner))
                    .arg(member(r))
                    .ignore();
                pipe.cmd("ZREM")
                    .arg(self.active_key(&r.owner))
                    .arg(id)
                    .ignore();
            }
            pipe.exec_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            Ok(record.is_some())
        })
    }

    fn instance(&self) -> Option<&str> {
        self.lease.as_ref().map(|l| l.instance.as_str())
    }

    fn update_orphan<'a>(
        &'a self,
        seen: &'a TaskRecord,
        update: TaskUpdate,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<Updated>, StoreError>> {
        Box::pin(async move {
            let (Some(lease), Some(runner)) = (&self.lease, seen.instance.as_deref()) else {
                return Ok(None);
            };
            let id = seen.id.as_str();
            // The first attempt takes the caller's record (serialized as it was stored); a changed one
            // is read again.
            let mut old = (to_json(seen)?, seen.clone());
            for _ in 0..CAS_ATTEMPTS {
                let (raw, mut record) = old;
                if record.instance.as_deref() != Some(runner)
                    || !record.apply(update.clone(), now_ms)
                {
                    return Ok(Some(Updated::Task {
                        record: Box::new(record),
                        changed: false,
                    }));
                }
                let n: i64 = self
                    .fail_orphan
                    .key(self.task_key(id))
                    .key(self.active_key(&record.owner))
                    .key(self.heartbeat_key(runner))
                    .arg(raw)
                    .arg(to_json(&record)?)
                    .arg(id)
                    .arg(millis(lease.ttl))
                    .invoke_async(&mut self.conn.clone())
                    .await
                    .map_err(backend)?;
                match n {
                    2 => return Ok(None),
                    1 => {
                        return Ok(Some(Updated::Task {
                            record: Box::new(record),
                            changed: true,
                        }))
                    }
                    _ => match self.read(id).await? {
                        None => return Ok(Some(Updated::Missing)),
                        Some(again) => old = again,
                    },
                }
            }
            Err(StoreError::Backend(format!(
                "task {id}: changed concurrently {CAS_ATTEMPTS} times in a row"
            )))
        })
    }

    fn purge_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            let ids: Vec<String> = redis::cmd("ZRANGEBYSCORE")
                .arg(self.expiry_key())
                .arg("-inf")
                .arg(now_ms)
                .arg("LIMIT")
                .arg(0)
                .arg(512)
                .query_async(&mut self.conn.clone())
                .await
                .map_err(backend)?;
            for id in &ids {
                self.delete(id).await?;
            }
            Ok(ids)
        })
    }
}

/// The heartbeat a store keeps fresh (its settings are `heartbeat.rs`'s).
impl Heartbeat {
    /// Refreshes `store`'s heartbeat every `self.every` until the store is dropped. A failed refresh
    /// is logged once, and its recovery too.
    pub(super) fn keep(self, store: Weak<RedisTaskStore>) {
        let every = self.every.max(Duration::from_millis(10));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // The first tick is now, and the first heartbeat is stored already.
            tick.tick().await;
            let mut failing = false;
            loop {
                tick.tick().await;
                let Some(store) = store.upgrade() else { return };
                match store.beat().await {
                    Ok(()) if failing => {
                        tracing::info!("task lease: heartbeat stored again");
                        failing = false;
                    }
                    Ok(()) => {}
                    Err(e) if !failing => {
                        tracing::warn!(error = %e, ttl_ms = self.ttl.as_millis() as u64,
                            "task lease: heartbeat not stored; past its TTL other instances fail this \
                             instance's tasks");
                        failing = true;
                    }
                    Err(_) => {}
                }
            }
        });
    }
}
