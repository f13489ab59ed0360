//! A connection over a byte stream (stdio, a child's pipes, a test's duplex): the reader that frames lines
//! and dispatches them, and [`run`], which pumps both directions until the input ends.

use super::*;

/// The reader: frames lines and dispatches them until EOF or an error. Returns the reason it stopped.
pub async fn read_loop<R: AsyncRead + Unpin>(
    r: R,
    peer: &Peer,
    handler: &Arc<dyn Handler>,
) -> String {
    read_lines(r, peer, handler, None).await
}

/// [`read_loop`], telling `output` whether more input follows each line (answers then wait to be written
/// together) and when everything read is handled (what it produced is written then).
pub(super) async fn read_lines<R: AsyncRead + Unpin>(
    mut r: R,
    peer: &Peer,
    handler: &Arc<dyn Handler>,
    output: Option<&dyn ReaderOutput>,
) -> String {
    let mut lines = LineBuffer::new(peer.shared.config.max_message_bytes);
    let closed = peer.shared.closed.clone();
    let closed = closed.cancelled();
    tokio::pin!(closed);
    loop {
        while let Some((line, more)) = lines.next_line_and_rest() {
            if let Some(output) = output {
                output.set_more_input(more);
            }
            handle_line(line, peer, handler).await;
        }
        if let Some(output) = output {
            output.set_more_input(false);
            output.write_ready();
        }
        let n = tokio::select! {
            biased;
            r = r.read(lines.spare()) => r,
            _ = &mut closed => return "connection closed".into(),
        };
        match n {
            Ok(0) => {
                if let Some(line) = lines.take_rest() {
                    handle_line(line, peer, handler).await;
                }
                return "end of input".into();
            }
            Ok(n) => lines.filled(n),
            Err(e) => return format!("read error: {e}"),
        }
    }
}

pub(super) async fn handle_line(line: Line<'_>, peer: &Peer, handler: &Arc<dyn Handler>) {
    match line {
        Line::Complete(bytes) => {
            let msg = framing::decode(bytes);
            // A request waits here while the budget is spent, and nothing more is read meanwhile.
            // Notifications and responses are handled at once: their bytes are not kept.
            let charge = match &msg {
                Incoming::Request { .. } | Incoming::Batch(_) => {
                    peer.shared.budget.acquire(bytes.len()).await
                }
                _ => Charge::none(),
            };
            peer.dispatch_charged(msg, charge, handler).await
        }
        Line::TooLong => {
            let e = ErrorObject::parse_error(format!(
                "message exceeds the limit of {} bytes",
                peer.shared.config.max_message_bytes
            ));
            let _ = peer
                .send(Outgoing::new(
                    frame::error(None, &e),
                    OutKind::Notification,
                    None,
                ))
                .await;
        }
    }
}

impl Peer {
    /// Waits until every in-flight request has finished and its response is written, or `timeout`.
    pub async fn drain(&self, timeout: Duration) {
        let n = self.shared.config.max_concurrent_requests.max(1) as u32 * 2;
        let limit = self.shared.queue.clone();
        let _ = tokio::time::timeout(timeout, async move {
            let _all = limit.acquire_many(n).await;
        })
        .await;
    }
}

/// Tells whether the output's reader has gone away (a closed pipe), without writing.
pub type OutputProbe = Box<dyn Fn() -> bool + Send + Sync>;

/// Runs a connection over a byte stream until the input ends: reads, dispatches, writes. In-flight
/// requests get `drain_timeout` to finish after EOF; then everything left is cancelled.
pub async fn run<R, W>(
    reader: R,
    writer: W,
    peer: Peer,
    rx: mpsc::Receiver<Outgoing>,
    handler: Arc<dyn Handler>,
) -> String
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    run_with_probe(reader, writer, peer, rx, handler, None).await
}

/// [`run`], with a probe of the output: when the input ends and the output's reader is gone too (the
/// client vanished), in-flight handlers are cancelled at once instead of being given time to finish.
pub async fn run_with_probe<R, W>(
    reader: R,
    writer: W,
    peer: Peer,
    rx: mpsc::Receiver<Outgoing>,
    handler: Arc<dyn Handler>,
    output_gone: Option<OutputProbe>,
) -> String
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The reader writes what its lines produced before it waits for more (no hop through the writer's
    // task when a request is answered inline); the task writes everything else.
    let side = WriteSide::new(rx, writer);
    let _ = peer.shared.write_now.set(side.clone());
    let writer = tokio::spawn(drive_writer(side.clone(), peer.clone()));
    let mut reason = read_lines(reader, &peer, &handler, Some(&*side)).await;
    if !peer.is_closed() {
        let drain = peer.drain(peer.shared.config.drain_timeout);
        match &output_gone {
            Some(gone) => {
                let watch = async {
                    loop {
                        if gone() {
                            return;
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                };
                tokio::select! {
                    _ = drain => {}
                    _ = watch => reason = "the client went away (input and output closed)".into(),
                }
            }
            None => drain.await,
        }
    }
    peer.close(reason.clone());
    handler.closed();
    // Let the writer flush what is queued, then stop it.
    let (tx, rx) = oneshot::channel();
    let mut marker = Outgoing::new(Vec::new(), OutKind::Notification, None);
    marker.written = Some(tx);
    if peer.shared.out.try_send(marker).is_ok() {
        let _ = tokio::time::timeout(Duration::from_millis(500), rx).await;
    }
    writer.abort();
    reason
}
