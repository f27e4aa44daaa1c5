//! FCN-03, PE-04, FCN-06: the congested WAN node's Fast CNPs in the RTL.
//! VXLAN-tunnelled RoCEv2 (outer IPv6 with each flow's label, from three
//! ingress PEs) and other frames pass toward the WAN while the average
//! queue moves through T1, T2 and Tmax, with random idle clocks and
//! backpressure. Every frame on wan_tx and dc_tx, every Fast CNP and every
//! counter equals the reference model's (`cngw_model::fast_cnp`); scapy
//! checks each Fast CNP's UDP checksum and decodes its label and level,
//! which must name a flow the ingress PE it goes to sent.

use cngw_model::pre_ecn::ALWAYS;
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::envelope::Envelope;
use cngw_packet::fast_cnp::DEFAULT_UDP_PORT;
use cngw_packet::frame::UdpChecksum;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::{vxlan, Ecn, RoceFrameBuilder};
use cngw_regmap::{fcn_control, feature, offset, pe_control};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, DepthStep, Schedule, ScheduledCapture};
use cngw_testbench::traffic::random_mix;
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use std::net::{Ipv4Addr, Ipv6Addr};

const T1: u32 = 20_000_000;
const T2: u32 = 60_000_000;
const TMAX: u32 = 100_000_000;
/// This node's address: the source of its Fast CNPs.
const GW: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 0x99);

fn both(gw: &mut Gateway, m: &mut GatewayModel, off: u32, v: u32) {
    gw.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

/// A gateway and a model as a congested WAN node: thresholds T1 20 MB,
/// T2 60 MB, Tmax 100 MB on an average that moves by half the difference
/// every microsecond; `features` and `fcn` written last.
fn setup(seed: u32, features: u32, fcn: u32, bucket: (u32, u32)) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let gw_words: [u32; 4] = std::array::from_fn(|i| {
        u32::from_be_bytes(GW.octets()[4 * i..4 * i + 4].try_into().unwrap())
    });
    for (off, v) in [
        (offset::PE_T1_BYTES, T1),
        (offset::PE_T2_BYTES, T2),
        (offset::PE_TMAX_BYTES, TMAX),
        (offset::PORT0_AVG_WEIGHT_SHIFT, 1),
        (offset::PE_LFSR_SEED, seed),
        (offset::PE_CONTROL, pe_control::WAN_MARKING),
        (offset::GW_IPV6_0, gw_words[0]),
        (offset::GW_IPV6_1, gw_words[1]),
        (offset::GW_IPV6_2, gw_words[2]),
        (offset::GW_IPV6_3, gw_words[3]),
        (offset::NOTIFY_DSCP, 46),
        (offset::FCN_BUCKET_REFILL_CLOCKS, bucket.0),
        (offset::FCN_BUCKET_DEPTH, bucket.1),
        (offset::FCN_CONTROL, fcn),
        (offset::FEATURE_ENABLE, features),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    (gw, m)
}

/// A tunnelled flow: its ingress PE, the outer flow label and the inner
/// RoCEv2 endpoints.
#[derive(Clone, Copy, Debug)]
struct Flow {
    pe: Ipv6Addr,
    label: u32,
    inner: u32,
}

fn flows(rng: &mut StdRng, n: usize) -> Vec<Flow> {
    (0..n)
        .map(|i| Flow {
            pe: Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1 + (i % 3) as u16),
            // A few flows without a label (0).
            label: if i % 7 == 6 {
                0
            } else {
                rng.gen_range(1..0x10_0000)
            },
            inner: i as u32,
        })
        .collect()
}

/// A VXLAN frame of `flow` (outer ECN `ecn`, about `len` bytes); every
/// seventh over IPv4 outside (no label to name the flow by).
fn tunnelled(flow: &Flow, ecn: Ecn, len: usize, psn: u32, v4_outer: bool) -> Frame {
    let inner = RoceFrameBuilder::ipv4(
        Ipv4Addr::new(10, 1, 0, flow.inner as u8 + 1),
        Ipv4Addr::new(10, 2, 0, 1),
    )
    .ecn(ecn)
    .dest_qp(0x200 + flow.inner)
    .psn(psn)
    .payload_len(len.saturating_sub(62 + 70))
    .build();
    let outer = if v4_outer {
        Envelope::ipv4(Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(192, 0, 2, 2))
    } else {
        Envelope::ipv6(flow.pe, Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1))
            .with_flow_label(flow.label)
    }
    .with_macs(
        [0x02, 0, 0, 0, 0xa, flow.pe.octets()[15]],
        [0x02, 0, 0, 0, 0xc, 0x99],
    )
    .with_ecn(ecn);
    Frame::new(
        vxlan::encapsulate(
            &outer,
            0xC000 | flow.label as u16,
            100,
            &inner,
            UdpChecksum::Compute,
        )
        .to_bytes(),
    )
}

/// The Fast CNPs among the frames a run sent on dc_tx.
fn fast_cnps(run: &ScheduledCapture, port: u16) -> Vec<Vec<u8>> {
    run.capture
        .outputs
        .get(&OutPort::DcTx)
        .map(|o| o.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|f| {
            cngw_packet::Frame::parse(&f.data)
                .ok()
                .and_then(|p| p.udp().map(|u| u.dst_port == port))
                == Some(true)
        })
        .map(|f| f.data.clone())
        .collect()
}

/// (source, flow label) of an IPv6 frame's header (the random frames may
/// not parse as a whole: the node reads only the first 40 bytes).
fn outer_ipv6(f: &[u8]) -> Option<(Ipv6Addr, u32)> {
    let l3 = if f.get(12..14)? == [0x81, 0] { 18 } else { 14 };
    let h = f.get(l3..l3 + 40)?;
    (f[l3 - 2..l3] == [0x86, 0xdd] && h[0] >> 4 == 6).then(|| {
        let src: [u8; 16] = h[8..24].try_into().unwrap();
        (src.into(), u32::from_be_bytes([0, h[1] & 0xF, h[2], h[3]]))
    })
}

/// scapy's view of Fast CNPs: every checksum good, from `GW` to one of the
/// ingress PEs with UDP length 12 and `port`; returns (destination, label,
/// level) of each, decoded from scapy's UDP payload bytes.
fn scapy_fast_cnps(frames: &[Vec<u8>], port: u16) -> Option<Vec<(Ipv6Addr, u32, u8)>> {
    let dissected = dissect(frames)?;
    Some(
        dissected
            .iter()
            .map(|f| {
                assert_checksums_ok(f);
                assert_eq!(get(f, "udp_chksum_ok"), "True");
                assert_eq!(get(f, "IPv6.src"), GW.to_string());
                assert_eq!(get(f, "IPv6.tc"), (46 << 2).to_string());
                assert_eq!(get(f, "UDP.len"), "12");
                assert_eq!(get(f, "UDP.sport"), port.to_string());
                assert_eq!(get(f, "UDP.dport"), port.to_string());
                let payload = u32::from_str_radix(get(f, "udp_payload"), 16).unwrap();
                assert_eq!(payload & 0x1FF, 0, "reserved bits zero");
                (
                    get(f, "IPv6.dst").parse().unwrap(),
                    payload >> 12,
                    ((payload >> 9) & 7) as u8,
                )
            })
            .collect(),
    )
}

/// FCN-03/PE-04: random tunnelled and other traffic while the telemetry
/// depth jumps between levels below T1, between the thresholds and above
/// Tmax. Seed 1: Fast CNPs alone (no remarking), a fast bucket; seed 2:
/// with PE-03 marking and the label copied into the IPv6 header, a slow
/// bucket (rate limiting); seed 3: both, the reset bucket. The RTL equals
/// the model in every frame and counter; scapy accepts every Fast CNP,
/// which names a labelled flow of the PE it goes to.
#[test]
fn fcn_03_wan_node_fast_cnps_match_the_model_with_idle_and_backpressure() {
    let mut rate_limited = 0;
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let (features, fcn, bucket) = match seed {
            1 => (feature::FAST_CNP, fcn_control::WAN_NODE, (40, 8)),
            2 => (
                feature::FAST_CNP | feature::PRE_ECN,
                fcn_control::WAN_NODE | fcn_control::COPY_LABEL,
                (1_500, 3),
            ),
            _ => (
                feature::FAST_CNP | feature::PRE_ECN,
                fcn_control::WAN_NODE,
                (3_222, 8),
            ),
        };
        let (mut gw, mut m) = setup(rng.gen(), features, fcn, bucket);
        let fl = flows(&mut rng, 12);
        let levels = [
            0,
            10_000_000,
            30_000_000,
            50_000_000,
            75_000_000,
            95_000_000,
            150_000_000,
        ];
        let mut depth_steps = Vec::new();
        let mut dc = Vec::new();
        let mut wan = Vec::new();
        for phase in 0..10u64 {
            let at = phase * 6_000;
            depth_steps.push(DepthStep {
                cycle: at,
                bytes: levels[rng.gen_range(0..levels.len())],
            });
            for i in 0..rng.gen_range(60..140) {
                let f = if rng.gen_bool(0.85) {
                    let ecn = [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce][rng.gen_range(0..4)];
                    let flow = fl[rng.gen_range(0..fl.len())];
                    tunnelled(&flow, ecn, rng.gen_range(140..900), i, rng.gen_ratio(1, 7))
                } else {
                    random_mix(&mut rng, 1).remove(0)
                };
                dc.push((at + 2_000, f));
            }
            let n = rng.gen_range(0..5);
            for f in random_mix(&mut rng, n) {
                wan.push((at, f));
            }
        }
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc), (InPort::WanRx, wan)],
            depth_steps,
            end_cycle: None,
        };
        let opts = StreamOptions::random(0.15 * seed as f64, 0.2 * seed as f64, seed);
        let run = check_scheduled(&mut gw, &mut m, &schedule, opts)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        let (sent, limited, no_label) = (
            reg(offset::FCN_SENT),
            reg(offset::FCN_RATE_LIMITED),
            reg(offset::FCN_NO_LABEL),
        );
        eprintln!(
            "seed {seed}: {sent} Fast CNPs, {limited} rate-limited, {no_label} without a label; PE-03 {} ECT(1), {} CE",
            reg(offset::PE_ECT1_MARKED),
            reg(offset::PE_CE_MARKED)
        );
        assert!(sent > 20 && no_label > 0, "seed {seed}");
        rate_limited += limited;
        assert_eq!(reg(offset::FCN_QUEUE_DROPS), 0);
        if features & feature::PRE_ECN == 0 {
            assert_eq!(reg(offset::PE_ECT1_MARKED) + reg(offset::PE_CE_MARKED), 0);
        }
        let frames = fast_cnps(&run, DEFAULT_UDP_PORT);
        assert_eq!(frames.len(), sent as usize);
        for f in &frames {
            let label = u32::from_be_bytes([0, f[15] & 0xF, f[16], f[17]]);
            if fcn & fcn_control::COPY_LABEL != 0 {
                assert_ne!(label, 0, "the label is copied into the IPv6 header");
            } else {
                assert_eq!(label, 0);
            }
        }
        if let Some(notes) = scapy_fast_cnps(&frames, DEFAULT_UDP_PORT) {
            // Outer (source, label) of every IPv6 frame sent: the tunnelled
            // flows' and the random frames'.
            let known: BTreeSet<(Ipv6Addr, u32)> = schedule.inputs[0]
                .1
                .iter()
                .filter_map(|(_, f)| outer_ipv6(&f.data))
                .collect();
            assert!(fl
                .iter()
                .filter(|f| f.label != 0)
                .all(|f| known.contains(&(f.pe, f.label))));
            let mut ours = 0;
            let mut levels_seen = BTreeSet::new();
            for (dst, label, level) in notes {
                assert!(known.contains(&(dst, label)), "{dst} {label:#x}");
                ours += fl.iter().any(|f| (f.pe, f.label) == (dst, label)) as usize;
                assert!((1..=7).contains(&level));
                levels_seen.insert(level);
            }
            assert!(
                ours > 20,
                "seed {seed}: {ours} Fast CNPs name tunnelled flows"
            );
            assert!(
                levels_seen.iter().any(|&l| l <= 3) && levels_seen.iter().any(|&l| l >= 4),
                "seed {seed}: light and severe: {levels_seen:?}"
            );
        }
    }
    assert!(rate_limited > 0, "the slow bucket limited some");
}

/// A run of `n` ECT(0) tunnelled frames of labelled flows with the depth
/// held at `depth` from before the first (the average has settled), no
/// idle clocks and no backpressure; checked against the model.
fn steady(depth: u32, n: usize, bucket: (u32, u32)) -> (GatewayModel, ScheduledCapture, Vec<Flow>) {
    let mut rng = StdRng::seed_from_u64(depth as u64);
    let (mut gw, mut m) = setup(
        0xACE1,
        feature::FAST_CNP | feature::PRE_ECN,
        fcn_control::WAN_NODE,
        bucket,
    );
    let fl: Vec<Flow> = flows(&mut rng, 6)
        .into_iter()
        .filter(|f| f.label != 0)
        .collect();
    let dc = (0..n)
        .map(|i| {
            (
                3_000,
                tunnelled(&fl[i % fl.len()], Ecn::Ect0, 200, i as u32, false),
            )
        })
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, dc)],
        depth_steps: vec![DepthStep {
            cycle: 0,
            bytes: depth,
        }],
        end_cycle: None,
    };
    let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
        .unwrap_or_else(|e| panic!("depth {depth}: {e}"));
    (m, run, fl)
}

/// PE-04: the level says how severe the congestion is and Fast CNPs come
/// more often as it grows. Average 30 MB (p_ect1 = 1/4): about a quarter of
/// the frames ask for a light Fast CNP at level 1; 50 MB (3/4): three
/// quarters, level 3 (3/4 of the way through its range); 75 MB (p_ect1 = 1,
/// p_ce = 3/8): every frame, severe at level 5 for 3/8 of them, light at
/// level 3 for the rest. The bucket never limits here (one token a clock).
#[test]
fn pe_04_fast_cnp_level_and_frequency_follow_the_average_queue() {
    let n = 1_200;
    for (depth, share, want_levels) in [
        (30_000_000u32, 0.25, vec![(1u8, 1.0)]),
        (50_000_000, 0.75, vec![(3, 1.0)]),
        (75_000_000, 1.0, vec![(3, 0.625), (5, 0.375)]),
    ] {
        let (m, run, _) = steady(depth, n, (1, 8));
        let frames = fast_cnps(&run, DEFAULT_UDP_PORT);
        assert_eq!(m.read_register(offset::FCN_RATE_LIMITED), Some(0));
        let got = frames.len() as f64 / n as f64;
        eprintln!("average {depth}: {} Fast CNPs for {n} frames", frames.len());
        assert!((got - share).abs() < 0.05, "{depth}: {got} vs {share}");
        let Some(notes) = scapy_fast_cnps(&frames, DEFAULT_UDP_PORT) else {
            continue;
        };
        for (level, fraction) in want_levels {
            let k = notes.iter().filter(|n| n.2 == level).count() as f64 / notes.len() as f64;
            assert!(
                (k - fraction).abs() < 0.05,
                "{depth}: level {level} {k} vs {fraction}"
            );
        }
    }
}

/// FCN-06: under a flood of marked frames (average above Tmax, every frame
/// asks for a severe Fast CNP), the node sends the bucket's depth and then
/// one per refill period, no more; the rest are counted as rate-limited and
/// every data frame still leaves on wan_tx.
#[test]
fn fcn_06_fast_cnps_never_exceed_the_token_bucket() {
    let n = 2_000;
    let (refill, depth) = (500u32, 4u32);
    let (m, run, _) = steady(150_000_000, n, (refill, depth));
    let sent = m.read_register(offset::FCN_SENT).unwrap() as u64;
    let limited = m.read_register(offset::FCN_RATE_LIMITED).unwrap() as u64;
    assert_eq!(sent + limited, n as u64, "every frame asked");
    let first = run.marker_cycles[0];
    let last = *run.marker_cycles.last().unwrap();
    let allowed = depth as u64 + (last - first) / refill as u64 + 1;
    eprintln!(
        "{sent} Fast CNPs in {} clocks (allowed {allowed})",
        last - first
    );
    assert!(
        sent <= allowed && sent + 2 >= allowed,
        "{sent} vs {allowed}"
    );
    assert_eq!(run.capture.outputs[&OutPort::WanTx].len(), n);
    assert_eq!(fast_cnps(&run, DEFAULT_UDP_PORT).len() as u64, sent);
}

/// FCN-06: every role is off after reset. With the queue above Tmax and
/// PE-03 marking on, a gateway whose `fast_cnp` feature or `wan_node` role
/// is off sends no Fast CNP and counts none.
#[test]
fn fcn_06_no_fast_cnp_unless_feature_and_role_are_on() {
    for (features, fcn) in [
        (feature::PRE_ECN, fcn_control::WAN_NODE),
        (feature::PRE_ECN | feature::FAST_CNP, 0),
    ] {
        let (mut gw, mut m) = setup(7, features, fcn, (1, 8));
        let mut rng = StdRng::seed_from_u64(5);
        let fl = flows(&mut rng, 4);
        let dc = (0..200)
            .map(|i| {
                (
                    3_000,
                    tunnelled(&fl[i % 3], Ecn::Ect0, 300, i as u32, false),
                )
            })
            .collect();
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc)],
            depth_steps: vec![DepthStep {
                cycle: 0,
                bytes: 150_000_000,
            }],
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate()).unwrap();
        assert!(m.read_register(offset::PE_CE_MARKED).unwrap() > 150);
        assert!(fast_cnps(&run, DEFAULT_UDP_PORT).is_empty());
        for off in [
            offset::FCN_SENT,
            offset::FCN_RATE_LIMITED,
            offset::FCN_NO_LABEL,
        ] {
            assert_eq!(gw.csr_read(off).unwrap(), 0);
        }
    }
    // ALWAYS is the probability at and above Tmax.
    assert_eq!(
        cngw_model::pre_ecn::probability(150_000_000, T2, TMAX),
        ALWAYS
    );
}

/// FCN-06, clock-exact: with a one-token bucket refilled every 100 clocks,
/// a second marked frame arriving 95..=105 clocks after the first gets a
/// Fast CNP exactly when the model's bucket holds a token again (a token
/// returns 100 clocks after the clock after it left the full bucket), and
/// both outcomes occur in the sweep.
#[test]
fn fcn_06_bucket_refill_is_clock_exact() {
    let mut rng = StdRng::seed_from_u64(11);
    let fl: Vec<Flow> = flows(&mut rng, 3);
    let mut outcomes = BTreeSet::new();
    for gap in 95..=105u64 {
        let (mut gw, mut m) = setup(
            3,
            feature::FAST_CNP | feature::PRE_ECN,
            fcn_control::WAN_NODE,
            (100, 1),
        );
        let dc = vec![
            (3_000, tunnelled(&fl[0], Ecn::Ect0, 200, 0, false)),
            (3_000 + gap, tunnelled(&fl[1], Ecn::Ect0, 200, 1, false)),
        ];
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc)],
            depth_steps: vec![DepthStep {
                cycle: 0,
                bytes: 150_000_000,
            }],
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("gap {gap}: {e}"));
        let sent = fast_cnps(&run, DEFAULT_UDP_PORT).len();
        outcomes.insert(sent);
        eprintln!("gap {gap}: {sent} Fast CNPs");
    }
    assert_eq!(
        outcomes,
        BTreeSet::from([1, 2]),
        "the sweep crosses the refill"
    );
}
