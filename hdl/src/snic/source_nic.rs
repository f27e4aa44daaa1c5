//! `SourceNic`: the source-side SmartNIC (LH-16, `cngw_model::source_nic`
//! is its reference). Receive side: the stream from the network to the
//! sender's legacy RNIC, from which it takes Long-haul CNPs and Rate Advice
//! messages, checks them and applies them to the rate of the local QP they
//! name; every other frame, standard CNPs included, passes. Transmit side:
//! the RNIC's frames to a configured QP's peer wait for that QP's token
//! bucket and pause; other frames pass.
//!
//! ```text
//!                 +-----------+   +-----------+   first beat of a frame in b:
//!  s.* (network)->|  stage a  |-->|  stage b  |--> notification? drop the frame
//!                 +-----------+   +-----------+--> m.* (to the RNIC)
//!                        \______________/  decision on the first 128 bytes
//!                                |        (b: beat 0, a: beat 1)
//!   node_addr, node_valid ------>+ checks (node, DestQP == body QP, QP list)
//!   qp_local, qp_valid --------->|
//!   icmpv6_type, ra_opcode ----->v
//!                          [ d: registered verdict ]
//!                                |  apply clock (note_done, note_reason)
//!   line_rate, min_rate,         v
//!   notify_shift, resume_cap,  [ 64 x QP: rate, pre_cut, next_due, paused_until ]
//!   recovery_clocks, ai_*,       |  additive increase every clock it is due
//!   clocks_per_us                |--> probe_qp -> probe_rate, probe_pre_cut,
//!                                |    probe_paused_until, probe_bucket; now; counters
//!   ns_per_clock, burst_bytes -->v
//!                          [ 64 x QpBucket: + rate * ns_per_clock millibits a clock ]
//!                                |  level, paused_until of the head frame's QP
//!                 +-----------+  v+-----------+
//!  tx_s.* (RNIC)->| stage t_a |-->| stage t_b |--> tx_m.* (network): a paced first
//!                 +-----------+   +-----------+    beat waits for bits and pause
//!   qp_remote_addr, qp_remote_qp --> which QP (peer address, BTH DestQP)
//! ```
//!
//! **Stream.** Two register stages, `a` then `b`. A frame's first beat
//! waits in `b` until its second beat is in `a` (or it is the frame's last
//! beat): the notification decision looks at the first 128 bytes and is
//! known before the first beat is offered on `m`. A passed frame leaves
//! byte for byte (`tdata`, `tkeep`, `tlast`, `tuser`); a notification is
//! taken from `s` at one beat per clock whatever `m.tready` does and never
//! shows on `m`. Latency: a beat taken from `s` at clock t is offered on
//! `m` at t + 2 at the earliest; throughput one beat per clock, frames
//! back to back. `s.tready` depends combinationally on `m.tready`.
//!
//! **Classification** (behind Ethernet with at most one 802.1Q tag, IPv4
//! with a 20-byte header and not a fragment, or IPv6 without extension
//! headers): a RoCEv2 frame (UDP port 4791, long enough for the BTH and
//! ICRC) with BTH opcode 0x81 and the E bit (byte 4, 0x20) is a Long-haul
//! CNP in RoCEv2 format; opcode 0x81 without it a standard CNP (counted in
//! `legacy_cnps`, passed); opcode `ra_opcode` a Rate Advice message; an
//! IPv6 frame with next header 58 and ICMPv6 type `icmpv6_type` a Long-haul
//! CNP in ICMPv6 format. Everything else passes (a notification with IPv4
//! options or IPv6 extension headers too: the model would take it).
//!
//! **Checks**, in the model's order, the first failure counted: the frame
//! holds the whole fixed message (and a Rate Advice's UDP length is 40),
//! else `dropped_malformed` (the IPv4 header checksum, the ICMPv6 checksum
//! and the ICRC are not checked: see docs/decisions.md); the IP source is a
//! valid `node_addr` entry (lane order; IPv4 as `::ffff:a.b.c.d`), else
//! `dropped_unknown_node`; in the RoCEv2 format BTH DestQP equals the
//! body's 32-bit Source QP, else `dropped_inconsistent`; the QP (BTH DestQP,
//! or the body's Source QP in the ICMPv6 format) is a valid `qp_local`
//! entry (24 bits at 24i), else `dropped_unknown_qp`.
//!
//! **Timing of a notification.** The verdict is registered in the clock its
//! first beat leaves `b` and applied in the next, the *apply clock*:
//! `note_done` is high in it with `note_reason` (0 applied, 1 malformed,
//! 2 unknown node, 3 inconsistent, 4 unknown QP) and `now` is the
//! notification's time. Registers show it from the clock after.
//!
//! **Actions** on the QP's rate (Mb/s) exactly as the model's, with the
//! rate first stepped if a recovery step is due in the same clock:
//! Notify `rate -= rate >> notify_shift`; Rate Reduce `rate -= rate *
//! min(p, 100) / 100`; Resume `rate += min(wanted, resume_cap)`, `wanted`
//! `(pre_cut - rate) * p / 100` (`p = min(p, 100)`, `p = 0` all of it,
//! `resumes_capped` counts the capped ones); Rate Advice `rate =
//! clamp(advice)` (`pre_cut = rate` when it lowers the rate); every result
//! clamped to `min_rate..=line_rate`; Notify and Rate Reduce set `pre_cut`
//! (the rate before the last cut) to the rate they cut. Pause sets
//! `paused_until = max(paused_until, now + p * clocks_per_us)`. The
//! divisions by 100 are a multiplication by a reciprocal ([`div100`], exact
//! for every product of a 32-bit rate and a percentage).
//!
//! **Recovery.** Every applied notification sets the QP's `next_due` to
//! `now + recovery_clocks`; in any clock with `now >= next_due` and the rate
//! below `line_rate` the rate grows by `ai_step` (not above `line_rate`)
//! and `next_due` by `ai_period_clocks`: the model's steps at `last +
//! recovery_interval + k * ai_period`, when those are whole clocks (both
//! periods at least one clock).
//!
//! **Transmit.** The same two stages. A frame whose first 128 bytes show a
//! RoCEv2 frame (the headers above) to a valid QP's `qp_remote_addr` with
//! BTH DestQP `qp_remote_qp` is *paced*: its first beat is offered on
//! `tx_m` only in a clock in which its QP's bucket holds `8000 * length`
//! millibits and `paused_until <= now`; the bits are taken as it leaves and
//! the rest of the frame follows at one beat per clock. The length is the
//! IP header's (Ethernet header + IPv4 total length or 40 + IPv6 payload
//! length, at least 60): a frame's length is not known at its first beat.
//! Each bucket gains `rate * ns_per_clock` millibits every clock (the rate
//! after that clock's notification and recovery step), up to `8000 *
//! burst_bytes`, and starts full. `tx_head` is high while a frame's first
//! beat is at the head (offered or waiting), `tx_paced` when it is paced;
//! `frames_delayed` counts the paced frames that waited at least a clock.
//! Frames leave in order: a waiting frame holds the frames behind it (the
//! model lets other QPs' frames pass it). Its wait is re-evaluated every
//! clock, so a notification applied while it waits changes it (the model
//! fixes a frame's departure when it is offered). Latency as on the
//! receive side: two clocks at the least.
//!
//! `now` counts clocks from reset (48 bits); `reset` puts every QP at
//! `line_rate` with a full bucket and clears the counters. The
//! configuration is held on the input ports (no CSR block yet).

use super::super::stream::{AxisSink, AxisSource};
use super::qp_bucket::QpBucket;
use rust_hdl::prelude::*;

/// QPs the block keeps (the model's `MAX_QPS`).
pub const QPS: usize = 64;
/// Notifying nodes (the model's `MAX_NODES`).
pub const NODES: usize = 16;

/// `floor(x / 100)` as the block computes it, for `x < 2^39` (every
/// product of a 32-bit rate and a percentage up to 100): `floor(x / 4)`
/// times `M = ceil(2^42 / 25)`, shifted right by 42. Exact because
/// `M * 25 - 2^42 = 21` and `(x / 4) * 21 < 2^37 * 32 = 2^42` (the
/// round-up error of the reciprocal never reaches the next integer).
pub fn div100(x: u64) -> u64 {
    assert!(x < 1 << 39);
    (((x >> 2) as u128 * DIV25_RECIPROCAL as u128) >> 42) as u64
}

/// `ceil(2^42 / 25)`; its set bits are the shifted terms in `update`.
pub const DIV25_RECIPROCAL: u64 = 175_921_860_445;

#[derive(LogicBlock)]
pub struct SourceNic {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// From the network.
    pub s: AxisSink,
    /// To the RNIC.
    pub m: AxisSource,
    /// Notifying node i at bits 128i.. (lane order, IPv4-mapped for IPv4).
    pub node_addr: Signal<In, Bits<2048>>,
    pub node_valid: Signal<In, Bits<16>>,
    /// Local QP i at bits 24i..24i+23.
    pub qp_local: Signal<In, Bits<1536>>,
    pub qp_valid: Signal<In, Bits<64>>,
    pub icmpv6_type: Signal<In, Bits<8>>,
    pub ra_opcode: Signal<In, Bits<8>>,
    pub line_rate: Signal<In, Bits<32>>,
    pub min_rate: Signal<In, Bits<32>>,
    /// 1..=15.
    pub notify_shift: Signal<In, Bits<4>>,
    pub resume_cap: Signal<In, Bits<32>>,
    /// Quiet time before additive increase, clocks (at least 1).
    pub recovery_clocks: Signal<In, Bits<48>>,
    /// Additive increase: `ai_step` Mb/s every `ai_period_clocks` (>= 1).
    pub ai_period_clocks: Signal<In, Bits<48>>,
    pub ai_step: Signal<In, Bits<32>>,
    /// Clocks per microsecond (Pause's unit).
    pub clocks_per_us: Signal<In, Bits<16>>,
    /// From the RNIC.
    pub tx_s: AxisSink,
    /// To the network.
    pub tx_m: AxisSource,
    /// QP i's peer: its address at bits 128i.. (lane order, IPv4-mapped)
    /// and the BTH DestQP of its data at 24i.
    pub qp_remote_addr: Signal<In, Bits<8192>>,
    pub qp_remote_qp: Signal<In, Bits<1536>>,
    /// Nanoseconds per clock (the buckets' fill: rate * ns millibits).
    pub ns_per_clock: Signal<In, Bits<16>>,
    /// Each QP's bucket depth, bytes.
    pub burst_bytes: Signal<In, Bits<32>>,
    /// A frame's first beat is at the head of the transmit side (it leaves
    /// in this clock or waits).
    pub tx_head: Signal<Out, Bit>,
    /// ... and it is a configured QP's (paced).
    pub tx_paced: Signal<Out, Bit>,
    pub frames_delayed: Signal<Out, Bits<32>>,
    /// Which QP the probe outputs show.
    pub probe_qp: Signal<In, Bits<6>>,
    pub probe_bucket: Signal<Out, Bits<48>>,
    pub probe_rate: Signal<Out, Bits<32>>,
    pub probe_pre_cut: Signal<Out, Bits<32>>,
    pub probe_paused_until: Signal<Out, Bits<48>>,
    /// Clocks since reset.
    pub now: Signal<Out, Bits<48>>,
    /// High in a notification's apply clock.
    pub note_done: Signal<Out, Bit>,
    pub note_reason: Signal<Out, Bits<3>>,
    pub applied: Signal<Out, Bits<32>>,
    pub dropped_malformed: Signal<Out, Bits<32>>,
    pub dropped_unknown_node: Signal<Out, Bits<32>>,
    pub dropped_inconsistent: Signal<Out, Bits<32>>,
    pub dropped_unknown_qp: Signal<Out, Bits<32>>,
    pub legacy_cnps: Signal<Out, Bits<32>>,
    pub resumes_capped: Signal<Out, Bits<32>>,
    // Stream stages.
    a_valid: DFF<Bit>,
    a_first: DFF<Bit>,
    a_data: DFF<Bits<512>>,
    a_keep: DFF<Bits<64>>,
    a_last: DFF<Bit>,
    a_user: DFF<Bit>,
    b_valid: DFF<Bit>,
    b_first: DFF<Bit>,
    b_data: DFF<Bits<512>>,
    b_keep: DFF<Bits<64>>,
    b_last: DFF<Bit>,
    b_user: DFF<Bit>,
    in_first: DFFWithInit<Bit>,
    dropping: DFF<Bit>,
    clocks: DFF<Bits<48>>,
    // The registered verdict.
    d_valid: DFF<Bit>,
    d_reason: DFF<Bits<3>>,
    d_hit: DFF<Bits<64>>,
    /// 0..3 the Long-haul action, 4 Rate Advice.
    d_kind: DFF<Bits<3>>,
    d_param: DFF<Bits<16>>,
    d_advice: DFF<Bits<32>>,
    // Per QP.
    rate: Vec<DFF<Bits<32>>>,
    pre_cut: Vec<DFF<Bits<32>>>,
    next_due: Vec<DFF<Bits<48>>>,
    paused_until: Vec<DFF<Bits<48>>>,
    // Transmit stream stages and state.
    t_a_valid: DFF<Bit>,
    t_a_first: DFF<Bit>,
    t_a_data: DFF<Bits<512>>,
    t_a_keep: DFF<Bits<64>>,
    t_a_last: DFF<Bit>,
    t_a_user: DFF<Bit>,
    t_b_valid: DFF<Bit>,
    t_b_first: DFF<Bit>,
    t_b_data: DFF<Bits<512>>,
    t_b_keep: DFF<Bits<64>>,
    t_b_last: DFF<Bit>,
    t_b_user: DFF<Bit>,
    t_in_first: DFFWithInit<Bit>,
    /// The head frame was offered on `tx_m` (it goes, whatever happens).
    t_released: DFF<Bit>,
    /// The head frame waited for its bucket or its pause.
    t_held: DFF<Bit>,
    c_delayed: DFF<Bits<32>>,
    bucket: Vec<QpBucket>,
    // Counters.
    c_applied: DFF<Bits<32>>,
    c_malformed: DFF<Bits<32>>,
    c_node: DFF<Bits<32>>,
    c_inconsistent: DFF<Bits<32>>,
    c_qp: DFF<Bits<32>>,
    c_legacy: DFF<Bits<32>>,
    c_capped: DFF<Bits<32>>,
    // Stream, combinational.
    decided: Signal<Local, Bit>,
    b_drop: Signal<Local, Bit>,
    b_leave: Signal<Local, Bit>,
    a_move: Signal<Local, Bit>,
    s_take: Signal<Local, Bit>,
    // Classification of the first 128 bytes.
    sn_window: Signal<Local, Bits<1024>>,
    sn_ip: Signal<Local, Bits<1024>>,
    sn_bth: Signal<Local, Bits<1024>>,
    sn_body: Signal<Local, Bits<256>>,
    vlan: Signal<Local, Bit>,
    eth_len: Signal<Local, Bits<16>>,
    keep_b: Signal<Local, Bits<16>>,
    keep_a: Signal<Local, Bits<16>>,
    flen: Signal<Local, Bits<16>>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    is_udp: Signal<Local, Bit>,
    is_icmp: Signal<Local, Bit>,
    roce_end: Signal<Local, Bits<16>>,
    icmp_end: Signal<Local, Bits<16>>,
    roce: Signal<Local, Bit>,
    opc: Signal<Local, Bits<8>>,
    e_bit: Signal<Local, Bit>,
    is_lh: Signal<Local, Bit>,
    is_legacy: Signal<Local, Bit>,
    is_ra: Signal<Local, Bit>,
    is_lh6: Signal<Local, Bit>,
    notif: Signal<Local, Bit>,
    udp_len: Signal<Local, Bits<16>>,
    short: Signal<Local, Bit>,
    src_addr: Signal<Local, Bits<128>>,
    node_ok: Signal<Local, Bit>,
    dest_qp: Signal<Local, Bits<32>>,
    body_qp: Signal<Local, Bits<32>>,
    the_qp: Signal<Local, Bits<32>>,
    hits: Signal<Local, Bits<64>>,
    reason: Signal<Local, Bits<3>>,
    kind: Signal<Local, Bits<3>>,
    param: Signal<Local, Bits<16>>,
    advice: Signal<Local, Bits<32>>,
    // Per QP, combinational: a recovery step is due now, and the rate after it.
    due: Vec<Signal<Local, Bit>>,
    stepped: Vec<Signal<Local, Bits<32>>>,
    // The apply clock's arithmetic.
    cur: Signal<Local, Bits<32>>,
    cur_pre: Signal<Local, Bits<32>>,
    cur_paused: Signal<Local, Bits<48>>,
    pct: Signal<Local, Bits<16>>,
    gap: Signal<Local, Bits<32>>,
    mul_in: Signal<Local, Bits<32>>,
    prod_hi: Signal<Local, Bits<32>>,
    prod_lo: Signal<Local, Bits<32>>,
    prod: Signal<Local, Bits<48>>,
    quarter: Signal<Local, Bits<80>>,
    recip_product: Signal<Local, Bits<80>>,
    quot: Signal<Local, Bits<32>>,
    wanted: Signal<Local, Bits<32>>,
    capped: Signal<Local, Bit>,
    raw_rate: Signal<Local, Bits<32>>,
    new_rate: Signal<Local, Bits<32>>,
    new_pre: Signal<Local, Bits<32>>,
    new_paused: Signal<Local, Bits<48>>,
    pause_clocks: Signal<Local, Bits<32>>,
    pause_end: Signal<Local, Bits<48>>,
    applying: Signal<Local, Bit>,
    rate_nx: Vec<Signal<Local, Bits<32>>>,
    // Transmit, combinational.
    tx_window: Signal<Local, Bits<1024>>,
    tx_ip: Signal<Local, Bits<1024>>,
    tx_bth: Signal<Local, Bits<1024>>,
    tx_vlan: Signal<Local, Bit>,
    tx_eth_len: Signal<Local, Bits<16>>,
    tx_keep_b: Signal<Local, Bits<16>>,
    tx_keep_a: Signal<Local, Bits<16>>,
    tx_flen: Signal<Local, Bits<16>>,
    tx_v4: Signal<Local, Bit>,
    tx_v6: Signal<Local, Bit>,
    tx_udp: Signal<Local, Bit>,
    tx_roce_end: Signal<Local, Bits<16>>,
    tx_dst: Signal<Local, Bits<128>>,
    tx_iplen: Signal<Local, Bits<16>>,
    tx_len: Signal<Local, Bits<16>>,
    tx_need: Signal<Local, Bits<48>>,
    tx_qp: Signal<Local, Bits<24>>,
    tx_hits: Signal<Local, Bits<64>>,
    paced: Signal<Local, Bit>,
    sel_level: Signal<Local, Bits<48>>,
    sel_paused: Signal<Local, Bits<48>>,
    tx_ok: Signal<Local, Bit>,
    t_decided: Signal<Local, Bit>,
    t_go: Signal<Local, Bit>,
    t_leave: Signal<Local, Bit>,
    t_a_move: Signal<Local, Bit>,
    t_take: Signal<Local, Bit>,
    burst_millibits: Signal<Local, Bits<48>>,
}

impl Default for SourceNic {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            node_addr: Default::default(),
            node_valid: Default::default(),
            qp_local: Default::default(),
            qp_valid: Default::default(),
            icmpv6_type: Default::default(),
            ra_opcode: Default::default(),
            line_rate: Default::default(),
            min_rate: Default::default(),
            notify_shift: Default::default(),
            resume_cap: Default::default(),
            recovery_clocks: Default::default(),
            ai_period_clocks: Default::default(),
            ai_step: Default::default(),
            clocks_per_us: Default::default(),
            tx_s: Default::default(),
            tx_m: Default::default(),
            qp_remote_addr: Default::default(),
            qp_remote_qp: Default::default(),
            ns_per_clock: Default::default(),
            burst_bytes: Default::default(),
            tx_head: Default::default(),
            tx_paced: Default::default(),
            frames_delayed: Default::default(),
            probe_qp: Default::default(),
            probe_bucket: Default::default(),
            probe_rate: Default::default(),
            probe_pre_cut: Default::default(),
            probe_paused_until: Default::default(),
            now: Default::default(),
            note_done: Default::default(),
            note_reason: Default::default(),
            applied: Default::default(),
            dropped_malformed: Default::default(),
            dropped_unknown_node: Default::default(),
            dropped_inconsistent: Default::default(),
            dropped_unknown_qp: Default::default(),
            legacy_cnps: Default::default(),
            resumes_capped: Default::default(),
            a_valid: Default::default(),
            a_first: Default::default(),
            a_data: Default::default(),
            a_keep: Default::default(),
            a_last: Default::default(),
            a_user: Default::default(),
            b_valid: Default::default(),
            b_first: Default::default(),
            b_data: Default::default(),
            b_keep: Default::default(),
            b_last: Default::default(),
            b_user: Default::default(),
            in_first: DFFWithInit::new(true),
            dropping: Default::default(),
            clocks: Default::default(),
            d_valid: Default::default(),
            d_reason: Default::default(),
            d_hit: Default::default(),
            d_kind: Default::default(),
            d_param: Default::default(),
            d_advice: Default::default(),
            rate: (0..QPS).map(|_| Default::default()).collect(),
            pre_cut: (0..QPS).map(|_| Default::default()).collect(),
            next_due: (0..QPS).map(|_| Default::default()).collect(),
            paused_until: (0..QPS).map(|_| Default::default()).collect(),
            t_a_valid: Default::default(),
            t_a_first: Default::default(),
            t_a_data: Default::default(),
            t_a_keep: Default::default(),
            t_a_last: Default::default(),
            t_a_user: Default::default(),
            t_b_valid: Default::default(),
            t_b_first: Default::default(),
            t_b_data: Default::default(),
            t_b_keep: Default::default(),
            t_b_last: Default::default(),
            t_b_user: Default::default(),
            t_in_first: DFFWithInit::new(true),
            t_released: Default::default(),
            t_held: Default::default(),
            c_delayed: Default::default(),
            bucket: (0..QPS).map(|_| Default::default()).collect(),
            c_applied: Default::default(),
            c_malformed: Default::default(),
            c_node: Default::default(),
            c_inconsistent: Default::default(),
            c_qp: Default::default(),
            c_legacy: Default::default(),
            c_capped: Default::default(),
            decided: Default::default(),
            b_drop: Default::default(),
            b_leave: Default::default(),
            a_move: Default::default(),
            s_take: Default::default(),
            sn_window: Default::default(),
            sn_ip: Default::default(),
            sn_bth: Default::default(),
            sn_body: Default::default(),
            vlan: Default::default(),
            eth_len: Default::default(),
            keep_b: Default::default(),
            keep_a: Default::default(),
            flen: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            is_udp: Default::default(),
            is_icmp: Default::default(),
            roce_end: Default::default(),
            icmp_end: Default::default(),
            roce: Default::default(),
            opc: Default::default(),
            e_bit: Default::default(),
            is_lh: Default::default(),
            is_legacy: Default::default(),
            is_ra: Default::default(),
            is_lh6: Default::default(),
            notif: Default::default(),
            udp_len: Default::default(),
            short: Default::default(),
            src_addr: Default::default(),
            node_ok: Default::default(),
            dest_qp: Default::default(),
            body_qp: Default::default(),
            the_qp: Default::default(),
            hits: Default::default(),
            reason: Default::default(),
            kind: Default::default(),
            param: Default::default(),
            advice: Default::default(),
            due: (0..QPS).map(|_| Default::default()).collect(),
            stepped: (0..QPS).map(|_| Default::default()).collect(),
            cur: Default::default(),
            cur_pre: Default::default(),
            cur_paused: Default::default(),
            pct: Default::default(),
            gap: Default::default(),
            mul_in: Default::default(),
            prod_hi: Default::default(),
            prod_lo: Default::default(),
            prod: Default::default(),
            quarter: Default::default(),
            recip_product: Default::default(),
            quot: Default::default(),
            wanted: Default::default(),
            capped: Default::default(),
            raw_rate: Default::default(),
            new_rate: Default::default(),
            new_pre: Default::default(),
            new_paused: Default::default(),
            pause_clocks: Default::default(),
            pause_end: Default::default(),
            applying: Default::default(),
            rate_nx: (0..QPS).map(|_| Default::default()).collect(),
            tx_window: Default::default(),
            tx_ip: Default::default(),
            tx_bth: Default::default(),
            tx_vlan: Default::default(),
            tx_eth_len: Default::default(),
            tx_keep_b: Default::default(),
            tx_keep_a: Default::default(),
            tx_flen: Default::default(),
            tx_v4: Default::default(),
            tx_v6: Default::default(),
            tx_udp: Default::default(),
            tx_roce_end: Default::default(),
            tx_dst: Default::default(),
            tx_iplen: Default::default(),
            tx_len: Default::default(),
            tx_need: Default::default(),
            tx_qp: Default::default(),
            tx_hits: Default::default(),
            paced: Default::default(),
            sel_level: Default::default(),
            sel_paused: Default::default(),
            tx_ok: Default::default(),
            t_decided: Default::default(),
            t_go: Default::default(),
            t_leave: Default::default(),
            t_a_move: Default::default(),
            t_take: Default::default(),
            burst_millibits: Default::default(),
        }
    }
}

impl Logic for SourceNic {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            a_valid,
            a_first,
            a_data,
            a_keep,
            a_last,
            a_user,
            b_valid,
            b_first,
            b_data,
            b_keep,
            b_last,
            b_user,
            in_first,
            dropping,
            clocks,
            d_valid,
            d_reason,
            d_hit,
            d_kind,
            d_param,
            d_advice,
            c_applied,
            c_malformed,
            c_node,
            c_inconsistent,
            c_qp,
            c_legacy,
            c_capped,
            t_a_valid,
            t_a_first,
            t_a_data,
            t_a_keep,
            t_a_last,
            t_a_user,
            t_b_valid,
            t_b_first,
            t_b_data,
            t_b_keep,
            t_b_last,
            t_b_user,
            t_in_first,
            t_released,
            t_held,
            c_delayed
        );
        for i in 0..QPS {
            self.rate[i].clock.next = self.clock.val();
            self.pre_cut[i].clock.next = self.clock.val();
            self.next_due[i].clock.next = self.clock.val();
            self.paused_until[i].clock.next = self.clock.val();
            self.bucket[i].clock.next = self.clock.val();
        }
        self.clocks.d.next = self.clocks.q.val() + 1;
        self.now.next = self.clocks.q.val();

        // ---- Classification of the frame whose first beat is in b. ----
        self.sn_window.next = bit_cast::<1024, 512>(self.b_data.q.val());
        if self.a_valid.q.val() & !self.b_last.q.val() {
            self.sn_window.next =
                self.sn_window.val() | (bit_cast::<1024, 512>(self.a_data.q.val()) << 512);
        }
        // Frame length within the first 128 bytes.
        self.keep_b.next = 0.into();
        self.keep_a.next = 0.into();
        for i in 0..64 {
            if self.b_keep.q.val().get_bit(i) {
                self.keep_b.next = self.keep_b.val() + 1;
            }
            if self.a_keep.q.val().get_bit(i) {
                self.keep_a.next = self.keep_a.val() + 1;
            }
        }
        self.flen.next = 128.into();
        if self.b_last.q.val() {
            self.flen.next = self.keep_b.val();
        } else if self.a_last.q.val() {
            self.flen.next = self.keep_a.val() + 64;
        }
        // EtherType lanes: 0x8100 -> 0x0081, 0x0800 -> 0x0008, 0x86DD -> 0xDD86.
        self.vlan.next = self.sn_window.val().get_bits::<16>(96) == 0x0081;
        self.sn_ip.next = self.sn_window.val() >> 112;
        self.eth_len.next = 14.into();
        self.is_v4.next = self.sn_window.val().get_bits::<16>(96) == 0x0008;
        self.is_v6.next = self.sn_window.val().get_bits::<16>(96) == 0xdd86;
        if self.vlan.val() {
            self.sn_ip.next = self.sn_window.val() >> 144;
            self.eth_len.next = 18.into();
            self.is_v4.next = self.sn_window.val().get_bits::<16>(128) == 0x0008;
            self.is_v6.next = self.sn_window.val().get_bits::<16>(128) == 0xdd86;
        }
        self.is_v4.next = self.is_v4.val()
            & (self.sn_ip.val().get_bits::<8>(0) == 0x45)
            & ((self.sn_ip.val().get_bits::<16>(48) & 0xff3f) == 0);
        self.is_v6.next = self.is_v6.val() & (self.sn_ip.val().get_bits::<4>(4) == 6);
        // UDP 4791 (lanes 0xB712), the BTH, the source address.
        self.is_udp.next = self.is_v4.val()
            & (self.sn_ip.val().get_bits::<8>(72) == 17)
            & (self.sn_ip.val().get_bits::<16>(176) == 0xB712);
        self.is_icmp.next = false;
        self.udp_len.next = self.sn_ip.val().get_bits::<16>(192);
        self.sn_bth.next = self.sn_ip.val() >> 224;
        self.roce_end.next = self.eth_len.val() + 20 + 8 + 16;
        self.icmp_end.next = self.eth_len.val() + 40 + 4;
        self.src_addr.next = (bit_cast::<128, 32>(self.sn_ip.val().get_bits::<32>(96)) << 96)
            | (bits::<128>(0xffff) << 80);
        if self.is_v6.val() {
            self.is_udp.next = (self.sn_ip.val().get_bits::<8>(48) == 17)
                & (self.sn_ip.val().get_bits::<16>(336) == 0xB712);
            self.is_icmp.next = self.sn_ip.val().get_bits::<8>(48) == 58;
            self.udp_len.next = self.sn_ip.val().get_bits::<16>(352);
            self.sn_bth.next = self.sn_ip.val() >> 384;
            self.roce_end.next = self.eth_len.val() + 40 + 8 + 16;
            self.src_addr.next = self.sn_ip.val().get_bits::<128>(64);
        }
        self.roce.next = self.is_udp.val() & (self.flen.val() >= self.roce_end.val());
        self.opc.next = self.sn_bth.val().get_bits::<8>(0);
        self.e_bit.next = self.sn_bth.val().get_bit(37);
        self.is_lh.next = self.roce.val() & (self.opc.val() == 0x81) & self.e_bit.val();
        self.is_legacy.next = self.roce.val() & (self.opc.val() == 0x81) & !self.e_bit.val();
        self.is_ra.next =
            self.roce.val() & (self.opc.val() != 0x81) & (self.opc.val() == self.ra_opcode.val());
        self.is_lh6.next = self.is_icmp.val()
            & (self.flen.val() >= self.icmp_end.val())
            & (self.sn_ip.val().get_bits::<8>(320) == self.icmpv6_type.val());
        self.notif.next = self.is_lh.val() | self.is_ra.val() | self.is_lh6.val();
        // The message body: 12 bytes after the BTH, 4 after the ICMPv6 type.
        self.sn_body.next = self.sn_bth.val().get_bits::<256>(96);
        self.short.next = self.flen.val() < (self.roce_end.val() + 12);
        if self.is_ra.val() {
            // 0x0028 (40) in lanes.
            self.short.next =
                (self.flen.val() < (self.roce_end.val() + 16)) | (self.udp_len.val() != 0x2800);
        }
        if self.is_lh6.val() {
            self.sn_body.next = self.sn_ip.val().get_bits::<256>(352);
            self.short.next = self.flen.val() < (self.icmp_end.val() + 12);
        }
        // Fields, from network order: BTH DestQP (bytes 5..7), the body's
        // Source QP (bytes 4..7), parameter (bytes 2..3), rate (bytes 0..3).
        self.dest_qp.next = (bit_cast::<32, 8>(self.sn_bth.val().get_bits::<8>(40)) << 16)
            | (bit_cast::<32, 8>(self.sn_bth.val().get_bits::<8>(48)) << 8)
            | bit_cast::<32, 8>(self.sn_bth.val().get_bits::<8>(56));
        self.body_qp.next = (bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(32)) << 24)
            | (bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(40)) << 16)
            | (bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(48)) << 8)
            | bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(56));
        self.advice.next = (bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.sn_body.val().get_bits::<8>(24));
        self.param.next = (bit_cast::<16, 8>(self.sn_body.val().get_bits::<8>(16)) << 8)
            | bit_cast::<16, 8>(self.sn_body.val().get_bits::<8>(24));
        self.kind.next = bit_cast::<3, 2>(self.sn_body.val().get_bits::<2>(14));
        self.the_qp.next = self.dest_qp.val();
        if self.is_ra.val() {
            self.kind.next = 4.into();
        }
        if self.is_lh6.val() {
            self.the_qp.next = self.body_qp.val();
        }
        // Checks.
        self.node_ok.next = false;
        for i in 0..NODES {
            if self.node_valid.val().get_bit(i)
                & (self.node_addr.val().get_bits::<128>(128 * i) == self.src_addr.val())
            {
                self.node_ok.next = true;
            }
        }
        self.hits.next = 0.into();
        for i in 0..QPS {
            self.hits.next = self.hits.val().replace_bit(
                i,
                self.qp_valid.val().get_bit(i)
                    & (self.the_qp.val().get_bits::<8>(24) == 0)
                    & (self.qp_local.val().get_bits::<24>(24 * i)
                        == self.the_qp.val().get_bits::<24>(0)),
            );
        }
        self.reason.next = 0.into();
        if self.short.val() {
            self.reason.next = 1.into();
        } else if !self.node_ok.val() {
            self.reason.next = 2.into();
        } else if self.is_lh.val() & (self.dest_qp.val() != self.body_qp.val()) {
            self.reason.next = 3.into();
        } else if self.hits.val() == 0 {
            self.reason.next = 4.into();
        }

        // ---- The stream. ----
        self.decided.next = self.b_valid.q.val()
            & (!self.b_first.q.val() | self.b_last.q.val() | self.a_valid.q.val());
        self.b_drop.next = self.dropping.q.val();
        if self.b_first.q.val() {
            self.b_drop.next = self.notif.val();
        }
        self.m.tdata.next = self.b_data.q.val();
        self.m.tkeep.next = self.b_keep.q.val();
        self.m.tlast.next = self.b_last.q.val();
        self.m.tuser.next = self.b_user.q.val();
        self.m.tvalid.next = self.decided.val() & !self.b_drop.val();
        self.b_leave.next = self.decided.val() & (self.b_drop.val() | self.m.tready.val());
        self.a_move.next = self.a_valid.q.val() & (!self.b_valid.q.val() | self.b_leave.val());
        self.s.tready.next = !self.a_valid.q.val() | self.a_move.val();
        self.s_take.next = self.s.tvalid.val() & (!self.a_valid.q.val() | self.a_move.val());
        if self.b_leave.val() {
            self.b_valid.d.next = false;
            self.dropping.d.next = self.b_drop.val() & !self.b_last.q.val();
        }
        if self.a_move.val() {
            self.b_valid.d.next = true;
            self.b_first.d.next = self.a_first.q.val();
            self.b_data.d.next = self.a_data.q.val();
            self.b_keep.d.next = self.a_keep.q.val();
            self.b_last.d.next = self.a_last.q.val();
            self.b_user.d.next = self.a_user.q.val();
            self.a_valid.d.next = false;
        }
        if self.s_take.val() {
            self.a_valid.d.next = true;
            self.a_first.d.next = self.in_first.q.val();
            self.a_data.d.next = self.s.tdata.val();
            self.a_keep.d.next = self.s.tkeep.val();
            self.a_last.d.next = self.s.tlast.val();
            self.a_user.d.next = self.s.tuser.val();
            self.in_first.d.next = self.s.tlast.val();
        }

        // ---- The verdict, registered as the first beat leaves. ----
        self.d_valid.d.next = false;
        if self.b_leave.val() & self.b_first.q.val() & self.notif.val() {
            self.d_valid.d.next = true;
            self.d_reason.d.next = self.reason.val();
            self.d_hit.d.next = self.hits.val();
            self.d_kind.d.next = self.kind.val();
            self.d_param.d.next = self.param.val();
            self.d_advice.d.next = self.advice.val();
        }
        if self.b_leave.val() & self.b_first.q.val() & self.is_legacy.val() {
            self.c_legacy.d.next = self.c_legacy.q.val() + 1;
        }

        // ---- Recovery steps due this clock. ----
        for i in 0..QPS {
            self.due[i].next = (self.rate[i].q.val() < self.line_rate.val())
                & (self.clocks.q.val() >= self.next_due[i].q.val());
            self.stepped[i].next = self.rate[i].q.val();
            if self.due[i].val() {
                self.stepped[i].next = self.line_rate.val();
                if (self.line_rate.val() - self.rate[i].q.val()) > self.ai_step.val() {
                    self.stepped[i].next = self.rate[i].q.val() + self.ai_step.val();
                }
            }
        }

        // ---- The apply clock: the QP's state after any step due now. ----
        self.cur.next = 0.into();
        self.cur_pre.next = 0.into();
        self.cur_paused.next = 0.into();
        for i in 0..QPS {
            if self.d_hit.q.val().get_bit(i) {
                self.cur.next = self.stepped[i].val();
                self.cur_pre.next = self.pre_cut[i].q.val();
                self.cur_paused.next = self.paused_until[i].q.val();
            }
        }
        self.pct.next = self.d_param.q.val();
        if self.d_param.q.val() > 100 {
            self.pct.next = 100.into();
        }
        self.gap.next = 0.into();
        if self.cur_pre.val() > self.cur.val() {
            self.gap.next = self.cur_pre.val() - self.cur.val();
        }
        // (cur or gap) * pct: two 16 x 16 products; then / 100.
        self.mul_in.next = self.gap.val();
        if self.d_kind.q.val() == 2 {
            self.mul_in.next = self.cur.val();
        }
        self.prod_hi.next = self.mul_in.val().get_bits::<16>(16) * self.pct.val();
        self.prod_lo.next = self.mul_in.val().get_bits::<16>(0) * self.pct.val();
        self.prod.next =
            (bit_cast::<48, 32>(self.prod_hi.val()) << 16) + bit_cast::<48, 32>(self.prod_lo.val());
        // floor(prod / 100) = (floor(prod / 4) * DIV25_RECIPROCAL) >> 42
        // (see `div100`); the reciprocal's set bits: 0, 2, 3, 4, 6, 8, 9,
        // 10, 11, 15, 17, 22, 23, 24, 26, 28, 29, 30, 31, 35, 37.
        self.quarter.next = bit_cast::<80, 48>(self.prod.val() >> 2);
        self.recip_product.next = self.quarter.val()
            + (self.quarter.val() << 2)
            + (self.quarter.val() << 3)
            + (self.quarter.val() << 4)
            + (self.quarter.val() << 6)
            + (self.quarter.val() << 8)
            + (self.quarter.val() << 9)
            + (self.quarter.val() << 10)
            + (self.quarter.val() << 11)
            + (self.quarter.val() << 15)
            + (self.quarter.val() << 17)
            + (self.quarter.val() << 22)
            + (self.quarter.val() << 23)
            + (self.quarter.val() << 24)
            + (self.quarter.val() << 26)
            + (self.quarter.val() << 28)
            + (self.quarter.val() << 29)
            + (self.quarter.val() << 30)
            + (self.quarter.val() << 31)
            + (self.quarter.val() << 35)
            + (self.quarter.val() << 37);
        self.quot.next = self.recip_product.val().get_bits::<32>(42);
        self.wanted.next = self.quot.val();
        if self.d_param.q.val() == 0 {
            self.wanted.next = self.gap.val();
        }
        self.capped.next = false;
        self.new_pre.next = self.cur_pre.val();
        self.raw_rate.next = self.cur.val();
        // Pause.
        self.pause_clocks.next = self.d_param.q.val() * self.clocks_per_us.val();
        self.pause_end.next = self.clocks.q.val() + bit_cast::<48, 32>(self.pause_clocks.val());
        self.new_paused.next = self.cur_paused.val();
        if (self.d_kind.q.val() == 1) & (self.pause_end.val() > self.cur_paused.val()) {
            self.new_paused.next = self.pause_end.val();
        }
        if self.d_kind.q.val() == 0 {
            self.new_pre.next = self.cur.val();
            self.raw_rate.next = self.cur.val() - (self.cur.val() >> self.notify_shift.val());
        }
        if self.d_kind.q.val() == 2 {
            self.new_pre.next = self.cur.val();
            self.raw_rate.next = self.cur.val() - self.quot.val();
        }
        if self.d_kind.q.val() == 3 {
            self.capped.next = self.wanted.val() > self.resume_cap.val();
            self.raw_rate.next = self.cur.val() + self.wanted.val();
            if self.capped.val() {
                self.raw_rate.next = self.cur.val() + self.resume_cap.val();
            }
        }
        if self.d_kind.q.val() == 4 {
            self.raw_rate.next = self.d_advice.q.val();
        }
        self.new_rate.next = self.raw_rate.val();
        if self.raw_rate.val() > self.line_rate.val() {
            self.new_rate.next = self.line_rate.val();
        }
        if self.raw_rate.val() < self.min_rate.val() {
            self.new_rate.next = self.min_rate.val();
        }
        if (self.d_kind.q.val() == 4) & (self.new_rate.val() < self.cur.val()) {
            self.new_pre.next = self.cur.val();
        }
        if self.d_kind.q.val() == 1 {
            // Pause keeps the rate as it is.
            self.new_rate.next = self.cur.val();
        }
        self.applying.next = self.d_valid.q.val() & (self.d_reason.q.val() == 0);

        // ---- Per-QP registers. ----
        for i in 0..QPS {
            self.rate_nx[i].next = self.stepped[i].val();
            self.pre_cut[i].d.next = self.pre_cut[i].q.val();
            self.next_due[i].d.next = self.next_due[i].q.val();
            self.paused_until[i].d.next = self.paused_until[i].q.val();
            if self.due[i].val() {
                self.next_due[i].d.next = self.next_due[i].q.val() + self.ai_period_clocks.val();
            }
            if self.applying.val() & self.d_hit.q.val().get_bit(i) {
                self.rate_nx[i].next = self.new_rate.val();
                self.pre_cut[i].d.next = self.new_pre.val();
                self.paused_until[i].d.next = self.new_paused.val();
                self.next_due[i].d.next = self.clocks.q.val() + self.recovery_clocks.val();
            }
            if self.reset.val() {
                self.rate_nx[i].next = self.line_rate.val();
                self.pre_cut[i].d.next = self.line_rate.val();
                self.next_due[i].d.next = 0.into();
                self.paused_until[i].d.next = 0.into();
            }
            self.rate[i].d.next = self.rate_nx[i].val();
            // The bucket fills at the rate of this clock, after its events.
            self.bucket[i].reset.next = self.reset.val();
            self.bucket[i].rate.next = self.rate_nx[i].val();
        }

        // ---- Transmit: the frame whose first beat is in t_b. ----
        // 8000 = 2^13 - 2^7 - 2^6 millibits per byte.
        self.burst_millibits.next = (bit_cast::<48, 32>(self.burst_bytes.val()) << 13)
            - (bit_cast::<48, 32>(self.burst_bytes.val()) << 7)
            - (bit_cast::<48, 32>(self.burst_bytes.val()) << 6);
        self.tx_window.next = bit_cast::<1024, 512>(self.t_b_data.q.val());
        if self.t_a_valid.q.val() & !self.t_b_last.q.val() {
            self.tx_window.next =
                self.tx_window.val() | (bit_cast::<1024, 512>(self.t_a_data.q.val()) << 512);
        }
        self.tx_keep_b.next = 0.into();
        self.tx_keep_a.next = 0.into();
        for i in 0..64 {
            if self.t_b_keep.q.val().get_bit(i) {
                self.tx_keep_b.next = self.tx_keep_b.val() + 1;
            }
            if self.t_a_keep.q.val().get_bit(i) {
                self.tx_keep_a.next = self.tx_keep_a.val() + 1;
            }
        }
        self.tx_flen.next = 128.into();
        if self.t_b_last.q.val() {
            self.tx_flen.next = self.tx_keep_b.val();
        } else if self.t_a_last.q.val() {
            self.tx_flen.next = self.tx_keep_a.val() + 64;
        }
        self.tx_vlan.next = self.tx_window.val().get_bits::<16>(96) == 0x0081;
        self.tx_ip.next = self.tx_window.val() >> 112;
        self.tx_eth_len.next = 14.into();
        self.tx_v4.next = self.tx_window.val().get_bits::<16>(96) == 0x0008;
        self.tx_v6.next = self.tx_window.val().get_bits::<16>(96) == 0xdd86;
        if self.tx_vlan.val() {
            self.tx_ip.next = self.tx_window.val() >> 144;
            self.tx_eth_len.next = 18.into();
            self.tx_v4.next = self.tx_window.val().get_bits::<16>(128) == 0x0008;
            self.tx_v6.next = self.tx_window.val().get_bits::<16>(128) == 0xdd86;
        }
        self.tx_v4.next = self.tx_v4.val()
            & (self.tx_ip.val().get_bits::<8>(0) == 0x45)
            & ((self.tx_ip.val().get_bits::<16>(48) & 0xff3f) == 0);
        self.tx_v6.next = self.tx_v6.val() & (self.tx_ip.val().get_bits::<4>(4) == 6);
        // IPv4: total length (bytes 2, 3), destination at byte 16.
        self.tx_udp.next = self.tx_v4.val()
            & (self.tx_ip.val().get_bits::<8>(72) == 17)
            & (self.tx_ip.val().get_bits::<16>(176) == 0xB712);
        self.tx_iplen.next = (bit_cast::<16, 8>(self.tx_ip.val().get_bits::<8>(16)) << 8)
            | bit_cast::<16, 8>(self.tx_ip.val().get_bits::<8>(24));
        self.tx_dst.next = (bit_cast::<128, 32>(self.tx_ip.val().get_bits::<32>(128)) << 96)
            | (bits::<128>(0xffff) << 80);
        self.tx_bth.next = self.tx_ip.val() >> 224;
        self.tx_roce_end.next = self.tx_eth_len.val() + 20 + 8 + 16;
        if self.tx_v6.val() {
            // IPv6: 40 + payload length (bytes 4, 5), destination at byte 24.
            self.tx_udp.next = (self.tx_ip.val().get_bits::<8>(48) == 17)
                & (self.tx_ip.val().get_bits::<16>(336) == 0xB712);
            self.tx_iplen.next = ((bit_cast::<16, 8>(self.tx_ip.val().get_bits::<8>(32)) << 8)
                | bit_cast::<16, 8>(self.tx_ip.val().get_bits::<8>(40)))
                + 40;
            self.tx_dst.next = self.tx_ip.val().get_bits::<128>(192);
            self.tx_bth.next = self.tx_ip.val() >> 384;
            self.tx_roce_end.next = self.tx_eth_len.val() + 40 + 8 + 16;
        }
        // The frame's length from its IP header (at least 60 bytes).
        self.tx_len.next = self.tx_eth_len.val() + self.tx_iplen.val();
        if self.tx_len.val() < 60 {
            self.tx_len.next = 60.into();
        }
        self.tx_need.next = (bit_cast::<48, 16>(self.tx_len.val()) << 13)
            - (bit_cast::<48, 16>(self.tx_len.val()) << 7)
            - (bit_cast::<48, 16>(self.tx_len.val()) << 6);
        self.tx_qp.next = (bit_cast::<24, 8>(self.tx_bth.val().get_bits::<8>(40)) << 16)
            | (bit_cast::<24, 8>(self.tx_bth.val().get_bits::<8>(48)) << 8)
            | bit_cast::<24, 8>(self.tx_bth.val().get_bits::<8>(56));
        self.tx_hits.next = 0.into();
        for i in 0..QPS {
            self.tx_hits.next = self.tx_hits.val().replace_bit(
                i,
                self.qp_valid.val().get_bit(i)
                    & (self.qp_remote_addr.val().get_bits::<128>(128 * i) == self.tx_dst.val())
                    & (self.qp_remote_qp.val().get_bits::<24>(24 * i) == self.tx_qp.val()),
            );
        }
        self.paced.next = self.tx_udp.val()
            & (self.tx_flen.val() >= self.tx_roce_end.val())
            & (self.tx_hits.val() != 0);
        self.sel_level.next = 0.into();
        self.sel_paused.next = 0.into();
        for i in 0..QPS {
            if self.tx_hits.val().get_bit(i) {
                self.sel_level.next = self.bucket[i].level.val();
                self.sel_paused.next = self.paused_until[i].q.val();
            }
        }
        self.tx_ok.next = !self.paced.val()
            | ((self.sel_level.val() >= self.tx_need.val())
                & (self.sel_paused.val() <= self.clocks.q.val()));
        self.t_decided.next = self.t_b_valid.q.val()
            & (!self.t_b_first.q.val() | self.t_b_last.q.val() | self.t_a_valid.q.val());
        self.t_go.next = self.t_decided.val()
            & (!self.t_b_first.q.val() | self.t_released.q.val() | self.tx_ok.val());
        self.tx_head.next = self.t_decided.val() & self.t_b_first.q.val();
        self.tx_paced.next = self.t_decided.val() & self.t_b_first.q.val() & self.paced.val();
        self.tx_m.tdata.next = self.t_b_data.q.val();
        self.tx_m.tkeep.next = self.t_b_keep.q.val();
        self.tx_m.tlast.next = self.t_b_last.q.val();
        self.tx_m.tuser.next = self.t_b_user.q.val();
        self.tx_m.tvalid.next = self.t_go.val();
        self.t_leave.next = self.t_go.val() & self.tx_m.tready.val();
        self.t_a_move.next =
            self.t_a_valid.q.val() & (!self.t_b_valid.q.val() | self.t_leave.val());
        self.tx_s.tready.next = !self.t_a_valid.q.val() | self.t_a_move.val();
        self.t_take.next = self.tx_s.tvalid.val() & (!self.t_a_valid.q.val() | self.t_a_move.val());
        if self.t_go.val() & self.t_b_first.q.val() & !self.tx_m.tready.val() {
            self.t_released.d.next = true;
        }
        if self.t_decided.val() & self.t_b_first.q.val() & !self.t_go.val() {
            self.t_held.d.next = true;
        }
        if self.t_leave.val() {
            self.t_b_valid.d.next = false;
            self.t_released.d.next = false;
            self.t_held.d.next = false;
            if self.t_b_first.q.val() & self.t_held.q.val() {
                self.c_delayed.d.next = self.c_delayed.q.val() + 1;
            }
        }
        if self.t_a_move.val() {
            self.t_b_valid.d.next = true;
            self.t_b_first.d.next = self.t_a_first.q.val();
            self.t_b_data.d.next = self.t_a_data.q.val();
            self.t_b_keep.d.next = self.t_a_keep.q.val();
            self.t_b_last.d.next = self.t_a_last.q.val();
            self.t_b_user.d.next = self.t_a_user.q.val();
            self.t_a_valid.d.next = false;
        }
        if self.t_take.val() {
            self.t_a_valid.d.next = true;
            self.t_a_first.d.next = self.t_in_first.q.val();
            self.t_a_data.d.next = self.tx_s.tdata.val();
            self.t_a_keep.d.next = self.tx_s.tkeep.val();
            self.t_a_last.d.next = self.tx_s.tlast.val();
            self.t_a_user.d.next = self.tx_s.tuser.val();
            self.t_in_first.d.next = self.tx_s.tlast.val();
        }
        self.frames_delayed.next = self.c_delayed.q.val();
        for i in 0..QPS {
            self.bucket[i].ns.next = self.ns_per_clock.val();
            self.bucket[i].full.next = self.burst_millibits.val();
            self.bucket[i].need.next = self.tx_need.val();
            self.bucket[i].take.next = self.t_leave.val()
                & self.t_b_first.q.val()
                & self.paced.val()
                & self.tx_hits.val().get_bit(i);
        }

        // ---- Counters and status. ----
        self.note_done.next = self.d_valid.q.val();
        self.note_reason.next = self.d_reason.q.val();
        if self.applying.val() {
            self.c_applied.d.next = self.c_applied.q.val() + 1;
            if self.capped.val() {
                self.c_capped.d.next = self.c_capped.q.val() + 1;
            }
        }
        if self.d_valid.q.val() & (self.d_reason.q.val() == 1) {
            self.c_malformed.d.next = self.c_malformed.q.val() + 1;
        }
        if self.d_valid.q.val() & (self.d_reason.q.val() == 2) {
            self.c_node.d.next = self.c_node.q.val() + 1;
        }
        if self.d_valid.q.val() & (self.d_reason.q.val() == 3) {
            self.c_inconsistent.d.next = self.c_inconsistent.q.val() + 1;
        }
        if self.d_valid.q.val() & (self.d_reason.q.val() == 4) {
            self.c_qp.d.next = self.c_qp.q.val() + 1;
        }
        self.applied.next = self.c_applied.q.val();
        self.dropped_malformed.next = self.c_malformed.q.val();
        self.dropped_unknown_node.next = self.c_node.q.val();
        self.dropped_inconsistent.next = self.c_inconsistent.q.val();
        self.dropped_unknown_qp.next = self.c_qp.q.val();
        self.legacy_cnps.next = self.c_legacy.q.val();
        self.resumes_capped.next = self.c_capped.q.val();
        self.probe_rate.next = 0.into();
        self.probe_pre_cut.next = 0.into();
        self.probe_paused_until.next = 0.into();
        self.probe_bucket.next = 0.into();
        for i in 0..QPS {
            if self.probe_qp.val().index() == i {
                self.probe_bucket.next = self.bucket[i].level.val();
                self.probe_rate.next = self.rate[i].q.val();
                self.probe_pre_cut.next = self.pre_cut[i].q.val();
                self.probe_paused_until.next = self.paused_until[i].q.val();
            }
        }

        if self.reset.val() {
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.in_first.d.next = true;
            self.dropping.d.next = false;
            self.clocks.d.next = 0.into();
            self.d_valid.d.next = false;
            self.c_applied.d.next = 0.into();
            self.c_malformed.d.next = 0.into();
            self.c_node.d.next = 0.into();
            self.c_inconsistent.d.next = 0.into();
            self.c_qp.d.next = 0.into();
            self.c_legacy.d.next = 0.into();
            self.c_capped.d.next = 0.into();
            self.t_a_valid.d.next = false;
            self.t_b_valid.d.next = false;
            self.t_in_first.d.next = true;
            self.t_released.d.next = false;
            self.t_held.d.next = false;
            self.c_delayed.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reciprocal division equals `/ 100` at every boundary of the
    /// range and around every multiple of 100 the range's ends and a
    /// sweep reach; the proof is in `div100`'s documentation.
    #[test]
    fn lh_16_div100_is_exact_over_the_range() {
        assert_eq!(DIV25_RECIPROCAL, (1u64 << 42).div_ceil(25));
        const { assert!(DIV25_RECIPROCAL * 25 - (1 << 42) < 32) };
        let top = 100 * u32::MAX as u64;
        let mut xs: Vec<u64> = (0..200_000).collect();
        xs.extend(top - 200_000..=top);
        xs.extend(((1 << 39) - 1000)..(1 << 39));
        let mut x = 1u64;
        while x < 1 << 39 {
            for d in 0..3 {
                xs.push(x - 1 + d);
            }
            x = x * 3 + 7;
        }
        for q in (0..(1u64 << 37) / 25).step_by(9_973) {
            for d in 0..3 {
                xs.push((100 * q + 99 + d).min((1 << 39) - 1));
            }
        }
        for x in xs {
            assert_eq!(div100(x), x / 100, "x = {x}");
        }
    }
}
