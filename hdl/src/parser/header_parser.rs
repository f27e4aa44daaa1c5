//! `HeaderParser`: extracts RoCEv2 header fields from a 512-bit AXI4-Stream.
//!
//! ```text
//!                 +---------------+
//!  tap.tdata   -->|  beat 0 / 1   |--> hdr.valid (one-cycle pulse)
//!  tap.tkeep   -->|  capture and  |--> hdr.class (1 RoCEv2, 2 not RoCE, 3 malformed)
//!  tap.tlast   -->|  decode at    |--> hdr.vlan_present, vlan_id, is_ipv6
//!  tap.tvalid  -->|  the last     |--> hdr.src_ip, dst_ip (lane order, IPv4-mapped)
//!  tap.tready  -->|  beat         |--> hdr.ecn, flow_label, udp_src_port
//!                 +---------------+--> hdr.opcode, pkey, dest_qp, psn
//! ```
//! The parser taps a stream: it watches `tvalid & tready` and never stalls
//! it, so it runs at one beat per clock for any frame size. It keeps the
//! first two beats (128 bytes: enough for Ethernet + 802.1Q + IPv4 with
//! options or IPv6 + UDP + BTH, headers that span the beat boundary
//! included) and decodes them when the frame's last beat passes, because
//! the length checks need the frame length. `hdr.valid` rises one clock
//! after the last beat. The rules are `cngw_packet::parsed::classify`, the
//! reference this block is compared with.
//!
//! Addresses leave in lane order (byte `i` of the address in bits
//! `8*i+7..8*i`), the same order as `tdata`.

use crate::stream::axis::{AxisTap, HeaderSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct HeaderParser {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The stream watched.
    pub tap: AxisTap,
    /// The parsed header, one clock after the frame's last beat.
    pub hdr: HeaderSource,
    /// BTH byte 4 (FECN, BECN, six reserved bits) of a RoCEv2 frame, with
    /// `hdr` (RA-01's optional capability bit is one of the reserved bits).
    pub bth_flags: Signal<Out, Bits<8>>,
    // Frame state.
    beat_index: DFF<Bits<2>>,
    first_beat: DFF<Bits<512>>,
    second_beat: DFF<Bits<512>>,
    bytes_before: DFF<Bits<16>>,
    // Registered results.
    out_valid: DFF<Bit>,
    out_class: DFF<Bits<2>>,
    out_vlan: DFF<Bit>,
    out_vlan_id: DFF<Bits<12>>,
    out_ipv6: DFF<Bit>,
    out_src_ip: DFF<Bits<128>>,
    out_src_mac: DFF<Bits<48>>,
    out_dst_ip: DFF<Bits<128>>,
    out_ecn: DFF<Bits<2>>,
    out_flow_label: DFF<Bits<20>>,
    out_udp_src_port: DFF<Bits<16>>,
    out_opcode: DFF<Bits<8>>,
    out_bth_flags: DFF<Bits<8>>,
    out_pkey: DFF<Bits<16>>,
    out_dest_qp: DFF<Bits<24>>,
    out_psn: DFF<Bits<24>>,
    // Lane count for each tkeep prefix (tkeep is packed).
    lane_counts: Vec<Constant<Bits<16>>>,
    // Combinational decode.
    transfer: Signal<Local, Bit>,
    window: Signal<Local, Bits<1024>>,
    keep_bytes: Signal<Local, Bits<16>>,
    frame_len: Signal<Local, Bits<17>>,
    ethertype_outer: Signal<Local, Bits<16>>,
    ethertype: Signal<Local, Bits<16>>,
    vlan: Signal<Local, Bit>,
    l3_offset: Signal<Local, Bits<17>>,
    l3: Signal<Local, Bits<1024>>,
    ip_version: Signal<Local, Bits<4>>,
    ihl: Signal<Local, Bits<4>>,
    ipv4_total_len: Signal<Local, Bits<17>>,
    ipv4_flags_frag: Signal<Local, Bits<16>>,
    ipv6_payload_len: Signal<Local, Bits<17>>,
    ip_protocol: Signal<Local, Bits<8>>,
    l4_shift: Signal<Local, Bits<10>>,
    l4_offset: Signal<Local, Bits<17>>,
    l4: Signal<Local, Bits<160>>,
    udp_dst_port: Signal<Local, Bits<16>>,
    udp_len: Signal<Local, Bits<17>>,
    roce: Signal<Local, Bit>,
    non_roce: Signal<Local, Bit>,
    malformed: Signal<Local, Bit>,
    src_ip_decoded: Signal<Local, Bits<128>>,
    dst_ip_decoded: Signal<Local, Bits<128>>,
    ecn_decoded: Signal<Local, Bits<2>>,
}

impl Default for HeaderParser {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tap: Default::default(),
            hdr: Default::default(),
            beat_index: Default::default(),
            first_beat: Default::default(),
            second_beat: Default::default(),
            bytes_before: Default::default(),
            out_valid: Default::default(),
            out_class: Default::default(),
            out_vlan: Default::default(),
            out_vlan_id: Default::default(),
            out_ipv6: Default::default(),
            out_src_ip: Default::default(),
            out_src_mac: Default::default(),
            out_dst_ip: Default::default(),
            out_ecn: Default::default(),
            out_flow_label: Default::default(),
            out_udp_src_port: Default::default(),
            out_opcode: Default::default(),
            bth_flags: Default::default(),
            out_bth_flags: Default::default(),
            out_pkey: Default::default(),
            out_dest_qp: Default::default(),
            out_psn: Default::default(),
            lane_counts: (0..64u64)
                .map(|i| Constant::new((i + 1).to_bits()))
                .collect(),
            transfer: Default::default(),
            window: Default::default(),
            keep_bytes: Default::default(),
            frame_len: Default::default(),
            ethertype_outer: Default::default(),
            ethertype: Default::default(),
            vlan: Default::default(),
            l3_offset: Default::default(),
            l3: Default::default(),
            ip_version: Default::default(),
            ihl: Default::default(),
            ipv4_total_len: Default::default(),
            ipv4_flags_frag: Default::default(),
            ipv6_payload_len: Default::default(),
            ip_protocol: Default::default(),
            l4_shift: Default::default(),
            l4_offset: Default::default(),
            l4: Default::default(),
            udp_dst_port: Default::default(),
            udp_len: Default::default(),
            roce: Default::default(),
            non_roce: Default::default(),
            malformed: Default::default(),
            src_ip_decoded: Default::default(),
            dst_ip_decoded: Default::default(),
            ecn_decoded: Default::default(),
        }
    }
}

impl Logic for HeaderParser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat_index,
            first_beat,
            second_beat,
            bytes_before,
            out_valid,
            out_class,
            out_vlan,
            out_vlan_id,
            out_ipv6,
            out_src_ip,
            out_src_mac,
            out_dst_ip,
            out_ecn,
            out_flow_label,
            out_udp_src_port,
            out_opcode,
            out_bth_flags,
            out_pkey,
            out_dest_qp,
            out_psn
        );
        self.hdr.valid.next = self.out_valid.q.val();
        self.hdr.class.next = self.out_class.q.val();
        self.hdr.vlan_present.next = self.out_vlan.q.val();
        self.hdr.vlan_id.next = self.out_vlan_id.q.val();
        self.hdr.is_ipv6.next = self.out_ipv6.q.val();
        self.hdr.src_ip.next = self.out_src_ip.q.val();
        self.hdr.src_mac.next = self.out_src_mac.q.val();
        self.hdr.dst_ip.next = self.out_dst_ip.q.val();
        self.hdr.ecn.next = self.out_ecn.q.val();
        self.hdr.flow_label.next = self.out_flow_label.q.val();
        self.hdr.udp_src_port.next = self.out_udp_src_port.q.val();
        self.hdr.opcode.next = self.out_opcode.q.val();
        self.bth_flags.next = self.out_bth_flags.q.val();
        self.hdr.pkey.next = self.out_pkey.q.val();
        self.hdr.dest_qp.next = self.out_dest_qp.q.val();
        self.hdr.psn.next = self.out_psn.q.val();

        self.transfer.next = self.tap.tvalid.val() & self.tap.tready.val();
        self.out_valid.d.next = false;

        // The first two beats of the frame, the current one included.
        if self.beat_index.q.val() == 0 {
            self.window.next = bit_cast::<1024, 512>(self.tap.tdata.val());
        } else if self.beat_index.q.val() == 1 {
            self.window.next = (bit_cast::<1024, 512>(self.tap.tdata.val()) << 512)
                | bit_cast::<1024, 512>(self.first_beat.q.val());
        } else {
            self.window.next = (bit_cast::<1024, 512>(self.second_beat.q.val()) << 512)
                | bit_cast::<1024, 512>(self.first_beat.q.val());
        }
        self.keep_bytes.next = 0.into();
        for i in 0..64 {
            if self.tap.tkeep.val().get_bit(i) {
                self.keep_bytes.next = self.lane_counts[i].val();
            }
        }
        self.frame_len.next = bit_cast::<17, 16>(self.bytes_before.q.val())
            + bit_cast::<17, 16>(self.keep_bytes.val());

        // Ethernet and one 802.1Q tag.
        self.ethertype_outer.next = (bit_cast::<16, 8>(self.window.val().get_bits::<8>(96)) << 8)
            | bit_cast::<16, 8>(self.window.val().get_bits::<8>(104));
        self.vlan.next = self.ethertype_outer.val() == 0x8100;
        if self.vlan.val() {
            self.ethertype.next = (bit_cast::<16, 8>(self.window.val().get_bits::<8>(128)) << 8)
                | bit_cast::<16, 8>(self.window.val().get_bits::<8>(136));
            self.l3_offset.next = 18.into();
            self.l3.next = self.window.val() >> 144;
        } else {
            self.ethertype.next = self.ethertype_outer.val();
            self.l3_offset.next = 14.into();
            self.l3.next = self.window.val() >> 112;
        }

        // IP header fields (l3 byte k is l3[8k+7:8k]).
        self.ip_version.next = self.l3.val().get_bits::<4>(4);
        self.ihl.next = self.l3.val().get_bits::<4>(0);
        self.ipv4_total_len.next = (bit_cast::<17, 8>(self.l3.val().get_bits::<8>(16)) << 8)
            | bit_cast::<17, 8>(self.l3.val().get_bits::<8>(24));
        self.ipv4_flags_frag.next = (bit_cast::<16, 8>(self.l3.val().get_bits::<8>(48)) << 8)
            | bit_cast::<16, 8>(self.l3.val().get_bits::<8>(56));
        self.ipv6_payload_len.next = (bit_cast::<17, 8>(self.l3.val().get_bits::<8>(32)) << 8)
            | bit_cast::<17, 8>(self.l3.val().get_bits::<8>(40));
        if self.ethertype.val() == 0x86dd {
            self.ip_protocol.next = self.l3.val().get_bits::<8>(48);
            self.l4_shift.next = 320.into();
            self.l4_offset.next = self.l3_offset.val() + 40;
            self.ecn_decoded.next = self.l3.val().get_bits::<2>(12);
            self.src_ip_decoded.next = self.l3.val().get_bits::<128>(64);
            self.dst_ip_decoded.next = self.l3.val().get_bits::<128>(192);
        } else {
            self.ip_protocol.next = self.l3.val().get_bits::<8>(72);
            self.l4_shift.next = bit_cast::<10, 4>(self.ihl.val()) << 5;
            self.l4_offset.next = self.l3_offset.val() + (bit_cast::<17, 4>(self.ihl.val()) << 2);
            self.ecn_decoded.next = self.l3.val().get_bits::<2>(8);
            self.src_ip_decoded.next = (bit_cast::<128, 32>(self.l3.val().get_bits::<32>(96))
                << 96)
                | (bit_cast::<128, 16>(0xffff.into()) << 80);
            self.dst_ip_decoded.next = (bit_cast::<128, 32>(self.l3.val().get_bits::<32>(128))
                << 96)
                | (bit_cast::<128, 16>(0xffff.into()) << 80);
        }

        // UDP and BTH (l4 byte k is l4[8k+7:8k]).
        self.l4.next = self.l3.val().get_bits::<160>(self.l4_shift.val().index());
        self.udp_dst_port.next = (bit_cast::<16, 8>(self.l4.val().get_bits::<8>(16)) << 8)
            | bit_cast::<16, 8>(self.l4.val().get_bits::<8>(24));
        self.udp_len.next = (bit_cast::<17, 8>(self.l4.val().get_bits::<8>(32)) << 8)
            | bit_cast::<17, 8>(self.l4.val().get_bits::<8>(40));

        // Classification, in the order of cngw_packet::parsed::classify.
        self.roce.next = false;
        self.non_roce.next = false;
        self.malformed.next = false;
        if (self.frame_len.val() < 14) | (self.vlan.val() & (self.frame_len.val() < 18)) {
            self.malformed.next = true;
        } else if self.ethertype.val() == 0x0800 {
            if (self.frame_len.val() < self.l3_offset.val() + 20)
                | (self.ip_version.val() != 4)
                | (self.ihl.val() < 5)
                | (self.ipv4_total_len.val() < (bit_cast::<17, 4>(self.ihl.val()) << 2))
                | (self.l3_offset.val() + self.ipv4_total_len.val() > self.frame_len.val())
            {
                self.malformed.next = true;
            } else if (self.ip_protocol.val() != 17)
                | self.ipv4_flags_frag.val().get_bit(13)
                | self.ipv4_flags_frag.val().get_bits::<13>(0).any()
            {
                self.non_roce.next = true;
            }
        } else if self.ethertype.val() == 0x86dd {
            if (self.frame_len.val() < self.l3_offset.val() + 40)
                | (self.ip_version.val() != 6)
                | (self.l3_offset.val() + 40 + self.ipv6_payload_len.val() > self.frame_len.val())
            {
                self.malformed.next = true;
            } else if self.ip_protocol.val() != 17 {
                self.non_roce.next = true;
            }
        } else {
            self.non_roce.next = true;
        }
        if !self.malformed.val() & !self.non_roce.val() {
            if self.frame_len.val() < self.l4_offset.val() + 8 {
                self.malformed.next = true;
            } else if self.udp_dst_port.val() != 4791 {
                self.non_roce.next = true;
            } else if (self.udp_len.val() < 20)
                | (self.l4_offset.val() + self.udp_len.val() > self.frame_len.val())
                | (self.frame_len.val() < self.l4_offset.val() + 20)
            {
                self.malformed.next = true;
            } else {
                self.roce.next = true;
            }
        }

        if self.transfer.val() {
            if self.beat_index.q.val() == 0 {
                self.first_beat.d.next = self.tap.tdata.val();
            }
            if self.beat_index.q.val() == 1 {
                self.second_beat.d.next = self.tap.tdata.val();
            }
            if self.tap.tlast.val() {
                self.beat_index.d.next = 0.into();
                self.bytes_before.d.next = 0.into();
                self.out_valid.d.next = true;
                // Class codes of stream::axis (CLASS_ROCE, CLASS_NON_ROCE, CLASS_MALFORMED).
                self.out_class.d.next = 3.into();
                if self.roce.val() {
                    self.out_class.d.next = 1.into();
                }
                if self.non_roce.val() {
                    self.out_class.d.next = 2.into();
                }
                self.out_vlan.d.next = self.vlan.val();
                self.out_vlan_id.d.next = (bit_cast::<12, 8>(self.window.val().get_bits::<8>(112))
                    << 8)
                    | bit_cast::<12, 8>(self.window.val().get_bits::<8>(120));
                self.out_ipv6.d.next = self.ethertype.val() == 0x86dd;
                self.out_src_ip.d.next = self.src_ip_decoded.val();
                self.out_src_mac.d.next = self.window.val().get_bits::<48>(48);
                self.out_dst_ip.d.next = self.dst_ip_decoded.val();
                self.out_ecn.d.next = self.ecn_decoded.val();
                self.out_flow_label.d.next = 0.into();
                if self.ethertype.val() == 0x86dd {
                    self.out_flow_label.d.next =
                        (bit_cast::<20, 4>(self.l3.val().get_bits::<4>(8)) << 16)
                            | (bit_cast::<20, 8>(self.l3.val().get_bits::<8>(16)) << 8)
                            | bit_cast::<20, 8>(self.l3.val().get_bits::<8>(24));
                }
                self.out_udp_src_port.d.next = (bit_cast::<16, 8>(self.l4.val().get_bits::<8>(0))
                    << 8)
                    | bit_cast::<16, 8>(self.l4.val().get_bits::<8>(8));
                self.out_opcode.d.next = self.l4.val().get_bits::<8>(64);
                self.out_bth_flags.d.next = self.l4.val().get_bits::<8>(96);
                self.out_pkey.d.next = (bit_cast::<16, 8>(self.l4.val().get_bits::<8>(80)) << 8)
                    | bit_cast::<16, 8>(self.l4.val().get_bits::<8>(88));
                self.out_dest_qp.d.next = (bit_cast::<24, 8>(self.l4.val().get_bits::<8>(104))
                    << 16)
                    | (bit_cast::<24, 8>(self.l4.val().get_bits::<8>(112)) << 8)
                    | bit_cast::<24, 8>(self.l4.val().get_bits::<8>(120));
                self.out_psn.d.next = (bit_cast::<24, 8>(self.l4.val().get_bits::<8>(136)) << 16)
                    | (bit_cast::<24, 8>(self.l4.val().get_bits::<8>(144)) << 8)
                    | bit_cast::<24, 8>(self.l4.val().get_bits::<8>(152));
            } else {
                if self.beat_index.q.val() != 2 {
                    self.beat_index.d.next = self.beat_index.q.val() + 1;
                }
                self.bytes_before.d.next = self.bytes_before.q.val() + 64;
            }
        }
        if self.reset.val() {
            self.beat_index.d.next = 0.into();
            self.bytes_before.d.next = 0.into();
            self.out_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_header_parser_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<HeaderParser>("header_parser");
    }
}
