//! Cross-checks against scapy (an independent implementation): ICRC through
//! `scapy.contrib.roce`, IPv4/UDP/ICMPv6 checksums by letting scapy rebuild
//! them, and field values as scapy dissects them.
//!
//! `CNGW_PYTHON` names a Python interpreter with scapy installed
//! (`python3 -m venv .venv && .venv/bin/pip install scapy`); without it these
//! tests print a message and pass without checking.

use std::net::{Ipv4Addr, Ipv6Addr};

use cngw_packet::bth::opcode;
use cngw_packet::fast_cnp::{self, FastCnp};
use cngw_packet::icmp_extension::{ExtensionStructure, LonghaulObject, LONGHAUL_CLASS_NUM};
use cngw_packet::longhaul::metric_type;
use cngw_packet::proxy_cn::{self, FiveTuple, ProxyCnMessage};
use cngw_packet::traffic::{generate, TrafficConfig};
use cngw_packet::{
    srh, vxlan, Action, Cnp, Ecn, Envelope, Frame, IpPair, LonghaulBody, LonghaulCnp,
    LonghaulIcmpv6, LonghaulRocev2, RateAdvice, RateAdviceMessage, RoceFrameBuilder, UdpChecksum,
};

use cngw_packet::scapy::{assert_checksums_ok, dissect as scapy, get};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn v4_env() -> Envelope {
    Envelope::ipv4(Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(198, 51, 100, 7))
        .with_dscp(48)
        .with_ecn(Ecn::Ect0)
        .with_ipv4_id(0x1234)
}

fn v6_env() -> Envelope {
    Envelope::ipv6(
        "2001:db8::1".parse().unwrap(),
        "2001:db8:ffff::7".parse().unwrap(),
    )
    .with_dscp(48)
    .with_flow_label(0xABCDE)
}

fn longhaul_cnp(with_objects: bool) -> LonghaulCnp {
    let body = LonghaulBody {
        congestion_level: 180,
        action: Action::RateReduce,
        parameter: 30,
        source_qp: 100,
        metric_type: metric_type::QUEUE_DEPTH_KB,
        metric_value: 130_000,
    };
    LonghaulCnp {
        body,
        extension: with_objects.then(|| {
            ExtensionStructure::from_longhaul(
                LONGHAUL_CLASS_NUM,
                &[
                    LonghaulObject::Timestamp(0xE8A1_B2C3_8000_0000),
                    LonghaulObject::DeviceId("gw-dci-1".into()),
                    LonghaulObject::PathId(vec![1, 2, 3, 4, 5]),
                ],
            )
        }),
    }
}

/// FCN-05 / LH-16: standard CNPs over IPv4 (with and without 802.1Q) and
/// IPv6 have the ICRC and fields scapy computes.
#[test]
fn fcn_05_standard_cnp_icrc_matches_scapy() {
    let cnp = Cnp::new(0x00ABCD);
    let frames = vec![
        cnp.to_frame(&v4_env()).to_bytes(),
        cnp.to_frame(&v4_env().with_vlan(100)).to_bytes(),
        cnp.to_frame(&v6_env()).to_bytes(),
    ];
    let Some(results) = scapy(&frames) else {
        return;
    };
    for r in &results {
        assert_checksums_ok(r);
        assert_eq!(get(r, "icrc_ok"), "True");
        assert_eq!(get(r, "BTH.opcode"), "129");
        assert_eq!(get(r, "BTH.becn"), "1");
        assert_eq!(get(r, "BTH.fecn"), "0");
        assert_eq!(get(r, "BTH.resv6"), "0");
        assert_eq!(get(r, "BTH.pkey"), "65535");
        assert_eq!(get(r, "BTH.dqpn"), "43981");
        assert_eq!(get(r, "BTH.psn"), "0");
        assert_eq!(get(r, "UDP.len"), "40");
        assert_eq!(get(r, "bth_payload"), "00".repeat(16));
    }
    assert_eq!(get(&results[1], "Dot1Q.vlan"), "100");
    assert_eq!(get(&results[2], "IPv6.fl"), "703710");
}

/// LH-12: the Long-haul CNP in RoCEv2 format (E bit, body after the BTH,
/// optional extension objects) has the ICRC scapy computes, over IPv4 and
/// IPv6.
#[test]
fn lh_12_longhaul_cnp_rocev2_icrc_matches_scapy() {
    let mut frames = Vec::new();
    let mut bodies = Vec::new();
    for with_objects in [false, true] {
        let lh = LonghaulRocev2::new(100, longhaul_cnp(with_objects));
        bodies.push(hex(&lh.cnp.to_bytes()));
        frames.push(lh.to_frame(&v4_env()).to_bytes());
        bodies.push(hex(&lh.cnp.to_bytes()));
        frames.push(lh.to_frame(&v6_env()).to_bytes());
    }
    let Some(results) = scapy(&frames) else {
        return;
    };
    for (r, body) in results.iter().zip(&bodies) {
        assert_checksums_ok(r);
        assert_eq!(get(r, "icrc_ok"), "True");
        assert_eq!(get(r, "BTH.opcode"), "129");
        assert_eq!(get(r, "BTH.becn"), "1");
        assert_eq!(get(r, "BTH.fecn"), "0");
        assert_eq!(
            get(r, "BTH.resv6"),
            "32",
            "E bit = MSB of the six reserved bits"
        );
        assert_eq!(get(r, "BTH.dqpn"), "100");
        assert_eq!(get(r, "BTH.psn"), "0");
        assert_eq!(get(r, "BTH.ackreq"), "0");
        assert_eq!(get(r, "bth_payload"), body);
    }
    assert_eq!(get(&results[0], "UDP.len"), "36");
    assert_eq!(get(&results[1], "UDP.len"), "36");
    assert_eq!(get(&results[2], "ext_chksum_ok"), "True");
    assert_eq!(get(&results[3], "ext_chksum_ok"), "True");
}

/// LH-13: the ICMPv6 format has the checksum scapy computes, type 200,
/// code 0, with and without extension objects.
#[test]
fn lh_13_longhaul_cnp_icmpv6_checksum_matches_scapy() {
    let frames: Vec<_> = [false, true]
        .into_iter()
        .map(|objects| {
            LonghaulIcmpv6::new(longhaul_cnp(objects))
                .to_frame(&v6_env())
                .unwrap()
                .to_bytes()
        })
        .collect();
    let Some(results) = scapy(&frames) else {
        return;
    };
    for (r, objects) in results.iter().zip([false, true]) {
        assert_checksums_ok(r);
        assert_eq!(get(r, "icmpv6_chksum_ok"), "True");
        assert_eq!(get(r, "ICMPv6Unknown.type"), "200");
        assert_eq!(get(r, "ICMPv6Unknown.code"), "0");
        assert_eq!(get(r, "IPv6.nh"), "58");
        let body = hex(&longhaul_cnp(objects).to_bytes());
        assert_eq!(get(r, "ICMPv6Unknown.msgbody"), body);
        if objects {
            assert_eq!(get(r, "ext_chksum_ok"), "True");
        }
    }
}

/// FCN-03: Fast CNPs have UDP length 12, the checksums scapy computes and
/// the flow label in the payload (and, over IPv6, in the header).
#[test]
fn fcn_03_fast_cnp_checksums_match_scapy() {
    let fcnp = FastCnp::new(0xABCDE, 5);
    let port = fast_cnp::DEFAULT_UDP_PORT;
    let frames = vec![
        fcnp.to_frame(&v4_env(), 50000, port).to_bytes(),
        fcnp.to_frame(&v6_env(), 50000, port).to_bytes(),
    ];
    let Some(results) = scapy(&frames) else {
        return;
    };
    for r in &results {
        assert_checksums_ok(r);
        assert_eq!(get(r, "udp_chksum_ok"), "True");
        assert_eq!(get(r, "UDP.len"), "12");
        assert_eq!(get(r, "UDP.dport"), port.to_string());
    }
    assert_eq!(get(&results[0], "ip_chksum_ok"), "True");
    assert_eq!(get(&results[1], "IPv6.fl"), (0xABCDE).to_string());
    // FL 0xABCDE, CL 5, reserved 0: 0xABCDE << 12 | 5 << 9.
    let frame = Frame::parse(&frames[0]).unwrap();
    assert_eq!(frame.udp().unwrap().payload, vec![0xAB, 0xCD, 0xEA, 0x00]);
}

/// RA-03: Rate Advice messages (opcode 0x1D) have the ICRC scapy computes
/// and the four 32-bit body fields.
#[test]
fn ra_03_rate_advice_icrc_matches_scapy() {
    let msg = RateAdviceMessage::new(0x0000_0118, RateAdvice::new(25_000, 0x22, 0x33));
    let frames = vec![
        msg.to_frame(&v4_env()).to_bytes(),
        msg.to_frame(&v6_env()).to_bytes(),
    ];
    let Some(results) = scapy(&frames) else {
        return;
    };
    for r in &results {
        assert_checksums_ok(r);
        assert_eq!(get(r, "icrc_ok"), "True");
        assert_eq!(get(r, "BTH.opcode"), "29");
        assert_eq!(get(r, "BTH.dqpn"), "280");
        assert_eq!(get(r, "bth_payload"), "000061a8000000010000002200000033");
    }
}

/// PX-01: CN messages to the proxy carry the checksums scapy computes and
/// stay within 576 (IPv4) / 1280 (IPv6) bytes of IP packet.
#[test]
fn px_01_proxy_cn_checksums_and_size_limit_match_scapy() {
    let invoking = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 4))
        .dest_qp(200)
        .payload_len(1500)
        .build_frame();
    let msg = ProxyCnMessage {
        five_tuple: FiveTuple::of_packet(&invoking.ip),
        level: 6,
        invoking_packet: invoking.ip.to_bytes(),
    };
    let port = proxy_cn::DEFAULT_UDP_PORT;
    let frames = vec![
        msg.to_frame(&v4_env(), 50001, port).to_bytes(),
        msg.to_frame(&v6_env(), 50001, port).to_bytes(),
    ];
    let Some(results) = scapy(&frames) else {
        return;
    };
    for r in &results {
        assert_checksums_ok(r);
        assert_eq!(get(r, "udp_chksum_ok"), "True");
    }
    assert_eq!(get(&results[0], "IP.len"), "576");
    assert_eq!(get(&results[1], "IPv6.plen"), (1280 - 40).to_string());
}

/// HW-01: RoCEv2 data frames of many opcodes, payload lengths (pad counts),
/// IPv4 options, VLAN tags and IPv6 have the ICRC scapy computes; so do all
/// frames of the traffic generator.
#[test]
fn hw_roce_data_frames_icrc_matches_scapy() {
    let mut frames = Vec::new();
    for (i, op) in [
        opcode::RC_SEND_FIRST,
        opcode::RC_SEND_ONLY,
        opcode::RC_RDMA_WRITE_ONLY,
        opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        opcode::RC_RDMA_READ_REQUEST,
        opcode::RC_ACKNOWLEDGE,
        opcode::UD_SEND_ONLY,
        opcode::UC_SEND_ONLY,
    ]
    .into_iter()
    .enumerate()
    {
        let len = i * 3;
        frames.push(
            RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2))
                .vlan(7)
                .opcode(op)
                .dest_qp(0x10000 + i as u32)
                .psn(0xFFFFF0 + i as u32)
                .payload_len(len)
                .build(),
        );
        frames.push(
            RoceFrameBuilder::ipv6(
                Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1),
                Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2),
            )
            .opcode(op)
            .flow_label(i as u32 * 1000)
            .dest_qp(0x20000 + i as u32)
            .payload_len(len)
            .udp_checksum(UdpChecksum::Compute)
            .build(),
        );
    }
    let mut with_options =
        RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2))
            .payload_len(10)
            .build_frame();
    if let cngw_packet::IpHeader::V4(h) = &mut with_options.ip.header {
        h.options = vec![0x94, 0x04, 0x00, 0x00]; // Router Alert
    }
    with_options.finalize(UdpChecksum::Compute);
    frames.push(with_options.to_bytes());
    for ipv6 in [false, true] {
        let t = generate(&TrafficConfig {
            flows: 2,
            messages_per_flow: 2,
            message_len: 3000,
            ipv6,
            vlan: Some(5),
            ..TrafficConfig::default()
        });
        frames.extend(t.dc_side.into_iter().chain(t.wan_side).map(|(_, f)| f));
    }
    let Some(results) = scapy(&frames) else {
        return;
    };
    for (r, f) in results.iter().zip(&frames) {
        assert_checksums_ok(r);
        assert_eq!(get(r, "icrc_ok"), "True", "{}", hex(f));
    }
}

/// FCN-02: VXLAN and SRv6 encapsulations decode in scapy with the outer
/// flow label, the VNI and the segment list.
#[test]
fn fcn_02_vxlan_and_srv6_encapsulation_match_scapy() {
    let inner = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2))
        .payload_len(32)
        .build_frame();
    let outer = v6_env().with_ecn(Ecn::Ect0).with_flow_label(0x12345);
    let vx = vxlan::encapsulate(
        &outer,
        49999,
        0x00BEEF,
        &inner.to_bytes(),
        UdpChecksum::Compute,
    );
    let path: Vec<Ipv6Addr> = vec![
        "2001:db8:a::1".parse().unwrap(),
        "2001:db8:b::1".parse().unwrap(),
        "2001:db8:c::1".parse().unwrap(),
    ];
    let sr = srh::encapsulate(&outer, &path, 4, &inner.ip.to_bytes()).unwrap();
    let frames = vec![vx.to_bytes(), sr.to_bytes()];
    let Some(results) = scapy(&frames) else {
        return;
    };
    assert_checksums_ok(&results[0]);
    assert_eq!(get(&results[0], "VXLAN.vni"), (0xBEEF).to_string());
    assert_eq!(get(&results[0], "IPv6.fl"), (0x12345).to_string());
    assert_eq!(get(&results[0], "IP.dst"), "10.0.0.2");
    assert_eq!(get(&results[0], "icrc_ok"), "True");
    let r = &results[1];
    assert_eq!(get(r, "IPv6.dst"), "2001:db8:a::1");
    assert_eq!(get(r, "IPv6ExtHdrSegmentRouting.type"), "4");
    assert_eq!(get(r, "IPv6ExtHdrSegmentRouting.segleft"), "2");
    assert_eq!(get(r, "IPv6ExtHdrSegmentRouting.lastentry"), "2");
    assert_eq!(
        get(r, "IPv6ExtHdrSegmentRouting.addresses"),
        "2001:db8:c::1,2001:db8:b::1,2001:db8:a::1"
    );
    assert_eq!(get(r, "IP.dst"), "10.0.0.2");
    assert_eq!(get(r, "icrc_ok"), "True");
}

/// The IPv4 addresses and pair helpers the tests above rely on.
#[test]
fn envelope_pairs_are_consistent() {
    assert!(IpPair::new(Ipv4Addr::LOCALHOST.into(), Ipv6Addr::LOCALHOST.into()).is_none());
}
