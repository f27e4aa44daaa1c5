//! Congestion notification (CN) message from a congested node to a proxy
//! (draft-xiao-rtgwg-proxy-congestion-notification section 4): UDP to port
//! TBD1 carrying an IP five-tuple, a 3-bit congestion level and as much of
//! the invoking packet as fits.
//!
//! The draft does not fix the encoding of the five-tuple and level; this
//! project uses (all fields big-endian):
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-------+-------+---------------+-----+-------------------------+
//! |Ver = 1|Family |   Protocol    |Level|     Reserved (13) = 0   |
//! +-------+-------+---------------+-----+-------------------------+
//! |         Source Port           |       Destination Port        |
//! +-------------------------------+-------------------------------+
//! ~     Source Address (4 bytes if Family = 4, 16 if Family = 6)  ~
//! +---------------------------------------------------------------+
//! ~   Destination Address (4 bytes if Family = 4, 16 if 6)        ~
//! +---------------------------------------------------------------+
//! ~   Invoking packet from its IP header on, truncated so that    ~
//! ~   the CN message's IP packet is at most 576 bytes over IPv4   ~
//! ~   or 1280 bytes (the IPv6 minimum MTU) over IPv6              ~
//! +---------------------------------------------------------------+
//! ```
//!
//! - Ver: 1, this layout.
//! - Family: 4 or 6, the IP version of the five-tuple's addresses.
//! - Protocol, ports: of the flow below any VPN encapsulation (draft section
//!   4); ports are 0 for protocols without ports.
//! - Level: 0 lowest .. 7 highest congestion.
//! - The header is 16 bytes for IPv4 five-tuples and 40 for IPv6.
//!
//! The UDP destination port is TBD1 in the draft; this project's default is
//! [`DEFAULT_UDP_PORT`] (49792, dynamic range), configurable. Generated CN
//! messages carry a UDP checksum.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::checksum::IPPROTO_UDP;
use crate::envelope::{Envelope, IpPair};
use crate::error::{Layer, ParseError};
use crate::frame::{Frame, IpHeader, IpPacket, UdpChecksum, L4};
use crate::udp::{UdpDatagram, HEADER_LEN as UDP_HEADER_LEN, VXLAN_PORT};
use crate::wire::Cursor;
use crate::{ipv6, vxlan};

/// Default UDP destination port of CN messages (draft TBD1): 49792, from the
/// dynamic range, next to the Fast CNP default.
pub const DEFAULT_UDP_PORT: u16 = 49792;
/// Version of the layout above.
pub const VERSION: u8 = 1;
/// Largest IPv4 packet carrying a CN message.
pub const MAX_IPV4_PACKET: usize = 576;
/// Largest IPv6 packet carrying a CN message (IPv6 minimum MTU).
pub const MAX_IPV6_PACKET: usize = 1280;

/// An IP five-tuple (RFC 6438).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    pub addrs: IpPair,
    pub protocol: u8,
    pub src_port: u16,
    pub dst_port: u16,
}

impl FiveTuple {
    /// The five-tuple of an IP packet (ports of UDP; of TCP, SCTP, DCCP from
    /// the first four upper-layer bytes; 0 otherwise or for fragments).
    pub fn of_packet(p: &IpPacket) -> Self {
        let addrs = match &p.header {
            IpHeader::V4(h) => IpPair::V4 {
                src: h.src,
                dst: h.dst,
            },
            IpHeader::V6(h) => IpPair::V6 {
                src: h.src,
                dst: h.dst,
            },
        };
        let protocol = p.header.protocol();
        let (src_port, dst_port) = match &p.l4 {
            L4::Udp(u) => (u.src_port, u.dst_port),
            L4::Other(b)
                if !p.header.is_fragment() && matches!(protocol, 6 | 33 | 132) && b.len() >= 4 =>
            {
                (
                    u16::from_be_bytes([b[0], b[1]]),
                    u16::from_be_bytes([b[2], b[3]]),
                )
            }
            _ => (0, 0),
        };
        FiveTuple {
            addrs,
            protocol,
            src_port,
            dst_port,
        }
    }
}

impl FiveTuple {
    /// The five-tuple of the packet below any VXLAN, SRv6 / IP-in-IP
    /// (next header 4, 41) or Ethernet-over-IPv6 (143) encapsulation of
    /// `frame`, looking through up to four levels (draft section 4: "the IP
    /// five-tuple is carried below the VPN encapsulation").
    pub fn of_frame(frame: &Frame) -> Self {
        let mut packet = frame.ip.clone();
        for _ in 0..4 {
            match inner_packet(&packet) {
                Some(inner) => packet = inner,
                None => break,
            }
        }
        Self::of_packet(&packet)
    }
}

/// The IP packet one encapsulation level below `p`, if `p` is a tunnel.
fn inner_packet(p: &IpPacket) -> Option<IpPacket> {
    match &p.l4 {
        L4::Udp(u) if u.dst_port == VXLAN_PORT && u.payload.len() > vxlan::HEADER_LEN => {
            Frame::parse(&u.payload[vxlan::HEADER_LEN..])
                .ok()
                .map(|f| f.ip)
        }
        L4::Other(bytes) if !p.header.is_fragment() => match p.header.protocol() {
            ipv6::NEXT_IPV4 | ipv6::NEXT_IPV6 => IpPacket::parse(bytes).ok().map(|(ip, _)| ip),
            ipv6::NEXT_ETHERNET => Frame::parse(bytes).ok().map(|f| f.ip),
            _ => None,
        },
        _ => None,
    }
}

/// A CN message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProxyCnMessage {
    pub five_tuple: FiveTuple,
    /// Congestion level (3 bits).
    pub level: u8,
    /// The invoking packet from its IP header on (truncated when framed).
    pub invoking_packet: Vec<u8>,
}

impl ProxyCnMessage {
    /// Length of the fixed part (16 for IPv4 five-tuples, 40 for IPv6).
    pub fn header_len(&self) -> usize {
        if self.five_tuple.addrs.is_ipv6() {
            40
        } else {
            16
        }
    }

    pub fn len(&self) -> usize {
        self.header_len() + self.invoking_packet.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Parses a UDP payload.
    pub fn parse(payload: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(payload, Layer::ProxyCn);
        let b0 = c.u8()?;
        if b0 >> 4 != VERSION {
            return Err(ParseError::InvalidField {
                layer: Layer::ProxyCn,
                field: "version",
                value: (b0 >> 4) as u64,
            });
        }
        let protocol = c.u8()?;
        let level = c.u8()? >> 5;
        let _reserved = c.u8()?;
        let src_port = c.u16()?;
        let dst_port = c.u16()?;
        let addrs = match b0 & 0x0F {
            4 => IpPair::V4 {
                src: Ipv4Addr::from(c.array::<4>()?),
                dst: Ipv4Addr::from(c.array::<4>()?),
            },
            6 => IpPair::V6 {
                src: Ipv6Addr::from(c.array::<16>()?),
                dst: Ipv6Addr::from(c.array::<16>()?),
            },
            f => {
                return Err(ParseError::InvalidField {
                    layer: Layer::ProxyCn,
                    field: "address family",
                    value: f as u64,
                })
            }
        };
        Ok(ProxyCnMessage {
            five_tuple: FiveTuple {
                addrs,
                protocol,
                src_port,
                dst_port,
            },
            level,
            invoking_packet: c.rest().to_vec(),
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        let t = &self.five_tuple;
        let family = if t.addrs.is_ipv6() { 6 } else { 4 };
        out.push((VERSION << 4) | family);
        out.push(t.protocol);
        out.push((self.level & 7) << 5);
        out.push(0);
        out.extend_from_slice(&t.src_port.to_be_bytes());
        out.extend_from_slice(&t.dst_port.to_be_bytes());
        match t.addrs {
            IpPair::V4 { src, dst } => {
                out.extend_from_slice(&src.octets());
                out.extend_from_slice(&dst.octets());
            }
            IpPair::V6 { src, dst } => {
                out.extend_from_slice(&src.octets());
                out.extend_from_slice(&dst.octets());
            }
        }
        out.extend_from_slice(&self.invoking_packet);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }

    /// How many invoking-packet bytes fit when sent in `env`.
    pub fn max_invoking_len(&self, env: &Envelope) -> usize {
        let ip_header = env.ip_header(IPPROTO_UDP).header_len();
        let limit = if env.is_ipv6() {
            MAX_IPV6_PACKET
        } else {
            MAX_IPV4_PACKET
        };
        limit.saturating_sub(ip_header + UDP_HEADER_LEN + self.header_len())
    }

    /// The message with the invoking packet cut to what fits in `env`.
    pub fn truncated_for(&self, env: &Envelope) -> Self {
        let mut m = self.clone();
        m.invoking_packet.truncate(self.max_invoking_len(env));
        m
    }

    /// The whole frame, invoking packet truncated to the size limit, UDP
    /// checksum computed.
    pub fn to_frame(&self, env: &Envelope, udp_src_port: u16, udp_dst_port: u16) -> Frame {
        let m = self.truncated_for(env);
        let udp = UdpDatagram::new(udp_src_port, udp_dst_port, m.to_bytes());
        let mut f = env.frame(IPPROTO_UDP, L4::Udp(udp));
        f.finalize(UdpChecksum::Compute);
        f
    }

    /// The CN message of a frame sent to UDP port `udp_dst_port`.
    pub fn from_frame(frame: &Frame, udp_dst_port: u16) -> Result<Self, ParseError> {
        Self::parse(&frame.udp_to_port(udp_dst_port, Layer::ProxyCn)?.payload)
    }
}
