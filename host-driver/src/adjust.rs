//! LH-11: dynamic adjustment of the marking thresholds from observed traffic,
//! a host-side loop (draft-tian-ccwg-long-haul-cnp, "BDP-Adaptive Dynamic
//! Threshold Calculation" and "Dynamic Parameter Adjustment": nodes MAY adapt
//! K_min, K_max, V_ecn and V_growth; the algorithm is left to implementations).
//!
//! The law ([`adjust`]) is a pure function of one [`Observation`] of WAN
//! port 0 and a small [`AdjustState`]. It moves LH-03's alpha and derives the
//! rest from it:
//!
//! - **standing queue** — the average queue is above K_min while the port's
//!   RoCEv2 bytes already fill at least `util_high` of R_port: the queue buys
//!   no throughput, only delay. Multiplicative decrease:
//!   `alpha <- max(alpha_min, alpha * decrease)`.
//! - **headroom** — utilisation is below `util_low` and the average queue is
//!   below K_min / 2: marking could only start too early. Additive increase:
//!   `alpha <- min(alpha_max, alpha + increase)`.
//! - **anything else** is the dead band: nothing changes, nothing is written.
//!
//! A zone must be seen `persist` observations in a row before alpha moves,
//! and the count starts again after each move. Then, as LH-03:
//! `K_max = max(K_base, alpha * R * RTT_est / 8)`, `K_min = K_max / 2`;
//! V_growth and V_ecn keep the ratio to K_max they had when the loop started
//! (a trigger that was off stays off). Utilisation is
//! `LH_PORT_WINDOW_BYTES * 8 / (LH_OBS_WINDOW_US * PORT0_RATE_MBPS)`.
//! docs/decisions.md ("LH-11 dynamic adjustment") gives the reasons.
//!
//! [`step`] runs one round on a device: it reads the gauges and thresholds,
//! applies the law and writes the changed registers in an order that keeps
//! K_min below K_max after every single write ([`adjustment_writes`]).

use crate::bus::RegisterBus;
use crate::device::{port_registers, Device, DeviceError};
use crate::meter::NEVER;
use crate::thresholds::{
    alpha_to_q8_8, compute_thresholds, q8_8_to_alpha, ThresholdError, ThresholdInput, Thresholds,
    ALPHA_MAX,
};
use cngw_regmap::offset;
use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// `PORT0_V_ECN_Q16` at or above this (a marking rate of 1.0) never triggers.
const V_ECN_ONE: u32 = 1 << 16;

/// Parameters of the law, alpha values in the 8.8 fixed point of
/// `PORT0_ALPHA_Q8_8`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdjustParams {
    /// Lowest alpha the loop sets (> 0).
    pub alpha_min_q8_8: u32,
    /// Highest alpha the loop sets.
    pub alpha_max_q8_8: u32,
    /// Multiplicative decrease in 1/256: alpha * decrease_q8 / 256, 1..=255.
    pub decrease_q8: u32,
    /// Additive increase of alpha per move, 8.8 fixed point (>= 1).
    pub increase_q8_8: u32,
    /// Utilisation below which the link has headroom, in (0, util_high).
    pub util_low: f64,
    /// Utilisation at or above which the link counts as full, in (util_low, 1].
    pub util_high: f64,
    /// Observations in a row a zone needs before alpha moves (>= 1).
    pub persist: u32,
}

impl Default for AdjustParams {
    /// alpha in [0.25, 1.0], x0.75 down, +0.125 up, dead band 0.5..0.9,
    /// two observations in a row.
    fn default() -> Self {
        AdjustParams {
            alpha_min_q8_8: 0x40,
            alpha_max_q8_8: 0x100,
            decrease_q8: 192,
            increase_q8_8: 0x20,
            util_low: 0.5,
            util_high: 0.9,
            persist: 2,
        }
    }
}

/// A parameter of the law that cannot work, or a step that cannot be taken.
#[derive(Debug, Error)]
pub enum AdjustError {
    #[error("alpha_min {0} must be above 0 and fit the 8.8 register (at most {ALPHA_MAX})")]
    AlphaMin(f64),
    #[error("alpha_max {0} must be above 0 and fit the 8.8 register (at most {ALPHA_MAX})")]
    AlphaMax(f64),
    #[error("alpha_min {min} is above alpha_max {max}")]
    AlphaBounds { min: f64, max: f64 },
    #[error("decrease {0} must be a factor above 0 and below 1 (in steps of 1/256)")]
    Decrease(f64),
    #[error("increase {0} must be an alpha step of at least 1/256 (at most {ALPHA_MAX})")]
    Increase(f64),
    #[error("util_low {low} and util_high {high} must satisfy 0 < util_low < util_high <= 1 (the dead band lies between)")]
    Utilisation { low: f64, high: f64 },
    #[error("persist must be at least 1 observation")]
    Persist,
    #[error("LH_OBS_WINDOW_US is 0: the port's bytes per window give no utilisation")]
    NoWindow,
    #[error("PORT0_RATE_MBPS is 0: no utilisation against R_port")]
    NoRate,
    #[error("alpha {alpha} gives thresholds the device cannot hold: {source}")]
    Threshold {
        alpha: f64,
        #[source]
        source: ThresholdError,
    },
    #[error(transparent)]
    Device(#[from] DeviceError),
}

impl AdjustError {
    /// The `[adjust]` key a parameter error is about.
    pub fn key(&self) -> &'static str {
        match self {
            AdjustError::AlphaMin(_) => "alpha_min",
            AdjustError::AlphaMax(_) | AdjustError::AlphaBounds { .. } => "alpha_max",
            AdjustError::Decrease(_) => "decrease",
            AdjustError::Increase(_) => "increase",
            AdjustError::Utilisation { .. } => "util_high",
            AdjustError::Persist => "persist",
            _ => "adjust",
        }
    }
}

/// The law's parameters as people write them (fractions and factors).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdjustSettings {
    pub alpha_min: f64,
    pub alpha_max: f64,
    pub decrease: f64,
    pub increase: f64,
    pub util_low: f64,
    pub util_high: f64,
    pub persist: u32,
}

impl Default for AdjustSettings {
    fn default() -> Self {
        let p = AdjustParams::default();
        AdjustSettings {
            alpha_min: q8_8_to_alpha(p.alpha_min_q8_8),
            alpha_max: q8_8_to_alpha(p.alpha_max_q8_8),
            decrease: f64::from(p.decrease_q8) / 256.0,
            increase: q8_8_to_alpha(p.increase_q8_8),
            util_low: p.util_low,
            util_high: p.util_high,
            persist: p.persist,
        }
    }
}

impl AdjustSettings {
    /// The register-step parameters, or every problem found.
    pub fn params(&self) -> Result<AdjustParams, Vec<AdjustError>> {
        let mut problems = Vec::new();
        let alpha = |a: f64| alpha_to_q8_8(a).ok().filter(|&q| q > 0);
        let alpha_min = alpha(self.alpha_min);
        if alpha_min.is_none() {
            problems.push(AdjustError::AlphaMin(self.alpha_min));
        }
        let alpha_max = alpha(self.alpha_max);
        if alpha_max.is_none() {
            problems.push(AdjustError::AlphaMax(self.alpha_max));
        }
        if let (Some(min), Some(max)) = (alpha_min, alpha_max) {
            if min > max {
                problems.push(AdjustError::AlphaBounds {
                    min: self.alpha_min,
                    max: self.alpha_max,
                });
            }
        }
        let decrease_q8 = (self.decrease * 256.0).round();
        let decrease_ok = self.decrease > 0.0 && self.decrease < 1.0;
        if !(decrease_ok && (1.0..=255.0).contains(&decrease_q8)) {
            problems.push(AdjustError::Decrease(self.decrease));
        }
        let increase = alpha(self.increase);
        if increase.is_none() {
            problems.push(AdjustError::Increase(self.increase));
        }
        let (low, high) = (self.util_low, self.util_high);
        if !(low > 0.0 && low < high && high <= 1.0) {
            problems.push(AdjustError::Utilisation { low, high });
        }
        if self.persist == 0 {
            problems.push(AdjustError::Persist);
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(AdjustParams {
            alpha_min_q8_8: alpha_min.expect("checked"),
            alpha_max_q8_8: alpha_max.expect("checked"),
            decrease_q8: decrease_q8 as u32,
            increase_q8_8: increase.expect("checked"),
            util_low: low,
            util_high: high,
            persist: self.persist,
        })
    }
}

/// What the loop reads from WAN port 0 in one round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    /// `PORT0_QUEUE_AVG_BYTES`: the queue's moving average.
    pub avg_queue_bytes: u32,
    /// `PORT0_EMR_Q16`: CE share of the ECN-capable frames in the last
    /// window (reported; not an input of the law, see the module docs).
    pub emr_q16: u32,
    /// `LH_PORT_WINDOW_BYTES`: RoCEv2 bytes toward the WAN in the last
    /// complete observation window.
    pub port_window_bytes: u32,
    /// `LH_OBS_WINDOW_US`.
    pub obs_window_us: u32,
    /// The LH-03 registers as they are now.
    pub thresholds: Thresholds,
    /// `PORT0_V_ECN_Q16`.
    pub v_ecn_q16: u32,
    /// `PORT0_V_GROWTH_BYTES`.
    pub v_growth_bytes: u32,
}

impl Observation {
    /// The port's RoCEv2 bytes per window against R_port, 0..(above 1 when
    /// R_port is set below the real line rate).
    pub fn utilisation(&self) -> Result<f64, AdjustError> {
        if self.obs_window_us == 0 {
            return Err(AdjustError::NoWindow);
        }
        if self.thresholds.rate_mbps == 0 {
            return Err(AdjustError::NoRate);
        }
        // Mb/s = bits per microsecond.
        let capacity_bits = f64::from(self.obs_window_us) * f64::from(self.thresholds.rate_mbps);
        Ok(f64::from(self.port_window_bytes) * 8.0 / capacity_bits)
    }

    /// The ECN marking rate as a fraction.
    pub fn marking_rate(&self) -> f64 {
        f64::from(self.emr_q16) / 65536.0
    }
}

/// Where an observation falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zone {
    /// Average queue above K_min with the link full: lower alpha.
    StandingQueue,
    /// Link below `util_low` with the queue below K_min / 2: raise alpha.
    Headroom,
    /// The dead band: hold.
    Band,
}

impl Zone {
    pub fn name(self) -> &'static str {
        match self {
            Zone::StandingQueue => "standing_queue",
            Zone::Headroom => "headroom",
            Zone::Band => "band",
        }
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The zone of `obs` under `params`.
pub fn classify(params: &AdjustParams, obs: &Observation) -> Result<Zone, AdjustError> {
    let utilisation = obs.utilisation()?;
    let avg = obs.avg_queue_bytes;
    let k_min = obs.thresholds.k_min_bytes;
    Ok(if utilisation >= params.util_high && avg > k_min {
        Zone::StandingQueue
    } else if utilisation < params.util_low && avg < k_min / 2 {
        Zone::Headroom
    } else {
        Zone::Band
    })
}

/// K_max, V_ecn and V_growth when the loop started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reference {
    pub k_max_bytes: u32,
    pub v_ecn_q16: u32,
    pub v_growth_bytes: u32,
}

/// The history the law keeps between observations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdjustState {
    /// The zone of the last observation and how many in a row.
    zone: Option<Zone>,
    run: u32,
    /// Taken from the first observation.
    reference: Option<Reference>,
}

impl AdjustState {
    pub fn new() -> AdjustState {
        AdjustState::default()
    }

    /// The values V_ecn and V_growth are scaled from (after the first step).
    pub fn reference(&self) -> Option<Reference> {
        self.reference
    }

    /// Observations in a row in the current zone.
    pub fn run(&self) -> u32 {
        self.run
    }
}

/// What the law decided for one observation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adjustment {
    pub zone: Zone,
    pub utilisation: f64,
    /// The registers after this step (equal to the observation's when
    /// nothing changes).
    pub thresholds: Thresholds,
    pub v_ecn_q16: u32,
    pub v_growth_bytes: u32,
}

impl Adjustment {
    /// Whether alpha moved (and with it the thresholds).
    pub fn changed(&self, obs: &Observation) -> bool {
        self.thresholds.alpha_q8_8 != obs.thresholds.alpha_q8_8
    }
}

/// `value * num / den` rounded down, in 128 bits, capped at `cap`.
fn scale(value: u32, num: u32, den: u32, cap: u32) -> u32 {
    if den == 0 {
        return cap;
    }
    let v = u128::from(value) * u128::from(num) / u128::from(den);
    u32::try_from(v).unwrap_or(cap).min(cap)
}

/// V_growth at K_max `k_max` for the reference `r`; off stays off, and a
/// trigger never becomes 0 (always) or "off" by rounding.
fn scaled_v_growth(r: &Reference, k_max: u32) -> u32 {
    if r.v_growth_bytes == NEVER {
        return NEVER;
    }
    scale(r.v_growth_bytes, k_max, r.k_max_bytes, NEVER - 1).max(1)
}

/// V_ecn at K_max `k_max` for the reference `r`; off (>= 1.0) stays as it
/// was, and the scaled rate stops at 1.0 (never triggers).
fn scaled_v_ecn(r: &Reference, k_max: u32) -> u32 {
    if r.v_ecn_q16 >= V_ECN_ONE {
        return r.v_ecn_q16;
    }
    scale(r.v_ecn_q16, k_max, r.k_max_bytes, V_ECN_ONE).max(1)
}

/// The alpha after one move from `alpha` in `zone` (no move in the band),
/// within the bounds.
fn next_alpha(params: &AdjustParams, zone: Zone, alpha: u32) -> u32 {
    let (lo, hi) = (params.alpha_min_q8_8, params.alpha_max_q8_8);
    match zone {
        Zone::StandingQueue => {
            // decrease_q8 < 256: the floor of the product is below alpha.
            (alpha * params.decrease_q8 / 256).max(lo)
        }
        Zone::Headroom => alpha.saturating_add(params.increase_q8_8).min(hi),
        Zone::Band => alpha,
    }
}

/// LH-03 thresholds of the port at `alpha_q8_8`, K_min = K_max / 2.
pub fn thresholds_at(current: &Thresholds, alpha_q8_8: u32) -> Result<Thresholds, AdjustError> {
    let alpha = q8_8_to_alpha(alpha_q8_8);
    let input = ThresholdInput::new(
        u64::from(current.rate_mbps) * 1_000_000,
        Duration::from_micros(u64::from(current.rtt_est_us)),
        alpha,
        u64::from(current.k_base_bytes),
    );
    compute_thresholds(&input).map_err(|source| AdjustError::Threshold { alpha, source })
}

/// The law: one observation in, the registers after this step out.
/// Deterministic; `state` carries the zone history and the reference.
pub fn adjust(
    params: &AdjustParams,
    state: &mut AdjustState,
    obs: &Observation,
) -> Result<Adjustment, AdjustError> {
    let utilisation = obs.utilisation()?;
    let zone = classify(params, obs)?;
    let reference = *state.reference.get_or_insert(Reference {
        k_max_bytes: obs.thresholds.k_max_bytes,
        v_ecn_q16: obs.v_ecn_q16,
        v_growth_bytes: obs.v_growth_bytes,
    });
    if state.zone == Some(zone) {
        state.run = state.run.saturating_add(1);
    } else {
        state.zone = Some(zone);
        state.run = 1;
    }
    let now = obs.thresholds.alpha_q8_8;
    // An alpha written outside the bounds (by hand) comes back inside.
    let mut alpha = now.clamp(params.alpha_min_q8_8, params.alpha_max_q8_8);
    if zone != Zone::Band && state.run >= params.persist {
        alpha = next_alpha(params, zone, alpha);
        state.run = 0;
    }
    if alpha == now {
        return Ok(Adjustment {
            zone,
            utilisation,
            thresholds: obs.thresholds,
            v_ecn_q16: obs.v_ecn_q16,
            v_growth_bytes: obs.v_growth_bytes,
        });
    }
    let thresholds = thresholds_at(&obs.thresholds, alpha)?;
    Ok(Adjustment {
        zone,
        utilisation,
        thresholds,
        v_ecn_q16: scaled_v_ecn(&reference, thresholds.k_max_bytes),
        v_growth_bytes: scaled_v_growth(&reference, thresholds.k_max_bytes),
    })
}

/// The writes that take port 0 from `obs` to `adj`: nothing when alpha did
/// not move; otherwise alpha, then K_max before K_min when K_max grows and
/// K_min before K_max when it shrinks (so K_min < K_max holds after every
/// write, given it held before), then V_growth and V_ecn if they changed.
pub fn adjustment_writes(obs: &Observation, adj: &Adjustment) -> Vec<(u32, u32)> {
    if !adj.changed(obs) {
        return Vec::new();
    }
    let t = &adj.thresholds;
    let mut writes = vec![(offset::PORT0_ALPHA_Q8_8, t.alpha_q8_8)];
    let k_min = (offset::PORT0_K_MIN_BYTES, t.k_min_bytes);
    let k_max = (offset::PORT0_K_MAX_BYTES, t.k_max_bytes);
    if t.k_max_bytes >= obs.thresholds.k_max_bytes {
        writes.extend([k_max, k_min]);
    } else {
        writes.extend([k_min, k_max]);
    }
    if adj.v_growth_bytes != obs.v_growth_bytes {
        writes.push((offset::PORT0_V_GROWTH_BYTES, adj.v_growth_bytes));
    }
    if adj.v_ecn_q16 != obs.v_ecn_q16 {
        writes.push((offset::PORT0_V_ECN_Q16, adj.v_ecn_q16));
    }
    writes
}

/// Reads one observation of WAN port 0.
pub fn observe<B: RegisterBus>(dev: &mut Device<B>) -> Result<Observation, DeviceError> {
    let thresholds = dev.port_thresholds(0)?;
    let mut read = |off: u32| dev.bus_mut().read32(off).map_err(DeviceError::from);
    Ok(Observation {
        avg_queue_bytes: read(offset::PORT0_QUEUE_AVG_BYTES)?,
        emr_q16: read(offset::PORT0_EMR_Q16)?,
        port_window_bytes: read(offset::LH_PORT_WINDOW_BYTES)?,
        obs_window_us: read(offset::LH_OBS_WINDOW_US)?,
        thresholds,
        v_ecn_q16: read(offset::PORT0_V_ECN_Q16)?,
        v_growth_bytes: read(offset::PORT0_V_GROWTH_BYTES)?,
    })
}

/// One round of the loop on a device.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub observation: Observation,
    pub adjustment: Adjustment,
    /// The register writes made, in order (empty in the dead band).
    pub writes: Vec<(u32, u32)>,
}

/// Checks, before the loop writes anything, that the bounds fit the port as
/// it is: the device has port 0's registers and alpha_max's thresholds fit
/// their 32-bit registers at the port's R_port and RTT_est.
pub fn check_port(params: &AdjustParams, port: &Thresholds) -> Result<(), AdjustError> {
    if port_registers(0).is_none() {
        return Err(DeviceError::NoPortRegisters { port: 0 }.into());
    }
    thresholds_at(port, params.alpha_min_q8_8)?;
    thresholds_at(port, params.alpha_max_q8_8)?;
    Ok(())
}

/// Observes port 0, applies the law and writes what changed
/// ([`adjustment_writes`]). A step the registers cannot hold (R_port or
/// RTT_est changed under the loop so that K_max overflows) writes nothing.
pub fn step<B: RegisterBus>(
    dev: &mut Device<B>,
    params: &AdjustParams,
    state: &mut AdjustState,
) -> Result<Step, AdjustError> {
    let observation = observe(dev)?;
    let adjustment = adjust(params, state, &observation)?;
    let writes = adjustment_writes(&observation, &adjustment);
    for &(off, value) in &writes {
        dev.write_offset(off, value)?;
    }
    Ok(Step {
        observation,
        adjustment,
        writes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemBus;

    /// 100 Gb/s, 1 ms: BDP 12.5 MB at alpha 1.
    fn port(alpha_q8_8: u32) -> Thresholds {
        thresholds_at(
            &Thresholds {
                rate_mbps: 100_000,
                rtt_est_us: 1_000,
                k_base_bytes: 65_536,
                alpha_q8_8,
                k_min_bytes: 0,
                k_max_bytes: 0,
            },
            alpha_q8_8,
        )
        .unwrap()
    }

    /// An observation at `utilisation` of 100 Gb/s over 100 us windows.
    fn obs(alpha_q8_8: u32, utilisation: f64, avg_queue_bytes: u32) -> Observation {
        Observation {
            avg_queue_bytes,
            emr_q16: 0,
            port_window_bytes: (utilisation * 1_250_000.0).round() as u32,
            obs_window_us: 100,
            thresholds: port(alpha_q8_8),
            v_ecn_q16: 0x8000,
            v_growth_bytes: 1_000_000,
        }
    }

    fn params(persist: u32) -> AdjustParams {
        AdjustParams {
            persist,
            ..AdjustParams::default()
        }
    }

    /// The alpha after `observations` with a fresh state.
    fn run(p: &AdjustParams, observations: &[Observation]) -> u32 {
        let mut state = AdjustState::new();
        observations
            .iter()
            .map(|o| adjust(p, &mut state, o).unwrap().thresholds.alpha_q8_8)
            .last()
            .unwrap()
    }

    #[test]
    fn lh_11_defaults_are_valid_and_round_trip() {
        let p = AdjustSettings::default().params().unwrap();
        assert_eq!(p, AdjustParams::default());
    }

    #[test]
    fn lh_11_bad_parameters_are_all_listed() {
        let bad = AdjustSettings {
            alpha_min: 0.0,
            alpha_max: 300.0,
            decrease: 1.0,
            increase: 0.0,
            util_low: 0.9,
            util_high: 0.5,
            persist: 0,
        };
        let keys: Vec<&str> = bad.params().unwrap_err().iter().map(|e| e.key()).collect();
        assert_eq!(
            keys,
            [
                "alpha_min",
                "alpha_max",
                "decrease",
                "increase",
                "util_high",
                "persist"
            ]
        );
        let inverted = AdjustSettings {
            alpha_min: 2.0,
            alpha_max: 1.0,
            ..Default::default()
        };
        let errors = inverted.params().unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(matches!(
            errors[0],
            AdjustError::AlphaBounds { min, max } if min == 2.0 && max == 1.0
        ));
        assert!(errors[0].to_string().contains("above alpha_max"));
        for decrease in [0.0, 0.001, -0.5, f64::NAN] {
            let s = AdjustSettings {
                decrease,
                ..Default::default()
            };
            assert_eq!(s.params().unwrap_err()[0].key(), "decrease", "{decrease}");
        }
    }

    #[test]
    fn lh_11_standing_queue_at_full_link_decreases_multiplicatively() {
        let p = params(1);
        let o = obs(0x100, 0.98, 7_000_000); // K_min = 6.25 MB
        let mut state = AdjustState::new();
        let a = adjust(&p, &mut state, &o).unwrap();
        assert_eq!(a.zone, Zone::StandingQueue);
        assert_eq!(a.thresholds.alpha_q8_8, 0xC0); // x0.75
        assert_eq!(a.thresholds.k_max_bytes, 9_375_000);
        assert_eq!(a.thresholds.k_min_bytes, 4_687_500);
        // V_growth and V_ecn follow K_max by the same factor.
        assert_eq!(a.v_growth_bytes, 750_000);
        assert_eq!(a.v_ecn_q16, 0x6000);
        let writes = adjustment_writes(&o, &a);
        assert_eq!(writes.len(), 5, "{writes:?}");
    }

    #[test]
    fn lh_11_headroom_increases_additively() {
        let p = params(1);
        let o = obs(0x80, 0.2, 1_000);
        let a = adjust(&p, &mut AdjustState::new(), &o).unwrap();
        assert_eq!(a.zone, Zone::Headroom);
        assert_eq!(a.thresholds.alpha_q8_8, 0xA0); // + 0.125
        assert_eq!(a.thresholds.k_max_bytes, 7_812_500);
        assert_eq!(a.thresholds.k_min_bytes, 3_906_250);
    }

    #[test]
    fn lh_11_no_change_inside_the_band() {
        let p = params(1);
        // Full link, queue below K_min; low link, queue between K_min/2
        // and K_min; utilisation in the dead band; a deep queue on an
        // under-used link (the bottleneck is elsewhere).
        for o in [
            obs(0x100, 0.95, 6_250_000),
            obs(0x100, 0.3, 3_125_000),
            obs(0x100, 0.3, 5_000_000),
            obs(0x100, 0.7, 100),
            obs(0x100, 0.7, 50_000_000),
            obs(0x100, 0.3, 50_000_000),
        ] {
            let mut state = AdjustState::new();
            for _ in 0..5 {
                let a = adjust(&p, &mut state, &o).unwrap();
                assert_eq!(a.zone, Zone::Band, "{o:?}");
                assert!(!a.changed(&o));
                assert_eq!(a.thresholds, o.thresholds);
                assert_eq!((a.v_ecn_q16, a.v_growth_bytes), (0x8000, 1_000_000));
                assert!(adjustment_writes(&o, &a).is_empty());
            }
        }
        // The edges: exactly util_high with the queue just above K_min
        // moves; just below util_high does not.
        let k_min = port(0x100).k_min_bytes;
        assert_eq!(
            classify(&p, &obs(0x100, 0.9, k_min + 1)).unwrap(),
            Zone::StandingQueue
        );
        assert_eq!(
            classify(&p, &obs(0x100, 0.8999, k_min + 1)).unwrap(),
            Zone::Band
        );
        assert_eq!(
            classify(&p, &obs(0x100, 0.4999, k_min / 2 - 1)).unwrap(),
            Zone::Headroom
        );
        assert_eq!(
            classify(&p, &obs(0x100, 0.5, k_min / 2 - 1)).unwrap(),
            Zone::Band
        );
    }

    #[test]
    fn lh_11_a_zone_must_persist_before_alpha_moves() {
        let p = params(3);
        let congested = obs(0x100, 1.0, 20_000_000);
        let calm = obs(0x100, 0.7, 1_000);
        let mut state = AdjustState::new();
        let alphas: Vec<u32> = [
            congested, congested, calm, congested, congested, congested, congested,
        ]
        .iter()
        .map(|o| {
            let a = adjust(&p, &mut state, o).unwrap();
            a.thresholds.alpha_q8_8
        })
        .collect();
        // The calm observation restarts the count; the third congested one
        // in a row moves; the count starts again after the move.
        assert_eq!(alphas, [0x100, 0x100, 0x100, 0x100, 0x100, 0xC0, 0x100]);
    }

    #[test]
    fn lh_11_alpha_stays_within_bounds() {
        let p = params(1);
        // Decrease from just above the floor lands on the floor, not below.
        let o = obs(0x48, 1.0, 50_000_000);
        let a = adjust(&p, &mut AdjustState::new(), &o).unwrap();
        assert_eq!(a.thresholds.alpha_q8_8, p.alpha_min_q8_8);
        // At the floor a standing queue changes nothing.
        let o = obs(p.alpha_min_q8_8, 1.0, 50_000_000);
        let a = adjust(&p, &mut AdjustState::new(), &o).unwrap();
        assert!(!a.changed(&o));
        // Increase stops at the ceiling.
        let o = obs(0xF0, 0.0, 0);
        let a = adjust(&p, &mut AdjustState::new(), &o).unwrap();
        assert_eq!(a.thresholds.alpha_q8_8, p.alpha_max_q8_8);
        let o = obs(p.alpha_max_q8_8, 0.0, 0);
        assert!(!adjust(&p, &mut AdjustState::new(), &o).unwrap().changed(&o));
        // An alpha written outside the bounds comes back inside at once,
        // even in the dead band.
        let o = obs(0x200, 0.7, 0);
        let a = adjust(&p, &mut AdjustState::new(), &o).unwrap();
        assert_eq!(a.zone, Zone::Band);
        assert_eq!(a.thresholds.alpha_q8_8, p.alpha_max_q8_8);
        // The gentlest factor (255/256) still moves by at least one step.
        let slow = AdjustParams {
            decrease_q8: 255,
            ..p
        };
        let o = obs(0x50, 1.0, 50_000_000);
        assert_eq!(
            adjust(&slow, &mut AdjustState::new(), &o)
                .unwrap()
                .thresholds
                .alpha_q8_8,
            0x4F
        );
    }

    #[test]
    fn lh_11_k_max_never_falls_below_k_base() {
        let p = AdjustParams {
            alpha_min_q8_8: 1,
            persist: 1,
            ..AdjustParams::default()
        };
        // 1 Gb/s x 500 us: BDP 62,500 bytes < K_base 64 KiB already at 1.0.
        let small = Thresholds {
            rate_mbps: 1_000,
            rtt_est_us: 500,
            k_base_bytes: 65_536,
            alpha_q8_8: 0x100,
            k_min_bytes: 32_768,
            k_max_bytes: 65_536,
        };
        let mut o = Observation {
            avg_queue_bytes: 60_000,
            emr_q16: 0,
            port_window_bytes: 12_500,
            obs_window_us: 100,
            thresholds: small,
            v_ecn_q16: NEVER,
            v_growth_bytes: NEVER,
        };
        let mut state = AdjustState::new();
        for _ in 0..40 {
            let a = adjust(&p, &mut state, &o).unwrap();
            assert_eq!(a.thresholds.k_max_bytes, 65_536);
            assert_eq!(a.thresholds.k_min_bytes, 32_768);
            // Off triggers stay off.
            assert_eq!((a.v_ecn_q16, a.v_growth_bytes), (NEVER, NEVER));
            o.thresholds = a.thresholds;
        }
        assert_eq!(o.thresholds.alpha_q8_8, 1);
    }

    #[test]
    fn lh_11_alpha_is_monotone_in_queue_and_utilisation() {
        // For any state of the history, more queue or more utilisation
        // never gives a higher alpha, and a higher alpha a higher K_max.
        let p = params(1);
        let queues = [
            0, 1_000_000, 3_124_999, 3_125_000, 6_250_000, 6_250_001, 40_000_000,
        ];
        let utils = [0.0, 0.3, 0.4999, 0.5, 0.7, 0.8999, 0.9, 1.0, 1.2];
        for alpha in [0x40, 0x80, 0x100] {
            let at = |u: f64, q: u32| {
                adjust(&p, &mut AdjustState::new(), &obs(alpha, u, q))
                    .unwrap()
                    .thresholds
            };
            for &u in &utils {
                let row: Vec<Thresholds> = queues.iter().map(|&q| at(u, q)).collect();
                assert!(
                    row.windows(2).all(|w| w[0].alpha_q8_8 >= w[1].alpha_q8_8
                        && w[0].k_max_bytes >= w[1].k_max_bytes),
                    "alpha {alpha:#x}, utilisation {u}: {row:?}"
                );
            }
            for &q in &queues {
                let column: Vec<u32> = utils.iter().map(|&u| at(u, q).alpha_q8_8).collect();
                assert!(
                    column.windows(2).all(|w| w[0] >= w[1]),
                    "alpha {alpha:#x}, queue {q}: {column:?}"
                );
            }
        }
    }

    /// A toy port whose link fills only when K_max reaches half a BDP
    /// (alpha* = 0.5) and which keeps a standing queue just above K_min
    /// when the buffer allows more than it needs: the law must settle in
    /// the band below alpha* and stay there, from above and from below.
    #[test]
    fn lh_11_converges_on_a_synthetic_trace_without_oscillating() {
        let p = AdjustParams {
            alpha_min_q8_8: 0x10,
            ..params(2)
        };
        let plant = |alpha: u32| {
            let full = 0x80; // alpha* = 0.5
            let utilisation = (f64::from(alpha) / f64::from(full)).min(1.0);
            let k_min = port(alpha).k_min_bytes;
            let queue = if alpha >= full {
                k_min + 1_000_000
            } else {
                k_min / 4
            };
            obs(alpha, utilisation, queue)
        };
        for start in [0x100, 0x20] {
            let mut state = AdjustState::new();
            let mut alpha = start;
            let mut trace = Vec::new();
            for _ in 0..200 {
                let a = adjust(&p, &mut state, &plant(alpha)).unwrap();
                alpha = a.thresholds.alpha_q8_8;
                trace.push(alpha);
            }
            let last = *trace.last().unwrap();
            // Settled in [util_low, util_high) x alpha* and constant for
            // the last 150 steps.
            assert!(
                (0x40..0x80).contains(&last),
                "from {start:#x}: settled at {last:#x}"
            );
            assert!(
                trace[50..].iter().all(|&a| a == last),
                "from {start:#x}: {trace:x?}"
            );
            // From above: x0.75 every second step, 1.0 -> 0.75 -> 0.5625
            // -> 0.421875 (inside the band).
            if start == 0x100 {
                assert_eq!(last, 0x6C);
                assert_eq!(&trace[..6], &[0x100, 0xC0, 0xC0, 0x90, 0x90, 0x6C]);
            } else {
                // From below: +0.125 after two observations, 0.125 -> 0.25
                // (utilisation 0.5: inside the band).
                assert_eq!(last, 0x40);
                assert_eq!(&trace[..3], &[0x20, 0x40, 0x40]);
            }
        }
        // The same trace twice gives the same answer (no hidden state).
        let trace: Vec<Observation> = (0..20).map(|i| plant(0x100 - i * 8)).collect();
        assert_eq!(run(&p, &trace), run(&p, &trace));
    }

    #[test]
    fn lh_11_congestion_then_calm_walks_between_the_bounds() {
        let p = params(2);
        let mut state = AdjustState::new();
        let mut alpha = 0x100;
        let mut k_max = Vec::new();
        for i in 0..40 {
            let o = if i < 20 {
                obs(alpha, 1.0, 100_000_000)
            } else {
                obs(alpha, 0.1, 0)
            };
            let a = adjust(&p, &mut state, &o).unwrap();
            alpha = a.thresholds.alpha_q8_8;
            k_max.push(a.thresholds.k_max_bytes);
        }
        assert!(k_max[..20].windows(2).all(|w| w[0] >= w[1]));
        assert!(k_max[20..].windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(k_max[19], port(0x40).k_max_bytes, "down to alpha_min");
        assert_eq!(k_max[39], port(0x100).k_max_bytes, "back to alpha_max");
    }

    /// Replays the writes on K_min/K_max and checks K_min < K_max after each.
    fn assert_k_min_below_k_max(writes: &[(u32, u32)], mut k_min: u32, mut k_max: u32) {
        for &(off, value) in writes {
            match off {
                offset::PORT0_K_MIN_BYTES => k_min = value,
                offset::PORT0_K_MAX_BYTES => k_max = value,
                _ => {}
            }
            assert!(
                k_min < k_max,
                "K_min {k_min} >= K_max {k_max} after {off:#x}"
            );
        }
    }

    /// A device at 100 Gb/s, 1 ms, with gauges poked as the hardware would.
    fn device(alpha_q8_8: u32) -> Device<MemBus> {
        let mut dev = Device::open(MemBus::new()).unwrap();
        let t = port(alpha_q8_8);
        for (off, v) in [
            (offset::PORT0_RATE_MBPS, t.rate_mbps),
            (offset::PORT0_RTT_EST_US, t.rtt_est_us),
            (offset::PORT0_ALPHA_Q8_8, t.alpha_q8_8),
            (offset::PORT0_K_MIN_BYTES, t.k_min_bytes),
            (offset::PORT0_K_MAX_BYTES, t.k_max_bytes),
            (offset::PORT0_V_GROWTH_BYTES, 2_000_000),
        ] {
            dev.bus_mut().poke(off, v);
        }
        dev.bus_mut().clear_log();
        dev
    }

    fn gauges(dev: &mut Device<MemBus>, utilisation: f64, avg_queue_bytes: u32) {
        let bytes = (utilisation * 1_250_000.0) as u32;
        dev.bus_mut().poke(offset::LH_PORT_WINDOW_BYTES, bytes);
        dev.bus_mut()
            .poke(offset::PORT0_QUEUE_AVG_BYTES, avg_queue_bytes);
        dev.bus_mut().poke(offset::PORT0_EMR_Q16, 0x4000);
    }

    #[test]
    fn lh_11_step_writes_keep_k_min_below_k_max_both_ways() {
        let p = params(1);
        let mut dev = device(0x100);
        let mut state = AdjustState::new();
        // Down: K_min first.
        gauges(&mut dev, 1.0, 30_000_000);
        let before = dev.port_thresholds(0).unwrap();
        let s = step(&mut dev, &p, &mut state).unwrap();
        assert_eq!(s.observation.emr_q16, 0x4000);
        assert_eq!(s.observation.avg_queue_bytes, 30_000_000);
        let log = dev.bus().write_log().to_vec();
        assert_eq!(log, s.writes);
        assert_eq!(log[0], (offset::PORT0_ALPHA_Q8_8, 0xC0));
        assert_eq!(log[1].0, offset::PORT0_K_MIN_BYTES);
        assert_eq!(log[2].0, offset::PORT0_K_MAX_BYTES);
        assert_eq!(log[3], (offset::PORT0_V_GROWTH_BYTES, 1_500_000));
        assert_eq!(log.len(), 4, "V_ecn was off and stays off: {log:?}");
        assert_k_min_below_k_max(&log, before.k_min_bytes, before.k_max_bytes);
        assert_eq!(dev.port_thresholds(0).unwrap(), s.adjustment.thresholds);
        // Down to the floor, a large shrink each time.
        for _ in 0..6 {
            let before = dev.port_thresholds(0).unwrap();
            dev.bus_mut().clear_log();
            step(&mut dev, &p, &mut state).unwrap();
            assert_k_min_below_k_max(
                dev.bus().write_log(),
                before.k_min_bytes,
                before.k_max_bytes,
            );
        }
        assert_eq!(dev.port_thresholds(0).unwrap().alpha_q8_8, 0x40);
        // Up: K_max first.
        gauges(&mut dev, 0.1, 0);
        let before = dev.port_thresholds(0).unwrap();
        dev.bus_mut().clear_log();
        step(&mut dev, &p, &mut state).unwrap();
        let log = dev.bus().write_log().to_vec();
        assert_eq!(log[1].0, offset::PORT0_K_MAX_BYTES);
        assert_eq!(log[2].0, offset::PORT0_K_MIN_BYTES);
        assert_k_min_below_k_max(&log, before.k_min_bytes, before.k_max_bytes);
        assert_eq!(dev.port_thresholds(0).unwrap().alpha_q8_8, 0x60);
        // V_growth returns to its reference with K_max.
        for _ in 0..10 {
            step(&mut dev, &p, &mut state).unwrap();
        }
        assert_eq!(dev.port_thresholds(0).unwrap(), port(0x100));
        assert_eq!(dev.read_by_name("PORT0_V_GROWTH_BYTES").unwrap(), 2_000_000);
    }

    /// Moves large enough that the wrong order would show K_min >= K_max:
    /// K_max / 4 is below the old K_min, and 4 x K_min above the old K_max.
    #[test]
    fn lh_11_large_moves_keep_k_min_below_k_max() {
        let p = AdjustParams {
            decrease_q8: 64,
            increase_q8_8: 0xC0,
            persist: 1,
            ..AdjustParams::default()
        };
        let mut dev = device(0x100);
        let mut state = AdjustState::new();
        for (utilisation, queue, alpha) in [(1.0, 30_000_000, 0x40), (0.0, 0, 0x100)] {
            gauges(&mut dev, utilisation, queue);
            let before = dev.port_thresholds(0).unwrap();
            dev.bus_mut().clear_log();
            step(&mut dev, &p, &mut state).unwrap();
            assert_k_min_below_k_max(
                dev.bus().write_log(),
                before.k_min_bytes,
                before.k_max_bytes,
            );
            assert_eq!(dev.port_thresholds(0).unwrap(), port(alpha));
        }
    }

    #[test]
    fn lh_11_step_in_the_band_only_reads() {
        let mut dev = device(0x100);
        gauges(&mut dev, 0.7, 1_000);
        let s = step(&mut dev, &params(1), &mut AdjustState::new()).unwrap();
        assert_eq!(s.adjustment.zone, Zone::Band);
        assert!(s.writes.is_empty());
        assert!(dev.bus().write_log().is_empty());
    }

    #[test]
    fn lh_11_step_that_would_overflow_writes_nothing() {
        let p = AdjustParams {
            alpha_max_q8_8: 0x1000, // 16
            persist: 1,
            ..AdjustParams::default()
        };
        let mut dev = device(0x100);
        // 400 Gb/s x 10 ms: 500 MB at alpha 1; 8 GB at 16.
        dev.bus_mut().poke(offset::PORT0_RATE_MBPS, 400_000);
        dev.bus_mut().poke(offset::PORT0_RTT_EST_US, 10_000);
        let port_now = dev.port_thresholds(0).unwrap();
        assert!(matches!(
            check_port(&p, &port_now),
            Err(AdjustError::Threshold { .. })
        ));
        assert!(check_port(&AdjustParams::default(), &port_now).is_ok());
        dev.bus_mut().poke(offset::PORT0_ALPHA_Q8_8, 0xFF0);
        dev.bus_mut().clear_log();
        gauges(&mut dev, 0.0, 0);
        let err = step(&mut dev, &p, &mut AdjustState::new()).unwrap_err();
        assert!(err.to_string().contains("32-bit"), "{err}");
        assert!(dev.bus().write_log().is_empty());
    }

    #[test]
    fn lh_11_utilisation_needs_a_window_and_a_rate() {
        let mut o = obs(0x100, 0.5, 0);
        assert!((o.utilisation().unwrap() - 0.5).abs() < 1e-9);
        o.obs_window_us = 0;
        assert!(matches!(o.utilisation(), Err(AdjustError::NoWindow)));
        let mut o = obs(0x100, 0.5, 0);
        o.thresholds.rate_mbps = 0;
        assert!(matches!(
            adjust(&params(1), &mut AdjustState::new(), &o),
            Err(AdjustError::NoRate)
        ));
    }
}
