//! The header insert/remove block (`cngw_hdl::stream::HeaderSplice`) in
//! the Verilog that ships, against a software reference (output =
//! `header[..len]` then `input[drop..]`, lengths capped at 128): random
//! frames of 1..=300 bytes (the beat edges 1, 63, 64, 65, 127, 128, 129
//! among them), headers of 0..=128 bytes, drops of 0..=128 (frames no
//! longer than the drop included), random idle clocks on the input, the
//! command offered before, with or after the first beat, and random
//! backpressure on the output; and the throughput of the tunnel cases
//! (FCN-02 encapsulation: VXLAN over IPv6, SRv6; PE-02 decapsulation),
//! clock for clock.

use cngw_sim::{frame_to_beats, Unit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Latency of the block: a frame's first output beat is on `m` two
/// clocks after its first beat (and command) are taken.
const LATENCY: u64 = 2;

#[derive(Clone, Debug)]
struct Job {
    frame: Vec<u8>,
    /// `tuser` of the frame's last beat (the error flag).
    user: bool,
    /// All 128 bytes of `cmd_header`; bytes at and above the length are
    /// noise the block must not send.
    header: Vec<u8>,
    /// `cmd_header_len` and `cmd_drop` as driven (above 128: 128).
    len: u8,
    drop: u8,
}

impl Job {
    fn len(&self) -> usize {
        (self.len as usize).min(128)
    }

    fn drop(&self) -> usize {
        (self.drop as usize).min(128)
    }

    /// The reference: the header, then the frame after the drop.
    fn expected(&self) -> Vec<u8> {
        let mut out = self.header[..self.len()].to_vec();
        out.extend_from_slice(&self.frame[self.drop().min(self.frame.len())..]);
        out
    }

    fn in_beats(&self) -> u64 {
        self.frame.len().div_ceil(64) as u64
    }

    fn out_beats(&self) -> u64 {
        self.expected().len().div_ceil(64) as u64
    }

    /// `q` of the block's documentation: `len - drop = 64 q + shift`.
    fn q(&self) -> i64 {
        (self.len() as i64 - self.drop() as i64).div_euclid(64)
    }

    /// Whether the frame ends with a flush beat (one output beat more than
    /// its input beats moved by `q`). Frames longer than the drop only.
    fn flush(&self) -> u64 {
        assert!(self.frame.len() > self.drop());
        let moved = self.in_beats() as i64 + self.q();
        let extra = self.out_beats() as i64 - moved;
        assert!(extra == 0 || extra == 1, "{extra}");
        extra as u64
    }
}

fn random_job(rng: &mut StdRng, size: usize) -> Job {
    let len = match rng.gen_range(0..10) {
        0 => 0,
        1 => 128,
        2 => rng.gen_range(129..=255),
        _ => rng.gen_range(0..=128),
    };
    let drop = match rng.gen_range(0..10) {
        0 => 0,
        1 => 128,
        2 => rng.gen_range(129..=255),
        // Frames no longer than the drop.
        3 => size.min(128) as u8,
        4 => rng.gen_range(size.min(128)..=128) as u8,
        _ => rng.gen_range(0..=128),
    };
    Job {
        frame: (0..size).map(|_| rng.gen()).collect(),
        user: rng.gen_bool(0.2),
        header: (0..128).map(|_| rng.gen()).collect(),
        len,
        drop,
    }
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a run gives: the frames (bytes and last `tuser`), in order; the
/// `empty_dropped` pulses; the clocks of the first and last input
/// handshakes and of the last output handshake; the clocks an input beat
/// was offered and not taken (after the first was taken); per output beat
/// its frame's index in the output, its index in the frame and its clock.
struct Run {
    frames: Vec<(Vec<u8>, bool)>,
    empty: usize,
    first_in: u64,
    last_in: u64,
    last_out: u64,
    stalls: Vec<u64>,
    out_beats: Vec<(usize, u64, u64)>,
}

/// Drives `jobs` through a fresh unit: an input beat or a command is
/// offered on a clock unless an idle draw (`idle`) says otherwise, then
/// held until taken (AXI4-Stream); `m.tready` is low with probability
/// `backpressure`. Checks the pairing of commands and first beats, the
/// output's packing and stability, and that `s.tready` and `cmd_ready`
/// do not follow `m.tready` within a clock.
fn run(jobs: &[Job], idle: f64, backpressure: f64, seed: u64) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut unit = Unit::new("header_splice").unwrap();
    unit.set_u64("reset", 1).unwrap();
    unit.step();
    unit.set_u64("reset", 0).unwrap();
    let beats: Vec<Vec<cngw_sim::Beat>> = jobs
        .iter()
        .map(|j| {
            let mut b = frame_to_beats(&j.frame, j.user);
            for beat in b.iter_mut() {
                // Noise in the lanes outside tkeep, and tuser on beats
                // other than the last (ignored).
                for lane in 0..64 {
                    if beat.keep >> lane & 1 == 0 {
                        beat.data[lane] = rng.gen();
                    }
                }
                if !beat.last {
                    beat.user = rng.gen_bool(0.3);
                }
            }
            b
        })
        .collect();
    let total_beats: usize = beats.iter().map(|b| b.len()).sum();
    let expected_frames = jobs.iter().filter(|j| !j.expected().is_empty()).count();
    let (mut f, mut b, mut c) = (0usize, 0usize, 0usize);
    let (mut beat_offered, mut cmd_offered) = (false, false);
    let mut frames = Vec::new();
    let mut current = Vec::new();
    let mut empty = 0;
    let mut held: Option<(Vec<u32>, u64, u64, u64)> = None;
    let (mut first_in, mut last_in, mut last_out) = (None, 0, 0);
    let (mut stalls, mut out_beats) = (Vec::new(), Vec::new());
    let mut beat_index = 0;
    let mut clocks = 0u64;
    while frames.len() < expected_frames || f < jobs.len() || empty < jobs.len() - expected_frames {
        clocks += 1;
        assert!(
            clocks < 200 * (total_beats as u64 + 10),
            "stalled: {} frames out, frame {f} beat {b} in, command {c}",
            frames.len()
        );
        if f < jobs.len() && !beat_offered {
            beat_offered = !rng.gen_bool(idle);
        }
        if c < jobs.len() && !cmd_offered {
            cmd_offered = !rng.gen_bool(idle);
        }
        unit.drive_stream("s", beat_offered.then(|| &beats[f][b]))
            .unwrap();
        if cmd_offered {
            let job = &jobs[c];
            unit.set_bytes("cmd_header", &job.header).unwrap();
            unit.set_u64("cmd_header_len", job.len as u64).unwrap();
            unit.set_u64("cmd_drop", job.drop as u64).unwrap();
        }
        unit.set_u64("cmd_valid", cmd_offered as u64).unwrap();
        // No path from m.tready to s.tready or cmd_ready.
        unit.set_u64("m_tready", 0).unwrap();
        let (s_ready0, cmd_ready0) = (
            unit.get_u64("s_tready").unwrap(),
            unit.get_u64("cmd_ready").unwrap(),
        );
        let ready = !rng.gen_bool(backpressure);
        unit.set_u64("m_tready", ready as u64).unwrap();
        let s_ready = unit.get_u64("s_tready").unwrap();
        let cmd_ready = unit.get_u64("cmd_ready").unwrap();
        assert_eq!((s_ready, cmd_ready), (s_ready0, cmd_ready0));
        let beat_taken = beat_offered && s_ready == 1;
        let cmd_taken = cmd_offered && cmd_ready == 1;
        // The command transfers with the first beat, and only then.
        assert_eq!(
            cmd_taken,
            beat_taken && b == 0,
            "frame {f} beat {b}, command {c}"
        );
        if cmd_taken {
            assert_eq!(c, f);
            c += 1;
            cmd_offered = false;
        }
        if beat_taken {
            first_in.get_or_insert(unit.cycle());
            last_in = unit.cycle();
            b += 1;
            if b == beats[f].len() {
                b = 0;
                f += 1;
            }
            beat_offered = false;
        } else if beat_offered && first_in.is_some() {
            stalls.push(unit.cycle());
        }
        if unit.get_u64("empty_dropped").unwrap() == 1 {
            empty += 1;
        }
        if unit.get_u64("m_tvalid").unwrap() == 1 {
            let data = unit.get("m_tdata").unwrap();
            let keep = unit.get_u64("m_tkeep").unwrap();
            let last = unit.get_u64("m_tlast").unwrap();
            let user = unit.get_u64("m_tuser").unwrap();
            if let Some(h) = &held {
                assert_eq!(
                    h,
                    &(data.clone(), keep, last, user),
                    "m changed before tready"
                );
            }
            held = (!ready).then(|| (data.clone(), keep, last, user));
            if ready {
                let n = keep.trailing_ones() as usize;
                assert!(n > 0, "empty beat");
                assert_eq!(keep, if n == 64 { u64::MAX } else { (1 << n) - 1 });
                assert!(n == 64 || last == 1, "partial beat before the last");
                assert!(user == 0 || last == 1, "tuser before the last beat");
                current.extend_from_slice(&words_to_bytes(&data)[..n]);
                out_beats.push((frames.len(), beat_index, unit.cycle()));
                beat_index += 1;
                if last == 1 {
                    frames.push((std::mem::take(&mut current), user == 1));
                    beat_index = 0;
                }
                last_out = unit.cycle();
            }
        } else {
            assert!(held.is_none(), "m.tvalid fell before tready");
        }
        unit.step();
    }
    // Nothing more comes out.
    unit.set_u64("m_tready", 1).unwrap();
    for _ in 0..10 {
        assert_eq!(unit.get_u64("m_tvalid").unwrap(), 0);
        assert_eq!(unit.get_u64("empty_dropped").unwrap(), 0);
        unit.step();
    }
    Run {
        frames,
        empty,
        first_in: first_in.unwrap(),
        last_in,
        last_out,
        stalls,
        out_beats,
    }
}

fn assert_matches_reference(r: &Run, jobs: &[Job]) {
    let want: Vec<(Vec<u8>, bool)> = jobs
        .iter()
        .map(|j| (j.expected(), j.user))
        .filter(|(f, _)| !f.is_empty())
        .collect();
    assert_eq!(r.frames.len(), want.len());
    for (i, (got, want)) in r.frames.iter().zip(&want).enumerate() {
        assert_eq!(got, want, "output frame {i}");
    }
    assert_eq!(r.empty, jobs.len() - want.len(), "empty_dropped pulses");
}

fn edge_sizes() -> Vec<usize> {
    vec![1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193, 300]
}

/// Random frames, headers and drops with idle clocks and backpressure,
/// byte for byte (and `tuser`) as the reference.
#[test]
fn fcn_02_pe_02_header_splice_random_frames_equal_the_reference() {
    let mut rng = StdRng::seed_from_u64(502);
    let mut jobs = Vec::new();
    for &size in &edge_sizes() {
        for _ in 0..6 {
            jobs.push(random_job(&mut rng, size));
        }
    }
    for _ in 0..500 {
        let size = rng.gen_range(1..=300);
        jobs.push(random_job(&mut rng, size));
    }
    // Shuffle the edge cases among the others.
    for i in (1..jobs.len()).rev() {
        jobs.swap(i, rng.gen_range(0..=i));
    }
    assert!(jobs.iter().filter(|j| j.expected().is_empty()).count() >= 5);
    assert!(jobs.iter().filter(|j| j.frame.len() <= j.drop()).count() >= 40);
    for (idle, backpressure, seed) in [(0.3, 0.3, 1), (0.0, 0.0, 2), (0.1, 0.7, 3), (0.7, 0.1, 4)] {
        let r = run(&jobs, idle, backpressure, seed);
        assert_matches_reference(&r, &jobs);
    }
}

/// Every header length and drop at the beat edges, with every frame size
/// around them: the realigner's corner cases, exhaustively.
#[test]
fn fcn_02_pe_02_header_splice_every_edge_combination() {
    let mut rng = StdRng::seed_from_u64(503);
    let lengths = [0u8, 1, 14, 63, 64, 65, 70, 78, 127, 128, 200];
    let mut jobs = Vec::new();
    for &len in &lengths {
        for &drop in &lengths {
            for &size in &edge_sizes() {
                let mut j = random_job(&mut rng, size);
                j.len = len;
                j.drop = drop;
                jobs.push(j);
            }
        }
    }
    let r = run(&jobs, 0.2, 0.2, 5);
    assert_matches_reference(&r, &jobs);
}

/// The documented clock count of back-to-back frames without
/// backpressure: per frame one clock per header-only beat (`q` > 0), one
/// per input beat and one per flush beat, the flush sharing its clock with
/// the next frame's first beat when that beat sends nothing (`q` < 0);
/// plus the latency.
fn documented_clocks(jobs: &[Job]) -> u64 {
    let mut clocks = LATENCY;
    for (i, j) in jobs.iter().enumerate() {
        clocks += j.q().max(0) as u64 + j.in_beats() + j.flush();
        if i > 0 && jobs[i - 1].flush() == 1 && j.q() < 0 {
            clocks -= 1;
        }
    }
    clocks
}

fn tunnel_jobs(rng: &mut StdRng, sizes: &[usize], count: usize, len: u8, drop: u8) -> Vec<Job> {
    (0..count)
        .map(|i| {
            let mut j = random_job(rng, sizes[i % sizes.len()]);
            j.len = len;
            j.drop = drop;
            j
        })
        .collect()
}

/// Sizes of the throughput tests: single sizes, then all of them mixed.
fn throughput_sizes() -> Vec<Vec<usize>> {
    let mut s: Vec<Vec<usize>> = [64, 65, 128, 1024, 4096].iter().map(|&n| vec![n]).collect();
    s.push(vec![64, 4096, 65, 1024, 128, 65, 64]);
    s
}

/// The input is held only while a beat without an input beat of its own
/// is made (a header-only beat, `k < q`, or a flush beat, `k >= q + input
/// beats`, `k` the beat's index in its frame): each clock the input waits
/// is followed one clock later by such a beat on `m`, and every such beat
/// between the first and the last input beat taken was a wait. Returns
/// the number of such beats.
fn assert_held_only_for_added_beats(r: &Run, jobs: &[Job]) -> u64 {
    let sent: Vec<&Job> = jobs.iter().filter(|j| !j.expected().is_empty()).collect();
    let added: Vec<u64> = r
        .out_beats
        .iter()
        .filter(|(f, k, _)| {
            let (j, k) = (sent[*f], *k as i64);
            k < j.q() || k >= j.q() + j.in_beats() as i64
        })
        .map(|b| b.2)
        .collect();
    for t in &r.stalls {
        assert!(added.contains(&(t + 1)), "input held at clock {t}");
    }
    let window = added
        .iter()
        .filter(|&&c| c > r.first_in && c <= r.last_in + 1)
        .count();
    assert_eq!(r.stalls.len(), window);
    added.len() as u64
}

/// Runs back-to-back encapsulations without idle clocks or backpressure
/// and checks: clocks = output beats + latency, the input held only for
/// the beats the header adds, the documented count, the bytes. Returns
/// (frame sizes, clocks) per case.
fn check_encapsulation(len: u8, drop: u8, seed: u64) -> Vec<(Vec<usize>, u64, u64)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut results = Vec::new();
    for sizes in throughput_sizes() {
        let jobs = tunnel_jobs(&mut rng, &sizes, 16, len, drop);
        let r = run(&jobs, 0.0, 0.0, seed);
        assert_matches_reference(&r, &jobs);
        let out_beats: u64 = jobs.iter().map(Job::out_beats).sum();
        let in_beats: u64 = jobs.iter().map(Job::in_beats).sum();
        let clocks = r.last_out - r.first_in + 1;
        assert_eq!(clocks, out_beats + LATENCY, "sizes {sizes:?}");
        assert_eq!(clocks, documented_clocks(&jobs), "sizes {sizes:?}");
        let added = assert_held_only_for_added_beats(&r, &jobs);
        assert_eq!(added, out_beats - in_beats, "sizes {sizes:?}");
        results.push((sizes, out_beats, clocks));
    }
    results
}

/// FCN-02, VXLAN over IPv6: a 70-byte outer header (Ethernet 14, IPv6 40,
/// UDP 8, VXLAN 8) before every frame, back to back at line rate.
#[test]
fn fcn_02_vxlan_ipv6_encapsulation_runs_at_line_rate() {
    for (sizes, beats, clocks) in check_encapsulation(70, 0, 70) {
        println!("VXLAN/IPv6 70+0 {sizes:?} x16: {beats} output beats, {clocks} clocks");
    }
}

/// FCN-02, SRv6: the Ethernet header (14 bytes) replaced by Ethernet,
/// IPv6 and an SRH with one SID (14 + 40 + 8 + 16 = 78 bytes), and by
/// Ethernet and IPv6 alone (the reduced encapsulation, the SID in the
/// destination address: 54 bytes).
#[test]
fn fcn_02_srv6_encapsulation_runs_at_line_rate() {
    for (len, drop) in [(78, 14), (54, 14)] {
        for (sizes, beats, clocks) in check_encapsulation(len, drop, len as u64) {
            println!("SRv6 {len}-{drop} {sizes:?} x16: {beats} output beats, {clocks} clocks");
        }
    }
}

/// PE-02, decapsulation: the 70-byte VXLAN/IPv6 outer header removed
/// (inner frames of 64, 65, 128, 1024, 4096 bytes), and the SRv6 outer
/// headers (78 bytes) replaced by a 14-byte Ethernet header: the input is
/// never held, clocks = input beats + latency (+1 when the last frame
/// ends with a flush beat), as documented.
#[test]
fn pe_02_decapsulation_never_holds_the_input() {
    let mut rng = StdRng::seed_from_u64(702);
    for (len, drop) in [(0u8, 70u8), (14, 78)] {
        for inner in throughput_sizes() {
            let sizes: Vec<usize> = inner
                .iter()
                .map(|n| n + drop as usize - len as usize)
                .collect();
            let jobs = tunnel_jobs(&mut rng, &sizes, 16, len, drop);
            let r = run(&jobs, 0.0, 0.0, 703);
            assert_matches_reference(&r, &jobs);
            let in_beats: u64 = jobs.iter().map(Job::in_beats).sum();
            let out_beats: u64 = jobs.iter().map(Job::out_beats).sum();
            assert!(r.stalls.is_empty(), "{len}-{drop} {sizes:?}");
            assert_eq!(r.last_in - r.first_in + 1, in_beats);
            let clocks = r.last_out - r.first_in + 1;
            let flush = jobs.last().unwrap().flush();
            assert_eq!(clocks, in_beats + LATENCY + flush, "{len}-{drop} {sizes:?}");
            assert_eq!(clocks, documented_clocks(&jobs), "{len}-{drop} {sizes:?}");
            println!(
                "decap {len}-{drop} {sizes:?} x16: {in_beats} input beats, \
                 {out_beats} output beats, {clocks} clocks"
            );
        }
    }
}

/// Encapsulated and decapsulated frames mixed back to back (random
/// tunnel cases, sizes 65..=1500 above the drop), clock for clock as
/// documented.
#[test]
fn fcn_02_pe_02_mixed_tunnel_frames_take_the_documented_clocks() {
    let mut rng = StdRng::seed_from_u64(704);
    let cases = [
        (70u8, 0u8),
        (0, 70),
        (78, 14),
        (14, 78),
        (54, 14),
        (14, 54),
        (64, 64),
    ];
    let jobs: Vec<Job> = (0..300)
        .map(|_| {
            let (len, drop) = cases[rng.gen_range(0..cases.len())];
            let size = rng.gen_range(65..=1500) + drop as usize;
            let mut j = random_job(&mut rng, size);
            j.len = len;
            j.drop = drop;
            j
        })
        .collect();
    let r = run(&jobs, 0.0, 0.0, 705);
    assert_matches_reference(&r, &jobs);
    assert_eq!(r.last_out - r.first_in + 1, documented_clocks(&jobs));
}

/// A frame no longer than the drop and no header: nothing leaves, one
/// `empty_dropped` pulse; with a header: the header alone.
#[test]
fn pe_02_runt_frames_give_the_header_or_an_empty_pulse() {
    let mut rng = StdRng::seed_from_u64(706);
    let mut jobs = Vec::new();
    for (size, len, drop) in [
        (70, 0, 70),
        (1, 0, 1),
        (64, 0, 128),
        (128, 0, 128),
        (10, 100, 128),
        (100, 100, 128),
        (64, 128, 64),
        (20, 65, 30),
        (60, 10, 128),
    ] {
        let mut j = random_job(&mut rng, size);
        j.len = len;
        j.drop = drop;
        jobs.push(j);
    }
    let r = run(&jobs, 0.0, 0.0, 707);
    assert_matches_reference(&r, &jobs);
    assert_eq!(r.empty, 4);
}
