//! LH-03 marking thresholds of a WAN port.
//!
//! draft-tian-ccwg-long-haul-cnp: `K_max = max(K_base, alpha * R_port * RTT_est / 8)`
//! and `K_min < K_max` (K_min = K_max / 2 unless configured).
//!
//! The device holds R_port in Mb/s, RTT_est in microseconds and alpha in unsigned
//! 8.8 fixed point, and may recompute K_max from those registers when RTT_est
//! changes. So the host computes K_max from the same quantised values the
//! registers hold, which is exact integer arithmetic:
//! `alpha_q8_8 * rate_mbps * rtt_est_us / (256 * 8)` bytes.
//! Inputs the registers cannot hold exactly (a rate that is not a whole number of
//! Mb/s, an RTT that is not a whole number of microseconds) are errors, not
//! silent rounding; alpha is rounded to the nearest 1/256.

use std::time::Duration;
use thiserror::Error;

/// Largest alpha the 8.8 fixed-point register holds (0xffff / 256).
pub const ALPHA_MAX: f64 = 65535.0 / 256.0;

/// How K_min is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KMin {
    /// A fraction of K_max in (0, 1), rounded down to whole bytes. LH-03's
    /// default is 0.5.
    Fraction(f64),
    /// An explicit value in bytes; must be below K_max.
    Bytes(u64),
}

impl Default for KMin {
    fn default() -> Self {
        KMin::Fraction(0.5)
    }
}

/// What the operator specifies for one port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThresholdInput {
    /// Egress rate R_port in bits per second.
    pub rate_bps: u64,
    /// Round-trip time estimate RTT_est.
    pub rtt: Duration,
    /// Multiplier of the bandwidth-delay product.
    pub alpha: f64,
    /// Floor of K_max, in bytes.
    pub k_base_bytes: u64,
    pub k_min: KMin,
    /// Explicit K_max in bytes instead of the LH-03 formula (still >= K_base).
    pub k_max_bytes: Option<u64>,
}

impl ThresholdInput {
    /// LH-03 defaults: K_min = K_max / 2, K_max from the formula.
    pub fn new(rate_bps: u64, rtt: Duration, alpha: f64, k_base_bytes: u64) -> ThresholdInput {
        ThresholdInput {
            rate_bps,
            rtt,
            alpha,
            k_base_bytes,
            k_min: KMin::default(),
            k_max_bytes: None,
        }
    }
}

/// Register values for one port, all validated to fit their 32-bit registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    pub rate_mbps: u32,
    pub rtt_est_us: u32,
    pub k_base_bytes: u32,
    /// Unsigned 8.8 fixed point: 0x0100 = 1.0.
    pub alpha_q8_8: u32,
    pub k_min_bytes: u32,
    pub k_max_bytes: u32,
}

/// Thresholds that cannot be programmed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ThresholdError {
    #[error("rate must be above 0")]
    RateZero,
    #[error("rate {rate_bps} b/s is not a whole number of Mb/s (the register holds Mb/s)")]
    RateNotWholeMbps { rate_bps: u64 },
    #[error("rtt must be above 0")]
    RttZero,
    #[error("rtt {rtt:?} is not a whole number of microseconds (the register holds us)")]
    RttNotWholeMicros { rtt: Duration },
    #[error("alpha {alpha} is outside the unsigned 8.8 fixed-point range 0..={ALPHA_MAX}")]
    AlphaOutOfRange { alpha: f64 },
    #[error("{quantity} = {value} does not fit its 32-bit register (max {max})", max = u32::MAX)]
    Overflow { quantity: &'static str, value: u128 },
    #[error("k_min_fraction {fraction} must be above 0 and below 1")]
    KMinFractionOutOfRange { fraction: f64 },
    #[error("k_min ({k_min} bytes) must be below k_max ({k_max} bytes)")]
    KMinNotBelowKMax { k_min: u64, k_max: u64 },
    #[error("k_max ({k_max} bytes) is below k_base ({k_base} bytes), the floor of K_max (LH-03)")]
    KMaxBelowKBase { k_max: u64, k_base: u64 },
}

impl ThresholdError {
    /// The input the error is about, as the configuration file names it.
    pub fn key(&self) -> &'static str {
        match self {
            ThresholdError::RateZero | ThresholdError::RateNotWholeMbps { .. } => "rate",
            ThresholdError::RttZero | ThresholdError::RttNotWholeMicros { .. } => "rtt",
            ThresholdError::AlphaOutOfRange { .. } => "alpha",
            ThresholdError::Overflow { quantity, .. } => quantity,
            ThresholdError::KMinFractionOutOfRange { .. } => "k_min_fraction",
            ThresholdError::KMinNotBelowKMax { .. } => "k_min",
            ThresholdError::KMaxBelowKBase { .. } => "k_max",
        }
    }
}

fn fit(quantity: &'static str, value: u128) -> Result<u32, ThresholdError> {
    u32::try_from(value).map_err(|_| ThresholdError::Overflow { quantity, value })
}

/// Rounds alpha to unsigned 8.8 fixed point.
pub fn alpha_to_q8_8(alpha: f64) -> Result<u32, ThresholdError> {
    if !alpha.is_finite() || alpha < 0.0 {
        return Err(ThresholdError::AlphaOutOfRange { alpha });
    }
    let q = (alpha * 256.0).round();
    if q > f64::from(0xffff_u32) {
        return Err(ThresholdError::AlphaOutOfRange { alpha });
    }
    Ok(q as u32)
}

/// The value an 8.8 fixed-point register holds.
pub fn q8_8_to_alpha(q8_8: u32) -> f64 {
    f64::from(q8_8) / 256.0
}

/// LH-03: `alpha_q8_8 / 256 * rate_mbps * 1e6 * rtt_us * 1e-6 / 8` bytes, exactly.
pub fn bdp_bytes(rate_mbps: u32, rtt_est_us: u32, alpha_q8_8: u32) -> u128 {
    u128::from(alpha_q8_8) * u128::from(rate_mbps) * u128::from(rtt_est_us) / (256 * 8)
}

/// Computes and validates the register values of one port (LH-03).
pub fn compute_thresholds(input: &ThresholdInput) -> Result<Thresholds, ThresholdError> {
    if input.rate_bps == 0 {
        return Err(ThresholdError::RateZero);
    }
    let rate_mbps = input.rate_bps / 1_000_000;
    if rate_mbps * 1_000_000 != input.rate_bps {
        return Err(ThresholdError::RateNotWholeMbps {
            rate_bps: input.rate_bps,
        });
    }
    let rate_mbps = fit("rate", u128::from(rate_mbps))?;

    if input.rtt.is_zero() {
        return Err(ThresholdError::RttZero);
    }
    let rtt_us = input.rtt.as_micros();
    if rtt_us * 1_000 != input.rtt.as_nanos() {
        return Err(ThresholdError::RttNotWholeMicros { rtt: input.rtt });
    }
    let rtt_est_us = fit("rtt", rtt_us)?;

    let alpha_q8_8 = alpha_to_q8_8(input.alpha)?;
    let k_base_bytes = fit("k_base", u128::from(input.k_base_bytes))?;

    let k_max = match input.k_max_bytes {
        Some(k_max) if k_max < input.k_base_bytes => {
            return Err(ThresholdError::KMaxBelowKBase {
                k_max,
                k_base: input.k_base_bytes,
            })
        }
        Some(k_max) => u128::from(k_max),
        None => bdp_bytes(rate_mbps, rtt_est_us, alpha_q8_8).max(u128::from(k_base_bytes)),
    };
    let k_max_bytes = fit("k_max", k_max)?;

    let k_min = match input.k_min {
        KMin::Fraction(fraction) if !(fraction > 0.0 && fraction < 1.0) => {
            return Err(ThresholdError::KMinFractionOutOfRange { fraction })
        }
        KMin::Fraction(fraction) => (f64::from(k_max_bytes) * fraction).floor() as u64,
        KMin::Bytes(bytes) => bytes,
    };
    if k_min >= u64::from(k_max_bytes) {
        return Err(ThresholdError::KMinNotBelowKMax {
            k_min,
            k_max: u64::from(k_max_bytes),
        });
    }
    let k_min_bytes = fit("k_min", u128::from(k_min))?;

    Ok(Thresholds {
        rate_mbps,
        rtt_est_us,
        k_base_bytes,
        alpha_q8_8,
        k_min_bytes,
        k_max_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worked_example() -> ThresholdInput {
        ThresholdInput::new(100_000_000_000, Duration::from_millis(10), 1.0, 64 * 1024)
    }

    /// The draft's worked example: 100 Gb/s x 10 ms with alpha 1 is a 125 MB
    /// bandwidth-delay product, far above K_base = 64 KB.
    #[test]
    fn lh_03_worked_example_thresholds() {
        let t = compute_thresholds(&worked_example()).unwrap();
        assert_eq!(t.k_max_bytes, 125_000_000);
        assert_eq!(t.k_min_bytes, 62_500_000);
        assert_eq!(t.rate_mbps, 100_000);
        assert_eq!(t.rtt_est_us, 10_000);
        assert_eq!(t.alpha_q8_8, 0x100);
        assert_eq!(t.k_base_bytes, 65_536);
    }

    /// The worked example is also the register map's reset state.
    #[test]
    fn lh_03_reset_values_are_the_worked_example() {
        let t = compute_thresholds(&worked_example()).unwrap();
        let reset = |name| cngw_regmap::by_name(name).unwrap().reset;
        assert_eq!(t.rate_mbps, reset("PORT0_RATE_MBPS"));
        assert_eq!(t.rtt_est_us, reset("PORT0_RTT_EST_US"));
        assert_eq!(t.k_base_bytes, reset("PORT0_K_BASE_BYTES"));
        assert_eq!(t.alpha_q8_8, reset("PORT0_ALPHA_Q8_8"));
        assert_eq!(t.k_min_bytes, reset("PORT0_K_MIN_BYTES"));
        assert_eq!(t.k_max_bytes, reset("PORT0_K_MAX_BYTES"));
    }

    #[test]
    fn lh_03_k_base_is_the_floor_of_k_max() {
        // 1 Gb/s x 100 us / 8 = 12,500 bytes < K_base.
        let input = ThresholdInput::new(1_000_000_000, Duration::from_micros(100), 1.0, 64 * 1024);
        let t = compute_thresholds(&input).unwrap();
        assert_eq!(t.k_max_bytes, 65_536);
        assert_eq!(t.k_min_bytes, 32_768);
        // Just above the floor the formula wins.
        let input = ThresholdInput {
            rtt: Duration::from_micros(600),
            ..input
        };
        assert_eq!(compute_thresholds(&input).unwrap().k_max_bytes, 75_000);
    }

    #[test]
    fn lh_03_alpha_scales_k_max() {
        let input = ThresholdInput {
            alpha: 0.5,
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap().k_max_bytes, 62_500_000);
        let input = ThresholdInput {
            alpha: 2.0,
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap().k_max_bytes, 250_000_000);
        assert_eq!(alpha_to_q8_8(1.0).unwrap(), 0x100);
        assert_eq!(alpha_to_q8_8(ALPHA_MAX).unwrap(), 0xffff);
        assert_eq!(q8_8_to_alpha(0x180), 1.5);
    }

    #[test]
    fn lh_03_overflowing_values_are_rejected() {
        // 400 Gb/s x 100 ms = 5 GB: K_max does not fit 32 bits.
        let input = ThresholdInput::new(400_000_000_000, Duration::from_millis(100), 1.0, 65_536);
        let err = compute_thresholds(&input).unwrap_err();
        assert_eq!(
            err,
            ThresholdError::Overflow {
                quantity: "k_max",
                value: 5_000_000_000
            }
        );
        assert_eq!(err.key(), "k_max");
        assert!(err.to_string().contains("32-bit"), "{err}");

        let input = ThresholdInput {
            k_base_bytes: 1 << 32,
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap_err().key(), "k_base");
        let input = ThresholdInput {
            rate_bps: 5_000_000_000_000_000,
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap_err().key(), "rate");
        let input = ThresholdInput {
            rtt: Duration::from_secs(5_000),
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap_err().key(), "rtt");
        let input = ThresholdInput {
            k_max_bytes: Some(1 << 32),
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap_err().key(), "k_max");
    }

    #[test]
    fn lh_03_k_min_must_stay_below_k_max() {
        let input = ThresholdInput {
            k_min: KMin::Bytes(125_000_000),
            ..worked_example()
        };
        assert!(matches!(
            compute_thresholds(&input),
            Err(ThresholdError::KMinNotBelowKMax { .. })
        ));
        let input = ThresholdInput {
            k_min: KMin::Bytes(100_000_000),
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap().k_min_bytes, 100_000_000);
        let input = ThresholdInput {
            k_min: KMin::Fraction(0.25),
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap().k_min_bytes, 31_250_000);
        for fraction in [0.0, 1.0, -0.5, f64::NAN] {
            let input = ThresholdInput {
                k_min: KMin::Fraction(fraction),
                ..worked_example()
            };
            assert_eq!(
                compute_thresholds(&input).unwrap_err().key(),
                "k_min_fraction"
            );
        }
        // Explicit K_max below K_base.
        let input = ThresholdInput {
            k_max_bytes: Some(1000),
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input).unwrap_err().key(), "k_max");
        // K_base = 0 and a tiny product leave no room for K_min < K_max.
        let input = ThresholdInput::new(1_000_000, Duration::from_micros(1), 1.0, 0);
        assert_eq!(compute_thresholds(&input).unwrap_err().key(), "k_min");
    }

    #[test]
    fn lh_03_inputs_the_registers_cannot_hold_are_rejected() {
        for alpha in [-1.0, 256.0, f64::NAN, f64::INFINITY] {
            let input = ThresholdInput {
                alpha,
                ..worked_example()
            };
            assert_eq!(
                compute_thresholds(&input).unwrap_err().key(),
                "alpha",
                "{alpha}"
            );
        }
        let input = ThresholdInput {
            rate_bps: 1_500_000,
            ..worked_example()
        };
        assert!(matches!(
            compute_thresholds(&input),
            Err(ThresholdError::RateNotWholeMbps { .. })
        ));
        let input = ThresholdInput {
            rate_bps: 0,
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input), Err(ThresholdError::RateZero));
        let input = ThresholdInput {
            rtt: Duration::from_nanos(1_500),
            ..worked_example()
        };
        assert!(matches!(
            compute_thresholds(&input),
            Err(ThresholdError::RttNotWholeMicros { .. })
        ));
        let input = ThresholdInput {
            rtt: Duration::ZERO,
            ..worked_example()
        };
        assert_eq!(compute_thresholds(&input), Err(ThresholdError::RttZero));
    }
}
