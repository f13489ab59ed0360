//! How one connection is tuned: its concurrency, timeouts and byte budget.

use super::*;

/// Tuning of one connection.
#[derive(Debug, Clone)]
pub struct ConnectionConfig {
    /// Requests handled at once. Up to as many again wait for a slot (cancellations still reach them);
    /// beyond that the reader stops reading.
    pub max_concurrent_requests: usize,
    /// How long a cancelled handler may keep running before it is aborted.
    pub cancel_grace: Duration,
    /// Longest accepted message; a longer line is answered with a parse error and skipped.
    pub max_message_bytes: usize,
    /// Default time limit of requests we send; `None` waits forever.
    pub request_timeout: Option<Duration>,
    /// After the input ends, how long in-flight requests may still finish and be written.
    pub drain_timeout: Duration,
    /// Bytes of requests read but not yet answered plus answers queued but not yet written; at the budget
    /// the reader stops reading. A single message larger than the budget still goes through, alone.
    /// Notifications from the peer are handled as they are read and hold nothing. An HTTP server shares
    /// one budget among all its sessions and the request bodies being read (bodies up to 4 KiB never
    /// wait, so that cancellations get through).
    pub max_buffered_bytes: usize,
    /// Poll each handler once on the reader before giving it a task: one that finishes without waiting
    /// costs no task spawn. A handler that computes for long without awaiting then holds up the reader
    /// (and every request behind it) meanwhile; turn this off if your handlers do that and you cannot
    /// move the work to `spawn_blocking`.
    pub inline_first_poll: bool,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            max_concurrent_requests: 1024,
            cancel_grace: Duration::from_secs(2),
            max_message_bytes: 64 * 1024 * 1024,
            request_timeout: Some(Duration::from_secs(60)),
            drain_timeout: Duration::from_secs(10),
            max_buffered_bytes: 16 * 1024 * 1024,
            inline_first_poll: true,
        }
    }
}
