//! The operations endpoints served beside `/mcp` in HTTP mode: `GET /health` (the [`health`](crate::health)
//! report) and `GET /metrics` (the [`metrics`](crate::metrics) in the OpenMetrics text format).

use crate::gateway::Gateway;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// The path of the health report.
pub const HEALTH_PATH: &str = "/health";
/// The path of the metrics.
pub const METRICS_PATH: &str = "/metrics";

/// A router with `/health` and `/metrics` for `gateway` (give it to
/// [`HttpConfig::extra_routes`](mcp_runtime::http::HttpConfig::extra_routes)).
pub fn routes(gateway: &Gateway) -> Router {
    let g = gateway.clone();
    let m = gateway.clone();
    Router::new()
        .route(
            HEALTH_PATH,
            get(move || {
                let g = g.clone();
                async move { health(&g) }
            }),
        )
        .route(
            METRICS_PATH,
            get(move || {
                let m = m.clone();
                async move {
                    (
                        [(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
                        m.metrics().encode(),
                    )
                        .into_response()
                }
            }),
        )
}

fn health(g: &Gateway) -> Response {
    let (overall, body) = crate::health::report(&g.status());
    let status = StatusCode::from_u16(overall.http_status()).unwrap_or(StatusCode::OK);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
