//! SRv6 Segment Routing Header (RFC 8754 section 2): IPv6 Routing header
//! type 4, and the H.Encaps encapsulation of RFC 8986 section 5.1 used by the
//! FCN ingress PE (draft-he-fcn-in-wan section 4.1: "if it is the SRv6 tunnel,
//! the destination address is the first SID of SRH").
//!
//! ```text
//! +---------------+---------------+---------------+---------------+
//! | Next Header   |  Hdr Ext Len  | Routing Type=4| Segments Left |
//! +---------------+---------------+---------------+---------------+
//! |  Last Entry   |     Flags     |              Tag              |
//! +---------------+---------------+-------------------------------+
//! |            Segment List[0] .. [n] (128 bits each)             |
//! +---------------------------------------------------------------+
//! //                Optional TLVs (variable)                     //
//! +---------------------------------------------------------------+
//! ```
//!
//! `Segment List[0]` is the last segment of the path; the active segment is
//! `Segment List[Segments Left]`.

use std::net::Ipv6Addr;

use crate::envelope::{Envelope, IpPair};
use crate::error::{BuildError, Layer, ParseError};
use crate::frame::{Frame, IpHeader, UdpChecksum, L4};
use crate::ipv6::{Ipv6ExtHeader, NEXT_ROUTING};
use crate::wire::Cursor;

/// Routing type of the SRH.
pub const ROUTING_TYPE_SRH: u8 = 4;

/// A Segment Routing Header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SegmentRoutingHeader {
    pub segments_left: u8,
    /// Index of the last element of the segment list.
    pub last_entry: u8,
    pub flags: u8,
    pub tag: u16,
    /// Segment List[0..=last_entry], last segment of the path first.
    pub segments: Vec<Ipv6Addr>,
    /// TLV bytes after the segment list (a multiple of 8 bytes; zero-padded
    /// with Pad1 when written).
    pub tlvs: Vec<u8>,
}

impl SegmentRoutingHeader {
    /// The SRH of a path given in visiting order (`path[0]` first): the list
    /// is stored reversed, Segments Left and Last Entry = n - 1.
    pub fn for_path(path: &[Ipv6Addr]) -> Self {
        let n = path.len().clamp(1, 256) as u8;
        SegmentRoutingHeader {
            segments_left: n - 1,
            last_entry: n - 1,
            flags: 0,
            tag: 0,
            segments: path.iter().rev().copied().collect(),
            tlvs: Vec::new(),
        }
    }

    /// The active segment, Segment List[Segments Left].
    pub fn active_segment(&self) -> Option<Ipv6Addr> {
        self.segments.get(self.segments_left as usize).copied()
    }

    /// Parses a Routing extension header of type 4.
    pub fn from_ext_header(e: &Ipv6ExtHeader) -> Result<Self, ParseError> {
        if e.header_type != NEXT_ROUTING {
            return Err(ParseError::NotThisFormat {
                layer: Layer::Srh,
                field: "extension header type",
                expected: NEXT_ROUTING as u64,
                found: e.header_type as u64,
            });
        }
        let mut c = Cursor::new(&e.data, Layer::Srh);
        let routing_type = c.u8()?;
        if routing_type != ROUTING_TYPE_SRH {
            return Err(ParseError::NotThisFormat {
                layer: Layer::Srh,
                field: "routing type",
                expected: ROUTING_TYPE_SRH as u64,
                found: routing_type as u64,
            });
        }
        let segments_left = c.u8()?;
        let last_entry = c.u8()?;
        let flags = c.u8()?;
        let tag = c.u16()?;
        let mut segments = Vec::with_capacity(last_entry as usize + 1);
        for _ in 0..=last_entry {
            segments.push(Ipv6Addr::from(c.array::<16>()?));
        }
        Ok(SegmentRoutingHeader {
            segments_left,
            last_entry,
            flags,
            tag,
            segments,
            tlvs: c.rest().to_vec(),
        })
    }

    /// The Routing extension header naming `next_header`.
    pub fn to_ext_header(&self, next_header: u8) -> Ipv6ExtHeader {
        let mut data = vec![
            ROUTING_TYPE_SRH,
            self.segments_left,
            self.last_entry,
            self.flags,
        ];
        data.extend_from_slice(&self.tag.to_be_bytes());
        for s in &self.segments {
            data.extend_from_slice(&s.octets());
        }
        data.extend_from_slice(&self.tlvs);
        Ipv6ExtHeader {
            header_type: NEXT_ROUTING,
            next_header,
            data,
        }
    }

    /// The SRH of an IPv6 header, if it has one.
    pub fn find(header: &IpHeader) -> Option<Result<Self, ParseError>> {
        let IpHeader::V6(h) = header else { return None };
        h.ext_headers
            .iter()
            .find(|e| e.header_type == NEXT_ROUTING && e.data.first() == Some(&ROUTING_TYPE_SRH))
            .map(Self::from_ext_header)
    }
}

/// H.Encaps: wraps `inner` (an IPv4 packet with `inner_next_header` 4, IPv6
/// with 41, or an Ethernet frame with 143) in an outer IPv6 header plus SRH
/// for `path` (visiting order). The outer destination is `path[0]`; the
/// outer source, ECN, flow label and hop limit come from `outer`.
pub fn encapsulate(
    outer: &Envelope,
    path: &[Ipv6Addr],
    inner_next_header: u8,
    inner: &[u8],
) -> Result<Frame, BuildError> {
    let IpPair::V6 { src, .. } = outer.ip else {
        return Err(BuildError::NeedsIpv6("SRv6 encapsulation"));
    };
    let Some(&first) = path.first() else {
        return Err(BuildError::TooLong {
            what: "empty SRv6 path",
            len: 0,
            limit: 0,
        });
    };
    if path.len() > 128 {
        return Err(BuildError::TooLong {
            what: "SRv6 segment list",
            len: path.len(),
            limit: 128,
        });
    }
    let mut env = outer.clone();
    env.ip = IpPair::V6 { src, dst: first };
    let mut frame = env.frame(NEXT_ROUTING, L4::Other(inner.to_vec()));
    if let IpHeader::V6(h) = &mut frame.ip.header {
        h.ext_headers = vec![SegmentRoutingHeader::for_path(path).to_ext_header(inner_next_header)];
    }
    frame.finalize(UdpChecksum::Keep);
    Ok(frame)
}

/// The SRH, the next-header value after it and the inner packet of an
/// SRv6-encapsulated frame.
pub fn decapsulate(frame: &Frame) -> Result<(SegmentRoutingHeader, u8, Vec<u8>), ParseError> {
    let not_srv6 = || ParseError::NotThisFormat {
        layer: Layer::Srh,
        field: "routing header",
        expected: ROUTING_TYPE_SRH as u64,
        found: 0,
    };
    let srh = SegmentRoutingHeader::find(&frame.ip.header).ok_or_else(not_srv6)??;
    let next = frame.ip.header.protocol();
    match &frame.ip.l4 {
        L4::Other(inner) => Ok((srh, next, inner.clone())),
        L4::Udp(u) => Ok((srh, next, u.to_bytes())),
        L4::Icmpv6(m) => Ok((srh, next, m.to_bytes())),
    }
}
