//! The default task store: in this process's memory, bounded in tasks and in bytes.

use super::store::{StoreError, TaskPage, TaskRecord, TaskStore, TaskUpdate, Updated};
use crate::future::BoxFuture;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

/// The bounds of a [`MemoryTaskStore`]. A creation past any of them is refused with a clear error; a
/// task is never evicted before its lifetime has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks kept in all (running or finished, until their lifetime passes). Default 10 000.
    pub max_tasks: usize,
    /// Tasks kept per owner (a session, or an authenticated principal). Default 1 000.
    pub max_tasks_per_owner: usize,
    /// Tasks not yet finished per owner: how much work one client can start at once. Default 32.
    pub max_active_per_owner: usize,
    /// Bytes of records, results included. A result that would pass it is replaced by an error (the
    /// task fails instead of the store growing). Default 64 MiB.
    pub max_bytes: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            max_tasks: 10_000,
            max_tasks_per_owner: 1_000,
            max_active_per_owner: 32,
            max_bytes: 64 << 20,
        }
    }
}

struct Entry {
    record: TaskRecord,
    seq: u64,
    bytes: usize,
}

#[derive(Default)]
struct Mem {
    tasks: HashMap<String, Entry>,
    /// Each owner's tasks in creation order (`seq` → id): listing and counting.
    by_owner: HashMap<String, BTreeMap<u64, String>>,
    /// Each owner's unfinished tasks.
    active: HashMap<String, usize>,
    /// (expiry, seq) → id: purging without a scan.
    by_expiry: BTreeSet<(u64, u64, String)>,
    next_seq: u64,
    bytes: usize,
}

impl Mem {
    fn remove(&mut self, id: &str) -> Option<Entry> {
        let e = self.tasks.remove(id)?;
        if let Some(list) = self.by_owner.get_mut(&e.record.owner) {
            list.remove(&e.seq);
            if list.is_empty() {
                self.by_owner.remove(&e.record.owner);
            }
        }
        if !e.record.status.is_terminal() {
            self.dec_active(&e.record.owner.clone());
        }
        self.by_expiry
            .remove(&(e.record.expires_at_ms(), e.seq, e.record.id.clone()));
        self.bytes = self.bytes.saturating_sub(e.bytes);
        Some(e)
    }

    fn dec_active(&mut self, owner: &str) {
        if let Some(n) = self.active.get_mut(owner) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.active.remove(owner);
            }
        }
    }
}

/// Tasks in memory: the default store. Bounded by [`TaskLimits`]; lookups, updates and the purge of
/// expired tasks are O(log n).
pub struct MemoryTaskStore {
    limits: TaskLimits,
    mem: Mutex<Mem>,
}

impl MemoryTaskStore {
    /// An empty store within these limits.
    pub fn new(limits: TaskLimits) -> Self {
        MemoryTaskStore {
            limits,
            mem: Mutex::new(Mem::default()),
        }
    }

    /// The limits the store keeps to.
    pub fn limits(&self) -> TaskLimits {
        self.limits
    }

    /// How many tasks it holds.
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes its records take, by [`TaskRecord::approx_bytes`].
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Mem> {
        self.mem.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn create_now(&self, record: TaskRecord) -> Result<(), StoreError> {
        let l = self.limits;
        let mut m = self.lock();
        if m.tasks.contains_key(&record.id) {
            return Err(StoreError::Backend(format!(
                "task id {} exists already",
                record.id
            )));
        }
        let bytes = record.approx_bytes();
        let owned = m.by_owner.get(&record.owner).map_or(0, BTreeMap::len);
        let active = m.active.get(&record.owner).copied().unwrap_or(0);
        if m.tasks.len() >= l.max_tasks {
            return Err(StoreError::Full {
                what: "tasks kept by this server",
                limit: l.max_tasks,
            });
        }
        if owned >= l.max_tasks_per_owner {
            return Err(StoreError::Full {
                what: "tasks kept for one client",
                limit: l.max_tasks_per_owner,
            });
        }
        if !record.status.is_terminal() && active >= l.max_active_per_owner {
            return Err(StoreError::Full {
                what: "unfinished tasks of one client",
                limit: l.max_active_per_owner,
            });
        }
        if m.bytes + bytes > l.max_bytes {
            return Err(StoreError::Full {
                what: "bytes of tasks kept by this server",
                limit: l.max_bytes,
            });
        }
        let seq = m.next_seq;
        m.next_seq += 1;
        m.by_owner
            .entry(record.owner.clone())
            .or_default()
            .insert(seq, record.id.clone());
        if !record.status.is_terminal() {
            *m.active.entry(record.owner.clone()).or_default() += 1;
        }
        m.by_expiry
            .insert((record.expires_at_ms(), seq, record.id.clone()));
        m.bytes += bytes;
        m.tasks
            .insert(record.id.clone(), Entry { record, seq, bytes });
        Ok(())
    }

    fn update_now(&self, id: &str, update: TaskUpdate, now_ms: u64) -> Updated {
        let max_bytes = self.limits.max_bytes;
        let mut m = self.lock();
        let total = m.bytes;
        let Some(e) = m.tasks.get_mut(id) else {
            return Updated::Missing;
        };
        let was_active = !e.record.status.is_terminal();
        let mut next = e.record.clone();
        if !next.apply(update, now_ms) {
            return Updated::Task {
                record: Box::new(e.record.clone()),
                changed: false,
            };
        }
        let mut bytes = next.approx_bytes();
        if total - e.bytes + bytes > max_bytes {
            // The change does not fit: a task that finished fails instead, anything else is refused.
            let mut failed = e.record.clone();
            let len = bytes;
            failed.apply(
                TaskUpdate::Finish {
                    status: crate::protocol::TaskStatus::Failed,
                    outcome: super::store::TaskOutcome::Error(crate::protocol::ErrorObject::internal(
                        format!(
                            "Internal error: the task's result ({len} bytes) does not fit in the task store \
                             ({max_bytes} bytes for all tasks)"
                        ),
                    )),
                    message: Some("The result was too large to keep".into()),
                },
                now_ms,
            );
            if next.status.is_terminal() {
                next = failed;
                bytes = next.approx_bytes();
            } else {
                return Updated::Task {
                    record: Box::new(e.record.clone()),
                    changed: false,
                };
            }
        }
        let old = e.bytes;
        e.bytes = bytes;
        e.record = next;
        let record = e.record.clone();
        m.bytes = m.bytes - old + bytes;
        if was_active && record.status.is_terminal() {
            m.dec_active(&record.owner);
        }
        Updated::Task {
            record: Box::new(record),
            changed: true,
        }
    }

    fn list_now(
        &self,
        owner: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<TaskPage, StoreError> {
        let after = match cursor {
            None => None,
            Some(c) => Some(
                c.strip_prefix('s')
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or_else(|| StoreError::BadCursor(c.to_string()))?,
            ),
        };
        let m = self.lock();
        let Some(list) = m.by_owner.get(owner) else {
            return Ok(TaskPage::default());
        };
        let range = match after {
            None => list.range(..),
            Some(s) => list.range(s + 1..),
        };
        let mut tasks = Vec::new();
        let mut last = None;
        let mut more = false;
        for (seq, id) in range {
            if tasks.len() == limit.max(1) {
                more = true;
                break;
            }
            if let Some(e) = m.tasks.get(id) {
                tasks.push(e.record.clone());
                last = Some(*seq);
            }
        }
        Ok(TaskPage {
            tasks,
            next_cursor: more.then(|| format!("s{}", last.unwrap_or(0))),
        })
    }

    fn purge_now(&self, now_ms: u64) -> Vec<String> {
        let mut m = self.lock();
        let mut gone = Vec::new();
        while let Some((exp, _, id)) = m.by_expiry.first().cloned() {
            if exp > now_ms {
                break;
            }
            m.remove(&id);
            gone.push(id);
        }
        gone
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new(TaskLimits::default())
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let r = self.create_now(record);
        Box::pin(async move { r })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let r = self.lock().tasks.get(id).map(|e| e.record.clone());
        Box::pin(async move { Ok(r) })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Updated, StoreError>> {
        let r = self.update_now(id, update, now_ms);
        Box::pin(async move { Ok(r) })
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, StoreError>> {
        let r = self.list_now(owner, cursor, limit);
        Box::pin(async move { r })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let r = self.lock().remove(id).is_some();
        Box::pin(async move { Ok(r) })
    }

    fn purge_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        let r = self.purge_now(now_ms);
        Box::pin(async move { Ok(r) })
    }
}

#[cfg(test)]
mod tests {
    use super::super::store::{test_record as record, TaskOutcome};
    use super::*;
    use crate::protocol::TaskStatus;

    fn finish(store: &MemoryTaskStore, id: &str, text: &str) -> Updated {
        store.update_now(
            id,
            TaskUpdate::Finish {
                status: TaskStatus::Completed,
                outcome: TaskOutcome::Result(
                    serde_json::value::to_raw_value(&serde_json::json!({"text": text})).unwrap(),
                ),
                message: None,
            },
            5,
        )
    }

    #[test]
    fn every_bound_refuses_creation_with_its_name_and_frees_on_finish_or_purge() {
        let store = MemoryTaskStore::new(TaskLimits {
            max_tasks: 4,
            max_tasks_per_owner: 3,
            max_active_per_owner: 2,
            max_bytes: 1 << 20,
        });
        store.create_now(record("a1", "alice", 0, 100)).unwrap();
        store.create_now(record("a2", "alice", 0, 200)).unwrap();
        let e = store.create_now(record("a3", "alice", 0, 100)).unwrap_err();
        assert!(
            matches!(e, StoreError::Full { limit: 2, .. }),
            "two unfinished tasks per owner: {e}"
        );
        assert!(e
            .to_error()
            .message
            .contains("unfinished tasks of one client"));
        // Finishing one frees an active slot, not a kept one.
        finish(&store, "a1", "done");
        store.create_now(record("a3", "alice", 0, 100)).unwrap();
        let e = store.create_now(record("a4", "alice", 0, 100)).unwrap_err();
        assert!(matches!(e, StoreError::Full { limit: 3, .. }), "{e}");
        store.create_now(record("b1", "bob", 0, 100)).unwrap();
        let e = store.create_now(record("c1", "carol", 0, 100)).unwrap_err();
        assert!(matches!(e, StoreError::Full { limit: 4, .. }), "{e}");
        assert_eq!(store.len(), 4);
        // Purging what expired makes room again; what has not expired stays.
        let mut gone = store.purge_now(150);
        gone.sort();
        assert_eq!(gone, vec!["a1", "a3", "b1"]);
        assert_eq!(store.len(), 1);
        store.create_now(record("c1", "carol", 150, 100)).unwrap();
        assert_eq!(store.purge_now(10_000).len(), 2);
        assert!(store.is_empty());
        assert_eq!(store.bytes(), 0, "every byte is given back");
    }

    #[test]
    fn a_result_too_large_for_the_budget_fails_the_task_instead() {
        let store = MemoryTaskStore::new(TaskLimits {
            max_bytes: 2_000,
            ..TaskLimits::default()
        });
        store.create_now(record("a", "o", 0, 100)).unwrap();
        let big = "x".repeat(4_000);
        let Updated::Task { record, changed } = finish(&store, "a", &big) else {
            panic!("missing")
        };
        assert!(changed);
        assert_eq!(record.status, TaskStatus::Failed);
        let Some(TaskOutcome::Error(e)) = record.outcome else {
            panic!("no error")
        };
        assert!(e.message.contains("does not fit"), "{}", e.message);
        assert!(store.bytes() <= 2_000);
    }

    #[test]
    fn listing_pages_through_one_owner_in_creation_order() {
        let store = MemoryTaskStore::default();
        for i in 0..5 {
            store
                .create_now(record(&format!("t{i}"), "o", i, 1000))
                .unwrap();
        }
        store.create_now(record("x", "other", 0, 1000)).unwrap();
        let p1 = store.list_now("o", None, 2).unwrap();
        assert_eq!(
            p1.tasks.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["t0", "t1"]
        );
        // A task deleted between pages does not break the cursor.
        store.lock().remove("t2");
        let p2 = store.list_now("o", p1.next_cursor.as_deref(), 2).unwrap();
        assert_eq!(
            p2.tasks.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["t3", "t4"]
        );
        assert_eq!(p2.next_cursor, None);
        assert!(matches!(
            store.list_now("o", Some("bogus"), 2),
            Err(StoreError::BadCursor(_))
        ));
        assert!(store.list_now("nobody", None, 2).unwrap().tasks.is_empty());
    }
}
