//! PX-03: Proxy Node Capability advertisements in IS-IS, OSPFv2, OSPFv3 and
//! BGP (draft-xiao-rtgwg-proxy-congestion-notification Figures 6 to 9):
//! byte strings written out from the RFC layouts, round trips of random
//! advertisements, and malformed input.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use cngw_packet::pnc::bgp::{self, parse_nlri};
use cngw_packet::pnc::isis::{self, IsisPrefix};
use cngw_packet::pnc::ospf;
use cngw_packet::pnc::{
    decode, parse_hex, to_hex, AddressFamily, BgpPathAttributes, FlagBits, IsisReachability,
    MpReachNlri, NextHop, NhcAttribute, Ospfv2ExtendedPrefix, Ospfv3InterAreaPrefix, PathAttribute,
    PncAdvertisement, PncCodes, Prefix, Protocol, RawTlv, DEFAULT_BGP_TLV_CODE,
};
use cngw_packet::{BuildError, Layer, ParseError};

// ------------------------------------------------------------------ helpers

fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(a, b, c, d))
}

fn v6(text: &str) -> IpAddr {
    IpAddr::V6(text.parse::<Ipv6Addr>().unwrap())
}

fn prefix(addr: IpAddr, len: u8) -> Prefix {
    Prefix::new(addr, len).unwrap()
}

fn hex(text: &str) -> Vec<u8> {
    parse_hex(text).unwrap()
}

/// A small deterministic PRNG (SplitMix64), so every run tests the same
/// cases and a failure names its iteration.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn family(&mut self) -> AddressFamily {
        if self.coin() {
            AddressFamily::Ipv4
        } else {
            AddressFamily::Ipv6
        }
    }

    fn addr(&mut self, family: AddressFamily) -> IpAddr {
        match family {
            AddressFamily::Ipv4 => IpAddr::V4(Ipv4Addr::from(self.next() as u32)),
            AddressFamily::Ipv6 => IpAddr::V6(Ipv6Addr::from(
                ((self.next() as u128) << 64) | self.next() as u128,
            )),
        }
    }

    /// A prefix of any length of `family`, host prefixes and /0 included.
    fn prefix(&mut self, family: AddressFamily) -> Prefix {
        let max = family.max_prefix_len() as u64;
        let len = match self.below(8) {
            0 => 0,
            1 => max,
            _ => self.below(max + 1),
        } as u8;
        Prefix::containing(self.addr(family), len)
    }

    /// Flags of 1..=4 octets (IS-IS) or 4 or 8 octets (OSPF).
    fn flags(&mut self, words: bool) -> FlagBits {
        let n = if words {
            4 * (1 + self.below(2) as usize)
        } else {
            1 + self.below(4) as usize
        };
        FlagBits(self.bytes(n))
    }

    /// Up to `count` raw TLVs with codes below `code_limit`, none equal to
    /// `reserved`, values up to `max_len` octets.
    fn raw_tlvs(
        &mut self,
        count: u64,
        code_limit: u64,
        reserved: u16,
        max_len: u64,
    ) -> Vec<RawTlv> {
        let n = self.below(count + 1);
        let mut out = Vec::new();
        for _ in 0..n {
            let code = self.below(code_limit) as u16;
            if code == reserved {
                continue;
            }
            let len = self.below(max_len + 1) as usize;
            out.push(RawTlv {
                code,
                value: self.bytes(len),
            });
        }
        out
    }
}

fn random_isis(rng: &mut Rng) -> IsisReachability {
    let family = rng.family();
    let entries = (0..rng.below(4))
        .map(|_| IsisPrefix {
            prefix: rng.prefix(family),
            metric: rng.next() as u32,
            up_down: rng.coin(),
            external: family == AddressFamily::Ipv6 && rng.coin(),
            attribute_flags: rng.coin().then(|| rng.flags(false)),
            other_sub_tlvs: rng.raw_tlvs(2, 256, isis::SUB_TLV_PREFIX_ATTRIBUTE_FLAGS as u16, 10),
        })
        .collect();
    IsisReachability { family, entries }
}

fn random_ospfv2(rng: &mut Rng) -> Ospfv2ExtendedPrefix {
    Ospfv2ExtendedPrefix {
        route_type: [0, 1, 3, 5, 7, 200][rng.below(6) as usize],
        prefix: rng.prefix(AddressFamily::Ipv4),
        flags: rng.next() as u8,
        extended_flags: rng.coin().then(|| rng.flags(true)),
        other_sub_tlvs: rng.raw_tlvs(3, 65536, ospf::OSPFV2_PREFIX_EXTENDED_FLAGS, 9),
    }
}

fn random_ospfv3(rng: &mut Rng, family: AddressFamily) -> Ospfv3InterAreaPrefix {
    Ospfv3InterAreaPrefix {
        metric: rng.below(1 << 24) as u32,
        prefix: rng.prefix(family),
        options: rng.next() as u8,
        extended_flags: rng.coin().then(|| rng.flags(true)),
        other_sub_tlvs: rng.raw_tlvs(3, 65536, ospf::OSPFV3_PREFIX_EXTENDED_FLAGS, 9),
    }
}

fn random_next_hop(rng: &mut Rng) -> NextHop {
    match rng.below(3) {
        0 => NextHop::new(rng.addr(AddressFamily::Ipv4)),
        1 => NextHop::new(rng.addr(AddressFamily::Ipv6)),
        _ => NextHop {
            address: rng.addr(AddressFamily::Ipv6),
            link_local: Some(Ipv6Addr::from(0xfe80u128 << 112 | rng.next() as u128)),
        },
    }
}

fn random_bgp(rng: &mut Rng, codes: &PncCodes) -> BgpPathAttributes {
    let mp_reach = (rng.below(4) != 0).then(|| {
        let family = rng.family();
        MpReachNlri {
            afi: if family == AddressFamily::Ipv4 {
                bgp::AFI_IPV4
            } else {
                bgp::AFI_IPV6
            },
            safi: [bgp::SAFI_UNICAST, bgp::SAFI_MULTICAST][rng.below(2) as usize],
            next_hop: random_next_hop(rng),
            nlri: (0..rng.below(5)).map(|_| rng.prefix(family)).collect(),
        }
    });
    let nhc = rng.coin().then(|| {
        // Sent in increasing code order, so generated that way.
        let mut other = rng.raw_tlvs(3, 65536, codes.bgp_tlv_code, 12);
        other.sort_by_key(|t| t.code);
        NhcAttribute {
            afi: bgp::AFI_IPV6,
            safi: bgp::SAFI_UNICAST,
            next_hop: match &mp_reach {
                Some(mp) if rng.below(4) != 0 => mp.next_hop,
                _ => random_next_hop(rng),
            },
            pnc: rng.coin(),
            other_characteristics: other,
        }
    });
    let other = (0..rng.below(4))
        .filter_map(|_| {
            let type_code = rng.next() as u8;
            if type_code == bgp::ATTR_MP_REACH_NLRI || type_code == bgp::ATTR_NHC {
                return None;
            }
            // Now and then longer than 255 octets: a two-octet length.
            let len = if rng.below(8) == 0 {
                256 + rng.below(300)
            } else {
                rng.below(20)
            } as usize;
            Some(PathAttribute {
                flags: rng.next() as u8 & 0xE0,
                type_code,
                value: rng.bytes(len),
            })
        })
        .collect();
    BgpPathAttributes {
        mp_reach,
        nhc,
        other,
    }
}

/// Every strict prefix of `bytes` fails to parse.
fn every_cut_fails<T: std::fmt::Debug>(
    bytes: &[u8],
    parse: impl Fn(&[u8]) -> Result<T, ParseError>,
) {
    for k in 0..bytes.len() {
        let r = parse(&bytes[..k]);
        assert!(r.is_err(), "cut at {k} of {} parsed: {r:?}", to_hex(bytes));
    }
}

// ----------------------------------------------------- hand-built advertisements

/// IS-IS TLV 135 with two entries (RFC 5305 section 4), the second one a
/// loopback with N and P set.
#[test]
fn px_03_isis_tlv_135_two_entries_one_with_the_p_flag() {
    let tlv = hex("87 15
         00 00 00 0a  18  0a 01 02
         00 00 00 14  60  c0 00 02 01  03  04 01 21");
    // 87 15        type 135, length 21
    // -- entry 1 --
    // 00 00 00 0a  metric 10
    // 18           up/down 0, sub-TLVs 0, prefix length 24
    // 0a 01 02     10.1.2.0/24, packed into 3 octets
    // -- entry 2 --
    // 00 00 00 14  metric 20
    // 60           up/down 0, sub-TLVs present (0x40), prefix length 32
    // c0 00 02 01  192.0.2.1/32
    // 03           3 octets of sub-TLVs
    // 04 01 21     Prefix Attribute Flags (RFC 7794), 1 octet: 0x21 =
    //              N (bit 2, 0x20) and P (bit 7, 0x01)
    let t = IsisReachability::parse(&tlv).unwrap();
    assert_eq!(t.family, AddressFamily::Ipv4);
    assert_eq!(t.entries.len(), 2);
    let (a, b) = (&t.entries[0], &t.entries[1]);
    assert_eq!(a.prefix, prefix(v4(10, 1, 2, 0), 24));
    assert_eq!(a.metric, 10);
    assert_eq!(a.attribute_flags, None);
    assert!(!a.pnc());
    assert_eq!(b.prefix, prefix(v4(192, 0, 2, 1), 32));
    assert_eq!(b.metric, 20);
    assert_eq!(b.attribute_flags, Some(FlagBits(vec![0x21])));
    assert!(b.flag(isis::N_FLAG_BIT) && b.pnc());
    for bit in [
        isis::X_FLAG_BIT,
        isis::R_FLAG_BIT,
        isis::E_FLAG_BIT,
        isis::A_FLAG_BIT,
    ] {
        assert!(!b.flag(bit), "bit {bit}");
    }
    assert!(b.other_sub_tlvs.is_empty());
    assert_eq!(
        t.advertisements(),
        vec![
            PncAdvertisement {
                protocol: Protocol::IsIs,
                prefix: prefix(v4(10, 1, 2, 0), 24),
                proxy: None,
                pnc: false,
                metric: Some(10),
            },
            // The P-flag on the node's host prefix: the prefix is the proxy.
            PncAdvertisement {
                protocol: Protocol::IsIs,
                prefix: prefix(v4(192, 0, 2, 1), 32),
                proxy: Some(v4(192, 0, 2, 1)),
                pnc: true,
                metric: Some(20),
            },
        ]
    );
    assert_eq!(t.encode().unwrap(), tlv);
}

/// IS-IS TLV 236 (RFC 5308 section 2) with the P-flag, an IPv6 Source
/// Router ID (RFC 7794) and a sub-TLV this code does not know.
#[test]
fn px_03_isis_tlv_236_entry_names_its_source_router() {
    let tlv = hex("ec 28
         00 00 00 0a  20  40  20 01 0d b8 00 0a 00 00
         19
         04 01 01
         0c 10 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01
         63 02 ab cd");
    // ec 28        type 236, length 40
    // 00 00 00 0a  metric 10
    // 20           U 0, X 0, S 1 (0x20), reserved 0
    // 40           prefix length 64
    // 20 01 .. 00  2001:db8:a::/64, 8 octets
    // 19           25 octets of sub-TLVs:
    // 04 01 01       Prefix Attribute Flags, 0x01 = P
    // 0c 10 ...      IPv6 Source Router ID (type 12, 16 octets) 2001:db8::1
    // 63 02 ab cd    type 99, 2 octets, kept raw
    let t = IsisReachability::parse(&tlv).unwrap();
    assert_eq!(t.family, AddressFamily::Ipv6);
    let e = &t.entries[0];
    assert_eq!(e.prefix, prefix(v6("2001:db8:a::"), 64));
    assert!(e.pnc() && !e.external && !e.up_down);
    assert_eq!(e.source_router_id(), Some(v6("2001:db8::1")));
    assert_eq!(
        e.other_sub_tlvs[1],
        RawTlv {
            code: 99,
            value: vec![0xab, 0xcd]
        }
    );
    assert_eq!(
        t.advertisements(),
        vec![PncAdvertisement {
            protocol: Protocol::IsIs,
            prefix: prefix(v6("2001:db8:a::"), 64),
            proxy: Some(v6("2001:db8::1")),
            pnc: true,
            metric: Some(10),
        }]
    );
    assert_eq!(t.encode().unwrap(), tlv);
}

/// OSPFv2 Extended Prefix TLV (RFC 7684 section 2.1) with the Prefix
/// Extended Flags sub-TLV 11 (RFC 9792) carrying P, and an odd-length
/// sub-TLV to show the padding.
#[test]
fn px_03_ospfv2_extended_prefix_tlv_with_the_p_flag() {
    let tlv = hex("00 01 00 18
         01 20 00 40
         c0 00 02 05
         00 0b 00 04  20 00 00 00
         00 63 00 03  aa bb cc 00");
    // 00 01 00 18  type 1, length 24
    // 01           route type 1 (intra-area)
    // 20           prefix length 32
    // 00           AF 0 (IPv4 unicast)
    // 40           Flags: N (0x40)
    // c0 00 02 05  192.0.2.5 (one 32-bit word)
    // 00 0b 00 04  sub-TLV 11, Prefix Extended Flags, 4 octets
    // 20 00 00 00  bit 2 = P
    // 00 63 00 03  sub-TLV 99, 3 octets
    // aa bb cc 00  value and one octet of padding (not in the length)
    let p = Ospfv2ExtendedPrefix::parse(&tlv).unwrap();
    assert_eq!(p.route_type, ospf::route_type::INTRA_AREA);
    assert_eq!(p.prefix, prefix(v4(192, 0, 2, 5), 32));
    assert_eq!(p.flags, ospf::OSPFV2_FLAG_NODE);
    assert_eq!(p.extended_flags, Some(FlagBits(vec![0x20, 0, 0, 0])));
    assert_eq!(
        p.other_sub_tlvs,
        vec![RawTlv {
            code: 99,
            value: vec![0xaa, 0xbb, 0xcc]
        }]
    );
    assert_eq!(
        p.advertisement(),
        PncAdvertisement {
            protocol: Protocol::Ospfv2,
            prefix: prefix(v4(192, 0, 2, 5), 32),
            proxy: Some(v4(192, 0, 2, 5)),
            pnc: true,
            metric: None,
        }
    );
    assert_eq!(p.encode().unwrap(), tlv);
}

/// Bit 2 of the Extended Prefix TLV's own Flags octet is RFC 9089's ELC
/// flag, not the PNC: without the RFC 9792 sub-TLV there is no P-flag.
#[test]
fn px_03_ospfv2_elc_flag_in_the_flags_octet_is_not_the_p_flag() {
    // type 1, length 8; route type 3, /24, AF 0, Flags 0x20 (E, ELC);
    // 198.51.100.0 in one word; no sub-TLVs
    let p = Ospfv2ExtendedPrefix::parse(&hex("00010008 03180020 c6336400")).unwrap();
    assert_eq!(p.flags, ospf::OSPFV2_FLAG_ELC);
    assert!(!p.pnc());
    assert_eq!(p.advertisement().proxy, None);
}

/// OSPFv3 Inter-Area-Prefix TLV (RFC 8362 section 3.4) with the OSPFv3
/// Prefix Extended Flags sub-TLV 37 and a Prefix Source Router Address
/// sub-TLV 28 (RFC 9084).
#[test]
fn px_03_ospfv3_inter_area_prefix_tlv_with_the_p_flag() {
    let tlv = hex("00 03 00 2c
         00 00 00 64
         30 20 00 00
         20 01 0d b8 00 01 00 00
         00 25 00 04  20 00 00 00
         00 1c 00 10  20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 09");
    // 00 03 00 2c  type 3, length 44
    // 00 00 00 64  reserved 0, metric 100
    // 30           prefix length 48
    // 20           PrefixOptions: N-bit (0x20, RFC 8362), not the PNC
    // 00 00        reserved
    // 20 01 .. 00  2001:db8:1::/48 in two words (6 octets + 2 zero)
    // 00 25 00 04  sub-TLV 37, Prefix Extended Flags, 4 octets
    // 20 00 00 00  bit 2 = P
    // 00 1c 00 10  sub-TLV 28, Prefix Source Router Address, 16 octets
    // 20 01 ...09  2001:db8::9
    let p = Ospfv3InterAreaPrefix::parse(&tlv, AddressFamily::Ipv6).unwrap();
    assert_eq!(p.metric, 100);
    assert_eq!(p.prefix, prefix(v6("2001:db8:1::"), 48));
    assert_eq!(p.options, ospf::OSPFV3_OPTION_N);
    assert!(p.pnc());
    assert_eq!(
        p.advertisement(),
        PncAdvertisement {
            protocol: Protocol::Ospfv3,
            prefix: prefix(v6("2001:db8:1::"), 48),
            proxy: Some(v6("2001:db8::9")),
            pnc: true,
            metric: Some(100),
        }
    );
    assert_eq!(p.encode().unwrap(), tlv);

    // The N-bit alone (PrefixOptions 0x20) is not the P-flag.
    let n_only = hex("0003 0010 00000064 30200000 20010db8 00010000");
    let p = Ospfv3InterAreaPrefix::parse(&n_only, AddressFamily::Ipv6).unwrap();
    assert!(!p.pnc());
}

/// An RFC 5838 IPv4 instance of OSPFv3 carries IPv4 prefixes in the same
/// TLV; the caller names the family.
#[test]
fn px_03_ospfv3_ipv4_instance_prefix() {
    // type 3, length 12; metric 7; /32, options 0; 192.0.2.7; no sub-TLVs
    let tlv = hex("0003 000c 00000007 20000000 c0000207");
    let p = Ospfv3InterAreaPrefix::parse(&tlv, AddressFamily::Ipv4).unwrap();
    assert_eq!(p.prefix, prefix(v4(192, 0, 2, 7), 32));
    assert_eq!(p.metric, 7);
}

/// The path attributes of an UPDATE: MP_REACH_NLRI with two IPv6 prefixes
/// and the NHC attribute with a characteristic this code does not know
/// before the PNC one.
fn bgp_update_attributes() -> Vec<u8> {
    hex("80 0e 25
           00 02  01  10  20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 07  00
           30 20 01 0d b8 00 05
           40 20 01 0d b8 00 06 00 00
         40 01 01 00
         40 02 00
         40 05 04 00 00 00 64
         c0 27 20
           00 02  01  10  20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 07
           00 02 00 04  c0 00 02 63
           ff 50 00 00")
    // 80 0e 25     optional, MP_REACH_NLRI (14), 37 octets:
    //   00 02 01     AFI 2 (IPv6), SAFI 1 (unicast)
    //   10 ...07     next hop, 16 octets: 2001:db8::7
    //   00           reserved
    //   30 ...       2001:db8:5::/48 (6 octets)
    //   40 ...       2001:db8:6::/64 (8 octets)
    // 40 01 01 00  ORIGIN IGP
    // 40 02 00     AS_PATH, empty
    // 40 05 04 ..  LOCAL_PREF 100
    // c0 27 20     optional transitive, NHC (39), 32 octets:
    //   00 02 01 10 ...07  AFI 2, SAFI 1, next hop 2001:db8::7 (16 octets)
    //   00 02 00 04 c0 00 02 63  characteristic 2 (NNHN), 4 octets: kept raw
    //   ff 50 00 00  characteristic 0xFF50 (the PNC, default TBD2), length 0
}

#[test]
fn px_03_bgp_nhc_with_an_unknown_tlv_before_the_pnc_one() {
    let bytes = bgp_update_attributes();
    let codes = PncCodes::default();
    let attrs = BgpPathAttributes::parse(&bytes, &codes).unwrap();
    let nhc = attrs.nhc.as_ref().unwrap();
    assert_eq!(nhc.next_hop, NextHop::new(v6("2001:db8::7")));
    assert!(nhc.pnc);
    assert_eq!(
        nhc.other_characteristics,
        vec![RawTlv {
            code: 2,
            value: vec![0xc0, 0, 2, 0x63]
        }]
    );
    assert_eq!(
        attrs.other.iter().map(|a| a.type_code).collect::<Vec<_>>(),
        vec![1, 2, 5]
    );
    let proxied = |p: Prefix| PncAdvertisement {
        protocol: Protocol::Bgp,
        prefix: p,
        proxy: Some(v6("2001:db8::7")),
        pnc: true,
        metric: None,
    };
    assert_eq!(
        attrs.advertisements(),
        vec![
            proxied(prefix(v6("2001:db8:5::"), 48)),
            proxied(prefix(v6("2001:db8:6::"), 64)),
        ]
    );
    assert_eq!(
        decode(Protocol::Bgp, &bytes, &codes).unwrap(),
        attrs.advertisements()
    );
    assert_eq!(attrs.encode(&codes).unwrap(), bytes);

    // The NHC alone, as one attribute.
    let nhc_only = &bytes[bytes.len() - 35..];
    assert_eq!(&NhcAttribute::parse(nhc_only, &codes).unwrap(), nhc);
    assert_eq!(nhc.encode(&codes).unwrap(), nhc_only);

    // With another code for TBD2 the 0xFF50 TLV is just another
    // characteristic.
    let other_code = PncCodes {
        bgp_tlv_code: 0xFF51,
    };
    let n = NhcAttribute::parse(nhc_only, &other_code).unwrap();
    assert!(!n.pnc);
    assert_eq!(n.other_characteristics.len(), 2);
    assert_eq!(n.other_characteristics[1].code, DEFAULT_BGP_TLV_CODE);
}

/// The NHC header names a next hop; when the route's next hop differs (a
/// speaker changed it without understanding the NHC), the PNC is not
/// believed. A PNC TLV with a value is malformed and ignored.
#[test]
fn px_03_bgp_pnc_is_ignored_for_another_next_hop_or_with_a_value() {
    let codes = PncCodes::default();
    let mut attrs = BgpPathAttributes::parse(&bgp_update_attributes(), &codes).unwrap();
    attrs.mp_reach.as_mut().unwrap().next_hop = NextHop::new(v6("2001:db8::8"));
    let ads = attrs.advertisements();
    assert!(ads
        .iter()
        .all(|a| !a.pnc && a.proxy == Some(v6("2001:db8::8"))));

    // AFI 1, SAFI 1, next hop 192.0.2.1; characteristic 0xFF50 with one
    // octet of value.
    let nhc = NhcAttribute::parse_value(&hex("0001 01 04 c0000201 ff50 0001 00"), &codes).unwrap();
    assert!(!nhc.pnc);
    assert!(nhc.other_characteristics.is_empty());
}

/// An IPv4 route sent the classic way: NEXT_HOP attribute and the UPDATE's
/// own NLRI field.
#[test]
fn px_03_bgp_ipv4_route_in_the_update_nlri_field() {
    let codes = PncCodes::default();
    // ORIGIN IGP; NEXT_HOP 192.0.2.1; NHC: AFI 1, SAFI 1, next hop
    // 192.0.2.1, PNC
    let attrs =
        hex("40 01 01 00  40 03 04 c0 00 02 01  c0 27 0c 00 01 01 04 c0 00 02 01 ff 50 00 00");
    // NLRI: 10.0.0.0/8 (1 octet), 198.51.100.0/22 (3 octets)
    let nlri = parse_nlri(&hex("08 0a  16 c6 33 64"), AddressFamily::Ipv4).unwrap();
    assert_eq!(
        nlri,
        vec![prefix(v4(10, 0, 0, 0), 8), prefix(v4(198, 51, 100, 0), 22)]
    );
    let a = BgpPathAttributes::parse(&attrs, &codes).unwrap();
    assert_eq!(a.next_hop_attribute(), Some(Ipv4Addr::new(192, 0, 2, 1)));
    assert!(a.advertisements().is_empty());
    let ads = a.advertisements_for_nlri(&nlri);
    assert_eq!(ads.len(), 2);
    assert!(ads
        .iter()
        .all(|x| x.pnc && x.proxy == Some(v4(192, 0, 2, 1))));
}

/// `decode` walks an LSP's TLV area or an LSA body and skips what is not a
/// prefix TLV.
#[test]
fn px_03_decode_skips_other_tlvs() {
    let codes = PncCodes::default();
    // IS-IS: TLV 137 (hostname "gw"), then a TLV 135 with 192.0.2.1/32 and P.
    let lsp = hex("89 02 67 77  87 0d 00000014 60 c0000201 03 040101");
    let ads = decode(Protocol::IsIs, &lsp, &codes).unwrap();
    assert_eq!(ads.len(), 1);
    assert!(ads[0].pnc);
    // OSPFv2: an Extended Prefix Range TLV (type 2, 8 octets, skipped),
    // then an Extended Prefix TLV with P.
    let body = hex("0002 0008 18000000 c0000200  0001 0010 01200000 c0000205 000b0004 20000000");
    let ads = decode(Protocol::Ospfv2, &body, &codes).unwrap();
    assert_eq!(ads.len(), 1);
    assert_eq!(ads[0].proxy, Some(v4(192, 0, 2, 5)));
}

#[test]
fn px_03_hex_text_in_the_usual_spellings() {
    let want = vec![0x87, 0x0c, 0xab];
    for text in [
        "870cab",
        "0x870cab",
        "87 0c ab",
        "87:0c:ab",
        "0x87 0x0C\n\tAB",
        " 870c:ab ",
    ] {
        assert_eq!(parse_hex(text).unwrap(), want, "{text:?}");
    }
    assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
    assert_eq!(to_hex(&want), "870cab");
    assert!(matches!(
        parse_hex("87 c"),
        Err(ParseError::InvalidField {
            layer: Layer::HexText,
            value: 1,
            ..
        })
    ));
    assert!(matches!(
        parse_hex("8g"),
        Err(ParseError::InvalidField {
            layer: Layer::HexText,
            value: 0x67,
            ..
        })
    ));
    assert!(parse_hex("0x").unwrap().is_empty());
}

// --------------------------------------------------------------- round trips

#[test]
fn px_03_round_trip_random_isis_tlvs() {
    let mut rng = Rng(0x1515_0135);
    for i in 0..3000 {
        let t = random_isis(&mut rng);
        let bytes = t
            .encode()
            .unwrap_or_else(|e| panic!("case {i}: {e} for {t:?}"));
        assert_eq!(IsisReachability::parse(&bytes), Ok(t.clone()), "case {i}");
        let ads = t.advertisements();
        assert_eq!(
            decode(Protocol::IsIs, &bytes, &PncCodes::default()),
            Ok(ads)
        );
    }
}

#[test]
fn px_03_round_trip_random_ospfv2_tlvs() {
    let mut rng = Rng(0x0f2);
    for i in 0..3000 {
        let p = random_ospfv2(&mut rng);
        let bytes = p.encode().unwrap();
        assert_eq!(bytes.len() % 4, 0);
        assert_eq!(
            Ospfv2ExtendedPrefix::parse(&bytes),
            Ok(p.clone()),
            "case {i}"
        );
    }
}

#[test]
fn px_03_round_trip_random_ospfv3_tlvs() {
    let mut rng = Rng(0x0f3);
    for i in 0..3000 {
        let family = rng.family();
        let p = random_ospfv3(&mut rng, family);
        let bytes = p.encode().unwrap();
        assert_eq!(bytes.len() % 4, 0);
        assert_eq!(
            Ospfv3InterAreaPrefix::parse(&bytes, family),
            Ok(p.clone()),
            "case {i}"
        );
    }
}

#[test]
fn px_03_round_trip_random_bgp_attributes() {
    let mut rng = Rng(0xb9b);
    for i in 0..3000 {
        let codes = PncCodes {
            bgp_tlv_code: if rng.coin() {
                DEFAULT_BGP_TLV_CODE
            } else {
                rng.next() as u16
            },
        };
        let a = random_bgp(&mut rng, &codes);
        let bytes = a.encode(&codes).unwrap();
        assert_eq!(
            BgpPathAttributes::parse(&bytes, &codes),
            Ok(a.clone()),
            "case {i}"
        );
        if let Some(nhc) = &a.nhc {
            let one = nhc.encode(&codes).unwrap();
            assert_eq!(
                NhcAttribute::parse(&one, &codes).as_ref(),
                Ok(nhc),
                "case {i}"
            );
        }
        // The PNC of every prefix is the NHC's, when bound to its next hop.
        for ad in a.advertisements() {
            let mp = a.mp_reach.as_ref().unwrap();
            let bound = a
                .nhc
                .as_ref()
                .is_some_and(|n| n.pnc && n.next_hop.address == mp.next_hop.address);
            assert_eq!(ad.pnc, bound, "case {i}");
            assert_eq!(ad.proxy, Some(mp.next_hop.address));
        }
    }
}

// ------------------------------------------------------------ malformed input

#[test]
fn px_03_every_truncation_is_an_error() {
    let codes = PncCodes::default();
    every_cut_fails(
        &hex("87 15 0000000a 18 0a0102 00000014 60 c0000201 03 040121"),
        IsisReachability::parse,
    );
    every_cut_fails(
        &hex("ec 28 0000000a 20 40 20010db8000a0000 19 040101 0c10 20010db8000000000000000000000001 6302abcd"),
        IsisReachability::parse,
    );
    every_cut_fails(
        &hex("0001 0018 01200040 c0000205 000b0004 20000000 00630003 aabbcc00"),
        Ospfv2ExtendedPrefix::parse,
    );
    every_cut_fails(
        &hex("0003 002c 00000064 30200000 20010db800010000 00250004 20000000 001c0010 20010db8000000000000000000000009"),
        |b| Ospfv3InterAreaPrefix::parse(b, AddressFamily::Ipv6),
    );
    let attrs = bgp_update_attributes();
    every_cut_fails(&attrs[attrs.len() - 35..], |b| {
        NhcAttribute::parse(b, &codes)
    });

    // Random structures too.
    let mut rng = Rng(0xc07);
    for _ in 0..200 {
        every_cut_fails(
            &random_isis(&mut rng).encode().unwrap(),
            IsisReachability::parse,
        );
        every_cut_fails(
            &random_ospfv2(&mut rng).encode().unwrap(),
            Ospfv2ExtendedPrefix::parse,
        );
        let family = rng.family();
        every_cut_fails(&random_ospfv3(&mut rng, family).encode().unwrap(), |b| {
            Ospfv3InterAreaPrefix::parse(b, family)
        });
        if let Some(nhc) = random_bgp(&mut rng, &codes).nhc {
            every_cut_fails(&nhc.encode(&codes).unwrap(), |b| {
                NhcAttribute::parse(b, &codes)
            });
        }
    }
}

/// A sequence of path attributes cut anywhere but between two attributes
/// is an error; cut between them it is the attributes before the cut.
#[test]
fn px_03_path_attributes_cut_inside_an_attribute_are_an_error() {
    let codes = PncCodes::default();
    let bytes = bgp_update_attributes();
    let boundaries = [0, 40, 44, 47, 54, bytes.len()];
    for k in 0..=bytes.len() {
        let r = BgpPathAttributes::parse(&bytes[..k], &codes);
        assert_eq!(r.is_ok(), boundaries.contains(&k), "cut at {k}: {r:?}");
    }
}

/// The TLV's own length fixed up to the cut: the entries are read to the
/// end, and only a cut between two entries parses (to the first ones).
#[test]
fn px_03_isis_entry_cut_inside_a_tlv_is_an_error() {
    let tlv = hex("87 15 0000000a 18 0a0102 00000014 60 c0000201 03 040121");
    let whole = IsisReachability::parse(&tlv).unwrap();
    for k in 0..=21 {
        let mut cut = tlv[..2 + k].to_vec();
        cut[1] = k as u8;
        let r = IsisReachability::parse(&cut);
        match k {
            0 => assert_eq!(r.unwrap().entries, vec![]),
            8 => assert_eq!(r.unwrap().entries, whole.entries[..1]),
            21 => assert_eq!(r.unwrap(), whole),
            _ => assert!(r.is_err(), "cut at {k}: {r:?}"),
        }
    }
}

/// The same for OSPF sub-TLVs: a cut inside one, or before its padding, is
/// an error.
#[test]
fn px_03_ospf_sub_tlv_cut_inside_a_tlv_is_an_error() {
    let tlv = hex("0001 0018 01200040 c0000205 000b0004 20000000 00630003 aabbcc00");
    for k in 0..=24usize {
        let mut cut = tlv[..4 + k].to_vec();
        cut[2..4].copy_from_slice(&(k as u16).to_be_bytes());
        cut.resize(cut.len() + (4 - k % 4) % 4, 0);
        let r = Ospfv2ExtendedPrefix::parse(&cut);
        assert_eq!(r.is_ok(), [8, 16, 24].contains(&k), "cut at {k}: {r:?}");
    }
}

#[test]
fn px_03_lengths_that_overrun_are_bad_lengths() {
    let codes = PncCodes::default();
    let bad_length = |r: Result<_, ParseError>, want_layer: Layer, want_field: &str| match r {
        Err(ParseError::BadLength { layer, field, .. }) => {
            assert_eq!((layer, field), (want_layer, want_field))
        }
        other => panic!("{other:?}"),
    };
    // TLV length 22 with 21 octets of value.
    bad_length(
        IsisReachability::parse(&hex(
            "87 16 0000000a 18 0a0102 00000014 60 c0000201 03 040121",
        ))
        .map(|_| ()),
        Layer::IsisReachability,
        "TLV length",
    );
    // Sub-TLV area of 4 octets, 3 present.
    bad_length(
        IsisReachability::parse(&hex("87 0d 00000014 60 c0000201 04 040121")).map(|_| ()),
        Layer::IsisReachability,
        "sub-TLV length",
    );
    // A sub-TLV's value of 2 octets where 1 is left.
    bad_length(
        IsisReachability::parse(&hex("87 0d 00000014 60 c0000201 03 040221")).map(|_| ()),
        Layer::IsisReachability,
        "sub-TLV value length",
    );
    // OSPFv2 sub-TLV length 8 in a TLV with 4 octets left for it.
    bad_length(
        Ospfv2ExtendedPrefix::parse(&hex("0001 0010 01200040 c0000205 000b0008 20000000"))
            .map(|_| ()),
        Layer::Ospfv2ExtendedPrefix,
        "sub-TLV length",
    );
    // OSPFv3 TLV length beyond the bytes.
    bad_length(
        Ospfv3InterAreaPrefix::parse(
            &hex("0003 0020 00000064 30200000 20010db800010000"),
            AddressFamily::Ipv6,
        )
        .map(|_| ()),
        Layer::Ospfv3InterAreaPrefix,
        "TLV length",
    );
    // BGP attribute of 5 octets with 4 present; extended length 0x0105
    // with 2 present.
    bad_length(
        BgpPathAttributes::parse(&hex("40 05 05 00000064"), &codes).map(|_| ()),
        Layer::BgpPathAttribute,
        "attribute length",
    );
    bad_length(
        BgpPathAttributes::parse(&hex("d0 63 0105 0000"), &codes).map(|_| ()),
        Layer::BgpPathAttribute,
        "attribute length",
    );
    // NHC characteristic of 8 octets with 4 present.
    bad_length(
        NhcAttribute::parse_value(&hex("0001 01 04 c0000201 0002 0008 c0000263"), &codes)
            .map(|_| ()),
        Layer::BgpNhc,
        "characteristic length",
    );
    // Next hop length 16 with 4 octets.
    bad_length(
        NhcAttribute::parse_value(&hex("0002 01 10 c0000201"), &codes).map(|_| ()),
        Layer::BgpNhc,
        "next hop length",
    );
}

#[test]
fn px_03_prefix_lengths_out_of_range_are_refused() {
    let codes = PncCodes::default();
    let bad_prefix_len = |r: Result<_, ParseError>, want: u64| match r {
        Err(ParseError::InvalidField {
            field: "prefix length",
            value,
            ..
        }) => assert_eq!(value, want),
        other => panic!("{other:?}"),
    };
    // TLV 135: 6-bit length 33.
    bad_prefix_len(
        IsisReachability::parse(&hex("87 0a 0000000a 21 0a010203 00")).map(|_| ()),
        33,
    );
    // TLV 236: length 129.
    bad_prefix_len(
        IsisReachability::parse(&hex("ec 07 0000000a 00 81 00")).map(|_| ()),
        129,
    );
    // OSPFv2: /33.
    bad_prefix_len(
        Ospfv2ExtendedPrefix::parse(&hex("0001 0008 01210000 c0000205")).map(|_| ()),
        33,
    );
    // OSPFv3: /129, and /33 in an IPv4 instance.
    bad_prefix_len(
        Ospfv3InterAreaPrefix::parse(&hex("0003 0008 00000001 81000000"), AddressFamily::Ipv6)
            .map(|_| ()),
        129,
    );
    bad_prefix_len(
        Ospfv3InterAreaPrefix::parse(&hex("0003 0008 00000001 21000000"), AddressFamily::Ipv4)
            .map(|_| ()),
        33,
    );
    // BGP NLRI: /33 (IPv4), /129 (IPv6).
    bad_prefix_len(
        parse_nlri(&hex("21 0a000000 00"), AddressFamily::Ipv4).map(|_| ()),
        33,
    );
    bad_prefix_len(parse_nlri(&hex("81"), AddressFamily::Ipv6).map(|_| ()), 129);
    let mp = hex("80 0e 0b 0001 01 04 c0000201 00 21 0a");
    bad_prefix_len(BgpPathAttributes::parse(&mp, &codes).map(|_| ()), 33);
    // And the encoders refuse them.
    let long = Prefix {
        addr: v4(10, 0, 0, 0),
        len: 33,
    };
    assert!(matches!(
        IsisReachability {
            family: AddressFamily::Ipv4,
            entries: vec![IsisPrefix::new(long, 1)],
        }
        .encode(),
        Err(BuildError::FieldTooWide { bits: 32, .. })
    ));
}

/// OSPF pads the prefix "with zero bits" (RFC 7684, RFC 5340): set bits
/// past the length are refused. IS-IS and BGP store only the significant
/// octets and ignore trailing bits (RFC 4271: "irrelevant").
#[test]
fn px_03_bits_past_the_prefix_length() {
    // OSPFv2 10.1.2.3/24.
    assert!(matches!(
        Ospfv2ExtendedPrefix::parse(&hex("0001 0008 01180000 0a010203")),
        Err(ParseError::InvalidField { value: 24, .. })
    ));
    // OSPFv3 2001:db8:1::/48 in two words: clean, then with a bit set in
    // the last 16 bits of the second word.
    assert!(Ospfv3InterAreaPrefix::parse(
        &hex("0003 0010 00000001 30000000 20010db8 00010000"),
        AddressFamily::Ipv6
    )
    .is_ok());
    assert!(matches!(
        Ospfv3InterAreaPrefix::parse(
            &hex("0003 0010 00000001 30000000 20010db8 00010001"),
            AddressFamily::Ipv6
        ),
        Err(ParseError::InvalidField { value: 48, .. })
    ));
    // IS-IS 10.1.255.0/20 packed as 0a 01 ff: read as 10.1.240.0/20.
    let t = IsisReachability::parse(&hex("87 08 0000000a 14 0a01ff")).unwrap();
    assert_eq!(t.entries[0].prefix, prefix(v4(10, 1, 240, 0), 20));
    // BGP NLRI 10.1.255.0/20 likewise.
    assert_eq!(
        parse_nlri(&hex("14 0a01ff"), AddressFamily::Ipv4).unwrap(),
        vec![prefix(v4(10, 1, 240, 0), 20)]
    );
    // Encoders refuse them everywhere.
    let dirty = Prefix {
        addr: v4(10, 1, 2, 3),
        len: 24,
    };
    assert!(Prefix::new(dirty.addr, dirty.len).is_err());
    let p = Ospfv2ExtendedPrefix {
        route_type: 1,
        prefix: dirty,
        flags: 0,
        extended_flags: None,
        other_sub_tlvs: vec![],
    };
    assert!(matches!(
        p.encode(),
        Err(BuildError::InvalidField { value: 24, .. })
    ));
}

#[test]
fn px_03_other_malformed_fields() {
    let codes = PncCodes::default();
    // OSPFv2 AF 1.
    assert!(matches!(
        Ospfv2ExtendedPrefix::parse(&hex("0001 0008 01200100 c0000205")),
        Err(ParseError::InvalidField {
            field: "address family",
            value: 1,
            ..
        })
    ));
    // RFC 9792: Prefix Extended Flags of 3 octets.
    assert!(matches!(
        Ospfv2ExtendedPrefix::parse(&hex("0001 0010 01200000 c0000205 000b0003 20000000")),
        Err(ParseError::InvalidField { value: 3, .. })
    ));
    // Not an Extended Prefix TLV; not TLV 135/236.
    assert!(matches!(
        Ospfv2ExtendedPrefix::parse(&hex("0002 0000")),
        Err(ParseError::NotThisFormat { found: 2, .. })
    ));
    assert!(matches!(
        IsisReachability::parse(&hex("16 00")),
        Err(ParseError::NotThisFormat { found: 0x16, .. })
    ));
    // Two Prefix Attribute Flags sub-TLVs in one entry.
    assert!(IsisReachability::parse(&hex("87 10 00000014 60 c0000201 06 040101 040100")).is_err());
    // A next hop of 5 octets.
    assert!(matches!(
        NhcAttribute::parse_value(&hex("0001 01 05 c000020100"), &codes),
        Err(ParseError::InvalidField {
            field: "next hop length",
            value: 5,
            ..
        })
    ));
    // MP_REACH_NLRI of VPNv4 (SAFI 128) and two MP_REACH_NLRI.
    assert!(matches!(
        BgpPathAttributes::parse(&hex("80 0e 05 0001 80 00 00"), &codes),
        Err(ParseError::NotThisFormat { found: 128, .. })
    ));
    let mp = hex("80 0e 09 0001 01 04 c0000201 00");
    assert!(matches!(
        BgpPathAttributes::parse(&[mp.clone(), mp].concat(), &codes),
        Err(ParseError::InvalidField { value: 14, .. })
    ));
}

#[test]
fn px_03_encoders_refuse_what_the_wire_cannot_carry() {
    let codes = PncCodes::default();
    let host = prefix(v4(192, 0, 2, 1), 32);
    // More entries than a 255-octet TLV holds.
    let big = IsisReachability {
        family: AddressFamily::Ipv4,
        entries: vec![IsisPrefix::new(host, 1); 40],
    };
    assert!(matches!(
        big.encode(),
        Err(BuildError::TooLong { limit: 255, .. })
    ));
    // An IPv6 prefix in TLV 135; the X bit in TLV 135.
    let wrong = IsisReachability {
        family: AddressFamily::Ipv4,
        entries: vec![IsisPrefix::new(prefix(v6("2001:db8::"), 32), 1)],
    };
    assert!(wrong.encode().is_err());
    let mut x = IsisPrefix::new(host, 1);
    x.external = true;
    assert!(IsisReachability {
        family: AddressFamily::Ipv4,
        entries: vec![x]
    }
    .encode()
    .is_err());
    // A 25-bit OSPFv3 metric; Prefix Extended Flags of 2 octets.
    let mut p = Ospfv3InterAreaPrefix {
        metric: 1 << 24,
        prefix: host,
        options: 0,
        extended_flags: None,
        other_sub_tlvs: vec![],
    };
    assert!(matches!(
        p.encode(),
        Err(BuildError::FieldTooWide { bits: 24, .. })
    ));
    p.metric = 1;
    p.extended_flags = Some(FlagBits(vec![0x20, 0]));
    assert!(p.encode().is_err());
    // A raw characteristic with the PNC code; a raw MP_REACH_NLRI.
    let nhc = NhcAttribute {
        afi: 1,
        safi: 1,
        next_hop: NextHop::new(v4(192, 0, 2, 1)),
        pnc: false,
        other_characteristics: vec![RawTlv {
            code: DEFAULT_BGP_TLV_CODE,
            value: vec![],
        }],
    };
    assert!(nhc.encode(&codes).is_err());
    let raw = BgpPathAttributes {
        other: vec![PathAttribute {
            flags: 0x80,
            type_code: 14,
            value: vec![],
        }],
        ..Default::default()
    };
    assert!(raw.encode(&codes).is_err());
}

/// The flag helpers number bits from the most significant bit of the first
/// octet, as RFC 7794 and RFC 9792 draw them.
#[test]
fn px_03_flag_bit_numbering() {
    assert_eq!(
        FlagBits::with_bits(&[isis::P_FLAG_BIT]),
        FlagBits(vec![0x01])
    );
    assert_eq!(
        FlagBits::with_bits(&[isis::X_FLAG_BIT, isis::E_FLAG_BIT]),
        FlagBits(vec![0x90])
    );
    assert_eq!(
        FlagBits::with_bits_in_words(&[cngw_packet::pnc::OSPFV2_PNC_BIT]),
        FlagBits(vec![0x20, 0, 0, 0])
    );
    assert_eq!(
        FlagBits::with_bits_in_words(&[33]),
        FlagBits(vec![0, 0, 0, 0, 0x40, 0, 0, 0])
    );
    let mut f = FlagBits::default();
    assert!(!f.get(100));
    f.set(9, true);
    assert_eq!(f, FlagBits(vec![0, 0x40]));
    f.set(40, false);
    assert_eq!(f.0.len(), 2);
}

#[test]
fn px_03_random_bytes_never_panic() {
    let codes = PncCodes::default();
    let mut rng = Rng(0xdead);
    let valid = [
        hex("87 15 0000000a 18 0a0102 00000014 60 c0000201 03 040121"),
        hex("0001 0018 01200040 c0000205 000b0004 20000000 00630003 aabbcc00"),
        hex("0003 002c 00000064 30200000 20010db800010000 00250004 20000000 001c0010 20010db8000000000000000000000009"),
        bgp_update_attributes(),
    ];
    for _ in 0..20_000 {
        let bytes = if rng.coin() {
            let n = rng.below(64) as usize;
            rng.bytes(n)
        } else {
            let mut b = valid[rng.below(4) as usize].clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(b.len() as u64) as usize;
                b[at] = rng.next() as u8;
            }
            b
        };
        let _ = IsisReachability::parse(&bytes);
        let _ = Ospfv2ExtendedPrefix::parse(&bytes);
        let _ = Ospfv3InterAreaPrefix::parse(&bytes, AddressFamily::Ipv4);
        let _ = Ospfv3InterAreaPrefix::parse(&bytes, AddressFamily::Ipv6);
        let _ = NhcAttribute::parse(&bytes, &codes);
        for protocol in [
            Protocol::IsIs,
            Protocol::Ospfv2,
            Protocol::Ospfv3,
            Protocol::Bgp,
        ] {
            let _ = decode(protocol, &bytes, &codes);
        }
    }
}
