//! What a connection's owner plugs into it: a [`Handler`] that answers each [`RequestIn`] with a
//! [`Reply`] (at once, framed, or as work to run), the [`Outgoing`] frames it queues, and how a handler's
//! outcome is supervised (a panic fails its request alone; a cancelled one gets a grace period).

use super::*;

/// What a frame is, for transports that route frames (Streamable HTTP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutKind {
    /// The response to the peer's request with this id.
    Response(RequestId),
    /// A request of ours, with the id we gave it.
    Request(RequestId),
    /// A notification.
    Notification,
}

/// A frame on its way to the writer.
pub struct Outgoing {
    /// One complete message, ending in `\n`.
    pub frame: Vec<u8>,
    /// What the frame is, for routing.
    pub kind: OutKind,
    /// The incoming request this frame belongs to (progress, logs and requests sent from its handler).
    pub related: Option<RequestId>,
    pub(super) token: Option<CancellationToken>,
    /// The request's queue slot and run permit, released once the response is written.
    pub(super) _permits: Option<(OwnedSemaphorePermit, OwnedSemaphorePermit)>,
    /// The bytes this frame holds on the budget, given back once it is written (or routed, on HTTP).
    pub(super) charge: Charge,
    /// Signalled once this frame (and everything queued before it) is written.
    pub(super) written: Option<oneshot::Sender<()>>,
}

impl Outgoing {
    /// A frame ready for the writer, holding no permit, token or budget charge.
    pub fn new(frame: Vec<u8>, kind: OutKind, related: Option<RequestId>) -> Self {
        Outgoing {
            frame,
            kind,
            related,
            token: None,
            _permits: None,
            charge: Charge::none(),
            written: None,
        }
    }
    /// The bytes this frame holds on the budget, for whoever keeps the frame after routing it (an SSE
    /// event waiting for its write to the shared event log).
    #[cfg(feature = "http")]
    pub(crate) fn take_charge(&mut self) -> Charge {
        std::mem::replace(&mut self.charge, Charge::none())
    }

    /// A response whose request was cancelled after it was queued: drop it.
    pub fn is_cancelled(&self) -> bool {
        self.token
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }
}

/// How a request is answered.
pub enum Reply {
    /// Answer now, without a task (errors, `ping`, cheap lookups).
    Now(Result<Box<RawValue>, ErrorObject>),
    /// Run in its own task. `cancellable: false` for `initialize`.
    Spawn {
        /// The handler's work; its output becomes the response.
        fut: BoxFuture<'static, Result<Box<RawValue>, ErrorObject>>,
        /// Whether `notifications/cancelled` may cancel it (`false` for `initialize`).
        cancellable: bool,
    },
    /// Like [`Reply::Spawn`], for a handler that writes its answer's frame itself: its output is the
    /// complete success response to this request (as [`frame::response_to`] writes it), with the result
    /// serialized straight into the frame instead of into JSON text that the pump then copies. An `Err`
    /// is framed by the pump.
    Framed {
        /// The handler's work; its output is the response frame.
        fut: BoxFuture<'static, Result<Vec<u8>, ErrorObject>>,
        /// Whether `notifications/cancelled` may cancel it.
        cancellable: bool,
    },
}

/// A handler's answer on its way to the writer: JSON text to frame, or the frame itself.
pub(super) enum Answered {
    Json(Box<RawValue>),
    Frame(Vec<u8>),
}

pub(super) type JsonOut = Result<Box<RawValue>, ErrorObject>;

pub(super) type FrameOut = Result<Vec<u8>, ErrorObject>;

/// A reply's running work: its future, whose output becomes an [`Outcome`].
pub(super) enum Work {
    Json(BoxFuture<'static, JsonOut>),
    Frame(BoxFuture<'static, FrameOut>),
}

impl Future for Work {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Outcome> {
        match self.get_mut() {
            Work::Json(f) => f.as_mut().poll(cx).map(|r| r.map(Answered::Json)),
            Work::Frame(f) => f.as_mut().poll(cx).map(|r| r.map(Answered::Frame)),
        }
    }
}

pub(super) type Outcome = Result<Answered, ErrorObject>;

impl Reply {
    /// The work of a reply that runs: its future, whether it may be cancelled. `Err`: the answer now.
    pub(super) fn into_work(self) -> Result<(Work, bool), Outcome> {
        match self {
            Reply::Now(r) => Err(r.map(Answered::Json)),
            Reply::Spawn { fut, cancellable } => Ok((Work::Json(fut), cancellable)),
            Reply::Framed { fut, cancellable } => Ok((Work::Frame(fut), cancellable)),
        }
    }
}

/// An incoming request, as the dispatcher sees it.
pub struct RequestIn<'a> {
    /// The request's id.
    pub id: &'a RequestId,
    /// The method, such as `tools/call`.
    pub method: &'a str,
    /// The params, unparsed; `None` when absent.
    pub params: Option<&'a RawValue>,
    /// Cancelled by `notifications/cancelled`, or when the peer goes away.
    pub token: &'a CancellationToken,
    /// The request of ours this one was sent on behalf of, when the transport tells (a Streamable HTTP
    /// server sends it on the answer stream of that request's POST); `None` on stdio and other single
    /// streams, whose wire carries no such association.
    pub related: Option<&'a RequestId>,
}

/// The service side of a connection: what to do with requests and notifications from the peer.
pub trait Handler: Send + Sync + 'static {
    /// Decides how to answer a request: at once, or in a task of its own. Called inline by the reader; must
    /// not block.
    fn request(&self, req: RequestIn<'_>) -> Reply;
    /// Called inline by the reader; must not block.
    fn notification(&self, method: &str, params: Option<&RawValue>);
    /// Whether a JSON array of messages is acceptable now (2025-03-26 only).
    fn allows_batch(&self) -> bool {
        false
    }
    /// The connection has closed.
    fn closed(&self) {}
}

pub(super) type Handled = Result<Outcome, Box<dyn Any + Send>>;

pub(super) type Supervised = CatchUnwind<AssertUnwindSafe<Work>>;

/// A handler's outcome: a panic becomes `-32603` for this request alone.
pub(super) fn settle(r: Handled) -> Outcome {
    r.unwrap_or_else(|panic| Err(panicked(panic)))
}

/// The error a request whose handler panicked is answered with.
pub(super) fn panicked(panic: Box<dyn Any + Send>) -> ErrorObject {
    let msg = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    tracing::error!(%msg, "request handler panicked");
    ErrorObject::internal(format!("Internal error: the handler panicked: {msg}"))
}

/// Runs a handler to its end; after cancellation the handler gets `grace` to stop by itself, then it is
/// dropped (aborted).
pub(super) async fn supervise(
    fut: Supervised,
    token: &CancellationToken,
    grace: Duration,
) -> Option<Outcome> {
    tokio::select! {
        biased;
        r = fut => Some(settle(r)),
        _ = async { token.cancelled().await; tokio::time::sleep(grace).await } => {
            tracing::debug!("cancelled handler did not stop within the grace period; aborted");
            None
        }
    }
}
