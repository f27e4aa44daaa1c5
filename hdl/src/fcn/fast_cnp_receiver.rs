//! `FastCnpReceiver`: the ingress PE's Fast CNP recogniser (FCN-05, FCN-06):
//! claims, at its first beat, each frame on a 512-bit AXI4-Stream that is a
//! Fast CNP addressed to this PE, and reports the Fast CNP's fields after
//! its last beat.
//!
//! ```text
//!                        +---------------------------------+
//!  tdata, tkeep,   ----->| first beat: Ethernet/802.1Q,    |--> claim (combinational, first beat)
//!  tlast, tvalid,        |   IPv6, dst == gw_ipv6, UDP,    |
//!  tready (tap)          |   dport == udp_port; keeps the  |
//!  enable, gw_ipv6, ---->|   source, UDP header, lengths,  |
//!  udp_port              |   sum of both addresses         |
//!                        | second beat: bytes 0..5, tkeep  |--> msg_valid (one clock)
//!  dom0_prefix/len/valid>| last beat: pulse next clock     |--> msg_src, msg_label, msg_level,
//!  dom1_prefix/len/valid>| (checksum, prefixes: from the   |    msg_well_formed, msg_checksum_ok,
//!                        |  registers, combinational)      |    msg_in_domain
//!                        +---------------------------------+
//! ```
//! draft-he-fcn-in-wan section 4.1 ("When the ingress PE receives a Fast
//! CNP ... extract the Flow Label as well as the optional congestion
//! level") and section 4.2 (the format: UDP to port TBD1, length 12, a
//! 4-byte payload of flow label (20 bits), congestion level (3 bits) and 9
//! reserved bits, ignored on receipt); its Security Considerations (Fast
//! CNP only inside a controlled domain, the feature off by default) for
//! `enable` and the domain prefixes (FCN-06's "filtered").
//!
//! Like `CmSnoop` it taps the stream: a beat counts when `tvalid & tready`,
//! and the block never stalls the stream.
//!
//! **Claim.** `claim` is high while a frame's first beat is on the tap
//! (`tvalid`, the previous beat taken was a last one or none was) and that
//! beat shows a Fast CNP for this PE: Ethernet with at most one 802.1Q tag
//! (TPID 0x8100), EtherType 0x86DD, IP version 6, next header 17 (UDP),
//! destination address `gw_ipv6`, UDP destination port `udp_port`, and
//! `enable`. All these bytes lie in the first 64 (the UDP destination port
//! at bytes 56..57, 60..61 behind a tag), so `claim` depends on the first
//! beat's lanes only, whatever `tkeep` says, and never on `tready` (a frame
//! filter may derive `tready` from it). `enable`, `gw_ipv6` and `udp_port`
//! are looked at with the first beat.
//!
//! **Message.** For each claimed frame, `msg_valid` is high for one clock:
//! the clock after the one in which its last beat is taken (latency 1; a
//! 1-beat frame included). In that clock the other outputs hold:
//! - `msg_src`: the outer IPv6 source address, lane order (address byte 0
//!   at bits 7..0), as `gw_ipv6`;
//! - `msg_label`, `msg_level`: the payload's flow label and congestion
//!   level, as numbers (the reserved bits are ignored);
//! - `msg_well_formed`: IPv6 payload length 12, UDP length 12, and the frame
//!   holds all 66 bytes of the Fast CNP (70 behind a tag); bytes after them
//!   (Ethernet padding, any number of beats) are allowed;
//! - `msg_checksum_ok`: the frame holds all those bytes, the UDP checksum
//!   field is not 0 (0 is invalid over IPv6, RFC 8200 section 8.1) and the
//!   one's complement sum of the IPv6 pseudo-header (source, destination,
//!   the UDP length field as upper-layer length, next header 17) and the
//!   12 bytes of the UDP datagram is 0xFFFF;
//! - `msg_in_domain`: the source lies in a valid domain prefix
//!   (`domN_valid`, the first `domN_len` bits of `domN_prefix`, lane order,
//!   equal to the source's; length 0 matches every source, lengths above
//!   128 act as 128). The prefixes are looked at in the clock of the pulse.
//!
//! Fields are read from the lanes whatever `tkeep` says: when the frame is
//! too short (`msg_well_formed` and `msg_checksum_ok` low) they hold what
//! the lanes held, and bytes of a second beat the frame does not have read
//! as zero.
//!
//! Throughput: one beat per clock, frames back to back (a first beat in the
//! clock after a last beat), any number of 1-beat frames in a row: pulses
//! of consecutive frames may come in consecutive clocks.
//!
//! Timing: the first beat's path is the header compare and a 16-word sum
//! of the two addresses (registered); the pulse's outputs are a 9-word sum
//! and the two 128-bit prefix compares on registers.

use crate::px::PrefixMatch;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FastCnpReceiver {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The stream watched (a beat counts when `tvalid & tready`).
    pub tdata: Signal<In, Bits<512>>,
    pub tkeep: Signal<In, Bits<64>>,
    pub tlast: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<In, Bit>,
    /// Fast CNP reception is on (the draft: off by default).
    pub enable: Signal<In, Bit>,
    /// This PE's IPv6 address, lane order (byte 0 at bits 7..0).
    pub gw_ipv6: Signal<In, Bits<128>>,
    /// The Fast CNP UDP destination port (a number).
    pub udp_port: Signal<In, Bits<16>>,
    /// Two in-domain source prefixes, lane order, with their lengths in bits.
    pub dom0_prefix: Signal<In, Bits<128>>,
    pub dom0_len: Signal<In, Bits<8>>,
    pub dom0_valid: Signal<In, Bit>,
    pub dom1_prefix: Signal<In, Bits<128>>,
    pub dom1_len: Signal<In, Bits<8>>,
    pub dom1_valid: Signal<In, Bit>,
    /// The first beat on the tap is a Fast CNP for this PE (combinational).
    pub claim: Signal<Out, Bit>,
    /// One clock, the clock after a claimed frame's last beat.
    pub msg_valid: Signal<Out, Bit>,
    pub msg_src: Signal<Out, Bits<128>>,
    pub msg_label: Signal<Out, Bits<20>>,
    pub msg_level: Signal<Out, Bits<3>>,
    pub msg_well_formed: Signal<Out, Bit>,
    pub msg_checksum_ok: Signal<Out, Bit>,
    pub msg_in_domain: Signal<Out, Bit>,
    // Frame state.
    /// 0: the next beat is a first beat; 1: a second; 2: a later one.
    beat: DFF<Bits<2>>,
    /// The frame in progress was claimed.
    tracking: DFF<Bit>,
    /// A claimed frame's last beat was taken in the previous clock.
    done: DFF<Bit>,
    // Kept from the first beat.
    r_vlan: DFF<Bit>,
    r_src: DFF<Bits<128>>,
    /// Sum of the sixteen 16-bit words of both addresses.
    r_addr_sum: DFF<Bits<20>>,
    /// UDP source port, destination port, length (lanes of UDP bytes 0..5).
    r_udp_a: DFF<Bits<48>>,
    /// Without a tag: UDP bytes 6..9 (checksum, payload bytes 0..1); else 0.
    r_udp_b: DFF<Bits<32>>,
    /// IPv6 payload length and UDP length are 12.
    r_len_ok: DFF<Bit>,
    // Kept from the second beat (zero after a first beat).
    r_beat1: DFF<Bits<48>>,
    /// The frame holds the whole Fast CNP.
    r_complete: DFF<Bit>,
    // Combinational.
    transfer: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    vlan: Signal<Local, Bit>,
    ethertype_lanes: Signal<Local, Bits<16>>,
    version: Signal<Local, Bits<4>>,
    payload_len_lanes: Signal<Local, Bits<16>>,
    next_header: Signal<Local, Bits<8>>,
    src: Signal<Local, Bits<128>>,
    dst: Signal<Local, Bits<128>>,
    udp_a: Signal<Local, Bits<48>>,
    udp_b: Signal<Local, Bits<32>>,
    /// `udp_port` in its lanes (high byte in bits 7..0).
    port_lanes: Signal<Local, Bits<16>>,
    is_fast_cnp: Signal<Local, Bit>,
    claimed: Signal<Local, Bit>,
    lane_word: Signal<Local, Bits<16>>,
    word: Signal<Local, Bits<16>>,
    addr_sum: Signal<Local, Bits<20>>,
    /// The 12-byte UDP datagram of the pulse's frame, lane order.
    datagram: Signal<Local, Bits<96>>,
    sum: Signal<Local, Bits<24>>,
    fold: Signal<Local, Bits<24>>,
    /// Bit `n` set for the first `domN_len` address bits (network order).
    dom: PrefixMatch,
}

impl Logic for FastCnpReceiver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, beat, tracking, done, r_vlan, r_src, r_addr_sum, r_udp_a, r_udp_b,
            r_len_ok, r_beat1, r_complete
        );
        self.transfer.next = self.tvalid.val() & self.tready.val();
        self.first.next = self.beat.q.val() == 0;

        // The first beat's fields, behind 14 bytes of Ethernet or 18 with a
        // tag (EtherType lanes: 0x8100 is 0x0081, 0x86DD is 0xDD86).
        self.vlan.next = self.tdata.val().get_bits::<16>(96) == 0x0081;
        if self.vlan.val() {
            self.ethertype_lanes.next = self.tdata.val().get_bits::<16>(128);
            self.version.next = self.tdata.val().get_bits::<4>(148);
            self.payload_len_lanes.next = self.tdata.val().get_bits::<16>(176);
            self.next_header.next = self.tdata.val().get_bits::<8>(192);
            self.src.next = self.tdata.val().get_bits::<128>(208);
            self.dst.next = self.tdata.val().get_bits::<128>(336);
            self.udp_a.next = self.tdata.val().get_bits::<48>(464);
            self.udp_b.next = 0.into();
        } else {
            self.ethertype_lanes.next = self.tdata.val().get_bits::<16>(96);
            self.version.next = self.tdata.val().get_bits::<4>(116);
            self.payload_len_lanes.next = self.tdata.val().get_bits::<16>(144);
            self.next_header.next = self.tdata.val().get_bits::<8>(160);
            self.src.next = self.tdata.val().get_bits::<128>(176);
            self.dst.next = self.tdata.val().get_bits::<128>(304);
            self.udp_a.next = self.tdata.val().get_bits::<48>(432);
            self.udp_b.next = self.tdata.val().get_bits::<32>(480);
        }
        self.port_lanes.next = (self.udp_port.val() >> 8) | (self.udp_port.val() << 8);
        self.is_fast_cnp.next = (self.ethertype_lanes.val() == 0xdd86)
            & (self.version.val() == 6)
            & (self.next_header.val() == 17)
            & (self.dst.val() == self.gw_ipv6.val())
            & (self.udp_a.val().get_bits::<16>(16) == self.port_lanes.val());
        self.claimed.next = self.first.val() & self.enable.val() & self.is_fast_cnp.val();
        self.claim.next = self.tvalid.val() & self.claimed.val();

        // Both addresses' words (the pseudo-header's), summed at the first
        // beat (words swapped in a 16-bit signal: inside the cast Verilog
        // would widen `<< 8`).
        self.addr_sum.next = 0.into();
        for i in 0..8 {
            self.lane_word.next = self.src.val().get_bits::<16>(16 * i);
            self.word.next = (self.lane_word.val() >> 8) | (self.lane_word.val() << 8);
            self.addr_sum.next = self.addr_sum.val() + bit_cast::<20, 16>(self.word.val());
            self.lane_word.next = self.dst.val().get_bits::<16>(16 * i);
            self.word.next = (self.lane_word.val() >> 8) | (self.lane_word.val() << 8);
            self.addr_sum.next = self.addr_sum.val() + bit_cast::<20, 16>(self.word.val());
        }

        self.done.d.next = false;
        if self.transfer.val() {
            if self.first.val() {
                self.tracking.d.next = self.claimed.val();
                self.r_vlan.d.next = self.vlan.val();
                self.r_src.d.next = self.src.val();
                self.r_addr_sum.d.next = self.addr_sum.val();
                self.r_udp_a.d.next = self.udp_a.val();
                self.r_udp_b.d.next = self.udp_b.val();
                self.r_len_ok.d.next = (self.payload_len_lanes.val() == 0x0c00)
                    & (self.udp_a.val().get_bits::<16>(32) == 0x0c00);
                self.r_beat1.d.next = 0.into();
                self.r_complete.d.next = false;
                self.done.d.next = self.tlast.val() & self.claimed.val();
            } else {
                self.done.d.next = self.tlast.val() & self.tracking.q.val();
            }
            if self.beat.q.val() == 1 {
                self.r_beat1.d.next = self.tdata.val().get_bits::<48>(0);
                // The Fast CNP ends at byte 65 (69 behind a tag): lane 1 (5).
                self.r_complete.d.next = self.tkeep.val().get_bit(1);
                if self.r_vlan.q.val() {
                    self.r_complete.d.next = self.tkeep.val().get_bit(5);
                }
            }
            if self.tlast.val() {
                self.beat.d.next = 0.into();
            } else if self.beat.q.val() != 2 {
                self.beat.d.next = self.beat.q.val() + 1;
            }
        }

        // The pulse: from the registers, in the clock after the last beat.
        if self.r_vlan.q.val() {
            self.datagram.next = bit_cast::<96, 48>(self.r_udp_a.q.val())
                | (bit_cast::<96, 48>(self.r_beat1.q.val()) << 48);
        } else {
            self.datagram.next = bit_cast::<96, 48>(self.r_udp_a.q.val())
                | (bit_cast::<96, 32>(self.r_udp_b.q.val()) << 48)
                | (bit_cast::<96, 16>(self.r_beat1.q.val().get_bits::<16>(0)) << 80);
        }
        // Pseudo-header: the addresses, the UDP length (again), 17; then
        // the six words of the datagram, checksum included.
        self.sum.next = bit_cast::<24, 20>(self.r_addr_sum.q.val()) + 17;
        self.lane_word.next = self.datagram.val().get_bits::<16>(32);
        self.word.next = (self.lane_word.val() >> 8) | (self.lane_word.val() << 8);
        self.sum.next = self.sum.val() + bit_cast::<24, 16>(self.word.val());
        for i in 0..6 {
            self.lane_word.next = self.datagram.val().get_bits::<16>(16 * i);
            self.word.next = (self.lane_word.val() >> 8) | (self.lane_word.val() << 8);
            self.sum.next = self.sum.val() + bit_cast::<24, 16>(self.word.val());
        }
        self.fold.next = (self.sum.val() & 0xffff) + (self.sum.val() >> 16);
        self.fold.next = (self.fold.val() & 0xffff) + (self.fold.val() >> 16);

        // Domain prefixes (PX-04, FCN-06).
        self.dom.addr.next = self.r_src.q.val();
        self.dom.dom0_prefix.next = self.dom0_prefix.val();
        self.dom.dom0_len.next = self.dom0_len.val();
        self.dom.dom0_valid.next = self.dom0_valid.val();
        self.dom.dom1_prefix.next = self.dom1_prefix.val();
        self.dom.dom1_len.next = self.dom1_len.val();
        self.dom.dom1_valid.next = self.dom1_valid.val();

        self.msg_valid.next = self.done.q.val();
        self.msg_src.next = self.r_src.q.val();
        // Payload (datagram bytes 8..11): label in bytes 8, 9 and the high
        // nibble of 10; the level in bits 3..1 of byte 10.
        self.msg_label.next = (bit_cast::<20, 8>(self.datagram.val().get_bits::<8>(64)) << 12)
            | (bit_cast::<20, 8>(self.datagram.val().get_bits::<8>(72)) << 4)
            | bit_cast::<20, 4>(self.datagram.val().get_bits::<4>(84));
        self.msg_level.next = self.datagram.val().get_bits::<3>(81);
        self.msg_well_formed.next = self.r_len_ok.q.val() & self.r_complete.q.val();
        self.msg_checksum_ok.next = self.r_complete.q.val()
            & (self.datagram.val().get_bits::<16>(48) != 0)
            & (self.fold.val() == 0xffff);
        self.msg_in_domain.next = self.dom.in_domain.val();

        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.tracking.d.next = false;
            self.done.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_cnp_receiver_emits_verilog() {
        let mut b = FastCnpReceiver::default();
        b.connect_all();
        let v = generate_verilog(&b);
        assert!(v.contains("module top"));
    }

    #[test]
    fn hw_01_fast_cnp_receiver_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<FastCnpReceiver>("fast_cnp_receiver");
    }
}
