//! The client: connects (a child process over stdio, or any byte stream), initializes, and offers a typed
//! method for every server feature. Server requests (sampling, elicitation, roots) are answered by handlers
//! the user registers; notifications are delivered on a broadcast channel.

mod child;
mod handler;
mod supervisor;

pub use child::StderrMode;
pub use handler::{ElicitationHandler, SamplingHandler};
pub use supervisor::{RestartPolicy, Supervisor};

use crate::connection::{self, ConnectionConfig, Handler, Peer, RequestOptions};
use crate::error::Error;
use crate::framing::to_raw;
use crate::protocol::*;
use handler::ClientHandler;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::broadcast;

/// The roots a client answers `roots/list` with, shared with its handler.
pub type SharedRoots = Arc<Mutex<Vec<Root>>>;

/// What a transport needs to drive a client: the handler for incoming messages, the notification
/// channel, and the roots (see [`ClientBuilder::handler`]).
pub type ClientParts = (
    Arc<dyn Handler>,
    broadcast::Sender<ServerNotification>,
    Option<SharedRoots>,
);

/// A notification from the server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerNotification {
    pub method: String,
    pub params: Option<serde_json::Value>,
}

/// Options of one tool call.
#[derive(Default, Clone)]
pub struct CallOptions {
    pub timeout: Option<Duration>,
    /// Receives `notifications/progress` for this call (a progress token is attached).
    pub on_progress: Option<Arc<dyn Fn(ProgressParams) + Send + Sync>>,
}

/// Builds a [`Client`].
pub struct ClientBuilder {
    info: Implementation,
    capabilities: ClientCapabilities,
    version: ProtocolVersion,
    sampling: Option<Arc<dyn SamplingHandler>>,
    elicitation: Option<Arc<dyn ElicitationHandler>>,
    roots: Option<Arc<Mutex<Vec<Root>>>>,
    config: ConnectionConfig,
    stderr: StderrMode,
}

/// A connected, initialized client.
pub struct Client {
    peer: Peer,
    init: InitializeResult,
    version: ProtocolVersion,
    notifications: broadcast::Sender<ServerNotification>,
    roots: Option<Arc<Mutex<Vec<Root>>>>,
    child: Option<child::ChildGuard>,
    _io: Option<tokio::task::JoinHandle<()>>,
}

impl Client {
    pub fn builder() -> ClientBuilder {
        ClientBuilder {
            info: Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            version: ProtocolVersion::LATEST_LEGACY,
            sampling: None,
            elicitation: None,
            roots: None,
            config: ConnectionConfig::default(),
            stderr: StderrMode::Inherit,
        }
    }
}

impl ClientBuilder {
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.info.name = name.into();
        self
    }
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }
    /// The protocol version to ask for (default: the latest).
    pub fn protocol_version(mut self, v: ProtocolVersion) -> Self {
        self.version = v;
        self
    }
    /// Capabilities to declare beyond those implied by the handlers registered.
    pub fn capabilities(mut self, caps: ClientCapabilities) -> Self {
        self.capabilities = caps;
        self
    }
    /// Answers `sampling/createMessage`; declares the `sampling` capability.
    pub fn sampling(mut self, h: impl SamplingHandler) -> Self {
        self.sampling = Some(Arc::new(h));
        self.capabilities
            .sampling
            .get_or_insert_with(Default::default);
        self
    }
    /// Answers `elicitation/create`; declares the `elicitation` capability (form mode).
    pub fn elicitation(mut self, h: impl ElicitationHandler) -> Self {
        self.elicitation = Some(Arc::new(h));
        self.capabilities
            .elicitation
            .get_or_insert_with(Default::default);
        self
    }
    /// Answers `roots/list` with these roots; declares `roots` with `listChanged`.
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(Arc::new(Mutex::new(roots)));
        self.capabilities.roots = Some(ListChangedCapability {
            list_changed: Some(true),
        });
        self
    }
    /// Per-request timeout (default 60 s), handler limits and message size.
    pub fn connection_config(mut self, config: ConnectionConfig) -> Self {
        self.config = config;
        self
    }
    /// Request timeout; `None` waits forever.
    pub fn timeout(mut self, t: Option<Duration>) -> Self {
        self.config.request_timeout = t;
        self
    }
    /// The connection settings a transport should give its [`Peer`].
    #[cfg(feature = "http")]
    pub(crate) fn config_ref(&self) -> &ConnectionConfig {
        &self.config
    }
    /// What to do with a child server's stderr (default: pass it through).
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// Spawns a server as a child process and connects over its stdin and stdout.
    pub async fn spawn(self, mut cmd: tokio::process::Command) -> Result<Client, Error> {
        let (mut guard, stdout, stdin) = child::spawn(&mut cmd, self.stderr)?;
        let (peer, rx) = Peer::new(self.config.clone());
        let (handler, notifications, roots) = self.handler(peer.clone());
        let reason_src = guard.reason_source();
        let io_peer = peer.clone();
        let io_handler = handler.clone();
        let io = tokio::spawn(async move {
            let writer = tokio::spawn(connection::write_loop(rx, stdin, io_peer.clone()));
            let why = connection::read_loop(stdout, &io_peer, &io_handler).await;
            let reason = reason_src.describe(&why).await;
            io_peer.close(reason);
            io_handler.closed();
            writer.abort();
        });
        let init = self.handshake(&peer).await;
        let init = match init {
            Ok(i) => i,
            Err(e) => {
                guard.kill();
                return Err(e);
            }
        };
        Ok(Client {
            peer,
            version: ProtocolVersion::parse(&init.protocol_version)
                .unwrap_or(ProtocolVersion::LATEST_LEGACY),
            init,
            notifications,
            roots,
            child: Some(guard),
            _io: Some(io),
        })
    }

    /// Connects over any byte stream (a socket, an in-process duplex pipe).
    pub async fn connect<R, W>(self, reader: R, writer: W) -> Result<Client, Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (peer, rx) = Peer::new(self.config.clone());
        let (handler, notifications, roots) = self.handler(peer.clone());
        let io_peer = peer.clone();
        let io = tokio::spawn(async move {
            let writer = tokio::spawn(connection::write_loop(rx, writer, io_peer.clone()));
            let why = connection::read_loop(reader, &io_peer, &handler).await;
            io_peer.close(format!("the server closed the connection ({why})"));
            handler.closed();
            writer.abort();
        });
        self.finish(peer, notifications, roots, Some(io)).await
    }

    /// For transports: the client's handler on a peer whose frames the transport carries. Call
    /// [`ClientBuilder::finish`] once the transport runs.
    pub fn handler(&self, peer: Peer) -> ClientParts {
        let (tx, _) = broadcast::channel(1024);
        let h = ClientHandler {
            peer,
            sampling: self.sampling.clone(),
            elicitation: self.elicitation.clone(),
            roots: self.roots.clone(),
            notifications: tx.clone(),
        };
        (Arc::new(h), tx, self.roots.clone())
    }

    /// Initializes over a running transport and returns the client.
    pub async fn finish(
        self,
        peer: Peer,
        notifications: broadcast::Sender<ServerNotification>,
        roots: Option<Arc<Mutex<Vec<Root>>>>,
        io: Option<tokio::task::JoinHandle<()>>,
    ) -> Result<Client, Error> {
        let init = self.handshake(&peer).await?;
        Ok(Client {
            peer,
            version: ProtocolVersion::parse(&init.protocol_version)
                .unwrap_or(ProtocolVersion::LATEST_LEGACY),
            init,
            notifications,
            roots,
            child: None,
            _io: io,
        })
    }

    async fn handshake(&self, peer: &Peer) -> Result<InitializeResult, Error> {
        let params = InitializeParams {
            protocol_version: self.version.as_str().to_string(),
            capabilities: self.capabilities.clone(),
            client_info: self.info.clone(),
            meta: None,
        };
        let raw = to_raw(&params).map_err(|e| Error::Protocol(e.message))?;
        let result = peer
            .request(methods::INITIALIZE, Some(&raw), RequestOptions::default())
            .await?;
        let init: InitializeResult =
            serde_json::from_str(result.get()).map_err(|e| Error::Decode {
                method: methods::INITIALIZE.into(),
                reason: e.to_string(),
            })?;
        if ProtocolVersion::parse(&init.protocol_version).is_none() {
            return Err(Error::Protocol(format!(
                "the server offered protocol version {}, which this client does not speak",
                init.protocol_version
            )));
        }
        peer.notify(methods::INITIALIZED, None, None).await?;
        Ok(init)
    }
}

impl Client {
    /// The connection, for raw requests and notifications.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// What the server answered to `initialize`.
    pub fn server(&self) -> &InitializeResult {
        &self.init
    }

    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// The process id of a server started with [`ClientBuilder::spawn`].
    pub fn server_pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(|c| c.pid)
    }

    /// Notifications from the server (list changes, resource updates, log messages...).
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.notifications.subscribe()
    }

    /// Any request, typed.
    pub async fn request<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, Error> {
        self.request_with(method, params, RequestOptions::default())
            .await
    }

    async fn request_with<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
        opts: RequestOptions,
    ) -> Result<R, Error> {
        let raw = to_raw(params).map_err(|e| Error::Protocol(e.message))?;
        let result = self.peer.request(method, Some(&raw), opts).await?;
        serde_json::from_str(result.get()).map_err(|e| Error::Decode {
            method: method.into(),
            reason: e.to_string(),
        })
    }

    pub async fn ping(&self) -> Result<(), Error> {
        let _: EmptyResult = self.request(methods::PING, &serde_json::json!({})).await?;
        Ok(())
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, Error> {
        self.request(methods::TOOLS_LIST, &PaginatedParams { cursor, meta: None })
            .await
    }

    /// Every tool, following `nextCursor` to the end.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, Error> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_tools(cursor).await?;
            all.extend(page.tools);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// Calls a tool. A tool's own failure comes back as `Ok` with `is_error: Some(true)`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, Error> {
        self.call_tool_with(name, arguments, CallOptions::default())
            .await
    }

    /// Calls a tool with a timeout or a progress callback.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        opts: CallOptions,
    ) -> Result<CallToolResult, Error> {
        #[derive(Serialize)]
        struct Params<'a, A> {
            name: &'a str,
            arguments: A,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<serde_json::Value>,
        }
        let id = self.peer.next_id();
        let meta = opts
            .on_progress
            .as_ref()
            .map(|_| serde_json::json!({ "progressToken": id }));
        let raw = to_raw(&Params {
            name,
            arguments,
            meta,
        })
        .map_err(|e| Error::Protocol(e.message))?;
        let ro = RequestOptions {
            timeout: opts.timeout,
            related: None,
            on_progress: opts.on_progress,
        };
        let result = self
            .peer
            .request_with_id(id, methods::TOOLS_CALL, Some(&raw), ro)
            .await?;
        serde_json::from_str(result.get()).map_err(|e| Error::Decode {
            method: methods::TOOLS_CALL.into(),
            reason: e.to_string(),
        })
    }

    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, Error> {
        self.request(
            methods::RESOURCES_LIST,
            &PaginatedParams { cursor, meta: None },
        )
        .await
    }

    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, Error> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_resources(cursor).await?;
            all.extend(page.resources);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, Error> {
        self.request(
            methods::RESOURCES_TEMPLATES_LIST,
            &PaginatedParams { cursor, meta: None },
        )
        .await
    }

    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.request(
            methods::RESOURCES_READ,
            &ResourceUriParams {
                uri: uri.into(),
                meta: None,
            },
        )
        .await
    }

    pub async fn subscribe(&self, uri: &str) -> Result<(), Error> {
        let _: EmptyResult = self
            .request(
                methods::RESOURCES_SUBSCRIBE,
                &ResourceUriParams {
                    uri: uri.into(),
                    meta: None,
                },
            )
            .await?;
        Ok(())
    }

    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        let _: EmptyResult = self
            .request(
                methods::RESOURCES_UNSUBSCRIBE,
                &ResourceUriParams {
                    uri: uri.into(),
                    meta: None,
                },
            )
            .await?;
        Ok(())
    }

    pub async fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult, Error> {
        self.request(
            methods::PROMPTS_LIST,
            &PaginatedParams { cursor, meta: None },
        )
        .await
    }

    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, Error> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_prompts(cursor).await?;
            all.extend(page.prompts);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> Result<GetPromptResult, Error> {
        let args = if arguments.is_empty() {
            None
        } else {
            Some(arguments)
        };
        self.request(
            methods::PROMPTS_GET,
            &GetPromptParams {
                name: name.into(),
                arguments: args,
                meta: None,
            },
        )
        .await
    }

    pub async fn complete(&self, params: CompleteParams) -> Result<CompleteResult, Error> {
        self.request(methods::COMPLETION_COMPLETE, &params).await
    }

    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), Error> {
        let _: EmptyResult = self
            .request(methods::LOGGING_SET_LEVEL, &SetLevelParams { level })
            .await?;
        Ok(())
    }

    /// Replaces the roots and sends `notifications/roots/list_changed`.
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<(), Error> {
        let Some(r) = &self.roots else {
            return Err(Error::CapabilityMissing("roots"));
        };
        *r.lock().unwrap_or_else(|e| e.into_inner()) = roots;
        self.peer
            .notify(methods::ROOTS_LIST_CHANGED, None, None)
            .await
    }

    /// Ends the session: closes the server's stdin, waits briefly, then terminates a child that lingers.
    pub async fn close(mut self) {
        self.peer.close("closed by the client".into());
        if let Some(mut c) = self.child.take() {
            c.shutdown(Duration::from_secs(2)).await;
        }
    }
}
