//! Malformed frames, `tkeep` holes and resets through the RTL with the
//! Long-haul features on (issue 9 items 2 and 5, HW-02).
//!
//! The gateway runs with first-level CE marking and Long-haul CNPs on
//! (`LH_ECN_MARK | LH_CNP`), the queue above K_max, source-QP learning on
//! (CM and PSN) and six flows toward the WAN, four with a static source QP.
//! A catalogue of broken frames, each kind generated systematically, goes
//! into both inputs, every broken frame between two valid RoCEv2 frames
//! (of the congested flows on dc_rx, their reverse direction on wan_rx):
//! truncations at every byte of the headers, wrong IP and UDP lengths,
//! runts, jumbo frames, wrong IP versions, IPv6 extension-header chains,
//! IPv4 options of every IHL, `tuser` set, random bytes. Each run is
//! compared with the reference model (`GatewayModel`) frame for frame on
//! both outputs, notification for notification, parser result for parser
//! result and counter for counter, with random idle clocks on the inputs
//! and random backpressure on the outputs; and each broken frame and each
//! neighbour is also checked against the documented rule on its own:
//! neighbours arrive intact (CE-marked toward the WAN), broken frames are
//! forwarded untouched (CE-marked where the marker reads an ECN-capable IP
//! header), the class counters move by the classes the catalogue names, and
//! without backpressure the frame after a broken one leaves with the usual
//! latency.

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::checksum::ipv4_header_checksum;
use cngw_packet::parsed::{classify, FrameClass};
use cngw_packet::scapy::{assert_checksums_ok, dissect};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, flow_command, learn_control, lh_option, offset, Access, REGISTERS};
use cngw_sim::{frame_to_beats, Beat, Gateway, BEAT_BYTES};
use cngw_testbench::scoreboard::{parsed_matches, MOVING_GAUGES};
use cngw_testbench::traffic::random_mix;
use cngw_testbench::{compare_counters, event, Bench, OutputFrame, Pause};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];
const NIC_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0xFE];
/// Queue depth of every run: above K_max (125 MB after reset), so every
/// ECN-capable frame toward the WAN is marked and the flows are notified.
const CONGESTED: u32 = 160_000_000;

// ------------------------------------------------------------ the gateway

struct Flow {
    src: IpAddr,
    dst: IpAddr,
    dqp: u32,
    sqp: Option<u32>,
    mac: [u8; 6],
}

fn flows() -> Vec<Flow> {
    (0..6u32)
        .map(|i| {
            let (src, dst) = if i % 3 == 2 {
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
            Flow {
                src,
                dst,
                dqp: 0x100 + i,
                sqp: (i < 4).then_some(0x4000 + i),
                mac: [0x02, 0x11, 0x22, 0x33, 0x44, i as u8],
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

/// A frame of a congested flow toward the WAN (ECT(0): the marker marks it).
fn toward_wan(f: &Flow, rng: &mut StdRng, payload: usize) -> Vec<u8> {
    builder(f.src, f.dst)
        .macs(f.mac, NIC_MAC)
        .ecn(Ecn::Ect0)
        .dest_qp(f.dqp)
        .psn(rng.gen_range(0..1 << 24))
        .payload_len(payload & !3)
        .build()
}

/// A frame of the flow's reverse direction, from the WAN.
fn from_wan(f: &Flow, rng: &mut StdRng) -> Vec<u8> {
    builder(f.dst, f.src)
        .macs(NIC_MAC, f.mac)
        .ecn(Ecn::Ect0)
        .dest_qp(f.sqp.unwrap_or(0x77))
        .psn(rng.gen_range(0..1 << 24))
        .payload_len(rng.gen_range(0..256) & !3)
        .build()
}

fn mapped(a: IpAddr) -> [u8; 16] {
    match a {
        IpAddr::V4(v) => v.to_ipv6_mapped().octets(),
        IpAddr::V6(v) => v.octets(),
    }
}

/// Writes a register in the RTL and the model alike.
fn both(b: &mut Bench<Gateway>, m: &mut GatewayModel, off: u32, v: u32) {
    b.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

/// The gateway and its model, configured alike.
struct Rig {
    b: Bench<Gateway>,
    m: GatewayModel,
    flows: Vec<Flow>,
    rng: StdRng,
}

impl Rig {
    fn new(seed: u64, idle: f64, backpressure: f64) -> Rig {
        let b = Bench::new(None).unwrap();
        let mut rig = Rig {
            b,
            m: GatewayModel::new(),
            flows: flows(),
            rng: StdRng::seed_from_u64(seed),
        };
        let released = rig.b.gateway().reset_released_at();
        rig.m.set_reset_clock(released);
        rig.configure();
        rig.stalls(idle, backpressure, seed);
        rig
    }

    /// LH_ECN_MARK | LH_CNP with CM and PSN learning, a 2 us RTT (one
    /// notification per flow every 644 clocks at most), a small
    /// bucket that runs dry, the flows with a source QP, the queue above
    /// K_max. (The bucket and the intervals make some decisions refusals:
    /// the model counts which.)
    fn configure(&mut self) {
        let (b, m) = (&mut self.b, &mut self.m);
        for (off, v) in [
            (offset::PORT0_RTT_EST_US, 2),
            (offset::LH_BUCKET_REFILL_CLOCKS, 400),
            (offset::LH_BUCKET_DEPTH, 4),
            (
                offset::LH_OPTIONS,
                lh_option::IPV4_LONGHAUL | lh_option::IPV6_LONGHAUL,
            ),
            (offset::NOTIFY_DSCP, 46),
            (offset::GW_MAC_HI, 0x02C0),
            (offset::GW_MAC_LO, 0x6E00_0001),
            (offset::GW_IPV4, 0x0A00_0101),
            (offset::GW_IPV6_0, 0xFD00_0000),
            (offset::GW_IPV6_3, 0x0000_00FE),
            (
                offset::LEARN_CONTROL,
                learn_control::CM_ENABLE | learn_control::PSN_ENABLE,
            ),
            // Every flow counts as a top flow: a frame's byte count (which
            // a tkeep hole changes) does not enter any decision.
            (offset::LH_TOP_SHARE_Q8, 0),
        ] {
            both(b, m, off, v);
        }
        for f in self.flows.iter().filter(|f| f.sqp.is_some()) {
            let words = |a: [u8; 16]| {
                [0, 1, 2, 3].map(|i| u32::from_be_bytes(a[4 * i..4 * i + 4].try_into().unwrap()))
            };
            for (i, w) in words(mapped(f.src)).into_iter().enumerate() {
                both(b, m, offset::FLOW_SIP_0 + 4 * i as u32, w);
            }
            for (i, w) in words(mapped(f.dst)).into_iter().enumerate() {
                both(b, m, offset::FLOW_DIP_0 + 4 * i as u32, w);
            }
            both(b, m, offset::FLOW_DQP, f.dqp);
            both(b, m, offset::FLOW_SQP, f.sqp.unwrap());
            both(b, m, offset::FLOW_COMMAND, flow_command::INSERT_STATIC);
            b.run(20, 0);
        }
        both(
            b,
            m,
            offset::FEATURE_ENABLE,
            feature::LH_ECN_MARK | feature::LH_CNP,
        );
        let at = b.cycle();
        b.gateway().set_queue_depth(CONGESTED, true);
        b.clock();
        b.gateway().set_queue_depth(CONGESTED, false);
        m.set_queue_depth_at(CONGESTED, at);
    }

    fn stalls(&mut self, idle: f64, backpressure: f64, seed: u64) {
        for (i, port) in InPort::ALL.into_iter().enumerate() {
            *self.b.source_pause(port) = Pause::random(idle, seed.wrapping_add(i as u64));
        }
        for (i, port) in OutPort::ALL.into_iter().enumerate() {
            *self.b.sink_pause(port) =
                Pause::random(backpressure, seed.wrapping_add(16 + i as u64));
        }
    }

    fn neighbour(&mut self, port: InPort) -> Input {
        let f = &self.flows[self.rng.gen_range(0..self.flows.len())];
        let data = match port {
            InPort::DcRx => {
                let payload = self.rng.gen_range(0..256);
                toward_wan(f, &mut self.rng, payload)
            }
            InPort::WanRx => from_wan(f, &mut self.rng),
        };
        Input::frame(Frame::new(data))
    }
}

// ------------------------------------------------------- one exchange

/// One input frame: the frame the model takes, and the raw beats the RTL
/// takes when they are not its packed beats (`tkeep` holes).
#[derive(Clone)]
struct Input {
    frame: Frame,
    beats: Option<Vec<Beat>>,
}

impl Input {
    fn frame(frame: Frame) -> Input {
        Input { frame, beats: None }
    }
}

/// What one exchange did, per input frame, in input order.
struct Outcome {
    /// The RTL's output for each input frame (every frame is forwarded).
    out: [Vec<OutputFrame>; 2],
    /// The RTL's parser class of each input frame.
    class: [Vec<FrameClass>; 2],
    /// Clocks from each input frame's first beat in to its first beat out.
    latency: [Vec<u64>; 2],
    notifications: Vec<Vec<u8>>,
    cycles: u64,
}

/// The bytes a sink collects from `beats` whose lanes carry `lanes` (the
/// frame as the parser sees it: every lane of every beat but the last, the
/// last beat up to its highest `tkeep` lane).
fn pack_like(beats: &[Beat], lanes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (j, beat) in beats.iter().enumerate() {
        for lane in 0..BEAT_BYTES {
            if beat.keep >> lane & 1 == 1 {
                out.push(lanes[j * BEAT_BYTES + lane]);
            }
        }
    }
    out
}

/// The frame the parser sees in `beats`: full beats until the last, whose
/// bytes count up to its highest `tkeep` lane, holes included.
fn lane_view(beats: &[Beat]) -> Vec<u8> {
    let mut v = Vec::new();
    for (j, beat) in beats.iter().enumerate() {
        let n = if j + 1 == beats.len() {
            64 - beat.keep.leading_zeros() as usize
        } else {
            BEAT_BYTES
        };
        v.extend_from_slice(&beat.data[..n]);
    }
    v
}

/// Runs `inputs` of both ports through the RTL and the model and compares
/// everything: both outputs frame for frame, the notifications on dc_tx in
/// the model's order, every parser result and every counter.
fn exchange(rig: &mut Rig, inputs: [&[Input]; 2], what: &str) -> Outcome {
    let start = rig.b.cycle();
    for port in InPort::ALL {
        for i in inputs[port as usize] {
            match &i.beats {
                Some(beats) => rig.b.push_beats(port, beats),
                None => rig.b.push_frame(port, &i.frame.data, i.frame.user),
            };
        }
    }
    rig.b
        .run_until_drained(5_000_000, 64)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    // Notifications decided late (the bucket refills) and Resumes.
    rig.b.run(3_000, 0);
    rig.b.run_until_drained(100_000, 64).unwrap();

    // The model takes the frames in the order of their header clocks,
    // dc_rx first within a clock (the learner's order).
    let mut arrivals = Vec::new();
    let mut class: [Vec<FrameClass>; 2] = Default::default();
    let mut accepted: [Vec<u64>; 2] = Default::default();
    for port in InPort::ALL {
        let parsed = rig.b.take_parsed(port, usize::MAX);
        let sent = inputs[port as usize];
        assert_eq!(parsed.len(), sent.len(), "{what}: {} parsed", port.name());
        class[port as usize] = parsed.iter().map(|p| p.header.class).collect();
        accepted[port as usize] = rig
            .b
            .take_accepted(port, usize::MAX)
            .iter()
            .map(|a| a.start_cycle)
            .collect();
        for (i, p) in parsed.iter().enumerate() {
            arrivals.push((p.cycle, port as usize, i, port, *p));
        }
    }
    arrivals.sort_by_key(|a| (a.0, a.1));
    let mut expected: [Vec<Option<Frame>>; 2] =
        [vec![None; inputs[0].len()], vec![None; inputs[1].len()]];
    for (cycle, _, i, port, p) in arrivals {
        let input = &inputs[port as usize][i];
        let out = rig.m.receive_at(port, &input.frame, Some(cycle));
        assert!(
            parsed_matches(&p.header, &out.parsed),
            "{what}: {} frame {i}: parser RTL {:?} model {:?}",
            port.name(),
            p.header,
            out.parsed
        );
        assert!(out.emitted.len() <= 1);
        expected[port as usize][i] = out.emitted.into_iter().next().map(|(o, mut f)| {
            assert_eq!(o, port.forward_port());
            if let Some(beats) = &input.beats {
                f.data = pack_like(beats, &f.data);
            }
            f
        });
    }
    rig.m.advance_to(rig.b.cycle());

    // wan_tx carries the dc_rx frames only; dc_tx the wan_rx frames and the
    // notifications (source MAC: the gateway's).
    let wan_tx = rig.b.take_frames(OutPort::WanTx, usize::MAX);
    let (notes, dc_tx): (Vec<_>, Vec<_>) = rig
        .b
        .take_frames(OutPort::DcTx, usize::MAX)
        .into_iter()
        .partition(|f| f.data.len() >= 12 && f.data[6..12] == GW_MAC);
    let mut out: [Vec<OutputFrame>; 2] = [Vec::new(), Vec::new()];
    let mut latency: [Vec<u64>; 2] = Default::default();
    for (port, got) in [(InPort::DcRx, wan_tx), (InPort::WanRx, dc_tx)] {
        let p = port as usize;
        let want: Vec<&Frame> = expected[p].iter().flatten().collect();
        assert_eq!(
            want.len(),
            inputs[p].len(),
            "{what}: every {} frame is forwarded",
            port.name()
        );
        assert_eq!(
            got.len(),
            want.len(),
            "{what}: frames out of {}",
            port.name()
        );
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                g.data == w.data && g.user == w.user,
                "{what}: {} frame {i} differs from the model:\n  rtl   {} bytes user {} {:02x?}\n  model {} bytes user {} {:02x?}",
                port.name(),
                g.data.len(),
                g.user,
                &g.data[..g.data.len().min(80)],
                w.data.len(),
                w.user,
                &w.data[..w.data.len().min(80)]
            );
        }
        latency[p] = got
            .iter()
            .zip(&accepted[p])
            .map(|(g, a)| g.start_cycle - a)
            .collect();
        out[p] = got;
    }
    let want_notes = rig.m.take_notifications();
    assert_eq!(
        notes.len(),
        want_notes.len(),
        "{what}: notifications RTL {} model {}",
        notes.len(),
        want_notes.len()
    );
    for (i, (g, w)) in notes.iter().zip(&want_notes).enumerate() {
        assert_eq!(g.data, w.frame.data, "{what}: notification {i}");
    }
    compare_counters(rig.b.gateway(), &rig.m).unwrap_or_else(|e| panic!("{what}: {e}"));
    Outcome {
        out,
        class,
        latency,
        notifications: notes.into_iter().map(|n| n.data).collect(),
        cycles: rig.b.cycle() - start,
    }
}

// ------------------------------------------------------------ catalogue

/// One broken (or unusual) frame and the class the parser must give it
/// (`None`: whatever the reference classifier says).
struct Item {
    data: Vec<u8>,
    user: bool,
    class: Option<FrameClass>,
    what: String,
}

fn item(data: Vec<u8>, class: Option<FrameClass>, what: String) -> Item {
    Item {
        data,
        user: false,
        class,
        what,
    }
}

fn l3_of(f: &[u8]) -> usize {
    if f[12..14] == [0x81, 0x00] {
        18
    } else {
        14
    }
}

fn v4(vlan: bool) -> RoceFrameBuilder {
    let b = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 9, 1))
        .macs([0x02, 0x11, 0x22, 0x33, 0x44, 0], NIC_MAC)
        .dest_qp(0x100)
        .psn(0x1234);
    if vlan {
        b.vlan(7)
    } else {
        b
    }
}

fn v6(vlan: bool) -> RoceFrameBuilder {
    let b = RoceFrameBuilder::ipv6(
        Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 1, 2),
        Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 2, 1),
    )
    .macs([0x02, 0x11, 0x22, 0x33, 0x44, 2], NIC_MAC)
    .dest_qp(0x102)
    .psn(0x4321)
    .flow_label(0x12345);
    if vlan {
        b.vlan(9)
    } else {
        b
    }
}

fn fix_ipv4_checksum(f: &mut [u8], l3: usize) {
    let hl = 4 * (f[l3] & 0x0f) as usize;
    let c = ipv4_header_checksum(&f[l3..l3 + hl]);
    f[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
}

/// `words` 4-byte words of IPv4 options (NOPs, then End of Options) after
/// the 20-byte header; IHL, total length and checksum follow.
fn with_ipv4_options(mut f: Vec<u8>, words: usize) -> Vec<u8> {
    let l3 = l3_of(&f);
    let mut options = vec![1u8; 4 * words];
    if let Some(last) = options.last_mut() {
        *last = 0;
    }
    f.splice(l3 + 20..l3 + 20, options);
    f[l3] = 0x40 | (5 + words) as u8;
    let total = u16::from_be_bytes([f[l3 + 2], f[l3 + 3]]) + 4 * words as u16;
    f[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
    fix_ipv4_checksum(&mut f, l3);
    f
}

/// IPv6 extension headers of the given types (hop-by-hop 0, routing 43,
/// fragment 44, destination options 60), 8 bytes each, in front of UDP.
fn with_ipv6_extensions(mut f: Vec<u8>, chain: &[u8]) -> Vec<u8> {
    let l3 = l3_of(&f);
    let mut ext = Vec::new();
    for (i, &t) in chain.iter().enumerate() {
        let next = chain.get(i + 1).copied().unwrap_or(17);
        ext.extend_from_slice(&match t {
            // Next Header, Hdr Ext Len 0, a PadN option of 4 bytes.
            0 | 60 => [next, 0, 1, 4, 0, 0, 0, 0],
            // Routing type 253 (experiment), Segments Left 0.
            43 => [next, 0, 253, 0, 0, 0, 0, 0],
            // An atomic fragment (offset 0, M = 0).
            _ => [next, 0, 0, 0, 0x12, 0x34, 0x56, 0x78],
        });
    }
    f[l3 + 6] = chain[0];
    let len = u16::from_be_bytes([f[l3 + 4], f[l3 + 5]]) + ext.len() as u16;
    f[l3 + 4..l3 + 6].copy_from_slice(&len.to_be_bytes());
    f.splice(l3 + 40..l3 + 40, ext);
    f
}

/// Offset of the UDP header.
fn l4_of(f: &[u8]) -> usize {
    let l3 = l3_of(f);
    if f[l3] >> 4 == 6 {
        l3 + 40
    } else {
        l3 + 4 * (f[l3] & 0x0f) as usize
    }
}

fn truncations() -> Vec<Item> {
    let bases: Vec<(&str, Vec<u8>)> = vec![
        ("IPv4", v4(false).payload_len(32).build()),
        ("IPv4 802.1Q", v4(true).payload_len(32).build()),
        (
            "IPv4 802.1Q IHL 15",
            with_ipv4_options(v4(true).payload_len(32).build(), 10),
        ),
        ("IPv6", v6(false).payload_len(32).build()),
        ("IPv6 802.1Q", v6(true).payload_len(32).build()),
        // CNPs: the notification-relevant fields are the BTH and its 16
        // reserved bytes (the E bit of a Long-haul CNP is in the BTH).
        ("IPv4 CNP", v4(false).opcode(0x81).payload_len(16).build()),
        ("IPv6 CNP", v6(true).opcode(0x81).payload_len(16).build()),
    ];
    let mut items = Vec::new();
    for (name, full) in bases {
        assert_eq!(classify(&full).class, FrameClass::Roce, "{name}");
        let bth_end = l4_of(&full) + 8 + 12;
        let cnp = full[bth_end - 12] == 0x81;
        let last = if cnp { full.len() - 1 } else { bth_end + 4 };
        for cut in 1..=last {
            items.push(item(
                full[..cut].to_vec(),
                Some(FrameClass::Malformed),
                format!("{name} cut to {cut} of {} bytes", full.len()),
            ));
        }
    }
    items
}

fn lengths() -> Vec<Item> {
    use FrameClass::*;
    let mut items = Vec::new();
    for vlan in [false, true] {
        let f = v4(vlan).payload_len(40).build();
        let l3 = l3_of(&f);
        let actual = (f.len() - l3) as u16;
        // The parser checks each length against the frame, not against
        // each other: an IPv4 total length short of the UDP datagram (but
        // at least the header) is read as Ethernet padding's twin, and the
        // frame is still RoCEv2.
        for total in [
            0u16,
            19,
            20,
            27,
            28,
            47,
            actual - 1,
            actual + 1,
            actual + 64,
            0xffff,
        ] {
            let mut g = f.clone();
            g[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
            fix_ipv4_checksum(&mut g, l3);
            let class = if total < 20 || total > actual {
                Malformed
            } else {
                Roce
            };
            items.push(item(
                g,
                Some(class),
                format!("IPv4 total length {total} of {actual} (VLAN {vlan})"),
            ));
        }
        let f = v6(vlan).payload_len(40).build();
        let l3 = l3_of(&f);
        let actual = (f.len() - l3 - 40) as u16;
        for len in [0u16, 7, 8, 19, actual - 1, actual + 1, 0xffff] {
            let mut g = f.clone();
            g[l3 + 4..l3 + 6].copy_from_slice(&len.to_be_bytes());
            let class = if len > actual { Malformed } else { Roce };
            items.push(item(
                g,
                Some(class),
                format!("IPv6 payload length {len} of {actual} (VLAN {vlan})"),
            ));
        }
        for f in [
            v4(vlan).payload_len(40).build(),
            v6(vlan).payload_len(40).build(),
        ] {
            let l4 = l4_of(&f);
            let actual = (f.len() - l4) as u16;
            for len in [0u16, 7, 8, 19, 20, actual - 1, actual + 1, 0xffff] {
                let mut g = f.clone();
                g[l4 + 4..l4 + 6].copy_from_slice(&len.to_be_bytes());
                let class = if len < 20 || len > actual {
                    Malformed
                } else {
                    Roce
                };
                items.push(item(
                    g,
                    Some(class),
                    format!("UDP length {len} of {actual} (VLAN {vlan}, {l4})"),
                ));
            }
        }
    }
    items
}

fn runts(rng: &mut StdRng) -> Vec<Item> {
    let mut items = Vec::new();
    for len in 1..=59usize {
        let mut r: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        if len >= 14 {
            let et: [u8; 2] = [[0x08, 0x00], [0x86, 0xdd], [0x81, 0x00], [0x88, 0xb5]][len % 4];
            r[12..14].copy_from_slice(&et);
        }
        items.push(item(
            r,
            (len < 14).then_some(FrameClass::Malformed),
            format!("{len}-byte runt of random bytes"),
        ));
        let zeros = vec![0u8; len];
        let class = if len < 14 {
            FrameClass::Malformed
        } else {
            FrameClass::NonRoce
        };
        items.push(item(
            zeros,
            Some(class),
            format!("{len}-byte runt of zeros"),
        ));
    }
    items
}

fn jumbo(rng: &mut StdRng) -> Vec<Item> {
    let mut items = Vec::new();
    for size in [9_000usize, 9_600] {
        // Padded after the ICRC to exactly `size` bytes (lengths inside).
        let pad = |mut f: Vec<u8>| {
            assert!(f.len() <= size);
            f.resize(size, 0);
            f
        };
        let r4 = v4(false).ecn(Ecn::Ect0).payload_len(size - 100).build();
        let r6 = v6(true).ecn(Ecn::Ect1).payload_len(size - 100).build();
        let mut other = v4(false).payload_len(size - 100).build();
        let l4 = l4_of(&other);
        other[l4 + 2..l4 + 4].copy_from_slice(&4792u16.to_be_bytes());
        items.push(item(
            pad(r4),
            Some(FrameClass::Roce),
            format!("{size}-byte RoCEv2 over IPv4"),
        ));
        items.push(item(
            pad(r6),
            Some(FrameClass::Roce),
            format!("{size}-byte RoCEv2 over IPv6 with 802.1Q"),
        ));
        items.push(item(
            pad(other),
            Some(FrameClass::NonRoce),
            format!("{size}-byte UDP to port 4792"),
        ));
        items.push(item(
            (0..size).map(|_| rng.gen()).collect(),
            None,
            format!("{size} random bytes"),
        ));
    }
    items
}

fn versions() -> Vec<Item> {
    let mut items = Vec::new();
    for version in 0..16u8 {
        let vlan = version % 2 == 1;
        if version != 4 {
            let mut f = v4(vlan).payload_len(24).build();
            let l3 = l3_of(&f);
            f[l3] = version << 4 | (f[l3] & 0x0f);
            items.push(item(
                f,
                Some(FrameClass::Malformed),
                format!("IPv4 EtherType, version {version}"),
            ));
        }
        if version != 6 {
            let mut f = v6(!vlan).payload_len(24).build();
            let l3 = l3_of(&f);
            f[l3] = version << 4 | (f[l3] & 0x0f);
            items.push(item(
                f,
                Some(FrameClass::Malformed),
                format!("IPv6 EtherType, version {version}"),
            ));
        }
    }
    items
}

fn extension_chains() -> Vec<Item> {
    let chains: [&[u8]; 8] = [
        &[0],
        &[43],
        &[44],
        &[60],
        &[0, 60],
        &[0, 43, 44, 60],
        &[60, 43, 60],
        &[0, 60, 43, 44, 60, 44],
    ];
    let mut items = Vec::new();
    for chain in chains {
        for vlan in [false, true] {
            let f = with_ipv6_extensions(v6(vlan).payload_len(32).build(), chain);
            // Extension headers are not walked in hardware: not RoCE.
            items.push(item(
                f,
                Some(FrameClass::NonRoce),
                format!("IPv6 extension headers {chain:?} before UDP 4791 (VLAN {vlan})"),
            ));
        }
    }
    items
}

fn ipv4_options() -> Vec<Item> {
    let mut items = Vec::new();
    for vlan in [false, true] {
        for ihl in 5..=15usize {
            let f = with_ipv4_options(v4(vlan).payload_len(32).build(), ihl - 5);
            items.push(item(
                f,
                Some(FrameClass::Roce),
                format!("IPv4 IHL {ihl} (VLAN {vlan})"),
            ));
        }
        for ihl in 0..5u8 {
            let mut f = v4(vlan).payload_len(32).build();
            let l3 = l3_of(&f);
            f[l3] = 0x40 | ihl;
            items.push(item(
                f,
                Some(FrameClass::Malformed),
                format!("IPv4 IHL {ihl} (VLAN {vlan})"),
            ));
        }
    }
    items
}

fn tuser() -> Vec<Item> {
    let mut non_roce = v6(false).payload_len(64).build();
    let l4 = l4_of(&non_roce);
    non_roce[l4 + 3] ^= 1;
    let cases = [
        (v4(false).payload_len(64).build(), FrameClass::Roce),
        (v6(true).payload_len(200).build(), FrameClass::Roce),
        (non_roce, FrameClass::NonRoce),
        (
            v4(true).payload_len(64).build()[..40].to_vec(),
            FrameClass::Malformed,
        ),
        (vec![0x55; 7], FrameClass::Malformed),
        (v4(false).payload_len(3000).build(), FrameClass::Roce),
    ];
    cases
        .into_iter()
        .map(|(data, class)| Item {
            what: format!("tuser set on a {}-byte {class:?} frame", data.len()),
            data,
            user: true,
            class: Some(class),
        })
        .collect()
}

fn random_bytes(rng: &mut StdRng) -> Vec<Item> {
    (0..60)
        .map(|i| {
            let n = rng.gen_range(1..=300);
            let mut data: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            // Some with an IP EtherType, so the IP checks see random headers.
            if n >= 14 && i % 2 == 0 {
                let et = [[0x08, 0x00], [0x86, 0xdd]][i / 2 % 2];
                data[12..14].copy_from_slice(&et);
            }
            item(data, None, format!("{n} random bytes"))
        })
        .collect()
}

/// The CE marker's rule (LH-04), to check a forwarded frame on its own:
/// the frame with CE set where the marker reads an ECN-capable IP header.
fn ce_marked(data: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    cngw_model::ecn::ce_mark(&mut d);
    d
}

/// Runs one kind of the catalogue through both inputs, each item between
/// two valid frames, and checks what the docs promise. Returns clocks run
/// and notifications sent.
fn run_kind(kind: &str, items: &[Item], seed: u64, idle: f64, backpressure: f64) -> (u64, usize) {
    let mut rig = Rig::new(seed, idle, backpressure);
    let mut inputs: [Vec<Input>; 2] = Default::default();
    // Index of each item in its port's input, and whether an index is an item.
    let mut at: [Vec<usize>; 2] = Default::default();
    for port in InPort::ALL {
        let p = port as usize;
        for it in items {
            let n = rig.neighbour(port);
            inputs[p].push(n);
            at[p].push(inputs[p].len());
            inputs[p].push(Input::frame(Frame {
                data: it.data.clone(),
                user: it.user,
            }));
        }
        let n = rig.neighbour(port);
        inputs[p].push(n);
    }
    let what = format!("{kind} (seed {seed}, idle {idle}, backpressure {backpressure})");
    let o = exchange(&mut rig, [&inputs[0], &inputs[1]], &what);
    let reg = |off| rig.m.read_register(off).unwrap();
    eprintln!(
        "{what}: Long-haul CNPs sent {}, suppressed {}, rate-limited {}, no SQP {}, CE marked {}",
        reg(offset::LH_CNP_SENT),
        reg(offset::LH_CNP_SUPPRESSED),
        reg(offset::LH_CNP_RATE_LIMITED),
        reg(offset::LH_CNP_NO_SQP),
        reg(offset::LH_CE_MARKED_FRAMES),
    );

    let mut counts = [[0u32; 3]; 2];
    for port in InPort::ALL {
        let p = port as usize;
        for (k, it) in items.iter().enumerate() {
            let i = at[p][k];
            let want = it.class.unwrap_or_else(|| classify(&it.data).class);
            assert_eq!(
                o.class[p][i],
                want,
                "{what}: {} on {}: class",
                it.what,
                port.name()
            );
            counts[p][match want {
                FrameClass::Roce => 0,
                FrameClass::NonRoce => 1,
                FrameClass::Malformed => 2,
            }] += 1;
            // Forwarded untouched, tuser included; toward the WAN with CE
            // where the marker reads an ECN-capable IP header.
            let fwd = &o.out[p][i];
            let want_data = match port {
                InPort::DcRx => ce_marked(&it.data),
                InPort::WanRx => it.data.clone(),
            };
            assert!(
                fwd.data == want_data && fwd.user == it.user,
                "{what}: {} on {}: forwarded as documented",
                it.what,
                port.name()
            );
        }
        // Every neighbour intact: CE-marked toward the WAN, as sent from it.
        for (i, input) in inputs[p].iter().enumerate() {
            if at[p].binary_search(&i).is_ok() {
                continue;
            }
            let want = match port {
                InPort::DcRx => {
                    let d = ce_marked(&input.frame.data);
                    assert_ne!(d, input.frame.data, "a neighbour is ECN-capable");
                    d
                }
                InPort::WanRx => input.frame.data.clone(),
            };
            assert_eq!(o.class[p][i], FrameClass::Roce, "{what}: neighbour {i}");
            assert!(
                o.out[p][i].data == want && !o.out[p][i].user,
                "{what}: neighbour {i} on {} arrives intact",
                port.name()
            );
        }
        // The class counters moved by the classes the catalogue names (the
        // neighbours are RoCEv2).
        let neighbours = (inputs[p].len() - items.len()) as u32;
        let regs = match port {
            InPort::DcRx => [
                offset::DC_RX_ROCE_FRAMES,
                offset::DC_RX_NON_ROCE_FRAMES,
                offset::DC_RX_MALFORMED_FRAMES,
                offset::DC_RX_FRAMES,
            ],
            InPort::WanRx => [
                offset::WAN_RX_ROCE_FRAMES,
                offset::WAN_RX_NON_ROCE_FRAMES,
                offset::WAN_RX_MALFORMED_FRAMES,
                offset::WAN_RX_FRAMES,
            ],
        };
        let c = counts[p];
        for (reg, want) in
            regs.into_iter()
                .zip([c[0] + neighbours, c[1], c[2], inputs[p].len() as u32])
        {
            let name = REGISTERS.iter().find(|r| r.offset == reg).unwrap().name;
            assert_eq!(rig.b.csr_read(reg), Ok(want), "{what}: {name}");
        }
    }
    // Without backpressure the frame after each broken one leaves with the
    // usual latency: toward the WAN always the same number of clocks;
    // toward the data centre at most a notification's beats later (they
    // share dc_tx).
    if backpressure == 0.0 {
        let wan = &o.latency[InPort::DcRx as usize];
        let usual = *wan.iter().min().unwrap();
        for (k, &i) in at[0].iter().enumerate() {
            assert_eq!(
                wan[i + 1],
                usual,
                "{what}: the frame after {} leaves dc_rx -> wan_tx in {usual} clocks",
                items[k].what
            );
        }
        let dc = &o.latency[InPort::WanRx as usize];
        let usual_dc = *dc.iter().min().unwrap();
        let worst = at[1].iter().map(|&i| dc[i + 1]).max().unwrap();
        assert!(
            worst <= usual_dc + 8,
            "{what}: the frame after a broken one waited {worst} clocks on wan_rx -> dc_tx (usual {usual_dc})"
        );
        eprintln!(
            "{what}: latency dc_rx->wan_tx {usual} clocks, wan_rx->dc_tx {usual_dc}..{worst}"
        );
    }
    // Independent checks: scapy reads the marked neighbours (IPv4
    // checksum, ICRC) and the notifications.
    let mut frames: Vec<Vec<u8>> = o.out[0]
        .iter()
        .enumerate()
        // Past the 60-byte minimum: scapy's RoCE layer takes the Ethernet
        // padding of a shorter frame into the ICRC.
        .filter(|(i, f)| at[0].binary_search(i).is_err() && f.data.len() > 60)
        .take(40)
        .map(|(_, f)| f.data.clone())
        .collect();
    frames.extend(o.notifications.iter().cloned());
    if let Some(dissected) = dissect(&frames) {
        for f in &dissected {
            assert_checksums_ok(f);
            assert!(
                f.contains_key("icrc_ok") || f.contains_key("icmpv6_chksum_ok"),
                "{what}: scapy read the frame: {f:?}"
            );
        }
    }
    (o.cycles, o.notifications.len())
}

fn catalogue(rng: &mut StdRng) -> Vec<(&'static str, Vec<Item>)> {
    vec![
        ("truncated headers", truncations()),
        ("IP and UDP lengths", lengths()),
        ("runts", runts(rng)),
        ("jumbo frames", jumbo(rng)),
        ("bad IP versions", versions()),
        ("IPv6 extension-header chains", extension_chains()),
        ("IPv4 options", ipv4_options()),
        ("tuser set", tuser()),
        ("random bytes", random_bytes(rng)),
    ]
}

/// HW-02, issue 9 item 2: every kind of the catalogue, through both inputs
/// with the Long-haul features on, agrees with the model and with the
/// documented rule; first with random idle clocks and no backpressure
/// (latency checked), then with random backpressure too.
#[test]
fn hw_02_malformed_frames_of_every_kind_match_the_model_with_features_on() {
    let mut rng = StdRng::seed_from_u64(9);
    let mut notified = 0;
    for (k, (kind, items)) in catalogue(&mut rng).into_iter().enumerate() {
        for (pass, (idle, backpressure)) in [(0.3, 0.0), (0.3, 0.4)].into_iter().enumerate() {
            let t = Instant::now();
            let seed = 100 + 2 * k as u64 + pass as u64;
            let (cycles, notes) = run_kind(kind, &items, seed, idle, backpressure);
            notified += notes;
            eprintln!(
                "{kind}: {} frames, idle {idle} backpressure {backpressure}: {cycles} clocks, {notes} notifications, {:.1} s",
                items.len(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    assert!(notified > 50, "the neighbours were notified ({notified})");
}

// ------------------------------------------------------------ tkeep holes

fn keep_range(lanes: std::ops::Range<usize>) -> u64 {
    lanes.fold(0, |k, l| k | 1 << l)
}

/// Beats of `frame` (packed) with `keep` of beat `j` replaced where given.
/// Data under a cleared lane stays (the parser reads it by position).
fn holed(frame: &[u8], user: bool, keeps: &[(usize, u64)]) -> Vec<Beat> {
    let mut beats = frame_to_beats(frame, user);
    for &(j, keep) in keeps {
        if j == beats.len() {
            // An extra last beat.
            let last = beats.last_mut().unwrap();
            last.last = false;
            last.user = false;
            beats.push(Beat {
                data: [0xEE; BEAT_BYTES],
                keep,
                last: true,
                user,
            });
        } else {
            beats[j].keep = keep;
        }
    }
    beats
}

/// HW-02, issue 9 item 2: AXI4-Stream `tkeep` holes. The data path passes
/// `tkeep` through unchanged (every skid buffer and mux copies it), so
/// what leaves is what came in; the parser reads a frame by lane position:
/// every beat but the last counts 64 bytes, the last up to its highest
/// `tkeep` lane, holes included, and the CE marker looks for the lane of
/// the IP header's last byte in the first beat. So the RTL treats a holed
/// frame as the model treats the frame of every lane (holes and all), and
/// a sink that keeps only the `tkeep` lanes receives that frame's kept
/// lanes. Holes in the last beat, a middle beat, the first beat's headers,
/// an empty last beat and an empty middle beat; each between two valid
/// frames, which must arrive intact and on time.
#[test]
fn hw_02_tkeep_holes_do_not_wedge_or_damage_neighbours() {
    let t = Instant::now();
    let mut rng = StdRng::seed_from_u64(77);
    let flows = flows();
    let mut holed_frames: Vec<(String, Vec<Beat>)> = Vec::new();
    for round in 0..6usize {
        let f = &flows[round % flows.len()];
        let a = toward_wan(f, &mut rng, 36); // about 100 bytes: 2 beats
        let b = toward_wan(f, &mut rng, 120); // 3 beats
        let c = toward_wan(f, &mut rng, 4); // about 64 bytes
        let mut other = v6(false).payload_len(80).build();
        let l4 = l4_of(&other);
        other[l4 + 3] ^= 1;
        let last_lanes = |x: &[u8]| x.len() - BEAT_BYTES * ((x.len() - 1) / BEAT_BYTES);
        let hole = rng.gen_range(0..last_lanes(&a) - 1);
        holed_frames.extend([
            (
                format!("hole at lane {hole} of the last beat"),
                holed(
                    &a,
                    false,
                    &[(1, keep_range(0..last_lanes(&a)) & !(1 << hole))],
                ),
            ),
            (
                "lanes 3..7 missing in a middle beat".into(),
                holed(&b, false, &[(1, !keep_range(3..8))]),
            ),
            (
                // Inside the IP header, not its last byte (which the CE
                // marker checks for).
                "hole at lane 22 of the first beat (IP header)".into(),
                holed(&a, false, &[(0, !(1u64 << 22))]),
            ),
            (
                "an empty last beat".into(),
                holed(&c[..c.len().min(64)], false, &[(1, 0)]),
            ),
            ("an empty middle beat".into(), holed(&b, false, &[(1, 0)])),
            (
                "every other lane of the last beat, tuser set".into(),
                holed(
                    &other,
                    true,
                    &[(
                        (other.len() - 1) / BEAT_BYTES,
                        0x5555_5555 & keep_range(0..last_lanes(&other)),
                    )],
                ),
            ),
            (
                "a single beat with lanes 40..47 missing".into(),
                holed(
                    &c[..c.len().min(64)],
                    false,
                    &[(0, keep_range(0..c.len().min(64)) & !keep_range(40..48))],
                ),
            ),
        ]);
    }
    let mut total = 0;
    for (pass, (idle, backpressure)) in [(0.3, 0.0), (0.3, 0.4)].into_iter().enumerate() {
        let seed = 300 + pass as u64;
        let mut rig = Rig::new(seed, idle, backpressure);
        let mut inputs: [Vec<Input>; 2] = Default::default();
        let mut at: [Vec<usize>; 2] = Default::default();
        for port in InPort::ALL {
            let p = port as usize;
            for (_, beats) in &holed_frames {
                let n = rig.neighbour(port);
                inputs[p].push(n);
                at[p].push(inputs[p].len());
                let user = beats.last().unwrap().user;
                inputs[p].push(Input {
                    frame: Frame {
                        data: lane_view(beats),
                        user,
                    },
                    beats: Some(beats.clone()),
                });
            }
            let n = rig.neighbour(port);
            inputs[p].push(n);
        }
        let what = format!("tkeep holes (idle {idle}, backpressure {backpressure})");
        let o = exchange(&mut rig, [&inputs[0], &inputs[1]], &what);
        total += o.cycles;
        for port in InPort::ALL {
            let p = port as usize;
            for (k, &i) in at[p].iter().enumerate() {
                let (name, beats) = &holed_frames[k];
                let view = lane_view(beats);
                assert_eq!(
                    o.class[p][i],
                    classify(&view).class,
                    "{what}: {name}: the parser reads lanes by position"
                );
                // What leaves is what came in, lane for lane (CE toward the
                // WAN where the marker reads an ECN-capable header).
                let sent = match port {
                    InPort::DcRx => ce_marked(&view),
                    InPort::WanRx => view.clone(),
                };
                assert_eq!(
                    o.out[p][i].data,
                    pack_like(beats, &sent),
                    "{what}: {name} on {}",
                    port.name()
                );
                // The next frame arrives intact.
                let next = &inputs[p][i + 1].frame.data;
                let want = match port {
                    InPort::DcRx => ce_marked(next),
                    InPort::WanRx => next.clone(),
                };
                assert_eq!(o.out[p][i + 1].data, want, "{what}: the frame after {name}");
            }
        }
        if backpressure == 0.0 {
            let wan = &o.latency[0];
            let usual = *wan.iter().min().unwrap();
            assert!(
                wan.iter().all(|&l| l == usual),
                "{what}: every frame dc_rx -> wan_tx in {usual} clocks: {wan:?}"
            );
        }
    }
    eprintln!(
        "tkeep holes: {} holed frames per port and pass, {total} clocks, {:.1} s",
        holed_frames.len(),
        t.elapsed().as_secs_f64()
    );
}

// ------------------------------------------------------------ resets

#[derive(Clone, Copy, Debug)]
enum Moment {
    /// A long frame half-way into an input.
    HalfIn(InPort),
    /// A long frame half-way out of an output that then stalls (tready low
    /// for good), more frames queued behind it.
    HalfOutStalled(OutPort),
    /// A notification decided and being built, `clocks` after its frame's
    /// header was parsed; dc_tx stalled or not.
    Building { clocks: u64, stalled: bool },
}

fn random_traffic(rig: &mut Rig, n: usize) -> [Vec<Input>; 2] {
    let mut dc = Vec::new();
    for _ in 0..n {
        if rig.rng.gen_bool(0.7) {
            dc.push(rig.neighbour(InPort::DcRx));
        } else {
            dc.push(Input::frame(random_mix(&mut rig.rng, 1).remove(0)));
        }
    }
    let wan = random_mix(&mut rig.rng, n)
        .into_iter()
        .map(Input::frame)
        .collect();
    [dc, wan]
}

/// HW-02, issue 9 item 5 (reset): reset asserted while a frame is half-way
/// into each input, half-way out of each output stalled by backpressure,
/// and while a notification is being built (dc_tx free and stalled). After
/// each reset nothing leaves (no partial frame, no stale notification),
/// both inputs are ready, every register reads its reset value (counters
/// as a fresh model has them), and random traffic with the features set up
/// again matches a fresh model exactly. One gateway goes through all of
/// them in turn, each reset after the last one's traffic.
#[test]
fn hw_02_reset_mid_frame_on_every_port_recovers_with_no_stuck_state() {
    let t = Instant::now();
    let mut rig = Rig::new(500, 0.2, 0.2);
    let moments = [
        Moment::HalfIn(InPort::DcRx),
        Moment::HalfIn(InPort::WanRx),
        Moment::HalfOutStalled(OutPort::WanTx),
        Moment::HalfOutStalled(OutPort::DcTx),
        Moment::Building {
            clocks: cngw_model::longhaul::DECISION_DELAY + 2,
            stalled: false,
        },
        Moment::Building {
            clocks: cngw_model::longhaul::DECISION_DELAY + 9,
            stalled: false,
        },
        Moment::Building {
            clocks: 40,
            stalled: true,
        },
    ];
    let inputs = random_traffic(&mut rig, 20);
    exchange(&mut rig, [&inputs[0], &inputs[1]], "before the first reset");
    for (n, moment) in moments.into_iter().enumerate() {
        let what = format!("reset {n} ({moment:?})");
        // Past the flows' interval (the RTT, 2 us) and the bucket's
        // refill: the notification of `Building` is decided.
        rig.b.run(10_000, 0);
        rig.stalls(0.0, 0.0, 0);
        let received = [
            rig.b.frames_received(OutPort::DcTx),
            rig.b.frames_received(OutPort::WanTx),
        ];
        // A flow with a source QP.
        let flow = n % 4;
        match moment {
            Moment::HalfIn(port) => {
                let long = match port {
                    InPort::DcRx => toward_wan(&rig.flows[flow], &mut rig.rng, 1400),
                    InPort::WanRx => v4(false).payload_len(1400).build(),
                };
                rig.b.push_frame(port, &long, false);
                let (_, seen) = rig.b.run(100, event::first_beat_in(port));
                assert_ne!(seen & event::first_beat_in(port), 0, "{what}");
                rig.b.run(8, 0);
                assert_eq!(rig.b.frames_pending(port), 1, "{what}: half-way in");
            }
            Moment::HalfOutStalled(out) => {
                let port = match out {
                    OutPort::WanTx => InPort::DcRx,
                    OutPort::DcTx => InPort::WanRx,
                };
                for _ in 0..4 {
                    let long = match port {
                        InPort::DcRx => toward_wan(&rig.flows[flow], &mut rig.rng, 1400),
                        InPort::WanRx => v6(true).payload_len(1400).build(),
                    };
                    rig.b.push_frame(port, &long, false);
                }
                let (_, seen) = rig.b.run(100, event::first_beat_out(out));
                assert_ne!(seen & event::first_beat_out(out), 0, "{what}");
                rig.b.run(5, 0);
                *rig.b.sink_pause(out) = Pause::repeat(vec![true]);
                rig.b.run(60, 0);
                assert!(!rig.b.gateway().ready(port), "{what}: the input backs up");
                assert_eq!(rig.b.frames_received(out), received[out as usize]);
            }
            Moment::Building { clocks, stalled } => {
                if stalled {
                    *rig.b.sink_pause(OutPort::DcTx) = Pause::repeat(vec![true]);
                }
                let f = toward_wan(&rig.flows[flow], &mut rig.rng, 64);
                rig.b.push_frame(InPort::DcRx, &f, false);
                let (_, seen) = rig.b.run(100, event::PARSED_DC_RX);
                assert_ne!(seen & event::PARSED_DC_RX, 0, "{what}");
                let (_, seen) = rig.b.run(clocks, 0);
                assert_eq!(
                    seen & event::FIRST_BEAT_DC_TX,
                    0,
                    "{what}: the notification has not started leaving"
                );
                // The model agrees a notification was decided by now.
                let p = rig.b.take_parsed(InPort::DcRx, usize::MAX);
                rig.m
                    .receive_at(InPort::DcRx, &Frame::new(f), Some(p[0].cycle));
                rig.m.advance_to(rig.b.cycle());
                let notes = rig.m.take_notifications();
                assert_eq!(notes.len(), 1, "{what}: a notification in the making");
                assert!(notes[0].clock < rig.b.cycle(), "{what}");
            }
        }

        // Frames that left completely before the reset are not its concern.
        let received = [
            rig.b.frames_received(OutPort::DcTx),
            rig.b.frames_received(OutPort::WanTx),
        ];
        let released = rig.b.reset_watched().unwrap();
        // Nothing leaves after the reset, nothing is half-received.
        let (_, seen) = rig.b.run(200, 0);
        assert_eq!(seen & event::ACTIVITY, 0, "{what}: activity after reset");
        for out in OutPort::ALL {
            assert_eq!(
                rig.b.frames_received(out),
                received[out as usize],
                "{what}: no frame left {} across the reset",
                out.name()
            );
            assert!(rig.b.gateway().output(out).is_none(), "{what}");
        }
        rig.b.take_frames(OutPort::DcTx, usize::MAX);
        rig.b.take_frames(OutPort::WanTx, usize::MAX);
        rig.b.take_parsed(InPort::DcRx, usize::MAX);
        rig.b.take_parsed(InPort::WanRx, usize::MAX);
        rig.b.take_accepted(InPort::DcRx, usize::MAX);
        rig.b.take_accepted(InPort::WanRx, usize::MAX);
        for port in InPort::ALL {
            assert!(rig.b.gateway().ready(port), "{what}: {} ready", port.name());
        }
        // Every register at its reset value; counters and status as a
        // fresh model has them at this clock.
        let mut fresh = GatewayModel::new();
        fresh.set_reset_clock(released);
        fresh.advance_to(rig.b.cycle());
        let mut stale = Vec::new();
        for r in REGISTERS.iter() {
            if r.access == Access::WritePulse {
                continue;
            }
            let got = rig.b.csr_read(r.offset).unwrap();
            let want = if r.volatile && !MOVING_GAUGES.contains(&r.offset) {
                fresh.read_register(r.offset).unwrap_or(r.reset)
            } else {
                r.reset
            };
            if got != want {
                stale.push(format!("{} {got:#x} (reset value {want:#x})", r.name));
            }
        }
        assert!(stale.is_empty(), "{what}: after reset {}", stale.join(", "));

        // A fresh model, the same set-up, random traffic.
        rig.m = fresh;
        rig.configure();
        rig.stalls(0.2, 0.2, 600 + n as u64);
        let inputs = random_traffic(&mut rig, 24);
        exchange(
            &mut rig,
            [&inputs[0], &inputs[1]],
            &format!("{what}: after"),
        );
    }
    eprintln!(
        "resets: {} moments, {} clocks, {:.1} s",
        moments.len(),
        rig.b.cycle(),
        t.elapsed().as_secs_f64()
    );
}
