//! The queue meter of WAN port 0 (LH-02) and its second-level triggers
//! (LH-05), typed: where the queue depth comes from (the telemetry input or
//! the internal virtual egress queue and its drain rate), the average's
//! weight, the ECN marking-rate window and V_ecn, the queue-growth interval
//! and V_growth.
//!
//! Conversions from what people write to register values are exact where
//! they can be and rounded to the nearest register step otherwise:
//! [`drain_q16`] (a rate in bits per second at a core clock, to bytes per
//! clock in 16.16 fixed point) and [`v_ecn_q16`] (a fraction to 0.16 fixed
//! point).

use cngw_regmap::{meter_control, offset};
use thiserror::Error;

/// The smallest marking-rate window that gives a result, in clocks
/// (the hardware's divider takes 17 clocks).
pub const EMR_MIN_WINDOW_CLOCKS: u64 = 17;
/// `PORT0_V_ECN_Q16` and `PORT0_V_GROWTH_BYTES` value that never triggers.
pub const NEVER: u32 = u32::MAX;

/// Where the gateway takes the queue depth of a WAN port from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueSource {
    /// The external telemetry input (`qd_ext_*`), the state after reset.
    Telemetry,
    /// The internal virtual egress queue (`PORT0_VQ_DRAIN_Q16`).
    Internal,
}

/// A meter setting that cannot be written.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum MeterError {
    #[error("the drain rate must be above 0 (a queue that never drains)")]
    ZeroDrain,
    #[error("a drain rate of {rate_bps} b/s is {bytes:.1} bytes per clock at {clocks_per_us} clocks per microsecond; at most 65535.99 fit")]
    DrainTooFast {
        rate_bps: u64,
        clocks_per_us: u32,
        bytes: f64,
    },
    #[error("clocks_per_us must be at least 1")]
    NoClock,
    #[error("the average weight shift must be 0..=31, not {0}")]
    Shift(u32),
    #[error("a marking-rate window of {us} us is {clocks} clocks; at least {EMR_MIN_WINDOW_CLOCKS} are needed")]
    WindowTooShort { us: u32, clocks: u64 },
    #[error("V_ecn must be a fraction from 0 to 1, not {0}")]
    VEcn(f64),
    #[error("the queue-growth interval must be at least 1 us")]
    ZeroInterval,
}

/// Bytes per clock in 16.16 fixed point that drain `rate_bps` bits per
/// second at `clocks_per_us` core clocks per microsecond, rounded to the
/// nearest step (1/65536 byte per clock).
pub fn drain_q16(rate_bps: u64, clocks_per_us: u32) -> Result<u32, MeterError> {
    if clocks_per_us == 0 {
        return Err(MeterError::NoClock);
    }
    if rate_bps == 0 {
        return Err(MeterError::ZeroDrain);
    }
    // bytes/clock = rate / 8 / (clocks_per_us * 1e6)
    let den = 8u128 * clocks_per_us as u128 * 1_000_000;
    let q = ((rate_bps as u128) * 65536 + den / 2) / den;
    if q == 0 {
        return Err(MeterError::ZeroDrain);
    }
    u32::try_from(q).map_err(|_| MeterError::DrainTooFast {
        rate_bps,
        clocks_per_us,
        bytes: rate_bps as f64 / den as f64,
    })
}

/// A marking-rate threshold (a fraction of ECN-capable frames, 0..=1) in
/// the 0.16 fixed point of `PORT0_V_ECN_Q16`, rounded to the nearest step.
/// 1.0 (65536) never triggers: the rate cannot exceed it.
pub fn v_ecn_q16(fraction: f64) -> Result<u32, MeterError> {
    if !(0.0..=1.0).contains(&fraction) {
        return Err(MeterError::VEcn(fraction));
    }
    Ok((fraction * 65536.0).round() as u32)
}

/// The meter settings of WAN port 0; `None` leaves a register as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MeterSettings {
    pub source: Option<QueueSource>,
    /// `PORT0_VQ_DRAIN_Q16` (see [`drain_q16`]).
    pub drain_q16: Option<u32>,
    pub avg_weight_shift: Option<u32>,
    pub emr_window_us: Option<u32>,
    /// `PORT0_V_ECN_Q16` (see [`v_ecn_q16`]); [`NEVER`] turns the trigger off.
    pub v_ecn_q16: Option<u32>,
    pub qgr_interval_us: Option<u32>,
    /// Bytes; [`NEVER`] turns the trigger off.
    pub v_growth_bytes: Option<u32>,
}

impl MeterSettings {
    /// Every setting that cannot work at `clocks_per_us`, with its key.
    pub fn check(&self, clocks_per_us: u32) -> Vec<(&'static str, MeterError)> {
        let mut problems = Vec::new();
        if let Some(0) = self.drain_q16 {
            problems.push(("drain", MeterError::ZeroDrain));
        }
        if let Some(s) = self.avg_weight_shift.filter(|&s| s > 31) {
            problems.push(("avg_weight_shift", MeterError::Shift(s)));
        }
        if let Some(us) = self.emr_window_us {
            let clocks = us as u64 * clocks_per_us as u64;
            if clocks < EMR_MIN_WINDOW_CLOCKS {
                problems.push(("emr_window", MeterError::WindowTooShort { us, clocks }));
            }
        }
        if let Some(0) = self.qgr_interval_us {
            problems.push(("qgr_interval", MeterError::ZeroInterval));
        }
        problems
    }

    /// The register writes, in offset order.
    pub fn writes(&self) -> Vec<(u32, u32)> {
        let mut w = Vec::new();
        if let Some(v) = self.qgr_interval_us {
            w.push((offset::PORT0_QGR_INTERVAL_US, v));
        }
        if let Some(v) = self.v_growth_bytes {
            w.push((offset::PORT0_V_GROWTH_BYTES, v));
        }
        if let Some(s) = self.source {
            let bits = match s {
                QueueSource::Telemetry => 0,
                QueueSource::Internal => meter_control::INTERNAL_QUEUE,
            };
            w.push((offset::PORT0_METER_CONTROL, bits));
        }
        if let Some(v) = self.drain_q16 {
            w.push((offset::PORT0_VQ_DRAIN_Q16, v));
        }
        if let Some(v) = self.avg_weight_shift {
            w.push((offset::PORT0_AVG_WEIGHT_SHIFT, v));
        }
        if let Some(v) = self.emr_window_us {
            w.push((offset::PORT0_EMR_WINDOW_US, v));
        }
        if let Some(v) = self.v_ecn_q16 {
            w.push((offset::PORT0_V_ECN_Q16, v));
        }
        w.sort_by_key(|&(o, _)| o);
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_02_drain_rate_converts_to_bytes_per_clock() {
        // 100 Gb/s at 322.265625 MHz (CLOCKS_PER_US 322 is the register's
        // integer view; the reset value of PORT0_VQ_DRAIN_Q16 uses the exact clock).
        assert_eq!(drain_q16(100_000_000_000, 322).unwrap(), 2_544_099);
        // 8 bytes per clock exactly: 8 * 8 * 100 Mb/s at 100 clocks/us.
        assert_eq!(drain_q16(6_400_000_000, 100).unwrap(), 8 << 16);
        assert_eq!(drain_q16(0, 322), Err(MeterError::ZeroDrain));
        assert_eq!(drain_q16(1, 322), Err(MeterError::ZeroDrain));
        assert!(matches!(
            drain_q16(u64::MAX, 1),
            Err(MeterError::DrainTooFast { .. })
        ));
        assert_eq!(drain_q16(1_000, 0), Err(MeterError::NoClock));
    }

    #[test]
    fn lh_05_v_ecn_converts_and_rejects_out_of_range() {
        assert_eq!(v_ecn_q16(0.5).unwrap(), 0x8000);
        assert_eq!(v_ecn_q16(1.0).unwrap(), 0x1_0000);
        assert_eq!(v_ecn_q16(0.0).unwrap(), 0);
        assert_eq!(v_ecn_q16(1.5), Err(MeterError::VEcn(1.5)));
        assert_eq!(v_ecn_q16(-0.1), Err(MeterError::VEcn(-0.1)));
    }

    #[test]
    fn lh_02_settings_check_and_write_in_offset_order() {
        let s = MeterSettings {
            source: Some(QueueSource::Internal),
            drain_q16: Some(8 << 16),
            avg_weight_shift: Some(4),
            emr_window_us: Some(100),
            v_ecn_q16: Some(0x8000),
            qgr_interval_us: Some(50),
            v_growth_bytes: Some(NEVER),
        };
        assert!(s.check(322).is_empty());
        let w = s.writes();
        assert_eq!(w.len(), 7);
        assert!(w.windows(2).all(|p| p[0].0 < p[1].0));
        assert!(w.contains(&(offset::PORT0_METER_CONTROL, meter_control::INTERNAL_QUEUE)));
        let bad = MeterSettings {
            avg_weight_shift: Some(32),
            emr_window_us: Some(1),
            qgr_interval_us: Some(0),
            drain_q16: Some(0),
            ..Default::default()
        };
        let keys: Vec<&str> = bad.check(16).iter().map(|p| p.0).collect();
        assert_eq!(
            keys,
            ["drain", "avg_weight_shift", "emr_window", "qgr_interval"]
        );
    }
}
