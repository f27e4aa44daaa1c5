//! Long-haul CNPs with extension objects through the gateway RTL (LH-12,
//! LH-13): configured through the driver from a TOML configuration
//! (`[longhaul.extension]`: timestamp, device identifier, path identifier),
//! which also sets the gateway's time of day from the host's clock. An IPv4
//! sender gets the RoCEv2 format, an IPv6 sender the ICMPv6 format; both
//! carry the objects, the standard CNP to a sender not configured for the
//! Long-haul format carries none. Every notification — CNPs and Resumes —
//! equals the reference model's byte for byte (the timestamp is the time of
//! day of the clock the model decided it in), passes scapy (ICRC, ICMPv6
//! checksum, the extension checksum) and holds the configured objects.

use cngw_driver::config::{apply_config, Config};
use cngw_driver::extension::ntp_time;
use cngw_driver::{Device, SimBus};
use cngw_model::{Frame as ModelFrame, GatewayModel, InPort, OutPort};
use cngw_packet::frame::Frame;
use cngw_packet::icmp_extension::LonghaulObject;
use cngw_packet::longhaul::{Action, LonghaulCnp};
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::RoceFrameBuilder;
use cngw_regmap::{offset, tod_control};
use cngw_testbench::{Bench, OutputFrame};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::time::SystemTime;

const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];

const CONFIG: &str = r#"
features = ["lh_cnp"]
[port.0]
rate = "100G"
rtt = "20us"
alpha = 1.0
k_base = "64K"
k_min = "60M"
k_max = "120M"
[longhaul]
options = ["ipv4_longhaul"]
bucket = { refill_clocks = 100, depth = 8 }
[longhaul.extension]
timestamp = true
device_id = "gw-paris-1"
path_id = "0a0b0c0d"
[gateway]
mac = "02:c0:6e:00:00:01"
ipv4 = "10.0.1.1"
ipv6 = "fd00::1"
[flows]
static = [
  { src = "10.0.0.1", dst = "10.0.0.4", dqp = 200, sqp = 100 },
  { src = "fd00::11", dst = "fd00::44", dqp = 300, sqp = 101 },
]
"#;

/// The objects of a Long-haul CNP of either format (`None`: another frame,
/// such as a standard CNP).
fn objects(data: &[u8]) -> Option<(LonghaulCnp, bool)> {
    let f = Frame::parse(data).ok()?;
    if let Ok(lh) = LonghaulRocev2::from_frame(&f) {
        return Some((lh.cnp, false));
    }
    LonghaulIcmpv6::from_frame(&f, 200)
        .ok()
        .map(|m| (m.cnp, true))
}

#[test]
fn lh_12_lh_13_notifications_carry_the_extension_objects_like_the_model() {
    let mut b = Bench::new(None).unwrap();
    let mut m = GatewayModel::new();
    m.set_reset_clock(b.gateway().reset_released_at());
    let config = Config::parse(CONFIG).unwrap();
    let host_before = ntp_time(SystemTime::now());
    let plan = {
        let mut dev = Device::open(SimBus::new(b.gateway())).unwrap();
        apply_config(&mut dev, &config).unwrap()
    };
    let host_after = ntp_time(SystemTime::now());
    assert!(plan.set_time_of_day, "the timestamp object sets the clock");
    for (off, v) in plan.bus_writes() {
        assert!(m.write_register(off, v), "{off:#x}");
    }
    // The base the driver set, and the uptime it captured, into the model
    // (it has no clock for the capture).
    let base =
        [offset::LH_TOD_BASE_SECONDS, offset::LH_TOD_BASE_FRACTION].map(|o| b.csr_read(o).unwrap());
    m.write_register(offset::LH_TOD_BASE_SECONDS, base[0]);
    m.write_register(offset::LH_TOD_BASE_FRACTION, base[1]);
    m.write_register(offset::LH_TOD_CONTROL, tod_control::SET);
    let captured = (u64::from(b.csr_read(offset::LH_TOD_UPTIME_SECONDS).unwrap()) << 32)
        | u64::from(b.csr_read(offset::LH_TOD_UPTIME_FRACTION).unwrap());
    assert!(captured > 0, "the uptime was captured after reset");
    m.time_of_day_captured(captured);

    let v4 = |psn| {
        RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 4))
            .macs([0x02, 0, 0, 0, 0, 0x11], [0x02, 0, 0, 0, 0, 0xFE])
            .dest_qp(200)
            .psn(psn)
            .payload_len(512)
            .build()
    };
    let v6 = |psn| {
        RoceFrameBuilder::ipv6(
            "fd00::11".parse::<Ipv6Addr>().unwrap(),
            "fd00::44".parse::<Ipv6Addr>().unwrap(),
        )
        .macs([0x02, 0, 0, 0, 0, 0x22], [0x02, 0, 0, 0, 0, 0xFE])
        .dest_qp(300)
        .psn(psn)
        .payload_len(512)
        .build()
    };
    let mut notes: Vec<OutputFrame> = Vec::new();
    let mut sent = Vec::new();
    for (qd, frames) in [
        // Congested: one notification per flow and RTT_est (20 us).
        (130_000_000u32, 6u32),
        // Still congested, after the interval: each flow again.
        (130_000_000, 4),
        // Below K_min: after RTT_est both flows get a Resume.
        (10_000_000, 2),
    ] {
        let at = b.cycle();
        b.gateway().set_queue_depth(qd, true);
        b.clock();
        b.gateway().set_queue_depth(qd, false);
        m.set_queue_depth_at(qd, at);
        let mut dc = Vec::new();
        for psn in 0..frames {
            for f in [v4(psn), v6(psn)] {
                b.push_frame(InPort::DcRx, &f, false);
                dc.push(f);
            }
        }
        b.run_until_drained(100_000, 64).unwrap();
        b.run(40 * 322, 0);
        b.run_until_drained(100_000, 64).unwrap();
        for (f, p) in dc.iter().zip(b.take_parsed(InPort::DcRx, usize::MAX)) {
            m.receive_at(InPort::DcRx, &ModelFrame::new(f.clone()), Some(p.cycle));
        }
        b.take_frames(OutPort::WanTx, usize::MAX);
        notes.extend(b.take_frames(OutPort::DcTx, usize::MAX));
        sent.push(notes.len());
    }
    m.advance_to(b.cycle());
    let want = m.take_notifications();
    assert_eq!(notes.len(), want.len(), "notifications: RTL vs model");
    assert!(
        sent[0] >= 2 && sent[1] >= 4 && sent[2] >= 6,
        "CNPs, CNPs again, Resumes: {sent:?}"
    );
    for (i, (g, w)) in notes.iter().zip(&want).enumerate() {
        assert_eq!(
            g.data, w.frame.data,
            "notification {i} (decided at {})",
            w.clock
        );
    }

    // Every notification holds the configured objects; timestamps are the
    // host's time at the set plus the time since, in decision order.
    let mut last = 0;
    let mut formats = [0, 0];
    let mut resumes = 0;
    for (i, n) in notes.iter().enumerate() {
        assert_eq!(&n.data[6..12], &GW_MAC);
        let (cnp, icmpv6) = objects(&n.data).unwrap_or_else(|| panic!("notification {i}"));
        formats[icmpv6 as usize] += 1;
        resumes += (cnp.body.action == Action::Resume) as usize;
        let ext = cnp.extension.expect("extension objects");
        let typed: Vec<LonghaulObject> = ext
            .objects
            .iter()
            .map(|o| {
                assert_eq!(o.class_num, 247);
                LonghaulObject::from_object(o).unwrap()
            })
            .collect();
        let LonghaulObject::Timestamp(t) = typed[0] else {
            panic!("timestamp first: {typed:?}");
        };
        assert_eq!(
            typed[1..],
            [
                LonghaulObject::DeviceId("gw-paris-1".into()),
                LonghaulObject::PathId(vec![0x0a, 0x0b, 0x0c, 0x0d]),
            ]
        );
        // Simulated time is far below a second; the host's clock moved on
        // while the configuration was applied.
        assert!(
            t >= host_before && t <= host_after.wrapping_add(1 << 32),
            "timestamp {t:#x} outside {host_before:#x}..{host_after:#x} + 1 s"
        );
        assert!(t > last, "timestamps in decision order");
        last = t;
    }
    assert!(
        formats[0] >= 3 && formats[1] >= 3,
        "RoCEv2 and ICMPv6: {formats:?}"
    );
    assert_eq!(resumes, 2, "one Resume per flow");

    if let Some(dissected) = dissect(&notes.iter().map(|n| n.data.clone()).collect::<Vec<_>>()) {
        for f in &dissected {
            assert_checksums_ok(f);
            assert_eq!(get(f, "ext_chksum_ok"), "True");
        }
    }
    cngw_testbench::compare_counters(b.gateway(), &m).unwrap();
}

/// A sender not configured for the Long-haul RoCEv2 format gets a standard
/// CNP: never an extension structure, objects enabled or not.
#[test]
fn lh_12_standard_cnp_never_carries_the_extension() {
    let mut b = Bench::new(None).unwrap();
    let config =
        Config::parse(&CONFIG.replace("options = [\"ipv4_longhaul\"]", "options = []")).unwrap();
    {
        let mut dev = Device::open(SimBus::new(b.gateway())).unwrap();
        apply_config(&mut dev, &config).unwrap();
    }
    b.gateway().set_queue_depth(130_000_000, true);
    b.clock();
    b.gateway().set_queue_depth(130_000_000, false);
    let f = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 4))
        .dest_qp(200)
        .build();
    b.push_frame(InPort::DcRx, &f, false);
    b.run_until_drained(100_000, 64).unwrap();
    let notes = b.take_frames(OutPort::DcTx, usize::MAX);
    assert_eq!(notes.len(), 1);
    assert_eq!(
        notes[0].data.len(),
        74,
        "a standard CNP, 16 zero bytes, no objects"
    );
    let cnp = cngw_packet::cnp::Cnp::from_frame(&Frame::parse(&notes[0].data).unwrap()).unwrap();
    assert_eq!(cnp.dest_qp, 100);
    if let Some(d) = dissect(&[notes[0].data.clone()]) {
        assert_checksums_ok(&d[0]);
        assert_eq!(get(&d[0], "icrc_ok"), "True");
        assert!(!d[0].contains_key("ext_chksum_ok"));
    }
}
