//! PX-03: the prefix -> proxy table as the host sees it through its
//! registers (`hdl/src/px/proxy_table.rs`): staging registers committed
//! into entry `PROXY_ENTRY_INDEX` by `PROXY_ENTRY_COMMAND`, the entry at
//! `PROXY_ENTRY_INDEX` on `PROXY_ENTRY_READ_*`, and the longest-prefix
//! answer for `PROXY_LOOKUP_ADDR` on `PROXY_LOOKUP_RESULT`.

use crate::longhaul::Registers;
use cngw_regmap::{offset, proxy};
use std::collections::BTreeMap;

/// One entry, in the 128-bit space (IPv4 as `::ffff:a.b.c.d`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProxyEntry {
    pub valid: bool,
    /// 0..=128.
    pub len: u32,
    /// Bits past `len` cleared.
    pub prefix: u128,
    pub proxy: u128,
}

impl ProxyEntry {
    pub fn mask(&self) -> u128 {
        if self.len == 0 {
            0
        } else {
            u128::MAX << (128 - self.len)
        }
    }

    pub fn matches(&self, addr: u128) -> bool {
        self.valid && addr & self.mask() == self.prefix
    }
}

/// The table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyTableModel {
    pub entries: [ProxyEntry; proxy::ENTRIES as usize],
}

fn words(r: &dyn Registers, first: u32) -> u128 {
    (0..4).fold(0u128, |a, i| (a << 32) | r.reg(first + 4 * i) as u128)
}

impl ProxyTableModel {
    /// `PROXY_ENTRY_COMMAND` with `COMMIT`: the staging registers into
    /// entry `PROXY_ENTRY_INDEX`.
    pub fn commit(&mut self, r: &dyn Registers) {
        let c = r.reg(offset::PROXY_ENTRY_CONTROL);
        let mut e = ProxyEntry {
            valid: c & proxy::ENTRY_VALID != 0,
            len: ((c >> proxy::ENTRY_LEN_SHIFT) & 0xFF).min(128),
            prefix: 0,
            proxy: words(r, offset::PROXY_ENTRY_ADDR_0),
        };
        e.prefix = words(r, offset::PROXY_ENTRY_PREFIX_0) & e.mask();
        self.entries[(r.reg(offset::PROXY_ENTRY_INDEX) & 0xF) as usize] = e;
    }

    /// The longest matching entry (lowest index among equals).
    pub fn lookup(&self, addr: u128) -> Option<(usize, ProxyEntry)> {
        let mut best: Option<(usize, ProxyEntry)> = None;
        for (i, e) in self.entries.iter().enumerate() {
            if e.matches(addr) && best.is_none_or(|(_, b)| e.len > b.len) {
                best = Some((i, *e));
            }
        }
        best
    }

    /// The read-back and look-up registers as the table shows them.
    pub fn status(&self, r: &dyn Registers) -> BTreeMap<u32, u32> {
        let e = self.entries[(r.reg(offset::PROXY_ENTRY_INDEX) & 0xF) as usize];
        let mut out = BTreeMap::new();
        for i in 0..4u32 {
            let shift = 96 - 32 * i;
            out.insert(
                offset::PROXY_ENTRY_READ_PREFIX_0 + 4 * i,
                (e.prefix >> shift) as u32,
            );
            out.insert(
                offset::PROXY_ENTRY_READ_ADDR_0 + 4 * i,
                (e.proxy >> shift) as u32,
            );
        }
        out.insert(
            offset::PROXY_ENTRY_READ_STATE,
            e.valid as u32 | e.len << proxy::ENTRY_LEN_SHIFT,
        );
        let result = match self.lookup(words(r, offset::PROXY_LOOKUP_ADDR_0)) {
            Some((i, _)) => proxy::LOOKUP_HIT | (i as u32) << proxy::LOOKUP_INDEX_SHIFT,
            None => 0,
        };
        out.insert(offset::PROXY_LOOKUP_RESULT, result);
        out
    }
}
