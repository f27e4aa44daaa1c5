//! LH-15 in the reference model: the format table's longest-prefix match,
//! the fallback to `LH_OPTIONS`, the frames of each format and the format
//! of a flow's Resume.

use cngw_model::longhaul::{
    format_table_match, notify_format, LonghaulModel, NotifyFormat, Packet, Registers, RegistersMut,
};
use cngw_packet::cnp::Cnp;
use cngw_packet::flow_key::FlowKey;
use cngw_packet::frame::Frame as ParsedFrame;
use cngw_packet::longhaul::Action;
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_regmap::{feature, format_control, lh_option, offset, Access, REGISTERS};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A register file at its reset values.
struct Regs(BTreeMap<u32, u32>);

impl Regs {
    fn new() -> Regs {
        Regs(
            REGISTERS
                .iter()
                .map(|r| {
                    let v = if r.access == Access::WritePulse {
                        0
                    } else {
                        r.reset
                    };
                    (r.offset, v)
                })
                .collect(),
        )
    }

    fn set(&mut self, off: u32, v: u32) {
        assert!(self.0.contains_key(&off), "{off:#x}");
        self.0.insert(off, v);
    }

    /// Entry `i`: `prefix` (an IPv4 prefix as ::ffff:a.b.c.d/96+len), the
    /// raw format field and the valid bit.
    fn entry(&mut self, i: usize, prefix: IpAddr, len: u32, format: u32, valid: bool) {
        let (octets, len) = match prefix {
            IpAddr::V4(v4) => (v4.to_ipv6_mapped().octets(), 96 + len),
            IpAddr::V6(v6) => (v6.octets(), len),
        };
        let base = format_control::STRIDE * i as u32;
        for w in 0..4 {
            self.set(
                offset::LH_FORMAT0_PREFIX_0 + base + 4 * w as u32,
                u32::from_be_bytes(octets[4 * w..4 * w + 4].try_into().unwrap()),
            );
        }
        self.set(
            offset::LH_FORMAT0_CONTROL + base,
            u32::from(valid)
                | (format << format_control::FORMAT_LSB)
                | (len << format_control::PREFIX_LEN_LSB),
        );
    }
}

impl Registers for Regs {
    fn reg(&self, off: u32) -> u32 {
        self.0[&off]
    }
}

impl RegistersMut for Regs {
    fn view(&self) -> &dyn Registers {
        self
    }
    fn count(&mut self, off: u32) {
        *self.0.get_mut(&off).unwrap() += 1;
    }
    fn set(&mut self, off: u32, value: u32) {
        self.0.insert(off, value);
    }
}

fn v4(a: &str) -> IpAddr {
    IpAddr::V4(a.parse().unwrap())
}

fn v6(a: &str) -> IpAddr {
    IpAddr::V6(a.parse().unwrap())
}

fn mapped(a: IpAddr) -> Ipv6Addr {
    match a {
        IpAddr::V4(v) => v.to_ipv6_mapped(),
        IpAddr::V6(v) => v,
    }
}

fn matched(r: &Regs, a: IpAddr) -> Option<(usize, u32)> {
    format_table_match(&mapped(a).octets(), r)
}

#[test]
fn lh_15_longest_prefix_wins_and_ties_go_to_the_lowest_entry() {
    let mut r = Regs::new();
    assert_eq!(
        matched(&r, v4("10.0.0.1")),
        None,
        "the table is empty after reset"
    );
    r.entry(5, v4("10.0.0.0"), 8, 1, true);
    r.entry(2, v4("10.1.0.0"), 16, 0, true);
    r.entry(7, v4("10.1.2.0"), 24, 1, true);
    r.entry(3, v4("10.1.2.0"), 24, 0, true);
    assert_eq!(matched(&r, v4("10.9.9.9")), Some((5, 1)));
    assert_eq!(matched(&r, v4("10.1.9.9")), Some((2, 0)), "/16 over /8");
    assert_eq!(
        matched(&r, v4("10.1.2.200")),
        Some((3, 0)),
        "two /24s: the lower entry"
    );
    assert_eq!(matched(&r, v4("11.0.0.1")), None);
    // Prefix bits beyond the length do not matter.
    r.entry(0, v4("192.168.77.77"), 16, 1, true);
    assert_eq!(matched(&r, v4("192.168.1.1")), Some((0, 1)));
    // A /32 and a /0 (every IPv4 sender: ::ffff:0:0/96).
    r.entry(1, v4("10.1.2.3"), 32, 1, true);
    assert_eq!(matched(&r, v4("10.1.2.3")), Some((1, 1)));
    assert_eq!(matched(&r, v4("10.1.2.4")), Some((3, 0)));
    r.entry(6, v4("0.0.0.0"), 0, 0, true);
    assert_eq!(matched(&r, v4("172.16.0.1")), Some((6, 0)));
    assert_eq!(
        matched(&r, v6("fd00::1")),
        None,
        "an IPv4 /0 covers IPv4 only"
    );
    // IPv6 prefixes on 128 bits; a length above 128 acts as 128.
    r.entry(4, v6("fd00:1::"), 32, 2, true);
    assert_eq!(matched(&r, v6("fd00:1::5")), Some((4, 2)));
    assert_eq!(matched(&r, v6("fd00:2::5")), None);
    r.entry(4, v6("fd00:1::5"), 200, 2, true);
    assert_eq!(matched(&r, v6("fd00:1::5")), Some((4, 2)));
    assert_eq!(matched(&r, v6("fd00:1::6")), None);
}

#[test]
fn lh_15_invalid_and_reserved_entries_never_match() {
    let mut r = Regs::new();
    r.entry(0, v4("10.0.0.0"), 8, 1, true);
    r.entry(1, v4("10.1.0.0"), 16, 0, false);
    r.entry(2, v4("10.1.0.0"), 16, 3, true);
    assert_eq!(matched(&r, v4("10.1.0.1")), Some((0, 1)));
    r.entry(0, v4("10.0.0.0"), 8, 1, false);
    assert_eq!(matched(&r, v4("10.1.0.1")), None);
}

#[test]
fn lh_15_the_table_decides_before_lh_options() {
    let mut r = Regs::new();
    // No entry: LH_OPTIONS per family.
    for (options, want4, want6) in [
        (0, NotifyFormat::Cnp, NotifyFormat::LonghaulIcmpv6),
        (
            lh_option::IPV4_LONGHAUL,
            NotifyFormat::LonghaulRocev2,
            NotifyFormat::LonghaulIcmpv6,
        ),
        (
            lh_option::IPV6_LONGHAUL,
            NotifyFormat::Cnp,
            NotifyFormat::LonghaulRocev2,
        ),
    ] {
        r.set(offset::LH_OPTIONS, options);
        assert_eq!(notify_format(mapped(v4("10.0.0.1")), &r), want4);
        assert_eq!(notify_format(mapped(v6("fd00::1")), &r), want6);
    }
    // Entries override the options both ways; ICMPv6 to an IPv4 sender
    // is a standard CNP.
    r.set(
        offset::LH_OPTIONS,
        lh_option::IPV4_LONGHAUL | lh_option::IPV6_LONGHAUL,
    );
    r.entry(0, v4("10.0.0.0"), 24, 0, true);
    r.entry(1, v4("10.0.1.0"), 24, 2, true);
    r.entry(2, v6("fd00:a::"), 32, 2, true);
    r.entry(3, v6("fd00:b::"), 32, 0, true);
    assert_eq!(notify_format(mapped(v4("10.0.0.1")), &r), NotifyFormat::Cnp);
    assert_eq!(notify_format(mapped(v4("10.0.1.1")), &r), NotifyFormat::Cnp);
    assert_eq!(
        notify_format(mapped(v4("10.0.2.1")), &r),
        NotifyFormat::LonghaulRocev2
    );
    assert_eq!(
        notify_format(mapped(v6("fd00:a::1")), &r),
        NotifyFormat::LonghaulIcmpv6
    );
    assert_eq!(
        notify_format(mapped(v6("fd00:b::1")), &r),
        NotifyFormat::Cnp
    );
    r.set(offset::LH_OPTIONS, 0);
    r.entry(4, v4("10.0.3.0"), 24, 1, true);
    r.entry(5, v6("fd00:c::"), 32, 1, true);
    assert_eq!(
        notify_format(mapped(v4("10.0.3.9")), &r),
        NotifyFormat::LonghaulRocev2
    );
    assert_eq!(
        notify_format(mapped(v6("fd00:c::9")), &r),
        NotifyFormat::LonghaulRocev2
    );
}

const CPU: u32 = 10;

fn congested_regs() -> Regs {
    let mut r = Regs::new();
    r.set(offset::FEATURE_ENABLE, feature::LH_CNP);
    r.set(offset::CLOCKS_PER_US, CPU);
    r.set(offset::PORT0_K_MAX_BYTES, 1_000);
    r.set(offset::PORT0_K_MIN_BYTES, 500);
    r.set(offset::PORT0_RTT_EST_US, 10);
    r.set(offset::GW_IPV4, 0x0A00_0101);
    r.set(offset::GW_IPV6_0, 0xFD00_0000);
    r.set(offset::GW_IPV6_3, 1);
    // Tokens are never short here.
    r.set(offset::LH_BUCKET_DEPTH, 8);
    r.set(offset::LH_BUCKET_REFILL_CLOCKS, 1);
    r
}

fn packet(src: IpAddr, dqp: u32) -> Packet {
    let dst = match src {
        IpAddr::V4(_) => v4("10.9.9.9"),
        IpAddr::V6(_) => v6("fd00:9::9"),
    };
    Packet {
        key: FlowKey::new(mapped(src).octets(), mapped(dst).octets(), dqp),
        sqp: Some(dqp + 1000),
        src_mac: [2, 0, 0, 0, 0, dqp as u8],
        pkey: 0xFFFF,
        window_bytes: 0,
        rate_fell: false,
        proxy: None,
        place: None,
    }
}

fn format_of(data: &[u8]) -> NotifyFormat {
    let f = ParsedFrame::parse(data).unwrap();
    if LonghaulRocev2::from_frame(&f).is_ok() {
        NotifyFormat::LonghaulRocev2
    } else if LonghaulIcmpv6::from_frame(&f, 200).is_ok() {
        NotifyFormat::LonghaulIcmpv6
    } else {
        Cnp::from_frame(&f).expect("a standard CNP");
        NotifyFormat::Cnp
    }
}

/// Each sender is notified in the table's format; the Resume goes in the
/// format of the flow's notification even after the table changed; a flow
/// told with a standard CNP gets no Resume and leaves the tracker.
#[test]
fn lh_15_resume_goes_in_the_format_of_the_notification() {
    let mut r = congested_regs();
    r.entry(0, v4("10.0.0.0"), 24, 1, true); // RoCEv2
    r.entry(1, v4("10.0.0.2"), 32, 0, true); // standard CNP
    r.entry(2, v6("fd00:1::"), 32, 2, true); // ICMPv6
    r.entry(3, v6("fd00:2::"), 32, 1, true); // RoCEv2
    let senders = [
        (v4("10.0.0.1"), NotifyFormat::LonghaulRocev2),
        (v4("10.0.0.2"), NotifyFormat::Cnp),
        (v6("fd00:1::1"), NotifyFormat::LonghaulIcmpv6),
        (v6("fd00:2::1"), NotifyFormat::LonghaulRocev2),
    ];
    let mut m = LonghaulModel::new(0);
    m.queue_depth_changed(2_000, 0, &mut r);
    for (i, (src, _)) in senders.iter().enumerate() {
        assert!(m.decide(&packet(*src, 10 + i as u32), 10 + i as u64, &mut r));
    }
    let notes = m.take_notifications();
    let got: Vec<NotifyFormat> = notes.iter().map(|n| format_of(&n.frame.data)).collect();
    let want: Vec<NotifyFormat> = senders.iter().map(|s| s.1).collect();
    assert_eq!(got, want);
    // The frames are the packet crate's: the standard CNP to 10.0.0.2
    // with the flow's source QP as DestQP.
    let cnp = Cnp::from_frame(&ParsedFrame::parse(&notes[1].frame.data).unwrap()).unwrap();
    assert_eq!(cnp.dest_qp, 1011);

    // The table flips every format; the Resumes keep the notifications'.
    r.entry(0, v4("10.0.0.0"), 24, 0, true);
    r.entry(1, v4("10.0.0.2"), 32, 1, true);
    r.entry(2, v6("fd00:1::"), 32, 1, true);
    r.entry(3, v6("fd00:2::"), 32, 2, true);
    m.queue_depth_changed(100, 100, &mut r);
    m.advance_to(100 + 20 * CPU as u64 * 10, &mut r);
    let resumes = m.take_notifications();
    let got: Vec<NotifyFormat> = resumes.iter().map(|n| format_of(&n.frame.data)).collect();
    assert_eq!(
        got,
        [
            NotifyFormat::LonghaulRocev2,
            NotifyFormat::LonghaulIcmpv6,
            NotifyFormat::LonghaulRocev2
        ],
        "no Resume to the sender told with a standard CNP"
    );
    for n in &resumes {
        let f = ParsedFrame::parse(&n.frame.data).unwrap();
        let body = match format_of(&n.frame.data) {
            NotifyFormat::LonghaulRocev2 => LonghaulRocev2::from_frame(&f).unwrap().cnp.body,
            _ => LonghaulIcmpv6::from_frame(&f, 200).unwrap().cnp.body,
        };
        assert_eq!(body.action, Action::Resume);
    }
    assert_eq!(r.reg(offset::LH_RESUME_SENT), 3);
    // Every flow left the tracker: new notifications for all four, now in
    // the table's new formats.
    m.queue_depth_changed(2_000, 10_000, &mut r);
    for (i, (src, _)) in senders.iter().enumerate() {
        assert!(m.decide(&packet(*src, 10 + i as u32), 10_010 + i as u64, &mut r));
    }
    let got: Vec<NotifyFormat> = m
        .take_notifications()
        .iter()
        .map(|n| format_of(&n.frame.data))
        .collect();
    assert_eq!(
        got,
        [
            NotifyFormat::Cnp,
            NotifyFormat::LonghaulRocev2,
            NotifyFormat::LonghaulRocev2,
            NotifyFormat::LonghaulIcmpv6
        ]
    );
}

#[test]
fn lh_15_ipv4_senders_are_matched_as_ipv4_mapped_addresses() {
    let mut r = Regs::new();
    // The IPv4-mapped prefix written as raw IPv6 words is the same entry.
    r.entry(0, v6("::ffff:10.0.0.0"), 120, 1, true);
    assert_eq!(matched(&r, v4("10.0.0.77")), Some((0, 1)));
    assert_eq!(
        matched(&r, IpAddr::V4(Ipv4Addr::new(10, 0, 1, 1))),
        None,
        "outside the /24"
    );
}
