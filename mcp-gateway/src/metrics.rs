//! The gateway's metrics in the Prometheus / OpenMetrics text format (`prometheus-client`): calls,
//! errors and a latency histogram per upstream and tool, the `resources/read` cache's hits and
//! misses (see [`crate::cache`]), and per upstream with per-user credentials its live per-user
//! connections, their bound (`maxUsers`), the evictions and the refusals (see [`crate::users`]),
//! served at `/metrics` in HTTP mode.
//!
//! Each tool route takes its [`ToolMetrics`] handles once, when it is registered, so a call only bumps
//! atomics: no label strings are built and no map is searched on the hot path. The number of series is
//! bounded by [`MAX_SERIES`] label sets (an upstream that renames its tools forever cannot grow it
//! without end): beyond it, a tool's calls are counted in detached handles that are never exported.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Label sets (upstream, tool) exported at most.
pub const MAX_SERIES: usize = 4096;

/// The content type of [`Metrics::encode`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    upstream: String,
    tool: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    upstream: String,
    tool: String,
    /// `rpc` (a JSON-RPC error: the upstream's, a timeout, a closed connection) or `tool` (a result with
    /// `isError: true`).
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UpstreamLabels {
    upstream: String,
}

/// The handles a per-user pool of one upstream sets and bumps (see [`crate::users`]); detached ones
/// (never exported) by default.
#[derive(Clone, Debug, Default)]
pub struct PoolMetrics {
    /// Connections live (or starting) now.
    pub live: Gauge,
    /// Connections closed to make room for a new caller.
    pub evictions: Counter,
    /// Callers refused because every connection was busy.
    pub refusals: Counter,
}

type HistogramFamily = Family<ToolLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 50 µs to ~52 s, doubling.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 21))
}

/// Every metric of one gateway.
pub struct Metrics {
    registry: Registry,
    calls: Family<ToolLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    latency: HistogramFamily,
    series: AtomicUsize,
    cache_hits: Counter,
    cache_misses: Counter,
    user_live: Family<UpstreamLabels, Gauge>,
    user_max: Family<UpstreamLabels, Gauge>,
    user_evictions: Family<UpstreamLabels, Counter>,
    user_refusals: Family<UpstreamLabels, Counter>,
}

/// The handles one tool route bumps.
#[derive(Clone, Debug)]
pub struct ToolMetrics {
    calls: Counter,
    rpc_errors: Counter,
    tool_errors: Counter,
    latency: Histogram,
}

/// How a call through the gateway ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A result without `isError`.
    Ok,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error (the upstream's own, or the gateway's: timeout, closed, cancelled).
    RpcError,
}

impl Outcome {
    /// Its name in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ToolError => "tool_error",
            Outcome::RpcError => "error",
        }
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// An empty set of metrics under the `mcp_gateway` prefix.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("mcp_gateway");
        let calls = Family::<ToolLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let latency: HistogramFamily = Family::new_with_constructor(latency_histogram);
        registry.register(
            "tool_calls",
            "Tool calls relayed to an upstream",
            calls.clone(),
        );
        registry.register(
            "tool_errors",
            "Tool calls that ended in an error (kind: rpc = a JSON-RPC error, tool = isError)",
            errors.clone(),
        );
        registry.register(
            "tool_call_duration_seconds",
            "Time from the call's arrival to its answer, upstream round trip included",
            latency.clone(),
        );
        let cache_hits = Counter::default();
        let cache_misses = Counter::default();
        registry.register(
            "resource_cache_hits",
            "resources/read answered from the gateway's cache (or by an identical read in flight)",
            cache_hits.clone(),
        );
        registry.register(
            "resource_cache_misses",
            "resources/read sent upstream while the cache is on",
            cache_misses.clone(),
        );
        let user_live = Family::<UpstreamLabels, Gauge>::default();
        let user_max = Family::<UpstreamLabels, Gauge>::default();
        let user_evictions = Family::<UpstreamLabels, Counter>::default();
        let user_refusals = Family::<UpstreamLabels, Counter>::default();
        registry.register(
            "user_connections",
            "Per-user connections of an upstream with per-user credentials, live or starting",
            user_live.clone(),
        );
        registry.register(
            "user_connections_max",
            "Per-user connections an upstream may have at once (its maxUsers)",
            user_max.clone(),
        );
        registry.register(
            "user_connection_evictions",
            "Per-user connections closed, idle, to make room for a new caller",
            user_evictions.clone(),
        );
        registry.register(
            "user_connection_refusals",
            "Callers refused a per-user connection because all maxUsers were busy",
            user_refusals.clone(),
        );
        Metrics {
            registry,
            calls,
            errors,
            latency,
            series: AtomicUsize::new(0),
            cache_hits,
            cache_misses,
            user_live,
            user_max,
            user_evictions,
            user_refusals,
        }
    }

    /// The handles of the per-user pool of `upstream`, which may hold `max` connections. An upstream
    /// replaced by a reload gets the same counters back (they keep counting).
    pub fn users(&self, upstream: &str, max: usize) -> PoolMetrics {
        let labels = UpstreamLabels {
            upstream: upstream.to_string(),
        };
        // One statement each: a family's read guard must be gone before the next insert takes its lock.
        self.user_max
            .get_or_create(&labels)
            .set(i64::try_from(max).unwrap_or(i64::MAX));
        let live = self.user_live.get_or_create(&labels).clone();
        let evictions = self.user_evictions.get_or_create(&labels).clone();
        let refusals = self.user_refusals.get_or_create(&labels).clone();
        PoolMetrics {
            live,
            evictions,
            refusals,
        }
    }

    /// The `resources/read` cache's hit and miss counters (the cache bumps them).
    pub(crate) fn cache_counters(&self) -> (Counter, Counter) {
        (self.cache_hits.clone(), self.cache_misses.clone())
    }

    /// `resources/read` answered from the cache so far, and sent upstream while it is on.
    pub fn cache_counts(&self) -> (u64, u64) {
        (self.cache_hits.get(), self.cache_misses.get())
    }

    /// The handles of one tool of one upstream (its upstream name, not the exposed one).
    pub fn tool(&self, upstream: &str, tool: &str) -> ToolMetrics {
        let labels = ToolLabels {
            upstream: upstream.to_string(),
            tool: tool.to_string(),
        };
        let fresh = self.calls.get(&labels).is_none();
        if fresh && self.series.fetch_add(1, Ordering::Relaxed) >= MAX_SERIES {
            self.series.fetch_sub(1, Ordering::Relaxed);
            return ToolMetrics {
                calls: Counter::default(),
                rpc_errors: Counter::default(),
                tool_errors: Counter::default(),
                latency: latency_histogram(),
            };
        }
        let error = |kind| ErrorLabels {
            upstream: labels.upstream.clone(),
            tool: labels.tool.clone(),
            kind,
        };
        // One statement each: a family's read guard must be gone before the next insert takes its lock.
        let calls = self.calls.get_or_create(&labels).clone();
        let rpc_errors = self.errors.get_or_create(&error("rpc")).clone();
        let tool_errors = self.errors.get_or_create(&error("tool")).clone();
        let latency = self.latency.get_or_create(&labels).clone();
        ToolMetrics {
            calls,
            rpc_errors,
            tool_errors,
            latency,
        }
    }

    /// Every metric in the OpenMetrics text format (which Prometheus scrapes; see [`CONTENT_TYPE`]).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }
}

impl ToolMetrics {
    /// Counts one call that took `elapsed` and ended as `outcome`.
    pub fn record(&self, elapsed: Duration, outcome: Outcome) {
        self.calls.inc();
        match outcome {
            Outcome::Ok => {}
            Outcome::ToolError => {
                self.tool_errors.inc();
            }
            Outcome::RpcError => {
                self.rpc_errors.inc();
            }
        }
        self.latency.observe(elapsed.as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_upstream_and_tool_in_the_text_format() {
        let m = Metrics::new();
        let echo = m.tool("bench", "echo");
        echo.record(Duration::from_micros(120), Outcome::Ok);
        echo.record(Duration::from_millis(3), Outcome::RpcError);
        m.tool("bench", "add")
            .record(Duration::from_micros(80), Outcome::ToolError);
        // The same tool again shares its series.
        m.tool("bench", "echo")
            .record(Duration::from_micros(90), Outcome::Ok);
        let text = m.encode();
        assert!(
            text.contains(r#"mcp_gateway_tool_calls_total{upstream="bench",tool="echo"} 3"#),
            "{text}"
        );
        assert!(text.contains(
            r#"mcp_gateway_tool_errors_total{upstream="bench",tool="echo",kind="rpc"} 1"#
        ));
        assert!(text.contains(
            r#"mcp_gateway_tool_errors_total{upstream="bench",tool="add",kind="tool"} 1"#
        ));
        assert!(text.contains(
            r#"mcp_gateway_tool_call_duration_seconds_count{upstream="bench",tool="echo"} 3"#
        ));
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn per_user_pools_are_counted_per_upstream() {
        let m = Metrics::new();
        let pool = m.users("github", 8);
        pool.live.set(3);
        pool.evictions.inc();
        pool.refusals.inc();
        // A reload's new pool shares the counters.
        m.users("github", 8).refusals.inc();
        let text = m.encode();
        for line in [
            r#"mcp_gateway_user_connections{upstream="github"} 3"#,
            r#"mcp_gateway_user_connections_max{upstream="github"} 8"#,
            r#"mcp_gateway_user_connection_evictions_total{upstream="github"} 1"#,
            r#"mcp_gateway_user_connection_refusals_total{upstream="github"} 2"#,
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }
}
