//! The client: connects (a child process over stdio, or any byte stream; Streamable HTTP in
//! [`crate::http`]), finds the server's era, and offers a typed method for every server feature, the same
//! in both eras.
//!
//! **Eras.** With [`Era::Auto`] (the default) the client probes with `server/discover` and speaks
//! 2026-07-28 to a modern server (every request carries its version, capabilities and identity in
//! `_meta`; no handshake, no session) or falls back to `initialize` for a handshake-era server (see
//! [`era`]). [`Client::is_modern`] tells which it got.
//!
//! **Handlers.** Sampling, elicitation and roots are answered by the handlers the user registers on the
//! builder, once, for both eras: a handshake-era server sends them as requests; a 2026 server returns
//! `input_required`, and the client answers through the same handlers and retries the call with the
//! answers (multi round-trip requests, see `client::mrtr`).
//!
//! **Notifications** are delivered on a broadcast channel ([`Client::notifications`]); change
//! notifications can be asked for with [`Client::listen`] in either era.

mod cache;
mod call;
mod child;
pub mod era;
mod handler;
mod listen;
pub mod modern;
mod mrtr;
mod raw;
mod skills;
mod supervisor;
mod tasks;
mod tool_headers;

pub use child::{spawn_peer, ChildPeer, StderrMode};
pub use era::{Era, EraCache};
pub use handler::{CallHandlers, ElicitationHandler, RootsHandler, SamplingHandler};
pub use listen::Subscription;
pub use skills::LoadedSkill;
pub use supervisor::{RestartPolicy, Supervisor};
pub use tasks::TaskStart;
pub use tool_headers::ToolHeaders;

use crate::connection::{self, ConnectionConfig, Handler, Peer};
use crate::error::Error;
use crate::protocol::*;
use cache::ResultCache;
use era::{Negotiated, Setup};
use handler::{CallRoutes, ClientHandler, Handlers, RouteKey};
use listen::Subscriptions;
use modern::ModernMeta;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::broadcast;

/// The roots a client answers `roots/list` with, shared with its handler.
pub type SharedRoots = Arc<Mutex<Vec<Root>>>;

/// A notification from the server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerNotification {
    /// The notification's method, such as `notifications/resources/updated`.
    pub method: String,
    /// Its params, as sent; `None` when it had none.
    pub params: Option<serde_json::Value>,
}

/// Options of one call.
#[derive(Default, Clone)]
pub struct CallOptions {
    /// How long to wait for the answer; `None` uses the connection's request timeout. On expiry the request
    /// is cancelled (`notifications/cancelled`) and the call fails.
    pub timeout: Option<Duration>,
    /// Receives `notifications/progress` for this call (a progress token is attached).
    pub on_progress: Option<Arc<dyn Fn(ProgressParams) + Send + Sync>>,
    /// Answers the server's sampling, elicitation and roots requests that belong to this call, in
    /// place of the client's handlers (a gateway relays them to the caller that made the call). See
    /// [`CallHandlers`] for when a request is known to belong to a call.
    pub handlers: Option<CallHandlers>,
    /// The capabilities this call declares in place of the client's (2026-07-28, where each request
    /// carries its own; ignored in the handshake era, whose capabilities were fixed at `initialize`). A
    /// gateway declares its caller's, so that the server asks only for input the caller can give. The
    /// tasks extension follows the client's setting.
    pub capabilities: Option<ClientCapabilities>,
}

/// What a transport needs to drive a client (see [`ClientBuilder::parts`]).
pub struct ClientParts {
    /// Answers the server's requests and takes its notifications: give it to the pump.
    pub handler: Arc<dyn Handler>,
    shared: Shared,
}

/// What the client learns from the transport it rides on.
#[derive(Clone, Default)]
pub struct TransportInfo {
    /// Set by transports that mirror `x-mcp-header` arguments into headers (Streamable HTTP): the client
    /// then leaves tools with invalid annotations out of `tools/list` and records the valid ones here.
    pub tool_headers: Option<ToolHeaders>,
    /// Names the server for the [`EraCache`] (its URL, its command line).
    pub server_key: Option<String>,
}

/// The parts of a client its handler shares.
#[derive(Clone)]
struct Shared {
    handlers: Handlers,
    routes: CallRoutes,
    notifications: broadcast::Sender<ServerNotification>,
    subscriptions: Subscriptions,
    cache: Option<Arc<ResultCache>>,
}

/// Builds a [`Client`].
pub struct ClientBuilder {
    info: Implementation,
    capabilities: ClientCapabilities,
    version: ProtocolVersion,
    era: Era,
    probe_timeout: Duration,
    era_cache: Option<EraCache>,
    handlers: Handlers,
    config: ConnectionConfig,
    stderr: StderrMode,
    max_input_rounds: u32,
    cache: bool,
    tasks_extension: bool,
}

/// A connected client, initialized (handshake era) or ready to send (2026-07-28).
pub struct Client {
    peer: Peer,
    init: InitializeResult,
    discover: Option<DiscoverResult>,
    /// `Some` in 2026-07-28: what every request's `_meta` carries.
    modern: Option<ModernMeta>,
    /// The protocol version in use; a modern server's `-32022` may move it to another it supports.
    version: Mutex<ProtocolVersion>,
    shared: Shared,
    roots: Option<SharedRoots>,
    tool_headers: Option<ToolHeaders>,
    max_input_rounds: u32,
    tasks_extension: bool,
    child: Option<child::ChildGuard>,
    _io: Option<tokio::task::JoinHandle<()>>,
}

impl Client {
    /// A builder for a client named `mcp-runtime-client` that negotiates its era ([`Era::Auto`]) and declares
    /// no capabilities beyond its handlers.
    pub fn builder() -> ClientBuilder {
        ClientBuilder {
            info: Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            version: ProtocolVersion::LATEST_LEGACY,
            era: Era::Auto,
            probe_timeout: Duration::from_secs(5),
            era_cache: None,
            handlers: Handlers::default(),
            config: ConnectionConfig::default(),
            stderr: StderrMode::Inherit,
            max_input_rounds: 8,
            cache: false,
            tasks_extension: true,
        }
    }
}

impl ClientBuilder {
    /// The client's programmatic name, in `clientInfo` (default `mcp-runtime-client`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.info.name = name.into();
        self
    }
    /// The client's version, in `clientInfo` (default: this crate's version).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }
    /// The handshake-era version `initialize` asks for (default: the latest, 2025-11-25). Asking for
    /// 2026-07-28 here selects [`Era::Modern`]; asking for an older version under [`Era::Auto`] selects
    /// [`Era::Legacy`] (a client pinned to a handshake-era version does not probe).
    pub fn protocol_version(mut self, v: ProtocolVersion) -> Self {
        if v.is_modern() {
            self.era = Era::Modern;
        } else {
            self.version = v;
            if self.era == Era::Auto {
                self.era = Era::Legacy;
            }
        }
        self
    }
    /// Which era to speak (default [`Era::Auto`]).
    pub fn era(mut self, era: Era) -> Self {
        self.era = era;
        self
    }
    /// How long the `server/discover` probe of [`Era::Auto`] waits before taking silence for a
    /// handshake-era server (default 5 s).
    pub fn probe_timeout(mut self, t: Duration) -> Self {
        self.probe_timeout = t;
        self
    }
    /// Where the era of each server is remembered (default: [`EraCache::global`]).
    pub fn era_cache(mut self, cache: EraCache) -> Self {
        self.era_cache = Some(cache);
        self
    }
    /// Capabilities to declare beyond those implied by the handlers registered.
    pub fn capabilities(mut self, caps: ClientCapabilities) -> Self {
        let sampling = self.capabilities.sampling.take();
        let elicitation = self.capabilities.elicitation.take();
        let roots = self.capabilities.roots.take();
        self.capabilities = caps;
        self.capabilities.sampling = self.capabilities.sampling.take().or(sampling);
        self.capabilities.elicitation = self.capabilities.elicitation.take().or(elicitation);
        self.capabilities.roots = self.capabilities.roots.take().or(roots);
        self
    }
    /// Answers sampling (a server request, or a 2026 input request); declares the `sampling` capability.
    pub fn sampling(mut self, h: impl SamplingHandler) -> Self {
        self.handlers.sampling = Some(Arc::new(h));
        self.capabilities
            .sampling
            .get_or_insert_with(Default::default);
        self
    }
    /// Answers elicitation (form mode); declares the `elicitation` capability.
    pub fn elicitation(mut self, h: impl ElicitationHandler) -> Self {
        self.handlers.elicitation = Some(Arc::new(h));
        self.capabilities
            .elicitation
            .get_or_insert_with(Default::default);
        self
    }
    /// Also hands URL-mode elicitation to the elicitation handler (declares `elicitation.url`).
    pub fn url_elicitation(mut self) -> Self {
        self.handlers.elicitation_url = true;
        let e = self
            .capabilities
            .elicitation
            .get_or_insert_with(Default::default);
        e.form.get_or_insert_with(JsonObject::new);
        e.url.get_or_insert_with(JsonObject::new);
        self
    }
    /// Answers `roots/list` with these roots; declares `roots` (with `listChanged` in the handshake era).
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.handlers.roots = Some(Arc::new(Mutex::new(roots)));
        self.capabilities.roots = Some(ListChangedCapability {
            list_changed: Some(true),
        });
        self
    }
    /// Answers `roots/list` by asking `h` each time (declares `roots`, without `listChanged`: the client
    /// does not know when the answer changes). Takes precedence over [`ClientBuilder::roots`].
    pub fn roots_handler(mut self, h: impl RootsHandler) -> Self {
        self.handlers.roots_handler = Some(Arc::new(h));
        self.capabilities
            .roots
            .get_or_insert(ListChangedCapability { list_changed: None });
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
    pub fn config_ref(&self) -> &ConnectionConfig {
        &self.config
    }
    /// What to do with a child server's stderr (default: pass it through).
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }
    /// How many `input_required` rounds one call may take before it fails (default 8): a server that
    /// keeps asking does not hold a call forever.
    pub fn max_input_rounds(mut self, n: u32) -> Self {
        self.max_input_rounds = n.max(1);
        self
    }
    /// Keeps list and read results while their 2026 caching hints (`ttlMs`) say they are fresh, until a
    /// change notification says otherwise (default off).
    pub fn cache_results(mut self, on: bool) -> Self {
        self.cache = on;
        self
    }
    /// Whether to declare the 2026 tasks extension (default on): a server may then answer `tools/call`
    /// with a task, which [`Client::call_tool`] follows to its result.
    pub fn tasks_extension(mut self, on: bool) -> Self {
        self.tasks_extension = on;
        self
    }

    /// Spawns a server as a child process and connects over its stdin and stdout.
    pub async fn spawn(self, mut cmd: tokio::process::Command) -> Result<Client, Error> {
        let key = {
            let std = cmd.as_std();
            let mut k = format!("stdio:{}", std.get_program().to_string_lossy());
            for a in std.get_args() {
                k.push(' ');
                k.push_str(&a.to_string_lossy());
            }
            k
        };
        let (mut guard, stdout, stdin) = child::spawn(&mut cmd, self.stderr)?;
        let (peer, rx) = Peer::new(self.config.clone());
        let parts = self.parts();
        let io =
            guard
                .reason_source()
                .drive(stdout, stdin, rx, peer.clone(), parts.handler.clone());
        let info = TransportInfo {
            tool_headers: None,
            server_key: Some(key),
        };
        match self.finish(peer, parts, info, Some(io)).await {
            Ok(mut c) => {
                c.child = Some(guard);
                Ok(c)
            }
            // A child that died at once closed the connection with its exit status and stderr.
            Err(e) => {
                guard.kill();
                Err(e)
            }
        }
    }

    /// Connects over any byte stream (a socket, an in-process duplex pipe).
    pub async fn connect<R, W>(self, reader: R, writer: W) -> Result<Client, Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (peer, rx) = Peer::new(self.config.clone());
        let parts = self.parts();
        let handler = parts.handler.clone();
        let io_peer = peer.clone();
        let io = tokio::spawn(async move {
            let writer = tokio::spawn(connection::write_loop(rx, writer, io_peer.clone()));
            let why = connection::read_loop(reader, &io_peer, &handler).await;
            io_peer.close(format!("the server closed the connection ({why})"));
            handler.closed();
            writer.abort();
        });
        self.finish(peer, parts, TransportInfo::default(), Some(io))
            .await
    }

    /// For transports: the handler to give the pump, and what [`ClientBuilder::finish`] needs back.
    pub fn parts(&self) -> ClientParts {
        let (tx, _) = broadcast::channel(1024);
        let shared = Shared {
            handlers: self.handlers.clone(),
            routes: CallRoutes::default(),
            notifications: tx,
            subscriptions: Subscriptions::default(),
            cache: self.cache.then(|| Arc::new(ResultCache::default())),
        };
        let handler = ClientHandler {
            handlers: shared.handlers.clone(),
            routes: shared.routes.clone(),
            notifications: shared.notifications.clone(),
            subscriptions: shared.subscriptions.clone(),
            cache: shared.cache.clone(),
        };
        ClientParts {
            handler: Arc::new(handler),
            shared,
        }
    }

    /// Negotiates the era over a running transport (probe, `initialize` or `server/discover`) and
    /// returns the client.
    pub async fn finish(
        self,
        peer: Peer,
        parts: ClientParts,
        transport: TransportInfo,
        io: Option<tokio::task::JoinHandle<()>>,
    ) -> Result<Client, Error> {
        let meta = ModernMeta::new(&self.info, &self.capabilities, self.tasks_extension);
        let cache = self.era_cache.clone().unwrap_or_else(EraCache::global);
        let setup = Setup {
            era: self.era,
            legacy_version: self.version,
            info: &self.info,
            capabilities: &self.capabilities,
            meta: &meta,
            probe_timeout: self
                .config
                .request_timeout
                .map_or(self.probe_timeout, |t| t.min(self.probe_timeout)),
            cache: transport.server_key.clone().map(|k| (&cache, k)),
        };
        let negotiated = setup.negotiate(&peer).await?;
        let (init, discover, modern, version) = match negotiated {
            Negotiated::Legacy(init) => {
                let v = ProtocolVersion::parse(&init.protocol_version)
                    .unwrap_or(ProtocolVersion::LATEST_LEGACY);
                (init, None, None, v)
            }
            Negotiated::Modern {
                discover,
                server_info,
                version,
            } => {
                let init = InitializeResult {
                    protocol_version: version.as_str().to_string(),
                    capabilities: discover.capabilities.clone(),
                    server_info,
                    instructions: discover.instructions.clone(),
                    meta: None,
                };
                (init, Some(discover), Some(meta), version)
            }
        };
        Ok(Client {
            peer,
            init,
            discover,
            modern,
            version: Mutex::new(version),
            roots: self.handlers.roots.clone(),
            shared: parts.shared,
            tool_headers: transport.tool_headers,
            max_input_rounds: self.max_input_rounds,
            tasks_extension: self.tasks_extension,
            child: None,
            _io: io,
        })
    }
}

impl Client {
    /// The connection, for raw requests and notifications (nothing is added to them: in 2026-07-28 use
    /// [`Client::request`], which stamps `_meta`).
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// What the server said about itself: its `initialize` result, or in 2026-07-28 the same fields from
    /// `server/discover` (the negotiated version, its capabilities, identity and instructions).
    pub fn server(&self) -> &InitializeResult {
        &self.init
    }

    /// The `server/discover` result of a 2026-07-28 server (its supported versions, caching hints...).
    pub fn discover_result(&self) -> Option<&DiscoverResult> {
        self.discover.as_ref()
    }

    /// Whether the client speaks 2026-07-28 with this server.
    pub fn is_modern(&self) -> bool {
        self.modern.is_some()
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        *self.version.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_protocol_version(&self, v: ProtocolVersion) {
        *self.version.lock().unwrap_or_else(|e| e.into_inner()) = v;
    }

    /// The process id of a server started with [`ClientBuilder::spawn`].
    pub fn server_pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(|c| c.pid)
    }

    /// Notifications from the server (list changes, resource updates, log messages...).
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.shared.notifications.subscribe()
    }

    /// Any request, typed. In 2026-07-28 `_meta` is stamped and an `input_required` result is answered.
    pub async fn request<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, Error> {
        let answer = self.call(method, params, &CallOptions::default()).await?;
        call::decode(method, &answer.raw)
    }

    /// A liveness check: `ping` in the handshake era; a `server/discover` round trip in 2026-07-28, which
    /// has no `ping`.
    pub async fn ping(&self) -> Result<(), Error> {
        if self.is_modern() {
            let _: serde_json::Value = self
                .request(methods::SERVER_DISCOVER, &serde_json::json!({}))
                .await?;
        } else {
            let _: EmptyResult = self.request(methods::PING, &serde_json::json!({})).await?;
        }
        Ok(())
    }

    /// One page of `tools/list`. Over Streamable HTTP in 2026-07-28, tools whose `x-mcp-header`
    /// annotations are invalid are left out (with a warning), as the spec requires.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, Error> {
        let mut page: ListToolsResult = self
            .cached_list(
                methods::TOOLS_LIST,
                cursor.as_deref(),
                &PaginatedParams {
                    cursor: cursor.clone(),
                    meta: None,
                },
            )
            .await?;
        if let (Some(h), true) = (&self.tool_headers, self.is_modern()) {
            page.tools = h.admit(std::mem::take(&mut page.tools));
        }
        Ok(page)
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

    /// Calls a tool with a timeout or a progress callback. In 2026-07-28 input requests are answered
    /// through the registered handlers, a task handle is followed to the task's result, and a header
    /// mismatch (`-32020`, the tool's `x-mcp-header` changed) re-lists the tools and retries once.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        opts: CallOptions,
    ) -> Result<CallToolResult, Error> {
        let arguments =
            serde_json::to_value(arguments).map_err(|e| Error::Protocol(e.to_string()))?;
        let params = CallParams {
            name,
            arguments: &arguments,
        };
        let answer = self.tool_call(name, &params, &opts).await?;
        if answer.task {
            let task: DetailedTask = call::decode(methods::TOOLS_CALL, &answer.raw)?;
            return self.task_result_of(task, &opts).await;
        }
        call::decode(methods::TOOLS_CALL, &answer.raw)
    }

    /// The answer of `tools/call` with `params`: a header mismatch (`-32020`, the tool's `x-mcp-header`
    /// changed) re-lists the tools and retries once.
    async fn tool_call<P: Serialize + ?Sized>(
        &self,
        name: &str,
        params: &P,
        opts: &CallOptions,
    ) -> Result<call::Answer, Error> {
        match self.call(methods::TOOLS_CALL, params, opts).await {
            Err(Error::Rpc(e))
                if e.code == codes::HEADER_MISMATCH && self.tool_headers.is_some() =>
            {
                tracing::debug!(tool = name, %e, "header mismatch: re-listing tools and retrying once");
                // Boxed: the retry is rare, and its state would otherwise ride in every call's future.
                Box::pin(async {
                    self.list_all_tools().await?;
                    self.call(methods::TOOLS_CALL, params, opts).await
                })
                .await
            }
            other => other,
        }
    }

    /// One page of `resources/list` (from the result cache when it is on and fresh).
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, Error> {
        self.cached_list(
            methods::RESOURCES_LIST,
            cursor.as_deref(),
            &PaginatedParams {
                cursor: cursor.clone(),
                meta: None,
            },
        )
        .await
    }

    /// Every resource, following `nextCursor` to the end.
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

    /// One page of `resources/templates/list` (from the result cache when it is on and fresh).
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, Error> {
        self.cached_list(
            methods::RESOURCES_TEMPLATES_LIST,
            cursor.as_deref(),
            &PaginatedParams {
                cursor: cursor.clone(),
                meta: None,
            },
        )
        .await
    }

    /// `resources/read` of one URI (from the result cache when it is on and fresh); an unknown URI is the
    /// server's JSON-RPC error (`-32602` in 2026-07-28, often `-32002` before).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.read_resource_with(uri, &CallOptions::default()).await
    }

    /// `resources/read` with call options: its own handlers for the input the server asks for, the
    /// capabilities it declares (see [`CallOptions`]).
    pub async fn read_resource_with(
        &self,
        uri: &str,
        opts: &CallOptions,
    ) -> Result<ReadResourceResult, Error> {
        self.cached_call(
            methods::RESOURCES_READ,
            Some(uri),
            &ResourceUriParams {
                uri: uri.into(),
                meta: None,
            },
            opts,
        )
        .await
    }

    /// `resources/subscribe` (handshake era; 2026-07-28 replaced it with [`Client::listen`]).
    pub async fn subscribe(&self, uri: &str) -> Result<(), Error> {
        self.legacy_only(methods::RESOURCES_SUBSCRIBE, "Client::listen")?;
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

    /// `resources/unsubscribe` (handshake era).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        self.legacy_only(methods::RESOURCES_UNSUBSCRIBE, "dropping the Subscription")?;
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

    /// Opens a stream of the change notifications in `filter`, in either era (see [`Subscription`]).
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, Error> {
        match &self.modern {
            Some(meta) => {
                let mut params = call::object(&SubscriptionsListenParams {
                    notifications: filter,
                    meta: None,
                })?;
                meta.stamp(&mut params, self.protocol_version());
                listen::listen_modern(
                    &self.peer,
                    &self.shared.subscriptions,
                    self.peer.next_id(),
                    params,
                    self.peer.config().request_timeout,
                )
                .await
            }
            None => {
                listen::listen_legacy(
                    &self.peer,
                    &self.shared.notifications,
                    &self.init.capabilities,
                    filter,
                )
                .await
            }
        }
    }

    /// One page of `prompts/list` (from the result cache when it is on and fresh).
    pub async fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult, Error> {
        self.cached_list(
            methods::PROMPTS_LIST,
            cursor.as_deref(),
            &PaginatedParams {
                cursor: cursor.clone(),
                meta: None,
            },
        )
        .await
    }

    /// Every prompt, following `nextCursor` to the end.
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

    /// `prompts/get`: renders a prompt with its arguments (all strings); an unknown prompt is the server's
    /// `-32602`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> Result<GetPromptResult, Error> {
        self.get_prompt_with(name, arguments, &CallOptions::default())
            .await
    }

    /// `prompts/get` with call options: its own handlers for the input the server asks for, the
    /// capabilities it declares (see [`CallOptions`]).
    pub async fn get_prompt_with(
        &self,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
        opts: &CallOptions,
    ) -> Result<GetPromptResult, Error> {
        let args = if arguments.is_empty() {
            None
        } else {
            Some(arguments)
        };
        let params = GetPromptParams {
            name: name.into(),
            arguments: args,
            meta: None,
        };
        let answer = self.call(methods::PROMPTS_GET, &params, opts).await?;
        call::decode(methods::PROMPTS_GET, &answer.raw)
    }

    /// `completion/complete`: completions of a prompt argument or resource-template variable.
    pub async fn complete(&self, params: CompleteParams) -> Result<CompleteResult, Error> {
        self.request(methods::COMPLETION_COMPLETE, &params).await
    }

    /// The lowest level of log messages wanted: `logging/setLevel` in the handshake era; in 2026-07-28
    /// (which removed it) the level every later request carries in `_meta` (`None`: no log messages).
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), Error> {
        if let Some(meta) = &self.modern {
            meta.set_log_level(Some(level));
            return Ok(());
        }
        let _: EmptyResult = self
            .request(methods::LOGGING_SET_LEVEL, &SetLevelParams { level })
            .await?;
        Ok(())
    }

    /// Replaces the roots; in the handshake era also sends `notifications/roots/list_changed` (2026-07-28
    /// removed it: the server asks for roots when it needs them).
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<(), Error> {
        let Some(r) = &self.roots else {
            return Err(Error::CapabilityMissing("roots"));
        };
        *r.lock().unwrap_or_else(|e| e.into_inner()) = roots;
        if self.is_modern() {
            return Ok(());
        }
        self.peer
            .notify(methods::ROOTS_LIST_CHANGED, None, None)
            .await
    }

    /// Ends the connection now, while others may still hold the client: every request in flight fails
    /// with [`Error::Closed`] carrying `reason`, and later ones fail the same way. A child server is
    /// killed when the last holder drops the client. For a client shared by callers that must not
    /// wait any longer (a gateway dropping an upstream after a grace period).
    pub fn abort(&self, reason: impl Into<String>) {
        self.peer.close(reason.into());
    }

    /// Ends the session: closes the server's stdin, waits briefly, then terminates a child that lingers.
    pub async fn close(mut self) {
        self.peer.close("closed by the client".into());
        if let Some(mut c) = self.child.take() {
            c.shutdown(Duration::from_secs(2)).await;
        }
    }

    fn legacy_only(&self, method: &str, instead: &str) -> Result<(), Error> {
        if self.is_modern() {
            return Err(Error::Protocol(format!(
                "{method} does not exist in protocol {}: use {instead}",
                self.protocol_version()
            )));
        }
        Ok(())
    }

    /// A list or read request, served from the result cache when it is on and the result is fresh.
    async fn cached_list<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        key: Option<&str>,
        params: &P,
    ) -> Result<R, Error> {
        self.cached_call(method, key, params, &CallOptions::default())
            .await
    }

    async fn cached_call<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        key: Option<&str>,
        params: &P,
        opts: &CallOptions,
    ) -> Result<R, Error> {
        let key = key.unwrap_or("");
        if let Some(raw) = self.shared.cache.as_ref().and_then(|c| c.get(method, key)) {
            return call::decode(method, &raw);
        }
        let answer = self.call(method, params, opts).await?;
        if let (Some(c), false) = (&self.shared.cache, answer.retried) {
            c.put(method, key, &answer.raw);
        }
        call::decode(method, &answer.raw)
    }
}

/// `tools/call` params, borrowed.
#[derive(Serialize)]
struct CallParams<'a> {
    name: &'a str,
    arguments: &'a serde_json::Value,
}
