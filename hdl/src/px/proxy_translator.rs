//! `ProxyTranslator`: the proxy's CN message to standard CNP translation
//! (PX-02, PX-04): checks each walked CN message, looks its flow up in the
//! flow table and asks for a standard CNP to that flow's sender.
//!
//! ```text
//!  msg_valid, msg_verdict,   +----------------------+   +--------+  rd_valid/rd_taken  +-----------+
//!  msg_src, msg_sip, _dip, ->| checks, domain, token|-->| 1 read |--> rd_sip/dip/dqp   | 2 jobs    |--> job_valid/ready
//!  msg_dqp                   | bucket               |   |        |    (Lookup, 5 clk)  | (FIFO)    |    job_dst_ip, job_dqp,
//!  dom0/1 prefixes, filter ->+----------------------+   +--------+<-- resp_valid, ... -+-----------+    job_ipv6
//! ```
//! draft-xiao-rtgwg-proxy-congestion-notification section 5: the proxy
//! finds the flow the CN message names and notifies its sender as the
//! receiver's CNP would. The flow table is keyed by {SIP, DIP, DQP}: the
//! five-tuple's addresses and the invoking packet's BTH destination QP
//! (`CnReceiver`); the entry's learned source QP is the CNP's DestQP.
//!
//! Rules for each `msg_valid` while `enable`, in the clock of the pulse:
//! 1. `msg_verdict` 1: `malformed`;
//! 2. `filter` and the outer source outside every valid domain prefix
//!    (PX-04 border filtering; the prefixes are `FastCnpReceiver`'s
//!    `domN_*`): `out_of_domain`;
//! 3. verdict 2: `not_roce`; 3: `no_bth`; 4: `mismatch`;
//! 4. `refill_clocks` not 0 and no token (PX-04's receive limit; 0 is no
//!    limit): `rate_limited`;
//! 5. a read waiting or in flight, or both job slots full: `queue_drops`;
//! 6. otherwise a token is taken (when limited) and the read waits on
//!    `rd_valid` until `rd_taken`; the answer comes five clocks after.
//!
//! An answer: no entry (`resp_hit` low) -> `unknown_flow`; no source QP ->
//! `no_sqp`; otherwise a job (destination the flow's source address, DQP
//! its source QP, `job_ipv6` unless IPv4-mapped) and `cnp_sent`. The job's
//! kind is the LH-15 format table's answer for the sender (`resp_fmt_*`,
//! looked up with the read): a standard CNP without an entry, else the
//! entry's format (the ICMPv6 one never to an IPv4 sender); a Long-haul
//! body carries the message's level, `sev_action` and `sev_parameter`,
//! the source QP and no metric, its timestamp the `tod` of the decision.

use crate::notify::TokenBucket;
use crate::px::PrefixMatch;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ProxyTranslator {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub filter: Signal<In, Bit>,
    pub msg_valid: Signal<In, Bit>,
    pub msg_verdict: Signal<In, Bits<3>>,
    pub msg_src: Signal<In, Bits<128>>,
    pub msg_sip: Signal<In, Bits<128>>,
    pub msg_dip: Signal<In, Bits<128>>,
    pub msg_dqp: Signal<In, Bits<24>>,
    /// The CN message's congestion level (0..7).
    pub msg_level: Signal<In, Bits<3>>,
    /// Time of day (NTP): a Long-haul CNP's timestamp object carries that
    /// of the clock its message is decided in.
    pub tod: Signal<In, Bits<64>>,
    /// `LH_SEV0_ACTION`'s action (bits 23..22) and parameter (15..0): a
    /// Long-haul CNP's.
    pub sev_action: Signal<In, Bits<2>>,
    pub sev_parameter: Signal<In, Bits<16>>,
    pub dom0_prefix: Signal<In, Bits<128>>,
    pub dom0_len: Signal<In, Bits<8>>,
    pub dom0_valid: Signal<In, Bit>,
    pub dom1_prefix: Signal<In, Bits<128>>,
    pub dom1_len: Signal<In, Bits<8>>,
    pub dom1_valid: Signal<In, Bit>,
    pub refill_clocks: Signal<In, Bits<32>>,
    pub bucket_depth: Signal<In, Bits<4>>,
    pub clear_counters: Signal<In, Bit>,
    pub rd_valid: Signal<Out, Bit>,
    pub rd_taken: Signal<In, Bit>,
    pub rd_sip: Signal<Out, Bits<128>>,
    pub rd_dip: Signal<Out, Bits<128>>,
    pub rd_dqp: Signal<Out, Bits<24>>,
    pub resp_valid: Signal<In, Bit>,
    pub resp_hit: Signal<In, Bit>,
    pub resp_sqp_valid: Signal<In, Bit>,
    pub resp_sqp: Signal<In, Bits<24>>,
    pub resp_sip: Signal<In, Bits<128>>,
    /// LH-15: the format table's answer for the flow's sender.
    pub resp_fmt_hit: Signal<In, Bit>,
    pub resp_fmt: Signal<In, Bits<2>>,
    pub job_valid: Signal<Out, Bit>,
    pub job_ready: Signal<In, Bit>,
    pub job_dst_ip: Signal<Out, Bits<128>>,
    pub job_dqp: Signal<Out, Bits<24>>,
    pub job_ipv6: Signal<Out, Bit>,
    /// 0 standard CNP, 1 Long-haul RoCEv2, 2 Long-haul ICMPv6 format.
    pub job_kind: Signal<Out, Bits<2>>,
    pub job_body: Signal<Out, Bits<96>>,
    pub job_timestamp: Signal<Out, Bits<64>>,
    pub cnp_sent: Signal<Out, Bits<32>>,
    pub malformed: Signal<Out, Bits<32>>,
    pub out_of_domain: Signal<Out, Bits<32>>,
    pub not_roce: Signal<Out, Bits<32>>,
    pub no_bth: Signal<Out, Bits<32>>,
    pub mismatch: Signal<Out, Bits<32>>,
    pub rate_limited: Signal<Out, Bits<32>>,
    pub queue_drops: Signal<Out, Bits<32>>,
    pub unknown_flow: Signal<Out, Bits<32>>,
    pub no_sqp: Signal<Out, Bits<32>>,
    rd_pending: DFF<Bit>,
    in_flight: DFF<Bit>,
    r_sip: DFF<Bits<128>>,
    r_dip: DFF<Bits<128>>,
    r_dqp: DFF<Bits<24>>,
    r_level: DFF<Bits<3>>,
    r_tod: DFF<Bits<64>>,
    /// Job slots: 0 is the head; each {tod [220:157], level [156:154],
    /// kind [153:152], sqp [151:128], sip [127:0]}.
    job0: DFF<Bits<221>>,
    job1: DFF<Bits<221>>,
    jobs: DFF<Bits<2>>,
    bucket: TokenBucket,
    dom: PrefixMatch,
    counts: Vec<DFF<Bits<32>>>,
    push: Signal<Local, Bit>,
    push_job: Signal<Local, Bit>,
    pop_job: Signal<Local, Bit>,
    job_in: Signal<Local, Bits<221>>,
    kind: Signal<Local, Bits<2>>,
    sqp_lanes: Signal<Local, Bits<32>>,
    param_lanes: Signal<Local, Bits<16>>,
    in_domain: Signal<Local, Bit>,
}

/// `counts`: 0 sent, 1 malformed, 2 out of domain, 3 not RoCEv2, 4 no BTH,
/// 5 mismatch, 6 rate limited, 7 queue drops, 8 unknown flow, 9 no SQP.
impl Default for ProxyTranslator {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            filter: Default::default(),
            msg_valid: Default::default(),
            msg_verdict: Default::default(),
            msg_src: Default::default(),
            msg_sip: Default::default(),
            msg_dip: Default::default(),
            msg_dqp: Default::default(),
            msg_level: Default::default(),
            tod: Default::default(),
            sev_action: Default::default(),
            sev_parameter: Default::default(),
            dom0_prefix: Default::default(),
            dom0_len: Default::default(),
            dom0_valid: Default::default(),
            dom1_prefix: Default::default(),
            dom1_len: Default::default(),
            dom1_valid: Default::default(),
            refill_clocks: Default::default(),
            bucket_depth: Default::default(),
            clear_counters: Default::default(),
            rd_valid: Default::default(),
            rd_taken: Default::default(),
            rd_sip: Default::default(),
            rd_dip: Default::default(),
            rd_dqp: Default::default(),
            resp_valid: Default::default(),
            resp_hit: Default::default(),
            resp_sqp_valid: Default::default(),
            resp_sqp: Default::default(),
            resp_sip: Default::default(),
            resp_fmt_hit: Default::default(),
            resp_fmt: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_dst_ip: Default::default(),
            job_dqp: Default::default(),
            job_ipv6: Default::default(),
            job_kind: Default::default(),
            job_body: Default::default(),
            job_timestamp: Default::default(),
            cnp_sent: Default::default(),
            malformed: Default::default(),
            out_of_domain: Default::default(),
            not_roce: Default::default(),
            no_bth: Default::default(),
            mismatch: Default::default(),
            rate_limited: Default::default(),
            queue_drops: Default::default(),
            unknown_flow: Default::default(),
            no_sqp: Default::default(),
            rd_pending: Default::default(),
            in_flight: Default::default(),
            r_sip: Default::default(),
            r_dip: Default::default(),
            r_dqp: Default::default(),
            r_level: Default::default(),
            r_tod: Default::default(),
            job0: Default::default(),
            job1: Default::default(),
            jobs: Default::default(),
            bucket: Default::default(),
            dom: Default::default(),
            counts: (0..10).map(|_| Default::default()).collect(),
            push: Default::default(),
            push_job: Default::default(),
            pop_job: Default::default(),
            job_in: Default::default(),
            kind: Default::default(),
            sqp_lanes: Default::default(),
            param_lanes: Default::default(),
            in_domain: Default::default(),
        }
    }
}

impl Logic for ProxyTranslator {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, bucket);
        dff_setup!(
            self, clock, rd_pending, in_flight, r_sip, r_dip, r_dqp, r_level, r_tod, job0, job1,
            jobs
        );
        for i in 0..10 {
            self.counts[i].clock.next = self.clock.val();
            self.counts[i].d.next = self.counts[i].q.val();
        }

        // Domain prefixes (PX-04, FCN-06).
        self.dom.addr.next = self.msg_src.val();
        self.dom.dom0_prefix.next = self.dom0_prefix.val();
        self.dom.dom0_len.next = self.dom0_len.val();
        self.dom.dom0_valid.next = self.dom0_valid.val();
        self.dom.dom1_prefix.next = self.dom1_prefix.val();
        self.dom.dom1_len.next = self.dom1_len.val();
        self.dom.dom1_valid.next = self.dom1_valid.val();
        self.in_domain.next = !self.filter.val() | self.dom.in_domain.val();

        // The checks.
        self.push.next = false;
        if self.msg_valid.val() & self.enable.val() {
            if self.msg_verdict.val() == 1 {
                self.counts[1].d.next = self.counts[1].q.val() + 1;
            } else if !self.in_domain.val() {
                self.counts[2].d.next = self.counts[2].q.val() + 1;
            } else if self.msg_verdict.val() == 2 {
                self.counts[3].d.next = self.counts[3].q.val() + 1;
            } else if self.msg_verdict.val() == 3 {
                self.counts[4].d.next = self.counts[4].q.val() + 1;
            } else if self.msg_verdict.val() != 0 {
                self.counts[5].d.next = self.counts[5].q.val() + 1;
            } else if (self.refill_clocks.val() != 0) & (self.bucket.tokens.val() == 0) {
                self.counts[6].d.next = self.counts[6].q.val() + 1;
            } else if self.rd_pending.q.val() | self.in_flight.q.val() | (self.jobs.q.val() == 2) {
                self.counts[7].d.next = self.counts[7].q.val() + 1;
            } else {
                self.push.next = true;
            }
        }
        if self.push.val() {
            self.rd_pending.d.next = true;
            self.r_sip.d.next = self.msg_sip.val();
            self.r_dip.d.next = self.msg_dip.val();
            self.r_dqp.d.next = self.msg_dqp.val();
            self.r_level.d.next = self.msg_level.val();
            self.r_tod.d.next = self.tod.val();
        }
        self.rd_valid.next = self.rd_pending.q.val();
        self.rd_sip.next = self.r_sip.q.val();
        self.rd_dip.next = self.r_dip.q.val();
        self.rd_dqp.next = self.r_dqp.q.val();
        if self.rd_taken.val() & self.rd_pending.q.val() {
            self.rd_pending.d.next = false;
            self.in_flight.d.next = true;
        }

        // Answers.
        self.push_job.next = false;
        if self.resp_valid.val() {
            self.in_flight.d.next = false;
            if !self.resp_hit.val() {
                self.counts[8].d.next = self.counts[8].q.val() + 1;
            } else if !self.resp_sqp_valid.val() {
                self.counts[9].d.next = self.counts[9].q.val() + 1;
            } else {
                self.push_job.next = true;
                self.counts[0].d.next = self.counts[0].q.val() + 1;
            }
        }
        // LH-15 at the proxy: the format table's word for the sender, a
        // standard CNP without an entry (and for an IPv4 sender the
        // ICMPv6 format cannot reach).
        self.kind.next = 0.into();
        if self.resp_fmt_hit.val() {
            self.kind.next = self.resp_fmt.val();
            if (self.resp_fmt.val() == 2)
                & (self.resp_sip.val().get_bits::<80>(0) == 0)
                & (self.resp_sip.val().get_bits::<16>(80) == 0xffff)
            {
                self.kind.next = 0.into();
            }
        }
        self.job_in.next = bit_cast::<221, 128>(self.resp_sip.val())
            | (bit_cast::<221, 24>(self.resp_sqp.val()) << 128)
            | (bit_cast::<221, 2>(self.kind.val()) << 152)
            | (bit_cast::<221, 3>(self.r_level.q.val()) << 154)
            | (bit_cast::<221, 64>(self.r_tod.q.val()) << 157);
        self.pop_job.next = self.job_ready.val() & (self.jobs.q.val() != 0);
        if self.pop_job.val() {
            self.job0.d.next = self.job1.q.val();
        }
        if self.push_job.val() {
            if (self.jobs.q.val() == 0) | ((self.jobs.q.val() == 1) & self.pop_job.val()) {
                self.job0.d.next = self.job_in.val();
            } else {
                self.job1.d.next = self.job_in.val();
            }
        }
        if self.push_job.val() & !self.pop_job.val() {
            self.jobs.d.next = self.jobs.q.val() + 1;
        }
        if !self.push_job.val() & self.pop_job.val() {
            self.jobs.d.next = self.jobs.q.val() - 1;
        }
        self.job_valid.next = self.jobs.q.val() != 0;
        self.job_dst_ip.next = self.job0.q.val().get_bits::<128>(0);
        self.job_dqp.next = self.job0.q.val().get_bits::<24>(128);
        self.job_kind.next = self.job0.q.val().get_bits::<2>(152);
        self.job_timestamp.next = self.job0.q.val().get_bits::<64>(157);
        // The Long-haul body (wire order, lane order): the message's level,
        // LH_SEV0_ACTION's action and parameter, the sender's QP, no metric
        // (the proxy does not see the congested queue).
        self.sqp_lanes.next = ((bit_cast::<32, 24>(self.job0.q.val().get_bits::<24>(128)) >> 8)
            & 0xFF00)
            | ((bit_cast::<32, 24>(self.job0.q.val().get_bits::<24>(128)) << 8) & 0xFF_0000)
            | (bit_cast::<32, 24>(self.job0.q.val().get_bits::<24>(128)) << 24);
        self.param_lanes.next = (self.sev_parameter.val() >> 8) | (self.sev_parameter.val() << 8);
        self.job_body.next = bit_cast::<96, 3>(self.job0.q.val().get_bits::<3>(154))
            | (bit_cast::<96, 2>(self.sev_action.val()) << 14)
            | (bit_cast::<96, 16>(self.param_lanes.val()) << 16)
            | (bit_cast::<96, 32>(self.sqp_lanes.val()) << 32);
        // IPv4-mapped (::ffff:a.b.c.d): lane bytes 0..9 zero, 10 and 11 0xff.
        self.job_ipv6.next = (self.job0.q.val().get_bits::<80>(0) != 0)
            | (self.job0.q.val().get_bits::<16>(80) != 0xffff);

        self.bucket.reset.next = self.reset.val();
        self.bucket.refill_clocks.next = self.refill_clocks.val();
        self.bucket.depth.next = self.bucket_depth.val();
        self.bucket.take.next = self.push.val() & (self.refill_clocks.val() != 0);

        self.cnp_sent.next = self.counts[0].q.val();
        self.malformed.next = self.counts[1].q.val();
        self.out_of_domain.next = self.counts[2].q.val();
        self.not_roce.next = self.counts[3].q.val();
        self.no_bth.next = self.counts[4].q.val();
        self.mismatch.next = self.counts[5].q.val();
        self.rate_limited.next = self.counts[6].q.val();
        self.queue_drops.next = self.counts[7].q.val();
        self.unknown_flow.next = self.counts[8].q.val();
        self.no_sqp.next = self.counts[9].q.val();
        if self.clear_counters.val() | self.reset.val() {
            for i in 0..10 {
                self.counts[i].d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.rd_pending.d.next = false;
            self.in_flight.d.next = false;
            self.jobs.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_proxy_translator_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<ProxyTranslator>("proxy_translator");
    }
}
