//! Set-up steps the RTL tests share: a register written to the gateway
//! and the model alike, 128-bit addresses as register words, flows put
//! into the flow table by the host with a source QP.

use cngw_model::GatewayModel;
use cngw_packet::flow_key::FlowKey;
use cngw_regmap::{flow_command, offset};
use cngw_sim::Gateway;

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
