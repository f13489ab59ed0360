//! The server: what it offers (tools, resources, prompts, completion), how it is built, and how it serves.

mod arguments;
mod builder;
mod context;
pub mod era;
mod listen;
pub mod logging;
mod mrtr;
pub mod prompts;
mod raw_tool;
mod registry;
pub mod request_state;
pub mod resources;
mod session;
mod session_state;
pub mod skills;
mod stamp;
mod task_channel;
pub mod tasks;
pub mod tool_result;
pub mod tools;
pub mod visibility;

pub use builder::ServerBuilder;
pub use context::{Context, NamedInput, SessionHandle};
pub use era::ModernRequest;
pub use prompts::{PromptArgs, PromptHandler, PromptRoute};
pub use raw_tool::RawToolHandler;
pub use request_state::{RequestStateKeys, StateKeyError, STATE_KEYS_ENV};
pub use resources::{ResourceHandler, ResourceRoute, ResourceTemplateRoute, UriTemplate, UriVars};
pub use skills::{Skill, SkillError, SkillsFeature};
pub use tasks::{MemoryTaskStore, TaskConfig, TaskLimits, TaskStore};
pub use tool_result::{IntoContent, IntoPromptResult, IntoResourceResult};
pub use tools::{ArgumentError, Arguments, ToolHandler, ToolRoute};
pub use visibility::{Listed, Visibility};

use crate::connection::{self, ConnectionConfig, Handler, Peer};
use crate::framing::{parse_params, to_raw};
use crate::future::BoxFuture;
use crate::protocol::*;
use registry::Registry;
use serde_json::value::RawValue;
use session::ServerHandler;
pub(crate) use session_state::SessionState;
use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

/// Which protocol eras a server speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Eras {
    /// The handshake era (2024-11-05 to 2025-11-25) and 2026-07-28, chosen per request: the default.
    #[default]
    Both,
    /// Only 2026-07-28: `initialize` is refused (naming the version to use), GET/DELETE on HTTP are 405.
    ModernOnly,
    /// Only the handshake era: `server/discover` is an unknown method, as in servers before 2026.
    LegacyOnly,
}

/// Answers `completion/complete`. Implemented for `Fn(CompleteParams, Context) -> impl Future` closures.
pub trait CompletionHandler: Send + Sync + 'static {
    /// Completes the partial value of a prompt argument or resource-template variable. An `Err` is sent as
    /// the JSON-RPC error of the request.
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
#[derive(Debug, Clone, PartialEq)]
pub enum ServerError {
    /// Two tools with the same name were registered.
    DuplicateTool(String),
    /// Two prompts with the same name were registered.
    DuplicatePrompt(String),
    /// Two resources (or two resource templates) with the same URI were registered.
    DuplicateResource(String),
    /// A tool's name is not valid, its input schema is not `type: "object"`, or its `x-mcp-header`
    /// annotations are wrong; the message names the tool and the reason.
    InvalidTool(String),
    /// A resource template is not a valid RFC 6570 URI template.
    InvalidTemplate(String),
    /// A skill could not be read or breaks the extension's rules (front matter, names, limits).
    InvalidSkill(SkillError),
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerError::DuplicateTool(name) => write!(
                f,
                "duplicate tool name `{name}`: every tool of a server needs its own name"
            ),
            ServerError::DuplicatePrompt(name) => write!(f, "duplicate prompt name `{name}`"),
            ServerError::DuplicateResource(uri) => write!(f, "duplicate resource `{uri}`"),
            ServerError::InvalidTool(why) => write!(f, "invalid tool: {why}"),
            ServerError::InvalidTemplate(why) => write!(f, "invalid resource template: {why}"),
            ServerError::InvalidSkill(e) => write!(f, "invalid skill: {e}"),
        }
    }
}

impl std::error::Error for ServerError {}

fn check_tool(route: &mut ToolRoute) -> Result<(), ServerError> {
    tools::validate_tool_name(&route.tool.name).map_err(ServerError::InvalidTool)?;
    if route.tool.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
        return Err(ServerError::InvalidTool(format!(
            "tool `{}`: inputSchema must have type \"object\"",
            route.tool.name
        )));
    }
    let params = crate::schema::header_params(&route.tool.input_schema)
        .map_err(|e| ServerError::InvalidTool(format!("tool `{}`: {e}", route.tool.name)))?;
    route.header_params = params.into();
    Ok(())
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: Registry<ToolRoute>,
    pub(crate) resources: Registry<ResourceRoute>,
    pub(crate) templates: Registry<ResourceTemplateRoute>,
    pub(crate) prompts: Registry<PromptRoute>,
    /// The skills extension (SEP-2640): `None` when the server does not declare it.
    pub(crate) skills: Option<skills::SkillCatalog>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) on_roots_changed: Option<Arc<dyn Fn() + Send + Sync>>,
    pub(crate) offers_tools: bool,
    offers_resources: bool,
    offers_prompts: bool,
    page_size: usize,
    pub(crate) config: ConnectionConfig,
    sessions: Mutex<Vec<Weak<SessionState>>>,
    pub(crate) eras: Eras,
    /// The server's `Implementation`, serialized once, for the `_meta` of 2026-07-28 results.
    pub(crate) info_raw: Box<RawValue>,
    pub(crate) info_in_results: bool,
    /// Caching hints of `server/discover` and of list items that set none.
    pub(crate) cache: CacheHints,
    /// Caching hints of `resources/read` results whose resource sets none.
    pub(crate) read_cache: CacheHints,
    pub(crate) sealer: mrtr::StateSealer,
    pub(crate) listeners: listen::Listeners,
    /// Cancelled when the server closes its `subscriptions/listen` streams.
    pub(crate) closing: CancellationToken,
    pub(crate) tasks: tasks::Tasks,
    /// List changes and resource updates to and from the other instances (when on a bus).
    forward: crate::scale::forward::Forwarder,
    /// Serves every connection in place of the dispatch (see [`ServerBuilder::connection_handler`]).
    connection_handler: Option<ConnectionHandlerFn>,
    /// What each caller may see (see [`ServerBuilder::visibility`]); `None`: everything.
    pub(crate) visibility: Option<Arc<dyn Visibility>>,
}

/// Makes the handler of one connection from its peer (see [`ServerBuilder::connection_handler`]).
pub type ConnectionHandlerFn = Arc<dyn Fn(Peer) -> Arc<dyn Handler> + Send + Sync>;

impl ServerInner {
    /// What the server declares: at `initialize` (handshake era) or in `server/discover` (`modern`).
    pub(crate) fn capabilities(&self, modern: bool) -> ServerCapabilities {
        let listed = Some(ListChangedCapability {
            list_changed: Some(true),
        });
        let mut caps = ServerCapabilities {
            tools: self.offers_tools.then(|| listed.clone()).flatten(),
            resources: self.offers_resources.then_some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
            }),
            prompts: self.offers_prompts.then(|| listed.clone()).flatten(),
            logging: Some(JsonObject::new()),
            completions: self.completion.as_ref().map(|_| JsonObject::new()),
            extensions: self.extensions(),
            ..Default::default()
        };
        tasks::Tasks::advertise(&mut caps, &self.tools, modern);
        caps
    }

    /// `capabilities.extensions`: each declared extension's settings under its identifier.
    fn extensions(&self) -> Option<JsonObject> {
        let mut ext = JsonObject::new();
        if self.skills.is_some() {
            let settings = skills::SkillCatalog::capability();
            ext.insert(
                SKILLS_EXTENSION.into(),
                serde_json::to_value(settings).unwrap_or_default(),
            );
        }
        (!ext.is_empty()).then_some(ext)
    }

    pub(crate) fn has_resources(&self) -> bool {
        self.offers_resources
    }
    pub(crate) fn has_prompts(&self) -> bool {
        self.offers_prompts
    }

    /// A page of a list; `stamp` (2026-07-28) adds `resultType`, the server's identity and caching hints:
    /// the shortest freshness of the page's items, and a scope that is private if any item of the whole
    /// list is (every page of a list has the same scope).
    #[allow(clippy::too_many_arguments)]
    fn page<T: registry::Keyed + Clone, I: serde::Serialize>(
        &self,
        set: &registry::Set<T>,
        params: Option<&RawValue>,
        key: &'static str,
        item: impl Fn(&T) -> &I,
        hints: impl Fn(&T) -> Option<CacheHints>,
        stamp: Option<&stamp::Stamp<'_>>,
        listed: Option<fn(&str) -> Listed<'_>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let p: PaginatedParams = parse_params(params)?;
        // With a visibility, the caller's own list is paged (its cursors count its items only).
        let mine: Vec<&T> = match (&self.visibility, listed) {
            (Some(v), Some(listed)) => {
                let caller = crate::identity::current();
                set.items
                    .iter()
                    .filter(|t| v.visible(listed(t.key()), caller.as_deref()))
                    .collect()
            }
            _ => set.items.iter().collect(),
        };
        let (page, next) = registry::page_of(&mine, p.cursor.as_deref(), self.page_size)?;
        let items: Vec<&I> = page.iter().map(|t| item(t)).collect();
        let body = ListPage {
            items: (key, &items),
            next_cursor: next,
        };
        let Some(stamp) = stamp else {
            return to_raw(&body);
        };
        // Each item's own hints, or the server's; the list is as fresh as its stalest item on this
        // page, and private if any item of the whole list is.
        let base = stamp.cache.unwrap_or(self.cache);
        let effective = |t: &T| hints(t).unwrap_or(base);
        // A list that differs per caller is private, whatever its items say.
        let scope = match (&self.visibility, listed) {
            (Some(_), Some(_)) => CacheScope::Private,
            _ => mine
                .iter()
                .map(|t| effective(t).cache_scope)
                .max()
                .unwrap_or(base.cache_scope),
        };
        let ttl = page
            .iter()
            .map(|t| effective(t).ttl_ms)
            .min()
            .unwrap_or(base.ttl_ms);
        stamp::Stamp {
            result_type: stamp.result_type.clone(),
            cache: Some(CacheHints::new(ttl, scope)),
            server_info: stamp.server_info,
        }
        .apply(&body, None)
    }

    pub(crate) fn list_tools(
        &self,
        params: Option<&RawValue>,
        stamp: Option<&stamp::Stamp<'_>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let set = self.tools.snapshot();
        self.page(
            &set,
            params,
            "tools",
            |r| &r.tool,
            |r| r.cache,
            stamp,
            Some(Listed::tool),
        )
    }

    pub(crate) fn list_resources(
        &self,
        params: Option<&RawValue>,
        stamp: Option<&stamp::Stamp<'_>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let set = self.resources.snapshot();
        self.page(
            &set,
            params,
            "resources",
            |r| &r.resource,
            |r| r.cache,
            stamp,
            Some(Listed::resource),
        )
    }

    pub(crate) fn list_resource_templates(
        &self,
        params: Option<&RawValue>,
        stamp: Option<&stamp::Stamp<'_>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let set = self.templates.snapshot();
        self.page(
            &set,
            params,
            "resourceTemplates",
            |r| &r.template,
            |r| r.cache,
            stamp,
            Some(Listed::resource_template),
        )
    }

    pub(crate) fn list_prompts(
        &self,
        params: Option<&RawValue>,
        stamp: Option<&stamp::Stamp<'_>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let set = self.prompts.snapshot();
        self.page(
            &set,
            params,
            "prompts",
            |r| &r.prompt,
            |r| r.cache,
            stamp,
            Some(Listed::prompt),
        )
    }

    /// Whether `subscriptions/listen` has anything to deliver.
    pub(crate) fn offers_listen(&self) -> bool {
        self.offers_tools || self.offers_prompts || self.offers_resources
    }

    /// The handler of a URI, the template's variables, and the resource's caching hints.
    pub(crate) fn find_resource(
        &self,
        uri: &str,
    ) -> Option<(Arc<dyn ResourceHandler>, UriVars, Option<CacheHints>)> {
        if let Some(r) = self.resources.snapshot().get(uri) {
            return self
                .visible(Listed::Resource(uri))
                .then(|| (r.handler.clone(), UriVars::new(), r.cache));
        }
        // A skill's files other than its SKILL.md are read like resources but not listed.
        if let Some((handler, cache)) = self.skills.as_ref().and_then(|s| s.file(uri)) {
            return Some((handler, UriVars::new(), cache));
        }
        let templates = self.templates.snapshot();
        templates.items.iter().find_map(|t| {
            t.parsed
                .matches(uri)
                .filter(|_| self.visible(Listed::ResourceTemplate(registry::Keyed::key(t))))
                .map(|vars| (t.handler.clone(), vars, t.cache))
        })
    }

    /// Whether the caller of the request being dispatched may see `item` (see [`Visibility`]).
    pub(crate) fn visible(&self, item: Listed<'_>) -> bool {
        match &self.visibility {
            None => true,
            Some(v) => v.visible(item, crate::identity::current().as_deref()),
        }
    }

    pub(crate) fn add_session(&self, s: &Arc<SessionState>) {
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

    /// A change notification to the handshake-era sessions `only` selects and to the 2026-07-28 listen
    /// streams `wants` selects.
    fn broadcast(
        &self,
        method: &str,
        params: Option<serde_json::Value>,
        only: impl Fn(&SessionState) -> bool,
        wants: impl Fn(&SubscriptionFilter) -> bool,
    ) {
        let raw = params.as_ref().and_then(|p| to_raw(p).ok());
        for s in self.live_sessions() {
            if only(&s) {
                s.peer.try_notify(method, raw.as_deref(), None);
            }
        }
        self.listeners.notify(method, params.as_ref(), wants);
    }

    /// Tells this instance's sessions and listen streams about `change`.
    fn deliver(&self, change: &crate::scale::ServerChange) {
        use crate::scale::ServerChange as C;
        match change {
            C::ToolsListChanged => {
                self.broadcast(methods::TOOLS_LIST_CHANGED, None, |_| true, |f| f.tools())
            }
            C::PromptsListChanged => self.broadcast(
                methods::PROMPTS_LIST_CHANGED,
                None,
                |_| true,
                |f| f.prompts(),
            ),
            C::ResourcesListChanged => self.broadcast(
                methods::RESOURCES_LIST_CHANGED,
                None,
                |_| true,
                |f| f.resources(),
            ),
            C::ResourceUpdated { uri } => self.broadcast(
                methods::RESOURCES_UPDATED,
                Some(serde_json::json!({ "uri": uri })),
                |s| s.is_subscribed(uri),
                |f| f.watches(uri),
            ),
        }
    }

    /// Tells this instance's sessions and listen streams, then the other instances (if on a bus).
    fn change(&self, change: crate::scale::ServerChange) {
        self.deliver(&change);
        self.forward.publish(change);
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

impl Server {
    /// A builder for a server named `mcp-runtime-server`, with no tools, prompts or resources, serving both
    /// eras.
    pub fn builder() -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new("mcp-runtime-server", env!("CARGO_PKG_VERSION")),
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            skills: None,
            completion: None,
            on_roots_changed: None,
            offer: (false, false, false),
            page_size: 100,
            config: ConnectionConfig::default(),
            errors: Vec::new(),
            eras: Eras::Both,
            info_in_results: true,
            cache: CacheHints::new(0, CacheScope::Public),
            read_cache: CacheHints::new(0, CacheScope::Private),
            state_keys: None,
            state_ttl: Duration::from_secs(10 * 60),
            task_config: TaskConfig::default(),
            task_store: None,
            connection_handler: None,
            visibility: None,
        }
    }

    /// The capabilities this server declares to a handshake-era client (`initialize`).
    pub fn capabilities(&self) -> ServerCapabilities {
        self.inner.capabilities(false)
    }

    /// Which eras this server speaks.
    pub fn eras(&self) -> Eras {
        self.inner.eras
    }

    /// The `x-mcp-header` arguments of a tool (empty for an unknown tool or one without any).
    pub fn tool_header_params(&self, name: &str) -> Arc<[crate::schema::HeaderParam]> {
        self.inner
            .tools
            .snapshot()
            .get(name)
            .map(|r| r.header_params.clone())
            .unwrap_or_else(|| Arc::from([]))
    }

    /// Every skill this server serves (SEP-2640), as `skills/list` lists them.
    pub fn skills(&self) -> Vec<SkillEntry> {
        self.inner
            .skills
            .as_ref()
            .map(|c| c.entries.items.iter().map(|r| r.entry.clone()).collect())
            .unwrap_or_default()
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

    /// The OAuth scopes a tool requires (checked by the HTTP transport); `None` for an unknown tool.
    #[cfg(feature = "http")]
    pub(crate) fn tool_scopes(&self, name: &str) -> Option<Vec<String>> {
        self.inner
            .tools
            .snapshot()
            .get(name)
            .map(|r| r.scopes.clone())
    }

    /// Adds a tool while serving and tells every session (`notifications/tools/list_changed`).
    pub fn add_tool(&self, route: ToolRoute) -> Result<(), ServerError> {
        let mut route = route;
        check_tool(&mut route)?;
        self.inner
            .tools
            .insert(route)
            .map_err(ServerError::DuplicateTool)?;
        self.notify_tools_list_changed();
        Ok(())
    }

    /// Tells every session and listen stream that the tool list changed (`notifications/tools/list_changed`),
    /// for servers whose tools change without [`Server::add_tool`] (a list filtered per user, say).
    pub fn notify_tools_list_changed(&self) {
        self.inner
            .change(crate::scale::ServerChange::ToolsListChanged);
    }

    /// Tells every session and listen stream that the prompt list changed.
    pub fn notify_prompts_list_changed(&self) {
        self.inner
            .change(crate::scale::ServerChange::PromptsListChanged);
    }

    /// Ends every open `subscriptions/listen` request gracefully (a complete result), for a shutdown.
    pub fn close_subscriptions(&self) {
        self.inner.closing.cancel();
    }

    /// How many `subscriptions/listen` requests are open.
    pub fn subscription_count(&self) -> usize {
        self.inner.listeners.count()
    }

    /// Removes the tools named in `remove` and adds `add` in one change, **without** notifying: for servers
    /// whose tools change in batches (a gateway re-listing an upstream) and that tell sessions once, with
    /// [`Server::notify_tools_list_changed`]. A route that is invalid or whose name is taken is left out
    /// and returned by name with the reason; the others are applied.
    pub fn change_tools(&self, remove: &[&str], add: Vec<ToolRoute>) -> Vec<(String, ServerError)> {
        let mut refused = Vec::new();
        let mut valid = Vec::with_capacity(add.len());
        for mut route in add {
            match check_tool(&mut route) {
                Ok(()) => valid.push(route),
                Err(e) => refused.push((route.tool.name, e)),
            }
        }
        refused.extend(
            self.inner
                .tools
                .update(remove, valid)
                .into_iter()
                .map(|name| (name.clone(), ServerError::DuplicateTool(name))),
        );
        refused
    }

    /// [`Server::change_tools`] for prompts (by name), without notifying.
    pub fn change_prompts(
        &self,
        remove: &[&str],
        add: Vec<PromptRoute>,
    ) -> Vec<(String, ServerError)> {
        let taken = self.inner.prompts.update(remove, add);
        taken
            .into_iter()
            .map(|n| (n.clone(), ServerError::DuplicatePrompt(n)))
            .collect()
    }

    /// [`Server::change_tools`] for resources (by URI) and resource templates (by URI template), without
    /// notifying.
    pub fn change_resources(
        &self,
        remove: &[&str],
        add: Vec<ResourceRoute>,
        remove_templates: &[&str],
        add_templates: Vec<ResourceTemplateRoute>,
    ) -> Vec<(String, ServerError)> {
        let mut taken: Vec<(String, ServerError)> = self
            .inner
            .resources
            .update(remove, add)
            .into_iter()
            .map(|u| (u.clone(), ServerError::DuplicateResource(u)))
            .collect();
        taken.extend(
            self.inner
                .templates
                .update(remove_templates, add_templates)
                .into_iter()
                .map(|u| (u.clone(), ServerError::DuplicateResource(u))),
        );
        taken
    }

    /// Removes a tool while serving; whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.inner.tools.remove(name);
        if removed {
            self.notify_tools_list_changed();
        }
        removed
    }

    /// Adds a prompt while serving and tells every session (`notifications/prompts/list_changed`). Fails with
    /// [`ServerError::DuplicatePrompt`] when the name is taken.
    pub fn add_prompt(&self, route: PromptRoute) -> Result<(), ServerError> {
        self.inner
            .prompts
            .insert(route)
            .map_err(ServerError::DuplicatePrompt)?;
        self.notify_prompts_list_changed();
        Ok(())
    }

    /// Adds a resource while serving and tells every session (`notifications/resources/list_changed`). Fails
    /// with [`ServerError::DuplicateResource`] when the URI is taken.
    pub fn add_resource(&self, route: ResourceRoute) -> Result<(), ServerError> {
        self.inner
            .resources
            .insert(route)
            .map_err(ServerError::DuplicateResource)?;
        self.notify_resource_list_changed();
        Ok(())
    }

    /// Tells every session and listen stream that the resource list changed
    /// (`notifications/resources/list_changed`).
    pub fn notify_resource_list_changed(&self) {
        self.inner
            .change(crate::scale::ServerChange::ResourcesListChanged);
    }

    /// `notifications/resources/updated`, to the sessions subscribed to this URI (or a parent of it) and
    /// the listen streams watching it.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.inner
            .change(crate::scale::ServerChange::ResourceUpdated {
                uri: uri.to_string(),
            });
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
        self.request_handler(peer, None, None)
    }

    /// [`Server::session_handler`] for a connection whose transport authenticated `principal` (an
    /// opaque name: the subject of a verified token, say). It reaches handlers as
    /// [`Context::principal`] and binds multi round-trip request states to that principal.
    pub fn session_handler_for(&self, peer: Peer, principal: Option<String>) -> Arc<dyn Handler> {
        self.request_handler(peer, principal, None)
    }

    /// [`Server::session_handler_for`], with the session state it serves (which a shared session store
    /// records and restores).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn session_with_state(
        &self,
        peer: Peer,
        principal: Option<String>,
    ) -> (Arc<SessionState>, Arc<dyn Handler>) {
        let s = SessionState::new(self.inner.clone(), peer.clone());
        if let Some(p) = principal {
            s.set_principal(p);
        }
        let handler = match &self.inner.connection_handler {
            Some(make) => make(peer),
            None => Arc::new(ServerHandler(s.clone())),
        };
        (s, handler)
    }

    /// Joins the other instances of a deployment on `bus`: tasks cancelled elsewhere stop here, and list
    /// changes and resource updates made on any instance reach the sessions and listen streams of all.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn attach_bus(&self, bus: Arc<dyn crate::scale::Bus>, origin: String) {
        self.inner
            .tasks
            .shared()
            .attach_bus(bus.clone(), origin.clone());
        let weak = Arc::downgrade(&self.inner);
        self.inner.forward.attach(bus, origin, move |change| {
            let Some(inner) = weak.upgrade() else {
                return false;
            };
            inner.deliver(change);
            true
        });
    }

    /// The handler of a connection that carries one 2026-07-28 request whose declarations the transport
    /// has read already.
    pub(crate) fn request_handler(
        &self,
        peer: Peer,
        principal: Option<String>,
        modern: Option<Arc<ModernRequest>>,
    ) -> Arc<dyn Handler> {
        if let Some(make) = &self.inner.connection_handler {
            return make(peer);
        }
        let s = SessionState::new(self.inner.clone(), peer);
        if let Some(p) = principal {
            s.set_principal(p);
        }
        if let Some(m) = modern {
            s.preset(m);
        }
        Arc::new(ServerHandler(s))
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
