//! Packet formats of cngw: one definition used by every layer.
//!
//! One module per format; this file only re-exports. Builders take an
//! [`Envelope`] (Ethernet and IP fields) and a message and return a
//! [`Frame`] with lengths, checksums and ICRC filled in (`.to_bytes()` gives
//! the wire bytes without FCS); parsers return typed [`ParseError`]s and
//! never panic.
//!
//! | module | what |
//! |---|---|
//! | [`ethernet`] | Ethernet II with 802.1Q/802.1ad tags |
//! | [`ipv4`], [`ipv6`] | IP headers, options, extension headers, in-place ECN / flow-label rewrite |
//! | [`udp`], [`icmpv6`] | upper-layer headers |
//! | [`frame`] | whole frame parse/build ([`Frame`]), checksum filling and verification |
//! | [`envelope`] | the Ethernet/IP fields of generated frames |
//! | [`checksum`], [`crc32`], [`icrc`] | internet checksums, CRC-32, RoCEv2 ICRC |
//! | [`bth`], [`deth`], [`roce`] | IB transport headers, RoCEv2 packets, [`RoceFrameBuilder`] |
//! | [`cnp`] | standard RoCEv2 CNP (Annex A17) |
//! | [`longhaul`], [`longhaul_rocev2`], [`longhaul_icmpv6`], [`icmp_extension`] | Long-haul CNP (draft-tian-ccwg-long-haul-cnp) |
//! | [`fast_cnp`] | Fast CNP (draft-he-fcn-in-wan) |
//! | [`proxy_cn`] | CN message to a proxy (draft-xiao-rtgwg-proxy-congestion-notification) |
//! | [`pnc`] | Proxy Node Capability in IS-IS, OSPFv2, OSPFv3 and BGP advertisements (same draft) |
//! | [`rate_advice`] | SCONE Rate Advice (draft-zz-scone-rate-advice-rocev2) |
//! | [`vxlan`], [`srh`] | tunnel encapsulations of the FCN ingress PE |
//! | [`cm`] | RDMA CM REQ/REP/RTU/DREQ/DREP MADs on QP 1 |
//! | [`pcap`] | classic pcap read/write |
//! | [`traffic`] | seeded RoCEv2 conversations (CM, WRITE, SEND, ACK) |
//! | [`parsed`] | the hardware header parser's reference classifier |
//! | [`flow_key`] | the flow table's key {SIP, DIP, DQP} |
//!
//! Code points the drafts leave open (all configurable by the callers):
//! ICMPv6 type 200 ([`longhaul_icmpv6::DEFAULT_ICMPV6_TYPE`]), extension
//! Class-Num 247 ([`icmp_extension::LONGHAUL_CLASS_NUM`]), Fast CNP UDP port
//! 49791 ([`fast_cnp::DEFAULT_UDP_PORT`]), proxy CN UDP port 49792
//! ([`proxy_cn::DEFAULT_UDP_PORT`], layout in [`proxy_cn`]), Rate Advice
//! opcode 0x1D ([`rate_advice::DEFAULT_OPCODE`], which IBTA 1.5 uses for RC
//! ATOMIC WRITE), BGP PNC characteristic code 0xFF50
//! ([`pnc::DEFAULT_BGP_TLV_CODE`]; the IGP flag bits are the draft's, see
//! [`pnc`]).

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
pub mod flow_key;
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
pub mod pnc;
pub mod proxy_cn;
pub mod rate_advice;
pub mod roce;
pub mod scapy;
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
pub use flow_key::FlowKey;
pub use frame::{Frame, IpHeader, IpPacket, UdpChecksum, L4};
pub use longhaul::{Action, LonghaulBody, LonghaulCnp};
pub use longhaul_icmpv6::LonghaulIcmpv6;
pub use longhaul_rocev2::LonghaulRocev2;
pub use pcap::{read_pcap, write_pcap, TimedFrame};
pub use proxy_cn::{FiveTuple, ProxyCnMessage};
pub use rate_advice::{RateAdvice, RateAdviceMessage};
pub use roce::{RoceFrameBuilder, RocePacket};
