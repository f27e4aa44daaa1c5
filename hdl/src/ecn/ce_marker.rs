//! `CeMarker`: first-level congestion response (LH-04): marks CE on
//! ECN-capable IP packets while the WAN egress queue is above K_min.
//!
//! ```text
//!              +-----------------+
//!  s.*      -->|  rewrite beat 0 |--> m.*        (tready passes straight through)
//!  congested-->|  when marking   |--> marked     (one-clock pulse per marked frame)
//!              |                 |--> ect_frame  (pulse: an ECN-capable frame passed)
//!              |                 |--> ce_frame   (pulse: ... and it left CE)
//!              +-----------------+
//! ```
//! draft-tian-ccwg-long-haul-cnp-00, "Multi-level Trigger Response": when QD
//! exceeds K_min the node sets CE (RFC 3168) on traversing data packets.
//! A frame is marked when `congested` is high as its first beat passes and
//! that beat shows (one 802.1Q tag understood):
//! - IPv4: version 4, IHL >= 5, all 20 header bytes present, ECN ECT(0) or
//!   ECT(1): ECN becomes CE and the header checksum is updated incrementally
//!   (RFC 1624, the formula of `cngw_packet::ipv4::incremental_checksum_update`,
//!   so a header that arrived with a wrong checksum keeps a wrong one);
//! - IPv6: version 6, all 40 header bytes present, ECT(0) or ECT(1): ECN
//!   becomes CE.
//!
//! Not-ECT and CE packets and everything else pass untouched.
//!
//! Two-threshold marking (PE-03, draft-hu-rtgwg-pre-ecn-wan): for every such
//! frame with ECT(0) or ECT(1) the marker pulses `draw` (the random source
//! moves on) and applies the draw's outcome: `pe_ce` marks CE, else
//! `pe_ect1` remarks to ECT(1) (counted by `pe_ce_marked` /
//! `pe_ect1_marked`, whether or not the codepoint changed). CE from
//! `congested` or `pe_ce` wins over ECT(1). The IPv4 checksum update covers
//! every new codepoint. The ICRC masks
//! the ECN bits, so RoCEv2 ICRCs stay valid. Only the first beat is looked at
//! (every field involved lies in the first 58 bytes), so the block adds no
//! latency and never stalls: one beat per clock, combinational data path.

use crate::stream::axis::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CeMarker {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink,
    pub m: AxisSource,
    /// Queue above K_min and marking enabled.
    pub congested: Signal<In, Bit>,
    /// High for one clock when a marked first beat is transferred.
    pub marked: Signal<Out, Bit>,
    /// High for one clock when the first beat of an IP frame the marker
    /// understands (as for marking) with ECN ECT(0), ECT(1) or CE is
    /// transferred: the denominator of the ECN marking rate (LH-02).
    pub ect_frame: Signal<Out, Bit>,
    /// With `ect_frame`: the frame leaves CE (arrived CE or marked now).
    pub ce_frame: Signal<Out, Bit>,
    /// PE-03: the draw of this clock says CE, else ECT(1).
    pub pe_ce: Signal<In, Bit>,
    pub pe_ect1: Signal<In, Bit>,
    /// PE-03: an ECT(0)/ECT(1) frame's first beat passed: a draw was used.
    pub draw: Signal<Out, Bit>,
    /// PE-03: with `draw`, the draw marked CE / remarked ECT(1).
    pub pe_ce_marked: Signal<Out, Bit>,
    pub pe_ect1_marked: Signal<Out, Bit>,
    /// FCN-03: with `draw`, the frame is IPv6; its source address (lane
    /// order), flow label and source MAC (lane order), from the first beat.
    pub draw_ipv6: Signal<Out, Bit>,
    pub v6_src: Signal<Out, Bits<128>>,
    pub v6_label: Signal<Out, Bits<20>>,
    pub src_mac: Signal<Out, Bits<48>>,
    ect4: Signal<Local, Bit>,
    ect6: Signal<Local, Bit>,
    ce4: Signal<Local, Bit>,
    ce6: Signal<Local, Bit>,
    new_ecn: Signal<Local, Bits<2>>,
    new_word: Signal<Local, Bits<18>>,
    capable4: Signal<Local, Bit>,
    capable6: Signal<Local, Bit>,
    first_beat: DFFWithInit<Bit>,
    transfer: Signal<Local, Bit>,
    vlan: Signal<Local, Bit>,
    ethertype: Signal<Local, Bits<16>>,
    // First two bytes (version/IHL/TOS or version/traffic class) and bytes
    // 10-11 (the IPv4 header checksum) of the IP header, in lane order.
    l3_head: Signal<Local, Bits<16>>,
    l3_checksum: Signal<Local, Bits<16>>,
    ipv4_present: Signal<Local, Bit>,
    ipv6_present: Signal<Local, Bit>,
    ecn4: Signal<Local, Bits<2>>,
    ecn6: Signal<Local, Bits<2>>,
    mark4: Signal<Local, Bit>,
    mark6: Signal<Local, Bit>,
    old_word: Signal<Local, Bits<18>>,
    old_checksum: Signal<Local, Bits<18>>,
    sum: Signal<Local, Bits<18>>,
    fold: Signal<Local, Bits<18>>,
    new_checksum: Signal<Local, Bits<16>>,
    checksum_swapped: Signal<Local, Bits<16>>,
    checksum_lanes: Signal<Local, Bits<512>>,
    checksum_mask: Constant<Bits<512>>,
    data: Signal<Local, Bits<512>>,
}

impl Default for CeMarker {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            congested: Default::default(),
            marked: Default::default(),
            ect_frame: Default::default(),
            ce_frame: Default::default(),
            pe_ce: Default::default(),
            pe_ect1: Default::default(),
            draw: Default::default(),
            pe_ce_marked: Default::default(),
            pe_ect1_marked: Default::default(),
            draw_ipv6: Default::default(),
            v6_src: Default::default(),
            v6_label: Default::default(),
            src_mac: Default::default(),
            ect4: Default::default(),
            ect6: Default::default(),
            ce4: Default::default(),
            ce6: Default::default(),
            new_ecn: Default::default(),
            new_word: Default::default(),
            capable4: Default::default(),
            capable6: Default::default(),
            first_beat: DFFWithInit::new(true),
            transfer: Default::default(),
            vlan: Default::default(),
            ethertype: Default::default(),
            l3_head: Default::default(),
            l3_checksum: Default::default(),
            ipv4_present: Default::default(),
            ipv6_present: Default::default(),
            ecn4: Default::default(),
            ecn6: Default::default(),
            mark4: Default::default(),
            mark6: Default::default(),
            old_word: Default::default(),
            old_checksum: Default::default(),
            sum: Default::default(),
            fold: Default::default(),
            new_checksum: Default::default(),
            checksum_swapped: Default::default(),
            checksum_lanes: Default::default(),
            checksum_mask: Constant::new(bit_cast::<512, 16>(0xffff_u64.to_bits())),
            data: Default::default(),
        }
    }
}

impl Logic for CeMarker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, first_beat);
        self.transfer.next = self.s.tvalid.val() & self.m.tready.val();
        if self.transfer.val() {
            self.first_beat.d.next = self.s.tlast.val();
        }
        if self.reset.val() {
            self.first_beat.d.next = true;
        }

        // Layer 3 start: byte 14, or 18 behind one 802.1Q tag.
        self.vlan.next = (self.s.tdata.val().get_bits::<8>(96) == 0x81)
            & (self.s.tdata.val().get_bits::<8>(104) == 0x00);
        if self.vlan.val() {
            self.ethertype.next = (bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(128)) << 8)
                | bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(136));
            self.l3_head.next = self.s.tdata.val().get_bits::<16>(144);
            self.l3_checksum.next = self.s.tdata.val().get_bits::<16>(224);
            self.ipv4_present.next = self.s.tkeep.val().get_bit(37);
            self.ipv6_present.next = self.s.tkeep.val().get_bit(57);
            self.v6_src.next = self.s.tdata.val().get_bits::<128>(208);
            self.v6_label.next = (bit_cast::<20, 4>(self.s.tdata.val().get_bits::<4>(152)) << 16)
                | (bit_cast::<20, 8>(self.s.tdata.val().get_bits::<8>(160)) << 8)
                | bit_cast::<20, 8>(self.s.tdata.val().get_bits::<8>(168));
        } else {
            self.ethertype.next = (bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(96)) << 8)
                | bit_cast::<16, 8>(self.s.tdata.val().get_bits::<8>(104));
            self.l3_head.next = self.s.tdata.val().get_bits::<16>(112);
            self.l3_checksum.next = self.s.tdata.val().get_bits::<16>(192);
            self.ipv4_present.next = self.s.tkeep.val().get_bit(33);
            self.ipv6_present.next = self.s.tkeep.val().get_bit(53);
            self.v6_src.next = self.s.tdata.val().get_bits::<128>(176);
            self.v6_label.next = (bit_cast::<20, 4>(self.s.tdata.val().get_bits::<4>(120)) << 16)
                | (bit_cast::<20, 8>(self.s.tdata.val().get_bits::<8>(128)) << 8)
                | bit_cast::<20, 8>(self.s.tdata.val().get_bits::<8>(136));
        }
        self.ecn4.next = self.l3_head.val().get_bits::<2>(8);
        self.ecn6.next = self.l3_head.val().get_bits::<2>(12);
        self.capable4.next = self.first_beat.q.val()
            & (self.ethertype.val() == 0x0800)
            & self.ipv4_present.val()
            & (self.l3_head.val().get_bits::<4>(4) == 4)
            & (self.l3_head.val().get_bits::<4>(0) >= 5)
            & self.ecn4.val().any();
        self.capable6.next = self.first_beat.q.val()
            & (self.ethertype.val() == 0x86dd)
            & self.ipv6_present.val()
            & (self.l3_head.val().get_bits::<4>(4) == 6)
            & self.ecn6.val().any();
        // ECT(0) or ECT(1): what marking can change.
        self.ect4.next = self.capable4.val() & (self.ecn4.val() != 3);
        self.ect6.next = self.capable6.val() & (self.ecn6.val() != 3);
        self.ce4.next = self.ect4.val() & (self.congested.val() | self.pe_ce.val());
        self.ce6.next = self.ect6.val() & (self.congested.val() | self.pe_ce.val());
        self.mark4.next = self.ce4.val() | (self.ect4.val() & self.pe_ect1.val());
        self.mark6.next = self.ce6.val() | (self.ect6.val() & self.pe_ect1.val());
        self.new_ecn.next = 1.into();
        if self.ce4.val() | self.ce6.val() {
            self.new_ecn.next = 3.into();
        }

        // RFC 1624: HC' = ~(~HC + ~m + m'), m the word holding version/IHL/TOS.
        self.old_word.next = (bit_cast::<18, 8>(self.l3_head.val().get_bits::<8>(0)) << 8)
            | bit_cast::<18, 8>(self.l3_head.val().get_bits::<8>(8));
        self.old_checksum.next = (bit_cast::<18, 8>(self.l3_checksum.val().get_bits::<8>(0)) << 8)
            | bit_cast::<18, 8>(self.l3_checksum.val().get_bits::<8>(8));
        self.new_word.next =
            (self.old_word.val() & 0x3fffc) | bit_cast::<18, 2>(self.new_ecn.val());
        self.sum.next = (self.old_checksum.val() ^ 0xffff)
            + (self.old_word.val() ^ 0xffff)
            + self.new_word.val();
        self.fold.next = (self.sum.val() & 0xffff) + (self.sum.val() >> 16);
        self.fold.next = (self.fold.val() & 0xffff) + (self.fold.val() >> 16);
        self.new_checksum.next = bit_cast::<16, 18>(self.fold.val() ^ 0xffff);
        // The checksum in lane order (high byte first on the wire). Swap in a
        // 16-bit signal: inside the 512-bit cast Verilog would widen `<< 8`.
        self.checksum_swapped.next =
            (self.new_checksum.val() >> 8) | (self.new_checksum.val() << 8);
        self.checksum_lanes.next = bit_cast::<512, 16>(self.checksum_swapped.val());

        self.data.next = self.s.tdata.val();
        if self.mark4.val() {
            if self.vlan.val() {
                self.data.next = (self
                    .data
                    .val()
                    .replace_bit(152, true)
                    .replace_bit(153, self.new_ecn.val().get_bit(1))
                    & !(self.checksum_mask.val() << 224))
                    | (self.checksum_lanes.val() << 224);
            } else {
                self.data.next = (self
                    .data
                    .val()
                    .replace_bit(120, true)
                    .replace_bit(121, self.new_ecn.val().get_bit(1))
                    & !(self.checksum_mask.val() << 192))
                    | (self.checksum_lanes.val() << 192);
            }
        }
        if self.mark6.val() {
            if self.vlan.val() {
                self.data.next = self
                    .data
                    .val()
                    .replace_bit(156, true)
                    .replace_bit(157, self.new_ecn.val().get_bit(1));
            } else {
                self.data.next = self
                    .data
                    .val()
                    .replace_bit(124, true)
                    .replace_bit(125, self.new_ecn.val().get_bit(1));
            }
        }

        self.src_mac.next = self.s.tdata.val().get_bits::<48>(48);

        self.m.tdata.next = self.data.val();
        self.m.tkeep.next = self.s.tkeep.val();
        self.m.tlast.next = self.s.tlast.val();
        self.m.tuser.next = self.s.tuser.val();
        self.m.tvalid.next = self.s.tvalid.val();
        self.s.tready.next = self.m.tready.val();
        self.marked.next =
            self.transfer.val() & (self.ect4.val() | self.ect6.val()) & self.congested.val();
        self.ect_frame.next = self.transfer.val() & (self.capable4.val() | self.capable6.val());
        self.ce_frame.next = self.transfer.val()
            & ((self.capable4.val() & (self.ecn4.val() == 3))
                | (self.capable6.val() & (self.ecn6.val() == 3))
                | self.ce4.val()
                | self.ce6.val());
        self.draw.next = self.transfer.val() & (self.ect4.val() | self.ect6.val());
        self.draw_ipv6.next = self.transfer.val() & self.ect6.val();
        self.pe_ce_marked.next = self.draw.val() & self.pe_ce.val();
        self.pe_ect1_marked.next = self.draw.val() & !self.pe_ce.val() & self.pe_ect1.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_04_ce_marker_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<CeMarker>("ce_marker");
    }
}
