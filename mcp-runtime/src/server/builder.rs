//! How a [`Server`] is built: its tools, resources, prompts, skills and completion, what it offers and
//! in which eras, its caching hints, request-state keys and task settings, each checked once at `build`.

use super::*;

/// Builds a [`Server`].
pub struct ServerBuilder {
    pub(super) info: Implementation,
    pub(super) instructions: Option<String>,
    pub(super) tools: Vec<ToolRoute>,
    pub(super) resources: Vec<ResourceRoute>,
    pub(super) templates: Vec<ResourceTemplateRoute>,
    pub(super) prompts: Vec<PromptRoute>,
    /// `Some` once a skill or a skills directory is given: the server declares the skills extension.
    pub(super) skills: Option<Vec<Skill>>,
    pub(super) completion: Option<Arc<dyn CompletionHandler>>,
    pub(super) on_roots_changed: Option<Arc<dyn Fn() + Send + Sync>>,
    pub(super) offer: (bool, bool, bool),
    pub(super) page_size: usize,
    pub(super) config: ConnectionConfig,
    pub(super) errors: Vec<ServerError>,
    pub(super) eras: Eras,
    pub(super) info_in_results: bool,
    pub(super) cache: CacheHints,
    pub(super) read_cache: CacheHints,
    pub(super) state_keys: Option<RequestStateKeys>,
    pub(super) state_ttl: Duration,
    pub(super) task_config: TaskConfig,
    pub(super) task_store: Option<Arc<dyn TaskStore>>,
    pub(super) connection_handler: Option<ConnectionHandlerFn>,
    pub(super) visibility: Option<Arc<dyn Visibility>>,
}

impl ServerBuilder {
    /// The server's programmatic name, in `serverInfo` (default `mcp-runtime-server`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.info.name = name.into();
        self
    }
    /// The server's version, in `serverInfo` (default: this crate's version).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }
    /// A display name for people, in `serverInfo`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }
    /// The full implementation info (name, version, title, icons, website).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }
    /// How to use the server: sent as `instructions` in the `initialize` and `server/discover` results, for
    /// the client to give the model.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Registers a tool (from `#[tool]`, or built by hand with [`ToolRoute::new`]). Its name, its input
    /// schema and any `x-mcp-header` annotations in it are checked when the server is built.
    pub fn tool(mut self, route: impl Into<ToolRoute>) -> Self {
        let mut route = route.into();
        if let Err(e) = check_tool(&mut route) {
            self.errors.push(e);
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

    /// Declares the prompts capability even with no prompt registered yet (prompts added while serving).
    pub fn offer_prompts(mut self) -> Self {
        self.offer.2 = true;
        self
    }

    /// Declares the resources capability even with no resource registered yet.
    pub fn offer_resources(mut self) -> Self {
        self.offer.1 = true;
        self
    }

    /// Registers a resource: a URI, its metadata and the closure that reads it. A duplicate URI fails the
    /// build.
    pub fn resource(mut self, route: ResourceRoute) -> Self {
        self.resources.push(route);
        self
    }

    /// Registers a resource template (from [`ResourceTemplateRoute::new`], which checks the template); an
    /// invalid template fails the build with [`ServerError::InvalidTemplate`].
    pub fn resource_template(mut self, route: Result<ResourceTemplateRoute, String>) -> Self {
        match route {
            Ok(r) => self.templates.push(r),
            Err(e) => self.errors.push(ServerError::InvalidTemplate(e)),
        }
        self
    }

    /// Registers a prompt (from `#[prompt]`, or built by hand with [`PromptRoute::new`]). A duplicate name
    /// fails the build.
    pub fn prompt(mut self, route: impl Into<PromptRoute>) -> Self {
        self.prompts.push(route.into());
        self
    }

    /// Serves a skill (SEP-2640): declares the skills extension, lists the skill's `SKILL.md` among the
    /// resources and serves its files. The skill is checked and digested by [`ServerBuilder::build`],
    /// which refuses a malformed or oversized one with an error naming the file.
    pub fn skill(mut self, skill: Skill) -> Self {
        self.skills.get_or_insert_with(Vec::new).push(skill);
        self
    }

    /// Serves several skills (see [`ServerBuilder::skill`]).
    pub fn skills(mut self, skills: impl IntoIterator<Item = Skill>) -> Self {
        self.skills.get_or_insert_with(Vec::new).extend(skills);
        self
    }

    /// Serves every skill below a directory: each directory holding a `SKILL.md`, with all its files,
    /// at `skill://<path from root>/SKILL.md` (the directory's name is the skill's). The files are read
    /// now, within the extension's limits ([`MAX_SKILL_FILES`] files and [`MAX_SKILL_BYTES`] bytes per
    /// skill), and never again: restart to serve changes. An unreadable directory, a symbolic link or
    /// a skill over the limits makes [`ServerBuilder::build`] fail, naming the file. An empty directory
    /// still declares the extension, with no skill. Needs the `skills` feature (see [`skills::SkillsFeature`]).
    pub fn skills_dir(mut self, root: impl AsRef<Path> + skills::SkillsFeature) -> Self {
        match skills::skills_in(&root) {
            Ok(found) => self.skills.get_or_insert_with(Vec::new).extend(found),
            Err(e) => self.errors.push(ServerError::InvalidSkill(e)),
        }
        self
    }

    /// Answers `completion/complete` with this handler, and declares the `completions` capability.
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

    /// Limits of each connection: concurrency, queue, buffered bytes, message size (see
    /// [`ConnectionConfig`]).
    pub fn connection_config(mut self, config: ConnectionConfig) -> Self {
        self.config = config;
        self
    }

    /// Serves every connection with the handler `make` returns for it, in place of the server's own
    /// dispatch: every request and notification of the connection (`initialize` and `server/discover`
    /// included) reaches that handler, which answers on the runtime's pump as any [`Handler`] does. The
    /// transports stay the server's (stdio, Streamable HTTP with its sessions, admission and SSE
    /// streams), so a hand-written peer (a recorded session played back, a relay) is served over them
    /// without a transport of its own. Tools, prompts and resources registered on the builder are not
    /// served then. `make` is called once per connection: per stdio connection, per HTTP session, and
    /// per 2026-07-28 POST, which stands alone; state the connections share lives in what `make`
    /// captures.
    pub fn connection_handler(
        mut self,
        make: impl Fn(Peer) -> Arc<dyn Handler> + Send + Sync + 'static,
    ) -> Self {
        self.connection_handler = Some(Arc::new(make));
        self
    }

    /// Which eras to speak (default: both, chosen per request).
    pub fn eras(mut self, eras: Eras) -> Self {
        self.eras = eras;
        self
    }

    /// Whether 2026-07-28 results name the server in `_meta` (default: yes, as the spec recommends).
    pub fn server_info_in_results(mut self, on: bool) -> Self {
        self.info_in_results = on;
        self
    }

    /// Caching hints of `server/discover` and of the list results whose items set none (default: 0 ms,
    /// public). A tool, prompt or resource sets its own with `.cache(..)` on its route.
    pub fn cache_hints(mut self, hints: CacheHints) -> Self {
        self.cache = hints;
        self
    }

    /// Caching hints of `resources/read` results whose resource sets none (default: 0 ms, private).
    pub fn read_cache_hints(mut self, hints: CacheHints) -> Self {
        self.read_cache = hints;
        self
    }

    /// The keys that seal the `requestState` of multi round-trip requests. Instances behind a load
    /// balancer need the same keys (default: a random key of this process).
    pub fn request_state_keys(mut self, keys: RequestStateKeys) -> Self {
        self.state_keys = Some(keys);
        self
    }

    /// How long a client may take to answer an input request (default: 10 minutes).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// How tasks run: lifetimes, polling interval, the immediate window of 2026-07-28 calls (see
    /// [`tasks`]).
    pub fn task_config(mut self, config: TaskConfig) -> Self {
        self.task_config = config;
        self
    }

    /// Where tasks are kept (default: a [`MemoryTaskStore`] with the default [`TaskLimits`]).
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.task_store = Some(store);
        self
    }

    /// Decides per caller which tools, prompts, resources and templates exist for it: what it may not
    /// see is absent from its lists (and their pages), and a call, get or read of it is answered as one
    /// of an unknown name or URI. The caller is the identity the HTTP transport verified
    /// ([`crate::AuthInfo`]).
    ///
    /// ```
    /// use mcp_runtime::server::Listed;
    /// let server = mcp_runtime::Server::builder()
    ///     .visibility(|item: Listed<'_>, caller: Option<&mcp_runtime::AuthInfo>| match item {
    ///         Listed::Tool(name) if name.starts_with("admin_") => {
    ///             caller.is_some_and(|c| c.has_scope("admin"))
    ///         }
    ///         _ => true,
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # drop(server);
    /// ```
    pub fn visibility(mut self, v: impl Visibility) -> Self {
        self.visibility = Some(Arc::new(v));
        self
    }

    /// Builds the server; duplicate names and invalid definitions are errors.
    pub fn build(self) -> Result<Server, ServerError> {
        if let Some(e) = self.errors.into_iter().next() {
            return Err(e);
        }
        let (skills, skill_routes) = match self.skills {
            Some(list) => {
                let (catalog, routes) =
                    skills::SkillCatalog::build(list).map_err(ServerError::InvalidSkill)?;
                (Some(catalog), routes)
            }
            None => (None, Vec::new()),
        };
        let inner = ServerInner {
            instructions: self.instructions,
            tools: Registry::default(),
            resources: Registry::default(),
            templates: Registry::default(),
            prompts: Registry::default(),
            completion: self.completion,
            on_roots_changed: self.on_roots_changed,
            offers_tools: self.offer.0 || !self.tools.is_empty(),
            // Skill files are served with resources/read: the skills extension needs resources.
            offers_resources: self.offer.1
                || !self.resources.is_empty()
                || !self.templates.is_empty()
                || skills.is_some(),
            skills,
            offers_prompts: self.offer.2 || !self.prompts.is_empty(),
            page_size: self.page_size,
            config: self.config,
            sessions: Mutex::new(Vec::new()),
            eras: self.eras,
            info_raw: to_raw(&self.info).map_err(|e| ServerError::InvalidTool(e.message))?,
            info: self.info,
            info_in_results: self.info_in_results,
            cache: self.cache,
            read_cache: self.read_cache,
            sealer: mrtr::StateSealer {
                keys: self.state_keys.unwrap_or_else(RequestStateKeys::random),
                ttl: self.state_ttl,
            },
            listeners: Default::default(),
            closing: CancellationToken::new(),
            tasks: tasks::Tasks::new(self.task_store, self.task_config),
            forward: Default::default(),
            connection_handler: self.connection_handler,
            visibility: self.visibility,
        };
        inner
            .tools
            .extend(self.tools)
            .map_err(ServerError::DuplicateTool)?;
        for r in self.resources.into_iter().chain(skill_routes) {
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
