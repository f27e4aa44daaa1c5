//! `ProxyTable`: the prefix -> proxy table of PX-03 — which proxy node
//! serves a sender, by the longest matching prefix of its address.
//!
//! ```text
//!  stage_prefix, stage_len, stage_valid, stage_addr, index, commit
//!     -->[ entry[index] <- staging (prefix masked, mask kept) ]        16 entries (registers)
//!  index -->[ entry mux ]--> rd_valid, rd_len, rd_prefix, rd_addr     (registered)
//!  addr (lane order) -->[ 16 x (addr & mask == prefix) ]-->[ longest, lowest index ]--> hit, hit_index, proxy
//!                          stage 1 (registered)              stage 2 (registered)
//! ```
//! The host writes an entry through staging registers and commits it with
//! one pulse (`commit`, the `PROXY_ENTRY_COMMAND` write): the entry changes
//! in one clock, so a look-up never sees half an entry. An entry takes part
//! when valid; a length above 128 acts as 128; prefixes and addresses are
//! 128-bit numbers in network order (the address's first byte in bits
//! 127..120, as the registers' words give them; IPv4 as `::ffff:a.b.c.d`),
//! so a prefix's mask is `!(ones >> len)`; the bits of the prefix beyond
//! its length are cleared on commit. Of the matching entries the longest prefix wins, and of
//! equally long ones the lowest index. Latency: `hit`, `hit_index` and
//! `proxy` belong to the `addr` of [`LATENCY`] clocks earlier, one address
//! per clock. `reset` invalidates every entry. A second look-up port
//! (`d_addr` -> `d_hit`, `d_proxy`, both in lane order, same latency) serves
//! the data path: the CN generator's choice of proxy for a sender (PX-01).
//!
//! draft-xiao-rtgwg-proxy-congestion-notification section 4: the congested
//! node sends its CN message to the proxy that serves the sender's prefix,
//! learned from the PNC advertisements (the host decodes them,
//! `cngw_packet::pnc`, and programs this table).

use rust_hdl::prelude::*;

/// Entries of the table.
pub const PROXY_ENTRIES: usize = 16;
/// Clocks from `addr` to its answer.
pub const LATENCY: usize = 2;

#[derive(LogicBlock)]
pub struct ProxyTable {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The entry written by `commit` and shown on `rd_*` (0..15).
    pub index: Signal<In, Bits<4>>,
    pub commit: Signal<In, Bit>,
    pub stage_valid: Signal<In, Bit>,
    pub stage_len: Signal<In, Bits<8>>,
    pub stage_prefix: Signal<In, Bits<128>>,
    pub stage_addr: Signal<In, Bits<128>>,
    /// Entry `index` (registered: one clock after `index` or a commit).
    pub rd_valid: Signal<Out, Bit>,
    pub rd_len: Signal<Out, Bits<8>>,
    pub rd_prefix: Signal<Out, Bits<128>>,
    pub rd_addr: Signal<Out, Bits<128>>,
    /// The address looked up, network order.
    pub addr: Signal<In, Bits<128>>,
    pub hit: Signal<Out, Bit>,
    pub hit_index: Signal<Out, Bits<4>>,
    /// The proxy of the best entry (0 without a hit).
    pub proxy: Signal<Out, Bits<128>>,
    /// Second look-up port, for the data path (PX-01): the sender's
    /// address in lane order (byte 0 in bits 7..0), every clock.
    pub d_addr: Signal<In, Bits<128>>,
    pub d_hit: Signal<Out, Bit>,
    /// The proxy of the best entry for `d_addr`, lane order.
    pub d_proxy: Signal<Out, Bits<128>>,
    ones: Constant<Bits<128>>,
    /// Entry i's number.
    entry_number: Vec<Constant<Bits<4>>>,
    e_valid: Vec<DFF<Bit>>,
    e_len: Vec<DFF<Bits<8>>>,
    e_mask: Vec<DFF<Bits<128>>>,
    e_prefix: Vec<DFF<Bits<128>>>,
    e_addr: Vec<DFF<Bits<128>>>,
    m_hit: Vec<DFF<Bit>>,
    d_m_hit: Vec<DFF<Bit>>,
    d_best_hit: DFF<Bit>,
    d_best_addr: DFF<Bits<128>>,
    d_words: Vec<Signal<Local, Bits<32>>>,
    d_net: Signal<Local, Bits<128>>,
    p_words: Vec<Signal<Local, Bits<32>>>,
    d_b_hit: Signal<Local, Bit>,
    d_b_len: Signal<Local, Bits<8>>,
    d_b_addr: Signal<Local, Bits<128>>,
    r_valid: DFF<Bit>,
    r_len: DFF<Bits<8>>,
    r_prefix: DFF<Bits<128>>,
    r_addr: DFF<Bits<128>>,
    best_hit: DFF<Bit>,
    best_index: DFF<Bits<4>>,
    best_addr: DFF<Bits<128>>,
    // Combinational.
    len: Signal<Local, Bits<8>>,
    mask: Signal<Local, Bits<128>>,
    b_hit: Signal<Local, Bit>,
    b_len: Signal<Local, Bits<8>>,
    b_index: Signal<Local, Bits<4>>,
    b_addr: Signal<Local, Bits<128>>,
}

impl Default for ProxyTable {
    fn default() -> Self {
        let n = PROXY_ENTRIES;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            index: Default::default(),
            commit: Default::default(),
            stage_valid: Default::default(),
            stage_len: Default::default(),
            stage_prefix: Default::default(),
            stage_addr: Default::default(),
            rd_valid: Default::default(),
            rd_len: Default::default(),
            rd_prefix: Default::default(),
            rd_addr: Default::default(),
            addr: Default::default(),
            hit: Default::default(),
            hit_index: Default::default(),
            proxy: Default::default(),
            d_addr: Default::default(),
            d_hit: Default::default(),
            d_proxy: Default::default(),
            d_m_hit: (0..n).map(|_| Default::default()).collect(),
            d_best_hit: Default::default(),
            d_best_addr: Default::default(),
            d_words: (0..4).map(|_| Default::default()).collect(),
            d_net: Default::default(),
            p_words: (0..4).map(|_| Default::default()).collect(),
            d_b_hit: Default::default(),
            d_b_len: Default::default(),
            d_b_addr: Default::default(),
            ones: Constant::new(!Bits::<128>::default()),
            entry_number: (0..n).map(|i| Constant::new(bits(i as u64))).collect(),
            e_valid: (0..n).map(|_| Default::default()).collect(),
            e_len: (0..n).map(|_| Default::default()).collect(),
            e_mask: (0..n).map(|_| Default::default()).collect(),
            e_prefix: (0..n).map(|_| Default::default()).collect(),
            e_addr: (0..n).map(|_| Default::default()).collect(),
            m_hit: (0..n).map(|_| Default::default()).collect(),
            r_valid: Default::default(),
            r_len: Default::default(),
            r_prefix: Default::default(),
            r_addr: Default::default(),
            best_hit: Default::default(),
            best_index: Default::default(),
            best_addr: Default::default(),
            len: Default::default(),
            mask: Default::default(),
            b_hit: Default::default(),
            b_len: Default::default(),
            b_index: Default::default(),
            b_addr: Default::default(),
        }
    }
}

impl Logic for ProxyTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_valid,
            r_len,
            r_prefix,
            r_addr,
            best_hit,
            best_index,
            best_addr,
            d_best_hit,
            d_best_addr
        );
        for i in 0..PROXY_ENTRIES {
            self.e_valid[i].clock.next = self.clock.val();
            self.e_valid[i].d.next = self.e_valid[i].q.val();
            self.e_len[i].clock.next = self.clock.val();
            self.e_len[i].d.next = self.e_len[i].q.val();
            self.e_mask[i].clock.next = self.clock.val();
            self.e_mask[i].d.next = self.e_mask[i].q.val();
            self.e_prefix[i].clock.next = self.clock.val();
            self.e_prefix[i].d.next = self.e_prefix[i].q.val();
            self.e_addr[i].clock.next = self.clock.val();
            self.e_addr[i].d.next = self.e_addr[i].q.val();
            self.m_hit[i].clock.next = self.clock.val();
            self.d_m_hit[i].clock.next = self.clock.val();
        }

        // The staged entry's mask: its first `len` bits.
        self.len.next = self.stage_len.val();
        if self.stage_len.val() > 128 {
            self.len.next = 128.into();
        }
        self.mask.next = !(self.ones.val() >> self.len.val());
        for i in 0..PROXY_ENTRIES {
            if self.commit.val() & (self.index.val().index() == i) {
                self.e_valid[i].d.next = self.stage_valid.val();
                self.e_len[i].d.next = self.len.val();
                self.e_mask[i].d.next = self.mask.val();
                self.e_prefix[i].d.next = self.stage_prefix.val() & self.mask.val();
                self.e_addr[i].d.next = self.stage_addr.val();
            }
            if self.reset.val() {
                self.e_valid[i].d.next = false;
            }
        }

        // Read-back of entry `index`.
        for i in 0..PROXY_ENTRIES {
            if self.index.val().index() == i {
                self.r_valid.d.next = self.e_valid[i].q.val();
                self.r_len.d.next = self.e_len[i].q.val();
                self.r_prefix.d.next = self.e_prefix[i].q.val();
                self.r_addr.d.next = self.e_addr[i].q.val();
            }
        }
        self.rd_valid.next = self.r_valid.q.val();
        self.rd_len.next = self.r_len.q.val();
        self.rd_prefix.next = self.r_prefix.q.val();
        self.rd_addr.next = self.r_addr.q.val();

        // Look-up: stage 1 the matches, stage 2 the best.
        for i in 0..PROXY_ENTRIES {
            self.m_hit[i].d.next = self.e_valid[i].q.val()
                & ((self.addr.val() & self.e_mask[i].q.val()) == self.e_prefix[i].q.val());
        }
        self.b_hit.next = false;
        self.b_len.next = 0.into();
        self.b_index.next = 0.into();
        self.b_addr.next = 0.into();
        for i in 0..PROXY_ENTRIES {
            if self.m_hit[i].q.val()
                & (!self.b_hit.val() | (self.e_len[i].q.val() > self.b_len.val()))
            {
                self.b_hit.next = true;
                self.b_len.next = self.e_len[i].q.val();
                self.b_index.next = self.entry_number[i].val();
                self.b_addr.next = self.e_addr[i].q.val();
            }
        }
        self.best_hit.d.next = self.b_hit.val();
        self.best_index.d.next = self.b_index.val();
        self.best_addr.d.next = self.b_addr.val();
        self.hit.next = self.best_hit.q.val();
        self.hit_index.next = self.best_index.q.val();
        self.proxy.next = self.best_addr.q.val();

        // The data-path port: the same two stages. Lane word w holds the
        // bytes of network word 3 - w, reversed.
        for w in 0..4 {
            self.d_words[w].next = (self.d_addr.val().get_bits::<32>(32 * w) >> 24)
                | ((self.d_addr.val().get_bits::<32>(32 * w) >> 8) & 0xFF00)
                | ((self.d_addr.val().get_bits::<32>(32 * w) << 8) & 0xFF_0000)
                | (self.d_addr.val().get_bits::<32>(32 * w) << 24);
        }
        self.d_net.next = (bit_cast::<128, 32>(self.d_words[0].val()) << 96)
            | (bit_cast::<128, 32>(self.d_words[1].val()) << 64)
            | (bit_cast::<128, 32>(self.d_words[2].val()) << 32)
            | bit_cast::<128, 32>(self.d_words[3].val());
        for i in 0..PROXY_ENTRIES {
            self.d_m_hit[i].d.next = self.e_valid[i].q.val()
                & ((self.d_net.val() & self.e_mask[i].q.val()) == self.e_prefix[i].q.val());
        }
        self.d_b_hit.next = false;
        self.d_b_len.next = 0.into();
        self.d_b_addr.next = 0.into();
        for i in 0..PROXY_ENTRIES {
            if self.d_m_hit[i].q.val()
                & (!self.d_b_hit.val() | (self.e_len[i].q.val() > self.d_b_len.val()))
            {
                self.d_b_hit.next = true;
                self.d_b_len.next = self.e_len[i].q.val();
                self.d_b_addr.next = self.e_addr[i].q.val();
            }
        }
        self.d_best_hit.d.next = self.d_b_hit.val();
        self.d_best_addr.d.next = self.d_b_addr.val();
        self.d_hit.next = self.d_best_hit.q.val();
        for w in 0..4 {
            self.p_words[w].next = (self.d_best_addr.q.val().get_bits::<32>(96 - 32 * w) >> 24)
                | ((self.d_best_addr.q.val().get_bits::<32>(96 - 32 * w) >> 8) & 0xFF00)
                | ((self.d_best_addr.q.val().get_bits::<32>(96 - 32 * w) << 8) & 0xFF_0000)
                | (self.d_best_addr.q.val().get_bits::<32>(96 - 32 * w) << 24);
        }
        self.d_proxy.next = bit_cast::<128, 32>(self.p_words[0].val())
            | (bit_cast::<128, 32>(self.p_words[1].val()) << 32)
            | (bit_cast::<128, 32>(self.p_words[2].val()) << 64)
            | (bit_cast::<128, 32>(self.p_words[3].val()) << 96);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_proxy_table_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<ProxyTable>("proxy_table");
    }
}
