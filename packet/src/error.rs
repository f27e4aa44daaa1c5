//! Typed errors of every parser in this crate.
//!
//! Parsers never panic: every malformed, truncated or foreign input ends in a
//! [`ParseError`] naming the layer and the field at fault.

use std::fmt;

/// Protocol layer (or message format) in which a parse error happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    Ethernet,
    Vlan,
    Ipv4,
    Ipv6,
    Ipv6Extension,
    Udp,
    Icmpv6,
    Bth,
    Deth,
    Reth,
    Aeth,
    AtomicEth,
    AtomicAckEth,
    ImmDt,
    Ieth,
    RocePayload,
    Icrc,
    Cnp,
    LonghaulCnp,
    IcmpExtension,
    FastCnp,
    ProxyCn,
    RateAdvice,
    Vxlan,
    Srh,
    Mad,
    CmMessage,
    IsisReachability,
    Ospfv2ExtendedPrefix,
    Ospfv3InterAreaPrefix,
    BgpPathAttribute,
    BgpNhc,
    HexText,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Layer::Ethernet => "Ethernet",
            Layer::Vlan => "802.1Q tag",
            Layer::Ipv4 => "IPv4",
            Layer::Ipv6 => "IPv6",
            Layer::Ipv6Extension => "IPv6 extension header",
            Layer::Udp => "UDP",
            Layer::Icmpv6 => "ICMPv6",
            Layer::Bth => "BTH",
            Layer::Deth => "DETH",
            Layer::Reth => "RETH",
            Layer::Aeth => "AETH",
            Layer::AtomicEth => "AtomicETH",
            Layer::AtomicAckEth => "AtomicAckETH",
            Layer::ImmDt => "ImmDt",
            Layer::Ieth => "IETH",
            Layer::RocePayload => "RoCEv2 payload",
            Layer::Icrc => "ICRC",
            Layer::Cnp => "CNP",
            Layer::LonghaulCnp => "Long-haul CNP",
            Layer::IcmpExtension => "ICMP extension structure",
            Layer::FastCnp => "Fast CNP",
            Layer::ProxyCn => "proxy CN message",
            Layer::RateAdvice => "Rate Advice",
            Layer::Vxlan => "VXLAN",
            Layer::Srh => "SRv6 SRH",
            Layer::Mad => "MAD",
            Layer::CmMessage => "CM message",
            Layer::IsisReachability => "IS-IS IP reachability TLV",
            Layer::Ospfv2ExtendedPrefix => "OSPFv2 Extended Prefix TLV",
            Layer::Ospfv3InterAreaPrefix => "OSPFv3 Inter-Area-Prefix TLV",
            Layer::BgpPathAttribute => "BGP path attribute",
            Layer::BgpNhc => "BGP Next Hop Dependent Characteristics attribute",
            Layer::HexText => "hex text",
        };
        f.write_str(name)
    }
}

/// Why a byte string is not the packet a parser was asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Fewer bytes than the layer needs.
    #[error("{layer}: truncated (need {needed} bytes, {available} available)")]
    Truncated {
        layer: Layer,
        needed: usize,
        available: usize,
    },
    /// A length field disagrees with the bytes present.
    #[error("{layer}: {field} = {value} does not fit the {available} bytes present")]
    BadLength {
        layer: Layer,
        field: &'static str,
        value: usize,
        available: usize,
    },
    /// A field holds a value the format does not allow.
    #[error("{layer}: invalid {field} {value:#x}")]
    InvalidField {
        layer: Layer,
        field: &'static str,
        value: u64,
    },
    /// Well-formed, but a different protocol or message than the one asked for
    /// (e.g. another EtherType, UDP port or BTH opcode).
    #[error("{layer}: {field} is {found:#x}, expected {expected:#x}")]
    NotThisFormat {
        layer: Layer,
        field: &'static str,
        expected: u64,
        found: u64,
    },
    /// The EtherType after the 802.1Q tags is neither IPv4 nor IPv6.
    #[error("Ethernet: EtherType {0:#06x} is not IP")]
    NotIp(u16),
    /// A checksum carried inside the format (not a lower layer's) is wrong.
    #[error("{layer}: checksum {found:#06x}, computed {computed:#06x}")]
    ChecksumMismatch {
        layer: Layer,
        computed: u32,
        found: u32,
    },
    /// A text field is not UTF-8.
    #[error("{layer}: {field} is not UTF-8")]
    NotUtf8 { layer: Layer, field: &'static str },
}

impl ParseError {
    pub(crate) fn truncated(layer: Layer, needed: usize, available: usize) -> Self {
        ParseError::Truncated {
            layer,
            needed,
            available,
        }
    }
}

/// Checksums or CRC a frame carries that do not match its bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChecksumError {
    #[error("frame does not parse: {0}")]
    Parse(#[from] ParseError),
    #[error("IPv4 header checksum {found:#06x}, computed {computed:#06x}")]
    Ipv4Header { computed: u16, found: u16 },
    #[error("UDP checksum {found:#06x}, computed {computed:#06x}")]
    Udp { computed: u16, found: u16 },
    #[error("ICMPv6 checksum {found:#06x}, computed {computed:#06x}")]
    Icmpv6 { computed: u16, found: u16 },
    #[error("ICRC {found:#010x}, computed {computed:#010x}")]
    Icrc { computed: u32, found: u32 },
}

/// Why a frame cannot be built from the given fields.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The format exists only over IPv6 (ICMPv6 Long-haul CNP, SRv6).
    #[error("{0} needs an IPv6 envelope")]
    NeedsIpv6(&'static str),
    /// A field does not fit its width.
    #[error("{field} = {value:#x} does not fit in {bits} bits")]
    FieldTooWide {
        field: &'static str,
        value: u64,
        bits: u32,
    },
    /// The message does not fit the length limit of the format.
    #[error("{what} of {len} bytes exceeds {limit}")]
    TooLong {
        what: &'static str,
        len: usize,
        limit: usize,
    },
    /// A field holds a value the format does not allow (e.g. a prefix with
    /// bits set past its length, a type code another field owns).
    #[error("{field} {value:#x} is not allowed")]
    InvalidField { field: &'static str, value: u64 },
}
