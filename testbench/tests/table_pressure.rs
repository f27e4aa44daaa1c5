//! Tables under pressure (issue 9, item 4), in the RTL: a flow table
//! filled by traffic counts the flows that do not fit and keeps the ones it
//! holds working (LH-01); aging gives the room back after a flood and,
//! running during one, keeps room for new flows; host writes of static
//! entries are atomic while traffic of the same flows runs; the 8-slot
//! Long-haul tracker turns away a ninth flow (LH-06), also against the
//! reference model, which has the tracker.
//!
//! The reference model has no table capacity, so which flows fit is
//! predicted here by [`Placement`], the placement rule of
//! `hdl/src/flow/flow_table.rs` (8-choice d-left on the key's
//! `gateway_candidates`, lowest free way, then the 8-slot stash) written
//! again in a few lines; the RTL's counters, CSR look-ups and
//! notifications are asserted against it and against what the host wrote.
//! The flow-table tests' notifications also go through scapy
//! (`CNGW_PYTHON`): ICRC, checksums, destination and DestQP.

use cngw_driver::bus::BusError;
use cngw_driver::flows::key_writes;
use cngw_driver::sim::bus_error;
use cngw_driver::{Device, DeviceError, FlowEntry, FlowError, RegisterBus};
use cngw_model::{InPort, OutPort};
use cngw_packet::flow_key::FlowKey;
use cngw_packet::frame::Frame;
use cngw_packet::longhaul::Action;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::RoceFrameBuilder;
use cngw_regmap::{feature, flow_command, flow_status, lh_option, offset};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, DepthStep, Schedule};
use cngw_testbench::setup::{both, insert_static_flow};
use cngw_testbench::{Bench, OutputFrame, Pause, StreamOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

const GATEWAY: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 1);
const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];
const CLOCKS_PER_US: u64 = 322;
/// Queue depths: K_max 1 MB, K_min 500 KB; `CONGESTED` is above K_max.
const K_MAX: u32 = 1_000_000;
const K_MIN: u32 = 500_000;
const CONGESTED: u32 = 2_000_000;

// ---------------------------------------------------------------- the host

/// The host driver's bus over the bench: every register access clocks the
/// bench, so the traffic queued on its inputs keeps flowing while the
/// driver writes keys, values and commands.
struct BenchBus<'a> {
    bench: &'a mut Bench<Gateway>,
    writes: usize,
}

impl RegisterBus for BenchBus<'_> {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        self.bench.csr_read(offset).map_err(bus_error)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        self.writes += 1;
        self.bench.csr_write(offset, value).map_err(bus_error)
    }
}

fn host(b: &mut Bench<Gateway>) -> Device<BenchBus<'_>> {
    Device::open(BenchBus {
        bench: b,
        writes: 0,
    })
    .unwrap()
}

fn write(b: &mut Bench<Gateway>, off: u32, v: u32) {
    b.csr_write(off, v).unwrap();
}

fn read(b: &mut Bench<Gateway>, off: u32) -> u32 {
    b.csr_read(off).unwrap()
}

/// The key of the last flow-table command's answer (`FLOW_RESULT_*`).
fn result_key<B: RegisterBus>(dev: &mut Device<B>) -> FlowKey {
    let mut word = |off: u32| dev.bus_mut().read32(off).unwrap();
    let mut address =
        |first: u32| (0..4u32).fold(0u128, |a, i| (a << 32) | word(first + 4 * i) as u128);
    let sip = address(offset::FLOW_RESULT_SIP_0);
    let dip = address(offset::FLOW_RESULT_DIP_0);
    FlowKey {
        sip,
        dip,
        dqp: dev.bus_mut().read32(offset::FLOW_RESULT_DQP).unwrap(),
    }
}

// ---------------------------------------------------------- the gateway

/// Long-haul CNPs on (RoCEv2 format for IPv4 senders), K_max 1 MB, a flow
/// renotified after 1 us, a token every clock (the bucket never limits
/// here), ECN marking off (data frames leave byte for byte).
fn gateway() -> Bench<Gateway> {
    let mut b = Bench::new(None).unwrap();
    write(&mut b, offset::PORT0_K_MAX_BYTES, K_MAX);
    write(&mut b, offset::PORT0_K_MIN_BYTES, K_MIN);
    write(&mut b, offset::PORT0_FLOW_INTERVAL_US, 1);
    write(&mut b, offset::LH_BUCKET_REFILL_CLOCKS, 1);
    write(&mut b, offset::LH_BUCKET_DEPTH, 8);
    write(&mut b, offset::LH_OPTIONS, lh_option::IPV4_LONGHAUL);
    write(&mut b, offset::GW_IPV4, u32::from(GATEWAY));
    write(
        &mut b,
        offset::GW_MAC_HI,
        u16::from_be_bytes([GW_MAC[0], GW_MAC[1]]) as u32,
    );
    write(
        &mut b,
        offset::GW_MAC_LO,
        u32::from_be_bytes(GW_MAC[2..6].try_into().unwrap()),
    );
    write(&mut b, offset::FEATURE_ENABLE, feature::LH_CNP);
    b
}

fn set_queue(b: &mut Bench<Gateway>, bytes: u32) {
    b.gateway().set_queue_depth(bytes, true);
    b.clock();
    b.gateway().set_queue_depth(0, false);
    b.run(4, 0);
}

fn v4(key: &FlowKey) -> (Ipv4Addr, Ipv4Addr) {
    let a = |x: u128| std::net::Ipv6Addr::from(x).to_ipv4_mapped().unwrap();
    (a(key.sip), a(key.dip))
}

/// A one-beat (62-byte) RoCEv2 data frame of `key`.
fn small_frame(key: &FlowKey, psn: u32) -> Vec<u8> {
    let (s, d) = v4(key);
    RoceFrameBuilder::ipv4(s, d)
        .dest_qp(key.dqp)
        .psn(psn)
        .payload_len(4)
        .build()
}

/// A two-beat (98-byte) RoCEv2 data frame of `key`: a header every other
/// clock at line rate, so the host's commands find free table clocks.
fn two_beat_frame(key: &FlowKey, psn: u32) -> Vec<u8> {
    let (s, d) = v4(key);
    RoceFrameBuilder::ipv4(s, d)
        .dest_qp(key.dqp)
        .psn(psn)
        .payload_len(40)
        .build()
}

/// A notification: (sender it went to, BTH DestQP, body Source QP, action).
fn notice(f: &OutputFrame) -> (Ipv4Addr, u32, u32, Action) {
    notice_in(&f.data)
}

fn notice_in(data: &[u8]) -> (Ipv4Addr, u32, u32, Action) {
    let parsed = Frame::parse(data).unwrap();
    let IpAddr::V4(to) = parsed.ip.header.dst() else {
        panic!("an IPv4 sender")
    };
    assert_eq!(parsed.ip.header.src(), IpAddr::V4(GATEWAY));
    assert_eq!(&data[6..12], &GW_MAC[..]);
    let lh = LonghaulRocev2::from_frame(&parsed).unwrap();
    (to, lh.dest_qp, lh.cnp.body.source_qp, lh.cnp.body.action)
}

/// scapy's verdicts on the notifications: ICRC and IPv4 checksum good, the
/// sender and DestQP as the RTL's own parse says.
fn scapy_check(frames: &[OutputFrame]) {
    let data: Vec<Vec<u8>> = frames.iter().map(|f| f.data.clone()).collect();
    let Some(dissected) = dissect(&data) else {
        return;
    };
    for (d, f) in dissected.iter().zip(frames) {
        let (to, dqp, _, _) = notice(f);
        assert_checksums_ok(d);
        assert_eq!(get(d, "icrc_ok"), "True");
        assert_eq!(get(d, "IP.dst"), to.to_string());
        assert_eq!(get(d, "BTH.dqpn"), dqp.to_string());
        assert_eq!(get(d, "BTH.becn"), "1");
    }
}

// ------------------------------------------------- the placement rule

const BUCKET_BITS: usize = 12;
const WAYS: u8 = 4;
const STASH: usize = 8;

/// Where the gateway's table puts new keys (`hdl/src/flow/flow_table.rs`,
/// "Placement"): the candidate bucket with the fewest valid ways, ties to
/// the lowest bank; with all 8 full, the stash; else the insert fails.
/// Entries never move. No deletes here (aging is the table's).
#[derive(Default, Clone)]
struct Placement {
    ways: HashMap<u32, u8>,
    stash: usize,
    keys: HashSet<FlowKey>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Present,
    Bucket(u32),
    Stash,
    Failed,
}

impl Placement {
    fn insert(&mut self, key: &FlowKey) -> Place {
        if self.keys.contains(key) {
            return Place::Present;
        }
        let candidates = key.gateway_candidates(BUCKET_BITS);
        let load = |b: &u32| self.ways.get(b).copied().unwrap_or(0);
        let best = *candidates.iter().min_by_key(|b| load(b)).unwrap();
        let place = if load(&best) < WAYS {
            *self.ways.entry(best).or_default() += 1;
            Place::Bucket(best)
        } else if self.stash < STASH {
            self.stash += 1;
            Place::Stash
        } else {
            return Place::Failed;
        };
        self.keys.insert(*key);
        place
    }

    /// Would an insert of `key` fail now (without inserting it)?
    fn full_for(&self, key: &FlowKey) -> bool {
        self.clone().insert(key) == Place::Failed
    }
}

// ------------------------------------------------- the flood

/// Static flows with a source QP, inserted by the host before the flood.
const STATICS: u32 = 4;

fn static_key(i: u32) -> FlowKey {
    FlowKey::ipv4([10, 9, 0, 1 + i as u8], [10, 9, 1, 1], 0x200 + i)
}

fn static_sqp(i: u32) -> u32 {
    0x7000 + i
}

/// `n` distinct random IPv4 flows from the data centre, none a static one.
fn flood_keys(n: usize, seed: u64) -> Vec<FlowKey> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen: HashSet<FlowKey> = (0..STATICS).map(static_key).collect();
    let mut keys = Vec::with_capacity(n);
    while keys.len() < n {
        let k = FlowKey::ipv4(
            [10, 1, rng.gen(), rng.gen()],
            [10, 2, rng.gen(), rng.gen()],
            rng.gen_range(0..1 << 24),
        );
        if seen.insert(k) {
            keys.push(k);
        }
    }
    keys
}

/// What a flood did, as the placement rule predicts it and as it ran.
struct Flood {
    keys: Vec<FlowKey>,
    /// Per flood key: its insert failed.
    failed: Vec<bool>,
    placement: Placement,
    /// Frames sent in order (flood and static), all on dc_rx.
    sent: Vec<Vec<u8>>,
    /// Static flows' frames sent (each one's index in `STATICS` order).
    static_frames: Vec<u32>,
    /// Index into `keys` of the first failure.
    first_failure: usize,
    /// Clocks from the first frame in to the last frame out.
    clocks: u64,
}

/// Between two static-flow frames of the flood: 250 flood frames (250
/// clocks at one beat each), so each static flow comes back after 1000,
/// more than its 1 us renotification interval.
const STATIC_EVERY: usize = 250;

/// The host inserts the static flows, then the flood runs at line rate
/// with the queue above K_max: `n` new flows, one one-beat frame each, and
/// after every [`STATIC_EVERY`] of them one frame of a static flow in turn.
fn flood(b: &mut Bench<Gateway>, n: usize, seed: u64) -> Flood {
    let mut placement = Placement::default();
    {
        let mut dev = host(b);
        let mut table = dev.flow_table();
        for i in 0..STATICS {
            assert!(!table.insert_static(&static_key(i), static_sqp(i)).unwrap());
            assert_ne!(placement.insert(&static_key(i)), Place::Failed);
        }
    }
    assert_eq!(read(b, offset::FLOW_LEARNED), STATICS);
    set_queue(b, CONGESTED);
    let keys = flood_keys(n, seed);
    let mut failed = Vec::with_capacity(n);
    let mut sent = Vec::with_capacity(n + n / STATIC_EVERY);
    let mut static_frames = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        failed.push(placement.insert(key) == Place::Failed);
        sent.push(small_frame(key, i as u32));
        if (i + 1).checked_rem(STATIC_EVERY) == Some(0) {
            let s = static_frames.len() as u32 % STATICS;
            sent.push(small_frame(&static_key(s), i as u32));
            static_frames.push(s);
        }
    }
    let first_failure = failed
        .iter()
        .position(|&f| f)
        .expect("the flood is larger than the table");
    let start = b.cycle();
    for f in &sent {
        b.push_frame(InPort::DcRx, f, false);
    }
    b.run_until_drained(10 * sent.len() as u64, 64).unwrap();
    let clocks = b.cycle() - start;
    Flood {
        keys,
        failed,
        placement,
        sent,
        static_frames,
        first_failure,
        clocks,
    }
}

/// Every static-flow frame of the flood got one Long-haul CNP, in order,
/// to its sender with its source QP; nothing else was notified.
fn assert_statics_notified(notes: &[OutputFrame], static_frames: &[u32]) {
    let got: Vec<_> = notes.iter().map(notice).collect();
    let want: Vec<_> = static_frames
        .iter()
        .map(|&i| {
            let (s, _) = v4(&static_key(i));
            (s, static_sqp(i), static_sqp(i), Action::RateReduce)
        })
        .collect();
    assert_eq!(got, want);
}

/// LH-01: 17,000 new flows flood the 16,392-entry table at line rate under
/// congestion. The flows that do not fit are exactly those the placement
/// rule predicts; FLOW_INSERT_FAILURES counts their packets (each packet
/// of such a flow is a failed insert) and FLOW_LOOKUPS_WITHOUT_SQP every
/// flood packet; LH_CNP_NO_SQP counts the flood packets whose flow is in
/// the table (a flow that did not fit never reaches the Long-haul
/// controller). The static flows inserted first keep their entries and get
/// a Long-haul CNP with their source QP for every packet, before and after
/// the table filled. Every frame is forwarded byte for byte, in order. A
/// second pass of the flows that did not fit fails again; the host's insert
/// of such a key is refused (`FlowError::InsertFailed`).
#[test]
fn lh_01_full_flow_table_counts_new_flows_and_keeps_existing_ones_working() {
    let started = Instant::now();
    let mut b = gateway();
    let f = flood(&mut b, 17_000, 1);
    let failures = f.failed.iter().filter(|&&x| x).count() as u32;
    let inserted = f.keys.len() as u32 - failures;
    eprintln!(
        "flood: {} flows, first failure at flow {} (occupancy {}), {} not inserted, \
         {} clocks",
        f.keys.len(),
        f.first_failure,
        f.first_failure as u32 + STATICS,
        failures,
        f.clocks
    );
    // The table filled beyond 90 % before the first failure, and both sides
    // of it are in the flood.
    assert!(f.first_failure as u32 + STATICS > 16_392 * 9 / 10);
    assert!(failures > 100 && inserted > f.first_failure as u32);

    // Forwarding never stopped: every frame left on wan_tx, unchanged, in
    // order.
    let out: Vec<Vec<u8>> = b
        .take_frames(OutPort::WanTx, usize::MAX)
        .into_iter()
        .map(|o| o.data)
        .collect();
    assert_eq!(out.len(), f.sent.len(), "frames forwarded");
    assert!(out == f.sent, "every frame byte for byte, in order");

    // Counters.
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), inserted + STATICS);
    assert_eq!(read(&mut b, offset::FLOW_LEARNED), STATICS);
    assert_eq!(read(&mut b, offset::FLOW_INSERT_FAILURES), failures);
    assert_eq!(
        read(&mut b, offset::FLOW_LOOKUPS_WITHOUT_SQP),
        f.keys.len() as u32
    );
    assert_eq!(read(&mut b, offset::LH_CNP_NO_SQP), inserted);
    let static_frames = f.static_frames.len() as u32;
    assert_eq!(read(&mut b, offset::LH_CNP_SENT), static_frames);
    assert_eq!(read(&mut b, offset::LH_CNP_SUPPRESSED), 0);
    assert_eq!(read(&mut b, offset::LH_CNP_RATE_LIMITED), 0);
    assert_eq!(read(&mut b, offset::LH_CNP_TRACKER_FULL), 0);
    assert_eq!(
        read(&mut b, offset::DC_RX_FRAMES),
        f.sent.len() as u32,
        "nothing dropped at the input"
    );

    // The static flows were notified for every packet, also after the
    // table filled (the last third of their packets came after the first
    // failure).
    let notes = b.take_frames(OutPort::DcTx, usize::MAX);
    assert_statics_notified(&notes, &f.static_frames);
    let after_full = f.static_frames.len() - (f.first_failure + 1) / STATIC_EVERY;
    assert!(
        after_full >= 4,
        "{after_full} static packets after the first failure"
    );
    scapy_check(&notes);

    // CSR look-ups: the static flows hold their SQP; flows that fit are in
    // the table without one; flows that did not fit are not.
    let mut dev = host(&mut b);
    let mut table = dev.flow_table();
    for i in 0..STATICS {
        assert_eq!(
            table.lookup(&static_key(i)).unwrap(),
            Some(FlowEntry {
                sqp: Some(static_sqp(i)),
                pinned: true
            })
        );
    }
    let mut checked = (0, 0);
    for (key, &failed) in f.keys.iter().zip(&f.failed).step_by(97) {
        let entry = table.lookup(key).unwrap();
        if failed {
            assert_eq!(entry, None, "{key} did not fit");
            checked.0 += 1;
        } else {
            assert_eq!(
                entry,
                Some(FlowEntry {
                    sqp: None,
                    pinned: false
                }),
                "{key}"
            );
            checked.1 += 1;
        }
    }
    assert!(checked.0 > 0 && checked.1 > 0);
    // The host cannot add a flow whose candidates and the stash are full.
    let refused = f.keys[f.first_failure];
    assert!(f.placement.full_for(&refused));
    let err = table.insert_static(&refused, 0x123).unwrap_err();
    assert!(
        matches!(err, DeviceError::Flow(FlowError::InsertFailed { key }) if key == refused),
        "{err}"
    );
    assert_eq!(read(&mut b, offset::FLOW_INSERT_FAILURES), failures + 1);

    // A second pass of the flows that did not fit: they fail again, every
    // packet, and are still forwarded.
    let again: Vec<Vec<u8>> = f
        .keys
        .iter()
        .zip(&f.failed)
        .filter(|(_, &failed)| failed)
        .map(|(k, _)| small_frame(k, 1))
        .collect();
    for frame in &again {
        b.push_frame(InPort::DcRx, frame, false);
    }
    b.run_until_drained(10 * again.len() as u64, 64).unwrap();
    assert_eq!(b.take_frames(OutPort::WanTx, usize::MAX).len(), again.len());
    assert_eq!(read(&mut b, offset::FLOW_INSERT_FAILURES), 2 * failures + 1);
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), inserted + STATICS);
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
}

/// LH-01: with FLOW_AGE_TIMEOUT_US set (300 us, longer than the flood),
/// after the flood of the test above the table holds its entries until
/// the flows have been idle for the timeout; then aging reclaims every
/// learned entry (FLOW_AGED counts them, FLOW_OCCUPANCY falls to the
/// static flows), the static flows stay with their source QPs, the flows
/// that did not fit are inserted on their next packet, and a flow the host
/// could not add while the table was full is added and gets its Long-haul
/// CNP.
#[test]
fn lh_01_aging_reclaims_entries_after_a_flood() {
    let started = Instant::now();
    let timeout_us = 300u32;
    let mut b = gateway();
    write(&mut b, offset::FLOW_AGE_TIMEOUT_US, timeout_us);
    let flood_start = b.cycle();
    let f = flood(&mut b, 17_000, 2);
    let failures = f.failed.iter().filter(|&&x| x).count() as u32;
    let inserted = f.keys.len() as u32 - failures;
    assert!(
        f.clocks < timeout_us as u64 * CLOCKS_PER_US / 2,
        "the flood ({} clocks) is shorter than half the timeout",
        f.clocks
    );
    b.take_frames(OutPort::WanTx, usize::MAX);
    b.take_frames(OutPort::DcTx, usize::MAX);
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), inserted + STATICS);
    let refused = f.keys[f.first_failure];
    assert!(f.placement.full_for(&refused));
    {
        let mut dev = host(&mut b);
        assert!(dev.flow_table().insert_static(&refused, 0x4321).is_err());
    }

    // No flow has been idle for the timeout yet: nothing aged.
    let idle_from = b.cycle();
    let until = flood_start + (timeout_us as u64 - 20) * CLOCKS_PER_US;
    b.run(until.saturating_sub(b.cycle()), 0);
    assert_eq!(read(&mut b, offset::FLOW_AGED), 0);
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), inserted + STATICS);

    // The timeout after the flood's last packet, and one scan pass (512
    // idle clocks) more: every learned entry is gone, the static ones stay.
    let until = idle_from + (timeout_us as u64 + 5) * CLOCKS_PER_US + 1024;
    b.run(until.saturating_sub(b.cycle()), 0);
    assert_eq!(read(&mut b, offset::FLOW_AGED), inserted);
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), STATICS);
    assert_eq!(read(&mut b, offset::FLOW_LEARNED), STATICS);
    let mut dev = host(&mut b);
    let mut table = dev.flow_table();
    for i in 0..STATICS {
        assert_eq!(
            table.lookup(&static_key(i)).unwrap(),
            Some(FlowEntry {
                sqp: Some(static_sqp(i)),
                pinned: true
            })
        );
    }
    assert_eq!(table.lookup(&f.keys[0]).unwrap(), None, "aged out");
    // The host adds the flow it could not add before.
    assert!(!table.insert_static(&refused, 0x4321).unwrap());
    let failures_before = read(&mut b, offset::FLOW_INSERT_FAILURES);

    // New flows are inserted again: the ones that did not fit, now.
    let again: Vec<FlowKey> = f
        .keys
        .iter()
        .zip(&f.failed)
        .filter(|(k, &failed)| failed && **k != refused)
        .map(|(k, _)| *k)
        .collect();
    for (i, k) in again.iter().enumerate() {
        b.push_frame(InPort::DcRx, &small_frame(k, i as u32), false);
    }
    // The added flow's packet, under congestion: its Long-haul CNP.
    b.push_frame(InPort::DcRx, &small_frame(&refused, 7), false);
    b.run_until_drained(100_000, 64).unwrap();
    assert_eq!(
        b.take_frames(OutPort::WanTx, usize::MAX).len(),
        again.len() + 1
    );
    assert_eq!(
        read(&mut b, offset::FLOW_INSERT_FAILURES),
        failures_before,
        "no failure"
    );
    assert_eq!(
        read(&mut b, offset::FLOW_OCCUPANCY),
        STATICS + 1 + again.len() as u32
    );
    let notes = b.take_frames(OutPort::DcTx, usize::MAX);
    let (to, _) = v4(&refused);
    assert_eq!(
        notes.iter().map(notice).collect::<Vec<_>>(),
        vec![(to, 0x4321, 0x4321, Action::RateReduce)]
    );
    scapy_check(&notes);
    eprintln!(
        "flood {} clocks, {:.1} s",
        f.clocks,
        started.elapsed().as_secs_f64()
    );
}

/// LH-01: aging running during a flood keeps room for new flows. With
/// FLOW_AGE_TIMEOUT_US at 40 us, 40,000 new flows (2.4 times the table)
/// arrive at line rate in two-beat frames, a table look-up every other
/// clock (aging scans on the clocks between). No insert fails, the
/// occupancy sampled through the flood stays far below the table's
/// capacity, entries age out while the flood runs, and the static flows
/// get a Long-haul CNP for every packet. After the flood every flood flow
/// has aged out exactly once (`FLOW_AGED` is 40,000).
#[test]
fn lh_01_aging_during_a_flood_keeps_room_for_new_flows() {
    let started = Instant::now();
    let timeout_us = 40u32;
    let n = 40_000;
    let mut b = gateway();
    write(&mut b, offset::FLOW_AGE_TIMEOUT_US, timeout_us);
    {
        let mut dev = host(&mut b);
        for i in 0..STATICS {
            dev.flow_table()
                .insert_static(&static_key(i), static_sqp(i))
                .unwrap();
        }
    }
    set_queue(&mut b, CONGESTED);
    let keys = flood_keys(n, 3);
    let mut static_frames = Vec::new();
    let mut sent = 0;
    for (i, key) in keys.iter().enumerate() {
        b.push_frame(InPort::DcRx, &two_beat_frame(key, i as u32), false);
        sent += 1;
        // One static frame after every 250 flood frames (500 clocks).
        if (i + 1).checked_rem(STATIC_EVERY) == Some(0) {
            let s = static_frames.len() as u32 % STATICS;
            b.push_frame(
                InPort::DcRx,
                &two_beat_frame(&static_key(s), i as u32),
                false,
            );
            static_frames.push(s);
            sent += 1;
        }
    }
    // Sample the gauges while the flood runs (register reads clock the
    // bench; the frames keep flowing).
    let start = b.cycle();
    let (mut max_occupancy, mut aged_mid, mut samples) = (0, 0, 0);
    while b.frames_pending(InPort::DcRx) > 0 {
        b.run(4_000, 0);
        max_occupancy = max_occupancy.max(read(&mut b, offset::FLOW_OCCUPANCY));
        aged_mid = read(&mut b, offset::FLOW_AGED);
        samples += 1;
    }
    let flood_clocks = b.cycle() - start;
    b.run_until_drained(100_000, 64).unwrap();
    assert_eq!(read(&mut b, offset::FLOW_INSERT_FAILURES), 0);
    assert!(aged_mid > 0, "entries aged while the flood ran");
    // A look-up every two clocks is 161 new flows per us: the timeout and
    // the scan's lag hold some 7,000 of them.
    assert!(
        max_occupancy < 16_392 / 2,
        "occupancy peaked at {max_occupancy}"
    );
    assert_eq!(b.take_frames(OutPort::WanTx, usize::MAX).len(), sent);
    let notes = b.take_frames(OutPort::DcTx, usize::MAX);
    assert_statics_notified(&notes, &static_frames);
    scapy_check(&notes[..8]);

    // The flood's last flows age out too; each flood flow aged once.
    b.run((timeout_us as u64 + 5) * CLOCKS_PER_US + 1024, 0);
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), STATICS);
    assert_eq!(read(&mut b, offset::FLOW_AGED), n as u32);
    eprintln!(
        "{n} flows in {flood_clocks} clocks, occupancy at most {max_occupancy} \
         ({samples} samples), {aged_mid} aged by the last sample, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

// ------------------------------------------------- host writes under traffic

/// Flows whose static entries the host rewrites while their traffic runs.
const CHURNED: u32 = 4;

fn churn_key(i: u32) -> FlowKey {
    FlowKey::ipv4([10, 3, 0, 1 + i as u8], [10, 4, 0, 1], 0x300 + i)
}

/// The `n`-th source QP the host gives flow `i`: disjoint per flow, so a
/// notification's QP names its flow.
fn churn_sqp(i: u32, n: u32) -> u32 {
    ((i + 1) << 16) | n
}

/// How far before a notification's first beat its look-up may have been
/// (the notification path, with dc_tx backpressure).
const WINDOW: u64 = 200;

/// One host write: the clocks it ran between (first access, last access),
/// and the flow's source QP after it (None: deleted).
#[derive(Clone, Copy, Debug)]
struct Write {
    from: u64,
    to: u64,
    sqp: Option<u32>,
}

/// The source QPs a look-up of flow `history` may have found at some
/// clock of [lo, hi]: a value is possible from the first clock of the
/// write that set it to the last clock of the write that replaced it.
fn possible(history: &[Write], lo: u64, hi: u64) -> Vec<Option<u32>> {
    let mut out = Vec::new();
    for (n, w) in history.iter().enumerate() {
        let end = history.get(n + 1).map_or(u64::MAX, |next| next.to);
        if w.from <= hi && end >= lo {
            out.push(w.sqp);
        }
    }
    out
}

/// LH-01: the host (the driver over the simulated bus: idle check, key,
/// value, command, poll) replaces, deletes and re-inserts the static
/// entries of four flows, 240 writes at random, while two-beat frames of
/// those flows run at line rate with random idle clocks on dc_rx and
/// random backpressure on both outputs, and the queue above K_max. Every
/// Long-haul CNP names the source QP its flow had at some clock of the last
/// 200 before it (the old or the new value of a write in flight), never
/// another flow's QP nor a QP it never had, and never while the flow was
/// deleted; every CSR look-up in between reads the whole key back and the
/// value just written; no frame is lost; at the end the table, read by
/// iteration, holds exactly the four flows, each once, as last written.
#[test]
fn lh_01_host_table_writes_are_atomic_while_traffic_runs() {
    let started = Instant::now();
    let mut b = gateway();
    let mut rng = StdRng::seed_from_u64(9);
    *b.source_pause(InPort::DcRx) = Pause::random(0.2, 1);
    *b.sink_pause(OutPort::WanTx) = Pause::random(0.2, 2);
    *b.sink_pause(OutPort::DcTx) = Pause::random(0.3, 3);
    let mut next_sqp = vec![0u32; CHURNED as usize];
    let mut history: Vec<Vec<Write>> = Vec::new();
    let mut dev = host(&mut b);
    for i in 0..CHURNED {
        let from = dev.bus().bench.cycle();
        dev.flow_table()
            .insert_static(&churn_key(i), churn_sqp(i, 0))
            .unwrap();
        let to = dev.bus().bench.cycle();
        history.push(vec![Write {
            from,
            to,
            sqp: Some(churn_sqp(i, 0)),
        }]);
    }
    set_queue(&mut *dev.bus_mut().bench, CONGESTED);
    let mut sent = Vec::new();
    let mut psn = 0;
    let mut lookups = 0;
    let mut had_none = 0;
    for _ in 0..240 {
        // Keep frames of all four flows queued.
        let bench = &mut *dev.bus_mut().bench;
        if bench.frames_pending(InPort::DcRx) < 64 {
            for _ in 0..128 {
                let f = two_beat_frame(&churn_key(psn % CHURNED), psn);
                bench.push_frame(InPort::DcRx, &f, false);
                sent.push(f);
                psn += 1;
            }
        }
        let i = rng.gen_range(0..CHURNED);
        let key = churn_key(i);
        let from = dev.bus().bench.cycle();
        let sqp = match rng.gen_range(0..4) {
            // Replace in place: one insert_static over the entry.
            0 | 1 => {
                next_sqp[i as usize] += 1;
                let sqp = churn_sqp(i, next_sqp[i as usize]);
                dev.flow_table().insert_static(&key, sqp).unwrap();
                Some(sqp)
            }
            // Delete (the traffic then inserts the flow without a QP).
            2 => {
                dev.flow_table().delete(&key).unwrap();
                None
            }
            // Delete and insert again with a new QP.
            _ => {
                dev.flow_table().delete(&key).unwrap();
                next_sqp[i as usize] += 1;
                let sqp = churn_sqp(i, next_sqp[i as usize]);
                dev.flow_table().insert_static(&key, sqp).unwrap();
                Some(sqp)
            }
        };
        let to = dev.bus().bench.cycle();
        history[i as usize].push(Write { from, to, sqp });
        // A look-up now sees the whole key and the value just written
        // (only the host writes static entries; the traffic may have
        // inserted a deleted flow again, without a QP).
        if rng.gen_bool(0.5) {
            let entry = dev.flow_table().lookup(&key).unwrap();
            match sqp {
                Some(s) => {
                    assert_eq!(
                        entry,
                        Some(FlowEntry {
                            sqp: Some(s),
                            pinned: true
                        })
                    );
                }
                None => {
                    assert!(
                        entry.is_none()
                            || entry
                                == Some(FlowEntry {
                                    sqp: None,
                                    pinned: false
                                }),
                        "{entry:?}"
                    );
                    had_none += entry.is_some() as u32;
                }
            }
            if entry.is_some() {
                assert_eq!(result_key(&mut dev), key, "the whole key");
            }
            lookups += 1;
        }
    }
    let writes = dev.bus().writes;
    let ops_clocks = b.cycle();
    b.run_until_drained(1_000_000, 64).unwrap();

    // Every frame forwarded, byte for byte, in order.
    let out: Vec<Vec<u8>> = b
        .take_frames(OutPort::WanTx, usize::MAX)
        .into_iter()
        .map(|o| o.data)
        .collect();
    assert!(out == sent, "{} frames out of {}", out.len(), sent.len());

    // Every notification: its flow's QP, old or new, never garbage.
    let notes = b.take_frames(OutPort::DcTx, usize::MAX);
    let senders: HashMap<Ipv4Addr, u32> = (0..CHURNED).map(|i| (v4(&churn_key(i)).0, i)).collect();
    let mut per_flow = BTreeMap::new();
    let (mut max_lag, mut in_flight) = (0, 0);
    for n in &notes {
        let (to, dqp, sqp, action) = notice(n);
        assert_eq!(action, Action::RateReduce);
        assert_eq!(dqp, sqp, "DestQP is the body's Source QP");
        let i = senders[&to];
        let window = possible(
            &history[i as usize],
            n.start_cycle.saturating_sub(WINDOW),
            n.start_cycle,
        );
        assert!(
            window.contains(&Some(sqp)),
            "flow {i}: QP {sqp:#x} at clock {}, possible {window:x?}",
            n.start_cycle
        );
        // How far back its value was last possible (for the report), and
        // whether a write to the flow was in flight around it.
        let lag = (0..=WINDOW)
            .find(|&l| {
                possible(&history[i as usize], n.start_cycle - l, n.start_cycle - l)
                    .contains(&Some(sqp))
            })
            .unwrap();
        max_lag = max_lag.max(lag);
        in_flight += (window.len() > 1) as u32;
        *per_flow.entry(i).or_insert(0) += 1;
    }
    assert_eq!(per_flow.len(), CHURNED as usize, "every flow notified");
    // The host's new values reached the data path, not only the first ones.
    let named: HashSet<u32> = notes.iter().map(|n| notice(n).2).collect();
    assert!(
        named.len() > 8 * CHURNED as usize,
        "{} QPs named",
        named.len()
    );
    assert_eq!(read(&mut b, offset::LH_CNP_SENT), notes.len() as u32);
    scapy_check(&notes);

    // The table holds the four flows, each once, as last written.
    let mut dev = host(&mut b);
    let listed = dev.flow_table().list().unwrap();
    let mut want: Vec<(FlowKey, FlowEntry)> = Vec::new();
    for i in 0..CHURNED {
        let last = history[i as usize].last().unwrap().sqp;
        let got = listed.iter().filter(|(k, _)| *k == churn_key(i)).count();
        assert_eq!(
            got, 1,
            "flow {i} once (deleted flows come back with traffic)"
        );
        want.push((
            churn_key(i),
            FlowEntry {
                sqp: last,
                pinned: last.is_some(),
            },
        ));
    }
    let mut listed = listed;
    listed.sort_by_key(|(k, _)| *k);
    want.sort_by_key(|(k, _)| *k);
    assert_eq!(listed, want);
    eprintln!(
        "{} frames, {} notifications {per_flow:?} ({in_flight} within {WINDOW} clocks of a write \
         to their flow, {} QPs named, value at most {max_lag} clocks old), 240 writes ({writes} register \
         writes), {lookups} look-ups ({had_none} found a deleted flow re-inserted), {} clocks, \
         {:.1} s",
        sent.len(),
        notes.len(),
        named.len(),
        ops_clocks,
        started.elapsed().as_secs_f64()
    );
}

/// LH-01, the host side of a command that cannot reach the table: under a
/// lookup flood (one-beat frames at line rate, a table request every clock)
/// the driver's insert times out (`CommandTimeout`), and until the
/// hardware answers every further command is refused (`Busy`) with no
/// register written, so the pending command keeps the key it was given;
/// once the flood passes, the insert completes with that whole key. The
/// contrast, without the driver: rewriting `FLOW_DQP` while a command
/// waits changes the key the command runs on.
#[test]
fn lh_01_a_command_timing_out_under_a_lookup_flood_keeps_its_key() {
    let mut b = gateway();
    let key = FlowKey::ipv4([10, 5, 0, 1], [10, 6, 0, 1], 0x42);
    let other = FlowKey::ipv4([10, 5, 0, 1], [10, 6, 0, 1], 0x43);
    let flood: Vec<Vec<u8>> = flood_keys(400, 5)
        .iter()
        .map(|k| small_frame(k, 0))
        .collect();
    for f in &flood {
        b.push_frame(InPort::DcRx, f, false);
    }
    b.run(16, 0);
    let mut dev = host(&mut b);
    dev.set_flow_poll_limit(3);
    let err = dev.flow_table().insert_static(&key, 0x99).unwrap_err();
    assert!(
        matches!(
            err,
            DeviceError::Flow(FlowError::CommandTimeout {
                command: "insert_static",
                polls: 3
            })
        ),
        "{err}"
    );
    let writes = dev.bus().writes;
    for _ in 0..3 {
        let err = dev.flow_table().lookup(&other).unwrap_err();
        assert!(
            matches!(err, DeviceError::Flow(FlowError::Busy { polls: 3 })),
            "{err}"
        );
        assert_eq!(dev.bus().writes, writes, "nothing written");
    }
    let pending_at = dev.bus().bench.cycle();
    b.run_until_drained(100_000, 64).unwrap();
    assert!(
        b.cycle() - pending_at > 100,
        "the flood held the table for a while"
    );
    let mut dev = host(&mut b);
    dev.set_flow_poll_limit(3);
    let mut table = dev.flow_table();
    assert_eq!(
        table.lookup(&key).unwrap(),
        Some(FlowEntry {
            sqp: Some(0x99),
            pinned: true
        }),
        "the insert ran on its whole key"
    );
    assert_eq!(table.lookup(&other).unwrap(), None);
    assert_eq!(b.take_frames(OutPort::WanTx, usize::MAX).len(), flood.len());

    // Without the driver's idle check: the key registers are sampled when
    // the command reaches the table, so a write meanwhile changes its key.
    for (off, v) in key_writes(&key, None) {
        write(&mut b, off, v);
    }
    for f in &flood {
        b.push_frame(InPort::DcRx, f, false);
    }
    b.run(16, 0);
    write(&mut b, offset::FLOW_COMMAND, flow_command::DELETE);
    write(&mut b, offset::FLOW_DQP, other.dqp);
    assert_eq!(read(&mut b, offset::FLOW_STATUS) & flow_status::DONE, 0);
    b.run_until_drained(100_000, 64).unwrap();
    let status = read(&mut b, offset::FLOW_STATUS);
    assert_eq!(status & flow_status::HIT, 0, "deleted {other}, not {key}");
    let mut dev = host(&mut b);
    assert!(dev.flow_table().lookup(&key).unwrap().is_some());
}

// ------------------------------------------------- the Long-haul tracker

/// LH-06, a known limit (docs/security.md section 4): eight flows notified
/// first hold the port's 8 tracker slots while the queue stays congested;
/// a ninth flow gets no Long-haul CNP and LH_CNP_TRACKER_FULL counts each
/// of its congested packets, while the eight keep being renotified. Only
/// when the queue has been below K_min for RTT_est do the eight get their
/// Resumes and leave; then the ninth flow is notified.
#[test]
fn lh_06_eight_notified_flows_hold_the_tracker_and_a_ninth_gets_no_cnp() {
    let mut b = gateway();
    write(&mut b, offset::PORT0_RTT_EST_US, 20);
    let key = |i: u32| FlowKey::ipv4([10, 7, 0, 1 + i as u8], [10, 8, 0, 1], 0x400 + i);
    let sqp = |i: u32| 0x5000 + i;
    {
        let mut dev = host(&mut b);
        for i in 0..9 {
            dev.flow_table().insert_static(&key(i), sqp(i)).unwrap();
        }
    }
    set_queue(&mut b, CONGESTED);
    let send = |b: &mut Bench<Gateway>, flows: &[u32]| {
        for &i in flows {
            b.push_frame(InPort::DcRx, &small_frame(&key(i), 0), false);
        }
        b.run_until_drained(10_000, 64).unwrap();
        b.run(2 * CLOCKS_PER_US, 0);
        b.take_frames(OutPort::WanTx, usize::MAX);
        b.take_frames(OutPort::DcTx, usize::MAX)
            .iter()
            .map(|n| {
                let (to, dqp, s, action) = notice(n);
                assert_eq!(dqp, s);
                (to, s, action)
            })
            .collect::<Vec<_>>()
    };
    let told = |flows: &[u32], action: Action| {
        flows
            .iter()
            .map(|&i| (v4(&key(i)).0, sqp(i), action))
            .collect::<Vec<_>>()
    };
    let eight: Vec<u32> = (0..8).collect();
    let mut notes = send(&mut b, &eight);
    assert_eq!(notes, told(&eight, Action::RateReduce));
    for round in 0..3 {
        notes = send(&mut b, &[8]);
        assert!(
            notes.is_empty(),
            "round {round}: the ninth flow is not told"
        );
        assert_eq!(read(&mut b, offset::LH_CNP_TRACKER_FULL), round + 1);
        notes = send(&mut b, &eight);
        assert_eq!(notes, told(&eight, Action::RateReduce), "round {round}");
    }
    // Below K_min for RTT_est (20 us): eight Resumes, lowest slot first.
    set_queue(&mut b, K_MIN / 2);
    b.run(30 * CLOCKS_PER_US, 0);
    let resumes: Vec<_> = b
        .take_frames(OutPort::DcTx, usize::MAX)
        .iter()
        .map(|n| {
            let (to, _, s, action) = notice(n);
            (to, s, action)
        })
        .collect();
    assert_eq!(resumes, told(&eight, Action::Resume));
    assert_eq!(read(&mut b, offset::LH_RESUME_SENT), 8);
    set_queue(&mut b, CONGESTED);
    notes = send(&mut b, &[8]);
    assert_eq!(notes, told(&[8], Action::RateReduce), "a slot is free");
    assert_eq!(read(&mut b, offset::LH_CNP_TRACKER_FULL), 3);
    assert_eq!(read(&mut b, offset::LH_CNP_SENT), 8 * 4 + 1);
}

/// LH-06, the same limit against the reference model (the model applies:
/// static flows, the Long-haul controller and its tracker): nine static
/// flows, eight told first, the ninth's packets in four rounds between
/// theirs, the queue below K_min for RTT_est, then congested again; with
/// random idle clocks on dc_rx and backpressure on both outputs the RTL
/// equals the model frame for frame and counter for counter, the ninth
/// flow is turned away four times (`LH_CNP_TRACKER_FULL`) and told only
/// after the eight Resumes.
#[test]
fn lh_06_tracker_exhaustion_matches_the_model_with_idle_and_backpressure() {
    for seed in [1u64, 2] {
        let mut gw = Gateway::new();
        let mut m = cngw_model::GatewayModel::new();
        m.set_reset_clock(gw.reset_released_at());
        for (off, v) in [
            (offset::PORT0_K_MAX_BYTES, K_MAX),
            (offset::PORT0_K_MIN_BYTES, K_MIN),
            (offset::PORT0_RTT_EST_US, 20),
            (offset::PORT0_FLOW_INTERVAL_US, 1),
            (offset::LH_BUCKET_REFILL_CLOCKS, 1),
            (offset::LH_OPTIONS, lh_option::IPV4_LONGHAUL),
            (offset::GW_IPV4, u32::from(GATEWAY)),
            (offset::GW_MAC_HI, 0x02C0),
            (offset::GW_MAC_LO, 0x6E00_0001),
        ] {
            both(&mut gw, &mut m, off, v);
        }
        let key = |i: u32| FlowKey::ipv4([10, 7, 0, 1 + i as u8], [10, 8, 0, 1], 0x400 + i);
        for i in 0..9 {
            insert_static_flow(&mut gw, &mut m, &key(i), 0x5000 + i);
        }
        both(&mut gw, &mut m, offset::FEATURE_ENABLE, feature::LH_CNP);
        let frame = |i: u32, psn: u32| cngw_model::Frame::new(small_frame(&key(i), psn));
        let mut frames = Vec::new();
        for i in 0..8 {
            frames.push((100 * i as u64, frame(i, 0)));
        }
        for round in 0..4u64 {
            let at = 2_000 + 2_000 * round;
            frames.push((at, frame(8, round as u32)));
            for i in 0..8 {
                frames.push((at + 500 + 100 * i as u64, frame(i, 1 + round as u32)));
            }
        }
        frames.push((30_000, frame(8, 9)));
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, frames)],
            depth_steps: vec![
                DepthStep {
                    cycle: 0,
                    bytes: CONGESTED,
                },
                DepthStep {
                    cycle: 12_000,
                    bytes: K_MIN / 2,
                },
                DepthStep {
                    cycle: 29_000,
                    bytes: CONGESTED,
                },
            ],
            end_cycle: None,
        };
        let run = check_scheduled(
            &mut gw,
            &mut m,
            &schedule,
            StreamOptions::random(0.2, 0.2, seed),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let told: Vec<(Ipv4Addr, Action)> = run.capture.outputs[&OutPort::DcTx]
            .iter()
            .map(|f| {
                let (to, _, _, action) = notice_in(&f.data);
                (to, action)
            })
            .collect();
        let ninth = v4(&key(8)).0;
        let resumes = told.iter().filter(|t| t.1 == Action::Resume).count();
        assert_eq!(resumes, 8, "seed {seed}: {told:?}");
        let first_ninth = told.iter().position(|t| t.0 == ninth).unwrap();
        assert_eq!(first_ninth, told.len() - 1, "seed {seed}: {told:?}");
        assert_eq!(m.read_register(offset::LH_CNP_TRACKER_FULL), Some(4));
        assert_eq!(m.read_register(offset::LH_CNP_SENT), Some(8 * 5 + 1));
    }
}
