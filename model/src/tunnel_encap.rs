//! The ingress PE's tunnel encapsulation (FCN-02, PE-01), as the RTL's
//! `TunnelEncap` does it, built from the packet crate
//! (`cngw_packet::vxlan::encapsulate`, `cngw_packet::srh::encapsulate`) and
//! RFC 6040's encapsulation ([`crate::tunnel_ecn::encapsulate`]): shared by
//! the block's Verilator test and the gateway model.
//!
//! The inner frame is sized from its IP header (L2 14, or 18 behind one
//! 802.1Q tag, + IPv4 total length or 40 + IPv6 payload length); longer
//! frames are cut to that (trimmed), shorter ones sent as they are with
//! `tuser` set (truncated); frames the block cannot size are dropped (not
//! IP), and outer packets above the MTU too. VXLAN over IPv6 (UDP 4789,
//! checksum 0, source port from the label) carries the inner Ethernet
//! frame; SRv6 (one or two SIDs) the inner IP packet. The outer IPv6
//! header has the flow's label, the tunnel's hop limit, the inner DSCP
//! and the ECN of RFC 6040 normal or compatibility mode.

use crate::longhaul::{gw_ipv6, gw_mac, ipv6_registers, mac_registers, Registers};
use crate::tunnel_ecn::{encapsulate, EncapMode};
use cngw_packet::{srh, vxlan, Ecn, Envelope, MacAddr, UdpChecksum};
use cngw_regmap::{offset, tunnel_control};
use std::net::Ipv6Addr;

/// The ingress queue stores a frame whole up to this many bytes (160
/// beats); a longer one is cut there and ends with `tuser` set.
pub const QUEUE_CUT_BYTES: usize = 160 * 64;

/// One tunnel, as the RTL's `tun_*` inputs give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncapConfig {
    /// SRv6; else VXLAN.
    pub srv6: bool,
    pub dst_mac: MacAddr,
    pub src_mac: MacAddr,
    /// This PE (outer source).
    pub src: Ipv6Addr,
    /// VXLAN: the remote PE (outer destination).
    pub remote: Ipv6Addr,
    pub vni: u32,
    pub udp_base: u16,
    pub udp_mask: u16,
    pub hop_limit: u8,
    /// SRv6 path in visiting order (one or two SIDs).
    pub sids: Vec<Ipv6Addr>,
    /// RFC 6040 compatibility mode.
    pub compat: bool,
    /// Largest outer IPv6 packet (40 + payload length).
    pub mtu: u16,
}

impl EncapConfig {
    /// The gateway's tunnel: `TUNNEL_CONTROL` bits 3..5, `TUNNEL_*`,
    /// `GW_MAC` and `GW_IPV6` as the source.
    pub fn of_registers(r: &dyn Registers) -> EncapConfig {
        let control = r.reg(offset::TUNNEL_CONTROL);
        let mut sids = vec![ipv6_registers(r, offset::TUNNEL_SID0_0)];
        if control & tunnel_control::TWO_SIDS != 0 {
            sids.push(ipv6_registers(r, offset::TUNNEL_SID1_0));
        }
        let sport = r.reg(offset::TUNNEL_UDP_SPORT);
        EncapConfig {
            srv6: control & tunnel_control::SRV6 != 0,
            dst_mac: mac_registers(
                r,
                offset::TUNNEL_NEXT_HOP_MAC_HI,
                offset::TUNNEL_NEXT_HOP_MAC_LO,
            ),
            src_mac: gw_mac(r),
            src: gw_ipv6(r),
            remote: ipv6_registers(r, offset::TUNNEL_REMOTE_0),
            vni: r.reg(offset::TUNNEL_VNI) & 0xFF_FFFF,
            udp_base: sport as u16,
            udp_mask: (sport >> 16) as u16,
            hop_limit: r.reg(offset::TUNNEL_HOP_LIMIT) as u8,
            sids,
            compat: control & tunnel_control::COMPAT != 0,
            mtu: r.reg(offset::TUNNEL_WAN_MTU) as u16,
        }
    }

    /// PE-05: the same tunnel on the alternate SRv6 path the shaper picks
    /// for a slowed flow (`TUNNEL_ALT_SID0_*`, and `TUNNEL_ALT_SID1_*` with
    /// `PE_SHAPER_CONTROL.alt_two_sids`).
    pub fn alternate(r: &dyn Registers) -> EncapConfig {
        let mut sids = vec![ipv6_registers(r, offset::TUNNEL_ALT_SID0_0)];
        if r.reg(offset::PE_SHAPER_CONTROL) & cngw_regmap::pe_shaper::ALT_TWO_SIDS != 0 {
            sids.push(ipv6_registers(r, offset::TUNNEL_ALT_SID1_0));
        }
        EncapConfig {
            sids,
            ..EncapConfig::of_registers(r)
        }
    }

    pub fn mode(&self) -> EncapMode {
        if self.compat {
            EncapMode::Compatibility
        } else {
            EncapMode::Normal
        }
    }
}

/// What happens to a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncapFate {
    /// Sent: the bytes and the last beat's `tuser`.
    Sent {
        bytes: Vec<u8>,
        user: bool,
    },
    DroppedNotIp,
    DroppedMtu,
}

/// A frame's fate and the block's pulses for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encapsulated {
    pub fate: EncapFate,
    /// Cut to its IP length.
    pub trimmed: bool,
    /// Shorter than its IP length.
    pub truncated: bool,
}

/// The inner frame as the block sizes it.
struct Inner {
    l2: usize,
    ip_len: usize,
    v6: bool,
    dscp: u8,
    ecn: Ecn,
}

fn be16(b: &[u8]) -> usize {
    u16::from_be_bytes([b[0], b[1]]) as usize
}

fn inner(frame: &[u8]) -> Option<Inner> {
    let vlan = frame.len() >= 14 && frame[12] == 0x81 && frame[13] == 0x00;
    let l2 = if vlan { 18 } else { 14 };
    if frame.len() < l2 + 6 {
        return None;
    }
    let ip = &frame[l2..];
    match (be16(&frame[l2 - 2..]), ip[0] >> 4) {
        (0x0800, 4) if be16(&ip[2..]) >= 20 => Some(Inner {
            l2,
            ip_len: be16(&ip[2..]),
            v6: false,
            dscp: ip[1] >> 2,
            ecn: Ecn::from_bits(ip[1]),
        }),
        (0x86dd, 6) => {
            let tc = (ip[0] << 4) | (ip[1] >> 4);
            Some(Inner {
                l2,
                ip_len: 40 + be16(&ip[4..]),
                v6: true,
                dscp: tc >> 2,
                ecn: Ecn::from_bits(tc),
            })
        }
        _ => None,
    }
}

/// The encapsulation of `frame` (last `tuser` `user`) with outer flow
/// label `label` through tunnel `t`.
pub fn encapsulate_frame(frame: &[u8], user: bool, label: u32, t: &EncapConfig) -> Encapsulated {
    let dropped = |fate| Encapsulated {
        fate,
        trimmed: false,
        truncated: false,
    };
    let Some(inn) = inner(frame) else {
        return dropped(EncapFate::DroppedNotIp);
    };
    let keep = inn.l2 + inn.ip_len;
    let (hlen, drop, payload) = if t.srv6 {
        let srh = 8 + 16 * t.sids.len();
        (54 + srh, inn.l2, srh + inn.ip_len)
    } else {
        (70, 0, 16 + keep)
    };
    if 40 + payload > t.mtu as usize {
        return dropped(EncapFate::DroppedMtu);
    }
    // The inner frame at its IP length (zeros where a truncated frame ends).
    let mut carried = frame[..frame.len().min(keep)].to_vec();
    carried.resize(keep, 0);
    let env = Envelope::ipv6(t.src, t.remote)
        .with_macs(t.src_mac, t.dst_mac)
        .with_dscp(inn.dscp)
        .with_ecn(encapsulate(inn.ecn, t.mode()))
        .with_ttl(t.hop_limit)
        .with_flow_label(label);
    let full = if t.srv6 {
        let nh = if inn.v6 { 41 } else { 4 };
        srh::encapsulate(&env, &t.sids, nh, &carried[inn.l2..])
            .expect("one or two SIDs")
            .to_bytes()
    } else {
        let sport = (t.udp_base & !t.udp_mask) | (label as u16 & t.udp_mask);
        vxlan::encapsulate(&env, sport, t.vni, &carried, UdpChecksum::Zero).to_bytes()
    };
    debug_assert_eq!(full.len(), hlen + keep - drop);
    let truncated = frame.len() < keep;
    let trimmed = frame.len() > keep;
    Encapsulated {
        fate: EncapFate::Sent {
            bytes: full[..hlen + frame.len().min(keep) - drop].to_vec(),
            user: user || truncated,
        },
        trimmed,
        truncated,
    }
}
