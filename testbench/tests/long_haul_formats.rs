//! LH-15 through the RTL: the format table (`LH_FORMATn_*`) decides per
//! sender prefix which notification a congested flow's sender gets — a
//! standard CNP, the Long-haul CNP in RoCEv2 format or in ICMPv6 format —
//! by the longest matching prefix (ties: the lowest entry); a sender no
//! entry matches gets the per-family default of `LH_OPTIONS`. IPv4 and IPv6
//! senders, a longer prefix overriding a shorter one both ways, an ICMPv6
//! entry matching an IPv4 sender (standard CNP), an invalidated entry, the
//! fallback moving with `LH_OPTIONS`, and Resumes in the format each flow
//! was last notified in (none to flows told with a standard CNP) after the
//! table changed. Every frame is checked by scapy and byte for byte against
//! the reference model, and the counters agree.

use cngw_model::longhaul::NotifyFormat;
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::cnp::Cnp;
use cngw_packet::frame::Frame as ParsedFrame;
use cngw_packet::longhaul::Action;
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, flow_command, format_control, lh_option, offset};
use cngw_sim::Gateway;
use cngw_testbench::{compare_counters, Bench, OutputFrame};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];
const CLOCKS_PER_US: u32 = 322;

fn ip(a: &str) -> IpAddr {
    a.parse().unwrap()
}

fn mapped(a: IpAddr) -> [u8; 16] {
    match a {
        IpAddr::V4(v) => v.to_ipv6_mapped().octets(),
        IpAddr::V6(v) => v.octets(),
    }
}

fn words(a: [u8; 16]) -> [u32; 4] {
    [0, 1, 2, 3].map(|i| u32::from_be_bytes(a[4 * i..4 * i + 4].try_into().unwrap()))
}

/// Writes a register in the RTL and the model alike.
fn both(b: &mut Bench<Gateway>, m: &mut GatewayModel, off: u32, v: u32) {
    b.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

/// Entry `i` of the format table, raw: `len` counts IPv4 prefixes from bit
/// 96 as the register does; `format` is the field's value.
fn entry(
    b: &mut Bench<Gateway>,
    m: &mut GatewayModel,
    i: usize,
    prefix: &str,
    len: u32,
    format: u32,
    valid: bool,
) {
    let base = format_control::STRIDE * i as u32;
    let control = offset::LH_FORMAT0_CONTROL + base;
    both(b, m, control, 0);
    for (w, word) in words(mapped(ip(prefix))).into_iter().enumerate() {
        both(
            b,
            m,
            offset::LH_FORMAT0_PREFIX_0 + base + 4 * w as u32,
            word,
        );
    }
    both(
        b,
        m,
        control,
        u32::from(valid)
            | (format << format_control::FORMAT_LSB)
            | (len << format_control::PREFIX_LEN_LSB),
    );
    // The gateway reads one entry's registers per clock, makes its mask in
    // the next and writes the entry in the third: the write takes effect
    // within eleven clocks.
    b.run(12, 0);
}

struct Sender {
    src: IpAddr,
    dqp: u32,
    sqp: u32,
    mac: [u8; 6],
}

fn senders() -> Vec<Sender> {
    [
        "10.0.0.1",
        "10.0.7.1",
        "10.1.0.1",
        "10.2.0.1",
        "fd00:1::5",
        "fd00:1:2::5",
        "fd00:3:1::5",
        "fd00:9::5",
    ]
    .iter()
    .enumerate()
    .map(|(i, a)| Sender {
        src: ip(a),
        dqp: 0x200 + i as u32,
        sqp: 0x5000 + 3 * i as u32,
        mac: [0x02, 0x11, 0x22, 0x33, 0x44, i as u8],
    })
    .collect()
}

fn receiver(s: &Sender) -> IpAddr {
    match s.src {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::new(10, 9, 0, 1)),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::new(0xfd00, 0x99, 0, 0, 0, 0, 0, 1)),
    }
}

fn data_frame(s: &Sender, psn: u32) -> Vec<u8> {
    let b = match (s.src, receiver(s)) {
        (IpAddr::V4(a), IpAddr::V4(d)) => RoceFrameBuilder::ipv4(a, d),
        (IpAddr::V6(a), IpAddr::V6(d)) => RoceFrameBuilder::ipv6(a, d),
        _ => unreachable!(),
    };
    b.macs(s.mac, [0x02, 0, 0, 0, 0, 0xFE])
        .ecn(Ecn::Ect0)
        .dest_qp(s.dqp)
        .psn(psn)
        .payload_len(256)
        .build()
}

/// What a notification is, read by the packet crate, with its destination,
/// the source QP it carries and (Long-haul formats) its action.
fn classify(data: &[u8]) -> (NotifyFormat, IpAddr, u32, Option<Action>) {
    let f = ParsedFrame::parse(data).expect("a notification parses");
    let dst = f.ip.header.dst();
    if let Ok(lh) = LonghaulRocev2::from_frame(&f) {
        assert_eq!(lh.dest_qp, lh.cnp.body.source_qp, "BTH DestQP = source QP");
        return (
            NotifyFormat::LonghaulRocev2,
            dst,
            lh.cnp.body.source_qp,
            Some(lh.cnp.body.action),
        );
    }
    if let Ok(m) = LonghaulIcmpv6::from_frame(&f, 200) {
        return (
            NotifyFormat::LonghaulIcmpv6,
            dst,
            m.cnp.body.source_qp,
            Some(m.cnp.body.action),
        );
    }
    let cnp = Cnp::from_frame(&f).expect("a standard CNP");
    (NotifyFormat::Cnp, dst, cnp.dest_qp, None)
}

/// Sends one data frame per sender while the queue is congested; returns
/// the notifications that left on dc_tx, after checking the forwarded
/// data against the model.
fn phase(
    b: &mut Bench<Gateway>,
    m: &mut GatewayModel,
    senders: &[Sender],
    psn: u32,
) -> Vec<OutputFrame> {
    let frames: Vec<Vec<u8>> = senders.iter().map(|s| data_frame(s, psn)).collect();
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
    let got_wan: Vec<Frame> = b
        .take_frames(OutPort::WanTx, usize::MAX)
        .into_iter()
        .map(|f| Frame {
            data: f.data,
            user: f.user,
        })
        .collect();
    assert_eq!(got_wan, want_wan, "data toward the WAN");
    b.take_frames(OutPort::DcTx, usize::MAX)
}

fn set_queue(b: &mut Bench<Gateway>, m: &mut GatewayModel, bytes: u32) {
    let at = b.cycle();
    b.gateway().set_queue_depth(bytes, true);
    b.clock();
    b.gateway().set_queue_depth(bytes, false);
    m.set_queue_depth_at(bytes, at);
    b.run(8, 0);
}

/// The formats of `notes`, one per sender in order, checking each goes to
/// its sender with its source QP and says `action`.
fn formats_of(notes: &[OutputFrame], senders: &[&Sender], action: Action) -> Vec<NotifyFormat> {
    assert_eq!(notes.len(), senders.len(), "one notification per sender");
    notes
        .iter()
        .zip(senders)
        .map(|(n, s)| {
            let (format, dst, sqp, got_action) = classify(&n.data);
            assert_eq!(dst, s.src, "to the sender");
            assert_eq!(sqp, s.sqp, "the sender's QP");
            assert_eq!(&n.data[0..6], &s.mac, "to the previous hop");
            assert_eq!(&n.data[6..12], &GW_MAC, "from the gateway");
            if let Some(a) = got_action {
                assert_eq!(a, action, "{:?}", s.src);
            }
            format
        })
        .collect()
}

#[test]
fn lh_15_format_table_chooses_the_notification_per_sender_prefix() {
    use NotifyFormat::{Cnp as C, LonghaulIcmpv6 as I, LonghaulRocev2 as R};
    let mut b = Bench::new(None).unwrap();
    let mut m = GatewayModel::new();
    m.set_reset_clock(b.gateway().reset_released_at());
    for (off, v) in [
        (offset::CLOCKS_PER_US, CLOCKS_PER_US),
        (offset::PORT0_K_MAX_BYTES, 125_000_000),
        (offset::PORT0_K_MIN_BYTES, 62_500_000),
        (offset::PORT0_RTT_EST_US, 20),
        (offset::PORT0_FLOW_INTERVAL_US, 1),
        (offset::LH_BUCKET_DEPTH, 8),
        (offset::LH_BUCKET_REFILL_CLOCKS, 1),
        (offset::LH_OPTIONS, lh_option::IPV4_LONGHAUL),
        (offset::GW_MAC_HI, 0x02C0),
        (offset::GW_MAC_LO, 0x6E00_0001),
        (offset::GW_IPV4, 0x0A00_0101),
        (offset::GW_IPV6_0, 0xFD00_0000),
        (offset::GW_IPV6_3, 0x0000_00FE),
    ] {
        both(&mut b, &mut m, off, v);
    }
    let senders = senders();
    for s in &senders {
        for (i, w) in words(mapped(s.src)).into_iter().enumerate() {
            both(&mut b, &mut m, offset::FLOW_SIP_0 + 4 * i as u32, w);
        }
        for (i, w) in words(mapped(receiver(s))).into_iter().enumerate() {
            both(&mut b, &mut m, offset::FLOW_DIP_0 + 4 * i as u32, w);
        }
        both(&mut b, &mut m, offset::FLOW_DQP, s.dqp);
        both(&mut b, &mut m, offset::FLOW_SQP, s.sqp);
        both(
            &mut b,
            &mut m,
            offset::FLOW_COMMAND,
            flow_command::INSERT_STATIC,
        );
        b.run(20, 0);
    }
    // The table (IPv4 lengths from bit 96): entries out of length order.
    entry(&mut b, &mut m, 0, "10.0.0.0", 96 + 16, 0, true); // cnp
    entry(&mut b, &mut m, 1, "fd00:1::", 32, 1, true); // rocev2
    entry(&mut b, &mut m, 2, "fd00:1:2::", 48, 0, true); // cnp
    entry(&mut b, &mut m, 3, "10.1.0.0", 96 + 16, 2, true); // icmpv6 on IPv4
    entry(&mut b, &mut m, 4, "fd00:3:1::", 48, 2, true); // icmpv6
    entry(&mut b, &mut m, 5, "10.0.0.0", 96 + 24, 1, true); // rocev2
    entry(&mut b, &mut m, 6, "fd00:3::", 32, 0, true); // cnp
    entry(&mut b, &mut m, 7, "10.0.0.0", 96 + 24, 0, true); // cnp, ties entry 5
    both(
        &mut b,
        &mut m,
        offset::FEATURE_ENABLE,
        feature::LH_ECN_MARK | feature::LH_CNP,
    );
    set_queue(&mut b, &mut m, 130_000_000);
    let all: Vec<&Sender> = senders.iter().collect();
    let mut notes = Vec::new();

    // Phase 1.
    let got = phase(&mut b, &mut m, &senders, 1);
    assert_eq!(
        formats_of(&got, &all, Action::RateReduce),
        [
            R, // 10.0.0.1: /24 over /16; of the two /24s entry 5 (lower)
            C, // 10.0.7.1: the /16
            C, // 10.1.0.1: icmpv6 entry, IPv4 sender: standard CNP
            R, // 10.2.0.1: no entry; LH_OPTIONS.ipv4_longhaul
            R, // fd00:1::5: the /32
            C, // fd00:1:2::5: the /48 over the /32
            I, // fd00:3:1::5: the /48 over the /32 (cnp)
            I, // fd00:9::5: no entry; IPv6 without ipv6_longhaul
        ]
    );
    notes.extend(got);

    // Phase 2: entry 5 invalid (entry 7, the other /24, decides), the
    // fallback flips per family.
    b.run(2 * CLOCKS_PER_US as u64, 0);
    entry(&mut b, &mut m, 5, "10.0.0.0", 96 + 24, 1, false);
    both(&mut b, &mut m, offset::LH_OPTIONS, lh_option::IPV6_LONGHAUL);
    let got = phase(&mut b, &mut m, &senders, 2);
    assert_eq!(
        formats_of(&got, &all, Action::RateReduce),
        [C, C, C, C, R, C, I, R]
    );
    notes.extend(got);

    // Resume: the table and options change first; every Resume goes in
    // the format of the flow's phase-2 notification, and the flows told
    // with a standard CNP get none.
    entry(&mut b, &mut m, 1, "fd00:1::", 32, 2, true);
    both(&mut b, &mut m, offset::LH_OPTIONS, 0);
    set_queue(&mut b, &mut m, 0);
    b.run(60 * CLOCKS_PER_US as u64, 0);
    b.run_until_drained(100_000, 64).unwrap();
    let got = b.take_frames(OutPort::DcTx, usize::MAX);
    let resumed = [&senders[4], &senders[6], &senders[7]];
    assert_eq!(formats_of(&got, &resumed, Action::Resume), [R, I, R]);
    notes.extend(got);
    assert_eq!(b.csr_read(offset::LH_RESUME_SENT), Ok(3));
    assert_eq!(b.csr_read(offset::LH_CNP_SENT), Ok(16));
    // The flows all left the tracker: a new round, in the table's current
    // formats (fd00:1::5 now ICMPv6; no fallback to the RoCEv2 format).
    set_queue(&mut b, &mut m, 130_000_000);
    let got = phase(&mut b, &mut m, &senders, 3);
    assert_eq!(
        formats_of(&got, &all, Action::RateReduce),
        [C, C, C, C, I, C, I, I]
    );
    notes.extend(got);

    // The model decided the same frames, byte for byte, in the same order.
    m.advance_to(b.cycle());
    let want = m.take_notifications();
    assert_eq!(notes.len(), want.len());
    for (i, (g, w)) in notes.iter().zip(&want).enumerate() {
        assert_eq!(g.data, w.frame.data, "notification {i}");
    }
    // The model's own view of each sender's format now.
    let now: Vec<NotifyFormat> = senders.iter().map(|s| m.notify_format(s.src)).collect();
    assert_eq!(now, [C, C, C, C, I, C, I, I]);
    compare_counters(b.gateway(), &m).unwrap();

    // scapy: ICRC of the RoCEv2 ones, IPv4/ICMPv6 checksums, and the type
    // of each.
    let frames: Vec<Vec<u8>> = notes.iter().map(|n| n.data.clone()).collect();
    if let Some(dissected) = dissect(&frames) {
        assert_eq!(dissected.len(), 27);
        for (f, n) in dissected.iter().zip(&notes) {
            assert_checksums_ok(f);
            match classify(&n.data).0 {
                NotifyFormat::LonghaulIcmpv6 => {
                    assert_eq!(get(f, "icmpv6_chksum_ok"), "True");
                }
                _ => {
                    assert_eq!(get(f, "icrc_ok"), "True");
                    assert_eq!(get(f, "BTH.becn"), "1");
                }
            }
        }
    }
}
