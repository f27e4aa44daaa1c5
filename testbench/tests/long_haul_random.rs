//! RTL against the reference model on random multi-flow traffic with
//! congestion (LH-05..LH-09): the queue depth moves between levels below
//! K_min, between K_min and K_max and in every severity row; twelve flows
//! (IPv4 and IPv6 senders, ten with a static source QP) send random RoCEv2
//! frames among random other traffic in both directions, with random idle
//! clocks on the inputs and random backpressure on the outputs. Every
//! notification — Long-haul CNPs, standard CNPs, Resumes — must come out of
//! the RTL byte for byte and in the order the model decides them, data must
//! match frame for frame, and every counter must agree. Each seed also
//! programs a random LH-15 format table (prefixes of the flows' senders at
//! random lengths with random bits past the length, every format including
//! the reserved one and ICMPv6 on IPv4, invalid entries, lengths above 128),
//! so senders get the table's format or, unmatched, `LH_OPTIONS`'.
//! The Long-haul CNPs
//! carry random extension objects (LH-12, LH-13): a random set of objects,
//! Class-Num, device identifier (0..20 register bytes, capped at 16) and
//! path identifier (0..10, capped at 8), a random time-of-day increment and
//! base, so every timestamp shows the decision clock the model computed.

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::cnp::Cnp;
use cngw_packet::frame::Frame as ParsedFrame;
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::scapy::{assert_checksums_ok, dissect};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{
    ext_control, feature, flow_command, format_control, lh_option, offset, tod_control,
};
use cngw_sim::Gateway;
use cngw_testbench::traffic::random_mix;
use cngw_testbench::{compare_counters, Bench, Pause};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];

struct Flow {
    src: IpAddr,
    dst: IpAddr,
    dqp: u32,
    sqp: Option<u32>,
    mac: [u8; 6],
}

fn mapped(a: IpAddr) -> [u8; 16] {
    match a {
        IpAddr::V4(v) => v.to_ipv6_mapped().octets(),
        IpAddr::V6(v) => v.octets(),
    }
}

/// Writes a register in the RTL and the model alike.
fn both(b: &mut Bench<Gateway>, m: &mut GatewayModel, off: u32, v: u32) {
    b.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

fn flows(rng: &mut StdRng) -> Vec<Flow> {
    (0..12u32)
        .map(|i| {
            let (src, dst) = if i % 3 == 2 {
                (
                    IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 1, i as u16)),
                    IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 2, 1)),
                )
            } else {
                (
                    IpAddr::V4(Ipv4Addr::new(10, 0, 0, i as u8 + 1)),
                    IpAddr::V4(Ipv4Addr::new(10, 0, 9, 1)),
                )
            };
            Flow {
                src,
                dst,
                dqp: 0x100 + i,
                sqp: (i < 10).then_some(0x4000 + rng.gen_range(0..0x1000)),
                mac: [0x02, 0x11, 0x22, 0x33, 0x44, i as u8],
            }
        })
        .collect()
}

fn data_frame(f: &Flow, rng: &mut StdRng) -> Vec<u8> {
    let b = match (f.src, f.dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => RoceFrameBuilder::ipv4(s, d),
        (IpAddr::V6(s), IpAddr::V6(d)) => RoceFrameBuilder::ipv6(s, d),
        _ => unreachable!(),
    };
    let ecn = [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct][rng.gen_range(0..3)];
    b.macs(f.mac, [0x02, 0, 0, 0, 0, 0xFE])
        .ecn(ecn)
        .dest_qp(f.dqp)
        .psn(rng.gen_range(0..1 << 24))
        .payload_len(rng.gen_range(0..1200))
        .build()
}

/// LH-15: a random format table (its own random stream, so the traffic of
/// a seed stays what it was without one).
fn random_format_table(b: &mut Bench<Gateway>, m: &mut GatewayModel, flows: &[Flow], seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x15_15);
    for i in 0..format_control::ENTRIES {
        let base = format_control::STRIDE * i as u32;
        let src = mapped(flows[rng.gen_range(0..flows.len())].src);
        let ipv4 = src[..12] == Ipv4Addr::UNSPECIFIED.to_ipv6_mapped().octets()[..12];
        // Mostly long enough to tell the flows' senders apart (they differ
        // in the last byte), some covering many, a few above 128.
        let len: u32 = match (rng.gen_range(0..10), ipv4) {
            (0, _) => rng.gen_range(129..=255),
            (1..=3, true) => 96 + rng.gen_range(0..=32),
            (1..=3, false) => rng.gen_range(0..=128),
            (_, true) => 96 + rng.gen_range(29..=32),
            (_, false) => rng.gen_range(125..=128),
        };
        // Random bits past the length: the gateway ignores them.
        let addr = u128::from_be_bytes(src);
        let keep = u128::MAX.checked_shl(128 - len.min(128)).unwrap_or(0);
        let prefix = (addr & keep) | (rng.gen::<u128>() & !keep);
        let control = u32::from(rng.gen_bool(0.7))
            | (rng.gen_range(0..4) << format_control::FORMAT_LSB)
            | (len << format_control::PREFIX_LEN_LSB);
        for (w, word) in [96, 64, 32, 0].into_iter().enumerate() {
            both(
                b,
                m,
                offset::LH_FORMAT0_PREFIX_0 + base + 4 * w as u32,
                (prefix >> word) as u32,
            );
        }
        both(b, m, offset::LH_FORMAT0_CONTROL + base, control);
    }
}

/// Runs one seed; returns the kinds of notification sent ([`kinds_seen`]).
fn run_seed(seed: u64, idle: f64, backpressure: f64) -> [usize; 3] {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut b = Bench::new(None).unwrap();
    let mut m = GatewayModel::new();
    m.set_reset_clock(b.gateway().reset_released_at());

    // Configuration: a short RTT so intervals and Resumes happen within the
    // run; a small bucket that runs dry; every severity row reachable.
    let options = [
        lh_option::IPV4_LONGHAUL | lh_option::IPV6_LONGHAUL,
        lh_option::IPV4_LONGHAUL,
        lh_option::IPV6_LONGHAUL | lh_option::HIDE_METRIC,
    ][seed as usize % 3];
    for (off, v) in [
        (offset::PORT0_RTT_EST_US, 20),
        (
            offset::PORT0_FLOW_INTERVAL_US,
            [0, 8, 30][seed as usize % 3],
        ),
        (offset::LH_BUCKET_REFILL_CLOCKS, 400),
        (offset::LH_BUCKET_DEPTH, 3),
        (offset::LH_SEV1_THRESHOLD_BYTES, 150_000_000),
        (offset::LH_SEV2_THRESHOLD_BYTES, 200_000_000),
        // LH-05: growth of more than 50 MB over a 40 us interval triggers
        // too, below K_max included. (The interval is counted from reset;
        // it is written before the default's first 40 us have passed, so
        // the samples fall where the model expects them.)
        (offset::PORT0_QGR_INTERVAL_US, 40),
        (offset::PORT0_V_GROWTH_BYTES, 50_000_000),
        (offset::LH_OPTIONS, options),
        (offset::NOTIFY_DSCP, 46),
        (offset::GW_MAC_HI, 0x02C0),
        (offset::GW_MAC_LO, 0x6E00_0001),
        (offset::GW_IPV4, 0x0A00_0101),
        (offset::GW_IPV6_0, 0xFD00_0000),
        (offset::GW_IPV6_3, 0x0000_00FE),
    ] {
        both(&mut b, &mut m, off, v);
    }
    // LH-12/LH-13: extension objects (every one for seed 1), identifiers
    // of random bytes and lengths, the time of day from a random base and
    // increment.
    let objects = if seed % 3 == 1 {
        7
    } else {
        rng.gen_range(1..8)
    };
    let control = objects
        | rng.gen_range(0..256u32) << ext_control::CLASS_NUM_LSB
        | rng.gen_range(0..21u32) << ext_control::DEVICE_ID_LEN_LSB
        | rng.gen_range(0..11u32) << ext_control::PATH_ID_LEN_LSB;
    for (off, v) in [
        (offset::LH_EXT_CONTROL, control),
        (offset::LH_EXT_DEVICE_ID_0, rng.gen()),
        (offset::LH_EXT_DEVICE_ID_1, rng.gen()),
        (offset::LH_EXT_DEVICE_ID_2, rng.gen()),
        (offset::LH_EXT_DEVICE_ID_3, rng.gen()),
        (offset::LH_EXT_PATH_ID_0, rng.gen()),
        (offset::LH_EXT_PATH_ID_1, rng.gen()),
        (offset::LH_TOD_INCREMENT, rng.gen_range(1 << 26..=u32::MAX)),
        (offset::LH_TOD_BASE_SECONDS, rng.gen()),
        (offset::LH_TOD_BASE_FRACTION, rng.gen()),
        (offset::LH_TOD_CONTROL, tod_control::SET),
    ] {
        both(&mut b, &mut m, off, v);
    }
    let flows = flows(&mut rng);
    random_format_table(&mut b, &mut m, &flows, seed);
    for f in flows.iter().filter(|f| f.sqp.is_some()) {
        let words = |a: [u8; 16]| {
            [0, 1, 2, 3].map(|i| u32::from_be_bytes(a[4 * i..4 * i + 4].try_into().unwrap()))
        };
        for (i, w) in words(mapped(f.src)).into_iter().enumerate() {
            both(&mut b, &mut m, offset::FLOW_SIP_0 + 4 * i as u32, w);
        }
        for (i, w) in words(mapped(f.dst)).into_iter().enumerate() {
            both(&mut b, &mut m, offset::FLOW_DIP_0 + 4 * i as u32, w);
        }
        both(&mut b, &mut m, offset::FLOW_DQP, f.dqp);
        both(&mut b, &mut m, offset::FLOW_SQP, f.sqp.unwrap());
        both(
            &mut b,
            &mut m,
            offset::FLOW_COMMAND,
            flow_command::INSERT_STATIC,
        );
        b.run(20, 0);
    }
    both(
        &mut b,
        &mut m,
        offset::FEATURE_ENABLE,
        feature::LH_ECN_MARK | feature::LH_CNP,
    );
    for (i, port) in InPort::ALL.into_iter().enumerate() {
        *b.source_pause(port) = Pause::random(idle, seed.wrapping_add(i as u64));
    }
    for (i, port) in OutPort::ALL.into_iter().enumerate() {
        *b.sink_pause(port) = Pause::random(backpressure, seed.wrapping_add(16 + i as u64));
    }

    let levels = [0u32, 70_000_000, 130_000_000, 160_000_000, 210_000_000];
    let mut rtl_dc_tx = Vec::new();
    let mut model_forwarded = Vec::new();
    for phase in 0..14 {
        // The depth changes while the pipeline is empty.
        let qd = if phase == 13 {
            0
        } else {
            levels[rng.gen_range(0..levels.len())]
        };
        let at = b.cycle();
        b.gateway().set_queue_depth(qd, true);
        b.clock();
        b.gateway().set_queue_depth(qd, false);
        m.set_queue_depth_at(qd, at);

        let mut dc = Vec::new();
        for _ in 0..rng.gen_range(10..40) {
            let f = if rng.gen_bool(0.8) {
                Frame::new(data_frame(&flows[rng.gen_range(0..flows.len())], &mut rng))
            } else {
                random_mix(&mut rng, 1).remove(0)
            };
            b.push_frame(InPort::DcRx, &f.data, f.user);
            dc.push(f);
        }
        let n = rng.gen_range(0..10);
        let wan = random_mix(&mut rng, n);
        for f in &wan {
            b.push_frame(InPort::WanRx, &f.data, f.user);
        }
        b.run_until_drained(1_000_000, 64).unwrap();
        // Sometimes let the queue sit (intervals expire, Resumes go out).
        if rng.gen_bool(0.5) {
            b.run(rng.gen_range(1_000..12_000), 0);
            b.run_until_drained(100_000, 64).unwrap();
        }

        let parsed = b.take_parsed(InPort::DcRx, usize::MAX);
        assert_eq!(parsed.len(), dc.len());
        let mut want_wan = Vec::new();
        for (f, p) in dc.iter().zip(&parsed) {
            for (port, out) in m.receive_at(InPort::DcRx, f, Some(p.cycle)).emitted {
                assert_eq!(port, OutPort::WanTx);
                want_wan.push(out);
            }
        }
        b.take_parsed(InPort::WanRx, usize::MAX);
        for f in &wan {
            model_forwarded.extend(m.receive(InPort::WanRx, f).emitted.into_iter().map(|e| e.1));
        }
        let got_wan: Vec<Frame> = b
            .take_frames(OutPort::WanTx, usize::MAX)
            .into_iter()
            .map(|f| Frame {
                data: f.data,
                user: f.user,
            })
            .collect();
        assert_eq!(got_wan.len(), want_wan.len(), "seed {seed} phase {phase}");
        for (i, (g, w)) in got_wan.iter().zip(&want_wan).enumerate() {
            assert_eq!(g, w, "seed {seed} phase {phase}: wan_tx frame {i}");
        }
        rtl_dc_tx.extend(b.take_frames(OutPort::DcTx, usize::MAX));
    }
    // Let every Resume go out.
    b.run(40_000, 0);
    b.run_until_drained(100_000, 64).unwrap();
    rtl_dc_tx.extend(b.take_frames(OutPort::DcTx, usize::MAX));
    m.advance_to(b.cycle());

    let (notes, data): (Vec<_>, Vec<_>) = rtl_dc_tx
        .into_iter()
        .partition(|f| f.data.len() >= 12 && f.data[6..12] == GW_MAC);
    let data: Vec<Frame> = data
        .into_iter()
        .map(|f| Frame {
            data: f.data,
            user: f.user,
        })
        .collect();
    assert_eq!(data, model_forwarded, "seed {seed}: data on dc_tx");
    let want = m.take_notifications();
    assert!(
        want.len() >= 5,
        "seed {seed}: the run should notify several times ({})",
        want.len()
    );
    if notes.len() != want.len() {
        for i in 0..notes.len().max(want.len()) {
            let g = notes
                .get(i)
                .map(|g| (g.start_cycle, g.data.get(54..58).map(|x| x.to_vec())));
            let w = want
                .get(i)
                .map(|w| (w.clock, w.frame.data.get(54..58).map(|x| x.to_vec())));
            eprintln!(
                "{i}: rtl {g:?} model {w:?} same {}",
                notes.get(i).map(|g| &g.data) == want.get(i).map(|w| &w.frame.data)
            );
        }
    }
    assert_eq!(notes.len(), want.len(), "seed {seed}: notification count");
    for (i, (g, w)) in notes.iter().zip(&want).enumerate() {
        assert_eq!(g.data, w.frame.data, "seed {seed}: notification {i}");
        assert!(
            g.start_cycle >= w.clock + 10,
            "seed {seed}: notification {i} left at {} before its decision at {} + 10 (the job FIFO and the builder)",
            g.start_cycle,
            w.clock
        );
    }
    compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    // Independent check of every notification: scapy's RoCE layer (ICRC),
    // IPv4 and ICMPv6 checksums.
    let frames: Vec<Vec<u8>> = notes.iter().map(|n| n.data.clone()).collect();
    let kinds = kinds_seen(&frames);
    if let Some(dissected) = dissect(&frames) {
        for f in &dissected {
            assert_checksums_ok(f);
        }
        let icmp = dissected
            .iter()
            .filter(|f| f.contains_key("icmpv6_chksum_ok"))
            .count();
        let roce = dissected
            .iter()
            .filter(|f| f.contains_key("icrc_ok"))
            .count();
        assert_eq!(
            icmp + roce,
            frames.len(),
            "seed {seed}: scapy saw every notification"
        );
        // Every Long-haul CNP (E bit, or the ICMPv6 format) carries the
        // extension structure, whose checksum scapy recomputed.
        let longhaul = dissected
            .iter()
            .filter(|f| {
                f.contains_key("icmpv6_chksum_ok")
                    || f.get("BTH.resv6")
                        .is_some_and(|v| v.parse::<u8>().unwrap() & 0x20 != 0)
            })
            .count();
        let with_ext = dissected
            .iter()
            .filter(|f| f.get("ext_chksum_ok").map(String::as_str) == Some("True"))
            .count();
        assert_eq!(
            with_ext, longhaul,
            "seed {seed}: extension on every Long-haul CNP"
        );
        // scapy and the packet crate agree on which are Long-haul CNPs (a
        // seed's format table may turn every sender to standard CNPs; the
        // test below asks for every kind over its seeds).
        assert_eq!(
            longhaul,
            kinds[1] + kinds[2],
            "seed {seed}: Long-haul CNPs as scapy sees them"
        );
    }
    let resumes = m.read_register(offset::LH_RESUME_SENT).unwrap();
    let formats: Vec<String> = flows
        .iter()
        .map(|f| format!("{}: {:?}", f.src, m.notify_format(f.src)))
        .collect();
    eprintln!(
        "seed {seed}: {} clocks, {} notifications ({} Resumes), suppressed {}, rate-limited {}, no SQP {}; formats {}",
        b.cycle(),
        want.len(),
        resumes,
        m.read_register(offset::LH_CNP_SUPPRESSED).unwrap(),
        m.read_register(offset::LH_CNP_RATE_LIMITED).unwrap(),
        m.read_register(offset::LH_CNP_NO_SQP).unwrap(),
        formats.join(", "),
    );
    kinds
}

/// How many of `frames` are standard CNPs, Long-haul CNPs in RoCEv2 format
/// and in ICMPv6 format (`LH_ICMPV6_TYPE` at its reset value, 200).
fn kinds_seen(frames: &[Vec<u8>]) -> [usize; 3] {
    let mut kinds = [0; 3];
    for data in frames {
        let f = ParsedFrame::parse(data).expect("a notification parses");
        let kind = if LonghaulRocev2::from_frame(&f).is_ok() {
            1
        } else if LonghaulIcmpv6::from_frame(&f, 200).is_ok() {
            2
        } else {
            Cnp::from_frame(&f).expect("a standard CNP");
            0
        };
        kinds[kind] += 1;
    }
    kinds
}

#[test]
fn lh_05_random_congestion_matches_model() {
    run_seed(1, 0.0, 0.0);
}

#[test]
fn lh_08_random_congestion_matches_model_with_idle_and_backpressure() {
    run_seed(2, 0.3, 0.3);
    run_seed(3, 0.6, 0.6);
}

/// More seeds for the format table: together they send every kind.
#[test]
fn lh_15_random_format_tables_match_model_with_idle_and_backpressure() {
    let mut kinds = [0; 3];
    for (seed, p) in [(4, 0.2), (5, 0.5), (6, 0.0)] {
        let k = run_seed(seed, p, p);
        for i in 0..3 {
            kinds[i] += k[i];
        }
    }
    assert!(kinds.iter().all(|&n| n > 0), "kinds sent: {kinds:?}");
}
