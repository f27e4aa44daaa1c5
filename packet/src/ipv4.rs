//! IPv4 header with options (RFC 791), its checksum and the in-place ECN
//! rewrite with the RFC 1624 incremental checksum update.

use std::net::Ipv4Addr;

use crate::checksum::{ipv4_header_checksum, ones_complement_add};
use crate::ecn::Ecn;
use crate::error::{Layer, ParseError};
use crate::wire::{be16, Cursor};

/// Length of an IPv4 header without options.
pub const MIN_HEADER_LEN: usize = 20;
/// Longest options field (IHL 15).
pub const MAX_OPTIONS_LEN: usize = 40;

/// IPv4 header. The total length is not stored: it is derived from the
/// payload when the header is written, and checked when it is parsed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ipv4Header {
    /// Differentiated services code point (6 bits).
    pub dscp: u8,
    pub ecn: Ecn,
    pub identification: u16,
    /// The reserved (evil) bit of the flags.
    pub reserved_flag: bool,
    pub dont_fragment: bool,
    pub more_fragments: bool,
    /// Fragment offset in 8-byte units (13 bits).
    pub fragment_offset: u16,
    pub ttl: u8,
    pub protocol: u8,
    /// Header checksum as carried; [`Ipv4Header::compute_checksum`] gives the
    /// correct one.
    pub checksum: u16,
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    /// Options, a multiple of 4 bytes, at most 40 (longer is cut, a ragged
    /// end is zero-padded when written).
    pub options: Vec<u8>,
}

impl Ipv4Header {
    /// A header with TTL 64, DF set, DSCP 0, Not-ECT and checksum 0.
    pub fn new(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8) -> Self {
        Ipv4Header {
            dscp: 0,
            ecn: Ecn::NotEct,
            identification: 0,
            reserved_flag: false,
            dont_fragment: true,
            more_fragments: false,
            fragment_offset: 0,
            ttl: 64,
            protocol,
            checksum: 0,
            src,
            dst,
            options: Vec::new(),
        }
    }

    /// The TOS byte (DSCP and ECN).
    pub fn tos(&self) -> u8 {
        (self.dscp << 2) | self.ecn.bits()
    }

    fn options_len(&self) -> usize {
        let n = self.options.len().min(MAX_OPTIONS_LEN);
        n + crate::wire::pad4(n)
    }

    /// Header length in bytes (20 + padded options).
    pub fn header_len(&self) -> usize {
        MIN_HEADER_LEN + self.options_len()
    }

    /// Whether this is a fragment (MF set or a non-zero offset).
    pub fn is_fragment(&self) -> bool {
        self.more_fragments || self.fragment_offset != 0
    }

    /// Parses a header. Returns it, its length and the packet's total length
    /// (which is checked to fit in `buf`).
    pub fn parse(buf: &[u8]) -> Result<(Self, usize, usize), ParseError> {
        let mut c = Cursor::new(buf, Layer::Ipv4);
        let ver_ihl = c.u8()?;
        if ver_ihl >> 4 != 4 {
            return Err(ParseError::InvalidField {
                layer: Layer::Ipv4,
                field: "version",
                value: (ver_ihl >> 4) as u64,
            });
        }
        let ihl = (ver_ihl & 0x0F) as usize * 4;
        if ihl < MIN_HEADER_LEN {
            return Err(ParseError::InvalidField {
                layer: Layer::Ipv4,
                field: "IHL",
                value: (ver_ihl & 0x0F) as u64,
            });
        }
        let tos = c.u8()?;
        let total_len = c.u16()? as usize;
        let identification = c.u16()?;
        let flags_frag = c.u16()?;
        let ttl = c.u8()?;
        let protocol = c.u8()?;
        let checksum = c.u16()?;
        let src = Ipv4Addr::from(c.array::<4>()?);
        let dst = Ipv4Addr::from(c.array::<4>()?);
        let options = c.bytes(ihl - MIN_HEADER_LEN)?.to_vec();
        if total_len < ihl || total_len > buf.len() {
            return Err(ParseError::BadLength {
                layer: Layer::Ipv4,
                field: "total length",
                value: total_len,
                available: buf.len(),
            });
        }
        Ok((
            Ipv4Header {
                dscp: tos >> 2,
                ecn: Ecn::from_bits(tos),
                identification,
                reserved_flag: flags_frag & 0x8000 != 0,
                dont_fragment: flags_frag & 0x4000 != 0,
                more_fragments: flags_frag & 0x2000 != 0,
                fragment_offset: flags_frag & 0x1FFF,
                ttl,
                protocol,
                checksum,
                src,
                dst,
                options,
            },
            ihl,
            total_len,
        ))
    }

    /// Appends the header of a packet with `payload_len` bytes of payload,
    /// with the checksum field as stored.
    pub fn write(&self, payload_len: usize, out: &mut Vec<u8>) {
        let start = out.len();
        let hlen = self.header_len();
        let total = (hlen + payload_len).min(u16::MAX as usize) as u16;
        out.push(0x40 | (hlen / 4) as u8);
        out.push(self.tos());
        out.extend_from_slice(&total.to_be_bytes());
        out.extend_from_slice(&self.identification.to_be_bytes());
        let flags_frag = ((self.reserved_flag as u16) << 15)
            | ((self.dont_fragment as u16) << 14)
            | ((self.more_fragments as u16) << 13)
            | (self.fragment_offset & 0x1FFF);
        out.extend_from_slice(&flags_frag.to_be_bytes());
        out.push(self.ttl);
        out.push(self.protocol);
        out.extend_from_slice(&self.checksum.to_be_bytes());
        out.extend_from_slice(&self.src.octets());
        out.extend_from_slice(&self.dst.octets());
        let n = self.options.len().min(MAX_OPTIONS_LEN);
        out.extend_from_slice(&self.options[..n]);
        out.resize(start + hlen, 0);
    }

    /// The correct header checksum for a packet with `payload_len` bytes of
    /// payload.
    pub fn compute_checksum(&self, payload_len: usize) -> u16 {
        let mut h = Vec::with_capacity(self.header_len());
        self.write(payload_len, &mut h);
        ipv4_header_checksum(&h)
    }
}

/// RFC 1624 equation 3: the checksum after one 16-bit header word changes
/// from `old_word` to `new_word`.
pub fn incremental_checksum_update(old_checksum: u16, old_word: u16, new_word: u16) -> u16 {
    let mut acc = ones_complement_add(0, &(!old_checksum).to_be_bytes());
    acc = ones_complement_add(acc, &(!old_word).to_be_bytes());
    acc = ones_complement_add(acc, &new_word.to_be_bytes());
    crate::checksum::fold_complement(acc)
}

/// Rewrites the ECN field of the IPv4 header at the start of `header` and
/// updates its checksum incrementally (RFC 1624), as a router does: a header
/// that arrived with a wrong checksum keeps a wrong one. Returns the old ECN.
pub fn set_ecn_in_place(header: &mut [u8], ecn: Ecn) -> Result<Ecn, ParseError> {
    if header.len() < MIN_HEADER_LEN {
        return Err(ParseError::truncated(
            Layer::Ipv4,
            MIN_HEADER_LEN,
            header.len(),
        ));
    }
    if header[0] >> 4 != 4 {
        return Err(ParseError::InvalidField {
            layer: Layer::Ipv4,
            field: "version",
            value: (header[0] >> 4) as u64,
        });
    }
    let old_word = be16(header, 0);
    let old = Ecn::from_bits(header[1]);
    header[1] = (header[1] & !3) | ecn.bits();
    let new_word = be16(header, 0);
    let checksum = incremental_checksum_update(be16(header, 10), old_word, new_word);
    header[10..12].copy_from_slice(&checksum.to_be_bytes());
    Ok(old)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_04_ce_marking_updates_checksum_incrementally() {
        let mut h = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 4), 17);
        h.ecn = Ecn::Ect0;
        h.identification = 0x1234;
        h.checksum = h.compute_checksum(100);
        let mut bytes = Vec::new();
        h.write(100, &mut bytes);
        assert_eq!(set_ecn_in_place(&mut bytes, Ecn::Ce), Ok(Ecn::Ect0));
        let mut marked = h.clone();
        marked.ecn = Ecn::Ce;
        assert_eq!(be16(&bytes, 10), marked.compute_checksum(100));
        assert_eq!(crate::checksum::internet_checksum(&bytes), 0);
    }
}
