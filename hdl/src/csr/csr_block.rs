//! `CsrBlock`: the AXI4-Lite register file behind PCIe BAR0, built from
//! `cngw_regmap::REGISTERS` (the one definition of the register map).
//!
//! ```text
//!               +-----------------+
//!  s_axil.aw* ->|                 |-> values[i]   (read-write storage, write pulses)
//!  s_axil.w*  ->|  decode by the  |
//!  s_axil.b*  <-|  register map   |<- status[i]   (counters and other RO values)
//!  s_axil.ar* ->|                 |
//!  s_axil.r*  <-|                 |
//!               +-----------------+
//! ```
//! `values` and `status` are indexed like `REGISTERS`. A write needs both
//! address and data (the slave accepts them together); it answers OKAY on a
//! writable register, SLVERR on a read-only one (nothing changes), DECERR on
//! an unmapped or misaligned address. Reads answer DECERR on unmapped
//! addresses. Write-pulse registers read as 0 and drive their `values` entry
//! with the written bits for exactly one clock. A synchronous `reset`
//! restores every reset value.
//!
//! Timing: the slave registers an accepted address (and write data) first
//! and decodes it in the next clock, so no AXI input reaches the
//! register-map decode combinationally (a long path in the FPGA and, in
//! Verilator, logic evaluated on every input change). A write takes effect
//! in the clock its response is raised; a write or read takes three clocks
//! when the master is ready for the response (accept, decode, respond).
//!
//! Read path: a tree of 2:1 multiplexers indexed by register number, not a
//! chain of comparisons. The word address (`r_addr[11:2]`) first goes
//! through a decode tree whose 1024 leaves are constants (for each word:
//! mapped or not, and the index of its register in `REGISTERS`); synthesis
//! folds it into a small function of ten address bits. The register index
//! then selects the value through a 512-leaf data tree (leaves past the
//! last register are 0): each 4:1 stage fits one 6-input LUT per bit, where
//! a chain of 365 `if address == offset` costs about a LUT per register
//! per bit. An unmapped or misaligned address reads 0 with DECERR.
//!
//! Write path: every register is stored as four byte lanes, each loaded
//! from the write data when the register is addressed and its byte strobe
//! is set (a clock enable per lane, shared by its eight flip-flops) rather
//! than merging old and new bits under a 32-bit mask (a LUT per bit). The
//! pending write keeps the four strobes, not a mask.

use super::axil::AxiLiteSlave;
use cngw_regmap::{Access, REGISTERS};
use rust_hdl::prelude::*;

/// AXI4-Lite response codes.
pub const RESP_OKAY: u64 = 0;
pub const RESP_SLVERR: u64 = 2;
pub const RESP_DECERR: u64 = 3;

/// Word address bits (`r_addr[11:2]`): leaves of the decode tree.
const WORD_BITS: usize = 10;
const WORDS: usize = 1 << WORD_BITS;
/// Register index bits: leaves of the read data tree. A decode leaf holds
/// the index in bits 8..0 and "mapped" in bit 9.
const INDEX_BITS: usize = 9;
const LEAVES: usize = 1 << INDEX_BITS;
// The trees' loops below spell these sizes as literals (rust-hdl evaluates
// an index from literals and loop variables only).
const _: () = assert!(WORDS == 1024 && LEAVES == 512);
const _: () = assert!(REGISTERS.len() <= LEAVES);

/// Select masks of a binary tree of 2:1 multiplexers over `1 << levels`
/// leaves, its nodes numbered level by level from the leaves up: nodes
/// `0..(1 << levels) / 2` take leaves `2j` (select bit 0) and `2j+1`
/// (select bit 1) and select on bit `lsb`; each further node `j` takes
/// nodes `2j - (1 << levels)` and `2j - (1 << levels) + 1` and selects on
/// the next bit up; the last node is the root. Children come before their
/// parent, so each node is computed from values already assigned.
fn tree_selects<const N: usize>(levels: usize, lsb: usize) -> Vec<Constant<Bits<N>>> {
    (1..=levels)
        .flat_map(|level| (0..1usize << (levels - level)).map(move |_| lsb + level - 1))
        .map(|bit| Constant::new((1u64 << bit).to_bits()))
        .collect()
}

#[derive(LogicBlock)]
pub struct CsrBlock {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// AXI4-Lite from PCIe BAR0.
    pub s_axil: AxiLiteSlave,
    /// Current value of every register (storage or one-cycle pulse).
    pub values: Vec<Signal<Out, Bits<32>>>,
    /// Hardware-driven values of volatile read-only registers.
    pub status: Vec<Signal<In, Bits<32>>>,
    // Register map constants, one entry per register.
    offsets: Vec<Constant<Bits<12>>>,
    reset_values: Vec<Constant<Bits<32>>>,
    is_storage: Vec<Constant<Bit>>,
    is_pulse: Vec<Constant<Bit>>,
    is_status: Vec<Constant<Bit>>,
    // Byte lanes 0 (bits 7..0) to 3 (bits 31..24) of every register, each
    // in place in a 32-bit word whose other bits stay 0 (synthesis drops
    // their flip-flops); a register's value is the OR of its four lanes.
    storage0: Vec<DFFWithInit<Bits<32>>>,
    storage1: Vec<DFFWithInit<Bits<32>>>,
    storage2: Vec<DFFWithInit<Bits<32>>>,
    storage3: Vec<DFFWithInit<Bits<32>>>,
    // Read decode tree: one constant leaf per word (bit 9 mapped, bits 8..0
    // register index), `WORDS - 1` nodes selecting on `r_addr[11:2]`.
    word_info: Vec<Constant<Bits<10>>>,
    decode_select: Vec<Constant<Bits<12>>>,
    decode_node: Vec<Signal<Local, Bits<10>>>,
    // Read data tree: one leaf per register index, `LEAVES - 1` nodes
    // selecting on the register index.
    read_select: Vec<Constant<Bits<9>>>,
    read_leaf: Vec<Signal<Local, Bits<32>>>,
    read_node: Vec<Signal<Local, Bits<32>>>,
    // Response channel state.
    bvalid: DFF<Bit>,
    bresp: DFF<Bits<2>>,
    rvalid: DFF<Bit>,
    rresp: DFF<Bits<2>>,
    rdata: DFF<Bits<32>>,
    // An accepted write or read waiting for its decode.
    w_pending: DFF<Bit>,
    w_addr: DFF<Bits<12>>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    r_pending: DFF<Bit>,
    r_addr: DFF<Bits<12>>,
    // Combinational.
    write_go: Signal<Local, Bit>,
    read_go: Signal<Local, Bit>,
    write_hit: Signal<Local, Bit>,
    write_hit_writable: Signal<Local, Bit>,
    read_index: Signal<Local, Bits<9>>,
    read_hit: Signal<Local, Bit>,
    read_value: Signal<Local, Bits<32>>,
}

/// One byte lane of every register's storage, initialised to its reset
/// value (0 for registers without storage).
fn storage_lane(lane: usize) -> Vec<DFFWithInit<Bits<32>>> {
    REGISTERS
        .iter()
        .map(|r| {
            let init = if r.access == Access::ReadWrite {
                r.reset & (0xff << (8 * lane))
            } else {
                0
            };
            DFFWithInit::new((init as u64).to_bits())
        })
        .collect()
}

impl Default for CsrBlock {
    fn default() -> Self {
        let n = REGISTERS.len();
        let mut word_info = vec![0u64; WORDS];
        for (i, r) in REGISTERS.iter().enumerate() {
            assert!(r.offset % 4 == 0 && (r.offset as usize) < 4 * WORDS);
            word_info[r.offset as usize / 4] = (1 << INDEX_BITS) | i as u64;
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            values: (0..n).map(|_| Signal::default()).collect(),
            status: (0..n).map(|_| Signal::default()).collect(),
            offsets: REGISTERS
                .iter()
                .map(|r| Constant::new((r.offset as u64).to_bits()))
                .collect(),
            reset_values: REGISTERS
                .iter()
                .map(|r| Constant::new((r.reset as u64).to_bits()))
                .collect(),
            is_storage: REGISTERS
                .iter()
                .map(|r| Constant::new(r.access == Access::ReadWrite))
                .collect(),
            is_pulse: REGISTERS
                .iter()
                .map(|r| Constant::new(r.access == Access::WritePulse))
                .collect(),
            is_status: REGISTERS
                .iter()
                .map(|r| Constant::new(r.access == Access::ReadOnly && r.volatile))
                .collect(),
            storage0: storage_lane(0),
            storage1: storage_lane(1),
            storage2: storage_lane(2),
            storage3: storage_lane(3),
            word_info: word_info
                .into_iter()
                .map(|w| Constant::new(w.to_bits()))
                .collect(),
            decode_select: tree_selects(WORD_BITS, 2),
            decode_node: (0..WORDS - 1).map(|_| Signal::default()).collect(),
            read_select: tree_selects(INDEX_BITS, 0),
            read_leaf: (0..LEAVES).map(|_| Signal::default()).collect(),
            read_node: (0..LEAVES - 1).map(|_| Signal::default()).collect(),
            bvalid: Default::default(),
            bresp: Default::default(),
            rvalid: Default::default(),
            rresp: Default::default(),
            rdata: Default::default(),
            w_pending: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            r_pending: Default::default(),
            r_addr: Default::default(),
            write_go: Default::default(),
            read_go: Default::default(),
            write_hit: Default::default(),
            write_hit_writable: Default::default(),
            read_index: Default::default(),
            read_hit: Default::default(),
            read_value: Default::default(),
        }
    }
}

impl Logic for CsrBlock {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, bvalid, bresp, rvalid, rresp, rdata, w_pending, w_addr, w_data, w_strb,
            r_pending, r_addr
        );
        for i in 0..REGISTERS.len() {
            self.storage0[i].clock.next = self.clock.val();
            self.storage1[i].clock.next = self.clock.val();
            self.storage2[i].clock.next = self.clock.val();
            self.storage3[i].clock.next = self.clock.val();
            self.storage0[i].d.next = self.storage0[i].q.val();
            self.storage1[i].d.next = self.storage1[i].q.val();
            self.storage2[i].d.next = self.storage2[i].q.val();
            self.storage3[i].d.next = self.storage3[i].q.val();
            if self.is_pulse[i].val() {
                self.storage0[i].d.next = 0.into();
                self.storage1[i].d.next = 0.into();
                self.storage2[i].d.next = 0.into();
                self.storage3[i].d.next = 0.into();
            }
            self.values[i].next = self.storage0[i].q.val()
                | self.storage1[i].q.val()
                | self.storage2[i].q.val()
                | self.storage3[i].q.val();
        }
        self.s_axil.bvalid.next = self.bvalid.q.val();
        self.s_axil.bresp.next = self.bresp.q.val();
        self.s_axil.rvalid.next = self.rvalid.q.val();
        self.s_axil.rresp.next = self.rresp.q.val();
        self.s_axil.rdata.next = self.rdata.q.val();

        // Write channel: address and data are taken together, one at a time,
        // registered, and decoded in the next clock.
        self.write_go.next = self.s_axil.awvalid.val()
            & self.s_axil.wvalid.val()
            & !self.bvalid.q.val()
            & !self.w_pending.q.val();
        self.s_axil.awready.next = self.write_go.val();
        self.s_axil.wready.next = self.write_go.val();
        self.w_pending.d.next = self.write_go.val();
        if self.write_go.val() {
            self.w_addr.d.next = self.s_axil.awaddr.val();
            self.w_data.d.next = self.s_axil.wdata.val();
            self.w_strb.d.next = self.s_axil.wstrb.val();
        }
        self.write_hit.next = false;
        self.write_hit_writable.next = false;
        // The decode runs only for a pending write (in Verilator, the body of
        // a false `if` is skipped: the register map costs nothing on idle
        // clocks). A pulse register's lanes without a strobe stay at 0.
        if self.w_pending.q.val() {
            for i in 0..REGISTERS.len() {
                if self.w_addr.q.val() == self.offsets[i].val() {
                    self.write_hit.next = true;
                    if self.is_storage[i].val() | self.is_pulse[i].val() {
                        self.write_hit_writable.next = true;
                        if self.w_strb.q.val().get_bit(0) {
                            self.storage0[i].d.next =
                                self.w_data.q.val() & bits::<32>(0x0000_00ffu64);
                        }
                        if self.w_strb.q.val().get_bit(1) {
                            self.storage1[i].d.next =
                                self.w_data.q.val() & bits::<32>(0x0000_ff00u64);
                        }
                        if self.w_strb.q.val().get_bit(2) {
                            self.storage2[i].d.next =
                                self.w_data.q.val() & bits::<32>(0x00ff_0000u64);
                        }
                        if self.w_strb.q.val().get_bit(3) {
                            self.storage3[i].d.next =
                                self.w_data.q.val() & bits::<32>(0xff00_0000u64);
                        }
                    }
                }
            }
        }
        if self.w_pending.q.val() {
            self.bvalid.d.next = true;
            if self.write_hit_writable.val() {
                self.bresp.d.next = 0.into();
            } else if self.write_hit.val() {
                self.bresp.d.next = 2.into();
            } else {
                self.bresp.d.next = 3.into();
            }
        } else if self.bvalid.q.val() & self.s_axil.bready.val() {
            self.bvalid.d.next = false;
        }

        // Read channel: the address is registered and decoded in the next
        // clock.
        self.read_go.next =
            self.s_axil.arvalid.val() & !self.rvalid.q.val() & !self.r_pending.q.val();
        self.s_axil.arready.next = self.read_go.val();
        self.r_pending.d.next = self.read_go.val();
        if self.read_go.val() {
            self.r_addr.d.next = self.s_axil.araddr.val();
        }
        // Decode tree (see `tree_selects`): nodes 0..512 select between word
        // leaves on r_addr[2], nodes 512..1023 between nodes; the root is
        // node 1022.
        for j in 0..512 {
            if (self.r_addr.q.val() & self.decode_select[j].val()).any() {
                self.decode_node[j].next = self.word_info[2 * j + 1].val();
            } else {
                self.decode_node[j].next = self.word_info[2 * j].val();
            }
        }
        for j in 512..1023 {
            if (self.r_addr.q.val() & self.decode_select[j].val()).any() {
                self.decode_node[j].next = self.decode_node[2 * j - 1023].val();
            } else {
                self.decode_node[j].next = self.decode_node[2 * j - 1024].val();
            }
        }
        self.read_index.next = self.decode_node[1022].val().get_bits::<9>(0);
        self.read_hit.next = self.decode_node[1022].val().get_bit(9)
            & !self.r_addr.q.val().get_bit(0)
            & !self.r_addr.q.val().get_bit(1);
        // Data tree: a leaf per register index; nodes 0..256 select between
        // leaves on the index's bit 0, nodes 256..511 between nodes; the
        // root is node 510.
        for i in 0..REGISTERS.len() {
            if self.is_storage[i].val() {
                self.read_leaf[i].next = self.values[i].val();
            } else if self.is_status[i].val() {
                self.read_leaf[i].next = self.status[i].val();
            } else if self.is_pulse[i].val() {
                self.read_leaf[i].next = 0.into();
            } else {
                self.read_leaf[i].next = self.reset_values[i].val();
            }
        }
        for i in REGISTERS.len()..512 {
            self.read_leaf[i].next = 0.into();
        }
        for j in 0..256 {
            if (self.read_index.val() & self.read_select[j].val()).any() {
                self.read_node[j].next = self.read_leaf[2 * j + 1].val();
            } else {
                self.read_node[j].next = self.read_leaf[2 * j].val();
            }
        }
        for j in 256..511 {
            if (self.read_index.val() & self.read_select[j].val()).any() {
                self.read_node[j].next = self.read_node[2 * j - 511].val();
            } else {
                self.read_node[j].next = self.read_node[2 * j - 512].val();
            }
        }
        self.read_value.next = 0.into();
        if self.read_hit.val() {
            self.read_value.next = self.read_node[510].val();
        }
        if self.r_pending.q.val() {
            self.rvalid.d.next = true;
            self.rdata.d.next = self.read_value.val();
            if self.read_hit.val() {
                self.rresp.d.next = 0.into();
            } else {
                self.rresp.d.next = 3.into();
            }
        } else if self.rvalid.q.val() & self.s_axil.rready.val() {
            self.rvalid.d.next = false;
        }

        if self.reset.val() {
            self.bvalid.d.next = false;
            self.rvalid.d.next = false;
            self.w_pending.d.next = false;
            self.r_pending.d.next = false;
            for i in 0..REGISTERS.len() {
                self.storage0[i].d.next = self.reset_values[i].val() & bits::<32>(0x0000_00ffu64);
                self.storage1[i].d.next = self.reset_values[i].val() & bits::<32>(0x0000_ff00u64);
                self.storage2[i].d.next = self.reset_values[i].val() & bits::<32>(0x00ff_0000u64);
                self.storage3[i].d.next = self.reset_values[i].val() & bits::<32>(0xff00_0000u64);
                if !self.is_storage[i].val() {
                    self.storage0[i].d.next = 0.into();
                    self.storage1[i].d.next = 0.into();
                    self.storage2[i].d.next = 0.into();
                    self.storage3[i].d.next = 0.into();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_csr_block_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<CsrBlock>("csr_block");
    }
}
