//! Issue 8 item 2: the closed-loop scenario simulator on the draft's
//! operational example (`examples/scenarios/draft-example.toml`, shortened
//! to 20 ms simulated), and scenario-file checks.
//!
//! Bounds (WAN RTT 10 ms, data-centre RTT 20 us, growth interval 10 us):
//! - `longhaul`: time from congestion onset to the first rate cut at most
//!   0.6 RTT (the Long-haul CNP crosses half the WAN once);
//! - `baseline`: 0.9 to 1.5 RTT (the CE mark waits behind K_min, half an
//!   RTT at the port's rate, then the receiver's CNP crosses the WAN);
//! - `smartnic`: no later than `longhaul` (the same Long-haul CNP, applied
//!   by the SmartNIC);
//! - `near_source`: at most 2 data-centre RTTs plus 2 growth intervals
//!   (the gateway's growth trigger samples every interval).

use cngw_model::scenario::{run, Mode, RunResult, Scenario};
use std::path::Path;

const RTT_NS: f64 = 10_000_000.0;

fn text(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/scenarios")
        .join(file);
    std::fs::read_to_string(path).unwrap()
}

fn draft(duration_ms: f64) -> Scenario {
    let mut s = Scenario::from_toml(&text("draft-example.toml")).unwrap();
    s.duration_ms = duration_ms;
    s
}

fn go(s: &Scenario, mode: Mode) -> RunResult {
    run(s, mode, &mut |_, _| {}).unwrap()
}

fn ttc(r: &RunResult) -> f64 {
    r.summary
        .time_to_first_cut_ns()
        .unwrap_or_else(|| panic!("{:?}: no onset or no cut", r.summary.mode)) as f64
}

#[test]
fn lh_05_scn_longhaul_first_cut_within_half_a_wan_rtt() {
    let s = draft(20.0);
    let lh = go(&s, Mode::Longhaul);
    let t = ttc(&lh);
    assert!(t <= 0.6 * RTT_NS, "longhaul: {t} ns");
    assert!(t >= 0.5 * RTT_NS, "cannot beat the WAN one way: {t} ns");
    // The first cut is the Long-haul CNP's, long before any receiver CNP.
    let base = go(&s, Mode::Baseline);
    assert!(ttc(&base) > t + 0.3 * RTT_NS);
}

#[test]
fn scn_baseline_first_cut_about_one_wan_rtt() {
    let r = go(&draft(20.0), Mode::Baseline);
    let t = ttc(&r);
    assert!(
        (0.9 * RTT_NS..=1.5 * RTT_NS).contains(&t),
        "baseline: {t} ns"
    );
    assert!(r.summary.cnps_sent > 0);
    assert_eq!(r.summary.notifications, 0, "no gateway in the baseline");
}

#[test]
fn lh_16_scn_smartnic_cuts_as_fast_as_longhaul_by_the_drafts_30_percent() {
    let s = draft(20.0);
    let lh = ttc(&go(&s, Mode::Longhaul));
    let r = go(&s, Mode::Smartnic);
    assert!(ttc(&r) <= lh, "smartnic {} ns, longhaul {lh} ns", ttc(&r));
    // The draft's {Action=Rate Reduce, Parameter=30}: 100 -> 70 Gb/s at
    // the first sample after the cut, before the DCQCN loop answers.
    let cut = r.summary.first_cut_ns.unwrap();
    let s0 = r.summary.first_cut_sender.unwrap();
    let after = r.samples.iter().find(|x| x.t_ns > cut).unwrap();
    assert!(
        (after.rates_gbps[s0] - 70.0).abs() < 1e-9,
        "{}",
        after.rates_gbps[s0]
    );
}

#[test]
fn scn_near_source_first_cut_within_the_data_centre_rtt() {
    let s = draft(20.0);
    let r = go(&s, Mode::NearSource);
    let bound = 2.0 * s.path.dc_rtt_us * 1e3 + 2.0 * s.qgr_interval_us() as f64 * 1e3;
    let t = ttc(&r);
    assert!(t <= bound, "near_source: {t} ns > {bound} ns");
    assert!(t >= s.path.dc_rtt_us * 1e3 / 2.0, "{t} ns");
}

/// LH-08: at most one Long-haul CNP per flow per RTT_est.
#[test]
fn lh_08_scn_one_longhaul_cnp_per_flow_per_rtt_est() {
    let s = draft(30.0);
    let r = go(&s, Mode::Longhaul);
    let flows = s.senders.len() as u64;
    // Onset at ~5 ms: notifications at ~5, ~15 and ~25 ms at most.
    assert!(r.summary.notifications >= flows, "{:?}", r.summary);
    assert!(r.summary.notifications <= 3 * flows, "{:?}", r.summary);
}

#[test]
fn scn_runs_are_deterministic_and_sampled() {
    let s = draft(8.0);
    let a = go(&s, Mode::Smartnic);
    let b = go(&s, Mode::Smartnic);
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.samples, b.samples);
    assert_eq!(a.samples.len(), 81, "every 100 us from 0 to 8 ms");
    assert!(a.samples.iter().all(|x| x.rates_gbps.len() == 4));
    // Equal senders: fair; a saturated port.
    assert!(a.summary.jain > 0.99, "{}", a.summary.jain);
    assert!(
        a.summary.wan_utilisation > 0.95,
        "{}",
        a.summary.wan_utilisation
    );
}

#[test]
fn scn_near_source_example_runs() {
    let mut s = Scenario::from_toml(&text("near-source.toml")).unwrap();
    s.duration_ms = 5.0;
    let r = go(&s, Mode::Longhaul);
    assert!(ttc(&r) < 100_000.0, "{:?}", r.summary);
}

fn error_of(text: &str) -> String {
    Scenario::from_toml(text).unwrap_err()
}

#[test]
fn scn_bad_files_name_the_field() {
    let good = text("draft-example.toml");
    let e = error_of(&good.replace("k_min_bytes = 62_500_000", "k_min_bytes = 130_000_000"));
    assert!(e.contains("bottleneck.k_min_bytes"), "{e}");
    let e = error_of(&good.replace("dc_rtt_us = 20.0", "dc_rtt_us = -1.0"));
    assert!(e.contains("path.dc_rtt_us"), "{e}");
    let e = error_of(&good.replace("qp = 102", "qp = 100000000"));
    assert!(e.contains("senders[2].qp"), "{e}");
    let e = error_of(&good.replace("p_max = 0.01", "p_max = \"high\""));
    assert!(e.contains("p_max"), "{e}");
    let e = error_of(&good.replace("p_max = 0.01", "pmax = 0.01"));
    assert!(e.contains("pmax"), "{e}");
    let e = error_of(&good.replace("position = \"far\"", "position = \"middle\""));
    assert!(e.contains("position"), "{e}");
    let e = error_of(&good.replace("g = 0.00390625", "g = 2.0"));
    assert!(e.contains("dcqcn.g"), "{e}");
}
