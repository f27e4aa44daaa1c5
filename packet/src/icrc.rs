//! RoCEv2 Invariant CRC (IBTA Annex A17 section A17.4.1 / IBTA Vol. 1
//! section 7.8.1).
//!
//! CRC-32/IEEE over: 8 bytes of 0xFF (standing in for the LRH), the IP
//! header, the UDP header, the BTH and everything up to the ICRC, with the
//! fields routers may change set to all ones: IPv4 TOS, TTL and header
//! checksum; IPv6 traffic class, flow label and hop limit; the UDP checksum;
//! BTH byte 4 (FECN, BECN and the six reserved bits, so the Long-haul CNP "E"
//! bit is not protected). The result goes on the wire least significant byte
//! first. ECN marking and flow-label rewrites therefore never change it.

use crate::crc32::Crc32;
use crate::error::{ChecksumError, Layer, ParseError};
use crate::ethernet::{ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use crate::frame::ip_offset;

/// Length of the ICRC.
pub const ICRC_LEN: usize = 4;
const UDP_LEN: usize = 8;
const BTH_LEN: usize = 12;

/// Computes the ICRC of an IP packet that ends with its (4-byte) ICRC field;
/// the value in that field is ignored. The packet is `ip_packet` as far as
/// its IP header says (trailing bytes, e.g. Ethernet padding, are ignored).
/// IPv6 packets must carry UDP directly after the fixed header, as RoCEv2
/// requires.
pub fn compute(ip_packet: &[u8]) -> Result<u32, ParseError> {
    let first = *ip_packet
        .first()
        .ok_or_else(|| ParseError::truncated(Layer::Icrc, 1, 0))?;
    let mut masked;
    let udp;
    match first >> 4 {
        4 => {
            let hlen = (first & 0x0F) as usize * 4;
            let total = ip_len(ip_packet, 2, 0)?;
            check_len(total, hlen, ip_packet.len())?;
            masked = ip_packet[..total].to_vec();
            masked[1] = 0xFF; // TOS
            masked[8] = 0xFF; // TTL
            masked[10] = 0xFF; // header checksum
            masked[11] = 0xFF;
            udp = hlen;
        }
        6 => {
            let total = ip_len(ip_packet, 4, 40)?;
            check_len(total, 40, ip_packet.len())?;
            if ip_packet[6] != crate::checksum::IPPROTO_UDP {
                return Err(ParseError::NotThisFormat {
                    layer: Layer::Icrc,
                    field: "IPv6 next header",
                    expected: crate::checksum::IPPROTO_UDP as u64,
                    found: ip_packet[6] as u64,
                });
            }
            masked = ip_packet[..total].to_vec();
            masked[0] |= 0x0F; // traffic class (high nibble)
            masked[1] = 0xFF; // traffic class (low nibble), flow label
            masked[2] = 0xFF;
            masked[3] = 0xFF;
            masked[7] = 0xFF; // hop limit
            udp = 40;
        }
        v => {
            return Err(ParseError::InvalidField {
                layer: Layer::Icrc,
                field: "IP version",
                value: v as u64,
            })
        }
    }
    masked[udp + 6] = 0xFF; // UDP checksum
    masked[udp + 7] = 0xFF;
    masked[udp + UDP_LEN + 4] = 0xFF; // BTH FECN, BECN, reserved
    let mut crc = Crc32::new();
    crc.update(&[0xFF; 8]);
    crc.update(&masked[..masked.len() - ICRC_LEN]);
    Ok(crc.finish())
}

fn ip_len(p: &[u8], at: usize, add: usize) -> Result<usize, ParseError> {
    if p.len() < at + 2 {
        return Err(ParseError::truncated(Layer::Icrc, at + 2, p.len()));
    }
    Ok(u16::from_be_bytes([p[at], p[at + 1]]) as usize + add)
}

fn check_len(total: usize, hlen: usize, available: usize) -> Result<(), ParseError> {
    if total > available {
        return Err(ParseError::BadLength {
            layer: Layer::Icrc,
            field: "IP length",
            value: total,
            available,
        });
    }
    let needed = hlen + UDP_LEN + BTH_LEN + ICRC_LEN;
    if total < needed || hlen < 20 {
        return Err(ParseError::truncated(Layer::Icrc, needed, total));
    }
    Ok(())
}

/// The ICRC carried in an IP packet (its last four bytes by the IP length).
pub fn carried(ip_packet: &[u8]) -> Result<u32, ParseError> {
    let total = match ip_packet.first().map(|b| b >> 4) {
        Some(4) => ip_len(ip_packet, 2, 0)?,
        Some(6) => ip_len(ip_packet, 4, 40)?,
        _ => ip_packet.len(),
    };
    if total > ip_packet.len() || total < ICRC_LEN {
        return Err(ParseError::BadLength {
            layer: Layer::Icrc,
            field: "IP length",
            value: total,
            available: ip_packet.len(),
        });
    }
    let b = &ip_packet[total - ICRC_LEN..total];
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Checks the ICRC an IP packet carries.
pub fn verify(ip_packet: &[u8]) -> Result<(), ChecksumError> {
    let computed = compute(ip_packet)?;
    let found = carried(ip_packet)?;
    if computed != found {
        return Err(ChecksumError::Icrc { computed, found });
    }
    Ok(())
}

/// ICRC of the RoCEv2 packet in an Ethernet frame (after any VLAN tags).
pub fn compute_frame(frame: &[u8]) -> Result<u32, ParseError> {
    let (off, ethertype) = ip_offset(frame)?;
    match ethertype {
        ETHERTYPE_IPV4 | ETHERTYPE_IPV6 => compute(&frame[off..]),
        other => Err(ParseError::NotIp(other)),
    }
}

/// Checks the ICRC of the RoCEv2 packet in an Ethernet frame.
pub fn verify_frame(frame: &[u8]) -> Result<(), ChecksumError> {
    let (off, ethertype) = ip_offset(frame)?;
    match ethertype {
        ETHERTYPE_IPV4 | ETHERTYPE_IPV6 => verify(&frame[off..]),
        other => Err(ParseError::NotIp(other).into()),
    }
}

/// Recomputes the ICRC of the RoCEv2 frame in place (for a frame built or
/// changed by hand).
pub fn fill_frame(frame: &mut [u8]) -> Result<u32, ParseError> {
    let (off, _) = ip_offset(frame)?;
    let value = compute(&frame[off..])?;
    let ip = &frame[off..];
    let total = match ip[0] >> 4 {
        4 => ip_len(ip, 2, 0)?,
        _ => ip_len(ip, 4, 40)?,
    };
    let end = off + total;
    frame[end - ICRC_LEN..end].copy_from_slice(&value.to_le_bytes());
    Ok(value)
}
