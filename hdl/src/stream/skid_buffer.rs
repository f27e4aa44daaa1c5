//! `SkidBuffer`: a registered AXI4-Stream stage for the 512-bit data path.
//!
//! ```text
//!            +-------------+
//!  s_tdata ->|             |-> m_tdata
//!  s_tkeep ->|   output    |-> m_tkeep
//!  s_tlast ->|  register   |-> m_tlast
//!  s_tuser ->|  + one skid |-> m_tuser
//! s_tvalid ->|   entry     |-> m_tvalid
//! s_tready <-|             |<- m_tready
//!            +-------------+
//! ```
//! Latency one cycle; throughput one beat per clock. Both `m_*` and `s_tready`
//! come straight from flip-flops, so `tready` never runs combinationally
//! through a pipeline of these (verilog-ethernet's `axis_register` idea).
//! A synchronous `reset` empties both entries.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SkidBuffer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_tdata: Signal<In, Bits<512>>,
    pub s_tkeep: Signal<In, Bits<64>>,
    pub s_tlast: Signal<In, Bit>,
    pub s_tuser: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tready: Signal<Out, Bit>,
    pub m_tdata: Signal<Out, Bits<512>>,
    pub m_tkeep: Signal<Out, Bits<64>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
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
        self.s_tready.next = !self.skid_valid.q.val();
        self.m_tdata.next = self.out_data.q.val();
        self.m_tkeep.next = self.out_keep.q.val();
        self.m_tlast.next = self.out_last.q.val();
        self.m_tuser.next = self.out_user.q.val();
        self.m_tvalid.next = self.out_valid.q.val();
        self.output_free.next = self.m_tready.val() | !self.out_valid.q.val();
        if self.output_free.val() {
            if self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_keep.d.next = self.skid_keep.q.val();
                self.out_last.d.next = self.skid_last.q.val();
                self.out_user.d.next = self.skid_user.q.val();
                self.out_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.out_data.d.next = self.s_tdata.val();
                self.out_keep.d.next = self.s_tkeep.val();
                self.out_last.d.next = self.s_tlast.val();
                self.out_user.d.next = self.s_tuser.val();
                self.out_valid.d.next = self.s_tvalid.val();
            }
        } else if self.s_tvalid.val() & !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s_tdata.val();
            self.skid_keep.d.next = self.s_tkeep.val();
            self.skid_last.d.next = self.s_tlast.val();
            self.skid_user.d.next = self.s_tuser.val();
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
        let mut uut = SkidBuffer::default();
        uut.connect_all();
        crate::verilog::lint_block("skid_buffer", &generate_verilog(&uut)).unwrap_or_else(|log| panic!("{log}"));
    }
}
