//! Tools whose result is JSON text: a relay (the gateway) hands the pump the result another server sent,
//! and the pump writes it into the response frame as it is (with the 2026-07-28 stamp beside it), never
//! building a [`CallToolResult`] in between. Registered with [`ToolRoute::raw`]; served by the same
//! dispatch, lifecycle and cancellation as every tool. Where the runtime needs the typed result (a call
//! that runs as a task, a handler calling another tool's route), the raw one is decoded then.

use super::tools::{Arguments, ToolHandler, ToolRoute};
use super::Context;
use crate::protocol::{CallToolResult, ErrorObject, RawCallToolResult, Tool};
use futures_util::future::BoxFuture;
use std::future::Future;
use std::sync::Arc;

/// What a raw tool does when called. Implemented for `Fn(Arguments, Context) -> impl Future` closures.
pub trait RawToolHandler: Send + Sync + 'static {
    /// A tool's own failure is `Ok` with `isError: true`; `Err` is a JSON-RPC error.
    fn call(
        &self,
        args: Arguments,
        ctx: Context,
    ) -> BoxFuture<'static, Result<RawCallToolResult, ErrorObject>>;
}

impl<F, Fut> RawToolHandler for F
where
    F: Fn(Arguments, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<RawCallToolResult, ErrorObject>> + Send + 'static,
{
    fn call(
        &self,
        args: Arguments,
        ctx: Context,
    ) -> BoxFuture<'static, Result<RawCallToolResult, ErrorObject>> {
        Box::pin(self(args, ctx))
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
