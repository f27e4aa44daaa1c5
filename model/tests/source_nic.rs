//! LH-16: the source-side SmartNIC model — every action, recovery, the
//! Resume cap, forged and malformed notifications, legacy CNPs and pacing.

use cngw_model::source_nic::{
    DropReason, NotificationKind, QpBinding, Received, SourceNic, SourceNicConfig,
};
use cngw_packet::bth::opcode;
use cngw_packet::longhaul::metric_type;
use cngw_packet::{
    icrc, Action, Cnp, Envelope, LonghaulBody, LonghaulCnp, LonghaulIcmpv6, LonghaulRocev2,
    RateAdvice, RateAdviceMessage, RoceFrameBuilder,
};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const SENDER: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 1);
const RECEIVER: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 1);
const GATEWAY: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 1);
const STRANGER: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 66);
const GATEWAY6: Ipv6Addr = Ipv6Addr::new(0xfd00, 9, 0, 0, 0, 0, 0, 1);
const SENDER6: Ipv6Addr = Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, 1);
const QP: u32 = 100;
const REMOTE_QP: u32 = 0x2345;
const RTT_NS: u64 = 10_000_000;
const US: u64 = 1_000;

fn config() -> SourceNicConfig {
    let mut c = SourceNicConfig::new(
        RTT_NS,
        vec![GATEWAY.into(), GATEWAY6.into()],
        vec![QpBinding {
            local_qp: QP,
            remote: RECEIVER.into(),
            remote_qp: REMOTE_QP,
        }],
    );
    c.resume_cap_mbps = 20_000;
    c
}

fn nic() -> SourceNic {
    SourceNic::new(config()).unwrap()
}

fn body(action: Action, parameter: u16, source_qp: u32) -> LonghaulBody {
    LonghaulBody {
        congestion_level: 100,
        action,
        parameter,
        source_qp,
        metric_type: metric_type::QUEUE_DEPTH_KB,
        metric_value: 5_000,
    }
}

/// A Long-haul CNP (RoCEv2 format) from `from` to the sender.
fn lh(from: Ipv4Addr, action: Action, parameter: u16) -> Vec<u8> {
    LonghaulRocev2::new(QP, LonghaulCnp::new(body(action, parameter, QP)))
        .to_frame(&Envelope::ipv4(from, SENDER))
        .to_bytes()
}

fn received(n: &mut SourceNic, frame: &[u8], now: u64) -> Received {
    n.receive(frame, now)
}

fn rate(n: &mut SourceNic, now: u64) -> u32 {
    n.rate_mbps(QP, now).unwrap()
}

#[test]
fn lh_16_notify_cuts_by_the_default_response_and_is_consumed() {
    let mut n = nic();
    assert_eq!(rate(&mut n, 0), 100_000);
    let r = received(&mut n, &lh(GATEWAY, Action::Notify, 0), 5 * US);
    assert_eq!(
        r,
        Received::Applied {
            local_qp: QP,
            kind: NotificationKind::Longhaul {
                action: Action::Notify,
                parameter: 0
            }
        }
    );
    assert_eq!(rate(&mut n, 5 * US), 50_000, "rate >> 1 taken off");
    received(&mut n, &lh(GATEWAY, Action::Notify, 0), 6 * US);
    assert_eq!(rate(&mut n, 6 * US), 25_000);
    assert_eq!(n.counters().applied, 2);
}

#[test]
fn lh_16_rate_reduce_takes_the_percentage_and_keeps_the_floor() {
    let mut n = nic();
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 30), 0);
    assert_eq!(rate(&mut n, 0), 70_000);
    // Over 100 % counts as 100 %: down to the floor, not below.
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 250), US);
    assert_eq!(rate(&mut n, US), n.config().min_rate_mbps);
}

#[test]
fn lh_16_pause_holds_the_qps_frames_for_the_duration() {
    let mut n = nic();
    let data = data_frame(1024);
    received(&mut n, &lh(GATEWAY, Action::Pause, 40), 10 * US);
    assert_eq!(n.paused(QP, 10 * US), Some(true));
    assert_eq!(rate(&mut n, 10 * US), 100_000, "the rate is kept");
    assert_eq!(
        n.send(&data, 20 * US),
        50 * US,
        "leaves when the pause ends"
    );
    assert_eq!(n.paused(QP, 50 * US), Some(false));
    // Another QP's frame (not configured) is not held.
    let other = RoceFrameBuilder::ipv4(SENDER, RECEIVER)
        .dest_qp(REMOTE_QP + 1)
        .payload_len(1024)
        .build();
    let mut n = nic();
    received(&mut n, &lh(GATEWAY, Action::Pause, 40), 10 * US);
    assert_eq!(n.send(&other, 20 * US), 20 * US);
}

#[test]
fn lh_16_resume_recovers_part_of_the_last_cut_within_the_cap() {
    let mut n = nic();
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 60), 0);
    assert_eq!(rate(&mut n, 0), 40_000);
    // 50 % of the 60 Gb/s cut is 30 Gb/s, capped at 20 Gb/s.
    received(&mut n, &lh(GATEWAY, Action::Resume, 50), US);
    assert_eq!(rate(&mut n, US), 60_000);
    assert_eq!(n.counters().resumes_capped, 1);
    // 25 % of the remaining 40 Gb/s gap is 10 Gb/s: under the cap.
    received(&mut n, &lh(GATEWAY, Action::Resume, 25), 2 * US);
    assert_eq!(rate(&mut n, 2 * US), 70_000);
    assert_eq!(n.counters().resumes_capped, 1);
}

#[test]
fn lh_16_resume_zero_returns_to_the_rate_before_the_last_cut() {
    let mut c = config();
    c.resume_cap_mbps = 100_000;
    let mut n = SourceNic::new(c).unwrap();
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 20), 0);
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 50), US);
    assert_eq!(rate(&mut n, US), 40_000);
    received(&mut n, &lh(GATEWAY, Action::Resume, 0), 2 * US);
    assert_eq!(rate(&mut n, 2 * US), 80_000, "the rate before the last cut");
    // With the default cap a forged "resume everything" gains 10 Gb/s only.
    let mut n = SourceNic::new(SourceNicConfig::new(
        RTT_NS,
        vec![GATEWAY.into()],
        config().qps,
    ))
    .unwrap();
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 90), 0);
    received(&mut n, &lh(GATEWAY, Action::Resume, 0), US);
    assert_eq!(rate(&mut n, US), 20_000);
}

#[test]
fn lh_16_additive_increase_starts_two_rtt_after_the_last_notification() {
    let mut n = nic();
    let c = n.config().clone();
    assert_eq!(c.recovery_interval_ns, 2 * RTT_NS);
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 50), 0);
    assert_eq!(rate(&mut n, 2 * RTT_NS - 1), 50_000, "quiet, not yet");
    assert_eq!(rate(&mut n, 2 * RTT_NS), 50_000 + c.ai_step_mbps);
    assert_eq!(
        rate(&mut n, 2 * RTT_NS + 3 * c.ai_period_ns),
        50_000 + 4 * c.ai_step_mbps
    );
    // A notification restarts the timer.
    let t = 2 * RTT_NS + 3 * c.ai_period_ns + 1;
    received(&mut n, &lh(GATEWAY, Action::Notify, 0), t);
    let cut = (50_000 + 4 * c.ai_step_mbps) / 2;
    assert_eq!(rate(&mut n, t + 2 * RTT_NS - 1), cut);
    // And recovery stops at the line rate.
    assert_eq!(
        rate(&mut n, t + 2 * RTT_NS + 1_000 * c.ai_period_ns),
        100_000
    );
}

#[test]
fn lh_16_forged_and_malformed_notifications_change_nothing() {
    let mut n = nic();
    // From a node that is not configured.
    let r = received(&mut n, &lh(STRANGER, Action::RateReduce, 90), 0);
    assert_eq!(r, Received::Dropped(DropReason::UnknownNode));
    // For a QP that is not active.
    let other_qp = LonghaulRocev2::new(QP + 1, LonghaulCnp::new(body(Action::Pause, 1000, QP + 1)))
        .to_frame(&Envelope::ipv4(GATEWAY, SENDER))
        .to_bytes();
    assert_eq!(
        received(&mut n, &other_qp, 0),
        Received::Dropped(DropReason::UnknownQp)
    );
    // BTH DestQP and the body's Source QP disagree.
    let mixed = LonghaulRocev2::new(QP, LonghaulCnp::new(body(Action::Pause, 1000, QP + 1)))
        .to_frame(&Envelope::ipv4(GATEWAY, SENDER))
        .to_bytes();
    assert_eq!(
        received(&mut n, &mixed, 0),
        Received::Dropped(DropReason::Inconsistent)
    );
    // A changed action byte without a new ICRC.
    let mut bad = lh(GATEWAY, Action::Notify, 0);
    let action_at = bad.len() - 4 - 12 + 1;
    bad[action_at] = Action::Pause.flags();
    bad[action_at + 2] = 0xFF;
    assert!(icrc::verify_frame(&bad).is_err());
    assert_eq!(
        received(&mut n, &bad, 0),
        Received::Dropped(DropReason::Malformed)
    );
    let c = n.counters();
    assert_eq!(
        (
            c.dropped_unknown_node,
            c.dropped_unknown_qp,
            c.dropped_inconsistent,
            c.dropped_malformed,
            c.applied
        ),
        (1, 1, 1, 1, 0)
    );
    assert_eq!(rate(&mut n, US), 100_000);
    assert_eq!(n.paused(QP, US), Some(false));
    assert_eq!(n.send(&data_frame(1000), US), US);
}

#[test]
fn lh_16_integrity_checks_can_be_switched_off_and_the_other_checks_stay() {
    // A Rate Reduce whose ICRC no longer matches (parameter changed in place).
    let mut bad = lh(GATEWAY, Action::RateReduce, 10);
    let parameter_at = bad.len() - 4 - 12 + 3;
    bad[parameter_at] = 40;
    assert!(icrc::verify_frame(&bad).is_err());
    let mut on = nic();
    assert!(on.config().check_integrity, "on by default");
    assert_eq!(
        received(&mut on, &bad, 0),
        Received::Dropped(DropReason::Malformed)
    );
    assert_eq!(rate(&mut on, 0), 100_000);
    let mut c = config();
    c.check_integrity = false;
    let mut off = SourceNic::new(c).unwrap();
    assert!(matches!(
        received(&mut off, &bad, 0),
        Received::Applied { .. }
    ));
    assert_eq!(rate(&mut off, 0), 60_000, "the changed 40 % was applied");
    // The checks of the node, the QP pair and the QP still hold.
    let mut forged = lh(STRANGER, Action::RateReduce, 10);
    forged[parameter_at] = 40;
    assert_eq!(
        received(&mut off, &forged, US),
        Received::Dropped(DropReason::UnknownNode)
    );
    // A notification too short for its body is still malformed.
    let short = RoceFrameBuilder::ipv4(GATEWAY, SENDER)
        .opcode(opcode::CNP)
        .dest_qp(QP)
        .payload_len(4)
        .build();
    let mut short = short;
    short[14 + 20 + 8 + 4] |= 0x20; // the E bit
    assert_eq!(
        received(&mut off, &short, US),
        Received::Dropped(DropReason::Malformed)
    );
    assert_eq!(off.counters().dropped_malformed, 1);
    assert_eq!(off.counters().dropped_unknown_node, 1);
}

#[test]
fn lh_16_legacy_cnp_and_data_pass_to_the_rnic() {
    let mut n = nic();
    let cnp = Cnp::new(QP)
        .to_frame(&Envelope::ipv4(RECEIVER, SENDER))
        .to_bytes();
    assert_eq!(received(&mut n, &cnp, 0), Received::ToRnic);
    let data = RoceFrameBuilder::ipv4(RECEIVER, SENDER)
        .opcode(opcode::RC_ACKNOWLEDGE)
        .dest_qp(QP)
        .build();
    assert_eq!(received(&mut n, &data, 0), Received::ToRnic);
    assert_eq!(received(&mut n, &[0u8; 20], 0), Received::ToRnic, "not IP");
    assert_eq!(n.counters().legacy_cnps, 1);
    assert_eq!(
        rate(&mut n, 0),
        100_000,
        "the RNIC reacts to its CNP, not the block"
    );
}

#[test]
fn lh_16_icmpv6_format_is_applied_too() {
    let mut c = config();
    c.qps[0].remote = IpAddr::V6(Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 1));
    let mut n = SourceNic::new(c).unwrap();
    let m = LonghaulIcmpv6::new(LonghaulCnp::new(body(Action::RateReduce, 25, QP)))
        .to_frame(&Envelope::ipv6(GATEWAY6, SENDER6))
        .unwrap()
        .to_bytes();
    assert!(matches!(received(&mut n, &m, 0), Received::Applied { .. }));
    assert_eq!(rate(&mut n, 0), 75_000);
    // The same from a stranger's address is dropped.
    let forged = LonghaulIcmpv6::new(LonghaulCnp::new(body(Action::RateReduce, 25, QP)))
        .to_frame(&Envelope::ipv6(
            Ipv6Addr::new(0xfd00, 9, 0, 0, 0, 0, 0, 66),
            SENDER6,
        ))
        .unwrap()
        .to_bytes();
    assert_eq!(
        received(&mut n, &forged, 0),
        Received::Dropped(DropReason::UnknownNode)
    );
}

#[test]
fn lh_16_rate_advice_sets_the_rate_within_the_bounds() {
    let mut n = nic();
    let advice = |mbps| {
        RateAdviceMessage::new(QP, RateAdvice::new(mbps, REMOTE_QP, 0))
            .to_frame(&Envelope::ipv4(GATEWAY, SENDER))
            .to_bytes()
    };
    assert!(matches!(
        received(&mut n, &advice(25_000), 0),
        Received::Applied {
            kind: NotificationKind::RateAdvice { rate_mbps: 25_000 },
            ..
        }
    ));
    assert_eq!(rate(&mut n, 0), 25_000);
    received(&mut n, &advice(400_000), US);
    assert_eq!(rate(&mut n, US), 100_000, "never above the line rate");
    received(&mut n, &advice(0), 2 * US);
    assert_eq!(rate(&mut n, 2 * US), n.config().min_rate_mbps);
}

fn data_frame(payload: usize) -> Vec<u8> {
    RoceFrameBuilder::ipv4(SENDER, RECEIVER)
        .dest_qp(REMOTE_QP)
        .payload_len(payload)
        .build()
}

#[test]
fn lh_16_frames_leave_at_the_qps_rate_after_the_burst() {
    let mut n = nic();
    received(&mut n, &lh(GATEWAY, Action::RateReduce, 90), 0);
    assert_eq!(rate(&mut n, 0), 10_000);
    let frame = data_frame(1000);
    let bits = 8 * frame.len() as u64;
    let burst_frames = 8 * n.config().burst_bytes as u64 / bits;
    let departures: Vec<u64> = (0..burst_frames + 20).map(|_| n.send(&frame, 0)).collect();
    // The burst leaves at once, then one frame per bits / 10 Gb/s.
    assert!(departures[..burst_frames as usize].iter().all(|&t| t == 0));
    let paced = &departures[burst_frames as usize + 1..];
    let gaps: Vec<u64> = paced.windows(2).map(|w| w[1] - w[0]).collect();
    let expected = bits * 1_000 / 10_000;
    assert!(
        gaps.iter().all(|&g| g.abs_diff(expected) <= 1),
        "gaps {gaps:?}, expected {expected} ns"
    );
    // Over the paced part the mean is the rate, exactly (no tokens lost).
    let span = paced.last().unwrap() - paced[0];
    let sent_bits = bits * (paced.len() as u64 - 1);
    assert_eq!(sent_bits * 1_000 / span, 10_000);
    assert_eq!(
        n.counters().frames_delayed,
        departures.iter().filter(|&&t| t > 0).count() as u64
    );
}

#[test]
fn lh_16_bad_configuration_is_refused_with_the_field_named() {
    type Change = Box<dyn Fn(&mut SourceNicConfig)>;
    let cases: Vec<(Change, &str)> = vec![
        (Box::new(|c| c.min_rate_mbps = 0), "min_rate_mbps"),
        (Box::new(|c| c.min_rate_mbps = 200_000), "min_rate_mbps"),
        (Box::new(|c| c.notify_cut_shift = 0), "notify_cut_shift"),
        (Box::new(|c| c.ai_step_mbps = 0), "ai_step_mbps"),
        (Box::new(|c| c.burst_bytes = 100), "burst_bytes"),
        (Box::new(|c| c.qps.push(c.qps[0])), "listed twice"),
        (Box::new(|c| c.qps[0].local_qp = 1 << 24), "24 bits"),
    ];
    for (change, needle) in cases {
        let mut c = config();
        change(&mut c);
        let err = SourceNic::new(c).unwrap_err();
        assert!(err.contains(needle), "{err} lacks {needle}");
    }
}
