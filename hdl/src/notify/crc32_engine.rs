//! `Crc32Engine`: CRC-32/IEEE (the zlib CRC the RoCEv2 ICRC uses) over a
//! 512-bit beat stream, 64 bytes per clock, any message length.
//!
//! ```text
//!                +-------------------------+
//!  data       -->| beat: state = A64*s ^   |
//!  keep       -->|   B64*(data & lanes)    |--> crc        (CRC-32/IEEE, final xor applied)
//!  valid      -->|                         |--> crc_valid  (one-clock pulse per message)
//!  first      -->| tail: crc = ~A^-m*state |
//!  last       -->|   (m = 64 - bytes in    |
//!  start_lane -->|    the last beat)       |
//!                +-------------------------+
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
//! Latency two clocks: when the last beat is taken at a clock edge, `crc`
//! and `crc_valid` change at the second edge after it, and `crc_valid` stays
//! high for one clock. Back-to-back messages, a one-beat message on every
//! clock included, each get their pulse. A synchronous `reset` cancels any
//! pending result.
//!
//! How (IEEE 802.3 clause 3.2.9 CRC; IBTA Annex A17.4.1 for its use as the
//! ICRC): the CRC register update is linear over GF(2), so 64 bytes at once
//! is `s' = A64*s ^ B64*d` with matrices computed in Rust at construction; each
//! output bit is the parity of the state and data bits its row selects. The
//! last beat is processed as a full beat with its unused lanes zeroed, which
//! is the true state advanced by `m = 64 - n` zero bytes; the tail stage
//! multiplies by `A^-m` (the CRC step with a zero byte is invertible since the
//! polynomial has a constant term) to undo them. That costs one 32x32 matrix
//! selected by `m` after the loop instead of a byte-count-dependent data path:
//! no byte shifter, no per-length data matrices. A message starting at lane
//! `L` uses the start state `A^-L * 0xFFFFFFFF` the same way. The 6-bit `m`
//! and `L` pick each matrix entry through a 64-entry constant (one 6-input
//! LUT each).
//!
//! Logic (counted by `lh_12_xor_budget_is_as_documented`): the beat stage has
//! 32 parity trees over 8,512 inputs in all (523 state bits, 7,989 data bits
//! ANDed with their lane's keep; 266 per output bit), the tail 32 trees of
//! 32 inputs fed by 1,024 entry selectors, plus 32 start-state selectors and
//! the last-lane encoder (one-hot, then six 32-input ORs). Measured with
//! Yosys 0.70 (`synth_xilinx -family xcup`, flattened): about 4,050 LUTs
//! (1,356 of them LUT6), 164 MUXF7/F8 and 72 flip-flops; the worst path is 6
//! LUT6 levels (in the tail). ECP5-5G, placed and routed out of context with
//! nextpnr: 154 MHz, limited by the tail (`tail_zero_bytes` fans out to the
//! 1,024 selectors); the beat stage alone reaches 189 MHz on its state loop.
//! If a faster clock is needed: split the tail in two 8-way stages (latency
//! 3, the loop then limits), then register `B64*d` ahead of the loop
//! (latency 4) so the loop is a 16-input parity.
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

/// `A^-m` for every `m` in 0..64, as `entries[32*j + k]` bit `m` = row `j`,
/// column `k` of `A^-m` (the form the tail stage indexes by `m`).
pub fn unadvance_entries() -> Vec<u64> {
    let mut entries = vec![0u64; 32 * 32];
    for m in 0..64 {
        for k in 0..32 {
            let column = crc_register_before_zeros(1 << k, m);
            for j in 0..32 {
                if column >> j & 1 != 0 {
                    entries[32 * j + k] |= 1 << m;
                }
            }
        }
    }
    entries
}

/// Start state for a message beginning at lane `l`, bit `j` in word `j`
/// bit `l`: `A^-l * 0xFFFFFFFF`, so that the `l` zeroed lanes before it
/// bring the register to the initial value.
pub fn start_state_columns() -> [u64; 32] {
    let mut columns = [0u64; 32];
    for l in 0..64 {
        let state = crc_register_before_zeros(CRC_INIT, l);
        for (j, column) in columns.iter_mut().enumerate() {
            if state >> j & 1 != 0 {
                *column |= 1 << l;
            }
        }
    }
    columns
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
    unadvance: Vec<Constant<Bit64>>,
    start_columns: Vec<Constant<Bit64>>,
    // Lane helpers.
    all_lanes: Constant<Bit64>,
    lane_clear: Vec<Constant<Bits<512>>>,
    lanes_with_index_bit: Vec<Constant<Bit64>>,
    // Beat stage.
    state: DFF<Bits<32>>,
    tail_pending: DFF<Bit>,
    tail_zero_bytes: DFF<Bits<6>>,
    // Tail stage.
    crc_out: DFF<Bits<32>>,
    crc_out_valid: DFF<Bit>,
    // Combinational.
    lanes_in_message: Signal<Local, Bit64>,
    message_bytes: Signal<Local, Bits<512>>,
    last_lane: Signal<Local, Bit64>,
    zero_bytes: Signal<Local, Bits<6>>,
    start_state: Signal<Local, Bits<32>>,
    state_in: Signal<Local, Bits<32>>,
    state_part: Signal<Local, Bits<32>>,
    data_part: Signal<Local, Bits<32>>,
    unadvance_row: Signal<Local, Bits<32>>,
    unadvanced: Signal<Local, Bits<32>>,
}

/// 64-bit value (one bit per lane, or one per `m`).
type Bit64 = Bits<64>;

impl Default for Crc32Engine {
    fn default() -> Self {
        let lane_clear = (0..BEAT_BYTES)
            .map(|lane| {
                let mut words = [u64::MAX; 8];
                words[lane / 8] &= !(0xFFu64 << (8 * (lane % 8)));
                Constant::new(bits512(&words))
            })
            .collect();
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
            unadvance: unadvance_entries()
                .into_iter()
                .map(|e| Constant::new(bits::<64>(e)))
                .collect(),
            start_columns: start_state_columns()
                .iter()
                .map(|&c| Constant::new(bits::<64>(c)))
                .collect(),
            all_lanes: Constant::new(bits::<64>(u64::MAX)),
            lane_clear,
            lanes_with_index_bit: (0..6)
                .map(|b| {
                    let lanes = (0..64u64).filter(|l| l >> b & 1 != 0);
                    Constant::new(bits::<64>(lanes.fold(0, |m, l| m | 1 << l)))
                })
                .collect(),
            state: Default::default(),
            tail_pending: Default::default(),
            tail_zero_bytes: Default::default(),
            crc_out: Default::default(),
            crc_out_valid: Default::default(),
            lanes_in_message: Default::default(),
            message_bytes: Default::default(),
            last_lane: Default::default(),
            zero_bytes: Default::default(),
            start_state: Default::default(),
            state_in: Default::default(),
            state_part: Default::default(),
            data_part: Default::default(),
            unadvance_row: Default::default(),
            unadvanced: Default::default(),
        }
    }
}

impl Logic for Crc32Engine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            tail_pending,
            tail_zero_bytes,
            crc_out,
            crc_out_valid
        );
        self.crc.next = self.crc_out.q.val();
        self.crc_valid.next = self.crc_out_valid.q.val();

        // Beat stage: bytes of the message in this beat, the rest zeroed.
        // Computed only on a valid beat, so that a simulator skips the
        // parity trees on idle clocks (the hardware is the same).
        self.lanes_in_message.next = 0.into();
        self.message_bytes.next = 0.into();
        self.last_lane.next = 0.into();
        self.zero_bytes.next = 0.into();
        self.start_state.next = 0.into();
        self.state_in.next = 0.into();
        self.state_part.next = 0.into();
        self.data_part.next = 0.into();
        self.tail_pending.d.next = false;
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
            self.zero_bytes.next = 0.into();
            for b in 0..6 {
                self.zero_bytes.next = self.zero_bytes.val().replace_bit(
                    b,
                    !(self.last_lane.val() & self.lanes_with_index_bit[b].val()).any(),
                );
            }
            self.start_state.next = 0.into();
            for j in 0..32 {
                self.start_state.next = self.start_state.val().replace_bit(
                    j,
                    self.start_columns[j]
                        .val()
                        .get_bit(self.start_lane.val().index()),
                );
            }
            self.state_in.next = self.state.q.val();
            if self.first.val() {
                self.state_in.next = self.start_state.val();
            }
            self.state_part.next = 0.into();
            self.data_part.next = 0.into();
            for j in 0..32 {
                self.state_part.next = self
                    .state_part
                    .val()
                    .replace_bit(j, (self.state_in.val() & self.state_rows[j].val()).xor());
                self.data_part.next = self.data_part.val().replace_bit(
                    j,
                    (self.message_bytes.val() & self.data_rows[j].val()).xor(),
                );
            }
            self.state.d.next = self.state_part.val() ^ self.data_part.val();
            self.tail_pending.d.next = self.last.val();
            self.tail_zero_bytes.d.next = self.zero_bytes.val();
        }

        // Tail stage: undo the zero bytes of the last beat, final xor.
        self.crc_out_valid.d.next = self.tail_pending.q.val();
        self.unadvance_row.next = 0.into();
        self.unadvanced.next = 0.into();
        if self.tail_pending.q.val() {
            for j in 0..32 {
                for k in 0..32 {
                    self.unadvance_row.next = self.unadvance_row.val().replace_bit(
                        k,
                        self.unadvance[j * 32 + k]
                            .val()
                            .get_bit(self.tail_zero_bytes.q.val().index()),
                    );
                }
                self.unadvanced.next = self
                    .unadvanced
                    .val()
                    .replace_bit(j, (self.state.q.val() & self.unadvance_row.val()).xor());
            }
            self.crc_out.d.next = !self.unadvanced.val();
        }
        if self.reset.val() {
            self.tail_pending.d.next = false;
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
        let entries = unadvance_entries();
        let mut rng = XorShift(7);
        for _ in 0..100 {
            let state = rng.next() as u32;
            let m = (rng.next() % 64) as usize;
            let advanced = crc_register_after(state, &vec![0; m]);
            let mut back = 0u32;
            for j in 0..32 {
                let mut parity = 0;
                for k in 0..32 {
                    parity ^= (entries[32 * j + k] >> m) as u32 & (advanced >> k) & 1;
                }
                back |= parity << j;
            }
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
            let mut drain = 4;
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
            // Taken at the edge ending clock `lasts[i]`; out two edges later.
            assert_eq!(*clock, lasts[i] + 2, "latency of message {i}");
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
