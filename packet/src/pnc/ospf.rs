//! OSPF prefixes with the PNC flag (draft Figures 7 and 8): the OSPFv2
//! Extended Prefix TLV (RFC 7684 section 2.1) and the OSPFv3
//! Inter-Area-Prefix TLV (RFC 8362 section 3.4), each with the Prefix
//! Extended Flags sub-TLV of RFC 9792 whose bit 2 is the P-flag.
//!
//! ```text
//! OSPFv2 Extended Prefix TLV             OSPFv3 Inter-Area-Prefix TLV
//! +---------------+---------------+      +---------------+---------------+
//! |   Type = 1    |    Length     |      |   Type = 3    |    Length     |
//! +-------+-------+-------+-------+      +-------+-----------------------+
//! |RouteTy|PfxLen | AF=0  | Flags |      |   0   |     Metric (24)       |
//! +-------+-------+-------+-------+      +-------+-------+---------------+
//! | Address Prefix (0-4 octets)   |      |PfxLen |PfxOpts|       0       |
//! +-------------------------------+      +-------+-------+---------------+
//! | Sub-TLVs                      |      | Address Prefix (0-16 octets)  |
//! +-------------------------------+      +-------------------------------+
//!                                        | Sub-TLVs                      |
//!                                        +-------------------------------+
//! Prefix Extended Flags sub-TLV (RFC 9792): type 11 (OSPFv2) / 37 (OSPFv3),
//! length a multiple of 4, flags  |U|U|P| ...  (bit 0 = MSB of octet 0)
//! ```
//!
//! Types and lengths are 16 bits; a TLV is padded to 4 octets, the padding
//! not counted in its length (RFC 7684 section 2); the address prefix takes
//! ceil(len / 32) words, zero-padded. The OSPFv3 TLV is the one an ABR
//! originates between areas, where the draft requires the flag to be kept;
//! its prefix is IPv6, or IPv4 in an RFC 5838 IPv4 instance (the caller says
//! which).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{
    igp_proxy, read_prefix, write_prefix, AddressFamily, FlagBits, PncAdvertisement, Prefix,
    PrefixEncoding, Protocol, RawTlv, OSPFV2_PNC_BIT, OSPFV3_PNC_BIT,
};
use crate::error::{BuildError, Layer, ParseError};
use crate::wire::{pad4, Cursor};

/// Extended Prefix TLV of the OSPFv2 Extended Prefix Opaque LSA (RFC 7684).
pub const OSPFV2_EXTENDED_PREFIX_TLV: u16 = 1;
/// OSPFv2 Prefix Source Router Address sub-TLV (RFC 9084).
pub const OSPFV2_PREFIX_SOURCE_ROUTER_ADDRESS: u16 = 5;
/// OSPFv2 Prefix Extended Flags sub-TLV (RFC 9792).
pub const OSPFV2_PREFIX_EXTENDED_FLAGS: u16 = 11;
/// Inter-Area-Prefix TLV of the E-Inter-Area-Prefix-LSA (RFC 8362).
pub const OSPFV3_INTER_AREA_PREFIX_TLV: u16 = 3;
/// OSPFv3 Prefix Source Router Address sub-TLV (RFC 9084).
pub const OSPFV3_PREFIX_SOURCE_ROUTER_ADDRESS: u16 = 28;
/// OSPFv3 Prefix Extended Flags sub-TLV (RFC 9792).
pub const OSPFV3_PREFIX_EXTENDED_FLAGS: u16 = 37;

/// Extended Prefix TLV Flags: attach flag (RFC 7684).
pub const OSPFV2_FLAG_ATTACH: u8 = 0x80;
/// Extended Prefix TLV Flags: node flag (RFC 7684).
pub const OSPFV2_FLAG_NODE: u8 = 0x40;
/// Extended Prefix TLV Flags: ELC flag (RFC 9089), bit 2 of this octet.
pub const OSPFV2_FLAG_ELC: u8 = 0x20;

/// OSPFv3 PrefixOptions: no unicast (RFC 5340).
pub const OSPFV3_OPTION_NU: u8 = 0x01;
/// OSPFv3 PrefixOptions: local address (RFC 5340).
pub const OSPFV3_OPTION_LA: u8 = 0x02;
/// OSPFv3 PrefixOptions: propagate (NSSA, RFC 5340).
pub const OSPFV3_OPTION_P: u8 = 0x08;
/// OSPFv3 PrefixOptions: DN (RFC 5340).
pub const OSPFV3_OPTION_DN: u8 = 0x10;
/// OSPFv3 PrefixOptions: N, node address (RFC 8362), bit 2 of this octet.
pub const OSPFV3_OPTION_N: u8 = 0x20;

/// Extended Prefix TLV route types (RFC 7684).
pub mod route_type {
    pub const UNSPECIFIED: u8 = 0;
    pub const INTRA_AREA: u8 = 1;
    pub const INTER_AREA: u8 = 3;
    pub const AS_EXTERNAL: u8 = 5;
    pub const NSSA_EXTERNAL: u8 = 7;
}

/// The largest 24-bit metric.
const MAX_METRIC: u32 = 0x00FF_FFFF;

/// An OSPFv2 Extended Prefix TLV.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ospfv2ExtendedPrefix {
    /// [`route_type`]; other values are kept as they came.
    pub route_type: u8,
    /// An IPv4 prefix (AF 0, the only family RFC 7684 defines).
    pub prefix: Prefix,
    /// The 8-bit Flags (A, N, E).
    pub flags: u8,
    /// Prefix Extended Flags sub-TLV 11 (RFC 9792), when present.
    pub extended_flags: Option<FlagBits>,
    /// Every other sub-TLV, in order.
    pub other_sub_tlvs: Vec<RawTlv>,
}

impl Ospfv2ExtendedPrefix {
    /// The P-flag.
    pub fn pnc(&self) -> bool {
        self.extended_flags
            .as_ref()
            .is_some_and(|f| f.get(OSPFV2_PNC_BIT))
    }

    /// The originator's address from a Prefix Source Router Address
    /// sub-TLV (RFC 9084).
    pub fn source_router_address(&self) -> Option<IpAddr> {
        source_address(&self.other_sub_tlvs, OSPFV2_PREFIX_SOURCE_ROUTER_ADDRESS)
    }

    pub fn advertisement(&self) -> PncAdvertisement {
        PncAdvertisement {
            protocol: Protocol::Ospfv2,
            prefix: self.prefix,
            proxy: igp_proxy(&self.prefix, self.pnc(), self.source_router_address()),
            pnc: self.pnc(),
            metric: None,
        }
    }

    /// Parses exactly one Extended Prefix TLV, padding included.
    pub fn parse(tlv: &[u8]) -> Result<Self, ParseError> {
        let layer = Layer::Ospfv2ExtendedPrefix;
        let value = single_tlv(tlv, layer, OSPFV2_EXTENDED_PREFIX_TLV)?;
        Self::parse_value(value)
    }

    /// Every Extended Prefix TLV of an Extended Prefix Opaque LSA body;
    /// other TLVs are skipped.
    pub fn parse_all(lsa_body: &[u8]) -> Result<Vec<Self>, ParseError> {
        let tlvs = tlv_sequence(lsa_body, Layer::Ospfv2ExtendedPrefix, "TLV length")?;
        tlvs.iter()
            .filter(|t| t.code == OSPFV2_EXTENDED_PREFIX_TLV)
            .map(|t| Self::parse_value(&t.value))
            .collect()
    }

    fn parse_value(value: &[u8]) -> Result<Self, ParseError> {
        let layer = Layer::Ospfv2ExtendedPrefix;
        let mut c = Cursor::new(value, layer);
        let route_type = c.u8()?;
        let prefix_len = c.u8()?;
        let af = c.u8()?;
        let flags = c.u8()?;
        if af != 0 {
            return Err(ParseError::InvalidField {
                layer,
                field: "address family",
                value: af as u64,
            });
        }
        let prefix = read_prefix(
            &mut c,
            layer,
            AddressFamily::Ipv4,
            prefix_len,
            PrefixEncoding::WordsZeroPadded,
        )?;
        let (extended_flags, other_sub_tlvs) =
            split_sub_tlvs(c.rest(), layer, OSPFV2_PREFIX_EXTENDED_FLAGS)?;
        Ok(Ospfv2ExtendedPrefix {
            route_type,
            prefix,
            flags,
            extended_flags,
            other_sub_tlvs,
        })
    }

    /// The TLV with its padding.
    pub fn encode(&self) -> Result<Vec<u8>, BuildError> {
        self.prefix.check()?;
        if self.prefix.family() != AddressFamily::Ipv4 {
            return Err(BuildError::InvalidField {
                field: "IPv6 prefix in an OSPFv2 Extended Prefix TLV",
                value: self.prefix.len as u64,
            });
        }
        let mut value = vec![self.route_type, self.prefix.len, 0, self.flags];
        write_prefix(&mut value, &self.prefix, PrefixEncoding::WordsZeroPadded);
        write_sub_tlvs(
            &mut value,
            &self.extended_flags,
            &self.other_sub_tlvs,
            OSPFV2_PREFIX_EXTENDED_FLAGS,
        )?;
        tlv(OSPFV2_EXTENDED_PREFIX_TLV, &value)
    }
}

/// An OSPFv3 Inter-Area-Prefix TLV.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ospfv3InterAreaPrefix {
    /// 24 bits.
    pub metric: u32,
    pub prefix: Prefix,
    /// PrefixOptions (NU, LA, P, DN, N, ...).
    pub options: u8,
    /// Prefix Extended Flags sub-TLV 37 (RFC 9792), when present.
    pub extended_flags: Option<FlagBits>,
    /// Every other sub-TLV, in order.
    pub other_sub_tlvs: Vec<RawTlv>,
}

impl Ospfv3InterAreaPrefix {
    /// The P-flag.
    pub fn pnc(&self) -> bool {
        self.extended_flags
            .as_ref()
            .is_some_and(|f| f.get(OSPFV3_PNC_BIT))
    }

    /// The originator's address from a Prefix Source Router Address
    /// sub-TLV (RFC 9084).
    pub fn source_router_address(&self) -> Option<IpAddr> {
        source_address(&self.other_sub_tlvs, OSPFV3_PREFIX_SOURCE_ROUTER_ADDRESS)
    }

    pub fn advertisement(&self) -> PncAdvertisement {
        PncAdvertisement {
            protocol: Protocol::Ospfv3,
            prefix: self.prefix,
            proxy: igp_proxy(&self.prefix, self.pnc(), self.source_router_address()),
            pnc: self.pnc(),
            metric: Some(self.metric),
        }
    }

    /// Parses exactly one Inter-Area-Prefix TLV, padding included, of an
    /// instance of address family `family`.
    pub fn parse(tlv: &[u8], family: AddressFamily) -> Result<Self, ParseError> {
        let layer = Layer::Ospfv3InterAreaPrefix;
        let value = single_tlv(tlv, layer, OSPFV3_INTER_AREA_PREFIX_TLV)?;
        Self::parse_value(value, family)
    }

    /// Every Inter-Area-Prefix TLV of an E-Inter-Area-Prefix-LSA body;
    /// other TLVs are skipped.
    pub fn parse_all(lsa_body: &[u8], family: AddressFamily) -> Result<Vec<Self>, ParseError> {
        let tlvs = tlv_sequence(lsa_body, Layer::Ospfv3InterAreaPrefix, "TLV length")?;
        tlvs.iter()
            .filter(|t| t.code == OSPFV3_INTER_AREA_PREFIX_TLV)
            .map(|t| Self::parse_value(&t.value, family))
            .collect()
    }

    fn parse_value(value: &[u8], family: AddressFamily) -> Result<Self, ParseError> {
        let layer = Layer::Ospfv3InterAreaPrefix;
        let mut c = Cursor::new(value, layer);
        let metric = c.u32()? & MAX_METRIC;
        let prefix_len = c.u8()?;
        let options = c.u8()?;
        let _reserved = c.u16()?;
        let prefix = read_prefix(
            &mut c,
            layer,
            family,
            prefix_len,
            PrefixEncoding::WordsZeroPadded,
        )?;
        let (extended_flags, other_sub_tlvs) =
            split_sub_tlvs(c.rest(), layer, OSPFV3_PREFIX_EXTENDED_FLAGS)?;
        Ok(Ospfv3InterAreaPrefix {
            metric,
            prefix,
            options,
            extended_flags,
            other_sub_tlvs,
        })
    }

    /// The TLV with its padding.
    pub fn encode(&self) -> Result<Vec<u8>, BuildError> {
        self.prefix.check()?;
        if self.metric > MAX_METRIC {
            return Err(BuildError::FieldTooWide {
                field: "OSPFv3 metric",
                value: self.metric as u64,
                bits: 24,
            });
        }
        let mut value = self.metric.to_be_bytes().to_vec();
        value.extend_from_slice(&[self.prefix.len, self.options, 0, 0]);
        write_prefix(&mut value, &self.prefix, PrefixEncoding::WordsZeroPadded);
        write_sub_tlvs(
            &mut value,
            &self.extended_flags,
            &self.other_sub_tlvs,
            OSPFV3_PREFIX_EXTENDED_FLAGS,
        )?;
        tlv(OSPFV3_INTER_AREA_PREFIX_TLV, &value)
    }
}

/// The value of the one TLV of type `code` that fills `bytes` (with its
/// padding).
fn single_tlv(bytes: &[u8], layer: Layer, code: u16) -> Result<&[u8], ParseError> {
    let mut c = Cursor::new(bytes, layer);
    let found = c.u16()?;
    if found != code {
        return Err(ParseError::NotThisFormat {
            layer,
            field: "TLV type",
            expected: code as u64,
            found: found as u64,
        });
    }
    let len = c.u16()? as usize;
    let value = c.counted(len, "TLV length")?;
    c.bytes(pad4(len))?;
    if !c.is_at_end() {
        return Err(ParseError::BadLength {
            layer,
            field: "TLV length",
            value: len,
            available: bytes.len() - 4,
        });
    }
    Ok(value)
}

/// A sequence of 4-octet-aligned TLVs (16-bit type and length).
/// `field` names the length field in errors.
fn tlv_sequence(
    bytes: &[u8],
    layer: Layer,
    field: &'static str,
) -> Result<Vec<RawTlv>, ParseError> {
    let mut c = Cursor::new(bytes, layer);
    let mut out = Vec::new();
    while !c.is_at_end() {
        let code = c.u16()?;
        let len = c.u16()? as usize;
        let value = c.counted(len, field)?.to_vec();
        c.bytes(pad4(len))?;
        out.push(RawTlv { code, value });
    }
    Ok(out)
}

/// Sub-TLVs, the Prefix Extended Flags one (`flags_code`) taken out and
/// checked: its length must be a multiple of 4 (RFC 9792 section 2) and it
/// may appear once.
fn split_sub_tlvs(
    bytes: &[u8],
    layer: Layer,
    flags_code: u16,
) -> Result<(Option<FlagBits>, Vec<RawTlv>), ParseError> {
    let mut flags = None;
    let mut others = Vec::new();
    for t in tlv_sequence(bytes, layer, "sub-TLV length")? {
        if t.code != flags_code {
            others.push(t);
            continue;
        }
        if t.value.len() % 4 != 0 {
            return Err(ParseError::InvalidField {
                layer,
                field: "Prefix Extended Flags length (not a multiple of 4)",
                value: t.value.len() as u64,
            });
        }
        if flags.is_some() {
            return Err(ParseError::InvalidField {
                layer,
                field: "second Prefix Extended Flags sub-TLV",
                value: flags_code as u64,
            });
        }
        flags = Some(FlagBits(t.value));
    }
    Ok((flags, others))
}

fn write_sub_tlvs(
    out: &mut Vec<u8>,
    flags: &Option<FlagBits>,
    others: &[RawTlv],
    flags_code: u16,
) -> Result<(), BuildError> {
    if let Some(f) = flags {
        if f.0.len() % 4 != 0 {
            return Err(BuildError::InvalidField {
                field: "Prefix Extended Flags length (not a multiple of 4)",
                value: f.0.len() as u64,
            });
        }
        out.extend_from_slice(&tlv(flags_code, &f.0)?);
    }
    for t in others {
        if t.code == flags_code {
            return Err(BuildError::InvalidField {
                field: "raw sub-TLV of the Prefix Extended Flags type (use extended_flags)",
                value: t.code as u64,
            });
        }
        out.extend_from_slice(&tlv(t.code, &t.value)?);
    }
    Ok(())
}

/// Type, length, value and zero padding to 4 octets.
fn tlv(code: u16, value: &[u8]) -> Result<Vec<u8>, BuildError> {
    let len = u16::try_from(value.len()).map_err(|_| BuildError::TooLong {
        what: "OSPF TLV value",
        len: value.len(),
        limit: u16::MAX as usize,
    })?;
    let mut out = Vec::with_capacity(4 + value.len() + 3);
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(value);
    out.resize(out.len() + pad4(value.len()), 0);
    Ok(out)
}

/// The address of the first well-formed Prefix Source Router Address
/// sub-TLV of type `code` (4 octets IPv4, 16 octets IPv6).
fn source_address(sub_tlvs: &[RawTlv], code: u16) -> Option<IpAddr> {
    sub_tlvs.iter().filter(|t| t.code == code).find_map(|t| {
        if let Ok(a) = <[u8; 4]>::try_from(&t.value[..]) {
            Some(IpAddr::V4(Ipv4Addr::from(a)))
        } else if let Ok(a) = <[u8; 16]>::try_from(&t.value[..]) {
            Some(IpAddr::V6(Ipv6Addr::from(a)))
        } else {
            None
        }
    })
}
