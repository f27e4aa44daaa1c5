//! `cngw config check|apply`.

use crate::device::{self, device_error, AnyDevice, DeviceSpec};
use anyhow::{Context, Result};
use cngw_driver::config::{apply as apply_plan, Config, Plan};
use cngw_regmap::by_offset;
use std::path::Path;

/// Reads and parses a configuration file (unknown keys are errors).
pub fn load(path: &Path) -> Result<Config> {
    Config::load(path).with_context(|| format!("configuration {} rejected", path.display()))
}

/// `8 register write(s)` or `8 register write(s) and 2 static flow(s)`.
pub fn plan_size(plan: &Plan) -> String {
    let writes = format!("{} register write(s)", plan.register_writes().len());
    match plan.flows.len() {
        0 => writes,
        n => format!("{writes} and {n} static flow(s)"),
    }
}

/// The plan's warnings (settings that are legal but probably not meant), on stderr.
pub fn print_warnings(plan: &Plan) {
    for w in &plan.warnings {
        eprintln!("warning: {w}");
    }
}

pub fn print_plan(plan: &Plan) {
    if plan.is_empty() {
        println!("plan: no register writes");
    } else {
        println!("plan: {}, in this order:", plan_size(plan));
        for line in plan.to_string().lines() {
            println!("  {line}");
        }
    }
}

/// Every write of `plan` as this device would take it (the checks `apply`
/// makes before its first write), so `check` and `apply` agree.
pub fn check_against_device(dev: &AnyDevice<'_>, plan: &Plan) -> Result<()> {
    for (offset, value) in plan.register_writes() {
        let reg = by_offset(offset)
            .ok_or_else(|| anyhow::anyhow!("the plan writes unmapped offset {offset:#05x}"))?;
        dev.check(reg, value).map_err(device_error)?;
    }
    Ok(())
}

pub fn check(spec: &DeviceSpec, verbose: bool, path: &Path) -> Result<()> {
    let config = load(path)?;
    let mut dev = device::open(spec, verbose)?;
    let plan = config
        .plan(&mut dev)
        .with_context(|| format!("configuration {} rejected", path.display()))?;
    check_against_device(&dev, &plan)
        .with_context(|| format!("configuration {} rejected", path.display()))?;
    print_warnings(&plan);
    println!("{}: valid for the {}", path.display(), spec.describe());
    print_plan(&plan);
    println!("check only: nothing written");
    Ok(())
}

pub fn apply(spec: &DeviceSpec, verbose: bool, path: &Path) -> Result<()> {
    let config = load(path)?;
    let mut dev = device::open(spec, verbose)?;
    let plan = config
        .plan(&mut dev)
        .with_context(|| format!("configuration {} rejected; nothing written", path.display()))?;
    print_plan(&plan);
    print_warnings(&plan);
    apply_plan(&mut dev, &plan)
        .map_err(device_error)
        .with_context(|| format!("applying {} failed", path.display()))?;
    println!("applied {} to the {}", plan_size(&plan), spec.describe());
    Ok(())
}
