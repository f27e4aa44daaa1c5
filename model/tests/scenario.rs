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
    let e = error_of(&good.replace("t2_bytes = 62_500_000", "t2_bytes = 6_000_000"));
    assert!(e.contains("pre_ecn.t2_bytes"), "{e}");
    let e = error_of(&good.replace("g = 0.00390625", "g = 2.0"));
    assert!(e.contains("dcqcn.g"), "{e}");
}

/// Issue 8 summary metrics: Jain's index on hand-computed cases.
#[test]
fn scn_metrics_jain_index_hand_computed() {
    use cngw_model::scenario::jain_index;
    assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), 1.0);
    // One sender has everything: 1/n.
    assert_eq!(jain_index(&[7.0, 0.0, 0.0, 0.0]), 0.25);
    // (1 + 2)^2 / (2 * (1 + 4)) = 9/10; (3 + 1)^2 / (2 * (9 + 1)) = 16/20.
    assert!((jain_index(&[1.0, 2.0]) - 0.9).abs() < 1e-12);
    assert!((jain_index(&[3.0, 1.0]) - 0.8).abs() < 1e-12);
    assert_eq!(jain_index(&[]), 0.0);
    assert_eq!(jain_index(&[0.0, 0.0]), 0.0);
}

/// Issue 8 summary metrics: WAN utilisation on hand-computed cases.
#[test]
fn scn_metrics_utilisation_hand_computed() {
    use cngw_model::scenario::utilisation;
    // 100 Gb/s for 1 ms is 12.5 MB.
    assert!((utilisation(12_500_000, 100.0, 1_000_000) - 1.0).abs() < 1e-12);
    assert!((utilisation(6_250_000, 100.0, 1_000_000) - 0.5).abs() < 1e-12);
    assert!((utilisation(1_000, 8.0, 1_000) - 1.0).abs() < 1e-12);
    assert_eq!(utilisation(1_000, 100.0, 0), 0.0);
}

/// Issue 8 summary metrics in a run: two uncongested senders at 60 and
/// 20 Gb/s through the 100 Gb/s port: utilisation 80 % and Jain's index
/// (60 + 20)^2 / (2 * (60^2 + 20^2)) = 0.8; no onset, no cut, no drops.
#[test]
fn scn_metrics_in_a_run_match_the_hand_computed_values() {
    let mut s = draft(20.0);
    s.senders.truncate(2);
    s.senders[0].line_rate_gbps = 60.0;
    s.senders[1].line_rate_gbps = 20.0;
    for mode in [Mode::Baseline, Mode::Longhaul] {
        let r = go(&s, mode);
        let m = &r.summary;
        assert!((m.wan_utilisation - 0.8).abs() < 0.01, "{mode}: {m:?}");
        assert!((m.jain - 0.8).abs() < 0.01, "{mode}: {m:?}");
        assert_eq!(m.onset_ns, None, "{mode}: {m:?}");
        assert_eq!(m.first_cut_ns, None, "{mode}: {m:?}");
        assert_eq!(m.drops, 0);
        assert!(m.peak_queue_bytes <= 2 * s.path.mtu_bytes as u64, "{m:?}");
    }
}

/// Issue 8 mode `fast_cnp` (draft-he-fcn-in-wan): the congested node's
/// Fast CNP crosses the WAN once to the ingress PE, whose standard CNP
/// crosses the source data centre. The average queue cannot pass T1
/// before the queue does, (T1 - onset) / (the senders' excess over the
/// port) after onset, so the first cut is no earlier than that plus half a
/// WAN RTT plus half a data-centre RTT; it comes at most 150 us later: four
/// time constants of the average (2^4 us each) and the first draws that
/// say ECT(1) while its probability is still small. Half a WAN RTT, not
/// the baseline's whole one.
#[test]
fn fcn_03_scn_fast_cnp_first_cut_within_half_a_wan_rtt() {
    let s = draft(20.0);
    let r = go(&s, Mode::FastCnp);
    let (t1, _, _) = s.pe_thresholds();
    let excess: f64 =
        s.senders.iter().map(|x| x.line_rate_gbps).sum::<f64>() - s.path.wan_rate_gbps;
    let to_t1 = (t1 as u64 - s.bottleneck.onset_bytes) as f64 * 8.0 / excess;
    let least = to_t1 + RTT_NS / 2.0 + s.path.dc_rtt_us * 1e3 / 2.0;
    let t = ttc(&r);
    assert!(
        (least..=least + 150_000.0).contains(&t),
        "fast_cnp: {t} ns, expected {least} ns + up to 150 us"
    );
    assert!(t <= 0.55 * RTT_NS, "{t} ns");
    // The cuts are the ingress PE's CNPs, not the receivers'.
    assert!(r.summary.notifications > 0, "{:?}", r.summary);
    let base = go(&s, Mode::Baseline);
    assert!(ttc(&base) > t + 0.3 * RTT_NS);
    // FCN-06: the congested node's bucket (one token per 10 us, depth 8)
    // bounds the Fast CNPs, and so the ingress PE's CNPs.
    let after_onset = s.duration_ms * 1e6 - r.summary.onset_ns.unwrap() as f64;
    assert!(
        (r.summary.notifications as f64) <= 8.0 + after_onset / 10_000.0,
        "{:?}",
        r.summary
    );
}

/// `fast_cnp` with T1 at K_min: the first cut waits for the average
/// queue to reach K_min, so it comes later than with the default T1
/// (K_min / 10) by about the time the queue takes from one to the other.
#[test]
fn fcn_03_scn_fast_cnp_answers_t1() {
    let s = draft(20.0);
    let early = ttc(&go(&s, Mode::FastCnp));
    let mut late = s.clone();
    late.pre_ecn.t1_bytes = Some(s.k_min_bytes() as u32);
    late.pre_ecn.t2_bytes = Some(s.k_min_bytes() as u32 + 1);
    let t = ttc(&go(&late, Mode::FastCnp));
    let excess: f64 =
        s.senders.iter().map(|x| x.line_rate_gbps).sum::<f64>() - s.path.wan_rate_gbps;
    let gap = (s.k_min_bytes() - s.pe_thresholds().0 as u64) as f64 * 8.0 / excess;
    assert!(
        (t - early - gap).abs() < 150_000.0,
        "T1 = K_min: {t} ns, default: {early} ns, queue from K_min/10 to K_min: {gap} ns"
    );
}

/// The senders' total rate above the port's, Gb/s (bits per ns).
fn excess(s: &Scenario) -> f64 {
    s.senders.iter().map(|x| x.line_rate_gbps).sum::<f64>() - s.path.wan_rate_gbps
}

/// Issue 8 mode `two_threshold` (draft-hu-rtgwg-pre-ecn-wan): the first
/// cut is the ingress PE's shaper acting on a light Fast CNP (PE-05): no
/// earlier than the queue's climb to T1 after onset plus the node's
/// notification crossing the WAN once (the PE is the sender's own
/// gateway), at most 150 us later (as for `fast_cnp`). The receivers'
/// first CNP, for a CE mark above T2, comes a whole round trip later: the
/// climb to T2, the marked packet's wait behind T2 bytes at the port's
/// rate, the trip to the receiver and the CNP's back, as in the baseline.
#[test]
fn pe_05_scn_two_threshold_first_cut_at_the_ingress_pe() {
    let s = draft(20.0);
    let r = go(&s, Mode::TwoThreshold);
    let (t1, t2, _) = s.pe_thresholds();
    let onset = s.bottleneck.onset_bytes;
    let dc = s.path.dc_rtt_us * 1e3;
    let least = (t1 as u64 - onset) as f64 * 8.0 / excess(&s) + RTT_NS / 2.0;
    let t = ttc(&r);
    assert!(
        (least..=least + 150_000.0).contains(&t),
        "two_threshold: {t} ns, expected {least} ns + up to 150 us"
    );
    let fast = ttc(&go(&s, Mode::FastCnp));
    assert!(t < fast, "no data-centre leg: {t} ns, fast_cnp {fast} ns");
    // The shaper's first cut: 1/8 of the full rate (PE_SHAPER_CONTROL's
    // reset cut), seen at the first sample after it, unless DCQCN or a
    // second cut went lower.
    let s0 = r.summary.first_cut_sender.unwrap();
    let cut = r.summary.first_cut_ns.unwrap();
    let after = r.samples.iter().find(|x| x.t_ns > cut).unwrap();
    assert!(
        after.rates_gbps[s0] <= 87.5 + 1e-9,
        "{:?}",
        after.rates_gbps
    );
    // CE above T2 reaches the receivers, whose CNPs come about one RTT
    // after onset (as in the baseline, never before the bound).
    let onset_ns = r.summary.onset_ns.unwrap() as f64;
    let first_cnp = r
        .samples
        .iter()
        .find(|x| x.cnp_arrivals > 0)
        .map(|x| x.t_ns as f64)
        .expect("receiver CNPs");
    let ce_bound = (t2 as u64 - onset) as f64 * 8.0 / excess(&s)
        + t2 as f64 * 8.0 / s.path.wan_rate_gbps
        + dc / 2.0
        + RTT_NS / 2.0
        + dc;
    let since = first_cnp - onset_ns;
    assert!(
        (ce_bound..=ce_bound + 600_000.0).contains(&since),
        "first receiver CNP {since} ns after onset, bound {ce_bound} ns (+ 0.5 ms of \
         sampling and average lag)"
    );
}

/// `two_threshold`: ECT(1) is the WAN's early warning only; the egress PE
/// does not copy it inward, so with T2 above the buffer (no CE ever) the
/// receivers send no CNP at all, while the ingress PE's shaper still cuts
/// (and the baseline's RED marks do make CNPs).
#[test]
fn pe_02_scn_two_threshold_ect1_never_reaches_the_receivers() {
    let mut s = draft(20.0);
    s.pre_ecn.t2_bytes = Some(300_000_000);
    s.pre_ecn.tmax_bytes = Some(400_000_000);
    assert!(s.bottleneck.buffer_bytes < 300_000_000);
    let r = go(&s, Mode::TwoThreshold);
    assert_eq!(r.summary.cnps_sent, 0, "{:?}", r.summary);
    assert!(r.summary.first_cut_ns.is_some(), "{:?}", r.summary);
    assert!(r.samples.iter().all(|x| x.cnp_arrivals == 0));
    assert!(go(&s, Mode::Baseline).summary.cnps_sent > 0);
}

/// Issue 8 mode `proxy` (PX-01, PX-02): the node at the queue decides as
/// in `longhaul`, but its notification goes as a CN message to the proxy
/// in the source data centre, which sends the CNP: the same distance
/// (node -> source data centre -> sender), so the first cut comes when
/// `longhaul`'s does, within 1 us: the proxy's walk of the message (32
/// clocks) and the timing of the data path (the node in `longhaul`'s loop
/// takes each frame's beats and the builder's latency, about 0.25 us; the
/// models driven directly in the other modes take neither).
#[test]
fn px_02_scn_proxy_first_cut_as_early_as_longhaul() {
    let s = draft(20.0);
    let lh = ttc(&go(&s, Mode::Longhaul));
    let r = go(&s, Mode::Proxy);
    let t = ttc(&r);
    assert!((t - lh).abs() <= 1_000.0, "proxy {t} ns, longhaul {lh} ns");
    assert!(t <= 0.6 * RTT_NS);
    // The cut came from the proxy's CNP (the node sent nothing to the
    // senders itself).
    assert!(r.summary.notifications >= 1, "{:?}", r.summary);
}

/// Issue 8 mode `rate_advice` (RA-01..RA-03): the node's advice follows
/// the explicit-rate law once per control interval T (1 ms), so it first
/// falls at the end of the first interval whose arrivals exceeded the
/// port, at most T after onset (arrivals exceed the port at most the
/// queue's climb to the onset bytes before onset); the message then
/// crosses back to the sender (half the WAN RTT and half the data-centre
/// RTT). Every sender gets the same advice, falling toward the fair share
/// C / N interval after interval.
#[test]
fn ra_03_scn_rate_advice_first_cut_within_one_interval_and_half_a_rtt() {
    let s = draft(20.0);
    let r = go(&s, Mode::RateAdvice);
    let t = ttc(&r);
    let back = RTT_NS / 2.0 + s.path.dc_rtt_us * 1e3 / 2.0;
    let climb = s.bottleneck.onset_bytes as f64 * 8.0 / excess(&s);
    let interval = 1_000_000.0;
    assert!(
        (back - climb..=back + interval + 10_000.0).contains(&t),
        "rate_advice: {t} ns, expected {back} ns + up to one interval"
    );
    assert!(r.summary.notifications > 0, "{:?}", r.summary);
    // Equal senders, equal advice; each later sample no higher than the
    // one before while the queue stands (the advice only falls).
    let last = r.samples.last().unwrap();
    assert!(
        last.rates_gbps.windows(2).all(|w| w[0] == w[1]),
        "{:?}",
        last
    );
    let fair = s.path.wan_rate_gbps / s.senders.len() as f64;
    assert!(last.rates_gbps[0] < 100.0 && last.rates_gbps[0] > 0.5 * fair);
    let cut = r.summary.first_cut_ns.unwrap();
    let after: Vec<f64> = r
        .samples
        .iter()
        .filter(|x| x.t_ns > cut)
        .map(|x| x.rates_gbps[0])
        .collect();
    assert!(after.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{after:?}");
}
