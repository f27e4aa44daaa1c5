//! LH-01 source-QP learning in the RTL by PSN pairing
//! (`LEARN_CONTROL.psn_enable`): the real NIC capture without RDMA CM
//! teaches the gateway the data-centre sender's source QP from the first
//! acknowledgement, the soft-RoCE capture with CM off teaches what CM
//! would, and on random RC traffic (requests from the data-centre side,
//! acknowledgements, NAKs, read responses and other frames from the WAN
//! side, static entries, CM pairings), with random idle clocks and
//! backpressure, the RTL's flow table (read back by iteration) and every
//! counter equal the reference model's (`GatewayModel`, fed in the order
//! the RTL's parsers saw the frames), and every learned source QP is the
//! sender's true QP.

use cngw_driver::{Device, SimBus};
use cngw_model::learning::{capture_ports, FlowKey};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::bth::opcode;
use cngw_packet::cm::{CmMad, CmMessage, CmRep, CmReq};
use cngw_packet::pcap::read_pcap;
use cngw_packet::{Envelope, IpPair, RoceFrameBuilder};
use cngw_regmap::{flow_command, learn_control, offset};
use cngw_sim::Gateway;
use cngw_testbench::traffic::random_mix;
use cngw_testbench::{compare_counters, event, Bench, Pause};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;

fn captures() -> Option<PathBuf> {
    match std::env::var_os("CNGW_CAPTURES") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!("skipped: CNGW_CAPTURES is unset (it names the folder of real captures)");
            None
        }
    }
}

fn capture(name: &str) -> Option<Vec<Vec<u8>>> {
    let dir = captures()?;
    Some(
        read_pcap(dir.join(name))
            .unwrap()
            .into_iter()
            .map(|(_, f)| f)
            .collect(),
    )
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

/// Every entry of the RTL's flow table, read through the CSR.
fn iterate(b: &mut Bench<Gateway>) -> BTreeSet<Entry> {
    let mut device = Device::open(SimBus::new(b.gateway())).unwrap();
    let entries = device.flow_table().list().unwrap();
    entries
        .into_iter()
        .map(|(key, e)| (key, e.sqp, e.pinned))
        .collect()
}

fn model_table(m: &GatewayModel) -> BTreeSet<Entry> {
    m.flows()
        .iter()
        .map(|(&key, v)| (key, v.sqp, v.pinned))
        .collect()
}

/// Replays a capture frame after frame on the inputs `capture_ports` gives
/// (the first sender on dc_rx), feeding the model as the RTL saw them. A
/// frame enters 16 clocks after the last one's header: an acknowledgement
/// cannot follow its request closer than a round trip to the responder
/// (microseconds), and a request is tracked 6 clocks after its header.
fn replay_capture(b: &mut Bench<Gateway>, m: &mut GatewayModel, frames: &[Vec<u8>]) {
    for (f, port) in frames.iter().zip(capture_ports(frames)) {
        b.push_frame(port, f, false);
        let (_, seen) = b.run(1_000, event::parsed(port));
        assert_ne!(seen & event::parsed(port), 0, "the parser reported it");
        let p = b.take_parsed(port, 1)[0];
        m.receive_at(port, &Frame::new(f.clone()), Some(p.cycle));
        b.run(16, 0);
    }
    b.run_until_drained(100_000, 64).unwrap();
    m.advance_to(b.cycle());
}

/// The learned (or static) source QP of each flow of the RTL's table.
fn sqps(table: &BTreeSet<Entry>) -> BTreeMap<FlowKey, u32> {
    table
        .iter()
        .filter_map(|&(k, s, _)| s.map(|s| (k, s)))
        .collect()
}

/// LH-01 in the RTL on the real-NIC capture without CM
/// (`oferby_proxy_roce.pcap`: 192.168.70.4 sends a SEND_ONLY_WITH_IMMEDIATE
/// with PSN 0 to .6's QP 0x48, .6 acknowledges it to .4's QP 0x45, then .6
/// sends 33 SENDs which .4 acknowledges). With PSN pairing on, the ACK
/// teaches {.4 -> .6, DQP 0x48} its source QP 0x45 (one binding; .6's
/// SENDs come from the WAN side and are not tracked); with it off (after
/// reset) nothing is learned. Table and counters equal the model's.
#[test]
fn lh_01_psn_pairing_teaches_the_rtl_from_real_nic_acks() {
    let Some(frames) = capture("oferby_proxy_roce.pcap") else {
        return;
    };
    let key = FlowKey::ipv4([192, 168, 70, 4], [192, 168, 70, 6], 0x48);
    for enabled in [true, false] {
        let mut b = Bench::new(None).unwrap();
        let mut m = GatewayModel::new();
        m.set_reset_clock(b.gateway().reset_released_at());
        if enabled {
            both(
                &mut b,
                &mut m,
                offset::LEARN_CONTROL,
                learn_control::PSN_ENABLE,
            );
        }
        replay_capture(&mut b, &mut m, &frames);
        compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("enabled {enabled}: {e}"));
        let table = iterate(&mut b);
        assert_eq!(table, model_table(&m), "enabled {enabled}");
        let learned = sqps(&table);
        if enabled {
            assert_eq!(learned, BTreeMap::from([(key, 0x45)]));
            assert_eq!(read(&mut b, offset::LEARN_PSN_BINDINGS), 1);
            assert_eq!(read(&mut b, offset::FLOW_LEARNED), 1);
        } else {
            assert!(learned.is_empty(), "learning is off after reset");
            assert_eq!(read(&mut b, offset::LEARN_PSN_BINDINGS), 0);
        }
    }
}

/// LH-01 in the RTL on the soft-RoCE capture with CM snooping off and PSN
/// pairing on: the first ACK of each connection teaches the data-centre
/// side's flows the source QPs CM would (10.1.16.62 -> .61 QP 0x3b from
/// QP 0x3d, QP 0x3c from 0x3e). With both methods on, CM teaches all four
/// flows first and PSN pairing tracks none of them.
#[test]
fn lh_01_psn_pairing_on_the_cm_capture_agrees_with_cm_in_the_rtl() {
    let Some(frames) = capture("linlinw5_rdma_cm.pcap") else {
        return;
    };
    let (dc, wan) = ([10, 1, 16, 62], [10, 1, 16, 61]);
    let forward = [
        (FlowKey::ipv4(dc, wan, 0x3b), 0x3d),
        (FlowKey::ipv4(dc, wan, 0x3c), 0x3e),
    ];
    let reverse = [
        (FlowKey::ipv4(wan, dc, 0x3d), 0x3b),
        (FlowKey::ipv4(wan, dc, 0x3e), 0x3c),
    ];
    for methods in [
        learn_control::PSN_ENABLE,
        learn_control::PSN_ENABLE | learn_control::CM_ENABLE,
    ] {
        let mut b = Bench::new(None).unwrap();
        let mut m = GatewayModel::new();
        m.set_reset_clock(b.gateway().reset_released_at());
        both(&mut b, &mut m, offset::LEARN_CONTROL, methods);
        replay_capture(&mut b, &mut m, &frames);
        compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("{methods:#x}: {e}"));
        let table = iterate(&mut b);
        assert_eq!(table, model_table(&m), "{methods:#x}");
        let mut want: BTreeMap<FlowKey, u32> = forward.into_iter().collect();
        if methods & learn_control::CM_ENABLE != 0 {
            want.extend(reverse);
        }
        assert_eq!(sqps(&table), want, "{methods:#x}");
        // With CM on, the flows have their source QPs before any data:
        // nothing is tracked.
        let psn_bindings = if methods & learn_control::CM_ENABLE != 0 {
            0
        } else {
            2
        };
        assert_eq!(read(&mut b, offset::LEARN_PSN_BINDINGS), psn_bindings);
    }
}

// ---------------------------------------------------------- random RC traffic

/// A connection: the data-centre requester `a` (QP `qp_a`), the WAN
/// responder `b` (QP `qp_b`), the next request PSN and the PSNs sent.
struct Conn {
    a: IpAddr,
    b: IpAddr,
    qp_a: u32,
    qp_b: u32,
    next_psn: u32,
    sent: Vec<u32>,
}

fn mapped(a: IpAddr) -> [u8; 16] {
    match a {
        IpAddr::V4(v) => v.to_ipv6_mapped().octets(),
        IpAddr::V6(v) => v.octets(),
    }
}

fn rc(src: IpAddr, dst: IpAddr, op: u8, dqp: u32, psn: u32, payload: usize) -> Vec<u8> {
    let pair = IpPair::new(src, dst).unwrap();
    RoceFrameBuilder::new(Envelope::new(pair))
        .opcode(op)
        .dest_qp(dqp)
        .psn(psn & 0xff_ffff)
        .payload_len(payload)
        .build()
}

fn cm(src: IpAddr, dst: IpAddr, message: CmMessage) -> Vec<u8> {
    CmMad {
        transaction_id: 7,
        message,
    }
    .to_frame(&Envelope::new(IpPair::new(src, dst).unwrap()), 0, 0xC000)
    .to_bytes()
}

const REQUESTS: [u8; 8] = [
    opcode::RC_SEND_FIRST,
    opcode::RC_SEND_ONLY,
    opcode::RC_RDMA_WRITE_FIRST,
    opcode::RC_RDMA_WRITE_MIDDLE,
    opcode::RC_RDMA_WRITE_ONLY,
    opcode::RC_RDMA_READ_REQUEST,
    opcode::RC_FETCH_ADD,
    opcode::RC_SEND_ONLY_WITH_INVALIDATE,
];
const ACKS: [u8; 4] = [
    opcode::RC_ACKNOWLEDGE,
    opcode::RC_ATOMIC_ACKNOWLEDGE,
    opcode::RC_RDMA_READ_RESPONSE_FIRST,
    opcode::RC_RDMA_READ_RESPONSE_ONLY,
];

/// Runs one seed; returns (PSN bindings, ambiguous, evictions).
fn run_seed(seed: u64, steps: usize, idle: f64, backpressure: f64) -> (u32, u32, u32) {
    let mut rng = StdRng::seed_from_u64(seed);
    let dc_hosts: Vec<IpAddr> = vec![
        Ipv4Addr::new(10, 0, 0, 1).into(),
        Ipv4Addr::new(10, 0, 0, 2).into(),
        Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 1, 1).into(),
    ];
    let wan_hosts: Vec<IpAddr> = vec![
        Ipv4Addr::new(10, 9, 0, 1).into(),
        Ipv4Addr::new(10, 9, 0, 2).into(),
        Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 2, 1).into(),
    ];
    // 24 connections, more than the 16 trackers; every fourth one runs
    // between the first two hosts from nearby PSNs, so acknowledgements are
    // sometimes ambiguous (or, when the right tracker was replaced, teach
    // another connection's QP: PSN pairing's known weakness).
    let mut conns: Vec<Conn> = (0..24)
        .map(|i| {
            let h = if i % 4 == 0 { 0 } else { rng.gen_range(0..3) };
            Conn {
                a: dc_hosts[h],
                b: wan_hosts[h],
                qp_a: 0x1000 + i,
                qp_b: 0x2000 + i,
                next_psn: if i % 4 == 0 {
                    0xff_fff0
                } else {
                    rng.gen_range(0..1 << 24)
                },
                sent: Vec::new(),
            }
        })
        .collect();
    let mut b = Bench::new(None).unwrap();
    let mut m = GatewayModel::new();
    m.set_reset_clock(b.gateway().reset_released_at());
    both(
        &mut b,
        &mut m,
        offset::LEARN_CONTROL,
        learn_control::PSN_ENABLE | learn_control::CM_ENABLE,
    );
    both(&mut b, &mut m, offset::LEARN_PSN_WINDOW, 32);
    // Two connections have static entries (with the wrong source QP: PSN
    // pairing must leave them).
    for c in conns.iter().take(2) {
        let words = |a: IpAddr| {
            let o = mapped(a);
            [0, 1, 2, 3].map(|i| u32::from_be_bytes(o[4 * i..4 * i + 4].try_into().unwrap()))
        };
        for (i, w) in words(c.a).into_iter().enumerate() {
            both(&mut b, &mut m, offset::FLOW_SIP_0 + 4 * i as u32, w);
        }
        for (i, w) in words(c.b).into_iter().enumerate() {
            both(&mut b, &mut m, offset::FLOW_DIP_0 + 4 * i as u32, w);
        }
        both(&mut b, &mut m, offset::FLOW_DQP, c.qp_b);
        both(&mut b, &mut m, offset::FLOW_SQP, 0x77);
        both(
            &mut b,
            &mut m,
            offset::FLOW_COMMAND,
            flow_command::INSERT_STATIC,
        );
        b.run(20, 0);
    }
    for (i, port) in InPort::ALL.into_iter().enumerate() {
        *b.source_pause(port) = Pause::random(idle, seed.wrapping_add(i as u64));
    }
    for (i, port) in OutPort::ALL.into_iter().enumerate() {
        *b.sink_pause(port) = Pause::random(backpressure, seed.wrapping_add(8 + i as u64));
    }

    let mut frames: Vec<(InPort, Frame)> = Vec::new();
    let mut cm_done = false;
    for _ in 0..steps {
        let i = rng.gen_range(0..conns.len());
        let c = &mut conns[i];
        match rng.gen_range(0..100) {
            // Requests (several PSNs for a READ request), retransmissions.
            0..=49 => {
                let op = REQUESTS[rng.gen_range(0..REQUESTS.len())];
                let psn = if !c.sent.is_empty() && rng.gen_bool(0.1) {
                    c.sent[rng.gen_range(0..c.sent.len())]
                } else {
                    let p = c.next_psn;
                    let n = if op == opcode::RC_RDMA_READ_REQUEST {
                        rng.gen_range(1..4)
                    } else {
                        1
                    };
                    c.next_psn = (c.next_psn + n) & 0xff_ffff;
                    p
                };
                c.sent.push(psn);
                let f = rc(c.a, c.b, op, c.qp_b, psn, rng.gen_range(0..300));
                frames.push((InPort::DcRx, Frame::new(f)));
            }
            // Acknowledgements of recent PSNs, or of PSNs never sent.
            50..=74 => {
                let op = ACKS[rng.gen_range(0..ACKS.len())];
                let psn = match c.sent.last() {
                    Some(_) if rng.gen_bool(0.85) => {
                        let back = rng.gen_range(0..c.sent.len().min(40));
                        c.sent[c.sent.len() - 1 - back]
                    }
                    _ => rng.gen_range(0..1 << 24),
                };
                let f = rc(c.b, c.a, op, c.qp_a, psn, 0);
                frames.push((InPort::WanRx, Frame::new(f)));
            }
            // Not acknowledgements: READ RESPONSE LAST/MIDDLE, requests from
            // the WAN side, acknowledgements on dc_rx.
            75..=84 => {
                let psn = c.sent.last().copied().unwrap_or(0);
                let f = match rng.gen_range(0..4) {
                    0 => rc(
                        c.b,
                        c.a,
                        opcode::RC_RDMA_READ_RESPONSE_LAST,
                        c.qp_a,
                        psn,
                        64,
                    ),
                    1 => rc(
                        c.b,
                        c.a,
                        opcode::RC_RDMA_READ_RESPONSE_MIDDLE,
                        c.qp_a,
                        psn,
                        64,
                    ),
                    2 => rc(c.b, c.a, opcode::RC_SEND_ONLY, c.qp_a, psn, 64),
                    _ => {
                        let f = rc(c.a, c.b, opcode::RC_ACKNOWLEDGE, c.qp_b, psn, 0);
                        frames.push((InPort::DcRx, Frame::new(f)));
                        continue;
                    }
                };
                frames.push((InPort::WanRx, Frame::new(f)));
            }
            // One CM pairing for connection 23, which CM then owns.
            85..=87 if !cm_done => {
                cm_done = true;
                let c = &conns[23];
                let req = CmReq {
                    local_comm_id: 0x55,
                    service_id: 0,
                    local_ca_guid: 0,
                    local_qkey: 0,
                    local_qpn: c.qp_a,
                    starting_psn: 0,
                    pkey: 0xffff,
                };
                let rep = CmRep {
                    local_comm_id: 0x66,
                    remote_comm_id: 0x55,
                    local_qkey: 0,
                    local_qpn: c.qp_b,
                    starting_psn: 0,
                    local_ca_guid: 0,
                };
                frames.push((InPort::DcRx, Frame::new(cm(c.a, c.b, CmMessage::Req(req)))));
                frames.push((InPort::WanRx, Frame::new(cm(c.b, c.a, CmMessage::Rep(rep)))));
            }
            _ => {
                let port = if rng.gen_bool(0.5) {
                    InPort::DcRx
                } else {
                    InPort::WanRx
                };
                frames.extend(random_mix(&mut rng, 1).into_iter().map(|f| (port, f)));
            }
        }
    }

    let mut sent: [Vec<Frame>; 2] = [Vec::new(), Vec::new()];
    for (port, f) in &frames {
        b.push_frame(*port, &f.data, f.user);
        sent[*port as usize].push(f.clone());
        while b.frames_pending(InPort::DcRx) + b.frames_pending(InPort::WanRx) > 3 {
            b.run(1, 0);
        }
    }
    b.run_until_drained(10_000_000, 64).unwrap();
    // The model, fed in the order the RTL's parsers reported the frames
    // (by header clock, dc_rx first within a clock).
    let mut arrivals = Vec::new();
    for port in InPort::ALL {
        let parsed = b.take_parsed(port, usize::MAX);
        assert_eq!(parsed.len(), sent[port as usize].len());
        arrivals.extend(
            parsed
                .iter()
                .zip(&sent[port as usize])
                .map(|(p, f)| (p.cycle, port as usize, port, f.clone())),
        );
    }
    arrivals.sort_by_key(|a| (a.0, a.1));
    let mut emitted = Vec::new();
    for (cycle, _, port, f) in arrivals {
        emitted.extend(m.receive_at(port, &f, Some(cycle)).emitted);
    }
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
    // Independently of the model: every source QP the table holds for a
    // data-centre flow is its sender's true QP, or the static one; only
    // the connections sharing PSNs may have learned another's QP.
    let learned = sqps(&table);
    let mut right = 0;
    for (i, c) in conns.iter().enumerate() {
        let key = FlowKey::new(mapped(c.a), mapped(c.b), c.qp_b);
        match learned.get(&key) {
            Some(&sqp) if i < 2 => assert_eq!(sqp, 0x77, "seed {seed}: static entry {key}"),
            Some(&sqp) if sqp == c.qp_a => right += 1,
            Some(&sqp) => assert!(
                i % 4 == 0 && (0..24).any(|j| j % 4 == 0 && 0x1000 + j == sqp),
                "seed {seed}: {key} learned {sqp:#x}"
            ),
            None => {}
        }
    }
    assert!(right >= 15, "seed {seed}: only {right} flows learned");
    let counters = (
        read(&mut b, offset::LEARN_PSN_BINDINGS),
        read(&mut b, offset::LEARN_PSN_AMBIGUOUS),
        read(&mut b, offset::LEARN_PSN_EVICTIONS),
    );
    assert_eq!(read(&mut b, offset::LEARN_PSN_QUEUE_DROPS), 0);
    eprintln!(
        "seed {seed}: {} + {} frames, {} flows, {right} learned by PSN; bindings, ambiguous, evictions {counters:?}",
        sent[0].len(),
        sent[1].len(),
        table.len(),
    );
    counters
}

/// LH-01: random RC traffic at line rate, no idle clocks: the RTL's table
/// and counters equal the model's, and every learned source QP is right.
#[test]
fn lh_01_random_psn_traffic_matches_the_model() {
    let (bindings, ambiguous, evictions) = run_seed(1, 1500, 0.0, 0.0);
    assert!(bindings >= 15, "{bindings}");
    assert!(ambiguous > 0, "some acknowledgements should be ambiguous");
    assert!(evictions > 0, "the trackers should overflow");
}

/// LH-01: the same with random idle clocks and backpressure, which move
/// requests and acknowledgements against each other.
#[test]
fn lh_01_random_psn_traffic_matches_the_model_with_idle_and_backpressure() {
    run_seed(2, 1200, 0.3, 0.3);
    run_seed(3, 1200, 0.6, 0.5);
}

/// LH-01, clock-exact: a request on dc_rx, then its acknowledgement on
/// wan_rx pushed 0..12 clocks after the request's header. An
/// acknowledgement compared before the request is tracked, or in the same
/// clock (its header at most `PSN_REQUEST_DELAY - PSN_ACK_DELAY` = 5
/// clocks after the request's), teaches nothing; one clock later it
/// teaches the source QP. The RTL and the model agree at every distance, and both
/// outcomes occur.
#[test]
fn lh_01_psn_ack_right_behind_its_request_is_clock_exact() {
    let (a, bb): (IpAddr, IpAddr) = (
        Ipv4Addr::new(10, 0, 0, 1).into(),
        Ipv4Addr::new(10, 9, 0, 1).into(),
    );
    let key = FlowKey::new(mapped(a), mapped(bb), 0x222);
    let mut outcomes = BTreeSet::new();
    for gap in 0..12 {
        let mut b = Bench::new(None).unwrap();
        let mut m = GatewayModel::new();
        m.set_reset_clock(b.gateway().reset_released_at());
        both(
            &mut b,
            &mut m,
            offset::LEARN_CONTROL,
            learn_control::PSN_ENABLE,
        );
        let request = Frame::new(rc(a, bb, opcode::RC_SEND_ONLY, 0x222, 500, 0));
        let ack = Frame::new(rc(bb, a, opcode::RC_ACKNOWLEDGE, 0x111, 500, 0));
        b.push_frame(InPort::DcRx, &request.data, false);
        let (_, seen) = b.run(1_000, event::parsed(InPort::DcRx));
        assert_ne!(seen, 0);
        b.run(gap, 0);
        b.push_frame(InPort::WanRx, &ack.data, false);
        b.run_until_drained(10_000, 64).unwrap();
        let p_req = b.take_parsed(InPort::DcRx, 1)[0];
        let p_ack = b.take_parsed(InPort::WanRx, 1)[0];
        m.receive_at(InPort::DcRx, &request, Some(p_req.cycle));
        m.receive_at(InPort::WanRx, &ack, Some(p_ack.cycle));
        m.advance_to(b.cycle());
        compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("gap {gap}: {e}"));
        let table = iterate(&mut b);
        assert_eq!(table, model_table(&m), "gap {gap}");
        let learned = sqps(&table).get(&key).copied();
        let distance = p_ack.cycle - p_req.cycle;
        assert_eq!(
            learned.is_some(),
            distance > cngw_model::gateway::PSN_REQUEST_DELAY - cngw_model::gateway::PSN_ACK_DELAY,
            "gap {gap}: headers {distance} clocks apart"
        );
        outcomes.insert(learned);
    }
    assert_eq!(outcomes, BTreeSet::from([None, Some(0x111)]));
}
