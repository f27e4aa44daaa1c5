//! Runs on a time axis: every frame enters no earlier than a given clock,
//! and the queue-depth telemetry input (`qd_ext_*`) changes at given clocks
//! while the traffic flows. What `cngw replay --queue-trace/--pcap-timing`
//! drives.
//!
//! Clock 0 is the first clock of the run. A frame is queued on its input
//! when its clock has come and the frame before it has entered completely,
//! so frames whose clocks have passed follow each other back to back (line
//! rate unless the idle pattern pauses the source) and never overtake one
//! another. A depth step drives the input from its clock on and holds until
//! the next step (several steps in one clock: the last wins).
//!
//! The reference model sees, for each dc_rx frame, the depth the CE marker
//! compared with K_min when that frame's first beat passed it
//! ([`crate::marker_clock`]), so the RTL-versus-model comparison stays
//! frame-exact while the depth moves.

use crate::bench::{event, Bench};
use crate::harness::{collect, set_stalls, Capture, StreamOptions};
use crate::marker_clock::{MarkerClock, MarkerClockError, QUEUE_DEPTH_TO_MARKER_CLOCKS};
use crate::scoreboard::{compare, compare_counters, Expected, Mismatch};
use cngw_model::longhaul::{DECISION_DELAY, QUEUE_DEPTH_DELAY};
use cngw_model::meter::virtual_queue_steps;
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::parsed::ParsedHeader;
use cngw_regmap::{meter_control, offset};
use cngw_sim::Gateway;
use std::collections::BTreeMap;
use std::fmt;

/// The queue-depth input takes `bytes` from clock `cycle` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthStep {
    pub cycle: u64,
    pub bytes: u32,
}

/// What to drive, and when.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// One entry per input: its frames (none empty) in order, each with the
    /// clock before which it must not enter.
    pub inputs: Vec<(InPort, Vec<(u64, Frame)>)>,
    /// Changes of the queue-depth input, in non-decreasing clock order.
    pub depth_steps: Vec<DepthStep>,
    /// From this clock on no frame is queued and no step applied (frames
    /// already queued still enter); the run then drains. `None`: the run
    /// lasts until every frame has entered and every step took effect.
    pub end_cycle: Option<u64>,
}

impl Schedule {
    /// The clock by which everything scheduled has happened (frames
    /// queued, steps in effect at the marker), or `end_cycle`.
    pub fn planned_cycles(&self) -> u64 {
        if let Some(end) = self.end_cycle {
            return end;
        }
        let frames = self
            .inputs
            .iter()
            .flat_map(|(_, f)| f.last().map(|(c, _)| *c))
            .max()
            .unwrap_or(0);
        let steps = self
            .depth_steps
            .last()
            .map_or(0, |s| s.cycle + QUEUE_DEPTH_TO_MARKER_CLOCKS);
        frames.max(steps)
    }
}

/// What a scheduled run did.
#[derive(Clone, Debug, Default)]
pub struct ScheduledCapture {
    /// Outputs, parser results and port statistics, as [`crate::run`] gives them.
    pub capture: Capture,
    /// Frames of each input that were queued (all, unless `end_cycle` cut
    /// the schedule short).
    pub frames_sent: BTreeMap<InPort, usize>,
    /// For each dc_rx frame sent, the clock at which its first beat passed
    /// the CE marker.
    pub marker_cycles: Vec<u64>,
    /// The depth steps driven, with the clock each was driven from.
    pub depth_steps_applied: Vec<DepthStep>,
    /// Absolute clocks (`Gateway::cycle`) of the run's first and last clock;
    /// the clocks above are relative to `start_cycle`.
    pub start_cycle: u64,
    pub end_cycle: u64,
}

impl ScheduledCapture {
    /// The depth the CE marker compared in clock `cycle`: the last step
    /// driven at least [`QUEUE_DEPTH_TO_MARKER_CLOCKS`] earlier, else
    /// `initial` (what the gateway held before the run).
    pub fn depth_at_marker(&self, cycle: u64, initial: u32) -> u32 {
        self.depth_steps_applied
            .iter()
            .take_while(|s| s.cycle + QUEUE_DEPTH_TO_MARKER_CLOCKS <= cycle)
            .last()
            .map_or(initial, |s| s.bytes)
    }

    /// The depth each dc_rx frame met at the marker, in order.
    pub fn marker_depths(&self, initial: u32) -> Vec<u32> {
        self.marker_cycles
            .iter()
            .map(|&c| self.depth_at_marker(c, initial))
            .collect()
    }

    /// The depth on the input when the run ended.
    pub fn final_depth(&self, initial: u32) -> u32 {
        self.depth_steps_applied.last().map_or(initial, |s| s.bytes)
    }

    /// The frames of `port` that were queued.
    pub fn sent<'a>(&self, schedule: &'a Schedule, port: InPort) -> Vec<&'a Frame> {
        let n = self.frames_sent.get(&port).copied().unwrap_or(0);
        schedule
            .inputs
            .iter()
            .filter(|(p, _)| *p == port)
            .flat_map(|(_, frames)| frames.iter().map(|(_, f)| f))
            .take(n)
            .collect()
    }
}

/// Why a scheduled check failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduledError {
    /// The testbench lost track of the marker clock (the RTL's pipeline changed).
    MarkerClock(MarkerClockError),
    /// The RTL and the reference model disagree.
    Mismatch(Box<Mismatch>),
}

impl fmt::Display for ScheduledError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduledError::MarkerClock(e) => write!(f, "{e}"),
            ScheduledError::Mismatch(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for ScheduledError {}

/// See `expect_scheduled` (RA-04): between the eleven clocks a remote
/// advice message needs and `QUIET_CLOCKS`.
const REMOTE_MARGIN: u64 = 40;

/// Quiet clocks that count as drained, as [`crate::run`] waits.
const QUIET_CLOCKS: u32 = 64;
/// The same without the marker shadow (the ingress PE's role): the
/// encapsulation drops a frame over the WAN MTU one beat per clock with
/// nothing to see outside, up to 160 beats (a frame the ingress queue cut).
const QUIET_CLOCKS_INGRESS_PE: u32 = 200;

/// Drives `schedule` through the gateway and records what leaves it and
/// when each dc_rx frame passed the CE marker. Stops after everything
/// scheduled happened and the pipeline drained, or `opts.max_cycles` after
/// the planned end (`capture.timed_out`).
pub fn run_scheduled(
    gw: &mut Gateway,
    schedule: &Schedule,
    opts: StreamOptions,
) -> Result<ScheduledCapture, MarkerClockError> {
    let mut bench = Bench::around(gw);
    set_stalls(&mut bench, opts);
    let start = bench.cycle();
    let budget = schedule.planned_cycles().saturating_add(opts.max_cycles);
    let mut next = vec![0usize; schedule.inputs.len()];
    let mut step = 0;
    let mut applied: Vec<DepthStep> = Vec::new();
    let mut shadow = MarkerClock::new();
    let mut quiet = 0;
    let mut timed_out = false;
    loop {
        let cycle = bench.cycle() - start;
        let feeding = !matches!(schedule.end_cycle, Some(end) if cycle >= end);
        if feeding {
            let mut depth = None;
            while let Some(s) = schedule.depth_steps.get(step).filter(|s| s.cycle <= cycle) {
                depth = Some(s.bytes);
                step += 1;
            }
            if let Some(bytes) = depth {
                bench.gateway().set_queue_depth(bytes, true);
                applied.push(DepthStep { cycle, bytes });
            }
            for (i, (port, frames)) in schedule.inputs.iter().enumerate() {
                if bench.frames_pending(*port) > 0 {
                    continue;
                }
                if let Some((_, f)) = frames.get(next[i]).filter(|(c, _)| *c <= cycle) {
                    bench.push_frame(*port, &f.data, f.user);
                    next[i] += 1;
                }
            }
        }
        let ev = bench.clock();
        if opts.marker_shadow {
            shadow.clock(cycle, ev)?;
        }
        let fed = !feeding
            || (next
                .iter()
                .zip(&schedule.inputs)
                .all(|(n, (_, f))| *n == f.len())
                && step == schedule.depth_steps.len()
                && !matches!(applied.last(),
                    Some(s) if cycle < s.cycle + QUEUE_DEPTH_TO_MARKER_CLOCKS));
        if !fed || ev & event::ACTIVITY != 0 || !bench.inputs_empty() || !shadow.is_empty() {
            quiet = 0;
        } else {
            quiet += 1;
            let needed = if opts.marker_shadow {
                QUIET_CLOCKS
            } else {
                QUIET_CLOCKS_INGRESS_PE
            };
            if quiet >= needed {
                break;
            }
        }
        if cycle + 1 >= budget {
            timed_out = true;
            break;
        }
    }
    let mut frames_sent = BTreeMap::new();
    for (n, (port, _)) in next.iter().zip(&schedule.inputs) {
        *frames_sent.entry(*port).or_insert(0) += n;
    }
    let sent: Vec<(InPort, Vec<Frame>)> = schedule
        .inputs
        .iter()
        .zip(&next)
        .map(|((port, frames), n)| (*port, frames[..*n].iter().map(|(_, f)| f.clone()).collect()))
        .collect();
    let sent_refs: Vec<(InPort, &[Frame])> = sent.iter().map(|(p, f)| (*p, f.as_slice())).collect();
    let end_cycle = bench.cycle();
    let capture = collect(&mut bench, start, timed_out, &sent_refs);
    Ok(ScheduledCapture {
        capture,
        frames_sent,
        marker_cycles: shadow.first_beat_cycles().to_vec(),
        depth_steps_applied: applied,
        start_cycle: start,
        end_cycle,
    })
}

/// What the model expects for the frames a scheduled run sent: before each
/// dc_rx frame, the model's queue depth is the one the CE marker used for
/// it; at the end, the depth last driven (which `PORT0_QUEUE_DEPTH_BYTES`
/// shows).
pub fn expect_scheduled(
    model: &mut GatewayModel,
    schedule: &Schedule,
    run: &ScheduledCapture,
) -> Expected {
    expect_scheduled_to(model, schedule, run, run.end_cycle)
}

/// [`expect_scheduled`] for runs that follow each other without a pause
/// (the soak, [`crate::soak`]): the model lets time pass only to
/// `REMOTE_MARGIN` clocks before the run's end. A notification decided
/// by time alone (a Resume) in the last clocks of a run leaves the RTL ten
/// or more clocks later, in the next run; the run ended after
/// `QUIET_CLOCKS` without a beat, so none can be decided between the
/// margin and the quiet clocks before it. Decisions after the margin are
/// the next run's.
pub fn expect_scheduled_continued(
    model: &mut GatewayModel,
    schedule: &Schedule,
    run: &ScheduledCapture,
) -> Expected {
    expect_scheduled_to(
        model,
        schedule,
        run,
        run.end_cycle.saturating_sub(REMOTE_MARGIN),
    )
}

fn expect_scheduled_to(
    model: &mut GatewayModel,
    schedule: &Schedule,
    run: &ScheduledCapture,
    until: u64,
) -> Expected {
    let internal = model
        .read_register(offset::PORT0_METER_CONTROL)
        .unwrap_or(0)
        & meter_control::INTERNAL_QUEUE
        != 0;
    let vq_run;
    let run = if internal {
        // LH-02: the depth is the virtual queue's, filled by what left on
        // wan_tx (the queue is taken to be empty when the run starts).
        let mut r = run.clone();
        r.depth_steps_applied = internal_queue_steps(model, run);
        vq_run = r;
        &vq_run
    } else {
        run
    };
    let initial = if internal {
        0
    } else {
        model
            .read_register(offset::PORT0_QUEUE_DEPTH_BYTES)
            .unwrap_or(0)
    };
    let depths = run.marker_depths(initial);
    let mut exp = Expected {
        outputs: BTreeMap::new(),
        parsed: BTreeMap::new(),
        notifications: Vec::new(),
        fast_cnps: Vec::new(),
        ingress_cnps: Vec::new(),
        proxy_cnps: Vec::new(),
        proxy_messages: Vec::new(),
        rate_advice: Vec::new(),
        remote_advice: Vec::new(),
    };
    // The model takes the frames in the order the parsers reported them
    // (header clock, dc_rx first within a clock: what source-QP learning
    // sees) and the depth steps where the second level meets them: a step
    // reaches the controller three clocks after it is driven, a dc_rx
    // frame is decided five clocks after its header. The CE marker uses
    // the depth of its own clock.
    enum Event<'a> {
        Depth(u32, u64),
        Frame(InPort, usize, &'a Frame, Option<u64>),
    }
    let mut events: Vec<(u64, u8, Event)> = run
        .depth_steps_applied
        .iter()
        .map(|s| {
            let at = run.start_cycle + s.cycle;
            let seen = at + QUEUE_DEPTH_DELAY;
            (
                seen.saturating_sub(DECISION_DELAY),
                0,
                Event::Depth(s.bytes, at),
            )
        })
        .collect();
    for port in InPort::ALL {
        let cycles = run.capture.parsed_cycles.get(&port);
        for (i, f) in run.sent(schedule, port).into_iter().enumerate() {
            let parsed = cycles.and_then(|c| c.get(i).copied());
            let order = 1 + port as u8;
            // RA-04: a peer's advice applies from the clock after its
            // header, to decisions five clocks after theirs: the model
            // takes it before the dc_rx frames it reaches.
            let early = port == InPort::WanRx
                && cngw_model::rate_advice::remote_claim(&f.data, model.registers()).is_some();
            let key = parsed.unwrap_or(u64::MAX);
            events.push((
                if early {
                    key.saturating_sub(DECISION_DELAY)
                } else {
                    key
                },
                order,
                Event::Frame(port, i, f, parsed),
            ));
        }
    }
    events.sort_by_key(|e| (e.0, e.1));
    let mut parsed_at: BTreeMap<InPort, Vec<(usize, ParsedHeader)>> = BTreeMap::new();
    for (_, _, ev) in events {
        match ev {
            Event::Depth(bytes, at) => model.controller_depth_changed(bytes, at),
            Event::Frame(port, i, f, parsed) => {
                if port == InPort::DcRx {
                    // Every frame sent has passed the marker once the run
                    // drained; after a timeout the rest keep the initial depth.
                    model.set_marker_depth(depths.get(i).copied().unwrap_or(initial));
                    if let Some(m) = run.marker_cycles.get(i) {
                        model.set_marker_clock(run.start_cycle + m);
                    }
                }
                let out = model.receive_at(port, f, parsed);
                parsed_at.entry(port).or_default().push((i, out.parsed));
                for (o, frame) in out.emitted {
                    exp.outputs.entry(o).or_default().push(frame);
                }
            }
        }
    }
    // Parser results in each input's order (RA-04 moved some events).
    for (port, mut v) in parsed_at {
        v.sort_by_key(|e| e.0);
        exp.parsed
            .insert(port, v.into_iter().map(|e| e.1).collect());
    }
    model.advance_to(until);
    exp.notifications = model
        .take_notifications()
        .into_iter()
        .map(|n| n.frame)
        .collect();
    exp.fast_cnps = model
        .take_fast_cnps()
        .into_iter()
        .map(|n| n.frame)
        .collect();
    exp.ingress_cnps = model
        .take_ingress_cnps()
        .into_iter()
        .map(|n| n.frame)
        .collect();
    exp.proxy_cnps = model
        .take_proxy_cnps()
        .into_iter()
        .map(|n| n.frame)
        .collect();
    exp.proxy_messages = model
        .take_proxy_messages()
        .into_iter()
        .map(|n| n.frame)
        .collect();
    exp.rate_advice = model
        .take_rate_advice()
        .into_iter()
        .map(|n| n.frame)
        .collect();
    // RA-04: the advice to the peers the RTL had time to send: the run
    // ends after QUIET_CLOCKS without activity, and a message leaves
    // eleven clocks after its interval's advice is taken, so every advice
    // taken REMOTE_MARGIN clocks before the end has left, none taken later.
    exp.remote_advice = model
        .take_remote_advice_until(run.end_cycle.saturating_sub(REMOTE_MARGIN))
        .into_iter()
        .map(|n| n.frame)
        .collect();
    model.set_marker_depth(run.final_depth(initial));
    exp
}

/// Clocks from a CSR read's address handshake to the clock its register is
/// sampled in (`CsrBlock` registers the address, decodes it into a
/// registered index in the next clock, copies the index per 32-register
/// subtree in the clock after and selects the register's value into its
/// first data stage in the next).
pub const CSR_READ_SAMPLE_CLOCKS: u64 = 3;

/// LH-02: the depth of the gateway's virtual egress queue during `run`, as
/// depth steps (relative clocks): the model's [`virtual_queue_steps`] over
/// the frames that left on wan_tx, at the drain rate the model's registers
/// hold.
pub fn internal_queue_steps(model: &GatewayModel, run: &ScheduledCapture) -> Vec<DepthStep> {
    let drain = model.read_register(offset::PORT0_VQ_DRAIN_Q16).unwrap_or(0);
    let out = run.capture.outputs.get(&OutPort::WanTx);
    let ends = run.capture.output_end_cycles.get(&OutPort::WanTx);
    let arrivals: Vec<(u64, u32)> = match (out, ends) {
        (Some(o), Some(e)) => o
            .iter()
            .zip(e)
            .map(|(f, &c)| (run.start_cycle + c, f.data.len() as u32))
            .collect(),
        _ => Vec::new(),
    };
    // Through the clock in which the first register read after the run
    // samples its register: the CSR block samples it three clocks after the
    // address is accepted (`CsrBlock`, `CSR_READ_SAMPLE_CLOCKS`).
    virtual_queue_steps(drain, &arrivals, run.end_cycle + CSR_READ_SAMPLE_CLOCKS)
        .into_iter()
        .map(|(c, bytes)| DepthStep {
            cycle: c - run.start_cycle,
            bytes,
        })
        .collect()
}

/// Runs `schedule` through RTL and model and checks they agree in every
/// frame, parser result and counter.
pub fn check_scheduled(
    gw: &mut Gateway,
    model: &mut GatewayModel,
    schedule: &Schedule,
    opts: StreamOptions,
) -> Result<ScheduledCapture, ScheduledError> {
    let run = run_scheduled(gw, schedule, opts).map_err(ScheduledError::MarkerClock)?;
    let exp = expect_scheduled(model, schedule, &run);
    compare(&run.capture, &exp).map_err(|m| ScheduledError::Mismatch(Box::new(m)))?;
    compare_counters(gw, model).map_err(|m| ScheduledError::Mismatch(Box::new(m)))?;
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_packet::{Ecn, RoceFrameBuilder};
    use cngw_regmap::feature;

    /// 1024-byte ECT(0) RoCEv2 frames: 16 beats each.
    fn ect_frames(n: usize) -> Vec<Frame> {
        (0..n)
            .map(|i| {
                Frame::new(
                    RoceFrameBuilder::ipv4([10, 0, 0, 1].into(), [10, 0, 0, 4].into())
                        .ecn(Ecn::Ect0)
                        .dest_qp(200)
                        .psn(i as u32)
                        .payload_len(1024 - 62)
                        .build(),
                )
            })
            .collect()
    }

    /// A gateway and a model with LH-04 marking on (K_min at its reset
    /// value, 62.5 MB).
    fn marking_on() -> (Gateway, GatewayModel) {
        let mut gw = Gateway::new();
        let mut model = GatewayModel::new();
        gw.csr_write(offset::FEATURE_ENABLE, feature::LH_ECN_MARK)
            .unwrap();
        assert!(model.write_register(offset::FEATURE_ENABLE, feature::LH_ECN_MARK));
        (gw, model)
    }

    fn ce(frame: &Frame) -> bool {
        cngw_packet::Frame::parse(&frame.data)
            .unwrap()
            .ip
            .header
            .ecn()
            == Ecn::Ce
    }

    const CONGESTED: u32 = 100_000_000;

    /// LH-04 timing: a depth driven in clock `s` decides the marking of the
    /// frames whose first beat passes the marker from clock `s + 2` on. At
    /// line rate frame 1's first beat enters dc_rx in clock 16 and passes
    /// the marker in clock 17, so a step in clock 15 marks it and a step in
    /// clock 16 does not; the model, fed by the marker clock, agrees each
    /// time.
    #[test]
    fn lh_04_a_depth_step_marks_from_two_clocks_later() {
        for s in 0..40u64 {
            let (mut gw, mut model) = marking_on();
            let frames = ect_frames(3);
            let schedule = Schedule {
                inputs: vec![(
                    InPort::DcRx,
                    frames.iter().map(|f| (0, f.clone())).collect(),
                )],
                depth_steps: vec![DepthStep {
                    cycle: s,
                    bytes: CONGESTED,
                }],
                end_cycle: None,
            };
            let run = check_scheduled(&mut gw, &mut model, &schedule, StreamOptions::line_rate())
                .unwrap_or_else(|e| panic!("step at clock {s}: {e}"));
            assert_eq!(run.marker_cycles, vec![1, 17, 33]);
            let out = &run.capture.outputs[&cngw_model::OutPort::WanTx];
            let marked: Vec<bool> = out.iter().map(ce).collect();
            let expected: Vec<bool> = [0u64, 16, 32].iter().map(|&entry| s < entry).collect();
            assert_eq!(marked, expected, "step at clock {s}");
        }
    }

    /// The depth toggles across K_min every few clocks while frames of
    /// every length cross under random idle cycles and backpressure: the
    /// model, given the depth at each frame's marker clock, matches the RTL
    /// frame for frame; both levels are exercised.
    #[test]
    fn lh_04_moving_depth_under_stalls_matches_the_model() {
        for seed in 1..=6u64 {
            let (mut gw, mut model) = marking_on();
            let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
            let mut frames: Vec<(u64, Frame)> = crate::traffic::random_mix(&mut rng, 60)
                .into_iter()
                .map(|f| (0, f))
                .collect();
            for (i, f) in ect_frames(30).into_iter().enumerate() {
                frames.insert(2 * i, (0, f));
            }
            let depth_steps = (0..200u64)
                .map(|i| DepthStep {
                    cycle: i * (3 + seed),
                    bytes: if i % 2 == 0 { CONGESTED } else { 1000 },
                })
                .collect();
            let schedule = Schedule {
                inputs: vec![(InPort::DcRx, frames)],
                depth_steps,
                end_cycle: None,
            };
            let opts = StreamOptions::random(0.3, 0.4, seed);
            let run = check_scheduled(&mut gw, &mut model, &schedule, opts)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let out = &run.capture.outputs[&cngw_model::OutPort::WanTx];
            let ect_out: Vec<bool> = out.iter().step_by(2).take(30).map(ce).collect();
            assert!(
                ect_out.contains(&true) && ect_out.contains(&false),
                "seed {seed}"
            );
        }
    }

    /// Frames wait for their clock; a cut-off end sends only what was due.
    #[test]
    fn hw_03_frames_enter_no_earlier_than_their_clock() {
        let mut gw = Gateway::new();
        let frames = ect_frames(4);
        let release = [5u64, 5, 100, 1000];
        let schedule = Schedule {
            inputs: vec![(
                InPort::DcRx,
                release
                    .iter()
                    .zip(&frames)
                    .map(|(c, f)| (*c, f.clone()))
                    .collect(),
            )],
            depth_steps: vec![],
            end_cycle: None,
        };
        let run = run_scheduled(&mut gw, &schedule, StreamOptions::line_rate()).unwrap();
        // The second frame waits for the first (16 beats), the others for their clock.
        assert_eq!(
            run.capture.input_start_cycles[&InPort::DcRx],
            vec![5, 21, 100, 1000]
        );
        let cut = Schedule {
            end_cycle: Some(100),
            ..schedule
        };
        let mut gw = Gateway::new();
        let run = run_scheduled(&mut gw, &cut, StreamOptions::line_rate()).unwrap();
        assert_eq!(run.frames_sent[&InPort::DcRx], 2);
        assert_eq!(run.capture.outputs[&cngw_model::OutPort::WanTx].len(), 2);
    }
}
