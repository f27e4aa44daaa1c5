//! PE-02, PE-06: the egress PE's decapsulation in the gateway. VXLAN and
//! SRv6 tunnels to this PE carry IPv4 and IPv6 RoCEv2 frames with every
//! inner and outer ECN codepoint, between frames for other PEs and random
//! WAN traffic, with random idle clocks and backpressure. The RTL equals
//! the reference model (`cngw_model::tunnel_decap`) frame for frame and
//! counter for counter, inside the pre-ECN domain (the draft's table) and
//! outside it (RFC 6040's); scapy checks every inner frame that leaves:
//! IPv4 header checksum, ICRC, and the inner ECN the table gives.

use cngw_model::tunnel_ecn::{decapsulate, DecapTable};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::{srh, vxlan, Ecn, Envelope, RoceFrameBuilder, UdpChecksum};
use cngw_regmap::{offset, tunnel_control};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, Schedule};
use cngw_testbench::traffic::random_mix;
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{Ipv4Addr, Ipv6Addr};

const PE: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 1);
const OTHER_PE: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xb, 0, 0, 0, 0, 0, 2);
const INGRESS: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xa, 0, 0, 0, 0, 0, 1);
const PE_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xb, 0x01];
const DC_MAC: [u8; 6] = [0x02, 0, 0, 0, 0xd, 0x02];
const ALL: [Ecn; 4] = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce];

fn both(gw: &mut Gateway, m: &mut GatewayModel, off: u32, v: u32) {
    gw.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

fn setup(control: u32) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    let a = PE.octets();
    let w = |i: usize| u32::from_be_bytes(a[4 * i..4 * i + 4].try_into().unwrap());
    for (off, v) in [
        (offset::GW_IPV6_0, w(0)),
        (offset::GW_IPV6_1, w(1)),
        (offset::GW_IPV6_2, w(2)),
        (offset::GW_IPV6_3, w(3)),
        (
            offset::GW_MAC_HI,
            u16::from_be_bytes([PE_MAC[0], PE_MAC[1]]) as u32,
        ),
        (
            offset::GW_MAC_LO,
            u32::from_be_bytes(PE_MAC[2..].try_into().unwrap()),
        ),
        (
            offset::TUNNEL_DC_MAC_HI,
            u16::from_be_bytes([DC_MAC[0], DC_MAC[1]]) as u32,
        ),
        (
            offset::TUNNEL_DC_MAC_LO,
            u32::from_be_bytes(DC_MAC[2..].try_into().unwrap()),
        ),
        (offset::TUNNEL_CONTROL, control),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    (gw, m)
}

/// An inner RoCEv2 frame (IPv4 or IPv6) with ECN `ecn`.
fn inner(rng: &mut StdRng, v6: bool, ecn: Ecn) -> Vec<u8> {
    let b = if v6 {
        RoceFrameBuilder::ipv6(
            Ipv6Addr::new(0xfd00, 1, 0, 0, 0, 0, 0, rng.gen()),
            Ipv6Addr::new(0xfd00, 2, 0, 0, 0, 0, 0, 1),
        )
    } else {
        RoceFrameBuilder::ipv4(
            Ipv4Addr::new(10, 1, 0, rng.gen()),
            Ipv4Addr::new(10, 2, 0, 1),
        )
    };
    b.ecn(ecn)
        .dest_qp(rng.gen_range(1..0x1000))
        .psn(rng.gen_range(0..0x100_0000))
        .payload_len(rng.gen_range(0..1500))
        .build()
}

/// `inner` in a VXLAN or SRv6 tunnel from the ingress PE to `dst`, outer
/// ECN `outer`.
fn tunnelled(rng: &mut StdRng, inner: &[u8], outer: Ecn, srv6: bool, dst: Ipv6Addr) -> Vec<u8> {
    let env = Envelope::ipv6(INGRESS, dst)
        .with_macs([0x02, 0, 0, 0, 0xa, 0x01], PE_MAC)
        .with_ecn(outer)
        .with_flow_label(rng.gen_range(1..0x10_0000));
    if srv6 {
        let next = if inner[12..14] == [0x86, 0xdd] { 41 } else { 4 };
        srh::encapsulate(&env, &[dst], next, &inner[14..])
            .unwrap()
            .to_bytes()
    } else {
        vxlan::encapsulate(
            &env,
            0xC000 | rng.gen_range(0..0x3FFF),
            77,
            inner,
            UdpChecksum::Zero,
        )
        .to_bytes()
    }
}

/// PE-02/PE-06: random tunnels of both kinds, every ECN pair, frames for
/// another PE and random WAN traffic; seed 1 inside the domain, seed 2
/// outside (RFC 6040). RTL equals the model; scapy checks what leaves.
#[test]
fn pe_02_pe_06_egress_pe_decapsulates_like_the_model() {
    for seed in 1..=2u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let outside = seed == 2;
        let control = tunnel_control::EGRESS_PE
            | if outside {
                tunnel_control::OUTSIDE_DOMAIN
            } else {
                0
            };
        let table = if outside {
            DecapTable::Rfc6040
        } else {
            DecapTable::PreEcn
        };
        let (mut gw, mut m) = setup(control);
        let mut wan = Vec::new();
        let mut expect_ecn = Vec::new();
        for i in 0..300usize {
            if rng.gen_bool(0.1) {
                wan.push((0, random_mix(&mut rng, 1).remove(0)));
                continue;
            }
            let (ie, oe) = (ALL[i % 4], ALL[(i / 4) % 4]);
            let v6 = rng.gen_bool(0.5);
            let srv6 = rng.gen_bool(0.5);
            let dst = if rng.gen_bool(0.1) { OTHER_PE } else { PE };
            let f = inner(&mut rng, v6, ie);
            if dst == PE {
                if let Some(e) = decapsulate(ie, oe, table).inner {
                    expect_ecn.push(e);
                }
            }
            wan.push((0, Frame::new(tunnelled(&mut rng, &f, oe, srv6, dst))));
        }
        let schedule = Schedule {
            inputs: vec![(InPort::WanRx, wan)],
            depth_steps: Vec::new(),
            end_cycle: None,
        };
        let run = check_scheduled(
            &mut gw,
            &mut m,
            &schedule,
            StreamOptions::random(0.2, 0.3, seed),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let reg = |o| m.read_register(o).unwrap();
        let (vx, sr, drops) = (
            reg(offset::TUNNEL_DECAP_VXLAN),
            reg(offset::TUNNEL_DECAP_SRV6),
            reg(offset::TUNNEL_ECN_DROPS),
        );
        eprintln!(
            "seed {seed}: {vx} VXLAN, {sr} SRv6 decapsulated, {drops} ECN drops, {} light, {} alarms",
            reg(offset::TUNNEL_LIGHT_MARKS),
            reg(offset::TUNNEL_ECN_ALARMS)
        );
        assert!(vx > 50 && sr > 50 && drops > 5);
        assert_eq!((vx + sr) as usize, expect_ecn.len());
        assert_eq!(reg(offset::TUNNEL_LIGHT_MARKS) > 0, !outside);
        // The decapsulated frames: every RoCEv2 frame on dc_tx from the
        // inner senders (the random traffic's own are left out).
        let out: Vec<Vec<u8>> = run.capture.outputs[&OutPort::DcTx]
            .iter()
            .filter(|f| {
                let v4 = f.data.len() > 30 && f.data[12..14] == [8, 0] && f.data[26..28] == [10, 1];
                let v6 = f.data.len() > 30
                    && f.data[12..14] == [0x86, 0xdd]
                    && f.data[22..26] == [0xfd, 0, 0, 1];
                v4 || v6
            })
            .map(|f| f.data.clone())
            .collect();
        assert_eq!(out.len(), expect_ecn.len());
        let Some(dissected) = dissect(&out) else {
            continue;
        };
        for ((f, want), data) in dissected.iter().zip(&expect_ecn).zip(&out) {
            assert_checksums_ok(f);
            assert_eq!(get(f, "icrc_ok"), "True");
            let tos: u8 = if data[12..14] == [8, 0] {
                get(f, "IP.tos").parse().unwrap()
            } else {
                get(f, "IPv6.tc").parse().unwrap()
            };
            assert_eq!(Ecn::from_bits(tos & 3), *want);
        }
    }
}

/// PE-02: after reset (and with the role off) tunnelled frames to this PE
/// leave as they came, outer headers and all.
#[test]
fn pe_02_tunnels_pass_unless_the_egress_role_is_on() {
    let (mut gw, mut m) = setup(0);
    let mut rng = StdRng::seed_from_u64(4);
    let frames: Vec<Vec<u8>> = (0..20)
        .map(|i| {
            let f = inner(&mut rng, i % 2 == 0, Ecn::Ect0);
            tunnelled(&mut rng, &f, Ecn::Ce, i % 3 == 0, PE)
        })
        .collect();
    let schedule = Schedule {
        inputs: vec![(
            InPort::WanRx,
            frames.iter().map(|f| (0, Frame::new(f.clone()))).collect(),
        )],
        depth_steps: Vec::new(),
        end_cycle: None,
    };
    let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
        .unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<Vec<u8>> = run.capture.outputs[&OutPort::DcTx]
        .iter()
        .map(|f| f.data.clone())
        .collect();
    assert_eq!(got, frames);
    assert_eq!(m.read_register(offset::TUNNEL_DECAP_VXLAN), Some(0));
}
