//! One connection to an upstream and the downstream calls it is serving now, through which the upstream's
//! own requests (sampling, elicitation, roots) and log messages reach the downstream client. Below both
//! `upstream.rs` (the shared connection) and `sessions.rs` (a session's own).

use crate::secrets::Secrets;
use crate::upstream_errors::rpc_error;
use futures_util::future::BoxFuture;
use mcp_runtime::client::{
    CallHandlers, Client, ElicitationHandler, RootsHandler, SamplingHandler,
};
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ErrorObject,
    ListRootsResult,
};
use mcp_runtime::{Context, Error};
use std::sync::{Arc, Mutex};

/// The connection a request goes through, with the calls in flight on it.
pub struct Link {
    /// The client of the connection.
    pub client: Arc<Client>,
    /// Where the connection's requests and log messages that name no call find their caller.
    pub callers: Callers,
    /// What is taken out of everything relayed from it: its upstream's secrets, and a per-user
    /// connection's own credentials (see [`crate::users`]).
    pub secrets: Arc<Secrets>,
}

/// The downstream calls one upstream connection is serving now, newest last. An upstream's sampling,
/// elicitation or roots request that the wire ties to a call (its POST's answer stream, its task, its
/// 2026 `input_required` result) goes to that call; one that names no call (over stdio or legacy SSE
/// the wire carries no association) goes to the newest call in flight on that connection, but only
/// while every call in flight comes from one downstream session; a log message goes to the newest call
/// unless a call of another session overlapped it at any time (a log is read after it arrived, so the
/// calls in flight when it is read may not be those it was sent among). A shared child never hands one
/// session's message to another: with calls of several sessions in flight, such a request is refused
/// and such a log message is not relayed (a per-session upstream, see [`crate::sessions`], never has
/// that ambiguity).
#[derive(Clone, Default)]
pub struct Callers {
    live: Arc<Mutex<Live>>,
}

/// The calls in flight on one connection, oldest first (calls mostly end in the order they began, so a
/// finished call leaves near the front of the queue, where removing it moves little).
#[derive(Default)]
struct Live {
    calls: std::collections::VecDeque<Caller>,
    next: u64,
    /// How many calls in flight each downstream session has (`None`: calls without a session).
    sessions: Vec<(Option<u64>, usize)>,
    /// Every call numbered up to this one was in flight while a call of another session was: a call
    /// that came in while calls of another session (or, having no session, any call) were in flight
    /// marks itself and every call before it.
    mixed_up_to: Option<u64>,
}

/// One call in [`Callers`]: its number, its downstream session (`None`: it has none, so it is alone in
/// it) and its context.
struct Caller {
    id: u64,
    session: Option<u64>,
    ctx: Context,
}

impl Live {
    /// Whether every call in flight comes from one downstream session (that has a session).
    fn one_session(&self) -> bool {
        match self.sessions.as_slice() {
            [] => true,
            [(session, _)] => session.is_some() || self.calls.len() == 1,
            _ => false,
        }
    }

    fn is_mixed(&self, id: u64) -> bool {
        self.mixed_up_to.is_some_and(|m| id <= m)
    }
}

/// Removes a call from [`Callers`] when it ends, on every path.
pub struct CallerGuard {
    callers: Callers,
    id: u64,
}

impl Callers {
    /// Records a call in flight until the guard drops.
    pub fn enter(&self, ctx: Context) -> CallerGuard {
        let session = ctx.session().map(|s| s.id());
        let mut live = self.lock();
        // Numbered under the lock: the queue stays in order of id, for the guard's binary search.
        let id = live.next;
        live.next += 1;
        let other_session = !live.calls.is_empty()
            && (session.is_none() || live.sessions.iter().any(|(s, _)| *s != session));
        if other_session {
            live.mixed_up_to = Some(id);
        }
        match live.sessions.iter_mut().find(|(s, _)| *s == session) {
            Some((_, n)) => *n += 1,
            None => live.sessions.push((session, 1)),
        }
        live.calls.push_back(Caller { id, session, ctx });
        drop(live);
        CallerGuard {
            callers: self.clone(),
            id,
        }
    }

    /// The newest downstream call in flight, when every call in flight comes from one session.
    pub fn newest(&self) -> Option<Context> {
        let live = self.lock();
        if !live.one_session() {
            return None;
        }
        live.calls.back().map(|c| c.ctx.clone())
    }

    /// How many calls are in flight.
    pub fn len(&self) -> usize {
        self.lock().calls.len()
    }

    /// Whether no call is in flight.
    pub fn is_empty(&self) -> bool {
        self.lock().calls.is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl CallerGuard {
    /// Whether this call is the one a log message goes to (see [`Callers`]).
    pub fn is_newest(&self) -> bool {
        let live = self.callers.lock();
        live.calls.back().is_some_and(|c| c.id == self.id) && !live.is_mixed(self.id)
    }
}

impl Drop for CallerGuard {
    fn drop(&mut self) {
        let mut live = self.callers.lock();
        let Ok(i) = live.calls.binary_search_by_key(&self.id, |c| c.id) else {
            return;
        };
        let Some(gone) = live.calls.remove(i) else {
            return;
        };
        if let Some(at) = live.sessions.iter().position(|(s, _)| *s == gone.session) {
            live.sessions[at].1 -= 1;
            if live.sessions[at].1 == 0 {
                live.sessions.swap_remove(at);
            }
        }
    }
}

/// Answers an upstream's sampling, elicitation and roots requests by asking a downstream client; a
/// 2026-07-28 input request keeps its key across the hop.
#[derive(Clone)]
pub(crate) enum Relay {
    /// The call the request belongs to (the runtime client routed it: see `CallHandlers`).
    Call(Context),
    /// A request that names no call (stdio and legacy SSE upstreams): the newest call in flight.
    Newest(Callers),
}

impl Relay {
    fn caller(&self, what: &str) -> Result<Context, ErrorObject> {
        match self {
            Relay::Call(ctx) => Ok(ctx.clone()),
            Relay::Newest(callers) => callers.newest().ok_or_else(|| no_caller(what)),
        }
    }
}

/// The handlers that send the upstream's requests belonging to one call to that call's downstream
/// client.
pub fn call_handlers(ctx: &Context) -> CallHandlers {
    let relay = Arc::new(Relay::Call(ctx.clone()));
    CallHandlers {
        sampling: Some(relay.clone()),
        elicitation: Some(relay.clone()),
        roots: Some(relay),
    }
}

fn downstream(e: Error) -> ErrorObject {
    rpc_error(e, "the downstream client")
}

impl SamplingHandler for Relay {
    fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        let ctx = self.caller("sampling");
        Box::pin(async move { ctx?.create_message(params).await.map_err(downstream) })
    }
    fn create_message_keyed(
        &self,
        key: &str,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        let ctx = self.caller("sampling");
        let key = key.to_string();
        Box::pin(async move {
            ctx?.input(&key)
                .create_message(params)
                .await
                .map_err(downstream)
        })
    }
}

impl ElicitationHandler for Relay {
    fn elicit(
        &self,
        params: ElicitParams,
    ) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        let ctx = self.caller("elicitation");
        Box::pin(async move { ctx?.elicit(params).await.map_err(downstream) })
    }
    fn elicit_keyed(
        &self,
        key: &str,
        params: ElicitParams,
    ) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        let ctx = self.caller("elicitation");
        let key = key.to_string();
        Box::pin(async move { ctx?.input(&key).elicit(params).await.map_err(downstream) })
    }
}

impl RootsHandler for Relay {
    fn list_roots(&self) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        let ctx = self.caller("roots");
        Box::pin(async move { ctx?.list_roots().await.map_err(downstream) })
    }
    fn list_roots_keyed(
        &self,
        key: &str,
    ) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        let ctx = self.caller("roots");
        let key = key.to_string();
        Box::pin(async move { ctx?.input(&key).list_roots().await.map_err(downstream) })
    }
}

fn no_caller(what: &str) -> ErrorObject {
    ErrorObject::internal(format!(
        "mcp-gateway: cannot tell which downstream call this {what} request belongs to (none is in flight, \
         or calls of several downstream sessions are: give the upstream \"sessions\": \"per-session\")"
    ))
}
