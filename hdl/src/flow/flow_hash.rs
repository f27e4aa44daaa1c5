//! `FlowHash`: the bucket index of a flow key, CRC-32C of the key bytes.
//!
//! ```text
//!             +---------------------------+
//!  key 280 -->| bucket = CRC-32C(SIP|DIP| |--> bucket (BUCKET_BITS)
//!             |   DQP) mod 2^BUCKET_BITS  |
//!             +---------------------------+
//! ```
//! The hash is the standard CRC-32C (Castagnoli; reflected polynomial
//! 0x82F63B78, initial value and final xor 0xFFFFFFFF: the iSCSI/SCTP CRC)
//! of the key's 35 bytes in network order (SIP 16, DIP 16, DQP 3), and the
//! bucket is its low `BUCKET_BITS` bits. [`flow_hash`] is the Rust reference
//! that the tests, the reference model and later the driver use.
//!
//! In the gateway the addresses arrive in lane order (the header parser's
//! and the CSR path's byte 0 in bits 7..0), so there the hash runs over each
//! address's 16 bytes reversed: `flow_hash` of a key whose `sip`/`dip` are
//! the byte-reversed addresses. The data path and the CSR commands use the
//! same order, so every flow has one bucket; a driver that wants to predict
//! bucket numbers must reverse the addresses first.
//!
//! How: a CRC is affine over GF(2), so each output bit is the parity of the
//! key bits a constant row selects, xor a constant (the CRC of the all-zero
//! key). The rows are computed in Rust at construction from [`flow_hash`]
//! itself, so the hardware cannot drift from the reference. Combinational,
//! no latency: `BUCKET_BITS` parity trees of about 140 inputs each (three
//! LUT6 levels; 12 trees, roughly 350 LUTs, for the 16K-entry table).
//!
//! draft-tian-ccwg-long-haul-cnp-00, "Flow Table Learning and Maintenance":
//! the flow table's lookup; the draft leaves the table's organisation open.

use super::flow_entry::{FlowKey, KEY_BITS};
use rust_hdl::prelude::*;

pub use cngw_packet::flow_key::{crc32c, CRC32C_POLY_REFLECTED};

/// The 32-bit hash of a flow key (the bucket is its low bits).
pub fn flow_hash(key: &FlowKey) -> u32 {
    key.hash()
}

/// The bucket of `key` in a table of `2^bucket_bits` buckets.
pub fn flow_bucket(key: &FlowKey, bucket_bits: usize) -> u32 {
    key.bucket(bucket_bits)
}

/// Row `j` (over the 280 key bits) and constant of hash bit `j`:
/// bit j of `flow_hash(k)` = parity(k & rows[j]) ^ (constant >> j & 1).
pub fn hash_rows() -> (Vec<Bits<KEY_BITS>>, u32) {
    let constant = crc32c(&[0u8; 35]);
    let mut rows = vec![Bits::<KEY_BITS>::default(); 32];
    for byte in 0..35 {
        for bit in 0..8 {
            let mut bytes = [0u8; 35];
            bytes[byte] = 1 << bit;
            let column = crc32c(&bytes) ^ constant;
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

impl<const BUCKET_BITS: usize> Default for FlowHash<BUCKET_BITS> {
    fn default() -> Self {
        assert!((1..=32).contains(&BUCKET_BITS), "1 to 32 bucket bits");
        let (rows, constant) = hash_rows();
        let mask = ((1u64 << BUCKET_BITS) - 1) as u32;
        Self {
            key: Default::default(),
            bucket: Default::default(),
            rows: rows
                .into_iter()
                .take(BUCKET_BITS)
                .map(Constant::new)
                .collect(),
            constant: Constant::new(((constant & mask) as u64).to_bits()),
            crc: Default::default(),
        }
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
    fn lh_01_hash_is_standard_crc32c() {
        // The CRC-32C check value (RFC 3720 / the CRC catalogue).
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn lh_01_hash_rows_reproduce_the_reference() {
        let (rows, constant) = hash_rows();
        let mut seed = 0x1234_5678_9abc_def0_u64;
        for _ in 0..200 {
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            let key = FlowKey {
                sip: (next() as u128) << 64 | next() as u128,
                dip: ipv4_mapped((next() as u32).to_be_bytes()),
                dqp: next() as u32 & 0xff_ffff,
            };
            let bits = key.to_bits();
            let mut h = 0u32;
            for (j, row) in rows.iter().enumerate() {
                let bit = (bits & *row).xor() ^ (constant >> j & 1 != 0);
                h |= (bit as u32) << j;
            }
            assert_eq!(h, flow_hash(&key));
        }
    }

    #[test]
    fn lh_01_flow_hash_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<FlowHash<12>>("flow_hash");
    }
}
