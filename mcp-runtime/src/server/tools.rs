//! Tools: the handler interface, argument decoding, and the registry behind `tools/list` and `tools/call`.

pub(crate) use super::arguments::parse_arguments;
pub use super::arguments::{ArgumentError, Arguments};
use super::raw_tool::RawToolHandler;
use super::Context;
use crate::future::BoxFuture;
use crate::protocol::{CacheHints, CallToolResult, ErrorObject, TaskSupport, Tool, ToolExecution};
use crate::schema::HeaderParam;
use std::future::Future;
use std::sync::Arc;

/// What a tool does when called. Implemented for `Fn(Arguments, Context) -> impl Future` closures; the
/// `#[tool]` macro implements it for annotated functions.
pub trait ToolHandler: Send + Sync + 'static {
    /// A tool's own failure is `Ok` with `isError: true`; `Err` is a JSON-RPC error (rare: protocol-level).
    fn call(
        &self,
        args: Arguments,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>>;

    /// [`ToolHandler::call`] with the arguments still in the request's bytes: `args` is their JSON
    /// text, an object (`{}` when the call had none), valid JSON since the request was parsed whole.
    /// The default copies it into [`Arguments`]; a handler that decodes the arguments into its own
    /// types (as `#[tool]` functions do) can decode them here, from where they lie, before the call
    /// runs. Called where the request is read: decode and return, never block.
    fn call_borrowed(
        &self,
        args: &str,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        self.call(Arguments::from_borrowed(Some(args)), ctx)
    }
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Arguments, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ErrorObject>> + Send + 'static,
{
    fn call(
        &self,
        args: Arguments,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        Box::pin(self(args, ctx))
    }
}

/// A tool's definition with its handler: what a server registers.
#[derive(Clone)]
pub struct ToolRoute {
    /// The tool as `tools/list` shows it; its `name` is the key.
    pub tool: Tool,
    /// Runs a call.
    pub handler: Arc<dyn ToolHandler>,
    /// OAuth scopes a caller's access token must grant to call this tool (HTTP with a token verifier;
    /// a call without them is refused with 403 `insufficient_scope` naming them).
    pub scopes: Vec<String>,
    /// Caching hints this tool gives a 2026-07-28 `tools/list` (the list takes the shortest freshness
    /// and the narrowest scope of its tools); `None`: the server's.
    pub cache: Option<CacheHints>,
    /// The tool's `x-mcp-header` arguments, read from its input schema when it is registered.
    pub(crate) header_params: Arc<[HeaderParam]>,
    /// How long a 2026-07-28 call runs before it becomes a task (`None`: the server's window).
    pub(crate) task_after: Option<std::time::Duration>,
    /// The handler whose result is JSON text, when the tool has one (see [`ToolRoute::raw`]): a direct
    /// call's result then goes into the response frame as it is.
    pub(crate) raw: Option<Arc<dyn RawToolHandler>>,
}

impl ToolRoute {
    /// A tool served by `handler`, with no scopes and the server's task settings.
    pub fn new(tool: Tool, handler: impl ToolHandler) -> Self {
        ToolRoute {
            tool,
            handler: Arc::new(handler),
            scopes: Vec::new(),
            cache: None,
            header_params: Arc::from([]),
            task_after: None,
            raw: None,
        }
    }

    /// Lets the tool run as a task (`execution.taskSupport`): `Optional` when a call may run either
    /// way, `Required` when it must be a task. See [`crate::server::tasks`] for when a call becomes one.
    ///
    /// ```
    /// # use mcp_runtime::{protocol::{CallToolResult, TaskSupport, Tool}, server::{Arguments, ToolRoute}, Context};
    /// let build = ToolRoute::new(
    ///     Tool::new("build", "Builds the project", serde_json::json!({"type": "object"}).as_object().unwrap().clone()),
    ///     |_: Arguments, _: Context| async { Ok(CallToolResult::text("built")) },
    /// )
    /// .task(TaskSupport::Optional);
    /// assert_eq!(build.tool.task_support(), TaskSupport::Optional);
    /// ```
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.tool.execution = Some(ToolExecution {
            task_support: Some(support.as_str().to_string()),
        });
        self
    }

    /// How long a 2026-07-28 call of this tool runs before the server makes it a task (default: the
    /// server's [`crate::server::TaskConfig::immediate_window`]). A call that ends sooner is answered
    /// directly.
    pub fn task_after(mut self, window: std::time::Duration) -> Self {
        self.task_after = Some(window);
        self
    }

    /// Requires these OAuth scopes of the caller (what `#[tool(scopes = "...")]` expands to).
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Sets the caching hints this tool gives `tools/list` (2026-07-28).
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = Some(hints);
        self
    }

    /// The tool's `x-mcp-header` arguments (empty until the tool is registered with a server).
    pub fn header_params(&self) -> &[HeaderParam] {
        &self.header_params
    }
}

impl std::fmt::Debug for ToolRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRoute")
            .field("name", &self.tool.name)
            .finish()
    }
}

/// A raw handler seen as a typed one: its result decoded.
struct Decoded(Arc<dyn RawToolHandler>);

impl ToolHandler for Decoded {
    fn call(
        &self,
        args: Arguments,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        let fut = self.0.call(args, ctx);
        Box::pin(async move {
            fut.await?.to_result().map_err(|e| {
                ErrorObject::internal(format!("the tool's result is not a CallToolResult: {e}"))
            })
        })
    }
}

impl ToolRoute {
    /// A tool served by a handler whose result is JSON text, written into the response as it is.
    ///
    /// ```
    /// # use mcp_runtime::{protocol::{RawCallToolResult, Tool}, server::{Arguments, ToolRoute}, Context};
    /// let relay = ToolRoute::raw(
    ///     Tool::new("relay", "Relays", serde_json::json!({"type": "object"}).as_object().unwrap().clone()),
    ///     |_: Arguments, _: Context| async {
    ///         Ok(RawCallToolResult::from_json(r#"{"content":[{"type":"text","text":"hi"}]}"#).unwrap())
    ///     },
    /// );
    /// assert!(relay.is_raw());
    /// ```
    pub fn raw(tool: Tool, handler: impl RawToolHandler) -> Self {
        let raw: Arc<dyn RawToolHandler> = Arc::new(handler);
        let mut route = ToolRoute::new(tool, Decoded(raw.clone()));
        route.raw = Some(raw);
        route
    }

    /// Whether the tool's handler returns JSON text (see [`ToolRoute::raw`]).
    pub fn is_raw(&self) -> bool {
        self.raw.is_some()
    }
}

/// Checks a tool name against the spec's rule: 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub fn validate_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 128 {
        return Err(format!(
            "tool name `{name}` must be 1 to 128 characters long"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "tool name `{name}` contains `{c}`; only A-Z, a-z, 0-9, `_`, `.` and `-` are allowed"
        ));
    }
    Ok(())
}
