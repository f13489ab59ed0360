//! OTLP export of the gateway's `hop` spans (the `otel` feature): each relayed tool call becomes one span,
//! joined to the caller's W3C trace (SEP-414: the same trace id, the caller's span as parent), whose id
//! is the parent the upstream request carries, so the upstream's own spans nest under it. A call without
//! a trace starts one (the gateway is then its root), unless the sampler says otherwise.
//!
//! Spans go over OTLP/HTTP in protobuf (`POST {endpoint}/v1/traces`), batched by the SDK's batch
//! processor on a thread of its own, sent by the gateway's reqwest on the gateway's runtime. The batch
//! queue is bounded (`OTEL_BSP_MAX_QUEUE_SIZE`, 2,048 spans by default): a collector that is down or slow
//! costs dropped spans, never a blocked call or growing memory; each export gives up after
//! [`EXPORT_TIMEOUT`].

use crate::metrics::Outcome;
use mcp_runtime::TraceContext;
use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceContextExt, TraceFlags, TraceId, TraceState,
    Tracer, TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracer, SdkTracerProvider};
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::Duration;

/// How long one export may take before it is given up (its spans are dropped).
pub const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of a collector's answer read (it is a small protobuf message, or nothing).
const MAX_RESPONSE: usize = 64 * 1024;

/// The tracer hops export to, once [`Otlp::install`] ran.
static TRACER: OnceLock<SdkTracer> = OnceLock::new();

/// Where spans go: `--otlp-endpoint`, else `gateway.otlp` in the config, else the standard
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` variables; `None`: no export.
pub fn endpoint(flag: Option<&str>, config: Option<&str>) -> Option<String> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    if let Some(e) = flag.or(config) {
        return Some(traces_url(e));
    }
    env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .or_else(|| env("OTEL_EXPORTER_OTLP_ENDPOINT").map(|e| traces_url(&e)))
}

/// A collector's base URL with the traces path (`/v1/traces`) added, as `OTEL_EXPORTER_OTLP_ENDPOINT`
/// is read; a URL that already ends with it is kept.
fn traces_url(base: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    if base.ends_with("/v1/traces") {
        base.to_string()
    } else {
        format!("{base}/v1/traces")
    }
}

/// The installed exporter: dropping it (or [`Otlp::shutdown`]) flushes the spans still queued.
pub struct Otlp {
    provider: SdkTracerProvider,
}

/// Why the exporter did not start.
#[derive(Debug, thiserror::Error)]
#[error("OTLP exporter: {0}")]
pub struct OtlpError(String);

impl Otlp {
    /// Starts exporting the process's hops to `endpoint` (a full traces URL, see [`endpoint`]). Call it
    /// inside the Tokio runtime the gateway runs on: the exports are sent from it. Once per process.
    pub fn install(endpoint: &str) -> Result<Otlp, OtlpError> {
        let handle = tokio::runtime::Handle::try_current()
            .map_err(|_| OtlpError("install it from inside the gateway's runtime".into()))?;
        let client = reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|e| OtlpError(e.to_string()))?;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(RuntimeClient { client, handle })
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint)
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|e| OtlpError(e.to_string()))?;
        // The batch config is read from the standard OTEL_BSP_* variables; its queue is bounded.
        let provider = SdkTracerProvider::builder()
            .with_span_processor(BatchSpanProcessor::builder(exporter).build())
            .with_resource(
                opentelemetry_sdk::Resource::builder()
                    .with_service_name("mcp-gateway")
                    .build(),
            )
            .build();
        TRACER
            .set(provider.tracer("mcp-gateway"))
            .map_err(|_| OtlpError("already installed in this process".into()))?;
        Ok(Otlp { provider })
    }

    /// Exports what is queued and stops. It blocks until the exporter is done (at most about
    /// [`EXPORT_TIMEOUT`]): run it off the runtime's threads (`spawn_blocking`).
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown_with_timeout(EXPORT_TIMEOUT) {
            tracing::warn!("OTLP exporter: {e}");
        }
    }
}

/// The exporter's HTTP client: the gateway's reqwest, driven by the gateway's runtime (the batch
/// processor's thread only waits for the answer).
#[derive(Debug)]
struct RuntimeClient {
    client: reqwest::Client,
    handle: tokio::runtime::Handle,
}

impl HttpClient for RuntimeClient {
    fn send_bytes<'s, 'f>(
        &'s self,
        request: Request<Bytes>,
    ) -> Pin<Box<dyn Future<Output = Result<Response<Bytes>, HttpError>> + Send + 'f>>
    where
        's: 'f,
        Self: 'f,
    {
        let client = self.client.clone();
        let sent = self.handle.spawn(async move {
            let request = reqwest::Request::try_from(request)?;
            let mut response = client.execute(request).await?;
            let mut answer = Response::builder().status(response.status());
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                if body.len() + chunk.len() > MAX_RESPONSE {
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            if let Some(headers) = answer.headers_mut() {
                *headers = std::mem::take(response.headers_mut());
            }
            Ok::<_, HttpError>(answer.body(Bytes::from(body))?)
        });
        Box::pin(async move { sent.await.map_err(|e| Box::new(e) as HttpError)? })
    }
}

/// One exported hop: the span, and the trace the upstream request carries (its id as the parent).
pub(crate) struct HopSpan {
    span: opentelemetry_sdk::trace::Span,
    /// The trace to make current for the relay: the caller's, with this span as parent.
    pub upstream: Option<TraceContext>,
}

impl HopSpan {
    /// Starts the hop's span when the exporter is installed: a child of `caller` (or a new trace).
    pub(crate) fn start(
        caller: Option<&TraceContext>,
        upstream: &str,
        tool: &str,
    ) -> Option<HopSpan> {
        let tracer = TRACER.get()?;
        let parent = match caller.and_then(span_context) {
            Some(sc) => Context::new().with_remote_span_context(sc),
            None => Context::new(),
        };
        let span = tracer
            .span_builder("hop")
            .with_kind(SpanKind::Server)
            .with_attributes([
                KeyValue::new("mcp.method.name", "tools/call"),
                KeyValue::new("gen_ai.tool.name", tool.to_string()),
                KeyValue::new("mcp.gateway.upstream", upstream.to_string()),
            ])
            .start_with_context(tracer, &parent);
        let sc = opentelemetry::trace::Span::span_context(&span);
        let traceparent = format!(
            "00-{}-{}-{:02x}",
            sc.trace_id(),
            sc.span_id(),
            sc.trace_flags().to_u8()
        );
        let upstream = TraceContext::parse(&traceparent, caller.and_then(|c| c.tracestate()))
            .map(|t| t.with_baggage(caller.and_then(|c| c.baggage())));
        Some(HopSpan { span, upstream })
    }

    /// Ends the span with the call's outcome (`error` is the upstream's error, secrets taken out).
    pub(crate) fn end(mut self, outcome: Outcome, error: Option<(i64, String)>) {
        use opentelemetry::trace::Span as _;
        self.span
            .set_attribute(KeyValue::new("mcp.gateway.outcome", outcome.as_str()));
        match (outcome, error) {
            (_, Some((code, message))) => {
                self.span
                    .set_attribute(KeyValue::new("rpc.jsonrpc.error_code", code));
                self.span.set_status(Status::error(message));
            }
            (Outcome::ToolError, None) => {
                self.span
                    .set_attribute(KeyValue::new("error.type", "tool_error"));
                self.span
                    .set_status(Status::error("the tool reported an error"));
            }
            _ => self.span.set_status(Status::Ok),
        }
        self.span.end();
    }
}

/// The caller's position as an OpenTelemetry remote parent.
fn span_context(t: &TraceContext) -> Option<SpanContext> {
    let state = t
        .tracestate()
        .and_then(|s| s.parse::<TraceState>().ok())
        .unwrap_or_default();
    Some(SpanContext::new(
        TraceId::from_hex(&t.trace_id()).ok()?,
        SpanId::from_hex(&t.parent_id()).ok()?,
        TraceFlags::new(t.flags()),
        true,
        state,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_a_base_url_like_the_standard_variable() {
        assert_eq!(
            endpoint(Some("http://127.0.0.1:4318"), Some("http://other")).as_deref(),
            Some("http://127.0.0.1:4318/v1/traces")
        );
        assert_eq!(
            endpoint(None, Some("http://c:4318/v1/traces/")).as_deref(),
            Some("http://c:4318/v1/traces")
        );
    }
}
