//! `record`: a stdio server for any client that relays every message both ways, unchanged, to the
//! server being recorded (a child on its stdio, or a Streamable HTTP endpoint), and writes the session
//! as the client saw it (see [`crate::recording`]).
//!
//! Both sides are connections of the runtime's pump: the client's on our stdio, the server's from
//! [`crate::live::open_peer`]. A request from one side becomes a request to the other under the same id
//! (the pump routes the answer back), a notification is passed on, a progress notification
//! keeps the token the client chose, and a client's `notifications/cancelled` drops the relayed request,
//! which tells the server with `notifications/cancelled` of its own id. What is recorded is taken from
//! the client's byte streams, so the recording holds exactly what crossed them.

use crate::live::{open_peer, LiveError, Source, Upstream};
use crate::recording::{Direction, Header, Held, Recorded, Recorder, Redactor};
use mcp_runtime::connection::{self, Handler, Reply, RequestIn, RequestOptions};
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::serde_json::value::RawValue;
use mcp_runtime::{ConnectionConfig, Peer, StderrMode};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Passes every request and notification of one side on to the other, under the same id: the other
/// side's connection carries only relayed requests, and an id can be what a message names (a 2026
/// `subscriptions/listen` stream is known by its request's id).
pub struct Relay {
    to: Peer,
}

impl Relay {
    /// Relays to `to`.
    pub fn new(to: Peer) -> Self {
        Relay { to }
    }
}

/// A relayed request's failure as the asking side sees it: the other side's JSON-RPC error unchanged,
/// anything else (the server went away) as `-32603` with the reason.
pub fn as_error_object(e: mcp_runtime::Error) -> ErrorObject {
    match e {
        mcp_runtime::Error::Rpc(e) => e,
        other => ErrorObject::internal(other.to_string()),
    }
}

impl Handler for Relay {
    fn request(&self, req: RequestIn<'_>) -> Reply {
        let to = self.to.clone();
        let id = req.id.clone();
        let method = req.method.to_string();
        let params = req.params.map(|p| p.to_owned());
        let cancellable = method != "initialize";
        Reply::Spawn {
            fut: Box::pin(async move {
                to.request_with_id(id, &method, params.as_deref(), RequestOptions::default())
                    .await
                    .map_err(as_error_object)
            }),
            cancellable,
        }
    }

    fn notification(&self, method: &str, params: Option<&RawValue>) {
        self.to.try_notify(method, params, None);
    }
}

/// What to record, and how.
pub struct RecordOptions {
    /// The server.
    pub source: Source,
    /// Environment variables whose values never reach the recording.
    pub redact_env: Vec<String>,
    /// What to do with a child server's stderr (our stdout belongs to the protocol alone).
    pub stderr: StderrMode,
}

impl RecordOptions {
    /// The recording's header and the redactor of its secrets: the named environment variables' values
    /// and every `--header` value (tokens) of an HTTP server.
    pub fn header_and_redactor(&self) -> (Header, Redactor) {
        let mut redacted = Vec::new();
        let mut secrets = Vec::new();
        for name in &self.redact_env {
            redacted.push(format!("env {name}"));
            if let Ok(v) = std::env::var(name) {
                secrets.push(v);
            }
        }
        let server = match &self.source {
            Source::Stdio(cmd) => Recorded::Stdio(cmd.clone()),
            Source::Url { url, headers } => {
                for (name, value) in headers {
                    redacted.push(format!("header {name}"));
                    secrets.push(value.clone());
                    // `Bearer TOKEN`: the token alone may appear elsewhere (an echo tool, an error).
                    if let Some((_, token)) = value.split_once(' ') {
                        secrets.push(token.trim().to_string());
                    }
                }
                Recorded::Url(url.clone())
            }
        };
        let header = Header {
            version: crate::recording::FORMAT_VERSION,
            server,
            redacted,
        };
        (header, Redactor::new(secrets))
    }
}

/// Records a session between the client on `reader`/`writer` and the server, until the client ends its
/// input or the server goes away. Returns why it ended.
pub async fn record_session<R, W>(
    options: &RecordOptions,
    recorder: Arc<Recorder>,
    reader: R,
    writer: W,
    output_gone: Option<connection::OutputProbe>,
) -> Result<String, LiveError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let config = ConnectionConfig {
        request_timeout: None,
        ..Default::default()
    };
    let (client, client_rx) = Peer::new(config);
    let upstream: Upstream = open_peer(
        &options.source,
        options.stderr,
        Arc::new(Relay::new(client.clone())),
    )
    .await?;
    let handler: Arc<dyn Handler> = Arc::new(Relay::new(upstream.peer().clone()));
    let reader = Tee::new(reader, recorder.clone(), Direction::ClientToServer);
    let writer = Tee::new(writer, recorder, Direction::ServerToClient);
    let server = upstream.peer().clone();
    let ended = tokio::select! {
        why = connection::run_with_probe(reader, writer, client.clone(), client_rx, handler, output_gone) => {
            format!("the client ended the session ({why})")
        }
        _ = server.closed() => {
            // Whatever the server's end failed is answered to the client before we go.
            client.drain(Duration::from_secs(1)).await;
            format!("the server went away: {}", server.close_reason())
        }
    };
    upstream.shutdown(Duration::from_secs(2)).await;
    Ok(ended)
}

/// A byte stream that records each complete line that crosses it.
pub struct Tee<S> {
    inner: S,
    recorder: Arc<Recorder>,
    dir: Direction,
    line: Vec<u8>,
    /// Set while a line longer than the runtime's largest message is skipped.
    skipping: bool,
}

impl<S> Tee<S> {
    /// Records what crosses `inner` as messages going `dir`.
    pub fn new(inner: S, recorder: Arc<Recorder>, dir: Direction) -> Self {
        Tee {
            inner,
            recorder,
            dir,
            line: Vec::new(),
            skipping: false,
        }
    }

    fn saw(&mut self, held: &mut Held<'_>, mut bytes: &[u8]) {
        let max = ConnectionConfig::default().max_message_bytes;
        while let Some(end) = memchr_newline(bytes) {
            if !self.skipping {
                self.line.extend_from_slice(&bytes[..end]);
                held.record(self.dir, &self.line);
            }
            self.line.clear();
            self.skipping = false;
            bytes = &bytes[end + 1..];
        }
        if !self.skipping {
            self.line.extend_from_slice(bytes);
            if self.line.len() > max {
                // The pump refuses such a line too; keeping it would only hold memory.
                self.line = Vec::new();
                self.skipping = true;
            }
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

impl<S: AsyncRead + Unpin> AsyncRead for Tee<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let new = buf.filled()[before..].to_vec();
            let recorder = this.recorder.clone();
            this.saw(&mut recorder.hold(), &new);
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tee<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let recorder = this.recorder.clone();
        // Held across the write: the peer's answer to it is read, and recorded, after.
        let mut held = recorder.hold();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &polled {
            this.saw(&mut held, &buf[..*n]);
        }
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let recorder = this.recorder.clone();
        let mut held = recorder.hold();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = &polled {
            let mut left = *n;
            for b in bufs {
                if left == 0 {
                    break;
                }
                let take = left.min(b.len());
                this.saw(&mut held, &b[..take]);
                left -= take;
            }
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
