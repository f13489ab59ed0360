//! Testing servers and clients in one process (feature `testing`, for dev-dependencies).
//!
//! [`connect`] joins a [`Server`] to a [`Client`] over an in-memory pipe, each side on the runtime's own
//! pump, in the era the test chooses; the [`InProcess`] it returns holds both and ends the session when
//! it drops. On top of it sit the checks tests make most: a tool's structured result as a type
//! ([`InProcess::call_tool_as`]), the progress and log messages a call received ([`InProcess::observe_call`]),
//! the tool names ([`InProcess::tool_names`]), an error's code and message ([`ExpectError`]), and `insta`
//! snapshots of `tools/list` and of results with what changes between runs redacted
//! ([`assert_tools_snapshot!`](crate::assert_tools_snapshot), [`assert_result_snapshot!`](crate::assert_result_snapshot)).
//!
//! ```
//! use mcp_runtime::testing::{self, ExpectError};
//! use mcp_runtime::{protocol::codes, tool, Era, JsonSchema, Server};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
//! struct Sum {
//!     sum: i64,
//! }
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> Sum {
//!     Sum { sum: a + b }
//! }
//!
//! # #[mcp_runtime::tokio::main(crate = "mcp_runtime::tokio", flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_runtime::Error> {
//! let server = Server::builder().tool(add_tool()).build().expect("a valid server");
//! for era in [Era::Legacy, Era::Modern] {
//!     let mcp = testing::connect(server.clone(), era).await?;
//!     assert_eq!(mcp.tool_names().await?, ["add"]);
//!     let sum: Sum = mcp.call_tool_as("add", serde_json::json!({"a": 2, "b": 3})).await?;
//!     assert_eq!(sum, Sum { sum: 5 });
//!     mcp.call_tool("nope", serde_json::json!({}))
//!         .await
//!         .expect_error(codes::INVALID_PARAMS, "nope");
//! }
//! # Ok(())
//! # }
//! ```

mod call;
mod expect;
mod snapshot;

pub use call::Observed;
pub use expect::ExpectError;
pub use snapshot::{snapshot_settings, REDACTED_KEYS};

/// `insta`, re-exported for the snapshot macros: a test crate needs no `insta` dependency of its own.
pub use insta;

use crate::client::{ClientBuilder, Era};
use crate::error::Error;
use crate::{Client, Server};
use std::ops::Deref;

/// Bytes the in-memory pipe holds in each direction before a writer waits for its reader.
const PIPE_BYTES: usize = 256 * 1024;

/// A server and a client joined in-process. Derefs to the [`Client`]; dropping it closes the client's
/// connection, after which the server sees its input end and finishes as it would on stdio.
pub struct InProcess {
    client: Client,
    server: Server,
}

/// Serves `server` to a client that speaks `era` ([`Era::Legacy`]: `initialize` first, as the
/// handshake-era clients do; [`Era::Modern`]: 2026-07-28, every request standing alone; [`Era::Auto`]:
/// negotiated, as a real client would).
pub async fn connect(server: Server, era: Era) -> Result<InProcess, Error> {
    connect_with(server, Client::builder().era(era)).await
}

/// [`connect`] with a client of the test's own making (its handlers for sampling, elicitation and
/// roots, its name, a timeout...).
pub async fn connect_with(server: Server, client: ClientBuilder) -> Result<InProcess, Error> {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (read, write) = tokio::io::split(theirs);
    let serving = server.clone();
    tokio::spawn(async move {
        let why = serving.serve(read, write).await;
        tracing::debug!(%why, "in-process server finished");
    });
    let (read, write) = tokio::io::split(ours);
    let client = client.connect(read, write).await?;
    Ok(InProcess { client, server })
}

impl InProcess {
    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The server being served (a clone of the one given: changing its tools reaches this session).
    pub fn server(&self) -> &Server {
        &self.server
    }
}

impl Deref for InProcess {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        // The client's reader stops and its writer with it; the server then reads the end of its input.
        self.client.peer().close("the test ended".into());
    }
}
