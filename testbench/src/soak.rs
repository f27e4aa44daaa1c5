//! Soak (issue 9, HW-02): the Verilated gateway against the reference model
//! with the features on together, for as many clocks as asked, in bounded
//! memory.
//!
//! One gateway plays the roles [`ROLE`] names, with every feature on
//! ([`FEATURES`], [`SoakRole`]): the congested WAN node (Long-haul marking
//! and CNPs with a format table and extension objects, two-threshold
//! pre-ECN marking, Fast CNPs, Rate Advice to capable senders, CN messages
//! to the senders' proxies), the Fast CNP ingress PE and the proxy (standard
//! CNPs for Fast CNPs and CN messages received), the egress PE (VXLAN to
//! this gateway decapsulated) and source-QP learning from CM exchanges and
//! PSNs. The
//! ingress PE's encapsulation (`TUNNEL_CONTROL.ingress_pe`) is left out:
//! it changes every frame toward the WAN and takes the CE marker's clock
//! away from the testbench (see `StreamOptions::marker_shadow`), so it
//! would need runs of its own.
//!
//! The run is cut into chunks of 2,000 to [`SoakOptions::chunk_cycles`]
//! clocks: each chunk draws a queue depth (the telemetry input, through
//! every threshold: T1, T2, K_min, Tmax, K_max, both severity rows), set
//! while the pipeline is empty, its traffic (valid RoCEv2 of the
//! configured flows in both directions with the Rate Advice capability bit
//! on some, VXLAN-tunnelled RoCEv2, CM exchanges, Fast CNPs and CN messages
//! to this gateway, other protocols, malformed frames) at a random load,
//! and its idle and backpressure probabilities. The RTL runs it until
//! drained, the model takes the same frames at the clocks the parsers
//! reported them, and every output frame of both ports, every notification
//! sequence (byte for byte and in order) and every parser result must
//! agree. Then the
//! chunk is dropped. At the end the queue empties, every timer runs out
//! and every counter of the device is compared.

use crate::harness::StreamOptions;
use crate::scheduled::{
    expect_scheduled, expect_scheduled_continued, run_scheduled, DepthStep, Schedule,
    ScheduledError,
};
use crate::scoreboard::{compare, compare_counters, Expected, Mismatch};
use crate::setup::{both, mapped, set_domain, set_prefix_entry, words};
use crate::traffic::{random_mix, random_mix_among};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::cm::{CmMad, CmMessage, CmRep, CmReq};
use cngw_packet::envelope::{Envelope, IpPair};
use cngw_packet::fast_cnp::{FastCnp, DEFAULT_UDP_PORT as FCN_PORT};
use cngw_packet::flow_key::FlowKey;
use cngw_packet::frame::UdpChecksum;
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::proxy_cn::{FiveTuple, ProxyCnMessage, DEFAULT_UDP_PORT as PROXY_PORT};
use cngw_packet::{vxlan, Ecn, RoceFrameBuilder};
use cngw_regmap::{
    ext_control, fcn_control, feature, flow_command, format_control, learn_control, lh_option,
    offset, pe_control, proxy, ra_control, tod_control, tunnel_control,
};
use cngw_sim::Gateway;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::{Duration, Instant};

/// The roles the soak's gateway plays at once (see the module text).
pub const ROLE: &str = "congested WAN node (Long-haul marking and CNPs with a format table and \
extension objects, pre-ECN two-threshold marking, Fast CNPs, Rate Advice, CN messages to the \
senders' proxies) + Fast CNP ingress PE + proxy + egress PE + source-QP learning (CM, PSN)";

/// `FEATURE_ENABLE` of the soak: every feature. (What the first runs left
/// out, and the differences they found, are in docs/decisions.md, "Soak".)
/// The default [`SoakRole`] also turns on the Fast CNP ingress PE
/// (`FCN_CONTROL.ingress_pe`), CN messages to proxies and the proxy
/// (`PROXY_CONTROL.generate | enable | filter`), the timestamp object on
/// the Long-haul CNPs, CE-marked frames from the senders and a growth
/// threshold (50 MB) below K_min, so CNPs are also decided below K_min.
/// Fast CNPs and CN messages to the gateway still come `RX_NOTE_SPACING`
/// (300 clocks) apart.
pub const FEATURES: u32 = feature::LH_ECN_MARK
    | feature::LH_CNP
    | feature::FAST_CNP
    | feature::PRE_ECN
    | feature::RATE_ADVICE
    | feature::PROXY_CN;

/// This gateway's addresses.
const GW6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1);
const GW4: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 1);
const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];
/// WAN nodes inside the domain (`FCN_RX_DOM0/1`) and one outside.
const NODE6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 7);
const NODE4: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 7);
const OUTSIDER6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xe, 2, 0, 0, 0, 0, 9);
/// Ingress PEs whose VXLAN traffic crosses toward the WAN.
const PES: [Ipv6Addr; 3] = [
    Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1),
    Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 2),
    Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 3),
];
/// Pre-ECN thresholds (bytes).
const T1: u32 = 20_000_000;
/// T2 below K_min (62.5 MB): the two-threshold marker's CE falls on frames
/// while the depth (61 MB) is below K_min, and the controller decides CNPs
/// for them.
const T2: u32 = 50_000_000;
const TMAX: u32 = 100_000_000;
/// Queue depths the telemetry input takes: below T1, between T1 and T2
/// (50 MB), between T2 and K_min (62.5 MB), between K_min and Tmax, between
/// Tmax and K_max (125 MB), above K_max, in severity row 1 (150 MB) and row
/// 2 (200 MB).
const LEVELS: [u32; 9] = [
    0,
    10_000_000,
    40_000_000,
    61_000_000,
    80_000_000,
    110_000_000,
    130_000_000,
    160_000_000,
    210_000_000,
];
/// The Rate Advice opcode.
const RA_OPCODE: u32 = 0x1D;
/// Fast CNPs and CN messages to this gateway come at most one per this
/// many clocks: closer ones can find the receiver busy, which the model
/// does not follow clock for clock (the soak found it; docs/decisions.md).
const RX_NOTE_SPACING: u64 = 300;
/// Clocks from a chunk's depth step to its first frame: the average has
/// taken the new depth (one microsecond tick, 322 clocks, and the
/// probabilities' delay) before a frame meets the marker.
const SETTLE_CLOCKS: u64 = 1_000;
/// Clocks the queue rests at 0 at the end so every Resume and interval is over.
const FLUSH_CYCLES: u64 = 60_000;

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct SoakOptions {
    pub seed: u64,
    /// Clocks of traffic (the run lasts a little longer: each chunk drains,
    /// and the end lets every timer run out).
    pub cycles: u64,
    /// Clocks of traffic per chunk (what is held in memory at once).
    pub chunk_cycles: u64,
    /// A register written to the model alone after the configuration (a
    /// model that differs from the RTL: the soak must say where).
    pub model_only_write: Option<(u32, u32)>,
    /// Notifications of each kind kept in the report
    /// ([`SoakReport::samples`]), the first ones of the run.
    pub samples_per_kind: usize,
    /// What the gateway does (the soak's own by default).
    pub role: SoakRole,
}

/// The parts of the configuration and traffic a run may change (to
/// reproduce a finding with a part left out, or as it was found).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoakRole {
    /// `FEATURE_ENABLE`.
    pub features: u32,
    /// `FCN_CONTROL` (the soak: the congested WAN node's Fast CNPs with
    /// the label copied, and the ingress PE).
    pub fcn_control: u32,
    /// `PROXY_CONTROL` (acts with `feature::PROXY_CN` only; the soak:
    /// generating, receiving, border filter).
    pub proxy_control: u32,
    /// `PORT0_V_GROWTH_BYTES` (the soak: 50 MB, so a step from below T1 to
    /// 61 MB triggers a CNP below K_min; 70 MB would be above every level
    /// below K_min).
    pub growth_bytes: u32,
    /// The flows' senders send CE-marked frames too (the soak: yes).
    pub sender_ce: bool,
    /// The Long-haul CNPs carry the timestamp object, their decision
    /// clock (the soak: yes; every Resume's clock is then compared).
    pub timestamps: bool,
    /// The random RoCEv2 frames among the traffic (and the malformed ones
    /// built from them) come from `(hosts, qps)` ([`random_mix_among`]; the
    /// soak: [`RANDOM_FLOWS`]), or, with `None`, from random addresses
    /// and QPs ([`random_mix`]: the flow table fills in a long run, which
    /// the model cannot follow; the findings were made with it).
    pub random_flows: Option<(u16, u32)>,
}

impl Default for SoakRole {
    fn default() -> Self {
        SoakRole {
            features: FEATURES,
            fcn_control: fcn_control::WAN_NODE | fcn_control::COPY_LABEL | fcn_control::INGRESS_PE,
            proxy_control: proxy::ENABLE | proxy::FILTER | proxy::GENERATE,
            growth_bytes: 50_000_000,
            sender_ce: true,
            timestamps: true,
            random_flows: Some(RANDOM_FLOWS),
        }
    }
}

impl SoakOptions {
    pub fn new(seed: u64, cycles: u64) -> Self {
        SoakOptions {
            seed,
            cycles,
            chunk_cycles: 25_000,
            model_only_write: None,
            samples_per_kind: 0,
            role: SoakRole::default(),
        }
    }
}

/// Notifications the gateway sent, by kind (each equal to the model's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NotificationCounts {
    /// Long-haul CNPs (RoCEv2 and ICMPv6 formats; Resumes among them).
    pub longhaul_cnps: u64,
    /// Standard CNPs of the Long-haul controller (format table, no E bit).
    pub standard_cnps: u64,
    /// Fast CNPs of the congested WAN node (FCN-03).
    pub fast_cnps: u64,
    /// Standard CNPs for received Fast CNPs (FCN-05).
    pub ingress_pe_cnps: u64,
    /// Standard CNPs for received CN messages (PX-02).
    pub proxy_cnps: u64,
    /// CN messages to the senders' proxies (PX-01).
    pub proxy_messages: u64,
    /// Rate Advice messages (RA-03).
    pub rate_advice: u64,
}

impl NotificationCounts {
    /// Kinds and counts, for printing.
    pub fn kinds(&self) -> [(&'static str, u64); 7] {
        [
            ("Long-haul CNPs", self.longhaul_cnps),
            ("standard CNPs (Long-haul controller)", self.standard_cnps),
            ("Fast CNPs", self.fast_cnps),
            ("ingress PE CNPs", self.ingress_pe_cnps),
            ("proxy CNPs", self.proxy_cnps),
            ("CN messages to proxies", self.proxy_messages),
            ("Rate Advice messages", self.rate_advice),
        ]
    }

    pub fn total(&self) -> u64 {
        self.kinds().iter().map(|k| k.1).sum()
    }

    fn add(&mut self, exp: &Expected, samples: &mut Vec<Vec<u8>>, per_kind: usize) {
        let before = self.kinds().map(|k| k.1);
        for (i, seq) in [
            &exp.fast_cnps,
            &exp.ingress_cnps,
            &exp.proxy_cnps,
            &exp.proxy_messages,
            &exp.rate_advice,
        ]
        .into_iter()
        .enumerate()
        {
            let keep = per_kind.saturating_sub(before[2 + i] as usize);
            samples.extend(seq.iter().take(keep).map(|f| f.data.clone()));
        }
        for f in &exp.notifications {
            let longhaul = cngw_packet::Frame::parse(&f.data).is_ok_and(|p| {
                LonghaulRocev2::from_frame(&p).is_ok()
                    || LonghaulIcmpv6::from_frame(&p, 200).is_ok()
            });
            let n = if longhaul {
                &mut self.longhaul_cnps
            } else {
                &mut self.standard_cnps
            };
            if (*n as usize) < per_kind {
                samples.push(f.data.clone());
            }
            *n += 1;
        }
        self.fast_cnps += exp.fast_cnps.len() as u64;
        self.ingress_pe_cnps += exp.ingress_cnps.len() as u64;
        self.proxy_cnps += exp.proxy_cnps.len() as u64;
        self.proxy_messages += exp.proxy_messages.len() as u64;
        self.rate_advice += exp.rate_advice.len() as u64;
    }
}

/// What a soak did (so far, in progress reports).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SoakReport {
    pub seed: u64,
    /// Clocks simulated (set-up included).
    pub cycles: u64,
    /// Chunks run and compared.
    pub chunks: u64,
    /// Frames that entered dc_rx and wan_rx.
    pub frames_in: [u64; 2],
    /// Frames that left dc_tx and wan_tx (notifications included).
    pub frames_out: [u64; 2],
    pub notifications: NotificationCounts,
    /// Changes of the queue-depth input.
    pub depth_steps: u64,
    /// Differences between RTL and model: 0 in every report `run` returns.
    pub mismatches: u64,
    /// The first notifications of each kind (up to
    /// [`SoakOptions::samples_per_kind`]), for independent checks.
    pub samples: Vec<Vec<u8>>,
    /// Counters that are not zero at the end, as both read them.
    pub counters: Vec<(&'static str, u32)>,
    pub wall: Duration,
}

/// The process's resident memory now and at its peak, in KiB (Linux's
/// `/proc/self/status`; `None` elsewhere).
pub fn memory_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

impl SoakReport {
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

/// The first difference, and where it happened.
#[derive(Debug)]
pub struct SoakFailure {
    pub seed: u64,
    /// The chunk (0-based; `None`: the counters at the end).
    pub chunk: Option<u64>,
    /// Absolute clocks the chunk ran.
    pub clocks: (u64, u64),
    pub error: ScheduledError,
    /// What ran up to the chunk that failed (`mismatches` 1).
    pub report: SoakReport,
}

impl fmt::Display for SoakFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.chunk {
            Some(c) => write!(
                f,
                "soak seed {}: chunk {c} (clocks {}..{}): {}",
                self.seed, self.clocks.0, self.clocks.1, self.error
            ),
            None => write!(
                f,
                "soak seed {}: counters at the end (clock {}): {}",
                self.seed, self.clocks.1, self.error
            ),
        }
    }
}

impl std::error::Error for SoakFailure {}

/// A RoCEv2 flow of the data centre toward the WAN.
struct Flow {
    key: FlowKey,
    src: IpAddr,
    dst: IpAddr,
    /// Entered by the host (else learned, or never known).
    sqp: Option<u32>,
    mac: [u8; 6],
    /// Its frames carry the Rate Advice capability bit.
    flagged: bool,
}

fn flows(rng: &mut StdRng) -> Vec<Flow> {
    (0..12u32)
        .map(|i| {
            let (src, dst) = if i.checked_rem(3) == Some(2) {
                (
                    IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 1, i as u16)),
                    IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 2, 1)),
                )
            } else {
                (
                    IpAddr::V4(Ipv4Addr::new(10, 0, 0, i as u8 + 1)),
                    IpAddr::V4(Ipv4Addr::new(10, 0, 9, 1)),
                )
            };
            let dqp = 0x100 + i;
            Flow {
                key: FlowKey::new(mapped(src).octets(), mapped(dst).octets(), dqp),
                src,
                dst,
                sqp: (i < 9).then_some(0x4000 + rng.gen_range(0..0x1000)),
                mac: [0x02, 0x11, 0x22, 0x33, 0x44, i as u8],
                flagged: i.checked_rem(4) == Some(3),
            }
        })
        .collect()
}

fn builder(src: IpAddr, dst: IpAddr) -> RoceFrameBuilder {
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => RoceFrameBuilder::ipv4(s, d),
        (IpAddr::V6(s), IpAddr::V6(d)) => RoceFrameBuilder::ipv6(s, d),
        _ => unreachable!("a flow's addresses are of one family"),
    }
}

/// A data frame of `f` toward the WAN: random ECN, PSN and size.
fn data_frame(f: &Flow, ce: bool, rng: &mut StdRng) -> Vec<u8> {
    // With `ce`, CE from the senders too (a CNP below K_min).
    let ecn = if ce {
        [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce][rng.gen_range(0..4)]
    } else {
        [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct][rng.gen_range(0..3)]
    };
    let mut frame = builder(f.src, f.dst)
        .macs(f.mac, [0x02, 0, 0, 0, 0, 0xFE])
        .ecn(ecn)
        .dest_qp(f.key.dqp)
        .psn(rng.gen_range(0..1 << 24))
        .payload_len(rng.gen_range(0..1400) & !3)
        .build();
    if f.flagged {
        // RA-01: BTH byte 4 bit 4 (outside the ICRC).
        let bth = if f.src.is_ipv6() {
            14 + 40 + 8
        } else {
            14 + 20 + 8
        };
        frame[bth + 4] |= ra_control::CAPABLE_BIT;
    }
    frame
}

/// The WAN's reply traffic of `f` (its receiver to its sender).
fn reverse_frame(f: &Flow, rng: &mut StdRng) -> Vec<u8> {
    builder(f.dst, f.src)
        .macs([0x02, 0, 0, 0, 0xc, 1], [0x02, 0, 0, 0, 0, 0xFE])
        .ecn(Ecn::Ect0)
        .dest_qp(f.sqp.unwrap_or(0x7777))
        .psn(rng.gen_range(0..1 << 24))
        .opcode(0x11)
        .payload_len(0)
        .build()
}

/// VXLAN-tunnelled RoCEv2 of an ingress PE (outer IPv6 with a flow label,
/// outer ECN random) toward the WAN: the Fast CNP node's traffic.
fn tunnelled_toward_wan(rng: &mut StdRng) -> Vec<u8> {
    let pe = PES[rng.gen_range(0..PES.len())];
    let label = if rng.gen_bool(0.1) {
        0
    } else {
        rng.gen_range(1..0x10_0000)
    };
    let ecn = [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce][rng.gen_range(0..4)];
    let inner = RoceFrameBuilder::ipv4(
        Ipv4Addr::new(10, 1, 0, rng.gen_range(1..20)),
        Ipv4Addr::new(10, 2, 0, 1),
    )
    .ecn(ecn)
    .dest_qp(0x200 + rng.gen_range(0..16))
    .psn(rng.gen_range(0..1 << 24))
    .payload_len(rng.gen_range(0..1000) & !3)
    .build();
    let outer = Envelope::ipv6(pe, Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 0x55))
        .with_flow_label(label)
        .with_macs(
            [0x02, 0, 0, 0, 0xa, pe.octets()[15]],
            [0x02, 0, 0, 0, 0xc, 0x99],
        )
        .with_ecn(ecn);
    vxlan::encapsulate(
        &outer,
        0xC000 | label as u16,
        100,
        &inner,
        UdpChecksum::Compute,
    )
    .to_bytes()
}

/// VXLAN from a remote ingress PE to this gateway (egress PE, PE-02):
/// one of the WAN's replies inside.
fn tunnelled_to_us(flows: &[Flow], rng: &mut StdRng) -> Vec<u8> {
    let f = &flows[rng.gen_range(0..flows.len())];
    let inner = reverse_frame(f, rng);
    let ecn = [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce][rng.gen_range(0..4)];
    let outer = Envelope::ipv6(NODE6, GW6)
        .with_macs([0x02, 0, 0, 0, 0xc, 7], GW_MAC)
        .with_ecn(ecn);
    vxlan::encapsulate(&outer, 0xC123, 100, &inner, UdpChecksum::Compute).to_bytes()
}

/// A Fast CNP to this gateway (ingress PE, FCN-05): mostly from the
/// domain, naming a flow the table holds, some naming none, some from
/// outside the domain.
fn fast_cnp(model: &GatewayModel, flows: &[Flow], rng: &mut StdRng) -> Vec<u8> {
    let f = &flows[rng.gen_range(0..flows.len())];
    let label = match model.flow_label(&f.key) {
        Some(l) if rng.gen_bool(0.8) => l,
        _ => rng.gen_range(0..0x10_0000),
    };
    let src = if rng.gen_bool(0.9) { NODE6 } else { OUTSIDER6 };
    let env = Envelope::ipv6(src, GW6).with_macs([0x02, 0, 0, 0, 0xc, 7], GW_MAC);
    FastCnp::new(label, rng.gen_range(0..8))
        .to_frame(&env, rng.gen(), FCN_PORT)
        .to_bytes()
}

/// A CN message to this gateway (proxy, PX-02) about one of the flows'
/// data frames (sometimes an unknown QP, a node outside the domain).
fn cn_message(flows: &[Flow], rng: &mut StdRng) -> Vec<u8> {
    let f = &flows[rng.gen_range(0..flows.len())];
    let mut data = data_frame(f, false, rng);
    if rng.gen_bool(0.1) {
        // Another QP: not in the flow table.
        let bth = if f.src.is_ipv6() {
            14 + 40 + 8
        } else {
            14 + 20 + 8
        };
        data[bth + 5] ^= 0x80;
    }
    let parsed = cngw_packet::Frame::parse(&data).expect("a data frame parses");
    let msg = ProxyCnMessage {
        five_tuple: FiveTuple::of_frame(&parsed),
        level: rng.gen_range(0..8),
        invoking_packet: data[14..data.len().min(14 + 200)].to_vec(),
    };
    let env = match (rng.gen_bool(0.5), rng.gen_bool(0.9)) {
        (true, _) => Envelope::ipv4(NODE4, GW4),
        (false, true) => Envelope::ipv6(NODE6, GW6),
        (false, false) => Envelope::ipv6(OUTSIDER6, GW6),
    }
    .with_macs([0x02, 0, 0, 0, 0xc, 7], GW_MAC);
    let msg = msg.truncated_for(&env);
    msg.to_frame(&env, 40_000, PROXY_PORT).to_bytes()
}

/// A CM REQ of a flow's sender (dc_rx) or the REP of its peer (wan_rx),
/// with the flow's QPs: what LH-01's CM learning reads.
fn cm_frame(f: &Flow, rep: bool, comm_id: u32, rng: &mut StdRng) -> Vec<u8> {
    let (message, src, dst) = if rep {
        (
            CmMessage::Rep(CmRep {
                local_comm_id: rng.gen(),
                remote_comm_id: comm_id,
                local_qkey: 0,
                local_qpn: f.key.dqp,
                starting_psn: rng.gen_range(0..1 << 24),
                local_ca_guid: rng.gen(),
            }),
            f.dst,
            f.src,
        )
    } else {
        (
            CmMessage::Req(CmReq {
                local_comm_id: comm_id,
                service_id: 0x0106_4853,
                local_ca_guid: rng.gen(),
                local_qkey: 0,
                local_qpn: 0x6000 + rng.gen_range(0..0x100),
                starting_psn: rng.gen_range(0..1 << 24),
                pkey: 0xFFFF,
            }),
            f.src,
            f.dst,
        )
    };
    let env = Envelope::new(IpPair::new(src, dst).expect("one family"));
    CmMad {
        transaction_id: rng.gen(),
        message,
    }
    .to_frame(&env, rng.gen_range(0..1 << 24), rng.gen())
    .to_bytes()
}

/// Writes the configuration into the gateway and the model alike.
fn configure(
    gw: &mut Gateway,
    m: &mut GatewayModel,
    flows: &[Flow],
    role: &SoakRole,
    rng: &mut StdRng,
) {
    let g6 = words(u128::from(GW6));
    let (mac_hi, mac_lo) = crate::traffic::mac_words(GW_MAC);
    // Domains of the Fast CNP / proxy border filters: fd00:c::/32 and
    // 198.51.100.0/24.
    set_domain(gw, m, 0, Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 0), 32);
    set_domain(
        gw,
        m,
        1,
        Ipv4Addr::new(198, 51, 100, 0).to_ipv6_mapped(),
        120,
    );
    let options = [
        lh_option::IPV4_LONGHAUL | lh_option::IPV6_LONGHAUL,
        lh_option::IPV4_LONGHAUL,
        lh_option::IPV6_LONGHAUL | lh_option::HIDE_METRIC,
    ][rng.gen_range(0..3)];
    let law = cngw_model::rate_advice::RcpParams {
        capacity: 2_000,
        rtt_us: 10,
        interval_us: 2,
        ..Default::default()
    }
    .registers();
    for (off, v) in [
        (offset::GW_IPV6_0, g6[0]),
        (offset::GW_IPV6_1, g6[1]),
        (offset::GW_IPV6_2, g6[2]),
        (offset::GW_IPV6_3, g6[3]),
        (offset::GW_IPV4, u32::from(GW4)),
        (offset::GW_MAC_HI, mac_hi),
        (offset::GW_MAC_LO, mac_lo),
        (offset::FCN_CNP_MAC_HI, 0x0200),
        (offset::FCN_CNP_MAC_LO, 0x0000_0dc0),
        (offset::NOTIFY_DSCP, 46),
        // Long-haul: a short RTT so intervals and Resumes happen, a small
        // bucket that runs dry, every severity row reachable, growth.
        (offset::PORT0_RTT_EST_US, 20),
        (
            offset::PORT0_FLOW_INTERVAL_US,
            [0, 8, 30][rng.gen_range(0..3)],
        ),
        (offset::LH_BUCKET_REFILL_CLOCKS, 400),
        (offset::LH_BUCKET_DEPTH, 3),
        (offset::LH_SEV1_THRESHOLD_BYTES, 150_000_000),
        (offset::LH_SEV2_THRESHOLD_BYTES, 200_000_000),
        (offset::PORT0_QGR_INTERVAL_US, 40),
        (offset::PORT0_V_GROWTH_BYTES, role.growth_bytes),
        (offset::LH_OPTIONS, options),
        // LH-12/LH-13: the identifier objects (the timestamp: see `SoakRole`).
        (
            offset::LH_EXT_CONTROL,
            (u32::from(role.timestamps) * ext_control::TIMESTAMP)
                | ext_control::DEVICE_ID
                | ext_control::PATH_ID
                | rng.gen_range(0..256u32) << ext_control::CLASS_NUM_LSB
                | rng.gen_range(0..17u32) << ext_control::DEVICE_ID_LEN_LSB
                | rng.gen_range(0..9u32) << ext_control::PATH_ID_LEN_LSB,
        ),
        (offset::LH_EXT_DEVICE_ID_0, rng.gen()),
        (offset::LH_EXT_DEVICE_ID_1, rng.gen()),
        (offset::LH_EXT_PATH_ID_0, rng.gen()),
        (offset::LH_TOD_INCREMENT, rng.gen_range(1 << 26..=u32::MAX)),
        (offset::LH_TOD_BASE_SECONDS, rng.gen()),
        (offset::LH_TOD_BASE_FRACTION, rng.gen()),
        (offset::LH_TOD_CONTROL, tod_control::SET),
        // PE-03: two-threshold marking.
        (offset::PE_T1_BYTES, T1),
        (offset::PE_T2_BYTES, T2),
        (offset::PE_TMAX_BYTES, TMAX),
        // The average takes the depth at every microsecond tick (weight
        // 1), so it never lags the depth by more than a microsecond.
        (offset::PORT0_AVG_WEIGHT_SHIFT, 0),
        (offset::PE_LFSR_SEED, rng.gen_range(1..u32::MAX)),
        (offset::PE_CONTROL, pe_control::WAN_MARKING),
        // FCN-03/FCN-05: Fast CNPs out and in, each within a bucket.
        (offset::FCN_BUCKET_REFILL_CLOCKS, 300),
        (offset::FCN_BUCKET_DEPTH, 4),
        (offset::FCN_RX_BUCKET_REFILL_CLOCKS, 200),
        (offset::FCN_RX_BUCKET_DEPTH, 4),
        (offset::FCN_CONTROL, role.fcn_control),
        // PX-01/PX-02: CN messages out and in.
        (offset::PROXY_TX_BUCKET_REFILL_CLOCKS, 200),
        (offset::PROXY_TX_BUCKET_DEPTH, 4),
        (offset::PROXY_RX_BUCKET_REFILL_CLOCKS, 150),
        (offset::PROXY_RX_BUCKET_DEPTH, 6),
        // PE-02: VXLAN / SRv6 to this gateway decapsulated.
        (offset::TUNNEL_CONTROL, tunnel_control::EGRESS_PE),
        // RA-01..RA-03: C = 2,000 bytes/us, d = 10 us, spacing 3 us.
        (offset::RA_OPCODE, RA_OPCODE),
        (offset::RA_CAPACITY_BYTES_PER_US, 2_000),
        (offset::RA_T_OVER_D_Q16, law.t_over_d_q16),
        (offset::RA_INV_DC_Q32, law.inv_dc_q32),
        (offset::RA_MIN_MBPS, 100),
        (offset::RA_FLOW_SPACING_US, 3),
        (offset::RA_CONTROL, ra_control::LAW | ra_control::HEADER_BIT),
        // LH-01: source QPs learned from CM exchanges and PSNs.
        (
            offset::LEARN_CONTROL,
            learn_control::CM_ENABLE | learn_control::PSN_ENABLE,
        ),
    ] {
        both(gw, m, off, v);
    }
    // RA-01: capable prefixes 10.0.0.0/29 and fd00::1:0/124.
    set_prefix_entry(
        gw,
        m,
        offset::RA_CAP0_PREFIX_0,
        offset::RA_CAP0_CONTROL,
        Ipv4Addr::new(10, 0, 0, 0).to_ipv6_mapped(),
        96 + 29,
    );
    set_prefix_entry(
        gw,
        m,
        offset::RA_CAP1_PREFIX_0,
        offset::RA_CAP1_CONTROL,
        Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 1, 0),
        124,
    );
    // RA-02: the law's interval is written away from a microsecond tick,
    // and the model told when.
    let per_us = m.read_register(offset::CLOCKS_PER_US).unwrap_or(322).max(1) as u64;
    while (gw.cycle() - gw.reset_released_at()).checked_rem(per_us) != Some(2) {
        gw.step();
    }
    let at = gw.cycle();
    both(gw, m, offset::RA_INTERVAL_US, 2);
    m.rate_advice_interval_written(at);
    // PX-03: the prefix -> proxy table: 10.0.0.0/30 to a proxy in the
    // domain (IPv6), fd00::1:0/126 to one over IPv4, 10.0.0.8/29 to one
    // outside the domain (filtered).
    let table: [(IpAddr, u32, IpAddr); 3] = [
        (
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 0)),
            96 + 30,
            IpAddr::V6(Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 0x10)),
        ),
        (
            IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 1, 0)),
            126,
            IpAddr::V4(Ipv4Addr::new(198, 51, 100, 10)),
        ),
        (
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 8)),
            96 + 29,
            IpAddr::V4(Ipv4Addr::new(203, 0, 113, 5)),
        ),
    ];
    for (i, (prefix, len, addr)) in table.into_iter().enumerate() {
        let p = words(u128::from(mapped(prefix)));
        let a = words(u128::from(mapped(addr)));
        for w in 0..4 {
            both(gw, m, offset::PROXY_ENTRY_PREFIX_0 + 4 * w as u32, p[w]);
            both(gw, m, offset::PROXY_ENTRY_ADDR_0 + 4 * w as u32, a[w]);
        }
        both(
            gw,
            m,
            offset::PROXY_ENTRY_CONTROL,
            proxy::ENTRY_VALID | len << proxy::ENTRY_LEN_SHIFT,
        );
        both(gw, m, offset::PROXY_ENTRY_INDEX, i as u32);
        both(gw, m, offset::PROXY_ENTRY_COMMAND, proxy::COMMIT);
    }
    // LH-15: a format table over some senders.
    for i in 0..format_control::ENTRIES {
        let base = format_control::STRIDE * i as u32;
        let f = &flows[rng.gen_range(0..flows.len())];
        let addr = u128::from(mapped(f.src));
        let len = if f.src.is_ipv6() {
            rng.gen_range(120..=128)
        } else {
            96 + rng.gen_range(28..=32)
        };
        let control = u32::from(rng.gen_bool(0.7))
            | (rng.gen_range(0..4) << format_control::FORMAT_LSB)
            | (len << format_control::PREFIX_LEN_LSB);
        for (w, v) in words(addr).into_iter().enumerate() {
            both(gw, m, offset::LH_FORMAT0_PREFIX_0 + base + 4 * w as u32, v);
        }
        both(gw, m, offset::LH_FORMAT0_CONTROL + base, control);
    }
    // The host enters most flows with their source QP.
    for f in flows {
        if let Some(sqp) = f.sqp {
            let (sip, dip) = (words(f.key.sip), words(f.key.dip));
            for w in 0..4 {
                both(gw, m, offset::FLOW_SIP_0 + 4 * w as u32, sip[w]);
                both(gw, m, offset::FLOW_DIP_0 + 4 * w as u32, dip[w]);
            }
            both(gw, m, offset::FLOW_DQP, f.key.dqp);
            both(gw, m, offset::FLOW_SQP, sqp);
            both(gw, m, offset::FLOW_COMMAND, flow_command::INSERT_STATIC);
            gw.run(20);
        }
    }
    both(gw, m, offset::PROXY_CONTROL, role.proxy_control);
    both(gw, m, offset::FEATURE_ENABLE, role.features);
}

/// The random RoCEv2 traffic among the soak's other frames comes from 2 x 24
/// x 24 x 8 = 9,216 flows at most (hosts, QPs): the 16K-entry flow table
/// never fills (the reference model has no capacity; the RTL does not count
/// a look-up that found no place in `LH_CNP_NO_SQP`, the model would, and
/// that is what the first 110 M-clock run found).
pub const RANDOM_FLOWS: (u16, u32) = (24, 8);

fn random_frame(role: &SoakRole, rng: &mut StdRng) -> Vec<u8> {
    match role.random_flows {
        Some((hosts, qps)) => random_mix_among(rng, hosts, qps).data,
        None => random_mix(rng, 1).remove(0).data,
    }
}

/// One chunk's traffic: phases of random load and depth.
fn chunk_schedule(
    model: &GatewayModel,
    role: &SoakRole,
    flows: &[Flow],
    cycles: u64,
    comm_id: &mut u32,
    rng: &mut StdRng,
) -> Schedule {
    let mut dc = Vec::new();
    let mut wan = Vec::new();
    let mut depth_steps = Vec::new();
    let mut t = 0u64;
    while t < cycles {
        let len = cycles - t;
        depth_steps.push(DepthStep {
            cycle: t,
            bytes: LEVELS[rng.gen_range(0..LEVELS.len())],
        });
        // Mean clocks between frames of each input (0: silent phase).
        let dc_gap = [0u64, 12, 25, 60, 200][rng.gen_range(0..5)];
        let wan_gap = [0u64, 30, 80, 300][rng.gen_range(0..4)];
        let end = t + len;
        if dc_gap > 0 {
            let mut c = t + SETTLE_CLOCKS;
            while c < end {
                let data = match rng.gen_range(0..100) {
                    0..=64 => {
                        data_frame(&flows[rng.gen_range(0..flows.len())], role.sender_ce, rng)
                    }
                    65..=76 => tunnelled_toward_wan(rng),
                    77..=79 => {
                        *comm_id = comm_id.wrapping_add(1);
                        let f = &flows[rng.gen_range(0..flows.len())];
                        let req = cm_frame(f, false, *comm_id, rng);
                        // Its REP comes back over the WAN a little later.
                        wan.push((
                            c + rng.gen_range(50..500),
                            Frame::new(cm_frame(f, true, *comm_id, rng)),
                        ));
                        req
                    }
                    _ => random_frame(role, rng),
                };
                dc.push((c, Frame::new(data)));
                c += rng.gen_range(0..2 * dc_gap);
            }
        }
        if wan_gap > 0 {
            let mut c = t + SETTLE_CLOCKS;
            let mut last_note = 0;
            while c < end {
                let mut kind = rng.gen_range(0..100);
                if (55..85).contains(&kind) {
                    // Notifications to this gateway at most one per
                    // RX_NOTE_SPACING clocks (see the constant).
                    if c < last_note + RX_NOTE_SPACING {
                        kind = 0;
                    } else {
                        last_note = c;
                    }
                }
                let data = match kind {
                    0..=34 => random_frame(role, rng),
                    35..=54 => reverse_frame(&flows[rng.gen_range(0..flows.len())], rng),
                    55..=69 => fast_cnp(model, flows, rng),
                    70..=84 => cn_message(flows, rng),
                    _ => tunnelled_to_us(flows, rng),
                };
                wan.push((c, Frame::new(data)));
                c += rng.gen_range(0..2 * wan_gap);
            }
        }
        t = end;
    }
    // A frame is queued once its clock has come: the REPs in clock order.
    wan.sort_by_key(|e| e.0);
    Schedule {
        inputs: vec![(InPort::DcRx, dc), (InPort::WanRx, wan)],
        depth_steps,
        end_cycle: None,
    }
}

/// Runs the soak for `cycles` clocks with `seed`; `progress` sees the
/// report after every chunk.
pub fn run(
    seed: u64,
    cycles: u64,
    progress: impl FnMut(&SoakReport),
) -> Result<SoakReport, Box<SoakFailure>> {
    run_with(&SoakOptions::new(seed, cycles), progress)
}

/// [`run`] with every option.
pub fn run_with(
    opts: &SoakOptions,
    mut progress: impl FnMut(&SoakReport),
) -> Result<SoakReport, Box<SoakFailure>> {
    let started = Instant::now();
    let mut rng = StdRng::seed_from_u64(opts.seed);
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let flows = flows(&mut rng);
    configure(&mut gw, &mut m, &flows, &opts.role, &mut rng);
    if let Some((off, v)) = opts.model_only_write {
        assert!(m.write_register(off, v), "the model refused {off:#x}");
    }
    let mut report = SoakReport {
        seed: opts.seed,
        ..SoakReport::default()
    };
    let mut comm_id = rng.gen();
    let mut traffic = 0u64;
    let mut chunk = 0u64;
    let chunk_cycles = opts.chunk_cycles.max(1_000);
    loop {
        let last = traffic >= opts.cycles;
        let schedule = if last {
            // The queue empties and rests: every Resume and interval ends.
            Schedule {
                inputs: Vec::new(),
                depth_steps: vec![
                    DepthStep { cycle: 0, bytes: 0 },
                    DepthStep {
                        cycle: FLUSH_CYCLES,
                        bytes: 0,
                    },
                ],
                end_cycle: None,
            }
        } else {
            let n = rng
                .gen_range(2_000..=chunk_cycles.max(2_000))
                .min(opts.cycles - traffic);
            traffic += n;
            chunk_schedule(&m, &opts.role, &flows, n, &mut comm_id, &mut rng)
        };
        let probabilities = [0.0, 0.1, 0.3, 0.5];
        let stream = StreamOptions::random(
            probabilities[rng.gen_range(0..4)],
            probabilities[rng.gen_range(0..4)],
            rng.gen(),
        );
        let start = gw.cycle();
        let fail = |e: ScheduledError, report: &SoakReport, end: u64| {
            let mut report = report.clone();
            report.mismatches = 1;
            report.cycles = end;
            report.wall = started.elapsed();
            Box::new(SoakFailure {
                seed: opts.seed,
                chunk: Some(chunk),
                clocks: (start, end),
                error: e,
                report,
            })
        };
        let ran = run_scheduled(&mut gw, &schedule, stream)
            .map_err(|e| fail(ScheduledError::MarkerClock(e), &report, gw.cycle()))?;
        let exp = if last {
            expect_scheduled(&mut m, &schedule, &ran)
        } else {
            expect_scheduled_continued(&mut m, &schedule, &ran)
        };
        let verdict = compare(&ran.capture, &exp);
        if let (Err(e), Some(_)) = (&verdict, std::env::var_os("CNGW_SOAK_DEBUG")) {
            debug_dump(&ran.capture, &exp, e);
        }
        verdict.map_err(|e| {
            fail(
                ScheduledError::Mismatch(Box::new(e)),
                &report,
                ran.end_cycle,
            )
        })?;
        report.chunks += 1;
        report.depth_steps += ran.depth_steps_applied.len() as u64;
        for (i, port) in InPort::ALL.into_iter().enumerate() {
            report.frames_in[i] += ran.frames_sent.get(&port).copied().unwrap_or(0) as u64;
        }
        for (i, port) in OutPort::ALL.into_iter().enumerate() {
            report.frames_out[i] += ran.capture.outputs.get(&port).map_or(0, |o| o.len()) as u64;
        }
        report
            .notifications
            .add(&exp, &mut report.samples, opts.samples_per_kind);
        report.cycles = gw.cycle();
        report.wall = started.elapsed();
        progress(&report);
        chunk += 1;
        if last {
            break;
        }
    }
    compare_counters(&mut gw, &m).map_err(|e: Mismatch| {
        if std::env::var_os("CNGW_SOAK_DEBUG").is_some() {
            // Every counter that differs (the run is over: reading them
            // changes nothing compared).
            for (name, off, v) in m.counters() {
                let rtl = gw.csr_read(off).ok();
                if rtl != Some(v) && !crate::scoreboard::MOVING_GAUGES.contains(&off) {
                    eprintln!("counter {name}: RTL {rtl:?}, model {v}");
                }
            }
        }
        let mut r = report.clone();
        r.mismatches = 1;
        Box::new(SoakFailure {
            seed: opts.seed,
            chunk: None,
            clocks: (0, gw.cycle()),
            error: ScheduledError::Mismatch(Box::new(e)),
            report: r,
        })
    })?;
    report.counters = m
        .counters()
        .into_iter()
        .filter(|c| c.2 != 0 && !crate::scoreboard::MOVING_GAUGES.contains(&c.1))
        .map(|c| (c.0, c.2))
        .collect();
    report.cycles = gw.cycle();
    report.wall = started.elapsed();
    Ok(report)
}

/// With `CNGW_SOAK_DEBUG` set: a difference, every notification the model
/// expected and every dc_tx frame of the RTL that is not data, in hex.
fn debug_dump(cap: &crate::harness::Capture, exp: &Expected, e: &Mismatch) {
    let hex = |d: &[u8]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    eprintln!("mismatch: {e}");
    let seqs = [
        ("lh", &exp.notifications),
        ("fcn", &exp.fast_cnps),
        ("ingress", &exp.ingress_cnps),
        ("proxycnp", &exp.proxy_cnps),
        ("proxymsg", &exp.proxy_messages),
        ("ra", &exp.rate_advice),
    ];
    for (k, s) in seqs {
        for (i, f) in s.iter().enumerate() {
            eprintln!("model {k} {i}: {}", hex(&f.data));
        }
    }
    let data = exp.outputs.get(&OutPort::DcTx).cloned().unwrap_or_default();
    let starts = cap.output_start_cycles.get(&OutPort::DcTx);
    for (i, f) in cap
        .outputs
        .get(&OutPort::DcTx)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if !data.contains(f) {
            eprintln!(
                "rtl dc_tx {i} at {:?}: {}",
                starts.and_then(|s| s.get(i)),
                hex(&f.data)
            );
        }
    }
}
