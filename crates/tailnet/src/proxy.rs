//! The PROXY protocol, version 2: the header the tailnet node writes in front of a
//! forwarded connection to say which tailnet address it came from.
//!
//! Only what the node sends is accepted: the binary v2 signature, command PROXY, TCP over
//! IPv4 or IPv6, and a header no longer than [`MAX_LEN`]. Everything else (the text v1
//! form, the LOCAL command, UDP, Unix sockets, garbage, a header cut short) is refused: the
//! connection is closed, never served as anonymous, because a forwarder that sends any of
//! them is not the one we configured. TLVs after the addresses are skipped.
//!
//! The header is read exactly, byte for byte, so that what follows (a TLS ClientHello, an
//! HTTP request) stays in the stream untouched.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use tokio::io::{AsyncRead, AsyncReadExt};

/// The 12-byte signature that starts every v2 header.
const SIGNATURE: [u8; 12] = *b"\r\n\r\n\0\r\nQUIT\n";
/// Longest address block plus TLVs we read. Go's node sends 12 (IPv4) or 36 (IPv6) bytes and
/// no TLVs; the spec's largest address block (Unix sockets) is 216.
pub(crate) const MAX_LEN: usize = 256;

/// Why a header was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ProxyError {
    #[error("the connection closed inside the PROXY header")]
    Truncated,
    #[error("a PROXY protocol v1 (text) header; only v2 is accepted")]
    Version1,
    #[error("no PROXY protocol v2 signature")]
    Garbage,
    #[error("PROXY protocol version {0}; only 2 is accepted")]
    Version(u8),
    #[error("PROXY header command LOCAL: no client address")]
    Local,
    #[error("PROXY header command {0:#x} is unknown")]
    Command(u8),
    #[error("PROXY header address family {0:#04x}; only TCP over IPv4 or IPv6 is accepted")]
    Family(u8),
    #[error("PROXY header of {0} bytes; at most {MAX_LEN} are accepted")]
    Oversized(usize),
    #[error("PROXY header of {len} bytes is too short for its addresses ({need})")]
    Short { len: usize, need: usize },
}

/// Reads one v2 header from `io` and returns the client (source) address it names.
pub(crate) async fn read_header<R: AsyncRead + Unpin>(
    io: &mut R,
) -> Result<SocketAddr, ProxyError> {
    let mut fixed = [0u8; 16];
    read_exact(io, &mut fixed[..5]).await?;
    if &fixed[..5] == b"PROXY" {
        return Err(ProxyError::Version1);
    }
    if fixed[..5] != SIGNATURE[..5] {
        return Err(ProxyError::Garbage);
    }
    read_exact(io, &mut fixed[5..]).await?;
    let len = parse_fixed(&fixed)?;
    let mut rest = [0u8; MAX_LEN];
    read_exact(io, &mut rest[..len]).await?;
    parse_addresses(fixed[13], &rest[..len])
}

async fn read_exact<R: AsyncRead + Unpin>(io: &mut R, buf: &mut [u8]) -> Result<(), ProxyError> {
    io.read_exact(buf)
        .await
        .map(|_| ())
        .map_err(|_| ProxyError::Truncated)
}

/// Checks the 16-byte fixed part and returns the length of what follows.
pub(crate) fn parse_fixed(fixed: &[u8; 16]) -> Result<usize, ProxyError> {
    if fixed[..12] != SIGNATURE {
        return Err(ProxyError::Garbage);
    }
    let (version, command) = (fixed[12] >> 4, fixed[12] & 0x0f);
    if version != 2 {
        return Err(ProxyError::Version(version));
    }
    match command {
        0x1 => {}
        0x0 => return Err(ProxyError::Local),
        other => return Err(ProxyError::Command(other)),
    }
    let len = u16::from_be_bytes([fixed[14], fixed[15]]) as usize;
    if len > MAX_LEN {
        return Err(ProxyError::Oversized(len));
    }
    Ok(len)
}

/// The source address from the address block of family `family` (TLVs after it ignored).
pub(crate) fn parse_addresses(family: u8, block: &[u8]) -> Result<SocketAddr, ProxyError> {
    let need = match family {
        0x11 => 12,
        0x21 => 36,
        other => return Err(ProxyError::Family(other)),
    };
    if block.len() < need {
        return Err(ProxyError::Short {
            len: block.len(),
            need,
        });
    }
    let (ip, port_at): (IpAddr, usize) = if family == 0x11 {
        let octets: [u8; 4] = [block[0], block[1], block[2], block[3]];
        (Ipv4Addr::from(octets).into(), 8)
    } else {
        let mut octets = [0u8; 16];
        octets.copy_from_slice(&block[..16]);
        (Ipv6Addr::from(octets).into(), 32)
    };
    let port = u16::from_be_bytes([block[port_at], block[port_at + 1]]);
    Ok(SocketAddr::new(ip, port))
}

/// A v2 PROXY header for TCP from `source` to `dest` (same family), as Go's node writes it.
/// Used by tests, and by anyone checking that a forged header is refused.
pub fn encode(source: SocketAddr, dest: SocketAddr) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    out.push(0x21);
    match (source.ip(), dest.ip()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            out.extend([0x11, 0, 12]);
            out.extend(s.octets());
            out.extend(d.octets());
        }
        (s, d) => {
            let v6 = |ip: IpAddr| match ip {
                IpAddr::V4(v4) => v4.to_ipv6_mapped(),
                IpAddr::V6(v6) => v6,
            };
            out.extend([0x21, 0, 36]);
            out.extend(v6(s).octets());
            out.extend(v6(d).octets());
        }
    }
    out.extend(source.port().to_be_bytes());
    out.extend(dest.port().to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn parse(bytes: &[u8]) -> Result<SocketAddr, ProxyError> {
        let mut io = bytes;
        read_header(&mut io).await
    }

    fn addr(s: &str) -> SocketAddr {
        s.parse().expect("address")
    }

    #[tokio::test]
    async fn reads_what_the_node_sends_and_leaves_the_rest() {
        let mut bytes = encode(addr("100.64.0.1:51234"), addr("100.64.0.2:443"));
        bytes.extend(b"\x16\x03\x01hello");
        let mut io = &bytes[..];
        assert_eq!(read_header(&mut io).await, Ok(addr("100.64.0.1:51234")));
        assert_eq!(io, b"\x16\x03\x01hello");
        let v6 = encode(
            addr("[fd7a:115c:a1e0::1]:7"),
            addr("[fd7a:115c:a1e0::2]:443"),
        );
        assert_eq!(parse(&v6).await, Ok(addr("[fd7a:115c:a1e0::1]:7")));
    }

    #[tokio::test]
    async fn skips_tlvs_after_the_addresses() {
        let mut bytes = encode(addr("100.64.0.1:1"), addr("100.64.0.2:443"));
        bytes[15] = 12 + 4;
        bytes.extend([0x04, 0, 1, 0xaa, b'G']);
        let mut io = &bytes[..];
        assert_eq!(read_header(&mut io).await, Ok(addr("100.64.0.1:1")));
        assert_eq!(io, b"G");
    }

    #[tokio::test]
    async fn refuses_truncated_headers() {
        let bytes = encode(addr("100.64.0.1:1"), addr("100.64.0.2:443"));
        for cut in [0, 3, 5, 12, 15, 16, 20, bytes.len() - 1] {
            assert_eq!(
                parse(&bytes[..cut]).await,
                Err(ProxyError::Truncated),
                "cut at {cut}"
            );
        }
    }

    #[tokio::test]
    async fn refuses_oversized_headers_without_reading_them() {
        let mut bytes = encode(addr("100.64.0.1:1"), addr("100.64.0.2:443"));
        bytes[14..16].copy_from_slice(&(MAX_LEN as u16 + 1).to_be_bytes());
        assert_eq!(parse(&bytes).await, Err(ProxyError::Oversized(MAX_LEN + 1)));
        bytes[14..16].copy_from_slice(&u16::MAX.to_be_bytes());
        assert_eq!(parse(&bytes).await, Err(ProxyError::Oversized(65535)));
    }

    #[tokio::test]
    async fn refuses_v1_local_and_other_commands_and_families() {
        let v1 = b"PROXY TCP4 100.64.0.1 100.64.0.2 1 443\r\n";
        assert_eq!(parse(v1).await, Err(ProxyError::Version1));
        let good = encode(addr("100.64.0.1:1"), addr("100.64.0.2:443"));
        let with = |at: usize, value: u8| {
            let mut b = good.clone();
            b[at] = value;
            b
        };
        assert_eq!(parse(&with(12, 0x20)).await, Err(ProxyError::Local));
        assert_eq!(parse(&with(12, 0x22)).await, Err(ProxyError::Command(2)));
        assert_eq!(parse(&with(12, 0x11)).await, Err(ProxyError::Version(1)));
        assert_eq!(parse(&with(13, 0x12)).await, Err(ProxyError::Family(0x12)));
        assert_eq!(parse(&with(13, 0x31)).await, Err(ProxyError::Family(0x31)));
        // IPv6 family with an IPv4-sized block.
        assert_eq!(
            parse(&with(13, 0x21)).await,
            Err(ProxyError::Short { len: 12, need: 36 })
        );
    }

    #[tokio::test]
    async fn refuses_garbage() {
        assert_eq!(
            parse(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await,
            Err(ProxyError::Garbage)
        );
        assert_eq!(
            parse(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x00\x00\x00\x00\x00").await,
            Err(ProxyError::Garbage)
        );
        let mut almost = encode(addr("100.64.0.1:1"), addr("100.64.0.2:443"));
        almost[9] = b'X';
        assert_eq!(parse(&almost).await, Err(ProxyError::Garbage));
    }
}
