//! `LhController`: the second level of the Long-haul CNP draft for one WAN
//! port (LH-05..LH-09, LH-14, LH-15): decides, packet by packet, which flow
//! gets a Long-haul CNP with which action, and when flows get a Resume.
//!
//! ```text
//!  res_* (flow-table answer for a RoCEv2 packet toward the WAN)
//!     |
//!     v
//!  [ congested? QD > K_max ]--[ tracker: 8 notified flows, by table location ]--[ token bucket ]--> job FIFO (8) --> job_*
//!  [ row: severity table by QD, escalated when QD grew since the flow's last CNP ]
//!  [ Resume: QD < K_min for RTT_est -> one Resume per tracked flow told >= interval ago, lowest slot first ]
//! ```
//! Rules, in the order they are applied to each `res_valid` (one packet per
//! clock at most), while `enable` is set and the queue is congested (`qd >
//! k_max`, or `growth_high`: the queue grew by more than V_growth over the
//! last interval):
//! 1. no source QP: counted in `no_sqp`; nothing sent;
//! 2. not a top contributor (`res_top` low: the flow's bytes in the
//!    current observation window are below the share of the port's
//!    bytes, LH-06): counted in `not_top`;
//! 3. with `defer`, the flow's rate fell in its last complete window
//!    (`res_fell`: a downstream node already slowed it, LH-10): counted
//!    in `deferred`;
//! 4. the flow is in the tracker and was notified less than `interval_us`
//!    ago: counted in `suppressed`;
//! 5. the flow is not in the tracker and the tracker is full: counted in
//!    `tracker_full`;
//! 6. no token, or the job FIFO is full: counted in `rate_limited`;
//! 7. otherwise a job: severity row 0 (`sev_action0`), 1 if `qd >
//!    sev1_threshold`, 2 if `qd > sev2_threshold`; if the flow is tracked
//!    and `qd` is above the depth of its last notification, one row above
//!    that notification's row, capped at 2 (escalation, LH-10).
//!    The tracker entry (new: lowest free slot) records the time, depth and
//!    row; one token is taken.
//!
//! Resume (LH-09): once `qd < k_min` has held for `rtt_us` (measured from
//! the last clock with `qd >= k_min`), each clock with no packet decision,
//! a token and room in the FIFO sends a Resume (`resume_action`) to the
//! lowest tracked flow whose last notification is at least `interval_us`
//! old, and frees its slot. (The per-flow interval, LH-08, so holds below
//! K_min too: a flow told by the growth or marking-rate trigger while the
//! queue is under K_min stays tracked, and its packets suppressed, for the
//! interval before its Resume; docs/decisions.md.) Only tracked flows — those told
//! to slow down — get one, in the format of their last notification; a
//! flow told with a standard CNP, which cannot say Resume (another would
//! cut its rate again), leaves the tracker on such a clock without a frame,
//! a token or room in the FIFO.
//!
//! Bodies (LH-12): Congestion Level, action, parameter from the action
//! register (`level` 31..24, `action` 23..22, `parameter` 15..0), Source QP
//! = the flow's, Metric Type 1 and Value `qd_kb` — both zero with
//! `hide_metric` (LH-14). Kind (LH-15): when the format table matched the
//! sender (`res_fmt_hit`), its format (`res_fmt`: 0 standard CNP, 1
//! Long-haul RoCEv2 format, 2 Long-haul ICMPv6 format — a standard CNP to
//! an IPv4 sender); otherwise the Long-haul RoCEv2 format when the sender's
//! family is enabled (`ipv4_longhaul`, `ipv6_longhaul`), else the Long-haul
//! ICMPv6 format to an IPv6 sender and a standard CNP to an IPv4 sender.
//! The tracker keeps the kind for the flow's Resume; the tracker and the
//! rate limit apply the same way to every kind.
//!
//! Token bucket (LH-08): `bucket_depth` tokens (1..8) after reset; while the
//! bucket is not full, one more every `refill_clocks` clocks, counted from
//! the clock after a token was taken from the full bucket (the counter
//! rests while the bucket is full, so the timing never depends on when the
//! registers were written).
//!
//! Timestamp (LH-12, LH-13): each job carries `tod`, the time of day of the
//! clock it is decided in (a packet's or a Resume's), on `job_timestamp`,
//! for the extension's timestamp object.
//!
//! Times are in microseconds from `now_us`; comparisons are modulo 2^32.
//! Latency: a decision is registered one clock after `res_valid` and the
//! job is in the FIFO (visible on `job_valid`) the clock after.
//!
//! Timing: every tracker slot runs its compares side by side (location,
//! interval, depth, row), so the decision only ORs one-hot results; the
//! job is composed whether or not it is sent and the FIFO's free entry at
//! the write pointer takes it every clock (the decision moves only the
//! pointers). 93.9 MHz on the ECP5 (docs/performance.md), held by the
//! Resume's pick of the lowest slot due into the job's fields.

use crate::notify::TokenBucket;
use rust_hdl::prelude::*;

/// Entries in the tracker and in the job FIFO.
pub const TRACKER_SLOTS: usize = 8;
pub const JOB_FIFO_DEPTH: usize = 8;

/// Packing of a job in the FIFO.
pub const JOB_BITS: usize = 315;

#[derive(LogicBlock)]
pub struct LhController {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    /// LH-05: the queue grew by more than V_growth over the last interval.
    pub growth_high: Signal<In, Bit>,
    pub now_us: Signal<In, Bits<32>>,
    pub qd: Signal<In, Bits<32>>,
    pub qd_kb: Signal<In, Bits<24>>,
    pub k_min: Signal<In, Bits<32>>,
    pub k_max: Signal<In, Bits<32>>,
    pub sev1_threshold: Signal<In, Bits<32>>,
    pub sev2_threshold: Signal<In, Bits<32>>,
    pub sev_action0: Signal<In, Bits<32>>,
    pub sev_action1: Signal<In, Bits<32>>,
    pub sev_action2: Signal<In, Bits<32>>,
    pub resume_action: Signal<In, Bits<32>>,
    pub interval_us: Signal<In, Bits<32>>,
    pub rtt_us: Signal<In, Bits<32>>,
    pub refill_clocks: Signal<In, Bits<32>>,
    pub bucket_depth: Signal<In, Bits<4>>,
    pub hide_metric: Signal<In, Bit>,
    pub ipv4_longhaul: Signal<In, Bit>,
    pub ipv6_longhaul: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    /// A flow-table answer for a RoCEv2 packet toward the WAN.
    pub res_valid: Signal<In, Bit>,
    pub res_sqp_valid: Signal<In, Bit>,
    /// The flow is a top contributor (LH-06).
    pub res_top: Signal<In, Bit>,
    /// The flow's rate fell in its last complete window (LH-10).
    pub res_fell: Signal<In, Bit>,
    /// Downstream deferral on (LH-10).
    pub defer: Signal<In, Bit>,
    pub res_sqp: Signal<In, Bits<24>>,
    /// Where the flow lives in the table (unique while it lives).
    pub res_location: Signal<In, Bits<16>>,
    /// The packet's source: the sender to notify (lane order).
    pub res_src_ip: Signal<In, Bits<128>>,
    pub res_ipv6: Signal<In, Bit>,
    /// The packet's source MAC: the previous hop.
    pub res_src_mac: Signal<In, Bits<48>>,
    pub res_pkey: Signal<In, Bits<16>>,
    /// LH-15: the format table matched the sender, and the format it says.
    pub res_fmt_hit: Signal<In, Bit>,
    pub res_fmt: Signal<In, Bits<2>>,
    /// PX-01: the sender has a proxy and CN messages are on: a notification
    /// for this packet goes to the CN generator (`px_go`) instead of the
    /// FIFO, and its flow is tracked as told with a standard CNP.
    pub res_proxy: Signal<In, Bit>,
    /// PX-01: a notification handed to the CN generator (the clock of
    /// `res_valid`), with the action's congestion level capped at 7.
    pub px_go: Signal<Out, Bit>,
    pub px_level: Signal<Out, Bits<3>>,
    /// Time of day (NTP): a job carries that of the clock it is decided in
    /// (LH-12/LH-13 timestamp object).
    pub tod: Signal<In, Bits<64>>,
    /// Jobs for `NotifyBuilder` (its `job_*` inputs).
    pub job_valid: Signal<Out, Bit>,
    pub job_ready: Signal<In, Bit>,
    pub job_kind: Signal<Out, Bits<2>>,
    pub job_ipv6: Signal<Out, Bit>,
    pub job_dst_mac: Signal<Out, Bits<48>>,
    pub job_dst_ip: Signal<Out, Bits<128>>,
    pub job_dqp: Signal<Out, Bits<24>>,
    pub job_pkey: Signal<Out, Bits<16>>,
    pub job_body: Signal<Out, Bits<96>>,
    pub job_timestamp: Signal<Out, Bits<64>>,
    pub cnp_sent: Signal<Out, Bits<32>>,
    pub resume_sent: Signal<Out, Bits<32>>,
    pub suppressed: Signal<Out, Bits<32>>,
    pub rate_limited: Signal<Out, Bits<32>>,
    pub tracker_full: Signal<Out, Bits<32>>,
    pub no_sqp: Signal<Out, Bits<32>>,
    /// Congested packets of flows below the top-contributor share (LH-06).
    pub not_top: Signal<Out, Bits<32>>,
    /// Congested packets of flows whose rate already fell (LH-10).
    pub deferred: Signal<Out, Bits<32>>,
    slot_number: Vec<Constant<Bits<3>>>,
    bit312: Constant<Bits<315>>,
    // Tracker.
    trk_valid: Vec<DFF<Bit>>,
    trk_location: Vec<DFF<Bits<16>>>,
    trk_time: Vec<DFF<Bits<32>>>,
    trk_qd: Vec<DFF<Bits<32>>>,
    trk_row: Vec<DFF<Bits<2>>>,
    trk_ip: Vec<DFF<Bits<128>>>,
    trk_ipv6: Vec<DFF<Bit>>,
    trk_mac: Vec<DFF<Bits<48>>>,
    trk_sqp: Vec<DFF<Bits<24>>>,
    trk_pkey: Vec<DFF<Bits<16>>>,
    trk_kind: Vec<DFF<Bits<2>>>,
    // Job FIFO.
    fifo: Vec<DFF<Bits<315>>>,
    /// The jobs' decision times, beside `fifo`.
    fifo_tod: Vec<DFF<Bits<64>>>,
    fifo_wptr: DFF<Bits<3>>,
    fifo_rptr: DFF<Bits<3>>,
    fifo_count: DFF<Bits<4>>,
    // Token bucket.
    bucket: TokenBucket,
    // Resume timer.
    above_since_us: DFF<Bits<32>>,
    // Counters.
    cnp_count: DFF<Bits<32>>,
    resume_count: DFF<Bits<32>>,
    suppressed_count: DFF<Bits<32>>,
    rate_limited_count: DFF<Bits<32>>,
    tracker_full_count: DFF<Bits<32>>,
    no_sqp_count: DFF<Bits<32>>,
    not_top_count: DFF<Bits<32>>,
    deferred_count: DFF<Bits<32>>,
    // Combinational.
    congested: Signal<Local, Bit>,
    hit: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    tracked: Signal<Local, Bit>,
    tracked_slot: Signal<Local, Bits<3>>,
    hit_row: Signal<Local, Bits<2>>,
    /// Per slot, computed side by side (used slots hold distinct
    /// locations, so at most one matches): the slot holds this packet's
    /// flow; its last notification is at least `interval_us` old; it is
    /// the lowest free slot; it would escalate; this packet's CNP would
    /// write it.
    slot_match: Vec<Signal<Local, Bit>>,
    slot_old: Vec<Signal<Local, Bit>>,
    slot_first_free: Vec<Signal<Local, Bit>>,
    slot_esc: Vec<Signal<Local, Bit>>,
    slot_take: Vec<Signal<Local, Bit>>,
    /// The flow is tracked and was told less than `interval_us` ago.
    recent: Signal<Local, Bit>,
    /// The flow is tracked, QD grew past its last notification's, and that
    /// row is at or above this depth's.
    escalate: Signal<Local, Bit>,
    /// This clock's job is a packet's (else a Resume's).
    packet_job: Signal<Local, Bit>,
    base_row: Signal<Local, Bits<2>>,
    row: Signal<Local, Bits<2>>,
    action: Signal<Local, Bits<32>>,
    can_send: Signal<Local, Bit>,
    send_cnp: Signal<Local, Bit>,
    resume_due: Signal<Local, Bit>,
    send_resume: Signal<Local, Bit>,
    release_resume: Signal<Local, Bit>,
    metric: Signal<Local, Bits<32>>,
    body: Signal<Local, Bits<96>>,
    body_resume: Signal<Local, Bits<96>>,
    resume_ip: Signal<Local, Bits<128>>,
    resume_ipv6: Signal<Local, Bit>,
    resume_mac: Signal<Local, Bits<48>>,
    resume_sqp: Signal<Local, Bits<24>>,
    resume_pkey: Signal<Local, Bits<16>>,
    resume_kind: Signal<Local, Bits<2>>,
    sqp_lanes: Signal<Local, Bits<32>>,
    resume_sqp_lanes: Signal<Local, Bits<32>>,
    metric_lanes: Signal<Local, Bits<32>>,
    param_lanes: Signal<Local, Bits<16>>,
    resume_param_lanes: Signal<Local, Bits<16>>,
    kind: Signal<Local, Bits<2>>,
    job_in: Signal<Local, Bits<315>>,
    job_out: Signal<Local, Bits<315>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
}

impl Logic for LhController {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, bucket);
        dff_setup!(
            self,
            clock,
            fifo_wptr,
            fifo_rptr,
            fifo_count,
            above_since_us,
            cnp_count,
            resume_count,
            suppressed_count,
            rate_limited_count,
            tracker_full_count,
            no_sqp_count,
            not_top_count,
            deferred_count
        );
        for i in 0..TRACKER_SLOTS {
            self.trk_valid[i].clock.next = self.clock.val();
            self.trk_location[i].clock.next = self.clock.val();
            self.trk_time[i].clock.next = self.clock.val();
            self.trk_qd[i].clock.next = self.clock.val();
            self.trk_row[i].clock.next = self.clock.val();
            self.trk_ip[i].clock.next = self.clock.val();
            self.trk_ipv6[i].clock.next = self.clock.val();
            self.trk_mac[i].clock.next = self.clock.val();
            self.trk_sqp[i].clock.next = self.clock.val();
            self.trk_pkey[i].clock.next = self.clock.val();
            self.trk_kind[i].clock.next = self.clock.val();
            self.trk_valid[i].d.next = self.trk_valid[i].q.val();
            self.trk_location[i].d.next = self.trk_location[i].q.val();
            self.trk_time[i].d.next = self.trk_time[i].q.val();
            self.trk_qd[i].d.next = self.trk_qd[i].q.val();
            self.trk_row[i].d.next = self.trk_row[i].q.val();
            self.trk_ip[i].d.next = self.trk_ip[i].q.val();
            self.trk_ipv6[i].d.next = self.trk_ipv6[i].q.val();
            self.trk_mac[i].d.next = self.trk_mac[i].q.val();
            self.trk_sqp[i].d.next = self.trk_sqp[i].q.val();
            self.trk_pkey[i].d.next = self.trk_pkey[i].q.val();
            self.trk_kind[i].d.next = self.trk_kind[i].q.val();
        }
        for i in 0..JOB_FIFO_DEPTH {
            self.fifo[i].clock.next = self.clock.val();
            self.fifo[i].d.next = self.fifo[i].q.val();
            self.fifo_tod[i].clock.next = self.clock.val();
            self.fifo_tod[i].d.next = self.fifo_tod[i].q.val();
        }

        self.congested.next =
            self.enable.val() & ((self.qd.val() > self.k_max.val()) | self.growth_high.val());

        // Tracker look-up (by location), the lowest free slot and the lowest
        // tracked slot (for Resume).
        self.hit.next = false;
        self.free.next = false;
        self.tracked.next = false;
        self.tracked_slot.next = 0.into();
        self.hit_row.next = 0.into();
        self.recent.next = false;
        self.escalate.next = false;
        self.resume_ip.next = 0.into();
        self.resume_ipv6.next = false;
        self.resume_mac.next = 0.into();
        self.resume_sqp.next = 0.into();
        self.resume_pkey.next = 0.into();
        self.resume_kind.next = 0.into();
        // (Only a packet decision or a possible Resume looks: a simulator
        // then skips the loop on other clocks.)
        // Every slot's compares run side by side; the decision below only
        // ORs their one-hot results (no slot multiplexer in front of a
        // subtraction or compare).
        for i in 0..TRACKER_SLOTS {
            self.slot_match[i].next = false;
            self.slot_old[i].next = false;
            self.slot_first_free[i].next = false;
            self.slot_esc[i].next = false;
            self.slot_take[i].next = false;
        }
        if self.res_valid.val() | (self.qd.val() < self.k_min.val()) {
            for i in 0..TRACKER_SLOTS {
                self.slot_match[i].next = self.trk_valid[i].q.val()
                    & (self.trk_location[i].q.val() == self.res_location.val());
                self.slot_old[i].next =
                    (self.now_us.val() - self.trk_time[i].q.val()) >= self.interval_us.val();
                if self.slot_match[i].val() {
                    self.hit.next = true;
                    self.hit_row.next = self.hit_row.val() | self.trk_row[i].q.val();
                    if !self.slot_old[i].val() {
                        self.recent.next = true;
                    }
                }
                if !self.free.val() & !self.trk_valid[i].q.val() {
                    self.free.next = true;
                    self.slot_first_free[i].next = true;
                }
                if !self.tracked.val() & self.trk_valid[i].q.val() & self.slot_old[i].val() {
                    self.tracked.next = true;
                    self.tracked_slot.next = self.slot_number[i].val();
                    self.resume_ip.next = self.trk_ip[i].q.val();
                    self.resume_ipv6.next = self.trk_ipv6[i].q.val();
                    self.resume_mac.next = self.trk_mac[i].q.val();
                    self.resume_sqp.next = self.trk_sqp[i].q.val();
                    self.resume_pkey.next = self.trk_pkey[i].q.val();
                    self.resume_kind.next = self.trk_kind[i].q.val();
                }
            }
        }

        // Severity row, escalated past the flow's last one when QD grew.
        self.base_row.next = 0.into();
        if self.qd.val() > self.sev1_threshold.val() {
            self.base_row.next = 1.into();
        }
        if self.qd.val() > self.sev2_threshold.val() {
            self.base_row.next = 2.into();
        }
        if self.res_valid.val() | (self.qd.val() < self.k_min.val()) {
            for i in 0..TRACKER_SLOTS {
                self.slot_esc[i].next = self.slot_match[i].val()
                    & (self.qd.val() > self.trk_qd[i].q.val())
                    & (self.trk_row[i].q.val() >= self.base_row.val());
                if self.slot_esc[i].val() {
                    self.escalate.next = true;
                }
                // A CNP writes the flow's slot, else the lowest free one.
                self.slot_take[i].next =
                    self.slot_match[i].val() | (!self.hit.val() & self.slot_first_free[i].val());
            }
        }
        self.row.next = self.base_row.val();
        if self.escalate.val() {
            self.row.next = self.hit_row.val() + 1;
            if self.hit_row.val() == 2 {
                self.row.next = 2.into();
            }
        }
        self.action.next = self.sev_action0.val();
        if self.row.val() == 1 {
            self.action.next = self.sev_action1.val();
        }
        if self.row.val() == 2 {
            self.action.next = self.sev_action2.val();
        }

        // The decision for this packet.
        self.can_send.next = (self.bucket.tokens.val() != 0) & (self.fifo_count.q.val() != 8);
        self.send_cnp.next = false;
        if self.res_valid.val() & self.congested.val() {
            if !self.res_sqp_valid.val() {
                self.no_sqp_count.d.next = self.no_sqp_count.q.val() + 1;
            } else if !self.res_top.val() {
                self.not_top_count.d.next = self.not_top_count.q.val() + 1;
            } else if self.defer.val() & self.res_fell.val() {
                self.deferred_count.d.next = self.deferred_count.q.val() + 1;
            } else if self.recent.val() {
                self.suppressed_count.d.next = self.suppressed_count.q.val() + 1;
            } else if !self.hit.val() & !self.free.val() {
                self.tracker_full_count.d.next = self.tracker_full_count.q.val() + 1;
            } else if !self.can_send.val() {
                self.rate_limited_count.d.next = self.rate_limited_count.q.val() + 1;
            } else {
                self.send_cnp.next = true;
                if !self.res_proxy.val() {
                    self.cnp_count.d.next = self.cnp_count.q.val() + 1;
                }
            }
        }

        // Resume: QD below K_min for RTT_est.
        if !self.enable.val() | (self.qd.val() >= self.k_min.val()) {
            self.above_since_us.d.next = self.now_us.val();
        }
        self.resume_due.next = self.enable.val()
            & (self.qd.val() < self.k_min.val())
            & ((self.now_us.val() - self.above_since_us.q.val()) >= self.rtt_us.val());
        self.send_resume.next = self.resume_due.val()
            & self.tracked.val()
            & (self.resume_kind.val() != 0)
            & self.can_send.val()
            & !(self.res_valid.val() & self.congested.val());
        // A flow told with a standard CNP leaves without a frame.
        self.release_resume.next = self.resume_due.val()
            & self.tracked.val()
            & (self.resume_kind.val() == 0)
            & !(self.res_valid.val() & self.congested.val());
        if self.send_resume.val() {
            self.resume_count.d.next = self.resume_count.q.val() + 1;
        }

        // LH-15: the kind of this packet's notification.
        self.kind.next = 0.into();
        if self.res_valid.val() {
            if self.res_ipv6.val() {
                self.kind.next = 2.into();
            }
            if (self.res_ipv6.val() & self.ipv6_longhaul.val())
                | (!self.res_ipv6.val() & self.ipv4_longhaul.val())
            {
                self.kind.next = 1.into();
            }
            if self.res_fmt_hit.val() {
                self.kind.next = self.res_fmt.val();
                if !self.res_ipv6.val() & (self.res_fmt.val() == 2) {
                    self.kind.next = 0.into();
                }
            }
            if self.res_proxy.val() {
                self.kind.next = 0.into();
            }
        }
        self.px_go.next = self.send_cnp.val() & self.res_proxy.val();
        self.px_level.next = self.action.val().get_bits::<3>(24);
        if self.action.val().get_bits::<8>(24) > 7 {
            self.px_level.next = 7.into();
        }

        // Tracker update (only when something is sent or released: a
        // simulator then skips the loop on other clocks).
        if self.send_cnp.val() | self.send_resume.val() | self.release_resume.val() {
            for i in 0..TRACKER_SLOTS {
                if self.send_cnp.val() & self.slot_take[i].val() {
                    self.trk_valid[i].d.next = true;
                    self.trk_location[i].d.next = self.res_location.val();
                    self.trk_time[i].d.next = self.now_us.val();
                    self.trk_qd[i].d.next = self.qd.val();
                    self.trk_row[i].d.next = self.row.val();
                    self.trk_ip[i].d.next = self.res_src_ip.val();
                    self.trk_ipv6[i].d.next = self.res_ipv6.val();
                    self.trk_mac[i].d.next = self.res_src_mac.val();
                    self.trk_sqp[i].d.next = self.res_sqp.val();
                    self.trk_pkey[i].d.next = self.res_pkey.val();
                    self.trk_kind[i].d.next = self.kind.val();
                }
                if (self.send_resume.val() | self.release_resume.val())
                    & (self.tracked_slot.val().index() == i)
                {
                    self.trk_valid[i].d.next = false;
                }
            }
        }

        self.push.next = (self.send_cnp.val() & !self.res_proxy.val()) | self.send_resume.val();
        self.metric.next = 0.into();
        self.metric_lanes.next = 0.into();
        self.sqp_lanes.next = 0.into();
        self.resume_sqp_lanes.next = 0.into();
        self.param_lanes.next = 0.into();
        self.resume_param_lanes.next = 0.into();
        self.body.next = 0.into();
        self.body_resume.next = 0.into();
        self.job_in.next = 0.into();
        // The job is composed from the packet (or the Resume) whether or not
        // it is pushed, so the decision reaches only the FIFO's pointers, not
        // its 379-bit entries. (Only on a congested packet or a possible
        // Resume: a simulator skips it on other clocks.)
        self.packet_job.next = self.res_valid.val() & self.congested.val();
        if self.packet_job.val() | self.resume_due.val() {
            // Bodies in wire order (narrow results in their own width).
            self.metric.next = bit_cast::<32, 24>(self.qd_kb.val()) | bits::<32>(0x0100_0000);
            if self.hide_metric.val() {
                self.metric.next = 0.into();
            }
            self.metric_lanes.next = (self.metric.val() >> 24)
                | ((self.metric.val() >> 8) & 0xFF00)
                | ((self.metric.val() << 8) & 0xFF_0000)
                | (self.metric.val() << 24);
            self.sqp_lanes.next = ((bit_cast::<32, 24>(self.res_sqp.val()) >> 8) & 0xFF00)
                | ((bit_cast::<32, 24>(self.res_sqp.val()) << 8) & 0xFF_0000)
                | (bit_cast::<32, 24>(self.res_sqp.val()) << 24);
            self.resume_sqp_lanes.next = ((bit_cast::<32, 24>(self.resume_sqp.val()) >> 8)
                & 0xFF00)
                | ((bit_cast::<32, 24>(self.resume_sqp.val()) << 8) & 0xFF_0000)
                | (bit_cast::<32, 24>(self.resume_sqp.val()) << 24);
            self.param_lanes.next = (self.action.val().get_bits::<16>(0) >> 8)
                | (self.action.val().get_bits::<16>(0) << 8);
            self.resume_param_lanes.next = (self.resume_action.val().get_bits::<16>(0) >> 8)
                | (self.resume_action.val().get_bits::<16>(0) << 8);
            self.body.next = bit_cast::<96, 8>(self.action.val().get_bits::<8>(24))
                | (bit_cast::<96, 2>(self.action.val().get_bits::<2>(22)) << 14)
                | (bit_cast::<96, 16>(self.param_lanes.val()) << 16)
                | (bit_cast::<96, 32>(self.sqp_lanes.val()) << 32)
                | (bit_cast::<96, 32>(self.metric_lanes.val()) << 64);
            self.body_resume.next = bit_cast::<96, 8>(self.resume_action.val().get_bits::<8>(24))
                | (bit_cast::<96, 2>(self.resume_action.val().get_bits::<2>(22)) << 14)
                | (bit_cast::<96, 16>(self.resume_param_lanes.val()) << 16)
                | (bit_cast::<96, 32>(self.resume_sqp_lanes.val()) << 32)
                | (bit_cast::<96, 32>(self.metric_lanes.val()) << 64);

            // Job packing: ip [127:0], mac [175:128], dqp [199:176],
            // pkey [215:200], body [311:216], ipv6 [312], kind [314:313].
            self.job_in.next = bit_cast::<315, 128>(self.res_src_ip.val())
                | (bit_cast::<315, 48>(self.res_src_mac.val()) << 128)
                | (bit_cast::<315, 24>(self.res_sqp.val()) << 176)
                | (bit_cast::<315, 16>(self.res_pkey.val()) << 200)
                | (bit_cast::<315, 96>(self.body.val()) << 216)
                | (bit_cast::<315, 2>(self.kind.val()) << 313);
            if self.res_ipv6.val() {
                self.job_in.next = self.job_in.val() | self.bit312.val();
            }
            if !self.packet_job.val() {
                self.job_in.next = bit_cast::<315, 128>(self.resume_ip.val())
                    | (bit_cast::<315, 48>(self.resume_mac.val()) << 128)
                    | (bit_cast::<315, 24>(self.resume_sqp.val()) << 176)
                    | (bit_cast::<315, 16>(self.resume_pkey.val()) << 200)
                    | (bit_cast::<315, 96>(self.body_resume.val()) << 216)
                    | (bit_cast::<315, 2>(self.resume_kind.val()) << 313);
                if self.resume_ipv6.val() {
                    self.job_in.next = self.job_in.val() | self.bit312.val();
                }
            }
        }

        // FIFO.
        self.job_out.next = 0.into();
        self.job_timestamp.next = 0.into();
        if self.fifo_count.q.val() != 0 {
            for i in 0..JOB_FIFO_DEPTH {
                if self.fifo_rptr.q.val().index() == i {
                    self.job_out.next = self.fifo[i].q.val();
                    self.job_timestamp.next = self.fifo_tod[i].q.val();
                }
            }
        }
        // The free entry at the write pointer takes this clock's job every
        // clock (a push only moves the pointer); a full FIFO's is the oldest.
        if self.fifo_count.q.val() != 8 {
            for i in 0..JOB_FIFO_DEPTH {
                if self.fifo_wptr.q.val().index() == i {
                    self.fifo[i].d.next = self.job_in.val();
                    self.fifo_tod[i].d.next = self.tod.val();
                }
            }
        }
        self.job_valid.next = self.fifo_count.q.val() != 0;
        self.pop.next = self.job_ready.val() & (self.fifo_count.q.val() != 0);
        self.job_dst_ip.next = self.job_out.val().get_bits::<128>(0);
        self.job_dst_mac.next = self.job_out.val().get_bits::<48>(128);
        self.job_dqp.next = self.job_out.val().get_bits::<24>(176);
        self.job_pkey.next = self.job_out.val().get_bits::<16>(200);
        self.job_body.next = self.job_out.val().get_bits::<96>(216);
        self.job_ipv6.next = self.job_out.val().get_bit(312);
        self.job_kind.next = self.job_out.val().get_bits::<2>(313);
        if self.push.val() {
            self.fifo_wptr.d.next = self.fifo_wptr.q.val() + 1;
        }
        if self.pop.val() {
            self.fifo_rptr.d.next = self.fifo_rptr.q.val() + 1;
        }
        if self.push.val() & !self.pop.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() + 1;
        }
        if !self.push.val() & self.pop.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() - 1;
        }

        // Token bucket. The refill counter runs only while the bucket is
        // not full, so a token comes back `refill_clocks` after it was
        // taken from a full bucket, whatever the counter did before.
        self.bucket.reset.next = self.reset.val();
        self.bucket.refill_clocks.next = self.refill_clocks.val();
        self.bucket.depth.next = self.bucket_depth.val();
        // A decision handed to the CN generator (PX-01) takes its token
        // like one sent directly.
        self.bucket.take.next = self.push.val() | self.px_go.val();

        self.cnp_sent.next = self.cnp_count.q.val();
        self.resume_sent.next = self.resume_count.q.val();
        self.suppressed.next = self.suppressed_count.q.val();
        self.rate_limited.next = self.rate_limited_count.q.val();
        self.tracker_full.next = self.tracker_full_count.q.val();
        self.no_sqp.next = self.no_sqp_count.q.val();
        self.not_top.next = self.not_top_count.q.val();
        self.deferred.next = self.deferred_count.q.val();
        if self.clear_counters.val() | self.reset.val() {
            self.cnp_count.d.next = 0.into();
            self.resume_count.d.next = 0.into();
            self.suppressed_count.d.next = 0.into();
            self.rate_limited_count.d.next = 0.into();
            self.tracker_full_count.d.next = 0.into();
            self.no_sqp_count.d.next = 0.into();
            self.not_top_count.d.next = 0.into();
            self.deferred_count.d.next = 0.into();
        }
        if self.reset.val() {
            for i in 0..TRACKER_SLOTS {
                self.trk_valid[i].d.next = false;
            }
            self.fifo_wptr.d.next = 0.into();
            self.fifo_rptr.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
            self.above_since_us.d.next = self.now_us.val();
        }
    }
}

impl Default for LhController {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            growth_high: Default::default(),
            now_us: Default::default(),
            qd: Default::default(),
            qd_kb: Default::default(),
            k_min: Default::default(),
            k_max: Default::default(),
            sev1_threshold: Default::default(),
            sev2_threshold: Default::default(),
            sev_action0: Default::default(),
            sev_action1: Default::default(),
            sev_action2: Default::default(),
            resume_action: Default::default(),
            interval_us: Default::default(),
            rtt_us: Default::default(),
            refill_clocks: Default::default(),
            bucket_depth: Default::default(),
            hide_metric: Default::default(),
            ipv4_longhaul: Default::default(),
            ipv6_longhaul: Default::default(),
            clear_counters: Default::default(),
            res_valid: Default::default(),
            res_top: Default::default(),
            res_fell: Default::default(),
            defer: Default::default(),
            res_sqp_valid: Default::default(),
            res_sqp: Default::default(),
            res_location: Default::default(),
            res_src_ip: Default::default(),
            res_ipv6: Default::default(),
            res_src_mac: Default::default(),
            res_pkey: Default::default(),
            res_fmt_hit: Default::default(),
            res_fmt: Default::default(),
            res_proxy: Default::default(),
            px_go: Default::default(),
            px_level: Default::default(),
            tod: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_kind: Default::default(),
            job_ipv6: Default::default(),
            job_dst_mac: Default::default(),
            job_dst_ip: Default::default(),
            job_dqp: Default::default(),
            job_pkey: Default::default(),
            job_body: Default::default(),
            job_timestamp: Default::default(),
            cnp_sent: Default::default(),
            resume_sent: Default::default(),
            suppressed: Default::default(),
            rate_limited: Default::default(),
            tracker_full: Default::default(),
            no_sqp: Default::default(),
            not_top: Default::default(),
            deferred: Default::default(),
            slot_number: (0..TRACKER_SLOTS as u64)
                .map(|i| Constant::new(i.to_bits()))
                .collect(),
            bit312: Constant::new(bit_cast::<315, 1>(bits::<1>(1)) << 312),
            trk_valid: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_location: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_time: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_qd: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_row: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_ip: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_ipv6: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_mac: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_sqp: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_pkey: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            trk_kind: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            fifo: (0..JOB_FIFO_DEPTH).map(|_| Default::default()).collect(),
            fifo_tod: (0..JOB_FIFO_DEPTH).map(|_| Default::default()).collect(),
            fifo_wptr: Default::default(),
            fifo_rptr: Default::default(),
            fifo_count: Default::default(),
            bucket: Default::default(),
            above_since_us: Default::default(),
            cnp_count: Default::default(),
            resume_count: Default::default(),
            suppressed_count: Default::default(),
            rate_limited_count: Default::default(),
            tracker_full_count: Default::default(),
            no_sqp_count: Default::default(),
            not_top_count: Default::default(),
            deferred_count: Default::default(),
            congested: Default::default(),
            hit: Default::default(),
            free: Default::default(),
            tracked: Default::default(),
            tracked_slot: Default::default(),
            hit_row: Default::default(),
            base_row: Default::default(),
            row: Default::default(),
            action: Default::default(),
            can_send: Default::default(),
            send_cnp: Default::default(),
            slot_match: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            slot_old: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            slot_first_free: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            slot_esc: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            slot_take: (0..TRACKER_SLOTS).map(|_| Default::default()).collect(),
            recent: Default::default(),
            escalate: Default::default(),
            packet_job: Default::default(),
            resume_due: Default::default(),
            send_resume: Default::default(),
            release_resume: Default::default(),
            metric: Default::default(),
            body: Default::default(),
            body_resume: Default::default(),
            resume_ip: Default::default(),
            resume_ipv6: Default::default(),
            resume_mac: Default::default(),
            resume_sqp: Default::default(),
            resume_pkey: Default::default(),
            resume_kind: Default::default(),
            sqp_lanes: Default::default(),
            resume_sqp_lanes: Default::default(),
            metric_lanes: Default::default(),
            param_lanes: Default::default(),
            resume_param_lanes: Default::default(),
            kind: Default::default(),
            job_in: Default::default(),
            job_out: Default::default(),
            push: Default::default(),
            pop: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_lh_controller_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<LhController>("lh_controller");
    }
}
