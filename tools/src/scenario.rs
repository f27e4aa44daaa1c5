//! `cngw scenario FILE`: runs a closed-loop scenario
//! (`cngw_model::scenario`) in each mode, prints a summary table (or JSON)
//! and writes each mode's time series to `DIR/<mode>.csv` and its plots to
//! `DIR/<mode>.png` and `DIR/modes.png` (`scenario_plot`).

use crate::cli::{LoopKind, ScenarioArgs};
use crate::report::json_string;
use crate::scenario_plot;
use crate::scenario_rtl::{first_difference, RtlLoop};
use anyhow::{bail, Context, Result};
use cngw_model::scenario::{run_with, Mode, ModelLoop, RunResult, Scenario};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

pub fn run(args: &ScenarioArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let mut scn =
        Scenario::from_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    if let Some(ms) = args.duration_ms {
        scn.duration_ms = ms;
        scn.validate()
            .map_err(|e| anyhow::anyhow!("--duration-ms: {e}"))?;
    }
    let modes = if args.modes.is_empty() {
        scn.default_modes()
    } else {
        args.modes.clone()
    };
    if modes.is_empty() {
        bail!("no modes to run");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let show = args.progress || (std::io::stderr().is_terminal() && !args.json);
    let mut results = Vec::new();
    let mut checks = Vec::new();
    let file = args.file.display();
    for &mode in &modes {
        let rtl = mode.loop_gateway() && (args.cross_check || args.gateway == LoopKind::Rtl);
        let mut bar = Progress::new(mode, show, rtl);
        let mut node = RtlLoop::new_if(rtl);
        let r = match node.as_mut() {
            Some(n) => run_with(&scn, mode, Box::new(n), &mut |now, end| {
                bar.update(now, end)
            }),
            None => run_with(&scn, mode, Box::new(ModelLoop::new()), &mut |now, end| {
                bar.update(now, end)
            }),
        }
        .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        bar.done();
        if let (true, Some(n)) = (args.cross_check, node.as_mut()) {
            let check = cross_check(&scn, mode, &r, n)
                .with_context(|| format!("{file}: cross-check of mode {mode}"))?;
            checks.push((mode, check));
        }
        let path = args.out.join(format!("{mode}.csv"));
        std::fs::write(&path, csv(&scn, &r))
            .with_context(|| format!("writing {}", path.display()))?;
        results.push(r);
    }
    let plots = if args.no_plots {
        Plots::Off
    } else {
        plots(&scn, &results, args)
    };
    if args.json {
        print!("{}", json(&scn, &results, &checks));
    } else {
        for (mode, c) in &checks {
            println!(
                "cross-check {mode}: the RTL and the model sent the same {} notifications \
                 (bytes and dc_tx clocks) and the runs agree; the RTL took {} frames on dc_rx, \
                 {} of them behind another",
                c.notifications, c.frames, c.frames_queued
            );
        }
        print!("{}", table(&scn, &results, &args.out));
        match &plots {
            Plots::Written(files) => println!(
                "plots: {}",
                files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Plots::Skipped(why) => println!("plots: skipped ({why})"),
            Plots::Off | Plots::Failed(_) => {}
        }
    }
    match plots {
        Plots::Skipped(why) => {
            eprintln!("cngw scenario: the plots were skipped: {why}");
            Ok(())
        }
        Plots::Failed(e) => Err(e.context("the CSV files are written; the plots are not")),
        _ => Ok(()),
    }
}

/// What became of the plots.
enum Plots {
    /// `--no-plots`.
    Off,
    Written(Vec<PathBuf>),
    /// The default font is missing: the plots are left out, the command
    /// succeeds.
    Skipped(String),
    /// A font given with `--font` is unusable, or drawing failed: the
    /// command fails.
    Failed(anyhow::Error),
}

fn plots(scn: &Scenario, results: &[RunResult], args: &ScenarioArgs) -> Plots {
    let font = args
        .font
        .clone()
        .unwrap_or_else(|| PathBuf::from(scenario_plot::DEFAULT_FONT));
    if args.font.is_none() && !font.exists() {
        return Plots::Skipped(format!(
            "no font at {} (install Debian's fonts-dejavu-core, or give --font FILE)",
            font.display()
        ));
    }
    if let Err(e) = scenario_plot::load_font(&font) {
        return Plots::Failed(e);
    }
    match scenario_plot::write_all(scn, results, &args.out) {
        Ok(files) => Plots::Written(files),
        Err(e) => Plots::Failed(e),
    }
}

/// What a cross-check compared.
pub struct CrossCheck {
    pub notifications: usize,
    pub frames: u64,
    pub frames_queued: u64,
}

/// Runs `mode` again with the model timed as the RTL and compares it with
/// the RTL's run `rtl`: the same notifications (bytes, clocks) and the
/// same summary.
fn cross_check(
    scn: &Scenario,
    mode: Mode,
    rtl: &RunResult,
    node: &mut RtlLoop,
) -> Result<CrossCheck> {
    if node.header_mismatches > 0 {
        let (want, got) = node.first_mismatch.unwrap_or_default();
        bail!(
            "{} of {} frames were parsed in another clock than the loop assumed \
             (the first in clock {got}, not {want})",
            node.header_mismatches,
            node.frames
        );
    }
    let mut model_node = ModelLoop::timed_as_rtl();
    let model = run_with(scn, mode, Box::new(&mut model_node), &mut |_, _| {})
        .map_err(|e| anyhow::anyhow!(e))?;
    let counters = counter_differences(scn, node, &mut model_node)?;
    if let Some(d) = first_difference(&rtl.notifications, &model.notifications) {
        if counters.is_empty() {
            bail!("{d}");
        }
        bail!(
            "{d}\n  counters at the end (RTL, model): {}",
            counters.join(", ")
        );
    }
    if !counters.is_empty() {
        bail!(
            "the same notifications, different counters at the end (RTL, model): {}",
            counters.join(", ")
        );
    }
    if rtl.summary != model.summary {
        bail!(
            "the same notifications, different runs: RTL {:?}, model {:?}",
            rtl.summary,
            model.summary
        );
    }
    Ok(CrossCheck {
        notifications: rtl.notifications.len(),
        frames: node.frames,
        frames_queued: node.frames_queued,
    })
}

/// Clocks both gateways run past the scenario's end, with no input, before
/// their counters are compared: every frame in flight is through.
const CROSS_CHECK_DRAIN_CLOCKS: u64 = 20_000;

/// Runs both gateways past the scenario's end and lists every counter and
/// status register (`volatile` in the register map) whose values differ,
/// as `NAME rtl/model`; gauges that move with time alone (the scoreboard's
/// `MOVING_GAUGES`: the model computes them only where a test asks) are left out.
fn counter_differences(
    scn: &Scenario,
    rtl: &mut RtlLoop,
    model: &mut ModelLoop,
) -> Result<Vec<String>> {
    use cngw_model::scenario::LoopGateway;
    let per_us = u64::from(
        rtl.read_register(cngw_regmap::offset::CLOCKS_PER_US)
            .map_err(|e| anyhow::anyhow!(e))?,
    );
    let end = (scn.duration_ms * 1_000.0 * per_us as f64).ceil() as u64 + CROSS_CHECK_DRAIN_CLOCKS;
    rtl.advance_to(end);
    model.advance_to(end);
    let mut out = Vec::new();
    let moving = cngw_testbench::scoreboard::MOVING_GAUGES;
    for r in cngw_regmap::REGISTERS
        .iter()
        .filter(|r| r.volatile && !moving.contains(&r.offset))
    {
        let a = rtl
            .read_register(r.offset)
            .map_err(|e| anyhow::anyhow!(e))?;
        let b = model
            .read_register(r.offset)
            .map_err(|e| anyhow::anyhow!(e))?;
        if a != b {
            out.push(format!("{} {a}/{b}", r.name));
        }
    }
    Ok(out)
}

/// Progress on stderr: a bar redrawn in place on a terminal, else a line
/// at every quarter; nothing unless `show`.
struct Progress {
    mode: Mode,
    show: bool,
    rtl: bool,
    tty: bool,
    shown: Option<u64>,
}

impl Progress {
    fn new(mode: Mode, show: bool, rtl: bool) -> Self {
        Progress {
            mode,
            show,
            rtl,
            tty: std::io::stderr().is_terminal(),
            shown: None,
        }
    }

    fn update(&mut self, now: u64, end: u64) {
        if !self.show {
            return;
        }
        let pct = (now * 100).checked_div(end).unwrap_or(100).min(100);
        let step = if self.tty { pct / 2 } else { pct / 25 };
        if self.shown == Some(step) {
            return;
        }
        self.shown = Some(step);
        let mut err = std::io::stderr().lock();
        let ms = now as f64 / 1e6;
        if self.tty {
            let filled = (pct / 5) as usize;
            let _ = write!(
                err,
                "\r{:<12} [{}{}] {pct:>3}% {ms:.1} ms simulated{}",
                self.mode.name(),
                "#".repeat(filled),
                ".".repeat(20 - filled),
                if self.rtl { " (RTL)" } else { "" }
            );
        } else {
            let rtl = if self.rtl { ", RTL" } else { "" };
            let _ = writeln!(
                err,
                "{}: {pct}% ({ms:.1} ms simulated{rtl})",
                self.mode.name()
            );
        }
        let _ = err.flush();
    }

    fn done(&self) {
        if self.show && self.tty {
            eprintln!();
        }
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn wan_rtt_ns(scn: &Scenario) -> f64 {
    scn.path.wan_rtt_ms * 1e6
}

/// The summary table.
pub fn table(scn: &Scenario, results: &[RunResult], out: &Path) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: {} senders, WAN {} Gb/s, RTT {} ms, DC RTT {} us, K_min {:.1} MB, K_max {:.1} MB, \
         {} ms simulated",
        scn.name,
        scn.senders.len(),
        scn.path.wan_rate_gbps,
        scn.path.wan_rtt_ms,
        scn.path.dc_rtt_us,
        scn.k_min_bytes() as f64 / 1e6,
        scn.k_max_bytes() as f64 / 1e6,
        scn.duration_ms
    );
    let _ = writeln!(
        t,
        "{:<14} {:>10} {:>14} {:>9} {:>15} {:>8} {:>9} {:>8} {:>6} {:>7}",
        "mode",
        "onset ms",
        "first cut ms",
        "x RTT",
        "peak queue MB",
        "drops",
        "WAN util",
        "Jain",
        "CNPs",
        "notif."
    );
    for r in results {
        let s = &r.summary;
        let (cut, rtts) = match s.time_to_first_cut_ns() {
            Some(c) => (
                format!("{:.3}", ms(c)),
                format!("{:.2}", c as f64 / wan_rtt_ns(scn)),
            ),
            None => ("none".into(), "-".into()),
        };
        let _ = writeln!(
            t,
            "{:<14} {:>10} {:>14} {:>9} {:>15.1} {:>8} {:>8.1}% {:>8.4} {:>6} {:>7}",
            s.mode.name(),
            s.onset_ns
                .map_or("none".into(), |o| format!("{:.3}", ms(o))),
            cut,
            rtts,
            s.peak_queue_bytes as f64 / 1e6,
            s.drops,
            100.0 * s.wan_utilisation,
            s.jain,
            s.cnps_sent,
            s.notifications
        );
    }
    let _ = writeln!(
        t,
        "first cut: from onset (queue above {} bytes) to the first cut of any sender's rate; \
         drops in packets of {} bytes; notif.: the gateway's notifications",
        scn.bottleneck.onset_bytes, scn.path.mtu_bytes
    );
    let _ = writeln!(t, "time series: {}/<mode>.csv", out.display());
    t
}

fn opt(v: Option<u64>) -> String {
    v.map_or("null".into(), |v| v.to_string())
}

/// The JSON document of `--json`.
pub fn json(scn: &Scenario, results: &[RunResult], checks: &[(Mode, CrossCheck)]) -> String {
    let mut o = String::from("{\n");
    let _ = writeln!(o, "  \"scenario\": {},", json_string(&scn.name));
    let _ = writeln!(o, "  \"wan_rtt_ns\": {},", wan_rtt_ns(scn) as u64);
    let _ = writeln!(o, "  \"duration_ns\": {},", (scn.duration_ms * 1e6) as u64);
    o.push_str("  \"modes\": [\n");
    for (i, r) in results.iter().enumerate() {
        let s = &r.summary;
        let _ = write!(
            o,
            "    {{\"mode\": \"{}\", \"onset_ns\": {}, \"first_cut_ns\": {}, \
             \"time_to_first_cut_ns\": {}, \"first_cut_sender\": {}, \"peak_queue_bytes\": {}, \
             \"drops\": {}, \"dropped_bytes\": {}, \"wan_utilisation\": {:.6}, \"jain\": {:.6}, \
             \"cnps_sent\": {}, \"notifications\": {}, \"resumes\": {}, \"delivered_bytes\": [{}], \
             \"cross_check\": {}}}",
            s.mode.name(),
            opt(s.onset_ns),
            opt(s.first_cut_ns),
            opt(s.time_to_first_cut_ns()),
            opt(s.first_cut_sender.map(|v| v as u64)),
            s.peak_queue_bytes,
            s.drops,
            s.dropped_bytes,
            s.wan_utilisation,
            s.jain,
            s.cnps_sent,
            s.notifications,
            s.resumes,
            s.delivered_bytes
                .iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            match checks.iter().find(|(m, _)| *m == s.mode) {
                Some((_, c)) => format!(
                    "{{\"notifications\": {}, \"frames\": {}, \"frames_queued\": {}}}",
                    c.notifications, c.frames, c.frames_queued
                ),
                None => "null".into(),
            }
        );
        o.push_str(if i + 1 < results.len() { ",\n" } else { "\n" });
    }
    o.push_str("  ]\n}\n");
    o
}

/// A mode's time series: one row per sample.
pub fn csv(scn: &Scenario, r: &RunResult) -> String {
    let mut c = String::from("time_us,queue_bytes");
    for s in &scn.senders {
        let _ = write!(c, ",rate_gbps_{}_qp{}", s.ip, s.qp);
    }
    c.push_str(",cnp_arrivals,notification_arrivals,drops\n");
    for x in &r.samples {
        let _ = write!(c, "{:.3},{}", x.t_ns as f64 / 1e3, x.queue_bytes);
        for rate in &x.rates_gbps {
            let _ = write!(c, ",{rate:.6}");
        }
        let _ = writeln!(c, ",{},{},{}", x.cnp_arrivals, x.lh_arrivals, x.drops);
    }
    c
}
