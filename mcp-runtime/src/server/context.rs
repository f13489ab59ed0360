//! What a handler gets besides its arguments: cancellation, progress, logging, and requests to the client.
//!
//! The same handler code serves both eras. [`Context::elicit`], [`Context::create_message`] and
//! [`Context::list_roots`] send a real request to a handshake-era client; under protocol 2026-07-28 the
//! server sends no requests, so they end the call with `resultType: "input_required"` and the handler
//! runs again, from the start, when the client retries with the answers, which it then gets in the order
//! it asks. **A handler may therefore run more than once for one call**: work before its first input
//! request is repeated on every round; do side effects after the inputs are in, or make them idempotent.
//!
//! Inside a task (see `server::tasks`) the handler is not re-run: it waits for the answer, which comes
//! through `tasks/result` (a real request tagged with the task, handshake era) or `tasks/update`
//! (2026-07-28), while the task is `input_required`.

use super::era::ModernRequest;
use super::mrtr::InputRound;
use super::session_state::SessionState;
use super::task_channel::{with_related_task, NotifyRoute, TaskAnswer, TaskChannel};
use crate::connection::{Peer, RequestOptions};
use crate::error::Error;
use crate::framing::to_raw;
use crate::protocol::{
    methods, ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams,
    ElicitResult, ErrorObject, Implementation, InputRequest, ListRootsResult, LoggingLevel,
    LoggingMessageParams, ProgressParams, ProgressToken, ProtocolVersion, RequestId,
};
use serde::de::DeserializeOwned;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// An input request with a key the handler chose; see [`Context::input`].
pub struct NamedInput<'a> {
    ctx: &'a Context,
    key: &'a str,
}

impl NamedInput<'_> {
    /// [`Context::elicit`], answered under this key.
    pub async fn elicit(self, params: ElicitParams) -> Result<ElicitResult, Error> {
        self.ctx.input_elicit(Some(self.key), params).await
    }
    /// [`Context::create_message`], answered under this key.
    pub async fn create_message(
        self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, Error> {
        self.ctx.input_create_message(Some(self.key), params).await
    }
    /// [`Context::list_roots`], answered under this key.
    pub async fn list_roots(self) -> Result<ListRootsResult, Error> {
        self.ctx.input_list_roots(Some(self.key)).await
    }
}

/// The downstream session a request belongs to: its connection over stdio, its `Mcp-Session-Id` over
/// Streamable HTTP, its event stream over legacy HTTP+SSE. A handler keeps per-session state under
/// [`SessionHandle::id`] and drops it when [`SessionHandle::ended`] resolves (the client closed the
/// connection, sent `DELETE`, or the session expired). See [`Context::session`].
#[derive(Clone)]
pub struct SessionHandle {
    id: u64,
    peer: Peer,
}

impl SessionHandle {
    /// Names this session within this process; never given to another session while it runs.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Whether the session has ended.
    pub fn is_ended(&self) -> bool {
        self.peer.is_closed()
    }

    /// Resolves when the session ends (at once if it has).
    pub async fn ended(&self) {
        self.peer.closed().await
    }
}

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHandle")
            .field("id", &self.id)
            .finish()
    }
}

/// The context of one request. Cheap to clone; a `#[tool]` function takes it as an argument of type
/// `Context` and it stays out of the tool's schema.
#[derive(Clone)]
pub struct Context {
    pub(crate) session: Arc<SessionState>,
    request_id: RequestId,
    token: CancellationToken,
    progress_token: Option<ProgressToken>,
    last_progress: Arc<AtomicU64>,
    // The caller's verified identity (HTTP with a token verifier); see `crate::identity`.
    auth: Option<Arc<crate::AuthInfo>>,
    /// A 2026-07-28 request's own declarations (`None`: the handshake era, served by the session).
    modern: Option<Arc<ModernRequest>>,
    /// Where input requests go.
    input: Input,
    /// The W3C trace the request carried (`_meta.traceparent`, else the HTTP headers); see
    /// [`crate::trace_context`].
    trace: Option<Arc<crate::TraceContext>>,
}

/// Where a handler's input requests (`elicit`, `create_message`, `list_roots`) go.
#[derive(Clone)]
pub(crate) enum Input {
    /// Handshake era: a real request to the client.
    Direct,
    /// 2026-07-28, a request that cannot ask (anything but `tools/call`, `prompts/get`, `resources/read`).
    Unavailable,
    /// 2026-07-28: a multi round-trip round (the call ends with `input_required`).
    Round(Arc<InputRound>),
    /// A task, or a call that may become one: the handler waits for the answer (see `server::tasks`).
    Task(Arc<dyn TaskChannel>),
}

impl Context {
    pub(crate) fn new(
        session: Arc<SessionState>,
        request_id: RequestId,
        token: CancellationToken,
        progress_token: Option<ProgressToken>,
    ) -> Self {
        Context {
            session,
            request_id,
            token,
            progress_token,
            last_progress: Arc::new(AtomicU64::new(f64::NEG_INFINITY.to_bits())),
            auth: crate::identity::current(),
            modern: None,
            input: Input::Direct,
            trace: crate::TraceContext::from_transport().map(Arc::new),
        }
    }

    /// The trace the request's `_meta` carried, when it carried a valid one (it wins over the headers).
    pub(crate) fn with_trace(mut self, trace: Option<crate::TraceContext>) -> Self {
        if let Some(t) = trace {
            self.trace = Some(Arc::new(t));
        }
        self
    }

    /// The W3C trace context the request carried (SEP-414): `_meta.traceparent` and `tracestate`, or
    /// on HTTP the `traceparent` and `tracestate` headers; `None` when it carried no valid one. Its
    /// parent id is the caller's span. The handler runs in a child span ([`crate::TraceContext::current`]),
    /// which the requests a [`crate::Client`] sends from it carry as their parent.
    pub fn trace_context(&self) -> Option<&crate::TraceContext> {
        self.trace.as_deref()
    }

    /// Who is calling: the subject, client, scopes and claims of the access token the HTTP transport
    /// verified for this request. `None` without authentication (stdio, or no token verifier).
    pub fn auth(&self) -> Option<&crate::AuthInfo> {
        self.auth.as_deref()
    }

    /// This context serves a 2026-07-28 request.
    pub(crate) fn modern(mut self, m: Arc<ModernRequest>, input: Option<Arc<InputRound>>) -> Self {
        self.modern = Some(m);
        self.input = input.map_or(Input::Unavailable, Input::Round);
        self
    }

    /// Sends this handler's input requests elsewhere (a task's channel).
    pub(crate) fn with_input(mut self, input: Input) -> Self {
        self.input = input;
        self
    }

    /// A notification from this handler: beside the request's answer, or (a task) where the task's
    /// messages go, tagged with the task.
    async fn notify<P: serde::Serialize>(&self, method: &str, params: &P) {
        let route = match &self.input {
            Input::Task(t) => t.notify_route(),
            _ => NotifyRoute::Request,
        };
        let tagged = |task_id: &str| {
            let v = serde_json::to_value(params).unwrap_or_default();
            to_raw(&with_related_task(v, task_id))
        };
        let (raw, related) = match route {
            NotifyRoute::Nowhere => return,
            NotifyRoute::Request => (to_raw(params), Some(self.request_id.clone())),
            NotifyRoute::Task { task_id, related } => (tagged(&task_id), related),
            NotifyRoute::TaskElsewhere {
                task_id,
                waiter,
                shared,
            } => {
                if let Ok(raw) = tagged(&task_id) {
                    let frame = crate::framing::frame::notification(method, Some(&raw));
                    shared.relay(task_id, waiter, frame).await;
                }
                return;
            }
        };
        if let Ok(raw) = raw {
            let _ = self.session.peer.notify(method, Some(&raw), related).await;
        }
    }

    /// Marks the point from which this call runs as a task, when the server may make it one (a
    /// 2026-07-28 call of a task tool by a client that declared the tasks extension): the call is
    /// answered with the task now, and the handler goes on in the background; input it asks for after
    /// this waits for `tasks/update` instead of ending the call. Anywhere else (a direct call, a
    /// handshake-era task, a call already a task) it returns at once. Without it, a call becomes a task
    /// when it outlasts its immediate window (see `server::tasks`).
    pub async fn continue_as_task(&self) {
        if let Input::Task(t) = &self.input {
            t.continue_as_task().await;
        }
    }

    /// Whether this request is served by the stateless rules of protocol 2026-07-28.
    pub fn is_modern(&self) -> bool {
        self.modern.is_some()
    }

    /// The server serving this request (to change its tools, prompts or resources, or notify).
    pub fn server(&self) -> super::Server {
        super::Server {
            inner: self.session.server.clone(),
        }
    }

    /// Who the transport authenticated, if it did (for example the subject of a verified bearer token).
    pub fn principal(&self) -> Option<&str> {
        self.session.principal()
    }

    /// The session this request belongs to. `None` for a request that belongs to no session: a
    /// 2026-07-28 request (stateless by design: it declares everything about itself, and the next one
    /// may reach another connection or instance) and a request to a stateless HTTP server (each POST
    /// stands alone).
    pub fn session(&self) -> Option<SessionHandle> {
        if self.modern.is_some() || self.session.is_one_request() {
            return None;
        }
        Some(SessionHandle {
            id: self.session.id,
            peer: self.session.peer.clone(),
        })
    }

    /// The id of the request being handled.
    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// Cancelled when the client sends `notifications/cancelled` for this request or goes away.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.token
    }

    /// Whether the request was cancelled (`notifications/cancelled`, or the client went away); a handler that
    /// sees it may stop, as its answer will not be sent.
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Resolves when the request is cancelled.
    pub async fn cancelled(&self) {
        self.token.cancelled().await
    }

    /// The progress token the client attached, if any.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.progress_token.as_ref()
    }

    /// Reports progress. Does nothing when the request carried no progress token, and drops a value that
    /// does not increase (the spec requires progress to increase).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let last = f64::from_bits(self.last_progress.load(Ordering::Relaxed));
        if progress.is_nan() || progress <= last {
            tracing::debug!(progress, last, "non-increasing progress dropped");
            return;
        }
        self.last_progress
            .store(progress.to_bits(), Ordering::Relaxed);
        let params = ProgressParams {
            progress_token: token.clone(),
            progress,
            total,
            message,
        };
        self.notify(methods::PROGRESS, &params).await;
    }

    /// Sends `notifications/message` if the client's level lets it through.
    pub async fn log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: impl serde::Serialize,
    ) {
        let wanted = match &self.modern {
            // 2026-07-28: only when the request asked for a level, and at or above it.
            Some(m) => m.log_level.is_some_and(|min| level >= min),
            None => self.session.log_enabled(level),
        };
        if !wanted {
            return;
        }
        let params = LoggingMessageParams {
            level,
            logger: logger.map(Into::into),
            data: serde_json::to_value(data).unwrap_or(serde_json::Value::Null),
        };
        self.notify(methods::MESSAGE, &params).await;
    }

    /// Logs a text at `info`.
    pub async fn info(&self, text: impl Into<String>) {
        self.log(LoggingLevel::Info, None, text.into()).await
    }

    /// The protocol version of this request: the one it declares (2026-07-28), or the one `initialize`
    /// negotiated.
    pub fn protocol_version(&self) -> ProtocolVersion {
        match &self.modern {
            Some(m) => m.version,
            None => self.session.version(),
        }
    }

    /// What the client declared: in this request's `_meta` (2026-07-28), or at `initialize`.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.client_capabilities_ref().into_owned()
    }

    /// [`Context::client_capabilities`], borrowed where it can be: a relay reads a few of them on
    /// every call, and the whole declaration (its maps of extensions) need not be copied for that.
    pub fn client_capabilities_ref(&self) -> std::borrow::Cow<'_, ClientCapabilities> {
        use std::borrow::Cow;
        match &self.modern {
            Some(m) => Cow::Borrowed(&m.capabilities),
            None => match self.session.client_caps.get() {
                Some(c) => Cow::Borrowed(c),
                None => Cow::Owned(ClientCapabilities::default()),
            },
        }
    }

    /// Who the client is: `clientInfo` of `initialize`, or of the 2026-07-28 request's `_meta`; `None` when
    /// it did not say.
    pub fn client_info(&self) -> Option<Implementation> {
        match &self.modern {
            Some(m) => m.client_info.clone(),
            None => self.session.client_info.get().cloned(),
        }
    }

    /// Asks the client for input. `missing` names the capability the request needs when the client
    /// lacks it (as a `ClientCapabilities` object, e.g. `{"sampling": {}}`), with its short name.
    async fn ask<R: DeserializeOwned>(
        &self,
        key: Option<&str>,
        request: InputRequest,
        missing: Option<(&'static str, serde_json::Value)>,
    ) -> Result<R, Error> {
        let round = match &self.input {
            // A call that may become a task asks as a multi round-trip call until it is one.
            Input::Task(t) => match t.round() {
                Some(r) => Some(r),
                None => {
                    let method = request.method();
                    let value = match t.ask(key, request, missing).await? {
                        TaskAnswer::Raw(raw) => serde_json::from_str(raw.get()),
                        TaskAnswer::Value(v) => serde_json::from_value(v),
                    };
                    return value.map_err(|e| Error::Decode {
                        method: method.into(),
                        reason: e.to_string(),
                    });
                }
            },
            Input::Round(r) => Some(r.clone()),
            _ => None,
        };
        if self.modern.is_some() {
            let Some(round) = round else {
                return Err(Error::Protocol(format!(
                    "{} is not possible here: under protocol 2026-07-28 only tools/call, prompts/get and                      resources/read can ask the client for input",
                    request.method()
                )));
            };
            if let Some((_, required)) = missing {
                // The request cannot be served: -32021 names what the client must declare.
                return Ok(round
                    .refuse(ErrorObject::missing_client_capability(required))
                    .await);
            }
            return Ok(round.ask(key.map(str::to_string), request).await);
        }
        if let Some((name, _)) = missing {
            return Err(Error::CapabilityMissing(name));
        }
        match request {
            InputRequest::Elicit(p) => self.request(methods::ELICITATION_CREATE, &p).await,
            InputRequest::CreateMessage(p) => {
                self.request(methods::SAMPLING_CREATE_MESSAGE, &p).await
            }
            InputRequest::ListRoots => {
                self.request(methods::ROOTS_LIST, &serde_json::json!({}))
                    .await
            }
        }
    }

    /// `sampling/createMessage`: asks the client's model. Refused without the `sampling` capability (and
    /// `sampling.tools` when the request offers tools): an error in the handshake era, `-32021` for the
    /// whole request under 2026-07-28. Under 2026-07-28 this becomes an input request (see the module
    /// docs: the handler runs again with the answer).
    pub async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, Error> {
        self.input_create_message(None, params).await
    }

    async fn input_create_message(
        &self,
        key: Option<&str>,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, Error> {
        let caps = self.client_capabilities();
        let missing = match &caps.sampling {
            None => Some(("sampling", serde_json::json!({"sampling": {}}))),
            Some(s) if params.tools.is_some() && s.tools.is_none() => Some((
                "sampling.tools",
                serde_json::json!({"sampling": {"tools": {}}}),
            )),
            Some(_) => None,
        };
        self.ask(key, InputRequest::CreateMessage(params), missing)
            .await
    }

    /// `elicitation/create`: asks the user. Refused without the `elicitation` capability (or its URL
    /// mode). Under 2026-07-28 this becomes an input request (see the module docs).
    pub async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, Error> {
        self.input_elicit(None, params).await
    }

    async fn input_elicit(
        &self,
        key: Option<&str>,
        mut params: ElicitParams,
    ) -> Result<ElicitResult, Error> {
        let caps = self.client_capabilities();
        let missing = match &caps.elicitation {
            None => Some(("elicitation", serde_json::json!({"elicitation": {}}))),
            Some(el) if params.is_url() && !el.supports_url() => Some((
                "elicitation.url",
                serde_json::json!({"elicitation": {"url": {}}}),
            )),
            Some(el) if !params.is_url() && !el.supports_form() => Some((
                "elicitation.form",
                serde_json::json!({"elicitation": {"form": {}}}),
            )),
            Some(_) => None,
        };
        if self.modern.is_some() {
            // 2026-07-28 has no elicitation ids: the retry itself tells the outcome.
            params.elicitation_id = None;
        }
        self.ask(key, InputRequest::Elicit(params), missing).await
    }

    /// `roots/list`. Refused without the `roots` capability. Under 2026-07-28 this becomes an input
    /// request (see the module docs).
    pub async fn list_roots(&self) -> Result<ListRootsResult, Error> {
        self.input_list_roots(None).await
    }

    async fn input_list_roots(&self, key: Option<&str>) -> Result<ListRootsResult, Error> {
        let missing = self
            .client_capabilities()
            .roots
            .is_none()
            .then(|| ("roots", serde_json::json!({"roots": {}})));
        self.ask(key, InputRequest::ListRoots, missing).await
    }

    /// Names the next input request: under 2026-07-28 the client answers it under this key (`inputRequests`
    /// and `inputResponses` are maps by key). Without a name a key is made from the request's kind and
    /// position (`elicit-1`). A key names one question: asking it again in the same call gets the same
    /// answer. Ignored in the handshake era, where input requests are real requests.
    ///
    /// ```no_run
    /// # async fn demo(ctx: mcp_runtime::Context, form: mcp_runtime::protocol::ElicitParams) {
    /// let answer = ctx.input("user_name").elicit(form).await;
    /// # }
    /// ```
    pub fn input<'a>(&'a self, key: &'a str) -> NamedInput<'a> {
        NamedInput { ctx: self, key }
    }

    /// Any request to the client, on behalf of this one (handshake era only: a 2026-07-28 server sends no
    /// requests; use [`Context::elicit`], [`Context::create_message`] or [`Context::list_roots`]).
    pub async fn request<P: serde::Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, Error> {
        if self.modern.is_some() {
            return Err(Error::Protocol(format!(
                "a server sends no requests under protocol 2026-07-28 ({method} was asked)"
            )));
        }
        if let Input::Task(t) = &self.input {
            let v = serde_json::to_value(params).map_err(|e| Error::Protocol(e.to_string()))?;
            if let Some(r) = t.request(method, v).await {
                return serde_json::from_str(r?.get()).map_err(|e| Error::Decode {
                    method: method.into(),
                    reason: e.to_string(),
                });
            }
        }
        let raw = to_raw(params).map_err(|e| Error::Protocol(e.message))?;
        let opts = RequestOptions {
            related: Some(self.request_id.clone()),
            ..Default::default()
        };
        let fut = self.session.peer.request(method, Some(&raw), opts);
        let result = tokio::select! {
            r = fut => r?,
            _ = self.token.cancelled() => return Err(Error::Protocol("the request was cancelled".into())),
        };
        serde_json::from_str(result.get()).map_err(|e| Error::Decode {
            method: method.into(),
            reason: e.to_string(),
        })
    }
}
