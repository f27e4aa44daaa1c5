//! `MarkerClock`: the clock at which each dc_rx frame's first beat passed
//! the CE marker, and so which queue depth the marker compared with K_min
//! for that frame (LH-04).
//!
//! ```text
//!  dc_rx ->[dc_in skid]->[CE marker]->[dc_out skid]-> wan_tx
//!            ^ beats in                 beats out ^
//!            (bench events)             (bench events)
//! ```
//! The marker is combinational between two skid buffers
//! (`hdl/src/gateway.rs`), so a beat passes it in the clock in which it
//! leaves the input skid buffer. The state of a skid buffer
//! (`hdl/src/stream/skid_buffer.rs`: an output register and one skid entry)
//! changes only with the handshakes on its two sides, so a shadow of the two
//! buffers, fed with the dc_rx and wan_tx handshakes the bench sees, knows
//! the marker clock of every beat exactly, under idle cycles and
//! backpressure alike. The shadow also predicts every beat that leaves
//! wan_tx and checks it against the bench in every clock: a change of the
//! RTL's dc_rx -> wan_tx pipeline shows as an error, never as a silently
//! wrong clock.
//!
//! The queue depth the marker uses is registered twice (`queue_depth`, then
//! `above_k_min`): a depth driven on `qd_ext_bytes` in clock `c` governs the
//! beats that pass the marker from clock `c + 2` on
//! ([`QUEUE_DEPTH_TO_MARKER_CLOCKS`]).

use crate::bench::event;
use cngw_sim::{InPort, OutPort};
use std::fmt;

/// Clocks from a change of the queue-depth input to the first marker
/// decision that uses it (two registers in `hdl/src/gateway.rs`).
pub const QUEUE_DEPTH_TO_MARKER_CLOCKS: u64 = 2;

/// One beat in the shadow: whether it opens a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Beat {
    first: bool,
}

/// A skid buffer's two entries.
#[derive(Clone, Copy, Debug, Default)]
struct Skid {
    out: Option<Beat>,
    skid: Option<Beat>,
}

impl Skid {
    fn ready(&self) -> bool {
        self.skid.is_none()
    }

    /// One clock: `input` is the beat presented (and taken: `tready` is
    /// high whenever the skid entry is free), `taken` whether the output
    /// beat was taken.
    fn clock(&mut self, input: Option<Beat>, taken: bool) {
        let output_free = taken || self.out.is_none();
        if output_free {
            if self.skid.is_some() {
                self.out = self.skid.take();
            } else {
                self.out = input;
            }
        } else if input.is_some() && self.skid.is_none() {
            self.skid = input;
        }
    }

    fn is_empty(&self) -> bool {
        self.out.is_none() && self.skid.is_none()
    }
}

/// The shadow lost step with the RTL (its picture of the pipeline is wrong).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerClockError {
    /// Clock of the run in which it happened.
    pub cycle: u64,
    pub what: String,
}

impl fmt::Display for MarkerClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "clock {}: {}; the testbench's picture of the dc_rx -> wan_tx pipeline \
             (skid buffer, CE marker, skid buffer) no longer matches the RTL \
             (testbench/src/marker_clock.rs)",
            self.cycle, self.what
        )
    }
}

impl std::error::Error for MarkerClockError {}

/// The shadow of the dc_rx -> wan_tx pipeline, advanced once per clock.
#[derive(Clone, Debug, Default)]
pub struct MarkerClock {
    dc_in: Skid,
    dc_out: Skid,
    first_beats: Vec<u64>,
}

impl MarkerClock {
    pub fn new() -> Self {
        Self::default()
    }

    /// Advances one clock (`cycle`, counted by the caller) with the events
    /// [`crate::Bench::clock`] returned for it.
    pub fn clock(&mut self, cycle: u64, events: u32) -> Result<(), MarkerClockError> {
        let fail = |what: String| Err(MarkerClockError { cycle, what });
        let beat_in = (events & event::beat_in(InPort::DcRx) != 0).then_some(Beat {
            first: events & event::first_beat_in(InPort::DcRx) != 0,
        });
        let beat_out = events & event::beat_out(OutPort::WanTx) != 0;
        if beat_in.is_some() && !self.dc_in.ready() {
            return fail("dc_rx took a beat while its skid buffer was full".into());
        }
        if beat_out {
            match self.dc_out.out {
                None => return fail("a beat left wan_tx that the shadow did not hold".into()),
                Some(b) if b.first != (events & event::first_beat_out(OutPort::WanTx) != 0) => {
                    return fail(format!(
                        "the beat that left wan_tx {} a frame, the shadow's {}",
                        if b.first { "continues" } else { "opens" },
                        if b.first { "opens one" } else { "does not" }
                    ))
                }
                Some(_) => {}
            }
        }
        // The marker's transfer: the input buffer's output, taken when the
        // output buffer's skid entry is free.
        let through = match self.dc_in.out {
            Some(b) if self.dc_out.ready() => Some(b),
            _ => None,
        };
        if let Some(b) = through {
            if b.first {
                self.first_beats.push(cycle);
            }
        }
        self.dc_out.clock(through, beat_out);
        self.dc_in.clock(beat_in, through.is_some());
        Ok(())
    }

    /// The marker clock of every dc_rx frame whose first beat has passed,
    /// in order.
    pub fn first_beat_cycles(&self) -> &[u64] {
        &self.first_beats
    }

    /// No beat between dc_rx and wan_tx.
    pub fn is_empty(&self) -> bool {
        self.dc_in.is_empty() && self.dc_out.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bench, Pause};

    /// Under random idle cycles and backpressure the shadow follows the RTL
    /// clock by clock (it checks every beat that leaves wan_tx) and sees
    /// each frame pass the marker between entering and leaving.
    #[test]
    fn hw_03_marker_clock_follows_the_rtl_under_stalls() {
        for (idle, backpressure, seed) in
            [(0.0, 0.0, 1), (0.3, 0.0, 2), (0.0, 0.5, 3), (0.4, 0.6, 4)]
        {
            let mut b = Bench::new(None).unwrap();
            *b.source_pause(InPort::DcRx) = Pause::random(idle, seed);
            *b.sink_pause(OutPort::WanTx) = Pause::random(backpressure, seed + 100);
            let lens = [60usize, 64, 65, 128, 129, 1000, 64, 200];
            for (i, len) in lens.iter().cycle().take(40).enumerate() {
                b.push_frame(InPort::DcRx, &vec![i as u8; *len], false);
            }
            let mut shadow = MarkerClock::new();
            let start = b.cycle();
            for _ in 0..20_000 {
                let cycle = b.cycle() - start;
                let ev = b.clock();
                shadow.clock(cycle, ev).unwrap();
            }
            assert!(shadow.is_empty());
            let ins = b.take_accepted(InPort::DcRx, usize::MAX);
            let outs = b.take_frames(OutPort::WanTx, usize::MAX);
            let marker = shadow.first_beat_cycles();
            assert_eq!(marker.len(), 40);
            for ((m, i), o) in marker.iter().zip(&ins).zip(&outs) {
                let (m, i, o) = (m + start, i.start_cycle, o.start_cycle);
                assert!(i < m && m < o, "in {i}, marker {m}, out {o}");
                if backpressure == 0.0 {
                    // Nothing waits: one clock in the input register, one in the output's.
                    assert_eq!((m - i, o - m), (1, 1));
                }
            }
        }
    }

    #[test]
    fn hw_03_marker_clock_rejects_a_beat_it_did_not_expect() {
        let mut shadow = MarkerClock::new();
        let err = shadow
            .clock(7, event::BEAT_WAN_TX | event::FIRST_BEAT_WAN_TX)
            .unwrap_err();
        assert_eq!(err.cycle, 7);
        assert!(
            err.to_string().contains("no longer matches the RTL"),
            "{err}"
        );
    }
}
