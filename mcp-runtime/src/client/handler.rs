//! What the user registers to answer the server: sampling, elicitation and roots. The same handlers answer
//! both eras: a handshake-era server's requests (`sampling/createMessage` arriving on the connection) and a
//! 2026-07-28 server's input requests (inside an `input_required` result, see [`super::mrtr`]).

use super::cache::ResultCache;
use super::listen::Subscriptions;
use super::ServerNotification;
use crate::connection::{Handler, Reply, RequestIn};
use crate::framing::{parse_params, to_raw};
use crate::protocol::*;
use futures_util::future::BoxFuture;
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
        match input {
            Ok(input) => Reply::Spawn {
                fut: self.handlers.answer(None, input),
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
