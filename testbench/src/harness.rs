//! Stream drivers, sinks and monitors around the Verilated gateway.
//!
//! Each clock the harness (1) lets every driver either present its next beat
//! or stay idle, (2) lets every sink raise or drop `tready`, (3) samples
//! handshakes and parser outputs, then (4) steps the clock. Drivers obey the
//! AXI4-Stream rule: once `tvalid` is up, the beat stays until it is taken;
//! idle cycles only fall between beats.

use cngw_model::Frame;
use cngw_packet::parsed::ParsedHeader;
use cngw_sim::{append_beat, frame_to_beats, Beat, Gateway, InPort, OutPort};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};

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
}

impl StreamOptions {
    /// Back to back, never stalled: the line-rate case.
    pub fn line_rate() -> Self {
        StreamOptions { idle: 0.0, backpressure: 0.0, seed: 0, max_cycles: 50_000_000 }
    }
    /// Random idle cycles and backpressure with the given probabilities.
    pub fn random(idle: f64, backpressure: f64, seed: u64) -> Self {
        StreamOptions { idle, backpressure, seed, max_cycles: 50_000_000 }
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
    fn record(&mut self, cycle: u64, last: bool) {
        self.beats += 1;
        self.frames += last as u64;
        self.first_cycle.get_or_insert(cycle);
        self.last_cycle = Some(cycle);
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
    pub input_stats: BTreeMap<InPort, PortStats>,
    pub output_stats: BTreeMap<OutPort, PortStats>,
    /// Cycle at which each input frame's first beat was accepted, per port.
    pub input_start_cycles: BTreeMap<InPort, Vec<u64>>,
    /// Cycle at which each output frame's first beat left, per port.
    pub output_start_cycles: BTreeMap<OutPort, Vec<u64>>,
    /// Clock cycles the run took.
    pub cycles: u64,
    /// True when the run ended because `max_cycles` passed.
    pub timed_out: bool,
}

struct Driver {
    port: InPort,
    beats: VecDeque<Beat>,
    presenting: bool,
    frame_start: bool,
}

struct Sink {
    port: OutPort,
    partial: Vec<u8>,
    ready: bool,
    frame_start: bool,
}

/// Drives frames through the gateway and records what leaves it.
pub fn run(gw: &mut Gateway, inputs: &[(InPort, Vec<Frame>)], opts: StreamOptions) -> Capture {
    let mut rng = StdRng::seed_from_u64(opts.seed);
    let mut drivers: Vec<Driver> = inputs
        .iter()
        .map(|(port, frames)| Driver {
            port: *port,
            beats: frames.iter().flat_map(|f| frame_to_beats(&f.data, f.user)).collect(),
            presenting: false,
            frame_start: true,
        })
        .collect();
    let mut sinks: Vec<Sink> = OutPort::ALL
        .iter()
        .map(|&port| Sink { port, partial: Vec::new(), ready: true, frame_start: true })
        .collect();
    let mut cap = Capture::default();
    let start = gw.cycle();
    let mut quiet = 0u32;
    loop {
        let cycle = gw.cycle() - start;
        if cycle >= opts.max_cycles {
            cap.timed_out = true;
            break;
        }
        for d in drivers.iter_mut() {
            if !d.presenting && !d.beats.is_empty() && !(opts.idle > 0.0 && rng.gen_bool(opts.idle)) {
                d.presenting = true;
            }
            gw.drive(d.port, if d.presenting { d.beats.front() } else { None });
        }
        for s in sinks.iter_mut() {
            s.ready = !(opts.backpressure > 0.0 && rng.gen_bool(opts.backpressure));
            gw.set_ready(s.port, s.ready);
        }
        let mut activity = false;
        for d in drivers.iter_mut() {
            if d.presenting && gw.ready(d.port) {
                let beat = d.beats.pop_front().expect("presenting a beat");
                cap.input_stats.entry(d.port).or_default().record(cycle, beat.last);
                if d.frame_start {
                    cap.input_start_cycles.entry(d.port).or_default().push(cycle);
                }
                d.frame_start = beat.last;
                d.presenting = false;
                activity = true;
            }
        }
        for s in sinks.iter_mut() {
            if !s.ready {
                continue;
            }
            if let Some(beat) = gw.output(s.port) {
                append_beat(&mut s.partial, &beat);
                cap.output_stats.entry(s.port).or_default().record(cycle, beat.last);
                if s.frame_start {
                    cap.output_start_cycles.entry(s.port).or_default().push(cycle);
                }
                s.frame_start = beat.last;
                if beat.last {
                    let data = std::mem::take(&mut s.partial);
                    cap.outputs.entry(s.port).or_default().push(Frame { data, user: beat.user });
                }
                activity = true;
            }
        }
        for port in InPort::ALL {
            if let Some(h) = gw.parsed(port) {
                cap.parsed.entry(port).or_default().push(h);
                activity = true;
            }
        }
        gw.step();
        let pending = drivers.iter().any(|d| !d.beats.is_empty());
        quiet = if activity || pending { 0 } else { quiet + 1 };
        // The pipeline is a few clocks deep: a long silence means it drained.
        if quiet >= 64 {
            break;
        }
    }
    for d in &drivers {
        gw.drive(d.port, None);
    }
    for port in OutPort::ALL {
        gw.set_ready(port, true);
    }
    cap.cycles = gw.cycle() - start;
    cap
}
