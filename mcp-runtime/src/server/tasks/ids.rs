//! Task ids and the key a session's own tasks are filed under: below the session's state, which holds
//! the key, and the task machinery, which files tasks under it.

use super::store;
use std::sync::OnceLock;

/// What a session keeps for its tasks: the key its session-owned tasks are filed under, made on first use.
#[derive(Default)]
pub(crate) struct SessionTasks {
    pub(super) key: OnceLock<String>,
}

impl SessionTasks {
    pub(crate) fn key(&self) -> &str {
        self.key.get_or_init(|| format!("session:{}", random_id()))
    }

    /// Files the session's tasks under `key` (a session restored from a shared store keeps its tasks);
    /// ignored once the key exists.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_key(&self, key: String) {
        let _ = self.key.set(key);
    }
}

/// 128 random bits, hex.
pub(crate) fn random_id() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No OS randomness: fall back to a unique, if guessable, id (logged: tasks are then weaker).
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        tracing::warn!("no OS randomness for a task id");
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        b[..8].copy_from_slice(&n.to_be_bytes());
        b[8..].copy_from_slice(&store::now_ms().to_be_bytes());
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}
