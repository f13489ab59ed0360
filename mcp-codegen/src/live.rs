//! Talking to a live server: start it (stdio) or reach it (HTTP), in the era it speaks (`initialize` with
//! the capabilities asked for, or 2026-07-28 with them in every request), and page through `tools/list` to
//! the end.

use crate::snapshot::{DeclaredCapabilities, Snapshot};
use mcp_runtime::protocol::{ElicitAction, ElicitParams, ElicitResult, ErrorObject, Tool};
use mcp_runtime::{Client, StderrMode};
use std::collections::BTreeSet;
use std::time::Duration;

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A command line, split like a shell would (quotes and backslashes), run with the server on its stdio.
    Stdio(String),
    /// A Streamable HTTP endpoint, with extra headers (`Authorization: Bearer ...`).
    Url {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request, as (name, value).
        headers: Vec<(String, String)>,
    },
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Stdio(cmd) => write!(f, "`{cmd}`"),
            Source::Url { url, .. } => write!(f, "{url}"),
        }
    }
}

/// Why a live server could not be snapshotted.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The `--stdio` command line has no words.
    #[error("the command line is empty")]
    EmptyCommand,
    /// The `--stdio` command line has an unmatched quote; the command line.
    #[error("the command line has an unterminated quote: {0}")]
    UnterminatedQuote(String),
    /// The server could not be started, or did not complete the handshake.
    #[error("could not connect to {source_label}: {error}")]
    Connect {
        /// The server, as the user named it (command line or URL).
        source_label: String,
        /// What went wrong.
        error: Box<mcp_runtime::Error>,
    },
    /// `tools/list` failed.
    #[error("{source_label} failed while listing its tools: {error}")]
    List {
        /// The server, as the user named it (command line or URL).
        source_label: String,
        /// What went wrong.
        error: Box<mcp_runtime::Error>,
    },
    /// The server sent a `nextCursor` it had already sent: its pagination would never end.
    #[error("{source_label} answered page after page of tools/list with a cursor it had already sent ({cursor:?})")]
    CursorLoop {
        /// The server, as the user named it (command line or URL).
        source_label: String,
        /// The cursor seen twice.
        cursor: String,
    },
    /// The server did not answer in time.
    #[error("{source_label} did not answer within {seconds} s")]
    Timeout {
        /// The server, as the user named it (command line or URL).
        source_label: String,
        /// The timeout, in seconds.
        seconds: f64,
    },
}

/// Splits a command line as a POSIX shell would, without expanding anything.
pub fn split_command(line: &str) -> Result<Vec<String>, LiveError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(LiveError::UnterminatedQuote(line.into())),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(LiveError::UnterminatedQuote(line.into())),
                        },
                        Some(c) => word.push(c),
                        None => return Err(LiveError::UnterminatedQuote(line.into())),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(LiveError::EmptyCommand);
    }
    Ok(words)
}

/// How to record a snapshot.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The capabilities to declare: servers may list different tools to different clients.
    pub capabilities: DeclaredCapabilities,
    /// The longest wait for any one answer, the handshake included.
    pub timeout: Duration,
    /// What to do with a stdio server's stderr.
    pub stderr: StderrMode,
}

impl Default for Recording {
    fn default() -> Self {
        Recording {
            capabilities: DeclaredCapabilities::default(),
            timeout: Duration::from_secs(30),
            stderr: StderrMode::Capture,
        }
    }
}

/// Connects, lists every tool and closes. `on_page` hears the number of tools so far after each page.
pub async fn record(
    source: &Source,
    recording: &Recording,
    mut on_page: impl FnMut(usize),
) -> Result<Snapshot, LiveError> {
    let label = source.to_string();
    let client = connect(source, recording).await?;
    let init = client.server().clone();
    let listed = if init.capabilities.tools.is_some() {
        list_tools(&client, &label, &mut on_page).await
    } else {
        Ok(Vec::new())
    };
    // A server that misbehaved is not owed a graceful goodbye: dropping the client kills it.
    if listed.is_ok() {
        client.close().await;
    }
    Ok(Snapshot {
        server: init.server_info,
        protocol_version: init.protocol_version,
        client_capabilities: recording.capabilities,
        tools: listed?,
    })
}

async fn list_tools(
    client: &Client,
    label: &str,
    on_page: &mut impl FnMut(usize),
) -> Result<Vec<Tool>, LiveError> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = BTreeSet::new();
    loop {
        let page = client
            .list_tools(cursor.clone())
            .await
            .map_err(|error| LiveError::List {
                source_label: label.to_string(),
                error: Box::new(error),
            })?;
        tools.extend(page.tools);
        on_page(tools.len());
        match page.next_cursor {
            Some(next) if !seen.insert(next.clone()) => {
                return Err(LiveError::CursorLoop {
                    source_label: label.to_string(),
                    cursor: next,
                })
            }
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
}

/// A connected client that declares the capabilities asked for and answers their requests with refusals
/// (sampling), declines (elicitation) and an empty list (roots).
pub async fn connect(source: &Source, recording: &Recording) -> Result<Client, LiveError> {
    let label = source.to_string();
    // The client finds the server's era itself (a 2026-07-28 server has no handshake): half the time
    // allowed for an answer goes to the `server/discover` probe, so that a silent server still fails
    // within the limit below.
    let mut builder = Client::builder()
        .name("mcp-codegen")
        .version(env!("CARGO_PKG_VERSION"))
        .timeout(Some(recording.timeout))
        .probe_timeout(recording.timeout / 2)
        .stderr(recording.stderr);
    let caps = recording.capabilities;
    if caps.roots {
        builder = builder.roots(Vec::new());
    }
    if caps.sampling {
        builder = builder.sampling(|_params| async {
            Err::<mcp_runtime::protocol::CreateMessageResult, _>(ErrorObject::new(
                -1,
                "mcp-codegen does not sample",
            ))
        });
    }
    if caps.elicitation {
        builder = builder.elicitation(|_params: ElicitParams| async {
            Ok(ElicitResult {
                action: ElicitAction::Decline,
                content: None,
                meta: None,
            })
        });
    }
    // The request timeout covers each answer; this one covers a server that accepts the connection and then
    // never finishes the handshake in some other way.
    let limit = recording.timeout + Duration::from_secs(1);
    let connecting = async {
        match source {
            Source::Stdio(line) => {
                let words = split_command(line)?;
                let mut cmd = tokio::process::Command::new(&words[0]);
                cmd.args(&words[1..]);
                builder
                    .spawn(cmd)
                    .await
                    .map_err(|error| LiveError::Connect {
                        source_label: label.clone(),
                        error: Box::new(error),
                    })
            }
            Source::Url { url, headers } => connect_http(builder, url, headers, &label).await,
        }
    };
    match tokio::time::timeout(limit, connecting).await {
        Ok(result) => result,
        Err(_) => Err(LiveError::Timeout {
            source_label: label.clone(),
            seconds: recording.timeout.as_secs_f64(),
        }),
    }
}

async fn connect_http(
    builder: mcp_runtime::ClientBuilder,
    url: &str,
    headers: &[(String, String)],
    label: &str,
) -> Result<Client, LiveError> {
    let mut config = mcp_runtime::http::HttpClientConfig {
        // Codegen lists tools and leaves; it has no use for server-initiated messages.
        open_get_stream: false,
        ..Default::default()
    };
    for (name, value) in headers {
        config = config.header(name.clone(), value.clone());
    }
    builder
        .connect_http(url, config)
        .await
        .map_err(|error| LiveError::Connect {
            source_label: label.to_string(),
            error: Box::new(error),
        })
}

/// A raw connection to a server, with nothing of the runtime's `Client` on top: what is sent through
/// [`Upstream::peer`] reaches the server as it is (`initialize` included), for `record` and `verify`.
pub enum Upstream {
    /// A child process on its stdio, killed when this is dropped.
    Child(mcp_runtime::client::ChildPeer),
    /// A Streamable HTTP endpoint, and the task that drives its transport.
    Http(mcp_runtime::Peer, tokio::task::JoinHandle<()>),
}

impl Upstream {
    /// The connection.
    pub fn peer(&self) -> &mcp_runtime::Peer {
        match self {
            Upstream::Child(c) => &c.peer,
            Upstream::Http(p, _) => p,
        }
    }

    /// Lets a child server exit on its own (stdin closed) for up to `grace`, then kills it.
    pub async fn shutdown(self, grace: Duration) {
        match self {
            Upstream::Child(c) => c.shutdown(grace).await,
            Upstream::Http(_, io) => io.abort(),
        }
    }
}

/// Opens a raw connection to `source`; `handler` answers the server's requests and takes its
/// notifications. Requests sent through it wait without a time limit unless they set one.
pub async fn open_peer(
    source: &Source,
    stderr: StderrMode,
    handler: std::sync::Arc<dyn mcp_runtime::connection::Handler>,
) -> Result<Upstream, LiveError> {
    let label = source.to_string();
    let config = mcp_runtime::ConnectionConfig {
        request_timeout: None,
        ..Default::default()
    };
    let connect_error = |error| LiveError::Connect {
        source_label: label.clone(),
        error: Box::new(error),
    };
    match source {
        Source::Stdio(line) => {
            let words = split_command(line)?;
            let mut cmd = tokio::process::Command::new(&words[0]);
            cmd.args(&words[1..]);
            mcp_runtime::client::spawn_peer(cmd, stderr, config, handler)
                .map(Upstream::Child)
                .map_err(connect_error)
        }
        Source::Url { url, headers } => {
            let mut http = mcp_runtime::http::HttpClientConfig::default();
            for (name, value) in headers {
                http = http.header(name.clone(), value.clone());
            }
            mcp_runtime::http::connect_peer(url, http, config, handler)
                .await
                .map(|(peer, io)| Upstream::Http(peer, io))
                .map_err(connect_error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(split_command("npx -y  pkg").unwrap(), ["npx", "-y", "pkg"]);
        assert_eq!(
            split_command(r#"sh -c 'echo "a b"' "c d" e\ f"#).unwrap(),
            ["sh", "-c", "echo \"a b\"", "c d", "e f"]
        );
        assert_eq!(split_command(r#""" x"#).unwrap(), ["", "x"]);
        assert!(matches!(split_command("  "), Err(LiveError::EmptyCommand)));
        assert!(matches!(
            split_command("a 'b"),
            Err(LiveError::UnterminatedQuote(_))
        ));
    }
}
