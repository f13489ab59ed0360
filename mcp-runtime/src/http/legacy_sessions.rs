//! The open sessions of the legacy HTTP+SSE transport (`legacy.rs`), by the id its `endpoint` event gave.

use crate::connection::{Handler, Peer};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub(crate) struct LegacySession {
    pub(super) peer: Peer,
    pub(super) handler: Arc<dyn Handler>,
}

#[derive(Default)]
pub(crate) struct LegacySessions {
    map: Mutex<HashMap<String, Arc<LegacySession>>>,
}

impl LegacySessions {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<LegacySession>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn close_all(&self) {
        for (_, s) in self.lock().drain() {
            s.peer.close("the server is shutting down".into());
            s.handler.closed();
        }
    }
}
