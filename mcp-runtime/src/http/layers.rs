//! The tower layers around the MCP routes, outermost first: CORS (so that refusals, 401 challenges and
//! 429s included, carry the headers a browser needs to read them), then compression.

use super::HttpConfig;
use axum::Router;

pub(crate) fn wrap(mut r: Router, c: &HttpConfig) -> Router {
    #[cfg(feature = "compression")]
    if let Some(z) = c.compression.clone() {
        r = r.layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                super::compression::compress(z.clone(), req, next)
            },
        ));
    }
    if let Some(cors) = &c.cors {
        r = r.layer(cors.layer());
    }
    r
}
