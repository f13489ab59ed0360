//! What `#[tool]` generates next to a function: a tool definition a server registers in one line.

use super::{OutputSchema, SchemaProfile};
use crate::future::BoxFuture;
use crate::protocol::{
    CacheHints, CallToolResult, ErrorObject, JsonObject, TaskSupport, Tool, ToolAnnotations,
};
use crate::server::tools::parse_arguments;
use crate::server::{ArgumentError, Arguments, ToolHandler, ToolRoute};
use crate::Context;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::sync::{Arc, OnceLock};

/// A tool made by `#[tool]`, not yet rendered in a schema profile. Register it with
/// `Server::builder().tool(search_jira_tool())` (the portable profile), or choose the profile:
/// `.tool(search_jira_tool().profile(SchemaProfile::Full))`.
pub struct ToolDef {
    build: Box<dyn FnOnce(SchemaProfile) -> ToolRoute + Send>,
}

impl ToolDef {
    #[doc(hidden)]
    pub fn new(build: impl FnOnce(SchemaProfile) -> ToolRoute + Send + 'static) -> Self {
        ToolDef {
            build: Box::new(build),
        }
    }

    /// The route with its schemas in the given profile.
    pub fn profile(self, profile: SchemaProfile) -> ToolRoute {
        (self.build)(profile)
    }
}

impl From<ToolDef> for ToolRoute {
    fn from(def: ToolDef) -> ToolRoute {
        def.profile(SchemaProfile::default())
    }
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolDef")
    }
}

/// The schemas of a tool in one profile: its `inputSchema`, and its `outputSchema` when it returns
/// structured content.
#[doc(hidden)]
pub type Schemas = (JsonObject, Option<OutputSchema>);

/// What `#[tool]` knows about a tool at compile time (name, description, annotations, route options),
/// turned into a [`ToolDef`] by [`ToolSpec::build`]. Everything that does not depend on the tool's types
/// lives here, compiled once, so that each tool expands to little more than its argument struct and
/// the call of its function.
#[doc(hidden)]
#[derive(Debug)]
pub struct ToolSpec {
    tool: Tool,
    cache: Option<CacheHints>,
    task: Option<TaskSupport>,
    scopes: Vec<String>,
}

impl ToolSpec {
    /// A tool named `name`, without description or annotations.
    pub fn new(name: &'static str) -> Self {
        let mut tool = Tool::new(name, "", JsonObject::new());
        tool.description = None;
        ToolSpec {
            tool,
            cache: None,
            task: None,
            scopes: Vec::new(),
        }
    }

    /// The tool's description.
    pub fn description(mut self, text: &'static str) -> Self {
        self.tool.description = Some(text.into());
        self
    }

    fn annotations(&mut self) -> &mut ToolAnnotations {
        self.tool.annotations.get_or_insert_with(Default::default)
    }

    /// The annotations' `title`.
    pub fn title(mut self, title: &'static str) -> Self {
        self.annotations().title = Some(title.into());
        self
    }

    /// `readOnlyHint`.
    pub fn read_only(mut self, hint: bool) -> Self {
        self.annotations().read_only_hint = Some(hint);
        self
    }

    /// `destructiveHint`.
    pub fn destructive(mut self, hint: bool) -> Self {
        self.annotations().destructive_hint = Some(hint);
        self
    }

    /// `idempotentHint`.
    pub fn idempotent(mut self, hint: bool) -> Self {
        self.annotations().idempotent_hint = Some(hint);
        self
    }

    /// `openWorldHint`.
    pub fn open_world(mut self, hint: bool) -> Self {
        self.annotations().open_world_hint = Some(hint);
        self
    }

    /// See [`ToolRoute::cache`].
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = Some(hints);
        self
    }

    /// See [`ToolRoute::task`].
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = Some(support);
        self
    }

    /// See [`ToolRoute::require_scopes`].
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The definition of a tool whose arguments deserialize into `A`. `schemas` keeps what `make`
    /// returns for each profile; `call` runs the tool on decoded arguments, its `bool` saying whether a
    /// structured result is wrapped as `{"result": value}` (as the output schema says).
    pub fn build<A, F, Fut>(
        self,
        schemas: &'static SchemaCache,
        make: fn(SchemaProfile) -> Schemas,
        call: F,
    ) -> ToolDef
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A, Context, bool) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CallToolResult> + Send + 'static,
    {
        self.build_with(schemas, make, parse_arguments::<A>, call)
    }

    /// [`Self::build`] with the arguments read by `parse` (what `#[tool]` writes when it decodes them
    /// itself, without a `Deserialize` derive).
    pub fn build_parsed<A, F, Fut>(
        self,
        schemas: &'static SchemaCache,
        make: fn(SchemaProfile) -> Schemas,
        parse: fn(&str) -> Result<A, ArgumentError>,
        call: F,
    ) -> ToolDef
    where
        A: Send + 'static,
        F: Fn(A, Context, bool) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CallToolResult> + Send + 'static,
    {
        self.build_with(schemas, make, parse, call)
    }

    /// [`Self::build`] for a tool without arguments (whatever the call sends is ignored).
    pub fn build_bare<F, Fut>(
        self,
        schemas: &'static SchemaCache,
        make: fn(SchemaProfile) -> Schemas,
        call: F,
    ) -> ToolDef
    where
        F: Fn((), Context, bool) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CallToolResult> + Send + 'static,
    {
        self.build_with(schemas, make, |_| Ok(()), call)
    }

    fn build_with<A, F, Fut>(
        self,
        schemas: &'static SchemaCache,
        make: fn(SchemaProfile) -> Schemas,
        parse: fn(&str) -> Result<A, ArgumentError>,
        call: F,
    ) -> ToolDef
    where
        A: Send + 'static,
        F: Fn(A, Context, bool) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CallToolResult> + Send + 'static,
    {
        let call = Arc::new(call);
        ToolDef::new(move |profile| {
            let (tool, wrapped, options) = self.parts(schemas.get(profile, make));
            let handler = MacroHandler {
                parse,
                call,
                wrapped,
            };
            options.apply(ToolRoute::new(tool, handler))
        })
    }

    /// The tool with its schemas, whether structured results are wrapped, and the route's options. Not
    /// generic: compiled once for every tool.
    fn parts(self, (input, output): &Schemas) -> (Tool, bool, RouteOptions) {
        let mut tool = self.tool;
        tool.input_schema = input.clone();
        tool.output_schema = output.as_ref().map(|o| o.schema.clone());
        let wrapped = output.as_ref().is_some_and(|o| o.wrapped);
        let options = RouteOptions {
            cache: self.cache,
            task: self.task,
            scopes: self.scopes,
        };
        (tool, wrapped, options)
    }
}

struct RouteOptions {
    cache: Option<CacheHints>,
    task: Option<TaskSupport>,
    scopes: Vec<String>,
}

impl RouteOptions {
    fn apply(self, mut route: ToolRoute) -> ToolRoute {
        route.cache = self.cache;
        route.scopes = self.scopes;
        match self.task {
            Some(t) => route.task(t),
            None => route,
        }
    }
}

/// The handler of a `#[tool]`: decodes the arguments when called (a bad argument is an `isError` result
/// naming it), then runs the tool's function in the returned future. Every caller calls it where a
/// panic (a user's `Deserialize`) fails that call alone: the pump around `Handler::request`, the task
/// runners and the gateway inside the futures they poll.
struct MacroHandler<A, F> {
    parse: fn(&str) -> Result<A, ArgumentError>,
    call: Arc<F>,
    wrapped: bool,
}

impl<A, F, Fut> MacroHandler<A, F>
where
    A: Send + 'static,
    F: Fn(A, Context, bool) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallToolResult> + Send + 'static,
{
    /// Decodes `text` now (the decoded values move into the future; the text is not kept), then runs.
    /// One body for both ways in, so that each tool instantiates one future.
    fn start(
        &self,
        text: &str,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        let parsed = (self.parse)(text);
        let (call, wrapped) = (Arc::clone(&self.call), self.wrapped);
        Box::pin(async move {
            match parsed {
                Ok(a) => Ok(call(a, ctx, wrapped).await),
                Err(e) => Ok(CallToolResult::error(e.message())),
            }
        })
    }
}

impl<A, F, Fut> ToolHandler for MacroHandler<A, F>
where
    A: Send + 'static,
    F: Fn(A, Context, bool) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallToolResult> + Send + 'static,
{
    fn call(
        &self,
        args: Arguments,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        self.start(args.as_str(), ctx)
    }

    /// Decodes the arguments from the request's bytes, with no copy of their text.
    fn call_borrowed(
        &self,
        args: &str,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        self.start(args, ctx)
    }
}

/// The schemas of one tool, generated on first use in each profile and kept for the process.
#[doc(hidden)]
pub struct SchemaCache {
    portable: OnceLock<(JsonObject, Option<OutputSchema>)>,
    full: OnceLock<(JsonObject, Option<OutputSchema>)>,
}

impl SchemaCache {
    /// An empty cache; the schemas are made on first use.
    pub const fn new() -> Self {
        SchemaCache {
            portable: OnceLock::new(),
            full: OnceLock::new(),
        }
    }

    /// The schemas of `profile`, made by `make` the first time and kept after.
    pub fn get(
        &self,
        profile: SchemaProfile,
        make: impl FnOnce(SchemaProfile) -> (JsonObject, Option<OutputSchema>),
    ) -> &(JsonObject, Option<OutputSchema>) {
        let cell = match profile {
            SchemaProfile::Portable => &self.portable,
            SchemaProfile::Full => &self.full,
        };
        cell.get_or_init(|| make(profile))
    }
}

impl Default for SchemaCache {
    fn default() -> Self {
        Self::new()
    }
}
