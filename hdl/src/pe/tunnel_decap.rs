//! `TunnelDecap`: the egress PE's tunnel decapsulation (PE-02, PE-06):
//! takes each VXLAN-over-IPv6 or SRv6 frame addressed to this PE out of its
//! tunnel at line rate, applies the decapsulation table of RFC 6040 or of
//! draft-hu-rtgwg-pre-ecn-wan to the inner ECN field, and passes every
//! other frame unchanged.
//!
//! ```text
//!              +-----------------------+   +-----------------+   +--------------+
//!  s.*    ---->| first beat: outer     |-->| b (younger)     |-->| HeaderSplice |---> m.*
//!  pe_ipv6 --->|   Ethernet/IPv6/UDP   |   | a (older): the  |   | Ethernet in, |
//!  pe_*_mac -->|   or SRH: tunnel?     |   |   first beat    |   | drop 70 or   |
//!  pre_ecn --->| second beat: inner    |   |   waits for the |   | 54 + SRH     |
//!              |   ECN, table, rewrite |   |   second        |   +--------------+
//!              |   (IPv4 checksum)     |   | dropped frames  |---> decap_vxlan, decap_srv6,
//!              +-----------------------+   |   discarded     |     passed, ecn_dropped, light,
//!                                          +-----------------+     alarm, runt_dropped (pulses)
//! ```
//!
//! **Recognised tunnel frames** (first beat, 64 bytes present): untagged
//! outer Ethernet with EtherType 0x86DD, IP version 6, destination address
//! `pe_ipv6`, and either
//! - VXLAN: next header 17 and UDP destination port 4789. The outer 70
//!   bytes (Ethernet, IPv6, UDP, VXLAN) are removed; the inner Ethernet
//!   frame leaves as carried. The VXLAN flags and VNI and the UDP checksum
//!   are not checked (one VNI per tunnel; the inner frame's checksums and
//!   ICRC protect it);
//! - SRv6: next header 43, an SRH (routing type 4) with Segments Left 0
//!   (this PE is the last segment: RFC 8986 End.DT4/End.DT6 with the
//!   decapsulation it implies), Hdr Ext Len 2..=4 (up to two SIDs, or one
//!   and 8 bytes of TLVs: the inner header then lies in the second beat)
//!   and next header 4 or 41. The outer 54 + 8 (Hdr Ext Len + 1) bytes
//!   are replaced by an Ethernet header `pe_dst_mac`, `pe_src_mac`,
//!   EtherType 0x0800 (next header 4) or 0x86DD (41).
//!
//! Every other frame passes unchanged (`passed`): other addresses, ports,
//! next headers, an SRH with Segments Left above 0 (the packet is on its
//! way to a later segment) or longer than 40 bytes, a tagged outer
//! header, frames under 64 bytes. Outer lengths are not checked: bytes
//! after the outer IP packet stay behind the inner one.
//!
//! **ECN.** The inner IP header lies in the frame's second beat: VXLAN at
//! byte 84 (88 with an 802.1Q tag, TPID 0x8100, on the inner frame), SRv6
//! at 54 + SRH length. When it is IPv4 (VXLAN: EtherType 0x0800 and
//! version 4; SRv6: next header 4 and version 4) or IPv6 (0x86DD or 41,
//! version 6) and the second beat holds its first 12 bytes, the inner and
//! outer ECN fields go through `cngw_model::tunnel_ecn::decapsulate` with
//! the table `pre_ecn` chooses (0: RFC 6040 section 4.2, outside the
//! domain; 1: draft-hu-rtgwg-pre-ecn-wan, inside it):
//! - a new inner ECN is written into the IPv4 TOS (the header checksum
//!   updated incrementally, RFC 1624, as `cngw_packet::frame::set_ecn`
//!   does) or the IPv6 traffic class; an unchanged field is not touched;
//! - Not-ECT inner with CE outer: the frame is taken and dropped
//!   (`ecn_dropped`);
//! - `light`: outer ECT(1) with ECT(0)/ECT(1) inner under the draft's table
//!   (a light mark, not copied inward); `alarm`: the combinations RFC 6040
//!   says to log (`(!!!)`/`(!)`), the dropped one included.
//!
//! Other inner payloads (ARP in VXLAN, a short frame) are decapsulated
//! without ECN processing.
//!
//! A recognised frame of no more bytes than its outer headers (a runt:
//! one beat, or a second beat ending at or before the drop) sends nothing
//! (SRv6 included: no bare Ethernet header) and pulses `runt_dropped`
//! (HeaderSplice's `empty_dropped`, at the earliest two clocks after its
//! last beat leaves `a`).
//!
//! The other pulses are high for one clock, the clock after a frame's
//! first beat leaves `a`: `decap_vxlan`, `decap_srv6` (runts included),
//! `passed`, `ecn_dropped`, `light`, `alarm`.
//!
//! **Look-ahead, latency, throughput.** The drop decision needs the second
//! beat, so a frame's first beat waits in `a` until its second beat is in
//! `b` (or it is the frame's last). A beat taken at clock t is in `b` at
//! t+1, in `a` at t+2, where HeaderSplice takes it; its output leaves at
//! t+4. The second beat's inner header is read (one of five lanes, picked
//! one-hot) and the table applied in the clock it is taken; its new bytes
//! (byte 1 and the IPv4 checksum, whose end-around carry is a choice
//! between two sums made in parallel) are written in the clock it moves
//! from `b` to `a`, so neither clock holds the whole rewrite (it held the
//! block at 81 MHz on the ECP5). The input is taken at one beat per clock
//! whenever HeaderSplice takes one per clock, which it does for
//! back-to-back decapsulations (its drop exceeds its header): clocks =
//! input beats + 4, plus one when the last frame ends with HeaderSplice's
//! flush beat. A passed frame
//! right after a decapsulated one that ends with a flush beat waits one
//! clock for it. Dropped frames take one clock per beat. `s.tready`
//! depends on registers and HeaderSplice's `s.tready`/`cmd_ready` (its
//! registers), never on `m.tready`. `reset` (synchronous) drops the beats
//! held.
//!
//! Issue 5: the egress PE data path.

use crate::stream::{AxisSink, AxisSource, HeaderSplice};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct TunnelDecap {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Frames from the WAN.
    pub s: AxisSink,
    /// Frames to the data centre.
    pub m: AxisSource,
    /// This PE's IPv6 address (the tunnels' outer destination), lane order.
    pub pe_ipv6: Signal<In, Bits<128>>,
    /// The Ethernet header put on SRv6 inner packets, lane order.
    pub pe_dst_mac: Signal<In, Bits<48>>,
    pub pe_src_mac: Signal<In, Bits<48>>,
    /// 1: draft-hu-rtgwg-pre-ecn-wan's table (inside the domain); 0: RFC 6040.
    pub pre_ecn: Signal<In, Bit>,
    /// One-clock pulses (see above).
    pub decap_vxlan: Signal<Out, Bit>,
    pub decap_srv6: Signal<Out, Bit>,
    pub passed: Signal<Out, Bit>,
    pub ecn_dropped: Signal<Out, Bit>,
    pub light: Signal<Out, Bit>,
    pub alarm: Signal<Out, Bit>,
    pub runt_dropped: Signal<Out, Bit>,
    splice: HeaderSplice,
    // The input frame in progress.
    in_mid: DFF<Bit>,
    /// The next beat taken is the frame's second.
    in_second: DFF<Bit>,
    in_vx: DFF<Bit>,
    in_sr: DFF<Bit>,
    in_sr_v6: DFF<Bit>,
    /// SRv6: the inner IP header's lane in the second beat, one-hot (Hdr
    /// Ext Len 2, 3, 4: lane 14, 22, 30).
    in_o14: DFF<Bit>,
    in_o22: DFF<Bit>,
    in_o30: DFF<Bit>,
    in_outer_ecn: DFF<Bits<2>>,
    // Stage b (the younger beat) and a (the older, HeaderSplice's input),
    // with the frame's command on first beats.
    b_valid: DFF<Bit>,
    b_data: DFF<Bits<512>>,
    b_keep: DFF<Bits<64>>,
    b_last: DFF<Bit>,
    b_user: DFF<Bit>,
    b_first: DFF<Bit>,
    b_vx: DFF<Bit>,
    b_sr: DFF<Bit>,
    b_eth6: DFF<Bit>,
    b_drop: DFF<Bits<8>>,
    /// A second beat whose inner ECN field changes: the new header bytes
    /// are written when it moves to a (lane `b_o*`, one-hot; the IPv4
    /// checksum from its one's complement and the change).
    b_rw: DFF<Bit>,
    b_v4: DFF<Bit>,
    b_o14: DFF<Bit>,
    b_o20: DFF<Bit>,
    b_o22: DFF<Bit>,
    b_o24: DFF<Bit>,
    b_o30: DFF<Bit>,
    b_byte1: DFF<Bits<8>>,
    b_not_hc: DFF<Bits<16>>,
    b_delta0: DFF<Bits<16>>,
    b_delta1: DFF<Bits<16>>,
    a_valid: DFF<Bit>,
    a_data: DFF<Bits<512>>,
    a_keep: DFF<Bits<64>>,
    a_last: DFF<Bit>,
    a_user: DFF<Bit>,
    a_first: DFF<Bit>,
    a_vx: DFF<Bit>,
    a_sr: DFF<Bit>,
    a_eth6: DFF<Bit>,
    a_drop: DFF<Bits<8>>,
    /// The rest of a dropped frame is being discarded from a.
    a_dropping: DFF<Bit>,
    /// The table's verdict for the frame whose first beat is in a (written
    /// when its second beat is taken).
    dec_drop: DFF<Bit>,
    dec_light: DFF<Bit>,
    dec_alarm: DFF<Bit>,
    // Pulses.
    p_vx: DFF<Bit>,
    p_sr: DFF<Bit>,
    p_pass: DFF<Bit>,
    p_drop: DFF<Bit>,
    p_light: DFF<Bit>,
    p_alarm: DFF<Bit>,
    // Combinational: the first beat.
    first: Signal<Local, Bit>,
    outer_ok: Signal<Local, Bit>,
    outer_nh: Signal<Local, Bits<8>>,
    srh_nh: Signal<Local, Bits<8>>,
    srh_len: Signal<Local, Bits<8>>,
    is_vx: Signal<Local, Bit>,
    is_sr: Signal<Local, Bit>,
    sr_drop: Signal<Local, Bits<8>>,
    drop_new: Signal<Local, Bits<8>>,
    // Combinational: the second beat.
    vtag: Signal<Local, Bit>,
    vx_type: Signal<Local, Bits<16>>,
    o20: Signal<Local, Bit>,
    o24: Signal<Local, Bit>,
    csum_kept: Signal<Local, Bit>,
    /// The inner header's bits the block reads: version (byte 0, bits
    /// 7..4) in 3..0, byte 1 in 11..4, bytes 10 and 11 (the IPv4
    /// checksum, lane order) in 27..12.
    hdr: Signal<Local, Bits<28>>,
    want_v6: Signal<Local, Bit>,
    type_ok: Signal<Local, Bit>,
    ip_ok: Signal<Local, Bit>,
    inner_ecn: Signal<Local, Bits<2>>,
    t_drop: Signal<Local, Bit>,
    t_light: Signal<Local, Bit>,
    t_alarm: Signal<Local, Bit>,
    new_ecn: Signal<Local, Bits<2>>,
    rewrite: Signal<Local, Bit>,
    byte1_new: Signal<Local, Bits<8>>,
    delta: Signal<Local, Bits<16>>,
    // Combinational: the b -> a move.
    sum0: Signal<Local, Bits<17>>,
    sum1: Signal<Local, Bits<16>>,
    new_checksum: Signal<Local, Bits<16>>,
    checksum_lanes: Signal<Local, Bits<16>>,
    a_in: Signal<Local, Bits<512>>,
    // Combinational: the stages.
    a_offer: Signal<Local, Bit>,
    a_discard: Signal<Local, Bit>,
    a_leave: Signal<Local, Bit>,
    b_move: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    ether_lanes: Signal<Local, Bits<16>>,
    runt_lane: Signal<Local, Bits<6>>,
    a_runt: Signal<Local, Bit>,
}

impl Logic for TunnelDecap {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, splice);
        dff_setup!(
            self,
            clock,
            in_mid,
            in_second,
            in_vx,
            in_sr,
            in_sr_v6,
            in_o14,
            in_o22,
            in_o30,
            in_outer_ecn,
            b_valid,
            b_data,
            b_keep,
            b_last,
            b_user,
            b_first,
            b_vx,
            b_sr,
            b_eth6,
            b_drop,
            b_rw,
            b_v4,
            b_o14,
            b_o20,
            b_o22,
            b_o24,
            b_o30,
            b_byte1,
            b_not_hc,
            b_delta0,
            b_delta1,
            a_valid,
            a_data,
            a_keep,
            a_last,
            a_user,
            a_first,
            a_vx,
            a_sr,
            a_eth6,
            a_drop,
            a_dropping,
            dec_drop,
            dec_light,
            dec_alarm,
            p_vx,
            p_sr,
            p_pass,
            p_drop,
            p_light,
            p_alarm
        );
        self.splice.reset.next = self.reset.val();
        self.m.tdata.next = self.splice.m.tdata.val();
        self.m.tkeep.next = self.splice.m.tkeep.val();
        self.m.tlast.next = self.splice.m.tlast.val();
        self.m.tuser.next = self.splice.m.tuser.val();
        self.m.tvalid.next = self.splice.m.tvalid.val();
        self.splice.m.tready.next = self.m.tready.val();
        self.runt_dropped.next = self.splice.empty_dropped.val();
        self.decap_vxlan.next = self.p_vx.q.val();
        self.decap_srv6.next = self.p_sr.q.val();
        self.passed.next = self.p_pass.q.val();
        self.ecn_dropped.next = self.p_drop.q.val();
        self.light.next = self.p_light.q.val();
        self.alarm.next = self.p_alarm.q.val();

        // Stage a: a first beat leaves once the frame's second beat is in
        // b (or it is the last), to HeaderSplice with its command, or is
        // discarded with the rest of a dropped frame.
        self.a_offer.next = self.a_valid.q.val()
            & (!self.a_first.q.val() | self.a_last.q.val() | self.b_valid.q.val());
        self.a_discard.next = self.a_offer.val()
            & ((!self.a_first.q.val() & self.a_dropping.q.val())
                | (self.a_first.q.val()
                    & (self.a_vx.q.val() | self.a_sr.q.val())
                    & !self.a_last.q.val()
                    & self.dec_drop.q.val()));
        self.ether_lanes.next = 0x0008.into();
        if self.a_eth6.q.val() {
            self.ether_lanes.next = 0xdd86.into();
        }
        self.splice.s.tdata.next = self.a_data.q.val();
        self.splice.s.tkeep.next = self.a_keep.q.val();
        self.splice.s.tlast.next = self.a_last.q.val();
        self.splice.s.tuser.next = self.a_user.q.val();
        // (Written from registers only, not from the locals above: Verilator
        // then sees no loop through HeaderSplice's ready.)
        self.splice.s.tvalid.next = self.a_valid.q.val()
            & ((!self.a_first.q.val() & !self.a_dropping.q.val())
                | (self.a_first.q.val()
                    & (self.a_last.q.val() | self.b_valid.q.val())
                    & !((self.a_vx.q.val() | self.a_sr.q.val())
                        & !self.a_last.q.val()
                        & self.dec_drop.q.val())));
        self.splice.cmd_valid.next = self.a_valid.q.val()
            & self.a_first.q.val()
            & (self.a_last.q.val() | self.b_valid.q.val())
            & !((self.a_vx.q.val() | self.a_sr.q.val())
                & !self.a_last.q.val()
                & self.dec_drop.q.val());
        self.splice.cmd_header.next = bit_cast::<1024, 48>(self.pe_dst_mac.val())
            | (bit_cast::<1024, 48>(self.pe_src_mac.val()) << 48)
            | (bit_cast::<1024, 16>(self.ether_lanes.val()) << 96);
        // A recognised frame no longer than its outer headers (one beat, or
        // a second beat that ends at or before the drop) sends nothing.
        self.runt_lane.next = self.a_drop.q.val().get_bits::<6>(0);
        self.a_runt.next = self.a_last.q.val()
            | (self.b_last.q.val() & !self.b_keep.q.val().get_bit(self.runt_lane.val().index()));
        self.splice.cmd_header_len.next = 0.into();
        if self.a_sr.q.val() & !self.a_runt.val() {
            self.splice.cmd_header_len.next = 14.into();
        }
        self.splice.cmd_drop.next = self.a_drop.q.val();
        self.a_leave.next = self.a_discard.val()
            | (self.a_offer.val() & !self.a_first.q.val() & self.splice.s.tready.val())
            | (self.a_offer.val()
                & !self.a_discard.val()
                & self.a_first.q.val()
                & self.splice.cmd_ready.val());
        self.b_move.next = self.b_valid.q.val() & (!self.a_valid.q.val() | self.a_leave.val());
        self.s.tready.next = !self.b_valid.q.val() | self.b_move.val();
        self.take.next = self.s.tvalid.val() & self.s.tready.val();
        self.first.next = !self.in_mid.q.val();

        // The first beat: a tunnel to this PE?
        self.outer_nh.next = self.s.tdata.val().get_bits::<8>(160);
        self.outer_ok.next = (self.s.tdata.val().get_bits::<16>(96) == 0xdd86)
            & (self.s.tdata.val().get_bits::<4>(116) == 6)
            & (self.s.tdata.val().get_bits::<128>(304) == self.pe_ipv6.val())
            & self.s.tkeep.val().get_bit(63);
        self.is_vx.next = self.outer_ok.val()
            & (self.outer_nh.val() == 17)
            & (self.s.tdata.val().get_bits::<16>(448) == 0xb512);
        self.srh_nh.next = self.s.tdata.val().get_bits::<8>(432);
        self.srh_len.next = self.s.tdata.val().get_bits::<8>(440);
        self.is_sr.next = self.outer_ok.val()
            & (self.outer_nh.val() == 43)
            & (self.s.tdata.val().get_bits::<8>(448) == 4)
            & (self.s.tdata.val().get_bits::<8>(456) == 0)
            & (self.srh_len.val() >= 2)
            & (self.srh_len.val() <= 4)
            & ((self.srh_nh.val() == 4) | (self.srh_nh.val() == 41));
        // SRv6: Ethernet 14 + IPv6 40 + SRH 8 (Hdr Ext Len + 1).
        self.sr_drop.next = (self.srh_len.val() << 3) + 62;
        self.drop_new.next = 0.into();
        if self.is_vx.val() {
            self.drop_new.next = 70.into();
        }
        if self.is_sr.val() {
            self.drop_new.next = self.sr_drop.val();
        }

        // The second beat: the inner IP header at one of five lanes (VXLAN
        // 20, or 24 behind an 802.1Q tag; SRv6 14, 22 or 30), picked
        // one-hot rather than by a shift of the beat.
        self.vtag.next = self.s.tdata.val().get_bits::<16>(144) == 0x0081;
        self.vx_type.next = self.s.tdata.val().get_bits::<16>(144);
        if self.vtag.val() {
            self.vx_type.next = self.s.tdata.val().get_bits::<16>(176);
        }
        self.o20.next = self.in_vx.q.val() & !self.vtag.val();
        self.o24.next = self.in_vx.q.val() & self.vtag.val();
        self.want_v6.next = self.in_sr_v6.q.val();
        self.type_ok.next = true;
        if self.in_vx.q.val() {
            self.want_v6.next = self.vx_type.val() == 0xdd86;
            self.type_ok.next = (self.vx_type.val() == 0xdd86) | (self.vx_type.val() == 0x0008);
        }
        // The header's bits read here, and whether the beat holds its first
        // 12 bytes (the lane of byte 11).
        self.hdr.next = 0.into();
        self.csum_kept.next = false;
        if self.in_vx.q.val() {
            if self.vtag.val() {
                self.hdr.next = bit_cast::<28, 12>(self.s.tdata.val().get_bits::<12>(196))
                    | (bit_cast::<28, 16>(self.s.tdata.val().get_bits::<16>(272)) << 12);
                self.csum_kept.next = self.s.tkeep.val().get_bit(35);
            } else {
                self.hdr.next = bit_cast::<28, 12>(self.s.tdata.val().get_bits::<12>(164))
                    | (bit_cast::<28, 16>(self.s.tdata.val().get_bits::<16>(240)) << 12);
                self.csum_kept.next = self.s.tkeep.val().get_bit(31);
            }
        } else if self.in_o14.q.val() {
            self.hdr.next = bit_cast::<28, 12>(self.s.tdata.val().get_bits::<12>(116))
                | (bit_cast::<28, 16>(self.s.tdata.val().get_bits::<16>(192)) << 12);
            self.csum_kept.next = self.s.tkeep.val().get_bit(25);
        } else if self.in_o22.q.val() {
            self.hdr.next = bit_cast::<28, 12>(self.s.tdata.val().get_bits::<12>(180))
                | (bit_cast::<28, 16>(self.s.tdata.val().get_bits::<16>(256)) << 12);
            self.csum_kept.next = self.s.tkeep.val().get_bit(33);
        } else if self.in_o30.q.val() {
            self.hdr.next = bit_cast::<28, 12>(self.s.tdata.val().get_bits::<12>(244))
                | (bit_cast::<28, 16>(self.s.tdata.val().get_bits::<16>(320)) << 12);
            self.csum_kept.next = self.s.tkeep.val().get_bit(41);
        }
        self.ip_ok.next = (self.in_vx.q.val() | self.in_sr.q.val())
            & self.type_ok.val()
            & self.csum_kept.val()
            & ((self.want_v6.val() & (self.hdr.val().get_bits::<4>(0) == 6))
                | (!self.want_v6.val() & (self.hdr.val().get_bits::<4>(0) == 4)));
        self.inner_ecn.next = self.hdr.val().get_bits::<2>(4);
        if self.want_v6.val() {
            self.inner_ecn.next = self.hdr.val().get_bits::<2>(8);
        }
        // The table (ECN codes: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE).
        self.t_drop.next = (self.inner_ecn.val() == 0) & (self.in_outer_ecn.q.val() == 3);
        self.t_alarm.next = ((self.inner_ecn.val() == 0) & (self.in_outer_ecn.q.val() != 0))
            | ((self.inner_ecn.val() == 1) & (self.in_outer_ecn.q.val() == 2))
            | ((self.inner_ecn.val() == 3) & (self.in_outer_ecn.q.val() == 1));
        self.t_light.next = self.pre_ecn.val()
            & (self.in_outer_ecn.q.val() == 1)
            & ((self.inner_ecn.val() == 1) | (self.inner_ecn.val() == 2));
        self.new_ecn.next = self.inner_ecn.val();
        if (self.in_outer_ecn.q.val() == 3) & (self.inner_ecn.val() != 0) {
            self.new_ecn.next = 3.into();
        }
        if (self.in_outer_ecn.q.val() == 1) & (self.inner_ecn.val() == 2) & !self.pre_ecn.val() {
            self.new_ecn.next = 1.into();
        }
        self.rewrite.next = self.in_second.q.val()
            & self.ip_ok.val()
            & (self.new_ecn.val() != self.inner_ecn.val());
        // The new byte 1 (TOS / traffic class) and, for IPv4, what the
        // checksum needs (RFC 1624: HC' = ~(~HC + ~m + m')). Only the ECN
        // bits of the 16-bit word m change, so ~m + m' is 0xffff + d with
        // d = new - old ECN (-3..3, not 0): in one's complement that is d,
        // or 0xffff + d when d is negative. The sum ~HC + that, with its
        // end-around carry, is made in the clock the beat moves on.
        self.byte1_new.next =
            (self.hdr.val().get_bits::<8>(4) & 0xfc) | bit_cast::<8, 2>(self.new_ecn.val());
        if self.want_v6.val() {
            self.byte1_new.next = (self.hdr.val().get_bits::<8>(4) & 0xcf)
                | (bit_cast::<8, 2>(self.new_ecn.val()) << 4);
        }
        self.delta.next = bit_cast::<16, 2>(self.new_ecn.val())
            + (bits::<16>(0xffff) - bit_cast::<16, 2>(self.inner_ecn.val()));
        if self.new_ecn.val() > self.inner_ecn.val() {
            self.delta.next =
                bit_cast::<16, 2>(self.new_ecn.val()) - bit_cast::<16, 2>(self.inner_ecn.val());
        }

        // The b -> a move: the new header bytes written into the beat.
        self.sum0.next =
            bit_cast::<17, 16>(self.b_not_hc.q.val()) + bit_cast::<17, 16>(self.b_delta0.q.val());
        self.sum1.next = self.b_not_hc.q.val() + self.b_delta1.q.val();
        self.new_checksum.next = !self.sum0.val().get_bits::<16>(0);
        if self.sum0.val().get_bit(16) {
            self.new_checksum.next = !self.sum1.val().get_bits::<16>(0);
        }
        // Lane order, swapped in a 16-bit signal.
        self.checksum_lanes.next = (self.new_checksum.val() >> 8) | (self.new_checksum.val() << 8);
        self.a_in.next = self.b_data.q.val();
        if self.b_rw.q.val() {
            if self.b_o20.q.val() {
                self.a_in.next = (self.b_data.q.val() & !(bits::<512>(0xff) << 168))
                    | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 168);
                if self.b_v4.q.val() {
                    self.a_in.next = (self.b_data.q.val()
                        & !(bits::<512>(0xff) << 168)
                        & !(bits::<512>(0xffff) << 240))
                        | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 168)
                        | (bit_cast::<512, 16>(self.checksum_lanes.val()) << 240);
                }
            }
            if self.b_o24.q.val() {
                self.a_in.next = (self.b_data.q.val() & !(bits::<512>(0xff) << 200))
                    | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 200);
                if self.b_v4.q.val() {
                    self.a_in.next = (self.b_data.q.val()
                        & !(bits::<512>(0xff) << 200)
                        & !(bits::<512>(0xffff) << 272))
                        | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 200)
                        | (bit_cast::<512, 16>(self.checksum_lanes.val()) << 272);
                }
            }
            if self.b_o14.q.val() {
                self.a_in.next = (self.b_data.q.val() & !(bits::<512>(0xff) << 120))
                    | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 120);
                if self.b_v4.q.val() {
                    self.a_in.next = (self.b_data.q.val()
                        & !(bits::<512>(0xff) << 120)
                        & !(bits::<512>(0xffff) << 192))
                        | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 120)
                        | (bit_cast::<512, 16>(self.checksum_lanes.val()) << 192);
                }
            }
            if self.b_o22.q.val() {
                self.a_in.next = (self.b_data.q.val() & !(bits::<512>(0xff) << 184))
                    | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 184);
                if self.b_v4.q.val() {
                    self.a_in.next = (self.b_data.q.val()
                        & !(bits::<512>(0xff) << 184)
                        & !(bits::<512>(0xffff) << 256))
                        | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 184)
                        | (bit_cast::<512, 16>(self.checksum_lanes.val()) << 256);
                }
            }
            if self.b_o30.q.val() {
                self.a_in.next = (self.b_data.q.val() & !(bits::<512>(0xff) << 248))
                    | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 248);
                if self.b_v4.q.val() {
                    self.a_in.next = (self.b_data.q.val()
                        & !(bits::<512>(0xff) << 248)
                        & !(bits::<512>(0xffff) << 320))
                        | (bit_cast::<512, 8>(self.b_byte1.q.val()) << 248)
                        | (bit_cast::<512, 16>(self.checksum_lanes.val()) << 320);
                }
            }
        }

        // State.
        self.p_vx.d.next = false;
        self.p_sr.d.next = false;
        self.p_pass.d.next = false;
        self.p_drop.d.next = false;
        self.p_light.d.next = false;
        self.p_alarm.d.next = false;
        if self.a_leave.val() {
            self.a_valid.d.next = false;
            if self.a_first.q.val() {
                self.a_dropping.d.next = self.a_discard.val() & !self.a_last.q.val();
                self.p_drop.d.next = self.a_discard.val();
                self.p_vx.d.next = self.a_vx.q.val() & !self.a_discard.val();
                self.p_sr.d.next = self.a_sr.q.val() & !self.a_discard.val();
                self.p_pass.d.next = !self.a_vx.q.val() & !self.a_sr.q.val();
                self.p_light.d.next = (self.a_vx.q.val() | self.a_sr.q.val())
                    & !self.a_last.q.val()
                    & self.dec_light.q.val();
                self.p_alarm.d.next = (self.a_vx.q.val() | self.a_sr.q.val())
                    & !self.a_last.q.val()
                    & self.dec_alarm.q.val();
            }
            if self.a_last.q.val() {
                self.a_dropping.d.next = false;
            }
        }
        if self.b_move.val() {
            self.b_valid.d.next = false;
            self.a_valid.d.next = true;
            self.a_data.d.next = self.a_in.val();
            self.a_keep.d.next = self.b_keep.q.val();
            self.a_last.d.next = self.b_last.q.val();
            self.a_user.d.next = self.b_user.q.val();
            self.a_first.d.next = self.b_first.q.val();
            self.a_vx.d.next = self.b_vx.q.val();
            self.a_sr.d.next = self.b_sr.q.val();
            self.a_eth6.d.next = self.b_eth6.q.val();
            self.a_drop.d.next = self.b_drop.q.val();
        }
        if self.take.val() {
            self.in_mid.d.next = !self.s.tlast.val();
            self.in_second.d.next = self.first.val() & !self.s.tlast.val();
            self.b_valid.d.next = true;
            self.b_data.d.next = self.s.tdata.val();
            self.b_rw.d.next = self.rewrite.val();
            self.b_v4.d.next = !self.want_v6.val();
            self.b_o14.d.next = self.in_o14.q.val() & !self.in_vx.q.val();
            self.b_o20.d.next = self.o20.val();
            self.b_o22.d.next = self.in_o22.q.val() & !self.in_vx.q.val();
            self.b_o24.d.next = self.o24.val();
            self.b_o30.d.next = self.in_o30.q.val() & !self.in_vx.q.val();
            self.b_byte1.d.next = self.byte1_new.val();
            // ~HC, from the header's bytes 10 and 11.
            self.b_not_hc.d.next = !((bit_cast::<16, 8>(self.hdr.val().get_bits::<8>(12)) << 8)
                | bit_cast::<16, 8>(self.hdr.val().get_bits::<8>(20)));
            self.b_delta0.d.next = self.delta.val();
            self.b_delta1.d.next = self.delta.val() + 1;
            self.b_keep.d.next = self.s.tkeep.val();
            self.b_last.d.next = self.s.tlast.val();
            self.b_user.d.next = self.s.tuser.val();
            self.b_first.d.next = self.first.val();
            if self.first.val() {
                self.in_vx.d.next = self.is_vx.val();
                self.in_sr.d.next = self.is_sr.val();
                self.in_sr_v6.d.next = self.srh_nh.val() == 41;
                self.in_o14.d.next = self.srh_len.val() == 2;
                self.in_o22.d.next = self.srh_len.val() == 3;
                self.in_o30.d.next = self.srh_len.val() == 4;
                self.in_outer_ecn.d.next = self.s.tdata.val().get_bits::<2>(124);
                self.b_vx.d.next = self.is_vx.val();
                self.b_sr.d.next = self.is_sr.val();
                self.b_eth6.d.next = self.srh_nh.val() == 41;
                self.b_drop.d.next = self.drop_new.val();
            }
            if self.in_second.q.val() {
                self.dec_drop.d.next = self.ip_ok.val() & self.t_drop.val();
                self.dec_light.d.next = self.ip_ok.val() & self.t_light.val();
                self.dec_alarm.d.next = self.ip_ok.val() & self.t_alarm.val();
            }
        }
        if self.reset.val() {
            self.in_mid.d.next = false;
            self.in_second.d.next = false;
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.a_dropping.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_02_tunnel_decap_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<TunnelDecap>("tunnel_decap");
    }
}
