//! The event loop of a scenario run (see the module docs of
//! [`crate::scenario`] for the topology, the modes and the metrics).

use super::config::{Marking, Mode, Position, Scenario};
use super::dcqcn::ReactionPoint;
use super::node::{LoopGateway, LoopNotification, ModelLoop};
use crate::source_nic::{NotificationKind, QpBinding, Received, SourceNic, SourceNicConfig};
use cngw_packet::bth::opcode;
use cngw_packet::longhaul::Action;
use cngw_packet::parsed::{classify, FrameClass};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, flow_command, lh_option, offset};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::net::Ipv4Addr;

/// One row of the time series, taken every `sample_interval_us`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub t_ns: u64,
    /// Bytes in the congested queue.
    pub queue_bytes: u64,
    /// Each sender's rate, Gb/s: its DCQCN current rate, and in the
    /// `smartnic` mode the lower of that and its SmartNIC's rate (0 while
    /// paused).
    pub rates_gbps: Vec<f64>,
    /// Receiver CNPs that reached a sender since the previous sample.
    pub cnp_arrivals: u32,
    /// Gateway notifications (Long-haul CNPs, Resumes) that reached a
    /// sender since the previous sample.
    pub lh_arrivals: u32,
    /// Packets dropped at the queue so far.
    pub drops: u64,
}

/// What a run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub mode: Mode,
    /// Congestion onset: the queue first held more than `onset_bytes`.
    pub onset_ns: Option<u64>,
    /// The first time any sender's rate was cut, and which sender.
    pub first_cut_ns: Option<u64>,
    pub first_cut_sender: Option<usize>,
    pub peak_queue_bytes: u64,
    /// Packets (and bytes) that did not fit in the buffer.
    pub drops: u64,
    pub dropped_bytes: u64,
    /// Bytes that left the congested port over its rate times the time
    /// from the first arrival to the end.
    pub wan_utilisation: f64,
    /// Jain's fairness index of the senders' delivered throughput (each
    /// over its own sending time).
    pub jain: f64,
    /// CNPs the receivers sent.
    pub cnps_sent: u64,
    /// Notifications the gateway sent (Long-haul CNPs and Resumes).
    pub notifications: u64,
    /// Resumes applied by SmartNICs.
    pub resumes: u64,
    /// Bytes delivered to each receiver.
    pub delivered_bytes: Vec<u64>,
}

impl Summary {
    /// From congestion onset to the first rate cut (0 if the cut came
    /// first; `None` without onset or cut).
    pub fn time_to_first_cut_ns(&self) -> Option<u64> {
        Some(self.first_cut_ns?.saturating_sub(self.onset_ns?))
    }
}

/// A run: its summary and time series.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub summary: Summary,
    pub samples: Vec<Sample>,
    /// Every notification the gateway sent on dc_tx, in order, with its
    /// scenario clock (what the RTL-versus-model cross-check compares).
    pub notifications: Vec<LoopNotification>,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Sender `s` sends a packet (if `gen` is still its transmit generation).
    Tx {
        s: usize,
        gen: u64,
    },
    /// A packet of sender `s` reaches the queue.
    Arrive {
        s: usize,
    },
    /// It leaves the queue.
    Depart {
        s: usize,
        ce: bool,
    },
    /// It reaches its receiver.
    Deliver {
        s: usize,
        ce: bool,
    },
    /// A receiver's CNP reaches sender `s`.
    Cnp {
        s: usize,
    },
    /// Gateway notification `note` reaches sender `s`.
    Notify {
        s: usize,
        note: usize,
    },
    AlphaTimer {
        s: usize,
        gen: u64,
    },
    IncreaseTimer {
        s: usize,
        gen: u64,
    },
    /// The queue depth reaches the gateway's telemetry input.
    Telemetry,
    Sample,
}

struct Item {
    t: u64,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Item {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    // Earliest first out of the max-heap; equal times in scheduling order.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

struct SenderState {
    rp: ReactionPoint,
    nic: Option<SourceNic>,
    ip: Ipv4Addr,
    qp: u32,
    tx_gen: u64,
    timer_gen: u64,
    /// The (unrounded) time of the last and of the next transmission, ns.
    last_tx: Option<f64>,
    next_tx: f64,
    start: u64,
    stop: u64,
    /// The receiver's last CNP for this flow (the notification point).
    np_last_cnp: Option<u64>,
    delivered: u64,
}

struct Sim<'a> {
    scn: &'a Scenario,
    now: u64,
    end: u64,
    seq: u64,
    heap: BinaryHeap<Item>,
    senders: Vec<SenderState>,
    mtu: u64,
    to_queue: u64,
    to_receiver: u64,
    cnp_delay: u64,
    notify_delay: u64,
    // The queue.
    depth: u64,
    free_at: f64,
    /// The port's rate in bits per nanosecond (Gb/s).
    rate: f64,
    k_min: f64,
    k_max: f64,
    rng: u64,
    first_arrival: Option<u64>,
    dequeued: u64,
    // The gateway.
    gw: Option<Box<dyn LoopGateway + 'a>>,
    sent_notes: Vec<LoopNotification>,
    clocks_per_us: u64,
    frames: Vec<Vec<u8>>,
    notes: Vec<Option<Vec<u8>>>,
    // Results.
    summary: Summary,
    samples: Vec<Sample>,
    cnp_since: u32,
    lh_since: u32,
}

const US: f64 = 1_000.0;

/// Runs `scn` in `mode` with the gateway's reference model in the loop;
/// `progress(now, end)` is called at every sample.
pub fn run(
    scn: &Scenario,
    mode: Mode,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunResult, String> {
    run_with(scn, mode, Box::new(ModelLoop::new()), progress)
}

/// Runs `scn` in `mode` with `gateway` in the loop (fresh, unconfigured:
/// the run configures it; the baseline mode leaves it alone).
pub fn run_with<'a>(
    scn: &'a Scenario,
    mode: Mode,
    gateway: Box<dyn LoopGateway + 'a>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunResult, String> {
    scn.validate()?;
    let mut sim = Sim::new(scn, mode, gateway)?;
    sim.run(progress);
    Ok(sim.finish())
}

/// IPv4 address as the flow-table registers hold it (`::ffff:a.b.c.d`),
/// most significant word first.
fn mapped_words(a: Ipv4Addr) -> [u32; 4] {
    [0, 0, 0xFFFF, u32::from(a)]
}

impl<'a> Sim<'a> {
    fn new(
        scn: &'a Scenario,
        mode: Mode,
        mut gateway: Box<dyn LoopGateway + 'a>,
    ) -> Result<Self, String> {
        let position = if mode == Mode::NearSource {
            Position::Near
        } else {
            scn.bottleneck.position
        };
        let dc_half = (scn.path.dc_rtt_us * US / 2.0).round() as u64;
        let wan_half = (scn.path.wan_rtt_ms * 1e6 / 2.0).round() as u64;
        let (to_queue, to_receiver, notify_delay) = match position {
            Position::Near => (dc_half, wan_half + dc_half, dc_half),
            Position::Far => (dc_half + wan_half, dc_half, wan_half + dc_half),
        };
        let mtu = scn.path.mtu_bytes as u64;
        let gw_ip = scn.gateway.address.unwrap_or(Ipv4Addr::new(10, 0, 9, 1));
        let rtt_est_ns = scn.rtt_est_us() as u64 * 1_000;
        let mut senders = Vec::new();
        let mut frames = Vec::new();
        for spec in &scn.senders {
            let builder = RoceFrameBuilder::ipv4(spec.ip, spec.receiver_ip)
                .ecn(Ecn::Ect0)
                .opcode(opcode::RC_RDMA_WRITE_MIDDLE)
                .dest_qp(spec.receiver_qp);
            let headers = builder.clone().payload_len(0).build().len();
            frames.push(
                builder
                    .payload_len((mtu as usize).saturating_sub(headers))
                    .build(),
            );
            let nic = if mode == Mode::Smartnic {
                let mut c = SourceNicConfig::new(
                    rtt_est_ns,
                    vec![gw_ip.into()],
                    vec![QpBinding {
                        local_qp: spec.qp,
                        remote: spec.receiver_ip.into(),
                        remote_qp: spec.receiver_qp,
                    }],
                );
                let p = &scn.smartnic;
                c.line_rate_mbps = (spec.line_rate_gbps * 1000.0).round() as u32;
                c.min_rate_mbps = p.min_rate_mbps.unwrap_or(c.min_rate_mbps);
                c.notify_cut_shift = p.notify_cut_shift.unwrap_or(c.notify_cut_shift);
                if let Some(v) = p.recovery_interval_us {
                    c.recovery_interval_ns = v * 1_000;
                }
                c.ai_step_mbps = p.ai_step_mbps.unwrap_or(c.ai_step_mbps);
                if let Some(v) = p.ai_period_us {
                    c.ai_period_ns = v * 1_000;
                }
                c.resume_cap_mbps = p.resume_cap_mbps.unwrap_or(c.resume_cap_mbps);
                c.burst_bytes = p.burst_bytes.unwrap_or(c.burst_bytes.max(2 * mtu as u32));
                Some(SourceNic::new(c).map_err(|e| format!("smartnic: {e}"))?)
            } else {
                None
            };
            let start = (spec.start_us * US).round() as u64;
            senders.push(SenderState {
                rp: ReactionPoint::new(&scn.dcqcn, spec.line_rate_gbps),
                nic,
                ip: spec.ip,
                qp: spec.qp,
                tx_gen: 0,
                timer_gen: 0,
                last_tx: None,
                next_tx: start as f64,
                start,
                stop: spec.stop_us.map_or(u64::MAX, |v| (v * US).round() as u64),
                np_last_cnp: None,
                delivered: 0,
            });
        }
        let mut gw = if mode.gateway() {
            configure(gateway.as_mut(), scn, mode, gw_ip)?;
            Some(gateway)
        } else {
            None
        };
        let clocks_per_us = match gw {
            Some(ref mut g) => g.read_register(offset::CLOCKS_PER_US)?,
            None => 322,
        }
        .max(1) as u64;
        let n = senders.len();
        Ok(Sim {
            scn,
            now: 0,
            end: (scn.duration_ms * 1e6).round() as u64,
            seq: 0,
            heap: BinaryHeap::new(),
            senders,
            mtu,
            to_queue,
            to_receiver,
            cnp_delay: wan_half + 2 * dc_half,
            notify_delay,
            depth: 0,
            free_at: 0.0,
            rate: scn.path.wan_rate_gbps,
            k_min: scn.k_min_bytes() as f64,
            k_max: scn.k_max_bytes() as f64,
            rng: scn.seed.max(1),
            first_arrival: None,
            dequeued: 0,
            gw,
            sent_notes: Vec::new(),
            clocks_per_us,
            frames,
            notes: Vec::new(),
            summary: Summary {
                mode,
                onset_ns: None,
                first_cut_ns: None,
                first_cut_sender: None,
                peak_queue_bytes: 0,
                drops: 0,
                dropped_bytes: 0,
                wan_utilisation: 0.0,
                jain: 0.0,
                cnps_sent: 0,
                notifications: 0,
                resumes: 0,
                delivered_bytes: vec![0; n],
            },
            samples: Vec::new(),
            cnp_since: 0,
            lh_since: 0,
        })
    }

    fn at(&mut self, t: u64, ev: Ev) {
        if t <= self.end {
            self.seq += 1;
            self.heap.push(Item {
                t,
                seq: self.seq,
                ev,
            });
        }
    }

    fn run(&mut self, progress: &mut dyn FnMut(u64, u64)) {
        for s in 0..self.senders.len() {
            let start = self.senders[s].start;
            self.at(start, Ev::Tx { s, gen: 0 });
            self.restart_timers(s, start);
        }
        if self.gw.is_some() {
            self.at(0, Ev::Telemetry);
        }
        self.at(0, Ev::Sample);
        while let Some(Item { t, ev, .. }) = self.heap.pop() {
            self.now = t;
            if let Some(gw) = self.gw.as_mut() {
                gw.advance_to(t * self.clocks_per_us / 1_000);
                self.take_notifications();
            }
            match ev {
                Ev::Tx { s, gen } => self.tx(s, gen),
                Ev::Arrive { s } => self.arrive(s),
                Ev::Depart { s, ce } => self.depart(s, ce),
                Ev::Deliver { s, ce } => self.deliver(s, ce),
                Ev::Cnp { s } => {
                    self.cnp_since += 1;
                    self.cut(s);
                }
                Ev::Notify { s, note } => self.notify(s, note),
                Ev::AlphaTimer { s, gen } => {
                    if gen == self.senders[s].timer_gen {
                        self.senders[s].rp.alpha_timer();
                        let p = (self.scn.dcqcn.alpha_timer_us * US).round() as u64;
                        self.at(t + p.max(1), Ev::AlphaTimer { s, gen });
                    }
                }
                Ev::IncreaseTimer { s, gen } => {
                    if gen == self.senders[s].timer_gen {
                        let before = self.senders[s].rp.current;
                        self.senders[s].rp.increase_timer();
                        if self.senders[s].rp.current != before {
                            self.reschedule(s);
                        }
                        let p = (self.scn.dcqcn.rate_increase_timer_us * US).round() as u64;
                        self.at(t + p.max(1), Ev::IncreaseTimer { s, gen });
                    }
                }
                Ev::Telemetry => {
                    let depth = self.depth.min(u32::MAX as u64) as u32;
                    let clock = self.clock(t);
                    if let Some(gw) = self.gw.as_mut() {
                        gw.set_queue_depth(depth, clock);
                    }
                    let p = self.scn.telemetry_interval_us() as u64 * 1_000;
                    self.at(t + p, Ev::Telemetry);
                }
                Ev::Sample => {
                    self.sample();
                    progress(t, self.end);
                    let p = ((self.scn.sample_interval_us * US).round() as u64).max(1);
                    self.at(t + p, Ev::Sample);
                }
            }
        }
    }

    fn clock(&self, ns: u64) -> u64 {
        ns * self.clocks_per_us / 1_000
    }

    fn restart_timers(&mut self, s: usize, t: u64) {
        self.senders[s].timer_gen += 1;
        let gen = self.senders[s].timer_gen;
        let d = &self.scn.dcqcn;
        let a = ((d.alpha_timer_us * US).round() as u64).max(1);
        let r = ((d.rate_increase_timer_us * US).round() as u64).max(1);
        self.at(t + a, Ev::AlphaTimer { s, gen });
        self.at(t + r, Ev::IncreaseTimer { s, gen });
    }

    /// The packet gap at the sender's current DCQCN rate, ns.
    fn gap(&self, s: usize) -> f64 {
        self.mtu as f64 * 8.0 / self.senders[s].rp.current
    }

    /// The rate changed: the next transmission is one gap at the new rate
    /// after the last one (not before now).
    fn reschedule(&mut self, s: usize) {
        let now = self.now;
        let gap = self.gap(s);
        let st = &mut self.senders[s];
        if now < st.start || now >= st.stop {
            return;
        }
        let Some(last) = st.last_tx else { return };
        st.tx_gen += 1;
        st.next_tx = (last + gap).max(now as f64);
        let (t, gen) = (st.next_tx.ceil() as u64, st.tx_gen);
        self.at(t, Ev::Tx { s, gen });
    }

    fn tx(&mut self, s: usize, gen: u64) {
        let now = self.now;
        if gen != self.senders[s].tx_gen || now >= self.senders[s].stop {
            return;
        }
        let intended = self.senders[s].next_tx.max(self.senders[s].start as f64);
        let mtu = self.mtu;
        let departs = match self.senders[s].nic.as_mut() {
            Some(nic) => nic.send(&self.frames[s], now),
            None => now,
        };
        self.at(departs + self.to_queue, Ev::Arrive { s });
        self.senders[s].rp.sent(mtu);
        let gap = self.gap(s);
        let st = &mut self.senders[s];
        st.last_tx = Some(intended);
        st.next_tx = (intended + gap).max(departs as f64);
        let t = st.next_tx.ceil() as u64;
        self.at(t, Ev::Tx { s, gen });
    }

    fn draw(&mut self) -> f64 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// RED-like marking at `depth` bytes.
    fn mark(&mut self, depth: u64) -> bool {
        let d = depth as f64;
        if d <= self.k_min {
            return false;
        }
        if d >= self.k_max {
            return true;
        }
        let p = self.scn.bottleneck.p_max * (d - self.k_min) / (self.k_max - self.k_min);
        self.draw() < p
    }

    fn arrive(&mut self, s: usize) {
        let now = self.now;
        self.first_arrival.get_or_insert(now);
        let clock = self.clock(now);
        if let Some(gw) = self.gw.as_mut() {
            gw.receive(&self.frames[s], clock);
        }
        let mtu = self.mtu;
        if self.depth + mtu > self.scn.bottleneck.buffer_bytes {
            self.summary.drops += 1;
            self.summary.dropped_bytes += mtu;
            return;
        }
        let ce = self.scn.bottleneck.marking == Marking::Enqueue && self.mark(self.depth);
        self.depth += mtu;
        self.summary.peak_queue_bytes = self.summary.peak_queue_bytes.max(self.depth);
        if self.summary.onset_ns.is_none() && self.depth > self.scn.bottleneck.onset_bytes {
            self.summary.onset_ns = Some(now);
        }
        let departs = self.free_at.max(now as f64) + mtu as f64 * 8.0 / self.rate;
        self.free_at = departs;
        self.at(departs.ceil() as u64, Ev::Depart { s, ce });
    }

    fn depart(&mut self, s: usize, ce: bool) {
        let ce = ce || (self.scn.bottleneck.marking == Marking::Dequeue && self.mark(self.depth));
        self.depth -= self.mtu;
        self.dequeued += self.mtu;
        self.at(self.now + self.to_receiver, Ev::Deliver { s, ce });
    }

    fn deliver(&mut self, s: usize, ce: bool) {
        let now = self.now;
        self.senders[s].delivered += self.mtu;
        if !ce {
            return;
        }
        let interval = (self.scn.dcqcn.cnp_interval_us * US).round() as u64;
        let st = &mut self.senders[s];
        if st.np_last_cnp.is_some_and(|l| now - l < interval) {
            return;
        }
        st.np_last_cnp = Some(now);
        self.summary.cnps_sent += 1;
        self.at(now + self.cnp_delay, Ev::Cnp { s });
    }

    fn first_cut(&mut self, s: usize) {
        if self.summary.first_cut_ns.is_none() {
            self.summary.first_cut_ns = Some(self.now);
            self.summary.first_cut_sender = Some(s);
        }
    }

    /// The sender's DCQCN takes a CNP.
    fn cut(&mut self, s: usize) {
        if self.now < self.senders[s].start {
            return;
        }
        self.senders[s].rp.cnp();
        self.first_cut(s);
        self.restart_timers(s, self.now);
        self.reschedule(s);
    }

    /// The gateway's notifications so far, sent on their way.
    fn take_notifications(&mut self) {
        let Some(gw) = self.gw.as_mut() else { return };
        let left = gw.take_notifications();
        for n in left {
            self.sent_notes.push(n.clone());
            let p = classify(&n.frame);
            let dst = Ipv4Addr::new(p.dst_ip[12], p.dst_ip[13], p.dst_ip[14], p.dst_ip[15]);
            let target = self
                .senders
                .iter()
                .position(|st| st.ip == dst && (p.class != FrameClass::Roce || st.qp == p.dest_qp));
            let Some(s) = target else { continue };
            let sent = (n.clock * 1_000).div_ceil(self.clocks_per_us).max(self.now);
            self.summary.notifications += 1;
            self.notes.push(Some(n.frame));
            let note = self.notes.len() - 1;
            self.at(sent + self.notify_delay, Ev::Notify { s, note });
        }
    }

    fn notify(&mut self, s: usize, note: usize) {
        self.lh_since += 1;
        let Some(frame) = self.notes[note].take() else {
            return;
        };
        let now = self.now;
        match self.senders[s].nic.as_mut() {
            Some(nic) => match nic.receive(&frame, now) {
                Received::Applied {
                    kind: NotificationKind::Longhaul { action, .. },
                    ..
                } => match action {
                    Action::Resume => self.summary.resumes += 1,
                    _ => self.first_cut(s),
                },
                Received::Applied { .. } => self.first_cut(s),
                // A standard CNP passes to the RNIC.
                Received::ToRnic => self.legacy(s, &frame),
                Received::Dropped(_) => {}
            },
            None => self.legacy(s, &frame),
        }
    }

    /// A legacy RNIC: any BTH opcode 0x81 to its QP is a CNP (the E bit is
    /// not looked at).
    fn legacy(&mut self, s: usize, frame: &[u8]) {
        let p = classify(frame);
        if p.class == FrameClass::Roce && p.opcode == opcode::CNP && p.dest_qp == self.senders[s].qp
        {
            self.cut(s);
        }
    }

    fn rate_of(&mut self, s: usize) -> f64 {
        let now = self.now;
        let st = &mut self.senders[s];
        if now < st.start || now >= st.stop {
            return 0.0;
        }
        let mut r = st.rp.current;
        if let Some(nic) = st.nic.as_mut() {
            if nic.paused(st.qp, now) == Some(true) {
                return 0.0;
            }
            if let Some(m) = nic.rate_mbps(st.qp, now) {
                r = r.min(m as f64 / 1000.0);
            }
        }
        r
    }

    fn sample(&mut self) {
        let rates = (0..self.senders.len()).map(|s| self.rate_of(s)).collect();
        self.samples.push(Sample {
            t_ns: self.now,
            queue_bytes: self.depth,
            rates_gbps: rates,
            cnp_arrivals: std::mem::take(&mut self.cnp_since),
            lh_arrivals: std::mem::take(&mut self.lh_since),
            drops: self.summary.drops,
        });
    }

    fn finish(mut self) -> RunResult {
        let end = self.end;
        if let Some(first) = self.first_arrival {
            let span = end.saturating_sub(first) as f64;
            if span > 0.0 {
                self.summary.wan_utilisation = self.dequeued as f64 * 8.0 / (self.rate * span);
            }
        }
        let x: Vec<f64> = self
            .senders
            .iter()
            .map(|st| {
                let span = st.stop.min(end).saturating_sub(st.start).max(1) as f64;
                st.delivered as f64 / span
            })
            .collect();
        let sum: f64 = x.iter().sum();
        let sq: f64 = x.iter().map(|v| v * v).sum();
        self.summary.jain = if sq > 0.0 {
            sum * sum / (x.len() as f64 * sq)
        } else {
            0.0
        };
        self.summary.delivered_bytes = self.senders.iter().map(|st| st.delivered).collect();
        RunResult {
            summary: self.summary,
            samples: self.samples,
            notifications: self.sent_notes,
        }
    }
}

/// The congestion-aware node: the gateway with Long-haul CNPs on, the
/// scenario's thresholds, and every flow's source QP in the flow table
/// (static entries, as the host CLI adds them).
fn configure(
    gw: &mut dyn LoopGateway,
    scn: &Scenario,
    mode: Mode,
    address: Ipv4Addr,
) -> Result<(), String> {
    let write = |gw: &mut dyn LoopGateway, off: u32, v: u32| gw.write_register(off, v);
    let sev0 = gw.read_register(offset::LH_SEV0_ACTION)?;
    let percent = scn.gateway.rate_reduce_percent.unwrap_or(30) as u32;
    let options = if mode == Mode::Smartnic {
        lh_option::IPV4_LONGHAUL
    } else {
        0
    };
    for (off, v) in [
        (offset::FEATURE_ENABLE, feature::LH_CNP),
        (offset::PORT0_K_MIN_BYTES, scn.k_min_bytes() as u32),
        (offset::PORT0_K_MAX_BYTES, scn.k_max_bytes() as u32),
        (offset::PORT0_RTT_EST_US, scn.rtt_est_us()),
        (offset::PORT0_FLOW_INTERVAL_US, scn.gateway.flow_interval_us),
        (offset::PORT0_QGR_INTERVAL_US, scn.qgr_interval_us()),
        (offset::PORT0_V_GROWTH_BYTES, scn.v_growth_bytes()),
        (offset::GW_IPV4, u32::from(address)),
        (offset::LH_OPTIONS, options),
        (
            offset::LH_OBS_WINDOW_US,
            scn.gateway.obs_window_us.unwrap_or(10),
        ),
        (offset::LH_SEV0_ACTION, (sev0 & !0xFFFF) | percent),
    ] {
        write(gw, off, v)?;
    }
    for spec in &scn.senders {
        let (sip, dip) = (mapped_words(spec.ip), mapped_words(spec.receiver_ip));
        for w in 0..4 {
            write(gw, offset::FLOW_SIP_0 + 4 * w as u32, sip[w])?;
            write(gw, offset::FLOW_DIP_0 + 4 * w as u32, dip[w])?;
        }
        write(gw, offset::FLOW_DQP, spec.receiver_qp)?;
        write(gw, offset::FLOW_SQP, spec.qp)?;
        write(gw, offset::FLOW_COMMAND, flow_command::INSERT_STATIC)?;
    }
    Ok(())
}
