//! A clocked bench around the Verilated gateway: one stream source per
//! input, one sink per output, monitors of the parser results and an
//! AXI4-Lite master, all advanced together one clock at a time.
//!
//! ```text
//!            +-------------------------------------------+
//!  Source -> | dc_rx                              wan_tx | -> Sink
//!  Source -> | wan_rx                              dc_tx | -> Sink
//!            | dc_hdr_* / wan_hdr_* -> parser monitors   |
//!  CSR ops-> | s_axil_*  (AXI4-Lite master)              |
//!            +-------------------------------------------+
//! ```
//!
//! [`crate::harness::run`] is the batch use of the bench (a fixed set of
//! frames run to the end); used directly, the bench runs for a given number of clocks or until an event a
//! caller waits for (a frame left, a parser result, a CSR access finished),
//! and frames and CSR accesses can be added between runs. That is what a
//! cocotb-like scheduler needs, and it keeps the per-clock work in Rust: the
//! Python side calls [`Bench::run`] once per wake-up, not once per clock.
//!
//! Each clock: (1) every source presents its next beat unless paused or
//! empty, (2) every sink sets `tready` from its pause pattern, (3) the CSR
//! master drives its channels, (4) handshakes, output beats and parser
//! pulses are sampled, (5) the rising edge. Signals are only written when
//! they change, which is what makes a long back-to-back burst cheap.

use crate::pause::Pause;
use crate::{Capture, Mismatch, StreamOptions};
use cngw_model::{Frame, GatewayModel};
use cngw_packet::parsed::ParsedHeader;
use cngw_sim::{append_beat, frame_to_beats, Beat, CsrError, Gateway, InPort, OutPort};
use std::borrow::BorrowMut;
use std::collections::{HashMap, VecDeque};

/// Events a run reports and can stop on (bit flags).
pub mod event {
    /// A frame's last beat left dc_tx.
    pub const FRAME_DC_TX: u32 = 1 << 0;
    /// A frame's last beat left wan_tx.
    pub const FRAME_WAN_TX: u32 = 1 << 1;
    /// The dc_rx parser reported a frame.
    pub const PARSED_DC_RX: u32 = 1 << 2;
    /// The wan_rx parser reported a frame.
    pub const PARSED_WAN_RX: u32 = 1 << 3;
    /// The dc_rx source's last queued beat was accepted.
    pub const DRAINED_DC_RX: u32 = 1 << 4;
    /// The wan_rx source's last queued beat was accepted.
    pub const DRAINED_WAN_RX: u32 = 1 << 5;
    /// A frame's last beat entered dc_rx.
    pub const ACCEPTED_DC_RX: u32 = 1 << 6;
    /// A frame's last beat entered wan_rx.
    pub const ACCEPTED_WAN_RX: u32 = 1 << 7;
    /// A CSR access finished.
    pub const CSR_DONE: u32 = 1 << 8;
    /// Any beat moved on any stream port, a parser reported or a CSR access finished.
    pub const ACTIVITY: u32 = 1 << 9;
    /// A beat entered dc_rx / wan_rx (a handshake on the input).
    pub const BEAT_DC_RX: u32 = 1 << 10;
    pub const BEAT_WAN_RX: u32 = 1 << 11;
    /// The beat that entered was the first of its frame.
    pub const FIRST_BEAT_DC_RX: u32 = 1 << 12;
    pub const FIRST_BEAT_WAN_RX: u32 = 1 << 13;
    /// A beat left dc_tx / wan_tx (a handshake on the output).
    pub const BEAT_DC_TX: u32 = 1 << 14;
    pub const BEAT_WAN_TX: u32 = 1 << 15;
    /// The beat that left was the first of its frame.
    pub const FIRST_BEAT_DC_TX: u32 = 1 << 16;
    pub const FIRST_BEAT_WAN_TX: u32 = 1 << 17;

    use super::{InPort, OutPort};

    pub fn frame(port: OutPort) -> u32 {
        match port {
            OutPort::DcTx => FRAME_DC_TX,
            OutPort::WanTx => FRAME_WAN_TX,
        }
    }
    pub fn parsed(port: InPort) -> u32 {
        match port {
            InPort::DcRx => PARSED_DC_RX,
            InPort::WanRx => PARSED_WAN_RX,
        }
    }
    pub fn drained(port: InPort) -> u32 {
        match port {
            InPort::DcRx => DRAINED_DC_RX,
            InPort::WanRx => DRAINED_WAN_RX,
        }
    }
    pub fn accepted(port: InPort) -> u32 {
        match port {
            InPort::DcRx => ACCEPTED_DC_RX,
            InPort::WanRx => ACCEPTED_WAN_RX,
        }
    }
    pub fn beat_in(port: InPort) -> u32 {
        match port {
            InPort::DcRx => BEAT_DC_RX,
            InPort::WanRx => BEAT_WAN_RX,
        }
    }
    pub fn first_beat_in(port: InPort) -> u32 {
        match port {
            InPort::DcRx => FIRST_BEAT_DC_RX,
            InPort::WanRx => FIRST_BEAT_WAN_RX,
        }
    }
    pub fn beat_out(port: OutPort) -> u32 {
        match port {
            OutPort::DcTx => BEAT_DC_TX,
            OutPort::WanTx => BEAT_WAN_TX,
        }
    }
    pub fn first_beat_out(port: OutPort) -> u32 {
        match port {
            OutPort::DcTx => FIRST_BEAT_DC_TX,
            OutPort::WanTx => FIRST_BEAT_WAN_TX,
        }
    }
}

/// A frame a sink collected, with the clocks of its first and last beat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFrame {
    pub data: Vec<u8>,
    pub user: bool,
    pub start_cycle: u64,
    pub end_cycle: u64,
}

/// A frame a source delivered: the clocks its first and last beat entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcceptedFrame {
    pub start_cycle: u64,
    pub end_cycle: u64,
}

/// A parser result and the clock in which `*_hdr_valid` was high.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedAt {
    pub header: ParsedHeader,
    pub cycle: u64,
}

/// Why the bench refused or failed something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// The operation needs quiet streams and an idle CSR master.
    Busy(&'static str),
    /// The streams did not drain within the clock budget.
    Timeout { cycles: u64 },
    /// The RTL and the reference model disagree.
    Mismatch(Box<Mismatch>),
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Busy(what) => write!(f, "{what}"),
            BenchError::Timeout { cycles } => {
                write!(
                    f,
                    "the gateway did not drain within {cycles} clocks (wedged pipeline?)"
                )
            }
            BenchError::Mismatch(m) => write!(f, "RTL and model differ: {m}"),
        }
    }
}

impl std::error::Error for BenchError {}

#[derive(Default)]
struct Source {
    beats: VecDeque<Beat>,
    /// Frames pushed and frames whose last beat was accepted.
    frames_pushed: u64,
    frames_accepted: u64,
    /// `tvalid` is up with the front beat (it must stay until taken).
    presenting: bool,
    /// The model's `tvalid` input is high.
    valid_high: bool,
    /// The model's `tdata`.. inputs hold a beat that was already taken.
    stale: bool,
    frame_start_cycle: Option<u64>,
    accepted: VecDeque<AcceptedFrame>,
    pause: Pause,
}

struct Sink {
    partial: Vec<u8>,
    start_cycle: Option<u64>,
    frames: VecDeque<OutputFrame>,
    frames_received: u64,
    /// What `tready` holds now.
    ready: bool,
    pause: Pause,
}

#[derive(Clone, Copy, Debug)]
enum CsrKind {
    Read,
    Write(u32),
}

#[derive(Clone, Copy, Debug)]
struct CsrOp {
    id: u64,
    offset: u32,
    kind: CsrKind,
}

struct CsrActive {
    op: CsrOp,
    /// AW (write) or AR (read) handshake done.
    addr_done: bool,
    /// W handshake done (writes).
    data_done: bool,
    cycles: u32,
}

/// Clocks a CSR access may take before it counts as hung (as `Gateway`'s).
const CSR_TIMEOUT_CYCLES: u32 = 64;

/// The gateway with its sources, sinks, monitors and CSR master. The bench
/// owns its gateway (`Bench<Gateway>`) or borrows one (`Bench<&mut Gateway>`).
pub struct Bench<G: BorrowMut<Gateway> = Gateway> {
    gw: G,
    sources: [Source; 2],
    sinks: [Sink; 2],
    parsed: [VecDeque<ParsedAt>; 2],
    parsed_count: [u64; 2],
    /// Keep parser results and input timings (off for long benchmarks).
    pub record: bool,
    csr_queue: VecDeque<CsrOp>,
    csr_active: Option<CsrActive>,
    csr_results: HashMap<u64, Result<u32, CsrError>>,
    next_csr_id: u64,
}

fn in_index(port: InPort) -> usize {
    port as usize
}

fn out_index(port: OutPort) -> usize {
    port as usize
}

impl Bench<Gateway> {
    /// A fresh, reset gateway; `trace` names a VCD file to write.
    pub fn new(trace: Option<&std::path::Path>) -> std::io::Result<Self> {
        let gw = match trace {
            Some(path) => Gateway::with_trace(path)?,
            None => Gateway::new(),
        };
        Ok(Bench::around(gw))
    }
}

impl<G: BorrowMut<Gateway>> Bench<G> {
    /// A bench around a gateway (owned or borrowed) in any state: inputs are
    /// set idle and outputs ready, as the bench's sources and sinks start.
    pub fn around(mut gw: G) -> Self {
        for port in InPort::ALL {
            gw.borrow_mut().drive(port, None);
        }
        for port in OutPort::ALL {
            gw.borrow_mut().set_ready(port, true);
        }
        let sink = || Sink {
            partial: Vec::new(),
            start_cycle: None,
            frames: VecDeque::new(),
            frames_received: 0,
            ready: true,
            pause: Pause::Never,
        };
        Bench {
            gw,
            sources: [Source::default(), Source::default()],
            sinks: [sink(), sink()],
            parsed: [VecDeque::new(), VecDeque::new()],
            parsed_count: [0; 2],
            record: true,
            csr_queue: VecDeque::new(),
            csr_active: None,
            csr_results: HashMap::new(),
            next_csr_id: 0,
        }
    }

    /// The model handle, for direct port access between clocks.
    pub fn gateway(&mut self) -> &mut Gateway {
        self.gw.borrow_mut().borrow_mut()
    }

    /// The gateway, given back.
    pub fn into_gateway(self) -> G {
        self.gw
    }

    /// Clocks since the model was created.
    pub fn cycle(&self) -> u64 {
        self.gw.borrow().cycle()
    }

    /// Holds reset for four clocks and empties every stream queue (frames
    /// queued, half-sent or half-received are dropped).
    pub fn reset(&mut self) -> Result<(), BenchError> {
        if self.csr_active.is_some() || !self.csr_queue.is_empty() {
            return Err(BenchError::Busy("reset with CSR accesses in flight"));
        }
        for s in &mut self.sources {
            s.frames_pushed -= s.beats.iter().filter(|b| b.last).count() as u64;
            s.beats.clear();
            s.presenting = false;
            s.valid_high = false;
            s.frame_start_cycle = None;
        }
        for k in &mut self.sinks {
            k.partial.clear();
            k.start_cycle = None;
        }
        self.gw.borrow_mut().reset();
        Ok(())
    }

    /// Holds reset for four clocks like [`Bench::reset`], but the bench
    /// keeps clocking through the reset and the flow table's flush
    /// ([`cngw_sim::FLOW_TABLE_FLUSH_CLOCKS`]): the sinks keep sampling the
    /// outputs with their pause patterns, so a beat the gateway lets out
    /// during or after the reset is collected, not lost. Queued input beats
    /// are dropped (a frame half-way in is cut) and half-received output
    /// frames are discarded. Returns the clock in which reset was released,
    /// clock 0 of the gateway's time base (`Gateway::reset_released_at`
    /// of a plain reset).
    pub fn reset_watched(&mut self) -> Result<u64, BenchError> {
        if self.csr_active.is_some() || !self.csr_queue.is_empty() {
            return Err(BenchError::Busy("reset with CSR accesses in flight"));
        }
        for (port, s) in InPort::ALL.into_iter().zip(&mut self.sources) {
            s.frames_pushed -= s.beats.iter().filter(|b| b.last).count() as u64;
            s.beats.clear();
            s.presenting = false;
            s.valid_high = false;
            s.frame_start_cycle = None;
            self.gw.borrow_mut().drive(port, None);
        }
        self.set("reset", 1);
        for _ in 0..4 {
            self.clock();
        }
        // What was half-received, before the reset or in its first clock
        // (the gateway registers `reset` once), is not a frame.
        for k in &mut self.sinks {
            k.partial.clear();
            k.start_cycle = None;
        }
        self.set("reset", 0);
        // As `Gateway::reset`: the gateway registers `reset` once.
        let released = self.cycle() + 1;
        for _ in 0..cngw_sim::FLOW_TABLE_FLUSH_CLOCKS {
            self.clock();
        }
        Ok(released)
    }

    /// Queues raw beats on an input (`tkeep` as given, holes included): what
    /// [`Bench::push_frame`] does with the packed beats of a frame. Each beat
    /// with `last` set ends a frame.
    pub fn push_beats(&mut self, port: InPort, beats: &[Beat]) -> u64 {
        let s = &mut self.sources[in_index(port)];
        s.beats.extend(beats.iter().cloned());
        s.frames_pushed += beats.iter().filter(|b| b.last).count() as u64;
        s.frames_pushed
    }

    /// Queues a frame on an input; returns how many frames were ever queued
    /// there (this frame's 1-based number).
    pub fn push_frame(&mut self, port: InPort, data: &[u8], user: bool) -> u64 {
        let s = &mut self.sources[in_index(port)];
        s.beats.extend(frame_to_beats(data, user));
        if !data.is_empty() {
            s.frames_pushed += 1;
        }
        s.frames_pushed
    }

    /// Frames queued on an input whose last beat was not accepted yet.
    pub fn frames_pending(&self, port: InPort) -> u64 {
        let s = &self.sources[in_index(port)];
        s.frames_pushed - s.frames_accepted
    }

    /// Frames whose last beat an input accepted, since creation.
    pub fn frames_accepted(&self, port: InPort) -> u64 {
        self.sources[in_index(port)].frames_accepted
    }

    /// Frames collected on an output, since creation.
    pub fn frames_received(&self, port: OutPort) -> u64 {
        self.sinks[out_index(port)].frames_received
    }

    /// Parser results reported on an input, since creation.
    pub fn parsed_count(&self, port: InPort) -> u64 {
        self.parsed_count[in_index(port)]
    }

    /// Idle pattern of an input's source.
    pub fn source_pause(&mut self, port: InPort) -> &mut Pause {
        &mut self.sources[in_index(port)].pause
    }

    /// Backpressure pattern of an output's sink.
    pub fn sink_pause(&mut self, port: OutPort) -> &mut Pause {
        &mut self.sinks[out_index(port)].pause
    }

    /// Takes up to `max` collected frames of an output, oldest first.
    pub fn take_frames(&mut self, port: OutPort, max: usize) -> Vec<OutputFrame> {
        let q = &mut self.sinks[out_index(port)].frames;
        let n = max.min(q.len());
        q.drain(..n).collect()
    }

    /// Collected frames of an output not taken yet.
    pub fn frames_waiting(&self, port: OutPort) -> usize {
        self.sinks[out_index(port)].frames.len()
    }

    /// Takes up to `max` recorded parser results of an input.
    pub fn take_parsed(&mut self, port: InPort, max: usize) -> Vec<ParsedAt> {
        let q = &mut self.parsed[in_index(port)];
        let n = max.min(q.len());
        q.drain(..n).collect()
    }

    /// Recorded parser results of an input not taken yet.
    pub fn parsed_waiting(&self, port: InPort) -> usize {
        self.parsed[in_index(port)].len()
    }

    /// Takes up to `max` recorded input timings of an input.
    pub fn take_accepted(&mut self, port: InPort, max: usize) -> Vec<AcceptedFrame> {
        let q = &mut self.sources[in_index(port)].accepted;
        let n = max.min(q.len());
        q.drain(..n).collect()
    }

    /// Queues a CSR read; the result appears under the returned id.
    pub fn submit_csr_read(&mut self, offset: u32) -> u64 {
        self.submit_csr(offset, CsrKind::Read)
    }

    /// Queues a CSR write; the result appears under the returned id.
    pub fn submit_csr_write(&mut self, offset: u32, value: u32) -> u64 {
        self.submit_csr(offset, CsrKind::Write(value))
    }

    fn submit_csr(&mut self, offset: u32, kind: CsrKind) -> u64 {
        self.next_csr_id += 1;
        self.csr_queue.push_back(CsrOp {
            id: self.next_csr_id,
            offset,
            kind,
        });
        self.next_csr_id
    }

    /// The result of a finished CSR access (a read's data, 0 for a write),
    /// removed from the bench; `None` while it is still queued or running.
    pub fn take_csr_result(&mut self, id: u64) -> Option<Result<u32, CsrError>> {
        self.csr_results.remove(&id)
    }

    /// A CSR read that clocks the bench (streams keep running) until done.
    pub fn csr_read(&mut self, offset: u32) -> Result<u32, CsrError> {
        let id = self.submit_csr_read(offset);
        self.wait_csr(id)
    }

    /// A CSR write that clocks the bench (streams keep running) until done.
    pub fn csr_write(&mut self, offset: u32, value: u32) -> Result<(), CsrError> {
        let id = self.submit_csr_write(offset, value);
        self.wait_csr(id).map(|_| ())
    }

    fn wait_csr(&mut self, id: u64) -> Result<u32, CsrError> {
        loop {
            if let Some(r) = self.take_csr_result(id) {
                return r;
            }
            self.run(u64::MAX, event::CSR_DONE);
        }
    }

    /// Runs up to `cycles` clocks; stops after the first clock in which an
    /// event of `until` happened. Returns the clocks run and every event seen.
    pub fn run(&mut self, cycles: u64, until: u32) -> (u64, u32) {
        self.run_with(cycles, until, [1, 1])
    }

    /// [`Bench::run`] where a frame event of an output only stops the run
    /// once that output holds `min_waiting[port]` collected frames (a wait
    /// for many frames wakes its caller once, not once per frame).
    pub fn run_with(&mut self, cycles: u64, until: u32, min_waiting: [usize; 2]) -> (u64, u32) {
        let mut seen = 0;
        for n in 1..=cycles {
            let mut ev = self.clock();
            seen |= ev;
            for port in OutPort::ALL {
                let flag = event::frame(port);
                if ev & flag != 0 && self.frames_waiting(port) < min_waiting[out_index(port)] {
                    ev &= !flag;
                }
            }
            if ev & until != 0 {
                return (n, seen);
            }
        }
        (cycles, seen)
    }

    /// True when nothing is queued on a source or the CSR master.
    pub fn inputs_empty(&self) -> bool {
        self.sources.iter().all(|s| s.beats.is_empty())
            && self.csr_queue.is_empty()
            && self.csr_active.is_none()
    }

    /// Runs until every source is empty and nothing moved for `quiet`
    /// clocks (the pipeline drained). Returns the clocks run.
    pub fn run_until_drained(&mut self, max_cycles: u64, quiet: u32) -> Result<u64, BenchError> {
        let mut still = 0;
        match self.drain(max_cycles, quiet, &mut still) {
            (n, true) => Ok(n),
            _ => Err(BenchError::Timeout { cycles: max_cycles }),
        }
    }

    /// Resumable [`Bench::run_until_drained`]: runs up to `cycles` clocks,
    /// `still` carries the quiet clocks counted so far across calls.
    /// Returns the clocks run and whether the bench drained.
    pub fn drain(&mut self, cycles: u64, quiet: u32, still: &mut u32) -> (u64, bool) {
        for n in 1..=cycles {
            let ev = self.clock();
            if ev & event::ACTIVITY != 0 || !self.inputs_empty() {
                *still = 0;
            } else {
                *still += 1;
                if *still >= quiet {
                    return (n, true);
                }
            }
        }
        (cycles, false)
    }

    /// One clock of sources, sinks, monitors and CSR master; returns events.
    pub fn clock(&mut self) -> u32 {
        let cycle = self.gw.borrow().cycle();
        let mut ev = 0u32;

        for port in InPort::ALL {
            let s = &mut self.sources[in_index(port)];
            let paused = s.pause.pause_this_clock();
            if !s.presenting && !paused && !s.beats.is_empty() {
                s.presenting = true;
            }
            if s.presenting {
                if !s.valid_high || s.stale {
                    self.gw.borrow_mut().drive(port, s.beats.front());
                    s.valid_high = true;
                    s.stale = false;
                }
            } else if s.valid_high {
                self.gw.borrow_mut().drive(port, None);
                s.valid_high = false;
            }
        }
        for port in OutPort::ALL {
            let k = &mut self.sinks[out_index(port)];
            let ready = !k.pause.pause_this_clock();
            if ready != k.ready {
                self.gw.borrow_mut().set_ready(port, ready);
                k.ready = ready;
            }
        }
        let csr_sample = self.csr_drive();

        for port in InPort::ALL {
            let s = &mut self.sources[in_index(port)];
            if s.presenting && self.gw.borrow_mut().ready(port) {
                let beat = s.beats.pop_front().expect("a presented beat");
                s.presenting = false;
                // The next beat (if any) differs: drive it afresh.
                s.stale = true;
                ev |= event::ACTIVITY | event::beat_in(port);
                if s.frame_start_cycle.is_none() {
                    ev |= event::first_beat_in(port);
                }
                let start = *s.frame_start_cycle.get_or_insert(cycle);
                if beat.last {
                    s.frames_accepted += 1;
                    s.frame_start_cycle = None;
                    ev |= event::accepted(port);
                    if self.record {
                        s.accepted.push_back(AcceptedFrame {
                            start_cycle: start,
                            end_cycle: cycle,
                        });
                    }
                }
                if s.beats.is_empty() {
                    ev |= event::drained(port);
                }
            }
        }
        for port in OutPort::ALL {
            let k = &mut self.sinks[out_index(port)];
            if !k.ready {
                continue;
            }
            if let Some(beat) = self.gw.borrow_mut().output(port) {
                ev |= event::ACTIVITY | event::beat_out(port);
                if k.start_cycle.is_none() {
                    ev |= event::first_beat_out(port);
                }
                let start = *k.start_cycle.get_or_insert(cycle);
                append_packed(&mut k.partial, &beat);
                if beat.last {
                    let size = k.partial.len();
                    k.frames.push_back(OutputFrame {
                        data: std::mem::replace(&mut k.partial, Vec::with_capacity(size)),
                        user: beat.user,
                        start_cycle: start,
                        end_cycle: cycle,
                    });
                    k.start_cycle = None;
                    k.frames_received += 1;
                    ev |= event::frame(port);
                }
            }
        }
        for port in InPort::ALL {
            if let Some(header) = self.gw.borrow_mut().parsed(port) {
                ev |= event::parsed(port) | event::ACTIVITY;
                self.parsed_count[in_index(port)] += 1;
                if self.record {
                    self.parsed[in_index(port)].push_back(ParsedAt { header, cycle });
                }
            }
        }

        self.gw.borrow_mut().step();
        if let Some(sample) = csr_sample {
            ev |= self.csr_after_edge(sample);
        }
        ev
    }

    fn set(&mut self, name: &str, value: u32) {
        self.gw
            .borrow_mut()
            .set_port(name, &[value])
            .expect("AXI4-Lite port of the gateway");
    }

    fn get(&mut self, name: &str) -> u32 {
        self.gw
            .borrow_mut()
            .get_port(name)
            .expect("AXI4-Lite port of the gateway")[0]
    }

    fn csr_idle(&mut self) {
        for name in [
            "s_axil_awvalid",
            "s_axil_wvalid",
            "s_axil_arvalid",
            "s_axil_bready",
            "s_axil_rready",
        ] {
            self.set(name, 0);
        }
    }

    /// Starts the next CSR access if none runs, drives and samples the
    /// running one before the edge.
    fn csr_drive(&mut self) -> Option<CsrSample> {
        if self.csr_active.is_none() {
            let op = self.csr_queue.pop_front()?;
            match op.kind {
                CsrKind::Write(value) => {
                    self.set("s_axil_awaddr", op.offset);
                    self.set("s_axil_wdata", value);
                    self.set("s_axil_wstrb", 0xf);
                    self.set("s_axil_awvalid", 1);
                    self.set("s_axil_wvalid", 1);
                    self.set("s_axil_bready", 1);
                }
                CsrKind::Read => {
                    self.set("s_axil_araddr", op.offset);
                    self.set("s_axil_arvalid", 1);
                    self.set("s_axil_rready", 1);
                }
            }
            self.csr_active = Some(CsrActive {
                op,
                addr_done: false,
                data_done: false,
                cycles: 0,
            });
        }
        let (kind, addr_done, data_done) = {
            let a = self.csr_active.as_ref().expect("a running CSR access");
            (a.op.kind, a.addr_done, a.data_done)
        };
        Some(match kind {
            CsrKind::Write(_) => CsrSample {
                addr_fire: !addr_done && self.get("s_axil_awready") & 1 == 1,
                data_fire: !data_done && self.get("s_axil_wready") & 1 == 1,
                response: self.get("s_axil_bvalid") & 1 == 1,
                resp: self.get("s_axil_bresp"),
                data: 0,
            },
            CsrKind::Read => CsrSample {
                addr_fire: !addr_done && self.get("s_axil_arready") & 1 == 1,
                data_fire: false,
                response: self.get("s_axil_rvalid") & 1 == 1,
                resp: self.get("s_axil_rresp"),
                data: self.get("s_axil_rdata"),
            },
        })
    }

    fn csr_after_edge(&mut self, s: CsrSample) -> u32 {
        let mut a = self.csr_active.take().expect("a running CSR access");
        a.addr_done |= s.addr_fire;
        a.data_done |= s.data_fire;
        a.cycles += 1;
        let write = matches!(a.op.kind, CsrKind::Write(_));
        if s.addr_fire {
            self.set(
                if write {
                    "s_axil_awvalid"
                } else {
                    "s_axil_arvalid"
                },
                0,
            );
        }
        if s.data_fire {
            self.set("s_axil_wvalid", 0);
        }
        let offset = a.op.offset;
        let done = s.response && a.addr_done && (a.data_done || !write);
        let result = if done {
            Some(match s.resp {
                0 | 1 => Ok(s.data),
                2 => Err(CsrError::SlaveError { offset }),
                _ => Err(CsrError::DecodeError { offset }),
            })
        } else if a.cycles >= CSR_TIMEOUT_CYCLES {
            Some(Err(CsrError::Timeout { offset }))
        } else {
            None
        };
        match result {
            Some(r) => {
                self.csr_idle();
                self.csr_results.insert(a.op.id, r);
                event::CSR_DONE | event::ACTIVITY
            }
            None => {
                self.csr_active = Some(a);
                0
            }
        }
    }

    /// Runs `inputs` through the RTL (with random idle and backpressure) and
    /// the reference `model`, and checks they agree frame for frame, parser
    /// result for parser result and counter for counter (the Rust
    /// scoreboard). The streams must be quiet: the scoreboard drives them.
    pub fn check(
        &mut self,
        model: &mut GatewayModel,
        inputs: &[(InPort, Vec<Frame>)],
        opts: StreamOptions,
    ) -> Result<Capture, BenchError> {
        if !self.inputs_empty() || self.sinks.iter().any(|k| !k.partial.is_empty()) {
            return Err(BenchError::Busy(
                "check needs quiet streams: run until drained first",
            ));
        }
        let result = crate::check(self.gw.borrow_mut().borrow_mut(), model, inputs, opts);
        // The scoreboard leaves every input idle and every output ready.
        for s in &mut self.sources {
            s.presenting = false;
            s.valid_high = false;
        }
        for k in &mut self.sinks {
            k.ready = true;
        }
        result.map_err(|m| BenchError::Mismatch(Box::new(m)))
    }

    /// Flushes the VCD file, if tracing.
    pub fn flush_trace(&mut self) {
        self.gw.borrow_mut().flush_trace();
    }
}

/// `append_beat` with a fast path for the usual packed beat (`tkeep` a run
/// of ones from lane 0).
#[inline]
fn append_packed(frame: &mut Vec<u8>, beat: &Beat) {
    let lanes = beat.keep.trailing_ones() as usize;
    if lanes == 64 || beat.keep >> lanes == 0 {
        frame.extend_from_slice(&beat.data[..lanes]);
    } else {
        append_beat(frame, beat);
    }
}

struct CsrSample {
    addr_fire: bool,
    data_fire: bool,
    response: bool,
    resp: u32,
    data: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_regmap::offset;

    fn frames(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                (0..(40 + 13 * i) as u32)
                    .map(|b| (b * 7 + i as u32) as u8)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn hw_03_bench_forwards_both_directions_under_idle_and_backpressure() {
        let mut b = Bench::new(None).unwrap();
        *b.source_pause(InPort::DcRx) = Pause::repeat(vec![true, true, true, false]);
        *b.sink_pause(OutPort::WanTx) = Pause::random(0.5, 3);
        *b.source_pause(InPort::WanRx) = Pause::random(0.3, 4);
        *b.sink_pause(OutPort::DcTx) = Pause::repeat(vec![false, true]);
        let sent = frames(40);
        for f in &sent {
            b.push_frame(InPort::DcRx, f, false);
            b.push_frame(InPort::WanRx, f, true);
        }
        b.run_until_drained(1_000_000, 64).unwrap();
        let wan: Vec<OutputFrame> = b.take_frames(OutPort::WanTx, usize::MAX);
        let dc: Vec<OutputFrame> = b.take_frames(OutPort::DcTx, usize::MAX);
        assert_eq!(wan.iter().map(|f| f.data.clone()).collect::<Vec<_>>(), sent);
        assert_eq!(dc.iter().map(|f| f.data.clone()).collect::<Vec<_>>(), sent);
        assert!(wan.iter().all(|f| !f.user) && dc.iter().all(|f| f.user));
        assert_eq!(b.parsed_count(InPort::DcRx), 40);
        assert_eq!(b.frames_pending(InPort::DcRx), 0);
    }

    #[test]
    fn hw_03_bench_stops_on_the_event_it_waits_for() {
        let mut b = Bench::new(None).unwrap();
        b.push_frame(InPort::DcRx, &[0x55; 64], false);
        let (n, seen) = b.run(1_000, event::FRAME_WAN_TX);
        assert!(seen & event::FRAME_WAN_TX != 0);
        let f = b.take_frames(OutPort::WanTx, 1);
        // One beat in, two clocks of latency: out in the third clock.
        assert_eq!(
            f[0].end_cycle - b.take_accepted(InPort::DcRx, 1)[0].end_cycle,
            2
        );
        assert_eq!(n, 3);
    }

    #[test]
    fn hw_03_bench_waits_for_many_frames_in_one_run() {
        let mut b = Bench::new(None).unwrap();
        for f in frames(30) {
            b.push_frame(InPort::WanRx, &f, false);
        }
        let (_, seen) = b.run_with(100_000, event::FRAME_DC_TX, [30, 1]);
        assert!(seen & event::FRAME_DC_TX != 0);
        assert_eq!(
            b.frames_waiting(OutPort::DcTx),
            30,
            "stopped at the 30th frame, not the 1st"
        );
    }

    #[test]
    fn hw_03_bench_csr_runs_alongside_streams() {
        let mut b = Bench::new(None).unwrap();
        for f in frames(20) {
            b.push_frame(InPort::WanRx, &f, false);
        }
        assert_eq!(b.csr_read(offset::ID), Ok(cngw_regmap::DEVICE_ID));
        b.csr_write(offset::SCRATCH, 0x1234_5678).unwrap();
        assert_eq!(b.csr_read(offset::SCRATCH), Ok(0x1234_5678));
        assert_eq!(
            b.csr_write(offset::ID, 1),
            Err(CsrError::SlaveError { offset: offset::ID })
        );
        assert_eq!(
            b.csr_read(0xffc),
            Err(CsrError::DecodeError { offset: 0xffc })
        );
        b.run_until_drained(100_000, 64).unwrap();
        assert_eq!(b.frames_received(OutPort::DcTx), 20);
        assert_eq!(b.csr_read(offset::WAN_RX_FRAMES), Ok(20));
    }

    #[test]
    fn hw_03_bench_scoreboard_agrees_after_bench_traffic() {
        let mut b = Bench::new(None).unwrap();
        let mut model = GatewayModel::new();
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(5);
        let mix = crate::traffic::random_mix(&mut rng, 50);
        for f in &mix {
            b.push_frame(InPort::DcRx, &f.data, f.user);
            model.receive(InPort::DcRx, f);
        }
        b.run_until_drained(100_000, 64).unwrap();
        let more = crate::traffic::random_mix(&mut rng, 50);
        b.check(
            &mut model,
            &[(InPort::WanRx, more)],
            StreamOptions::random(0.2, 0.2, 1),
        )
        .unwrap();
    }
}
