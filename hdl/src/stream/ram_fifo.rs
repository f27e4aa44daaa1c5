//! `RamFifo`: a 256-entry first-word-fall-through FIFO in one block RAM,
//! with a synchronous reset.
//!
//! ```text
//!  push, push_data -->+-------------------+--> pop_data (the oldest entry)
//!  full           <---| RAM 256 x D       |--> empty
//!                     | wr, rd pointers   |<-- pop
//!                     +-------------------+
//! ```
//! `push` while not `full` writes `push_data`; `pop` while not `empty`
//! removes the entry on `pop_data`. The RAM's read port is registered
//! (a block RAM's output register): the read address is the read pointer,
//! or the next one in the clock of a pop, so `pop_data` shows the oldest
//! entry in the clock after and back-to-back pops take one entry per
//! clock. An entry is readable two clocks after its push: `empty` compares
//! the read pointer with the write pointer of one clock earlier, so the
//! RAM never reads an address in the clock it is written. `full` and
//! `empty` are registers themselves (computed from the pointers' next
//! values), so a user's pop logic starts at a flip-flop, not at a pointer
//! compare, on its way to the RAM's read address. Their next values are
//! picked by `push` and `pop` from compares of the registered pointers
//! (a push alone fills it: `wr + 1` against `rd`; a pop leaves data:
//! `rd + 1` against `wr`), so `push` and `pop` reach the flags through a
//! gate or two, not through an increment and a compare. `reset` empties
//! it (the RAM keeps its contents, unseen).
//!
//! (rust-hdl's `SynchronousFIFO` works the same way but has no reset.)

use rust_hdl::prelude::*;

/// Entries.
pub const RAM_FIFO_DEPTH: usize = 256;

#[derive(LogicBlock, Default)]
pub struct RamFifo<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, D>,
    pub full: Signal<Out, Bit>,
    pub pop: Signal<In, Bit>,
    pub pop_data: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    ram: RAM<D, 8>,
    wr: DFF<Bits<9>>,
    rd: DFF<Bits<9>>,
    is_full: DFF<Bit>,
    /// Not empty (0 at power-on, like the pointers).
    has_data: DFF<Bit>,
    wr_next: Signal<Local, Bits<9>>,
    rd_next: Signal<Local, Bits<9>>,
    wr_inc: Signal<Local, Bits<9>>,
    rd_inc: Signal<Local, Bits<9>>,
    pushing: Signal<Local, Bit>,
    popping: Signal<Local, Bit>,
}

impl<D: Synth> Logic for RamFifo<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, is_full, has_data);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.full.next = self.is_full.q.val();
        self.empty.next = !self.has_data.q.val();
        self.ram.write_address.next = self.wr.q.val().get_bits::<8>(0);
        self.ram.write_data.next = self.push_data.val();
        self.pushing.next = self.push.val() & !self.is_full.q.val();
        self.popping.next = self.pop.val() & self.has_data.q.val();
        self.ram.write_enable.next = self.pushing.val();
        self.wr_inc.next = self.wr.q.val() + 1;
        self.rd_inc.next = self.rd.q.val() + 1;
        self.wr_next.next = self.wr.q.val();
        if self.pushing.val() {
            self.wr_next.next = self.wr_inc.val();
        }
        self.wr.d.next = self.wr_next.val();
        self.rd_next.next = self.rd.q.val();
        if self.popping.val() {
            self.rd_next.next = self.rd_inc.val();
        }
        self.rd.d.next = self.rd_next.val();
        // Full after this clock: full and no pop, or a push alone that
        // takes the last entry (a push and a pop together keep the count,
        // and a push means it was not full).
        self.is_full.d.next = !self.popping.val()
            & (self.is_full.q.val()
                | (self.pushing.val()
                    & (self.wr_inc.val().get_bits::<8>(0) == self.rd.q.val().get_bits::<8>(0))
                    & (self.wr_inc.val().get_bit(8) != self.rd.q.val().get_bit(8))));
        // Readable entries after this clock (against the write pointer of
        // this clock, see above).
        self.has_data.d.next = self.rd.q.val() != self.wr.q.val();
        if self.popping.val() {
            self.has_data.d.next = self.rd_inc.val() != self.wr.q.val();
        }
        self.ram.read_address.next = self.rd_next.val().get_bits::<8>(0);
        self.pop_data.next = self.ram.read_data.val();
        if self.reset.val() {
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.is_full.d.next = false;
            self.has_data.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn hw_01_ram_fifo_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<RamFifo<Bits<16>>>("ram_fifo");
    }

    /// In rust-hdl's simulator, against a queue: random pushes and pops
    /// (ignored while full / empty), with phases that fill the FIFO to 256
    /// and drain it; in every clock `full` is "256 entries", `empty` is "no
    /// entry pushed two or more clocks ago", `pop_data` the oldest entry;
    /// a reset mid-run empties it.
    #[test]
    fn hw_02_ram_fifo_keeps_order_flags_and_one_entry_per_clock() {
        let mut uut = RamFifo::<Bits<16>>::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RamFifo<Bits<16>>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<RamFifo<Bits<16>>>| {
            let mut x = sim.init()?;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            // (data, clock of its push)
            let mut queue: VecDeque<(u64, u64)> = VecDeque::new();
            let mut seed = 0x2545_F491_4F6C_DD1Du64;
            let (mut filled, mut run, mut longest_run) = (false, 0u32, 0u32);
            for k in 0..3_000u64 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let r = seed % 100;
                if k == 2_000 {
                    x.reset.next = true;
                }
                let (push_pct, pop_pct) = match k {
                    0..=599 => (90, 10),
                    600..=1_199 => (10, 90),
                    _ => (50, 50),
                };
                let push = r < push_pct;
                let pop = (seed >> 8) % 100 < pop_pct;
                let data = (seed >> 20) & 0xFFFF;
                x.push.next = push;
                x.push_data.next = bits::<16>(data);
                x.pop.next = pop;
                // The flags and the head, before this clock's edge.
                let visible = queue.iter().filter(|(_, c)| c + 2 <= k).count();
                sim_assert_eq!(sim, x.full.val(), queue.len() == RAM_FIFO_DEPTH, x);
                sim_assert_eq!(sim, x.empty.val(), visible == 0, x);
                if visible > 0 {
                    sim_assert_eq!(sim, x.pop_data.val(), bits::<16>(queue[0].0), x);
                }
                filled |= queue.len() == RAM_FIFO_DEPTH;
                wait_clock_cycle!(sim, clock, x);
                if k == 2_000 {
                    x.reset.next = false;
                    queue.clear();
                    continue;
                }
                let full = queue.len() == RAM_FIFO_DEPTH;
                if pop && visible > 0 {
                    queue.pop_front();
                    run += 1;
                    longest_run = longest_run.max(run);
                } else {
                    run = 0;
                }
                if push && !full {
                    queue.push_back((data, k));
                }
            }
            sim_assert!(sim, filled, x);
            // Back-to-back pops take one entry per clock.
            sim_assert!(sim, longest_run >= 16, x);
            sim.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
    }
}
