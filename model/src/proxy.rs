//! PX-02: what a proxy gateway takes from a received CN message
//! (draft-xiao-rtgwg-proxy-congestion-notification section 4) to find the
//! flow whose sender it tells: the five-tuple names the hosts, and the
//! BTH of the invoking packet the message carries names the destination
//! QP, so the flow-table key {SIP, DIP, DQP} is complete and the flow's
//! learned source QP gives the CNP's DestQP.
//!
//! The rule, the reference for the hardware to come:
//! 1. The five-tuple must be RoCEv2's (UDP to port 4791): other flows have
//!    no QP to notify ([`Reject::NotRoce`]).
//! 2. The invoking packet (from its IP header on, possibly truncated) is
//!    walked down through up to four encapsulations, as the congested node
//!    found the five-tuple below them: VXLAN (UDP 4789, then Ethernet with
//!    at most one 802.1Q tag), IP in IP (protocol 4 or 41), an IPv6 routing
//!    header (43, e.g. SRv6's SRH) and Ethernet over IPv6 (143). IPv4
//!    options are skipped by the header length; other IPv6 extension
//!    headers end the walk.
//! 3. The packet reached must be UDP to 4791 with its BTH's destination QP
//!    in the bytes carried ([`Reject::NoBth`] when the copy ends first)
//!    and its addresses must be the five-tuple's ([`Reject::Mismatch`]: the
//!    message contradicts itself, as a forged one may).

use cngw_packet::flow_key::FlowKey;
use cngw_packet::proxy_cn::ProxyCnMessage;
use cngw_packet::IpPair;

/// RoCEv2's UDP port.
const ROCE_PORT: u16 = 4791;
const VXLAN_PORT: u16 = 4789;
/// Encapsulation levels looked through.
const MAX_LEVELS: usize = 4;

/// Why a CN message names no flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reject {
    /// The five-tuple is not UDP to 4791.
    NotRoce,
    /// The invoking packet ends before its BTH's destination QP, or holds
    /// no RoCEv2 packet.
    NoBth,
    /// The invoking packet's addresses are not the five-tuple's.
    Mismatch,
}

/// The flow a CN message names and its congestion level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProxyRequest {
    pub key: FlowKey,
    pub level: u8,
}

/// An IP packet's addresses (IPv4-mapped for IPv4), protocol and where its
/// payload starts, from its first bytes.
fn ip_header(b: &[u8]) -> Option<(u128, u128, u8, usize)> {
    match b.first()? >> 4 {
        4 => {
            let ihl = (b[0] & 0xF) as usize * 4;
            if ihl < 20 || b.len() < 20 {
                return None;
            }
            let v4 = |o: usize| {
                let a = std::net::Ipv4Addr::new(b[o], b[o + 1], b[o + 2], b[o + 3]);
                u128::from(a.to_ipv6_mapped())
            };
            Some((v4(12), v4(16), b[9], ihl))
        }
        6 => {
            if b.len() < 40 {
                return None;
            }
            let a = |o: usize| u128::from_be_bytes(b[o..o + 16].try_into().unwrap());
            let (mut next, mut at) = (b[6], 40);
            // A routing header (SRv6's SRH) is looked through.
            if next == 43 {
                let h = b.get(at..at + 2)?;
                next = h[0];
                at += (h[1] as usize + 1) * 8;
            }
            Some((a(8), a(24), next, at))
        }
        _ => None,
    }
}

/// The IP packet inside an Ethernet frame's bytes (at most one tag).
fn ethernet_payload(b: &[u8]) -> Option<&[u8]> {
    let l3 = if b.get(12..14)? == [0x81, 0x00] {
        18
    } else {
        14
    };
    b.get(l3..)
}

/// The RoCEv2 packet's addresses and destination QP, walking down `b`.
fn walk(mut b: &[u8]) -> Result<(u128, u128, u32), Reject> {
    for _ in 0..=MAX_LEVELS {
        let (src, dst, protocol, at) = ip_header(b).ok_or(Reject::NoBth)?;
        let payload = b.get(at..).ok_or(Reject::NoBth)?;
        match protocol {
            17 => {
                let udp = payload.get(..8).ok_or(Reject::NoBth)?;
                match u16::from_be_bytes([udp[2], udp[3]]) {
                    ROCE_PORT => {
                        // BTH: DestQP in bytes 5..7.
                        let bth = payload.get(8..16).ok_or(Reject::NoBth)?;
                        let dqp = u32::from_be_bytes([0, bth[5], bth[6], bth[7]]);
                        return Ok((src, dst, dqp));
                    }
                    VXLAN_PORT => {
                        b = ethernet_payload(payload.get(16..).ok_or(Reject::NoBth)?)
                            .ok_or(Reject::NoBth)?;
                    }
                    _ => return Err(Reject::NoBth),
                }
            }
            4 | 41 => b = payload,
            143 => b = ethernet_payload(payload).ok_or(Reject::NoBth)?,
            _ => return Err(Reject::NoBth),
        }
    }
    Err(Reject::NoBth)
}

/// PX-02: the flow a CN message names, or why it names none.
pub fn request(msg: &ProxyCnMessage) -> Result<ProxyRequest, Reject> {
    let t = &msg.five_tuple;
    if t.protocol != 17 || t.dst_port != ROCE_PORT {
        return Err(Reject::NotRoce);
    }
    let (src, dst, dqp) = walk(&msg.invoking_packet)?;
    let (want_src, want_dst) = match t.addrs {
        IpPair::V4 { src, dst } => (
            u128::from(src.to_ipv6_mapped()),
            u128::from(dst.to_ipv6_mapped()),
        ),
        IpPair::V6 { src, dst } => (u128::from(src), u128::from(dst)),
    };
    if (src, dst) != (want_src, want_dst) {
        return Err(Reject::Mismatch);
    }
    Ok(ProxyRequest {
        key: FlowKey {
            sip: src,
            dip: dst,
            dqp,
        },
        level: msg.level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tunnel_encap::{encapsulate_frame, EncapConfig, EncapFate};
    use cngw_packet::parsed::classify;
    use cngw_packet::proxy_cn::FiveTuple;
    use cngw_packet::{Frame, RoceFrameBuilder};
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn v4_frame(dqp: u32) -> Vec<u8> {
        RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 1, 0, 7), Ipv4Addr::new(10, 2, 0, 9))
            .dest_qp(dqp)
            .payload_len(256)
            .build()
    }

    fn v6_frame(dqp: u32) -> Vec<u8> {
        RoceFrameBuilder::ipv6(
            Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, 7),
            Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 9),
        )
        .vlan(12)
        .dest_qp(dqp)
        .payload_len(512)
        .build()
    }

    /// The message a congested node makes of `frame` (Ethernet included):
    /// the five-tuple below any encapsulation, the packet from its IP
    /// header on.
    fn message(frame: &[u8], level: u8) -> ProxyCnMessage {
        let f = Frame::parse(frame).unwrap();
        let l3 = if frame[12..14] == [0x81, 0] { 18 } else { 14 };
        ProxyCnMessage {
            five_tuple: FiveTuple::of_frame(&f),
            level,
            invoking_packet: frame[l3..].to_vec(),
        }
    }

    #[test]
    fn px_02_a_message_names_the_flow_of_its_invoking_packet() {
        for (frame, level) in [(v4_frame(0x12_3456), 5), (v6_frame(0xAB_CDEF), 2)] {
            let want = FlowKey::of_header(&classify(&frame));
            assert_eq!(
                request(&message(&frame, level)),
                Ok(ProxyRequest { key: want, level })
            );
        }
    }

    #[test]
    fn px_02_a_truncated_invoking_packet_still_names_the_flow_up_to_its_bth() {
        let frame = v4_frame(77);
        let m = message(&frame, 1);
        // IPv4 20 + UDP 8 + BTH up to its DestQP: 36 bytes.
        for n in 0..m.invoking_packet.len() {
            let mut cut = m.clone();
            cut.invoking_packet.truncate(n);
            let got = request(&cut);
            if n >= 36 {
                assert_eq!(got.map(|r| r.key.dqp), Ok(77), "{n} bytes");
            } else {
                assert_eq!(got, Err(Reject::NoBth), "{n} bytes");
            }
        }
    }

    /// Registers for the encapsulation's configuration (0 where unset).
    struct Map(std::collections::BTreeMap<u32, u32>);

    impl crate::longhaul::Registers for Map {
        fn reg(&self, offset: u32) -> u32 {
            self.0.get(&offset).copied().unwrap_or(0)
        }
    }

    #[test]
    fn px_02_the_flow_below_a_vxlan_or_srv6_tunnel() {
        let regs = |srv6: bool| {
            let mut r = std::collections::BTreeMap::new();
            use cngw_regmap::{offset, tunnel_control};
            let c = tunnel_control::INGRESS_PE | if srv6 { tunnel_control::SRV6 } else { 0 };
            r.insert(offset::TUNNEL_CONTROL, c);
            r.insert(offset::TUNNEL_WAN_MTU, 9000);
            r.insert(offset::TUNNEL_HOP_LIMIT, 64);
            for (i, w) in [0xfd00_000b, 0, 0, 1].into_iter().enumerate() {
                r.insert(offset::TUNNEL_REMOTE_0 + 4 * i as u32, w);
                r.insert(offset::TUNNEL_SID0_0 + 4 * i as u32, w);
            }
            Map(r)
        };
        for srv6 in [false, true] {
            let cfg = EncapConfig::of_registers(&regs(srv6));
            for inner in [v4_frame(0x42), v6_frame(0x4242)] {
                let EncapFate::Sent { bytes, .. } = encapsulate_frame(&inner, false, 99, &cfg).fate
                else {
                    panic!("encapsulated");
                };
                let want = FlowKey::of_header(&classify(&inner));
                let got = request(&message(&bytes, 3)).map(|r| r.key);
                assert_eq!(got, Ok(want), "SRv6 {srv6}");
            }
        }
    }

    #[test]
    fn px_02_messages_that_name_no_flow_are_refused() {
        // Not RoCEv2: a TCP five-tuple.
        let mut m = message(&v4_frame(5), 1);
        m.five_tuple.protocol = 6;
        assert_eq!(request(&m), Err(Reject::NotRoce));
        let mut m = message(&v4_frame(5), 1);
        m.five_tuple.dst_port = 4790;
        assert_eq!(request(&m), Err(Reject::NotRoce));
        // The five-tuple of one flow, the invoking packet of another.
        let mut m = message(&v4_frame(5), 1);
        m.invoking_packet = message(&v6_frame(5), 1).invoking_packet;
        assert_eq!(request(&m), Err(Reject::Mismatch));
        // Garbage in place of the invoking packet.
        let mut m = message(&v4_frame(5), 1);
        m.invoking_packet = vec![0x55; 200];
        assert_eq!(request(&m), Err(Reject::NoBth));
    }
}
