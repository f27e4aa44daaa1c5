//! `TwoThreshold`: the marking probabilities of two-threshold ECN (PE-03)
//! and the random draw each ECN-capable frame is compared with.
//!
//! ```text
//!  avg, tick ----> [start] -> two 16-step dividers -> p_ect1, p_ce (0..=65536)
//!  t1, t2, tmax -->
//!  enable, seed, draw ----> 16-bit Galois LFSR ----> lfsr_value (1..=65535)
//! ```
//! In the clock after each microsecond tick of the queue meter (the average
//! queue `avg` has just moved), the block takes `avg` and the thresholds and
//! computes, with two restoring dividers in parallel,
//! - `p_ect1`: 0 while `avg <= t1`, 65536 from `avg >= t2` on, else
//!   `floor((avg - t1) * 65536 / (t2 - t1))`;
//! - `p_ce`: 0 while `avg <= t2`, 65536 from `avg >= tmax` on, else
//!   `floor((avg - t2) * 65536 / (tmax - t2))`.
//!
//! Both take effect together `PROB_DELAY` = 18 clocks after the tick (the
//! same delay whatever the case). A frame is marked CE when `lfsr_value < p_ce`,
//! else remarked ECT(1) when `lfsr_value < p_ect1`: ECT(1) with a probability
//! rising linearly from T1 to T2, CE rising linearly from T2 to Tmax
//! (RED-style, reaching 1 at Tmax). The LFSR (x^16 + x^14 + x^13 + x^11 +
//! 1, Galois form) is loaded with `seed` (0 acts as 1) in the clock
//! `enable` rises and moves one step on every `draw` while `enable` is high.
//! Ticks less than 18 clocks apart (under 18 clocks per microsecond) are
//! skipped while the dividers run.

use rust_hdl::prelude::*;

/// Clocks from a microsecond tick to the probabilities it gives.
pub const PROB_DELAY: u64 = 18;

#[derive(LogicBlock, Default)]
pub struct TwoThreshold {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The average queue in bytes, and the meter's tick (the average moves
    /// at the end of the tick's clock).
    pub avg: Signal<In, Bits<32>>,
    pub tick: Signal<In, Bit>,
    pub t1: Signal<In, Bits<32>>,
    pub t2: Signal<In, Bits<32>>,
    pub tmax: Signal<In, Bits<32>>,
    pub enable: Signal<In, Bit>,
    pub seed: Signal<In, Bits<16>>,
    /// A frame used `lfsr_value` in this clock.
    pub draw: Signal<In, Bit>,
    pub p_ect1: Signal<Out, Bits<17>>,
    pub p_ce: Signal<Out, Bits<17>>,
    pub lfsr_value: Signal<Out, Bits<16>>,
    start: DFF<Bit>,
    busy: DFF<Bit>,
    step: DFF<Bits<5>>,
    rem1: DFF<Bits<33>>,
    rem2: DFF<Bits<33>>,
    den1: DFF<Bits<33>>,
    den2: DFF<Bits<33>>,
    quo1: DFF<Bits<16>>,
    quo2: DFF<Bits<16>>,
    /// 0: divide; 1: result 0; 2: result 65536.
    case1: DFF<Bits<2>>,
    case2: DFF<Bits<2>>,
    p1: DFF<Bits<17>>,
    p2: DFF<Bits<17>>,
    lfsr: DFF<Bits<16>>,
    was_enabled: DFF<Bit>,
    shifted1: Signal<Local, Bits<33>>,
    shifted2: Signal<Local, Bits<33>>,
    fin1: Signal<Local, Bits<17>>,
    fin2: Signal<Local, Bits<17>>,
}

impl Logic for TwoThreshold {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            start,
            busy,
            step,
            rem1,
            rem2,
            den1,
            den2,
            quo1,
            quo2,
            case1,
            case2,
            p1,
            p2,
            lfsr,
            was_enabled
        );
        self.start.d.next = self.tick.val();
        // Take the new average and the thresholds.
        if self.start.q.val() & !self.busy.q.val() {
            self.busy.d.next = true;
            self.step.d.next = 0.into();
            self.quo1.d.next = 0.into();
            self.quo2.d.next = 0.into();
            self.rem1.d.next = bit_cast::<33, 32>(self.avg.val() - self.t1.val());
            self.den1.d.next = bit_cast::<33, 32>(self.t2.val() - self.t1.val());
            self.case1.d.next = 0.into();
            if self.avg.val() >= self.t2.val() {
                self.case1.d.next = 2.into();
            }
            if self.avg.val() <= self.t1.val() {
                self.case1.d.next = 1.into();
            }
            self.rem2.d.next = bit_cast::<33, 32>(self.avg.val() - self.t2.val());
            self.den2.d.next = bit_cast::<33, 32>(self.tmax.val() - self.t2.val());
            self.case2.d.next = 0.into();
            if self.avg.val() >= self.tmax.val() {
                self.case2.d.next = 2.into();
            }
            if self.avg.val() <= self.t2.val() {
                self.case2.d.next = 1.into();
            }
        }
        // One quotient bit per clock (restoring division).
        self.shifted1.next = self.rem1.q.val() << 1;
        self.shifted2.next = self.rem2.q.val() << 1;
        if self.busy.q.val() {
            self.step.d.next = self.step.q.val() + 1;
            if self.shifted1.val() >= self.den1.q.val() {
                self.rem1.d.next = self.shifted1.val() - self.den1.q.val();
                self.quo1.d.next = (self.quo1.q.val() << 1) | 1;
            } else {
                self.rem1.d.next = self.shifted1.val();
                self.quo1.d.next = self.quo1.q.val() << 1;
            }
            if self.shifted2.val() >= self.den2.q.val() {
                self.rem2.d.next = self.shifted2.val() - self.den2.q.val();
                self.quo2.d.next = (self.quo2.q.val() << 1) | 1;
            } else {
                self.rem2.d.next = self.shifted2.val();
                self.quo2.d.next = self.quo2.q.val() << 1;
            }
        }
        // The last step: both probabilities at once.
        self.fin1.next = bit_cast::<17, 16>(self.quo1.q.val() << 1);
        if self.shifted1.val() >= self.den1.q.val() {
            self.fin1.next = bit_cast::<17, 16>((self.quo1.q.val() << 1) | 1);
        }
        if self.case1.q.val() == 1 {
            self.fin1.next = 0.into();
        }
        if self.case1.q.val() == 2 {
            self.fin1.next = 0x1_0000.into();
        }
        self.fin2.next = bit_cast::<17, 16>(self.quo2.q.val() << 1);
        if self.shifted2.val() >= self.den2.q.val() {
            self.fin2.next = bit_cast::<17, 16>((self.quo2.q.val() << 1) | 1);
        }
        if self.case2.q.val() == 1 {
            self.fin2.next = 0.into();
        }
        if self.case2.q.val() == 2 {
            self.fin2.next = 0x1_0000.into();
        }
        if self.busy.q.val() & (self.step.q.val() == 15) {
            self.busy.d.next = false;
            self.p1.d.next = self.fin1.val();
            self.p2.d.next = self.fin2.val();
        }
        self.p_ect1.next = self.p1.q.val();
        self.p_ce.next = self.p2.q.val();

        // The random source.
        self.was_enabled.d.next = self.enable.val();
        if self.enable.val() & self.draw.val() {
            if self.lfsr.q.val().get_bit(0) {
                self.lfsr.d.next = (self.lfsr.q.val() >> 1) ^ 0xB400;
            } else {
                self.lfsr.d.next = self.lfsr.q.val() >> 1;
            }
        }
        if self.enable.val() & !self.was_enabled.q.val() {
            self.lfsr.d.next = self.seed.val();
            if !self.seed.val().any() {
                self.lfsr.d.next = 1.into();
            }
        }
        self.lfsr_value.next = self.lfsr.q.val();

        if self.reset.val() {
            self.start.d.next = false;
            self.busy.d.next = false;
            self.p1.d.next = 0.into();
            self.p2.d.next = 0.into();
            self.lfsr.d.next = 1.into();
            self.was_enabled.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_03_two_threshold_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<TwoThreshold>("two_threshold");
    }
}
