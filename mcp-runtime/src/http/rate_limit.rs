//! Rate limits per client (the token's subject, else the address) and per tool, answered with 429 and
//! `Retry-After`. Off unless configured.
//!
//! Each limit is a GCRA (a token bucket kept as one instant per key: the "theoretical arrival time"), so
//! a client costs one map entry whatever its rate; entries whose bucket is full again are dropped, and
//! the map never holds more than [`RateLimits::max_tracked`] keys.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `burst` requests at once, refilled evenly over `period` (so `burst / period` sustained).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Requests allowed at once, after a quiet period (at least 1).
    pub burst: u32,
    /// The time over which `burst` requests are refilled.
    pub period: Duration,
}

impl Quota {
    /// `burst` requests per `period` (a zero `burst` or `period` is raised to the least there is).
    pub fn new(burst: u32, period: Duration) -> Self {
        Quota {
            burst: burst.max(1),
            period: period.max(Duration::from_nanos(1)),
        }
    }
    /// `n` requests per second, all of them allowed at once.
    pub fn per_second(n: u32) -> Self {
        Quota::new(n, Duration::from_secs(1))
    }
    /// `n` requests per minute, all of them allowed at once.
    pub fn per_minute(n: u32) -> Self {
        Quota::new(n, Duration::from_secs(60))
    }
    /// The time one request's budget takes to come back.
    fn interval(&self) -> Duration {
        self.period / self.burst
    }
}

/// Which limits apply. `Default` limits nothing.
#[derive(Debug, Clone)]
pub struct RateLimits {
    /// Every request of one client to the MCP endpoints.
    pub per_client: Option<Quota>,
    /// `tools/call` of one tool by one client, by tool name.
    pub per_tool: HashMap<String, Quota>,
    /// `tools/call` of any tool not in `per_tool`, by one client.
    pub default_per_tool: Option<Quota>,
    /// A header naming the client's address when behind a proxy (`x-forwarded-for`: its last entry,
    /// the one the proxy added). Only set it behind a proxy that sets the header, or clients choose
    /// their own key.
    pub client_address_header: Option<String>,
    /// The most clients (or client-tool pairs) tracked at once: beyond, new ones are refused (429)
    /// until buckets refill, so that memory stays bounded under a flood of addresses.
    pub max_tracked: usize,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            per_client: None,
            per_tool: HashMap::new(),
            default_per_tool: None,
            client_address_header: None,
            max_tracked: 100_000,
        }
    }
}

impl RateLimits {
    /// Limits every request of one client to the MCP endpoints.
    pub fn per_client(mut self, q: Quota) -> Self {
        self.per_client = Some(q);
        self
    }
    /// Limits `tools/call` of the tool `name` by one client (beyond [`RateLimits::default_per_tool`]).
    pub fn tool(mut self, name: impl Into<String>, q: Quota) -> Self {
        self.per_tool.insert(name.into(), q);
        self
    }
    /// Limits `tools/call` of each tool not named with [`RateLimits::tool`], by one client.
    pub fn default_per_tool(mut self, q: Quota) -> Self {
        self.default_per_tool = Some(q);
        self
    }
}

/// Who a request is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ClientKey {
    Subject(String),
    Address(IpAddr),
    /// Neither a subject nor an address (a router mounted without connect info).
    Unknown,
}

/// The keyed GCRA state of one kind of limit.
struct Buckets<K> {
    /// Key → the instant at which its bucket is full again.
    tat: Mutex<HashMap<K, Instant>>,
    cap: usize,
}

impl<K: Hash + Eq + Clone> Buckets<K> {
    fn new(cap: usize) -> Self {
        Buckets {
            tat: Mutex::new(HashMap::new()),
            cap: cap.max(1),
        }
    }

    /// Takes one request from `key`'s bucket, or says how long until one is available.
    fn take(&self, key: &K, q: Quota, now: Instant) -> Result<(), Duration> {
        let interval = q.interval();
        let tolerance = q.period.saturating_sub(interval);
        let mut map = self.tat.lock().unwrap_or_else(|e| e.into_inner());
        if !map.contains_key(key) && map.len() >= self.cap {
            map.retain(|_, t| *t > now);
            if map.len() >= self.cap {
                return Err(interval);
            }
        }
        let tat = map.get(key).copied().unwrap_or(now).max(now);
        let ahead = tat - now;
        if ahead > tolerance {
            return Err(ahead - tolerance);
        }
        map.insert(key.clone(), tat + interval);
        Ok(())
    }
}

/// The limits of one server and their state.
pub(crate) struct Limiter {
    pub(crate) config: RateLimits,
    clients: Buckets<ClientKey>,
    tools: Buckets<(ClientKey, String)>,
}

impl Limiter {
    pub(crate) fn new(config: RateLimits) -> Self {
        Limiter {
            clients: Buckets::new(config.max_tracked),
            tools: Buckets::new(config.max_tracked),
            config,
        }
    }

    /// One request of `client`: `Err(wait)` when over its limit.
    pub(crate) fn request(&self, client: &ClientKey) -> Result<(), Duration> {
        match self.config.per_client {
            Some(q) => self.clients.take(client, q, Instant::now()),
            None => Ok(()),
        }
    }

    /// One `tools/call` of `tool` by `client`.
    pub(crate) fn tool_call(&self, client: &ClientKey, tool: &str) -> Result<(), Duration> {
        let q = self
            .config
            .per_tool
            .get(tool)
            .or(self.config.default_per_tool.as_ref());
        match q {
            Some(q) => self
                .tools
                .take(&(client.clone(), tool.to_string()), *q, Instant::now()),
            None => Ok(()),
        }
    }
}

/// `Retry-After` in whole seconds, rounded up (never 0: a client retrying at once would be refused again).
pub(crate) fn retry_after_secs(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_one_request_per_interval() {
        let b = Buckets::new(10);
        let q = Quota::new(3, Duration::from_secs(3));
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(b.take(&1, q, t0).is_ok());
        }
        let wait = b.take(&1, q, t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(1));
        assert!(b.take(&2, q, t0).is_ok(), "another key has its own bucket");
        assert!(b.take(&1, q, t0 + Duration::from_secs(1)).is_ok());
        assert!(b.take(&1, q, t0 + Duration::from_secs(1)).is_err());
    }

    #[test]
    fn the_map_stays_bounded() {
        let b = Buckets::new(2);
        let q = Quota::per_second(1);
        let t0 = Instant::now();
        assert!(b.take(&1, q, t0).is_ok());
        assert!(b.take(&2, q, t0).is_ok());
        assert!(b.take(&3, q, t0).is_err(), "full: a new key waits");
        assert!(
            b.take(&3, q, t0 + Duration::from_secs(2)).is_ok(),
            "refilled buckets are dropped to make room"
        );
        assert!(b.tat.lock().unwrap().len() <= 2);
    }

    #[test]
    fn retry_after_rounds_up() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(2)), 2);
        assert_eq!(retry_after_secs(Duration::from_millis(2001)), 3);
    }
}
