//! LH-16: the source-side SmartNIC (draft-tian-ccwg-long-haul-cnp-00,
//! "Source Behavior upon Receiving Long-haul CNP", "Security
//! Considerations"; draft-zz-scone-rate-advice-rocev2-00 for Rate Advice).
//!
//! It sits between a sender's legacy RNIC and the network and enforces
//! per-QP rates the RNIC knows nothing about:
//!
//! ```text
//!            to the RNIC  <--[ rx: validate, apply ]<--  from the network
//!  RNIC                                                              network
//!            from the RNIC -->[ tx: per-QP token bucket ]--> to the network
//! ```
//!
//! Receive side ([`SourceNic::receive`]), in this order:
//! - A Long-haul CNP (RoCEv2 format: opcode 0x81 with the E bit; ICMPv6
//!   format: the configured type) or a Rate Advice message (the configured
//!   BTH opcode) is a *notification*. It is checked (checksums and ICRC,
//!   unless `check_integrity` is off;
//!   the sender is one of the configured notifying nodes; in the RoCEv2
//!   format BTH DestQP equals the body's Source QP, the draft's "consistent
//!   combination"; the QP is one of the configured active QPs) and then
//!   applied and consumed: the RNIC never sees it, so it does not cut its
//!   rate a second time. A notification that fails a check is dropped and
//!   counted by reason ([`Counters`]): it changes nothing.
//! - A standard CNP (opcode 0x81 without the E bit) passes to the RNIC
//!   untouched (a legacy CNP is the RNIC's own business), as does every
//!   other frame.
//!
//! Actions on a QP's rate (Mb/s, between `min_rate_mbps` and
//! `line_rate_mbps`); `before` is the rate before the last cut:
//! - Notify: the default response, `rate -= rate >> notify_cut_shift`.
//! - Pause: no frame of the QP leaves for `parameter` microseconds; the
//!   rate is kept.
//! - Rate Reduce: `rate -= rate * min(parameter, 100) / 100`.
//! - Resume: `rate += (before - rate) * p / 100` with `p = min(parameter,
//!   100)`, `p = 0` meaning all of it ("unconditional resume to the original
//!   rate"), and the increase capped at `resume_cap_mbps` (the draft's
//!   "maximum rate increase cap per Resume action" against forged Resumes).
//! - Rate Advice: `rate = clamp(advised, min_rate_mbps, line_rate_mbps)`.
//!
//! Every applied notification restarts the QP's recovery timer. When no
//! notification has been applied for `recovery_interval_ns` (RECOMMENDED
//! 2 * RTT_est), the rate grows by `ai_step_mbps` every `ai_period_ns`
//! (additive increase) until it is back at the line rate.
//!
//! Transmit side ([`SourceNic::send`]): a RoCEv2 frame from the RNIC to a
//! configured QP's remote address and QP takes bits from that QP's token
//! bucket, which fills at the QP's rate (1 Mb/s is 1 bit per microsecond)
//! up to `burst_bytes`; it leaves when the bucket holds its bits and the
//! QP is not paused, in order behind the QP's earlier frames. Other frames
//! leave at once.
//!
//! Time is in nanoseconds and only moves forward; queries apply what is due
//! up to the given time first. A frame's departure time is fixed when it is
//! offered: a notification that arrives while it waits changes the rate of
//! the QP's later frames, not its own.

use cngw_packet::bth::opcode;
use cngw_packet::frame::Frame;
use cngw_packet::longhaul::{Action, LonghaulCnp};
use cngw_packet::longhaul_icmpv6::{LonghaulIcmpv6, DEFAULT_ICMPV6_TYPE};
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::rate_advice::{RateAdviceMessage, DEFAULT_OPCODE};
use std::net::IpAddr;

/// Most notifying nodes the block accepts.
pub const MAX_NODES: usize = 16;
/// Most QPs the block enforces.
pub const MAX_QPS: usize = 64;

/// A QP of the local RNIC and the peer its data goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpBinding {
    /// The local QP: the Source QP of Long-haul CNPs, the BTH DestQP of
    /// notifications to this sender (24 bits).
    pub local_qp: u32,
    /// Where its data goes: the remote address and the BTH DestQP of its
    /// data frames.
    pub remote: IpAddr,
    pub remote_qp: u32,
}

/// Configuration of the source-side block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceNicConfig {
    /// The rate every QP starts at and recovers to, Mb/s.
    pub line_rate_mbps: u32,
    /// Floor of every cut, Mb/s (1..=line rate).
    pub min_rate_mbps: u32,
    /// Notify: `rate -= rate >> notify_cut_shift` (1..=15).
    pub notify_cut_shift: u8,
    /// Quiet time before additive increase starts (2 * RTT_est).
    pub recovery_interval_ns: u64,
    /// Additive increase: this much every `ai_period_ns`.
    pub ai_step_mbps: u32,
    pub ai_period_ns: u64,
    /// Largest increase one Resume may give, Mb/s.
    pub resume_cap_mbps: u32,
    /// Token bucket depth of each QP (at least one maximum-size frame).
    pub burst_bytes: u32,
    /// ICMPv6 type of the Long-haul CNP's ICMPv6 format.
    pub longhaul_icmpv6_type: u8,
    /// BTH opcode of Rate Advice.
    pub rate_advice_opcode: u8,
    /// Addresses of the congestion-aware nodes allowed to notify.
    pub nodes: Vec<IpAddr>,
    /// The active QPs.
    pub qps: Vec<QpBinding>,
    /// Check the IPv4 header checksum, a non-zero UDP checksum, the ICMPv6
    /// checksum and the ICRC of a notification (a failure is
    /// [`DropReason::Malformed`]). On by default; the RTL block
    /// (`cngw_hdl::snic::SourceNic`) does not check them (the MAC's FCS has
    /// checked the frame, and a forger computes them as easily as the
    /// sender), so it is compared with this off.
    pub check_integrity: bool,
}

impl SourceNicConfig {
    /// The defaults of `cngw` for a 100 Gb/s sender behind a WAN with the
    /// given RTT estimate: recovery after 2 * RTT_est, then +1 Gb/s every
    /// 55 us (the DCQCN rate-increase timer), Resume capped at 10 Gb/s.
    pub fn new(rtt_est_ns: u64, nodes: Vec<IpAddr>, qps: Vec<QpBinding>) -> Self {
        SourceNicConfig {
            line_rate_mbps: 100_000,
            min_rate_mbps: 100,
            notify_cut_shift: 1,
            recovery_interval_ns: 2 * rtt_est_ns,
            ai_step_mbps: 1_000,
            ai_period_ns: 55_000,
            resume_cap_mbps: 10_000,
            burst_bytes: 16 * 1024,
            longhaul_icmpv6_type: DEFAULT_ICMPV6_TYPE,
            rate_advice_opcode: DEFAULT_OPCODE,
            nodes,
            qps,
            check_integrity: true,
        }
    }

    /// Checks every field; the message names the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        if self.line_rate_mbps == 0 {
            return Err("line_rate_mbps must be at least 1".into());
        }
        if self.min_rate_mbps == 0 || self.min_rate_mbps > self.line_rate_mbps {
            return Err(format!(
                "min_rate_mbps must be 1..={} (the line rate), not {}",
                self.line_rate_mbps, self.min_rate_mbps
            ));
        }
        if !(1..=15).contains(&self.notify_cut_shift) {
            return Err(format!(
                "notify_cut_shift must be 1..=15, not {}",
                self.notify_cut_shift
            ));
        }
        if self.ai_period_ns == 0 || self.ai_step_mbps == 0 {
            return Err("ai_period_ns and ai_step_mbps must be at least 1".into());
        }
        if self.burst_bytes < 1536 {
            return Err(format!(
                "burst_bytes must hold a frame (at least 1536), not {}",
                self.burst_bytes
            ));
        }
        if self.nodes.len() > MAX_NODES {
            return Err(format!(
                "at most {MAX_NODES} notifying nodes, not {}",
                self.nodes.len()
            ));
        }
        if self.qps.len() > MAX_QPS {
            return Err(format!("at most {MAX_QPS} QPs, not {}", self.qps.len()));
        }
        for (i, q) in self.qps.iter().enumerate() {
            if q.local_qp > 0x00FF_FFFF || q.remote_qp > 0x00FF_FFFF {
                return Err(format!("QP numbers are 24 bits (QP entry {i})"));
            }
            if self.qps[..i].iter().any(|p| p.local_qp == q.local_qp) {
                return Err(format!("local QP {} is listed twice", q.local_qp));
            }
            if self.qps[..i]
                .iter()
                .any(|p| p.remote == q.remote && p.remote_qp == q.remote_qp)
            {
                return Err(format!(
                    "remote {} QP {} is listed twice",
                    q.remote, q.remote_qp
                ));
            }
        }
        Ok(())
    }
}

/// What happened to a frame from the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// Passed to the RNIC (data, a standard CNP, anything else).
    ToRnic,
    /// A notification, checked and applied to this local QP; consumed.
    Applied {
        local_qp: u32,
        kind: NotificationKind,
    },
    /// A notification that failed a check; consumed, nothing changed.
    Dropped(DropReason),
}

/// The notification that was applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotificationKind {
    Longhaul { action: Action, parameter: u16 },
    RateAdvice { rate_mbps: u32 },
}

/// Why a notification was dropped (each has its counter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// A checksum or the ICRC is wrong, or the message does not parse.
    Malformed,
    /// The sender is not a configured notifying node.
    UnknownNode,
    /// RoCEv2 format: BTH DestQP differs from the body's Source QP.
    Inconsistent,
    /// The QP is not one of the active QPs.
    UnknownQp,
}

/// Event counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub applied: u64,
    pub dropped_malformed: u64,
    pub dropped_unknown_node: u64,
    pub dropped_inconsistent: u64,
    pub dropped_unknown_qp: u64,
    /// Standard CNPs passed to the RNIC.
    pub legacy_cnps: u64,
    /// Resumes whose increase the cap cut.
    pub resumes_capped: u64,
    /// Frames the token buckets held back at least a moment.
    pub frames_delayed: u64,
}

#[derive(Clone, Debug)]
struct QpState {
    rate: u32,
    /// The rate before the last cut (Resume's reference).
    before: u32,
    paused_until: u64,
    /// When the last notification was applied (None: never).
    last_notification: Option<u64>,
    /// Additive-increase steps already taken since the last notification.
    ai_steps: u64,
    /// Token bucket in millibits (exact at any rate), as of `bucket_time`.
    millibits: u64,
    bucket_time: u64,
    /// The departure time of the QP's last frame.
    last_departure: u64,
}

/// The source-side block.
#[derive(Clone, Debug)]
pub struct SourceNic {
    config: SourceNicConfig,
    qps: Vec<QpState>,
    now: u64,
    counters: Counters,
}

impl SourceNic {
    /// A block at time 0 with every QP at the line rate and a full bucket.
    pub fn new(config: SourceNicConfig) -> Result<Self, String> {
        config.validate()?;
        let full = 8_000 * config.burst_bytes as u64;
        let qps = config
            .qps
            .iter()
            .map(|_| QpState {
                rate: config.line_rate_mbps,
                before: config.line_rate_mbps,
                paused_until: 0,
                last_notification: None,
                ai_steps: 0,
                millibits: full,
                bucket_time: 0,
                last_departure: 0,
            })
            .collect();
        Ok(SourceNic {
            config,
            qps,
            now: 0,
            counters: Counters::default(),
        })
    }

    pub fn config(&self) -> &SourceNicConfig {
        &self.config
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The QP's rate at `now` (recovery applied), Mb/s.
    pub fn rate_mbps(&mut self, local_qp: u32, now: u64) -> Option<u32> {
        self.advance_to(now);
        let i = self.qp_index(local_qp)?;
        Some(self.qps[i].rate)
    }

    /// Whether the QP is paused at `now`.
    pub fn paused(&mut self, local_qp: u32, now: u64) -> Option<bool> {
        self.advance_to(now);
        let i = self.qp_index(local_qp)?;
        Some(self.qps[i].paused_until > now)
    }

    fn qp_index(&self, local_qp: u32) -> Option<usize> {
        self.config.qps.iter().position(|q| q.local_qp == local_qp)
    }

    /// Applies everything due up to `now` (additive increase).
    pub fn advance_to(&mut self, now: u64) {
        assert!(now >= self.now, "time went back: {now} < {}", self.now);
        for i in 0..self.qps.len() {
            self.recover(i, now);
        }
        self.now = now;
    }

    /// The additive-increase steps due by `now`; the bucket is brought up
    /// to each step's time first, so it fills at the old rate until then.
    fn recover(&mut self, i: usize, now: u64) {
        let c = &self.config;
        let q = &mut self.qps[i];
        let Some(last) = q.last_notification else {
            return;
        };
        let start = last + c.recovery_interval_ns;
        while q.rate < c.line_rate_mbps {
            // Step k (k >= 1) is due at start + (k - 1) * period.
            let due = start + q.ai_steps * c.ai_period_ns;
            if due > now {
                break;
            }
            fill(q, due, c.burst_bytes);
            q.rate = q.rate.saturating_add(c.ai_step_mbps).min(c.line_rate_mbps);
            q.ai_steps += 1;
        }
    }

    /// A frame from the network toward the RNIC, at `now`.
    pub fn receive(&mut self, bytes: &[u8], now: u64) -> Received {
        self.advance_to(now);
        let Ok(frame) = Frame::parse(bytes) else {
            return Received::ToRnic;
        };
        let notification = match self.classify(&frame) {
            Classified::Other => return Received::ToRnic,
            Classified::LegacyCnp => {
                self.counters.legacy_cnps += 1;
                return Received::ToRnic;
            }
            Classified::Notification(n) => n,
        };
        let verdict = self.check(&frame, notification);
        match verdict {
            Ok((i, kind)) => {
                self.apply(i, kind, now);
                self.counters.applied += 1;
                Received::Applied {
                    local_qp: self.config.qps[i].local_qp,
                    kind,
                }
            }
            Err(reason) => {
                let c = &mut self.counters;
                match reason {
                    DropReason::Malformed => c.dropped_malformed += 1,
                    DropReason::UnknownNode => c.dropped_unknown_node += 1,
                    DropReason::Inconsistent => c.dropped_inconsistent += 1,
                    DropReason::UnknownQp => c.dropped_unknown_qp += 1,
                }
                Received::Dropped(reason)
            }
        }
    }

    fn classify(&self, frame: &Frame) -> Classified {
        if let Some(m) = frame.icmpv6() {
            if m.icmp_type == self.config.longhaul_icmpv6_type {
                return Classified::Notification(Notif::Icmpv6);
            }
            return Classified::Other;
        }
        if !frame.is_roce() {
            return Classified::Other;
        }
        let Ok(roce) = frame.roce() else {
            return Classified::Other;
        };
        if roce.bth.opcode == opcode::CNP {
            if roce.bth.e_bit {
                Classified::Notification(Notif::Rocev2)
            } else {
                Classified::LegacyCnp
            }
        } else if roce.bth.opcode == self.config.rate_advice_opcode {
            Classified::Notification(Notif::RateAdvice)
        } else {
            Classified::Other
        }
    }

    /// The QP index and what to apply, or why not.
    fn check(&self, frame: &Frame, n: Notif) -> Result<(usize, NotificationKind), DropReason> {
        let malformed = |_| DropReason::Malformed;
        if self.config.check_integrity {
            frame
                .verify_checksums()
                .map_err(|_| DropReason::Malformed)?;
        }
        // (BTH DestQP or the QP addressed, what to do, the body's QP).
        let (qp, kind, body_qp) = match n {
            Notif::Rocev2 => {
                let m = LonghaulRocev2::from_frame(frame).map_err(malformed)?;
                (m.dest_qp, longhaul_kind(&m.cnp), m.cnp.body.source_qp)
            }
            Notif::Icmpv6 => {
                let m = LonghaulIcmpv6::from_frame(frame, self.config.longhaul_icmpv6_type)
                    .map_err(malformed)?;
                let qp = m.cnp.body.source_qp;
                (qp, longhaul_kind(&m.cnp), qp)
            }
            Notif::RateAdvice => {
                let m = RateAdviceMessage::from_frame(frame, self.config.rate_advice_opcode)
                    .map_err(malformed)?;
                let kind = NotificationKind::RateAdvice {
                    rate_mbps: m.advice.rate_mbps,
                };
                (m.dest_qp, kind, m.dest_qp)
            }
        };
        if !self.config.nodes.contains(&frame.ip.header.src()) {
            return Err(DropReason::UnknownNode);
        }
        if qp != body_qp {
            return Err(DropReason::Inconsistent);
        }
        let i = self.qp_index(qp).ok_or(DropReason::UnknownQp)?;
        Ok((i, kind))
    }

    fn apply(&mut self, i: usize, kind: NotificationKind, now: u64) {
        let c = &self.config;
        let q = &mut self.qps[i];
        // The bucket fills at the old rate up to now.
        fill(q, now, c.burst_bytes);
        let floor = |r: u32| r.clamp(c.min_rate_mbps, c.line_rate_mbps);
        match kind {
            NotificationKind::Longhaul { action, parameter } => match action {
                Action::Notify => {
                    q.before = q.rate;
                    q.rate = floor(q.rate - (q.rate >> c.notify_cut_shift));
                }
                Action::Pause => {
                    q.paused_until = q.paused_until.max(now + parameter as u64 * 1_000);
                }
                Action::RateReduce => {
                    let p = parameter.min(100) as u64;
                    q.before = q.rate;
                    let cut = (q.rate as u64 * p / 100) as u32;
                    q.rate = floor(q.rate - cut);
                }
                Action::Resume => {
                    let p = parameter.min(100) as u64;
                    let gap = q.before.saturating_sub(q.rate) as u64;
                    let wanted = if p == 0 { gap } else { gap * p / 100 } as u32;
                    if wanted > c.resume_cap_mbps {
                        self.counters.resumes_capped += 1;
                    }
                    q.rate = floor(q.rate + wanted.min(c.resume_cap_mbps));
                }
            },
            NotificationKind::RateAdvice { rate_mbps } => {
                let advised = floor(rate_mbps);
                if advised < q.rate {
                    q.before = q.rate;
                }
                q.rate = advised;
            }
        }
        q.last_notification = Some(now);
        q.ai_steps = 0;
    }

    /// A frame from the RNIC toward the network, offered at `now`: the
    /// time it leaves (`now` for frames of no configured QP).
    pub fn send(&mut self, bytes: &[u8], now: u64) -> u64 {
        self.advance_to(now);
        let Some(i) = self.tx_qp(bytes) else {
            return now;
        };
        let need = 8_000 * bytes.len() as u64;
        // Behind the QP's earlier frames, after any pause.
        let mut t = now.max(self.qps[i].last_departure);
        loop {
            t = t.max(self.qps[i].paused_until);
            self.recover(i, t);
            let c = &self.config;
            let q = &mut self.qps[i];
            fill(q, t, c.burst_bytes);
            if q.millibits >= need && q.paused_until <= t {
                q.millibits -= need;
                q.last_departure = t;
                if t > now {
                    self.counters.frames_delayed += 1;
                }
                return t;
            }
            // The earliest time the bits are there at the present rate,
            // or the next recovery step, whichever is first.
            let missing = need.saturating_sub(q.millibits);
            let wait = missing.div_ceil(q.rate as u64).max(1);
            let mut next = t + wait;
            if let Some(last) = q.last_notification {
                if q.rate < c.line_rate_mbps {
                    let due = last + c.recovery_interval_ns + q.ai_steps * c.ai_period_ns;
                    if due > t {
                        next = next.min(due);
                    }
                }
            }
            t = next;
        }
    }

    /// The configured QP a RoCEv2 frame from the RNIC belongs to.
    fn tx_qp(&self, bytes: &[u8]) -> Option<usize> {
        let frame = Frame::parse(bytes).ok()?;
        if !frame.is_roce() {
            return None;
        }
        let roce = frame.roce().ok()?;
        let dst = frame.ip.header.dst();
        self.config
            .qps
            .iter()
            .position(|q| q.remote == dst && q.remote_qp == roce.bth.dest_qp)
    }
}

/// Brings a bucket up to `t`: 1 Mb/s is 1 millibit per nanosecond.
fn fill(q: &mut QpState, t: u64, burst_bytes: u32) {
    if t > q.bucket_time {
        let add = (t - q.bucket_time) as u128 * q.rate as u128;
        let full = 8_000 * burst_bytes as u64;
        q.millibits = (q.millibits as u128 + add).min(full as u128) as u64;
        q.bucket_time = t;
    }
}

fn longhaul_kind(cnp: &LonghaulCnp) -> NotificationKind {
    NotificationKind::Longhaul {
        action: cnp.body.action,
        parameter: cnp.body.parameter,
    }
}

#[derive(Clone, Copy)]
enum Notif {
    Rocev2,
    Icmpv6,
    RateAdvice,
}

enum Classified {
    Other,
    LegacyCnp,
    Notification(Notif),
}
