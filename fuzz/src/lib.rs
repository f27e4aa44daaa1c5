//! Bodies of the cargo-fuzz targets of `cngw-packet` (one function per
//! target in `fuzz_targets/`, docs/security.md "Fuzzing").
//!
//! Two kinds of target:
//! - `parse_*`: arbitrary bytes through every parser. No parser may panic,
//!   and whatever parses is rebuilt with the crate's builder and must parse
//!   back to the same value: parse(build(parse(x))) == parse(x).
//! - `build_*` and `flow_key`: values made from arbitrary fields (within
//!   the ranges the crate documents), built, and parsed back:
//!   parse(build(x)) == x, with the checksums and the ICRC valid.
//!
//! Every check is an `assert!`: libFuzzer reports a failed one as a crash.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use arbitrary::{Result, Unstructured};

use cngw_packet::bth::Bth;
use cngw_packet::cm::{CmCommIds, CmDreq, CmMad, CmMessage, CmRep, CmReq};
use cngw_packet::deth::Deth;
use cngw_packet::ethernet::{EthernetHeader, VlanTag};
use cngw_packet::fast_cnp::FastCnp;
use cngw_packet::flow_key::FlowKey;
use cngw_packet::icmp_extension::{ExtensionObject, ExtensionStructure, LonghaulObject};
use cngw_packet::icmpv6::Icmpv6Message;
use cngw_packet::ipv4::Ipv4Header;
use cngw_packet::ipv6::{Ipv6ExtHeader, Ipv6Header};
use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
use cngw_packet::parsed::{classify, ipv4_mapped, FrameClass};
use cngw_packet::pnc::{
    self, bgp, isis, ospf, AddressFamily, BgpPathAttributes, FlagBits, IsisPrefix,
    IsisReachability, MpReachNlri, NextHop, NhcAttribute, Ospfv2ExtendedPrefix,
    Ospfv3InterAreaPrefix, PathAttribute, PncCodes, Prefix, Protocol, RawTlv,
};
use cngw_packet::proxy_cn::{FiveTuple, ProxyCnMessage};
use cngw_packet::rate_advice::{RateAdvice, RateAdviceMessage};
use cngw_packet::roce::{Aeth, AtomicEth, ExtHeaders, HeaderLayout, Reth, RocePacket};
use cngw_packet::srh::{self, SegmentRoutingHeader};
use cngw_packet::udp::UdpDatagram;
use cngw_packet::vxlan::{self, VxlanHeader};
use cngw_packet::{
    icrc, Cnp, Ecn, Envelope, Frame, IpPacket, IpPair, LonghaulIcmpv6, LonghaulRocev2, UdpChecksum,
};

// ------------------------------------------------------------ parse_frame

/// Whole frames: `Frame::parse` and every typed view of a frame. A parsed
/// frame re-serialises to a frame that parses to the same value; each typed
/// message found in it (CNP, Long-haul CNP in both formats, Fast CNP, proxy
/// CN message, Rate Advice, CM MAD, VXLAN and SRv6 tunnels) is rebuilt from
/// its fields with the crate's builder and found again with the same fields.
/// The hardware parser's reference classifier, when it calls a frame
/// RoCEv2, agrees with `Frame::parse` on the flow key.
pub fn parse_frame(data: &[u8]) {
    let (&sel, bytes) = data.split_first().unwrap_or((&0, &[]));
    let h = classify(bytes);
    let _ = icrc::compute_frame(bytes);
    let _ = icrc::verify_frame(bytes);
    let mut m = bytes.to_vec();
    let _ = cngw_packet::frame::set_ecn(&mut m, Ecn::Ce);
    let _ = cngw_packet::frame::set_ipv6_flow_label(&mut m, 0xF_FFFF);
    let _ = icrc::fill_frame(&mut m);
    let Ok(f) = Frame::parse(bytes) else {
        return;
    };
    let again = Frame::parse(&f.to_bytes()).expect("a parsed frame re-serialises to a valid frame");
    assert_eq!(again, f, "parse(to_bytes(parse(x))) == parse(x)");
    let _ = f.verify_checksums();
    let env = Envelope::from_frame(&f);

    if let Ok(p) = f.roce() {
        if h.class == FrameClass::Roce {
            let (sip, dip) = match (f.ip.header.src(), f.ip.header.dst()) {
                (IpAddr::V4(s), IpAddr::V4(d)) => {
                    (ipv4_mapped(s.octets()), ipv4_mapped(d.octets()))
                }
                (IpAddr::V6(s), IpAddr::V6(d)) => (s.octets(), d.octets()),
                _ => unreachable!("one IP version per header"),
            };
            assert_eq!(
                FlowKey::of_header(&h),
                FlowKey::new(sip, dip, p.bth.dest_qp),
                "classifier and frame parser agree on the flow key"
            );
        }
    }
    if let Ok(cnp) = Cnp::from_frame(&f) {
        let g = reparse(&cnp.to_frame(&env));
        assert_eq!(Cnp::from_frame(&g), Ok(cnp));
    }
    if let Ok(lh) = LonghaulRocev2::from_frame(&f) {
        let g = reparse(&lh.to_frame(&env));
        icrc::verify_frame(&g.to_bytes()).expect("built Long-haul CNP has a valid ICRC");
        assert_eq!(LonghaulRocev2::from_frame(&g), Ok(lh));
    }
    let icmp_type = sel;
    if let Ok(lh) = LonghaulIcmpv6::from_frame(&f, icmp_type) {
        let g = reparse(&lh.to_frame(&env).expect("an ICMPv6 message came over IPv6"));
        g.verify_checksums()
            .expect("built ICMPv6 Long-haul CNP has valid checksums");
        assert_eq!(LonghaulIcmpv6::from_frame(&g, icmp_type), Ok(lh));
    }
    if let Some(udp) = f.udp() {
        let (src, dst) = (udp.src_port, udp.dst_port);
        // A datagram to 4791 is RoCEv2 and gets an ICRC: the formats on
        // their own UDP port never use it (docs/decisions.md), so there is
        // nothing to rebuild there.
        let own_port = dst != cngw_packet::udp::ROCEV2_PORT;
        if let (true, Ok(m)) = (own_port, FastCnp::from_frame(&f, dst)) {
            let g = reparse(&m.to_frame(&env, src, dst));
            g.verify_checksums()
                .expect("built Fast CNP has valid checksums");
            assert_eq!(FastCnp::from_frame(&g, dst), Ok(m));
        }
        if let (true, Ok(m)) = (own_port, ProxyCnMessage::from_frame(&f, dst)) {
            let g = reparse(&m.to_frame(&env, src, dst));
            g.verify_checksums()
                .expect("built proxy CN message has valid checksums");
            assert_eq!(
                ProxyCnMessage::from_frame(&g, dst),
                Ok(m.truncated_for(&env))
            );
        }
        if let Ok((vh, inner)) = vxlan::decapsulate(&f) {
            let g = reparse(&vxlan::encapsulate(
                &env,
                src,
                vh.vni,
                &inner,
                UdpChecksum::Compute,
            ));
            g.verify_checksums()
                .expect("built VXLAN frame has valid checksums");
            assert_eq!(
                vxlan::decapsulate(&g),
                Ok((VxlanHeader::new(vh.vni), inner))
            );
        }
    }
    if let Ok(m) = RateAdviceMessage::from_frame(&f, sel) {
        let g = reparse(&m.to_frame(&env));
        g.verify_checksums()
            .expect("built Rate Advice has valid checksums");
        icrc::verify_frame(&g.to_bytes()).expect("built Rate Advice has a valid ICRC");
        assert_eq!(RateAdviceMessage::from_frame(&g, sel), Ok(m));
    }
    if let Ok(mad) = CmMad::from_frame(&f) {
        let psn = f.roce().map(|p| p.bth.psn).unwrap_or(0);
        let g = reparse(&mad.to_frame(&env, psn, 0xC000));
        assert_eq!(CmMad::from_frame(&g), Ok(mad));
    }
    if let Ok((h, next, _inner)) = srh::decapsulate(&f) {
        let _ = h.active_segment();
        assert_eq!(
            SegmentRoutingHeader::from_ext_header(&h.to_ext_header(next)),
            Ok(h)
        );
    }
}

/// The frame `f` as a receiver sees it.
fn reparse(f: &Frame) -> Frame {
    let bytes = f.to_bytes();
    Frame::parse(&bytes).unwrap_or_else(|e| panic!("a built frame does not parse: {e}: {f:?}"))
}

// ----------------------------------------------------------- parse_layers

/// One header at a time: Ethernet (with VLAN tags), IPv4 (options), IPv6
/// (extension headers), IP packet, UDP, ICMPv6, BTH, DETH, RoCEv2 packet
/// (extended transport headers by opcode), VXLAN header, SRH. Each parsed
/// header is written back and parses to the same value.
pub fn parse_layers(data: &[u8]) {
    if let Ok((h, n)) = EthernetHeader::parse(data) {
        assert_eq!(n, h.len());
        assert_eq!(EthernetHeader::parse(&h.to_bytes()), Ok((h.clone(), n)));
    }
    if let Ok((h, hl, total)) = Ipv4Header::parse(data) {
        assert!(hl <= total && total <= data.len());
        let mut out = Vec::new();
        h.write(total - hl, &mut out);
        out.extend_from_slice(&data[hl..total]);
        let (h2, hl2, total2) = Ipv4Header::parse(&out).expect("written IPv4 header parses");
        assert_eq!((h2, hl2, total2), (h, hl, total));
    }
    if let Ok((h, hl, total)) = Ipv6Header::parse(data) {
        assert!(hl <= total && total <= data.len());
        let mut out = Vec::new();
        h.write(total - hl, &mut out);
        out.extend_from_slice(&data[hl..total]);
        let (h2, hl2, total2) = Ipv6Header::parse(&out).expect("written IPv6 header parses");
        assert_eq!((h2, hl2, total2), (h, hl, total));
    }
    if let Ok((p, n)) = IpPacket::parse(data) {
        // Bytes past the UDP length inside the IP payload are not kept, so
        // the rebuilt packet may be shorter than `n`.
        assert!(p.len() <= n);
        assert_eq!(IpPacket::parse(&p.to_bytes()), Ok((p.clone(), p.len())));
    }
    if let Ok(u) = UdpDatagram::parse(data) {
        assert_eq!(UdpDatagram::parse(&u.to_bytes()), Ok(u));
    }
    if let Ok(m) = Icmpv6Message::parse(data) {
        assert_eq!(Icmpv6Message::parse(&m.to_bytes()), Ok(m));
    }
    if let Ok(b) = Bth::parse(data) {
        assert_eq!(Bth::parse(&b.to_bytes()), Ok(b));
    }
    if let Ok(d) = Deth::parse(data) {
        let mut out = Vec::new();
        d.write(&mut out);
        assert_eq!(Deth::parse(&out), Ok(d));
    }
    if let Ok(p) = RocePacket::parse(data) {
        assert_eq!(RocePacket::parse(&p.to_bytes()), Ok(p));
    }
    if let Ok(v) = VxlanHeader::parse(data) {
        let mut out = Vec::new();
        v.write(&mut out);
        assert_eq!(VxlanHeader::parse(&out), Ok(v));
    }
    let e = Ipv6ExtHeader {
        header_type: 43,
        next_header: data.first().copied().unwrap_or(59),
        data: data.get(1..).unwrap_or(&[]).to_vec(),
    };
    if let Ok(s) = SegmentRoutingHeader::from_ext_header(&e) {
        let _ = s.active_segment();
        let again = SegmentRoutingHeader::from_ext_header(&s.to_ext_header(e.next_header));
        assert_eq!(again, Ok(s));
    }
    let _ = icrc::compute(data);
    let _ = icrc::carried(data);
    let _ = icrc::verify(data);
}

// --------------------------------------------------------- parse_messages

/// The notification payloads on their own: Long-haul CNP body and
/// extension structure (and the typed Long-haul objects), Fast CNP, proxy
/// CN message, Rate Advice body and message, CM MAD. Each one parsed is
/// written back and parses to the same value.
pub fn parse_messages(data: &[u8]) {
    let (&op, bytes) = data.split_first().unwrap_or((&0, &[]));
    if let Ok(m) = LonghaulCnp::parse(bytes) {
        assert_eq!(LonghaulCnp::parse(&m.to_bytes()), Ok(m.clone()));
        assert_eq!(m.to_bytes().len(), m.len());
        for o in m.extension.iter().flat_map(|e| e.objects.iter()) {
            if let Ok(t) = LonghaulObject::from_object(o) {
                assert_eq!(&t.to_object(o.class_num), o);
            }
        }
    }
    if let Ok(s) = ExtensionStructure::parse(bytes) {
        assert_eq!(ExtensionStructure::parse(&s.to_bytes()), Ok(s));
    }
    if let Ok(m) = FastCnp::parse(bytes) {
        assert_eq!(FastCnp::parse(&m.to_bytes()), Ok(m));
    }
    if let Ok(m) = ProxyCnMessage::parse(bytes) {
        assert_eq!(m.to_bytes().len(), m.len());
        assert_eq!(ProxyCnMessage::parse(&m.to_bytes()), Ok(m));
    }
    if let Ok(r) = RateAdvice::parse(bytes) {
        assert_eq!(RateAdvice::parse(&r.to_bytes()), Ok(r));
    }
    if let Ok(m) = RateAdviceMessage::parse(bytes, op) {
        assert_eq!(RateAdviceMessage::parse(&m.to_roce().to_bytes(), op), Ok(m));
    }
    if let Ok(m) = CmMad::parse(bytes) {
        assert_eq!(CmMad::parse(&m.to_mad()), Ok(m));
    }
}

// -------------------------------------------------------------- parse_pnc

/// The Proxy Node Capability codecs: IS-IS reachability TLVs, OSPFv2
/// Extended Prefix TLVs, OSPFv3 Inter-Area-Prefix TLVs (both families), BGP
/// path attributes, NHC attribute, MP_REACH_NLRI, NLRI, `pnc::decode` and
/// the hex-text reader. Whatever parses is encoded, and the encoding parses
/// to the same value.
pub fn parse_pnc(data: &[u8]) {
    let (&sel, bytes) = data.split_first().unwrap_or((&0, &[]));
    let codes = PncCodes {
        bgp_tlv_code: if sel & 1 == 0 {
            pnc::DEFAULT_BGP_TLV_CODE
        } else {
            u16::from_be_bytes([sel, sel])
        },
    };
    let family = if sel & 2 == 0 {
        AddressFamily::Ipv4
    } else {
        AddressFamily::Ipv6
    };
    if let Ok(t) = IsisReachability::parse(bytes) {
        let enc = t.encode().expect("a parsed IS-IS TLV encodes");
        assert_eq!(IsisReachability::parse(&enc), Ok(t.clone()));
        let _ = t.advertisements();
    }
    if let Ok(all) = IsisReachability::parse_all(bytes) {
        for t in all {
            let enc = t.encode().expect("a parsed IS-IS TLV encodes");
            assert_eq!(IsisReachability::parse(&enc), Ok(t));
        }
    }
    if let Ok(p) = Ospfv2ExtendedPrefix::parse(bytes) {
        let enc = p
            .encode()
            .expect("a parsed OSPFv2 Extended Prefix TLV encodes");
        assert_eq!(Ospfv2ExtendedPrefix::parse(&enc), Ok(p.clone()));
        let _ = p.advertisement();
    }
    let _ = Ospfv2ExtendedPrefix::parse_all(bytes);
    if let Ok(p) = Ospfv3InterAreaPrefix::parse(bytes, family) {
        let enc = p
            .encode()
            .expect("a parsed OSPFv3 Inter-Area-Prefix TLV encodes");
        assert_eq!(Ospfv3InterAreaPrefix::parse(&enc, family), Ok(p.clone()));
        let _ = p.advertisement();
    }
    let _ = Ospfv3InterAreaPrefix::parse_all(bytes, family);
    if let Ok(a) = BgpPathAttributes::parse(bytes, &codes) {
        let enc = a.encode(&codes).expect("parsed BGP path attributes encode");
        let mut want = a.clone();
        if let Some(n) = &mut want.nhc {
            sort_characteristics(n);
        }
        assert_eq!(BgpPathAttributes::parse(&enc, &codes), Ok(want));
        let _ = a.advertisements();
        let _ = a.next_hop_attribute();
    }
    if let Ok(mut n) = NhcAttribute::parse(bytes, &codes) {
        let enc = n.encode(&codes).expect("a parsed NHC attribute encodes");
        sort_characteristics(&mut n);
        assert_eq!(NhcAttribute::parse(&enc, &codes), Ok(n));
    }
    if let Ok(mut n) = NhcAttribute::parse_value(bytes, &codes) {
        let enc = n.encode_value(&codes).expect("a parsed NHC value encodes");
        sort_characteristics(&mut n);
        assert_eq!(NhcAttribute::parse_value(&enc, &codes), Ok(n));
    }
    if let Ok(m) = MpReachNlri::parse_value(bytes) {
        let enc = m.encode_value().expect("a parsed MP_REACH_NLRI encodes");
        assert_eq!(MpReachNlri::parse_value(&enc), Ok(m));
    }
    let _ = bgp::parse_nlri(bytes, family);
    for protocol in [
        Protocol::IsIs,
        Protocol::Ospfv2,
        Protocol::Ospfv3,
        Protocol::Bgp,
    ] {
        let _ = pnc::decode(protocol, bytes, &codes);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        if let Ok(b) = pnc::parse_hex(text) {
            assert_eq!(pnc::parse_hex(&pnc::to_hex(&b)), Ok(b));
        }
    }
}

/// The NHC encoder writes the characteristics in increasing code order
/// (`NhcAttribute::encode_value`) and the parser keeps the order it reads:
/// what a re-encoded attribute parses to is the same set, sorted (stably).
fn sort_characteristics(n: &mut NhcAttribute) {
    n.other_characteristics.sort_by_key(|t| t.code);
}

// ------------------------------------------------- structured generators

fn ecn(u: &mut Unstructured) -> Result<Ecn> {
    Ok(Ecn::from_bits(u.int_in_range(0..=3)?))
}

fn ip_pair(u: &mut Unstructured) -> Result<IpPair> {
    Ok(if u.arbitrary()? {
        IpPair::V6 {
            src: Ipv6Addr::from(u.arbitrary::<[u8; 16]>()?),
            dst: Ipv6Addr::from(u.arbitrary::<[u8; 16]>()?),
        }
    } else {
        IpPair::V4 {
            src: Ipv4Addr::from(u.arbitrary::<[u8; 4]>()?),
            dst: Ipv4Addr::from(u.arbitrary::<[u8; 4]>()?),
        }
    })
}

/// An envelope with every field in its documented range: up to two VLAN
/// tags (802.1Q, 802.1ad or the legacy Q-in-Q TPID), 6-bit DSCP, 2-bit ECN,
/// 20-bit flow label.
pub fn envelope(u: &mut Unstructured) -> Result<Envelope> {
    let mut e = Envelope::new(ip_pair(u)?);
    e.src_mac = u.arbitrary()?;
    e.dst_mac = u.arbitrary()?;
    for _ in 0..u.int_in_range(0..=2)? {
        e.vlans.push(VlanTag {
            tpid: *u.choose(&[0x8100u16, 0x88A8, 0x9100])?,
            pcp: u.int_in_range(0..=7)?,
            dei: u.arbitrary()?,
            vid: u.int_in_range(0..=4095)?,
        });
    }
    e.dscp = u.int_in_range(0..=63)?;
    e.ecn = ecn(u)?;
    e.ttl = u.arbitrary()?;
    if e.is_ipv6() {
        e.flow_label = u.int_in_range(0..=0xF_FFFF)?;
    } else {
        e.ipv4_id = u.arbitrary()?;
        e.dont_fragment = u.arbitrary()?;
    }
    Ok(e)
}

fn qp(u: &mut Unstructured) -> Result<u32> {
    u.int_in_range(0..=0xFF_FFFF)
}

fn bytes(u: &mut Unstructured, max: usize) -> Result<Vec<u8>> {
    let n = u.int_in_range(0..=max)?;
    Ok(u.bytes(n)?.to_vec())
}

/// A BTH with every bit arbitrary (reserved bits included) except the pad
/// count, which the frame builder sets from the payload length.
fn bth(u: &mut Unstructured) -> Result<Bth> {
    let mut b: [u8; 12] = u.arbitrary()?;
    b[1] &= !0x30;
    Ok(Bth::parse(&b).expect("any 12 bytes are a BTH"))
}

fn roce_packet(u: &mut Unstructured) -> Result<RocePacket> {
    let bth = bth(u)?;
    let l = HeaderLayout::of(bth.opcode);
    let ext = ExtHeaders {
        deth: if l.deth {
            Some(Deth {
                qkey: u.arbitrary()?,
                src_qp: qp(u)?,
            })
        } else {
            None
        },
        reth: if l.reth {
            Some(Reth {
                virtual_address: u.arbitrary()?,
                rkey: u.arbitrary()?,
                dma_length: u.arbitrary()?,
            })
        } else {
            None
        },
        atomic_eth: if l.atomic_eth {
            Some(AtomicEth {
                virtual_address: u.arbitrary()?,
                rkey: u.arbitrary()?,
                swap_or_add: u.arbitrary()?,
                compare: u.arbitrary()?,
            })
        } else {
            None
        },
        aeth: if l.aeth {
            Some(Aeth {
                syndrome: u.arbitrary()?,
                msn: qp(u)?,
            })
        } else {
            None
        },
        atomic_ack: if l.atomic_ack {
            Some(u.arbitrary()?)
        } else {
            None
        },
        immediate: if l.immediate {
            Some(u.arbitrary()?)
        } else {
            None
        },
        invalidate_rkey: if l.invalidate_rkey {
            Some(u.arbitrary()?)
        } else {
            None
        },
    };
    Ok(RocePacket {
        bth,
        ext,
        payload: bytes(u, 300)?,
        icrc: 0,
    })
}

fn action(u: &mut Unstructured) -> Result<Action> {
    Ok(*u.choose(&[
        Action::Notify,
        Action::Pause,
        Action::RateReduce,
        Action::Resume,
    ])?)
}

/// A Long-haul CNP: body fields in range (24-bit metric value), and either
/// no extension structure or one to four objects, typed (timestamp, device
/// ID, path ID) or raw.
fn longhaul_cnp(u: &mut Unstructured) -> Result<LonghaulCnp> {
    let body = LonghaulBody {
        congestion_level: u.arbitrary()?,
        action: action(u)?,
        parameter: u.arbitrary()?,
        source_qp: u.arbitrary()?,
        metric_type: u.arbitrary()?,
        metric_value: qp(u)?,
    };
    let n = u.int_in_range(0..=4)?;
    let extension = if n == 0 {
        None
    } else if u.arbitrary()? {
        let mut objects = Vec::new();
        for _ in 0..n {
            objects.push(match u.int_in_range(0..=3)? {
                0 => LonghaulObject::Timestamp(u.arbitrary()?),
                1 => LonghaulObject::DeviceId(u.arbitrary::<String>()?.chars().take(40).collect()),
                2 => LonghaulObject::PathId(bytes(u, 64)?),
                _ => LonghaulObject::Other {
                    c_type: u.arbitrary()?,
                    payload: bytes(u, 40)?,
                },
            });
        }
        let class_num = u.arbitrary()?;
        let s = ExtensionStructure::from_longhaul(class_num, &objects);
        for (o, t) in s.objects.iter().zip(&objects) {
            if !matches!(t, LonghaulObject::Other { c_type: 1..=3, .. }) {
                assert_eq!(
                    LonghaulObject::from_object(o).as_ref(),
                    Ok(t),
                    "typed object round trip"
                );
            }
        }
        Some(s)
    } else {
        let mut objects = Vec::new();
        for _ in 0..n {
            objects.push(ExtensionObject {
                class_num: u.arbitrary()?,
                c_type: u.arbitrary()?,
                payload: bytes(u, 40)?,
            });
        }
        Some(ExtensionStructure { objects })
    };
    Ok(LonghaulCnp { body, extension })
}

fn non_roce_port(u: &mut Unstructured) -> Result<u16> {
    let p: u16 = u.arbitrary()?;
    Ok(if p == cngw_packet::udp::ROCEV2_PORT {
        49791
    } else {
        p
    })
}

// ----------------------------------------------------------- build_frames

/// Every frame builder of the crate on arbitrary fields: RoCEv2 packet
/// (any opcode, its extended transport headers, any payload), CNP,
/// Long-haul CNP in RoCEv2 and ICMPv6 format with extension objects, Fast
/// CNP, proxy CN message (invoking packet truncated to 576/1280 bytes), Rate
/// Advice, CM MAD, VXLAN and SRv6 encapsulation. The bytes parse back to the
/// same frame and to the same message, the checksums (IPv4 header, UDP,
/// ICMPv6, extension) and the ICRC verify.
pub fn build_frames(u: &mut Unstructured) -> Result<()> {
    let env = envelope(u)?;
    match u.int_in_range(0..=9)? {
        0 => {
            let p = roce_packet(u)?;
            let f = p.to_frame(&env, u.arbitrary()?, UdpChecksum::Compute);
            let g = check_frame(&f, true);
            let mut want = p.clone();
            want.bth.pad_count = ((4 - p.payload.len() % 4) % 4) as u8;
            let got = g.roce().expect("built RoCEv2 frame carries RoCEv2");
            want.icrc = got.icrc;
            assert_eq!(got, want);
        }
        1 => {
            let cnp = Cnp {
                dest_qp: qp(u)?,
                pkey: u.arbitrary()?,
            };
            let g = check_frame(&cnp.to_frame_with_port(&env, u.arbitrary()?), true);
            assert_eq!(Cnp::from_frame(&g), Ok(cnp));
            assert!(
                LonghaulRocev2::from_frame(&g).is_err(),
                "a CNP is not a Long-haul CNP"
            );
        }
        2 => {
            let lh = LonghaulRocev2 {
                dest_qp: qp(u)?,
                pkey: u.arbitrary()?,
                cnp: longhaul_cnp(u)?,
            };
            let g = check_frame(&lh.to_frame_with_port(&env, u.arbitrary()?), true);
            assert_eq!(LonghaulRocev2::from_frame(&g), Ok(lh.clone()));
            assert!(
                Cnp::from_frame(&g).is_err(),
                "a Long-haul CNP is not a standard CNP"
            );
            assert_eq!(
                Cnp::legacy_view(&g.roce().unwrap()).map(|c| c.dest_qp),
                Ok(lh.dest_qp)
            );
        }
        3 => {
            let lh = LonghaulIcmpv6 {
                icmp_type: u.arbitrary()?,
                code: u.arbitrary()?,
                cnp: longhaul_cnp(u)?,
            };
            match lh.to_frame(&env) {
                Ok(f) => {
                    let g = check_frame(&f, false);
                    assert_eq!(LonghaulIcmpv6::from_frame(&g, lh.icmp_type), Ok(lh));
                }
                Err(_) => assert!(!env.is_ipv6(), "refused only over IPv4"),
            }
        }
        4 => {
            let m = FastCnp::new(u.int_in_range(0..=0xF_FFFF)?, u.int_in_range(0..=7)?);
            let dst = non_roce_port(u)?;
            let g = check_frame(&m.to_frame(&env, u.arbitrary()?, dst), false);
            assert_eq!(
                g.udp().map(|d| d.len()),
                Some(cngw_packet::fast_cnp::UDP_LENGTH)
            );
            assert_eq!(FastCnp::from_frame(&g, dst), Ok(m));
        }
        5 => {
            let inner_env = envelope(u)?;
            let inner = roce_packet(u)?.to_frame(&inner_env, u.arbitrary()?, UdpChecksum::Zero);
            let m = ProxyCnMessage {
                five_tuple: FiveTuple::of_packet(&inner.ip),
                level: u.int_in_range(0..=7)?,
                invoking_packet: inner.ip.to_bytes(),
            };
            let dst = non_roce_port(u)?;
            let f = m.to_frame(&env, u.arbitrary()?, dst);
            let limit = if env.is_ipv6() { 1280 } else { 576 };
            assert!(f.ip.len() <= limit, "CN message within {limit} bytes");
            let g = check_frame(&f, false);
            assert_eq!(
                ProxyCnMessage::from_frame(&g, dst),
                Ok(m.truncated_for(&env))
            );
        }
        6 => {
            let m = RateAdviceMessage {
                opcode: u.arbitrary()?,
                dest_qp: qp(u)?,
                pkey: u.arbitrary()?,
                psn: qp(u)?,
                advice: RateAdvice {
                    rate_mbps: u.arbitrary()?,
                    version: u.arbitrary()?,
                    destination_qp: u.arbitrary()?,
                    source_qp: u.arbitrary()?,
                },
            };
            let g = check_frame(&m.to_frame_with_port(&env, u.arbitrary()?), true);
            assert_eq!(RateAdviceMessage::from_frame(&g, m.opcode), Ok(m));
        }
        7 => {
            let ids = CmCommIds {
                local_comm_id: u.arbitrary()?,
                remote_comm_id: u.arbitrary()?,
            };
            let message = match u.int_in_range(0..=5)? {
                0 => CmMessage::Req(CmReq {
                    local_comm_id: u.arbitrary()?,
                    service_id: u.arbitrary()?,
                    local_ca_guid: u.arbitrary()?,
                    local_qkey: u.arbitrary()?,
                    local_qpn: qp(u)?,
                    starting_psn: qp(u)?,
                    pkey: u.arbitrary()?,
                }),
                1 => CmMessage::Rep(CmRep {
                    local_comm_id: u.arbitrary()?,
                    remote_comm_id: u.arbitrary()?,
                    local_qkey: u.arbitrary()?,
                    local_qpn: qp(u)?,
                    starting_psn: qp(u)?,
                    local_ca_guid: u.arbitrary()?,
                }),
                2 => CmMessage::Rtu(ids),
                3 => CmMessage::Dreq(CmDreq {
                    local_comm_id: ids.local_comm_id,
                    remote_comm_id: ids.remote_comm_id,
                    remote_qpn: qp(u)?,
                }),
                4 => CmMessage::Drep(ids),
                // Attribute IDs of the decoded messages are 0x10..=0x16.
                _ => CmMessage::Other {
                    attribute_id: u.arbitrary::<u16>()? | 0x20,
                },
            };
            let mad = CmMad {
                transaction_id: u.arbitrary()?,
                message,
            };
            let g = check_frame(&mad.to_frame(&env, qp(u)?, u.arbitrary()?), true);
            assert_eq!(CmMad::from_frame(&g), Ok(mad));
        }
        8 => {
            let vni = qp(u)?;
            let inner = bytes(u, 200)?;
            let g = check_frame(
                &vxlan::encapsulate(&env, u.arbitrary()?, vni, &inner, UdpChecksum::Compute),
                false,
            );
            assert_eq!(vxlan::decapsulate(&g), Ok((VxlanHeader::new(vni), inner)));
        }
        _ => {
            let mut path = Vec::new();
            for _ in 0..u.int_in_range(1..=5)? {
                path.push(Ipv6Addr::from(u.arbitrary::<[u8; 16]>()?));
            }
            let next = *u.choose(&[4u8, 41, 143])?;
            let inner = bytes(u, 200)?;
            match srh::encapsulate(&env, &path, next, &inner) {
                Ok(f) => {
                    let g = check_frame(&f, false);
                    let (h, nh, got) = srh::decapsulate(&g).expect("built SRv6 frame decapsulates");
                    assert_eq!(h, SegmentRoutingHeader::for_path(&path));
                    assert_eq!(h.active_segment(), Some(path[0]));
                    assert_eq!(g.ip.header.dst(), IpAddr::V6(path[0]));
                    assert_eq!((nh, got), (next, inner));
                }
                Err(_) => assert!(!env.is_ipv6(), "refused only over IPv4"),
            }
        }
    }
    Ok(())
}

/// Parses the wire bytes of a built frame: the same frame, at least the
/// Ethernet minimum, valid checksums and (RoCEv2) ICRC, still valid after
/// the gateway's in-place ECN and flow-label rewrites.
fn check_frame(f: &Frame, roce: bool) -> Frame {
    let mut bytes = f.to_bytes();
    assert!(bytes.len() >= cngw_packet::ethernet::MIN_FRAME_LEN);
    let g = reparse(f);
    assert_eq!(&g, f, "parse(build(x)) == x");
    assert_eq!(g.to_bytes(), bytes);
    g.verify_checksums()
        .expect("built frame has valid checksums");
    if roce {
        icrc::verify_frame(&bytes).expect("built RoCEv2 frame has a valid ICRC");
        cngw_packet::frame::set_ecn(&mut bytes, Ecn::Ce).expect("ECN rewrite");
        if f.ip.header.is_ipv6() {
            cngw_packet::frame::set_ipv6_flow_label(&mut bytes, 0xA_BCDE)
                .expect("flow label rewrite");
        }
        icrc::verify_frame(&bytes).expect("the ICRC masks ECN and flow label");
        Frame::parse(&bytes)
            .expect("rewritten frame parses")
            .verify_checksums()
            .expect("rewrites keep the checksums valid");
    }
    g
}

// -------------------------------------------------------------- build_pnc

fn family(u: &mut Unstructured) -> Result<AddressFamily> {
    Ok(if u.arbitrary()? {
        AddressFamily::Ipv6
    } else {
        AddressFamily::Ipv4
    })
}

fn addr(u: &mut Unstructured, f: AddressFamily) -> Result<IpAddr> {
    Ok(match f {
        AddressFamily::Ipv4 => IpAddr::V4(Ipv4Addr::from(u.arbitrary::<u32>()?)),
        AddressFamily::Ipv6 => IpAddr::V6(Ipv6Addr::from(u.arbitrary::<u128>()?)),
    })
}

fn prefix(u: &mut Unstructured, f: AddressFamily) -> Result<Prefix> {
    let len = u.int_in_range(0..=f.max_prefix_len())?;
    Ok(Prefix::containing(addr(u, f)?, len))
}

/// Flags of 1..=4 octets (IS-IS) or 4 or 8 octets (OSPF, 32-bit words).
fn flags(u: &mut Unstructured, words: bool) -> Result<FlagBits> {
    let n = if words {
        4 * u.int_in_range(1..=2)?
    } else {
        u.int_in_range(1..=4)?
    };
    Ok(FlagBits(u.bytes(n)?.to_vec()))
}

/// Raw TLVs with codes up to `code_max`, none equal to `reserved` (the
/// code the codec decodes into a typed field).
fn raw_tlvs(
    u: &mut Unstructured,
    count: usize,
    code_max: u16,
    reserved: u16,
    max_len: usize,
) -> Result<Vec<RawTlv>> {
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(0..=count)? {
        let code = u.int_in_range(0..=code_max)?;
        if code != reserved {
            out.push(RawTlv {
                code,
                value: bytes(u, max_len)?,
            });
        }
    }
    Ok(out)
}

fn next_hop(u: &mut Unstructured) -> Result<NextHop> {
    Ok(match u.int_in_range(0..=2)? {
        0 => NextHop::new(addr(u, AddressFamily::Ipv4)?),
        1 => NextHop::new(addr(u, AddressFamily::Ipv6)?),
        _ => NextHop {
            address: addr(u, AddressFamily::Ipv6)?,
            link_local: Some(Ipv6Addr::from(
                0xfe80u128 << 112 | u.arbitrary::<u64>()? as u128,
            )),
        },
    })
}

/// The PNC encoders on arbitrary advertisements: IS-IS TLV 135/236 entries
/// (prefix, metric, up/down and external bits, Prefix Attribute Flags,
/// other sub-TLVs), OSPFv2 Extended Prefix TLV, OSPFv3 Inter-Area-Prefix
/// TLV, BGP path attributes with MP_REACH_NLRI, NHC (PNC characteristic)
/// and other attributes. What encodes parses back to the same value, and
/// `pnc::decode` of it gives the value's own advertisements.
pub fn build_pnc(u: &mut Unstructured) -> Result<()> {
    let codes = PncCodes {
        bgp_tlv_code: if u.arbitrary()? {
            pnc::DEFAULT_BGP_TLV_CODE
        } else {
            u.arbitrary()?
        },
    };
    match u.int_in_range(0..=3)? {
        0 => {
            let f = family(u)?;
            let mut entries = Vec::new();
            for _ in 0..u.int_in_range(0..=4)? {
                entries.push(IsisPrefix {
                    prefix: prefix(u, f)?,
                    metric: u.arbitrary()?,
                    up_down: u.arbitrary()?,
                    external: f == AddressFamily::Ipv6 && u.arbitrary()?,
                    attribute_flags: if u.arbitrary()? {
                        Some(flags(u, false)?)
                    } else {
                        None
                    },
                    other_sub_tlvs: raw_tlvs(
                        u,
                        2,
                        255,
                        isis::SUB_TLV_PREFIX_ATTRIBUTE_FLAGS as u16,
                        10,
                    )?,
                });
            }
            let t = IsisReachability { family: f, entries };
            if let Ok(b) = t.encode() {
                assert_eq!(
                    IsisReachability::parse(&b),
                    Ok(t.clone()),
                    "IS-IS parse(encode(x)) == x"
                );
                assert_eq!(
                    pnc::decode(Protocol::IsIs, &b, &codes),
                    Ok(t.advertisements())
                );
            }
        }
        1 => {
            let p = Ospfv2ExtendedPrefix {
                route_type: *u.choose(&[0u8, 1, 3, 5, 7, 200])?,
                prefix: prefix(u, AddressFamily::Ipv4)?,
                flags: u.arbitrary()?,
                extended_flags: if u.arbitrary()? {
                    Some(flags(u, true)?)
                } else {
                    None
                },
                other_sub_tlvs: raw_tlvs(u, 3, u16::MAX, ospf::OSPFV2_PREFIX_EXTENDED_FLAGS, 9)?,
            };
            let b = p
                .encode()
                .expect("an OSPFv2 Extended Prefix TLV in range encodes");
            assert_eq!(b.len() % 4, 0);
            assert_eq!(
                Ospfv2ExtendedPrefix::parse(&b),
                Ok(p.clone()),
                "OSPFv2 parse(encode(x)) == x"
            );
            assert_eq!(
                pnc::decode(Protocol::Ospfv2, &b, &codes),
                Ok(vec![p.advertisement()])
            );
        }
        2 => {
            let f = family(u)?;
            let p = Ospfv3InterAreaPrefix {
                metric: u.int_in_range(0..=0xFF_FFFF)?,
                prefix: prefix(u, f)?,
                options: u.arbitrary()?,
                extended_flags: if u.arbitrary()? {
                    Some(flags(u, true)?)
                } else {
                    None
                },
                other_sub_tlvs: raw_tlvs(u, 3, u16::MAX, ospf::OSPFV3_PREFIX_EXTENDED_FLAGS, 9)?,
            };
            let b = p
                .encode()
                .expect("an OSPFv3 Inter-Area-Prefix TLV in range encodes");
            assert_eq!(b.len() % 4, 0);
            assert_eq!(
                Ospfv3InterAreaPrefix::parse(&b, f),
                Ok(p.clone()),
                "OSPFv3 parse(encode(x)) == x"
            );
        }
        _ => {
            let mp_reach = if u.int_in_range(0..=3)? != 0 {
                let f = family(u)?;
                let mut nlri = Vec::new();
                for _ in 0..u.int_in_range(0..=4)? {
                    nlri.push(prefix(u, f)?);
                }
                Some(MpReachNlri {
                    afi: if f == AddressFamily::Ipv4 {
                        bgp::AFI_IPV4
                    } else {
                        bgp::AFI_IPV6
                    },
                    safi: *u.choose(&[bgp::SAFI_UNICAST, bgp::SAFI_MULTICAST])?,
                    next_hop: next_hop(u)?,
                    nlri,
                })
            } else {
                None
            };
            let nhc = if u.arbitrary()? {
                // Characteristics are sent in increasing code order.
                let mut other = raw_tlvs(u, 3, u16::MAX, codes.bgp_tlv_code, 12)?;
                other.sort_by_key(|t| t.code);
                Some(NhcAttribute {
                    afi: bgp::AFI_IPV6,
                    safi: bgp::SAFI_UNICAST,
                    next_hop: match &mp_reach {
                        Some(mp) if u.arbitrary()? => mp.next_hop,
                        _ => next_hop(u)?,
                    },
                    pnc: u.arbitrary()?,
                    other_characteristics: other,
                })
            } else {
                None
            };
            let mut other = Vec::new();
            for _ in 0..u.int_in_range(0..=3)? {
                let type_code: u8 = u.arbitrary()?;
                if type_code == bgp::ATTR_MP_REACH_NLRI || type_code == bgp::ATTR_NHC {
                    continue;
                }
                let len = if u.ratio(1, 8)? {
                    u.int_in_range(256..=555)?
                } else {
                    u.int_in_range(0..=19)?
                };
                other.push(PathAttribute {
                    flags: u.arbitrary::<u8>()? & 0xE0,
                    type_code,
                    value: u.bytes(len)?.to_vec(),
                });
            }
            let a = BgpPathAttributes {
                mp_reach,
                nhc,
                other,
            };
            let b = a
                .encode(&codes)
                .expect("BGP path attributes in range encode");
            assert_eq!(
                BgpPathAttributes::parse(&b, &codes),
                Ok(a.clone()),
                "BGP parse(encode(x)) == x"
            );
            assert_eq!(
                pnc::decode(Protocol::Bgp, &b, &codes),
                Ok(a.advertisements())
            );
            if let Some(n) = &a.nhc {
                let one = n.encode(&codes).expect("NHC attribute encodes");
                assert_eq!(NhcAttribute::parse(&one, &codes).as_ref(), Ok(n));
            }
        }
    }
    Ok(())
}

// --------------------------------------------------------------- flow_key

/// The flow key {SIP, DIP, DQP}: a RoCEv2 frame built from arbitrary fields
/// is classified RoCEv2 by the hardware parser's reference classifier, with
/// the key of the envelope's addresses (IPv4-mapped for IPv4) and the BTH's
/// DestQP, and the frame's other fields (VLAN, ECN, flow label, UDP source
/// port, opcode, P_Key, PSN). The key's 35 hashed bytes, its reverse, and
/// its candidate buckets (one per bank, inside the table) hold for any key.
pub fn flow_key(u: &mut Unstructured) -> Result<()> {
    let mut env = envelope(u)?;
    // The hardware parser takes one 802.1Q tag at most (`parsed::classify`).
    env.vlans.truncate(1);
    for v in &mut env.vlans {
        v.tpid = 0x8100;
    }
    let p = roce_packet(u)?;
    let port: u16 = u.arbitrary()?;
    let bytes = p.to_frame(&env, port, UdpChecksum::Zero).to_bytes();
    let h = classify(&bytes);
    assert_eq!(
        h.class,
        FrameClass::Roce,
        "a built RoCEv2 frame is classified RoCEv2"
    );
    let key = match env.ip {
        IpPair::V4 { src, dst } => FlowKey::ipv4(src.octets(), dst.octets(), p.bth.dest_qp),
        IpPair::V6 { src, dst } => FlowKey::ipv6(src, dst, p.bth.dest_qp),
    };
    assert_eq!(FlowKey::of_header(&h), key);
    assert_eq!(h.is_ipv6, env.is_ipv6());
    assert_eq!(h.vlan_id, env.vlans.first().map(|v| v.vid));
    assert_eq!(h.ecn, env.ecn.bits());
    assert_eq!(h.flow_label, if env.is_ipv6() { env.flow_label } else { 0 });
    assert_eq!(
        (h.udp_src_port, h.opcode, h.pkey, h.dest_qp, h.psn),
        (port, p.bth.opcode, p.bth.pkey, p.bth.dest_qp, p.bth.psn)
    );

    let k = FlowKey::new(u.arbitrary()?, u.arbitrary()?, u.arbitrary()?);
    assert!(k.dqp <= 0xFF_FFFF);
    let b = k.to_bytes();
    assert_eq!(
        FlowKey::new(
            b[..16].try_into().unwrap(),
            b[16..32].try_into().unwrap(),
            u32::from_be_bytes([0, b[32], b[33], b[34]])
        ),
        k
    );
    assert_eq!(k.reverse(k.dqp).reverse(k.dqp), k);
    assert_eq!(k.gateway_order().gateway_order(), k);
    let bits = u.int_in_range(4..=19)?;
    for (bank, c) in k.candidates(bits).into_iter().enumerate() {
        assert!(c < 1 << bits, "candidate inside the table");
        assert_eq!((c >> (bits - 3)) as usize, bank, "one candidate per bank");
    }
    Ok(())
}
