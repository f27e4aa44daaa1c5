//! FCN-01, FCN-02, PE-01: the ingress PE's encapsulation in the gateway.
//! RoCEv2 flows (IPv4 and IPv6, tagged and not, every ECN), frames with
//! Ethernet trailers, frames longer than the ingress queue holds, frames
//! over the WAN MTU and random traffic (other protocols, broken frames) go
//! from dc_rx into a VXLAN tunnel, an SRv6 tunnel of one SID and one of two
//! SIDs in RFC 6040 compatibility mode (WAN MTUs 16000, 4000 and 9000),
//! with random idle clocks and
//! backpressure. The RTL equals the reference model frame for frame and
//! counter for counter; every RoCEv2 flow's frames carry one outer flow
//! label, its own, which names the flow's place in the RTL's flow table
//! (read back through the driver); scapy checks every frame that leaves
//! (outer and inner checksums, the inner ICRC, the outer flow label,
//! traffic class and addresses). Roles off, the frames leave unchanged.

use cngw_driver::flows::Location as DriverLocation;
use cngw_driver::{Device, SimBus};
use cngw_model::placement::Location;
use cngw_model::tunnel_ecn::{encapsulate, EncapMode};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::flow_key::FlowKey;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{offset, tunnel_control};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, Schedule};
use cngw_testbench::traffic::random_mix;
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, Ipv6Addr};

const PE: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1);
const REMOTE: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1);
const SID0: Ipv6Addr = Ipv6Addr::new(0xfc00, 0x2, 0, 0, 0, 0, 0, 0x100);
const SID1: Ipv6Addr = Ipv6Addr::new(0xfc00, 0x3, 0, 0, 0, 0, 0, 0x200);
const PE_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xa, 0x01];
const NEXT_HOP: [u8; 6] = [0x02, 0, 0, 0, 0xe, 0x01];

fn words(a: Ipv6Addr) -> [u32; 4] {
    let o = a.octets();
    std::array::from_fn(|i| u32::from_be_bytes(o[4 * i..4 * i + 4].try_into().unwrap()))
}

fn both(gw: &mut Gateway, m: &mut GatewayModel, off: u32, v: u32) {
    gw.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

/// A gateway and model with this PE's addresses and a tunnel: `control`
/// its `TUNNEL_CONTROL`, `mtu` the WAN MTU.
fn setup(control: u32, mtu: u32) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let mut regs = vec![
        (
            offset::GW_MAC_HI,
            u16::from_be_bytes([PE_MAC[0], PE_MAC[1]]) as u32,
        ),
        (
            offset::GW_MAC_LO,
            u32::from_be_bytes(PE_MAC[2..].try_into().unwrap()),
        ),
        (
            offset::TUNNEL_NEXT_HOP_MAC_HI,
            u16::from_be_bytes([NEXT_HOP[0], NEXT_HOP[1]]) as u32,
        ),
        (
            offset::TUNNEL_NEXT_HOP_MAC_LO,
            u32::from_be_bytes(NEXT_HOP[2..].try_into().unwrap()),
        ),
        (offset::TUNNEL_VNI, 0x00AB_CDEF),
        (offset::TUNNEL_UDP_SPORT, 0x0FFF_C000),
        (offset::TUNNEL_HOP_LIMIT, 40),
        (offset::TUNNEL_WAN_MTU, mtu),
    ];
    for (i, w) in words(PE).into_iter().enumerate() {
        regs.push((offset::GW_IPV6_0 + 4 * i as u32, w));
    }
    for (i, w) in words(REMOTE).into_iter().enumerate() {
        regs.push((offset::TUNNEL_REMOTE_0 + 4 * i as u32, w));
    }
    for (i, w) in words(SID0).into_iter().enumerate() {
        regs.push((offset::TUNNEL_SID0_0 + 4 * i as u32, w));
    }
    for (i, w) in words(SID1).into_iter().enumerate() {
        regs.push((offset::TUNNEL_SID1_0 + 4 * i as u32, w));
    }
    regs.push((offset::TUNNEL_CONTROL, control));
    for (off, v) in regs {
        both(&mut gw, &mut m, off, v);
    }
    (gw, m)
}

/// A RoCEv2 flow: its key and a frame builder for it.
#[derive(Clone, Copy)]
struct Flow {
    v6: bool,
    host: u8,
    dqp: u32,
    vlan: Option<u16>,
}

impl Flow {
    fn random(rng: &mut StdRng) -> Flow {
        Flow {
            v6: rng.gen_bool(0.5),
            host: rng.gen_range(1..250),
            dqp: rng.gen_range(1..0x10_0000),
            vlan: rng.gen_bool(0.2).then(|| rng.gen_range(1..4095)),
        }
    }

    fn frame(&self, rng: &mut StdRng, payload: usize) -> Vec<u8> {
        let b = if self.v6 {
            RoceFrameBuilder::ipv6(
                Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, self.host as u16),
                Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 1),
            )
            .flow_label(rng.gen_range(0..1 << 20))
        } else {
            RoceFrameBuilder::ipv4(
                Ipv4Addr::new(10, 1, 0, self.host),
                Ipv4Addr::new(10, 2, 0, 1),
            )
        };
        let b = match self.vlan {
            Some(v) => b.vlan(v),
            None => b,
        };
        let ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][rng.gen_range(0..4)];
        b.ecn(ecn)
            .dscp(rng.gen_range(0..64))
            .dest_qp(self.dqp)
            .psn(rng.gen_range(0..1 << 24))
            .payload_len(payload & !3)
            .build()
    }
}

/// The dc_rx traffic of a run: flows' frames, trailers, long frames,
/// random traffic.
fn traffic(rng: &mut StdRng, n: usize) -> Vec<(u64, Frame)> {
    let flows: Vec<Flow> = (0..24).map(|_| Flow::random(rng)).collect();
    let mut out = Vec::new();
    for i in 0..n {
        let f = if i % 97 == 50 {
            // Longer than the ingress queue keeps whole.
            let flow = flows[rng.gen_range(0..flows.len())];
            let payload = rng.gen_range(10_300..12_000);
            Frame::new(flow.frame(rng, payload))
        } else if rng.gen_bool(0.12) {
            random_mix(rng, 1).remove(0)
        } else {
            let flow = flows[rng.gen_range(0..flows.len())];
            let payload = match rng.gen_range(0..4) {
                0 => rng.gen_range(0..64),
                1 | 2 => rng.gen_range(64..1100),
                _ => rng.gen_range(1100..4200),
            };
            let mut data = flow.frame(rng, payload);
            if rng.gen_bool(0.1) {
                // Ethernet padding or a trailer: cut off by the PE.
                let extra = rng.gen_range(1..80);
                data.extend((0..extra).map(|_| rng.gen::<u8>()));
            }
            Frame::new(data)
        };
        out.push((0, f));
    }
    out
}

/// The inner frame of a VXLAN or SRv6 frame this PE sent (Ethernet put
/// back for SRv6 from the outer one) and the outer flow label.
fn unwrap(frame: &[u8], srv6: bool, sids: usize) -> (Vec<u8>, u32) {
    let label = u32::from_be_bytes([0, frame[15] & 0xf, frame[16], frame[17]]);
    if srv6 {
        let inner = &frame[54 + 8 + 16 * sids..];
        let ethertype: [u8; 2] = if inner[0] >> 4 == 6 {
            [0x86, 0xdd]
        } else {
            [8, 0]
        };
        ([&frame[..12], &ethertype[..], inner].concat(), label)
    } else {
        (frame[70..].to_vec(), label)
    }
}

/// FCN-01/FCN-02/PE-01: three tunnels, RTL against the model, labels
/// against the RTL's own flow table, scapy against every frame sent.
#[test]
fn fcn_02_pe_01_ingress_pe_encapsulates_like_the_model() {
    use tunnel_control::{COMPAT, INGRESS_PE, SRV6, TWO_SIDS};
    for (seed, control, mtu) in [
        (1u64, INGRESS_PE, 16000),
        (2, INGRESS_PE | SRV6, 4000),
        (3, INGRESS_PE | SRV6 | TWO_SIDS | COMPAT, 9000),
    ] {
        let srv6 = control & SRV6 != 0;
        let sids = if control & TWO_SIDS != 0 { 2 } else { 1 };
        let mut rng = StdRng::seed_from_u64(seed);
        let (mut gw, mut m) = setup(control, mtu);
        let dc = traffic(&mut rng, 260);
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let opts = StreamOptions::random(0.2, 0.3, seed).without_marker_shadow();
        let run = check_scheduled(&mut gw, &mut m, &schedule, opts)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        let counts = [
            reg(offset::TUNNEL_ENCAPSULATED),
            reg(offset::TUNNEL_NOT_IP_DROPS),
            reg(offset::TUNNEL_MTU_DROPS),
            reg(offset::TUNNEL_TRIMMED),
            reg(offset::TUNNEL_TRUNCATED),
            reg(offset::TUNNEL_OVERSIZE_CUTS),
        ];
        eprintln!(
            "seed {seed}: encapsulated {}, not IP {}, MTU {}, trimmed {}, truncated {}, cut {}",
            counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]
        );
        assert!(counts[0] > 200 && counts[1] > 0 && counts[3] > 5);
        assert_eq!(counts[5], 3, "three frames longer than the queue");
        // A cut frame goes out truncated below a 16000-byte MTU; at 9000
        // it (and nothing else) is over the MTU; at 4000 more are.
        match mtu {
            16000 => assert!(counts[4] >= 3 && counts[2] == 0),
            9000 => assert_eq!(counts[2], 3),
            _ => assert!(counts[2] > 3),
        }
        let sent = &run.capture.outputs[&OutPort::WanTx];
        assert_eq!(sent.len() as u32, counts[0]);

        // Labels: one per flow, never shared, naming the flow's place.
        let mut labels: BTreeMap<FlowKey, u32> = BTreeMap::new();
        let mut keys: BTreeMap<u32, FlowKey> = BTreeMap::new();
        for f in sent.iter().filter(|f| !f.user) {
            // (A cut frame's inner frame no longer parses as RoCEv2.)
            let (inner, label) = unwrap(&f.data, srv6, sids);
            let parsed = cngw_packet::parsed::classify(&inner);
            if parsed.class != cngw_packet::parsed::FrameClass::Roce {
                assert_eq!(label, 0, "a frame of no flow has label 0");
                continue;
            }
            let key = FlowKey::of_header(&parsed);
            assert_ne!(label, 0);
            assert_eq!(*labels.entry(key).or_insert(label), label, "{key:?}");
            assert_eq!(*keys.entry(label).or_insert(key), key, "label {label}");
        }
        assert!(labels.len() >= 20, "{} flows", labels.len());
        let mut dev = Device::open(SimBus::new(&mut gw)).unwrap();
        let mut table = dev.flow_table();
        for (&label, key) in &keys {
            let place = match Location::of_label(label).unwrap() {
                Location::Bucket { bucket, way } => DriverLocation::Bucket { bucket, way },
                Location::Stash { slot } => DriverLocation::Stash { slot },
            };
            let found = table.read_location(place).unwrap().map(|(k, _)| k);
            assert_eq!(found, Some(*key), "label {label}");
        }

        // scapy: every frame sent.
        let frames: Vec<Vec<u8>> = sent.iter().map(|f| f.data.clone()).collect();
        let Some(dissected) = dissect(&frames) else {
            continue;
        };
        let mode = if control & COMPAT != 0 {
            EncapMode::Compatibility
        } else {
            EncapMode::Normal
        };
        for ((f, data), frame) in dissected.iter().zip(&frames).zip(sent) {
            let (inner, label) = unwrap(data, srv6, sids);
            assert_eq!(get(f, "Ether.dst"), "02:00:00:00:0e:01");
            assert_eq!(get(f, "Ether.src"), "02:00:00:00:0a:01");
            assert_eq!(get(f, "IPv6.src"), PE.to_string());
            assert_eq!(get(f, "IPv6.fl"), label.to_string());
            assert_eq!(get(f, "IPv6.hlim"), "40");
            // DSCP copied, ECN per RFC 6040.
            let l2 = if inner[12..14] == [0x81, 0] { 18 } else { 14 };
            let tc = if inner[l2] >> 4 == 6 {
                (inner[l2] << 4) | (inner[l2 + 1] >> 4)
            } else {
                inner[l2 + 1]
            };
            let want = (tc & !3) | encapsulate(Ecn::from_bits(tc), mode).bits();
            assert_eq!(get(f, "IPv6.tc"), want.to_string());
            if srv6 {
                assert_eq!(get(f, "IPv6.dst"), SID0.to_string());
                assert_eq!(get(f, "IPv6.nh"), "43");
            } else {
                assert_eq!(get(f, "IPv6.dst"), REMOTE.to_string());
                assert_eq!(get(f, "UDP.dport"), "4789");
                assert_eq!(get(f, "VXLAN.vni"), (0xAB_CDEF).to_string());
                let sport = 0xC000 | (label & 0xFFF);
                assert_eq!(get(f, "UDP.sport"), sport.to_string());
            }
            if !frame.user {
                // Whole frames: the outer length holds (a cut frame's outer
                // lengths are its IP header's; the MAC ends it as bad).
                assert_eq!(get(f, "IPv6.plen"), (data.len() - 54).to_string());
                // RoCEv2 inside: every checksum and the ICRC hold. (The
                // random traffic's other frames carry whatever checksums
                // they came with: the PE does not touch the inner packet.)
                let class = cngw_packet::parsed::classify(&inner).class;
                if class == cngw_packet::parsed::FrameClass::Roce {
                    assert_checksums_ok(f);
                    assert_eq!(get(f, "icrc_ok"), "True");
                }
            }
        }
    }
}

/// FCN-02: after reset, and with only the egress role on, frames from
/// dc_rx leave on wan_tx as they came (no queue, no tunnel).
#[test]
fn fcn_02_frames_pass_unchanged_unless_the_ingress_role_is_on() {
    for control in [0, tunnel_control::EGRESS_PE] {
        let (mut gw, mut m) = setup(control, 9000);
        let mut rng = StdRng::seed_from_u64(5);
        let dc = traffic(&mut rng, 60);
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc.clone())],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<&Frame> = run.capture.outputs[&OutPort::WanTx].iter().collect();
        let want: Vec<&Frame> = dc.iter().map(|(_, f)| f).collect();
        assert_eq!(got, want);
        assert_eq!(m.read_register(offset::TUNNEL_ENCAPSULATED), Some(0));
    }
}

/// FCN-04: an ingress PE whose own WAN queue congests sends its senders
/// standard CNPs directly (the Long-haul second level, with the format
/// table set to "cnp" for the senders' prefixes), to each flow's source
/// QP, while it tunnels their frames. RTL against the model frame for
/// frame and counter for counter; scapy checks every CNP's ICRC.
#[test]
fn fcn_04_a_congested_ingress_pe_sends_standard_cnps_directly() {
    use cngw_regmap::{feature, flow_command, format_control};
    use cngw_testbench::{compare_counters, Bench};
    let mut b = Bench::new(None).unwrap();
    let mut m = GatewayModel::new();
    m.set_reset_clock(b.gateway().reset_released_at());
    let mut w = |b: &mut Bench<Gateway>, off: u32, v: u32| {
        b.csr_write(off, v).unwrap();
        assert!(m.write_register(off, v), "{off:#x}");
    };
    let mut regs = vec![
        (offset::PORT0_K_MIN_BYTES, 62_500_000),
        (offset::PORT0_K_MAX_BYTES, 125_000_000),
        (offset::PORT0_RTT_EST_US, 20),
        (offset::PORT0_FLOW_INTERVAL_US, 1),
        (offset::LH_BUCKET_DEPTH, 8),
        (offset::LH_BUCKET_REFILL_CLOCKS, 1),
        (
            offset::GW_MAC_HI,
            u16::from_be_bytes([PE_MAC[0], PE_MAC[1]]) as u32,
        ),
        (
            offset::GW_MAC_LO,
            u32::from_be_bytes(PE_MAC[2..].try_into().unwrap()),
        ),
        (offset::GW_IPV4, u32::from(Ipv4Addr::new(192, 0, 2, 1))),
        (
            offset::TUNNEL_NEXT_HOP_MAC_HI,
            u16::from_be_bytes([NEXT_HOP[0], NEXT_HOP[1]]) as u32,
        ),
        (
            offset::TUNNEL_NEXT_HOP_MAC_LO,
            u32::from_be_bytes(NEXT_HOP[2..].try_into().unwrap()),
        ),
    ];
    for (i, word) in words(PE).into_iter().enumerate() {
        regs.push((offset::GW_IPV6_0 + 4 * i as u32, word));
    }
    for (i, word) in words(REMOTE).into_iter().enumerate() {
        regs.push((offset::TUNNEL_REMOTE_0 + 4 * i as u32, word));
    }
    // The format table: 10.0.0.0/8 and fd00::/16 get standard CNPs.
    for (i, (prefix, len)) in [
        (Ipv4Addr::new(10, 0, 0, 0).to_ipv6_mapped(), 96 + 8),
        (Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 0), 16),
    ]
    .into_iter()
    .enumerate()
    {
        let base = format_control::STRIDE * i as u32;
        for (k, word) in words(prefix).into_iter().enumerate() {
            regs.push((offset::LH_FORMAT0_PREFIX_0 + base + 4 * k as u32, word));
        }
        regs.push((
            offset::LH_FORMAT0_CONTROL + base,
            1 | (len << format_control::PREFIX_LEN_LSB),
        ));
    }
    for (off, v) in regs {
        w(&mut b, off, v);
    }
    let mut rng = StdRng::seed_from_u64(11);
    let flows: Vec<Flow> = (0..8).map(|_| Flow::random(&mut rng)).collect();
    let sqp = |i: usize| 0x7000 + i as u32;
    for (i, f) in flows.iter().enumerate() {
        let key = FlowKey::of_header(&cngw_packet::parsed::classify(&f.frame(&mut rng, 64)));
        for (k, word) in words(Ipv6Addr::from(key.sip)).into_iter().enumerate() {
            w(&mut b, offset::FLOW_SIP_0 + 4 * k as u32, word);
        }
        for (k, word) in words(Ipv6Addr::from(key.dip)).into_iter().enumerate() {
            w(&mut b, offset::FLOW_DIP_0 + 4 * k as u32, word);
        }
        w(&mut b, offset::FLOW_DQP, key.dqp);
        w(&mut b, offset::FLOW_SQP, sqp(i));
        w(&mut b, offset::FLOW_COMMAND, flow_command::INSERT_STATIC);
        b.run(20, 0);
    }
    w(&mut b, offset::TUNNEL_CONTROL, tunnel_control::INGRESS_PE);
    w(&mut b, offset::FEATURE_ENABLE, feature::LH_CNP);
    let at = b.cycle();
    b.gateway().set_queue_depth(130_000_000, true);
    b.clock();
    b.gateway().set_queue_depth(130_000_000, false);
    m.set_queue_depth_at(130_000_000, at);
    b.run(8, 0);

    let frames: Vec<Vec<u8>> = flows.iter().map(|f| f.frame(&mut rng, 512)).collect();
    for f in &frames {
        b.push_frame(InPort::DcRx, f, false);
    }
    b.run_until_drained(100_000, 64).unwrap();
    let parsed = b.take_parsed(InPort::DcRx, usize::MAX);
    assert_eq!(parsed.len(), frames.len());
    let mut want_wan = Vec::new();
    for (f, p) in frames.iter().zip(&parsed) {
        let out = m.receive_at(InPort::DcRx, &Frame::new(f.clone()), Some(p.cycle));
        want_wan.extend(out.emitted.into_iter().map(|e| e.1));
    }
    m.advance_to(b.cycle());
    let got_wan: Vec<Frame> = b
        .take_frames(OutPort::WanTx, usize::MAX)
        .into_iter()
        .map(|f| Frame {
            data: f.data,
            user: f.user,
        })
        .collect();
    assert_eq!(got_wan, want_wan, "the tunnelled data");
    assert_eq!(got_wan.len(), frames.len());
    let cnps: Vec<Vec<u8>> = b
        .take_frames(OutPort::DcTx, usize::MAX)
        .into_iter()
        .map(|f| f.data)
        .collect();
    let want: Vec<Vec<u8>> = m
        .take_notifications()
        .into_iter()
        .map(|n| n.frame.data)
        .collect();
    assert_eq!(cnps, want, "the CNPs");
    assert_eq!(cnps.len(), flows.len(), "one CNP per congested flow");
    for (i, (cnp, f)) in cnps.iter().zip(&frames).enumerate() {
        let h = cngw_packet::parsed::classify(cnp);
        let d = cngw_packet::parsed::classify(f);
        assert_eq!(h.opcode, 0x81, "a standard CNP");
        assert_eq!(h.dst_ip, d.src_ip, "to the sender");
        assert_eq!(h.dest_qp, sqp(i), "DestQP = the flow's source QP");
    }
    compare_counters(b.gateway(), &m).unwrap_or_else(|e| panic!("{e}"));
    let Some(dissected) = dissect(&cnps) else {
        return;
    };
    for f in &dissected {
        assert_checksums_ok(f);
        assert_eq!(get(f, "icrc_ok"), "True");
        assert_eq!(get(f, "BTH.opcode"), "129");
    }
}
