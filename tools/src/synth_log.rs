//! Readers of the open synthesis tools' reports, for `cngw synth` (HW-05):
//! Yosys's `stat` (cell counts after `synth_xilinx`) and nextpnr-ecp5's log
//! (device utilisation, maximum frequency per clock, critical path).
//!
//! Plain text in, numbers out: no dependency on the rest of the tool, so the
//! tests can compile this file on its own.

use std::collections::BTreeMap;

/// Cell counts of the top module from Yosys's `stat` text. Reads both
/// layouts Yosys has printed: `   36   FDRE` (0.4x and later) and
/// `   FDRE   36` (older). With a `=== top ===` section only that section
/// is read (the design hierarchy summary repeats the counts).
pub fn parse_yosys_stat(text: &str) -> BTreeMap<String, u64> {
    let lines: Vec<&str> = text.lines().collect();
    let headers: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("==="))
        .map(|(i, _)| i)
        .collect();
    let section = headers
        .iter()
        .position(|&i| lines[i].trim() == "=== top ===")
        .map(|k| {
            let start = headers[k] + 1;
            let end = headers.get(k + 1).copied().unwrap_or(lines.len());
            &lines[start..end]
        })
        .unwrap_or(&lines[..]);
    let mut cells = BTreeMap::new();
    for line in section {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.len() != 2 {
            continue;
        }
        let (count, name) = match (tokens[0].parse::<u64>(), tokens[1].parse::<u64>()) {
            (Ok(n), Err(_)) => (n, tokens[1]),
            (Err(_), Ok(n)) => (n, tokens[0]),
            _ => continue,
        };
        if is_cell_name(name) {
            *cells.entry(name.to_string()).or_insert(0) += count;
        }
    }
    cells
}

/// A primitive's name: an identifier, or a Yosys internal cell (`$...`);
/// not the words of the summary lines (`wires`, `cells`, `ports`, ...).
fn is_cell_name(name: &str) -> bool {
    let summary = [
        "wires",
        "cells",
        "ports",
        "memories",
        "processes",
        "submodules",
    ];
    !summary.contains(&name)
        && !name.ends_with(':')
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '$' || c == '_')
}

/// UltraScale+ resources from `synth_xilinx -family xcup` cell counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct XilinxUse {
    /// LUTs used as logic (LUT1..LUT6).
    pub luts: u64,
    /// LUTs used as distributed RAM or shift registers (LUT equivalents).
    pub lutram: u64,
    /// Flip-flops (FDRE, FDSE, FDCE, FDPE) and latches.
    pub ffs: u64,
    /// Carry chains (CARRY8, or CARRY4 where Yosys maps those).
    pub carry: u64,
    /// Block RAM in RAMB36 equivalents (a RAMB18 counts one half).
    pub bram36: f64,
    pub uram: u64,
    pub dsp: u64,
}

impl XilinxUse {
    /// Every LUT of the design, logic and memory.
    pub fn luts_total(&self) -> u64 {
        self.luts + self.lutram
    }
}

/// LUTs one distributed-RAM or SRL primitive occupies.
fn lutram_luts(cell: &str) -> Option<u64> {
    Some(match cell {
        "RAM32X1S" | "RAM64X1S" | "SRL16E" | "SRLC16E" | "SRLC32E" => 1,
        "RAM16X1D" | "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => 2,
        "RAM128X1D" | "RAM256X1S" | "RAM32M" | "RAM64M" => 4,
        "RAM256X1D" | "RAM32M16" | "RAM64M8" | "RAM512X1S" => 8,
        _ => return None,
    })
}

pub fn xilinx_use(cells: &BTreeMap<String, u64>) -> XilinxUse {
    let mut u = XilinxUse::default();
    for (cell, &n) in cells {
        match cell.as_str() {
            "LUT1" | "LUT2" | "LUT3" | "LUT4" | "LUT5" | "LUT6" | "LUT6_2" => u.luts += n,
            "FDRE" | "FDSE" | "FDCE" | "FDPE" | "LDCE" | "LDPE" => u.ffs += n,
            "CARRY8" | "CARRY4" => u.carry += n,
            "RAMB36E2" | "RAMB36E1" => u.bram36 += n as f64,
            "RAMB18E2" | "RAMB18E1" => u.bram36 += n as f64 / 2.0,
            "URAM288" | "URAM288_BASE" => u.uram += n,
            "DSP48E2" | "DSP48E1" => u.dsp += n,
            other => {
                if let Some(luts) = lutram_luts(other) {
                    u.lutram += luts * n;
                }
            }
        }
    }
    u
}

/// What one nextpnr-ecp5 run reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NextpnrRun {
    /// Final (post-route) maximum frequency of each clock, MHz.
    pub fmax_mhz: BTreeMap<String, f64>,
    /// LUT4s (logic + carry + RAM), from the pre-packing summary.
    pub lut4: Option<u64>,
    /// Device utilisation: cell type -> used.
    pub used: BTreeMap<String, u64>,
    /// The last critical-path report.
    pub critical_path: Option<CriticalPath>,
    /// `ERROR:` lines.
    pub errors: Vec<String>,
}

impl NextpnrRun {
    /// The slowest clock's maximum frequency.
    pub fn fmax(&self) -> Option<f64> {
        self.fmax_mhz.values().copied().reduce(f64::min)
    }

    pub fn used(&self, cell: &str) -> u64 {
        self.used.get(cell).copied().unwrap_or(0)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CriticalPath {
    pub clock: String,
    /// Where the path starts and ends (net names, primitive suffixes cut).
    pub from: String,
    pub to: String,
    pub logic_ns: Option<f64>,
    pub routing_ns: Option<f64>,
}

/// Reads a nextpnr log (stderr of nextpnr-ecp5). The maximum frequency is
/// printed after placement and again after routing; the last one counts.
pub fn parse_nextpnr_log(text: &str) -> NextpnrRun {
    let mut run = NextpnrRun::default();
    let mut in_utilisation = false;
    let mut path: Option<CriticalPath> = None;
    for raw in text.lines() {
        let line = raw
            .trim_start_matches("Info:")
            .trim_start_matches("Warning:")
            .trim();
        if let Some(rest) = raw.trim().strip_prefix("ERROR:") {
            run.errors.push(rest.trim().to_string());
        }
        if let Some((clock, mhz)) = max_frequency(line) {
            run.fmax_mhz.insert(clock, mhz);
        }
        if let Some(rest) = line.strip_prefix("Total LUT4s:") {
            run.lut4 = used_of(rest);
        }
        if line == "Device utilisation:" {
            in_utilisation = true;
            run.used.clear();
            continue;
        }
        if in_utilisation {
            match line.split_once(':') {
                Some((cell, rest)) if !cell.contains(' ') && used_of(rest).is_some() => {
                    run.used.insert(cell.to_string(), used_of(rest).unwrap());
                }
                _ => in_utilisation = false,
            }
        }
        if let Some(rest) = line.strip_prefix("Critical path report for clock ") {
            if let Some(done) = path.take() {
                run.critical_path = Some(done);
            }
            path = Some(CriticalPath {
                clock: rest.split('\'').nth(1).unwrap_or(rest).to_string(),
                ..CriticalPath::default()
            });
            continue;
        }
        let Some(p) = path.as_mut() else { continue };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        // `clk-to-q  0.31  0.31 Source folded_sum.q_TRELLIS_FF_Q_16.Q`
        // `setup     0.00  4.12 Source checksum_out.q_TRELLIS_FF_Q.DI`
        if tokens.len() >= 5 && tokens[3] == "Source" {
            if p.from.is_empty() {
                p.from = short_name(tokens[4]);
            }
            p.to = short_name(tokens[4]);
        } else if tokens.len() == 2 && tokens[0] == "Sink" {
            p.to = short_name(tokens[1]);
        } else if let Some((logic, routing)) = logic_routing(line) {
            p.logic_ns = Some(logic);
            p.routing_ns = Some(routing);
            run.critical_path = path.take();
        } else if line.starts_with("Max frequency") || line.starts_with("Slack histogram") {
            run.critical_path = path.take();
        }
    }
    if let Some(done) = path {
        run.critical_path = Some(done);
    }
    run
}

/// `Max frequency for clock 'clock': 285.23 MHz (PASS at 250.00 MHz)`
fn max_frequency(line: &str) -> Option<(String, f64)> {
    let rest = line.strip_prefix("Max frequency for clock ")?;
    let (clock, after) = rest.rsplit_once(':')?;
    let mhz = after.split_whitespace().next()?.parse().ok()?;
    Some((clock.trim().trim_matches('\'').to_string(), mhz))
}

/// `      93/  83640     0%` -> 93
fn used_of(rest: &str) -> Option<u64> {
    let (used, _) = rest.split_once('/')?;
    used.trim().parse().ok()
}

/// `1.70 ns logic, 2.42 ns routing`
fn logic_routing(line: &str) -> Option<(f64, f64)> {
    let (logic, routing) = line.split_once(" ns logic, ")?;
    let routing = routing.strip_suffix(" ns routing")?;
    Some((logic.trim().parse().ok()?, routing.trim().parse().ok()?))
}

/// `checksum_out_matches.q_TRELLIS_FF_Q.DI` -> `checksum_out_matches.q`: the
/// design's net name without the names the mapping appended.
fn short_name(cell_pin: &str) -> String {
    let cut = [
        "_TRELLIS_",
        "_DP16KD_",
        "_MULT18X18D_",
        "_LUT4_",
        "_CCU2C_",
        "$",
    ]
    .iter()
    .filter_map(|m| cell_pin.find(m))
    .min()
    .unwrap_or(cell_pin.len());
    let name = &cell_pin[..cut];
    if name.is_empty() {
        cell_pin.to_string()
    } else {
        name.to_string()
    }
}

/// The median of the values (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}
