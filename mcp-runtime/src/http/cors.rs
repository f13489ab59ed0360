//! CORS for browser clients: an explicit allow-list of origins, preflights answered, and the MCP
//! headers exposed to scripts (`Mcp-Session-Id`, `Mcp-Protocol-Version`, `WWW-Authenticate`).
//!
//! The origins listed here are also accepted by the DNS-rebinding check (`Origin` must name an allowed
//! host or a listed origin); a preflight from any other origin gets no `Access-Control-Allow-*`
//! headers, so the browser never sends the request, and the request itself would be refused with 403.

use axum::http::{header, HeaderName, HeaderValue, Method};
use std::time::Duration;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer, ExposeHeaders};

/// Which browser origins may call the server.
#[derive(Debug, Clone)]
pub struct Cors {
    /// Origins exactly as browsers send them: `https://app.example.com` (scheme, host, port if any).
    pub allowed_origins: Vec<String>,
    /// How long a browser may cache a preflight answer.
    pub max_age: Duration,
}

impl Cors {
    /// Allows these origins (exactly as browsers send them), with the default preflight cache time.
    pub fn new<S: Into<String>>(origins: impl IntoIterator<Item = S>) -> Self {
        Cors {
            allowed_origins: origins.into_iter().map(Into::into).collect(),
            max_age: Duration::from_secs(600),
        }
    }

    pub(crate) fn allows(&self, origin: &str) -> bool {
        self.allowed_origins.iter().any(|o| o == origin)
    }

    pub(crate) fn layer(&self) -> CorsLayer {
        let origins: Vec<HeaderValue> = self
            .allowed_origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o).ok())
            .collect();
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
            // The 2026 `Mcp-Param-*` headers are named by each tool's schema, so the requested headers
            // are mirrored; the origin list is what guards the server.
            .allow_headers(AllowHeaders::mirror_request())
            .expose_headers(ExposeHeaders::list([
                HeaderName::from_static(super::headers::SESSION_HEADER),
                HeaderName::from_static(super::headers::VERSION_HEADER),
                header::WWW_AUTHENTICATE,
                header::RETRY_AFTER,
            ]))
            .max_age(self.max_age)
            .vary([
                header::ORIGIN,
                header::ACCESS_CONTROL_REQUEST_METHOD,
                header::ACCESS_CONTROL_REQUEST_HEADERS,
            ])
    }
}
