//! Checking that a call failed the way it should.

use crate::error::Error;
use crate::protocol::ErrorObject;
use std::fmt::Debug;

/// Asserts that a call failed with a JSON-RPC error of a given code whose message contains a given text.
///
/// An assertion, as `assert_eq!` is: it panics, with the whole outcome in the message, when the call
/// succeeded, failed otherwise (a closed connection, a timeout, a tool's own `isError` result), or failed
/// with another code or message. A 2026-07-28 input request the client could not answer counts as the
/// error it answered with.
pub trait ExpectError {
    /// The error, for further checks (its `data`), once it matched.
    fn expect_error(self, code: i32, contains: &str) -> ErrorObject;
}

impl<T: Debug> ExpectError for Result<T, Error> {
    #[track_caller]
    fn expect_error(self, code: i32, contains: &str) -> ErrorObject {
        let e = match self {
            Err(Error::Rpc(e)) | Err(Error::InputRequest { error: e, .. }) => e,
            Err(other) => panic!(
                "expected a JSON-RPC error {code} containing {contains:?}, got another failure: {other}"
            ),
            Ok(value) => panic!(
                "expected a JSON-RPC error {code} containing {contains:?}, the call succeeded: {value:?}"
            ),
        };
        assert!(
            e.code == code && e.message.contains(contains),
            "expected a JSON-RPC error {code} containing {contains:?}, got {}: {:?}",
            e.code,
            e.message
        );
        e
    }
}
