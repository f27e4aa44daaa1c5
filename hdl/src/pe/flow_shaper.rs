//! `FlowShaper`: the ingress PE's action upon light notifications (PE-05,
//! draft-hu-rtgwg-pre-ecn-wan, "Ingress PE Action upon T1"): the flow a
//! light notification names is slowed slightly at the tunnel entrance, by
//! a per-flow token bucket whose rate each notification cuts and quiet time
//! restores, and it may be moved to an alternate path (e.g. an SRv6 policy)
//! while its rate is low.
//!
//! ```text
//!              +----------------+ fast (unshaped flows) +-------------+
//!  s.*    ---->| r: one beat,   |---------------------->| frame-level |---> m.*
//!  s_label --->| slot look-up   |    +--------------+   | merge,      |---> m_label
//!              | at first beat  |--->| slow lane:   |-->| round robin |---> m_alt
//!              +----------------+    | 256-beat RAM |   +-------------+
//!                                    | FIFO, head   |          ^ tokens >= 0
//!  note_valid, note_label --->+------+--------------+----------+----------+
//!  us_tick               ---->| 8 slots: label, rate, tokens, quiet time, |---> shaped_frames,
//!  enable, max_rate, ... ---->| alternate path, frames in the slow lane   |     notes_taken, ...
//!  probe_slot            ---->+-------------------------------------------+---> probe_*
//! ```
//!
//! **Slots.** Eight slots, each a flow (its 20-bit label, never 0) with a
//! rate in bytes per microsecond, a token count (signed: a deficit is
//! allowed), the microseconds since its last notification, an alternate
//! path flag and the number of its frames in the block. A light
//! notification (`note_valid`, one per clock at most; `note_label` 0, or
//! `enable` low, ignores it, uncounted) for a slot's label cuts its rate:
//! `rate -= rate >> cut_shift`, not below `min_rate` ("slightly
//! reducing"), and restarts its quiet time. A notification for another
//! label takes the lowest free slot with `rate = max_rate - (max_rate >>
//! cut_shift)` (not below `min_rate`), `burst` tokens and the primary path
//! (`notes_taken` counts both); with every slot busy it is counted
//! (`notes_dropped`) and ignored. Every `us_tick` a slot gains `rate`
//! tokens (capped at `burst`) and one microsecond of quiet time; when the
//! quiet time reaches `recover_us` (0 acts as 1) it restarts and the rate
//! rises by `recover_step`, capped at `max_rate`. A slot whose rate is at
//! least `max_rate` (or any slot while `enable` is low) is freed in the
//! first clock it has no frame in the block, no notification and no new
//! frame. In one clock a notification wins over the rate's recovery; the
//! slot's token count adds the refill and subtracts the beat leaving, then
//! is capped at `burst`.
//!
//! **Paths (hysteresis).** Every clock a slot's flag follows its rate of
//! the clock before: set when the rate is at most `alt_below`, cleared
//! when it is at least `alt_above` (`alt_above` > `alt_below`), else kept;
//! cleared while `alt_enable` is low or the slot is free. Each flag set
//! counts a reroute, each flag cleared a return. A frame's path (`m_alt`)
//! is its slot's flag in the clock its first beat is first offered on `m`,
//! held to its last beat; frames of the fast path have `m_alt` 0.
//!
//! **Frames.** A frame whose label has a slot (while `s.tvalid` and its
//! first beat are taken) goes to the slow lane with its slot and label;
//! any other (label 0, no slot, `enable` low after reset) takes the fast
//! path. A flow's frames keep going to the slow lane while its slot lives,
//! and the slot lives while any of its frames is in the block: frames of
//! one flow never overtake each other (all pass `r` in order). The slow
//! lane's head frame is released when it is in the lane whole (or the lane
//! is full) and its slot has tokens >= 0; each of its beats then subtracts
//! its bytes (popcount of `tkeep`) as it leaves. A slot's bytes in any
//! window are thus at most `rate` per microsecond plus `burst` plus one
//! frame. No frame is ever dropped: when the lane is full, a slow frame's
//! beat waits in `r` and the input waits behind it (backpressure on `s`,
//! fast frames included).
//!
//! **Merge.** The output takes whole frames from the fast path (`r`) and
//! the slow lane's released head: round robin, each side first in turn
//! when both have a frame waiting, so a fast frame waits at most for one
//! slow frame and the other way round. Once a frame's first beat is
//! offered the choice holds until its last beat leaves.
//!
//! **Latency, throughput.** A fast beat taken at clock t is offered on `m`
//! at t+1 (the register `r`); with the slow lane idle the fast path
//! carries one beat per clock back to back. A slow beat is pushed from `r`
//! at t+1; a slow frame's first beat is offered at the earliest two clocks
//! after its last beat was taken (three for a one-beat frame: the RAM's
//! write-to-read time), and once released the frame leaves one beat per
//! clock. `m.tvalid`, `m_label` and `m_alt` depend on
//! registers only; `s.tready` on registers and `m.tready` (the beat in `r`
//! leaves while it is taken). `reset` (synchronous) empties the block and
//! frees every slot.
//!
//! **Probe.** `probe_*` show the state of slot `probe_slot` (combinational
//! on registers), for tests and a future register window.
//!
//! **Timing (issue 7, HW-05).** The clocks above are the model's; the
//! logic inside a clock is arranged so that the late decisions only pick:
//! each slot computes its next token count for both outcomes of the merge
//! (the head's beat leaves or not; the cap of the first as a 7-bit compare
//! of `tokens + refill - burst` with the beat's bytes) and its cut rate
//! from its own registers, so the RAM's head, the merge, the label
//! compares and the lowest-free-slot choice (one-hot) drive selects, not
//! arithmetic; the read pointer's increment is a register; the reroute and
//! return events are summed by a balanced tree. `max_rate >> cut_shift` is
//! a selection of constant shifts, which keeps synthesis from sharing one
//! shifter between it and a slot's cut (the two are never used in the same
//! clock) and so putting the slot choice in front of both. `m.tvalid` and
//! the fast beat's leaving are written from the grants' terms, and a slot's
//! frame count takes `s.tready` last (the head's RAM read is the late input
//! of the merge, `m.tready` of the handshake).

use crate::stream::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

/// Slots (flows shaped at once).
pub const SHAPER_SLOTS: usize = 8;
/// Bits of a slow-lane entry: data 512, keep 64, last, user, slot 3,
/// label 20, bytes 7.
const LANE_BITS: usize = 608;

#[derive(LogicBlock)]
pub struct FlowShaper {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Frames in; `s_label` (the frame's flow label) with each first beat.
    pub s: AxisSink,
    pub s_label: Signal<In, Bits<20>>,
    /// Frames out, with their label and path, held through each frame.
    pub m: AxisSource,
    pub m_label: Signal<Out, Bits<20>>,
    /// 1: the frame takes the alternate path.
    pub m_alt: Signal<Out, Bit>,
    /// A light notification (Fast CNP level 1..3) for the flow `note_label`.
    pub note_valid: Signal<In, Bit>,
    pub note_label: Signal<In, Bits<20>>,
    /// One clock every microsecond.
    pub us_tick: Signal<In, Bit>,
    /// Configuration (see above); rates in bytes per microsecond.
    pub enable: Signal<In, Bit>,
    pub max_rate: Signal<In, Bits<16>>,
    pub min_rate: Signal<In, Bits<16>>,
    pub cut_shift: Signal<In, Bits<4>>,
    pub recover_us: Signal<In, Bits<16>>,
    pub recover_step: Signal<In, Bits<16>>,
    /// Bucket depth in bytes.
    pub burst: Signal<In, Bits<24>>,
    pub alt_enable: Signal<In, Bit>,
    pub alt_below: Signal<In, Bits<16>>,
    pub alt_above: Signal<In, Bits<16>>,
    pub clear_counters: Signal<In, Bit>,
    /// Frames that left through the slow lane.
    pub shaped_frames: Signal<Out, Bits<32>>,
    /// Notifications that cut a slot's rate or took a slot.
    pub notes_taken: Signal<Out, Bits<32>>,
    /// Notifications ignored because every slot was busy.
    pub notes_dropped: Signal<Out, Bits<32>>,
    /// Slots moved to the alternate path, and back.
    pub reroutes: Signal<Out, Bits<32>>,
    pub returns: Signal<Out, Bits<32>>,
    /// The slot shown on `probe_*`.
    pub probe_slot: Signal<In, Bits<3>>,
    pub probe_used: Signal<Out, Bit>,
    pub probe_label: Signal<Out, Bits<20>>,
    pub probe_rate: Signal<Out, Bits<16>>,
    /// Two's complement.
    pub probe_tokens: Signal<Out, Bits<26>>,
    pub probe_alt: Signal<Out, Bit>,
    pub probe_waiting: Signal<Out, Bits<9>>,
    /// The slow lane: a FIFO in one block RAM (the pointers of
    /// `crate::stream::RamFifo`, written out here so that `full` and
    /// `empty`, which decide the pop, are not outputs of the block the pop
    /// goes into: Verilator would see a loop).
    lane: RAM<Bits<LANE_BITS>, 8>,
    lane_wr: DFF<Bits<9>>,
    lane_wr_seen: DFF<Bits<9>>,
    lane_rd: DFF<Bits<9>>,
    /// `lane_rd + 1`, kept so that the pop only picks the read address.
    lane_rd_inc: DFF<Bits<9>>,
    lane_full: Signal<Local, Bit>,
    lane_empty: Signal<Local, Bit>,
    lane_rd_next: Signal<Local, Bits<9>>,
    lane_pop: Signal<Local, Bit>,
    slot_number: Vec<Constant<Bits<3>>>,
    // Slots. Rates are kept 26 bits wide (the width of the tokens they add
    // to; the high bits stay 0).
    sl_used: Vec<DFF<Bit>>,
    sl_label: Vec<DFF<Bits<20>>>,
    sl_rate: Vec<DFF<Bits<26>>>,
    sl_tokens: Vec<DFF<Bits<26>>>,
    sl_quiet: Vec<DFF<Bits<16>>>,
    sl_alt: Vec<DFF<Bit>>,
    sl_waiting: Vec<DFF<Bits<9>>>,
    // The input frame in progress.
    in_mid: DFF<Bit>,
    in_slow: DFF<Bit>,
    in_slot: DFF<Bits<3>>,
    in_label: DFF<Bits<20>>,
    // The register stage r.
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<512>>,
    r_keep: DFF<Bits<64>>,
    r_last: DFF<Bit>,
    r_user: DFF<Bit>,
    r_slow: DFF<Bit>,
    r_slot: DFF<Bits<3>>,
    r_label: DFF<Bits<20>>,
    r_bytes: DFF<Bits<7>>,
    // The output.
    /// A frame's first beat was offered; the choice holds to its last.
    out_busy: DFF<Bit>,
    /// The side of the frame in progress, or of the last one (1 = slow).
    out_slow: DFF<Bit>,
    out_alt: DFF<Bit>,
    /// Frames whose last beat is in the slow lane.
    lane_frames: DFF<Bits<9>>,
    cnt_shaped: DFF<Bits<32>>,
    cnt_taken: DFF<Bits<32>>,
    cnt_dropped: DFF<Bits<32>>,
    cnt_reroutes: DFF<Bits<32>>,
    cnt_returns: DFF<Bits<32>>,
    // Combinational.
    max_w: Signal<Local, Bits<26>>,
    min_w: Signal<Local, Bits<26>>,
    step_w: Signal<Local, Bits<26>>,
    burst_w: Signal<Local, Bits<26>>,
    below_w: Signal<Local, Bits<26>>,
    above_w: Signal<Local, Bits<26>>,
    first_in: Signal<Local, Bit>,
    hit_any: Signal<Local, Bit>,
    hit_slot: Signal<Local, Bits<3>>,
    cls_slow: Signal<Local, Bit>,
    cls_slot: Signal<Local, Bits<3>>,
    cls_label: Signal<Local, Bits<20>>,
    in_bytes: Signal<Local, Bits<7>>,
    take: Signal<Local, Bit>,
    classify: Signal<Local, Bit>,
    head: Signal<Local, Bits<LANE_BITS>>,
    head_slot: Signal<Local, Bits<3>>,
    head_label: Signal<Local, Bits<20>>,
    head_bytes: Signal<Local, Bits<7>>,
    head_bytes_w: Signal<Local, Bits<26>>,
    head_ok: Signal<Local, Bit>,
    head_alt: Signal<Local, Bit>,
    slow_req: Signal<Local, Bit>,
    fast_req: Signal<Local, Bit>,
    grant_slow: Signal<Local, Bit>,
    grant_fast: Signal<Local, Bit>,
    alt_now: Signal<Local, Bit>,
    send: Signal<Local, Bit>,
    slow_out: Signal<Local, Bit>,
    slow_end: Signal<Local, Bit>,
    r_leave: Signal<Local, Bit>,
    fast_send: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    lane_word: Signal<Local, Bits<LANE_BITS>>,
    note_ok: Signal<Local, Bit>,
    note_hit: Signal<Local, Bit>,
    note_free: Signal<Local, Bit>,
    all_used: Signal<Local, Bit>,
    new_shift: Signal<Local, Bits<26>>,
    new_rate: Signal<Local, Bits<26>>,
    head_is: Vec<Signal<Local, Bit>>,
    /// The slot holds the label of the notification, of the first beat.
    note_is: Vec<Signal<Local, Bit>>,
    frame_is: Vec<Signal<Local, Bit>>,
    /// A first beat of the slot's label is offered (taken if `s.tready`).
    cls_is: Vec<Signal<Local, Bit>>,
    /// The slot is the lowest free one and the notification takes it.
    new_is: Vec<Signal<Local, Bit>>,
    /// The slot's rate if a notification cut it in this clock.
    cut_rate: Vec<Signal<Local, Bits<26>>>,
    tok_add: Vec<Signal<Local, Bits<26>>>,
    tok_base: Vec<Signal<Local, Bits<26>>>,
    tok_over: Vec<Signal<Local, Bits<26>>>,
    tok_over_hi: Vec<Signal<Local, Bit>>,
    tok_over_lo: Vec<Signal<Local, Bit>>,
    tok_keep: Vec<Signal<Local, Bits<26>>>,
    tok_less: Vec<Signal<Local, Bits<26>>>,
    up_rate: Vec<Signal<Local, Bits<26>>>,
    alt_next: Vec<Signal<Local, Bit>>,
    /// Per slot, 1 if its flag is set (a reroute) or cleared (a return)
    /// in this clock; summed by a balanced tree of adders.
    ev_reroute: Vec<Signal<Local, Bits<4>>>,
    ev_return: Vec<Signal<Local, Bits<4>>>,
    pair_reroutes: Vec<Signal<Local, Bits<4>>>,
    pair_returns: Vec<Signal<Local, Bits<4>>>,
    n_reroutes: Signal<Local, Bits<4>>,
    n_returns: Signal<Local, Bits<4>>,
}

impl Default for FlowShaper {
    fn default() -> Self {
        fn vec<T: Default>() -> Vec<T> {
            (0..SHAPER_SLOTS).map(|_| Default::default()).collect()
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            s_label: Default::default(),
            m: Default::default(),
            m_label: Default::default(),
            m_alt: Default::default(),
            note_valid: Default::default(),
            note_label: Default::default(),
            us_tick: Default::default(),
            enable: Default::default(),
            max_rate: Default::default(),
            min_rate: Default::default(),
            cut_shift: Default::default(),
            recover_us: Default::default(),
            recover_step: Default::default(),
            burst: Default::default(),
            alt_enable: Default::default(),
            alt_below: Default::default(),
            alt_above: Default::default(),
            clear_counters: Default::default(),
            shaped_frames: Default::default(),
            notes_taken: Default::default(),
            notes_dropped: Default::default(),
            reroutes: Default::default(),
            returns: Default::default(),
            probe_slot: Default::default(),
            probe_used: Default::default(),
            probe_label: Default::default(),
            probe_rate: Default::default(),
            probe_tokens: Default::default(),
            probe_alt: Default::default(),
            probe_waiting: Default::default(),
            lane: Default::default(),
            lane_wr: Default::default(),
            lane_wr_seen: Default::default(),
            lane_rd: Default::default(),
            lane_rd_inc: Default::default(),
            lane_full: Default::default(),
            lane_empty: Default::default(),
            lane_rd_next: Default::default(),
            lane_pop: Default::default(),
            slot_number: (0..SHAPER_SLOTS as u64)
                .map(|i| Constant::new(i.to_bits()))
                .collect(),
            sl_used: vec(),
            sl_label: vec(),
            sl_rate: vec(),
            sl_tokens: vec(),
            sl_quiet: vec(),
            sl_alt: vec(),
            sl_waiting: vec(),
            in_mid: Default::default(),
            in_slow: Default::default(),
            in_slot: Default::default(),
            in_label: Default::default(),
            r_valid: Default::default(),
            r_data: Default::default(),
            r_keep: Default::default(),
            r_last: Default::default(),
            r_user: Default::default(),
            r_slow: Default::default(),
            r_slot: Default::default(),
            r_label: Default::default(),
            r_bytes: Default::default(),
            out_busy: Default::default(),
            out_slow: Default::default(),
            out_alt: Default::default(),
            lane_frames: Default::default(),
            cnt_shaped: Default::default(),
            cnt_taken: Default::default(),
            cnt_dropped: Default::default(),
            cnt_reroutes: Default::default(),
            cnt_returns: Default::default(),
            max_w: Default::default(),
            min_w: Default::default(),
            step_w: Default::default(),
            burst_w: Default::default(),
            below_w: Default::default(),
            above_w: Default::default(),
            first_in: Default::default(),
            hit_any: Default::default(),
            hit_slot: Default::default(),
            cls_slow: Default::default(),
            cls_slot: Default::default(),
            cls_label: Default::default(),
            in_bytes: Default::default(),
            take: Default::default(),
            classify: Default::default(),
            head: Default::default(),
            head_slot: Default::default(),
            head_label: Default::default(),
            head_bytes: Default::default(),
            head_bytes_w: Default::default(),
            head_ok: Default::default(),
            head_alt: Default::default(),
            slow_req: Default::default(),
            fast_req: Default::default(),
            grant_slow: Default::default(),
            grant_fast: Default::default(),
            alt_now: Default::default(),
            send: Default::default(),
            slow_out: Default::default(),
            slow_end: Default::default(),
            r_leave: Default::default(),
            fast_send: Default::default(),
            push: Default::default(),
            lane_word: Default::default(),
            note_ok: Default::default(),
            note_hit: Default::default(),
            note_free: Default::default(),
            all_used: Default::default(),
            new_shift: Default::default(),
            new_rate: Default::default(),
            head_is: vec(),
            note_is: vec(),
            frame_is: vec(),
            cls_is: vec(),
            new_is: vec(),
            cut_rate: vec(),
            tok_add: vec(),
            tok_base: vec(),
            tok_over: vec(),
            tok_over_hi: vec(),
            tok_over_lo: vec(),
            tok_keep: vec(),
            tok_less: vec(),
            up_rate: vec(),
            alt_next: vec(),
            ev_reroute: vec(),
            ev_return: vec(),
            pair_reroutes: (0..4).map(|_| Default::default()).collect(),
            pair_returns: (0..4).map(|_| Default::default()).collect(),
            n_reroutes: Default::default(),
            n_returns: Default::default(),
        }
    }
}

impl Logic for FlowShaper {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_mid,
            in_slow,
            in_slot,
            in_label,
            r_valid,
            r_data,
            r_keep,
            r_last,
            r_user,
            r_slow,
            r_slot,
            r_label,
            r_bytes,
            lane_wr,
            lane_wr_seen,
            lane_rd,
            lane_rd_inc,
            out_busy,
            out_slow,
            out_alt,
            lane_frames,
            cnt_shaped,
            cnt_taken,
            cnt_dropped,
            cnt_reroutes,
            cnt_returns
        );
        for i in 0..SHAPER_SLOTS {
            self.sl_used[i].clock.next = self.clock.val();
            self.sl_label[i].clock.next = self.clock.val();
            self.sl_rate[i].clock.next = self.clock.val();
            self.sl_tokens[i].clock.next = self.clock.val();
            self.sl_quiet[i].clock.next = self.clock.val();
            self.sl_alt[i].clock.next = self.clock.val();
            self.sl_waiting[i].clock.next = self.clock.val();
            self.sl_used[i].d.next = self.sl_used[i].q.val();
            self.sl_label[i].d.next = self.sl_label[i].q.val();
            self.sl_rate[i].d.next = self.sl_rate[i].q.val();
            self.sl_tokens[i].d.next = self.sl_tokens[i].q.val();
            self.sl_quiet[i].d.next = self.sl_quiet[i].q.val();
            self.sl_alt[i].d.next = self.sl_alt[i].q.val();
            self.sl_waiting[i].d.next = self.sl_waiting[i].q.val();
        }
        self.lane.read_clock.next = self.clock.val();
        self.lane.write_clock.next = self.clock.val();
        // An entry is readable two clocks after its push (as RamFifo).
        self.lane_full.next = (self.lane_wr.q.val().get_bits::<8>(0)
            == self.lane_rd.q.val().get_bits::<8>(0))
            & (self.lane_wr.q.val().get_bit(8) != self.lane_rd.q.val().get_bit(8));
        self.lane_empty.next = self.lane_rd.q.val() == self.lane_wr_seen.q.val();
        self.lane_wr_seen.d.next = self.lane_wr.q.val();
        self.max_w.next = bit_cast::<26, 16>(self.max_rate.val());
        self.min_w.next = bit_cast::<26, 16>(self.min_rate.val());
        self.step_w.next = bit_cast::<26, 16>(self.recover_step.val());
        self.burst_w.next = bit_cast::<26, 24>(self.burst.val());
        self.below_w.next = bit_cast::<26, 16>(self.alt_below.val());
        self.above_w.next = bit_cast::<26, 16>(self.alt_above.val());

        // The slow lane's head (a first beat unless a slow frame is leaving).
        self.head.next = self.lane.read_data.val();
        self.head_slot.next = self.head.val().get_bits::<3>(578);
        self.head_label.next = self.head.val().get_bits::<20>(581);
        self.head_bytes.next = self.head.val().get_bits::<7>(601);
        self.head_bytes_w.next = bit_cast::<26, 7>(self.head_bytes.val());
        self.head_ok.next = false;
        self.head_alt.next = false;
        for i in 0..SHAPER_SLOTS {
            if self.head_slot.val().index() == i {
                self.head_ok.next = !self.sl_tokens[i].q.val().get_bit(25);
                self.head_alt.next = self.sl_alt[i].q.val();
            }
        }
        self.slow_req.next = !self.lane_empty.val()
            & ((self.lane_frames.q.val() != 0) | self.lane_full.val())
            & self.head_ok.val();
        self.fast_req.next = self.r_valid.q.val() & !self.r_slow.q.val();

        // The merge: whole frames, round robin.
        self.grant_slow.next =
            self.slow_req.val() & (!self.out_slow.q.val() | !self.fast_req.val());
        self.grant_fast.next = self.fast_req.val() & !self.grant_slow.val();
        if self.out_busy.q.val() {
            self.grant_slow.next = self.out_slow.q.val();
            self.grant_fast.next = !self.out_slow.q.val();
        }
        self.m.tdata.next = self.r_data.q.val();
        self.m.tkeep.next = self.r_keep.q.val();
        self.m.tlast.next = self.r_last.q.val();
        self.m.tuser.next = self.r_user.q.val();
        // `m.tvalid` as the grants make it, written out: a slow grant
        // implies `slow_req` (which implies a head), a fast one `fast_req`.
        self.m.tvalid.next = self.slow_req.val() | self.fast_req.val();
        if self.out_busy.q.val() {
            self.m.tvalid.next = self.fast_req.val();
            if self.out_slow.q.val() {
                self.m.tvalid.next = !self.lane_empty.val();
            }
        }
        self.m_label.next = self.r_label.q.val();
        self.alt_now.next = false;
        if self.grant_slow.val() {
            self.m.tdata.next = self.head.val().get_bits::<512>(0);
            self.m.tkeep.next = self.head.val().get_bits::<64>(512);
            self.m.tlast.next = self.head.val().get_bit(576);
            self.m.tuser.next = self.head.val().get_bit(577);
            self.m_label.next = self.head_label.val();
            self.alt_now.next = self.head_alt.val();
        }
        self.m_alt.next = self.alt_now.val();
        if self.out_busy.q.val() {
            self.m_alt.next = self.out_alt.q.val();
        }
        self.send.next = self.m.tvalid.val() & self.m.tready.val();
        self.slow_out.next = self.grant_slow.val() & self.send.val();
        self.slow_end.next = self.slow_out.val() & self.head.val().get_bit(576);
        self.lane_pop.next = self.slow_out.val();
        self.lane_rd_next.next = self.lane_rd.q.val();
        self.lane_rd_inc.d.next = self.lane_rd_inc.q.val();
        if self.lane_pop.val() {
            self.lane_rd_next.next = self.lane_rd_inc.q.val();
            self.lane_rd_inc.d.next = self.lane_rd_inc.q.val() + 1;
        }
        self.lane_rd.d.next = self.lane_rd_next.val();
        self.lane.read_address.next = self.lane_rd_next.val().get_bits::<8>(0);
        if self.out_busy.q.val() {
            if self.send.val() & self.m.tlast.val() {
                self.out_busy.d.next = false;
            }
        } else if self.m.tvalid.val() {
            self.out_slow.d.next = self.grant_slow.val();
            self.out_alt.d.next = self.alt_now.val();
            self.out_busy.d.next = !(self.send.val() & self.m.tlast.val());
        }

        // The input: r leaves to the lane or to m; a frame's slot is looked
        // up with its first beat.
        self.push.next = self.r_valid.q.val() & self.r_slow.q.val() & !self.lane_full.val();
        self.r_leave.next = self.push.val() | (self.grant_fast.val() & self.send.val());
        // The same as `!r_valid | r_leave`, with the fast beat's leaving
        // written from the grants' terms (fewer levels after the head).
        self.fast_send.next = self.m.tready.val() & self.fast_req.val() & !self.out_slow.q.val();
        if !self.out_busy.q.val() {
            self.fast_send.next = self.m.tready.val()
                & self.fast_req.val()
                & (self.out_slow.q.val() | !self.slow_req.val());
        }
        self.s.tready.next = !self.r_valid.q.val() | self.push.val() | self.fast_send.val();
        self.take.next = self.s.tvalid.val() & self.s.tready.val();
        self.first_in.next = !self.in_mid.q.val();
        self.hit_any.next = false;
        self.hit_slot.next = 0.into();
        for i in 0..SHAPER_SLOTS {
            self.frame_is[i].next =
                self.sl_used[i].q.val() & (self.sl_label[i].q.val() == self.s_label.val());
            if self.frame_is[i].val() {
                self.hit_any.next = true;
                self.hit_slot.next = self.slot_number[i].val();
            }
        }
        self.cls_slow.next = self.in_slow.q.val();
        self.cls_slot.next = self.in_slot.q.val();
        self.cls_label.next = self.in_label.q.val();
        if self.first_in.val() {
            self.cls_slow.next = self.hit_any.val();
            self.cls_slot.next = self.hit_slot.val();
            self.cls_label.next = self.s_label.val();
        }
        self.classify.next = self.take.val() & self.first_in.val() & self.hit_any.val();
        self.in_bytes.next = 0.into();
        for i in 0..64 {
            if self.s.tkeep.val().get_bit(i) {
                self.in_bytes.next = self.in_bytes.val() + 1;
            }
        }
        self.lane_word.next = bit_cast::<LANE_BITS, 512>(self.r_data.q.val())
            | (bit_cast::<LANE_BITS, 64>(self.r_keep.q.val()) << 512)
            | (bit_cast::<LANE_BITS, 3>(self.r_slot.q.val()) << 578)
            | (bit_cast::<LANE_BITS, 20>(self.r_label.q.val()) << 581)
            | (bit_cast::<LANE_BITS, 7>(self.r_bytes.q.val()) << 601);
        if self.r_last.q.val() {
            self.lane_word.next = self.lane_word.val() | (bits::<LANE_BITS>(1) << 576);
        }
        if self.r_user.q.val() {
            self.lane_word.next = self.lane_word.val() | (bits::<LANE_BITS>(1) << 577);
        }
        self.lane.write_address.next = self.lane_wr.q.val().get_bits::<8>(0);
        self.lane.write_data.next = self.lane_word.val();
        self.lane.write_enable.next = self.push.val();
        if self.push.val() {
            self.lane_wr.d.next = self.lane_wr.q.val() + 1;
        }
        if self.r_leave.val() {
            self.r_valid.d.next = false;
        }
        if self.take.val() {
            self.r_valid.d.next = true;
            self.r_data.d.next = self.s.tdata.val();
            self.r_keep.d.next = self.s.tkeep.val();
            self.r_last.d.next = self.s.tlast.val();
            self.r_user.d.next = self.s.tuser.val();
            self.r_slow.d.next = self.cls_slow.val();
            self.r_slot.d.next = self.cls_slot.val();
            self.r_label.d.next = self.cls_label.val();
            self.r_bytes.d.next = self.in_bytes.val();
            self.in_mid.d.next = !self.s.tlast.val();
            self.in_slow.d.next = self.cls_slow.val();
            self.in_slot.d.next = self.cls_slot.val();
            self.in_label.d.next = self.cls_label.val();
        }
        self.lane_frames.d.next = self.lane_frames.q.val();
        if self.push.val() & self.r_last.q.val() & !self.slow_end.val() {
            self.lane_frames.d.next = self.lane_frames.q.val() + 1;
        }
        if !(self.push.val() & self.r_last.q.val()) & self.slow_end.val() {
            self.lane_frames.d.next = self.lane_frames.q.val() - 1;
        }

        // Notifications: the slot of the label, else the lowest free one.
        self.note_ok.next =
            self.note_valid.val() & self.enable.val() & (self.note_label.val() != 0);
        // Used slots hold distinct labels (a label takes a slot only when
        // none has it), so at most one `note_is` is set; each slot computes
        // its own cut rate from registers, and the label compare only
        // decides which slot takes it.
        self.note_hit.next = false;
        for i in 0..SHAPER_SLOTS {
            self.note_is[i].next =
                self.sl_used[i].q.val() & (self.sl_label[i].q.val() == self.note_label.val());
            if self.note_is[i].val() {
                self.note_hit.next = true;
            }
            self.cut_rate[i].next =
                self.sl_rate[i].q.val() - (self.sl_rate[i].q.val() >> self.cut_shift.val());
            if self.cut_rate[i].val() < self.min_w.val() {
                self.cut_rate[i].next = self.min_w.val();
            }
        }
        self.all_used.next = true;
        for i in 0..SHAPER_SLOTS {
            self.new_is[i].next = self.note_ok.val()
                & !self.note_hit.val()
                & self.all_used.val()
                & !self.sl_used[i].q.val();
            self.all_used.next = self.all_used.val() & self.sl_used[i].q.val();
        }
        self.note_free.next = !self.all_used.val();
        // `max_rate >> cut_shift` by a selection of constant shifts: a
        // shifter here would be merged by synthesis with a slot's (never
        // used in the same clock), which puts the slot choice before both.
        self.new_shift.next = self.max_w.val();
        for k in 1..16u64 {
            if self.cut_shift.val() == k {
                self.new_shift.next = self.max_w.val() >> k;
            }
        }
        self.new_rate.next = self.max_w.val() - self.new_shift.val();
        if self.new_rate.val() < self.min_w.val() {
            self.new_rate.next = self.min_w.val();
        }

        // Every slot.
        for i in 0..SHAPER_SLOTS {
            // Tokens: refill, the beat leaving, the cap. Both outcomes are
            // computed before the merge decides whether the head's beat
            // leaves (`tok_less`: it does; `tok_keep`: it does not), so the
            // decision only picks one. The cap of `tok_less`
            // (`base - bytes > burst`) is `base - burst > bytes`: the wide
            // part from registers, a 7-bit compare with the RAM's bytes.
            self.head_is[i].next = self.head_slot.val().index() == i;
            self.tok_add[i].next = 0.into();
            if self.us_tick.val() {
                self.tok_add[i].next = self.sl_rate[i].q.val();
            }
            self.tok_base[i].next = self.sl_tokens[i].q.val() + self.tok_add[i].val();
            self.tok_over[i].next = self.tok_base[i].val() - self.burst_w.val();
            self.tok_over_hi[i].next = !self.tok_over[i].val().get_bit(25)
                & self.tok_over[i].val().get_bits::<18>(7).any();
            self.tok_over_lo[i].next = !self.tok_over[i].val().get_bits::<19>(7).any()
                & (self.tok_over[i].val().get_bits::<7>(0) > self.head_bytes.val());
            self.tok_keep[i].next = self.tok_base[i].val();
            if !self.tok_over[i].val().get_bit(25) & self.tok_over[i].val().any() {
                self.tok_keep[i].next = self.burst_w.val();
            }
            self.tok_less[i].next = self.tok_base[i].val() - self.head_bytes_w.val();
            if self.tok_over_hi[i].val() | self.tok_over_lo[i].val() {
                self.tok_less[i].next = self.burst_w.val();
            }
            self.sl_tokens[i].d.next = self.tok_keep[i].val();
            if self.slow_out.val() & self.head_is[i].val() {
                self.sl_tokens[i].d.next = self.tok_less[i].val();
            }
            // Recovery after recover_us quiet microseconds.
            self.up_rate[i].next = self.sl_rate[i].q.val() + self.step_w.val();
            if self.up_rate[i].val() >= self.max_w.val() {
                self.up_rate[i].next = self.max_w.val();
            }
            if self.us_tick.val() {
                self.sl_quiet[i].d.next = self.sl_quiet[i].q.val() + 1;
                if (self.sl_quiet[i].q.val() + 1) >= self.recover_us.val() {
                    self.sl_quiet[i].d.next = 0.into();
                    self.sl_rate[i].d.next = self.up_rate[i].val();
                }
            }
            // Frames of the slot in the block.
            self.cls_is[i].next =
                self.s.tvalid.val() & self.first_in.val() & self.frame_is[i].val();
            if self.cls_is[i].val() & self.s.tready.val() {
                if !(self.slow_end.val() & self.head_is[i].val()) {
                    self.sl_waiting[i].d.next = self.sl_waiting[i].q.val() + 1;
                }
            } else if self.slow_end.val() & self.head_is[i].val() {
                self.sl_waiting[i].d.next = self.sl_waiting[i].q.val() - 1;
            }
            // Freed at max_rate (or while disabled) when nothing holds it.
            if self.sl_used[i].q.val()
                & ((self.sl_rate[i].q.val() >= self.max_w.val()) | !self.enable.val())
                & (self.sl_waiting[i].q.val() == 0)
                & !(self.classify.val() & self.frame_is[i].val())
                & !(self.note_ok.val() & self.note_is[i].val())
            {
                self.sl_used[i].d.next = false;
            }
            // A notification: cut, or a new slot.
            if self.note_ok.val() & self.note_is[i].val() {
                self.sl_rate[i].d.next = self.cut_rate[i].val();
                self.sl_quiet[i].d.next = 0.into();
            }
            if self.new_is[i].val() {
                self.sl_used[i].d.next = true;
                self.sl_label[i].d.next = self.note_label.val();
                self.sl_rate[i].d.next = self.new_rate.val();
                self.sl_tokens[i].d.next = self.burst_w.val();
                self.sl_quiet[i].d.next = 0.into();
            }
            // The path, by the rate of this clock, with hysteresis.
            self.alt_next[i].next = self.sl_alt[i].q.val();
            if self.sl_rate[i].q.val() <= self.below_w.val() {
                self.alt_next[i].next = true;
            } else if self.sl_rate[i].q.val() >= self.above_w.val() {
                self.alt_next[i].next = false;
            }
            if !self.alt_enable.val() | !self.sl_used[i].q.val() {
                self.alt_next[i].next = false;
            }
            self.sl_alt[i].d.next = self.alt_next[i].val();
            self.ev_reroute[i].next = 0.into();
            self.ev_return[i].next = 0.into();
            if !self.sl_alt[i].q.val() & self.alt_next[i].val() {
                self.ev_reroute[i].next = 1.into();
            }
            if self.sl_alt[i].q.val() & !self.alt_next[i].val() {
                self.ev_return[i].next = 1.into();
            }
            if self.reset.val() {
                self.sl_used[i].d.next = false;
                self.sl_alt[i].d.next = false;
                self.sl_waiting[i].d.next = 0.into();
            }
        }

        for k in 0..4 {
            self.pair_reroutes[k].next =
                self.ev_reroute[2 * k].val() + self.ev_reroute[2 * k + 1].val();
            self.pair_returns[k].next =
                self.ev_return[2 * k].val() + self.ev_return[2 * k + 1].val();
        }
        self.n_reroutes.next = (self.pair_reroutes[0].val() + self.pair_reroutes[1].val())
            + (self.pair_reroutes[2].val() + self.pair_reroutes[3].val());
        self.n_returns.next = (self.pair_returns[0].val() + self.pair_returns[1].val())
            + (self.pair_returns[2].val() + self.pair_returns[3].val());

        // Probe.
        self.probe_used.next = false;
        self.probe_label.next = 0.into();
        self.probe_rate.next = 0.into();
        self.probe_tokens.next = 0.into();
        self.probe_alt.next = false;
        self.probe_waiting.next = 0.into();
        for i in 0..SHAPER_SLOTS {
            if self.probe_slot.val().index() == i {
                self.probe_used.next = self.sl_used[i].q.val();
                self.probe_label.next = self.sl_label[i].q.val();
                self.probe_rate.next = self.sl_rate[i].q.val().get_bits::<16>(0);
                self.probe_tokens.next = self.sl_tokens[i].q.val();
                self.probe_alt.next = self.sl_alt[i].q.val();
                self.probe_waiting.next = self.sl_waiting[i].q.val();
            }
        }

        // Counters.
        if self.slow_end.val() {
            self.cnt_shaped.d.next = self.cnt_shaped.q.val() + 1;
        }
        if self.note_ok.val() & (self.note_hit.val() | self.note_free.val()) {
            self.cnt_taken.d.next = self.cnt_taken.q.val() + 1;
        }
        if self.note_ok.val() & !self.note_hit.val() & !self.note_free.val() {
            self.cnt_dropped.d.next = self.cnt_dropped.q.val() + 1;
        }
        self.cnt_reroutes.d.next =
            self.cnt_reroutes.q.val() + bit_cast::<32, 4>(self.n_reroutes.val());
        self.cnt_returns.d.next =
            self.cnt_returns.q.val() + bit_cast::<32, 4>(self.n_returns.val());
        self.shaped_frames.next = self.cnt_shaped.q.val();
        self.notes_taken.next = self.cnt_taken.q.val();
        self.notes_dropped.next = self.cnt_dropped.q.val();
        self.reroutes.next = self.cnt_reroutes.q.val();
        self.returns.next = self.cnt_returns.q.val();
        if self.clear_counters.val() | self.reset.val() {
            self.cnt_shaped.d.next = 0.into();
            self.cnt_taken.d.next = 0.into();
            self.cnt_dropped.d.next = 0.into();
            self.cnt_reroutes.d.next = 0.into();
            self.cnt_returns.d.next = 0.into();
        }
        if self.reset.val() {
            self.in_mid.d.next = false;
            self.r_valid.d.next = false;
            self.out_busy.d.next = false;
            self.out_slow.d.next = false;
            self.lane_frames.d.next = 0.into();
            self.lane_wr.d.next = 0.into();
            self.lane_wr_seen.d.next = 0.into();
            self.lane_rd.d.next = 0.into();
            self.lane_rd_inc.d.next = 1.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_05_flow_shaper_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<FlowShaper>("flow_shaper");
    }
}
