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
//! in the clock its response is raised and takes three clocks when the
//! master is ready for the response (accept, decode, respond); a read takes
//! six (accept, decode, the index copied per 32-register subtree, the data
//! tree's lower five levels, its upper four, respond: the 512:1 selection
//! in one clock held the block at 67 MHz on the ECP5). A read samples its
//! register's value three clocks after it is accepted.
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
//! pending write keeps the four strobes, not a mask. The accepted address
//! is kept once per 256-byte region (a valid bit and the low byte, zero in
//! the other regions), so a register's "addressed" compare reads its own
//! region's nine bits and each copy fans out to one region, not to all 365
//! registers; the response (OKAY, SLVERR, DECERR) comes from a decode tree
//! of constants over the word address, like the read's.

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
    /// Per register: the nine bits of its offset's region (bits 11..8) in
    /// `w_region`, and its key there (1 << 8 | offset bits 7..0, in place).
    region_mask: Vec<Constant<Bits<144>>>,
    region_key: Vec<Constant<Bits<144>>>,
    /// Per region g: 9 g.
    group_shift: Vec<Constant<Bits<8>>>,
    /// Per word: bit 0 mapped, bit 1 writable (storage or pulse).
    word_access: Vec<Constant<Bits<2>>>,
    wdecode_node: Vec<Signal<Local, Bits<2>>>,
    /// The sixteen valid bits of `w_region`.
    region_valid: Constant<Bits<144>>,
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
    /// Levels 1..5 (nodes 0..496), from the index copies `r_sel`.
    read_node: Vec<Signal<Local, Bits<32>>>,
    /// Level 5's 16 nodes, registered.
    read_mid: Vec<DFF<Bits<32>>>,
    /// Levels 6..9 (nodes 496..511, here 0..15) from `read_mid`.
    read_top: Vec<Signal<Local, Bits<32>>>,
    // Response channel state.
    bvalid: DFF<Bit>,
    bresp: DFF<Bits<2>>,
    rvalid: DFF<Bit>,
    rresp: DFF<Bits<2>>,
    rdata: DFF<Bits<32>>,
    // An accepted write or read waiting for its decode.
    w_pending: DFF<Bit>,
    w_addr: DFF<Bits<12>>,
    /// Per 256-byte region g, bits 9g+8..9g: 1 << 8 | the address's low
    /// byte when the write is in region g, else 0.
    w_region: DFF<Bits<144>>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    r_pending: DFF<Bit>,
    r_addr: DFF<Bits<12>>,
    // A read's decoded index (stage 2), its copies (stage 3), then its
    // half-selected data (stage 4).
    r_index_pending: DFF<Bit>,
    r_index: DFF<Bits<9>>,
    r_index_hit: DFF<Bit>,
    /// Per 32-register subtree g: the index's bits 4..0 when its bits 8..5
    /// are g, else 0 (distinct registers, so synthesis keeps sixteen
    /// copies, each with the fan-out of one subtree).
    r_sel: Vec<DFF<Bits<5>>>,
    group_ids: Vec<Constant<Bits<4>>>,
    r_sel_pending: DFF<Bit>,
    r_sel_index: DFF<Bits<9>>,
    r_sel_hit: DFF<Bit>,
    r_mid_pending: DFF<Bit>,
    r_mid_index: DFF<Bits<9>>,
    r_mid_hit: DFF<Bit>,
    // Combinational.
    write_go: Signal<Local, Bit>,
    aw_key: Signal<Local, Bits<144>>,
    w_region_in: Signal<Local, Bits<144>>,
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
        let mut word_access = vec![0u64; WORDS];
        for (i, r) in REGISTERS.iter().enumerate() {
            assert!(r.offset % 4 == 0 && (r.offset as usize) < 4 * WORDS);
            word_info[r.offset as usize / 4] = (1 << INDEX_BITS) | i as u64;
            let writable = matches!(r.access, Access::ReadWrite | Access::WritePulse);
            word_access[r.offset as usize / 4] = 1 | (writable as u64) << 1;
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            values: (0..n).map(|_| Signal::default()).collect(),
            status: (0..n).map(|_| Signal::default()).collect(),
            region_mask: REGISTERS
                .iter()
                .map(|r| Constant::new(bits::<144>(0x1ff) << (9 * (r.offset as u64 >> 8))))
                .collect(),
            region_key: REGISTERS
                .iter()
                .map(|r| {
                    let key = 0x100 | (r.offset as u64 & 0xff);
                    Constant::new(bits::<144>(key) << (9 * (r.offset as u64 >> 8)))
                })
                .collect(),
            group_shift: (0..16u64)
                .map(|g| Constant::new((9 * g).to_bits()))
                .collect(),
            word_access: word_access
                .into_iter()
                .map(|w| Constant::new(w.to_bits()))
                .collect(),
            wdecode_node: (0..WORDS - 1).map(|_| Signal::default()).collect(),
            region_valid: Constant::new(
                (0..16u64).fold(bits::<144>(0), |m, g| m | (bits::<144>(0x100) << (9 * g))),
            ),
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
            read_node: (0..LEAVES - 16).map(|_| Signal::default()).collect(),
            read_mid: (0..16).map(|_| Default::default()).collect(),
            read_top: (0..15).map(|_| Signal::default()).collect(),
            bvalid: Default::default(),
            bresp: Default::default(),
            rvalid: Default::default(),
            rresp: Default::default(),
            rdata: Default::default(),
            w_pending: Default::default(),
            w_addr: Default::default(),
            w_region: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            r_pending: Default::default(),
            r_addr: Default::default(),
            r_index_pending: Default::default(),
            r_index: Default::default(),
            r_index_hit: Default::default(),
            r_sel: (0..16).map(|_| Default::default()).collect(),
            group_ids: (0..16u64).map(|g| Constant::new(g.to_bits())).collect(),
            r_sel_pending: Default::default(),
            r_sel_index: Default::default(),
            r_sel_hit: Default::default(),
            r_mid_pending: Default::default(),
            r_mid_index: Default::default(),
            r_mid_hit: Default::default(),
            write_go: Default::default(),
            aw_key: Default::default(),
            w_region_in: Default::default(),
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
            self,
            clock,
            bvalid,
            bresp,
            rvalid,
            rresp,
            rdata,
            w_pending,
            w_addr,
            w_region,
            w_data,
            w_strb,
            r_pending,
            r_addr,
            r_index_pending,
            r_index,
            r_index_hit,
            r_sel_pending,
            r_sel_index,
            r_sel_hit,
            r_mid_pending,
            r_mid_index,
            r_mid_hit
        );
        for k in 0..16 {
            self.read_mid[k].clock.next = self.clock.val();
            self.r_sel[k].clock.next = self.clock.val();
        }
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
        // The address is kept once per 256-byte region (`w_region`, nine
        // bits per region: a valid bit and the address's low byte, zero in
        // the other regions), so each copy drives the compares of its own
        // region's registers only.
        self.aw_key.next =
            bit_cast::<144, 8>(self.s_axil.awaddr.val().get_bits::<8>(0)) | bits::<144>(0x100);
        self.w_region_in.next = 0.into();
        for g in 0..16 {
            if self.s_axil.awaddr.val().get_bits::<4>(8) == self.group_ids[g].val() {
                self.w_region_in.next = self.aw_key.val() << self.group_shift[g].val();
            }
        }
        // `w_region` holds the write for its decode clock only (zero
        // otherwise): its valid bits are the pending flag, per region.
        self.w_region.d.next = 0.into();
        if self.write_go.val() {
            self.w_addr.d.next = self.s_axil.awaddr.val();
            self.w_region.d.next = self.w_region_in.val();
            self.w_data.d.next = self.s_axil.wdata.val();
            self.w_strb.d.next = self.s_axil.wstrb.val();
        }
        // Mapped and writable, from a decode tree of constants over the
        // word address (like the read's), not from the 365 compares.
        for j in 0..512 {
            if (self.w_addr.q.val() & self.decode_select[j].val()).any() {
                self.wdecode_node[j].next = self.word_access[2 * j + 1].val();
            } else {
                self.wdecode_node[j].next = self.word_access[2 * j].val();
            }
        }
        for j in 512..1023 {
            if (self.w_addr.q.val() & self.decode_select[j].val()).any() {
                self.wdecode_node[j].next = self.wdecode_node[2 * j - 1023].val();
            } else {
                self.wdecode_node[j].next = self.wdecode_node[2 * j - 1024].val();
            }
        }
        self.write_hit.next = self.wdecode_node[1022].val().get_bit(0)
            & !self.w_addr.q.val().get_bit(0)
            & !self.w_addr.q.val().get_bit(1);
        self.write_hit_writable.next =
            self.write_hit.val() & self.wdecode_node[1022].val().get_bit(1);
        // The decode runs only for a pending write (in Verilator, the body of
        // a false `if` is skipped: the register map costs nothing on idle
        // clocks). The condition is the OR of the regions' valid bits, which
        // each register's compare implies (synthesis drops it, where
        // `w_pending` fanned out to every register's lane enables). A pulse
        // register's lanes without a strobe stay at 0.
        if (self.w_region.q.val() & self.region_valid.val()).any() {
            for i in 0..REGISTERS.len() {
                if ((self.w_region.q.val() & self.region_mask[i].val()) == self.region_key[i].val())
                    & (self.is_storage[i].val() | self.is_pulse[i].val())
                {
                    if self.w_strb.q.val().get_bit(0) {
                        self.storage0[i].d.next = self.w_data.q.val() & bits::<32>(0x0000_00ffu64);
                    }
                    if self.w_strb.q.val().get_bit(1) {
                        self.storage1[i].d.next = self.w_data.q.val() & bits::<32>(0x0000_ff00u64);
                    }
                    if self.w_strb.q.val().get_bit(2) {
                        self.storage2[i].d.next = self.w_data.q.val() & bits::<32>(0x00ff_0000u64);
                    }
                    if self.w_strb.q.val().get_bit(3) {
                        self.storage3[i].d.next = self.w_data.q.val() & bits::<32>(0xff00_0000u64);
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
        self.read_go.next = self.s_axil.arvalid.val()
            & !self.rvalid.q.val()
            & !self.r_pending.q.val()
            & !self.r_index_pending.q.val()
            & !self.r_sel_pending.q.val()
            & !self.r_mid_pending.q.val();
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
        self.r_index_pending.d.next = self.r_pending.q.val();
        self.r_index.d.next = self.read_index.val();
        // The index's copies, one clock after the decode.
        for g in 0..16 {
            self.r_sel[g].d.next = 0.into();
            if self.r_index.q.val().get_bits::<4>(5) == self.group_ids[g].val() {
                self.r_sel[g].d.next = self.r_index.q.val().get_bits::<5>(0);
            }
        }
        self.r_sel_pending.d.next = self.r_index_pending.q.val();
        self.r_sel_index.d.next = self.r_index.q.val();
        self.r_sel_hit.d.next = self.r_index_hit.q.val();
        self.r_index_hit.d.next = self.read_hit.val();
        // Data tree: a leaf per register index; nodes 0..256 select between
        // leaves on the index's bit 0, nodes 256..511 between nodes; the
        // root is node 510. Levels 1..5 (down to 16 nodes) run in the clock
        // after the copies, levels 6..9 in the next (each clock a 32:1 or
        // 16:1 selection, not the 512:1 of one clock).
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
        // Levels 1..5 as sixteen 32-leaf subtrees, subtree g (registers
        // 32g..32g+31) selecting on its own copy of the index's low five
        // bits (`r_sel[g]`, zero unless the index is in the subtree): each
        // copy drives one subtree, not the whole file.
        for g in 0..16 {
            for k in 0..16 {
                if self.r_sel[g].q.val().get_bit(0) {
                    self.read_node[16 * g + k].next = self.read_leaf[32 * g + 2 * k + 1].val();
                } else {
                    self.read_node[16 * g + k].next = self.read_leaf[32 * g + 2 * k].val();
                }
            }
            for k in 0..8 {
                if self.r_sel[g].q.val().get_bit(1) {
                    self.read_node[256 + 8 * g + k].next = self.read_node[16 * g + 2 * k + 1].val();
                } else {
                    self.read_node[256 + 8 * g + k].next = self.read_node[16 * g + 2 * k].val();
                }
            }
            for k in 0..4 {
                if self.r_sel[g].q.val().get_bit(2) {
                    self.read_node[384 + 4 * g + k].next =
                        self.read_node[256 + 8 * g + 2 * k + 1].val();
                } else {
                    self.read_node[384 + 4 * g + k].next =
                        self.read_node[256 + 8 * g + 2 * k].val();
                }
            }
            for k in 0..2 {
                if self.r_sel[g].q.val().get_bit(3) {
                    self.read_node[448 + 2 * g + k].next =
                        self.read_node[384 + 4 * g + 2 * k + 1].val();
                } else {
                    self.read_node[448 + 2 * g + k].next =
                        self.read_node[384 + 4 * g + 2 * k].val();
                }
            }
            if self.r_sel[g].q.val().get_bit(4) {
                self.read_node[480 + g].next = self.read_node[448 + 2 * g + 1].val();
            } else {
                self.read_node[480 + g].next = self.read_node[448 + 2 * g].val();
            }
        }
        for k in 0..16 {
            self.read_mid[k].d.next = self.read_node[480 + k].val();
        }
        self.r_mid_pending.d.next = self.r_sel_pending.q.val();
        self.r_mid_index.d.next = self.r_sel_index.q.val();
        self.r_mid_hit.d.next = self.r_sel_hit.q.val();
        // Node 496 + m is read_top[m]; its children are nodes 2j - 512 and
        // 2j - 511 (j = 496 + m): read_mid for level 6, read_top above.
        for j in 496..504 {
            if (self.r_mid_index.q.val() & self.read_select[j].val()).any() {
                self.read_top[j - 496].next = self.read_mid[2 * j - 991].q.val();
            } else {
                self.read_top[j - 496].next = self.read_mid[2 * j - 992].q.val();
            }
        }
        for j in 504..511 {
            if (self.r_mid_index.q.val() & self.read_select[j].val()).any() {
                self.read_top[j - 496].next = self.read_top[2 * j - 1007].val();
            } else {
                self.read_top[j - 496].next = self.read_top[2 * j - 1008].val();
            }
        }
        self.read_value.next = 0.into();
        if self.r_mid_hit.q.val() {
            self.read_value.next = self.read_top[14].val();
        }
        if self.r_mid_pending.q.val() {
            self.rvalid.d.next = true;
            self.rdata.d.next = self.read_value.val();
            if self.r_mid_hit.q.val() {
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
            self.r_index_pending.d.next = false;
            self.r_sel_pending.d.next = false;
            self.r_mid_pending.d.next = false;
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
