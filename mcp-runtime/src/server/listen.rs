//! `subscriptions/listen` (2026-07-28): long-lived requests that receive the change notifications they
//! asked for (tool, prompt and resource list changes; updates of given resources), each tagged with the
//! listen request's id. They replace the GET stream, `resources/subscribe` and list-changed delivery of
//! the handshake era; the server's change events reach both.

use crate::connection::Peer;
use crate::protocol::*;
use std::sync::{Arc, Mutex, Weak};

/// One open listen request.
pub(crate) struct Listener {
    pub id: RequestId,
    pub filter: SubscriptionFilter,
    pub peer: Peer,
}

/// The open listen requests of a server.
#[derive(Default)]
pub(crate) struct Listeners {
    open: Mutex<Vec<Weak<Listener>>>,
}

/// Unregisters a listener when its request ends, however it ends.
pub(crate) struct Registration(#[allow(dead_code)] Arc<Listener>);

impl Listeners {
    pub(crate) fn add(&self, l: Listener) -> Registration {
        let l = Arc::new(l);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|w| w.strong_count() > 0);
        open.push(Arc::downgrade(&l));
        Registration(l)
    }

    /// How many listen requests are open.
    pub(crate) fn count(&self) -> usize {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.iter().filter(|w| w.strong_count() > 0).count()
    }

    /// Sends `method` to every listener `wants`, with its subscription id in `_meta`. `params` are the
    /// notification's own params (an object) or none.
    pub(crate) fn notify(
        &self,
        method: &str,
        params: Option<&serde_json::Value>,
        wants: impl Fn(&SubscriptionFilter) -> bool,
    ) {
        let targets: Vec<Arc<Listener>> = {
            let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
            open.iter()
                .filter_map(Weak::upgrade)
                .filter(|l| wants(&l.filter))
                .collect()
        };
        for l in targets {
            let mut p = match params {
                Some(serde_json::Value::Object(o)) => o.clone(),
                _ => JsonObject::new(),
            };
            tag(&mut p, &l.id);
            if let Ok(raw) = serde_json::value::to_raw_value(&p) {
                l.peer.try_notify(method, Some(&raw), Some(l.id.clone()));
            }
        }
    }
}

/// Puts the subscription id into a notification's (or result's) `_meta`.
pub(crate) fn tag(params: &mut JsonObject, id: &RequestId) {
    let meta = params
        .entry("_meta")
        .or_insert_with(|| serde_json::Value::Object(JsonObject::new()));
    if let serde_json::Value::Object(m) = meta {
        m.insert(
            crate::protocol::meta::keys::SUBSCRIPTION_ID.into(),
            serde_json::to_value(id).unwrap_or(serde_json::Value::Null),
        );
    }
}
