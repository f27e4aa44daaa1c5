//! LH-04: first-level response. While the WAN queue is above K_min, ECN-capable
//! packets toward the WAN leave CE-marked, IPv4 checksums updated; Not-ECT
//! packets and the other direction are untouched.

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, offset};
use cngw_sim::Gateway;
use cngw_testbench::traffic::random_mix;
use cngw_testbench::{check, run, StreamOptions};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// The draft's operational example: K_min 62.5 MB (the reset value, from
/// 100 Gb/s and 10 ms), queue at 70 MB.
const K_MIN: u32 = 62_500_000;
const QD_70_MB: u32 = 70_000_000;

/// Gateway and model with marking enabled and the queue at `queue_bytes`.
fn congested(queue_bytes: u32, enable: bool) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut model = GatewayModel::new();
    let features = if enable { feature::LH_ECN_MARK } else { 0 };
    gw.csr_write(offset::FEATURE_ENABLE, features).unwrap();
    assert!(model.write_register(offset::FEATURE_ENABLE, features));
    assert_eq!(gw.csr_read(offset::PORT0_K_MIN_BYTES), Ok(K_MIN));
    gw.set_queue_depth(queue_bytes, true);
    gw.step();
    gw.set_queue_depth(0, false);
    gw.run(2);
    model.set_queue_depth(queue_bytes);
    (gw, model)
}

fn example_frames() -> Vec<Frame> {
    let v4 = || RoceFrameBuilder::ipv4("10.0.0.1".parse().unwrap(), "10.0.0.4".parse().unwrap());
    let v6 = || RoceFrameBuilder::ipv6("fd00::1".parse().unwrap(), "fd00::4".parse().unwrap());
    let mut frames = Vec::new();
    for ecn in [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce] {
        frames.push(v4().ecn(ecn).dest_qp(200).payload_len(1024).build());
        frames.push(v4().vlan(10).ecn(ecn).dest_qp(200).payload_len(16).build());
        frames.push(v6().ecn(ecn).dest_qp(200).payload_len(256).build());
        frames.push(v6().vlan(10).ecn(ecn).dest_qp(200).payload_len(0).build());
    }
    frames.into_iter().map(Frame::new).collect()
}

fn ecn_of(f: &cngw_packet::Frame) -> Ecn {
    f.ip.header.ecn()
}

#[test]
fn lh_04_ce_marking_above_k_min() {
    let (mut gw, mut model) = congested(QD_70_MB, true);
    let frames = example_frames();
    let cap = check(
        &mut gw,
        &mut model,
        &[(InPort::DcRx, frames.clone())],
        StreamOptions::random(0.2, 0.2, 4),
    )
    .unwrap_or_else(|m| panic!("{m}"));
    let out = &cap.outputs[&OutPort::WanTx];
    let mut marked = 0;
    for (sent, got) in frames.iter().zip(out) {
        let sent = cngw_packet::Frame::parse(&sent.data).unwrap();
        let got_frame = cngw_packet::Frame::parse(&got.data).unwrap();
        let expected = match ecn_of(&sent) {
            Ecn::Ect0 | Ecn::Ect1 => Ecn::Ce,
            other => other,
        };
        assert_eq!(ecn_of(&got_frame), expected);
        got_frame
            .verify_checksums()
            .expect("IPv4 checksum and ICRC still valid");
        marked += (ecn_of(&sent) != ecn_of(&got_frame)) as u32;
    }
    assert_eq!(marked, 8, "ECT(0) and ECT(1), four layouts each");
    assert_eq!(gw.csr_read(offset::LH_CE_MARKED_FRAMES), Ok(8));
    // An independent check of every frame that left: scapy recomputes the
    // IPv4 checksum and the RoCEv2 ICRC and reads the ECN field.
    let data: Vec<Vec<u8>> = out.iter().map(|f| f.data.clone()).collect();
    if let Some(dissected) = dissect(&data) {
        for (f, sent) in dissected.iter().zip(&frames) {
            assert_checksums_ok(f);
            let tc = get(
                f,
                if f.contains_key("IP.tos") {
                    "IP.tos"
                } else {
                    "IPv6.tc"
                },
            );
            let sent_ecn = ecn_of(&cngw_packet::Frame::parse(&sent.data).unwrap()).bits();
            let want = if sent_ecn == 1 || sent_ecn == 2 {
                3
            } else {
                sent_ecn
            };
            assert_eq!(tc.parse::<u8>().unwrap() & 3, want, "{f:?}");
        }
    }
}

#[test]
fn lh_04_no_marking_at_or_below_k_min_or_when_disabled() {
    for (queue, enable) in [
        (K_MIN, true),
        (K_MIN - 1, true),
        (0, true),
        (QD_70_MB, false),
    ] {
        let (mut gw, mut model) = congested(queue, enable);
        let frames = example_frames();
        let cap = check(
            &mut gw,
            &mut model,
            &[(InPort::DcRx, frames.clone())],
            StreamOptions::line_rate(),
        )
        .unwrap_or_else(|m| panic!("{m}"));
        assert_eq!(
            cap.outputs[&OutPort::WanTx],
            frames,
            "queue {queue} enabled {enable}"
        );
        assert_eq!(gw.csr_read(offset::LH_CE_MARKED_FRAMES), Ok(0));
    }
}

#[test]
fn lh_04_random_traffic_with_marking_matches_model() {
    for (seed, idle, backpressure) in [(21, 0.0, 0.0), (22, 0.3, 0.3), (23, 0.6, 0.1)] {
        let (mut gw, mut model) = congested(QD_70_MB, true);
        let mut rng = StdRng::seed_from_u64(seed);
        let inputs = vec![
            (InPort::DcRx, random_mix(&mut rng, 300)),
            (InPort::WanRx, random_mix(&mut rng, 300)),
        ];
        let cap = check(
            &mut gw,
            &mut model,
            &inputs,
            StreamOptions::random(idle, backpressure, seed),
        )
        .unwrap_or_else(|m| panic!("seed {seed}: {m}"));
        let marked = gw.csr_read(offset::LH_CE_MARKED_FRAMES).unwrap();
        assert!(marked > 30, "seed {seed}: only {marked} marked");
        // The WAN-to-DC direction is never marked.
        assert_eq!(cap.outputs[&OutPort::DcTx], inputs[1].1);
    }
}

#[test]
fn lh_04_marking_keeps_line_rate() {
    let (mut gw, _) = congested(QD_70_MB, true);
    let frame = RoceFrameBuilder::ipv4("10.0.0.1".parse().unwrap(), "10.0.0.4".parse().unwrap())
        .ecn(Ecn::Ect0)
        .build();
    assert!(frame.len() <= 64);
    let frames: Vec<Frame> = (0..500).map(|_| Frame::new(frame.clone())).collect();
    let cap = run(
        &mut gw,
        &[(InPort::DcRx, frames)],
        StreamOptions::line_rate(),
    );
    assert_eq!(cap.output_stats[&OutPort::WanTx].beats_per_cycle(), 1.0);
    assert_eq!(gw.csr_read(offset::LH_CE_MARKED_FRAMES), Ok(500));
}
