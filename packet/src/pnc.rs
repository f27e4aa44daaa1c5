//! Proxy Node Capability (PNC) advertisements, host side
//! (draft-xiao-rtgwg-proxy-congestion-notification, Figures 6 to 9, PX-03):
//! the routing structures that carry the PNC flag with a prefix, so that the
//! gateway's host software can learn "prefix P is served by proxy node N".
//!
//! | protocol | container | PNC signal | module |
//! |---|---|---|---|
//! | IS-IS | TLV 135 (RFC 5305) / TLV 236 (RFC 5308) entry | P = bit 7 of the Prefix Attribute Flags sub-TLV 4 (RFC 7794), mask 0x01 of its first octet | [`isis`] |
//! | OSPFv2 | Extended Prefix TLV 1 (RFC 7684) | P = bit 2 of the Prefix Extended Flags sub-TLV 11 (RFC 9792), mask 0x20 | [`ospf`] |
//! | OSPFv3 | Inter-Area-Prefix TLV 3 (RFC 8362) | P = bit 2 of the Prefix Extended Flags sub-TLV 37 (RFC 9792), mask 0x20 | [`ospf`] |
//! | BGP | MP_REACH_NLRI (RFC 4760) + Next Hop Dependent Characteristics attribute 39 | a characteristic TLV of code TBD2, length 0 ([`PncCodes`]) | [`bgp`] |
//!
//! **Where "bit 2" lives.** The draft names the "OSPFv2/OSPFv3 Prefix
//! Attribute Flags field \[RFC9792\]" and draws it as `|U|U|P|`, bits 0 and
//! 1 unassigned. That is the variable-length flags field RFC 9792 adds (a
//! sub-TLV its drafts call Prefix Attribute Flags and the IANA registries
//! Prefix Extended Flags), not the 8-bit fields RFC 9792 extends: bit 2
//! (0x20) of the Extended Prefix TLV's Flags is RFC 9089's ELC E-flag (after
//! A = 0x80, N = 0x40), and 0x20 of the OSPFv3 PrefixOptions is RFC 8362's
//! N-bit, so reading the draft there would collide. The bit numbers are
//! [`ISIS_PNC_BIT`], [`OSPFV2_PNC_BIT`] and [`OSPFV3_PNC_BIT`]; the sub-TLV
//! types are in [`ospf`]; each is one constant to change.
//!
//! **Who the proxy is** ([`PncAdvertisement::proxy`]). The draft sets the
//! flag "for the local host prefix of the originating node if it's used as a
//! congestion notification proxy node". An IGP prefix entry does not name its
//! originator, so `proxy` is, in this order: the originator's address when
//! the entry carries one (IS-IS IPv4/IPv6 Source Router ID sub-TLVs 11/12 of
//! RFC 7794, OSPF Prefix Source Router Address sub-TLVs of RFC 9084); else,
//! for a host prefix (/32, /128) with the flag, the prefix's own address;
//! else `None`. In BGP it is the route's next hop (the NHC attribute binds
//! its characteristics to that next hop).
//!
//! Parsers return typed [`ParseError`]s and never panic; encoders return
//! [`BuildError`]s for values the wire cannot carry. Unknown sub-TLVs,
//! characteristics and path attributes are kept as raw bytes.

pub mod bgp;
pub mod isis;
pub mod ospf;

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::error::{BuildError, Layer, ParseError};
use crate::wire::Cursor;

pub use bgp::{BgpPathAttributes, MpReachNlri, NextHop, NhcAttribute, PathAttribute};
pub use isis::{IsisPrefix, IsisReachability};
pub use ospf::{Ospfv2ExtendedPrefix, Ospfv3InterAreaPrefix};

/// IS-IS P-flag: bit 7 of the Prefix Attribute Flags (draft Figure 6; RFC
/// 7794 numbers bits from 0 = most significant bit of the first octet, so
/// this is mask 0x01 of the first octet).
pub const ISIS_PNC_BIT: usize = 7;
/// OSPFv2 P-flag: bit 2 of the Prefix Extended Flags of RFC 9792 (draft
/// Figure 7), mask 0x20 of the first octet. See the module doc for why not the
/// Extended Prefix TLV's own Flags octet.
pub const OSPFV2_PNC_BIT: usize = 2;
/// OSPFv3 P-flag: bit 2 of the Prefix Extended Flags of RFC 9792 (draft
/// Figure 8), mask 0x20 of the first octet.
pub const OSPFV3_PNC_BIT: usize = 2;
/// Default code of the PNC characteristic TLV (draft TBD2): 0xFF50, in the
/// top 256 codes of the 16-bit "BGP Next Hop Dependent Characteristic Codes"
/// space, where experimental ranges of 16-bit registries usually sit, far
/// from the low codes IETF drafts take (NNHN 2, BGPID 3); 0x50 is "P". The
/// registry's ranges were not available to check. Configurable through
/// [`PncCodes`].
pub const DEFAULT_BGP_TLV_CODE: u16 = 0xFF50;

/// Code points the draft leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PncCodes {
    /// Characteristic code of the PNC TLV in the BGP NHC attribute (TBD2).
    pub bgp_tlv_code: u16,
}

impl Default for PncCodes {
    fn default() -> Self {
        PncCodes {
            bgp_tlv_code: DEFAULT_BGP_TLV_CODE,
        }
    }
}

/// IPv4 or IPv6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressFamily {
    Ipv4,
    Ipv6,
}

impl AddressFamily {
    pub fn of(addr: IpAddr) -> Self {
        match addr {
            IpAddr::V4(_) => AddressFamily::Ipv4,
            IpAddr::V6(_) => AddressFamily::Ipv6,
        }
    }

    /// 32 or 128.
    pub fn max_prefix_len(self) -> u8 {
        match self {
            AddressFamily::Ipv4 => 32,
            AddressFamily::Ipv6 => 128,
        }
    }
}

/// An IP prefix: address and length in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prefix {
    pub addr: IpAddr,
    pub len: u8,
}

impl Prefix {
    /// The prefix, refused when `len` is too long for the family or `addr`
    /// has bits set past `len`.
    pub fn new(addr: IpAddr, len: u8) -> Result<Self, BuildError> {
        let p = Prefix { addr, len };
        p.check()?;
        Ok(p)
    }

    /// The prefix of length `len` containing `addr` (bits past `len`
    /// cleared); `len` is capped at the family's maximum.
    pub fn containing(addr: IpAddr, len: u8) -> Self {
        let len = len.min(AddressFamily::of(addr).max_prefix_len());
        Prefix {
            addr: masked(addr, len),
            len,
        }
    }

    pub fn family(&self) -> AddressFamily {
        AddressFamily::of(self.addr)
    }

    /// A /32 or /128.
    pub fn is_host(&self) -> bool {
        self.len == self.family().max_prefix_len()
    }

    /// Whether `addr` is inside the prefix.
    pub fn contains(&self, addr: IpAddr) -> bool {
        AddressFamily::of(addr) == self.family() && masked(addr, self.len) == self.addr
    }

    /// Why the prefix cannot be encoded, if it cannot.
    pub(crate) fn check(&self) -> Result<(), BuildError> {
        if self.len > self.family().max_prefix_len() {
            return Err(BuildError::FieldTooWide {
                field: "prefix length",
                value: self.len as u64,
                bits: self.family().max_prefix_len() as u32,
            });
        }
        if masked(self.addr, self.len) != self.addr {
            return Err(BuildError::InvalidField {
                field: "prefix with address bits set past its length",
                value: self.len as u64,
            });
        }
        Ok(())
    }

    /// The first ceil(len / 8) octets of the address.
    pub(crate) fn significant_octets(&self) -> Vec<u8> {
        let n = (self.len as usize).div_ceil(8);
        match self.addr {
            IpAddr::V4(a) => a.octets()[..n].to_vec(),
            IpAddr::V6(a) => a.octets()[..n].to_vec(),
        }
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

impl From<(IpAddr, u8)> for Prefix {
    fn from((addr, len): (IpAddr, u8)) -> Self {
        Prefix { addr, len }
    }
}

/// `addr` with the bits past `len` cleared.
fn masked(addr: IpAddr, len: u8) -> IpAddr {
    match addr {
        IpAddr::V4(a) => {
            let keep = u32::MAX.checked_shl(32 - len.min(32) as u32).unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from(u32::from(a) & keep))
        }
        IpAddr::V6(a) => {
            let keep = u128::MAX
                .checked_shl(128 - len.min(128) as u32)
                .unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from(u128::from(a) & keep))
        }
    }
}

/// How a format stores the prefix's address bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrefixEncoding {
    /// ceil(len / 8) octets ("packed": IS-IS, RFC 5305 section 4 and RFC
    /// 5308 section 2; BGP, RFC 4271 section 4.3, where "the value of
    /// trailing bits is irrelevant"); set bits past the length are cleared
    /// on receipt, not refused.
    PackedIgnoreTrailing,
    /// ceil(len / 32) 32-bit words, padded "with zero bits as necessary"
    /// (RFC 7684 section 2.1, RFC 5340 A.4.1): set bits past the length are
    /// an error.
    WordsZeroPadded,
}

impl PrefixEncoding {
    fn stored_len(self, len: u8) -> usize {
        match self {
            PrefixEncoding::PackedIgnoreTrailing => (len as usize).div_ceil(8),
            PrefixEncoding::WordsZeroPadded => (len as usize).div_ceil(32) * 4,
        }
    }
}

/// Reads a prefix of length `len` stored as `encoding`.
pub(crate) fn read_prefix(
    c: &mut Cursor,
    layer: Layer,
    family: AddressFamily,
    len: u8,
    encoding: PrefixEncoding,
) -> Result<Prefix, ParseError> {
    if len > family.max_prefix_len() {
        return Err(ParseError::InvalidField {
            layer,
            field: "prefix length",
            value: len as u64,
        });
    }
    let stored = c.bytes(encoding.stored_len(len))?;
    let mut octets = [0u8; 16];
    octets[..stored.len()].copy_from_slice(stored);
    let addr = match family {
        AddressFamily::Ipv4 => {
            IpAddr::V4(Ipv4Addr::new(octets[0], octets[1], octets[2], octets[3]))
        }
        AddressFamily::Ipv6 => IpAddr::V6(Ipv6Addr::from(octets)),
    };
    let clean = masked(addr, len);
    if clean != addr && encoding == PrefixEncoding::WordsZeroPadded {
        return Err(ParseError::InvalidField {
            layer,
            field: "address prefix with bits set past the prefix length",
            value: len as u64,
        });
    }
    Ok(Prefix { addr: clean, len })
}

/// Appends `p` stored as `encoding`; the caller has checked `p`.
pub(crate) fn write_prefix(out: &mut Vec<u8>, p: &Prefix, encoding: PrefixEncoding) {
    let octets = p.significant_octets();
    let stored = encoding.stored_len(p.len);
    out.extend_from_slice(&octets);
    out.resize(out.len() + stored - octets.len(), 0);
}

/// A variable-length flags field whose bit 0 is the most significant bit of
/// the first octet (RFC 7794 section 2.1, RFC 9792 section 2). Bits past the
/// octets present read as 0.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FlagBits(pub Vec<u8>);

impl FlagBits {
    /// The shortest field with exactly `bits` set (at least one octet).
    pub fn with_bits(bits: &[usize]) -> Self {
        let mut f = FlagBits(vec![0]);
        for &b in bits {
            f.set(b, true);
        }
        f
    }

    /// The shortest field with exactly `bits` set whose length is a multiple
    /// of 4 octets (RFC 9792's Prefix Extended Flags).
    pub fn with_bits_in_words(bits: &[usize]) -> Self {
        let mut f = Self::with_bits(bits);
        let words = f.0.len().div_ceil(4).max(1);
        f.0.resize(words * 4, 0);
        f
    }

    pub fn get(&self, bit: usize) -> bool {
        self.0
            .get(bit / 8)
            .is_some_and(|o| o & (0x80 >> (bit % 8)) != 0)
    }

    /// Sets or clears `bit`, growing the field when needed.
    pub fn set(&mut self, bit: usize, on: bool) {
        let octet = bit / 8;
        if octet >= self.0.len() {
            if !on {
                return;
            }
            self.0.resize(octet + 1, 0);
        }
        let mask = 0x80 >> (bit % 8);
        if on {
            self.0[octet] |= mask;
        } else {
            self.0[octet] &= !mask;
        }
    }
}

/// A sub-TLV, characteristic or TLV kept as it came: type code and value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawTlv {
    pub code: u16,
    pub value: Vec<u8>,
}

/// The routing protocol an advertisement came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    IsIs,
    Ospfv2,
    Ospfv3,
    Bgp,
}

/// One prefix as the host software's prefix -> proxy table wants it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PncAdvertisement {
    pub protocol: Protocol,
    pub prefix: Prefix,
    /// The advertising node's address when the container carries it (see
    /// the module doc: source-router sub-TLV, the PNC host prefix itself, or
    /// the BGP next hop); `None` otherwise.
    pub proxy: Option<IpAddr>,
    /// The PNC flag (IGPs) or a well-formed PNC characteristic bound to the
    /// route's next hop (BGP).
    pub pnc: bool,
    /// The IGP metric where the container has one (IS-IS, OSPFv3
    /// Inter-Area-Prefix TLV); `None` for OSPFv2's Extended Prefix TLV
    /// (the metric is in the base LSA) and BGP.
    pub metric: Option<u32>,
}

/// The address an IGP advertisement names as its proxy (module doc).
pub(crate) fn igp_proxy(prefix: &Prefix, pnc: bool, source: Option<IpAddr>) -> Option<IpAddr> {
    source.or((pnc && prefix.is_host()).then_some(prefix.addr))
}

/// Every prefix of `bytes`, as carried by `protocol`:
///
/// - IS-IS: a sequence of TLVs (an LSP's TLV area); TLVs 135 and 236 are
///   decoded, others skipped.
/// - OSPFv2: the body of an Extended Prefix Opaque LSA (a sequence of TLVs);
///   Extended Prefix TLVs are decoded, others skipped.
/// - OSPFv3: the body of an E-Inter-Area-Prefix-LSA; Inter-Area-Prefix TLVs
///   are decoded as IPv6 (an RFC 5838 IPv4 instance goes through
///   [`Ospfv3InterAreaPrefix::parse_all`] with [`AddressFamily::Ipv4`]).
/// - BGP: the Path Attributes field of an UPDATE ([`BgpPathAttributes`]).
pub fn decode(
    protocol: Protocol,
    bytes: &[u8],
    codes: &PncCodes,
) -> Result<Vec<PncAdvertisement>, ParseError> {
    Ok(match protocol {
        Protocol::IsIs => IsisReachability::parse_all(bytes)?
            .iter()
            .flat_map(IsisReachability::advertisements)
            .collect(),
        Protocol::Ospfv2 => Ospfv2ExtendedPrefix::parse_all(bytes)?
            .iter()
            .map(Ospfv2ExtendedPrefix::advertisement)
            .collect(),
        Protocol::Ospfv3 => Ospfv3InterAreaPrefix::parse_all(bytes, AddressFamily::Ipv6)?
            .iter()
            .map(Ospfv3InterAreaPrefix::advertisement)
            .collect(),
        Protocol::Bgp => BgpPathAttributes::parse(bytes, codes)?.advertisements(),
    })
}

/// Bytes from hex text as routers and packet tools print it: an optional
/// `0x` before each group, groups separated by white space or colons
/// (`"0x87 0c"`, `"87:0c"`, `"870c"`). Each group must have an even number
/// of digits.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, ParseError> {
    let mut out = Vec::new();
    for group in text.split(|c: char| c.is_whitespace() || c == ':') {
        let digits = group
            .strip_prefix("0x")
            .or_else(|| group.strip_prefix("0X"))
            .unwrap_or(group);
        let nibbles = digits
            .chars()
            .map(|c| {
                c.to_digit(16).ok_or(ParseError::InvalidField {
                    layer: Layer::HexText,
                    field: "hex digit",
                    value: c as u64,
                })
            })
            .collect::<Result<Vec<u32>, _>>()?;
        if nibbles.len() % 2 != 0 {
            return Err(ParseError::InvalidField {
                layer: Layer::HexText,
                field: "odd number of hex digits in a group",
                value: nibbles.len() as u64,
            });
        }
        out.extend(nibbles.chunks(2).map(|pair| (pair[0] * 16 + pair[1]) as u8));
    }
    Ok(out)
}

/// Lower-case hex, two digits per byte, no separators.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
