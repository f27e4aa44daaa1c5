//! PX-03: the gateway's prefix -> proxy table (`PROXY_ENTRY_*`,
//! `PROXY_LOOKUP_*`): the congested node's CN messages go to the proxy
//! that serves the sender's prefix.
//!
//! Entries are written through staging registers and committed with one
//! `PROXY_ENTRY_COMMAND` write, which replaces the whole entry in one clock:
//! the table never holds half an entry, whatever the host was doing when
//! it stopped. `add` keeps one entry per prefix (a second `add` of the same
//! prefix replaces its proxy).

use crate::bus::RegisterBus;
use crate::device::{Device, DeviceError};
use crate::formats::Prefix;
use cngw_regmap::{by_name, proxy, Register};
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

/// One valid entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProxyRoute {
    pub index: u32,
    pub prefix: Prefix,
    pub proxy: IpAddr,
}

/// Why a table change was refused (nothing was written).
#[derive(Debug)]
pub enum ProxyTableError {
    /// Every entry holds another prefix.
    Full {
        entries: u32,
    },
    /// `del` of a prefix the table does not hold.
    NotFound {
        prefix: String,
    },
    /// A prefix with host bits, too long, or of the wrong form.
    BadPrefix(String),
    /// The prefix and the proxy are of different address families.
    FamilyMismatch {
        prefix: String,
        proxy: IpAddr,
    },
    Device(DeviceError),
}

impl fmt::Display for ProxyTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyTableError::Full { entries } => write!(
                f,
                "the prefix -> proxy table is full ({entries} entries); delete one first"
            ),
            ProxyTableError::NotFound { prefix } => {
                write!(f, "no entry for {prefix} in the prefix -> proxy table")
            }
            ProxyTableError::BadPrefix(e) => write!(f, "{e}"),
            ProxyTableError::FamilyMismatch { prefix, proxy } => write!(
                f,
                "{prefix} and proxy {proxy} are of different address families"
            ),
            ProxyTableError::Device(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ProxyTableError {}

impl From<DeviceError> for ProxyTableError {
    fn from(e: DeviceError) -> Self {
        ProxyTableError::Device(e)
    }
}

fn reg(name: &str) -> &'static Register {
    by_name(name).unwrap_or_else(|| panic!("register map has no {name}"))
}

/// An address in the gateway's 128-bit space (IPv4 as `::ffff:a.b.c.d`).
fn bits(addr: IpAddr) -> u128 {
    match addr {
        IpAddr::V4(v4) => u128::from_be_bytes(v4.to_ipv6_mapped().octets()),
        IpAddr::V6(v6) => u128::from_be_bytes(v6.octets()),
    }
}

/// The address of 128 bits, IPv4 when IPv4-mapped.
fn addr_of(bits: u128) -> IpAddr {
    let v6 = Ipv6Addr::from(bits);
    match v6.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(v6),
    }
}

fn words(v: u128) -> [u32; 4] {
    [
        (v >> 96) as u32,
        (v >> 64) as u32,
        (v >> 32) as u32,
        v as u32,
    ]
}

/// A checked prefix (no host bits, length within the family).
pub fn checked_prefix(text: &str) -> Result<Prefix, ProxyTableError> {
    let p = Prefix::parse(text).map_err(ProxyTableError::BadPrefix)?;
    match p.check() {
        Ok(()) | Err(crate::formats::FormatError::CoversIpv4 { .. }) => Ok(p),
        Err(e) => Err(ProxyTableError::BadPrefix(e.to_string())),
    }
}

impl<B: RegisterBus> Device<B> {
    /// Every valid entry, by index.
    pub fn proxy_routes(&mut self) -> Result<Vec<ProxyRoute>, DeviceError> {
        let index = reg("PROXY_ENTRY_INDEX");
        let was = self.read(index)?;
        let mut out = Vec::new();
        for i in 0..proxy::ENTRIES {
            self.write(index, i)?;
            let control = self.read(reg("PROXY_ENTRY_READ_STATE"))?;
            if control & proxy::ENTRY_VALID == 0 {
                continue;
            }
            let mut prefix = 0u128;
            let mut addr = 0u128;
            for w in 0..4 {
                prefix = (prefix << 32)
                    | self.read(reg(&format!("PROXY_ENTRY_READ_PREFIX_{w}")))? as u128;
                addr =
                    (addr << 32) | self.read(reg(&format!("PROXY_ENTRY_READ_ADDR_{w}")))? as u128;
            }
            let len = (control >> proxy::ENTRY_LEN_SHIFT) & 0xFF;
            // An IPv4 prefix is stored as ::ffff:a.b.c.d/(96 + len).
            let prefix = match addr_of(prefix) {
                IpAddr::V4(v4) if len >= 96 => Prefix {
                    addr: IpAddr::V4(v4),
                    len: (len - 96) as u8,
                },
                _ => Prefix {
                    addr: IpAddr::V6(Ipv6Addr::from(prefix)),
                    len: len as u8,
                },
            };
            out.push(ProxyRoute {
                index: i,
                prefix,
                proxy: addr_of(addr),
            });
        }
        self.write(index, was)?;
        Ok(out)
    }

    /// Writes entry `index`: `Some((prefix, proxy))` or `None` (invalid),
    /// committed in one clock.
    pub fn write_proxy_entry(
        &mut self,
        index: u32,
        route: Option<(&Prefix, IpAddr)>,
    ) -> Result<(), DeviceError> {
        let (prefix, proxy_addr, control) = match route {
            Some((p, a)) => (
                bits(p.addr),
                bits(a),
                proxy::ENTRY_VALID | p.register_len() << proxy::ENTRY_LEN_SHIFT,
            ),
            None => (0, 0, 0),
        };
        for (w, v) in words(prefix).into_iter().enumerate() {
            self.write(reg(&format!("PROXY_ENTRY_PREFIX_{w}")), v)?;
        }
        for (w, v) in words(proxy_addr).into_iter().enumerate() {
            self.write(reg(&format!("PROXY_ENTRY_ADDR_{w}")), v)?;
        }
        self.write(reg("PROXY_ENTRY_CONTROL"), control)?;
        self.write(reg("PROXY_ENTRY_INDEX"), index)?;
        self.write(reg("PROXY_ENTRY_COMMAND"), proxy::COMMIT)
    }

    /// Adds (or replaces the proxy of) `prefix`: its own entry if it has
    /// one, else the lowest free entry. Returns the entry's index.
    pub fn add_proxy_route(
        &mut self,
        prefix: &Prefix,
        proxy_addr: IpAddr,
    ) -> Result<u32, ProxyTableError> {
        if prefix.addr.is_ipv4() != proxy_addr.is_ipv4() {
            return Err(ProxyTableError::FamilyMismatch {
                prefix: prefix.to_string(),
                proxy: proxy_addr,
            });
        }
        let routes = self.proxy_routes()?;
        let index = match routes.iter().find(|r| r.prefix == *prefix) {
            Some(r) => r.index,
            None => (0..proxy::ENTRIES)
                .find(|i| routes.iter().all(|r| r.index != *i))
                .ok_or(ProxyTableError::Full {
                    entries: proxy::ENTRIES,
                })?,
        };
        self.write_proxy_entry(index, Some((prefix, proxy_addr)))?;
        Ok(index)
    }

    /// Removes `prefix`'s entry. Returns its index.
    pub fn del_proxy_route(&mut self, prefix: &Prefix) -> Result<u32, ProxyTableError> {
        let routes = self.proxy_routes()?;
        let r = routes.iter().find(|r| r.prefix == *prefix).ok_or_else(|| {
            ProxyTableError::NotFound {
                prefix: prefix.to_string(),
            }
        })?;
        self.write_proxy_entry(r.index, None)?;
        Ok(r.index)
    }

    /// The gateway's answer for `addr`: the index of the longest matching
    /// entry.
    pub fn lookup_proxy(&mut self, addr: IpAddr) -> Result<Option<u32>, DeviceError> {
        for (w, v) in words(bits(addr)).into_iter().enumerate() {
            self.write(reg(&format!("PROXY_LOOKUP_ADDR_{w}")), v)?;
        }
        // The answer is ready three clocks after the last address word: a
        // read of that word takes longer.
        self.read(reg("PROXY_LOOKUP_ADDR_3"))?;
        let r = self.read(reg("PROXY_LOOKUP_RESULT"))?;
        Ok((r & proxy::LOOKUP_HIT != 0).then_some((r >> proxy::LOOKUP_INDEX_SHIFT) & 0xF))
    }
}
