//! `FormatTable`: the Long-haul CNP format table (LH-15) — which format a
//! sender accepts, by the longest matching prefix of its address.
//!
//! ```text
//!  prefix_words, valid, format_code, prefix_len (LH_FORMATn_*)
//!     -->[ entry cfg_idx (round robin), registered ]-->[ mask = ~(ones >> prefix_len), registered ]-->[ prefix & mask, valid, format ]   (registered per entry)
//!  addr (lane order) -->[ byte order ]-->[ 8 x (addr & mask == prefix) ]-->[ longest, lowest index: tree level 1 ]-->[ level 2 ]-->[ level 3 ]-->[ delay 1 ]--> hit, format
//!                                         stage 1 (registered)              stage 2 (registered)                 stage 3      stage 4 (registered)
//! ```
//! Entry i is `LH_FORMATi_PREFIX_0..3` (`prefix_words` 4i..4i+3: network
//! order, the address's first byte in bits 31..24 of word 0; IPv4 as
//! `::ffff:a.b.c.d`) and the fields of `LH_FORMATi_CONTROL`. They are
//! registered with each entry's mask before use, one entry per clock in
//! turn (so the 128-bit mask is computed once, not eight times, per
//! clock; the registers are read in one clock, the mask made in the next,
//! the entry written in the third): a register write takes effect within
//! eleven clocks,
//! each entry's registers read together (write `CONTROL` last). `reset` invalidates
//! every entry until it is read again. An entry takes part when `valid` is
//! set and its format is not 3 (reserved); a `prefix_len` above 128 acts
//! as 128. The
//! first `prefix_len` bits of `addr` (lane order: byte i in bits 8i+7..8i,
//! as the parser gives it) must equal the prefix's (bits of the prefix
//! beyond its length are ignored). Of the matching entries the longest
//! prefix wins, and of equally long ones the lowest index.
//!
//! Latency: `hit` and `format` belong to the `addr` of [`LATENCY`] clocks
//! earlier (the flow table's latency in the gateway, so the answer arrives
//! with the flow-table answer of the same packet). A new address every clock.
//! The work outside the configuration registers is gated by `addr_valid`.

use rust_hdl::prelude::*;

/// Entries of the table.
pub const ENTRIES: usize = 8;
/// Clocks from `addr` to its `hit` / `format`.
pub const LATENCY: usize = 5;

#[derive(LogicBlock)]
pub struct FormatTable {
    pub clock: Signal<In, Clock>,
    /// Invalidates every entry until its registers are read again.
    pub reset: Signal<In, Bit>,
    /// Entry i's prefix words (`LH_FORMATi_PREFIX_0..3`) at 4i..4i+3.
    pub prefix_words: Vec<Signal<In, Bits<32>>>,
    /// Entry i's `LH_FORMATi_CONTROL` fields.
    pub valid: Vec<Signal<In, Bit>>,
    pub format_code: Vec<Signal<In, Bits<2>>>,
    pub prefix_len: Vec<Signal<In, Bits<8>>>,
    /// An address to look up (its result is not needed otherwise).
    pub addr_valid: Signal<In, Bit>,
    /// The sender's address, lane order (IPv4-mapped for IPv4).
    pub addr: Signal<In, Bits<128>>,
    /// [`LATENCY`] clocks after `addr`: some entry matched it ...
    pub hit: Signal<Out, Bit>,
    /// ... and the format of the best one (0 when nothing matched).
    pub format: Signal<Out, Bits<2>>,
    ones: Constant<Bits<128>>,
    // Configuration, registered.
    ent_valid: Vec<DFF<Bit>>,
    ent_format: Vec<DFF<Bits<2>>>,
    ent_len: Vec<DFF<Bits<8>>>,
    ent_mask: Vec<DFF<Bits<128>>>,
    ent_prefix: Vec<DFF<Bits<128>>>,
    // Stage 1: which entries match.
    /// Entry valid and the address's first 64 bits match.
    m_hit: Vec<DFF<Bit>>,
    /// The last 64 bits match.
    m_hit_low: Vec<DFF<Bit>>,
    m_len: Vec<DFF<Bits<8>>>,
    m_format: Vec<DFF<Bits<2>>>,
    m_valid: DFF<Bit>,
    // Stage 2: the tree's first level (the better of each pair).
    p_hit: Vec<DFF<Bit>>,
    p_len: Vec<DFF<Bits<8>>>,
    p_format: Vec<DFF<Bits<2>>>,
    p_valid: DFF<Bit>,
    // Stage 3: the tree's second level (the better of each pair of pairs).
    q_hit: Vec<DFF<Bit>>,
    q_len: Vec<DFF<Bits<8>>>,
    q_format: Vec<DFF<Bits<2>>>,
    q_valid: DFF<Bit>,
    // Stage 4: the best, then the delay to LATENCY.
    best_hit: DFF<Bit>,
    best_format: DFF<Bits<2>>,
    delay_hit: Vec<DFF<Bit>>,
    delay_format: Vec<DFF<Bits<2>>>,
    /// The entry whose registers are read this clock.
    cfg_idx: DFF<Bits<3>>,
    /// The first configuration stage: the entry read in the clock before
    /// and its registers.
    cfg_entry: DFF<Bits<3>>,
    cfg_prefix: DFF<Bits<128>>,
    cfg_len: DFF<Bits<8>>,
    cfg_format: DFF<Bits<2>>,
    cfg_valid: DFF<Bit>,
    /// The second configuration stage: the entry with its mask (written
    /// to the entry this clock).
    cfg_mask: DFF<Bits<128>>,
    mask_entry: DFF<Bits<3>>,
    mask_prefix: DFF<Bits<128>>,
    mask_len: DFF<Bits<8>>,
    mask_format: DFF<Bits<2>>,
    mask_valid: DFF<Bit>,
    // Combinational.
    addr_words: Vec<Signal<Local, Bits<32>>>,
    addr_net: Signal<Local, Bits<128>>,
    /// The selection tree: nodes 0..3 pick between entries 2n and 2n+1,
    /// nodes 4 and 5 between nodes 0/1 and 2/3, node 6 (no length) between
    /// 4 and 5.
    m_both: Vec<Signal<Local, Bit>>,
    t_hit: Vec<Signal<Local, Bit>>,
    t_len: Vec<Signal<Local, Bits<8>>>,
    t_format: Vec<Signal<Local, Bits<2>>>,
}

impl Default for FormatTable {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            prefix_words: (0..4 * ENTRIES).map(|_| Default::default()).collect(),
            valid: (0..ENTRIES).map(|_| Default::default()).collect(),
            format_code: (0..ENTRIES).map(|_| Default::default()).collect(),
            prefix_len: (0..ENTRIES).map(|_| Default::default()).collect(),
            addr_valid: Default::default(),
            addr: Default::default(),
            hit: Default::default(),
            format: Default::default(),
            ones: Constant::new(!bits::<128>(0)),
            ent_valid: (0..ENTRIES).map(|_| Default::default()).collect(),
            ent_format: (0..ENTRIES).map(|_| Default::default()).collect(),
            ent_len: (0..ENTRIES).map(|_| Default::default()).collect(),
            ent_mask: (0..ENTRIES).map(|_| Default::default()).collect(),
            ent_prefix: (0..ENTRIES).map(|_| Default::default()).collect(),
            m_hit: (0..ENTRIES).map(|_| Default::default()).collect(),
            m_hit_low: (0..ENTRIES).map(|_| Default::default()).collect(),
            m_both: (0..ENTRIES).map(|_| Default::default()).collect(),
            m_len: (0..ENTRIES).map(|_| Default::default()).collect(),
            m_format: (0..ENTRIES).map(|_| Default::default()).collect(),
            m_valid: Default::default(),
            p_hit: (0..ENTRIES / 2).map(|_| Default::default()).collect(),
            p_len: (0..ENTRIES / 2).map(|_| Default::default()).collect(),
            p_format: (0..ENTRIES / 2).map(|_| Default::default()).collect(),
            p_valid: Default::default(),
            q_hit: (0..ENTRIES / 4).map(|_| Default::default()).collect(),
            q_len: (0..ENTRIES / 4).map(|_| Default::default()).collect(),
            q_format: (0..ENTRIES / 4).map(|_| Default::default()).collect(),
            q_valid: Default::default(),
            best_hit: Default::default(),
            best_format: Default::default(),
            delay_hit: (0..LATENCY - 4).map(|_| Default::default()).collect(),
            delay_format: (0..LATENCY - 4).map(|_| Default::default()).collect(),
            cfg_idx: Default::default(),
            cfg_entry: Default::default(),
            cfg_prefix: Default::default(),
            cfg_mask: Default::default(),
            cfg_len: Default::default(),
            cfg_format: Default::default(),
            cfg_valid: Default::default(),
            mask_entry: Default::default(),
            mask_prefix: Default::default(),
            mask_len: Default::default(),
            mask_format: Default::default(),
            mask_valid: Default::default(),
            addr_words: (0..4).map(|_| Default::default()).collect(),
            addr_net: Default::default(),
            t_hit: (0..ENTRIES - 1).map(|_| Default::default()).collect(),
            t_len: (0..ENTRIES - 2).map(|_| Default::default()).collect(),
            t_format: (0..ENTRIES - 1).map(|_| Default::default()).collect(),
        }
    }
}

impl Logic for FormatTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            cfg_idx,
            cfg_entry,
            cfg_prefix,
            cfg_len,
            cfg_mask,
            cfg_format,
            cfg_valid,
            mask_entry,
            mask_prefix,
            mask_len,
            mask_format,
            mask_valid,
            m_valid,
            p_valid,
            q_valid,
            best_hit,
            best_format
        );
        for i in 0..ENTRIES {
            self.ent_valid[i].clock.next = self.clock.val();
            self.ent_format[i].clock.next = self.clock.val();
            self.ent_len[i].clock.next = self.clock.val();
            self.ent_mask[i].clock.next = self.clock.val();
            self.ent_prefix[i].clock.next = self.clock.val();
            self.m_hit[i].clock.next = self.clock.val();
            self.m_hit_low[i].clock.next = self.clock.val();
            self.m_len[i].clock.next = self.clock.val();
            self.m_format[i].clock.next = self.clock.val();
        }
        for i in 0..4 {
            self.p_hit[i].clock.next = self.clock.val();
            self.p_len[i].clock.next = self.clock.val();
            self.p_format[i].clock.next = self.clock.val();
        }
        for i in 0..2 {
            self.q_hit[i].clock.next = self.clock.val();
            self.q_len[i].clock.next = self.clock.val();
            self.q_format[i].clock.next = self.clock.val();
        }
        self.delay_hit[0].clock.next = self.clock.val();
        self.delay_format[0].clock.next = self.clock.val();

        // Configuration, one entry per clock (round robin): its mask and
        // masked prefix (network order). (bit_cast takes no loop index: the
        // prefix selection is written out.)
        self.cfg_idx.d.next = self.cfg_idx.q.val() + 1;
        self.cfg_prefix.d.next = 0.into();
        if self.cfg_idx.q.val() == 0 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[0].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[1].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[2].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[3].val());
        }
        if self.cfg_idx.q.val() == 1 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[4].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[5].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[6].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[7].val());
        }
        if self.cfg_idx.q.val() == 2 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[8].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[9].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[10].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[11].val());
        }
        if self.cfg_idx.q.val() == 3 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[12].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[13].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[14].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[15].val());
        }
        if self.cfg_idx.q.val() == 4 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[16].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[17].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[18].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[19].val());
        }
        if self.cfg_idx.q.val() == 5 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[20].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[21].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[22].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[23].val());
        }
        if self.cfg_idx.q.val() == 6 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[24].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[25].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[26].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[27].val());
        }
        if self.cfg_idx.q.val() == 7 {
            self.cfg_prefix.d.next = (bit_cast::<128, 32>(self.prefix_words[28].val()) << 96)
                | (bit_cast::<128, 32>(self.prefix_words[29].val()) << 64)
                | (bit_cast::<128, 32>(self.prefix_words[30].val()) << 32)
                | bit_cast::<128, 32>(self.prefix_words[31].val());
        }
        self.cfg_len.d.next = 0.into();
        self.cfg_format.d.next = 0.into();
        self.cfg_valid.d.next = false;
        for i in 0..ENTRIES {
            self.ent_valid[i].d.next = self.ent_valid[i].q.val();
            self.ent_format[i].d.next = self.ent_format[i].q.val();
            self.ent_len[i].d.next = self.ent_len[i].q.val();
            self.ent_mask[i].d.next = self.ent_mask[i].q.val();
            self.ent_prefix[i].d.next = self.ent_prefix[i].q.val();
            if self.cfg_idx.q.val().index() == i {
                self.cfg_len.d.next = self.prefix_len[i].val();
                self.cfg_format.d.next = self.format_code[i].val();
                self.cfg_valid.d.next = self.valid[i].val() & (self.format_code[i].val() != 3);
            }
        }
        self.cfg_entry.d.next = self.cfg_idx.q.val();
        // The entry read in the clock before gets its mask.
        self.cfg_mask.d.next = !(self.ones.val() >> self.cfg_len.q.val());
        self.mask_entry.d.next = self.cfg_entry.q.val();
        self.mask_prefix.d.next = self.cfg_prefix.q.val();
        self.mask_len.d.next = self.cfg_len.q.val();
        self.mask_format.d.next = self.cfg_format.q.val();
        self.mask_valid.d.next = self.cfg_valid.q.val();
        // And is written in the next.
        for i in 0..ENTRIES {
            if self.mask_entry.q.val().index() == i {
                self.ent_valid[i].d.next = self.mask_valid.q.val();
                self.ent_format[i].d.next = self.mask_format.q.val();
                self.ent_len[i].d.next = self.mask_len.q.val();
                self.ent_mask[i].d.next = self.cfg_mask.q.val();
                self.ent_prefix[i].d.next = self.mask_prefix.q.val() & self.cfg_mask.q.val();
            }
            if self.reset.val() {
                self.ent_valid[i].d.next = false;
            }
        }
        if self.reset.val() {
            self.cfg_valid.d.next = false;
            self.mask_valid.d.next = false;
        }

        // Stage 1: the address in network order against every entry.
        for w in 0..4 {
            self.addr_words[w].next = 0.into();
        }
        self.addr_net.next = 0.into();
        for i in 0..ENTRIES {
            self.m_hit[i].d.next = false;
            self.m_hit_low[i].d.next = false;
            self.m_len[i].d.next = self.ent_len[i].q.val();
            self.m_format[i].d.next = self.ent_format[i].q.val();
        }
        if self.addr_valid.val() {
            for w in 0..4 {
                self.addr_words[w].next = (self.addr.val().get_bits::<32>(32 * w) >> 24)
                    | ((self.addr.val().get_bits::<32>(32 * w) >> 8) & 0xFF00)
                    | ((self.addr.val().get_bits::<32>(32 * w) << 8) & 0xFF_0000)
                    | (self.addr.val().get_bits::<32>(32 * w) << 24);
            }
            self.addr_net.next = (bit_cast::<128, 32>(self.addr_words[0].val()) << 96)
                | (bit_cast::<128, 32>(self.addr_words[1].val()) << 64)
                | (bit_cast::<128, 32>(self.addr_words[2].val()) << 32)
                | bit_cast::<128, 32>(self.addr_words[3].val());
            // (In two registered halves: the 128-bit compare and its
            // reduction in one clock held the block below 200 MHz.)
            for i in 0..ENTRIES {
                self.m_hit[i].d.next = self.ent_valid[i].q.val()
                    & ((self.addr_net.val().get_bits::<64>(64)
                        & self.ent_mask[i].q.val().get_bits::<64>(64))
                        == self.ent_prefix[i].q.val().get_bits::<64>(64));
                self.m_hit_low[i].d.next = (self.addr_net.val().get_bits::<64>(0)
                    & self.ent_mask[i].q.val().get_bits::<64>(0))
                    == self.ent_prefix[i].q.val().get_bits::<64>(0);
            }
        }

        // Stages 2 to 4: the longest matching prefix; on a tie the lower
        // index (the left input of every node). Stage 2 registers the tree's
        // first level, stage 3 its second, stage 4 the best.
        // (Only for a looked-up address: a simulator skips it otherwise.)
        self.m_valid.d.next = self.addr_valid.val();
        for n in 0..7 {
            self.t_hit[n].next = false;
            self.t_format[n].next = 0.into();
        }
        for n in 0..6 {
            self.t_len[n].next = 0.into();
        }
        for i in 0..ENTRIES {
            self.m_both[i].next = self.m_hit[i].q.val() & self.m_hit_low[i].q.val();
        }
        if self.m_valid.q.val() {
            for n in 0..4 {
                self.t_hit[n].next = self.m_both[2 * n].val();
                self.t_len[n].next = self.m_len[2 * n].q.val();
                self.t_format[n].next = self.m_format[2 * n].q.val();
                if self.m_both[2 * n + 1].val()
                    & (!self.m_both[2 * n].val()
                        | (self.m_len[2 * n + 1].q.val() > self.m_len[2 * n].q.val()))
                {
                    self.t_hit[n].next = true;
                    self.t_len[n].next = self.m_len[2 * n + 1].q.val();
                    self.t_format[n].next = self.m_format[2 * n + 1].q.val();
                }
            }
        }
        self.p_valid.d.next = self.m_valid.q.val();
        for n in 0..4 {
            self.p_hit[n].d.next = self.t_hit[n].val();
            self.p_len[n].d.next = self.t_len[n].val();
            self.p_format[n].d.next = self.t_format[n].val();
        }
        if self.p_valid.q.val() {
            for n in 0..2 {
                self.t_hit[4 + n].next = self.p_hit[2 * n].q.val();
                self.t_len[4 + n].next = self.p_len[2 * n].q.val();
                self.t_format[4 + n].next = self.p_format[2 * n].q.val();
                if self.p_hit[2 * n + 1].q.val()
                    & (!self.p_hit[2 * n].q.val()
                        | (self.p_len[2 * n + 1].q.val() > self.p_len[2 * n].q.val()))
                {
                    self.t_hit[4 + n].next = true;
                    self.t_len[4 + n].next = self.p_len[2 * n + 1].q.val();
                    self.t_format[4 + n].next = self.p_format[2 * n + 1].q.val();
                }
            }
        }
        self.q_valid.d.next = self.p_valid.q.val();
        for n in 0..2 {
            self.q_hit[n].d.next = self.t_hit[4 + n].val();
            self.q_len[n].d.next = self.t_len[4 + n].val();
            self.q_format[n].d.next = self.t_format[4 + n].val();
        }
        if self.q_valid.q.val() {
            self.t_hit[6].next = self.q_hit[0].q.val();
            self.t_format[6].next = self.q_format[0].q.val();
            if self.q_hit[1].q.val()
                & (!self.q_hit[0].q.val() | (self.q_len[1].q.val() > self.q_len[0].q.val()))
            {
                self.t_hit[6].next = true;
                self.t_format[6].next = self.q_format[1].q.val();
            }
        }
        self.best_hit.d.next = self.t_hit[6].val();
        self.best_format.d.next = 0.into();
        if self.t_hit[6].val() {
            self.best_format.d.next = self.t_format[6].val();
        }

        // Delay to LATENCY.
        self.delay_hit[0].d.next = self.best_hit.q.val();
        self.delay_format[0].d.next = self.best_format.q.val();
        self.hit.next = self.delay_hit[0].q.val();
        self.format.next = self.delay_format[0].q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_format_table_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<FormatTable>("format_table");
    }
}
