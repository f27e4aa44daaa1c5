//! Random traffic for RTL-versus-model runs: well-formed RoCEv2 over IPv4
//! and IPv6 (with and without 802.1Q), other protocols, and frames broken
//! in the ways a WAN edge sees (truncated headers, wrong lengths, wrong IP
//! versions, runts, random bytes).

use cngw_model::Frame;
use cngw_packet::{Ecn, RoceFrameBuilder};
use rand::Rng;
use std::net::{Ipv4Addr, Ipv6Addr};

/// RDMA opcodes seen on the wire (RC SEND/WRITE/READ/ACK, UD SEND, CNP).
const OPCODES: [u8; 10] = [0x00, 0x01, 0x02, 0x04, 0x06, 0x0a, 0x0c, 0x11, 0x64, 0x81];

/// A well-formed RoCEv2 data frame with random addresses, QP, PSN and size.
pub fn random_roce<R: Rng>(rng: &mut R) -> Vec<u8> {
    let b = if rng.gen_bool(0.5) {
        RoceFrameBuilder::ipv4(
            Ipv4Addr::new(10, rng.gen(), rng.gen(), rng.gen()),
            Ipv4Addr::new(10, rng.gen(), rng.gen(), rng.gen()),
        )
    } else {
        RoceFrameBuilder::ipv6(
            Ipv6Addr::new(0xfd00, rng.gen(), 0, 0, 0, 0, rng.gen(), rng.gen()),
            Ipv6Addr::new(0xfd00, rng.gen(), 0, 0, 0, 0, rng.gen(), rng.gen()),
        )
        .flow_label(rng.gen_range(0..1 << 20))
    };
    random_rest(rng, b, 0..1 << 24)
}

/// The rest of a random RoCEv2 frame between given addresses: VLAN tag,
/// ECN, size, opcode, DestQP (from `dest_qp`), PSN and UDP source port.
fn random_rest<R: Rng>(
    rng: &mut R,
    mut b: RoceFrameBuilder,
    dest_qp: std::ops::Range<u32>,
) -> Vec<u8> {
    if rng.gen_bool(0.3) {
        b = b.vlan(rng.gen_range(1..4095));
    }
    let ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][rng.gen_range(0..4)];
    let size = match rng.gen_range(0..4) {
        0 => 0,
        1 => rng.gen_range(1..64),
        2 => rng.gen_range(64..1024),
        _ => rng.gen_range(1024..4096),
    };
    b.ecn(ecn)
        .opcode(OPCODES[rng.gen_range(0..OPCODES.len())])
        .dest_qp(rng.gen_range(dest_qp))
        .psn(rng.gen_range(0..1 << 24))
        .udp_src_port(rng.gen())
        .payload_len(size & !3)
        .build()
}

/// A non-RoCE frame: ARP-like, TCP over IPv4, UDP to another port, IPv6
/// with an extension header, or an unknown EtherType.
pub fn random_non_roce<R: Rng>(rng: &mut R) -> Vec<u8> {
    let mut f = random_roce(rng);
    let l3 = if u16::from_be_bytes([f[12], f[13]]) == 0x8100 {
        18
    } else {
        14
    };
    match rng.gen_range(0..3) {
        0 => {
            // Unknown EtherType.
            f[l3 - 2] = 0x88;
            f[l3 - 1] = 0xb5;
        }
        1 => {
            // Another UDP destination port.
            let v6 = f[l3] >> 4 == 6;
            let udp = if v6 {
                l3 + 40
            } else {
                l3 + 4 * (f[l3] & 0xf) as usize
            };
            f[udp + 2] = 0x12;
            f[udp + 3] = 0x34;
        }
        _ => {
            // Another IP protocol / next header (TCP, or an extension header).
            let v6 = f[l3] >> 4 == 6;
            if v6 {
                f[l3 + 6] = [0, 6, 43, 60][rng.gen_range(0..4)];
            } else {
                f[l3 + 9] = 6;
            }
        }
    }
    f
}

/// A frame broken somewhere in its headers.
pub fn random_malformed<R: Rng>(rng: &mut R) -> Vec<u8> {
    let f = random_roce(rng);
    malform(rng, f)
}

/// [`random_malformed`] from a frame of [`random_roce_among`]'s flows (a
/// "broken" frame can still be a valid one: a version nibble drawn equal,
/// an IPv4 identification changed).
pub fn random_malformed_among<R: Rng>(rng: &mut R, hosts: u16, qps: u32) -> Vec<u8> {
    let f = random_roce_among(rng, hosts, qps);
    malform(rng, f)
}

fn malform<R: Rng>(rng: &mut R, mut f: Vec<u8>) -> Vec<u8> {
    match rng.gen_range(0..5) {
        0 => {
            // Truncated anywhere up to the end of the BTH.
            let cut = rng.gen_range(0..f.len().min(100));
            f.truncate(cut);
        }
        1 => {
            // Wrong IP version nibble.
            let l3 = if u16::from_be_bytes([f[12], f[13]]) == 0x8100 {
                18
            } else {
                14
            };
            f[l3] = (f[l3] & 0x0f) | (rng.gen_range(0..16u8) << 4);
        }
        2 => {
            // IP or UDP length larger than the frame.
            let l3 = if u16::from_be_bytes([f[12], f[13]]) == 0x8100 {
                18
            } else {
                14
            };
            let at = l3 + rng.gen_range(2..6);
            f[at] = f[at].wrapping_add(rng.gen_range(1..=255));
        }
        3 => {
            // Runt.
            f.truncate(rng.gen_range(1..14));
        }
        _ => {
            // Random bytes.
            let n = rng.gen_range(1..200);
            f = (0..n).map(|_| rng.gen()).collect();
        }
    }
    if f.is_empty() {
        f.push(0);
    }
    f
}

/// A random RoCEv2 frame (as [`random_roce`]) of one of at most
/// `2 * hosts * hosts * qps` flows: its addresses are among `hosts` IPv4 and
/// `hosts` IPv6 hosts, its DestQP among `qps` values. Long random runs use it
/// to stay within the flow table's capacity, which the reference model
/// does not have.
pub fn random_roce_among<R: Rng>(rng: &mut R, hosts: u16, qps: u32) -> Vec<u8> {
    let (hosts, qps) = (hosts.max(1), qps.max(1));
    let h = |rng: &mut R| rng.gen_range(0..hosts);
    let b = if rng.gen_bool(0.5) {
        let (s, d) = (h(rng).to_be_bytes(), h(rng).to_be_bytes());
        RoceFrameBuilder::ipv4(
            Ipv4Addr::new(10, 201, s[0], s[1]),
            Ipv4Addr::new(10, 202, d[0], d[1]),
        )
    } else {
        let (s, d) = (h(rng), h(rng));
        RoceFrameBuilder::ipv6(
            Ipv6Addr::new(0xfd00, 0x201, 0, 0, 0, 0, 0, s),
            Ipv6Addr::new(0xfd00, 0x202, 0, 0, 0, 0, 0, d),
        )
        .flow_label(rng.gen_range(0..1 << 20))
    };
    random_rest(rng, b, 0x10_0000..0x10_0000 + qps)
}

/// [`random_mix`] with its RoCEv2 frames from [`random_roce_among`].
pub fn random_mix_among<R: Rng>(rng: &mut R, hosts: u16, qps: u32) -> Frame {
    let data = match rng.gen_range(0..10) {
        0..=5 => random_roce_among(rng, hosts, qps),
        6 | 7 => random_non_roce(rng),
        _ => random_malformed_among(rng, hosts, qps),
    };
    Frame {
        data,
        user: rng.gen_bool(0.02),
    }
}

/// A mix: mostly RoCEv2, some other traffic, some broken frames.
pub fn random_mix<R: Rng>(rng: &mut R, n: usize) -> Vec<Frame> {
    (0..n)
        .map(|_| {
            let data = match rng.gen_range(0..10) {
                0..=5 => random_roce(rng),
                6 | 7 => random_non_roce(rng),
                _ => random_malformed(rng),
            };
            Frame {
                data,
                user: rng.gen_bool(0.02),
            }
        })
        .collect()
}

/// A RoCEv2 flow of an end-to-end test: its hosts and QPs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoceFlow {
    pub src: std::net::IpAddr,
    pub dst: std::net::IpAddr,
    pub dqp: u32,
    pub sqp: u32,
}

impl RoceFlow {
    /// Its flow-table key.
    pub fn key(&self) -> cngw_packet::flow_key::FlowKey {
        use cngw_packet::flow_key::FlowKey;
        use std::net::IpAddr;
        match (self.src, self.dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => FlowKey::ipv4(s.octets(), d.octets(), self.dqp),
            (IpAddr::V6(s), IpAddr::V6(d)) => FlowKey::ipv6(s, d, self.dqp),
            _ => panic!("a flow's addresses are of one family"),
        }
    }

    /// One of its frames: source and destination MAC, ECT(0), the PSN, the
    /// payload length rounded down to a multiple of 4.
    pub fn frame(&self, macs: ([u8; 6], [u8; 6]), psn: u32, payload: usize) -> Vec<u8> {
        use std::net::IpAddr;
        let b = match (self.src, self.dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => RoceFrameBuilder::ipv4(s, d),
            (IpAddr::V6(s), IpAddr::V6(d)) => RoceFrameBuilder::ipv6(s, d),
            _ => panic!("a flow's addresses are of one family"),
        };
        b.macs(macs.0, macs.1)
            .ecn(Ecn::Ect0)
            .dest_qp(self.dqp)
            .psn(psn)
            .payload_len(payload & !3)
            .build()
    }
}

/// An IPv6 address as four register words (the first byte in bits 31..24
/// of the first word), as `GW_IPV6_*`, `TUNNEL_*` and `FLOW_*` take it.
pub fn ipv6_words(a: Ipv6Addr) -> [u32; 4] {
    let o = a.octets();
    std::array::from_fn(|i| {
        u32::from_be_bytes([o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]])
    })
}

/// A MAC address as the values of a `*_MAC_HI` / `*_MAC_LO` pair.
pub fn mac_words(m: [u8; 6]) -> (u32, u32) {
    (
        u16::from_be_bytes([m[0], m[1]]) as u32,
        u32::from_be_bytes([m[2], m[3], m[4], m[5]]),
    )
}
