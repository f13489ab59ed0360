//! One `tools/call` across the hop: the arguments as they came, the upstream's progress relayed to the
//! caller, a downstream cancel turned into an upstream `notifications/cancelled` (by dropping the
//! upstream request), and the upstream's errors kept as they were (code, message, data). A tool route
//! takes the result as JSON text ([`call_tool_raw`]: nothing of it is decoded but its top level, and it
//! goes into the downstream response frame as it is); a composite step takes it typed.

use crate::cache::Fetched;
use crate::link::{call_handlers, CallerGuard};
use crate::secrets::Secrets;
use crate::upstream::Upstream;
pub use crate::upstream_errors::rpc_error;
use futures_util::future::BoxFuture;
use mcp_runtime::client::{CallOptions, Client, ServerNotification, TaskStart};
use mcp_runtime::protocol::{
    methods, CallToolResult, ClientCapabilities, CompleteParams, CompleteResult, ErrorObject,
    GetPromptResult, LoggingMessageParams, ProgressParams, RawCallToolResult, ReadResourceResult,
    TaskSupport,
};
use mcp_runtime::server::{Arguments, PromptArgs};
use mcp_runtime::{Context, Error};
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};

/// Progress updates held for a slow downstream before newer ones are dropped (progress is a hint: the
/// latest value matters, not every one).
const PROGRESS_QUEUE: usize = 64;

/// Calls `tool` on `upstream` for the downstream request `ctx`, its result kept as JSON text. `support`
/// is the tool's `execution.taskSupport` upstream: a tool that must run as a task there is called as
/// one, and a 2026 upstream decides for an optional one; when the upstream makes a task, the downstream
/// call becomes one too where it may (see [`upstream_call`]).
pub async fn call_tool_raw(
    upstream: &Upstream,
    tool: &str,
    support: TaskSupport,
    args: Arguments,
    ctx: Context,
) -> Result<RawCallToolResult, ErrorObject> {
    relay_call(upstream, tool, support, args, ctx, Progress::AsIs).await
}

/// A tool's result as the relay fetches it from the upstream: typed (a composite reads it) or as JSON
/// text (a tool route passes it on).
pub trait Fetch: Sized + Send {
    /// Calls `tool` on `client` (see [`upstream_call`]).
    fn fetch<'a>(
        client: &'a Arc<Client>,
        tool: &'a str,
        arguments: &'a RawValue,
        support: TaskSupport,
        opts: &'a CallOptions,
        ctx: &'a Context,
    ) -> impl Future<Output = Result<Self, Error>> + Send + 'a;

    /// The result with `secrets` taken out.
    fn redact(self, secrets: &Secrets) -> Self;
}

impl Fetch for CallToolResult {
    fn fetch<'a>(
        client: &'a Arc<Client>,
        tool: &'a str,
        arguments: &'a RawValue,
        support: TaskSupport,
        opts: &'a CallOptions,
        ctx: &'a Context,
    ) -> impl Future<Output = Result<Self, Error>> + Send + 'a {
        upstream_call(client, tool, arguments, support, opts, ctx)
    }

    fn redact(self, secrets: &Secrets) -> Self {
        secrets.redact_result(self)
    }
}

impl Fetch for RawCallToolResult {
    // The trait's signature says `Send`; an `async fn` here would leave that to inference.
    #[allow(clippy::manual_async_fn)]
    fn fetch<'a>(
        client: &'a Arc<Client>,
        tool: &'a str,
        arguments: &'a RawValue,
        support: TaskSupport,
        opts: &'a CallOptions,
        ctx: &'a Context,
    ) -> impl Future<Output = Result<Self, Error>> + Send + 'a {
        async move {
            if as_task(client, support) {
                // A task's result arrives typed (it rides in `tasks/result` or the task's record).
                // Boxed: the task path's state would otherwise ride in every direct call's future.
                let r =
                    Box::pin(upstream_call(client, tool, arguments, support, opts, ctx)).await?;
                return RawCallToolResult::from_result(&r).map_err(|e| Error::Decode {
                    method: methods::TOOLS_CALL.into(),
                    reason: e.to_string(),
                });
            }
            client.call_tool_raw(tool, arguments, opts).await
        }
    }

    fn redact(self, secrets: &Secrets) -> Self {
        secrets.redact_raw_result(self)
    }
}

/// How an upstream call's progress reaches the downstream caller.
#[derive(Clone)]
pub enum Progress {
    /// As the upstream sent it.
    AsIs,
    /// As one step of a composite: renumbered in one sequence across the steps, the message naming
    /// the step.
    Step {
        /// The step's id.
        step: Arc<str>,
        /// The composite's progress so far, shared by its steps.
        count: Arc<AtomicU64>,
    },
}

/// The progress of a composite's steps, one sequence across them.
pub struct StepsProgress {
    count: Arc<AtomicU64>,
}

impl Progress {
    /// A sequence for the steps of one composite call.
    pub fn steps() -> StepsProgress {
        StepsProgress {
            count: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Sends an upstream progress notification to `ctx`, as this progress says. Boxed: most calls relay
    /// no progress, and its state would otherwise ride in every call's future.
    fn send<'a>(&'a self, ctx: &'a Context, p: ProgressParams) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            match self {
                Progress::AsIs => ctx.progress(p.progress, p.total, p.message).await,
                Progress::Step { step, count } => {
                    let n = count.fetch_add(1, Ordering::Relaxed) + 1;
                    let what = match (p.message, p.total) {
                        (Some(m), _) => m,
                        (None, Some(t)) => format!("{}/{t}", p.progress),
                        (None, None) => p.progress.to_string(),
                    };
                    ctx.progress(n as f64, None, Some(format!("step {step}: {what}")))
                        .await
                }
            }
        })
    }

    /// Announces the start of a step (nothing for [`Progress::AsIs`]).
    pub async fn announce(&self, ctx: &Context, what: String) {
        if let Progress::Step { step, count } = self {
            if ctx.progress_token().is_some() {
                let n = count.fetch_add(1, Ordering::Relaxed) + 1;
                ctx.progress(
                    n as f64,
                    None,
                    Some(format!("step {step}: started ({what})")),
                )
                .await
            }
        }
    }
}

impl StepsProgress {
    /// The progress of one step.
    pub fn step(&self, id: &str) -> Progress {
        Progress::Step {
            step: id.into(),
            count: self.count.clone(),
        }
    }
}

/// Calls `tool` on `upstream` for the downstream request `ctx`, typed, with the upstream's progress
/// relayed as `progress` says (see [`call_tool_raw`]).
pub async fn call_tool_as(
    upstream: &Upstream,
    tool: &str,
    support: TaskSupport,
    args: Arguments,
    ctx: Context,
    progress_as: Progress,
) -> Result<CallToolResult, ErrorObject> {
    relay_call(upstream, tool, support, args, ctx, progress_as).await
}

/// One call across the hop, its result fetched as `R`.
async fn relay_call<R: Fetch>(
    upstream: &Upstream,
    tool: &str,
    support: TaskSupport,
    args: Arguments,
    ctx: Context,
    progress_as: Progress,
) -> Result<R, ErrorObject> {
    let link = upstream.link(&ctx).await?;
    let (client, secrets) = (link.client, link.secrets);
    let name = &upstream.config.name;
    // Borrowed: the arguments travel as the text they came in.
    let arguments: &RawValue = serde_json::from_str(args.as_str())
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid arguments: {e}")))?;
    let (on_progress, mut progress) = match ctx.progress_token() {
        Some(_) => {
            let (tx, rx) = mpsc::channel::<ProgressParams>(PROGRESS_QUEUE);
            let cb = Arc::new(move |p: ProgressParams| {
                let _ = tx.try_send(p);
            }) as Arc<dyn Fn(ProgressParams) + Send + Sync>;
            (Some(cb), Some(rx))
        }
        None => (None, None),
    };
    let opts = CallOptions {
        on_progress,
        ..caller_options(upstream, &ctx)
    };
    // While the call runs, the upstream's sampling and elicitation requests come back to this caller,
    // and so do its log messages (an upstream's log message names no request: the newest call takes it).
    let caller = link.callers.enter(ctx.clone());
    let mut notes = client
        .server()
        .capabilities
        .logging
        .is_some()
        .then(|| client.notifications());
    let call = R::fetch(&client, tool, arguments, support, &opts, &ctx);
    tokio::pin!(call);
    loop {
        tokio::select! {
            r = &mut call => {
                // Progress and logs sent before the result are queued already: relay them first.
                if let Some(rx) = progress.as_mut() {
                    while let Ok(p) = rx.try_recv() {
                        progress_as.send(&ctx, secrets.redact_progress(p)).await;
                    }
                }
                if let Some(rx) = notes.as_mut() {
                    while let Ok(n) = rx.try_recv() {
                        relay_log(&caller, &ctx, &secrets, n).await;
                    }
                }
                // The connection's secrets (its upstream's, and a per-user connection's credentials)
                // never reach the caller, the hop's logs and spans (`crate::hop`), nor a composite's
                // later steps.
                return match r {
                    Ok(r) => Ok(r.redact(&secrets)),
                    Err(e) => Err(secrets.redact_error(rpc_error(e, name))),
                };
            }
            Some(p) = next_progress(&mut progress) => {
                progress_as.send(&ctx, secrets.redact_progress(p)).await
            }
            Some(n) = next_note(&mut notes) => relay_log(&caller, &ctx, &secrets, n).await,
            // Returning drops the upstream request, which sends it `notifications/cancelled`.
            _ = ctx.cancelled() => {
                tracing::debug!(upstream = %name, tool, "cancelled downstream; cancelling upstream");
                return Err(ErrorObject::internal("cancelled"));
            }
        }
    }
}

/// The upstream half of a call: direct, or as a task of the upstream that the gateway follows (its
/// input requests answered through `opts.handlers`, its progress through `opts.on_progress`). When the
/// upstream answers with a task, the downstream call continues as a task of the gateway's own (2026
/// tasks extension; a handshake-era downstream task already is one), so the downstream client sees
/// the call become a task when the upstream's does. Dropping the future while the upstream task runs
/// (a downstream cancel, a closed gateway) cancels the upstream task with `tasks/cancel`.
pub async fn upstream_call(
    client: &Arc<Client>,
    tool: &str,
    arguments: &RawValue,
    support: TaskSupport,
    opts: &CallOptions,
    ctx: &Context,
) -> Result<CallToolResult, Error> {
    if !as_task(client, support) {
        return client.call_tool_with(tool, arguments, opts.clone()).await;
    }
    match client
        .call_tool_as_task_with(tool, arguments, None, opts)
        .await?
    {
        TaskStart::Complete(r) => Ok(r),
        TaskStart::Task(task) => {
            ctx.continue_as_task().await;
            let mut cancel = CancelTask {
                client: client.clone(),
                task: Some(task.task_id.clone()),
            };
            let r = client.task_result_with(&task.task_id, opts).await;
            cancel.task = None;
            r
        }
    }
}

/// Whether a call of a tool with this `execution.taskSupport` upstream is made as a task there.
fn as_task(client: &Client, support: TaskSupport) -> bool {
    match support {
        TaskSupport::Required => true,
        TaskSupport::Optional => client.is_modern(),
        TaskSupport::Forbidden => false,
    }
}

/// Cancels an upstream task that is still followed when dropped.
struct CancelTask {
    client: Arc<Client>,
    task: Option<String>,
}

impl Drop for CancelTask {
    fn drop(&mut self) {
        let Some(id) = self.task.take() else { return };
        let client = self.client.clone();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = client.cancel_task(&id).await {
                    tracing::debug!(task = %id, "cancelling the upstream task failed: {e}");
                }
            });
        }
    }
}

/// The options of an upstream request made for the downstream request `ctx`: the upstream's timeout,
/// the caller's own handlers for the input the upstream asks for, and the caller's capabilities (those
/// the gateway relays), so that a 2026 upstream asks only for input the caller can give.
fn caller_options(upstream: &Upstream, ctx: &Context) -> CallOptions {
    // Borrowed: only these three are copied, not the whole declaration.
    let caller = ctx.client_capabilities_ref();
    CallOptions {
        timeout: Some(upstream.config.timeout),
        on_progress: None,
        handlers: Some(call_handlers(ctx)),
        capabilities: Some(ClientCapabilities {
            sampling: caller.sampling.clone(),
            elicitation: caller.elicitation.clone(),
            roots: caller.roots.clone(),
            ..ClientCapabilities::default()
        }),
    }
}

/// `prompts/get` of `prompt` on `upstream`.
pub async fn get_prompt(
    upstream: &Upstream,
    prompt: &str,
    args: PromptArgs,
    ctx: Context,
) -> Result<GetPromptResult, ErrorObject> {
    let link = upstream.link(&ctx).await?;
    let name = &upstream.config.name;
    let opts = caller_options(upstream, &ctx);
    let _caller = link.callers.enter(ctx.clone());
    let r = tokio::select! {
        r = link.client.get_prompt_with(prompt, args, &opts) => r.map_err(|e| rpc_error(e, name)),
        _ = ctx.cancelled() => Err(ErrorObject::internal("cancelled")),
    };
    redacted(r, &link.secrets)
}

/// `resources/read` of `uri` on `upstream` (URIs pass unchanged: the gateway routes them by its table).
pub async fn read_resource(
    upstream: &Upstream,
    uri: &str,
    ctx: Context,
) -> Result<ReadResourceResult, ErrorObject> {
    read_noting(upstream, uri, ctx, None).await
}

/// [`read_resource`], and whether the upstream asked the caller for input while reading (its answer is
/// then the caller's alone: see [`crate::cache`]).
pub(crate) async fn read_fetched(upstream: &Upstream, uri: &str, ctx: Context) -> Fetched {
    let used = Arc::new(AtomicBool::new(false));
    let result = read_noting(upstream, uri, ctx, Some(used.clone())).await;
    Fetched {
        result,
        input_used: used.load(Ordering::Acquire),
    }
}

async fn read_noting(
    upstream: &Upstream,
    uri: &str,
    ctx: Context,
    input_used: Option<Arc<AtomicBool>>,
) -> Result<ReadResourceResult, ErrorObject> {
    let link = upstream.link(&ctx).await?;
    let name = &upstream.config.name;
    let mut opts = caller_options(upstream, &ctx);
    if let (Some(used), Some(h)) = (input_used, opts.handlers.take()) {
        opts.handlers = Some(crate::cache::witnessed(h, used));
    }
    let _caller = link.callers.enter(ctx.clone());
    let r = tokio::select! {
        r = link.client.read_resource_with(uri, &opts) => r.map_err(|e| rpc_error(e, name)),
        _ = ctx.cancelled() => Err(ErrorObject::internal("cancelled")),
    };
    redacted(r, &link.secrets)
}

/// `completion/complete` on `upstream`, with the reference as the upstream knows it.
pub async fn complete(
    upstream: &Upstream,
    params: CompleteParams,
    ctx: Context,
) -> Result<CompleteResult, ErrorObject> {
    let link = upstream.link(&ctx).await?;
    let name = &upstream.config.name;
    let r = tokio::select! {
        r = link.client.complete(params) => r.map_err(|e| rpc_error(e, name)),
        _ = ctx.cancelled() => Err(ErrorObject::internal("cancelled")),
    };
    redacted(r, &link.secrets)
}

/// A prompt, read or completion answer (or its error) with `secrets` taken out.
fn redacted<T: serde::Serialize + serde::de::DeserializeOwned>(
    r: Result<T, ErrorObject>,
    secrets: &Secrets,
) -> Result<T, ErrorObject> {
    match r {
        Ok(r) => secrets.redact_answer(r).ok_or_else(|| {
            ErrorObject::internal("mcp-gateway: the answer held a secret and was withheld")
        }),
        Err(e) => Err(secrets.redact_error(e)),
    }
}

async fn next_progress(rx: &mut Option<mpsc::Receiver<ProgressParams>>) -> Option<ProgressParams> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn next_note(
    notes: &mut Option<broadcast::Receiver<ServerNotification>>,
) -> Option<ServerNotification> {
    match notes {
        Some(rx) => loop {
            match rx.recv().await {
                Ok(n) => return Some(n),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        },
        None => None,
    }
}

/// A `notifications/message` of the upstream, to `ctx` when its call is the one such a message goes to
/// (see [`crate::upstream::Callers`]), with the upstream's secrets taken out. Boxed, as
/// [`Progress::send`] is.
fn relay_log<'a>(
    caller: &'a CallerGuard,
    ctx: &'a Context,
    secrets: &'a Secrets,
    n: ServerNotification,
) -> BoxFuture<'a, ()> {
    Box::pin(async move {
        if n.method != methods::MESSAGE || !caller.is_newest() {
            return;
        }
        if let Some(p) = n
            .params
            .and_then(|p| serde_json::from_value::<LoggingMessageParams>(p).ok())
        {
            let p = secrets.redact_log(p);
            ctx.log(p.level, p.logger.as_deref(), p.data).await;
        }
    })
}
