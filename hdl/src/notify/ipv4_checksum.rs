//! `Ipv4HeaderChecksum`: the IPv4 header checksum of a 20-byte header, one
//! header per clock.
//!
//! ```text
//!               +----------------------------------+
//!  header    -->| byte sums | fold  | fold,        |--> checksum          (bytes 10..11, big-endian value)
//!  valid     -->|           |       | complement,  |--> checksum_matches  (the carried field is right)
//!               |           |       | compare      |--> checksum_valid
//!               +----------------------------------+
//! ```
//! `header` is in lane order (byte `i` at `header[8i+7:8i]`, as it sits in a
//! beat); the checksum field (bytes 10 and 11) is treated as zero whatever it
//! holds, so a header can be checksummed with a stale or placeholder value.
//! `checksum` is the 16-bit value to write there, high byte in byte 10 (RFC
//! 791 section 3.1, RFC 1071); `checksum_matches` says whether the field
//! already holds it, which checks a received header. Options are not
//! covered: the gateway builds 20-byte headers.
//!
//! Latency three clocks, throughput one header per clock: the first stage
//! adds the high bytes and the low bytes of the nine words separately (two
//! 12-bit sums), the second forms `(high << 8) + low` and folds the carries
//! back once (at most 0x8FFF7 folds to 0x10007), the third folds again to
//! 16 bits, complements and compares. At most two adders per stage.
//!
//! Issue 4: the IPv4 header of generated notifications (Long-haul CNP, CNP,
//! Rate Advice over IPv4). Reference: `cngw_packet::checksum::ipv4_header_checksum`.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Ipv4HeaderChecksum {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The 20-byte header in lane order.
    pub header: Signal<In, Bits<160>>,
    pub valid: Signal<In, Bit>,
    /// The header checksum (bytes 10..11 as a big-endian value).
    pub checksum: Signal<Out, Bits<16>>,
    /// The header's own checksum field equals `checksum`.
    pub checksum_matches: Signal<Out, Bit>,
    pub checksum_valid: Signal<Out, Bit>,
    // Stage 1.
    high_byte_sum: DFF<Bits<12>>,
    low_byte_sum: DFF<Bits<12>>,
    sums_valid: DFF<Bit>,
    carried_checksum: DFF<Bits<16>>,
    // Stage 2.
    folded_sum: DFF<Bits<17>>,
    folded_valid: DFF<Bit>,
    carried_checksum_2: DFF<Bits<16>>,
    // Stage 3.
    checksum_out: DFF<Bits<16>>,
    checksum_out_matches: DFF<Bit>,
    checksum_out_valid: DFF<Bit>,
    // Combinational.
    high_bytes: Signal<Local, Bits<12>>,
    low_bytes: Signal<Local, Bits<12>>,
    sum: Signal<Local, Bits<20>>,
    folded_again: Signal<Local, Bits<16>>,
}

impl Logic for Ipv4HeaderChecksum {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            high_byte_sum,
            low_byte_sum,
            sums_valid,
            carried_checksum,
            folded_sum,
            folded_valid,
            carried_checksum_2,
            checksum_out,
            checksum_out_matches,
            checksum_out_valid
        );
        self.checksum.next = self.checksum_out.q.val();
        self.checksum_matches.next = self.checksum_out_matches.q.val();
        self.checksum_valid.next = self.checksum_out_valid.q.val();

        // Word w is bytes 2w (high) and 2w+1 (low); word 5 (bytes 10, 11) is
        // the checksum and left out. Bracketed as a tree of adders, not a chain.
        self.high_bytes.next = ((bit_cast::<12, 8>(self.header.val().get_bits::<8>(0))
            + bit_cast::<12, 8>(self.header.val().get_bits::<8>(16)))
            + (bit_cast::<12, 8>(self.header.val().get_bits::<8>(32))
                + bit_cast::<12, 8>(self.header.val().get_bits::<8>(48))))
            + ((bit_cast::<12, 8>(self.header.val().get_bits::<8>(64))
                + bit_cast::<12, 8>(self.header.val().get_bits::<8>(96)))
                + (bit_cast::<12, 8>(self.header.val().get_bits::<8>(112))
                    + bit_cast::<12, 8>(self.header.val().get_bits::<8>(128))))
            + bit_cast::<12, 8>(self.header.val().get_bits::<8>(144));
        self.low_bytes.next = ((bit_cast::<12, 8>(self.header.val().get_bits::<8>(8))
            + bit_cast::<12, 8>(self.header.val().get_bits::<8>(24)))
            + (bit_cast::<12, 8>(self.header.val().get_bits::<8>(40))
                + bit_cast::<12, 8>(self.header.val().get_bits::<8>(56))))
            + ((bit_cast::<12, 8>(self.header.val().get_bits::<8>(72))
                + bit_cast::<12, 8>(self.header.val().get_bits::<8>(104)))
                + (bit_cast::<12, 8>(self.header.val().get_bits::<8>(120))
                    + bit_cast::<12, 8>(self.header.val().get_bits::<8>(136))))
            + bit_cast::<12, 8>(self.header.val().get_bits::<8>(152));
        self.high_byte_sum.d.next = self.high_bytes.val();
        self.low_byte_sum.d.next = self.low_bytes.val();
        self.sums_valid.d.next = self.valid.val();
        self.carried_checksum.d.next = (bit_cast::<16, 8>(self.header.val().get_bits::<8>(80))
            << 8)
            | bit_cast::<16, 8>(self.header.val().get_bits::<8>(88));

        self.sum.next = (bit_cast::<20, 12>(self.high_byte_sum.q.val()) << 8)
            + bit_cast::<20, 12>(self.low_byte_sum.q.val());
        self.folded_sum.d.next = bit_cast::<17, 16>(self.sum.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.sum.val().get_bits::<4>(16));
        self.folded_valid.d.next = self.sums_valid.q.val();
        self.carried_checksum_2.d.next = self.carried_checksum.q.val();

        self.folded_again.next = self.folded_sum.q.val().get_bits::<16>(0)
            + bit_cast::<16, 1>(self.folded_sum.q.val().get_bits::<1>(16));
        self.checksum_out.d.next = !self.folded_again.val();
        self.checksum_out_matches.d.next =
            !self.folded_again.val() == self.carried_checksum_2.q.val();
        self.checksum_out_valid.d.next = self.folded_valid.q.val();
        if self.reset.val() {
            self.sums_valid.d.next = false;
            self.folded_valid.d.next = false;
            self.checksum_out_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_packet::checksum::ipv4_header_checksum;

    #[test]
    fn hw_01_ipv4_header_checksum_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<Ipv4HeaderChecksum>("ipv4_header_checksum");
    }

    fn lanes(header: &[u8; 20]) -> Bits<160> {
        let mut v = Bits::<160>::default();
        for (i, &b) in header.iter().enumerate() {
            v = v | (bit_cast::<160, 8>(bits::<8>(b as u64)) << (8 * i as u64));
        }
        v
    }

    /// Random headers (random checksum fields too) plus the corner cases, one
    /// per clock, against the reference; latency two clocks.
    #[test]
    fn hw_01_ipv4_header_checksum_matches_the_reference() {
        let mut headers = vec![[0u8; 20], [0xFF; 20]];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..300 {
            let mut h = [0u8; 20];
            for b in h.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = seed as u8;
            }
            if i % 2 == 0 {
                // A plausible header: version 4, IHL 5, TTL 64, UDP.
                h[0] = 0x45;
                h[8] = 64;
                h[9] = 17;
            }
            if i % 3 == 0 {
                // With its right checksum in place.
                let c = ipv4_header_checksum(&h).to_be_bytes();
                h[10] = c[0];
                h[11] = c[1];
            }
            headers.push(h);
        }
        let expected: Vec<u16> = headers.iter().map(|h| ipv4_header_checksum(h)).collect();
        let mut uut = Ipv4HeaderChecksum::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Ipv4HeaderChecksum>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<Ipv4HeaderChecksum>| {
            let mut x = sim.init()?;
            let mut got = Vec::new();
            let mut clock = 0;
            let mut sent = 0;
            while got.len() < expected.len() && clock < 2 * expected.len() {
                // An idle clock every seventh.
                let take = clock % 7 != 6 && sent < headers.len();
                x.valid.next = take;
                if take {
                    x.header.next = lanes(&headers[sent]);
                    sent += 1;
                }
                wait_clock_cycle!(sim, clock, x);
                clock += 1;
                if x.checksum_valid.val() {
                    let index = got.len();
                    got.push(x.checksum.val().to_u32() as u16);
                    let carried = u16::from_be_bytes([headers[index][10], headers[index][11]]);
                    sim_assert_eq!(sim, x.checksum_matches.val(), carried == expected[index], x);
                }
            }
            sim_assert_eq!(sim, got.len(), expected.len(), x);
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                sim_assert_eq!(sim, (i, *g), (i, *e), x);
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
    }

    /// Latency: a header taken at one edge has its checksum after the third.
    #[test]
    fn hw_01_ipv4_header_checksum_latency_is_three_clocks() {
        let mut uut = Ipv4HeaderChecksum::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Ipv4HeaderChecksum>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<Ipv4HeaderChecksum>| {
            let mut x = sim.init()?;
            // RFC 1071-style example header: checksum 0xB861.
            let h: [u8; 20] = [
                0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xC0, 0xA8,
                0x00, 0x01, 0xC0, 0xA8, 0x00, 0xC7,
            ];
            x.header.next = lanes(&h);
            x.valid.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.valid.next = false;
            sim_assert!(sim, !x.checksum_valid.val(), x);
            wait_clock_cycle!(sim, clock, x);
            sim_assert!(sim, !x.checksum_valid.val(), x);
            wait_clock_cycle!(sim, clock, x);
            sim_assert!(sim, x.checksum_valid.val(), x);
            sim_assert_eq!(sim, x.checksum.val().to_u32(), 0xB861, x);
            sim_assert!(sim, !x.checksum_matches.val(), x);
            wait_clock_cycle!(sim, clock, x);
            sim_assert!(sim, !x.checksum_valid.val(), x);
            sim.done(x)
        });
        sim.run(Box::new(uut), 1_000).unwrap();
    }
}
