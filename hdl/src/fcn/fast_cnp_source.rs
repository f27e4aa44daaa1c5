//! `FastCnpSource`: the congested WAN node's Fast CNPs (FCN-03, PE-04,
//! FCN-06): turns the two-threshold draws that mark a frame into Fast CNP
//! jobs for the notification builder, within a token bucket.
//!
//! ```text
//!  ev_valid, ev_severe, ev_p        +-----------+   +--------------+   +----------+
//!  ev_ipv6, ev_label, ev_src_ip --->| register  |-->| level, label |-->| 8 jobs   |--> job_valid/ready
//!  ev_src_mac                       |  (1 clock)|   | token bucket |   | (FIFO)   |    job_dst_ip/mac
//!  enable, udp_port, copy_label --->|           |   | UDP checksum |   |          |    job_flow_label
//!  gw_ipv6, refill_clocks, depth -->+-----------+   +--------------+   +----------+    job_body (12 bytes)
//! ```
//! draft-he-fcn-in-wan section 4.1: the congested node takes the outer IPv6
//! flow label of the packet that met congestion and sends a Fast CNP (UDP,
//! section 4.2) from its own address to the packet's outer source address
//! (the ingress PE), "the more severe the congestion, the more frequently".
//! Here a Fast CNP is asked for by each ECN-capable frame toward the WAN
//! whose two-threshold draw (PE-03, `TwoThreshold`) marks it: a light
//! notification when the draw remarks it ECT(1) (the average queue is
//! between T1 and T2 or above), a severe one when the draw marks it CE
//! (above T2). The probability of a draw marking rises with the average
//! queue, so Fast CNPs come more often as congestion grows. The level says
//! where in its range the probability `ev_p` of the mark stands (PE-04,
//! light/severe carried in the level, `docs/decisions.md`):
//! - light: `1 + min(2, floor(3 * p / 65536))`: 1..3;
//! - severe: `4 + min(3, floor(p / 16384))`: 4..7.
//!
//! Rules, for each `ev_valid` (one per clock at most) while `enable`, in the
//! clock after it (the inputs are registered):
//! 1. not IPv6, or flow label 0: counted in `no_label`, nothing sent
//!    (the label is what names the flow to the ingress PE);
//! 2. no token: counted in `rate_limited` (FCN-06);
//! 3. the job FIFO is full: counted in `queue_drops` (cannot happen while
//!    the builder takes a job at least every `refill_clocks` clocks, since
//!    the bucket holds at most 8 tokens);
//! 4. otherwise one token is taken, `sent` counts, and the job enters the
//!    FIFO: destination the frame's outer source address and source MAC
//!    (the previous hop), the UDP datagram with source and destination
//!    port `udp_port`, length 12, the checksum over the IPv6 pseudo-header
//!    with `gw_ipv6` as source (0 sent as 0xFFFF), and the payload
//!    `label << 12 | level << 9`.
//!
//! Token bucket: as the Long-haul CNP's (`LhController`): `bucket_depth`
//! tokens (1..8) after reset, one more every `refill_clocks` clocks while
//! not full, counted from the clock after a token left the full bucket.
//! `job_flow_label` is the label when `copy_label` is set, else 0 (the
//! builder then leaves the Fast CNP's IPv6 flow label 0; the UDP checksum
//! does not cover it). Job fields are in lane order (byte 0 at bits 7..0),
//! like `NotifyBuilder`'s. Latency: a job is visible on `job_valid` two
//! clocks after its `ev_valid`.

use crate::notify::TokenBucket;
use rust_hdl::prelude::*;

/// Entries in the job FIFO.
pub const FCN_FIFO_DEPTH: usize = 8;

#[derive(LogicBlock)]
pub struct FastCnpSource {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The congested-WAN-node role is on.
    pub enable: Signal<In, Bit>,
    /// A draw marked a frame: CE (`ev_severe`) or ECT(1), with the
    /// probability `ev_p` (0..=65536) of that mark.
    pub ev_valid: Signal<In, Bit>,
    pub ev_severe: Signal<In, Bit>,
    pub ev_p: Signal<In, Bits<17>>,
    /// The frame is IPv6; its flow label, source address, source MAC.
    pub ev_ipv6: Signal<In, Bit>,
    pub ev_label: Signal<In, Bits<20>>,
    pub ev_src_ip: Signal<In, Bits<128>>,
    pub ev_src_mac: Signal<In, Bits<48>>,
    /// This node's IPv6 address (lane order): the Fast CNP's source.
    pub gw_ipv6: Signal<In, Bits<128>>,
    pub udp_port: Signal<In, Bits<16>>,
    pub copy_label: Signal<In, Bit>,
    pub refill_clocks: Signal<In, Bits<32>>,
    pub bucket_depth: Signal<In, Bits<4>>,
    pub clear_counters: Signal<In, Bit>,
    pub job_valid: Signal<Out, Bit>,
    pub job_ready: Signal<In, Bit>,
    pub job_dst_ip: Signal<Out, Bits<128>>,
    pub job_dst_mac: Signal<Out, Bits<48>>,
    pub job_flow_label: Signal<Out, Bits<20>>,
    /// The whole 12-byte UDP datagram, lane order.
    pub job_body: Signal<Out, Bits<96>>,
    pub sent: Signal<Out, Bits<32>>,
    pub rate_limited: Signal<Out, Bits<32>>,
    pub no_label: Signal<Out, Bits<32>>,
    pub queue_drops: Signal<Out, Bits<32>>,
    // The registered event.
    r_valid: DFF<Bit>,
    r_severe: DFF<Bit>,
    r_p: DFF<Bits<17>>,
    r_ipv6: DFF<Bit>,
    r_label: DFF<Bits<20>>,
    r_src_ip: DFF<Bits<128>>,
    r_src_mac: DFF<Bits<48>>,
    level: Signal<Local, Bits<3>>,
    payload: Signal<Local, Bits<32>>,
    lane_word: Signal<Local, Bits<16>>,
    word: Signal<Local, Bits<16>>,
    sum: Signal<Local, Bits<24>>,
    fold: Signal<Local, Bits<24>>,
    checksum: Signal<Local, Bits<16>>,
    /// Packing of a job: destination IP [127:0], destination MAC [175:128],
    /// label [195:176], level [198:196], UDP checksum [214:199].
    job_in: Signal<Local, Bits<215>>,
    job_out: Signal<Local, Bits<215>>,
    out_checksum: Signal<Local, Bits<16>>,
    out_label: Signal<Local, Bits<20>>,
    out_payload: Signal<Local, Bits<32>>,
    /// The UDP length (12) in its lanes of `job_body`.
    udp_length: Constant<Bits<96>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    fifo: Vec<DFF<Bits<215>>>,
    fifo_wptr: DFF<Bits<3>>,
    fifo_rptr: DFF<Bits<3>>,
    fifo_count: DFF<Bits<4>>,
    bucket: TokenBucket,
    sent_count: DFF<Bits<32>>,
    rate_limited_count: DFF<Bits<32>>,
    no_label_count: DFF<Bits<32>>,
    queue_drops_count: DFF<Bits<32>>,
}

impl Default for FastCnpSource {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            ev_valid: Default::default(),
            ev_severe: Default::default(),
            ev_p: Default::default(),
            ev_ipv6: Default::default(),
            ev_label: Default::default(),
            ev_src_ip: Default::default(),
            ev_src_mac: Default::default(),
            gw_ipv6: Default::default(),
            udp_port: Default::default(),
            copy_label: Default::default(),
            refill_clocks: Default::default(),
            bucket_depth: Default::default(),
            clear_counters: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_dst_ip: Default::default(),
            job_dst_mac: Default::default(),
            job_flow_label: Default::default(),
            job_body: Default::default(),
            sent: Default::default(),
            rate_limited: Default::default(),
            no_label: Default::default(),
            queue_drops: Default::default(),
            r_valid: Default::default(),
            r_severe: Default::default(),
            r_p: Default::default(),
            r_ipv6: Default::default(),
            r_label: Default::default(),
            r_src_ip: Default::default(),
            r_src_mac: Default::default(),
            level: Default::default(),
            payload: Default::default(),
            lane_word: Default::default(),
            word: Default::default(),
            sum: Default::default(),
            fold: Default::default(),
            checksum: Default::default(),
            job_in: Default::default(),
            job_out: Default::default(),
            out_checksum: Default::default(),
            out_label: Default::default(),
            out_payload: Default::default(),
            udp_length: Constant::new(bit_cast::<96, 64>((12u64 << 40).to_bits())),
            push: Default::default(),
            pop: Default::default(),
            fifo: (0..FCN_FIFO_DEPTH).map(|_| Default::default()).collect(),
            fifo_wptr: Default::default(),
            fifo_rptr: Default::default(),
            fifo_count: Default::default(),
            bucket: Default::default(),
            sent_count: Default::default(),
            rate_limited_count: Default::default(),
            no_label_count: Default::default(),
            queue_drops_count: Default::default(),
        }
    }
}

impl Logic for FastCnpSource {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, bucket);
        dff_setup!(
            self,
            clock,
            r_valid,
            r_severe,
            r_p,
            r_ipv6,
            r_label,
            r_src_ip,
            r_src_mac,
            fifo_wptr,
            fifo_rptr,
            fifo_count,
            sent_count,
            rate_limited_count,
            no_label_count,
            queue_drops_count
        );
        for i in 0..FCN_FIFO_DEPTH {
            self.fifo[i].clock.next = self.clock.val();
            self.fifo[i].d.next = self.fifo[i].q.val();
        }
        self.r_valid.d.next = self.ev_valid.val() & self.enable.val();
        self.r_severe.d.next = self.ev_severe.val();
        self.r_p.d.next = self.ev_p.val();
        self.r_ipv6.d.next = self.ev_ipv6.val();
        self.r_label.d.next = self.ev_label.val();
        self.r_src_ip.d.next = self.ev_src_ip.val();
        self.r_src_mac.d.next = self.ev_src_mac.val();

        // The level (PE-04): where the mark's probability stands in its range.
        // Light: 3p/65536 >= 1 from p = 21846 on, >= 2 from 43691 on.
        self.level.next = 1.into();
        if self.r_p.q.val() >= 21846 {
            self.level.next = 2.into();
        }
        if self.r_p.q.val() >= 43691 {
            self.level.next = 3.into();
        }
        if self.r_severe.q.val() {
            self.level.next = bit_cast::<3, 2>(self.r_p.q.val().get_bits::<2>(14)) + 4;
            if self.r_p.q.val().get_bit(16) {
                self.level.next = 7.into();
            }
        }
        self.payload.next = (bit_cast::<32, 20>(self.r_label.q.val()) << 12)
            | (bit_cast::<32, 3>(self.level.val()) << 9);

        // UDP checksum over the IPv6 pseudo-header: both addresses, length
        // 12, next header 17; the header (ports, length 12) and payload.
        self.sum.next = bit_cast::<24, 16>(self.udp_port.val()) + 12 + 17 + 12;
        self.sum.next = self.sum.val() + bit_cast::<24, 16>(self.udp_port.val());
        self.sum.next = self.sum.val() + bit_cast::<24, 16>(self.payload.val().get_bits::<16>(16));
        self.sum.next = self.sum.val() + bit_cast::<24, 16>(self.payload.val().get_bits::<16>(0));
        // (Words swapped in a 16-bit signal: inside the cast Verilog would
        // widen `<< 8`.)
        for i in 0..8 {
            self.lane_word.next = self.gw_ipv6.val().get_bits::<16>(16 * i);
            self.word.next = (self.lane_word.val() >> 8) | (self.lane_word.val() << 8);
            self.sum.next = self.sum.val() + bit_cast::<24, 16>(self.word.val());
            self.lane_word.next = self.r_src_ip.q.val().get_bits::<16>(16 * i);
            self.word.next = (self.lane_word.val() >> 8) | (self.lane_word.val() << 8);
            self.sum.next = self.sum.val() + bit_cast::<24, 16>(self.word.val());
        }
        self.fold.next = (self.sum.val() & 0xffff) + (self.sum.val() >> 16);
        self.fold.next = (self.fold.val() & 0xffff) + (self.fold.val() >> 16);
        self.checksum.next = bit_cast::<16, 24>(self.fold.val()) ^ 0xffff;
        if self.checksum.val() == 0 {
            self.checksum.next = 0xffff.into();
        }
        self.job_in.next = bit_cast::<215, 128>(self.r_src_ip.q.val())
            | (bit_cast::<215, 48>(self.r_src_mac.q.val()) << 128)
            | (bit_cast::<215, 20>(self.r_label.q.val()) << 176)
            | (bit_cast::<215, 3>(self.level.val()) << 196)
            | (bit_cast::<215, 16>(self.checksum.val()) << 199);

        // The decision.
        self.push.next = false;
        if self.r_valid.q.val() {
            if !self.r_ipv6.q.val() | (self.r_label.q.val() == 0) {
                self.no_label_count.d.next = self.no_label_count.q.val() + 1;
            } else if self.bucket.tokens.val() == 0 {
                self.rate_limited_count.d.next = self.rate_limited_count.q.val() + 1;
            } else if self.fifo_count.q.val() == 8 {
                self.queue_drops_count.d.next = self.queue_drops_count.q.val() + 1;
            } else {
                self.push.next = true;
                self.sent_count.d.next = self.sent_count.q.val() + 1;
            }
        }

        // The FIFO.
        self.job_out.next = 0.into();
        for i in 0..FCN_FIFO_DEPTH {
            if self.fifo_rptr.q.val().index() == i {
                self.job_out.next = self.fifo[i].q.val();
            }
            if self.push.val() & (self.fifo_wptr.q.val().index() == i) {
                self.fifo[i].d.next = self.job_in.val();
            }
        }
        self.job_valid.next = self.fifo_count.q.val() != 0;
        self.pop.next = self.job_ready.val() & (self.fifo_count.q.val() != 0);
        if self.push.val() {
            self.fifo_wptr.d.next = self.fifo_wptr.q.val() + 1;
        }
        if self.pop.val() {
            self.fifo_rptr.d.next = self.fifo_rptr.q.val() + 1;
        }
        if self.push.val() & !self.pop.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() + 1;
        }
        if !self.push.val() & self.pop.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() - 1;
        }
        self.job_dst_ip.next = self.job_out.val().get_bits::<128>(0);
        self.job_dst_mac.next = self.job_out.val().get_bits::<48>(128);
        self.out_label.next = self.job_out.val().get_bits::<20>(176);
        self.out_checksum.next = self.job_out.val().get_bits::<16>(199);
        self.job_flow_label.next = 0.into();
        if self.copy_label.val() {
            self.job_flow_label.next = self.out_label.val();
        }
        self.out_payload.next = (bit_cast::<32, 20>(self.out_label.val()) << 12)
            | (bit_cast::<32, 3>(self.job_out.val().get_bits::<3>(196)) << 9);
        // Lane order: ports, length, checksum, payload, high byte first.
        self.job_body.next = bit_cast::<96, 8>(self.udp_port.val().get_bits::<8>(8))
            | (bit_cast::<96, 8>(self.udp_port.val().get_bits::<8>(0)) << 8)
            | (bit_cast::<96, 8>(self.udp_port.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<96, 8>(self.udp_port.val().get_bits::<8>(0)) << 24)
            | self.udp_length.val()
            | (bit_cast::<96, 8>(self.out_checksum.val().get_bits::<8>(8)) << 48)
            | (bit_cast::<96, 8>(self.out_checksum.val().get_bits::<8>(0)) << 56)
            | (bit_cast::<96, 8>(self.out_payload.val().get_bits::<8>(24)) << 64)
            | (bit_cast::<96, 8>(self.out_payload.val().get_bits::<8>(16)) << 72)
            | (bit_cast::<96, 8>(self.out_payload.val().get_bits::<8>(8)) << 80)
            | (bit_cast::<96, 8>(self.out_payload.val().get_bits::<8>(0)) << 88);

        // Token bucket (FCN-06), as the Long-haul CNP's.
        self.bucket.reset.next = self.reset.val();
        self.bucket.refill_clocks.next = self.refill_clocks.val();
        self.bucket.depth.next = self.bucket_depth.val();
        self.bucket.take.next = self.push.val();

        self.sent.next = self.sent_count.q.val();
        self.rate_limited.next = self.rate_limited_count.q.val();
        self.no_label.next = self.no_label_count.q.val();
        self.queue_drops.next = self.queue_drops_count.q.val();
        if self.clear_counters.val() | self.reset.val() {
            self.sent_count.d.next = 0.into();
            self.rate_limited_count.d.next = 0.into();
            self.no_label_count.d.next = 0.into();
            self.queue_drops_count.d.next = 0.into();
        }
        if self.reset.val() {
            self.r_valid.d.next = false;
            self.fifo_wptr.d.next = 0.into();
            self.fifo_rptr.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_cnp_source_emits_verilog() {
        let mut b = FastCnpSource::default();
        b.connect_all();
        let v = generate_verilog(&b);
        assert!(v.contains("module top"));
    }
}
