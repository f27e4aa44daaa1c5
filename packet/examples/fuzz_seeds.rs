//! Writes the seed corpus of the cargo-fuzz targets (`fuzz/`): frames and
//! messages from this crate's builders, plus every frame of the pcap files
//! in `$CNGW_CAPTURES` when it is set (read there, never copied into the
//! project). Usage: `fuzz_seeds OUT_DIR`; one folder per target is made
//! under OUT_DIR.
//!
//! The `parse_*` targets read their first byte as a selector (ICMPv6 type,
//! Rate Advice opcode, PNC family and code), so each seed starts with one.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use cngw_packet::cm::{CmCommIds, CmMad, CmMessage};
use cngw_packet::icmp_extension::{ExtensionStructure, LonghaulObject, LONGHAUL_CLASS_NUM};
use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
use cngw_packet::pcap::read_pcap;
use cngw_packet::pnc::{
    bgp, AddressFamily, BgpPathAttributes, FlagBits, IsisPrefix, IsisReachability, MpReachNlri,
    NextHop, NhcAttribute, Ospfv2ExtendedPrefix, Ospfv3InterAreaPrefix, PncCodes, Prefix,
    ISIS_PNC_BIT, OSPFV2_PNC_BIT, OSPFV3_PNC_BIT,
};
use cngw_packet::proxy_cn::{FiveTuple, ProxyCnMessage};
use cngw_packet::rate_advice::{RateAdvice, RateAdviceMessage, DEFAULT_OPCODE};
use cngw_packet::roce::RoceFrameBuilder;
use cngw_packet::{
    fast_cnp, longhaul_icmpv6, proxy_cn, srh, vxlan, Cnp, Ecn, Envelope, FastCnp, Frame,
    LonghaulIcmpv6, LonghaulRocev2, UdpChecksum,
};

struct Out {
    dir: PathBuf,
    n: usize,
}

impl Out {
    fn put(&mut self, target: &str, selector: u8, bytes: &[u8]) {
        let dir = self.dir.join(target);
        std::fs::create_dir_all(&dir).expect("create the seed folder");
        let mut data = vec![selector];
        data.extend_from_slice(bytes);
        std::fs::write(dir.join(format!("seed-{:05}", self.n)), data).expect("write a seed");
        self.n += 1;
    }

    /// A frame for `parse_frame`, its IP packet and UDP payload for
    /// `parse_layers` (which reads no selector: the byte is part of the
    /// input there, so the layers are written without one too).
    fn frame(&mut self, selector: u8, f: &Frame) {
        self.put("parse_frame", selector, &f.to_bytes());
        let dir = self.dir.join("parse_layers");
        std::fs::create_dir_all(&dir).expect("create the seed folder");
        let mut pieces = vec![f.to_bytes(), f.ip.to_bytes()];
        if let Some(u) = f.udp() {
            pieces.push(u.to_bytes());
            pieces.push(u.payload.clone());
        }
        for p in pieces {
            std::fs::write(dir.join(format!("seed-{:05}", self.n)), p).expect("write a seed");
            self.n += 1;
        }
    }
}

fn envelopes() -> Vec<Envelope> {
    let v4 = Envelope::ipv4(Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(198, 51, 100, 7));
    let v6 = Envelope::ipv6(
        "2001:db8::1".parse().unwrap(),
        "2001:db8:1::2".parse().unwrap(),
    );
    vec![
        v4.clone(),
        v4.with_vlan(100).with_ecn(Ecn::Ce),
        v6.clone().with_flow_label(0xABCDE),
        v6.with_vlan(7).with_ecn(Ecn::Ect0),
    ]
}

fn longhaul_cnp(objects: bool) -> LonghaulCnp {
    let mut m = LonghaulCnp::new(LonghaulBody {
        congestion_level: 3,
        action: Action::RateReduce,
        parameter: 500,
        source_qp: 0x12,
        metric_type: 1,
        metric_value: 0x1234,
    });
    if objects {
        m.extension = Some(ExtensionStructure::from_longhaul(
            LONGHAUL_CLASS_NUM,
            &[
                LonghaulObject::Timestamp(0x0102_0304_0506_0708),
                LonghaulObject::DeviceId("gw-1".into()),
                LonghaulObject::path_of(&["2001:db8::9".parse().unwrap()]),
            ],
        ));
    }
    m
}

fn pnc_seeds(out: &mut Out) {
    let codes = PncCodes::default();
    let v4 = |a, b, c, d| IpAddr::V4(Ipv4Addr::new(a, b, c, d));
    let v6 = |s: &str| IpAddr::V6(s.parse::<Ipv6Addr>().unwrap());
    let p4 = Prefix::new(v4(192, 0, 2, 1), 32).unwrap();
    let p6 = Prefix::new(v6("2001:db8::"), 32).unwrap();
    for (family, prefix) in [(AddressFamily::Ipv4, p4), (AddressFamily::Ipv6, p6)] {
        let mut e = IsisPrefix::new(prefix, 20);
        e.attribute_flags = Some(FlagBits::with_bits(&[ISIS_PNC_BIT]));
        let t = IsisReachability {
            family,
            entries: vec![e, IsisPrefix::new(prefix, 10)],
        };
        // Selector bit 1 set: the IPv6 family for the OSPFv3 and NLRI parsers.
        let sel = if family == AddressFamily::Ipv6 { 2 } else { 0 };
        out.put("parse_pnc", sel, &t.encode().unwrap());
        let o3 = Ospfv3InterAreaPrefix {
            metric: 100,
            prefix,
            options: 0,
            extended_flags: Some(FlagBits::with_bits_in_words(&[OSPFV3_PNC_BIT])),
            other_sub_tlvs: vec![],
        };
        out.put("parse_pnc", sel, &o3.encode().unwrap());
    }
    let o2 = Ospfv2ExtendedPrefix {
        route_type: 1,
        prefix: p4,
        flags: 0,
        extended_flags: Some(FlagBits::with_bits_in_words(&[OSPFV2_PNC_BIT])),
        other_sub_tlvs: vec![],
    };
    out.put("parse_pnc", 0, &o2.encode().unwrap());
    let next_hop = NextHop::new(v6("2001:db8::1"));
    let a = BgpPathAttributes {
        mp_reach: Some(MpReachNlri {
            afi: bgp::AFI_IPV6,
            safi: bgp::SAFI_UNICAST,
            next_hop,
            nlri: vec![p6],
        }),
        nhc: Some(NhcAttribute {
            afi: bgp::AFI_IPV6,
            safi: bgp::SAFI_UNICAST,
            next_hop,
            pnc: true,
            other_characteristics: vec![],
        }),
        other: vec![],
    };
    out.put("parse_pnc", 0, &a.encode(&codes).unwrap());
    let nhc = a.nhc.as_ref().unwrap();
    out.put("parse_pnc", 0, &nhc.encode(&codes).unwrap());
    out.put("parse_pnc", 0, &nhc.encode_value(&codes).unwrap());
    out.put(
        "parse_pnc",
        0,
        &a.mp_reach.as_ref().unwrap().encode_value().unwrap(),
    );
}

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .expect("usage: fuzz_seeds OUT_DIR");
    let mut out = Out {
        dir: PathBuf::from(dir),
        n: 0,
    };
    for env in envelopes() {
        let roce = RoceFrameBuilder::new(env.clone())
            .opcode(0x0A)
            .dest_qp(0x11)
            .psn(7)
            .payload_len(13);
        out.frame(0, &roce.build_frame());
        let cnp = Cnp::new(0x42);
        out.frame(0, &cnp.to_frame(&env));
        for objects in [false, true] {
            let lh = LonghaulRocev2::new(0x42, longhaul_cnp(objects));
            out.frame(0, &lh.to_frame(&env));
            let m = lh.cnp.to_bytes();
            out.put("parse_messages", 0, &m);
            if env.is_ipv6() {
                let lh6 = LonghaulIcmpv6::new(longhaul_cnp(objects));
                out.frame(
                    longhaul_icmpv6::DEFAULT_ICMPV6_TYPE,
                    &lh6.to_frame(&env).unwrap(),
                );
            }
        }
        let fast = FastCnp::new(0xABCDE, 5);
        out.frame(0, &fast.to_frame(&env, 1000, fast_cnp::DEFAULT_UDP_PORT));
        out.put("parse_messages", 0, &fast.to_bytes());
        let inner = roce.build_frame();
        let cn = ProxyCnMessage {
            five_tuple: FiveTuple::of_packet(&inner.ip),
            level: 4,
            invoking_packet: inner.ip.to_bytes(),
        };
        out.frame(0, &cn.to_frame(&env, 1000, proxy_cn::DEFAULT_UDP_PORT));
        out.put("parse_messages", 0, &cn.to_bytes());
        let ra = RateAdviceMessage::new(0x42, RateAdvice::new(25_000, 0x42, 0x43));
        out.frame(DEFAULT_OPCODE, &ra.to_frame(&env));
        out.put("parse_messages", DEFAULT_OPCODE, &ra.to_roce().to_bytes());
        let mad = CmMad {
            transaction_id: 9,
            message: CmMessage::Rtu(CmCommIds {
                local_comm_id: 1,
                remote_comm_id: 2,
            }),
        };
        out.frame(0, &mad.to_frame(&env, 3, 0xC001));
        out.put("parse_messages", 0, &mad.to_mad());
        out.frame(
            0,
            &vxlan::encapsulate(&env, 1000, 77, &inner.to_bytes(), UdpChecksum::Compute),
        );
        if env.is_ipv6() {
            let path: Vec<Ipv6Addr> = vec![
                "2001:db8::a".parse().unwrap(),
                "2001:db8::b".parse().unwrap(),
            ];
            let f = srh::encapsulate(&env, &path, 143, &inner.to_bytes()).unwrap();
            out.frame(0, &f);
        }
    }
    pnc_seeds(&mut out);
    let mut captured = 0;
    if let Some(dir) = std::env::var_os("CNGW_CAPTURES") {
        let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(&dir))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|x| x == "pcap"));
        files.sort();
        for path in files {
            if let Ok(frames) = read_pcap(&path) {
                for (_, bytes) in frames {
                    out.put("parse_frame", 0, &bytes);
                    out.put("parse_frame", DEFAULT_OPCODE, &bytes);
                    captured += 1;
                }
            }
        }
    }
    println!(
        "fuzz_seeds: {} seeds ({captured} captured frames) in {}",
        out.n,
        out.dir.display()
    );
}
