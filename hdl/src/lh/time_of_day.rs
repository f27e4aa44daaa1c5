//! `TimeOfDay`: the gateway's clock for the timestamp object of Long-haul
//! CNPs (LH-12, LH-13), in NTP format (seconds since 1900 in bits 63..32,
//! the fraction in units of 2^-32 s in bits 31..0).
//!
//! ```text
//!  increment (2^-56 s per clock) --+
//!  clock count k -------------------+->[ k * increment: eight 16x16 products ]->[ sums ]->[ bits 87..24 ]-+
//!  base, set_base ------------------------------------------------------------->[ base ]--> now = base + uptime
//!  capture ---------------------------------------------------------------------------------> captured (uptime)
//! ```
//! The uptime in clock `k` after reset is `floor(k * increment / 2^24)`
//! units of 2^-32 s: `k * increment` is exact in 2^-56 s (96 bits; the
//! bits above 87 leave with the seconds' wrap after 136 years). It is a
//! product, not an accumulator, so it is a function of `k` and the
//! increment alone: a new increment changes the uptime at once as if it had
//! always been in force (set the base after changing it), and the reference
//! model needs no clock of the register write. `increment` is
//! `round(2^56 / f_clk)`: at 322.265625 MHz 223,596,898 (0.6 ppb fast).
//! `now` is `base` (taken when `set_base` is high) plus the uptime, modulo 2^64;
//! `capture` latches the uptime into `captured` for the host, which sets
//! the base to its clock minus that.
//!
//! The product is pipelined over three clocks; the clock count runs three
//! ahead, so `now` is that of the current clock from the
//! third clock after reset on. rust-hdl multiplies only 16 by 16 bits, so
//! `k` (64 bits, four limbs) times `increment` (two limbs) is eight
//! DSP-sized products; the second stage sums them by increment limb, the
//! third adds the two sums.

use rust_hdl::prelude::*;

/// Clocks from the count to the uptime (the count starts this far ahead).
pub const PIPELINE: u64 = 3;

/// The reference: the uptime (NTP 32.32) in clock `k` after reset.
pub fn uptime(k: u64, increment: u32) -> u64 {
    ((k as u128 * increment as u128) >> 24) as u64
}

#[derive(LogicBlock)]
pub struct TimeOfDay {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Uptime per clock in units of 2^-56 s.
    pub increment: Signal<In, Bits<32>>,
    /// Time of day at uptime zero, taken while `set_base` is high.
    pub base: Signal<In, Bits<64>>,
    pub set_base: Signal<In, Bit>,
    pub capture: Signal<In, Bit>,
    /// Time of day of this clock (base + uptime; the uptime alone until
    /// the first `set_base`).
    pub now: Signal<Out, Bits<64>>,
    /// Uptime of the clock of the last `capture`.
    pub captured: Signal<Out, Bits<64>>,
    count: DFF<Bits<64>>,
    products: Vec<DFF<Bits<32>>>,
    sum_low: DFF<Bits<80>>,
    sum_high: DFF<Bits<80>>,
    uptime_q: DFF<Bits<64>>,
    base_q: DFF<Bits<64>>,
    captured_q: DFF<Bits<64>>,
    uptime_product: Signal<Local, Bits<96>>,
}

impl Default for TimeOfDay {
    fn default() -> Self {
        TimeOfDay {
            clock: Default::default(),
            reset: Default::default(),
            increment: Default::default(),
            base: Default::default(),
            set_base: Default::default(),
            capture: Default::default(),
            now: Default::default(),
            captured: Default::default(),
            count: Default::default(),
            products: (0..8).map(|_| Default::default()).collect(),
            sum_low: Default::default(),
            sum_high: Default::default(),
            uptime_q: Default::default(),
            base_q: Default::default(),
            captured_q: Default::default(),
            uptime_product: Default::default(),
        }
    }
}

impl Logic for TimeOfDay {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, sum_low, sum_high, uptime_q, base_q, captured_q);
        for i in 0..8 {
            self.products[i].clock.next = self.clock.val();
        }
        self.count.d.next = self.count.q.val() + 1;
        // Products of count limb i and increment limb j at 2i + j.
        self.products[0].d.next =
            self.count.q.val().get_bits::<16>(0) * self.increment.val().get_bits::<16>(0);
        self.products[1].d.next =
            self.count.q.val().get_bits::<16>(0) * self.increment.val().get_bits::<16>(16);
        self.products[2].d.next =
            self.count.q.val().get_bits::<16>(16) * self.increment.val().get_bits::<16>(0);
        self.products[3].d.next =
            self.count.q.val().get_bits::<16>(16) * self.increment.val().get_bits::<16>(16);
        self.products[4].d.next =
            self.count.q.val().get_bits::<16>(32) * self.increment.val().get_bits::<16>(0);
        self.products[5].d.next =
            self.count.q.val().get_bits::<16>(32) * self.increment.val().get_bits::<16>(16);
        self.products[6].d.next =
            self.count.q.val().get_bits::<16>(48) * self.increment.val().get_bits::<16>(0);
        self.products[7].d.next =
            self.count.q.val().get_bits::<16>(48) * self.increment.val().get_bits::<16>(16);
        self.sum_low.d.next = bit_cast::<80, 32>(self.products[0].q.val())
            + (bit_cast::<80, 32>(self.products[2].q.val()) << 16)
            + (bit_cast::<80, 32>(self.products[4].q.val()) << 32)
            + (bit_cast::<80, 32>(self.products[6].q.val()) << 48);
        self.sum_high.d.next = bit_cast::<80, 32>(self.products[1].q.val())
            + (bit_cast::<80, 32>(self.products[3].q.val()) << 16)
            + (bit_cast::<80, 32>(self.products[5].q.val()) << 32)
            + (bit_cast::<80, 32>(self.products[7].q.val()) << 48);
        self.uptime_product.next = bit_cast::<96, 80>(self.sum_low.q.val())
            + (bit_cast::<96, 80>(self.sum_high.q.val()) << 16);
        self.uptime_q.d.next = self.uptime_product.val().get_bits::<64>(24);
        if self.set_base.val() {
            self.base_q.d.next = self.base.val();
        }
        if self.capture.val() {
            self.captured_q.d.next = self.uptime_q.q.val();
        }
        self.now.next = self.base_q.q.val() + self.uptime_q.q.val();
        self.captured.next = self.captured_q.q.val();
        if self.reset.val() {
            self.count.d.next = 3.into();
            for i in 0..8 {
                self.products[i].d.next = 0.into();
            }
            self.sum_low.d.next = 0.into();
            self.sum_high.d.next = 0.into();
            self.uptime_q.d.next = 0.into();
            self.base_q.d.next = 0.into();
            self.captured_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_time_of_day_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<TimeOfDay>("time_of_day");
    }

    /// In rust-hdl's simulator: the time of day (base 0: the uptime) equals
    /// `floor(k * increment / 2^24)` in every clock from the third after
    /// reset, for the reset
    /// increment and for one changed mid-run (the uptime follows it three
    /// clocks later, as if it had always been in force); `now` adds the
    /// base from the clock after `set`; `capture` latches the uptime.
    #[test]
    fn lh_12_uptime_is_the_clock_count_times_the_increment() {
        let mut uut = TimeOfDay::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        let default_inc = cngw_regmap::tod_control::DEFAULT_INCREMENT;
        sim.add_clock(5, |x: &mut Box<TimeOfDay>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<TimeOfDay>| {
            let mut x = sim.init()?;
            x.increment.next = bits::<32>(default_inc as u64);
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            // Clock k = 0 is the first with reset low.
            for k in 0..200u64 {
                if k == 100 {
                    x.increment.next = bits::<32>(0xFFFF_FFFF);
                }
                if k == 150 {
                    x.base.next = bits::<64>(0xE000_0000_8000_0000);
                    x.set_base.next = true;
                    x.capture.next = true;
                }
                if k == 151 {
                    x.set_base.next = false;
                    x.capture.next = false;
                    sim_assert_eq!(
                        sim,
                        x.captured.val(),
                        bits::<64>(uptime(150, 0xFFFF_FFFF)),
                        x
                    );
                }
                if k >= 151 {
                    sim_assert_eq!(
                        sim,
                        x.now.val(),
                        bits::<64>(0xE000_0000_8000_0000u64.wrapping_add(uptime(k, 0xFFFF_FFFF))),
                        x
                    );
                }
                if k >= PIPELINE {
                    // The increment of clock k - 3.
                    let inc = if k >= 100 + PIPELINE {
                        0xFFFF_FFFF
                    } else {
                        default_inc
                    };
                    if k < 151 {
                        sim_assert_eq!(sim, x.now.val(), bits::<64>(uptime(k, inc)), x);
                    }
                }
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 10_000).unwrap();
    }

    /// The reference against 128-bit arithmetic at the ends of the range:
    /// a year of clocks, the largest count and increment.
    #[test]
    fn lh_12_uptime_reference_over_the_range() {
        let inc = cngw_regmap::tod_control::DEFAULT_INCREMENT;
        // One second of the 100GbE MAC clock: 1.0 s within 1 ns.
        let one_second = uptime(322_265_625, inc);
        let ns = |ntp: u64| (ntp as u128 * 1_000_000_000) >> 32;
        assert!(
            (ns(one_second) as i128 - 1_000_000_000).abs() <= 1,
            "{one_second:#x}"
        );
        assert_eq!(
            uptime(u64::MAX, u32::MAX),
            ((u64::MAX as u128 * u32::MAX as u128) >> 24) as u64
        );
        assert_eq!(uptime(0, inc), 0);
    }
}
