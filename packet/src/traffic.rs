//! Deterministic RoCEv2 conversations for tests, the demo and
//! `cngw gen traffic`.
//!
//! For each of N flows, a host in the local data centre ("DC side" of the
//! gateway) talks to a host behind the WAN ("WAN side"):
//!
//! 1. RDMA CM on QP 1: REQ (DC host -> WAN host), REP (back), RTU.
//! 2. RC RDMA WRITE messages from the DC host (FIRST/MIDDLE/LAST or ONLY,
//!    RETH on the first packet, AckReq on the last), each acknowledged by
//!    the WAN host with an RC ACK.
//! 3. RC SEND messages from the WAN host, acknowledged by the DC host.
//!
//! The result lists, with timestamps, the frames that arrive at the
//! gateway's DC port ([`Traffic::dc_side`]: everything the DC hosts send) and
//! at its WAN port ([`Traffic::wan_side`]: everything the WAN hosts send).
//! All randomness (QPNs, PSNs, communication IDs, UDP ports, start jitter)
//! comes from a SplitMix64 generator seeded by [`TrafficConfig::seed`], so a
//! seed always gives the same bytes.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::bth::opcode;
use crate::cm::{CmCommIds, CmMad, CmMessage, CmRep, CmReq};
use crate::ecn::Ecn;
use crate::envelope::{Envelope, IpPair};
use crate::ethernet::{MacAddr, VlanTag};
use crate::pcap::TimedFrame;
use crate::roce::{Aeth, Reth, RoceFrameBuilder};

/// MAC of the gateway's DC-facing port (destination of DC-side frames).
pub const GATEWAY_DC_MAC: MacAddr = [0x02, 0xC6, 0x00, 0x00, 0x00, 0x01];
/// MAC of the gateway's WAN-facing port (destination of WAN-side frames).
pub const GATEWAY_WAN_MAC: MacAddr = [0x02, 0xC6, 0x00, 0x00, 0x00, 0x02];
/// MAC of the WAN next hop (source of WAN-side frames).
pub const WAN_NEXT_HOP_MAC: MacAddr = [0x02, 0xC6, 0x00, 0x00, 0x00, 0x03];
/// RDMA CM service ID prefix for the RDMA_PS_TCP port space.
pub const RDMA_CM_SERVICE_ID_TCP: u64 = 0x0000_0000_0106_0000;
/// Largest number of flows (hosts are numbered with 16 bits).
pub const MAX_FLOWS: usize = 65_000;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrafficConfig {
    pub seed: u64,
    pub flows: usize,
    /// RDMA WRITE messages from the DC host, and SEND messages from the WAN
    /// host, per flow.
    pub messages_per_flow: usize,
    /// Bytes per message.
    pub message_len: usize,
    /// RoCE path MTU (payload bytes per packet): 256, 512, 1024, 2048, 4096.
    pub mtu: usize,
    pub ipv6: bool,
    /// 802.1Q tag on every frame.
    pub vlan: Option<u16>,
    /// ECN of data and ACK frames (CM MADs are Not-ECT).
    pub ecn: Ecn,
    /// DSCP of every frame.
    pub dscp: u8,
    /// Time of the first frame.
    pub start_ns: u64,
    /// Spacing of one flow's data packets, and of flow starts.
    pub gap_ns: u64,
    /// Round-trip time across the WAN seen from the gateway.
    pub wan_rtt_ns: u64,
    /// Round-trip time between the gateway and a DC host.
    pub dc_rtt_ns: u64,
}

impl Default for TrafficConfig {
    /// One IPv4 flow, 4 messages of 4 KiB each way, MTU 1024, ECT(0),
    /// DSCP 26, 1 us packet gap, 100 us WAN RTT, 2 us DC RTT.
    fn default() -> Self {
        TrafficConfig {
            seed: 1,
            flows: 1,
            messages_per_flow: 4,
            message_len: 4096,
            mtu: 1024,
            ipv6: false,
            vlan: None,
            ecn: Ecn::Ect0,
            dscp: 26,
            start_ns: 0,
            gap_ns: 1_000,
            wan_rtt_ns: 100_000,
            dc_rtt_ns: 2_000,
        }
    }
}

/// The identifiers of one generated flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowSpec {
    pub dc_ip: IpAddr,
    pub wan_ip: IpAddr,
    pub dc_mac: MacAddr,
    /// QP of the DC host (the requester).
    pub dc_qpn: u32,
    /// QP of the WAN host (the responder).
    pub wan_qpn: u32,
    pub dc_udp_src_port: u16,
    pub wan_udp_src_port: u16,
    pub dc_comm_id: u32,
    pub wan_comm_id: u32,
    pub dc_start_psn: u32,
    pub wan_start_psn: u32,
}

/// Which gateway port a frame arrives on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Dc,
    Wan,
}

/// A generated conversation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Frames arriving at the DC port, by time.
    pub dc_side: Vec<TimedFrame>,
    /// Frames arriving at the WAN port, by time.
    pub wan_side: Vec<TimedFrame>,
    pub flows: Vec<FlowSpec>,
}

impl Traffic {
    /// Both sides merged by time (DC first on equal times).
    pub fn merged(&self) -> Vec<(u64, Side, Vec<u8>)> {
        let mut all: Vec<_> = self
            .dc_side
            .iter()
            .map(|(t, f)| (*t, Side::Dc, f.clone()))
            .chain(
                self.wan_side
                    .iter()
                    .map(|(t, f)| (*t, Side::Wan, f.clone())),
            )
            .collect();
        all.sort_by_key(|(t, side, _)| (*t, *side));
        all
    }
}

/// SplitMix64: a tiny generator whose output is fixed forever by its seed.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// Address of DC host `i`: 10.1.x.y / fd00:dc::x:y with x.y = i + 1.
pub fn dc_host_ip(i: usize, ipv6: bool) -> IpAddr {
    host_ip(1, 0xdc, i, ipv6)
}

/// Address of WAN host `i`: 10.2.x.y / fd00:ace::x:y with x.y = i + 1.
pub fn wan_host_ip(i: usize, ipv6: bool) -> IpAddr {
    host_ip(2, 0xace, i, ipv6)
}

fn host_ip(v4_net: u8, v6_net: u16, i: usize, ipv6: bool) -> IpAddr {
    let n = (i + 1) as u16;
    if ipv6 {
        Ipv6Addr::new(0xfd00, v6_net, 0, 0, 0, 0, 0, n).into()
    } else {
        Ipv4Addr::new(10, v4_net, (n >> 8) as u8, n as u8).into()
    }
}

fn to_v6(a: IpAddr) -> Ipv6Addr {
    match a {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

fn dc_host_mac(i: usize) -> MacAddr {
    let n = (i + 1) as u16;
    [0x02, 0xDC, 0x00, 0x00, (n >> 8) as u8, n as u8]
}

/// Generates the conversation `cfg` describes (at most [`MAX_FLOWS`] flows).
pub fn generate(cfg: &TrafficConfig) -> Traffic {
    let mut rng = SplitMix64::new(cfg.seed);
    let mut out = Traffic::default();
    let flows = cfg.flows.min(MAX_FLOWS);
    for i in 0..flows {
        let spec = FlowSpec {
            dc_ip: dc_host_ip(i, cfg.ipv6),
            wan_ip: wan_host_ip(i, cfg.ipv6),
            dc_mac: dc_host_mac(i),
            dc_qpn: 2 + rng.below(0x00FF_FFFD) as u32,
            wan_qpn: 2 + rng.below(0x00FF_FFFD) as u32,
            dc_udp_src_port: 0xC000 | rng.below(0x4000) as u16,
            wan_udp_src_port: 0xC000 | rng.below(0x4000) as u16,
            dc_comm_id: rng.next_u64() as u32,
            wan_comm_id: rng.next_u64() as u32,
            dc_start_psn: rng.below(0x0100_0000) as u32,
            wan_start_psn: rng.below(0x0100_0000) as u32,
        };
        let start = cfg.start_ns + i as u64 * cfg.gap_ns + rng.below(cfg.gap_ns.max(1));
        let cm_psn = rng.below(0x0100_0000) as u32;
        let tid = rng.next_u64();
        generate_flow(cfg, &spec, start, cm_psn, tid, &mut out);
        out.flows.push(spec);
    }
    out.dc_side.sort_by_key(|(t, _)| *t);
    out.wan_side.sort_by_key(|(t, _)| *t);
    out
}

fn envelopes(cfg: &TrafficConfig, f: &FlowSpec) -> (Envelope, Envelope) {
    let pair = match (f.dc_ip, f.wan_ip) {
        (IpAddr::V6(src), IpAddr::V6(dst)) => IpPair::V6 { src, dst },
        (IpAddr::V4(src), IpAddr::V4(dst)) => IpPair::V4 { src, dst },
        // generate() never mixes versions; map to IPv6 if a caller does.
        (src, dst) => IpPair::V6 {
            src: to_v6(src),
            dst: to_v6(dst),
        },
    };
    let mut dc = Envelope::new(pair)
        .with_macs(f.dc_mac, GATEWAY_DC_MAC)
        .with_dscp(cfg.dscp);
    let mut wan = Envelope::new(pair.reversed())
        .with_macs(WAN_NEXT_HOP_MAC, GATEWAY_WAN_MAC)
        .with_dscp(cfg.dscp);
    if let Some(vid) = cfg.vlan {
        dc.vlans.push(VlanTag::new(vid));
        wan.vlans.push(VlanTag::new(vid));
    }
    if cfg.ipv6 {
        // Like RNICs: a per-QP flow label.
        dc = dc.with_flow_label(f.dc_qpn ^ (f.wan_qpn << 4));
        wan = wan.with_flow_label(f.wan_qpn ^ (f.dc_qpn << 4));
    }
    (dc, wan)
}

fn generate_flow(
    cfg: &TrafficConfig,
    f: &FlowSpec,
    start: u64,
    cm_psn: u32,
    tid: u64,
    out: &mut Traffic,
) {
    let (dc_env, wan_env) = envelopes(cfg, f);
    let (dc_data_env, wan_data_env) = (
        dc_env.clone().with_ecn(cfg.ecn),
        wan_env.clone().with_ecn(cfg.ecn),
    );
    let req = CmMad {
        transaction_id: tid,
        message: CmMessage::Req(CmReq {
            local_comm_id: f.dc_comm_id,
            service_id: RDMA_CM_SERVICE_ID_TCP | 18515,
            local_ca_guid: 0x02DC_00FF_FE00_0000 | f.dc_qpn as u64,
            local_qkey: 0,
            local_qpn: f.dc_qpn,
            starting_psn: f.dc_start_psn,
            pkey: 0xFFFF,
        }),
    };
    out.dc_side.push((
        start,
        req.to_frame(&dc_env, cm_psn, f.dc_udp_src_port).to_bytes(),
    ));
    let t_rep = start + cfg.wan_rtt_ns;
    let rep = CmMad {
        transaction_id: tid,
        message: CmMessage::Rep(CmRep {
            local_comm_id: f.wan_comm_id,
            remote_comm_id: f.dc_comm_id,
            local_qkey: 0,
            local_qpn: f.wan_qpn,
            starting_psn: f.wan_start_psn,
            local_ca_guid: 0x02AC_E0FF_FE00_0000 | f.wan_qpn as u64,
        }),
    };
    out.wan_side.push((
        t_rep,
        rep.to_frame(&wan_env, cm_psn, f.wan_udp_src_port)
            .to_bytes(),
    ));
    let t_rtu = t_rep + cfg.dc_rtt_ns;
    let rtu = CmMad {
        transaction_id: tid,
        message: CmMessage::Rtu(CmCommIds {
            local_comm_id: f.dc_comm_id,
            remote_comm_id: f.wan_comm_id,
        }),
    };
    out.dc_side.push((
        t_rtu,
        rtu.to_frame(
            &dc_env,
            cm_psn.wrapping_add(1) & 0x00FF_FFFF,
            f.dc_udp_src_port,
        )
        .to_bytes(),
    ));

    // DC host -> WAN host: RDMA WRITEs; the WAN host ACKs each message.
    let writes = Direction {
        env: &dc_data_env,
        ack_env: &wan_data_env,
        udp_src_port: f.dc_udp_src_port,
        ack_udp_src_port: f.wan_udp_src_port,
        dest_qp: f.wan_qpn,
        ack_dest_qp: f.dc_qpn,
        start_psn: f.dc_start_psn,
        write: true,
    };
    let (data, acks) = writes.frames(cfg, t_rtu + cfg.gap_ns, cfg.wan_rtt_ns);
    out.dc_side.extend(data);
    out.wan_side.extend(acks);

    // WAN host -> DC host: SENDs, after the RTU has reached it; the DC host ACKs.
    let sends = Direction {
        env: &wan_data_env,
        ack_env: &dc_data_env,
        udp_src_port: f.wan_udp_src_port,
        ack_udp_src_port: f.dc_udp_src_port,
        dest_qp: f.dc_qpn,
        ack_dest_qp: f.wan_qpn,
        start_psn: f.wan_start_psn,
        write: false,
    };
    let (data, acks) = sends.frames(cfg, t_rtu + cfg.wan_rtt_ns, cfg.dc_rtt_ns);
    out.wan_side.extend(data);
    out.dc_side.extend(acks);
}

struct Direction<'a> {
    env: &'a Envelope,
    ack_env: &'a Envelope,
    udp_src_port: u16,
    ack_udp_src_port: u16,
    dest_qp: u32,
    ack_dest_qp: u32,
    start_psn: u32,
    write: bool,
}

impl Direction<'_> {
    /// Data frames and the ACK frames they cause (the ACK of a message
    /// arrives `ack_delay_ns` after its last packet).
    fn frames(
        &self,
        cfg: &TrafficConfig,
        t0: u64,
        ack_delay_ns: u64,
    ) -> (Vec<TimedFrame>, Vec<TimedFrame>) {
        let mtu = cfg.mtu.clamp(256, 4096);
        let mut data = Vec::new();
        let mut acks = Vec::new();
        let mut psn = self.start_psn;
        let mut t = t0;
        for msg in 0..cfg.messages_per_flow {
            let packets = cfg.message_len.div_ceil(mtu).max(1);
            for k in 0..packets {
                let len = if k + 1 < packets {
                    mtu
                } else {
                    cfg.message_len - mtu * (packets - 1)
                };
                let op = self.opcode(k, packets);
                let last = k + 1 == packets;
                let mut b = RoceFrameBuilder::new(self.env.clone())
                    .udp_src_port(self.udp_src_port)
                    .opcode(op)
                    .dest_qp(self.dest_qp)
                    .psn(psn)
                    .ack_req(last)
                    .payload((0..len).map(|i| (psn as usize + i) as u8).collect());
                if k == 0 && self.write {
                    b = b.reth(Reth {
                        virtual_address: 0x7F00_0000_0000 + (msg * cfg.message_len) as u64,
                        rkey: 0x1000 | self.dest_qp,
                        dma_length: cfg.message_len as u32,
                    });
                }
                data.push((t, b.build()));
                if last {
                    let ack = RoceFrameBuilder::new(self.ack_env.clone())
                        .udp_src_port(self.ack_udp_src_port)
                        .opcode(opcode::RC_ACKNOWLEDGE)
                        .dest_qp(self.ack_dest_qp)
                        .psn(psn)
                        .aeth(Aeth {
                            syndrome: 0x1F,
                            msn: (msg as u32 + 1) & 0x00FF_FFFF,
                        })
                        .build();
                    acks.push((t + ack_delay_ns, ack));
                }
                psn = (psn + 1) & 0x00FF_FFFF;
                t += cfg.gap_ns;
            }
        }
        (data, acks)
    }

    fn opcode(&self, k: usize, packets: usize) -> u8 {
        use opcode::*;
        match (self.write, packets == 1, k == 0, k + 1 == packets) {
            (true, true, _, _) => RC_RDMA_WRITE_ONLY,
            (true, false, true, _) => RC_RDMA_WRITE_FIRST,
            (true, false, false, true) => RC_RDMA_WRITE_LAST,
            (true, false, false, false) => RC_RDMA_WRITE_MIDDLE,
            (false, true, _, _) => RC_SEND_ONLY,
            (false, false, true, _) => RC_SEND_FIRST,
            (false, false, false, true) => RC_SEND_LAST,
            (false, false, false, false) => RC_SEND_MIDDLE,
        }
    }
}
