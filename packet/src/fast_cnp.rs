//! Fast CNP from a congested WAN node to the ingress PE
//! (draft-he-fcn-in-wan section 4.2, Figure 4): a UDP datagram of length 12
//! whose 4-byte payload is the outer IPv6 flow label of the packet that met
//! congestion (20 bits), a congestion level (3 bits, 0 = unused, 1 lowest ..
//! 7 highest) and 9 reserved bits (zero on transmit, ignored on receipt).
//!
//! ```text
//! +-------------------------------+-------------------------------+
//! |       UDP Source Port         |  UDP Destination Port = TBD1  |
//! +-------------------------------+-------------------------------+
//! |       UDP Length = 12         |         UDP Checksum          |
//! +-------------------------------+-----+-------------------------+
//! |        Flow Label (20 bits)         | CL  |    Reserved (9)   |
//! +-------------------------------------+-----+-------------------+
//! ```
//!
//! The destination port is TBD1 in the draft; this project's default is
//! [`DEFAULT_UDP_PORT`] (49791, dynamic range), configurable. Generated Fast
//! CNPs carry a UDP checksum and, over IPv6, also copy the flow label into
//! the IPv6 header (the draft's "Optionally ... also copied").

use crate::checksum::IPPROTO_UDP;
use crate::envelope::Envelope;
use crate::error::{Layer, ParseError};
use crate::frame::{Frame, UdpChecksum, L4};
use crate::udp::UdpDatagram;
use crate::wire::Cursor;

/// Default UDP destination port of Fast CNPs (draft TBD1): 49791, from the
/// dynamic range, chosen as "9" + the RoCEv2 port 4791.
pub const DEFAULT_UDP_PORT: u16 = 49791;
/// Payload length.
pub const PAYLOAD_LEN: usize = 4;
/// UDP length of a Fast CNP.
pub const UDP_LENGTH: usize = 12;

/// A Fast CNP's payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FastCnp {
    /// Outer IPv6 flow label of the congested flow (20 bits).
    pub flow_label: u32,
    /// Congestion level (3 bits).
    pub congestion_level: u8,
}

impl FastCnp {
    pub fn new(flow_label: u32, congestion_level: u8) -> Self {
        FastCnp {
            flow_label: flow_label & 0x000F_FFFF,
            congestion_level: congestion_level & 7,
        }
    }

    /// Parses the UDP payload, which must be exactly 4 bytes (UDP length 12).
    pub fn parse(payload: &[u8]) -> Result<Self, ParseError> {
        if payload.len() != PAYLOAD_LEN {
            return Err(ParseError::BadLength {
                layer: Layer::FastCnp,
                field: "UDP length",
                value: payload.len() + 8,
                available: UDP_LENGTH,
            });
        }
        let w = Cursor::new(payload, Layer::FastCnp).u32()?;
        Ok(FastCnp {
            flow_label: w >> 12,
            congestion_level: ((w >> 9) & 7) as u8,
        })
    }

    pub fn to_bytes(&self) -> [u8; PAYLOAD_LEN] {
        (((self.flow_label & 0x000F_FFFF) << 12) | ((self.congestion_level as u32 & 7) << 9))
            .to_be_bytes()
    }

    /// The whole frame: UDP checksum computed; over IPv6 the flow label is
    /// also written into the IPv6 header.
    pub fn to_frame(&self, env: &Envelope, udp_src_port: u16, udp_dst_port: u16) -> Frame {
        let mut env = env.clone();
        if env.is_ipv6() {
            env.flow_label = self.flow_label & 0x000F_FFFF;
        }
        let udp = UdpDatagram::new(udp_src_port, udp_dst_port, self.to_bytes().to_vec());
        let mut f = env.frame(IPPROTO_UDP, L4::Udp(udp));
        f.finalize(UdpChecksum::Compute);
        f
    }

    /// The Fast CNP of a frame sent to UDP port `udp_dst_port`.
    pub fn from_frame(frame: &Frame, udp_dst_port: u16) -> Result<Self, ParseError> {
        Self::parse(&frame.udp_to_port(udp_dst_port, Layer::FastCnp)?.payload)
    }
}
