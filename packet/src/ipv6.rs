//! IPv6 header (RFC 8200) and the extension headers a parser must step over
//! to reach the upper layer: Hop-by-Hop Options, Routing, Fragment and
//! Destination Options (RFC 8200 section 4).

use std::net::Ipv6Addr;

use crate::ecn::Ecn;
use crate::error::{Layer, ParseError};
use crate::wire::Cursor;

/// Length of the fixed IPv6 header.
pub const HEADER_LEN: usize = 40;
/// Next-header value of Hop-by-Hop Options.
pub const NEXT_HOP_BY_HOP: u8 = 0;
/// Next-header value of a Routing header (the SRH is routing type 4).
pub const NEXT_ROUTING: u8 = 43;
/// Next-header value of a Fragment header.
pub const NEXT_FRAGMENT: u8 = 44;
/// Next-header value of Destination Options.
pub const NEXT_DEST_OPTS: u8 = 60;
/// Next-header value "no next header".
pub const NEXT_NONE: u8 = 59;
/// Next-header value of an encapsulated IPv4 packet.
pub const NEXT_IPV4: u8 = 4;
/// Next-header value of an encapsulated IPv6 packet.
pub const NEXT_IPV6: u8 = 41;
/// Next-header value of an encapsulated Ethernet frame (RFC 8986).
pub const NEXT_ETHERNET: u8 = 143;
/// Upper bound on the extension headers one packet may chain; a longer chain
/// is rejected rather than walked.
pub const MAX_EXTENSION_HEADERS: usize = 16;

/// Whether `next_header` names an extension header this parser steps over.
pub fn is_extension_header(next_header: u8) -> bool {
    matches!(
        next_header,
        NEXT_HOP_BY_HOP | NEXT_ROUTING | NEXT_FRAGMENT | NEXT_DEST_OPTS
    )
}

/// One extension header: its own type, the next header it names and the
/// bytes after those first two (its length byte is derived from `data`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ipv6ExtHeader {
    /// What this header is (0, 43, 44 or 60).
    pub header_type: u8,
    pub next_header: u8,
    /// Bytes after the next-header and length bytes: 6 for a fragment
    /// header, 8n + 6 for the others (zero-padded when written).
    pub data: Vec<u8>,
}

impl Ipv6ExtHeader {
    /// Length on the wire.
    pub fn len(&self) -> usize {
        if self.header_type == NEXT_FRAGMENT {
            8
        } else {
            let n = 2 + self.data.len();
            n.div_ceil(8) * 8
        }
        .min(8 * 256)
    }

    /// Never empty; present for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        false
    }

    fn write(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let len = self.len();
        out.push(self.next_header);
        out.push(if self.header_type == NEXT_FRAGMENT {
            0
        } else {
            (len / 8 - 1) as u8
        });
        let n = self.data.len().min(len - 2);
        out.extend_from_slice(&self.data[..n]);
        out.resize(start + len, 0);
    }

    /// For a Fragment header: (fragment offset in 8-byte units, M flag).
    pub fn fragment_info(&self) -> Option<(u16, bool)> {
        if self.header_type != NEXT_FRAGMENT || self.data.len() < 2 {
            return None;
        }
        let w = u16::from_be_bytes([self.data[0], self.data[1]]);
        Some((w >> 3, w & 1 != 0))
    }
}

/// IPv6 header with its extension-header chain. The payload length is not
/// stored: it is derived when written and checked when parsed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ipv6Header {
    /// DSCP, the six high bits of the traffic class.
    pub dscp: u8,
    pub ecn: Ecn,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Next header of the fixed header (the first extension header's type, or
    /// the upper-layer protocol).
    pub next_header: u8,
    pub hop_limit: u8,
    pub src: Ipv6Addr,
    pub dst: Ipv6Addr,
    /// Extension headers in order.
    pub ext_headers: Vec<Ipv6ExtHeader>,
}

impl Ipv6Header {
    /// A header with hop limit 64, DSCP 0, Not-ECT, flow label 0 and no
    /// extension headers.
    pub fn new(src: Ipv6Addr, dst: Ipv6Addr, next_header: u8) -> Self {
        Ipv6Header {
            dscp: 0,
            ecn: Ecn::NotEct,
            flow_label: 0,
            next_header,
            hop_limit: 64,
            src,
            dst,
            ext_headers: Vec::new(),
        }
    }

    pub fn traffic_class(&self) -> u8 {
        (self.dscp << 2) | self.ecn.bits()
    }

    /// Length of the fixed header and all extension headers.
    pub fn header_len(&self) -> usize {
        HEADER_LEN + self.ext_headers.iter().map(|e| e.len()).sum::<usize>()
    }

    /// The upper-layer protocol after the extension headers.
    pub fn upper_protocol(&self) -> u8 {
        self.ext_headers
            .last()
            .map_or(self.next_header, |e| e.next_header)
    }

    /// Whether a Fragment header makes this a fragment other than a whole
    /// packet (offset != 0 or more fragments follow).
    pub fn is_fragment(&self) -> bool {
        self.ext_headers
            .iter()
            .filter_map(|e| e.fragment_info())
            .any(|(offset, more)| offset != 0 || more)
    }

    /// Parses the fixed header and steps over the extension headers. Returns
    /// the header, the length of everything parsed (fixed + extensions) and
    /// the packet length (40 + payload length, checked to fit in `buf`).
    pub fn parse(buf: &[u8]) -> Result<(Self, usize, usize), ParseError> {
        let mut c = Cursor::new(buf, Layer::Ipv6);
        let w0 = c.u32()?;
        if w0 >> 28 != 6 {
            return Err(ParseError::InvalidField {
                layer: Layer::Ipv6,
                field: "version",
                value: (w0 >> 28) as u64,
            });
        }
        let payload_len = c.u16()? as usize;
        let next_header = c.u8()?;
        let hop_limit = c.u8()?;
        let src = Ipv6Addr::from(c.array::<16>()?);
        let dst = Ipv6Addr::from(c.array::<16>()?);
        let packet_len = HEADER_LEN + payload_len;
        if packet_len > buf.len() {
            return Err(ParseError::BadLength {
                layer: Layer::Ipv6,
                field: "payload length",
                value: payload_len,
                available: buf.len() - HEADER_LEN,
            });
        }
        let mut c = Cursor::new(&buf[..packet_len], Layer::Ipv6Extension);
        c.bytes(HEADER_LEN)?;
        let mut ext_headers = Vec::new();
        let mut current = next_header;
        while is_extension_header(current) {
            if ext_headers.len() == MAX_EXTENSION_HEADERS {
                return Err(ParseError::InvalidField {
                    layer: Layer::Ipv6Extension,
                    field: "chain length",
                    value: MAX_EXTENSION_HEADERS as u64 + 1,
                });
            }
            let nh = c.u8()?;
            let len_byte = c.u8()?; // reserved in a fragment header
            let len = if current == NEXT_FRAGMENT {
                8
            } else {
                (len_byte as usize + 1) * 8
            };
            let data = if current == NEXT_FRAGMENT {
                // Byte 1 of a fragment header is reserved (ignored on receipt).
                c.bytes(6)?.to_vec()
            } else {
                c.bytes(len - 2)?.to_vec()
            };
            ext_headers.push(Ipv6ExtHeader {
                header_type: current,
                next_header: nh,
                data,
            });
            current = nh;
        }
        let header_len = c.position();
        Ok((
            Ipv6Header {
                dscp: ((w0 >> 22) & 0x3F) as u8,
                ecn: Ecn::from_bits((w0 >> 20) as u8),
                flow_label: w0 & 0x000F_FFFF,
                next_header,
                hop_limit,
                src,
                dst,
                ext_headers,
            },
            header_len,
            packet_len,
        ))
    }

    /// Appends the fixed header and the extension headers of a packet whose
    /// upper-layer part is `upper_len` bytes long.
    pub fn write(&self, upper_len: usize, out: &mut Vec<u8>) {
        let payload_len = (self.header_len() - HEADER_LEN + upper_len).min(u16::MAX as usize);
        let w0 =
            (6u32 << 28) | ((self.traffic_class() as u32) << 20) | (self.flow_label & 0x000F_FFFF);
        out.extend_from_slice(&w0.to_be_bytes());
        out.extend_from_slice(&(payload_len as u16).to_be_bytes());
        out.push(self.next_header);
        out.push(self.hop_limit);
        out.extend_from_slice(&self.src.octets());
        out.extend_from_slice(&self.dst.octets());
        for e in &self.ext_headers {
            e.write(out);
        }
    }
}

fn check_v6(header: &[u8]) -> Result<(), ParseError> {
    if header.len() < HEADER_LEN {
        return Err(ParseError::truncated(Layer::Ipv6, HEADER_LEN, header.len()));
    }
    if header[0] >> 4 != 6 {
        return Err(ParseError::InvalidField {
            layer: Layer::Ipv6,
            field: "version",
            value: (header[0] >> 4) as u64,
        });
    }
    Ok(())
}

/// Rewrites the ECN field of the IPv6 header at the start of `header`;
/// returns the old value.
pub fn set_ecn_in_place(header: &mut [u8], ecn: Ecn) -> Result<Ecn, ParseError> {
    check_v6(header)?;
    // Traffic class spans bits 4..12: ECN is bits 10..12, i.e. bits 4..6 of byte 1.
    let old = Ecn::from_bits(header[1] >> 4);
    header[1] = (header[1] & !0x30) | (ecn.bits() << 4);
    Ok(old)
}

/// Rewrites the flow label of the IPv6 header at the start of `header`;
/// returns the old value.
pub fn set_flow_label_in_place(header: &mut [u8], flow_label: u32) -> Result<u32, ParseError> {
    check_v6(header)?;
    let w0 = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
    let new = (w0 & 0xFFF0_0000) | (flow_label & 0x000F_FFFF);
    header[..4].copy_from_slice(&new.to_be_bytes());
    Ok(w0 & 0x000F_FFFF)
}
