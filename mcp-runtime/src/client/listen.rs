//! Change notifications in both eras behind one API, [`Subscription`].
//!
//! 2026-07-28: `subscriptions/listen` is a long-lived request whose answer is a stream of the
//! notifications asked for. The server acknowledges first (`notifications/subscriptions/acknowledged`,
//! with the part of the filter it honours), and tags every message with the listen request's id in
//! `_meta["io.modelcontextprotocol/subscriptionId"]`, by which the client routes it (on stdio all
//! subscriptions share one channel). Dropping the [`Subscription`] cancels the request: the transport
//! closes its stream (HTTP) or sends `notifications/cancelled` (stdio).
//!
//! Handshake era: the same filter is served from the connection's notifications (the standalone GET
//! stream on HTTP), `resources/subscribe` for the resources asked for, and the server's declared
//! capabilities as the acknowledgement.

use super::ServerNotification;
use crate::connection::{Peer, RequestOptions};
use crate::error::Error;
use crate::framing::to_raw;
use crate::protocol::meta::keys;
use crate::protocol::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Notifications a subscription may hold unread; beyond that new ones are dropped with a warning.
const BUFFER: usize = 1024;

/// One open stream: where its notifications go, and a token the server's `notifications/cancelled`
/// trips to end it.
struct Route {
    tx: mpsc::Sender<ServerNotification>,
    ended: CancellationToken,
}

/// The open listen streams of a connection, by the id of their request.
#[derive(Clone, Default)]
pub(crate) struct Subscriptions(Arc<Mutex<HashMap<RequestId, Route>>>);

impl Subscriptions {
    fn register(&self, id: RequestId) -> (mpsc::Receiver<ServerNotification>, CancellationToken) {
        let (tx, rx) = mpsc::channel(BUFFER);
        let ended = CancellationToken::new();
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(
            id,
            Route {
                tx,
                ended: ended.clone(),
            },
        );
        (rx, ended)
    }

    fn remove(&self, id: &RequestId) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
    }

    /// Delivers a notification to the subscription named in its `_meta`, if it has one; a server's
    /// `notifications/cancelled` naming a listen request ends that stream.
    pub(crate) fn route(&self, n: &ServerNotification) {
        if n.method == methods::CANCELLED {
            let id = n
                .params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
            let route =
                id.and_then(|id| self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&id));
            if let Some(r) = route {
                r.ended.cancel();
            }
            return;
        }
        let Some(id) = n
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(keys::SUBSCRIPTION_ID))
            .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok())
        else {
            return;
        };
        let tx = self
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .map(|r| r.tx.clone());
        match tx {
            Some(tx) => {
                if tx.try_send(n.clone()).is_err() {
                    tracing::warn!(subscription = %id, method = %n.method, "subscription notification dropped: the subscriber is not reading");
                }
            }
            None => {
                tracing::debug!(subscription = %id, method = %n.method, "notification for no open subscription")
            }
        }
    }

    pub(crate) fn close_all(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// An open stream of change notifications (see the module documentation).
pub struct Subscription {
    granted: SubscriptionFilter,
    source: Source,
}

enum Source {
    Modern {
        id: RequestId,
        rx: mpsc::Receiver<ServerNotification>,
        early: Option<ServerNotification>,
        registry: Subscriptions,
        request: tokio::task::JoinHandle<()>,
        outcome: oneshot::Receiver<Result<(), Error>>,
        ended: Option<Result<(), Error>>,
    },
    Legacy {
        rx: broadcast::Receiver<ServerNotification>,
        peer: Peer,
    },
}

impl Subscription {
    /// What the server agreed to send (a subset of what was asked for).
    pub fn granted(&self) -> &SubscriptionFilter {
        &self.granted
    }

    /// The id of the `subscriptions/listen` request (2026-07-28), which its notifications carry.
    pub fn id(&self) -> Option<&RequestId> {
        match &self.source {
            Source::Modern { id, .. } => Some(id),
            Source::Legacy { .. } => None,
        }
    }

    /// The next notification, or `None` once the stream has ended (see [`Subscription::ended`]).
    pub async fn next(&mut self) -> Option<ServerNotification> {
        match &mut self.source {
            Source::Modern { rx, early, .. } => {
                if let Some(n) = early.take() {
                    return Some(n);
                }
                rx.recv().await
            }
            Source::Legacy { rx, .. } => loop {
                match rx.recv().await {
                    Ok(n) if legacy_wanted(&self.granted, &n) => return Some(n),
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(k)) => {
                        tracing::warn!(
                            skipped = k,
                            "subscription lagged behind; notifications lost"
                        )
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            },
        }
    }

    /// After [`Subscription::next`] returned `None`: `Ok` when the server ended the stream gracefully
    /// (a `complete` result), the error otherwise (the connection closed, the request failed).
    pub async fn ended(&mut self) -> Result<(), Error> {
        match &mut self.source {
            Source::Modern { outcome, ended, .. } => {
                if ended.is_none() {
                    *ended =
                        Some(outcome.await.unwrap_or_else(|_| {
                            Err(Error::Closed("the stream was dropped".into()))
                        }));
                }
                ended.clone().unwrap_or(Ok(()))
            }
            Source::Legacy { peer, .. } => {
                if peer.is_closed() {
                    Err(Error::Closed("the connection is closed".into()))
                } else {
                    Ok(())
                }
            }
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        match &self.source {
            Source::Modern {
                id,
                registry,
                request,
                ..
            } => {
                registry.remove(id);
                // Dropping the request's future cancels it (stream closed or notifications/cancelled).
                request.abort();
            }
            Source::Legacy { peer, .. } => {
                for uri in self.granted.resource_subscriptions.iter().flatten() {
                    let peer = peer.clone();
                    let params = to_raw(&ResourceUriParams {
                        uri: uri.clone(),
                        meta: None,
                    });
                    if let (Ok(params), Ok(rt)) = (params, tokio::runtime::Handle::try_current()) {
                        rt.spawn(async move {
                            let _ = peer
                                .request(
                                    methods::RESOURCES_UNSUBSCRIBE,
                                    Some(&params),
                                    RequestOptions::default(),
                                )
                                .await;
                        });
                    }
                }
            }
        }
    }
}

fn legacy_wanted(f: &SubscriptionFilter, n: &ServerNotification) -> bool {
    match n.method.as_str() {
        methods::TOOLS_LIST_CHANGED => f.tools(),
        methods::PROMPTS_LIST_CHANGED => f.prompts(),
        methods::RESOURCES_LIST_CHANGED => f.resources(),
        methods::RESOURCES_UPDATED => n
            .params
            .as_ref()
            .and_then(|p| p.get("uri"))
            .and_then(|u| u.as_str())
            .is_some_and(|u| f.watches(u)),
        _ => false,
    }
}

/// Opens a `subscriptions/listen` stream; `params` are already stamped with `_meta`.
pub(crate) async fn listen_modern(
    peer: &Peer,
    registry: &Subscriptions,
    id: RequestId,
    params: JsonObject,
    ack_timeout: Option<Duration>,
) -> Result<Subscription, Error> {
    let requested: SubscriptionFilter = params
        .get("notifications")
        .and_then(|n| serde_json::from_value(n.clone()).ok())
        .unwrap_or_default();
    let raw = to_raw(&params).map_err(|e| Error::Protocol(e.message))?;
    let (mut rx, ended) = registry.register(id.clone());
    let (tx, mut outcome) = oneshot::channel();
    let request = {
        let peer = peer.clone();
        let registry = registry.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let opts = RequestOptions {
                // The stream lives until one side ends it.
                timeout: Some(Duration::MAX),
                ..Default::default()
            };
            let r = tokio::select! {
                r = peer.request_with_id(id.clone(), methods::SUBSCRIPTIONS_LISTEN, Some(&raw), opts) => r.map(|_| ()),
                // The server tore the stream down with `notifications/cancelled`.
                _ = ended.cancelled() => Err(Error::Closed("the server ended the subscription".into())),
            };
            registry.remove(&id);
            let _ = tx.send(r);
        })
    };
    let first = async {
        tokio::select! {
            n = rx.recv() => Ok(n),
            r = &mut outcome => Err(r.unwrap_or_else(|_| Err(Error::Closed("the stream was dropped".into())))),
        }
    };
    let first = match ack_timeout {
        Some(t) => match tokio::time::timeout(t, first).await {
            Ok(r) => r,
            Err(_) => {
                request.abort();
                registry.remove(&id);
                return Err(Error::Timeout {
                    method: methods::SUBSCRIPTIONS_LISTEN.into(),
                    after: t,
                });
            }
        },
        None => first.await,
    };
    let (granted, early) = match first {
        Ok(Some(n)) if n.method == methods::SUBSCRIPTIONS_ACKNOWLEDGED => {
            let granted = n
                .params
                .as_ref()
                .and_then(|p| p.get("notifications"))
                .and_then(|f| serde_json::from_value(f.clone()).ok())
                .unwrap_or_default();
            (granted, None)
        }
        Ok(Some(n)) => {
            tracing::warn!(method = %n.method, "subscriptions/listen: a notification came before the acknowledgement");
            (requested, Some(n))
        }
        Ok(None) => {
            return Err(outcome.await.ok().and_then(Result::err).unwrap_or_else(|| {
                Error::Protocol("the listen stream ended before it was acknowledged".into())
            }))
        }
        Err(Ok(())) => {
            return Err(Error::Protocol(
                "the server answered subscriptions/listen before acknowledging it".into(),
            ))
        }
        Err(Err(e)) => return Err(e),
    };
    Ok(Subscription {
        granted,
        source: Source::Modern {
            id,
            rx,
            early,
            registry: registry.clone(),
            request,
            outcome,
            ended: None,
        },
    })
}

/// Serves a filter from a handshake-era connection.
pub(crate) async fn listen_legacy(
    peer: &Peer,
    notifications: &broadcast::Sender<ServerNotification>,
    server: &ServerCapabilities,
    filter: SubscriptionFilter,
) -> Result<Subscription, Error> {
    let rx = notifications.subscribe();
    let list_changed =
        |c: Option<&ListChangedCapability>| c.and_then(|c| c.list_changed) == Some(true);
    let resources = server.resources.as_ref();
    let mut granted = SubscriptionFilter {
        tools_list_changed: (filter.tools() && list_changed(server.tools.as_ref())).then_some(true),
        prompts_list_changed: (filter.prompts() && list_changed(server.prompts.as_ref()))
            .then_some(true),
        resources_list_changed: (filter.resources()
            && resources.and_then(|r| r.list_changed) == Some(true))
        .then_some(true),
        resource_subscriptions: None,
    };
    if let Some(uris) = filter.resource_subscriptions {
        if resources.and_then(|r| r.subscribe) == Some(true) {
            let mut ok = Vec::new();
            for uri in uris {
                let params = to_raw(&ResourceUriParams {
                    uri: uri.clone(),
                    meta: None,
                })
                .map_err(|e| Error::Protocol(e.message))?;
                peer.request(
                    methods::RESOURCES_SUBSCRIBE,
                    Some(&params),
                    RequestOptions::default(),
                )
                .await?;
                ok.push(uri);
            }
            granted.resource_subscriptions = Some(ok);
        }
    }
    Ok(Subscription {
        granted,
        source: Source::Legacy {
            rx,
            peer: peer.clone(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn notifications_are_routed_by_subscription_id() {
        let s = Subscriptions::default();
        let (mut a, _) = s.register(RequestId::Number(1));
        let (mut b, ended) = s.register(RequestId::String("x".into()));
        let n = |id: serde_json::Value| ServerNotification {
            method: "notifications/tools/list_changed".into(),
            params: Some(json!({"_meta": {"io.modelcontextprotocol/subscriptionId": id}})),
        };
        s.route(&n(json!(1)));
        s.route(&n(json!("x")));
        s.route(&n(json!("1")));
        s.route(&ServerNotification {
            method: "notifications/message".into(),
            params: None,
        });
        assert!(a.try_recv().is_ok());
        assert!(a.try_recv().is_err());
        assert!(b.try_recv().is_ok());
        assert!(b.try_recv().is_err());
        // The server ends a stream by cancelling its listen request.
        s.route(&ServerNotification {
            method: "notifications/cancelled".into(),
            params: Some(json!({"requestId": "x"})),
        });
        assert!(ended.is_cancelled());
        assert!(matches!(
            b.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
    }
}
