//! What the user registers to answer the server: sampling, elicitation and roots. The same handlers answer
//! both eras: a handshake-era server's requests (`sampling/createMessage` arriving on the connection) and a
//! 2026-07-28 server's input requests (inside an `input_required` result, see [`super::mrtr`]).

use super::cache::ResultCache;
use super::listen::Subscriptions;
use super::ServerNotification;
use crate::connection::{Handler, Reply, RequestIn};
use crate::framing::{parse_params, to_raw};
use crate::future::BoxFuture;
use crate::protocol::*;
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Answers `sampling/createMessage`. Implemented for `Fn(CreateMessageParams) -> impl Future` closures.
pub trait SamplingHandler: Send + Sync + 'static {
    /// Samples the client's LLM. An `Err` is sent as the JSON-RPC error of the request (or of the input
    /// response).
    fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>>;

    /// The same for a 2026-07-28 input request, with the key the server gave it (a gateway passes the
    /// key on to its own client). Defaults to [`SamplingHandler::create_message`].
    fn create_message_keyed(
        &self,
        key: &str,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        let _ = key;
        self.create_message(params)
    }
}

impl<F, Fut> SamplingHandler for F
where
    F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
{
    fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        Box::pin(self(params))
    }
}

/// Answers `elicitation/create`. Implemented for `Fn(ElicitParams) -> impl Future` closures.
pub trait ElicitationHandler: Send + Sync + 'static {
    /// Asks the user. An `Err` is sent as the JSON-RPC error of the request; a refusal is `Ok` with `decline`
    /// or `cancel`.
    fn elicit(&self, params: ElicitParams)
        -> BoxFuture<'static, Result<ElicitResult, ErrorObject>>;

    /// The same for a 2026-07-28 input request, with its key. Defaults to [`ElicitationHandler::elicit`].
    fn elicit_keyed(
        &self,
        key: &str,
        params: ElicitParams,
    ) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        let _ = key;
        self.elicit(params)
    }
}

impl<F, Fut> ElicitationHandler for F
where
    F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
{
    fn elicit(
        &self,
        params: ElicitParams,
    ) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        Box::pin(self(params))
    }
}

/// Answers `roots/list` when asked, instead of a fixed list (a gateway asks its own downstream client).
/// Implemented for `Fn() -> impl Future` closures.
pub trait RootsHandler: Send + Sync + 'static {
    /// The client's roots now. An `Err` is sent as the JSON-RPC error of the request.
    fn list_roots(&self) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>>;

    /// The same for a 2026-07-28 input request, with its key. Defaults to [`RootsHandler::list_roots`].
    fn list_roots_keyed(
        &self,
        key: &str,
    ) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        let _ = key;
        self.list_roots()
    }
}

impl<F, Fut> RootsHandler for F
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ListRootsResult, ErrorObject>> + Send + 'static,
{
    fn list_roots(&self) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        Box::pin(self())
    }
}

/// Handlers for the server's requests that belong to one call (see [`super::CallOptions::handlers`]):
/// each one set answers in place of the client's own for that call. A request belongs to a call when
/// the wire says so: an input request of its 2026-07-28 `input_required` result or task, a request the
/// server sent on the Streamable HTTP answer stream of its POST, or one tagged with a 2025-11-25 task
/// the call is following. Requests that name no call (stdio and the legacy SSE stream carry no such
/// association) go to the client's handlers. Capabilities are still the client's: a handler set here
/// for a capability the client did not declare is not used.
#[derive(Clone, Default)]
pub struct CallHandlers {
    /// Answers `sampling/createMessage` for this call.
    pub sampling: Option<Arc<dyn SamplingHandler>>,
    /// Answers `elicitation/create` for this call.
    pub elicitation: Option<Arc<dyn ElicitationHandler>>,
    /// Answers `roots/list` for this call.
    pub roots: Option<Arc<dyn RootsHandler>>,
}

/// What a call-scoped request is routed by.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) enum RouteKey {
    /// One of our requests in flight (its POST's answer stream carried the server's request).
    Request(RequestId),
    /// A 2025-11-25 task a call is following (`_meta["io.modelcontextprotocol/related-task"]`).
    Task(String),
}

/// The call-scoped handlers of the calls in flight, by what routes to them.
#[derive(Clone, Default)]
pub(crate) struct CallRoutes(Arc<Mutex<RouteMap>>);

/// Keyed by request ids and task ids: foldhash, randomly seeded (see `crate::cancel`).
type RouteMap = std::collections::HashMap<RouteKey, CallHandlers, foldhash::fast::RandomState>;

/// Removes a route when its call ends, on every path.
pub(crate) struct RouteGuard {
    routes: CallRoutes,
    key: RouteKey,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.key);
    }
}

impl CallRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, RouteMap> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Routes the server's requests related to `key` to `handlers` until the guard drops.
    pub(crate) fn enter(&self, key: RouteKey, handlers: CallHandlers) -> RouteGuard {
        self.lock().insert(key.clone(), handlers);
        RouteGuard {
            routes: self.clone(),
            key,
        }
    }

    fn get(&self, key: &RouteKey) -> Option<CallHandlers> {
        self.lock().get(key).cloned()
    }
}

/// The handlers a client registered, shared by the legacy request path and the MRTR path.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) sampling: Option<Arc<dyn SamplingHandler>>,
    pub(crate) elicitation: Option<Arc<dyn ElicitationHandler>>,
    pub(crate) roots: Option<Arc<Mutex<Vec<Root>>>>,
    /// Answers `roots/list` when set (before `roots`).
    pub(crate) roots_handler: Option<Arc<dyn RootsHandler>>,
    /// Whether URL-mode elicitation was declared.
    pub(crate) elicitation_url: bool,
}

impl Handlers {
    /// These handlers with a call's own in place of those it sets (only for capabilities declared).
    pub(crate) fn with(&self, call: Option<&CallHandlers>) -> Handlers {
        let mut h = self.clone();
        let Some(call) = call else { return h };
        if let (Some(_), Some(s)) = (&h.sampling, &call.sampling) {
            h.sampling = Some(s.clone());
        }
        if let (Some(_), Some(e)) = (&h.elicitation, &call.elicitation) {
            h.elicitation = Some(e.clone());
        }
        if h.roots.is_some() || h.roots_handler.is_some() {
            if let Some(r) = &call.roots {
                h.roots_handler = Some(r.clone());
            }
        }
        h
    }

    /// Answers one request of the server, whichever era carried it. `Err` is the JSON-RPC error a
    /// handshake-era server gets (a 2026 call fails with it instead: input requests have no error slot).
    /// `key`: the input request's key (2026-07-28), `None` for a handshake-era request.
    pub(crate) fn answer(
        &self,
        key: Option<&str>,
        request: InputRequest,
    ) -> BoxFuture<'static, Result<Box<RawValue>, ErrorObject>> {
        match request {
            InputRequest::CreateMessage(p) => match self.sampling.clone() {
                Some(h) => {
                    let fut = match key {
                        Some(k) => h.create_message_keyed(k, p),
                        None => h.create_message(p),
                    };
                    Box::pin(async move { to_raw(&fut.await?) })
                }
                None => not_declared(methods::SAMPLING_CREATE_MESSAGE, "sampling"),
            },
            InputRequest::Elicit(p) => match self.elicitation.clone() {
                Some(_) if p.is_url() && !self.elicitation_url => {
                    Box::pin(std::future::ready(Err(ErrorObject::invalid_params(
                        "Invalid params: URL elicitation was not declared",
                    ))))
                }
                Some(h) => {
                    let fut = match key {
                        Some(k) => h.elicit_keyed(k, p),
                        None => h.elicit(p),
                    };
                    Box::pin(async move { to_raw(&fut.await?) })
                }
                None => not_declared(methods::ELICITATION_CREATE, "elicitation"),
            },
            InputRequest::ListRoots => match (&self.roots_handler, &self.roots) {
                (Some(h), _) => {
                    let fut = match key {
                        Some(k) => h.list_roots_keyed(k),
                        None => h.list_roots(),
                    };
                    Box::pin(async move { to_raw(&fut.await?) })
                }
                (None, Some(r)) => {
                    let roots = r.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    Box::pin(std::future::ready(to_raw(&ListRootsResult {
                        roots,
                        meta: None,
                    })))
                }
                (None, None) => not_declared(methods::ROOTS_LIST, "roots"),
            },
        }
    }
}

/// The task a request is tagged with (`_meta["io.modelcontextprotocol/related-task"].taskId`).
fn related_task(params: Option<&RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "_meta")]
        meta: Option<M>,
    }
    #[derive(serde::Deserialize)]
    struct M {
        #[serde(rename = "io.modelcontextprotocol/related-task")]
        task: Option<T>,
    }
    #[derive(serde::Deserialize)]
    struct T {
        #[serde(rename = "taskId")]
        task_id: String,
    }
    let p: P = serde_json::from_str(params?.get()).ok()?;
    p.meta?.task.map(|t| t.task_id)
}

fn not_declared(
    method: &str,
    capability: &str,
) -> BoxFuture<'static, Result<Box<RawValue>, ErrorObject>> {
    let e = ErrorObject::method_not_found(method).with_data(serde_json::json!({
        "reason": format!("this client did not declare the `{capability}` capability")
    }));
    Box::pin(std::future::ready(Err(e)))
}

/// The client's side of the pump: answers the server's requests (handshake era) and delivers its
/// notifications, routing those of a `subscriptions/listen` stream to their subscription.
pub(crate) struct ClientHandler {
    pub(crate) handlers: Handlers,
    pub(crate) routes: CallRoutes,
    pub(crate) notifications: broadcast::Sender<ServerNotification>,
    pub(crate) subscriptions: Subscriptions,
    pub(crate) cache: Option<Arc<ResultCache>>,
}

impl Handler for ClientHandler {
    fn request(&self, req: RequestIn<'_>) -> Reply {
        let input = match req.method {
            methods::PING => return Reply::Now(to_raw(&EmptyResult::default())),
            methods::SAMPLING_CREATE_MESSAGE => {
                parse_params(req.params).map(InputRequest::CreateMessage)
            }
            methods::ELICITATION_CREATE => parse_params(req.params).map(InputRequest::Elicit),
            methods::ROOTS_LIST => Ok(InputRequest::ListRoots),
            other => return Reply::Now(Err(ErrorObject::method_not_found(other))),
        };
        // The call this request belongs to: the POST whose answer stream carried it, or the task it
        // is tagged with.
        let call = req
            .related
            .and_then(|id| self.routes.get(&RouteKey::Request(id.clone())))
            .or_else(|| related_task(req.params).and_then(|t| self.routes.get(&RouteKey::Task(t))));
        match input {
            Ok(input) => Reply::Spawn {
                fut: self.handlers.with(call.as_ref()).answer(None, input),
                cancellable: true,
            },
            Err(e) => Reply::Now(Err(e)),
        }
    }

    fn notification(&self, method: &str, params: Option<&RawValue>) {
        let params: Option<serde_json::Value> =
            params.and_then(|p| serde_json::from_str(p.get()).ok());
        let n = ServerNotification {
            method: method.to_string(),
            params,
        };
        if let Some(c) = &self.cache {
            c.invalidate(&n.method, n.params.as_ref());
        }
        self.subscriptions.route(&n);
        let _ = self.notifications.send(n);
    }

    fn closed(&self) {
        self.subscriptions.close_all();
    }
}
