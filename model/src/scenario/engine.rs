//! The event loop of a scenario run (see the module docs of
//! [`crate::scenario`] for the topology, the modes and the metrics).

use super::config::{Marking, Mode, Position, Scenario};
use super::dcqcn::ReactionPoint;
use super::node::{
    LoopGateway, LoopNotification, ModelLoop, CONFIG_CLOCK_IN_US, CONFIG_US, LOOP_START,
};
use crate::source_nic::{NotificationKind, QpBinding, Received, SourceNic, SourceNicConfig};
use crate::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::bth::opcode;
use cngw_packet::longhaul::Action;
use cngw_packet::parsed::{classify, FrameClass};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{
    fcn_control, fcn_rx_dom_control, feature, flow_command, lh_option, offset, pe_control,
    pe_shaper, proxy, tunnel_control,
};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::net::{Ipv4Addr, Ipv6Addr};

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
    /// Every notification the gateway in the loop ([`LoopGateway`]: the
    /// `longhaul`, `smartnic` and `near_source` modes) sent on dc_tx, in
    /// order, with its scenario clock (what the RTL-versus-model
    /// cross-check compares).
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
    /// Fast CNP (`fast_cnp`, `two_threshold`) or CN message (`proxy`)
    /// `note` reaches the near gateway (the ingress PE, the proxy).
    FastCnp {
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
    // The gateway: the Long-haul CNP node of `longhaul`, `smartnic` and
    // `near_source` (the model or the RTL), and the notifications it sent;
    // the other modes' congested node (the model).
    loop_gw: Option<Box<dyn LoopGateway + 'a>>,
    sent_notes: Vec<LoopNotification>,
    gw: Option<GatewayModel>,
    clocks_per_us: u64,
    frames: Vec<Vec<u8>>,
    notes: Vec<Option<Vec<u8>>>,
    // `fast_cnp`, `two_threshold`: the ingress PE; `proxy`: the proxy. The
    // delays from the congested node to it and from it to the senders.
    pe: Option<GatewayModel>,
    fcn_delay: u64,
    pe_delay: u64,
    // `two_threshold`: the ingress PE's shaper (PE-05): each flow's label,
    // its shaped rate (bytes/us) after its last light notification and
    // when that came, and when the shaper is next free for it (ns).
    labels: Vec<u32>,
    shaped: Vec<Option<(u32, u64)>>,
    pe_free: Vec<f64>,
    shaper: crate::flow_shaper::ShaperConfig,
    // `rate_advice`: each sender's last advice, Gb/s.
    advice: Vec<Option<f64>>,
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

/// Runs `scn` in `mode` with `gateway` (fresh, unconfigured: the run
/// configures it) as the Long-haul CNP node of the modes that have one in
/// the loop ([`Mode::loop_gateway`]); the other modes leave it alone.
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

/// Jain's fairness index of `x`: `(sum x)^2 / (n * sum x^2)`, from 1/n
/// (one gets everything) to 1 (all equal); 0 for an empty or all-zero `x`.
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if sq > 0.0 {
        sum * sum / (x.len() as f64 * sq)
    } else {
        0.0
    }
}

/// The share of a port of `rate_gbps` used by `bytes` sent over `span_ns`
/// (0 for an empty span).
pub fn utilisation(bytes: u64, rate_gbps: f64, span_ns: u64) -> f64 {
    if span_ns == 0 || rate_gbps <= 0.0 {
        return 0.0;
    }
    bytes as f64 * 8.0 / (rate_gbps * span_ns as f64)
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
        let mut loop_gw = None;
        let gw = match mode {
            Mode::Baseline => None,
            Mode::FastCnp | Mode::TwoThreshold => Some(wan_node(scn, mode)?),
            Mode::RateAdvice => Some(rate_advice_node(scn, gw_ip)?),
            Mode::Proxy => {
                // Configured where the node in the loop is (its Resume
                // timer counts from the enable).
                let mut gw = GatewayModel::new();
                let cpu = gw.read_register(offset::CLOCKS_PER_US).unwrap_or(322) as u64;
                gw.advance_to(CONFIG_US * cpu + CONFIG_CLOCK_IN_US);
                configure(&mut gw, scn, mode, gw_ip)?;
                proxy_generate(&mut gw)?;
                Some(gw)
            }
            Mode::Longhaul | Mode::Smartnic | Mode::NearSource => {
                configure(gateway.as_mut(), scn, mode, gw_ip)?;
                loop_gw = Some(gateway);
                None
            }
        };
        let pe = if matches!(mode, Mode::FastCnp | Mode::TwoThreshold) {
            let mut pe = ingress_pe(scn, mode, gw_ip)?;
            // The congested node sees the frames as the ingress PE sends
            // them: in its VXLAN tunnel, the outer flow label the flow's.
            for f in frames.iter_mut() {
                let out = pe.receive(InPort::DcRx, &Frame::new(f.clone()));
                match out.emitted.into_iter().find(|(p, _)| *p == OutPort::WanTx) {
                    Some((_, t)) => *f = t.data,
                    None => return Err("the ingress PE model did not encapsulate a frame".into()),
                }
            }
            Some(pe)
        } else if mode == Mode::Proxy {
            Some(proxy(scn)?)
        } else {
            None
        };
        // The outer flow labels the ingress PE gave each flow's frames.
        let labels = if matches!(mode, Mode::FastCnp | Mode::TwoThreshold) {
            frames
                .iter()
                .map(|f| crate::fast_cnp::MarkedFrame::of(f).flow_label)
                .collect()
        } else {
            vec![0; frames.len()]
        };
        let clocks_per_us = match (&gw, loop_gw.as_mut()) {
            (Some(g), _) => g.read_register(offset::CLOCKS_PER_US).unwrap_or(322),
            (None, Some(g)) => g.read_register(offset::CLOCKS_PER_US)?,
            (None, None) => 322,
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
            loop_gw,
            sent_notes: Vec::new(),
            gw,
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
            labels,
            shaped: vec![None; n],
            advice: vec![None; n],
            pe_free: vec![0.0; n],
            shaper: match &pe {
                Some(pe) => crate::flow_shaper::ShaperConfig::of_registers(pe.registers()),
                None => Default::default(),
            },
            pe,
            fcn_delay: notify_delay.saturating_sub(dc_half),
            pe_delay: dc_half,
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
        if self.gw.is_some() || self.loop_gw.is_some() {
            self.at(0, Ev::Telemetry);
        }
        self.at(0, Ev::Sample);
        while let Some(Item { t, ev, .. }) = self.heap.pop() {
            self.now = t;
            if let Some(gw) = self.loop_gw.as_mut() {
                gw.advance_to(t * self.clocks_per_us / 1_000);
                self.take_loop_notifications();
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
                Ev::FastCnp { note } => self.fast_cnp_at_pe(note),
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
                    let model_clock = self.model_clock(t);
                    if let Some(gw) = self.gw.as_mut() {
                        gw.set_queue_depth_at(depth, model_clock);
                    }
                    if let Some(gw) = self.loop_gw.as_mut() {
                        gw.set_queue_depth(depth, clock);
                    }
                    self.take_notifications();
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

    /// The absolute clock of the models driven directly (`fast_cnp`,
    /// `two_threshold`, `proxy`, `rate_advice`): the same origin as the
    /// node in the loop's ([`LOOP_START`] clocks after reset), so that every
    /// mode's windows fall on the same times.
    fn model_clock(&self, ns: u64) -> u64 {
        LOOP_START + self.clock(ns)
    }

    /// The time of a directly driven model's clock, ns.
    fn model_ns(&self, clock: u64) -> u64 {
        (clock.saturating_sub(LOOP_START) * 1_000).div_ceil(self.clocks_per_us)
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

    /// The packet gap at the sender's current DCQCN rate (in
    /// `rate_advice`, at most its advice), ns.
    fn gap(&self, s: usize) -> f64 {
        let mut r = self.senders[s].rp.current;
        if let Some(a) = self.advice[s] {
            r = r.min(a);
        }
        self.mtu as f64 * 8.0 / r
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
        let departs = self.pe_shape(s, departs);
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
        if let Some(gw) = self.loop_gw.as_mut() {
            gw.receive(&self.frames[s], clock);
        }
        let mut node_ce = false;
        let model_clock = self.model_clock(now);
        if let Some(gw) = self.gw.as_mut() {
            let clock = model_clock;
            let frame = Frame::new(self.frames[s].clone());
            let out = gw.receive_at(InPort::DcRx, &frame, Some(clock));
            node_ce = out
                .emitted
                .iter()
                .any(|(p, f)| *p == OutPort::WanTx && classify(&f.data).ecn == Ecn::Ce as u8);
            self.take_notifications();
        }
        let mtu = self.mtu;
        if self.depth + mtu > self.scn.bottleneck.buffer_bytes {
            self.summary.drops += 1;
            self.summary.dropped_bytes += mtu;
            return;
        }
        let ce = if self.summary.mode == Mode::TwoThreshold {
            // The congested node's own two-threshold marking (PE-03); the
            // egress PE copies CE inward, not ECT(1).
            node_ce
        } else {
            self.scn.bottleneck.marking == Marking::Enqueue && self.mark(self.depth)
        };
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
        let ce = ce
            || (self.summary.mode != Mode::TwoThreshold
                && self.scn.bottleneck.marking == Marking::Dequeue
                && self.mark(self.depth));
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

    /// The notifications the gateway in the loop sent so far, on their way.
    fn take_loop_notifications(&mut self) {
        let Some(gw) = self.loop_gw.as_mut() else {
            return;
        };
        for n in gw.take_notifications() {
            self.sent_notes.push(n.clone());
            let ns = (n.clock * 1_000).div_ceil(self.clocks_per_us);
            self.send_note(n.frame, ns, self.notify_delay);
        }
    }

    /// A notification toward the sender it names (if any: its address and,
    /// for RoCEv2, its QP), sent at `ns` and `delay` on its way.
    fn send_note(&mut self, frame: Vec<u8>, ns: u64, delay: u64) {
        let p = classify(&frame);
        let dst = Ipv4Addr::new(p.dst_ip[12], p.dst_ip[13], p.dst_ip[14], p.dst_ip[15]);
        let target = self
            .senders
            .iter()
            .position(|st| st.ip == dst && (p.class != FrameClass::Roce || st.qp == p.dest_qp));
        let Some(s) = target else { return };
        // It arrives `delay` after it left, whenever the engine learns of
        // it: the RTL's frame is taken once its last beat is out, a clock
        // or two after `ns` (never in the past of the engine, though).
        let arrives = (ns + delay).max(self.now);
        self.summary.notifications += 1;
        self.notes.push(Some(frame));
        let note = self.notes.len() - 1;
        self.at(arrives, Ev::Notify { s, note });
    }

    /// The congested node's notifications so far, sent on their way.
    fn take_notifications(&mut self) {
        self.relay_fast_cnps();
        let Some(gw) = self.gw.as_mut() else { return };
        let mut decided = gw.take_notifications();
        decided.extend(gw.take_rate_advice());
        for n in decided {
            let ns = self.model_ns(n.clock);
            self.send_note(n.frame.data, ns, self.notify_delay);
        }
    }

    /// The congested node's Fast CNPs (`fast_cnp`, `two_threshold`) or CN
    /// messages (`proxy`) so far, sent to the near gateway.
    fn relay_fast_cnps(&mut self) {
        if self.pe.is_none() {
            return;
        }
        let Some(gw) = self.gw.as_mut() else { return };
        let mut sent = gw.take_fast_cnps();
        sent.extend(gw.take_proxy_messages());
        for n in sent {
            let arrives = (self.model_ns(n.clock) + self.fcn_delay).max(self.now);
            self.notes.push(Some(n.frame.data));
            let note = self.notes.len() - 1;
            self.at(arrives, Ev::FastCnp { note });
        }
    }

    /// A Fast CNP reaches the ingress PE, or a CN message the proxy (on
    /// wan_rx): light Fast CNPs kept by the PE's shaper cut their flow
    /// (`two_threshold`), the standard CNPs decided go to their senders.
    fn fast_cnp_at_pe(&mut self, note: usize) {
        let Some(frame) = self.notes[note].take() else {
            return;
        };
        let clock = self.model_clock(self.now);
        let Some(pe) = self.pe.as_mut() else { return };
        pe.receive_at(InPort::WanRx, &Frame::new(frame), Some(clock));
        let light = pe.take_light_notes();
        let mut cnps = pe.take_ingress_cnps();
        cnps.extend(pe.take_proxy_cnps());
        for l in light {
            if let Some(s) = self.labels.iter().position(|&x| x == l.label) {
                self.shaper_cut(s);
            }
        }
        for n in cnps {
            let ns = self.model_ns(n.clock);
            self.send_note(n.frame.data, ns, self.pe_delay);
        }
    }

    /// `two_threshold`: flow `s`'s rate at the ingress PE's shaper at
    /// `t` (bytes/us; `None`: not shaped): after its last cut, one recovery
    /// step per `recover_us` quiet microseconds, freed at the full rate.
    fn shaped_rate(&self, s: usize, t: u64) -> Option<u32> {
        let (rate, since) = self.shaped[s]?;
        let c = &self.shaper;
        let steps = t.saturating_sub(since) / (c.recover_us.max(1) as u64 * 1_000);
        let mut r = rate;
        for _ in 0..steps.min(u16::MAX as u64) {
            r = c.recover(r);
            if r >= c.max_rate as u32 {
                return None;
            }
        }
        Some(r)
    }

    /// PE-05: a light notification for flow `s`: its shaped rate is cut
    /// (a first one takes a slot at the full rate, cut once).
    fn shaper_cut(&mut self, s: usize) {
        let now = self.now;
        let r = match self.shaped_rate(s, now) {
            Some(r) => self.shaper.cut(r),
            None => self.shaper.first_rate(),
        };
        self.shaped[s] = Some((r, now));
        self.first_cut(s);
    }

    /// `two_threshold`: a frame of flow `s` ready at `t` leaves the
    /// ingress PE's shaper at its shaped rate (the sender is held back, as
    /// lossless data-centre flow control would); unshaped flows pass.
    fn pe_shape(&mut self, s: usize, t: u64) -> u64 {
        if self.summary.mode != Mode::TwoThreshold {
            return t;
        }
        let Some(rate) = self.shaped_rate(s, t) else {
            self.pe_free[s] = t as f64;
            return t;
        };
        let departs = self.pe_free[s].max(t as f64);
        self.pe_free[s] = departs + self.mtu as f64 * 1_000.0 / rate.max(1) as f64;
        departs.ceil() as u64
    }

    fn notify(&mut self, s: usize, note: usize) {
        self.lh_since += 1;
        let Some(frame) = self.notes[note].take() else {
            return;
        };
        let now = self.now;
        if self.summary.mode == Mode::RateAdvice {
            self.advised(s, &frame);
            return;
        }
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

    /// `rate_advice`: a Rate Advice message reaches a capable sender,
    /// which keeps its rate at or below the advice from now on (a cut if
    /// the advice is below the rate it sends at).
    fn advised(&mut self, s: usize, frame: &[u8]) {
        use cngw_packet::rate_advice::RateAdviceMessage;
        let opcode = self
            .gw
            .as_ref()
            .and_then(|g| g.read_register(offset::RA_OPCODE))
            .unwrap_or(0x1D) as u8;
        let Ok(f) = cngw_packet::frame::Frame::parse(frame) else {
            return;
        };
        let Ok(m) = RateAdviceMessage::from_frame(&f, opcode) else {
            return;
        };
        if m.dest_qp != self.senders[s].qp {
            return;
        }
        let advice = m.advice.rate_mbps as f64 / 1000.0;
        let before = self.mtu as f64 * 8.0 / self.gap(s);
        self.advice[s] = Some(advice);
        if advice < before && self.now >= self.senders[s].start {
            self.first_cut(s);
        }
        self.reschedule(s);
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
        if let Some(a) = self.advice[s] {
            r = r.min(a);
        }
        // `two_threshold`: the ingress PE's shaper holds the flow back.
        if let Some(b) = self.shaped_rate(s, now) {
            r = r.min(b as f64 * 8.0 / 1_000.0);
        }
        let st = &mut self.senders[s];
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
            self.summary.wan_utilisation =
                utilisation(self.dequeued, self.rate, end.saturating_sub(first));
        }
        let x: Vec<f64> = self
            .senders
            .iter()
            .map(|st| {
                let span = st.stop.min(end).saturating_sub(st.start).max(1) as f64;
                st.delivered as f64 / span
            })
            .collect();
        self.summary.jain = jain_index(&x);
        self.summary.delivered_bytes = self.senders.iter().map(|st| st.delivered).collect();
        RunResult {
            summary: self.summary,
            samples: self.samples,
            notifications: self.sent_notes,
        }
    }
}

/// `rate_advice`'s node at the queue (RA-01..RA-03): the explicit-rate law
/// on its WAN port (the scenario's rate, d the WAN's RTT_est), every IPv4
/// sender capable (`RA_CAP0` = ::ffff:0.0.0.0/96), no policy cap, the
/// flows as static entries; no Long-haul CNPs.
fn rate_advice_node(scn: &Scenario, address: Ipv4Addr) -> Result<GatewayModel, String> {
    use crate::rate_advice::RcpParams;
    use cngw_regmap::ra_control;
    let mut gw = GatewayModel::new();
    let p = &scn.rate_advice;
    let reg = |gw: &GatewayModel, off| gw.read_register(off).unwrap_or(0);
    let capacity = (scn.path.wan_rate_gbps * 125.0).round() as u32;
    let law = RcpParams {
        capacity,
        rtt_us: p.reaction_us.unwrap_or(scn.rtt_est_us()),
        interval_us: p.interval_us.unwrap_or(reg(&gw, offset::RA_INTERVAL_US)),
        ..RcpParams::default()
    };
    let lr = law.registers();
    let mut regs = vec![
        (offset::GW_IPV4, u32::from(address)),
        (offset::RA_CAPACITY_BYTES_PER_US, capacity),
        (offset::RA_INTERVAL_US, law.interval_us),
        (offset::RA_T_OVER_D_Q16, lr.t_over_d_q16),
        (offset::RA_INV_DC_Q32, lr.inv_dc_q32),
        (
            offset::RA_MIN_MBPS,
            p.min_mbps.unwrap_or(reg(&gw, offset::RA_MIN_MBPS)),
        ),
        (
            offset::RA_FLOW_SPACING_US,
            p.flow_spacing_us
                .unwrap_or(reg(&gw, offset::RA_FLOW_SPACING_US)),
        ),
    ];
    for (w, v) in v6_words(Ipv4Addr::UNSPECIFIED.to_ipv6_mapped())
        .into_iter()
        .enumerate()
    {
        regs.push((offset::RA_CAP0_PREFIX_0 + 4 * w as u32, v));
    }
    regs.push((
        offset::RA_CAP0_CONTROL,
        fcn_rx_dom_control::VALID | 96 << fcn_rx_dom_control::LEN_SHIFT,
    ));
    write_all(&mut gw, &regs)?;
    insert_flows(&mut gw, scn)?;
    write_all(
        &mut gw,
        &[
            (offset::RA_CONTROL, ra_control::LAW),
            (offset::FEATURE_ENABLE, feature::RATE_ADVICE),
        ],
    )?;
    Ok(gw)
}

/// `proxy`: the proxy gateway's address (in the source data centre).
const PROXY_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 9, 2);

/// `proxy`'s congested node (PX-01, PX-03): its Long-haul notifications
/// for every IPv4 sender (the table's one entry, ::ffff:0.0.0.0/96) leave
/// as CN messages to the proxy, without border filtering or a bucket.
fn proxy_generate(gw: &mut GatewayModel) -> Result<(), String> {
    let p = PROXY_IP.to_ipv6_mapped();
    let mut regs = Vec::new();
    for (w, v) in v6_words(Ipv4Addr::UNSPECIFIED.to_ipv6_mapped())
        .into_iter()
        .enumerate()
    {
        regs.push((offset::PROXY_ENTRY_PREFIX_0 + 4 * w as u32, v));
    }
    for (w, v) in v6_words(p).into_iter().enumerate() {
        regs.push((offset::PROXY_ENTRY_ADDR_0 + 4 * w as u32, v));
    }
    regs.extend([
        (
            offset::PROXY_ENTRY_CONTROL,
            proxy::ENTRY_VALID | 96 << proxy::ENTRY_LEN_SHIFT,
        ),
        (offset::PROXY_ENTRY_INDEX, 0),
        (offset::PROXY_ENTRY_COMMAND, proxy::COMMIT),
        (offset::PROXY_CONTROL, proxy::GENERATE),
    ]);
    let features = gw.read_register(offset::FEATURE_ENABLE).unwrap_or(0);
    regs.push((offset::FEATURE_ENABLE, features | feature::PROXY_CN));
    write_all(gw, &regs)
}

/// `proxy`'s proxy gateway (PX-02): CN messages to its address become
/// standard CNPs to the flows' senders (their source QPs as static
/// entries), without border filtering or a bucket.
fn proxy(scn: &Scenario) -> Result<GatewayModel, String> {
    let mut gw = GatewayModel::new();
    write_all(&mut gw, &[(offset::GW_IPV4, u32::from(PROXY_IP))])?;
    insert_flows(&mut gw, scn)?;
    write_all(
        &mut gw,
        &[
            (offset::PROXY_CONTROL, proxy::ENABLE),
            (offset::FEATURE_ENABLE, feature::PROXY_CN),
        ],
    )?;
    Ok(gw)
}

/// `fast_cnp` addresses: the ingress PE, the congested WAN node (in the
/// ingress PE's in-domain prefix fd00:c::/32) and the egress PE.
const PE_IP6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1);
const NODE_IP6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 1);
const EGRESS_IP6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1);

/// An IPv6 address as four registers, bytes 0..3 first.
fn v6_words(a: Ipv6Addr) -> [u32; 4] {
    let o = a.octets();
    [0, 4, 8, 12].map(|i| u32::from_be_bytes([o[i], o[i + 1], o[i + 2], o[i + 3]]))
}

fn write_all(gw: &mut GatewayModel, regs: &[(u32, u32)]) -> Result<(), String> {
    for &(off, v) in regs {
        if !gw.write_register(off, v) {
            return Err(format!("the gateway model refused register {off:#x}"));
        }
    }
    Ok(())
}

/// The flows as static flow-table entries (as `cngw flows` adds them).
fn insert_flows(gw: &mut GatewayModel, scn: &Scenario) -> Result<(), String> {
    for spec in &scn.senders {
        let (sip, dip) = (mapped_words(spec.ip), mapped_words(spec.receiver_ip));
        let mut regs = Vec::new();
        for w in 0..4 {
            regs.push((offset::FLOW_SIP_0 + 4 * w as u32, sip[w]));
            regs.push((offset::FLOW_DIP_0 + 4 * w as u32, dip[w]));
        }
        regs.push((offset::FLOW_DQP, spec.receiver_qp));
        regs.push((offset::FLOW_SQP, spec.qp));
        regs.push((offset::FLOW_COMMAND, flow_command::INSERT_STATIC));
        write_all(gw, &regs)?;
    }
    Ok(())
}

/// Fast CNP buckets: one token per `pre_ecn.bucket_refill_us`, in clocks.
fn refill_clocks(scn: &Scenario, gw: &GatewayModel) -> u32 {
    let cpu = gw.read_register(offset::CLOCKS_PER_US).unwrap_or(322) as f64;
    let us = scn.pre_ecn.bucket_refill_us.unwrap_or(10.0);
    ((us * cpu).round() as u32).max(1)
}

/// `fast_cnp`'s ingress PE (FCN-01/FCN-02/FCN-05): VXLAN toward the egress
/// PE, Fast CNPs received from the congested node's prefix, the flows as
/// static entries (their places are their labels), standard CNPs from
/// `address` to IPv4 senders.
fn ingress_pe(scn: &Scenario, mode: Mode, address: Ipv4Addr) -> Result<GatewayModel, String> {
    let mut gw = GatewayModel::new();
    let refill = refill_clocks(scn, &gw);
    let mut regs = vec![
        (offset::GW_IPV4, u32::from(address)),
        (offset::TUNNEL_VNI, 5000),
        (offset::FCN_RX_DOM0_PREFIX_0, v6_words(NODE_IP6)[0]),
        (
            offset::FCN_RX_DOM0_CONTROL,
            fcn_rx_dom_control::VALID | 32 << fcn_rx_dom_control::LEN_SHIFT,
        ),
        (offset::FCN_RX_BUCKET_REFILL_CLOCKS, refill),
        (offset::FCN_CONTROL, fcn_control::INGRESS_PE),
        (offset::FEATURE_ENABLE, feature::FAST_CNP),
    ];
    for (i, w) in v6_words(PE_IP6).into_iter().enumerate() {
        regs.push((offset::GW_IPV6_0 + 4 * i as u32, w));
    }
    for (i, w) in v6_words(EGRESS_IP6).into_iter().enumerate() {
        regs.push((offset::TUNNEL_REMOTE_0 + 4 * i as u32, w));
    }
    write_all(&mut gw, &regs)?;
    insert_flows(&mut gw, scn)?;
    write_all(
        &mut gw,
        &[(offset::TUNNEL_CONTROL, tunnel_control::INGRESS_PE)],
    )?;
    if mode == Mode::TwoThreshold {
        // PE-05 with its reset values (cuts of 1/8, floor 10 Gb/s, +10 Gb/s
        // per 55 quiet us), its full rate the fastest sender's line rate.
        let line = scn
            .senders
            .iter()
            .map(|x| x.line_rate_gbps)
            .fold(0.0, f64::max);
        let full = ((line * 125.0).round() as u32).clamp(1, u16::MAX as u32);
        let rate = gw.read_register(offset::PE_SHAPER_RATE).unwrap_or(0);
        let floor = (rate >> 16).min(full);
        let control = gw.read_register(offset::PE_SHAPER_CONTROL).unwrap_or(0);
        write_all(
            &mut gw,
            &[
                (offset::PE_SHAPER_RATE, full | floor << 16),
                (offset::PE_SHAPER_CONTROL, control | pe_shaper::ENABLE),
            ],
        )?;
    }
    Ok(gw)
}

/// `fast_cnp`'s congested WAN node (FCN-03, PE-04): two-threshold draws on
/// the average of the queue depth its telemetry input gets (PE-03, without
/// remarking: the queue's own RED marking stays the same in every mode),
/// Fast CNPs to the outer source.
fn wan_node(scn: &Scenario, mode: Mode) -> Result<GatewayModel, String> {
    let mut gw = GatewayModel::new();
    let refill = refill_clocks(scn, &gw);
    let (t1, t2, tmax) = scn.pe_thresholds();
    let mut regs = vec![
        (offset::PE_T1_BYTES, t1),
        (offset::PE_T2_BYTES, t2),
        (offset::PE_TMAX_BYTES, tmax),
        (
            offset::PORT0_AVG_WEIGHT_SHIFT,
            scn.pre_ecn.avg_weight_shift.unwrap_or(4),
        ),
        (offset::FCN_BUCKET_REFILL_CLOCKS, refill),
        (offset::FCN_CONTROL, fcn_control::WAN_NODE),
    ];
    if mode == Mode::TwoThreshold {
        // PE-03 remarking: the marks are the node's, not the queue's RED.
        regs.push((offset::PE_CONTROL, pe_control::WAN_MARKING));
        regs.push((offset::FEATURE_ENABLE, feature::FAST_CNP | feature::PRE_ECN));
    } else {
        regs.push((offset::FEATURE_ENABLE, feature::FAST_CNP));
    }
    for (i, w) in v6_words(NODE_IP6).into_iter().enumerate() {
        regs.push((offset::GW_IPV6_0 + 4 * i as u32, w));
    }
    write_all(&mut gw, &regs)?;
    Ok(gw)
}

/// Register access during configuration: the model directly, or a node in
/// the loop.
trait RegisterAccess {
    fn write(&mut self, off: u32, v: u32) -> Result<(), String>;
    fn read(&mut self, off: u32) -> Result<u32, String>;
}

impl RegisterAccess for GatewayModel {
    fn write(&mut self, off: u32, v: u32) -> Result<(), String> {
        if self.write_register(off, v) {
            Ok(())
        } else {
            Err(format!("the gateway model refused register {off:#x}"))
        }
    }
    fn read(&mut self, off: u32) -> Result<u32, String> {
        self.read_register(off)
            .ok_or_else(|| format!("the gateway model has no register {off:#x}"))
    }
}

impl<T: LoopGateway + ?Sized> RegisterAccess for T {
    fn write(&mut self, off: u32, v: u32) -> Result<(), String> {
        self.write_register(off, v)
    }
    fn read(&mut self, off: u32) -> Result<u32, String> {
        self.read_register(off)
    }
}

/// The congestion-aware node: the gateway with Long-haul CNPs on, the
/// scenario's thresholds, and every flow's source QP in the flow table
/// (static entries, as the host CLI adds them).
fn configure<R: RegisterAccess + ?Sized>(
    gw: &mut R,
    scn: &Scenario,
    mode: Mode,
    address: Ipv4Addr,
) -> Result<(), String> {
    let sev0 = gw.read(offset::LH_SEV0_ACTION)?;
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
        gw.write(off, v)?;
    }
    for spec in &scn.senders {
        let (sip, dip) = (mapped_words(spec.ip), mapped_words(spec.receiver_ip));
        for w in 0..4 {
            gw.write(offset::FLOW_SIP_0 + 4 * w as u32, sip[w])?;
            gw.write(offset::FLOW_DIP_0 + 4 * w as u32, dip[w])?;
        }
        gw.write(offset::FLOW_DQP, spec.receiver_qp)?;
        gw.write(offset::FLOW_SQP, spec.qp)?;
        gw.write(offset::FLOW_COMMAND, flow_command::INSERT_STATIC)?;
    }
    Ok(())
}
