//! BGP routes with the PNC characteristic (draft Figure 9): the Path
//! Attributes field of an UPDATE (RFC 4271 section 4.3), of which this
//! module decodes MP_REACH_NLRI (RFC 4760 section 3: the prefixes and their
//! next hop) and the Next Hop Dependent Characteristics attribute (NHC,
//! draft-ietf-idr-nhc, the attribute draft-ietf-idr-entropy-label started;
//! type 39) whose characteristic TLV of code TBD2 and length 0 is the PNC.
//!
//! ```text
//! Path attribute: | Flags | Type | Length (1, or 2 if Flags & 0x10) | Value |
//!
//! NHC value:
//! +-------------------------------+---------------+---------------+
//! |  Address Family Identifier    |     SAFI      | Next Hop Len  |
//! +-------------------------------+---------------+---------------+
//! ~           Network Address of Next Hop (4, 16 or 32)           ~
//! +-------------------------------+-------------------------------+
//! |    Characteristic Code        |    Characteristic Length      |  } in increasing
//! +-------------------------------+-------------------------------+  } code order
//! ~              Characteristic Value (variable)                  ~  } (PNC: code
//! +---------------------------------------------------------------+  } TBD2, length 0)
//! ```
//!
//! The NHC header repeats the route's next hop: a receiver disregards the
//! attribute when they differ (the next hop changed in a speaker that did not
//! understand the NHC). A PNC TLV with a non-zero length is malformed and,
//! as the NHC rules for TLVs say, ignored. Other characteristics and path
//! attributes are kept as they came.
//!
//! The codec is strict where a BGP speaker would discard the attribute
//! (RFC 7606): it is an import tool, and an operator is better told why an
//! advertisement does not read. MP_REACH_NLRI is decoded for AFI 1/2 with
//! SAFI 1/2 (unicast, multicast) without ADD-PATH; other AFI/SAFIs are
//! refused.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{
    read_prefix, write_prefix, AddressFamily, PncAdvertisement, PncCodes, Prefix, PrefixEncoding,
    Protocol, RawTlv,
};
use crate::error::{BuildError, Layer, ParseError};
use crate::wire::Cursor;

/// NEXT_HOP (RFC 4271).
pub const ATTR_NEXT_HOP: u8 = 3;
/// MP_REACH_NLRI (RFC 4760).
pub const ATTR_MP_REACH_NLRI: u8 = 14;
/// Next Hop Dependent Characteristics (IANA's temporary allocation for
/// draft-ietf-idr-nhc).
pub const ATTR_NHC: u8 = 39;

/// Attribute flag: optional.
pub const FLAG_OPTIONAL: u8 = 0x80;
/// Attribute flag: transitive.
pub const FLAG_TRANSITIVE: u8 = 0x40;
/// Attribute flag: partial.
pub const FLAG_PARTIAL: u8 = 0x20;
/// Attribute flag: two-octet length.
pub const FLAG_EXTENDED_LENGTH: u8 = 0x10;

pub const AFI_IPV4: u16 = 1;
pub const AFI_IPV6: u16 = 2;
pub const SAFI_UNICAST: u8 = 1;
pub const SAFI_MULTICAST: u8 = 2;

/// A BGP next hop: one address, plus an IPv6 link-local one when the
/// next-hop field is 32 octets (RFC 2545).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NextHop {
    pub address: IpAddr,
    pub link_local: Option<Ipv6Addr>,
}

impl NextHop {
    pub fn new(address: IpAddr) -> Self {
        NextHop {
            address,
            link_local: None,
        }
    }

    fn parse(c: &mut Cursor, layer: Layer) -> Result<Self, ParseError> {
        let len = c.u8()? as usize;
        let bytes = c.counted(len, "next hop length")?;
        let v6 = |b: &[u8]| {
            let mut a = [0u8; 16];
            a.copy_from_slice(&b[..16]);
            Ipv6Addr::from(a)
        };
        Ok(match len {
            4 => NextHop::new(IpAddr::V4(Ipv4Addr::new(
                bytes[0], bytes[1], bytes[2], bytes[3],
            ))),
            16 => NextHop::new(IpAddr::V6(v6(bytes))),
            32 => NextHop {
                address: IpAddr::V6(v6(&bytes[..16])),
                link_local: Some(v6(&bytes[16..])),
            },
            _ => {
                return Err(ParseError::InvalidField {
                    layer,
                    field: "next hop length",
                    value: len as u64,
                })
            }
        })
    }

    /// Length octet and address(es).
    fn write(&self, out: &mut Vec<u8>) -> Result<(), BuildError> {
        match (self.address, self.link_local) {
            (IpAddr::V4(a), None) => {
                out.push(4);
                out.extend_from_slice(&a.octets());
            }
            (IpAddr::V6(a), None) => {
                out.push(16);
                out.extend_from_slice(&a.octets());
            }
            (IpAddr::V6(a), Some(ll)) => {
                out.push(32);
                out.extend_from_slice(&a.octets());
                out.extend_from_slice(&ll.octets());
            }
            (IpAddr::V4(_), Some(_)) => {
                return Err(BuildError::InvalidField {
                    field: "link-local next hop with an IPv4 next hop",
                    value: 4,
                })
            }
        }
        Ok(())
    }
}

/// The NHC attribute's value, its PNC characteristic found.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NhcAttribute {
    pub afi: u16,
    pub safi: u8,
    /// The next hop the characteristics belong to.
    pub next_hop: NextHop,
    /// A PNC characteristic (code [`PncCodes::bgp_tlv_code`], length 0) is
    /// present.
    pub pnc: bool,
    /// Every other characteristic, in the order received (sent in
    /// increasing code order).
    pub other_characteristics: Vec<RawTlv>,
}

impl NhcAttribute {
    /// Parses one whole path attribute (flags, type 39, length, value).
    pub fn parse(attribute: &[u8], codes: &PncCodes) -> Result<Self, ParseError> {
        let layer = Layer::BgpNhc;
        let mut c = Cursor::new(attribute, layer);
        let (_, code, value) = read_attribute(&mut c)?;
        if code != ATTR_NHC {
            return Err(ParseError::NotThisFormat {
                layer,
                field: "attribute type",
                expected: ATTR_NHC as u64,
                found: code as u64,
            });
        }
        if !c.is_at_end() {
            return Err(ParseError::BadLength {
                layer,
                field: "attribute length",
                value: value.len(),
                available: value.len() + c.remaining(),
            });
        }
        Self::parse_value(value, codes)
    }

    /// Parses the attribute's value.
    pub fn parse_value(value: &[u8], codes: &PncCodes) -> Result<Self, ParseError> {
        let layer = Layer::BgpNhc;
        let mut c = Cursor::new(value, layer);
        let afi = c.u16()?;
        let safi = c.u8()?;
        let next_hop = NextHop::parse(&mut c, layer)?;
        let mut pnc = false;
        let mut other_characteristics = Vec::new();
        while !c.is_at_end() {
            let code = c.u16()?;
            let len = c.u16()? as usize;
            let value = c.counted(len, "characteristic length")?;
            if code == codes.bgp_tlv_code {
                // A PNC TLV carries no value; one that does is malformed and
                // ignored (NHC: malformed TLVs are ignored).
                pnc |= value.is_empty();
            } else {
                other_characteristics.push(RawTlv {
                    code,
                    value: value.to_vec(),
                });
            }
        }
        Ok(NhcAttribute {
            afi,
            safi,
            next_hop,
            pnc,
            other_characteristics,
        })
    }

    /// The attribute's value, characteristics in increasing code order.
    pub fn encode_value(&self, codes: &PncCodes) -> Result<Vec<u8>, BuildError> {
        let mut out = self.afi.to_be_bytes().to_vec();
        out.push(self.safi);
        self.next_hop.write(&mut out)?;
        let mut tlvs: Vec<(u16, &[u8])> = Vec::new();
        if self.pnc {
            tlvs.push((codes.bgp_tlv_code, &[]));
        }
        for t in &self.other_characteristics {
            if t.code == codes.bgp_tlv_code {
                return Err(BuildError::InvalidField {
                    field: "raw characteristic with the PNC code (use pnc)",
                    value: t.code as u64,
                });
            }
            tlvs.push((t.code, &t.value));
        }
        tlvs.sort_by_key(|&(code, _)| code);
        for (code, value) in tlvs {
            let len = u16::try_from(value.len()).map_err(|_| BuildError::TooLong {
                what: "NHC characteristic value",
                len: value.len(),
                limit: u16::MAX as usize,
            })?;
            out.extend_from_slice(&code.to_be_bytes());
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(value);
        }
        Ok(out)
    }

    /// The whole path attribute (optional transitive).
    pub fn encode(&self, codes: &PncCodes) -> Result<Vec<u8>, BuildError> {
        let mut out = Vec::new();
        write_attribute(
            &mut out,
            FLAG_OPTIONAL | FLAG_TRANSITIVE,
            ATTR_NHC,
            &self.encode_value(codes)?,
        )?;
        Ok(out)
    }
}

/// MP_REACH_NLRI of a unicast or multicast IPv4/IPv6 route.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MpReachNlri {
    pub afi: u16,
    pub safi: u8,
    pub next_hop: NextHop,
    pub nlri: Vec<Prefix>,
}

impl MpReachNlri {
    pub fn parse_value(value: &[u8]) -> Result<Self, ParseError> {
        let layer = Layer::BgpPathAttribute;
        let mut c = Cursor::new(value, layer);
        let afi = c.u16()?;
        let safi = c.u8()?;
        let family = family_of_afi(afi).ok_or(ParseError::NotThisFormat {
            layer,
            field: "MP_REACH_NLRI AFI",
            expected: AFI_IPV6 as u64,
            found: afi as u64,
        })?;
        if safi != SAFI_UNICAST && safi != SAFI_MULTICAST {
            return Err(ParseError::NotThisFormat {
                layer,
                field: "MP_REACH_NLRI SAFI",
                expected: SAFI_UNICAST as u64,
                found: safi as u64,
            });
        }
        let next_hop = NextHop::parse(&mut c, layer)?;
        let _reserved = c.u8()?;
        let nlri = parse_nlri_with(&mut c, family)?;
        Ok(MpReachNlri {
            afi,
            safi,
            next_hop,
            nlri,
        })
    }

    pub fn encode_value(&self) -> Result<Vec<u8>, BuildError> {
        let family = family_of_afi(self.afi).ok_or(BuildError::InvalidField {
            field: "MP_REACH_NLRI AFI",
            value: self.afi as u64,
        })?;
        if self.safi != SAFI_UNICAST && self.safi != SAFI_MULTICAST {
            return Err(BuildError::InvalidField {
                field: "MP_REACH_NLRI SAFI",
                value: self.safi as u64,
            });
        }
        let mut out = self.afi.to_be_bytes().to_vec();
        out.push(self.safi);
        self.next_hop.write(&mut out)?;
        out.push(0);
        for p in &self.nlri {
            p.check()?;
            if p.family() != family {
                return Err(BuildError::InvalidField {
                    field: "prefix of another family than the AFI",
                    value: self.afi as u64,
                });
            }
            out.push(p.len);
            write_prefix(&mut out, p, PrefixEncoding::PackedIgnoreTrailing);
        }
        Ok(out)
    }
}

/// A path attribute kept as it came (flags without the extended-length
/// bit and the unused low bits, which the encoder derives).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathAttribute {
    pub flags: u8,
    pub type_code: u8,
    pub value: Vec<u8>,
}

/// The Path Attributes field of an UPDATE, MP_REACH_NLRI and NHC decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BgpPathAttributes {
    pub mp_reach: Option<MpReachNlri>,
    pub nhc: Option<NhcAttribute>,
    /// Every other attribute, in order.
    pub other: Vec<PathAttribute>,
}

impl BgpPathAttributes {
    /// Parses a sequence of path attributes; a repeated MP_REACH_NLRI or
    /// NHC is an error.
    pub fn parse(bytes: &[u8], codes: &PncCodes) -> Result<Self, ParseError> {
        let layer = Layer::BgpPathAttribute;
        let mut c = Cursor::new(bytes, layer);
        let mut out = BgpPathAttributes::default();
        while !c.is_at_end() {
            let (flags, type_code, value) = read_attribute(&mut c)?;
            let repeated = ParseError::InvalidField {
                layer,
                field: "repeated attribute",
                value: type_code as u64,
            };
            match type_code {
                ATTR_MP_REACH_NLRI => {
                    if out.mp_reach.is_some() {
                        return Err(repeated);
                    }
                    out.mp_reach = Some(MpReachNlri::parse_value(value)?);
                }
                ATTR_NHC => {
                    if out.nhc.is_some() {
                        return Err(repeated);
                    }
                    out.nhc = Some(NhcAttribute::parse_value(value, codes)?);
                }
                _ => out.other.push(PathAttribute {
                    flags: flags & (FLAG_OPTIONAL | FLAG_TRANSITIVE | FLAG_PARTIAL),
                    type_code,
                    value: value.to_vec(),
                }),
            }
        }
        Ok(out)
    }

    /// MP_REACH_NLRI first (RFC 7606 section 5.1), then the other
    /// attributes in their order with the NHC before the first of a higher
    /// type code.
    pub fn encode(&self, codes: &PncCodes) -> Result<Vec<u8>, BuildError> {
        let mut out = Vec::new();
        if let Some(mp) = &self.mp_reach {
            write_attribute(
                &mut out,
                FLAG_OPTIONAL,
                ATTR_MP_REACH_NLRI,
                &mp.encode_value()?,
            )?;
        }
        let mut nhc = self
            .nhc
            .as_ref()
            .map(|n| n.encode_value(codes))
            .transpose()?;
        for a in &self.other {
            if a.type_code == ATTR_MP_REACH_NLRI || a.type_code == ATTR_NHC {
                return Err(BuildError::InvalidField {
                    field: "raw attribute of a decoded type (use mp_reach / nhc)",
                    value: a.type_code as u64,
                });
            }
            if a.type_code > ATTR_NHC {
                if let Some(v) = nhc.take() {
                    write_attribute(&mut out, FLAG_OPTIONAL | FLAG_TRANSITIVE, ATTR_NHC, &v)?;
                }
            }
            write_attribute(&mut out, a.flags, a.type_code, &a.value)?;
        }
        if let Some(v) = nhc {
            write_attribute(&mut out, FLAG_OPTIONAL | FLAG_TRANSITIVE, ATTR_NHC, &v)?;
        }
        Ok(out)
    }

    /// Whether the NHC is present, bound to `next_hop` and carries the PNC.
    fn pnc_for(&self, next_hop: IpAddr) -> bool {
        self.nhc
            .as_ref()
            .is_some_and(|n| n.pnc && n.next_hop.address == next_hop)
    }

    /// One advertisement per MP_REACH_NLRI prefix; the proxy is the next
    /// hop. Empty without MP_REACH_NLRI.
    pub fn advertisements(&self) -> Vec<PncAdvertisement> {
        let Some(mp) = &self.mp_reach else {
            return Vec::new();
        };
        self.advertise(&mp.nlri, mp.next_hop.address)
    }

    /// The IPv4 NEXT_HOP attribute, if well-formed.
    pub fn next_hop_attribute(&self) -> Option<Ipv4Addr> {
        let a = self.other.iter().find(|a| a.type_code == ATTR_NEXT_HOP)?;
        <[u8; 4]>::try_from(&a.value[..]).ok().map(Ipv4Addr::from)
    }

    /// One advertisement per prefix of an UPDATE's own NLRI field (IPv4
    /// routes sent without MP_REACH_NLRI, [`parse_nlri`]), with the NEXT_HOP
    /// attribute as the proxy. Empty without NEXT_HOP.
    pub fn advertisements_for_nlri(&self, nlri: &[Prefix]) -> Vec<PncAdvertisement> {
        match self.next_hop_attribute() {
            Some(nh) => self.advertise(nlri, IpAddr::V4(nh)),
            None => Vec::new(),
        }
    }

    fn advertise(&self, nlri: &[Prefix], next_hop: IpAddr) -> Vec<PncAdvertisement> {
        let pnc = self.pnc_for(next_hop);
        nlri.iter()
            .map(|&prefix| PncAdvertisement {
                protocol: Protocol::Bgp,
                prefix,
                proxy: Some(next_hop),
                pnc,
                metric: None,
            })
            .collect()
    }
}

/// The prefixes of an NLRI field (RFC 4271 section 4.3: a length in bits,
/// then the fewest octets that hold it).
pub fn parse_nlri(bytes: &[u8], family: AddressFamily) -> Result<Vec<Prefix>, ParseError> {
    parse_nlri_with(&mut Cursor::new(bytes, Layer::BgpPathAttribute), family)
}

fn parse_nlri_with(c: &mut Cursor, family: AddressFamily) -> Result<Vec<Prefix>, ParseError> {
    let mut out = Vec::new();
    while !c.is_at_end() {
        let len = c.u8()?;
        out.push(read_prefix(
            c,
            Layer::BgpPathAttribute,
            family,
            len,
            PrefixEncoding::PackedIgnoreTrailing,
        )?);
    }
    Ok(out)
}

fn family_of_afi(afi: u16) -> Option<AddressFamily> {
    match afi {
        AFI_IPV4 => Some(AddressFamily::Ipv4),
        AFI_IPV6 => Some(AddressFamily::Ipv6),
        _ => None,
    }
}

/// Flags, type code and value of the next attribute.
fn read_attribute<'a>(c: &mut Cursor<'a>) -> Result<(u8, u8, &'a [u8]), ParseError> {
    let flags = c.u8()?;
    let type_code = c.u8()?;
    let len = if flags & FLAG_EXTENDED_LENGTH != 0 {
        c.u16()? as usize
    } else {
        c.u8()? as usize
    };
    Ok((flags, type_code, c.counted(len, "attribute length")?))
}

fn write_attribute(
    out: &mut Vec<u8>,
    flags: u8,
    type_code: u8,
    value: &[u8],
) -> Result<(), BuildError> {
    let flags = flags & (FLAG_OPTIONAL | FLAG_TRANSITIVE | FLAG_PARTIAL);
    if value.len() > u16::MAX as usize {
        return Err(BuildError::TooLong {
            what: "BGP path attribute value",
            len: value.len(),
            limit: u16::MAX as usize,
        });
    }
    if value.len() > 255 {
        out.extend_from_slice(&[flags | FLAG_EXTENDED_LENGTH, type_code]);
        out.extend_from_slice(&(value.len() as u16).to_be_bytes());
    } else {
        out.extend_from_slice(&[flags, type_code, value.len() as u8]);
    }
    out.extend_from_slice(value);
    Ok(())
}
