//! LH-04 first-level response: the rule of `hdl/src/ecn/ce_marker.rs`.

use cngw_packet::parsed::{ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_VLAN};
use cngw_packet::{ipv4, ipv6, Ecn};

fn be16(f: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([f[at], f[at + 1]])
}

fn ecn_capable(bits: u8) -> bool {
    matches!(Ecn::from_bits(bits), Ecn::Ect0 | Ecn::Ect1)
}

/// Where the CE marker finds the IP header of a frame, as it looks at the
/// first beat: one 802.1Q tag, a complete IP header in the frame, the right
/// version (and IHL >= 5 for IPv4). `(is_ipv6, offset)`.
fn marker_ip(frame: &[u8]) -> Option<(bool, usize)> {
    if frame.len() < 14 {
        return None;
    }
    let (ethertype, l3) = if be16(frame, 12) == ETHERTYPE_VLAN {
        if frame.len() < 18 {
            return None;
        }
        (be16(frame, 16), 18)
    } else {
        (be16(frame, 12), 14)
    };
    let len = frame.len();
    match ethertype {
        ETHERTYPE_IPV4 if len >= l3 + 20 && frame[l3] >> 4 == 4 && frame[l3] & 0x0f >= 5 => {
            Some((false, l3))
        }
        ETHERTYPE_IPV6 if len >= l3 + 40 && frame[l3] >> 4 == 6 => Some((true, l3)),
        _ => None,
    }
}

/// The ECN field of a frame's IP header as the CE marker reads it, when it
/// is ECN-capable (ECT(0), ECT(1) or CE): what the ECN marking rate counts
/// (LH-02). `None` for Not-ECT and for frames the marker does not read.
pub fn marker_ecn(frame: &[u8]) -> Option<Ecn> {
    let (v6, l3) = marker_ip(frame)?;
    let bits = if v6 {
        frame[l3 + 1] >> 4
    } else {
        frame[l3 + 1]
    };
    match Ecn::from_bits(bits & 3) {
        Ecn::NotEct => None,
        e => Some(e),
    }
}

/// Sets CE on an ECN-capable IPv4 or IPv6 packet as the CE marker does;
/// returns whether the frame was marked. The marker looks at the first beat
/// only: one 802.1Q tag, a complete IP header in the frame, the right
/// version (and IHL >= 5 for IPv4), ECT(0) or ECT(1). IPv4 checksums are
/// updated incrementally (RFC 1624).
pub fn ce_mark(frame: &mut [u8]) -> bool {
    set_ecn(frame, Ecn::Ce)
}

/// Whether the marker may change the frame's ECN field: an IP header it
/// reads (as [`ce_mark`]) with ECT(0) or ECT(1). Two-threshold marking
/// (PE-03) draws a random number for each such frame.
pub fn markable(frame: &[u8]) -> bool {
    match marker_ip(frame) {
        Some((false, l3)) => ecn_capable(frame[l3 + 1]),
        Some((true, l3)) => ecn_capable(frame[l3 + 1] >> 4),
        None => false,
    }
}

/// Sets the ECN field of a [`markable`] frame to `ecn` (IPv4 checksum
/// updated incrementally); returns whether the frame was markable.
pub fn set_ecn(frame: &mut [u8], ecn: Ecn) -> bool {
    match marker_ip(frame) {
        Some((false, l3)) if ecn_capable(frame[l3 + 1]) => {
            ipv4::set_ecn_in_place(&mut frame[l3..], ecn).is_ok()
        }
        Some((true, l3)) if ecn_capable(frame[l3 + 1] >> 4) => {
            ipv6::set_ecn_in_place(&mut frame[l3..], ecn).is_ok()
        }
        _ => false,
    }
}
