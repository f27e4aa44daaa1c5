//! FCN-01: every flow's place in the RTL's flow table — and with it its
//! flow label (`cngw_model::placement`) — is the one the model gives it:
//! forty-two flows with the same 8 candidate buckets fill the candidates'
//! 32 ways (the least loaded candidate first) and the eight stash slots and
//! two fail to insert; random other flows take ways of their own
//! candidates; after two CSR deletes the freed places go to the next new
//! flows of those candidates, and no other flow moves. Read back place by
//! place through the driver (`FLOW_LOCATION` + `read_location`).

use cngw_driver::flows::Location as DriverLocation;
use cngw_driver::{Device, SimBus};
use cngw_model::placement::{Location, BUCKET_BITS, MAX_LABEL};
use cngw_model::{Frame, GatewayModel, InPort};
use cngw_packet::flow_key::FlowKey;
use cngw_packet::RoceFrameBuilder;
use cngw_regmap::{flow_command, offset};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, Schedule};
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::net::{Ipv4Addr, Ipv6Addr};

fn frame(key: &FlowKey, psn: u32) -> Frame {
    let v6 = |a: u128| Ipv6Addr::from(a);
    let b = match (v6(key.sip).to_ipv4_mapped(), v6(key.dip).to_ipv4_mapped()) {
        (Some(s), Some(d)) => RoceFrameBuilder::ipv4(s, d),
        _ => RoceFrameBuilder::ipv6(v6(key.sip), v6(key.dip)),
    };
    Frame::new(b.dest_qp(key.dqp).psn(psn).payload_len(64).build())
}

/// `n` IPv6 keys with the 8 candidate buckets of the first (the gateway's
/// hash; they differ in the SIP's low bits and the DQP).
fn same_candidates(n: usize) -> Vec<FlowKey> {
    let first = FlowKey::ipv6(
        "fd00:9::1".parse().unwrap(),
        "fd00:9::2".parse().unwrap(),
        1,
    );
    first.with_same_candidates(BUCKET_BITS, n, true)
}

fn run(gw: &mut Gateway, m: &mut GatewayModel, keys: &[FlowKey], seed: u64) {
    let dc: Vec<(u64, Frame)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (0, frame(k, i as u32)))
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, dc)],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    let opts = StreamOptions::random(0.2, 0.2, seed);
    check_scheduled(gw, m, &schedule, opts).unwrap_or_else(|e| panic!("{e}"));
}

/// The RTL holds every flow where the model placed it, and nothing at the
/// places of the `candidates` buckets and the stash the model holds free.
fn check_places(gw: &mut Gateway, m: &GatewayModel, candidates: &[u32]) {
    let mut dev = Device::open(SimBus::new(gw)).unwrap();
    let mut table = dev.flow_table();
    let driver = |l: Location| match l {
        Location::Bucket { bucket, way } => DriverLocation::Bucket { bucket, way },
        Location::Stash { slot } => DriverLocation::Stash { slot },
    };
    for (key, &place) in m.placement().iter() {
        let found = table.read_location(driver(place)).unwrap().map(|(k, _)| k);
        assert_eq!(found, Some(*key), "{place:?} (label {})", place.label());
        assert_eq!(m.flow_of_label(place.label()), Some(*key));
        assert!((1..=MAX_LABEL).contains(&place.label()));
    }
    let places = candidates
        .iter()
        .flat_map(|&bucket| (0..4).map(move |way| Location::Bucket { bucket, way }))
        .chain((0..8).map(|slot| Location::Stash { slot }));
    for place in places {
        if m.placement().key_at(place).is_none() {
            assert_eq!(
                table.read_location(driver(place)).unwrap(),
                None,
                "{place:?}"
            );
        }
    }
}

fn delete(gw: &mut Gateway, m: &mut GatewayModel, key: &FlowKey) {
    let mut dev = Device::open(SimBus::new(&mut *gw)).unwrap();
    assert!(dev.flow_table().delete(key).unwrap());
    let words = |a: u128| -> Vec<u32> {
        a.to_be_bytes()
            .chunks(4)
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect()
    };
    for (i, w) in words(key.sip).into_iter().enumerate() {
        m.write_register(offset::FLOW_SIP_0 + 4 * i as u32, w);
    }
    for (i, w) in words(key.dip).into_iter().enumerate() {
        m.write_register(offset::FLOW_DIP_0 + 4 * i as u32, w);
    }
    m.write_register(offset::FLOW_DQP, key.dqp);
    m.write_register(offset::FLOW_COMMAND, flow_command::DELETE);
}

#[test]
fn fcn_01_flow_places_and_labels_match_the_model() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let crowd = same_candidates(45);
    let c = crowd[0].gateway_candidates(BUCKET_BITS);
    let mut keys: Vec<FlowKey> = crowd[..42].to_vec();
    for i in 0..40u32 {
        keys.push(if i % 2 == 0 {
            FlowKey::ipv4(
                Ipv4Addr::from(rng.gen::<u32>()).octets(),
                [10, 1, 0, 1],
                rng.gen_range(0..0x100_0000),
            )
        } else {
            FlowKey::ipv6(
                Ipv6Addr::from(rng.gen::<u128>()),
                Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1),
                rng.gen_range(0..0x100_0000),
            )
        });
    }
    // The crowd in its own order (ways, then stash), the rest shuffled in.
    let (mut first, rest) = (keys[..42].to_vec(), keys[42..].to_vec());
    for k in rest {
        let at = rng.gen_range(0..=first.len());
        first.insert(at, k);
    }
    // Repeats: a flow keeps its place.
    let mut again = first.clone();
    again.shuffle(&mut rng);
    first.extend(again);
    run(&mut gw, &mut m, &first, 1);
    assert_eq!(m.read_register(offset::FLOW_INSERT_FAILURES), Some(4));
    let ways: Vec<u32> = crowd[..32]
        .iter()
        .map(|k| m.flow_label(k).unwrap())
        .collect();
    assert_eq!(
        ways,
        (0..32u32)
            .map(|i| 1 + 4 * c[i as usize % 8] + i / 8)
            .collect::<Vec<_>>(),
        "the first 32 take way 0 of the 8 candidates in bank order, then way 1, ..."
    );
    assert_eq!(m.flow_label(&crowd[40]), None, "candidates and stash full");
    check_places(&mut gw, &m, &c);

    // Free bank 1's way 0 and stash slot 3; the next two new flows of the
    // candidates take them; the third fails.
    let (way1, slot3) = (crowd[1], crowd[35]);
    assert_eq!(
        m.placement().location(&slot3),
        Some(Location::Stash { slot: 3 })
    );
    delete(&mut gw, &mut m, &way1);
    delete(&mut gw, &mut m, &slot3);
    run(&mut gw, &mut m, &crowd[42..45], 2);
    assert_eq!(
        m.placement().location(&crowd[42]),
        Some(Location::Bucket {
            bucket: c[1],
            way: 0
        })
    );
    assert_eq!(
        m.placement().location(&crowd[43]),
        Some(Location::Stash { slot: 3 })
    );
    assert_eq!(m.flow_label(&crowd[44]), None);
    assert_eq!(m.read_register(offset::FLOW_INSERT_FAILURES), Some(5));
    check_places(&mut gw, &m, &c);
}

/// FCN-01: a label is never reused while its flow lives and is released
/// when the flow ages out. With the same candidates: a static flow (never
/// ages) and a learned flow A kept alive by traffic; a new flow C arriving
/// meanwhile gets a place (label) of its own. Once A and C go idle past
/// `FLOW_AGE_TIMEOUT_US` both age out; the next new flow of the candidates
/// takes A's place — A's label — and the static flow keeps its own.
#[test]
fn fcn_01_labels_are_released_on_aging_and_only_then() {
    use cngw_testbench::Bench;
    let keys = same_candidates(4);
    let (s, a, c, d) = (keys[0], keys[1], keys[2], keys[3]);
    let cand = s.gateway_candidates(BUCKET_BITS);
    let mut b = Bench::new(None).unwrap();
    let place_of = |b: &mut Bench<Gateway>, key: &FlowKey| {
        let mut dev = Device::open(SimBus::new(b.gateway())).unwrap();
        let mut table = dev.flow_table();
        let places = cand
            .iter()
            .flat_map(|&bucket| (0..4).map(move |way| Location::Bucket { bucket, way }))
            .chain((0..8).map(|slot| Location::Stash { slot }));
        for place in places {
            let at = match place {
                Location::Bucket { bucket, way } => DriverLocation::Bucket { bucket, way },
                Location::Stash { slot } => DriverLocation::Stash { slot },
            };
            if table.read_location(at).unwrap().map(|(k, _)| k) == Some(*key) {
                return Some(place);
            }
        }
        None
    };
    {
        let mut dev = Device::open(SimBus::new(b.gateway())).unwrap();
        dev.flow_table().insert_static(&s, 77).unwrap();
        dev.write_offset(offset::FLOW_AGE_TIMEOUT_US, 20).unwrap();
    }
    let send = |b: &mut Bench<Gateway>, key: &FlowKey, psn| {
        b.push_frame(InPort::DcRx, &frame(key, psn).data, false);
        b.run_until_drained(10_000, 32).unwrap();
    };
    // A lives: a frame every ~5 us for 60 us; C arrives at the end.
    for i in 0..12 {
        send(&mut b, &a, i);
        if i == 11 {
            send(&mut b, &c, 0);
        }
        b.run(5 * 322, 0);
    }
    let (ps, pa, pc) = (
        place_of(&mut b, &s),
        place_of(&mut b, &a),
        place_of(&mut b, &c),
    );
    // The least loaded candidate, lowest bank first: way 0 of banks 0, 1, 2.
    let way0 = |bank: usize| {
        Some(Location::Bucket {
            bucket: cand[bank],
            way: 0,
        })
    };
    assert_eq!((ps, pa), (way0(0), way0(1)), "static bank 0, A bank 1");
    assert_eq!(pc, way0(2), "C does not take a living flow's place");
    // Idle: A and C age out (a scan pass takes 512 idle clocks).
    b.run(60 * 322, 0);
    assert_eq!(b.csr_read(offset::FLOW_AGED).unwrap(), 2);
    assert_eq!(place_of(&mut b, &a), None);
    send(&mut b, &d, 0);
    assert_eq!(place_of(&mut b, &d), pa, "D takes A's place: A's label");
    assert_eq!(
        place_of(&mut b, &s),
        way0(0),
        "the static flow keeps its label"
    );
}
