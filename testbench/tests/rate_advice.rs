//! RA-01..RA-03 through the RTL: the gateway's Rate Advice.
//!
//! - RTL against the reference model (`cngw_model::rate_advice` and the
//!   gateway model's decision) on random traffic of eight flows with random
//!   idle clocks and backpressure while the queue telemetry moves: the law
//!   runs every 2 us, capable senders (two prefixes) get messages on change
//!   at most once per spacing, two policy entries cap some senders, a flow
//!   without a learned source QP is counted; frame for frame, counter for
//!   counter, the port's rate at the end; every message read back by the
//!   packet crate and by scapy (ICRC, IPv4 checksum).
//! - The law in the loop: N senders that follow the advice they receive
//!   (one reaction time late) through a port drained at its capacity; the
//!   advice settles at the fair share C / N.

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::flow_key::FlowKey;
use cngw_packet::rate_advice::{RateAdviceMessage, VERSION_1};
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_regmap::{feature, offset, ra_control};
use cngw_sim::{frame_to_beats, Gateway};
use cngw_testbench::scheduled::{check_scheduled, DepthStep, Schedule, ScheduledCapture};
use cngw_testbench::setup::{
    both, flow_frame, insert_static_flow, mapped, set_prefix_entry, words,
};
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const GW6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1);
const GW4: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 1);
const GW_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xb, 0x01];
const OPCODE: u32 = 0x1D;

/// Writes `prefix`/`len` (IPv6 terms) into the entry whose first prefix
/// register is `first` and control register `control`.
fn set_prefix(
    gw: &mut Gateway,
    m: &mut GatewayModel,
    first: u32,
    control: u32,
    p: IpAddr,
    len: u32,
) {
    set_prefix_entry(gw, m, first, control, mapped(p), len);
}

struct Flow {
    key: FlowKey,
    sender: IpAddr,
    /// `None`: not entered by the host, no source QP learned.
    sqp: Option<u32>,
    mac: [u8; 6],
    capable: bool,
    /// Its frames carry the capability bit (RA-01's header indication).
    flagged: bool,
}

/// Nine flows: capable IPv4 and IPv6 senders (one without a source QP),
/// two senders outside the capable prefixes, one outside them whose frames
/// carry the capability bit.
fn flows() -> Vec<Flow> {
    [
        ("10.1.0.7", true, true, false),
        ("10.1.2.9", true, true, false),
        ("10.1.5.3", true, true, false),
        ("fd00:1::5", true, true, false),
        ("fd00:1:0:7::9", true, true, false),
        ("10.1.9.4", true, false, false),
        ("10.2.0.8", false, true, false),
        ("fd00:9::1", false, true, false),
        ("fd00:3::7", false, true, true),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(s, capable, entered, flagged))| {
        let sender: IpAddr = s.parse().unwrap();
        let dst = match sender {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::new(10, 200, 0, 1)),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::new(0xfd00, 0x200, 0, 0, 0, 0, 0, 1)),
        };
        Flow {
            key: FlowKey::new(
                mapped(sender).octets(),
                mapped(dst).octets(),
                0x400 + i as u32,
            ),
            sender,
            sqp: entered.then_some(0x9000 + 7 * i as u32),
            mac: [0x02, 0x33, 0, 0, 0, i as u8],
            capable,
            flagged,
        }
    })
    .collect()
}

/// The policy entries: (prefix, length in IPv6 terms, Mb/s). 10.1.5.3 is
/// under both IPv4 entries (the lower cap counts).
fn policy() -> Vec<(IpAddr, u32, u32)> {
    vec![
        ("10.1.4.0".parse().unwrap(), 96 + 22, 6_000),
        ("10.1.5.0".parse().unwrap(), 96 + 24, 3_000),
    ]
}

/// The lowest policy cap over `sender` (this test's own match).
fn cap_of(sender: IpAddr) -> Option<u32> {
    let a = u128::from(mapped(sender));
    policy()
        .into_iter()
        .filter(|(p, len, _)| {
            let mask = u128::MAX << (128 - len);
            a & mask == u128::from(mapped(*p)) & mask
        })
        .map(|(_, _, mbps)| mbps)
        .min()
}

/// Sets the capability bit (bit 4 of BTH byte 4, which the ICRC does not
/// cover) in an untagged RoCEv2 frame.
fn flag(frame: &mut [u8]) {
    let bth = if frame[12..14] == [0x86, 0xdd] {
        14 + 40 + 8
    } else {
        14 + 20 + 8
    };
    frame[bth + 4] |= ra_control::CAPABLE_BIT;
}

fn data_frame(key: &FlowKey, mac: [u8; 6], psn: u32, payload: usize) -> Vec<u8> {
    flow_frame(key)
        .macs(mac, [0x02, 0, 0, 0, 0, 0xfe])
        .dest_qp(key.dqp)
        .psn(psn)
        .payload_len(payload)
        .build()
}

/// The gateway's addresses; the law's registers (C bytes/us, T us, and
/// the host's T/d and 1/(dC) for a reaction time of d us); capable
/// prefixes 10.1.0.0/16 and fd00:1::/32; the spacing. Rate Advice itself
/// is left off (`FEATURE_ENABLE`).
fn gateway(
    clocks_per_us: Option<u32>,
    capacity: u32,
    interval_us: u32,
    rtt_us: u32,
    spacing_us: u32,
) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    if let Some(p) = clocks_per_us {
        both(&mut gw, &mut m, offset::CLOCKS_PER_US, p);
    }
    let law = cngw_model::rate_advice::RcpParams {
        capacity,
        rtt_us,
        interval_us,
        ..Default::default()
    }
    .registers();
    let g6 = words(u128::from(GW6));
    for (off, v) in [
        (offset::GW_IPV6_0, g6[0]),
        (offset::GW_IPV6_1, g6[1]),
        (offset::GW_IPV6_2, g6[2]),
        (offset::GW_IPV6_3, g6[3]),
        (offset::GW_IPV4, u32::from(GW4)),
        (offset::GW_MAC_HI, 0x0200),
        (offset::GW_MAC_LO, 0x0000_0b01),
        (offset::NOTIFY_DSCP, 46),
        (offset::RA_OPCODE, OPCODE),
        (offset::RA_CAPACITY_BYTES_PER_US, capacity),
        (offset::RA_T_OVER_D_Q16, law.t_over_d_q16),
        (offset::RA_INV_DC_Q32, law.inv_dc_q32),
        (offset::RA_MIN_MBPS, 100),
        (offset::RA_FLOW_SPACING_US, spacing_us),
        (offset::RA_CONTROL, ra_control::LAW),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    let v4 = |s: &str| IpAddr::V4(s.parse().unwrap());
    let v6 = |s: &str| IpAddr::V6(s.parse().unwrap());
    for (first, control, p, len) in [
        (
            offset::RA_CAP0_PREFIX_0,
            offset::RA_CAP0_CONTROL,
            v4("10.1.0.0"),
            96 + 16,
        ),
        (
            offset::RA_CAP1_PREFIX_0,
            offset::RA_CAP1_CONTROL,
            v6("fd00:1::"),
            32,
        ),
    ] {
        set_prefix(&mut gw, &mut m, first, control, p, len);
    }
    // The interval counter has run since reset: T is written away from a
    // microsecond tick and the model told where the counter stands.
    let p = clocks_per_us.unwrap_or(322) as u64;
    while (gw.cycle() - gw.reset_released_at()) % p != 2 {
        gw.step();
    }
    let at = gw.cycle();
    both(&mut gw, &mut m, offset::RA_INTERVAL_US, interval_us);
    m.rate_advice_interval_written(at);
    (gw, m)
}

/// Frames from dc_tx that are Rate Advice messages.
fn advice_frames(run: &ScheduledCapture) -> Vec<Vec<u8>> {
    run.capture
        .outputs
        .get(&OutPort::DcTx)
        .map(|o| o.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|f| parse_advice(&f.data).is_some())
        .map(|f| f.data.clone())
        .collect()
}

fn parse_advice(bytes: &[u8]) -> Option<RateAdviceMessage> {
    let frame = cngw_packet::Frame::parse(bytes).ok()?;
    RateAdviceMessage::from_frame(&frame, OPCODE as u8).ok()
}

/// RA-01, RA-02 (policy and law), RA-03: RTL against the model on random
/// traffic (three seeds), every message checked.
#[test]
fn ra_03_rate_advice_rtl_matches_the_model_on_random_traffic() {
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        // C = 2,000 bytes/us (16 Gb/s), T = 2 us, d = 10 us, spacing 3 us.
        let (mut gw, mut m) = gateway(None, 2_000, 2, 10, 3);
        for (i, (p, len, mbps)) in policy().into_iter().enumerate() {
            let (first, control, cap) = if i == 0 {
                (
                    offset::RA_POLICY0_PREFIX_0,
                    offset::RA_POLICY0_CONTROL,
                    offset::RA_POLICY0_MBPS,
                )
            } else {
                (
                    offset::RA_POLICY1_PREFIX_0,
                    offset::RA_POLICY1_CONTROL,
                    offset::RA_POLICY1_MBPS,
                )
            };
            set_prefix(&mut gw, &mut m, first, control, p, len);
            both(&mut gw, &mut m, cap, mbps);
        }
        let fl = flows();
        for f in &fl {
            if let Some(sqp) = f.sqp {
                insert_static_flow(&mut gw, &mut m, &f.key, sqp);
            }
        }
        // RA-01's header indication on for seeds 2 and 3.
        let header_bit = seed != 1;
        if header_bit {
            both(
                &mut gw,
                &mut m,
                offset::RA_CONTROL,
                ra_control::LAW | ra_control::HEADER_BIT,
            );
        }
        both(
            &mut gw,
            &mut m,
            offset::FEATURE_ENABLE,
            feature::RATE_ADVICE,
        );
        // Traffic above the capacity, then below it; the queue moves.
        let mut dc = Vec::new();
        let mut t = 0;
        for i in 0..400 {
            let f = &fl[rng.gen_range(0..fl.len())];
            let payload = rng.gen_range(0..1500);
            let mut d = data_frame(&f.key, f.mac, i, payload);
            if f.flagged {
                flag(&mut d);
            }
            dc.push((t, Frame::new(d)));
            t += rng.gen_range(0..=if i < 250 { 100 } else { 400 });
        }
        let mut depth_steps = Vec::new();
        let mut c = 0;
        while c < t {
            depth_steps.push(DepthStep {
                cycle: c,
                bytes: rng.gen_range(0..40_000),
            });
            c += rng.gen_range(500..3_000);
        }
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc)],
            depth_steps,
            end_cycle: None,
        };
        let run = check_scheduled(
            &mut gw,
            &mut m,
            &schedule,
            StreamOptions::random(0.2, 0.25, seed),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |m: &GatewayModel, o| m.read_register(o).unwrap();
        let sent = reg(&m, offset::RA_SENT);
        eprintln!(
            "seed {seed}: {sent} Rate Advice messages, {} held, {} without a source QP",
            reg(&m, offset::RA_HELD),
            reg(&m, offset::RA_NO_SQP),
        );
        // The port's rate register against the law of the model.
        let before = gw.cycle();
        let rtl_rate = gw.csr_read(offset::RA_PORT_RATE_MBPS).unwrap();
        let after = gw.cycle();
        let model_rates = [
            m.rate_advice_port_rate_at(before),
            m.rate_advice_port_rate_at(after),
        ];
        assert!(
            model_rates.contains(&rtl_rate),
            "{rtl_rate} vs {model_rates:?}"
        );
        assert!(rtl_rate < 16_000, "the law came down from 8 C: {rtl_rate}");
        let msgs = advice_frames(&run);
        assert_eq!(msgs.len() as u32, sent);
        assert!(sent >= 20, "seed {seed}: {sent}");
        assert!(reg(&m, offset::RA_HELD) > 0);
        assert!(reg(&m, offset::RA_NO_SQP) > 0);
        assert_eq!(reg(&m, offset::RA_QUEUE_DROPS), 0);
        let mut rates = std::collections::BTreeSet::new();
        let mut capped = 0;
        let mut to_flagged = 0;
        for bytes in &msgs {
            let msg = parse_advice(bytes).unwrap();
            let f = fl
                .iter()
                .find(|f| f.sqp == Some(msg.dest_qp))
                .expect("BTH DestQP is a flow's source QP");
            assert!(f.capable || header_bit && f.flagged, "only capable senders");
            to_flagged += f.flagged as u32;
            assert_eq!(msg.advice.version, VERSION_1);
            assert_eq!(
                msg.advice.destination_qp, f.key.dqp,
                "the data frames' DestQP"
            );
            assert_eq!(msg.advice.source_qp, 0);
            assert_eq!(msg.opcode as u32, OPCODE);
            let ip = cngw_packet::Frame::parse(bytes).unwrap().ip.header;
            assert_eq!(ip.dst(), f.sender);
            assert_eq!(
                ip.src(),
                match f.sender {
                    IpAddr::V4(_) => IpAddr::V4(GW4),
                    IpAddr::V6(_) => IpAddr::V6(GW6),
                }
            );
            assert_eq!(&bytes[0..6], &f.mac);
            assert_eq!(&bytes[6..12], &GW_MAC);
            if let Some(cap) = cap_of(f.sender) {
                assert!(msg.advice.rate_mbps <= cap);
                capped += (msg.advice.rate_mbps == cap) as u32;
            }
            assert!((100..=16_000).contains(&msg.advice.rate_mbps));
            rates.insert(msg.advice.rate_mbps);
        }
        assert!(capped > 0, "a policy cap applied");
        assert_eq!(to_flagged > 0, header_bit, "the header indication");
        assert!(rates.len() >= 5, "the law moved: {rates:?}");
        if let Some(dissected) = dissect(&msgs) {
            for f in &dissected {
                assert_checksums_ok(f);
                assert_eq!(get(f, "icrc_ok"), "True");
                assert_eq!(get(f, "BTH.opcode"), OPCODE.to_string());
                assert_eq!(get(f, "UDP.dport"), "4791");
            }
        }
    }
}

/// RA-01: with the feature off (after reset) no message; senders outside
/// the capable prefixes never get one (above).
#[test]
fn ra_01_no_rate_advice_unless_enabled() {
    let (mut gw, mut m) = gateway(None, 2_000, 2, 10, 3);
    let fl = flows();
    for f in &fl {
        if let Some(sqp) = f.sqp {
            insert_static_flow(&mut gw, &mut m, &f.key, sqp);
        }
    }
    let dc = (0..60)
        .map(|i| {
            let f = &fl[i % fl.len()];
            (
                40 * i as u64,
                Frame::new(data_frame(&f.key, f.mac, i as u32, 500)),
            )
        })
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, dc)],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(advice_frames(&run).is_empty());
    assert_eq!(m.read_register(offset::RA_SENT), Some(0));
    assert_eq!(gw.csr_read(offset::RA_SENT).unwrap(), 0);
}

/// One closed-loop run: `n` capable senders follow the advice they receive
/// `rtt_us` late; frames of `frame_len` bytes; the port drains C bytes per
/// microsecond (the test's fluid queue, reported to the gateway's telemetry
/// input every microsecond). Returns the advice in the messages (clock,
/// rate) and the queue at every microsecond.
fn closed_loop(n: usize, intervals: u64) -> (Vec<(u64, u32)>, Vec<f64>, u64) {
    const P: u64 = 32;
    const C: u32 = 250;
    const T: u32 = 40;
    const D: u32 = 200;
    let frame_len = 250usize;
    let (mut gw, mut m) = gateway(Some(P as u32), C, T, D, T);
    let fl: Vec<(FlowKey, u32, [u8; 6])> = (0..n)
        .map(|i| {
            let key = FlowKey::new(
                Ipv4Addr::new(10, 1, 0, 10 + i as u8)
                    .to_ipv6_mapped()
                    .octets(),
                Ipv4Addr::new(10, 200, 0, 1).to_ipv6_mapped().octets(),
                0x500 + i as u32,
            );
            (key, 0xA000 + i as u32, [0x02, 0x44, 0, 0, 0, i as u8])
        })
        .collect();
    for (key, sqp, _) in &fl {
        insert_static_flow(&mut gw, &mut m, key, *sqp);
    }
    both(
        &mut gw,
        &mut m,
        offset::FEATURE_ENABLE,
        feature::RATE_ADVICE,
    );
    gw.set_ready(OutPort::DcTx, true);
    gw.set_ready(OutPort::WanTx, true);
    let payload = frame_len - data_frame(&fl[0].0, fl[0].2, 0, 0).len();
    // Every sender starts at the port's line rate, 8 C Mb/s.
    let mut rate = vec![8.0 * C as f64; n];
    let mut credit = vec![0.0f64; n];
    let mut reactions: VecDeque<(u64, usize, u32)> = VecDeque::new();
    let mut pending: VecDeque<Vec<u8>> = VecDeque::new();
    let mut beats = VecDeque::new();
    let mut out = Vec::new();
    let mut advice = Vec::new();
    let mut queue = 0.0f64;
    let mut queue_trace = Vec::new();
    let mut psn = 0u32;
    let end = gw.cycle() + intervals * T as u64 * P;
    let start = gw.cycle();
    while gw.cycle() < end {
        let now = gw.cycle();
        while reactions.front().is_some_and(|r| r.0 <= now) {
            let (_, i, r) = reactions.pop_front().unwrap();
            rate[i] = r as f64;
        }
        for i in 0..n {
            // Mb/s -> bytes per clock.
            credit[i] += rate[i] / 8.0 / P as f64;
            if credit[i] >= frame_len as f64 {
                credit[i] -= frame_len as f64;
                pending.push_back(data_frame(&fl[i].0, fl[i].2, psn, payload));
                psn += 1;
                queue += frame_len as f64;
            }
        }
        queue = (queue - C as f64 / P as f64).max(0.0);
        if (now - start) % P == 0 {
            gw.set_queue_depth(queue as u32, true);
            queue_trace.push(queue);
        }
        if beats.is_empty() {
            if let Some(f) = pending.pop_front() {
                beats.extend(frame_to_beats(&f, false));
            }
        }
        gw.drive(InPort::DcRx, beats.front());
        let took = beats.front().is_some() && gw.ready(InPort::DcRx);
        if let Some(b) = gw.output(OutPort::DcTx) {
            cngw_sim::append_beat(&mut out, &b);
            if b.last {
                if let Some(msg) = parse_advice(&out) {
                    let i = fl.iter().position(|f| f.1 == msg.dest_qp).unwrap();
                    advice.push((now - start, msg.advice.rate_mbps));
                    reactions.push_back((now + D as u64 * P, i, msg.advice.rate_mbps));
                }
                out.clear();
            }
        }
        gw.step();
        if took {
            beats.pop_front();
        }
    }
    assert!(pending.len() < 4, "dc_rx kept up: {}", pending.len());
    (advice, queue_trace, T as u64 * P)
}

/// RA-02 in the RTL: 1, 2 and 4 senders that follow the advice converge to
/// the fair share C / N (2 Gb/s port, T = 40 us, d = 200 us): over the last
/// 40 of 150 intervals every message is within 5 % of it, and the queue
/// stays below one interval of capacity.
#[test]
fn ra_02_the_advice_converges_to_the_fair_share_in_the_rtl() {
    for n in [1usize, 2, 4] {
        let intervals = 150;
        let (advice, queue, interval_clocks) = closed_loop(n, intervals);
        let fair = 2_000.0 / n as f64;
        let tail_from = (intervals - 40) * interval_clocks;
        let tail: Vec<u32> = advice
            .iter()
            .filter(|a| a.0 >= tail_from)
            .map(|a| a.1)
            .collect();
        let first_tail = tail.first().copied();
        let peak = queue.iter().copied().fold(0.0, f64::max);
        let tail_queue = queue[queue.len() - 40 * 40..]
            .iter()
            .copied()
            .fold(0.0, f64::max);
        eprintln!(
            "{n} flows: {} messages, {} in the tail (first {first_tail:?}, last {:?}), fair {fair}, peak queue {peak:.0} B, tail queue {tail_queue:.0} B",
            advice.len(),
            tail.len(),
            tail.last()
        );
        assert!(tail.len() >= n, "{n} flows: advice in the tail");
        for r in &tail {
            assert!(
                (*r as f64 - fair).abs() <= 0.05 * fair,
                "{n} flows: advice {r} Mb/s, fair share {fair}"
            );
        }
        assert!(tail_queue <= 250.0 * 40.0, "{n} flows: queue {tail_queue}");
    }
}

const PEER4: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 9);
const PEER6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 9);
const NEXT_HOP: [u8; 6] = [0x02, 0x77, 0, 0, 0, 0x01];

/// A Rate Advice message from `src` to this gateway (RA-04's remote
/// advice: DestQP 0, body {rate, 1, 0, 0}), tagged or not.
fn remote_message(src: IpAddr, rate: u32, vlan: Option<u16>) -> Vec<u8> {
    let env = match src {
        IpAddr::V4(s) => cngw_packet::envelope::Envelope::ipv4(s, GW4),
        IpAddr::V6(s) => cngw_packet::envelope::Envelope::ipv6(s, GW6),
    }
    .with_macs([0x02, 0x77, 0, 0, 0, 0x02], GW_MAC);
    let env = match vlan {
        Some(v) => env.with_vlan(v),
        None => env,
    };
    let mut m = RateAdviceMessage::new(0, cngw_packet::rate_advice::RateAdvice::new(rate, 0, 0));
    m.opcode = OPCODE as u8;
    m.to_frame(&env).to_bytes()
}

/// Peer 0 is PEER4 with 10.200.0.0/16 behind it (the IPv4 flows'
/// destinations), peer 1 PEER6 with fd00:200::/32 (the IPv6 flows').
fn set_peers(gw: &mut Gateway, m: &mut GatewayModel) {
    let p4 = words(u128::from(PEER4.to_ipv6_mapped()));
    let p6 = words(u128::from(PEER6));
    for i in 0..4 {
        both(gw, m, offset::RA_PEER0_ADDR_0 + 4 * i as u32, p4[i]);
        both(gw, m, offset::RA_PEER1_ADDR_0 + 4 * i as u32, p6[i]);
    }
    set_prefix(
        gw,
        m,
        offset::RA_PEER0_PREFIX_0,
        offset::RA_PEER0_CONTROL,
        IpAddr::V4(Ipv4Addr::new(10, 200, 0, 0)),
        96 + 16,
    );
    set_prefix(
        gw,
        m,
        offset::RA_PEER1_PREFIX_0,
        offset::RA_PEER1_CONTROL,
        IpAddr::V6(Ipv6Addr::new(0xfd00, 0x200, 0, 0, 0, 0, 0, 0)),
        32,
    );
}

/// RA-04 source role, directed: what is claimed and what is refused, and
/// the lapse. Accepted: an untagged IPv4 message from peer 0 and a tagged
/// IPv6 one from peer 1. Claimed and refused (counted, not forwarded): a
/// message cut below its length, one with another opcode, one from an
/// address no peer has. Not claimed (forwarded to dc_tx like any frame):
/// an IPv4 fragment, UDP port 4792, another destination address, and
/// every message while `accept` is off. The peers' advice (900 and
/// 1,200 Mb/s, below the WAN port's) reaches the capable flows toward
/// their prefixes and no longer after `RA_REMOTE_TIMEOUT_US` (3 us).
/// RTL = model throughout.
#[test]
fn ra_04_remote_advice_claims_refusals_and_lapse() {
    for accept in [true, false] {
        let (mut gw, mut m) = gateway(None, 2_000, 2, 10, 3);
        set_peers(&mut gw, &mut m);
        both(&mut gw, &mut m, offset::RA_REMOTE_TIMEOUT_US, 3);
        let fl = flows();
        for f in &fl {
            if let Some(sqp) = f.sqp {
                insert_static_flow(&mut gw, &mut m, &f.key, sqp);
            }
        }
        if accept {
            both(
                &mut gw,
                &mut m,
                offset::RA_REMOTE_CONTROL,
                cngw_regmap::ra_remote_control::ACCEPT,
            );
        }
        both(
            &mut gw,
            &mut m,
            offset::FEATURE_ENABLE,
            feature::RATE_ADVICE,
        );
        let good4 = remote_message(IpAddr::V4(PEER4), 900, None);
        let good6 = remote_message(IpAddr::V6(PEER6), 1_200, Some(5));
        let short = good4[..70].to_vec();
        let mut other_opcode = remote_message(IpAddr::V4(PEER4), 900, None);
        other_opcode[42] = 0x1C;
        let stranger = remote_message(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 77)), 900, None);
        let mut fragment = good4.clone();
        fragment[14 + 6] |= 0x20; // MF
        let mut port = good4.clone();
        port[14 + 20 + 3] = 0xB8; // UDP 4792
        let mut elsewhere = good4.clone();
        elsewhere[14 + 19] ^= 1; // not the gateway's address
        let wan: Vec<(u64, Frame)> = [
            &good4,
            &short,
            &other_opcode,
            &stranger,
            &fragment,
            &port,
            &elsewhere,
            &good6,
        ]
        .iter()
        .map(|b| (0, Frame::new((*b).clone())))
        .collect();
        // Frames of every flow before, during and after the advice.
        let dc = (0..120u64)
            .map(|i| {
                let f = &fl[i as usize % fl.len()];
                (60 * i, Frame::new(data_frame(&f.key, f.mac, i as u32, 300)))
            })
            .collect();
        let schedule = Schedule {
            inputs: vec![(InPort::WanRx, wan), (InPort::DcRx, dc)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let run = check_scheduled(
            &mut gw,
            &mut m,
            &schedule,
            StreamOptions::random(0.1, 0.1, 7).without_marker_shadow(),
        )
        .unwrap_or_else(|e| panic!("accept {accept}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        let to_dc: Vec<&Vec<u8>> = run.capture.outputs[&OutPort::DcTx]
            .iter()
            .map(|f| &f.data)
            .collect();
        let forwarded = |b: &Vec<u8>| to_dc.contains(&b);
        for b in [&fragment, &port, &elsewhere] {
            assert!(forwarded(b), "not claimed, forwarded");
        }
        // The gateway's messages (not the peers' ones it forwarded).
        let rates: Vec<(u32, u32)> = advice_frames(&run)
            .iter()
            .filter(|b| b[6..12] == GW_MAC)
            .map(|b| {
                let msg = parse_advice(b).unwrap();
                (msg.dest_qp, msg.advice.rate_mbps)
            })
            .collect();
        let got = |rate| rates.iter().any(|&(_, r)| r == rate);
        if accept {
            assert_eq!(reg(offset::RA_REMOTE_RECEIVED), 2);
            assert_eq!(reg(offset::RA_REMOTE_REFUSED), 3);
            for b in [&good4, &good6, &short, &other_opcode, &stranger] {
                assert!(!forwarded(b), "claimed frames stay in the gateway");
            }
            assert!(got(900) && got(1_200), "{rates:?}");
            // After the lapse each advised flow is told the port's rate
            // again.
            for f in fl.iter().filter(|f| f.capable && f.sqp.is_some()) {
                let seq: Vec<u32> = rates
                    .iter()
                    .filter(|&&(q, _)| Some(q) == f.sqp)
                    .map(|&(_, r)| r)
                    .collect();
                if let Some(i) = seq.iter().position(|&r| r == 900 || r == 1_200) {
                    assert!(seq[i + 1..].iter().any(|&r| r > 1_200), "{seq:?}");
                }
            }
        } else {
            assert_eq!(reg(offset::RA_REMOTE_RECEIVED), 0);
            assert_eq!(reg(offset::RA_REMOTE_REFUSED), 0);
            for b in [&good4, &good6, &short, &other_opcode, &stranger] {
                assert!(forwarded(b), "accept off: forwarded");
            }
            assert!(!got(900) && !got(1_200));
        }
    }
}

/// RA-04 remote mode through the RTL, against the model, both roles at
/// once (three seeds): as WAN egress gateway the data-centre port's law
/// (RoCEv2 bytes from wan_rx, the `qd_dc_*` depth) is sent to two peers
/// (IPv4, IPv6) after every interval on wan_tx; as source gateway the
/// peers' messages (tagged and untagged, both families) cap the advice of
/// flows toward the prefixes behind them until they lapse, while
/// messages from an unknown address or with a wrong version are refused.
/// Frame for frame, counter for counter; every message on wan_tx read
/// back by the packet crate and by scapy.
#[test]
fn ra_04_remote_advice_rtl_matches_the_model_on_random_traffic() {
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed + 40);
        let (mut gw, mut m) = gateway(None, 2_000, 2, 10, 3);
        let dc_law = cngw_model::rate_advice::RcpParams {
            capacity: 1_000,
            rtt_us: 10,
            interval_us: 2,
            ..Default::default()
        }
        .registers();
        for (off, v) in [
            (offset::RA_DC_CAPACITY_BYTES_PER_US, 1_000),
            (offset::RA_DC_INV_DC_Q32, dc_law.inv_dc_q32),
            (offset::RA_REMOTE_TIMEOUT_US, 5),
            (offset::TUNNEL_NEXT_HOP_MAC_HI, 0x0277),
            (offset::TUNNEL_NEXT_HOP_MAC_LO, 0x0000_0001),
        ] {
            both(&mut gw, &mut m, off, v);
        }
        set_peers(&mut gw, &mut m);
        let v4 = |s: &str| IpAddr::V4(s.parse().unwrap());
        let fl = flows();
        for f in &fl {
            if let Some(sqp) = f.sqp {
                insert_static_flow(&mut gw, &mut m, &f.key, sqp);
            }
        }
        both(
            &mut gw,
            &mut m,
            offset::RA_REMOTE_CONTROL,
            cngw_regmap::ra_remote_control::SEND | cngw_regmap::ra_remote_control::ACCEPT,
        );
        both(
            &mut gw,
            &mut m,
            offset::FEATURE_ENABLE,
            feature::RATE_ADVICE,
        );
        m.rate_advice_remote_send_from(gw.cycle());
        // The data-centre port's queue (the egress law's depth).
        let dc_depth = 20_000 + 10_000 * seed as u32;
        let at = gw.cycle();
        gw.set_dc_queue_depth(dc_depth, true);
        gw.step();
        gw.set_dc_queue_depth(dc_depth, false);
        m.set_dc_queue_depth_at(dc_depth, at);
        // dc_rx: the flows' data; wan_rx: data toward the data centre (the
        // egress law's bytes) with the peers' advice among it.
        let mut dc = Vec::new();
        let mut t = 0;
        for i in 0..300 {
            let f = &fl[rng.gen_range(0..fl.len())];
            let d = data_frame(&f.key, f.mac, i, rng.gen_range(0..1500));
            dc.push((t, Frame::new(d)));
            t += rng.gen_range(0..=300);
        }
        let mut wan = Vec::new();
        let mut peer_rates = std::collections::BTreeSet::new();
        let (mut refused_sent, mut w) = (0, 0);
        for i in 0..300 {
            let bytes = match rng.gen_range(0..10) {
                0..=1 => {
                    let rate = rng.gen_range(500..12_000);
                    peer_rates.insert(rate);
                    let src = if rng.gen_bool(0.5) {
                        IpAddr::V4(PEER4)
                    } else {
                        IpAddr::V6(PEER6)
                    };
                    remote_message(src, rate, rng.gen_bool(0.3).then_some(7))
                }
                2 => {
                    refused_sent += 1;
                    if rng.gen_bool(0.5) {
                        remote_message(v4("198.51.100.77"), 700, None)
                    } else {
                        let mut b = remote_message(IpAddr::V4(PEER4), 700, None);
                        b[14 + 20 + 8 + 12 + 7] = 2; // version 2
                        b
                    }
                }
                _ => {
                    let f = &fl[rng.gen_range(0..fl.len())];
                    let key =
                        FlowKey::new(f.key.dip.to_be_bytes(), f.key.sip.to_be_bytes(), 0x700 + i);
                    flow_frame(&key)
                        .dest_qp(key.dqp)
                        .psn(i)
                        .payload_len(rng.gen_range(0..1500))
                        .build()
                }
            };
            wan.push((w, Frame::new(bytes)));
            w += rng.gen_range(0..=300);
        }
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc), (InPort::WanRx, wan)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let run = check_scheduled(
            &mut gw,
            &mut m,
            &schedule,
            // The builder's messages share wan_tx: no marker-clock shadow
            // of the data path (LH-04 marking is off here).
            StreamOptions::random(0.2, 0.25, seed).without_marker_shadow(),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |m: &GatewayModel, o| m.read_register(o).unwrap();
        let remote_sent = reg(&m, offset::RA_REMOTE_SENT);
        let received = reg(&m, offset::RA_REMOTE_RECEIVED);
        let refused = reg(&m, offset::RA_REMOTE_REFUSED);
        eprintln!(
            "seed {seed}: {remote_sent} remote messages sent, {received} received, \
             {refused} refused, {} Rate Advice messages",
            reg(&m, offset::RA_SENT)
        );
        assert_eq!(refused, refused_sent);
        assert!(received >= 20, "seed {seed}: {received}");
        // The gauges against the model, read between two clocks.
        for (off, n) in [
            (offset::RA_DC_PORT_RATE_MBPS, None),
            (offset::RA_PEER0_MBPS, Some(0)),
            (offset::RA_PEER1_MBPS, Some(1)),
        ] {
            let before = gw.cycle();
            let rtl = gw.csr_read(off).unwrap();
            let after = gw.cycle();
            let model: Vec<u32> = [before, after]
                .iter()
                .map(|&c| match n {
                    None => m.rate_advice_dc_rate_at(c),
                    Some(n) => m.rate_advice_peer_at(n, c).unwrap_or(0),
                })
                .collect();
            assert!(model.contains(&rtl), "{off:#x}: {rtl} vs {model:?}");
        }
        // The advice to the peers: both families, from the gateway's
        // addresses to the WAN next hop, DestQP 0, body {rate, 1, 0, 0}.
        let out: Vec<Vec<u8>> = run.capture.outputs[&OutPort::WanTx]
            .iter()
            .filter(|f| parse_advice(&f.data).is_some())
            .map(|f| f.data.clone())
            .collect();
        assert_eq!(out.len() as u32, remote_sent);
        assert!(remote_sent >= 40, "seed {seed}: {remote_sent}");
        // The RTL's counter has every message the run captured, and keeps
        // counting the ones sent since (one per peer and interval).
        let rtl_sent = gw.csr_read(offset::RA_REMOTE_SENT).unwrap();
        assert!(
            (remote_sent..=remote_sent + 8).contains(&rtl_sent),
            "seed {seed}: RA_REMOTE_SENT {rtl_sent}, {remote_sent} captured"
        );
        let mut dc_rates = std::collections::BTreeSet::new();
        let mut to = [0; 2];
        for bytes in &out {
            let msg = parse_advice(bytes).unwrap();
            let ip = cngw_packet::Frame::parse(bytes).unwrap().ip.header;
            match ip.dst() {
                IpAddr::V4(d) => {
                    assert_eq!(d, PEER4);
                    assert_eq!(ip.src(), IpAddr::V4(GW4));
                    to[0] += 1;
                }
                IpAddr::V6(d) => {
                    assert_eq!(d, PEER6);
                    assert_eq!(ip.src(), IpAddr::V6(GW6));
                    to[1] += 1;
                }
            }
            assert_eq!(&bytes[0..6], &NEXT_HOP);
            assert_eq!(&bytes[6..12], &GW_MAC);
            assert_eq!(msg.dest_qp, 0);
            assert_eq!(msg.advice.version, VERSION_1);
            assert_eq!(msg.advice.destination_qp, 0);
            assert_eq!(msg.advice.source_qp, 0);
            assert!((100..=8_000).contains(&msg.advice.rate_mbps));
            dc_rates.insert(msg.advice.rate_mbps);
        }
        assert_eq!(to[0], to[1], "one message per peer per interval");
        assert!(dc_rates.len() >= 3, "the egress law moved: {dc_rates:?}");
        // Near-source messages that carry a peer's advice (below the
        // WAN port's): the cap reached the senders.
        let forwarded = advice_frames(&run)
            .iter()
            .filter(|b| peer_rates.contains(&parse_advice(b).unwrap().advice.rate_mbps))
            .count();
        assert!(forwarded > 0, "seed {seed}: no peer advice forwarded");
        if let Some(dissected) = dissect(&out) {
            for f in &dissected {
                assert_checksums_ok(f);
                assert_eq!(get(f, "icrc_ok"), "True");
                assert_eq!(get(f, "BTH.opcode"), OPCODE.to_string());
                assert_eq!(get(f, "BTH.dqpn"), "0");
            }
        }
    }
}
