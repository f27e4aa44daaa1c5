//! Where each flow sits in the gateway's flow table (`FlowTable<12, 9, 8>`),
//! and the flow label that place gives it (FCN-01).
//!
//! Placement is 8-choice d-left hashing: the 4096 buckets are 8 banks of
//! 512, and a key has one candidate bucket in each bank
//! ([`FlowKey::gateway_candidates`]: bank `i`'s index is bits `9i..9i+9` of
//! the key's 96-bit hash, CRC-64/XZ and CRC-32C of SIP|DIP|DQP). A new key
//! takes the candidate bucket with the fewest taken ways (ties to the
//! lowest bank) and in it the lowest free way; with all eight candidates
//! full, the lowest free stash slot; with the stash full too the insert
//! fails. A key keeps its place until it is deleted or aged out: entries
//! never move. Random keys fill ~95 % of the table before the first failure
//! (one candidate: ~23 %).
//!
//! FCN-01 (draft-he-fcn-in-wan section 4.1: "a locally unique flow label"
//! per RoCEv2 flow, "dynamically maintained"): a flow's label is its place,
//! `1 + 4 * bucket + way` for the ways and `16385 + slot` for the stash
//! (1..=16392; 0 stays "no label"). It is unique while the flow lives, is
//! never reused before the entry is deleted or aged, needs no allocator of
//! its own, and a received label names its entry directly (a read at that
//! place, no search): `docs/decisions.md`.

use cngw_packet::flow_key::FlowKey;
use std::collections::BTreeMap;

/// Buckets of the gateway's table: 2^12.
pub const BUCKET_BITS: usize = 12;
/// Ways per bucket.
pub const WAYS: u32 = 4;
/// Stash slots.
pub const STASH_SLOTS: u32 = 8;
/// The largest label a place gives.
pub const MAX_LABEL: u32 = (1 << BUCKET_BITS) * WAYS + STASH_SLOTS;

/// A place in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    Bucket { bucket: u32, way: u32 },
    Stash { slot: u32 },
}

impl Location {
    /// FCN-01: the flow label of the flow at this place.
    pub fn label(self) -> u32 {
        match self {
            Location::Bucket { bucket, way } => 1 + bucket * WAYS + way,
            Location::Stash { slot } => 1 + (1 << BUCKET_BITS) * WAYS + slot,
        }
    }

    /// The place a label names (`None`: 0 or beyond [`MAX_LABEL`]).
    pub fn of_label(label: u32) -> Option<Location> {
        let i = label.checked_sub(1)?;
        let ways = (1 << BUCKET_BITS) * WAYS;
        if i < ways {
            Some(Location::Bucket {
                bucket: i / WAYS,
                way: i % WAYS,
            })
        } else if i - ways < STASH_SLOTS {
            Some(Location::Stash { slot: i - ways })
        } else {
            None
        }
    }
}

/// The occupied places.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    ways: BTreeMap<u32, [Option<FlowKey>; WAYS as usize]>,
    stash: [Option<FlowKey>; STASH_SLOTS as usize],
    at: BTreeMap<FlowKey, Location>,
}

impl Placement {
    /// The place of `key`, inserting it if absent; `None` when its eight
    /// candidate buckets and the stash are full (the insert fails).
    pub fn insert(&mut self, key: FlowKey) -> Option<Location> {
        if let Some(&l) = self.at.get(&key) {
            return Some(l);
        }
        let candidates = key.gateway_candidates(BUCKET_BITS);
        let load = |b: u32| {
            self.ways
                .get(&b)
                .map_or(0, |w| w.iter().filter(|x| x.is_some()).count())
        };
        // Fewest taken ways; `min_by_key` keeps the first (lowest bank) of equals.
        let bucket = *candidates.iter().min_by_key(|&&b| load(b)).unwrap();
        let ways = self.ways.entry(bucket).or_default();
        let location = if let Some(way) = ways.iter().position(Option::is_none) {
            ways[way] = Some(key);
            Location::Bucket {
                bucket,
                way: way as u32,
            }
        } else {
            let slot = self.stash.iter().position(Option::is_none)?;
            self.stash[slot] = Some(key);
            Location::Stash { slot: slot as u32 }
        };
        self.at.insert(key, location);
        Some(location)
    }

    /// Frees the place of `key` (if it has one).
    pub fn remove(&mut self, key: &FlowKey) {
        match self.at.remove(key) {
            Some(Location::Bucket { bucket, way }) => {
                if let Some(ways) = self.ways.get_mut(&bucket) {
                    ways[way as usize] = None;
                }
            }
            Some(Location::Stash { slot }) => self.stash[slot as usize] = None,
            None => {}
        }
    }

    pub fn location(&self, key: &FlowKey) -> Option<Location> {
        self.at.get(key).copied()
    }

    pub fn key_at(&self, location: Location) -> Option<FlowKey> {
        match location {
            Location::Bucket { bucket, way } => {
                self.ways.get(&bucket).and_then(|w| w[way as usize])
            }
            Location::Stash { slot } => self.stash[slot as usize],
        }
    }

    /// Every placed key with its place.
    pub fn iter(&self) -> impl Iterator<Item = (&FlowKey, &Location)> {
        self.at.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` keys with the same eight candidate buckets.
    fn same_candidates(n: usize) -> Vec<FlowKey> {
        let first = FlowKey::ipv6("fd00::1".parse().unwrap(), "fd00::2".parse().unwrap(), 0);
        first.with_same_candidates(BUCKET_BITS, n, true)
    }

    #[test]
    fn fcn_01_labels_name_places_one_to_one() {
        assert_eq!(Location::of_label(0), None);
        assert_eq!(Location::of_label(MAX_LABEL + 1), None);
        for label in 1..=MAX_LABEL {
            assert_eq!(Location::of_label(label).unwrap().label(), label);
        }
        assert_eq!(Location::Bucket { bucket: 0, way: 0 }.label(), 1);
        assert_eq!(Location::Stash { slot: 7 }.label(), MAX_LABEL);
    }

    #[test]
    fn fcn_01_ways_then_stash_and_places_are_kept_and_reused_only_after_removal() {
        let keys = same_candidates(41);
        let mut p = Placement::default();
        let places: Vec<_> = keys.iter().map(|&k| p.insert(k)).collect();
        let c = keys[0].gateway_candidates(BUCKET_BITS);
        // The least loaded candidate, lowest bank first: round robin over
        // the 8 banks, one way of each per round.
        for (i, place) in places.iter().enumerate().take(32) {
            assert_eq!(
                *place,
                Some(Location::Bucket {
                    bucket: c[i % 8],
                    way: i as u32 / 8
                })
            );
        }
        for (i, place) in places.iter().enumerate().skip(32).take(8) {
            assert_eq!(
                *place,
                Some(Location::Stash {
                    slot: i as u32 - 32
                })
            );
        }
        assert_eq!(places[40], None, "candidates and stash full");
        // A key keeps its place; a freed place goes to the next new key.
        assert_eq!(p.insert(keys[2]), places[2]);
        p.remove(&keys[1]);
        assert_eq!(p.key_at(places[1].unwrap()), None);
        assert_eq!(p.insert(keys[40]), places[1]);
        assert_eq!(p.location(&keys[40]), places[1]);
        assert_eq!(p.iter().count(), 40);
    }

    /// Random keys fill at least 90 % of the table before the first
    /// failure (8-choice d-left; one choice filled about 23 %).
    #[test]
    fn fcn_01_random_keys_fill_the_table() {
        let mut p = Placement::default();
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut n = 0;
        loop {
            let key = FlowKey {
                sip: (next() as u128) << 64 | next() as u128,
                dip: (next() as u128) << 64 | next() as u128,
                dqp: next() as u32 & 0xff_ffff,
            };
            if p.insert(key).is_none() {
                break;
            }
            n += 1;
        }
        let load = n as f64 / MAX_LABEL as f64;
        assert!(load >= 0.90, "load {load}");
    }
}
