//! `FrameCounters`: the per-direction frame counters read through the CSR block.
//!
//! ```text
//!   hdr.valid, hdr.class ->+----------------+--> rx_frames, roce_frames,
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
    /// Parser results (only `valid` and `class` are used).
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_class: Signal<In, Bits<2>>,
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
        dff_setup!(
            self,
            clock,
            rx_count,
            roce_count,
            non_roce_count,
            malformed_count,
            tx_count
        );
        self.rx_frames.next = self.rx_count.q.val();
        self.roce_frames.next = self.roce_count.q.val();
        self.non_roce_frames.next = self.non_roce_count.q.val();
        self.malformed_frames.next = self.malformed_count.q.val();
        self.tx_frames.next = self.tx_count.q.val();
        if self.hdr_valid.val() {
            self.rx_count.d.next = self.rx_count.q.val() + 1;
            if self.hdr_class.val() == 1 {
                self.roce_count.d.next = self.roce_count.q.val() + 1;
            }
            if self.hdr_class.val() == 2 {
                self.non_roce_count.d.next = self.non_roce_count.q.val() + 1;
            }
            if self.hdr_class.val() == 3 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_frame_counters_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<FrameCounters>("frame_counters");
    }

    /// Counts in rust-hdl's own simulator (the block is narrow enough to be fast there).
    #[test]
    fn hw_01_frame_counters_count_each_class_and_clear() {
        let mut uut = FrameCounters::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<FrameCounters>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<FrameCounters>| {
            let mut x = sim.init()?;
            // Classes in turn: roce, non-roce, malformed, roce; tx every other cycle.
            for i in 0..4u32 {
                x.hdr_valid.next = true;
                x.hdr_class.next = [1u64, 2, 3, 1][i as usize].into();
                x.tx_frame.next = i % 2 == 0;
                wait_clock_cycle!(sim, clock, x);
            }
            x.hdr_valid.next = false;
            x.tx_frame.next = false;
            wait_clock_cycle!(sim, clock, x);
            sim_assert_eq!(sim, x.rx_frames.val(), 4, x);
            sim_assert_eq!(sim, x.roce_frames.val(), 2, x);
            sim_assert_eq!(sim, x.non_roce_frames.val(), 1, x);
            sim_assert_eq!(sim, x.malformed_frames.val(), 1, x);
            sim_assert_eq!(sim, x.tx_frames.val(), 2, x);
            x.clear.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.clear.next = false;
            wait_clock_cycle!(sim, clock, x);
            sim_assert_eq!(sim, x.rx_frames.val(), 0, x);
            sim_assert_eq!(sim, x.tx_frames.val(), 0, x);
            sim.done(x)
        });
        sim.run(Box::new(uut), 1000).unwrap();
    }
}
