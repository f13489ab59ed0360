//! The cancellation registry: one token per in-flight incoming request, keyed by request id, removed by
//! an RAII guard on every path out of the handler.

use crate::protocol::RequestId;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The cancellation tokens of the incoming requests in flight on one connection, by request id.
#[derive(Default)]
pub struct CancelRegistry {
    inflight: Mutex<HashMap<RequestId, CancellationToken, foldhash::fast::RandomState>>,
}

/// Removes its request from the registry when dropped.
pub struct CancelGuard {
    registry: Arc<CancelRegistry>,
    id: RequestId,
}

impl CancelRegistry {
    /// Registers a request; `None` when a request with the same id is still in flight.
    pub fn register(
        self: &Arc<Self>,
        id: RequestId,
        token: CancellationToken,
    ) -> Option<CancelGuard> {
        let mut map = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        match map.entry(id.clone()) {
            Entry::Occupied(_) => return None,
            Entry::Vacant(slot) => {
                slot.insert(token);
            }
        }
        Some(CancelGuard {
            registry: self.clone(),
            id,
        })
    }

    /// Cancels the request with this id, if it is in flight. Unknown ids are ignored.
    pub fn cancel(&self, id: &RequestId) -> bool {
        let map = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Cancels every in-flight request (the peer went away).
    pub fn cancel_all(&self) {
        let map = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        for token in map.values() {
            token.cancel();
        }
    }

    /// How many requests are in flight.
    pub fn len(&self) -> usize {
        self.inflight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    /// Whether no request is in flight.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        let mut map = self
            .registry
            .inflight
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        map.remove(&self.id);
    }
}
