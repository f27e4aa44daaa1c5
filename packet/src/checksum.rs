//! Internet checksums (RFC 1071): IPv4 header, UDP and ICMPv6 with their
//! pseudo-headers (RFC 768, RFC 8200 section 8.1, RFC 4443 section 2.3), and
//! the RFC 4884 extension-structure checksum.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// IP protocol number of UDP.
pub const IPPROTO_UDP: u8 = 17;
/// IP protocol number (next header) of ICMPv6.
pub const IPPROTO_ICMPV6: u8 = 58;

/// 32-bit accumulator of 16-bit big-endian words; an odd trailing byte is
/// padded with zero.
pub fn ones_complement_add(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for w in &mut chunks {
        acc = acc.wrapping_add(u16::from_be_bytes([w[0], w[1]]) as u32);
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    if let [last] = chunks.remainder() {
        acc = acc.wrapping_add((*last as u32) << 8);
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    acc
}

/// Folds an accumulator to 16 bits and complements it.
pub fn fold_complement(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// One's complement of the one's complement sum of `data` (RFC 1071). Run over
/// bytes that include a correct checksum, it returns 0.
pub fn internet_checksum(data: &[u8]) -> u16 {
    fold_complement(ones_complement_add(0, data))
}

/// IPv4 header checksum of `header` (options included); the checksum field
/// (bytes 10..12) is treated as zero whatever it holds.
pub fn ipv4_header_checksum(header: &[u8]) -> u16 {
    let mut acc = 0;
    if header.len() >= 12 {
        acc = ones_complement_add(acc, &header[..10]);
        acc = ones_complement_add(acc, &header[12..]);
    } else {
        acc = ones_complement_add(acc, header);
    }
    fold_complement(acc)
}

fn pseudo_header_sum(src: IpAddr, dst: IpAddr, protocol: u8, upper_len: usize) -> u32 {
    let mut acc = 0;
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            acc = ones_complement_add(acc, &s.octets());
            acc = ones_complement_add(acc, &d.octets());
            acc = ones_complement_add(acc, &[0, protocol]);
            acc = ones_complement_add(acc, &(upper_len as u16).to_be_bytes());
        }
        _ => {
            acc = ones_complement_add(acc, &to_v6(src).octets());
            acc = ones_complement_add(acc, &to_v6(dst).octets());
            acc = ones_complement_add(acc, &(upper_len as u32).to_be_bytes());
            acc = ones_complement_add(acc, &[0, 0, 0, protocol]);
        }
    }
    acc
}

fn to_v6(a: IpAddr) -> Ipv6Addr {
    match a {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

/// Checksum of an upper-layer message with the IPv4 or IPv6 pseudo-header.
/// `message` is the whole UDP datagram or ICMPv6 message, whose checksum field
/// at `checksum_offset` is treated as zero. (For IPv6 the addresses are the
/// final destination's, RFC 8200 section 8.1.)
pub fn pseudo_header_checksum(
    src: IpAddr,
    dst: IpAddr,
    protocol: u8,
    message: &[u8],
    checksum_offset: usize,
) -> u16 {
    let mut acc = pseudo_header_sum(src, dst, protocol, message.len());
    if message.len() >= checksum_offset + 2 {
        acc = ones_complement_add(acc, &message[..checksum_offset]);
        // Keep word alignment: a checksum at an even offset splits cleanly.
        acc = ones_complement_add(acc, &message[checksum_offset + 2..]);
    } else {
        acc = ones_complement_add(acc, message);
    }
    fold_complement(acc)
}

/// UDP checksum over IPv4; 0 is sent as 0xFFFF (RFC 768).
pub fn udp_checksum_ipv4(src: Ipv4Addr, dst: Ipv4Addr, datagram: &[u8]) -> u16 {
    nonzero(pseudo_header_checksum(
        src.into(),
        dst.into(),
        IPPROTO_UDP,
        datagram,
        6,
    ))
}

/// UDP checksum over IPv6; 0 is sent as 0xFFFF (RFC 8200 section 8.1).
pub fn udp_checksum_ipv6(src: Ipv6Addr, dst: Ipv6Addr, datagram: &[u8]) -> u16 {
    nonzero(pseudo_header_checksum(
        src.into(),
        dst.into(),
        IPPROTO_UDP,
        datagram,
        6,
    ))
}

/// UDP checksum with the pseudo-header of either IP version.
pub fn udp_checksum(src: IpAddr, dst: IpAddr, datagram: &[u8]) -> u16 {
    nonzero(pseudo_header_checksum(src, dst, IPPROTO_UDP, datagram, 6))
}

/// ICMPv6 checksum (RFC 4443 section 2.3) of a whole ICMPv6 message.
pub fn icmpv6_checksum(src: Ipv6Addr, dst: Ipv6Addr, message: &[u8]) -> u16 {
    pseudo_header_checksum(src.into(), dst.into(), IPPROTO_ICMPV6, message, 2)
}

/// RFC 4884 section 7 extension checksum: one's complement of the one's
/// complement sum of the extension header and all objects, with the checksum
/// field (bytes 2..4 of the extension header) taken as zero.
pub fn extension_checksum(extension: &[u8]) -> u16 {
    let mut acc = 0;
    if extension.len() >= 4 {
        acc = ones_complement_add(acc, &extension[..2]);
        acc = ones_complement_add(acc, &extension[4..]);
    } else {
        acc = ones_complement_add(acc, extension);
    }
    fold_complement(acc)
}

fn nonzero(c: u16) -> u16 {
    if c == 0 {
        0xFFFF
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3 example: sum of these words is 0xddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(internet_checksum(&data), !0xddf2);
    }

    #[test]
    fn connectx4_cnp_ipv4_header_checksum() {
        // IPv4 header of the captured ConnectX-4 Lx CNP; its checksum is 0x9161.
        let h = [
            0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00,
            0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,
        ];
        assert_eq!(ipv4_header_checksum(&h), 0x9161);
        assert_eq!(internet_checksum(&h), 0);
    }
}
