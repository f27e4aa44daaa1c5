//! `Icmpv6Checksum`: the ICMPv6 checksum (RFC 4443 section 2.3: the
//! Internet checksum over the IPv6 pseudo-header of RFC 8200 section 8.1 and
//! the message) accumulated over a 512-bit beat stream.
//!
//! ```text
//!                +-------------------------------------+
//!  data       -->| S0: registered beat, message lanes  |
//!  keep       -->| S1..S3: byte-sum trees of the even  |--> checksum        (message bytes 2..3,
//!  valid      -->|   and odd lanes (two levels each),  |                     big-endian value)
//!  first      -->|   and of the addresses (S0, S1)     |--> checksum_valid  (one clock per message)
//!  last       -->| S4: high/low-byte accumulators      |
//!  start_lane -->| S5: words, first fold               |
//!  src_ip     -->| S6: second fold, complement         |
//!  dst_ip     -->|                                     |
//!                +-------------------------------------+
//! ```
//! Beats follow `Crc32Engine`'s conventions: byte `i` at `data[8i+7:8i]`,
//! `keep` packed (only the last beat partial), the message starting at
//! `start_lane` on its `first` beat (54 for ICMPv6 straight after the IPv6
//! header of an untagged frame, 58 behind one 802.1Q tag), so a frame is
//! checksummed as it streams, without realignment. `src_ip` and `dst_ip` are
//! in lane order (byte `k` at bits `8k+7..8k`, like `HeaderSource`) and are
//! read on the first beat. The checksum field (message bytes 2 and 3) is
//! taken as zero whatever it holds; the pseudo-header's length is the
//! number of message bytes and its next header 58. Messages of 4 bytes to
//! 64 KiB.
//!
//! A byte's place in its 16-bit word is the parity of its offset in the
//! message, which is the parity of its lane xor that of `start_lane`; so
//! each beat is two byte sums (even and odd lanes), swapped when the message
//! started on an odd lane, and the words are only formed at the end
//! (`(high << 8) + low`, then end-around carries folded twice).
//!
//! Latency seven clocks ([`LATENCY`]: the checksum comes at the seventh
//! edge after the last beat is taken), one beat per clock, a message per
//! clock at most, never stalls. A synchronous `reset` cancels a pending
//! result. The latency buys short paths (registered 512-bit input, at most
//! two adders of the byte trees per stage; three in one stage held the
//! block at 165 MHz on the ECP5):
//! the checksum sits in the message's first beat, so a builder runs the
//! message through this block before sending it, and seven clocks are nothing
//! beside that.
//!
//! Issue 4: the checksum of the Long-haul CNP in ICMPv6 format (LH-13).
//! Reference: `cngw_packet::checksum::icmpv6_checksum`.

use rust_hdl::prelude::*;

/// Clocks from a message's last beat taken to its checksum.
pub const LATENCY: usize = 7;

#[derive(LogicBlock)]
pub struct Icmpv6Checksum {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Beat bytes, byte `i` at `data[8i+7:8i]`.
    pub data: Signal<In, Bits<512>>,
    /// Valid lanes, packed; only the last beat may be partial.
    pub keep: Signal<In, Bits<64>>,
    pub valid: Signal<In, Bit>,
    pub first: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    /// On the first beat, the lane the message starts at.
    pub start_lane: Signal<In, Bits<6>>,
    /// Pseudo-header addresses, lane order, read on the first beat.
    pub src_ip: Signal<In, Bits<128>>,
    pub dst_ip: Signal<In, Bits<128>>,
    /// The checksum (message bytes 2..3 as a big-endian value).
    pub checksum: Signal<Out, Bits<16>>,
    pub checksum_valid: Signal<Out, Bit>,
    // Constants.
    all_lanes: Constant<Bits<64>>,
    checksum_field: Constant<Bits<128>>,
    lanes_with_index_bit: Vec<Constant<Bits<64>>>,
    // Message state.
    beat_index: DFF<Bits<2>>,
    odd_start: DFF<Bit>,
    field_lanes: DFF<Bits<128>>,
    // S0: the beat and its message lanes; the address trees' first levels.
    s0_data: DFF<Bits<512>>,
    s0_lanes: DFF<Bits<64>>,
    s0_odd: DFF<Bit>,
    s0_length: DFF<Bits<7>>,
    s0_valid: DFF<Bit>,
    s0_first: DFF<Bit>,
    s0_last: DFF<Bit>,
    address_quad_sums: Vec<DFF<Bits<12>>>,
    // S1: the first two levels of the byte-sum trees; address sums.
    quad_sums: Vec<DFF<Bits<13>>>,
    s1_address_high: DFF<Bits<12>>,
    s1_address_low: DFF<Bits<13>>,
    s1_odd: DFF<Bit>,
    s1_length: DFF<Bits<7>>,
    s1_valid: DFF<Bit>,
    s1_first: DFF<Bit>,
    s1_last: DFF<Bit>,
    // S2: the trees' next two levels (16-lane sums).
    mid_sums: Vec<DFF<Bits<13>>>,
    mid_address_high: DFF<Bits<12>>,
    mid_address_low: DFF<Bits<13>>,
    mid_odd: DFF<Bit>,
    mid_length: DFF<Bits<7>>,
    mid_valid: DFF<Bit>,
    mid_first: DFF<Bit>,
    mid_last: DFF<Bit>,
    // S3: per-beat sums of word-high and word-low bytes.
    high_bytes: DFF<Bits<13>>,
    low_bytes: DFF<Bits<13>>,
    address_high: DFF<Bits<12>>,
    address_low: DFF<Bits<13>>,
    s2_length: DFF<Bits<7>>,
    s2_valid: DFF<Bit>,
    s2_first: DFF<Bit>,
    s2_last: DFF<Bit>,
    // S4: accumulators.
    high_sum: DFF<Bits<24>>,
    low_sum: DFF<Bits<24>>,
    s3_done: DFF<Bit>,
    // S5: words, first fold.
    folded_sum: DFF<Bits<17>>,
    s4_done: DFF<Bit>,
    // S6: result.
    checksum_out: DFF<Bits<16>>,
    checksum_out_valid: DFF<Bit>,
    // Combinational.
    odd: Signal<Local, Bit>,
    field: Signal<Local, Bits<128>>,
    lanes: Signal<Local, Bits<64>>,
    bytes_left: Signal<Local, Bits<512>>,
    lane_bytes: Vec<Signal<Local, Bits<13>>>,
    sums_of_2: Vec<Signal<Local, Bits<13>>>,
    sums_of_8: Vec<Signal<Local, Bits<13>>>,
    sums_of_16: Vec<Signal<Local, Bits<13>>>,
    even_lane_sum: Signal<Local, Bits<13>>,
    odd_lane_sum: Signal<Local, Bits<13>>,
    last_lane: Signal<Local, Bits<64>>,
    last_lane_index: Signal<Local, Bits<7>>,
    beat_end: Signal<Local, Bits<7>>,
    addresses_left: Signal<Local, Bits<256>>,
    address_bytes: Vec<Signal<Local, Bits<12>>>,
    address_sums_of_2: Vec<Signal<Local, Bits<12>>>,
    address_sums_of_8: Vec<Signal<Local, Bits<12>>>,
    address_even: Signal<Local, Bits<12>>,
    address_odd: Signal<Local, Bits<12>>,
    total: Signal<Local, Bits<32>>,
    folded_again: Signal<Local, Bits<16>>,
}

fn locals<const N: usize>(count: usize) -> Vec<Signal<Local, Bits<N>>> {
    (0..count).map(|_| Default::default()).collect()
}

fn registers<const N: usize>(count: usize) -> Vec<DFF<Bits<N>>> {
    (0..count).map(|_| Default::default()).collect()
}

impl Default for Icmpv6Checksum {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            valid: Default::default(),
            first: Default::default(),
            last: Default::default(),
            start_lane: Default::default(),
            src_ip: Default::default(),
            dst_ip: Default::default(),
            checksum: Default::default(),
            checksum_valid: Default::default(),
            all_lanes: Constant::new(bits::<64>(u64::MAX)),
            checksum_field: Constant::new(bits::<128>(0b1100)),
            lanes_with_index_bit: (0..6)
                .map(|b| {
                    let lanes = (0..64u64).filter(|l| l >> b & 1 != 0);
                    Constant::new(bits::<64>(lanes.fold(0, |m, l| m | 1 << l)))
                })
                .collect(),
            beat_index: Default::default(),
            odd_start: Default::default(),
            field_lanes: Default::default(),
            s0_data: Default::default(),
            s0_lanes: Default::default(),
            s0_odd: Default::default(),
            s0_length: Default::default(),
            s0_valid: Default::default(),
            s0_first: Default::default(),
            s0_last: Default::default(),
            address_quad_sums: registers(8),
            quad_sums: registers(16),
            s1_address_high: Default::default(),
            s1_address_low: Default::default(),
            s1_odd: Default::default(),
            s1_length: Default::default(),
            s1_valid: Default::default(),
            s1_first: Default::default(),
            s1_last: Default::default(),
            mid_sums: registers(4),
            mid_address_high: Default::default(),
            mid_address_low: Default::default(),
            mid_odd: Default::default(),
            mid_length: Default::default(),
            mid_valid: Default::default(),
            mid_first: Default::default(),
            mid_last: Default::default(),
            high_bytes: Default::default(),
            low_bytes: Default::default(),
            address_high: Default::default(),
            address_low: Default::default(),
            s2_length: Default::default(),
            s2_valid: Default::default(),
            s2_first: Default::default(),
            s2_last: Default::default(),
            high_sum: Default::default(),
            low_sum: Default::default(),
            s3_done: Default::default(),
            folded_sum: Default::default(),
            s4_done: Default::default(),
            checksum_out: Default::default(),
            checksum_out_valid: Default::default(),
            odd: Default::default(),
            field: Default::default(),
            lanes: Default::default(),
            bytes_left: Default::default(),
            lane_bytes: locals(64),
            sums_of_2: locals(32),
            sums_of_8: locals(8),
            sums_of_16: locals(4),
            even_lane_sum: Default::default(),
            odd_lane_sum: Default::default(),
            last_lane: Default::default(),
            last_lane_index: Default::default(),
            beat_end: Default::default(),
            addresses_left: Default::default(),
            address_bytes: locals(32),
            address_sums_of_2: locals(16),
            address_sums_of_8: locals(4),
            address_even: Default::default(),
            address_odd: Default::default(),
            total: Default::default(),
            folded_again: Default::default(),
        }
    }
}

impl Logic for Icmpv6Checksum {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat_index,
            odd_start,
            field_lanes,
            s0_data,
            s0_lanes,
            s0_odd,
            s0_length,
            s0_valid,
            s0_first,
            s0_last,
            s1_address_high,
            s1_address_low,
            s1_odd,
            s1_length,
            s1_valid,
            s1_first,
            s1_last,
            mid_address_high,
            mid_address_low,
            mid_odd,
            mid_length,
            mid_valid,
            mid_first,
            mid_last,
            high_bytes,
            low_bytes,
            address_high,
            address_low,
            s2_length,
            s2_valid,
            s2_first,
            s2_last,
            high_sum,
            low_sum,
            s3_done,
            folded_sum,
            s4_done,
            checksum_out,
            checksum_out_valid
        );
        for i in 0..16 {
            self.quad_sums[i].clock.next = self.clock.val();
            self.quad_sums[i].d.next = self.quad_sums[i].q.val();
        }
        for i in 0..4 {
            self.mid_sums[i].clock.next = self.clock.val();
        }
        for i in 0..8 {
            self.address_quad_sums[i].clock.next = self.clock.val();
            self.address_quad_sums[i].d.next = self.address_quad_sums[i].q.val();
        }
        self.checksum.next = self.checksum_out.q.val();
        self.checksum_valid.next = self.checksum_out_valid.q.val();

        // S0. Lanes of the message in this beat, checksum field left out
        // (message bytes 2, 3: frame positions start_lane + 2, 3 of the
        // first two beats).
        self.odd.next = self.odd_start.q.val();
        self.field.next = self.field_lanes.q.val();
        self.lanes.next = self.keep.val();
        if self.first.val() {
            self.odd.next = self.start_lane.val().get_bit(0);
            self.field.next = self.checksum_field.val() << self.start_lane.val();
            self.lanes.next = self.keep.val() & (self.all_lanes.val() << self.start_lane.val());
        }
        if self.first.val() {
            self.lanes.next = self.lanes.val() & !self.field.val().get_bits::<64>(0);
        } else if self.beat_index.q.val() == 1 {
            self.lanes.next = self.lanes.val() & !self.field.val().get_bits::<64>(64);
        }
        self.s0_data.d.next = self.data.val();
        // (No lanes on an idle clock, so the trees add zeros.)
        self.s0_lanes.d.next = 0.into();
        if self.valid.val() {
            self.s0_lanes.d.next = self.lanes.val();
        }

        // Pseudo-header addresses: word w is bytes 2w (high) and 2w+1; the
        // same tree over the 32 address bytes.
        for i in 0..32 {
            self.address_bytes[i].next = 0.into();
        }
        for i in 0..16 {
            self.address_sums_of_2[i].next = 0.into();
        }
        self.addresses_left.next = 0.into();
        if self.valid.val() {
            self.addresses_left.next = (bit_cast::<256, 128>(self.dst_ip.val()) << 128)
                | bit_cast::<256, 128>(self.src_ip.val());
            for i in 0..32 {
                self.address_bytes[i].next =
                    bit_cast::<12, 8>(self.addresses_left.val().get_bits::<8>(0));
                self.addresses_left.next = self.addresses_left.val() >> 8;
            }
            for i in 0..16 {
                self.address_sums_of_2[i].next = self.address_bytes[4 * (i / 2) + i % 2].val()
                    + self.address_bytes[4 * (i / 2) + i % 2 + 2].val();
            }
            for i in 0..8 {
                self.address_quad_sums[i].d.next = self.address_sums_of_2[4 * (i / 2) + i % 2]
                    .val()
                    + self.address_sums_of_2[4 * (i / 2) + i % 2 + 2].val();
            }
        }
        // Message bytes in this beat (checksum field included): from the
        // start lane (first beat) to the last lane (last beat).
        self.last_lane.next = self.keep.val() & !(self.keep.val() >> 1);
        self.last_lane_index.next = 0.into();
        for b in 0..6 {
            self.last_lane_index.next = self.last_lane_index.val().replace_bit(
                b,
                (self.last_lane.val() & self.lanes_with_index_bit[b].val()).any(),
            );
        }
        self.beat_end.next = 64.into();
        if self.last.val() {
            self.beat_end.next = self.last_lane_index.val() + 1;
        }
        self.s0_length.d.next = self.beat_end.val();
        if self.first.val() {
            self.s0_length.d.next = self.beat_end.val() - bit_cast::<7, 6>(self.start_lane.val());
        }
        self.s0_odd.d.next = self.odd.val();
        self.s0_valid.d.next = self.valid.val();
        self.s0_first.d.next = self.first.val();
        self.s0_last.d.next = self.last.val();
        if self.valid.val() {
            self.odd_start.d.next = self.odd.val();
            self.field_lanes.d.next = self.field.val();
            if self.first.val() {
                self.beat_index.d.next = 1.into();
            } else if self.beat_index.q.val() != 2 {
                self.beat_index.d.next = self.beat_index.q.val() + 1;
            }
        }

        // S1. Byte sums of the even and the odd lanes as balanced adder
        // trees (levels 1-2 here, 3-4 in S2, 5 in S3): each level adds neighbours of
        // the same lane parity, so entry 0 of the last level sums the even
        // lanes and entry 1 the odd ones.
        // (Each lane gated by its own bit only: a shared `s0_valid` gate
        // drove 512 loads and was the block's slowest path on the ECP5.)
        self.bytes_left.next = self.s0_data.q.val();
        for lane in 0..64 {
            self.lane_bytes[lane].next = 0.into();
            if self.s0_lanes.q.val().get_bit(lane) {
                self.lane_bytes[lane].next =
                    bit_cast::<13, 8>(self.bytes_left.val().get_bits::<8>(0));
            }
            self.bytes_left.next = self.bytes_left.val() >> 8;
        }
        for i in 0..32 {
            self.sums_of_2[i].next = self.lane_bytes[4 * (i / 2) + i % 2].val()
                + self.lane_bytes[4 * (i / 2) + i % 2 + 2].val();
        }
        for i in 0..16 {
            self.quad_sums[i].d.next = self.sums_of_2[4 * (i / 2) + i % 2].val()
                + self.sums_of_2[4 * (i / 2) + i % 2 + 2].val();
        }
        for i in 0..4 {
            self.address_sums_of_8[i].next = self.address_quad_sums[4 * (i / 2) + i % 2].q.val()
                + self.address_quad_sums[4 * (i / 2) + i % 2 + 2].q.val();
        }
        self.address_even.next = self.address_sums_of_8[0].val() + self.address_sums_of_8[2].val();
        self.address_odd.next = self.address_sums_of_8[1].val() + self.address_sums_of_8[3].val();
        self.s1_address_high.d.next = self.address_even.val();
        self.s1_address_low.d.next = bit_cast::<13, 12>(self.address_odd.val()) + 58;
        self.s1_length.d.next = self.s0_length.q.val();
        self.s1_odd.d.next = self.s0_odd.q.val();
        self.s1_valid.d.next = self.s0_valid.q.val();
        self.s1_first.d.next = self.s0_first.q.val();
        self.s1_last.d.next = self.s0_last.q.val();

        // S2. The trees' next two levels.
        for i in 0..8 {
            self.sums_of_8[i].next = self.quad_sums[4 * (i / 2) + i % 2].q.val()
                + self.quad_sums[4 * (i / 2) + i % 2 + 2].q.val();
        }
        for i in 0..4 {
            self.sums_of_16[i].next = self.sums_of_8[4 * (i / 2) + i % 2].val()
                + self.sums_of_8[4 * (i / 2) + i % 2 + 2].val();
            self.mid_sums[i].d.next = self.sums_of_16[i].val();
        }
        self.mid_address_high.d.next = self.s1_address_high.q.val();
        self.mid_address_low.d.next = self.s1_address_low.q.val();
        self.mid_length.d.next = self.s1_length.q.val();
        self.mid_odd.d.next = self.s1_odd.q.val();
        self.mid_valid.d.next = self.s1_valid.q.val();
        self.mid_first.d.next = self.s1_first.q.val();
        self.mid_last.d.next = self.s1_last.q.val();

        // S3. The last level. Even lanes hold word-high bytes unless the
        // message began on an odd lane.
        self.even_lane_sum.next = self.mid_sums[0].q.val() + self.mid_sums[2].q.val();
        self.odd_lane_sum.next = self.mid_sums[1].q.val() + self.mid_sums[3].q.val();
        if self.mid_odd.q.val() {
            self.high_bytes.d.next = self.odd_lane_sum.val();
            self.low_bytes.d.next = self.even_lane_sum.val();
        } else {
            self.high_bytes.d.next = self.even_lane_sum.val();
            self.low_bytes.d.next = self.odd_lane_sum.val();
        }
        self.address_high.d.next = self.mid_address_high.q.val();
        self.address_low.d.next = self.mid_address_low.q.val();
        self.s2_length.d.next = self.mid_length.q.val();
        self.s2_valid.d.next = self.mid_valid.q.val();
        self.s2_first.d.next = self.mid_first.q.val();
        self.s2_last.d.next = self.mid_last.q.val();

        // S4. Pseudo-header (addresses, next header 58, and the length as
        // the sum of the beat lengths) plus message bytes.
        self.s3_done.d.next = self.s2_valid.q.val() & self.s2_last.q.val();
        if self.s2_valid.q.val() {
            if self.s2_first.q.val() {
                self.high_sum.d.next = bit_cast::<24, 12>(self.address_high.q.val())
                    + bit_cast::<24, 13>(self.high_bytes.q.val());
                self.low_sum.d.next = bit_cast::<24, 13>(self.address_low.q.val())
                    + bit_cast::<24, 13>(self.low_bytes.q.val())
                    + bit_cast::<24, 7>(self.s2_length.q.val());
            } else {
                self.high_sum.d.next =
                    self.high_sum.q.val() + bit_cast::<24, 13>(self.high_bytes.q.val());
                self.low_sum.d.next = self.low_sum.q.val()
                    + bit_cast::<24, 13>(self.low_bytes.q.val())
                    + bit_cast::<24, 7>(self.s2_length.q.val());
            }
        }

        // S5. Words, first end-around fold.
        self.total.next = (bit_cast::<32, 24>(self.high_sum.q.val()) << 8)
            + bit_cast::<32, 24>(self.low_sum.q.val());
        self.folded_sum.d.next = bit_cast::<17, 16>(self.total.val().get_bits::<16>(0))
            + bit_cast::<17, 16>(self.total.val().get_bits::<16>(16));
        self.s4_done.d.next = self.s3_done.q.val();

        // S6. Second fold, complement.
        self.folded_again.next = self.folded_sum.q.val().get_bits::<16>(0)
            + bit_cast::<16, 1>(self.folded_sum.q.val().get_bits::<1>(16));
        self.checksum_out_valid.d.next = self.s4_done.q.val();
        if self.s4_done.q.val() {
            self.checksum_out.d.next = !self.folded_again.val();
        }
        if self.reset.val() {
            self.s0_valid.d.next = false;
            self.s1_valid.d.next = false;
            self.mid_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_done.d.next = false;
            self.s4_done.d.next = false;
            self.checksum_out_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_packet::checksum::icmpv6_checksum;
    use std::net::Ipv6Addr;
    use std::time::Instant;

    #[test]
    fn hw_01_icmpv6_checksum_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<Icmpv6Checksum>("icmpv6_checksum");
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn wide<const N: usize>(bytes: &[u8]) -> Bits<N> {
        let mut v = Bits::<N>::default();
        for (i, w) in bytes.chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..w.len()].copy_from_slice(w);
            v = v | (bit_cast::<N, 64>(bits::<64>(u64::from_le_bytes(b))) << (64 * i as u64));
        }
        v
    }

    struct Message {
        src: Ipv6Addr,
        dst: Ipv6Addr,
        bytes: Vec<u8>,
        start_lane: usize,
    }

    type Beat = (Bits<512>, u64, bool, bool, u64, Bits<128>, Bits<128>);

    /// Beats of a message; lanes outside it (and the addresses on later
    /// beats) hold garbage the block must ignore.
    fn beats(m: &Message, rng: &mut Rng) -> Vec<Beat> {
        let mut lanes: Vec<u8> = (0..m.start_lane).map(|_| rng.next() as u8).collect();
        lanes.extend_from_slice(&m.bytes);
        let total = lanes.len();
        let n = total.div_ceil(64);
        while lanes.len() < n * 64 {
            lanes.push(rng.next() as u8);
        }
        (0..n)
            .map(|i| {
                let valid = (total - 64 * i).min(64);
                let (src, dst) = if i == 0 {
                    (m.src.octets(), m.dst.octets())
                } else {
                    ([rng.next() as u8; 16], [rng.next() as u8; 16])
                };
                (
                    wide::<512>(&lanes[64 * i..64 * i + 64]),
                    if valid == 64 {
                        u64::MAX
                    } else {
                        (1 << valid) - 1
                    },
                    i == 0,
                    i + 1 == n,
                    if i == 0 { m.start_lane as u64 } else { 0 },
                    wide::<128>(&src),
                    wide::<128>(&dst),
                )
            })
            .collect()
    }

    /// Returns the checksums with the clock each came out, and the clock of
    /// each last beat.
    fn run(all: Vec<Beat>, idle: fn(usize) -> bool) -> (Vec<(u16, usize)>, Vec<usize>) {
        use std::sync::{Arc, Mutex};
        let out = Arc::new(Mutex::new((Vec::new(), Vec::new())));
        let seen = out.clone();
        let mut uut = Icmpv6Checksum::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Icmpv6Checksum>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<Icmpv6Checksum>| {
            let mut x = sim.init()?;
            let mut next = 0;
            let mut clock = 0;
            let mut drain = 8;
            while drain > 0 {
                if next == all.len() {
                    drain -= 1;
                }
                x.valid.next = false;
                if next < all.len() && !idle(clock) {
                    let (data, keep, first, last, lane, src, dst) = all[next];
                    x.data.next = data;
                    x.keep.next = bits::<64>(keep);
                    x.first.next = first;
                    x.last.next = last;
                    x.start_lane.next = lane.into();
                    x.src_ip.next = src;
                    x.dst_ip.next = dst;
                    x.valid.next = true;
                    if last {
                        seen.lock().unwrap().1.push(clock);
                    }
                    next += 1;
                }
                wait_clock_cycle!(sim, clock, x);
                clock += 1;
                if x.checksum_valid.val() {
                    let c = x.checksum.val().to_u32() as u16;
                    seen.lock().unwrap().0.push((c, clock));
                }
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let r = out.lock().unwrap();
        (r.0.clone(), r.1.clone())
    }

    fn check(messages: Vec<Message>, idle: fn(usize) -> bool, name: &str) {
        let mut rng = Rng(99);
        let all: Vec<Beat> = messages.iter().flat_map(|m| beats(m, &mut rng)).collect();
        let t = Instant::now();
        let (got, lasts) = run(all, idle);
        println!(
            "{name}: {} messages, {} clocks in {:.2} s",
            messages.len(),
            got.last().map_or(0, |g| g.1),
            t.elapsed().as_secs_f64()
        );
        assert_eq!(
            got.len(),
            messages.len(),
            "{name}: one checksum per message"
        );
        for (i, (m, (c, at))) in messages.iter().zip(&got).enumerate() {
            let e = icmpv6_checksum(m.src, m.dst, &m.bytes);
            assert_eq!(
                *c,
                e,
                "{name}: message {i}, {} bytes from lane {}",
                m.bytes.len(),
                m.start_lane
            );
            assert_eq!(*at, lasts[i] + LATENCY, "{name}: latency of message {i}");
        }
    }

    fn random(rng: &mut Rng, len: usize, start_lane: usize) -> Message {
        let mut a = [0u8; 16];
        let mut b = [0u8; 16];
        a.iter_mut()
            .chain(b.iter_mut())
            .for_each(|x| *x = rng.next() as u8);
        Message {
            src: Ipv6Addr::from(a),
            dst: Ipv6Addr::from(b),
            bytes: (0..len).map(|_| rng.next() as u8).collect(),
            start_lane,
        }
    }

    /// Lengths 4..=200 from lane 0, back to back.
    #[test]
    fn lh_13_icmpv6_checksum_every_length_back_to_back() {
        let mut rng = Rng(1);
        let messages = (4..=200).map(|n| random(&mut rng, n, 0)).collect();
        check(messages, |_| false, "lengths 4..=200");
    }

    /// From every start lane (the frame offsets 54 and 58 included), odd and
    /// even lengths up to 300 bytes, with idle clocks between beats.
    #[test]
    fn lh_13_icmpv6_checksum_any_start_lane_with_idle_clocks() {
        let mut rng = Rng(2);
        let messages = (0..64)
            .map(|lane| {
                let len = 4 + (rng.next() % 297) as usize;
                random(&mut rng, len, lane)
            })
            .collect();
        check(messages, |c| c % 3 == 2 || c % 13 == 0, "start lanes 0..64");
    }

    /// All-ones bytes and addresses: the sums reach their widest.
    #[test]
    fn lh_13_icmpv6_checksum_carries_fold() {
        let ones = Ipv6Addr::from([0xFF; 16]);
        let messages = vec![
            Message {
                src: ones,
                dst: ones,
                bytes: vec![0xFF; 1500],
                start_lane: 54,
            },
            Message {
                src: ones,
                dst: ones,
                bytes: vec![0xFF; 4],
                start_lane: 1,
            },
            Message {
                src: Ipv6Addr::UNSPECIFIED,
                dst: Ipv6Addr::UNSPECIFIED,
                bytes: vec![0; 4],
                start_lane: 0,
            },
        ];
        check(messages, |_| false, "carries");
    }
}
