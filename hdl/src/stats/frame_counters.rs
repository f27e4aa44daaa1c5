//! `FrameCounters`: the per-direction frame counters read through the CSR block.
//!
//! ```text
//!   hdr_valid, class_* -->+----------------+--> rx_frames, roce_frames,
//!   tx_frame           -->| 32-bit counters|--> non_roce_frames, malformed_frames,
//!   clear              -->+----------------+--> tx_frames
//! ```
//! One event per counter per clock at most, so counting keeps up with the
//! parser at line rate. Counters wrap at 2^32; `clear` (the CONTROL
//! register's `clear_counters` strobe) zeroes them all.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FrameCounters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub hdr_valid: Signal<In, Bit>,
    pub class_roce: Signal<In, Bit>,
    pub class_non_roce: Signal<In, Bit>,
    pub class_malformed: Signal<In, Bit>,
    pub tx_frame: Signal<In, Bit>,
    pub rx_frames: Signal<Out, Bits<32>>,
    pub roce_frames: Signal<Out, Bits<32>>,
    pub non_roce_frames: Signal<Out, Bits<32>>,
    pub malformed_frames: Signal<Out, Bits<32>>,
    pub tx_frames: Signal<Out, Bits<32>>,
    rx_count: DFF<Bits<32>>,
    roce_count: DFF<Bits<32>>,
    non_roce_count: DFF<Bits<32>>,
    malformed_count: DFF<Bits<32>>,
    tx_count: DFF<Bits<32>>,
}

impl Logic for FrameCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rx_count, roce_count, non_roce_count, malformed_count, tx_count);
        self.rx_frames.next = self.rx_count.q.val();
        self.roce_frames.next = self.roce_count.q.val();
        self.non_roce_frames.next = self.non_roce_count.q.val();
        self.malformed_frames.next = self.malformed_count.q.val();
        self.tx_frames.next = self.tx_count.q.val();
        if self.hdr_valid.val() {
            self.rx_count.d.next = self.rx_count.q.val() + 1;
            if self.class_roce.val() {
                self.roce_count.d.next = self.roce_count.q.val() + 1;
            }
            if self.class_non_roce.val() {
                self.non_roce_count.d.next = self.non_roce_count.q.val() + 1;
            }
            if self.class_malformed.val() {
                self.malformed_count.d.next = self.malformed_count.q.val() + 1;
            }
        }
        if self.tx_frame.val() {
            self.tx_count.d.next = self.tx_count.q.val() + 1;
        }
        if self.clear.val() | self.reset.val() {
            self.rx_count.d.next = 0.into();
            self.roce_count.d.next = 0.into();
            self.non_roce_count.d.next = 0.into();
            self.malformed_count.d.next = 0.into();
            self.tx_count.d.next = 0.into();
        }
    }
}
