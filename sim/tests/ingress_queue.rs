//! The ingress PE's store-and-forward queue (`cngw_hdl::pe::IngressQueue`,
//! FCN-01/FCN-02) in the Verilog that ships: random frames of 1..=700
//! bytes, a few longer than the 160 beats the queue holds whole, each
//! label pushed a random number of clocks after its frame's last beat
//! went in, with random idle clocks on the input and random backpressure
//! on the output. Every frame leaves once, in order, byte for byte with
//! its `tuser` (a long one cut at 10,240 bytes with `tuser` set, one `cut`
//! pulse each), its first beat never before its label and always with it;
//! back to back with prompt labels the output carries one beat per clock.

use cngw_sim::{frame_to_beats, Beat, FrameCollector, Unit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

const CUT_BYTES: usize = 160 * 64;

struct Frame {
    data: Vec<u8>,
    user: bool,
    label: u32,
}

/// What left: frames (bytes, tuser, label at the first beat), the `cut`
/// pulses, the clocks taken.
struct Run {
    out: Vec<(Vec<u8>, bool, u32)>,
    cuts: usize,
    clocks: u64,
}

/// `label_delay`: clocks between a frame's last beat and its label (drawn
/// from the range); `idle`, `stall`: probabilities of an idle input clock
/// and of a clock without `m_tready`.
fn run(
    frames: &[Frame],
    label_delay: std::ops::RangeInclusive<u64>,
    idle: f64,
    stall: f64,
    seed: u64,
) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut u = Unit::new("ingress_queue").unwrap();
    u.set_u64("reset", 1).unwrap();
    u.step();
    u.set_u64("reset", 0).unwrap();
    let beats: Vec<Vec<Beat>> = frames
        .iter()
        .map(|f| frame_to_beats(&f.data, f.user))
        .collect();
    let (mut frame, mut beat) = (0usize, 0usize);
    let mut out = FrameCollector::default();
    let mut labels = Vec::new();
    let mut cuts = 0;
    let mut clocks = 0u64;
    // Labels due: (clock to push at or after, label); pushed in order.
    let mut due: VecDeque<(u64, u32)> = VecDeque::new();
    let mut pushed = 0usize;
    let mut last_push_clock = 0u64;
    while out.frames.len() < frames.len() {
        clocks += 1;
        assert!(clocks < 200_000, "wedged");
        let valid = frame < frames.len() && !rng.gen_bool(idle);
        let ready = !rng.gen_bool(stall);
        if !valid {
            // Garbage on an idle input.
            u.set_bytes("s_tdata", &[0xEEu8; 64]).unwrap();
            u.set_u64("s_tlast", rng.gen::<bool>() as u64).unwrap();
        }
        u.drive_stream("s", valid.then(|| &beats[frame][beat]))
            .unwrap();
        u.set_u64("m_tready", ready as u64).unwrap();
        let push = due.front().is_some_and(|&(t, _)| t <= clocks);
        if push {
            let (_, label) = due.pop_front().unwrap();
            u.set_u64("lbl_label", label as u64).unwrap();
            pushed += 1;
            last_push_clock = clocks;
        } else {
            u.set_u64("lbl_label", rng.gen_range(0..1 << 20)).unwrap();
        }
        u.set_u64("lbl_valid", push as u64).unwrap();
        let taken = valid && u.get_u64("s_tready").unwrap() == 1;
        if let (Some(b), true) = (u.stream_output("m").unwrap(), ready) {
            if !out.in_frame() {
                // A first beat: its label was pushed at least two clocks ago.
                let n = out.frames.len();
                assert!(pushed > n, "frame {n} left before its label");
                assert!(
                    pushed > n + 1 || last_push_clock + 2 <= clocks,
                    "frame {n} left with a label not yet readable"
                );
                labels.push(u.get_u64("m_label").unwrap() as u32);
            }
            assert_eq!(
                b.keep.count_ones(),
                64 - b.keep.leading_zeros(),
                "packed tkeep"
            );
            out.take(&b);
        }
        cuts += u.get_u64("cut").unwrap() as usize;
        u.step();
        if taken {
            beat += 1;
            if beat == beats[frame].len() {
                let delay = rng.gen_range(label_delay.clone());
                let at = (clocks + delay).max(due.back().map_or(0, |d| d.0 + 1));
                due.push_back((at, frames[frame].label));
                frame += 1;
                beat = 0;
            }
        }
    }
    let out = out
        .frames
        .into_iter()
        .zip(labels)
        .map(|((data, user), label)| (data, user, label))
        .collect();
    Run { out, cuts, clocks }
}

fn random_frames(rng: &mut StdRng, n: usize, long: f64) -> Vec<Frame> {
    (0..n)
        .map(|_| {
            let len = if rng.gen_bool(long) {
                rng.gen_range(CUT_BYTES - 64..CUT_BYTES + 3000)
            } else {
                match rng.gen_range(0..4) {
                    0 => [1, 63, 64, 65, 128, 129][rng.gen_range(0..6)],
                    _ => rng.gen_range(1..=700),
                }
            };
            Frame {
                data: (0..len).map(|_| rng.gen()).collect(),
                user: rng.gen_bool(0.1),
                label: rng.gen_range(0..1 << 20),
            }
        })
        .collect()
}

fn expected(f: &Frame) -> (Vec<u8>, bool, u32) {
    if f.data.len() > CUT_BYTES {
        (f.data[..CUT_BYTES].to_vec(), true, f.label)
    } else {
        (f.data.clone(), f.user, f.label)
    }
}

#[test]
fn fcn_02_ingress_queue_releases_each_frame_with_its_label() {
    for seed in 0..4u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let frames = random_frames(&mut rng, 250, 0.02);
        let r = run(&frames, 1..=12, 0.1 * seed as f64, 0.2 * seed as f64, seed);
        let want: Vec<_> = frames.iter().map(expected).collect();
        assert_eq!(r.out.len(), want.len(), "seed {seed}");
        for (i, (got, want)) in r.out.iter().zip(&want).enumerate() {
            assert!(got == want, "seed {seed}: frame {i} differs");
        }
        let long = frames.iter().filter(|f| f.data.len() > CUT_BYTES).count();
        assert_eq!(r.cuts, long, "seed {seed}: one cut pulse per long frame");
    }
}

/// A queue full of one-beat frames whose labels come late: the input
/// waits (256 beats stored), nothing is lost, and the labels release them.
#[test]
fn fcn_02_ingress_queue_waits_when_full_and_loses_nothing() {
    let mut rng = StdRng::seed_from_u64(7);
    let frames: Vec<Frame> = (0..600)
        .map(|i| Frame {
            data: (0..rng.gen_range(1..=64)).map(|_| rng.gen()).collect(),
            user: false,
            label: i,
        })
        .collect();
    let r = run(&frames, 300..=400, 0.0, 0.0, 7);
    let want: Vec<_> = frames.iter().map(expected).collect();
    assert!(r.out == want);
}

/// Back to back, labels one clock after each frame, no backpressure: the
/// output keeps up with the input, one beat per clock.
#[test]
fn fcn_02_ingress_queue_carries_one_beat_per_clock() {
    let mut rng = StdRng::seed_from_u64(9);
    let frames = random_frames(&mut rng, 300, 0.0);
    let beats: u64 = frames
        .iter()
        .map(|f| f.data.len().div_ceil(64) as u64)
        .sum();
    let r = run(&frames, 1..=1, 0.0, 0.0, 9);
    assert!(r.out == frames.iter().map(expected).collect::<Vec<_>>());
    // Store and forward: a frame leaves from three clocks after its last
    // beat entered (label one clock later, readable two after that), so
    // the output lags the input by at most the longest frame and 3 clocks,
    // whatever the number of frames: one beat per clock in the long run.
    let longest = frames
        .iter()
        .map(|f| f.data.len().div_ceil(64) as u64)
        .max()
        .unwrap();
    assert!(
        r.clocks <= beats + longest + 4,
        "{} clocks for {beats} beats",
        r.clocks
    );
}
