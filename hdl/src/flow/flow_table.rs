//! `FlowTable`: the exact-match associative flow table of LH-01: 4-way
//! buckets in block RAM, 8 candidate buckets per key (8-choice d-left
//! hashing) compared in parallel, a small fully associative stash in
//! registers for overflow, an aging scan, and counters.
//!
//! ```text
//!                   +------------------------------------------------------+
//!  req_valid     -->|  S0          S1         S2         C          D      |--> resp_valid, resp_dropped
//!  req_op        -->|  8 hashes -> [s1] ----> [s2] ----> [cmp] ---> [dec] ->|--> resp_hit, resp_inserted,
//!  req_sip, _dip -->|  (CRC-64 +   |RAM addr  |RAM data   |compare   |decide|    resp_failed
//!  req_dqp       -->|   CRC-32C)   v          | regd      |32 ways + |write |--> resp_in_stash, resp_bucket,
//!  req_sqp       -->|     8 banks x 4 ways ---+           |stash,    |back  |    resp_slot
//!  req_bytes     -->|     32 RAMs 2^I x 419 <-------------|----------+      |--> resp_sqp, resp_sqp_valid,
//!  req_bucket    -->|        stash[STASH] regs <----------|----------+      |    resp_pinned, resp_entry
//!  req_slot      -->|        write history w1, w2 --------+ forward  |      |
//!  req_in_stash  -->|        scan engine: Age op on idle clocks,     |      |--> busy
//!  now, window_epoch, aging_enable,  Flush after reset               |      |--> occupancy, learned, aged,
//!  age_timeout, clear_counters, reset ------------------------------>|      |    insert_failures,
//!                   +------------------------------------------------------+    lookups_without_sqp
//! ```
//!
//! Operations (`req_op`, 3 bits; [`FlowOp`] holds the codes):
//! - 0 `Lookup`: look up `{sip, dip, dqp}`; no side effects (CSR look-up).
//! - 1 `LookupUpdate` (data path): hit -> `last_seen = now`, add `req_bytes`
//!   to `window_bytes` (saturating; restarted when the entry's
//!   `window_epoch` differs from the `window_epoch` input); miss -> insert
//!   the flow without a source QP, or count an insert failure when its 8
//!   candidate buckets and the stash are full.
//! - 2 `LearnSqp`: set the source QP of the key, inserting it if absent
//!   (RDMA CM REQ/REP snooping, PSN pairing). A pinned entry keeps its SQP;
//!   with `req_fill` (PSN pairing) so does an entry that has one.
//! - 3 `InsertStatic`: insert or update a pinned (static) entry with an SQP
//!   (from the CSR / `cngw flows add`). Pinned entries never age.
//! - 4 `Delete`: remove the key (the response shows the removed entry).
//! - 5 `ReadLocation`: read the entry at `{req_in_stash, req_bucket,
//!   req_slot}` (bucket 0..2^BUCKET_BITS-1 and way 0..3, or stash slot)
//!   for iteration from the CSR.
//! - 6, 7: reserved on the port (behave as `Lookup`); used inside for the
//!   aging scan (`Age`) and the post-reset flush (`Flush`).
//!
//! Every `LookupUpdate` hit also refreshes `last_seen`, as do the learning
//! and static ops.
//!
//! Placement (8-choice d-left, `docs/decisions.md`): the 2^BUCKET_BITS
//! buckets are 8 banks of 2^INDEX_BITS (INDEX_BITS = BUCKET_BITS - 3),
//! bucket = `bank << INDEX_BITS | index`. A key has one candidate bucket in
//! each bank: bank `i`'s index is bits `[i * INDEX_BITS, (i + 1) *
//! INDEX_BITS)` of the key's 96-bit hash, CRC-64/XZ (bits 95..32) and
//! CRC-32C (bits 31..0) of SIP|DIP|DQP (`flow_hash.rs`,
//! `FlowKey::candidates`). An insert takes the candidate bucket with the
//! fewest valid ways (ties to the lowest bank) and in it the lowest free
//! way; with all 8 candidates full, the lowest free stash slot; else it
//! fails. A look-up finds the key in whichever candidate or stash slot
//! holds it. Entries never move (a flow's place is its FCN-01 label).
//! `resp_bucket` is the bucket of the way hit or inserted into (for
//! `ReadLocation` the bucket asked); otherwise (stash, miss, failure) the
//! candidate an insert would take.
//!
//! Each way of each bank is its own RAM (32 RAMs of 2^INDEX_BITS entries);
//! a request reads all 32 in parallel, each at its bank's candidate index,
//! so a look-up compares 32 ways and the stash in one pass.
//!
//! Latency and throughput: one request per clock, never a stall; the
//! response to a request presented in clock n is on the `resp_*` outputs in
//! clock n+5 (five registers: s1, s2, cmp, dec, resp), and the counters include
//! it from the clock after (n+6). Requests are applied in order exactly as if one
//! at a time: back-to-back requests to the same flow or bucket see each
//! other's writes, including the candidates' loads an insert compares. The
//! RAM read (S1) misses the writes of the three requests ahead; the compare
//! stage takes the two older ones from a write history (w1, w2, per bank)
//! and the decide stage corrects for the one directly ahead from the key
//! equality and per-bank index equality the compare stage registered. No
//! comparison sits behind an unregistered RAM output. Only per-way results
//! are forwarded (key match, stale, valid, pinned, SQP valid: one comparator
//! each for w1's and w2's entry, whose results replace a way's where that
//! write hit it); the whole entry is picked once, in the decide stage, for
//! the way it selects, from the read or the write history (w1, w2, w3) by
//! where the way's contents were. An op writes one entry per clock, or the
//! empty entry to several ways (aging, flush), so one entry per history
//! step is enough.
//!
//! Aging: on each clock without a request, while `aging_enable` is high,
//! the scan engine injects an `Age` op for the next index, in all 8 banks
//! at once (all 32 entries; each RAM has its own write port), and the next
//! stash slot; it removes valid unpinned entries whose `now - last_seen`
//! (mod 2^32) exceeds `age_timeout`. A full pass takes 2^INDEX_BITS idle
//! clocks (512 for the gateway: ~1.6 us at 322 MHz).
//!
//! Reset: a synchronous `reset` drops the requests of its own clock and
//! the 4 before it (still in the pipeline; they get no response), clears the stash and the counters, then flushes
//! the RAMs for 2^INDEX_BITS clocks with `busy` high; requests presented
//! while `busy` get a response with `resp_dropped` set and have no effect.
//! After configuration the block RAMs are empty without a reset.
//!
//! Counters (32 bits): `occupancy` and `learned` (entries holding an SQP)
//! are gauges; `aged`, `insert_failures` and `lookups_without_sqp`
//! (`LookupUpdate`s whose flow has no SQP: no CNP possible) count events
//! and are zeroed by `clear_counters`, which takes effect in order with the
//! requests (it applies from the request presented in the same clock on).
//!
//! CSR use (integration is not part of this block): the CSR block drives the
//! same request port when the data path leaves it idle (a request register
//! set written by the driver, an op strobe, a response register set
//! latched on `resp_valid` of its own request, whose `resp_entry` holds
//! every field). `cngw flows` iterates with `ReadLocation` over every
//! bucket and way and then the stash slots; `cngw flows add|del` use
//! `InsertStatic` and `Delete`; un-pinning is `Delete` then `LearnSqp`.
//!
//! Resources of the gateway's 16K-entry configuration (4096 buckets x 4
//! ways + 8 stash), measured (`cngw synth --block flow_table_16k --xilinx`,
//! Yosys `synth_xilinx -family xcup`, docs/performance.md): 26,740 LUTs,
//! 34,387 flip-flops, 192 BRAM36 (32 RAMs of 512 x 419 bits, 6 x 72-bit
//! columns each). Forwarding whole entries to every way (a 419-bit
//! multiplexer per way in the compare stage and another in the decide
//! stage) cost 57,371 LUTs; forwarding only the per-way results took that
//! to the figure above. The 32 registered RAM outputs and their copies in
//! the decide stage are most of the flip-flops.
//!
//! draft-tian-ccwg-long-haul-cnp-00, "Flow Table Learning and Maintenance":
//! one entry per {SIP, DIP, SQP, DQP} flow (here keyed by {SIP, DIP, DQP}
//! with the SQP as the learned value, DESIGN.md "Decisions"), updated per
//! packet and aged out when idle; the entry feeds the Long-haul CNP's
//! destination (SIP) and BTH DestQP (SQP).

use super::flow_entry::{FlowEntry, ENTRY_BITS, KEY_BITS};
use super::flow_hash::FlowHash;
use rust_hdl::prelude::*;

/// Ways per bucket.
pub const WAYS: usize = 4;
/// Banks: a key has one candidate bucket in each.
pub const BANKS: usize = 8;
/// Bits of the bank number (the top bits of a bucket number).
pub const BANK_BITS: usize = 3;
/// Largest stash (slot numbers are 4 bits).
pub const MAX_STASH: usize = 16;

/// Operation codes of `req_op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowOp {
    Lookup = 0,
    LookupUpdate = 1,
    LearnSqp = 2,
    InsertStatic = 3,
    Delete = 4,
    ReadLocation = 5,
}

impl FlowOp {
    pub const ALL: [FlowOp; 6] = [
        FlowOp::Lookup,
        FlowOp::LookupUpdate,
        FlowOp::LearnSqp,
        FlowOp::InsertStatic,
        FlowOp::Delete,
        FlowOp::ReadLocation,
    ];
    pub fn code(self) -> u64 {
        self as u64
    }
}

/// One operation travelling down the pipeline (the candidate buckets
/// travel beside it, their width being a parameter).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct FlowStage {
    /// The slot carries an operation.
    pub valid: Bit,
    /// A request is owed a response.
    pub reply: Bit,
    /// Zero the event counters before this slot's operation counts.
    pub clear: Bit,
    /// 0..5 as `FlowOp`, 6 `Age`, 7 `Flush`.
    pub op: Bits<3>,
    pub key: Bits<280>,
    pub sqp: Bits<24>,
    pub bytes: Bits<16>,
    pub now: Bits<32>,
    pub epoch: Bits<8>,
    pub timeout: Bits<32>,
    /// `ReadLocation`: way or stash slot; `Age`: stash slot to age.
    pub slot: Bits<4>,
    pub in_stash: Bit,
    /// `ReadLocation`: the bank of the bucket asked.
    pub bank: Bits<3>,
    /// `LearnSqp` only where the entry has no source QP.
    pub fill: Bit,
}

/// The gateway's table: 4096 buckets (8 banks of 512) x 4 ways + 8 stash =
/// 16,392 entries.
pub type GatewayFlowTable = FlowTable<12, 9, 8>;

/// `BUCKET_BITS` buckets in 8 banks of 2^`INDEX_BITS` (`INDEX_BITS` must be
/// `BUCKET_BITS - 3`: Rust has no generic const expressions, so both are
/// parameters and the constructor checks them), `STASH` stash slots.
#[derive(LogicBlock)]
pub struct FlowTable<const BUCKET_BITS: usize, const INDEX_BITS: usize, const STASH: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous: drops in-flight requests, clears counters and stash,
    /// flushes the RAM (`busy` for 2^INDEX_BITS clocks).
    pub reset: Signal<In, Bit>,
    // Request (one per clock).
    pub req_valid: Signal<In, Bit>,
    pub req_op: Signal<In, Bits<3>>,
    pub req_sip: Signal<In, Bits<128>>,
    pub req_dip: Signal<In, Bits<128>>,
    pub req_dqp: Signal<In, Bits<24>>,
    /// `LearnSqp`, `InsertStatic`: the source QP.
    pub req_sqp: Signal<In, Bits<24>>,
    /// `LookupUpdate`: the frame's length.
    pub req_bytes: Signal<In, Bits<16>>,
    /// `ReadLocation`: bucket, way (0..3) or stash slot, and which.
    pub req_bucket: Signal<In, Bits<BUCKET_BITS>>,
    pub req_slot: Signal<In, Bits<4>>,
    pub req_in_stash: Signal<In, Bit>,
    /// `LearnSqp`: leave an entry that has a source QP as it is.
    pub req_fill: Signal<In, Bit>,
    // Time and configuration.
    /// Timestamp written into `last_seen` (free-running, wraps).
    pub now: Signal<In, Bits<32>>,
    /// Number of the current byte-count window.
    pub window_epoch: Signal<In, Bits<8>>,
    pub aging_enable: Signal<In, Bit>,
    /// Idle time, in `now` units, after which unpinned entries age out.
    pub age_timeout: Signal<In, Bits<32>>,
    pub clear_counters: Signal<In, Bit>,
    // Response, five clocks after the request.
    pub resp_valid: Signal<Out, Bit>,
    /// The request came while `busy` and was not executed.
    pub resp_dropped: Signal<Out, Bit>,
    pub resp_hit: Signal<Out, Bit>,
    pub resp_inserted: Signal<Out, Bit>,
    pub resp_failed: Signal<Out, Bit>,
    /// Location of the entry hit, inserted or read.
    pub resp_in_stash: Signal<Out, Bit>,
    pub resp_bucket: Signal<Out, Bits<BUCKET_BITS>>,
    pub resp_slot: Signal<Out, Bits<4>>,
    pub resp_sqp: Signal<Out, Bits<24>>,
    pub resp_sqp_valid: Signal<Out, Bit>,
    pub resp_pinned: Signal<Out, Bit>,
    /// The entry after the operation (for `Delete`, the entry removed).
    pub resp_entry: Signal<Out, FlowEntry>,
    // Status.
    pub busy: Signal<Out, Bit>,
    pub occupancy: Signal<Out, Bits<32>>,
    pub learned: Signal<Out, Bits<32>>,
    pub aged: Signal<Out, Bits<32>>,
    pub insert_failures: Signal<Out, Bits<32>>,
    pub lookups_without_sqp: Signal<Out, Bits<32>>,
    // Blocks and memories.
    /// One candidate per bank.
    hash: Vec<FlowHash<BUCKET_BITS>>,
    /// RAM `4 * bank + way`.
    ways: Vec<RAM<FlowEntry, INDEX_BITS>>,
    stash: Vec<DFF<FlowEntry>>,
    // Constants.
    empty_entry: Constant<FlowEntry>,
    all_ones: Constant<Bits<ENTRY_BITS>>,
    idle_stage: Constant<FlowStage>,
    slot_number: Vec<Constant<Bits<4>>>,
    stash_last: Constant<Bits<4>>,
    /// `bank << INDEX_BITS`, the first bucket of each bank.
    bank_base: Vec<Constant<Bits<BUCKET_BITS>>>,
    bank_number: Vec<Constant<Bits<3>>>,
    index_mask: Constant<Bits<BUCKET_BITS>>,
    bank_mask: Constant<Bits<BUCKET_BITS>>,
    index_last: Constant<Bits<BUCKET_BITS>>,
    // Scan engine (aging and flush): the index, in every bank.
    scan_index: DFF<Bits<BUCKET_BITS>>,
    scan_slot: DFF<Bits<4>>,
    flushing: DFF<Bit>,
    // Pipeline; `*_cand[bank]` the op's candidate bucket in each bank.
    s1: DFF<FlowStage>,
    s1_cand: Vec<DFF<Bits<BUCKET_BITS>>>,
    s2: DFF<FlowStage>,
    s2_cand: Vec<DFF<Bits<BUCKET_BITS>>>,
    cmp: DFF<FlowStage>,
    cmp_cand: Vec<DFF<Bits<BUCKET_BITS>>>,
    cmp_ram: Vec<DFF<FlowEntry>>,
    /// Per bank: the candidate is the one w1 / w2 wrote / the op ahead's.
    cmp_fwd_w1: DFF<Bits<8>>,
    cmp_fwd_w2: DFF<Bits<8>>,
    cmp_same_ahead: DFF<Bits<8>>,
    dec: DFF<FlowStage>,
    dec_cand: Vec<DFF<Bits<BUCKET_BITS>>>,
    /// The ways as read (no forwarding: D picks the entry of the way it
    /// selects from the read, w1, w2 or w3 by the masks below).
    dec_way: Vec<DFF<FlowEntry>>,
    /// Per way: C took its contents from w1 / w2 of C's clock (w2 / w3 now).
    dec_src_w1: DFF<Bits<32>>,
    dec_src_w2: DFF<Bits<32>>,
    /// Per way, as C saw it (read data or forwarded): valid, pinned, sqp_valid.
    dec_valid: DFF<Bits<32>>,
    dec_pinned: DFF<Bits<32>>,
    dec_sqp_valid: DFF<Bits<32>>,
    dec_match_way: DFF<Bits<32>>,
    dec_stale_way: DFF<Bits<32>>,
    dec_match_stash: DFF<Bits<STASH>>,
    dec_same_ahead: DFF<Bits<8>>,
    dec_same_key_ahead: DFF<Bit>,
    dec_stash_stale: DFF<Bit>,
    // Write history: w1 the RAM writes of one clock ago (one mask bit per
    // RAM, the address per bank) and its stash write, w2 of two clocks ago.
    w1_mask: DFF<Bits<32>>,
    w1_cand: Vec<DFF<Bits<BUCKET_BITS>>>,
    w1_entry: DFF<FlowEntry>,
    w1_stash_write: DFF<Bit>,
    w1_stash_slot: DFF<Bits<4>>,
    w2_mask: DFF<Bits<32>>,
    w2_cand: Vec<DFF<Bits<BUCKET_BITS>>>,
    w2_entry: DFF<FlowEntry>,
    /// w2's entry a clock later (the entry C forwarded from its w2).
    w3_entry: DFF<FlowEntry>,
    // Response registers.
    r_valid: DFF<Bit>,
    r_dropped: DFF<Bit>,
    r_hit: DFF<Bit>,
    r_inserted: DFF<Bit>,
    r_failed: DFF<Bit>,
    r_in_stash: DFF<Bit>,
    r_bucket: DFF<Bits<BUCKET_BITS>>,
    r_slot: DFF<Bits<4>>,
    r_entry: DFF<FlowEntry>,
    // Counters.
    occupancy_count: DFF<Bits<32>>,
    learned_count: DFF<Bits<32>>,
    aged_count: DFF<Bits<32>>,
    insert_failure_count: DFF<Bits<32>>,
    unlearned_lookup_count: DFF<Bits<32>>,
    // Counter increments of the op decided one clock earlier.
    cnt_clear: DFF<Bit>,
    cnt_inserted: DFF<Bit>,
    cnt_removed: DFF<Bit>,
    cnt_removed_learned: DFF<Bit>,
    cnt_became_learned: DFF<Bit>,
    cnt_failed: DFF<Bit>,
    cnt_unlearned: DFF<Bit>,
    cnt_aged: DFF<Bits<6>>,
    cnt_aged_learned: DFF<Bits<6>>,
    // S0.
    key_in: Signal<Local, Bits<KEY_BITS>>,
    stage_in: Signal<Local, FlowStage>,
    req_bank_bits: Signal<Local, Bits<BUCKET_BITS>>,
    // S2.
    fwd_w1_in: Signal<Local, Bits<8>>,
    fwd_w2_in: Signal<Local, Bits<8>>,
    same_ahead_in: Signal<Local, Bits<8>>,
    // C.
    /// Per way: its contents are w1's / w2's (not the read's).
    fwd_w1: Signal<Local, Bits<32>>,
    fwd_w2: Signal<Local, Bits<32>>,
    /// w1's / w2's entry holds the key; is stale.
    w1_key_match: Signal<Local, Bit>,
    w2_key_match: Signal<Local, Bit>,
    w1_stale_c: Signal<Local, Bit>,
    w2_stale_c: Signal<Local, Bit>,
    way_valid_c: Signal<Local, Bits<32>>,
    way_pinned_c: Signal<Local, Bits<32>>,
    way_sqp_valid_c: Signal<Local, Bits<32>>,
    probe: Signal<Local, FlowEntry>,
    probe_bits: Signal<Local, Bits<ENTRY_BITS>>,
    select_mask: Signal<Local, Bits<ENTRY_BITS>>,
    select_bits: Signal<Local, Bits<ENTRY_BITS>>,
    select_word: Signal<Local, Bits<32>>,
    slot_last_seen: Signal<Local, Bits<32>>,
    entry_age: Signal<Local, Bits<32>>,
    cmp_match: Signal<Local, Bits<32>>,
    cmp_stale: Signal<Local, Bits<32>>,
    cmp_match_stash: Signal<Local, Bits<STASH>>,
    // D.
    op_update: Signal<Local, Bit>,
    w1_age: Signal<Local, Bits<32>>,
    w1_stale: Signal<Local, Bit>,
    /// Per way: the op ahead wrote it (its contents are w1's).
    ahead_way: Signal<Local, Bits<32>>,
    way_valid: Signal<Local, Bits<32>>,
    way_pinned: Signal<Local, Bits<32>>,
    way_sqp_valid: Signal<Local, Bits<32>>,
    /// The selected way's contents come from the read / w1 / w2 / w3.
    sel_read: Signal<Local, Bits<32>>,
    sel_w1: Signal<Local, Bit>,
    sel_w2: Signal<Local, Bit>,
    sel_w3: Signal<Local, Bit>,
    match_way: Signal<Local, Bits<32>>,
    stale_way: Signal<Local, Bits<32>>,
    match_stash: Signal<Local, Bits<STASH>>,
    hit: Signal<Local, Bit>,
    hit_entry: Signal<Local, FlowEntry>,
    hit_in_stash: Signal<Local, Bit>,
    hit_slot: Signal<Local, Bits<4>>,
    /// Per bank: a way of it is selected.
    bank_hit: Signal<Local, Bits<8>>,
    /// The current bank's valid ways and lowest free way (in the loop).
    load: Signal<Local, Bits<3>>,
    bank_free_found: Signal<Local, Bit>,
    bank_free: Signal<Local, Bits<4>>,
    /// The least loaded candidate (one-hot), its load and lowest free way.
    best_load: Signal<Local, Bits<3>>,
    best_bank: Signal<Local, Bits<8>>,
    free_way: Signal<Local, Bits<4>>,
    free_way_found: Signal<Local, Bit>,
    free_stash_found: Signal<Local, Bit>,
    free_stash: Signal<Local, Bits<4>>,
    /// The bank whose candidate is the response's bucket (one-hot).
    bank_sel: Signal<Local, Bits<8>>,
    resp_bucket_sel: Signal<Local, Bits<BUCKET_BITS>>,
    window_sum: Signal<Local, Bits<33>>,
    // LH-10: the flow's last complete window and the one before, at its
    // first packet of a new window, and whether the last fell below 7/8.
    last_window: Signal<Local, Bits<32>>,
    epoch_next: Signal<Local, Bits<8>>,
    epoch_after: Signal<Local, Bits<8>>,
    before_window: Signal<Local, Bits<32>>,
    fell_lhs: Signal<Local, Bits<36>>,
    fell_rhs: Signal<Local, Bits<36>>,
    new_entry: Signal<Local, FlowEntry>,
    write_entry: Signal<Local, FlowEntry>,
    result_entry: Signal<Local, FlowEntry>,
    way_write: Signal<Local, Bits<32>>,
    stash_write: Signal<Local, Bit>,
    stash_write_slot: Signal<Local, Bits<4>>,
    loc_in_stash: Signal<Local, Bit>,
    loc_slot: Signal<Local, Bits<4>>,
    inserted: Signal<Local, Bit>,
    failed: Signal<Local, Bit>,
    removed: Signal<Local, Bit>,
    became_learned: Signal<Local, Bit>,
    expired_way: Signal<Local, Bits<32>>,
    age_op: Signal<Local, Bit>,
    locate: Signal<Local, Bit>,
    sel_way: Signal<Local, Bits<32>>,
    sel_stash: Signal<Local, Bits<STASH>>,
    stash_stale: Signal<Local, Bit>,
    stash_expired: Signal<Local, Bit>,
    aged_now: Signal<Local, Bits<6>>,
    aged_learned_now: Signal<Local, Bits<6>>,
    /// The ways' part of `aged_now` / `aged_learned_now` (kept apart so
    /// that the statement selecting the entry does not also read
    /// `stash_expired`, which follows from the selected entry).
    aged_ways: Signal<Local, Bits<6>>,
    aged_ways_learned: Signal<Local, Bits<6>>,
    occupancy_next: Signal<Local, Bits<32>>,
    learned_next: Signal<Local, Bits<32>>,
    aged_base: Signal<Local, Bits<32>>,
    failure_base: Signal<Local, Bits<32>>,
    unlearned_base: Signal<Local, Bits<32>>,
}

impl<const BUCKET_BITS: usize, const INDEX_BITS: usize, const STASH: usize> Default
    for FlowTable<BUCKET_BITS, INDEX_BITS, STASH>
{
    fn default() -> Self {
        assert!((1..=MAX_STASH).contains(&STASH), "1 to 16 stash slots");
        assert_eq!(
            INDEX_BITS + BANK_BITS,
            BUCKET_BITS,
            "INDEX_BITS must be BUCKET_BITS - 3 (8 banks)"
        );
        assert!((1..=16).contains(&INDEX_BITS), "1 to 16 index bits");
        let slots = STASH.max(WAYS) as u64;
        let index_mask = (1u64 << INDEX_BITS) - 1;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req_valid: Default::default(),
            req_op: Default::default(),
            req_sip: Default::default(),
            req_dip: Default::default(),
            req_dqp: Default::default(),
            req_sqp: Default::default(),
            req_bytes: Default::default(),
            req_bucket: Default::default(),
            req_slot: Default::default(),
            req_in_stash: Default::default(),
            req_fill: Default::default(),
            now: Default::default(),
            window_epoch: Default::default(),
            aging_enable: Default::default(),
            age_timeout: Default::default(),
            clear_counters: Default::default(),
            resp_valid: Default::default(),
            resp_dropped: Default::default(),
            resp_hit: Default::default(),
            resp_inserted: Default::default(),
            resp_failed: Default::default(),
            resp_in_stash: Default::default(),
            resp_bucket: Default::default(),
            resp_slot: Default::default(),
            resp_sqp: Default::default(),
            resp_sqp_valid: Default::default(),
            resp_pinned: Default::default(),
            resp_entry: Default::default(),
            busy: Default::default(),
            occupancy: Default::default(),
            learned: Default::default(),
            aged: Default::default(),
            insert_failures: Default::default(),
            lookups_without_sqp: Default::default(),
            hash: (0..BANKS).map(FlowHash::candidate).collect(),
            ways: (0..BANKS * WAYS).map(|_| Default::default()).collect(),
            stash: (0..STASH).map(|_| Default::default()).collect(),
            empty_entry: Constant::new(FlowEntry::default()),
            all_ones: Constant::new(!Bits::<ENTRY_BITS>::default()),
            idle_stage: Constant::new(FlowStage::default()),
            slot_number: (0..slots).map(|i| Constant::new(i.to_bits())).collect(),
            stash_last: Constant::new((STASH as u64 - 1).to_bits()),
            bank_base: (0..BANKS as u64)
                .map(|b| Constant::new((b << INDEX_BITS).to_bits()))
                .collect(),
            bank_number: (0..BANKS as u64)
                .map(|b| Constant::new(b.to_bits()))
                .collect(),
            index_mask: Constant::new(index_mask.to_bits()),
            bank_mask: Constant::new((!index_mask & ((1u64 << BUCKET_BITS) - 1)).to_bits()),
            index_last: Constant::new(index_mask.to_bits()),
            scan_index: Default::default(),
            scan_slot: Default::default(),
            flushing: Default::default(),
            s1: Default::default(),
            s1_cand: (0..BANKS).map(|_| Default::default()).collect(),
            s2: Default::default(),
            s2_cand: (0..BANKS).map(|_| Default::default()).collect(),
            cmp: Default::default(),
            cmp_cand: (0..BANKS).map(|_| Default::default()).collect(),
            cmp_ram: (0..BANKS * WAYS).map(|_| Default::default()).collect(),
            cmp_fwd_w1: Default::default(),
            cmp_fwd_w2: Default::default(),
            cmp_same_ahead: Default::default(),
            dec: Default::default(),
            dec_cand: (0..BANKS).map(|_| Default::default()).collect(),
            dec_way: (0..BANKS * WAYS).map(|_| Default::default()).collect(),
            dec_src_w1: Default::default(),
            dec_src_w2: Default::default(),
            dec_valid: Default::default(),
            dec_pinned: Default::default(),
            dec_sqp_valid: Default::default(),
            dec_match_way: Default::default(),
            dec_stale_way: Default::default(),
            dec_match_stash: Default::default(),
            dec_same_ahead: Default::default(),
            dec_same_key_ahead: Default::default(),
            dec_stash_stale: Default::default(),
            w1_mask: Default::default(),
            w1_cand: (0..BANKS).map(|_| Default::default()).collect(),
            w1_entry: Default::default(),
            w1_stash_write: Default::default(),
            w1_stash_slot: Default::default(),
            w2_mask: Default::default(),
            w2_cand: (0..BANKS).map(|_| Default::default()).collect(),
            w2_entry: Default::default(),
            w3_entry: Default::default(),
            r_valid: Default::default(),
            r_dropped: Default::default(),
            r_hit: Default::default(),
            r_inserted: Default::default(),
            r_failed: Default::default(),
            r_in_stash: Default::default(),
            r_bucket: Default::default(),
            r_slot: Default::default(),
            r_entry: Default::default(),
            occupancy_count: Default::default(),
            learned_count: Default::default(),
            aged_count: Default::default(),
            insert_failure_count: Default::default(),
            unlearned_lookup_count: Default::default(),
            cnt_clear: Default::default(),
            cnt_inserted: Default::default(),
            cnt_removed: Default::default(),
            cnt_removed_learned: Default::default(),
            cnt_became_learned: Default::default(),
            cnt_failed: Default::default(),
            cnt_unlearned: Default::default(),
            cnt_aged: Default::default(),
            cnt_aged_learned: Default::default(),
            key_in: Default::default(),
            stage_in: Default::default(),
            req_bank_bits: Default::default(),
            fwd_w1_in: Default::default(),
            fwd_w2_in: Default::default(),
            same_ahead_in: Default::default(),
            fwd_w1: Default::default(),
            fwd_w2: Default::default(),
            w1_key_match: Default::default(),
            w2_key_match: Default::default(),
            w1_stale_c: Default::default(),
            w2_stale_c: Default::default(),
            way_valid_c: Default::default(),
            way_pinned_c: Default::default(),
            way_sqp_valid_c: Default::default(),
            probe: Default::default(),
            probe_bits: Default::default(),
            select_mask: Default::default(),
            select_bits: Default::default(),
            select_word: Default::default(),
            slot_last_seen: Default::default(),
            entry_age: Default::default(),
            cmp_match: Default::default(),
            cmp_stale: Default::default(),
            cmp_match_stash: Default::default(),
            op_update: Default::default(),
            w1_age: Default::default(),
            w1_stale: Default::default(),
            ahead_way: Default::default(),
            way_valid: Default::default(),
            way_pinned: Default::default(),
            way_sqp_valid: Default::default(),
            sel_read: Default::default(),
            sel_w1: Default::default(),
            sel_w2: Default::default(),
            sel_w3: Default::default(),
            match_way: Default::default(),
            stale_way: Default::default(),
            match_stash: Default::default(),
            hit: Default::default(),
            hit_entry: Default::default(),
            hit_in_stash: Default::default(),
            hit_slot: Default::default(),
            bank_hit: Default::default(),
            load: Default::default(),
            bank_free_found: Default::default(),
            bank_free: Default::default(),
            best_load: Default::default(),
            best_bank: Default::default(),
            free_way: Default::default(),
            free_way_found: Default::default(),
            free_stash_found: Default::default(),
            free_stash: Default::default(),
            bank_sel: Default::default(),
            resp_bucket_sel: Default::default(),
            window_sum: Default::default(),
            last_window: Default::default(),
            epoch_next: Default::default(),
            epoch_after: Default::default(),
            before_window: Default::default(),
            fell_lhs: Default::default(),
            fell_rhs: Default::default(),
            new_entry: Default::default(),
            write_entry: Default::default(),
            result_entry: Default::default(),
            way_write: Default::default(),
            stash_write: Default::default(),
            stash_write_slot: Default::default(),
            loc_in_stash: Default::default(),
            loc_slot: Default::default(),
            inserted: Default::default(),
            failed: Default::default(),
            removed: Default::default(),
            became_learned: Default::default(),
            expired_way: Default::default(),
            age_op: Default::default(),
            locate: Default::default(),
            sel_way: Default::default(),
            sel_stash: Default::default(),
            stash_stale: Default::default(),
            stash_expired: Default::default(),
            aged_now: Default::default(),
            aged_learned_now: Default::default(),
            aged_ways: Default::default(),
            aged_ways_learned: Default::default(),
            occupancy_next: Default::default(),
            learned_next: Default::default(),
            aged_base: Default::default(),
            failure_base: Default::default(),
            unlearned_base: Default::default(),
        }
    }
}

impl<const BUCKET_BITS: usize, const INDEX_BITS: usize, const STASH: usize> Logic
    for FlowTable<BUCKET_BITS, INDEX_BITS, STASH>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            scan_index,
            scan_slot,
            flushing,
            s1,
            s2,
            cmp,
            cmp_fwd_w1,
            cmp_fwd_w2,
            cmp_same_ahead,
            dec,
            dec_src_w1,
            dec_src_w2,
            dec_valid,
            dec_pinned,
            dec_sqp_valid,
            dec_match_way,
            dec_stale_way,
            dec_match_stash,
            dec_same_ahead,
            dec_same_key_ahead,
            dec_stash_stale,
            w1_mask,
            w1_entry,
            w1_stash_write,
            w1_stash_slot,
            w2_mask,
            w2_entry,
            w3_entry,
            r_valid,
            r_dropped,
            r_hit,
            r_inserted,
            r_failed,
            r_in_stash,
            r_bucket,
            r_slot,
            r_entry,
            occupancy_count,
            learned_count,
            aged_count,
            insert_failure_count,
            unlearned_lookup_count,
            cnt_clear,
            cnt_inserted,
            cnt_removed,
            cnt_removed_learned,
            cnt_became_learned,
            cnt_failed,
            cnt_unlearned,
            cnt_aged,
            cnt_aged_learned
        );
        for b in 0..8 {
            self.s1_cand[b].clock.next = self.clock.val();
            self.s1_cand[b].d.next = self.s1_cand[b].q.val();
            self.s2_cand[b].clock.next = self.clock.val();
            self.s2_cand[b].d.next = self.s2_cand[b].q.val();
            self.cmp_cand[b].clock.next = self.clock.val();
            self.cmp_cand[b].d.next = self.cmp_cand[b].q.val();
            self.dec_cand[b].clock.next = self.clock.val();
            self.dec_cand[b].d.next = self.dec_cand[b].q.val();
            self.w1_cand[b].clock.next = self.clock.val();
            self.w1_cand[b].d.next = self.w1_cand[b].q.val();
            self.w2_cand[b].clock.next = self.clock.val();
            self.w2_cand[b].d.next = self.w2_cand[b].q.val();
        }
        for r in 0..32 {
            self.ways[r].read_clock.next = self.clock.val();
            self.ways[r].write_clock.next = self.clock.val();
            self.cmp_ram[r].clock.next = self.clock.val();
            self.cmp_ram[r].d.next = self.cmp_ram[r].q.val();
            self.dec_way[r].clock.next = self.clock.val();
            self.dec_way[r].d.next = self.dec_way[r].q.val();
        }
        for s in 0..STASH {
            self.stash[s].clock.next = self.clock.val();
            self.stash[s].d.next = self.stash[s].q.val();
        }

        // Outputs, all registered.
        self.resp_valid.next = self.r_valid.q.val();
        self.resp_dropped.next = self.r_dropped.q.val();
        self.resp_hit.next = self.r_hit.q.val();
        self.resp_inserted.next = self.r_inserted.q.val();
        self.resp_failed.next = self.r_failed.q.val();
        self.resp_in_stash.next = self.r_in_stash.q.val();
        self.resp_bucket.next = self.r_bucket.q.val();
        self.resp_slot.next = self.r_slot.q.val();
        self.resp_entry.next = self.r_entry.q.val();
        self.resp_sqp.next = self.r_entry.q.val().sqp;
        self.resp_sqp_valid.next = self.r_entry.q.val().sqp_valid;
        self.resp_pinned.next = self.r_entry.q.val().pinned;
        self.busy.next = self.flushing.q.val();
        self.occupancy.next = self.occupancy_count.q.val();
        self.learned.next = self.learned_count.q.val();
        self.aged.next = self.aged_count.q.val();
        self.insert_failures.next = self.insert_failure_count.q.val();
        self.lookups_without_sqp.next = self.unlearned_lookup_count.q.val();

        // ---- S0: take a request, or an Age/Flush op from the scan engine.
        // (The key is formed for a request only, so that a simulator skips
        // the 280-bit work on idle clocks; the hardware is the same.)
        self.key_in.next = 0.into();
        if self.req_valid.val() {
            self.key_in.next = (bit_cast::<280, 128>(self.req_sip.val()) << 152)
                | (bit_cast::<280, 128>(self.req_dip.val()) << 24)
                | bit_cast::<280, 24>(self.req_dqp.val());
        }
        for b in 0..8 {
            self.hash[b].key.next = self.key_in.val();
        }
        self.stage_in.next = self.idle_stage.val();
        self.stage_in.next.clear = self.clear_counters.val();
        self.stage_in.next.op = self.req_op.val();
        if self.req_op.val().get_bit(2) & self.req_op.val().get_bit(1) {
            self.stage_in.next.op = 0.into();
        }
        self.stage_in.next.key = self.key_in.val();
        self.stage_in.next.sqp = self.req_sqp.val();
        self.stage_in.next.bytes = self.req_bytes.val();
        self.stage_in.next.now = self.now.val();
        self.stage_in.next.epoch = self.window_epoch.val();
        self.stage_in.next.timeout = self.age_timeout.val();
        self.stage_in.next.slot = self.req_slot.val();
        self.stage_in.next.in_stash = self.req_in_stash.val();
        self.stage_in.next.fill = self.req_fill.val();
        // ReadLocation: the bank of the bucket asked.
        self.req_bank_bits.next = self.req_bucket.val() & self.bank_mask.val();
        for b in 0..8 {
            if self.req_bank_bits.val() == self.bank_base[b].val() {
                self.stage_in.next.bank = self.bank_number[b].val();
            }
        }
        // The candidates: the key's, or for ReadLocation the index asked
        // in every bank, or the scan index in every bank.
        for b in 0..8 {
            self.s1_cand[b].d.next = self.hash[b].bucket.val();
            if self.req_op.val() == 5 {
                self.s1_cand[b].d.next =
                    self.bank_base[b].val() | (self.req_bucket.val() & self.index_mask.val());
            }
        }
        if self.flushing.q.val() {
            // Flush: invalidate the 32 ways of one index per clock.
            self.stage_in.next.valid = true;
            self.stage_in.next.reply = self.req_valid.val();
            self.stage_in.next.op = 7.into();
            for b in 0..8 {
                self.s1_cand[b].d.next = self.bank_base[b].val() | self.scan_index.q.val();
            }
            self.scan_index.d.next = (self.scan_index.q.val() + 1) & self.index_mask.val();
            if self.scan_index.q.val() == self.index_last.val() {
                self.flushing.d.next = false;
            }
        } else if self.req_valid.val() {
            self.stage_in.next.valid = true;
            self.stage_in.next.reply = true;
        } else if self.aging_enable.val() {
            // Age: one index (all banks) and one stash slot per idle clock.
            self.stage_in.next.valid = true;
            self.stage_in.next.op = 6.into();
            self.stage_in.next.slot = self.scan_slot.q.val();
            self.stage_in.next.in_stash = true;
            for b in 0..8 {
                self.s1_cand[b].d.next = self.bank_base[b].val() | self.scan_index.q.val();
            }
            self.scan_index.d.next = (self.scan_index.q.val() + 1) & self.index_mask.val();
            self.scan_slot.d.next = self.scan_slot.q.val() + 1;
            if self.scan_slot.q.val() == self.stash_last.val() {
                self.scan_slot.d.next = 0.into();
            }
        }
        self.s1.d.next = self.stage_in.val();

        // ---- S1: read the 32 ways, each bank at its candidate.
        for b in 0..8 {
            for w in 0..4 {
                self.ways[b * 4 + w].read_address.next =
                    self.s1_cand[b].q.val().get_bits::<INDEX_BITS>(0);
            }
            self.s2_cand[b].d.next = self.s1_cand[b].q.val();
        }
        self.s2.d.next = self.s1.q.val();

        // ---- S2: register the RAM outputs; relate each candidate to the
        // ops whose writes the read missed (the op in D writes at this
        // clock's end and is w1 when this op compares; w1 now is w2 then;
        // the op in C is directly ahead and is corrected for in D).
        for r in 0..32 {
            self.cmp_ram[r].d.next = self.ways[r].read_data.val();
        }
        self.cmp.d.next = self.s2.q.val();
        self.fwd_w1_in.next = 0.into();
        self.fwd_w2_in.next = 0.into();
        self.same_ahead_in.next = 0.into();
        for b in 0..8 {
            self.cmp_cand[b].d.next = self.s2_cand[b].q.val();
            self.fwd_w1_in.next = self
                .fwd_w1_in
                .val()
                .replace_bit(b, self.s2_cand[b].q.val() == self.dec_cand[b].q.val());
            self.fwd_w2_in.next = self
                .fwd_w2_in
                .val()
                .replace_bit(b, self.s2_cand[b].q.val() == self.w1_cand[b].q.val());
            self.same_ahead_in.next = self
                .same_ahead_in
                .val()
                .replace_bit(b, self.s2_cand[b].q.val() == self.cmp_cand[b].q.val());
        }
        self.cmp_fwd_w1.d.next = self.fwd_w1_in.val();
        self.cmp_fwd_w2.d.next = self.fwd_w2_in.val();
        self.cmp_same_ahead.d.next = self.same_ahead_in.val();

        // ---- C: compare keys and check ages, of each way as read or, where
        // w1 / w2 wrote it, of the entry written. Only the per-way results
        // (match, stale, valid, pinned, sqp_valid) are forwarded; D selects
        // the whole entry of the one way it picks from the read, w1, w2 or
        // w3 (the 419-bit entries are not multiplexed per way).
        // (The compare stage works only on a valid op, so that a simulator
        // skips it on idle clocks; the hardware is the same.)
        self.cmp_match.next = 0.into();
        self.cmp_stale.next = 0.into();
        self.cmp_match_stash.next = 0.into();
        self.slot_last_seen.next = 0.into();
        self.probe.next = self.stash[0].q.val();
        self.entry_age.next = 0.into();
        self.select_word.next = 0.into();
        self.fwd_w1.next = 0.into();
        self.fwd_w2.next = 0.into();
        self.way_valid_c.next = 0.into();
        self.way_pinned_c.next = 0.into();
        self.way_sqp_valid_c.next = 0.into();
        self.w1_key_match.next = false;
        self.w2_key_match.next = false;
        self.w1_stale_c.next = false;
        self.w2_stale_c.next = false;
        for r in 0..32 {
            self.dec_way[r].d.next = self.cmp_ram[r].q.val();
        }
        if self.cmp.q.val().valid {
            self.w1_key_match.next =
                self.w1_entry.q.val().valid & (self.w1_entry.q.val().key == self.cmp.q.val().key);
            self.w2_key_match.next =
                self.w2_entry.q.val().valid & (self.w2_entry.q.val().key == self.cmp.q.val().key);
            self.entry_age.next = self.cmp.q.val().now - self.w1_entry.q.val().last_seen;
            self.w1_stale_c.next = self.entry_age.val() > self.cmp.q.val().timeout;
            self.entry_age.next = self.cmp.q.val().now - self.w2_entry.q.val().last_seen;
            self.w2_stale_c.next = self.entry_age.val() > self.cmp.q.val().timeout;
            for b in 0..8 {
                for w in 0..4 {
                    self.fwd_w1.next = self.fwd_w1.val().replace_bit(
                        b * 4 + w,
                        self.cmp_fwd_w1.q.val().get_bit(b)
                            & self.w1_mask.q.val().get_bit(b * 4 + w),
                    );
                    self.fwd_w2.next = self.fwd_w2.val().replace_bit(
                        b * 4 + w,
                        self.cmp_fwd_w2.q.val().get_bit(b)
                            & self.w2_mask.q.val().get_bit(b * 4 + w)
                            & !self.fwd_w1.val().get_bit(b * 4 + w),
                    );
                    // (Fields of a Vec element are read through `probe`:
                    // rust-hdl sizes field slices outside the loop.)
                    self.probe.next = self.cmp_ram[b * 4 + w].q.val();
                    self.cmp_match.next = self.cmp_match.val().replace_bit(
                        b * 4 + w,
                        self.probe.val().valid & (self.probe.val().key == self.cmp.q.val().key),
                    );
                    self.entry_age.next = self.cmp.q.val().now - self.probe.val().last_seen;
                    self.cmp_stale.next = self
                        .cmp_stale
                        .val()
                        .replace_bit(b * 4 + w, self.entry_age.val() > self.cmp.q.val().timeout);
                    self.way_valid_c.next = self
                        .way_valid_c
                        .val()
                        .replace_bit(b * 4 + w, self.probe.val().valid);
                    self.way_pinned_c.next = self
                        .way_pinned_c
                        .val()
                        .replace_bit(b * 4 + w, self.probe.val().pinned);
                    self.way_sqp_valid_c.next = self
                        .way_sqp_valid_c
                        .val()
                        .replace_bit(b * 4 + w, self.probe.val().sqp_valid);
                    if self.fwd_w2.val().get_bit(b * 4 + w) {
                        self.cmp_match.next = self
                            .cmp_match
                            .val()
                            .replace_bit(b * 4 + w, self.w2_key_match.val());
                        self.cmp_stale.next = self
                            .cmp_stale
                            .val()
                            .replace_bit(b * 4 + w, self.w2_stale_c.val());
                        self.way_valid_c.next = self
                            .way_valid_c
                            .val()
                            .replace_bit(b * 4 + w, self.w2_entry.q.val().valid);
                        self.way_pinned_c.next = self
                            .way_pinned_c
                            .val()
                            .replace_bit(b * 4 + w, self.w2_entry.q.val().pinned);
                        self.way_sqp_valid_c.next = self
                            .way_sqp_valid_c
                            .val()
                            .replace_bit(b * 4 + w, self.w2_entry.q.val().sqp_valid);
                    }
                    if self.fwd_w1.val().get_bit(b * 4 + w) {
                        self.cmp_match.next = self
                            .cmp_match
                            .val()
                            .replace_bit(b * 4 + w, self.w1_key_match.val());
                        self.cmp_stale.next = self
                            .cmp_stale
                            .val()
                            .replace_bit(b * 4 + w, self.w1_stale_c.val());
                        self.way_valid_c.next = self
                            .way_valid_c
                            .val()
                            .replace_bit(b * 4 + w, self.w1_entry.q.val().valid);
                        self.way_pinned_c.next = self
                            .way_pinned_c
                            .val()
                            .replace_bit(b * 4 + w, self.w1_entry.q.val().pinned);
                        self.way_sqp_valid_c.next = self
                            .way_sqp_valid_c
                            .val()
                            .replace_bit(b * 4 + w, self.w1_entry.q.val().sqp_valid);
                    }
                }
            }
            self.cmp_match_stash.next = 0.into();
            for s in 0..STASH {
                self.probe.next = self.stash[s].q.val();
                self.cmp_match_stash.next = self.cmp_match_stash.val().replace_bit(
                    s,
                    self.probe.val().valid & (self.probe.val().key == self.cmp.q.val().key),
                );
            }
            // Age's stash slot (an AND-OR select, see D): its staleness.
            self.slot_last_seen.next = 0.into();
            for s in 0..STASH {
                self.probe.next = self.stash[s].q.val();
                self.select_word.next = 0.into();
                if self.cmp.q.val().slot.index() == s {
                    self.select_word.next = 0xffff_ffff_u64.into();
                }
                self.slot_last_seen.next = self.slot_last_seen.val()
                    | (self.probe.val().last_seen & self.select_word.val());
            }
        }
        self.entry_age.next = self.cmp.q.val().now - self.slot_last_seen.val();
        self.dec_stash_stale.d.next = self.entry_age.val() > self.cmp.q.val().timeout;
        self.dec.d.next = self.cmp.q.val();
        for b in 0..8 {
            self.dec_cand[b].d.next = self.cmp_cand[b].q.val();
        }
        self.dec_match_way.d.next = self.cmp_match.val();
        self.dec_stale_way.d.next = self.cmp_stale.val();
        self.dec_match_stash.d.next = self.cmp_match_stash.val();
        self.dec_same_ahead.d.next = self.cmp_same_ahead.q.val();
        self.dec_same_key_ahead.d.next = self.cmp.q.val().key == self.dec.q.val().key;
        self.dec_src_w1.d.next = self.fwd_w1.val();
        self.dec_src_w2.d.next = self.fwd_w2.val();
        self.dec_valid.d.next = self.way_valid_c.val();
        self.dec_pinned.d.next = self.way_pinned_c.val();
        self.dec_sqp_valid.d.next = self.way_sqp_valid_c.val();

        // ---- D: correct for the op directly ahead (its write is w1 now).
        self.w1_age.next = self.dec.q.val().now - self.w1_entry.q.val().last_seen;
        self.w1_stale.next = self.w1_age.val() > self.dec.q.val().timeout;
        self.match_way.next = self.dec_match_way.q.val();
        self.stale_way.next = self.dec_stale_way.q.val();
        self.ahead_way.next = 0.into();
        self.way_valid.next = self.dec_valid.q.val();
        self.way_pinned.next = self.dec_pinned.q.val();
        self.way_sqp_valid.next = self.dec_sqp_valid.q.val();
        for b in 0..8 {
            for w in 0..4 {
                if self.dec_same_ahead.q.val().get_bit(b) & self.w1_mask.q.val().get_bit(b * 4 + w)
                {
                    self.ahead_way.next = self.ahead_way.val().replace_bit(b * 4 + w, true);
                    self.way_valid.next = self
                        .way_valid
                        .val()
                        .replace_bit(b * 4 + w, self.w1_entry.q.val().valid);
                    self.way_pinned.next = self
                        .way_pinned
                        .val()
                        .replace_bit(b * 4 + w, self.w1_entry.q.val().pinned);
                    self.way_sqp_valid.next = self
                        .way_sqp_valid
                        .val()
                        .replace_bit(b * 4 + w, self.w1_entry.q.val().sqp_valid);
                    self.match_way.next = self.match_way.val().replace_bit(
                        b * 4 + w,
                        self.w1_entry.q.val().valid & self.dec_same_key_ahead.q.val(),
                    );
                    self.stale_way.next = self
                        .stale_way
                        .val()
                        .replace_bit(b * 4 + w, self.w1_stale.val());
                }
            }
        }
        self.match_stash.next = self.dec_match_stash.q.val();
        for s in 0..STASH {
            if self.w1_stash_write.q.val() & (self.w1_stash_slot.q.val().index() == s) {
                self.match_stash.next = self.match_stash.val().replace_bit(
                    s,
                    self.w1_entry.q.val().valid & self.dec_same_key_ahead.q.val(),
                );
            }
        }

        // The place the op reads: its key's (a key is in at most one place),
        // or for ReadLocation and Age's stash slot the place given.
        self.age_op.next = self.dec.q.val().valid & (self.dec.q.val().op == 6);
        self.locate.next = (self.dec.q.val().op == 5) | (self.dec.q.val().op == 6);
        self.sel_way.next = self.match_way.val();
        self.sel_stash.next = self.match_stash.val();
        if self.locate.val() {
            for b in 0..8 {
                for w in 0..4 {
                    self.sel_way.next = self.sel_way.val().replace_bit(
                        b * 4 + w,
                        !self.dec.q.val().in_stash
                            & (self.dec.q.val().bank == self.bank_number[b].val())
                            & (self.dec.q.val().slot.index() == w),
                    );
                }
            }
            for s in 0..STASH {
                self.sel_stash.next = self.sel_stash.val().replace_bit(
                    s,
                    self.dec.q.val().in_stash & (self.dec.q.val().slot.index() == s),
                );
            }
        }
        // Where the selected way's contents are: the op ahead's write (w1),
        // what C forwarded from its w1 (w2 now) or w2 (w3 now), or the read.
        self.sel_read.next = self.sel_way.val()
            & !self.ahead_way.val()
            & !self.dec_src_w1.q.val()
            & !self.dec_src_w2.q.val();
        self.sel_w1.next = (self.sel_way.val() & self.ahead_way.val()).any();
        self.sel_w2.next =
            (self.sel_way.val() & !self.ahead_way.val() & self.dec_src_w1.q.val()).any();
        self.sel_w3.next =
            (self.sel_way.val() & !self.ahead_way.val() & self.dec_src_w2.q.val()).any();
        // The selected entry is an OR of one-hot-masked entries, which
        // synthesis balances into a tree (a chain of muxes it cannot).
        // `probe` holds one element at a time: rust-hdl cannot size a field
        // slice of a Vec element. The same pass counts each candidate's
        // valid ways and keeps the least loaded (ties to the lowest bank).
        self.select_bits.next = 0.into();
        self.hit_slot.next = 0.into();
        self.bank_hit.next = 0.into();
        self.load.next = 0.into();
        self.bank_free_found.next = false;
        self.bank_free.next = 0.into();
        self.best_load.next = 7.into();
        self.best_bank.next = 0.into();
        self.free_way.next = 0.into();
        self.free_stash_found.next = false;
        self.free_stash.next = 0.into();
        self.expired_way.next = 0.into();
        self.aged_ways.next = 0.into();
        self.aged_ways_learned.next = 0.into();
        self.probe_bits.next = 0.into();
        self.select_mask.next = 0.into();
        // (Only a valid op selects, so that a simulator skips the wide
        // AND-OR terms on idle clocks; the hardware is the same.)
        if self.dec.q.val().valid {
            for b in 0..8 {
                self.load.next = 0.into();
                self.bank_free_found.next = false;
                self.bank_free.next = 0.into();
                for w in 0..4 {
                    self.probe.next = self.dec_way[b * 4 + w].q.val();
                    self.probe_bits.next = self.probe.val().into();
                    self.select_mask.next = 0.into();
                    if self.sel_read.val().get_bit(b * 4 + w) {
                        self.select_mask.next = self.all_ones.val();
                    }
                    if self.sel_way.val().get_bit(b * 4 + w) {
                        self.hit_slot.next = self.hit_slot.val() | self.slot_number[w].val();
                        self.bank_hit.next = self.bank_hit.val().replace_bit(b, true);
                    }
                    self.select_bits.next =
                        self.select_bits.val() | (self.probe_bits.val() & self.select_mask.val());
                    if self.way_valid.val().get_bit(b * 4 + w) {
                        self.load.next = self.load.val() + 1;
                    } else if !self.bank_free_found.val() {
                        self.bank_free_found.next = true;
                        self.bank_free.next = self.slot_number[w].val();
                    }
                    if self.age_op.val()
                        & self.way_valid.val().get_bit(b * 4 + w)
                        & !self.way_pinned.val().get_bit(b * 4 + w)
                        & self.stale_way.val().get_bit(b * 4 + w)
                    {
                        self.expired_way.next = self.expired_way.val().replace_bit(b * 4 + w, true);
                        self.aged_ways.next = self.aged_ways.val() + 1;
                        if self.way_sqp_valid.val().get_bit(b * 4 + w) {
                            self.aged_ways_learned.next = self.aged_ways_learned.val() + 1;
                        }
                    }
                }
                if self.load.val() < self.best_load.val() {
                    self.best_load.next = self.load.val();
                    self.best_bank.next = 0.into();
                    self.best_bank.next = self.best_bank.val().replace_bit(b, true);
                    self.free_way.next = self.bank_free.val();
                }
            }
            // The selected way's contents, where a write history holds them.
            self.probe.next = self.w1_entry.q.val();
            self.probe_bits.next = self.probe.val().into();
            self.select_mask.next = 0.into();
            if self.sel_w1.val() {
                self.select_mask.next = self.all_ones.val();
            }
            self.select_bits.next =
                self.select_bits.val() | (self.probe_bits.val() & self.select_mask.val());
            self.probe.next = self.w2_entry.q.val();
            self.probe_bits.next = self.probe.val().into();
            self.select_mask.next = 0.into();
            if self.sel_w2.val() {
                self.select_mask.next = self.all_ones.val();
            }
            self.select_bits.next =
                self.select_bits.val() | (self.probe_bits.val() & self.select_mask.val());
            self.probe.next = self.w3_entry.q.val();
            self.probe_bits.next = self.probe.val().into();
            self.select_mask.next = 0.into();
            if self.sel_w3.val() {
                self.select_mask.next = self.all_ones.val();
            }
            self.select_bits.next =
                self.select_bits.val() | (self.probe_bits.val() & self.select_mask.val());
            for s in 0..STASH {
                self.probe.next = self.stash[s].q.val();
                self.probe_bits.next = self.probe.val().into();
                self.select_mask.next = 0.into();
                if self.sel_stash.val().get_bit(s) {
                    self.select_mask.next = self.all_ones.val();
                    self.hit_slot.next = self.hit_slot.val() | self.slot_number[s].val();
                }
                self.select_bits.next =
                    self.select_bits.val() | (self.probe_bits.val() & self.select_mask.val());
                if !self.free_stash_found.val() & !self.probe.val().valid {
                    self.free_stash_found.next = true;
                    self.free_stash.next = self.slot_number[s].val();
                }
            }
        }
        self.free_way_found.next = self.best_load.val() < 4;
        self.hit_entry.next = self.select_bits.val().into();
        self.hit.next = self.sel_way.val().any() | self.sel_stash.val().any();
        self.hit_in_stash.next = self.sel_stash.val().any();
        if self.locate.val() {
            self.hit.next = self.hit_entry.val().valid;
            self.hit_in_stash.next = self.dec.q.val().in_stash;
            self.hit_slot.next = self.dec.q.val().slot;
        }
        // The response's bucket: the way's selected, else the candidate an
        // insert takes; ReadLocation's bucket as asked.
        self.bank_sel.next = self.best_bank.val();
        if self.bank_hit.val().any() {
            self.bank_sel.next = self.bank_hit.val();
        }
        if self.locate.val() {
            for b in 0..8 {
                self.bank_sel.next = self
                    .bank_sel
                    .val()
                    .replace_bit(b, self.dec.q.val().bank == self.bank_number[b].val());
            }
        }
        self.resp_bucket_sel.next = 0.into();
        for b in 0..8 {
            if self.bank_sel.val().get_bit(b) {
                self.resp_bucket_sel.next = self.resp_bucket_sel.val() | self.dec_cand[b].q.val();
            }
        }

        // Age's stash slot: staleness from C unless the op ahead wrote it.
        self.stash_stale.next = self.dec_stash_stale.q.val();
        if self.w1_stash_write.q.val() & (self.w1_stash_slot.q.val() == self.dec.q.val().slot) {
            self.stash_stale.next = self.w1_stale.val();
        }
        self.stash_expired.next = self.age_op.val()
            & self.hit_entry.val().valid
            & !self.hit_entry.val().pinned
            & self.stash_stale.val();
        self.aged_now.next = self.aged_ways.val();
        self.aged_learned_now.next = self.aged_ways_learned.val();
        if self.stash_expired.val() {
            self.aged_now.next = self.aged_ways.val() + 1;
            if self.hit_entry.val().sqp_valid {
                self.aged_learned_now.next = self.aged_ways_learned.val() + 1;
            }
        }

        // The operation.
        self.window_sum.next = bit_cast::<33, 32>(self.hit_entry.val().window_bytes)
            + bit_cast::<33, 16>(self.dec.q.val().bytes);
        // A flow's first packet in a new window: its last complete window
        // (the entry's, if that was the window just before) and the one
        // before; fell = last * 8 < before * 7.
        self.last_window.next = 0.into();
        self.before_window.next = 0.into();
        // (8-bit sums in their own signals: Verilog would widen them.)
        self.epoch_next.next = self.hit_entry.val().window_epoch + 1;
        self.epoch_after.next = self.hit_entry.val().window_epoch + 2;
        if self.epoch_next.val() == self.dec.q.val().epoch {
            self.last_window.next = self.hit_entry.val().window_bytes;
            self.before_window.next = self.hit_entry.val().prev_bytes;
        }
        if self.epoch_after.val() == self.dec.q.val().epoch {
            self.before_window.next = self.hit_entry.val().window_bytes;
        }
        self.fell_lhs.next = bit_cast::<36, 32>(self.last_window.val()) << 3;
        self.fell_rhs.next = (bit_cast::<36, 32>(self.before_window.val()) << 3)
            - bit_cast::<36, 32>(self.before_window.val());
        self.new_entry.next = self.hit_entry.val();
        self.write_entry.next = self.empty_entry.val();
        self.result_entry.next = self.hit_entry.val();
        self.way_write.next = 0.into();
        self.stash_write.next = false;
        self.stash_write_slot.next = self.hit_slot.val();
        self.loc_in_stash.next = self.hit_in_stash.val();
        self.loc_slot.next = self.hit_slot.val();
        self.inserted.next = false;
        self.failed.next = false;
        self.removed.next = false;
        self.became_learned.next = false;
        self.op_update.next = self.dec.q.val().valid
            & ((self.dec.q.val().op == 1)
                | (self.dec.q.val().op == 2)
                | (self.dec.q.val().op == 3));
        if self.op_update.val() {
            if self.hit.val() {
                self.new_entry.next.last_seen = self.dec.q.val().now;
                if self.dec.q.val().op == 1 {
                    if self.hit_entry.val().window_epoch == self.dec.q.val().epoch {
                        self.new_entry.next.window_bytes =
                            bit_cast::<32, 33>(self.window_sum.val());
                        if self.window_sum.val().get_bit(32) {
                            self.new_entry.next.window_bytes = 0xffff_ffff_u64.into();
                        }
                    } else {
                        self.new_entry.next.window_bytes =
                            bit_cast::<32, 16>(self.dec.q.val().bytes);
                        self.new_entry.next.window_epoch = self.dec.q.val().epoch;
                        self.new_entry.next.prev_bytes = self.last_window.val();
                        self.new_entry.next.notify_state = 0.into();
                        if self.fell_lhs.val() < self.fell_rhs.val() {
                            self.new_entry.next.notify_state = 1.into();
                        }
                    }
                }
                if (self.dec.q.val().op == 2)
                    & !self.hit_entry.val().pinned
                    & !(self.dec.q.val().fill & self.hit_entry.val().sqp_valid)
                {
                    self.new_entry.next.sqp = self.dec.q.val().sqp;
                    self.new_entry.next.sqp_valid = true;
                }
                if self.dec.q.val().op == 3 {
                    self.new_entry.next.sqp = self.dec.q.val().sqp;
                    self.new_entry.next.sqp_valid = true;
                    self.new_entry.next.pinned = true;
                }
                self.became_learned.next =
                    (self.dec.q.val().op != 1) & !self.hit_entry.val().sqp_valid;
                if self.hit_in_stash.val() {
                    self.stash_write.next = true;
                } else {
                    self.way_write.next = self.sel_way.val();
                }
            } else {
                self.new_entry.next = self.empty_entry.val();
                self.new_entry.next.valid = true;
                self.new_entry.next.key = self.dec.q.val().key;
                self.new_entry.next.last_seen = self.dec.q.val().now;
                self.new_entry.next.window_epoch = self.dec.q.val().epoch;
                if self.dec.q.val().op == 1 {
                    self.new_entry.next.window_bytes = bit_cast::<32, 16>(self.dec.q.val().bytes);
                } else {
                    self.new_entry.next.sqp = self.dec.q.val().sqp;
                    self.new_entry.next.sqp_valid = true;
                    self.new_entry.next.pinned = self.dec.q.val().op == 3;
                }
                if self.free_way_found.val() {
                    self.inserted.next = true;
                    self.loc_slot.next = self.free_way.val();
                    for b in 0..8 {
                        for w in 0..4 {
                            self.way_write.next = self.way_write.val().replace_bit(
                                b * 4 + w,
                                self.best_bank.val().get_bit(b)
                                    & (self.free_way.val().index() == w),
                            );
                        }
                    }
                } else if self.free_stash_found.val() {
                    self.inserted.next = true;
                    self.loc_in_stash.next = true;
                    self.loc_slot.next = self.free_stash.val();
                    self.stash_write.next = true;
                    self.stash_write_slot.next = self.free_stash.val();
                } else {
                    self.failed.next = true;
                }
                self.became_learned.next = self.inserted.val() & (self.dec.q.val().op != 1);
            }
            self.write_entry.next = self.new_entry.val();
            self.result_entry.next = self.new_entry.val();
            if self.failed.val() {
                self.result_entry.next = self.empty_entry.val();
            }
        }
        if self.dec.q.val().valid & (self.dec.q.val().op == 4) & self.hit.val() {
            // Delete: the response keeps the removed entry.
            self.removed.next = true;
            if self.hit_in_stash.val() {
                self.stash_write.next = true;
            } else {
                self.way_write.next = self.sel_way.val();
            }
        }
        if self.age_op.val() {
            // Age: the index's expired ways (all banks) and the scanned stash slot.
            self.way_write.next = self.expired_way.val();
            self.stash_write.next = self.stash_expired.val();
            self.stash_write_slot.next = self.dec.q.val().slot;
        }
        if self.dec.q.val().valid & (self.dec.q.val().op == 7) {
            self.way_write.next = 0xffff_ffff_u64.into();
        }

        // Write back: the ways' RAMs, the stash, the history.
        for b in 0..8 {
            for w in 0..4 {
                self.ways[b * 4 + w].write_address.next =
                    self.dec_cand[b].q.val().get_bits::<INDEX_BITS>(0);
                self.ways[b * 4 + w].write_data.next = self.write_entry.val();
                self.ways[b * 4 + w].write_enable.next =
                    self.way_write.val().get_bit(b * 4 + w) & !self.reset.val();
            }
            self.w1_cand[b].d.next = self.dec_cand[b].q.val();
            self.w2_cand[b].d.next = self.w1_cand[b].q.val();
        }
        for s in 0..STASH {
            if self.stash_write.val() & (self.stash_write_slot.val().index() == s) {
                self.stash[s].d.next = self.write_entry.val();
            }
        }
        self.w1_mask.d.next = self.way_write.val();
        self.w1_entry.d.next = self.write_entry.val();
        self.w1_stash_write.d.next = self.stash_write.val();
        self.w1_stash_slot.d.next = self.stash_write_slot.val();
        self.w2_mask.d.next = self.w1_mask.q.val();
        self.w2_entry.d.next = self.w1_entry.q.val();
        self.w3_entry.d.next = self.w2_entry.q.val();

        // Response.
        self.r_valid.d.next = self.dec.q.val().valid & self.dec.q.val().reply;
        self.r_dropped.d.next = self.dec.q.val().op.get_bit(1) & self.dec.q.val().op.get_bit(2);
        self.r_hit.d.next = self.hit.val();
        self.r_inserted.d.next = self.inserted.val();
        self.r_failed.d.next = self.failed.val();
        self.r_in_stash.d.next = self.loc_in_stash.val();
        self.r_bucket.d.next = self.resp_bucket_sel.val();
        self.r_slot.d.next = self.loc_slot.val();
        self.r_entry.d.next = self.result_entry.val();

        // Counters, one clock later from registered increments (keeps the
        // adders off the decide stage's path).
        self.cnt_clear.d.next = self.dec.q.val().clear;
        self.cnt_inserted.d.next = self.inserted.val();
        self.cnt_removed.d.next = self.removed.val();
        self.cnt_removed_learned.d.next = self.removed.val() & self.hit_entry.val().sqp_valid;
        self.cnt_became_learned.d.next = self.became_learned.val();
        self.cnt_failed.d.next = self.failed.val();
        self.cnt_unlearned.d.next = self.dec.q.val().valid
            & (self.dec.q.val().op == 1)
            & !(self.hit.val() & self.hit_entry.val().sqp_valid);
        self.cnt_aged.d.next = self.aged_now.val();
        self.cnt_aged_learned.d.next = self.aged_learned_now.val();
        self.occupancy_next.next =
            self.occupancy_count.q.val() - bit_cast::<32, 6>(self.cnt_aged.q.val());
        self.learned_next.next =
            self.learned_count.q.val() - bit_cast::<32, 6>(self.cnt_aged_learned.q.val());
        if self.cnt_inserted.q.val() {
            self.occupancy_next.next = self.occupancy_next.val() + 1;
        }
        if self.cnt_removed.q.val() {
            self.occupancy_next.next = self.occupancy_next.val() - 1;
        }
        if self.cnt_removed_learned.q.val() {
            self.learned_next.next = self.learned_next.val() - 1;
        }
        if self.cnt_became_learned.q.val() {
            self.learned_next.next = self.learned_next.val() + 1;
        }
        self.occupancy_count.d.next = self.occupancy_next.val();
        self.learned_count.d.next = self.learned_next.val();
        self.aged_base.next = self.aged_count.q.val();
        self.failure_base.next = self.insert_failure_count.q.val();
        self.unlearned_base.next = self.unlearned_lookup_count.q.val();
        if self.cnt_clear.q.val() {
            self.aged_base.next = 0.into();
            self.failure_base.next = 0.into();
            self.unlearned_base.next = 0.into();
        }
        self.aged_count.d.next = self.aged_base.val() + bit_cast::<32, 6>(self.cnt_aged.q.val());
        self.insert_failure_count.d.next = self.failure_base.val();
        if self.cnt_failed.q.val() {
            self.insert_failure_count.d.next = self.failure_base.val() + 1;
        }
        self.unlearned_lookup_count.d.next = self.unlearned_base.val();
        if self.cnt_unlearned.q.val() {
            self.unlearned_lookup_count.d.next = self.unlearned_base.val() + 1;
        }

        // Reset: drop what is in flight, then flush the RAM.
        if self.reset.val() {
            self.s1.d.next = self.idle_stage.val();
            self.s2.d.next = self.idle_stage.val();
            self.cmp.d.next = self.idle_stage.val();
            self.dec.d.next = self.idle_stage.val();
            self.w1_mask.d.next = 0.into();
            self.w1_stash_write.d.next = false;
            self.w2_mask.d.next = 0.into();
            self.r_valid.d.next = false;
            self.cnt_clear.d.next = false;
            self.cnt_inserted.d.next = false;
            self.cnt_removed.d.next = false;
            self.cnt_removed_learned.d.next = false;
            self.cnt_became_learned.d.next = false;
            self.cnt_failed.d.next = false;
            self.cnt_unlearned.d.next = false;
            self.cnt_aged.d.next = 0.into();
            self.cnt_aged_learned.d.next = 0.into();
            for s in 0..STASH {
                self.stash[s].d.next = self.empty_entry.val();
            }
            self.flushing.d.next = true;
            self.scan_index.d.next = 0.into();
            self.scan_slot.d.next = 0.into();
            self.occupancy_count.d.next = 0.into();
            self.learned_count.d.next = 0.into();
            self.aged_count.d.next = 0.into();
            self.insert_failure_count.d.next = 0.into();
            self.unlearned_lookup_count.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::flow_entry::{ipv4_mapped, u128_to_bits, FlowKey, FlowRecord};
    use crate::flow::flow_hash::flow_candidates;
    use crate::flow::flow_table_model::{
        FlowCounters, FlowCycle, FlowRequest, FlowResponse, FlowTableModel,
    };
    use std::collections::BTreeSet;
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    /// Test size: 16 buckets (8 banks of 2) x 4 ways + 4 stash slots (68
    /// entries), small enough for rust-hdl's simulator.
    const B: usize = 4;
    const I: usize = 1;
    const S: usize = 4;
    type TestTable = FlowTable<B, I, S>;
    /// Ways of a key's candidate buckets.
    const CAND_WAYS: usize = BANKS * WAYS;

    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn percent(&mut self, p: u64) -> bool {
            self.below(100) < p
        }
    }

    fn key(n: u32) -> FlowKey {
        FlowKey {
            sip: 0x2001_0db8_0000_0000_0000_0000_0000_0000 | n as u128,
            dip: ipv4_mapped([10, 0, (n >> 8) as u8, n as u8]),
            dqp: (n * 7 + 200) & 0xff_ffff,
        }
    }

    /// `count` distinct keys with the same 8 candidate buckets (of 2^B).
    fn keys_sharing(count: usize, salt: u32) -> Vec<FlowKey> {
        keys_sharing_of(B, count, salt)
    }

    fn keys_sharing_of(bits: usize, count: usize, salt: u32) -> Vec<FlowKey> {
        key(salt << 16).with_same_candidates(bits, count, false)
    }

    /// The model's responses to `cycles` (to aim later requests of a test
    /// at places the model chose).
    fn model_responses(cycles: &[FlowCycle]) -> Vec<Option<FlowResponse>> {
        let mut model = FlowTableModel::new(B, S);
        cycles.iter().map(|c| model.cycle(c)).collect()
    }

    fn op(op: FlowOp, key: FlowKey) -> Option<FlowRequest> {
        Some(FlowRequest::keyed(op, key))
    }

    fn update(key: FlowKey, bytes: u16) -> Option<FlowRequest> {
        Some(FlowRequest {
            bytes,
            ..FlowRequest::keyed(FlowOp::LookupUpdate, key)
        })
    }

    fn with_sqp(op: FlowOp, key: FlowKey, sqp: u32) -> Option<FlowRequest> {
        Some(FlowRequest {
            sqp,
            ..FlowRequest::keyed(op, key)
        })
    }

    fn at(now: u32, request: Option<FlowRequest>) -> FlowCycle {
        FlowCycle {
            request,
            now,
            ..Default::default()
        }
    }

    fn drive(x: &mut TestTable, c: &FlowCycle) {
        x.reset.next = c.reset;
        x.now.next = (c.now as u64).to_bits();
        x.window_epoch.next = (c.window_epoch as u64).to_bits();
        x.aging_enable.next = c.aging_enable;
        x.age_timeout.next = (c.age_timeout as u64).to_bits();
        x.clear_counters.next = c.clear_counters;
        x.req_valid.next = c.request.is_some();
        let r = c
            .request
            .unwrap_or_else(|| FlowRequest::keyed(FlowOp::Lookup, FlowKey::default()));
        x.req_op.next = r.op.code().to_bits();
        x.req_sip.next = u128_to_bits::<128>(r.key.sip);
        x.req_dip.next = u128_to_bits::<128>(r.key.dip);
        x.req_dqp.next = (r.key.dqp as u64).to_bits();
        x.req_sqp.next = (r.sqp as u64 & 0xff_ffff).to_bits();
        x.req_bytes.next = (r.bytes as u64).to_bits();
        x.req_bucket.next = (r.bucket as u64 & 0xf).to_bits();
        x.req_slot.next = (r.slot as u64 & 0xf).to_bits();
        x.req_in_stash.next = r.in_stash;
        x.req_fill.next = r.fill;
    }

    fn response(x: &TestTable) -> Option<FlowResponse> {
        x.resp_valid.val().then(|| FlowResponse {
            dropped: x.resp_dropped.val(),
            hit: x.resp_hit.val(),
            inserted: x.resp_inserted.val(),
            failed: x.resp_failed.val(),
            in_stash: x.resp_in_stash.val(),
            bucket: x.resp_bucket.val().to_u32(),
            slot: x.resp_slot.val().to_u32() as u8,
            entry: FlowRecord::from_entry(&x.resp_entry.val()),
        })
    }

    fn counters(x: &TestTable) -> FlowCounters {
        FlowCounters {
            occupancy: x.occupancy.val().to_u32(),
            learned: x.learned.val().to_u32(),
            aged: x.aged.val().to_u32(),
            insert_failures: x.insert_failures.val().to_u32(),
            lookups_without_sqp: x.lookups_without_sqp.val().to_u32(),
        }
    }

    fn compare(got: Option<FlowResponse>, want: Option<FlowResponse>) -> Result<(), String> {
        let same = match (got, want) {
            (None, None) => true,
            // A dropped request's other fields carry no meaning.
            (Some(g), Some(w)) if w.dropped => g.dropped,
            (Some(g), Some(w)) => g == w,
            _ => false,
        };
        if same {
            Ok(())
        } else {
            Err(format!("response\n  rtl   {got:?}\n  model {want:?}"))
        }
    }

    /// What a run leaves for directed checks: the model's response to the
    /// request of each clock (the RTL's was identical) and the model.
    struct Run {
        responses: Vec<Option<FlowResponse>>,
        model: FlowTableModel,
    }

    impl Run {
        fn at(&self, clock: usize) -> FlowResponse {
            self.responses[clock].unwrap_or_else(|| panic!("no request in clock {clock}"))
        }
    }

    /// Runs `cycles` (then idle clocks until the last response is out)
    /// through the RTL in rust-hdl's simulator and through the model, and
    /// compares every response and the counters on every clock.
    fn run(name: &str, mut cycles: Vec<FlowCycle>) -> Run {
        let last = cycles.last().copied().unwrap_or_default();
        for _ in 0..6 {
            cycles.push(FlowCycle {
                now: last.now,
                window_epoch: last.window_epoch,
                ..Default::default()
            });
        }
        let mut model = FlowTableModel::new(B, S);
        let mut responses = Vec::new();
        let mut after = Vec::new();
        for c in &cycles {
            responses.push(model.cycle(c));
            after.push(model.counters());
        }
        let n = cycles.len();
        let failure: Arc<Mutex<Option<String>>> = Arc::default();
        let report = failure.clone();
        let want_responses = responses.clone();
        let label = name.to_string();
        let mut uut = TestTable::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<TestTable>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<TestTable>| {
            let mut x = sim.init()?;
            for j in 0..n {
                drive(&mut x, &cycles[j]);
                wait_clock_cycle!(sim, clock, x);
                // After clock edge j the outputs show the response to the
                // request of clock j-4 and counters including clock j-5.
                let want = j.checked_sub(4).and_then(|i| want_responses[i]);
                let want_counters = j.checked_sub(5).map(|i| after[i]).unwrap_or_default();
                let mut check = compare(response(&x), want);
                // A reset zeroes the counters at once, the model 5 clocks on.
                let resetting = (j.saturating_sub(4)..=j).any(|k| cycles[k].reset);
                if check.is_ok() && !resetting && counters(&x) != want_counters {
                    check = Err(format!(
                        "counters\n  rtl   {:?}\n  model {want_counters:?}",
                        counters(&x)
                    ));
                }
                if let Err(msg) = check {
                    *report.lock().unwrap() = Some(format!(
                        "{label}: clock {} ({:?}): {msg}",
                        j as i64 - 4,
                        cycles.get(j.wrapping_sub(4)).and_then(|c| c.request)
                    ));
                    return sim.halt(x);
                }
            }
            sim.done(x)
        });
        let start = Instant::now();
        let result = sim.run(Box::new(uut), 10 * n as u64 + 20);
        let seconds = start.elapsed().as_secs_f64();
        if let Some(msg) = failure.lock().unwrap().take() {
            panic!("{msg}");
        }
        result.unwrap();
        println!(
            "{name}: {n} clocks in {seconds:.2} s ({:.0} clocks/s), {} requests checked",
            n as f64 / seconds,
            responses.iter().flatten().count()
        );
        Run { responses, model }
    }

    #[test]
    fn lh_01_same_flow_every_clock_accumulates() {
        let k = key(1);
        let mut cycles: Vec<FlowCycle> = (0..40u32)
            .map(|i| at(i, update(k, 100 + i as u16)))
            .collect();
        cycles[10].request = with_sqp(FlowOp::LearnSqp, k, 100);
        // A new window from clock 30 on.
        for c in &mut cycles[30..] {
            c.window_epoch = 1;
        }
        let r = run("same_flow_every_clock", cycles);
        assert!(r.at(0).inserted && !r.at(0).entry.sqp_valid);
        assert!((1..40).all(|i| r.at(i).hit));
        let bytes =
            |range: std::ops::Range<u32>| range.filter(|&i| i != 10).map(|i| 100 + i).sum::<u32>();
        assert_eq!(r.at(29).entry.window_bytes, bytes(0..30));
        assert_eq!(r.at(39).entry.window_bytes, bytes(30..40));
        assert!(r.at(11).entry.sqp_valid && r.at(11).entry.sqp == 100);
        assert_eq!(r.at(39).entry.last_seen, 39);
        let c = r.model.counters();
        assert_eq!((c.occupancy, c.learned, c.lookups_without_sqp), (1, 1, 10));
    }

    /// LH-10: a flow's first packet of a new window keeps the window before
    /// (`prev_bytes`) and flags a fall below 7/8 of the window before that
    /// (`notify_state` bit 0); a skipped window counts as empty; the epoch
    /// wraps at 256.
    #[test]
    fn lh_10_previous_window_and_fall_flag() {
        let k = key(3);
        // (epoch, bytes) per clock: windows 254, 255, 0 (wrapped), then 2.
        let plan: Vec<(u8, u16)> = [
            vec![(254u8, 1000u16); 8],
            vec![(255, 1000); 8],
            vec![(0, 1000); 6],
            vec![(0, 10); 1],
            vec![(2, 500); 3],
            vec![(3, 500); 2],
        ]
        .concat();
        let cycles: Vec<FlowCycle> = plan
            .iter()
            .enumerate()
            .map(|(i, &(e, b))| FlowCycle {
                window_epoch: e,
                ..at(i as u32, update(k, b))
            })
            .collect();
        let r = run("previous_window_and_fall_flag", cycles);
        // Window 255: the one before held 8000 bytes; no fall yet (nothing before).
        assert_eq!(
            (r.at(8).entry.prev_bytes, r.at(8).entry.notify_state),
            (8000, 0)
        );
        // Window 0 (after the wrap): 8000 then 8000: not a fall.
        assert_eq!(
            (r.at(16).entry.prev_bytes, r.at(16).entry.notify_state),
            (8000, 0)
        );
        assert_eq!(r.at(22).entry.window_bytes, 6010);
        // Window 2 (window 1 skipped): last = 0 < 7/8 of window 0's 6010.
        assert_eq!(
            (r.at(23).entry.prev_bytes, r.at(23).entry.notify_state),
            (0, 1)
        );
        // The flag holds within the window ...
        assert_eq!(r.at(25).entry.notify_state, 1);
        // ... and window 3 compares 1500 with the empty window 1: no fall.
        assert_eq!(
            (r.at(26).entry.prev_bytes, r.at(26).entry.notify_state),
            (1500, 0)
        );
    }

    /// Two flows with the same candidates, alternating: the first takes
    /// bank 0's candidate, the second the then least loaded, bank 1's.
    #[test]
    fn lh_01_alternating_flows_in_one_bucket() {
        let k = keys_sharing(2, 1);
        let c = flow_candidates(&k[0], B);
        let mut cycles: Vec<FlowCycle> = (0..60u32)
            .map(|i| at(i, update(k[i as usize % 2], 64)))
            .collect();
        cycles[7].request = with_sqp(FlowOp::LearnSqp, k[1], 0x3b);
        cycles[30].request = op(FlowOp::Delete, k[0]);
        let r = run("alternating_flows_in_one_bucket", cycles);
        assert_eq!(
            (r.at(0).inserted, r.at(0).bucket, r.at(0).slot),
            (true, c[0], 0)
        );
        assert_eq!(
            (r.at(1).inserted, r.at(1).bucket, r.at(1).slot),
            (true, c[1], 0)
        );
        assert!((2..30).all(|i| r.at(i).hit && r.at(i).bucket == c[i % 2]));
        assert!(r.at(9).entry.sqp_valid && r.at(9).entry.sqp == 0x3b);
        assert!(r.at(30).hit, "delete finds the flow");
        // Clock 32 re-inserts k[0] into the way the delete freed (bank 0's
        // candidate is again among the least loaded).
        assert_eq!(
            (r.at(32).inserted, r.at(32).bucket, r.at(32).slot),
            (true, c[0], 0)
        );
        assert_eq!(r.at(32).entry.window_bytes, 64);
        assert_eq!(r.model.counters().occupancy, 2);
    }

    /// A write followed by a dependent request 1..6 clocks later (every
    /// forwarding distance, and the first one served by the RAM), then
    /// back-to-back dependent requests on the same candidates.
    #[test]
    fn lh_01_insert_then_lookup_at_every_distance() {
        let mut cycles = Vec::new();
        let mut checks = Vec::new();
        for gap in 1..=6u32 {
            let k = keys_sharing(3, 20 + gap);
            let t = cycles.len();
            let now = t as u32;
            cycles.push(at(now, with_sqp(FlowOp::InsertStatic, k[0], 0x100 + gap)));
            for _ in 1..gap {
                cycles.push(at(now, None));
            }
            let lookup = cycles.len();
            cycles.push(at(now, op(FlowOp::Lookup, k[0])));
            cycles.push(at(now, with_sqp(FlowOp::LearnSqp, k[1], 0x200)));
            cycles.push(at(now, op(FlowOp::Delete, k[0])));
            cycles.push(at(now, op(FlowOp::Lookup, k[0])));
            cycles.push(at(now, update(k[2], 1500)));
            // Aimed below at where k[2] went.
            cycles.push(at(now, Some(FlowRequest::read_location(0, 0, false))));
            cycles.push(at(now, update(k[1], 100)));
            for _ in 0..gap {
                cycles.push(at(now, None));
            }
            let placed = model_responses(&cycles)[lookup + 4].unwrap();
            cycles[lookup + 5].request = Some(FlowRequest::read_location(
                placed.bucket,
                placed.slot,
                placed.in_stash,
            ));
            checks.push((gap, t, lookup, k));
        }
        let r = run("insert_then_lookup_at_every_distance", cycles);
        for (gap, t, l, k) in checks {
            let ins = r.at(t);
            assert!(
                ins.inserted && ins.entry.pinned && !ins.in_stash,
                "gap {gap}"
            );
            let hit = r.at(l);
            assert!(
                hit.hit
                    && hit.entry.sqp == 0x100 + gap
                    && (hit.bucket, hit.slot) == (ins.bucket, ins.slot),
                "gap {gap}"
            );
            // k[1] goes to another candidate: k[0]'s is the more loaded.
            assert!(
                r.at(l + 1).inserted && r.at(l + 1).bucket != ins.bucket,
                "gap {gap}"
            );
            assert!(r.at(l + 2).hit && !r.at(l + 3).hit, "gap {gap}");
            assert!(r.at(l + 4).inserted, "gap {gap}");
            assert_eq!(r.at(l + 5).entry.key, k[2], "gap {gap}");
            assert!(
                r.at(l + 6).hit && r.at(l + 6).entry.sqp == 0x200,
                "gap {gap}"
            );
        }
    }

    /// Keys sharing their 8 candidates fill the candidates' 32 ways (round
    /// robin over the banks), then the stash, then fail.
    #[test]
    fn lh_01_full_bucket_spills_to_stash_then_fails() {
        let k = keys_sharing(CAND_WAYS + S + 2, 3);
        let c = flow_candidates(&k[0], B);
        let other: Vec<FlowKey> = (0..5).map(|i| key(900 + i)).collect();
        let mut cycles: Vec<FlowCycle> = k.iter().map(|&k| at(0, update(k, 64))).collect();
        cycles.extend(k.iter().map(|&k| at(1, op(FlowOp::Lookup, k))));
        let deletes = cycles.len();
        cycles.push(at(2, op(FlowOp::Delete, k[1])));
        cycles.push(at(2, op(FlowOp::Delete, k[CAND_WAYS])));
        let refill = cycles.len();
        cycles.push(at(3, update(k[CAND_WAYS + S], 64)));
        cycles.push(at(3, update(k[CAND_WAYS + S + 1], 64)));
        cycles.extend(
            other
                .iter()
                .map(|&k| at(4, with_sqp(FlowOp::LearnSqp, k, 9))),
        );
        let r = run("full_bucket_spills_to_stash_then_fails", cycles);
        for (i, _) in k.iter().enumerate() {
            let (ins, look) = (r.at(i), r.at(k.len() + i));
            if i < CAND_WAYS {
                assert_eq!(
                    (ins.inserted, ins.in_stash, ins.bucket, ins.slot),
                    (true, false, c[i % BANKS], (i / BANKS) as u8)
                );
            } else if i < CAND_WAYS + S {
                let slot = (i - CAND_WAYS) as u8;
                assert_eq!((ins.inserted, ins.in_stash, ins.slot), (true, true, slot));
            } else {
                assert!(ins.failed && !look.hit);
                continue;
            }
            assert!(
                look.hit
                    && look.in_stash == ins.in_stash
                    && look.slot == ins.slot
                    && (look.in_stash || look.bucket == ins.bucket)
            );
        }
        assert!(r.at(deletes).hit && r.at(deletes + 1).hit);
        // The freed way takes the next flow of the candidates ...
        let refilled = r.at(refill);
        assert_eq!(
            (refilled.in_stash, refilled.bucket, refilled.slot),
            (false, c[1], 0)
        );
        // ... and the freed stash slot 0 the one after.
        let spill = r.at(refill + 1);
        assert_eq!(
            (spill.inserted, spill.in_stash, spill.slot),
            (true, true, 0)
        );
        let c = r.model.counters();
        assert_eq!(
            (c.insert_failures, c.occupancy, c.learned),
            // 32 ways + S stash, 2 deleted, 2 refilled; the other 5.
            (2, (CAND_WAYS + S + 5) as u32, 5)
        );
    }

    /// Stash entries written and used on consecutive clocks.
    #[test]
    fn lh_01_stash_entry_back_to_back() {
        let k = keys_sharing(CAND_WAYS + 2, 6);
        let (x, y) = (k[CAND_WAYS], k[CAND_WAYS + 1]);
        let mut cycles: Vec<FlowCycle> = k[..CAND_WAYS]
            .iter()
            .map(|&k| at(0, update(k, 64)))
            .collect();
        let first = cycles.len();
        cycles.extend([
            at(1, update(x, 100)),
            at(2, update(x, 200)),
            at(3, with_sqp(FlowOp::LearnSqp, x, 0x3c)),
            at(4, op(FlowOp::Delete, x)),
            at(5, op(FlowOp::Lookup, x)),
            at(6, update(y, 64)),
            at(7, update(x, 64)),
            at(8, op(FlowOp::Lookup, y)),
        ]);
        let r = run("stash_entry_back_to_back", cycles);
        let f = first;
        assert_eq!((r.at(f).in_stash, r.at(f).slot), (true, 0));
        assert!(r.at(f + 1).hit && r.at(f + 1).entry.window_bytes == 300);
        assert!(r.at(f + 2).entry.sqp_valid && r.at(f + 3).hit && !r.at(f + 4).hit);
        assert_eq!((r.at(f + 5).in_stash, r.at(f + 5).slot), (true, 0));
        assert_eq!((r.at(f + 6).in_stash, r.at(f + 6).slot), (true, 1));
        assert!(r.at(f + 7).hit && r.at(f + 7).in_stash);
    }

    #[test]
    fn lh_01_aging_removes_idle_unpinned_entries() {
        let timeout = 100;
        let pinned = key(10);
        let learned = key(11);
        let unlearned = key(12);
        let keep_alive = key(13);
        let spill = keys_sharing(CAND_WAYS + 2, 5);
        let mut cycles = vec![
            at(0, with_sqp(FlowOp::InsertStatic, pinned, 1)),
            at(0, with_sqp(FlowOp::LearnSqp, learned, 2)),
            at(0, update(unlearned, 64)),
        ];
        cycles.extend(spill.iter().map(|&k| at(0, update(k, 64))));
        for t in 1..700u32 {
            let request = (t % 40 == 0).then(|| update(keep_alive, 64)).flatten();
            cycles.push(FlowCycle {
                request,
                now: t,
                aging_enable: true,
                age_timeout: timeout,
                ..Default::default()
            });
        }
        let r = run("aging_removes_idle_unpinned_entries", cycles);
        let left: BTreeSet<FlowKey> = r.model.entries().iter().map(|e| e.3.key).collect();
        assert_eq!(left, BTreeSet::from([pinned, keep_alive]));
        let c = r.model.counters();
        // learned, unlearned and the 34 spilled flows (2 in the stash).
        assert_eq!(
            (c.aged, c.occupancy, c.learned),
            (CAND_WAYS as u32 + 4, 2, 1)
        );
    }

    /// Age ops 1..5 clocks after a write to an index they scan, with a
    /// zero timeout: the just-written entry is one tick old and expires.
    /// (Age op d scans index (d - 1) mod 2 of every bank; the flow written
    /// before it has all 8 candidates at that index. The writes between
    /// are pinned flows, which never age.)
    #[test]
    fn lh_01_aging_right_after_a_write() {
        let others: Vec<FlowKey> = (0..4).map(|i| key(700 + i)).collect();
        let mut cycles = Vec::new();
        let mut now = 0;
        for distance in 1..=5u32 {
            let index = (distance - 1) % 2;
            let k = ((8 << 16) + 100 * distance..)
                .map(key)
                .find(|k| flow_candidates(k, B).iter().all(|c| c & 1 == index))
                .unwrap();
            cycles.push(at(now, update(k, 64)));
            for i in 1..distance {
                now += 1;
                cycles.push(at(
                    now,
                    with_sqp(FlowOp::InsertStatic, others[i as usize - 1], i),
                ));
            }
            now += 1;
            cycles.push(FlowCycle {
                now,
                aging_enable: true,
                ..Default::default()
            });
            now += 1;
        }
        let r = run("aging_right_after_a_write", cycles);
        let c = r.model.counters();
        assert_eq!((c.aged, c.occupancy), (5, 4));
    }

    #[test]
    fn lh_01_reset_flushes_the_table() {
        let mut cycles: Vec<FlowCycle> = (0..8).map(|i| at(0, update(key(i), 64))).collect();
        cycles.extend((0..5).map(|_| at(0, None)));
        cycles.push(FlowCycle {
            reset: true,
            ..at(0, update(key(0), 64))
        });
        let flush = cycles.len();
        // The flush takes 2^I clocks (one index of every bank per clock).
        cycles.extend((0..(1 << I) + 4).map(|i| at(1, op(FlowOp::Lookup, key(i % 8)))));
        let r = run("reset_flushes_the_table", cycles);
        assert!(r.at(flush).dropped && r.at(flush + (1 << I) - 1).dropped);
        assert!(!r.at(flush + (1 << I)).dropped && !r.at(flush + (1 << I)).hit);
        assert_eq!(r.model.counters(), FlowCounters::default());
    }

    #[test]
    fn lh_01_read_location_iterates_every_entry() {
        let mut rng = XorShift(0x0dd_f00d);
        let mut cycles: Vec<FlowCycle> = (0..90)
            .map(|_| at(0, update(key(rng.below(1 << 20) as u32), 64)))
            .collect();
        let start = cycles.len();
        for bucket in 0..1u32 << B {
            for way in 0..WAYS as u8 {
                cycles.push(at(1, Some(FlowRequest::read_location(bucket, way, false))));
            }
        }
        for slot in 0..S as u8 {
            cycles.push(at(1, Some(FlowRequest::read_location(0, slot, true))));
        }
        let r = run("read_location_iterates_every_entry", cycles);
        let read: BTreeSet<FlowKey> = r.responses[start..]
            .iter()
            .flatten()
            .filter(|x| x.hit)
            .map(|x| x.entry.key)
            .collect();
        let stored: BTreeSet<FlowKey> = r.model.entries().iter().map(|e| e.3.key).collect();
        assert_eq!(read, stored);
        assert!(
            r.model.counters().insert_failures > 0,
            "the table overflowed"
        );
    }

    /// Random operations on flows crowded into a few buckets, random idle
    /// clocks with aging, window changes, counter clears and one reset.
    fn random_cycles(seed: u64, clocks: usize, bits: usize) -> Vec<FlowCycle> {
        let mut rng = XorShift(seed);
        // A crowd of keys sharing their candidates (more than their 32 ways:
        // the stash fills), a smaller one, and random keys.
        let mut pool: Vec<FlowKey> = keys_sharing_of(bits, 36, 10);
        pool.extend(keys_sharing_of(bits, 10, 11));
        pool.extend((0..8).map(|_| key(rng.below(1 << 24) as u32)));
        let mut cycles = Vec::new();
        let mut now = 0u32;
        let mut epoch = 0u8;
        let mut timeout = 60;
        let mut aging = true;
        let mut repeat = 0;
        let mut current = pool[0];
        let reset_at = clocks / 2;
        for t in 0..clocks {
            now = now.wrapping_add(rng.below(3) as u32);
            if t % 256 == 255 {
                epoch = epoch.wrapping_add(1);
            }
            if t % 500 == 0 {
                timeout = 20 + rng.below(200) as u32;
                aging = rng.percent(80);
            }
            if repeat == 0 {
                current = pool[rng.below(pool.len() as u64) as usize];
                repeat = if rng.percent(20) { 1 + rng.below(6) } else { 1 };
            }
            repeat -= 1;
            let quiet = (reset_at - 5..reset_at).contains(&t);
            let request = if quiet || rng.percent(30) {
                None
            } else {
                let mut r = FlowRequest::keyed(FlowOp::LookupUpdate, current);
                r.op = match rng.below(100) {
                    0..=49 => FlowOp::LookupUpdate,
                    50..=59 => FlowOp::LearnSqp,
                    60..=64 => FlowOp::InsertStatic,
                    65..=76 => FlowOp::Delete,
                    77..=89 => FlowOp::Lookup,
                    _ => FlowOp::ReadLocation,
                };
                r.sqp = rng.below(1 << 24) as u32;
                r.bytes = 64 + rng.below(9000) as u16;
                r.bucket = rng.below(1 << bits) as u32;
                r.slot = rng.below(6) as u8;
                r.in_stash = rng.percent(30);
                r.fill = rng.percent(50);
                if r.op == FlowOp::ReadLocation && rng.percent(50) {
                    // Read where the flow just went.
                    r.bucket = flow_candidates(&current, bits)[rng.below(8) as usize];
                }
                Some(r)
            };
            cycles.push(FlowCycle {
                reset: t == reset_at,
                request,
                now,
                window_epoch: epoch,
                aging_enable: aging && !quiet,
                age_timeout: timeout,
                clear_counters: rng.percent(1),
            });
        }
        cycles
    }

    fn random_run(name: &str, seed: u64, clocks: usize) -> Run {
        run(name, random_cycles(seed, clocks, B))
    }

    #[test]
    fn lh_01_random_ops_match_reference_seed_1() {
        let r = random_run("random_ops_seed_1", 0x5eed_0001, 2500);
        let c = r.model.counters();
        let hits = r.responses.iter().flatten().filter(|x| x.hit).count();
        let stash = r
            .responses
            .iter()
            .flatten()
            .filter(|x| x.hit && x.in_stash)
            .count();
        println!("random_ops_seed_1: {c:?}, {hits} hits, {stash} in the stash");
        assert!(hits > 100 && stash > 10);
    }

    #[test]
    fn lh_01_random_ops_match_reference_seed_2() {
        let r = random_run("random_ops_seed_2", 0xfeed_beef_0002, 2500);
        let failures = r.responses.iter().flatten().filter(|x| x.failed).count();
        let aged = r.model.counters().aged;
        println!("random_ops_seed_2: {failures} insert failures, {aged} aged since the last clear");
    }

    fn lint<const BITS: usize, const INDEX: usize, const STASH: usize>(name: &str) -> String {
        let mut uut = FlowTable::<BITS, INDEX, STASH>::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        crate::verilog::lint_block(name, &verilog).unwrap_or_else(|log| panic!("{log}"));
        verilog
    }

    #[test]
    fn lh_01_flow_table_verilog_lints_clean_small() {
        let v = lint::<4, 1, 4>("flow_table_small");
        assert_eq!(v.matches("reg[418:0] mem[1:0];").count(), BANKS * WAYS);
    }

    #[test]
    fn lh_01_flow_table_verilog_lints_clean_16k() {
        let v = lint::<12, 9, 8>("flow_table_16k");
        assert_eq!(v.matches("reg[418:0] mem[511:0];").count(), BANKS * WAYS);
    }

    #[test]
    fn lh_01_flow_table_verilog_lints_clean_64k() {
        let v = lint::<14, 11, 16>("flow_table_64k");
        assert_eq!(v.matches("reg[418:0] mem[2047:0];").count(), BANKS * WAYS);
    }

    /// C++ testbench for the Verilated table: one clock per stdin line
    /// (inputs in hex), one line of outputs after each rising edge.
    const VERILATOR_TB: &str = r#"
#include "Vtop.h"
#include "verilated.h"
#include <cstdio>
#include <cstdint>
#include <cstring>
double sc_time_stamp() { return 0; }
static void wide(uint32_t* w, const char* hex) {
    char buf[9]; size_t n = strlen(hex);
    for (int i = 0; i < 4; i++) {
        size_t end = n - 8 * i; memcpy(buf, hex + end - 8, 8); buf[8] = 0;
        w[i] = (uint32_t)strtoul(buf, nullptr, 16);
    }
}
int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    Vtop* t = new Vtop;
    t->clock = 0; t->eval();
    unsigned reset, valid, op, dqp, sqp, bytes, bucket, slot, in_stash, now, epoch, aging, timeout, clear, fill;
    char sip[40], dip[40];
    while (scanf("%x %x %x %32s %32s %x %x %x %x %x %x %x %x %x %x %x %x", &reset, &valid, &op, sip, dip,
                 &dqp, &sqp, &bytes, &bucket, &slot, &in_stash, &now, &epoch, &aging, &timeout, &clear,
                 &fill) == 17) {
        t->reset = reset; t->req_valid = valid; t->req_op = op;
        wide(t->req_sip.data(), sip); wide(t->req_dip.data(), dip);
        t->req_dqp = dqp; t->req_sqp = sqp; t->req_bytes = bytes; t->req_bucket = bucket;
        t->req_slot = slot; t->req_in_stash = in_stash; t->now = now; t->window_epoch = epoch;
        t->aging_enable = aging; t->age_timeout = timeout; t->clear_counters = clear;
        t->req_fill = fill;
        t->clock = 0; t->eval(); t->clock = 1; t->eval();
        printf("%x %x %x %x %x %x %x %x", t->resp_valid, t->resp_dropped, t->resp_hit, t->resp_inserted,
               t->resp_failed, t->resp_in_stash, t->resp_bucket, t->resp_slot);
        for (int i = 13; i >= 0; i--) printf(" %08x", t->resp_entry.data()[i]);
        printf(" %x %x %x %x %x\n", t->occupancy, t->learned, t->aged, t->insert_failures,
               t->lookups_without_sqp);
    }
    delete t;
    return 0;
}
"#;

    /// Bits `offset..offset+width` (width <= 128) of little-endian 32-bit words.
    fn field(words: &[u32], offset: usize, width: usize) -> u128 {
        (0..width)
            .filter(|i| words[(offset + i) / 32] >> ((offset + i) % 32) & 1 != 0)
            .fold(0, |v, i| v | 1 << i)
    }

    fn parse_outputs(line: &str) -> (Option<FlowResponse>, FlowCounters) {
        let v: Vec<u64> = line
            .split_whitespace()
            .map(|h| u64::from_str_radix(h, 16).unwrap())
            .collect();
        let mut words: Vec<u32> = v[8..22].iter().map(|&w| w as u32).collect();
        words.reverse();
        let entry = FlowRecord {
            valid: field(&words, 0, 1) != 0,
            pinned: field(&words, 1, 1) != 0,
            sqp_valid: field(&words, 2, 1) != 0,
            sqp: field(&words, 3, 24) as u32,
            last_seen: field(&words, 27, 32) as u32,
            window_bytes: field(&words, 59, 32) as u32,
            window_epoch: field(&words, 91, 8) as u8,
            notify_state: field(&words, 99, 8) as u8,
            key: FlowKey {
                dqp: field(&words, 107, 24) as u32,
                dip: field(&words, 131, 128),
                sip: field(&words, 259, 128),
            },
            prev_bytes: field(&words, 387, 32) as u32,
        };
        let response = (v[0] != 0).then_some(FlowResponse {
            dropped: v[1] != 0,
            hit: v[2] != 0,
            inserted: v[3] != 0,
            failed: v[4] != 0,
            in_stash: v[5] != 0,
            bucket: v[6] as u32,
            slot: v[7] as u8,
            entry,
        });
        let c = &v[22..27];
        let counters = FlowCounters {
            occupancy: c[0] as u32,
            learned: c[1] as u32,
            aged: c[2] as u32,
            insert_failures: c[3] as u32,
            lookups_without_sqp: c[4] as u32,
        };
        (response, counters)
    }

    /// The emitted Verilog, built by Verilator, against the model on
    /// random sequences (Verilog's expression widths are not rust-hdl's).
    #[test]
    fn lh_01_flow_table_verilog_matches_model_in_verilator() {
        verilator_check::<B, I, S>("small", 8, 20_000);
    }

    /// The same for the gateway's 16K-entry configuration.
    #[test]
    fn lh_01_gateway_flow_table_verilog_matches_model_in_verilator() {
        verilator_check::<12, 9, 8>("16k", 2, 20_000);
    }

    fn verilator_check<const BITS: usize, const INDEX: usize, const STASH: usize>(
        name: &str,
        seeds: u64,
        clocks: usize,
    ) {
        use std::fmt::Write as _;
        use std::io::Write as _;
        let dir =
            std::env::temp_dir().join(format!("cngw-flow-verilator-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut uut = FlowTable::<BITS, INDEX, STASH>::default();
        uut.connect_all();
        std::fs::write(dir.join("flow_table.v"), generate_verilog(&uut)).unwrap();
        std::fs::write(dir.join("tb.cpp"), VERILATOR_TB).unwrap();
        let start = Instant::now();
        let build = std::process::Command::new("verilator")
            .current_dir(&dir)
            .args([
                "--cc",
                "--exe",
                "--build",
                "-j",
                "2",
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
                "--top-module",
                "top",
                "-CFLAGS",
                "-O1",
                "-o",
                "vtb",
                "flow_table.v",
                "tb.cpp",
            ])
            .output()
            .expect("verilator");
        assert!(
            build.status.success(),
            "{}",
            String::from_utf8_lossy(&build.stderr)
        );
        let built = start.elapsed().as_secs_f64();
        let mut total = 0;
        for seed in 1..=seeds {
            let mut cycles = random_cycles(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), clocks, BITS);
            let last = *cycles.last().unwrap();
            cycles.extend((0..6).map(|_| FlowCycle {
                now: last.now,
                ..Default::default()
            }));
            let mut model = FlowTableModel::new(BITS, STASH);
            let expected: Vec<_> = cycles
                .iter()
                .map(|c| (model.cycle(c), model.counters()))
                .collect();
            let mut input = String::new();
            for c in &cycles {
                let r = c
                    .request
                    .unwrap_or_else(|| FlowRequest::keyed(FlowOp::Lookup, FlowKey::default()));
                writeln!(
                    input,
                    "{:x} {:x} {:x} {:032x} {:032x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x}",
                    c.reset as u8, c.request.is_some() as u8, r.op.code(), r.key.sip, r.key.dip,
                    r.key.dqp, r.sqp & 0xff_ffff, r.bytes, r.bucket, r.slot & 0xf,
                    r.in_stash as u8, c.now, c.window_epoch, c.aging_enable as u8,
                    c.age_timeout, c.clear_counters as u8, r.fill as u8
                )
                .unwrap();
            }
            let mut child = std::process::Command::new(dir.join("obj_dir").join("vtb"))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
            let out = child.wait_with_output().unwrap();
            feeder.join().unwrap();
            let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
            assert_eq!(lines.len(), cycles.len());
            for (j, line) in lines.iter().enumerate() {
                let (got, got_counters) = parse_outputs(line);
                let want = j.checked_sub(4).and_then(|i| expected[i].0);
                let want_counters = j.checked_sub(5).map(|i| expected[i].1).unwrap_or_default();
                let resetting = (j.saturating_sub(4)..=j).any(|k| cycles[k].reset);
                if let Err(msg) = compare(got, want) {
                    panic!("seed {seed}, clock {}: {msg}", j as i64 - 4);
                }
                assert!(
                    resetting || got_counters == want_counters,
                    "seed {seed}, clock {j}: counters {got_counters:?} != {want_counters:?}"
                );
            }
            total += cycles.len();
        }
        println!(
            "verilator {name}: build {built:.1} s, {total} clocks compared in {:.1} s",
            start.elapsed().as_secs_f64() - built
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
