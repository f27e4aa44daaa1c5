//! The DCQCN reaction point (Zhu et al., "Congestion Control for
//! Large-Scale RDMA Deployments", SIGCOMM 2015, section 3.1), with rates in
//! Gb/s (bits per nanosecond):
//!
//! - On a CNP: `R_T = R_C`, `R_C = R_C * (1 - alpha / 2)`,
//!   `alpha = (1 - g) * alpha + g`; the timer count T, the byte count BC and
//!   both timers restart.
//! - Every `alpha_timer` without a CNP: `alpha = (1 - g) * alpha`.
//! - Every `rate_increase_timer` (T += 1) and every `byte_counter` bytes
//!   sent (BC += 1), an increase: while `max(T, BC) < F`, fast recovery
//!   `R_C = (R_T + R_C) / 2`; once `min(T, BC) > F`, hyper increase
//!   `R_T += (min(T, BC) - F) * R_HAI`; otherwise additive increase
//!   `R_T += R_AI`; after either, `R_C = (R_T + R_C) / 2`. Both rates stay
//!   within `[min_rate, line_rate]`.
//!
//! The timers are driven from outside ([`ReactionPoint::alpha_timer`],
//! [`ReactionPoint::increase_timer`]): the scenario engine schedules them
//! and cancels them on a cut.

use super::config::DcqcnParams;

#[derive(Clone, Debug)]
pub struct ReactionPoint {
    params: DcqcnParams,
    line_rate: f64,
    min_rate: f64,
    /// Current rate R_C, Gb/s.
    pub current: f64,
    /// Target rate R_T, Gb/s.
    pub target: f64,
    pub alpha: f64,
    timer_count: u32,
    byte_count: u32,
    bytes_since: u64,
    /// A CNP came since the last alpha-timer expiry.
    cnp_since_alpha: bool,
    /// Cuts so far.
    pub cuts: u64,
}

impl ReactionPoint {
    /// A sender at its line rate (Gb/s).
    pub fn new(params: &DcqcnParams, line_rate_gbps: f64) -> Self {
        ReactionPoint {
            line_rate: line_rate_gbps,
            min_rate: (params.min_rate_mbps / 1000.0).min(line_rate_gbps),
            current: line_rate_gbps,
            target: line_rate_gbps,
            alpha: params.initial_alpha,
            timer_count: 0,
            byte_count: 0,
            bytes_since: 0,
            cnp_since_alpha: false,
            cuts: 0,
            params: params.clone(),
        }
    }

    /// A CNP arrived: the cut. The caller restarts both timers.
    pub fn cnp(&mut self) {
        let g = self.params.g;
        self.target = self.current;
        self.current = (self.current * (1.0 - self.alpha / 2.0)).max(self.min_rate);
        self.alpha = (1.0 - g) * self.alpha + g;
        self.timer_count = 0;
        self.byte_count = 0;
        self.bytes_since = 0;
        self.cnp_since_alpha = true;
        self.cuts += 1;
    }

    /// The alpha timer expired.
    pub fn alpha_timer(&mut self) {
        if !self.cnp_since_alpha {
            self.alpha *= 1.0 - self.params.g;
        }
        self.cnp_since_alpha = false;
    }

    /// The rate-increase timer expired.
    pub fn increase_timer(&mut self) {
        self.timer_count = self.timer_count.saturating_add(1);
        self.increase();
    }

    /// `bytes` were sent.
    pub fn sent(&mut self, bytes: u64) {
        self.bytes_since += bytes;
        while self.bytes_since >= self.params.byte_counter_bytes {
            self.bytes_since -= self.params.byte_counter_bytes;
            self.byte_count = self.byte_count.saturating_add(1);
            self.increase();
        }
    }

    fn increase(&mut self) {
        let f = self.params.fast_recovery_steps;
        let (t, bc) = (self.timer_count, self.byte_count);
        if t.max(bc) < f {
            // Fast recovery: R_T unchanged.
        } else if t.min(bc) > f {
            let i = (t.min(bc) - f) as f64;
            self.target += i * self.params.rate_hai_mbps / 1000.0;
        } else {
            self.target += self.params.rate_ai_mbps / 1000.0;
        }
        self.target = self.target.min(self.line_rate);
        self.current = ((self.target + self.current) / 2.0).clamp(self.min_rate, self.line_rate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cut with alpha 1 halves the rate; fast recovery halves the gap
    /// each step; alpha decays without CNPs.
    #[test]
    fn scn_dcqcn_cut_and_fast_recovery() {
        let mut rp = ReactionPoint::new(&DcqcnParams::default(), 100.0);
        rp.cnp();
        assert_eq!(rp.current, 50.0);
        assert_eq!(rp.target, 100.0);
        rp.increase_timer();
        assert_eq!(rp.current, 75.0);
        rp.increase_timer();
        assert_eq!(rp.current, 87.5);
        let a = rp.alpha;
        rp.alpha_timer(); // the CNP came in this period: no decay
        assert_eq!(rp.alpha, a);
        rp.alpha_timer();
        assert!(rp.alpha < a);
        // Past F timer steps (with BC < F), additive increase moves R_T.
        for _ in 0..4 {
            rp.increase_timer();
        }
        assert!(rp.target == 100.0 && rp.current <= 100.0);
    }
}
