//! Async accept on a libtailscale listener.
//!
//! libtailscale hands C a listener that is one end of a `socketpair(2)`. A Go
//! goroutine accepts tailnet connections, wraps each in another socketpair
//! and sends our end over the listener with `sendmsg(SCM_RIGHTS)` (one dummy
//! data byte per message, which Go adds for stream sockets).
//!
//! We do not use `tailscale_accept` from the C library because:
//! * when Go closes its end (node closed, listener torn down) `recvmsg`
//!   returns 0 bytes with no control message, and `tailscale_accept` then
//!   dereferences `CMSG_FIRSTHDR() == NULL` (libtailscale `tailscale.c`
//!   lines 64–71: the return value of `recvmsg` is only checked for -1 and
//!   the cmsg pointer is never checked) — the process would crash on shutdown;
//! * it blocks, which would cost one OS thread per listener.
//!
//! Instead the listener fd is registered with tokio's reactor and we call
//! `recvmsg` ourselves when it is readable; 0 bytes means "closed".
//!
//! Nor does the listener ever report "closed" when the *Go* side closes it
//! (node closed): Go's cleanup calls `syscall.Close(sp)` (`tailscale.go`
//! line 240) while another goroutine is still blocked in `syscall.Read(sp)`
//! (line 253). On Linux a close() does not release a socket that another
//! thread is blocked reading, so our end never sees EOF. [`Listener::accept`]
//! therefore also watches the owning [`super::Node`]'s shutdown signal.
//!
//! The peer address of a connection is not available: `tailscale_getremoteaddr`
//! is keyed by the fd number *Go* used for the connection before sending it
//! (libtailscale `tailscale.go` line 284, then closed at line 287), which is
//! not the fd number we receive, and entries are never removed, so lookups
//! return the wrong address or nothing. Don't rely on it.

use std::collections::VecDeque;
use std::io;
use std::mem;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::net::UnixStream;
use tokio::sync::watch;

/// Connection fds received per `recvmsg`. Linux delivers one SCM_RIGHTS
/// message per call for stream sockets, but leave room in case several are
/// coalesced; a truncated control message would leak fds into the void.
pub(crate) const MAX_FDS_PER_MSG: usize = 16;

/// A tailnet TCP listener. Dropping it closes our end of the socketpair,
/// which makes libtailscale close the tailnet listener too.
#[derive(Debug)]
pub struct Listener {
    fd: AsyncFd<OwnedFd>,
    port: u16,
    /// fds that arrived together with the one we returned.
    pending: Mutex<VecDeque<OwnedFd>>,
    /// Becomes true when the node is closed (see module docs).
    node_closed: watch::Receiver<bool>,
}

impl Listener {
    /// Wraps the fd returned by `tailscale_listen`.
    ///
    /// Must be called from within a tokio runtime.
    pub(crate) fn from_fd(
        fd: OwnedFd,
        port: u16,
        node_closed: watch::Receiver<bool>,
    ) -> io::Result<Self> {
        set_nonblocking(fd.as_raw_fd())?;
        // SAFETY: an OwnedFd stays open and keeps returning the same fd until
        // the AsyncFd that owns it is dropped.
        let fd = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }
            .map_err(io::Error::from)?;
        Ok(Self {
            fd,
            port,
            pending: Mutex::new(VecDeque::new()),
            node_closed,
        })
    }

    /// The tailnet port this listener was opened on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Waits for the next tailnet connection.
    ///
    /// Returns `Ok(None)` once the node has been closed or the listener was
    /// closed on the Tailscale side; callers should stop accepting then.
    /// Safe to call concurrently from several tasks.
    pub(crate) async fn accept(&self) -> io::Result<Option<UnixStream>> {
        let mut closed = self.node_closed.clone();
        loop {
            if *closed.borrow_and_update() {
                return Ok(None);
            }
            if let Some(fd) = self.pop_pending() {
                return into_stream(fd).map(Some);
            }
            let mut guard = tokio::select! {
                r = self.fd.readable() => r?,
                changed = closed.changed() => match changed {
                    Ok(()) => continue,
                    // The Node (sender) is gone: closed too. (Looping on the error would
                    // spin: `changed` keeps failing at once.)
                    Err(_) => return Ok(None),
                },
            };
            match guard.try_io(|inner| recv_fds(inner.get_ref().as_raw_fd())) {
                Ok(Ok(Received::Closed)) => return Ok(None),
                Ok(Ok(Received::Fds(mut fds))) => {
                    if fds.is_empty() {
                        // A data byte without a descriptor: nothing to hand
                        // out; keep waiting.
                        continue;
                    }
                    let first = fds.remove(0);
                    if !fds.is_empty() {
                        self.push_pending(fds);
                    }
                    return into_stream(first).map(Some);
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(e)) => return Err(e),
                // Spurious readiness: try_io cleared it, wait again.
                Err(_would_block) => continue,
            }
        }
    }

    pub(crate) fn pop_pending(&self) -> Option<OwnedFd> {
        match self.pending.lock() {
            Ok(mut q) => q.pop_front(),
            Err(poisoned) => poisoned.into_inner().pop_front(),
        }
    }

    pub(crate) fn push_pending(&self, fds: Vec<OwnedFd>) {
        let mut q = match self.pending.lock() {
            Ok(q) => q,
            Err(poisoned) => poisoned.into_inner(),
        };
        q.extend(fds);
    }
}

pub(crate) enum Received {
    Closed,
    Fds(Vec<OwnedFd>),
}

pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub(crate) fn into_stream(fd: OwnedFd) -> io::Result<UnixStream> {
    set_nonblocking(fd.as_raw_fd())?;
    UnixStream::from_std(std::os::unix::net::UnixStream::from(fd))
}

/// One non-blocking `recvmsg` on the listener socket.
pub(crate) fn recv_fds(sock: RawFd) -> io::Result<Received> {
    // Go sends exactly one dummy byte with each descriptor. Reading one byte
    // at a time keeps data and descriptors in step.
    let mut data = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr().cast(),
        iov_len: data.len(),
    };
    // u64 elements keep the control buffer aligned for cmsghdr.
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space =
        unsafe { libc::CMSG_SPACE((MAX_FDS_PER_MSG * mem::size_of::<RawFd>()) as u32) } as usize;
    let mut cbuf = vec![0u64; space.div_ceil(mem::size_of::<u64>())];

    // SAFETY: msghdr is a plain C struct; all-zero is a valid initial value.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = (cbuf.len() * mem::size_of::<u64>()) as _;

    // SAFETY: msg points at live buffers of the declared sizes for the
    // duration of the call. MSG_CMSG_CLOEXEC keeps connection fds out of
    // any child processes.
    let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }

    let mut fds = Vec::new();
    // SAFETY: CMSG_FIRSTHDR/CMSG_NXTHDR walk the control buffer the kernel
    // filled in, bounded by msg_controllen; we check for NULL (unlike
    // tailscale_accept) before dereferencing.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            let hdr = &*cmsg;
            if hdr.cmsg_level == libc::SOL_SOCKET && hdr.cmsg_type == libc::SCM_RIGHTS {
                let data_ptr = libc::CMSG_DATA(cmsg) as *const RawFd;
                let header_len = libc::CMSG_LEN(0) as usize;
                let count =
                    (hdr.cmsg_len as usize).saturating_sub(header_len) / mem::size_of::<RawFd>();
                for i in 0..count {
                    let raw = std::ptr::read_unaligned(data_ptr.add(i));
                    if raw >= 0 {
                        fds.push(OwnedFd::from_raw_fd(raw));
                    }
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        tracing::error!(
            target: "libations::tailnet",
            "tailnet listener: control message truncated; some connections were dropped"
        );
    }
    if n == 0 && fds.is_empty() {
        return Ok(Received::Closed);
    }
    Ok(Received::Fds(fds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn socketpair() -> (OwnedFd, OwnedFd) {
        let mut fds = [0 as RawFd; 2];
        // SAFETY: fds has room for the two descriptors.
        let rc = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        assert_eq!(rc, 0);
        // SAFETY: socketpair succeeded, both fds are fresh and ours.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    /// Mimics Go's `syscall.Sendmsg(sp, nil, UnixRights(fd), nil, 0)`: one
    /// dummy byte plus the descriptor.
    fn send_fd(sock: &OwnedFd, fd: &OwnedFd) {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let space = unsafe { libc::CMSG_SPACE(mem::size_of::<RawFd>() as u32) } as usize;
        let mut cbuf = vec![0u64; space.div_ceil(8)];
        let mut msg: libc::msghdr = unsafe { mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        unsafe {
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(mem::size_of::<RawFd>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(c) as *mut RawFd, fd.as_fd().as_raw_fd());
            assert_eq!(libc::sendmsg(sock.as_raw_fd(), &msg, 0), 1);
        }
    }

    #[tokio::test]
    async fn accepts_passed_fds_and_reports_close() {
        let (ours, theirs) = socketpair();
        let (_tx, rx) = watch::channel(false);
        let listener = Listener::from_fd(ours, 443, rx).expect("listener");

        for i in 0..3u8 {
            let (conn_ours, conn_theirs) = socketpair();
            send_fd(&theirs, &conn_ours);
            drop(conn_ours);
            let mut stream = listener.accept().await.expect("accept").expect("some");
            let mut peer = into_stream(conn_theirs).expect("peer");
            peer.write_all(&[i]).await.expect("write");
            let mut b = [0u8; 1];
            stream.read_exact(&mut b).await.expect("read");
            assert_eq!(b[0], i);
        }

        drop(theirs);
        assert!(
            listener
                .accept()
                .await
                .expect("accept after close")
                .is_none()
        );
    }

    #[tokio::test]
    async fn a_dropped_node_ends_accept_instead_of_spinning() {
        let (ours, _theirs_kept_open) = socketpair();
        let (tx, rx) = watch::channel(false);
        let listener = Listener::from_fd(ours, 443, rx).expect("listener");
        drop(tx);
        let got = tokio::time::timeout(std::time::Duration::from_secs(2), listener.accept())
            .await
            .expect("accept returned instead of looping")
            .expect("io");
        assert!(got.is_none());
    }

    #[tokio::test]
    async fn node_close_ends_accept_without_eof() {
        let (ours, _theirs_kept_open) = socketpair();
        let (tx, rx) = watch::channel(false);
        let listener = std::sync::Arc::new(Listener::from_fd(ours, 80, rx).expect("listener"));
        let l2 = listener.clone();
        let waiter = tokio::spawn(async move { l2.accept().await });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        tx.send_replace(true);
        let got = tokio::time::timeout(std::time::Duration::from_secs(2), waiter)
            .await
            .expect("accept returned")
            .expect("join")
            .expect("io");
        assert!(got.is_none());
    }
}
