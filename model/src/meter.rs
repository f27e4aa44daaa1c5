//! LH-02 queue meter: the rules of `hdl/src/lh/queue_meter.rs`, clock-exact.
//!
//! - The internal virtual egress queue: every frame that leaves on wan_tx
//!   adds its length, the queue drains `drain_q16 / 65536` bytes per clock.
//! - The average queue, updated once per microsecond.
//! - The ECN marking rate over windows and its V_ecn comparator
//!   ([`EcnRate`], used by [`crate::longhaul::LonghaulModel`]).
//!
//! Clocks here are absolute (`Gateway::cycle`) unless said otherwise.

/// A frame whose last beat leaves wan_tx in clock `t` is in the virtual
/// queue's depth from clock `t + VQ_ARRIVAL_DELAY` on.
pub const VQ_ARRIVAL_DELAY: u64 = 3;
/// A marking-rate window that ends in clock `e` (since reset) decides the
/// second level's EMR trigger from clock `e + EMR_DELAY` on.
pub const EMR_DELAY: u64 = 18;
/// Windows shorter than this many clocks never give a result (the divider
/// takes 17 clocks).
pub const EMR_MIN_WINDOW_CLOCKS: u64 = 17;
/// The ECN-capable frame count of a window stops here (and the CE count with it).
pub const EMR_COUNT_LIMIT: u32 = 0xFF_FFFF;

const Q_MAX: u64 = (1 << 48) - 1;

/// The virtual queue's depth in bytes (`PORT0_VQ_DEPTH_BYTES`, the depth
/// the gateway acts on with `internal_queue`) in every clock from the first
/// arrival to `until`, as steps: `(clock, bytes)` whenever it differs from
/// the clock before (0 before the first step). `arrivals` are the frames
/// that left on wan_tx: the clock of each one's last beat and its length.
pub fn virtual_queue_steps(drain_q16: u32, arrivals: &[(u64, u32)], until: u64) -> Vec<(u64, u32)> {
    let mut arr: Vec<(u64, u64)> = arrivals
        .iter()
        .map(|&(t, b)| (t + VQ_ARRIVAL_DELAY - 1, b.min(0x1_FFFF) as u64))
        .collect();
    arr.sort_by_key(|a| a.0);
    let drain = drain_q16 as u64;
    let mut steps = Vec::new();
    let mut shown = 0u32;
    let mut q = 0u64;
    let mut next = 0;
    let Some(&(first, _)) = arr.first() else {
        return steps;
    };
    let mut c = first;
    while c < until {
        let depth = (q >> 16) as u32;
        if depth != shown {
            steps.push((c, depth));
            shown = depth;
        }
        let mut add = 0;
        while next < arr.len() && arr[next].0 == c {
            add += arr[next].1;
            next += 1;
        }
        q = (q.saturating_sub(drain) + (add << 16)).min(Q_MAX);
        c += 1;
        if q == 0 && shown == 0 {
            match arr.get(next) {
                Some(&(t, _)) => c = c.max(t),
                None => break,
            }
        }
    }
    steps
}

/// The value of a step function (`steps` as [`virtual_queue_steps`] gives
/// them, or telemetry steps) in clock `clock`; `initial` before the first.
pub fn value_at(steps: &[(u64, u32)], initial: u32, clock: u64) -> u32 {
    let n = steps.partition_point(|s| s.0 <= clock);
    if n == 0 {
        initial
    } else {
        steps[n - 1].1
    }
}

/// `PORT0_QUEUE_AVG_BYTES` in clock `at`: starting from 0 at reset
/// (released in clock `reset_clock`), in the last clock of every
/// microsecond the average moves by `(qd - avg) / 2^shift` in 32.16 fixed
/// point (truncating), where `qd` is the depth the gateway acted on in that
/// clock: the depth input (`steps`, from `initial`) one clock earlier.
pub fn average_at(
    steps: &[(u64, u32)],
    initial: u32,
    reset_clock: u64,
    clocks_per_us: u32,
    shift: u32,
    at: u64,
) -> u32 {
    let p = clocks_per_us.max(1) as u64;
    let shift = shift.min(31);
    let mut avg: u64 = 0;
    let mut tick = reset_clock + p - 1;
    while tick < at {
        let qd = if tick > reset_clock {
            value_at(steps, initial, tick - 1)
        } else {
            0
        };
        let qd = (qd as u64) << 16;
        if qd >= avg {
            avg += (qd - avg) >> shift;
        } else {
            avg -= (avg - qd) >> shift;
        }
        tick += p;
    }
    (avg >> 16) as u32
}

/// The ECN marking rate (LH-02) and its comparator with V_ecn (LH-05):
/// every ECN-capable frame toward the WAN, with the clock (since reset) it
/// passed the CE marker and whether it left CE.
#[derive(Clone, Debug, Default)]
pub struct EcnRate {
    /// `(k, ce)`, in non-decreasing `k`.
    frames: Vec<(u64, bool)>,
}

impl EcnRate {
    /// An ECN-capable frame passed the marker in clock `k` (since reset).
    pub fn frame(&mut self, k: u64, ce: bool) {
        let at = self.frames.partition_point(|f| f.0 <= k);
        self.frames.insert(at, (k, ce));
    }

    /// `(PORT0_EMR_Q16, EMR > V_ecn)` in clock `k` (since reset), for
    /// windows of `window_us` microseconds of `clocks_per_us` clocks.
    pub fn at(&self, k: u64, window_us: u32, clocks_per_us: u32, v_ecn: u32) -> (u32, bool) {
        let w = window_us.max(1) as u64 * clocks_per_us.max(1) as u64;
        if w < EMR_MIN_WINDOW_CLOCKS || k + 1 < EMR_DELAY {
            return (0, false);
        }
        // The last window n (clocks (n-1)w ..= nw-1) with nw - 1 + EMR_DELAY <= k.
        let n = (k + 1 - EMR_DELAY) / w;
        if n == 0 {
            return (0, false);
        }
        let lo = self.frames.partition_point(|f| f.0 < (n - 1) * w);
        let hi = self.frames.partition_point(|f| f.0 < n * w);
        let (mut ect, mut ce) = (0u32, 0u32);
        for &(_, c) in &self.frames[lo..hi] {
            if ect == EMR_COUNT_LIMIT {
                break;
            }
            ect += 1;
            ce += c as u32;
        }
        if ect == 0 {
            return (0, false);
        }
        let emr = ((ce as u64) << 16) / ect as u64;
        (emr as u32, emr > v_ecn as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_02_virtual_queue_fills_and_drains_in_fixed_point() {
        // 1000 bytes in clock 10 + 2 -> depth 1000 from clock 13; drains
        // 1.5 bytes per clock.
        let steps = virtual_queue_steps(0x1_8000, &[(10, 1000)], 2000);
        assert_eq!(steps[0], (13, 1000));
        assert_eq!(value_at(&steps, 0, 14), 998);
        assert_eq!(value_at(&steps, 0, 15), 997);
        // 1000 / 1.5 = 666.7 clocks after 13 it is empty.
        assert_eq!(value_at(&steps, 0, 13 + 666), 1);
        assert_eq!(value_at(&steps, 0, 13 + 667), 0);
        assert_eq!(steps.last().unwrap().1, 0);
    }

    #[test]
    fn lh_02_virtual_queue_accumulates_back_to_back_frames() {
        let arrivals: Vec<(u64, u32)> = (0..10).map(|i| (100 + i, 64)).collect();
        // No drain: 640 bytes after the last one.
        let steps = virtual_queue_steps(0, &arrivals, 1000);
        assert_eq!(value_at(&steps, 0, 102), 0);
        assert_eq!(value_at(&steps, 0, 103), 64);
        assert_eq!(value_at(&steps, 0, 112), 640);
        assert_eq!(value_at(&steps, 0, 999), 640);
    }

    #[test]
    fn lh_02_average_converges_with_the_shift() {
        let steps = vec![(0u64, 1 << 20)];
        // shift 0: the average is the depth at the last tick.
        assert_eq!(average_at(&steps, 0, 0, 10, 0, 100), 1 << 20);
        // shift 1: half way each microsecond.
        assert_eq!(average_at(&steps, 0, 0, 10, 1, 10), 1 << 19);
        assert_eq!(average_at(&steps, 0, 0, 10, 1, 20), (1 << 19) + (1 << 18));
    }

    #[test]
    fn lh_02_ecn_rate_per_window_after_the_divider() {
        let mut e = EcnRate::default();
        // Window 1 = clocks 0..=99 (10 us of 10 clocks): 4 frames, 1 CE.
        for (k, ce) in [(5, false), (20, true), (50, false), (99, false)] {
            e.frame(k, ce);
        }
        e.frame(100, true); // window 2
        assert_eq!(e.at(99 + EMR_DELAY - 1, 10, 10, 0), (0, false));
        assert_eq!(e.at(99 + EMR_DELAY, 10, 10, 0), (16384, true));
        assert_eq!(e.at(99 + EMR_DELAY, 10, 10, 16384), (16384, false));
        assert_eq!(e.at(199 + EMR_DELAY, 10, 10, 16384), (65536, true));
        assert_eq!(e.at(299 + EMR_DELAY, 10, 10, 0), (0, false));
        // Too short a window never gives a result.
        assert_eq!(e.at(1000, 1, 16, 0), (0, false));
    }
}
