//! An upstream's restarts: exponential backoff with jitter, and past the restart budget the circuit
//! breaker's cooldown.

use crate::breaker::{Breaker, Next};
use crate::upstream::{State, Upstream};
use std::time::{Duration, Instant};

pub(crate) const FIRST_BACKOFF: Duration = Duration::from_millis(200);
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// An upstream that stayed up this long restarts from the first backoff again.
pub(crate) const HEALTHY_AFTER: Duration = Duration::from_secs(30);

/// After a failure: the backoff, or, past the restart budget, the circuit breaker's cooldown, during
/// which calls fail at once with an error that says the circuit is open, until when, and why.
pub(crate) async fn pause(
    breaker: &mut Breaker,
    backoff: &mut Duration,
    up: &Upstream,
    reason: &str,
) {
    match breaker.failed(Instant::now()) {
        Next::Backoff => wait(backoff, up).await,
        Next::Open(cooldown) => {
            let p = breaker.policy();
            let why = format!(
                "circuit open: more than {} failures within {}s, cut off for {}s (last failure: {reason})",
                p.budget,
                p.window.as_secs_f64(),
                cooldown.as_secs_f64(),
            );
            tracing::warn!(upstream = %up.config.name, "{why}");
            up.set_state(State::Down(why));
            tokio::time::sleep(cooldown).await;
            up.count_restart();
        }
    }
}

/// Sleeps the backoff with ±25% jitter, then doubles it (up to [`MAX_BACKOFF`]).
async fn wait(backoff: &mut Duration, up: &Upstream) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let jitter = 0.75 + f64::from(nanos % 1000) / 2000.0;
    tokio::time::sleep(backoff.mul_f64(jitter)).await;
    *backoff = (*backoff * 2).min(MAX_BACKOFF);
    up.count_restart();
}
