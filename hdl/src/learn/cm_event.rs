//! The CM event interface between `CmSnoop` and `CmLearner` (LH-01): one
//! RDMA CM REQ or REP seen on an input, valid for one clock.
//!
//! Addresses are the frame's {SIP, DIP} as the header parser reports them
//! (lane order, IPv4-mapped); `comm_id` is the REQ's Local Communication ID
//! or the REP's Remote Communication ID in lane order (it is only compared);
//! `qpn` is the message's Local QPN as a number.

use rust_hdl::prelude::*;

/// The driving side (the snooper).
#[derive(LogicInterface, Default)]
#[join = "CmEventSink"]
pub struct CmEventSource {
    pub valid: Signal<Out, Bit>,
    /// REP (else REQ).
    pub is_rep: Signal<Out, Bit>,
    pub src_ip: Signal<Out, Bits<128>>,
    pub dst_ip: Signal<Out, Bits<128>>,
    pub comm_id: Signal<Out, Bits<32>>,
    pub qpn: Signal<Out, Bits<24>>,
}

/// Mirror of [`CmEventSource`].
#[derive(LogicInterface, Default)]
#[join = "CmEventSource"]
pub struct CmEventSink {
    pub valid: Signal<In, Bit>,
    pub is_rep: Signal<In, Bit>,
    pub src_ip: Signal<In, Bits<128>>,
    pub dst_ip: Signal<In, Bits<128>>,
    pub comm_id: Signal<In, Bits<32>>,
    pub qpn: Signal<In, Bits<24>>,
}
