//! LH-01 / PX-02 source-QP learning (`cngw_model::learning`): real captures
//! from `$CNGW_CAPTURES` (skipped with a message when it is unset) and
//! synthetic traffic built with the packet crate.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;

use cngw_model::learning::{capture_ports, FlowKey, LearnerConfig, LearnerCounters};
use cngw_model::{Binding, InPort, Learner, Method};
use cngw_packet::bth::opcode;
use cngw_packet::cm::{CmCommIds, CmDreq, CmMad, CmMessage, CmRep, CmReq};
use cngw_packet::parsed::{classify, ipv4_mapped};
use cngw_packet::pcap::read_pcap;
use cngw_packet::roce::Aeth;
use cngw_packet::traffic::{self, Side, TrafficConfig};
use cngw_packet::{Envelope, IpPair, RoceFrameBuilder};

use InPort::{DcRx, WanRx};

// ---------------------------------------------------------------- helpers

fn captures_dir() -> Option<PathBuf> {
    match std::env::var_os("CNGW_CAPTURES") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!("CNGW_CAPTURES is not set: capture tests skipped");
            None
        }
    }
}

fn capture(name: &str) -> Option<Vec<Vec<u8>>> {
    let path = captures_dir()?.join(name);
    Some(
        read_pcap(&path)
            .unwrap_or_else(|e| panic!("{path:?}: {e}"))
            .into_iter()
            .map(|(_, bytes)| bytes)
            .collect(),
    )
}

/// Feeds every frame on its port; the bindings taught, with the index of
/// the frame that taught them.
fn replay(l: &mut Learner, frames: &[Vec<u8>], ports: &[InPort]) -> Vec<(usize, Binding)> {
    let mut taught = Vec::new();
    for (i, (frame, &port)) in frames.iter().zip(ports).enumerate() {
        taught.extend(l.observe(port, frame).into_iter().map(|b| (i, b)));
    }
    taught
}

/// Feeds `(port, frame)` steps; every binding taught.
fn feed(l: &mut Learner, steps: &[(InPort, Vec<u8>)]) -> Vec<Binding> {
    steps
        .iter()
        .flat_map(|(port, frame)| l.observe(*port, frame))
        .collect()
}

fn learner() -> Learner {
    Learner::new(LearnerConfig::default()).unwrap()
}

fn addr16(a: IpAddr) -> [u8; 16] {
    match a {
        IpAddr::V4(v4) => ipv4_mapped(v4.octets()),
        IpAddr::V6(v6) => v6.octets(),
    }
}

fn key(src: impl Into<IpAddr>, dst: impl Into<IpAddr>, dqp: u32) -> FlowKey {
    FlowKey::new(addr16(src.into()), addr16(dst.into()), dqp)
}

fn bind(
    method: Method,
    src: impl Into<IpAddr>,
    dst: impl Into<IpAddr>,
    dqp: u32,
    sqp: u32,
) -> Binding {
    Binding {
        key: key(src, dst, dqp),
        sqp,
        method,
    }
}

fn env(src: impl Into<IpAddr>, dst: impl Into<IpAddr>) -> Envelope {
    Envelope::new(IpPair::new(src.into(), dst.into()).expect("one IP version"))
}

fn mad_frame(env: &Envelope, message: CmMessage) -> Vec<u8> {
    CmMad {
        transaction_id: 0x1234,
        message,
    }
    .to_frame(env, 0, 0xC000)
    .to_bytes()
}

fn req_in(env: &Envelope, comm_id: u32, qpn: u32) -> Vec<u8> {
    mad_frame(
        env,
        CmMessage::Req(CmReq {
            local_comm_id: comm_id,
            service_id: 0x0106_4853,
            local_ca_guid: 0x02DC_00FF_FE00_0001,
            local_qkey: 0,
            local_qpn: qpn,
            starting_psn: 0x10_0000,
            pkey: 0xFFFF,
        }),
    )
}

fn rep_in(env: &Envelope, comm_id: u32, remote_comm_id: u32, qpn: u32) -> Vec<u8> {
    mad_frame(
        env,
        CmMessage::Rep(CmRep {
            local_comm_id: comm_id,
            remote_comm_id,
            local_qkey: 0,
            local_qpn: qpn,
            starting_psn: 0x20_0000,
            local_ca_guid: 0x02AC_E0FF_FE00_0001,
        }),
    )
}

/// CM REQ from `src` to `dst` announcing `src`'s QP `qpn`.
fn req(src: impl Into<IpAddr>, dst: impl Into<IpAddr>, comm_id: u32, qpn: u32) -> Vec<u8> {
    req_in(&env(src, dst), comm_id, qpn)
}

/// CM REP from `src` to `dst` announcing `src`'s QP `qpn`, answering the REQ
/// with Local Communication ID `remote_comm_id`.
fn rep(
    src: impl Into<IpAddr>,
    dst: impl Into<IpAddr>,
    comm_id: u32,
    remote_comm_id: u32,
    qpn: u32,
) -> Vec<u8> {
    rep_in(&env(src, dst), comm_id, remote_comm_id, qpn)
}

/// An RC packet with `op` toward QP `dqp` with `psn`.
fn rc(src: impl Into<IpAddr>, dst: impl Into<IpAddr>, op: u8, dqp: u32, psn: u32) -> Vec<u8> {
    RoceFrameBuilder::new(env(src, dst))
        .opcode(op)
        .dest_qp(dqp)
        .psn(psn)
        .payload_len(if op == opcode::RC_ACKNOWLEDGE { 0 } else { 64 })
        .build()
}

fn ack(src: impl Into<IpAddr>, dst: impl Into<IpAddr>, dqp: u32, psn: u32) -> Vec<u8> {
    rc(src, dst, opcode::RC_ACKNOWLEDGE, dqp, psn)
}

/// A DC host, a second DC host, two WAN hosts.
const A: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 1);
const D: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 2);
const B: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 1);
const C: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 2);

// ---------------------------------------------------------- real captures

const LINLINW5_DC: Ipv4Addr = Ipv4Addr::new(10, 1, 16, 62);
const LINLINW5_WAN: Ipv4Addr = Ipv4Addr::new(10, 1, 16, 61);

/// LH-01 (CM snooping) on the soft-RoCE capture of `ib_write_bw --rdma_cm`:
/// the two REPs (frames 2 and 25 in tshark's numbering) teach exactly the
/// connections 10.1.16.62 QP 0x3d <-> 10.1.16.61 QP 0x3b and 0x3e <-> 0x3c,
/// four bindings. Each connection's data starts after its REP, so no flow
/// is ever tracked for PSN pairing.
#[test]
fn lh_01_cm_capture_teaches_both_connections() {
    let Some(frames) = capture("linlinw5_rdma_cm.pcap") else {
        return;
    };
    let ports = capture_ports(&frames);
    assert_eq!(frames.len(), 96);
    assert_eq!(
        classify(&frames[0]).src_ip,
        ipv4_mapped(LINLINW5_DC.octets())
    );
    assert_eq!((ports[0], ports[1]), (DcRx, WanRx));

    let mut l = learner();
    let taught = replay(&mut l, &frames, &ports);
    let (dc, wan) = (LINLINW5_DC, LINLINW5_WAN);
    let expected = vec![
        (1, bind(Method::Cm, dc, wan, 0x3b, 0x3d)),
        (1, bind(Method::Cm, wan, dc, 0x3d, 0x3b)),
        (24, bind(Method::Cm, dc, wan, 0x3c, 0x3e)),
        (24, bind(Method::Cm, wan, dc, 0x3e, 0x3c)),
    ];
    assert_eq!(taught, expected);
    let mut table: Vec<_> = expected.iter().map(|(_, b)| *b).collect();
    table.sort();
    assert_eq!(l.learned().collect::<Vec<_>>(), table);
    assert_eq!(
        l.counters(),
        LearnerCounters {
            cm_bindings: 4,
            ..Default::default()
        }
    );
    assert_eq!(l.pending_reqs().count(), 0);
    assert_eq!(l.psn_trackers().count(), 0);
}

/// LH-01 (PSN pairing) on the same capture with CM snooping off: the first
/// ACK of each connection (frames 5 and 49) pairs with the data-centre
/// side's request it acknowledges and teaches the source QPs CM gave the
/// data-centre side's flows: the two methods agree on real traffic. (The
/// WAN side's flows, which the gateway never notifies, are not learned.)
#[test]
fn lh_01_psn_pairing_on_cm_capture_agrees_with_cm() {
    let Some(frames) = capture("linlinw5_rdma_cm.pcap") else {
        return;
    };
    let ports = capture_ports(&frames);
    let mut l = Learner::new(LearnerConfig {
        cm_enable: false,
        ..LearnerConfig::default()
    })
    .unwrap();
    let taught = replay(&mut l, &frames, &ports);
    let (dc, wan) = (LINLINW5_DC, LINLINW5_WAN);
    assert_eq!(
        taught,
        vec![
            (4, bind(Method::Psn, dc, wan, 0x3b, 0x3d)),
            (48, bind(Method::Psn, dc, wan, 0x3c, 0x3e)),
        ]
    );
    let mut cm = learner();
    replay(&mut cm, &frames, &ports);
    let from_dc = |l: &Learner| {
        l.learned()
            .filter(|b| b.key.sip == u128::from_be_bytes(ipv4_mapped(dc.octets())))
            .map(|b| (b.key, b.sqp))
            .collect::<Vec<_>>()
    };
    assert_eq!(from_dc(&l), from_dc(&cm));
    assert_eq!(from_dc(&cm).len(), 2);
    assert_eq!(l.counters().psn_bindings, 2);
    assert_eq!(l.counters().cm_bindings, 0);
}

/// LH-01: direction matters. Fed as if every frame came in on dc_rx, the
/// capture teaches nothing: a REP must come back on the other port than
/// its REQ, an acknowledgement on the other port than its requests.
#[test]
fn lh_01_capture_seen_on_one_port_teaches_nothing() {
    let Some(frames) = capture("linlinw5_rdma_cm.pcap") else {
        return;
    };
    let mut l = learner();
    let taught = replay(&mut l, &frames, &vec![DcRx; frames.len()]);
    assert_eq!(taught, vec![]);
    assert_eq!(l.learned().count(), 0);
    assert_eq!(l.counters().cm_rep_unmatched, 2);
    // The two REQs are still waiting, and the three request flows (SENDs
    // both ways on the first connection, WRITEs on the second) are tracked
    // (requests are tracked from dc_rx; acknowledgements count on wan_rx).
    assert_eq!(l.pending_reqs().count(), 2);
    assert_eq!(l.psn_trackers().count(), 3);
}

/// LH-01 (PSN pairing) on a real-hardware capture with no CM at all. It
/// holds one RC connection between 192.168.70.4 and 192.168.70.6: .4 sends
/// a SEND_ONLY_WITH_IMMEDIATE (PSN 0) to .6's QP 0x48, and .6 acknowledges
/// it to .4's QP 0x45 (tshark frames 15 and 16); then .6 sends 33
/// two-packet SENDs to QP 0x45, which .4 acknowledges to QP 0x48 with
/// coalesced ACKs (PSN 0, 1, 3, 5, ...). .4 sends first, so it is the
/// data-centre side: the first ACK teaches 192.168.70.4 -> .6 QP 0x48 comes
/// from QP 0x45. Fed with the ports swapped, .6's SEND stream (now from
/// the data-centre side) and .4's first ACK of it (tshark frame 19) teach
/// .6 -> .4 QP 0x45 from QP 0x48.
#[test]
fn lh_01_psn_pairing_on_real_nic_capture() {
    let Some(frames) = capture("oferby_proxy_roce.pcap") else {
        return;
    };
    let ports = capture_ports(&frames);
    let (h4, h6) = (
        Ipv4Addr::new(192, 168, 70, 4),
        Ipv4Addr::new(192, 168, 70, 6),
    );
    assert_eq!(classify(&frames[14]).src_ip, ipv4_mapped(h4.octets()));
    assert_eq!((ports[14], ports[15]), (DcRx, WanRx));

    let mut l = learner();
    let taught = replay(&mut l, &frames, &ports);
    assert_eq!(taught, vec![(15, bind(Method::Psn, h4, h6, 0x48, 0x45)),]);
    assert_eq!(
        l.counters(),
        LearnerCounters {
            psn_bindings: 1,
            ..Default::default()
        }
    );
    assert_eq!(l.psn_trackers().count(), 0);

    let swapped: Vec<InPort> = ports
        .iter()
        .map(|&p| if p == DcRx { WanRx } else { DcRx })
        .collect();
    let mut other = learner();
    let taught = replay(&mut other, &frames[16..], &swapped[16..]);
    assert_eq!(taught, vec![(2, bind(Method::Psn, h6, h4, 0x45, 0x48))]);
}

// ---------------------------------------------------------- CM snooping

/// LH-01: REQs and REPs of four connections, interleaved with data, pair by
/// {requester, responder, communication ID}: three REQs share comm ID 0x100
/// and the REQs that must not match sit in lower slots than the one that
/// must, so a match on the comm ID alone, or one address, would pick them.
#[test]
fn lh_01_cm_interleaved_connections_pair_by_addresses_and_comm_id() {
    let mut l = learner();
    let steps = vec![
        (DcRx, req(A, C, 0x100, 0x13)), // slot 0
        (DcRx, req(D, B, 0x100, 0x14)), // slot 1
        (DcRx, req(A, B, 0x100, 0x11)), // slot 2
        (DcRx, rc(A, B, opcode::RC_SEND_ONLY, 0x77, 5)),
        (DcRx, req(A, B, 0x101, 0x12)),
        (WanRx, ack(B, A, 0x66, 9)),
    ];
    assert_eq!(feed(&mut l, &steps), vec![]);
    assert_eq!(l.pending_reqs().count(), 4);

    assert_eq!(
        l.observe(WanRx, &rep(B, A, 0x900, 0x100, 0x21)),
        vec![
            bind(Method::Cm, A, B, 0x21, 0x11),
            bind(Method::Cm, B, A, 0x11, 0x21)
        ]
    );
    assert_eq!(
        l.observe(WanRx, &rep(B, D, 0x901, 0x100, 0x24)),
        vec![
            bind(Method::Cm, D, B, 0x24, 0x14),
            bind(Method::Cm, B, D, 0x14, 0x24)
        ]
    );
    assert_eq!(
        l.observe(WanRx, &rep(B, A, 0x902, 0x101, 0x22)),
        vec![
            bind(Method::Cm, A, B, 0x22, 0x12),
            bind(Method::Cm, B, A, 0x12, 0x22)
        ]
    );
    assert_eq!(
        l.observe(WanRx, &rep(C, A, 0x903, 0x100, 0x23)),
        vec![
            bind(Method::Cm, A, C, 0x23, 0x13),
            bind(Method::Cm, C, A, 0x13, 0x23)
        ]
    );
    assert_eq!(l.pending_reqs().count(), 0);
    assert_eq!(l.learned().count(), 8);
    assert_eq!(l.counters().cm_bindings, 8);
    assert_eq!(l.counters().cm_rep_unmatched, 0);
}

/// LH-01: a REP teaches only with its own pending REQ: none at all, another
/// comm ID, another responder, another requester, or the same port as the
/// REQ all learn nothing and are counted; the right REP then learns, and a
/// retransmitted REP (its REQ consumed) is unmatched and changes nothing.
#[test]
fn lh_01_cm_rep_without_its_req_teaches_nothing() {
    let mut l = learner();
    assert_eq!(l.observe(WanRx, &rep(B, A, 0x900, 0x100, 0x21)), vec![]);
    assert_eq!(l.counters().cm_rep_unmatched, 1);

    assert_eq!(l.observe(DcRx, &req(A, B, 0x100, 0x11)), vec![]);
    for (port, wrong) in [
        (WanRx, rep(B, A, 0x900, 0x999, 0x21)), // other comm ID
        (WanRx, rep(C, A, 0x900, 0x100, 0x21)), // other responder
        (WanRx, rep(B, D, 0x900, 0x100, 0x21)), // other requester
        (DcRx, rep(B, A, 0x900, 0x100, 0x21)),  // same port as the REQ
    ] {
        assert_eq!(l.observe(port, &wrong), vec![]);
    }
    assert_eq!(l.counters().cm_rep_unmatched, 5);
    assert_eq!(l.learned().count(), 0);
    assert_eq!(l.pending_reqs().count(), 1);

    let right = rep(B, A, 0x900, 0x100, 0x21);
    assert_eq!(l.observe(WanRx, &right).len(), 2);
    let table: Vec<_> = l.learned().collect();
    assert_eq!(l.observe(WanRx, &right), vec![]);
    assert_eq!(l.counters().cm_rep_unmatched, 6);
    assert_eq!(l.learned().collect::<Vec<_>>(), table);
}

/// LH-01: the pending-REQ table holds 8 REQs; a ninth replaces the least
/// recently used. A retransmitted REQ refreshes its entry (no eviction), so
/// the second REQ, not the first, is replaced; a REP frees its slot, which
/// the next REQ takes without an eviction. The size is a parameter.
#[test]
fn lh_01_cm_pending_table_overflow_replaces_oldest() {
    let host = |i: u8| Ipv4Addr::new(10, 1, 1, i);
    let mut l = learner();
    for i in 0..8u8 {
        l.observe(DcRx, &req(host(i), B, i as u32, 0x100 + i as u32));
        if i == 3 {
            // A retransmission refreshes its entry; it takes no slot.
            l.observe(DcRx, &req(host(0), B, 0, 0x100));
            assert_eq!(l.pending_reqs().count(), 4);
        }
    }
    assert_eq!(l.counters().cm_req_evictions, 0);
    l.observe(DcRx, &req(host(8), B, 8, 0x108));
    assert_eq!(l.counters().cm_req_evictions, 1);
    let comm_ids: Vec<u32> = l.pending_reqs().map(|p| p.comm_id).collect();
    assert_eq!(comm_ids, vec![0, 8, 2, 3, 4, 5, 6, 7]);

    assert_eq!(l.observe(WanRx, &rep(B, host(1), 0x901, 1, 0x201)), vec![]);
    assert_eq!(l.counters().cm_rep_unmatched, 1);
    for i in [0u8, 2, 3, 4, 5, 6, 7, 8] {
        let taught = l.observe(
            WanRx,
            &rep(B, host(i), 0x900 + i as u32, i as u32, 0x200 + i as u32),
        );
        assert_eq!(
            taught[0],
            bind(Method::Cm, host(i), B, 0x200 + i as u32, 0x100 + i as u32),
            "connection {i}"
        );
    }
    l.observe(DcRx, &req(host(9), B, 9, 0x109));
    assert_eq!(l.counters().cm_req_evictions, 1);
    assert_eq!(l.observe(WanRx, &rep(B, host(9), 0x909, 9, 0x209)).len(), 2);
    assert_eq!(l.counters().cm_bindings, 18);

    let mut small = Learner::new(LearnerConfig {
        pending_reqs: 2,
        ..LearnerConfig::default()
    })
    .unwrap();
    for i in 0..3u8 {
        small.observe(DcRx, &req(host(i), B, i as u32, 0x100 + i as u32));
    }
    assert_eq!(small.counters().cm_req_evictions, 1);
    assert_eq!(
        small.pending_reqs().map(|p| p.comm_id).collect::<Vec<_>>(),
        vec![2, 1]
    );
}

/// LH-01: RTU, DREQ, DREP, other CM attributes and a MAD of another class
/// on QP 1 change no binding (flows leave the table by aging); a later CM
/// connection reusing a QP number overwrites the binding.
#[test]
fn lh_01_cm_rtu_dreq_drep_change_nothing() {
    let mut l = learner();
    l.observe(DcRx, &req(A, B, 0x100, 0x11));
    l.observe(WanRx, &rep(B, A, 0x900, 0x100, 0x21));
    let table: Vec<_> = l.learned().collect();
    let counters = l.counters();
    let ab = env(A, B);
    let ba = env(B, A);
    let ids = CmCommIds {
        local_comm_id: 0x100,
        remote_comm_id: 0x900,
    };
    let mut other_class = mad_frame(&ab, CmMessage::Rtu(ids));
    let mad_at = other_class.len() - 4 - 256;
    other_class[mad_at + 1] = 0x04; // performance management class
    let steps = vec![
        (DcRx, mad_frame(&ab, CmMessage::Rtu(ids))),
        (
            DcRx,
            mad_frame(
                &ab,
                CmMessage::Dreq(CmDreq {
                    local_comm_id: 0x100,
                    remote_comm_id: 0x900,
                    remote_qpn: 0x21,
                }),
            ),
        ),
        (WanRx, mad_frame(&ba, CmMessage::Drep(ids))),
        (
            WanRx,
            mad_frame(
                &ba,
                CmMessage::Other {
                    attribute_id: 0x0012,
                },
            ),
        ),
        (DcRx, other_class),
    ];
    assert_eq!(feed(&mut l, &steps), vec![]);
    assert_eq!(l.learned().collect::<Vec<_>>(), table);
    assert_eq!(l.counters(), counters);

    // A new connection reuses B's QP 0x21 with A's QP 0x15.
    l.observe(DcRx, &req(A, B, 0x102, 0x15));
    l.observe(WanRx, &rep(B, A, 0x902, 0x102, 0x21));
    assert_eq!(l.binding(&key(A, B, 0x21)).unwrap().sqp, 0x15);
}

/// LH-01: with a method disabled, its frames teach nothing and leave no
/// state.
#[test]
fn lh_01_disabled_methods_teach_nothing() {
    let steps = vec![
        (DcRx, req(A, B, 0x100, 0x11)),
        (WanRx, rep(B, A, 0x900, 0x100, 0x21)),
        (DcRx, rc(A, C, opcode::RC_SEND_ONLY, 0x31, 7)),
        (WanRx, ack(C, A, 0x41, 7)),
    ];
    let mut no_cm = Learner::new(LearnerConfig {
        cm_enable: false,
        ..LearnerConfig::default()
    })
    .unwrap();
    assert_eq!(
        feed(&mut no_cm, &steps),
        vec![bind(Method::Psn, A, C, 0x31, 0x41)]
    );
    assert_eq!(no_cm.pending_reqs().count(), 0);
    let mut no_psn = Learner::new(LearnerConfig {
        psn_enable: false,
        ..LearnerConfig::default()
    })
    .unwrap();
    assert_eq!(
        feed(&mut no_psn, &steps),
        vec![
            bind(Method::Cm, A, B, 0x21, 0x11),
            bind(Method::Cm, B, A, 0x11, 0x21)
        ]
    );
    assert_eq!(no_psn.psn_trackers().count(), 0);
}

// ---------------------------------------------------------- PSN pairing

/// LH-01: two flows from A to B both used PSN 100, so an ACK with PSN 100
/// is ambiguous and teaches nothing (counted). Once one flow moves on to
/// PSN 101, an ACK with PSN 101 matches it alone, although a flow to
/// another host (A -> C) and B's own requests to A used 101 too; with that
/// flow's tracker freed, PSN 100 is unique to the other.
#[test]
fn lh_01_psn_same_psn_in_two_flows_is_ambiguous() {
    let send = opcode::RC_SEND_ONLY;
    let mut l = learner();
    let steps = vec![
        (DcRx, rc(A, B, send, 0x31, 100)),
        (DcRx, rc(A, B, send, 0x32, 100)),
        (WanRx, ack(B, A, 0x41, 100)),
    ];
    assert_eq!(feed(&mut l, &steps), vec![]);
    assert_eq!(l.counters().psn_ambiguous, 1);

    let steps = vec![
        (DcRx, rc(A, B, send, 0x31, 101)),
        (DcRx, rc(A, C, send, 0x33, 101)),
        (WanRx, rc(B, A, send, 0x41, 101)),
        (WanRx, ack(B, A, 0x41, 101)),
    ];
    assert_eq!(
        feed(&mut l, &steps),
        vec![bind(Method::Psn, A, B, 0x31, 0x41)]
    );
    assert_eq!(
        l.observe(WanRx, &ack(B, A, 0x42, 100)),
        vec![bind(Method::Psn, A, B, 0x32, 0x42)]
    );
    assert_eq!(l.counters().psn_ambiguous, 1);
    assert_eq!(l.counters().psn_bindings, 2);
    // Left: A -> C, never acknowledged.
    let tracked: Vec<FlowKey> = l.psn_trackers().map(|t| t.key).collect();
    assert_eq!(tracked, vec![key(A, C, 0x33)]);
}

/// LH-01: an acknowledgement pairs only on wan_rx (requests are tracked
/// on dc_rx), with a PSN inside the flow's window (the last `psn_window`
/// PSNs, here 4), and only with an acknowledging opcode.
#[test]
fn lh_01_psn_ack_must_be_reverse_in_window_and_an_ack() {
    let mut l = Learner::new(LearnerConfig {
        psn_window: 4,
        ..LearnerConfig::default()
    })
    .unwrap();
    for psn in 10..=14 {
        l.observe(DcRx, &rc(A, B, opcode::RC_RDMA_WRITE_MIDDLE, 0x31, psn));
    }
    let t = *l.psn_trackers().next().unwrap();
    assert_eq!((t.newest_psn, t.span), (14, 4));
    let nothing = vec![
        (DcRx, ack(B, A, 0x41, 12)), // same port as the requests
        (WanRx, rc(A, B, opcode::RC_SEND_ONLY, 0x31, 20)), // a request from the WAN side
        (WanRx, ack(B, A, 0x41, 10)), // left the window
        (WanRx, ack(B, A, 0x41, 15)), // not sent yet
        (
            WanRx,
            rc(B, A, opcode::RC_RDMA_READ_RESPONSE_LAST, 0x41, 12),
        ),
        (
            WanRx,
            rc(B, A, opcode::RC_RDMA_READ_RESPONSE_MIDDLE, 0x41, 12),
        ),
        (WanRx, rc(B, A, opcode::UC_SEND_ONLY, 0x41, 12)),
        (WanRx, rc(B, A, opcode::CNP, 0x41, 12)),
    ];
    assert_eq!(feed(&mut l, &nothing), vec![]);
    assert_eq!(l.learned().count(), 0);
    assert_eq!(
        l.observe(WanRx, &ack(B, A, 0x41, 11)),
        vec![bind(Method::Psn, A, B, 0x31, 0x41)]
    );
}

/// LH-01: read responses (FIRST, ONLY) and atomic acknowledgements carry
/// their request's PSN, and a NAK the PSN it refuses: each pairs.
#[test]
fn lh_01_psn_read_responses_atomic_acks_and_naks_pair() {
    let mut l = learner();
    let cases = [
        (
            opcode::RC_RDMA_READ_REQUEST,
            opcode::RC_RDMA_READ_RESPONSE_FIRST,
        ),
        (
            opcode::RC_RDMA_READ_REQUEST,
            opcode::RC_RDMA_READ_RESPONSE_ONLY,
        ),
        (opcode::RC_COMPARE_SWAP, opcode::RC_ATOMIC_ACKNOWLEDGE),
        (opcode::RC_FETCH_ADD, opcode::RC_ATOMIC_ACKNOWLEDGE),
        (opcode::RC_SEND_ONLY_WITH_INVALIDATE, opcode::RC_ACKNOWLEDGE),
    ];
    for (i, (request, response)) in cases.into_iter().enumerate() {
        let (x, y, psn) = (0x50 + i as u32, 0x60 + i as u32, 1000 * i as u32);
        l.observe(DcRx, &rc(A, B, request, x, psn));
        let taught = l.observe(WanRx, &rc(B, A, response, y, psn));
        assert_eq!(
            taught,
            vec![bind(Method::Psn, A, B, x, y)],
            "request {request:#x}, response {response:#x}"
        );
    }
    // A PSN sequence error NAK names the PSN the responder expected.
    l.observe(DcRx, &rc(A, B, opcode::RC_SEND_FIRST, 0x70, 77));
    let nak = RoceFrameBuilder::new(env(B, A))
        .opcode(opcode::RC_ACKNOWLEDGE)
        .dest_qp(0x71)
        .psn(77)
        .aeth(Aeth {
            syndrome: 0x60,
            msn: 3,
        })
        .build();
    assert_eq!(
        l.observe(WanRx, &nak)[0],
        bind(Method::Psn, A, B, 0x70, 0x71)
    );
}

/// LH-01: PSN pairing never changes a CM binding. Flows with a source QP
/// are not tracked; a flow that CM taught after its request was tracked
/// keeps the CM binding when the acknowledgement pairs (the pairing is
/// counted, the binding only fills a flow without one); a forgotten (aged)
/// flow is tracked again; CM overwrites a PSN binding.
#[test]
fn lh_01_psn_never_overrides_cm() {
    let mut l = learner();
    l.observe(DcRx, &req(A, B, 0x100, 0x11));
    l.observe(WanRx, &rep(B, A, 0x900, 0x100, 0x21));
    l.observe(DcRx, &rc(A, B, opcode::RC_SEND_ONLY, 0x21, 5));
    assert_eq!(l.psn_trackers().count(), 0, "a learned flow is tracked");

    // A -> B toward QP 0x22 is tracked, then CM teaches it; the ACK pairs
    // (to another QP) and changes nothing.
    l.observe(DcRx, &rc(A, B, opcode::RC_SEND_ONLY, 0x22, 6));
    assert_eq!(l.psn_trackers().count(), 1);
    l.observe(DcRx, &req(A, B, 0x101, 0x12));
    l.observe(WanRx, &rep(B, A, 0x901, 0x101, 0x22));
    assert_eq!(l.observe(WanRx, &ack(B, A, 0x13, 6)), vec![]);
    assert_eq!(l.counters().psn_bindings, 1);
    assert_eq!(l.psn_trackers().count(), 0);
    assert_eq!(
        l.binding(&key(A, B, 0x22)),
        Some(bind(Method::Cm, A, B, 0x22, 0x12))
    );

    // A -> B toward QP 0x21 ages out of the flow table and is tracked
    // again; an ACK to A's QP 0x11 teaches it.
    l.forget(&key(A, B, 0x21));
    l.observe(DcRx, &rc(A, B, opcode::RC_SEND_ONLY, 0x21, 7));
    assert_eq!(
        l.psn_trackers()
            .filter(|t| t.key == key(A, B, 0x21))
            .count(),
        1
    );
    assert_eq!(
        l.observe(WanRx, &ack(B, A, 0x11, 7)),
        vec![bind(Method::Psn, A, B, 0x21, 0x11)]
    );
    assert_eq!(l.binding(&key(B, A, 0x11)).unwrap().method, Method::Cm);

    // CM overwrites a PSN binding.
    l.observe(DcRx, &rc(A, C, opcode::RC_SEND_ONLY, 0x31, 9));
    l.observe(WanRx, &ack(C, A, 0x41, 9));
    assert_eq!(
        l.binding(&key(A, C, 0x31)),
        Some(bind(Method::Psn, A, C, 0x31, 0x41))
    );
    l.observe(DcRx, &req(A, C, 0x200, 0x45));
    l.observe(WanRx, &rep(C, A, 0x910, 0x200, 0x31));
    assert_eq!(
        l.binding(&key(A, C, 0x31)),
        Some(bind(Method::Cm, A, C, 0x31, 0x45))
    );
}

/// LH-01: the tracker table is bounded (here 2 slots): a third flow
/// replaces the least recently used tracker (counted), whose PSNs then
/// teach nothing; the others still pair.
#[test]
fn lh_01_psn_tracker_overflow_replaces_least_recently_used() {
    let mut l = Learner::new(LearnerConfig {
        psn_trackers: 2,
        ..LearnerConfig::default()
    })
    .unwrap();
    let send = opcode::RC_SEND_ONLY;
    // PSNs far apart: each window holds only its own flow's PSNs.
    let steps = vec![
        (DcRx, rc(A, B, send, 0x31, 0x10_0000)),
        (DcRx, rc(A, B, send, 0x32, 0x20_0000)),
        (DcRx, rc(A, B, send, 0x31, 0x10_0001)), // 0x32 is now the oldest
        (DcRx, rc(A, B, send, 0x33, 0x30_0000)),
        (WanRx, ack(B, A, 0x42, 0x20_0000)),
    ];
    assert_eq!(feed(&mut l, &steps), vec![]);
    assert_eq!(l.counters().psn_tracker_evictions, 1);
    assert_eq!(
        l.observe(WanRx, &ack(B, A, 0x41, 0x10_0000))[0],
        bind(Method::Psn, A, B, 0x31, 0x41)
    );
    assert_eq!(
        l.observe(WanRx, &ack(B, A, 0x43, 0x30_0000))[0],
        bind(Method::Psn, A, B, 0x33, 0x43)
    );
    assert_eq!(l.binding(&key(A, B, 0x32)), None);
}

/// LH-01: PSN windows wrap at 2^24.
#[test]
fn lh_01_psn_window_wraps() {
    let mut l = learner();
    for psn in [0xff_fffe, 0xff_ffff, 0, 1] {
        l.observe(DcRx, &rc(A, B, opcode::RC_RDMA_WRITE_MIDDLE, 0x31, psn));
    }
    assert_eq!(l.observe(WanRx, &ack(B, A, 0x41, 0xff_fffe)).len(), 1);
}

// ---------------------------------------------------------- IPv6 and generated traffic

/// LH-01: IPv6 flows (one behind an 802.1Q tag, which moves the MAD 4 bytes
/// on) learn by CM and by PSN pairing with their full 128-bit addresses.
#[test]
fn lh_01_ipv6_flows_learn_by_cm_and_psn() {
    let dc: Ipv6Addr = "fd00:dc::1".parse().unwrap();
    let wan: Ipv6Addr = "fd00:ace::1".parse().unwrap();
    let wan2: Ipv6Addr = "2001:db8::2".parse().unwrap();
    let mut l = learner();
    l.observe(DcRx, &req_in(&env(dc, wan).with_vlan(100), 0x100, 0x11));
    assert_eq!(
        l.observe(
            WanRx,
            &rep_in(&env(wan, dc).with_vlan(100), 0x900, 0x100, 0x21)
        ),
        vec![
            bind(Method::Cm, dc, wan, 0x21, 0x11),
            bind(Method::Cm, wan, dc, 0x11, 0x21)
        ]
    );
    l.observe(
        DcRx,
        &rc(dc, wan2, opcode::RC_RDMA_WRITE_ONLY, 0x12, 0x7f_0000),
    );
    assert_eq!(
        l.observe(WanRx, &ack(wan2, dc, 0x22, 0x7f_0000)),
        vec![bind(Method::Psn, dc, wan2, 0x12, 0x22)]
    );
    assert_eq!(
        l.binding(&key(dc, wan, 0x21)).unwrap().key.sip,
        u128::from_be_bytes(dc.octets())
    );
}

/// LH-01 on generated conversations (`cngw gen traffic`): 20 connections
/// open within 20 us while REPs take a 100 us WAN round trip, so the 8-slot
/// pending table loses the REQs of the first 12 (counted as evictions and
/// unmatched REPs); those connections learn their data-centre side's flow
/// from its PSNs instead. Every flow of the data-centre senders ends with
/// its right source QP (and the CM connections' WAN flows too), over IPv4
/// and over IPv6 with an 802.1Q tag; with 12 WRITE flows waiting at once,
/// no tracker of 16 is evicted; 8 trackers thrash (113 replacements,
/// counted) and the first 4 WRITE flows' ACKs always find their trackers
/// replaced: those flows stay without a source QP.
#[test]
fn lh_01_generated_traffic_every_flow_learned() {
    for (ipv6, vlan) in [(false, None), (true, Some(100))] {
        let cfg = TrafficConfig {
            flows: 20,
            ipv6,
            vlan,
            ..TrafficConfig::default()
        };
        let t = traffic::generate(&cfg);
        let expected = |lost: usize| -> Vec<Binding> {
            let mut e: Vec<Binding> = t
                .flows
                .iter()
                .enumerate()
                .skip(lost)
                .flat_map(|(i, f)| {
                    let forward = |method| bind(method, f.dc_ip, f.wan_ip, f.wan_qpn, f.dc_qpn);
                    if i < 12 {
                        vec![forward(Method::Psn)]
                    } else {
                        vec![
                            forward(Method::Cm),
                            bind(Method::Cm, f.wan_ip, f.dc_ip, f.dc_qpn, f.wan_qpn),
                        ]
                    }
                })
                .collect();
            e.sort();
            e
        };
        for (psn_trackers, psn_tracker_evictions, lost) in [(16, 0, 0), (8, 113, 4)] {
            let mut l = Learner::new(LearnerConfig {
                psn_trackers,
                ..LearnerConfig::default()
            })
            .unwrap();
            for (_, side, frame) in t.merged() {
                let port = match side {
                    Side::Dc => DcRx,
                    Side::Wan => WanRx,
                };
                l.observe(port, &frame);
            }
            let case = format!("ipv6 {ipv6}, {psn_trackers} trackers");
            assert_eq!(l.learned().collect::<Vec<_>>(), expected(lost), "{case}");
            assert_eq!(
                l.counters(),
                LearnerCounters {
                    cm_bindings: 16,
                    psn_bindings: 12 - lost as u32,
                    cm_req_evictions: 12,
                    cm_rep_unmatched: 12,
                    psn_tracker_evictions,
                    ..Default::default()
                },
                "{case}"
            );
            assert_eq!(l.psn_trackers().count(), 0, "{case}");
        }
    }
}
