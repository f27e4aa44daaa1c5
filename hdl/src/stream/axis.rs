//! AXI4-Stream and parsed-header interfaces of the 512-bit data path.
//!
//! `AxisSource` is the side that drives data (`tdata tkeep tlast tuser
//! tvalid` out, `tready` in); `AxisSink` is its mirror. Byte `i` of a beat is
//! `tdata[8*i+7:8*i]`, valid when `tkeep[i]` is set; frames are packed.
//! Stream rule (AMBA AXI4-Stream): once `tvalid` is high, the payload holds
//! until `tvalid & tready`; a source never waits for `tready` to raise `tvalid`.

use rust_hdl::prelude::*;

/// The driving side of a 512-bit AXI4-Stream.
#[derive(LogicInterface, Default)]
#[join = "AxisSink"]
pub struct AxisSource {
    pub tdata: Signal<Out, Bits<512>>,
    pub tkeep: Signal<Out, Bits<64>>,
    pub tlast: Signal<Out, Bit>,
    pub tuser: Signal<Out, Bit>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// The receiving side of a 512-bit AXI4-Stream.
#[derive(LogicInterface, Default)]
#[join = "AxisSource"]
pub struct AxisSink {
    pub tdata: Signal<In, Bits<512>>,
    pub tkeep: Signal<In, Bits<64>>,
    pub tlast: Signal<In, Bit>,
    pub tuser: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// A stream watched without taking part in the handshake (every signal in).
#[derive(LogicInterface, Default)]
pub struct AxisTap {
    pub tdata: Signal<In, Bits<512>>,
    pub tkeep: Signal<In, Bits<64>>,
    pub tlast: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<In, Bit>,
}

/// `class` codes of [`HeaderSource`].
pub const CLASS_ROCE: u64 = 1;
pub const CLASS_NON_ROCE: u64 = 2;
pub const CLASS_MALFORMED: u64 = 3;

/// A parsed header, valid for one clock (`valid` high). Field meanings are
/// those of `cngw_packet::parsed::ParsedHeader`; addresses in lane order.
#[derive(LogicInterface, Default)]
#[join = "HeaderSink"]
pub struct HeaderSource {
    pub valid: Signal<Out, Bit>,
    /// 1 RoCEv2, 2 not RoCE, 3 malformed.
    pub class: Signal<Out, Bits<2>>,
    pub vlan_present: Signal<Out, Bit>,
    pub vlan_id: Signal<Out, Bits<12>>,
    /// Source MAC (the previous hop), lane order.
    pub src_mac: Signal<Out, Bits<48>>,
    pub is_ipv6: Signal<Out, Bit>,
    pub src_ip: Signal<Out, Bits<128>>,
    pub dst_ip: Signal<Out, Bits<128>>,
    pub ecn: Signal<Out, Bits<2>>,
    pub flow_label: Signal<Out, Bits<20>>,
    pub udp_src_port: Signal<Out, Bits<16>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub pkey: Signal<Out, Bits<16>>,
    pub dest_qp: Signal<Out, Bits<24>>,
    pub psn: Signal<Out, Bits<24>>,
}

/// Mirror of [`HeaderSource`].
#[derive(LogicInterface, Default)]
#[join = "HeaderSource"]
pub struct HeaderSink {
    pub valid: Signal<In, Bit>,
    pub class: Signal<In, Bits<2>>,
    pub vlan_present: Signal<In, Bit>,
    pub vlan_id: Signal<In, Bits<12>>,
    pub src_mac: Signal<In, Bits<48>>,
    pub is_ipv6: Signal<In, Bit>,
    pub src_ip: Signal<In, Bits<128>>,
    pub dst_ip: Signal<In, Bits<128>>,
    pub ecn: Signal<In, Bits<2>>,
    pub flow_label: Signal<In, Bits<20>>,
    pub udp_src_port: Signal<In, Bits<16>>,
    pub opcode: Signal<In, Bits<8>>,
    pub pkey: Signal<In, Bits<16>>,
    pub dest_qp: Signal<In, Bits<24>>,
    pub psn: Signal<In, Bits<24>>,
}
