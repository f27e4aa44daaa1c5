//! The Long-haul CNP draft's operational example, through the RTL
//! (LH-03..LH-09, LH-12): flow {10.0.0.1 -> 10.0.0.4, SQP 100, DQP 200};
//! 100 Gb/s and 10 ms give K_max 125 MB and K_min 62.5 MB; at 70 MB data
//! packets leave CE-marked; at 130 MB one Long-haul CNP {Rate Reduce 30,
//! SQP 100, level 180, metric type 1, value 130000} goes to 10.0.0.1 with
//! BTH DestQP 100 and E = 1; after 10 ms below K_min a Resume {50, level 20,
//! metric 30000} follows. Every emitted frame passes the scapy checks.

use cngw_driver::thresholds::{compute_thresholds, ThresholdInput};
use cngw_model::{InPort, OutPort};
use cngw_packet::frame::Frame;
use cngw_packet::longhaul::{metric_type, Action};
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::scapy::{assert_checksums_ok, dissect, get};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, flow_command, flow_status, lh_option, offset};
use cngw_sim::Gateway;
use cngw_testbench::{event, Bench, OutputFrame};
use std::net::Ipv4Addr;
use std::time::Duration;

const SENDER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const RECEIVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 4);
const GATEWAY: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 1);
const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];
const CLOCKS_PER_US: u64 = 322;

fn mapped_words(a: Ipv4Addr) -> [u32; 4] {
    let o = a.to_ipv6_mapped().octets();
    [0, 1, 2, 3].map(|i| u32::from_be_bytes(o[4 * i..4 * i + 4].try_into().unwrap()))
}

fn write(b: &mut Bench<Gateway>, off: u32, v: u32) {
    b.csr_write(off, v).unwrap();
}

/// The gateway of the example: LH-04 marking and Long-haul CNPs on, the
/// RoCEv2 format for IPv4 senders, the flow's source QP as a static entry.
fn example_gateway() -> Bench<Gateway> {
    let mut b = Bench::new(None).unwrap();
    // LH-03 with the example's numbers (the reset values): K_max =
    // max(64 KB, 1.0 * 100e9 * 0.010 / 8) = 125 MB, K_min = K_max / 2.
    let k_max = compute_thresholds(&ThresholdInput::new(
        100_000_000_000,
        Duration::from_millis(10),
        1.0,
        64_000,
    ))
    .unwrap();
    assert_eq!(
        (k_max.k_max_bytes, k_max.k_min_bytes),
        (125_000_000, 62_500_000)
    );
    write(&mut b, offset::PORT0_K_MAX_BYTES, k_max.k_max_bytes);
    write(&mut b, offset::PORT0_K_MIN_BYTES, k_max.k_min_bytes);
    write(&mut b, offset::PORT0_RTT_EST_US, 10_000);
    write(&mut b, offset::LH_OPTIONS, lh_option::IPV4_LONGHAUL);
    write(&mut b, offset::GW_IPV4, u32::from(GATEWAY));
    write(
        &mut b,
        offset::GW_MAC_HI,
        u16::from_be_bytes([GW_MAC[0], GW_MAC[1]]) as u32,
    );
    write(
        &mut b,
        offset::GW_MAC_LO,
        u32::from_be_bytes(GW_MAC[2..6].try_into().unwrap()),
    );
    for (i, w) in mapped_words(SENDER).into_iter().enumerate() {
        write(&mut b, offset::FLOW_SIP_0 + 4 * i as u32, w);
    }
    for (i, w) in mapped_words(RECEIVER).into_iter().enumerate() {
        write(&mut b, offset::FLOW_DIP_0 + 4 * i as u32, w);
    }
    write(&mut b, offset::FLOW_DQP, 200);
    write(&mut b, offset::FLOW_SQP, 100);
    let status = flow_command_done(&mut b, flow_command::INSERT_STATIC);
    assert_eq!(status & flow_status::FAILED, 0, "{status:#x}");
    assert_eq!(b.csr_read(offset::FLOW_LEARNED), Ok(1));
    write(
        &mut b,
        offset::FEATURE_ENABLE,
        feature::LH_ECN_MARK | feature::LH_CNP,
    );
    b
}

/// Runs a flow-table command and polls `FLOW_STATUS` until it is done.
fn flow_command_done(b: &mut Bench<Gateway>, command: u32) -> u32 {
    write(b, offset::FLOW_COMMAND, command);
    for _ in 0..10 {
        let status = b.csr_read(offset::FLOW_STATUS).unwrap();
        if status & flow_status::DONE != 0 {
            return status;
        }
    }
    panic!("flow command {command:#x} never completed");
}

fn set_queue(b: &mut Bench<Gateway>, bytes: u32) {
    b.gateway().set_queue_depth(bytes, true);
    b.clock();
    b.gateway().set_queue_depth(0, false);
    b.run(4, 0);
}

fn data_frame(psn: u32) -> Vec<u8> {
    RoceFrameBuilder::ipv4(SENDER, RECEIVER)
        .ecn(Ecn::Ect0)
        .dest_qp(200)
        .psn(psn)
        .payload_len(1024)
        .build()
}

/// Sends `n` data frames and returns the ECN of each on wan_tx and every
/// frame that came out on dc_tx meanwhile.
fn send(b: &mut Bench<Gateway>, n: u32) -> (Vec<u8>, Vec<OutputFrame>) {
    for psn in 0..n {
        b.push_frame(InPort::DcRx, &data_frame(psn), false);
    }
    b.run_until_drained(100_000, 64).unwrap();
    let ecn = b
        .take_frames(OutPort::WanTx, usize::MAX)
        .iter()
        .map(|f| f.data[15] & 3)
        .collect();
    (ecn, b.take_frames(OutPort::DcTx, usize::MAX))
}

fn longhaul(f: &OutputFrame) -> LonghaulRocev2 {
    LonghaulRocev2::from_frame(&Frame::parse(&f.data).unwrap()).unwrap()
}

#[test]
fn lh_05_operational_example_through_the_rtl() {
    let mut b = example_gateway();
    let data_src_mac = data_frame(0)[6..12].to_vec();

    // Below K_min: nothing happens.
    let (ecn, notes) = send(&mut b, 4);
    assert_eq!(ecn, vec![Ecn::Ect0 as u8; 4]);
    assert!(notes.is_empty());

    // LH-04: at 70 MB (above K_min, below K_max) data leaves CE-marked and
    // no notification is sent.
    set_queue(&mut b, 70_000_000);
    let (ecn, notes) = send(&mut b, 4);
    assert_eq!(ecn, vec![Ecn::Ce as u8; 4]);
    assert!(notes.is_empty());

    // LH-05/07/12: at 130 MB one Long-haul CNP; the next packets of the flow
    // fall within the minimum interval (LH-08: RTT_est) and are suppressed.
    set_queue(&mut b, 130_000_000);
    let (ecn, notes) = send(&mut b, 4);
    assert_eq!(ecn, vec![Ecn::Ce as u8; 4]);
    assert_eq!(notes.len(), 1, "one Long-haul CNP");
    let cnp = &notes[0];
    let lh = longhaul(cnp);
    assert_eq!(lh.dest_qp, 100, "BTH DestQP = the sender's QP");
    let body = lh.cnp.body;
    assert_eq!(body.action, Action::RateReduce);
    assert_eq!(body.parameter, 30);
    assert_eq!(body.source_qp, 100);
    assert_eq!(body.congestion_level, 180);
    assert_eq!(body.metric_type, metric_type::QUEUE_DEPTH_KB);
    assert_eq!(body.metric_value, 130_000);
    let parsed = Frame::parse(&cnp.data).unwrap();
    assert_eq!(parsed.ip.header.dst(), SENDER);
    assert_eq!(parsed.ip.header.src(), GATEWAY);
    assert_eq!(&cnp.data[0..6], &data_src_mac[..], "to the previous hop");
    assert_eq!(&cnp.data[6..12], &GW_MAC[..]);
    assert_eq!(b.csr_read(offset::LH_CNP_SENT), Ok(1));
    assert_eq!(b.csr_read(offset::LH_CNP_SUPPRESSED), Ok(3));
    assert_eq!(b.csr_read(offset::NOTIFY_TX_FRAMES), Ok(1));

    // LH-09: back below K_min (30 MB); a Resume after RTT_est (10 ms).
    set_queue(&mut b, 30_000_000);
    let start = b.cycle();
    let before = 9_990 * CLOCKS_PER_US;
    b.run(before, event::frame(OutPort::DcTx));
    assert_eq!(b.frames_waiting(OutPort::DcTx), 0, "no Resume before 10 ms");
    b.run(30 * CLOCKS_PER_US, event::frame(OutPort::DcTx));
    let notes = b.take_frames(OutPort::DcTx, usize::MAX);
    assert_eq!(notes.len(), 1, "one Resume");
    let waited_us = (notes[0].start_cycle - start) / CLOCKS_PER_US;
    assert!((9_999..=10_002).contains(&waited_us), "{waited_us} us");
    let resume = longhaul(&notes[0]);
    assert_eq!(resume.dest_qp, 100);
    assert_eq!(resume.cnp.body.action, Action::Resume);
    assert_eq!(resume.cnp.body.parameter, 50);
    assert_eq!(resume.cnp.body.congestion_level, 20);
    assert_eq!(resume.cnp.body.metric_value, 30_000);
    assert_eq!(b.csr_read(offset::LH_RESUME_SENT), Ok(1));
    // Only flows told to slow down get a Resume: one, once.
    b.run(2_000 * CLOCKS_PER_US, 0);
    assert_eq!(b.frames_waiting(OutPort::DcTx), 0);

    // Every emitted frame passes scapy's RoCE (ICRC) and IPv4 checks, and
    // scapy sees the E bit and BECN.
    let frames = vec![cnp.data.clone(), notes[0].data.clone()];
    if let Some(dissected) = dissect(&frames) {
        for f in &dissected {
            assert_checksums_ok(f);
            assert_eq!(get(f, "icrc_ok"), "True");
            assert_eq!(get(f, "BTH.dqpn"), "100");
            assert_eq!(get(f, "BTH.becn"), "1");
        }
    }
}

#[test]
fn lh_14_hidden_metric_and_lh_15_standard_cnp_for_unconfigured_senders() {
    let mut b = example_gateway();
    write(
        &mut b,
        offset::LH_OPTIONS,
        lh_option::HIDE_METRIC | lh_option::IPV4_LONGHAUL,
    );
    set_queue(&mut b, 130_000_000);
    let (_, notes) = send(&mut b, 1);
    let body = longhaul(&notes[0]).cnp.body;
    assert_eq!((body.metric_type, body.metric_value), (0, 0));
    assert_eq!(body.action, Action::RateReduce);

    // Without the IPv4 option the sender gets a standard CNP (LH-15).
    let mut b = example_gateway();
    write(&mut b, offset::LH_OPTIONS, 0);
    set_queue(&mut b, 130_000_000);
    let (_, notes) = send(&mut b, 1);
    assert_eq!(notes.len(), 1);
    let cnp = cngw_packet::cnp::Cnp::from_frame(&Frame::parse(&notes[0].data).unwrap()).unwrap();
    assert_eq!(cnp.dest_qp, 100);
    assert_eq!(notes[0].data.len(), 74);
    if let Some(d) = dissect(&[notes[0].data.clone()]) {
        assert_checksums_ok(&d[0]);
        assert_eq!(get(&d[0], "icrc_ok"), "True");
    }
}

#[test]
fn lh_01_flows_without_source_qp_get_no_cnp() {
    let mut b = example_gateway();
    let status = flow_command_done(&mut b, flow_command::DELETE);
    assert_ne!(status & flow_status::HIT, 0, "the static entry was there");
    assert_eq!(b.csr_read(offset::FLOW_LEARNED), Ok(0));
    set_queue(&mut b, 130_000_000);
    let (ecn, notes) = send(&mut b, 3);
    assert_eq!(ecn, vec![Ecn::Ce as u8; 3]);
    assert!(notes.is_empty());
    assert_eq!(b.csr_read(offset::LH_CNP_NO_SQP), Ok(3));
    assert_eq!(
        b.csr_read(offset::FLOW_OCCUPANCY),
        Ok(1),
        "learned as a flow"
    );
}

#[test]
fn lh_05_queue_growth_above_v_growth_triggers_below_k_max() {
    let mut b = example_gateway();
    write(&mut b, offset::PORT0_V_GROWTH_BYTES, 50_000_000);
    // The depth is sampled at the end of every 100 us (PORT0_QGR_INTERVAL_US)
    // since reset: hold 10 MB for two samples.
    set_queue(&mut b, 10_000_000);
    b.run(250 * CLOCKS_PER_US, 0);
    assert_eq!(b.csr_read(offset::PORT0_QUEUE_GROWTH_BYTES), Ok(0));
    // 100 MB: above K_min (marking), below K_max (125 MB).
    set_queue(&mut b, 100_000_000);
    let (ecn, notes) = send(&mut b, 1);
    assert_eq!(ecn, vec![Ecn::Ce as u8]);
    assert!(notes.is_empty(), "no growth measured yet: no CNP");
    // After the next sample the growth (90 MB in one interval) exceeds
    // V_growth: the flow is told although the queue is below K_max.
    b.run(100 * CLOCKS_PER_US, 0);
    assert_eq!(b.csr_read(offset::PORT0_QUEUE_GROWTH_BYTES), Ok(90_000_000));
    let (_, notes) = send(&mut b, 1);
    assert_eq!(notes.len(), 1, "growth above V_growth triggers (LH-05)");
    let body = longhaul(&notes[0]).cnp.body;
    assert_eq!(
        (body.action, body.congestion_level),
        (Action::RateReduce, 180)
    );
    assert_eq!(body.metric_value, 100_000);
    // One interval later the queue has not grown: no trigger, growth 0.
    b.run(100 * CLOCKS_PER_US, 0);
    assert_eq!(b.csr_read(offset::PORT0_QUEUE_GROWTH_BYTES), Ok(0));
    write(&mut b, offset::PORT0_FLOW_INTERVAL_US, 1);
    b.run(2 * CLOCKS_PER_US, 0);
    let (_, notes) = send(&mut b, 1);
    assert!(notes.is_empty(), "no growth, below K_max: no CNP");
}

/// LH-08 below K_min: the growth trigger (LH-05) tells a flow while the
/// queue is under K_min and the Resume rule (LH-09) is already due. The
/// flow stays tracked for its interval: its next packets are suppressed,
/// and its Resume comes one interval after its CNP, not in the next clock
/// (which let every packet be told again; docs/security.md section 4).
#[test]
fn lh_08_interval_holds_below_k_min_after_a_growth_trigger() {
    let mut b = example_gateway();
    write(&mut b, offset::PORT0_RTT_EST_US, 200);
    write(&mut b, offset::PORT0_V_GROWTH_BYTES, 1_000_000);
    // 1 MB for 300 us: under K_min (62.5 MB) for longer than RTT_est.
    set_queue(&mut b, 1_000_000);
    b.run(300 * CLOCKS_PER_US, 0);
    // 5 MB: still under K_min; the next sample sees 4 MB of growth.
    set_queue(&mut b, 5_000_000);
    b.run(100 * CLOCKS_PER_US, 0);
    assert_eq!(b.csr_read(offset::PORT0_QUEUE_GROWTH_BYTES), Ok(4_000_000));
    let (ecn, notes) = send(&mut b, 10);
    assert_eq!(ecn, vec![Ecn::Ect0 as u8; 10], "under K_min: no marking");
    assert_eq!(notes.len(), 1, "one CNP, no Resume and no second CNP");
    let cnp = longhaul(&notes[0]);
    assert_eq!(cnp.cnp.body.action, Action::RateReduce);
    assert_eq!(b.csr_read(offset::LH_CNP_SENT), Ok(1));
    assert_eq!(b.csr_read(offset::LH_CNP_SUPPRESSED), Ok(9));
    assert_eq!(b.csr_read(offset::LH_RESUME_SENT), Ok(0));
    // The Resume: one interval (RTT_est, 200 us) after the CNP.
    b.run(250 * CLOCKS_PER_US, event::frame(OutPort::DcTx));
    let resumes = b.take_frames(OutPort::DcTx, usize::MAX);
    assert_eq!(resumes.len(), 1, "one Resume");
    assert_eq!(longhaul(&resumes[0]).cnp.body.action, Action::Resume);
    let after_us = (resumes[0].start_cycle - notes[0].start_cycle) / CLOCKS_PER_US;
    assert!(
        (199..=201).contains(&after_us),
        "Resume {after_us} us after the CNP"
    );
    assert_eq!(b.csr_read(offset::LH_RESUME_SENT), Ok(1));
}

#[test]
fn lh_10_escalation_when_congestion_keeps_worsening() {
    let mut b = example_gateway();
    // Renotify after 1 us; row 1 and row 2 only by escalation here (their
    // thresholds are above every depth used).
    write(&mut b, offset::PORT0_FLOW_INTERVAL_US, 1);
    write(&mut b, offset::LH_SEV1_THRESHOLD_BYTES, 500_000_000);
    write(&mut b, offset::LH_SEV2_THRESHOLD_BYTES, 600_000_000);
    let told = |b: &mut Bench<Gateway>, qd: u32| {
        set_queue(b, qd);
        b.run(2 * CLOCKS_PER_US, 0);
        let (_, notes) = send(b, 1);
        assert_eq!(notes.len(), 1, "at {qd} bytes");
        let body = longhaul(&notes[0]).cnp.body;
        (body.action, body.parameter, body.congestion_level)
    };
    // Row 0 at first; each renotification while the queue keeps growing is
    // one row stricter (Rate Reduce -> Pause 100 us -> Pause 1000 us);
    // when it stops growing, the row follows the depth again.
    assert_eq!(told(&mut b, 130_000_000), (Action::RateReduce, 30, 180));
    assert_eq!(told(&mut b, 140_000_000), (Action::Pause, 100, 220));
    assert_eq!(told(&mut b, 150_000_000), (Action::Pause, 1000, 250));
    assert_eq!(
        told(&mut b, 160_000_000),
        (Action::Pause, 1000, 250),
        "capped at row 2"
    );
    assert_eq!(told(&mut b, 135_000_000), (Action::RateReduce, 30, 180));
}
