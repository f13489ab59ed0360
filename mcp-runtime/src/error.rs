//! The error type of calls made through a [`crate::Peer`] or [`crate::Client`].

use crate::protocol::ErrorObject;
use std::time::Duration;

/// Why a call through a [`crate::Peer`] or [`crate::Client`] failed.
#[derive(Debug, Clone)]
pub enum Error {
    /// The peer answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The connection is gone; the text says why (for a child process: its exit status and stderr tail).
    Closed(String),
    /// No answer in time; `notifications/cancelled` was sent.
    Timeout {
        /// The request's method.
        method: String,
        /// How long it waited.
        after: Duration,
    },
    /// The result could not be decoded into the expected type.
    Decode {
        /// The request's method.
        method: String,
        /// serde's message.
        reason: String,
    },
    /// The peer did not declare the capability this request needs.
    CapabilityMissing(&'static str),
    /// A tool answered with `isError: true`.
    Tool(String),
    /// The transport failed: an I/O error, an HTTP error, an invalid URL or header; the text says which.
    Io(String),
    /// The peer broke the protocol (an answer that does not fit the request, a task that ended without a
    /// result...); the text says how.
    Protocol(String),
    /// Content read from the server is not what it promised (a skill file whose size, digest or front
    /// matter differs from its manifest entry); it was not used.
    Verification(String),
    /// A 2026-07-28 server asked for input (elicitation, sampling, roots) that this client could not give:
    /// no handler for it, or the handler failed. The call is not retried.
    InputRequest {
        /// The key the server gave the input request.
        key: String,
        /// Its method (`elicitation/create`, `sampling/createMessage`, `roots/list`).
        method: String,
        /// Why it could not be answered.
        error: ErrorObject,
    },
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

impl From<ErrorObject> for Error {
    fn from(e: ErrorObject) -> Self {
        Error::Rpc(e)
    }
}

/// `std::result::Result` with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Rpc(e) => write!(f, "the peer answered with an error: {e}"),
            Error::Closed(why) => write!(f, "connection closed: {why}"),
            Error::Timeout { method, after } => write!(f, "{method} timed out after {after:?}"),
            Error::Decode { method, reason } => {
                write!(f, "could not decode the result of {method}: {reason}")
            }
            Error::CapabilityMissing(c) => {
                write!(f, "the peer did not declare the `{c}` capability")
            }
            Error::Tool(text) => write!(f, "the tool reported an error: {text}"),
            Error::Io(text) => f.write_str(text),
            Error::Protocol(text) => write!(f, "protocol error: {text}"),
            Error::Verification(text) => write!(f, "verification failed: {text}"),
            Error::InputRequest { key, method, error } => write!(
                f,
                "could not answer the server's {method} input request {key:?}: {error}"
            ),
        }
    }
}

impl std::error::Error for Error {}
