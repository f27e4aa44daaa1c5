//! FCN-05, FCN-06: the ingress PE turns received Fast CNPs into standard
//! CNPs in the RTL. Flows from dc_rx take places in the flow table (their
//! FCN-01 labels); the host gives most of them a source QP. Then Fast CNPs
//! from WAN nodes inside and outside the domain, naming known, free and
//! impossible labels, some malformed, arrive on wan_rx between other WAN
//! traffic while dc_rx traffic keeps the flow table busy, with random idle
//! clocks and backpressure. The RTL equals the reference model
//! (`cngw_model::fcn_rx`) frame for frame and counter for counter: no Fast
//! CNP for the PE reaches dc_tx, every other frame does, and each standard
//! CNP goes to the sender of the flow the label names with DestQP = its
//! source QP. scapy checks every CNP's ICRC and fields.

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::envelope::Envelope;
use cngw_packet::fast_cnp::{FastCnp, DEFAULT_UDP_PORT};
use cngw_packet::flow_key::FlowKey;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_regmap::{fcn_control, fcn_rx_dom_control, feature, offset};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, Schedule, ScheduledCapture};
use cngw_testbench::setup::{both, insert_static_flow, words};
use cngw_testbench::traffic::random_mix;
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// This PE's addresses.
const PE6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1);
const PE4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
const PE_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xa, 0x01];
/// The data-centre next hop the CNPs go to.
const NEXT_HOP: [u8; 6] = [0x02, 0, 0, 0, 0xd, 0xc0];
/// WAN nodes: two inside the domain (fd00:c::/32 and fd00:e:1::/48), one
/// outside.
const NODE_C: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 7);
const NODE_E: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xe, 1, 0, 0, 0, 0, 9);
const OUTSIDER: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xe, 2, 0, 0, 0, 0, 9);

/// A gateway and a model as an ingress PE with the receive-side bucket
/// `bucket` (refill clocks, depth); `fcn` and `features` written last.
fn setup(bucket: (u32, u32), fcn: u32, features: u32) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let pe = words(u128::from(PE6));
    let c = words(u128::from(NODE_C));
    let e = words(u128::from(NODE_E));
    for (off, v) in [
        (offset::GW_IPV6_0, pe[0]),
        (offset::GW_IPV6_1, pe[1]),
        (offset::GW_IPV6_2, pe[2]),
        (offset::GW_IPV6_3, pe[3]),
        (offset::GW_IPV4, u32::from(PE4)),
        (
            offset::GW_MAC_HI,
            u16::from_be_bytes([PE_MAC[0], PE_MAC[1]]) as u32,
        ),
        (
            offset::GW_MAC_LO,
            u32::from_be_bytes(PE_MAC[2..6].try_into().unwrap()),
        ),
        (
            offset::FCN_CNP_MAC_HI,
            u16::from_be_bytes([NEXT_HOP[0], NEXT_HOP[1]]) as u32,
        ),
        (
            offset::FCN_CNP_MAC_LO,
            u32::from_be_bytes(NEXT_HOP[2..6].try_into().unwrap()),
        ),
        (offset::NOTIFY_DSCP, 48),
        (offset::FCN_RX_DOM0_PREFIX_0, c[0]),
        (offset::FCN_RX_DOM0_PREFIX_1, 0xFFFF_FFFF),
        (
            offset::FCN_RX_DOM0_CONTROL,
            fcn_rx_dom_control::VALID | 32 << fcn_rx_dom_control::LEN_SHIFT,
        ),
        (offset::FCN_RX_DOM1_PREFIX_0, e[0]),
        (offset::FCN_RX_DOM1_PREFIX_1, e[1]),
        (
            offset::FCN_RX_DOM1_CONTROL,
            fcn_rx_dom_control::VALID | 48 << fcn_rx_dom_control::LEN_SHIFT,
        ),
        (offset::FCN_RX_BUCKET_REFILL_CLOCKS, bucket.0),
        (offset::FCN_RX_BUCKET_DEPTH, bucket.1),
        (offset::FCN_CONTROL, fcn),
        (offset::FEATURE_ENABLE, features),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    (gw, m)
}

/// `n` flows, a third of them IPv6.
fn flow_keys(rng: &mut StdRng, n: usize) -> Vec<FlowKey> {
    (0..n)
        .map(|i| {
            let q = 0x100 + i as u32;
            if i % 3 == 2 {
                let s = Ipv6Addr::new(0xfd00, 0x1, 0, 0, 0, 0, rng.gen(), i as u16);
                let d = Ipv6Addr::new(0xfd00, 0x2, 0, 0, 0, 0, 0, 1);
                FlowKey::new(s.octets(), d.octets(), q)
            } else {
                FlowKey::ipv4([10, 1, rng.gen(), i as u8], [10, 2, 0, 1], q)
            }
        })
        .collect()
}

fn data_frame(key: &FlowKey, psn: u32, len: usize) -> Frame {
    Frame::new(
        cngw_testbench::setup::flow_frame(key)
            .dest_qp(key.dqp)
            .psn(psn)
            .payload_len(len)
            .build(),
    )
}

/// A Fast CNP from `node` to this PE naming `label`.
fn fast_cnp(node: Ipv6Addr, label: u32, level: u8) -> Vec<u8> {
    let env = Envelope::ipv6(node, PE6).with_macs([0x02, 0, 0, 0, 0xc, 7], PE_MAC);
    FastCnp::new(label, level)
        .to_frame(&env, DEFAULT_UDP_PORT, DEFAULT_UDP_PORT)
        .to_bytes()
}

/// What a Fast CNP of the run was made to test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Good,
    OutOfDomain,
    BadChecksum,
    ZeroChecksum,
    Truncated,
    FreeLabel,
    NoSuchPlace,
    /// Addressed to another PE: forwarded to dc_tx like any frame.
    OtherPe,
}

fn random_fast_cnp(rng: &mut StdRng, m: &GatewayModel, keys: &[FlowKey]) -> (Kind, Vec<u8>) {
    let kinds = [
        (Kind::Good, 10),
        (Kind::OutOfDomain, 1),
        (Kind::BadChecksum, 1),
        (Kind::ZeroChecksum, 1),
        (Kind::Truncated, 1),
        (Kind::FreeLabel, 1),
        (Kind::NoSuchPlace, 1),
        (Kind::OtherPe, 1),
    ];
    let total: u32 = kinds.iter().map(|k| k.1).sum();
    let mut pick = rng.gen_range(0..total);
    let kind = kinds
        .iter()
        .find(|k| {
            if pick < k.1 {
                true
            } else {
                pick -= k.1;
                false
            }
        })
        .unwrap()
        .0;
    let key = keys[rng.gen_range(0..keys.len())];
    let label = m.flow_label(&key).expect("every flow is placed");
    let node = if rng.gen_bool(0.5) { NODE_C } else { NODE_E };
    let level = rng.gen_range(1..8);
    let mut f = match kind {
        Kind::OutOfDomain => fast_cnp(OUTSIDER, label, level),
        Kind::FreeLabel => {
            // A place no flow holds.
            let free = (1..=cngw_model::placement::MAX_LABEL)
                .find(|&l| m.flow_of_label(l).is_none())
                .unwrap();
            fast_cnp(node, free, level)
        }
        Kind::NoSuchPlace => fast_cnp(node, rng.gen_range(16_393..0x10_0000), level),
        _ => fast_cnp(node, label, level),
    };
    match kind {
        Kind::BadChecksum => f[61] ^= 0x10,
        Kind::ZeroChecksum => {
            f[60] = 0;
            f[61] = 0;
        }
        Kind::Truncated => f.truncate(64),
        Kind::OtherPe => f[53] ^= 1,
        _ => {}
    }
    (kind, f)
}

/// The standard CNPs this PE sent (its MAC to the next hop's) among the
/// frames a run sent on dc_tx (the random WAN traffic has CNPs of its own).
fn cnps(run: &ScheduledCapture) -> Vec<Vec<u8>> {
    run.capture
        .outputs
        .get(&OutPort::DcTx)
        .map(|o| o.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|f| f.data.get(0..6) == Some(&NEXT_HOP) && f.data.get(6..12) == Some(&PE_MAC))
        .filter(|f| {
            cngw_packet::Frame::parse(&f.data)
                .ok()
                .and_then(|p| p.roce().ok())
                .is_some_and(|r| r.bth.opcode == 0x81)
        })
        .map(|f| f.data.clone())
        .collect()
}

/// Places every key through dc_rx (both sides), then gives the keys
/// `keys[i]` with `i % 4 != 3` a source QP through the CSR.
fn learn_flows(gw: &mut Gateway, m: &mut GatewayModel, keys: &[FlowKey]) {
    let dc = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (0, data_frame(k, i as u32, 64)))
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, dc)],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    check_scheduled(gw, m, &schedule, StreamOptions::line_rate()).unwrap_or_else(|e| panic!("{e}"));
    for (i, k) in keys.iter().enumerate().filter(|(i, _)| i % 4 != 3) {
        insert_static_flow(gw, m, k, 0x5000 + i as u32);
    }
}

/// FCN-05/FCN-06: random Fast CNPs of every kind between WAN and dc_rx
/// traffic, with random idle and backpressure (three seeds, the third with
/// a slow bucket that rate-limits). RTL and model agree on every frame and
/// counter; scapy accepts every CNP, which goes to the flow's sender with
/// its source QP.
#[test]
fn fcn_05_ingress_pe_turns_fast_cnps_into_cnps_to_the_senders_qp() {
    let mut limited_total = 0;
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let bucket = if seed == 3 { (400, 2) } else { (60, 4) };
        let (mut gw, mut m) = setup(bucket, fcn_control::INGRESS_PE, feature::FAST_CNP);
        let keys = flow_keys(&mut rng, 24);
        learn_flows(&mut gw, &mut m, &keys);
        let mut wan = Vec::new();
        let mut dc = Vec::new();
        let mut kinds = Vec::new();
        for phase in 0..8u64 {
            let at = phase * 1_500;
            for _ in 0..rng.gen_range(15..40) {
                if rng.gen_bool(0.7) {
                    let (kind, f) = random_fast_cnp(&mut rng, &m, &keys);
                    kinds.push(kind);
                    wan.push((at, Frame::new(f)));
                } else {
                    wan.push((at, random_mix(&mut rng, 1).remove(0)));
                }
            }
            for i in 0..rng.gen_range(10..40) {
                let k = keys[rng.gen_range(0..keys.len())];
                dc.push((at, data_frame(&k, i, rng.gen_range(16..600))));
            }
        }
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc), (InPort::WanRx, wan)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let opts = StreamOptions::random(0.2, 0.25, seed);
        let run = check_scheduled(&mut gw, &mut m, &schedule, opts)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        let count = |k| kinds.iter().filter(|&&x| x == k).count() as u32;
        eprintln!(
            "seed {seed}: {} Fast CNPs received, {} CNPs, {} malformed, {} out of domain, {} unknown labels, {} rate-limited, {} without SQP",
            reg(offset::FCN_RX_RECEIVED),
            reg(offset::FCN_RX_CNP_SENT),
            reg(offset::FCN_RX_MALFORMED),
            reg(offset::FCN_RX_OUT_OF_DOMAIN),
            reg(offset::FCN_RX_UNKNOWN_LABEL),
            reg(offset::FCN_RX_RATE_LIMITED),
            reg(offset::FCN_RX_NO_SQP),
        );
        // Every Fast CNP to this PE was taken off the path, the others not.
        assert_eq!(
            reg(offset::FCN_RX_RECEIVED),
            kinds.len() as u32 - count(Kind::OtherPe)
        );
        assert_eq!(
            reg(offset::FCN_RX_MALFORMED),
            count(Kind::BadChecksum) + count(Kind::ZeroChecksum) + count(Kind::Truncated)
        );
        assert_eq!(reg(offset::FCN_RX_OUT_OF_DOMAIN), count(Kind::OutOfDomain));
        assert_eq!(reg(offset::FCN_RX_QUEUE_DROPS), 0);
        let limited = reg(offset::FCN_RX_RATE_LIMITED);
        limited_total += limited;
        if limited == 0 {
            assert_eq!(
                reg(offset::FCN_RX_UNKNOWN_LABEL),
                count(Kind::FreeLabel) + count(Kind::NoSuchPlace)
            );
        }
        let sent = reg(offset::FCN_RX_CNP_SENT);
        assert!(sent > 10 && reg(offset::FCN_RX_NO_SQP) > 0, "seed {seed}");
        let frames = cnps(&run);
        assert_eq!(frames.len(), sent as usize);
        // Each CNP names a flow's sender and its source QP.
        let senders: Vec<(IpAddr, u32)> = keys
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 4 != 3)
            .map(|(i, k)| {
                let s = Ipv6Addr::from(k.sip);
                let ip = s.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(s));
                (ip, 0x5000 + i as u32)
            })
            .collect();
        let Some(dissected) = dissect(&frames) else {
            continue;
        };
        for f in &dissected {
            assert_checksums_ok(f);
            assert_eq!(get(f, "icrc_ok"), "True");
            assert_eq!(get(f, "BTH.opcode"), "129");
            assert_eq!(get(f, "BTH.becn"), "1");
            assert_eq!(get(f, "BTH.pkey"), "65535");
            assert_eq!(get(f, "Ether.dst"), "02:00:00:00:0d:c0");
            assert_eq!(get(f, "Ether.src"), "02:00:00:00:0a:01");
            let dqp: u32 = get(f, "BTH.dqpn").parse().unwrap();
            let dst: IpAddr = if !f.contains_key("IPv6.dst") {
                assert_eq!(get(f, "IP.src"), PE4.to_string());
                assert_eq!(get(f, "IP.tos"), (48 << 2).to_string());
                get(f, "IP.dst").parse().unwrap()
            } else {
                assert_eq!(get(f, "IPv6.src"), PE6.to_string());
                assert_eq!(get(f, "IPv6.tc"), (48 << 2).to_string());
                get(f, "IPv6.dst").parse().unwrap()
            };
            assert!(senders.contains(&(dst, dqp)), "{dst} {dqp:#x}");
        }
    }
    assert!(limited_total > 0, "the slow bucket rate-limits");
}

/// FCN-06: after reset, and with only one of `FEATURE_ENABLE.fast_cnp` and
/// `FCN_CONTROL.ingress_pe`, a Fast CNP to the PE is an ordinary frame:
/// forwarded to dc_tx, nothing counted, no CNP.
#[test]
fn fcn_06_fast_cnps_pass_unless_the_ingress_pe_role_is_on() {
    for (fcn, features) in [
        (0, 0),
        (fcn_control::INGRESS_PE, 0),
        (fcn_control::WAN_NODE, feature::FAST_CNP),
        (0, feature::FAST_CNP),
    ] {
        let (mut gw, mut m) = setup((20, 8), fcn, features);
        let keys = flow_keys(&mut StdRng::seed_from_u64(9), 4);
        learn_flows(&mut gw, &mut m, &keys);
        let label = m.flow_label(&keys[0]).unwrap();
        let wan = (0..20)
            .map(|_| (0, Frame::new(fast_cnp(NODE_C, label, 5))))
            .collect();
        let schedule = Schedule {
            inputs: vec![(InPort::WanRx, wan)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.capture.outputs[&OutPort::DcTx].len(), 20);
        assert_eq!(m.read_register(offset::FCN_RX_RECEIVED), Some(0));
        assert_eq!(m.read_register(offset::FCN_RX_CNP_SENT), Some(0));
    }
}

/// FCN-06: a flood of valid Fast CNPs back to back gets exactly the CNPs
/// the receive-side bucket allows — its depth plus one per refill period —
/// and the model agrees clock for clock, for several refill periods.
#[test]
fn fcn_06_received_fast_cnps_never_exceed_the_receive_bucket() {
    for (refill, depth) in [(1_000, 3), (257, 1), (64, 4)] {
        let (mut gw, mut m) = setup((refill, depth), fcn_control::INGRESS_PE, feature::FAST_CNP);
        let keys = flow_keys(&mut StdRng::seed_from_u64(5), 4);
        learn_flows(&mut gw, &mut m, &keys);
        let label = m.flow_label(&keys[0]).unwrap();
        let wan: Vec<(u64, Frame)> = (0..600)
            .map(|_| (0, Frame::new(fast_cnp(NODE_C, label, 7))))
            .collect();
        let schedule = Schedule {
            inputs: vec![(InPort::WanRx, wan)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("refill {refill}: {e}"));
        let sent = m.read_register(offset::FCN_RX_CNP_SENT).unwrap() as u64;
        // 600 two-beat frames: 1200 clocks of arrivals.
        let bound = depth as u64 + 1_200 / refill as u64 + 1;
        assert!(sent <= bound, "refill {refill}: {sent} > {bound}");
        assert!(
            sent >= depth as u64 + 1_200 / refill as u64 - 1,
            "refill {refill}: {sent}"
        );
        assert_eq!(cnps(&run).len() as u64, sent);
        assert_eq!(
            m.read_register(offset::FCN_RX_RATE_LIMITED).unwrap() as u64,
            600 - sent
        );
    }
}

/// FCN-05: a burst faster than the standard CNPs can leave (a bucket that
/// refills every clock, dc_tx held back half the time) fills the four
/// translation slots: the excess is dropped and counted, every received
/// Fast CNP is accounted for exactly once, and the PE keeps working — the
/// next Fast CNP after the burst gets its CNP.
#[test]
fn fcn_05_a_burst_beyond_the_translation_slots_is_counted_and_recovers() {
    use cngw_testbench::scheduled::run_scheduled;
    let (mut gw, mut m) = setup((1, 8), fcn_control::INGRESS_PE, feature::FAST_CNP);
    let keys = flow_keys(&mut StdRng::seed_from_u64(3), 4);
    learn_flows(&mut gw, &mut m, &keys);
    let label = m.flow_label(&keys[0]).unwrap();
    let burst = |n| -> Vec<(u64, Frame)> {
        (0..n)
            .map(|_| (0, Frame::new(fast_cnp(NODE_C, label, 6))))
            .collect()
    };
    let schedule = Schedule {
        inputs: vec![(InPort::WanRx, burst(300))],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    let run = run_scheduled(&mut gw, &schedule, StreamOptions::random(0.0, 0.5, 7)).unwrap();
    assert!(!run.capture.timed_out);
    let reg = |gw: &mut Gateway, o| gw.csr_read(o).unwrap();
    let sent = reg(&mut gw, offset::FCN_RX_CNP_SENT);
    let drops = reg(&mut gw, offset::FCN_RX_QUEUE_DROPS);
    let limited = reg(&mut gw, offset::FCN_RX_RATE_LIMITED);
    assert_eq!(reg(&mut gw, offset::FCN_RX_RECEIVED), 300);
    assert!(drops > 0, "the burst overflows the slots");
    assert_eq!(sent + drops + limited, 300);
    assert_eq!(cnps(&run).len() as u32, sent);
    assert_eq!(
        run.capture
            .outputs
            .get(&OutPort::DcTx)
            .map_or(0, |o| o.len()) as u32,
        sent
    );
    eprintln!("burst of 300: {sent} CNPs, {drops} dropped at the slots, {limited} rate-limited");
    // After the burst: one more, one more CNP.
    let schedule = Schedule {
        inputs: vec![(InPort::WanRx, burst(1))],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    let run = run_scheduled(&mut gw, &schedule, StreamOptions::line_rate()).unwrap();
    assert_eq!(cnps(&run).len(), 1);
    assert_eq!(reg(&mut gw, offset::FCN_RX_CNP_SENT), sent + 1);
}
