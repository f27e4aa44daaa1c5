//! Long-haul CNP in ICMPv6 format (draft-tian-ccwg-long-haul-cnp-00,
//! "ICMPv6 Extension Format"): an informational ICMPv6 message whose type is
//! TBD1 in the draft (here configurable, default [`DEFAULT_ICMPV6_TYPE`]),
//! code 0, the 12-byte body and the optional extension structure. The
//! ICMPv6 checksum covers the IPv6 pseudo-header (RFC 4443 section 2.3).

use crate::checksum::IPPROTO_ICMPV6;
use crate::envelope::Envelope;
use crate::error::{BuildError, Layer, ParseError};
use crate::frame::{Frame, UdpChecksum, L4};
use crate::icmpv6::Icmpv6Message;
use crate::longhaul::LonghaulCnp;

/// Default ICMPv6 type: 200, from the private-experimentation range of the
/// informational types (RFC 4443 section 2.1).
pub const DEFAULT_ICMPV6_TYPE: u8 = 200;
/// Code of a flow-level Long-haul CNP.
pub const CODE_FLOW_LEVEL: u8 = 0;

/// A Long-haul CNP in ICMPv6 format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LonghaulIcmpv6 {
    pub icmp_type: u8,
    pub code: u8,
    pub cnp: LonghaulCnp,
}

impl LonghaulIcmpv6 {
    /// Type 200, code 0.
    pub fn new(cnp: LonghaulCnp) -> Self {
        LonghaulIcmpv6 {
            icmp_type: DEFAULT_ICMPV6_TYPE,
            code: CODE_FLOW_LEVEL,
            cnp,
        }
    }

    /// The ICMPv6 message (checksum 0 until framed).
    pub fn to_message(&self) -> Icmpv6Message {
        Icmpv6Message::new(self.icmp_type, self.code, self.cnp.to_bytes())
    }

    /// The whole frame with its ICMPv6 checksum; IPv6 only (the draft's
    /// "Applicability Statement": IPv4 destinations get the RoCEv2 format).
    pub fn to_frame(&self, env: &Envelope) -> Result<Frame, BuildError> {
        if !env.is_ipv6() {
            return Err(BuildError::NeedsIpv6("Long-haul CNP in ICMPv6 format"));
        }
        let mut f = env.frame(IPPROTO_ICMPV6, L4::Icmpv6(self.to_message()));
        f.finalize(UdpChecksum::Keep);
        Ok(f)
    }

    /// Parses a message of type `icmp_type` (the configured type).
    pub fn from_message(m: &Icmpv6Message, icmp_type: u8) -> Result<Self, ParseError> {
        if m.icmp_type != icmp_type {
            return Err(ParseError::NotThisFormat {
                layer: Layer::LonghaulCnp,
                field: "ICMPv6 type",
                expected: icmp_type as u64,
                found: m.icmp_type as u64,
            });
        }
        Ok(LonghaulIcmpv6 {
            icmp_type: m.icmp_type,
            code: m.code,
            cnp: LonghaulCnp::parse(&m.body)?,
        })
    }

    pub fn from_frame(frame: &Frame, icmp_type: u8) -> Result<Self, ParseError> {
        match frame.icmpv6() {
            Some(m) => Self::from_message(m, icmp_type),
            None => Err(ParseError::NotThisFormat {
                layer: Layer::LonghaulCnp,
                field: "IP protocol",
                expected: IPPROTO_ICMPV6 as u64,
                found: frame.ip.header.protocol() as u64,
            }),
        }
    }
}
