//! HW-05: the OpenNIC shell integration in `constraints/`.
//!
//! The box wrapper (`constraints/shell/*.v`, top `cngw_opennic_box`) must
//! lint clean with Verilator `-Wall` together with the gateway's emitted
//! Verilog, and the board constraints must name every clock the wrapper has
//! and the CMAC user clock's period, so the files cannot drift apart
//! silently.
//!
//! The wrapper's own blocks are simulated alone by the self-checking
//! SystemVerilog testbenches in `constraints/shell/tb/` (`verilator --binary
//! --timing`): the register bridge, the two FIFO roles and the reset
//! handshake, each with random stimulus from fixed seeds, in both clock
//! ratios where there are two clocks. A testbench prints a `PASS` line and
//! exits 0 only if every check held.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (this crate lives in `hdl/`).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every Verilog file of the wrapper, in a stable order.
fn shell_sources() -> Vec<PathBuf> {
    let dir = workspace().join("constraints").join("shell");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "v"))
        .collect();
    files.sort();
    assert!(
        files.iter().any(|p| p.ends_with("cngw_opennic_box.v")),
        "constraints/shell/cngw_opennic_box.v is missing"
    );
    files
}

fn read(relative: &str) -> String {
    let path = workspace().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

/// A constraint file without its comments (`#` to the end of the line).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The clock inputs of `cngw_opennic_box`: its input ports named `*clk`.
fn wrapper_clocks() -> Vec<String> {
    let source = read("constraints/shell/cngw_opennic_box.v");
    let clocks: Vec<String> = source
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("input "))
        .filter_map(|line| {
            line.trim_end_matches(',')
                .split_whitespace()
                .last()
                .map(str::to_string)
        })
        .filter(|name| name.ends_with("clk"))
        .collect();
    assert!(
        clocks.len() >= 2,
        "expected the register and CMAC clocks among the wrapper's inputs, found {clocks:?}"
    );
    clocks
}

#[test]
fn hw_05_nic_shell_wrapper_lints_with_the_gateway() {
    let dir = std::env::temp_dir().join(format!("cngw-shell-wrapper-{}", std::process::id()));
    let emitted = cngw_hdl::verilog::emit(&dir).expect("emit the gateway's Verilog");
    let output = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "cngw_opennic_box"])
        .arg(&emitted.waivers)
        .arg(&emitted.design)
        .arg(&emitted.wrapper)
        .args(shell_sources())
        .output()
        .expect("cannot run verilator (is it on PATH?)");
    let _ = std::fs::remove_dir_all(&dir);
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && !log.contains("%Warning") && !log.contains("%Error"),
        "verilator --lint-only -Wall --top-module cngw_opennic_box failed:\n{log}"
    );
}

#[test]
fn hw_05_board_constraints_name_every_wrapper_clock_and_the_cmac_period() {
    let clocks = wrapper_clocks();
    // 322.265625 MHz is 3.1030 ns; XDC periods are written to the picosecond.
    let cmac_period = format!("{:.3}", 1000.0 / 322.265625);
    assert_eq!(cmac_period, "3.103");

    let board = read("constraints/alveo_u250.xdc");
    let board_rules = without_comments(&board);
    for clock in &clocks {
        assert!(
            board_rules.contains(clock.as_str()),
            "constraints/alveo_u250.xdc has no constraint naming the wrapper's clock {clock}"
        );
    }
    assert!(
        board_rules.contains(&format!(
            "-datapath_only -from $shell_reg_clk -to $cngw_core_clk {cmac_period}"
        )),
        "the register bridge's crossing into the CMAC clock is not bounded by one CMAC period"
    );
    assert!(
        board.contains("322.265625"),
        "constraints/alveo_u250.xdc does not state the CMAC user clock's frequency"
    );

    // Out of context every wrapper clock is a port with its own create_clock,
    // the CMAC one at 3.103 ns.
    let ooc = without_comments(&read("constraints/cngw_opennic_box_ooc.xdc"));
    for clock in &clocks {
        assert!(
            ooc.lines().any(|line| line.starts_with("create_clock")
                && line.ends_with(&format!("[get_ports {clock}]"))),
            "constraints/cngw_opennic_box_ooc.xdc creates no clock on the port {clock}"
        );
    }
    assert!(
        ooc.contains(&format!(
            "create_clock -period {cmac_period} -name cmac_clk [get_ports cmac_clk]"
        )),
        "the out-of-context cmac_clk is not 322.265625 MHz"
    );
}

/// Builds the testbench `constraints/shell/tb/<top>.sv` with the given
/// wrapper files into a fresh temporary folder, runs the binary once per
/// argument list and checks that every run exits 0 and prints its PASS line.
fn simulate(top: &str, rtl: &[&str], runs: &[&[&str]]) {
    let shell = workspace().join("constraints").join("shell");
    let dir = std::env::temp_dir().join(format!("cngw-shell-tb-{top}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the simulation folder");
    let build = Command::new("verilator")
        .args([
            "--binary",
            "--timing",
            "-j",
            "2",
            "--top-module",
            top,
            "-o",
            top,
        ])
        .arg("--Mdir")
        .arg(&dir)
        .arg(shell.join("tb").join(format!("{top}.sv")))
        .args(rtl.iter().map(|file| shell.join(file)))
        .output()
        .expect("cannot run verilator (is it on PATH?)");
    if !build.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        panic!(
            "verilator --binary {top} failed:\n{}{}",
            String::from_utf8_lossy(&build.stdout),
            String::from_utf8_lossy(&build.stderr)
        );
    }
    let mut failures = Vec::new();
    for args in runs {
        let run = Command::new(dir.join(top))
            .args(*args)
            .output()
            .expect("run the testbench");
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        let passed = log
            .lines()
            .any(|line| line.starts_with(&format!("PASS {top}")));
        if !run.status.success() || !passed {
            failures.push(format!("{top} {}: {}\n{log}", args.join(" "), run.status));
        } else {
            // Keep the summary lines visible with --nocapture.
            print!("{log}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "testbench failed:\n{}",
        failures.join("\n")
    );
}

/// The register bridge with cngw_box_reset making its core-side reset, as in
/// cngw_opennic_box: random AXI4-Lite traffic with random delays on both
/// sides against a register file, SLVERR above the 4 KiB window, mod_rstn
/// pulses in the middle, at 125 MHz / 322 MHz and the reverse ratio.
#[test]
fn hw_05_axil_cdc_bridge_carries_random_register_traffic_across_clocks_and_resets() {
    simulate(
        "tb_axil_cdc",
        &["cngw_axil_cdc.v", "cngw_box_reset.v", "cngw_box_sync.v"],
        &[
            &["+seed=1", "+aclk_ps=8000", "+cclk_ps=3103", "+ops=3000"],
            &["+seed=2", "+aclk_ps=3103", "+cclk_ps=8000", "+ops=3000"],
        ],
    );
}

/// The FIFO in both roles: store and forward (whole frames, no gaps, intact,
/// in order) and drop when full (exactly the frames that fit, cut frames
/// flagged, `dropped` pulses, resets while the input streams on).
#[test]
fn hw_05_box_fifo_forwards_whole_frames_and_drops_or_cuts_as_documented() {
    simulate(
        "tb_box_fifo",
        &["cngw_box_fifo.v"],
        &[&["+seed=1", "+frames=3000"], &["+seed=2", "+frames=3000"]],
    );
}

/// The reset handshake: mod_rstn pulses of every length, some during the
/// previous handshake, in both clock ratios; the core stays in reset for
/// RESET_HOLD_CYCLES after each request and mod_rst_done reports it.
#[test]
fn hw_05_box_reset_handshake_holds_the_core_in_reset_for_every_request() {
    simulate(
        "tb_box_reset",
        &["cngw_box_reset.v", "cngw_box_sync.v"],
        &[
            &["+seed=1", "+aclk_ps=8000", "+cclk_ps=3103", "+pulses=300"],
            &["+seed=2", "+aclk_ps=3103", "+cclk_ps=8000", "+pulses=300"],
        ],
    );
}
