//! Text output shared by the commands.

use crate::sim::{Counters, Outcome};
use cngw_driver::device::feature_names;
use cngw_model::{InPort, OutPort};
use cngw_testbench::PortStats;

/// `125000000` -> `119.2 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `none` or `lh_ecn_mark, lh_cnp`.
pub fn features_text(bits: u32) -> String {
    let names = feature_names(bits);
    if names.is_empty() {
        "none (every feature off)".to_string()
    } else {
        names.join(", ")
    }
}

fn rate(stats: Option<&PortStats>) -> String {
    match stats {
        Some(s) if s.beats > 0 => format!("{:.3}", s.beats_per_cycle()),
        _ => "-".to_string(),
    }
}

fn opt(v: Option<u64>) -> String {
    v.map_or("-".to_string(), |v| v.to_string())
}

/// The per-direction table of a replay: frame counters and stream statistics.
pub fn print_stream_table(outcome: &Outcome, counters: &Counters) {
    let cap = &outcome.capture;
    let dirs = [
        (InPort::DcRx, OutPort::WanTx, &counters.dc_to_wan),
        (InPort::WanRx, OutPort::DcTx, &counters.wan_to_dc),
    ];
    println!(
        "  {:<34} {:>17} {:>17}",
        "",
        format!("{} -> {}", InPort::DcRx.name(), OutPort::WanTx.name()),
        format!("{} -> {}", InPort::WanRx.name(), OutPort::DcTx.name())
    );
    let row =
        |label: &str, f: &dyn Fn(InPort, OutPort, &crate::sim::DirectionCounters) -> String| {
            let cells: Vec<String> = dirs.iter().map(|(i, o, c)| f(*i, *o, c)).collect();
            println!("  {:<34} {:>17} {:>17}", label, cells[0], cells[1]);
        };
    row("frames in", &|_, _, c| c.rx_frames.to_string());
    row("frames out", &|_, _, c| c.tx_frames.to_string());
    row("RoCEv2 frames parsed", &|_, _, c| c.roce.to_string());
    row("non-RoCE frames", &|_, _, c| c.non_roce.to_string());
    row("malformed frames", &|_, _, c| c.malformed.to_string());
    row("beats in / out", &|i, o, _| {
        let b = |s: Option<&PortStats>| s.map_or(0, |s| s.beats);
        format!(
            "{} / {}",
            b(cap.input_stats.get(&i)),
            b(cap.output_stats.get(&o))
        )
    });
    row("beats/cycle in", &|i, _, _| rate(cap.input_stats.get(&i)));
    row("beats/cycle out", &|_, o, _| rate(cap.output_stats.get(&o)));
    row("latency, first frame (cycles)", &|i, o, _| {
        opt(outcome.latency(i, o))
    });
    println!(
        "  (frame counts from the device counters; beats/cycle from first to last beat of each port)"
    );
    println!(
        "  simulated {} clock cycles (until the pipeline drained); simulation speed {} on this host \
         (wall clock, host-dependent)",
        cap.cycles,
        cycles_per_second_text(outcome.cycles_per_second())
    );
}

/// `3.41 M cycles/s`.
pub fn cycles_per_second_text(cps: f64) -> String {
    if cps >= 1e6 {
        format!("{:.2} M cycles/s", cps / 1e6)
    } else if cps >= 1e3 {
        format!("{:.1} k cycles/s", cps / 1e3)
    } else {
        format!("{cps:.0} cycles/s")
    }
}

/// Minimal JSON string escaping.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(65_536), "64.0 KiB");
        assert_eq!(human_bytes(125_000_000), "119.2 MiB");
        assert_eq!(json_string("a\"b\n"), "\"a\\\"b\\n\"");
    }
}
