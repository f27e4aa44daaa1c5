//! `FlowEntry`: the layout of one flow-table entry, and its plain-Rust
//! mirror `FlowRecord` keyed by `FlowKey` (used by the reference model, the
//! tests and, later, the driver). `FlowKey` itself is defined once, in
//! `cngw_packet::flow_key`, for the model's source-QP learner too; its bit
//! layout here is `FlowKeyBits`.
//!
//! ```text
//!  418      387 386        107 106      99 98       91 90       59 58       27 26   3   2     1     0
//!  +----------+------------+-----------+-----------+-----------+-----------+------+-----+-----+-----+
//!  | prev_    | key        | notify_   | window_   | window_   | last_seen | sqp  | sqp_| pin-| val-|
//!  | bytes    | SIP|DIP|DQP| state     | epoch     | bytes     |           |      |valid| ned | id  |
//!  +----------+------------+-----------+-----------+-----------+-----------+------+-----+-----+-----+
//! ```
//! 419 bits per entry (six 72-bit block-RAM columns hold 432). The key is what a RoCEv2 data packet carries,
//! {SIP, DIP, DQP} (DESIGN.md, "Decisions"); IPv4 addresses are stored
//! IPv4-mapped (`::ffff:a.b.c.d`) so one key format serves both families.
//! The value is the learned source QP, which with the key makes the draft's
//! four-tuple (draft-tian-ccwg-long-haul-cnp-00, "Flow Table Learning and
//! Maintenance"). `last_seen` is in the units of the table's `now` input;
//! `window_bytes` counts bytes of the flow in window `window_epoch` (a new
//! epoch restarts the count on the flow's next packet); `prev_bytes` is
//! the flow's byte count of the window before `window_epoch` (0 if it sent
//! nothing then); `notify_state` bit 0 says the flow's bytes fell in its
//! last complete window below 7/8 of the window before (LH-10 downstream
//! deferral); both are set by the flow's first packet of a new window,
//! zero on insert and preserved by other updates.

use rust_hdl::prelude::*;

/// Width of a flow key: SIP 128 + DIP 128 + DQP 24.
pub const KEY_BITS: usize = 280;
/// Width of an entry.
pub const ENTRY_BITS: usize = 419;

/// One table entry as stored in block RAM and in the stash registers.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct FlowEntry {
    pub valid: Bit,
    pub pinned: Bit,
    pub sqp_valid: Bit,
    pub sqp: Bits<24>,
    pub last_seen: Bits<32>,
    pub window_bytes: Bits<32>,
    pub window_epoch: Bits<8>,
    pub notify_state: Bits<8>,
    /// `{SIP, DIP, DQP}`: SIP in bits 279..152, DIP 151..24, DQP 23..0.
    pub key: Bits<280>,
    pub prev_bytes: Bits<32>,
}

/// An entry from its bits (the inverse of the derived `Bits` from an
/// entry; in Verilog both are plain assignments).
impl From<Bits<ENTRY_BITS>> for FlowEntry {
    fn from(b: Bits<ENTRY_BITS>) -> Self {
        let e = FlowEntry::default();
        Self {
            valid: b.get_bit(e.get_my_offset_valid()),
            pinned: b.get_bit(e.get_my_offset_pinned()),
            sqp_valid: b.get_bit(e.get_my_offset_sqp_valid()),
            sqp: b.get_bits::<24>(e.get_my_offset_sqp()),
            last_seen: b.get_bits::<32>(e.get_my_offset_last_seen()),
            window_bytes: b.get_bits::<32>(e.get_my_offset_window_bytes()),
            window_epoch: b.get_bits::<8>(e.get_my_offset_window_epoch()),
            notify_state: b.get_bits::<8>(e.get_my_offset_notify_state()),
            key: b.get_bits::<KEY_BITS>(e.get_my_offset_key()),
            prev_bytes: b.get_bits::<32>(e.get_my_offset_prev_bytes()),
        }
    }
}

pub use cngw_packet::flow_key::FlowKey;

/// `::ffff:a.b.c.d`, the IPv4-mapped IPv6 address of an IPv4 address, as
/// the `u128` a [`FlowKey`] holds.
pub fn ipv4_mapped(addr: [u8; 4]) -> u128 {
    u128::from_be_bytes(cngw_packet::parsed::ipv4_mapped(addr))
}

/// The key as the hardware holds it: SIP in bits 279..152, DIP 151..24,
/// DQP 23..0.
pub trait FlowKeyBits: Sized {
    fn to_bits(&self) -> Bits<KEY_BITS>;
    fn from_bits(key: Bits<KEY_BITS>) -> Self;
}

impl FlowKeyBits for FlowKey {
    fn to_bits(&self) -> Bits<KEY_BITS> {
        (u128_to_bits::<KEY_BITS>(self.sip) << 152)
            | (u128_to_bits::<KEY_BITS>(self.dip) << 24)
            | u128_to_bits::<KEY_BITS>((self.dqp & 0xff_ffff) as u128)
    }

    fn from_bits(key: Bits<KEY_BITS>) -> Self {
        Self {
            sip: key.get_bits::<128>(152).to_u128(),
            dip: key.get_bits::<128>(24).to_u128(),
            dqp: key.get_bits::<24>(0).to_u32(),
        }
    }
}

/// A `u128` as `Bits<N>` (`N >= 128`, or the value fits).
pub fn u128_to_bits<const N: usize>(x: u128) -> Bits<N> {
    let low = bit_cast::<N, 64>(Bits::<64>::from(x as u64));
    let high = bit_cast::<N, 64>(Bits::<64>::from((x >> 64) as u64));
    if N > 64 {
        (high << 64) | low
    } else {
        low
    }
}

/// One entry in plain Rust (the reference model's storage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FlowRecord {
    pub valid: bool,
    pub pinned: bool,
    pub sqp_valid: bool,
    pub sqp: u32,
    pub last_seen: u32,
    pub window_bytes: u32,
    pub window_epoch: u8,
    pub notify_state: u8,
    pub key: FlowKey,
    pub prev_bytes: u32,
}

impl FlowRecord {
    pub fn to_entry(&self) -> FlowEntry {
        FlowEntry {
            valid: self.valid,
            pinned: self.pinned,
            sqp_valid: self.sqp_valid,
            sqp: (self.sqp as u64 & 0xff_ffff).to_bits(),
            last_seen: (self.last_seen as u64).to_bits(),
            window_bytes: (self.window_bytes as u64).to_bits(),
            window_epoch: (self.window_epoch as u64).to_bits(),
            notify_state: (self.notify_state as u64).to_bits(),
            key: self.key.to_bits(),
            prev_bytes: (self.prev_bytes as u64).to_bits(),
        }
    }

    pub fn from_entry(e: &FlowEntry) -> Self {
        Self {
            valid: e.valid,
            pinned: e.pinned,
            sqp_valid: e.sqp_valid,
            sqp: e.sqp.to_u32(),
            last_seen: e.last_seen.to_u32(),
            window_bytes: e.window_bytes.to_u32(),
            window_epoch: e.window_epoch.to_u32() as u8,
            notify_state: e.notify_state.to_u32() as u8,
            key: FlowKey::from_bits(e.key),
            prev_bytes: e.prev_bytes.to_u32(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_01_entry_layout_is_419_bits_key_and_previous_window_on_top() {
        assert_eq!(FlowEntry::BITS, ENTRY_BITS);
        let e = FlowEntry::default();
        assert_eq!(e.get_my_offset_key(), 107);
        assert_eq!(e.get_my_offset_sqp(), 3);
        assert_eq!(e.get_my_offset_last_seen(), 27);
        assert_eq!(e.get_my_offset_prev_bytes(), 387);
    }

    #[test]
    fn lh_01_key_and_record_round_trip() {
        let key = FlowKey {
            sip: 0x2001_0db8_0000_0000_0000_0000_0000_0001,
            dip: ipv4_mapped([10, 0, 0, 4]),
            dqp: 200,
        };
        assert_eq!(FlowKey::from_bits(key.to_bits()), key);
        assert_eq!(key.to_bytes()[34], 200);
        assert_eq!(&key.to_bytes()[26..32], &[0xff, 0xff, 10, 0, 0, 4]);
        let r = FlowRecord {
            valid: true,
            pinned: false,
            sqp_valid: true,
            sqp: 100,
            last_seen: 0xdead_beef,
            window_bytes: 1234,
            window_epoch: 7,
            notify_state: 0x5a,
            key,
            prev_bytes: 0x1234_5678,
        };
        assert_eq!(FlowRecord::from_entry(&r.to_entry()), r);
        let bits: Bits<ENTRY_BITS> = r.to_entry().into();
        assert_eq!(FlowEntry::from(bits), r.to_entry());
    }
}
