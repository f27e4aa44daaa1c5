//! IS-IS prefix reachability with the PNC flag (draft Figure 6): entries of
//! the Extended IP Reachability TLV 135 (RFC 5305 section 4) and the IPv6
//! Reachability TLV 236 (RFC 5308 section 2), whose Prefix Attribute Flags
//! sub-TLV 4 (RFC 7794 section 2.1) carries the P-flag at bit 7.
//!
//! ```text
//! TLV 135 entry                          TLV 236 entry
//! +-------------------------------+      +-------------------------------+
//! |         Metric (4 octets)     |      |         Metric (4 octets)     |
//! +-+-+-----------+---------------+      +-+-+-+---------+---------------+
//! |U|S| Pfx len(6)|  Prefix (0-4) |      |U|X|S| Rsvd(5)| Prefix length |
//! +-+-+-----------+---------------+      +-+-+-+---------+---------------+
//! | Sub-TLV len, sub-TLVs if S    |      | Prefix (0-16), sub-TLV len,   |
//! +-------------------------------+      | sub-TLVs if S                 |
//!                                        +-------------------------------+
//! Prefix Attribute Flags sub-TLV 4: type 4, length >= 1, flags
//!   0 1 2 3 4 5 6 7
//!  |X|R|N|E|A|U|U|P| ...   (X, R, N: RFC 7794; E: RFC 9088 ELC; A: RFC
//!                           9352 anycast; P: PNC, this draft)
//! ```
//!
//! The prefix is packed (ceil(len / 8) octets); bits past the length are
//! ignored on receipt and must be zero when sent. The reserved bits of TLV
//! 236's flags octet are ignored on receipt and sent as zero.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{
    igp_proxy, read_prefix, write_prefix, AddressFamily, FlagBits, PncAdvertisement, Prefix,
    PrefixEncoding, Protocol, RawTlv, ISIS_PNC_BIT,
};
use crate::error::{BuildError, Layer, ParseError};
use crate::wire::Cursor;

/// Extended IP Reachability (RFC 5305).
pub const TLV_EXTENDED_IP_REACHABILITY: u8 = 135;
/// IPv6 Reachability (RFC 5308).
pub const TLV_IPV6_REACHABILITY: u8 = 236;
/// Prefix Attribute Flags sub-TLV (RFC 7794).
pub const SUB_TLV_PREFIX_ATTRIBUTE_FLAGS: u8 = 4;
/// IPv4 Source Router ID sub-TLV (RFC 7794).
pub const SUB_TLV_IPV4_SOURCE_ROUTER_ID: u8 = 11;
/// IPv6 Source Router ID sub-TLV (RFC 7794).
pub const SUB_TLV_IPV6_SOURCE_ROUTER_ID: u8 = 12;

/// External Prefix flag (RFC 7794).
pub const X_FLAG_BIT: usize = 0;
/// Re-advertisement flag (RFC 7794).
pub const R_FLAG_BIT: usize = 1;
/// Node flag (RFC 7794).
pub const N_FLAG_BIT: usize = 2;
/// ELC flag (RFC 9088).
pub const E_FLAG_BIT: usize = 3;
/// Anycast flag (RFC 9352).
pub const A_FLAG_BIT: usize = 4;
/// PNC flag (this draft).
pub const P_FLAG_BIT: usize = ISIS_PNC_BIT;

const TLV_135_UP_DOWN: u8 = 0x80;
const TLV_135_SUB_TLVS: u8 = 0x40;
const TLV_135_PREFIX_LEN: u8 = 0x3F;
const TLV_236_UP_DOWN: u8 = 0x80;
const TLV_236_EXTERNAL: u8 = 0x40;
const TLV_236_SUB_TLVS: u8 = 0x20;
/// The largest TLV, sub-TLV or sub-TLV area: a one-octet length.
const MAX_LEN: usize = 255;

/// One prefix entry of TLV 135 or 236.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IsisPrefix {
    pub prefix: Prefix,
    pub metric: u32,
    /// The up/down bit (RFC 5305) or U bit (RFC 5308): leaked down from
    /// level 2.
    pub up_down: bool,
    /// TLV 236's X bit (external origin). TLV 135 has no such bit (its
    /// external flag is X in the attribute flags) and must keep it false.
    pub external: bool,
    /// Prefix Attribute Flags sub-TLV 4, when present.
    pub attribute_flags: Option<FlagBits>,
    /// Every other sub-TLV, in order (type < 256).
    pub other_sub_tlvs: Vec<RawTlv>,
}

impl IsisPrefix {
    /// An entry with no sub-TLVs.
    pub fn new(prefix: Prefix, metric: u32) -> Self {
        IsisPrefix {
            prefix,
            metric,
            up_down: false,
            external: false,
            attribute_flags: None,
            other_sub_tlvs: Vec::new(),
        }
    }

    /// Bit `bit` of the Prefix Attribute Flags (false without sub-TLV 4).
    pub fn flag(&self, bit: usize) -> bool {
        self.attribute_flags.as_ref().is_some_and(|f| f.get(bit))
    }

    /// The P-flag.
    pub fn pnc(&self) -> bool {
        self.flag(P_FLAG_BIT)
    }

    /// The originator's address from an IPv4 or IPv6 Source Router ID
    /// sub-TLV (the first well-formed one).
    pub fn source_router_id(&self) -> Option<IpAddr> {
        self.other_sub_tlvs
            .iter()
            .find_map(|t| match (u8::try_from(t.code).ok()?, t.value.len()) {
                (SUB_TLV_IPV4_SOURCE_ROUTER_ID, 4) => {
                    let a: [u8; 4] = t.value[..].try_into().ok()?;
                    Some(IpAddr::V4(Ipv4Addr::from(a)))
                }
                (SUB_TLV_IPV6_SOURCE_ROUTER_ID, 16) => {
                    let a: [u8; 16] = t.value[..].try_into().ok()?;
                    Some(IpAddr::V6(Ipv6Addr::from(a)))
                }
                _ => None,
            })
    }

    pub fn advertisement(&self) -> PncAdvertisement {
        PncAdvertisement {
            protocol: Protocol::IsIs,
            prefix: self.prefix,
            proxy: igp_proxy(&self.prefix, self.pnc(), self.source_router_id()),
            pnc: self.pnc(),
            metric: Some(self.metric),
        }
    }

    fn parse(c: &mut Cursor, family: AddressFamily) -> Result<Self, ParseError> {
        let layer = Layer::IsisReachability;
        let metric = c.u32()?;
        let (up_down, external, has_sub_tlvs, len) = match family {
            AddressFamily::Ipv4 => {
                let control = c.u8()?;
                (
                    control & TLV_135_UP_DOWN != 0,
                    false,
                    control & TLV_135_SUB_TLVS != 0,
                    control & TLV_135_PREFIX_LEN,
                )
            }
            AddressFamily::Ipv6 => {
                let flags = c.u8()?;
                (
                    flags & TLV_236_UP_DOWN != 0,
                    flags & TLV_236_EXTERNAL != 0,
                    flags & TLV_236_SUB_TLVS != 0,
                    c.u8()?,
                )
            }
        };
        let prefix = read_prefix(c, layer, family, len, PrefixEncoding::PackedIgnoreTrailing)?;
        let mut entry = IsisPrefix {
            prefix,
            metric,
            up_down,
            external,
            attribute_flags: None,
            other_sub_tlvs: Vec::new(),
        };
        if has_sub_tlvs {
            let area_len = c.u8()? as usize;
            let mut sub = Cursor::new(c.counted(area_len, "sub-TLV length")?, layer);
            while !sub.is_at_end() {
                let code = sub.u8()?;
                let len = sub.u8()? as usize;
                let value = sub.counted(len, "sub-TLV value length")?.to_vec();
                if code == SUB_TLV_PREFIX_ATTRIBUTE_FLAGS {
                    if entry.attribute_flags.is_some() {
                        return Err(ParseError::InvalidField {
                            layer,
                            field: "second Prefix Attribute Flags sub-TLV",
                            value: code as u64,
                        });
                    }
                    entry.attribute_flags = Some(FlagBits(value));
                } else {
                    entry.other_sub_tlvs.push(RawTlv {
                        code: code as u16,
                        value,
                    });
                }
            }
        }
        Ok(entry)
    }

    fn write(&self, family: AddressFamily, out: &mut Vec<u8>) -> Result<(), BuildError> {
        self.prefix.check()?;
        if self.prefix.family() != family {
            return Err(BuildError::InvalidField {
                field: "prefix of the other address family in an IS-IS TLV",
                value: self.prefix.len as u64,
            });
        }
        let mut sub_tlvs = Vec::new();
        if let Some(flags) = &self.attribute_flags {
            put_sub_tlv(
                &mut sub_tlvs,
                SUB_TLV_PREFIX_ATTRIBUTE_FLAGS as u16,
                &flags.0,
            )?;
        }
        for t in &self.other_sub_tlvs {
            if t.code == SUB_TLV_PREFIX_ATTRIBUTE_FLAGS as u16 {
                return Err(BuildError::InvalidField {
                    field: "raw sub-TLV of type 4 (use attribute_flags)",
                    value: t.code as u64,
                });
            }
            put_sub_tlv(&mut sub_tlvs, t.code, &t.value)?;
        }
        if sub_tlvs.len() > MAX_LEN {
            return Err(BuildError::TooLong {
                what: "IS-IS sub-TLVs of one prefix",
                len: sub_tlvs.len(),
                limit: MAX_LEN,
            });
        }
        let has_sub_tlvs = !sub_tlvs.is_empty();
        out.extend_from_slice(&self.metric.to_be_bytes());
        match family {
            AddressFamily::Ipv4 => {
                if self.external {
                    return Err(BuildError::InvalidField {
                        field: "external bit in TLV 135",
                        value: 1,
                    });
                }
                let mut control = self.prefix.len;
                if self.up_down {
                    control |= TLV_135_UP_DOWN;
                }
                if has_sub_tlvs {
                    control |= TLV_135_SUB_TLVS;
                }
                out.push(control);
            }
            AddressFamily::Ipv6 => {
                let mut flags = 0;
                if self.up_down {
                    flags |= TLV_236_UP_DOWN;
                }
                if self.external {
                    flags |= TLV_236_EXTERNAL;
                }
                if has_sub_tlvs {
                    flags |= TLV_236_SUB_TLVS;
                }
                out.push(flags);
                out.push(self.prefix.len);
            }
        }
        write_prefix(out, &self.prefix, PrefixEncoding::PackedIgnoreTrailing);
        if has_sub_tlvs {
            out.push(sub_tlvs.len() as u8);
            out.extend_from_slice(&sub_tlvs);
        }
        Ok(())
    }
}

fn put_sub_tlv(out: &mut Vec<u8>, code: u16, value: &[u8]) -> Result<(), BuildError> {
    let code = u8::try_from(code).map_err(|_| BuildError::FieldTooWide {
        field: "IS-IS sub-TLV type",
        value: code as u64,
        bits: 8,
    })?;
    if value.len() > MAX_LEN {
        return Err(BuildError::TooLong {
            what: "IS-IS sub-TLV value",
            len: value.len(),
            limit: MAX_LEN,
        });
    }
    out.push(code);
    out.push(value.len() as u8);
    out.extend_from_slice(value);
    Ok(())
}

/// A TLV 135 (IPv4) or 236 (IPv6) with all its entries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IsisReachability {
    pub family: AddressFamily,
    pub entries: Vec<IsisPrefix>,
}

impl IsisReachability {
    /// 135 for IPv4, 236 for IPv6.
    pub fn tlv_type(&self) -> u8 {
        match self.family {
            AddressFamily::Ipv4 => TLV_EXTENDED_IP_REACHABILITY,
            AddressFamily::Ipv6 => TLV_IPV6_REACHABILITY,
        }
    }

    /// Parses exactly one TLV (type, length, value) filling `tlv`.
    pub fn parse(tlv: &[u8]) -> Result<Self, ParseError> {
        let layer = Layer::IsisReachability;
        let mut c = Cursor::new(tlv, layer);
        let code = c.u8()?;
        let len = c.u8()? as usize;
        let family = family_of_tlv(code).ok_or(ParseError::NotThisFormat {
            layer,
            field: "TLV type",
            expected: TLV_EXTENDED_IP_REACHABILITY as u64,
            found: code as u64,
        })?;
        if len != c.remaining() {
            return Err(ParseError::BadLength {
                layer,
                field: "TLV length",
                value: len,
                available: c.remaining(),
            });
        }
        Self::parse_value(family, c.rest())
    }

    /// Parses the value of a TLV 135 (`Ipv4`) or 236 (`Ipv6`): every entry.
    pub fn parse_value(family: AddressFamily, value: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(value, Layer::IsisReachability);
        let mut entries = Vec::new();
        while !c.is_at_end() {
            entries.push(IsisPrefix::parse(&mut c, family)?);
        }
        Ok(IsisReachability { family, entries })
    }

    /// Every TLV 135 and 236 of a sequence of TLVs (an LSP's TLV area);
    /// other TLVs are skipped.
    pub fn parse_all(tlvs: &[u8]) -> Result<Vec<Self>, ParseError> {
        let mut c = Cursor::new(tlvs, Layer::IsisReachability);
        let mut out = Vec::new();
        while !c.is_at_end() {
            let code = c.u8()?;
            let len = c.u8()? as usize;
            let value = c.counted(len, "TLV length")?;
            if let Some(family) = family_of_tlv(code) {
                out.push(Self::parse_value(family, value)?);
            }
        }
        Ok(out)
    }

    /// The whole TLV; refused when an entry does not fit its fields or the
    /// entries exceed 255 octets (split them over several TLVs).
    pub fn encode(&self) -> Result<Vec<u8>, BuildError> {
        let mut value = Vec::new();
        for e in &self.entries {
            e.write(self.family, &mut value)?;
        }
        if value.len() > MAX_LEN {
            return Err(BuildError::TooLong {
                what: "IS-IS reachability TLV",
                len: value.len(),
                limit: MAX_LEN,
            });
        }
        let mut out = vec![self.tlv_type(), value.len() as u8];
        out.extend_from_slice(&value);
        Ok(out)
    }

    pub fn advertisements(&self) -> Vec<PncAdvertisement> {
        self.entries.iter().map(IsisPrefix::advertisement).collect()
    }
}

fn family_of_tlv(code: u8) -> Option<AddressFamily> {
    match code {
        TLV_EXTENDED_IP_REACHABILITY => Some(AddressFamily::Ipv4),
        TLV_IPV6_REACHABILITY => Some(AddressFamily::Ipv6),
        _ => None,
    }
}
