//! `Gateway`: the cngw top level.
//!
//! ```text
//!  dc_rx  ->[skid]->+->[CE marker]->[skid]-> wan_tx   (data-center side to WAN)
//!                   +-> HeaderParser -> dc_hdr_*, counters
//!  wan_rx ->[skid]->+->[skid]-> dc_tx         (WAN side to data center)
//!                   +-> HeaderParser -> wan_hdr_*, counters
//!  s_axil_* <-> CsrBlock (BAR0)      qd_ext_* -> PORT0_QUEUE_DEPTH_BYTES
//! ```
//! Every stream port is a 512-bit AXI4-Stream interface (`tdata tkeep tvalid
//! tready tlast tuser`); in Verilog the ports are `dc_rx$tdata` and so on, and
//! the `cngw_gateway` wrapper names them `dc_rx_tdata`. With every feature off (the state after reset) both
//! directions forward frames byte for byte, `tuser` included, at one beat
//! per clock with a latency of two clocks; the parsers only watch. Parsed
//! headers leave on `dc_hdr`/`wan_hdr` one clock after a frame's last beat
//! enters.
//! `reset` is synchronous and active high.

use crate::csr::{AxiLiteSlave, CsrBlock};
use crate::ecn::CeMarker;
use crate::parser::HeaderParser;
use crate::stats::FrameCounters;
use crate::stream::{AxisSink, AxisSource, HeaderSource, SkidBuffer};
use cngw_regmap::{offset, REGISTERS};
use rust_hdl::prelude::*;

// The CSR block's ports are indexed like REGISTERS. `update` must use
// literal indices (rust-hdl turns them into port names); this checks them.
const _: () = {
    assert!(REGISTERS[5].offset == offset::CONTROL);
    assert!(REGISTERS[12].offset == offset::PORT0_QUEUE_DEPTH_BYTES);
    assert!(REGISTERS[13].offset == offset::DC_RX_FRAMES);
    assert!(REGISTERS[14].offset == offset::DC_RX_ROCE_FRAMES);
    assert!(REGISTERS[15].offset == offset::DC_RX_NON_ROCE_FRAMES);
    assert!(REGISTERS[16].offset == offset::DC_RX_MALFORMED_FRAMES);
    assert!(REGISTERS[17].offset == offset::WAN_TX_FRAMES);
    assert!(REGISTERS[18].offset == offset::WAN_RX_FRAMES);
    assert!(REGISTERS[19].offset == offset::WAN_RX_ROCE_FRAMES);
    assert!(REGISTERS[20].offset == offset::WAN_RX_NON_ROCE_FRAMES);
    assert!(REGISTERS[21].offset == offset::WAN_RX_MALFORMED_FRAMES);
    assert!(REGISTERS[22].offset == offset::DC_TX_FRAMES);
    assert!(REGISTERS[4].offset == offset::FEATURE_ENABLE);
    assert!(REGISTERS[10].offset == offset::PORT0_K_MIN_BYTES);
    assert!(REGISTERS[23].offset == offset::LH_CE_MARKED_FRAMES);
    assert!(REGISTERS.len() == 24);
};

#[derive(LogicBlock, Default)]
pub struct Gateway {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// From the data-center side.
    pub dc_rx: AxisSink,
    /// Toward the WAN.
    pub wan_tx: AxisSource,
    /// From the WAN.
    pub wan_rx: AxisSink,
    /// Toward the data-center side.
    pub dc_tx: AxisSource,
    /// CSR slave behind PCIe BAR0.
    pub s_axil: AxiLiteSlave,
    /// External queue-depth telemetry for WAN port 0 (deep buffers outside the core).
    pub qd_ext_bytes: Signal<In, Bits<32>>,
    pub qd_ext_valid: Signal<In, Bit>,
    /// Parsed headers of frames from dc_rx.
    pub dc_hdr: HeaderSource,
    /// Parsed headers of frames from wan_rx.
    pub wan_hdr: HeaderSource,
    dc_in: SkidBuffer,
    dc_out: SkidBuffer,
    ce_marker: CeMarker,
    wan_in: SkidBuffer,
    wan_out: SkidBuffer,
    dc_parser: HeaderParser,
    wan_parser: HeaderParser,
    dc_counters: FrameCounters,
    wan_counters: FrameCounters,
    csr: CsrBlock,
    queue_depth: DFF<Bits<32>>,
    /// LH-04 condition, registered: marking enabled and QD > K_min.
    above_k_min: DFF<Bit>,
    ce_marked_count: DFF<Bits<32>>,
}

impl Logic for Gateway {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            dc_in,
            dc_out,
            ce_marker,
            wan_in,
            wan_out,
            dc_parser,
            wan_parser,
            dc_counters,
            wan_counters,
            csr
        );
        dff_setup!(self, clock, queue_depth, above_k_min, ce_marked_count);
        self.dc_in.reset.next = self.reset.val();
        self.dc_out.reset.next = self.reset.val();
        self.ce_marker.reset.next = self.reset.val();
        self.wan_in.reset.next = self.reset.val();
        self.wan_out.reset.next = self.reset.val();
        self.dc_parser.reset.next = self.reset.val();
        self.wan_parser.reset.next = self.reset.val();
        self.dc_counters.reset.next = self.reset.val();
        self.wan_counters.reset.next = self.reset.val();
        self.csr.reset.next = self.reset.val();

        // dc_rx -> wan_tx: the parser watches what enters the CE marker.
        AxisSink::link(&mut self.dc_rx, &mut self.dc_in.s);
        AxisSource::join(&mut self.dc_in.m, &mut self.ce_marker.s);
        AxisSource::join(&mut self.ce_marker.m, &mut self.dc_out.s);
        AxisSource::link(&mut self.wan_tx, &mut self.dc_out.m);
        self.dc_parser.tap.tdata.next = self.dc_in.m.tdata.val();
        self.dc_parser.tap.tkeep.next = self.dc_in.m.tkeep.val();
        self.dc_parser.tap.tlast.next = self.dc_in.m.tlast.val();
        self.dc_parser.tap.tvalid.next = self.dc_in.m.tvalid.val();
        self.dc_parser.tap.tready.next = self.dc_out.s.tready.val();

        // LH-04: first level, CE marking while the queue is above K_min.
        self.above_k_min.d.next = self.csr.values[4].val().get_bit(0)
            & (self.queue_depth.q.val() > self.csr.values[10].val());
        self.ce_marker.congested.next = self.above_k_min.q.val();
        if self.ce_marker.marked.val() {
            self.ce_marked_count.d.next = self.ce_marked_count.q.val() + 1;
        }
        if self.reset.val() | self.csr.values[5].val().get_bit(0) {
            self.ce_marked_count.d.next = 0.into();
        }
        HeaderSource::link(&mut self.dc_hdr, &mut self.dc_parser.hdr);

        // wan_rx -> dc_tx.
        AxisSink::link(&mut self.wan_rx, &mut self.wan_in.s);
        AxisSource::join(&mut self.wan_in.m, &mut self.wan_out.s);
        AxisSource::link(&mut self.dc_tx, &mut self.wan_out.m);
        self.wan_parser.tap.tdata.next = self.wan_in.m.tdata.val();
        self.wan_parser.tap.tkeep.next = self.wan_in.m.tkeep.val();
        self.wan_parser.tap.tlast.next = self.wan_in.m.tlast.val();
        self.wan_parser.tap.tvalid.next = self.wan_in.m.tvalid.val();
        self.wan_parser.tap.tready.next = self.wan_out.s.tready.val();
        HeaderSource::link(&mut self.wan_hdr, &mut self.wan_parser.hdr);

        // Counters. (A block's interface linked to a port of this one has no
        // wire of its own in Verilog: read the port.)
        self.dc_counters.clear.next = self.csr.values[5].val().get_bit(0);
        self.dc_counters.hdr_valid.next = self.dc_hdr.valid.val();
        self.dc_counters.hdr_class.next = self.dc_hdr.class.val();
        self.dc_counters.tx_frame.next =
            self.wan_tx.tvalid.val() & self.wan_tx.tready.val() & self.wan_tx.tlast.val();
        self.wan_counters.clear.next = self.csr.values[5].val().get_bit(0);
        self.wan_counters.hdr_valid.next = self.wan_hdr.valid.val();
        self.wan_counters.hdr_class.next = self.wan_hdr.class.val();
        self.wan_counters.tx_frame.next =
            self.dc_tx.tvalid.val() & self.dc_tx.tready.val() & self.dc_tx.tlast.val();

        // CSR.
        AxiLiteSlave::link(&mut self.s_axil, &mut self.csr.s_axil);
        for i in 0..REGISTERS.len() {
            self.csr.status[i].next = 0.into();
        }
        if self.qd_ext_valid.val() {
            self.queue_depth.d.next = self.qd_ext_bytes.val();
        }
        if self.reset.val() {
            self.queue_depth.d.next = 0.into();
        }
        self.csr.status[12].next = self.queue_depth.q.val();
        self.csr.status[13].next = self.dc_counters.rx_frames.val();
        self.csr.status[14].next = self.dc_counters.roce_frames.val();
        self.csr.status[15].next = self.dc_counters.non_roce_frames.val();
        self.csr.status[16].next = self.dc_counters.malformed_frames.val();
        self.csr.status[17].next = self.dc_counters.tx_frames.val();
        self.csr.status[18].next = self.wan_counters.rx_frames.val();
        self.csr.status[19].next = self.wan_counters.roce_frames.val();
        self.csr.status[20].next = self.wan_counters.non_roce_frames.val();
        self.csr.status[21].next = self.wan_counters.malformed_frames.val();
        self.csr.status[22].next = self.wan_counters.tx_frames.val();
        self.csr.status[23].next = self.ce_marked_count.q.val();
    }
}

/// The gateway's Verilog, as rust-hdl emits it (top module `top`).
pub fn gateway_verilog() -> String {
    let mut uut = Gateway::default();
    uut.connect_all();
    generate_verilog(&uut)
}

#[cfg(test)]
mod tests {
    #[test]
    fn hw_01_gateway_emits_verilog() {
        let v = super::gateway_verilog();
        std::fs::write(std::env::temp_dir().join("cngw_gateway.v"), &v).unwrap();
        assert!(v.contains("module top"));
    }
}
