//! LH-02 queue meter through the RTL, against the reference model: the
//! internal virtual egress queue (marking and Long-haul CNPs from it under
//! random traffic, idle cycles and backpressure), the ECN marking rate and
//! its V_ecn trigger (LH-05), the average queue, and the gauges read at
//! known clocks.

use cngw_model::meter::{average_at, value_at, virtual_queue_steps};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::scapy::{assert_checksums_ok, dissect};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, flow_command, lh_option, meter_control, offset};
use cngw_sim::Gateway;
use cngw_testbench::scheduled::{check_scheduled, DepthStep, Schedule};
use cngw_testbench::traffic::random_mix;
use cngw_testbench::StreamOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::Ipv4Addr;

const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];

/// Writes a register in the RTL and the model alike.
fn both(gw: &mut Gateway, m: &mut GatewayModel, off: u32, v: u32) {
    gw.csr_write(off, v).unwrap();
    assert!(m.write_register(off, v), "{off:#x}");
}

/// A gateway and its model with the gateway's addresses set and flows
/// 10.0.0.(i+1) -> 10.0.9.1, DestQP 0x100 + i, source QP 0x4000 + i
/// installed as static entries.
fn setup(flows: u32) -> (Gateway, GatewayModel) {
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    m.set_reset_clock(gw.reset_released_at());
    for (off, v) in [
        (offset::GW_MAC_HI, 0x02C0),
        (offset::GW_MAC_LO, 0x6E00_0001),
        (offset::GW_IPV4, 0x0A00_0101),
        (offset::LH_OPTIONS, lh_option::IPV4_LONGHAUL),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    for i in 0..flows {
        let sip = Ipv4Addr::new(10, 0, 0, i as u8 + 1)
            .to_ipv6_mapped()
            .octets();
        let dip = Ipv4Addr::new(10, 0, 9, 1).to_ipv6_mapped().octets();
        for w in 0..4 {
            let word = |a: &[u8; 16]| u32::from_be_bytes(a[4 * w..4 * w + 4].try_into().unwrap());
            both(
                &mut gw,
                &mut m,
                offset::FLOW_SIP_0 + 4 * w as u32,
                word(&sip),
            );
            both(
                &mut gw,
                &mut m,
                offset::FLOW_DIP_0 + 4 * w as u32,
                word(&dip),
            );
        }
        both(&mut gw, &mut m, offset::FLOW_DQP, 0x100 + i);
        both(&mut gw, &mut m, offset::FLOW_SQP, 0x4000 + i);
        both(
            &mut gw,
            &mut m,
            offset::FLOW_COMMAND,
            flow_command::INSERT_STATIC,
        );
        gw.run(20);
    }
    (gw, m)
}

fn data_frame(flow: u32, ecn: Ecn, len: usize, psn: u32) -> Frame {
    Frame::new(
        RoceFrameBuilder::ipv4(
            Ipv4Addr::new(10, 0, 0, flow as u8 + 1),
            Ipv4Addr::new(10, 0, 9, 1),
        )
        .macs(
            [0x02, 0x11, 0x22, 0x33, 0x44, flow as u8],
            [0x02, 0, 0, 0, 0, 0xFE],
        )
        .ecn(ecn)
        .dest_qp(0x100 + flow)
        .psn(psn)
        .payload_len(len.saturating_sub(62))
        .build(),
    )
}

/// Drives the telemetry input to `bytes` for one clock (the depth holds)
/// and tells the model in which clock.
fn hold_depth(gw: &mut Gateway, m: &mut GatewayModel, bytes: u32) {
    gw.set_queue_depth(bytes, true);
    gw.run(1);
    gw.set_queue_depth(bytes, false);
    m.set_queue_depth_at(bytes, gw.cycle() - 1);
}

/// The first clock, relative to now, of the `n`-th window boundary after
/// the current window, for windows of `window_us` microseconds counted
/// from reset (CLOCKS_PER_US at its reset value, 322).
fn window_start(gw: &Gateway, window_us: u64, n: u64) -> u64 {
    let w = window_us * 322;
    let since = gw.cycle() - gw.reset_released_at();
    gw.reset_released_at() + (since / w + n) * w - gw.cycle()
}

/// Every notification on dc_tx passes scapy's checks.
fn scapy_checks(out: &[Frame]) -> usize {
    let notes: Vec<Vec<u8>> = out
        .iter()
        .filter(|f| f.data.len() >= 12 && f.data[6..12] == GW_MAC)
        .map(|f| f.data.clone())
        .collect();
    if let Some(d) = dissect(&notes) {
        for f in &d {
            assert_checksums_ok(f);
        }
    }
    notes.len()
}

/// A value read through the CSR equals what the model says for one of the
/// clocks the read may have sampled (`from..=to`).
fn assert_read_matches(what: &str, got: u32, from: u64, to: u64, model: impl Fn(u64) -> u32) {
    let candidates: Vec<u32> = (from..=to).map(&model).collect();
    assert!(
        candidates.contains(&got),
        "{what}: read {got}, the model says {candidates:?} for clocks {from}..={to}"
    );
}

/// LH-02/LH-04/LH-05 from the internal virtual queue: random bursts of
/// RoCEv2 and other traffic leave on wan_tx faster than the queue drains;
/// the depth crosses K_min (CE marks), K_max and the severity rows
/// (Long-haul CNPs), then drains (Resumes). With random idle cycles and
/// backpressure the RTL equals the model in every frame, notification and
/// counter; the model's depth comes from what left on wan_tx.
#[test]
fn lh_02_internal_queue_drives_both_levels_like_the_model() {
    for seed in 1..=3u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let (mut gw, mut m) = setup(8);
        for (off, v) in [
            (offset::PORT0_METER_CONTROL, meter_control::INTERNAL_QUEUE),
            // 8 bytes per clock: an eighth of line rate.
            (offset::PORT0_VQ_DRAIN_Q16, 8 << 16),
            (offset::PORT0_K_MIN_BYTES, 20_000),
            (offset::PORT0_K_MAX_BYTES, 60_000),
            (offset::LH_SEV1_THRESHOLD_BYTES, 90_000),
            (offset::LH_SEV2_THRESHOLD_BYTES, 120_000),
            (offset::PORT0_RTT_EST_US, 10),
            (offset::PORT0_FLOW_INTERVAL_US, 3),
            (offset::LH_BUCKET_REFILL_CLOCKS, 300),
            (offset::LH_BUCKET_DEPTH, 4),
            (offset::PORT0_AVG_WEIGHT_SHIFT, 0),
            // LH-06: windows counted from reset (written within the first
            // one); from seed 2 on only flows with a share of the port's
            // bytes are told. Seed 3's 40 us windows put each burst two
            // windows after the one before: its flows' rates "fell".
            (offset::LH_OBS_WINDOW_US, if seed == 3 { 40 } else { 20 }),
            (offset::LH_TOP_SHARE_Q8, [0, 0, 16, 48][seed as usize]),
            // LH-10: seed 3 defers flows whose rate fell.
            (
                offset::LH_OPTIONS,
                lh_option::IPV4_LONGHAUL | if seed == 3 { lh_option::DEFER } else { 0 },
            ),
            (
                offset::FEATURE_ENABLE,
                feature::LH_ECN_MARK | feature::LH_CNP,
            ),
        ] {
            both(&mut gw, &mut m, off, v);
        }
        // Three bursts, each followed by a quiet time in which the queue
        // drains and Resumes go out.
        let mut dc = Vec::new();
        let mut wan = Vec::new();
        for burst in 0..3u64 {
            let at = burst * 25_000;
            for _ in 0..rng.gen_range(150..250) {
                let f = if rng.gen_bool(0.85) {
                    let ecn = [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce][rng.gen_range(0..4)];
                    data_frame(
                        rng.gen_range(0..10),
                        ecn,
                        rng.gen_range(64..1500),
                        rng.gen(),
                    )
                } else {
                    random_mix(&mut rng, 1).remove(0)
                };
                dc.push((at, f));
            }
            let n = rng.gen_range(0..10);
            for f in random_mix(&mut rng, n) {
                wan.push((at, f));
            }
        }
        // A last frame from the WAN keeps the run going until the queue has
        // drained and the Resumes are out.
        wan.push((95_000, random_mix(&mut rng, 1).remove(0)));
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, dc), (InPort::WanRx, wan)],
            depth_steps: vec![],
            end_cycle: None,
        };
        let opts = StreamOptions::random(0.1 * seed as f64, 0.15 * seed as f64, seed);
        let run = match check_scheduled(&mut gw, &mut m, &schedule, opts) {
            Ok(r) => r,
            Err(e) => {
                for o in [
                    offset::LH_CNP_NOT_TOP,
                    offset::LH_CNP_SENT,
                    offset::LH_PORT_WINDOW_BYTES,
                    offset::LH_CNP_NO_SQP,
                    offset::DC_RX_ROCE_FRAMES,
                ] {
                    eprintln!(
                        "{o:#x}: rtl {:?} model {:?}",
                        gw.csr_read(o),
                        m.read_register(o)
                    );
                }
                panic!("seed {seed}: {e}")
            }
        };
        let reg = |o| m.read_register(o).unwrap();
        let (marked, sent, resumed, not_top) = (
            reg(offset::LH_CE_MARKED_FRAMES),
            reg(offset::LH_CNP_SENT),
            reg(offset::LH_RESUME_SENT),
            reg(offset::LH_CNP_NOT_TOP),
        );
        let deferred = reg(offset::LH_CNP_DEFERRED);
        eprintln!(
            "seed {seed}: {} clocks, {marked} CE marks, {sent} Long-haul CNPs, {resumed} Resumes, {not_top} not top",
            run.capture.cycles
        );
        assert_eq!(
            not_top > 0,
            seed == 2,
            "seed {seed}: top-contributor filter"
        );
        eprintln!("seed {seed}: {deferred} deferred");
        assert_eq!(deferred > 0, seed == 3, "seed {seed}: downstream deferral");
        assert!(
            marked > 10 && sent > 3 && resumed > 0,
            "seed {seed}: both levels and Resume"
        );
        let dc_tx = &run.capture.outputs[&OutPort::DcTx];
        assert_eq!(scapy_checks(dc_tx) as u32, sent + resumed);
        // The queue drained: the depth the gateway acts on is the virtual
        // queue's, and both read 0.
        assert_eq!(gw.csr_read(offset::PORT0_QUEUE_DEPTH_BYTES).unwrap(), 0);
        assert_eq!(gw.csr_read(offset::PORT0_VQ_DEPTH_BYTES).unwrap(), 0);
    }
}

/// LH-02: the virtual queue's depth read through the CSR while frames
/// fill it at line rate and it drains at 8.5 bytes per clock equals the
/// model's depth in the clock the read sampled; with `internal_queue` off
/// the gateway keeps acting on the telemetry input.
#[test]
fn lh_02_virtual_queue_depth_reads_like_the_model() {
    let (mut gw, mut m) = setup(0);
    let drain = 0x8_8000; // 8.5 bytes per clock
    both(&mut gw, &mut m, offset::PORT0_VQ_DRAIN_Q16, drain);
    gw.set_queue_depth(12_345, true);
    gw.run(1);
    gw.set_queue_depth(0, false);
    let frames: Vec<(u64, Frame)> = (0..40)
        .map(|i| (0, data_frame(0, Ecn::NotEct, 1024, i)))
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, frames)],
        depth_steps: vec![],
        end_cycle: None,
    };
    let run =
        cngw_testbench::scheduled::run_scheduled(&mut gw, &schedule, StreamOptions::line_rate())
            .unwrap();
    let out = &run.capture.outputs[&OutPort::WanTx];
    let arrivals: Vec<(u64, u32)> = out
        .iter()
        .zip(&run.capture.output_end_cycles[&OutPort::WanTx])
        .map(|(f, c)| (run.start_cycle + c, f.data.len() as u32))
        .collect();
    let steps = virtual_queue_steps(drain, &arrivals, run.end_cycle + 20_000);
    // 40 KiB in, 8.5 bytes out per clock: still about 35 KB when the run ends.
    let peak = steps.iter().map(|s| s.1).max().unwrap();
    assert!(peak > 30_000, "peak {peak}");
    for _ in 0..6 {
        let from = gw.cycle();
        let got = gw.csr_read(offset::PORT0_VQ_DEPTH_BYTES).unwrap();
        let to = gw.cycle();
        assert_read_matches(
            "PORT0_VQ_DEPTH_BYTES",
            got,
            from.saturating_sub(4),
            to,
            |c| value_at(&steps, 0, c),
        );
        assert!(got > 0);
        // The telemetry input still decides (internal_queue is off).
        assert_eq!(
            gw.csr_read(offset::PORT0_QUEUE_DEPTH_BYTES).unwrap(),
            12_345
        );
        gw.run(500);
    }
    // Switched to the virtual queue, the gateway's depth follows it.
    gw.csr_write(offset::PORT0_METER_CONTROL, meter_control::INTERNAL_QUEUE)
        .unwrap();
    let from = gw.cycle();
    let got = gw.csr_read(offset::PORT0_QUEUE_DEPTH_BYTES).unwrap();
    let to = gw.cycle();
    assert_read_matches(
        "PORT0_QUEUE_DEPTH_BYTES",
        got,
        from.saturating_sub(5),
        to,
        |c| value_at(&steps, 0, c),
    );
    gw.run(10_000);
    assert_eq!(gw.csr_read(offset::PORT0_VQ_DEPTH_BYTES).unwrap(), 0);
    assert_eq!(gw.csr_read(offset::PORT0_QUEUE_DEPTH_BYTES).unwrap(), 0);
}

/// LH-02: the average queue follows the depth once per microsecond with
/// weight 2^-2; reads at random clocks equal the model.
#[test]
fn lh_02_average_queue_follows_the_depth() {
    let (mut gw, mut m) = setup(0);
    // (CLOCKS_PER_US stays at its reset value: the microsecond ticks count
    // from reset.)
    both(&mut gw, &mut m, offset::PORT0_AVG_WEIGHT_SHIFT, 2);
    let mut rng = StdRng::seed_from_u64(7);
    let mut steps: Vec<(u64, u32)> = Vec::new();
    for _ in 0..12 {
        let bytes = rng.gen_range(0..50_000_000);
        steps.push((gw.cycle(), bytes));
        gw.set_queue_depth(bytes, true);
        gw.run(1);
        gw.set_queue_depth(bytes, false);
        gw.run(rng.gen_range(100..700));
        let from = gw.cycle();
        let got = gw.csr_read(offset::PORT0_QUEUE_AVG_BYTES).unwrap();
        let to = gw.cycle();
        let reset = gw.reset_released_at();
        assert_read_matches(
            "PORT0_QUEUE_AVG_BYTES",
            got,
            from.saturating_sub(4),
            to,
            |c| average_at(&steps, 0, reset, 322, 2, c),
        );
    }
}

/// The flows' ECN-capable frames between K_min and K_max: every one leaves
/// CE, so the marking rate is 1.0 in every window.
fn emr_run(
    v_ecn: u32,
) -> (
    Gateway,
    GatewayModel,
    cngw_testbench::scheduled::ScheduledCapture,
) {
    let (mut gw, mut m) = setup(4);
    for (off, v) in [
        (offset::PORT0_EMR_WINDOW_US, 20),
        (offset::PORT0_V_ECN_Q16, v_ecn),
        (offset::PORT0_RTT_EST_US, 1000),
        (
            offset::FEATURE_ENABLE,
            feature::LH_ECN_MARK | feature::LH_CNP,
        ),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    // Every 150 clocks a 256-byte frame (over three and a half 6440-clock
    // windows); a quarter are Not-ECT (not counted).
    let frames: Vec<(u64, Frame)> = (0..150u32)
        .map(|i| {
            let ecn = if i % 4 == 3 { Ecn::NotEct } else { Ecn::Ect0 };
            (150 * i as u64, data_frame(i % 4, ecn, 256, i))
        })
        .collect();
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, frames)],
        depth_steps: vec![DepthStep {
            cycle: 0,
            bytes: 70_000_000,
        }],
        end_cycle: None,
    };
    let run = check_scheduled(
        &mut gw,
        &mut m,
        &schedule,
        StreamOptions::random(0.1, 0.2, 5),
    )
    .unwrap_or_else(|e| panic!("V_ecn {v_ecn:#x}: {e}"));
    (gw, m, run)
}

/// LH-05: an ECN marking rate above V_ecn triggers Long-haul CNPs below
/// K_max, from the first window's result on (RTL and model agree on every
/// notification); at V_ecn = 1.0 nothing triggers. The rate reads 1.0.
#[test]
fn lh_05_marking_rate_above_v_ecn_triggers_below_k_max() {
    let (mut gw, m, run) = emr_run(0x8000);
    let sent = m.read_register(offset::LH_CNP_SENT).unwrap();
    // The trigger is the port's: every flow whose packets meet it is told,
    // once (RTT_est, 1 ms, is the interval), flow 3's Not-ECT ones too.
    assert_eq!(sent, 4, "one Long-haul CNP per flow");
    let dc_tx = &run.capture.outputs[&OutPort::DcTx];
    assert_eq!(scapy_checks(dc_tx), 4);
    // None can be decided before a window holding a marked frame closed
    // and the divider finished.
    let first = run.capture.output_start_cycles[&OutPort::DcTx][0];
    assert!(
        first >= run.marker_cycles[1] + 18,
        "first notification at {first}"
    );
    let from = gw.cycle();
    let got = gw.csr_read(offset::PORT0_EMR_Q16).unwrap();
    let to = gw.cycle();
    assert_read_matches("PORT0_EMR_Q16", got, from.saturating_sub(4), to, |c| {
        m.marking_rate_at(c).0
    });

    let (_, m, run) = emr_run(0x1_0000);
    assert_eq!(m.read_register(offset::LH_CNP_SENT).unwrap(), 0);
    assert!(!run.capture.outputs.contains_key(&OutPort::DcTx));
    // A window wholly inside the traffic: every ECN-capable frame left CE.
    assert_eq!(
        m.marking_rate_at(run.start_cycle + 15_000),
        (0x1_0000, false)
    );
}

/// One frame `f1` at clock 0 (in a fresh gateway with the virtual queue
/// in charge and marking on), then an ECT(0) frame released at clock `s`:
/// whether the second one left CE. RTL and model must agree.
fn second_frame_marked(drain_q16: u32, k_min: u32, f1: &Frame, s: u64) -> bool {
    let (mut gw, mut m) = setup(0);
    for (off, v) in [
        (offset::PORT0_METER_CONTROL, meter_control::INTERNAL_QUEUE),
        (offset::PORT0_VQ_DRAIN_Q16, drain_q16),
        (offset::PORT0_K_MIN_BYTES, k_min),
        (offset::FEATURE_ENABLE, feature::LH_ECN_MARK),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    let schedule = Schedule {
        inputs: vec![(
            InPort::DcRx,
            vec![(0, f1.clone()), (s, data_frame(1, Ecn::Ect0, 64, 7))],
        )],
        depth_steps: vec![],
        end_cycle: None,
    };
    let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
        .unwrap_or_else(|e| panic!("second frame at clock {s}: {e}"));
    let out = &run.capture.outputs[&OutPort::WanTx][1];
    cngw_packet::Frame::parse(&out.data)
        .unwrap()
        .ip
        .header
        .ecn()
        == Ecn::Ce
}

/// LH-02 timing, clock-exact: a frame counts in the virtual queue from
/// the third clock after its last beat left wan_tx (the frame behind it
/// at line rate is not marked, the ones a few clocks later are), and the
/// queue drains by the configured amount every clock (a 1,500-byte frame
/// draining at one byte per clock stays above K_min = 1,000 for about 500
/// clocks). For every release clock of the second frame the model predicts
/// the RTL's marking; the sweeps cross both edges.
#[test]
fn lh_02_virtual_queue_timing_is_clock_exact() {
    let f1 = data_frame(0, Ecn::NotEct, 1500, 1);
    let early: Vec<bool> = (0..40)
        .map(|s| second_frame_marked(0, 1000, &f1, s))
        .collect();
    assert!(!early[0] && early[39], "{early:?}");
    let edge = early.iter().position(|&x| x).unwrap();
    assert!(early[edge..].iter().all(|&x| x), "{early:?}");
    let late: Vec<bool> = (480..540)
        .map(|s| second_frame_marked(0x1_0000, 1000, &f1, s))
        .collect();
    assert!(late[0] && !late[59], "{late:?}");
    let edge = late.iter().position(|&x| !x).unwrap();
    assert!(late[edge..].iter().all(|&x| !x), "{late:?}");
}

/// LH-05 timing, clock-exact: a window whose ECN-capable frames all left
/// CE decides the trigger from `EMR_DELAY` clocks after its last clock.
/// A Not-ECT packet of a flow with a source QP released at every clock
/// around that edge is notified exactly when the model says.
#[test]
fn lh_05_marking_rate_trigger_timing_is_clock_exact() {
    let mut told = Vec::new();
    for delta in 0..36u64 {
        let (mut gw, mut m) = setup(2);
        for (off, v) in [
            (offset::PORT0_EMR_WINDOW_US, 2),
            (offset::PORT0_V_ECN_Q16, 0x8000),
            (
                offset::FEATURE_ENABLE,
                feature::LH_ECN_MARK | feature::LH_CNP,
            ),
        ] {
            both(&mut gw, &mut m, off, v);
        }
        // Above K_min, below K_max: ECN-capable frames leave CE.
        hold_depth(&mut gw, &mut m, 70_000_000);
        // The next window boundary at least 700 clocks ahead.
        let rel_end = window_start(&gw, 2, 2) - 1;
        // One marked frame in the window, then the probe near the edge.
        let probe_at = rel_end + 18 - 20 + delta;
        let schedule = Schedule {
            inputs: vec![(
                InPort::DcRx,
                vec![
                    (rel_end - 300, data_frame(0, Ecn::Ect0, 128, 1)),
                    (probe_at, data_frame(1, Ecn::NotEct, 64, 2)),
                ],
            )],
            depth_steps: vec![],
            end_cycle: None,
        };
        check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("probe at +{delta}: {e}"));
        told.push(m.read_register(offset::LH_CNP_SENT).unwrap() == 1);
    }
    assert!(!told[0] && told[35], "{told:?}");
    let edge = told.iter().position(|&x| x).unwrap();
    assert!(told[edge..].iter().all(|&x| x), "{told:?}");
}

/// The senders of the notifications among `out` (IPv4 source 10.0.0.x of
/// the flow = the notification's destination), in order.
fn notified_flows(out: &[Frame]) -> Vec<u8> {
    out.iter()
        .filter(|f| f.data.len() >= 34 && f.data[6..12] == GW_MAC)
        .map(|f| f.data[33])
        .collect()
}

/// LH-06 top contributor: with the queue above K_max, a heavy flow (1,500
/// bytes every 60 clocks) and a light one (64 bytes every 500) both send;
/// with a share of 1/4 only the heavy flow is told once the first window's
/// threshold is in place, the light one's congested packets are counted
/// as not top. RTL and model agree on every notification and counter.
#[test]
fn lh_06_only_top_contributors_are_told() {
    let (mut gw, mut m) = setup(2);
    for (off, v) in [
        (offset::LH_OBS_WINDOW_US, 20),
        (offset::LH_TOP_SHARE_Q8, 64),
        (offset::PORT0_FLOW_INTERVAL_US, 4),
        (offset::LH_BUCKET_REFILL_CLOCKS, 50),
        (
            offset::FEATURE_ENABLE,
            feature::LH_ECN_MARK | feature::LH_CNP,
        ),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    let mut frames: Vec<(u64, Frame)> = (0..400u32)
        .map(|i| (60 * i as u64, data_frame(0, Ecn::Ect0, 1500, i)))
        .collect();
    frames.extend((0..48u32).map(|i| (500 * i as u64 + 7, data_frame(1, Ecn::Ect0, 64, i))));
    frames.sort_by_key(|f| f.0);
    let schedule = Schedule {
        inputs: vec![(InPort::DcRx, frames)],
        depth_steps: vec![DepthStep {
            cycle: 0,
            bytes: 130_000_000,
        }],
        end_cycle: None,
    };
    let run = check_scheduled(
        &mut gw,
        &mut m,
        &schedule,
        StreamOptions::random(0.1, 0.1, 9),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let told = notified_flows(&run.capture.outputs[&OutPort::DcTx]);
    let heavy = told.iter().filter(|&&f| f == 1).count();
    let light = told.iter().filter(|&&f| f == 2).count();
    let not_top = m.read_register(offset::LH_CNP_NOT_TOP).unwrap();
    eprintln!("heavy told {heavy}, light told {light}, not top {not_top}");
    assert!(heavy >= 4, "{told:?}");
    // Only while the threshold comes from the (partial) windows before the
    // traffic can the light flow be told: early, twice at most.
    assert!(light <= 2, "{told:?}");
    assert!(told.iter().skip(4).all(|&f| f == 1), "{told:?}");
    assert!(not_top >= 20, "{not_top}");
    assert_eq!(
        scapy_checks(&run.capture.outputs[&OutPort::DcTx]),
        told.len()
    );
    // Without the share every flow is told again.
    let (mut gw, mut m) = setup(2);
    for (off, v) in [
        (offset::PORT0_FLOW_INTERVAL_US, 4),
        (offset::LH_BUCKET_REFILL_CLOCKS, 50),
        (
            offset::FEATURE_ENABLE,
            feature::LH_ECN_MARK | feature::LH_CNP,
        ),
    ] {
        both(&mut gw, &mut m, off, v);
    }
    let run = check_scheduled(
        &mut gw,
        &mut m,
        &schedule,
        StreamOptions::random(0.1, 0.1, 9),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let told = notified_flows(&run.capture.outputs[&OutPort::DcTx]);
    assert!(told.iter().filter(|&&f| f == 2).count() >= 4, "{told:?}");
    assert_eq!(m.read_register(offset::LH_CNP_NOT_TOP), Some(0));
}

/// LH-06 timing, clock-exact: a window of heavy traffic sets the threshold
/// `TOP_DELAY` clocks after its last clock; a light flow's single packet
/// decided around that edge is told before it (the threshold of the empty
/// window before: 0) and not after, exactly when the model says.
#[test]
fn lh_06_top_threshold_timing_is_clock_exact() {
    let mut told = Vec::new();
    for delta in 0..30u64 {
        let (mut gw, mut m) = setup(2);
        for (off, v) in [
            (offset::LH_OBS_WINDOW_US, 20),
            (offset::LH_TOP_SHARE_Q8, 128),
            (offset::FEATURE_ENABLE, feature::LH_CNP),
        ] {
            both(&mut gw, &mut m, off, v);
        }
        hold_depth(&mut gw, &mut m, 130_000_000);
        // The heavy flow sends in the window that ends at `end` (the one
        // after the current, so the window before it is empty of traffic).
        let rel_end = window_start(&gw, 20, 2) - 1;
        let mut frames: Vec<(u64, Frame)> = (0..10u32)
            .map(|i| {
                (
                    rel_end - 2000 + 100 * i as u64,
                    data_frame(0, Ecn::NotEct, 1500, i),
                )
            })
            .collect();
        // Its decision (header + 5) crosses end + TOP_DELAY.
        frames.push((
            rel_end + 9 - 5 - 15 + delta,
            data_frame(1, Ecn::NotEct, 64, 99),
        ));
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, frames)],
            depth_steps: vec![],
            end_cycle: None,
        };
        let run = check_scheduled(&mut gw, &mut m, &schedule, StreamOptions::line_rate())
            .unwrap_or_else(|e| panic!("probe at +{delta}: {e}"));
        let flows = notified_flows(
            run.capture
                .outputs
                .get(&OutPort::DcTx)
                .map_or(&[][..], |v| v),
        );
        told.push(flows.contains(&2));
    }
    assert!(told[0] && !told[29], "{told:?}");
    let edge = told.iter().position(|&x| !x).unwrap();
    assert!(told[edge..].iter().all(|&x| !x), "{told:?}");
}

/// LH-10 downstream deferral: two flows send through a queue above K_max in
/// 20 us windows; flow A slows to a quarter in the third window (as if a
/// node downstream had told it), flow B keeps its rate. With
/// `LH_OPTIONS.defer`, A's packets of the fourth window find its rate fell
/// (its last window below 7/8 of the one before) and get no CNP — counted
/// in LH_CNP_DEFERRED — while B is still told; without it A is told too.
/// RTL and model agree on every notification and counter.
#[test]
fn lh_10_downstream_deferral_spares_flows_that_already_slowed() {
    let mut told_a_late = Vec::new();
    for defer in [true, false] {
        let (mut gw, mut m) = setup(2);
        let mut options = lh_option::IPV4_LONGHAUL;
        if defer {
            options |= lh_option::DEFER;
        }
        for (off, v) in [
            (offset::LH_OBS_WINDOW_US, 20),
            (offset::PORT0_FLOW_INTERVAL_US, 5),
            (offset::LH_BUCKET_REFILL_CLOCKS, 200),
            (offset::LH_OPTIONS, options),
            (offset::FEATURE_ENABLE, feature::LH_CNP),
        ] {
            both(&mut gw, &mut m, off, v);
        }
        hold_depth(&mut gw, &mut m, 130_000_000);
        let w = 20 * 322u64;
        let b0 = window_start(&gw, 20, 1);
        let mut frames: Vec<(u64, Frame)> = Vec::new();
        for i in 0..(4 * w / 100) {
            let t = b0 + 100 * i;
            let slow = t >= b0 + 2 * w && t < b0 + 3 * w;
            if !slow || i % 4 == 0 {
                frames.push((t, data_frame(0, Ecn::NotEct, 1000, i as u32)));
            }
        }
        for i in 0..(4 * w / 150) {
            frames.push((
                b0 + 150 * i + 37,
                data_frame(1, Ecn::NotEct, 1000, i as u32),
            ));
        }
        frames.sort_by_key(|f| f.0);
        let schedule = Schedule {
            inputs: vec![(InPort::DcRx, frames)],
            depth_steps: vec![],
            end_cycle: None,
        };
        let run = check_scheduled(
            &mut gw,
            &mut m,
            &schedule,
            StreamOptions::random(0.05, 0.1, 3),
        )
        .unwrap_or_else(|e| panic!("defer {defer}: {e}"));
        let out = &run.capture.outputs[&OutPort::DcTx];
        let starts = &run.capture.output_start_cycles[&OutPort::DcTx];
        let late = |flow: u8| {
            out.iter()
                .zip(starts)
                .filter(|(f, &c)| {
                    f.data[6..12] == GW_MAC && f.data[33] == flow && c > b0 + 3 * w + 100
                })
                .count()
        };
        assert!(
            late(2) >= 2,
            "defer {defer}: flow B told in the fourth window"
        );
        told_a_late.push(late(1));
        let deferred = m.read_register(offset::LH_CNP_DEFERRED).unwrap();
        assert_eq!(deferred > 0, defer, "defer {defer}: {deferred}");
        assert_eq!(scapy_checks(out), notified_flows(out).len());
    }
    assert_eq!(told_a_late[0], 0, "deferred: A is not told once it slowed");
    assert!(
        told_a_late[1] >= 2,
        "without deferral A is told: {told_a_late:?}"
    );
}
