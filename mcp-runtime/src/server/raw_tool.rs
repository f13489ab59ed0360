//! Tools whose result is JSON text: a relay (the gateway) hands the pump the result another server sent,
//! and the pump writes it into the response frame as it is (with the 2026-07-28 stamp beside it), never
//! building a [`CallToolResult`](crate::protocol::CallToolResult) in between. Registered with
//! [`ToolRoute::raw`](super::ToolRoute::raw); served by the same
//! dispatch, lifecycle and cancellation as every tool. Where the runtime needs the typed result (a call
//! that runs as a task, a handler calling another tool's route), the raw one is decoded then.

use super::arguments::Arguments;
use super::Context;
use crate::future::BoxFuture;
use crate::protocol::{ErrorObject, RawCallToolResult};
use std::future::Future;

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
