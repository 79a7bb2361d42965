//! Is the other end of a loopback connection held by this very process?
//!
//! The forwarded listeners ([`super::forward`]) sit on a loopback port that every local
//! process can connect to, and what a connection says first (a PROXY header) names the
//! tailnet user. Only the embedded node, which dials from inside this process, may say it.
//! So for each connection we find the kernel's socket for the *client* end (its local
//! address is our peer, its remote address is our listener) in `/proc/self/net/tcp{,6}`,
//! take its inode, and look for that inode among our own open descriptors
//! (`/proc/self/fd/* -> socket:[inode]`).
//!
//! `/proc/self` is what the NixOS unit's `ProtectProc=invisible` leaves visible (it hides
//! *other* processes), and `/proc/self/net` is the process's own network namespace, so
//! this also works where `/proc/net` might not.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

/// What the check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The client socket is one of this process's descriptors.
    Ours,
    /// The client socket exists but another process holds it.
    NotOurs,
    /// No such connection in the kernel's table (it closed meanwhile).
    Gone,
}

/// Checks the connection from `peer` to our listener at `local`.
pub fn check(peer: SocketAddr, local: SocketAddr) -> io::Result<Verdict> {
    let table = match peer.ip() {
        IpAddr::V4(_) => "/proc/self/net/tcp",
        IpAddr::V6(_) => "/proc/self/net/tcp6",
    };
    let text = std::fs::read_to_string(table)?;
    let Some(inode) = find_inode(&text, peer, local) else {
        return Ok(Verdict::Gone);
    };
    if holds_socket(Path::new("/proc/self/fd"), inode)? {
        Ok(Verdict::Ours)
    } else {
        Ok(Verdict::NotOurs)
    }
}

/// The inode of the socket whose local address is `from` and remote address `to`, in the
/// text of `/proc/net/tcp` or `/proc/net/tcp6`.
fn find_inode(table: &str, from: SocketAddr, to: SocketAddr) -> Option<u64> {
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
fn hex(addr: SocketAddr) -> String {
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
fn holds_socket(fd_dir: &Path, inode: u64) -> io::Result<bool> {
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
