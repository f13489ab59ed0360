//! Tools: the handler interface, argument decoding, and the registry behind `tools/list` and `tools/call`.

use super::Context;
use crate::protocol::{CacheHints, CallToolResult, ErrorObject, TaskSupport, Tool, ToolExecution};
use crate::schema::HeaderParam;
use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::Arc;

/// The arguments of one `tools/call`, still raw JSON (cheap to clone).
#[derive(Debug, Clone, Default)]
pub struct Arguments {
    raw: Option<Arc<str>>,
}

/// Why arguments could not be decoded: the argument at fault (its JSON path) and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.message())]
pub struct ArgumentError {
    /// The path of the argument at fault, e.g. `max_results` or `filter.labels[2]`; empty for the whole object.
    pub path: String,
    /// What was wrong with it (serde's message: a missing field, a wrong type...).
    pub reason: String,
}

impl ArgumentError {
    /// The message the model sees: `Invalid argument `path`: reason` (or `Invalid arguments: reason`).
    pub fn message(&self) -> String {
        if self.path.is_empty() {
            format!("Invalid arguments: {}", self.reason)
        } else {
            format!("Invalid argument `{}`: {}", self.path, self.reason)
        }
    }
}

impl Arguments {
    /// Arguments from the raw JSON of `params.arguments` (`None`: the call had none, read as `{}`).
    pub fn from_raw(raw: Option<Box<RawValue>>) -> Self {
        Arguments {
            raw: raw.map(|r| Arc::from(r.get())),
        }
    }

    /// Arguments borrowed from a request (their JSON text, `None` when absent), copied once.
    pub(crate) fn from_borrowed(raw: Option<&str>) -> Self {
        Arguments {
            raw: raw.map(Arc::from),
        }
    }

    /// Arguments from a JSON value (tests, in-process calls).
    pub fn from_value(v: serde_json::Value) -> Self {
        Arguments {
            raw: Some(Arc::from(v.to_string())),
        }
    }

    /// The raw JSON text (`{}` when the call had no arguments).
    pub fn as_str(&self) -> &str {
        self.raw.as_deref().unwrap_or("{}")
    }

    /// Decodes the arguments into `T`, naming the argument at fault on failure.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ArgumentError> {
        parse_arguments(self.as_str())
    }
}

/// Decodes a call's arguments (JSON text of an object) into `T`, naming the argument at fault on failure.
pub(crate) fn parse_arguments<T: DeserializeOwned>(text: &str) -> Result<T, ArgumentError> {
    if !text.trim_start().starts_with('{') {
        return Err(ArgumentError {
            path: String::new(),
            reason: "arguments must be a JSON object".into(),
        });
    }
    // One parse with serde_json (one instantiation of `T`'s `Deserialize` in the user's crate); the
    // argument at fault is found from where the error points.
    serde_json::from_str(text).map_err(|e| {
        let path = crate::framing::error_path(text, &e);
        let mut reason = e.to_string();
        // serde_json appends " at line 1 column N", which means nothing to a model.
        if let Some(i) = reason.find(" at line ") {
            reason.truncate(i);
        }
        ArgumentError { path, reason }
    })
}

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
    pub(crate) raw: Option<Arc<dyn super::raw_tool::RawToolHandler>>,
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
