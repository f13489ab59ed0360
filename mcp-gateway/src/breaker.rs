//! The restart budget and circuit breaker of one upstream.
//!
//! Every failure (a start that fails, a connection that closes) spends one restart of the budget. While
//! the failures within the last `window` stay within `budget`, the upstream is restarted after the
//! usual exponential backoff with jitter. One more, and the circuit opens: the upstream is cut off for
//! `cooldown` (its calls fail at once with an error that says so and until when), then tried once
//! (half-open). If that try stays up for `healthy_after`, the circuit closes and the budget is whole
//! again; if it fails, the circuit opens again for another cooldown.
//!
//! The state machine is pure (it is given the time), so it is tested without waiting.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The restart policy of an upstream (`restart` in its config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Restarts allowed within `window` before the circuit opens.
    pub budget: u32,
    /// The window the budget counts over.
    pub window: Duration,
    /// How long an open circuit keeps the upstream cut off.
    pub cooldown: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            budget: 5,
            window: Duration::from_secs(60),
            cooldown: Duration::from_secs(60),
        }
    }
}

/// What the supervisor does after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Restart after the usual backoff.
    Backoff,
    /// The circuit is open: wait this long (the cooldown), then try once.
    Open(Duration),
}

/// The breaker's state.
#[derive(Debug, Clone)]
pub struct Breaker {
    policy: RestartPolicy,
    failures: VecDeque<Instant>,
    half_open: bool,
}

impl Breaker {
    /// A closed breaker with a whole budget.
    pub fn new(policy: RestartPolicy) -> Breaker {
        Breaker {
            policy,
            failures: VecDeque::new(),
            half_open: false,
        }
    }

    /// The policy it follows.
    pub fn policy(&self) -> &RestartPolicy {
        &self.policy
    }

    /// Records a failure at `now` and says what to do.
    pub fn failed(&mut self, now: Instant) -> Next {
        while self
            .failures
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) > self.policy.window)
        {
            self.failures.pop_front();
        }
        self.failures.push_back(now);
        // Bounded: only the failures within the window are kept, and at most one past the budget.
        while self.failures.len() > self.policy.budget as usize + 1 {
            self.failures.pop_front();
        }
        if self.half_open || self.failures.len() > self.policy.budget as usize {
            self.half_open = true;
            Next::Open(self.policy.cooldown)
        } else {
            Next::Backoff
        }
    }

    /// The upstream stayed up long enough: the circuit closes and the budget is whole again.
    pub fn healthy(&mut self) {
        self.failures.clear();
        self.half_open = false;
    }

    /// Whether the next try is the one try of a half-open circuit.
    pub fn is_open(&self) -> bool {
        self.half_open
    }

    /// Failures counted in the window now.
    pub fn failures(&self) -> usize {
        self.failures.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RestartPolicy {
        RestartPolicy {
            budget: 2,
            window: Duration::from_secs(10),
            cooldown: Duration::from_secs(30),
        }
    }

    #[test]
    fn opens_past_the_budget_and_closes_when_healthy() {
        let t = Instant::now();
        let mut b = Breaker::new(policy());
        assert_eq!(b.failed(t), Next::Backoff);
        assert_eq!(b.failed(t + Duration::from_secs(1)), Next::Backoff);
        assert_eq!(
            b.failed(t + Duration::from_secs(2)),
            Next::Open(Duration::from_secs(30))
        );
        assert!(b.is_open());
        // The half-open try fails: open again at once.
        assert_eq!(
            b.failed(t + Duration::from_secs(33)),
            Next::Open(Duration::from_secs(30))
        );
        // It comes back and stays up: closed, the budget whole.
        b.healthy();
        assert!(!b.is_open());
        assert_eq!(b.failed(t + Duration::from_secs(100)), Next::Backoff);
        assert_eq!(b.failed(t + Duration::from_secs(101)), Next::Backoff);
    }

    #[test]
    fn failures_outside_the_window_do_not_count() {
        let t = Instant::now();
        let mut b = Breaker::new(policy());
        for i in 0..10 {
            assert_eq!(
                b.failed(t + Duration::from_secs(11 * i)),
                Next::Backoff,
                "{i}"
            );
        }
        assert_eq!(b.failures(), 1);
    }
}
