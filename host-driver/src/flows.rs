//! The gateway's flow table from the host (LH-01): look-up, static insert,
//! delete and iteration over every location, through the `FLOW_*` CSRs.
//!
//! The table is keyed by {SIP, DIP, DQP} ([`FlowKey`], the project's one
//! definition: IPv4 addresses IPv4-mapped, `::ffff:a.b.c.d`) and holds the
//! flow's source QP, if known, and whether the entry is static (pinned:
//! inserted from the CSR, never aged, never overwritten by learning).
//!
//! # The CSR protocol
//!
//! One command at a time, and the driver never lets the hardware run a
//! command on a half-written key:
//!
//! 1. **Idle check.** `FLOW_STATUS.done` must be set before anything is
//!    written: the hardware samples the key registers only when the command
//!    reaches the table (it waits for clocks without a data-path look-up
//!    and for source-QP learning's queue to empty), so
//!    rewriting them earlier would change the key of a command still in
//!    flight. If `done` is clear the driver polls it (at most
//!    [`Device::flow_poll_limit`] reads). After reset `FLOW_STATUS` reads 0
//!    until the first command, which looks exactly like a command in flight;
//!    so a device on which this driver has issued nothing yet counts as idle
//!    when `done` stays clear for the whole poll, while a command of this
//!    driver that never finished makes the check fail with
//!    [`FlowError::Busy`] before any write.
//! 2. **Key and value.** `FLOW_SIP_0..3`, `FLOW_DIP_0..3` (network order,
//!    the first address byte in bits 31..24 of `_0`), `FLOW_DQP`, and for an
//!    insert `FLOW_SQP`; for iteration `FLOW_LOCATION` instead.
//! 3. **Command.** One write of one `FLOW_COMMAND` bit (write-1-to-pulse)
//!    starts it; `FLOW_STATUS` reads 0 from then until the answer is in.
//! 4. **Answer.** Poll `FLOW_STATUS` until `done` (at most the poll limit,
//!    else [`FlowError::CommandTimeout`]). `hit` says the key was there
//!    (read_location: the slot holds an entry), `failed` that an insert found
//!    its 8 candidate buckets and the stash full ([`FlowError::InsertFailed`]),
//!    `sqp_valid` and `pinned` describe the entry, whose source QP is in
//!    `FLOW_RESULT_SQP` and whose key is in `FLOW_RESULT_SIP/DIP/DQP`.
//!
//! Iteration ([`FlowTable::iter`]) runs `read_location` over buckets
//! 0..4095 x ways 0..3, then stash slots 0..7: 16,392 commands. Entries the
//! data path inserts or ages meanwhile may be missed or seen; static entries
//! never move.
//!
//! ```
//! use cngw_driver::flows::flow_key;
//! use cngw_driver::{Device, SimBus};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut device = Device::open(SimBus::with_new_gateway())?;
//! let key = flow_key("10.0.0.1".parse()?, "10.0.0.4".parse()?, 200)?;
//! let mut table = device.flow_table();
//! table.insert_static(&key, 100)?;
//! assert_eq!(table.lookup(&key)?.unwrap().sqp, Some(100));
//! assert!(table.delete(&key)?);
//! # Ok(())
//! # }
//! ```

use crate::bus::RegisterBus;
use crate::device::{Device, DeviceError};
use cngw_regmap::{by_name, flow_command, flow_status, offset, Field};
use std::net::IpAddr;
use thiserror::Error;

pub use cngw_packet::flow_key::FlowKey;

/// Largest queue-pair number: QPNs are 24 bits (BTH DestQP).
pub const QP_MAX: u32 = 0xFF_FFFF;
/// Ways of each bucket (the gateway's `FlowTable<12, 9, 8>`: 8 banks x 4
/// ways, 32 block RAMs).
pub const WAYS: u32 = 4;
/// Stash slots after the buckets (`FlowTable<12, 9, 8>`).
pub const STASH_SLOTS: u32 = 8;
/// Polls of `FLOW_STATUS` before a command counts as stuck. A command takes
/// about ten clocks; the limit leaves room for a busy data path.
pub const DEFAULT_POLL_LIMIT: u32 = 1000;

/// Buckets of the table: every value of the `FLOW_LOCATION.bucket` field.
pub fn buckets() -> u32 {
    1 << location_field("bucket").width
}

/// Every location of the table: buckets x ways, then the stash.
pub fn capacity() -> u32 {
    buckets() * WAYS + STASH_SLOTS
}

/// A flow-table entry's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowEntry {
    /// The flow's source QP, once learned or configured.
    pub sqp: Option<u32>,
    /// Static: inserted from the CSR, never aged, SQP never relearned.
    pub pinned: bool,
}

/// What goes wrong with a flow or a flow-table command.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FlowError {
    #[error(
        "{what} {value:#x} ({value}) does not fit the 24-bit queue-pair number (max {QP_MAX})"
    )]
    QpOutOfRange { what: &'static str, value: u32 },
    #[error("source {src} and destination {dst} are of different address families: a flow is IPv4 or IPv6 end to end")]
    MixedFamilies { src: IpAddr, dst: IpAddr },
    #[error("the previous flow-table command has not completed: FLOW_STATUS.done still clear after {polls} polls; nothing written")]
    Busy { polls: u32 },
    #[error("flow-table command {command} did not complete: FLOW_STATUS.done still clear after {polls} polls")]
    CommandTimeout { command: &'static str, polls: u32 },
    #[error("cannot insert {}: its 8 candidate buckets' {WAYS} ways and the {STASH_SLOTS}-slot stash are full", key_text(.key))]
    InsertFailed { key: FlowKey },
}

/// Checks that `value` is a 24-bit QP number.
pub fn check_qp(what: &'static str, value: u32) -> Result<u32, FlowError> {
    if value > QP_MAX {
        Err(FlowError::QpOutOfRange { what, value })
    } else {
        Ok(value)
    }
}

/// The key of the flow `src -> dst` toward `dqp`, checked: both addresses of
/// one family, `dqp` within 24 bits (where [`FlowKey::new`] would silently
/// drop the high bits).
pub fn flow_key(src: IpAddr, dst: IpAddr, dqp: u32) -> Result<FlowKey, FlowError> {
    let dqp = check_qp("destination QP", dqp)?;
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => Ok(FlowKey::ipv4(s.octets(), d.octets(), dqp)),
        // IPv4-mapped addresses (`::ffff:a.b.c.d`) are IPv4: both or neither.
        (IpAddr::V6(s), IpAddr::V6(d))
            if s.to_ipv4_mapped().is_some() == d.to_ipv4_mapped().is_some() =>
        {
            Ok(FlowKey::ipv6(s, d, dqp))
        }
        _ => Err(FlowError::MixedFamilies { src, dst }),
    }
}

/// An address of a key as people write it: IPv4-mapped addresses as IPv4.
pub fn key_addr(addr: u128) -> IpAddr {
    let v6 = std::net::Ipv6Addr::from(addr);
    match v6.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(v6),
    }
}

/// `10.0.0.1 -> 10.0.0.4 DQP 200`: a key as the CLI and the messages show it.
pub fn key_text(key: &FlowKey) -> String {
    format!(
        "{} -> {} DQP {}",
        key_addr(key.sip),
        key_addr(key.dip),
        key.dqp
    )
}

/// Whether a key is of an IPv4 flow (both addresses IPv4-mapped).
pub fn is_ipv4(key: &FlowKey) -> bool {
    key_addr(key.sip).is_ipv4() && key_addr(key.dip).is_ipv4()
}

/// A place in the table, for iteration (`FLOW_LOCATION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// Way 0..3 of a bucket 0..4095.
    Bucket { bucket: u32, way: u32 },
    /// Stash slot 0..7.
    Stash { slot: u32 },
}

fn location_field(name: &str) -> &'static Field {
    by_name("FLOW_LOCATION")
        .and_then(|r| r.field(name))
        .unwrap_or_else(|| panic!("register map has no FLOW_LOCATION.{name}"))
}

impl Location {
    /// The `FLOW_LOCATION` value that addresses this place.
    pub fn register_value(self) -> u32 {
        let (slot, bucket, stash) = match self {
            Location::Bucket { bucket, way } => (way, bucket, 0),
            Location::Stash { slot } => (slot, 0, 1),
        };
        [("slot", slot), ("bucket", bucket), ("stash", stash)]
            .iter()
            .fold(0, |word, &(name, value)| {
                let f = location_field(name);
                word | ((value << f.lsb) & f.mask())
            })
    }

    /// Every location in iteration order: buckets x ways, then the stash.
    pub fn all() -> impl Iterator<Item = Location> {
        (0..buckets())
            .flat_map(|bucket| (0..WAYS).map(move |way| Location::Bucket { bucket, way }))
            .chain((0..STASH_SLOTS).map(|slot| Location::Stash { slot }))
    }
}

/// What the driver knows of the flow-command port of its device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum CommandState {
    /// Nothing issued since the device was opened.
    #[default]
    Unknown,
    /// The last command this driver issued has completed.
    Idle,
    /// The last command this driver issued never reported `done`.
    Outstanding,
}

/// The 16-byte address in the four network-order words of `FLOW_SIP_*`.
fn address_words(addr: u128) -> [u32; 4] {
    let b = addr.to_be_bytes();
    [0, 1, 2, 3].map(|i| u32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]))
}

fn words_address(words: [u32; 4]) -> u128 {
    words
        .iter()
        .fold(0u128, |addr, &w| (addr << 32) | u128::from(w))
}

/// The register writes that put `key` (and, for an insert, `sqp`) into the
/// command registers: SIP, DIP, DQP, then SQP. The command itself is not
/// among them.
pub fn key_writes(key: &FlowKey, sqp: Option<u32>) -> Vec<(u32, u32)> {
    let mut writes = Vec::with_capacity(10);
    for (i, w) in address_words(key.sip).into_iter().enumerate() {
        writes.push((offset::FLOW_SIP_0 + 4 * i as u32, w));
    }
    for (i, w) in address_words(key.dip).into_iter().enumerate() {
        writes.push((offset::FLOW_DIP_0 + 4 * i as u32, w));
    }
    writes.push((offset::FLOW_DQP, key.dqp));
    if let Some(sqp) = sqp {
        writes.push((offset::FLOW_SQP, sqp));
    }
    writes
}

/// Every register write of a static insert, command included, in order
/// (what a device without polling, such as the reference model, takes).
pub fn insert_static_writes(key: &FlowKey, sqp: u32) -> Vec<(u32, u32)> {
    let mut writes = key_writes(key, Some(sqp));
    writes.push((offset::FLOW_COMMAND, flow_command::INSERT_STATIC));
    writes
}

fn command_name(command: u32) -> &'static str {
    match command {
        flow_command::LOOKUP => "lookup",
        flow_command::INSERT_STATIC => "insert_static",
        flow_command::DELETE => "delete",
        flow_command::READ_LOCATION => "read_location",
        _ => "?",
    }
}

/// The flow table of a device; see the module documentation for the protocol.
pub struct FlowTable<'a, B: RegisterBus> {
    device: &'a mut Device<B>,
}

impl<B: RegisterBus> Device<B> {
    /// The flow table, for look-ups, static entries and iteration.
    pub fn flow_table(&mut self) -> FlowTable<'_, B> {
        FlowTable { device: self }
    }

    /// How many times a flow-table command polls `FLOW_STATUS`.
    pub fn flow_poll_limit(&self) -> u32 {
        self.flow_poll_limit
    }

    /// Sets the poll limit (at least 1).
    pub fn set_flow_poll_limit(&mut self, polls: u32) {
        self.flow_poll_limit = polls.max(1);
    }
}

impl<B: RegisterBus> FlowTable<'_, B> {
    fn read(&mut self, offset: u32) -> Result<u32, DeviceError> {
        Ok(self.device.bus_mut().read32(offset)?)
    }

    fn write(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        Ok(self.device.bus_mut().write32(offset, value)?)
    }

    /// Polls `FLOW_STATUS` until `done`; `None` after the poll limit.
    fn poll_done(&mut self) -> Result<Option<u32>, DeviceError> {
        for _ in 0..self.device.flow_poll_limit {
            let status = self.read(offset::FLOW_STATUS)?;
            if status & flow_status::DONE != 0 {
                return Ok(Some(status));
            }
        }
        Ok(None)
    }

    /// Step 1 of the protocol: no command may be in flight. Reads only.
    pub fn wait_idle(&mut self) -> Result<(), DeviceError> {
        if self.poll_done()?.is_some() {
            self.device.flow_state = CommandState::Idle;
            return Ok(());
        }
        match self.device.flow_state {
            // FLOW_STATUS reads 0 from reset until the first command.
            CommandState::Unknown => Ok(()),
            CommandState::Idle | CommandState::Outstanding => {
                self.device.flow_state = CommandState::Outstanding;
                Err(FlowError::Busy {
                    polls: self.device.flow_poll_limit,
                }
                .into())
            }
        }
    }

    /// Runs one command: idle check, the operand writes, the command write,
    /// the poll. Returns `FLOW_STATUS`.
    fn run(&mut self, operands: &[(u32, u32)], command: u32) -> Result<u32, DeviceError> {
        self.wait_idle()?;
        for &(offset, value) in operands {
            self.write(offset, value)?;
        }
        self.device.flow_state = CommandState::Outstanding;
        self.write(offset::FLOW_COMMAND, command)?;
        match self.poll_done()? {
            Some(status) => {
                self.device.flow_state = CommandState::Idle;
                Ok(status)
            }
            None => Err(FlowError::CommandTimeout {
                command: command_name(command),
                polls: self.device.flow_poll_limit,
            }
            .into()),
        }
    }

    fn entry(&mut self, status: u32) -> Result<FlowEntry, DeviceError> {
        let sqp = if status & flow_status::SQP_VALID != 0 {
            Some(self.read(offset::FLOW_RESULT_SQP)?)
        } else {
            None
        };
        Ok(FlowEntry {
            sqp,
            pinned: status & flow_status::PINNED != 0,
        })
    }

    fn check_key(key: &FlowKey) -> Result<(), FlowError> {
        check_qp("destination QP", key.dqp).map(|_| ())
    }

    /// The entry of `key`, if the table holds it.
    pub fn lookup(&mut self, key: &FlowKey) -> Result<Option<FlowEntry>, DeviceError> {
        Self::check_key(key)?;
        let status = self.run(&key_writes(key, None), flow_command::LOOKUP)?;
        if status & flow_status::HIT == 0 {
            return Ok(None);
        }
        self.entry(status).map(Some)
    }

    /// Inserts `key` as a static entry with source QP `sqp`, or makes an
    /// existing entry static with that SQP. Returns whether the key was
    /// already in the table.
    pub fn insert_static(&mut self, key: &FlowKey, sqp: u32) -> Result<bool, DeviceError> {
        Self::check_key(key)?;
        check_qp("source QP", sqp)?;
        let status = self.run(&key_writes(key, Some(sqp)), flow_command::INSERT_STATIC)?;
        if status & flow_status::FAILED != 0 {
            return Err(FlowError::InsertFailed { key: *key }.into());
        }
        Ok(status & flow_status::HIT != 0)
    }

    /// Removes `key`, static or learned. Returns whether it was there.
    pub fn delete(&mut self, key: &FlowKey) -> Result<bool, DeviceError> {
        Self::check_key(key)?;
        let status = self.run(&key_writes(key, None), flow_command::DELETE)?;
        Ok(status & flow_status::HIT != 0)
    }

    /// The entry at one location, with its key.
    pub fn read_location(
        &mut self,
        location: Location,
    ) -> Result<Option<(FlowKey, FlowEntry)>, DeviceError> {
        let status = self.run(
            &[(offset::FLOW_LOCATION, location.register_value())],
            flow_command::READ_LOCATION,
        )?;
        if status & flow_status::HIT == 0 {
            return Ok(None);
        }
        let mut address = |first: u32| -> Result<u128, DeviceError> {
            let mut words = [0u32; 4];
            for (i, w) in words.iter_mut().enumerate() {
                *w = self.read(first + 4 * i as u32)?;
            }
            Ok(words_address(words))
        };
        let sip = address(offset::FLOW_RESULT_SIP_0)?;
        let dip = address(offset::FLOW_RESULT_DIP_0)?;
        let dqp = self.read(offset::FLOW_RESULT_DQP)?;
        let key = FlowKey { sip, dip, dqp };
        Ok(Some((key, self.entry(status)?)))
    }

    /// Every entry, location by location (see [`Location::all`]); stops at
    /// the first error.
    pub fn iter(&mut self) -> FlowIter<'_, B> {
        FlowIter {
            table: FlowTable {
                device: &mut *self.device,
            },
            locations: Box::new(Location::all()),
            failed: false,
        }
    }

    /// Every entry, in location order.
    pub fn list(&mut self) -> Result<Vec<(FlowKey, FlowEntry)>, DeviceError> {
        self.iter().collect()
    }
}

/// Iterator over the entries of a flow table ([`FlowTable::iter`]).
pub struct FlowIter<'a, B: RegisterBus> {
    table: FlowTable<'a, B>,
    locations: Box<dyn Iterator<Item = Location>>,
    failed: bool,
}

impl<B: RegisterBus> Iterator for FlowIter<'_, B> {
    type Item = Result<(FlowKey, FlowEntry), DeviceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        for location in self.locations.by_ref() {
            match self.table.read_location(location) {
                Ok(Some(found)) => return Some(Ok(found)),
                Ok(None) => {}
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv6Addr;

    #[test]
    fn lh_01_flow_keys_are_checked() {
        let key = flow_key(
            "10.0.0.1".parse().unwrap(),
            "10.0.0.4".parse().unwrap(),
            200,
        )
        .unwrap();
        assert_eq!(key, FlowKey::ipv4([10, 0, 0, 1], [10, 0, 0, 4], 200));
        assert!(is_ipv4(&key));
        assert_eq!(key_addr(key.sip).to_string(), "10.0.0.1");
        let v6 = flow_key(
            "fd00::1".parse().unwrap(),
            "fd00::2".parse().unwrap(),
            QP_MAX,
        )
        .unwrap();
        assert_eq!(
            v6,
            FlowKey::ipv6(
                "fd00::1".parse::<Ipv6Addr>().unwrap(),
                "fd00::2".parse().unwrap(),
                QP_MAX
            )
        );
        assert!(!is_ipv4(&v6));
        // A mapped IPv6 pair is the IPv4 flow.
        let mapped = flow_key(
            "::ffff:10.0.0.1".parse().unwrap(),
            "::ffff:10.0.0.4".parse().unwrap(),
            200,
        )
        .unwrap();
        assert_eq!(mapped, key);
        for (src, dst) in [
            ("10.0.0.1", "fd00::2"),
            ("fd00::1", "10.0.0.4"),
            ("::ffff:10.0.0.1", "fd00::2"),
        ] {
            assert!(matches!(
                flow_key(src.parse().unwrap(), dst.parse().unwrap(), 1),
                Err(FlowError::MixedFamilies { .. })
            ));
        }
        let err = flow_key(
            "10.0.0.1".parse().unwrap(),
            "10.0.0.4".parse().unwrap(),
            1 << 24,
        )
        .unwrap_err();
        assert_eq!(
            err,
            FlowError::QpOutOfRange {
                what: "destination QP",
                value: 1 << 24
            }
        );
        assert!(err.to_string().contains("24-bit"), "{err}");
    }

    #[test]
    fn lh_01_key_registers_are_network_order_words() {
        let key = FlowKey::ipv4([10, 0, 0, 1], [10, 0, 0, 4], 200);
        let writes = insert_static_writes(&key, 100);
        assert_eq!(
            writes,
            [
                (offset::FLOW_SIP_0, 0),
                (offset::FLOW_SIP_1, 0),
                (offset::FLOW_SIP_2, 0x0000_FFFF),
                (offset::FLOW_SIP_3, 0x0A00_0001),
                (offset::FLOW_DIP_0, 0),
                (offset::FLOW_DIP_1, 0),
                (offset::FLOW_DIP_2, 0x0000_FFFF),
                (offset::FLOW_DIP_3, 0x0A00_0004),
                (offset::FLOW_DQP, 200),
                (offset::FLOW_SQP, 100),
                (offset::FLOW_COMMAND, flow_command::INSERT_STATIC),
            ]
        );
        assert_eq!(words_address(address_words(key.sip)), key.sip);
    }

    #[test]
    fn lh_01_locations_cover_buckets_ways_and_stash() {
        assert_eq!(buckets(), 4096);
        assert_eq!(capacity(), 16_392);
        let all: Vec<Location> = Location::all().collect();
        assert_eq!(all.len(), 16_392);
        assert_eq!(all[0].register_value(), 0);
        assert_eq!(
            Location::Bucket {
                bucket: 4095,
                way: 3
            }
            .register_value(),
            0xFFF3
        );
        assert_eq!(
            all[16_383],
            Location::Bucket {
                bucket: 4095,
                way: 3
            }
        );
        assert_eq!(all[16_384].register_value(), 1 << 16);
        assert_eq!(all[16_391].register_value(), 1 << 16 | 7);
    }
}
