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
//! The decode is one clock, so it is laid out flat: two `IpReading`s read
//! the frame untagged and with one 802.1Q tag side by side and the tag
//! compare picks one at the end; a reading computes the frame's room
//! behind the UDP header beside the UDP header's selection by the IHL; the
//! last beat's lane count comes from its `tkeep` smeared into a thermometer
//! code, not from a priority chain over 64 lanes. (67.0 -> 90.4 MHz on the
//! ECP5, docs/performance.md.)
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
    /// Bit positions whose `tkeep` run ends there, for each bit of the
    /// lane count (see `keep_bytes`).
    count_lanes: Vec<Constant<Bits<64>>>,
    // Combinational decode.
    transfer: Signal<Local, Bit>,
    window: Signal<Local, Bits<1024>>,
    /// `tkeep` smeared down: bit `i` is set if any lane `>= i` is.
    keep_run: Signal<Local, Bits<64>>,
    keep_bytes: Signal<Local, Bits<16>>,
    frame_len: Signal<Local, Bits<17>>,
    vlan: Signal<Local, Bit>,
    /// The frame read untagged and with one 802.1Q tag, side by side:
    /// `vlan` picks one at the end, so the tag compare is not in front of
    /// the field offsets.
    plain_read: IpReading,
    vlan_read: IpReading,
    roce: Signal<Local, Bit>,
    non_roce: Signal<Local, Bit>,
    malformed: Signal<Local, Bit>,
    // The picked reading's fields.
    ipv6: Signal<Local, Bit>,
    bth_fields: Signal<Local, Bits<96>>,
    src_ip: Signal<Local, Bits<128>>,
    dst_ip: Signal<Local, Bits<128>>,
    ecn: Signal<Local, Bits<2>>,
    flow_label: Signal<Local, Bits<20>>,
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
            count_lanes: (0..7).map(|b| Constant::new(count_lane_mask(b))).collect(),
            plain_read: IpReading::new(14),
            vlan_read: IpReading::new(18),
            transfer: Default::default(),
            window: Default::default(),
            keep_run: Default::default(),
            keep_bytes: Default::default(),
            frame_len: Default::default(),
            vlan: Default::default(),
            roce: Default::default(),
            non_roce: Default::default(),
            malformed: Default::default(),
            ipv6: Default::default(),
            bth_fields: Default::default(),
            src_ip: Default::default(),
            dst_ip: Default::default(),
            ecn: Default::default(),
            flow_label: Default::default(),
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
        // Lanes in the beat: one past its highest `tkeep` lane (holes
        // included). `keep_run` is a thermometer code of that count; bit
        // `b` of the count is set where a run of ones ends at a position
        // `m * 2^(b+1) + 2^b - 1` (no priority chain over 64 lanes).
        self.keep_run.next = self.tap.tkeep.val();
        self.keep_run.next = self.keep_run.val() | (self.keep_run.val() >> 1);
        self.keep_run.next = self.keep_run.val() | (self.keep_run.val() >> 2);
        self.keep_run.next = self.keep_run.val() | (self.keep_run.val() >> 4);
        self.keep_run.next = self.keep_run.val() | (self.keep_run.val() >> 8);
        self.keep_run.next = self.keep_run.val() | (self.keep_run.val() >> 16);
        self.keep_run.next = self.keep_run.val() | (self.keep_run.val() >> 32);
        self.keep_bytes.next = 0.into();
        if (self.keep_run.val() & !(self.keep_run.val() >> 1) & self.count_lanes[0].val()).any() {
            self.keep_bytes.next = self.keep_bytes.val() | 1;
        }
        if (self.keep_run.val() & !(self.keep_run.val() >> 2) & self.count_lanes[1].val()).any() {
            self.keep_bytes.next = self.keep_bytes.val() | 2;
        }
        if (self.keep_run.val() & !(self.keep_run.val() >> 4) & self.count_lanes[2].val()).any() {
            self.keep_bytes.next = self.keep_bytes.val() | 4;
        }
        if (self.keep_run.val() & !(self.keep_run.val() >> 8) & self.count_lanes[3].val()).any() {
            self.keep_bytes.next = self.keep_bytes.val() | 8;
        }
        if (self.keep_run.val() & !(self.keep_run.val() >> 16) & self.count_lanes[4].val()).any() {
            self.keep_bytes.next = self.keep_bytes.val() | 16;
        }
        if (self.keep_run.val() & !(self.keep_run.val() >> 32) & self.count_lanes[5].val()).any() {
            self.keep_bytes.next = self.keep_bytes.val() | 32;
        }
        if (self.keep_run.val() & self.count_lanes[6].val()).any() {
            self.keep_bytes.next = self.keep_bytes.val() | 64;
        }
        self.frame_len.next = bit_cast::<17, 16>(self.bytes_before.q.val())
            + bit_cast::<17, 16>(self.keep_bytes.val());

        // The frame read untagged (EtherType at byte 12, IP at 14) and with
        // one 802.1Q tag (16 and 18), side by side.
        self.plain_read.l2.next = self.window.val() >> 96;
        self.plain_read.frame_len.next = self.frame_len.val();
        self.vlan_read.l2.next = self.window.val() >> 128;
        self.vlan_read.frame_len.next = self.frame_len.val();

        // The tag picks a reading.
        self.vlan.next = ((bit_cast::<16, 8>(self.window.val().get_bits::<8>(96)) << 8)
            | bit_cast::<16, 8>(self.window.val().get_bits::<8>(104)))
            == 0x8100;
        self.malformed.next = self.plain_read.malformed.val();
        self.non_roce.next = self.plain_read.non_roce.val();
        if self.vlan.val() {
            self.malformed.next = self.vlan_read.malformed.val();
            self.non_roce.next = self.vlan_read.non_roce.val();
        }
        if (self.frame_len.val() < 14) | (self.vlan.val() & (self.frame_len.val() < 18)) {
            self.malformed.next = true;
            self.non_roce.next = false;
        }
        self.roce.next = !self.malformed.val() & !self.non_roce.val();
        self.ipv6.next = self.plain_read.is_ipv6.val();
        self.bth_fields.next = self.plain_read.bth_fields.val();
        self.src_ip.next = self.plain_read.src_ip.val();
        self.dst_ip.next = self.plain_read.dst_ip.val();
        self.ecn.next = self.plain_read.ecn.val();
        self.flow_label.next = self.plain_read.flow_label.val();
        if self.vlan.val() {
            self.ipv6.next = self.vlan_read.is_ipv6.val();
            self.bth_fields.next = self.vlan_read.bth_fields.val();
            self.src_ip.next = self.vlan_read.src_ip.val();
            self.dst_ip.next = self.vlan_read.dst_ip.val();
            self.ecn.next = self.vlan_read.ecn.val();
            self.flow_label.next = self.vlan_read.flow_label.val();
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
                self.out_ipv6.d.next = self.ipv6.val();
                self.out_src_ip.d.next = self.src_ip.val();
                self.out_src_mac.d.next = self.window.val().get_bits::<48>(48);
                self.out_dst_ip.d.next = self.dst_ip.val();
                self.out_ecn.d.next = self.ecn.val();
                self.out_flow_label.d.next = self.flow_label.val();
                self.out_udp_src_port.d.next = self.bth_fields.val().get_bits::<16>(0);
                self.out_opcode.d.next = self.bth_fields.val().get_bits::<8>(16);
                self.out_bth_flags.d.next = self.bth_fields.val().get_bits::<8>(24);
                self.out_pkey.d.next = self.bth_fields.val().get_bits::<16>(32);
                self.out_dest_qp.d.next = self.bth_fields.val().get_bits::<24>(48);
                self.out_psn.d.next = self.bth_fields.val().get_bits::<24>(72);
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

/// One reading of the IP, UDP and BTH headers with the IP header at a fixed
/// offset (`l3_base`), classified by the rules of
/// `cngw_packet::parsed::classify` from the EtherType on (the frame's
/// minimum Ethernet lengths are the parser's). Combinational.
#[derive(LogicBlock)]
struct IpReading {
    /// The frame from the EtherType on (lane order).
    l2: Signal<In, Bits<1024>>,
    frame_len: Signal<In, Bits<17>>,
    ethertype: Signal<Local, Bits<16>>,
    is_ipv6: Signal<Out, Bit>,
    malformed: Signal<Out, Bit>,
    non_roce: Signal<Out, Bit>,
    /// The fields the parser reports, big-endian values: UDP source port
    /// (bits 15..0), BTH opcode (23..16), BTH byte 4 (31..24), P_Key
    /// (47..32), destination QP (71..48), PSN (95..72).
    bth_fields: Signal<Out, Bits<96>>,
    /// UDP header and BTH (l4 byte k is l4[8k+7:8k]).
    l4: Signal<Local, Bits<160>>,
    src_ip: Signal<Out, Bits<128>>,
    dst_ip: Signal<Out, Bits<128>>,
    ecn: Signal<Out, Bits<2>>,
    flow_label: Signal<Out, Bits<20>>,
    l3_base: Constant<Bits<17>>,
    l3: Signal<Local, Bits<1024>>,
    is_ipv4: Signal<Local, Bit>,
    ip_version: Signal<Local, Bits<4>>,
    ihl: Signal<Local, Bits<4>>,
    ipv4_total_len: Signal<Local, Bits<17>>,
    ipv4_flags_frag: Signal<Local, Bits<16>>,
    ipv6_payload_len: Signal<Local, Bits<17>>,
    ip_protocol: Signal<Local, Bits<8>>,
    /// Frame bytes from the UDP header on (`frame_len - l4_offset`, two's
    /// complement), computed beside the UDP header's selection.
    l4_room: Signal<Local, Bits<18>>,
    udp_dst_port: Signal<Local, Bits<16>>,
    udp_len: Signal<Local, Bits<17>>,
}

impl IpReading {
    fn new(l3_base: u64) -> Self {
        Self {
            l2: Default::default(),
            frame_len: Default::default(),
            ethertype: Default::default(),
            is_ipv6: Default::default(),
            malformed: Default::default(),
            non_roce: Default::default(),
            bth_fields: Default::default(),
            l4: Default::default(),
            src_ip: Default::default(),
            dst_ip: Default::default(),
            ecn: Default::default(),
            flow_label: Default::default(),
            l3_base: Constant::new(l3_base.to_bits()),
            l3: Default::default(),
            is_ipv4: Default::default(),
            ip_version: Default::default(),
            ihl: Default::default(),
            ipv4_total_len: Default::default(),
            ipv4_flags_frag: Default::default(),
            ipv6_payload_len: Default::default(),
            ip_protocol: Default::default(),
            l4_room: Default::default(),
            udp_dst_port: Default::default(),
            udp_len: Default::default(),
        }
    }
}

impl Logic for IpReading {
    #[hdl_gen]
    fn update(&mut self) {
        self.ethertype.next = (bit_cast::<16, 8>(self.l2.val().get_bits::<8>(0)) << 8)
            | bit_cast::<16, 8>(self.l2.val().get_bits::<8>(8));
        self.l3.next = self.l2.val() >> 16;
        self.is_ipv4.next = self.ethertype.val() == 0x0800;
        self.is_ipv6.next = self.ethertype.val() == 0x86dd;
        // IP header fields (l3 byte k is l3[8k+7:8k]).
        self.ip_version.next = self.l3.val().get_bits::<4>(4);
        self.ihl.next = self.l3.val().get_bits::<4>(0);
        self.ipv4_total_len.next = (bit_cast::<17, 8>(self.l3.val().get_bits::<8>(16)) << 8)
            | bit_cast::<17, 8>(self.l3.val().get_bits::<8>(24));
        self.ipv4_flags_frag.next = (bit_cast::<16, 8>(self.l3.val().get_bits::<8>(48)) << 8)
            | bit_cast::<16, 8>(self.l3.val().get_bits::<8>(56));
        self.ipv6_payload_len.next = (bit_cast::<17, 8>(self.l3.val().get_bits::<8>(32)) << 8)
            | bit_cast::<17, 8>(self.l3.val().get_bits::<8>(40));
        self.flow_label.next = 0.into();
        if self.is_ipv6.val() {
            self.ip_protocol.next = self.l3.val().get_bits::<8>(48);
            self.l4.next = self.l3.val().get_bits::<160>(320);
            self.l4_room.next = bit_cast::<18, 17>(self.frame_len.val())
                - bit_cast::<18, 17>(self.l3_base.val())
                - 40;
            self.ecn.next = self.l3.val().get_bits::<2>(12);
            self.src_ip.next = self.l3.val().get_bits::<128>(64);
            self.dst_ip.next = self.l3.val().get_bits::<128>(192);
            self.flow_label.next = (bit_cast::<20, 4>(self.l3.val().get_bits::<4>(8)) << 16)
                | (bit_cast::<20, 8>(self.l3.val().get_bits::<8>(16)) << 8)
                | bit_cast::<20, 8>(self.l3.val().get_bits::<8>(24));
        } else {
            self.ip_protocol.next = self.l3.val().get_bits::<8>(72);
            self.l4.next = self
                .l3
                .val()
                .get_bits::<160>((bit_cast::<10, 4>(self.ihl.val()) << 5).index());
            self.l4_room.next = bit_cast::<18, 17>(self.frame_len.val())
                - bit_cast::<18, 17>(self.l3_base.val())
                - (bit_cast::<18, 4>(self.ihl.val()) << 2);
            self.ecn.next = self.l3.val().get_bits::<2>(8);
            self.src_ip.next = (bit_cast::<128, 32>(self.l3.val().get_bits::<32>(96)) << 96)
                | (bit_cast::<128, 16>(0xffff.into()) << 80);
            self.dst_ip.next = (bit_cast::<128, 32>(self.l3.val().get_bits::<32>(128)) << 96)
                | (bit_cast::<128, 16>(0xffff.into()) << 80);
        }
        // UDP and BTH (l4 byte k is l4[8k+7:8k]).
        self.udp_dst_port.next = (bit_cast::<16, 8>(self.l4.val().get_bits::<8>(16)) << 8)
            | bit_cast::<16, 8>(self.l4.val().get_bits::<8>(24));
        self.udp_len.next = (bit_cast::<17, 8>(self.l4.val().get_bits::<8>(32)) << 8)
            | bit_cast::<17, 8>(self.l4.val().get_bits::<8>(40));
        self.bth_fields.next = (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(0)) << 8)
            | bit_cast::<96, 8>(self.l4.val().get_bits::<8>(8))
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(64)) << 16)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(96)) << 24)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(80)) << 40)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(88)) << 32)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(104)) << 64)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(112)) << 56)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(120)) << 48)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(136)) << 88)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(144)) << 80)
            | (bit_cast::<96, 8>(self.l4.val().get_bits::<8>(152)) << 72);

        // Classification as this reading, in the order of
        // cngw_packet::parsed::classify (the frame's minimum lengths
        // are checked below, once).
        self.malformed.next = false;
        self.non_roce.next = false;
        if self.is_ipv4.val() {
            if (self.frame_len.val() < self.l3_base.val() + 20)
                | (self.ip_version.val() != 4)
                | (self.ihl.val() < 5)
                | (self.ipv4_total_len.val() < (bit_cast::<17, 4>(self.ihl.val()) << 2))
                | (self.l3_base.val() + self.ipv4_total_len.val() > self.frame_len.val())
            {
                self.malformed.next = true;
            } else if (self.ip_protocol.val() != 17)
                | self.ipv4_flags_frag.val().get_bit(13)
                | self.ipv4_flags_frag.val().get_bits::<13>(0).any()
            {
                self.non_roce.next = true;
            }
        } else if self.is_ipv6.val() {
            if (self.frame_len.val() < self.l3_base.val() + 40)
                | (self.ip_version.val() != 6)
                | (self.l3_base.val() + 40 + self.ipv6_payload_len.val() > self.frame_len.val())
            {
                self.malformed.next = true;
            } else if self.ip_protocol.val() != 17 {
                self.non_roce.next = true;
            }
        } else {
            self.non_roce.next = true;
        }
        if !self.malformed.val() & !self.non_roce.val() {
            // l4_room < 8, negative included: shorter than a UDP header.
            if self.l4_room.val().get_bit(17) | (self.l4_room.val() < 8) {
                self.malformed.next = true;
            } else if self.udp_dst_port.val() != 4791 {
                self.non_roce.next = true;
            } else if (self.udp_len.val() < 20)
                | (self.udp_len.val() > self.l4_room.val().get_bits::<17>(0))
                | (self.l4_room.val() < 20)
            {
                self.malformed.next = true;
            }
        }
    }
}

/// Bit `b` of a lane count from its thermometer code: the positions
/// `m * 2^(b+1) + 2^b - 1` (and lane 63 alone for the count's bit 6, 64).
fn count_lane_mask(b: usize) -> Bits<64> {
    let mut m = 0u64;
    if b == 6 {
        m = 1 << 63;
    } else {
        let period = 1usize << (b + 1);
        for k in 0..64 / period {
            m |= 1 << (k * period + (1 << b) - 1);
        }
    }
    bits::<64>(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_header_parser_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<HeaderParser>("header_parser");
    }
}
