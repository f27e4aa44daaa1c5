//! `FrameFilter` in the Verilog that ships (FCN-05: frames addressed to the
//! gateway leave the wan_rx path): random frames of 1..=300 bytes, each
//! dropped or passed by the `drop` input at its first beat (garbage on
//! `drop` at every other beat), with random idle clocks on the input and
//! random backpressure on the output. The passed frames come out byte for
//! byte with their `tuser`, in order; each dropped frame gives one
//! `dropped` pulse and is taken at one beat per clock even while the
//! output is stalled.

use cngw_sim::{frame_to_beats, Beat, FrameCollector, Unit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct Frame {
    data: Vec<u8>,
    user: bool,
    drop: bool,
}

/// Runs `frames` through the filter; returns the frames that came out,
/// the `dropped` pulses and the clocks taken.
fn run(frames: &[Frame], idle: f64, stall: f64, seed: u64) -> (Vec<(Vec<u8>, bool)>, usize, u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut u = Unit::new("frame_filter").unwrap();
    u.set_u64("reset", 1).unwrap();
    u.step();
    u.set_u64("reset", 0).unwrap();
    let beats: Vec<Vec<Beat>> = frames
        .iter()
        .map(|f| frame_to_beats(&f.data, f.user))
        .collect();
    let (mut frame, mut beat) = (0usize, 0usize);
    let mut out = FrameCollector::default();
    let mut pulses = 0;
    let mut clocks = 0u64;
    while frame < frames.len() || out.in_frame() {
        clocks += 1;
        assert!(clocks < 100_000, "wedged");
        let valid = frame < frames.len() && !rng.gen_bool(idle);
        let ready = !rng.gen_bool(stall);
        let drop = match valid {
            true if beat == 0 => frames[frame].drop,
            _ => rng.gen(),
        };
        u.set_u64("drop", drop as u64).unwrap();
        u.drive_stream("s", valid.then(|| &beats[frame][beat]))
            .unwrap();
        u.set_u64("m_tready", ready as u64).unwrap();
        let taken = valid && u.get_u64("s_tready").unwrap() == 1;
        if valid && frames[frame].drop {
            assert!(taken, "a dropped frame never waits");
        }
        if let (Some(b), true) = (u.stream_output("m").unwrap(), ready) {
            out.take(&b);
        }
        pulses += u.get_u64("dropped").unwrap() as usize;
        u.step();
        if taken {
            beat += 1;
            if beat == beats[frame].len() {
                frame += 1;
                beat = 0;
            }
        }
    }
    (out.frames, pulses, clocks)
}

fn random_frames(rng: &mut StdRng, n: usize) -> Vec<Frame> {
    (0..n)
        .map(|_| {
            let len = match rng.gen_range(0..4) {
                0 => [1, 63, 64, 65, 128, 129][rng.gen_range(0..6)],
                _ => rng.gen_range(1..=300),
            };
            Frame {
                data: (0..len).map(|_| rng.gen()).collect(),
                user: rng.gen_bool(0.2),
                drop: rng.gen_bool(0.4),
            }
        })
        .collect()
}

#[test]
fn fcn_05_frame_filter_drops_exactly_the_chosen_frames() {
    for seed in 0..4u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let frames = random_frames(&mut rng, 300);
        let (out, pulses, _) = run(&frames, 0.1 * seed as f64, 0.15 * seed as f64, seed);
        let kept: Vec<(Vec<u8>, bool)> = frames
            .iter()
            .filter(|f| !f.drop)
            .map(|f| (f.data.clone(), f.user))
            .collect();
        assert_eq!(out.len(), kept.len(), "seed {seed}");
        assert!(out == kept, "seed {seed}: a passed frame differs");
        assert_eq!(pulses, frames.iter().filter(|f| f.drop).count());
    }
}

/// Back to back with no idle clock and no backpressure: one beat per clock,
/// dropped frames included (no bubble).
#[test]
fn fcn_05_frame_filter_takes_one_beat_per_clock() {
    let mut rng = StdRng::seed_from_u64(9);
    let frames = random_frames(&mut rng, 200);
    let beats: u64 = frames
        .iter()
        .map(|f| f.data.len().div_ceil(64) as u64)
        .sum();
    let (_, _, clocks) = run(&frames, 0.0, 0.0, 9);
    assert_eq!(clocks, beats);
}
