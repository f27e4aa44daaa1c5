//! `FrameMux`: merges two AXI4-Stream sources into one, a whole frame at a
//! time, round robin between frames.
//!
//! ```text
//!  a (data)    --->+-------+
//!                  |  mux  |---> m
//!  b (notify)  --->+-------+
//! ```
//! At a frame boundary the mux grants the input that did not have the last
//! frame if it has a beat waiting, else the other one; it then stays with
//! that input until its `tlast` beat is taken. The path is combinational
//! (`m` is the granted input's beat, its `tready` is `m.tready`): no added
//! latency and one beat per clock. With only `a` sending, `a` goes through
//! untouched at full rate; a notification waits at most for the data frame
//! in flight, and data waits at most for one notification frame (two beats).

use super::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FrameMux {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub a: AxisSink,
    pub b: AxisSink,
    pub m: AxisSource,
    /// A frame is in progress (its first beat taken, not yet its last).
    busy: DFF<Bit>,
    /// The input of the frame in progress, or of the last frame (1 = b).
    owner: DFF<Bit>,
    grant_b: Signal<Local, Bit>,
}

impl Logic for FrameMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, owner);
        self.grant_b.next = self.owner.q.val();
        if !self.busy.q.val() {
            if self.owner.q.val() {
                self.grant_b.next = !self.a.tvalid.val() & self.b.tvalid.val();
            } else {
                self.grant_b.next = self.b.tvalid.val();
            }
        }
        self.m.tdata.next = self.a.tdata.val();
        self.m.tkeep.next = self.a.tkeep.val();
        self.m.tlast.next = self.a.tlast.val();
        self.m.tuser.next = self.a.tuser.val();
        self.m.tvalid.next = self.a.tvalid.val();
        self.a.tready.next = self.m.tready.val();
        self.b.tready.next = false;
        if self.grant_b.val() {
            self.m.tdata.next = self.b.tdata.val();
            self.m.tkeep.next = self.b.tkeep.val();
            self.m.tlast.next = self.b.tlast.val();
            self.m.tuser.next = self.b.tuser.val();
            self.m.tvalid.next = self.b.tvalid.val();
            self.a.tready.next = false;
            self.b.tready.next = self.m.tready.val();
        }
        if self.m.tvalid.val() & self.m.tready.val() {
            self.owner.d.next = self.grant_b.val();
            self.busy.d.next = !self.m.tlast.val();
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.owner.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_frame_mux_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<FrameMux>("frame_mux");
    }
}
