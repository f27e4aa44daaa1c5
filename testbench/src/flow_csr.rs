//! The flow table through the CSR (LH-01), as tests reach it: a key in the
//! `FLOW_*` key registers, a `FLOW_COMMAND` polled to completion, a
//! look-up, and iteration over every location with
//! `FLOW_COMMAND.read_location` (what `cngw flows` will do).

use crate::bench::Bench;
use cngw_packet::flow_key::FlowKey;
use cngw_regmap::{flow_command, flow_status, offset};
use cngw_sim::Gateway;
use std::borrow::BorrowMut;
use std::collections::BTreeSet;

/// Buckets and ways of the gateway's table (`GatewayFlowTable`), then its
/// stash slots.
const BUCKETS: u32 = 4096;
const WAYS: u32 = 4;
const STASH_SLOTS: u32 = 8;

/// One entry as a look-up or iteration reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowEntry {
    pub key: FlowKey,
    /// The source QP, if the flow has one.
    pub sqp: Option<u32>,
    /// A static entry.
    pub pinned: bool,
}

fn words(a: u128) -> [u32; 4] {
    let o = a.to_be_bytes();
    [0, 1, 2, 3].map(|i| u32::from_be_bytes(o[4 * i..4 * i + 4].try_into().unwrap()))
}

fn read<G: BorrowMut<Gateway>>(b: &mut Bench<G>, off: u32) -> u32 {
    b.csr_read(off)
        .unwrap_or_else(|e| panic!("CSR read {off:#x}: {e:?}"))
}

fn write<G: BorrowMut<Gateway>>(b: &mut Bench<G>, off: u32, value: u32) {
    b.csr_write(off, value)
        .unwrap_or_else(|e| panic!("CSR write {off:#x}: {e:?}"));
}

/// Writes the command key (`FLOW_SIP_*`, `FLOW_DIP_*`, `FLOW_DQP`).
pub fn set_key<G: BorrowMut<Gateway>>(b: &mut Bench<G>, key: FlowKey) {
    for (i, w) in words(key.sip).into_iter().enumerate() {
        write(b, offset::FLOW_SIP_0 + 4 * i as u32, w);
    }
    for (i, w) in words(key.dip).into_iter().enumerate() {
        write(b, offset::FLOW_DIP_0 + 4 * i as u32, w);
    }
    write(b, offset::FLOW_DQP, key.dqp);
}

/// Runs a `FLOW_COMMAND` and polls `FLOW_STATUS` until it is done; the status.
pub fn command<G: BorrowMut<Gateway>>(b: &mut Bench<G>, command: u32) -> u32 {
    write(b, offset::FLOW_COMMAND, command);
    for _ in 0..20 {
        let status = read(b, offset::FLOW_STATUS);
        if status & flow_status::DONE != 0 {
            return status;
        }
    }
    panic!("flow command {command:#x} never completed");
}

/// The entry the last command found (`FLOW_STATUS` given), if it hit.
fn result<G: BorrowMut<Gateway>>(b: &mut Bench<G>, status: u32) -> Option<FlowEntry> {
    if status & flow_status::HIT == 0 {
        return None;
    }
    let addr = |b: &mut Bench<G>, first: u32| {
        let mut a = [0u8; 16];
        for i in 0..4 {
            a[4 * i..4 * i + 4].copy_from_slice(&read(b, first + 4 * i as u32).to_be_bytes());
        }
        a
    };
    let key = FlowKey::new(
        addr(b, offset::FLOW_RESULT_SIP_0),
        addr(b, offset::FLOW_RESULT_DIP_0),
        read(b, offset::FLOW_RESULT_DQP),
    );
    let sqp = (status & flow_status::SQP_VALID != 0).then(|| read(b, offset::FLOW_RESULT_SQP));
    Some(FlowEntry {
        key,
        sqp,
        pinned: status & flow_status::PINNED != 0,
    })
}

/// A CSR look-up of a flow: its entry, `None` when absent.
pub fn look_up<G: BorrowMut<Gateway>>(b: &mut Bench<G>, key: FlowKey) -> Option<FlowEntry> {
    set_key(b, key);
    let status = command(b, flow_command::LOOKUP);
    result(b, status)
}

/// Every entry of the table, read location by location: every way of
/// every bucket, then the stash.
pub fn iterate<G: BorrowMut<Gateway>>(b: &mut Bench<G>) -> BTreeSet<FlowEntry> {
    let locations = (0..BUCKETS)
        .flat_map(|bucket| (0..WAYS).map(move |way| (bucket << 4) | way))
        .chain((0..STASH_SLOTS).map(|slot| 1 << 16 | slot));
    let mut found = BTreeSet::new();
    for location in locations {
        write(b, offset::FLOW_LOCATION, location);
        let status = command(b, flow_command::READ_LOCATION);
        found.extend(result(b, status));
    }
    found
}
