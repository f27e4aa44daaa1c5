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
//! law_rounded toward minus infinity, as the model's arithmetic shift of a
//! signed product does. A `start` in clock `e` updates `rate` in clock
//! `e + LAW_CLOCKS` (visible from the next); a `start` while the law runs is
//! ignored (a control interval is at least `LAW_CLOCKS` clocks). `rate` is
//! `8 C` until the first update and whenever `law` is low (the law's state
//! is then cleared).

use rust_hdl::prelude::*;

/// Clocks from `start` to the clock the new rate is written in (the rate is
/// seen from the clock after): one to latch, then 24 + 32 + 9 + 9 + 32 + 17
/// multiplier steps. The model's timing uses the same number (checked below).
pub const LAW_CLOCKS: u64 = 123;

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
    max_rate: Signal<Local, Bits<32>>,
    acc_next: Signal<Local, Bits<96>>,
    last: Signal<Local, Bit>,
    ct: Signal<Local, Bits<48>>,
    pb: Signal<Local, Bits<64>>,
    num_mag: Signal<Local, Bits<64>>,
    law_rounded: Signal<Local, Bits<96>>,
    delta_wide: Signal<Local, Bits<72>>,
    delta: Signal<Local, Bits<17>>,
    r_start: Signal<Local, Bits<32>>,
    adj: Signal<Local, Bits<48>>,
    r_new: Signal<Local, Bits<48>>,
}

impl Logic for RateLaw {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, mul_a, mul_b, acc, steps, r, y, qd, spare_neg, spare_mag, drain,
            pa, num_neg, r0
        );
        self.max_rate.next = bit_cast::<32, 20>(self.capacity.val()) << 3;
        self.r_start.next = self.r.q.val();
        if !self.r.q.val().any() {
            self.r_start.next = self.max_rate.val();
        }
        self.rate.next = self.r_start.val();

        // One shift-add step per clock while a product runs.
        self.acc_next.next = self.acc.q.val();
        if self.mul_b.q.val().get_bit(0) {
            self.acc_next.next = self.acc.q.val() + self.mul_a.q.val();
        }
        self.last.next = self.phase.q.val().any() & (self.steps.q.val() == 1);
        if self.phase.q.val().any() {
            self.acc.d.next = self.acc_next.val();
            self.mul_a.d.next = self.mul_a.q.val() << 1;
            self.mul_b.d.next = self.mul_b.q.val() >> 1;
            self.steps.d.next = self.steps.q.val() - 1;
        }
        self.ct.next = self.acc_next.val().get_bits::<48>(0);
        self.pb.next = self.acc_next.val().get_bits::<64>(0);
        self.num_mag.next = 0.into();
        self.law_rounded.next = self.acc_next.val();
        self.delta_wide.next = 0.into();
        self.delta.next = 0.into();
        self.adj.next = 0.into();
        self.r_new.next = 0.into();
        if self.last.val() {
            self.acc.d.next = 0.into();
            self.phase.d.next = self.phase.q.val() + 1;
            if self.phase.q.val() == 1 {
                // spare = C T - y.
                self.spare_neg.d.next = self.y.q.val() > self.ct.val();
                self.spare_mag.d.next = self.ct.val() - self.y.q.val();
                if self.y.q.val() > self.ct.val() {
                    self.spare_mag.d.next = self.y.q.val() - self.ct.val();
                }
                self.mul_a.d.next = bit_cast::<96, 32>(self.qd.q.val());
                self.mul_b.d.next = self.t_over_d.val();
                self.steps.d.next = 32.into();
            }
            if self.phase.q.val() == 2 {
                self.drain.d.next = self.acc_next.val().get_bits::<48>(16);
                self.mul_a.d.next = bit_cast::<96, 48>(self.spare_mag.q.val());
                self.mul_b.d.next = bit_cast::<32, 9>(self.alpha.val());
                self.steps.d.next = 9.into();
            }
            if self.phase.q.val() == 3 {
                self.pa.d.next = self.acc_next.val().get_bits::<64>(0);
                self.mul_a.d.next = bit_cast::<96, 48>(self.drain.q.val());
                self.mul_b.d.next = bit_cast::<32, 9>(self.beta.val());
                self.steps.d.next = 9.into();
            }
            if self.phase.q.val() == 4 {
                // num = +-Pa - Pb as sign and magnitude.
                self.num_neg.d.next = true;
                self.num_mag.next = self.pa.q.val() + self.pb.val();
                if !self.spare_neg.q.val() {
                    self.num_mag.next = self.pb.val() - self.pa.q.val();
                    if self.pa.q.val() >= self.pb.val() {
                        self.num_neg.d.next = false;
                        self.num_mag.next = self.pa.q.val() - self.pb.val();
                    }
                }
                self.mul_a.d.next = bit_cast::<96, 64>(self.num_mag.val());
                self.mul_b.d.next = self.inv_dc.val();
                self.steps.d.next = 32.into();
            }
            if self.phase.q.val() == 5 {
                // delta = P >> 24 (toward minus infinity when negative),
                // clamped to [-2^15, 2^16].
                if self.num_neg.q.val() {
                    self.law_rounded.next = self.acc_next.val() + bits::<96>(0xFF_FFFF);
                }
                self.delta_wide.next = self.law_rounded.val().get_bits::<72>(24);
                self.delta.next = self.delta_wide.val().get_bits::<17>(0);
                if self.num_neg.q.val() {
                    if self.delta_wide.val() > bits::<72>(0x8000) {
                        self.delta.next = 0x8000.into();
                    }
                } else if self.delta_wide.val() > bits::<72>(0x1_0000) {
                    self.delta.next = 0x1_0000.into();
                }
                self.r0.d.next = bit_cast::<48, 32>(self.r_start.val());
                self.mul_a.d.next = bit_cast::<96, 32>(self.r_start.val());
                self.mul_b.d.next = bit_cast::<32, 17>(self.delta.val());
                self.steps.d.next = 17.into();
            }
            if self.phase.q.val() == 6 {
                // R +- (R |delta|) >> 16, clamped to [min, 8 C].
                self.law_rounded.next = self.acc_next.val();
                if self.num_neg.q.val() {
                    self.law_rounded.next = self.acc_next.val() + bits::<96>(0xFFFF);
                }
                self.adj.next = self.law_rounded.val().get_bits::<48>(16);
                self.r_new.next = self.r0.q.val() + self.adj.val();
                if self.num_neg.q.val() {
                    self.r_new.next = self.r0.q.val() - self.adj.val();
                }
                if self.r_new.val() < bit_cast::<48, 32>(self.min_rate.val()) {
                    self.r_new.next = bit_cast::<48, 32>(self.min_rate.val());
                }
                if self.r_new.val() > bit_cast::<48, 32>(self.max_rate.val()) {
                    self.r_new.next = bit_cast::<48, 32>(self.max_rate.val());
                }
                self.r.d.next = self.r_new.val().get_bits::<32>(0);
                self.phase.d.next = 0.into();
            }
        }
        if self.start.val() & !self.phase.q.val().any() {
            self.y.d.next = bit_cast::<48, 32>(self.arrived.val());
            self.qd.d.next = self.depth.val();
            self.mul_a.d.next = bit_cast::<96, 20>(self.capacity.val());
            self.mul_b.d.next = bit_cast::<32, 24>(self.interval.val());
            self.acc.d.next = 0.into();
            self.steps.d.next = 24.into();
            self.phase.d.next = 1.into();
        }
        if self.reset.val() | !self.law.val() {
            self.phase.d.next = 0.into();
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
                    if k == 40 {
                        // Ignored: the law is busy.
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
            sim.done(x)
        });
        sim.run(Box::new(uut), 1_000_000).unwrap();
    }
}
