//! `FcnTranslator`: the ingress PE's Fast CNP to standard CNP translation
//! (FCN-05, FCN-06): checks each received Fast CNP, reads the flow its
//! label names from the flow table and asks for a standard CNP to that
//! flow's sender.
//!
//! ```text
//!  msg_valid, msg_label,      +---------------------+   +---------+   rd_valid/rd_taken    +-----------+
//!  msg_ok, msg_in_domain ---->| checks, token bucket|-->| 4 reads |--> rd_bucket/slot/stash  | 4 jobs    |--> job_valid/ready
//!  enable, refill, depth ---->| label -> place      |   | waiting |    (flow table, 5 clk)  | (FIFO)    |    job_dst_ip, job_dqp,
//!                             +---------------------+   +---------+<-- resp_valid, _hit, --+-----------+    job_ipv6
//!                                                                      _sqp_valid, _sqp, _sip
//! ```
//! draft-he-fcn-in-wan section 4.1: the ingress PE extracts the flow label
//! from the Fast CNP, finds the RoCEv2 flow in its mapping table and sends
//! the sender a standard CNP whose destination is the flow's source
//! address and whose BTH destination QP is the flow's source QP. Here the
//! label is the flow's place in the flow table (FCN-01,
//! `cngw_model::placement`): `label - 1 = 4 * bucket + way` below 16384,
//! stash slot `label - 16385` up to 16392.
//!
//! Rules for each `msg_valid` (one per clock at most) while `enable`, in
//! the clock of the pulse:
//! 1. `msg_ok` low (bad lengths or UDP checksum): counted in `malformed`;
//! 2. `msg_in_domain` low (FCN-06: the source is outside every configured
//!    domain prefix): `out_of_domain`;
//! 3. label 0 or above 16392: `unknown_label`;
//! 4. no token (the receive-side bucket, FCN-06): `rate_limited`;
//! 5. `msg_local` (PE-05: a light notification for the PE's own shaper):
//!    a token is taken and the label leaves on `note_valid`/`note_label`
//!    in the same clock (no read, no CNP, counted by the shaper);
//! 6. reads waiting, reads in flight and jobs queued already make 4:
//!    `queue_drops`;
//! 7. otherwise a token is taken and a read of the label's place waits in
//!    a FIFO; `rd_valid` shows the oldest; the gateway grants it with
//!    `rd_taken` in a clock the flow table is free and answers five clocks
//!    later on `resp_*` (`resp_valid` high only for this block's reads).
//!
//! An answer: no entry at the place (`resp_hit` low: the flow aged out or
//! the label was never given) -> `unknown_label`; an entry without a source
//! QP -> `no_sqp`; otherwise a job (destination the flow's source address,
//! DQP its source QP, `job_ipv6` unless the address is IPv4-mapped) enters
//! the job FIFO and `cnp_sent` counts it. The congestion level is not
//! carried by a standard CNP. Token bucket as `LhController`'s. Latency: a
//! read is on `rd_valid` the clock after `msg_valid`; a job is on
//! `job_valid` the clock after its answer.

use crate::notify::TokenBucket;
use rust_hdl::prelude::*;

/// Entries shared by the waiting reads, the reads in flight and the jobs.
pub const FCN_RX_SLOTS: usize = 4;

#[derive(LogicBlock)]
pub struct FcnTranslator {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub msg_valid: Signal<In, Bit>,
    pub msg_label: Signal<In, Bits<20>>,
    pub msg_ok: Signal<In, Bit>,
    pub msg_in_domain: Signal<In, Bit>,
    /// The message is handled here, not translated (PE-05: a light Fast
    /// CNP while the PE's shaper is on): after checks 1..4 it leaves on
    /// `note_valid`/`note_label` instead of becoming a read.
    pub msg_local: Signal<In, Bit>,
    /// A checked local message, in its own clock (combinational).
    pub note_valid: Signal<Out, Bit>,
    pub note_label: Signal<Out, Bits<20>>,
    pub refill_clocks: Signal<In, Bits<32>>,
    pub bucket_depth: Signal<In, Bits<4>>,
    pub clear_counters: Signal<In, Bit>,
    /// The oldest waiting read: place `{rd_in_stash, rd_bucket, rd_slot}`.
    pub rd_valid: Signal<Out, Bit>,
    pub rd_taken: Signal<In, Bit>,
    pub rd_bucket: Signal<Out, Bits<12>>,
    pub rd_slot: Signal<Out, Bits<4>>,
    pub rd_in_stash: Signal<Out, Bit>,
    /// The flow table's answer to one of this block's reads.
    pub resp_valid: Signal<In, Bit>,
    pub resp_hit: Signal<In, Bit>,
    pub resp_sqp_valid: Signal<In, Bit>,
    pub resp_sqp: Signal<In, Bits<24>>,
    /// The flow's source address, lane order (IPv4-mapped for IPv4).
    pub resp_sip: Signal<In, Bits<128>>,
    pub job_valid: Signal<Out, Bit>,
    pub job_ready: Signal<In, Bit>,
    pub job_dst_ip: Signal<Out, Bits<128>>,
    pub job_dqp: Signal<Out, Bits<24>>,
    pub job_ipv6: Signal<Out, Bit>,
    pub cnp_sent: Signal<Out, Bits<32>>,
    pub malformed: Signal<Out, Bits<32>>,
    pub out_of_domain: Signal<Out, Bits<32>>,
    pub unknown_label: Signal<Out, Bits<32>>,
    pub rate_limited: Signal<Out, Bits<32>>,
    pub queue_drops: Signal<Out, Bits<32>>,
    pub no_sqp: Signal<Out, Bits<32>>,
    index: Signal<Local, Bits<14>>,
    place: Signal<Local, Bits<17>>,
    known: Signal<Local, Bit>,
    used: Signal<Local, Bits<4>>,
    push_rd: Signal<Local, Bit>,
    pop_rd: Signal<Local, Bit>,
    push_job: Signal<Local, Bit>,
    pop_job: Signal<Local, Bit>,
    rd_out: Signal<Local, Bits<17>>,
    job_in: Signal<Local, Bits<152>>,
    job_out: Signal<Local, Bits<152>>,
    rd_fifo: Vec<DFF<Bits<17>>>,
    rd_wptr: DFF<Bits<2>>,
    rd_rptr: DFF<Bits<2>>,
    rd_count: DFF<Bits<3>>,
    /// Reads granted and not yet answered.
    in_flight: DFF<Bits<3>>,
    job_fifo: Vec<DFF<Bits<152>>>,
    job_wptr: DFF<Bits<2>>,
    job_rptr: DFF<Bits<2>>,
    job_count: DFF<Bits<3>>,
    bucket: TokenBucket,
    sent_count: DFF<Bits<32>>,
    malformed_count: DFF<Bits<32>>,
    domain_count: DFF<Bits<32>>,
    unknown_count: DFF<Bits<32>>,
    limited_count: DFF<Bits<32>>,
    drops_count: DFF<Bits<32>>,
    no_sqp_count: DFF<Bits<32>>,
}

impl Default for FcnTranslator {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            msg_valid: Default::default(),
            msg_label: Default::default(),
            msg_ok: Default::default(),
            msg_in_domain: Default::default(),
            msg_local: Default::default(),
            note_valid: Default::default(),
            note_label: Default::default(),
            refill_clocks: Default::default(),
            bucket_depth: Default::default(),
            clear_counters: Default::default(),
            rd_valid: Default::default(),
            rd_taken: Default::default(),
            rd_bucket: Default::default(),
            rd_slot: Default::default(),
            rd_in_stash: Default::default(),
            resp_valid: Default::default(),
            resp_hit: Default::default(),
            resp_sqp_valid: Default::default(),
            resp_sqp: Default::default(),
            resp_sip: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_dst_ip: Default::default(),
            job_dqp: Default::default(),
            job_ipv6: Default::default(),
            cnp_sent: Default::default(),
            malformed: Default::default(),
            out_of_domain: Default::default(),
            unknown_label: Default::default(),
            rate_limited: Default::default(),
            queue_drops: Default::default(),
            no_sqp: Default::default(),
            index: Default::default(),
            place: Default::default(),
            known: Default::default(),
            used: Default::default(),
            push_rd: Default::default(),
            pop_rd: Default::default(),
            push_job: Default::default(),
            pop_job: Default::default(),
            rd_out: Default::default(),
            job_in: Default::default(),
            job_out: Default::default(),
            rd_fifo: (0..FCN_RX_SLOTS).map(|_| Default::default()).collect(),
            rd_wptr: Default::default(),
            rd_rptr: Default::default(),
            rd_count: Default::default(),
            in_flight: Default::default(),
            job_fifo: (0..FCN_RX_SLOTS).map(|_| Default::default()).collect(),
            job_wptr: Default::default(),
            job_rptr: Default::default(),
            job_count: Default::default(),
            bucket: Default::default(),
            sent_count: Default::default(),
            malformed_count: Default::default(),
            domain_count: Default::default(),
            unknown_count: Default::default(),
            limited_count: Default::default(),
            drops_count: Default::default(),
            no_sqp_count: Default::default(),
        }
    }
}

impl Logic for FcnTranslator {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, bucket);
        dff_setup!(
            self,
            clock,
            rd_wptr,
            rd_rptr,
            rd_count,
            in_flight,
            job_wptr,
            job_rptr,
            job_count,
            sent_count,
            malformed_count,
            domain_count,
            unknown_count,
            limited_count,
            drops_count,
            no_sqp_count
        );
        for i in 0..FCN_RX_SLOTS {
            self.rd_fifo[i].clock.next = self.clock.val();
            self.rd_fifo[i].d.next = self.rd_fifo[i].q.val();
            self.job_fifo[i].clock.next = self.clock.val();
            self.job_fifo[i].d.next = self.job_fifo[i].q.val();
        }

        // The place a label names: {in_stash [16], bucket [15:4], slot [3:0]}.
        // label - 1 mod 2^14: 4 * bucket + way below 16384; for the stash
        // (16385..=16392) its low bits are the slot.
        self.index.next = self.msg_label.val().get_bits::<14>(0) - 1;
        self.place.next = (bit_cast::<17, 12>(self.index.val().get_bits::<12>(2)) << 4)
            | bit_cast::<17, 2>(self.index.val().get_bits::<2>(0));
        self.known.next = (self.msg_label.val() != 0) & (self.msg_label.val() <= 16392);
        if self.msg_label.val() > 16384 {
            self.place.next =
                bits::<17>(0x10000) | bit_cast::<17, 3>(self.index.val().get_bits::<3>(0));
        }

        // The checks.
        self.used.next = bit_cast::<4, 3>(self.rd_count.q.val())
            + bit_cast::<4, 3>(self.in_flight.q.val())
            + bit_cast::<4, 3>(self.job_count.q.val());
        self.push_rd.next = false;
        self.note_valid.next = false;
        self.note_label.next = self.msg_label.val();
        if self.msg_valid.val() & self.enable.val() {
            if !self.msg_ok.val() {
                self.malformed_count.d.next = self.malformed_count.q.val() + 1;
            } else if !self.msg_in_domain.val() {
                self.domain_count.d.next = self.domain_count.q.val() + 1;
            } else if !self.known.val() {
                self.unknown_count.d.next = self.unknown_count.q.val() + 1;
            } else if self.bucket.tokens.val() == 0 {
                self.limited_count.d.next = self.limited_count.q.val() + 1;
            } else if self.msg_local.val() {
                self.note_valid.next = true;
            } else if self.used.val() >= 4 {
                self.drops_count.d.next = self.drops_count.q.val() + 1;
            } else {
                self.push_rd.next = true;
            }
        }

        // Waiting reads.
        self.rd_out.next = 0.into();
        for i in 0..FCN_RX_SLOTS {
            if self.rd_rptr.q.val().index() == i {
                self.rd_out.next = self.rd_fifo[i].q.val();
            }
            if self.push_rd.val() & (self.rd_wptr.q.val().index() == i) {
                self.rd_fifo[i].d.next = self.place.val();
            }
        }
        self.rd_valid.next = self.rd_count.q.val() != 0;
        self.rd_bucket.next = self.rd_out.val().get_bits::<12>(4);
        self.rd_slot.next = self.rd_out.val().get_bits::<4>(0);
        self.rd_in_stash.next = self.rd_out.val().get_bit(16);
        self.pop_rd.next = self.rd_taken.val() & (self.rd_count.q.val() != 0);
        if self.push_rd.val() {
            self.rd_wptr.d.next = self.rd_wptr.q.val() + 1;
        }
        if self.pop_rd.val() {
            self.rd_rptr.d.next = self.rd_rptr.q.val() + 1;
        }
        if self.push_rd.val() & !self.pop_rd.val() {
            self.rd_count.d.next = self.rd_count.q.val() + 1;
        }
        if !self.push_rd.val() & self.pop_rd.val() {
            self.rd_count.d.next = self.rd_count.q.val() - 1;
        }
        if self.pop_rd.val() & !self.resp_valid.val() {
            self.in_flight.d.next = self.in_flight.q.val() + 1;
        }
        if !self.pop_rd.val() & self.resp_valid.val() {
            self.in_flight.d.next = self.in_flight.q.val() - 1;
        }

        // Answers.
        self.push_job.next = false;
        if self.resp_valid.val() {
            if !self.resp_hit.val() {
                self.unknown_count.d.next = self.unknown_count.q.val() + 1;
            } else if !self.resp_sqp_valid.val() {
                self.no_sqp_count.d.next = self.no_sqp_count.q.val() + 1;
            } else {
                self.push_job.next = true;
                self.sent_count.d.next = self.sent_count.q.val() + 1;
            }
        }
        // (An answer and a message in one clock: both counters move by one.)
        if self.resp_valid.val()
            & !self.resp_hit.val()
            & self.msg_valid.val()
            & self.enable.val()
            & self.msg_ok.val()
            & self.msg_in_domain.val()
            & !self.known.val()
        {
            self.unknown_count.d.next = self.unknown_count.q.val() + 2;
        }
        self.job_in.next = bit_cast::<152, 128>(self.resp_sip.val())
            | (bit_cast::<152, 24>(self.resp_sqp.val()) << 128);
        self.job_out.next = 0.into();
        for i in 0..FCN_RX_SLOTS {
            if self.job_rptr.q.val().index() == i {
                self.job_out.next = self.job_fifo[i].q.val();
            }
            if self.push_job.val() & (self.job_wptr.q.val().index() == i) {
                self.job_fifo[i].d.next = self.job_in.val();
            }
        }
        self.job_valid.next = self.job_count.q.val() != 0;
        self.job_dst_ip.next = self.job_out.val().get_bits::<128>(0);
        self.job_dqp.next = self.job_out.val().get_bits::<24>(128);
        // IPv4-mapped (::ffff:a.b.c.d): lane bytes 0..9 zero, 10 and 11 0xff.
        self.job_ipv6.next = (self.job_out.val().get_bits::<80>(0) != 0)
            | (self.job_out.val().get_bits::<16>(80) != 0xffff);
        self.pop_job.next = self.job_ready.val() & (self.job_count.q.val() != 0);
        if self.push_job.val() {
            self.job_wptr.d.next = self.job_wptr.q.val() + 1;
        }
        if self.pop_job.val() {
            self.job_rptr.d.next = self.job_rptr.q.val() + 1;
        }
        if self.push_job.val() & !self.pop_job.val() {
            self.job_count.d.next = self.job_count.q.val() + 1;
        }
        if !self.push_job.val() & self.pop_job.val() {
            self.job_count.d.next = self.job_count.q.val() - 1;
        }

        // Token bucket (FCN-06, receiving side), as the Long-haul CNP's.
        self.bucket.reset.next = self.reset.val();
        self.bucket.refill_clocks.next = self.refill_clocks.val();
        self.bucket.depth.next = self.bucket_depth.val();
        self.bucket.take.next = self.push_rd.val() | self.note_valid.val();

        self.cnp_sent.next = self.sent_count.q.val();
        self.malformed.next = self.malformed_count.q.val();
        self.out_of_domain.next = self.domain_count.q.val();
        self.unknown_label.next = self.unknown_count.q.val();
        self.rate_limited.next = self.limited_count.q.val();
        self.queue_drops.next = self.drops_count.q.val();
        self.no_sqp.next = self.no_sqp_count.q.val();
        if self.clear_counters.val() | self.reset.val() {
            self.sent_count.d.next = 0.into();
            self.malformed_count.d.next = 0.into();
            self.domain_count.d.next = 0.into();
            self.unknown_count.d.next = 0.into();
            self.limited_count.d.next = 0.into();
            self.drops_count.d.next = 0.into();
            self.no_sqp_count.d.next = 0.into();
        }
        if self.reset.val() {
            self.rd_wptr.d.next = 0.into();
            self.rd_rptr.d.next = 0.into();
            self.rd_count.d.next = 0.into();
            self.in_flight.d.next = 0.into();
            self.job_wptr.d.next = 0.into();
            self.job_rptr.d.next = 0.into();
            self.job_count.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcn_translator_emits_verilog() {
        let mut b = FcnTranslator::default();
        b.connect_all();
        assert!(generate_verilog(&b).contains("module top"));
    }
}
