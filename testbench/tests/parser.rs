//! Header parser field extraction in the RTL (HW-01): RoCEv2 over IPv4 and
//! IPv6, with and without 802.1Q, headers that span two beats, and frames
//! truncated at every byte of their headers.

use cngw_model::{Frame, GatewayModel, InPort};
use cngw_packet::parsed::{ipv4_mapped, FrameClass};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_sim::Gateway;
use cngw_testbench::{check, run, StreamOptions};
use std::net::{Ipv4Addr, Ipv6Addr};

fn parse_one(frame: Vec<u8>) -> cngw_packet::parsed::ParsedHeader {
    let mut gw = Gateway::new();
    let cap = run(
        &mut gw,
        &[(InPort::DcRx, vec![Frame::new(frame)])],
        StreamOptions::line_rate(),
    );
    assert_eq!(cap.parsed[&InPort::DcRx].len(), 1);
    cap.parsed[&InPort::DcRx][0]
}

#[test]
fn hw_01_parser_extracts_rocev2_over_ipv4() {
    let src = Ipv4Addr::new(192, 168, 70, 6);
    let dst = Ipv4Addr::new(192, 168, 70, 4);
    let frame = RoceFrameBuilder::ipv4(src, dst)
        .ecn(Ecn::Ect0)
        .udp_src_port(0xc0de)
        .opcode(0x0a)
        .pkey(0x8001)
        .dest_qp(0x00_0045)
        .psn(0xabcdef)
        .payload_len(256)
        .build();
    let h = parse_one(frame);
    assert_eq!(h.class, FrameClass::Roce);
    assert_eq!(h.vlan_id, None);
    assert!(!h.is_ipv6);
    assert_eq!(h.src_ip, ipv4_mapped(src.octets()));
    assert_eq!(h.dst_ip, ipv4_mapped(dst.octets()));
    assert_eq!(h.ecn, 0b10);
    assert_eq!(h.flow_label, 0);
    assert_eq!(h.udp_src_port, 0xc0de);
    assert_eq!(h.opcode, 0x0a);
    assert_eq!(h.pkey, 0x8001);
    assert_eq!(h.dest_qp, 0x45);
    assert_eq!(h.psn, 0xabcdef);
}

#[test]
fn hw_01_parser_extracts_rocev2_over_ipv6_with_vlan_across_two_beats() {
    let src: Ipv6Addr = "fd00:1::1234".parse().unwrap();
    let dst: Ipv6Addr = "fd00:2::abcd".parse().unwrap();
    // 18 + 40 + 8 = 66: the BTH starts in the second beat.
    let frame = RoceFrameBuilder::ipv6(src, dst)
        .vlan(0x123)
        .flow_label(0xabcde)
        .ecn(Ecn::Ce)
        .opcode(0x81)
        .dest_qp(0xfedcba)
        .psn(0x000001)
        .payload_len(16)
        .build();
    let h = parse_one(frame);
    assert_eq!(h.class, FrameClass::Roce);
    assert_eq!(h.vlan_id, Some(0x123));
    assert!(h.is_ipv6);
    assert_eq!(h.src_ip, src.octets());
    assert_eq!(h.dst_ip, dst.octets());
    assert_eq!(h.ecn, 0b11);
    assert_eq!(h.flow_label, 0xabcde);
    assert_eq!(h.opcode, 0x81);
    assert_eq!(h.dest_qp, 0xfedcba);
    assert_eq!(h.psn, 1);
}

#[test]
fn hw_01_parser_extracts_rocev2_over_ipv4_with_options() {
    // IHL 15 (40 option bytes) and a VLAN tag: the BTH ends at byte 98.
    let mut frame = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 4))
        .vlan(7)
        .dest_qp(200)
        .psn(77)
        .payload_len(64)
        .build();
    let l3 = 18;
    let options = [1u8; 40]; // NOP options
    frame.splice(l3 + 20..l3 + 20, options);
    frame[l3] = 0x4f;
    let total = u16::from_be_bytes([frame[l3 + 2], frame[l3 + 3]]) + 40;
    frame[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
    let h = parse_one(frame);
    assert_eq!(h.class, FrameClass::Roce);
    assert_eq!(h.dest_qp, 200);
    assert_eq!(h.psn, 77);
}

#[test]
fn hw_01_truncation_at_every_header_byte_matches_the_reference() {
    let v4 = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2))
        .vlan(5)
        .payload_len(32)
        .build();
    let v6 = RoceFrameBuilder::ipv6("fd00::1".parse().unwrap(), "fd00::2".parse().unwrap())
        .vlan(5)
        .payload_len(32)
        .build();
    let mut frames = Vec::new();
    for full in [&v4, &v6] {
        for cut in 1..full.len() {
            frames.push(Frame::new(full[..cut].to_vec()));
        }
    }
    let mut gw = Gateway::new();
    let mut model = GatewayModel::new();
    let cap = check(
        &mut gw,
        &mut model,
        &[(InPort::WanRx, frames.clone())],
        StreamOptions::random(0.2, 0.2, 3),
    )
    .unwrap_or_else(|m| panic!("{m}"));
    // Every cut through the headers is malformed; the frames still all pass.
    let parsed = &cap.parsed[&InPort::WanRx];
    assert!(parsed.iter().all(|h| h.class == FrameClass::Malformed));
    assert_eq!(cap.outputs[&cngw_model::OutPort::DcTx], frames);
}
