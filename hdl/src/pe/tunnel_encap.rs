//! `TunnelEncap`: the ingress PE's tunnel encapsulation (FCN-02, PE-01):
//! puts each RoCEv2 frame from the data centre into a VXLAN-over-IPv6 or an
//! SRv6 tunnel toward the WAN, at line rate, with the outer IPv6 flow label
//! of its flow and the outer ECN field of RFC 6040.
//!
//! ```text
//!                 +--------------------------------------+     +--------------+
//!  s.*       ---->| first beat: inner Ethernet/802.1Q,   |     |              |
//!  cmd_valid ---->|   IPv4/IPv6 lengths, DSCP, ECN;      | r.* | HeaderSplice |---> m.*
//!  cmd_ready <----|   outer header composed (tun_*),     |---->|  header in,  |
//!  cmd_encap ---->|   MTU check                          | cmd | drop 0/14/18 |
//!  cmd_label ---->| every beat: cut at the IP length     |---->|              |
//!  tun_*     ---->|   (padding trimmed), short frames    |     +--------------+
//!                 |   flagged; dropped frames discarded  |---> encapsulated, passed,
//!                 +--------------------------------------+     dropped_not_ip, dropped_mtu,
//!                       (one register stage, r)                trimmed, truncated (pulses)
//! ```
//!
//! **Command.** Each frame comes with a command (`cmd_encap`, `cmd_label`
//! and the tunnel inputs `tun_*`), transferred in the clock its first beat
//! is taken, with HeaderSplice's handshake: while the block waits for a
//! first beat, `s.tready` is high only if `cmd_valid` is, and `cmd_ready`
//! only if `s.tvalid` is. The tunnel inputs are sampled with the command,
//! so the gateway may drive them from a table of tunnels chosen per frame.
//!
//! **What leaves.** `cmd_encap` 0: the frame, unchanged (`passed`).
//! `cmd_encap` 1 and an IP frame the block can size (below): the frame
//! encapsulated (`encapsulated`):
//! - VXLAN (`tun_srv6` 0; RFC 7348 over IPv6): outer Ethernet (`tun_dst_mac`,
//!   `tun_src_mac`, EtherType 0x86DD), IPv6 (next header 17, source
//!   `tun_src_ipv6`, destination `tun_remote_ipv6`), UDP (source port
//!   `(tun_udp_base & !tun_udp_mask) | (cmd_label & tun_udp_mask)`, the low
//!   16 label bits: per-flow entropy for ECMP as RFC 7348 section 5 asks;
//!   destination 4789; checksum 0), VXLAN (I flag, `tun_vni`), then the
//!   inner Ethernet frame (802.1Q tag included) untouched: 70 bytes added.
//!   UDP checksum 0 over IPv6 is allowed for tunnels by RFC 6935/6936 (the
//!   inner frame's own checksums and the RoCEv2 ICRC protect the payload);
//!   the packet crate builds it with `UdpChecksum::Zero`, and a computed
//!   checksum would need the whole frame before its first beat leaves.
//! - SRv6 (`tun_srv6` 1; RFC 8986 H.Encaps, L3 service): the inner Ethernet
//!   header (and its 802.1Q tag) removed and replaced by outer Ethernet,
//!   IPv6 (next header 43, destination the first SID `tun_sid0`) and an SRH
//!   (next header 4 for an IPv4 inner packet, 41 for IPv6) for the path
//!   `[tun_sid0]` or, with `tun_two_sids`, `[tun_sid0, tun_sid1]`, laid out
//!   as `cngw_packet::srh::SegmentRoutingHeader::for_path`: 78 or 94 bytes
//!   in place of 14 (18 with a tag).
//!
//! In both, the outer IPv6 header has the flow label `cmd_label`
//! (draft-he-fcn-in-wan section 4.1), hop limit `tun_hop_limit`, DSCP
//! copied from the inner header (the uniform model of RFC 2983: the WAN
//! sees the data centre's class) and the ECN field of RFC 6040 section 4.1
//! (`cngw_model::tunnel_ecn::encapsulate`): the inner one in normal mode,
//! Not-ECT with `tun_compat` (compatibility mode). The inner frame is not
//! changed (its ECN, TTL, checksums and ICRC stay).
//!
//! **Lengths.** The outer IPv6 payload length and the UDP length leave in
//! the first beat, so they come from the inner IP header, which lies in
//! the first beat: the inner frame is `L2 + IP length` bytes, with L2 = 14
//! (18 behind one 802.1Q tag, TPID 0x8100) and the IP length the IPv4
//! total length or 40 + the IPv6 payload length. An IP frame the block
//! can size is: EtherType 0x0800 with IP version 4 and total length >= 20,
//! or 0x86DD with version 6, and the first beat holding the IP header's
//! first six bytes. Any other frame with `cmd_encap` 1 (ARP, QinQ, a runt,
//! a version that does not match) is taken and dropped (`dropped_not_ip`):
//! its length is unknown and an L2 frame of the data centre has no place
//! in the WAN. A frame whose outer IP packet (40 + payload length) would
//! exceed `tun_mtu` is taken and dropped (`dropped_mtu`): the PE does not
//! fragment; the endpoints' RoCE path MTU has to fit the tunnel.
//! - Longer than `L2 + IP length` (Ethernet padding of a short packet, or
//!   any trailer): cut to exactly that (`trimmed`). The cut beat waits for
//!   the rest of the input frame, which is taken and discarded, so the
//!   output's `tuser` is the input's last `tuser`.
//! - Shorter (truncated): the bytes there are sent, with `tuser` (error)
//!   on the last beat (`truncated`); the MAC ends such a frame as bad, and
//!   the outer lengths it carries are the IP header's.
//!
//! The pulses are high for one clock, the clock after the beat that
//! decides them is taken (`encapsulated`, `passed`, `dropped_*` with the
//! first beat; `trimmed` with the beat cut; `truncated` with the last).
//! `empty_dropped` is HeaderSplice's and never rises here (every frame
//! sent has a header or at least one byte); it is an output so a test can
//! watch it.
//!
//! **Latency, throughput.** A beat taken at clock t is in `r` at t+1, and
//! HeaderSplice (latency 2) sends its first output beat at t+3. One input
//! beat per clock, except in the clocks HeaderSplice sends a beat with no
//! input beat of its own (the header's extra beat: VXLAN, and SRv6 with
//! 78 - 14 or 94 bytes, add one; SRv6 78 - 18 adds none unless the frame
//! ends with a flush beat). Back to back without backpressure the output
//! carries one beat per clock with no bubble: clocks = output beats + 3.
//! A frame dropped or beats cut off cost one clock per input beat.
//! `s.tready` and `cmd_ready` depend on registers, `cmd_valid`, `s.tvalid`
//! and HeaderSplice's `s.tready` (its registers): never on `m.tready`.
//! `reset` (synchronous) drops the frame in progress.
//!
//! Issue 5: the ingress PE data path.

use crate::stream::{AxisSink, AxisSource, HeaderSplice};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct TunnelEncap {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Frames from the data centre.
    pub s: AxisSink,
    /// Frames to the WAN.
    pub m: AxisSource,
    /// The command of the frame whose first beat is offered (see above).
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    /// 1: encapsulate; 0: forward unchanged.
    pub cmd_encap: Signal<In, Bit>,
    /// The outer IPv6 flow label of the frame's flow.
    pub cmd_label: Signal<In, Bits<20>>,
    /// The tunnel, sampled with the command. 0: VXLAN, 1: SRv6.
    pub tun_srv6: Signal<In, Bit>,
    /// Outer MAC addresses, lane order (address byte 0 at bits 7..0).
    pub tun_dst_mac: Signal<In, Bits<48>>,
    pub tun_src_mac: Signal<In, Bits<48>>,
    /// This PE's IPv6 address (outer source), lane order.
    pub tun_src_ipv6: Signal<In, Bits<128>>,
    /// VXLAN: the remote PE's IPv6 address (outer destination), lane order.
    pub tun_remote_ipv6: Signal<In, Bits<128>>,
    /// VXLAN network identifier (a number).
    pub tun_vni: Signal<In, Bits<24>>,
    /// VXLAN UDP source port: base bits outside the mask, label bits inside.
    pub tun_udp_base: Signal<In, Bits<16>>,
    pub tun_udp_mask: Signal<In, Bits<16>>,
    pub tun_hop_limit: Signal<In, Bits<8>>,
    /// SRv6 path in visiting order, lane order: `tun_sid0` is the outer
    /// destination; `tun_sid1` follows it with `tun_two_sids`.
    pub tun_sid0: Signal<In, Bits<128>>,
    pub tun_sid1: Signal<In, Bits<128>>,
    pub tun_two_sids: Signal<In, Bit>,
    /// RFC 6040 compatibility mode (outer Not-ECT); 0: normal mode.
    pub tun_compat: Signal<In, Bit>,
    /// Largest outer IP packet in bytes (40 + IPv6 payload length).
    pub tun_mtu: Signal<In, Bits<16>>,
    /// One-clock pulses (see above).
    pub encapsulated: Signal<Out, Bit>,
    pub passed: Signal<Out, Bit>,
    pub dropped_not_ip: Signal<Out, Bit>,
    pub dropped_mtu: Signal<Out, Bit>,
    pub trimmed: Signal<Out, Bit>,
    pub truncated: Signal<Out, Bit>,
    pub empty_dropped: Signal<Out, Bit>,
    splice: HeaderSplice,
    ones64: Constant<Bits<64>>,
    // The input frame in progress.
    /// Beats of a frame were taken but not its last.
    mid: DFF<Bit>,
    in_encap: DFF<Bit>,
    in_discard: DFF<Bit>,
    /// The frame was cut; its remaining beats are discarded.
    in_skip: DFF<Bit>,
    /// Bytes of the inner frame still to carry, from the next beat on.
    in_rem: DFF<Bits<18>>,
    // The register stage r, HeaderSplice's input.
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<512>>,
    r_keep: DFF<Bits<64>>,
    r_last: DFF<Bit>,
    r_user: DFF<Bit>,
    r_first: DFF<Bit>,
    /// r holds a cut beat waiting for the input frame's last beat.
    r_wait: DFF<Bit>,
    r_hdr: DFF<Bits<1024>>,
    r_hlen: DFF<Bits<8>>,
    r_hdrop: DFF<Bits<8>>,
    // Pulses.
    p_encap: DFF<Bit>,
    p_pass: DFF<Bit>,
    p_not_ip: DFF<Bit>,
    p_mtu: DFF<Bit>,
    p_trim: DFF<Bit>,
    p_trunc: DFF<Bit>,
    // Combinational: the first beat.
    vlan: Signal<Local, Bit>,
    ethertype: Signal<Local, Bits<16>>,
    /// The inner IP header's bytes 0..5, lane order.
    l3: Signal<Local, Bits<48>>,
    l3_present: Signal<Local, Bit>,
    l2_len: Signal<Local, Bits<18>>,
    total4: Signal<Local, Bits<18>>,
    pay6: Signal<Local, Bits<18>>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    ip_len: Signal<Local, Bits<18>>,
    keep_len: Signal<Local, Bits<18>>,
    payload: Signal<Local, Bits<18>>,
    outer_len: Signal<Local, Bits<18>>,
    mtu_bad: Signal<Local, Bit>,
    inner_dscp: Signal<Local, Bits<6>>,
    inner_ecn: Signal<Local, Bits<2>>,
    outer_ecn: Signal<Local, Bits<2>>,
    tclass: Signal<Local, Bits<8>>,
    b14: Signal<Local, Bits<8>>,
    b15: Signal<Local, Bits<8>>,
    v6_word0: Signal<Local, Bits<32>>,
    plen_lanes: Signal<Local, Bits<16>>,
    outer_nh: Signal<Local, Bits<8>>,
    v6_word1: Signal<Local, Bits<32>>,
    outer_dst: Signal<Local, Bits<128>>,
    common: Signal<Local, Bits<1024>>,
    udp_sport: Signal<Local, Bits<16>>,
    sport_lanes: Signal<Local, Bits<16>>,
    vni_lanes: Signal<Local, Bits<24>>,
    vx_lo: Signal<Local, Bits<64>>,
    vx_hi: Signal<Local, Bits<64>>,
    srh_nh: Signal<Local, Bits<8>>,
    srh_len: Signal<Local, Bits<8>>,
    srh_sl: Signal<Local, Bits<8>>,
    srh_word: Signal<Local, Bits<64>>,
    seg_last: Signal<Local, Bits<128>>,
    tail: Signal<Local, Bits<1024>>,
    hlen_new: Signal<Local, Bits<8>>,
    cls_ip: Signal<Local, Bit>,
    cls_encap: Signal<Local, Bit>,
    cls_not_ip: Signal<Local, Bit>,
    cls_mtu: Signal<Local, Bit>,
    // Combinational: every beat.
    first: Signal<Local, Bit>,
    base_ready: Signal<Local, Bit>,
    r_leave: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    encap_now: Signal<Local, Bit>,
    discard_now: Signal<Local, Bit>,
    rem: Signal<Local, Bits<18>>,
    rem_small: Signal<Local, Bit>,
    lane_mask: Signal<Local, Bits<64>>,
    cut: Signal<Local, Bit>,
    short: Signal<Local, Bit>,
    beyond: Signal<Local, Bit>,
}

impl Default for TunnelEncap {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_encap: Default::default(),
            cmd_label: Default::default(),
            tun_srv6: Default::default(),
            tun_dst_mac: Default::default(),
            tun_src_mac: Default::default(),
            tun_src_ipv6: Default::default(),
            tun_remote_ipv6: Default::default(),
            tun_vni: Default::default(),
            tun_udp_base: Default::default(),
            tun_udp_mask: Default::default(),
            tun_hop_limit: Default::default(),
            tun_sid0: Default::default(),
            tun_sid1: Default::default(),
            tun_two_sids: Default::default(),
            tun_compat: Default::default(),
            tun_mtu: Default::default(),
            encapsulated: Default::default(),
            passed: Default::default(),
            dropped_not_ip: Default::default(),
            dropped_mtu: Default::default(),
            trimmed: Default::default(),
            truncated: Default::default(),
            empty_dropped: Default::default(),
            splice: Default::default(),
            ones64: Constant::new(!Bits::<64>::default()),
            mid: Default::default(),
            in_encap: Default::default(),
            in_discard: Default::default(),
            in_skip: Default::default(),
            in_rem: Default::default(),
            r_valid: Default::default(),
            r_data: Default::default(),
            r_keep: Default::default(),
            r_last: Default::default(),
            r_user: Default::default(),
            r_first: Default::default(),
            r_wait: Default::default(),
            r_hdr: Default::default(),
            r_hlen: Default::default(),
            r_hdrop: Default::default(),
            p_encap: Default::default(),
            p_pass: Default::default(),
            p_not_ip: Default::default(),
            p_mtu: Default::default(),
            p_trim: Default::default(),
            p_trunc: Default::default(),
            vlan: Default::default(),
            ethertype: Default::default(),
            l3: Default::default(),
            l3_present: Default::default(),
            l2_len: Default::default(),
            total4: Default::default(),
            pay6: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            ip_len: Default::default(),
            keep_len: Default::default(),
            payload: Default::default(),
            outer_len: Default::default(),
            mtu_bad: Default::default(),
            inner_dscp: Default::default(),
            inner_ecn: Default::default(),
            outer_ecn: Default::default(),
            tclass: Default::default(),
            b14: Default::default(),
            b15: Default::default(),
            v6_word0: Default::default(),
            plen_lanes: Default::default(),
            outer_nh: Default::default(),
            v6_word1: Default::default(),
            outer_dst: Default::default(),
            common: Default::default(),
            udp_sport: Default::default(),
            sport_lanes: Default::default(),
            vni_lanes: Default::default(),
            vx_lo: Default::default(),
            vx_hi: Default::default(),
            srh_nh: Default::default(),
            srh_len: Default::default(),
            srh_sl: Default::default(),
            srh_word: Default::default(),
            seg_last: Default::default(),
            tail: Default::default(),
            hlen_new: Default::default(),
            cls_ip: Default::default(),
            cls_encap: Default::default(),
            cls_not_ip: Default::default(),
            cls_mtu: Default::default(),
            first: Default::default(),
            base_ready: Default::default(),
            r_leave: Default::default(),
            take: Default::default(),
            encap_now: Default::default(),
            discard_now: Default::default(),
            rem: Default::default(),
            rem_small: Default::default(),
            lane_mask: Default::default(),
            cut: Default::default(),
            short: Default::default(),
            beyond: Default::default(),
        }
    }
}

impl Logic for TunnelEncap {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, splice);
        dff_setup!(
            self, clock, mid, in_encap, in_discard, in_skip, in_rem, r_valid, r_data, r_keep,
            r_last, r_user, r_first, r_wait, r_hdr, r_hlen, r_hdrop, p_encap, p_pass, p_not_ip,
            p_mtu, p_trim, p_trunc
        );
        self.splice.reset.next = self.reset.val();

        // HeaderSplice takes r; its output is the block's.
        self.splice.s.tdata.next = self.r_data.q.val();
        self.splice.s.tkeep.next = self.r_keep.q.val();
        self.splice.s.tlast.next = self.r_last.q.val();
        self.splice.s.tuser.next = self.r_user.q.val();
        self.splice.s.tvalid.next = self.r_valid.q.val() & !self.r_wait.q.val();
        self.splice.cmd_valid.next =
            self.r_valid.q.val() & !self.r_wait.q.val() & self.r_first.q.val();
        self.splice.cmd_header.next = self.r_hdr.q.val();
        self.splice.cmd_header_len.next = self.r_hlen.q.val();
        self.splice.cmd_drop.next = self.r_hdrop.q.val();
        self.m.tdata.next = self.splice.m.tdata.val();
        self.m.tkeep.next = self.splice.m.tkeep.val();
        self.m.tlast.next = self.splice.m.tlast.val();
        self.m.tuser.next = self.splice.m.tuser.val();
        self.m.tvalid.next = self.splice.m.tvalid.val();
        self.splice.m.tready.next = self.m.tready.val();
        self.empty_dropped.next = self.splice.empty_dropped.val();
        self.encapsulated.next = self.p_encap.q.val();
        self.passed.next = self.p_pass.q.val();
        self.dropped_not_ip.next = self.p_not_ip.q.val();
        self.dropped_mtu.next = self.p_mtu.q.val();
        self.trimmed.next = self.p_trim.q.val();
        self.truncated.next = self.p_trunc.q.val();

        // The handshake: r is free, leaving, or holds a cut beat while the
        // rest of its frame is discarded.
        // (A first beat leaves with its command.)
        self.r_leave.next =
            self.r_valid.q.val() & !self.r_wait.q.val() & self.splice.s.tready.val();
        if self.r_first.q.val() {
            self.r_leave.next =
                self.r_valid.q.val() & !self.r_wait.q.val() & self.splice.cmd_ready.val();
        }
        self.base_ready.next = !self.r_valid.q.val() | self.r_leave.val() | self.r_wait.q.val();
        self.first.next = !self.mid.q.val();
        self.s.tready.next = self.base_ready.val() & (self.mid.q.val() | self.cmd_valid.val());
        self.cmd_ready.next = self.base_ready.val() & self.first.val() & self.s.tvalid.val();
        self.take.next = self.s.tvalid.val() & self.s.tready.val();

        // The inner frame: L2 header, IP header bytes 0..5.
        self.vlan.next = (self.s.tdata.val().get_bits::<8>(96) == 0x81)
            & (self.s.tdata.val().get_bits::<8>(104) == 0x00);
        if self.vlan.val() {
            self.ethertype.next = (bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(128)) << 8)
                | bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(136));
            self.l3.next = self.s.tdata.val().get_bits::<48>(144);
            self.l3_present.next = self.s.tkeep.val().get_bit(23);
            self.l2_len.next = 18.into();
        } else {
            self.ethertype.next = (bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(96)) << 8)
                | bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(104));
            self.l3.next = self.s.tdata.val().get_bits::<48>(112);
            self.l3_present.next = self.s.tkeep.val().get_bit(19);
            self.l2_len.next = 14.into();
        }
        self.total4.next = (bit_cast::<18, 8>(self.l3.val().get_bits::<8>(16)) << 8)
            | bit_cast::<18, 8>(self.l3.val().get_bits::<8>(24));
        self.pay6.next = (bit_cast::<18, 8>(self.l3.val().get_bits::<8>(32)) << 8)
            | bit_cast::<18, 8>(self.l3.val().get_bits::<8>(40));
        self.is_v4.next = (self.ethertype.val() == 0x0800)
            & (self.l3.val().get_bits::<4>(4) == 4)
            & (self.total4.val() >= 20)
            & self.l3_present.val();
        self.is_v6.next = (self.ethertype.val() == 0x86dd)
            & (self.l3.val().get_bits::<4>(4) == 6)
            & self.l3_present.val();
        // IPv4 TOS: DSCP bits 7..2, ECN 1..0 of byte 1. IPv6 traffic
        // class: bits 3..0 of byte 0, then bits 7..4 of byte 1.
        if self.is_v6.val() {
            self.ip_len.next = self.pay6.val() + 40;
            self.inner_dscp.next = (bit_cast::<6, 4>(self.l3.val().get_bits::<4>(0)) << 2)
                | bit_cast::<6, 2>(self.l3.val().get_bits::<2>(14));
            self.inner_ecn.next = self.l3.val().get_bits::<2>(12);
        } else {
            self.ip_len.next = self.total4.val();
            self.inner_dscp.next = self.l3.val().get_bits::<6>(10);
            self.inner_ecn.next = self.l3.val().get_bits::<2>(8);
        }
        self.keep_len.next = self.l2_len.val() + self.ip_len.val();
        // Outer payload: UDP 8 + VXLAN 8 + the inner frame, or the SRH
        // (8 + 16 per SID) + the inner IP packet.
        self.payload.next = self.keep_len.val() + 16;
        self.srh_len.next = 2.into();
        self.srh_sl.next = 0.into();
        self.hlen_new.next = 70.into();
        if self.tun_srv6.val() {
            self.payload.next = self.ip_len.val() + 24;
            self.hlen_new.next = 78.into();
            if self.tun_two_sids.val() {
                self.payload.next = self.ip_len.val() + 40;
                self.srh_len.next = 4.into();
                self.srh_sl.next = 1.into();
                self.hlen_new.next = 94.into();
            }
        }
        self.outer_len.next = self.payload.val() + 40;
        self.mtu_bad.next = self.outer_len.val() > bit_cast::<18, 16>(self.tun_mtu.val());
        self.cls_ip.next = self.is_v4.val() | self.is_v6.val();
        self.cls_encap.next = self.cmd_encap.val() & self.cls_ip.val() & !self.mtu_bad.val();
        self.cls_not_ip.next = self.cmd_encap.val() & !self.cls_ip.val();
        self.cls_mtu.next = self.cmd_encap.val() & self.cls_ip.val() & self.mtu_bad.val();

        // The outer header, lane order. Multi-byte numbers are swapped into
        // lane order in signals of their own width first.
        self.outer_ecn.next = self.inner_ecn.val();
        if self.tun_compat.val() {
            self.outer_ecn.next = 0.into();
        }
        self.tclass.next =
            (bit_cast::<8, 6>(self.inner_dscp.val()) << 2) | bit_cast::<8, 2>(self.outer_ecn.val());
        self.b14.next = (self.tclass.val() >> 4) | 0x60;
        self.b15.next =
            (self.tclass.val() << 4) | bit_cast::<8, 4>(self.cmd_label.val().get_bits::<4>(16));
        self.v6_word0.next = bit_cast::<32, 8>(self.b14.val())
            | (bit_cast::<32, 8>(self.b15.val()) << 8)
            | (bit_cast::<32, 8>(self.cmd_label.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.cmd_label.val().get_bits::<8>(0)) << 24);
        self.plen_lanes.next = (bit_cast::<16, 8>(self.payload.val().get_bits::<8>(0)) << 8)
            | bit_cast::<16, 8>(self.payload.val().get_bits::<8>(8));
        self.outer_nh.next = 17.into();
        self.outer_dst.next = self.tun_remote_ipv6.val();
        if self.tun_srv6.val() {
            self.outer_nh.next = 43.into();
            self.outer_dst.next = self.tun_sid0.val();
        }
        self.v6_word1.next = bit_cast::<32, 16>(self.plen_lanes.val())
            | (bit_cast::<32, 8>(self.outer_nh.val()) << 16)
            | (bit_cast::<32, 8>(self.tun_hop_limit.val()) << 24);
        // Bytes 0..53: Ethernet, IPv6.
        self.common.next = bit_cast::<1024, 48>(self.tun_dst_mac.val())
            | (bit_cast::<1024, 48>(self.tun_src_mac.val()) << 48)
            | (bits::<1024>(0xdd86) << 96)
            | (bit_cast::<1024, 32>(self.v6_word0.val()) << 112)
            | (bit_cast::<1024, 32>(self.v6_word1.val()) << 144)
            | (bit_cast::<1024, 128>(self.tun_src_ipv6.val()) << 176)
            | (bit_cast::<1024, 128>(self.outer_dst.val()) << 304);
        // VXLAN, bytes 54..69: UDP (length = the IPv6 payload length),
        // flags 0x08, VNI.
        self.udp_sport.next = (self.tun_udp_base.val() & !self.tun_udp_mask.val())
            | (self.cmd_label.val().get_bits::<16>(0) & self.tun_udp_mask.val());
        self.sport_lanes.next = (bit_cast::<16, 8>(self.udp_sport.val().get_bits::<8>(0)) << 8)
            | bit_cast::<16, 8>(self.udp_sport.val().get_bits::<8>(8));
        self.vni_lanes.next = bit_cast::<24, 8>(self.tun_vni.val().get_bits::<8>(16))
            | (bit_cast::<24, 8>(self.tun_vni.val().get_bits::<8>(8)) << 8)
            | (bit_cast::<24, 8>(self.tun_vni.val().get_bits::<8>(0)) << 16);
        self.vx_lo.next = bit_cast::<64, 16>(self.sport_lanes.val())
            | (bits::<64>(0xb512) << 16)
            | (bit_cast::<64, 16>(self.plen_lanes.val()) << 32);
        self.vx_hi.next = bits::<64>(0x08) | (bit_cast::<64, 24>(self.vni_lanes.val()) << 32);
        // SRv6, bytes 54..93: SRH (next header, length, type 4, Segments
        // Left = Last Entry = SIDs - 1), Segment List[0] = the last SID,
        // Segment List[1] = tun_sid0.
        self.srh_nh.next = 4.into();
        if self.is_v6.val() {
            self.srh_nh.next = 41.into();
        }
        self.srh_word.next = bit_cast::<64, 8>(self.srh_nh.val())
            | (bit_cast::<64, 8>(self.srh_len.val()) << 8)
            | (bits::<64>(4) << 16)
            | (bit_cast::<64, 8>(self.srh_sl.val()) << 24)
            | (bit_cast::<64, 8>(self.srh_sl.val()) << 32);
        self.seg_last.next = self.tun_sid0.val();
        if self.tun_two_sids.val() {
            self.seg_last.next = self.tun_sid1.val();
        }
        self.tail.next = (bit_cast::<1024, 64>(self.vx_lo.val()) << 432)
            | (bit_cast::<1024, 64>(self.vx_hi.val()) << 496);
        if self.tun_srv6.val() {
            self.tail.next = (bit_cast::<1024, 64>(self.srh_word.val()) << 432)
                | (bit_cast::<1024, 128>(self.seg_last.val()) << 496)
                | (bit_cast::<1024, 128>(self.tun_sid0.val()) << 624);
        }

        // Every beat: the frame's mode, and the cut at the IP length.
        self.encap_now.next = self.in_encap.q.val() & !self.in_skip.q.val();
        self.discard_now.next = self.in_discard.q.val() | self.in_skip.q.val();
        self.rem.next = self.in_rem.q.val();
        if self.first.val() {
            self.encap_now.next = self.cls_encap.val();
            self.discard_now.next = self.cls_not_ip.val() | self.cls_mtu.val();
            self.rem.next = self.keep_len.val();
        }
        self.rem_small.next = self.rem.val() <= 64;
        self.lane_mask.next = !(self.ones64.val() << self.rem.val().get_bits::<6>(0));
        if self.rem.val().get_bits::<6>(0) == 0 {
            self.lane_mask.next = self.ones64.val();
        }
        self.cut.next = self.encap_now.val() & self.rem_small.val();
        self.short.next = self.encap_now.val()
            & self.s.tlast.val()
            & (!self.rem_small.val()
                | ((self.s.tkeep.val() & self.lane_mask.val()) != self.lane_mask.val()));
        self.beyond.next = self.cut.val()
            & (!self.s.tlast.val() | (self.s.tkeep.val() & !self.lane_mask.val()).any());

        // State.
        self.p_encap.d.next = false;
        self.p_pass.d.next = false;
        self.p_not_ip.d.next = false;
        self.p_mtu.d.next = false;
        self.p_trim.d.next = false;
        self.p_trunc.d.next = false;
        if self.r_leave.val() {
            self.r_valid.d.next = false;
        }
        if self.take.val() {
            self.mid.d.next = !self.s.tlast.val();
            self.in_rem.d.next = self.rem.val() - 64;
            if self.first.val() {
                self.in_encap.d.next = self.cls_encap.val();
                self.in_discard.d.next = self.cls_not_ip.val() | self.cls_mtu.val();
                self.in_skip.d.next = false;
                self.p_encap.d.next = self.cls_encap.val();
                self.p_pass.d.next = !self.cmd_encap.val();
                self.p_not_ip.d.next = self.cls_not_ip.val();
                self.p_mtu.d.next = self.cls_mtu.val();
                self.r_hdr.d.next = self.common.val() | self.tail.val();
                self.r_hlen.d.next = 0.into();
                self.r_hdrop.d.next = 0.into();
                if self.cls_encap.val() {
                    self.r_hlen.d.next = self.hlen_new.val();
                    if self.tun_srv6.val() {
                        self.r_hdrop.d.next = self.l2_len.val().get_bits::<8>(0);
                    }
                }
            }
            if self.cut.val() & !self.s.tlast.val() {
                self.in_skip.d.next = true;
            }
            self.p_trim.d.next = self.beyond.val();
            self.p_trunc.d.next = self.short.val();
            if self.discard_now.val() {
                // A discarded beat; the last one releases a waiting cut beat.
                if self.r_wait.q.val() & self.s.tlast.val() {
                    self.r_wait.d.next = false;
                    self.r_user.d.next = self.r_user.q.val() | self.s.tuser.val();
                }
            } else {
                self.r_valid.d.next = true;
                self.r_data.d.next = self.s.tdata.val();
                self.r_keep.d.next = self.s.tkeep.val();
                self.r_last.d.next = self.s.tlast.val();
                self.r_user.d.next = (self.s.tlast.val() & self.s.tuser.val()) | self.short.val();
                self.r_first.d.next = self.first.val();
                self.r_wait.d.next = false;
                if self.cut.val() {
                    self.r_keep.d.next = self.s.tkeep.val() & self.lane_mask.val();
                    self.r_last.d.next = true;
                    self.r_wait.d.next = !self.s.tlast.val();
                }
            }
        }
        if self.reset.val() {
            self.mid.d.next = false;
            self.r_valid.d.next = false;
            self.r_wait.d.next = false;
            self.in_skip.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcn_02_tunnel_encap_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<TunnelEncap>("tunnel_encap");
    }
}
