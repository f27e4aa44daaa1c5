//! The Ethernet and IP fields of a frame to be generated, shared by every
//! frame builder of this crate: builders take an [`Envelope`] and a message
//! and return a [`Frame`] with lengths, checksums and ICRC filled in.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::ecn::Ecn;
use crate::ethernet::{EthernetHeader, MacAddr, VlanTag};
use crate::frame::{Frame, IpHeader, IpPacket, L4};
use crate::ipv4::Ipv4Header;
use crate::ipv6::Ipv6Header;

/// Source and destination addresses of one IP version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IpPair {
    V4 { src: Ipv4Addr, dst: Ipv4Addr },
    V6 { src: Ipv6Addr, dst: Ipv6Addr },
}

impl IpPair {
    /// The pair for two addresses of one version; `None` if they differ.
    pub fn new(src: IpAddr, dst: IpAddr) -> Option<Self> {
        match (src, dst) {
            (IpAddr::V4(src), IpAddr::V4(dst)) => Some(IpPair::V4 { src, dst }),
            (IpAddr::V6(src), IpAddr::V6(dst)) => Some(IpPair::V6 { src, dst }),
            _ => None,
        }
    }

    pub fn src(&self) -> IpAddr {
        match *self {
            IpPair::V4 { src, .. } => src.into(),
            IpPair::V6 { src, .. } => src.into(),
        }
    }

    pub fn dst(&self) -> IpAddr {
        match *self {
            IpPair::V4 { dst, .. } => dst.into(),
            IpPair::V6 { dst, .. } => dst.into(),
        }
    }

    pub fn is_ipv6(&self) -> bool {
        matches!(self, IpPair::V6 { .. })
    }

    /// Source and destination swapped.
    pub fn reversed(&self) -> Self {
        match *self {
            IpPair::V4 { src, dst } => IpPair::V4 { src: dst, dst: src },
            IpPair::V6 { src, dst } => IpPair::V6 { src: dst, dst: src },
        }
    }
}

/// Default source MAC of generated frames (locally administered).
pub const DEFAULT_SRC_MAC: MacAddr = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01];
/// Default destination MAC of generated frames (locally administered).
pub const DEFAULT_DST_MAC: MacAddr = [0x02, 0x00, 0x00, 0x00, 0x00, 0x02];

/// Ethernet and IP fields of a generated frame.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Envelope {
    pub src_mac: MacAddr,
    pub dst_mac: MacAddr,
    /// 802.1Q tags, outermost first.
    pub vlans: Vec<VlanTag>,
    pub ip: IpPair,
    pub dscp: u8,
    pub ecn: Ecn,
    /// IPv4 TTL or IPv6 hop limit.
    pub ttl: u8,
    /// IPv4 identification.
    pub ipv4_id: u16,
    /// IPv4 don't-fragment flag.
    pub dont_fragment: bool,
    /// IPv6 flow label (20 bits).
    pub flow_label: u32,
}

impl Envelope {
    /// Default MACs, no VLAN, DSCP 0, Not-ECT, TTL 64, IP ID 0, DF, flow label 0.
    pub fn new(ip: IpPair) -> Self {
        Envelope {
            src_mac: DEFAULT_SRC_MAC,
            dst_mac: DEFAULT_DST_MAC,
            vlans: Vec::new(),
            ip,
            dscp: 0,
            ecn: Ecn::NotEct,
            ttl: 64,
            ipv4_id: 0,
            dont_fragment: true,
            flow_label: 0,
        }
    }

    pub fn ipv4(src: Ipv4Addr, dst: Ipv4Addr) -> Self {
        Self::new(IpPair::V4 { src, dst })
    }

    pub fn ipv6(src: Ipv6Addr, dst: Ipv6Addr) -> Self {
        Self::new(IpPair::V6 { src, dst })
    }

    pub fn with_macs(mut self, src: MacAddr, dst: MacAddr) -> Self {
        self.src_mac = src;
        self.dst_mac = dst;
        self
    }

    /// Adds an 802.1Q tag (inside any already present).
    pub fn with_vlan(mut self, vid: u16) -> Self {
        self.vlans.push(VlanTag::new(vid));
        self
    }

    pub fn with_dscp(mut self, dscp: u8) -> Self {
        self.dscp = dscp & 0x3F;
        self
    }

    pub fn with_ecn(mut self, ecn: Ecn) -> Self {
        self.ecn = ecn;
        self
    }

    pub fn with_ttl(mut self, ttl: u8) -> Self {
        self.ttl = ttl;
        self
    }

    pub fn with_ipv4_id(mut self, id: u16) -> Self {
        self.ipv4_id = id;
        self
    }

    pub fn with_flow_label(mut self, flow_label: u32) -> Self {
        self.flow_label = flow_label & 0x000F_FFFF;
        self
    }

    pub fn is_ipv6(&self) -> bool {
        self.ip.is_ipv6()
    }

    /// The envelope of a reply: MACs and addresses swapped, the rest kept.
    pub fn reversed(&self) -> Self {
        let mut e = self.clone();
        e.src_mac = self.dst_mac;
        e.dst_mac = self.src_mac;
        e.ip = self.ip.reversed();
        e
    }

    /// The envelope of a received frame.
    pub fn from_frame(frame: &Frame) -> Self {
        let (ip, ttl, ipv4_id, dont_fragment, flow_label) = match &frame.ip.header {
            IpHeader::V4(h) => (
                IpPair::V4 {
                    src: h.src,
                    dst: h.dst,
                },
                h.ttl,
                h.identification,
                h.dont_fragment,
                0,
            ),
            IpHeader::V6(h) => (
                IpPair::V6 {
                    src: h.src,
                    dst: h.dst,
                },
                h.hop_limit,
                0,
                true,
                h.flow_label,
            ),
        };
        Envelope {
            src_mac: frame.eth.src,
            dst_mac: frame.eth.dst,
            vlans: frame.eth.vlans.clone(),
            ip,
            dscp: frame.ip.header.dscp(),
            ecn: frame.ip.header.ecn(),
            ttl,
            ipv4_id,
            dont_fragment,
            flow_label,
        }
    }

    /// The IP header for upper-layer `protocol` (checksum 0).
    pub fn ip_header(&self, protocol: u8) -> IpHeader {
        match self.ip {
            IpPair::V4 { src, dst } => {
                let mut h = Ipv4Header::new(src, dst, protocol);
                h.dscp = self.dscp & 0x3F;
                h.ecn = self.ecn;
                h.ttl = self.ttl;
                h.identification = self.ipv4_id;
                h.dont_fragment = self.dont_fragment;
                IpHeader::V4(h)
            }
            IpPair::V6 { src, dst } => {
                let mut h = Ipv6Header::new(src, dst, protocol);
                h.dscp = self.dscp & 0x3F;
                h.ecn = self.ecn;
                h.hop_limit = self.ttl;
                h.flow_label = self.flow_label & 0x000F_FFFF;
                IpHeader::V6(h)
            }
        }
    }

    /// The Ethernet header for an IP packet of this envelope's version.
    pub fn ethernet_header(&self) -> EthernetHeader {
        EthernetHeader {
            dst: self.dst_mac,
            src: self.src_mac,
            vlans: self.vlans.clone(),
            ethertype: self.ip_header(0).ethertype(),
        }
    }

    /// A frame carrying `l4` as upper-layer `protocol`, not yet finalized
    /// (checksums as stored in `l4`, IPv4 header checksum 0, no padding).
    pub fn frame(&self, protocol: u8, l4: L4) -> Frame {
        Frame {
            eth: self.ethernet_header(),
            ip: IpPacket {
                header: self.ip_header(protocol),
                l4,
            },
            trailer: Vec::new(),
        }
    }
}
