//! A whole Ethernet/IP frame: Ethernet header, IPv4 or IPv6 header (with
//! options or extension headers), a UDP datagram, an ICMPv6 message or an
//! opaque upper layer, and the bytes after the IP packet (Ethernet padding).
//!
//! [`Frame::parse`] and [`Frame::to_bytes`] are exact inverses for frames whose
//! stored fields are consistent; lengths are always derived, checksums and the
//! ICRC are written as stored and filled in by [`Frame::finalize`]. In-path
//! rewrites of received frames (ECN marking, flow-label rewrite) work on the
//! bytes in place: [`set_ecn`], [`set_ipv6_flow_label`].

use std::net::IpAddr;

use crate::checksum::{icmpv6_checksum, udp_checksum, IPPROTO_ICMPV6, IPPROTO_UDP};
use crate::ecn::Ecn;
use crate::error::{ChecksumError, Layer, ParseError};
use crate::ethernet::{EthernetHeader, ETHERTYPE_IPV4, ETHERTYPE_IPV6, MIN_FRAME_LEN};
use crate::icmpv6::Icmpv6Message;
use crate::icrc;
use crate::ipv4::{self, Ipv4Header};
use crate::ipv6::{self, Ipv6Header};
use crate::roce::RocePacket;
use crate::udp::{UdpDatagram, ROCEV2_PORT};

/// IPv4 or IPv6 header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IpHeader {
    V4(Ipv4Header),
    V6(Ipv6Header),
}

impl IpHeader {
    pub fn src(&self) -> IpAddr {
        match self {
            IpHeader::V4(h) => h.src.into(),
            IpHeader::V6(h) => h.src.into(),
        }
    }

    pub fn dst(&self) -> IpAddr {
        match self {
            IpHeader::V4(h) => h.dst.into(),
            IpHeader::V6(h) => h.dst.into(),
        }
    }

    pub fn ecn(&self) -> Ecn {
        match self {
            IpHeader::V4(h) => h.ecn,
            IpHeader::V6(h) => h.ecn,
        }
    }

    pub fn set_ecn(&mut self, ecn: Ecn) {
        match self {
            IpHeader::V4(h) => h.ecn = ecn,
            IpHeader::V6(h) => h.ecn = ecn,
        }
    }

    pub fn dscp(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.dscp,
            IpHeader::V6(h) => h.dscp,
        }
    }

    /// TTL or hop limit.
    pub fn ttl(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.ttl,
            IpHeader::V6(h) => h.hop_limit,
        }
    }

    /// The upper-layer protocol (after any IPv6 extension headers).
    pub fn protocol(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.protocol,
            IpHeader::V6(h) => h.upper_protocol(),
        }
    }

    pub fn is_ipv6(&self) -> bool {
        matches!(self, IpHeader::V6(_))
    }

    pub fn is_fragment(&self) -> bool {
        match self {
            IpHeader::V4(h) => h.is_fragment(),
            IpHeader::V6(h) => h.is_fragment(),
        }
    }

    /// Header length including IPv4 options or IPv6 extension headers.
    pub fn header_len(&self) -> usize {
        match self {
            IpHeader::V4(h) => h.header_len(),
            IpHeader::V6(h) => h.header_len(),
        }
    }

    /// The EtherType that carries this header.
    pub fn ethertype(&self) -> u16 {
        match self {
            IpHeader::V4(_) => ETHERTYPE_IPV4,
            IpHeader::V6(_) => ETHERTYPE_IPV6,
        }
    }

    pub fn write(&self, upper_len: usize, out: &mut Vec<u8>) {
        match self {
            IpHeader::V4(h) => h.write(upper_len, out),
            IpHeader::V6(h) => h.write(upper_len, out),
        }
    }
}

/// The upper layer of an IP packet.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum L4 {
    Udp(UdpDatagram),
    /// ICMPv6 (only inside IPv6).
    Icmpv6(Icmpv6Message),
    /// Any other protocol, or a fragment: the raw upper-layer bytes.
    Other(Vec<u8>),
}

impl L4 {
    pub fn len(&self) -> usize {
        match self {
            L4::Udp(u) => u.len(),
            L4::Icmpv6(m) => m.len(),
            L4::Other(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            L4::Udp(u) => u.write(out),
            L4::Icmpv6(m) => m.write(out),
            L4::Other(b) => out.extend_from_slice(b),
        }
    }
}

/// An IP packet: header and upper layer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IpPacket {
    pub header: IpHeader,
    pub l4: L4,
}

impl IpPacket {
    /// Parses an IP packet (version from the first nibble). Returns it and its
    /// length by the IP header (bytes after that are not part of it).
    pub fn parse(buf: &[u8]) -> Result<(Self, usize), ParseError> {
        match buf.first().map(|b| b >> 4) {
            Some(4) => Self::parse_v4(buf),
            Some(6) => Self::parse_v6(buf),
            Some(v) => Err(ParseError::InvalidField {
                layer: Layer::Ipv4,
                field: "IP version",
                value: v as u64,
            }),
            None => Err(ParseError::truncated(Layer::Ipv4, 1, 0)),
        }
    }

    fn parse_v4(buf: &[u8]) -> Result<(Self, usize), ParseError> {
        let (h, hlen, total) = Ipv4Header::parse(buf)?;
        let upper = &buf[hlen..total];
        let l4 = if h.protocol == IPPROTO_UDP && !h.is_fragment() {
            L4::Udp(UdpDatagram::parse(upper)?)
        } else {
            L4::Other(upper.to_vec())
        };
        Ok((
            IpPacket {
                header: IpHeader::V4(h),
                l4,
            },
            total,
        ))
    }

    fn parse_v6(buf: &[u8]) -> Result<(Self, usize), ParseError> {
        let (h, hlen, total) = Ipv6Header::parse(buf)?;
        let upper = &buf[hlen..total];
        let l4 = match h.upper_protocol() {
            _ if h.is_fragment() => L4::Other(upper.to_vec()),
            IPPROTO_UDP => L4::Udp(UdpDatagram::parse(upper)?),
            IPPROTO_ICMPV6 => L4::Icmpv6(Icmpv6Message::parse(upper)?),
            _ => L4::Other(upper.to_vec()),
        };
        Ok((
            IpPacket {
                header: IpHeader::V6(h),
                l4,
            },
            total,
        ))
    }

    pub fn len(&self) -> usize {
        self.header.header_len() + self.l4.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        self.header.write(self.l4.len(), out);
        self.l4.write(out);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }

    pub fn udp(&self) -> Option<&UdpDatagram> {
        match &self.l4 {
            L4::Udp(u) => Some(u),
            _ => None,
        }
    }

    pub fn udp_mut(&mut self) -> Option<&mut UdpDatagram> {
        match &mut self.l4 {
            L4::Udp(u) => Some(u),
            _ => None,
        }
    }

    /// Fills in the IPv4 header checksum (no-op for IPv6).
    pub fn fill_ipv4_checksum(&mut self) {
        let upper = self.l4.len();
        if let IpHeader::V4(h) = &mut self.header {
            h.checksum = h.compute_checksum(upper);
        }
    }

    /// Sets the UDP checksum by `policy` (no-op without UDP).
    pub fn fill_udp_checksum(&mut self, policy: UdpChecksum) {
        let (src, dst) = (self.header.src(), self.header.dst());
        if let L4::Udp(u) = &mut self.l4 {
            match policy {
                UdpChecksum::Keep => {}
                UdpChecksum::Zero => u.checksum = 0,
                UdpChecksum::Compute => {
                    u.checksum = 0;
                    u.checksum = udp_checksum(src, dst, &u.to_bytes());
                }
            }
        }
    }

    /// Fills in the ICMPv6 checksum (no-op without ICMPv6).
    pub fn fill_icmpv6_checksum(&mut self) {
        if let (IpHeader::V6(h), L4::Icmpv6(m)) = (&self.header, &mut self.l4) {
            m.checksum = icmpv6_checksum(h.src, h.dst, &m.to_bytes());
        }
    }

    /// Recomputes the RoCEv2 ICRC into the last four bytes of the UDP payload.
    pub fn fill_icrc(&mut self) -> Result<(), ParseError> {
        let value = icrc::compute(&self.to_bytes())?;
        match self.udp_mut() {
            Some(u) if u.payload.len() >= icrc::ICRC_LEN => {
                let n = u.payload.len();
                u.payload[n - icrc::ICRC_LEN..].copy_from_slice(&value.to_le_bytes());
                Ok(())
            }
            _ => Err(ParseError::NotThisFormat {
                layer: Layer::Udp,
                field: "protocol",
                expected: IPPROTO_UDP as u64,
                found: self.header.protocol() as u64,
            }),
        }
    }
}

/// How [`Frame::finalize`] sets the UDP checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UdpChecksum {
    /// 0: "no checksum". What RNICs send for RoCEv2 (the ICRC protects it).
    Zero,
    /// The RFC 768 / RFC 8200 checksum.
    Compute,
    /// Leave the stored value.
    Keep,
}

/// An Ethernet frame carrying an IP packet.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub eth: EthernetHeader,
    pub ip: IpPacket,
    /// Bytes after the IP packet (Ethernet padding), without the FCS.
    pub trailer: Vec<u8>,
}

impl Frame {
    /// Parses an Ethernet frame (without FCS) carrying IPv4 or IPv6; other
    /// EtherTypes give [`ParseError::NotIp`].
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        let (eth, l3) = EthernetHeader::parse(bytes)?;
        if eth.ethertype != ETHERTYPE_IPV4 && eth.ethertype != ETHERTYPE_IPV6 {
            return Err(ParseError::NotIp(eth.ethertype));
        }
        let ip_bytes = &bytes[l3..];
        let (ip, ip_len) = match eth.ethertype {
            ETHERTYPE_IPV4 => {
                if ip_bytes.first().map(|b| b >> 4) == Some(6) {
                    return Err(ParseError::InvalidField {
                        layer: Layer::Ipv4,
                        field: "version",
                        value: 6,
                    });
                }
                IpPacket::parse_v4(ip_bytes)?
            }
            _ => {
                if ip_bytes.first().map(|b| b >> 4) == Some(4) {
                    return Err(ParseError::InvalidField {
                        layer: Layer::Ipv6,
                        field: "version",
                        value: 4,
                    });
                }
                IpPacket::parse_v6(ip_bytes)?
            }
        };
        Ok(Frame {
            eth,
            ip,
            trailer: ip_bytes[ip_len..].to_vec(),
        })
    }

    /// Length on the wire without FCS.
    pub fn len(&self) -> usize {
        self.eth.len() + self.ip.len() + self.trailer.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Offset of the IP header in the frame.
    pub fn ip_offset(&self) -> usize {
        self.eth.len()
    }

    /// Offset of the upper layer (UDP header, ICMPv6 message) in the frame.
    pub fn l4_offset(&self) -> usize {
        self.eth.len() + self.ip.header.header_len()
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.eth.write(&mut v);
        self.ip.write(&mut v);
        v.extend_from_slice(&self.trailer);
        v
    }

    pub fn udp(&self) -> Option<&UdpDatagram> {
        self.ip.udp()
    }

    pub fn udp_mut(&mut self) -> Option<&mut UdpDatagram> {
        self.ip.udp_mut()
    }

    pub fn icmpv6(&self) -> Option<&Icmpv6Message> {
        match &self.ip.l4 {
            L4::Icmpv6(m) => Some(m),
            _ => None,
        }
    }

    /// The UDP datagram if it goes to `port`; otherwise a
    /// [`ParseError::NotThisFormat`] attributed to `layer`.
    pub fn udp_to_port(&self, port: u16, layer: Layer) -> Result<&UdpDatagram, ParseError> {
        match self.udp() {
            Some(u) if u.dst_port == port => Ok(u),
            Some(u) => Err(ParseError::NotThisFormat {
                layer,
                field: "UDP destination port",
                expected: port as u64,
                found: u.dst_port as u64,
            }),
            None => Err(ParseError::NotThisFormat {
                layer,
                field: "IP protocol",
                expected: IPPROTO_UDP as u64,
                found: self.ip.header.protocol() as u64,
            }),
        }
    }

    /// Whether this is a RoCEv2 packet (UDP destination port 4791).
    pub fn is_roce(&self) -> bool {
        self.udp().is_some_and(|u| u.dst_port == ROCEV2_PORT)
    }

    /// The RoCEv2 transport packet (BTH, extended headers, payload, ICRC) of
    /// a UDP port 4791 frame.
    pub fn roce(&self) -> Result<RocePacket, ParseError> {
        RocePacket::parse(&self.udp_to_port(ROCEV2_PORT, Layer::Udp)?.payload)
    }

    /// Fills in every checksum: the ICRC first for RoCEv2 frames (it masks
    /// the UDP checksum, which in turn covers the ICRC), then the UDP checksum
    /// by `udp`, the ICMPv6 checksum and the IPv4 header checksum; finally
    /// pads the frame to the 60-byte Ethernet minimum.
    pub fn finalize(&mut self, udp: UdpChecksum) {
        if self.is_roce() {
            // A RoCEv2 datagram too short for BTH + ICRC keeps its bytes.
            let _ = self.ip.fill_icrc();
        }
        self.ip.fill_udp_checksum(udp);
        self.ip.fill_icmpv6_checksum();
        self.ip.fill_ipv4_checksum();
        self.pad_to_minimum();
    }

    /// Appends zero bytes up to the 60-byte minimum frame.
    pub fn pad_to_minimum(&mut self) {
        let len = self.len();
        if len < MIN_FRAME_LEN {
            self.trailer
                .resize(self.trailer.len() + MIN_FRAME_LEN - len, 0);
        }
    }

    /// Checks the IPv4 header checksum, a non-zero UDP checksum, the ICMPv6
    /// checksum and, for RoCEv2 frames, the ICRC.
    pub fn verify_checksums(&self) -> Result<(), ChecksumError> {
        let mut good = self.ip.clone();
        good.fill_ipv4_checksum();
        if let (IpHeader::V4(g), IpHeader::V4(h)) = (&good.header, &self.ip.header) {
            if g.checksum != h.checksum {
                return Err(ChecksumError::Ipv4Header {
                    computed: g.checksum,
                    found: h.checksum,
                });
            }
        }
        if let Some(u) = self.udp() {
            if u.checksum != 0 {
                good.fill_udp_checksum(UdpChecksum::Compute);
                let computed = good.udp().map_or(0, |g| g.checksum);
                if computed != u.checksum {
                    return Err(ChecksumError::Udp {
                        computed,
                        found: u.checksum,
                    });
                }
            }
        }
        if let Some(m) = self.icmpv6() {
            good.fill_icmpv6_checksum();
            let computed = match &good.l4 {
                L4::Icmpv6(g) => g.checksum,
                _ => 0,
            };
            if computed != m.checksum {
                return Err(ChecksumError::Icmpv6 {
                    computed,
                    found: m.checksum,
                });
            }
        }
        if self.is_roce() {
            icrc::verify(&self.ip.to_bytes())?;
        }
        Ok(())
    }
}

/// Offset of the IP header in an Ethernet frame (after any VLAN tags) and
/// the EtherType, for in-place rewrites.
pub fn ip_offset(frame: &[u8]) -> Result<(usize, u16), ParseError> {
    let (eth, off) = EthernetHeader::parse(frame)?;
    Ok((off, eth.ethertype))
}

/// Rewrites the ECN field of an IPv4 or IPv6 frame in place (IPv4 header
/// checksum updated per RFC 1624; the ICRC masks ECN so it stays valid).
/// Returns the old ECN.
pub fn set_ecn(frame: &mut [u8], ecn: Ecn) -> Result<Ecn, ParseError> {
    let (off, ethertype) = ip_offset(frame)?;
    match ethertype {
        ETHERTYPE_IPV4 => ipv4::set_ecn_in_place(&mut frame[off..], ecn),
        ETHERTYPE_IPV6 => ipv6::set_ecn_in_place(&mut frame[off..], ecn),
        other => Err(ParseError::NotIp(other)),
    }
}

/// Rewrites the flow label of an IPv6 frame in place; returns the old one.
pub fn set_ipv6_flow_label(frame: &mut [u8], flow_label: u32) -> Result<u32, ParseError> {
    let (off, ethertype) = ip_offset(frame)?;
    if ethertype != ETHERTYPE_IPV6 {
        return Err(ParseError::NotThisFormat {
            layer: Layer::Ethernet,
            field: "EtherType",
            expected: ETHERTYPE_IPV6 as u64,
            found: ethertype as u64,
        });
    }
    ipv6::set_flow_label_in_place(&mut frame[off..], flow_label)
}
