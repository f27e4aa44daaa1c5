//! `CmLearner`: pairs RDMA CM REQs and REPs seen on the two inputs and
//! writes both directions' source QPs into the flow table (LH-01, CM
//! snooping).
//!
//! ```text
//!  dc  (CmEventSink) --+--------------------->+---------------------------+
//!                      |                      | pending REQs: 8 slots     |   pair FIFO (4)
//!  wan (CmEventSink) --+-> [held one clock] ->| {port, A, B, comm ID, QPN}|-> {A, B, QPN_A, QPN_B}
//!                         when dc has one too | lowest free slot, else    |     |  forward, then reverse
//!                                             | least recently used (age  |     v
//!                                             | matrix)                   |   learn_* (valid/ready)
//!  enable, clear_counters, reset ------------>+---------------------------+-> bindings, req_evictions,
//!                                                                            rep_unmatched, queue_drops
//! ```
//! The rules are `cngw_model::learning::Learner`'s (docs/decisions.md,
//! "Source-QP learning"), with the same table size:
//! - a REQ from A to B that matches a pending entry {A, B, comm ID} (a CM
//!   retransmission) refreshes that entry in place; otherwise it takes the
//!   lowest free slot, else replaces the least recently used entry
//!   (inserted or refreshed longest ago) and counts an eviction;
//! - a REP from B to A pairs with the entry {A, B, its Remote Communication
//!   ID} that arrived on the other input: the entry is freed, two bindings
//!   are counted and the pairing {A, B, QPN_A, QPN_B} enters the FIFO;
//!   without such an entry the REP is counted as unmatched.
//!
//! One event is handled per clock, compared with all 8 slots at once (a
//! small CAM). When both inputs have one in the same clock, dc_rx's goes
//! first and wan_rx's is held one clock (events of one input are at least
//! six clocks apart, so the hold is always free). `enable` gates new
//! events; the table and the FIFO keep their contents while it is low.
//!
//! Each pairing leaves as two flow-table `LearnSqp` requests: {A, B,
//! QPN_B} -> QPN_A, then {B, A, QPN_A} -> QPN_B. The gateway grants
//! `learn_ready` on clocks without a data-path request. A pairing that finds
//! the FIFO full is lost and counted in `queue_drops` (it is still counted
//! in `bindings`, as the model counts it).
//!
//! Latency: an event handled in clock t (its input clock, or t + 1 when
//! held) puts its pairing on `learn_*` in clock t + 1.
//!
//! Resources (block alone, Yosys 0.70 `synth_xilinx -family xcup`): 4.2K
//! flip-flops (pending table 8 x 314 bits, age matrix 64, held event 314,
//! FIFO 4 x 304, counters 4 x 32), 5.2K LUTs, mostly the eight 288-bit
//! {A, B, comm ID} comparators and the 304-bit muxes of the event
//! selection, the FIFO read and the forward/reverse swap.

use super::cm_event::CmEventSink;
use rust_hdl::prelude::*;

/// Pending-REQ slots (the model's `DEFAULT_PENDING_REQS`).
pub const PENDING_SLOTS: usize = 8;
/// Pairings the FIFO holds.
pub const PAIR_FIFO_DEPTH: usize = 4;
/// A pairing: A [127:0], B [255:128], QPN_A [279:256], QPN_B [303:280].
pub const PAIR_BITS: usize = 304;

#[derive(LogicBlock)]
pub struct CmLearner {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    /// Events from dc_rx and wan_rx.
    pub dc: CmEventSink,
    pub wan: CmEventSink,
    /// Flow-table `LearnSqp` requests: key {sip, dip, dqp}, value sqp.
    pub learn_valid: Signal<Out, Bit>,
    pub learn_ready: Signal<In, Bit>,
    pub learn_sip: Signal<Out, Bits<128>>,
    pub learn_dip: Signal<Out, Bits<128>>,
    pub learn_dqp: Signal<Out, Bits<24>>,
    pub learn_sqp: Signal<Out, Bits<24>>,
    /// Counters (32 bits, wrapping; zeroed by `clear_counters`).
    pub bindings: Signal<Out, Bits<32>>,
    pub req_evictions: Signal<Out, Bits<32>>,
    pub rep_unmatched: Signal<Out, Bits<32>>,
    pub queue_drops: Signal<Out, Bits<32>>,
    slot_number: Vec<Constant<Bits<3>>>,
    slot_bit: Vec<Constant<Bits<8>>>,
    // The wan_rx event held while dc_rx's is handled.
    held_valid: DFF<Bit>,
    held_is_rep: DFF<Bit>,
    held_src_ip: DFF<Bits<128>>,
    held_dst_ip: DFF<Bits<128>>,
    held_comm_id: DFF<Bits<32>>,
    held_qpn: DFF<Bits<24>>,
    // Pending REQs.
    pend_valid: Vec<DFF<Bit>>,
    /// The input the REQ arrived on: 0 dc_rx, 1 wan_rx.
    pend_port: Vec<DFF<Bit>>,
    pend_requester: Vec<DFF<Bits<128>>>,
    pend_responder: Vec<DFF<Bits<128>>>,
    pend_comm_id: Vec<DFF<Bits<32>>>,
    pend_qpn: Vec<DFF<Bits<24>>>,
    /// Age matrix: bit j of `older[i]` set = slot i was last used before slot j.
    older: Vec<DFF<Bits<8>>>,
    // Pairing FIFO.
    fifo: Vec<DFF<Bits<PAIR_BITS>>>,
    fifo_wptr: DFF<Bits<2>>,
    fifo_rptr: DFF<Bits<2>>,
    fifo_count: DFF<Bits<3>>,
    /// The head pairing's forward request has been taken.
    reverse_next: DFF<Bit>,
    // Counters.
    bindings_count: DFF<Bits<32>>,
    evictions_count: DFF<Bits<32>>,
    unmatched_count: DFF<Bits<32>>,
    drops_count: DFF<Bits<32>>,
    // Combinational.
    dc_in: Signal<Local, Bit>,
    wan_in: Signal<Local, Bit>,
    ev_valid: Signal<Local, Bit>,
    ev_port: Signal<Local, Bit>,
    ev_is_rep: Signal<Local, Bit>,
    ev_src_ip: Signal<Local, Bits<128>>,
    ev_dst_ip: Signal<Local, Bits<128>>,
    ev_comm_id: Signal<Local, Bits<32>>,
    ev_qpn: Signal<Local, Bits<24>>,
    requester: Signal<Local, Bits<128>>,
    responder: Signal<Local, Bits<128>>,
    hit: Signal<Local, Bit>,
    hit_slot: Signal<Local, Bits<3>>,
    hit_qpn: Signal<Local, Bits<24>>,
    free: Signal<Local, Bit>,
    free_slot: Signal<Local, Bits<3>>,
    lru_slot: Signal<Local, Bits<3>>,
    req_write: Signal<Local, Bit>,
    req_slot: Signal<Local, Bits<3>>,
    rep_pair: Signal<Local, Bit>,
    used: Signal<Local, Bits<8>>,
    pair_in: Signal<Local, Bits<PAIR_BITS>>,
    pair_out: Signal<Local, Bits<PAIR_BITS>>,
    take: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
}

impl Logic for CmLearner {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            held_valid,
            held_is_rep,
            held_src_ip,
            held_dst_ip,
            held_comm_id,
            held_qpn,
            fifo_wptr,
            fifo_rptr,
            fifo_count,
            reverse_next,
            bindings_count,
            evictions_count,
            unmatched_count,
            drops_count
        );
        for i in 0..PENDING_SLOTS {
            self.pend_valid[i].clock.next = self.clock.val();
            self.pend_port[i].clock.next = self.clock.val();
            self.pend_requester[i].clock.next = self.clock.val();
            self.pend_responder[i].clock.next = self.clock.val();
            self.pend_comm_id[i].clock.next = self.clock.val();
            self.pend_qpn[i].clock.next = self.clock.val();
            self.older[i].clock.next = self.clock.val();
            self.pend_valid[i].d.next = self.pend_valid[i].q.val();
            self.pend_port[i].d.next = self.pend_port[i].q.val();
            self.pend_requester[i].d.next = self.pend_requester[i].q.val();
            self.pend_responder[i].d.next = self.pend_responder[i].q.val();
            self.pend_comm_id[i].d.next = self.pend_comm_id[i].q.val();
            self.pend_qpn[i].d.next = self.pend_qpn[i].q.val();
            self.older[i].d.next = self.older[i].q.val();
        }
        for i in 0..PAIR_FIFO_DEPTH {
            self.fifo[i].clock.next = self.clock.val();
            self.fifo[i].d.next = self.fifo[i].q.val();
        }

        // The event of this clock: dc_rx first, then a held wan_rx event.
        self.dc_in.next = self.enable.val() & self.dc.valid.val();
        self.wan_in.next = self.enable.val() & self.wan.valid.val();
        self.held_valid.d.next = false;
        if self.dc_in.val() & self.wan_in.val() {
            self.held_valid.d.next = true;
            self.held_is_rep.d.next = self.wan.is_rep.val();
            self.held_src_ip.d.next = self.wan.src_ip.val();
            self.held_dst_ip.d.next = self.wan.dst_ip.val();
            self.held_comm_id.d.next = self.wan.comm_id.val();
            self.held_qpn.d.next = self.wan.qpn.val();
        }
        self.ev_valid.next = true;
        self.ev_port.next = true;
        self.ev_is_rep.next = self.wan.is_rep.val();
        self.ev_src_ip.next = self.wan.src_ip.val();
        self.ev_dst_ip.next = self.wan.dst_ip.val();
        self.ev_comm_id.next = self.wan.comm_id.val();
        self.ev_qpn.next = self.wan.qpn.val();
        if self.dc_in.val() {
            self.ev_port.next = false;
            self.ev_is_rep.next = self.dc.is_rep.val();
            self.ev_src_ip.next = self.dc.src_ip.val();
            self.ev_dst_ip.next = self.dc.dst_ip.val();
            self.ev_comm_id.next = self.dc.comm_id.val();
            self.ev_qpn.next = self.dc.qpn.val();
        } else if self.held_valid.q.val() {
            self.ev_is_rep.next = self.held_is_rep.q.val();
            self.ev_src_ip.next = self.held_src_ip.q.val();
            self.ev_dst_ip.next = self.held_dst_ip.q.val();
            self.ev_comm_id.next = self.held_comm_id.q.val();
            self.ev_qpn.next = self.held_qpn.q.val();
        } else if !self.wan_in.val() {
            self.ev_valid.next = false;
        }

        // A REQ goes from the requester A to the responder B, a REP back.
        self.requester.next = self.ev_src_ip.val();
        self.responder.next = self.ev_dst_ip.val();
        if self.ev_is_rep.val() {
            self.requester.next = self.ev_dst_ip.val();
            self.responder.next = self.ev_src_ip.val();
        }

        // Compare with every slot: the matching entry, the lowest free slot
        // and the least recently used slot.
        self.hit.next = false;
        self.hit_slot.next = 0.into();
        self.hit_qpn.next = 0.into();
        self.free.next = false;
        self.free_slot.next = 0.into();
        self.lru_slot.next = 0.into();
        for i in 0..PENDING_SLOTS {
            if !self.hit.val()
                & self.pend_valid[i].q.val()
                & (self.pend_requester[i].q.val() == self.requester.val())
                & (self.pend_responder[i].q.val() == self.responder.val())
                & (self.pend_comm_id[i].q.val() == self.ev_comm_id.val())
                & (!self.ev_is_rep.val() | (self.pend_port[i].q.val() != self.ev_port.val()))
            {
                self.hit.next = true;
                self.hit_slot.next = self.slot_number[i].val();
                self.hit_qpn.next = self.pend_qpn[i].q.val();
            }
            if !self.free.val() & !self.pend_valid[i].q.val() {
                self.free.next = true;
                self.free_slot.next = self.slot_number[i].val();
            }
            if (self.older[i].q.val() | self.slot_bit[i].val()) == 0xFF {
                self.lru_slot.next = self.slot_number[i].val();
            }
        }

        // REQ: refresh, take a free slot or replace the oldest.
        self.req_write.next = self.ev_valid.val() & !self.ev_is_rep.val();
        self.req_slot.next = self.lru_slot.val();
        if self.free.val() {
            self.req_slot.next = self.free_slot.val();
        }
        if self.hit.val() {
            self.req_slot.next = self.hit_slot.val();
        }
        if self.req_write.val() & !self.hit.val() & !self.free.val() {
            self.evictions_count.d.next = self.evictions_count.q.val() + 1;
        }
        // REP: pair, or count.
        self.rep_pair.next = self.ev_valid.val() & self.ev_is_rep.val() & self.hit.val();
        if self.ev_valid.val() & self.ev_is_rep.val() & !self.hit.val() {
            self.unmatched_count.d.next = self.unmatched_count.q.val() + 1;
        }
        if self.rep_pair.val() {
            self.bindings_count.d.next = self.bindings_count.q.val() + 2;
        }
        self.used.next = 0.into();
        for i in 0..PENDING_SLOTS {
            if self.req_write.val() & (self.req_slot.val().index() == i) {
                self.pend_valid[i].d.next = true;
                self.pend_port[i].d.next = self.ev_port.val();
                self.pend_requester[i].d.next = self.ev_src_ip.val();
                self.pend_responder[i].d.next = self.ev_dst_ip.val();
                self.pend_comm_id[i].d.next = self.ev_comm_id.val();
                self.pend_qpn[i].d.next = self.ev_qpn.val();
                self.used.next = self.slot_bit[i].val();
            }
            if self.rep_pair.val() & (self.hit_slot.val().index() == i) {
                self.pend_valid[i].d.next = false;
            }
        }
        // The slot written becomes the most recently used.
        for i in 0..PENDING_SLOTS {
            if self.used.val().get_bit(i) {
                self.older[i].d.next = 0.into();
            } else {
                self.older[i].d.next = self.older[i].q.val() | self.used.val();
            }
        }

        // Pairing FIFO; each pairing leaves as two requests.
        self.pair_in.next = bit_cast::<PAIR_BITS, 128>(self.requester.val())
            | (bit_cast::<PAIR_BITS, 128>(self.responder.val()) << 128)
            | (bit_cast::<PAIR_BITS, 24>(self.hit_qpn.val()) << 256)
            | (bit_cast::<PAIR_BITS, 24>(self.ev_qpn.val()) << 280);
        self.pair_out.next = 0.into();
        for i in 0..PAIR_FIFO_DEPTH {
            if self.fifo_rptr.q.val().index() == i {
                self.pair_out.next = self.fifo[i].q.val();
            }
        }
        self.learn_valid.next = self.fifo_count.q.val() != 0;
        if self.reverse_next.q.val() {
            self.learn_sip.next = self.pair_out.val().get_bits::<128>(128);
            self.learn_dip.next = self.pair_out.val().get_bits::<128>(0);
            self.learn_dqp.next = self.pair_out.val().get_bits::<24>(256);
            self.learn_sqp.next = self.pair_out.val().get_bits::<24>(280);
        } else {
            self.learn_sip.next = self.pair_out.val().get_bits::<128>(0);
            self.learn_dip.next = self.pair_out.val().get_bits::<128>(128);
            self.learn_dqp.next = self.pair_out.val().get_bits::<24>(280);
            self.learn_sqp.next = self.pair_out.val().get_bits::<24>(256);
        }
        self.take.next = self.learn_ready.val() & (self.fifo_count.q.val() != 0);
        self.pop.next = self.take.val() & self.reverse_next.q.val();
        if self.take.val() {
            self.reverse_next.d.next = !self.reverse_next.q.val();
        }
        self.push.next = self.rep_pair.val() & ((self.fifo_count.q.val() != 4) | self.pop.val());
        if self.rep_pair.val() & !self.push.val() {
            self.drops_count.d.next = self.drops_count.q.val() + 1;
        }
        for i in 0..PAIR_FIFO_DEPTH {
            if self.push.val() & (self.fifo_wptr.q.val().index() == i) {
                self.fifo[i].d.next = self.pair_in.val();
            }
        }
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

        self.bindings.next = self.bindings_count.q.val();
        self.req_evictions.next = self.evictions_count.q.val();
        self.rep_unmatched.next = self.unmatched_count.q.val();
        self.queue_drops.next = self.drops_count.q.val();
        if self.clear_counters.val() | self.reset.val() {
            self.bindings_count.d.next = 0.into();
            self.evictions_count.d.next = 0.into();
            self.unmatched_count.d.next = 0.into();
            self.drops_count.d.next = 0.into();
        }
        if self.reset.val() {
            self.held_valid.d.next = false;
            for i in 0..PENDING_SLOTS {
                self.pend_valid[i].d.next = false;
                self.older[i].d.next = 0.into();
            }
            self.fifo_wptr.d.next = 0.into();
            self.fifo_rptr.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
            self.reverse_next.d.next = false;
        }
    }
}

impl Default for CmLearner {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear_counters: Default::default(),
            dc: Default::default(),
            wan: Default::default(),
            learn_valid: Default::default(),
            learn_ready: Default::default(),
            learn_sip: Default::default(),
            learn_dip: Default::default(),
            learn_dqp: Default::default(),
            learn_sqp: Default::default(),
            bindings: Default::default(),
            req_evictions: Default::default(),
            rep_unmatched: Default::default(),
            queue_drops: Default::default(),
            slot_number: (0..PENDING_SLOTS as u64)
                .map(|i| Constant::new(i.to_bits()))
                .collect(),
            slot_bit: (0..PENDING_SLOTS as u64)
                .map(|i| Constant::new((1u64 << i).to_bits()))
                .collect(),
            held_valid: Default::default(),
            held_is_rep: Default::default(),
            held_src_ip: Default::default(),
            held_dst_ip: Default::default(),
            held_comm_id: Default::default(),
            held_qpn: Default::default(),
            pend_valid: (0..PENDING_SLOTS).map(|_| Default::default()).collect(),
            pend_port: (0..PENDING_SLOTS).map(|_| Default::default()).collect(),
            pend_requester: (0..PENDING_SLOTS).map(|_| Default::default()).collect(),
            pend_responder: (0..PENDING_SLOTS).map(|_| Default::default()).collect(),
            pend_comm_id: (0..PENDING_SLOTS).map(|_| Default::default()).collect(),
            pend_qpn: (0..PENDING_SLOTS).map(|_| Default::default()).collect(),
            older: (0..PENDING_SLOTS).map(|_| Default::default()).collect(),
            fifo: (0..PAIR_FIFO_DEPTH).map(|_| Default::default()).collect(),
            fifo_wptr: Default::default(),
            fifo_rptr: Default::default(),
            fifo_count: Default::default(),
            reverse_next: Default::default(),
            bindings_count: Default::default(),
            evictions_count: Default::default(),
            unmatched_count: Default::default(),
            drops_count: Default::default(),
            dc_in: Default::default(),
            wan_in: Default::default(),
            ev_valid: Default::default(),
            ev_port: Default::default(),
            ev_is_rep: Default::default(),
            ev_src_ip: Default::default(),
            ev_dst_ip: Default::default(),
            ev_comm_id: Default::default(),
            ev_qpn: Default::default(),
            requester: Default::default(),
            responder: Default::default(),
            hit: Default::default(),
            hit_slot: Default::default(),
            hit_qpn: Default::default(),
            free: Default::default(),
            free_slot: Default::default(),
            lru_slot: Default::default(),
            req_write: Default::default(),
            req_slot: Default::default(),
            rep_pair: Default::default(),
            used: Default::default(),
            pair_in: Default::default(),
            pair_out: Default::default(),
            take: Default::default(),
            pop: Default::default(),
            push: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::flow_entry::u128_to_bits;
    use std::sync::{Arc, Mutex};

    #[test]
    fn hw_01_cm_learner_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<CmLearner>("cm_learner");
    }

    /// A CM event: REP (else REQ), SIP, DIP, comm ID, QPN.
    #[derive(Clone, Copy, Debug)]
    struct Ev(bool, u128, u128, u32, u32);

    /// What the test drives in one clock.
    #[derive(Clone, Copy, Debug, Default)]
    struct Clock {
        dc: Option<Ev>,
        wan: Option<Ev>,
        /// `learn_ready` low.
        stall: bool,
        disable: bool,
    }

    /// A `LearnSqp` request: SIP, DIP, DQP -> SQP.
    type Request = (u128, u128, u32, u32);

    #[derive(Debug, Default, PartialEq, Eq)]
    struct Counters {
        bindings: u32,
        req_evictions: u32,
        rep_unmatched: u32,
        queue_drops: u32,
    }

    fn drive(sink: &mut CmEventSink, ev: Option<Ev>) {
        sink.valid.next = ev.is_some();
        let Ev(is_rep, src, dst, comm, qpn) = ev.unwrap_or(Ev(false, 0, 0, 0, 0));
        sink.is_rep.next = is_rep;
        sink.src_ip.next = u128_to_bits::<128>(src);
        sink.dst_ip.next = u128_to_bits::<128>(dst);
        sink.comm_id.next = (comm as u64).to_bits();
        sink.qpn.next = (qpn as u64).to_bits();
    }

    /// Runs the clocks (then 20 idle ones); the requests taken, in order,
    /// and the counters at the end.
    fn run(clocks: Vec<Clock>) -> (Vec<Request>, Counters) {
        let out = Arc::new(Mutex::new((Vec::new(), Counters::default())));
        let seen = out.clone();
        let mut uut = CmLearner::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<CmLearner>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<CmLearner>| {
            let mut x = sim.init()?;
            x.reset.next = true;
            x.clear_counters.next = false;
            x.learn_ready.next = false;
            drive(&mut x.dc, None);
            drive(&mut x.wan, None);
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            let mut taken = Vec::new();
            let idle = std::iter::repeat_n(Clock::default(), 20);
            for c in clocks.iter().copied().chain(idle) {
                x.enable.next = !c.disable;
                x.learn_ready.next = !c.stall;
                drive(&mut x.dc, c.dc);
                drive(&mut x.wan, c.wan);
                if x.learn_valid.val() && !c.stall {
                    taken.push((
                        x.learn_sip.val().to_u128(),
                        x.learn_dip.val().to_u128(),
                        x.learn_dqp.val().to_u32(),
                        x.learn_sqp.val().to_u32(),
                    ));
                }
                wait_clock_cycle!(sim, clock, x);
            }
            *seen.lock().unwrap() = (
                taken,
                Counters {
                    bindings: x.bindings.val().to_u32(),
                    req_evictions: x.req_evictions.val().to_u32(),
                    rep_unmatched: x.rep_unmatched.val().to_u32(),
                    queue_drops: x.queue_drops.val().to_u32(),
                },
            );
            sim.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
        let mut r = out.lock().unwrap();
        std::mem::take(&mut *r)
    }

    const A: u128 = 0xA;
    const B: u128 = 0xB;

    fn host(i: u32) -> u128 {
        0x1000 + i as u128
    }

    /// Events six clocks apart, as a CM frame takes at least six beats.
    fn spaced(events: Vec<(bool, Ev)>) -> Vec<Clock> {
        events
            .into_iter()
            .flat_map(|(wan, ev)| {
                let mut c = vec![Clock::default(); 6];
                if wan {
                    c[0].wan = Some(ev);
                } else {
                    c[0].dc = Some(ev);
                }
                c
            })
            .collect()
    }

    /// LH-01: a REQ from dc_rx and its REP from wan_rx teach both
    /// directions, forward first; a REP on the REQ's own input, with another
    /// comm ID or from another host is unmatched; a retransmitted REP
    /// (its REQ consumed) too.
    #[test]
    fn lh_01_cm_learner_pairs_req_and_rep_on_the_other_input() {
        let (dc, wan) = (false, true);
        let (taken, counters) = run(spaced(vec![
            (dc, Ev(false, A, B, 0x100, 0x11)),
            (dc, Ev(true, B, A, 0x100, 0x21)), // same input as the REQ
            (wan, Ev(true, B, A, 0x999, 0x21)), // other comm ID
            (wan, Ev(true, host(3), A, 0x100, 0x21)),
            (wan, Ev(true, B, A, 0x100, 0x21)),
            (wan, Ev(true, B, A, 0x100, 0x21)), // retransmission
        ]));
        assert_eq!(taken, vec![(A, B, 0x21, 0x11), (B, A, 0x11, 0x21)]);
        assert_eq!(
            counters,
            Counters {
                bindings: 2,
                rep_unmatched: 4,
                ..Default::default()
            }
        );
    }

    /// LH-01: the model's overflow case (`model/tests/learning.rs`): eight
    /// REQs fill the table, a retransmission refreshes the first, so the
    /// ninth replaces the second; its REP is unmatched, the others pair; a
    /// freed slot takes the next REQ without an eviction.
    #[test]
    fn lh_01_cm_learner_replaces_the_least_recently_used_req() {
        let mut events = Vec::new();
        for i in 0..8 {
            events.push((false, Ev(false, host(i), B, i, 0x100 + i)));
            if i == 3 {
                events.push((false, Ev(false, host(0), B, 0, 0x100)));
            }
        }
        events.push((false, Ev(false, host(8), B, 8, 0x108)));
        events.push((true, Ev(true, B, host(1), 1, 0x201)));
        for i in [0, 2, 3, 4, 5, 6, 7, 8] {
            events.push((true, Ev(true, B, host(i), i, 0x200 + i)));
        }
        events.push((false, Ev(false, host(9), B, 9, 0x109)));
        events.push((true, Ev(true, B, host(9), 9, 0x209)));
        let (taken, counters) = run(spaced(events));
        let mut want = Vec::new();
        for i in [0, 2, 3, 4, 5, 6, 7, 8, 9] {
            want.push((host(i), B, 0x200 + i, 0x100 + i));
            want.push((B, host(i), 0x100 + i, 0x200 + i));
        }
        assert_eq!(taken, want);
        assert_eq!(
            counters,
            Counters {
                bindings: 18,
                req_evictions: 1,
                rep_unmatched: 1,
                queue_drops: 0,
            }
        );
    }

    /// LH-01: events of both inputs in one clock are handled dc_rx first:
    /// a wan_rx REQ with the same {A, B, comm ID} then refreshes the entry
    /// dc_rx's made (taking its input and QPN), so a REP on dc_rx pairs
    /// with it. With `learn_ready` low the FIFO keeps four pairings and
    /// drops (counts) the fifth; they leave in order once it rises. With
    /// `enable` low events change nothing.
    #[test]
    fn lh_01_cm_learner_orders_inputs_and_bounds_its_queue() {
        let mut clocks = vec![Clock::default(); 6];
        clocks[0].dc = Some(Ev(false, A, B, 1, 0x11));
        clocks[0].wan = Some(Ev(false, A, B, 1, 0x12));
        clocks.extend(spaced(vec![(false, Ev(true, B, A, 1, 0x21))]));
        let (taken, counters) = run(clocks);
        assert_eq!(taken, vec![(A, B, 0x21, 0x12), (B, A, 0x12, 0x21)]);
        assert_eq!(counters.bindings, 2);

        let mut events = Vec::new();
        for i in 0..5 {
            events.push((false, Ev(false, host(i), B, i, 0x100 + i)));
            events.push((true, Ev(true, B, host(i), i, 0x200 + i)));
        }
        let mut clocks = spaced(events);
        for c in &mut clocks {
            c.stall = true;
        }
        clocks.extend(
            spaced(vec![(false, Ev(false, host(9), B, 9, 0x109))])
                .into_iter()
                .map(|mut c| {
                    c.disable = true;
                    c
                }),
        );
        clocks.extend(spaced(vec![(true, Ev(true, B, host(9), 9, 0x209))]));
        let (taken, counters) = run(clocks);
        let mut want = Vec::new();
        for i in 0..4 {
            want.push((host(i), B, 0x200 + i, 0x100 + i));
            want.push((B, host(i), 0x100 + i, 0x200 + i));
        }
        assert_eq!(taken, want);
        assert_eq!(
            counters,
            Counters {
                bindings: 10,
                req_evictions: 0,
                rep_unmatched: 1,
                queue_drops: 1,
            }
        );
    }
}
