//! LH-01 source-QP learning in the RTL (CM snooping): the real soft-RoCE
//! capture of `ib_write_bw --rdma_cm` teaches the gateway its two
//! connections, and on random CM traffic in both directions, with random
//! idle clocks and backpressure, the flow table the RTL builds (read back
//! by iterating `FLOW_COMMAND.read_location`) and every counter equal the
//! reference model's (`cngw_model::learning::Learner` inside
//! `GatewayModel`, fed in the order the RTL's parsers saw the frames).

use cngw_driver::{Device, SimBus};
use cngw_model::learning::{capture_ports, FlowKey};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::cm::{CmCommIds, CmDreq, CmMad, CmMessage, CmRep, CmReq};
use cngw_packet::pcap::read_pcap;
use cngw_packet::{Envelope, IpPair, RoceFrameBuilder};
use cngw_regmap::{learn_control, offset};
use cngw_sim::Gateway;
use cngw_testbench::traffic::random_mix;
use cngw_testbench::{compare_counters, event, Bench, Pause};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;

// ---------------------------------------------------------------- helpers

fn captures() -> Option<PathBuf> {
    match std::env::var_os("CNGW_CAPTURES") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!("skipped: CNGW_CAPTURES is unset (it names the folder of real captures)");
            None
        }
    }
}

/// Writes a register in the RTL and the model alike.
fn both(b: &mut Bench<Gateway>, m: &mut GatewayModel, off: u32, v: u32) {
    b.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

fn read(b: &mut Bench<Gateway>, off: u32) -> u32 {
    b.csr_read(off).unwrap()
}

/// A flow-table entry: key, source QP, static.
type Entry = (FlowKey, Option<u32>, bool);

/// Every entry of the RTL's flow table, read location by location through
/// the CSR (the driver's iteration).
fn iterate(b: &mut Bench<Gateway>) -> BTreeSet<Entry> {
    let mut device = Device::open(SimBus::new(b.gateway())).unwrap();
    let entries = device.flow_table().list().unwrap();
    entries
        .into_iter()
        .map(|(key, e)| (key, e.sqp, e.pinned))
        .collect()
}

/// The model's flow table in the form of [`iterate`].
fn model_table(m: &GatewayModel) -> BTreeSet<Entry> {
    m.flows()
        .iter()
        .map(|(&key, v)| (key, v.sqp, v.pinned))
        .collect()
}

/// The source QP a CSR look-up finds (the flow must be in the table).
fn learned_sqp(b: &mut Bench<Gateway>, key: FlowKey) -> Option<u32> {
    let mut device = Device::open(SimBus::new(b.gateway())).unwrap();
    let entry = device.flow_table().lookup(&key).unwrap();
    entry.unwrap_or_else(|| panic!("{key} is in the table")).sqp
}

/// Feeds the model the frames the RTL's parsers reported, in their order:
/// by header clock, dc_rx first within a clock (the learner's order).
fn feed_in_rtl_order(
    b: &mut Bench<Gateway>,
    m: &mut GatewayModel,
    sent: [&[Frame]; 2],
) -> Vec<(OutPort, Frame)> {
    let mut arrivals = Vec::new();
    for port in InPort::ALL {
        let parsed = b.take_parsed(port, usize::MAX);
        let frames = sent[port as usize];
        assert_eq!(parsed.len(), frames.len(), "{} frames parsed", port.name());
        arrivals.extend(
            parsed
                .iter()
                .zip(frames)
                .map(|(p, f)| (p.cycle, port as usize, port, f.clone())),
        );
    }
    arrivals.sort_by_key(|a| (a.0, a.1));
    let mut emitted = Vec::new();
    for (cycle, _, port, f) in arrivals {
        emitted.extend(m.receive_at(port, &f, Some(cycle)).emitted);
    }
    emitted
}

// ---------------------------------------------------------- real capture

const DC_HOST: Ipv4Addr = Ipv4Addr::new(10, 1, 16, 62);
const WAN_HOST: Ipv4Addr = Ipv4Addr::new(10, 1, 16, 61);

/// Replays a capture frame after frame (each on the input `capture_ports`
/// gives it, the next one once the parser has reported the last), feeding
/// the model as the RTL saw them.
fn replay_capture(b: &mut Bench<Gateway>, m: &mut GatewayModel, frames: &[Vec<u8>]) {
    for (f, port) in frames.iter().zip(capture_ports(frames)) {
        b.push_frame(port, f, false);
        let (_, seen) = b.run(1_000, event::parsed(port));
        assert_ne!(
            seen & event::parsed(port),
            0,
            "the parser reported the frame"
        );
        let p = b.take_parsed(port, 1)[0];
        m.receive_at(port, &Frame::new(f.clone()), Some(p.cycle));
    }
    b.run_until_drained(100_000, 64).unwrap();
    m.advance_to(b.cycle());
}

/// LH-01 in the RTL on the real soft-RoCE capture (`ib_write_bw
/// --rdma_cm`, 10.1.16.62 on dc_rx, 10.1.16.61 on wan_rx): with CM
/// snooping on, its two REQ/REP pairs teach 10.1.16.62 QP 0x3d <->
/// 10.1.16.61 QP 0x3b and 0x3e <-> 0x3c, which CSR look-ups of the four
/// flows read back; FLOW_LEARNED counts them, and every counter equals the
/// model's. With it off (the state after reset) the capture teaches
/// nothing.
#[test]
fn lh_01_rdma_cm_capture_teaches_the_rtl_both_connections() {
    let Some(dir) = captures() else { return };
    let frames: Vec<Vec<u8>> = read_pcap(dir.join("linlinw5_rdma_cm.pcap"))
        .unwrap()
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    let (dc, wan) = (DC_HOST.octets(), WAN_HOST.octets());
    let pairs = [
        (FlowKey::ipv4(dc, wan, 0x3b), 0x3d),
        (FlowKey::ipv4(wan, dc, 0x3d), 0x3b),
        (FlowKey::ipv4(dc, wan, 0x3c), 0x3e),
        (FlowKey::ipv4(wan, dc, 0x3e), 0x3c),
    ];
    for enabled in [true, false] {
        let mut b = Bench::new(None).unwrap();
        let mut m = GatewayModel::new();
        m.set_reset_clock(b.gateway().reset_released_at());
        if enabled {
            both(
                &mut b,
                &mut m,
                offset::LEARN_CONTROL,
                learn_control::CM_ENABLE,
            );
        }
        replay_capture(&mut b, &mut m, &frames);
        compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("enabled {enabled}: {e}"));
        assert_eq!(iterate(&mut b), model_table(&m), "enabled {enabled}");
        let learned = read(&mut b, offset::FLOW_LEARNED);
        if enabled {
            for (key, sqp) in pairs {
                // The wan_rx flows are not looked up by the data path:
                // learning inserted them.
                assert_eq!(learned_sqp(&mut b, key), Some(sqp), "{key}");
            }
            assert_eq!(learned, 4);
            assert_eq!(read(&mut b, offset::LEARN_CM_BINDINGS), 4);
        } else {
            assert_eq!(learned, 0, "learning is off after reset");
            assert_eq!(read(&mut b, offset::LEARN_CM_BINDINGS), 0);
        }
    }
}

// ---------------------------------------------------------- random CM traffic

struct Host {
    ip: IpAddr,
    port: InPort,
}

/// A connection the generator opened: requester, responder (host indices),
/// comm ID, QPNs.
#[derive(Clone, Copy)]
struct Conn {
    a: usize,
    b: usize,
    comm_id: u32,
    qpn_a: u32,
    qpn_b: u32,
}

struct Gen {
    rng: StdRng,
    hosts: Vec<Host>,
    dc: Vec<usize>,
    wan: Vec<usize>,
    /// Sent REQs without their REP yet.
    open: Vec<Conn>,
    /// Pairs whose REP was sent.
    paired: Vec<Conn>,
    /// Every frame in the order generated, with its input.
    frames: Vec<(InPort, Frame)>,
}

impl Gen {
    fn new(seed: u64) -> Self {
        let mut hosts = Vec::new();
        let (mut dc, mut wan) = (Vec::new(), Vec::new());
        for i in 0..4u8 {
            for (side, port, list) in [(1u8, InPort::DcRx, &mut dc), (2, InPort::WanRx, &mut wan)] {
                let ip = if i < 3 {
                    IpAddr::V4(Ipv4Addr::new(10, side, 0, i + 1))
                } else {
                    IpAddr::V6(Ipv6Addr::new(0xfd00, side as u16, 0, 0, 0, 0, 0, 1))
                };
                list.push(hosts.len());
                hosts.push(Host { ip, port });
            }
        }
        Gen {
            rng: StdRng::seed_from_u64(seed),
            hosts,
            dc,
            wan,
            open: Vec::new(),
            paired: Vec::new(),
            frames: Vec::new(),
        }
    }

    fn env(&mut self, src: usize, dst: usize) -> Envelope {
        let e = Envelope::new(IpPair::new(self.hosts[src].ip, self.hosts[dst].ip).unwrap());
        if self.rng.gen_bool(0.25) {
            e.with_vlan(self.rng.gen_range(1..4095))
        } else {
            e
        }
    }

    fn send(&mut self, src: usize, frame: Vec<u8>) {
        let port = self.hosts[src].port;
        self.frames.push((port, Frame::new(frame)));
    }

    fn mad(&mut self, src: usize, dst: usize, message: CmMessage) {
        let env = self.env(src, dst);
        let f = CmMad {
            transaction_id: self.rng.gen(),
            message,
        }
        .to_frame(&env, self.rng.gen_range(0..1 << 24), self.rng.gen());
        self.send(src, f.to_bytes());
    }

    /// Two hosts of one family on opposite sides; the active side usually
    /// in the data centre.
    fn host_pair(&mut self) -> (usize, usize) {
        let v6 = self.rng.gen_bool(0.25);
        let pick = |rng: &mut StdRng, list: &[usize]| {
            if v6 {
                list[3]
            } else {
                list[rng.gen_range(0..3)]
            }
        };
        let d = pick(&mut self.rng, &self.dc);
        let w = pick(&mut self.rng, &self.wan);
        if self.rng.gen_bool(0.75) {
            (d, w)
        } else {
            (w, d)
        }
    }

    fn qpn(&mut self) -> u32 {
        if self.rng.gen_bool(0.1) {
            self.rng.gen_range(0..4)
        } else {
            self.rng.gen_range(0..1 << 24)
        }
    }

    fn req(&mut self, c: Conn) {
        let m = CmMessage::Req(CmReq {
            local_comm_id: c.comm_id,
            service_id: 0x0106_4853,
            local_ca_guid: self.rng.gen(),
            local_qkey: 0,
            local_qpn: c.qpn_a,
            starting_psn: self.rng.gen_range(0..1 << 24),
            pkey: 0xFFFF,
        });
        self.mad(c.a, c.b, m);
    }

    fn rep(&mut self, c: Conn, from: usize, to: usize) {
        let m = CmMessage::Rep(CmRep {
            local_comm_id: self.rng.gen(),
            remote_comm_id: c.comm_id,
            local_qkey: 0,
            local_qpn: c.qpn_b,
            starting_psn: self.rng.gen_range(0..1 << 24),
            local_ca_guid: self.rng.gen(),
        });
        self.mad(from, to, m);
    }

    /// One step of CM traffic, data of known flows or other frames.
    fn step(&mut self) {
        let r = self.rng.gen_range(0..100);
        match r {
            // A new connection; comm IDs from a small set collide across hosts.
            0..=29 => {
                let (a, b) = self.host_pair();
                let c = Conn {
                    a,
                    b,
                    comm_id: self.rng.gen_range(0..6),
                    qpn_a: self.qpn(),
                    qpn_b: self.qpn(),
                };
                self.req(c);
                self.open.push(c);
            }
            // Its REP (or, rarely, one sent back on the REQ's own side by
            // a host there, which must not pair).
            30..=59 if !self.open.is_empty() => {
                let i = self.rng.gen_range(0..self.open.len());
                let c = self.open.remove(i);
                if self.rng.gen_bool(0.05) {
                    let same_side = if self.hosts[c.a].port == InPort::DcRx {
                        &self.dc
                    } else {
                        &self.wan
                    };
                    let from = if self.hosts[c.a].ip.is_ipv6() {
                        same_side[3]
                    } else {
                        same_side[self.rng.gen_range(0..3)]
                    };
                    self.rep(c, from, c.a);
                } else {
                    self.rep(c, c.b, c.a);
                    self.paired.push(c);
                }
            }
            // A CM retransmission of an open REQ, or of a REP (unmatched).
            60..=64 if !self.open.is_empty() => {
                let c = self.open[self.rng.gen_range(0..self.open.len())];
                self.req(c);
            }
            65..=67 if !self.paired.is_empty() => {
                let c = self.paired[self.rng.gen_range(0..self.paired.len())];
                self.rep(c, c.b, c.a);
            }
            // A REP nobody asked for.
            68..=70 => {
                let (a, b) = self.host_pair();
                let c = Conn {
                    a,
                    b,
                    comm_id: self.rng.gen_range(0..6),
                    qpn_a: 0,
                    qpn_b: self.qpn(),
                };
                self.rep(c, b, a);
            }
            // RTU, DREQ, DREP, REJ: change nothing.
            71..=77 => {
                let (a, b) = self.host_pair();
                let ids = CmCommIds {
                    local_comm_id: self.rng.gen_range(0..6),
                    remote_comm_id: self.rng.gen_range(0..6),
                };
                let m = match self.rng.gen_range(0..4) {
                    0 => CmMessage::Rtu(ids),
                    1 => CmMessage::Drep(ids),
                    2 => CmMessage::Dreq(CmDreq {
                        local_comm_id: ids.local_comm_id,
                        remote_comm_id: ids.remote_comm_id,
                        remote_qpn: self.qpn(),
                    }),
                    _ => CmMessage::Other {
                        attribute_id: 0x0012,
                    },
                };
                self.mad(a, b, m);
            }
            // Data of a connection, either way (looked up on dc_rx).
            78..=91 if !self.paired.is_empty() => {
                let c = self.paired[self.rng.gen_range(0..self.paired.len())];
                let (src, dst, dqp) = if self.rng.gen_bool(0.5) {
                    (c.a, c.b, c.qpn_b)
                } else {
                    (c.b, c.a, c.qpn_a)
                };
                let env = self.env(src, dst);
                let f = RoceFrameBuilder::new(env)
                    .opcode(0x0a)
                    .dest_qp(dqp)
                    .psn(self.rng.gen_range(0..1 << 24))
                    .payload_len(self.rng.gen_range(0..64) * 4)
                    .build();
                self.send(src, f);
            }
            _ => {
                let f = random_mix(&mut self.rng, 1).remove(0);
                let port = if self.rng.gen_bool(0.5) {
                    InPort::DcRx
                } else {
                    InPort::WanRx
                };
                self.frames.push((port, f));
            }
        }
    }
}

/// Random CM traffic through the RTL and the model; the tables and the
/// counters must agree. Returns the model's learner counters.
fn run_seed(seed: u64, steps: usize, idle: f64, backpressure: f64) -> (u32, u32, u32) {
    let mut g = Gen::new(seed);
    for _ in 0..steps {
        g.step();
    }
    let mut b = Bench::new(None).unwrap();
    let mut m = GatewayModel::new();
    m.set_reset_clock(b.gateway().reset_released_at());
    both(
        &mut b,
        &mut m,
        offset::LEARN_CONTROL,
        learn_control::CM_ENABLE,
    );
    for (i, port) in InPort::ALL.into_iter().enumerate() {
        *b.source_pause(port) = Pause::random(idle, seed.wrapping_add(i as u64));
    }
    for (i, port) in OutPort::ALL.into_iter().enumerate() {
        *b.sink_pause(port) = Pause::random(backpressure, seed.wrapping_add(8 + i as u64));
    }
    // Frames enter in about the order generated: a few may wait on each
    // input, so the two inputs overlap and REPs, REQs and data of one
    // connection come within clocks of each other.
    let mut sent: [Vec<Frame>; 2] = [Vec::new(), Vec::new()];
    for (port, f) in &g.frames {
        b.push_frame(*port, &f.data, f.user);
        sent[*port as usize].push(f.clone());
        while b.frames_pending(InPort::DcRx) + b.frames_pending(InPort::WanRx) > 3 {
            b.run(1, 0);
        }
    }
    b.run_until_drained(10_000_000, 64).unwrap();
    let emitted = feed_in_rtl_order(&mut b, &mut m, [&sent[0], &sent[1]]);
    m.advance_to(b.cycle());
    for port in OutPort::ALL {
        let got: Vec<Frame> = b
            .take_frames(port, usize::MAX)
            .into_iter()
            .map(|f| Frame {
                data: f.data,
                user: f.user,
            })
            .collect();
        let want: Vec<Frame> = emitted
            .iter()
            .filter(|(p, _)| *p == port)
            .map(|(_, f)| f.clone())
            .collect();
        assert!(got == want, "seed {seed}: frames on {}", port.name());
    }
    for port in InPort::ALL {
        *b.source_pause(port) = Pause::Never;
    }
    for port in OutPort::ALL {
        *b.sink_pause(port) = Pause::Never;
    }
    compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let table = iterate(&mut b);
    assert_eq!(table, model_table(&m), "seed {seed}: the flow table");
    // The flows with a source QP are exactly the learner's bindings.
    let learned: BTreeSet<(FlowKey, u32)> = table
        .iter()
        .filter_map(|&(key, sqp, _)| sqp.map(|s| (key, s)))
        .collect();
    let want: BTreeSet<(FlowKey, u32)> = m.learner().learned().map(|b| (b.key, b.sqp)).collect();
    assert_eq!(learned, want, "seed {seed}: learned bindings");
    let c = m.learner().counters();
    eprintln!(
        "seed {seed}: {} + {} frames, {} flows, {} learned; bindings {}, REQ evictions {}, unmatched REPs {}",
        sent[0].len(),
        sent[1].len(),
        table.len(),
        learned.len(),
        c.cm_bindings,
        c.cm_req_evictions,
        c.cm_rep_unmatched
    );
    (c.cm_bindings, c.cm_req_evictions, c.cm_rep_unmatched)
}

/// LH-01: random CM traffic at line rate: interleaved connections over
/// IPv4 and IPv6 (some behind 802.1Q) opened from both sides, comm IDs
/// shared across hosts, REPs on the wrong input and without REQs, CM
/// retransmissions, RTU/DREQ/DREP/REJ, data of the learned flows right
/// behind their REPs and other traffic. The RTL's flow table equals the
/// model's entry for entry, and every counter agrees (learner counters,
/// FLOW_LEARNED, FLOW_LOOKUPS_WITHOUT_SQP, which depends on when each
/// learned source QP reached the table).
#[test]
fn lh_01_random_cm_traffic_matches_the_learner_model() {
    let (bindings, evictions, unmatched) = run_seed(1, 600, 0.0, 0.0);
    assert!(bindings >= 40, "the run should pair often ({bindings})");
    assert!(evictions > 0, "the pending table should overflow");
    assert!(unmatched > 0, "some REPs should find no REQ");
}

/// LH-01: the same with random idle clocks on the inputs and backpressure
/// on the outputs, which changes the order in which the two inputs' frames
/// reach the learner.
#[test]
fn lh_01_random_cm_traffic_matches_the_model_with_idle_and_backpressure() {
    run_seed(2, 500, 0.3, 0.3);
    run_seed(3, 500, 0.6, 0.5);
}

// ---------------------------------------------------------- timing

fn cm_frame(src: Ipv4Addr, dst: Ipv4Addr, message: CmMessage) -> Frame {
    let env = Envelope::new(IpPair::new(src.into(), dst.into()).unwrap());
    Frame::new(
        CmMad {
            transaction_id: 1,
            message,
        }
        .to_frame(&env, 0, 0xC000)
        .to_bytes(),
    )
}

fn req_frame(src: Ipv4Addr, dst: Ipv4Addr, comm_id: u32, qpn: u32) -> Frame {
    cm_frame(
        src,
        dst,
        CmMessage::Req(CmReq {
            local_comm_id: comm_id,
            service_id: 0,
            local_ca_guid: 0,
            local_qkey: 0,
            local_qpn: qpn,
            starting_psn: 0,
            pkey: 0xFFFF,
        }),
    )
}

fn rep_frame(src: Ipv4Addr, dst: Ipv4Addr, remote_comm_id: u32, qpn: u32) -> Frame {
    cm_frame(
        src,
        dst,
        CmMessage::Rep(CmRep {
            local_comm_id: 0x900,
            remote_comm_id,
            local_qkey: 0,
            local_qpn: qpn,
            starting_psn: 0,
            local_ca_guid: 0,
        }),
    )
}

/// A frame of `beats` beats the parser calls not RoCEv2 (no look-up).
fn filler(beats: usize) -> Frame {
    let mut f = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 9, 9, 9), Ipv4Addr::new(10, 9, 9, 8))
        .payload_len(64 * beats - 62)
        .build();
    f[36] = 0x12; // UDP destination port 0x12b7, not 4791
    Frame::new(f)
}

/// LH-01: when a learned source QP reaches the flow table. A REP enters
/// wan_rx (after `w` beats of other traffic) while dc_rx carries packets
/// of the flow being learned in one- and two-beat frames (after `p` beats
/// of other traffic, and in half the rounds after another connection's
/// REQ that ends in the clock the REP does, whose event goes first): the
/// look-ups take the flow table in consecutive or alternate clocks, and the
/// two `LearnSqp` requests wait for the free ones. The sweep moves the
/// REP's clock across the packets one clock at a time; which of them find
/// the source QP (FLOW_LOOKUPS_WITHOUT_SQP) must be what the model says,
/// clock for clock.
#[test]
fn lh_01_learned_source_qps_enter_the_table_between_data_lookups() {
    let mut b = Bench::new(None).unwrap();
    let mut m = GatewayModel::new();
    m.set_reset_clock(b.gateway().reset_released_at());
    both(
        &mut b,
        &mut m,
        offset::LEARN_CONTROL,
        learn_control::CM_ENABLE,
    );
    let wan_host = Ipv4Addr::new(10, 2, 0, 1);
    let sizes = [1, 1, 2, 1, 2, 2, 1, 1, 1, 2, 1, 2];
    let mut misses = Vec::new();
    let mut round = 0u32;
    for other_req in [false, true] {
        for w in 0..6 {
            for p in 0..3 {
                round += 1;
                let a = Ipv4Addr::new(10, 1, (round >> 8) as u8, round as u8);
                let (qpn_a, qpn_b) = (0x1000 + round, 0x2000 + round);
                let mut sent: [Vec<Frame>; 2] = [Vec::new(), Vec::new()];
                let mut push = |b: &mut Bench<Gateway>, port: InPort, f: Frame| {
                    b.push_frame(port, &f.data, f.user);
                    sent[port as usize].push(f);
                };
                push(&mut b, InPort::DcRx, req_frame(a, wan_host, round, qpn_a));
                b.run_until_drained(10_000, 16).unwrap();
                if w > 0 {
                    push(&mut b, InPort::WanRx, filler(w));
                }
                push(&mut b, InPort::WanRx, rep_frame(wan_host, a, round, qpn_b));
                if other_req {
                    let other = Ipv4Addr::new(10, 3, (round >> 8) as u8, round as u8);
                    if w > 0 {
                        push(&mut b, InPort::DcRx, filler(w));
                    }
                    push(&mut b, InPort::DcRx, req_frame(other, wan_host, 7, 7));
                }
                if p > 0 {
                    push(&mut b, InPort::DcRx, filler(p));
                }
                for i in 0..sizes.len() {
                    let beats = sizes[(i + w + p) % sizes.len()];
                    let data = RoceFrameBuilder::ipv4(a, wan_host)
                        .dest_qp(qpn_b)
                        .psn(i as u32)
                        .payload_len(if beats == 2 { 64 } else { 0 })
                        .build();
                    push(&mut b, InPort::DcRx, Frame::new(data));
                }
                let before = m.read_register(offset::FLOW_LOOKUPS_WITHOUT_SQP).unwrap();
                b.run_until_drained(10_000, 16).unwrap();
                feed_in_rtl_order(&mut b, &mut m, [&sent[0], &sent[1]]);
                m.advance_to(b.cycle());
                let after = m.read_register(offset::FLOW_LOOKUPS_WITHOUT_SQP).unwrap();
                misses.push(after - before);
                assert_eq!(
                    read(&mut b, offset::FLOW_LOOKUPS_WITHOUT_SQP),
                    after,
                    "round {round} (other REQ {other_req}, w {w}, p {p}): look-ups without a source QP"
                );
            }
        }
    }
    eprintln!("look-ups without SQP per round: {misses:?}");
    assert!(misses.iter().min() != misses.iter().max(), "{misses:?}");
    compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(iterate(&mut b), model_table(&m));
}

/// LH-01: data look-ups come first. While dc_rx carries one-beat RoCEv2
/// frames back to back (a look-up every clock), learned source QPs cannot
/// reach the flow table: the learner's queue keeps four pairings, the
/// fifth is lost and counted in LEARN_QUEUE_DROPS, and the four enter the
/// table once the flood ends. (The model assumes the queue never fills, so
/// this is checked against the RTL alone.)
#[test]
fn lh_01_learning_waits_out_a_lookup_flood_and_counts_what_it_loses() {
    let mut b = Bench::new(None).unwrap();
    b.csr_write(offset::LEARN_CONTROL, learn_control::CM_ENABLE)
        .unwrap();
    let wan_host = Ipv4Addr::new(10, 2, 0, 1);
    let host = |i: u32| Ipv4Addr::new(10, 1, 0, i as u8 + 1);
    for i in 0..5 {
        let f = req_frame(host(i), wan_host, i, 0x100 + i);
        b.push_frame(InPort::DcRx, &f.data, false);
    }
    b.run_until_drained(10_000, 16).unwrap();
    for i in 0..5 {
        let f = rep_frame(wan_host, host(i), i, 0x200 + i);
        b.push_frame(InPort::WanRx, &f.data, false);
    }
    let flood = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 9, 0, 1), wan_host)
        .dest_qp(0x42)
        .build();
    assert!(flood.len() <= 64, "one beat");
    for _ in 0..60 {
        b.push_frame(InPort::DcRx, &flood, false);
    }
    b.run(50, 0);
    assert_eq!(
        read(&mut b, offset::FLOW_LEARNED),
        0,
        "nothing during the flood"
    );
    b.run_until_drained(10_000, 16).unwrap();
    assert_eq!(read(&mut b, offset::LEARN_CM_BINDINGS), 10);
    assert_eq!(read(&mut b, offset::LEARN_QUEUE_DROPS), 1);
    assert_eq!(read(&mut b, offset::FLOW_LEARNED), 8);
    for i in 0..4 {
        let key = FlowKey::ipv4(host(i).octets(), wan_host.octets(), 0x200 + i);
        assert_eq!(learned_sqp(&mut b, key), Some(0x100 + i), "{key}");
    }
}
