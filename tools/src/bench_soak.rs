//! `cngw bench --soak CYCLES [--seed N]` (issue 9, HW-02): the Verilated
//! gateway against the reference model with the soak's features on
//! (`cngw_testbench::soak::FEATURES`), for CYCLES
//! clocks of random mixed traffic (`cngw_testbench::soak`). Prints the
//! clocks run, frames per port, notifications per kind, the differences
//! found (0, or the command fails with the first one), the wall time and
//! the simulation speed.

use anyhow::{anyhow, Result};
use cngw_testbench::soak::{self, SoakReport, FEATURES, ROLE};
use std::io::IsTerminal;

pub fn run(cycles: u64, seed: u64, json: bool) -> Result<()> {
    let show = std::io::stderr().is_terminal() && !json;
    let report = soak::run(seed, cycles, |r| {
        if show && r.chunks.checked_rem(10) == Some(0) {
            eprint!(
                "\r{:>14} clocks, {:>9} notifications, {:.0} s",
                r.cycles,
                r.notifications.total(),
                r.wall.as_secs_f64()
            );
        }
    });
    if show {
        eprintln!();
    }
    let report = report.map_err(|e| {
        anyhow!(
            "{e}\n(after {} clocks, {} chunks compared without a difference)",
            e.report.cycles,
            e.report.chunks
        )
    })?;
    if json {
        println!("{}", to_json(&report));
    } else {
        print_human(cycles, &report);
    }
    Ok(())
}

fn to_json(r: &SoakReport) -> String {
    let kinds: Vec<String> = r
        .notifications
        .kinds()
        .iter()
        .map(|(k, n)| format!("\"{k}\":{n}"))
        .collect();
    let peak = soak::memory_kib().map_or(0, |m| m.1);
    format!(
        "{{\"seed\":{},\"cycles\":{},\"chunks\":{},\"frames_dc_rx\":{},\"frames_wan_rx\":{},\"frames_dc_tx\":{},\"frames_wan_tx\":{},\"depth_steps\":{},\"notifications\":{{{}}},\"notifications_total\":{},\"mismatches\":{},\"wall_s\":{:.3},\"cycles_per_s\":{:.0},\"peak_rss_kib\":{}}}",
        r.seed,
        r.cycles,
        r.chunks,
        r.frames_in[0],
        r.frames_in[1],
        r.frames_out[0],
        r.frames_out[1],
        r.depth_steps,
        kinds.join(","),
        r.notifications.total(),
        r.mismatches,
        r.wall.as_secs_f64(),
        r.cycles_per_second(),
        peak
    )
}

fn print_human(asked: u64, r: &SoakReport) {
    println!(
        "cngw bench --soak: {asked} clocks of random mixed traffic, seed {}, every feature \
         on (FEATURE_ENABLE {FEATURES:#x}); roles: {ROLE}; the RTL against the \
         reference model",
        r.seed
    );
    println!();
    println!(
        "clocks:        {} (traffic, each chunk drained, and the end's rest)",
        r.cycles
    );
    println!("chunks:        {}", r.chunks);
    println!(
        "frames in:     dc_rx {}, wan_rx {}",
        r.frames_in[0], r.frames_in[1]
    );
    println!(
        "frames out:    dc_tx {}, wan_tx {}",
        r.frames_out[0], r.frames_out[1]
    );
    println!("depth steps:   {}", r.depth_steps);
    println!("notifications: {}", r.notifications.total());
    for (kind, n) in r.notifications.kinds() {
        println!("  {kind:<38} {n}");
    }
    println!("mismatches:    {}", r.mismatches);
    println!(
        "wall time:     {:.1} s ({:.0} clocks/s)",
        r.wall.as_secs_f64(),
        r.cycles_per_second()
    );
    if let Some((_, peak)) = soak::memory_kib() {
        println!("peak memory:   {} MiB resident", peak / 1024);
    }
}
