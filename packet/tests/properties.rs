//! Property tests: no parser panics on any input (random bytes, and valid
//! frames with random corruption), and parse(build(x)) == x for every format.

use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::collection::vec;
use proptest::prelude::*;

use cngw_packet::bth::Bth;
use cngw_packet::cm::{CmCommIds, CmDreq, CmMad, CmMessage, CmRep, CmReq};
use cngw_packet::deth::Deth;
use cngw_packet::ethernet::{EthernetHeader, VlanTag};
use cngw_packet::fast_cnp::FastCnp;
use cngw_packet::icmp_extension::{ExtensionObject, ExtensionStructure};
use cngw_packet::icmpv6::Icmpv6Message;
use cngw_packet::ipv4::Ipv4Header;
use cngw_packet::ipv6::{Ipv6ExtHeader, Ipv6Header};
use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
use cngw_packet::pcap::{parse_pcap, to_pcap_bytes, Resolution};
use cngw_packet::proxy_cn::{FiveTuple, ProxyCnMessage};
use cngw_packet::rate_advice::{RateAdvice, RateAdviceMessage};
use cngw_packet::roce::{Aeth, AtomicEth, ExtHeaders, HeaderLayout, Reth, RocePacket};
use cngw_packet::srh::SegmentRoutingHeader;
use cngw_packet::udp::UdpDatagram;
use cngw_packet::vxlan::VxlanHeader;
use cngw_packet::{
    frame, icrc, srh, vxlan, Cnp, Ecn, Envelope, Frame, IpHeader, IpPacket, IpPair, LonghaulIcmpv6,
    LonghaulRocev2, UdpChecksum, L4,
};

// ---------------------------------------------------------------- strategies

fn ecn() -> impl Strategy<Value = Ecn> {
    (0u8..4).prop_map(Ecn::from_bits)
}

fn ip_pair() -> impl Strategy<Value = IpPair> {
    prop_oneof![
        (any::<[u8; 4]>(), any::<[u8; 4]>()).prop_map(|(s, d)| IpPair::V4 {
            src: Ipv4Addr::from(s),
            dst: Ipv4Addr::from(d)
        }),
        (any::<[u8; 16]>(), any::<[u8; 16]>()).prop_map(|(s, d)| IpPair::V6 {
            src: Ipv6Addr::from(s),
            dst: Ipv6Addr::from(d)
        }),
    ]
}

fn vlan() -> impl Strategy<Value = VlanTag> {
    (
        prop_oneof![Just(0x8100u16), Just(0x88A8), Just(0x9100)],
        0u8..8,
        any::<bool>(),
        0u16..4096,
    )
        .prop_map(|(tpid, pcp, dei, vid)| VlanTag {
            tpid,
            pcp,
            dei,
            vid,
        })
}

prop_compose! {
    fn envelope()(
        ip in ip_pair(),
        vlans in vec(vlan(), 0..3),
        macs in any::<([u8; 6], [u8; 6])>(),
        dscp in 0u8..64,
        ecn in ecn(),
        ttl in any::<u8>(),
        ipv4_id in any::<u16>(),
        dont_fragment in any::<bool>(),
        flow_label in 0u32..0x10_0000,
    ) -> Envelope {
        let mut e = Envelope::new(ip);
        e.src_mac = macs.0;
        e.dst_mac = macs.1;
        e.vlans = vlans;
        e.dscp = dscp;
        e.ecn = ecn;
        e.ttl = ttl;
        if !e.is_ipv6() {
            e.ipv4_id = ipv4_id;
            e.dont_fragment = dont_fragment;
        } else {
            e.flow_label = flow_label;
        }
        e
    }
}

prop_compose! {
    fn bth()(
        opcode in any::<u8>(), b1 in any::<u8>(), pkey in any::<u16>(), b4 in any::<u8>(),
        dest_qp in 0u32..0x100_0000, b8 in any::<u8>(), psn in 0u32..0x100_0000,
    ) -> Bth {
        let mut bytes = [0u8; 12];
        bytes[0] = opcode;
        bytes[1] = b1;
        bytes[2..4].copy_from_slice(&pkey.to_be_bytes());
        bytes[4] = b4;
        bytes[5..8].copy_from_slice(&dest_qp.to_be_bytes()[1..]);
        bytes[8] = b8;
        bytes[9..12].copy_from_slice(&psn.to_be_bytes()[1..]);
        Bth::parse(&bytes).unwrap()
    }
}

fn ext_headers_for(op: u8) -> impl Strategy<Value = ExtHeaders> {
    let l = HeaderLayout::of(op);
    (
        any::<(u32, u32)>(),
        any::<(u64, u32, u32)>(),
        any::<(u64, u32, u64, u64)>(),
        any::<(u8, u32)>(),
        any::<(u64, u32, u32)>(),
    )
        .prop_map(move |(d, r, a, k, x)| ExtHeaders {
            deth: l.deth.then_some(Deth {
                qkey: d.0,
                src_qp: d.1 & 0xFF_FFFF,
            }),
            reth: l.reth.then_some(Reth {
                virtual_address: r.0,
                rkey: r.1,
                dma_length: r.2,
            }),
            atomic_eth: l.atomic_eth.then_some(AtomicEth {
                virtual_address: a.0,
                rkey: a.1,
                swap_or_add: a.2,
                compare: a.3,
            }),
            aeth: l.aeth.then_some(Aeth {
                syndrome: k.0,
                msn: k.1 & 0xFF_FFFF,
            }),
            atomic_ack: l.atomic_ack.then_some(x.0),
            immediate: l.immediate.then_some(x.1),
            invalidate_rkey: l.invalidate_rkey.then_some(x.2),
        })
}

fn roce_packet() -> impl Strategy<Value = RocePacket> {
    bth().prop_flat_map(|bth| {
        (
            Just(bth),
            ext_headers_for(bth.opcode),
            vec(any::<u8>(), 0..300),
            any::<u32>(),
        )
            .prop_map(|(bth, ext, payload, icrc)| RocePacket {
                bth,
                ext,
                payload,
                icrc,
            })
    })
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        Just(Action::Notify),
        Just(Action::Pause),
        Just(Action::RateReduce),
        Just(Action::Resume)
    ]
}

prop_compose! {
    fn longhaul_cnp()(
        congestion_level in any::<u8>(), action in action(), parameter in any::<u16>(),
        source_qp in any::<u32>(), metric_type in any::<u8>(), metric_value in 0u32..0x100_0000,
        objects in proptest::option::of(vec((any::<u8>(), any::<u8>(), vec(any::<u8>(), 0..40)), 0..4)),
    ) -> LonghaulCnp {
        LonghaulCnp {
            body: LonghaulBody { congestion_level, action, parameter, source_qp, metric_type, metric_value },
            extension: objects.map(|objs| ExtensionStructure {
                objects: objs
                    .into_iter()
                    .map(|(class_num, c_type, payload)| ExtensionObject { class_num, c_type, payload })
                    .collect(),
            }),
        }
    }
}

fn ipv6_ext_header() -> impl Strategy<Value = Ipv6ExtHeader> {
    prop_oneof![
        (prop_oneof![Just(0u8), Just(43), Just(60)], 0usize..4)
            .prop_flat_map(|(t, n)| (Just(t), vec(any::<u8>(), 6 + 8 * n))),
        (Just(44u8), vec(any::<u8>(), 6)).prop_map(|(t, mut d)| {
            // A whole-packet fragment header (offset 0, M = 0).
            d[0] = 0;
            d[1] &= 0x06;
            (t, d)
        }),
    ]
    .prop_map(|(header_type, data)| Ipv6ExtHeader {
        header_type,
        next_header: 0,
        data,
    })
}

/// A finalized frame of any kind this crate builds from an envelope.
fn any_frame() -> impl Strategy<Value = Frame> {
    (
        envelope(),
        any::<u8>(),
        roce_packet(),
        vec(any::<u8>(), 0..200),
        any::<(u16, u16)>(),
    )
        .prop_map(|(env, kind, roce, bytes, ports)| match kind % 6 {
            0 => roce.to_frame(&env, ports.0, UdpChecksum::Compute),
            1 => Cnp::new(roce.bth.dest_qp).to_frame(&env),
            2 => FastCnp::new(roce.bth.psn, kind).to_frame(&env, ports.0, ports.1),
            3 => {
                let mut f = env.frame(17, L4::Udp(UdpDatagram::new(ports.0, ports.1, bytes)));
                f.finalize(UdpChecksum::Compute);
                f
            }
            4 => vxlan::encapsulate(&env, ports.0, roce.bth.dest_qp, &bytes, UdpChecksum::Zero),
            _ => {
                let mut f = env.frame(6, L4::Other(bytes));
                f.finalize(UdpChecksum::Keep);
                f
            }
        })
}

// ------------------------------------------------- no panics on any input

/// A UDP destination port other than RoCEv2's 4791: a datagram sent there is
/// parsed as RoCEv2 (and rejected when it is none), so formats carried on
/// their own UDP port never use it (docs/decisions.md).
fn non_roce_port() -> impl Strategy<Value = u16> {
    any::<u16>().prop_filter("4791 is RoCEv2", |p| {
        *p != cngw_packet::parsed::ROCEV2_UDP_PORT
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn no_parser_panics_on_random_bytes(bytes in vec(any::<u8>(), 0..400), port in any::<u16>(), op in any::<u8>()) {
        let _ = Frame::parse(&bytes);
        let _ = IpPacket::parse(&bytes);
        let _ = EthernetHeader::parse(&bytes);
        let _ = Ipv4Header::parse(&bytes);
        let _ = Ipv6Header::parse(&bytes);
        let _ = UdpDatagram::parse(&bytes);
        let _ = Icmpv6Message::parse(&bytes);
        let _ = Bth::parse(&bytes);
        let _ = Deth::parse(&bytes);
        let _ = RocePacket::parse(&bytes);
        let _ = LonghaulCnp::parse(&bytes);
        let _ = ExtensionStructure::parse(&bytes);
        let _ = FastCnp::parse(&bytes);
        let _ = ProxyCnMessage::parse(&bytes);
        let _ = RateAdvice::parse(&bytes);
        let _ = RateAdviceMessage::parse(&bytes, op);
        let _ = VxlanHeader::parse(&bytes);
        let _ = CmMad::parse(&bytes);
        let _ = SegmentRoutingHeader::from_ext_header(&Ipv6ExtHeader { header_type: 43, next_header: 0, data: bytes.clone() });
        let _ = icrc::compute(&bytes);
        let _ = icrc::carried(&bytes);
        let _ = icrc::verify(&bytes);
        let _ = icrc::compute_frame(&bytes);
        let _ = icrc::verify_frame(&bytes);
        let _ = parse_pcap(&bytes);
        let mut m = bytes.clone();
        let _ = frame::set_ecn(&mut m, Ecn::Ce);
        let _ = frame::set_ipv6_flow_label(&mut m, 0xFFFFF);
        let _ = icrc::fill_frame(&mut m);
        if let Ok(f) = Frame::parse(&bytes) {
            let _ = f.verify_checksums();
            let _ = f.roce();
            let _ = Cnp::from_frame(&f);
            let _ = LonghaulRocev2::from_frame(&f);
            let _ = LonghaulIcmpv6::from_frame(&f, op);
            let _ = FastCnp::from_frame(&f, port);
            let _ = ProxyCnMessage::from_frame(&f, port);
            let _ = RateAdviceMessage::from_frame(&f, op);
            let _ = CmMad::from_frame(&f);
            let _ = vxlan::decapsulate(&f);
            let _ = srh::decapsulate(&f);
            // Parsing is idempotent on its own output.
            prop_assert_eq!(Frame::parse(&f.to_bytes()).unwrap(), f);
        }
    }

    /// Valid frames with corrupted bytes, truncation or extension reach the
    /// deep parsers.
    #[test]
    fn no_parser_panics_on_corrupted_frames(
        f in any_frame(),
        flips in vec((any::<usize>(), any::<u8>()), 0..6),
        cut in any::<usize>(),
        op in any::<u8>(),
    ) {
        let mut bytes = f.to_bytes();
        for (at, v) in flips {
            let n = bytes.len();
            bytes[at % n] ^= v;
        }
        bytes.truncate(cut % (bytes.len() + 1));
        if let Ok(f) = Frame::parse(&bytes) {
            let _ = f.verify_checksums();
            let _ = f.roce();
            let _ = LonghaulRocev2::from_frame(&f);
            let _ = LonghaulIcmpv6::from_frame(&f, op);
            let _ = RateAdviceMessage::from_frame(&f, op);
            let _ = CmMad::from_frame(&f);
            let _ = vxlan::decapsulate(&f);
            let _ = srh::decapsulate(&f);
            let _ = FastCnp::from_frame(&f, 49791);
            let _ = ProxyCnMessage::from_frame(&f, 49792);
        }
        let _ = icrc::verify_frame(&bytes);
        let _ = frame::set_ecn(&mut bytes, Ecn::Ce);
    }
}

// ------------------------------------------------------------ round trips

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn frame_round_trips(f in any_frame()) {
        let bytes = f.to_bytes();
        prop_assert!(bytes.len() >= 60);
        let parsed = Frame::parse(&bytes).unwrap();
        prop_assert_eq!(&parsed, &f);
        prop_assert_eq!(parsed.to_bytes(), bytes);
        parsed.verify_checksums().unwrap();
    }

    #[test]
    fn ipv4_options_and_ipv6_extension_headers_round_trip(
        env in envelope(),
        options in vec(any::<[u8; 4]>(), 0..10),
        mut exts in vec(ipv6_ext_header(), 0..4),
        payload in vec(any::<u8>(), 0..64),
        ports in (any::<u16>(), non_roce_port()),
    ) {
        let mut f = env.frame(17, L4::Udp(UdpDatagram::new(ports.0, ports.1, payload)));
        match &mut f.ip.header {
            IpHeader::V4(h) => h.options = options.concat(),
            IpHeader::V6(h) => {
                // Chain: fixed header -> ext[0] -> ... -> UDP.
                let mut next = 17;
                for e in exts.iter_mut().rev() {
                    e.next_header = next;
                    next = e.header_type;
                }
                h.next_header = next;
                h.ext_headers = exts;
            }
        }
        f.finalize(UdpChecksum::Compute);
        let parsed = Frame::parse(&f.to_bytes()).unwrap();
        prop_assert!(matches!(parsed.ip.l4, L4::Udp(_)), "UDP found behind the extension headers");
        prop_assert_eq!(&parsed, &f);
        parsed.verify_checksums().unwrap();
    }

    #[test]
    fn bth_and_roce_packet_round_trip(p in roce_packet()) {
        prop_assert_eq!(Bth::parse(&p.bth.to_bytes()).unwrap(), p.bth);
        prop_assert_eq!(RocePacket::parse(&p.to_bytes()).unwrap(), p);
    }

    #[test]
    fn roce_frames_round_trip_and_keep_icrc_under_ecn_and_flow_label_rewrite(
        env in envelope(), p in roce_packet(), port in any::<u16>(), fl in 0u32..0x10_0000,
    ) {
        let f = p.to_frame(&env, port, UdpChecksum::Zero);
        let mut bytes = f.to_bytes();
        let parsed = Frame::parse(&bytes).unwrap();
        let mut expected = p.clone();
        expected.bth.pad_count = (4 - p.payload.len() % 4) as u8 % 4;
        expected.icrc = parsed.roce().unwrap().icrc;
        prop_assert_eq!(parsed.roce().unwrap(), expected);
        icrc::verify_frame(&bytes).unwrap();
        frame::set_ecn(&mut bytes, Ecn::Ce).unwrap();
        if env.is_ipv6() {
            frame::set_ipv6_flow_label(&mut bytes, fl).unwrap();
        }
        icrc::verify_frame(&bytes).unwrap();
        Frame::parse(&bytes).unwrap().verify_checksums().unwrap();
    }

    #[test]
    fn cnp_round_trips(env in envelope(), qp in 0u32..0x100_0000, pkey in any::<u16>()) {
        let cnp = Cnp { dest_qp: qp, pkey };
        let f = Frame::parse(&cnp.to_frame(&env).to_bytes()).unwrap();
        prop_assert_eq!(Cnp::from_frame(&f).unwrap(), cnp);
        prop_assert!(LonghaulRocev2::from_frame(&f).is_err());
    }

    #[test]
    fn longhaul_rocev2_round_trips(env in envelope(), qp in 0u32..0x100_0000, pkey in any::<u16>(), cnp in longhaul_cnp()) {
        let lh = LonghaulRocev2 { dest_qp: qp, pkey, cnp };
        let bytes = lh.to_frame(&env).to_bytes();
        let f = Frame::parse(&bytes).unwrap();
        prop_assert_eq!(LonghaulRocev2::from_frame(&f).unwrap(), lh.clone());
        prop_assert!(Cnp::from_frame(&f).is_err());
        prop_assert_eq!(Cnp::legacy_view(&f.roce().unwrap()).unwrap().dest_qp, qp);
        icrc::verify_frame(&bytes).unwrap();
    }

    #[test]
    fn longhaul_icmpv6_round_trips(env in envelope(), icmp_type in any::<u8>(), code in any::<u8>(), cnp in longhaul_cnp()) {
        let lh = LonghaulIcmpv6 { icmp_type, code, cnp };
        match lh.to_frame(&env) {
            Ok(frame) => {
                let f = Frame::parse(&frame.to_bytes()).unwrap();
                f.verify_checksums().unwrap();
                prop_assert_eq!(LonghaulIcmpv6::from_frame(&f, icmp_type).unwrap(), lh);
            }
            Err(_) => prop_assert!(!env.is_ipv6()),
        }
    }

    #[test]
    fn fast_cnp_round_trips(env in envelope(), fl in 0u32..0x10_0000, cl in 0u8..8, ports in (any::<u16>(), non_roce_port())) {
        let m = FastCnp::new(fl, cl);
        let f = Frame::parse(&m.to_frame(&env, ports.0, ports.1).to_bytes()).unwrap();
        f.verify_checksums().unwrap();
        prop_assert_eq!(f.udp().unwrap().len(), 12);
        prop_assert_eq!(FastCnp::from_frame(&f, ports.1).unwrap(), m);
    }

    #[test]
    fn proxy_cn_round_trips(env in envelope(), inner_env in envelope(), level in 0u8..8,
                            p in roce_packet(), port in non_roce_port()) {
        let inner = p.to_frame(&inner_env, 1234, UdpChecksum::Zero);
        let m = ProxyCnMessage {
            five_tuple: FiveTuple::of_packet(&inner.ip),
            level,
            invoking_packet: inner.ip.to_bytes(),
        };
        let frame = m.to_frame(&env, 777, port);
        let limit = if env.is_ipv6() { 1280 } else { 576 };
        prop_assert!(frame.ip.len() <= limit);
        let f = Frame::parse(&frame.to_bytes()).unwrap();
        f.verify_checksums().unwrap();
        prop_assert_eq!(ProxyCnMessage::from_frame(&f, port).unwrap(), m.truncated_for(&env));
    }

    #[test]
    fn rate_advice_round_trips(env in envelope(), op in any::<u8>(), qp in 0u32..0x100_0000,
                               pkey in any::<u16>(), psn in 0u32..0x100_0000, body in any::<(u32, u32, u32, u32)>()) {
        let m = RateAdviceMessage {
            opcode: op, dest_qp: qp, pkey, psn,
            advice: RateAdvice { rate_mbps: body.0, version: body.1, destination_qp: body.2, source_qp: body.3 },
        };
        let f = Frame::parse(&m.to_frame(&env).to_bytes()).unwrap();
        f.verify_checksums().unwrap();
        prop_assert_eq!(RateAdviceMessage::from_frame(&f, op).unwrap(), m);
    }

    #[test]
    fn vxlan_round_trips(env in envelope(), vni in 0u32..0x100_0000, inner in any_frame(), port in any::<u16>()) {
        let inner = inner.to_bytes();
        let f = Frame::parse(&vxlan::encapsulate(&env, port, vni, &inner, UdpChecksum::Compute).to_bytes()).unwrap();
        f.verify_checksums().unwrap();
        let (h, decapsulated) = vxlan::decapsulate(&f).unwrap();
        prop_assert_eq!(h, VxlanHeader::new(vni));
        prop_assert_eq!(decapsulated, inner);
    }

    #[test]
    fn srv6_round_trips(env in envelope(), path in vec(any::<[u8; 16]>(), 1..6), inner in any_frame(),
                        tag in any::<u16>(), flags in any::<u8>(), tlvs in vec(any::<[u8; 8]>(), 0..3)) {
        let path: Vec<Ipv6Addr> = path.into_iter().map(Ipv6Addr::from).collect();
        let inner_ip = inner.ip.to_bytes();
        let next = if inner.ip.header.is_ipv6() { 41 } else { 4 };
        match srh::encapsulate(&env, &path, next, &inner_ip) {
            Ok(frame) => {
                let f = Frame::parse(&frame.to_bytes()).unwrap();
                let (h, nh, decapsulated) = srh::decapsulate(&f).unwrap();
                prop_assert_eq!(&h, &SegmentRoutingHeader::for_path(&path));
                prop_assert_eq!(h.active_segment(), Some(path[0]));
                prop_assert_eq!(f.ip.header.dst(), std::net::IpAddr::V6(path[0]));
                prop_assert_eq!(nh, next);
                prop_assert_eq!(decapsulated, inner_ip);
            }
            Err(_) => prop_assert!(!env.is_ipv6()),
        }
        let mut h = SegmentRoutingHeader::for_path(&path);
        h.tag = tag;
        h.flags = flags;
        h.tlvs = tlvs.concat();
        prop_assert_eq!(SegmentRoutingHeader::from_ext_header(&h.to_ext_header(59)).unwrap(), h);
    }

    #[test]
    fn cm_mads_round_trip(env in envelope(), tid in any::<u64>(), ids in any::<(u32, u32)>(), qpns in (0u32..0x100_0000, 0u32..0x100_0000),
                          ids64 in any::<(u64, u64)>(), qkey in any::<u32>(), pkey in any::<u16>(), kind in 0u8..6, psn in 0u32..0x100_0000) {
        let message = match kind {
            0 => CmMessage::Req(CmReq { local_comm_id: ids.0, service_id: ids64.0, local_ca_guid: ids64.1, local_qkey: qkey,
                                        local_qpn: qpns.0, starting_psn: qpns.1, pkey }),
            1 => CmMessage::Rep(CmRep { local_comm_id: ids.0, remote_comm_id: ids.1, local_qkey: qkey, local_qpn: qpns.0,
                                        starting_psn: qpns.1, local_ca_guid: ids64.1 }),
            2 => CmMessage::Rtu(CmCommIds { local_comm_id: ids.0, remote_comm_id: ids.1 }),
            3 => CmMessage::Dreq(CmDreq { local_comm_id: ids.0, remote_comm_id: ids.1, remote_qpn: qpns.0 }),
            4 => CmMessage::Drep(CmCommIds { local_comm_id: ids.0, remote_comm_id: ids.1 }),
            _ => CmMessage::Other { attribute_id: pkey | 0x20 },
        };
        let mad = CmMad { transaction_id: tid, message };
        let f = Frame::parse(&mad.to_frame(&env, psn, 0xC001).to_bytes()).unwrap();
        f.verify_checksums().unwrap();
        prop_assert_eq!(CmMad::from_frame(&f).unwrap(), mad);
    }

    #[test]
    fn pcap_round_trips(frames in vec((0u64..4_000_000_000_000_000_000, vec(any::<u8>(), 0..100)), 0..10), be in any::<bool>()) {
        prop_assert_eq!(parse_pcap(&to_pcap_bytes(&frames, Resolution::Nanoseconds, be)).unwrap(), frames);
    }
}
