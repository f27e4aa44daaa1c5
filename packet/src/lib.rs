//! Packet formats of cngw: one definition used by every layer.
//!
//! One module per format; this file only re-exports. Builders take an
//! [`Envelope`] (Ethernet and IP fields) and a message and return a
//! [`Frame`] with lengths, checksums and ICRC filled in; parsers return typed
//! [`ParseError`]s and never panic.

pub mod bth;
pub mod checksum;
pub mod cm;
pub mod cnp;
pub mod crc32;
pub mod deth;
pub mod ecn;
pub mod envelope;
pub mod error;
pub mod ethernet;
pub mod fast_cnp;
pub mod frame;
pub mod icmp_extension;
pub mod icmpv6;
pub mod icrc;
pub mod ipv4;
pub mod ipv6;
pub mod longhaul;
pub mod longhaul_icmpv6;
pub mod longhaul_rocev2;
pub mod parsed;
pub mod pcap;
pub mod proxy_cn;
pub mod rate_advice;
pub mod roce;
pub mod srh;
pub mod traffic;
pub mod udp;
pub mod vxlan;
mod wire;

pub use bth::Bth;
pub use cm::{CmMad, CmMessage};
pub use cnp::Cnp;
pub use ecn::Ecn;
pub use envelope::{Envelope, IpPair};
pub use error::{BuildError, ChecksumError, Layer, ParseError};
pub use ethernet::{EthernetHeader, MacAddr, VlanTag};
pub use fast_cnp::FastCnp;
pub use frame::{Frame, IpHeader, IpPacket, UdpChecksum, L4};
pub use longhaul::{Action, LonghaulBody, LonghaulCnp};
pub use longhaul_icmpv6::LonghaulIcmpv6;
pub use longhaul_rocev2::LonghaulRocev2;
pub use pcap::{read_pcap, write_pcap, TimedFrame};
pub use proxy_cn::{FiveTuple, ProxyCnMessage};
pub use rate_advice::{RateAdvice, RateAdviceMessage};
pub use roce::{RoceFrameBuilder, RocePacket};
