//! The ingress PE's per-flow shaper (`cngw_hdl::pe::FlowShaper`, PE-05) in
//! the Verilog that ships, against `cngw_model::flow_shaper`: random frames
//! of shaped and unshaped labels with random idle input clocks and random
//! output backpressure, random light notifications (more flows than slots),
//! a microsecond tick every [`TICK_CLOCKS`] clocks (every clock in the
//! token-cap test, which reaches the cap's edges). Every frame leaves
//! once, byte for byte with its `tuser`, in order per label, with its label
//! on `m_label` and the model's path on `m_alt` (held from its first offer
//! to its last beat); every slot's state (label, rate, tokens, path,
//! frames waiting) equals the model's after every clock; every shaped
//! flow keeps the byte bound of `window_bound`; the counters match. The
//! fast path is measured clock by clock (latency one clock, one beat per
//! clock), the merge takes whole frames in turn, a slow frame leaves only
//! once it is in the lane whole, the disabled shaper passes everything in
//! order, a full slow lane holds the input back without dropping.
//!
//! Each of these RTL faults, tried once, fails at least one test: release
//! without tokens, the merge's choice not held through a frame, the path
//! without hysteresis, a slot freed with frames waiting, a cut that keeps
//! the quiet time.

use cngw_model::flow_shaper::{
    window_bound, ClockEvents, Counters, FlowShaper as Model, ShaperConfig, SlowBeat, SLOTS,
};
use cngw_sim::Unit;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

/// Clocks per microsecond in these tests (the gateway has 322): shaping
/// shows within a few thousand clocks.
const TICK_CLOCKS: u64 = 16;
/// A fast beat taken at clock t is offered on `m` at t+1.
const FAST_LATENCY: u64 = 1;
/// A slow frame's first beat leaves at the earliest this many clocks after
/// its last beat is taken (a one-beat frame: three, the RAM's write-to-read).
const SLOW_AFTER_LAST: u64 = 2;
/// The slow lane's depth in beats.
const LANE_BEATS: usize = 256;

#[derive(Clone, Debug)]
struct Frame {
    data: Vec<u8>,
    user: bool,
    label: u32,
}

/// A frame in the block, as the model classified it.
#[derive(Clone, Debug)]
struct InFlight {
    id: usize,
    data: Vec<u8>,
    user: bool,
    slot: Option<usize>,
}

/// A frame that left.
#[derive(Clone, Debug)]
struct Left {
    id: usize,
    label: u32,
    alt: bool,
    slot: Option<usize>,
    first_in: u64,
    last_in: u64,
    first_out: u64,
    last_out: u64,
}

#[derive(Clone, Debug)]
struct Options {
    idle: f64,
    stall: f64,
    /// Probability of a notification per clock, and their labels.
    note_p: f64,
    note_labels: Vec<u32>,
    /// Notifications only before this clock.
    notes_until: u64,
    /// Compare every slot with the model after every clock.
    probe: bool,
    /// A microsecond tick every this many clocks.
    tick_clocks: u64,
}

/// A slot's account at a slow frame's first or last beat.
#[derive(Clone, Copy, Debug)]
struct Mark {
    clock: u64,
    /// Bytes the slot sent so far (before a first beat, after a last).
    sent: u64,
    /// Tokens its ticks added so far (at the rate of each tick).
    refilled: u64,
    /// How many times the slot was taken so far.
    occupancy: u64,
    first: bool,
}

struct Run {
    left: Vec<Left>,
    clocks: u64,
    /// Clock of each beat taken and of each beat sent, in order.
    beats_in: Vec<u64>,
    beats_out: Vec<u64>,
    /// Clocks with `s.tvalid` high and `s.tready` low.
    input_held: u64,
    /// Clocks in which some slot had frames in the block and a deficit.
    deficit_clocks: u64,
    /// The most beats of shaped frames in the block at once (lane and r).
    max_slow_beats: usize,
    model: Model,
    rtl: Counters,
    /// Per slot: at the first and after the last beat of each slow frame.
    marks: Vec<Vec<Mark>>,
    longest: usize,
    /// Clocks in which a tick and a slow beat met in one slot whose tokens
    /// plus its rate minus the beat's bytes were `burst - 1`, `burst` and
    /// `burst + 1`: the edges of the cap.
    cap_edges: [u64; 3],
}

fn set_config(u: &mut Unit, cfg: &ShaperConfig) {
    u.set_u64("enable", cfg.enable as u64).unwrap();
    u.set_u64("max_rate", cfg.max_rate as u64).unwrap();
    u.set_u64("min_rate", cfg.min_rate as u64).unwrap();
    u.set_u64("cut_shift", cfg.cut_shift as u64).unwrap();
    u.set_u64("recover_us", cfg.recover_us as u64).unwrap();
    u.set_u64("recover_step", cfg.recover_step as u64).unwrap();
    u.set_u64("burst", cfg.burst as u64).unwrap();
    u.set_u64("alt_enable", cfg.alt_enable as u64).unwrap();
    u.set_u64("alt_below", cfg.alt_below as u64).unwrap();
    u.set_u64("alt_above", cfg.alt_above as u64).unwrap();
}

fn counters(u: &mut Unit) -> Counters {
    Counters {
        shaped_frames: u.get_u64("shaped_frames").unwrap(),
        notes_taken: u.get_u64("notes_taken").unwrap(),
        notes_dropped: u.get_u64("notes_dropped").unwrap(),
        reroutes: u.get_u64("reroutes").unwrap(),
        returns: u.get_u64("returns").unwrap(),
    }
}

/// Every slot's registers against the model's.
fn check_slots(u: &mut Unit, model: &Model, clock: u64) {
    for (i, s) in model.slots.iter().enumerate().take(SLOTS) {
        u.set_u64("probe_slot", i as u64).unwrap();
        let used = u.get_u64("probe_used").unwrap() == 1;
        let waiting = u.get_u64("probe_waiting").unwrap() as u32;
        let alt = u.get_u64("probe_alt").unwrap() == 1;
        assert_eq!(
            (used, waiting, alt),
            (s.used, s.waiting, s.alt),
            "slot {i} used/waiting/alt after clock {clock}"
        );
        if s.used {
            let label = u.get_u64("probe_label").unwrap() as u32;
            let rate = u.get_u64("probe_rate").unwrap() as u32;
            let raw = u.get_u64("probe_tokens").unwrap() as i64;
            let tokens = if raw >> 25 & 1 == 1 {
                raw - (1 << 26)
            } else {
                raw
            };
            assert_eq!(
                (label, rate, tokens),
                (s.label, s.rate, s.tokens),
                "slot {i} label/rate/tokens after clock {clock}"
            );
        }
    }
}

fn run(frames: &[Frame], cfg: &ShaperConfig, opt: &Options, seed: u64) -> Run {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut u = Unit::new("flow_shaper").unwrap();
    set_config(&mut u, cfg);
    u.set_u64("reset", 1).unwrap();
    u.step();
    u.set_u64("reset", 0).unwrap();
    let mut model = Model::new();
    let (mut f, mut beat) = (0usize, 0usize);
    let mut pending: HashMap<u32, VecDeque<InFlight>> = HashMap::new();
    let mut first_in_clock = vec![0u64; frames.len()];
    let mut last_in_clock = vec![0u64; frames.len()];
    // The frame on m: (its entry, bytes so far, label, alt, first clock).
    let mut cur: Option<(InFlight, Vec<u8>, u32, bool, u64)> = None;
    // A first beat offered and not yet taken: (label, alt).
    let mut offered: Option<(u32, bool)> = None;
    let mut left = Vec::new();
    let (mut beats_in, mut beats_out) = (Vec::new(), Vec::new());
    let mut input_held = 0;
    let mut deficit_clocks = 0;
    let (mut slow_beats, mut max_slow_beats, mut in_slow) = (0usize, 0usize, false);
    let mut sent = [0u64; SLOTS];
    let mut refilled = [0u64; SLOTS];
    let mut occupancy = [0u64; SLOTS];
    let mut marks = vec![Vec::new(); SLOTS];
    let mut cap_edges = [0u64; 3];
    let mut clock = 0u64;
    while left.len() < frames.len() {
        clock += 1;
        assert!(
            clock < 400_000,
            "wedged: {} of {} left",
            left.len(),
            frames.len()
        );
        let valid = f < frames.len() && !rng.gen_bool(opt.idle);
        let ready = !rng.gen_bool(opt.stall);
        if valid {
            let fr = &frames[f];
            let chunk = &fr.data[beat * 64..fr.data.len().min(beat * 64 + 64)];
            let last = beat * 64 + 64 >= fr.data.len();
            u.set_bytes("s_tdata", &[chunk, &[0u8; 64][..64 - chunk.len()]].concat())
                .unwrap();
            u.set_u64("s_tkeep", u64::MAX >> (64 - chunk.len()))
                .unwrap();
            u.set_u64("s_tlast", last as u64).unwrap();
            u.set_u64("s_tuser", (last && fr.user) as u64).unwrap();
            // The label counts with the first beat only.
            let label = if beat == 0 {
                fr.label
            } else {
                rng.gen_range(0..1 << 20)
            };
            u.set_u64("s_label", label as u64).unwrap();
        } else {
            u.set_bytes("s_tdata", &[0xEEu8; 64]).unwrap();
            u.set_u64("s_tlast", rng.gen::<bool>() as u64).unwrap();
            u.set_u64("s_label", rng.gen_range(0..1 << 20)).unwrap();
        }
        u.set_u64("s_tvalid", valid as u64).unwrap();
        u.set_u64("m_tready", ready as u64).unwrap();
        let note = (clock < opt.notes_until && rng.gen_bool(opt.note_p))
            .then(|| opt.note_labels[rng.gen_range(0..opt.note_labels.len())]);
        u.set_u64("note_valid", note.is_some() as u64).unwrap();
        u.set_u64(
            "note_label",
            note.unwrap_or(rng.gen_range(0..1 << 20)) as u64,
        )
        .unwrap();
        let tick = clock.is_multiple_of(opt.tick_clocks);
        u.set_u64("us_tick", tick as u64).unwrap();

        let mut ev = ClockEvents {
            note,
            tick,
            ..ClockEvents::default()
        };
        let taken = valid && u.get_u64("s_tready").unwrap() == 1;
        if valid && !taken {
            input_held += 1;
        }
        if taken {
            beats_in.push(clock);
            if beat == 0 {
                ev.first_in = Some(frames[f].label);
            }
        }
        if u.get_u64("m_tvalid").unwrap() == 1 {
            let label = u.get_u64("m_label").unwrap() as u32;
            let alt = u.get_u64("m_alt").unwrap() == 1;
            match (&cur, offered) {
                (Some((_, _, l, a, _)), _) => {
                    assert_eq!((label, alt), (*l, *a), "label/path held (clock {clock})")
                }
                (None, Some(o)) => assert_eq!((label, alt), o, "offer held (clock {clock})"),
                (None, None) => {
                    // A first offer: the model's path; a slow frame only
                    // with tokens >= 0.
                    let head = pending
                        .get(&label)
                        .and_then(|q| q.front())
                        .unwrap_or_else(|| panic!("no frame of label {label} (clock {clock})"));
                    let want = head.slot.is_some_and(|s| model.path(s));
                    assert_eq!(alt, want, "path of frame {} (clock {clock})", head.id);
                    if let Some(s) = head.slot {
                        assert!(
                            model.may_release(s),
                            "frame {} released in deficit (clock {clock})",
                            head.id
                        );
                    }
                    offered = Some((label, alt));
                }
            }
            if ready {
                beats_out.push(clock);
                if cur.is_none() {
                    let entry = pending.get_mut(&label).unwrap().pop_front().unwrap();
                    if let Some(s) = entry.slot {
                        marks[s].push(Mark {
                            clock,
                            sent: sent[s],
                            refilled: refilled[s],
                            occupancy: occupancy[s],
                            first: true,
                        });
                    }
                    cur = Some((entry, Vec::new(), label, alt, clock));
                    offered = None;
                }
                let keep = u.get_u64("m_tkeep").unwrap();
                assert_eq!(keep.count_ones(), 64 - keep.leading_zeros(), "packed tkeep");
                let bytes = keep.count_ones();
                let data: Vec<u8> = u
                    .get("m_tdata")
                    .unwrap()
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect();
                let last = u.get_u64("m_tlast").unwrap() == 1;
                let user = u.get_u64("m_tuser").unwrap() == 1;
                let (entry, got, l, a, first) = cur.as_mut().unwrap();
                got.extend_from_slice(&data[..bytes as usize]);
                if let Some(s) = entry.slot {
                    ev.slow_beat = Some(SlowBeat {
                        slot: s,
                        bytes,
                        last,
                    });
                    sent[s] += bytes as u64;
                }
                if last {
                    assert_eq!(got, &entry.data, "frame {} bytes", entry.id);
                    assert_eq!(user, entry.user, "frame {} tuser", entry.id);
                    if let Some(s) = entry.slot {
                        marks[s].push(Mark {
                            clock,
                            sent: sent[s],
                            refilled: refilled[s],
                            occupancy: occupancy[s],
                            first: false,
                        });
                    }
                    left.push(Left {
                        id: entry.id,
                        label: *l,
                        alt: *a,
                        slot: entry.slot,
                        first_in: first_in_clock[entry.id],
                        last_in: last_in_clock[entry.id],
                        first_out: *first,
                        last_out: clock,
                    });
                    cur = None;
                }
            }
        } else {
            assert!(
                offered.is_none(),
                "tvalid dropped before the transfer (clock {clock})"
            );
        }
        for (r, s) in refilled.iter_mut().zip(&model.slots) {
            if tick && s.used {
                *r += s.rate as u64;
            }
        }
        if model
            .slots
            .iter()
            .any(|s| s.used && s.waiting > 0 && s.tokens < 0)
        {
            deficit_clocks += 1;
        }
        if let (true, Some(b)) = (tick, ev.slow_beat) {
            let s = &model.slots[b.slot];
            let over = s.tokens + s.rate as i64 - b.bytes as i64 - cfg.burst as i64;
            if (-1..=1).contains(&over) {
                cap_edges[(over + 1) as usize] += 1;
            }
        }
        let was_used: Vec<bool> = model.slots.iter().map(|s| s.used).collect();
        let cls = model.clock(cfg, &ev);
        for ((o, s), was) in occupancy.iter_mut().zip(&model.slots).zip(was_used) {
            if !was && s.used {
                *o += 1;
            }
        }
        if taken {
            if beat == 0 {
                in_slow = cls.is_some();
            }
            slow_beats += in_slow as usize;
        }
        slow_beats -= ev.slow_beat.is_some() as usize;
        max_slow_beats = max_slow_beats.max(slow_beats);
        if taken && beat == 0 {
            first_in_clock[f] = clock;
            pending
                .entry(frames[f].label)
                .or_default()
                .push_back(InFlight {
                    id: f,
                    data: frames[f].data.clone(),
                    user: frames[f].user,
                    slot: cls,
                });
        }
        u.step();
        if taken {
            beat += 1;
            if beat * 64 >= frames[f].data.len() {
                last_in_clock[f] = clock;
                f += 1;
                beat = 0;
            }
        }
        if opt.probe {
            check_slots(&mut u, &model, clock);
        }
    }
    let rtl = counters(&mut u);
    assert!(pending.values().all(|q| q.is_empty()));
    u.set_u64("s_tvalid", 0).unwrap();
    u.set_u64("note_valid", 0).unwrap();
    u.set_u64("us_tick", 0).unwrap();
    for _ in 0..4 {
        assert_eq!(u.get_u64("m_tvalid").unwrap(), 0, "nothing extra leaves");
        u.step();
    }
    // clear_counters zeroes every counter.
    u.set_u64("clear_counters", 1).unwrap();
    u.step();
    u.set_u64("clear_counters", 0).unwrap();
    assert_eq!(counters(&mut u), Counters::default(), "cleared");
    Run {
        left,
        clocks: clock,
        beats_in,
        beats_out,
        input_held,
        deficit_clocks,
        max_slow_beats,
        model,
        rtl,
        marks,
        cap_edges,
        longest: frames.iter().map(|f| f.data.len()).max().unwrap_or(0),
    }
}

fn random_frames(rng: &mut StdRng, n: usize, labels: &[u32]) -> Vec<Frame> {
    (0..n)
        .map(|_| {
            let len = match rng.gen_range(0..10) {
                0 => [1, 63, 64, 65, 128, 129][rng.gen_range(0..6)],
                1 => rng.gen_range(1500..=4000),
                _ => rng.gen_range(60..=1500),
            };
            Frame {
                data: (0..len).map(|_| rng.gen()).collect(),
                user: rng.gen_bool(0.05),
                label: labels[rng.gen_range(0..labels.len())],
            }
        })
        .collect()
}

/// Per label, the frames left in the order they came.
fn assert_order_per_label(frames: &[Frame], left: &[Left]) {
    assert_eq!(left.len(), frames.len(), "every frame leaves once");
    let mut seen = vec![false; frames.len()];
    let mut last_id: HashMap<u32, usize> = HashMap::new();
    for l in left {
        assert!(!seen[l.id], "frame {} twice", l.id);
        seen[l.id] = true;
        assert_eq!(l.label, frames[l.id].label, "m_label of frame {}", l.id);
        if let Some(&prev) = last_id.get(&l.label) {
            assert!(
                prev < l.id,
                "label {} reordered: {} after {}",
                l.label,
                l.id,
                prev
            );
        }
        last_id.insert(l.label, l.id);
    }
}

/// Every window from a slow frame's first beat to a later frame's last
/// beat, within one occupancy of the slot, keeps the bound.
fn assert_byte_bound(run: &Run, cfg: &ShaperConfig) -> usize {
    let mut windows = 0;
    for marks in &run.marks {
        for (i, a) in marks.iter().enumerate().filter(|(_, m)| m.first) {
            for b in marks[i..]
                .iter()
                .filter(|m| !m.first && m.occupancy == a.occupancy)
            {
                let bytes = b.sent - a.sent;
                let bound = window_bound(b.refilled - a.refilled, cfg.burst, run.longest);
                assert!(
                    bytes <= bound,
                    "{bytes} bytes in clocks {}..={} > bound {bound}",
                    a.clock,
                    b.clock
                );
                windows += 1;
            }
        }
    }
    windows
}

fn shaping_config() -> ShaperConfig {
    // A tick is 16 clocks of 64 bytes: 1024 bytes of line rate.
    ShaperConfig {
        enable: true,
        max_rate: 1000,
        min_rate: 60,
        cut_shift: 2,
        recover_us: 6,
        recover_step: 40,
        burst: 3000,
        alt_enable: true,
        alt_below: 400,
        alt_above: 700,
    }
}

#[test]
fn pe_05_random_flows_match_the_model_under_idle_and_backpressure() {
    // Five flows that notifications name, three that they never do (0
    // among them); notifications for eleven labels in all (8 slots).
    let labels = [11, 22, 33, 44, 55, 0, 66, 0x9_ffff];
    let note_labels = vec![11, 22, 33, 44, 55, 101, 102, 103, 104, 105, 106, 0];
    // Halving cuts and slow recovery: shaped flows spend long in deficit.
    let cfg = ShaperConfig {
        cut_shift: 1,
        recover_us: 20,
        burst: 1500,
        alt_below: 250,
        alt_above: 500,
        ..shaping_config()
    };
    for (idle, stall, seed) in [
        (0.3, 0.2, 1u64),
        (0.0, 0.5, 2),
        (0.6, 0.0, 3),
        (0.1, 0.1, 4),
    ] {
        let mut rng = StdRng::seed_from_u64(500 + seed);
        let frames = random_frames(&mut rng, 1000, &labels);
        let opt = Options {
            idle,
            stall,
            note_p: 0.02,
            note_labels: note_labels.clone(),
            notes_until: 20_000,
            probe: true,
            tick_clocks: TICK_CLOCKS,
        };
        let run = run(&frames, &cfg, &opt, seed);
        assert_order_per_label(&frames, &run.left);
        assert_eq!(run.rtl, run.model.counters, "counters");
        let windows = assert_byte_bound(&run, &cfg);
        // The run exercised what it checks.
        let shaped = run.left.iter().filter(|l| l.slot.is_some()).count();
        let alt = run.left.iter().filter(|l| l.alt).count();
        let c = run.rtl;
        assert!(shaped > 100, "{shaped} shaped frames");
        assert!(
            alt > 10 && alt < shaped,
            "{alt} frames on the alternate path"
        );
        assert!(c.reroutes > 0 && c.returns > 0, "{c:?}");
        assert!(c.notes_dropped > 0 && c.notes_taken > 50, "{c:?}");
        assert_eq!(c.shaped_frames as usize, shaped);
        assert!(windows > 1000, "{windows} windows");
        assert!(
            run.deficit_clocks > 5000,
            "{} clocks in deficit",
            run.deficit_clocks
        );
        // Unshaped frames never took the slow lane.
        for l in &run.left {
            if [0, 66, 0x9_ffff].contains(&l.label) {
                assert!(l.slot.is_none() && !l.alt, "frame {}", l.id);
            }
        }
        eprintln!(
            "idle {idle} stall {stall}: {} frames in {} clocks: {shaped} shaped, {alt} on the \
             alternate path, {windows} windows, {} clocks in deficit, {c:?}",
            frames.len(),
            run.clocks,
            run.deficit_clocks
        );
    }
}

#[test]
fn pe_05_token_cap_is_exact_when_a_beat_leaves_in_a_tick() {
    // A tick every clock and rates around a beat's bytes: a slot near its
    // cap gains its rate and loses a beat in the same clock, and the result
    // lands one below, on and one above `burst` (the block computes both
    // outcomes before the merge decides, and caps the one with the beat by
    // a compare against the beat's bytes). Tokens are compared with the
    // model after every clock. Cuts by a quarter against one byte per
    // microsecond back every ten keep the rates moving around 64, and three
    // shaped flows sharing the input keep their tokens near the cap.
    let cfg = ShaperConfig {
        enable: true,
        max_rate: 1000,
        min_rate: 20,
        cut_shift: 2,
        recover_us: 10,
        recover_step: 1,
        burst: 300,
        alt_enable: false,
        alt_below: 0,
        alt_above: 1,
    };
    let mut rng = StdRng::seed_from_u64(520);
    let frames = random_frames(&mut rng, 1200, &[11, 22, 33, 0]);
    let mut edges = [0u64; 3];
    for (idle, stall, seed) in [(0.0, 0.0, 21u64), (0.2, 0.3, 22)] {
        let opt = Options {
            idle,
            stall,
            note_p: 0.02,
            note_labels: vec![11, 22, 33],
            notes_until: 1_000_000,
            probe: true,
            tick_clocks: 1,
        };
        let run = run(&frames, &cfg, &opt, seed);
        assert_order_per_label(&frames, &run.left);
        assert_eq!(run.rtl, run.model.counters, "counters");
        let windows = assert_byte_bound(&run, &cfg);
        eprintln!(
            "idle {idle} stall {stall}: cap edges (burst - 1, burst, burst + 1) {:?}, {windows} \
             windows",
            run.cap_edges
        );
        for (e, n) in edges.iter_mut().zip(run.cap_edges) {
            *e += n;
        }
    }
    assert!(
        edges.iter().all(|&n| n >= 8),
        "the runs reached every edge of the cap: {edges:?}"
    );
}

#[test]
fn pe_05_full_slow_lane_holds_the_input_and_drops_nothing() {
    let mut rng = StdRng::seed_from_u64(506);
    // Two flows cut to a crawl: the lane fills and the input waits.
    let cfg = ShaperConfig {
        min_rate: 200,
        cut_shift: 1,
        recover_us: 40,
        recover_step: 100,
        burst: 2000,
        ..shaping_config()
    };
    let mut frames = random_frames(&mut rng, 300, &[11, 22, 66]);
    for f in frames.iter_mut().take(40) {
        f.label = 11;
    }
    let opt = Options {
        idle: 0.0,
        stall: 0.1,
        note_p: 0.05,
        note_labels: vec![11, 22],
        notes_until: 3_000,
        probe: true,
        tick_clocks: TICK_CLOCKS,
    };
    let run = run(&frames, &cfg, &opt, 2);
    assert_order_per_label(&frames, &run.left);
    assert_eq!(run.rtl, run.model.counters, "counters");
    assert_byte_bound(&run, &cfg);
    let slow_beats: usize = run
        .left
        .iter()
        .filter(|l| l.slot.is_some())
        .map(|l| frames[l.id].data.len().div_ceil(64))
        .sum();
    assert!(slow_beats > LANE_BEATS, "{slow_beats} slow beats");
    // The lane full and one more beat waiting in r: the input held.
    assert_eq!(run.max_slow_beats, LANE_BEATS + 1);
    assert!(run.input_held > 500, "input held {} clocks", run.input_held);
}

/// Latency and throughput of the fast path, clock by clock: every slot
/// taken by flows that send nothing, so the slow lane stays empty.
#[test]
fn pe_05_fast_path_latency_one_clock_one_beat_per_clock() {
    let mut rng = StdRng::seed_from_u64(507);
    let cfg = shaping_config();
    let frames = random_frames(&mut rng, 200, &[0, 66, 77, 0x8_0000]);
    let opt = Options {
        idle: 0.0,
        stall: 0.0,
        note_p: 0.5,
        note_labels: vec![101, 102, 103, 104, 105, 106, 107, 108, 109],
        notes_until: 1_000_000,
        probe: true,
        tick_clocks: TICK_CLOCKS,
    };
    let run = run(&frames, &cfg, &opt, 3);
    assert_order_per_label(&frames, &run.left);
    assert!(run.model.slots.iter().all(|s| s.used), "every slot taken");
    let beats: usize = frames.iter().map(|f| f.data.len().div_ceil(64)).sum();
    assert_eq!(run.beats_in.len(), beats);
    assert_eq!(run.beats_out.len(), beats);
    for (i, (a, b)) in run.beats_in.iter().zip(&run.beats_out).enumerate() {
        assert_eq!(b - a, FAST_LATENCY, "beat {i}");
    }
    // Back to back: one beat per clock from the first beat in to the last out.
    let span = run.beats_out.last().unwrap() - run.beats_in[0] + 1;
    assert_eq!(span, beats as u64 + FAST_LATENCY);
    for l in &run.left {
        assert_eq!(l.first_out, l.first_in + FAST_LATENCY, "frame {}", l.id);
    }
    assert_eq!(run.rtl.shaped_frames, 0);
}

/// With the slow lane busy, an unshaped frame waits at most for the slow
/// frame on `m` and the one the round robin owes the slow lane.
#[test]
fn pe_05_merge_is_round_robin_between_whole_frames() {
    let mut rng = StdRng::seed_from_u64(508);
    let cfg = ShaperConfig {
        max_rate: 2000,
        burst: 40_000,
        recover_us: 1000,
        ..shaping_config()
    };
    // Shaped label 11 (a generous bucket: always released) and unshaped 66.
    let frames = random_frames(&mut rng, 300, &[11, 66]);
    let opt = Options {
        idle: 0.0,
        stall: 0.0,
        note_p: 1.0,
        note_labels: vec![11],
        notes_until: 2,
        probe: true,
        tick_clocks: TICK_CLOCKS,
    };
    let run = run(&frames, &cfg, &opt, 4);
    assert_order_per_label(&frames, &run.left);
    let mut by_out = run.left.clone();
    by_out.sort_by_key(|l| l.first_out);
    // Whole frames, never interleaved.
    for w in by_out.windows(2) {
        assert!(
            w[1].first_out > w[0].last_out,
            "frames {} and {} interleave",
            w[0].id,
            w[1].id
        );
    }
    // A fast frame waiting at the head of the input is not passed by two
    // slow frames in a row.
    let longest_beats = frames
        .iter()
        .map(|f| f.data.len().div_ceil(64))
        .max()
        .unwrap() as u64;
    for l in by_out.iter().filter(|l| l.slot.is_none()) {
        let waited = l.first_out - l.first_in - FAST_LATENCY;
        assert!(waited <= longest_beats, "frame {} waited {waited}", l.id);
    }
    // Store and forward in the slow lane: a slow frame's first beat leaves
    // at least two clocks after its last beat came in (one clock in r, one
    // to count it whole); a fast one a clock after its first.
    let slow: Vec<&Left> = run.left.iter().filter(|l| l.slot.is_some()).collect();
    let after_last = slow.iter().map(|l| l.first_out - l.last_in);
    assert_eq!(after_last.clone().min(), Some(SLOW_AFTER_LAST));
    assert!(slow.len() > 100, "{}", slow.len());
    eprintln!(
        "slow frames: first beat out {}..={} clocks after their last beat in; input held {} clocks",
        SLOW_AFTER_LAST,
        after_last.max().unwrap(),
        run.input_held
    );
}

#[test]
fn pe_05_disabled_shaper_passes_every_frame_in_order() {
    let mut rng = StdRng::seed_from_u64(509);
    let cfg = ShaperConfig {
        enable: false,
        ..shaping_config()
    };
    let frames = random_frames(&mut rng, 300, &[11, 22, 0, 66]);
    for (idle, stall, seed) in [(0.0, 0.0, 5), (0.3, 0.3, 6)] {
        let opt = Options {
            idle,
            stall,
            note_p: 0.1,
            note_labels: vec![11, 22, 33],
            notes_until: 1_000_000,
            probe: true,
            tick_clocks: TICK_CLOCKS,
        };
        let run = run(&frames, &cfg, &opt, seed);
        assert_order_per_label(&frames, &run.left);
        let ids: Vec<usize> = run.left.iter().map(|l| l.id).collect();
        assert_eq!(ids, (0..frames.len()).collect::<Vec<_>>(), "input order");
        assert!(run.left.iter().all(|l| !l.alt && l.slot.is_none()));
        assert!(run.model.slots.iter().all(|s| !s.used));
        assert_eq!(run.rtl, Counters::default());
        if idle == 0.0 {
            let beats = run.beats_in.len() as u64;
            assert_eq!(
                run.beats_out.last().unwrap() - run.beats_in[0] + 1,
                beats + 1
            );
        }
    }
}
