//! One `tools/call` across the hop: the arguments as they came, the upstream's progress relayed to the
//! caller, a downstream cancel turned into an upstream `notifications/cancelled` (by dropping the
//! upstream request), and the upstream's errors kept as they were (code, message, data).

use crate::upstream::{CallerGuard, Upstream};
use mcp_runtime::client::{CallOptions, Client, ServerNotification};
use mcp_runtime::connection::RequestOptions;
use mcp_runtime::protocol::{
    methods, CallToolResult, CompleteParams, CompleteResult, ErrorObject, GetPromptResult,
    LoggingMessageParams, ProgressParams, ReadResourceResult,
};
use mcp_runtime::server::{Arguments, PromptArgs};
use mcp_runtime::{Context, Error};
use serde_json::value::RawValue;
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};

/// Progress updates held for a slow downstream before newer ones are dropped (progress is a hint: the
/// latest value matters, not every one).
const PROGRESS_QUEUE: usize = 64;

/// A runtime client error as the JSON-RPC error the downstream caller gets. An upstream's own JSON-RPC
/// error passes unchanged; transport failures say which upstream and why in `data`.
pub fn rpc_error(e: Error, upstream: &str) -> ErrorObject {
    match e {
        Error::Rpc(e) => e,
        Error::Closed(reason) => ErrorObject::internal(format!(
            "upstream `{upstream}` closed the connection: {reason}"
        ))
        .with_data(serde_json::json!({"upstream": upstream, "reason": reason})),
        Error::Timeout { method, after } => ErrorObject::internal(format!(
            "upstream `{upstream}` did not answer {method} within {after:?}"
        ))
        .with_data(serde_json::json!({
            "upstream": upstream, "timeoutMs": after.as_millis() as u64,
        })),
        other => ErrorObject::internal(format!("upstream `{upstream}`: {other}"))
            .with_data(serde_json::json!({"upstream": upstream, "reason": other.to_string()})),
    }
}

/// Calls `tool` on `upstream` for the downstream request `ctx`.
pub async fn call_tool(
    upstream: &Upstream,
    tool: &str,
    args: Arguments,
    ctx: Context,
) -> Result<CallToolResult, ErrorObject> {
    let client = upstream.client()?;
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
        timeout: Some(upstream.config.timeout),
        on_progress,
    };
    // While the call runs, the upstream's sampling and elicitation requests come back to this caller,
    // and so do its log messages (an upstream's log message names no request: the newest call takes it).
    let caller = upstream.callers.enter(ctx.clone());
    let mut notes = client
        .server()
        .capabilities
        .logging
        .is_some()
        .then(|| client.notifications());
    let call = send_call(&client, tool, arguments, opts);
    tokio::pin!(call);
    loop {
        tokio::select! {
            r = &mut call => {
                // Progress and logs sent before the result are queued already: relay them first.
                if let Some(rx) = progress.as_mut() {
                    while let Ok(p) = rx.try_recv() {
                        ctx.progress(p.progress, p.total, p.message).await;
                    }
                }
                if let Some(rx) = notes.as_mut() {
                    while let Ok(n) = rx.try_recv() {
                        relay_log(&caller, &ctx, n).await;
                    }
                }
                // Failures are logged by the hop (`crate::hop`), with the upstream's secrets taken out.
                return r.map_err(|e| rpc_error(e, name));
            }
            Some(p) = next_progress(&mut progress) => ctx.progress(p.progress, p.total, p.message).await,
            Some(n) = next_note(&mut notes) => relay_log(&caller, &ctx, n).await,
            // Returning drops the upstream request, which sends it `notifications/cancelled`.
            _ = ctx.cancelled() => {
                tracing::debug!(upstream = %name, tool, "cancelled downstream; cancelling upstream");
                return Err(ErrorObject::internal("cancelled"));
            }
        }
    }
}

/// `prompts/get` of `prompt` on `upstream`.
pub async fn get_prompt(
    upstream: &Upstream,
    prompt: &str,
    args: PromptArgs,
    ctx: Context,
) -> Result<GetPromptResult, ErrorObject> {
    let client = upstream.client()?;
    let name = &upstream.config.name;
    tokio::select! {
        r = client.get_prompt(prompt, args) => r.map_err(|e| rpc_error(e, name)),
        _ = ctx.cancelled() => Err(ErrorObject::internal("cancelled")),
    }
}

/// `resources/read` of `uri` on `upstream` (URIs pass unchanged: the gateway routes them by its table).
pub async fn read_resource(
    upstream: &Upstream,
    uri: &str,
    ctx: Context,
) -> Result<ReadResourceResult, ErrorObject> {
    let client = upstream.client()?;
    let name = &upstream.config.name;
    tokio::select! {
        r = client.read_resource(uri) => r.map_err(|e| rpc_error(e, name)),
        _ = ctx.cancelled() => Err(ErrorObject::internal("cancelled")),
    }
}

/// `completion/complete` on `upstream`, with the reference as the upstream knows it.
pub async fn complete(
    upstream: &Upstream,
    params: CompleteParams,
    ctx: Context,
) -> Result<CompleteResult, ErrorObject> {
    let client = upstream.client()?;
    let name = &upstream.config.name;
    tokio::select! {
        r = client.complete(params) => r.map_err(|e| rpc_error(e, name)),
        _ = ctx.cancelled() => Err(ErrorObject::internal("cancelled")),
    }
}

/// `tools/call` on the upstream. In the handshake era the params are written around the arguments'
/// own text (no JSON tree is built on the way through) with the request id as the progress token, as
/// the runtime's client does; a 2026-07-28 upstream goes through the client (`_meta`, input rounds,
/// tasks).
async fn send_call(
    client: &Client,
    tool: &str,
    arguments: &RawValue,
    opts: CallOptions,
) -> Result<CallToolResult, Error> {
    if client.is_modern() {
        return client.call_tool_with(tool, arguments, opts).await;
    }
    let peer = client.peer();
    let id = peer.next_id();
    let name = serde_json::to_string(tool).map_err(|e| Error::Protocol(e.to_string()))?;
    let mut params = String::with_capacity(name.len() + arguments.get().len() + 64);
    params.push_str("{\"name\":");
    params.push_str(&name);
    params.push_str(",\"arguments\":");
    params.push_str(arguments.get());
    if opts.on_progress.is_some() {
        let token = serde_json::to_string(&id).map_err(|e| Error::Protocol(e.to_string()))?;
        params.push_str(",\"_meta\":{\"progressToken\":");
        params.push_str(&token);
        params.push('}');
    }
    params.push('}');
    let params = RawValue::from_string(params).map_err(|e| Error::Protocol(e.to_string()))?;
    let ro = RequestOptions {
        timeout: opts.timeout,
        related: None,
        on_progress: opts.on_progress,
    };
    let raw = peer
        .request_with_id(id, methods::TOOLS_CALL, Some(&params), ro)
        .await?;
    serde_json::from_str(raw.get()).map_err(|e| Error::Decode {
        method: methods::TOOLS_CALL.into(),
        reason: e.to_string(),
    })
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

/// A `notifications/message` of the upstream, to `ctx` when its call is the newest on the upstream.
async fn relay_log(caller: &CallerGuard, ctx: &Context, n: ServerNotification) {
    if n.method != methods::MESSAGE || !caller.is_newest() {
        return;
    }
    if let Some(p) = n
        .params
        .and_then(|p| serde_json::from_value::<LoggingMessageParams>(p).ok())
    {
        ctx.log(p.level, p.logger.as_deref(), p.data).await;
    }
}
