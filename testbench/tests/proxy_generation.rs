//! PX-01, PX-04 through the RTL: the congested gateway tells the sender's
//! proxy. With the queue above K_max, RoCEv2 frames of eight flows of
//! random sizes cross dc_rx with random idle clocks and backpressure; the
//! prefix -> proxy table covers some senders (IPv4 and IPv6 proxies, both
//! families of sender, a proxy outside the domain) and not others. The
//! Long-haul controller's notifications for covered senders leave as CN
//! messages to their proxy (a standard notification for the others), the
//! RTL equals the reference model (`cngw_model::proxy_tx`) frame for frame
//! and counter for counter, and each CN message is read back by the packet
//! crate (its five-tuple and invoking packet against the frame it came
//! from, the size limit) and by scapy (IPv4/IPv6 and UDP checksums).
//! Then a second gateway, the proxy, receives them on wan_rx and sends the
//! right senders' QPs standard CNPs (end to end, PX-02).

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::flow_key::FlowKey;
use cngw_packet::proxy_cn::{FiveTuple, ProxyCnMessage, DEFAULT_UDP_PORT};
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_regmap::{feature, offset, proxy};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, DepthStep, Schedule, ScheduledCapture};
use cngw_testbench::setup::{both, flow_frame, insert_static_flow, mapped, set_domain, words};
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The congested gateway (A).
const A6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1);
const A4: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 1);
const A_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xb, 0x01];
/// The proxies: B's two addresses, and one outside the domain.
const P6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 0x10);
const P4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 10);
const OUTSIDE4: Ipv4Addr = Ipv4Addr::new(203, 0, 113, 5);
const LEVEL: u32 = 5;

/// The table: (prefix, length in IPv6 terms, proxy).
fn table() -> Vec<(IpAddr, u32, IpAddr)> {
    let v4 = |s: &str| IpAddr::V4(s.parse().unwrap());
    let v6 = |s: &str| IpAddr::V6(s.parse().unwrap());
    vec![
        (v4("10.1.0.0"), 96 + 16, IpAddr::V4(P4)),
        (v4("10.1.5.0"), 96 + 24, IpAddr::V6(P6)),
        (v6("fd00:1::"), 32, IpAddr::V6(P6)),
        (v6("fd00:1:0:7::"), 64, IpAddr::V4(P4)),
        (v4("10.3.0.0"), 96 + 16, IpAddr::V4(OUTSIDE4)),
    ]
}

/// The proxy the table gives `sender` (this test's own longest match).
fn proxy_of(sender: IpAddr) -> Option<IpAddr> {
    let a = u128::from(mapped(sender));
    table()
        .into_iter()
        .filter(|(p, len, _)| {
            let mask = u128::MAX << (128 - len);
            a & mask == u128::from(mapped(*p)) & mask
        })
        .max_by_key(|(_, len, _)| *len)
        .map(|(_, _, proxy)| proxy)
}

struct Flow {
    key: FlowKey,
    sender: IpAddr,
    sqp: u32,
    mac: [u8; 6],
}

/// Eight flows: IPv4 and IPv6 senders each way to IPv4 and IPv6 proxies,
/// one whose proxy is outside the domain, two without a proxy.
fn flows() -> Vec<Flow> {
    [
        "10.1.0.7",
        "10.1.2.9",
        "10.1.5.3",
        "fd00:1::5",
        "fd00:1:0:7::9",
        "10.3.0.4",
        "10.2.0.8",
        "fd00:9::1",
    ]
    .iter()
    .enumerate()
    .map(|(i, s)| {
        let sender: IpAddr = s.parse().unwrap();
        let dst = match sender {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::new(10, 200, 0, 1)),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::new(0xfd00, 0x200, 0, 0, 0, 0, 0, 1)),
        };
        Flow {
            key: FlowKey::new(
                mapped(sender).octets(),
                mapped(dst).octets(),
                0x400 + i as u32,
            ),
            sender,
            sqp: 0x9000 + 7 * i as u32,
            mac: [0x02, 0x33, 0, 0, 0, i as u8],
        }
    })
    .collect()
}

fn data_frame(f: &Flow, psn: u32, payload: usize) -> Vec<u8> {
    flow_frame(&f.key)
        .macs(f.mac, [0x02, 0, 0, 0, 0, 0xfe])
        .dest_qp(f.key.dqp)
        .psn(psn)
        .payload_len(payload)
        .build()
}

/// Gateway A: congested-node configuration, the table, the flows;
/// `control` and the generating bucket as given.
fn gateway_a(control: u32, bucket: (u32, u32)) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let a6 = words(u128::from(A6));
    // The domain: fd00:a::/32 and 192.0.2.0/24.
    set_domain(
        &mut gw,
        &mut m,
        0,
        Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 0),
        32,
    );
    set_domain(
        &mut gw,
        &mut m,
        1,
        Ipv4Addr::new(192, 0, 2, 0).to_ipv6_mapped(),
        120,
    );
    for (off, v) in [
        (offset::PORT0_K_MAX_BYTES, 125_000_000),
        (offset::PORT0_K_MIN_BYTES, 62_500_000),
        (offset::PORT0_RTT_EST_US, 20),
        (offset::PORT0_FLOW_INTERVAL_US, 1),
        (offset::LH_BUCKET_REFILL_CLOCKS, 1),
        (offset::LH_BUCKET_DEPTH, 8),
        (offset::LH_SEV0_ACTION, LEVEL << 24),
        (offset::LH_SEV1_THRESHOLD_BYTES, u32::MAX),
        (offset::LH_SEV2_THRESHOLD_BYTES, u32::MAX),
        (offset::GW_IPV6_0, a6[0]),
        (offset::GW_IPV6_1, a6[1]),
        (offset::GW_IPV6_2, a6[2]),
        (offset::GW_IPV6_3, a6[3]),
        (offset::GW_IPV4, u32::from(A4)),
        (offset::GW_MAC_HI, 0x0200),
        (offset::GW_MAC_LO, 0x0000_0b01),
        (offset::NOTIFY_DSCP, 46),
        (offset::PROXY_TX_BUCKET_REFILL_CLOCKS, bucket.0),
        (offset::PROXY_TX_BUCKET_DEPTH, bucket.1),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    for (i, (prefix, len, proxy_addr)) in table().into_iter().enumerate() {
        let p = words(u128::from(mapped(prefix)));
        let a = words(u128::from(mapped(proxy_addr)));
        for w in 0..4 {
            both(
                &mut gw,
                &mut m,
                offset::PROXY_ENTRY_PREFIX_0 + 4 * w as u32,
                p[w],
            );
            both(
                &mut gw,
                &mut m,
                offset::PROXY_ENTRY_ADDR_0 + 4 * w as u32,
                a[w],
            );
        }
        both(
            &mut gw,
            &mut m,
            offset::PROXY_ENTRY_CONTROL,
            proxy::ENTRY_VALID | len << proxy::ENTRY_LEN_SHIFT,
        );
        both(&mut gw, &mut m, offset::PROXY_ENTRY_INDEX, i as u32);
        both(&mut gw, &mut m, offset::PROXY_ENTRY_COMMAND, proxy::COMMIT);
    }
    for f in &flows() {
        insert_static_flow(&mut gw, &mut m, &f.key, f.sqp);
    }
    both(&mut gw, &mut m, offset::PROXY_CONTROL, control);
    both(
        &mut gw,
        &mut m,
        offset::FEATURE_ENABLE,
        feature::LH_CNP | feature::PROXY_CN,
    );
    (gw, m)
}

/// Frames from A's dc_tx that are CN messages.
fn cn_messages(run: &ScheduledCapture) -> Vec<Vec<u8>> {
    run.capture
        .outputs
        .get(&OutPort::DcTx)
        .map(|o| o.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|f| {
            cngw_packet::Frame::parse(&f.data)
                .ok()
                .and_then(|p| ProxyCnMessage::from_frame(&p, DEFAULT_UDP_PORT).ok())
                .is_some()
        })
        .map(|f| f.data.clone())
        .collect()
}

/// dc_rx frames `dc` with the queue above K_max from the first clock.
fn congested(dc: Vec<(u64, Frame)>) -> Schedule {
    Schedule {
        inputs: vec![(InPort::DcRx, dc)],
        depth_steps: vec![DepthStep {
            cycle: 0,
            bytes: 150_000_000,
        }],
        end_cycle: None,
    }
}

/// Random traffic of the eight flows while the queue is congested.
fn traffic(rng: &mut StdRng, n: usize, gap: u64) -> (Schedule, Vec<Vec<u8>>) {
    let fl = flows();
    let mut dc = Vec::new();
    let mut sent = Vec::new();
    let mut t = 0;
    for i in 0..n {
        let f = &fl[rng.gen_range(0..fl.len())];
        let payload = match rng.gen_range(0..4) {
            0 => rng.gen_range(0..64),
            1 => rng.gen_range(400..600),
            2 => rng.gen_range(1100..1300),
            _ => rng.gen_range(0..1500),
        };
        let d = data_frame(f, i as u32, payload);
        sent.push(d.clone());
        dc.push((t, Frame::new(d)));
        t += rng.gen_range(0..=gap);
    }
    let schedule = congested(dc);
    (schedule, sent)
}

/// Checks one CN message of A against the data frames sent: the packet
/// crate reads it; it goes to the sender's proxy from A's address of the
/// proxy's family; its five-tuple is its invoking frame's and its invoking
/// packet that frame's IP packet, cut to the draft's limit exactly.
fn check_message(bytes: &[u8], sent: &[Vec<u8>]) -> IpAddr {
    let frame = cngw_packet::Frame::parse(bytes).expect("a CN message parses");
    let msg = ProxyCnMessage::from_frame(&frame, DEFAULT_UDP_PORT).unwrap();
    let origin = sent
        .iter()
        .find(|d| d[14..].starts_with(&msg.invoking_packet) && msg.invoking_packet.len() >= 40)
        .expect("the invoking packet is one of the frames sent");
    let parsed_origin = cngw_packet::Frame::parse(origin).unwrap();
    assert_eq!(msg.five_tuple, FiveTuple::of_frame(&parsed_origin));
    assert_eq!(msg.level as u32, LEVEL);
    let sender = match msg.five_tuple.addrs {
        cngw_packet::envelope::IpPair::V4 { src, .. } => IpAddr::V4(src),
        cngw_packet::envelope::IpPair::V6 { src, .. } => IpAddr::V6(src),
    };
    let proxy_addr = proxy_of(sender).expect("only covered senders");
    assert_eq!(frame.ip.header.dst(), proxy_addr);
    let (src, limit, ip_hdr) = match proxy_addr {
        IpAddr::V4(_) => (IpAddr::V4(A4), 576, 20),
        IpAddr::V6(_) => (IpAddr::V6(A6), 1280, 40),
    };
    assert_eq!(frame.ip.header.src(), src);
    let room = limit - ip_hdr - 8 - msg.header_len();
    assert_eq!(msg.invoking_packet.len(), (origin.len() - 14).min(room));
    assert_eq!(&bytes[0..6], &origin[6..12], "to the previous hop");
    assert_eq!(&bytes[6..12], &A_MAC);
    sender
}

/// PX-01/PX-04: CN messages from the congested gateway, RTL against model
/// on random traffic (three seeds, the third with a generating bucket and
/// frames close together so messages are lost to the bucket and to the
/// busy generator), every message checked; then the proxy gateway turns
/// them into CNPs to the right QPs.
#[test]
fn px_01_a_congested_gateway_tells_the_senders_proxy() {
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let bucket = if seed == 3 { (300, 2) } else { (0, 8) };
        let (mut gw, mut m) = gateway_a(proxy::GENERATE | proxy::FILTER, bucket);
        let gap = if seed == 3 { 20 } else { 90 };
        let (schedule, sent) = traffic(&mut rng, 300, gap);
        let opts = StreamOptions::random(0.2, 0.25, seed);
        let run = check_scheduled(&mut gw, &mut m, &schedule, opts)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        eprintln!(
            "seed {seed}: {} CN messages, {} out of domain, {} busy, {} rate-limited, {} direct notifications",
            reg(offset::PROXY_TX_SENT),
            reg(offset::PROXY_TX_OUT_OF_DOMAIN),
            reg(offset::PROXY_TX_BUSY),
            reg(offset::PROXY_TX_RATE_LIMITED),
            reg(offset::LH_CNP_SENT),
        );
        let msgs = cn_messages(&run);
        assert_eq!(msgs.len() as u32, reg(offset::PROXY_TX_SENT));
        let least = if seed == 3 { 10 } else { 40 };
        assert!(msgs.len() >= least, "seed {seed}: {}", msgs.len());
        assert!(reg(offset::PROXY_TX_OUT_OF_DOMAIN) > 0, "10.3.0.4's proxy");
        assert!(reg(offset::LH_CNP_SENT) > 0, "senders without a proxy");
        assert_eq!(reg(offset::PROXY_TX_QUEUE_DROPS), 0);
        if seed == 3 {
            assert!(reg(offset::PROXY_TX_BUSY) > 0);
            assert!(reg(offset::PROXY_TX_RATE_LIMITED) > 0);
        }
        let mut senders = std::collections::BTreeSet::new();
        for msg in &msgs {
            senders.insert(check_message(msg, &sent));
        }
        assert!(senders.len() >= 4, "{senders:?}");
        if let Some(dissected) = dissect(&msgs) {
            for f in &dissected {
                assert_checksums_ok(f);
                assert_eq!(get(f, "udp_chksum_ok"), "True");
                assert_eq!(get(f, "UDP.sport"), DEFAULT_UDP_PORT.to_string());
                assert_eq!(get(f, "UDP.dport"), DEFAULT_UDP_PORT.to_string());
                if f.contains_key("IPv6.dst") {
                    assert_eq!(get(f, "IPv6.tc"), (46 << 2).to_string());
                    assert_eq!(get(f, "IPv6.hlim"), "64");
                } else {
                    assert_eq!(get(f, "IP.tos"), (46 << 2).to_string());
                    assert_eq!(get(f, "IP.ttl"), "64");
                    assert_eq!(get(f, "IP.flags"), "DF");
                }
            }
        }
        if seed == 1 {
            proxy_b_answers(&msgs);
        }
    }
}

/// PX-01 with LH-09's bucket: a notification handed to the CN generator
/// takes the Long-haul bucket's token as one sent directly (the decision is
/// the controller's, docs/decisions.md). Two tokens, no refill to speak of:
/// a covered sender (CN message), an uncovered one (direct CNP), and every
/// later decision is rate-limited. (The RTL once let the CN message go
/// without a token; the soak found it.)
#[test]
fn px_01_cn_messages_take_the_long_haul_buckets_tokens() {
    let (mut gw, mut m) = gateway_a(proxy::GENERATE | proxy::FILTER, (0, 8));
    for (off, v) in [
        (offset::LH_BUCKET_REFILL_CLOCKS, 10_000_000),
        (offset::LH_BUCKET_DEPTH, 2),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    let fl = flows();
    // 10.1.0.7 (proxy P4), 10.2.0.8 and fd00:9::1 (no proxy), 10.1.5.3
    // (proxy P6), each twice, 2 us apart (the flow interval is 1 us).
    let order = [0usize, 6, 7, 2, 0, 6, 7, 2];
    let dc = order
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            (
                700 * i as u64,
                Frame::new(data_frame(&fl[f], i as u32, 200)),
            )
        })
        .collect();
    let schedule = congested(dc);
    let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
        .unwrap_or_else(|e| panic!("{e}"));
    for (name, off, want) in [
        ("CN messages", offset::PROXY_TX_SENT, 1),
        ("direct notifications", offset::LH_CNP_SENT, 1),
        ("rate-limited", offset::LH_CNP_RATE_LIMITED, 6),
    ] {
        assert_eq!(gw.csr_read(off).unwrap(), want, "RTL {name}");
        assert_eq!(m.read_register(off), Some(want), "model {name}");
    }
    assert_eq!(cn_messages(&run).len(), 1);
}

/// PX-04: generation is off after reset and without `generate`: the same
/// table and congestion give the senders their usual notifications.
#[test]
fn px_04_no_cn_messages_unless_generation_is_on() {
    let mut rng = StdRng::seed_from_u64(9);
    let (mut gw, mut m) = gateway_a(proxy::FILTER, (0, 8));
    let (schedule, _) = traffic(&mut rng, 100, 90);
    let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(cn_messages(&run).is_empty());
    assert_eq!(m.read_register(offset::PROXY_TX_SENT), Some(0));
    assert!(m.read_register(offset::LH_CNP_SENT).unwrap() > 8);
}

/// PX-01 -> PX-02 end to end: gateway B holds the proxies' addresses and
/// the flows (learned source QPs); A's CN messages arrive on its wan_rx
/// and each becomes a standard CNP to its flow's sender with DestQP = the
/// sender's QP (RTL against model, scapy on every CNP).
fn proxy_b_answers(msgs: &[Vec<u8>]) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let p6 = words(u128::from(P6));
    // B's domain: A's addresses (fd00:b::/32, 198.51.100.0/24).
    set_domain(
        &mut gw,
        &mut m,
        0,
        Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 0),
        32,
    );
    set_domain(
        &mut gw,
        &mut m,
        1,
        Ipv4Addr::new(198, 51, 100, 0).to_ipv6_mapped(),
        120,
    );
    for (off, v) in [
        (offset::GW_IPV6_0, p6[0]),
        (offset::GW_IPV6_1, p6[1]),
        (offset::GW_IPV6_2, p6[2]),
        (offset::GW_IPV6_3, p6[3]),
        (offset::GW_IPV4, u32::from(P4)),
        (offset::GW_MAC_HI, 0x0200),
        (offset::GW_MAC_LO, 0x0000_0a01),
        (offset::FCN_CNP_MAC_HI, 0x0200),
        (offset::FCN_CNP_MAC_LO, 0x0000_0dc0),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    let fl = flows();
    for f in &fl {
        insert_static_flow(&mut gw, &mut m, &f.key, f.sqp);
    }
    both(
        &mut gw,
        &mut m,
        offset::PROXY_CONTROL,
        proxy::ENABLE | proxy::FILTER,
    );
    both(&mut gw, &mut m, offset::FEATURE_ENABLE, feature::PROXY_CN);
    let wan = msgs
        .iter()
        .enumerate()
        .map(|(i, f)| (100 * i as u64, Frame::new(f.clone())))
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::WanRx, wan)],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    let run = check_scheduled(
        &mut gw,
        &mut m,
        &schedule,
        StreamOptions::random(0.1, 0.2, 5),
    )
    .unwrap_or_else(|e| panic!("proxy B: {e}"));
    let reg = |o| m.read_register(o).unwrap();
    assert_eq!(reg(offset::PROXY_RX_RECEIVED), msgs.len() as u32);
    assert_eq!(
        reg(offset::PROXY_RX_CNP_SENT),
        msgs.len() as u32,
        "one CNP per message"
    );
    let cnps: Vec<Vec<u8>> = run
        .capture
        .outputs
        .get(&OutPort::DcTx)
        .map(|o| o.iter().map(|f| f.data.clone()).collect())
        .unwrap_or_default();
    assert_eq!(cnps.len(), msgs.len());
    let Some(dissected) = dissect(&cnps) else {
        return;
    };
    for (f, msg) in dissected.iter().zip(msgs) {
        assert_checksums_ok(f);
        assert_eq!(get(f, "icrc_ok"), "True");
        assert_eq!(get(f, "BTH.opcode"), "129");
        let dqp: u32 = get(f, "BTH.dqpn").parse().unwrap();
        let dst: IpAddr = if f.contains_key("IPv6.dst") {
            get(f, "IPv6.dst").parse().unwrap()
        } else {
            get(f, "IP.dst").parse().unwrap()
        };
        let parsed = cngw_packet::Frame::parse(msg).unwrap();
        let cn = ProxyCnMessage::from_frame(&parsed, DEFAULT_UDP_PORT).unwrap();
        let flow = fl
            .iter()
            .find(|x| x.sender == dst)
            .expect("a CNP to a flow's sender");
        assert_eq!(dqp, flow.sqp, "the sender's QP");
        let named = match cn.five_tuple.addrs {
            cngw_packet::envelope::IpPair::V4 { src, .. } => IpAddr::V4(src),
            cngw_packet::envelope::IpPair::V6 { src, .. } => IpAddr::V6(src),
        };
        assert_eq!(named, dst, "the sender the message names");
    }
}
