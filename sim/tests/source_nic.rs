//! The source-side SmartNIC (`cngw_hdl::snic::SourceNic`, LH-16) in the Verilog that ships, against `cngw_model::source_nic`
//! (integrity checks off: the block does not check checksums or the ICRC,
//! docs/decisions.md). Every notification's verdict (applied or the drop
//! reason) is the model's, given at the clock the block applies it; after
//! it the QP's rate and its pause (to the clock) equal the model's at that
//! time; watched QPs are compared every clock (additive
//! increase); every other frame reaches the RNIC byte for byte with its
//! `tuser`, in order; the counters match at the end. Inputs have random
//! idle clocks and the RNIC side random backpressure.
//!
//! Transmit side: every frame from the RNIC reaches the network byte for
//! byte, in order; without backpressure each leaves in the clock its model
//! departure falls in (the model is offered a frame at the clock it reaches
//! the head of the block's stream, `tx_head`), and `frames_delayed` is the
//! model's; with backpressure none leaves before its model departure.
//!
//! The block's clock is [`NS`] ns; model times are the block's `now`
//! (clocks) times [`NS`].

use cngw_model::source_nic::{
    Counters, DropReason, QpBinding, Received, SourceNic as Model, SourceNicConfig,
};
use cngw_packet::bth::opcode;
use cngw_packet::longhaul::metric_type;
use cngw_packet::{
    Action, Cnp, Envelope, LonghaulBody, LonghaulCnp, LonghaulIcmpv6, LonghaulRocev2, RateAdvice,
    RateAdviceMessage, RoceFrameBuilder,
};
use cngw_sim::{frame_to_beats, Beat, FrameCollector, Unit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Nanoseconds per clock (250 MHz).
const NS: u64 = 4;
const SENDER: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 1);
const SENDER6: Ipv6Addr = Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, 1);
const RECEIVER: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 1);
const GATEWAY: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 1);
const GATEWAY6: Ipv6Addr = Ipv6Addr::new(0xfd00, 9, 0, 0, 0, 0, 0, 1);
const STRANGER: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 66);
const QP: u32 = 100;
const REMOTE_QP: u32 = 0x2345;

/// The directed tests' configuration: two nodes, three QPs (QP is entry
/// 1), recovery after 2 us (500 clocks), +1 Gb/s every 400 ns (100 clocks),
/// the Resume cap 20 Gb/s.
fn config() -> SourceNicConfig {
    let qps = [7, QP, 0xABCDEF]
        .iter()
        .enumerate()
        .map(|(i, &q)| QpBinding {
            local_qp: q,
            remote: RECEIVER.into(),
            remote_qp: REMOTE_QP + i as u32,
        })
        .collect();
    let mut c = SourceNicConfig::new(1_000, vec![GATEWAY.into(), GATEWAY6.into()], qps);
    c.resume_cap_mbps = 20_000;
    c.ai_period_ns = 400;
    c.check_integrity = false;
    c
}

fn lanes(a: IpAddr) -> [u8; 16] {
    match a {
        IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        IpAddr::V6(v6) => v6.octets(),
    }
}

fn clocks(ns: u64) -> u64 {
    assert_eq!(ns % NS, 0, "{ns} ns is not a whole number of clocks");
    ns / NS
}

fn set_config(u: &mut Unit, c: &SourceNicConfig) {
    let mut nodes = vec![0u8; 16 * 16];
    let mut node_valid = 0u64;
    for (i, n) in c.nodes.iter().enumerate() {
        nodes[16 * i..16 * i + 16].copy_from_slice(&lanes(*n));
        node_valid |= 1 << i;
    }
    u.set_bytes("node_addr", &nodes).unwrap();
    u.set_u64("node_valid", node_valid).unwrap();
    let mut qp_words = vec![0u32; 1536 / 32];
    let mut qp_valid = 0u64;
    for (i, q) in c.qps.iter().enumerate() {
        for b in 0..24 {
            if q.local_qp >> b & 1 == 1 {
                let bit = 24 * i + b;
                qp_words[bit / 32] |= 1 << (bit % 32);
            }
        }
        qp_valid |= 1 << i;
    }
    u.set("qp_local", &qp_words).unwrap();
    u.set_u64("qp_valid", qp_valid).unwrap();
    u.set_u64("icmpv6_type", c.longhaul_icmpv6_type as u64)
        .unwrap();
    u.set_u64("ra_opcode", c.rate_advice_opcode as u64).unwrap();
    u.set_u64("line_rate", c.line_rate_mbps as u64).unwrap();
    u.set_u64("min_rate", c.min_rate_mbps as u64).unwrap();
    u.set_u64("notify_shift", c.notify_cut_shift as u64)
        .unwrap();
    u.set_u64("resume_cap", c.resume_cap_mbps as u64).unwrap();
    u.set_u64("recovery_clocks", clocks(c.recovery_interval_ns))
        .unwrap();
    u.set_u64("ai_period_clocks", clocks(c.ai_period_ns))
        .unwrap();
    u.set_u64("ai_step", c.ai_step_mbps as u64).unwrap();
    u.set_u64("clocks_per_us", clocks(1_000)).unwrap();
}

fn rtl_counters(u: &mut Unit) -> Counters {
    Counters {
        applied: u.get_u64("applied").unwrap(),
        dropped_malformed: u.get_u64("dropped_malformed").unwrap(),
        dropped_unknown_node: u.get_u64("dropped_unknown_node").unwrap(),
        dropped_inconsistent: u.get_u64("dropped_inconsistent").unwrap(),
        dropped_unknown_qp: u.get_u64("dropped_unknown_qp").unwrap(),
        legacy_cnps: u.get_u64("legacy_cnps").unwrap(),
        resumes_capped: u.get_u64("resumes_capped").unwrap(),
        frames_delayed: 0,
    }
}

/// The drop counter of reason `code` (1..=4).
fn drop_counter(c: &mut Counters, code: u64) -> &mut u64 {
    match code {
        1 => &mut c.dropped_malformed,
        2 => &mut c.dropped_unknown_node,
        3 => &mut c.dropped_inconsistent,
        4 => &mut c.dropped_unknown_qp,
        _ => panic!("not a drop reason: {code}"),
    }
}

fn reason_code(r: Received) -> Option<u64> {
    match r {
        Received::ToRnic => None,
        Received::Applied { .. } => Some(0),
        Received::Dropped(DropReason::Malformed) => Some(1),
        Received::Dropped(DropReason::UnknownNode) => Some(2),
        Received::Dropped(DropReason::Inconsistent) => Some(3),
        Received::Dropped(DropReason::UnknownQp) => Some(4),
    }
}

/// A QP's state in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct QpView {
    rate: u32,
    paused_until: u64,
}

fn probe(u: &mut Unit, index: usize) -> QpView {
    u.set_u64("probe_qp", index as u64).unwrap();
    QpView {
        rate: u.get_u64("probe_rate").unwrap() as u32,
        paused_until: u.get_u64("probe_paused_until").unwrap(),
    }
}

/// The block's QP `index` (state after clock `t`) against the model at
/// `t`: the rate, and the pause ends exactly where the model's does.
fn compare_qp(u: &mut Unit, model: &mut Model, index: usize, t: u64, what: &str) -> QpView {
    let qp = model.config().qps[index].local_qp;
    let v = probe(u, index);
    let rate = model.rate_mbps(qp, t * NS).unwrap();
    assert_eq!(v.rate, rate, "QP {qp} rate at clock {t} ({what})");
    let paused = model.paused(qp, t * NS).unwrap();
    assert_eq!(
        v.paused_until > t,
        paused,
        "QP {qp} paused at clock {t} ({what})"
    );
    if paused {
        // The pause ends at paused_until, not a clock earlier or later.
        let mut later = model.clone();
        assert_eq!(later.paused(qp, (v.paused_until - 1) * NS), Some(true));
        assert_eq!(later.paused(qp, v.paused_until * NS), Some(false));
    }
    v
}

/// A notification as the block applied it.
#[derive(Clone, Copy, Debug)]
struct Note {
    clock: u64,
    reason: u64,
    after: QpView,
}

struct Run {
    notes: Vec<Note>,
    /// Frames that reached the RNIC, with `tuser`.
    out: Vec<(Vec<u8>, bool)>,
    counters: Counters,
    model: Model,
    /// Clock of every beat taken from `s` and offered-and-taken on `m`.
    beats_in: Vec<u64>,
    beats_out: Vec<u64>,
    /// The last clock the state was compared at.
    end: u64,
}

struct Options {
    idle: f64,
    stall: f64,
    /// QPs (indexes) compared with the model after every clock.
    watch: Vec<usize>,
    /// A random QP compared with the model every this many clocks (0: never).
    spot_every: u64,
    /// Clocks to run after the last frame has left.
    tail: u64,
    seed: u64,
    /// Frames (index, the block's reason code) on which the block's drop
    /// reason differs from the model's by design (docs/decisions.md: the
    /// block does not parse the extension structure); both drop them, and
    /// the counters are compared with the count moved accordingly.
    rtl_reason: Vec<(usize, u64)>,
}

impl Options {
    fn plain() -> Self {
        Options {
            idle: 0.0,
            stall: 0.0,
            watch: vec![],
            spot_every: 0,
            tail: 4,
            seed: 1,
            rtl_reason: vec![],
        }
    }
}

/// Runs `frames` (each after `gap` idle clocks) through a fresh block and
/// checks it against the model as the module documentation says.
fn run(cfg: &SourceNicConfig, frames: &[(u64, Vec<u8>, bool)], opt: &Options) -> Run {
    let mut rng = StdRng::seed_from_u64(opt.seed);
    let mut u = Unit::new("source_nic").unwrap();
    set_config(&mut u, cfg);
    u.set_u64("reset", 1).unwrap();
    u.step();
    u.set_u64("reset", 0).unwrap();
    let mut model = Model::new(cfg.clone()).unwrap();
    // What each frame is (independent of the state): a notification's
    // verdict code, or None for a frame to the RNIC.
    let kinds: Vec<Option<u64>> = frames
        .iter()
        .map(|(_, f, _)| reason_code(Model::new(cfg.clone()).unwrap().receive(f, 0)))
        .collect();
    let expected_out: Vec<(Vec<u8>, bool)> = frames
        .iter()
        .zip(&kinds)
        .filter(|(_, k)| k.is_none())
        .map(|((_, f, user), _)| (f.clone(), *user))
        .collect();
    let mut pending: VecDeque<usize> = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| k.is_some())
        .map(|(i, _)| i)
        .collect();
    let beats: Vec<Vec<Beat>> = frames
        .iter()
        .map(|(_, f, user)| frame_to_beats(f, *user))
        .collect();
    let (mut frame, mut beat) = (0usize, 0usize);
    let mut gap_left = frames.first().map_or(0, |f| f.0);
    let mut out = FrameCollector::default();
    let mut notes = Vec::new();
    let mut recheck: Option<(usize, usize)> = None;
    let (mut beats_in, mut beats_out) = (Vec::new(), Vec::new());
    let mut done_at: Option<u64> = None;
    let mut t_prev = 0u64;
    loop {
        let now = u.get_u64("now").unwrap();
        assert!(now < 1_000_000, "wedged");
        // Registers hold the state after clock now - 1.
        if now > 0 {
            let t = now - 1;
            assert!(t >= t_prev);
            t_prev = t;
            if let Some((note, index)) = recheck.take() {
                let n: &mut Note = &mut notes[note];
                n.after = compare_qp(&mut u, &mut model, index, t, "after a notification");
            }
            for &i in &opt.watch {
                compare_qp(&mut u, &mut model, i, t, "watched");
            }
            if now.checked_rem(opt.spot_every) == Some(0) {
                let i = rng.gen_range(0..cfg.qps.len());
                compare_qp(&mut u, &mut model, i, t, "spot check");
            }
        }
        if let Some(d) = done_at {
            if now >= d {
                break;
            }
        }
        // A notification applied in this clock.
        if u.get_u64("note_done").unwrap() == 1 {
            let f = pending
                .pop_front()
                .expect("a notification verdict without a notification");
            let verdict = model.receive(&frames[f].1, now * NS);
            let reason = u.get_u64("note_reason").unwrap();
            if let Some(&(_, code)) = opt.rtl_reason.iter().find(|(i, _)| *i == f) {
                assert!(matches!(verdict, Received::Dropped(_)), "frame {f}");
                assert_eq!(reason, code, "frame {f}: the block's drop reason");
            } else {
                assert_eq!(
                    Some(reason),
                    reason_code(verdict),
                    "frame {f}: verdict {verdict:?}"
                );
            }
            let qp = match verdict {
                Received::Applied { local_qp, .. } => {
                    cfg.qps.iter().position(|q| q.local_qp == local_qp)
                }
                _ => None,
            };
            notes.push(Note {
                clock: now,
                reason,
                after: QpView {
                    rate: 0,
                    paused_until: 0,
                },
            });
            if let Some(i) = qp {
                recheck = Some((notes.len() - 1, i));
            }
        }
        // Drive.
        let mut valid = false;
        if frame < frames.len() {
            if gap_left > 0 {
                gap_left -= 1;
            } else {
                valid = !rng.gen_bool(opt.idle);
            }
        }
        u.drive_stream("s", valid.then(|| &beats[frame][beat]))
            .unwrap();
        let ready = !rng.gen_bool(opt.stall);
        u.set_u64("m_tready", ready as u64).unwrap();
        let taken = valid && u.get_u64("s_tready").unwrap() == 1;
        if let (Some(b), true) = (u.stream_output("m").unwrap(), ready) {
            out.take(&b);
            beats_out.push(now);
        }
        u.step();
        if taken {
            beats_in.push(now);
            beat += 1;
            if beat == beats[frame].len() {
                frame += 1;
                beat = 0;
                gap_left = frames.get(frame).map_or(0, |f| f.0);
            }
        }
        if done_at.is_none()
            && frame == frames.len()
            && !out.in_frame()
            && out.frames.len() == expected_out.len()
            && pending.is_empty()
            && recheck.is_none()
        {
            done_at = Some(now + 2 + opt.tail);
        }
    }
    assert!(
        pending.is_empty(),
        "notifications never applied: {pending:?}"
    );
    assert_eq!(out.frames.len(), expected_out.len(), "frames to the RNIC");
    for (i, (got, want)) in out.frames.iter().zip(&expected_out).enumerate() {
        assert!(got == want, "frame {i} to the RNIC differs");
    }
    // Every QP at the end, and the counters.
    let t = u.get_u64("now").unwrap() - 1;
    for i in 0..cfg.qps.len() {
        compare_qp(&mut u, &mut model, i, t, "at the end");
    }
    // The frames to the RNIC through the model too (they change no state;
    // standard CNPs are counted).
    for ((_, f, _), k) in frames.iter().zip(&kinds) {
        if k.is_none() {
            assert_eq!(model.receive(f, t * NS), Received::ToRnic);
        }
    }
    let counters = rtl_counters(&mut u);
    let mut want = model.counters();
    want.frames_delayed = 0;
    for &(f, code) in &opt.rtl_reason {
        *drop_counter(&mut want, kinds[f].unwrap()) -= 1;
        *drop_counter(&mut want, code) += 1;
    }
    assert_eq!(counters, want, "counters");
    Run {
        notes,
        out: out.frames,
        counters,
        model,
        beats_in,
        beats_out,
        end: t,
    }
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

/// A Long-haul CNP in RoCEv2 format from `from` for `qp`.
fn lh(from: Ipv4Addr, action: Action, parameter: u16) -> Vec<u8> {
    lh_qps(from, QP, QP, action, parameter)
}

fn lh_qps(from: Ipv4Addr, dest_qp: u32, body_qp: u32, action: Action, p: u16) -> Vec<u8> {
    LonghaulRocev2::new(dest_qp, LonghaulCnp::new(body(action, p, body_qp)))
        .to_frame(&Envelope::ipv4(from, SENDER))
        .to_bytes()
}

fn advice(from: Ipv4Addr, mbps: u32) -> Vec<u8> {
    RateAdviceMessage::new(QP, RateAdvice::new(mbps, REMOTE_QP, 0))
        .to_frame(&Envelope::ipv4(from, SENDER))
        .to_bytes()
}

fn data(len: usize) -> Vec<u8> {
    RoceFrameBuilder::ipv4(RECEIVER, SENDER)
        .opcode(opcode::RC_ACKNOWLEDGE)
        .dest_qp(QP)
        .payload_len(len)
        .build()
}

/// Frames each `gap` clocks after the previous one, `tuser` low.
fn spaced(gap: u64, frames: Vec<Vec<u8>>) -> Vec<(u64, Vec<u8>, bool)> {
    frames.into_iter().map(|f| (gap, f, false)).collect()
}

fn rates(r: &Run) -> Vec<u32> {
    r.notes.iter().map(|n| n.after.rate).collect()
}

#[test]
fn lh_16_notify_cuts_by_the_default_response_and_is_consumed() {
    let frames = spaced(
        3,
        vec![
            data(100),
            lh(GATEWAY, Action::Notify, 0),
            data(300),
            lh(GATEWAY, Action::Notify, 0),
        ],
    );
    let r = run(&config(), &frames, &Options::plain());
    // The model's values, which are its documented arithmetic: halving.
    assert_eq!(rates(&r), vec![50_000, 25_000]);
    assert_eq!(r.out.len(), 2, "only the data frames reach the RNIC");
    assert_eq!(r.counters.applied, 2);
}

#[test]
fn lh_16_rate_reduce_takes_the_percentage_and_keeps_the_floor() {
    let mut frames = Vec::new();
    for p in [30u16, 1, 99, 7, 100, 250, 0, 13] {
        frames.push(lh(GATEWAY, Action::RateReduce, p));
    }
    let r = run(&config(), &spaced(5, frames), &Options::plain());
    assert_eq!(rates(&r)[0], 70_000);
    assert_eq!(rates(&r)[4], config().min_rate_mbps, "100 %: the floor");
    assert!(r.notes.iter().all(|n| n.reason == 0));
}

#[test]
fn lh_16_pause_holds_for_the_parameter_in_microseconds() {
    let frames = spaced(
        2,
        vec![
            lh(GATEWAY, Action::Pause, 40),
            lh(GATEWAY, Action::Pause, 3),
            lh(GATEWAY, Action::Pause, 0),
        ],
    );
    let r = run(&config(), &frames, &Options::plain());
    let first = r.notes[0];
    assert_eq!(first.after.rate, 100_000, "the rate is kept");
    assert_eq!(
        first.after.paused_until,
        first.clock + clocks(40_000),
        "40 us of clocks"
    );
    // A shorter pause does not shorten it.
    assert_eq!(r.notes[2].after.paused_until, first.after.paused_until);
}

#[test]
fn lh_16_resume_recovers_part_of_the_last_cut_within_the_cap() {
    let frames = spaced(
        4,
        vec![
            lh(GATEWAY, Action::RateReduce, 60),
            lh(GATEWAY, Action::Resume, 50),
            lh(GATEWAY, Action::Resume, 25),
            lh(GATEWAY, Action::Resume, 200),
        ],
    );
    let r = run(&config(), &frames, &Options::plain());
    // 50 % of the 60 Gb/s cut is capped at 20 Gb/s; 25 % of the 40 Gb/s
    // left is 10; over 100 % counts as 100 % (30 left, capped at 20).
    assert_eq!(rates(&r), vec![40_000, 60_000, 70_000, 90_000]);
    assert_eq!(r.counters.resumes_capped, 2);
}

#[test]
fn lh_16_resume_zero_returns_to_the_rate_before_the_last_cut() {
    let mut c = config();
    c.resume_cap_mbps = 100_000;
    let frames = spaced(
        4,
        vec![
            lh(GATEWAY, Action::RateReduce, 20),
            lh(GATEWAY, Action::RateReduce, 50),
            lh(GATEWAY, Action::Resume, 0),
            // Nothing left to resume: unchanged.
            lh(GATEWAY, Action::Resume, 0),
        ],
    );
    let r = run(&c, &frames, &Options::plain());
    assert_eq!(rates(&r), vec![80_000, 40_000, 80_000, 80_000]);
    // With the cap, p = 0 gains the cap only.
    let frames = spaced(
        4,
        vec![
            lh(GATEWAY, Action::RateReduce, 90),
            lh(GATEWAY, Action::Resume, 0),
        ],
    );
    let r = run(&config(), &frames, &Options::plain());
    assert_eq!(rates(&r), vec![10_000, 30_000]);
    assert_eq!(r.counters.resumes_capped, 1);
}

#[test]
fn lh_16_rate_advice_sets_the_rate_within_the_bounds() {
    let frames = spaced(
        3,
        vec![
            advice(GATEWAY, 25_000),
            advice(GATEWAY, 400_000),
            advice(GATEWAY, 0),
            advice(GATEWAY, 12_345),
            lh(GATEWAY, Action::Resume, 0),
        ],
    );
    let r = run(&config(), &frames, &Options::plain());
    let min = config().min_rate_mbps;
    assert_eq!(rates(&r)[..4], [25_000, 100_000, min, 12_345]);
    // Advice that lowered the rate set the Resume reference (12 345 came
    // from `min`, which came from 100 000): a capped Resume from there.
    assert_eq!(rates(&r)[4], 12_345 + 20_000);
}

#[test]
fn lh_16_icmpv6_format_and_vlan_tags_are_taken_too() {
    let m6 = LonghaulIcmpv6::new(LonghaulCnp::new(body(Action::RateReduce, 25, QP)))
        .to_frame(&Envelope::ipv6(GATEWAY6, SENDER6))
        .unwrap()
        .to_bytes();
    let tagged = LonghaulRocev2::new(QP, LonghaulCnp::new(body(Action::Notify, 0, QP)))
        .to_frame(&Envelope::ipv4(GATEWAY, SENDER).with_vlan(42))
        .to_bytes();
    let ra6 = RateAdviceMessage::new(QP, RateAdvice::new(9_000, REMOTE_QP, 0))
        .to_frame(&Envelope::ipv6(GATEWAY6, SENDER6).with_vlan(7))
        .to_bytes();
    let lh6 = LonghaulRocev2::new(QP, LonghaulCnp::new(body(Action::RateReduce, 50, QP)))
        .to_frame(&Envelope::ipv6(GATEWAY6, SENDER6))
        .to_bytes();
    let forged6 = LonghaulIcmpv6::new(LonghaulCnp::new(body(Action::RateReduce, 25, QP)))
        .to_frame(&Envelope::ipv6(
            Ipv6Addr::new(0xfd00, 9, 0, 0, 0, 0, 0, 66),
            SENDER6,
        ))
        .unwrap()
        .to_bytes();
    let frames = spaced(3, vec![m6, tagged, ra6, lh6, forged6]);
    let r = run(&config(), &frames, &Options::plain());
    assert_eq!(rates(&r)[..4], [75_000, 37_500, 9_000, 4_500]);
    assert_eq!(r.notes[4].reason, 2, "unknown node");
}

#[test]
fn lh_16_additive_increase_starts_after_the_quiet_time() {
    let c = config();
    // Cut to 50 Gb/s, wait through recovery (500 clocks) and 20 steps of
    // 100 clocks; a Notify in the middle restarts the wait.
    let frames = vec![
        (2, lh(GATEWAY, Action::RateReduce, 50), false),
        (1_300, lh(GATEWAY, Action::Notify, 0), false),
    ];
    let opt = Options {
        watch: vec![1],
        tail: 8_000,
        ..Options::plain()
    };
    let r = run(&c, &frames, &opt);
    // The first step is exactly recovery_clocks after the cut.
    let cut = r.notes[0];
    let mut m = Model::new(c.clone()).unwrap();
    m.receive(&frames[0].1, cut.clock * NS);
    let before = m.clone().rate_mbps(QP, (cut.clock + 499) * NS).unwrap();
    let at = m.rate_mbps(QP, (cut.clock + 500) * NS).unwrap();
    assert_eq!((before, at), (50_000, 51_000));
    // And back at the line rate by the end (the block equal to the model
    // after every clock on the way).
    assert_eq!(
        r.model.clone().rate_mbps(QP, r.end * NS),
        Some(c.line_rate_mbps)
    );
}

#[test]
fn lh_16_forged_notifications_change_nothing_and_are_counted() {
    let frames = spaced(
        2,
        vec![
            // A node that is not configured.
            lh(STRANGER, Action::RateReduce, 90),
            // BTH DestQP and the body's Source QP disagree.
            lh_qps(GATEWAY, QP, QP + 1, Action::Pause, 1000),
            // The body's QP with a non-zero top byte.
            lh_qps(GATEWAY, QP, QP | 0x0100_0000, Action::Pause, 1000),
            // A QP that is not active.
            lh_qps(GATEWAY, QP + 1, QP + 1, Action::RateReduce, 90),
            advice(STRANGER, 100),
            // A Rate Advice message with a body of 20 bytes.
            {
                let m = RateAdviceMessage::new(QP, RateAdvice::new(100, REMOTE_QP, 0));
                let mut p = m.to_roce();
                p.payload.extend_from_slice(&[0; 4]);
                p.to_frame(
                    &Envelope::ipv4(GATEWAY, SENDER),
                    0xC000,
                    cngw_packet::frame::UdpChecksum::Zero,
                )
                .to_bytes()
            },
        ],
    );
    let r = run(&config(), &frames, &Options::plain());
    let reasons: Vec<u64> = r.notes.iter().map(|n| n.reason).collect();
    assert_eq!(reasons, vec![2, 3, 3, 4, 2, 1]);
    assert!(r.out.is_empty(), "none reaches the RNIC");
    let c = r.counters;
    assert_eq!(
        (
            c.dropped_unknown_node,
            c.dropped_inconsistent,
            c.dropped_unknown_qp,
            c.dropped_malformed,
            c.applied
        ),
        (2, 2, 1, 1, 0)
    );
}

/// BTH byte 4 (FECN, BECN, the E bit and the other reserved bits) of an
/// untagged IPv4 RoCEv2 frame.
const BTH_FLAGS_V4: usize = 14 + 20 + 8 + 4;

/// Every QP's state after every clock: the line rate, never paused.
fn assert_untouched(r: &Run, c: &SourceNicConfig) {
    let mut m = r.model.clone();
    for q in &c.qps {
        assert_eq!(m.rate_mbps(q.local_qp, r.end * NS), Some(c.line_rate_mbps));
        assert_eq!(m.paused(q.local_qp, r.end * NS), Some(false));
    }
}

#[test]
fn lh_16_forged_rate_advice_from_an_unknown_node_changes_nothing() {
    let c = config();
    let stranger6 = Ipv6Addr::new(0xfd00, 9, 0, 0, 0, 0, 0, 66);
    let mut frames = Vec::new();
    for (i, mbps) in [1u32, 100, 0, 50_000, u32::MAX].into_iter().enumerate() {
        frames.push(advice(STRANGER, mbps));
        // The same advice from the other stranger, over IPv6, to every QP.
        let qp = c.qps[i % c.qps.len()].local_qp;
        frames.push(
            RateAdviceMessage::new(qp, RateAdvice::new(mbps, REMOTE_QP, 0))
                .to_frame(&Envelope::ipv6(stranger6, SENDER6))
                .to_bytes(),
        );
    }
    // Every QP compared with the model after every clock.
    let opt = Options {
        watch: (0..c.qps.len()).collect(),
        tail: 200,
        ..Options::plain()
    };
    let r = run(&c, &spaced(3, frames), &opt);
    assert!(r.notes.iter().all(|n| n.reason == 2), "unknown node");
    assert_eq!(r.notes.len(), 10);
    assert!(r.out.is_empty(), "none reaches the RNIC");
    assert_eq!(
        (r.counters.dropped_unknown_node, r.counters.applied),
        (10, 0)
    );
    assert_untouched(&r, &c);
}

#[test]
fn lh_16_e_bit_set_on_a_standard_cnp_is_dropped_and_cleared_on_a_longhaul_cnp_reaches_the_rnic() {
    let c = config();
    // A standard CNP with E set (the ICRC, which does not cover E, still
    // verifies), from a configured node and from a stranger. Its 16
    // reserved bytes read as a Long-haul body with Source QP 0 and an
    // extension header of version 0: the model drops it as malformed (it
    // parses the extension structure); the block, which reads only the
    // fixed message (docs/decisions.md), drops it as inconsistent (BTH
    // DestQP is not the body's Source QP 0) from the node and as from an
    // unknown node from the stranger. Either way it never reaches the RNIC
    // and changes nothing.
    let mut cnp_e = Cnp::new(QP)
        .to_frame(&Envelope::ipv4(GATEWAY, SENDER))
        .to_bytes();
    assert_eq!(cnp_e[BTH_FLAGS_V4] & 0x20, 0);
    cnp_e[BTH_FLAGS_V4] |= 0x20;
    let mut stranger_e = Cnp::new(QP)
        .to_frame(&Envelope::ipv4(STRANGER, SENDER))
        .to_bytes();
    stranger_e[BTH_FLAGS_V4] |= 0x20;
    // A Long-haul CNP (Rate Reduce 50 %) with E cleared: a standard CNP
    // to the RNIC, byte for byte; the block applies nothing.
    let mut lh_cleared = lh(GATEWAY, Action::RateReduce, 50);
    assert_eq!(lh_cleared[BTH_FLAGS_V4] & 0x20, 0x20);
    lh_cleared[BTH_FLAGS_V4] &= !0x20;
    let opt = Options {
        watch: (0..c.qps.len()).collect(),
        rtl_reason: vec![(0, 3), (1, 2)],
        ..Options::plain()
    };
    let frames = spaced(3, vec![cnp_e.clone(), stranger_e, lh_cleared.clone()]);
    let r = run(&c, &frames, &opt);
    let reasons: Vec<u64> = r.notes.iter().map(|n| n.reason).collect();
    assert_eq!(reasons, vec![3, 2], "both dropped");
    let mut m = Model::new(c.clone()).unwrap();
    assert_eq!(
        m.receive(&cnp_e, 0),
        Received::Dropped(DropReason::Malformed)
    );
    assert_eq!(r.out, vec![(lh_cleared, false)]);
    assert_eq!(
        (
            r.counters.dropped_inconsistent,
            r.counters.dropped_unknown_node,
            r.counters.legacy_cnps,
            r.counters.applied
        ),
        (1, 1, 1, 0)
    );
    assert_untouched(&r, &c);
}

#[test]
fn lh_16_forged_resume_flood_is_capped() {
    let c = config();
    let mut rng = StdRng::seed_from_u64(93);
    // A 90 % cut, then a flood of Resumes with random parameters from the
    // configured node (forged or not, the block cannot tell), a second cut
    // in the middle, and Resumes from a stranger among them.
    let mut frames = vec![lh(GATEWAY, Action::RateReduce, 90)];
    for i in 0..40 {
        if i == 20 {
            frames.push(lh(GATEWAY, Action::RateReduce, 60));
        }
        let from = if rng.gen_bool(0.2) { STRANGER } else { GATEWAY };
        frames.push(lh(from, Action::Resume, rng.gen_range(0..=300)));
    }
    // The whole flood within the recovery time (no additive increase in
    // between: every change is a notification's).
    let opt = Options {
        watch: vec![1],
        ..Options::plain()
    };
    let r = run(&c, &spaced(2, frames.clone()), &opt);
    assert!(r.notes.last().unwrap().clock - r.notes[0].clock < clocks(c.recovery_interval_ns));
    assert_eq!(r.notes.len(), frames.len());
    let (mut rate, mut before_cut) = (c.line_rate_mbps, c.line_rate_mbps);
    let mut capped = 0;
    for (n, f) in r.notes.iter().zip(&frames) {
        let m = LonghaulRocev2::from_frame(&cngw_packet::frame::Frame::parse(f).unwrap()).unwrap();
        match m.cnp.body.action {
            Action::RateReduce => {
                assert_eq!(n.reason, 0);
                before_cut = rate;
                assert!(n.after.rate < rate);
            }
            // A stranger's Resume is dropped (the QP equal to the model's
            // after every clock, and the next step below starts from the
            // rate before it).
            _ if f[26..30] == STRANGER.octets() => assert_eq!(n.reason, 2),
            _ => {
                assert_eq!(n.reason, 0);
                let gain = n.after.rate - rate;
                assert!(gain <= c.resume_cap_mbps, "a Resume gained {gain} Mb/s");
                assert!(
                    n.after.rate <= before_cut,
                    "above the rate before the last cut"
                );
                capped += u64::from(gain == c.resume_cap_mbps);
            }
        }
        if n.reason == 0 {
            rate = n.after.rate;
        }
    }
    // The flood got back to the rate before the last cut, no further.
    assert_eq!(rate, before_cut);
    assert!(capped > 0 && r.counters.resumes_capped > 0);
    assert!(r.counters.dropped_unknown_node > 0);
}

#[test]
fn lh_16_legacy_cnp_and_data_pass_to_the_rnic_byte_for_byte() {
    let cnp = Cnp::new(QP)
        .to_frame(&Envelope::ipv4(RECEIVER, SENDER))
        .to_bytes();
    let cnp6 = Cnp::new(QP)
        .to_frame(&Envelope::ipv6(
            Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 1),
            SENDER6,
        ))
        .to_bytes();
    // A standard CNP from a configured node is still the RNIC's.
    let from_node = Cnp::new(QP)
        .to_frame(&Envelope::ipv4(GATEWAY, SENDER))
        .to_bytes();
    let mut arp = vec![0xffu8; 60];
    arp[12] = 0x08;
    arp[13] = 0x06;
    let frames = vec![
        (0, cnp.clone(), true),
        (0, data(1000), false),
        (0, cnp6.clone(), false),
        (0, from_node.clone(), false),
        (0, arp.clone(), true),
        (0, vec![0x5a; 1], false),
    ];
    let r = run(&config(), &frames, &Options::plain());
    assert_eq!(r.out.len(), 6);
    assert_eq!(r.out[0], (cnp, true));
    assert_eq!(r.counters.legacy_cnps, 3);
    assert!(r.notes.is_empty());
}

#[test]
fn lh_16_stream_latency_two_clocks_and_one_beat_per_clock() {
    // Back-to-back frames with no backpressure: one beat per clock in and
    // out, each beat out two clocks after it went in; notifications taken
    // at the same pace.
    let mut frames = Vec::new();
    for i in 0..40 {
        frames.push(match i % 4 {
            0 => data(900),
            1 => lh(GATEWAY, Action::Notify, 0),
            2 => data(40),
            _ => data(64 + i),
        });
    }
    let r = run(&config(), &spaced(0, frames), &Options::plain());
    let first = r.beats_in[0];
    let n = r.beats_in.len() as u64;
    assert_eq!(r.beats_in.last().unwrap() - first, n - 1, "no input stall");
    assert_eq!(r.beats_out.first(), Some(&(first + 2)));
    assert_eq!(r.beats_out.last(), Some(&(r.beats_in.last().unwrap() + 2)));
    // Out: every beat of the passed frames, in consecutive clocks but for
    // the clocks the notifications' beats took.
    let dropped_beats: u64 = r
        .notes
        .iter()
        .map(|_| 2) // each Notify here is one 70-byte frame of two beats
        .sum();
    assert_eq!(
        r.beats_out.last().unwrap() - r.beats_out.first().unwrap() + 1,
        r.beats_out.len() as u64 + dropped_beats
    );
}

/// Random traffic against the model, with `idle`/`stall` and seed.
fn random_run(seed: u64, n: usize, idle: f64, stall: f64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let nodes: Vec<IpAddr> = (0..16)
        .map(|i| match i % 3 {
            0 => IpAddr::V6(Ipv6Addr::new(0xfd00, 9, 0, 0, 0, 0, 0, 1 + i)),
            _ => IpAddr::V4(Ipv4Addr::new(10, 9, i as u8, 1)),
        })
        .collect();
    let mut locals = Vec::new();
    while locals.len() < 64 {
        let q = rng.gen_range(1..0x0100_0000u32);
        if !locals.contains(&q) {
            locals.push(q);
        }
    }
    let qps = locals
        .iter()
        .enumerate()
        .map(|(i, &q)| QpBinding {
            local_qp: q,
            remote: RECEIVER.into(),
            remote_qp: 0x10_0000 + i as u32,
        })
        .collect();
    let mut c = SourceNicConfig::new(800, nodes.clone(), qps);
    c.ai_period_ns = 200;
    c.ai_step_mbps = 1_500;
    c.resume_cap_mbps = 15_000;
    c.notify_cut_shift = rng.gen_range(1..=3);
    c.min_rate_mbps = 300;
    c.check_integrity = false;
    let v4_nodes: Vec<Ipv4Addr> = nodes
        .iter()
        .filter_map(|a| match a {
            IpAddr::V4(v) => Some(*v),
            _ => None,
        })
        .collect();
    let v6_nodes: Vec<Ipv6Addr> = nodes
        .iter()
        .filter_map(|a| match a {
            IpAddr::V6(v) => Some(*v),
            _ => None,
        })
        .collect();
    let mut frames = Vec::new();
    for _ in 0..n {
        let gap = if rng.gen_bool(0.03) {
            rng.gen_range(100..1_500)
        } else {
            0
        };
        let v6 = rng.gen_bool(0.4);
        let known_node = rng.gen_bool(0.9);
        let env = if v6 {
            let src = if known_node {
                v6_nodes[rng.gen_range(0..v6_nodes.len())]
            } else {
                Ipv6Addr::new(0xfd00, 9, 0, 0, 0, 0, 0, 0x99)
            };
            Envelope::ipv6(src, SENDER6)
        } else {
            let src = if known_node {
                v4_nodes[rng.gen_range(0..v4_nodes.len())]
            } else {
                Ipv4Addr::new(10, 9, 99, 1)
            };
            Envelope::ipv4(src, SENDER)
        };
        let env = if rng.gen_bool(0.2) {
            env.with_vlan(rng.gen_range(1..4095))
        } else {
            env
        };
        let qp = if rng.gen_bool(0.92) {
            locals[rng.gen_range(0..8)]
        } else {
            rng.gen_range(1..0x0100_0000)
        };
        let action = [
            Action::Notify,
            Action::Pause,
            Action::RateReduce,
            Action::Resume,
        ][rng.gen_range(0..4)];
        let parameter = match (action, rng.gen_range(0..10)) {
            (Action::Pause, _) => rng.gen_range(0..8),
            (_, 0) => rng.gen(),
            (_, 1) => 0,
            _ => rng.gen_range(0..=110),
        };
        let body_qp = if rng.gen_bool(0.93) {
            qp
        } else {
            qp ^ (1 << rng.gen_range(0..32))
        };
        let f = match rng.gen_range(0..12) {
            0..=3 => LonghaulRocev2::new(qp, LonghaulCnp::new(body(action, parameter, body_qp)))
                .to_frame(&env)
                .to_bytes(),
            4 if v6 => LonghaulIcmpv6::new(LonghaulCnp::new(body(action, parameter, qp)))
                .to_frame(&env)
                .unwrap()
                .to_bytes(),
            4 | 5 => {
                let mbps = match rng.gen_range(0..4) {
                    0 => rng.gen(),
                    _ => rng.gen_range(0..120_000),
                };
                RateAdviceMessage::new(qp, RateAdvice::new(mbps, 7, 0))
                    .to_frame(&env)
                    .to_bytes()
            }
            6 => Cnp::new(qp).to_frame(&env).to_bytes(),
            7 => {
                // A notification whose ICRC was damaged on the way (the
                // block does not check it).
                let mut f = LonghaulRocev2::new(qp, LonghaulCnp::new(body(action, parameter, qp)))
                    .to_frame(&env)
                    .to_bytes();
                let n = f.len();
                f[n - 1] ^= 0x5a;
                f
            }
            8 => {
                let mut arp: Vec<u8> = (0..rng.gen_range(60..200)).map(|_| rng.gen()).collect();
                arp[12] = 0x08;
                arp[13] = 0x06;
                arp
            }
            _ => {
                let b = if v6 {
                    RoceFrameBuilder::ipv6(Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 1), SENDER6)
                } else {
                    RoceFrameBuilder::ipv4(RECEIVER, SENDER)
                };
                b.dest_qp(qp)
                    .opcode(opcode::RC_RDMA_WRITE_ONLY)
                    .payload_len(rng.gen_range(0..1500))
                    .build()
            }
        };
        frames.push((gap, f, rng.gen_bool(0.1)));
    }
    let opt = Options {
        idle,
        stall,
        watch: vec![0, 1],
        spot_every: 7,
        tail: 2_000,
        seed: seed ^ 0x5eed,
        rtl_reason: vec![],
    };
    let r = run(&c, &frames, &opt);
    let applied = r.notes.iter().filter(|n| n.reason == 0).count();
    assert!(applied > n / 5, "only {applied} applied");
    for reason in 1..=4 {
        assert!(
            reason == 1 || r.notes.iter().any(|n| n.reason == reason),
            "no drop of reason {reason}"
        );
    }
    assert!(r.counters.resumes_capped > 0 && r.counters.legacy_cnps > 0);
}

#[test]
fn lh_16_random_notifications_match_the_model_with_idle_and_backpressure() {
    random_run(16, 6_000, 0.3, 0.3);
}

#[test]
fn lh_16_random_notifications_match_the_model_at_full_rate() {
    random_run(17, 6_000, 0.0, 0.0);
}

// ---- Transmit side ----

/// The peers of `config()`'s QPs on the transmit ports.
fn set_peers(u: &mut Unit, c: &SourceNicConfig) {
    let mut addrs = vec![0u8; 64 * 16];
    let mut qp_words = vec![0u32; 1536 / 32];
    for (i, q) in c.qps.iter().enumerate() {
        addrs[16 * i..16 * i + 16].copy_from_slice(&lanes(q.remote));
        for b in 0..24 {
            if q.remote_qp >> b & 1 == 1 {
                let bit = 24 * i + b;
                qp_words[bit / 32] |= 1 << (bit % 32);
            }
        }
    }
    u.set_bytes("qp_remote_addr", &addrs).unwrap();
    u.set("qp_remote_qp", &qp_words).unwrap();
    u.set_u64("ns_per_clock", NS).unwrap();
    u.set_u64("burst_bytes", c.burst_bytes as u64).unwrap();
}

/// A frame to the network as it left.
#[derive(Clone, Copy, Debug)]
struct Departure {
    /// The clock its first beat reached the head (its offer time).
    offered: u64,
    /// The clock its first beat left.
    left: u64,
    /// The model's departure for it, ns.
    model_ns: u64,
    paced: bool,
}

struct TxRun {
    departures: Vec<Departure>,
    out: Vec<(Vec<u8>, bool)>,
    delayed: u64,
    model: Model,
}

/// Notifications `rx` (each after its gap) on `s`, then frames `tx` on
/// `tx_s` from clock `tx_start` (each after its gap); the RNIC side never
/// stalls, the network side stalls with probability `stall`. Every frame
/// on `tx` leaves byte for byte, in order; with `stall` 0 each leaves in
/// the clock the model's departure falls in (the model is offered it when
/// it reaches the head, `tx_head`).
fn run_tx(
    cfg: &SourceNicConfig,
    rx: &[(u64, Vec<u8>)],
    tx: &[(u64, Vec<u8>)],
    tx_start: u64,
    idle: f64,
    stall: f64,
    seed: u64,
) -> TxRun {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut u = Unit::new("source_nic").unwrap();
    set_config(&mut u, cfg);
    set_peers(&mut u, cfg);
    u.set_u64("m_tready", 1).unwrap();
    u.set_u64("reset", 1).unwrap();
    u.step();
    u.set_u64("reset", 0).unwrap();
    let mut model = Model::new(cfg.clone()).unwrap();
    for (_, f) in rx {
        let k = Model::new(cfg.clone()).unwrap().receive(f, 0);
        assert!(reason_code(k).is_some(), "rx frames here are notifications");
    }
    let rx_beats: Vec<Vec<Beat>> = rx.iter().map(|(_, f)| frame_to_beats(f, false)).collect();
    let tx_beats: Vec<Vec<Beat>> = tx.iter().map(|(_, f)| frame_to_beats(f, false)).collect();
    let (mut rf, mut rb, mut rgap) = (0usize, 0usize, rx.first().map_or(0, |f| f.0));
    let (mut tf, mut tb, mut tgap) = (0usize, 0usize, tx.first().map_or(0, |f| f.0));
    let mut rx_applied = 0usize;
    let mut out = FrameCollector::default();
    // The head frame: (its index, offer clock, model departure, paced).
    let mut head: Option<(usize, u64, u64, bool)> = None;
    let mut next_head = 0usize;
    let mut departures = Vec::new();
    loop {
        let now = u.get_u64("now").unwrap();
        assert!(now < 2_000_000, "wedged");
        if rx_applied == rx.len()
            && tf == tx.len()
            && departures.len() == tx.len()
            && !out.in_frame()
        {
            break;
        }
        // Offers first, then notifications: the model sees a frame offered
        // in the clock a notification is applied before it.
        if head.is_none() && u.get_u64("tx_head").unwrap() == 1 {
            let paced = u.get_u64("tx_paced").unwrap() == 1;
            let d = model.send(&tx[next_head].1, now * NS);
            head = Some((next_head, now, d, paced));
            next_head += 1;
        }
        if u.get_u64("note_done").unwrap() == 1 {
            let v = model.receive(&rx[rx_applied].1, now * NS);
            assert_eq!(Some(u.get_u64("note_reason").unwrap()), reason_code(v));
            rx_applied += 1;
        }
        // Drive both inputs.
        let mut rvalid = false;
        if rf < rx.len() {
            if rgap > 0 {
                rgap -= 1;
            } else {
                rvalid = true;
            }
        }
        u.drive_stream("s", rvalid.then(|| &rx_beats[rf][rb]))
            .unwrap();
        let mut tvalid = false;
        if tf < tx.len() && now >= tx_start {
            if tgap > 0 {
                tgap -= 1;
            } else {
                tvalid = !rng.gen_bool(idle);
            }
        }
        u.drive_stream("tx_s", tvalid.then(|| &tx_beats[tf][tb]))
            .unwrap();
        let ready = !rng.gen_bool(stall);
        u.set_u64("tx_m_tready", ready as u64).unwrap();
        let rtaken = rvalid && u.get_u64("s_tready").unwrap() == 1;
        let ttaken = tvalid && u.get_u64("tx_s_tready").unwrap() == 1;
        if let (Some(b), true) = (u.stream_output("tx_m").unwrap(), ready) {
            if !out.in_frame() {
                let (i, offered, d, paced) = head.take().expect("a first beat left unoffered");
                assert_eq!(i, departures.len());
                departures.push(Departure {
                    offered,
                    left: now,
                    model_ns: d,
                    paced,
                });
            }
            out.take(&b);
        }
        u.step();
        if rtaken {
            rb += 1;
            if rb == rx_beats[rf].len() {
                rf += 1;
                rb = 0;
                rgap = rx.get(rf).map_or(0, |f| f.0);
            }
        }
        if ttaken {
            tb += 1;
            if tb == tx_beats[tf].len() {
                tf += 1;
                tb = 0;
                tgap = tx.get(tf).map_or(0, |f| f.0);
            }
        }
    }
    assert_eq!(out.frames.len(), tx.len());
    for (i, (got, (_, want))) in out.frames.iter().zip(tx).enumerate() {
        assert!(&got.0 == want, "frame {i} to the network differs");
    }
    if stall == 0.0 {
        for (i, d) in departures.iter().enumerate() {
            assert_eq!(
                d.left,
                d.model_ns.div_ceil(NS),
                "frame {i} (offered at clock {}, paced {}): the model's departure is {} ns",
                d.offered,
                d.paced,
                d.model_ns
            );
        }
        assert_eq!(
            u.get_u64("frames_delayed").unwrap(),
            model.counters().frames_delayed,
            "frames_delayed"
        );
    } else {
        for (i, d) in departures.iter().enumerate() {
            assert!(d.left * NS >= d.model_ns, "frame {i} left before its time");
        }
    }
    TxRun {
        delayed: u.get_u64("frames_delayed").unwrap(),
        departures,
        out: out.frames,
        model,
    }
}

/// A data frame of `config()`'s QP `index` to its peer.
fn tx_data(index: usize, payload: usize) -> Vec<u8> {
    RoceFrameBuilder::ipv4(SENDER, RECEIVER)
        .dest_qp(REMOTE_QP + index as u32)
        .payload_len(payload)
        .build()
}

#[test]
fn lh_16_tx_frames_leave_at_the_qps_rate_after_the_burst() {
    let mut cfg = config();
    // No recovery during the run: the rate stays at 10 Gb/s.
    cfg.recovery_interval_ns = 1_000_000_000;
    let rx = vec![(2, lh(GATEWAY, Action::RateReduce, 90))];
    let frame = tx_data(1, 1000);
    let tx: Vec<(u64, Vec<u8>)> = (0..40).map(|_| (0, frame.clone())).collect();
    let r = run_tx(&cfg, &rx, &tx, 20, 0.0, 0.0, 3);
    // The burst (16 KiB) leaves back to back, then one frame per
    // bits / 10 Gb/s.
    let bits = 8 * frame.len() as u64;
    let burst = (8 * cfg.burst_bytes as u64 / bits) as usize;
    let lefts: Vec<u64> = r.departures.iter().map(|d| d.left).collect();
    let beats = frame.len().div_ceil(64) as u64;
    assert!(lefts[..burst].windows(2).all(|w| w[1] - w[0] == beats));
    let gaps: Vec<u64> = lefts[burst + 1..].windows(2).map(|w| w[1] - w[0]).collect();
    let ideal = bits * 1_000 / 10_000 / NS;
    assert!(
        gaps.iter().all(|&g| g.abs_diff(ideal) <= 1),
        "gaps {gaps:?}, about {ideal} clocks"
    );
    assert!(r.delayed >= 20, "{} frames waited", r.delayed);
}

#[test]
fn lh_16_tx_pause_holds_the_qp_and_the_frames_behind_it() {
    let cfg = config();
    let rx = vec![(2, lh(GATEWAY, Action::Pause, 5))];
    let tx = vec![
        (0, tx_data(0, 200)),
        (0, tx_data(1, 200)),
        (0, tx_data(2, 300)),
        // Not a configured peer: never paced.
        (
            0,
            RoceFrameBuilder::ipv4(SENDER, Ipv4Addr::new(10, 2, 0, 9))
                .dest_qp(REMOTE_QP + 1)
                .build(),
        ),
        (0, data(500)),
    ];
    let r = run_tx(&cfg, &rx, &tx, 20, 0.0, 0.0, 4);
    let d = &r.departures;
    assert!(d[0].paced && d[1].paced && !d[3].paced && !d[4].paced);
    assert_eq!(d[0].left, d[0].offered, "QP 0 is not paused");
    // QP 1 leaves when its 5 us pause ends (the model's time).
    assert!(d[1].left > d[1].offered + 1_000);
    assert_eq!(d[1].left * NS, d[1].model_ns);
    assert_eq!(d[2].offered, d[1].left + 1 + 4, "behind it, in order");
}

#[test]
fn lh_16_tx_random_frames_and_recovery_match_the_model() {
    let mut rng = StdRng::seed_from_u64(21);
    let mut cfg = config();
    cfg.burst_bytes = 4_000;
    cfg.min_rate_mbps = 500;
    cfg.ai_step_mbps = 50;
    // Cuts first, then frames while the rates recover.
    let mut rx = Vec::new();
    for i in 0..3 {
        let f = LonghaulRocev2::new(
            cfg.qps[i].local_qp,
            LonghaulCnp::new(body(
                Action::RateReduce,
                70 + 10 * i as u16,
                cfg.qps[i].local_qp,
            )),
        )
        .to_frame(&Envelope::ipv4(GATEWAY, SENDER))
        .to_bytes();
        rx.push((1, f));
    }
    rx.push((1, lh(GATEWAY, Action::Pause, 2)));
    let tx: Vec<(u64, Vec<u8>)> = (0..600)
        .map(|_| {
            let gap = if rng.gen_bool(0.05) {
                rng.gen_range(0..400)
            } else {
                0
            };
            let f = match rng.gen_range(0..5) {
                0 => data(rng.gen_range(0..300)),
                i => tx_data(((i - 1) % 3) as usize, rng.gen_range(200..2_000)),
            };
            (gap, f)
        })
        .collect();
    let r = run_tx(&cfg, &rx, &tx, 40, 0.2, 0.0, 22);
    assert!(r.delayed > 50, "only {} frames waited", r.delayed);
    // The run covered the recovery: the rates rose during it.
    let mut m = r.model.clone();
    let end = r.departures.last().unwrap().left * NS;
    assert!(m.rate_mbps(cfg.qps[0].local_qp, end).unwrap() > 30_000);
    // With backpressure the same frames leave byte for byte, none early.
    let r = run_tx(&cfg, &rx, &tx, 40, 0.2, 0.3, 23);
    assert_eq!(r.out.len(), tx.len());
}
