//! The Long-haul CNP format table (LH-15): which notification format the
//! senders in an address prefix accept.
//!
//! The gateway matches a notification's destination (the data packet's
//! source address) against every valid entry; the longest matching prefix
//! decides, and a sender no entry matches gets the per-family default of
//! `LH_OPTIONS` (`ipv4_longhaul`, `ipv6_longhaul`). Formats:
//!
//! | name | register | the sender gets |
//! |---|---|---|
//! | `cnp` | 0 | a standard CNP |
//! | `rocev2` | 1 | the Long-haul CNP in RoCEv2 format (LH-12) |
//! | `icmpv6` | 2 | the Long-haul CNP in ICMPv6 format (LH-13); IPv6 prefixes only |
//!
//! A [`FormatTable`] replaces the whole table: its entries take indices 0..
//! in order and the others are cleared. [`FormatTable::check`] lists every
//! problem (more than [`FORMAT_ENTRIES`] entries, a length beyond the
//! family's, host bits set, `icmpv6` for an IPv4 prefix, an IPv6 prefix
//! reaching into the IPv4-mapped range `::ffff:0:0/96`, the same prefix
//! twice); a table with any problem writes nothing. The writes never leave
//! a half-written entry in use: each entry's `CONTROL` is cleared first, then
//! its prefix is written, then its `CONTROL` with `valid` last.

use crate::bus::RegisterBus;
use crate::device::{Device, DeviceError};
use cngw_regmap::{by_offset, format_control, offset};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use thiserror::Error;

/// Entries of the table.
pub const FORMAT_ENTRIES: usize = format_control::ENTRIES;

/// The notification format of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NotifyFormat {
    /// A standard CNP.
    Cnp,
    /// The Long-haul CNP in RoCEv2 format.
    Rocev2,
    /// The Long-haul CNP in ICMPv6 format (IPv6 senders only).
    Icmpv6,
}

impl NotifyFormat {
    pub const ALL: [NotifyFormat; 3] = [
        NotifyFormat::Cnp,
        NotifyFormat::Rocev2,
        NotifyFormat::Icmpv6,
    ];

    /// The configuration name: `cnp`, `rocev2`, `icmpv6`.
    pub fn name(self) -> &'static str {
        match self {
            NotifyFormat::Cnp => "cnp",
            NotifyFormat::Rocev2 => "rocev2",
            NotifyFormat::Icmpv6 => "icmpv6",
        }
    }

    /// The format a configuration name stands for.
    pub fn from_name(name: &str) -> Option<NotifyFormat> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The `format` field of `LH_FORMATn_CONTROL`.
    pub fn register_value(self) -> u32 {
        match self {
            NotifyFormat::Cnp => 0,
            NotifyFormat::Rocev2 => 1,
            NotifyFormat::Icmpv6 => 2,
        }
    }

    /// The format a `format` field holds (3 is reserved).
    pub fn from_register(field: u32) -> Option<NotifyFormat> {
        Self::ALL.into_iter().find(|f| f.register_value() == field)
    }
}

impl fmt::Display for NotifyFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An IPv4 or IPv6 prefix: `10.0.0.0/24`, `fd00:1::/32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    pub addr: IpAddr,
    /// Bits: 0..=32 for IPv4, 0..=128 for IPv6.
    pub len: u8,
}

/// The IPv4-mapped range `::ffff:0:0/96`, where the gateway keeps IPv4 senders.
const MAPPED: u128 = 0xFFFF << 32;

/// The first `len` bits of 128 set.
fn mask(len: u32) -> u128 {
    u128::MAX.checked_shl(128 - len.min(128)).unwrap_or(0)
}

impl Prefix {
    /// `address/length`; an address without a length is one host (`/32`,
    /// `/128`). Only the syntax is checked here ([`Prefix::check`] does the rest).
    pub fn parse(text: &str) -> Result<Prefix, String> {
        let text = text.trim();
        let (addr, len) = match text.split_once('/') {
            Some((a, l)) => (a, Some(l)),
            None => (text, None),
        };
        let addr: IpAddr = addr.parse().map_err(|_| {
            format!("{text:?} is not a prefix such as \"10.0.0.0/24\" or \"fd00:1::/32\"")
        })?;
        let len = match len {
            None => Self::max_len(addr),
            Some(l) => l
                .parse::<u8>()
                .map_err(|_| format!("{text:?}: the prefix length must be a number of bits"))?,
        };
        Ok(Prefix { addr, len })
    }

    fn max_len(addr: IpAddr) -> u8 {
        match addr {
            IpAddr::V4(_) => 32,
            IpAddr::V6(_) => 128,
        }
    }

    pub fn is_ipv4(&self) -> bool {
        self.addr.is_ipv4()
    }

    /// The address as the gateway sees it (IPv4 as `::ffff:a.b.c.d`).
    fn bits(&self) -> u128 {
        match self.addr {
            IpAddr::V4(v4) => u128::from_be_bytes(v4.to_ipv6_mapped().octets()),
            IpAddr::V6(v6) => u128::from_be_bytes(v6.octets()),
        }
    }

    /// The prefix length in the gateway's 128-bit space (IPv4: 96 + len).
    pub fn register_len(&self) -> u32 {
        u32::from(self.len) + if self.is_ipv4() { 96 } else { 0 }
    }

    /// The prefix's network: the address with the host bits cleared.
    pub fn network(&self) -> Prefix {
        let bits = self.bits() & mask(self.register_len());
        let addr = match self.addr {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::from(bits as u32)),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::from(bits)),
        };
        Prefix {
            addr,
            len: self.len,
        }
    }

    /// Whether `addr` (an IPv4 or IPv6 address) lies in the prefix.
    pub fn contains(&self, addr: IpAddr) -> bool {
        let bits = match addr {
            IpAddr::V4(v4) => u128::from_be_bytes(v4.to_ipv6_mapped().octets()),
            IpAddr::V6(v6) => u128::from_be_bytes(v6.octets()),
        };
        (bits ^ self.bits()) & mask(self.register_len()) == 0
    }

    /// The length fits the family, no host bit is set, and an IPv6 prefix
    /// stays out of the IPv4-mapped range.
    pub fn check(&self) -> Result<(), FormatError> {
        let max = Self::max_len(self.addr);
        if self.len > max {
            return Err(FormatError::LengthTooLong {
                prefix: self.to_string(),
                max,
            });
        }
        if self.network() != *self {
            return Err(FormatError::HostBits {
                prefix: self.to_string(),
                network: self.network().to_string(),
            });
        }
        if !self.is_ipv4() {
            let common = self.register_len().min(96);
            if (self.bits() ^ MAPPED) & mask(common) == 0 {
                return Err(if self.len >= 96 {
                    FormatError::MappedIpv6 {
                        prefix: self.to_string(),
                        ipv4: Prefix {
                            addr: IpAddr::V4(Ipv4Addr::from(self.bits() as u32)),
                            len: self.len - 96,
                        }
                        .to_string(),
                    }
                } else {
                    FormatError::CoversIpv4 {
                        prefix: self.to_string(),
                    }
                });
            }
        }
        Ok(())
    }

    /// `LH_FORMATn_PREFIX_0..3`: the 16 address bytes (IPv4-mapped) in
    /// network order, four to a word.
    pub fn register_words(&self) -> [u32; 4] {
        let b = self.bits().to_be_bytes();
        [0, 1, 2, 3]
            .map(|w| u32::from_be_bytes([b[4 * w], b[4 * w + 1], b[4 * w + 2], b[4 * w + 3]]))
    }
}

impl Prefix {
    /// The prefix a gateway entry holds: its four prefix words
    /// ([`Prefix::register_words`]) and its length in the 128-bit space
    /// (above 128 acts as 128). An IPv4-mapped address with a length of
    /// 96 or more reads as the IPv4 prefix; host bits are dropped, as the
    /// gateway ignores them.
    pub fn from_register_words(words: [u32; 4], len: u32) -> Prefix {
        let len = len.min(128);
        let mut bytes = [0u8; 16];
        for (w, word) in words.iter().enumerate() {
            bytes[4 * w..4 * w + 4].copy_from_slice(&word.to_be_bytes());
        }
        let v6 = Ipv6Addr::from(bytes);
        let prefix = match v6.to_ipv4_mapped() {
            Some(v4) if len >= 96 => Prefix {
                addr: IpAddr::V4(v4),
                len: (len - 96) as u8,
            },
            _ => Prefix {
                addr: IpAddr::V6(v6),
                len: len as u8,
            },
        };
        prefix.network()
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

/// One entry: the senders in `prefix` accept `format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatEntry {
    pub prefix: Prefix,
    pub format: NotifyFormat,
}

impl FormatEntry {
    /// `LH_FORMATn_CONTROL` of the entry, valid.
    pub fn control_value(&self) -> u32 {
        format_control::VALID
            | (self.format.register_value() << format_control::FORMAT_LSB)
            | (self.prefix.register_len() << format_control::PREFIX_LEN_LSB)
    }
}

/// A format table that cannot be programmed.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FormatError {
    #[error("{entries} format entries given: the table has {FORMAT_ENTRIES}")]
    TooManyEntries { entries: usize },
    #[error("{prefix}: the prefix length is at most {max}")]
    LengthTooLong { prefix: String, max: u8 },
    #[error("{prefix} has host bits set: the prefix is {network}")]
    HostBits { prefix: String, network: String },
    #[error("{prefix} is an IPv4 prefix: icmpv6 needs IPv6 senders (use rocev2 or cnp)")]
    Icmpv6ForIpv4 { prefix: String },
    #[error("{prefix} is IPv4-mapped: give it as the IPv4 prefix {ipv4}")]
    MappedIpv6 { prefix: String, ipv4: String },
    #[error("{prefix} covers the IPv4-mapped range ::ffff:0:0/96, so IPv4 senders would match it: give IPv4 senders IPv4 prefixes (0.0.0.0/0 for all)")]
    CoversIpv4 { prefix: String },
    #[error("{prefix} is listed twice (entries {first} and {second})")]
    Duplicate {
        prefix: String,
        first: usize,
        second: usize,
    },
}

/// The whole table: entries 0.. in order; the others are cleared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormatTable {
    pub entries: Vec<FormatEntry>,
}

/// `LH_FORMATn_PREFIX_0` of entry `i`.
pub fn prefix_offset(i: usize) -> u32 {
    offset::LH_FORMAT0_PREFIX_0 + format_control::STRIDE * i as u32
}

/// `LH_FORMATn_CONTROL` of entry `i`.
pub fn control_offset(i: usize) -> u32 {
    offset::LH_FORMAT0_CONTROL + format_control::STRIDE * i as u32
}

impl FormatTable {
    /// Every problem, each with the key it is about as the configuration
    /// file names it (relative to `[longhaul]`): `formats`,
    /// `formats[i].prefix`, `formats[i].format`, `formats[i]`.
    pub fn check(&self) -> Vec<(String, FormatError)> {
        let mut problems = Vec::new();
        if self.entries.len() > FORMAT_ENTRIES {
            problems.push((
                "formats".to_string(),
                FormatError::TooManyEntries {
                    entries: self.entries.len(),
                },
            ));
        }
        for (i, e) in self.entries.iter().enumerate() {
            match e.prefix.check() {
                Err(err) => problems.push((format!("formats[{i}].prefix"), err)),
                Ok(()) => {
                    if let Some(first) = self.entries[..i].iter().position(|f| f.prefix == e.prefix)
                    {
                        problems.push((
                            format!("formats[{i}]"),
                            FormatError::Duplicate {
                                prefix: e.prefix.to_string(),
                                first,
                                second: i,
                            },
                        ));
                    }
                }
            }
            if e.format == NotifyFormat::Icmpv6 && e.prefix.is_ipv4() {
                problems.push((
                    format!("formats[{i}].format"),
                    FormatError::Icmpv6ForIpv4 {
                        prefix: e.prefix.to_string(),
                    },
                ));
            }
        }
        problems
    }

    /// The register writes in the order they must happen; the first
    /// problem if any. Entry by entry: `CONTROL` 0, then (for a listed
    /// entry) `PREFIX_0..3` and `CONTROL` with `valid`.
    pub fn writes(&self) -> Result<Vec<(u32, u32)>, FormatError> {
        if let Some((_, e)) = self.check().into_iter().next() {
            return Err(e);
        }
        let mut writes = Vec::new();
        for i in 0..FORMAT_ENTRIES {
            writes.push((control_offset(i), 0));
            if let Some(e) = self.entries.get(i) {
                for (w, word) in e.prefix.register_words().into_iter().enumerate() {
                    writes.push((prefix_offset(i) + 4 * w as u32, word));
                }
                writes.push((control_offset(i), e.control_value()));
            }
        }
        Ok(writes)
    }

    /// The format of a sender as the gateway would choose it from this table
    /// alone: the longest matching prefix (an IPv4 sender matched by an
    /// `icmpv6` entry gets a standard CNP); `None` when no entry matches
    /// (`LH_OPTIONS` decides).
    pub fn format_for(&self, sender: IpAddr) -> Option<NotifyFormat> {
        let best = self
            .entries
            .iter()
            .filter(|e| e.prefix.contains(sender))
            .fold(None::<&FormatEntry>, |best, e| match best {
                Some(b) if b.prefix.register_len() >= e.prefix.register_len() => Some(b),
                _ => Some(e),
            })?;
        Some(match (best.format, sender) {
            (NotifyFormat::Icmpv6, IpAddr::V4(_)) => NotifyFormat::Cnp,
            (f, _) => f,
        })
    }
}

impl<B: RegisterBus> Device<B> {
    /// Replaces the format table (LH-15) after checking it; an invalid
    /// table writes nothing.
    pub fn set_format_table(&mut self, table: &FormatTable) -> Result<(), DeviceError> {
        let writes = table.writes()?;
        for &(off, value) in &writes {
            let reg = by_offset(off).expect("format-table writes name mapped registers");
            self.check(reg, value)?;
        }
        for &(off, value) in &writes {
            self.write_offset(off, value)?;
        }
        Ok(())
    }

    /// The valid entries of the format table as programmed, with their
    /// indices. An entry the driver could not have written (a reserved
    /// format, a length beyond 128, an IPv6 prefix length in the
    /// IPv4-mapped range read as IPv4) is shown as the gateway uses it.
    pub fn format_table(&mut self) -> Result<Vec<(usize, FormatEntry)>, DeviceError> {
        let mut entries = Vec::new();
        for i in 0..FORMAT_ENTRIES {
            let control = self.bus_mut().read32(control_offset(i))?;
            let format = (control >> format_control::FORMAT_LSB) & 3;
            if control & format_control::VALID == 0 {
                continue;
            }
            let Some(format) = NotifyFormat::from_register(format) else {
                continue; // reserved: never matches
            };
            let mut words = [0u32; 4];
            for (w, word) in words.iter_mut().enumerate() {
                *word = self.bus_mut().read32(prefix_offset(i) + 4 * w as u32)?;
            }
            let len = (control >> format_control::PREFIX_LEN_LSB) & 0xFF;
            entries.push((
                i,
                FormatEntry {
                    prefix: Prefix::from_register_words(words, len),
                    format,
                },
            ));
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemBus;

    fn entry(prefix: &str, format: NotifyFormat) -> FormatEntry {
        FormatEntry {
            prefix: Prefix::parse(prefix).unwrap(),
            format,
        }
    }

    #[test]
    fn lh_15_prefixes_parse_and_pack_ipv4_mapped() {
        let p = Prefix::parse("10.0.0.0/24").unwrap();
        assert_eq!(p.register_words(), [0, 0, 0xFFFF, 0x0A00_0000]);
        assert_eq!(p.register_len(), 120);
        assert_eq!(p.to_string(), "10.0.0.0/24");
        let p = Prefix::parse(" fd00:1:2::/48 ").unwrap();
        assert_eq!(p.register_words(), [0xFD00_0001, 0x0002_0000, 0, 0]);
        assert_eq!(p.register_len(), 48);
        assert_eq!(
            Prefix::parse("10.0.0.7").unwrap(),
            Prefix {
                addr: "10.0.0.7".parse().unwrap(),
                len: 32
            }
        );
        assert_eq!(Prefix::parse("fd00::7").unwrap().len, 128);
        for bad in [
            "10.0.0/24",
            "10.0.0.0/",
            "10.0.0.0/x",
            "10.0.0.0/-1",
            "fd00::/999",
            "host/8",
        ] {
            assert!(Prefix::parse(bad).is_err(), "{bad}");
        }
        let e = entry("10.0.0.0/24", NotifyFormat::Rocev2);
        assert_eq!(e.control_value(), 1 | (1 << 1) | (120 << 8));
        let e = entry("fd00::/16", NotifyFormat::Icmpv6);
        assert_eq!(e.control_value(), 1 | (2 << 1) | (16 << 8));
        for f in NotifyFormat::ALL {
            assert_eq!(NotifyFormat::from_name(f.name()), Some(f));
            assert_eq!(NotifyFormat::from_register(f.register_value()), Some(f));
        }
        assert_eq!(NotifyFormat::from_register(3), None);
        assert_eq!(NotifyFormat::from_name("roce"), None);
    }

    #[test]
    fn lh_15_format_table_writes_clear_then_prefix_then_control() {
        let table = FormatTable {
            entries: vec![
                entry("10.0.0.0/8", NotifyFormat::Cnp),
                entry("fd00:1::/32", NotifyFormat::Icmpv6),
            ],
        };
        let writes = table.writes().unwrap();
        let mut want = vec![
            (offset::LH_FORMAT0_CONTROL, 0),
            (offset::LH_FORMAT0_PREFIX_0, 0),
            (offset::LH_FORMAT0_PREFIX_1, 0),
            (offset::LH_FORMAT0_PREFIX_2, 0xFFFF),
            (offset::LH_FORMAT0_PREFIX_3, 0x0A00_0000),
            (offset::LH_FORMAT0_CONTROL, 1 | (104 << 8)),
            (offset::LH_FORMAT1_CONTROL, 0),
            (offset::LH_FORMAT1_PREFIX_0, 0xFD00_0001),
            (offset::LH_FORMAT1_PREFIX_1, 0),
            (offset::LH_FORMAT1_PREFIX_2, 0),
            (offset::LH_FORMAT1_PREFIX_3, 0),
            (offset::LH_FORMAT1_CONTROL, 1 | (2 << 1) | (32 << 8)),
        ];
        for i in 2..FORMAT_ENTRIES {
            want.push((control_offset(i), 0));
        }
        assert_eq!(writes, want);

        // Through a device: the same writes in the same order, and the
        // table reads back.
        let mut dev = Device::open(MemBus::new()).unwrap();
        dev.bus_mut().clear_log();
        dev.set_format_table(&table).unwrap();
        assert_eq!(dev.bus().write_log(), want.as_slice());
        assert_eq!(
            dev.format_table().unwrap(),
            vec![(0, table.entries[0]), (1, table.entries[1])]
        );
        // An empty table clears every entry.
        dev.set_format_table(&FormatTable::default()).unwrap();
        assert!(dev.format_table().unwrap().is_empty());
    }

    #[test]
    fn lh_15_bad_format_tables_are_all_listed_and_write_nothing() {
        let table = FormatTable {
            entries: vec![
                FormatEntry {
                    prefix: Prefix {
                        addr: "10.0.0.0".parse().unwrap(),
                        len: 33,
                    },
                    format: NotifyFormat::Rocev2,
                },
                entry("10.0.0.1/24", NotifyFormat::Rocev2),
                entry("10.1.0.0/16", NotifyFormat::Icmpv6),
                entry("::ffff:10.2.0.0/112", NotifyFormat::Rocev2),
                entry("::/0", NotifyFormat::Icmpv6),
                entry("fd00::/16", NotifyFormat::Rocev2),
                entry("fd00::/16", NotifyFormat::Cnp),
                FormatEntry {
                    prefix: Prefix {
                        addr: "fd00::".parse().unwrap(),
                        len: 129,
                    },
                    format: NotifyFormat::Cnp,
                },
                entry("fd01::/16", NotifyFormat::Rocev2),
            ],
        };
        let problems = table.check();
        let keys: Vec<&str> = problems.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "formats",
                "formats[0].prefix",
                "formats[1].prefix",
                "formats[2].format",
                "formats[3].prefix",
                "formats[4].prefix",
                "formats[6]",
                "formats[7].prefix",
            ],
            "{problems:#?}"
        );
        let text: Vec<String> = problems.iter().map(|(_, e)| e.to_string()).collect();
        assert_eq!(text[0], "9 format entries given: the table has 8");
        assert_eq!(text[1], "10.0.0.0/33: the prefix length is at most 32");
        assert_eq!(
            text[2],
            "10.0.0.1/24 has host bits set: the prefix is 10.0.0.0/24"
        );
        assert!(text[3].contains("icmpv6 needs IPv6"), "{}", text[3]);
        assert_eq!(
            text[4],
            "::ffff:10.2.0.0/112 is IPv4-mapped: give it as the IPv4 prefix 10.2.0.0/16"
        );
        assert!(text[5].contains("::ffff:0:0/96"), "{}", text[5]);
        assert_eq!(text[6], "fd00::/16 is listed twice (entries 5 and 6)");
        assert_eq!(text[7], "fd00::/129: the prefix length is at most 128");
        let mut dev = Device::open(MemBus::new()).unwrap();
        dev.bus_mut().clear_log();
        let err = dev.set_format_table(&table).unwrap_err();
        assert!(err.to_string().contains("the table has 8"), "{err}");
        assert!(dev.bus().write_log().is_empty());
        // Each problem alone also writes nothing.
        for i in [0, 1, 2, 3, 4, 7] {
            let one = FormatTable {
                entries: vec![table.entries[i]],
            };
            assert_eq!(one.check().len(), 1, "entry {i}");
            assert!(dev.set_format_table(&one).is_err(), "entry {i}");
            assert!(dev.bus().write_log().is_empty(), "entry {i}");
        }
        let twice = FormatTable {
            entries: table.entries[5..7].to_vec(),
        };
        assert!(dev.set_format_table(&twice).is_err());
        assert!(dev.bus().write_log().is_empty());
        // IPv6 prefixes beside the mapped range are fine; those around it are not.
        for ok in ["::fffe:0:0/96", "64:ff9b::/96", "2001:db8::/32", "::1/128"] {
            assert_eq!(Prefix::parse(ok).unwrap().check(), Ok(()), "{ok}");
        }
        for covers in ["::/0", "::/80", "::fffe:0:0/95"] {
            assert!(
                matches!(
                    Prefix::parse(covers).unwrap().check(),
                    Err(FormatError::CoversIpv4 { .. })
                ),
                "{covers}"
            );
        }
    }

    #[test]
    fn lh_15_format_for_follows_the_longest_prefix() {
        let table = FormatTable {
            entries: vec![
                entry("10.0.0.0/8", NotifyFormat::Rocev2),
                entry("10.1.0.0/16", NotifyFormat::Cnp),
                entry("10.1.2.3", NotifyFormat::Rocev2),
                entry("fd00::/16", NotifyFormat::Icmpv6),
                entry("fd00:1::/32", NotifyFormat::Rocev2),
            ],
        };
        assert_eq!(table.check(), []);
        let f = |a: &str| table.format_for(a.parse().unwrap());
        assert_eq!(f("10.9.9.9"), Some(NotifyFormat::Rocev2));
        assert_eq!(f("10.1.9.9"), Some(NotifyFormat::Cnp));
        assert_eq!(f("10.1.2.3"), Some(NotifyFormat::Rocev2));
        assert_eq!(f("11.0.0.1"), None);
        assert_eq!(f("fd00:2::1"), Some(NotifyFormat::Icmpv6));
        assert_eq!(f("fd00:1::1"), Some(NotifyFormat::Rocev2));
        assert_eq!(f("fd01::1"), None);
    }
}
