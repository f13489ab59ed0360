//! What a handler gets besides its arguments: cancellation, progress, logging, and requests to the client.

use super::session::SessionState;
use crate::connection::RequestOptions;
use crate::error::Error;
use crate::framing::to_raw;
use crate::protocol::{
    methods, ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams,
    ElicitResult, Implementation, ListRootsResult, LoggingLevel, LoggingMessageParams,
    ProgressParams, ProgressToken, ProtocolVersion, RequestId,
};
use serde::de::DeserializeOwned;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

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
        }
    }

    /// Who is calling: the subject, client, scopes and claims of the access token the HTTP transport
    /// verified for this request. `None` without authentication (stdio, or no token verifier).
    pub fn auth(&self) -> Option<&crate::AuthInfo> {
        self.auth.as_deref()
    }

    /// The id of the request being handled.
    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// Cancelled when the client sends `notifications/cancelled` for this request or goes away.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.token
    }

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
        if let Ok(raw) = to_raw(&params) {
            let _ = self
                .session
                .peer
                .notify(methods::PROGRESS, Some(&raw), Some(self.request_id.clone()))
                .await;
        }
    }

    /// Sends `notifications/message` if the client's level lets it through.
    pub async fn log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: impl serde::Serialize,
    ) {
        if !self.session.log_enabled(level) {
            return;
        }
        let params = LoggingMessageParams {
            level,
            logger: logger.map(Into::into),
            data: serde_json::to_value(data).unwrap_or(serde_json::Value::Null),
        };
        if let Ok(raw) = to_raw(&params) {
            let _ = self
                .session
                .peer
                .notify(methods::MESSAGE, Some(&raw), Some(self.request_id.clone()))
                .await;
        }
    }

    /// Logs a text at `info`.
    pub async fn info(&self, text: impl Into<String>) {
        self.log(LoggingLevel::Info, None, text.into()).await
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.session.version()
    }

    /// What the client declared.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.session.client_capabilities()
    }

    pub fn client_info(&self) -> Option<Implementation> {
        self.session.client_info.get().cloned()
    }

    /// `sampling/createMessage`: asks the client's model. Refused without the `sampling` capability.
    pub async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, Error> {
        if self.client_capabilities().sampling.is_none() {
            return Err(Error::CapabilityMissing("sampling"));
        }
        self.request(methods::SAMPLING_CREATE_MESSAGE, &params)
            .await
    }

    /// `elicitation/create`: asks the user. Refused without the `elicitation` capability (or its URL mode).
    pub async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, Error> {
        let caps = self.client_capabilities();
        let Some(el) = caps.elicitation else {
            return Err(Error::CapabilityMissing("elicitation"));
        };
        if params.is_url() && !el.supports_url() {
            return Err(Error::CapabilityMissing("elicitation.url"));
        }
        if !params.is_url() && !el.supports_form() {
            return Err(Error::CapabilityMissing("elicitation.form"));
        }
        self.request(methods::ELICITATION_CREATE, &params).await
    }

    /// `roots/list`. Refused without the `roots` capability.
    pub async fn list_roots(&self) -> Result<ListRootsResult, Error> {
        if self.client_capabilities().roots.is_none() {
            return Err(Error::CapabilityMissing("roots"));
        }
        self.request(methods::ROOTS_LIST, &serde_json::json!({}))
            .await
    }

    /// Any request to the client, on behalf of this one.
    pub async fn request<P: serde::Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, Error> {
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
