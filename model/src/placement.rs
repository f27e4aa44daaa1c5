//! Where each flow sits in the gateway's flow table (`FlowTable<12, 8>`),
//! and the flow label that place gives it (FCN-01).
//!
//! A new key takes the lowest free way of its bucket (`CRC-32C(SIP|DIP|DQP)
//! mod 4096`, [`FlowKey::bucket`]), else the lowest free stash slot; with
//! all four ways and the eight stash slots taken the insert fails. A key
//! keeps its place until it is deleted or aged out: entries never move.
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
    /// The place of `key`, inserting it if absent; `None` when its bucket
    /// and the stash are full (the insert fails).
    pub fn insert(&mut self, key: FlowKey) -> Option<Location> {
        if let Some(&l) = self.at.get(&key) {
            return Some(l);
        }
        let bucket = key.gateway_bucket(BUCKET_BITS);
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

    /// `n` keys of one bucket.
    fn same_bucket(n: usize) -> Vec<FlowKey> {
        let first = FlowKey::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 0);
        let b = first.gateway_bucket(BUCKET_BITS);
        (0..)
            .map(|q| FlowKey::ipv4([10, 0, 0, 1], [10, 0, 0, 2], q))
            .filter(|k| k.gateway_bucket(BUCKET_BITS) == b)
            .take(n)
            .collect()
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
        let keys = same_bucket(13);
        let mut p = Placement::default();
        let places: Vec<_> = keys.iter().map(|&k| p.insert(k)).collect();
        let b = keys[0].gateway_bucket(BUCKET_BITS);
        for (i, place) in places.iter().enumerate().take(4) {
            assert_eq!(
                *place,
                Some(Location::Bucket {
                    bucket: b,
                    way: i as u32
                })
            );
        }
        for (i, place) in places.iter().enumerate().skip(4).take(8) {
            assert_eq!(*place, Some(Location::Stash { slot: i as u32 - 4 }));
        }
        assert_eq!(places[12], None, "bucket and stash full");
        // A key keeps its place; a freed place goes to the next new key.
        assert_eq!(p.insert(keys[2]), places[2]);
        p.remove(&keys[1]);
        assert_eq!(p.key_at(places[1].unwrap()), None);
        assert_eq!(p.insert(keys[12]), places[1]);
        assert_eq!(p.location(&keys[12]), places[1]);
        assert_eq!(p.iter().count(), 12);
    }
}
