//! PE-02, PE-06: the egress PE's decapsulation of a whole frame, the rules
//! of `hdl/src/pe/tunnel_decap.rs` (`TunnelDecap`), with the ECN tables of
//! [`crate::tunnel_ecn`].
//!
//! A frame is for this PE when it is at least 64 bytes long and its
//! untagged outer header is IPv6 to the PE's address and either
//! - UDP to port 4789 (VXLAN): the 70 outer bytes (Ethernet, IPv6, UDP,
//!   VXLAN) are removed and the inner Ethernet frame leaves; or
//! - an SRH (next header 43, routing type 4) with Segments Left 0, Hdr Ext
//!   Len 2..=4 and next header 4 or 41 (SRv6, L3 service): the outer
//!   Ethernet, IPv6 and SRH are removed and an Ethernet header (the
//!   configured destination and source MACs, EtherType 0x0800 or 0x86DD)
//!   goes in front of the inner IP packet.
//!
//! Every other frame passes unchanged. A frame no longer than the outer
//! headers sends nothing (`runt`). When the inner IP header (its version
//! matching the EtherType, one 802.1Q tag understood after VXLAN) is there,
//! the decapsulation table decides: drop (Not-ECT inside, CE outside), or
//! the inner ECN field rewritten when it changes (IPv4 header checksum
//! updated by RFC 1624), with light marks and alarms reported. Inner TTLs
//! and lengths are left alone.

use crate::tunnel_ecn::{decapsulate, DecapTable};
use cngw_packet::ipv4::incremental_checksum_update;
use cngw_packet::Ecn;
use std::net::Ipv6Addr;

/// The egress PE's decapsulation settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecapConfig {
    /// The PE's address: tunnelled frames are sent to it.
    pub pe: Ipv6Addr,
    /// Destination and source MAC of the Ethernet header put in front of
    /// an SRv6 tunnel's inner packet.
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub table: DecapTable,
}

/// How a frame's outer headers are seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Pass,
    Vxlan,
    /// Bytes removed; the inner packet is IPv6.
    Srv6 {
        drop: usize,
        v6: bool,
    },
}

/// What decapsulation did with a frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decapsulated {
    /// The frame that leaves (`None`: nothing leaves).
    pub frame: Option<Vec<u8>>,
    pub passed: bool,
    pub vxlan: bool,
    pub srv6: bool,
    pub ecn_dropped: bool,
    pub light: bool,
    pub alarm: bool,
    pub runt: bool,
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

/// The tunnel a frame arrives in, for this PE.
pub fn classify(f: &[u8], pe: Ipv6Addr) -> Kind {
    if f.len() < 64 || f[12..14] != [0x86, 0xdd] || f[14] >> 4 != 6 || f[38..54] != pe.octets() {
        return Kind::Pass;
    }
    match f[20] {
        17 if f[56..58] == [0x12, 0xb5] => Kind::Vxlan,
        43 if f[56] == 4 && f[57] == 0 && (2..=4).contains(&f[55]) && matches!(f[54], 4 | 41) => {
            Kind::Srv6 {
                drop: 62 + 8 * f[55] as usize,
                v6: f[54] == 41,
            }
        }
        _ => Kind::Pass,
    }
}

/// Decapsulates `f` as the egress PE does.
pub fn decapsulate_frame(f: &[u8], cfg: &DecapConfig) -> Decapsulated {
    let mut c = Decapsulated::default();
    let kind = classify(f, cfg.pe);
    let (drop, mut out, ip_off, want_v6, type_ok) = match kind {
        Kind::Pass => {
            c.passed = true;
            c.frame = Some(f.to_vec());
            return c;
        }
        Kind::Vxlan => {
            let tag = f.len() >= 84 && f[82..84] == [0x81, 0x00];
            let et_at = if tag { 86 } else { 82 };
            let et = if f.len() >= et_at + 2 {
                be16(&f[et_at..])
            } else {
                0
            };
            (
                70,
                Vec::new(),
                et_at + 2,
                et == 0x86dd,
                et == 0x86dd || et == 0x0800,
            )
        }
        Kind::Srv6 { drop, v6 } => {
            let mut eth = cfg.dst_mac.to_vec();
            eth.extend_from_slice(&cfg.src_mac);
            eth.extend_from_slice(if v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
            (drop, eth, drop, v6, true)
        }
    };
    c.srv6 = matches!(kind, Kind::Srv6 { .. });
    c.vxlan = !c.srv6;
    if f.len() <= drop {
        c.runt = true;
        return c;
    }
    let ip_ok = type_ok && f.len() >= ip_off + 12 && f[ip_off] >> 4 == if want_v6 { 6 } else { 4 };
    let hlen = out.len();
    out.extend_from_slice(&f[drop..]);
    if ip_ok {
        let outer = Ecn::from_bits(f[15] >> 4);
        let inner = Ecn::from_bits(if want_v6 {
            f[ip_off + 1] >> 4
        } else {
            f[ip_off + 1]
        });
        let d = decapsulate(inner, outer, cfg.table);
        c.light = d.light;
        c.alarm = d.alarm;
        match d.inner {
            None => {
                c.vxlan = false;
                c.srv6 = false;
                c.ecn_dropped = true;
                return c;
            }
            Some(new) if new != inner => {
                let o = ip_off - drop + hlen;
                if want_v6 {
                    out[o + 1] = (out[o + 1] & 0xcf) | (new.bits() << 4);
                } else {
                    let old_word = be16(&out[o..]);
                    out[o + 1] = (out[o + 1] & 0xfc) | new.bits();
                    let sum = incremental_checksum_update(
                        be16(&out[o + 10..]),
                        old_word,
                        be16(&out[o..]),
                    );
                    out[o + 10..o + 12].copy_from_slice(&sum.to_be_bytes());
                }
            }
            Some(_) => {}
        }
    }
    c.frame = Some(out);
    c
}
