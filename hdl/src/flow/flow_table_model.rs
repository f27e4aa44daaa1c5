//! `FlowTableModel`: the reference model of `FlowTable` (LH-01), clock by
//! clock at its request port, in plain Rust.
//!
//! ```text
//!  FlowCycle (reset, request, now, window_epoch,  +----------------+
//!   aging_enable, age_timeout, clear_counters) -->| FlowTableModel |--> Option<FlowResponse>
//!                                                 |  ways[bucket][4]|    (the RTL shows it 5
//!                                                 |  stash[STASH]   |     clocks later)
//!                                                 +----------------+--> FlowCounters
//! ```
//! Same hash and candidates (`flow_hash.rs`: one candidate bucket in each
//! of 8 banks), same placement (8-choice d-left: the candidate with the
//! fewest valid ways, ties to the lowest bank, its lowest free way; else
//! the lowest free stash slot; else an insert failure), same response
//! bucket (the way's hit, else the candidate an insert takes), same aging
//! scan (one index of every bank and one stash slot per clock without a
//! request while aging is enabled; a flush of 2^(bucket_bits - 3) clocks
//! after reset) and the same counters as the RTL, so a random sequence
//! of clocks can be compared with the RTL request by request. The RTL
//! applies requests in order as if one at a time; so does the model, at
//! once. One difference is a precondition rather than a behaviour: the RTL
//! drops the requests of the 4 clocks before a `reset` (still in its
//! pipeline), so the model expects none there.
//!
//! draft-tian-ccwg-long-haul-cnp-00, "Flow Table Learning and Maintenance".

use super::flow_entry::{FlowKey, FlowRecord};
use super::flow_hash::flow_candidates;
use super::flow_table::{FlowOp, BANKS, BANK_BITS, WAYS};

/// One request at the table's port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowRequest {
    pub op: FlowOp,
    pub key: FlowKey,
    pub sqp: u32,
    pub bytes: u16,
    /// `ReadLocation` only.
    pub bucket: u32,
    pub slot: u8,
    pub in_stash: bool,
    /// `LearnSqp` only where the entry has no source QP (PSN pairing).
    pub fill: bool,
}

impl FlowRequest {
    /// A request naming a flow.
    pub fn keyed(op: FlowOp, key: FlowKey) -> Self {
        Self {
            op,
            key,
            sqp: 0,
            bytes: 0,
            bucket: 0,
            slot: 0,
            in_stash: false,
            fill: false,
        }
    }

    /// `ReadLocation` of a way (`in_stash` false) or a stash slot.
    pub fn read_location(bucket: u32, slot: u8, in_stash: bool) -> Self {
        Self {
            bucket,
            slot,
            in_stash,
            ..Self::keyed(FlowOp::ReadLocation, FlowKey::default())
        }
    }
}

/// Everything the table samples in one clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FlowCycle {
    pub reset: bool,
    pub request: Option<FlowRequest>,
    pub now: u32,
    pub window_epoch: u8,
    pub aging_enable: bool,
    pub age_timeout: u32,
    pub clear_counters: bool,
}

/// The response to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FlowResponse {
    /// Came while the table was flushing; nothing else is meaningful.
    pub dropped: bool,
    pub hit: bool,
    pub inserted: bool,
    pub failed: bool,
    pub in_stash: bool,
    pub bucket: u32,
    pub slot: u8,
    /// The entry after the operation (`Delete`: the entry removed).
    pub entry: FlowRecord,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FlowCounters {
    pub occupancy: u32,
    pub learned: u32,
    pub aged: u32,
    pub insert_failures: u32,
    pub lookups_without_sqp: u32,
}

/// Where an entry lives: (bucket, way) or a stash slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Way(usize, usize),
    Stash(usize),
}

#[derive(Clone, Debug)]
pub struct FlowTableModel {
    bucket_bits: usize,
    ways: Vec<[FlowRecord; WAYS]>,
    stash: Vec<FlowRecord>,
    /// The scan's index (in every bank).
    scan_index: u32,
    scan_slot: usize,
    flushing: bool,
    counters: FlowCounters,
}

impl FlowTableModel {
    /// A table of `2^bucket_bits` buckets (8 banks, `bucket_bits` >= 4)
    /// and `stash` stash slots.
    pub fn new(bucket_bits: usize, stash: usize) -> Self {
        assert!(bucket_bits > BANK_BITS, "at least 4 bucket bits");
        Self {
            bucket_bits,
            ways: vec![[FlowRecord::default(); WAYS]; 1 << bucket_bits],
            stash: vec![FlowRecord::default(); stash],
            scan_index: 0,
            scan_slot: 0,
            flushing: false,
            counters: FlowCounters::default(),
        }
    }

    pub fn counters(&self) -> FlowCounters {
        self.counters
    }

    pub fn busy(&self) -> bool {
        self.flushing
    }

    /// The key's candidate buckets, one per bank.
    pub fn candidates_of(&self, key: &FlowKey) -> [u32; BANKS] {
        flow_candidates(key, self.bucket_bits)
    }

    /// The candidate an insert of `key` takes: the fewest valid ways, ties
    /// to the lowest bank.
    pub fn target_of(&self, key: &FlowKey) -> u32 {
        let load = |b: &u32| self.ways[*b as usize].iter().filter(|e| e.valid).count();
        self.candidates_of(key)
            .into_iter()
            .min_by_key(load)
            .unwrap()
    }

    /// Every valid entry with its place: (in_stash, bucket, slot).
    pub fn entries(&self) -> Vec<(bool, u32, u8, FlowRecord)> {
        let mut out = Vec::new();
        for (b, ways) in self.ways.iter().enumerate() {
            for (w, e) in ways.iter().enumerate() {
                if e.valid {
                    out.push((false, b as u32, w as u8, *e));
                }
            }
        }
        for (s, e) in self.stash.iter().enumerate() {
            if e.valid {
                out.push((true, 0, s as u8, *e));
            }
        }
        out
    }

    /// One clock: returns the response the RTL gives 5 clocks later.
    pub fn cycle(&mut self, c: &FlowCycle) -> Option<FlowResponse> {
        if c.reset {
            let stash = self.stash.len();
            *self = Self::new(self.bucket_bits, stash);
            self.flushing = true;
            return None;
        }
        if c.clear_counters {
            self.counters.aged = 0;
            self.counters.insert_failures = 0;
            self.counters.lookups_without_sqp = 0;
        }
        if self.flushing {
            // The RAM was emptied at reset; the RTL needs 2^I clocks for it.
            if self.scan_index == self.index_mask() {
                self.flushing = false;
            }
            self.scan_index = (self.scan_index + 1) & self.index_mask();
            return c.request.map(|_| FlowResponse {
                dropped: true,
                ..Default::default()
            });
        }
        if let Some(req) = c.request {
            return Some(self.execute(&req, c.now, c.window_epoch));
        }
        if c.aging_enable {
            self.age(c.now, c.age_timeout);
        }
        None
    }

    fn bucket_mask(&self) -> u32 {
        ((1u64 << self.bucket_bits) - 1) as u32
    }

    fn index_mask(&self) -> u32 {
        ((1u64 << (self.bucket_bits - BANK_BITS)) - 1) as u32
    }

    fn find(&self, key: &FlowKey) -> Option<Place> {
        let matches = |e: &FlowRecord| e.valid && e.key == *key;
        for b in self.candidates_of(key) {
            if let Some(w) = self.ways[b as usize].iter().position(matches) {
                return Some(Place::Way(b as usize, w));
            }
        }
        self.stash.iter().position(matches).map(Place::Stash)
    }

    fn get(&self, place: Place) -> FlowRecord {
        match place {
            Place::Way(b, w) => self.ways[b][w],
            Place::Stash(s) => self.stash[s],
        }
    }

    fn set(&mut self, place: Place, e: FlowRecord) {
        match place {
            Place::Way(b, w) => self.ways[b][w] = e,
            Place::Stash(s) => self.stash[s] = e,
        }
    }

    fn location(place: Place) -> (bool, u8) {
        match place {
            Place::Way(_, w) => (false, w as u8),
            Place::Stash(s) => (true, s as u8),
        }
    }

    /// Executes one request (no aging, not flushing).
    pub fn execute(&mut self, req: &FlowRequest, now: u32, epoch: u8) -> FlowResponse {
        let target = self.target_of(&req.key);
        let found = self.find(&req.key);
        // The response's bucket: ReadLocation's; the way's found; else the
        // candidate an insert takes.
        let bucket = match (req.op, found) {
            (FlowOp::ReadLocation, _) => req.bucket & self.bucket_mask(),
            (_, Some(Place::Way(b, _))) => b as u32,
            _ => target,
        };
        let b = bucket as usize;
        let mut resp = FlowResponse {
            bucket,
            ..Default::default()
        };
        let found = if req.op == FlowOp::ReadLocation {
            None
        } else {
            found
        };
        let old = found.map(|p| self.get(p)).unwrap_or_default();
        if let Some(p) = found {
            resp.hit = true;
            (resp.in_stash, resp.slot) = Self::location(p);
            resp.entry = old;
        }
        let sqp = req.sqp & 0xff_ffff;
        match req.op {
            FlowOp::Lookup => {}
            FlowOp::LookupUpdate | FlowOp::LearnSqp | FlowOp::InsertStatic => {
                let learning = req.op != FlowOp::LookupUpdate;
                let mut e;
                let place = if let Some(p) = found {
                    e = old;
                    e.last_seen = now;
                    match req.op {
                        FlowOp::LookupUpdate => {
                            if e.window_epoch == epoch {
                                e.window_bytes = e.window_bytes.saturating_add(req.bytes as u32);
                            } else {
                                // LH-10: the last complete window and the
                                // one before; the rate fell below 7/8.
                                let (last, before) = if e.window_epoch.wrapping_add(1) == epoch {
                                    (e.window_bytes, e.prev_bytes)
                                } else if e.window_epoch.wrapping_add(2) == epoch {
                                    (0, e.window_bytes)
                                } else {
                                    (0, 0)
                                };
                                let fell = (last as u64) * 8 < (before as u64) * 7;
                                e.prev_bytes = last;
                                e.notify_state = fell as u8;
                                e.window_bytes = req.bytes as u32;
                                e.window_epoch = epoch;
                            }
                        }
                        FlowOp::LearnSqp => {
                            let keeps = e.pinned || (req.fill && e.sqp_valid);
                            if !keeps {
                                e.sqp = sqp;
                                e.sqp_valid = true;
                            }
                        }
                        _ => {
                            e.sqp = sqp;
                            e.sqp_valid = true;
                            e.pinned = true;
                        }
                    }
                    if learning && !old.sqp_valid {
                        self.counters.learned = self.counters.learned.wrapping_add(1);
                    }
                    Some(p)
                } else {
                    e = FlowRecord {
                        valid: true,
                        key: req.key,
                        last_seen: now,
                        window_epoch: epoch,
                        window_bytes: if learning { 0 } else { req.bytes as u32 },
                        sqp: if learning { sqp } else { 0 },
                        sqp_valid: learning,
                        pinned: req.op == FlowOp::InsertStatic,
                        notify_state: 0,
                        prev_bytes: 0,
                    };
                    let t = target as usize;
                    let free = self.ways[t]
                        .iter()
                        .position(|w| !w.valid)
                        .map(|w| Place::Way(t, w))
                        .or_else(|| self.stash.iter().position(|s| !s.valid).map(Place::Stash));
                    match free {
                        Some(p) => {
                            resp.inserted = true;
                            (resp.in_stash, resp.slot) = Self::location(p);
                            self.counters.occupancy = self.counters.occupancy.wrapping_add(1);
                            if learning {
                                self.counters.learned = self.counters.learned.wrapping_add(1);
                            }
                        }
                        None => {
                            resp.failed = true;
                            self.counters.insert_failures =
                                self.counters.insert_failures.wrapping_add(1);
                        }
                    }
                    free
                };
                if let Some(p) = place {
                    self.set(p, e);
                    resp.entry = e;
                }
            }
            FlowOp::Delete => {
                if let Some(p) = found {
                    self.set(p, FlowRecord::default());
                    self.counters.occupancy = self.counters.occupancy.wrapping_sub(1);
                    if old.sqp_valid {
                        self.counters.learned = self.counters.learned.wrapping_sub(1);
                    }
                }
            }
            FlowOp::ReadLocation => {
                resp.in_stash = req.in_stash;
                resp.slot = req.slot & 0xf;
                let slot = resp.slot as usize;
                resp.entry = match (req.in_stash, slot) {
                    (false, w) if w < WAYS => self.ways[b][w],
                    (true, s) if s < self.stash.len() => self.stash[s],
                    _ => FlowRecord::default(),
                };
                resp.hit = resp.entry.valid;
            }
        }
        if req.op == FlowOp::LookupUpdate && !(resp.hit && old.sqp_valid) {
            self.counters.lookups_without_sqp = self.counters.lookups_without_sqp.wrapping_add(1);
        }
        resp
    }

    /// One aging step: the ways of the scan index in every bank and the
    /// scan stash slot.
    fn age(&mut self, now: u32, timeout: u32) {
        let index_bits = self.bucket_bits - BANK_BITS;
        let s = self.scan_slot;
        let expire = |e: &mut FlowRecord, counters: &mut FlowCounters| {
            if e.valid && !e.pinned && now.wrapping_sub(e.last_seen) > timeout {
                counters.aged = counters.aged.wrapping_add(1);
                counters.occupancy = counters.occupancy.wrapping_sub(1);
                if e.sqp_valid {
                    counters.learned = counters.learned.wrapping_sub(1);
                }
                *e = FlowRecord::default();
            }
        };
        for bank in 0..BANKS {
            let b = (bank << index_bits) | self.scan_index as usize;
            for w in 0..WAYS {
                expire(&mut self.ways[b][w], &mut self.counters);
            }
        }
        expire(&mut self.stash[s], &mut self.counters);
        self.scan_index = (self.scan_index + 1) & self.index_mask();
        self.scan_slot = (self.scan_slot + 1) % self.stash.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u32) -> FlowKey {
        FlowKey::ipv4([10, 0, 0, 1], [10, 0, 0, 4], n)
    }

    #[test]
    fn lh_01_model_learns_updates_and_deletes() {
        let mut m = FlowTableModel::new(4, 2);
        let k = key(200);
        let mut req = FlowRequest::keyed(FlowOp::LookupUpdate, k);
        req.bytes = 1000;
        let r = m.execute(&req, 5, 1);
        assert!(!r.hit && r.inserted && !r.entry.sqp_valid);
        let r = m.execute(&req, 6, 1);
        assert!(r.hit && r.entry.window_bytes == 2000 && r.entry.last_seen == 6);
        let r = m.execute(&req, 7, 2);
        assert_eq!(
            r.entry.window_bytes, 1000,
            "a new window restarts the count"
        );
        let mut learn = FlowRequest::keyed(FlowOp::LearnSqp, k);
        learn.sqp = 100;
        let r = m.execute(&learn, 8, 2);
        assert!(r.hit && r.entry.sqp_valid && r.entry.sqp == 100);
        assert_eq!(m.counters().learned, 1);
        assert_eq!(m.counters().lookups_without_sqp, 3);
        let r = m.execute(&FlowRequest::keyed(FlowOp::Delete, k), 9, 2);
        assert!(r.hit && r.entry.sqp == 100);
        assert_eq!(m.counters().occupancy, 0);
        assert_eq!(m.counters().learned, 0);
    }

    #[test]
    fn lh_01_model_ages_unpinned_entries_only() {
        let mut m = FlowTableModel::new(4, 2);
        let mut pinned = FlowRequest::keyed(FlowOp::InsertStatic, key(1));
        pinned.sqp = 7;
        m.execute(&pinned, 0, 0);
        m.execute(&FlowRequest::keyed(FlowOp::LookupUpdate, key(2)), 0, 0);
        let idle = FlowCycle {
            now: 100,
            aging_enable: true,
            age_timeout: 50,
            ..Default::default()
        };
        for _ in 0..2 {
            m.cycle(&idle);
        }
        assert_eq!(m.counters().aged, 1);
        assert_eq!(m.counters().occupancy, 1);
        assert!(m.entries()[0].3.pinned);
    }
}
