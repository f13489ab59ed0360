//! Reading a request body: within the size limit and the body timeout, its bytes held on the server's
//! byte budget.

use super::config::HttpConfig;
use crate::budget::{ByteBudget, Charge};
use axum::extract::Request;
use axum::http::header;
use bytes::Bytes;
use std::sync::Arc;

/// Bodies up to this size are read without waiting for the byte budget.
const SMALL_BODY: usize = 4 * 1024;

pub(crate) enum BodyError {
    TooLarge,
    Slow,
}

/// The whole body, within the size limit and the body timeout, with its bytes held on the server's budget
/// (taken before reading: when the budget is spent, bodies wait unread).
pub(crate) async fn read_body(
    req: Request,
    c: &HttpConfig,
    budget: &Arc<ByteBudget>,
) -> Result<(Bytes, Charge), BodyError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > c.max_body_bytes) {
        return Err(BodyError::TooLarge);
    }
    // A small body (a notification such as a cancellation, most requests) never waits: it must get
    // through to free the budget, and a connection costs more than its bytes anyway.
    let mut charge = match declared {
        Some(n) if n <= SMALL_BODY => budget.charge(n),
        n => budget.acquire(n.unwrap_or(c.max_body_bytes)).await,
    };
    match tokio::time::timeout(
        c.body_read_timeout,
        axum::body::to_bytes(req.into_body(), c.max_body_bytes),
    )
    .await
    {
        Ok(Ok(b)) => {
            charge.shrink_to(b.len());
            Ok((b, charge))
        }
        Ok(Err(_)) => Err(BodyError::TooLarge),
        Err(_) => Err(BodyError::Slow),
    }
}
