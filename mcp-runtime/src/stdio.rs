//! stdin and stdout as async byte streams, without the thread hand-offs of `tokio::io::stdin()`: pipes,
//! sockets and terminals are put in non-blocking mode and driven by the reactor; a regular file (input
//! redirected from disk) falls back to a blocking thread.
//!
//! stdout belongs to the protocol: [`take_stdout`] keeps a private duplicate of the real stdout and points
//! file descriptor 1 at stderr, so a stray `println!` in a tool lands in the log instead of the stream.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Takes the process's real stdout for the protocol and points fd 1 at stderr.
pub fn take_stdout() -> io::Result<OwnedFd> {
    // SAFETY: dup/dup2 on the process's standard descriptors; the result is checked.
    unsafe {
        let fd = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            let e = io::Error::last_os_error();
            libc::close(fd);
            return Err(e);
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

/// A duplicate of stdin that we own.
pub fn dup_stdin() -> io::Result<OwnedFd> {
    // SAFETY: duplicating fd 0; the result is checked.
    unsafe {
        let fd = libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

fn file_kind(fd: RawFd) -> Option<libc::mode_t> {
    // SAFETY: fstat into a zeroed struct.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 {
            return None;
        }
        Some(st.st_mode & libc::S_IFMT)
    }
}

fn pollable(fd: RawFd) -> bool {
    matches!(file_kind(fd), Some(k) if k == libc::S_IFIFO || k == libc::S_IFSOCK || k == libc::S_IFCHR)
}

/// Reopens a pipe or terminal through `/proc/self/fd`, which yields a new open file description: the
/// `O_NONBLOCK` we set then stays ours instead of leaking into the parent's (or a sibling's) view of the
/// same pipe or terminal. Sockets can't be reopened this way; they are duplicated instead.
fn private_nonblocking(fd: &OwnedFd, write: bool) -> io::Result<OwnedFd> {
    let kind = file_kind(fd.as_raw_fd());
    if matches!(kind, Some(k) if k == libc::S_IFIFO || k == libc::S_IFCHR) {
        let path = std::ffi::CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd()))
            .expect("no NUL in a path we format");
        let mode = if write {
            libc::O_WRONLY
        } else {
            libc::O_RDONLY
        };
        // SAFETY: open with a valid C string; the result is checked.
        let n = unsafe { libc::open(path.as_ptr(), mode | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if n >= 0 {
            // SAFETY: `n` is a fresh descriptor we own.
            return Ok(unsafe { OwnedFd::from_raw_fd(n) });
        }
    }
    let dup = fd.try_clone()?;
    set_nonblocking(dup.as_raw_fd())?;
    Ok(dup)
}

/// The capacity a pipe that carries bulk traffic is raised to: what an unprivileged process may ask
/// for by default (`/proc/sys/fs/pipe-max-size`).
const PIPE_BYTES: usize = 1024 * 1024;
/// The kernel's default capacity of a pipe: a read or a write of this much at once is bulk traffic.
const PIPE_DEFAULT: usize = 64 * 1024;

/// Raises a pipe's capacity to [`PIPE_BYTES`], so that a large message crosses in a few system calls
/// instead of a wake-up of each side for every few pages. Best effort: a refusal (the user's pipe quota)
/// or anything but a pipe leaves it as it is.
fn grow_pipe(fd: RawFd) {
    if file_kind(fd) != Some(libc::S_IFIFO) {
        return;
    }
    // SAFETY: fcntl on a valid descriptor; the result is only a size (or an error we ignore).
    unsafe {
        if (libc::fcntl(fd, libc::F_GETPIPE_SZ) as usize) < PIPE_BYTES {
            libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES as libc::c_int);
        }
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl flag manipulation on a valid descriptor.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// An fd driven by the reactor.
///
/// A pipe that carries a full default capacity (64 KiB) in one read or write is grown to 1 MiB, once:
/// large messages then cross in a few system calls. Pipes that only ever see small messages keep the
/// kernel's default, since the user's pipe quota (`pipe-user-pages-soft`) is charged for capacity.
pub struct FdStream {
    fd: AsyncFd<OwnedFd>,
    /// Whether the pipe was grown (or growing was tried).
    grown: bool,
}

impl FdStream {
    /// Wraps a pipe, socket or terminal (on a private non-blocking description); `Err` for anything epoll
    /// can't watch, such as a regular file.
    pub fn new(fd: &OwnedFd, write: bool) -> io::Result<Self> {
        if !pollable(fd.as_raw_fd()) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "not a pipe, socket or terminal",
            ));
        }
        let fd = private_nonblocking(fd, write)?;
        // SAFETY: we own `fd` and nothing else reads or writes it while it is registered.
        let fd = unsafe { AsyncFd::register(fd) }.map_err(io::Error::from)?;
        Ok(FdStream { fd, grown: false })
    }
}

impl FdStream {
    /// Grows the pipe once `n` bytes moved in one call show bulk traffic.
    fn bulk(&mut self, n: usize) {
        if n >= PIPE_DEFAULT && !self.grown {
            self.grown = true;
            grow_pipe(self.fd.get_ref().as_raw_fd());
        }
    }
}

impl AsyncRead for FdStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            let mut guard = ready!(this.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let unfilled_len = unfilled.len();
            let res = guard.try_io(|inner| {
                // SAFETY: reading into an initialized buffer of the given length.
                let n = unsafe {
                    libc::read(
                        inner.as_raw_fd(),
                        unfilled.as_mut_ptr().cast(),
                        unfilled.len(),
                    )
                };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match res {
                Ok(Ok(n)) => {
                    // A short read drained the descriptor: clear readiness now rather than learn it from
                    // one more read that fails with EAGAIN. New data raises a new edge (tokio compares
                    // readiness ticks, so an event that raced this read is kept).
                    if n > 0 && n < unfilled_len {
                        guard.clear_ready();
                    }
                    buf.advance(n);
                    drop(guard);
                    this.bulk(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
}

impl AsyncWrite for FdStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        loop {
            let mut guard = ready!(this.fd.poll_write_ready(cx))?;
            let res = guard.try_io(|inner| {
                // SAFETY: writing from a valid slice.
                let n = unsafe { libc::write(inner.as_raw_fd(), data.as_ptr().cast(), data.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match res {
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Ok(n)) => {
                    // A short write filled the pipe: the next write would only fail with EAGAIN.
                    if n > 0 && n < data.len() {
                        guard.clear_ready();
                    }
                    drop(guard);
                    this.bulk(n);
                    return Poll::Ready(Ok(n));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let bufs = &bufs[..bufs.len().min(1024)];
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        let this = self.get_mut();
        loop {
            let mut guard = ready!(this.fd.poll_write_ready(cx))?;
            let res = guard.try_io(|inner| {
                // SAFETY: `IoSlice` is ABI-compatible with `iovec`; at most IOV_MAX of them.
                let n = unsafe {
                    libc::writev(
                        inner.as_raw_fd(),
                        bufs.as_ptr().cast(),
                        bufs.len() as libc::c_int,
                    )
                };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match res {
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Ok(n)) => {
                    if n > 0 && n < total {
                        guard.clear_ready();
                    }
                    drop(guard);
                    this.bulk(n);
                    return Poll::Ready(Ok(n));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
    fn is_write_vectored(&self) -> bool {
        true
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The input side: the reactor when it can, a blocking thread otherwise.
pub type BoxRead = Pin<Box<dyn AsyncRead + Send>>;
/// The output side.
pub type BoxWrite = Pin<Box<dyn AsyncWrite + Send>>;

/// Whether the reader of this pipe or socket has gone (the descriptor reports an error or hang-up).
pub fn peer_gone(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: poll on one valid descriptor with a zero timeout.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && (p.revents & (libc::POLLERR | libc::POLLHUP)) != 0
}

/// The process's stdin and (real) stdout as async streams, plus a probe telling whether stdout's reader
/// has gone; fd 1 is pointed at stderr.
pub fn stdio_streams() -> io::Result<(BoxRead, BoxWrite, crate::connection::OutputProbe)> {
    let out = take_stdout()?;
    let input = dup_stdin()?;
    let reader: BoxRead = match FdStream::new(&input, false) {
        Ok(s) => Box::pin(s),
        Err(_) => Box::pin(tokio::fs::File::from_std(std::fs::File::from(input))),
    };
    let probe_fd = out.try_clone()?;
    let probe: crate::connection::OutputProbe = Box::new(move || peer_gone(probe_fd.as_raw_fd()));
    let writer: BoxWrite = match FdStream::new(&out, true) {
        Ok(s) => Box::pin(s),
        Err(_) => Box::pin(tokio::fs::File::from_std(std::fs::File::from(out))),
    };
    Ok((reader, writer, probe))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors we then own.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: fresh descriptors from pipe2.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    fn capacity(fd: &OwnedFd) -> usize {
        // SAFETY: fcntl on a valid descriptor.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) as usize }
    }

    #[tokio::test]
    async fn a_pipe_grows_once_it_carries_bulk_traffic_and_not_before() {
        // Whether this process may grow a pipe at all (the user's pipe quota may forbid it).
        let (probe, _w) = pipe();
        // SAFETY: fcntl on a valid descriptor.
        let allowed = unsafe {
            libc::fcntl(
                probe.as_raw_fd(),
                libc::F_SETPIPE_SZ,
                PIPE_BYTES as libc::c_int,
            )
        } >= 0;
        let (r, w) = pipe();
        if capacity(&r) != PIPE_DEFAULT {
            eprintln!("skipped: new pipes are not 64 KiB here (the user's pipe quota is spent)");
            return;
        }
        let mut stream = FdStream::new(&r, false).unwrap();
        let mut buf = vec![0u8; 2 * PIPE_DEFAULT];
        let small = [b'x'; 100];
        // SAFETY: writing from a valid buffer.
        unsafe { libc::write(w.as_raw_fd(), small.as_ptr().cast(), small.len()) };
        assert_eq!(stream.read(&mut buf).await.unwrap(), 100);
        assert_eq!(
            capacity(&r),
            PIPE_DEFAULT,
            "small traffic leaves the pipe alone"
        );
        let bulk = vec![b'y'; PIPE_DEFAULT];
        // SAFETY: writing from a valid buffer (the pipe holds exactly 64 KiB).
        let n = unsafe { libc::write(w.as_raw_fd(), bulk.as_ptr().cast(), bulk.len()) };
        assert_eq!(n as usize, PIPE_DEFAULT);
        assert_eq!(stream.read(&mut buf).await.unwrap(), PIPE_DEFAULT);
        if allowed {
            assert_eq!(
                capacity(&r),
                PIPE_BYTES,
                "a full pipe read at once grows it"
            );
        }
    }
}
