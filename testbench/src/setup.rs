//! Set-up steps the RTL tests share: a register written to the gateway
//! and the model alike, 128-bit addresses as register words, flows put
//! into the flow table by the host with a source QP.

use cngw_model::GatewayModel;
use cngw_packet::flow_key::FlowKey;
use cngw_packet::RoceFrameBuilder;
use cngw_regmap::{fcn_rx_dom_control, flow_command, offset};
use cngw_sim::Gateway;
use std::net::{IpAddr, Ipv6Addr};

/// Writes a register in the RTL and in the model (which must know it).
pub fn both(gw: &mut Gateway, m: &mut GatewayModel, off: u32, v: u32) {
    gw.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

/// A 128-bit address (network order) as the four register words of a
/// `*_0..3` group, first word first.
pub fn words(a: u128) -> [u32; 4] {
    [
        (a >> 96) as u32,
        (a >> 64) as u32,
        (a >> 32) as u32,
        a as u32,
    ]
}

/// The host inserts `key` with source QP `sqp` as a static flow
/// (`FLOW_COMMAND.insert_static`), in the RTL and the model, and lets the
/// command finish.
pub fn insert_static_flow(gw: &mut Gateway, m: &mut GatewayModel, key: &FlowKey, sqp: u32) {
    let (sip, dip) = (words(key.sip), words(key.dip));
    for w in 0..4 {
        both(gw, m, offset::FLOW_SIP_0 + 4 * w as u32, sip[w]);
        both(gw, m, offset::FLOW_DIP_0 + 4 * w as u32, dip[w]);
    }
    both(gw, m, offset::FLOW_DQP, key.dqp);
    both(gw, m, offset::FLOW_SQP, sqp);
    both(gw, m, offset::FLOW_COMMAND, flow_command::INSERT_STATIC);
    gw.run(20);
}

/// Domain prefix `slot` (0 or 1, `FCN_RX_DOMn`: the Fast CNP and proxy
/// border filters' domain) set to `prefix`/`len` (an IPv4 prefix as
/// IPv4-mapped, its length counted in the IPv6 form) and marked valid.
pub fn set_domain(gw: &mut Gateway, m: &mut GatewayModel, slot: u32, prefix: Ipv6Addr, len: u32) {
    let (first, control) = match slot {
        0 => (offset::FCN_RX_DOM0_PREFIX_0, offset::FCN_RX_DOM0_CONTROL),
        _ => (offset::FCN_RX_DOM1_PREFIX_0, offset::FCN_RX_DOM1_CONTROL),
    };
    set_prefix_entry(gw, m, first, control, prefix, len);
}

/// A prefix entry with `FCN_RX_DOMn_CONTROL`'s fields (the domain, the
/// Rate Advice capable and policy entries): the four words from register
/// `first` set to `prefix`, then `control` to valid and `len` (IPv6 terms).
pub fn set_prefix_entry(
    gw: &mut Gateway,
    m: &mut GatewayModel,
    first: u32,
    control: u32,
    prefix: Ipv6Addr,
    len: u32,
) {
    for (w, v) in words(prefix.into()).into_iter().enumerate() {
        both(gw, m, first + 4 * w as u32, v);
    }
    both(
        gw,
        m,
        control,
        fcn_rx_dom_control::VALID | len << fcn_rx_dom_control::LEN_SHIFT,
    );
}

/// An address as the flow table holds it: IPv4 as `::ffff:a.b.c.d`.
pub fn mapped(a: IpAddr) -> Ipv6Addr {
    match a {
        IpAddr::V4(v) => v.to_ipv6_mapped(),
        IpAddr::V6(v) => v,
    }
}

/// A RoCEv2 frame builder between the flow's addresses: IPv4 when both
/// are IPv4-mapped, else IPv6 (DestQP, PSN and the rest are the caller's).
pub fn flow_frame(key: &FlowKey) -> RoceFrameBuilder {
    let v6 = Ipv6Addr::from;
    match (v6(key.sip).to_ipv4_mapped(), v6(key.dip).to_ipv4_mapped()) {
        (Some(s), Some(d)) => RoceFrameBuilder::ipv4(s, d),
        _ => RoceFrameBuilder::ipv6(v6(key.sip), v6(key.dip)),
    }
}
