//! The byte budget: how many bytes of requests read but not yet answered, plus frames queued but not yet
//! written, a connection (or a whole HTTP server) may hold.
//!
//! The reader takes a [`Charge`] for each request before dispatching it, waiting while the budget is spent:
//! that is where it stops reading (a notification already read, such as a cancellation, is handled at
//! once: its bytes are not kept). A request's charge travels with it and becomes the charge of its
//! answer; the writer drops it once the answer is written. A message larger than the whole budget waits
//! until nothing else is held, then goes through alone. Answers are charged without waiting (their handler
//! already holds the memory; making it wait on requests queued behind it could deadlock), so the budget
//! may be overdrawn by the answers of the handlers running at that moment, and the reader then waits
//! until it is paid back. Frames a handler sends on its own (progress, logs, requests to the peer) wait
//! for the *output* part of the budget only, which only the writer pays back, so they cannot deadlock.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// A shared byte budget. Cheap to share (`Arc`); see the [module docs](self).
#[derive(Debug)]
pub struct ByteBudget {
    limit: usize,
    /// Everything held: requests not yet answered and frames not yet written.
    used: AtomicUsize,
    /// Frames queued for output and not yet written (a part of `used`).
    out: AtomicUsize,
    /// Tasks waiting in [`ByteBudget::acquire`] or [`ByteBudget::acquire_out`].
    waiting: AtomicUsize,
    freed: Notify,
}

/// Bytes held against a [`ByteBudget`], given back when dropped.
#[derive(Debug)]
#[must_use = "a charge is given back as soon as it is dropped"]
pub struct Charge {
    budget: Option<Arc<ByteBudget>>,
    bytes: usize,
    out: bool,
}

impl ByteBudget {
    /// A budget of `limit` bytes (at least 1).
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(ByteBudget {
            limit: limit.max(1),
            used: AtomicUsize::new(0),
            out: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
            freed: Notify::new(),
        })
    }

    /// The budget in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes held right now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    /// Takes `bytes` if they fit (or if nothing is held at all, for a message larger than the budget).
    fn try_take(counter: &AtomicUsize, limit: usize, bytes: usize) -> bool {
        let mut cur = counter.load(Ordering::Acquire);
        loop {
            if cur != 0 && cur.saturating_add(bytes) > limit {
                return false;
            }
            match counter.compare_exchange_weak(
                cur,
                cur.saturating_add(bytes),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Waits until `bytes` fit in the budget, then holds them: a message read and not yet answered.
    pub async fn acquire(self: &Arc<Self>, bytes: usize) -> Charge {
        self.wait_for(|b| ByteBudget::try_take(&b.used, b.limit, bytes))
            .await;
        Charge {
            budget: Some(self.clone()),
            bytes,
            out: false,
        }
    }

    /// Waits until `bytes` fit in the output part of the budget, then holds them as a queued frame.
    pub async fn acquire_out(self: &Arc<Self>, bytes: usize) -> Charge {
        self.wait_for(|b| {
            if ByteBudget::try_take(&b.out, b.limit, bytes) {
                b.used.fetch_add(bytes, Ordering::AcqRel);
                true
            } else {
                false
            }
        })
        .await;
        Charge {
            budget: Some(self.clone()),
            bytes,
            out: true,
        }
    }

    async fn wait_for(&self, mut take: impl FnMut(&Self) -> bool) {
        if take(self) {
            return;
        }
        self.waiting.fetch_add(1, Ordering::AcqRel);
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if take(self) {
                break;
            }
            freed.await;
        }
        self.waiting.fetch_sub(1, Ordering::AcqRel);
    }

    /// Holds `bytes` without waiting: a small message whose bytes are already read (a notification that
    /// must get through, such as a cancellation).
    pub fn charge(self: &Arc<Self>, bytes: usize) -> Charge {
        self.used.fetch_add(bytes, Ordering::AcqRel);
        Charge {
            budget: Some(self.clone()),
            bytes,
            out: false,
        }
    }

    /// Holds `bytes` of a queued frame without waiting (an answer whose handler already holds it).
    pub fn charge_out(self: &Arc<Self>, bytes: usize) -> Charge {
        self.used.fetch_add(bytes, Ordering::AcqRel);
        self.out.fetch_add(bytes, Ordering::AcqRel);
        Charge {
            budget: Some(self.clone()),
            bytes,
            out: true,
        }
    }

    fn give_back(&self, bytes: usize, out: bool) {
        if bytes == 0 {
            return;
        }
        if out {
            self.out.fetch_sub(bytes, Ordering::AcqRel);
        }
        self.used.fetch_sub(bytes, Ordering::AcqRel);
        if self.waiting.load(Ordering::Acquire) > 0 {
            self.freed.notify_waiters();
        }
    }
}

impl Charge {
    /// A charge against no budget (frames that are not counted).
    pub const fn none() -> Charge {
        Charge {
            budget: None,
            bytes: 0,
            out: false,
        }
    }

    /// The bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Gives back what exceeds `bytes` (a body shorter than the length it was charged for).
    pub fn shrink_to(&mut self, bytes: usize) {
        if bytes < self.bytes {
            let excess = self.split(self.bytes - bytes);
            drop(excess);
        }
    }

    /// Splits `bytes` off this charge into a charge of its own (a batch item).
    pub fn split(&mut self, bytes: usize) -> Charge {
        let bytes = bytes.min(self.bytes);
        self.bytes -= bytes;
        Charge {
            budget: self.budget.clone(),
            bytes,
            out: self.out,
        }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        if let Some(b) = &self.budget {
            b.give_back(self.bytes, self.out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn the_reader_waits_at_the_budget_and_goes_on_once_answers_are_written() {
        let b = ByteBudget::new(100);
        let first = b.acquire(60).await;
        let second = b.acquire(40).await;
        assert_eq!(b.used(), 100);
        let waiting = tokio::spawn({
            let b = b.clone();
            async move { b.acquire(10).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "the budget is spent");
        // The first request is answered: its charge becomes the answer's, still held until written.
        let answer = b.charge_out(70);
        drop(first);
        assert_eq!(b.used(), 110);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !waiting.is_finished(),
            "an answer not yet written still counts"
        );
        drop(answer);
        let third = waiting.await.unwrap();
        assert_eq!(b.used(), 50);
        drop((second, third));
        assert_eq!(b.used(), 0);
    }

    #[tokio::test]
    async fn a_message_larger_than_the_budget_goes_through_alone() {
        let b = ByteBudget::new(100);
        let small = b.acquire(10).await;
        let big = tokio::spawn({
            let b = b.clone();
            async move { b.acquire(1000).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!big.is_finished());
        drop(small);
        let big = big.await.unwrap();
        assert_eq!(b.used(), 1000);
        drop(big);
        assert_eq!(b.used(), 0);
    }

    #[tokio::test]
    async fn output_waits_only_for_output() {
        let b = ByteBudget::new(100);
        let _requests = b.acquire(100).await;
        // Requests fill the budget, but frames a handler sends wait only for the writer.
        let note = b.acquire_out(50).await;
        assert_eq!(b.used(), 150);
        let more = tokio::spawn({
            let b = b.clone();
            async move { b.acquire_out(60).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!more.is_finished());
        drop(note);
        drop(more.await.unwrap());
        assert_eq!(b.used(), 100);
    }
}
