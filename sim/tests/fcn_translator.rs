//! `FcnTranslator` in the Verilog that ships (FCN-05, FCN-06): random
//! received Fast CNPs (labels of flows with and without a source QP, of
//! empty places, 0 and out of range; malformed; from outside the domain)
//! against a flow table answering granted reads five clocks later, with
//! random grant delays and random backpressure on the jobs. Every job (the
//! flow's source address, its source QP as DQP, the address family) and
//! every counter equals a clock-by-clock reference of the block's rules,
//! whose token bucket is the model's (`cngw_model::bucket`); label to place
//! is the model's (`cngw_model::placement`). Messages flagged local (PE-05:
//! a light Fast CNP for the PE's own shaper) pass the same checks and the
//! bucket and leave on `note_valid`/`note_label` in their clock instead of
//! becoming reads.

use cngw_model::bucket::TokenBucket;
use cngw_model::placement::{Location, MAX_LABEL};
use cngw_sim::Unit;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use std::net::Ipv6Addr;

/// A flow-table entry as the fake table holds it: source address (IPv4
/// flows IPv4-mapped) and source QP.
#[derive(Clone, Copy, Debug)]
struct Entry {
    sip: Ipv6Addr,
    sqp: Option<u32>,
}

/// What the reference expects: jobs (address, DQP, IPv6) and counters.
#[derive(Default)]
struct Reference {
    bucket: TokenBucket,
    reads: VecDeque<Location>,
    /// Answer clock and place of granted reads.
    in_flight: VecDeque<(u64, Location)>,
    jobs: VecDeque<(Ipv6Addr, u32, bool)>,
    counters: BTreeMap<&'static str, u32>,
}

fn lane_bytes(a: Ipv6Addr) -> Vec<u8> {
    a.octets().to_vec()
}

fn from_lanes(words: &[u32]) -> Ipv6Addr {
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    Ipv6Addr::from(<[u8; 16]>::try_from(&b[..16]).unwrap())
}

fn place_bits(l: Location) -> (u64, u64, u64) {
    match l {
        Location::Bucket { bucket, way } => (bucket as u64, way as u64, 0),
        Location::Stash { slot } => (0, slot as u64, 1),
    }
}

#[test]
fn fcn_05_translator_matches_its_reference_with_random_grants_and_backpressure() {
    let mut totals: BTreeMap<&'static str, u32> = BTreeMap::new();
    let mut totals_notes: Vec<u32> = Vec::new();
    for seed in 0..4u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        // A slow bucket (rate limiting), then a fast one (queue drops).
        let (refill, depth) = if seed < 2 { (40u32, 3u32) } else { (2, 8) };
        // The fake table: 30 places with flows (some without a source QP).
        let mut table: BTreeMap<Location, Entry> = BTreeMap::new();
        let stash = [0, 5, 7].map(|slot| Location::Stash { slot });
        let corners = [
            Location::Bucket { bucket: 0, way: 0 },
            Location::Bucket {
                bucket: 4095,
                way: 3,
            },
        ];
        let mut fixed = stash.into_iter().chain(corners);
        while table.len() < 30 {
            let l = fixed
                .next()
                .unwrap_or_else(|| Location::of_label(rng.gen_range(1..=MAX_LABEL)).unwrap());
            let sip = if rng.gen_bool(0.5) {
                std::net::Ipv4Addr::from(rng.gen::<u32>()).to_ipv6_mapped()
            } else {
                Ipv6Addr::from(rng.gen::<u128>() | 1 << 127)
            };
            let sqp = rng.gen_bool(0.8).then(|| rng.gen_range(0..0x100_0000));
            table.insert(l, Entry { sip, sqp });
        }
        let labels: Vec<u32> = table.keys().map(|l| l.label()).collect();
        let mut u = Unit::new("fcn_translator").unwrap();
        u.set_u64("refill_clocks", refill as u64).unwrap();
        u.set_u64("bucket_depth", depth as u64).unwrap();
        u.set_u64("reset", 1).unwrap();
        u.step();
        u.set_u64("reset", 0).unwrap();
        u.set_u64("enable", 1).unwrap();
        let mut r = Reference::default();
        // Clocks count from the one after reset (the bucket's k).
        let mut answers: VecDeque<(u64, Location)> = VecDeque::new();
        let mut got = Vec::new();
        let mut want = Vec::new();
        let grant_p = [0.5, 0.9, 0.2, 0.6][seed as usize];
        for k in 0..6_000u64 {
            // Inputs of this clock.
            let msg = rng.gen_bool(0.25);
            let label = match rng.gen_range(0..10) {
                0 => 0,
                1 => rng.gen_range(MAX_LABEL + 1..0x10_0000),
                2 => rng.gen_range(1..=MAX_LABEL),
                _ => labels[rng.gen_range(0..labels.len())],
            };
            let ok = !rng.gen_bool(0.1);
            let in_domain = !rng.gen_bool(0.1);
            let local = rng.gen_bool(0.2);
            u.set_u64("msg_local", local as u64).unwrap();
            u.set_u64("msg_valid", msg as u64).unwrap();
            u.set_u64("msg_label", label as u64).unwrap();
            u.set_u64("msg_ok", ok as u64).unwrap();
            u.set_u64("msg_in_domain", in_domain as u64).unwrap();
            let rd_valid = u.get_u64("rd_valid").unwrap() == 1;
            assert_eq!(rd_valid, !r.reads.is_empty(), "seed {seed} clock {k}");
            let taken = rd_valid && rng.gen_bool(grant_p);
            if rd_valid {
                let want_place = place_bits(r.reads[0]);
                let got_place = (
                    u.get_u64("rd_bucket").unwrap(),
                    u.get_u64("rd_slot").unwrap(),
                    u.get_u64("rd_in_stash").unwrap(),
                );
                assert_eq!(got_place, want_place, "seed {seed} clock {k}");
            }
            u.set_u64("rd_taken", taken as u64).unwrap();
            // The answer due this clock.
            let answer = answers.front().filter(|a| a.0 == k).map(|a| a.1);
            u.set_u64("resp_valid", answer.is_some() as u64).unwrap();
            if let Some(l) = answer {
                answers.pop_front();
                let e = table.get(&l);
                u.set_u64("resp_hit", e.is_some() as u64).unwrap();
                u.set_u64("resp_sqp_valid", e.is_some_and(|e| e.sqp.is_some()) as u64)
                    .unwrap();
                u.set_u64("resp_sqp", e.and_then(|e| e.sqp).unwrap_or(0) as u64)
                    .unwrap();
                u.set_bytes(
                    "resp_sip",
                    &lane_bytes(e.map_or(Ipv6Addr::UNSPECIFIED, |e| e.sip)),
                )
                .unwrap();
            }
            // Occupancy as the clock starts (before this clock's job pop).
            let used = r.reads.len() + r.in_flight.len() + r.jobs.len();
            let ready = rng.gen_bool(0.6);
            u.set_u64("job_ready", ready as u64).unwrap();
            let job_valid = u.get_u64("job_valid").unwrap() == 1;
            assert_eq!(job_valid, !r.jobs.is_empty(), "seed {seed} clock {k}");
            if job_valid && ready {
                got.push((
                    from_lanes(&u.get("job_dst_ip").unwrap()),
                    u.get_u64("job_dqp").unwrap() as u32,
                    u.get_u64("job_ipv6").unwrap() == 1,
                ));
                want.push(r.jobs.pop_front().unwrap());
            }

            // The reference's clock, in the block's order.
            let count = |r: &mut Reference, name| *r.counters.entry(name).or_default() += 1;
            let note = (
                u.get_u64("note_valid").unwrap() == 1,
                u.get_u64("note_label").unwrap() as u32,
            );
            let mut want_note = false;
            if msg {
                if !ok {
                    count(&mut r, "malformed");
                } else if !in_domain {
                    count(&mut r, "out_of_domain");
                } else if Location::of_label(label).is_none() {
                    count(&mut r, "unknown_label");
                } else if r.bucket.tokens_at(k, depth, refill) == 0 {
                    count(&mut r, "rate_limited");
                } else if local {
                    r.bucket.take(k, depth);
                    count(&mut r, "notes");
                    want_note = true;
                } else if used >= 4 {
                    count(&mut r, "queue_drops");
                } else {
                    r.bucket.take(k, depth);
                    r.reads.push_back(Location::of_label(label).unwrap());
                }
            }
            assert_eq!(note.0, want_note, "seed {seed} clock {k}: note_valid");
            if want_note {
                assert_eq!(note.1, label, "seed {seed} clock {k}: note_label");
            }
            if taken {
                let l = r.reads.pop_front().unwrap();
                r.in_flight.push_back((k + 5, l));
                answers.push_back((k + 5, l));
            }
            if let Some(l) = answer {
                r.in_flight.pop_front();
                match table.get(&l) {
                    None => count(&mut r, "unknown_label"),
                    Some(Entry { sqp: None, .. }) => count(&mut r, "no_sqp"),
                    Some(Entry { sip, sqp: Some(q) }) => {
                        count(&mut r, "cnp_sent");
                        r.jobs.push_back((*sip, *q, sip.to_ipv4_mapped().is_none()));
                    }
                }
            }
            u.step();
        }
        assert_eq!(got, want, "seed {seed}");
        for name in [
            "cnp_sent",
            "malformed",
            "out_of_domain",
            "unknown_label",
            "rate_limited",
            "queue_drops",
            "no_sqp",
        ] {
            let want = r.counters.get(name).copied().unwrap_or(0);
            assert_eq!(u.get_u64(name).unwrap() as u32, want, "seed {seed}: {name}");
            *totals.entry(name).or_default() += want;
        }
        totals_notes.push(r.counters.get("notes").copied().unwrap_or(0));
        eprintln!(
            "seed {seed}: {} CNP jobs, counters {:?}",
            got.len(),
            r.counters
        );
    }
    let notes: u32 = totals_notes.iter().sum();
    assert!(notes > 0, "local notes occur");
    assert_eq!(totals.len(), 7);
    assert!(
        totals.values().all(|&n| n > 0),
        "every outcome occurs: {totals:?}"
    );
}
