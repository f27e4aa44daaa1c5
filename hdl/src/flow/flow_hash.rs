//! `FlowHash`: one candidate bucket of a flow key (8-choice d-left).
//!
//! ```text
//!             +------------------------------------+
//!  key 280 -->| bucket = bank << (BUCKET_BITS - 3) |--> bucket (BUCKET_BITS)
//!             |   | hash[bank*I .. bank*I + I]     |
//!             +------------------------------------+
//! ```
//! The key's 96-bit hash is CRC-64/XZ (reflected ECMA-182 polynomial
//! 0xC96C5795D7870F42, initial value and final xor all ones) of the key's
//! 35 bytes in network order (SIP 16, DIP 16, DQP 3) in bits 95..32, and
//! the standard CRC-32C (Castagnoli, reflected 0x82F63B78, the iSCSI/SCTP
//! CRC) of the same bytes in bits 31..0 ([`cngw_packet::flow_key::FlowKey::hash`]).
//! The table's buckets are 8 banks of 2^I, I = BUCKET_BITS - 3; the key's
//! candidate in bank `b` is bucket `b << I | hash[b*I .. b*I + I]`
//! ([`flow_candidates`], `FlowKey::candidates`). One `FlowHash` computes
//! one bank's candidate ([`FlowHash::candidate`]); the table has eight.
//!
//! In the gateway the addresses arrive in lane order (the header parser's
//! and the CSR path's byte 0 in bits 7..0), so there the hash runs over each
//! address's 16 bytes reversed: the candidates of a key whose `sip`/`dip`
//! are the byte-reversed addresses (`FlowKey::gateway_candidates`). The
//! data path and the CSR commands use the same order, so every flow has one
//! set of candidates; a driver that wants to predict bucket numbers must
//! reverse the addresses first.
//!
//! How: a CRC is affine over GF(2), so each output bit is the parity of the
//! key bits a constant row selects, xor a constant (the hash of the all-zero
//! key). The rows are computed in Rust at construction from the reference
//! hash itself, so the hardware cannot drift from the reference.
//! Combinational, no latency: I parity trees of about 140 inputs each per
//! bank (three LUT6 levels; 72 trees, roughly 2K LUTs, for the gateway's
//! 4096 buckets).
//!
//! draft-tian-ccwg-long-haul-cnp-00, "Flow Table Learning and Maintenance":
//! the flow table's lookup; the draft leaves the table's organisation open.

use super::flow_entry::{FlowKey, KEY_BITS};
use rust_hdl::prelude::*;

pub use cngw_packet::flow_key::{
    crc32c, crc64_xz, BANKS, CRC32C_POLY_REFLECTED, CRC64_XZ_POLY_REFLECTED, HASH_BITS,
};

/// The 96-bit hash of a flow key.
pub fn flow_hash(key: &FlowKey) -> u128 {
    key.hash()
}

/// The candidate buckets of `key` in a table of `2^bucket_bits` buckets.
pub fn flow_candidates(key: &FlowKey, bucket_bits: usize) -> [u32; BANKS] {
    key.candidates(bucket_bits)
}

/// Row `j` (over the 280 key bits) and constant of hash bit `j`:
/// bit j of `flow_hash(k)` = parity(k & rows[j]) ^ (constant >> j & 1).
pub fn hash_rows() -> (Vec<Bits<KEY_BITS>>, u128) {
    let hash = |bytes: &[u8; 35]| (crc64_xz(bytes) as u128) << 32 | crc32c(bytes) as u128;
    let constant = hash(&[0u8; 35]);
    let mut rows = vec![Bits::<KEY_BITS>::default(); HASH_BITS];
    for byte in 0..35 {
        for bit in 0..8 {
            let mut bytes = [0u8; 35];
            bytes[byte] = 1 << bit;
            let column = hash(&bytes) ^ constant;
            // Byte 0 is key bits 279..272, byte 34 bits 7..0.
            let key_bit = 8 * (34 - byte) + bit;
            for (j, row) in rows.iter_mut().enumerate() {
                if column >> j & 1 != 0 {
                    *row = row.replace_bit(key_bit, true);
                }
            }
        }
    }
    (rows, constant)
}

#[derive(LogicBlock)]
pub struct FlowHash<const BUCKET_BITS: usize> {
    pub key: Signal<In, Bits<KEY_BITS>>,
    pub bucket: Signal<Out, Bits<BUCKET_BITS>>,
    rows: Vec<Constant<Bits<KEY_BITS>>>,
    constant: Constant<Bits<BUCKET_BITS>>,
    crc: Signal<Local, Bits<BUCKET_BITS>>,
}

impl<const BUCKET_BITS: usize> FlowHash<BUCKET_BITS> {
    /// The candidate of bank `bank` (0..8): the index bits from the hash,
    /// the bank bits constant (their rows are empty).
    pub fn candidate(bank: usize) -> Self {
        assert!((4..=19).contains(&BUCKET_BITS), "4 to 19 bucket bits");
        assert!(bank < BANKS);
        let index_bits = BUCKET_BITS - 3;
        let (rows, constant) = hash_rows();
        let mut my_rows = vec![Bits::<KEY_BITS>::default(); BUCKET_BITS];
        let mut my_constant = (bank as u64) << index_bits;
        for j in 0..index_bits {
            my_rows[j] = rows[bank * index_bits + j];
            my_constant |= ((constant >> (bank * index_bits + j)) as u64 & 1) << j;
        }
        Self {
            key: Default::default(),
            bucket: Default::default(),
            rows: my_rows.into_iter().map(Constant::new).collect(),
            constant: Constant::new(my_constant.to_bits()),
            crc: Default::default(),
        }
    }
}

impl<const BUCKET_BITS: usize> Default for FlowHash<BUCKET_BITS> {
    /// Bank 0's candidate.
    fn default() -> Self {
        Self::candidate(0)
    }
}

impl<const BUCKET_BITS: usize> Logic for FlowHash<BUCKET_BITS> {
    #[hdl_gen]
    fn update(&mut self) {
        self.crc.next = self.constant.val();
        for j in 0..BUCKET_BITS {
            self.crc.next = self.crc.val().replace_bit(
                j,
                self.constant.val().get_bit(j) ^ (self.key.val() & self.rows[j].val()).xor(),
            );
        }
        self.bucket.next = self.crc.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::flow_entry::{ipv4_mapped, FlowKeyBits};

    #[test]
    fn lh_01_hash_is_standard_crc32c_and_crc64_xz() {
        // The check values of the CRC catalogue.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc64_xz(b"123456789"), 0x995D_C9BB_DF19_39FA);
    }

    fn random_keys(n: usize) -> Vec<FlowKey> {
        let mut seed = 0x1234_5678_9abc_def0_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        (0..n)
            .map(|_| FlowKey {
                sip: (next() as u128) << 64 | next() as u128,
                dip: ipv4_mapped((next() as u32).to_be_bytes()),
                dqp: next() as u32 & 0xff_ffff,
            })
            .collect()
    }

    #[test]
    fn lh_01_hash_rows_reproduce_the_reference() {
        let (rows, constant) = hash_rows();
        for key in random_keys(200) {
            let bits = key.to_bits();
            let mut h = 0u128;
            for (j, row) in rows.iter().enumerate() {
                let bit = (bits & *row).xor() ^ (constant >> j & 1 != 0);
                h |= (bit as u128) << j;
            }
            assert_eq!(h, flow_hash(&key));
        }
    }

    /// Each bank's `FlowHash`, simulated, gives that bank's entry of
    /// `FlowKey::candidates` (the packet crate's reference).
    fn candidates_match<const B: usize>() {
        let keys = random_keys(40);
        for bank in 0..BANKS {
            let mut uut = FlowHash::<B>::candidate(bank);
            uut.connect_all();
            for key in &keys {
                uut.key.next = key.to_bits();
                for _ in 0..4 {
                    uut.update_all();
                }
                assert_eq!(
                    uut.bucket.val().to_u32(),
                    flow_candidates(key, B)[bank],
                    "bank {bank}, {key}"
                );
            }
        }
    }

    #[test]
    fn lh_01_flow_hash_blocks_give_the_reference_candidates() {
        candidates_match::<4>();
        candidates_match::<12>();
        candidates_match::<14>();
    }

    #[test]
    fn lh_01_flow_hash_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<FlowHash<12>>("flow_hash");
    }
}
