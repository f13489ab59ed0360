//! A server run as a child process: spawning, stderr capture, and telling why it went away.

use crate::error::Error;
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// What happens to a child server's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StderrMode {
    /// Passed through to our stderr.
    Inherit,
    /// Passed through, and its last 8 KiB kept to explain a crash.
    Capture,
    /// Only its last 8 KiB kept to explain a crash, never passed through (a child that may print
    /// secrets, whose explanation the caller redacts).
    Tail,
    /// Discarded.
    Null,
}

const TAIL: usize = 8 * 1024;

pub(crate) struct ChildGuard {
    pub(crate) pid: Option<u32>,
    child: Arc<tokio::sync::Mutex<Child>>,
    tail: Arc<Mutex<VecDeque<u8>>>,
    stderr_done: tokio::sync::watch::Receiver<bool>,
}

/// Explains the end of the connection from the child's exit status and stderr tail.
pub(crate) struct ReasonSource {
    child: Arc<tokio::sync::Mutex<Child>>,
    tail: Arc<Mutex<VecDeque<u8>>>,
    /// Turns true once the child's stderr is read to its end (at once when it is not captured).
    stderr_done: tokio::sync::watch::Receiver<bool>,
}

/// How long the end of a child is waited for, once its pipes say it is going: its exit status, then the
/// rest of its stderr (a grandchild may hold stderr open for longer).
const SETTLE: Duration = Duration::from_millis(50);

pub(crate) fn spawn(
    cmd: &mut Command,
    stderr: StderrMode,
) -> Result<(ChildGuard, ChildStdout, ChildStdin), Error> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    cmd.stderr(match stderr {
        StderrMode::Inherit => Stdio::inherit(),
        StderrMode::Capture | StderrMode::Tail => Stdio::piped(),
        StderrMode::Null => Stdio::null(),
    });
    let program = cmd.as_std().get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Io(format!("could not start `{program}`: {e}")))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| Error::Io("child has no stdout".into()))?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| Error::Io("child has no stdin".into()))?;
    let tail = Arc::new(Mutex::new(VecDeque::with_capacity(TAIL)));
    let (done_tx, stderr_done) = tokio::sync::watch::channel(true);
    if let Some(mut err) = child.stderr.take() {
        let tail = tail.clone();
        let pass = stderr == StderrMode::Capture;
        done_tx.send_replace(false);
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            let mut out = tokio::io::stderr();
            while let Ok(n) = err.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if pass {
                    let _ = tokio::io::AsyncWriteExt::write_all(&mut out, &buf[..n]).await;
                }
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.extend(&buf[..n]);
                let excess = t.len().saturating_sub(TAIL);
                t.drain(..excess);
            }
            done_tx.send_replace(true);
        });
    }
    let pid = child.id();
    Ok((
        ChildGuard {
            pid,
            child: Arc::new(tokio::sync::Mutex::new(child)),
            tail,
            stderr_done,
        },
        stdout,
        stdin,
    ))
}

/// A server run as a child process on a raw connection, with nothing of [`Client`](super::Client) on
/// top: what is sent through [`ChildPeer::peer`] reaches the child's stdin as it is, and the handler given
/// to [`spawn_peer`] answers the child's requests and takes its notifications. For relays and recorders
/// that pass a client's messages on unchanged, `initialize` included. The child is killed when this is
/// dropped.
pub struct ChildPeer {
    /// The connection to the child.
    pub peer: crate::connection::Peer,
    guard: ChildGuard,
    io: tokio::task::JoinHandle<()>,
}

impl ChildPeer {
    /// The child's process id.
    pub fn pid(&self) -> Option<u32> {
        self.guard.pid
    }

    /// Closes the child's stdin, gives it `grace` to exit, then kills it.
    pub async fn shutdown(mut self, grace: Duration) {
        self.io.abort();
        self.peer.close("closed by the client".into());
        self.guard.shutdown(grace).await;
    }
}

impl Drop for ChildPeer {
    fn drop(&mut self) {
        self.io.abort();
        self.guard.kill();
    }
}

/// Starts `cmd` with its stdio as a connection driven by the runtime's pump. When the child's output
/// ends, the peer closes with the reason: its exit status and the tail of its stderr (which `stderr`
/// decides the fate of).
pub fn spawn_peer(
    mut cmd: Command,
    stderr: StderrMode,
    config: crate::connection::ConnectionConfig,
    handler: Arc<dyn crate::connection::Handler>,
) -> Result<ChildPeer, Error> {
    let (guard, stdout, stdin) = spawn(&mut cmd, stderr)?;
    let (peer, rx) = crate::connection::Peer::new(config);
    let io = guard
        .reason_source()
        .drive(stdout, stdin, rx, peer.clone(), handler);
    Ok(ChildPeer { peer, guard, io })
}

impl ChildGuard {
    pub(crate) fn reason_source(&self) -> ReasonSource {
        ReasonSource {
            child: self.child.clone(),
            tail: self.tail.clone(),
            stderr_done: self.stderr_done.clone(),
        }
    }

    pub(crate) fn kill(&mut self) {
        if let Ok(mut c) = self.child.try_lock() {
            let _ = c.start_kill();
        }
    }

    /// Closes stdin (already done by dropping the writer), waits up to `grace`, then kills.
    pub(crate) async fn shutdown(&mut self, grace: Duration) {
        let mut c = self.child.lock().await;
        if tokio::time::timeout(grace, c.wait()).await.is_err() {
            let _ = c.start_kill();
            let _ = c.wait().await;
        }
    }
}

impl ReasonSource {
    /// Pumps the child's pipes as `peer`'s connection. When its output ends, or its input fails (the
    /// child died while we wrote to it), the connection closes with [`ReasonSource::describe`]'s reason.
    pub(crate) fn drive(
        self,
        stdout: ChildStdout,
        stdin: ChildStdin,
        rx: tokio::sync::mpsc::Receiver<crate::connection::Outgoing>,
        peer: crate::connection::Peer,
        handler: Arc<dyn crate::connection::Handler>,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut writer = tokio::spawn(crate::connection::write_until_failed(rx, stdin));
            let read = crate::connection::read_loop(stdout, &peer, &handler);
            tokio::pin!(read);
            let why = tokio::select! {
                why = &mut read => why,
                wrote = &mut writer => match wrote {
                    // The child stopped reading, most often because it exited: what it wrote before
                    // going is still in the pipe, and answers to requests already sent are delivered.
                    Ok(Some(e)) => {
                        let _ = tokio::time::timeout(SETTLE, &mut read).await;
                        format!("output closed: {e}")
                    }
                    // Every sender is gone: the input ends when the child has answered and gone.
                    _ => read.await,
                },
            };
            let reason = self.describe(&why).await;
            peer.close(reason);
            handler.closed();
            writer.abort();
        })
    }

    pub(crate) async fn describe(&self, why: &str) -> String {
        // The pipe usually closes a moment before the exit status is ready, and stderr's last lines may
        // still be on their way to the tail.
        let status = {
            let mut c = self.child.lock().await;
            match tokio::time::timeout(SETTLE, c.wait()).await {
                Ok(Ok(s)) => Some(s),
                _ => None,
            }
        };
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(SETTLE, done.wait_for(|d| *d)).await;
        let mut msg = match status {
            Some(s) => format!("the server process exited ({s})"),
            None => format!("the server closed its output ({why})"),
        };
        let tail = {
            let t = self.tail.lock().unwrap_or_else(|e| e.into_inner());
            String::from_utf8_lossy(&t.iter().copied().collect::<Vec<u8>>())
                .trim()
                .to_string()
        };
        if !tail.is_empty() {
            let lines: Vec<&str> = tail.lines().collect();
            let start = lines.len().saturating_sub(10);
            msg.push_str("; stderr ends with:\n");
            msg.push_str(&lines[start..].join("\n"));
        }
        msg
    }
}
