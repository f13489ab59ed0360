//! The server: what it offers (tools, resources, prompts, completion), how it is built, and how it serves.

mod context;
pub mod logging;
pub mod prompts;
mod registry;
pub mod resources;
pub mod session;
pub mod tool_result;
pub mod tools;

pub use context::Context;
pub use prompts::{PromptArgs, PromptHandler, PromptRoute};
pub use resources::{ResourceHandler, ResourceRoute, ResourceTemplateRoute, UriTemplate, UriVars};
pub use tool_result::{IntoContent, IntoPromptResult, IntoResourceResult};
pub use tools::{ArgumentError, Arguments, ToolHandler, ToolRoute};

use crate::connection::{self, ConnectionConfig, Handler, Peer};
use crate::framing::{parse_params, to_raw};
use crate::protocol::*;
use futures_util::future::BoxFuture;
use registry::Registry;
use serde_json::value::RawValue;
use session::{ServerHandler, SessionState};
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use tokio::io::{AsyncRead, AsyncWrite};

/// Answers `completion/complete`. Implemented for `Fn(CompleteParams, Context) -> impl Future` closures.
pub trait CompletionHandler: Send + Sync + 'static {
    fn complete(
        &self,
        params: CompleteParams,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CompleteResult, ErrorObject>>;
}

impl<F, Fut> CompletionHandler for F
where
    F: Fn(CompleteParams, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CompleteResult, ErrorObject>> + Send + 'static,
{
    fn complete(
        &self,
        params: CompleteParams,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CompleteResult, ErrorObject>> {
        Box::pin(self(params, ctx))
    }
}

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServerError {
    #[error("duplicate tool name `{0}`: every tool of a server needs its own name")]
    DuplicateTool(String),
    #[error("duplicate prompt name `{0}`")]
    DuplicatePrompt(String),
    #[error("duplicate resource `{0}`")]
    DuplicateResource(String),
    #[error("invalid tool: {0}")]
    InvalidTool(String),
    #[error("invalid resource template: {0}")]
    InvalidTemplate(String),
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: Registry<ToolRoute>,
    pub(crate) resources: Registry<ResourceRoute>,
    pub(crate) templates: Registry<ResourceTemplateRoute>,
    pub(crate) prompts: Registry<PromptRoute>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) on_roots_changed: Option<Arc<dyn Fn() + Send + Sync>>,
    offers_tools: bool,
    offers_resources: bool,
    offers_prompts: bool,
    page_size: usize,
    pub(crate) config: ConnectionConfig,
    sessions: Mutex<Vec<Weak<SessionState>>>,
}

impl ServerInner {
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let listed = Some(ListChangedCapability {
            list_changed: Some(true),
        });
        ServerCapabilities {
            tools: self.offers_tools.then(|| listed.clone()).flatten(),
            resources: self.offers_resources.then_some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
            }),
            prompts: self.offers_prompts.then(|| listed.clone()).flatten(),
            logging: Some(JsonObject::new()),
            completions: self.completion.as_ref().map(|_| JsonObject::new()),
            ..Default::default()
        }
    }

    pub(crate) fn has_resources(&self) -> bool {
        self.offers_resources
    }
    pub(crate) fn has_prompts(&self) -> bool {
        self.offers_prompts
    }

    pub(crate) fn list_tools(
        &self,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let p: PaginatedParams = parse_params(params)?;
        let set = self.tools.snapshot();
        let (page, next) = set.page(p.cursor.as_deref(), self.page_size)?;
        let tools: Vec<&Tool> = page.iter().map(|r| &r.tool).collect();
        to_raw(&ListPage {
            items: ("tools", &tools),
            next_cursor: next,
        })
    }

    pub(crate) fn list_resources(
        &self,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let p: PaginatedParams = parse_params(params)?;
        let set = self.resources.snapshot();
        let (page, next) = set.page(p.cursor.as_deref(), self.page_size)?;
        let items: Vec<&Resource> = page.iter().map(|r| &r.resource).collect();
        to_raw(&ListPage {
            items: ("resources", &items),
            next_cursor: next,
        })
    }

    pub(crate) fn list_resource_templates(
        &self,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let p: PaginatedParams = parse_params(params)?;
        let set = self.templates.snapshot();
        let (page, next) = set.page(p.cursor.as_deref(), self.page_size)?;
        let items: Vec<&ResourceTemplate> = page.iter().map(|r| &r.template).collect();
        to_raw(&ListPage {
            items: ("resourceTemplates", &items),
            next_cursor: next,
        })
    }

    pub(crate) fn list_prompts(
        &self,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let p: PaginatedParams = parse_params(params)?;
        let set = self.prompts.snapshot();
        let (page, next) = set.page(p.cursor.as_deref(), self.page_size)?;
        let items: Vec<&Prompt> = page.iter().map(|r| &r.prompt).collect();
        to_raw(&ListPage {
            items: ("prompts", &items),
            next_cursor: next,
        })
    }

    pub(crate) fn find_resource(&self, uri: &str) -> Option<(Arc<dyn ResourceHandler>, UriVars)> {
        if let Some(r) = self.resources.snapshot().get(uri) {
            return Some((r.handler.clone(), UriVars::new()));
        }
        let templates = self.templates.snapshot();
        templates
            .items
            .iter()
            .find_map(|t| t.parsed.matches(uri).map(|vars| (t.handler.clone(), vars)))
    }

    fn add_session(&self, s: &Arc<SessionState>) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|w| w.strong_count() > 0);
        sessions.push(Arc::downgrade(s));
    }

    pub(crate) fn live_sessions(&self) -> Vec<Arc<SessionState>> {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.is_live())
            .collect()
    }

    fn broadcast(
        &self,
        method: &str,
        params: Option<&RawValue>,
        only: impl Fn(&SessionState) -> bool,
    ) {
        for s in self.live_sessions() {
            if only(&s) {
                s.peer.try_notify(method, params, None);
            }
        }
    }
}

/// A page of a list result: `{"<items>": [...], "nextCursor"?: "..."}`.
struct ListPage<'a, T: serde::Serialize> {
    items: (&'static str, &'a [&'a T]),
    next_cursor: Option<String>,
}

impl<T: serde::Serialize> serde::Serialize for ListPage<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(self.items.0, self.items.1)?;
        if let Some(c) = &self.next_cursor {
            m.serialize_entry("nextCursor", c)?;
        }
        m.end()
    }
}

/// An MCP server: cheap to clone, serves any number of sessions.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolRoute>,
    resources: Vec<ResourceRoute>,
    templates: Vec<ResourceTemplateRoute>,
    prompts: Vec<PromptRoute>,
    completion: Option<Arc<dyn CompletionHandler>>,
    on_roots_changed: Option<Arc<dyn Fn() + Send + Sync>>,
    offer: (bool, bool, bool),
    page_size: usize,
    config: ConnectionConfig,
    errors: Vec<ServerError>,
}

impl Server {
    pub fn builder() -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new("mcp-runtime-server", env!("CARGO_PKG_VERSION")),
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            completion: None,
            on_roots_changed: None,
            offer: (false, false, false),
            page_size: 100,
            config: ConnectionConfig::default(),
            errors: Vec::new(),
        }
    }

    /// The capabilities this server declares.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.inner.capabilities()
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> Vec<Tool> {
        self.inner
            .tools
            .snapshot()
            .items
            .iter()
            .map(|r| r.tool.clone())
            .collect()
    }

    /// Adds a tool while serving and tells every session (`notifications/tools/list_changed`).
    pub fn add_tool(&self, route: ToolRoute) -> Result<(), ServerError> {
        tools::validate_tool_name(&route.tool.name).map_err(ServerError::InvalidTool)?;
        self.inner
            .tools
            .insert(route)
            .map_err(ServerError::DuplicateTool)?;
        self.inner
            .broadcast(methods::TOOLS_LIST_CHANGED, None, |_| true);
        Ok(())
    }

    /// Removes a tool while serving; whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.inner.tools.remove(name);
        if removed {
            self.inner
                .broadcast(methods::TOOLS_LIST_CHANGED, None, |_| true);
        }
        removed
    }

    pub fn add_prompt(&self, route: PromptRoute) -> Result<(), ServerError> {
        self.inner
            .prompts
            .insert(route)
            .map_err(ServerError::DuplicatePrompt)?;
        self.inner
            .broadcast(methods::PROMPTS_LIST_CHANGED, None, |_| true);
        Ok(())
    }

    pub fn add_resource(&self, route: ResourceRoute) -> Result<(), ServerError> {
        self.inner
            .resources
            .insert(route)
            .map_err(ServerError::DuplicateResource)?;
        self.notify_resource_list_changed();
        Ok(())
    }

    pub fn notify_resource_list_changed(&self) {
        self.inner
            .broadcast(methods::RESOURCES_LIST_CHANGED, None, |_| true);
    }

    /// `notifications/resources/updated`, to the sessions subscribed to this URI (or a parent of it).
    pub fn notify_resource_updated(&self, uri: &str) {
        let params = ResourceUriParams {
            uri: uri.to_string(),
            meta: None,
        };
        if let Ok(raw) = to_raw(&params) {
            self.inner
                .broadcast(methods::RESOURCES_UPDATED, Some(&raw), |s| {
                    s.is_subscribed(uri)
                });
        }
    }

    /// Serves one session over any byte stream until its input ends.
    pub async fn serve<R, W>(&self, reader: R, writer: W) -> String
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (peer, rx) = Peer::new(self.inner.config.clone());
        let handler = self.session_handler(peer.clone());
        connection::run(reader, writer, peer, rx, handler).await
    }

    /// A session's handler on a connection made elsewhere (a transport such as Streamable HTTP).
    pub fn session_handler(&self, peer: Peer) -> Arc<dyn Handler> {
        Arc::new(ServerHandler(SessionState::new(self.inner.clone(), peer)))
    }

    /// The connection settings sessions of this server use.
    pub fn connection_config(&self) -> &ConnectionConfig {
        &self.inner.config
    }

    /// Serves the process's stdin and stdout. stdout is taken for the protocol and fd 1 is pointed at
    /// stderr, so that `println!` cannot corrupt the stream. Returns when stdin ends.
    pub async fn serve_stdio(&self) -> std::io::Result<()> {
        let (r, w, gone) = crate::stdio::stdio_streams()?;
        let (peer, rx) = Peer::new(self.inner.config.clone());
        let handler = self.session_handler(peer.clone());
        let reason = connection::run_with_probe(r, w, peer, rx, handler, Some(gone)).await;
        tracing::debug!(%reason, "stdio session ended");
        Ok(())
    }
}

impl ServerBuilder {
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.info.name = name.into();
        self
    }
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }
    /// The full implementation info (name, version, title, icons, website).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Registers a tool (from `#[tool]`, or built by hand with [`ToolRoute::new`]).
    pub fn tool(mut self, route: impl Into<ToolRoute>) -> Self {
        let route = route.into();
        if let Err(e) = tools::validate_tool_name(&route.tool.name) {
            self.errors.push(ServerError::InvalidTool(e));
        }
        if route.tool.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
            self.errors.push(ServerError::InvalidTool(format!(
                "tool `{}`: inputSchema must have type \"object\"",
                route.tool.name
            )));
        }
        self.tools.push(route);
        self
    }

    /// Registers several tools (for example every `#[tool]` method of an impl block).
    pub fn tools(mut self, routes: impl IntoIterator<Item = ToolRoute>) -> Self {
        for r in routes {
            self = self.tool(r);
        }
        self
    }

    /// Declares the tools capability even with no tool registered yet (tools added while serving).
    pub fn offer_tools(mut self) -> Self {
        self.offer.0 = true;
        self
    }

    pub fn resource(mut self, route: ResourceRoute) -> Self {
        self.resources.push(route);
        self
    }

    pub fn resource_template(mut self, route: Result<ResourceTemplateRoute, String>) -> Self {
        match route {
            Ok(r) => self.templates.push(r),
            Err(e) => self.errors.push(ServerError::InvalidTemplate(e)),
        }
        self
    }

    pub fn prompt(mut self, route: impl Into<PromptRoute>) -> Self {
        self.prompts.push(route.into());
        self
    }

    pub fn completion(mut self, handler: impl CompletionHandler) -> Self {
        self.completion = Some(Arc::new(handler));
        self
    }

    /// Called when the client sends `notifications/roots/list_changed`.
    pub fn on_roots_changed(mut self, f: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_roots_changed = Some(Arc::new(f));
        self
    }

    /// Items per page of the list methods (default 100).
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    pub fn connection_config(mut self, config: ConnectionConfig) -> Self {
        self.config = config;
        self
    }

    /// Builds the server; duplicate names and invalid definitions are errors.
    pub fn build(self) -> Result<Server, ServerError> {
        if let Some(e) = self.errors.into_iter().next() {
            return Err(e);
        }
        let inner = ServerInner {
            info: self.info,
            instructions: self.instructions,
            tools: Registry::default(),
            resources: Registry::default(),
            templates: Registry::default(),
            prompts: Registry::default(),
            completion: self.completion,
            on_roots_changed: self.on_roots_changed,
            offers_tools: self.offer.0 || !self.tools.is_empty(),
            offers_resources: self.offer.1
                || !self.resources.is_empty()
                || !self.templates.is_empty(),
            offers_prompts: self.offer.2 || !self.prompts.is_empty(),
            page_size: self.page_size,
            config: self.config,
            sessions: Mutex::new(Vec::new()),
        };
        inner
            .tools
            .extend(self.tools)
            .map_err(ServerError::DuplicateTool)?;
        for r in self.resources {
            inner
                .resources
                .insert(r)
                .map_err(ServerError::DuplicateResource)?;
        }
        for t in self.templates {
            inner
                .templates
                .insert(t)
                .map_err(ServerError::DuplicateResource)?;
        }
        for p in self.prompts {
            inner
                .prompts
                .insert(p)
                .map_err(ServerError::DuplicatePrompt)?;
        }
        Ok(Server {
            inner: Arc::new(inner),
        })
    }
}
