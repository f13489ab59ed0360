//! The message pump shared by servers and clients: one reader that frames and dispatches, notifications
//! handled inline, every request in its own task with a registered cancellation token, one writer that
//! batches whatever is ready into one write.
//!
//! Invariants:
//! - only the writer touches the output: its task, or the reader through it before it waits for input,
//!   one batch at a time under one lock, in queue order (`writer.rs`);
//! - a response is never written for a request that was cancelled (checked again by the writer);
//! - a request holds a concurrency permit from dispatch until its response is written, so a peer that sends
//!   fast and reads slowly stops the reader instead of growing memory;
//! - bytes are bounded too: a message read holds a [`Charge`] on the connection's [`ByteBudget`], which
//!   becomes its answer's charge and is given back once the answer is written; at the budget the reader
//!   stops reading.
//!
//! A handler is polled once on the reader when a run permit is free: one that finishes without waiting
//! (most tools) is answered without a task of its own; one that waits is moved into a task and goes on there.

use crate::budget::{ByteBudget, Charge};
use crate::cancel::{CancelGuard, CancelRegistry};
use crate::error::Error;
use crate::framing::{self, frame, Incoming, Line, LineBuffer};
use crate::future::{AbortOnDrop, BoxFuture, CatchUnwind};
use crate::protocol::{
    methods, CancelledParams, ErrorObject, ProgressParams, ProgressToken, RequestId,
};
use serde_json::value::RawValue;
use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::sync::{mpsc, oneshot, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use writer::{drive_writer, ReaderOutput, WriteNow, WriteSide};

/// The hasher of the maps keyed by request ids and progress tokens: randomly seeded, as the std one,
/// and several times cheaper for keys this short (see `crate::cancel`).
type Fold = foldhash::fast::RandomState;

mod config;
mod handler;
mod pending;
mod stream;
mod writer;

pub use config::ConnectionConfig;
use handler::*;
pub use handler::{Handler, OutKind, Outgoing, Reply, RequestIn};
use pending::*;
pub use stream::{read_loop, run, run_with_probe, OutputProbe};
pub use writer::write_loop;
pub(crate) use writer::write_until_failed;

/// The method of a streamed piece of an answer (`{"id": <request id>, "delta": ...}`), as servers of
/// the NDJSON streaming dialect send it; read as progress of that request (see [`Peer::dispatch`]).
pub const EVENT_DELTA: &str = "event/delta";

pub(crate) struct Shared {
    out: mpsc::Sender<Outgoing>,
    /// On a byte stream, the writer itself: an answer is written at once when nothing is ahead of it.
    write_now: std::sync::OnceLock<Arc<dyn WriteNow>>,
    pending: Mutex<Pending>,
    next_id: AtomicI64,
    /// Set when the peer's session is shared by several instances: this instance's ids are strings
    /// under its own prefix, so that a client's answer, which any instance may receive and pass on,
    /// matches the one request it answers.
    id_prefix: std::sync::OnceLock<Arc<str>>,
    pub(crate) cancels: Arc<CancelRegistry>,
    /// Requests running at once.
    limit: Arc<Semaphore>,
    /// Requests accepted but not yet answered (running or waiting to run): twice `limit`, so that the
    /// reader keeps reading (and cancellations keep arriving) while handlers are at the limit.
    queue: Arc<Semaphore>,
    pub(crate) config: ConnectionConfig,
    /// Bytes held by requests not yet answered and frames not yet written.
    budget: Arc<ByteBudget>,
    /// Cancelled when the connection closes.
    pub(crate) closed: CancellationToken,
    /// Wakes the deadline task: its alarm moved earlier, or the connection is gone.
    deadline_moved: Arc<Notify>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The deadline task holds the connection weakly: it ends once it wakes to nothing.
        self.deadline_moved.notify_one();
    }
}

/// A handle on a connection: send requests and notifications to the peer. Cheap to clone.
#[derive(Clone)]
pub struct Peer {
    pub(crate) shared: Arc<Shared>,
}

/// Where [`Peer::request_via`] hands a request's frame (one line, ending in `\n`).
pub(crate) type Deliver =
    Box<dyn FnOnce(Vec<u8>) -> crate::future::BoxFuture<'static, Result<(), Error>> + Send>;

/// Options of one outgoing request.
#[derive(Default, Clone)]
pub struct RequestOptions {
    /// Overrides the connection's default timeout.
    pub timeout: Option<Duration>,
    /// The incoming request on whose behalf this one is sent (for routing on HTTP).
    pub related: Option<RequestId>,
    /// Called for each `notifications/progress` that carries this request's progress token.
    pub on_progress: Option<ProgressCallback>,
}

impl std::fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("related", &self.related)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Peer {
    /// A new connection whose outgoing frames arrive on the returned receiver, with a byte budget of
    /// its own (`config.max_buffered_bytes`).
    pub fn new(config: ConnectionConfig) -> (Peer, mpsc::Receiver<Outgoing>) {
        let budget = ByteBudget::new(config.max_buffered_bytes);
        Peer::with_budget(config, budget)
    }

    /// A new connection that shares a byte budget with others (the sessions of an HTTP server).
    pub fn with_budget(
        config: ConnectionConfig,
        budget: Arc<ByteBudget>,
    ) -> (Peer, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel(4096);
        let shared = Shared {
            out: tx,
            write_now: std::sync::OnceLock::new(),
            pending: Mutex::new(Pending {
                calls: HashMap::default(),
                progress: HashMap::default(),
                deltas: HashMap::default(),
                closed: None,
                armed: None,
                deadline_task: false,
            }),
            next_id: AtomicI64::new(0),
            id_prefix: std::sync::OnceLock::new(),
            cancels: Arc::new(CancelRegistry::default()),
            limit: Arc::new(Semaphore::new(config.max_concurrent_requests.max(1))),
            queue: Arc::new(Semaphore::new(config.max_concurrent_requests.max(1) * 2)),
            config,
            budget,
            closed: CancellationToken::new(),
            deadline_moved: Arc::new(Notify::new()),
        };
        (
            Peer {
                shared: Arc::new(shared),
            },
            rx,
        )
    }

    /// The limits this connection was made with.
    pub fn config(&self) -> &ConnectionConfig {
        &self.shared.config
    }

    /// Whether the connection has closed.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.is_cancelled()
    }

    /// Resolves when the connection closes.
    pub async fn closed(&self) {
        self.shared.closed.cancelled().await
    }

    /// The byte budget this connection's messages are held against.
    pub fn budget(&self) -> &Arc<ByteBudget> {
        &self.shared.budget
    }

    /// Queues a frame for the writer, waiting while the frames already queued fill the byte budget.
    pub async fn send(&self, mut out: Outgoing) -> Result<(), Error> {
        out.charge = self.shared.budget.acquire_out(out.frame.len()).await;
        self.queue(out).await
    }

    /// Queues a frame that carries its charge already.
    async fn queue(&self, out: Outgoing) -> Result<(), Error> {
        self.shared
            .out
            .send(out)
            .await
            .map_err(|_| Error::Closed(self.close_reason()))
    }

    /// Why the connection closed (the reason given to its close, such as a child server's exit status
    /// and stderr tail), or that it is closed.
    pub fn close_reason(&self) -> String {
        lock(&self.shared.pending)
            .closed
            .clone()
            .unwrap_or_else(|| "the connection is closed".into())
    }

    /// Sends a notification.
    pub async fn notify(
        &self,
        method: &str,
        params: Option<&RawValue>,
        related: Option<RequestId>,
    ) -> Result<(), Error> {
        self.send(Outgoing::new(
            frame::notification(method, params),
            OutKind::Notification,
            related,
        ))
        .await
    }

    /// Sends a notification without waiting; dropped (with a debug log) if the writer's queue is full.
    pub fn try_notify(&self, method: &str, params: Option<&RawValue>, related: Option<RequestId>) {
        let mut out = Outgoing::new(
            frame::notification(method, params),
            OutKind::Notification,
            related,
        );
        out.charge = self.shared.budget.charge_out(out.frame.len());
        if self.shared.out.try_send(out).is_err() {
            tracing::debug!(method, "notification dropped: output queue full or closed");
        }
    }

    /// A fresh request id, unique on this connection, and across instances when the session is shared
    /// between them (its ids then carry the instance's prefix).
    pub fn next_id(&self) -> RequestId {
        let n = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        match self.shared.id_prefix.get() {
            Some(p) => RequestId::String(format!("{p}{n}").into()),
            None => RequestId::Number(n),
        }
    }

    /// From now on, ids are strings `<prefix><n>` (set once; later calls are ignored): for a session
    /// that several instances serve, each with its own counter.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_id_prefix(&self, prefix: &str) {
        let _ = self.shared.id_prefix.set(prefix.into());
    }

    /// Sends a request and waits for its result. Dropping the future cancels the request
    /// (`notifications/cancelled`); so does the timeout.
    pub async fn request(
        &self,
        method: &str,
        params: Option<&RawValue>,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>, Error> {
        let id = self.next_id();
        self.request_with_id(id, method, params, opts).await
    }

    /// Like [`Peer::request`] with a chosen id (the progress token, when there is one, must be the caller's).
    pub async fn request_with_id(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        opts: RequestOptions,
    ) -> Result<Box<RawValue>, Error> {
        self.request_routed(id, method, params, opts, None).await
    }

    /// Like [`Peer::request`], with the request's frame handed to `deliver` instead of this
    /// connection's writer: a request that another instance writes to a stream it holds, whose answer
    /// comes back here (a shared session passes it on). Timeout and cancellation work as for any request.
    pub(crate) async fn request_via(
        &self,
        method: &str,
        params: Option<&RawValue>,
        opts: RequestOptions,
        deliver: Deliver,
    ) -> Result<Box<RawValue>, Error> {
        let id = self.next_id();
        self.request_routed(id, method, params, opts, Some(deliver))
            .await
    }

    async fn request_routed(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        opts: RequestOptions,
        deliver: Option<Deliver>,
    ) -> Result<Box<RawValue>, Error> {
        let (tx, rx) = oneshot::channel();
        {
            let mut p = lock(&self.shared.pending);
            if let Some(reason) = &p.closed {
                return Err(Error::Closed(reason.clone()));
            }
            let cancel = method != methods::INITIALIZE;
            let call = Call {
                tx,
                deadline: None,
                cancel,
            };
            p.calls.insert(id.clone(), call);
            if let Some(cb) = opts.on_progress.clone() {
                p.progress.insert(id.clone(), cb);
            }
        }
        let mut guard = InFlight {
            peer: self,
            id: id.clone(),
            done: false,
        };
        let out = Outgoing::new(
            frame::request(&id, method, params),
            OutKind::Request(id.clone()),
            opts.related.clone(),
        );
        match deliver {
            Some(deliver) => deliver(out.frame).await?,
            None => self.send(out).await?,
        }
        let timeout = opts.timeout.or(self.shared.config.request_timeout);
        // A limit too far to reach (`Duration::MAX` for a stream that stays open) is none.
        if let Some(deadline) = timeout.and_then(|t| Instant::now().checked_add(t)) {
            self.set_deadline(&id, deadline);
        }
        let result = rx.await;
        guard.done = true;
        match result {
            Ok(Settled::Answer(r)) => r,
            // The deadline task has taken the call out and told the peer.
            Ok(Settled::TimedOut) => Err(Error::Timeout {
                method: method.to_string(),
                after: timeout.unwrap_or_default(),
            }),
            Err(_) => Err(Error::Closed(self.close_reason())),
        }
    }

    /// Gives the pending request `id` its deadline; moves the deadline task's alarm when it is the
    /// earliest (starting the task on the first one).
    fn set_deadline(&self, id: &RequestId, deadline: Instant) {
        let (start, moved) = {
            let mut p = lock(&self.shared.pending);
            // Answered already (or the connection closed) while it was being written.
            let Some(call) = p.calls.get_mut(id) else {
                return;
            };
            call.deadline = Some(deadline);
            if p.armed.is_some_and(|a| a <= deadline) {
                return;
            }
            p.armed = Some(deadline);
            let start = !p.deadline_task;
            p.deadline_task = true;
            (start, !start)
        };
        if start {
            tokio::spawn(expire_calls(
                Arc::downgrade(&self.shared),
                self.shared.deadline_moved.clone(),
                self.shared.closed.clone(),
            ));
        } else if moved {
            self.shared.deadline_moved.notify_one();
        }
    }

    /// Fails the calls whose deadline has passed (each tells the peer with `notifications/cancelled`,
    /// but `initialize`) and returns when the next one is due.
    fn expire_due(&self) -> Option<Instant> {
        let (expired, next) = {
            let mut p = lock(&self.shared.pending);
            let expired = p.expire(Instant::now());
            (expired, p.armed)
        };
        for (id, call) in expired {
            let _ = call.tx.send(Settled::TimedOut);
            if call.cancel {
                self.send_cancelled(id);
            }
        }
        next
    }

    /// Tells the peer that our request `id` is cancelled, without waiting (a task sends it when the
    /// writer's queue is full); nothing once the connection is closed.
    fn send_cancelled(&self, id: RequestId) {
        if self.is_closed() {
            return;
        }
        let params = CancelledParams {
            request_id: id,
            reason: Some("request cancelled by the caller".into()),
        };
        if let Ok(raw) = framing::to_raw(&params) {
            let out = Outgoing::new(
                frame::notification(methods::CANCELLED, Some(&raw)),
                OutKind::Notification,
                None,
            );
            if let Err(mpsc::error::TrySendError::Full(out)) = self.shared.out.try_send(out) {
                let tx = self.shared.out.clone();
                tokio::spawn(async move {
                    let _ = tx.send(out).await;
                });
            }
        }
    }

    fn finish_pending(&self, id: &RequestId) -> Option<Call> {
        let mut p = lock(&self.shared.pending);
        p.progress.remove(id);
        p.deltas.remove(id);
        p.calls.remove(id)
    }

    /// Fails every pending call and cancels every in-flight handler.
    pub(crate) fn close(&self, reason: String) {
        let calls = {
            let mut p = lock(&self.shared.pending);
            if p.closed.is_some() {
                return;
            }
            p.closed = Some(reason.clone());
            p.progress.clear();
            p.deltas.clear();
            std::mem::take(&mut p.calls)
        };
        for (_, call) in calls {
            let _ = call
                .tx
                .send(Settled::Answer(Err(Error::Closed(reason.clone()))));
        }
        self.shared.cancels.cancel_all();
        self.shared.closed.cancel();
    }

    /// Dispatches one line from the transport. Waits for a concurrency permit when at the limit.
    pub async fn dispatch_line(&self, line: &[u8], handler: &Arc<dyn Handler>) {
        let msg = framing::decode(line);
        self.dispatch(msg, handler).await
    }

    /// Dispatches one decoded message whose bytes the transport accounts for itself (HTTP bodies).
    pub async fn dispatch(&self, msg: Incoming<'_>, handler: &Arc<dyn Handler>) {
        self.dispatch_charged(msg, Charge::none(), handler).await
    }

    /// Dispatches one decoded message that arrived on the answer stream of our request `related` (a
    /// request in it is handed to the handler with [`RequestIn::related`] set).
    pub async fn dispatch_related(
        &self,
        msg: Incoming<'_>,
        related: Option<&RequestId>,
        handler: &Arc<dyn Handler>,
    ) {
        match msg {
            Incoming::Request { id, method, params } => {
                self.dispatch_request(
                    id,
                    &method,
                    params,
                    handler,
                    Sink::Writer,
                    Charge::none(),
                    related,
                )
                .await
            }
            other => self.dispatch_charged(other, Charge::none(), handler).await,
        }
    }

    /// Dispatches one decoded message holding `charge` (its bytes on the budget) until it is answered.
    pub async fn dispatch_charged(
        &self,
        msg: Incoming<'_>,
        charge: Charge,
        handler: &Arc<dyn Handler>,
    ) {
        match msg {
            Incoming::Request { id, method, params } => {
                self.dispatch_request(id, &method, params, handler, Sink::Writer, charge, None)
                    .await
            }
            Incoming::Notification { method, params } => {
                self.dispatch_notification(&method, params, handler)
            }
            Incoming::Response { id, result } => self.dispatch_response(id, result),
            Incoming::Batch(items) => self.dispatch_batch(items, handler, charge).await,
            Incoming::Invalid { id, error } => {
                tracing::debug!(?id, %error, "invalid message");
                let _ = self
                    .send(Outgoing::new(
                        frame::error(id.as_ref(), &error),
                        OutKind::Notification,
                        None,
                    ))
                    .await;
            }
            Incoming::Ignored => tracing::debug!("ignored an error response without a readable id"),
        }
    }

    fn dispatch_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
        handler: &Arc<dyn Handler>,
    ) {
        match method {
            methods::CANCELLED => match framing::parse_params::<CancelledParams>(params) {
                Ok(p) => {
                    if self.shared.cancels.cancel(&p.request_id) {
                        tracing::debug!(id = %p.request_id, reason = ?p.reason, "request cancelled by peer");
                    } else {
                        // Not a request the peer sent us: a 2026 server ends a `subscriptions/listen`
                        // stream of ours this way. The handler decides.
                        handler.notification(method, params);
                    }
                }
                Err(e) => tracing::debug!(%e, "malformed notifications/cancelled"),
            },
            methods::PROGRESS => {
                if let Ok(p) = framing::parse_params::<ProgressParams>(params) {
                    let cb = lock(&self.shared.pending)
                        .progress
                        .get(&p.progress_token)
                        .cloned();
                    match cb {
                        Some(cb) => cb(p),
                        None => handler.notification(method, params),
                    }
                }
            }
            EVENT_DELTA => {
                // The streaming dialect some servers speak (NDJSON over HTTP or stdio): `{id, delta}`
                // is a piece of the answer to our request `id`. It reaches that request's progress
                // callback as progress, numbered in order, with the delta as the message.
                #[derive(serde::Deserialize)]
                struct Delta {
                    id: ProgressToken,
                    delta: serde_json::Value,
                }
                let Ok(d) = framing::parse_params::<Delta>(params) else {
                    return handler.notification(method, params);
                };
                let found = {
                    let mut p = lock(&self.shared.pending);
                    match p.progress.get(&d.id).cloned() {
                        Some(cb) => {
                            let n = p.deltas.entry(d.id.clone()).or_insert(0);
                            *n += 1;
                            Some((cb, *n))
                        }
                        None => None,
                    }
                };
                match found {
                    Some((cb, n)) => cb(ProgressParams {
                        progress_token: d.id,
                        progress: n as f64,
                        total: None,
                        message: Some(match d.delta {
                            serde_json::Value::String(s) => s,
                            other => other.to_string(),
                        }),
                    }),
                    None => handler.notification(method, params),
                }
            }
            _ => handler.notification(method, params),
        }
    }

    fn dispatch_response(&self, id: RequestId, result: Result<&RawValue, ErrorObject>) {
        match self.finish_pending(&id) {
            Some(call) => {
                let answer = result.map(RawValue::to_owned).map_err(Error::Rpc);
                let _ = call.tx.send(Settled::Answer(answer));
            }
            None => {
                tracing::debug!(%id, "response to no pending request (late or unknown); ignored")
            }
        }
    }

    // The request's parts as the reader decoded them, where its answer goes, and what it holds.
    #[allow(clippy::too_many_arguments)]
    async fn dispatch_request(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        handler: &Arc<dyn Handler>,
        sink: Sink,
        charge: Charge,
        related: Option<&RequestId>,
    ) {
        // A token of its own (a child of `closed` would cost a lock on every request and every drop):
        // the connection's close cancels every registered token instead.
        let token = CancellationToken::new();
        // A handler that panics while deciding (a user's `Deserialize`, say) fails this request alone.
        let reply = std::panic::catch_unwind(AssertUnwindSafe(|| {
            handler.request(RequestIn {
                id: &id,
                method,
                params,
                token: &token,
                related,
            })
        }))
        .unwrap_or_else(|panic| Reply::Now(Err(panicked(panic))));
        let (fut, cancellable) = match reply.into_work() {
            Ok(work) => work,
            Err(r) => {
                let answer = Answer {
                    id,
                    token: None,
                    permits: None,
                    charge,
                };
                return answer.deliver(self, &sink, r).await;
            }
        };
        // Backpressure: when the queue is full the reader waits here and stops reading.
        let Ok(slot) = self.shared.queue.clone().acquire_owned().await else {
            return;
        };
        let guard = if cancellable {
            match self.shared.cancels.register(id.clone(), token.clone()) {
                Some(g) => {
                    if self.shared.closed.is_cancelled() {
                        // The connection closed before the registry knew this request.
                        token.cancel();
                    }
                    Some(g)
                }
                None => {
                    let e = ErrorObject::invalid_request(format!(
                        "Invalid Request: id {id} is already in flight"
                    ));
                    let answer = Answer {
                        id,
                        token: None,
                        permits: None,
                        charge,
                    };
                    return answer.deliver(self, &sink, Err(e)).await;
                }
            }
        } else {
            None
        };
        let mut fut = CatchUnwind::new(AssertUnwindSafe(fut));
        let limit = self.shared.limit.clone();
        let mut run = None;
        if self.shared.config.inline_first_poll {
            if let Ok(permit) = limit.clone().try_acquire_owned() {
                // The first poll runs here, on the reader: most handlers finish in it.
                let polled =
                    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut fut).poll(cx))).await;
                if let Poll::Ready(r) = polled {
                    drop(guard);
                    let answer = Answer {
                        id,
                        token: Some(token),
                        permits: Some((slot, permit)),
                        charge,
                    };
                    return answer.deliver(self, &sink, settle(r)).await;
                }
                run = Some(permit);
            }
        }
        let peer = self.clone();
        let grace = self.shared.config.cancel_grace;
        // A request outside the registry still ends when the connection closes.
        let _on_close = (!cancellable).then(|| {
            let (closed, token) = (self.shared.closed.clone(), token.clone());
            AbortOnDrop(tokio::spawn(async move {
                closed.cancelled().await;
                token.cancel();
            }))
        });
        tokio::spawn(async move {
            let _on_close = _on_close;
            // Wait for a run permit; a request cancelled while it waits never runs.
            let run = match run.map_or_else(|| limit.clone().try_acquire_owned(), Ok) {
                Ok(p) => p,
                Err(_) => tokio::select! {
                    p = limit.acquire_owned() => match p { Ok(p) => p, Err(_) => return },
                    _ = token.cancelled() => return,
                },
            };
            let result = supervise(fut, &token, grace).await;
            drop::<Option<CancelGuard>>(guard);
            let Some(result) = result else { return };
            let answer = Answer {
                id,
                token: Some(token),
                permits: Some((slot, run)),
                charge,
            };
            answer.deliver(&peer, &sink, result).await;
        });
    }

    async fn dispatch_batch(
        &self,
        items: Vec<&RawValue>,
        handler: &Arc<dyn Handler>,
        mut charge: Charge,
    ) {
        if !handler.allows_batch() {
            let e = ErrorObject::invalid_request(
                "Invalid Request: batches are only allowed in protocol 2025-03-26",
            );
            let _ = self
                .send(Outgoing::new(
                    frame::error(None, &e),
                    OutKind::Notification,
                    None,
                ))
                .await;
            return;
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut expected = 0usize;
        for item in items {
            let item_charge = charge.split(item.get().len());
            match framing::decode_str(item.get()) {
                Incoming::Request { method, .. } if method == methods::INITIALIZE => {
                    let e = ErrorObject::invalid_request(
                        "Invalid Request: initialize must not be part of a batch",
                    );
                    let _ = tx.send(frame::error(None, &e));
                    expected += 1;
                }
                Incoming::Request { id, method, params } => {
                    expected += 1;
                    self.dispatch_request(
                        id,
                        &method,
                        params,
                        handler,
                        Sink::Collect(tx.clone()),
                        item_charge,
                        None,
                    )
                    .await;
                }
                Incoming::Batch(_) => {
                    let e = ErrorObject::invalid_request("Invalid Request: nested batch");
                    let _ = tx.send(frame::error(None, &e));
                    expected += 1;
                }
                Incoming::Invalid { id, error } => {
                    let _ = tx.send(frame::error(id.as_ref(), &error));
                    expected += 1;
                }
                other => Box::pin(self.dispatch(other, handler)).await,
            }
        }
        drop(tx);
        drop(charge);
        if expected == 0 {
            return;
        }
        let peer = self.clone();
        tokio::spawn(async move {
            let mut parts = Vec::new();
            while let Some(f) = rx.recv().await {
                parts.push(f);
            }
            if parts.is_empty() {
                return;
            }
            let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum::<usize>() + 2);
            out.push(b'[');
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(&p[..p.len() - 1]);
            }
            out.extend_from_slice(b"]\n");
            let _ = peer
                .send(Outgoing::new(out, OutKind::Notification, None))
                .await;
        });
    }
}

/// What an answer carries to the writer besides its frame: the request's id, its token (checked once
/// more before writing), its queue slot and run permit, and its bytes on the budget.
struct Answer {
    id: RequestId,
    token: Option<CancellationToken>,
    permits: Option<(OwnedSemaphorePermit, OwnedSemaphorePermit)>,
    charge: Charge,
}

impl Answer {
    /// Frames the result and hands it on; nothing for a cancelled request.
    async fn deliver(self, peer: &Peer, sink: &Sink, result: Outcome) {
        if self.token.as_ref().is_some_and(|t| t.is_cancelled()) {
            if let Ok(Answered::Frame(f)) = result {
                crate::bufpool::give(f);
            }
            return;
        }
        let frame = match result {
            Ok(Answered::Frame(f)) => f,
            Ok(Answered::Json(r)) => frame::response(&self.id, &r),
            Err(e) => frame::error(Some(&self.id), &e),
        };
        // The request's bytes become the answer's, charged without waiting (see `budget`).
        let charge = peer.shared.budget.charge_out(frame.len());
        drop(self.charge);
        match sink {
            Sink::Writer => {
                let mut out =
                    Outgoing::new(frame, OutKind::Response(self.id.clone()), Some(self.id));
                out.token = self.token;
                out._permits = self.permits;
                out.charge = charge;
                let mut out = Some(out);
                if let Some(now) = peer.shared.write_now.get() {
                    now.write_now(&mut out);
                }
                if let Some(out) = out {
                    let _ = peer.queue(out).await;
                }
            }
            Sink::Collect(tx) => {
                let _ = tx.send(frame);
            }
        }
    }
}

/// Where a request's reply goes.
enum Sink {
    Writer,
    Collect(mpsc::UnboundedSender<Vec<u8>>),
}

/// Sends `notifications/cancelled` if the request future is dropped before its answer came.
struct InFlight<'a> {
    peer: &'a Peer,
    id: RequestId,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        if self
            .peer
            .finish_pending(&self.id)
            .is_some_and(|call| call.cancel)
        {
            self.peer.send_cancelled(self.id.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use tokio::io::{
        AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
    };

    struct Nothing;
    impl Handler for Nothing {
        fn request(&self, req: RequestIn<'_>) -> Reply {
            Reply::Now(Err(ErrorObject::method_not_found(req.method)))
        }
        fn notification(&self, _: &str, _: Option<&RawValue>) {}
    }

    /// A connection whose peer is the test: the lines our side writes, and the peer's output.
    fn connection() -> (
        Peer,
        Lines<BufReader<ReadHalf<DuplexStream>>>,
        WriteHalf<DuplexStream>,
    ) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(ours);
        let (peer, out) = Peer::new(ConnectionConfig::default());
        tokio::spawn(run(r, w, peer.clone(), out, Arc::new(Nothing)));
        let (r, w) = tokio::io::split(theirs);
        (peer, BufReader::new(r).lines(), w)
    }

    async fn next(lines: &mut Lines<BufReader<ReadHalf<DuplexStream>>>) -> Value {
        let line = lines.next_line().await.unwrap().expect("a line");
        serde_json::from_str(&line).unwrap()
    }

    type Call = tokio::task::JoinHandle<(Result<Box<RawValue>, Error>, Duration)>;

    /// Sends `method` with id `id` and time limit `ms` (`None`: the connection's 60 s), in a task.
    fn call(peer: &Peer, id: i64, method: &'static str, ms: Option<u64>) -> Call {
        let (peer, t0) = (peer.clone(), Instant::now());
        let opts = RequestOptions {
            timeout: ms.map(Duration::from_millis),
            ..RequestOptions::default()
        };
        tokio::spawn(async move {
            let r = peer
                .request_with_id(RequestId::Number(id), method, None, opts)
                .await;
            (r, t0.elapsed())
        })
    }

    /// The call `id` fails with its timeout after `secs`, and the peer is told.
    async fn times_out(
        call: Call,
        id: i64,
        secs: u64,
        lines: &mut Lines<BufReader<ReadHalf<DuplexStream>>>,
    ) {
        let (r, elapsed) = call.await.unwrap();
        let after = Duration::from_secs(secs);
        match r {
            Err(Error::Timeout { method, after: a }) => {
                assert_eq!((method.as_str(), a), ("tools/call", after))
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
        assert!(
            elapsed >= after && elapsed < after + Duration::from_millis(20),
            "timed out after {elapsed:?}, its limit {after:?}"
        );
        cancelled(&next(lines).await, id);
    }

    fn cancelled(v: &Value, id: i64) {
        assert_eq!(v["method"], "notifications/cancelled", "{v}");
        assert_eq!(v["params"]["requestId"], id, "{v}");
    }

    // One deadline task serves every request: each still times out at its own limit, whatever the
    // order the limits come in, an answered request never times out, and each timeout tells the peer.
    #[tokio::test(start_paused = true)]
    async fn each_request_times_out_at_its_own_limit_in_any_order() {
        let (peer, mut lines, mut w) = connection();
        let long = call(&peer, 1, "tools/call", Some(10_000));
        tokio::task::yield_now().await;
        let default = call(&peer, 2, "tools/call", None);
        tokio::task::yield_now().await;
        let short = call(&peer, 3, "tools/call", Some(1_000));
        tokio::task::yield_now().await;
        let answered = call(&peer, 4, "tools/call", Some(500));
        for id in 1..=4 {
            assert_eq!(next(&mut lines).await["id"], id);
        }
        w.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n")
            .await
            .unwrap();
        let (r, _) = answered.await.unwrap();
        assert_eq!(r.unwrap().get(), "{}");

        times_out(short, 3, 1, &mut lines).await;
        // A late answer to a request that timed out is ignored.
        w.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n")
            .await
            .unwrap();
        times_out(long, 1, 10, &mut lines).await;
        times_out(default, 2, 60, &mut lines).await;

        // With nothing pending the task has no alarm; a new request sets one again.
        let again = call(&peer, 5, "tools/call", Some(2_000));
        assert_eq!(next(&mut lines).await["id"], 5);
        times_out(again, 5, 2, &mut lines).await;
    }

    // `initialize` times out like any request but is never cancelled; a request of ours dropped by its
    // caller before its deadline is cancelled once, and its deadline fails nothing later.
    #[tokio::test(start_paused = true)]
    async fn initialize_times_out_without_a_cancel_and_a_dropped_request_is_cancelled_once() {
        let (peer, mut lines, _w) = connection();
        let init = call(&peer, 1, "initialize", Some(1_000));
        assert_eq!(next(&mut lines).await["id"], 1);
        match init.await.unwrap() {
            (Err(Error::Timeout { method, .. }), _) => assert_eq!(method, "initialize"),
            other => panic!("{other:?}"),
        }
        let dropped = call(&peer, 2, "tools/call", Some(1_000));
        assert_eq!(next(&mut lines).await["id"], 2);
        dropped.abort();
        cancelled(&next(&mut lines).await, 2);
        tokio::time::sleep(Duration::from_secs(5)).await;
        // The next line is this request: no cancel for `initialize`, none more for the dropped one.
        let last = call(&peer, 3, "tools/call", Some(1_000));
        assert_eq!(next(&mut lines).await["id"], 3);
        times_out(last, 3, 1, &mut lines).await;
    }

    // A limit past what a clock can hold (`Duration::MAX`, a stream that stays open) is no limit.
    #[tokio::test(start_paused = true)]
    async fn a_limit_too_far_to_reach_never_times_out() {
        let (peer, mut lines, mut w) = connection();
        let open = call(&peer, 1, "tools/call", Some(u64::MAX));
        assert_eq!(next(&mut lines).await["id"], 1);
        tokio::time::sleep(Duration::from_secs(3600)).await;
        w.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")
            .await
            .unwrap();
        assert_eq!(open.await.unwrap().0.unwrap().get(), "{}");
    }
}
