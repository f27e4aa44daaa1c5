//! PX-02, PX-04: a proxy gateway turns CN messages from congested nodes
//! into standard CNPs to the senders in the RTL. Flows are in the flow
//! table (most with a source QP from the host); CN messages of every kind
//! (IPv4 and IPv6 outer headers, invoking packets plain or inside the WAN
//! tunnel's VXLAN or SRv6, from inside and outside the domain, naming no
//! RoCEv2 flow, contradicting themselves, cut before the BTH, malformed,
//! naming unknown flows or flows without a source QP) arrive on wan_rx
//! while dc_rx traffic keeps the flow table busy, with random idle clocks
//! and backpressure. The RTL equals the reference model
//! (`cngw_model::proxy_rx`) frame for frame and counter for counter; scapy
//! checks every CNP, which goes to the sender of the flow with DestQP = its
//! source QP.

use cngw_model::longhaul::Registers;
use cngw_model::tunnel_encap::{encapsulate_frame, EncapConfig, EncapFate};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::envelope::Envelope;
use cngw_packet::flow_key::FlowKey;
use cngw_packet::proxy_cn::{FiveTuple, ProxyCnMessage, DEFAULT_UDP_PORT};
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_regmap::{feature, offset, proxy, tunnel_control};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, Schedule, ScheduledCapture};
use cngw_testbench::setup::{both, insert_static_flow, set_domain, words};
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The proxy's addresses.
const GW6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1);
const GW4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
const GW_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xa, 0x01];
/// The data-centre next hop the CNPs go to.
const NEXT_HOP: [u8; 6] = [0x02, 0, 0, 0, 0xd, 0xc0];
/// Congested nodes inside the domain (fd00:c::/32, 198.51.100.0/24) and
/// outside it.
const NODE6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 7);
const NODE4: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 7);
const OUTSIDER6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xe, 2, 0, 0, 0, 0, 9);
const OUTSIDER4: Ipv4Addr = Ipv4Addr::new(203, 0, 113, 9);

/// A gateway and a model as a proxy with border filtering on and the
/// receive bucket `bucket` (refill clocks, 0 for none; depth); `control`
/// and `features` written last.
fn setup(bucket: (u32, u32), control: u32, features: u32) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let g = words(GW6.into());
    // The domain: fd00:c::/32 and ::ffff:198.51.100.0/120.
    set_domain(
        &mut gw,
        &mut m,
        0,
        Ipv6Addr::new(0xfd00, 0xc, 0, 0, 0, 0, 0, 0),
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
        (offset::GW_IPV6_0, g[0]),
        (offset::GW_IPV6_1, g[1]),
        (offset::GW_IPV6_2, g[2]),
        (offset::GW_IPV6_3, g[3]),
        (offset::GW_IPV4, u32::from(GW4)),
        (offset::GW_MAC_HI, 0x0200),
        (offset::GW_MAC_LO, 0x0000_0a01),
        (offset::FCN_CNP_MAC_HI, 0x0200),
        (offset::FCN_CNP_MAC_LO, 0x0000_0dc0),
        (offset::NOTIFY_DSCP, 48),
        (offset::PROXY_RX_BUCKET_REFILL_CLOCKS, bucket.0),
        (offset::PROXY_RX_BUCKET_DEPTH, bucket.1),
        (offset::PROXY_CONTROL, control),
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
            let q = 0x300 + i as u32;
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

fn data_frame(key: &FlowKey, psn: u32, len: usize) -> Vec<u8> {
    cngw_testbench::setup::flow_frame(key)
        .dest_qp(key.dqp)
        .psn(psn)
        .payload_len(len)
        .build()
}

/// Every key goes through dc_rx; keys `i % 4 != 3` then get source QP
/// `0x7000 + i` from the host (static entries).
fn learn_flows(gw: &mut Gateway, m: &mut GatewayModel, keys: &[FlowKey]) {
    let dc = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (0, Frame::new(data_frame(k, i as u32, 64))))
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, dc)],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    check_scheduled(gw, m, &schedule, StreamOptions::line_rate()).unwrap_or_else(|e| panic!("{e}"));
    for (i, k) in keys.iter().enumerate().filter(|(i, _)| i % 4 != 3) {
        insert_static_flow(gw, m, k, 0x7000 + i as u32);
    }
}

/// Registers for the WAN tunnel the invoking packets were seen in.
struct Tunnel(BTreeMap<u32, u32>);

impl Registers for Tunnel {
    fn reg(&self, offset: u32) -> u32 {
        self.0.get(&offset).copied().unwrap_or(0)
    }
}

/// `frame` as the WAN saw it inside a VXLAN or SRv6 tunnel.
fn tunnelled(frame: &[u8], srv6: bool) -> Vec<u8> {
    let mut r = BTreeMap::new();
    let c = tunnel_control::INGRESS_PE | if srv6 { tunnel_control::SRV6 } else { 0 };
    r.insert(offset::TUNNEL_CONTROL, c);
    r.insert(offset::TUNNEL_WAN_MTU, 9000);
    r.insert(offset::TUNNEL_HOP_LIMIT, 64);
    for (i, w) in [0xfd00_000b, 0, 0, 1].into_iter().enumerate() {
        r.insert(offset::TUNNEL_REMOTE_0 + 4 * i as u32, w);
        r.insert(offset::TUNNEL_SID0_0 + 4 * i as u32, w);
    }
    let cfg = EncapConfig::of_registers(&Tunnel(r));
    match encapsulate_frame(frame, false, 5, &cfg).fate {
        EncapFate::Sent { bytes, .. } => bytes,
        f => panic!("{f:?}"),
    }
}

/// What a CN message of the run was made to test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Good,
    Vxlan,
    Srv6,
    OutOfDomain,
    NotRoce,
    Mismatch,
    NoBth,
    Malformed,
    UnknownFlow,
    /// Addressed to another gateway: forwarded to dc_tx like any frame.
    OtherGateway,
}

const KINDS: [(Kind, u32); 10] = [
    (Kind::Good, 8),
    (Kind::Vxlan, 2),
    (Kind::Srv6, 2),
    (Kind::OutOfDomain, 1),
    (Kind::NotRoce, 1),
    (Kind::Mismatch, 1),
    (Kind::NoBth, 1),
    (Kind::Malformed, 1),
    (Kind::UnknownFlow, 1),
    (Kind::OtherGateway, 1),
];

/// A CN message about `key`'s data frame from `node` (IPv4 or IPv6).
fn cn_message(key: &FlowKey, kind: Kind, v4: bool, level: u8, rng: &mut StdRng) -> Vec<u8> {
    let mut key = *key;
    if kind == Kind::UnknownFlow {
        key.dqp ^= 0x80_0000;
    }
    let data = data_frame(&key, 1, rng.gen_range(16..600));
    let five_tuple = FiveTuple::of_frame(&cngw_packet::Frame::parse(&data).unwrap());
    let seen = match kind {
        Kind::Vxlan => tunnelled(&data, false),
        Kind::Srv6 => tunnelled(&data, true),
        _ => data,
    };
    let mut msg = ProxyCnMessage {
        five_tuple,
        level,
        invoking_packet: seen[14..].to_vec(),
    };
    match kind {
        Kind::NotRoce => msg.five_tuple.protocol = 6,
        Kind::NoBth => msg.invoking_packet.truncate(rng.gen_range(0..30)),
        _ => {}
    }
    if kind == Kind::Mismatch {
        // The invoking packet's source differs from the five-tuple's.
        let l = msg.invoking_packet.len();
        let at = if msg.invoking_packet[0] >> 4 == 4 {
            15
        } else {
            23
        };
        if at < l {
            msg.invoking_packet[at] ^= 1;
        }
    }
    let outside = kind == Kind::OutOfDomain;
    let env = match (v4, outside) {
        (true, false) => Envelope::ipv4(NODE4, GW4),
        (true, true) => Envelope::ipv4(OUTSIDER4, GW4),
        (false, false) => Envelope::ipv6(NODE6, GW6),
        (false, true) => Envelope::ipv6(OUTSIDER6, GW6),
    }
    .with_macs([0x02, 0, 0, 0, 0xc, 7], GW_MAC);
    let mut f = msg.to_frame(&env, 40_000, DEFAULT_UDP_PORT).to_bytes();
    let cn = if v4 { 14 + 20 + 8 } else { 14 + 40 + 8 };
    match kind {
        Kind::Malformed => f[cn] = 0x24, // version 2
        Kind::OtherGateway => {
            let at = if v4 { 14 + 19 } else { 14 + 39 };
            f[at] ^= 1;
        }
        _ => {}
    }
    f
}

fn pick(rng: &mut StdRng) -> Kind {
    let total: u32 = KINDS.iter().map(|k| k.1).sum();
    let mut p = rng.gen_range(0..total);
    for (k, w) in KINDS {
        if p < w {
            return k;
        }
        p -= w;
    }
    unreachable!()
}

/// The standard CNPs the proxy sent (its MAC to the next hop's).
fn cnps(run: &ScheduledCapture) -> Vec<Vec<u8>> {
    run.capture
        .outputs
        .get(&OutPort::DcTx)
        .map(|o| o.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|f| f.data.get(0..6) == Some(&NEXT_HOP) && f.data.get(6..12) == Some(&GW_MAC))
        .map(|f| f.data.clone())
        .collect()
}

/// PX-02/PX-04: CN messages of every kind, 100 clocks apart, between
/// dc_rx traffic, with random idle and backpressure (three seeds). RTL and
/// model agree on every frame and counter; each kind is counted where it
/// belongs; scapy accepts every CNP, which goes to a flow's sender with
/// its source QP.
#[test]
fn px_02_a_proxy_turns_cn_messages_into_cnps_to_the_senders_qp() {
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let (mut gw, mut m) = setup((0, 8), proxy::ENABLE | proxy::FILTER, feature::PROXY_CN);
        let keys = flow_keys(&mut rng, 16);
        learn_flows(&mut gw, &mut m, &keys);
        let mut wan = Vec::new();
        let mut dc = Vec::new();
        let mut kinds = Vec::new();
        for i in 0..60u64 {
            let kind = pick(&mut rng);
            let key = keys[rng.gen_range(0..keys.len())];
            let v4 = rng.gen_bool(0.5);
            let level = rng.gen_range(0..8);
            kinds.push((kind, key));
            wan.push((
                i * 100,
                Frame::new(cn_message(&key, kind, v4, level, &mut rng)),
            ));
            if rng.gen_bool(0.5) {
                let k = keys[rng.gen_range(0..keys.len())];
                dc.push((i * 100, Frame::new(data_frame(&k, i as u32, 200))));
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
        let count = |k: Kind| kinds.iter().filter(|x| x.0 == k).count() as u32;
        let no_sqp = kinds
            .iter()
            .filter(|(k, key)| {
                matches!(k, Kind::Good | Kind::Vxlan | Kind::Srv6)
                    && keys.iter().position(|x| x == key).unwrap() % 4 == 3
            })
            .count() as u32;
        eprintln!(
            "seed {seed}: {} CN messages received, {} CNPs, {} without SQP, {} busy",
            reg(offset::PROXY_RX_RECEIVED),
            reg(offset::PROXY_RX_CNP_SENT),
            reg(offset::PROXY_RX_NO_SQP),
            reg(offset::PROXY_RX_BUSY),
        );
        assert_eq!(reg(offset::PROXY_RX_BUSY), 0, "100 clocks apart");
        assert_eq!(reg(offset::PROXY_RX_QUEUE_DROPS), 0);
        assert_eq!(
            reg(offset::PROXY_RX_RECEIVED),
            kinds.len() as u32 - count(Kind::OtherGateway)
        );
        assert_eq!(
            reg(offset::PROXY_RX_OUT_OF_DOMAIN),
            count(Kind::OutOfDomain)
        );
        assert_eq!(reg(offset::PROXY_RX_NOT_ROCE), count(Kind::NotRoce));
        assert_eq!(reg(offset::PROXY_RX_MISMATCH), count(Kind::Mismatch));
        assert_eq!(reg(offset::PROXY_RX_NO_BTH), count(Kind::NoBth));
        assert_eq!(reg(offset::PROXY_RX_MALFORMED), count(Kind::Malformed));
        assert_eq!(reg(offset::PROXY_RX_UNKNOWN_FLOW), count(Kind::UnknownFlow));
        assert_eq!(reg(offset::PROXY_RX_NO_SQP), no_sqp);
        let good = count(Kind::Good) + count(Kind::Vxlan) + count(Kind::Srv6);
        let sent = reg(offset::PROXY_RX_CNP_SENT);
        assert_eq!(sent, good - no_sqp);
        assert!(sent > 20, "seed {seed}: {sent}");
        let frames = cnps(&run);
        assert_eq!(frames.len(), sent as usize);
        let senders: Vec<(IpAddr, u32)> = keys
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 4 != 3)
            .map(|(i, k)| {
                let s = Ipv6Addr::from(k.sip);
                let ip = s.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(s));
                (ip, 0x7000 + i as u32)
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
            assert_eq!(get(f, "Ether.dst"), "02:00:00:00:0d:c0");
            let dqp: u32 = get(f, "BTH.dqpn").parse().unwrap();
            let dst: IpAddr = if !f.contains_key("IPv6.dst") {
                assert_eq!(get(f, "IP.src"), GW4.to_string());
                get(f, "IP.dst").parse().unwrap()
            } else {
                assert_eq!(get(f, "IPv6.src"), GW6.to_string());
                get(f, "IPv6.dst").parse().unwrap()
            };
            assert!(senders.contains(&(dst, dqp)), "{dst} {dqp:#x}");
        }
    }
}

/// PX-02/PX-04: CN messages back to back: the walker takes one per 32
/// clocks and counts the others as busy, the receive bucket limits what is
/// left, and the model agrees clock for clock; every message is accounted
/// for once and the proxy keeps working.
#[test]
fn px_04_a_flood_of_cn_messages_is_limited_and_counted() {
    for (refill, depth) in [(0, 8), (700, 2)] {
        let (mut gw, mut m) = setup((refill, depth), proxy::ENABLE, feature::PROXY_CN);
        let mut rng = StdRng::seed_from_u64(11);
        let keys = flow_keys(&mut rng, 4);
        learn_flows(&mut gw, &mut m, &keys);
        let wan: Vec<(u64, Frame)> = (0..300)
            .map(|i| {
                let f = cn_message(&keys[0], Kind::Good, i % 2 == 0, 7, &mut rng);
                (0, Frame::new(f))
            })
            .collect();
        let schedule = Schedule {
            inputs: vec![(InPort::WanRx, wan)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let opts = StreamOptions::random(0.1, 0.3, refill as u64);
        let run = check_scheduled(&mut gw, &mut m, &schedule, opts)
            .unwrap_or_else(|e| panic!("refill {refill}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        let (busy, limited, sent) = (
            reg(offset::PROXY_RX_BUSY),
            reg(offset::PROXY_RX_RATE_LIMITED),
            reg(offset::PROXY_RX_CNP_SENT),
        );
        eprintln!(
            "refill {refill}: 300 CN messages: {sent} CNPs, {busy} busy, {limited} rate-limited"
        );
        assert_eq!(reg(offset::PROXY_RX_RECEIVED), 300);
        assert!(busy > 0);
        assert_eq!(busy + limited + sent, 300);
        assert_eq!(cnps(&run).len() as u32, sent);
        if refill == 0 {
            assert_eq!(limited, 0);
        } else {
            assert!(limited > 0);
        }
    }
}

/// PX-04: after reset, and with only one of `FEATURE_ENABLE.proxy_cn` and
/// `PROXY_CONTROL.enable`, a CN message to the gateway is an ordinary
/// frame: forwarded to dc_tx, nothing counted, no CNP.
#[test]
fn px_04_cn_messages_pass_unless_the_proxy_is_on() {
    for (control, features) in [(0, 0), (proxy::ENABLE, 0), (0, feature::PROXY_CN)] {
        let (mut gw, mut m) = setup((0, 8), control, features);
        let mut rng = StdRng::seed_from_u64(9);
        let keys = flow_keys(&mut rng, 4);
        learn_flows(&mut gw, &mut m, &keys);
        let wan = (0..10)
            .map(|i| {
                (
                    0,
                    Frame::new(cn_message(&keys[0], Kind::Good, i % 2 == 0, 3, &mut rng)),
                )
            })
            .collect();
        let schedule = Schedule {
            inputs: vec![(InPort::WanRx, wan)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.capture.outputs[&OutPort::DcTx].len(), 10);
        assert_eq!(m.read_register(offset::PROXY_RX_RECEIVED), Some(0));
        assert_eq!(m.read_register(offset::PROXY_RX_CNP_SENT), Some(0));
    }
}

/// PX-02 with LH-15: the proxy sends a Long-haul CNP where the format
/// table says the sender takes one (RoCEv2 format for 10.1.0.0/16, ICMPv6
/// format for fd00:1::/32, a standard CNP for the one IPv4 sender a longer
/// entry sends back to it), carrying the CN message's level,
/// `LH_SEV0_ACTION`'s action and parameter, the sender's QP, no metric,
/// and the extension objects with the time of day of its decision. RTL
/// against model with random idle and backpressure; the packet crate reads
/// every notification and scapy checks its ICRC and checksums.
#[test]
fn px_02_the_format_table_gives_capable_senders_a_long_haul_cnp() {
    use cngw_packet::cnp::Cnp;
    use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
    use cngw_packet::longhaul_rocev2::LonghaulRocev2;
    use cngw_regmap::{ext_control, format_control, tod_control};
    let (mut gw, mut m) = setup((0, 8), proxy::ENABLE | proxy::FILTER, feature::PROXY_CN);
    let mut rng = StdRng::seed_from_u64(21);
    let keys = flow_keys(&mut rng, 9);
    learn_flows(&mut gw, &mut m, &keys);
    let first = Ipv6Addr::from(keys[0].sip);
    let entries: [(Ipv6Addr, u32, u32); 3] = [
        (Ipv4Addr::new(10, 1, 0, 0).to_ipv6_mapped(), 96 + 16, 1),
        (Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, 0), 32, 2),
        (first, 128, 0),
    ];
    for (i, (prefix, len, format)) in entries.into_iter().enumerate() {
        let base = format_control::STRIDE * i as u32;
        for (w, word) in words(prefix.into()).into_iter().enumerate() {
            both(
                &mut gw,
                &mut m,
                offset::LH_FORMAT0_PREFIX_0 + base + 4 * w as u32,
                word,
            );
        }
        both(
            &mut gw,
            &mut m,
            offset::LH_FORMAT0_CONTROL + base,
            format_control::VALID
                | format << format_control::FORMAT_LSB
                | len << format_control::PREFIX_LEN_LSB,
        );
    }
    let action = 0x4000_0000 | 2 << 22 | 0x1234;
    for (off, v) in [
        (offset::LH_SEV0_ACTION, action),
        (
            offset::LH_EXT_CONTROL,
            ext_control::TIMESTAMP
                | ext_control::DEVICE_ID
                | 200 << ext_control::CLASS_NUM_LSB
                | 4 << ext_control::DEVICE_ID_LEN_LSB,
        ),
        (offset::LH_EXT_DEVICE_ID_0, 0x0a0b_0c0d),
        (offset::LH_TOD_INCREMENT, 0x3000_0000),
        (offset::LH_TOD_BASE_SECONDS, 0xE000_0000),
        (offset::LH_TOD_BASE_FRACTION, 0x1234_5678),
        (offset::LH_TOD_CONTROL, tod_control::SET),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    gw.run(20);
    let mut sent = Vec::new();
    let wan = (0..40u64)
        .map(|i| {
            let key = keys[rng.gen_range(0..keys.len())];
            let level = rng.gen_range(0..8u8);
            sent.push((key, level));
            (
                i * 100,
                Frame::new(cn_message(
                    &key,
                    Kind::Good,
                    rng.gen_bool(0.5),
                    level,
                    &mut rng,
                )),
            )
        })
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
        StreamOptions::random(0.2, 0.3, 21),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<_> = sent
        .iter()
        .filter(|(k, _)| keys.iter().position(|x| x == k).unwrap() % 4 != 3)
        .collect();
    let frames = cnps(&run);
    assert_eq!(frames.len(), expected.len());
    let mut kinds = [0usize; 3];
    for (f, (key, level)) in frames.iter().zip(&expected) {
        let i = keys.iter().position(|x| x == key).unwrap();
        let sqp = 0x7000 + i as u32;
        let sender = Ipv6Addr::from(key.sip);
        let parsed = cngw_packet::Frame::parse(f).unwrap();
        let body = if let Ok(lh) = LonghaulRocev2::from_frame(&parsed) {
            assert!(sender.to_ipv4_mapped().is_some() && i != 0, "{sender}");
            kinds[1] += 1;
            lh.cnp
        } else if let Ok(lh) = LonghaulIcmpv6::from_frame(&parsed, 200) {
            assert!(sender.to_ipv4_mapped().is_none(), "{sender}");
            kinds[2] += 1;
            lh.cnp
        } else {
            let cnp = Cnp::from_frame(&parsed).expect("a standard CNP");
            assert_eq!(i, 0, "only the sender the /128 entry names");
            assert_eq!(cnp.dest_qp, sqp);
            kinds[0] += 1;
            continue;
        };
        assert_eq!(body.body.congestion_level, *level);
        assert_eq!(body.body.source_qp, sqp);
        assert_eq!(body.body.parameter, 0x1234);
        assert_eq!(body.body.metric_type, 0);
        assert!(body.extension.is_some());
    }
    assert!(kinds.iter().all(|&n| n > 0), "{kinds:?}");
    if let Some(dissected) = dissect(&frames) {
        for f in &dissected {
            assert_checksums_ok(f);
        }
    }
}
