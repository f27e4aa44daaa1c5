//! The congestion-aware node in the loop ([`LoopGateway`]): the gateway's
//! reference model ([`ModelLoop`], the default, for long runs) or, in the
//! `cngw` tool, the Verilated RTL of the gateway. Both see the same
//! things at the same clocks, so a short scenario run with each gives the
//! same notifications (the cross-check of issue 8).
//!
//! ## Clocks
//!
//! The engine counts gateway clocks from the start of the scenario
//! (`clock = t_ns * CLOCKS_PER_US / 1000`). A node maps its clock `c` to
//! its own absolute clock `LOOP_START + c` after reset release: the RTL
//! spends the first [`LOOP_START`] clocks on its configuration (register
//! writes, flow-table inserts), and the model counts from the same origin,
//! so the windows of the second level (observation window, growth
//! interval, flow interval) fall on the same clocks in both.
//!
//! ## The data path
//!
//! A frame offered at clock `c` enters dc_rx at `max(c, end of the frame
//! before)`, one beat per clock (64 bytes), as the RTL's input takes it;
//! its header is parsed [`HEADER_AFTER_LAST_BEAT`] clocks after its last
//! beat entered (the input's skid buffer, then the parser), and the second
//! level decides [`DECISION_DELAY`] clocks later. The telemetry input
//! takes a depth from the clock it is driven in.
//!
//! One dc_rx port carries 512 bits per clock (165 Gb/s at 322 MHz). The
//! scenarios offer the packets of every sender as they reach the queue,
//! up to the data-centre fabric's aggregate rate: more than one port. The
//! RTL queues them at its input; [`ModelLoop::new`] does not (every frame
//! enters at the clock it is offered, as with a port per sender), so long
//! model runs see the queue as it builds. [`ModelLoop::timed_as_rtl`]
//! queues them as the RTL does, for the cross-check.
//!
//! A notification's clock is the clock its first beat leaves on dc_tx. The
//! model decides in a clock; the RTL's frame builder puts the first beat
//! out [`MODEL_NOTIFY_LATENCY`] clocks later when it is idle, Resumes
//! included, and takes a job every 11 to 14 clocks. [`ModelLoop`] reports that clock.

use crate::longhaul::{DECISION_DELAY, QUEUE_DEPTH_DELAY};
use crate::{Frame, GatewayModel, InPort};

/// Clocks between reset release and the scenario's clock 0.
pub const LOOP_START: u64 = 131_072;

/// Clocks from a notification's decision to its first beat on dc_tx, when
/// the frame builder is idle (the RTL's; `cngw bench --notify` reports the
/// whole path: 18 clocks from a frame's last beat on dc_rx).
pub const MODEL_NOTIFY_LATENCY: u64 = 11;

/// The microsecond after reset in which the configuration of the second
/// level takes effect, in both nodes (see [`LoopGateway::write_register`]).
pub const CONFIG_US: u64 = 100;

/// Clocks into that microsecond at which the RTL's write lands.
pub const CONFIG_CLOCK_IN_US: u64 = 12;

/// Clocks from a dc_rx frame's last beat at the port to its parsed header
/// (`dc_hdr_valid`): the input skid buffer's clock and the parser's.
pub const HEADER_AFTER_LAST_BEAT: u64 = 2;

/// Clocks between two jobs of the frame builder (`cngw bench --notify`,
/// docs/performance.md): 11 for the ICMPv6 format, 14 for frames of three
/// beats, 12 for the others.
fn builder_period(frame: &cngw_packet::frame::Frame, len: usize) -> u64 {
    if frame.icmpv6().is_some() {
        11
    } else if len > 2 * BEAT_BYTES as usize {
        14
    } else {
        12
    }
}

/// A notification that left on dc_tx: the scenario clock of its first
/// beat, and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopNotification {
    pub clock: u64,
    pub frame: Vec<u8>,
}

/// The gateway as the scenario engine drives it. Clocks are scenario
/// clocks (see the module docs) and never go back.
pub trait LoopGateway {
    /// Sets a register (configuration, before clock 0). The configuration
    /// takes effect in microsecond [`CONFIG_US`] after reset: the Resume
    /// timer (LH-09) restarts in every clock the feature is off, so it
    /// counts from the enable; the windows count on across a write of
    /// their length, so they fall on the model's grid (multiples of the
    /// length since reset) only when written at a multiple of their reset
    /// length (100 us).
    fn write_register(&mut self, offset: u32, value: u32) -> Result<(), String>;
    /// Reads a register (configuration, before clock 0).
    fn read_register(&mut self, offset: u32) -> Result<u32, String>;
    /// Time passes up to `clock`: everything due before it happens.
    fn advance_to(&mut self, clock: u64);
    /// A frame is offered to dc_rx at `clock`.
    fn receive(&mut self, frame: &[u8], clock: u64);
    /// The telemetry input takes `bytes` from `clock`.
    fn set_queue_depth(&mut self, bytes: u32, clock: u64);
    /// The notifications that left on dc_tx up to the last
    /// [`advance_to`](LoopGateway::advance_to), oldest first (taken).
    fn take_notifications(&mut self) -> Vec<LoopNotification>;
}

/// A borrowed node, so that its owner can look at it after the run.
impl<T: LoopGateway + ?Sized> LoopGateway for &mut T {
    fn write_register(&mut self, offset: u32, value: u32) -> Result<(), String> {
        (**self).write_register(offset, value)
    }
    fn read_register(&mut self, offset: u32) -> Result<u32, String> {
        (**self).read_register(offset)
    }
    fn advance_to(&mut self, clock: u64) {
        (**self).advance_to(clock)
    }
    fn receive(&mut self, frame: &[u8], clock: u64) {
        (**self).receive(frame, clock)
    }
    fn set_queue_depth(&mut self, bytes: u32, clock: u64) {
        (**self).set_queue_depth(bytes, clock)
    }
    fn take_notifications(&mut self) -> Vec<LoopNotification> {
        (**self).take_notifications()
    }
}

/// Bytes per beat of the 512-bit data path.
const BEAT_BYTES: u64 = 64;

/// Beats a frame of `len` bytes takes on the 512-bit data path.
pub fn beats(len: usize) -> u64 {
    (len as u64).div_ceil(BEAT_BYTES).max(1)
}

enum Pending {
    /// The second level sees a depth (driven at this absolute clock).
    Depth(u32, u64),
    /// A dc_rx frame with its absolute header clock.
    Frame(Vec<u8>, u64),
}

/// The reference model in the loop, timed as the RTL.
pub struct ModelLoop {
    model: GatewayModel,
    /// dc_rx takes one frame at a time (the RTL's timing).
    serialize: bool,
    /// The first register write was seen.
    configuring: bool,
    /// The clock dc_rx is free from (absolute).
    rx_free: u64,
    /// Events not given to the model yet, with their order key (the clock
    /// from which nothing can come before them) and arrival order.
    pending: Vec<(u64, u64, Pending)>,
    seq: u64,
    /// The clock the frame builder takes its next job from (absolute).
    tx_free: u64,
    out: Vec<LoopNotification>,
}

impl Default for ModelLoop {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelLoop {
    /// The model; every frame enters dc_rx at the clock it is offered.
    pub fn new() -> Self {
        Self::with_input_queue(false)
    }

    /// The model with the RTL's one-frame-at-a-time dc_rx.
    pub fn timed_as_rtl() -> Self {
        Self::with_input_queue(true)
    }

    fn with_input_queue(serialize: bool) -> Self {
        let mut model = GatewayModel::new();
        model.set_reset_clock(0);
        ModelLoop {
            model,
            serialize,
            configuring: false,
            rx_free: 0,
            pending: Vec::new(),
            seq: 0,
            tx_free: 0,
            out: Vec::new(),
        }
    }

    /// The model, for what the loop does not cover.
    pub fn model(&mut self) -> &mut GatewayModel {
        &mut self.model
    }

    fn push(&mut self, key: u64, p: Pending) {
        self.seq += 1;
        self.pending.push((key, self.seq, p));
    }

    /// Gives the model every event keyed before `limit` (absolute), in
    /// the order the RTL meets them: by key, depths first within a clock
    /// (a depth reaches the controller `QUEUE_DEPTH_DELAY` clocks after it
    /// is driven, a frame is decided `DECISION_DELAY` clocks after its
    /// header).
    fn release(&mut self, limit: u64) {
        self.pending
            .sort_by_key(|(k, s, p)| (*k, matches!(p, Pending::Frame(..)), *s));
        let n = self.pending.partition_point(|(k, _, _)| *k < limit);
        for (_, _, p) in self.pending.drain(..n) {
            match p {
                Pending::Depth(bytes, at) => self.model.controller_depth_changed(bytes, at),
                Pending::Frame(data, header) => {
                    self.model
                        .receive_at(InPort::DcRx, &Frame::new(data), Some(header));
                }
            }
        }
        self.model.advance_to(limit);
        for n in self.model.take_notifications() {
            let len = n.frame.data.len();
            let period = match cngw_packet::frame::Frame::parse(&n.frame.data) {
                Ok(f) => builder_period(&f, len),
                Err(_) => 12,
            };
            let start = (n.clock + MODEL_NOTIFY_LATENCY).max(self.tx_free);
            self.tx_free = start + period;
            self.out.push(LoopNotification {
                clock: start - LOOP_START,
                frame: n.frame.data,
            });
        }
    }
}

impl LoopGateway for ModelLoop {
    fn write_register(&mut self, offset: u32, value: u32) -> Result<(), String> {
        if !self.configuring {
            // The configuration takes effect in microsecond CONFIG_US: the
            // model's time passes to there first (with the feature off).
            self.configuring = true;
            let p = self
                .model
                .read_register(cngw_regmap::offset::CLOCKS_PER_US)
                .unwrap_or(1)
                .max(1) as u64;
            self.model.advance_to(CONFIG_US * p + CONFIG_CLOCK_IN_US);
        }
        if self.model.write_register(offset, value) {
            Ok(())
        } else {
            Err(format!("the gateway model refused register {offset:#x}"))
        }
    }

    fn read_register(&mut self, offset: u32) -> Result<u32, String> {
        self.model
            .read_register(offset)
            .ok_or_else(|| format!("the gateway model has no register {offset:#x}"))
    }

    fn advance_to(&mut self, clock: u64) {
        // Nothing offered from `clock` on can be keyed before
        // `clock + LOOP_START - 2` (a depth driven now reaches the
        // controller 3 clocks later, keyed 5 clocks before that).
        let limit = (clock + LOOP_START + QUEUE_DEPTH_DELAY).saturating_sub(DECISION_DELAY);
        self.release(limit);
    }

    fn receive(&mut self, frame: &[u8], clock: u64) {
        let offered = clock + LOOP_START;
        let first = if self.serialize {
            offered.max(self.rx_free)
        } else {
            offered
        };
        let n = beats(frame.len());
        self.rx_free = first + n;
        let header = first + n - 1 + HEADER_AFTER_LAST_BEAT;
        self.push(header, Pending::Frame(frame.to_vec(), header));
    }

    fn set_queue_depth(&mut self, bytes: u32, clock: u64) {
        let at = clock + LOOP_START;
        self.push(
            (at + QUEUE_DEPTH_DELAY).saturating_sub(DECISION_DELAY),
            Pending::Depth(bytes, at),
        );
        self.model.set_marker_depth(bytes);
    }

    fn take_notifications(&mut self) -> Vec<LoopNotification> {
        std::mem::take(&mut self.out)
    }
}
