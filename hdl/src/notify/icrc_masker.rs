//! `IcrcMasker`: turns the beats of a RoCEv2 Ethernet frame into the
//! `Crc32Engine` input whose CRC is the frame's ICRC.
//!
//! ```text
//!                +-----------------------+
//!  tap.tdata  -->| beat 0: find IP, UDP, |--> data        (masked bytes)
//!  tap.tkeep  -->|   ICRC end            |--> keep, last  (up to the ICRC field)
//!  tap.tlast  -->| beats 0, 1: force the |--> valid, first
//!  tap.tvalid -->|   invariant-masked    |--> start_lane  (first covered lane: 6, or
//!  tap.tready -->|   bytes to 0xFF       |                 10 behind an 802.1Q tag)
//!                +-----------------------+
//! ```
//! The ICRC (IBTA Annex A17.4.1, Vol. 1 section 7.8.1) is the CRC-32 of
//! 8 bytes of 0xFF standing in for the LRH, the IP header with IPv4 TOS, TTL
//! and header checksum (IPv6 traffic class, flow label and hop limit) as
//! ones, the UDP header with its checksum as ones, the BTH with byte 4 (FECN,
//! BECN, reserved) as ones, and the rest of the packet up to the ICRC. The
//! software definition is `cngw_packet::icrc::compute`.
//!
//! No realignment: the 8 bytes of 0xFF are written over the last 8 bytes
//! of the Ethernet header (lanes 6..13, or 10..17 with one 802.1Q tag), and
//! the engine starts the message at that lane (`start_lane`). The end comes
//! from the IP length (`total length - 4`, or `40 + payload length - 4`),
//! so Ethernet padding after the IP packet is left out and the beat holding
//! the end is flagged `last` as it passes: no look-ahead, no delay. Beats
//! after it (the ICRC field itself, padding) are not passed on.
//!
//! Every masked byte lies in the first 128 bytes (at most 18 + 60 + 13), so
//! masks are two 64-lane windows of one 128-position mask built on beat 0:
//! a constant per (802.1Q tag, IP version) for the LRH stand-in and the IP
//! fields, plus the UDP/BTH pattern shifted to the UDP offset (20 + IPv4
//! options, or 40, after the IP start).
//!
//! Latency one clock (outputs are registered), one beat per clock, never
//! stalls (it taps the stream like `HeaderParser`). It expects what the
//! notification builder makes: a RoCEv2 frame, IPv4 (options allowed) or
//! IPv6 with UDP next, behind at most one 802.1Q tag, whose IP length covers
//! at least the headers and the ICRC. A frame that ends before its IP length
//! says ends the message at its last byte (`keep` from `tkeep`), so every
//! frame still gets exactly one result and a builder never waits for one.
//!
//! Issue 4: ICRC of generated RoCEv2 notifications (LH-12, FCN-05, RA-03).

use crate::stream::axis::AxisTap;
use rust_hdl::prelude::*;

/// Byte offset of the IP header without and with an 802.1Q tag.
pub const IP_OFFSET: usize = 14;
pub const IP_OFFSET_VLAN: usize = 18;

/// Positions (frame byte offsets) forced to 0xFF for an IP header at
/// `ip_offset`, apart from the UDP and BTH fields.
pub fn header_ff_positions(ip_offset: usize, ipv6: bool) -> Vec<usize> {
    let mut p: Vec<usize> = (ip_offset - 8..ip_offset).collect();
    let fields: &[usize] = if ipv6 {
        // Traffic class (low nibble), flow label; hop limit.
        &[1, 2, 3, 7]
    } else {
        // TOS; TTL; header checksum.
        &[1, 8, 10, 11]
    };
    p.extend(fields.iter().map(|f| ip_offset + f));
    p
}

/// UDP checksum (6, 7) and BTH byte 4 (12), relative to the UDP header.
pub const UDP_FF_POSITIONS: [usize; 3] = [6, 7, 12];

fn mask128(positions: &[usize]) -> Bits<128> {
    let m = positions.iter().fold(0u128, |m, &p| m | 1 << p);
    bit_cast::<128, 64>(bits::<64>(m as u64))
        | (bit_cast::<128, 64>(bits::<64>((m >> 64) as u64)) << 64)
}

fn lane_bits(lane: usize, byte: u8) -> Bits<512> {
    bit_cast::<512, 8>(bits::<8>(byte as u64)) << (8 * lane as u64)
}

#[derive(LogicBlock)]
pub struct IcrcMasker {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The frame's stream, watched.
    pub tap: AxisTap,
    // To the engine (see `Crc32Engine`).
    pub data: Signal<Out, Bits<512>>,
    pub keep: Signal<Out, Bits<64>>,
    pub valid: Signal<Out, Bit>,
    pub first: Signal<Out, Bit>,
    pub last: Signal<Out, Bit>,
    pub start_lane: Signal<Out, Bits<6>>,
    /// 1: the frame's layout is given, not parsed from beat 0: no 802.1Q
    /// tag, IPv4 without options or IPv6 (`given_ipv6`), the ICRC field at
    /// frame byte `given_icrc_at`; read with beat 0. A builder that knows
    /// its frame ties `given` to 1 and synthesis removes the parse.
    pub given: Signal<In, Bit>,
    pub given_ipv6: Signal<In, Bit>,
    pub given_icrc_at: Signal<In, Bits<16>>,
    // Constant masks over frame positions 0..127.
    ff_ipv4: Constant<Bits<128>>,
    ff_ipv4_vlan: Constant<Bits<128>>,
    ff_ipv6: Constant<Bits<128>>,
    ff_ipv6_vlan: Constant<Bits<128>>,
    nibble_ipv6: Constant<Bits<128>>,
    nibble_ipv6_vlan: Constant<Bits<128>>,
    ff_udp: Constant<Bits<128>>,
    lane_ones: Vec<Constant<Bits<512>>>,
    lane_low_nibbles: Vec<Constant<Bits<512>>>,
    lane_index: Vec<Constant<Bits<7>>>,
    // Frame state.
    /// Past beat 0 of a frame; at its beat 1.
    in_frame: DFF<Bit>,
    at_beat1: DFF<Bit>,
    message_done: DFF<Bit>,
    /// Beat 1's lanes of the masks beat 0 decoded.
    beat1_ff: DFF<Bits<64>>,
    beat1_nibble: DFF<Bits<64>>,
    frame_bytes_left: DFF<Bits<16>>,
    /// The next beat ends the message, and its lanes before the end:
    /// worked out a beat ahead, so that a later beat's `keep` is one AND.
    frame_ends: DFF<Bit>,
    frame_lanes: DFF<Bits<64>>,
    // Registered outputs.
    out_data: DFF<Bits<512>>,
    out_keep: DFF<Bits<64>>,
    out_valid: DFF<Bit>,
    out_first: DFF<Bit>,
    out_last: DFF<Bit>,
    out_start_lane: DFF<Bits<6>>,
    // Combinational: beat 0 decode.
    transfer: Signal<Local, Bit>,
    vlan: Signal<Local, Bit>,
    ipv6: Signal<Local, Bit>,
    ihl: Signal<Local, Bits<4>>,
    ip_length: Signal<Local, Bits<16>>,
    ip_offset: Signal<Local, Bits<16>>,
    udp_offset: Signal<Local, Bits<7>>,
    parsed_ff: Signal<Local, Bits<128>>,
    parsed_nibble: Signal<Local, Bits<128>>,
    parsed_icrc_at: Signal<Local, Bits<16>>,
    // Combinational: this beat.
    lane_ff: Signal<Local, Bits<64>>,
    lane_nibble: Signal<Local, Bits<64>>,
    masked: Signal<Local, Bits<512>>,
    ends_here: Signal<Local, Bit>,
    end_lanes: Signal<Local, Bits<64>>,
    next_left: Signal<Local, Bits<16>>,
    next_ends: Signal<Local, Bit>,
    next_lanes: Signal<Local, Bits<64>>,
    first_lanes: Signal<Local, Bits<64>>,
    first_next_left: Signal<Local, Bits<16>>,
    first_next_lanes: Signal<Local, Bits<64>>,
}

impl Default for IcrcMasker {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tap: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            valid: Default::default(),
            first: Default::default(),
            last: Default::default(),
            start_lane: Default::default(),
            given: Default::default(),
            given_ipv6: Default::default(),
            given_icrc_at: Default::default(),
            ff_ipv4: Constant::new(mask128(&header_ff_positions(IP_OFFSET, false))),
            ff_ipv4_vlan: Constant::new(mask128(&header_ff_positions(IP_OFFSET_VLAN, false))),
            ff_ipv6: Constant::new(mask128(&header_ff_positions(IP_OFFSET, true))),
            ff_ipv6_vlan: Constant::new(mask128(&header_ff_positions(IP_OFFSET_VLAN, true))),
            nibble_ipv6: Constant::new(mask128(&[IP_OFFSET])),
            nibble_ipv6_vlan: Constant::new(mask128(&[IP_OFFSET_VLAN])),
            ff_udp: Constant::new(mask128(&UDP_FF_POSITIONS)),
            lane_ones: (0..64).map(|l| Constant::new(lane_bits(l, 0xFF))).collect(),
            lane_low_nibbles: (0..64).map(|l| Constant::new(lane_bits(l, 0x0F))).collect(),
            lane_index: (0..64).map(|l| Constant::new(bits::<7>(l))).collect(),
            in_frame: Default::default(),
            at_beat1: Default::default(),
            message_done: Default::default(),
            beat1_ff: Default::default(),
            beat1_nibble: Default::default(),
            frame_bytes_left: Default::default(),
            frame_ends: Default::default(),
            frame_lanes: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_valid: Default::default(),
            out_first: Default::default(),
            out_last: Default::default(),
            out_start_lane: Default::default(),
            transfer: Default::default(),
            vlan: Default::default(),
            ipv6: Default::default(),
            ihl: Default::default(),
            ip_length: Default::default(),
            ip_offset: Default::default(),
            udp_offset: Default::default(),
            parsed_ff: Default::default(),
            parsed_nibble: Default::default(),
            parsed_icrc_at: Default::default(),
            lane_ff: Default::default(),
            lane_nibble: Default::default(),
            masked: Default::default(),
            ends_here: Default::default(),
            end_lanes: Default::default(),
            next_left: Default::default(),
            next_ends: Default::default(),
            next_lanes: Default::default(),
            first_lanes: Default::default(),
            first_next_left: Default::default(),
            first_next_lanes: Default::default(),
        }
    }
}

impl Logic for IcrcMasker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_frame,
            at_beat1,
            message_done,
            beat1_ff,
            beat1_nibble,
            frame_bytes_left,
            frame_ends,
            frame_lanes,
            out_data,
            out_keep,
            out_valid,
            out_first,
            out_last,
            out_start_lane
        );
        self.data.next = self.out_data.q.val();
        self.keep.next = self.out_keep.q.val();
        self.valid.next = self.out_valid.q.val();
        self.first.next = self.out_first.q.val();
        self.last.next = self.out_last.q.val();
        self.start_lane.next = self.out_start_lane.q.val();
        self.transfer.next = self.tap.tvalid.val() & self.tap.tready.val();

        // Beat 0: Ethernet type (bytes 12, 13; 16, 17 behind a tag), IHL,
        // and the IP length (IPv4 total length at IP bytes 2, 3; IPv6
        // payload length at 4, 5).
        self.vlan.next = (self.tap.tdata.val().get_bits::<8>(96) == 0x81)
            & (self.tap.tdata.val().get_bits::<8>(104) == 0x00);
        if self.vlan.val() {
            self.ipv6.next = (self.tap.tdata.val().get_bits::<8>(128) == 0x86)
                & (self.tap.tdata.val().get_bits::<8>(136) == 0xdd);
            self.ihl.next = self.tap.tdata.val().get_bits::<4>(144);
            if self.ipv6.val() {
                self.ip_length.next = (bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(176))
                    << 8)
                    | bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(184));
            } else {
                self.ip_length.next = (bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(160))
                    << 8)
                    | bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(168));
            }
            self.ip_offset.next = 18.into();
            self.out_start_lane.d.next = 10.into();
        } else {
            self.ipv6.next = (self.tap.tdata.val().get_bits::<8>(96) == 0x86)
                & (self.tap.tdata.val().get_bits::<8>(104) == 0xdd);
            self.ihl.next = self.tap.tdata.val().get_bits::<4>(112);
            if self.ipv6.val() {
                self.ip_length.next = (bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(144))
                    << 8)
                    | bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(152));
            } else {
                self.ip_length.next = (bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(128))
                    << 8)
                    | bit_cast::<16, 8>(self.tap.tdata.val().get_bits::<8>(136));
            }
            self.ip_offset.next = 14.into();
            self.out_start_lane.d.next = 6.into();
        }
        if self.given.val() {
            self.vlan.next = false;
            self.ipv6.next = self.given_ipv6.val();
            self.ihl.next = 5.into();
            self.ip_offset.next = 14.into();
            self.out_start_lane.d.next = 6.into();
        }
        // The ICRC starts 4 bytes before the end of the IP packet.
        if self.ipv6.val() {
            self.udp_offset.next = self.ip_offset.val().get_bits::<7>(0) + 40;
            self.parsed_icrc_at.next = self.ip_offset.val() + 36 + self.ip_length.val();
        } else {
            self.udp_offset.next =
                self.ip_offset.val().get_bits::<7>(0) + (bit_cast::<7, 4>(self.ihl.val()) << 2);
            self.parsed_icrc_at.next = self.ip_offset.val() + self.ip_length.val() - 4;
        }
        if self.given.val() {
            self.parsed_icrc_at.next = self.given_icrc_at.val();
        }
        self.parsed_nibble.next = 0.into();
        if self.ipv6.val() & self.vlan.val() {
            self.parsed_ff.next = self.ff_ipv6_vlan.val();
            self.parsed_nibble.next = self.nibble_ipv6_vlan.val();
        } else if self.ipv6.val() {
            self.parsed_ff.next = self.ff_ipv6.val();
            self.parsed_nibble.next = self.nibble_ipv6.val();
        } else if self.vlan.val() {
            self.parsed_ff.next = self.ff_ipv4_vlan.val();
        } else {
            self.parsed_ff.next = self.ff_ipv4.val();
        }
        self.parsed_ff.next = self.parsed_ff.val() | (self.ff_udp.val() << self.udp_offset.val());

        // This beat's masks: beat 0 decodes, beat 1 uses what beat 0 found
        // (every masked byte is in the first 128), later beats none. Beat
        // flags, not a counter, so that the wide selections hang off one
        // register bit each.
        self.lane_ff.next = 0.into();
        self.lane_nibble.next = 0.into();
        if !self.in_frame.q.val() {
            self.lane_ff.next = self.parsed_ff.val().get_bits::<64>(0);
            self.lane_nibble.next = self.parsed_nibble.val().get_bits::<64>(0);
        } else if self.at_beat1.q.val() {
            self.lane_ff.next = self.beat1_ff.q.val();
            self.lane_nibble.next = self.beat1_nibble.q.val();
        }
        self.masked.next = self.tap.tdata.val();
        // Only a transferred beat is masked (a simulator skips the 64 lane
        // masks on idle clocks; the hardware is the same).
        if self.transfer.val() {
            for lane in 0..64 {
                if self.lane_ff.val().get_bit(lane) {
                    self.masked.next = self.masked.val() | self.lane_ones[lane].val();
                }
                if self.lane_nibble.val().get_bit(lane) {
                    self.masked.next = self.masked.val() | self.lane_low_nibbles[lane].val();
                }
            }
        }
        // Bytes of the message from this beat on (a down-counter after beat
        // 0), whether it ends in this beat, and its lanes before the end
        // (`l < bytes_left`); and the same for the next beat, registered, so
        // that a later beat's `keep` is one AND. Beat 0's come from the
        // header, the others' from the registers; both are worked out and
        // the beat flag picks (a short path from every register).
        self.ends_here.next = false;
        self.end_lanes.next = 0.into();
        self.next_left.next = 0.into();
        self.next_ends.next = false;
        self.next_lanes.next = 0.into();
        self.first_next_left.next = 0.into();
        self.first_lanes.next = 0.into();
        self.first_next_lanes.next = 0.into();
        if self.transfer.val() {
            self.ends_here.next = self.frame_ends.q.val();
            self.end_lanes.next = self.frame_lanes.q.val();
            self.next_left.next = self.frame_bytes_left.q.val() - 64;
            self.next_ends.next = self.frame_bytes_left.q.val() <= 128;
            self.first_next_left.next = self.parsed_icrc_at.val() - 64;
            for lane in 0..64 {
                self.next_lanes.next = self.next_lanes.val().replace_bit(
                    lane,
                    self.next_left.val().get_bits::<7>(0) > self.lane_index[lane].val(),
                );
                self.first_lanes.next = self.first_lanes.val().replace_bit(
                    lane,
                    self.parsed_icrc_at.val().get_bits::<7>(0) > self.lane_index[lane].val(),
                );
                self.first_next_lanes.next = self.first_next_lanes.val().replace_bit(
                    lane,
                    self.first_next_left.val().get_bits::<7>(0) > self.lane_index[lane].val(),
                );
            }
            if !self.in_frame.q.val() {
                self.ends_here.next = self.parsed_icrc_at.val() <= 64;
                self.end_lanes.next = self.first_lanes.val();
                self.next_left.next = self.first_next_left.val();
                self.next_ends.next = self.parsed_icrc_at.val() <= 128;
                self.next_lanes.next = self.first_next_lanes.val();
            }
        }

        self.out_valid.d.next = false;
        if self.transfer.val() {
            self.out_data.d.next = self.masked.val();
            self.out_first.d.next = !self.in_frame.q.val();
            // A frame that ends early still ends the message, so every
            // frame gets exactly one result.
            self.out_last.d.next = self.ends_here.val() | self.tap.tlast.val();
            self.out_keep.d.next = self.tap.tkeep.val();
            if self.ends_here.val() {
                self.out_keep.d.next = self.tap.tkeep.val() & self.end_lanes.val();
                self.message_done.d.next = true;
            }
            self.out_valid.d.next = !self.message_done.q.val();
            self.beat1_ff.d.next = self.parsed_ff.val().get_bits::<64>(64);
            self.beat1_nibble.d.next = self.parsed_nibble.val().get_bits::<64>(64);
            self.frame_bytes_left.d.next = self.next_left.val();
            self.frame_ends.d.next = self.next_ends.val();
            self.frame_lanes.d.next = self.next_lanes.val();
            self.at_beat1.d.next = !self.in_frame.q.val() & !self.tap.tlast.val();
            self.in_frame.d.next = !self.tap.tlast.val();
            if self.tap.tlast.val() {
                self.message_done.d.next = false;
            }
        }
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.at_beat1.d.next = false;
            self.message_done.d.next = false;
            self.out_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_icrc_masker_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<IcrcMasker>("icrc_masker");
    }

    /// The masked positions are those of the software ICRC.
    #[test]
    fn lh_12_masked_positions_follow_annex_a17() {
        assert_eq!(
            header_ff_positions(IP_OFFSET, false),
            vec![6, 7, 8, 9, 10, 11, 12, 13, 15, 22, 24, 25]
        );
        assert_eq!(
            header_ff_positions(IP_OFFSET_VLAN, true),
            vec![10, 11, 12, 13, 14, 15, 16, 17, 19, 20, 21, 25]
        );
        // Furthest masked byte: BTH byte 4 behind a tag and 40 bytes of options.
        assert!(IP_OFFSET_VLAN + 60 + UDP_FF_POSITIONS[2] < 128);
    }
}
