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

/// Reflected CRC-64/XZ polynomial (ECMA-182 reflected; the flow table's
/// candidate hash, with CRC-32C).
pub const CRC64_XZ_POLY_REFLECTED: u64 = 0xC96C_5795_D787_0F42;

/// CRC-64/XZ (initial value and final xor all ones; reflected ECMA-182),
/// one bit at a time.
pub fn crc64_xz(bytes: &[u8]) -> u64 {
    let mut crc = !0u64;
    for &b in bytes {
        crc ^= b as u64;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ CRC64_XZ_POLY_REFLECTED
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Banks of the flow table: a key has one candidate bucket in each.
pub const BANKS: usize = 8;
/// Bits of [`FlowKey::hash`].
pub const HASH_BITS: usize = 96;

impl FlowKey {
    /// The flow table's 96-bit hash of the key: CRC-64/XZ of
    /// [`FlowKey::to_bytes`] in bits 95..32, CRC-32C of the same bytes in
    /// bits 31..0. Both CRCs are affine over GF(2), so the hash is too.
    pub fn hash(&self) -> u128 {
        let b = self.to_bytes();
        (crc64_xz(&b) as u128) << 32 | crc32c(&b) as u128
    }

    /// The key's candidate buckets in a table of `2^bucket_bits` buckets
    /// (8-choice d-left): the buckets are split into [`BANKS`] banks of
    /// `2^(bucket_bits - 3)`, bucket = `bank << (bucket_bits - 3) | index`,
    /// and bank `i`'s index is bits `[i * (bucket_bits - 3), (i + 1) *
    /// (bucket_bits - 3))` of [`FlowKey::hash`].
    pub fn candidates(&self, bucket_bits: usize) -> [u32; BANKS] {
        candidates_of(self.hash(), bucket_bits)
    }

    /// The key as the gateway hashes it: the addresses as they arrive in
    /// lane order, each one's 16 bytes reversed (`hdl/src/flow/flow_hash.rs`).
    pub fn gateway_order(&self) -> FlowKey {
        FlowKey {
            sip: self.sip.swap_bytes(),
            dip: self.dip.swap_bytes(),
            dqp: self.dqp,
        }
    }

    /// The key's candidate buckets in the gateway's table (the gateway's
    /// byte order, [`FlowKey::gateway_order`]).
    pub fn gateway_candidates(&self, bucket_bits: usize) -> [u32; BANKS] {
        self.gateway_order().candidates(bucket_bits)
    }

    /// `n` distinct keys with the candidate buckets of `self` (`self`
    /// first), for tests that crowd one set of candidates. `gateway`: the
    /// gateway's byte order ([`FlowKey::gateway_candidates`]), else
    /// [`FlowKey::candidates`].
    ///
    /// The keys differ from `self` in the low 96 bits of the SIP and in the
    /// DQP (the SIP's top 32 bits and the DIP stay): as the hash is affine,
    /// `key ^ v` has the hash of `key` for every `v` in the kernel of its
    /// linear part, and a Gaussian elimination over GF(2) of the hash's
    /// columns on those 120 bits finds a basis of that kernel. Panics if
    /// the kernel has fewer than `n` elements.
    pub fn with_same_candidates(
        &self,
        bucket_bits: usize,
        n: usize,
        gateway: bool,
    ) -> Vec<FlowKey> {
        assert!((4..=14).contains(&bucket_bits), "4 to 14 bucket bits");
        let used = BANKS * (bucket_bits - 3);
        let mask = if used >= 128 {
            !0u128
        } else {
            (1u128 << used) - 1
        };
        let h = |k: &FlowKey| {
            let k = if gateway { k.gateway_order() } else { *k };
            k.hash() & mask
        };
        // The 120 variable bits: SIP bits 0..96, then DQP bits 0..24.
        let delta = |v: u128| FlowKey {
            sip: v & ((1u128 << 96) - 1),
            dip: 0,
            dqp: (v >> 96) as u32 & 0xff_ffff,
        };
        let zero = h(&FlowKey::default());
        // Reduced columns (pivot -> (value, combination)) and kernel basis.
        let mut basis: Vec<(u128, u128)> = Vec::new();
        let mut kernel: Vec<u128> = Vec::new();
        for j in 0..120 {
            let mut value = h(&delta(1u128 << j)) ^ zero;
            let mut combination = 1u128 << j;
            for &(bv, bc) in &basis {
                let pivot = 127 - bv.leading_zeros();
                if value >> pivot & 1 != 0 {
                    value ^= bv;
                    combination ^= bc;
                }
            }
            if value == 0 {
                kernel.push(combination);
            } else {
                // Keep the basis reduced on the new pivot.
                let pivot = 127 - value.leading_zeros();
                for b in basis.iter_mut() {
                    if b.0 >> pivot & 1 != 0 {
                        b.0 ^= value;
                        b.1 ^= combination;
                    }
                }
                basis.push((value, combination));
            }
        }
        assert!(
            kernel.len() >= 64 || n <= 1usize << kernel.len(),
            "only 2^{} keys share the candidates",
            kernel.len()
        );
        let want = self.candidates_in(bucket_bits, gateway);
        (0..n as u64)
            .map(|i| {
                let v = (0..kernel.len().min(64))
                    .filter(|&b| i >> b & 1 != 0)
                    .fold(0u128, |v, b| v ^ kernel[b]);
                let d = delta(v);
                let k = FlowKey {
                    sip: self.sip ^ d.sip,
                    dip: self.dip,
                    dqp: self.dqp ^ d.dqp,
                };
                debug_assert_eq!(k.candidates_in(bucket_bits, gateway), want);
                k
            })
            .collect()
    }

    fn candidates_in(&self, bucket_bits: usize, gateway: bool) -> [u32; BANKS] {
        if gateway {
            self.gateway_candidates(bucket_bits)
        } else {
            self.candidates(bucket_bits)
        }
    }
}

/// The candidate buckets of a [`FlowKey::hash`] value.
pub fn candidates_of(hash: u128, bucket_bits: usize) -> [u32; BANKS] {
    assert!((4..=19).contains(&bucket_bits), "4 to 19 bucket bits");
    let index_bits = bucket_bits - 3;
    let mask = (1u128 << index_bits) - 1;
    let mut c = [0u32; BANKS];
    for (bank, c) in c.iter_mut().enumerate() {
        let index = (hash >> (bank * index_bits)) & mask;
        *c = (bank as u32) << index_bits | index as u32;
    }
    c
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

    #[test]
    fn lh_01_hash_is_crc64_xz_over_crc32c() {
        // The CRC catalogue's check values.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc64_xz(b"123456789"), 0x995D_C9BB_DF19_39FA);
        let k = FlowKey::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 7);
        let b = k.to_bytes();
        assert_eq!(k.hash(), (crc64_xz(&b) as u128) << 32 | crc32c(&b) as u128);
        let c = k.candidates(12);
        for (bank, &bucket) in c.iter().enumerate() {
            assert_eq!(bucket >> 9, bank as u32);
            assert_eq!(bucket & 511, (k.hash() >> (9 * bank)) as u32 & 511);
        }
    }

    #[test]
    fn lh_01_keys_with_the_same_candidates() {
        let base = FlowKey::ipv6("fd00::1".parse().unwrap(), "fd00::2".parse().unwrap(), 5);
        for (bits, gateway) in [(12, true), (12, false), (14, true), (4, false)] {
            let keys = base.with_same_candidates(bits, 50, gateway);
            assert_eq!(keys[0], base);
            let set: std::collections::BTreeSet<_> = keys.iter().collect();
            assert_eq!(set.len(), 50);
            for k in &keys {
                let (a, b) = if gateway {
                    (k.gateway_candidates(bits), base.gateway_candidates(bits))
                } else {
                    (k.candidates(bits), base.candidates(bits))
                };
                assert_eq!(a, b);
                assert_eq!((k.dip, k.sip >> 96), (base.dip, base.sip >> 96));
            }
        }
    }
}
