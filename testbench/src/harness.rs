//! Batch runs of frames through the Verilated gateway, with random idle
//! cycles on the inputs and random backpressure on the outputs.
//!
//! The clock-by-clock work (sources, sinks, monitors) is [`crate::bench`]'s;
//! sources obey the AXI4-Stream rule: once `tvalid` is up, the beat stays
//! until it is taken, so idle cycles only fall between beats.

use crate::bench::Bench;
use crate::pause::Pause;
use cngw_model::Frame;
use cngw_packet::parsed::ParsedHeader;
use cngw_sim::{Gateway, InPort, OutPort, BEAT_BYTES};
use std::collections::BTreeMap;

/// Random idle cycles on inputs and random backpressure on outputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StreamOptions {
    /// Chance that a driver stays idle in a cycle where it could present a beat.
    pub idle: f64,
    /// Chance that a sink holds `tready` low in a cycle.
    pub backpressure: f64,
    pub seed: u64,
    /// Give up after this many cycles (a wedged pipeline shows as a timeout).
    pub max_cycles: u64,
    /// Scheduled runs follow every dc_rx frame to the CE marker with a
    /// shadow of the plain dc_rx -> wan_tx pipeline (two skid buffers) and
    /// give the model each frame's marker clock. The ingress PE's queue and
    /// encapsulation (`TUNNEL_CONTROL.ingress_pe`) are not in that picture:
    /// turn it off there (the model then decides marking at its last
    /// clock, so such runs keep the queue depth and PE-03 marking steady).
    pub marker_shadow: bool,
}

impl StreamOptions {
    /// Back to back, never stalled: the line-rate case.
    pub fn line_rate() -> Self {
        StreamOptions {
            idle: 0.0,
            backpressure: 0.0,
            seed: 0,
            max_cycles: 50_000_000,
            marker_shadow: true,
        }
    }
    /// These options without the marker-clock shadow (see `marker_shadow`).
    pub fn without_marker_shadow(self) -> Self {
        StreamOptions {
            marker_shadow: false,
            ..self
        }
    }
    /// Random idle cycles and backpressure with the given probabilities.
    pub fn random(idle: f64, backpressure: f64, seed: u64) -> Self {
        StreamOptions {
            idle,
            backpressure,
            seed,
            max_cycles: 50_000_000,
            marker_shadow: true,
        }
    }
}

/// Handshake statistics of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub beats: u64,
    pub frames: u64,
    pub first_cycle: Option<u64>,
    pub last_cycle: Option<u64>,
}

impl PortStats {
    fn add_frame(&mut self, beats: u64, first_cycle: u64, last_cycle: u64) {
        self.beats += beats;
        self.frames += 1;
        self.first_cycle.get_or_insert(first_cycle);
        self.last_cycle = Some(last_cycle);
    }

    /// Beats per clock between the first and the last transfer.
    pub fn beats_per_cycle(&self) -> f64 {
        match (self.first_cycle, self.last_cycle) {
            (Some(a), Some(b)) => self.beats as f64 / (b - a + 1) as f64,
            _ => 0.0,
        }
    }
}

/// Everything the monitors saw during a run.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    pub outputs: BTreeMap<OutPort, Vec<Frame>>,
    pub parsed: BTreeMap<InPort, Vec<ParsedHeader>>,
    /// The clock each parser result appeared in (absolute, as
    /// `Gateway::cycle` counts), in the order of `parsed`.
    pub parsed_cycles: BTreeMap<InPort, Vec<u64>>,
    pub input_stats: BTreeMap<InPort, PortStats>,
    pub output_stats: BTreeMap<OutPort, PortStats>,
    /// Cycle at which each input frame's first beat was accepted, per port.
    pub input_start_cycles: BTreeMap<InPort, Vec<u64>>,
    /// Cycle at which each output frame's first beat left, per port.
    pub output_start_cycles: BTreeMap<OutPort, Vec<u64>>,
    /// Cycle at which each output frame's last beat left, per port.
    pub output_end_cycles: BTreeMap<OutPort, Vec<u64>>,
    /// Clock cycles the run took.
    pub cycles: u64,
    /// True when the run ended because `max_cycles` passed.
    pub timed_out: bool,
}

/// Drives frames through the gateway and records what leaves it: the batch
/// use of [`Bench`] (every frame queued at once, run until the pipeline has
/// drained: every source empty and 64 quiet clocks).
pub fn run(gw: &mut Gateway, inputs: &[(InPort, Vec<Frame>)], opts: StreamOptions) -> Capture {
    let mut bench = Bench::around(gw);
    set_stalls(&mut bench, opts);
    for (port, frames) in inputs {
        for f in frames {
            bench.push_frame(*port, &f.data, f.user);
        }
    }
    let start = bench.cycle();
    let timed_out = bench.run_until_drained(opts.max_cycles, 64).is_err();
    let sent: Vec<(InPort, &[Frame])> = inputs.iter().map(|(p, f)| (*p, f.as_slice())).collect();
    collect(&mut bench, start, timed_out, &sent)
}

/// The idle and backpressure patterns of `opts` on every port of the bench.
pub(crate) fn set_stalls<G: std::borrow::BorrowMut<Gateway>>(
    bench: &mut Bench<G>,
    opts: StreamOptions,
) {
    for (i, port) in InPort::ALL.into_iter().enumerate() {
        *bench.source_pause(port) = Pause::random(opts.idle, opts.seed.wrapping_add(i as u64));
    }
    for (i, port) in OutPort::ALL.into_iter().enumerate() {
        *bench.sink_pause(port) =
            Pause::random(opts.backpressure, opts.seed.wrapping_add(16 + i as u64));
    }
}

/// Builds the capture of a run that started at clock `start` from what the
/// bench recorded; `sent` are the frames queued on each input, in order.
pub(crate) fn collect<G: std::borrow::BorrowMut<Gateway>>(
    bench: &mut Bench<G>,
    start: u64,
    timed_out: bool,
    sent: &[(InPort, &[Frame])],
) -> Capture {
    let mut cap = Capture {
        cycles: bench.cycle() - start,
        timed_out,
        ..Capture::default()
    };
    let beats = |len: usize| len.div_ceil(BEAT_BYTES).max(1) as u64;
    for port in OutPort::ALL {
        let frames = bench.take_frames(port, usize::MAX);
        if frames.is_empty() {
            continue;
        }
        let stats = cap.output_stats.entry(port).or_default();
        for f in &frames {
            stats.add_frame(
                beats(f.data.len()),
                f.start_cycle - start,
                f.end_cycle - start,
            );
        }
        cap.output_start_cycles
            .insert(port, frames.iter().map(|f| f.start_cycle - start).collect());
        cap.output_end_cycles
            .insert(port, frames.iter().map(|f| f.end_cycle - start).collect());
        cap.outputs.insert(
            port,
            frames
                .into_iter()
                .map(|f| Frame {
                    data: f.data,
                    user: f.user,
                })
                .collect(),
        );
    }
    for port in InPort::ALL {
        let parsed = bench.take_parsed(port, usize::MAX);
        if !parsed.is_empty() {
            cap.parsed_cycles
                .insert(port, parsed.iter().map(|p| p.cycle).collect());
            cap.parsed
                .insert(port, parsed.into_iter().map(|p| p.header).collect());
        }
        let accepted = bench.take_accepted(port, usize::MAX);
        if accepted.is_empty() {
            continue;
        }
        let sent = sent
            .iter()
            .filter(|(p, _)| *p == port)
            .flat_map(|(_, frames)| frames.iter());
        let stats = cap.input_stats.entry(port).or_default();
        for (a, f) in accepted.iter().zip(sent) {
            stats.add_frame(
                beats(f.data.len()),
                a.start_cycle - start,
                a.end_cycle - start,
            );
        }
        cap.input_start_cycles.insert(
            port,
            accepted.iter().map(|a| a.start_cycle - start).collect(),
        );
    }
    cap
}
