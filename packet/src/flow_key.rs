//! The key of the gateway's flow table: {SIP, DIP, DQP}, what a RoCEv2 data
//! packet carries (DESIGN.md, "Decisions"). The learned source QP is the
//! table's value; key and value together are the four-tuple of
//! draft-tian-ccwg-long-haul-cnp-00, "Flow Table Learning and Maintenance".
//!
//! Addresses are IPv6-sized; IPv4 addresses are IPv4-mapped
//! (`::ffff:a.b.c.d`, [`crate::parsed::ipv4_mapped`]), so one key format
//! serves both families. The hardware layout of the key (`hdl`'s
//! `FlowKeyBits`) and the reference model use this one definition.

use std::fmt;
use std::net::Ipv6Addr;

use crate::parsed::{ipv4_mapped, ParsedHeader};

/// A flow key in plain Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FlowKey {
    /// Source IPv6 address (or IPv4-mapped IPv4 address).
    pub sip: u128,
    /// Destination IPv6 address (or IPv4-mapped IPv4 address).
    pub dip: u128,
    /// BTH destination QP (24 bits).
    pub dqp: u32,
}

impl FlowKey {
    /// Key from 16-byte addresses in network order (IPv4 already mapped).
    pub fn new(sip: [u8; 16], dip: [u8; 16], dqp: u32) -> Self {
        Self {
            sip: u128::from_be_bytes(sip),
            dip: u128::from_be_bytes(dip),
            dqp: dqp & 0xff_ffff,
        }
    }

    /// Key of an IPv4 flow.
    pub fn ipv4(sip: [u8; 4], dip: [u8; 4], dqp: u32) -> Self {
        Self::new(ipv4_mapped(sip), ipv4_mapped(dip), dqp)
    }

    /// Key of an IPv6 flow.
    pub fn ipv6(sip: Ipv6Addr, dip: Ipv6Addr, dqp: u32) -> Self {
        Self::new(sip.octets(), dip.octets(), dqp)
    }

    /// Key of the RoCEv2 packet the header parser saw (meaningful when
    /// `h.class` is `FrameClass::Roce`).
    pub fn of_header(h: &ParsedHeader) -> Self {
        Self::new(h.src_ip, h.dst_ip, h.dest_qp)
    }

    /// The same host pair in the other direction, toward `dqp`.
    pub fn reverse(&self, dqp: u32) -> Self {
        Self {
            sip: self.dip,
            dip: self.sip,
            dqp: dqp & 0xff_ffff,
        }
    }

    /// The 35 bytes the flow table's hash runs over: SIP, DIP, DQP, network
    /// order.
    pub fn to_bytes(&self) -> [u8; 35] {
        let mut b = [0u8; 35];
        b[..16].copy_from_slice(&self.sip.to_be_bytes());
        b[16..32].copy_from_slice(&self.dip.to_be_bytes());
        b[32..].copy_from_slice(&self.dqp.to_be_bytes()[1..]);
        b
    }
}

/// Reflected CRC-32C polynomial (the flow table's hash).
pub const CRC32C_POLY_REFLECTED: u32 = 0x82F6_3B78;

/// CRC-32C (initial value and final xor 0xFFFFFFFF), one bit at a time.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ CRC32C_POLY_REFLECTED
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

impl FlowKey {
    /// The flow table's 32-bit hash of the key: CRC-32C of
    /// [`FlowKey::to_bytes`] (the bucket is its low bits).
    pub fn hash(&self) -> u32 {
        crc32c(&self.to_bytes())
    }

    /// The key's bucket in a table of `2^bucket_bits` buckets.
    pub fn bucket(&self, bucket_bits: usize) -> u32 {
        (self.hash() as u64 & ((1u64 << bucket_bits) - 1)) as u32
    }

    /// The key's bucket in the gateway's table: the gateway hashes the
    /// addresses as they arrive in lane order, each one's 16 bytes
    /// reversed (`hdl/src/flow/flow_hash.rs`).
    pub fn gateway_bucket(&self, bucket_bits: usize) -> u32 {
        FlowKey {
            sip: self.sip.swap_bytes(),
            dip: self.dip.swap_bytes(),
            dqp: self.dqp,
        }
        .bucket(bucket_bits)
    }
}

fn fmt_addr(a: u128, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let v6 = Ipv6Addr::from(a);
    match v6.to_ipv4_mapped() {
        Some(v4) => write!(f, "{v4}"),
        None => write!(f, "{v6}"),
    }
}

/// `10.1.16.62 -> 10.1.16.61 QP 0x3b` (IPv4-mapped addresses as IPv4).
impl fmt::Display for FlowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_addr(self.sip, f)?;
        f.write_str(" -> ")?;
        fmt_addr(self.dip, f)?;
        write!(f, " QP {:#x}", self.dqp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_01_key_of_ipv4_is_mapped_and_prints_as_ipv4() {
        let k = FlowKey::ipv4([10, 1, 16, 62], [10, 1, 16, 61], 0x100_003b);
        assert_eq!(k.dqp, 0x3b);
        assert_eq!(k.sip, 0xffff_0a01_103e);
        assert_eq!(
            &k.to_bytes()[26..],
            &[0xff, 0xff, 10, 1, 16, 61, 0, 0, 0x3b]
        );
        assert_eq!(k.to_string(), "10.1.16.62 -> 10.1.16.61 QP 0x3b");
        let r = k.reverse(0x3d);
        assert_eq!(r.to_string(), "10.1.16.61 -> 10.1.16.62 QP 0x3d");
        let v6 = FlowKey::ipv6("fd00::1".parse().unwrap(), "fd00::2".parse().unwrap(), 7);
        assert_eq!(v6.to_string(), "fd00::1 -> fd00::2 QP 0x7");
    }
}
