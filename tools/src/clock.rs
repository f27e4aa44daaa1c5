//! The simulated core clock: converts between nanoseconds (pcap timestamps,
//! queue traces, `--duration`) and clock cycles, exactly.

use std::fmt;

/// The default core clock: 322.265625 MHz, the 100GbE MAC clock
/// (10.3125 GBd / 32) that one 64-byte beat per clock needs at 100 Gb/s.
pub const DEFAULT_CLOCK_MHZ: &str = "322.265625";

/// Frequencies above this are refused (no FPGA core clock comes near).
const MAX_MHZ: u128 = 10_000;

/// A clock frequency, held exactly in millihertz.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockRate {
    millihertz: u128,
}

impl ClockRate {
    /// Parses a frequency in MHz written as a decimal (`322.265625`, `250`),
    /// with at most 9 digits after the point.
    pub fn parse_mhz(text: &str) -> Result<ClockRate, String> {
        let t = text.trim();
        let bad = || format!("{text:?} is not a clock frequency in MHz (e.g. 322.265625 or 250)");
        let (whole, fraction) = t.split_once('.').unwrap_or((t, ""));
        let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) {
            return Err(bad());
        }
        if fraction.len() > 9 {
            return Err(format!(
                "{text:?}: at most 9 digits after the point (millihertz)"
            ));
        }
        let whole: u128 = whole.parse().map_err(|_| bad())?;
        if whole > MAX_MHZ {
            return Err(format!("{text} MHz is above {MAX_MHZ} MHz"));
        }
        let fraction_mhz: u128 = if fraction.is_empty() {
            0
        } else {
            fraction.parse::<u128>().map_err(|_| bad())? * 10u128.pow(9 - fraction.len() as u32)
        };
        let millihertz = whole * 1_000_000_000 + fraction_mhz;
        if millihertz == 0 {
            return Err(format!("{text:?}: the clock frequency must be above 0"));
        }
        Ok(ClockRate { millihertz })
    }

    /// The first clock that starts at or after `ns` nanoseconds.
    pub fn cycles_at_or_after(self, ns: u64) -> u64 {
        let scaled = u128::from(ns) * self.millihertz;
        let cycles = scaled.div_ceil(1_000_000_000_000);
        u64::try_from(cycles).unwrap_or(u64::MAX)
    }

    /// The start of clock `cycle`, in nanoseconds, rounded to the nearest.
    pub fn ns_at(self, cycle: u64) -> u64 {
        let ps = u128::from(cycle) * 1_000_000_000_000_000;
        let ns = (ps / self.millihertz + 500) / 1000;
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    /// Length of one clock in nanoseconds.
    pub fn period_ns(self) -> f64 {
        1e12 / self.millihertz as f64
    }
}

impl Default for ClockRate {
    fn default() -> Self {
        ClockRate::parse_mhz(DEFAULT_CLOCK_MHZ).expect("default clock")
    }
}

impl fmt::Display for ClockRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.millihertz / 1_000_000_000;
        let fraction = self.millihertz % 1_000_000_000;
        if fraction == 0 {
            write!(f, "{whole} MHz")
        } else {
            let digits = format!("{fraction:09}");
            write!(f, "{whole}.{} MHz", digits.trim_end_matches('0'))
        }
    }
}

/// `clap` value parser of `--clock-mhz`.
pub fn parse_clock_mhz(text: &str) -> Result<ClockRate, String> {
    ClockRate::parse_mhz(text)
}

/// `35.75 ms`, `250 us`, `12 ns`: a time for people.
pub fn time_text(ns: u64) -> String {
    let trim = |v: f64| {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if ns >= 1_000_000_000 {
        format!("{} s", trim(ns as f64 / 1e9))
    } else if ns >= 1_000_000 {
        format!("{} ms", trim(ns as f64 / 1e6))
    } else if ns >= 1_000 {
        format!("{} us", trim(ns as f64 / 1e3))
    } else {
        format!("{ns} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_03_default_clock_is_the_100g_mac_clock() {
        let c = ClockRate::default();
        assert_eq!(c.to_string(), "322.265625 MHz");
        assert!((c.period_ns() - 3.103_03).abs() < 1e-5);
        // 10 ms is 3,222,656.25 clocks: the first clock at or after it is the next whole one.
        assert_eq!(c.cycles_at_or_after(10_000_000), 3_222_657);
        assert_eq!(c.cycles_at_or_after(0), 0);
        assert_eq!(c.cycles_at_or_after(1), 1);
        // 32 ns at 250 MHz is exactly 8 clocks; 33 ns falls inside the 9th.
        let q = ClockRate::parse_mhz("250").unwrap();
        assert_eq!(q.cycles_at_or_after(32), 8);
        assert_eq!(q.cycles_at_or_after(33), 9);
        assert_eq!(q.ns_at(8), 32);
        assert_eq!(c.ns_at(3_222_656), 9_999_999);
    }

    #[test]
    fn hw_03_clock_option_rejects_what_is_not_a_frequency() {
        for bad in [
            "",
            "0",
            "0.0",
            "-1",
            "abc",
            "1.2.3",
            "1e3",
            "20000",
            "1.0000000001",
        ] {
            assert!(ClockRate::parse_mhz(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            ClockRate::parse_mhz("156.25").unwrap().to_string(),
            "156.25 MHz"
        );
    }

    #[test]
    fn hw_03_times_read_like_people_write_them() {
        assert_eq!(time_text(35_750_000), "35.75 ms");
        assert_eq!(time_text(14_000_000), "14 ms");
        assert_eq!(time_text(250_000), "250 us");
        assert_eq!(time_text(12), "12 ns");
        assert_eq!(time_text(2_000_000_000), "2 s");
    }
}
