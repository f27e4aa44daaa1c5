//! PE-03, the congested WAN node's two-threshold marking
//! (draft-hu-rtgwg-pre-ecn-wan): the rules of `hdl/src/pe/two_threshold.rs`.
//!
//! Once per microsecond, from the average queue `avg`:
//! - `p_ect1` = 0 while `avg <= T1`, 65536 from `avg >= T2` on, else
//!   `floor((avg - T1) * 65536 / (T2 - T1))`;
//! - `p_ce` = 0 while `avg <= T2`, 65536 from `avg >= Tmax` on, else
//!   `floor((avg - T2) * 65536 / (Tmax - T2))`,
//!
//! in effect [`PROB_DELAY`] clocks after the microsecond tick whose average
//! they use. Every ECT(0)/ECT(1) frame toward the WAN takes the next value
//! `r` of a 16-bit LFSR ([`Lfsr`]): CE when `r < p_ce`, else ECT(1) when
//! `r < p_ect1`.

/// Clocks from a microsecond tick to the probabilities of its average.
pub const PROB_DELAY: u64 = 18;
/// A probability of 1.
pub const ALWAYS: u32 = 1 << 16;

/// `floor((avg - lo) * 65536 / (hi - lo))`, 0 at or below `lo`, 65536 at
/// or above `hi` (the lower bound wins when `hi <= lo`).
pub fn probability(avg: u32, lo: u32, hi: u32) -> u32 {
    if avg <= lo {
        0
    } else if avg >= hi {
        ALWAYS
    } else {
        ((((avg - lo) as u64) << 16) / (hi - lo) as u64) as u32
    }
}

/// The marking LFSR: 16 bits, x^16 + x^14 + x^13 + x^11 + 1 in Galois form
/// (period 65535, never 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lfsr(pub u16);

impl Lfsr {
    /// Seeded as the hardware does (0 acts as 1).
    pub fn seeded(seed: u32) -> Self {
        match seed as u16 {
            0 => Lfsr(1),
            s => Lfsr(s),
        }
    }

    /// The value a draw compares, then one step.
    pub fn draw(&mut self) -> u16 {
        let r = self.0;
        self.0 = if r & 1 != 0 {
            (r >> 1) ^ 0xB400
        } else {
            r >> 1
        };
        r
    }
}

/// What a draw `r` does with probabilities `(p_ect1, p_ce)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    None,
    Ect1,
    Ce,
}

pub fn mark(r: u16, p_ect1: u32, p_ce: u32) -> Mark {
    if (r as u32) < p_ce {
        Mark::Ce
    } else if (r as u32) < p_ect1 {
        Mark::Ect1
    } else {
        Mark::None
    }
}

/// The average queue at each microsecond tick, computed forward as the
/// meter does (`crate::meter::average_at`, incrementally).
#[derive(Clone, Debug, Default)]
pub struct AverageTicks {
    /// The next tick not yet applied, and the average (32.16) before it.
    next_tick: Option<u64>,
    avg_q16: u64,
}

impl AverageTicks {
    /// The average visible the clock after tick `tick` (absolute clocks),
    /// from the depth steps `(clock, bytes)` the telemetry input took.
    /// Ticks must be asked for in non-decreasing order.
    pub fn after_tick(
        &mut self,
        tick: u64,
        steps: &[(u64, u32)],
        reset_clock: u64,
        clocks_per_us: u32,
        shift: u32,
    ) -> u32 {
        let p = clocks_per_us.max(1) as u64;
        let shift = shift.min(31);
        let mut t = self.next_tick.unwrap_or(reset_clock + p - 1);
        while t <= tick {
            let qd = if t > reset_clock {
                crate::meter::value_at(steps, 0, t - 1)
            } else {
                0
            };
            let qd = (qd as u64) << 16;
            if qd >= self.avg_q16 {
                self.avg_q16 += (qd - self.avg_q16) >> shift;
            } else {
                self.avg_q16 -= (self.avg_q16 - qd) >> shift;
            }
            t += p;
        }
        self.next_tick = Some(t);
        (self.avg_q16 >> 16) as u32
    }
}

/// The last microsecond tick whose probabilities are in effect in clock
/// `clock` (`None`: none yet, both probabilities 0).
pub fn tick_in_effect(clock: u64, reset_clock: u64, clocks_per_us: u32) -> Option<u64> {
    let p = clocks_per_us.max(1) as u64;
    let first = reset_clock + p - 1;
    let latest = clock.checked_sub(PROB_DELAY)?;
    (latest >= first).then(|| first + (latest - first) / p * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_03_probability_is_linear_between_the_thresholds() {
        assert_eq!(probability(100, 100, 200), 0);
        assert_eq!(probability(150, 100, 200), 32768);
        assert_eq!(probability(199, 100, 200), 64880);
        assert_eq!(probability(200, 100, 200), ALWAYS);
        assert_eq!(probability(u32::MAX, 100, 200), ALWAYS);
        // hi <= lo: a step at lo.
        assert_eq!(probability(100, 100, 50), 0);
        assert_eq!(probability(101, 100, 50), ALWAYS);
    }

    #[test]
    fn pe_03_lfsr_has_the_full_period() {
        let mut l = Lfsr::seeded(0);
        assert_eq!(l, Lfsr(1));
        let mut seen = std::collections::HashSet::new();
        for _ in 0..65535 {
            assert!(seen.insert(l.draw()));
        }
        assert_eq!(l, Lfsr(1));
        assert!(!seen.contains(&0));
    }

    #[test]
    fn pe_03_ce_wins_over_ect1() {
        assert_eq!(mark(5, ALWAYS, 6), Mark::Ce);
        assert_eq!(mark(6, ALWAYS, 6), Mark::Ect1);
        assert_eq!(mark(6, 6, 0), Mark::None);
    }

    #[test]
    fn pe_03_ticks_in_effect() {
        // Ticks at 9, 19, 29, ... (10 clocks per us, reset at 0).
        assert_eq!(tick_in_effect(26, 0, 10), None);
        assert_eq!(tick_in_effect(27, 0, 10), Some(9));
        assert_eq!(tick_in_effect(36, 0, 10), Some(9));
        assert_eq!(tick_in_effect(37, 0, 10), Some(19));
    }
}
