//! Is the other end of a loopback connection held by this very process?
//!
//! The forwarded listeners ([`super::forward`]) sit on a loopback port that every local
//! process can connect to, and what a connection says first (a PROXY header) names the
//! tailnet user. Only the embedded node, which dials from inside this process, may say it.
//! So for each connection we find the kernel's socket for the *client* end (its local
//! address is our peer, its remote address is our listener), take its inode, and look for
//! that inode among our own open descriptors (`/proc/self/fd/* -> socket:[inode]`).
//!
//! The inode comes from one `sock_diag` netlink request for exactly that connection (what
//! `ss` uses; a hash lookup in the kernel). Reading `/proc/self/net/tcp{,6}` instead costs
//! time in proportion to every TCP socket on the machine (measured in
//! `docs/bench/notes-app.md`), so it is only the fallback when netlink is not allowed.
//!
//! `/proc/self` is what the NixOS unit's `ProtectProc=invisible` leaves visible (it hides
//! *other* processes), `/proc/self/net` is the process's own network namespace, and the
//! unit allows `AF_NETLINK`.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

/// What the check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The client socket is one of this process's descriptors.
    Ours,
    /// The client socket exists but another process holds it.
    NotOurs,
    /// No such connection in the kernel's table (it closed meanwhile).
    Gone,
}

/// Checks the connection from `peer` to our listener at `local`.
pub(crate) fn check(peer: SocketAddr, local: SocketAddr) -> io::Result<Verdict> {
    let inode = match diag::inode(peer, local) {
        Ok(inode) => inode,
        Err(e) => {
            tracing::debug!(target: "libations::tailnet", "sock_diag failed ({e}); reading /proc/self/net instead");
            proc_inode(peer, local)?
        }
    };
    let Some(inode) = inode else {
        return Ok(Verdict::Gone);
    };
    if holds_socket(Path::new("/proc/self/fd"), inode)? {
        Ok(Verdict::Ours)
    } else {
        Ok(Verdict::NotOurs)
    }
}

/// The inode of the socket from `from` to `to`, from `/proc/self/net/tcp{,6}`.
pub(crate) fn proc_inode(from: SocketAddr, to: SocketAddr) -> io::Result<Option<u64>> {
    let table = match from.ip() {
        IpAddr::V4(_) => "/proc/self/net/tcp",
        IpAddr::V6(_) => "/proc/self/net/tcp6",
    };
    Ok(find_inode(&std::fs::read_to_string(table)?, from, to))
}

/// The inode of the socket whose local address is `from` and remote address `to`, in the
/// text of `/proc/net/tcp` or `/proc/net/tcp6`.
pub(crate) fn find_inode(table: &str, from: SocketAddr, to: SocketAddr) -> Option<u64> {
    let (from, to) = (hex(from), hex(to));
    table.lines().skip(1).find_map(|line| {
        let mut fields = line.split_whitespace();
        let local = fields.nth(1)?;
        let remote = fields.next()?;
        if !local.eq_ignore_ascii_case(&from) || !remote.eq_ignore_ascii_case(&to) {
            return None;
        }
        // After remote: st, tx:rx, tr:when, retrnsmt, uid, timeout, inode.
        fields.nth(6)?.parse().ok().filter(|&inode| inode != 0)
    })
}

/// An address as the kernel prints it there: each 32-bit word of the address in host order
/// as `%08X`, then `:%04X` for the port.
pub(crate) fn hex(addr: SocketAddr) -> String {
    let words: Vec<u8> = match addr.ip() {
        IpAddr::V4(ip) => ip.octets().to_vec(),
        IpAddr::V6(ip) => ip.octets().to_vec(),
    };
    let mut out = String::with_capacity(40);
    for word in words.chunks_exact(4) {
        let value = u32::from_ne_bytes([word[0], word[1], word[2], word[3]]);
        out.push_str(&format!("{value:08X}"));
    }
    out.push_str(&format!(":{:04X}", addr.port()));
    out
}

/// Whether one of the descriptors in `fd_dir` is the socket with this inode.
pub(crate) fn holds_socket(fd_dir: &Path, inode: u64) -> io::Result<bool> {
    let wanted = format!("socket:[{inode}]");
    for entry in std::fs::read_dir(fd_dir)? {
        let Ok(entry) = entry else { continue };
        // Descriptors close while we look; a failed readlink is just not a match.
        if let Ok(target) = std::fs::read_link(entry.path())
            && target.as_os_str() == wanted.as_str()
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// One `SOCK_DIAG_BY_FAMILY` request for exactly one TCP connection (`linux/inet_diag.h`).
mod diag {
    use std::io;
    use std::net::{IpAddr, SocketAddr};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    pub(crate) const NETLINK_SOCK_DIAG: libc::c_int = 4;
    pub(crate) const SOCK_DIAG_BY_FAMILY: u16 = 20;
    pub(crate) const NLMSG_ERROR: u16 = 2;
    pub(crate) const NLM_F_REQUEST: u16 = 1;
    /// nlmsghdr (16) + inet_diag_req_v2 (8 + inet_diag_sockid 48).
    pub(crate) const REQUEST_LEN: usize = 72;
    /// Where `idiag_inode` sits in the answer: nlmsghdr (16) + inet_diag_msg offset 68.
    pub(crate) const INODE_AT: usize = 16 + 68;

    /// The inode of the TCP socket whose local address is `from` and remote address `to`;
    /// `None` when there is none (closed meanwhile) or it holds no inode (TIME_WAIT).
    pub(crate) fn inode(from: SocketAddr, to: SocketAddr) -> io::Result<Option<u64>> {
        let socket = open()?;
        let request = request(from, to);
        // SAFETY: sending a buffer we own, of its length, on a socket we own.
        let sent = unsafe {
            libc::send(
                socket.as_raw_fd(),
                request.as_ptr().cast(),
                request.len(),
                0,
            )
        };
        if sent != request.len() as isize {
            return Err(io::Error::last_os_error());
        }
        let mut answer = [0u8; 512];
        // SAFETY: receiving into a buffer we own, at most its length.
        let got = unsafe {
            libc::recv(
                socket.as_raw_fd(),
                answer.as_mut_ptr().cast(),
                answer.len(),
                0,
            )
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        parse(&answer[..got as usize])
    }

    pub(crate) fn open() -> io::Result<OwnedFd> {
        // SAFETY: plain socket(2); the result is checked before it is owned.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                NETLINK_SOCK_DIAG,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor that nothing else owns.
        let socket = unsafe { OwnedFd::from_raw_fd(fd) };
        // The kernel answers at once; a second is for a kernel that does not answer at all.
        let timeout = libc::timeval {
            tv_sec: 1,
            tv_usec: 0,
        };
        // SAFETY: setsockopt with a timeval of the size given.
        let rc = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&timeout as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(socket)
    }

    /// The request bytes: header, then the connection as seen from `from`'s socket.
    pub(crate) fn request(from: SocketAddr, to: SocketAddr) -> Vec<u8> {
        let family = match from.ip() {
            IpAddr::V4(_) => libc::AF_INET,
            IpAddr::V6(_) => libc::AF_INET6,
        };
        let mut b = Vec::with_capacity(REQUEST_LEN);
        b.extend((REQUEST_LEN as u32).to_ne_bytes());
        b.extend(SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        b.extend(NLM_F_REQUEST.to_ne_bytes()); // no NLM_F_DUMP: exactly this one
        b.extend(1u32.to_ne_bytes()); // sequence
        b.extend(0u32.to_ne_bytes()); // port id: the kernel
        b.extend([family as u8, libc::IPPROTO_TCP as u8, 0, 0]);
        b.extend(u32::MAX.to_ne_bytes()); // every state
        b.extend(from.port().to_be_bytes());
        b.extend(to.port().to_be_bytes());
        b.extend(address(from.ip()));
        b.extend(address(to.ip()));
        b.extend(0u32.to_ne_bytes()); // any interface
        b.extend(u32::MAX.to_ne_bytes()); // INET_DIAG_NOCOOKIE
        b.extend(u32::MAX.to_ne_bytes());
        b
    }

    /// An address in `inet_diag_sockid`'s 16 bytes (IPv4 in the first four).
    pub(crate) fn address(ip: IpAddr) -> [u8; 16] {
        let mut out = [0u8; 16];
        match ip {
            IpAddr::V4(v4) => out[..4].copy_from_slice(&v4.octets()),
            IpAddr::V6(v6) => out = v6.octets(),
        }
        out
    }

    /// The inode from the answer, or why there is none.
    pub(crate) fn parse(answer: &[u8]) -> io::Result<Option<u64>> {
        let short = || io::Error::new(io::ErrorKind::InvalidData, "short sock_diag answer");
        let kind = u16::from_ne_bytes(
            answer
                .get(4..6)
                .ok_or_else(short)?
                .try_into()
                .map_err(|_| short())?,
        );
        if kind == NLMSG_ERROR {
            let code = i32::from_ne_bytes(
                answer
                    .get(16..20)
                    .ok_or_else(short)?
                    .try_into()
                    .map_err(|_| short())?,
            );
            return match -code {
                0 | libc::ENOENT => Ok(None),
                errno => Err(io::Error::from_raw_os_error(errno)),
            };
        }
        if kind != SOCK_DIAG_BY_FAMILY {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("sock_diag answered with message type {kind}"),
            ));
        }
        let inode = answer.get(INODE_AT..INODE_AT + 4).ok_or_else(short)?;
        let inode = u32::from_ne_bytes(inode.try_into().map_err(|_| short())?);
        Ok((inode != 0).then_some(u64::from(inode)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn formats_addresses_like_the_kernel() {
        if cfg!(target_endian = "little") {
            assert_eq!(hex("127.0.0.1:443".parse().unwrap()), "0100007F:01BB");
            assert_eq!(
                hex("[::1]:80".parse().unwrap()),
                "00000000000000000000000001000000:0050"
            );
        }
    }

    #[test]
    fn finds_the_inode_of_a_connection() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0000 100 0 0 10 0\n\
           1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0000 20 4 30 10 -1\n";
        let peer = "127.0.0.1:50000".parse().unwrap();
        let listener = "127.0.0.1:8080".parse().unwrap();
        if cfg!(target_endian = "little") {
            assert_eq!(find_inode(table, peer, listener), Some(222));
            assert_eq!(find_inode(table, listener, peer), None);
        }
    }

    #[test]
    fn netlink_and_proc_agree_on_the_inode() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let _client = TcpStream::connect(local).unwrap();
        let (_server, peer) = listener.accept().unwrap();
        let by_netlink = diag::inode(peer, local).expect("sock_diag").expect("found");
        assert_eq!(proc_inode(peer, local).unwrap(), Some(by_netlink));
        // The other direction is our own (server) socket: another inode.
        let ours = diag::inode(local, peer).expect("sock_diag").expect("found");
        assert_ne!(ours, by_netlink);
        // No such connection.
        let nobody = "127.0.0.1:1".parse().unwrap();
        assert_eq!(diag::inode(nobody, local).expect("sock_diag"), None);
        let v6 = TcpListener::bind("[::1]:0");
        if let Ok(v6) = v6 {
            let local = v6.local_addr().unwrap();
            let _client = TcpStream::connect(local).unwrap();
            let (_server, peer) = v6.accept().unwrap();
            let by_netlink = diag::inode(peer, local)
                .expect("sock_diag v6")
                .expect("found");
            assert_eq!(proc_inode(peer, local).unwrap(), Some(by_netlink));
            assert_eq!(check(peer, local).unwrap(), Verdict::Ours);
        }
    }

    #[test]
    fn a_sock_diag_request_is_laid_out_as_the_kernel_reads_it() {
        let r = diag::request(
            "127.0.0.1:50000".parse().unwrap(),
            "127.0.0.1:443".parse().unwrap(),
        );
        assert_eq!(r.len(), 72);
        assert_eq!(&r[16..18], &[libc::AF_INET as u8, libc::IPPROTO_TCP as u8]);
        assert_eq!(&r[24..28], &[0xc3, 0x50, 0x01, 0xbb]); // ports, network order
        assert_eq!(&r[28..32], &[127, 0, 0, 1]);
        assert_eq!(&r[44..48], &[127, 0, 0, 1]);
        assert!(diag::parse(&r[..3]).is_err());
    }

    #[test]
    fn a_connection_from_this_process_is_ours() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let client = TcpStream::connect(local).unwrap();
        let (_server, peer) = listener.accept().unwrap();
        assert_eq!(check(peer, local).unwrap(), Verdict::Ours);
        drop(client);
        // Once the client end is closed, its socket is in TIME_WAIT or gone: never ours.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_ne!(check(peer, local).unwrap(), Verdict::Ours);
    }

    #[test]
    fn a_connection_from_another_process_is_not_ours() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        // A child process holds the client end (bash's /dev/tcp) and keeps it open.
        let mut child = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "exec 3<>/dev/tcp/127.0.0.1/{}; sleep 5",
                local.port()
            ))
            .spawn()
            .expect("bash");
        let (_server, peer) = listener.accept().unwrap();
        let verdict = check(peer, local).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(verdict, Verdict::NotOurs);
    }
}
