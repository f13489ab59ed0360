//! The gateway: every upstream supervised on its own, their tools and prompts merged into one runtime
//! `Server` under names from a [`NameTable`] each, their resources and templates under their own URIs
//! (routed by the server's registry; the first upstream to list a URI keeps it), and list changes
//! coalesced into one notification per kind downstream.
//!
//! Each upstream has a supervisor task: connect (within its init timeout), list every page of its tools,
//! register them, then watch. A `tools/list_changed` re-lists that upstream only; a closed connection
//! marks it down (its calls fail at once with the reason: exit status and stderr tail) and restarts it
//! with exponential backoff and jitter. Upstreams never wait for each other.

use crate::authz::Authz;
use crate::breaker::Breaker;
use crate::cache::ReadCache;
use crate::config::{Composite, Config, Prefixing, UpstreamConfig};
use crate::discovery::{self, Catalogue};
use crate::health::{SessionsStatus, UpstreamStatus, UsersStatus};
use crate::hop::Hop;
use crate::listing::{all_pages, digest_of, route};
use crate::metrics::Metrics;
use crate::names::{NameTable, Target};
use crate::restart::{pause, FIRST_BACKOFF, HEALTHY_AFTER};
use crate::upstream::{State, Upstream};
use crate::{composite, relay};
use mcp_runtime::client::Client;
use mcp_runtime::protocol::{
    methods, CompleteParams, CompleteResult, CompletionRef, ErrorObject, LoggingLevel, Prompt,
    SubscriptionFilter, TaskSupport, Tool,
};
use mcp_runtime::server::{PromptArgs, PromptRoute, ResourceRoute, ResourceTemplateRoute, UriVars};
use mcp_runtime::{Context, Error, Server};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify};
use tokio_util::sync::CancellationToken;

/// Changes within this window become one `list_changed` downstream.
const COALESCE: Duration = Duration::from_millis(25);
/// A running gateway: give [`Gateway::server`] to a transport.
#[derive(Clone)]
pub struct Gateway {
    inner: Arc<Inner>,
}

pub(crate) const TOOLS: u8 = 1;
pub(crate) const PROMPTS: u8 = 2;
pub(crate) const RESOURCES: u8 = 4;

/// What one upstream has registered in the server: tools and prompts by upstream name (→ exposed
/// name), resource URIs and URI templates as they are.
#[derive(Default, Clone)]
pub(crate) struct Listed {
    tools: BTreeMap<String, String>,
    prompts: BTreeMap<String, String>,
    pub(crate) resources: Vec<String>,
    pub(crate) templates: Vec<String>,
    /// A digest of what it registered, per kind (tools, prompts, resources): a reload notifies only
    /// the kinds whose lists changed.
    digest: [u64; 3],
}

/// One upstream of the running gateway: the upstream, and the token that stops its supervisor.
pub(crate) struct Slot {
    pub(crate) up: Arc<Upstream>,
    pub(crate) stop: CancellationToken,
}

/// Lock order: `names`, `prompt_names`, `listed`, then `upstreams`.
pub(crate) struct Inner {
    /// The upstreams by index (the index names' targets and `listed` use). A removed upstream's index
    /// is free (`None`) until a reload gives it to a new one.
    pub(crate) upstreams: RwLock<Vec<Option<Slot>>>,
    /// Whether new names get their upstream's prefix (a reload recomputes it; names given are kept).
    pub(crate) prefixed: AtomicBool,
    pub(crate) names: Mutex<NameTable>,
    /// What each upstream has registered now, by index.
    pub(crate) listed: Mutex<Vec<Listed>>,
    pub(crate) prompt_names: Mutex<NameTable>,
    /// Kinds changed since the last notification (bits of [`TOOLS`], [`PROMPTS`], [`RESOURCES`]).
    pub(crate) dirty: AtomicU8,
    pub(crate) server: Server,
    changed: Arc<Notify>,
    /// Set once `start` returns: changes before it need no notification (no client has listed yet).
    serving: AtomicBool,
    /// Cancelled when the gateway is dropped: every supervisor ends.
    closing: CancellationToken,
    /// Calls, errors and latency per upstream and tool.
    metrics: Arc<Metrics>,
    /// `resources/read` answers kept by the upstreams' caching hints.
    pub(crate) cache: Arc<ReadCache>,
    /// Discovery mode: the tools live here, behind the meta-tools, instead of in the server.
    pub(crate) catalogue: Option<Arc<Catalogue>>,
    /// The configuration running now (what a reload compares a new one with).
    pub(crate) config: Mutex<Config>,
    /// The composite tools registered now, and a digest of their definitions.
    composites: Mutex<(Vec<String>, u64)>,
    /// Held by a reload from its start to its end: the coalescer waits for it, so that a reload's
    /// changes go out as one notification per kind.
    pub(crate) reload_gate: tokio::sync::Mutex<()>,
    /// `gateway.rules`, applied by the server's visibility (see [`crate::authz`]).
    pub(crate) authz: Arc<Authz>,
}

impl Gateway {
    /// Starts every upstream in parallel and returns once each is up or has failed its first start
    /// (failed ones are retried in the background). Never fails: an upstream that cannot start is
    /// reported (tracing) and its tools appear when it comes up.
    pub async fn start(config: Config) -> Gateway {
        Gateway::start_with_tasks(config, None).await
    }

    /// [`Gateway::start`], with the downstream tasks kept in `tasks` (a store that several gateway
    /// instances share, such as [`mcp_runtime::scale::redis::RedisTaskStore`]) instead of memory.
    pub async fn start_with_tasks(
        config: Config,
        tasks: Option<Arc<dyn mcp_runtime::server::TaskStore>>,
    ) -> Gateway {
        Gateway::start_shared(config, tasks, None).await
    }

    /// [`Gateway::start_with_tasks`], with the keys that seal 2026-07-28 request states
    /// ([`mcp_runtime::server::RequestStateKeys`]): instances behind one load balancer share them, so
    /// that a retry may land on any of them. `None`: a random key, for one instance.
    pub async fn start_shared(
        config: Config,
        tasks: Option<Arc<dyn mcp_runtime::server::TaskStore>>,
        state_keys: Option<mcp_runtime::server::RequestStateKeys>,
    ) -> Gateway {
        let prefixed = prefixed(&config);
        let catalogue = config.discovery.then(|| Arc::new(Catalogue::default()));
        let metrics = Arc::new(Metrics::new());
        let (hits, misses) = metrics.cache_counters();
        let cache = Arc::new(ReadCache::new(config.cache_bytes, hits, misses));
        let authz = Authz::new(config.rules.clone());
        let inner = Arc::new_cyclic(|me: &std::sync::Weak<Inner>| {
            let (me, me2) = (me.clone(), me.clone());
            let meta = catalogue.as_ref().map(discovery::meta_tools);
            let server = Server::builder()
                .name("mcp-gateway")
                .version(env!("CARGO_PKG_VERSION"))
                .offer_tools()
                .offer_prompts()
                .offer_resources()
                .completion(move |params: CompleteParams, ctx: Context| {
                    let me = me.clone();
                    async move {
                        let gw = me
                            .upgrade()
                            .ok_or_else(|| ErrorObject::internal("the gateway is closing"))?;
                        gw.complete(params, ctx).await
                    }
                });
            let server = match tasks {
                Some(store) => server.task_store(store),
                None => server,
            };
            let server = match state_keys {
                Some(keys) => server.request_state_keys(keys),
                None => server,
            };
            // Rules or authentication at start: each list and call is judged (a reload may change them).
            let judged = config.rules.is_some() || config.auth.is_some();
            let server = match judged {
                true => server.visibility(
                    authz.visibility(move |item| me2.upgrade().and_then(|g| g.owner(item))),
                ),
                false => server,
            };
            let server = meta
                .into_iter()
                .flatten()
                .fold(server, |b, route| b.tool(route))
                .build()
                .expect("a server with only the fixed meta-tools always builds");
            Inner {
                upstreams: RwLock::new(Vec::with_capacity(config.upstreams.len())),
                prefixed: AtomicBool::new(prefixed),
                names: Mutex::new(NameTable::default()),
                listed: Mutex::new(Vec::with_capacity(config.upstreams.len())),
                prompt_names: Mutex::new(NameTable::default()),
                dirty: AtomicU8::new(0),
                server,
                changed: Arc::new(Notify::new()),
                serving: AtomicBool::new(false),
                closing: CancellationToken::new(),
                metrics,
                cache,
                catalogue,
                config: Mutex::new(config.clone()),
                composites: Mutex::new((Vec::new(), 0)),
                reload_gate: tokio::sync::Mutex::new(()),
                authz,
            }
        });
        // Composite tools keep their names: they are taken before any upstream lists a tool.
        let ups: Vec<Arc<Upstream>> = config
            .upstreams
            .into_iter()
            .map(|u| inner.insert(u))
            .collect();
        inner.set_composites(&config.composites, &ups);
        let mut first = Vec::with_capacity(ups.len());
        for up in ups {
            first.push(inner.spawn_supervisor(up));
        }
        for mut rx in first {
            let _ = rx.wait_for(|started| *started).await;
        }
        inner.serving.store(true, Ordering::Release);
        tokio::spawn(coalesce(
            Arc::downgrade(&inner),
            inner.changed.clone(),
            inner.closing.clone(),
        ));
        Gateway { inner }
    }

    /// The downstream server: serve it over stdio or HTTP.
    pub fn server(&self) -> &Server {
        &self.inner.server
    }

    /// The gateway's metrics (served at `/metrics` in HTTP mode).
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// In discovery mode, how many tools the meta-tools reach; `None` otherwise.
    pub fn catalogue_len(&self) -> Option<usize> {
        self.inner.catalogue.as_ref().map(|c| c.len())
    }

    /// Each upstream's state, in the order of their names.
    pub fn status(&self) -> Vec<UpstreamStatus> {
        let listed = self.inner.listed.lock().unwrap_or_else(|e| e.into_inner());
        let slots = self
            .inner
            .upstreams
            .read()
            .unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<UpstreamStatus> = slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i, &s.up)))
            .map(|(i, u)| {
                let (state, reason, pid) = match u.state() {
                    State::Starting => ("starting", None, None),
                    State::Up(c) if !c.peer().is_closed() => ("up", None, c.server_pid()),
                    State::Up(_) => ("down", Some("connection closed".to_string()), None),
                    State::Down(why) => ("down", Some(why), None),
                };
                UpstreamStatus {
                    name: u.config.name.clone(),
                    state,
                    reason,
                    tools: listed[i].tools.len(),
                    restarts: u.restarts(),
                    pid,
                    sessions: u
                        .sessions
                        .as_ref()
                        .map(|p| p.pool())
                        .map(|p| SessionsStatus {
                            live: p.len(),
                            max: p.max(),
                            pids: p.pids(),
                        }),
                    users: u.users.as_ref().map(|p| p.pool()).map(|p| UsersStatus {
                        live: p.len(),
                        max: p.max(),
                        evictions: p.metrics().evictions.get(),
                        refusals: p.metrics().refusals.get(),
                        pids: p.pids(),
                    }),
                }
            })
            .collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }

    pub(crate) fn inner(&self) -> &Arc<Inner> {
        &self.inner
    }

    pub(crate) fn from_inner(inner: Arc<Inner>) -> Gateway {
        Gateway { inner }
    }
}

/// Whether names get their upstream's prefix under `config`.
pub(crate) fn prefixed(config: &Config) -> bool {
    match config.prefixing {
        Prefixing::Always => true,
        Prefixing::Never => false,
        Prefixing::Auto => config.upstreams.len() > 1,
    }
}

impl Inner {
    /// Routes a completion by its reference: a prompt through the prompt table (renamed back), a
    /// resource template to the upstream that listed it.
    async fn complete(
        &self,
        mut params: CompleteParams,
        ctx: Context,
    ) -> Result<CompleteResult, ErrorObject> {
        let upstream = match &mut params.reference {
            CompletionRef::Prompt { name } => {
                let names = self.prompt_names.lock().unwrap_or_else(|e| e.into_inner());
                let target = names.resolve(name).cloned().ok_or_else(|| {
                    ErrorObject::invalid_params(format!("Invalid params: unknown prompt `{name}`"))
                })?;
                *name = target.name;
                target.upstream
            }
            CompletionRef::Resource { uri } => {
                let listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
                listed
                    .iter()
                    .position(|l| l.templates.contains(uri) || l.resources.contains(uri))
                    .ok_or_else(|| {
                        ErrorObject::invalid_params(format!(
                            "Invalid params: unknown resource template `{uri}`"
                        ))
                    })?
            }
        };
        let up = self
            .upstream(upstream)
            .ok_or_else(|| ErrorObject::internal("the upstream was removed"))?;
        relay::complete(&up, params, ctx).await
    }

    /// The upstream at index `i`, unless it was removed.
    pub(crate) fn upstream(&self, i: usize) -> Option<Arc<Upstream>> {
        let slots = self.upstreams.read().unwrap_or_else(|e| e.into_inner());
        slots.get(i).and_then(|s| s.as_ref()).map(|s| s.up.clone())
    }

    /// Whether index `i` still holds `up` (call with `listed` locked: a reload removes an upstream
    /// under that lock, so nothing it listed is registered after it is gone).
    fn is_current(&self, i: usize, up: &Arc<Upstream>) -> bool {
        let slots = self.upstreams.read().unwrap_or_else(|e| e.into_inner());
        slots
            .get(i)
            .and_then(|s| s.as_ref())
            .is_some_and(|s| Arc::ptr_eq(&s.up, up))
    }

    /// Gives a new upstream an index (a free one if there is one). Its supervisor is not started.
    pub(crate) fn insert(&self, config: UpstreamConfig) -> Arc<Upstream> {
        let up = Arc::new(Upstream::new(config, &self.metrics));
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        let mut slots = self.upstreams.write().unwrap_or_else(|e| e.into_inner());
        let slot = Slot {
            up: up.clone(),
            stop: self.closing.child_token(),
        };
        match slots.iter().position(Option::is_none) {
            Some(i) => {
                slots[i] = Some(slot);
                listed[i] = Listed::default();
            }
            None => {
                slots.push(Some(slot));
                listed.push(Listed::default());
            }
        }
        up
    }

    /// Starts the supervisor of an upstream [`Inner::insert`] gave an index; the receiver turns true
    /// after its first start (up or failed).
    pub(crate) fn spawn_supervisor(self: &Arc<Self>, up: Arc<Upstream>) -> watch::Receiver<bool> {
        let (tx, rx) = watch::channel(false);
        let found = {
            let slots = self.upstreams.read().unwrap_or_else(|e| e.into_inner());
            slots.iter().enumerate().find_map(|(i, s)| {
                s.as_ref()
                    .filter(|s| Arc::ptr_eq(&s.up, &up))
                    .map(|s| (i, s.stop.clone()))
            })
        };
        let Some((i, stop)) = found else {
            let _ = tx.send(true);
            return rx;
        };
        let task = supervise(Arc::downgrade(self), i, up, tx);
        tokio::spawn(async move {
            tokio::select! {
                _ = task => {}
                _ = stop.cancelled() => {}
            }
        });
        rx
    }

    /// Takes upstream `i` out: its tools, prompts and resources leave the server (the kinds are marked
    /// changed), its names are forgotten, its supervisor stops and its index is free. Calls in flight
    /// keep their connection (see [`crate::reload`]). Returns the upstream.
    pub(crate) fn remove(&self, i: usize) -> Option<Arc<Upstream>> {
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        let mut prompt_names = self.prompt_names.lock().unwrap_or_else(|e| e.into_inner());
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        let mut slots = self.upstreams.write().unwrap_or_else(|e| e.into_inner());
        let slot = slots.get_mut(i)?.take()?;
        slot.stop.cancel();
        self.cache.drop_upstream(&slot.up.config.name);
        let gone = std::mem::take(&mut listed[i]);
        drop(slots);
        let tools: Vec<&str> = gone.tools.values().map(String::as_str).collect();
        if !tools.is_empty() {
            match &self.catalogue {
                Some(c) => drop(c.change(&tools, Vec::new())),
                None => drop(self.server.change_tools(&tools, Vec::new())),
            }
            self.mark(TOOLS);
        }
        let prompts: Vec<&str> = gone.prompts.values().map(String::as_str).collect();
        if !prompts.is_empty() {
            self.server.change_prompts(&prompts, Vec::new());
            self.mark(PROMPTS);
        }
        let resources: Vec<&str> = gone.resources.iter().map(String::as_str).collect();
        let templates: Vec<&str> = gone.templates.iter().map(String::as_str).collect();
        if !(resources.is_empty() && templates.is_empty()) {
            self.server
                .change_resources(&resources, Vec::new(), &templates, Vec::new());
            self.mark(RESOURCES);
        }
        for name in gone.tools.keys() {
            names.forget(&Target {
                upstream: i,
                name: name.clone(),
            });
        }
        for name in gone.prompts.keys() {
            prompt_names.forget(&Target {
                upstream: i,
                name: name.clone(),
            });
        }
        Some(slot.up)
    }

    /// Registers the composite tools of the config, in place of those registered before (their steps
    /// reach `ups`, the upstreams in config order). A composite keeps its name; one whose name an
    /// upstream tool has already taken is not served.
    pub(crate) fn set_composites(&self, composites: &[Composite], ups: &[Arc<Upstream>]) {
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        let mut current = self.composites.lock().unwrap_or_else(|e| e.into_inner());
        let (old, _) = std::mem::take(&mut *current);
        let target = |name: &str| Target {
            upstream: usize::MAX,
            name: name.to_string(),
        };
        for name in &old {
            names.forget(&target(name));
        }
        let mut now = Vec::with_capacity(composites.len());
        let mut routes = Vec::with_capacity(composites.len());
        for c in composites {
            if names.assign(target(&c.name), "", false) != c.name {
                names.forget(&target(&c.name));
                tracing::error!(composite = %c.name, "composite tool not served: an upstream tool has the name");
                continue;
            }
            now.push(c.name.clone());
            routes.push(composite::route(c, ups));
        }
        let remove: Vec<&str> = old.iter().map(String::as_str).collect();
        // In discovery mode composite tools join the catalogue like every other tool.
        let refused: Vec<(String, String)> = match &self.catalogue {
            Some(c) => c.change(&remove, routes),
            None => self
                .server
                .change_tools(&remove, routes)
                .into_iter()
                .map(|(name, why)| (name, why.to_string()))
                .collect(),
        };
        for (name, why) in refused {
            tracing::error!(composite = %name, "composite tool not served: {why}");
            names.forget(&target(&name));
            now.retain(|n| *n != name);
        }
        let digest = digest_of(
            composites
                .iter()
                .map(|c| (c.name.clone(), format!("{c:?}"))),
        );
        *current = (now, digest);
    }

    /// A digest of each kind's list as clients see it (tools, prompts, resources), to tell which kinds
    /// a reload changed.
    pub(crate) fn fingerprint(&self) -> [u64; 3] {
        let composites = self.composites.lock().unwrap_or_else(|e| e.into_inner()).1;
        let listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        let slots = self.upstreams.read().unwrap_or_else(|e| e.into_inner());
        let by_name: BTreeMap<&str, [u64; 3]> = slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.as_ref()
                    .map(|s| (s.up.config.name.as_str(), listed[i].digest))
            })
            .collect();
        std::array::from_fn(|k| {
            let mut h = std::hash::DefaultHasher::new();
            for (name, d) in &by_name {
                if d[k] != 0 {
                    name.hash(&mut h);
                    d[k].hash(&mut h);
                }
            }
            if k == 0 {
                composites.hash(&mut h);
            }
            h.finish()
        })
    }

    /// Re-lists what one upstream offers (tools; prompts and resources when it declares them) and
    /// registers the difference.
    async fn refresh(&self, i: usize, up: &Arc<Upstream>, client: &Client) -> Result<(), Error> {
        let caps = &client.server().capabilities;
        self.refresh_tools(i, up, client).await?;
        if caps.prompts.is_some() {
            self.refresh_prompts(i, up, client).await?;
        }
        if caps.resources.is_some() {
            self.refresh_resources(i, up, client).await?;
        }
        Ok(())
    }

    pub(crate) fn mark(&self, kind: u8) {
        if self.serving.load(Ordering::Acquire) {
            self.dirty.fetch_or(kind, Ordering::AcqRel);
            self.changed.notify_one();
        }
    }

    /// Re-lists one upstream's tools and registers the difference. Names already given are kept.
    async fn refresh_tools(
        &self,
        i: usize,
        up: &Arc<Upstream>,
        client: &Client,
    ) -> Result<(), Error> {
        let tools = all_pages("tools/list", |c| async move {
            client.list_tools(c).await.map(|p| (p.tools, p.next_cursor))
        })
        .await?;
        up.set_task_support(tools.iter().map(|t| (t.name.clone(), t.task_support())));
        let mut fresh: BTreeMap<String, Tool> = BTreeMap::new();
        for t in tools {
            if up.config.admits(&t.name) {
                fresh.insert(t.name.clone(), t);
            }
        }
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        if !self.is_current(i, up) {
            return Ok(());
        }
        let prefixed = self.prefixed.load(Ordering::Relaxed);
        // Every tool of this upstream is replaced in one change of the server's registry: gone ones
        // leave, kept ones get their (maybe changed) definition under the name they had, new ones get
        // a name. Names of other upstreams are never touched.
        let old = std::mem::take(&mut listed[i].tools);
        let remove: Vec<&str> = old.values().map(String::as_str).collect();
        for upstream_name in old.keys().filter(|k| !fresh.contains_key(*k)) {
            names.forget(&Target {
                upstream: i,
                name: upstream_name.clone(),
            });
        }
        let mut routes = Vec::with_capacity(fresh.len());
        let mut defs = Vec::with_capacity(fresh.len());
        let mut now = BTreeMap::new();
        for (upstream_name, tool) in fresh {
            let target = Target {
                upstream: i,
                name: upstream_name.clone(),
            };
            let exposed = names.assign(target, &up.config.prefix, prefixed);
            let hop = Hop {
                upstream: up.clone(),
                tool: upstream_name.as_str().into(),
                metrics: self.metrics.tool(&up.config.name, &upstream_name),
                support: TaskSupport::Forbidden,
            };
            defs.push((
                exposed.clone(),
                serde_json::to_string(&tool).unwrap_or_default(),
            ));
            routes.push(route(hop, exposed.clone(), tool));
            now.insert(exposed, upstream_name);
        }
        let changed = !(old.is_empty() && routes.is_empty());
        let refused = match &self.catalogue {
            Some(c) => c.change(&remove, routes),
            None => self
                .server
                .change_tools(&remove, routes)
                .into_iter()
                .map(|(name, why)| (name, why.to_string()))
                .collect(),
        };
        for (exposed, why) in refused {
            tracing::warn!(upstream = %up.config.name, "tool not served: {why}");
            if let Some(upstream_name) = now.remove(&exposed) {
                names.forget(&Target {
                    upstream: i,
                    name: upstream_name,
                });
            }
        }
        defs.retain(|(exposed, _)| now.contains_key(exposed));
        listed[i].digest[0] = if defs.is_empty() {
            0
        } else {
            digest_of(defs.into_iter())
        };
        listed[i].tools = now.into_iter().map(|(e, u)| (u, e)).collect();
        drop((names, listed));
        if changed {
            self.mark(TOOLS);
        }
        Ok(())
    }

    /// Re-lists one upstream's prompts, named like tools (their own table).
    async fn refresh_prompts(
        &self,
        i: usize,
        up: &Arc<Upstream>,
        client: &Client,
    ) -> Result<(), Error> {
        let prompts = all_pages("prompts/list", |c| async move {
            client
                .list_prompts(c)
                .await
                .map(|p| (p.prompts, p.next_cursor))
        })
        .await?;
        let mut names = self.prompt_names.lock().unwrap_or_else(|e| e.into_inner());
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        if !self.is_current(i, up) {
            return Ok(());
        }
        let prefixed = self.prefixed.load(Ordering::Relaxed);
        let old = std::mem::take(&mut listed[i].prompts);
        let remove: Vec<&str> = old.values().map(String::as_str).collect();
        let fresh: BTreeMap<String, Prompt> =
            prompts.into_iter().map(|p| (p.name.clone(), p)).collect();
        for gone in old.keys().filter(|k| !fresh.contains_key(*k)) {
            names.forget(&Target {
                upstream: i,
                name: gone.clone(),
            });
        }
        let mut routes = Vec::with_capacity(fresh.len());
        let mut defs = Vec::with_capacity(fresh.len());
        let mut now = BTreeMap::new();
        for (upstream_name, mut prompt) in fresh {
            let target = Target {
                upstream: i,
                name: upstream_name.clone(),
            };
            let exposed = names.assign(target, &up.config.prefix, prefixed);
            prompt.name = exposed.clone();
            defs.push((
                exposed.clone(),
                serde_json::to_string(&prompt).unwrap_or_default(),
            ));
            let (u, n): (Arc<Upstream>, Arc<str>) = (up.clone(), upstream_name.as_str().into());
            routes.push(PromptRoute::new(
                prompt,
                move |args: PromptArgs, ctx: Context| {
                    let (u, n) = (u.clone(), n.clone());
                    async move { relay::get_prompt(&u, &n, args, ctx).await }
                },
            ));
            now.insert(exposed, upstream_name);
        }
        let changed = !(old.is_empty() && routes.is_empty());
        for (exposed, why) in self.server.change_prompts(&remove, routes) {
            tracing::warn!(upstream = %up.config.name, "prompt not served: {why}");
            if let Some(n) = now.remove(&exposed) {
                names.forget(&Target {
                    upstream: i,
                    name: n,
                });
            }
        }
        defs.retain(|(exposed, _)| now.contains_key(exposed));
        listed[i].digest[1] = if defs.is_empty() {
            0
        } else {
            digest_of(defs.into_iter())
        };
        listed[i].prompts = now.into_iter().map(|(e, u)| (u, e)).collect();
        drop((names, listed));
        if changed {
            self.mark(PROMPTS);
        }
        Ok(())
    }

    /// Re-lists one upstream's resources and templates. URIs are served as they are (resource links in
    /// results keep working); one already served by another upstream stays with the first.
    async fn refresh_resources(
        &self,
        i: usize,
        up: &Arc<Upstream>,
        client: &Client,
    ) -> Result<(), Error> {
        let resources = all_pages("resources/list", |c| async move {
            client
                .list_resources(c)
                .await
                .map(|p| (p.resources, p.next_cursor))
        })
        .await?;
        let templates = all_pages("resources/templates/list", |c| async move {
            client
                .list_resource_templates(c)
                .await
                .map(|p| (p.resource_templates, p.next_cursor))
        })
        .await?;
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        if !self.is_current(i, up) {
            return Ok(());
        }
        let defs: Vec<(String, String)> = resources
            .iter()
            .map(|r| (r.uri.clone(), serde_json::to_string(r).unwrap_or_default()))
            .chain(templates.iter().map(|t| {
                (
                    t.uri_template.clone(),
                    serde_json::to_string(t).unwrap_or_default(),
                )
            }))
            .collect();
        listed[i].digest[2] = if defs.is_empty() {
            0
        } else {
            digest_of(defs.into_iter())
        };
        let old = std::mem::take(&mut listed[i].resources);
        let old_templates = std::mem::take(&mut listed[i].templates);
        let remove: Vec<&str> = old.iter().map(String::as_str).collect();
        let remove_templates: Vec<&str> = old_templates.iter().map(String::as_str).collect();
        // Reads of a shared connection go through the cache (a per-session connection's are the
        // session's own).
        let cache = up.config.shares_reads().then(|| self.cache.clone());
        let reader = |u: Arc<Upstream>| {
            let cache = cache.clone();
            move |uri: String, _vars: UriVars, ctx: Context| {
                let u = u.clone();
                let cache = cache.clone();
                async move {
                    match cache {
                        Some(c) => {
                            let fetch = || relay::read_fetched(&u, &uri, ctx.clone());
                            c.read(&u.config.name, &uri, &ctx, fetch).await
                        }
                        None => relay::read_resource(&u, &uri, ctx).await,
                    }
                }
            }
        };
        let mut now: Vec<String> = resources.iter().map(|r| r.uri.clone()).collect();
        let routes: Vec<ResourceRoute> = resources
            .into_iter()
            .map(|r| ResourceRoute::new(r, reader(up.clone())))
            .collect();
        let mut now_templates = Vec::new();
        let mut template_routes = Vec::new();
        for t in templates {
            let key = t.uri_template.clone();
            match ResourceTemplateRoute::new(t, reader(up.clone())) {
                Ok(r) => {
                    now_templates.push(key);
                    template_routes.push(r);
                }
                Err(e) => {
                    tracing::warn!(upstream = %up.config.name, "template {key} not served: {e}")
                }
            }
        }
        let changed = !(old.is_empty()
            && old_templates.is_empty()
            && routes.is_empty()
            && template_routes.is_empty());
        for (key, why) in
            self.server
                .change_resources(&remove, routes, &remove_templates, template_routes)
        {
            tracing::warn!(upstream = %up.config.name, "resource not served: {why}");
            now.retain(|u| *u != key);
            now_templates.retain(|u| *u != key);
        }
        listed[i].resources = now;
        listed[i].templates = now_templates;
        drop(listed);
        if changed {
            self.mark(RESOURCES);
        }
        Ok(())
    }
}

/// One upstream's life: connect, serve, watch, restart. `started` turns true after the first attempt.
async fn supervise(
    inner: std::sync::Weak<Inner>,
    i: usize,
    up: Arc<Upstream>,
    started: watch::Sender<bool>,
) {
    let mut backoff = FIRST_BACKOFF;
    let mut breaker = Breaker::new(up.config.restart);
    let name = up.config.name.clone();
    loop {
        let Some(gw) = inner.upgrade() else { return };
        let t0 = Instant::now();
        let outcome = match up.connect().await {
            Ok(c) => {
                let c = Arc::new(c);
                // Up before its tools are listed downstream, so that a client that sees a tool can call it.
                up.set_state(State::Up(c.clone()));
                let listed = gw.refresh(i, &up, &c).await;
                match listed {
                    Ok(()) => Ok(c),
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        };
        let client = match outcome {
            Ok(c) => {
                // What the last connection answered may have changed with the restart.
                gw.cache.drop_upstream(&name);
                tracing::info!(upstream = %name, elapsed = ?t0.elapsed(), "upstream up");
                let _ = started.send(true);
                c
            }
            Err(e) => {
                let e = up.secrets.redact(&e.to_string()).into_owned();
                tracing::error!(upstream = %name, "upstream failed to start: {e}");
                up.set_state(State::Down(e.clone()));
                let _ = started.send(true);
                drop(gw);
                pause(&mut breaker, &mut backoff, &up, &e).await;
                continue;
            }
        };
        // Change notifications in either era (a `subscriptions/listen` stream in 2026-07-28).
        // And `notifications/resources/updated` for the resources it listed, which drop their cached
        // reads (see `crate::cache`): only a 2026-07-28 upstream gives the hints reads are cached by
        // (a handshake-era one would cost a `resources/subscribe` per resource for nothing).
        let subscribe = client.is_modern()
            && client
                .server()
                .capabilities
                .resources
                .as_ref()
                .and_then(|r| r.subscribe)
                == Some(true);
        let resource_subscriptions = subscribe.then(|| {
            let listed = gw.listed.lock().unwrap_or_else(|e| e.into_inner());
            listed
                .get(i)
                .map(|l| l.resources.clone())
                .unwrap_or_default()
        });
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            resource_subscriptions: resource_subscriptions.filter(|u| !u.is_empty()),
        };
        let mut changes = match client.listen(filter).await {
            Ok(sub) => Some(sub),
            Err(e) => {
                tracing::debug!(upstream = %name, "no change notifications: {e}");
                None
            }
        };
        // Log messages go to the call in flight on this upstream (see `relay`; the downstream session's
        // level filters them): the upstream is asked for everything, as any downstream may want it.
        if client.server().capabilities.logging.is_some() {
            if let Err(e) = client.set_logging_level(LoggingLevel::Debug).await {
                tracing::debug!(upstream = %name, "logging/setLevel refused: {e}");
            }
        }
        drop(gw);
        let up_since = Instant::now();
        loop {
            let next = async {
                match changes.as_mut() {
                    Some(sub) => sub.next().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                n = next => match n {
                    Some(n) if matches!(
                        n.method.as_str(),
                        methods::TOOLS_LIST_CHANGED
                            | methods::PROMPTS_LIST_CHANGED
                            | methods::RESOURCES_LIST_CHANGED
                    ) => {
                        if n.method == methods::RESOURCES_LIST_CHANGED {
                            if let Some(gw) = inner.upgrade() {
                                gw.cache.drop_upstream(&name);
                            }
                        }
                        // Let a burst of changes settle, then list once.
                        tokio::time::sleep(COALESCE).await;
                        if let Some(sub) = changes.as_mut() {
                            while let Ok(Some(_)) = tokio::time::timeout(Duration::ZERO, sub.next()).await {}
                        }
                        let Some(gw) = inner.upgrade() else { return };
                        if let Err(e) = gw.refresh(i, &up, &client).await {
                            tracing::warn!(upstream = %name, "re-listing failed: {e}");
                        }
                    }
                    Some(n) if n.method == methods::RESOURCES_UPDATED => {
                        let uri = n.params.as_ref().and_then(|p| p.get("uri")).and_then(|u| u.as_str());
                        if let (Some(gw), Some(uri)) = (inner.upgrade(), uri) {
                            gw.cache.drop_uri(&name, uri);
                        }
                    }
                    Some(_) => {}
                    None => changes = None,
                },
                _ = client.peer().closed() => break,
            }
        }
        if let Some(gw) = inner.upgrade() {
            gw.cache.drop_upstream(&name);
        }
        // The request fails with the reason the connection closed (exit status, stderr tail).
        let reason = match client.ping().await {
            Err(Error::Closed(r)) => r,
            Err(e) => e.to_string(),
            Ok(()) => "the connection closed".into(),
        };
        if inner.strong_count() == 0 {
            return;
        }
        let reason = up.secrets.redact(&reason).into_owned();
        tracing::error!(upstream = %name, "upstream went away: {reason}");
        up.set_state(State::Down(reason.clone()));
        if up_since.elapsed() >= HEALTHY_AFTER {
            backoff = FIRST_BACKOFF;
            breaker.healthy();
        }
        pause(&mut breaker, &mut backoff, &up, &reason).await;
    }
}

/// Sends one `tools/list_changed` downstream per burst of changes.
async fn coalesce(inner: std::sync::Weak<Inner>, changed: Arc<Notify>, closing: CancellationToken) {
    loop {
        tokio::select! {
            _ = changed.notified() => {}
            _ = closing.cancelled() => return,
        }
        tokio::time::sleep(COALESCE).await;
        let Some(gw) = inner.upgrade() else { return };
        // A reload in progress sends its changes itself, once it is done.
        let _reload = gw.reload_gate.lock().await;
        let kinds = gw.dirty.swap(0, Ordering::AcqRel);
        if kinds & TOOLS != 0 {
            gw.server.notify_tools_list_changed();
        }
        if kinds & PROMPTS != 0 {
            gw.server.notify_prompts_list_changed();
        }
        if kinds & RESOURCES != 0 {
            gw.server.notify_resource_list_changed();
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Supervisors end, and with them the upstream clients (a child is killed when its client drops).
        self.closing.cancel();
    }
}
