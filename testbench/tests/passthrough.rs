//! With every feature off, both directions forward frames byte for byte and
//! the parsers and counters agree with the reference model (HW-01, HW-02).

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::parsed::FrameClass;
use cngw_sim::Gateway;
use cngw_testbench::traffic::random_mix;
use cngw_testbench::{check, run, StreamOptions};
use rand::rngs::StdRng;
use rand::SeedableRng;

fn both_directions(seed: u64, n: usize) -> Vec<(InPort, Vec<Frame>)> {
    let mut rng = StdRng::seed_from_u64(seed);
    vec![
        (InPort::DcRx, random_mix(&mut rng, n)),
        (InPort::WanRx, random_mix(&mut rng, n)),
    ]
}

#[test]
fn hw_02_random_traffic_matches_model_with_idle_and_backpressure() {
    for (seed, idle, backpressure) in [
        (1, 0.0, 0.0),
        (2, 0.3, 0.0),
        (3, 0.0, 0.3),
        (4, 0.25, 0.5),
        (5, 0.7, 0.7),
    ] {
        let mut gw = Gateway::new();
        let mut model = GatewayModel::new();
        let inputs = both_directions(seed, 300);
        let cap = check(
            &mut gw,
            &mut model,
            &inputs,
            StreamOptions::random(idle, backpressure, seed),
        )
        .unwrap_or_else(|m| panic!("seed {seed} idle {idle} backpressure {backpressure}: {m}"));
        // The mix really contains every class, so the comparison covers them.
        for class in [FrameClass::Roce, FrameClass::NonRoce, FrameClass::Malformed] {
            assert!(
                cap.parsed[&InPort::DcRx].iter().any(|h| h.class == class),
                "{class:?}"
            );
        }
    }
}

#[test]
fn hw_02_back_to_back_minimum_frames_at_one_beat_per_clock() {
    for len in [60usize, 64, 65, 128] {
        let mut gw = Gateway::new();
        let frames: Vec<Frame> = (0..200).map(|i| Frame::new(vec![i as u8; len])).collect();
        let cap = run(
            &mut gw,
            &[
                (InPort::DcRx, frames.clone()),
                (InPort::WanRx, frames.clone()),
            ],
            StreamOptions::line_rate(),
        );
        assert_eq!(cap.outputs[&OutPort::WanTx], frames);
        assert_eq!(cap.outputs[&OutPort::DcTx], frames);
        for stats in cap.input_stats.values().chain(cap.output_stats.values()) {
            assert_eq!(stats.beats_per_cycle(), 1.0, "{len}-byte frames: {stats:?}");
        }
    }
}

#[test]
fn hw_02_tuser_and_every_byte_survive() {
    let mut gw = Gateway::new();
    let frames: Vec<Frame> = (1..=200)
        .map(|n| Frame {
            data: (0..n).map(|i| (i * 7 + n) as u8).collect(),
            user: n % 3 == 0,
        })
        .collect();
    let cap = run(
        &mut gw,
        &[(InPort::WanRx, frames.clone())],
        StreamOptions::random(0.2, 0.2, 9),
    );
    assert_eq!(cap.outputs[&OutPort::DcTx], frames);
}

#[test]
fn hw_02_pass_through_latency_is_two_clocks() {
    let mut gw = Gateway::new();
    let frames = vec![Frame::new(vec![0x55; 64])];
    let cap = run(
        &mut gw,
        &[(InPort::DcRx, frames)],
        StreamOptions::line_rate(),
    );
    let latency =
        cap.output_start_cycles[&OutPort::WanTx][0] - cap.input_start_cycles[&InPort::DcRx][0];
    assert_eq!(latency, 2);
}

#[test]
fn hw_04_clear_counters_zeroes_every_counter() {
    let mut gw = Gateway::new();
    let mut model = GatewayModel::new();
    check(
        &mut gw,
        &mut model,
        &both_directions(11, 40),
        StreamOptions::line_rate(),
    )
    .unwrap();
    assert_eq!(gw.csr_read(cngw_regmap::offset::DC_RX_FRAMES), Ok(40));
    gw.csr_write(
        cngw_regmap::offset::CONTROL,
        cngw_regmap::control::CLEAR_COUNTERS,
    )
    .unwrap();
    for r in cngw_regmap::REGISTERS
        .iter()
        .filter(|r| r.volatile && r.name.ends_with("_FRAMES"))
    {
        assert_eq!(gw.csr_read(r.offset), Ok(0), "{}", r.name);
    }
}
