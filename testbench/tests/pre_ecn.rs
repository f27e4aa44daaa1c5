//! PE-03, the congested WAN node's two-threshold marking
//! (draft-hu-rtgwg-pre-ecn-wan) in the RTL: the average queue moves
//! through T1, T2 and Tmax while random traffic passes toward the WAN, with
//! random idle clocks and backpressure; every frame leaving on wan_tx (its
//! ECN codepoint and IPv4 checksum), every counter and the probability
//! gauges equal the reference model's (`cngw_model::pre_ecn`), whose draws
//! come from the same LFSR. The marking fractions at fixed queue levels
//! follow the linear law, and scapy recomputes the IPv4 checksum of every
//! remarked frame.

use cngw_model::pre_ecn::{probability, tick_in_effect, ALWAYS, PROB_DELAY};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::scapy::{assert_checksums_ok, dissect};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, offset, pe_control};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, DepthStep, Schedule};
use cngw_testbench::traffic::random_mix;
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{Ipv4Addr, Ipv6Addr};

const T1: u32 = 20_000_000;
const T2: u32 = 60_000_000;
const TMAX: u32 = 100_000_000;

fn both(gw: &mut Gateway, m: &mut GatewayModel, off: u32, v: u32) {
    gw.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

/// A gateway and a model with two-threshold marking on: T1 20 MB, T2 60 MB,
/// Tmax 100 MB, the average moving by half the difference every
/// microsecond, the LFSR seeded with `seed`.
fn setup(seed: u32) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    for (off, v) in [
        (offset::PE_T1_BYTES, T1),
        (offset::PE_T2_BYTES, T2),
        (offset::PE_TMAX_BYTES, TMAX),
        (offset::PORT0_AVG_WEIGHT_SHIFT, 1),
        (offset::PE_LFSR_SEED, seed),
        (offset::PE_CONTROL, pe_control::WAN_MARKING),
        (offset::FEATURE_ENABLE, feature::PRE_ECN),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    (gw, m)
}

fn roce(i: u32, ecn: Ecn, len: usize, v6: bool) -> Frame {
    let b = if v6 {
        RoceFrameBuilder::ipv6(
            Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 1, i as u16),
            Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 2, 1),
        )
    } else {
        RoceFrameBuilder::ipv4(
            Ipv4Addr::new(10, 0, 0, i as u8 + 1),
            Ipv4Addr::new(10, 0, 9, 1),
        )
    };
    Frame::new(
        b.ecn(ecn)
            .dest_qp(0x100 + i)
            .psn(i)
            .payload_len(len.saturating_sub(62))
            .build(),
    )
}

fn ecn_of(f: &[u8]) -> Ecn {
    cngw_packet::Frame::parse(f).unwrap().ip.header.ecn()
}

/// PE-03: random traffic (IPv4 and IPv6 RoCEv2 with every ECN codepoint,
/// other frames) while the telemetry depth jumps between levels below T1,
/// between the thresholds and above Tmax; with seed 2 LH-04 marking (K_min
/// 90 MB) is on too, so CE comes from both. The RTL equals the model in
/// every frame and counter, both kinds of mark occur, and scapy accepts
/// every IPv4 checksum on wan_tx.
#[test]
fn pe_03_random_marking_matches_the_model_with_idle_and_backpressure() {
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let (mut gw, mut m) = setup(rng.gen());
        if seed == 2 {
            both(&mut gw, &mut m, offset::PORT0_K_MIN_BYTES, 90_000_000);
            both(
                &mut gw,
                &mut m,
                offset::FEATURE_ENABLE,
                feature::PRE_ECN | feature::LH_ECN_MARK,
            );
        }
        let levels = [
            0,
            10_000_000,
            30_000_000,
            50_000_000,
            75_000_000,
            95_000_000,
            150_000_000,
        ];
        let mut depth_steps = Vec::new();
        let mut dc = Vec::new();
        let mut wan = Vec::new();
        // Which dc_rx frames are ours (valid ICRCs), in order.
        let mut ours = Vec::new();
        for phase in 0..12u64 {
            let at = phase * 6_000;
            depth_steps.push(DepthStep {
                cycle: at,
                bytes: levels[rng.gen_range(0..levels.len())],
            });
            for _ in 0..rng.gen_range(60..160) {
                let generated = rng.gen_bool(0.85);
                let f = if generated {
                    let ecn = [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce][rng.gen_range(0..4)];
                    roce(
                        rng.gen_range(0..10),
                        ecn,
                        rng.gen_range(64..700),
                        rng.gen_bool(0.4),
                    )
                } else {
                    random_mix(&mut rng, 1).remove(0)
                };
                ours.push(generated);
                dc.push((at + 2_000, f));
            }
            let n = rng.gen_range(0..5);
            for f in random_mix(&mut rng, n) {
                wan.push((at, f));
            }
        }
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc), (InPort::WanRx, wan)],
            depth_steps,
            end_cycle: None,
        };
        let opts = StreamOptions::random(0.15 * seed as f64, 0.2 * seed as f64, seed);
        let run = check_scheduled(&mut gw, &mut m, &schedule, opts)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        let (ect1, ce) = (reg(offset::PE_ECT1_MARKED), reg(offset::PE_CE_MARKED));
        eprintln!(
            "seed {seed}: {} frames toward the WAN, {ect1} remarked ECT(1), {ce} marked CE, {} CE by LH-04",
            run.capture.outputs[&OutPort::WanTx].len(),
            reg(offset::LH_CE_MARKED_FRAMES)
        );
        assert!(ect1 > 20 && ce > 20, "seed {seed}: both marks occur");
        // Our RoCEv2 frames (wan_tx carries the dc_rx frames in order; the
        // random ones may carry wrong ICRCs on purpose).
        let frames: Vec<Vec<u8>> = run.capture.outputs[&OutPort::WanTx]
            .iter()
            .zip(&ours)
            .filter(|(_, &o)| o)
            .map(|(f, _)| f.data.clone())
            .collect();
        assert_eq!(frames.len(), ours.iter().filter(|&&o| o).count());
        if let Some(dissected) = dissect(&frames) {
            for f in &dissected {
                assert_checksums_ok(f);
            }
        }
    }
}

/// PE-03: the probability gauges, read at random clocks while the depth
/// moves, equal the model's probabilities of the clock they were read in
/// (PROB_DELAY clocks after the microsecond tick whose average they use).
#[test]
fn pe_03_probabilities_follow_the_average_clock_exactly() {
    let (mut gw, mut m) = setup(1);
    let mut rng = StdRng::seed_from_u64(9);
    let mut seen_between = [false; 2];
    for _ in 0..40 {
        let bytes = rng.gen_range(0..130_000_000);
        let at = gw.cycle();
        gw.set_queue_depth(bytes, true);
        gw.run(1);
        gw.set_queue_depth(bytes, false);
        m.set_queue_depth_at(bytes, at);
        gw.run(rng.gen_range(50..900));
        for (off, which) in [(offset::PE_P_ECT1, 0), (offset::PE_P_CE, 1)] {
            let from = gw.cycle();
            let got = gw.csr_read(off).unwrap();
            let to = gw.cycle();
            let want: Vec<u32> = (from.saturating_sub(4)..=to)
                .map(|c| {
                    let (p1, p2) = m.pe_probabilities(c);
                    [p1, p2][which]
                })
                .collect();
            assert!(
                want.contains(&got),
                "{off:#x}: read {got}, the model says {want:?} for clocks {}..={to}",
                from.saturating_sub(4)
            );
            if got > 0 && got < ALWAYS {
                seen_between[which] = true;
            }
        }
    }
    assert_eq!(
        seen_between,
        [true, true],
        "values strictly between 0 and 1"
    );
    // The delay itself: the tick in effect moves PROB_DELAY clocks after it.
    let reset = gw.reset_released_at();
    let tick = reset + 321;
    assert_eq!(tick_in_effect(tick + PROB_DELAY - 1, reset, 322), None);
    assert_eq!(tick_in_effect(tick + PROB_DELAY, reset, 322), Some(tick));
}

/// PE-03: at a fixed average between T1 and T2 the share of ECT(0) frames
/// remarked ECT(1) is p_ect1, between T2 and Tmax the share marked CE is
/// p_ce and the rest are ECT(1): the linear law, within four standard
/// deviations, over 4000 one-beat frames each; below T1 nothing is marked.
#[test]
fn pe_03_marking_shares_follow_the_linear_law() {
    for (depth, seed) in [(10_000_000u32, 7u32), (35_000_000, 8), (80_000_000, 9)] {
        let (mut gw, mut m) = setup(seed);
        // The average reaches the depth (half the difference per us).
        let at = gw.cycle();
        gw.set_queue_depth(depth, true);
        gw.run(1);
        gw.set_queue_depth(depth, false);
        m.set_queue_depth_at(depth, at);
        gw.run(322 * 40);
        let frames: Vec<(u64, Frame)> = (0..4000)
            .map(|i| (0, roce(i % 8, Ecn::Ect0, 64, false)))
            .collect();
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, frames)],
            depth_steps: vec![],
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("depth {depth}: {e}"));
        let out = &run.capture.outputs[&OutPort::WanTx];
        let n = out.len() as f64;
        let share = |e: Ecn| out.iter().filter(|f| ecn_of(&f.data) == e).count() as f64 / n;
        let (p1, p2) = (
            probability(depth, T1, T2) as f64 / 65536.0,
            probability(depth, T2, TMAX) as f64 / 65536.0,
        );
        let tolerance = |p: f64| 4.0 * (p * (1.0 - p) / n).sqrt() + 1e-9;
        let (ect1, ce) = (share(Ecn::Ect1), share(Ecn::Ce));
        eprintln!("depth {depth}: ECT(1) {ect1:.4} (p {p1:.4}), CE {ce:.4} (p {p2:.4})");
        assert!((ce - p2).abs() <= tolerance(p2), "depth {depth}: CE share");
        // ECT(1): what the draw did not mark CE, with probability p1.
        let want_ect1 = p1 - p2.min(p1);
        assert!(
            (ect1 - want_ect1).abs() <= tolerance(want_ect1),
            "depth {depth}: ECT(1) share"
        );
    }
}

/// PE-03, clock-exact: the depth jumps from 0 to above Tmax (the average
/// follows at once: weight 1), so the CE probability goes from 0 to 1
/// PROB_DELAY clocks after the next microsecond tick. One ECT(0) frame is
/// sent at each of 14 clocks around that moment: RTL and model agree on
/// every one (moving `PROB_DELAY` by one either way fails), and both
/// outcomes occur.
#[test]
fn pe_03_probability_change_is_clock_exact() {
    let mut outcomes = std::collections::BTreeSet::new();
    for offset in 0..14u64 {
        let (mut gw, mut m) = setup(5);
        both(&mut gw, &mut m, offset::PORT0_AVG_WEIGHT_SHIFT, 0);
        gw.run(50);
        let start = gw.cycle();
        let reset = gw.reset_released_at();
        // The first tick whose average takes the step (driven in relative
        // clock 10: the tick's clock - 1 reads it).
        let first = reset + 321;
        let tick = first + (start + 11 - first).div_ceil(322) * 322;
        let enter = tick + PROB_DELAY - start - 8 + offset;
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, vec![(enter, roce(1, Ecn::Ect0, 64, false))])],
            depth_steps: vec![DepthStep {
                cycle: 10,
                bytes: 150_000_000,
            }],
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("offset {offset}: {e}"));
        let out = &run.capture.outputs[&OutPort::WanTx][0];
        let marker = run.start_cycle + run.marker_cycles[0];
        let ce = ecn_of(&out.data) == Ecn::Ce;
        assert_eq!(
            ce,
            marker >= tick + PROB_DELAY,
            "offset {offset}: marker at {marker}"
        );
        outcomes.insert(ce);
    }
    assert_eq!(outcomes.len(), 2, "both sides of the change were sent");
}
