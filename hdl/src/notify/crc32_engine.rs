//! `Crc32Engine`: CRC-32/IEEE (the zlib CRC the RoCEv2 ICRC uses) over a
//! 512-bit beat stream, 64 bytes per clock, any message length.
//!
//! ```text
//!                +--------------------------------------------+
//!  data       -->| 1 lanes: bytes outside the message zeroed; |
//!  keep       -->|   m (zero bytes after the end), A64*s0(L)  |--> crc        (CRC-32/IEEE, final xor applied)
//!  valid      -->| 2 shares: B64*d in 16 x 32 word parities   |--> crc_valid  (one-clock pulse per message)
//!  first      -->| 3 loop: s = A64*s ^ (xor of the shares)    |
//!  last       -->| 4-6 tail: crc = ~A^-m * s, three 4-way     |
//!  start_lane -->|   steps (m = 64 - bytes in the last beat)  |
//!                +--------------------------------------------+
//! ```
//! Byte `i` of a beat is `data[8i+7:8i]`. `keep` is packed: every beat but
//! the last carries 64 bytes, the last carries lanes `0..n-1` (1 <= n <= 64)
//! and its other lanes may hold anything. `first` starts a message from the
//! initial state; on the first beat the lanes below `start_lane` are not part
//! of the message (0 for a message that starts at lane 0; a one-beat message
//! needs `start_lane < n`), which lets the ICRC be taken straight over
//! Ethernet frame beats without realigning them (see `icrc_masker.rs`).
//! There is no `ready`: one beat per clock, never a stall.
//!
//! Latency six clocks ([`LATENCY`]): when the last beat is taken at a clock
//! edge, `crc` and `crc_valid` change at the sixth edge after it, and
//! `crc_valid` stays high for one clock. Back-to-back messages, a one-beat
//! message on every clock included, each get their pulse. A synchronous
//! `reset` cancels any pending result.
//!
//! How (IEEE 802.3 clause 3.2.9 CRC; IBTA Annex A17.4.1 for its use as the
//! ICRC): the CRC register update is linear over GF(2), so 64 bytes at once
//! is `s' = A64*s ^ B64*d` with matrices computed in Rust at construction; each
//! output bit is the parity of the state and data bits its row selects. The
//! last beat is processed as a full beat with its unused lanes zeroed, which
//! is the true state advanced by `m = 64 - n` zero bytes; the tail
//! multiplies by `A^-m` (the CRC step with a zero byte is invertible since the
//! polynomial has a constant term) to undo them. That costs a 32x32 matrix
//! selected by `m` after the loop instead of a byte-count-dependent data path:
//! no byte shifter, no per-length data matrices. `A^-m` is applied as
//! `A^-16a * A^-4b * A^-c` (`m = 16a + 4b + c`), one factor per stage: each
//! stage computes its three constant products and picks one by two bits of
//! `m` (so `m` drives 32 selectors per stage). A message starting at lane `L` starts from `s0(L) = A^-L *
//! 0xFFFFFFFF`; its first beat's state part `A64 * s0(L)` is a constant
//! picked by `L` in stage 1, so the loop never sees `L`.
//!
//! Pipelined for the 200 MHz of issue 7 (HW-05): the data part `B64*d`
//! (7,989 inputs, 266 per output bit) is two stages ahead of the loop, as
//! sixteen registered 32-bit shares per output bit, so the loop is the
//! parity of about 16 state bits and 16 shares (three LUT4 levels, as with
//! eight 64-bit shares, whose own trees were one level deeper); the tail reads a copy of the state
//! register, so the loop's register drives the loop only. Logic (counted by
//! `lh_12_xor_budget_is_as_documented`): 523 state and 7,989 data parity
//! inputs, 9 constant 32x32 tail products, the last-lane encoder (one-hot, then six
//! 32-input ORs) and 32 first-beat selectors. Measured figures are in
//! docs/performance.md ("Synthesis"). The two-clock version before it (the
//! whole beat update in the loop, one 64-way tail) routed at 162.6 MHz on
//! the ECP5.
//!
//! Issue 4: the ICRC of generated RoCEv2 notifications (LH-12; the Long-haul
//! CNP draft's RoCEv2 format, the standard CNP of FCN-05, Rate Advice).

use rust_hdl::prelude::*;

/// Reflected CRC-32/IEEE polynomial.
pub const POLY_REFLECTED: u32 = 0xEDB8_8320;
/// Initial CRC register value (and final xor).
pub const CRC_INIT: u32 = 0xFFFF_FFFF;
/// Bytes per beat.
pub const BEAT_BYTES: usize = 64;
/// Clocks from the edge that takes a message's last beat to the edge that
/// raises its `crc_valid`.
pub const LATENCY: usize = 6;

/// The raw CRC register after `bytes` from `state` (no initial value, no
/// final xor), one bit at a time: the definition the matrices are built from.
pub fn crc_register_after(mut state: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        state ^= b as u32;
        for _ in 0..8 {
            state = if state & 1 != 0 {
                (state >> 1) ^ POLY_REFLECTED
            } else {
                state >> 1
            };
        }
    }
    state
}

/// The register that, advanced by `zero_bytes` zero bytes, gives `state`.
pub fn crc_register_before_zeros(mut state: u32, zero_bytes: usize) -> u32 {
    for _ in 0..8 * zero_bytes {
        // The forward step sets bit 31 exactly when it shifted a 1 out.
        state = if state & 0x8000_0000 != 0 {
            ((state ^ POLY_REFLECTED) << 1) | 1
        } else {
            state << 1
        };
    }
    state
}

/// Row `j` of `A64` as a 32-bit mask over the state: output bit `j` of a full
/// beat is the parity of `state & rows[j]` (plus the data part).
pub fn beat_state_rows() -> [u32; 32] {
    let mut rows = [0u32; 32];
    for k in 0..32 {
        let column = crc_register_after(1 << k, &[0; BEAT_BYTES]);
        for (j, row) in rows.iter_mut().enumerate() {
            if column >> j & 1 != 0 {
                *row |= 1 << k;
            }
        }
    }
    rows
}

/// Row `j` of `B64` as 8 little-endian words over the 512 data bits.
pub fn beat_data_rows() -> [[u64; 8]; 32] {
    let mut rows = [[0u64; 8]; 32];
    for p in 0..8 * BEAT_BYTES {
        let mut beat = [0u8; BEAT_BYTES];
        beat[p / 8] = 1 << (p % 8);
        let column = crc_register_after(0, &beat);
        for (j, row) in rows.iter_mut().enumerate() {
            if column >> j & 1 != 0 {
                row[p / 64] |= 1 << (p % 64);
            }
        }
    }
    rows
}

fn bits512(words: &[u64; 8]) -> Bits<512> {
    let mut v = Bits::<512>::default();
    for (i, &w) in words.iter().enumerate() {
        v = v | (bit_cast::<512, 64>(bits::<64>(w)) << (64 * i as u64));
    }
    v
}

#[derive(LogicBlock)]
pub struct Crc32Engine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Beat bytes, byte `i` at `data[8i+7:8i]`.
    pub data: Signal<In, Bits<512>>,
    /// Valid lanes, packed (`0..n-1`); only the last beat may be partial.
    pub keep: Signal<In, Bit64>,
    pub valid: Signal<In, Bit>,
    /// First beat of a message.
    pub first: Signal<In, Bit>,
    /// Last beat of a message.
    pub last: Signal<In, Bit>,
    /// On the first beat, the lane the message starts at.
    pub start_lane: Signal<In, Bits<6>>,
    /// CRC-32/IEEE of the message (final xor applied), valid with `crc_valid`.
    pub crc: Signal<Out, Bits<32>>,
    pub crc_valid: Signal<Out, Bit>,
    // Matrices (see the module comment).
    state_rows: Vec<Constant<Bits<32>>>,
    data_rows: Vec<Constant<Bits<512>>>,
    first_columns: Vec<Constant<Bit64>>,
    unadvance_1: Vec<Constant<Bits<32>>>,
    unadvance_4: Vec<Constant<Bits<32>>>,
    unadvance_16: Vec<Constant<Bits<32>>>,
    // Lane helpers.
    all_lanes: Constant<Bit64>,
    lane_clear: Vec<Constant<Bits<512>>>,
    lanes_with_index_bit: Vec<Constant<Bit64>>,
    // Stage 1: the message's bytes of the beat (the rest zeroed).
    s1_valid: DFF<Bit>,
    s1_first: DFF<Bit>,
    s1_last: DFF<Bit>,
    s1_bytes: DFF<Bits<512>>,
    s1_zero_bytes: DFF<Bits<6>>,
    s1_first_part: DFF<Bits<32>>,
    // Stage 2: 16 x 32 partial parities (bit 32w + j: 32-bit word w's
    // share of output bit j).
    s2_valid: DFF<Bit>,
    s2_first: DFF<Bit>,
    s2_last: DFF<Bit>,
    s2_partial: DFF<Bits<512>>,
    s2_zero_bytes: DFF<Bits<6>>,
    s2_first_part: DFF<Bits<32>>,
    // Stage 3: the CRC register (the loop), and a copy of its last value
    // for the tail (so the loop's register drives the loop only).
    state: DFF<Bits<32>>,
    tail_pending: DFF<Bit>,
    tail_state: DFF<Bits<32>>,
    tail_zero_bytes: DFF<Bits<6>>,
    // Stages 4 and 5: undo `m mod 4`, then `4 * (m / 4 mod 4)` zero bytes.
    t1_valid: DFF<Bit>,
    t1_state: DFF<Bits<32>>,
    t1_zero_bytes: DFF<Bits<4>>,
    t2_valid: DFF<Bit>,
    t2_state: DFF<Bits<32>>,
    t2_zero_bytes: DFF<Bits<2>>,
    // Stage 6: undo `16 * (m / 16)` zero bytes, final xor.
    crc_out: DFF<Bits<32>>,
    crc_out_valid: DFF<Bit>,
    // Combinational.
    lanes_in_message: Signal<Local, Bit64>,
    message_bytes: Signal<Local, Bits<512>>,
    last_lane: Signal<Local, Bit64>,
    zero_bytes: Signal<Local, Bits<6>>,
    first_part: Signal<Local, Bits<32>>,
    row_bytes: Signal<Local, Bits<512>>,
    partial: Signal<Local, Bits<512>>,
    state_part: Signal<Local, Bits<32>>,
    data_part: Signal<Local, Bits<32>>,
    by_1: Signal<Local, Bits<32>>,
    by_2: Signal<Local, Bits<32>>,
    by_3: Signal<Local, Bits<32>>,
}

/// 64-bit value (one bit per lane, or one per `m`).
type Bit64 = Bits<64>;

/// Row `j`'s bit `l` of `A64 * s0(l)`: a first beat's state part, with
/// `s0(l)` the start state of a message beginning at lane `l`.
pub fn first_part_columns() -> [u64; 32] {
    let mut columns = [0u64; 32];
    for l in 0..64 {
        let start = crc_register_before_zeros(CRC_INIT, l);
        let part = crc_register_after(start, &[0; BEAT_BYTES]);
        for (j, column) in columns.iter_mut().enumerate() {
            if part >> j & 1 != 0 {
                *column |= 1 << l;
            }
        }
    }
    columns
}

/// `A^-(step * i)` for `i` in 0..4, as `rows[32*i + j]` = row `j` (a
/// mask over the state) of the matrix; the tail's three 4-way stages use
/// `step` 1, 4, then 16.
pub fn unadvance_rows_by(step: usize) -> Vec<u32> {
    let mut rows = vec![0u32; 4 * 32];
    for i in 0..4 {
        for k in 0..32 {
            let column = crc_register_before_zeros(1 << k, step * i);
            for j in 0..32 {
                if column >> j & 1 != 0 {
                    rows[32 * i + j] |= 1 << k;
                }
            }
        }
    }
    rows
}

impl Default for Crc32Engine {
    fn default() -> Self {
        let lane_clear = (0..BEAT_BYTES)
            .map(|lane| {
                let mut words = [u64::MAX; 8];
                words[lane / 8] &= !(0xFFu64 << (8 * (lane % 8)));
                Constant::new(bits512(&words))
            })
            .collect();
        let rows = |rows: Vec<u32>| {
            rows.into_iter()
                .map(|r| Constant::new(bits::<32>(r as u64)))
                .collect()
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            valid: Default::default(),
            first: Default::default(),
            last: Default::default(),
            start_lane: Default::default(),
            crc: Default::default(),
            crc_valid: Default::default(),
            state_rows: beat_state_rows()
                .iter()
                .map(|&r| Constant::new((r as u64).to_bits()))
                .collect(),
            data_rows: beat_data_rows()
                .iter()
                .map(|r| Constant::new(bits512(r)))
                .collect(),
            first_columns: first_part_columns()
                .iter()
                .map(|&c| Constant::new(bits::<64>(c)))
                .collect(),
            unadvance_1: rows(unadvance_rows_by(1)),
            unadvance_4: rows(unadvance_rows_by(4)),
            unadvance_16: rows(unadvance_rows_by(16)),
            all_lanes: Constant::new(bits::<64>(u64::MAX)),
            lane_clear,
            lanes_with_index_bit: (0..6)
                .map(|b| {
                    let lanes = (0..64u64).filter(|l| l >> b & 1 != 0);
                    Constant::new(bits::<64>(lanes.fold(0, |m, l| m | 1 << l)))
                })
                .collect(),
            s1_valid: Default::default(),
            s1_first: Default::default(),
            s1_last: Default::default(),
            s1_bytes: Default::default(),
            s1_zero_bytes: Default::default(),
            s1_first_part: Default::default(),
            s2_valid: Default::default(),
            s2_first: Default::default(),
            s2_last: Default::default(),
            s2_partial: Default::default(),
            s2_zero_bytes: Default::default(),
            s2_first_part: Default::default(),
            state: Default::default(),
            tail_pending: Default::default(),
            tail_state: Default::default(),
            tail_zero_bytes: Default::default(),
            t1_valid: Default::default(),
            t1_state: Default::default(),
            t1_zero_bytes: Default::default(),
            t2_valid: Default::default(),
            t2_state: Default::default(),
            t2_zero_bytes: Default::default(),
            crc_out: Default::default(),
            crc_out_valid: Default::default(),
            lanes_in_message: Default::default(),
            message_bytes: Default::default(),
            last_lane: Default::default(),
            zero_bytes: Default::default(),
            first_part: Default::default(),
            row_bytes: Default::default(),
            partial: Default::default(),
            state_part: Default::default(),
            data_part: Default::default(),
            by_1: Default::default(),
            by_2: Default::default(),
            by_3: Default::default(),
        }
    }
}

impl Logic for Crc32Engine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_valid,
            s1_first,
            s1_last,
            s1_bytes,
            s1_zero_bytes,
            s1_first_part,
            s2_valid,
            s2_first,
            s2_last,
            s2_partial,
            s2_zero_bytes,
            s2_first_part,
            state,
            tail_pending,
            tail_state,
            tail_zero_bytes,
            t1_valid,
            t1_state,
            t1_zero_bytes,
            t2_valid,
            t2_state,
            t2_zero_bytes,
            crc_out,
            crc_out_valid
        );
        self.crc.next = self.crc_out.q.val();
        self.crc_valid.next = self.crc_out_valid.q.val();

        // Each stage computes only when its input is valid, so that a
        // simulator skips the wide logic on idle clocks (the hardware is
        // the same).

        // Stage 1: the bytes of the message in this beat, the rest zeroed;
        // the zero bytes after the message in a last beat; a first beat's
        // state part (a constant picked by the start lane).
        self.lanes_in_message.next = 0.into();
        self.message_bytes.next = 0.into();
        self.last_lane.next = 0.into();
        self.zero_bytes.next = 0.into();
        self.first_part.next = 0.into();
        self.s1_valid.d.next = self.valid.val();
        if self.valid.val() {
            self.lanes_in_message.next = self.keep.val();
            if self.first.val() {
                self.lanes_in_message.next =
                    self.keep.val() & (self.all_lanes.val() << self.start_lane.val());
            }
            self.message_bytes.next = self.data.val();
            for lane in 0..64 {
                if !self.lanes_in_message.val().get_bit(lane) {
                    self.message_bytes.next =
                        self.message_bytes.val() & self.lane_clear[lane].val();
                }
            }
            // Zero bytes after the message in a last beat: 63 - (last lane), the
            // complement of the last lane's index; keep is packed, so the last
            // lane is where keep steps down (one-hot, then encoded by OR trees).
            self.last_lane.next = self.keep.val() & !(self.keep.val() >> 1);
            for b in 0..6 {
                self.zero_bytes.next = self.zero_bytes.val().replace_bit(
                    b,
                    !(self.last_lane.val() & self.lanes_with_index_bit[b].val()).any(),
                );
            }
            for j in 0..32 {
                self.first_part.next = self.first_part.val().replace_bit(
                    j,
                    self.first_columns[j]
                        .val()
                        .get_bit(self.start_lane.val().index()),
                );
            }
            self.s1_first.d.next = self.first.val();
            self.s1_last.d.next = self.last.val();
            self.s1_bytes.d.next = self.message_bytes.val();
            self.s1_zero_bytes.d.next = self.zero_bytes.val();
            self.s1_first_part.d.next = self.first_part.val();
        }

        // Stage 2: each output bit's data parity in sixteen 32-bit shares.
        self.row_bytes.next = 0.into();
        self.partial.next = 0.into();
        self.s2_valid.d.next = self.s1_valid.q.val();
        if self.s1_valid.q.val() {
            for j in 0..32 {
                self.row_bytes.next = self.s1_bytes.q.val() & self.data_rows[j].val();
                for w in 0..16 {
                    self.partial.next = self.partial.val().replace_bit(
                        32 * w + j,
                        self.row_bytes.val().get_bits::<32>(32 * w).xor(),
                    );
                }
            }
            self.s2_first.d.next = self.s1_first.q.val();
            self.s2_last.d.next = self.s1_last.q.val();
            self.s2_partial.d.next = self.partial.val();
            self.s2_zero_bytes.d.next = self.s1_zero_bytes.q.val();
            self.s2_first_part.d.next = self.s1_first_part.q.val();
        }

        // Stage 3, the loop: state' = A64 * state ^ B64 * data (A64 * s0
        // on a first beat, from stage 1).
        self.state_part.next = 0.into();
        self.data_part.next = 0.into();
        self.tail_pending.d.next = false;
        if self.s2_valid.q.val() {
            for w in 0..16 {
                self.data_part.next =
                    self.data_part.val() ^ self.s2_partial.q.val().get_bits::<32>(32 * w);
            }
            if self.s2_first.q.val() {
                self.state_part.next = self.s2_first_part.q.val();
            } else {
                for j in 0..32 {
                    self.state_part.next = self
                        .state_part
                        .val()
                        .replace_bit(j, (self.state.q.val() & self.state_rows[j].val()).xor());
                }
            }
            self.state.d.next = self.state_part.val() ^ self.data_part.val();
            self.tail_pending.d.next = self.s2_last.q.val();
            if self.s2_last.q.val() {
                self.tail_state.d.next = self.state_part.val() ^ self.data_part.val();
                self.tail_zero_bytes.d.next = self.s2_zero_bytes.q.val();
            }
        }

        // Stages 4 to 6, the tail: undo the m zero bytes of the last beat
        // (A^-m = A^-(16 * (m / 16)) * A^-(4 * (m / 4 mod 4)) * A^-(m mod 4)),
        // final xor. Each stage computes its three non-identity products
        // (constant matrices, 32 parity trees each) and two bits of m pick
        // one per output bit: m drives 32 four-way selectors per stage, not
        // every matrix entry.
        self.by_1.next = 0.into();
        self.by_2.next = 0.into();
        self.by_3.next = 0.into();
        self.t1_valid.d.next = self.tail_pending.q.val();
        if self.tail_pending.q.val() {
            for j in 0..32 {
                self.by_1.next = self.by_1.val().replace_bit(
                    j,
                    (self.tail_state.q.val() & self.unadvance_1[32 + j].val()).xor(),
                );
                self.by_2.next = self.by_2.val().replace_bit(
                    j,
                    (self.tail_state.q.val() & self.unadvance_1[64 + j].val()).xor(),
                );
                self.by_3.next = self.by_3.val().replace_bit(
                    j,
                    (self.tail_state.q.val() & self.unadvance_1[96 + j].val()).xor(),
                );
            }
            self.t1_state.d.next = self.tail_state.q.val();
            if self.tail_zero_bytes.q.val().get_bits::<2>(0) == 1 {
                self.t1_state.d.next = self.by_1.val();
            } else if self.tail_zero_bytes.q.val().get_bits::<2>(0) == 2 {
                self.t1_state.d.next = self.by_2.val();
            } else if self.tail_zero_bytes.q.val().get_bits::<2>(0) == 3 {
                self.t1_state.d.next = self.by_3.val();
            }
            self.t1_zero_bytes.d.next = self.tail_zero_bytes.q.val().get_bits::<4>(2);
        }
        self.t2_valid.d.next = self.t1_valid.q.val();
        if self.t1_valid.q.val() {
            for j in 0..32 {
                self.by_1.next = self.by_1.val().replace_bit(
                    j,
                    (self.t1_state.q.val() & self.unadvance_4[32 + j].val()).xor(),
                );
                self.by_2.next = self.by_2.val().replace_bit(
                    j,
                    (self.t1_state.q.val() & self.unadvance_4[64 + j].val()).xor(),
                );
                self.by_3.next = self.by_3.val().replace_bit(
                    j,
                    (self.t1_state.q.val() & self.unadvance_4[96 + j].val()).xor(),
                );
            }
            self.t2_state.d.next = self.t1_state.q.val();
            if self.t1_zero_bytes.q.val().get_bits::<2>(0) == 1 {
                self.t2_state.d.next = self.by_1.val();
            } else if self.t1_zero_bytes.q.val().get_bits::<2>(0) == 2 {
                self.t2_state.d.next = self.by_2.val();
            } else if self.t1_zero_bytes.q.val().get_bits::<2>(0) == 3 {
                self.t2_state.d.next = self.by_3.val();
            }
            self.t2_zero_bytes.d.next = self.t1_zero_bytes.q.val().get_bits::<2>(2);
        }
        self.crc_out_valid.d.next = self.t2_valid.q.val();
        if self.t2_valid.q.val() {
            for j in 0..32 {
                self.by_1.next = self.by_1.val().replace_bit(
                    j,
                    (self.t2_state.q.val() & self.unadvance_16[32 + j].val()).xor(),
                );
                self.by_2.next = self.by_2.val().replace_bit(
                    j,
                    (self.t2_state.q.val() & self.unadvance_16[64 + j].val()).xor(),
                );
                self.by_3.next = self.by_3.val().replace_bit(
                    j,
                    (self.t2_state.q.val() & self.unadvance_16[96 + j].val()).xor(),
                );
            }
            self.crc_out.d.next = !self.t2_state.q.val();
            if self.t2_zero_bytes.q.val() == 1 {
                self.crc_out.d.next = !self.by_1.val();
            } else if self.t2_zero_bytes.q.val() == 2 {
                self.crc_out.d.next = !self.by_2.val();
            } else if self.t2_zero_bytes.q.val() == 3 {
                self.crc_out.d.next = !self.by_3.val();
            }
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.tail_pending.d.next = false;
            self.t1_valid.d.next = false;
            self.t2_valid.d.next = false;
            self.crc_out_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_packet::crc32::crc32_ieee;
    use std::time::Instant;

    #[test]
    fn hw_01_crc32_engine_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<Crc32Engine>("crc32_engine");
    }

    /// The matrices against the byte-serial definition on random states and beats.
    #[test]
    fn lh_12_beat_matrices_match_the_serial_crc() {
        let state_rows = beat_state_rows();
        let data_rows = beat_data_rows();
        let mut rng = XorShift(0x1234_5678_9abc_def0);
        for _ in 0..200 {
            let state = rng.next() as u32;
            let beat: Vec<u8> = (0..BEAT_BYTES).map(|_| rng.next() as u8).collect();
            let words: Vec<u64> = beat
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let mut out = 0u32;
            for j in 0..32 {
                let mut parity = (state & state_rows[j]).count_ones();
                for w in 0..8 {
                    parity += (words[w] & data_rows[j][w]).count_ones();
                }
                out |= (parity & 1) << j;
            }
            assert_eq!(out, crc_register_after(state, &beat));
        }
    }

    #[test]
    fn lh_12_unadvance_undoes_zero_bytes() {
        let by_1 = unadvance_rows_by(1);
        let by_4 = unadvance_rows_by(4);
        let by_16 = unadvance_rows_by(16);
        let times = |rows: &[u32], i: usize, v: u32| {
            let mut out = 0u32;
            for j in 0..32 {
                out |= ((rows[32 * i + j] & v).count_ones() & 1) << j;
            }
            out
        };
        let mut rng = XorShift(7);
        let ms: Vec<usize> = (0..64)
            .chain((0..100).map(|_| (rng.next() % 64) as usize))
            .collect();
        for m in ms {
            let state = rng.next() as u32;
            let advanced = crc_register_after(state, &vec![0; m]);
            let back = times(
                &by_16,
                m / 16,
                times(&by_4, m / 4 % 4, times(&by_1, m % 4, advanced)),
            );
            assert_eq!(back, state, "m = {m}");
        }
        assert_eq!(
            crc_register_after(0, b"123456789") ^ crc_register_after(CRC_INIT, &[0; 9]),
            crc_register_after(CRC_INIT, b"123456789"),
            "the update is linear"
        );
    }

    /// Parity-tree inputs per stage, the figures in the module comment.
    #[test]
    fn lh_12_xor_budget_is_as_documented() {
        let state: u32 = beat_state_rows().iter().map(|r| r.count_ones()).sum();
        let data: u32 = beat_data_rows()
            .iter()
            .map(|r| r.iter().map(|w| w.count_ones()).sum::<u32>())
            .sum();
        println!("beat stage: {state} state + {data} data parity inputs");
        assert_eq!((state, data), (523, 7989));
    }

    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// One beat as the engine's inputs.
    #[derive(Clone)]
    struct Beat {
        data: [u64; 8],
        keep: u64,
        first: bool,
        last: bool,
        start_lane: u64,
    }

    /// Splits a message into beats starting at `start_lane`; lanes outside the
    /// message hold random bytes, which the engine must ignore.
    fn beats_of(message: &[u8], start_lane: usize, rng: &mut XorShift) -> Vec<Beat> {
        let mut lanes: Vec<u8> = (0..start_lane).map(|_| rng.next() as u8).collect();
        lanes.extend_from_slice(message);
        let total = lanes.len();
        let beats = total.div_ceil(BEAT_BYTES);
        lanes.resize(beats * BEAT_BYTES, 0);
        for b in &mut lanes[total..] {
            *b = rng.next() as u8;
        }
        (0..beats)
            .map(|i| {
                let chunk = &lanes[i * BEAT_BYTES..(i + 1) * BEAT_BYTES];
                let mut data = [0u64; 8];
                for (w, c) in data.iter_mut().zip(chunk.chunks(8)) {
                    *w = u64::from_le_bytes(c.try_into().unwrap());
                }
                let n = (total - i * BEAT_BYTES).min(BEAT_BYTES);
                Beat {
                    data,
                    keep: if n == 64 { u64::MAX } else { (1 << n) - 1 },
                    first: i == 0,
                    last: i + 1 == beats,
                    start_lane: if i == 0 { start_lane as u64 } else { 0 },
                }
            })
            .collect()
    }

    /// Runs the engine in rust-hdl's simulator over `beats`, an idle clock
    /// wherever `idle(clock)` says; returns each CRC with the clock it came
    /// out on and the clock each last beat was taken on.
    fn run(beats: Vec<Beat>, idle: fn(usize) -> bool) -> (Vec<(usize, u32)>, Vec<usize>) {
        use std::sync::{Arc, Mutex};
        let results = Arc::new(Mutex::new((Vec::new(), Vec::new())));
        let out = results.clone();
        let mut uut = Crc32Engine::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Crc32Engine>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<Crc32Engine>| {
            let mut x = sim.init()?;
            let mut next = 0;
            let mut clock = 0;
            let mut drain = LATENCY + 2;
            while drain > 0 {
                if next == beats.len() {
                    drain -= 1;
                }
                x.valid.next = false;
                if next < beats.len() && !idle(clock) {
                    let beat = &beats[next];
                    x.data.next = bits512(&beat.data);
                    x.keep.next = bits::<64>(beat.keep);
                    x.first.next = beat.first;
                    x.last.next = beat.last;
                    x.start_lane.next = beat.start_lane.into();
                    x.valid.next = true;
                    if beat.last {
                        out.lock().unwrap().1.push(clock);
                    }
                    next += 1;
                }
                wait_clock_cycle!(sim, clock, x);
                clock += 1;
                if x.crc_valid.val() {
                    out.lock().unwrap().0.push((clock, x.crc.val().to_u32()));
                }
                if clock > 100_000 {
                    break;
                }
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let r = results.lock().unwrap();
        (r.0.clone(), r.1.clone())
    }

    /// Checks CRCs and latency; returns clocks simulated.
    fn check(messages: &[(Vec<u8>, usize)], idle: fn(usize) -> bool, seed: u64) -> usize {
        let mut rng = XorShift(seed);
        let beats: Vec<Beat> = messages
            .iter()
            .flat_map(|(m, lane)| beats_of(m, *lane, &mut rng))
            .collect();
        let (crcs, lasts) = run(beats, idle);
        assert_eq!(crcs.len(), messages.len());
        for (i, ((m, lane), (clock, crc))) in messages.iter().zip(&crcs).enumerate() {
            assert_eq!(
                *crc,
                crc32_ieee(m),
                "message {i}: {} bytes from lane {lane}",
                m.len()
            );
            // Taken at the edge ending clock `lasts[i]`; out `LATENCY` edges later.
            assert_eq!(*clock, lasts[i] + LATENCY, "latency of message {i}");
        }
        crcs.last().map_or(0, |c| c.0)
    }

    fn timed(name: &str, f: impl FnOnce() -> usize) {
        let t = Instant::now();
        let clocks = f();
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name}: {clocks} clocks in {s:.2} s ({:.0} clocks/s)",
            clocks as f64 / s
        );
    }

    fn random_message(len: usize, rng: &mut XorShift) -> Vec<u8> {
        (0..len).map(|_| rng.next() as u8).collect()
    }

    #[test]
    fn lh_12_every_length_1_to_200_back_to_back() {
        let mut rng = XorShift(1);
        let messages: Vec<_> = (1..=200)
            .map(|n| (random_message(n, &mut rng), 0))
            .collect();
        timed("lengths 1..=200 back to back", || {
            check(&messages, |_| false, 2)
        });
    }

    #[test]
    fn lh_12_random_multi_beat_with_idle_clocks() {
        let mut rng = XorShift(3);
        let messages: Vec<_> = (0..40)
            .map(|_| {
                let len = 1 + (rng.next() % 300) as usize;
                (random_message(len, &mut rng), 0)
            })
            .collect();
        // Idle one clock in four, and longer gaps now and then.
        timed("random up to 300 bytes, idle clocks", || {
            check(&messages, |c| c % 4 == 3 || c % 37 < 3, 4)
        });
    }

    /// Messages starting inside the first beat (the ICRC over Ethernet beats).
    #[test]
    fn lh_12_messages_starting_at_any_lane() {
        let mut rng = XorShift(5);
        let messages: Vec<_> = (0..64)
            .map(|lane| {
                let len = 1 + (rng.next() % 150) as usize;
                (random_message(len, &mut rng), lane)
            })
            .collect();
        timed("start lanes 0..64", || check(&messages, |c| c % 5 == 0, 6));
    }

    /// One-beat messages on every clock, and all-zero / all-ones bytes.
    #[test]
    fn lh_12_one_beat_messages_every_clock() {
        let mut messages = vec![
            (vec![0u8; 64], 0),
            (vec![0xFF; 64], 0),
            (b"123456789".to_vec(), 0),
            (vec![0u8; 1], 0),
            (vec![0xFF; 1], 63),
        ];
        let mut rng = XorShift(9);
        for _ in 0..30 {
            let len = 1 + (rng.next() % 64) as usize;
            messages.push((random_message(len, &mut rng), 0));
        }
        timed("one-beat messages", || check(&messages, |_| false, 10));
    }
}
