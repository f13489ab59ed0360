//! The one writer of a connection: it drains whatever is queued into one (vectored) write and one flush.
//!
//! It is driven by its own task, and on a byte stream also from the reader's side, so that an answer
//! does not wait for a hop through the writer's task:
//! - an answer found with nothing queued or being written, while the reader holds no further input, is
//!   written at once by whoever produced it ([`WriteNow`]; a sequential client's call);
//! - otherwise it is queued, and when the reader has handled every line it read and is about to wait
//!   for more, it writes what those lines produced, in one write ([`WriteSide::write_ready`]; a
//!   pipelining client's calls).
//!
//! Either way the frames leave in queue order, one batch at a time, under one lock: the task and the
//! reader never write at once, and a batch one of them started is finished by whichever comes next.
//! Readiness is always registered with the writer task's waker, so a write that would block is finished
//! by the task.

use super::{Outgoing, Peer};
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll, Waker};
use tokio::io::AsyncWrite;
use tokio::sync::mpsc::{self, error::TryRecvError};

/// Frames up to this size are copied into the writer's buffer; larger ones are written from where they
/// are (a vectored write), so a large answer is never copied by the writer.
const COPY_BELOW: usize = 16 * 1024;
/// Frames taken into one write at most (`IOV_MAX` is 1024).
const FRAMES_PER_WRITE: usize = 512;
/// Bytes taken into one write at most (more frames wait for the next).
const BYTES_PER_WRITE: usize = 1024 * 1024;

/// One piece of a vectored write: a run of the writer's buffer, or a whole frame of the batch.
enum Piece {
    Buf(usize, usize),
    Frame(usize),
}

/// The output of one connection and the queue in front of it, shared by the writer task and the reader.
pub(crate) struct WriteSide<W> {
    core: Mutex<Core<W>>,
    /// Set by the reader while more of what it read waits to be handled: answers then queue up, to be
    /// written together when it is done ([`WriteSide::write_ready`]), rather than one write each.
    more_input: AtomicBool,
}

/// What the reader tells the writer.
pub(crate) trait ReaderOutput: Send + Sync {
    /// Whether more input than the line being handled is already read.
    fn set_more_input(&self, more: bool);
    /// Everything read is handled: write what it produced.
    fn write_ready(&self);
}

impl<W: AsyncWrite + Unpin + Send> ReaderOutput for WriteSide<W> {
    fn set_more_input(&self, more: bool) {
        self.more_input.store(more, Ordering::Relaxed);
    }
    fn write_ready(&self) {
        WriteSide::write_ready(self)
    }
}

/// An output an answer can be written to at once, ahead of the writer task.
pub(crate) trait WriteNow: Send + Sync {
    /// Takes `out` and writes it now when nothing is queued or being written and the reader holds no
    /// more input; leaves it otherwise (to be queued). A write that would block is finished by the
    /// writer task.
    fn write_now(&self, out: &mut Option<Outgoing>);
}

/// Why the writer stopped.
pub(crate) enum Stopped {
    /// Every sender is gone and everything queued is written.
    Done,
    /// The output failed.
    Failed(io::Error),
}

struct Core<W> {
    rx: mpsc::Receiver<Outgoing>,
    w: W,
    buf: Vec<u8>,
    batch: Vec<Outgoing>,
    pieces: Vec<Piece>,
    /// Bytes of the batch in progress (0: none).
    size: usize,
    /// Bytes of it written so far.
    written: usize,
    /// The writer task's waker, for readiness registered by the reader's writes.
    task: Option<Waker>,
    /// The output failed or the queue closed: nobody writes any more.
    stopped: bool,
    /// A failure met outside the writer task, for the task to report.
    failure: Option<io::Error>,
}

/// What the writer task is told after the reader or an answer used the writer.
enum Then {
    /// Nothing: it goes on as it was.
    Go,
    /// Wake it (the queue is closed: it ends).
    Wake,
    /// The output failed: it reports that, and nobody writes any more.
    Fail(io::Error),
}

/// What one drive of the writer ended with.
enum Drive {
    /// The queue is empty and nothing is being written.
    Idle,
    /// The queue is closed and drained.
    Closed,
}

impl<W: AsyncWrite + Unpin> WriteSide<W> {
    pub(crate) fn new(rx: mpsc::Receiver<Outgoing>, w: W) -> Arc<Self> {
        Arc::new(WriteSide {
            core: Mutex::new(Core {
                rx,
                w,
                buf: Vec::with_capacity(64 * 1024),
                batch: Vec::with_capacity(64),
                pieces: Vec::with_capacity(64),
                size: 0,
                written: 0,
                task: None,
                stopped: false,
                failure: None,
            }),
            more_input: AtomicBool::new(false),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Core<W>> {
        self.core.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The writer task: writes until every sender is gone or the output fails.
    pub(crate) async fn run(&self) -> Stopped {
        std::future::poll_fn(|cx| {
            let mut core = self.lock();
            if !core.task.as_ref().is_some_and(|t| t.will_wake(cx.waker())) {
                core.task = Some(cx.waker().clone());
            }
            if let Some(e) = core.failure.take() {
                return Poll::Ready(Stopped::Failed(e));
            }
            match ready!(core.drive(cx, true)) {
                Ok(_) => Poll::Ready(Stopped::Done),
                Err(e) => {
                    core.stopped = true;
                    Poll::Ready(Stopped::Failed(e))
                }
            }
        })
        .await
    }

    /// Writes what is queued now, without waiting: called by the reader when it has handled everything
    /// it read and is about to wait for input. A write that would block is left to the writer task.
    pub(crate) fn write_ready(&self) {
        self.with_core(|core, cx| match core.drive(cx, false) {
            Poll::Ready(Ok(Drive::Idle)) | Poll::Pending => Then::Go,
            Poll::Ready(Ok(Drive::Closed)) => Then::Wake,
            Poll::Ready(Err(e)) => Then::Fail(e),
        });
    }

    /// Runs `f` on the core with the writer task's waker, unless the task is writing right now (on
    /// another thread), has not started, or has stopped.
    fn with_core(&self, f: impl FnOnce(&mut Core<W>, &mut Context<'_>) -> Then) {
        let Ok(mut core) = self.core.try_lock() else {
            return;
        };
        if core.stopped {
            return;
        }
        let Some(task) = core.task.take() else {
            return;
        };
        let then = f(&mut core, &mut Context::from_waker(&task));
        if let Then::Go = then {
            core.task = Some(task);
            return;
        }
        if let Then::Fail(e) = then {
            core.stopped = true;
            core.failure = Some(e);
        }
        core.task = Some(task.clone());
        drop(core);
        task.wake();
    }
}

impl<W: AsyncWrite + Unpin + Send> WriteNow for WriteSide<W> {
    fn write_now(&self, out: &mut Option<Outgoing>) {
        if self.more_input.load(Ordering::Relaxed) {
            return;
        }
        self.with_core(|core, cx| {
            // Frames queued or being written go first.
            if !core.batch.is_empty() || !core.rx.is_empty() {
                return Then::Go;
            }
            let Some(o) = out.take() else {
                return Then::Go;
            };
            // The answer alone is the batch, written from where it is.
            core.buf.clear();
            core.pieces.clear();
            core.pieces.push(Piece::Frame(0));
            core.size = o.frame.len();
            core.written = 0;
            core.batch.push(o);
            match core.poll_write_batch(cx) {
                Poll::Ready(Ok(())) => {
                    core.finish_batch();
                    Then::Go
                }
                // The writer task finishes it: its waker is the one registered.
                Poll::Pending => Then::Go,
                Poll::Ready(Err(e)) => Then::Fail(e),
            }
        });
    }
}

impl<W: AsyncWrite + Unpin> Core<W> {
    /// Writes batches until the queue is empty (`wait`: until it is closed, registering for new frames).
    fn drive(&mut self, cx: &mut Context<'_>, wait: bool) -> Poll<io::Result<Drive>> {
        loop {
            if self.stopped {
                return Poll::Ready(Ok(Drive::Closed));
            }
            if self.batch.is_empty() {
                let first = if wait {
                    match ready!(self.rx.poll_recv(cx)) {
                        Some(o) => o,
                        None => return Poll::Ready(Ok(Drive::Closed)),
                    }
                } else {
                    match self.rx.try_recv() {
                        Ok(o) => o,
                        Err(TryRecvError::Empty) => return Poll::Ready(Ok(Drive::Idle)),
                        Err(TryRecvError::Disconnected) => return Poll::Ready(Ok(Drive::Closed)),
                    }
                };
                self.take_batch(first);
            }
            if self.size > 0 {
                ready!(self.poll_write_batch(cx))?;
            }
            self.finish_batch();
        }
    }

    /// Takes `first` and whatever else is queued (up to a megabyte or `FRAMES_PER_WRITE` frames) as the
    /// next batch: small frames copied together into the buffer, large ones left where they are.
    fn take_batch(&mut self, first: Outgoing) {
        self.buf.clear();
        self.pieces.clear();
        let vectored = self.w.is_write_vectored();
        let mut size = 0usize;
        let mut next = Some(first);
        while let Some(o) = next.take() {
            if !o.is_cancelled() {
                size += o.frame.len();
                if o.frame.len() < COPY_BELOW || !vectored {
                    let start = self.buf.len();
                    self.buf.extend_from_slice(&o.frame);
                    match self.pieces.last_mut() {
                        Some(Piece::Buf(_, end)) if *end == start => *end = self.buf.len(),
                        _ => self.pieces.push(Piece::Buf(start, self.buf.len())),
                    }
                } else {
                    self.pieces.push(Piece::Frame(self.batch.len()));
                }
            }
            self.batch.push(o);
            if size < BYTES_PER_WRITE && self.batch.len() < FRAMES_PER_WRITE {
                next = self.rx.try_recv().ok();
            }
        }
        self.size = size;
        self.written = 0;
    }

    /// Writes the rest of the batch, then flushes.
    fn poll_write_batch(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Core {
            w,
            buf,
            batch,
            pieces,
            size,
            written,
            ..
        } = self;
        let piece = |p: &Piece| match *p {
            Piece::Buf(a, b) => &buf[a..b],
            Piece::Frame(i) => &batch[i].frame[..],
        };
        while *written < *size {
            let n = match &pieces[..] {
                // The common case (everything copied into the buffer): no vector of slices.
                [one] => ready!(Pin::new(&mut *w).poll_write(cx, &piece(one)[*written..]))?,
                many => {
                    let mut slices: Vec<IoSlice<'_>> =
                        many.iter().map(|p| IoSlice::new(piece(p))).collect();
                    let mut rest = &mut slices[..];
                    IoSlice::advance_slices(&mut rest, *written);
                    if rest.len() == 1 {
                        ready!(Pin::new(&mut *w).poll_write(cx, &rest[0]))?
                    } else {
                        ready!(Pin::new(&mut *w).poll_write_vectored(cx, rest))?
                    }
                }
            };
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Pin::new(&mut *w).poll_flush(cx)
    }

    /// The batch is written: permits and charges are released only now, and waiters told.
    fn finish_batch(&mut self) {
        for o in self.batch.drain(..) {
            let mut o = o;
            if let Some(tx) = o.written.take() {
                let _ = tx.send(());
            }
            // A large frame's memory is warm: the next large message is framed in it.
            crate::bufpool::give(std::mem::take(&mut o.frame));
        }
        self.size = 0;
        self.written = 0;
        if self.buf.capacity() > 4 * 1024 * 1024 {
            self.buf = Vec::with_capacity(64 * 1024);
        }
    }
}

/// The writer: drains whatever is queued into one (vectored) write and one flush, until every sender is
/// gone or the output fails (which closes the connection).
pub async fn write_loop<W: AsyncWrite + Unpin>(rx: mpsc::Receiver<Outgoing>, w: W, peer: Peer) {
    drive_writer(WriteSide::new(rx, w), peer).await
}

/// [`write_loop`] for a connection whose end its owner explains (a child process, whose exit status says
/// more than a broken pipe): returns the output's error instead of closing the connection with it.
pub(crate) async fn write_until_failed<W: AsyncWrite + Unpin>(
    rx: mpsc::Receiver<Outgoing>,
    w: W,
) -> Option<io::Error> {
    match WriteSide::new(rx, w).run().await {
        Stopped::Failed(e) => Some(e),
        Stopped::Done => None,
    }
}

/// The writer's task: drives `side` until every sender is gone; an output that fails closes the
/// connection.
pub(super) async fn drive_writer<W: AsyncWrite + Unpin>(side: Arc<WriteSide<W>>, peer: Peer) {
    if let Stopped::Failed(e) = side.run().await {
        tracing::debug!(%e, "output closed");
        peer.close(format!("output closed: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::OutKind;
    use tokio::io::AsyncReadExt;

    fn frame(tag: u8, len: usize) -> Outgoing {
        let mut f = vec![tag; len - 1];
        f.push(b'\n');
        Outgoing::new(f, OutKind::Notification, None)
    }

    async fn read_exactly(r: &mut tokio::io::DuplexStream, n: usize) -> Vec<u8> {
        let mut got = vec![0; n];
        r.read_exact(&mut got).await.unwrap();
        got
    }

    #[tokio::test]
    async fn an_answer_written_at_once_never_overtakes_a_frame_ahead_of_it() {
        // A pipe of 64 bytes: a 100-byte frame blocks the writer halfway.
        let (w, mut r) = tokio::io::duplex(64);
        let (tx, rx) = mpsc::channel(16);
        let side = WriteSide::new(rx, w);
        let task = tokio::spawn({
            let side = side.clone();
            async move { side.run().await }
        });
        tx.send(frame(b'a', 100)).await.unwrap();
        tokio::task::yield_now().await;
        // The writer is mid-frame: an answer must not be written ahead of it.
        let mut b = Some(frame(b'b', 10));
        side.write_now(&mut b);
        assert!(b.is_some(), "written ahead of a frame being written");
        tx.send(b.take().unwrap()).await.unwrap();
        let got = read_exactly(&mut r, 110).await;
        assert_eq!(&got[..99], &[b'a'; 99][..]);
        assert_eq!(&got[100..109], &[b'b'; 9][..]);

        // Nothing ahead: taken and written at once; one larger than the pipe is finished by the task.
        let mut c = Some(frame(b'c', 200));
        side.write_now(&mut c);
        assert!(c.is_none(), "an idle writer takes the answer");
        let got = read_exactly(&mut r, 200).await;
        assert_eq!(&got[..199], &[b'c'; 199][..]);

        // While the reader holds more input, answers queue up to be written together.
        side.set_more_input(true);
        let mut d = Some(frame(b'd', 10));
        side.write_now(&mut d);
        assert!(d.is_some());
        tx.send(d.take().unwrap()).await.unwrap();
        tx.send(frame(b'e', 10)).await.unwrap();
        side.set_more_input(false);
        side.write_ready();
        let got = read_exactly(&mut r, 20).await;
        assert_eq!((got[0], got[10]), (b'd', b'e'));

        drop(tx);
        assert!(matches!(task.await.unwrap(), Stopped::Done));
    }

    #[tokio::test]
    async fn a_failed_direct_write_stops_the_writer_with_the_error() {
        let (w, r) = tokio::io::duplex(64);
        let (tx, rx) = mpsc::channel(16);
        let side = WriteSide::new(rx, w);
        let task = tokio::spawn({
            let side = side.clone();
            async move { side.run().await }
        });
        tokio::task::yield_now().await;
        drop(r);
        let mut a = Some(frame(b'a', 10));
        side.write_now(&mut a);
        assert!(matches!(task.await.unwrap(), Stopped::Failed(_)));
        drop(tx);
    }
}
