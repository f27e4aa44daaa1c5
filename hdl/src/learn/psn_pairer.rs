//! `PsnPairer`: learns a data-centre sender's source QP by pairing the
//! PSNs of its requests with the PSNs of the acknowledgements coming back
//! (LH-01, PSN pairing).
//!
//! ```text
//!  req_* (dc_rx request of a flow the     +-----------------------------+
//!  look-up found without a source QP) --->| [reg] trackers: 16 slots    |   binding FIFO (4)
//!                                         | {A, B, X, newest PSN, span} |-> {A, B, X} -> Y
//!  ack_* (wan_rx acknowledgement from  -->| [reg] lowest free slot, else|     |
//!  B to A toward Y, PSN q)                | least recently used (age    |     v
//!                                         | matrix)                     |   learn_* (valid/ready)
//!  enable, window, clear_counters, reset >+-----------------------------+-> bindings, ambiguous,
//!                                                                           evictions, queue_drops
//! ```
//! The rules are `cngw_model::learning::PsnPairing`'s (docs/decisions.md,
//! "PSN pairing in the gateway"), with the same table size:
//! - a request of flow {A, B, X} with PSN p that matches a tracker moves
//!   its window: inside it (a retransmission) nothing changes; less than
//!   `window` ahead of the newest PSN, the window slides (span grows up to
//!   `window`); otherwise it restarts at p with span 1. A request of an
//!   untracked flow takes the lowest free slot, else replaces the least
//!   recently used tracker (counted). Arithmetic is modulo 2^24.
//! - an acknowledgement from B to A toward QP Y with PSN q is compared with
//!   every tracker of a flow A -> B whose window holds q: exactly one match
//!   is a binding {A, B, X} -> Y (counted; the tracker is freed; the binding
//!   enters the FIFO), two or more are counted as ambiguous.
//!
//! Both inputs are registered: an event presented in clock t is handled in
//! clock t + 1, and an acknowledgement and a request handled in the same
//! clock are both decided on the trackers as they stood before it; the
//! acknowledgement's free is applied first, then the request's write.
//!
//! Each binding leaves as one flow-table `LearnSqp` request with `fill`
//! (the flow keeps a source QP it already has). A binding that finds the
//! FIFO full is lost and counted in `queue_drops` (still counted in
//! `bindings`). A binding handled in clock t is on `learn_*` from t + 1.
//! `enable` gates new events; the trackers and the FIFO keep their contents
//! while it is low.

use rust_hdl::prelude::*;

/// Tracker slots (the model's `DEFAULT_PSN_TRACKERS`).
pub const PSN_TRACKERS: usize = 16;
/// Bindings the FIFO holds.
pub const BINDING_FIFO_DEPTH: usize = 4;
/// A binding: A [127:0], B [255:128], X (the flow's DQP) [279:256],
/// Y (its source QP) [303:280].
pub const BINDING_BITS: usize = 304;

#[derive(LogicBlock)]
pub struct PsnPairer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    /// PSNs a tracker remembers (0 acts as 1).
    pub window: Signal<In, Bits<24>>,
    /// A request to track: flow {sip, dip, dqp}, its PSN.
    pub req_valid: Signal<In, Bit>,
    pub req_sip: Signal<In, Bits<128>>,
    pub req_dip: Signal<In, Bits<128>>,
    pub req_dqp: Signal<In, Bits<24>>,
    pub req_psn: Signal<In, Bits<24>>,
    /// An acknowledgement: to the requester (its destination address) from
    /// the responder (its source), toward QP `ack_dqp`, with PSN `ack_psn`.
    pub ack_valid: Signal<In, Bit>,
    pub ack_requester: Signal<In, Bits<128>>,
    pub ack_responder: Signal<In, Bits<128>>,
    pub ack_dqp: Signal<In, Bits<24>>,
    pub ack_psn: Signal<In, Bits<24>>,
    /// Flow-table `LearnSqp` (fill) requests: key {sip, dip, dqp}, value sqp.
    pub learn_valid: Signal<Out, Bit>,
    pub learn_ready: Signal<In, Bit>,
    pub learn_sip: Signal<Out, Bits<128>>,
    pub learn_dip: Signal<Out, Bits<128>>,
    pub learn_dqp: Signal<Out, Bits<24>>,
    pub learn_sqp: Signal<Out, Bits<24>>,
    /// Counters (32 bits, wrapping; zeroed by `clear_counters`).
    pub bindings: Signal<Out, Bits<32>>,
    pub ambiguous: Signal<Out, Bits<32>>,
    pub evictions: Signal<Out, Bits<32>>,
    pub queue_drops: Signal<Out, Bits<32>>,
    slot_number: Vec<Constant<Bits<4>>>,
    slot_bit: Vec<Constant<Bits<16>>>,
    // Registered events.
    r_req_valid: DFF<Bit>,
    r_req_sip: DFF<Bits<128>>,
    r_req_dip: DFF<Bits<128>>,
    r_req_dqp: DFF<Bits<24>>,
    r_req_psn: DFF<Bits<24>>,
    r_ack_valid: DFF<Bit>,
    r_ack_requester: DFF<Bits<128>>,
    r_ack_responder: DFF<Bits<128>>,
    r_ack_dqp: DFF<Bits<24>>,
    r_ack_psn: DFF<Bits<24>>,
    r_window: DFF<Bits<24>>,
    // Trackers.
    t_valid: Vec<DFF<Bit>>,
    t_sip: Vec<DFF<Bits<128>>>,
    t_dip: Vec<DFF<Bits<128>>>,
    t_dqp: Vec<DFF<Bits<24>>>,
    t_newest: Vec<DFF<Bits<24>>>,
    t_span: Vec<DFF<Bits<24>>>,
    /// Age matrix: bit j of `older[i]` set = slot i was last written before slot j.
    older: Vec<DFF<Bits<16>>>,
    // Binding FIFO.
    fifo: Vec<DFF<Bits<BINDING_BITS>>>,
    fifo_wptr: DFF<Bits<2>>,
    fifo_rptr: DFF<Bits<2>>,
    fifo_count: DFF<Bits<3>>,
    // Counters.
    bindings_count: DFF<Bits<32>>,
    ambiguous_count: DFF<Bits<32>>,
    evictions_count: DFF<Bits<32>>,
    drops_count: DFF<Bits<32>>,
    // Combinational: the acknowledgement.
    ack_hit: Signal<Local, Bit>,
    ack_any: Signal<Local, Bit>,
    ack_multi: Signal<Local, Bit>,
    ack_slot: Signal<Local, Bits<4>>,
    ack_sip: Signal<Local, Bits<128>>,
    ack_dip: Signal<Local, Bits<128>>,
    ack_x: Signal<Local, Bits<24>>,
    ack_back: Signal<Local, Bits<24>>,
    pair: Signal<Local, Bit>,
    // Combinational: the request.
    hit: Signal<Local, Bit>,
    hit_slot: Signal<Local, Bits<4>>,
    hit_newest: Signal<Local, Bits<24>>,
    hit_span: Signal<Local, Bits<24>>,
    free: Signal<Local, Bit>,
    free_slot: Signal<Local, Bits<4>>,
    lru_slot: Signal<Local, Bits<4>>,
    req_slot: Signal<Local, Bits<4>>,
    back: Signal<Local, Bits<24>>,
    ahead: Signal<Local, Bits<24>>,
    grown: Signal<Local, Bits<25>>,
    limit: Signal<Local, Bits<25>>,
    new_newest: Signal<Local, Bits<24>>,
    new_span: Signal<Local, Bits<24>>,
    used: Signal<Local, Bits<16>>,
    binding_in: Signal<Local, Bits<BINDING_BITS>>,
    binding_out: Signal<Local, Bits<BINDING_BITS>>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
}

impl Logic for PsnPairer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_req_valid,
            r_req_sip,
            r_req_dip,
            r_req_dqp,
            r_req_psn,
            r_ack_valid,
            r_ack_requester,
            r_ack_responder,
            r_ack_dqp,
            r_ack_psn,
            r_window,
            fifo_wptr,
            fifo_rptr,
            fifo_count,
            bindings_count,
            ambiguous_count,
            evictions_count,
            drops_count
        );
        for i in 0..PSN_TRACKERS {
            self.t_valid[i].clock.next = self.clock.val();
            self.t_sip[i].clock.next = self.clock.val();
            self.t_dip[i].clock.next = self.clock.val();
            self.t_dqp[i].clock.next = self.clock.val();
            self.t_newest[i].clock.next = self.clock.val();
            self.t_span[i].clock.next = self.clock.val();
            self.older[i].clock.next = self.clock.val();
            self.t_valid[i].d.next = self.t_valid[i].q.val();
            self.t_sip[i].d.next = self.t_sip[i].q.val();
            self.t_dip[i].d.next = self.t_dip[i].q.val();
            self.t_dqp[i].d.next = self.t_dqp[i].q.val();
            self.t_newest[i].d.next = self.t_newest[i].q.val();
            self.t_span[i].d.next = self.t_span[i].q.val();
            self.older[i].d.next = self.older[i].q.val();
        }
        for i in 0..BINDING_FIFO_DEPTH {
            self.fifo[i].clock.next = self.clock.val();
            self.fifo[i].d.next = self.fifo[i].q.val();
        }

        // Register the events (gated by `enable`) and the window.
        self.r_req_valid.d.next = self.enable.val() & self.req_valid.val();
        self.r_ack_valid.d.next = self.enable.val() & self.ack_valid.val();
        self.r_window.d.next = self.window.val();
        if self.req_valid.val() {
            self.r_req_sip.d.next = self.req_sip.val();
            self.r_req_dip.d.next = self.req_dip.val();
            self.r_req_dqp.d.next = self.req_dqp.val();
            self.r_req_psn.d.next = self.req_psn.val();
        }
        if self.ack_valid.val() {
            self.r_ack_requester.d.next = self.ack_requester.val();
            self.r_ack_responder.d.next = self.ack_responder.val();
            self.r_ack_dqp.d.next = self.ack_dqp.val();
            self.r_ack_psn.d.next = self.ack_psn.val();
        }

        // The acknowledgement against every tracker of A -> B whose window
        // holds its PSN.
        self.ack_any.next = false;
        self.ack_multi.next = false;
        self.ack_slot.next = 0.into();
        self.ack_sip.next = 0.into();
        self.ack_dip.next = 0.into();
        self.ack_x.next = 0.into();
        for i in 0..PSN_TRACKERS {
            self.ack_back.next = self.t_newest[i].q.val() - self.r_ack_psn.q.val();
            self.ack_hit.next = self.t_valid[i].q.val()
                & (self.t_sip[i].q.val() == self.r_ack_requester.q.val())
                & (self.t_dip[i].q.val() == self.r_ack_responder.q.val())
                & (self.ack_back.val() < self.t_span[i].q.val());
            if self.ack_hit.val() & self.ack_any.val() {
                self.ack_multi.next = true;
            }
            if self.ack_hit.val() {
                self.ack_any.next = true;
                self.ack_slot.next = self.slot_number[i].val();
                self.ack_sip.next = self.t_sip[i].q.val();
                self.ack_dip.next = self.t_dip[i].q.val();
                self.ack_x.next = self.t_dqp[i].q.val();
            }
        }
        self.pair.next = self.r_ack_valid.q.val() & self.ack_any.val() & !self.ack_multi.val();
        if self.r_ack_valid.q.val() & self.ack_multi.val() {
            self.ambiguous_count.d.next = self.ambiguous_count.q.val() + 1;
        }
        if self.pair.val() {
            self.bindings_count.d.next = self.bindings_count.q.val() + 1;
        }

        // The request: its tracker, the lowest free slot, the least
        // recently used slot.
        self.hit.next = false;
        self.hit_slot.next = 0.into();
        self.hit_newest.next = 0.into();
        self.hit_span.next = 0.into();
        self.free.next = false;
        self.free_slot.next = 0.into();
        self.lru_slot.next = 0.into();
        for i in 0..PSN_TRACKERS {
            if !self.hit.val()
                & self.t_valid[i].q.val()
                & (self.t_sip[i].q.val() == self.r_req_sip.q.val())
                & (self.t_dip[i].q.val() == self.r_req_dip.q.val())
                & (self.t_dqp[i].q.val() == self.r_req_dqp.q.val())
            {
                self.hit.next = true;
                self.hit_slot.next = self.slot_number[i].val();
                self.hit_newest.next = self.t_newest[i].q.val();
                self.hit_span.next = self.t_span[i].q.val();
            }
            if !self.free.val() & !self.t_valid[i].q.val() {
                self.free.next = true;
                self.free_slot.next = self.slot_number[i].val();
            }
            if (self.older[i].q.val() | self.slot_bit[i].val()) == 0xFFFF {
                self.lru_slot.next = self.slot_number[i].val();
            }
        }
        self.req_slot.next = self.lru_slot.val();
        if self.free.val() {
            self.req_slot.next = self.free_slot.val();
        }
        if self.hit.val() {
            self.req_slot.next = self.hit_slot.val();
        }
        if self.r_req_valid.q.val() & !self.hit.val() & !self.free.val() {
            self.evictions_count.d.next = self.evictions_count.q.val() + 1;
        }
        // The window: kept (a retransmission), slid, or restarted.
        self.back.next = self.hit_newest.val() - self.r_req_psn.q.val();
        self.ahead.next = self.r_req_psn.q.val() - self.hit_newest.val();
        self.grown.next =
            bit_cast::<25, 24>(self.hit_span.val()) + bit_cast::<25, 24>(self.ahead.val());
        self.limit.next = bit_cast::<25, 24>(self.r_window.q.val());
        self.new_newest.next = self.r_req_psn.q.val();
        self.new_span.next = 1.into();
        if self.hit.val() {
            if self.back.val() < self.hit_span.val() {
                self.new_newest.next = self.hit_newest.val();
                self.new_span.next = self.hit_span.val();
            } else if self.ahead.val() < self.r_window.q.val() {
                self.new_span.next = self.grown.val().get_bits::<24>(0);
                if self.limit.val() < self.grown.val() {
                    self.new_span.next = self.r_window.q.val();
                }
            }
        }

        // Apply: the acknowledgement's free, then the request's write.
        self.used.next = 0.into();
        for i in 0..PSN_TRACKERS {
            if self.pair.val() & (self.ack_slot.val().index() == i) {
                self.t_valid[i].d.next = false;
            }
            if self.r_req_valid.q.val() & (self.req_slot.val().index() == i) {
                self.t_valid[i].d.next = true;
                self.t_sip[i].d.next = self.r_req_sip.q.val();
                self.t_dip[i].d.next = self.r_req_dip.q.val();
                self.t_dqp[i].d.next = self.r_req_dqp.q.val();
                self.t_newest[i].d.next = self.new_newest.val();
                self.t_span[i].d.next = self.new_span.val();
                self.used.next = self.slot_bit[i].val();
            }
        }
        // The slot written becomes the most recently used.
        for i in 0..PSN_TRACKERS {
            if self.used.val().get_bit(i) {
                self.older[i].d.next = 0.into();
            } else {
                self.older[i].d.next = self.older[i].q.val() | self.used.val();
            }
        }

        // Binding FIFO: one flow-table request per binding.
        self.binding_in.next = bit_cast::<BINDING_BITS, 128>(self.ack_sip.val())
            | (bit_cast::<BINDING_BITS, 128>(self.ack_dip.val()) << 128)
            | (bit_cast::<BINDING_BITS, 24>(self.ack_x.val()) << 256)
            | (bit_cast::<BINDING_BITS, 24>(self.r_ack_dqp.q.val()) << 280);
        self.binding_out.next = 0.into();
        for i in 0..BINDING_FIFO_DEPTH {
            if self.fifo_rptr.q.val().index() == i {
                self.binding_out.next = self.fifo[i].q.val();
            }
        }
        self.learn_valid.next = self.fifo_count.q.val() != 0;
        self.learn_sip.next = self.binding_out.val().get_bits::<128>(0);
        self.learn_dip.next = self.binding_out.val().get_bits::<128>(128);
        self.learn_dqp.next = self.binding_out.val().get_bits::<24>(256);
        self.learn_sqp.next = self.binding_out.val().get_bits::<24>(280);
        self.pop.next = self.learn_ready.val() & (self.fifo_count.q.val() != 0);
        self.push.next = self.pair.val() & ((self.fifo_count.q.val() != 4) | self.pop.val());
        if self.pair.val() & !self.push.val() {
            self.drops_count.d.next = self.drops_count.q.val() + 1;
        }
        for i in 0..BINDING_FIFO_DEPTH {
            if self.push.val() & (self.fifo_wptr.q.val().index() == i) {
                self.fifo[i].d.next = self.binding_in.val();
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
        self.ambiguous.next = self.ambiguous_count.q.val();
        self.evictions.next = self.evictions_count.q.val();
        self.queue_drops.next = self.drops_count.q.val();
        if self.clear_counters.val() | self.reset.val() {
            self.bindings_count.d.next = 0.into();
            self.ambiguous_count.d.next = 0.into();
            self.evictions_count.d.next = 0.into();
            self.drops_count.d.next = 0.into();
        }
        if self.reset.val() {
            self.r_req_valid.d.next = false;
            self.r_ack_valid.d.next = false;
            for i in 0..PSN_TRACKERS {
                self.t_valid[i].d.next = false;
                self.older[i].d.next = 0.into();
            }
            self.fifo_wptr.d.next = 0.into();
            self.fifo_rptr.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
        }
    }
}

impl Default for PsnPairer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear_counters: Default::default(),
            window: Default::default(),
            req_valid: Default::default(),
            req_sip: Default::default(),
            req_dip: Default::default(),
            req_dqp: Default::default(),
            req_psn: Default::default(),
            ack_valid: Default::default(),
            ack_requester: Default::default(),
            ack_responder: Default::default(),
            ack_dqp: Default::default(),
            ack_psn: Default::default(),
            learn_valid: Default::default(),
            learn_ready: Default::default(),
            learn_sip: Default::default(),
            learn_dip: Default::default(),
            learn_dqp: Default::default(),
            learn_sqp: Default::default(),
            bindings: Default::default(),
            ambiguous: Default::default(),
            evictions: Default::default(),
            queue_drops: Default::default(),
            slot_number: (0..PSN_TRACKERS as u64)
                .map(|i| Constant::new(i.to_bits()))
                .collect(),
            slot_bit: (0..PSN_TRACKERS as u64)
                .map(|i| Constant::new((1u64 << i).to_bits()))
                .collect(),
            r_req_valid: Default::default(),
            r_req_sip: Default::default(),
            r_req_dip: Default::default(),
            r_req_dqp: Default::default(),
            r_req_psn: Default::default(),
            r_ack_valid: Default::default(),
            r_ack_requester: Default::default(),
            r_ack_responder: Default::default(),
            r_ack_dqp: Default::default(),
            r_ack_psn: Default::default(),
            r_window: Default::default(),
            t_valid: (0..PSN_TRACKERS).map(|_| Default::default()).collect(),
            t_sip: (0..PSN_TRACKERS).map(|_| Default::default()).collect(),
            t_dip: (0..PSN_TRACKERS).map(|_| Default::default()).collect(),
            t_dqp: (0..PSN_TRACKERS).map(|_| Default::default()).collect(),
            t_newest: (0..PSN_TRACKERS).map(|_| Default::default()).collect(),
            t_span: (0..PSN_TRACKERS).map(|_| Default::default()).collect(),
            older: (0..PSN_TRACKERS).map(|_| Default::default()).collect(),
            fifo: (0..BINDING_FIFO_DEPTH)
                .map(|_| Default::default())
                .collect(),
            fifo_wptr: Default::default(),
            fifo_rptr: Default::default(),
            fifo_count: Default::default(),
            bindings_count: Default::default(),
            ambiguous_count: Default::default(),
            evictions_count: Default::default(),
            drops_count: Default::default(),
            ack_hit: Default::default(),
            ack_any: Default::default(),
            ack_multi: Default::default(),
            ack_slot: Default::default(),
            ack_sip: Default::default(),
            ack_dip: Default::default(),
            ack_x: Default::default(),
            ack_back: Default::default(),
            pair: Default::default(),
            hit: Default::default(),
            hit_slot: Default::default(),
            hit_newest: Default::default(),
            hit_span: Default::default(),
            free: Default::default(),
            free_slot: Default::default(),
            lru_slot: Default::default(),
            req_slot: Default::default(),
            back: Default::default(),
            ahead: Default::default(),
            grown: Default::default(),
            limit: Default::default(),
            new_newest: Default::default(),
            new_span: Default::default(),
            used: Default::default(),
            binding_in: Default::default(),
            binding_out: Default::default(),
            pop: Default::default(),
            push: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::flow_entry::u128_to_bits;
    use cngw_model::learning::{FlowKey, PsnAck, PsnPairing};
    use std::sync::{Arc, Mutex};

    #[test]
    fn hw_01_psn_pairer_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<PsnPairer>("psn_pairer");
    }

    /// What the test drives in one clock.
    #[derive(Clone, Copy, Debug, Default)]
    struct Clock {
        ack: Option<PsnAck>,
        request: Option<(FlowKey, u32)>,
        /// `learn_ready` low.
        stall: bool,
        window: u32,
    }

    /// A `LearnSqp` request: SIP, DIP, DQP -> SQP.
    type Request = (u128, u128, u32, u32);

    /// Runs the clocks (then 20 idle ones); the requests taken, in order,
    /// and the counters [bindings, ambiguous, evictions, queue drops].
    fn run(clocks: Vec<Clock>) -> (Vec<Request>, [u32; 4]) {
        let out = Arc::new(Mutex::new((Vec::new(), [0; 4])));
        let seen = out.clone();
        let mut uut = PsnPairer::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<PsnPairer>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<PsnPairer>| {
            let mut x = sim.init()?;
            x.reset.next = true;
            x.enable.next = true;
            x.clear_counters.next = false;
            x.learn_ready.next = false;
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            let mut taken = Vec::new();
            let last_window = clocks.last().map_or(1, |c| c.window);
            let idle = std::iter::repeat_n(
                Clock {
                    window: last_window,
                    ..Clock::default()
                },
                20,
            );
            for c in clocks.iter().copied().chain(idle) {
                x.window.next = (c.window as u64).to_bits();
                x.learn_ready.next = !c.stall;
                x.req_valid.next = c.request.is_some();
                let (key, psn) = c.request.unwrap_or_default();
                x.req_sip.next = u128_to_bits::<128>(key.sip);
                x.req_dip.next = u128_to_bits::<128>(key.dip);
                x.req_dqp.next = (key.dqp as u64).to_bits();
                x.req_psn.next = (psn as u64).to_bits();
                x.ack_valid.next = c.ack.is_some();
                let a = c.ack.unwrap_or(PsnAck {
                    requester: 0,
                    responder: 0,
                    dqp: 0,
                    psn: 0,
                });
                x.ack_requester.next = u128_to_bits::<128>(a.requester);
                x.ack_responder.next = u128_to_bits::<128>(a.responder);
                x.ack_dqp.next = (a.dqp as u64).to_bits();
                x.ack_psn.next = (a.psn as u64).to_bits();
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
                [
                    x.bindings.val().to_u32(),
                    x.ambiguous.val().to_u32(),
                    x.evictions.val().to_u32(),
                    x.queue_drops.val().to_u32(),
                ],
            );
            sim.done(x)
        });
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let mut r = out.lock().unwrap();
        std::mem::take(&mut *r)
    }

    /// The reference: one model step per clock, the window of the clock
    /// before (the pairer registers it with the events).
    fn expected(clocks: &[Clock]) -> (Vec<Request>, [u32; 4]) {
        let mut m = PsnPairing::new(PSN_TRACKERS, 0);
        let mut taken = Vec::new();
        let mut counters = [0u32; 4];
        for c in clocks {
            m.set_window(c.window);
            let step = m.step(c.ack, c.request);
            if let Some(b) = step.binding {
                taken.push((b.key.sip, b.key.dip, b.key.dqp, b.sqp));
                counters[0] += 1;
            }
            counters[1] += step.ambiguous as u32;
            counters[2] += step.evicted as u32;
        }
        (taken, counters)
    }

    /// A small xorshift generator (the test needs no crate).
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// LH-01: the pairer against the model's trackers on random requests
    /// and acknowledgements: 2 requesters and 2 responders (IPv4-mapped and
    /// IPv6 addresses differing in high bits; acknowledgements also from and
    /// to a third of each), 20 flows for 16 trackers (replacement), PSNs from a narrow range near the wrap so windows
    /// overlap (ambiguous acknowledgements) and slide, restart and wrap,
    /// windows from 0 to 12 changing now and then, an acknowledgement and a
    /// request in the same clock (the acknowledgement's free first, the
    /// request's write on the state before), and `learn_ready` low 30 % of
    /// the clocks.
    #[test]
    fn lh_01_psn_pairer_matches_the_model_on_random_events() {
        let hosts: [u128; 6] = [
            0xffff_0a00_0001,
            0xffff_0a00_0002,
            0xfd00_0000_0000_0000_0000_0000_0000_0001,
            0xffff_0a00_0009,
            0x7d00_0000_0000_0000_0000_0000_0000_0001,
            0xfd00_0000_0000_0000_0000_0000_0000_0009,
        ];
        for seed in [1u64, 2] {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
            let mut clocks = Vec::new();
            let mut window = 6;
            for _ in 0..6000 {
                if rng.below(200) == 0 {
                    window = rng.below(13) as u32;
                }
                let psn = |rng: &mut Rng| (0xff_fffa + rng.below(12) as u32) & 0xff_ffff;
                let request = (rng.below(100) < 30).then(|| {
                    let key = FlowKey {
                        sip: hosts[rng.below(2) as usize],
                        dip: hosts[3 + rng.below(2) as usize],
                        dqp: 0x100 + rng.below(5) as u32,
                    };
                    (key, psn(&mut rng))
                });
                let ack = (rng.below(100) < 15).then(|| PsnAck {
                    requester: hosts[rng.below(3) as usize],
                    responder: hosts[3 + rng.below(3) as usize],
                    dqp: 0x200 + rng.below(1 << 20) as u32,
                    psn: psn(&mut rng),
                });
                clocks.push(Clock {
                    ack,
                    request,
                    stall: rng.below(100) < 30,
                    window,
                });
            }
            let (want, want_counters) = expected(&clocks);
            let (got, got_counters) = run(clocks);
            eprintln!("seed {seed}: {} bindings, {want_counters:?}", want.len());
            assert!(want.len() > 50, "seed {seed}: {} bindings", want.len());
            assert!(want_counters[1] > 20, "seed {seed}: {want_counters:?}");
            assert!(want_counters[2] > 20, "seed {seed}: {want_counters:?}");
            assert_eq!(got_counters[3], 0, "seed {seed}: queue drops");
            assert_eq!(got, want, "seed {seed}");
            assert_eq!(got_counters[..3], want_counters[..3], "seed {seed}");
        }
    }

    /// LH-01: a full FIFO loses the binding and counts it (still counted
    /// as a binding); the four queued ones leave in order.
    #[test]
    fn lh_01_psn_pairer_full_queue_counts_drops() {
        let key = |i: u32| FlowKey {
            sip: 0xA,
            dip: 0xB,
            dqp: 0x100 + i,
        };
        let mut clocks = Vec::new();
        for i in 0..5u32 {
            clocks.push(Clock {
                request: Some((key(i), 1000 * i)),
                stall: true,
                window: 16,
                ..Clock::default()
            });
        }
        for i in 0..5u32 {
            clocks.push(Clock {
                ack: Some(PsnAck {
                    requester: 0xA,
                    responder: 0xB,
                    dqp: 0x300 + i,
                    psn: 1000 * i,
                }),
                stall: true,
                window: 16,
                ..Clock::default()
            });
        }
        clocks.push(Clock {
            stall: true,
            window: 16,
            ..Clock::default()
        });
        let (got, counters) = run(clocks);
        let want: Vec<Request> = (0..4u32)
            .map(|i| (0xA, 0xB, 0x100 + i, 0x300 + i))
            .collect();
        assert_eq!(got, want);
        assert_eq!(counters, [5, 0, 0, 1]);
    }
}
