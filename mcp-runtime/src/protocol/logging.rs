//! Logging: `logging/setLevel` and `notifications/message`.

use serde::{Deserialize, Serialize};

/// Syslog severities, lowest first, so `level >= min` filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// The level's rank, 0 (`Debug`) to 7 (`Emergency`).
    pub fn as_u8(self) -> u8 {
        self as u8
    }
    /// The level of a rank from [`as_u8`](Self::as_u8); `None` above 7.
    pub fn from_u8(v: u8) -> Option<Self> {
        use LoggingLevel::*;
        [
            Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency,
        ]
        .get(v as usize)
        .copied()
    }
}

/// Params of `logging/setLevel` (handshake era; in 2026-07-28 the level rides each request's `_meta`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelParams {
    /// The lowest level the client wants to receive.
    pub level: LoggingLevel,
}

/// `notifications/message`: note the payload is `data`, not `message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    /// The message's severity.
    pub level: LoggingLevel,
    /// The name of the logger that emitted it; `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The payload: any JSON, a string or an object.
    pub data: serde_json::Value,
}
