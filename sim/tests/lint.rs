//! The emitted Verilog passes `verilator --lint-only -Wall` with only the
//! waivers `cngw_hdl::verilog::lint_waivers` names (HW-01).

use cngw_hdl::verilog::{DESIGN_FILE, WAIVER_FILE, WRAPPER_FILE, WRAPPER_MODULE};
use std::path::Path;
use std::process::Command;

fn lint(files: &[&Path], top: &str) -> (bool, String) {
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", top])
        .args(files)
        .output()
        .expect("run verilator");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn hw_01_emitted_verilog_lints_clean_with_scoped_waivers() {
    let dir = Path::new(cngw_sim::RTL_DIR);
    let (ok, log) = lint(
        &[
            &dir.join(WAIVER_FILE),
            &dir.join(DESIGN_FILE),
            &dir.join(WRAPPER_FILE),
        ],
        WRAPPER_MODULE,
    );
    assert!(ok && !log.contains("%Warning"), "lint failed:\n{log}");
}

#[test]
fn hw_01_waivers_are_needed_and_scoped() {
    // Without the waiver file the same lint fails, so the waivers hide real
    // rust-hdl artefacts and the lint above is not vacuous.
    let dir = Path::new(cngw_sim::RTL_DIR);
    let (ok, log) = lint(
        &[&dir.join(DESIGN_FILE), &dir.join(WRAPPER_FILE)],
        WRAPPER_MODULE,
    );
    assert!(!ok, "lint passed without waivers");
    assert!(log.contains("%Warning-WIDTH"), "{log}");
    // The waivers name files and rules only; no blanket lint_off.
    let waivers = std::fs::read_to_string(dir.join(WAIVER_FILE)).unwrap();
    for line in waivers.lines().filter(|l| l.starts_with("lint_off")) {
        assert!(
            line.contains("-rule ") && line.contains(&format!("-file \"*/{DESIGN_FILE}\"")),
            "{line}"
        );
    }
}

#[test]
fn hw_01_unit_designs_lint_clean() {
    // The blocks verilated on their own (`cngw_sim::Unit`), header_splice
    // among them, are not all in the gateway: lint each as it is built.
    let designs = cngw_hdl::units::unit_designs();
    assert!(designs.iter().any(|(name, _)| *name == "header_splice"));
    for (name, design) in designs {
        cngw_hdl::verilog::lint_block(name, &design)
            .unwrap_or_else(|log| panic!("unit {name} lint failed:\n{log}"));
    }
}
