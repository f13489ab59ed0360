//! One tool call across the hop as operations see it: a tracing span (`hop`, at debug level, with the
//! upstream, the tool, the latency and the outcome, and the W3C trace it joined: `trace_id`, its own
//! `span_id` and the caller's `parent_id`; `RUST_LOG=mcp_gateway=debug` shows it), the call's
//! metrics. The relaying itself, with the connection's secrets taken out of what comes back, is
//! [`relay::call_tool_raw`].

use crate::metrics::{Outcome, ToolMetrics};
use crate::relay;
use crate::upstream::Upstream;
use mcp_runtime::protocol::{ErrorObject, RawCallToolResult, TaskSupport};
use mcp_runtime::server::Arguments;
use mcp_runtime::Context;
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// What a tool route needs besides its upstream: the upstream's name of the tool and its metrics.
#[derive(Clone)]
pub struct Hop {
    /// The upstream.
    pub upstream: Arc<Upstream>,
    /// The tool's name upstream.
    pub tool: Arc<str>,
    /// Bumped once per call.
    pub metrics: ToolMetrics,
    /// The tool's `execution.taskSupport` upstream (the route sets it from the listed tool).
    pub support: TaskSupport,
}

impl Hop {
    /// Relays one call, observed; the result stays JSON text.
    pub async fn call(
        &self,
        args: Arguments,
        ctx: Context,
    ) -> Result<RawCallToolResult, ErrorObject> {
        let t0 = Instant::now();
        // `richText`: the model's Markdown becomes what the upstream wants before the call goes out.
        let rich_text = crate::rich_text::rules(&self.upstream);
        let (args, sent) = match rich_text {
            None => (args, Default::default()),
            Some(rt) => match crate::rich_text::arguments(rt, args) {
                Ok(converted) => converted,
                Err(refused) => {
                    return RawCallToolResult::from_result(&refused)
                        .map_err(|e| ErrorObject::internal(e.to_string()))
                }
            },
        };
        let span = tracing::debug_span!(
            "hop",
            upstream = %self.upstream.config.name,
            tool = %self.tool,
            latency_us = tracing::field::Empty,
            outcome = tracing::field::Empty,
            trace_id = tracing::field::Empty,
            span_id = tracing::field::Empty,
            parent_id = tracing::field::Empty,
        );
        // Exported over OTLP (the `otel` feature, when an endpoint is set): the upstream request carries
        // the exported span as its parent.
        #[cfg(feature = "otel")]
        let exported = crate::otel::HopSpan::start(
            ctx.trace_context(),
            &self.upstream.config.name,
            &self.tool,
        );
        // The hop joins the caller's trace (SEP-414): its span is the handler's, a child of the
        // request's, and the upstream request carries it as its parent (see `mcp_runtime::trace_context`).
        if !span.is_disabled() {
            #[cfg(feature = "otel")]
            let current = exported.as_ref().and_then(|e| e.upstream.clone());
            #[cfg(not(feature = "otel"))]
            let current = None;
            if let Some(hop) = current.or_else(mcp_runtime::TraceContext::current) {
                use tracing::field::display;
                span.record("trace_id", display(hop.trace_id()));
                span.record("span_id", display(hop.parent_id()));
                if let Some(caller) = ctx.trace_context() {
                    span.record("parent_id", display(caller.parent_id()));
                }
            }
        }
        // Boxed once here: the relay's state is kilobytes, and unboxed it would be copied each time
        // the futures around it move (instrumented, then into this future, then into the handler's box).
        let relay = Box::pin(relay::call_tool_raw(
            &self.upstream,
            &self.tool,
            self.support,
            args,
            ctx,
        ));
        #[cfg(feature = "otel")]
        let relay = match exported.as_ref().and_then(|e| e.upstream.clone()) {
            Some(t) => {
                futures_util::future::Either::Left(mcp_runtime::TraceContext::scope(Some(t), relay))
            }
            None => futures_util::future::Either::Right(relay),
        };
        // A span no subscriber wants is not entered and left at each poll.
        let r = if span.is_disabled() {
            relay.await
        } else {
            relay.instrument(span.clone()).await
        };
        let elapsed = t0.elapsed();
        let outcome = match &r {
            Ok(r) if r.is_error() => Outcome::ToolError,
            Ok(_) => Outcome::Ok,
            Err(_) => Outcome::RpcError,
        };
        self.metrics.record(elapsed, outcome);
        #[cfg(feature = "otel")]
        if let Some(e) = exported {
            // Free of secrets already (the relay took them out).
            let error = r
                .as_ref()
                .err()
                .map(|e| (i64::from(e.code), e.message.clone()));
            e.end(outcome, error);
        }
        if !span.is_disabled() {
            span.record("latency_us", elapsed.as_micros() as u64);
            span.record("outcome", tracing::field::display(outcome.as_str()));
            let _in = span.enter();
            match &r {
                Err(e) => tracing::debug!(code = e.code, "call failed: {}", e.message),
                Ok(_) => tracing::debug!("call done"),
            }
        }
        match (r, rich_text) {
            (Ok(r), Some(rt)) => Ok(crate::rich_text::raw_result(rt, r, &sent)),
            (r, _) => r,
        }
    }
}
