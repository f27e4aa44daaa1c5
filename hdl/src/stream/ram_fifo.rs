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
//! `empty` depend on registers only. `reset` empties
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
    wr_seen: DFF<Bits<9>>,
    rd: DFF<Bits<9>>,
    is_full: Signal<Local, Bit>,
    is_empty: Signal<Local, Bit>,
    rd_next: Signal<Local, Bits<9>>,
}

impl<D: Synth> Logic for RamFifo<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, wr_seen, rd);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.is_full.next = (self.wr.q.val().get_bits::<8>(0) == self.rd.q.val().get_bits::<8>(0))
            & (self.wr.q.val().get_bit(8) != self.rd.q.val().get_bit(8));
        self.is_empty.next = self.rd.q.val() == self.wr_seen.q.val();
        self.full.next = self.is_full.val();
        self.empty.next = self.is_empty.val();
        self.wr_seen.d.next = self.wr.q.val();
        self.ram.write_address.next = self.wr.q.val().get_bits::<8>(0);
        self.ram.write_data.next = self.push_data.val();
        self.ram.write_enable.next = self.push.val() & !self.is_full.val();
        if self.push.val() & !self.is_full.val() {
            self.wr.d.next = self.wr.q.val() + 1;
        }
        self.rd_next.next = self.rd.q.val();
        if self.pop.val() & !self.is_empty.val() {
            self.rd_next.next = self.rd.q.val() + 1;
        }
        self.rd.d.next = self.rd_next.val();
        self.ram.read_address.next = self.rd_next.val().get_bits::<8>(0);
        self.pop_data.next = self.ram.read_data.val();
        if self.reset.val() {
            self.wr.d.next = 0.into();
            self.wr_seen.d.next = 0.into();
            self.rd.d.next = 0.into();
        }
    }
}
