//! `RateLaw`: the WAN port's advised rate (RA-02), RCP's explicit-rate law
//! in the fixed point of `cngw_model::rate_advice`, with one sequential
//! shift-add multiplier (no DSP).
//!
//! ```text
//!  start (interval end) --> latch y, q --> 6 products on one shift-add unit:
//!    CT = C x T (24 steps)             spare = CT - y (sign, magnitude)
//!    drain = q x (T/d) >> 16 (32)       Pa = alpha x |spare| (9)
//!    Pb = beta x drain (9)              num = +-Pa - Pb
//!    P = |num| x 1/(dC) (32)            delta = P >> 24, clamped to [-1/2, +1]
//!    Q = R x |delta| (17)               R <- R +- Q >> 16, clamped to [min, 8 C]
//! ```
//! One multiplier step per clock (the product's bits from the least
//! significant; the accumulator is 96 bits, enough for the widths the
//! registers allow: C 20 bits, T 24 bits). A negative `delta` or step is
//! rounded toward minus infinity, as the model's arithmetic shift of a
//! signed product does. A `start` in clock `e` updates `rate` in clock
//! `e + LAW_CLOCKS` (visible from the next); a `start` while the law runs is
//! ignored (a control interval is at least `LAW_CLOCKS + 1` clocks). `rate`
//! is `8 C` until the first update and whenever `law` is low (the law's
//! state is then cleared).
//!
//! Timing: a product's last step writes it whole into the accumulator and
//! what follows runs on registers, one carry chain per clock: after each
//! product, "finish" clocks (one-hot flags `k1`..`k6b`) compute the next
//! operands from it: spare's compare and both differences (1 clock),
//! drain and Pa (1 each), the three candidates of num then its selection
//! (2), delta's clamp then the step's operands (2), the new rate then its
//! clamp (2): 9 clocks on top of the 123 multiplier steps and the latch.
//! The rounding of a negative delta and step costs no adder: their
//! products start from 2^24 - 1 and 2^16 - 1 instead of 0.

use rust_hdl::prelude::*;

/// Clocks from `start` to the clock the new rate is written in (the rate is
/// seen from the clock after): one to latch, then 24 + 32 + 9 + 9 + 32 + 17
/// multiplier steps and 1 + 1 + 1 + 2 + 2 + 2 finish clocks. The model's
/// timing uses the same number (checked below).
pub const LAW_CLOCKS: u64 = 132;

#[derive(LogicBlock, Default)]
pub struct RateLaw {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The law runs (RA_CONTROL.law).
    pub law: Signal<In, Bit>,
    /// The last clock of a control interval: `arrived` and `depth` are its.
    pub start: Signal<In, Bit>,
    /// Bytes toward the port during the interval.
    pub arrived: Signal<In, Bits<32>>,
    /// The port's queue depth, bytes.
    pub depth: Signal<In, Bits<32>>,
    /// C, bytes per microsecond.
    pub capacity: Signal<In, Bits<20>>,
    /// T, microseconds.
    pub interval: Signal<In, Bits<24>>,
    pub alpha: Signal<In, Bits<9>>,
    pub beta: Signal<In, Bits<9>>,
    pub t_over_d: Signal<In, Bits<32>>,
    pub inv_dc: Signal<In, Bits<32>>,
    pub min_rate: Signal<In, Bits<32>>,
    /// The advised rate, Mb/s.
    pub rate: Signal<Out, Bits<32>>,
    /// 0 idle, 1..6 the products in the order above.
    phase: DFF<Bits<3>>,
    /// A product's steps run.
    run: DFF<Bit>,
    /// The finish clocks, one flag each (one-hot with `run`): after
    /// product 1, 2, 3; 4 (two), 5 (two), 6 (three).
    k1: DFF<Bit>,
    k2: DFF<Bit>,
    k3: DFF<Bit>,
    k4a: DFF<Bit>,
    k4b: DFF<Bit>,
    k5a: DFF<Bit>,
    k5b: DFF<Bit>,
    k6a: DFF<Bit>,
    k6b: DFF<Bit>,
    mul_a: DFF<Bits<96>>,
    mul_b: DFF<Bits<32>>,
    acc: DFF<Bits<96>>,
    steps: DFF<Bits<6>>,
    /// The law's rate; 0 until the first update.
    r: DFF<Bits<32>>,
    y: DFF<Bits<48>>,
    qd: DFF<Bits<32>>,
    spare_neg: DFF<Bit>,
    spare_mag: DFF<Bits<48>>,
    drain: DFF<Bits<48>>,
    pa: DFF<Bits<64>>,
    num_neg: DFF<Bit>,
    r0: DFF<Bits<48>>,
    /// num's candidates: Pa + Pb, Pa - Pb (65 bits: bit 64 set when Pa <
    /// Pb), Pb - Pa.
    n_sum: DFF<Bits<64>>,
    n_diff: DFF<Bits<65>>,
    n_rdiff: DFF<Bits<64>>,
    /// |delta|, clamped.
    dl: DFF<Bits<17>>,
    /// The new rate before its clamp.
    r_new: DFF<Bits<48>>,
    max_rate: Signal<Local, Bits<32>>,
    acc_next: Signal<Local, Bits<96>>,
    last: Signal<Local, Bit>,
    /// num's sign as it is chosen after product 4.
    neg_next: Signal<Local, Bit>,
    r_start: Signal<Local, Bits<32>>,
}

impl Logic for RateLaw {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, run, k1, k2, k3, k4a, k4b, k5a, k5b, k6a, k6b, mul_a, mul_b, acc,
            steps, r, y, qd, spare_neg, spare_mag, drain, pa, num_neg, r0, n_sum, n_diff, n_rdiff,
            dl, r_new
        );
        self.max_rate.next = bit_cast::<32, 20>(self.capacity.val()) << 3;
        self.r_start.next = self.r.q.val();
        if !self.r.q.val().any() {
            self.r_start.next = self.max_rate.val();
        }
        self.rate.next = self.r_start.val();

        // One shift-add step per clock while a product runs; its last step
        // leaves the whole product in `acc` and starts its finish clocks.
        self.acc_next.next = self.acc.q.val();
        if self.mul_b.q.val().get_bit(0) {
            self.acc_next.next = self.acc.q.val() + self.mul_a.q.val();
        }
        self.last.next = self.run.q.val() & (self.steps.q.val() == 1);
        if self.run.q.val() {
            self.acc.d.next = self.acc_next.val();
            self.mul_a.d.next = self.mul_a.q.val() << 1;
            self.mul_b.d.next = self.mul_b.q.val() >> 1;
            self.steps.d.next = self.steps.q.val() - 1;
        }
        self.k1.d.next = self.last.val() & (self.phase.q.val() == 1);
        self.k2.d.next = self.last.val() & (self.phase.q.val() == 2);
        self.k3.d.next = self.last.val() & (self.phase.q.val() == 3);
        self.k4a.d.next = self.last.val() & (self.phase.q.val() == 4);
        self.k5a.d.next = self.last.val() & (self.phase.q.val() == 5);
        self.k6a.d.next = self.last.val() & (self.phase.q.val() == 6);
        self.k4b.d.next = self.k4a.q.val();
        self.k5b.d.next = self.k5a.q.val();
        self.k6b.d.next = self.k6a.q.val();
        if self.last.val() {
            self.run.d.next = false;
        }

        // After C T (its low 48 bits): spare = C T - y.
        if self.k1.q.val() {
            self.spare_neg.d.next = self.y.q.val() > self.acc.q.val().get_bits::<48>(0);
            self.spare_mag.d.next = self.acc.q.val().get_bits::<48>(0) - self.y.q.val();
            if self.y.q.val() > self.acc.q.val().get_bits::<48>(0) {
                self.spare_mag.d.next = self.y.q.val() - self.acc.q.val().get_bits::<48>(0);
            }
            self.mul_a.d.next = bit_cast::<96, 32>(self.qd.q.val());
            self.mul_b.d.next = self.t_over_d.val();
            self.steps.d.next = 32.into();
        }
        if self.k2.q.val() {
            self.drain.d.next = self.acc.q.val().get_bits::<48>(16);
            self.mul_a.d.next = bit_cast::<96, 48>(self.spare_mag.q.val());
            self.mul_b.d.next = bit_cast::<32, 9>(self.alpha.val());
            self.steps.d.next = 9.into();
        }
        if self.k3.q.val() {
            self.pa.d.next = self.acc.q.val().get_bits::<64>(0);
            self.mul_a.d.next = bit_cast::<96, 48>(self.drain.q.val());
            self.mul_b.d.next = bit_cast::<32, 9>(self.beta.val());
            self.steps.d.next = 9.into();
        }
        // num = +-Pa - Pb as sign and magnitude: the candidates, then the
        // choice.
        if self.k4a.q.val() {
            self.n_sum.d.next = self.pa.q.val() + self.acc.q.val().get_bits::<64>(0);
            self.n_diff.d.next = bit_cast::<65, 64>(self.pa.q.val())
                - bit_cast::<65, 64>(self.acc.q.val().get_bits::<64>(0));
            self.n_rdiff.d.next = self.acc.q.val().get_bits::<64>(0) - self.pa.q.val();
        }
        self.neg_next.next = self.spare_neg.q.val() | self.n_diff.q.val().get_bit(64);
        if self.k4b.q.val() {
            self.num_neg.d.next = self.neg_next.val();
            self.mul_a.d.next = bit_cast::<96, 64>(self.n_sum.q.val());
            if !self.spare_neg.q.val() {
                self.mul_a.d.next = bit_cast::<96, 64>(self.n_rdiff.q.val());
                if !self.n_diff.q.val().get_bit(64) {
                    self.mul_a.d.next = bit_cast::<96, 64>(self.n_diff.q.val().get_bits::<64>(0));
                }
            }
            self.mul_b.d.next = self.inv_dc.val();
            self.steps.d.next = 32.into();
        }
        // delta = P >> 24, toward minus infinity when negative (up in
        // magnitude: P started from 2^24 - 1, see below), clamped to
        // [-2^15, 2^16]; R's value is kept for the step.
        if self.k5a.q.val() {
            self.dl.d.next = self.acc.q.val().get_bits::<17>(24);
            if self.num_neg.q.val() {
                if self.acc.q.val().get_bits::<56>(40).any()
                    | (self.acc.q.val().get_bit(39) & self.acc.q.val().get_bits::<15>(24).any())
                {
                    self.dl.d.next = 0x8000.into();
                }
            } else if self.acc.q.val().get_bits::<55>(41).any()
                | (self.acc.q.val().get_bit(40) & self.acc.q.val().get_bits::<16>(24).any())
            {
                self.dl.d.next = 0x1_0000.into();
            }
            self.r0.d.next = bit_cast::<48, 32>(self.r_start.val());
        }
        if self.k5b.q.val() {
            self.mul_a.d.next = bit_cast::<96, 48>(self.r0.q.val());
            self.mul_b.d.next = bit_cast::<32, 17>(self.dl.q.val());
            self.steps.d.next = 17.into();
        }
        // R +- (R |delta|) >> 16 (the step up in magnitude when negative:
        // Q started from 2^16 - 1), then clamped to [min, 8 C].
        if self.k6a.q.val() {
            self.r_new.d.next = self.r0.q.val() + self.acc.q.val().get_bits::<48>(16);
            if self.num_neg.q.val() {
                self.r_new.d.next = self.r0.q.val() - self.acc.q.val().get_bits::<48>(16);
            }
        }
        if self.k6b.q.val() {
            // max(min) then min(max), as the model: with min above 8 C the
            // ceiling wins.
            self.r.d.next = self.r_new.q.val().get_bits::<32>(0);
            if self.r_new.q.val() < bit_cast::<48, 32>(self.min_rate.val()) {
                self.r.d.next = self.min_rate.val();
            }
            if (self.r_new.q.val() > bit_cast::<48, 32>(self.max_rate.val()))
                | ((self.r_new.q.val() < bit_cast::<48, 32>(self.min_rate.val()))
                    & (self.min_rate.val() > self.max_rate.val()))
            {
                self.r.d.next = self.max_rate.val();
            }
            self.phase.d.next = 0.into();
        }
        // The next product starts; a negative num's two products start from
        // 2^24 - 1 and 2^16 - 1, so that their shifts round toward minus
        // infinity.
        if self.k1.q.val() | self.k2.q.val() | self.k3.q.val() | self.k4b.q.val() | self.k5b.q.val()
        {
            self.acc.d.next = 0.into();
            self.run.d.next = true;
            self.phase.d.next = self.phase.q.val() + 1;
        }
        if self.k4b.q.val() & self.neg_next.val() {
            self.acc.d.next = 0xFF_FFFF.into();
        }
        if self.k5b.q.val() & self.num_neg.q.val() {
            self.acc.d.next = 0xFFFF.into();
        }
        if self.start.val() & !self.phase.q.val().any() {
            self.y.d.next = bit_cast::<48, 32>(self.arrived.val());
            self.qd.d.next = self.depth.val();
            self.mul_a.d.next = bit_cast::<96, 20>(self.capacity.val());
            self.mul_b.d.next = bit_cast::<32, 24>(self.interval.val());
            self.acc.d.next = 0.into();
            self.steps.d.next = 24.into();
            self.run.d.next = true;
            self.phase.d.next = 1.into();
        }
        if self.reset.val() | !self.law.val() {
            self.phase.d.next = 0.into();
            self.run.d.next = false;
            self.k1.d.next = false;
            self.k2.d.next = false;
            self.k3.d.next = false;
            self.k4a.d.next = false;
            self.k4b.d.next = false;
            self.k5a.d.next = false;
            self.k5b.d.next = false;
            self.k6a.d.next = false;
            self.k6b.d.next = false;
            self.r.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_model::rate_advice::{law_step, LawRegisters};

    /// RA-02: the block's rate equals the model's `law_step` on random
    /// intervals (spare capacity and queues of every size, the clamps),
    /// exactly `LAW_CLOCKS` clocks after each interval's end; a `start`
    /// while it runs is ignored; `law` low brings back 8 C.
    #[test]
    fn ra_02_rate_law_matches_the_model_step_for_step() {
        assert_eq!(LAW_CLOCKS, cngw_model::rate_advice::LAW_CLOCKS);
        // xorshift64: the cases need only spread, not quality.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next_u32 = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u32
        };
        let (capacity, interval, alpha, beta, tod, inv, min) =
            (12_500u32, 100u32, 102u32, 58u32, 6_554u32, 34u32, 100u32);
        let regs = LawRegisters {
            capacity_x_interval: capacity as u64 * interval as u64,
            alpha_q8: alpha,
            beta_q8: beta,
            t_over_d_q16: tod,
            inv_dc_q32: inv,
            min_mbps: min,
            max_mbps: capacity * 8,
        };
        // (arrived, depth) per interval, and the rate after each.
        let mut cases = Vec::new();
        let mut rate = 0u32;
        for i in 0..40 {
            let arrived: u32 = match i % 4 {
                // First up to the ceiling, then down to the floor.
                _ if i < 3 => 0,
                _ if i < 16 => 2_000_000,
                0 => next_u32() % 2_000_000,
                1 => 1_000_000 + next_u32() % 400_000,
                2 => next_u32(),
                _ => 1_250_000,
            };
            let depth: u32 = match i % 3 {
                _ if i < 3 => 0,
                _ if i < 16 => u32::MAX,
                0 => 0,
                1 => next_u32() % 5_000_000,
                _ => next_u32(),
            };
            let start = if rate == 0 { regs.max_mbps } else { rate };
            rate = law_step(start, arrived as u64, depth as u64, &regs);
            cases.push((arrived, depth, rate));
        }
        assert!(cases.iter().any(|c| c.2 == min) && cases.iter().any(|c| c.2 == capacity * 8));
        let high_min = capacity * 8 + 1_000;
        let high_min_rate = law_step(
            capacity * 8,
            4_000_000,
            u32::MAX as u64,
            &LawRegisters {
                min_mbps: high_min,
                ..regs
            },
        );
        assert_eq!(high_min_rate, capacity * 8);
        let mut uut = RateLaw::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RateLaw>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<RateLaw>| {
            let mut x = sim.init()?;
            x.capacity.next = bits::<20>(capacity as u64);
            x.interval.next = bits::<24>(interval as u64);
            x.alpha.next = bits::<9>(alpha as u64);
            x.beta.next = bits::<9>(beta as u64);
            x.t_over_d.next = bits::<32>(tod as u64);
            x.inv_dc.next = bits::<32>(inv as u64);
            x.min_rate.next = bits::<32>(min as u64);
            x.law.next = true;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            sim_assert_eq!(sim, x.rate.val(), bits::<32>(capacity as u64 * 8), x);
            let mut prev = capacity * 8;
            for &(arrived, depth, next) in &cases {
                x.start.next = true;
                x.arrived.next = bits::<32>(arrived as u64);
                x.depth.next = bits::<32>(depth as u64);
                wait_clock_cycle!(sim, clock, x);
                x.start.next = false;
                for k in 1..=LAW_CLOCKS {
                    sim_assert_eq!(sim, x.rate.val(), bits::<32>(prev as u64), x);
                    if k == 40 || k == LAW_CLOCKS {
                        // Ignored: the law is busy (the second in the clock
                        // the rate is written).
                        x.start.next = true;
                        x.arrived.next = bits::<32>(0);
                    }
                    wait_clock_cycle!(sim, clock, x);
                    x.start.next = false;
                }
                sim_assert_eq!(sim, x.rate.val(), bits::<32>(next as u64), x);
                prev = next;
            }
            x.law.next = false;
            wait_clock_cycle!(sim, clock, x);
            wait_clock_cycle!(sim, clock, x);
            sim_assert_eq!(sim, x.rate.val(), bits::<32>(capacity as u64 * 8), x);
            // A floor above the ceiling: the ceiling wins, as in the model.
            x.min_rate.next = bits::<32>(high_min as u64);
            x.law.next = true;
            x.start.next = true;
            x.arrived.next = bits::<32>(4_000_000);
            x.depth.next = bits::<32>(u32::MAX as u64);
            wait_clock_cycle!(sim, clock, x);
            x.start.next = false;
            wait_clock_cycles!(sim, clock, x, LAW_CLOCKS as usize);
            sim_assert_eq!(sim, x.rate.val(), bits::<32>(high_min_rate as u64), x);
            sim.done(x)
        });
        sim.run(Box::new(uut), 1_000_000).unwrap();
    }
}
