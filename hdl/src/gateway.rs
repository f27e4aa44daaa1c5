//! `Gateway`: the cngw top level.
//!
//! ```text
//!  dc_rx  ->[skid]->+->[skid]-> wan_tx        (data-center side to WAN)
//!                   +-> HeaderParser -> dc_hdr_*, counters
//!  wan_rx ->[skid]->+->[skid]-> dc_tx         (WAN side to data center)
//!                   +-> HeaderParser -> wan_hdr_*, counters
//!  s_axil_* <-> CsrBlock (BAR0)      qd_ext_* -> PORT0_QUEUE_DEPTH_BYTES
//! ```
//! Every stream port is 512-bit AXI4-Stream (`tdata tkeep tvalid tready
//! tlast tuser`). With every feature off (the state after reset) both
//! directions forward frames byte for byte, `tuser` included, at one beat
//! per clock with a latency of two clocks; the parsers only watch. Parsed
//! headers leave on `*_hdr_*` one clock after a frame's last beat enters.
//! `reset` is synchronous and active high.

use crate::csr::CsrBlock;
use crate::parser::HeaderParser;
use crate::stats::FrameCounters;
use crate::stream::SkidBuffer;
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
    assert!(REGISTERS.len() == 23);
};

#[derive(LogicBlock, Default)]
pub struct Gateway {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // Data-center side in.
    pub dc_rx_tdata: Signal<In, Bits<512>>,
    pub dc_rx_tkeep: Signal<In, Bits<64>>,
    pub dc_rx_tlast: Signal<In, Bit>,
    pub dc_rx_tuser: Signal<In, Bit>,
    pub dc_rx_tvalid: Signal<In, Bit>,
    pub dc_rx_tready: Signal<Out, Bit>,
    // WAN side out.
    pub wan_tx_tdata: Signal<Out, Bits<512>>,
    pub wan_tx_tkeep: Signal<Out, Bits<64>>,
    pub wan_tx_tlast: Signal<Out, Bit>,
    pub wan_tx_tuser: Signal<Out, Bit>,
    pub wan_tx_tvalid: Signal<Out, Bit>,
    pub wan_tx_tready: Signal<In, Bit>,
    // WAN side in.
    pub wan_rx_tdata: Signal<In, Bits<512>>,
    pub wan_rx_tkeep: Signal<In, Bits<64>>,
    pub wan_rx_tlast: Signal<In, Bit>,
    pub wan_rx_tuser: Signal<In, Bit>,
    pub wan_rx_tvalid: Signal<In, Bit>,
    pub wan_rx_tready: Signal<Out, Bit>,
    // Data-center side out.
    pub dc_tx_tdata: Signal<Out, Bits<512>>,
    pub dc_tx_tkeep: Signal<Out, Bits<64>>,
    pub dc_tx_tlast: Signal<Out, Bit>,
    pub dc_tx_tuser: Signal<Out, Bit>,
    pub dc_tx_tvalid: Signal<Out, Bit>,
    pub dc_tx_tready: Signal<In, Bit>,
    // CSR (AXI4-Lite slave from PCIe BAR0).
    pub s_axil_awaddr: Signal<In, Bits<12>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<12>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    // External queue-depth telemetry for WAN port 0 (deep buffers outside the core).
    pub qd_ext_bytes: Signal<In, Bits<32>>,
    pub qd_ext_valid: Signal<In, Bit>,
    // Parsed headers, data-center side.
    pub dc_hdr_valid: Signal<Out, Bit>,
    pub dc_hdr_class: Signal<Out, Bits<2>>,
    pub dc_hdr_vlan_present: Signal<Out, Bit>,
    pub dc_hdr_vlan_id: Signal<Out, Bits<12>>,
    pub dc_hdr_is_ipv6: Signal<Out, Bit>,
    pub dc_hdr_src_ip: Signal<Out, Bits<128>>,
    pub dc_hdr_dst_ip: Signal<Out, Bits<128>>,
    pub dc_hdr_ecn: Signal<Out, Bits<2>>,
    pub dc_hdr_flow_label: Signal<Out, Bits<20>>,
    pub dc_hdr_udp_src_port: Signal<Out, Bits<16>>,
    pub dc_hdr_opcode: Signal<Out, Bits<8>>,
    pub dc_hdr_pkey: Signal<Out, Bits<16>>,
    pub dc_hdr_dest_qp: Signal<Out, Bits<24>>,
    pub dc_hdr_psn: Signal<Out, Bits<24>>,
    // Parsed headers, WAN side.
    pub wan_hdr_valid: Signal<Out, Bit>,
    pub wan_hdr_class: Signal<Out, Bits<2>>,
    pub wan_hdr_vlan_present: Signal<Out, Bit>,
    pub wan_hdr_vlan_id: Signal<Out, Bits<12>>,
    pub wan_hdr_is_ipv6: Signal<Out, Bit>,
    pub wan_hdr_src_ip: Signal<Out, Bits<128>>,
    pub wan_hdr_dst_ip: Signal<Out, Bits<128>>,
    pub wan_hdr_ecn: Signal<Out, Bits<2>>,
    pub wan_hdr_flow_label: Signal<Out, Bits<20>>,
    pub wan_hdr_udp_src_port: Signal<Out, Bits<16>>,
    pub wan_hdr_opcode: Signal<Out, Bits<8>>,
    pub wan_hdr_pkey: Signal<Out, Bits<16>>,
    pub wan_hdr_dest_qp: Signal<Out, Bits<24>>,
    pub wan_hdr_psn: Signal<Out, Bits<24>>,
    dc_in: SkidBuffer,
    dc_out: SkidBuffer,
    wan_in: SkidBuffer,
    wan_out: SkidBuffer,
    dc_parser: HeaderParser,
    wan_parser: HeaderParser,
    dc_counters: FrameCounters,
    wan_counters: FrameCounters,
    csr: CsrBlock,
    queue_depth: DFF<Bits<32>>,
}

/// Two-bit class code on `*_hdr_class`.
pub const HDR_CLASS_ROCE: u64 = 1;
pub const HDR_CLASS_NON_ROCE: u64 = 2;
pub const HDR_CLASS_MALFORMED: u64 = 3;

impl Logic for Gateway {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self, clock, dc_in, dc_out, wan_in, wan_out, dc_parser, wan_parser, dc_counters,
            wan_counters, csr
        );
        dff_setup!(self, clock, queue_depth);
        self.dc_in.reset.next = self.reset.val();
        self.dc_out.reset.next = self.reset.val();
        self.wan_in.reset.next = self.reset.val();
        self.wan_out.reset.next = self.reset.val();
        self.dc_parser.reset.next = self.reset.val();
        self.wan_parser.reset.next = self.reset.val();
        self.dc_counters.reset.next = self.reset.val();
        self.wan_counters.reset.next = self.reset.val();
        self.csr.reset.next = self.reset.val();

        // dc_rx -> wan_tx.
        self.dc_in.s_tdata.next = self.dc_rx_tdata.val();
        self.dc_in.s_tkeep.next = self.dc_rx_tkeep.val();
        self.dc_in.s_tlast.next = self.dc_rx_tlast.val();
        self.dc_in.s_tuser.next = self.dc_rx_tuser.val();
        self.dc_in.s_tvalid.next = self.dc_rx_tvalid.val();
        self.dc_rx_tready.next = self.dc_in.s_tready.val();
        self.dc_out.s_tdata.next = self.dc_in.m_tdata.val();
        self.dc_out.s_tkeep.next = self.dc_in.m_tkeep.val();
        self.dc_out.s_tlast.next = self.dc_in.m_tlast.val();
        self.dc_out.s_tuser.next = self.dc_in.m_tuser.val();
        self.dc_out.s_tvalid.next = self.dc_in.m_tvalid.val();
        self.dc_in.m_tready.next = self.dc_out.s_tready.val();
        self.wan_tx_tdata.next = self.dc_out.m_tdata.val();
        self.wan_tx_tkeep.next = self.dc_out.m_tkeep.val();
        self.wan_tx_tlast.next = self.dc_out.m_tlast.val();
        self.wan_tx_tuser.next = self.dc_out.m_tuser.val();
        self.wan_tx_tvalid.next = self.dc_out.m_tvalid.val();
        self.dc_out.m_tready.next = self.wan_tx_tready.val();
        self.dc_parser.tdata.next = self.dc_in.m_tdata.val();
        self.dc_parser.tkeep.next = self.dc_in.m_tkeep.val();
        self.dc_parser.tlast.next = self.dc_in.m_tlast.val();
        self.dc_parser.tvalid.next = self.dc_in.m_tvalid.val();
        self.dc_parser.tready.next = self.dc_out.s_tready.val();

        // wan_rx -> dc_tx.
        self.wan_in.s_tdata.next = self.wan_rx_tdata.val();
        self.wan_in.s_tkeep.next = self.wan_rx_tkeep.val();
        self.wan_in.s_tlast.next = self.wan_rx_tlast.val();
        self.wan_in.s_tuser.next = self.wan_rx_tuser.val();
        self.wan_in.s_tvalid.next = self.wan_rx_tvalid.val();
        self.wan_rx_tready.next = self.wan_in.s_tready.val();
        self.wan_out.s_tdata.next = self.wan_in.m_tdata.val();
        self.wan_out.s_tkeep.next = self.wan_in.m_tkeep.val();
        self.wan_out.s_tlast.next = self.wan_in.m_tlast.val();
        self.wan_out.s_tuser.next = self.wan_in.m_tuser.val();
        self.wan_out.s_tvalid.next = self.wan_in.m_tvalid.val();
        self.wan_in.m_tready.next = self.wan_out.s_tready.val();
        self.dc_tx_tdata.next = self.wan_out.m_tdata.val();
        self.dc_tx_tkeep.next = self.wan_out.m_tkeep.val();
        self.dc_tx_tlast.next = self.wan_out.m_tlast.val();
        self.dc_tx_tuser.next = self.wan_out.m_tuser.val();
        self.dc_tx_tvalid.next = self.wan_out.m_tvalid.val();
        self.wan_out.m_tready.next = self.dc_tx_tready.val();
        self.wan_parser.tdata.next = self.wan_in.m_tdata.val();
        self.wan_parser.tkeep.next = self.wan_in.m_tkeep.val();
        self.wan_parser.tlast.next = self.wan_in.m_tlast.val();
        self.wan_parser.tvalid.next = self.wan_in.m_tvalid.val();
        self.wan_parser.tready.next = self.wan_out.s_tready.val();

        // Parsed headers out.
        self.dc_hdr_valid.next = self.dc_parser.hdr_valid.val();
        self.dc_hdr_class.next = 0.into();
        if self.dc_parser.class_roce.val() {
            self.dc_hdr_class.next = 1.into(); // HDR_CLASS_ROCE
        }
        if self.dc_parser.class_non_roce.val() {
            self.dc_hdr_class.next = 2.into(); // HDR_CLASS_NON_ROCE
        }
        if self.dc_parser.class_malformed.val() {
            self.dc_hdr_class.next = 3.into(); // HDR_CLASS_MALFORMED
        }
        self.dc_hdr_vlan_present.next = self.dc_parser.vlan_present.val();
        self.dc_hdr_vlan_id.next = self.dc_parser.vlan_id.val();
        self.dc_hdr_is_ipv6.next = self.dc_parser.is_ipv6.val();
        self.dc_hdr_src_ip.next = self.dc_parser.src_ip.val();
        self.dc_hdr_dst_ip.next = self.dc_parser.dst_ip.val();
        self.dc_hdr_ecn.next = self.dc_parser.ecn.val();
        self.dc_hdr_flow_label.next = self.dc_parser.flow_label.val();
        self.dc_hdr_udp_src_port.next = self.dc_parser.udp_src_port.val();
        self.dc_hdr_opcode.next = self.dc_parser.opcode.val();
        self.dc_hdr_pkey.next = self.dc_parser.pkey.val();
        self.dc_hdr_dest_qp.next = self.dc_parser.dest_qp.val();
        self.dc_hdr_psn.next = self.dc_parser.psn.val();
        self.wan_hdr_valid.next = self.wan_parser.hdr_valid.val();
        self.wan_hdr_class.next = 0.into();
        if self.wan_parser.class_roce.val() {
            self.wan_hdr_class.next = 1.into(); // HDR_CLASS_ROCE
        }
        if self.wan_parser.class_non_roce.val() {
            self.wan_hdr_class.next = 2.into(); // HDR_CLASS_NON_ROCE
        }
        if self.wan_parser.class_malformed.val() {
            self.wan_hdr_class.next = 3.into(); // HDR_CLASS_MALFORMED
        }
        self.wan_hdr_vlan_present.next = self.wan_parser.vlan_present.val();
        self.wan_hdr_vlan_id.next = self.wan_parser.vlan_id.val();
        self.wan_hdr_is_ipv6.next = self.wan_parser.is_ipv6.val();
        self.wan_hdr_src_ip.next = self.wan_parser.src_ip.val();
        self.wan_hdr_dst_ip.next = self.wan_parser.dst_ip.val();
        self.wan_hdr_ecn.next = self.wan_parser.ecn.val();
        self.wan_hdr_flow_label.next = self.wan_parser.flow_label.val();
        self.wan_hdr_udp_src_port.next = self.wan_parser.udp_src_port.val();
        self.wan_hdr_opcode.next = self.wan_parser.opcode.val();
        self.wan_hdr_pkey.next = self.wan_parser.pkey.val();
        self.wan_hdr_dest_qp.next = self.wan_parser.dest_qp.val();
        self.wan_hdr_psn.next = self.wan_parser.psn.val();

        // Counters.
        self.dc_counters.clear.next = self.csr.values[5].val().get_bit(0);
        self.dc_counters.hdr_valid.next = self.dc_parser.hdr_valid.val();
        self.dc_counters.class_roce.next = self.dc_parser.class_roce.val();
        self.dc_counters.class_non_roce.next = self.dc_parser.class_non_roce.val();
        self.dc_counters.class_malformed.next = self.dc_parser.class_malformed.val();
        self.dc_counters.tx_frame.next =
            self.dc_out.m_tvalid.val() & self.wan_tx_tready.val() & self.dc_out.m_tlast.val();
        self.wan_counters.clear.next = self.csr.values[5].val().get_bit(0);
        self.wan_counters.hdr_valid.next = self.wan_parser.hdr_valid.val();
        self.wan_counters.class_roce.next = self.wan_parser.class_roce.val();
        self.wan_counters.class_non_roce.next = self.wan_parser.class_non_roce.val();
        self.wan_counters.class_malformed.next = self.wan_parser.class_malformed.val();
        self.wan_counters.tx_frame.next =
            self.wan_out.m_tvalid.val() & self.dc_tx_tready.val() & self.wan_out.m_tlast.val();

        // CSR.
        self.csr.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.csr.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.csr.s_axil_awready.val();
        self.csr.s_axil_wdata.next = self.s_axil_wdata.val();
        self.csr.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.csr.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.csr.s_axil_wready.val();
        self.s_axil_bresp.next = self.csr.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.csr.s_axil_bvalid.val();
        self.csr.s_axil_bready.next = self.s_axil_bready.val();
        self.csr.s_axil_araddr.next = self.s_axil_araddr.val();
        self.csr.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.csr.s_axil_arready.val();
        self.s_axil_rdata.next = self.csr.s_axil_rdata.val();
        self.s_axil_rresp.next = self.csr.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.csr.s_axil_rvalid.val();
        self.csr.s_axil_rready.next = self.s_axil_rready.val();
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
