//! `RateAdvisor`: which data frames bring their sender a Rate Advice
//! message (RA-01, RA-02's policy caps, RA-03's "on change, at a minimum
//! interval"), and the queue of those messages toward the builder.
//!
//! ```text
//!  flow-table answer (A) --+-- capable? (RA_CAPn prefixes, header bit) +
//!   sender, location, DQP  +-- caps (RA_POLICYn prefixes) -> advice ---+--> (B) decide --> job FIFO --> job_*
//!                          +-- state RAM [location] (last advice, when)+        |
//!                                      ^----------- write on a queued job ------+
//! ```
//! Stage A is the clock of the flow table's answer for a RoCEv2 frame from
//! dc_rx (the Long-haul controller's decision clock): the sender's address
//! is matched against the two capable-sender prefixes (or the frame carries
//! the capability bit: `res_flagged`) and the two policy prefixes; the flow's advice is the port's rate or the lowest cap of the
//! policy entries that cover the sender; the flow's state (last advice
//! sent, the microsecond it was sent) is read from a RAM indexed by the
//! flow's table location (a 16K-deep block RAM for the main places, a
//! 16-entry distributed RAM for the stash places). Stage B,
//! the next clock, decides for a capable sender's frame:
//! - no learned source QP: nothing (counted `no_sqp`);
//! - the flow was just inserted, has no state, or its advice differs from
//!   the last one sent: a message when the last one is at least `spacing`
//!   microseconds old (or there is none), else nothing (counted `held`);
//! - a message goes into a 256-entry queue (full: counted `queue_drops`, the
//!   state is left as it was, so the flow's next frame tries again) and
//!   the state is written (forwarded to a frame of the same flow in the
//!   next clock).
//!
//! The RAM is not cleared by `reset` (an FPGA's block RAM starts at zero):
//! a flow inserted after the reset starts without state; a flow entered by
//! the host keeps what its place held.
//!
//! A job: the sender (MAC, address, family), the frame's P_Key, the flow's
//! source QP (BTH DestQP) and the body's variable fields in lane order —
//! rate (bytes 0..3) and the frame's DestQP (bytes 4..7), bytes 8..11 zero
//! (the body's Source QP: cngw has no QP of its own).

use crate::px::PrefixMatch;
use crate::stream::RamFifo;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RateAdvisor {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// FEATURE_ENABLE.rate_advice.
    pub enable: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    /// Stage A: the answer for a data frame (not dropped, not failed).
    pub res_valid: Signal<In, Bit>,
    pub res_inserted: Signal<In, Bit>,
    pub res_sqp_valid: Signal<In, Bit>,
    pub res_sqp: Signal<In, Bits<24>>,
    /// The flow's place (bucket << 2 | slot, or 0x8000 | stash slot).
    pub res_location: Signal<In, Bits<16>>,
    /// The frame's BTH DestQP.
    pub res_dqp: Signal<In, Bits<24>>,
    pub res_src_ip: Signal<In, Bits<128>>,
    /// The flow's destination address (lane order, IPv4-mapped).
    pub res_dst_ip: Signal<In, Bits<128>>,
    pub res_src_mac: Signal<In, Bits<48>>,
    pub res_pkey: Signal<In, Bits<16>>,
    pub res_ipv6: Signal<In, Bit>,
    /// The frame marks its sender capable (RA_CONTROL.header_bit and the
    /// frame's BTH capability bit).
    pub res_flagged: Signal<In, Bit>,
    /// The port's advised rate (Mb/s) and the time base.
    pub port_rate: Signal<In, Bits<32>>,
    pub now_us: Signal<In, Bits<32>>,
    pub spacing: Signal<In, Bits<32>>,
    /// RA_CAPn and RA_POLICYn prefixes (lane order), lengths, valid bits.
    pub cap0_prefix: Signal<In, Bits<128>>,
    pub cap0_len: Signal<In, Bits<8>>,
    pub cap0_valid: Signal<In, Bit>,
    pub cap1_prefix: Signal<In, Bits<128>>,
    pub cap1_len: Signal<In, Bits<8>>,
    pub cap1_valid: Signal<In, Bit>,
    pub pol0_prefix: Signal<In, Bits<128>>,
    pub pol0_len: Signal<In, Bits<8>>,
    pub pol0_valid: Signal<In, Bit>,
    pub pol0_mbps: Signal<In, Bits<32>>,
    pub pol1_prefix: Signal<In, Bits<128>>,
    pub pol1_len: Signal<In, Bits<8>>,
    pub pol1_valid: Signal<In, Bit>,
    pub pol1_mbps: Signal<In, Bits<32>>,
    /// RA-04 remote mode: the prefixes behind the peer gateways (lane
    /// order), lengths, "the peer's advice is live" and that advice.
    pub rem0_prefix: Signal<In, Bits<128>>,
    pub rem0_len: Signal<In, Bits<8>>,
    pub rem0_live: Signal<In, Bit>,
    pub rem0_mbps: Signal<In, Bits<32>>,
    pub rem1_prefix: Signal<In, Bits<128>>,
    pub rem1_len: Signal<In, Bits<8>>,
    pub rem1_live: Signal<In, Bit>,
    pub rem1_mbps: Signal<In, Bits<32>>,
    /// Jobs for the builder.
    pub job_valid: Signal<Out, Bit>,
    pub job_ready: Signal<In, Bit>,
    pub job_ipv6: Signal<Out, Bit>,
    pub job_dst_mac: Signal<Out, Bits<48>>,
    pub job_dst_ip: Signal<Out, Bits<128>>,
    pub job_pkey: Signal<Out, Bits<16>>,
    pub job_dqp: Signal<Out, Bits<24>>,
    pub job_body: Signal<Out, Bits<96>>,
    pub sent: Signal<Out, Bits<32>>,
    pub held: Signal<Out, Bits<32>>,
    pub no_sqp: Signal<Out, Bits<32>>,
    pub queue_drops: Signal<Out, Bits<32>>,
    capable: PrefixMatch,
    pol0: PrefixMatch,
    pol1: PrefixMatch,
    rem0: PrefixMatch,
    rem1: PrefixMatch,
    /// Per main place (bucket << 2 | way): valid (0), advice (24..1),
    /// microsecond (56..25).
    state: RAM<Bits<57>, 14>,
    /// The same per stash place (16 x 57: distributed RAM, so the main
    /// places' RAM is 16K deep, not 32K).
    stash_state: RAM<Bits<57>, 4>,
    /// Stage B's place is a stash place.
    b_stash: DFF<Bit>,
    ra_fifo: RamFifo<Bits<265>>,
    b_valid: DFF<Bit>,
    /// `b_valid` with a learned source QP: the frame may bring a message.
    b_go: DFF<Bit>,
    b_fresh: DFF<Bit>,
    b_sqp_valid: DFF<Bit>,
    b_idx: DFF<Bits<15>>,
    b_job: DFF<Bits<265>>,
    b_advice: DFF<Bits<24>>,
    b_now: DFF<Bits<32>>,
    /// The spacing window (microseconds `t` with `now - t < spacing`) is
    /// `(b_win, b_now]` on the 32-bit circle: `b_win = now - spacing`,
    /// `b_wrap` when it wraps past zero, `b_nowin` when it is empty.
    b_win: DFF<Bits<32>>,
    b_wrap: DFF<Bit>,
    b_nowin: DFF<Bit>,
    /// Stage B's place is the one stage A of the frame before wrote.
    b_same: DFF<Bit>,
    w_valid: DFF<Bit>,
    w_data: DFF<Bits<57>>,
    sent_count: DFF<Bits<32>>,
    held_count: DFF<Bits<32>>,
    no_sqp_count: DFF<Bits<32>>,
    drop_count: DFF<Bits<32>>,
    idx: Signal<Local, Bits<15>>,
    advice: Signal<Local, Bits<32>>,
    win: Signal<Local, Bits<32>>,
    // The decision against each place the state can come from (main RAM,
    // stash RAM, the write of the clock before), picked afterwards.
    m_seen: Signal<Local, Bits<57>>,
    m_new: Signal<Local, Bit>,
    m_after: Signal<Local, Bit>,
    m_upto: Signal<Local, Bit>,
    m_inside: Signal<Local, Bit>,
    m_spaced: Signal<Local, Bit>,
    s_seen: Signal<Local, Bits<57>>,
    s_new: Signal<Local, Bit>,
    s_after: Signal<Local, Bit>,
    s_upto: Signal<Local, Bit>,
    s_inside: Signal<Local, Bit>,
    s_spaced: Signal<Local, Bit>,
    w_new: Signal<Local, Bit>,
    w_after: Signal<Local, Bit>,
    w_upto: Signal<Local, Bit>,
    w_inside: Signal<Local, Bit>,
    w_spaced: Signal<Local, Bit>,
    changed: Signal<Local, Bit>,
    spaced: Signal<Local, Bit>,
    send: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    new_state: Signal<Local, Bits<57>>,
    head: Signal<Local, Bits<265>>,
    job_word: Signal<Local, Bits<265>>,
}

impl Logic for RateAdvisor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            b_valid,
            b_go,
            b_fresh,
            b_sqp_valid,
            b_idx,
            b_stash,
            b_job,
            b_advice,
            b_now,
            b_win,
            b_wrap,
            b_nowin,
            b_same,
            w_valid,
            w_data,
            sent_count,
            held_count,
            no_sqp_count,
            drop_count
        );
        clock!(self, clock, ra_fifo);
        self.ra_fifo.reset.next = self.reset.val();
        self.state.read_clock.next = self.clock.val();
        self.state.write_clock.next = self.clock.val();
        self.stash_state.read_clock.next = self.clock.val();
        self.stash_state.write_clock.next = self.clock.val();

        // Stage A: capability, policy, state read.
        self.capable.addr.next = self.res_src_ip.val();
        self.capable.dom0_prefix.next = self.cap0_prefix.val();
        self.capable.dom0_len.next = self.cap0_len.val();
        self.capable.dom0_valid.next = self.cap0_valid.val();
        self.capable.dom1_prefix.next = self.cap1_prefix.val();
        self.capable.dom1_len.next = self.cap1_len.val();
        self.capable.dom1_valid.next = self.cap1_valid.val();
        self.pol0.addr.next = self.res_src_ip.val();
        self.pol0.dom0_prefix.next = self.pol0_prefix.val();
        self.pol0.dom0_len.next = self.pol0_len.val();
        self.pol0.dom0_valid.next = self.pol0_valid.val();
        self.pol0.dom1_prefix.next = 0.into();
        self.pol0.dom1_len.next = 0.into();
        self.pol0.dom1_valid.next = false;
        self.pol1.addr.next = self.res_src_ip.val();
        self.pol1.dom0_prefix.next = self.pol1_prefix.val();
        self.pol1.dom0_len.next = self.pol1_len.val();
        self.pol1.dom0_valid.next = self.pol1_valid.val();
        self.pol1.dom1_prefix.next = 0.into();
        self.pol1.dom1_len.next = 0.into();
        self.pol1.dom1_valid.next = false;
        self.rem0.addr.next = self.res_dst_ip.val();
        self.rem0.dom0_prefix.next = self.rem0_prefix.val();
        self.rem0.dom0_len.next = self.rem0_len.val();
        self.rem0.dom0_valid.next = self.rem0_live.val();
        self.rem0.dom1_prefix.next = 0.into();
        self.rem0.dom1_len.next = 0.into();
        self.rem0.dom1_valid.next = false;
        self.rem1.addr.next = self.res_dst_ip.val();
        self.rem1.dom0_prefix.next = self.rem1_prefix.val();
        self.rem1.dom0_len.next = self.rem1_len.val();
        self.rem1.dom0_valid.next = self.rem1_live.val();
        self.rem1.dom1_prefix.next = 0.into();
        self.rem1.dom1_len.next = 0.into();
        self.rem1.dom1_valid.next = false;
        self.advice.next = self.port_rate.val();
        if self.rem0.in_domain.val() & (self.rem0_mbps.val() < self.advice.val()) {
            self.advice.next = self.rem0_mbps.val();
        }
        if self.rem1.in_domain.val() & (self.rem1_mbps.val() < self.advice.val()) {
            self.advice.next = self.rem1_mbps.val();
        }
        if self.pol0.in_domain.val() & (self.pol0_mbps.val() < self.advice.val()) {
            self.advice.next = self.pol0_mbps.val();
        }
        if self.pol1.in_domain.val() & (self.pol1_mbps.val() < self.advice.val()) {
            self.advice.next = self.pol1_mbps.val();
        }
        self.idx.next = self.res_location.val().get_bits::<15>(0) & 0x3FFF;
        if self.res_location.val().get_bit(15) {
            self.idx.next = bits::<15>(0x4000) | (self.res_location.val().get_bits::<15>(0) & 0xF);
        }
        self.state.read_address.next = self.idx.val().get_bits::<14>(0);
        self.stash_state.read_address.next = self.idx.val().get_bits::<4>(0);
        self.b_stash.d.next = self.res_location.val().get_bit(15);
        self.b_valid.d.next = self.enable.val()
            & self.res_valid.val()
            & (self.capable.in_domain.val() | self.res_flagged.val());
        self.b_go.d.next = self.enable.val()
            & self.res_valid.val()
            & (self.capable.in_domain.val() | self.res_flagged.val())
            & self.res_sqp_valid.val();
        self.b_fresh.d.next = self.res_inserted.val();
        self.b_sqp_valid.d.next = self.res_sqp_valid.val();
        self.b_idx.d.next = self.idx.val();
        self.b_advice.d.next = self.advice.val().get_bits::<24>(0);
        self.b_now.d.next = self.now_us.val();
        self.win.next = self.now_us.val() - self.spacing.val();
        self.b_win.d.next = self.win.val();
        self.b_wrap.d.next = self.win.val() > self.now_us.val();
        self.b_nowin.d.next = !self.spacing.val().any();
        // The place stage B decides for next clock is the one it decides
        // for now (and may write).
        self.b_same.d.next = self.b_idx.q.val() == self.idx.val();
        // ipv6 (0), MAC (48..1), address (176..49), P_Key (192..177),
        // source QP (216..193), advice (240..217), DestQP (264..241).
        self.job_word.next = (bit_cast::<265, 48>(self.res_src_mac.val()) << 1)
            | (bit_cast::<265, 128>(self.res_src_ip.val()) << 49)
            | (bit_cast::<265, 16>(self.res_pkey.val()) << 177)
            | (bit_cast::<265, 24>(self.res_sqp.val()) << 193)
            | (bit_cast::<265, 24>(self.advice.val().get_bits::<24>(0)) << 217)
            | (bit_cast::<265, 24>(self.res_dqp.val()) << 241);
        if self.res_ipv6.val() {
            self.job_word.next = self.job_word.val() | bits::<265>(1);
        }
        self.b_job.d.next = self.job_word.val();

        // Stage B: decide. "New": no state or another advice; "spaced": no
        // state or the last message left at least `spacing` microseconds
        // ago, i.e. its microsecond `t` is outside the window `(b_win,
        // b_now]` (two compares side by side, not a subtraction then a
        // compare). Each state word is judged on its own and the place's
        // answer picked last, so the RAM's output goes through compares
        // only.
        self.m_seen.next = self.state.read_data.val();
        self.m_new.next = !self.m_seen.val().get_bit(0)
            | (self.m_seen.val().get_bits::<24>(1) != self.b_advice.q.val());
        self.m_after.next = self.m_seen.val().get_bits::<32>(25) > self.b_win.q.val();
        self.m_upto.next = self.m_seen.val().get_bits::<32>(25) <= self.b_now.q.val();
        self.m_inside.next = self.m_after.val() & self.m_upto.val();
        if self.b_wrap.q.val() {
            self.m_inside.next = self.m_after.val() | self.m_upto.val();
        }
        self.m_spaced.next =
            !self.m_seen.val().get_bit(0) | self.b_nowin.q.val() | !self.m_inside.val();
        self.s_seen.next = self.stash_state.read_data.val();
        self.s_new.next = !self.s_seen.val().get_bit(0)
            | (self.s_seen.val().get_bits::<24>(1) != self.b_advice.q.val());
        self.s_after.next = self.s_seen.val().get_bits::<32>(25) > self.b_win.q.val();
        self.s_upto.next = self.s_seen.val().get_bits::<32>(25) <= self.b_now.q.val();
        self.s_inside.next = self.s_after.val() & self.s_upto.val();
        if self.b_wrap.q.val() {
            self.s_inside.next = self.s_after.val() | self.s_upto.val();
        }
        self.s_spaced.next =
            !self.s_seen.val().get_bit(0) | self.b_nowin.q.val() | !self.s_inside.val();
        self.w_new.next = !self.w_data.q.val().get_bit(0)
            | (self.w_data.q.val().get_bits::<24>(1) != self.b_advice.q.val());
        self.w_after.next = self.w_data.q.val().get_bits::<32>(25) > self.b_win.q.val();
        self.w_upto.next = self.w_data.q.val().get_bits::<32>(25) <= self.b_now.q.val();
        self.w_inside.next = self.w_after.val() & self.w_upto.val();
        if self.b_wrap.q.val() {
            self.w_inside.next = self.w_after.val() | self.w_upto.val();
        }
        self.w_spaced.next =
            !self.w_data.q.val().get_bit(0) | self.b_nowin.q.val() | !self.w_inside.val();
        self.changed.next = self.m_new.val();
        self.spaced.next = self.m_spaced.val();
        if self.b_stash.q.val() {
            self.changed.next = self.s_new.val();
            self.spaced.next = self.s_spaced.val();
        }
        if self.w_valid.q.val() & self.b_same.q.val() {
            self.changed.next = self.w_new.val();
            self.spaced.next = self.w_spaced.val();
        }
        if self.b_fresh.q.val() {
            self.changed.next = true;
            self.spaced.next = true;
        }
        self.send.next = self.b_go.q.val() & self.changed.val() & self.spaced.val();
        self.push.next = self.send.val() & !self.ra_fifo.full.val();
        self.new_state.next = (bit_cast::<57, 32>(self.b_now.q.val()) << 25)
            | (bit_cast::<57, 24>(self.b_advice.q.val()) << 1)
            | bits::<57>(1);
        self.state.write_address.next = self.b_idx.q.val().get_bits::<14>(0);
        self.state.write_data.next = self.new_state.val();
        self.state.write_enable.next = self.push.val() & !self.b_stash.q.val();
        self.stash_state.write_address.next = self.b_idx.q.val().get_bits::<4>(0);
        self.stash_state.write_data.next = self.new_state.val();
        self.stash_state.write_enable.next = self.push.val() & self.b_stash.q.val();
        self.w_valid.d.next = self.push.val();
        self.w_data.d.next = self.new_state.val();
        self.ra_fifo.push.next = self.push.val();
        self.ra_fifo.push_data.next = self.b_job.q.val();
        if self.push.val() {
            self.sent_count.d.next = self.sent_count.q.val() + 1;
        }
        if self.send.val() & self.ra_fifo.full.val() {
            self.drop_count.d.next = self.drop_count.q.val() + 1;
        }
        if self.b_valid.q.val() & !self.b_sqp_valid.q.val() {
            self.no_sqp_count.d.next = self.no_sqp_count.q.val() + 1;
        }
        if self.b_go.q.val() & self.changed.val() & !self.spaced.val() {
            self.held_count.d.next = self.held_count.q.val() + 1;
        }
        if self.reset.val() {
            self.b_valid.d.next = false;
            self.b_go.d.next = false;
            self.w_valid.d.next = false;
        }
        if self.reset.val() | self.clear_counters.val() {
            self.sent_count.d.next = 0.into();
            self.held_count.d.next = 0.into();
            self.no_sqp_count.d.next = 0.into();
            self.drop_count.d.next = 0.into();
        }
        self.sent.next = self.sent_count.q.val();
        self.held.next = self.held_count.q.val();
        self.no_sqp.next = self.no_sqp_count.q.val();
        self.queue_drops.next = self.drop_count.q.val();

        // The queue toward the builder.
        self.head.next = self.ra_fifo.pop_data.val();
        self.job_valid.next = !self.ra_fifo.empty.val();
        self.ra_fifo.pop.next = self.job_ready.val() & !self.ra_fifo.empty.val();
        self.job_ipv6.next = self.head.val().get_bit(0);
        self.job_dst_mac.next = self.head.val().get_bits::<48>(1);
        self.job_dst_ip.next = self.head.val().get_bits::<128>(49);
        self.job_pkey.next = self.head.val().get_bits::<16>(177);
        self.job_dqp.next = self.head.val().get_bits::<24>(193);
        // Body lanes: rate bytes 0..3 (byte 0 zero), DestQP 4..7 (byte 4 zero).
        self.job_body.next = (bit_cast::<96, 8>(self.head.val().get_bits::<8>(233)) << 8)
            | (bit_cast::<96, 8>(self.head.val().get_bits::<8>(225)) << 16)
            | (bit_cast::<96, 8>(self.head.val().get_bits::<8>(217)) << 24)
            | (bit_cast::<96, 8>(self.head.val().get_bits::<8>(257)) << 40)
            | (bit_cast::<96, 8>(self.head.val().get_bits::<8>(249)) << 48)
            | (bit_cast::<96, 8>(self.head.val().get_bits::<8>(241)) << 56);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_rate_advisor_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<RateAdvisor>("rate_advisor");
    }

    /// One clock's input: a data frame's answer at `location`, or idle.
    #[derive(Clone, Copy)]
    struct Frame {
        location: Option<u16>,
        rate: u32,
    }

    /// Runs the frames (one per clock) and returns `sent` after the last.
    fn sent_after(frames: Vec<Frame>) -> u32 {
        sent_and_held(frames, 0, 100, 1).0
    }

    /// Runs the frames (one per clock, the microsecond `first_us + j /
    /// per_us` in clock `j`) with `RA_FLOW_SPACING_US` = `spacing`; `sent`
    /// and `held` after the last.
    fn sent_and_held(frames: Vec<Frame>, spacing: u32, first_us: u32, per_us: usize) -> (u32, u32) {
        let n = frames.len();
        let mut uut = RateAdvisor::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RateAdvisor>| x.clock.next = !x.clock.val());
        let result = std::sync::Arc::new(std::sync::Mutex::new((0u32, 0u32)));
        let out = result.clone();
        sim.add_testbench(move |mut sim: Sim<RateAdvisor>| {
            let mut x = sim.init()?;
            x.enable.next = true;
            x.res_flagged.next = true;
            x.res_sqp_valid.next = true;
            x.res_sqp.next = 0x12.into();
            x.res_src_ip.next = bits::<128>(0xffff_0a00_0001);
            x.job_ready.next = true;
            x.spacing.next = (spacing as u64).into();
            for (j, f) in frames.iter().enumerate() {
                x.now_us.next = (first_us.wrapping_add((j / per_us) as u32) as u64).into();
                x.port_rate.next = (f.rate as u64).into();
                x.res_valid.next = f.location.is_some();
                x.res_location.next = (f.location.unwrap_or(0) as u64).into();
                wait_clock_cycle!(sim, clock, x);
            }
            x.res_valid.next = false;
            for _ in 0..4 {
                wait_clock_cycle!(sim, clock, x);
            }
            *out.lock().unwrap() = (x.sent.val().index() as u32, x.held.val().index() as u32);
            sim.done(x)
        });
        sim.run(Box::new(uut), 10 * (n as u64 + 8)).unwrap();
        let counts = *result.lock().unwrap();
        counts
    }

    fn at(location: u16, rate: u32) -> Frame {
        Frame {
            location: Some(location),
            rate,
        }
    }

    const IDLE: Frame = Frame {
        location: None,
        rate: 0,
    };

    /// RA-03: a place's state (the advice sent) is kept per place: the 16
    /// stash places and the 16K main places are distinct, stash places are
    /// distinct from each other, and the state written by one frame is seen
    /// by the same flow's frame in the next clock.
    #[test]
    fn ra_03_state_per_place_main_and_stash() {
        // Each first visit of a place sends (no state); a second visit with
        // the same advice does not; a new advice sends again.
        let frames = vec![
            at(0x8003, 1000), // stash 3: sends
            IDLE,
            IDLE,
            at(0x8003, 1000), // same advice: nothing
            IDLE,
            at(0x0003, 1000), // main place 3, not stash 3: sends
            IDLE,
            at(0x8004, 1000), // stash 4: sends
            IDLE,
            at(0x3fff, 1000), // the last main place: sends
            IDLE,
            at(0x0003, 1000), // nothing
            at(0x8004, 1000), // nothing
            at(0x8003, 2000), // new advice: sends
            at(0x8003, 2000), // the state just written: nothing
            at(0x3fff, 1000), // nothing
        ];
        assert_eq!(sent_after(frames), 5);
    }

    /// RA-03: a flow's next message waits until `spacing` microseconds
    /// after its last one, to the microsecond, also across the wrap of the
    /// 32-bit microsecond count and for a spacing longer than the time
    /// since reset; the state comes from the write of the clock before
    /// (frames in consecutive clocks) or from the RAM (frames further
    /// apart), main and stash places alike.
    #[test]
    fn ra_03_spacing_is_exact_across_the_microsecond_wrap() {
        // Every frame brings a new advice, so only the spacing holds.
        let every = |step: usize, place: u16| -> Vec<Frame> {
            (0..13)
                .map(|j| {
                    if j % step == 0 {
                        at(place, 1000 + j as u32)
                    } else {
                        IDLE
                    }
                })
                .collect()
        };
        for place in [0x0005, 0x8005] {
            for first_us in [100, u32::MAX - 2] {
                // Clocks 0, 4, 8, 12 send; the nine between are held.
                assert_eq!(
                    sent_and_held(every(1, place), 4, first_us, 1),
                    (4, 9),
                    "every clock, place {place:#x}, from {first_us}"
                );
                // 0, 6, 12 send; 3 and 9 (3 us after a message) are held.
                assert_eq!(
                    sent_and_held(every(3, place), 4, first_us, 1),
                    (3, 2),
                    "every third clock, place {place:#x}, from {first_us}"
                );
                // 0, 3, 6, 9, 12: three microseconds apart, spacing 3.
                assert_eq!(
                    sent_and_held(every(3, place), 3, first_us, 1),
                    (5, 0),
                    "spacing 3, place {place:#x}, from {first_us}"
                );
            }
            // A spacing longer than the time since reset (the window
            // reaches back past zero): the first message only.
            assert_eq!(sent_and_held(every(1, place), 1000, 100, 1), (1, 12));
            // Two clocks per microsecond, spacing 1: a frame in the
            // microsecond of the last message is held, the next goes.
            for first_us in [100, u32::MAX - 2] {
                assert_eq!(
                    sent_and_held(every(1, place), 1, first_us, 2),
                    (7, 6),
                    "two clocks per microsecond, place {place:#x}, from {first_us}"
                );
                // The same from the RAM: a frame every other clock, four
                // clocks per microsecond.
                assert_eq!(
                    sent_and_held(every(2, place), 1, first_us, 4),
                    (4, 3),
                    "four clocks per microsecond, place {place:#x}, from {first_us}"
                );
            }
            // No spacing: every frame's new advice goes.
            assert_eq!(sent_and_held(every(1, place), 0, 100, 1), (13, 0));
        }
    }
}
