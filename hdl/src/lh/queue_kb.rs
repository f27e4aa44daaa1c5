//! `QueueKb`: a queue depth in bytes as kilobytes (1000 bytes, the draft's
//! Metric Type 1), with the bytes value delayed to match.
//!
//! ```text
//!  qd (bytes) -->[ (qd >> 3) * 549755814 as four 16x16 products ]-->[ sum >> 36 ]--> kb (24 bits, saturated)
//!             -->[ delay ]----------------------------------------->[ delay    ]--> qd_out (bytes)
//! ```
//! `floor(qd / 1000) = floor((qd >> 3) / 125)`, and for `y < 2^29`
//! `floor(y / 125) = floor(y * 549755814 / 2^36)` (549755814 is
//! `ceil(2^36 / 125)`, off by 14 / 2^36 per unit, below the 2^-29 that would
//! change a quotient). rust-hdl only multiplies 16 by 16 bits, so the
//! product is four DSP-sized partial products, summed in the second stage.
//! Latency two clocks; a new depth every clock.

use rust_hdl::prelude::*;

/// `ceil(2^36 / 125)`: high and low 16 bits.
const M_HI: u64 = 549_755_814 >> 16;
const M_LO: u64 = 549_755_814 & 0xFFFF;
const _: () = assert!(M_HI == 8388 && M_LO == 39846);

/// The reference: what `kb` shows for a depth of `qd` bytes.
pub fn queue_kb(qd: u32) -> u32 {
    (qd / 1000).min(0xFF_FFFF)
}

#[derive(LogicBlock, Default)]
pub struct QueueKb {
    pub clock: Signal<In, Clock>,
    pub qd: Signal<In, Bits<32>>,
    pub kb: Signal<Out, Bits<24>>,
    /// `qd` two clocks ago: the depth `kb` belongs to.
    pub qd_out: Signal<Out, Bits<32>>,
    y: Signal<Local, Bits<29>>,
    hh: DFF<Bits<32>>,
    hl: DFF<Bits<32>>,
    lh: DFF<Bits<32>>,
    ll: DFF<Bits<32>>,
    qd_1: DFF<Bits<32>>,
    kb_2: DFF<Bits<24>>,
    qd_2: DFF<Bits<32>>,
    product: Signal<Local, Bits<64>>,
    quotient: Signal<Local, Bits<28>>,
}

impl Logic for QueueKb {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hh, hl, lh, ll, qd_1, kb_2, qd_2);
        self.y.next = self.qd.val().get_bits::<29>(3);
        self.hh.d.next = bit_cast::<16, 13>(self.y.val().get_bits::<13>(16)) * bits::<16>(8388);
        self.hl.d.next = bit_cast::<16, 13>(self.y.val().get_bits::<13>(16)) * bits::<16>(39846);
        self.lh.d.next = self.y.val().get_bits::<16>(0) * bits::<16>(8388);
        self.ll.d.next = self.y.val().get_bits::<16>(0) * bits::<16>(39846);
        self.qd_1.d.next = self.qd.val();
        self.product.next = (bit_cast::<64, 32>(self.hh.q.val()) << 32)
            + (bit_cast::<64, 32>(self.hl.q.val()) << 16)
            + (bit_cast::<64, 32>(self.lh.q.val()) << 16)
            + bit_cast::<64, 32>(self.ll.q.val());
        self.quotient.next = self.product.val().get_bits::<28>(36);
        self.kb_2.d.next = self.quotient.val().get_bits::<24>(0);
        if self.quotient.val().get_bits::<4>(24).any() {
            self.kb_2.d.next = 0xFF_FFFF.into();
        }
        self.qd_2.d.next = self.qd_1.q.val();
        self.kb.next = self.kb_2.q.val();
        self.qd_out.next = self.qd_2.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_queue_kb_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<QueueKb>("queue_kb");
    }

    /// The arithmetic the block does, in Rust, against division, on the
    /// edges and around every multiple of 1000 near them.
    #[test]
    fn lh_07_queue_kb_arithmetic_is_exact() {
        let block = |qd: u32| {
            let y = (qd >> 3) as u64;
            let p = (y >> 16) * M_HI * (1 << 32)
                + (((y >> 16) * M_LO) << 16)
                + (((y & 0xFFFF) * M_HI) << 16)
                + (y & 0xFFFF) * M_LO;
            ((p >> 36) as u32).min(0xFF_FFFF)
        };
        let mut x: u64 = 0;
        while x < 1 << 32 {
            for d in [0u64, 1, 7, 8, 999, 1000, 1001] {
                let qd = (x + d).min(u32::MAX as u64) as u32;
                assert_eq!(block(qd), queue_kb(qd), "{qd}");
            }
            x = x * 3 + 997;
        }
        assert_eq!(block(u32::MAX), queue_kb(u32::MAX));
        assert_eq!(queue_kb(130_000_000), 130_000);
    }
}
