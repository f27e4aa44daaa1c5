//! RA-02: the advised rate computed from the WAN port's state, an
//! explicit-rate law after RCP (Dukkipati and McKeown, "Why flow-completion
//! time is the right metric for congestion control", 2006), in the
//! fixed-point arithmetic a gateway computes it in; and the per-prefix
//! policy caps.
//!
//! Every control interval `T` the port's one advised rate `R` (Mb/s, the
//! unit of the Rate Advice message) becomes
//!
//! ```text
//! R <- R * (1 + (T/d) * (alpha * (C - y) - beta * q / d) / C)
//! ```
//!
//! with `C` the port's capacity, `y` the arrival rate toward the port over
//! the interval, `q` the queue at its end and `d` the round-trip time the
//! senders' reaction takes. Every flow through the port is advised the
//! same `R` (or its policy cap when lower): with `N` flows that follow the
//! advice, `y = N R` settles at `C` and the queue at 0, so `R` converges
//! to the fair share `C / N` (tested below, with the reaction delayed by
//! `d`).
//!
//! Fixed point (what [`RcpParams::registers`] gives the hardware, so it
//! needs no divider): capacity in bytes per microsecond, `alpha` and `beta`
//! in 1/256, `T/d` in Q16 and `1/(d C)` in Q32 of 1/(us * bytes/us);
//! per interval, with `Y` the bytes that arrived and `q` the queue in bytes,
//!
//! ```text
//! spare   = C*T - Y                                  (bytes, signed)
//! drain   = q * (T/d)_q16 >> 16                      (bytes)
//! num     = alpha_q8 * spare - beta_q8 * drain       (bytes, Q8)
//! delta   = num * inv_dc_q32 >> 24                   (Q16), clamped to [-1/2, +1]
//! R       = R + (R * delta >> 16), clamped to [min, C]
//! ```
//!
//! The clamp of `delta` keeps one interval from more than halving or
//! doubling the rate (a queue far above `C d` would otherwise make RCP's
//! factor negative).

/// Mb/s per byte per microsecond.
pub const MBPS_PER_BYTE_PER_US: u32 = 8;

/// The law's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcpParams {
    /// The port's capacity, bytes per microsecond (12,500 = 100 Gb/s).
    pub capacity: u32,
    /// `d`: the senders' reaction time, microseconds.
    pub rtt_us: u32,
    /// `T`: the control interval, microseconds.
    pub interval_us: u32,
    /// Gains in 1/256 (RCP's stable choice: alpha 0.4 ~ 102, beta 0.226 ~ 58).
    pub alpha_q8: u32,
    pub beta_q8: u32,
    /// Floor of the advice, Mb/s.
    pub min_mbps: u32,
}

/// What the host writes for the law: `T/d` in Q16, `1/(d C)` in Q32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcpRegisters {
    pub t_over_d_q16: u32,
    pub inv_dc_q32: u32,
}

impl Default for RcpParams {
    /// 100 Gb/s, a 10 ms WAN, an interval of 1 ms, RCP's gains, 100 Mb/s floor.
    fn default() -> Self {
        RcpParams {
            capacity: 12_500,
            rtt_us: 10_000,
            interval_us: 1_000,
            alpha_q8: 102,
            beta_q8: 58,
            min_mbps: 100,
        }
    }
}

impl RcpParams {
    /// The capacity in Mb/s (the ceiling of the advice).
    pub fn capacity_mbps(&self) -> u32 {
        self.capacity * MBPS_PER_BYTE_PER_US
    }

    /// The host's precomputation (rounded to nearest).
    pub fn registers(&self) -> RcpRegisters {
        let d = self.rtt_us.max(1) as u64;
        let c = self.capacity.max(1) as u64;
        RcpRegisters {
            t_over_d_q16: ((((self.interval_us as u64) << 16) + d / 2) / d).min(u32::MAX as u64)
                as u32,
            inv_dc_q32: (((1u64 << 32) + d * c / 2) / (d * c)).min(u32::MAX as u64) as u32,
        }
    }
}

/// One port's advised rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcpState {
    /// Mb/s.
    pub rate_mbps: u32,
}

impl RcpState {
    /// Starts at the capacity (no congestion known).
    pub fn new(p: &RcpParams) -> Self {
        RcpState {
            rate_mbps: p.capacity_mbps(),
        }
    }

    /// One control interval: `arrived` bytes came toward the port during
    /// it, `queue` bytes wait at its end. Returns the new rate.
    pub fn step(&mut self, arrived: u64, queue: u64, p: &RcpParams) -> u32 {
        let r = p.registers();
        self.rate_mbps = law_step(
            self.rate_mbps,
            arrived,
            queue,
            &LawRegisters {
                capacity_x_interval: p.capacity as u64 * p.interval_us as u64,
                alpha_q8: p.alpha_q8,
                beta_q8: p.beta_q8,
                t_over_d_q16: r.t_over_d_q16,
                inv_dc_q32: r.inv_dc_q32,
                min_mbps: p.min_mbps,
                max_mbps: p.capacity_mbps(),
            },
        );
        self.rate_mbps
    }
}

/// The law's inputs as the gateway holds them (registers, C x T).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LawRegisters {
    pub capacity_x_interval: u64,
    pub alpha_q8: u32,
    pub beta_q8: u32,
    pub t_over_d_q16: u32,
    pub inv_dc_q32: u32,
    pub min_mbps: u32,
    pub max_mbps: u32,
}

/// One step of the law from `rate` (the arithmetic above; the result
/// raised to `min_mbps`, then lowered to `max_mbps`).
pub fn law_step(rate: u32, arrived: u64, queue: u64, l: &LawRegisters) -> u32 {
    let spare = l.capacity_x_interval as i128 - arrived as i128;
    let drain = (queue as i128 * l.t_over_d_q16 as i128) >> 16;
    let num = l.alpha_q8 as i128 * spare - l.beta_q8 as i128 * drain;
    let delta = ((num * l.inv_dc_q32 as i128) >> 24).clamp(-(1 << 15), 1 << 16);
    let next = rate as i128 + ((rate as i128 * delta) >> 16);
    next.max(l.min_mbps as i128).min(l.max_mbps as i128) as u32
}

/// Clocks from a control interval's last clock to the clock the gateway's
/// law writes the new rate in (`cngw_hdl::ra::LAW_CLOCKS`): decisions see it
/// from the clock after; an interval that ends while the law still runs is
/// skipped.
pub const LAW_CLOCKS: u64 = 132;

/// The law's inputs from the gateway's registers (C bits 19..0, T bits
/// 23..0, as the hardware takes them).
pub fn law_registers(r: &dyn crate::longhaul::Registers) -> LawRegisters {
    use cngw_regmap::offset;
    let capacity = r.reg(offset::RA_CAPACITY_BYTES_PER_US) & 0xF_FFFF;
    let gains = r.reg(offset::RA_GAINS_Q8);
    LawRegisters {
        capacity_x_interval: capacity as u64 * (r.reg(offset::RA_INTERVAL_US) & 0xFF_FFFF) as u64,
        alpha_q8: gains & 0x1FF,
        beta_q8: (gains >> 16) & 0x1FF,
        t_over_d_q16: r.reg(offset::RA_T_OVER_D_Q16),
        inv_dc_q32: r.reg(offset::RA_INV_DC_Q32),
        min_mbps: r.reg(offset::RA_MIN_MBPS),
        max_mbps: capacity * MBPS_PER_BYTE_PER_US,
    }
}

/// RA-04: the egress law's inputs: [`law_registers`] with the data-centre
/// port's capacity (`RA_DC_CAPACITY_BYTES_PER_US`) and 1/(d C)
/// (`RA_DC_INV_DC_Q32`); the interval, gains, T/d and minimum are shared.
pub fn law_registers_dc(r: &dyn crate::longhaul::Registers) -> LawRegisters {
    use cngw_regmap::offset;
    let capacity = r.reg(offset::RA_DC_CAPACITY_BYTES_PER_US) & 0xF_FFFF;
    LawRegisters {
        capacity_x_interval: capacity as u64 * (r.reg(offset::RA_INTERVAL_US) & 0xFF_FFFF) as u64,
        inv_dc_q32: r.reg(offset::RA_DC_INV_DC_Q32),
        max_mbps: capacity * MBPS_PER_BYTE_PER_US,
        ..law_registers(r)
    }
}

/// Clocks from a control interval's last clock to the clock the egress
/// gateway takes the data-centre port's new advice for its peers (RA-04):
/// the first clock the law's result is seen in.
pub const SEND_CLOCKS: u64 = LAW_CLOCKS + 1;

/// RA-02 in the gateway: the port's law on the registers. Control
/// intervals are counted in microsecond ticks (tick `m` in clock
/// `m * CLOCKS_PER_US - 1` after reset): an interval ends at the tick that
/// makes it `RA_INTERVAL_US` ticks long, the first one at tick
/// `RA_INTERVAL_US`; the law steps while `RA_CONTROL.law` is set.
#[derive(Clone, Debug, Default)]
pub struct PortLaw {
    /// The law's last result, Mb/s; 0 before the first (the advice is then
    /// `8 C`).
    rate: u32,
    /// The rate decisions see now (0: `8 C`).
    visible: u32,
    /// Results not yet visible: (first clock they are, rate).
    results: std::collections::VecDeque<(u64, u32)>,
    /// The tick the last interval ended at (0: reset).
    last_end_tick: u64,
    /// The tick the current interval ends at when `RA_INTERVAL_US` was
    /// rewritten during it.
    next_end_tick: Option<u64>,
    /// The first clock (since reset) the law takes a new interval in.
    free_from: u64,
    /// RA-04 (egress law): for each interval's end, the clock
    /// `SEND_CLOCKS` later and the advice seen then (kept when
    /// `keep_sends`).
    pub keep_sends: bool,
    pub sends: std::collections::VecDeque<(u64, u32)>,
}

impl PortLaw {
    /// A law that keeps its `sends` (RA-04's egress law).
    pub fn keeping_sends() -> Self {
        PortLaw {
            keep_sends: true,
            ..Default::default()
        }
    }

    /// The port's advice in clock `k` (since reset): `bytes(lo, hi)` are
    /// the RoCEv2 bytes toward the WAN looked up in clocks `lo..hi`,
    /// `depth(k)` the queue the controller sees in clock `k`. Asked with
    /// clocks that do not go back.
    pub fn rate_at(
        &mut self,
        k: u64,
        r: &dyn crate::longhaul::Registers,
        bytes: impl Fn(u64, u64) -> u64,
        depth: impl Fn(u64) -> u32,
    ) -> u32 {
        self.rate_at_with(k, r, law_registers(r), bytes, depth)
    }

    /// [`PortLaw::rate_at`] with the law's inputs `l` (the data-centre
    /// port's: [`law_registers_dc`]).
    pub fn rate_at_with(
        &mut self,
        k: u64,
        r: &dyn crate::longhaul::Registers,
        l: LawRegisters,
        bytes: impl Fn(u64, u64) -> u64,
        depth: impl Fn(u64) -> u32,
    ) -> u32 {
        use cngw_regmap::{offset, ra_control};
        let p = r.reg(offset::CLOCKS_PER_US).max(1) as u64;
        let t = r.reg(offset::RA_INTERVAL_US).max(1) as u64;
        let law = r.reg(offset::RA_CONTROL) & ra_control::LAW != 0;
        if !law {
            self.rate = 0;
            self.visible = 0;
            self.results.clear();
        }
        loop {
            let end_tick = self.next_end_tick.unwrap_or(self.last_end_tick + t);
            let e = end_tick * p - 1;
            if e >= k {
                break;
            }
            if law && e >= self.free_from {
                let start = if self.rate == 0 {
                    l.max_mbps
                } else {
                    self.rate
                };
                let arrived = bytes(self.last_end_tick * p, end_tick * p).min(u32::MAX as u64);
                self.rate = law_step(start, arrived, depth(e) as u64, &l);
                self.free_from = e + LAW_CLOCKS + 1;
                self.results.push_back((self.free_from, self.rate));
            }
            if self.keep_sends {
                let seen = if !law || self.rate == 0 {
                    l.max_mbps
                } else {
                    self.rate
                };
                self.sends.push_back((e + SEND_CLOCKS, seen));
            }
            self.last_end_tick = end_tick;
            self.next_end_tick = None;
        }
        while let Some(&(from, rate)) = self.results.front() {
            if from > k {
                break;
            }
            self.visible = rate;
            self.results.pop_front();
        }
        if self.visible == 0 {
            l.max_mbps
        } else {
            self.visible
        }
    }

    /// `RA_INTERVAL_US` (already in `r`) was written in clock `k` (since
    /// reset), between two ticks, and no interval ended under the old value
    /// since the last one `rate_at` saw: the current interval ends at the
    /// next tick if it has lasted the new length already, else when it
    /// has.
    pub fn interval_written(&mut self, k: u64, r: &dyn crate::longhaul::Registers) {
        use cngw_regmap::offset;
        let p = r.reg(offset::CLOCKS_PER_US).max(1) as u64;
        let t = r.reg(offset::RA_INTERVAL_US).max(1) as u64;
        let now_tick = k / p;
        let counted = now_tick.saturating_sub(self.last_end_tick);
        self.next_end_tick = Some(now_tick + t.saturating_sub(counted).max(1));
    }
}

/// RA-04 source role: does the gateway (`RA_REMOTE_CONTROL.accept`,
/// `FEATURE_ENABLE.rate_advice`) claim this frame from wan_rx? It does for
/// every RoCEv2 frame to its own address (Ethernet, at most one 802.1Q
/// tag; IPv4 with a 20-byte header, not a fragment, to `GW_IPV4`, or IPv6
/// with next header UDP to `GW_IPV6`; UDP to 4791), the hardware's
/// first-beat rule. `Some(Some((source, rate)))`: a whole Rate Advice
/// message (BTH opcode `RA_OPCODE`, body version 1, the frame at least
/// as long as the message with its ICRC) from `source` (IPv4-mapped);
/// `Some(None)`: claimed but not one (refused).
pub fn remote_claim(
    frame: &[u8],
    r: &dyn crate::longhaul::Registers,
) -> Option<Option<(std::net::Ipv6Addr, u32)>> {
    use cngw_regmap::{feature, offset, ra_remote_control};
    use std::net::{Ipv4Addr, Ipv6Addr};
    if r.reg(offset::FEATURE_ENABLE) & feature::RATE_ADVICE == 0
        || r.reg(offset::RA_REMOTE_CONTROL) & ra_remote_control::ACCEPT == 0
    {
        return None;
    }
    let at = |i: usize| frame.get(i).copied().unwrap_or(0);
    let be16 = |i: usize| u16::from_be_bytes([at(i), at(i + 1)]);
    let (ip, tagged) = if be16(12) == 0x8100 {
        (18, true)
    } else {
        (14, false)
    };
    let ethertype = be16(ip - 2);
    let (src, bth, min_len) = if ethertype == 0x0800 {
        let dst = u32::from_be_bytes([at(ip + 16), at(ip + 17), at(ip + 18), at(ip + 19)]);
        if at(ip) != 0x45
            || be16(ip + 6) & 0x3FFF != 0
            || at(ip + 9) != 17
            || dst != r.reg(offset::GW_IPV4)
            || be16(ip + 22) != 4791
        {
            return None;
        }
        let src = Ipv4Addr::new(at(ip + 12), at(ip + 13), at(ip + 14), at(ip + 15));
        (src.to_ipv6_mapped(), ip + 28, 74)
    } else if ethertype == 0x86DD {
        let mut dst = [0u8; 16];
        let mut src = [0u8; 16];
        for i in 0..16 {
            src[i] = at(ip + 8 + i);
            dst[i] = at(ip + 24 + i);
        }
        if at(ip) >> 4 != 6
            || at(ip + 6) != 17
            || Ipv6Addr::from(dst) != crate::longhaul::gw_ipv6(r)
            || be16(ip + 42) != 4791
        {
            return None;
        }
        (Ipv6Addr::from(src), ip + 48, 94)
    } else {
        return None;
    };
    let min_len = min_len + if tagged { 4 } else { 0 };
    let word = |i: usize| u32::from_be_bytes([at(i), at(i + 1), at(i + 2), at(i + 3)]);
    let good = at(bth) as u32 == r.reg(offset::RA_OPCODE) & 0xFF
        && word(bth + 16) == 1
        && frame.len() >= min_len;
    Some(good.then_some((src, word(bth + 12))))
}

/// A flow's advice: the port's rate, or the flow's policy cap when lower
/// (RA-02's "rate limits defined by network policies").
pub fn advised(port_rate_mbps: u32, policy_cap_mbps: Option<u32>) -> u32 {
    policy_cap_mbps.map_or(port_rate_mbps, |cap| cap.min(port_rate_mbps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A fluid run: `flows[i]` joins at interval `start` and sends at the
    /// advice it received one `d` earlier (capped by `demand` Mb/s); the
    /// port drains `C`. Returns the advice and the queue after each interval.
    fn run(p: &RcpParams, flows: &[(u32, u32)], intervals: u32) -> Vec<(u32, u64)> {
        let mut s = RcpState::new(p);
        let delay = (p.rtt_us / p.interval_us).max(1) as usize;
        let mut advice: VecDeque<u32> = std::iter::repeat_n(s.rate_mbps, delay).collect();
        let mut queue = 0u64;
        let mut out = Vec::new();
        for k in 0..intervals {
            let heard = advice[0];
            let sending: u64 = flows
                .iter()
                .filter(|(start, _)| *start <= k)
                .map(|&(_, demand)| heard.min(demand) as u64)
                .sum();
            // Mb/s over T us = bits: / 8 for bytes.
            let arrived = sending * p.interval_us as u64 / 8;
            let capacity = p.capacity as u64 * p.interval_us as u64;
            queue = (queue + arrived).saturating_sub(capacity);
            let r = s.step(arrived, queue, p);
            advice.pop_front();
            advice.push_back(r);
            out.push((r, queue));
        }
        out
    }

    fn within(got: u32, want: f64, tolerance: f64) -> bool {
        (got as f64 - want).abs() <= want * tolerance
    }

    #[test]
    fn ra_02_registers_are_the_rounded_ratios() {
        let p = RcpParams::default();
        let r = p.registers();
        // T/d = 1000/10000 = 0.1 -> 6554 in Q16.
        assert_eq!(r.t_over_d_q16, 6554);
        // 2^32 / (10000 * 12500) = 34.36 -> 34.
        assert_eq!(r.inv_dc_q32, 34);
        assert_eq!(p.capacity_mbps(), 100_000);
    }

    #[test]
    fn ra_02_rate_holds_at_the_fair_share_and_without_a_queue() {
        // Four flows at exactly C/4 each and no queue: nothing to change.
        let p = RcpParams::default();
        let mut s = RcpState { rate_mbps: 25_000 };
        let arrived = 4 * 25_000u64 * 1_000 / 8;
        assert_eq!(s.step(arrived, 0, &p), 25_000);
        // Spare capacity raises it, a queue lowers it.
        assert!(s.step(arrived / 2, 0, &p) > 25_000);
        let mut s = RcpState { rate_mbps: 25_000 };
        assert!(s.step(arrived, 50_000_000, &p) < 25_000);
    }

    #[test]
    fn ra_02_advice_converges_to_the_fair_share_within_5_percent() {
        // The draft's WAN (100 Gb/s, 10 ms) and a data-centre port (100 us).
        for (rtt_us, interval_us) in [(10_000, 1_000), (100, 10)] {
            let p = RcpParams {
                rtt_us,
                interval_us,
                ..RcpParams::default()
            };
            for n in [1u32, 2, 4, 10] {
                let flows: Vec<(u32, u32)> = (0..n).map(|_| (0, u32::MAX)).collect();
                let out = run(&p, &flows, 400);
                let fair = p.capacity_mbps() as f64 / n as f64;
                // The last 100 intervals: every advice within 5 % of C/N,
                // the queue below one interval's worth of the capacity.
                for &(r, q) in &out[300..] {
                    assert!(
                        within(r, fair, 0.05),
                        "d {rtt_us} us, {n} flows: advice {r} Mb/s, fair {fair}"
                    );
                    assert!(q <= p.capacity as u64 * p.interval_us as u64, "queue {q}");
                }
            }
        }
    }

    #[test]
    fn ra_02_advice_follows_flows_joining_and_a_limited_flow() {
        // Two flows, four more join at interval 200; then one of six can
        // only send 5 Gb/s: the other five share the rest.
        let p = RcpParams::default();
        let flows = [(0, u32::MAX), (0, u32::MAX)];
        let out = run(&p, &flows, 200);
        assert!(within(out[199].0, 50_000.0, 0.05), "{:?}", out[199]);
        let mut flows: Vec<(u32, u32)> = vec![(0, u32::MAX); 2];
        flows.extend([(200, u32::MAX); 4]);
        let out = run(&p, &flows, 600);
        assert!(within(out[599].0, 100_000.0 / 6.0, 0.05), "{:?}", out[599]);
        let mut flows: Vec<(u32, u32)> = vec![(0, u32::MAX); 5];
        flows.push((0, 5_000));
        let out = run(&p, &flows, 600);
        assert!(within(out[599].0, 95_000.0 / 5.0, 0.05), "{:?}", out[599]);
    }

    #[test]
    fn ra_02_one_interval_never_more_than_halves_or_doubles() {
        let p = RcpParams::default();
        let mut s = RcpState { rate_mbps: 40_000 };
        // A huge queue: halved, not below.
        assert_eq!(s.step(0, u64::MAX / 1024, &p), 20_000);
        // Nothing arriving: at most doubled.
        let mut s = RcpState { rate_mbps: 10_000 };
        assert!(s.step(0, 0, &p) <= 20_000);
        // Bounds.
        let mut s = RcpState { rate_mbps: 150 };
        assert_eq!(s.step(0, u64::MAX / 1024, &p), p.min_mbps);
        // Nothing arriving and no queue: the factor is 1 + alpha T / d
        // (the fixed point within 0.1 % of it).
        let mut s = RcpState { rate_mbps: 90_000 };
        let want = 90_000.0 * (1.0 + 102.0 / 256.0 * 0.1);
        assert!(within(s.step(0, 0, &p), want, 0.001), "{s:?} vs {want}");
        let mut s = RcpState { rate_mbps: 99_000 };
        assert_eq!(s.step(0, 0, &p), p.capacity_mbps());
    }

    #[test]
    fn ra_02_policy_caps_the_advice() {
        assert_eq!(advised(40_000, None), 40_000);
        assert_eq!(advised(40_000, Some(10_000)), 10_000);
        assert_eq!(advised(8_000, Some(10_000)), 8_000);
    }
}
