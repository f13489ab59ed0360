//! The service's Streamable HTTP sessions: found by `Mcp-Session-Id`, created at `initialize`, restored
//! from a shared store (and saved to it), kept alive across instances, and reaped when idle; and a
//! resumed stream read from another instance's log.

use super::answers::{plain, rpc_error, store_unavailable};
use super::headers::SESSION_HEADER;
use super::service::StreamableHttpService;
use super::session::HttpSession;
use crate::protocol::ErrorObject;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use std::sync::Arc;
use std::time::Duration;

impl StreamableHttpService {
    pub(super) async fn session(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Response> {
        let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
            return Err(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::new(-32000, "Bad Request: Mcp-Session-Id header is required"),
            ));
        };
        let not_found = || {
            rpc_error(
                StatusCode::NOT_FOUND,
                None,
                ErrorObject::new(-32001, "Session not found"),
            )
        };
        let local = self
            .inner
            .sessions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned();
        match local {
            Some(s) if !s.peer.is_closed() => {
                self.keep_shared_alive(&s);
                return Ok(s);
            }
            Some(_) => return Err(not_found()),
            None => {}
        }
        let Some(shared) = &self.inner.config.shared else {
            return Err(not_found());
        };
        if self.inner.shutdown.is_cancelled() {
            return Err(plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            ));
        }
        // Another instance began this session: take it over from the shared record.
        let record = match shared.sessions.get(id, shared.ttl).await {
            Ok(Some(r)) => r,
            Ok(None) => return Err(not_found()),
            Err(e) => return Err(store_unavailable(&e)),
        };
        if record.principal != self.principal(headers) {
            // Someone else's session looks like no session at all.
            return Err(not_found());
        }
        let fresh = self.new_session(record.principal.clone(), Some(&record));
        let s = self
            .inner
            .sessions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry(record.id.clone())
            .or_insert_with(|| fresh.clone())
            .clone();
        if !Arc::ptr_eq(&s, &fresh) {
            // A concurrent request restored it first.
            fresh.peer.close("restored twice".to_string());
        }
        tracing::debug!(session = %s.id, "session restored from the shared store");
        Ok(s)
    }

    /// Extends the shared record's life, off the request's path, at most every quarter of its TTL.
    pub(super) fn keep_shared_alive(&self, s: &Arc<HttpSession>) {
        let Some(shared) = &self.inner.config.shared else {
            return;
        };
        let now = s.age_ms();
        let quarter = (shared.ttl.as_millis() as u64 / 4).max(1);
        let last = s.store_touched.load(std::sync::atomic::Ordering::Relaxed);
        if now.saturating_sub(last) < quarter
            || s.store_touched
                .compare_exchange(
                    last,
                    now,
                    std::sync::atomic::Ordering::Relaxed,
                    std::sync::atomic::Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let store = shared.sessions.clone();
        let (id, ttl) = (s.id.clone(), shared.ttl);
        tokio::spawn(async move {
            if let Err(e) = store.touch(&id, ttl).await {
                tracing::warn!(error = %e, session = %id, "shared session record not refreshed");
            }
        });
    }

    /// Writes the session's record to the shared store (after `initialize`, after a change).
    pub(super) async fn save_shared(
        &self,
        s: &HttpSession,
    ) -> Result<(), crate::scale::StoreError> {
        let (Some(shared), Some(state)) = (&self.inner.config.shared, &s.state) else {
            return Ok(());
        };
        let Some(record) = state.record(&s.id) else {
            return Ok(());
        };
        shared.sessions.put(&record, shared.ttl).await
    }

    /// A new session (`restore`: one that began on another instance, as its record says).
    pub(super) fn new_session(
        &self,
        principal: Option<String>,
        restore: Option<&crate::scale::SessionRecord>,
    ) -> Arc<HttpSession> {
        let id = match restore {
            Some(r) => r.id.clone(),
            None if self.inner.config.stateful => uuid::Uuid::new_v4().simple().to_string(),
            None => String::new(),
        };
        let (peer, rx) = crate::connection::Peer::with_budget(
            self.inner.server.connection_config().clone(),
            self.inner.budget.clone(),
        );
        let shared = self
            .inner
            .config
            .shared
            .as_ref()
            .filter(|_| self.inner.config.stateful);
        let s = match shared {
            Some(stores) => {
                // The session's requests to the client are counted per instance: the prefix keeps
                // their ids apart, since the answer may reach every instance that serves the session.
                peer.set_id_prefix(&format!("{}-", self.inner.origin));
                let (state, handler) = self
                    .inner
                    .server
                    .session_with_state(peer.clone(), principal);
                if let Some(r) = restore {
                    state.restore(r);
                }
                HttpSession::new(
                    id,
                    peer,
                    handler,
                    self.inner.config.replay_buffer,
                    Some((state, stores)),
                )
            }
            None => {
                let (state, handler) = self
                    .inner
                    .server
                    .session_with_state(peer.clone(), principal);
                if !self.inner.config.stateful {
                    // Each POST stands alone: no session a handler could keep state for.
                    state.set_one_request();
                }
                HttpSession::new(id, peer, handler, self.inner.config.replay_buffer, None)
            }
        };
        s.spawn_router(rx);
        s.touch();
        if self.inner.config.stateful {
            self.start_reaper();
        }
        s
    }

    pub(super) fn start_reaper(&self) {
        let Some(limit) = self.inner.config.session_idle_timeout else {
            return;
        };
        self.inner.reaper.call_once(|| {
            let weak = Arc::downgrade(&self.inner);
            let every = (limit / 4).clamp(Duration::from_millis(10), Duration::from_secs(30));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(inner) = weak.upgrade() else { return };
                    if inner.shutdown.is_cancelled() {
                        return;
                    }
                    let expired: Vec<Arc<HttpSession>> = {
                        let mut map = inner.sessions.write().unwrap_or_else(|e| e.into_inner());
                        let ids: Vec<String> = map
                            .iter()
                            .filter(|(_, s)| {
                                s.peer.is_closed()
                                    || (s.busy.load(std::sync::atomic::Ordering::Relaxed) == 0
                                        && !s.has_live_get()
                                        && s.idle_for() > limit)
                            })
                            .map(|(k, _)| k.clone())
                            .collect();
                        ids.iter().filter_map(|k| map.remove(k)).collect()
                    };
                    for s in expired {
                        tracing::debug!(session = %s.id, "session expired");
                        if inner.config.shared.is_some() {
                            // Only this instance's copy: the session lives on in the shared store
                            // (until its own TTL), and so do its tasks.
                            s.peer.close("the session's local copy expired".to_string());
                            s.end_streams();
                        } else {
                            s.close("the session expired");
                        }
                    }
                }
            });
        });
    }
}

/// How often a stream resumed from another instance's log reads it again.
pub(super) const TAIL_POLL: Duration = Duration::from_millis(100);

/// A resumed stream whose log stays still this long ends (the client resumes again if it wants).
pub(super) const TAIL_IDLE: Duration = Duration::from_secs(120);

/// The events another instance writes to a stream's log after position `last`, as they come, until
/// the stream finishes, stays still for [`TAIL_IDLE`], or the store fails.
pub(super) fn tail_log(
    store: Arc<dyn crate::scale::EventStore>,
    session: String,
    key: u64,
    last: u64,
) -> impl futures_util::Stream<Item = Bytes> + Send + 'static {
    struct Tail {
        store: Arc<dyn crate::scale::EventStore>,
        session: String,
        last: u64,
        queue: std::collections::VecDeque<Bytes>,
        since: std::time::Instant,
        done: bool,
    }
    let t = Tail {
        store,
        session,
        last,
        queue: Default::default(),
        since: std::time::Instant::now(),
        done: false,
    };
    futures_util::stream::unfold(t, move |mut t| async move {
        loop {
            if let Some(b) = t.queue.pop_front() {
                return Some((b, t));
            }
            if t.done || t.since.elapsed() > TAIL_IDLE {
                return None;
            }
            tokio::time::sleep(TAIL_POLL).await;
            match t.store.after(&t.session, key, t.last).await {
                Ok(r) => {
                    for (n, b) in r.events {
                        t.last = t.last.max(n);
                        t.queue.push_back(Bytes::from(b));
                    }
                    if !t.queue.is_empty() {
                        t.since = std::time::Instant::now();
                    }
                    t.done = r.finished;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "a resumed stream's log could not be read; ending it");
                    return None;
                }
            }
        }
    })
}
