//! Byte-level checks of every format against the drafts' figures, with the
//! requirement IDs of DESIGN.md in the test names.

use std::net::{Ipv4Addr, Ipv6Addr};

use cngw_packet::bth::opcode;
use cngw_packet::cm::{attr, CmCommIds, CmMad, CmMessage, CmRep, CmReq};
use cngw_packet::fast_cnp::{self, FastCnp};
use cngw_packet::icmp_extension::{
    ExtensionStructure, LonghaulObject, C_TYPE_DEVICE_ID, LONGHAUL_CLASS_NUM,
};
use cngw_packet::ipv6::Ipv6ExtHeader;
use cngw_packet::longhaul::metric_type;
use cngw_packet::pcap::{read_pcap, write_pcap};
use cngw_packet::proxy_cn::{self, FiveTuple, ProxyCnMessage};
use cngw_packet::traffic::{generate, Side, TrafficConfig};
use cngw_packet::{
    frame, icrc, Action, BuildError, Cnp, Ecn, Envelope, Frame, IpHeader, LonghaulBody,
    LonghaulCnp, LonghaulIcmpv6, LonghaulRocev2, ParseError, RateAdvice, RateAdviceMessage,
    RoceFrameBuilder, UdpChecksum, L4,
};

fn v4() -> Envelope {
    Envelope::ipv4(Ipv4Addr::new(10, 0, 0, 4), Ipv4Addr::new(10, 0, 0, 1))
}

fn v6() -> Envelope {
    Envelope::ipv6("fd00::4".parse().unwrap(), "fd00::1".parse().unwrap())
}

/// The draft's operational example: Rate Reduce 30 %, level 180, queue
/// depth 130000 KB, source QP 100.
fn example_body() -> LonghaulBody {
    LonghaulBody {
        congestion_level: 180,
        action: Action::RateReduce,
        parameter: 30,
        source_qp: 100,
        metric_type: metric_type::QUEUE_DEPTH_KB,
        metric_value: 130_000,
    }
}

#[test]
fn lh_12_longhaul_rocev2_layout() {
    let lh = LonghaulRocev2::new(100, LonghaulCnp::new(example_body()));
    let bytes = lh.to_frame(&v4()).to_bytes();
    let udp = 14 + 20;
    assert_eq!(
        &bytes[udp + 4..udp + 6],
        &36u16.to_be_bytes(),
        "UDP length 36"
    );
    let bth = udp + 8;
    assert_eq!(
        &bytes[bth..bth + 12],
        &[0x81, 0x00, 0xFF, 0xFF, 0x60, 0, 0, 100, 0, 0, 0, 0],
        "opcode 0x81, P_Key 0xFFFF, BECN + E = 0x60, DestQP 100, A 0, PSN 0"
    );
    assert_eq!(
        &bytes[bth + 12..bth + 24],
        &[180, 0x80, 0, 30, 0, 0, 0, 100, 1, 0x01, 0xFB, 0xD0],
        "body straight after the BTH"
    );
    assert_eq!(bytes.len(), 14 + 20 + 8 + 12 + 12 + 4);
    icrc::verify_frame(&bytes).unwrap();
}

/// The E bit sits in the ICRC-masked BTH byte: flipping it keeps the ICRC
/// valid (the security note of DESIGN.md), so receivers cannot rely on the
/// ICRC to protect it.
#[test]
fn lh_12_e_bit_is_not_protected_by_icrc() {
    let mut bytes = LonghaulRocev2::new(100, LonghaulCnp::new(example_body()))
        .to_frame(&v4())
        .to_bytes();
    bytes[14 + 20 + 8 + 4] ^= 0x20;
    icrc::verify_frame(&bytes).unwrap();
    let f = Frame::parse(&bytes).unwrap();
    assert!(LonghaulRocev2::from_frame(&f).is_err());
    assert_eq!(Cnp::legacy_view(&f.roce().unwrap()).unwrap().dest_qp, 100);
}

/// LH-16: a legacy source sees the RoCEv2 format as a standard CNP to the
/// same QP.
#[test]
fn lh_16_legacy_view_of_longhaul_rocev2_is_a_cnp() {
    let f = LonghaulRocev2::new(0x1234, LonghaulCnp::new(example_body())).to_frame(&v6());
    let p = f.roce().unwrap();
    assert_eq!(Cnp::legacy_view(&p).unwrap(), Cnp::new(0x1234));
    assert!(
        Cnp::from_roce(&p).is_err(),
        "strict CNP parse rejects E = 1"
    );
}

#[test]
fn lh_07_action_flags_use_the_top_two_bits() {
    for (action, flags) in [
        (Action::Notify, 0x00),
        (Action::Pause, 0x40),
        (Action::RateReduce, 0x80),
        (Action::Resume, 0xC0),
    ] {
        assert_eq!(action.flags(), flags);
        assert_eq!(
            Action::from_flags(flags | 0x3F),
            action,
            "reserved bits ignored"
        );
    }
}

#[test]
fn lh_13_extension_objects_are_padded_and_checksummed() {
    let ext = ExtensionStructure::from_longhaul(
        LONGHAUL_CLASS_NUM,
        &[LonghaulObject::DeviceId("abc".into())],
    );
    let bytes = ext.to_bytes();
    assert_eq!(bytes.len(), 4 + 8, "object of length 7 padded to 8");
    assert_eq!(bytes[0], 0x20, "version 2");
    assert_eq!(&bytes[4..8], &[0, 7, LONGHAUL_CLASS_NUM, C_TYPE_DEVICE_ID]);
    assert_eq!(&bytes[8..], b"abc\0");
    assert_eq!(cngw_packet::checksum::internet_checksum(&bytes), 0);
    assert_eq!(ExtensionStructure::parse(&bytes).unwrap(), ext);
    let mut bad = bytes.clone();
    bad[9] ^= 1;
    assert!(matches!(
        ExtensionStructure::parse(&bad),
        Err(ParseError::ChecksumMismatch { .. })
    ));
    let objects: Vec<_> = ext
        .objects
        .iter()
        .map(|o| LonghaulObject::from_object(o).unwrap())
        .collect();
    assert_eq!(objects, vec![LonghaulObject::DeviceId("abc".into())]);
}

#[test]
fn lh_13_icmpv6_format_layout_and_ipv4_refused() {
    let lh = LonghaulIcmpv6::new(LonghaulCnp::new(example_body()));
    let f = lh.to_frame(&v6()).unwrap();
    let bytes = f.to_bytes();
    let icmp = 14 + 40;
    assert_eq!(bytes[20], 58, "next header ICMPv6");
    assert_eq!(&bytes[icmp..icmp + 2], &[200, 0], "type 200, code 0");
    assert_eq!(bytes.len(), icmp + 4 + 12);
    f.verify_checksums().unwrap();
    assert_eq!(
        lh.to_frame(&v4()),
        Err(BuildError::NeedsIpv6("Long-haul CNP in ICMPv6 format"))
    );
    assert!(LonghaulIcmpv6::from_frame(&Frame::parse(&bytes).unwrap(), 201).is_err());
}

#[test]
fn lh_14_information_disclosure_mode_zeroes_metric() {
    let b = example_body().without_metric();
    assert_eq!((b.metric_type, b.metric_value), (0, 0));
    assert_eq!(b.action, Action::RateReduce);
}

/// LH-04: CE marking in place keeps the IPv4 checksum and the ICRC valid.
#[test]
fn lh_04_ce_marking_in_place_keeps_checksum_and_icrc() {
    for b in [
        RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2)).vlan(3),
        RoceFrameBuilder::ipv6(Ipv6Addr::LOCALHOST, Ipv6Addr::LOCALHOST),
    ] {
        let mut bytes = b.payload_len(100).build();
        assert_eq!(frame::set_ecn(&mut bytes, Ecn::Ce), Ok(Ecn::Ect0));
        let f = Frame::parse(&bytes).unwrap();
        assert_eq!(f.ip.header.ecn(), Ecn::Ce);
        f.verify_checksums().unwrap();
    }
}

#[test]
fn fcn_03_fast_cnp_layout() {
    let f = FastCnp::new(0xFFFFF, 7).to_frame(&v6(), 1000, fast_cnp::DEFAULT_UDP_PORT);
    let bytes = f.to_bytes();
    let udp = 14 + 40;
    assert_eq!(
        &bytes[udp + 2..udp + 6],
        &[0xC2, 0x7F, 0, 12],
        "port 49791, length 12"
    );
    assert_eq!(&bytes[udp + 8..], &[0xFF, 0xFF, 0xFE, 0x00]);
    assert_eq!(
        FastCnp::parse(&[0xFF, 0xFF, 0xFF, 0xFF]).unwrap(),
        FastCnp::new(0xFFFFF, 7)
    );
    assert!(FastCnp::parse(&[0; 5]).is_err(), "UDP length must be 12");
    f.verify_checksums().unwrap();
    const { assert!(fast_cnp::DEFAULT_UDP_PORT >= 49152) };
}

/// FCN-02: the outer flow label and ECN of a VXLAN tunnel come from the
/// envelope; the inner frame is untouched.
#[test]
fn fcn_02_vxlan_keeps_inner_frame() {
    let inner = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2))
        .payload_len(64)
        .build();
    let outer = v6().with_flow_label(0xABCDE).with_ecn(Ecn::Ect0);
    let f = cngw_packet::vxlan::encapsulate(&outer, 50000, 7, &inner, UdpChecksum::Zero);
    let parsed = Frame::parse(&f.to_bytes()).unwrap();
    let IpHeader::V6(h) = &parsed.ip.header else {
        panic!("outer IPv6")
    };
    assert_eq!((h.flow_label, h.ecn), (0xABCDE, Ecn::Ect0));
    let (vx, inner_back) = cngw_packet::vxlan::decapsulate(&parsed).unwrap();
    assert_eq!(vx.vni, 7);
    assert_eq!(inner_back, inner);
}

/// A PadN option filling `len` bytes of an options header's data.
fn pad_n(len: usize) -> Vec<u8> {
    let mut d = vec![0u8; len];
    d[0] = 1;
    d[1] = (len - 2) as u8;
    d
}

/// The IPv6 parser steps over hop-by-hop, routing, fragment and destination
/// options headers to find UDP.
#[test]
fn ipv6_extension_headers_are_skipped_to_reach_udp() {
    let mut f = RoceFrameBuilder::ipv6(Ipv6Addr::LOCALHOST, Ipv6Addr::LOCALHOST)
        .payload_len(8)
        .build_frame();
    let IpHeader::V6(h) = &mut f.ip.header else {
        unreachable!()
    };
    h.next_header = 0;
    h.ext_headers = vec![
        Ipv6ExtHeader {
            header_type: 0,
            next_header: 43,
            data: vec![1, 4, 0, 0, 0, 0],
        },
        Ipv6ExtHeader {
            header_type: 43,
            next_header: 44,
            data: vec![0; 6],
        },
        Ipv6ExtHeader {
            header_type: 44,
            next_header: 60,
            data: vec![0, 0, 0, 0, 0, 1],
        },
        Ipv6ExtHeader {
            header_type: 60,
            next_header: 17,
            data: pad_n(14),
        },
    ];
    f.finalize(UdpChecksum::Compute);
    let parsed = Frame::parse(&f.to_bytes()).unwrap();
    assert_eq!(parsed, f);
    assert!(matches!(parsed.ip.l4, L4::Udp(_)));
    assert!(parsed.roce().is_ok());
    // A non-first fragment is not parsed as UDP.
    let IpHeader::V6(h) = &mut f.ip.header else {
        unreachable!()
    };
    h.ext_headers[2].data[1] = 0x08;
    let parsed = Frame::parse(&f.to_bytes()).unwrap();
    assert!(matches!(parsed.ip.l4, L4::Other(_)));
}

#[test]
fn px_01_proxy_cn_layout() {
    let invoking =
        RoceFrameBuilder::ipv4(Ipv4Addr::new(192, 168, 1, 1), Ipv4Addr::new(192, 168, 2, 2))
            .udp_src_port(0xC123)
            .payload_len(40)
            .build_frame();
    let msg = ProxyCnMessage {
        five_tuple: FiveTuple::of_packet(&invoking.ip),
        level: 5,
        invoking_packet: invoking.ip.to_bytes(),
    };
    let bytes = msg.to_bytes();
    assert_eq!(
        &bytes[..16],
        &[0x14, 17, 0xA0, 0, 0xC1, 0x23, 0x12, 0xB7, 192, 168, 1, 1, 192, 168, 2, 2]
    );
    assert_eq!(&bytes[16..], &invoking.ip.to_bytes()[..]);
    assert_eq!(ProxyCnMessage::parse(&bytes).unwrap(), msg);
    let f = msg.to_frame(&v4(), 40000, proxy_cn::DEFAULT_UDP_PORT);
    assert_eq!(
        ProxyCnMessage::from_frame(&f, proxy_cn::DEFAULT_UDP_PORT).unwrap(),
        msg
    );
}

/// PX-01: the five-tuple is taken below VXLAN and SRv6 encapsulation.
#[test]
fn px_01_five_tuple_below_encapsulation() {
    let inner = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 9, 8, 7), Ipv4Addr::new(10, 6, 5, 4))
        .udp_src_port(0xC0DE)
        .payload_len(8)
        .build_frame();
    let expected = FiveTuple::of_packet(&inner.ip);
    assert_eq!(expected.src_port, 0xC0DE);
    assert_eq!(expected.dst_port, 4791);
    let vx = cngw_packet::vxlan::encapsulate(&v6(), 1, 2, &inner.to_bytes(), UdpChecksum::Zero);
    assert_eq!(
        FiveTuple::of_frame(&Frame::parse(&vx.to_bytes()).unwrap()),
        expected
    );
    let path = ["fd00::a".parse().unwrap(), "fd00::b".parse().unwrap()];
    let sr = cngw_packet::srh::encapsulate(&v6(), &path, 4, &inner.ip.to_bytes()).unwrap();
    assert_eq!(
        FiveTuple::of_frame(&Frame::parse(&sr.to_bytes()).unwrap()),
        expected
    );
    assert_eq!(FiveTuple::of_frame(&inner), expected);
}

#[test]
fn ra_03_rate_advice_layout() {
    let m = RateAdviceMessage::new(0x22, RateAdvice::new(40_000, 0x33, 0x44));
    let bytes = m.to_frame(&v4()).to_bytes();
    let bth = 14 + 20 + 8;
    assert_eq!(bytes[bth], 0x1D);
    assert_eq!(&bytes[bth + 5..bth + 8], &[0, 0, 0x22]);
    assert_eq!(
        &bytes[bth + 12..bth + 28],
        &[0, 0, 0x9C, 0x40, 0, 0, 0, 1, 0, 0, 0, 0x33, 0, 0, 0, 0x44]
    );
    let f = Frame::parse(&bytes).unwrap();
    assert_eq!(RateAdviceMessage::from_frame(&f, 0x1D).unwrap(), m);
    assert!(
        RateAdviceMessage::from_frame(&f, 0x1E).is_err(),
        "opcode is configurable"
    );
    let mut other = m;
    other.opcode = 0x0A; // an opcode with a RETH layout still parses as Rate Advice
    let f = Frame::parse(&other.to_frame(&v6()).to_bytes()).unwrap();
    assert_eq!(RateAdviceMessage::from_frame(&f, 0x0A).unwrap(), other);
}

#[test]
fn cm_mad_offsets() {
    let req = CmMad {
        transaction_id: 9,
        message: CmMessage::Req(CmReq {
            local_comm_id: 0x11223344,
            service_id: 0x0106_4853,
            local_ca_guid: 0x0102_0304_0506_0708,
            local_qkey: 0,
            local_qpn: 0xABCDEF,
            starting_psn: 0x123456,
            pkey: 0xFFFF,
        }),
    };
    let m = req.to_mad();
    assert_eq!(&m[..4], &[1, 0x07, 2, 3]);
    assert_eq!(&m[16..18], &attr::REQ.to_be_bytes());
    assert_eq!(&m[24..28], &[0x11, 0x22, 0x33, 0x44]);
    assert_eq!(&m[56..59], &[0xAB, 0xCD, 0xEF]);
    let rep = CmMad {
        transaction_id: 9,
        message: CmMessage::Rep(CmRep {
            local_comm_id: 0x55667788,
            remote_comm_id: 0x11223344,
            local_qkey: 0,
            local_qpn: 0x000042,
            starting_psn: 1,
            local_ca_guid: 2,
        }),
    };
    let m = rep.to_mad();
    assert_eq!(&m[16..18], &attr::REP.to_be_bytes());
    assert_eq!(&m[28..32], &[0x11, 0x22, 0x33, 0x44]);
    assert_eq!(&m[36..39], &[0, 0, 0x42]);
    let f = Frame::parse(&req.to_frame(&v4(), 0, 0xC000).to_bytes()).unwrap();
    let p = f.roce().unwrap();
    assert_eq!((p.bth.opcode, p.bth.dest_qp), (opcode::UD_SEND_ONLY, 1));
    assert_eq!(p.ext.deth.unwrap().qkey, 0x8001_0000);
    assert_eq!(p.payload.len(), 256);
    assert_eq!(CmMad::from_frame(&f).unwrap(), req);
    let rtu = CmMad {
        transaction_id: 9,
        message: CmMessage::Rtu(CmCommIds {
            local_comm_id: 1,
            remote_comm_id: 2,
        }),
    };
    assert_eq!(CmMad::parse(&rtu.to_mad()).unwrap(), rtu);
}

/// The traffic generator is deterministic, parses back, has valid ICRCs
/// and opens every flow with CM REQ, REP, RTU whose QPNs match its data.
#[test]
fn traffic_generator_is_deterministic_and_consistent() {
    let cfg = TrafficConfig {
        seed: 42,
        flows: 3,
        messages_per_flow: 2,
        message_len: 2500,
        ipv6: true,
        vlan: Some(10),
        ..TrafficConfig::default()
    };
    let t = generate(&cfg);
    assert_eq!(t, generate(&cfg));
    assert_ne!(
        t,
        generate(&TrafficConfig {
            seed: 43,
            ..cfg.clone()
        })
    );
    // 3 flows x (CM: 2 on the DC side + 1 on the WAN side;
    //            writes: 2 messages x 3 packets, plus 2 ACKs back;
    //            sends: the same the other way).
    assert_eq!(t.dc_side.len(), 3 * (2 + 6 + 2));
    assert_eq!(t.wan_side.len(), 3 * (1 + 6 + 2));
    for side in [&t.dc_side, &t.wan_side] {
        assert!(side.windows(2).all(|w| w[0].0 <= w[1].0), "sorted by time");
        for (_, bytes) in side {
            let f = Frame::parse(bytes).unwrap();
            f.verify_checksums().unwrap();
            assert_eq!(f.eth.vlans[0].vid, 10);
        }
    }
    for flow in &t.flows {
        let of = |side: &Vec<(u64, Vec<u8>)>| -> Vec<Frame> {
            side.iter()
                .map(|(_, b)| Frame::parse(b).unwrap())
                .filter(|f| f.ip.header.src() == flow.dc_ip || f.ip.header.dst() == flow.dc_ip)
                .collect()
        };
        let dc = of(&t.dc_side);
        let wan = of(&t.wan_side);
        let CmMessage::Req(req) = CmMad::from_frame(&dc[0]).unwrap().message else {
            panic!("REQ first")
        };
        let CmMessage::Rep(rep) = CmMad::from_frame(&wan[0]).unwrap().message else {
            panic!("REP first")
        };
        assert!(matches!(
            CmMad::from_frame(&dc[1]).unwrap().message,
            CmMessage::Rtu(_)
        ));
        assert_eq!((req.local_qpn, rep.local_qpn), (flow.dc_qpn, flow.wan_qpn));
        assert_eq!(rep.remote_comm_id, req.local_comm_id);
        let data: Vec<_> = dc[2..]
            .iter()
            .map(|f| f.roce().unwrap())
            .filter(|p| p.bth.opcode != opcode::RC_ACKNOWLEDGE)
            .collect();
        assert_eq!(data[0].bth.opcode, opcode::RC_RDMA_WRITE_FIRST);
        assert!(data.iter().all(|p| p.bth.dest_qp == flow.wan_qpn));
        for (i, p) in data.iter().enumerate() {
            assert_eq!(p.bth.psn, (req.starting_psn + i as u32) & 0xFF_FFFF);
        }
        let acks: Vec<_> = wan
            .iter()
            .map(|f| f.roce().unwrap())
            .filter(|p| p.bth.opcode == opcode::RC_ACKNOWLEDGE)
            .collect();
        assert_eq!(acks.len(), 2);
        assert!(acks.iter().all(|p| p.bth.dest_qp == flow.dc_qpn));
        assert!(dc.iter().skip(2).all(|f| f.ip.header.ecn() == Ecn::Ect0));
    }
    let merged = t.merged();
    assert_eq!(merged.len(), t.dc_side.len() + t.wan_side.len());
    assert_eq!(merged[0].1, Side::Dc);
}

#[test]
fn traffic_round_trips_through_pcap() {
    let t = generate(&TrafficConfig {
        flows: 2,
        ..TrafficConfig::default()
    });
    let dir = std::env::temp_dir().join(format!("cngw-packet-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dc.pcap");
    write_pcap(&path, &t.dc_side).unwrap();
    assert_eq!(read_pcap(&path).unwrap(), t.dc_side);
    std::fs::remove_dir_all(&dir).unwrap();
}
