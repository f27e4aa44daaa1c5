//! `SkidBuffer`: a registered AXI4-Stream stage for the 512-bit data path.
//!
//! ```text
//!              +-------------+
//!  s.tdata   ->|             |-> m.tdata
//!  s.tkeep   ->|   output    |-> m.tkeep
//!  s.tlast   ->|  register   |-> m.tlast
//!  s.tuser   ->|  + one skid |-> m.tuser
//!  s.tvalid  ->|   entry     |-> m.tvalid
//!  s.tready  <-|             |<- m.tready
//!              +-------------+
//! ```
//! Latency one cycle; throughput one beat per clock. Both `m_*` and `s_tready`
//! come straight from flip-flops, so `tready` never runs combinationally
//! through a pipeline of these (verilog-ethernet's `axis_register` idea).
//! A synchronous `reset` empties both entries.

use super::axis::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SkidBuffer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Stream in.
    pub s: AxisSink,
    /// Stream out.
    pub m: AxisSource,
    out_data: DFF<Bits<512>>,
    out_keep: DFF<Bits<64>>,
    out_last: DFF<Bit>,
    out_user: DFF<Bit>,
    out_valid: DFF<Bit>,
    skid_data: DFF<Bits<512>>,
    skid_keep: DFF<Bits<64>>,
    skid_last: DFF<Bit>,
    skid_user: DFF<Bit>,
    skid_valid: DFF<Bit>,
    output_free: Signal<Local, Bit>,
}

impl Logic for SkidBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, out_data, out_keep, out_last, out_user, out_valid, skid_data, skid_keep,
            skid_last, skid_user, skid_valid
        );
        self.s.tready.next = !self.skid_valid.q.val();
        self.m.tdata.next = self.out_data.q.val();
        self.m.tkeep.next = self.out_keep.q.val();
        self.m.tlast.next = self.out_last.q.val();
        self.m.tuser.next = self.out_user.q.val();
        self.m.tvalid.next = self.out_valid.q.val();
        self.output_free.next = self.m.tready.val() | !self.out_valid.q.val();
        if self.output_free.val() {
            if self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_keep.d.next = self.skid_keep.q.val();
                self.out_last.d.next = self.skid_last.q.val();
                self.out_user.d.next = self.skid_user.q.val();
                self.out_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.out_data.d.next = self.s.tdata.val();
                self.out_keep.d.next = self.s.tkeep.val();
                self.out_last.d.next = self.s.tlast.val();
                self.out_user.d.next = self.s.tuser.val();
                self.out_valid.d.next = self.s.tvalid.val();
            }
        } else if self.s.tvalid.val() & !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s.tdata.val();
            self.skid_keep.d.next = self.s.tkeep.val();
            self.skid_last.d.next = self.s.tlast.val();
            self.skid_user.d.next = self.s.tuser.val();
            self.skid_valid.d.next = true;
        }
        if self.reset.val() {
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_skid_buffer_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<SkidBuffer>("skid_buffer");
    }
}
