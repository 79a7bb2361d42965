//! Which resolved addresses a page may be fetched from: public unicast only.
//!
//! [`refused`] names the rule an address breaks, or `None` for a public unicast address.
//! IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, the NAT64 prefix
//! `64:ff9b::/96` and 6to4 `2002::/16`) are judged by the IPv4 address inside them;
//! IPv4-compatible `::a.b.c.d` is deprecated and refused outright.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The rule `ip` breaks, if it is not a public unicast address.
pub(crate) fn refused(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => refused_v6(v6),
    }
}

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let rule = match (a, b, c) {
        _ if ip == Ipv4Addr::new(169, 254, 169, 254) => "cloud metadata address",
        _ if ip.is_broadcast() => "broadcast address",
        (0, _, _) => "unspecified or \"this network\" address (0.0.0.0/8)",
        (127, _, _) => "loopback address (127.0.0.0/8)",
        (10, _, _) => "private address (10.0.0.0/8)",
        (172, 16..=31, _) => "private address (172.16.0.0/12)",
        (192, 168, _) => "private address (192.168.0.0/16)",
        (100, 64..=127, _) => "CGNAT or tailnet address (100.64.0.0/10)",
        (169, 254, _) => "link-local address (169.254.0.0/16)",
        (192, 0, 0) => "IETF protocol address (192.0.0.0/24)",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation address",
        (192, 88, 99) => "6to4 relay address (192.88.99.0/24)",
        (198, 18..=19, _) => "benchmarking address (198.18.0.0/15)",
        (224..=239, _, _) => "multicast address (224.0.0.0/4)",
        (240..=255, _, _) => "reserved address (240.0.0.0/4)",
        _ => return None,
    };
    Some(rule)
}

fn refused_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return refused_v4(v4).map(|_| "IPv4-mapped IPv6 form of a refused IPv4 address");
    }
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    let rule = match s {
        _ if ip.is_unspecified() => "unspecified address (::)",
        _ if ip.is_loopback() => "loopback address (::1)",
        [0, 0, 0, 0, 0, 0, _, _] => "IPv4-compatible IPv6 address (deprecated)",
        [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254] => "cloud metadata address",
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => {
            return refused_v4(embedded(hi, lo)).map(|_| "NAT64 form of a refused IPv4 address");
        }
        [0x64, 0xff9b, 1, ..] => "local-use NAT64 address (64:ff9b:1::/48)",
        [0x2002, hi, lo, ..] => {
            return refused_v4(embedded(hi, lo)).map(|_| "6to4 form of a refused IPv4 address");
        }
        [0x100, 0, 0, 0, ..] => "discard-only address (100::/64)",
        [0x2001, 0x0db8, ..] => "documentation address (2001:db8::/32)",
        [0x3fff, b, ..] if b < 0x1000 => "documentation address (3fff::/20)",
        [0x2001, b, ..] if b < 0x200 => "IETF protocol address (2001::/23, Teredo included)",
        [a, ..] if a & 0xfe00 == 0xfc00 => "unique local address (fc00::/7)",
        [a, ..] if a & 0xffc0 == 0xfe80 => "link-local address (fe80::/10)",
        [a, ..] if a & 0xffc0 == 0xfec0 => "site-local address (fec0::/10)",
        [a, ..] if a & 0xff00 == 0xff00 => "multicast address (ff00::/8)",
        [a, ..] if a & 0xe000 != 0x2000 => "not a global unicast address (2000::/3)",
        _ => return None,
    };
    Some(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Option<&'static str> {
        refused(text.parse().unwrap())
    }

    #[test]
    fn public_unicast_addresses_pass() {
        for ok in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.215.14",
            "172.32.0.1",
            "100.128.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:81c::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
        ] {
            assert_eq!(rule(ok), None, "{ok}");
        }
    }

    #[test]
    fn every_private_loopback_link_local_cgnat_and_special_range_is_refused() {
        let cases = [
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "this network"),
            ("127.0.0.1", "loopback"),
            ("127.255.255.254", "loopback"),
            ("10.0.0.1", "private"),
            ("10.255.255.255", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("100.64.0.1", "CGNAT"),
            ("100.100.100.100", "tailnet"),
            ("100.127.255.255", "CGNAT"),
            ("169.254.0.1", "link-local"),
            ("169.254.169.254", "metadata"),
            ("192.0.0.192", "IETF"),
            ("192.0.2.1", "documentation"),
            ("198.51.100.7", "documentation"),
            ("203.0.113.9", "documentation"),
            ("198.18.0.1", "benchmarking"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.255", "broadcast"),
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("fe80::1", "link-local"),
            ("febf::1", "link-local"),
            ("fec0::1", "site-local"),
            ("fc00::1", "unique local"),
            ("fd7a:115c:a1e0::1", "unique local"),
            ("fd00:ec2::254", "metadata"),
            ("ff02::1", "multicast"),
            ("ff05::2", "multicast"),
            ("2001:db8::1", "documentation"),
            ("3fff::1", "documentation"),
            ("2001:0:4136:e378::1", "Teredo"),
            ("100::1", "discard"),
            ("::ffff:127.0.0.1", "IPv4-mapped"),
            ("::ffff:10.1.2.3", "IPv4-mapped"),
            ("::ffff:169.254.169.254", "IPv4-mapped"),
            ("::ffff:100.100.100.100", "IPv4-mapped"),
            ("::127.0.0.1", "IPv4-compatible"),
            ("::8.8.8.8", "IPv4-compatible"),
            ("64:ff9b::7f00:1", "NAT64"),
            ("64:ff9b::a9fe:a9fe", "NAT64"),
            ("64:ff9b:1::1", "NAT64"),
            ("2002:7f00:1::1", "6to4"),
            ("2002:c0a8:101::1", "6to4"),
            ("4000::1", "global unicast"),
        ];
        for (address, rule_has) in cases {
            let found = rule(address).unwrap_or_else(|| panic!("{address} must be refused"));
            assert!(found.contains(rule_has), "{address}: {found}");
        }
    }
}
