//! AXI4-Lite interface of the CSR block (32-bit data, 12-bit byte address).

use rust_hdl::prelude::*;

/// The slave side of AXI4-Lite, as the CSR block sees it.
#[derive(LogicInterface, Default)]
#[join = "AxiLiteMaster"]
pub struct AxiLiteSlave {
    pub awaddr: Signal<In, Bits<12>>,
    pub awvalid: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub wvalid: Signal<In, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub bvalid: Signal<Out, Bit>,
    pub bready: Signal<In, Bit>,
    pub araddr: Signal<In, Bits<12>>,
    pub arvalid: Signal<In, Bit>,
    pub arready: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    pub rvalid: Signal<Out, Bit>,
    pub rready: Signal<In, Bit>,
}

/// The master side of AXI4-Lite.
#[derive(LogicInterface, Default)]
#[join = "AxiLiteSlave"]
pub struct AxiLiteMaster {
    pub awaddr: Signal<Out, Bits<12>>,
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    pub wdata: Signal<Out, Bits<32>>,
    pub wstrb: Signal<Out, Bits<4>>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    pub araddr: Signal<Out, Bits<12>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub rdata: Signal<In, Bits<32>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
}
