//! `FrameFilter`: drops whole frames chosen at their first beat, passes the
//! others untouched.
//!
//! ```text
//!            +--------------------------+
//!  s.*   --->|  first beat: drop?       |---> m.*      (pass: combinational)
//!  drop  --->|  yes: take every beat of |---> dropped  (pulse: a frame was dropped,
//!            |  the frame, show none    |               at its first beat)
//!            +--------------------------+
//! ```
//! `drop` is looked at while a frame's first beat is on `s` (it may depend
//! combinationally on that beat, as a header match does). A dropped frame
//! is taken at one beat per clock whatever `m.tready` does, and `m` sees
//! none of its beats; a passed frame goes through with no added latency
//! (`m` is `s`, `s.tready` is `m.tready`). Used on the gateway's wan_rx
//! path for frames addressed to the gateway itself (a Fast CNP to the
//! ingress PE, FCN-05), which must not reach the data-centre side.

use super::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct FrameFilter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink,
    pub m: AxisSource,
    /// With a first beat on `s`: drop this frame.
    pub drop: Signal<In, Bit>,
    /// High for one clock when a dropped frame's first beat is taken.
    pub dropped: Signal<Out, Bit>,
    /// The next beat on `s` is a frame's first.
    first_beat: DFFWithInit<Bit>,
    /// The rest of a dropped frame is being taken.
    dropping: DFF<Bit>,
    now_dropping: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
}

impl Default for FrameFilter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            drop: Default::default(),
            dropped: Default::default(),
            first_beat: DFFWithInit::new(true),
            dropping: Default::default(),
            now_dropping: Default::default(),
            take: Default::default(),
        }
    }
}

impl Logic for FrameFilter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, first_beat, dropping);
        self.now_dropping.next =
            self.dropping.q.val() | (self.first_beat.q.val() & self.drop.val());
        self.m.tdata.next = self.s.tdata.val();
        self.m.tkeep.next = self.s.tkeep.val();
        self.m.tlast.next = self.s.tlast.val();
        self.m.tuser.next = self.s.tuser.val();
        self.m.tvalid.next = self.s.tvalid.val() & !self.now_dropping.val();
        self.s.tready.next = self.m.tready.val() | self.now_dropping.val();
        self.take.next = self.s.tvalid.val() & (self.m.tready.val() | self.now_dropping.val());
        self.dropped.next = self.take.val() & self.first_beat.q.val() & self.drop.val();
        if self.take.val() {
            self.first_beat.d.next = self.s.tlast.val();
            self.dropping.d.next = self.now_dropping.val() & !self.s.tlast.val();
        }
        if self.reset.val() {
            self.first_beat.d.next = true;
            self.dropping.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_filter_emits_verilog() {
        let mut b = FrameFilter::default();
        b.connect_all();
        assert!(generate_verilog(&b).contains("module top"));
    }
}
