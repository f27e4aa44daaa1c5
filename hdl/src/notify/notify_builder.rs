//! `NotifyBuilder`: turns a notification job into a complete frame: a
//! RoCEv2 CNP (IPv4 header checksum and ICRC included) or a Long-haul CNP
//! in ICMPv6 format (ICMPv6 checksum included), on an AXI4-Stream source.
//!
//! ```text
//!                  +-------------------------------------------------------------+
//!  job_valid   --->| IDLE: compose the frame    CSUM: Ipv4HeaderChecksum (RoCEv2) |
//!  job_ready   <---|   = template(kind, ipv6)   STREAM: beats through FrameIcrc   |---> m (two beats,
//!  job_kind    --->|   | MACs | DSCP | IPs        (RoCEv2) or Icmpv6Checksum      |     tuser 0)
//!  job_ipv6 ...--->|   | P_Key | DestQP | body  SEND: beat 0, beat 1 (tlast)     |
//!  job_icmp_type ->|   | ICMPv6 type           the checksums and the ICRC are    |
//!                  |                            written into the held beats       |
//!                  +-------------------------------------------------------------+
//! ```
//! Kinds (`job_kind`, [`NotifyKind`]):
//! - 0 standard CNP (BTH opcode 0x81, BECN, 16 zero bytes): 74 bytes over
//!   IPv4, 94 over IPv6;
//! - 1 Long-haul CNP in RoCEv2 format (LH-12: opcode 0x81, BECN 1, E bit 1,
//!   12-byte body straight after the BTH): 70 bytes over IPv4, 90 over IPv6;
//! - 2 Long-haul CNP in ICMPv6 format (LH-13, IPv6 only): ICMPv6 type
//!   `job_icmp_type`, code 0, checksum, the 12-byte body and no extension
//!   structure; IPv6 next header 58, payload length 16: 70 bytes. The
//!   message is 16 bytes, already a multiple of four, so the packet crate
//!   adds no padding (the draft pads extension objects only), and the
//!   frame is above the 60-byte Ethernet minimum.
//! - 3 is not a kind; the block builds kind 1.
//!
//! Kind 2 with `job_ipv6` low is a caller error (the draft's
//! "Applicability Statement": IPv4 destinations get the RoCEv2 format): the
//! block then builds the IPv4 standard CNP of kind 0 from the same job
//! (P_Key and DestQP included), which every RoCEv2 sender understands, with
//! kind 0's timing.
//!
//! All are untagged Ethernet frames (no FCS), ECN Not-ECT; IPv4 TTL 64,
//! identification 0, DF; IPv6 hop limit 64, flow label 0; the RoCEv2 kinds
//! have UDP source port 0 and UDP checksum 0, A, SE, M, Pad, TVer 0 and
//! PSN 0 — exactly what `cngw_packet`'s `Cnp`, `LonghaulRocev2` and
//! `LonghaulIcmpv6` build, which is the reference (each fixed byte comes
//! from a template that the packet crate builds when the block is
//! constructed).
//!
//! The job fields: MACs and IP addresses in lane order (byte `k` at bits
//! `8k+7..8k`, as on the wire; an IPv4 address sits in bytes 12..15 of the
//! IPv4-mapped 128-bit value, like `HeaderSource`), `job_dscp`, `job_pkey`
//! and `job_dqp` (BTH DestQP: the sender's QP; ignored by kind 2) as
//! numbers, `job_body` the 12-byte Long-haul body in lane order (ignored
//! for a standard CNP) and `job_icmp_type` the ICMPv6 type (kind 2 only;
//! the draft's TBD1, 200 by default in the packet crate).
//!
//! One job at a time: `job_ready` is high in IDLE only; a job is taken on
//! `job_valid & job_ready`. The first beat of a RoCEv2 frame leaves ten
//! clocks after the job is taken (one to compose, four for the IPv4
//! checksum, two to stream the beats through `FrameIcrc`, three for its
//! result), a frame every twelve clocks at best when `m.tready` stays
//! high; that of an ICMPv6 frame nine clocks after (one to compose, two to
//! stream the beats through `Icmpv6Checksum`, six for its result), a frame
//! every eleven clocks at best. Far above any configured notification
//! rate. The output holds its beat until `m.tready`.
//!
//! Issue 4: the frame builder of the notification engine (LH-12, LH-13;
//! FCN-05 uses kind 0).

use super::{FrameIcrc, Icmpv6Checksum, Ipv4HeaderChecksum};
use crate::stream::AxisSource;
use cngw_packet::cnp::Cnp;
use cngw_packet::envelope::Envelope;
use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use rust_hdl::prelude::*;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Values of `job_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotifyKind {
    StandardCnp = 0,
    LonghaulRocev2 = 1,
    /// IPv6 only; over IPv4 the block builds a [`NotifyKind::StandardCnp`].
    LonghaulIcmpv6 = 2,
}

/// Length (no FCS) of the frame the block builds for `kind` over IPv4 or
/// IPv6 (kind 2 over IPv4: the standard CNP).
pub fn frame_len(kind: NotifyKind, ipv6: bool) -> usize {
    match (kind, ipv6) {
        (NotifyKind::StandardCnp, false) | (NotifyKind::LonghaulIcmpv6, false) => 74,
        (NotifyKind::StandardCnp, true) => 94,
        (NotifyKind::LonghaulRocev2, false) => 70,
        (NotifyKind::LonghaulRocev2, true) => 90,
        (NotifyKind::LonghaulIcmpv6, true) => 70,
    }
}

/// The frame the block builds for `kind` with every variable field zero
/// (MACs, DSCP, addresses, P_Key, DestQP, body, ICMPv6 type) and the IPv4
/// checksum, the ICRC and the ICMPv6 checksum zero.
pub fn template(kind: NotifyKind, ipv6: bool) -> Vec<u8> {
    let env = if ipv6 {
        Envelope::ipv6(Ipv6Addr::UNSPECIFIED, Ipv6Addr::UNSPECIFIED)
    } else {
        Envelope::ipv4(Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED)
    }
    .with_macs([0; 6], [0; 6]);
    let body = LonghaulBody {
        congestion_level: 0,
        action: Action::Notify,
        parameter: 0,
        source_qp: 0,
        metric_type: 0,
        metric_value: 0,
    };
    let mut bytes = match (kind, ipv6) {
        (NotifyKind::StandardCnp, _) | (NotifyKind::LonghaulIcmpv6, false) => {
            let mut cnp = Cnp::new(0);
            cnp.pkey = 0;
            cnp.to_frame(&env).to_bytes()
        }
        (NotifyKind::LonghaulRocev2, _) => {
            let mut lh = LonghaulRocev2::new(0, LonghaulCnp::new(body));
            lh.pkey = 0;
            lh.to_frame(&env).to_bytes()
        }
        (NotifyKind::LonghaulIcmpv6, true) => {
            let mut lh = LonghaulIcmpv6::new(LonghaulCnp::new(body));
            lh.icmp_type = 0;
            lh.to_frame(&env).expect("IPv6 envelope").to_bytes()
        }
    };
    assert_eq!(bytes.len(), frame_len(kind, ipv6));
    if kind == NotifyKind::LonghaulIcmpv6 && ipv6 {
        // The ICMPv6 checksum (message bytes 2..3).
        bytes[56..58].fill(0);
        return bytes;
    }
    if !ipv6 {
        bytes[24] = 0;
        bytes[25] = 0;
    }
    let n = bytes.len();
    bytes[n - 4..].fill(0);
    bytes
}

fn bytes_to_bits<const N: usize>(bytes: &[u8]) -> Bits<N> {
    let mut v = Bits::<N>::default();
    for (i, w) in bytes.chunks(8).enumerate() {
        let mut b = [0u8; 8];
        b[..w.len()].copy_from_slice(w);
        v = v | (bit_cast::<N, 64>(bits::<64>(u64::from_le_bytes(b))) << (64 * i as u64));
    }
    v
}

#[derive(LogicBlock)]
pub struct NotifyBuilder {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub job_valid: Signal<In, Bit>,
    pub job_ready: Signal<Out, Bit>,
    /// [`NotifyKind`].
    pub job_kind: Signal<In, Bits<2>>,
    pub job_ipv6: Signal<In, Bit>,
    /// Destination and source MAC, lane order.
    pub job_dst_mac: Signal<In, Bits<48>>,
    pub job_src_mac: Signal<In, Bits<48>>,
    /// Source and destination IP, lane order, IPv4 as IPv4-mapped.
    pub job_src_ip: Signal<In, Bits<128>>,
    pub job_dst_ip: Signal<In, Bits<128>>,
    pub job_dscp: Signal<In, Bits<6>>,
    pub job_pkey: Signal<In, Bits<16>>,
    /// BTH DestQP (the QP at the sender).
    pub job_dqp: Signal<In, Bits<24>>,
    /// Long-haul body (12 bytes), lane order.
    pub job_body: Signal<In, Bits<96>>,
    /// ICMPv6 type of kind 2 (draft TBD1).
    pub job_icmp_type: Signal<In, Bits<8>>,
    /// The frames.
    pub m: AxisSource,
    templates: Vec<Constant<Bits<1024>>>,
    all_lanes: Constant<Bits<64>>,
    state: DFF<BuildState>,
    beat0: DFF<Bits<512>>,
    beat1: DFF<Bits<512>>,
    keep1: DFF<Bits<64>>,
    ipv6: DFF<Bit>,
    longhaul: DFF<Bit>,
    icmpv6: DFF<Bit>,
    csum_sent: DFF<Bit>,
    ipv4_csum: Ipv4HeaderChecksum,
    icrc_unit: FrameIcrc,
    icmpv6_csum: Icmpv6Checksum,
    // Combinational.
    standard_job: Signal<Local, Bit>,
    icmpv6_job: Signal<Local, Bit>,
    pkey_lanes: Signal<Local, Bits<16>>,
    dqp_lanes: Signal<Local, Bits<24>>,
    tos_v4: Signal<Local, Bits<8>>,
    tc_v6: Signal<Local, Bits<16>>,
    frame_v4: Signal<Local, Bits<1024>>,
    frame_v6: Signal<Local, Bits<1024>>,
    bth_v6: Signal<Local, Bits<1024>>,
    frame: Signal<Local, Bits<1024>>,
    checksum_lanes: Signal<Local, Bits<16>>,
    icmpv6_checksum_lanes: Signal<Local, Bits<16>>,
}

impl Default for NotifyBuilder {
    fn default() -> Self {
        // Index: kind * 2 + ipv6 (kind 2 over IPv4 uses index 0).
        let templates = [
            (NotifyKind::StandardCnp, false),
            (NotifyKind::StandardCnp, true),
            (NotifyKind::LonghaulRocev2, false),
            (NotifyKind::LonghaulRocev2, true),
            (NotifyKind::LonghaulIcmpv6, true),
        ]
        .iter()
        .map(|&(k, v6)| Constant::new(bytes_to_bits::<1024>(&template(k, v6))))
        .collect();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_kind: Default::default(),
            job_ipv6: Default::default(),
            job_dst_mac: Default::default(),
            job_src_mac: Default::default(),
            job_src_ip: Default::default(),
            job_dst_ip: Default::default(),
            job_dscp: Default::default(),
            job_pkey: Default::default(),
            job_dqp: Default::default(),
            job_body: Default::default(),
            job_icmp_type: Default::default(),
            m: Default::default(),
            templates,
            all_lanes: Constant::new(bits::<64>(u64::MAX)),
            state: Default::default(),
            beat0: Default::default(),
            beat1: Default::default(),
            keep1: Default::default(),
            ipv6: Default::default(),
            longhaul: Default::default(),
            icmpv6: Default::default(),
            csum_sent: Default::default(),
            ipv4_csum: Default::default(),
            icrc_unit: Default::default(),
            icmpv6_csum: Default::default(),
            standard_job: Default::default(),
            icmpv6_job: Default::default(),
            pkey_lanes: Default::default(),
            dqp_lanes: Default::default(),
            tos_v4: Default::default(),
            tc_v6: Default::default(),
            frame_v4: Default::default(),
            frame_v6: Default::default(),
            bth_v6: Default::default(),
            frame: Default::default(),
            checksum_lanes: Default::default(),
            icmpv6_checksum_lanes: Default::default(),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum BuildState {
    Idle,
    /// The IPv4 header checksum is running (RoCEv2 kinds).
    Checksum,
    /// Beat 0, then beat 1, through `FrameIcrc` (RoCEv2 kinds) or
    /// `Icmpv6Checksum` (kind 2), then its result.
    StreamBeat0,
    StreamBeat1,
    AwaitResult,
    Send0,
    Send1,
}

impl Logic for NotifyBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ipv4_csum, icrc_unit, icmpv6_csum);
        dff_setup!(self, clock, state, beat0, beat1, keep1, ipv6, longhaul, icmpv6, csum_sent);
        self.ipv4_csum.reset.next = self.reset.val();
        self.icrc_unit.reset.next = self.reset.val();
        self.icmpv6_csum.reset.next = self.reset.val();

        // Kind 2 needs IPv6; over IPv4 it builds the standard CNP.
        self.icmpv6_job.next = (self.job_kind.val() == 2) & self.job_ipv6.val();
        self.standard_job.next =
            (self.job_kind.val() == 0) | ((self.job_kind.val() == 2) & !self.job_ipv6.val());

        // The frame is composed only while a job waits in IDLE, so that a
        // simulator skips the 1024-bit work on other clocks.
        self.pkey_lanes.next = 0.into();
        self.dqp_lanes.next = 0.into();
        self.tos_v4.next = 0.into();
        self.tc_v6.next = 0.into();
        self.frame_v4.next = 0.into();
        self.frame_v6.next = 0.into();
        self.bth_v6.next = 0.into();
        self.frame.next = 0.into();
        if self.job_valid.val() & (self.state.q.val() == BuildState::Idle) {
            // Variable fields in wire order. (Narrow results in their own
            // width: Verilog widens shifts inside wide expressions.)
            self.pkey_lanes.next = (self.job_pkey.val() >> 8) | (self.job_pkey.val() << 8);
            self.dqp_lanes.next = (self.job_dqp.val() >> 16)
                | (self.job_dqp.val() & 0xFF00)
                | (self.job_dqp.val() << 16);
            self.tos_v4.next = bit_cast::<8, 6>(self.job_dscp.val()) << 2;
            self.tc_v6.next = bit_cast::<16, 4>(self.job_dscp.val().get_bits::<4>(2))
                | (bit_cast::<16, 2>(self.job_dscp.val().get_bits::<2>(0)) << 14);
            // IPv4: MACs 0..11, TOS 15, addresses 26..33, P_Key 44..45,
            // DestQP 47..49, body 54..65.
            self.frame_v4.next = bit_cast::<1024, 48>(self.job_dst_mac.val())
                | (bit_cast::<1024, 48>(self.job_src_mac.val()) << 48)
                | (bit_cast::<1024, 8>(self.tos_v4.val()) << 120)
                | (bit_cast::<1024, 32>(self.job_src_ip.val().get_bits::<32>(96)) << 208)
                | (bit_cast::<1024, 32>(self.job_dst_ip.val().get_bits::<32>(96)) << 240)
                | (bit_cast::<1024, 16>(self.pkey_lanes.val()) << 352)
                | (bit_cast::<1024, 24>(self.dqp_lanes.val()) << 376);
            // IPv6: traffic class 14..15, addresses 22..53; RoCEv2 kinds: P_Key
            // 64..65, DestQP 67..69, body 74..85; ICMPv6: type 54, body 58..69.
            self.frame_v6.next = bit_cast::<1024, 48>(self.job_dst_mac.val())
                | (bit_cast::<1024, 48>(self.job_src_mac.val()) << 48)
                | (bit_cast::<1024, 16>(self.tc_v6.val()) << 112)
                | (bit_cast::<1024, 128>(self.job_src_ip.val()) << 176)
                | (bit_cast::<1024, 128>(self.job_dst_ip.val()) << 304);
            self.bth_v6.next = (bit_cast::<1024, 16>(self.pkey_lanes.val()) << 512)
                | (bit_cast::<1024, 24>(self.dqp_lanes.val()) << 536);
            self.frame.next = self.templates[0].val() | self.frame_v4.val();
            if self.standard_job.val() {
                if self.job_ipv6.val() {
                    self.frame.next =
                        self.templates[1].val() | self.frame_v6.val() | self.bth_v6.val();
                } else {
                    self.frame.next = self.templates[0].val() | self.frame_v4.val();
                }
            } else if self.icmpv6_job.val() {
                self.frame.next = self.templates[4].val()
                    | self.frame_v6.val()
                    | (bit_cast::<1024, 8>(self.job_icmp_type.val()) << 432)
                    | (bit_cast::<1024, 96>(self.job_body.val()) << 464);
            } else if self.job_ipv6.val() {
                self.frame.next = self.templates[3].val()
                    | self.frame_v6.val()
                    | self.bth_v6.val()
                    | (bit_cast::<1024, 96>(self.job_body.val()) << 592);
            } else {
                self.frame.next = self.templates[2].val()
                    | self.frame_v4.val()
                    | (bit_cast::<1024, 96>(self.job_body.val()) << 432);
            }
        }

        // The IPv4 header (bytes 14..33) through the checksum unit.
        self.ipv4_csum.header.next = self.beat0.q.val().get_bits::<160>(112);
        self.ipv4_csum.valid.next =
            (self.state.q.val() == BuildState::Checksum) & !self.csum_sent.q.val();
        self.checksum_lanes.next =
            (self.ipv4_csum.checksum.val() >> 8) | (self.ipv4_csum.checksum.val() << 8);

        // The held beats through FrameIcrc (RoCEv2 kinds).
        self.icrc_unit.tap.tdata.next = self.beat0.q.val();
        self.icrc_unit.tap.tkeep.next = self.all_lanes.val();
        self.icrc_unit.tap.tlast.next = false;
        self.icrc_unit.tap.tvalid.next = false;
        self.icrc_unit.tap.tready.next = true;

        // Or through Icmpv6Checksum (kind 2): the message starts at lane
        // 54, right after the IPv6 header; the pseudo-header's addresses
        // are those in beat 0 (bytes 22..37 and 38..53).
        self.icmpv6_csum.data.next = self.beat0.q.val();
        self.icmpv6_csum.keep.next = self.all_lanes.val();
        self.icmpv6_csum.valid.next = false;
        self.icmpv6_csum.first.next = false;
        self.icmpv6_csum.last.next = false;
        self.icmpv6_csum.start_lane.next = 54.into();
        self.icmpv6_csum.src_ip.next = self.beat0.q.val().get_bits::<128>(176);
        self.icmpv6_csum.dst_ip.next = self.beat0.q.val().get_bits::<128>(304);
        self.icmpv6_checksum_lanes.next =
            (self.icmpv6_csum.checksum.val() >> 8) | (self.icmpv6_csum.checksum.val() << 8);

        self.m.tdata.next = self.beat0.q.val();
        self.m.tkeep.next = self.all_lanes.val();
        self.m.tlast.next = false;
        self.m.tuser.next = false;
        self.m.tvalid.next = false;
        self.job_ready.next = false;

        match self.state.q.val() {
            BuildState::Idle => {
                self.job_ready.next = true;
                if self.job_valid.val() {
                    self.beat0.d.next = self.frame.val().get_bits::<512>(0);
                    self.beat1.d.next = self.frame.val().get_bits::<512>(512);
                    self.ipv6.d.next = self.job_ipv6.val();
                    self.longhaul.d.next = !self.standard_job.val() & !self.icmpv6_job.val();
                    self.icmpv6.d.next = self.icmpv6_job.val();
                    // Lanes of beat 1: frame length - 64.
                    if self.standard_job.val() {
                        if self.job_ipv6.val() {
                            self.keep1.d.next = 0x3FFF_FFFF.into();
                        } else {
                            self.keep1.d.next = 0x3FF.into();
                        }
                    } else if self.job_ipv6.val() & !self.icmpv6_job.val() {
                        self.keep1.d.next = 0x3FF_FFFF.into();
                    } else {
                        self.keep1.d.next = 0x3F.into();
                    }
                    self.csum_sent.d.next = false;
                    // ICMPv6 has no IPv4 header checksum.
                    if self.icmpv6_job.val() {
                        self.state.d.next = BuildState::StreamBeat0;
                    } else {
                        self.state.d.next = BuildState::Checksum;
                    }
                }
            }
            BuildState::Checksum => {
                self.csum_sent.d.next = true;
                if self.ipv4_csum.checksum_valid.val() {
                    if !self.ipv6.q.val() {
                        self.beat0.d.next = self.beat0.q.val()
                            | (bit_cast::<512, 16>(self.checksum_lanes.val()) << 192);
                    }
                    self.state.d.next = BuildState::StreamBeat0;
                }
            }
            BuildState::StreamBeat0 => {
                self.icrc_unit.tap.tvalid.next = !self.icmpv6.q.val();
                self.icmpv6_csum.valid.next = self.icmpv6.q.val();
                self.icmpv6_csum.first.next = true;
                self.state.d.next = BuildState::StreamBeat1;
            }
            BuildState::StreamBeat1 => {
                self.icrc_unit.tap.tdata.next = self.beat1.q.val();
                self.icrc_unit.tap.tkeep.next = self.keep1.q.val();
                self.icrc_unit.tap.tlast.next = true;
                self.icrc_unit.tap.tvalid.next = !self.icmpv6.q.val();
                self.icmpv6_csum.data.next = self.beat1.q.val();
                self.icmpv6_csum.keep.next = self.keep1.q.val();
                self.icmpv6_csum.valid.next = self.icmpv6.q.val();
                self.icmpv6_csum.last.next = true;
                self.state.d.next = BuildState::AwaitResult;
            }
            BuildState::AwaitResult => {
                if self.icmpv6.q.val() {
                    // The ICMPv6 checksum: frame bytes 56..57.
                    if self.icmpv6_csum.checksum_valid.val() {
                        self.beat0.d.next = self.beat0.q.val()
                            | (bit_cast::<512, 16>(self.icmpv6_checksum_lanes.val()) << 448);
                        self.state.d.next = BuildState::Send0;
                    }
                } else if self.icrc_unit.icrc_valid.val() {
                    // The ICRC's lanes in beat 1: frame length - 68.
                    if self.longhaul.q.val() {
                        if self.ipv6.q.val() {
                            self.beat1.d.next = self.beat1.q.val()
                                | (bit_cast::<512, 32>(self.icrc_unit.icrc.val()) << 176);
                        } else {
                            self.beat1.d.next = self.beat1.q.val()
                                | (bit_cast::<512, 32>(self.icrc_unit.icrc.val()) << 16);
                        }
                    } else if self.ipv6.q.val() {
                        self.beat1.d.next = self.beat1.q.val()
                            | (bit_cast::<512, 32>(self.icrc_unit.icrc.val()) << 208);
                    } else {
                        self.beat1.d.next = self.beat1.q.val()
                            | (bit_cast::<512, 32>(self.icrc_unit.icrc.val()) << 48);
                    }
                    self.state.d.next = BuildState::Send0;
                }
            }
            BuildState::Send0 => {
                self.m.tvalid.next = true;
                if self.m.tready.val() {
                    self.state.d.next = BuildState::Send1;
                }
            }
            BuildState::Send1 => {
                self.m.tdata.next = self.beat1.q.val();
                self.m.tkeep.next = self.keep1.q.val();
                self.m.tlast.next = true;
                self.m.tvalid.next = true;
                if self.m.tready.val() {
                    self.state.d.next = BuildState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = BuildState::Idle;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_notify_builder_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<NotifyBuilder>("notify_builder");
    }

    #[test]
    fn lh_12_templates_have_the_documented_lengths_and_fixed_fields() {
        let t = template(NotifyKind::LonghaulRocev2, false);
        assert_eq!(&t[12..14], &[0x08, 0x00]);
        assert_eq!(t[42], 0x81, "BTH opcode CNP");
        assert_eq!(t[43], 0x00);
        assert_eq!(t[46], 0x40 | 0x20, "BECN and the E bit");
        let t = template(NotifyKind::StandardCnp, true);
        assert_eq!(&t[12..14], &[0x86, 0xDD]);
        assert_eq!(t[62], 0x81);
        assert_eq!(t[66], 0x40, "BECN, no E bit");
    }

    #[test]
    fn lh_13_icmpv6_template_has_the_documented_layout() {
        let t = template(NotifyKind::LonghaulIcmpv6, true);
        assert_eq!(
            t.len(),
            70,
            "no padding: the 16-byte message is 4-byte aligned"
        );
        assert_eq!(&t[12..14], &[0x86, 0xDD]);
        assert_eq!(&t[18..20], &[0, 16], "payload length = ICMPv6 message");
        assert_eq!(t[20], 58, "next header ICMPv6");
        assert_eq!(t[21], 64, "hop limit");
        assert!(
            t[54..].iter().all(|&b| b == 0),
            "type, code, checksum, body"
        );
        // Kind 2 over IPv4 (a caller error) builds the standard CNP.
        assert_eq!(
            template(NotifyKind::LonghaulIcmpv6, false),
            template(NotifyKind::StandardCnp, false)
        );
    }
}
