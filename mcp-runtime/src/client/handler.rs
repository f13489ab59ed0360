//! The client's side of the pump: answers the server's requests and delivers its notifications.

use super::ServerNotification;
use crate::connection::{Handler, Peer, Reply, RequestIn};
use crate::framing::{parse_params, to_raw};
use crate::protocol::*;
use futures_util::future::BoxFuture;
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Answers `sampling/createMessage`. Implemented for `Fn(CreateMessageParams) -> impl Future` closures.
pub trait SamplingHandler: Send + Sync + 'static {
    fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>>;
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
    fn elicit(&self, params: ElicitParams)
        -> BoxFuture<'static, Result<ElicitResult, ErrorObject>>;
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

pub(crate) struct ClientHandler {
    #[allow(dead_code)]
    pub(crate) peer: Peer,
    pub(crate) sampling: Option<Arc<dyn SamplingHandler>>,
    pub(crate) elicitation: Option<Arc<dyn ElicitationHandler>>,
    pub(crate) roots: Option<Arc<Mutex<Vec<Root>>>>,
    pub(crate) notifications: broadcast::Sender<ServerNotification>,
}

impl Handler for ClientHandler {
    fn request(&self, req: RequestIn<'_>) -> Reply {
        match req.method {
            methods::PING => Reply::Now(to_raw(&EmptyResult::default())),
            methods::SAMPLING_CREATE_MESSAGE => {
                let Some(h) = self.sampling.clone() else {
                    return Reply::Now(Err(ErrorObject::method_not_found(req.method)));
                };
                let p: CreateMessageParams = match parse_params(req.params) {
                    Ok(p) => p,
                    Err(e) => return Reply::Now(Err(e)),
                };
                let fut = h.create_message(p);
                Reply::Spawn {
                    fut: Box::pin(async move { to_raw(&fut.await?) }),
                    cancellable: true,
                }
            }
            methods::ELICITATION_CREATE => {
                let Some(h) = self.elicitation.clone() else {
                    return Reply::Now(Err(ErrorObject::method_not_found(req.method)));
                };
                let p: ElicitParams = match parse_params(req.params) {
                    Ok(p) => p,
                    Err(e) => return Reply::Now(Err(e)),
                };
                if p.is_url() {
                    return Reply::Now(Err(ErrorObject::invalid_params(
                        "Invalid params: URL elicitation was not declared",
                    )));
                }
                let fut = h.elicit(p);
                Reply::Spawn {
                    fut: Box::pin(async move { to_raw(&fut.await?) }),
                    cancellable: true,
                }
            }
            methods::ROOTS_LIST => match &self.roots {
                Some(r) => {
                    let roots = r.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    Reply::Now(to_raw(&ListRootsResult { roots, meta: None }))
                }
                None => Reply::Now(Err(ErrorObject::method_not_found(req.method))),
            },
            other => Reply::Now(Err(ErrorObject::method_not_found(other))),
        }
    }

    fn notification(&self, method: &str, params: Option<&RawValue>) {
        let params = params.and_then(|p| serde_json::from_str(p.get()).ok());
        let _ = self.notifications.send(ServerNotification {
            method: method.to_string(),
            params,
        });
    }
}
